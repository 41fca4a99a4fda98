/* Discrete-event engine: the event heap, the dispatch loop and actors. */
#include "sim/engine.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/util.h"

/* An actor resume is an event whose fn is this marker and whose arg is the
 * actor; it fires only if its seq is still the actor's wake_seq. */
static void sim__resume_marker(struct sim_engine *eng, void *arg)
{
	(void)eng;
	(void)arg;
}
#define RESUME sim__resume_marker

struct sim_event {
	sim_time_t time;
	uint64_t seq;
	sim_event_fn fn;
	void *arg;
};

struct sim_engine {
	struct sim_engine_head head; /* must stay first: sim_now() reads it */
	/* Two events wait outside the heap (see "The queue" below). */
	struct sim_event front;     /* earlier than every other pending event */
	struct sim_event held;      /* not yet placed in the heap */
	bool has_front, has_held;
	struct sim_event *heap;
	size_t n, cap;
	uint64_t next_seq;
	/* Events due before this fire; sim_stop sets 0, from any thread (the
	 * one field read and written atomically). */
	sim_time_t limit;
	size_t stale;               /* superseded resumes still pending (see "Superseded resumes") */
	struct ctx main_ctx;        /* the stack sim_run was called on */
	struct sim_actor *dead;     /* ended actors whose stacks await unmapping */
	struct sim_actor *live;     /* every actor not yet ended */
	struct sim_stats stats;
#ifdef NDEBUG
	uint64_t last_seq;          /* seq of the event firing (the tie-break's) */
#endif
	bool no_own_clock;          /* every wait an event (sim_set_own_clock) */
	sim_tie_fn tie;             /* exploration's tie-break, or NULL */
	void *tie_ctx;
	uint32_t next_actor_id;
	size_t page;
#ifndef NDEBUG
	sim_time_t last_time;       /* (time, seq) of the last event fired */
	uint64_t last_seq;
	bool fired_any;
#endif
};

/* ---- The heap ------------------------------------------------------------
 * 4-ary: half the depth of a binary heap, and the four children of a node
 * share one or two cache lines. */

/* (time, seq) compared as one 128-bit integer: no branch for the compiler
 * to mispredict. */
static inline bool ev_before(const struct sim_event *a, const struct sim_event *b)
{
	unsigned __int128 ka = (unsigned __int128)a->time << 64 | a->seq;
	unsigned __int128 kb = (unsigned __int128)b->time << 64 | b->seq;
	return ka < kb;
}

/* Past the last event the heap keeps HEAP_PAD sentinels, keyed after every
 * event, so that a node always has four children to compare: the sift never
 * takes the loop over a partial set (the common case in a small heap, one
 * node per few actors).  A sentinel never moves: no event comes after it. */
#define HEAP_PAD 4
static const struct sim_event sentinel = { SIM_TIME_MAX, UINT64_MAX, NULL, NULL };

static __attribute__((noinline, cold)) void heap_grow(struct sim_engine *eng)
{
	size_t old = eng->heap ? eng->cap + HEAP_PAD : 0;
	eng->cap = eng->cap ? eng->cap * 2 : 1024;
	eng->heap = xrealloc(eng->heap, (eng->cap + HEAP_PAD) * sizeof(*eng->heap));
	for (size_t i = old; i < eng->cap + HEAP_PAD; i++)
		eng->heap[i] = sentinel;
}

