/* `schedlab run`: one workload under one policy, simulated or native, and
 * its report; the set-up and report `schedlab compare` shares (cli/run.h);
 * `workload expand`, `workload show`, `list policies`, `list workloads`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "policies/policy.h"
#include "topologies/topo.h"
#include "workloads/json.h"
#include "workloads/program.h"

void cli_help_run(FILE *f)
{
	fprintf(f,
		"usage: schedlab run -p POLICY -t TOPOLOGY -w WORKLOAD [--procs N] [--seed N]\n"
		"                    [--set KEY=VALUE ...] [--json FILE|-] [--native]\n"
		"\n"
		"Runs a workload under a scheduling policy on a simulated machine (or, with\n"
		"--native, on this one) and prints what it measured.\n"
		"\n"
		"  -p, --policy P     a policy (see `schedlab list policies`)\n"
		"  -t, --topology T   bundled name, \"host\", or a path to hwloc XML or schedlab\n"
		"                     JSON (default: numa4; with --native: host, the only choice)\n"
		"  -w, --workload W   a bundled workload (see `schedlab list workloads`; default\n"
		"                     rpc-server), or a path to a workload or a trace\n"
		"  --procs N          number of Ps, GOMAXPROCS (default: the topology's PUs)\n"
		"  --seed N           seed of every random choice (default 1); the same inputs\n"
		"                     and seed give the same simulated run, byte for byte\n"
		"  --set KEY=VALUE    set a policy knob (repeatable; see `schedlab list policies`)\n"
		"  --json FILE|-      write the report as JSON to FILE, or to stdout with -\n"
		"  --native           run on this machine's threads instead of simulating\n"
		"\n"
		"Exit status: 0 the run completed; 1 it deadlocked (goroutines were left\n"
		"waiting with nothing to wake them: they are listed with what they wait for);\n"
		"2 bad input, including a workload that panics (a send on a closed channel, a\n"
		"negative WaitGroup counter, an unlock of an unlocked mutex), and a native run\n"
		"stopped by a limit of the runtime's (\"panic: runtime: out of memory: ...\"\n"
		"when goroutine stacks would exceed half of this machine's memory or leave it\n"
		"less than 1/16 available; \"panic: runtime: failed to create new OS thread\").\n");
}

bool cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	if (*s == '-' || *s == '\0')
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end != '\0' || errno == ERANGE || v > max)
		return false;
	*out = v;
	return true;
}

static cJSON *latency_json(const struct hist *h)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "p50", (double)hist_quantile(h, 0.50));
	cJSON_AddNumberToObject(o, "p90", (double)hist_quantile(h, 0.90));
	cJSON_AddNumberToObject(o, "p99", (double)hist_quantile(h, 0.99));
	cJSON_AddNumberToObject(o, "p999", (double)hist_quantile(h, 0.999));
	cJSON_AddNumberToObject(o, "max", (double)h->max);
	cJSON_AddNumberToObject(o, "mean", hist_mean(h));
	return o;
}

/* The report's metrics [docs/runtime.md, "What a run reports"]: a key a
 * run cannot produce is left out, not given as zero. */
