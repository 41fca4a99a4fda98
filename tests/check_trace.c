/* Execution traces (suite "trace"): `run --trace FILE --trace-format
 * go1.19' writes Go 1.19's format, which Go 1.19's `go tool trace'
 * (Debian's golang-go, a test dependency in scripts/install-deps.sh)
 * parses without error for every catalog workload, simulated and native,
 * with as many goroutines, starts and blocks as the run's report counts;
 * its scheduler-latency profile names the workload's programs; tracing
 * changes nothing in a simulated run, in either Go format; and a trace
 * past its limit ends with a message, not an OOM.  Go 1.22's format, the
 * default, is check_trace122.c's.
 *
 * Without Go 1.19 the cases that need it say so on stderr and pass: CI
 * installs it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/trace.h"
#include "tests/tests.h"
#include "topologies/topo.h"
#include "trace/trace.h"
#include "workloads/json.h"

/* The Go that reads Go 1.19's format as Go 1.19 wrote it: Debian's
 * golang-go 1.19 (scripts/install-deps.sh), named by meson in
 * $SCHEDLAB_GO119, not whichever `go' is first on the PATH (today's Go
 * converts old traces with rules of its own). */
static const char *go119(void)
{
	const char *go = getenv("SCHEDLAB_GO119");
	return go && *go ? go : "/usr/lib/go-1.19/bin/go";
}

static bool have_go(void)
{
	static int have = -1;
	if (have < 0) {
		char *out = NULL, *err = NULL;
		have = test_runf(&out, &err, "'%s' version 2>&1 | grep -q 'go1\\.19'", go119()) == 0;
		free(out);
		free(err);
	}
	if (!have)
		fprintf(stderr, "trace tests: SKIPPED, Go 1.19 is not at %s (apt-get install "
				"golang-go; scripts/install-deps.sh does)\n", go119());
	return have;
}

static char tmpdir[64];

static void tmpdir_setup(void)
{
	test_tmpdir(tmpdir, sizeof(tmpdir), "trace");
}

static void tmpdir_teardown(void)
{
	test_rm_rf(tmpdir);
}

static int nworkloads(void)
{
	return wl_catalog_count() + wl_builtin_count();
}

static const char *workload_name(int i)
{
	return i < wl_catalog_count() ? wl_catalog_name(i) : wl_builtin_name(i - wl_catalog_count());
}

/* Native runs too big to trace in a test (a million goroutines or more):
 * they check the limit's message instead. */
static bool native_heavy(const char *name)
{
	return strcmp(name, "skynet") == 0 || strcmp(name, "spawn-wide") == 0 ||
	       strcmp(name, "fib") == 0;
}

/* What `go tool trace -d' printed: events by type. */
struct dcounts {
	uint64_t create, start, start_label, block, unblock, syscall, sysexit, log, log_steal,
		log_glob, log_place, task_create, task_end, region, lines;
	uint64_t glob_fair, glob_empty;   /* globrunq logs by reason */
};

static struct dcounts parse_dump(const char *path)
{
	struct dcounts c = { 0 };
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char line[1024];
	while (fgets(line, sizeof(line), f)) {
		char type[64];
		long long ts;
		if (sscanf(line, "%lld %63s", &ts, type) != 2)
			continue;
		c.lines++;
		if (strcmp(type, "GoCreate") == 0)
			c.create++;
		else if (strcmp(type, "GoStart") == 0)
			c.start++;
		else if (strcmp(type, "GoStartLabel") == 0)
			c.start_label++;
		else if (strncmp(type, "GoBlock", 7) == 0 || strcmp(type, "GoSleep") == 0)
			c.block++;
		else if (strcmp(type, "GoUnblock") == 0)
			c.unblock++;
		else if (strcmp(type, "GoSysCall") == 0)
			c.syscall++;
		else if (strcmp(type, "GoSysExit") == 0)
			c.sysexit++;
		else if (strcmp(type, "UserTaskCreate") == 0)
			c.task_create++;
		else if (strcmp(type, "UserTaskEnd") == 0)
			c.task_end++;
		else if (strcmp(type, "UserRegion") == 0)
			c.region++;
		else if (strcmp(type, "UserLog") == 0) {
			c.log++;
			c.log_steal += strstr(line, "category=steal ") != NULL;
			c.log_glob += strstr(line, "category=globrunq ") != NULL;
			c.glob_fair += strstr(line, "global queue (fairness)") != NULL;
			c.glob_empty += strstr(line, "global queue (local queue empty)") != NULL;
			c.log_place += strstr(line, "category=place ") != NULL;
		}
	}
	fclose(f);
	return c;
}

