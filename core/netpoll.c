/* The netpoller: network readiness making parked Gs runnable.
 *
 * Two kinds of source make data readable.  Natively the C API registers
 * real file descriptors (sockets): a G tries the call, and only when it
 * would block parks on the descriptor (pd->rg, pd->wg) until its next
 * readiness edge, as Go's pollDesc does.  And a body may have sources of
 * its own, whose data arrives at instants it decides: a workload's
 * listeners and connections (workloads/net.c), with their arrivals in one
 * heap ordered by (time, sequence), so both platforms see the same
 * instants.  The core sees those through the body's net_ hooks
 * [core/body.h]: when the next arrival is due, the arrivals due by now (a
 * poll takes them as if the kernel had reported them, and waits no later
 * than the next one), and applying one, which readies its parked reader.
 * Ms poll in three places, as Go's do:
 *   - without waiting, in findrunnable after the run queues and before
 *     stealing, when some G waits on the network;
 *   - waiting, as the poller [time.c]: the one M that sleeps until the next
 *     timer also waits for readiness, so one M covers both;
 *   - and the Gs a poll readies are injected: some on the global queue
 *     with an M started for each idle P, the rest on the poller's P.
 * Descriptors are never freed while the run lasts, only reused: an event
 * already fetched by one M may name a descriptor another M has just
 * closed, and must find memory that is still a descriptor (a stale edge
 * on a reused one costs one retry).  A descriptor's fields are guarded by
 * its lock.  rt->sched.netpoll_waiters counts Gs parked on sources that
 * still expect data (rt_netpoll_waiters_add): while it is non-zero the
 * last idle M polls instead of parking, and a G waiting on a source with
 * nothing more scheduled to arrive is not counted -- nothing can wake it,
 * and the deadlock check sees it. */
#include "core/runtime.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

void rt_netpoll_init(struct rt *rt)
{
	plat_netpoll_init(rt);
}

/* The body's sources of connections start with the run. */
void rt_netpoll_start(struct rt *rt)
{
	if (rt->body->net_start)
		rt->body->net_start(rt, rt->m0);
}

/* The body's arrivals due by now, as events [body_ops.net_due]. */
static int arrivals_due(struct m *m, struct netpoll_event *ev, int max, bool wait)
{
	struct rt *rt = m->rt;
	return rt->body->net_due ? rt->body->net_due(m, ev, max, wait) : 0;
}

void rt_netpoll_fini(struct rt *rt)
{
	for (struct pollfd_desc *pd = rt->fdall, *next; pd; pd = next) {
		next = pd->all_link;
		if (pd->open)
			plat_netpoll_close(rt, pd);
		free(pd);
	}
	plat_netpoll_fini(rt);
}

bool rt_netpoll_any_waiters(struct rt *rt)
{
	return plat_load_u32(&rt->sched.netpoll_waiters, memory_order_acquire) != 0;
}

static void pd_unlock(void *arg)
{
	rt_unlock(&((struct pollfd_desc *)arg)->lock);
}

/* A real descriptor's waiter and pending edge for one direction. */
static struct g **fd_waiter(struct pollfd_desc *pd, uint32_t mode)
{
	return mode == NETPOLL_R ? &pd->rg : &pd->wg;
}

static bool *fd_edge(struct pollfd_desc *pd, uint32_t mode)
{
	return mode == NETPOLL_R ? &pd->rready : &pd->wready;
}

/* Takes pd's waiter for each direction in mode (its edge consumed by the
 * wake), or records the edge for the next to ask; returns the Gs taken. */
static int fd_deliver(struct rt *rt, struct pollfd_desc *pd, uint32_t mode, struct g *w[2])
{
	static const uint32_t dirs[2] = { NETPOLL_R, NETPOLL_W };
	int k = 0;
	rt_lock(&pd->lock);
	for (int i = 0; i < 2 && pd->open; i++) {
		if (!(mode & dirs[i]))
			continue;
		struct g **waiter = fd_waiter(pd, dirs[i]);
		if (*waiter) {
			(*waiter)->wake = dirs[i] == NETPOLL_R ? RT_WAKE_NET_READ : RT_WAKE_NET_WRITE;
			w[k++] = *waiter;
			*waiter = NULL;
			rt_netpoll_waiters_add(rt, -1);
		} else {
			*fd_edge(pd, dirs[i]) = true;
		}
	}
	rt_unlock(&pd->lock);
	return k;
}

