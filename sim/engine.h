/* Discrete-event engine: simulated time, the pending-event queue, actors.
 *
 * Simulated time is an integer count of nanoseconds.  Pending events are
 * kept in a 4-ary min-heap ordered by (time, sequence number); the sequence
 * number is handed out when an event is scheduled, so events due at the same
 * nanosecond fire in the order they were scheduled and nothing else (no
 * pointer, no hash) ever decides an order -- unless an explored run
 * (`schedlab explore`) sets a seeded tie-break, sim_set_tiebreak below.  Named invariant, checked in
 * debug builds: the (time, seq) pairs of fired events strictly increase --
 * which says both that time never goes backwards and that no event fires
 * twice.
 *
 * Actors are simulated threads: coroutines on their own small stacks
 * (arch/ctx.h).  An actor runs until it waits, blocks or yields; then the
 * engine fires the next due event on whatever stack it is on and switches
 * straight to the next actor to resume, so a hand-off between two actors is
 * one context switch, not two.  Callbacks run on the stack of the actor that
 * was running (or the caller of sim_run), so they must stay shallow.
 *
 * Who may call what: sim_wait_until, sim_sleep, sim_block*, sim_yield and
 * sim_exit only from the actor they name (they suspend it);
 * sim_wake, sim_schedule and sim_spawn from anywhere inside a run or
 * before it; sim_stop from anywhere, another thread included (a
 * wall-clock watchdog).
 *
 * A block's time-out that a wake supersedes is taken out of the queue
 * (lazily, in batches: see engine.c, "Superseded resumes"), so pending
 * events stay proportional to the live ones however many waits are cut
 * short. */
#ifndef SCHEDLAB_SIM_ENGINE_H
#define SCHEDLAB_SIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/ctx.h"

typedef uint64_t sim_time_t;
#define SIM_TIME_MAX UINT64_MAX

struct sim_engine;
struct sim_actor;

typedef void (*sim_event_fn)(struct sim_engine *eng, void *arg);
typedef void (*sim_actor_fn)(struct sim_actor *self, void *arg);

enum sim_actor_state {
	SIM_ACTOR_READY,    /* a resume event is pending */
	SIM_ACTOR_RUNNING,
	SIM_ACTOR_BLOCKED,  /* waiting for sim_wake (maybe with a time-out) */
	SIM_ACTOR_DEAD,
};

struct sim_actor {
	struct ctx ctx;
	struct sim_engine *eng;
	uint64_t wake_seq;      /* seq of the one resume event that counts; others are stale */
	enum sim_actor_state state;
	bool wake_pending;      /* woken while not blocked: the next block returns at once */
	bool woken;             /* the last block ended by sim_wake, not by its time-out */
	uint32_t id;            /* spawn order, from 0 */
	const char *name;
	sim_actor_fn fn;
	void *arg;
	void *stack;            /* mapping, guard page included */
	size_t stack_map;
	struct sim_actor *next_dead;
	struct sim_actor *prev_live, *next_live;
	void *user;             /* for the layer above (the sim platform's M) */
};

struct sim_stats {
	uint64_t events;        /* events fired, actor resumes included */
	uint64_t stale;         /* superseded actor resumes (none of them fires) */
	uint64_t switches;      /* context switches between stacks */
	uint64_t advances;      /* waits that moved the clock without an event (sim_wait_until) */
	uint64_t actors;        /* actors spawned */
	size_t peak_pending;
};

struct sim_engine *sim_engine_new(void);
void sim_engine_free(struct sim_engine *eng);

/* The engine's first member, visible so that reading the clock and the
 * running actor -- the most frequent calls of all -- is inlined. */
struct sim_engine_head {
	sim_time_t now;
	struct sim_actor *current;  /* NULL while on the main stack */
};
static inline sim_time_t sim_now(const struct sim_engine *eng)
{
	return ((const struct sim_engine_head *)(const void *)eng)->now;
}
/* The clock as another thread may read it while the run goes on (the
 * progress line): the dispatch loop's store is atomic for its sake. */