/* The JSON document in the file at path (the caller deletes it). */
static cJSON *json_file(const char *path)
{
	char *text = test_read_file(path);
	ck_assert_msg(*text, "%s is empty", path);
	cJSON *o = cJSON_Parse(text);
	free(text);
	ck_assert_msg(o != NULL, "%s: not JSON", path);
	return o;
}

/* metrics.NAME of the JSON report at path; a missing one fails, unless
 * optional (then 0: the report leaves out what the run has none of). */
static uint64_t json_metric_in(const char *path, const char *name, bool optional)
{
	cJSON *o = json_file(path);
	cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metrics"), name);
	ck_assert_msg(cJSON_IsNumber(v) || (optional && !v), "%s: no metrics.%s", path, name);
	uint64_t x = v ? (uint64_t)v->valuedouble : 0;
	cJSON_Delete(o);
	return x;
}

static uint64_t json_metric(const char *path, const char *name)
{
	return json_metric_in(path, name, false);
}


/* Runs workload i (mode 0 simulated, 1 native) with --trace, parses the
 * trace with go tool trace -d and checks its counts against the report. */
static void catalog_trace(int i, int mode)
{
	const char *name = workload_name(i);
	const char *pol = sim__rt_api.pol_at(i % sim__rt_api.pol_count())->name;
	char *out = NULL, *err = NULL;
	bool heavy = mode == 1 && native_heavy(name);
	int rc = test_runf(&out, &err,
		     "timeout 300 '%s' run -p %s -w %s %s --trace %s/t.out --trace-format go1.19 "
		     "--json %s/r.json %s",
		     test_schedlab_bin(), pol, name,
		     mode == 0 ? "-t numa4 --procs 4 --max-sim-time 2ms" : "--native --procs 2",
		     tmpdir, tmpdir, heavy ? "--trace-limit 200000" : "");
	if (heavy) {
		/* the run is reported, the trace refused with the reason */
		ck_assert_msg(rc == 2, "%s: exit %d, stderr %s", name, rc, err);
		ck_assert_msg(strstr(err, "--trace-limit") && strstr(err, "200000 trace events"),
			      "%s: %s", name, err);
		ck_assert_msg(strstr(out, "goroutines"), "%s: no report: %s", name, out);
		char path[128];
		snprintf(path, sizeof(path), "%s/t.out", tmpdir);
		ck_assert_int_ne(access(path, F_OK), 0);
		free(out);
		free(err);
		return;
	}
	ck_assert_msg(rc == 0 || (mode == 0 && rc == 4), "%s under %s: exit %d: %s", name, pol, rc, err);
	free(out);
	free(err);
	rc = test_runf(&out, &err, "'%s' tool trace -d %s/t.out > %s/d.txt", go119(), tmpdir,
		       tmpdir);
	ck_assert_msg(rc == 0, "%s under %s (%s): go tool trace -d failed: %s", name, pol,
		      mode ? "native" : "sim", err);
	free(out);
	free(err);
	char path[128];
	snprintf(path, sizeof(path), "%s/d.txt", tmpdir);
	struct dcounts c = parse_dump(path);
	snprintf(path, sizeof(path), "%s/r.json", tmpdir);
	uint64_t gs = json_metric(path, "goroutines"), runs = json_metric(path, "runs"),
		 blocks = json_metric(path, "blocks");
	ck_assert_msg(c.create == gs && c.start == runs && c.block == blocks,
		      "%s under %s (%s): trace has %llu goroutines, %llu starts, %llu blocks; the "
		      "report %llu, %llu, %llu", name, pol, mode ? "native" : "sim",
		      (unsigned long long)c.create, (unsigned long long)c.start,
		      (unsigned long long)c.block, (unsigned long long)gs,
		      (unsigned long long)runs, (unsigned long long)blocks);
	ck_assert_uint_gt(c.start, 0);
	/* every request answered is a user task ended, with its handling a
	 * region (begun and ended); one cut short by the end of the run is
	 * only created */
	uint64_t reqs = json_metric_in(path, "requests", true);
	ck_assert_msg(c.task_end == reqs && c.task_create >= reqs && c.region >= 2 * reqs &&
		      c.region <= 2 * c.task_create,
		      "%s under %s (%s): %llu requests answered; the trace has %llu tasks created, "
		      "%llu ended, %llu region events", name, pol, mode ? "native" : "sim",
		      (unsigned long long)reqs, (unsigned long long)c.task_create,
		      (unsigned long long)c.task_end, (unsigned long long)c.region);
	/* a G back from a system call on another P is shown started with a
	 * label, never counted as a run */
	ck_assert_uint_le(c.start_label, c.sysexit);
}

