/* End-to-end tests of the schedlab command (suite "cli"). */
#include <stdbool.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "exp/metric.h"
#include "regress/stats.h"
#include "tests/tests.h"
#include "topologies/topo.h"

START_TEST(topo_defaults_to_numa4_and_prints_its_matrices)
{
	char *out, *err;
	ck_assert_int_eq(test_schedlab("topo", &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "topology numa4"));
	ck_assert_ptr_nonnull(strstr(out, "packages 4, NUMA nodes 4, core groups 4, cores 32, PUs 64"));
	ck_assert_ptr_nonnull(strstr(out, "distances (SLIT, 10 = local)"));
	ck_assert_ptr_nonnull(strstr(out, "DRAM latency"));
	ck_assert_ptr_nonnull(strstr(out, "       0  135  198  198  261"));
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
}
END_TEST

START_TEST(topo_json_has_the_model)
{
	char *out;
	ck_assert_int_eq(test_schedlab("topo -t numa2 --json", &out, NULL), 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(cJSON_GetObjectItem(o, "name")->valuestring, "numa2");
	ck_assert_int_eq(cJSON_GetObjectItem(o, "packages")->valueint, 2);
	ck_assert_int_eq(cJSON_GetObjectItem(o, "pus")->valueint, 64);
	cJSON *dram = cJSON_GetObjectItem(o, "dram_latency_ns");
	ck_assert_int_eq(cJSON_GetArraySize(dram), 2);
	ck_assert_int_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(dram, 0), 1)->valueint, 144);
	cJSON *caches = cJSON_GetObjectItem(o, "caches");
	ck_assert_int_eq(cJSON_GetArraySize(caches), 3);
	cJSON_Delete(o);
	free(out);
}
END_TEST

START_TEST(topo_reads_hwloc_xml_from_shared)
{
	char *args = NULL, *out;
	ck_assert_int_ge(asprintf(&args, "topo -t '%s/topologies/2s-corona-epyc-7401.xml'",
				  test_shared_dir()), 0);
	ck_assert_int_eq(test_schedlab(args, &out, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "packages 2, NUMA nodes 8, core groups 16, cores 48, PUs 96"));
	free(args);
	free(out);
}
END_TEST

START_TEST(topo_mlc_json_has_latency_c2c_and_bandwidth)
{
	char *out;
	ck_assert_int_eq(test_schedlab("topo -t numa4 --mlc --json", &out, NULL), 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	cJSON *lat = cJSON_GetObjectItem(o, "dram_latency_ns");
	ck_assert_int_eq(cJSON_GetArraySize(lat), 4);
	ck_assert(cJSON_GetArrayItem(cJSON_GetArrayItem(lat, 0), 0)->valuedouble == 135);
	ck_assert(cJSON_GetArrayItem(cJSON_GetArrayItem(lat, 1), 2)->valuedouble == 261);
	cJSON *c2c = cJSON_GetObjectItem(o, "c2c_latency_ns");
	ck_assert(cJSON_GetObjectItem(c2c, "same_group")->valuedouble == 48);
	ck_assert(cJSON_GetObjectItem(c2c, "hops_1")->valuedouble == 130);
	ck_assert(cJSON_GetObjectItem(c2c, "hops_2")->valuedouble == 195);
	/* numa4 has one group per package: no separate same-package figure. */
	ck_assert_ptr_null(cJSON_GetObjectItem(c2c, "same_package"));
	cJSON *bw = cJSON_GetObjectItem(o, "bandwidth_gbs");
	cJSON *one = cJSON_GetObjectItem(bw, "one_node");
	ck_assert_int_eq(cJSON_GetArraySize(one), 4);
	double inter = cJSON_GetObjectItem(bw, "interleaved")->valuedouble;
	ck_assert(inter > 3.5 * cJSON_GetArrayItem(one, 0)->valuedouble);
	cJSON_Delete(o);
	free(out);
}
END_TEST

/* A summary or listing that could not be written to stdout (a full
 * device) fails with a line saying so, not a silent exit 0. */
START_TEST(a_full_stdout_fails)
{
	const char *cmds[] = { "run -p steal -w ping-pong -t numa1 >/dev/full",
			       "list policies >/dev/full", "topo -t numa1 >/dev/full" };
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *err = NULL;
		int rc = test_schedlab(cmds[i], NULL, &err);
		ck_assert_msg(rc == 2, "%s: exit %d", cmds[i], rc);
		ck_assert_msg(strstr(err, "schedlab: standard output: No space left on device"), "%s: %s",
			      cmds[i], err);
		free(err);
	}
}
END_TEST

START_TEST(topo_mlc_text_is_deterministic)
{
	char *a, *b;
	ck_assert_int_eq(test_schedlab("topo -t numa2 --mlc", &a, NULL), 0);
	ck_assert_int_eq(test_schedlab("topo -t numa2 --mlc", &b, NULL), 0);
	ck_assert_ptr_nonnull(strstr(a, "idle pointer-chase latency"));
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
}
END_TEST

START_TEST(list_topologies_names_every_bundled_machine)
{
	char *out;
	ck_assert_int_eq(test_schedlab("list topologies", &out, NULL), 0);
	const char *names[] = { "numa1 ",     "numa2 ",     "numa4 ",	  "numa8 ",
				"box8 ",      "e5-2660v4 ", "epyc9684x ", "plat8160 ",
				"host " };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ck_assert_msg(strstr(out, names[i]), "missing %s in:\n%s", names[i], out);
	free(out);
}
END_TEST

static const struct {
	const char *args;
	const char *message;
} bad_cli[] = {
	{ "topo --frobnicate", "unknown option '--frobnicate'" },
	{ "topo -t", "option -t needs a topology" },
	{ "topo -t nosuch", "nosuch: not a bundled topology" },
	{ "topo -t /nonexistent/machine.json", "/nonexistent/machine.json: cannot open" },
	{ "list frobs", "unknown kind 'frobs'" },
	{ "frob", "unknown command 'frob'" },
	{ "run -w spawn-tree", "missing -p POLICY" },
	{ "run -p nosuch -w spawn-tree", "-p nosuch: no such policy (policies: " },
	{ "run -p steal -w nosuch", "no workload named 'nosuch' (bundled: cpu-hogs, deep-stacks, fib," },
	{ "run -p steal -w spawn-tree -t nosuch", "nosuch: not a bundled topology" },
	{ "run -p steal -w spawn-tree --set runq_sise=8",
	  "--set runq_sise=8: policy steal has no knob 'runq_sise' (its knobs: runq_size," },
	{ "run -p steal -w spawn-tree --set runq_size=100",
	  "--set runq_size=100: runq_size must be a power of two" },
	{ "run -p steal -w spawn-tree --set steal_tries=x", "'x' is not an integer" },
	{ "run -p steal -w spawn-tree --set global_check_interval=-1",
	  "global_check_interval must be between 0 and 1000000" },
	{ "run -p steal -w spawn-tree --procs 0", "--procs 0: expected a number from 1 to 4096" },
	{ "run -p steal -w spawn-tree --seed -3", "--seed -3: expected a non-negative integer" },
	{ "run -p steal -w spawn-tree --native -t numa4", "-t must be host, not 'numa4'" },
	{ "run -p steal -w spawn-tree --tracing x", "unknown option '--tracing'" },
	{ "run -p steal -w spawn-tree --trace-limit 5", "--trace-limit 5: there is no --trace FILE" },
	{ "run -p steal -w spawn-tree --trace -", "--trace -: name a file (Go's format by default" },
	{ "run -p steal -w spawn-tree --trace t.out --trace-format go1.21",
	  "--trace-format go1.21: expected go1.22 (Go's format since Go 1.22, the default), go1.19" },
	{ "run -p steal -w spawn-tree --trace-format chrome",
	  "--trace-format chrome: there is no --trace FILE to write" },
	{ "explore -p steal -w spawn-tree --trace-format go1.19",
	  "--trace-format go1.19: there is no --trace FILE to write" },
	{ "run -p steal -w spawn-tree --progress yes", "--progress yes: expected auto, always or never" },
	{ "compare -p steal -w ping-pong --progress", "option --progress needs a value" },
	{ "compare -t numa1 -w ping-pong", "missing -p P1,P2,..." },
	{ "compare -p steal,nosuch -w ping-pong",
	  "-p nosuch (column 2): no such policy 'nosuch' (policies: " },
	{ "compare -p steal, -w ping-pong", "-p steal,: column 2 is empty" },
	{ "compare -p steal,steal:runq_sise=8 -w ping-pong",
	  "-p steal:runq_sise=8 (column 2): runq_sise=8: policy steal has no knob 'runq_sise' "
	  "(its knobs: runq_size," },
	{ "compare -p steal:runnext=x,steal -w ping-pong",
	  "-p steal:runnext=x (column 1): runnext=x: 'x' is not a boolean" },
	{ "compare -p steal,steal:runnext -w ping-pong",
	  "-p steal:runnext (column 2): 'runnext' is not KEY=VALUE" },
	{ "compare -p steal,steal -w ping-pong",
	  "columns 1 (steal) and 2 (steal) are the same policy with the same knobs" },
	{ "compare -p steal,steal:runnext=1 -w ping-pong",
	  "columns 1 (steal) and 2 (steal:runnext=1) are the same policy with the same knobs" },
	{ "compare -p steal,steal:runnext=0 -w ping-pong --set runq_sise=8",
	  "--set runq_sise=8: no policy compared has a knob 'runq_sise' (steal's knobs: runq_size," },
	{ "compare -p steal,steal:runnext=0 -w ping-pong --set runq_size=100",
	  "--set runq_size=100: runq_size must be a power of two" },
	{ "compare -p steal -w ping-pong --seeds 0", "--seeds 0: expected a number from 1 to 10000" },
	{ "compare -p steal -w ping-pong --seeds many",
	  "--seeds many: expected a number from 1 to 10000" },
	{ "compare -p steal -w ping-pong --json - --csv -",
	  "--json - and --csv -: only one of them can write to stdout" },
	{ "compare -p steal -w ping-pong --json x.out --csv x.out", "--json and --csv both name x.out" },
	{ "compare -p steal -w ping-pong -j 0", "-j 0: expected a number of runs at once from 1 to 1024" },
	{ "compare -p steal -w ping-pong --native", "--native: compare runs simulations only" },
	{ "compare -p steal -w nosuch", "no workload named 'nosuch'" },
	{ "compare -p steal -w ping-pong --trace x", "unknown option '--trace'" },
	{ "run -p steal -w spawn-tree --max-sim-time 0s",
	  "--max-sim-time 0s: expected a time from 1ns to 100h, with a unit" },
	{ "run -p steal -w spawn-tree --max-sim-time 101h", "--max-sim-time 101h: expected a time" },
	{ "run -p steal -w spawn-tree --max-sim-time 10", "--max-sim-time 10: expected a time" },
	{ "run -p steal -w spawn-tree --max-sim-time", "option --max-sim-time needs a value" },
	{ "run -p steal -w spawn-tree --max-wall-time 1week", "--max-wall-time 1week: expected a time" },
	{ "run -p steal -w spawn-tree --max-memory 1MiB",
	  "--max-memory 1MiB: expected a size from 16MiB to 4GiB" },
	{ "run -p steal -w spawn-tree --max-memory 5GiB", "--max-memory 5GiB: expected a size" },
	{ "run -p steal -w spawn-tree --native --max-wall-time 1min",
	  "--max-wall-time: only a simulated run is cut at a time limit, not a --native one" },
	{ "compare -p steal -w ping-pong --max-sim-time -1s", "--max-sim-time -1s: expected a time" },
	{ "workload expand fib --max-memory lots", "--max-memory lots: expected a size" },
	/* an empty value or file name is named, not shown as ": cannot open" */
	{ "run -p steal -w spawn-tree -t ''", "-t: an empty value" },
	{ "regress --baseline ''", "--baseline: an empty value" },
	{ "sweep -p steal -w ping-pong --json ''", "--json: an empty value" },
	{ "merge '' -o x.jsonl", "merge: an empty file name" },
	{ "workload import '' -o x.json", "import: an empty file name" },
	{ "report '' -o x.html", "STORE: an empty file name" },
	{ "workload show ''", "show '': no bundled workload" },
};

