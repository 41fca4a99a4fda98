/* A run's report: the JSON object of DESIGN.md ("Report") and the text
 * summary `schedlab run` prints (run.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "run/run.h"
#include "topologies/topo.h"
#include "workloads/program.h"

/* A limit as the options spell it: "1h", "10min", "250ms" (in the largest
 * unit that divides it). */
static const char *fmt_limit(char buf[32], int64_t ns)
{
	static const struct {
		const char *name;
		int64_t mult;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
		      { "min", 60000000000 }, { "h", 3600000000000 } };
	int i = 5;
	while (i > 0 && ns % units[i].mult != 0)
		i--;
	snprintf(buf, 32, "%lld%s", (long long)(ns / units[i].mult), units[i].name);
	return buf;
}

int run_report_cut(const char *cmd, const struct run *run, FILE *f)
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
			cmd, fmt_limit(lim, run->lim.max_sim_ns ? run->lim.max_sim_ns : RT_DEFAULT_MAX_SIM_NS));
		break;
	case RT_ENDED_WALL_TIME:
		fprintf(f, "schedlab %s: the run reached its wall-clock limit, %s, and was cut at %s "
			   "of simulated time: the report covers it up to that point (--max-wall-time "
			   "raises the limit)\n",
			cmd, fmt_limit(lim, run->lim.max_wall_ns ? run->lim.max_wall_ns : RT_DEFAULT_MAX_WALL_NS),
			run_fmt_ns(at, (double)r->makespan_ns));
		break;
	}
	return EXIT_LIMIT;
}

cJSON *run_latency_json(const struct hist *h)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "p50", (double)hist_quantile(h, 0.50));
	cJSON_AddNumberToObject(o, "p90", (double)hist_quantile(h, 0.90));
	cJSON_AddNumberToObject(o, "p99", (double)hist_quantile(h, 0.99));
	cJSON_AddNumberToObject(o, "p999", (double)hist_quantile(h, 0.999));
	cJSON_AddNumberToObject(o, "max", (double)h->max);
	cJSON_AddNumberToObject(o, "mean", hist_mean(h));
	cJSON_AddItemToObject(o, "buckets", run_hist_buckets_json(h));
	return o;
}

const char *run_throughput(const struct rt_result *r, double *per_s)
{
	double s = r->makespan_ns > 0 ? (double)r->makespan_ns / 1e9 : 0;
	bool req = r->requests > 0;
	*per_s = s > 0 ? (double)(req ? r->requests : r->completed) / s : 0.0;
	return req ? "requests/s" : "goroutines/s";
}

bool run_request_load(const struct rt_result *r, struct run_request_load *l)
{
	memset(l, 0, sizeof(*l));
	if (r->requests == 0 || r->offered == 0)
		return false;
	l->span_ns = r->offered_last_ns - r->offered_first_ns;
	l->drain_ns = r->request_answered_ns - r->offered_last_ns;
	if (l->span_ns > 0)
		l->arrival_per_s = (double)r->offered / ((double)l->span_ns / 1e9);
	double p50 = (double)hist_quantile(&r->request_latency, 0.5);
	/* a drain longer than the arrivals' own span is overload whatever the
	 * latency; a shorter one only where it is also far beyond a typical
	 * answer (a short span's healthy drain is a few sessions long) */
	l->overloaded = r->requests >= 100 && l->span_ns > 0 &&
			(l->drain_ns > l->span_ns ||
			 (l->drain_ns * 4 > l->span_ns && (double)l->drain_ns > 10 * p50));
	return true;
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
	if (rt_cpu_netpoll_frac(c, &f))
		cJSON_AddNumberToObject(cpu, "netpoll_frac", f);
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
cJSON *run_report_json(const struct run *run)
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
	run_os_limits_json(o, run);

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
		cJSON_AddItemToObject(m, "sched_latency_ns", run_latency_json(&r->sched_latency));
	if (run->wl->recorded.present)
		cJSON_AddItemToObject(o, "recorded", run_recorded_json(run->wl, r, &run->mech));
	if (r->requests) {
		cJSON_AddNumberToObject(m, "requests", (double)r->requests);
		cJSON_AddItemToObject(m, "request_latency_ns", run_latency_json(&r->request_latency));
		struct run_request_load l;
		if (run_request_load(r, &l)) {
			cJSON *lo = cJSON_AddObjectToObject(m, "request_load");
			cJSON_AddNumberToObject(lo, "connections", (double)r->offered);
			cJSON_AddNumberToObject(lo, "arrival_span_ns", (double)l.span_ns);
			cJSON_AddNumberToObject(lo, "arrival_per_s", l.arrival_per_s);
			cJSON_AddNumberToObject(lo, "drain_ns", (double)l.drain_ns);
			cJSON_AddBoolToObject(lo, "overloaded", l.overloaded);
		}
	}
	double tput;
	const char *tunit = run_throughput(r, &tput);
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
	run_mech_json(m, &run->mech);
	run_host_json(o, &r->host);
	run_os_json(o, &r->os);
	run_why_json(o, &run->mech);
	return o;
}