START_TEST(catalog_trace_sim)
{
	if (!have_go())
		return;
	catalog_trace(_i, 0);
}
END_TEST

START_TEST(catalog_trace_native)
{
	if (!have_go())
		return;
	/* native runs are ASan's and TSan's to check, not valgrind's; under
	 * TSan, whose threads run several times slower, the workloads whose
	 * recording differs (channels, syscalls and hand-offs, the network,
	 * yields, spawns); vtocc for the network, as rpc-server's 12,800
	 * native goroutines take TSan past its own memory maps with tracing
	 * or without */
	if (test_under_valgrind())
		return;
	static const char *const tsan_set[] = { "pipeline", "syscall-heavy", "vtocc",
						"yield-storm", "spawn-tree", "pingpong-hog" };
	if (test_under_tsan()) {
		bool in = false;
		for (size_t k = 0; k < sizeof(tsan_set) / sizeof(tsan_set[0]); k++)
			in |= strcmp(workload_name(_i), tsan_set[k]) == 0;
		if (!in)
			return;
	}
	catalog_trace(_i, 1);
}
END_TEST

/* The policies' mechanisms show as user log events: a steal's thief and
 * victim, a take from the global queue, numa's placements. */
START_TEST(mechanisms_as_user_logs)
{
	if (!have_go())
		return;
	static const struct { const char *pol, *wl; int cat; } cases[] = {
		{ "steal", "spawn-tree", 0 }, { "global", "spawn-tree", 1 }, { "numa", "rpc-server", 2 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *out = NULL, *err = NULL;
		int rc = test_runf(&out, &err, "'%s' run -p %s -w %s -t numa4 --procs 8 --max-sim-time 2ms "
				    "--trace %s/t.out --trace-format go1.19 >/dev/null; '%s' tool trace -d "
				    "%s/t.out > %s/d.txt",
			     test_schedlab_bin(), cases[k].pol, cases[k].wl, tmpdir, go119(), tmpdir,
			     tmpdir);
		ck_assert_msg(rc == 0 || rc == 4, "%s: %s", cases[k].pol, err);
		free(out);
		free(err);
		char path[128];
		snprintf(path, sizeof(path), "%s/d.txt", tmpdir);
		struct dcounts c = parse_dump(path);
		uint64_t n = cases[k].cat == 0 ? c.log_steal : cases[k].cat == 1 ? c.log_glob : c.log_place;
		ck_assert_msg(n > 0, "%s on %s: no user log of its mechanism (%llu logs)", cases[k].pol,
			      cases[k].wl, (unsigned long long)c.log);
	}
}
END_TEST

/* go tool trace -pprof=sched: a profile naming the workload's programs. */
START_TEST(pprof_sched_names_programs)
{
	if (!have_go())
		return;
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err, "'%s' run -p steal -w pipeline -t numa4 --procs 4 --trace-format go1.19 "
			    "--trace %s/t.out "
			    ">/dev/null && '%s' tool trace -pprof=sched %s/t.out > %s/s.pprof && "
			    "test -s %s/s.pprof && gzip -dc %s/s.pprof | grep -a -c producer",
		     test_schedlab_bin(), tmpdir, go119(), tmpdir, tmpdir, tmpdir, tmpdir);
	ck_assert_msg(rc == 0, "no profile naming program producer: %s %s", out, err);
	free(out);
	free(err);
}
END_TEST