START_TEST(bad_command_lines_exit_2_with_a_message)
{
	char *out, *err;
	ck_assert_int_eq(test_schedlab(bad_cli[_i].args, &out, &err), 2);
	ck_assert_msg(strstr(err, bad_cli[_i].message), "'%s' printed: %s", bad_cli[_i].args, err);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
}
END_TEST

START_TEST(bad_json_file_exits_2_naming_file_and_path)
{
	char path[] = "/tmp/schedlab-bad-XXXXXX.json";
	int fd = mkstemps(path, 5);
	ck_assert_int_ge(fd, 0);
	const char *text = "{ \"packages\": 1, \"numa_nodes\": 1, \"cores\": 4,\n"
			   "  \"latency\": { \"dram_ns\": { \"local\": -3 } } }\n";
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	char *args = NULL, *err;
	ck_assert_int_ge(asprintf(&args, "topo -t %s", path), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_ptr_nonnull(strstr(err, "$.latency.dram_ns.local: must be a positive number"));
	unlink(path);
	free(args);
	free(err);
}
END_TEST

START_TEST(list_policies_shows_knobs_and_defaults)
{
	char *out;
	ck_assert_int_eq(test_schedlab("list policies", &out, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "steal  P-based work stealing"));
	ck_assert_msg(strstr(out, "runq_size                     256  (2..65536, power of 2)"), "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "global_check_interval          61"));
	ck_assert_ptr_nonnull(strstr(out, "steal_tries                     4"));
	ck_assert_ptr_nonnull(strstr(out, "runnext_steal_delay_us          3"));
	free(out);
}
END_TEST

START_TEST(list_workloads_names_the_builtins)
{
	char *out;
	ck_assert_int_eq(test_schedlab("list workloads", &out, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "spawn-tree"));
	ck_assert_ptr_nonnull(strstr(out, "ping-pong"));
	ck_assert_ptr_nonnull(strstr(out, "yield-storm"));
	free(out);
}
END_TEST

/* The report: the keys DESIGN.md promises (those measured so far), the
 * knobs as set, and byte-identical output for the same seed. */
/* The report's cpu breakdown: the OS's view, and two sets, on a CPU and
 * off it, each with its total in ns and its fractions of it adding up to
 * 1; lock_wait_by splits each set's lock_wait by whose lock.  futex_frac
 * in simulation only (sim). */
static void assert_cpu_json(const cJSON *cpu, bool sim)
{
	ck_assert_ptr_nonnull(cpu);
	ck_assert_double_gt(cJSON_GetObjectItem(cpu, "span_ns")->valuedouble, 0);
	double pus = cJSON_GetObjectItem(cpu, "pus")->valuedouble;
	double busy = cJSON_GetObjectItem(cpu, "busy_pus")->valuedouble;
	double frac = cJSON_GetObjectItem(cpu, "busy_frac")->valuedouble;
	ck_assert(pus >= 1 && busy > 0);
	ck_assert_double_eq_tol(frac, busy / pus, 1e-9);
	ck_assert_double_eq_tol(busy, cJSON_GetObjectItem(cpu, "on_cpu_ns")->valuedouble /
					      cJSON_GetObjectItem(cpu, "span_ns")->valuedouble, 1e-6);
	cJSON *futex = cJSON_GetObjectItem(cpu, "futex_frac");
	ck_assert(sim == (futex != NULL));
	if (futex)
		ck_assert(futex->valuedouble > 0 && futex->valuedouble < 1);
	static const char *const sets[2] = { "on_cpu", "off_cpu" };
	static const char *const keys[2][4] = { { "user", "sched", "spin", "lock_wait" },
						{ "lock_wait", "syscall", "parked", NULL } };
	static const char *const lock_keys[] = { "sched", "chan", "sync", "net", "timers" };
	cJSON *by = cJSON_GetObjectItem(cpu, "lock_wait_by");
	for (int set = 0; set < 2; set++) {
		char total[32];
		snprintf(total, sizeof(total), "%s_ns", sets[set]);
		ck_assert_double_gt(cJSON_GetObjectItem(cpu, total)->valuedouble, 0);
		cJSON *o = cJSON_GetObjectItem(cpu, sets[set]);
		double sum = 0;
		int n = 0;
		for (; n < 4 && keys[set][n]; n++) {
			cJSON *v = cJSON_GetObjectItem(o, keys[set][n]);
			ck_assert_msg(v && v->valuedouble >= 0 && v->valuedouble <= 1, "cpu.%s.%s",
				      sets[set], keys[set][n]);
			sum += v->valuedouble;
		}
		ck_assert_int_eq(cJSON_GetArraySize(o), n);
		ck_assert_msg(fabs(sum - 1) < 1e-9, "cpu.%s adds up to %.12f", sets[set], sum);
		/* the lock wait by whose lock: every class, adding up to the set's */
		cJSON *cls = cJSON_GetObjectItem(by, sets[set]);
		double locks = 0;
		for (int i = 0; i < 5; i++) {
			cJSON *v = cJSON_GetObjectItem(cls, lock_keys[i]);
			ck_assert_msg(v && v->valuedouble >= 0, "lock_wait_by.%s.%s", sets[set],
				      lock_keys[i]);
			locks += v->valuedouble;
		}
		ck_assert_int_eq(cJSON_GetArraySize(cls), 5);
		double lw = cJSON_GetObjectItem(o, "lock_wait")->valuedouble;
		ck_assert_msg(fabs(locks - lw) < 1e-9, "lock_wait_by.%s adds up to %.9f, not %.9f",
			      sets[set], locks, lw);
	}
	ck_assert_double_gt(cJSON_GetObjectItem(cJSON_GetObjectItem(cpu, "on_cpu"), "user")->valuedouble,
			    0);
}

START_TEST(run_json_report_is_complete_and_deterministic)
{
	char *a, *b, *c;
	const char *args = "run -p steal -t numa2 -w spawn-tree --procs 8 --seed 5 "
			   "--set steal_tries=2 --json -";
	ck_assert_int_eq(test_schedlab(args, &a, NULL), 0);
	ck_assert_int_eq(test_schedlab(args, &b, NULL), 0);
	ck_assert_str_eq(a, b);
	ck_assert_int_eq(test_schedlab("run -p steal -t numa2 -w spawn-tree --procs 8 --seed 6 "
				  "--set steal_tries=2 --json -", &c, NULL), 0);
	ck_assert_str_ne(a, c);
	cJSON *o = cJSON_Parse(a);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(cJSON_GetObjectItem(o, "mode")->valuestring, "sim");
	ck_assert_str_eq(cJSON_GetObjectItem(o, "policy")->valuestring, "steal");
	ck_assert_str_eq(cJSON_GetObjectItem(o, "topology")->valuestring, "numa2");
	ck_assert_str_eq(cJSON_GetObjectItem(o, "workload")->valuestring, "spawn-tree");
	ck_assert_int_eq(cJSON_GetObjectItem(o, "seed")->valueint, 5);
	ck_assert_int_eq(cJSON_GetObjectItem(o, "procs")->valueint, 8);
	cJSON *k = cJSON_GetObjectItem(o, "knobs");
	ck_assert_int_eq(cJSON_GetObjectItem(k, "steal_tries")->valueint, 2);
	ck_assert_int_eq(cJSON_GetObjectItem(k, "runq_size")->valueint, 256);
	cJSON *m = cJSON_GetObjectItem(o, "metrics");
	ck_assert_int_eq(cJSON_GetObjectItem(m, "goroutines")->valueint, 10000);
	ck_assert_int_eq(cJSON_GetObjectItem(m, "completed")->valueint, 10000);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(m, "deadlock")));
	ck_assert_double_gt(cJSON_GetObjectItem(m, "makespan_ns")->valuedouble, 0);
	cJSON *lat = cJSON_GetObjectItem(m, "sched_latency_ns");
	static const char *const q[] = { "p50", "p90", "p99", "p999", "max", "mean" };
	double prev = 0;
	for (int i = 0; i < 5; i++) {
		cJSON *v = cJSON_GetObjectItem(lat, q[i]);
		ck_assert_msg(v && v->valuedouble >= prev, "%s out of order", q[i]);
		prev = v->valuedouble;
	}
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(lat, "mean"));
	/* no requests in this workload: no request latency, not zeros */
	ck_assert_ptr_null(cJSON_GetObjectItem(m, "request_latency_ns"));
	/* spawn-tree answers no requests: its throughput is in goroutines */
	ck_assert_str_eq(cJSON_GetObjectItem(m, "throughput_unit")->valuestring, "goroutines/s");
	ck_assert_double_eq_tol(cJSON_GetObjectItem(m, "throughput_per_s")->valuedouble,
				10000 / (cJSON_GetObjectItem(m, "makespan_ns")->valuedouble / 1e9), 1e-6);
	assert_cpu_json(cJSON_GetObjectItem(m, "cpu"), true);
	/* nothing in spawn-tree touches memory: no memory figures, migrations */
	cJSON *loc = cJSON_GetObjectItem(m, "locality");
	ck_assert_ptr_null(cJSON_GetObjectItem(loc, "mem_local_frac"));
	ck_assert_ptr_null(cJSON_GetObjectItem(loc, "mem_by_hops"));
	ck_assert_ptr_null(cJSON_GetObjectItem(loc, "cache_hit_frac"));
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(loc, "migrations_core"));
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(loc, "migrations_node"));
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "steals"), "goroutines_stolen"));
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "threads"), "futex_calls"));
	cJSON_Delete(o);
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(run_text_summary)
{
	char *out, *err;
	ck_assert_int_eq(test_schedlab("run -p steal -w ping-pong", &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "sim run: policy steal, topology numa4, workload ping-pong, "
					  "64 Ps, seed 1"));
	ck_assert_ptr_nonnull(strstr(out, "goroutines      3 made, 3 completed\n"));
	/* a table: one metric a row, values in their own column */
	ck_assert_ptr_nonnull(strstr(out, "\nlatency                p50       p90       p99     p99.9"));
	ck_assert_ptr_nonnull(strstr(out, "\n  scheduling    "));
	ck_assert_ptr_null(strstr(out, "request"));
	ck_assert_ptr_nonnull(strstr(out, "\nthroughput      "));
	ck_assert_ptr_nonnull(strstr(out, " goroutines/s\n"));
	ck_assert_ptr_nonnull(strstr(out, "\ncpu             span "));
	ck_assert_ptr_nonnull(strstr(out, " ms, 64 PUs\n  busy          "));
	ck_assert_ptr_nonnull(strstr(out, " in futex calls\n"));
	/* two sets, each its total and then its parts, in this order */
	static const char *const rows[] = { "  on CPU        ", "    user        ",
					    "    sched       ", "    spin        ",
					    "    lock wait   ", "  off CPU       ",
					    "    lock wait   ", "    syscall     ",
					    "    parked      " };
	const char *at = strstr(out, "\ncpu ");
	for (int i = 0; i < 9; i++) {
		char row[32];
		snprintf(row, sizeof(row), "\n%s", rows[i]);
		at = strstr(at, row);
		ck_assert_msg(at, "no cpu row '%s' in order in:\n%s", rows[i], out);
		at++;
		const char *eol = strchr(at, '\n');
		if (rows[i][2] == ' ')
			ck_assert_msg(eol[-1] == '%', "cpu row '%s' is not a percentage", rows[i]);
		else
			ck_assert_msg(memmem(at, (size_t)(eol - at), ", every M", 9), "%s", rows[i]);
	}
	ck_assert_ptr_nonnull(strstr(out, "\nlocality\n  migrations    "));
	ck_assert_ptr_null(strstr(out, "cache hits"));
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
}
END_TEST