cJSON *cli_report_json(const struct cli_run *run)
{
	const struct rt_result *r = &run->r;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "schedlab", SCHEDLAB_VERSION);
	cJSON_AddStringToObject(o, "mode", run->api->mode);
	cJSON_AddStringToObject(o, "policy", run->pol->name);
	cJSON *k = cJSON_AddObjectToObject(o, "knobs");
	for (int i = 0; i < pol_nknobs(run->pol); i++)
		cJSON_AddNumberToObject(k, run->pol->knobs[i].name, (double)run->knobs[i]);
	cJSON_AddStringToObject(o, "topology", run->topo->name);
	cJSON_AddStringToObject(o, "workload", run->wl->name);
	cJSON_AddNumberToObject(o, "seed", (double)run->seed);
	cJSON_AddNumberToObject(o, "procs", run->procs);

	cJSON *m = cJSON_AddObjectToObject(o, "metrics");
	cJSON_AddNumberToObject(m, "makespan_ns", (double)r->makespan_ns);
	cJSON_AddNumberToObject(m, "goroutines", (double)r->goroutines);
	cJSON_AddNumberToObject(m, "completed", (double)r->completed);
	cJSON_AddBoolToObject(m, "deadlock", r->deadlock);
	if (r->panicked)
		cJSON_AddStringToObject(m, "panic", r->panic);
	if (r->sched_latency.count)
		cJSON_AddItemToObject(m, "sched_latency_ns", latency_json(&r->sched_latency));
	if (r->requests) {
		cJSON_AddNumberToObject(m, "requests", (double)r->requests);
		cJSON_AddItemToObject(m, "request_latency_ns", latency_json(&r->request_latency));
	}
	cJSON_AddNumberToObject(m, "throughput_per_s",
				r->makespan_ns > 0 ? (double)r->completed * 1e9 / (double)r->makespan_ns
						   : 0.0);
	if (r->cpu.measured) {
		cJSON *cpu = cJSON_AddObjectToObject(m, "cpu");
		for (int i = 0; i < RT_CPU__COUNT; i++) {
			double f;
			if (rt_cpu_frac(&r->cpu, (enum rt_cpu)i, &f))
				cJSON_AddNumberToObject(cpu, rt_cpu_names[i], f);
		}
		cJSON *by = cJSON_AddObjectToObject(m, "lock_wait_by");
		for (int c = 0; c < RT_LOCK__COUNT; c++) {
			double f;
			if (rt_lock_frac(&r->cpu, (enum rt_lock_class)c, &f))
				cJSON_AddNumberToObject(by, rt_lock_names[c], f);
		}
	}
	cJSON *loc = cJSON_AddObjectToObject(m, "locality");
	const struct rt_mem *mem = &r->locality.mem;
	if (mem->measured) {
		double f;
		if (rt_mem_local_frac(mem, &f))
			cJSON_AddNumberToObject(loc, "mem_local_frac", f);
		cJSON *hops = cJSON_AddArrayToObject(loc, "mem_by_hops");
		for (int h = 0; h < mem->nhops; h++)
			cJSON_AddItemToArray(hops, cJSON_CreateNumber((double)mem->dram_by_hops[h]));
		if (rt_mem_cache_hit_frac(mem, &f))
			cJSON_AddNumberToObject(loc, "cache_hit_frac", f);
	}
	cJSON_AddNumberToObject(loc, "migrations_core", (double)r->locality.migrations_core);
	cJSON_AddNumberToObject(loc, "migrations_node", (double)r->locality.migrations_node);
	if (r->locality.stacks)
		cJSON_AddNumberToObject(loc, "stack_migrations", (double)r->locality.stack_moves);
	cJSON *st = cJSON_AddObjectToObject(m, "steals");
	cJSON_AddNumberToObject(st, "same_node", (double)r->steals.same_node);
	cJSON_AddNumberToObject(st, "remote_node", (double)r->steals.remote_node);
	cJSON_AddNumberToObject(st, "goroutines_stolen", (double)r->steals.gs_stolen);
	cJSON *th = cJSON_AddObjectToObject(m, "threads");
	cJSON_AddNumberToObject(th, "created", (double)r->threads.created);
	cJSON_AddNumberToObject(th, "parks", (double)r->threads.parks);
	cJSON_AddNumberToObject(th, "wakeups", (double)r->threads.wakeups);
	cJSON_AddNumberToObject(th, "futex_calls", (double)r->threads.futex_calls);
	if (r->cpu.measured)
		cJSON_AddNumberToObject(th, "parked_ns", (double)r->cpu.parked_ns);
	cJSON *sm = cJSON_AddObjectToObject(m, "sysmon");
	cJSON_AddNumberToObject(sm, "preemptions", (double)r->preemptions);
	cJSON_AddNumberToObject(sm, "retakes", (double)r->retakes);
	return o;
}

/* The text summary: one row per metric, labels in a column of their own. */
#define LABEL "%-16s"

const char *cli_ns_unit(double ns, double *scale, int *decimals)
{
	static const struct {
		double below, scale;
		int decimals;
		const char *name;
	} units[] = {
		{ 1e4, 1, 0, "ns" },
		{ 1e6, 1e3, 1, "us" },
		{ 1e9, 1e6, 2, "ms" },
		{ 0, 1e9, 2, "s" },
	};
	int i = 0;
	while (i < 3 && !(ns < units[i].below))
		i++;
	*scale = units[i].scale;
	*decimals = units[i].decimals;
	return units[i].name;
}

/* A duration in at most 9 characters, in the unit that suits it. */
const char *cli_fmt_ns(char buf[16], double ns)
{
	double scale;
	int decimals;
	const char *unit = cli_ns_unit(ns, &scale, &decimals);
	snprintf(buf, 16, "%.*f %s", decimals, ns / scale, unit);
	return buf;
}

