/* `schedlab run`: one workload under one policy, simulated or native, and
 * its report; the set-up and report `schedlab compare` shares (cli/run.h);
 * `workload expand`, `workload show`, `list policies`, `list workloads`. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "core/policy.h"
#include "topologies/topo.h"
#include "workloads/json.h"
#include "workloads/program.h"
#include "trace/import.h"
#include "trace/trace.h"

void cli_help_run(FILE *f)
{
	fprintf(f,
		"usage: schedlab run -p POLICY -t TOPOLOGY -w WORKLOAD [--procs N] [--seed N]\n"
		"                    [--set KEY=VALUE ...] [--json FILE|-] [--cdf FILE|-] [--native]\n"
		"                    [--schedtrace DUR [--scheddetail]]\n"
		"                    [--max-sim-time T] [--max-wall-time T] [--max-memory SIZE]\n"
		"                    [--trace FILE [--trace-limit N]]\n"
		"\n"
		"Runs a workload under a scheduling policy on a simulated machine (or, with\n"
		"--native, on this one) and prints what it measured.\n"
		"\n"
		"  -p, --policy P     a policy (see `schedlab list policies`)\n"
		"  -t, --topology T   bundled name, \"host\", or a path to hwloc XML or schedlab\n"
		"                     JSON (default: numa4; with --native: host, the only choice)\n"
		"  -w, --workload W   a bundled workload (see `schedlab list workloads`; default\n"
		"                     rpc-server), or a path to a workload, a trace, or a Go\n"
		"                     execution trace (imported: docs/workload-format.md)\n"
		"  --procs N          number of Ps, GOMAXPROCS (default: an imported Go trace's\n"
		"                     GOMAXPROCS if it fits, else the topology's PUs)\n"
		"  --seed N           seed of every random choice (default 1); the same inputs\n"
		"                     and seed give the same simulated run, byte for byte\n"
		"  --set KEY=VALUE    set a policy knob (repeatable; see `schedlab list policies`)\n"
		"  --json FILE|-      write the report as JSON to FILE, or to stdout with -\n"
		"                     (each latency histogram whole: its buckets as [bound_ns,\n"
		"                     count], the mechanisms' counters under \"mechanisms\")\n"
		"  --cdf FILE|-       write every latency distribution as a CDF in CSV to FILE,\n"
		"                     or to stdout with -: distribution,le_ns,count,cum_count,\n"
		"                     cum_frac, a row per non-empty bucket\n"
		"  --native           run on this machine's threads instead of simulating; the\n"
		"                     report's \"host\" says how much CPU the OS gave them, and\n"
		"                     a warning on stderr when the host kept them waiting\n"
		"  --trace FILE       write the run's execution trace to FILE in Go 1.19's\n"
		"                     format: open it with `go tool trace FILE` (docs/tracing.md);\n"
		"                     it never changes a simulated run's report\n"
		"  --trace-limit N    keep at most N trace events (default 4000000, about 56\n"
		"                     bytes each, twice while merging); past it the run is\n"
		"                     reported, no trace is written, and the exit status is 2\n"
		"  --schedtrace DUR   print Go's SCHED line (GODEBUG=schedtrace, Go 1.19's\n"
		"                     format) to stderr every DUR of simulated time (natively:\n"
		"                     wall time); DUR as Go writes durations (500us, 10ms, 1s;\n"
		"                     units ns, us, ms, s, m, h) or plain ns, at least 1us; the\n"
		"                     report is the same with it or without\n"
		"  --scheddetail      with --schedtrace: also the P, M and G lines\n"
		"                     (GODEBUG=scheddetail=1)\n"
		"%s"
		"\n"
		"A simulated run cut at --max-sim-time or --max-wall-time still reports what it\n"
		"did up to the cut, marked \"ended\" in JSON and CUT in the text.\n"
		"\n"
		"Exit status: 0 the run completed; 1 it deadlocked (goroutines were left\n"
		"waiting with nothing to wake them: they are listed with what they wait for);\n"
		"2 bad input, including a workload that panics (a send on a closed channel, a\n"
		"negative WaitGroup counter, an unlock of an unlocked mutex, the memory budget\n"
		"exceeded, and a native run stopped by a limit of the runtime's: \"panic:\n"
		"runtime: out of memory: ...\" when goroutine stacks would exceed half of this\n"
		"machine's memory or leave it less than 1/16 available; \"panic: runtime:\n"
		"failed to create new OS thread\"); 4 the run was cut at a time limit.\n",
		cli_limits_help);
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

/* ---- Limits [docs/runtime.md, "Limits"] ---- */

const char cli_limits_help[] =
	"  --max-sim-time T   cut the run when its simulated clock would pass T (default\n"
	"                     1h, at most 100h; units ns, us, ms, s, min, h)\n"
	"  --max-wall-time T  cut the run when it has run T of real time (default 10min)\n"
	"  --max-memory SIZE  the simulator memory a workload's run may make (goroutines,\n"
	"                     Ms, objects, page records; default and at most 4GiB, at\n"
	"                     least 16MiB; units B, KiB, MiB, GiB): past it the workload\n"
	"                     panics with runtime: out of memory\n";