START_TEST(run_native_completes)
{
	char *out;
	ck_assert_int_eq(test_schedlab("run -p steal -w spawn-tree --native --procs 2 --json -", &out, NULL),
			 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(cJSON_GetObjectItem(o, "mode")->valuestring, "native");
	ck_assert_str_eq(cJSON_GetObjectItem(o, "topology")->valuestring, "host");
	cJSON *m = cJSON_GetObjectItem(o, "metrics");
	ck_assert_int_eq(cJSON_GetObjectItem(m, "completed")->valueint, 10000);
	/* measured natively too, but no hardware counters of memory or futex here */
	assert_cpu_json(cJSON_GetObjectItem(m, "cpu"), false);
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(m, "sched_latency_ns"));
	cJSON *loc = cJSON_GetObjectItem(m, "locality");
	ck_assert_ptr_null(cJSON_GetObjectItem(loc, "mem_by_hops"));
	ck_assert_ptr_null(cJSON_GetObjectItem(loc, "cache_hit_frac"));
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(loc, "migrations_core"));
	cJSON_Delete(o);
	free(out);
}
END_TEST

/* ---- The latency model ---- */

/* No dead knob in the latency model [docs/topology.md]: each figure of a
 * topology's "latency" object, changed alone, changes the report of a run
 * that exercises the whole machine model -- tests/data/latency-probe.json
 * on tests/data/probe-machine.json, whose core groups split its packages
 * so that every cache level and every core-to-core relation is used.  The
 * table must name every figure `schedlab topo --json` shows (and the
 * bandwidth, shown per node), so a figure added later is tested too. */
static const struct {
	const char *section, *key, *value;   /* a figure of "latency" and a value far from its default */
} latency_params[] = {
	{ "cache_ns", "L1", "4" },
	{ "cache_ns", "L2", "12" },
	{ "cache_ns", "L3", "40" },
	{ "cache_ns", "L4", "100" },
	{ "cache_bw_gbs", "L1", "0.5" },
	{ "cache_bw_gbs", "L2", "0.5" },
	{ "cache_bw_gbs", "L3", "0.5" },
	{ "cache_bw_gbs", "L4", "0.5" },
	{ "c2c_ns", "core", "30" },
	{ "c2c_ns", "group", "150" },
	{ "c2c_ns", "package", "300" },
	{ "c2c_ns", "hops", "[400]" },
	{ "dram_ns", "local", "200" },
	{ "dram_ns", "hops", "[400]" },
	{ NULL, "slit_scale", "3" },          /* the probe machine gives no dram_ns.hops */
	{ NULL, "bandwidth_gbs", "5" },
	{ NULL, "mlp", "2" },
	{ "os_ns", "syscall", "2000" },
	{ "os_ns", "futex_wait", "5000" },
	{ "os_ns", "futex_wake", "5000" },
	{ "os_ns", "wakeup", "20000" },
	{ "os_ns", "timer_slack", "200000" },
	{ "os_ns", "epoll_event", "5000" },
	{ "os_ns", "thread_create", "100000" },
	{ "os_ns", "context_switch", "20000" },
	{ "os_ns", "g_switch", "500" },
	{ "os_ns", "pause", "100" },
	{ "os_ns", "base_slice", "1000" },
	{ "runtime_ns", "g_create", "5000" },
	{ "runtime_ns", "g_exit", "5000" },
	{ "runtime_ns", "stack_acquire", "5000" },
};
#define NLATENCY (int)(sizeof(latency_params) / sizeof(latency_params[0]))

/* The probe machine with latency (a JSON object's text) in a temporary
 * file, whose path goes to path. */
static void probe_machine(const char *latency, char path[64])
{
	char *base = NULL;
	ck_assert_int_ge(asprintf(&base, "%s/probe-machine.json", test_data_dir()), 0);
	char *text = test_read_file(base);
	cJSON *o = cJSON_Parse(text);
	ck_assert_ptr_nonnull(o);
	cJSON *lat = cJSON_Parse(latency);
	ck_assert_msg(lat, "%s", latency);
	cJSON_AddItemToObject(o, "latency", lat);
	char *out = cJSON_Print(o);
	snprintf(path, 64, "/tmp/schedlab-probe-XXXXXX.json");
	int fd = mkstemps(path, 5);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, out, strlen(out)), (ssize_t)strlen(out));
	close(fd);
	free(out);
	cJSON_Delete(o);
	free(text);
	free(base);
}

/* The metrics of the probe workload's run on the probe machine with
 * latency; the caller deletes the report they belong to (*report). */
static cJSON *probe_run(const char *latency, cJSON **report)
{
	char path[64];
	probe_machine(latency, path);
	char *args = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&args, "run -p steal -t %s -w %s/latency-probe.json --procs 16 "
				  "--json -", path, test_data_dir()), 0);
	int rc = test_schedlab(args, &out, &err);
	ck_assert_msg(rc == 0, "%s: %s", latency, err);
	*report = cJSON_Parse(out);
	ck_assert_ptr_nonnull(*report);
	unlink(path);
	free(args);
	free(out);
	free(err);
	return cJSON_GetObjectItem(*report, "metrics");
}

START_TEST(latency_model_has_no_dead_parameter)
{
	/* the table covers every figure of the model */
	char path[64], *args = NULL, *out;
	probe_machine("{}", path);
	ck_assert_int_ge(asprintf(&args, "topo -t %s --json", path), 0);
	ck_assert_int_eq(test_schedlab(args, &out, NULL), 0);
	unlink(path);
	cJSON *topo = cJSON_Parse(out);
	ck_assert_ptr_nonnull(topo);
	int figures = 0;
	for (cJSON *sec = cJSON_GetObjectItem(topo, "latency")->child; sec; sec = sec->next) {
		cJSON *keys = cJSON_IsObject(sec) ? sec->child : sec;
		for (cJSON *k = keys; k; k = cJSON_IsObject(sec) ? k->next : NULL, figures++) {
			bool listed = false;
			for (int i = 0; i < NLATENCY && !listed; i++)
				listed = cJSON_IsObject(sec)
						 ? latency_params[i].section &&
							   strcmp(latency_params[i].section, sec->string) == 0 &&
							   strcmp(latency_params[i].key, k->string) == 0
						 : !latency_params[i].section &&
							   strcmp(latency_params[i].key, sec->string) == 0;
			ck_assert_msg(listed, "latency.%s%s%s is not tested", sec->string,
				      cJSON_IsObject(sec) ? "." : "", cJSON_IsObject(sec) ? k->string : "");
		}
	}
	/* ... and more: the bandwidth, shown per node, and the DRAM hops,
	 * shown when given (the table's entries are checked by the runs,
	 * which refuse an unknown figure) */
	ck_assert_int_ge(figures, NLATENCY - 2);
	cJSON_Delete(topo);
	free(args);
	free(out);

	cJSON *base_report;
	cJSON *base = probe_run("{}", &base_report);
	char dead[1024] = "";
	size_t used = 0;
	for (int i = 0; i < NLATENCY; i++) {
		char *latency = NULL;
		if (latency_params[i].section)
			ck_assert_int_ge(asprintf(&latency, "{\"%s\": {\"%s\": %s}}", latency_params[i].section,
						  latency_params[i].key, latency_params[i].value), 0);
		else
			ck_assert_int_ge(asprintf(&latency, "{\"%s\": %s}", latency_params[i].key,
						  latency_params[i].value), 0);
		cJSON *report;
		cJSON *m = probe_run(latency, &report);
		if (cJSON_Compare(base, m, true))
			used = str_list_add(dead, sizeof(dead), used, latency);
		cJSON_Delete(report);
		free(latency);
	}
	ck_assert_msg(used == 0, "the report does not move with: %s", dead);
	cJSON_Delete(base_report);
}
END_TEST

/* ---- compare ---- */

/* A table: a row per metric, a value column per policy, and after every
 * column but the first its change relative to the first. */
