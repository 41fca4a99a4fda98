/* The OS beneath a simulated run: PUs that run one thread at a time, the
 * kernel's fair scheduler sharing them, a cpuset, a CPU quota, and other
 * processes' threads [docs/hardware-model.md, "The OS beneath the
 * runtime"].
 *
 * A thread (an M, or a thread of the other load) holds a PU while it runs:
 * from the moment it becomes runnable and finds one, to the moment it
 * sleeps (a futex, a timed sleep, the poller, a system call's sleep) or is
 * switched out.  A thread that finds no PU free waits on one, and the PU
 * is handed over when its holder sleeps, or when the holder's slice ends
 * and the waiter comes first by the fair rule.  With nothing waiting the
 * model costs nothing and changes nothing: a thread that never waits runs
 * exactly as it did before the model existed.
 *
 * The holder's own clock runs ahead of the engine's [sim/plat.h], so the
 * OS acts on it at its next step: os_want_off says the PU is wanted back,
 * and the thread calls os_step there (a computation in progress is woken
 * at once: os_thread.cuttable).  A thread that sleeps from a time ahead of
 * the engine's holds its PU until then (os_leave's at). */
#ifndef SCHEDLAB_SIM_OS_H
#define SCHEDLAB_SIM_OS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/policy.h"
#include "sim/engine.h"

struct topo;
struct os;

struct os_thread {
	struct sim_actor *actor;
	int pu;                  /* the PU it holds, -1: none */
	int last;                /* the PU it ran on last, -1: never ran */
	bool process;            /* one of the run's Ms (cpuset, quota), not other load */
	bool want_off;           /* the OS wants its PU back: act at the next step */
	bool cuttable;           /* blocked in a computation a sim_wake may cut */
	bool queued;             /* runnable, on a PU's queue */
	bool parked;             /* runnable, held back by the quota */
	sim_time_t leave_at;     /* holding its PU until then, then asleep; 0: not leaving */
	sim_time_t since;        /* on its PU since; or runnable since */
	sim_time_t slice_start;
	double v;                /* virtual runtime: CPU time, as every thread weighs the same */
	double vlag;             /* the PU's average less v when it left: its due, kept asleep */
	uint64_t seq;            /* order of arrival, for ties */
	struct os_thread *next;  /* on a PU's queue, or among the parked */
	/* what the kernel's schedstat and /proc/PID/status would say */
	uint64_t cpu_ns, run_delay_ns, timeslices, nvcsw, nivcsw;
	/* Told when it starts or stops waiting (OS_WAIT_x) at now, if set: a
	 * run's --why follows its Ms' waits [core/why.c]. */
	void (*wait_hook)(struct os_thread *th, int wait, sim_time_t now);
};
enum { OS_WAIT_NONE, OS_WAIT_PU, OS_WAIT_QUOTA };

/* A run's OS, on its engine and machine; lim may be all zero (the whole
 * machine, to itself). */
struct os *simp_os_new(struct sim_engine *eng, const struct topo *t, const struct rt_os *lim,
		  double context_switch_ns, double base_slice_ns);
void simp_os_free(struct os *os);
/* Starts the other load's threads (call once, before the run). */
void simp_os_start_load(struct os *os);
/* The run is over: the other load's threads end. */
void simp_os_end(struct os *os);
/* Whether PU pu is in the process's cpuset. */
bool simp_os_allowed(const struct os *os, int pu);

void simp_os_thread_init(struct os_thread *th, struct sim_actor *a, bool process);
/* th, the running actor, is runnable now and wants PU want: returns once
 * it holds one (th->pu), with the ns its clock pays for being switched in
 * after a wait (0 if it found a PU free). */
double simp_os_enter(struct os *os, struct os_thread *th, int want);
/* th sleeps from at (>= now) on: its PU is free from then. */
void simp_os_leave(struct os *os, struct os_thread *th, sim_time_t at);
/* Whether th may sleep lazily (os_leave with at > now); false: the caller
 * brings the engine to at first (the quota counts every instant). */
bool simp_os_lazy_leave(const struct os *os);
static inline bool os_want_off(const struct os_thread *th)
{
	return th->want_off;
}
/* At th's step, now, with want_off set: gives the PU up to whoever comes
 * first and returns once it runs again; the ns its clock pays. */
double simp_os_step(struct os *os, struct os_thread *th);
/* th, running, would move to PU to: true if it did (to was free), false
 * if it stays where it is. */
bool simp_os_move(struct os *os, struct os_thread *th, int to);
/* sched_yield: with others waiting on th's PU, they go first. */
double simp_os_yield(struct os *os, struct os_thread *th);
/* Whether a thread waits for PU pu. */
bool simp_os_waiters(const struct os *os, int pu);
/* Adds th's figures (an M's) to the run's, up to t. */
void simp_os_collect_thread(struct os *os, const struct os_thread *th, sim_time_t t);
/* Closes the counts at t (the run's end) and returns them. */
const struct rt_os_stats *simp_os_counts(struct os *os, sim_time_t t);

#endif