static inline __attribute__((always_inline)) void heap_push(struct sim_engine *eng,
							     struct sim_event ev)
{
	if (__builtin_expect(eng->n == eng->cap, 0))
		heap_grow(eng);
	size_t i = eng->n++;
	struct sim_event *h = eng->heap;
	while (i > 0) {
		size_t parent = (i - 1) / 4;
		if (!ev_before(&ev, &h[parent]))
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = ev;
}

/* queue_push's way into the heap, rare (held or front displaced): out of
 * line, so that the common push -- becoming held -- needs no registers. */
static __attribute__((noinline)) void heap_push_cold(struct sim_engine *eng, struct sim_event ev)
{
	heap_push(eng, ev);
}

/* Fills the hole at i with ev, moving smaller children up (i is 0 but
 * for purge_stale's rebuild). */
static inline __attribute__((always_inline)) void heap_sift_down_from(struct sim_engine *eng,
								       size_t i, struct sim_event ev)
{
	struct sim_event *h = eng->heap;
	size_t n = eng->n;

	for (;;) {
		size_t c = 4 * i + 1;
		if (c >= n)
			break;
		/* Pairwise, so the two halves' compares overlap; past n the
		 * children are sentinels (HEAP_PAD), which never win. */
		size_t a = ev_before(&h[c + 1], &h[c]) ? c + 1 : c;
		size_t b = ev_before(&h[c + 3], &h[c + 2]) ? c + 3 : c + 2;
		size_t best = ev_before(&h[b], &h[a]) ? b : a;
		if (!ev_before(&h[best], &ev))
			break;
		h[i] = h[best];
		i = best;
	}
	h[i] = ev;
}

static inline __attribute__((always_inline)) void heap_sift_down(struct sim_engine *eng,
								  struct sim_event ev)
{
	heap_sift_down_from(eng, 0, ev);
}

static inline __attribute__((always_inline)) struct sim_event heap_pop(struct sim_engine *eng)
{
	struct sim_event top = eng->heap[0];
	struct sim_event last = eng->heap[--eng->n];
	eng->heap[eng->n] = sentinel;
	if (eng->n > 0)
		heap_sift_down(eng, last);
	return top;
}

/* ---- The queue -------------------------------------------------------------
 * The heap plus two events kept outside it, for the two commonest steps of
 * a simulation.  An actor that reschedules itself before everyone else
 * ("wake someone, then block", or a wait that nobody overtakes) becomes
 * front, and is popped without touching the heap.  One that reschedules
 * itself later is held: the pop that follows then takes the heap's top and
 * sifts the held event down into its place, one pass instead of a push's
 * and a pop's.  Invariants: front, when there is one, precedes every other
 * pending event, held included; held is not compared with the heap until
 * the next pop (queue_settle) or push (which places it). */

static inline __attribute__((always_inline)) void queue_push(struct sim_engine *eng,
							      struct sim_event ev)
{
	if (eng->has_held) {
		eng->has_held = false;
		heap_push_cold(eng, eng->held);
	}
	if (!eng->has_front) {
		if (eng->n == 0 || ev_before(&ev, &eng->heap[0])) {
			eng->front = ev;
			eng->has_front = true;
			return;
		}
	} else if (ev_before(&ev, &eng->front)) {
		heap_push_cold(eng, eng->front);
		eng->front = ev;
		return;
	}
	eng->held = ev;
	eng->has_held = true;
}

static inline size_t queue_len(const struct sim_engine *eng)
{
	return eng->n + eng->has_front + eng->has_held;
}

/* Makes front the earliest pending event, if any is pending. */
static inline __attribute__((always_inline)) void queue_settle(struct sim_engine *eng)
{
	if (eng->has_front)
		return;
	if (eng->has_held) {
		eng->has_held = false;
		eng->has_front = true;
		if (eng->n == 0 || ev_before(&eng->held, &eng->heap[0])) {
			eng->front = eng->held;
		} else {
			eng->front = eng->heap[0];
			heap_sift_down(eng, eng->held);
		}
	} else if (eng->n > 0) {
		eng->has_front = true;
		eng->front = heap_pop(eng);
	}
}

/* ---- Superseded resumes --------------------------------------------------
 * A wake that ends a block before its time-out leaves the time-out's resume
 * pending, stale: its seq is no longer the actor's wake_seq.  Dropping it
 * when it is popped costs nothing, but it is popped only at its own time,
 * which may be far off -- a G computing for hours whose M is preempted
 * every 10 ms would leave one per preemption, and memory would grow with
 * the run.  So a superseded resume in front or held is dropped at once,
 * and those in the heap are counted: once they are more than half of it,
 * one pass takes every stale event out and rebuilds the heap (Floyd's,
 * bottom-up), O(n) for at least n/2 removed, so O(1) a supersession and
 * the heap never more than twice its live events (plus a small floor).
 * Events are keyed by a (time, seq) that no two share, so the order in
 * which the live ones fire does not depend on the heap's layout: purging
 * changes no simulated result.  Nothing has to be found or re-keyed on the
 * hot path, as it would with a heap that keeps back-pointers in actors. */

#define STALE_FLOOR 64   /* fewer stale events than this are left to their pops */

static inline bool stale_event(const struct sim_event *ev)
{
	return ev->fn == RESUME && ((const struct sim_actor *)ev->arg)->wake_seq != ev->seq;
}

static __attribute__((noinline, cold)) void purge_stale(struct sim_engine *eng)
{
	struct sim_event *h = eng->heap;
	size_t n = 0;
	for (size_t i = 0; i < eng->n; i++)
		if (!stale_event(&h[i]))
			h[n++] = h[i];
	for (size_t i = n; i < eng->n; i++)
		h[i] = sentinel;
	eng->n = n;
	for (size_t i = n > 1 ? (n - 2) / 4 + 1 : 0; i-- > 0;)
		heap_sift_down_from(eng, i, h[i]);
	/* a stale event popped from the heap and left in front by a run that
	 * reached its limit */
	if (eng->has_front && stale_event(&eng->front))
		eng->has_front = false;
	eng->stale = 0;
}

/* The pending resume seq of some actor no longer counts. */
static void supersede(struct sim_engine *eng, uint64_t seq)
{
	eng->stats.stale++;
	if (eng->has_front && eng->front.seq == seq) {
		eng->has_front = false;
		return;
	}
	if (eng->has_held && eng->held.seq == seq) {
		eng->has_held = false;
		return;
	}
	if (++eng->stale >= STALE_FLOOR && eng->stale > eng->n / 2)
		purge_stale(eng);
}

/* ---- Engine -------------------------------------------------------------- */

struct sim_engine *sim_engine_new(void)
{
	struct sim_engine *eng = xcalloc(1, sizeof(*eng));
	eng->limit = SIM_TIME_MAX;
	eng->next_seq = 1;
	eng->page = (size_t)sysconf(_SC_PAGESIZE);
	ctx_init_thread(&eng->main_ctx);
	return eng;
}

static void reap_dead(struct sim_engine *eng)
{
	while (eng->dead) {
		struct sim_actor *a = eng->dead;
		eng->dead = a->next_dead;
		ctx_destroy(&a->ctx);
		munmap(a->stack, a->stack_map);
		free(a);
	}
}

void sim_engine_free(struct sim_engine *eng)
{
	if (!eng)
		return;
	assert(!eng->head.current && "sim_engine_free called from inside a run");
	/* Actors still suspended are abandoned with their stacks: nothing of
	 * theirs runs again, so only their memory needs returning. */
	while (eng->live) {
		struct sim_actor *a = eng->live;
		eng->live = a->next_live;
		a->next_dead = eng->dead;
		eng->dead = a;
	}
	reap_dead(eng);
	free(eng->heap);
	free(eng);
}

size_t sim_pending(const struct sim_engine *eng) { return queue_len(eng); }

size_t sim_pending_live(struct sim_engine *eng)
{
	assert(!eng->head.current && "sim_pending_live is for between runs");
	/* after sim_run_until no stale event points at an unmapped actor */
	if (eng->stale)
		purge_stale(eng);
	return queue_len(eng);
}
const struct sim_stats *sim_stats(const struct sim_engine *eng) { return &eng->stats; }

/* The sequence numbers' high SIM_TIE_BITS carry the tie-break's priority;
 * 2^44 events are more than any run fires. */
#define TIE_SHIFT (64 - SIM_TIE_BITS)

void sim_set_own_clock(struct sim_engine *eng, bool on)
{
	eng->no_own_clock = !on;
}

void sim_set_tiebreak(struct sim_engine *eng, sim_tie_fn fn, void *ctx)
{
	eng->tie = fn;
	eng->tie_ctx = ctx;
}

/* An event for the current instant never goes before the one firing:
 * its priority is raised to that one's if lower. */
static __attribute__((noinline, cold)) uint64_t tie_seq(struct sim_engine *eng, sim_time_t at,
							 sim_event_fn fn, void *arg, uint64_t seq)
{
	uint64_t prio = eng->tie(eng->tie_ctx, fn == RESUME ? arg : NULL) &
			(((uint64_t)1 << SIM_TIE_BITS) - 1);
	uint64_t cur = eng->last_seq >> TIE_SHIFT;
	if (at == eng->head.now && prio < cur)
		prio = cur;
	return prio << TIE_SHIFT | seq;
}

static inline __attribute__((always_inline)) uint64_t push_event(struct sim_engine *eng, sim_time_t at,
								  sim_event_fn fn, void *arg)
{
	assert(at >= eng->head.now && "an event may not be scheduled in the past");
	uint64_t seq = eng->next_seq++;
	if (__builtin_expect(eng->tie != NULL, 0))
		seq = tie_seq(eng, at, fn, arg, seq);
	struct sim_event ev = { at, seq, fn, arg };
	queue_push(eng, ev);
	if (queue_len(eng) > eng->stats.peak_pending)
		eng->stats.peak_pending = queue_len(eng);
	return ev.seq;
}

void sim_schedule(struct sim_engine *eng, sim_time_t at, sim_event_fn fn, void *arg)
{
	push_event(eng, at, fn, arg);
}

void sim_stop(struct sim_engine *eng)
{
	__atomic_store_n(&eng->limit, 0, __ATOMIC_RELAXED);
}

/* The event (time, seq) fires: the tie-break's reference, and in debug
 * builds the named invariant. */
static inline __attribute__((always_inline)) void mark_fired(struct sim_engine *eng,
							      sim_time_t time, uint64_t seq)
{
#ifndef NDEBUG
	assert((!eng->fired_any || time > eng->last_time ||
		(time == eng->last_time && seq > eng->last_seq)) &&
	       "events must fire in strictly increasing (time, seq) order");
	eng->last_time = time;
	eng->fired_any = true;
#endif
	eng->last_seq = seq;
}

/* ---- Dispatch ------------------------------------------------------------
 * Runs on whatever stack is current (self's, or main's when self is NULL)
 * and returns once self is the actor to resume; from main it returns when
 * the run is over.  A dead self is never returned to. */

static inline __attribute__((always_inline)) void
dispatch_from(struct sim_engine *eng, struct sim_actor *self, bool final)
{
	for (;;) {
		queue_settle(eng);
		if (!eng->has_front ||
		    eng->front.time >= __atomic_load_n(&eng->limit, __ATOMIC_RELAXED)) {
			if (!self)
				return;
			eng->head.current = NULL;
			eng->stats.switches++;
			if (final)
				ctx_exit_to(&self->ctx, &eng->main_ctx);
			else
				ctx_switch(&self->ctx, &eng->main_ctx);
			/* Resumed: only a resume event of ours does that. */
			return;
		}
		struct sim_event ev = eng->front;
		eng->has_front = false;
		if (ev.fn == RESUME) {
			struct sim_actor *a = ev.arg;
			if (a->wake_seq != ev.seq) {
				eng->stale--;
				continue;
			}
			a->wake_seq = 0;
		}
		mark_fired(eng, ev.time, ev.seq);
		/* relaxed: a plain store on x86-64, and no race with the
		 * progress line's read (sim_now_from_outside) */
		__atomic_store_n(&eng->head.now, ev.time, __ATOMIC_RELAXED);
		eng->stats.events++;
		if (ev.fn != RESUME) {
			ev.fn(eng, ev.arg);
			continue;
		}
		struct sim_actor *a = ev.arg;
		a->state = SIM_ACTOR_RUNNING;
		eng->head.current = a;
		if (a == self)
			return;
		eng->stats.switches++;
		struct ctx *from = self ? &self->ctx : &eng->main_ctx;
		if (final)
			ctx_exit_to(from, &a->ctx);
		else
			ctx_switch(from, &a->ctx);
		if (self)
			return; /* someone switched back to us: we were resumed */
		/* Main stack: an actor found nothing left to do (or hit the
		 * limit) and came back here; recheck the end conditions. */
	}
}

static void dispatch(struct sim_engine *eng, struct sim_actor *self)
{
	dispatch_from(eng, self, false);
}

static void dispatch_final(struct sim_engine *eng, struct sim_actor *self)
{
	dispatch_from(eng, self, true);
}

uint64_t sim_run_until(struct sim_engine *eng, sim_time_t until)
{
	assert(!eng->head.current && "sim_run may not be nested inside an actor");
	uint64_t before = eng->stats.events + eng->stats.advances;
	/* Events at SIM_TIME_MAX itself never fire: it means "no deadline".
	 * Between runs the limit is SIM_TIME_MAX, unless a sim_stop came
	 * first: then it stays 0 and this run ends at once. */
	sim_time_t rest = SIM_TIME_MAX;
	__atomic_compare_exchange_n(&eng->limit, &rest, until == SIM_TIME_MAX ? SIM_TIME_MAX : until + 1,
				    false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	dispatch(eng, NULL);
	eng->head.current = NULL;
	__atomic_store_n(&eng->limit, SIM_TIME_MAX, __ATOMIC_RELAXED);
	/* Ended actors are unmapped next: no event may point at them after. */
	if (eng->dead && eng->stale)
		purge_stale(eng);
	reap_dead(eng);
	return eng->stats.events + eng->stats.advances - before;
}

uint64_t sim_run(struct sim_engine *eng)
{
	return sim_run_until(eng, SIM_TIME_MAX);
}

/* ---- Actors --------------------------------------------------------------- */

static void resume_at(struct sim_actor *a, sim_time_t at)
{
	a->state = SIM_ACTOR_READY;
	a->wake_seq = push_event(a->eng, at, RESUME, a);
}

static __attribute__((noinline)) void resume_superseding(struct sim_actor *a, sim_time_t at)
{
	supersede(a->eng, a->wake_seq);
	resume_at(a, at);
}

static void actor_main(void *arg)
{
	struct sim_actor *self = arg;
	self->fn(self, self->arg);
	sim_exit(self);
}

struct sim_actor *sim_spawn(struct sim_engine *eng, const char *name, sim_actor_fn fn,
			    void *arg, size_t stack_size)
{
	if (stack_size == 0)
		stack_size = SIM_STACK_DEFAULT;
	size_t size = (stack_size + eng->page - 1) / eng->page * eng->page;
	size_t map = size + eng->page;
	void *mem = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);
	if (mem == MAP_FAILED)
		die_oom(map);
	/* The lowest page stays inaccessible: an overflow faults instead of
	 * silently writing over a neighbour. */
	if (mprotect(mem, eng->page, PROT_NONE) != 0)
		die_oom(map);

	struct sim_actor *a = xcalloc(1, sizeof(*a));
	a->eng = eng;
	a->id = eng->next_actor_id++;
	a->name = name;
	a->fn = fn;
	a->arg = arg;
	a->stack = mem;
	a->stack_map = map;
	ctx_make(&a->ctx, (char *)mem + eng->page, size, actor_main, a);
	eng->stats.actors++;
	a->next_live = eng->live;
	if (eng->live)
		eng->live->prev_live = a;
	eng->live = a;
	resume_at(a, eng->head.now);
	return a;
}

static void suspend(struct sim_actor *self)
{
	assert(self->eng->head.current == self && "only the running actor may suspend itself");
	dispatch(self->eng, self);
}

/* ---- Own clock -------------------------------------------------------------
 * A running actor that waits until t, where t comes before every pending
 * event, would have its resume fire next anyway: pushed as front, popped at
 * once, no switch.  So it just moves the clock.  The (time, seq) order of
 * everything else is unchanged: the one seq that would have been handed out
 * is not, and seqs only order events among themselves.  With exploration's
 * tie-break the priority is still drawn, as the event would have drawn it
 * (the function may take from its schedule's random stream and count its
 * perturbations), and becomes the firing one's: an explored schedule is the
 * same with or without the shortcut. */
static inline __attribute__((always_inline)) bool runs_first(const struct sim_engine *eng,
							      sim_time_t t)
{
	if (eng->has_front)
		return t < eng->front.time;
	if (eng->has_held && t >= eng->held.time)
		return false;
	return eng->n == 0 || t < eng->heap[0].time;
}

/* Under a tie-break: what scheduling self's resume at t and firing it
 * would have left behind, the priority drawn and the seq fired. */
static __attribute__((noinline)) void fire_in_place(struct sim_engine *eng, struct sim_actor *self,
						    sim_time_t t)
{
	mark_fired(eng, t, tie_seq(eng, t, RESUME, self, eng->next_seq++));
}

/* Out of line, so that the clock-only case above needs no registers. */
static __attribute__((noinline)) void wait_by_event(struct sim_actor *self, sim_time_t t)
{
	resume_at(self, t);
	suspend(self);
}

void sim_wait_until(struct sim_actor *self, sim_time_t t)
{
	struct sim_engine *eng = self->eng;
	assert(eng->head.current == self && "only the running actor may suspend itself");
	if (runs_first(eng, t) && t < __atomic_load_n(&eng->limit, __ATOMIC_RELAXED) &&
	    __builtin_expect(!eng->no_own_clock, 1)) {
		assert(t >= eng->head.now && "an actor may not wait for the past");
		if (__builtin_expect(eng->tie != NULL, 0))
			fire_in_place(eng, self, t);
		__atomic_store_n(&eng->head.now, t, __ATOMIC_RELAXED);
		eng->stats.advances++;
		return;
	}
	wait_by_event(self, t);
}

void sim_sleep(struct sim_actor *self, sim_time_t dt)
{
	sim_time_t now = self->eng->head.now;
	sim_wait_until(self, dt < SIM_TIME_MAX - now ? now + dt : SIM_TIME_MAX);
}

void sim_yield(struct sim_actor *self)
{
	sim_wait_until(self, self->eng->head.now);
}

void sim_block(struct sim_actor *self)
{
	(void)sim_block_until(self, SIM_TIME_MAX);
}

bool sim_block_until(struct sim_actor *self, sim_time_t deadline)
{
	if (self->wake_pending) {
		self->wake_pending = false;
		self->woken = true;
		return true;
	}
	self->woken = false;
	self->state = SIM_ACTOR_BLOCKED;
	if (deadline != SIM_TIME_MAX)
		self->wake_seq = push_event(self->eng, deadline, RESUME, self);
	else
		self->wake_seq = 0;
	suspend(self);
	return self->woken;
}

void sim_wake(struct sim_actor *target, sim_time_t at)
{
	if (target->state == SIM_ACTOR_DEAD)
		return;
	if (target->state != SIM_ACTOR_BLOCKED) {
		target->wake_pending = true;
		return;
	}
	target->woken = true;
	/* the one way a resume is superseded: a blocked actor's time-out
	 * (out of line, so that the commoner wake stays a tail call) */
	if (target->wake_seq)
		resume_superseding(target, at);
	else
		resume_at(target, at);
}

_Noreturn void sim_exit(struct sim_actor *self)
{
	struct sim_engine *eng = self->eng;
	self->state = SIM_ACTOR_DEAD;
	self->wake_seq = 0;
	if (self->prev_live)
		self->prev_live->next_live = self->next_live;
	else
		eng->live = self->next_live;
	if (self->next_live)
		self->next_live->prev_live = self->prev_live;
	self->next_dead = eng->dead;
	eng->dead = self;
	dispatch_final(eng, self);
	abort(); /* a dead actor is never resumed */
}
