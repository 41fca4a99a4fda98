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
	struct sim_event *heap;
	size_t n, cap;
	sim_time_t now;
	uint64_t next_seq;
	sim_time_t until;
	bool stop;
	struct ctx main_ctx;        /* the stack sim_run was called on */
	struct sim_actor *current;  /* NULL while on the main stack */
	struct sim_actor *dead;     /* ended actors whose stacks await unmapping */
	struct sim_actor *live;     /* every actor not yet ended */
	struct sim_stats stats;
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

static inline bool ev_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void heap_push(struct sim_engine *eng, struct sim_event ev)
{
	if (eng->n == eng->cap) {
		eng->cap = eng->cap ? eng->cap * 2 : 1024;
		eng->heap = xrealloc(eng->heap, eng->cap * sizeof(*eng->heap));
	}
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
	if (eng->n > eng->stats.peak_pending)
		eng->stats.peak_pending = eng->n;
}

static struct sim_event heap_pop(struct sim_engine *eng)
{
	struct sim_event *h = eng->heap;
	struct sim_event top = h[0];
	struct sim_event last = h[--eng->n];
	size_t n = eng->n, i = 0;

	for (;;) {
		size_t c = 4 * i + 1;
		if (c >= n)
			break;
		size_t best = c;
		size_t end = c + 4 < n ? c + 4 : n;
		for (size_t k = c + 1; k < end; k++)
			if (ev_before(&h[k], &h[best]))
				best = k;
		if (!ev_before(&h[best], &last))
			break;
		h[i] = h[best];
		i = best;
	}
	if (n > 0)
		h[i] = last;
	return top;
}

/* ---- Engine -------------------------------------------------------------- */

struct sim_engine *sim_engine_new(void)
{
	struct sim_engine *eng = xcalloc(1, sizeof(*eng));
	eng->until = SIM_TIME_MAX;
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
	assert(!eng->current && "sim_engine_free called from inside a run");
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

sim_time_t sim_now(const struct sim_engine *eng) { return eng->now; }
size_t sim_pending(const struct sim_engine *eng) { return eng->n; }
const struct sim_stats *sim_stats(const struct sim_engine *eng) { return &eng->stats; }
struct sim_actor *sim_current(const struct sim_engine *eng) { return eng->current; }

static uint64_t push_event(struct sim_engine *eng, sim_time_t at, sim_event_fn fn, void *arg)
{
	assert(at >= eng->now && "an event may not be scheduled in the past");
	struct sim_event ev = { at, eng->next_seq++, fn, arg };
	heap_push(eng, ev);
	return ev.seq;
}

void sim_schedule(struct sim_engine *eng, sim_time_t at, sim_event_fn fn, void *arg)
{
	push_event(eng, at, fn, arg);
}

void sim_stop(struct sim_engine *eng)
{
	eng->stop = true;
}

/* ---- Dispatch ------------------------------------------------------------
 * Runs on whatever stack is current (self's, or main's when self is NULL)
 * and returns once self is the actor to resume; from main it returns when
 * the run is over.  A dead self is never returned to. */

static void switch_to(struct sim_engine *eng, struct sim_actor *self, struct ctx *to,
		      struct sim_actor *next)
{
	struct ctx *from = self ? &self->ctx : &eng->main_ctx;
	eng->current = next;
	eng->stats.switches++;
	if (self && self->state == SIM_ACTOR_DEAD)
		ctx_exit_to(from, to);
	else
		ctx_switch(from, to);
}

static void dispatch(struct sim_engine *eng, struct sim_actor *self)
{
	for (;;) {
		if (eng->stop || eng->n == 0 || eng->heap[0].time > eng->until) {
			if (!self)
				return;
			switch_to(eng, self, &eng->main_ctx, NULL);
			/* Resumed: only a resume event of ours does that. */
			return;
		}
		struct sim_event ev = heap_pop(eng);
		if (ev.fn == RESUME) {
			struct sim_actor *a = ev.arg;
			if (a->wake_seq != ev.seq) {
				eng->stats.stale++;
				continue;
			}
			a->wake_seq = 0;
		}
#ifndef NDEBUG
		assert((!eng->fired_any || ev.time > eng->last_time ||
			(ev.time == eng->last_time && ev.seq > eng->last_seq)) &&
		       "events must fire in strictly increasing (time, seq) order");
		eng->last_time = ev.time;
		eng->last_seq = ev.seq;
		eng->fired_any = true;
#endif
		eng->now = ev.time;
		eng->stats.events++;
		if (ev.fn != RESUME) {
			ev.fn(eng, ev.arg);
			continue;
		}
		struct sim_actor *a = ev.arg;
		a->state = SIM_ACTOR_RUNNING;
		if (a == self) {
			eng->current = self;
			return;
		}
		switch_to(eng, self, &a->ctx, a);
		if (self)
			return; /* someone switched back to us: we were resumed */
		/* Main stack: an actor found nothing left to do (or hit the
		 * limit) and came back here; recheck the end conditions. */
	}
}

uint64_t sim_run_until(struct sim_engine *eng, sim_time_t until)
{
	assert(!eng->current && "sim_run may not be nested inside an actor");
	uint64_t before = eng->stats.events;
	eng->until = until;
	eng->stop = false;
	dispatch(eng, NULL);
	eng->current = NULL;
	eng->until = SIM_TIME_MAX;
	reap_dead(eng);
	return eng->stats.events - before;
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
	resume_at(a, eng->now);
	return a;
}

static void suspend(struct sim_actor *self)
{
	assert(self->eng->current == self && "only the running actor may suspend itself");
	dispatch(self->eng, self);
}

void sim_wait_until(struct sim_actor *self, sim_time_t t)
{
	resume_at(self, t);
	suspend(self);
}

void sim_sleep(struct sim_actor *self, sim_time_t dt)
{
	sim_wait_until(self, self->eng->now + dt);
}

void sim_yield(struct sim_actor *self)
{
	sim_wait_until(self, self->eng->now);
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
	dispatch(eng, self);
	abort(); /* a dead actor is never resumed */
}