/* "1.5h" -> ns, or a size "64MiB" -> bytes: a positive number and a unit
 * from units (names and their multipliers), at most max. */
struct unit {
	const char *name;
	double mult;
};

static bool parse_quantity(const char *s, const struct unit *units, double min, double max,
			   double *out)
{
	char *end;
	errno = 0;
	if (!(*s >= '0' && *s <= '9') && *s != '.')
		return false;
	double x = strtod(s, &end);
	if (errno || end == s)
		return false;
	for (const struct unit *u = units; u->name; u++) {
		if (strcmp(end, u->name) != 0)
			continue;
		x *= u->mult;
		if (!(x >= min && x <= max))
			return false;
		*out = x;
		return true;
	}
	return false;
}

static const struct unit time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "min", 60e9 }, { "h", 3600e9 },
	{ NULL, 0 },
};
static const struct unit size_units[] = {
	{ "B", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
	{ "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 }, { NULL, 0 },
};

#define WALL_MAX_NS (8760 * 3600e9)   /* a year */
#define MEMORY_MIN (16u << 20)

bool cli_is_limit_option(const char *a)
{
	return strcmp(a, "--max-sim-time") == 0 || strcmp(a, "--max-wall-time") == 0 ||
	       strcmp(a, "--max-memory") == 0;
}

int cli_parse_limit(const char *cmd, const char *a, const char *v, struct cli_run *run)
{
	double x;
	if (strcmp(a, "--max-sim-time") == 0) {
		if (!parse_quantity(v, time_units, 1, (double)RT_MAX_SIM_NS, &x))
			return cli_usage_error(cmd, "--max-sim-time %s: expected a time from 1ns to "
					       "100h, with a unit (ns, us, ms, s, min or h)", v);
		run->max_sim_ns = (int64_t)x;
	} else if (strcmp(a, "--max-wall-time") == 0) {
		if (!parse_quantity(v, time_units, 1e6, WALL_MAX_NS, &x))
			return cli_usage_error(cmd, "--max-wall-time %s: expected a time from 1ms to "
					       "8760h, with a unit (ns, us, ms, s, min or h)", v);
		run->max_wall_ns = (int64_t)x;
	} else {
		if (!parse_quantity(v, size_units, MEMORY_MIN, (double)RT_MEMORY_BUDGET, &x))
			return cli_usage_error(cmd, "--max-memory %s: expected a size from 16MiB to "
					       "4GiB, with a unit (B, KiB, MiB or GiB)", v);
		run->max_memory = (uint64_t)x;
	}
	return 0;
}

/* A limit as the options spell it: "1h", "10min", "250ms" (in the largest
 * unit that divides it). */
static const char *fmt_limit(char buf[32], int64_t ns)
{
	static const struct unit *const units = time_units;
	int i = 5;
	while (i > 0 && ns % (int64_t)units[i].mult != 0)
		i--;
	snprintf(buf, 32, "%lld%s", (long long)(ns / (int64_t)units[i].mult), units[i].name);
	return buf;
}

int cli_report_cut(const char *cmd, const struct cli_run *run, FILE *f)
{
	const struct rt_result *r = &run->r;
	char lim[32], at[16];
	switch (r->ended) {
	case RT_ENDED_ITSELF:
	case RT_ENDED__COUNT:
		return 0;
	case RT_ENDED_SIM_TIME:
		fprintf(f, "schedlab %s: the run reached its simulated-time limit, %s, and was cut "
			   "there: the report covers it up to that point (--max-sim-time raises the "
			   "limit)\n",
			cmd, fmt_limit(lim, run->max_sim_ns ? run->max_sim_ns : RT_DEFAULT_MAX_SIM_NS));
		break;
	case RT_ENDED_WALL_TIME:
		fprintf(f, "schedlab %s: the run reached its wall-clock limit, %s, and was cut at %s "
			   "of simulated time: the report covers it up to that point (--max-wall-time "
			   "raises the limit)\n",
			cmd, fmt_limit(lim, run->max_wall_ns ? run->max_wall_ns : RT_DEFAULT_MAX_WALL_NS),
			cli_fmt_ns(at, (double)r->makespan_ns));
		break;
	}
	return EXIT_LIMIT;
}

cJSON *cli_latency_json(const struct hist *h)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "p50", (double)hist_quantile(h, 0.50));
	cJSON_AddNumberToObject(o, "p90", (double)hist_quantile(h, 0.90));
	cJSON_AddNumberToObject(o, "p99", (double)hist_quantile(h, 0.99));
	cJSON_AddNumberToObject(o, "p999", (double)hist_quantile(h, 0.999));
	cJSON_AddNumberToObject(o, "max", (double)h->max);
	cJSON_AddNumberToObject(o, "mean", hist_mean(h));
	cJSON_AddItemToObject(o, "buckets", cli_hist_buckets_json(h));
	return o;
}

const char *cli_throughput(const struct rt_result *r, double *per_s)
{
	double s = r->makespan_ns > 0 ? (double)r->makespan_ns / 1e9 : 0;
	bool req = r->requests > 0;
	*per_s = s > 0 ? (double)(req ? r->requests : r->completed) / s : 0.0;
	return req ? "requests/s" : "goroutines/s";
}