static inline sim_time_t sim_now_from_outside(const struct sim_engine *eng)
{
	return __atomic_load_n(&((const struct sim_engine_head *)(const void *)eng)->now,
			       __ATOMIC_RELAXED);
}
size_t sim_pending(const struct sim_engine *eng);
/* Pending events that can still fire (superseded resumes are taken out
 * first).  Between runs only. */
size_t sim_pending_live(struct sim_engine *eng);
const struct sim_stats *sim_stats(const struct sim_engine *eng);
static inline struct sim_actor *sim_current(const struct sim_engine *eng)
{
	return ((const struct sim_engine_head *)(const void *)eng)->current;
}

/* Runs fn(eng, arg) at time at (>= now). */
void sim_schedule(struct sim_engine *eng, sim_time_t at, sim_event_fn fn, void *arg);

/* Fires events in (time, seq) order until none is left, one would be due
 * after until, or sim_stop() is called.  Returns the number of steps: events
 * fired, and waits that only moved the clock (sim_wait_until). */
uint64_t sim_run(struct sim_engine *eng);
uint64_t sim_run_until(struct sim_engine *eng, sim_time_t until);
/* Ends the run under way before its next event (the one firing, if any,
 * completes); called between runs, makes the next one return at once.
 * Safe from any thread. */
void sim_stop(struct sim_engine *eng);

/* Creates an actor that starts running fn(self, arg) at the current time,
 * after every event already due then.  stack_size 0 means the default
 * (SIM_STACK_DEFAULT). */
#define SIM_STACK_DEFAULT (64u * 1024u)
struct sim_actor *sim_spawn(struct sim_engine *eng, const char *name, sim_actor_fn fn,
			    void *arg, size_t stack_size);

/* Exploration (core/explore.h): with a tie-break set, events due at the
 * same nanosecond are ordered by a priority fn returns when each is
 * scheduled (lower first; a is the actor resumed, NULL for a callback),
 * then by sequence number.  An event scheduled for the current instant
 * never goes before the one firing (its priority is raised to that one's),
 * so (time, seq) still strictly increases.  Only the low SIM_TIE_BITS of
 * the priority count.  Set before the run; NULL (the default) keeps the
 * plain order. */
#define SIM_TIE_BITS 20
typedef uint32_t (*sim_tie_fn)(void *ctx, struct sim_actor *a);
void sim_set_tiebreak(struct sim_engine *eng, sim_tie_fn fn, void *ctx);

/* Resumes self at t (>= now).  Where t comes before every pending event
 * and the run's limit, nothing else can happen first: the clock just moves
 * to t, with no event and no switch (counted in sim_stats' advances). */
void sim_wait_until(struct sim_actor *self, sim_time_t t);
/* Off, every wait is an event, as before the shortcut: the same run, for
 * tests and measurements to compare against.  On by default. */
void sim_set_own_clock(struct sim_engine *eng, bool on);
/* now + dt, saturating at SIM_TIME_MAX (never). */
void sim_sleep(struct sim_actor *self, sim_time_t dt);
/* Lets every other event due at or before now fire first. */
void sim_yield(struct sim_actor *self);
/* Suspends until woken; returns at once, consuming it, if a wake came while
 * the actor was not blocked. */
void sim_block(struct sim_actor *self);
/* As sim_block, but gives up at deadline; returns true if woken. */
bool sim_block_until(struct sim_actor *self, sim_time_t deadline);
/* Wakes target at time at (>= now).  A blocked target resumes then; an
 * actor that is not blocked (running, or already due to resume) keeps one
 * wake, which makes its next sim_block return at once. */
void sim_wake(struct sim_actor *target, sim_time_t at);
/* Ends the calling actor (returning from its function does the same). */
_Noreturn void sim_exit(struct sim_actor *self);

#endif