/* The text summary: one row per metric, labels in a column of their own. */
#define LABEL "%-16s"

/* A duration in at most 9 characters, in the unit that suits it. */
const char *run_fmt_ns(char buf[16], double ns)
{
	double scale;
	int decimals;
	const char *unit = str_ns_unit(ns, &scale, &decimals);
	snprintf(buf, 16, "%.*f %s", decimals, ns / scale, unit);
	return buf;
}

void run_latency_row(const char *label, bool count, const struct hist *h)
{
	char b[7][16];
	printf("  %-14s", label);
	if (count) {
		snprintf(b[6], sizeof(b[6]), "%llu", (unsigned long long)h->count);
		printf("%10s", b[6]);
	}
	printf("%10s%10s%10s%10s%10s%10s\n", run_fmt_ns(b[0], (double)hist_quantile(h, 0.5)),
	       run_fmt_ns(b[1], (double)hist_quantile(h, 0.9)),
	       run_fmt_ns(b[2], (double)hist_quantile(h, 0.99)),
	       run_fmt_ns(b[3], (double)hist_quantile(h, 0.999)), run_fmt_ns(b[4], (double)h->max),
	       run_fmt_ns(b[5], hist_mean(h)));
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
		if (rt_cpu_netpoll_frac(c, &f))
			printf(", %.1f%% in epoll_wait's ready events", 100.0 * f);
		printf("\n");
	}
	for (int off = 0; off < 2; off++) {
		uint64_t total = off ? c->off_ns : c->on_ns;
		printf("  %-14s%s, every M\n", off ? "off CPU" : "on CPU", run_fmt_ns(b, (double)total));
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
/* A replayed wake-up reason's waits: count and mean, from the mechanisms'
 * histogram (none: 0). */
static uint64_t replayed_waits(const struct rt_mech *mech, int k, double *mean)
{
	const struct hist *h = mech ? mech->latency_by_why[k] : NULL;
	*mean = h && h->count ? h->sum / (double)h->count : 0;
	return h ? h->count : 0;
}

/* The share of the waits' time with a P that had no G: recorded, and
 * replayed where the run was followed (--why); NAN where not known. */
static double replayed_free_share(const struct rt_mech *mech)
{
	const struct rt_why *w = mech ? mech->why : NULL;
	return w && w->all.total_ns ? (double)w->wait_p_free_ns / (double)w->all.total_ns : NAN;
}

static void recorded_waits_text(const struct wl_recorded *rec, const struct rt_mech *mech)
{
	char a[16], b[16];
	printf("  wake-ups      %16s %10s %16s %10s\n", "recorded count", "mean", "replayed count",
	       "mean");
	for (int k = 0; k < RT_RUN__COUNT; k++) {
		double mean;
		uint64_t n = replayed_waits(mech, k, &mean);
		if (!rec->wake_n[k] && !n)
			continue;
		printf("    %-12s%16lld %10s %16llu %10s\n", rt_run_why_names[k],
		       (long long)rec->wake_n[k],
		       run_fmt_ns(a, rec->wake_n[k] ? (double)rec->wake_ns[k] / (double)rec->wake_n[k]
						    : 0),
		       (unsigned long long)n, run_fmt_ns(b, mean));
	}
	if (rec->wait_ns > 0) {
		printf("  a P with no G %.1f%% of the waits' time recorded",
		       100.0 * (double)rec->wait_p_free_ns / (double)rec->wait_ns);
		double f = replayed_free_share(mech);
		if (isnan(f))
			printf(" (the replay's with --why)\n");
		else
			printf(", %.1f%% replayed\n", 100.0 * f);
	}
}

void run_recorded_text(const struct workload *wl, const struct rt_result *r,
		       const struct rt_mech *mech)
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
	if (rec->has_waits)
		recorded_waits_text(rec, mech);
	if (rec->has_inferred) {
		printf("  inferred      %lld shared channel%s", (long long)rec->shared,
		       rec->shared == 1 ? "" : "s");
		if (rec->shared)
			printf(" (%lld goroutines take from %s, %lld wake-ups, %lld of them a blocked "
			       "send's; %lld carr%s the jobs; the busiest at %s)",
			       (long long)rec->takers, rec->shared == 1 ? "it" : "them",
			       (long long)rec->wake_ups, (long long)rec->backpressure,
			       (long long)rec->jobs, rec->jobs == 1 ? "ies" : "y", rec->site);
		printf(", %lld pair%s kept\n", (long long)rec->pairs, rec->pairs == 1 ? "" : "s");
		printf("  not in it     the memory a goroutine touches, a timer's due instant, what a "
		       "send carried\n");
	}
}