/* The cpu breakdown [docs/runtime.md, "The cpu breakdown"]: the OS's view,
 * then each set with its total and its fractions of that total (a set
 * whose total is 0 has none). */
static void cpu_json(cJSON *m, const struct rt_cpu_time *c)
{
	static const char *const sets[2] = { "on_cpu", "off_cpu" };
	cJSON *cpu = cJSON_AddObjectToObject(m, "cpu");
	cJSON_AddNumberToObject(cpu, "span_ns", (double)c->span_ns);
	cJSON_AddNumberToObject(cpu, "pus", c->pus);
	double f;
	if (rt_cpu_busy_pus(c, &f))
		cJSON_AddNumberToObject(cpu, "busy_pus", f);
	if (rt_cpu_busy_frac(c, &f))
		cJSON_AddNumberToObject(cpu, "busy_frac", f);
	if (rt_cpu_futex_frac(c, &f))
		cJSON_AddNumberToObject(cpu, "futex_frac", f);
	cJSON *by = NULL;
	for (int off = 0; off < 2; off++) {
		char key[32];
		snprintf(key, sizeof(key), "%s_ns", sets[off]);
		cJSON_AddNumberToObject(cpu, key, (double)(off ? c->off_ns : c->on_ns));
		if ((off ? c->off_ns : c->on_ns) == 0)
			continue;
		cJSON *set = cJSON_AddObjectToObject(cpu, sets[off]);
		for (int k = 0; k < RT_CPU__COUNT; k++)
			if (rt_cpu_off((enum rt_cpu)k) == off && rt_cpu_frac(c, (enum rt_cpu)k, &f))
				cJSON_AddNumberToObject(set, rt_cpu_names[k], f);
		if (!by)
			by = cJSON_AddObjectToObject(cpu, "lock_wait_by");
		cJSON *cls = cJSON_AddObjectToObject(by, sets[off]);
		for (int k = 0; k < RT_LOCK__COUNT; k++)
			if (rt_lock_frac(c, off, (enum rt_lock_class)k, &f))
				cJSON_AddNumberToObject(cls, rt_lock_names[k], f);
	}
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
	cJSON_AddItemToObject(o, "calibration", run->topo->calibration ?
			      cJSON_CreateString(run->topo->calibration) : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "workload", run->wl->name);
	cJSON_AddNumberToObject(o, "seed", (double)run->seed);
	cJSON_AddNumberToObject(o, "procs", run->procs);

	cJSON *m = cJSON_AddObjectToObject(o, "metrics");
	cJSON_AddNumberToObject(m, "makespan_ns", (double)r->makespan_ns);
	cJSON_AddNumberToObject(m, "goroutines", (double)r->goroutines);
	cJSON_AddNumberToObject(m, "completed", (double)r->completed);
	cJSON_AddNumberToObject(m, "runs", (double)r->runs);
	cJSON_AddNumberToObject(m, "blocks", (double)r->blocks);
	cJSON_AddBoolToObject(m, "deadlock", r->deadlock);
	if (r->panicked)
		cJSON_AddStringToObject(m, "panic", r->panic);
	if (r->ended != RT_ENDED_ITSELF)
		cJSON_AddStringToObject(m, "ended", rt_ended_names[r->ended]);
	if (r->sched_latency.count)
		cJSON_AddItemToObject(m, "sched_latency_ns", cli_latency_json(&r->sched_latency));
	if (run->wl->recorded.present)
		cJSON_AddItemToObject(o, "recorded", cli_recorded_json(run->wl, r));
	if (r->requests) {
		cJSON_AddNumberToObject(m, "requests", (double)r->requests);
		cJSON_AddItemToObject(m, "request_latency_ns", cli_latency_json(&r->request_latency));
	}
	double tput;
	const char *tunit = cli_throughput(r, &tput);
	cJSON_AddNumberToObject(m, "throughput_per_s", tput);
	cJSON_AddStringToObject(m, "throughput_unit", tunit);
	if (r->cpu.measured)
		cpu_json(m, &r->cpu);
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
		cJSON_AddNumberToObject(th, "parked_ns", (double)r->cpu.ns[RT_CPU_PARKED]);
	cJSON *sm = cJSON_AddObjectToObject(m, "sysmon");
	cJSON_AddNumberToObject(sm, "preemptions", (double)r->preemptions);
	cJSON_AddNumberToObject(sm, "retakes", (double)r->retakes);
	cli_mech_json(m, &run->mech);
	cli_host_json(o, &r->host);
	return o;
}

/* The text summary: one row per metric, labels in a column of their own. */
#define LABEL "%-16s"

/* A duration in at most 9 characters, in the unit that suits it. */
const char *cli_fmt_ns(char buf[16], double ns)
{
	double scale;
	int decimals;
	const char *unit = str_ns_unit(ns, &scale, &decimals);
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
	[RT_CPU_LOCK_SPIN] = "lock wait",
	[RT_CPU_LOCK_SLEEP] = "lock wait",
	[RT_CPU_SYSCALL] = "syscall",
	[RT_CPU_PARKED] = "parked",
};