static void latency_row(const char *label, const struct hist *h)
{
	char b[6][16];
	printf("  %-14s%10s%10s%10s%10s%10s%10s\n", label,
	       cli_fmt_ns(b[0], (double)hist_quantile(h, 0.5)),
	       cli_fmt_ns(b[1], (double)hist_quantile(h, 0.9)),
	       cli_fmt_ns(b[2], (double)hist_quantile(h, 0.99)),
	       cli_fmt_ns(b[3], (double)hist_quantile(h, 0.999)), cli_fmt_ns(b[4], (double)h->max),
	       cli_fmt_ns(b[5], hist_mean(h)));
}

static const char *const cpu_labels[RT_CPU__COUNT] = {
	[RT_CPU_USER] = "user",
	[RT_CPU_SCHED] = "sched",
	[RT_CPU_SPIN] = "spin",
	[RT_CPU_LOCK_WAIT] = "lock wait",
	[RT_CPU_SYSCALL] = "syscall",
	[RT_CPU_IDLE] = "idle",
};

static const char *const lock_labels[RT_LOCK__COUNT] = {
	[RT_LOCK_SCHED] = "scheduler",
	[RT_LOCK_CHAN] = "channels",
	[RT_LOCK_SYNC] = "sync queues",
	[RT_LOCK_NET] = "netpoller",
	[RT_LOCK_TIMERS] = "timers",
};

void cli_report_text(const struct cli_run *run)
{
	const struct rt_result *r = &run->r;
	printf("%s run: policy %s, topology %s, workload %s, %d Ps, seed %llu\n", run->api->mode,
	       run->pol->name, run->topo->name, run->wl->name, run->procs,
	       (unsigned long long)run->seed);
	printf(LABEL "%.3f ms\n", "makespan", (double)r->makespan_ns / 1e6);
	printf(LABEL "%llu made, %llu completed%s\n", "goroutines", (unsigned long long)r->goroutines,
	       (unsigned long long)r->completed, r->deadlock ? ", DEADLOCK" : "");
	printf(LABEL "%.1f goroutines/s\n", "throughput",
	       r->makespan_ns > 0 ? (double)r->completed * 1e9 / (double)r->makespan_ns : 0.0);
	if (r->requests)
		printf(LABEL "%llu answered\n", "requests", (unsigned long long)r->requests);

	if (r->sched_latency.count || r->requests) {
		printf(LABEL "%10s%10s%10s%10s%10s%10s\n", "latency", "p50", "p90", "p99",
		       "p99.9", "max", "mean");
		if (r->sched_latency.count)
			latency_row("scheduling", &r->sched_latency);
		if (r->requests)
			latency_row("request", &r->request_latency);
	}

	if (r->cpu.measured) {
		printf(LABEL "%% of %d Ps x %.3f ms\n", "cpu", run->procs, (double)r->cpu.span_ns / 1e6);
		for (int i = 0; i < RT_CPU__COUNT; i++) {
			double f;
			if (!rt_cpu_frac(&r->cpu, (enum rt_cpu)i, &f))
				continue;
			printf("  %-14s%6.1f%%\n", cpu_labels[i], 100.0 * f);
			if (i != RT_CPU_LOCK_WAIT || r->cpu.ns[i] == 0)
				continue;
			/* whose locks, where there was any wait: a share under
			 * 0.05% prints as nothing rather than as 0.0% */
			for (int k = 0; k < RT_LOCK__COUNT; k++)
				if (rt_lock_frac(&r->cpu, (enum rt_lock_class)k, &f) && f >= 0.0005)
					printf("    %-12s%6.1f%%\n", lock_labels[k], 100.0 * f);
		}
	}

	printf("locality\n");
	printf("  %-14s%llu between cores, %llu between nodes\n", "migrations",
	       (unsigned long long)r->locality.migrations_core,
	       (unsigned long long)r->locality.migrations_node);
	const struct rt_mem *mem = &r->locality.mem;
	if (mem->measured) {
		double f;
		if (rt_mem_cache_hit_frac(mem, &f))
			printf("  %-14s%6.1f%% of %llu lines touched\n", "cache hits", 100.0 * f,
			       (unsigned long long)mem->lines);
		printf("  %-14s", "local memory");
		if (rt_mem_local_frac(mem, &f))
			printf("%6.1f%% of %llu lines from DRAM", 100.0 * f, (unsigned long long)mem->dram);
		else
			printf("no line from DRAM");
		printf("\n  %-14s", "DRAM by hops");
		for (int h = 0; h < mem->nhops; h++)
			printf("%s%d: %llu", h ? ", " : "", h, (unsigned long long)mem->dram_by_hops[h]);
		printf(" lines\n");
	}
	if (r->locality.stacks)
		printf("  %-14s%llu moved to another node\n", "stacks",
		       (unsigned long long)r->locality.stack_moves);

	printf(LABEL "%llu same node, %llu remote node, %llu goroutines stolen\n", "steals",
	       (unsigned long long)r->steals.same_node, (unsigned long long)r->steals.remote_node,
	       (unsigned long long)r->steals.gs_stolen);
	printf(LABEL "%llu created, %llu parks, %llu wake-ups, %llu futex calls", "threads",
	       (unsigned long long)r->threads.created, (unsigned long long)r->threads.parks,
	       (unsigned long long)r->threads.wakeups, (unsigned long long)r->threads.futex_calls);
	if (r->cpu.measured)
		printf(", %.3f ms parked", (double)r->cpu.parked_ns / 1e6);
	printf("\n");
	printf(LABEL "%llu preemptions, %llu Ps retaken from system calls\n", "sysmon",
	       (unsigned long long)r->preemptions, (unsigned long long)r->retakes);
}

