/* Schedule exploration as a library: one workload under many perturbed
 * schedules, each checked for the core's invariants (core/explore.h;
 * docs/runtime.md, "Exploring schedules").  `schedlab explore` parses and
 * prints; `schedlab regress --explore` and the tests call exp_explore
 * in-process and read its result.
 *
 * Each schedule runs in a child of the child-process pool (util/pool.h),
 * -j at a time: the topology and workload are loaded once, a fork costs
 * far less than a run, and a child that crashes -- a core assertion, a
 * fault -- is one failed schedule, not the end of the exploration.
 *
 * A schedule is (strategy, schedule seed, from, limit, k): schedule 0 is
 * the default one (limit 0: no perturbation at all), schedule i > 0 takes
 * the seed mix(seed, i) and every perturbation it draws.  The schedules
 * are taken in order: the first failure, in schedule order, is the one
 * reported at any -j.  It is shrunk by bisecting the window [from, limit)
 * of the perturbations applied down to one that still fails the same
 * invariant.
 *
 * An exploration may end early: at its time budget (max_total_ns), or
 * at SIGINT or SIGTERM, which exp_explore catches while it runs (unless
 * they are ignored).  No schedule starts any more, the running ones are
 * killed, and the result counts the schedules completed, 0 to N-1 in
 * schedule order -- one that ended while an earlier one still ran is not
 * among them. */
#ifndef SCHEDLAB_EXP_EXPLORE_H
#define SCHEDLAB_EXP_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/explore.h"
#include "run/run.h"

/* The defaults of `schedlab explore`'s options (--schedules, --depth,
 * --delay-rate, --delay, --max-starve). */
#define EXP_EXPLORE_SCHEDULES 100
#define EXP_EXPLORE_DEPTH 3
#define EXP_EXPLORE_DELAY_RATE 20
#define EXP_EXPLORE_DELAY_NS 200000
#define EXP_EXPLORE_MAX_STARVE_NS (50 * 1000000LL)

/* One schedule, as --replay SEED:FROM:LIMIT:K names it. */
struct exp_sched {
	uint64_t seed, from, limit, k;
};

/* What one schedule gave. */
struct exp_sched_result {
	enum { EXP_SCHED_PASS, EXP_SCHED_VIOLATION, EXP_SCHED_CRASH, EXP_SCHED_CUT } status;
	uint64_t decisions, applied, steps, checks;
	char what[48];                 /* the invariant broken, or "crash" */
	char msg[600];
	char *state;                   /* the G/M/P state then (malloc'd, or NULL) */
};

/* A failing schedule. */
struct exp_explore_failure {
	uint64_t index;                /* its number (UINT64_MAX: a replayed one) */
	struct exp_sched sched;        /* as shrunk */
	struct exp_sched_result r;     /* the shrunk schedule's result */
	uint64_t applied0;             /* perturbations applied as found, before shrinking */
	int trials;                    /* runs the shrinking took (0: not shrunk) */
};

/* An exploration. */
struct exp_explore_opts {
	/* The run every schedule makes: the simulated api, policy, knobs,
	 * topology, workload, seed, procs and limits (the caller's). */
	struct run base;
	uint64_t schedules;            /* the default one included; at least 1 */
	int jobs;                      /* at once; 0: pool_default_jobs(256, the memory budget) */
	enum rt_explore_strategy strategy;
	int depth;                     /* PCT's */
	uint32_t delay_per_mille;
	int64_t delay_ns, max_starve_ns;
	enum rt_bug bug;
	/* The whole exploration's real time, shrinking included (0: no
	 * bound); each schedule's own is base.lim.max_wall_ns. */
	int64_t max_total_ns;
	bool keep_going;               /* every failure, not the first shrunk */
	/* With keep_going: each failure, in schedule order (not shrunk). */
	void (*failure)(void *ctx, const struct exp_explore_failure *f);
	/* After each schedule, in order: done of them, violations so far. */
	void (*progress)(void *ctx, uint64_t done, uint64_t violations);
	void *ctx;
};

struct exp_explore_result {
	/* 0 no violation, EXIT_FOUND one (or a crash), EXIT_LIMIT none but
	 * some schedules cut at a limit or the exploration at its budget; 3 a
	 * schedule could not be run (error says why; nothing else is set);
	 * 128 + the signal's number: interrupted (130 for SIGINT), whatever
	 * was found */
	int status;
	char error[256];
	uint64_t schedules, violations, crashes, cut, checks;
	double secs;
	bool default_fails;            /* schedule 0, unperturbed, failed */
	struct exp_explore_failure *found;  /* the first failure, shrunk; NULL without keep_going */
	/* What ended the exploration early, if anything: the schedules
	 * short of o->schedules, or with found, its shrinking (the failure
	 * then is the narrowest window found so far). */
	enum exp_explore_stop { EXP_STOP_NONE, EXP_STOP_TIME, EXP_STOP_SIGNAL } stop;
	int signo;                     /* EXP_STOP_SIGNAL's */
};

/* Runs the exploration; returns res->status. */
int exp_explore(const struct exp_explore_opts *o, struct exp_explore_result *res);
void exp_explore_result_free(struct exp_explore_result *res);

/* Runs schedule s in this process into *r.  with_rt (if not NULL) is
 * handed the run before it is destroyed (a trace written of it) and its
 * non-zero return is ours.  EXIT_BADINPUT, e set, if the runtime refused
 * the run. */
int exp_explore_schedule(const struct exp_explore_opts *o, struct exp_sched s,
			 struct exp_sched_result *r,
			 int (*with_rt)(void *ctx, const struct run *run, struct rt *rt), void *ctx,
			 struct err *e);

/* The summary line `schedlab explore` prints. */
void exp_explore_print_summary(FILE *f, const struct exp_explore_opts *o,
			       const struct exp_explore_result *r);
/* A failure, its state and the command that replays it: "replay: schedlab
 * explore", then words (quoted for a shell where needed), then --replay. */
void exp_explore_print_failure(FILE *f, const struct exp_explore_failure *fl,
			       const char *const *words, int nwords);

#endif
