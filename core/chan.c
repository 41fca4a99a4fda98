/* Channels: Go's hchan, for one-value-at-a-time send and receive.
 *
 * A channel is a lock, a ring buffer of cap values, and two FIFO queues of
 * waiting Gs (sudogs): senders waiting for room or a receiver, receivers
 * waiting for a value.  Invariants, under the lock: if recvq is non-empty
 * the buffer is empty; if sendq is non-empty the buffer is full (or cap is
 * 0).  A sender that finds a waiting receiver hands the value straight to
 * it; a receiver that finds a waiting sender takes the buffer's head and
 * moves the sender's value to the tail (for cap 0, takes the value from
 * the sender).  Either way the partner is readied after the lock is
 * released, so the readied G's M never waits on this channel's lock. */
#include "core/runtime.h"

#include <assert.h>
#include <stdlib.h>

struct hchan {
	struct rt_mutex lock;
	plat_line_t line;        /* the fields below, guarded by lock */
	uint64_t id;             /* creation order: selects lock channels in id order */
	uint32_t cap, count, sendx, recvx;
	uint64_t *buf;
	bool closed;
	struct waitq recvq, sendq;
};

struct hchan *rt_chan_new(struct rt *rt, uint32_t cap, int node)
{
	/* the id first: its atomic is priced (simulated, the maker waits
	 * there), and a run cut while it waits must not hold a channel nobody
	 * has yet (the maker's list frees it at the end of the run) */
	uint64_t id = plat_add_u64(&rt->sched.chanidgen, 1, memory_order_relaxed);
	struct hchan *c = xcalloc(1, sizeof(*c));
	c->id = id;
	c->line = plat_line_new(rt, node);
	rt_mutex_init(rt, &c->lock, c->line, RT_LOCK_CHAN);
	c->cap = cap;
	c->buf = cap ? xcalloc(cap, sizeof(*c->buf)) : NULL;
	return c;
}

void rt_chan_free(struct hchan *c)
{
	if (!c)
		return;
	free(c->buf);
	free(c);
}

/* The first waiter that can still be completed: a select's sudog only if
 * its G has not been claimed through another of its cases already (the
 * CAS on select_done decides, as Go's selectDone does). */
static struct sudog *dequeue(struct waitq *q)
{
	for (;;) {
		struct sudog *s = waitq_pop(q);
		if (!s)
			return NULL;
		if (s->is_select) {
			uint32_t zero = 0;
			if (!plat_cas_u32(&s->g->sel->done, &zero, 1, memory_order_acq_rel))
				continue;
			s->g->sel->fired = s;
		}
		return s;
	}
}

static void chan_unlock(void *c)
{
	rt_unlock(&((struct hchan *)c)->lock);
}

/* Queues the running G on q and commits it to park; the lock is released
 * once the G is off the M.  c->lock must be held. */
static void wait_on(struct m *m, struct hchan *c, struct waitq *q, uint64_t v)
{
	struct g *g = m->curg;
	struct sudog *s = &g->sud;
	s->g = g;
	s->c = c;
	s->elem = v;
	s->success = false;
	s->is_select = false;
	s->is_send = q == &c->sendq;
	g->waitreason = s->is_send ? RT_WAIT_CHAN_SEND : RT_WAIT_CHAN_RECV;
	waitq_push(q, s);
	rt_park_commit(m, chan_unlock, c);
}

/* The halves of send and receive that need no waiting, shared by the plain
 * operations and select.  c->lock must be held.  A partner whose operation
 * this completes is left in *woken, to be readied once the lock is
 * released. */
enum chan_try {
	CHAN_WAIT,     /* nothing can be done now */
	CHAN_DONE,
	CHAN_CLOSED,   /* a send on a closed channel: the caller panics */
};

static enum chan_try try_send(struct hchan *c, uint64_t v, struct sudog **woken)
{
	*woken = NULL;
	if (c->closed)
		return CHAN_CLOSED;
	struct sudog *r = dequeue(&c->recvq);
	if (r) {
		r->elem = v;
		r->success = true;
		*woken = r;
		return CHAN_DONE;
	}
	if (c->count < c->cap) {
		c->buf[c->sendx] = v;
		c->sendx = (c->sendx + 1) % c->cap;
		c->count++;
		return CHAN_DONE;
	}
	return CHAN_WAIT;
}

