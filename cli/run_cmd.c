/* `schedlab run`: one workload under one policy, simulated or native, and
 * its report. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "policies/policy.h"
#include "topologies/topo.h"
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
		"  -w, --workload W   a built-in workload (see `schedlab list workloads`)\n"
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
		"negative WaitGroup counter, an unlock of an unlocked mutex).\n");
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
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

struct run {
	const struct rt_api *api;
	const struct pol_ops *pol;
	const int64_t *knobs;
	const struct topo *topo;
	const struct workload *wl;
	uint64_t seed;
	int procs;
	struct rt_result r;
};

static cJSON *report_json(const struct run *run)
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
	cJSON_AddItemToObject(m, "sched_latency_ns", latency_json(&r->sched_latency));
	cJSON_AddNumberToObject(m, "throughput_per_s",
				r->makespan_ns > 0 ? (double)r->completed * 1e9 / (double)r->makespan_ns
						   : 0.0);
	cJSON *cpu = cJSON_AddObjectToObject(m, "cpu");
	double capacity = (double)run->procs * (double)r->makespan_ns;
	cJSON_AddNumberToObject(cpu, "user", capacity > 0 ? (double)r->user_ns / capacity : 0.0);
	cJSON_AddNumberToObject(cpu, "syscall", capacity > 0 ? (double)r->syscall_ns / capacity : 0.0);
	cJSON *loc = cJSON_AddObjectToObject(m, "locality");
	cJSON_AddNumberToObject(loc, "migrations_core", (double)r->locality.migrations_core);
	cJSON_AddNumberToObject(loc, "migrations_node", (double)r->locality.migrations_node);
	cJSON *st = cJSON_AddObjectToObject(m, "steals");
	cJSON_AddNumberToObject(st, "same_node", (double)r->steals.same_node);
	cJSON_AddNumberToObject(st, "remote_node", (double)r->steals.remote_node);
	cJSON_AddNumberToObject(st, "goroutines_stolen", (double)r->steals.gs_stolen);
	cJSON *th = cJSON_AddObjectToObject(m, "threads");
	cJSON_AddNumberToObject(th, "created", (double)r->threads.created);
	cJSON_AddNumberToObject(th, "parks", (double)r->threads.parks);
	cJSON_AddNumberToObject(th, "wakeups", (double)r->threads.wakeups);
	cJSON_AddNumberToObject(th, "futex_calls", (double)r->threads.futex_calls);
	cJSON *sm = cJSON_AddObjectToObject(m, "sysmon");
	cJSON_AddNumberToObject(sm, "preemptions", (double)r->preemptions);
	cJSON_AddNumberToObject(sm, "retakes", (double)r->retakes);
	return o;
}

static void report_text(const struct run *run)
{
	const struct rt_result *r = &run->r;
	const struct hist *h = &r->sched_latency;
	printf("%s run: policy %s, topology %s, workload %s, %d Ps, seed %llu\n", run->api->mode,
	       run->pol->name, run->topo->name, run->wl->name, run->procs,
	       (unsigned long long)run->seed);
	printf("makespan        %.3f ms\n", (double)r->makespan_ns / 1e6);
	printf("goroutines      %llu made, %llu completed%s\n", (unsigned long long)r->goroutines,
	       (unsigned long long)r->completed, r->deadlock ? ", DEADLOCK" : "");
	printf("sched latency   p50 %llu  p90 %llu  p99 %llu  p99.9 %llu  max %llu ns  (mean %.0f)\n",
	       (unsigned long long)hist_quantile(h, 0.5), (unsigned long long)hist_quantile(h, 0.9),
	       (unsigned long long)hist_quantile(h, 0.99),
	       (unsigned long long)hist_quantile(h, 0.999), (unsigned long long)h->max,
	       hist_mean(h));
	double capacity = (double)run->procs * (double)r->makespan_ns;
	printf("cpu             %.1f%% of %d Ps running Gs' own work\n",
	       capacity > 0 ? 100.0 * (double)r->user_ns / capacity : 0.0, run->procs);
	printf("steals          %llu same node, %llu remote node, %llu goroutines stolen\n",
	       (unsigned long long)r->steals.same_node, (unsigned long long)r->steals.remote_node,
	       (unsigned long long)r->steals.gs_stolen);
	printf("migrations      %llu between cores, %llu between nodes\n",
	       (unsigned long long)r->locality.migrations_core,
	       (unsigned long long)r->locality.migrations_node);
	printf("sysmon          %llu preemptions, %llu Ps retaken from system calls\n",
	       (unsigned long long)r->preemptions, (unsigned long long)r->retakes);
	printf("threads         %llu created, %llu parks, %llu wake-ups, %llu futex calls\n",
	       (unsigned long long)r->threads.created, (unsigned long long)r->threads.parks,
	       (unsigned long long)r->threads.wakeups, (unsigned long long)r->threads.futex_calls);
}

static int write_json(const char *path, cJSON *o)
{
	char *text = cJSON_Print(o);
	int rc = 0;
	if (strcmp(path, "-") == 0) {
		printf("%s\n", text);
	} else {
		FILE *f = fopen(path, "w");
		if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0) {
			fprintf(stderr, "schedlab run: --json %s: %s\n", path, strerror(errno));
			rc = EXIT_BADINPUT;
		}
	}
	free(text);
	return rc;
}

#define MAX_SETS 64

int cmd_run(int argc, char **argv)
{
	const char *policy = NULL, *topology = NULL, *workload = NULL, *json = NULL;
	const char *sets[MAX_SETS];
	int nsets = 0;
	uint64_t seed = 1, procs = 0;
	bool native = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **val = NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			cli_help_run(stdout);
			return 0;
		} else if (strcmp(a, "--native") == 0) {
			native = true;
			continue;
		} else if (strcmp(a, "-p") == 0 || strcmp(a, "--policy") == 0) {
			val = &policy;
		} else if (strcmp(a, "-t") == 0 || strcmp(a, "--topology") == 0) {
			val = &topology;
		} else if (strcmp(a, "-w") == 0 || strcmp(a, "--workload") == 0) {
			val = &workload;
		} else if (strcmp(a, "--json") == 0) {
			val = &json;
		} else if (strcmp(a, "--procs") != 0 && strcmp(a, "--seed") != 0 &&
			   strcmp(a, "--set") != 0) {
			return cli_usage_error("run", "unknown option '%s'", a);
		}
		if (++i == argc)
			return cli_usage_error("run", "option %s needs a value", a);
		const char *v = argv[i];
		if (val) {
			*val = v;
		} else if (strcmp(a, "--procs") == 0) {
			if (!parse_u64(v, 4096, &procs) || procs == 0)
				return cli_usage_error("run", "--procs %s: expected a number from 1 to 4096",
						       v);
		} else if (strcmp(a, "--seed") == 0) {
			if (!parse_u64(v, UINT64_MAX, &seed))
				return cli_usage_error("run", "--seed %s: expected a non-negative integer",
						       v);
		} else {
			if (nsets == MAX_SETS)
				return cli_usage_error("run", "at most %d --set options", MAX_SETS);
			sets[nsets++] = v;
		}
	}
	if (!policy)
		return cli_usage_error("run", "missing -p POLICY");
	if (!workload)
		return cli_usage_error("run", "missing -w WORKLOAD");
	if (native && topology && strcmp(topology, "host") != 0)
		return cli_usage_error("run", "--native runs on this machine: -t must be host, not '%s'",
				       topology);

	struct run run = { .api = native ? &nat__rt_api : &sim__rt_api, .seed = seed };
	run.pol = run.api->pol_find(policy);
	if (!run.pol) {
		char names[256] = "";
		size_t len = 0;
		for (int i = 0; i < run.api->pol_count(); i++)
			len = str_list_add(names, sizeof(names), len, run.api->pol_at(i)->name);
		return cli_usage_error("run", "-p %s: no such policy (policies: %s)", policy, names);
	}
	int64_t *knobs = xcalloc((size_t)pol_nknobs(run.pol) + 1, sizeof(*knobs));
	pol_default_knobs(run.pol, knobs);
	struct err e = { "" };
	for (int i = 0; i < nsets; i++) {
		if (!pol_set_knob(run.pol, knobs, sets[i], &e)) {
			free(knobs);
			return cli_usage_error("run", "%s", e.msg);
		}
	}
	run.knobs = knobs;

	struct topo *topo = topo_load(native ? "host" : topology ? topology : "numa4", &e);
	struct workload *wl = topo ? wl_builtin(workload, &e) : NULL;
	if (!topo || !wl) {
		topo_free(topo);
		free(knobs);
		if (topo)
			return cli_usage_error("run", "-w: %s", e.msg);
		return cli_input_error(&e);
	}
	run.topo = topo;
	run.wl = wl;
	run.procs = procs ? (int)procs : topo->npus;

	struct rt_config cfg = {
		.policy = run.pol,
		.knobs = knobs,
		.procs = run.procs,
		.seed = seed,
		.topo = topo,
		.workload = wl,
	};
	int rc = 0;
	struct rt *rt = run.api->create(&cfg, &e);
	if (!rt) {
		rc = cli_input_error(&e);
	} else {
		run.api->run(rt);
		run.api->result(rt, &run.r);
		run.api->destroy(rt);
		if (json) {
			cJSON *o = report_json(&run);
			rc = write_json(json, o);
			cJSON_Delete(o);
		}
		if (!json || strcmp(json, "-") != 0)
			report_text(&run);
		if (rc == 0)
			rc = rt_result_report_fatal(&run.r, stderr);
	}
	wl_free(wl);
	topo_free(topo);
	free(knobs);
	return rc;
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

int cli_list_workloads(void)
{
	for (int i = 0; i < wl_builtin_count(); i++)
		printf("%-12s %s\n", wl_builtin_name(i), wl_builtin_summary(i));
	return 0;
}
