/* A run's result as it is told: the fractions the report derives from its
 * counters, and Go's own words for a panic and a deadlock, shared by
 * `schedlab run' and the C API's sl_run. */
#include "core/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Fractions [docs/runtime.md, "What a run reports"] ---- */

const char *const rt_cpu_names[RT_CPU__COUNT] = {
	[RT_CPU_USER] = "user",
	[RT_CPU_SCHED] = "sched",
	[RT_CPU_SPIN] = "spin",
	[RT_CPU_LOCK_SPIN] = "lock_wait",
	[RT_CPU_LOCK_SLEEP] = "lock_wait",
	[RT_CPU_SYSCALL] = "syscall",
	[RT_CPU_PARKED] = "parked",
};

const char *const rt_lock_names[RT_LOCK__COUNT] = {
	[RT_LOCK_SCHED] = "sched",
	[RT_LOCK_CHAN] = "chan",
	[RT_LOCK_SYNC] = "sync",
	[RT_LOCK_NET] = "net",
	[RT_LOCK_TIMERS] = "timers",
};

const char *const rt_ended_names[RT_ENDED__COUNT] = {
	[RT_ENDED_ITSELF] = "itself",
	[RT_ENDED_SIM_TIME] = "sim_time_limit",
	[RT_ENDED_WALL_TIME] = "wall_time_limit",
};

static uint64_t set_total(const struct rt_cpu_time *c, bool off)
{
	return off ? c->off_ns : c->on_ns;
}

bool rt_cpu_frac(const struct rt_cpu_time *c, enum rt_cpu k, double *frac)
{
	uint64_t total = set_total(c, rt_cpu_off(k));
	if (!c->measured || total == 0)
		return false;
	*frac = (double)c->ns[k] / (double)total;
	return true;
}

bool rt_lock_frac(const struct rt_cpu_time *c, bool off, enum rt_lock_class k, double *frac)
{
	uint64_t total = set_total(c, off);
	if (!c->measured || total == 0)
		return false;
	*frac = (double)c->lock_ns[off][k] / (double)total;
	return true;
}

bool rt_cpu_busy_pus(const struct rt_cpu_time *c, double *pus)
{
	if (!c->measured || c->span_ns == 0)
		return false;
	*pus = (double)c->on_ns / (double)c->span_ns;
	return true;
}

bool rt_cpu_busy_frac(const struct rt_cpu_time *c, double *frac)
{
	double pus;
	if (c->pus <= 0 || !rt_cpu_busy_pus(c, &pus))
		return false;
	*frac = pus / c->pus;
	return true;
}

bool rt_cpu_netpoll_frac(const struct rt_cpu_time *c, double *frac)
{
	if (!c->measured || c->netpoll_ns == 0 || c->on_ns == 0)
		return false;
	*frac = (double)c->netpoll_ns / (double)c->on_ns;
	return true;
}

bool rt_cpu_futex_frac(const struct rt_cpu_time *c, double *frac)
{
	if (!c->measured || !c->futex_measured || c->on_ns == 0)
		return false;
	*frac = (double)c->futex_ns / (double)c->on_ns;
	return true;
}

/* ---- The CPU a native run got [docs/runtime.md, "The CPU a native run got"] ---- */

bool rt_host_share(const struct rt_host *h, double *share)
{
	if (!h->measured || !h->schedstat || h->cpu_ns == 0)
		return false;
	*share = (double)h->cpu_ns / (double)(h->cpu_ns + h->run_delay_ns);
	return true;
}

/* Busy: the run's threads waited at least 10% of their runnable time
 * for a CPU (and 1 ms in all, below which a short run's figure is a
 * scheduler tick's noise).  The simulator gives a runnable M its PU at
 * once; a native run kept waiting that long is slower by as much as the
 * error the fidelity targets allow, so its figures cannot judge the
 * model.  The load average is not the rule: a minute's average lags a run
 * of a second, and counts the runs before it (bench-fidelity's, a
 * compare's).  Without run delays (no schedstat): the other processes'
 * CPU during the run, where it took PUs the run's Ps would have used. */
bool rt_host_busy(const struct rt_host *h, char *why, size_t size)
{
	why[0] = '\0';
	if (!h->measured)
		return false;
	double share;
	int len;
	if (rt_host_share(h, &share)) {
		if (share >= RT_HOST_BUSY_SHARE || h->run_delay_ns < 1000000)
			return false;
		len = snprintf(why, size,
			       "the run's threads waited %.0f%% of their runnable time for a CPU",
			       100.0 * (1.0 - share));
	} else {
		if (!h->stat_read || h->wall_ns == 0)
			return false;
		double others = (double)h->others_cpu_ns / (double)h->wall_ns;
		double free_pus = h->procs < h->pus ? h->pus - h->procs : 0;
		if (others < free_pus + 0.25)
			return false;
		len = snprintf(why, size, "other processes used %.2f PUs of %d during the run", others,
			       h->pus);
	}
	if (h->procs > h->pus && len > 0 && (size_t)len < size)
		snprintf(why + len, size - (size_t)len, ", having %d Ps for %d PUs", h->procs,
			 h->pus);
	return true;
}