static const char *const lock_labels[RT_LOCK__COUNT] = {
	[RT_LOCK_SCHED] = "scheduler",
	[RT_LOCK_CHAN] = "channels",
	[RT_LOCK_SYNC] = "sync queues",
	[RT_LOCK_NET] = "netpoller",
	[RT_LOCK_TIMERS] = "timers",
};

/* The cpu breakdown as text: the OS's view, then each set's total and its
 * parts as percentages of it; under lock wait, whose locks, where there
 * was any wait (a share under 0.05% prints as nothing rather than as
 * 0.0%). */
static void cpu_text(const struct rt_cpu_time *c)
{
	char b[16];
	double f;
	printf(LABEL "span %.3f ms, %d PUs\n", "cpu", (double)c->span_ns / 1e6, c->pus);
	if (rt_cpu_busy_pus(c, &f)) {
		double frac = 0;
		rt_cpu_busy_frac(c, &frac);
		printf("  %-14s%.2f PUs on average (%.1f%% of the machine)", "busy", f, 100.0 * frac);
		if (rt_cpu_futex_frac(c, &f))
			printf(", %.1f%% of it in futex calls", 100.0 * f);
		printf("\n");
	}
	for (int off = 0; off < 2; off++) {
		uint64_t total = off ? c->off_ns : c->on_ns;
		printf("  %-14s%s, every M\n", off ? "off CPU" : "on CPU", cli_fmt_ns(b, (double)total));
		for (int k = 0; k < RT_CPU__COUNT; k++) {
			if (rt_cpu_off((enum rt_cpu)k) != off || !rt_cpu_frac(c, (enum rt_cpu)k, &f))
				continue;
			printf("    %-12s%6.1f%%\n", cpu_labels[k], 100.0 * f);
			if ((k != RT_CPU_LOCK_SPIN && k != RT_CPU_LOCK_SLEEP) || c->ns[k] == 0)
				continue;
			for (int l = 0; l < RT_LOCK__COUNT; l++)
				if (rt_lock_frac(c, off, (enum rt_lock_class)l, &f) && f >= 0.0005)
					printf("      %-10s%6.1f%%\n", lock_labels[l], 100.0 * f);
		}
	}
}

/* An imported Go trace's own figures beside the prediction's: the
 * makespan's error, the goroutines (the replay's has one more: its main,
 * which starts those alive when tracing began), scheduling latency. */
void cli_recorded_text(const struct workload *wl, const struct rt_result *r)
{
	const struct wl_recorded *rec = &wl->recorded;
	if (!rec->present)
		return;
	printf("recorded        Go %s trace, GOMAXPROCS %d\n", rec->go[0] ? rec->go : "?",
	       rec->gomaxprocs);
	printf("  makespan      %.3f ms", (double)rec->makespan_ns / 1e6);
	if (rec->makespan_ns > 0)
		printf(", predicted %+.1f%%",
		       100.0 * ((double)r->makespan_ns - (double)rec->makespan_ns) /
			       (double)rec->makespan_ns);
	printf("\n  goroutines    %lld (the replay adds 1: its main, trace)\n",
	       (long long)rec->goroutines);
	if (rec->lat_p50_ns || rec->lat_p99_ns) {
		printf("  scheduling    p50 %.1f us, p99 %.1f us", (double)rec->lat_p50_ns / 1e3,
		       (double)rec->lat_p99_ns / 1e3);
		if (r->sched_latency.count)
			printf("; predicted p50 %.1f us, p99 %.1f us",
			       (double)hist_quantile(&r->sched_latency, 0.5) / 1e3,
			       (double)hist_quantile(&r->sched_latency, 0.99) / 1e3);
		printf("\n");
	}
}

/* r NULL: the recorded figures alone (compare: one per policy would repeat them). */
cJSON *cli_recorded_json(const struct workload *wl, const struct rt_result *r)
{
	const struct wl_recorded *rec = &wl->recorded;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "go", rec->go);
	cJSON_AddNumberToObject(o, "gomaxprocs", rec->gomaxprocs);
	cJSON_AddNumberToObject(o, "makespan_ns", (double)rec->makespan_ns);
	cJSON_AddNumberToObject(o, "goroutines", (double)rec->goroutines);
	cJSON *l = cJSON_AddObjectToObject(o, "sched_latency_ns");
	cJSON_AddNumberToObject(l, "p50", (double)rec->lat_p50_ns);
	cJSON_AddNumberToObject(l, "p99", (double)rec->lat_p99_ns);
	if (r && rec->makespan_ns > 0)
		cJSON_AddNumberToObject(o, "makespan_error",
					((double)r->makespan_ns - (double)rec->makespan_ns) /
						(double)rec->makespan_ns);
	return o;
}

/* Ps for a run: --procs, else an imported trace's GOMAXPROCS (at most
 * the machine's PUs), else every PU. */
int cli_default_procs(const struct workload *wl, const struct topo *t, long given)
{
	if (given)
		return (int)given;
	int rec = wl ? wl->recorded.gomaxprocs : 0;
	return rec > 0 && rec <= t->npus ? rec : t->npus;
}

