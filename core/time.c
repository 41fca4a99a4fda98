/* Timers and sleeping: per-P timer heaps, and the one M that sleeps until
 * the next timer or network readiness, whichever comes first (Go's
 * netpoller block).
 *
 * A sleeping G costs no M: it parks, and its timer goes on the heap of the
 * P it ran on.  Timers are run by the scheduler: an M checks its own P's
 * heap each time it looks for work, a thief checks its victims' heaps on
 * the last steal pass, and when every M has run out of work, one of them
 * (the poller) sleeps until the earliest timer of any P, then takes an
 * idle P and runs every due timer.  Adding a timer earlier than the
 * poller's wake-up interrupts its sleep (wake_netpoller), as Go's
 * netpollBreak does.  That must not be missed: an M adding a timer (or a
 * workload arrival, netpoll.c) writes timer0 (arrival0) and then reads
 * polling; an M becoming the poller sets polling and then reads every
 * timer0 and arrival0 for its deadline.  All four are seq_cst, so one of
 * the two sees the other's write: the poller's deadline counts the new
 * timer, or its adder breaks the wait (finding no poller, it wakes an M,
 * or the Ms holding Ps will see the timer before they park).  Natively
 * a break is an eventfd only the poller reads (native/plat.c).
 *
 * Go 1.14 (choices.timers_own_p, steal's go=114) ran timers the same way
 * but left a running P's timers to that P unless its G was marked for
 * preemption (Go's shouldStealTimers): thieves skip them, the poller's
 * deadline leaves them out, a timer added with no poller wakes no M, and
 * sysmon starts an M (if a P is idle) when some timer is overdue.  So a
 * timer set by a G that then computes fires when sysmon preempts that G --
 * 10 ms after sysmon first saw its time slice, on sysmon's tick, which is
 * 10 ms itself once sysmon has found nothing to retake for a while: the
 * 17 ms of golang/go #38860, fixed in Go 1.16 (CL 232298) by stealing
 * any P's timers and waking an M for them, as the rest of this file does.
 *
 * Go 1.13 (choices.timerproc, steal's go=113) ran none of this: its
 * timers were in 64 buckets (the adding P's id modulo 64: a P's heap here
 * is its bucket, and above 64 Ps the bucket is shared), each served by a
 * timer goroutine of the runtime's (timerproc).  That G runs what is due
 * -- readying sleepers onto its own P, as goready does -- and then sleeps
 * until the next timer in a system call known to block (notetsleepg:
 * entersyscallblock hands the P off at once), holding its M; the wake-up
 * is a futex time-out (or notewakeup, when an earlier timer is added),
 * after which the G needs a P again: an idle one, or the global queue
 * while its M parks.  With no timer left it parks, readied by the next
 * add.  So every expiry costs a thread's wake-up and a P, and under load
 * the timer G queues behind everyone else: the threads, futex calls and
 * global queue of golang/go #28808.  Nothing else runs timers then: not
 * the Ms as they schedule, not thieves, not the poller.
 *
 * A heap is 4-ary, ordered by (when, seq): seq is the P's insertion count,
 * so timers due at the same nanosecond fire in the order they were set.
 * A P's heap is guarded by its timers_lock; timer0 (the earliest when, 0
 * if none) is an atomic that others read without the lock. */
#include "core/runtime.h"

#include <assert.h>
#include <stdlib.h>

void rt_timers_init(struct rt *rt, struct p *pp)
{
	pp->timers_line = plat_line_new(rt, pp->node);
	rt_mutex_init(rt, &pp->timers_lock, pp->timers_line, RT_LOCK_TIMERS);
	plat_u64_init(&pp->timer0, 0, pp->timers_line);
	if (rt->choices.timerproc)
		rt_note_init(&pp->tp_note, plat_line_new(rt, pp->node));
}

void rt_timers_free(struct p *pp)
{
	free(pp->timers);
}