START_TEST(compare_table_has_a_row_per_metric_and_a_change_column)
{
	char *out, *err;
	ck_assert_int_eq(test_schedlab("compare -p steal,steal:runnext=0 -t numa1 -w pingpong-hog "
				  "--procs 4", &out, &err), 0);
	ck_assert_str_eq(err, "");
	ck_assert_msg(strstr(out, "sim compare: topology numa1, workload pingpong-hog, 4 Ps, seed 1\n"
				  "change: of the mean, relative to steal; of a share, in percentage "
				  "points\n\n"), "%s", out);
	/* one seed: no intervals */
	ck_assert_ptr_null(strstr(out, "\xc2\xb1"));
	/* the registry's rows but the requests' (pingpong-hog answers none) */
	const char *rows[64];
	bool shares[64];
	int nrows = 0;
	for (int i = 0; i < metric_count; i++)
		if (!metric_table[i].only_if_any) {
			shares[nrows] = metric_table[i].unit == MU_FRAC;
			rows[nrows++] = metric_table[i].label;
		}
	ck_assert_int_ge(nrows, 30);
	/* the header, then the rows in this order, nothing else */
	char *line = strstr(out, "\n\n") + 2;
	char *end = strchr(line, '\n');
	*end = '\0';
	char a[64], b[64], c[64], extra[64];
	ck_assert_int_eq(sscanf(line, "%63s %63s %63s %63s", a, b, c, extra), 3);
	ck_assert_str_eq(a, "steal");
	ck_assert_str_eq(b, "steal:runnext=0");
	ck_assert_str_eq(c, "change");
	size_t width = strlen(line);
	line = end + 1;
	for (int i = 0; i < nrows; i++, line = end + 1) {
		end = strchr(line, '\n');
		ck_assert_msg(end, "no row %s", rows[i]);
		*end = '\0';
		ck_assert_msg(strncmp(line, rows[i], strlen(rows[i])) == 0 &&
			      line[strlen(rows[i])] == ' ', "row %d is '%s', not %s", i, line, rows[i]);
		ck_assert_msg(strlen(line) == width, "row '%s' is not aligned with the header", line);
		/* the last field: a change in percent, for a share (a % value)
		 * in percentage points, or - where nothing was measured */
		const char *last = strrchr(line, ' ') + 1;
		double pct;
		char sign, pc;
		bool dash = strcmp(last, "-") == 0;
		bool share = shares[i];
		if (share && !dash) {
			ck_assert_str_eq(last, "pp");
			while (last > line && last[-1] == ' ')
				last--;
			while (last > line && last[-1] != ' ')
				last--;
			ck_assert_msg(sscanf(last, "%c%lf pp", &sign, &pct) == 2 &&
				      (sign == '+' || sign == '-'), "row '%s' has no pp change", line);
		} else {
			ck_assert_msg(dash || (sscanf(last, "%c%lf%c", &sign, &pct, &pc) == 3 &&
					       (sign == '+' || sign == '-') && pc == '%'),
				      "row '%s' has no change", line);
		}
		/* nothing in pingpong-hog touches memory */
		ck_assert(dash == (strcmp(rows[i], "local memory") == 0 ||
				   strcmp(rows[i], "cache hits") == 0));
	}
	ck_assert_str_eq(line, "");
	/* no requests in pingpong-hog: no request rows */
	ck_assert_ptr_null(strstr(out, "request"));
	free(out);
	free(err);
}
END_TEST

/* A workload with requests and memory has their rows, with values. */
START_TEST(compare_table_has_request_and_memory_rows_when_measured)
{
	char *out;
	ck_assert_int_eq(test_schedlab("compare -p steal,steal:runnext=0 -t numa2 -w rpc-server "
				  "--procs 4", &out, NULL), 0);
	static const char *const rows[] = { "\nrequests ", "\nrequest latency p50 ",
					    "\nrequest latency p99 ", "\nlocal memory ",
					    "\ncache hits " };
	for (int i = 0; i < 5; i++) {
		const char *at = strstr(out, rows[i]);
		ck_assert_msg(at, "no row%s in:\n%s", rows[i], out);
		const char *eol = strchr(at + 1, '\n');
		ck_assert_msg(!memmem(at, (size_t)(eol - at), " - ", 3), "%.*s", (int)(eol - at), at);
	}
	free(out);
}
END_TEST

/* A column's own knobs: the runs differ, and each report says its knobs. */
START_TEST(compare_column_knobs_make_the_columns_differ)
{
	char *out;
	ck_assert_int_eq(test_schedlab("compare -p steal,steal:runnext=0:steal_tries=2 -t numa1 "
				  "-w pingpong-hog --procs 4 --set steal_tries=3 --json -", &out, NULL),
			 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	cJSON *runs = cJSON_GetObjectItem(o, "runs");
	ck_assert_int_eq(cJSON_GetArraySize(runs), 2);
	cJSON *k0 = cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 0), "knobs");
	cJSON *k1 = cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 1), "knobs");
	ck_assert_int_eq(cJSON_GetObjectItem(k0, "runnext")->valueint, 1);
	ck_assert_int_eq(cJSON_GetObjectItem(k1, "runnext")->valueint, 0);
	/* --set reaches every column; a column's own value wins */
	ck_assert_int_eq(cJSON_GetObjectItem(k0, "steal_tries")->valueint, 3);
	ck_assert_int_eq(cJSON_GetObjectItem(k1, "steal_tries")->valueint, 2);
	cJSON *m0 = cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 0), "metrics");
	cJSON *m1 = cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 1), "metrics");
	ck_assert(!cJSON_Compare(m0, m1, true));
	/* a column's name says the --set knobs it took, unless its own
	 * overrode them */
	cJSON *pol = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "compare"), "policies");
	ck_assert_int_eq(cJSON_GetArraySize(pol), 2);
	ck_assert_str_eq(cJSON_GetArrayItem(pol, 0)->valuestring, "steal:steal_tries=3");
	ck_assert_str_eq(cJSON_GetArrayItem(pol, 1)->valuestring, "steal:runnext=0:steal_tries=2");
	cJSON *stolen = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "summary"),
					    "steals.goroutines_stolen");
	ck_assert(cJSON_GetObjectItem(cJSON_GetObjectItem(stolen, "steal:steal_tries=3"), "mean")->valuedouble !=
		  cJSON_GetObjectItem(cJSON_GetObjectItem(stolen, "steal:runnext=0:steal_tries=2"),
				      "mean")->valuedouble);
	cJSON_Delete(o);
	free(out);
}
END_TEST

/* --seeds 3: the seeds S..S+2 in every column, a mean and an interval. */
START_TEST(compare_seeds_give_means_and_intervals)
{
	char *out, *js;
	const char *args = "compare -p steal,steal:runnext=0 -t numa1 -w pingpong-hog --procs 4 "
			   "--seeds 3 --seed 2";
	ck_assert_int_eq(test_schedlab(args, &out, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "4 Ps, seeds 2..4\n"));
	ck_assert_ptr_nonnull(strstr(out, "the mean over 3 seeds \xc2\xb1" "95% confidence interval"));
	const char *row = strstr(out, "\nmakespan ");
	ck_assert_ptr_nonnull(row);
	const char *pm = strstr(row, " ms \xc2\xb1");
	ck_assert_msg(pm && pm < strchr(row + 1, '\n'), "%s", out);
	char *jargs = NULL;
	ck_assert_int_ge(asprintf(&jargs, "%s --json -", args), 0);
	ck_assert_int_eq(test_schedlab(jargs, &js, NULL), 0);
	cJSON *o = cJSON_Parse(js);
	ck_assert_ptr_nonnull(o);
	cJSON *cmp = cJSON_GetObjectItem(o, "compare");
	ck_assert_str_eq(cJSON_GetObjectItem(cmp, "topology")->valuestring, "numa1");
	ck_assert_str_eq(cJSON_GetObjectItem(cmp, "workload")->valuestring, "pingpong-hog");
	ck_assert_int_eq(cJSON_GetObjectItem(cmp, "procs")->valueint, 4);
	cJSON *seeds = cJSON_GetObjectItem(cmp, "seeds");
	ck_assert_int_eq(cJSON_GetArraySize(seeds), 3);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(cJSON_GetArrayItem(seeds, i)->valueint, 2 + i);
	/* column by column, seed by seed */
	cJSON *runs = cJSON_GetObjectItem(o, "runs");
	ck_assert_int_eq(cJSON_GetArraySize(runs), 6);
	for (int i = 0; i < 6; i++) {
		cJSON *r = cJSON_GetArrayItem(runs, i);
		ck_assert_int_eq(cJSON_GetObjectItem(r, "seed")->valueint, 2 + i % 3);
		ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "knobs"), "runnext")->valueint,
				 i < 3);
	}
	/* migrations depend on the seed: a positive interval over 3 runs */
	cJSON *sum = cJSON_GetObjectItem(o, "summary");
	cJSON *mig = cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "locality.migrations_core"), "steal");
	ck_assert_int_eq(cJSON_GetObjectItem(mig, "n")->valueint, 3);
	ck_assert_double_gt(cJSON_GetObjectItem(mig, "ci95")->valuedouble, 0);
	double mean = 0;
	for (int i = 0; i < 3; i++)
		mean += cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
			cJSON_GetArrayItem(runs, i), "metrics"), "locality"), "migrations_core")
				->valuedouble / 3;
	ck_assert_double_eq_tol(cJSON_GetObjectItem(mig, "mean")->valuedouble, mean, 1e-6);
	/* never measured: absent, not zero */
	ck_assert_ptr_null(cJSON_GetObjectItem(sum, "locality.mem_local_frac"));
	ck_assert_ptr_null(cJSON_GetObjectItem(sum, "request_latency_ns.p50"));
	cJSON_Delete(o);
	free(jargs);
	free(js);
	free(out);
}
END_TEST

/* Each run of compare's JSON is the report `schedlab run --json` writes. */
START_TEST(compare_runs_are_run_reports)
{
	char *cmp, *run;
	ck_assert_int_eq(test_schedlab("compare -p steal,steal:runnext=0 -t numa1 -w pingpong-hog "
				  "--procs 4 --seeds 2 --seed 5 --json -", &cmp, NULL), 0);
	ck_assert_int_eq(test_schedlab("run -p steal --set runnext=0 -t numa1 -w pingpong-hog "
				  "--procs 4 --seed 6 --json -", &run, NULL), 0);
	cJSON *o = cJSON_Parse(cmp);
	ck_assert_ptr_nonnull(o);
	/* column 2, seed 6 */
	char *text = cJSON_Print(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "runs"), 3));
	size_t n = strlen(text);
	ck_assert_int_eq(strlen(run), n + 1);
	ck_assert(strncmp(run, text, n) == 0 && run[n] == '\n');
	free(text);
	cJSON_Delete(o);
	free(cmp);
	free(run);
}
END_TEST

/* --csv: a header, then a row per metric and column with a value. */
START_TEST(compare_csv_has_a_row_per_metric_and_column)
{
	char *out, *err;
	ck_assert_int_eq(test_schedlab("compare -p steal,steal:runnext=0 -t numa1 -w pingpong-hog "
				  "--procs 4 --seeds 2 --csv -", &out, &err), 0);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_null(strstr(out, "sim compare"));
	const char *header = "metric,column,mean,ci95,n,rel_change,pp_change,unit,p\n";
	ck_assert_msg(strncmp(out, header, strlen(header)) == 0, "%s", out);
	int rows = 0;
	bool makespan[2] = { false, false };
	for (char *line = out + strlen(header), *end; *line; line = end + 1, rows++) {
		end = strchr(line, '\n');
		ck_assert_ptr_nonnull(end);
		*end = '\0';
		char *f[9];
		int nf = 0;
		for (char *p = line; nf < 9; nf++) {
			f[nf] = p;
			p = strchr(p, ',');
			if (!p) {
				nf++;
				break;
			}
			*p++ = '\0';
		}
		ck_assert_msg(nf == 9, "%d fields in %s", nf, line);
		bool first = strcmp(f[1], "steal") == 0;
		ck_assert(first || strcmp(f[1], "steal:runnext=0") == 0);
		ck_assert_str_eq(f[4], "2");
		ck_assert_msg(*f[2] && *f[3], "%s has no mean or ci95", f[0]);
		/* the first column is the reference; a share's change is in pp */
		bool share = strcmp(f[7], "fraction") == 0;
		ck_assert_msg(first == (*f[5] == '\0' && *f[6] == '\0'), "%s", f[0]);
		ck_assert_msg(first || share == (*f[5] == '\0' && *f[6] != '\0'), "%s", f[0]);
		/* the paired test's p: beside every change */
		ck_assert_msg(first == (*f[8] == '\0'), "%s: p '%s'", f[0], f[8]);
		if (strcmp(f[0], "makespan_ns") == 0) {
			makespan[!first] = true;
			ck_assert_str_eq(f[7], "ns");
		}
		if (strcmp(f[0], "throughput_per_s") == 0)
			ck_assert_str_eq(f[7], "goroutines/s");
		if (strncmp(f[0], "cpu.on_cpu.", 11) == 0)
			ck_assert(share);
		ck_assert_ptr_null(strstr(f[0], "mem_local"));
	}
	ck_assert(makespan[0] && makespan[1]);
	/* 32 metrics measured (no requests, no memory), 2 columns */
	ck_assert_int_eq(rows, 64);
	free(out);
	free(err);
}
END_TEST

