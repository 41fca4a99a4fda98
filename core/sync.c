/* sync.WaitGroup and sync.Mutex: both park Gs, never Ms.
 *
 * Mutex.  The state word holds a locked bit and a waiters bit.  Lock tries
 * a CAS; failing that it spins a little (at most 4 rounds of 30 PAUSEs,
 * and only where spinning can pay: more than one P, some other P running,
 * and nothing else runnable here -- Go's canSpin); then, under the
 * mutex's queue lock, it either takes the lock after all or sets the
 * waiters bit and parks its G on the queue.  Unlock swaps the state to 0;
 * if the waiters bit was set it wakes the first waiter, which tries again
 * (and may lose to a G that arrived meanwhile: Go's "normal mode"; the
 * starvation mode that hands the lock straight to a waiter after 1 ms is
 * not modelled).  The waiters bit is set only under the queue lock with
 * the mutex locked, and cleared only by the unlock that then looks at
 * the queue under the same lock, so no wake-up is lost.
 *
 * WaitGroup.  As Go's: one atomic word holds the counter (high half) and
 * the number of waiters (low half), so Add and Done are one atomic add
 * and take no lock unless the counter reaches zero with waiters.  A
 * waiter registers by CAS under the queue lock, only while the counter is
 * non-zero, and parks with the lock released once it is off its M; the
 * Add that reaches zero with waiters takes the lock (so it waits for the
 * last of them to be parked), clears the word and readies them all. */
#include "core/runtime.h"

#include <assert.h>
#include <stdlib.h>

enum {
	GM_LOCKED = 1u,
	GM_WAITERS = 2u,
};

#define GM_SPIN_ROUNDS 4
#define GM_SPIN_PAUSES 30

struct gmutex *rt_gmutex_new(struct rt *rt, int node)
{
	struct gmutex *mu = xcalloc(1, sizeof(*mu));
	plat_line_t line = plat_line_new(rt, node);
	plat_u32_init(&mu->state, 0, line);
	rt_mutex_init(rt, &mu->qlock, line, RT_LOCK_SYNC);
	return mu;
}

/* Go's sync_runtime_canSpin. */
static bool can_spin(struct m *m, int round)
{
	struct rt *rt = m->rt;
	if (round >= GM_SPIN_ROUNDS || rt->procs <= 1)
		return false;
	uint32_t idle = plat_load_u32(&rt->sched.npidle, memory_order_relaxed) +
			plat_load_u32(&rt->sched.nmspinning, memory_order_relaxed);
	if ((uint32_t)rt->procs <= idle + 1)
		return false;
	return rt_runqempty(m->p);
}

static bool try_lock(struct gmutex *mu)
{
	uint32_t v = plat_load_u32(&mu->state, memory_order_relaxed);
	while (!(v & GM_LOCKED))
		if (plat_cas_u32(&mu->state, &v, v | GM_LOCKED, memory_order_acquire))
			return true;
	return false;
}

static void gmutex_qunlock(void *arg)
{
	rt_unlock(&((struct gmutex *)arg)->qlock);
}

bool rt_gmutex_lock(struct m *m, struct gmutex *mu)
{
	if (try_lock(mu))
		return true;
	/* The spin is the M's spin time [proc: Where the time goes]. */
	bool got = false, spun = false;
	unsigned was = 0;
	for (int round = 0; !got && can_spin(m, round); round++) {
		if (!spun)
			was = rt_mt_switch(m, RT_MT(RT_CPU_SPIN, 1));   /* 1: not an M's spin for work */
		spun = true;
		plat_procyield(GM_SPIN_PAUSES);
		got = try_lock(mu);
	}
	if (spun)
		rt_mt_switch(m, was);
	if (got)
		return true;
	rt_lock(&mu->qlock);
	uint32_t v = plat_load_u32(&mu->state, memory_order_relaxed);
	for (;;) {
		if (!(v & GM_LOCKED)) {
			if (plat_cas_u32(&mu->state, &v, v | GM_LOCKED, memory_order_acquire)) {
				rt_unlock(&mu->qlock);
				return true;
			}
		} else if ((v & GM_WAITERS) ||
			   plat_cas_u32(&mu->state, &v, v | GM_WAITERS, memory_order_relaxed)) {
			break;
		}
	}
	struct g *g = m->curg;
	g->sud.g = g;
	g->waitreason = RT_WAIT_MUTEX;
	waitq_push(&mu->q, &g->sud);
	rt_park_commit(m, gmutex_qunlock, mu);
	return false;
}