/* Applies a poll's events; returns the Gs they ready, linked by
 * schedlink, each runnable. */
static struct g *deliver(struct rt *rt, const struct netpoll_event *ev, int n, uint32_t *count)
{
	struct g *list = NULL, **tail = &list;
	int64_t now = plat_nanotime();
	*count = 0;
	for (int i = 0; i < n; i++) {
		struct pollfd_desc *pd = ev[i].pd;
		if (pd) {
			struct g *w[2];
			int k = fd_deliver(rt, pd, ev[i].mode, w);
			for (int j = 0; j < k; j++) {
				if (rt->tracing)
					rt_trace_wake(plat_self(), w[j], w[j]->wake);
				w[j]->status = G_RUNNABLE;
				w[j]->runnable_since = now;
				w[j]->runwhy = RT_RUN_NET;
				rt_why_ready(rt, w[j]);
				w[j]->schedlink = NULL;
				*tail = w[j];
				tail = &w[j]->schedlink;
				(*count)++;
			}
			continue;
		}
		struct g *g = rt->body->net_deliver(rt, &ev[i]);
		if (g) {
			assert(g->status == G_WAITING);
			if (rt->tracing)
				rt_trace_wake(plat_self(), g, g->wake);
			g->status = G_RUNNABLE;
			g->runnable_since = now;
			g->runwhy = RT_RUN_NET;
			rt_why_ready(rt, g);
			g->schedlink = NULL;
			*tail = g;
			tail = &g->schedlink;
			(*count)++;
		}
	}
	return list;
}

/* Puts readied Gs where Ms will find them: one per idle P on the global
 * queue with an M started for it, the rest on m's P (Go's injectglist);
 * or one at a time through the policy's ready, if it places them itself. */
static void inject(struct m *m, struct g *list, uint32_t n)
{
	struct rt *rt = m->rt;
	if (!list)
		return;
	if (rt->pol->ready_net) {
		while (list) {
			struct g *g = list;
			list = g->schedlink;
			g->schedlink = NULL;
			rt->pol->ready(m, g);
		}
		return;
	}
	uint32_t idle = plat_load_u32(&rt->sched.npidle, memory_order_relaxed);
	if (!m->p)
		idle = n;   /* no P here: every G goes global */
	uint32_t k = 0;
	rt_lock(&rt->sched.lock);
	while (list && k < idle) {
		struct g *g = list;
		list = g->schedlink;
		rt_globrunqput(rt, g);
		k++;
	}
	rt_unlock(&rt->sched.lock);
	for (uint32_t i = 0; i < k; i++) {
		if (!rt->choices.needspinning) {
			rt_startm(m, NULL, false);
			continue;
		}
		/* Go 1.26: no idle P left for a G put out for one, and the next
		 * M to drop its P spins instead */
		if (!rt_start_idle_or_need(m))
			break;
	}
	while (list) {
		struct g *g = list;
		list = g->schedlink;
		rt_runqput(rt, m->p, g, false);
	}
	if (rt->choices.needspinning && m->p)
		rt_wakep(m);   /* a P that went idle meanwhile */
}

/* A poll without waiting, by an M holding a P; returns a G to run (the
 * rest injected), or NULL. */
struct g *rt_netpoll_now(struct m *m)
{
	struct netpoll_event ev[RT_NETPOLL_BATCH];
	int n = plat_netpoll(m->rt, 0, ev, RT_NETPOLL_BATCH);
	if (n < 0)
		n = 0;
	n += arrivals_due(m, ev + n, RT_NETPOLL_BATCH - n, false);
	if (n == 0)
		return NULL;
	plat_netpoll_took(m->rt, n);
	uint32_t count;
	struct g *list = deliver(m->rt, ev, n, &count);
	if (!list)
		return NULL;
	if (m->rt->pol->ready_net) {
		inject(m, list, count);
		return NULL;
	}
	struct g *g = list;
	inject(m, g->schedlink, count - 1);
	g->schedlink = NULL;
	return g;
}

/* The poller's wait [time.c]: until until (0: no timer), or readiness, or
 * a break; then, holding a P if it got one, injects what became ready. */