/* The change column is benchstat's "vs base": a paired signed-rank test
 * over the seeds, "~" and the p where the change is not significant; the
 * p in JSON is that of the per-seed changes in the runs' own metrics, and
 * a seed count too small for any p to reach 0.05 is said. */
START_TEST(compare_changes_are_tested_seed_by_seed)
{
	char *out, *err;
	const char *args = "compare -p steal,numa -t numa2 -w pipeline --procs 4 --seeds 6";
	ck_assert_int_eq(test_schedlab(args, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "p: Wilcoxon's signed-rank test of the per-seed changes"));
	ck_assert_ptr_null(strstr(out, "no change can be significant"));
	/* both verdicts appear */
	ck_assert_msg(strstr(out, "  ~ (p=") && strstr(out, "% (p=0.0"), "%s", out);
	free(out);
	free(err);
	char *json = NULL;
	ck_assert_int_ge(asprintf(&json, "%s --json -", args), 0);
	ck_assert_int_eq(test_schedlab(json, &out, &err), 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	const cJSON *runs = cJSON_GetObjectItem(o, "runs");
	ck_assert_int_eq(cJSON_GetArraySize(runs), 12);
	double d[6];
	for (int k = 0; k < 6; k++) {
		double a = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, k), "metrics"),
					       "makespan_ns")->valuedouble;
		double b = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 6 + k),
								   "metrics"), "makespan_ns")->valuedouble;
		d[k] = (b - a) / a;
	}
	const cJSON *ms = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "summary"), "makespan_ns");
	const cJSON *numa = cJSON_GetObjectItem(ms, "numa");
	ck_assert_double_eq_tol(cJSON_GetObjectItem(numa, "p")->valuedouble,
				rs_signrank_two(d, 6, NULL), 1e-12);
	ck_assert(cJSON_IsBool(cJSON_GetObjectItem(numa, "significant")));
	ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetObjectItem(ms, "steal"), "p"));
	cJSON_Delete(o);
	free(out);
	free(err);
	free(json);
	ck_assert_int_eq(test_schedlab("compare -p steal,numa -t numa2 -w pipeline --procs 4 --seeds 3",
				       &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "with 3 seeds no change can be significant at 0.05 (the "
				     "smallest p is 0.250): --seeds 6 or more"));
	ck_assert_ptr_null(strstr(out, "% (p="));
	free(out);
	free(err);
}
END_TEST

/* run --progress always: the simulated clock against its limit, a line
 * every 2 s of real time outside a terminal.  The run is longer than the
 * 3 s it is given, so the watchdog's 2 s report comes before its cut. */
START_TEST(run_progress_shows_the_simulated_clock)
{
	char *out, *err;
	ck_assert_int_eq(test_schedlab("run -p global -t numa4 -w skynet --max-wall-time 3s "
				       "--progress always", &out, &err), 4);
	const char *line = strstr(err, "schedlab run: simulated ");
	ck_assert_msg(line && strstr(line, " s of the 3600 s limit (") && strstr(line, "elapsed\n"),
		      "%s", err);
	ck_assert_ptr_null(strchr(err, '\r'));
	free(out);
	free(err);
}
END_TEST

/* Overload is said: rpc-server's open loop at 4 Ps of global falls behind
 * for good (its last answer comes long after the last connection), at 64
 * Ps of steal it does not; a closed loop (vtocc) offers no such load. */
START_TEST(run_says_when_the_server_fell_behind)
{
	static const struct {
		const char *args;
		int overloaded;   /* -1: no request_load */
	} cases[] = {
		{ "-p global -t numa2 --procs 4 -w rpc-server", 1 },
		{ "-p steal -t numa4 -w rpc-server", 0 },
		{ "-p steal -t numa2 --procs 4 -w vtocc", -1 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *out, *err;
		ck_assert_int_eq(test_schedlabf(&out, &err, "run %s --json -", cases[k].args), 0);
		cJSON *o = cJSON_Parse(out);
		ck_assert_ptr_nonnull(o);
		const cJSON *l = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metrics"), "request_load");
		if (cases[k].overloaded < 0) {
			ck_assert_ptr_null(l);
		} else {
			ck_assert_ptr_nonnull(l);
			ck_assert_int_eq(cJSON_IsTrue(cJSON_GetObjectItem(l, "overloaded")),
					 cases[k].overloaded);
			ck_assert_int_eq((int)cJSON_GetObjectItem(l, "connections")->valuedouble, 12800);
			double span = cJSON_GetObjectItem(l, "arrival_span_ns")->valuedouble;
			double drain = cJSON_GetObjectItem(l, "drain_ns")->valuedouble;
			ck_assert(span > 40e6 && span < 60e6);
			ck_assert(cases[k].overloaded ? drain > span : drain < span / 4);
		}
		cJSON_Delete(o);
		free(out);
		free(err);
		ck_assert_int_eq(test_schedlabf(&out, &err, "run %s", cases[k].args), 0);
		ck_assert_int_eq(strstr(out, "OVERLOADED, the server fell behind for good") != NULL,
				 cases[k].overloaded == 1);
		ck_assert_int_eq(strstr(out, "\nload ") != NULL, cases[k].overloaded >= 0);
		free(out);
		free(err);
	}
}
END_TEST

START_TEST(compare_is_deterministic)
{
	char *a, *b;
	const char *args = "compare -p steal:runnext=0,steal -t numa2 -w pingpong --procs 4 --seeds 2";
	ck_assert_int_eq(test_schedlab(args, &a, NULL), 0);
	ck_assert_int_eq(test_schedlab(args, &b, NULL), 0);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
}
END_TEST

/* A run that deadlocks or panics ends compare as it ends run, naming the
 * column and seed. */
START_TEST(compare_stops_at_a_run_that_deadlocks_or_panics)
{
	static const struct {
		const char *json, *message;
		int status;
	} bad[] = {
		{ "{\"name\": \"stuck\", \"channels\": {\"never\": 0},\n"
		  " \"programs\": {\"main\": [{\"recv\": \"never\"}]}}\n",
		  "fatal error: all goroutines are asleep - deadlock!", 1 },
		{ "{\"name\": \"t\", \"channels\": {\"c\": 1}, \"programs\": {\"main\": "
		  "[{\"close\": \"c\"}, {\"close\": \"c\"}]}}\n",
		  "panic: close of closed channel", 2 },
	};
	for (int i = 0; i < 2; i++) {
		char path[] = "/tmp/schedlab-cmp-XXXXXX.json";
		int fd = mkstemps(path, 5);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, bad[i].json, strlen(bad[i].json)),
				 (ssize_t)strlen(bad[i].json));
		close(fd);
		char *args = NULL, *out, *err;
		ck_assert_int_ge(asprintf(&args, "compare -p steal,steal:runnext=0 -t numa1 --procs 2 "
					  "--seed 7 -w %s", path), 0);
		ck_assert_int_eq(test_schedlab(args, &out, &err), bad[i].status);
		ck_assert_msg(strstr(err, "schedlab compare: column 1 (steal), seed 7:\n"), "%s", err);
		ck_assert_msg(strstr(err, bad[i].message), "%s", err);
		/* what run prints for it */
		ck_assert_msg(strstr(out, "sim run: policy steal, topology numa1, workload "), "%s", out);
		ck_assert_ptr_null(strstr(out, "sim compare"));
		unlink(path);
		free(args);
		free(out);
		free(err);
	}
}
END_TEST