void cli_report_text(const struct cli_run *run)
{
	const struct rt_result *r = &run->r;
	printf("%s run: policy %s, topology %s, workload %s, %d Ps, seed %llu\n", run->api->mode,
	       run->pol->name, run->topo->name, run->wl->name, run->procs,
	       (unsigned long long)run->seed);
	printf(LABEL "%.3f ms%s\n", "makespan", (double)r->makespan_ns / 1e6,
	       r->ended == RT_ENDED_SIM_TIME    ? ", CUT at the simulated-time limit"
	       : r->ended == RT_ENDED_WALL_TIME ? ", CUT at the wall-clock limit"
						: "");
	printf(LABEL "%llu made, %llu completed%s\n", "goroutines", (unsigned long long)r->goroutines,
	       (unsigned long long)r->completed, r->deadlock ? ", DEADLOCK" : "");
	double tput;
	const char *tunit = cli_throughput(r, &tput);
	printf(LABEL "%.1f %s\n", "throughput", tput, tunit);
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

	cli_recorded_text(run->wl, r);
	if (r->cpu.measured)
		cpu_text(&r->cpu);
	cli_host_text(&r->host);

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
		printf(", %.3f ms parked", (double)r->cpu.ns[RT_CPU_PARKED] / 1e6);
	printf("\n");
	printf(LABEL "%llu preemptions, %llu Ps retaken from system calls\n", "sysmon",
	       (unsigned long long)r->preemptions, (unsigned long long)r->retakes);
	cli_mech_text(&run->mech);
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

static int run_main(int argc, char **argv, const char *cmd, const char *expand);

static int write_trace(const char *cmd, const char *path, const struct workload *wl, uint64_t seed,
		       const struct rt_api *api, struct rt *rt)
{
	const struct rt_draw *recs;
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

/* `schedlab workload import TRACE [-o FILE]': a Go execution trace as a
 * workload (trace/import.c), to stdout or FILE. */
static int workload_import(int argc, char **argv)
{
	const char *in = NULL, *out = "-";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
			if (i + 1 >= argc)
				return cli_usage_error("workload", "import: %s needs a file name (or -)",
						       argv[i]);
			out = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("workload", "import: unknown option %s", argv[i]);
		} else if (in) {
			return cli_usage_error("workload", "import: one trace at a time (%s, then %s)",
					       in, argv[i]);
		} else {
			in = argv[i];
		}
	}
	if (!in)
		return cli_usage_error("workload", "import: expected a Go execution trace: workload "
				       "import TRACE [-o FILE]");
	struct err e;
	FILE *f = stdout;
	char *tmp = NULL;
	if (strcmp(out, "-") != 0) {
		/* Written beside FILE and renamed: a failed import leaves no
		 * half workload behind. */
		tmp = xasprintf("%s.tmp.%d", out, (int)getpid());
		f = fopen(tmp, "w");
		if (!f) {
			fprintf(stderr, "schedlab: %s: %s\n", out, strerror(errno));
			free(tmp);
			return 2;
		}
	}
	struct ti_stats st;
	char *name = path_stem(in);
	bool ok = ti_import(in, name, f, &st, &e);
	free(name);
	if (tmp) {
		if (fclose(f) != 0 && ok) {
			err_set(&e, "%s: %s", out, strerror(errno));
			ok = false;
		}
		if (ok && rename(tmp, out) != 0) {
			err_set(&e, "%s: %s", out, strerror(errno));
			ok = false;
		}
		if (!ok)
			unlink(tmp);
		free(tmp);
	}
	if (!ok) {
		fprintf(stderr, "schedlab: %s\n", e.msg);
		return 2;
	}
	fprintf(stderr, "imported %s (%s): %" PRIu64 " events, %" PRIu64 " goroutines (%" PRIu64
		" of the runtime left out) as %" PRIu64 " programs, GOMAXPROCS %d, %.3f ms recorded\n",
		in, st.go, st.events, st.goroutines, st.internal, st.programs, st.gomaxprocs,
		(double)st.makespan_ns / 1e6);
	return 0;
}