int cli_write_json(const char *cmd, const char *path, const cJSON *o)
{
	char *text = cJSON_Print(o);
	int rc = 0;
	if (strcmp(path, "-") == 0) {
		printf("%s\n", text);
	} else {
		FILE *f = fopen(path, "w");
		if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0) {
			fprintf(stderr, "schedlab %s: --json %s: %s\n", cmd, path, strerror(errno));
			rc = EXIT_BADINPUT;
		}
	}
	free(text);
	return rc;
}

#define MAX_SETS 64

static int run_main(int argc, char **argv, const char *cmd, const char *expand);

static int write_trace(const char *cmd, const char *path, const struct workload *wl, uint64_t seed,
		       const struct rt_api *api, struct rt *rt)
{
	const struct wl_draw *recs;
	size_t n = api->draws(rt, &recs);
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (!f) {
		fprintf(stderr, "schedlab %s: -o %s: %s\n", cmd, path, strerror(errno));
		return EXIT_BADINPUT;
	}
	wl_write_trace(f, wl, seed, recs, n);
	if (f != stdout ? fclose(f) != 0 : fflush(f) != 0) {
		fprintf(stderr, "schedlab %s: -o %s: %s\n", cmd, path, strerror(errno));
		return EXIT_BADINPUT;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	return run_main(argc, argv, "run", NULL);
}

/* `schedlab workload expand W ...': W's run as a trace. */
int cmd_workload(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		cli_help_workload(stdout);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "show") == 0) {
		for (int i = 0; i < wl_catalog_count(); i++)
			if (strcmp(argv[2], wl_catalog_name(i)) == 0) {
				fputs(wl_catalog_text(i), stdout);
				return 0;
			}
		return cli_usage_error("workload", "show %s: no bundled workload of that name (see "
				       "`schedlab list workloads`)", argv[2]);
	}
	if (argc < 3 || strcmp(argv[1], "expand") != 0 || argv[2][0] == '-')
		return cli_usage_error("workload", "expected: workload expand WORKLOAD [options], or "
				       "workload show NAME");
	/* the rest is run's options, with -w WORKLOAD */
	char **args = xcalloc((size_t)argc + 2, sizeof(*args));
	int n = 0;
	args[n++] = "expand";
	args[n++] = "-w";
	args[n++] = argv[2];
	for (int i = 3; i < argc; i++)
		args[n++] = argv[i];
	int rc = run_main(n, args, "workload expand", "-");
	free(args);
	return rc;
}

void cli_help_workload(FILE *f)
{
	fprintf(f,
		"usage: schedlab workload expand WORKLOAD [--seed N] [-o FILE|-] [-p POLICY]\n"
		"                [-t TOPOLOGY] [--procs N] [--set KEY=VALUE ...]\n"
		"       schedlab workload show NAME\n"
		"\n"
		"show prints a bundled workload's JSON, to start a new one from.\n"
		"\n"
		"Simulates WORKLOAD and writes it as a trace (JSON lines, to stdout by default):\n"
		"the workload's document and seed, then every random stream's sampled values in\n"
		"the order drawn.  A trace is itself a workload: `schedlab run -w TRACE' replays\n"
		"those values instead of sampling, and gives the report the workload gives with\n"
		"that seed.  The policy (default steal), topology and procs choose the run the\n"
		"values are drawn in; a workload whose control flow does not depend on\n"
		"scheduling draws the same values under any of them.\n");
}