START_TEST(compare_help)
{
	char *out;
	ck_assert_int_eq(test_schedlab("--help", &out, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "schedlab compare -p P1,P2,..."));
	free(out);
	ck_assert_int_eq(test_schedlab("compare --help", &out, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: schedlab compare -p P1,P2,..."));
	ck_assert_ptr_nonnull(strstr(out, "Simulation only"));
	free(out);
}
END_TEST

/* ---- Limits [docs/runtime.md, "Limits"] ---- */

/* text in a new temporary .json file; the caller unlinks and frees. */
static char *temp_json(const char *text)
{
	char *path = strdup("/tmp/schedlab-lim-XXXXXX.json");
	int fd = mkstemps(path, 5);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* One G computing for 11 days, far past any limit. */
#define LONG_COMPUTE "{\"name\": \"long\", \"programs\": {\"main\": [{\"compute\": \"1000000s\"}]}}"

static cJSON *metrics_of(cJSON *report)
{
	cJSON *m = cJSON_GetObjectItem(report, "metrics");
	ck_assert_ptr_nonnull(m);
	return m;
}

static double num(cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItem(o, key);
	ck_assert_msg(cJSON_IsNumber(v), "no number %s", key);
	return v->valuedouble;
}

/* The makespan of workload (JSON text) on the probe machine with latency,
 * one P, so that everything it prices is on one M's clock in a row. */
static double probe_makespan(const char *workload, const char *latency)
{
	char machine[64], *args = NULL, *out, *err;
	char *w = temp_json(workload);
	probe_machine(latency, machine);
	ck_assert_int_ge(asprintf(&args, "run -p steal -t %s -w %s --procs 1 --json -", machine, w), 0);
	int rc = test_schedlab(args, &out, &err);
	ck_assert_msg(rc == 0, "%s: %s", latency, err);
	cJSON *report = cJSON_Parse(out);
	ck_assert_ptr_nonnull(report);
	double ns = num(metrics_of(report), "makespan_ns");
	cJSON_Delete(report);
	unlink(machine);
	unlink(w);
	free(w);
	free(args);
	free(out);
	free(err);
	return ns;
}

/* Each figure of the model's OS and runtime costs is charged where it
 * says, as many times as the thing it prices happens: a G's system call
 * (natively nanosleep) ends timer_slack late; 100 Gs made, run and ended
 * cost 100 g_create (main is made by no M) and 101 g_exit (main's end
 * too); a new stack is paid only when no stack is free, so 100 Gs that
 * run one after the other on one P take 2 (main's and the one they pass
 * on), and 100 that all wait at a gate take 101.  Makespans on one P,
 * where nothing overlaps the M's work. */
START_TEST(latency_figures_price_what_they_name)
{
	const char *sys = "{\"name\": \"sys\", \"programs\": {\"main\": [{\"syscall\": \"30us\"}]}}";
	double slack0 = probe_makespan(sys, "{\"os_ns\": {\"timer_slack\": 0}}");
	double slack = probe_makespan(sys, "{\"os_ns\": {\"timer_slack\": 200000}}");
	ck_assert_double_eq_tol(slack - slack0, 200000, 2);

	const char *in_turn =
		"{\"name\": \"lives\", \"waitgroups\": [\"wg\"], \"programs\": {"
		"\"main\": [{\"wg_add\": {\"wg\": \"wg\", \"n\": 100}},"
		" {\"spawn\": {\"program\": \"child\", \"count\": 100}}, {\"wg_wait\": \"wg\"}],"
		"\"child\": [{\"compute\": \"1us\"}, {\"wg_done\": \"wg\"}]}}";
	const char *at_gate =
		"{\"name\": \"gate\", \"waitgroups\": [\"wg\", \"out\"], \"channels\": {\"gate\": 0},"
		" \"programs\": {"
		"\"main\": [{\"wg_add\": {\"wg\": \"wg\", \"n\": 100}}, {\"wg_add\": {\"wg\": \"out\", \"n\": 100}},"
		" {\"spawn\": {\"program\": \"child\", \"count\": 100}}, {\"wg_wait\": \"wg\"},"
		" {\"close\": \"gate\"}, {\"wg_wait\": \"out\"}],"
		"\"child\": [{\"compute\": \"1us\"}, {\"wg_done\": \"wg\"}, {\"recv\": \"gate\"},"
		" {\"wg_done\": \"out\"}]}}";
	const char *zero = "{\"runtime_ns\": {\"g_create\": 0, \"g_exit\": 0, \"stack_acquire\": 0}}";
	static const struct { const char *key; int in_turn, at_gate; } figures[] = {
		{ "g_create", 100, 100 }, { "g_exit", 101, 101 }, { "stack_acquire", 2, 101 },
	};
	for (int w = 0; w < 2; w++) {
		const char *spawn = w ? at_gate : in_turn;
		double base = probe_makespan(spawn, zero);
		for (int i = 0; i < 3; i++) {
			char lat[160];
			snprintf(lat, sizeof(lat), "{\"runtime_ns\": {\"g_create\": %d, \"g_exit\": %d, "
				 "\"stack_acquire\": %d}}", 5000 * (i == 0), 5000 * (i == 1),
				 5000 * (i == 2));
			double d = probe_makespan(spawn, lat) - base;
			int times = w ? figures[i].at_gate : figures[i].in_turn;
			/* the rest of the run may shift by a line transfer or two */
			ck_assert_msg(fabs(d - times * 5000.0) < 0.01 * times * 5000.0 + 1000,
				      "%s (%s): the makespan moved by %.0f ns, not %d x 5000",
				      figures[i].key, w ? "at a gate" : "in turn", d, times);
		}
	}

	/* a stream of hits comes at the level's cache_bw_gbs: 16 KiB written,
	 * then read again from L1, 256 lines at 10 ns (6.4 GB/s) against 1 ns
	 * (64 GB/s; L1's latency over mlp is 0.07 ns) after the first */
	const char *rehit =
		"{\"name\": \"rehit\", \"regions\": {\"r\": {\"size\": \"1MiB\"}}, \"programs\": {"
		"\"main\": [{\"touch\": {\"region\": \"r\", \"bytes\": \"16KiB\", \"write\": true}},"
		" {\"touch\": {\"region\": \"r\", \"bytes\": \"16KiB\"}}]}}";
	double slow = probe_makespan(rehit, "{\"cache_bw_gbs\": {\"L1\": 6.4}}");
	double fast = probe_makespan(rehit, "{\"cache_bw_gbs\": {\"L1\": 64}}");
	ck_assert_double_eq_tol(slow - fast, 255 * 9.0, 1);

	/* a write that misses moves its lines twice through the controller
	 * (read for ownership, written back): 1 MiB of fresh memory at 1 GB/s
	 * takes 1 ms more written than read */
	const char *fresh =
		"{\"name\": \"fresh\", \"regions\": {\"r\": {\"size\": \"1MiB\"}}, \"programs\": {"
		"\"main\": [{\"touch\": {\"region\": \"r\", \"bytes\": \"1MiB\", \"write\": %s}}]}}";
	char wl[512];
	snprintf(wl, sizeof(wl), fresh, "true");
	double written = probe_makespan(wl, "{\"bandwidth_gbs\": 1}");
	snprintf(wl, sizeof(wl), fresh, "false");
	double read = probe_makespan(wl, "{\"bandwidth_gbs\": 1}");
	ck_assert_double_eq_tol(written - read, 1048576.0, 1000);

	/* the wake-up by relation: each relation's figure alone moves the
	 * probe run, whose Ms wake each other across every relation */
	cJSON *base_report, *base_m = probe_run("{}", &base_report);
	static const char *const rel[] = { "\"core\": 20000", "\"group\": 20000",
					   "\"package\": 20000", "\"hops\": [20000]" };
	for (int i = 0; i < 4; i++) {
		char lat[96];
		snprintf(lat, sizeof(lat), "{\"os_ns\": {\"wakeup\": {%s}}}", rel[i]);
		cJSON *report, *m = probe_run(lat, &report);
		ck_assert_msg(!cJSON_Compare(base_m, m, true), "the report does not move with %s", lat);
		cJSON_Delete(report);
	}
	cJSON_Delete(base_report);
}
END_TEST

/* Cut at --max-sim-time: exit 4, a message naming the limit and its
 * option, and the report of the run up to the cut -- its makespan the
 * limit, its accounts closed there (the one busy P's time is user time). */
START_TEST(sim_time_limit_cuts_the_run_and_reports_it)
{
	char *path = temp_json(LONG_COMPUTE), *args = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 --procs 4 -w %s --max-sim-time 2s "
				  "--json -", path), 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 4);
	ck_assert_msg(strstr(err, "the run reached its simulated-time limit, 2s, and was cut there"),
		      "%s", err);
	ck_assert_msg(strstr(err, "--max-sim-time"), "%s", err);
	cJSON *o = cJSON_Parse(out);
	ck_assert_msg(o, "no report: %s", out);
	cJSON *m = metrics_of(o);
	ck_assert_str_eq(cJSON_GetObjectItem(m, "ended")->valuestring, "sim_time_limit");
	ck_assert_double_eq(num(m, "makespan_ns"), 2e9);
	ck_assert_double_eq(num(m, "completed"), 0);
	ck_assert(!cJSON_IsTrue(cJSON_GetObjectItem(m, "deadlock")));
	/* one G computes on one P of four the whole time: its M was on a CPU
	 * for all of the 2 s (the computation in flight at the cut included),
	 * nearly all of it user time, one PU busy; each set adds up to 1 */
	cJSON *cpu = cJSON_GetObjectItem(m, "cpu");
	double on_ns = num(cpu, "on_cpu_ns"), busy = num(cpu, "busy_pus");
	ck_assert_msg(on_ns > 0.999 * 2e9 && on_ns < 1.001 * 2e9, "on cpu %g ns", on_ns);
	ck_assert_msg(busy > 0.999 && busy < 1.001, "busy PUs %g", busy);
	cJSON *on = cJSON_GetObjectItem(cpu, "on_cpu");
	double user = num(on, "user");
	ck_assert_msg(user > 0.999 && user <= 1, "user %g", user);
	for (const char *set = "on_cpu"; set; set = strcmp(set, "on_cpu") ? NULL : "off_cpu") {
		double sum = 0;
		for (cJSON *f = cJSON_GetObjectItem(cpu, set)->child; f; f = f->next)
			sum += f->valuedouble;
		ck_assert_msg(fabs(sum - 1) < 1e-6, "%s adds up to %g", set, sum);
	}
	cJSON_Delete(o);
	free(out);
	free(err);

	/* the text summary says it too */
	free(args);
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 -w %s --max-sim-time 5ms", path), 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 4);
	ck_assert_msg(strstr(out, "makespan        5.000 ms, CUT at the simulated-time limit"), "%s",
		      out);
	unlink(path);
	free(path);
	free(args);
	free(out);
	free(err);
}
END_TEST

/* Cut at --max-wall-time: a run that would take minutes of real time is
 * cut after one second, somewhere before its simulated-time limit. */
START_TEST(wall_time_limit_cuts_the_run)
{
	char *path = temp_json(LONG_COMPUTE), *args = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa4 -w %s --max-sim-time 100h "
				  "--max-wall-time 1s --json -", path), 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 4);
	ck_assert_msg(strstr(err, "the run reached its wall-clock limit, 1s, and was cut at "), "%s",
		      err);
	ck_assert_msg(strstr(err, "--max-wall-time"), "%s", err);
	cJSON *o = cJSON_Parse(out);
	ck_assert_msg(o, "no report: %s", out);
	cJSON *m = metrics_of(o);
	ck_assert_str_eq(cJSON_GetObjectItem(m, "ended")->valuestring, "wall_time_limit");
	ck_assert_double_lt(num(m, "makespan_ns"), 100 * 3600e9);
	ck_assert_double_eq(num(m, "completed"), 0);
	cJSON_Delete(o);
	unlink(path);
	free(path);
	free(args);
	free(out);
	free(err);
}
END_TEST

/* now + a duration saturates instead of wrapping past 2^63: a sleep for
 * an expression's near-2^63 ns, or the eighth of eight 2^61 ns sleeps,
 * still has not ended when the run is cut (wrapped, they took no time
 * and the G completed at once). */
START_TEST(saturated_sleeps_wait_until_the_cut)
{
	static const char *const wls[] = {
		"{\"name\": \"sat\", \"programs\": {\"main\": {\"vars\": {\"t\": \"int\"}, \"body\": [\n"
		" {\"set\": {\"t\": {\"*\": [4611686018427387904, 2]}}},\n"
		" {\"sleep\": {\"-\": [\"t\", 1]}}, {\"sleep\": \"1ms\"}]}}}",
		"{\"name\": \"sat\", \"programs\": {\"main\": [\n"
		" {\"loop\": {\"count\": 8, \"body\": [{\"sleep\": \"2305843009213693951ns\"}]}},\n"
		" {\"sleep\": \"1ms\"}]}}",
		"{\"name\": \"sat\", \"programs\": {\"main\": {\"vars\": {\"t\": \"int\"}, \"body\": [\n"
		" {\"set\": {\"t\": {\"*\": [4611686018427387904, 2]}}},\n"
		" {\"compute\": {\"-\": [\"t\", 1]}}, {\"syscall\": {\"-\": [\"t\", 1]}}]}}}",
	};
	for (size_t i = 0; i < sizeof(wls) / sizeof(wls[0]); i++) {
		char *path = temp_json(wls[i]), *args = NULL, *out, *err;
		ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 -w %s --max-sim-time 1s "
					  "--json -", path), 0);
		ck_assert_msg(test_schedlab(args, &out, &err) == 4, "workload %zu: %s", i, err);
		cJSON *o = cJSON_Parse(out);
		ck_assert_msg(o, "no report: %s", out);
		cJSON *m = metrics_of(o);
		ck_assert_str_eq(cJSON_GetObjectItem(m, "ended")->valuestring, "sim_time_limit");
		ck_assert_double_eq(num(m, "completed"), 0);
		ck_assert_double_eq(num(m, "makespan_ns"), 1e9);
		cJSON_Delete(o);
		unlink(path);
		free(path);
		free(args);
		free(out);
		free(err);
	}
}
END_TEST