/* `schedlab workload expand W ...': W's run as a trace. */
int cmd_workload(int argc, char **argv)
{
	/* `workload show --help` and `workload expand --help` too: expand's
	 * later options reach run_main, which answers --help itself */
	int h = argc >= 3 && (strcmp(argv[1], "show") == 0 || strcmp(argv[1], "expand") == 0) ? 2 : 1;
	for (int i = 2; argc >= 2 && strcmp(argv[1], "import") == 0 && i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			h = i;
	if (argc > h && (strcmp(argv[h], "-h") == 0 || strcmp(argv[h], "--help") == 0)) {
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
	if (argc >= 2 && strcmp(argv[1], "import") == 0)
		return workload_import(argc - 1, argv + 1);
	if (argc < 3 || strcmp(argv[1], "expand") != 0 || argv[2][0] == '-')
		return cli_usage_error("workload", "expected: workload expand WORKLOAD [options], "
				       "workload import TRACE [-o FILE], or workload show NAME");
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
		"                [--max-sim-time T] [--max-wall-time T] [--max-memory SIZE]\n"
		"       schedlab workload import TRACE [-o FILE|-]\n"
		"       schedlab workload show NAME\n"
		"\n"
		"show prints a bundled workload's JSON, to start a new one from.\n"
		"\n"
		"import reads a Go execution trace (`go test -trace t.out', runtime/trace; Go\n"
		"1.11-1.20 and 1.22+ formats) and writes it as a workload (JSON, to stdout by\n"
		"default): each goroutine a program of its compute, spawns, wake-up edges,\n"
		"sleeps, network waits and system calls, and the recorded figures in its\n"
		"\"recorded\" key.  `run -w TRACE' (and compare, sweep) import on the fly.\n"
		"See docs/workload-format.md, \"Imported traces\".\n"
		"\n"
		"Simulates WORKLOAD and writes it as a trace (JSON lines, to stdout by default):\n"
		"the workload's document and seed, then every random stream's sampled values in\n"
		"the order drawn.  A trace is itself a workload: `schedlab run -w TRACE' replays\n"
		"those values instead of sampling, and gives the report the workload gives with\n"
		"that seed.  The policy (default steal), topology and procs choose the run the\n"
		"values are drawn in; a workload whose control flow does not depend on\n"
		"scheduling draws the same values under any of them.  The limits are run's\n"
		"(see `schedlab run --help`); a run cut at a time limit writes no trace (exit\n"
		"4), and the recorded draws count against --max-memory.\n");
}

/* run's own options beside the shared ones: --native, --json,
 * --schedtrace and --scheddetail; expand's, -o. */
struct run_own {
	const char *expand;            /* -o (workload expand), or NULL for run */
	bool native;
	const char *json;
	const char *trace;             /* --trace FILE */
	const char *trace_limit;       /* --trace-limit N */
	const char *cdf;               /* --cdf */
	int64_t schedtrace_ns;
	bool scheddetail;
};

/* --schedtrace's DUR: a Go duration of one unit ("500us", "1.5ms", "2s")
 * or plain ns, from 1us (a snapshot every simulated ns would print more
 * than the run does) to the longest simulated run. */
static const struct unit go_time_units[] = {
	{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	{ "m", 60e9 }, { "h", 3600e9 }, { NULL, 0 },
};

static int parse_schedtrace(const char *cmd, const char *v, int64_t *out)
{
	double x;
	if (!parse_quantity(v, go_time_units, 1e3, (double)RT_MAX_SIM_NS, &x) || x != (double)(int64_t)x)
		return cli_usage_error(cmd, "--schedtrace %s: expected a duration from 1us to 100h, "
				       "as Go writes it (500us, 10ms, 1s; units ns, us, ms, s, m, h) "
				       "or in whole ns", v);
	*out = (int64_t)x;
	return 0;
}

int cli_parse_duration(const char *cmd, const char *opt, const char *v, int64_t min_ns,
		       int64_t *out)
{
	double x;
	if (!parse_quantity(v, go_time_units, (double)min_ns, (double)RT_MAX_SIM_NS, &x) ||
	    x != (double)(int64_t)x)
		return cli_usage_error(cmd, "%s %s: expected a duration from %lld ns to 100h, as Go "
				       "writes it (500us, 10ms, 1s; units ns, us, ms, s, m, h) or in "
				       "whole ns", opt, v, (long long)min_ns);
	*out = (int64_t)x;
	return 0;
}

static int run_own_kind(void *ctx, const char *a)
{
	struct run_own *r = ctx;
	if (strcmp(a, "--native") == 0 && !r->expand) {
		r->native = true;
		return CLI_OWN_FLAG;
	}
	if ((strcmp(a, "--json") == 0 || strcmp(a, "--cdf") == 0 || strcmp(a, "--trace") == 0 ||
	     strcmp(a, "--trace-limit") == 0) && !r->expand)
		return CLI_OWN_VALUE;
	if (strcmp(a, "--schedtrace") == 0 && !r->expand)
		return CLI_OWN_VALUE;
	if (strcmp(a, "--scheddetail") == 0 && !r->expand) {
		r->scheddetail = true;
		return CLI_OWN_FLAG;
	}
	if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && r->expand)
		return CLI_OWN_VALUE;
	return CLI_OWN_NONE;
}

static int run_own_value(void *ctx, const char *a, const char *v)
{
	struct run_own *r = ctx;
	if (strcmp(a, "--json") == 0)
		r->json = v;
	else if (strcmp(a, "--trace") == 0)
		r->trace = v;
	else if (strcmp(a, "--trace-limit") == 0)
		r->trace_limit = v;
	else if (strcmp(a, "--cdf") == 0)
		r->cdf = v;
	else if (strcmp(a, "--schedtrace") == 0)
		return parse_schedtrace("run", v, &r->schedtrace_ns);
	else
		r->expand = v;
	return 0;
}

/* --trace FILE: Go's format, or Chrome's JSON for a name ending in .json.
 * The one place that picks the writer. */
static bool (*trace_writer(const char *path))(FILE *, const struct rt_trace *, struct err *)
{
	size_t n = strlen(path);
	if (n >= 5 && strcmp(path + n - 5, ".json") == 0)
		return trace_write_chrome;
	return trace_write_go;
}

static int trace_check_name(const char *cmd, const char *path)
{
	if (strcmp(path, "-") == 0)
		return cli_usage_error(cmd, "--trace -: name a file (its name chooses the format: "
				       "FILE.json Chrome's JSON trace events, any other Go's)");
	return 0;
}

/* Writes the run's trace to path (claimed); 0, or EXIT_BADINPUT with the
 * reason on stderr (the trace passed its limit, or a write failed). */
int cli_write_exec_trace(const char *cmd, const char *path, const struct rt_api *api,
			 struct rt *rt)
{
	struct rt_trace t;
	struct err e = { "" };
	char *shown = str_shown(path, 512);
	int rc = 0;
	if (!api->trace(rt, &t, &e)) {
		fprintf(stderr, "schedlab %s: --trace %s: %s\n", cmd, shown, e.msg);
		rc = EXIT_BADINPUT;
		goto out;
	}
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "schedlab %s: --trace %s: %s\n", cmd, shown, strerror(errno));
		rc = EXIT_BADINPUT;
		goto out;
	}
	bool ok = trace_writer(path)(f, &t, &e);
	if (fclose(f) != 0 && ok) {
		ok = false;
		err_set(&e, "%s", strerror(errno));
	}
	if (!ok) {
		fprintf(stderr, "schedlab %s: --trace %s: %s\n", cmd, shown, e.msg);
		rc = EXIT_BADINPUT;
	}