/* `run', and `workload expand' (expand: where the trace goes; the run is
 * simulated and reports nothing else). */
static int run_main(int argc, char **argv, const char *cmd, const char *expand)
{
	const char *policy = expand ? "steal" : NULL, *topology = NULL, *workload = NULL,
		   *json = NULL;
	const char *sets[MAX_SETS];
	int nsets = 0;
	uint64_t seed = 1, procs = 0;
	bool native = false, seed_given = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **val = NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			if (expand)
				cli_help_workload(stdout);
			else
				cli_help_run(stdout);
			return 0;
		} else if (strcmp(a, "--native") == 0 && !expand) {
			native = true;
			continue;
		} else if (strcmp(a, "-p") == 0 || strcmp(a, "--policy") == 0) {
			val = &policy;
		} else if (strcmp(a, "-t") == 0 || strcmp(a, "--topology") == 0) {
			val = &topology;
		} else if (strcmp(a, "-w") == 0 || strcmp(a, "--workload") == 0) {
			val = &workload;
		} else if (strcmp(a, "--json") == 0 && !expand) {
			val = &json;
		} else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && expand) {
			val = &expand;
		} else if (strcmp(a, "--procs") != 0 && strcmp(a, "--seed") != 0 &&
			   strcmp(a, "--set") != 0) {
			return cli_usage_error(cmd, "unknown option '%s'", a);
		}
		if (++i == argc)
			return cli_usage_error(cmd, "option %s needs a value", a);
		const char *v = argv[i];
		if (val) {
			*val = v;
		} else if (strcmp(a, "--procs") == 0) {
			if (!cli_parse_u64(v, 4096, &procs) || procs == 0)
				return cli_usage_error(cmd, "--procs %s: expected a number from 1 to 4096",
						       v);
		} else if (strcmp(a, "--seed") == 0) {
			seed_given = true;
			if (!cli_parse_u64(v, UINT64_MAX, &seed))
				return cli_usage_error(cmd, "--seed %s: expected a non-negative integer",
						       v);
		} else {
			if (nsets == MAX_SETS)
				return cli_usage_error(cmd, "at most %d --set options", MAX_SETS);
			sets[nsets++] = v;
		}
	}
	if (!policy)
		return cli_usage_error(cmd, "missing -p POLICY");
	if (!workload)
		workload = CLI_DEFAULT_WORKLOAD;
	if (native && topology && strcmp(topology, "host") != 0)
		return cli_usage_error(cmd, "--native runs on this machine: -t must be host, not '%s'",
				       topology);

	struct cli_run run = { .api = native ? &nat__rt_api : &sim__rt_api, .seed = seed };
	run.pol = run.api->pol_find(policy);
	if (!run.pol) {
		char names[256];
		cli_policy_names(run.api, names, sizeof(names));
		return cli_usage_error(cmd, "-p %s: no such policy (policies: %s)", policy, names);
	}
	int64_t *knobs = cli_knobs_new(run.pol);
	struct err e = { "" };
	for (int i = 0; i < nsets; i++) {
		if (!pol_set_knob(run.pol, knobs, sets[i], &e)) {
			free(knobs);
			return cli_usage_error(cmd, "%s", e.msg);
		}
	}
	run.knobs = knobs;

	struct topo *topo;
	struct workload *wl;
	bool is_trace;
	uint64_t trace_seed;
	int rc = cli_load_inputs(native ? "host" : topology, workload, &topo, &wl, &is_trace,
				 &trace_seed);
	if (rc) {
		free(knobs);
		return rc;
	}
	if (is_trace) {
		/* the trace's draws are its seed's: a replay under another seed
		 * would mix them with other scheduling choices */
		if (seed_given && seed != trace_seed) {
			wl_free(wl);
			topo_free(topo);
			free(knobs);
			return cli_usage_error(cmd, "--seed %llu: the trace %s was expanded with seed %llu",
					       (unsigned long long)seed, workload,
					       (unsigned long long)trace_seed);
		}
		seed = run.seed = trace_seed;
		if (expand) {
			wl_free(wl);
			topo_free(topo);
			free(knobs);
			return cli_usage_error(cmd, "%s is already a trace", workload);
		}
	}
	if (expand && !wl->source_json) {
		wl_free(wl);
		topo_free(topo);
		free(knobs);
		return cli_usage_error(cmd, "%s is built in C, not written in the workload language: "
				       "it has nothing to expand", workload);
	}
	run.topo = topo;
	run.wl = wl;
	run.procs = procs ? (int)procs : topo->npus;

	struct rt *rt = cli_run_exec(&run, expand != NULL, &e);
	if (!rt) {
		rc = cli_input_error(&e);
	} else if (expand) {
		rc = rt_result_report_fatal(&run.r, stderr);
		if (rc == 0)
			rc = write_trace(cmd, expand, wl, seed, run.api, rt);
		run.api->destroy(rt);
	} else {
		run.api->destroy(rt);
		if (json) {
			cJSON *o = cli_report_json(&run);
			rc = cli_write_json(cmd, json, o);
			cJSON_Delete(o);
		}
		if (!json || strcmp(json, "-") != 0)
			cli_report_text(&run);
		if (rc == 0)
			rc = rt_result_report_fatal(&run.r, stderr);
	}
	wl_free(wl);
	topo_free(topo);
	free(knobs);
	return rc;
}