int rt_netpoll_wait(struct m *m, int64_t until, struct netpoll_event *ev, int max)
{
	int64_t timeout = -1;
	int64_t next = rt_arrivals_next(m->rt);
	if (next >= 0 && (!until || next < until))
		until = next > 0 ? next : 1;
	if (until) {
		int64_t now = plat_nanotime();
		timeout = until > now ? until - now : 0;
	}
	/* No deadline: only another M, or the end of the run, will wake it
	 * [proc: The end of a run]. */
	if (timeout < 0)
		rt_poller_forever(m, true);
	int n = plat_netpoll(m->rt, timeout, ev, max);
	if (timeout < 0)
		rt_poller_forever(m, false);
	if (n < 0)
		n = 0;
	n += arrivals_due(m, ev + n, max - n, true);
	if (n > 0)
		plat_netpoll_took(m->rt, n);
	return n;
}

void rt_netpoll_inject(struct m *m, const struct netpoll_event *ev, int n)
{
	uint32_t count;
	struct g *list = deliver(m->rt, ev, n, &count);
	inject(m, list, count);
}

/* ---- Real descriptors (native C API) ---- */

/* A closed descriptor goes back for reuse, never to free() [see the top]. */
static void fd_release(struct rt *rt, struct pollfd_desc *pd)
{
	rt_lock(&rt->sched.lock);
	pd->link = rt->fdfree;
	rt->fdfree = pd;
	rt_unlock(&rt->sched.lock);
}

struct pollfd_desc *rt_netpoll_open(struct m *m, int fd)
{
	struct rt *rt = m->rt;
	rt_lock(&rt->sched.lock);
	struct pollfd_desc *pd = rt->fdfree;
	if (pd) {
		rt->fdfree = pd->link;
	} else {
		pd = xcalloc(1, sizeof(*pd));
		pd->line = plat_line_new(rt, 0);
		rt_mutex_init(rt, &pd->lock, pd->line, RT_LOCK_NET);
		pd->all_link = rt->fdall;
		rt->fdall = pd;
	}
	rt_unlock(&rt->sched.lock);
	rt_lock(&pd->lock);
	pd->fd = fd;
	pd->rready = pd->wready = false;
	pd->rg = pd->wg = NULL;
	pd->open = true;
	rt_unlock(&pd->lock);
	int err = plat_netpoll_open(rt, pd, fd);
	if (err) {
		rt_lock(&pd->lock);
		pd->open = false;
		rt_unlock(&pd->lock);
		fd_release(rt, pd);
		errno = err;
		return NULL;
	}
	return pd;
}

/* Closes pd and readies its waiters, who find it closed. */
void rt_netpoll_close(struct m *m, struct pollfd_desc *pd)
{
	struct rt *rt = m->rt;
	struct g *w[2] = { NULL, NULL };
	rt_lock(&pd->lock);
	pd->open = false;
	w[0] = pd->rg, w[1] = pd->wg;
	pd->rg = pd->wg = NULL;
	rt_unlock(&pd->lock);
	plat_netpoll_close(rt, pd);
	for (int i = 0; i < 2; i++) {
		if (w[i]) {
			rt_netpoll_waiters_add(rt, -1);
			rt_ready(m, w[i]);
		}
	}
	fd_release(rt, pd);
}

enum fd_wait rt_netpoll_fd_wait(struct m *m, struct pollfd_desc *pd, uint32_t mode)
{
	bool *ready = fd_edge(pd, mode);
	struct g **slot = fd_waiter(pd, mode);
	enum fd_wait r = FD_PARK;
	rt_lock(&pd->lock);
	if (!pd->open)
		r = FD_CLOSED;
	else if (*ready)
		r = FD_READY;
	else if (*slot)
		r = FD_BUSY;
	if (r != FD_PARK) {
		*ready = false;
		rt_unlock(&pd->lock);
		return r;
	}
	*slot = m->curg;
	m->curg->waitreason = mode == NETPOLL_R ? RT_WAIT_IO_READ : RT_WAIT_IO_WRITE;
	rt_netpoll_waiters_add(m->rt, 1);
	rt_park_commit(m, pd_unlock, pd);
	return FD_PARK;
}