static enum chan_try try_recv(struct hchan *c, uint64_t *v, bool *ok, struct sudog **woken)
{
	*woken = NULL;
	struct sudog *s = dequeue(&c->sendq);
	if (s) {
		if (c->cap == 0) {
			*v = s->elem;
		} else {
			/* full buffer: take its head, put the sender's value at the tail */
			assert(c->count == c->cap);
			*v = c->buf[c->recvx];
			c->buf[c->recvx] = s->elem;
			c->recvx = (c->recvx + 1) % c->cap;
			c->sendx = c->recvx;
		}
		s->success = true;
		*ok = true;
		*woken = s;
		return CHAN_DONE;
	}
	if (c->count > 0) {
		*v = c->buf[c->recvx];
		c->recvx = (c->recvx + 1) % c->cap;
		c->count--;
		*ok = true;
		return CHAN_DONE;
	}
	if (c->closed) {
		*v = 0;
		*ok = false;
		return CHAN_DONE;
	}
	return CHAN_WAIT;
}

/* After try_send/try_recv, with the lock released. */
static void finish(struct m *m, enum chan_try t, struct sudog *woken)
{
	if (t == CHAN_CLOSED)
		rt_panic(m, "send on closed channel");
	else if (woken)
		rt_ready(m, woken->g);
}

/* Go: a send or receive on a nil channel blocks forever -- committed to
 * park on no queue, so nothing readies it and a run left with only such
 * Gs ends in a deadlock naming why. */
static bool block_forever(struct m *m, enum rt_wait why)
{
	m->curg->waitreason = why;
	rt_park_commit(m, NULL, NULL);
	return false;
}

bool rt_chansend(struct m *m, struct hchan *c, uint64_t v)
{
	if (!c)
		return block_forever(m, RT_WAIT_CHAN_SEND_NIL);
	rt_lock(&c->lock);
	plat_shared_access(c->line, true);
	struct sudog *woken;
	enum chan_try t = try_send(c, v, &woken);
	if (t == CHAN_WAIT) {
		wait_on(m, c, &c->sendq, v);
		return false;
	}
	rt_unlock(&c->lock);
	finish(m, t, woken);
	return true;
}

bool rt_chanrecv(struct m *m, struct hchan *c, uint64_t *v, bool *ok)
{
	if (!c)
		return block_forever(m, RT_WAIT_CHAN_RECV_NIL);
	rt_lock(&c->lock);
	plat_shared_access(c->line, true);
	struct sudog *woken;
	enum chan_try t = try_recv(c, v, ok, &woken);
	if (t == CHAN_WAIT) {
		wait_on(m, c, &c->recvq, 0);
		return false;
	}
	rt_unlock(&c->lock);
	finish(m, t, woken);
	return true;
}

/* The second half of a send that parked, once its G runs again: a
 * receiver took the value, or a close woke it, which a sender does not
 * survive (Go's chansend after gopark). */
void rt_chansend_resume(struct m *m)
{
	if (!m->curg->sud.success)
		rt_panic(m, "send on closed channel");
}

/* The second half of a receive that parked: what the sender handed over,
 * or (0, false) from a close. */
void rt_chanrecv_resume(struct m *m, uint64_t *v, bool *ok)
{
	const struct sudog *s = &m->curg->sud;
	*ok = s->success;
	*v = s->success ? s->elem : 0;
}

/* Closes c: every waiting receiver gets (0, ok = false), every waiting
 * sender panics when it runs.  Closing a nil channel, or one closed
 * already, panics. */
void rt_chanclose(struct m *m, struct hchan *c)
{
	if (!c) {
		rt_panic(m, "close of nil channel");
		return;
	}
	rt_lock(&c->lock);
	plat_shared_access(c->line, true);
	if (c->closed) {
		rt_unlock(&c->lock);
		rt_panic(m, "close of closed channel");
		return;
	}
	c->closed = true;
	struct sudog *woken = NULL, **tail = &woken, *s;
	struct waitq *queues[2] = { &c->recvq, &c->sendq };
	for (int q = 0; q < 2; q++) {
		while ((s = dequeue(queues[q]))) {
			s->elem = 0;
			s->success = false;
			s->wnext = NULL;
			*tail = s;
			tail = &s->wnext;
		}
	}
	rt_unlock(&c->lock);
	while (woken) {
		s = woken;
		woken = s->wnext;
		rt_ready(m, s->g);
	}
}

/* ---- select ---- */

/* Locks the distinct channels of g's select in id order (so two selects
 * can never lock the same two channels in opposite orders). */
