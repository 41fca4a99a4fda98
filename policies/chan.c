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
#include "policies/runtime.h"

#include <assert.h>
#include <stdlib.h>

struct waitq {
	struct sudog *first, *last;
};

struct hchan {
	struct rt_mutex lock;
	plat_line_t line;        /* the fields below, guarded by lock */
	uint32_t cap, count, sendx, recvx;
	uint64_t *buf;
	struct waitq recvq, sendq;
};

struct hchan *rt_chan_new(struct rt *rt, uint32_t cap, int node)
{
	struct hchan *c = xcalloc(1, sizeof(*c));
	c->line = plat_line_new(rt, node);
	rt_mutex_init(rt, &c->lock, c->line);
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

static void enqueue(struct waitq *q, struct sudog *s)
{
	s->next = NULL;
	s->prev = q->last;
	if (q->last)
		q->last->next = s;
	else
		q->first = s;
	q->last = s;
}

static struct sudog *dequeue(struct waitq *q)
{
	struct sudog *s = q->first;
	if (s) {
		q->first = s->next;
		if (q->first)
			q->first->prev = NULL;
		else
			q->last = NULL;
		s->next = s->prev = NULL;
	}
	return s;
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
	enqueue(q, s);
	rt_park_commit(m, chan_unlock, c);
}

bool rt_chansend(struct m *m, struct hchan *c, uint64_t v)
{
	rt_lock(&c->lock);
	plat_shared_access(c->line, true);
	struct sudog *r = dequeue(&c->recvq);
	if (r) {
		r->elem = v;
		r->success = true;
		rt_unlock(&c->lock);
		rt_ready(m, r->g);
		return true;
	}
	if (c->count < c->cap) {
		c->buf[c->sendx] = v;
		c->sendx = (c->sendx + 1) % c->cap;
		c->count++;
		rt_unlock(&c->lock);
		return true;
	}
	wait_on(m, c, &c->sendq, v);
	return false;
}

bool rt_chanrecv(struct m *m, struct hchan *c, uint64_t *v)
{
	rt_lock(&c->lock);
	plat_shared_access(c->line, true);
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
		rt_unlock(&c->lock);
		rt_ready(m, s->g);
		return true;
	}
	if (c->count > 0) {
		*v = c->buf[c->recvx];
		c->recvx = (c->recvx + 1) % c->cap;
		c->count--;
		rt_unlock(&c->lock);
		return true;
	}
	wait_on(m, c, &c->recvq, 0);
	return false;
}