/* A cut run ends compare as a deadlock does (its figures are not
 * comparable), and `workload expand` writes no trace of one. */
START_TEST(compare_and_expand_stop_at_a_cut_run)
{
	char *path = temp_json(LONG_COMPUTE), *args = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&args, "compare -p steal,global -t numa1 --seed 3 -w %s "
				  "--max-sim-time 10ms", path), 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 4);
	ck_assert_msg(strstr(err, "schedlab compare: column 1 (steal), seed 3:\n"), "%s", err);
	ck_assert_msg(strstr(err, "schedlab compare: the run reached its simulated-time limit, "
				  "10ms"), "%s", err);
	ck_assert_msg(strstr(out, "CUT at the simulated-time limit"), "%s", out);
	free(args);
	free(out);
	free(err);
	ck_assert_int_ge(asprintf(&args, "workload expand %s --max-sim-time 10ms -o -", path), 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 4);
	ck_assert_msg(strstr(err, "simulated-time limit"), "%s", err);
	ck_assert_str_eq(out, "");
	unlink(path);
	free(path);
	free(args);
	free(out);
	free(err);
}
END_TEST

/* The limits leave a run that ends by itself alone: the same report,
 * byte for byte, with the default limits and with generous ones. */
START_TEST(limits_do_not_change_a_run_that_ends)
{
	char *a, *b;
	ck_assert_int_eq(test_schedlab("run -p steal -t numa1 -w pingpong --json -", &a, NULL), 0);
	ck_assert_int_eq(test_schedlab("run -p steal -t numa1 -w pingpong --json - --max-sim-time 100h "
				  "--max-wall-time 8760h --max-memory 4GiB", &b, NULL), 0);
	ck_assert_str_eq(a, b);
	ck_assert_ptr_null(strstr(a, "\"ended\""));
	free(a);
	free(b);
}
END_TEST

/* A lowered --max-memory that the workload's own regions do not fit:
 * bad input, said before the run starts. */
START_TEST(lowered_budget_refuses_the_workloads_regions)
{
	char *path = temp_json("{\"name\": \"big\", \"regions\": {\"big\": {\"size\": \"16GiB\"}},\n"
			       " \"programs\": {\"main\": [\"yield\"]}}"),
	     *args = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 -w %s --max-memory 32MiB", path), 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 2);
	ck_assert_msg(strstr(err, ": region big would take the run past its 32 MiB memory budget"),
		      "%s", err);
	ck_assert_msg(strstr(err, path), "%s", err);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
	free(args);
	/* the default budget fits it */
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 -w %s", path), 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 0);
	unlink(path);
	free(path);
	free(args);
	free(out);
	free(err);
}
END_TEST

/* `workload expand` keeps every draw: they count against the budget. */
START_TEST(expand_draws_count_against_the_budget)
{
	char *path = temp_json("{\"name\": \"draws\", \"programs\": {\"main\": [\n"
			       " {\"loop\": {\"count\": 100000000, \"body\": [\n"
			       "  {\"compute\": {\"uniform\": {\"min\": 1, \"max\": 9}}}]}}]}}"),
	     *args = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&args, "workload expand %s --procs 1 --max-memory 16MiB -o -",
				  path), 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 2);
	ck_assert_msg(strstr(err, "panic: runtime: out of memory: the trace's draw "), "%s", err);
	ck_assert_msg(strstr(err, "16 MiB memory budget"), "%s", err);
	ck_assert_msg(strstr(err, "program main, op 1: compute)"), "%s", err);
	ck_assert_str_eq(out, "");
	unlink(path);
	free(path);
	free(args);
	free(out);
	free(err);
}
END_TEST

/* ---- Calibration and provenance (topo, -t host) ---- */

/* schedlab with SCHEDLAB_CALIBRATION=cal (a path or "off"). */
static int schedlab_cal(const char *cal, const char *args, char **out, char **err)
{
	char *cmd = NULL;
	ck_assert_int_ge(asprintf(&cmd, "SCHEDLAB_CALIBRATION='%s' '%s' %s", cal,
				  test_schedlab_bin(), args), 0);
	int rc = test_run(cmd, out, err);
	free(cmd);
	return rc;
}

/* A calibration file with xml (this machine's from lstopo if NULL). */
static char *calibration_of(const char *xml_path)
{
	char *xml = NULL;
	if (xml_path)
		xml = test_read_file(xml_path);
	else
		ck_assert_int_eq(test_run("lstopo --of xml -", &xml, NULL), 0);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "hwloc_xml_inline", xml);
	cJSON_AddItemToObject(o, "latency", cJSON_Parse("{\"os_ns\": {\"wakeup\": 40000}}"));
	cJSON_AddItemToObject(o, "provenance", cJSON_Parse(
		"{\"os_ns.wakeup\": {\"kind\": \"measured\", \"p10\": 30100, \"p90\": 79000,"
		" \"samples\": 400, \"method\": \"futex ping-pong\"}}"));
	char *text = cJSON_Print(o);
	char *path = temp_json(text);
	cJSON_Delete(o);
	free(text);
	free(xml);
	return path;
}

/* A machine whose figures come from everywhere: measured, published, an
 * assumption, given, default and derived (its second hop). */
#define SOURCED_MACHINE \
	"{\"name\": \"sourced\", \"packages\": 3, \"numa_nodes\": 3, \"cores\": 6,\n" \
	" \"distances\": [[10, 20, 30], [20, 10, 20], [30, 20, 10]],\n" \
	" \"latency\": {\"c2c_ns\": {\"hops\": [120]}, \"os_ns\": {\"syscall\": 150, \"futex_wake\": 800},\n" \
	"   \"dram_ns\": {\"matrix\": [[90, 140, 190], [140, 90, 140], [190, 140, 90]]}},\n" \
	" \"provenance\": {\n" \
	"   \"os_ns.syscall\": {\"kind\": \"measured\", \"p10\": 140, \"p90\": 170, \"samples\": 5000,\n" \
	"     \"method\": \"getppid in a loop\"},\n" \
	"   \"c2c_ns.hops[0]\": {\"kind\": \"published\", \"source\": \"a vendor's manual\"},\n" \
	"   \"dram_ns.matrix\": {\"kind\": \"assumption\", \"note\": \"local + 50 ns a hop\"}},\n" \
	" \"measurements\": {\"chan_handoff_ns\": {\"median\": 410, \"p10\": 380, \"p90\": 600,\n" \
	"   \"samples\": 2000, \"method\": \"unbuffered channel\"}}}"

START_TEST(topo_shows_where_each_figure_comes_from)
{
	char *path = temp_json(SOURCED_MACHINE), *args = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&args, "topo -t %s", path), 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 0);
	ck_assert_str_eq(err, "");
	static const char *const lines[] = {
		"figures: 1 measured, 1 published, 9 assumption, 1 given, 1 derived, ",
		"  os_ns.syscall ", " 150 ns  measured    p10-p90 140-170, 5000 samples: getppid in a loop\n",
		"  c2c_ns.hops[0] ", " 120 ns  published   a vendor's manual\n",
		"  dram_ns.matrix[0][2] ", " 190 ns  assumption  local + 50 ns a hop\n",
		"  os_ns.futex_wake ", " 800 ns  given       set by the file, without provenance\n",
		"  c2c_ns.hops[1] ", " 180 ns  derived     each hop past the list adds its last step",
		"  os_ns.pause ", " 10 ns  default     estimate",
		("\nmeasurements\n  chan_handoff_ns  median 410, p10-p90 380-600, 2000 samples: "
		 "unbuffered channel\n"),
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		ck_assert_msg(strstr(out, lines[i]), "no \"%s\" in:\n%s", lines[i], out);
	/* figures the machine does not use are left out: no SMT, no L4 */
	ck_assert_ptr_null(strstr(out, "c2c_ns.core"));
	ck_assert_ptr_null(strstr(out, "cache_ns.L4"));
	ck_assert_ptr_null(strstr(out, "  dram_ns.local"));
	free(out);
	free(err);
	free(args);

	ck_assert_int_ge(asprintf(&args, "topo -t %s --json", path), 0);
	ck_assert_int_eq(test_schedlab(args, &out, NULL), 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(o, "calibration")));
	cJSON *prov = cJSON_GetObjectItem(o, "provenance");
	struct { const char *path, *kind, *field, *text; } want[] = {
		{ "os_ns.syscall", "measured", "method", "getppid in a loop" },
		{ "c2c_ns.hops[0]", "published", "source", "a vendor's manual" },
		{ "dram_ns.matrix[1][0]", "assumption", "note", "local + 50 ns a hop" },
		{ "os_ns.futex_wake", "given", NULL, NULL },
		{ "c2c_ns.hops[1]", "derived", "source", NULL },
		{ "os_ns.context_switch", "default", "source", "\"Scheduling In Go: Part II\" (~1000 ns)" },
		{ "cache_ns.L4", "default", "source", "a guess" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cJSON *f = cJSON_GetObjectItem(prov, want[i].path);
		ck_assert_msg(f, "no provenance of %s", want[i].path);
		ck_assert_str_eq(cJSON_GetObjectItem(f, "kind")->valuestring, want[i].kind);
		ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(f, "value")));
		if (want[i].field)
			ck_assert_ptr_nonnull(cJSON_GetObjectItem(f, want[i].field));
		if (want[i].text)
			ck_assert_str_eq(cJSON_GetObjectItem(f, want[i].field)->valuestring, want[i].text);
	}
	cJSON *m = cJSON_GetObjectItem(prov, "os_ns.syscall");
	ck_assert_int_eq(cJSON_GetObjectItem(m, "samples")->valueint, 5000);
	ck_assert_int_eq(cJSON_GetObjectItem(m, "p90")->valueint, 170);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(prov, "cache_ns.L4"), "applies")));
	/* every figure of the latency object has its provenance */
	cJSON *lat = cJSON_GetObjectItem(o, "latency");
	for (cJSON *sec = lat->child; sec; sec = sec->next) {
		if (!cJSON_IsObject(sec))
			continue;
		for (cJSON *k = sec->child; k; k = k->next) {
			char key[128];
			snprintf(key, sizeof(key), "%s.%s%s", sec->string, k->string,
				 cJSON_IsObject(k) ? ".core" : cJSON_IsArray(k) ? "[0]" : "");
			if (strcmp(key, "dram_ns.matrix[0]") == 0)
				snprintf(key, sizeof(key), "dram_ns.matrix[0][0]");
			ck_assert_msg(cJSON_GetObjectItem(prov, key), "no provenance of %s", key);
		}
	}
	m = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "measurements"), "chan_handoff_ns");
	ck_assert_int_eq(cJSON_GetObjectItem(m, "median")->valueint, 410);
	cJSON_Delete(o);
	unlink(path);
	free(path);
	free(out);
	free(args);
}
END_TEST