/* r NULL: the recorded figures alone (compare: one per policy would repeat them). */
cJSON *run_recorded_json(const struct workload *wl, const struct rt_result *r,
			 const struct rt_mech *mech)
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
	if (rec->has_waits) {
		cJSON *w = cJSON_AddObjectToObject(o, "waits");
		for (int k = 0; k < RT_RUN__COUNT; k++) {
			double mean;
			uint64_t n = r ? replayed_waits(mech, k, &mean) : 0;
			if (!rec->wake_n[k] && !n)
				continue;
			cJSON *x = cJSON_AddObjectToObject(w, rt_run_why_names[k]);
			cJSON_AddNumberToObject(x, "count", (double)rec->wake_n[k]);
			cJSON_AddNumberToObject(x, "mean_ns", rec->wake_n[k] ? (double)rec->wake_ns[k] /
									 (double)rec->wake_n[k] : 0);
			if (r) {
				cJSON_AddNumberToObject(x, "replayed_count", (double)n);
				cJSON_AddNumberToObject(x, "replayed_mean_ns", mean);
			}
		}
		if (rec->wait_ns > 0)
			cJSON_AddNumberToObject(o, "wait_p_free_share",
						(double)rec->wait_p_free_ns / (double)rec->wait_ns);
		double f = r ? replayed_free_share(mech) : NAN;
		if (!isnan(f))
			cJSON_AddNumberToObject(o, "replayed_wait_p_free_share", f);
	}
	if (rec->has_inferred) {
		cJSON *x = cJSON_AddObjectToObject(o, "inferred");
		cJSON_AddNumberToObject(x, "shared_channels", (double)rec->shared);
		cJSON_AddNumberToObject(x, "takers", (double)rec->takers);
		cJSON_AddNumberToObject(x, "wake_ups", (double)rec->wake_ups);
		cJSON_AddNumberToObject(x, "backpressure", (double)rec->backpressure);
		cJSON_AddNumberToObject(x, "job_channels", (double)rec->jobs);
		cJSON_AddNumberToObject(x, "pairs", (double)rec->pairs);
		if (rec->shared)
			cJSON_AddStringToObject(x, "site", rec->site);
	}
	if (r && rec->makespan_ns > 0)
		cJSON_AddNumberToObject(o, "makespan_error",
					((double)r->makespan_ns - (double)rec->makespan_ns) /
						(double)rec->makespan_ns);
	return o;
}

/* Ps for a run: --procs, else an imported trace's GOMAXPROCS (at most
 * the machine's PUs), else every PU. */
int run_default_procs(const struct workload *wl, const struct topo *t, long given)
{
	if (given)
		return (int)given;
	int rec = wl ? wl->recorded.gomaxprocs : 0;
	return rec > 0 && rec <= t->npus ? rec : t->npus;
}

/* ---- The OS a run lived under ---- */

static bool os_given(const struct run *run)
{
	return run->gmp.rule != GMP_NUMBER || run->os.quota_ns || run->os.cpuset ||
	       run->os.load_threads;
}

/* The quota the run lived under, its own (simulated) or the one the rule
 * read (natively): false if none. */
static bool os_quota(const struct run *run, int64_t *quota_ns, int64_t *period_ns)
{
	bool own = run->os.quota_ns > 0;
	*quota_ns = own ? run->os.quota_ns : run->gmp.in.quota_ns;
	*period_ns = own ? run->os.period_ns : run->gmp.in.period_ns;
	return *quota_ns > 0 && *period_ns > 0;
}

/* The cpuset's PUs by their OS index, as a Linux cpu list. */
static void os_cpuset(const struct run *run, char *buf, int size)
{
	const struct topo *t = run->topo;
	int n = 0;
	for (int i = 0; i < t->npus; i++)
		if ((int)t->pus[i].os_index + 1 > n)
			n = (int)t->pus[i].os_index + 1;
	bool *flags = xcalloc((size_t)n, sizeof(*flags));
	for (int i = 0; i < t->npus; i++)
		flags[t->pus[i].os_index] = run->os.cpuset[i];
	gmp_cpulist_format(flags, n, buf, size);
	free(flags);
}