out:
	free(shown);
	return rc;
}

/* `run', and `workload expand' (expand: where the trace goes; the run is
 * simulated and reports nothing else). */
static int run_main(int argc, char **argv, const char *cmd, const char *expand)
{
	struct cli_run run = { .seed = 0 };
	struct cli_opts o = { .cmd = cmd, .policy = expand ? "steal" : NULL, .limits = &run };
	struct run_own own = { .expand = expand };
	const struct cli_own own_ops = {
		expand ? cli_help_workload : cli_help_run, run_own_kind, run_own_value, &own,
	};
	int rc = cli_parse_options(&o, argc, argv, &own_ops);
	if (rc || o.help)
		return rc;
	bool native = own.native;
	const char *json = own.json;
	expand = own.expand;
	if (!o.policy)
		return cli_usage_error(cmd, "missing -p POLICY");
	if (native && o.topology && strcmp(o.topology, "host") != 0)
		return cli_usage_error(cmd, "--native runs on this machine: -t must be host, not '%s'",
				       o.topology);
	if (own.scheddetail && !own.schedtrace_ns)
		return cli_usage_error(cmd, "--scheddetail: only with --schedtrace DUR (it adds "
				       "lines to the SCHED lines)");
	if (native && o.time_limit)
		return cli_usage_error(cmd, "%s: only a simulated run is cut at a time limit, not a "
				       "--native one", o.time_limit);
	uint64_t trace_limit = 0;
	if (own.trace_limit) {
		if (!own.trace)
			return cli_usage_error(cmd, "--trace-limit %s: there is no --trace FILE to limit",
					       own.trace_limit);
		if (!cli_parse_u64(own.trace_limit, UINT64_MAX / 2, &trace_limit) || trace_limit == 0)
			return cli_usage_error(cmd, "--trace-limit %s: not a positive number of events",
					       own.trace_limit);
	}
	if (own.trace) {
		rc = trace_check_name(cmd, own.trace);
		if (rc)
			return rc;
		if (json && strcmp(json, own.trace) == 0 && strcmp(json, "-") != 0)
			return cli_usage_error(cmd, "--json and --trace both name %s", json);
	}
	int claim = json ? cli_out_claim(cmd, "--json", json)
		  : expand ? cli_out_claim(cmd, "-o", expand) : 0;
	if (!claim && own.cdf) {
		if (json && strcmp(json, "-") == 0 && strcmp(own.cdf, "-") == 0)
			return cli_usage_error(cmd, "--cdf -: stdout is --json's already");
		claim = cli_out_claim(cmd, "--cdf", own.cdf);
	}
	if (!claim && own.trace)
		claim = cli_out_claim(cmd, "--trace", own.trace);
	if (claim)
		return claim;
	run.trace = own.trace != NULL;
	run.trace_limit = trace_limit;

	run.api = native ? &nat__rt_api : &sim__rt_api;
	run.seed = o.seed;
	run.schedtrace_ns = own.schedtrace_ns;
	run.scheddetail = own.scheddetail;
	run.pol = run.api->pol_find(o.policy);
	if (!run.pol) {
		char names[256];
		cli_policy_names(run.api, names, sizeof(names));
		return cli_usage_error(cmd, "-p %s: no such policy (policies: %s)", o.policy, names);
	}
	int64_t *knobs = cli_knobs_new(run.pol);
	struct topo *topo = NULL;
	struct workload *wl = NULL;
	struct rt *rt = NULL;
	struct err e = { "" };
	for (int i = 0; i < o.nsets; i++) {
		if (!pol_set_knob(run.pol, knobs, o.sets[i], &e)) {
			rc = cli_usage_error(cmd, "%s", e.msg);
			goto out;
		}
	}
	run.knobs = knobs;

	bool is_trace;
	uint64_t trace_seed;
	rc = cli_load_inputs(native ? "host" : o.topology, o.workload, &topo, &wl, &is_trace,
			     &trace_seed);
	if (rc)
		goto out;
	if (is_trace) {
		/* the trace's draws are its seed's: a replay under another seed
		 * would mix them with other scheduling choices */
		rc = cli_check_trace_seed(&o, trace_seed);
		if (rc)
			goto out;
		run.seed = trace_seed;
		if (expand) {
			rc = cli_usage_error(cmd, "%s is already a trace", o.workload);
			goto out;
		}
	}
	if (expand && !wl->source_json) {
		rc = cli_usage_error(cmd, "%s is built in C, not written in the workload language: "
				     "it has nothing to expand", o.workload);
		goto out;
	}
	run.topo = topo;
	run.wl = wl;
	run.procs = cli_default_procs(wl, topo, (long)o.procs);

	rt = cli_run_exec(&run, expand != NULL, &e);
	if (!rt) {
		rc = cli_input_error(&e);
	} else if (expand) {
		/* a cut run's trace would end where it was cut: no trace */
		rc = rt_result_report_fatal(&run.r, stderr);
		if (rc == 0)
			rc = cli_report_cut(cmd, &run, stderr);
		if (rc == 0)
			rc = write_trace(cmd, expand, wl, run.seed, run.api, rt);
	} else {
		if (json) {
			cJSON *report = cli_report_json(&run);
			rc = cli_write_json(cmd, json, report);
			cJSON_Delete(report);
		}
		if (rc == 0 && own.cdf)
			rc = cli_write_cdf(cmd, own.cdf, &run);
		if ((!json || strcmp(json, "-") != 0) && (!own.cdf || strcmp(own.cdf, "-") != 0))
			cli_report_text(&run);
		cli_host_warn(stderr, &run.r.host);
		if (own.trace) {
			int trc = cli_write_exec_trace(cmd, own.trace, run.api, rt);
			if (rc == 0)
				rc = trc;
		}
		if (rc == 0)
			rc = rt_result_report_fatal(&run.r, stderr);
		if (rc == 0)
			rc = cli_report_cut(cmd, &run, stderr);
	}
out:
	if (rt)
		run.api->destroy(rt);
	rt_mech_free(&run.mech);
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

int cli_item_policy(const char *cmd, const struct rt_api *api, const char *item,
		    const char *what, long nth, const struct pol_ops **pol)
{
	size_t n = strcspn(item, ":");
	char *name = xmalloc(n + 1);
	memcpy(name, item, n);
	name[n] = '\0';
	*pol = api->pol_find(name);
	int rc = 0;
	if (!*pol) {
		char names[256];
		cli_policy_names(api, names, sizeof(names));
		rc = cli_usage_error(cmd, "-p %s (%s %ld): no such policy '%s' (policies: %s)", item,
				     what, nth, name, names);
	}
	free(name);
	return rc;
}

int cli_item_knobs(const char *cmd, const char *item, const char *what, long nth,
		   const struct pol_ops *pol, int64_t *knobs, cJSON *given)
{
	const char *own = strchr(item, ':');
	if (!own)
		return 0;
	char *copy = xstrdup(own + 1);
	int rc = 0;
	struct err e = { "" };
	for (char *a = copy, *end; a && rc == 0; a = end) {
		end = strchr(a, ':');
		if (end)
			*end++ = '\0';
		const char *eq = strchr(a, '=');
		int k;
		if (*a == '\0') {
			rc = cli_usage_error(cmd, "-p %s (%s %ld): an empty KEY=VALUE", item, what, nth);
		} else if (!eq || eq == a) {
			rc = cli_usage_error(cmd, "-p %s (%s %ld): '%s' is not KEY=VALUE", item, what,
					     nth, a);
		} else if (!pol_set_knob(pol, knobs, a, &e)) {
			/* pol_set_knob says "--set KEY=VALUE: problem"; here the
			 * assignment came from -p */
			char prefix[256];
			snprintf(prefix, sizeof(prefix), "--set %s: ", a);
			const char *msg = e.msg;
			if (strncmp(msg, prefix, strlen(prefix)) == 0)
				msg += strlen(prefix);
			rc = cli_usage_error(cmd, "-p %s (%s %ld): %s: %s", item, what, nth, a, msg);
		} else if (given) {
			char key[128];
			snprintf(key, sizeof(key), "%.*s", (int)(eq - a), a);
			if (pol_knob(pol, key, &k)) {
				cJSON_DeleteItemFromObjectCaseSensitive(given, key);
				cJSON_AddNumberToObject(given, key, (double)knobs[k]);
			}
		}
	}
	free(copy);
	return rc;
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
	struct wlr_args args = { .workload = run->wl, .record_draws = record_draws };
	struct rt_config cfg = {
		.policy = run->pol,
		.knobs = run->knobs,
		.procs = run->procs,
		.seed = run->seed,
		.topo = run->topo,
		.body = run->api->body,
		.body_arg = &args,
		.max_sim_ns = run->max_sim_ns,
		.max_wall_ns = run->max_wall_ns,
		.max_memory = run->max_memory,
		.trace = run->trace,
		.trace_limit = run->trace_limit,
		.schedtrace_ns = run->schedtrace_ns,
		.scheddetail = run->scheddetail,
		.explore = run->explore,
	};
	struct rt *rt = run->api->create(&cfg, e);
	if (rt) {
		run->api->run(rt);
		run->api->result(rt, &run->r);
		rt_mech_free(&run->mech);
		run->api->mech(rt, &run->mech);
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