/* topo --json's latency object, given back as a machine's "latency", gives
 * the same latency object: for each bundled machine and a DRAM matrix. */
START_TEST(topo_json_latency_feeds_back_as_latency)
{
	const char *texts[] = { topo_bundled_json("numa1"), topo_bundled_json("numa2"),
				topo_bundled_json("numa4"), topo_bundled_json("numa8"),
				SOURCED_MACHINE };
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *path = temp_json(texts[i]), *args = NULL, *out;
		ck_assert_int_ge(asprintf(&args, "topo -t %s --json", path), 0);
		ck_assert_int_eq(test_schedlab(args, &out, NULL), 0);
		cJSON *first = cJSON_Parse(out);
		unlink(path);
		free(path);
		free(args);
		free(out);
		cJSON *doc = cJSON_Parse(texts[i]);
		cJSON_DeleteItemFromObject(doc, "provenance");
		cJSON_ReplaceItemInObject(doc, "latency",
					  cJSON_Duplicate(cJSON_GetObjectItem(first, "latency"), true));
		char *text = cJSON_Print(doc);
		path = temp_json(text);
		ck_assert_int_ge(asprintf(&args, "topo -t %s --json", path), 0);
		char *err;
		ck_assert_msg(test_schedlab(args, &out, &err) == 0, "%s", err);
		cJSON *again = cJSON_Parse(out);
		ck_assert_msg(cJSON_Compare(cJSON_GetObjectItem(first, "latency"),
					    cJSON_GetObjectItem(again, "latency"), true),
			      "machine %zu: the latency object changed going through a file", i);
		ck_assert_msg(cJSON_Compare(cJSON_GetObjectItem(first, "dram_latency_ns"),
					    cJSON_GetObjectItem(again, "dram_latency_ns"), true),
			      "machine %zu: DRAM latencies changed", i);
		unlink(path);
		cJSON_Delete(first);
		cJSON_Delete(again);
		cJSON_Delete(doc);
		free(text);
		free(path);
		free(args);
		free(out);
		free(err);
	}
}
END_TEST

/* -t host takes this machine's calibration, says so in the report and in
 * topo; another machine's is refused on stderr, an unreadable one is bad
 * input. */
START_TEST(host_calibration_is_used_and_named_in_the_report)
{
	char *cal = calibration_of(NULL), *out, *err;
	ck_assert_int_eq(schedlab_cal(cal, "run -p steal -t host -w cpu-hogs --json -", &out, &err),
			 0);
	ck_assert_str_eq(err, "");
	cJSON *r = cJSON_Parse(out);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(cJSON_GetObjectItem(r, "calibration")->valuestring, cal);
	ck_assert_str_eq(cJSON_GetObjectItem(r, "topology")->valuestring, "host");
	cJSON_Delete(r);
	free(out);
	free(err);

	ck_assert_int_eq(schedlab_cal(cal, "topo -t host", &out, &err), 0);
	ck_assert_msg(strstr(out, "  calibration "), "%s", out);
	ck_assert_ptr_nonnull(strstr(out, cal));
	ck_assert_msg(strstr(out, " 40000 ns  measured    p10-p90 30100-79000, 400 samples: "
			      "futex ping-pong\n"), "%s", out);
	free(out);
	free(err);

	/* off, and the bundled machines: null */
	ck_assert_int_eq(schedlab_cal("off", "run -p steal -t host -w cpu-hogs --json -", &out, NULL),
			 0);
	r = cJSON_Parse(out);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "calibration")));
	cJSON_Delete(r);
	free(out);
	ck_assert_int_eq(schedlab_cal(cal, "run -p steal -t numa1 -w cpu-hogs --json -", &out, NULL),
			 0);
	r = cJSON_Parse(out);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "calibration")));
	cJSON_Delete(r);
	free(out);
	unlink(cal);
	free(cal);

	/* another machine's calibration: not used, one line says why */
	char *xml = NULL;
	ck_assert_int_ge(asprintf(&xml, "%s/topologies/4s-dell-r910-xeon-e7-4870.xml",
				  test_shared_dir()), 0);
	cal = calibration_of(xml);
	ck_assert_int_eq(schedlab_cal(cal, "run -p steal -t host -w cpu-hogs --json -", &out, &err),
			 0);
	ck_assert_msg(strstr(err, "schedlab: calibration ") && strstr(err, cal) &&
		      strstr(err, " not used: it describes another machine (this one vs the file, "),
		      "%s", err);
	ck_assert_ptr_null(strchr(strchr(err, '\n') + 1, '\n'));  /* one line */
	r = cJSON_Parse(out);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "calibration")));
	cJSON_Delete(r);
	free(out);
	free(err);
	unlink(cal);

	/* a calibration that is not there: exit 2 naming it */
	ck_assert_int_eq(schedlab_cal(cal, "run -p steal -t host -w cpu-hogs", &out, &err), 2);
	ck_assert_msg(strstr(err, cal) && strstr(err, "SCHEDLAB_CALIBRATION=off"), "%s", err);
	free(out);
	free(err);
	free(cal);
	free(xml);
}
END_TEST

/* `topo --source` prints what -t read; that text, saved to a file, loads
 * as the same machine: `topo --json` of both agrees but for the keys that
 * name where it came from. */
static char *model_of(const char *cal, const char *spec)
{
	char *args = NULL, *out = NULL, *err = NULL;
	ck_assert_int_ge(asprintf(&args, "topo -t '%s' --json", spec), 0);
	ck_assert_msg(schedlab_cal(cal, args, &out, &err) == 0, "%s: %s", args, err);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	static const char *const where[] = { "name", "source", "calibration" };
	for (size_t i = 0; i < sizeof(where) / sizeof(*where); i++)
		cJSON_DeleteItemFromObjectCaseSensitive(o, where[i]);
	char *text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	free(args);
	free(out);
	free(err);
	return text;
}

static void source_round_trip(const char *cal, const char *spec, const char *starts)
{
	char *args = NULL, *out = NULL, *err = NULL;
	ck_assert_int_ge(asprintf(&args, "topo -t '%s' --source", spec), 0);
	ck_assert_msg(schedlab_cal(cal, args, &out, &err) == 0, "%s: %s", args, err);
	ck_assert_msg(strncmp(out + strspn(out, " \t\r\n"), starts, strlen(starts)) == 0,
		      "%s: %.60s", spec, out);
	char *copy = temp_json(out);
	char *want = model_of(cal, spec), *got = model_of(cal, copy);
	ck_assert_msg(strcmp(want, got) == 0, "-t %s and its --source differ:\n%s\n%s", spec, want,
		      got);
	unlink(copy);
	free(copy);
	free(want);
	free(got);
	free(args);
	free(out);
	free(err);
}

START_TEST(topo_source_loads_as_the_same_machine)
{
	source_round_trip("off", "numa4", "{");
	source_round_trip("off", "e5-2660v4", "{");
	char *xml = NULL;
	ck_assert_int_ge(asprintf(&xml, "%s/topologies/2s-corona-epyc-7401.xml", test_shared_dir()),
			 0);
	source_round_trip("off", xml, "<");
	source_round_trip("off", "host", "<");    /* hwloc's XML of this machine */
	char *cal = calibration_of(NULL);
	source_round_trip(cal, "host", "{");      /* the calibration, its figures with it */
	unlink(cal);
	free(cal);
	free(xml);

	char *err = NULL;
	ck_assert_int_eq(test_schedlab("topo -t numa1 --source --json", NULL, &err), 2);
	ck_assert_msg(strstr(err, "--source cannot be combined with --json"), "%s", err);
	free(err);
}
END_TEST

Suite *make_cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("topo");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, topo_defaults_to_numa4_and_prints_its_matrices);
	tcase_add_test(tc, a_full_stdout_fails);
	tcase_add_test(tc, topo_json_has_the_model);
	tcase_add_test(tc, topo_reads_hwloc_xml_from_shared);
	tcase_add_test(tc, topo_mlc_json_has_latency_c2c_and_bandwidth);
	tcase_add_test(tc, topo_mlc_text_is_deterministic);
	tcase_add_test(tc, list_topologies_names_every_bundled_machine);
	tcase_add_loop_test(tc, bad_command_lines_exit_2_with_a_message, 0,
			    (int)(sizeof(bad_cli) / sizeof(bad_cli[0])));
	tcase_add_test(tc, bad_json_file_exits_2_naming_file_and_path);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	tc = tcase_create("run");
	tcase_add_test(tc, list_policies_shows_knobs_and_defaults);
	tcase_add_test(tc, list_workloads_names_the_builtins);
	tcase_add_test(tc, run_json_report_is_complete_and_deterministic);
	tcase_add_test(tc, run_text_summary);
	tcase_add_test(tc, run_native_completes);
	tcase_add_test(tc, latency_model_has_no_dead_parameter);
	tcase_add_test(tc, latency_figures_price_what_they_name);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	tc = tcase_create("compare");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, compare_table_has_a_row_per_metric_and_a_change_column);
	tcase_add_test(tc, compare_table_has_request_and_memory_rows_when_measured);
	tcase_add_test(tc, compare_column_knobs_make_the_columns_differ);
	tcase_add_test(tc, compare_seeds_give_means_and_intervals);
	tcase_add_test(tc, compare_runs_are_run_reports);
	tcase_add_test(tc, compare_csv_has_a_row_per_metric_and_column);
	tcase_add_test(tc, compare_changes_are_tested_seed_by_seed);
	tcase_add_test(tc, compare_is_deterministic);
	tcase_add_test(tc, run_progress_shows_the_simulated_clock);
	tcase_add_test(tc, run_says_when_the_server_fell_behind);
	tcase_add_test(tc, compare_stops_at_a_run_that_deadlocks_or_panics);
	tcase_add_test(tc, compare_help);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, sim_time_limit_cuts_the_run_and_reports_it);
	tcase_add_test(tc, wall_time_limit_cuts_the_run);
	tcase_add_test(tc, saturated_sleeps_wait_until_the_cut);
	tcase_add_test(tc, compare_and_expand_stop_at_a_cut_run);
	tcase_add_test(tc, limits_do_not_change_a_run_that_ends);
	tcase_add_test(tc, lowered_budget_refuses_the_workloads_regions);
	tcase_add_test(tc, expand_draws_count_against_the_budget);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	tc = tcase_create("calibration");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, topo_shows_where_each_figure_comes_from);
	tcase_add_test(tc, topo_json_latency_feeds_back_as_latency);
	tcase_add_test(tc, host_calibration_is_used_and_named_in_the_report);
	tcase_add_test(tc, topo_source_loads_as_the_same_machine);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}