static bool before(const struct timer *a, const struct timer *b)
{
	return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

static void heap_set(struct p *pp, uint32_t i, struct timer *t)
{
	pp->timers[i] = t;
	t->idx = i;
}

static void sift_up(struct p *pp, uint32_t i)
{
	struct timer *t = pp->timers[i];
	while (i > 0) {
		uint32_t parent = (i - 1) / 4;
		if (!before(t, pp->timers[parent]))
			break;
		heap_set(pp, i, pp->timers[parent]);
		i = parent;
	}
	heap_set(pp, i, t);
}

static void sift_down(struct p *pp, uint32_t i)
{
	struct timer *t = pp->timers[i];
	for (;;) {
		uint32_t c = 4 * i + 1, best = i;
		struct timer *bt = t;
		for (uint32_t k = c; k < c + 4 && k < pp->ntimers; k++) {
			if (before(pp->timers[k], bt)) {
				best = k;
				bt = pp->timers[k];
			}
		}
		if (best == i)
			break;
		heap_set(pp, i, bt);
		i = best;
	}
	heap_set(pp, i, t);
}

/* timers_lock must be held.  seq_cst, as the poller's flag and its
 * reads of timer0: an M adding a timer writes timer0 then reads polling,
 * the poller writes polling then reads timer0, and at least one of the two
 * must see the other's write [rt_poll_block]. */
static void update_timer0(struct p *pp)
{
	plat_store_u64(&pp->timer0, pp->ntimers ? (uint64_t)pp->timers[0]->when : 0,
		       memory_order_seq_cst);
}

/* What a bucket's timer goroutine needs after an add (Go 1.13). */
enum tp_action { TP_NONE, TP_MAKE, TP_READY, TP_WAKE };
static void timerproc_kick(struct m *m, struct p *b, enum tp_action action);

/* Adds t to the running P's heap.  Called on an M holding a P. */
void rt_timer_add(struct m *m, struct timer *t)
{
	struct p *pp = m->p;
	assert(pp && !t->pp);
	if (m->rt->choices.timerproc)
		pp = m->rt->allp[pp->id % 64];   /* Go 1.13's bucket */
	if (t->when <= 0)
		t->when = 1;   /* 0 means "no timer" in timer0 */
	/* t is another M's once the lock is let go: it may fire, and its G
	 * sleep again (a new when), before the wake-up below */
	int64_t when = t->when;
	rt_lock(&pp->timers_lock);
	plat_shared_access(pp->timers_line, true);
	if (pp->ntimers == pp->captimers) {
		pp->captimers = pp->captimers ? 2 * pp->captimers : 16;
		pp->timers = xrealloc(pp->timers, pp->captimers * sizeof(*pp->timers));
	}
	t->seq = pp->timerseq++;
	t->pp = pp;
	heap_set(pp, pp->ntimers++, t);
	sift_up(pp, t->idx);
	bool earliest = pp->timers[0] == t;
	if (earliest)
		update_timer0(pp);
	if (m->rt->choices.timerproc) {
		/* decided under the lock, done after it (a G is made, readied
		 * or woken with other locks) */
		enum tp_action action = TP_NONE;
		if (!pp->tp_g) {
			action = TP_MAKE;
			pp->tp_g = (struct g *)(uintptr_t)1;   /* being made: no second */
		} else if (pp->tp_parked) {
			action = TP_READY;
			pp->tp_parked = false;
		} else if (earliest && pp->tp_sleeping && pp->tp_until > when) {
			action = TP_WAKE;
			pp->tp_sleeping = false;   /* one wake-up a sleep */
		}
		rt_unlock(&pp->timers_lock);
		if (action != TP_NONE)
			timerproc_kick(m, pp, action);
		return;
	}
	rt_unlock(&pp->timers_lock);
	if (earliest)
		rt_wake_netpoller(m, when);
}

/* Removes the heap's top.  timers_lock must be held. */
static struct timer *pop_top(struct p *pp)
{
	struct timer *t = pp->timers[0];
	if (--pp->ntimers > 0) {
		heap_set(pp, 0, pp->timers[pp->ntimers]);
		sift_down(pp, 0);
	}
	t->pp = NULL;
	return t;
}

/* rt_check_timers past its first look: pp has a timer, the earliest due
 * at next. */
/* Takes pp's timers due by now off its heap, in order (timers_lock held,
 * and the heap's line touched); *next gets when the next is due, 0 if
 * none is left. */
static struct timer *take_due(struct p *pp, int64_t now, int64_t *next)
{
	struct timer *due = NULL, **tail = &due;
	plat_shared_access(pp->timers_line, true);
	while (pp->ntimers && pp->timers[0]->when <= now) {
		struct timer *t = pop_top(pp);
		t->next = NULL;
		*tail = t;
		tail = &t->next;
	}
	update_timer0(pp);
	*next = pp->ntimers ? pp->timers[0]->when : 0;
	return due;
}

/* Runs what take_due took, without the lock: a callback readies a G,
 * which may take other locks and add timers. */
static void run_due(struct m *m, struct timer *due)
{
	while (due) {
		struct timer *t = due;
		due = t->next;
		t->f(m, t);
	}
}

int64_t rt_run_timers(struct m *m, struct p *pp, int64_t now, int64_t next)
{
	if (!now)
		now = plat_nanotime();
	if (next > now)
		return next;
	rt_lock(&pp->timers_lock);
	struct timer *due = take_due(pp, now, &next);
	rt_unlock(&pp->timers_lock);
	run_due(m, due);
	return next;
}

bool rt_timers_stealable(struct rt *rt, struct p *pp)
{
	if (!rt->choices.timers_own_p ||
	    plat_load_u32(&pp->status, memory_order_acquire) != P_RUNNING)
		return true;
	struct g *g = plat_load_ptr(&pp->curg, memory_order_acquire);
	return g && plat_load_u32(&g->preempt, memory_order_acquire);
}

/* ---- Go 1.13's timer goroutines ---- */

static void timerproc_kick(struct m *m, struct p *b, enum tp_action action)
{
	struct rt *rt = m->rt;
	if (action == TP_WAKE) {
		rt_note_wakeup(&b->tp_note);
		return;
	}
	if (action == TP_READY) {
		rt_ready(m, b->tp_g);
		return;
	}
	/* go timerproc(tb): made on the adding M's P, run next there */
	struct g *g = rt_newg(m);
	if (!g) {
		rt_panic(m, "runtime: out of memory: the timer goroutine would take the run past "
			    "its memory budget");
		return;
	}
	g->sys_p = b;
	g->runnable_since = -1;   /* the runtime's: in no figure */
	rt_lock(&b->timers_lock);
	b->tp_g = g;
	rt_unlock(&b->timers_lock);
	rt->pol->newproc(m, g);
}

static void timers_unlock(void *arg)
{
	rt_unlock(&((struct p *)arg)->timers_lock);
}

enum g_why rt_timerproc(struct m *m, struct g *g)
{
	struct rt *rt = m->rt;
	struct p *b = g->sys_p;
	for (;;) {
		int64_t now = plat_nanotime(), next;
		rt_lock(&b->timers_lock);
		b->tp_sleeping = false;
		struct timer *due = take_due(b, now, &next);
		if (due) {
			rt_unlock(&b->timers_lock);
			run_due(m, due);
			continue;
		}
		if (!next || rt_done(rt)) {
			/* goparkunlock: the next add readies it */
			b->tp_parked = true;
			g->waitreason = RT_WAIT_SLEEP;
			rt_park_commit(m, timers_unlock, b);
			return G_PARK;
		}
		/* notetsleepg: asleep in a system call, holding the M */
		b->tp_sleeping = true;
		b->tp_until = next;
		rt_note_clear(&b->tp_note);
		rt_unlock(&b->timers_lock);
		rt_entersyscallblock(m, g);
		unsigned was = rt_mt_switch(m, RT_MT(RT_CPU_PARKED, 0));
		rt_note_tsleep(&b->tp_note, next - now);
		rt_mt_switch(m, was);
		if (!rt_exitsyscall(m, g))
			return G_NOP;   /* no P: queued, and this M parks */
	}
}

void rt_timerprocs_stop(struct rt *rt)
{
	if (!rt->choices.timerproc)
		return;
	for (int i = 0; i < rt->procs; i++) {
		struct p *b = rt->allp[i];
		rt_lock(&b->timers_lock);
		bool wake = b->tp_sleeping;
		b->tp_sleeping = false;
		rt_unlock(&b->timers_lock);
		if (wake)
			rt_note_wakeup(&b->tp_note);
	}
}

/* Runs every P's due timers (the poller, just woken, holding a P). */
void rt_check_all_timers(struct m *m)
{
	if (m->rt->choices.timerproc)
		return;
	int64_t now = plat_nanotime();
	for (int i = 0; i < m->rt->procs; i++)
		if (rt_timers_stealable(m->rt, m->rt->allp[i]))
			rt_check_timers(m, m->rt->allp[i], now);
}

static int64_t timers_next(struct rt *rt, bool stealable)
{
	int64_t next = 0;
	for (int i = 0; i < rt->procs; i++) {
		int64_t w = (int64_t)plat_load_u64(&rt->allp[i]->timer0, memory_order_seq_cst);
		if (w && (!next || w < next) && (!stealable || rt_timers_stealable(rt, rt->allp[i])))
			next = w;
	}
	return next;
}

/* The earliest timer of any P, 0 if none. */
int64_t rt_timers_next(struct rt *rt)
{
	return timers_next(rt, false);
}

/* The earliest timer an idle M may run: the poller's deadline (none of
 * Go 1.13's, which their goroutines serve). */
static int64_t poller_next(struct rt *rt)
{
	return rt->choices.timerproc ? 0 : timers_next(rt, rt->choices.timers_own_p);
}

/* A timer due at when was added: make sure some M will wake for it. */
void rt_wake_netpoller(struct m *m, int64_t when)
{
	struct sched *s = &m->rt->sched;
	/* seq_cst: see update_timer0 */
	if (plat_load_u32(&s->polling, memory_order_seq_cst)) {
		int64_t until = (int64_t)plat_load_u64(&s->poll_until, memory_order_acquire);
		if (until == 0 || until > when)
			plat_netpoll_break(m->rt);
	} else if (!m->rt->choices.timers_own_p) {
		rt_wakep(m);
	}
}

/* When a poller that must wake by until wakes: until itself, or as Go's
 * netpoller converts the delay to epoll_wait's milliseconds (poll_ms). */
static int64_t poll_deadline(struct rt *rt, int64_t until)
{
	if (!until || !rt->choices.poll_ms)
		return until;
	int64_t now = plat_nanotime();
	int64_t delay = until - now;
	if (delay <= 0)
		return until;
	return now + (delay < 1000000 ? 1000000 : delay / 1000000 * 1000000);
}

/* m, holding no P, becomes the poller: it waits in the netpoller until
 * until (0: no timer, readiness only), readiness, or a break.  Returns the
 * events it collected, or -1 at once if another M is the poller. */
int rt_poll_block(struct m *m, int64_t until, struct netpoll_event *ev, int max)
{
	struct sched *s = &m->rt->sched;
	uint32_t zero = 0;
	/* seq_cst: against a timer or arrival being added (update_timer0) */
	if (!plat_cas_u32(&s->polling, &zero, 1, memory_order_seq_cst))
		return -1;
	plat_store_u64(&s->poll_until, (uint64_t)until, memory_order_release);
	int n = 0;
	/* A timer added after the caller computed until, but before
	 * poll_until was published, found no poller and woke an M instead;
	 * skip the wait if such a timer is due first. */
	int64_t next = poller_next(m->rt);
	if (!until || next >= until) {
		/* parked with nothing to do [proc: Where the time goes] */
		unsigned was = rt_mt_switch(m, RT_MT(RT_CPU_PARKED, 0));
		n = rt_netpoll_wait(m, poll_deadline(m->rt, until ? until : next), ev, max);
		rt_mt_switch(m, was);
	}
	plat_store_u64(&s->poll_until, 0, memory_order_relaxed);
	plat_store_u32(&s->polling, 0, memory_order_release);
	return n;
}

/* m, holding no P, found nothing to do.  If timers or network waiters are
 * left it becomes the poller: it waits for the earliest timer or for
 * readiness, then takes an idle P (one of its node's first; with Ms bound
 * to nodes, another node's P is handed to an M of that node instead), runs
 * every due timer and injects what became ready.  Otherwise, or if another
 * M is the poller, it parks until given a P.  Either way the caller then
 * looks for work again (the run may have ended meanwhile). */
void rt_idle(struct m *m)
{
	struct rt *rt = m->rt;
	int64_t until = poller_next(rt);
	if (until || rt_netpoll_any_waiters(rt)) {
		struct netpoll_event ev[RT_NETPOLL_BATCH];
		int n = rt_poll_block(m, until, ev, RT_NETPOLL_BATCH);
		if (n >= 0) {
			rt_lock(&rt->sched.lock);
			struct p *pp = rt_pidleget_near(rt, m->node >= 0 ? m->node : plat_node());
			rt_unlock(&rt->sched.lock);
			if (pp && rt->choices.node_mpools && pp->node != m->node) {
				rt_startm(m, pp, false);
				pp = NULL;
			}
			if (pp) {
				rt_acquirep(m, pp);
				rt_check_all_timers(m);
			}
			if (n > 0)
				rt_netpoll_inject(m, ev, n);
			if (pp)
				return;
		}
	}
	rt_stopm(m);
}