/* Go 1.26's `go tool trace` reads the trace of every catalog workload
 * (converting Go 1.19's format: every event, strings and the stack table
 * included, must be inside a batch), and its scheduler-latency profile
 * names the programs as Go 1.19's does. */
START_TEST(today_go_reads_every_trace)
{
	const char *go = test_go126();
	if (!go)
		return;
	const char *name = workload_name(_i);
	const char *pol = sim__rt_api.pol_at(_i % sim__rt_api.pol_count())->name;
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err, "'%s' run -p %s -w %s -t numa4 --procs 4 --max-sim-time 20ms "
			   "--trace %s/t.out --trace-format go1.19 >/dev/null; test $? -le 4 && "
			   "'%s' tool trace -d=parsed "
			   "%s/t.out >/dev/null", test_schedlab_bin(), pol, name, tmpdir, go, tmpdir);
	ck_assert_msg(rc == 0, "%s under %s: Go 1.26's go tool trace refused the trace: %s", name,
		      pol, err);
	free(out);
	free(err);
	if (strcmp(name, "pipeline") != 0)
		return;
	rc = test_runf(&out, &err, "'%s' tool trace -pprof=sched %s/t.out > %s/s.pprof && "
			"'%s' tool pprof -top %s/s.pprof", go, tmpdir, tmpdir, go, tmpdir);
	ck_assert_msg(rc == 0 && strstr(out, "producer") && strstr(out, "stage"),
		      "Go 1.26's profile does not name the programs: %s %s", out, err);
	free(out);
	free(err);
}
END_TEST

/* A simulated run is the same with tracing on or off: its report byte
 * for byte, and its schedule; and its trace needs no repair. */
START_TEST(tracing_changes_nothing)
{
	static const char *const wls[] = { "rpc-server", "syscall-heavy", "vtocc", "pipeline" };
	const char *wname = wls[_i];
	struct err e = { "" };
	bool is_trace;
	uint64_t tseed;
	struct workload *w = wl_load(wname, &is_trace, &tseed, &e);
	ck_assert_msg(w, "%s", e.msg);
	struct topo *t = topo_load("numa4", &e);
	ck_assert_msg(t, "%s", e.msg);
	const struct rt_api *api = &sim__rt_api;
	const struct pol_ops *pol = api->pol_find("numa");
	struct rt_result r[2];
	for (int on = 0; on < 2; on++) {
		struct rt_config cfg = {
			.policy = pol, .procs = 16, .seed = 3, .topo = t, .body = api->body,
			.body_arg = &(struct wlr_args){ .workload = w },
			/* valgrind runs the simulation itself: shorter */
			.lim.max_sim_ns = test_under_valgrind() ? 1000000 : 10000000, .lim.trace = on,
		};
		struct rt *rt = api->create(&cfg, &e);
		ck_assert_msg(rt, "%s", e.msg);
		api->run(rt);
		api->result(rt, &r[on]);
		struct rt_trace tr;
		ck_assert_int_eq(api->trace(rt, &tr, &e), on);
		if (on) {
			FILE *f = fopen("/dev/null", "w");
			struct trace_go_stats st;
			ck_assert(trace_write_go_stats(f, &tr, &st, &e));
			fclose(f);
			ck_assert_uint_eq(st.repaired + st.dropped + st.reattributed + st.clamped, 0);
			ck_assert_uint_eq(st.goroutines, r[on].goroutines);
			ck_assert_uint_eq(st.starts, r[on].runs);
			ck_assert_uint_eq(st.blocks, r[on].blocks);
			/* and Go 1.22's format, the default */
			f = fopen("/dev/null", "w");
			ck_assert(trace_write_go122_opts(f, &tr, NULL, &st, &e));
			fclose(f);
			ck_assert_uint_eq(st.repaired + st.dropped + st.reattributed, 0);
			ck_assert_uint_eq(st.goroutines, r[on].goroutines);
			ck_assert_uint_eq(st.starts, r[on].runs);
			ck_assert_uint_eq(st.blocks, r[on].blocks);
			ck_assert_str_eq(tr.mode, "sim");
			ck_assert_int_eq(tr.procs, 16);
		}
		api->destroy(rt);
	}
	ck_assert_uint_ne(r[0].schedule_hash, 0);
	ck_assert_uint_eq(r[0].schedule_hash, r[1].schedule_hash);
	ck_assert_int_eq(r[0].makespan_ns, r[1].makespan_ns);
	ck_assert_uint_eq(r[0].runs, r[1].runs);
	topo_free(t);
	wl_free(w);

	/* and the command's reports, text and JSON */
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err,
		     "cd %s && S='%s' && A='run -p numa -w %s -t numa4 --procs 16 --max-sim-time 10ms' && "
		     "{ $S $A --json a.json > a.txt; $S $A --json b.json --trace b.out > b.txt; "
		     "$S $A --json c.json --trace c.out --trace-format go1.19 > c.txt; true; } && "
		     "cmp a.json b.json && cmp a.txt b.txt && cmp a.json c.json && cmp a.txt c.txt && "
		     "test -s b.out && test -s c.out && head -c 13 b.out | grep -q 'go 1.22 trace' && "
		     "head -c 13 c.out | grep -q 'go 1.19 trace'",
		     tmpdir, test_schedlab_bin(), wname);
	ck_assert_msg(rc == 0, "%s: reports differ with --trace: %s %s", wname, out, err);
	free(out);
	free(err);
}
END_TEST