bool rt_mem_local_frac(const struct rt_mem *mem, double *frac)
{
	if (!mem->measured || mem->dram == 0)
		return false;
	*frac = (double)mem->dram_by_hops[0] / (double)mem->dram;
	return true;
}

bool rt_mem_cache_hit_frac(const struct rt_mem *mem, double *frac)
{
	if (!mem->measured || mem->lines == 0)
		return false;
	*frac = (double)mem->cached / (double)mem->lines;
	return true;
}

/* ---- A run gone wrong ---- */

int rt_result_report_fatal(const struct rt_result *r, FILE *f)
{
	if (r->panicked) {
		fprintf(f, "panic: %s\n", r->panic);
		return EXIT_BADINPUT;
	}
	if (!r->deadlock)
		return 0;
	fprintf(f, "fatal error: all goroutines are asleep - deadlock!\n\n%s", r->blocked);
	if (r->blocked[sizeof(r->blocked) - 2] != '\0')
		fprintf(f, "...\n");
	fprintf(f, "(%llu goroutines blocked)\n", (unsigned long long)r->nblocked);
	return EXIT_FOUND;
}

/* ---- The mechanisms [docs/runtime.md, "The mechanisms"] ---- */

const char *const rt_gq_why_names[RT_GQ__COUNT] = {
	[RT_GQ_FAIRNESS] = "fairness",
	[RT_GQ_LOCAL_EMPTY] = "local_empty",
	[RT_GQ_ONLY] = "only_queue",
	[RT_GQ_STEAL] = "steal",
	[RT_GQ_IDLE] = "before_idle",
};

const char *const rt_wait_names[RT_WAIT__COUNT] = {
#define RT_WAIT_WORDS(name, words, tb) [RT_WAIT_##name] = words,
	RT_WAIT_REASONS(RT_WAIT_WORDS)
#undef RT_WAIT_WORDS
};

const char *const rt_run_why_names[RT_RUN__COUNT] = {
	[RT_RUN_SPAWN] = "spawn",
	[RT_RUN_PARTNER] = "partner",
	[RT_RUN_TIMER] = "timer",
	[RT_RUN_NET] = "network",
	[RT_RUN_SYSCALL] = "syscall_return",
	[RT_RUN_PREEMPT] = "preemption",
	[RT_RUN_YIELD] = "yield",
};

unsigned rt_steal_bucket(uint32_t n)
{
	if (n <= RT_STEAL_EXACT)
		return n ? n - 1 : 0;
	/* 17..32 -> RT_STEAL_EXACT, 33..64 -> +1, ... */
	unsigned b = RT_STEAL_EXACT + (unsigned)(32 - __builtin_clz(n - 1)) - 5;
	return b < RT_STEAL_BUCKETS ? b : RT_STEAL_BUCKETS - 1;
}

void rt_steal_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
	if (b < RT_STEAL_EXACT) {
		*lo = *hi = b + 1;
		return;
	}
	unsigned k = b - RT_STEAL_EXACT + 5;   /* (2^(k-1), 2^k] */
	*lo = ((uint64_t)1 << (k - 1)) + 1;
	*hi = (uint64_t)1 << k;
}

const char *const rt_why_names[RT_WHY__COUNT] = {
#define RT_WHY_NAME(name, key, doc) [RT_WHY_##name] = key,
	RT_WHY_CAUSES(RT_WHY_NAME)
#undef RT_WHY_NAME
};

const char *const rt_whyrq_names[RT_WHYRQ__COUNT] = {
#define RT_WHYRQ_NAME(name, key, doc) [RT_WHYRQ_##name] = key,
	RT_WHYRQ_PRE(RT_WHYRQ_NAME)
#undef RT_WHYRQ_NAME
#define RT_WHY_RQNAME(name, key, doc) [RT_WHYRQ_SCHED + RT_WHY_##name] = key,
	RT_WHY_CAUSES(RT_WHY_RQNAME)
#undef RT_WHY_RQNAME
	[RT_WHYRQ_BLOCKED] = "blocked",
	[RT_WHYRQ_RUNNING] = "running",
};

void rt_mech_free(struct rt_mech *mech)
{
	for (int k = 0; k < RT_RUN__COUNT; k++)
		free(mech->latency_by_why[k]);
	for (int k = 0; k < RT_USER_CLASSES; k++) {
		free(mech->latency_by_class[k]);
		free(mech->class_names[k]);
	}
	free(mech->p);
	free(mech->mem_lines);
	free(mech->why);
	memset(mech, 0, sizeof(*mech));
}