void cli_policy_names(const struct rt_api *api, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < api->pol_count(); i++)
		len = str_list_add(buf, size, len, api->pol_at(i)->name);
}

int64_t *cli_knobs_new(const struct pol_ops *pol)
{
	int64_t *knobs = xcalloc((size_t)pol_nknobs(pol) + 1, sizeof(*knobs));
	pol_default_knobs(pol, knobs);
	return knobs;
}

int cli_load_inputs(const char *topology, const char *workload, struct topo **topo,
		    struct workload **wl, bool *is_trace, uint64_t *trace_seed)
{
	struct err e = { "" };
	*is_trace = false;
	*trace_seed = 0;
	*wl = NULL;
	*topo = topo_load(topology ? topology : CLI_DEFAULT_TOPOLOGY, &e);
	if (*topo)
		*wl = wl_load(workload ? workload : CLI_DEFAULT_WORKLOAD, is_trace, trace_seed, &e);
	if (!*wl) {
		topo_free(*topo);
		*topo = NULL;
		return cli_input_error(&e);
	}
	return 0;
}

struct rt *cli_run_exec(struct cli_run *run, bool record_draws, struct err *e)
{
	struct rt_config cfg = {
		.policy = run->pol,
		.knobs = run->knobs,
		.procs = run->procs,
		.seed = run->seed,
		.topo = run->topo,
		.workload = run->wl,
		.record_draws = record_draws,
	};
	struct rt *rt = run->api->create(&cfg, e);
	if (rt) {
		run->api->run(rt);
		run->api->result(rt, &run->r);
	}
	return rt;
}

/* `schedlab list policies`: each policy, its knobs and their defaults. */
int cli_list_policies(void)
{
	const struct rt_api *api = &sim__rt_api;
	for (int i = 0; i < api->pol_count(); i++) {
		const struct pol_ops *pol = api->pol_at(i);
		printf("%s  %s\n", pol->name, pol->summary);
		for (int k = 0; k < pol_nknobs(pol); k++) {
			const struct pol_knob *kn = &pol->knobs[k];
			char range[64];
			if (kn->flags & POL_KNOB_BOOL)
				snprintf(range, sizeof(range), "bool");
			else
				snprintf(range, sizeof(range), "%lld..%lld%s", (long long)kn->min,
					 (long long)kn->max, (kn->flags & POL_KNOB_POW2) ? ", power of 2" : "");
			printf("  %-24s %8lld  (%s) %s\n", kn->name, (long long)kn->def, range, kn->doc);
		}
	}
	return 0;
}

/* The catalog, one line each: its name and the first sentence of its
 * description. */
int cli_list_workloads(void)
{
	for (int i = 0; i < wl_catalog_count(); i++) {
		struct err e;
		bool trace;
		uint64_t seed;
		struct workload *w = wl_load(wl_catalog_name(i), &trace, &seed, &e);
		if (!w) {
			fprintf(stderr, "schedlab: internal error: %s\n", e.msg);
			return 3;
		}
		const char *d = w->description;
		const char *dot = strstr(d, ". ");
		int len = dot ? (int)(dot - d) : (int)strlen(d);
		if (len > 0 && d[len - 1] == '.')
			len--;
		printf("%-14s %.*s\n", w->name, len, d);
		wl_free(w);
	}
	for (int i = 0; i < wl_builtin_count(); i++)
		printf("%-14s %s (built in C)\n", wl_builtin_name(i), wl_builtin_summary(i));
	return 0;
}