/* `run --trace FILE.json' writes Chrome's JSON trace events: a slice per
 * G run on its P's track (as many as the report's runs), each wake-up or
 * steal flow begun and ended, run-queue counters; simulated and native. */
START_TEST(chrome_json_from_run)
{
	int mode = _i;
	if (mode == 1 && test_under_valgrind())
		return;
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err, "'%s' run -p steal -w pipeline %s --trace %s/t.json --json %s/r.json",
		     test_schedlab_bin(), mode == 0 ? "-t numa4 --procs 4 --max-sim-time 2ms"
		     : "--native --procs 2", tmpdir, tmpdir);
	ck_assert_msg(rc == 0 || (mode == 0 && rc == 4), "exit %d: %s", rc, err);
	free(out);
	free(err);
	char path[128];
	snprintf(path, sizeof(path), "%s/t.json", tmpdir);
	cJSON *o = json_file(path);
	cJSON *evs = cJSON_IsArray(o) ? o : cJSON_GetObjectItem(o, "traceEvents");
	ck_assert(cJSON_IsArray(evs));
	uint64_t runs = 0, flow_s = 0, flow_f = 0, counters = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, evs) {
		const char *ph = cJSON_GetStringValue(cJSON_GetObjectItem(e, "ph"));
		const char *cat = cJSON_GetStringValue(cJSON_GetObjectItem(e, "cat"));
		ck_assert_ptr_nonnull(ph);
		if (strcmp(ph, "X") == 0 && cat && strcmp(cat, "run") == 0)
			runs++;
		flow_s += strcmp(ph, "s") == 0;
		flow_f += strcmp(ph, "f") == 0;
		counters += strcmp(ph, "C") == 0;
	}
	cJSON_Delete(o);
	snprintf(path, sizeof(path), "%s/r.json", tmpdir);
	uint64_t want = json_metric(path, "runs");
	ck_assert_msg(runs == want, "%s: %llu G run slices, the report %llu runs",
		      mode ? "native" : "sim", (unsigned long long)runs, (unsigned long long)want);
	ck_assert_uint_gt(flow_s, 0);
	ck_assert_uint_eq(flow_s, flow_f);
	ck_assert_uint_gt(counters, 0);
}
END_TEST

