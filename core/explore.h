/* Schedule exploration: what `schedlab explore` asks of one simulated run
 * (docs/runtime.md, "Exploring schedules").
 *
 * A run given a struct rt_explore (rt_config.explore; NULL in every other
 * run, which then behaves and reports exactly as before) is perturbed by
 * the simulated platform and checked by the core:
 *
 *   perturbed  sim/plat.c and sim/engine.c draw every perturbation from
 *              one generator seeded by the schedule's seed, in the order
 *              the run asks, so a schedule is its (strategy, seed, limit,
 *              depth) and replays exactly.  A decision is a point where a
 *              perturbation may be applied: each event the engine queues
 *              (its tie-break among events due at the same instant), and
 *              each contract operation (an atomic or lock access, a futex
 *              wait or wake, a thread start, a G switch, a sleep of sysmon
 *              or a thief, the poller's wait, an M's PU).  A decision that
 *              draws a perturbation numbers it; only those numbered in
 *              [from, limit) are applied, the rest take the default, which
 *              is how a failing schedule is shrunk.
 *   checked    core/explore.c, at every scheduling step (an M about to run
 *              a G), when checkdead declares a deadlock, and by the caller
 *              after the run: the invariants of docs/runtime.md.  The first
 *              violation is recorded here with the G/M/P state at that
 *              moment, and the run is stopped.
 *
 * Seeded bugs (meson -Dseeded_bugs, on in the test build) are policy and
 * core mistakes switched on by `bug`, so that tests can show the explorer
 * finds them; a build without the option has none of their code. */
#ifndef SCHEDLAB_CORE_EXPLORE_H
#define SCHEDLAB_CORE_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>

enum rt_explore_strategy {
	RT_EXPLORE_RANDOM,   /* each decision perturbs with a fixed probability */
	RT_EXPLORE_PCT,      /* random M priorities, depth - 1 change points */
};

enum rt_bug {
	RT_BUG_NONE,
	RT_BUG_NO_RECHECK,       /* the last spinner parks without rechecking the queues */
	RT_BUG_NO_WAKEP,         /* a readied G is queued and no M is woken for it */
	RT_BUG_RUNNEXT_EAGER,    /* a thief takes runnext at once, on any pass, unchecked */
	RT_BUG_SHAREDQ_NOLOCK,   /* numa's put to a P's shared queue skips its lock */
	RT_BUG_LOST_TIMER,       /* a P handed off with a timer wakes nobody for it */
	RT_BUG_CHECKDEAD_MS,     /* checkdead counts idle Ms only, not idle Ps */
	RT_BUG_RETAKE_NOCHECK,   /* sysmon's hand-off of a retaken P runs no checkdead */
	RT_BUG__COUNT,
};
extern const char *const rt_bug_names[RT_BUG__COUNT];

#define RT_EXPLORE_MAX_DEPTH 16
#define RT_EXPLORE_MAX_M 4096

struct rt_explore {
	/* The schedule (in) */
	enum rt_explore_strategy strategy;
	uint64_t seed;
	uint64_t from, limit;    /* the perturbations applied: those numbered [from, limit) */
	int depth;               /* PCT: d (change points d - 1) */
	uint64_t pct_steps;      /* PCT: k, the contract operations of a run (estimate) */
	int64_t delay_ns;        /* a random delay's bound */
	uint32_t delay_per_mille;/* random: the chance a contract operation is delayed (a
				  * tie reordered, a PU moved: five times that) */
	int64_t max_starve_ns;   /* a runnable G may wait at most this while a P idles */
	enum rt_bug bug;

	/* The run's state (the platform's and the core's) */
	uint64_t rng;
	uint64_t decisions;      /* perturbations drawn */
	uint64_t applied;        /* ... and applied (within the window) */
	uint64_t steps;          /* contract operations (PCT's steps) */
	uint64_t checks;         /* scheduling steps checked */
	uint64_t census_due;     /* scheduling steps until the next census */
	uint64_t change_at[RT_EXPLORE_MAX_DEPTH];  /* PCT's change points (steps) */
	int nchange, next_change;
	uint32_t prio[RT_EXPLORE_MAX_M];  /* PCT: each M's priority (0: not yet drawn) */
	void **seen;             /* the census's set of Gs (open addressing) */
	uint32_t *seen_used;     /* the slots of seen taken, seen_n of them */
	uint32_t seen_cap, seen_n;

	/* The first violation (out) */
	bool failed;
	char what[48];           /* the invariant's name */
	char msg[600];
	char *state;             /* the G/M/P state then (malloc'd; the caller frees) */
};

/* A number from the schedule's generator (splitmix64). */
static inline uint64_t rt_explore_rand(struct rt_explore *x)
{
	uint64_t z = (x->rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A decision that draws a perturbation: numbered, and applied only if
 * its number is within [from, limit).  The generator is drawn from at
 * every decision point whether or not it perturbs, so a perturbation's
 * value does not depend on the window. */
static inline bool rt_explore_apply(struct rt_explore *x)
{
	uint64_t n = x->decisions++;
	bool on = n >= x->from && n < x->limit;
	x->applied += on;
	return on;
}

/* Sets up a schedule's state from its parameters (before the run). */
void rt_explore_reset(struct rt_explore *x);

/* Is msg a panic of the run's own limits (the memory budget, the thread
 * limit: core/proc.c, workloads/interp.c) rather than of the workload?
 * Such a schedule was cut at a limit; it broke no invariant. */
bool rt_explore_limit_panic(const char *msg);

#if defined(SCHEDLAB_SEEDED_BUGS)
#define RT_BUG(rt, b) (__builtin_expect((rt)->explore != NULL, 0) && (rt)->explore->bug == (b))
#else
#define RT_BUG(rt, b) 0
#endif

#endif