void run_os_limits_json(cJSON *report, const struct run *run)
{
	if (!os_given(run))
		return;
	cJSON *os = cJSON_AddObjectToObject(report, "os");
	if (run->gmp.rule != GMP_NUMBER) {
		cJSON_AddStringToObject(os, "procs_rule", gmp_rule_name(run->gmp.rule));
		cJSON_AddNumberToObject(os, "procs", run->procs);
		cJSON_AddNumberToObject(os, "cpus", run->gmp.in.cpus);
	}
	int64_t q, p;
	if (os_quota(run, &q, &p)) {
		cJSON_AddNumberToObject(os, "cpu_quota", (double)q / (double)p);
		cJSON_AddNumberToObject(os, "cpu_period_ns", (double)p);
	}
	if (run->os.cpuset) {
		char list[4096];
		os_cpuset(run, list, sizeof(list));
		cJSON_AddStringToObject(os, "cpuset", list);
	}
	if (run->os.load_threads) {
		cJSON *l = cJSON_AddObjectToObject(os, "load");
		cJSON_AddNumberToObject(l, "threads", run->os.load_threads);
		cJSON_AddNumberToObject(l, "duty", run->os.load_duty);
		cJSON_AddNumberToObject(l, "period_ns", (double)run->os.load_period_ns);
	}
	/* What the OS model measured joins this object after the metrics
	 * (run delay, switches, throttling: struct rt_os_stats). */
}

const char *run_procs_label(char *buf, size_t size, const struct run_gmp *g, int procs)
{
	if (g->rule == GMP_NUMBER)
		snprintf(buf, size, "%d", procs);
	else
		snprintf(buf, size, "%d (%s)", procs, gmp_rule_name(g->rule));
	return buf;
}

/* The summary's "os limits" line, for a run with any of them. */
static void os_limits_text(const struct run *run)
{
	if (!os_given(run))
		return;
	char buf[4200], ns[16];
	int n = 0;
	int64_t q, p;
	if (run->gmp.rule != GMP_NUMBER)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", procs %s = %d of %d CPUs",
			      gmp_rule_name(run->gmp.rule), run->procs, run->gmp.in.cpus);
	if (os_quota(run, &q, &p))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", quota %g CPUs per %s",
			      (double)q / (double)p, run_fmt_ns(ns, (double)p));
	if (run->os.cpuset) {
		char list[4096];
		os_cpuset(run, list, sizeof(list));
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", cpuset %s", list);
	}
	if (run->os.load_threads)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", load %d threads busy %g of %s",
			      run->os.load_threads, run->os.load_duty,
			      run_fmt_ns(ns, (double)run->os.load_period_ns));
	printf(LABEL "%s\n", "os limits", buf + 2);
}

void run_report_text(const struct run *run)
{
	const struct rt_result *r = &run->r;
	printf("%s run: policy %s, topology %s, workload %s, %d Ps, seed %llu\n", run->api->mode,
	       run->pol->name, run->topo->name, run->wl->name, run->procs,
	       (unsigned long long)run->seed);
	os_limits_text(run);
	printf(LABEL "%.3f ms%s\n", "makespan", (double)r->makespan_ns / 1e6,
	       r->ended == RT_ENDED_SIM_TIME    ? ", CUT at the simulated-time limit"
	       : r->ended == RT_ENDED_WALL_TIME ? ", CUT at the wall-clock limit"
						: "");
	printf(LABEL "%llu made, %llu completed%s\n", "goroutines", (unsigned long long)r->goroutines,
	       (unsigned long long)r->completed, r->deadlock ? ", DEADLOCK" : "");
	double tput;
	const char *tunit = run_throughput(r, &tput);
	printf(LABEL "%.1f %s\n", "throughput", tput, tunit);
	if (r->requests) {
		printf(LABEL "%llu answered\n", "requests", (unsigned long long)r->requests);
		struct run_request_load l;
		if (run_request_load(r, &l)) {
			char span[16], drain[16];
			run_fmt_ns(span, (double)l.span_ns);
			run_fmt_ns(drain, (double)l.drain_ns);
			printf(LABEL "%llu connections over %s (%.0f/s); the last answer came %s "
			       "after the last arrival%s\n", "load", (unsigned long long)r->offered, span,
			       l.arrival_per_s, drain,
			       l.overloaded ? ": OVERLOADED, the server fell behind for good" : "");
		}
	}

	if (r->sched_latency.count || r->requests) {
		printf(LABEL "%10s%10s%10s%10s%10s%10s\n", "latency", "p50", "p90", "p99",
		       "p99.9", "max", "mean");
		if (r->sched_latency.count)
			run_latency_row("scheduling", false, &r->sched_latency);
		if (r->requests)
			run_latency_row("request", false, &r->request_latency);
	}

	run_recorded_text(run->wl, r, &run->mech);
	if (r->cpu.measured)
		cpu_text(&r->cpu);
	run_host_text(&r->host);
	run_os_text(&r->os);

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
	run_mech_text(&run->mech);
	run_why_text(&run->mech);
}