/* The trace's global-queue takes are the report's, reason by reason. */
START_TEST(global_takes_as_in_report)
{
	if (!have_go())
		return;
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err, "'%s' run -p steal -w rpc-server -t numa4 --procs 16 "
			    "--max-sim-time 5ms --trace %s/t.out --trace-format go1.19 --json %s/r.json; "
			    "'%s' tool trace -d %s/t.out > %s/d.txt", test_schedlab_bin(), tmpdir, tmpdir,
		     go119(), tmpdir, tmpdir);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	free(out);
	free(err);
	char path[128];
	snprintf(path, sizeof(path), "%s/d.txt", tmpdir);
	struct dcounts c = parse_dump(path);
	snprintf(path, sizeof(path), "%s/r.json", tmpdir);
	cJSON *o = json_file(path);
	const cJSON *takes = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(o, "metrics"), "mechanisms"), "global_queue"), "takes");
	double fair = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(takes, "fairness"),
							       "takes"));
	double empty = cJSON_GetNumberValue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(takes, "local_empty"), "takes"));
	cJSON_Delete(o);
	ck_assert_msg(fair > 0 && empty > 0, "the run made no takes of both reasons");
	ck_assert_msg(c.glob_fair == (uint64_t)fair && c.glob_empty == (uint64_t)empty,
		      "trace: %llu fairness, %llu local-empty takes; report %.0f, %.0f",
		      (unsigned long long)c.glob_fair, (unsigned long long)c.glob_empty, fair, empty);
}
END_TEST

/* Past --trace-limit the run is reported and the trace refused, with a
 * message naming the option; a bad limit is a usage error. */
START_TEST(trace_limit_message)
{
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err, "'%s' run -p steal -w pingpong -t numa4 --procs 4 --trace %s/t.out "
			    "--trace-limit 1000", test_schedlab_bin(), tmpdir);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(err, "t.out") && strstr(err, "more than 1000 trace events") &&
		      strstr(err, "--trace-limit"), "%s", err);
	ck_assert_msg(strstr(out, "goroutines"), "%s", out);
	char path[128];
	snprintf(path, sizeof(path), "%s/t.out", tmpdir);
	ck_assert_int_ne(access(path, F_OK), 0);
	free(out);
	free(err);
	rc = test_runf(&out, &err, "'%s' run -p steal -w pingpong --trace %s/t.out --trace-limit 0",
		 test_schedlab_bin(), tmpdir);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(err, "--trace-limit 0"), "%s", err);
	free(out);
	free(err);
	rc = test_runf(&out, &err, "'%s' run -p steal -w pingpong --trace-limit 10", test_schedlab_bin());
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(err, "--trace"), "%s", err);
	free(out);
	free(err);
}
END_TEST

Suite *make_trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("go");
	tcase_add_checked_fixture(tc, tmpdir_setup, tmpdir_teardown);
	tcase_add_loop_test(tc, catalog_trace_sim, 0, nworkloads());
	tcase_add_loop_test(tc, mechanisms_as_user_logs, 0, 1);
	tcase_add_loop_test(tc, pprof_sched_names_programs, 0, 1);
	tcase_add_loop_test(tc, today_go_reads_every_trace, 0, nworkloads());
	tcase_add_loop_test(tc, tracing_changes_nothing, 0, 4);
	tcase_add_loop_test(tc, trace_limit_message, 0, 1);
	tcase_add_loop_test(tc, chrome_json_from_run, 0, 1);
	tcase_add_test(tc, global_takes_as_in_report);
	tcase_set_timeout(tc, 600);
	tcase_set_tags(tc, TEST_SIM_ONLY);
	suite_add_tcase(s, tc);

	tc = tcase_create("go-native");
	tcase_add_checked_fixture(tc, tmpdir_setup, tmpdir_teardown);
	tcase_add_loop_test(tc, catalog_trace_native, 0, nworkloads());
	tcase_add_loop_test(tc, chrome_json_from_run, 1, 2);
	tcase_set_timeout(tc, 900);
	suite_add_tcase(s, tc);
	return s;
}