/* Unlocking a mutex that is not locked panics (in Go a fatal error, which
 * no recover catches; here every panic ends the run anyway). */
void rt_gmutex_unlock(struct m *m, struct gmutex *mu)
{
	uint32_t old = plat_xchg_u32(&mu->state, 0, memory_order_release);
	if (!(old & GM_LOCKED)) {
		rt_panic(m, "sync: unlock of unlocked mutex");
		return;
	}
	if (!(old & GM_WAITERS))
		return;
	rt_lock(&mu->qlock);
	struct sudog *s = waitq_pop(&mu->q);
	if (mu->q.first) {
		/* others still wait: the next unlock must look again */
		uint32_t v = plat_load_u32(&mu->state, memory_order_relaxed);
		while (!plat_cas_u32(&mu->state, &v, v | GM_WAITERS, memory_order_relaxed))
			;
	}
	rt_unlock(&mu->qlock);
	if (s)
		rt_ready(m, s->g);
}

/* ---- WaitGroup ---- */

struct waitgroup *rt_waitgroup_new(struct rt *rt, int node)
{
	struct waitgroup *wg = xcalloc(1, sizeof(*wg));
	wg->line = plat_line_new(rt, node);
	plat_u64_init(&wg->state, 0, wg->line);
	rt_mutex_init(rt, &wg->lock, wg->line, RT_LOCK_SYNC);
	return wg;
}

#define WG_COUNT(s) ((int32_t)((s) >> 32))
#define WG_WAITERS(s) ((uint32_t)(s))

/* A counter taken below zero panics, as Go's Add does. */
void rt_waitgroup_add(struct m *m, struct waitgroup *wg, int64_t delta)
{
	uint64_t st = plat_add_u64(&wg->state, (uint64_t)delta << 32, memory_order_acq_rel) +
		      ((uint64_t)delta << 32);
	if (WG_COUNT(st) < 0) {
		rt_panic(m, "sync: negative WaitGroup counter");
		return;
	}
	if (WG_COUNT(st) > 0 || WG_WAITERS(st) == 0)
		return;
	rt_lock(&wg->lock);
	plat_shared_access(wg->line, true);
	plat_store_u64(&wg->state, 0, memory_order_relaxed);
	struct sudog *waiters = wg->q.first;
	wg->q.first = wg->q.last = NULL;
	rt_unlock(&wg->lock);
	while (waiters) {
		struct sudog *s = waiters;
		waiters = s->next;
		s->next = s->prev = NULL;
		s->queued = false;
		rt_ready(m, s->g);
	}
}

static void waitgroup_unlock(void *arg)
{
	rt_unlock(&((struct waitgroup *)arg)->lock);
}

bool rt_waitgroup_wait(struct m *m, struct waitgroup *wg)
{
	uint64_t st = plat_load_u64(&wg->state, memory_order_acquire);
	if (WG_COUNT(st) == 0)
		return true;
	rt_lock(&wg->lock);
	plat_shared_access(wg->line, false);
	st = plat_load_u64(&wg->state, memory_order_acquire);
	do {
		if (WG_COUNT(st) == 0) {
			rt_unlock(&wg->lock);
			return true;
		}
	} while (!plat_cas_u64(&wg->state, &st, st + 1, memory_order_acq_rel));
	struct g *g = m->curg;
	g->sud.g = g;
	g->waitreason = RT_WAIT_WAITGROUP;
	waitq_push(&wg->q, &g->sud);
	rt_park_commit(m, waitgroup_unlock, wg);
	return false;
}