static void sellock(struct g *g)
{
	for (uint32_t i = 0; i < g->sel->n; i++)
		if (i == 0 || g->sel->order[i] != g->sel->order[i - 1])
			rt_lock(&g->sel->order[i]->lock);
}

static void selunlock(struct g *g)
{
	for (uint32_t i = g->sel->n; i-- > 0;)
		if (i == 0 || g->sel->order[i] != g->sel->order[i - 1])
			rt_unlock(&g->sel->order[i]->lock);
}

static void selunlock_parked(void *arg)
{
	selunlock(arg);
}

/* Go's selectgo leaves a nil channel's case out: it never fires.  The
 * cases with a channel, by index into cases; how many. */
static uint32_t live_cases(const struct select_case *cases, uint32_t n, uint32_t *live)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (cases[i].c)
			live[k++] = i;
	return k;
}

int rt_select(struct m *m, const struct select_case *cases, uint32_t ncases, bool has_default,
	      uint64_t *v, bool *ok)
{
	struct g *g = m->curg;
	assert(ncases <= RT_SELECT_MAX);
	uint32_t live[RT_SELECT_MAX];
	uint32_t n = live_cases(cases, ncases, live);
	if (n == 0 && has_default)
		return RT_SELECT_DEFAULT;
	if (n == 0) {
		block_forever(m, RT_WAIT_SELECT_NO_CASES);
		return RT_SELECT_PARKED;
	}
	if (!g->sel) {
		g->sel = xcalloc(1, sizeof(*g->sel));
		plat_u32_init(&g->sel->done, 0, plat_line_new(m->rt, m->p->node));
	}
	g->sel->n = n;
	for (uint32_t i = 0; i < n; i++) {
		/* insertion sort by id: n is small */
		uint32_t j = i;
		while (j > 0 && g->sel->order[j - 1]->id > cases[live[i]].c->id) {
			g->sel->order[j] = g->sel->order[j - 1];
			j--;
		}
		g->sel->order[j] = cases[live[i]].c;
	}
	uint32_t perm[RT_SELECT_MAX];
	for (uint32_t i = 0; i < n; i++) {
		/* Fisher-Yates, swapping i with a random earlier-or-same slot */
		uint32_t j = rt_fastrandn(m, i + 1);
		perm[i] = i;
		uint32_t t = perm[j];
		perm[j] = perm[i];
		perm[i] = t;
	}
	sellock(g);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = live[perm[k]];
		struct hchan *c = cases[i].c;
		plat_shared_access(c->line, true);
		struct sudog *woken;
		enum chan_try t = cases[i].send ? try_send(c, cases[i].v, &woken)
						: try_recv(c, v, ok, &woken);
		if (t != CHAN_WAIT) {
			selunlock(g);
			finish(m, t, woken);
			return (int)i;
		}
	}
	if (has_default) {
		selunlock(g);
		return RT_SELECT_DEFAULT;
	}
	/* Wait on every case at once; the first partner to claim the G wins. */
	plat_store_u32(&g->sel->done, 0, memory_order_relaxed);
	g->sel->fired = NULL;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = live[k];
		struct sudog *s = &g->sel->sud[k];
		s->g = g;
		s->c = cases[i].c;
		s->is_select = true;
		s->case_index = i;
		s->is_send = cases[i].send;
		s->elem = cases[i].send ? cases[i].v : 0;
		s->success = false;
		waitq_push(cases[i].send ? &s->c->sendq : &s->c->recvq, s);
	}
	g->waitreason = RT_WAIT_SELECT;
	rt_park_commit(m, selunlock_parked, g);
	return RT_SELECT_PARKED;
}

/* After a parked select is readied: withdraws the other cases and says
 * which one fired. */
int rt_select_resume(struct m *m, uint64_t *v, bool *ok)
{
	struct g *g = m->curg;
	struct sudog *fired = g->sel->fired;
	assert(fired && "a select resumed without a case");
	sellock(g);
	for (uint32_t i = 0; i < g->sel->n; i++) {
		struct sudog *s = &g->sel->sud[i];
		if (s != fired && s->queued)
			waitq_remove(s->is_send ? &s->c->sendq : &s->c->recvq, s);
		s->is_select = false;
	}
	selunlock(g);
	if (fired->is_send && !fired->success) {
		rt_panic(m, "send on closed channel");
		return (int)fired->case_index;
	}
	*v = fired->elem;
	*ok = fired->success;
	return (int)fired->case_index;
}
