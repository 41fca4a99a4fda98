/* The netpoller: network readiness making parked Gs runnable.
 *
 * A G that reads a source with nothing ready parks on the source's
 * descriptor (pd->rg) instead of blocking its M.  Readiness comes from the
 * platform's poll (plat_netpoll: in simulation the workload's arrival
 * instants, natively epoll): each event adds units of readable data to a
 * descriptor and readies its parked reader.  Ms poll in three places, as
 * Go's do:
 *   - without waiting, in findrunnable after the run queues and before
 *     stealing, when some G waits on the network;
 *   - waiting, as the poller [time.c]: the one M that sleeps until the next
 *     timer also waits for readiness, so one M covers both;
 *   - and the Gs a poll readies are injected: some on the global queue
 *     with an M started for each idle P, the rest on the poller's P.
 * Natively the C API also registers real file descriptors (sockets): a G
 * tries the call, and only when it would block waits for the descriptor's
 * next readiness edge, as Go's pollDesc does.  Descriptors are never freed
 * while the run lasts, only reused: an event already fetched by one M may
 * name a descriptor another M has just closed, and must find memory that
 * is still a descriptor (a stale edge on a reused one costs one retry).
 * A descriptor's fields are guarded by its lock.  rt->sched.netpoll_waiters
 * counts Gs parked on descriptors that still expect data: while it is
 * non-zero the last idle M polls instead of parking, and a G waiting on a
 * source that has delivered all it ever will is not counted -- nothing can
 * wake it, and the deadlock check sees it. */
#include "policies/runtime.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#define NETPOLL_BATCH 64

void rt_netpoll_init(struct rt *rt)
{
	const struct workload *w = rt->wl;
	rt->pds = xcalloc(w->nsources + 1, sizeof(*rt->pds));
	plat_netpoll_init(rt);
	for (uint32_t i = 0; i < w->nsources; i++) {
		struct pollfd_desc *pd = xcalloc(1, sizeof(*pd));
		pd->line = plat_line_new(rt, 0);
		rt_mutex_init(rt, &pd->lock, pd->line);
		pd->index = i;
		pd->remaining = w->sources[i].count;
		rt->pds[i] = pd;
	}
}

/* Sources count their arrivals from the start of the run. */
void rt_netpoll_start(struct rt *rt)
{
	const struct workload *w = rt->wl;
	for (uint32_t i = 0; i < w->nsources; i++)
		plat_netpoll_arm(rt, rt->pds[i], w->sources[i].interval_ns, w->sources[i].count);
}

void rt_netpoll_fini(struct rt *rt)
{
	for (struct pollfd_desc *pd = rt->fdall, *next; pd; pd = next) {
		next = pd->all_link;
		if (pd->open)
			plat_netpoll_close(rt, pd);
		free(pd);
	}
	plat_netpoll_fini(rt);   /* it closes what it armed on the descriptors */
	for (uint32_t i = 0; i < rt->wl->nsources; i++)
		free(rt->pds[i]);
	free(rt->pds);
}

bool rt_netpoll_any_waiters(struct rt *rt)
{
	return plat_load_u32(&rt->sched.netpoll_waiters, memory_order_acquire) != 0;
}

static void pd_unlock(void *arg)
{
	rt_unlock(&((struct pollfd_desc *)arg)->lock);
}

/* From the running G: takes one unit from pd, or commits the G to park
 * until the netpoller delivers one (returns false). */
bool rt_netpoll_read(struct m *m, struct pollfd_desc *pd)
{
	struct g *g = m->curg;
	rt_lock(&pd->lock);
	plat_shared_access(pd->line, true);
	if (pd->pending) {
		pd->pending--;
		rt_unlock(&pd->lock);
		return true;
	}
	if (pd->rg) {
		rt_unlock(&pd->lock);
		rt_panic(m, "two goroutines read source %s at once", m->rt->wl->sources[pd->index].name);
		return true;
	}
	pd->rg = g;
	g->waitreason = pd->remaining ? "IO wait" : "IO wait (source exhausted)";
	if (pd->remaining)
		plat_add_u32(&m->rt->sched.netpoll_waiters, 1, memory_order_release);
	rt_park_commit(m, pd_unlock, pd);
	return false;
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
			w[k++] = *waiter;
			*waiter = NULL;
			plat_add_u32(&rt->sched.netpoll_waiters, (uint32_t)-1, memory_order_release);
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
		if (pd->is_fd) {
			struct g *w[2];
			int k = fd_deliver(rt, pd, ev[i].mode, w);
			for (int j = 0; j < k; j++) {
				w[j]->status = G_RUNNABLE;
				w[j]->runnable_since = now;
				w[j]->schedlink = NULL;
				*tail = w[j];
				tail = &w[j]->schedlink;
				(*count)++;
			}
			continue;
		}
		rt_lock(&pd->lock);
		plat_shared_access(pd->line, true);
		uint64_t units = ev[i].units < pd->remaining ? ev[i].units : pd->remaining;
		pd->remaining -= units;
		pd->pending += units;
		struct g *g = NULL;
		if (pd->rg && pd->pending) {
			g = pd->rg;
			pd->rg = NULL;
			pd->pending--;
			plat_add_u32(&rt->sched.netpoll_waiters, (uint32_t)-1, memory_order_release);
		} else if (pd->rg && pd->remaining == 0) {
			/* its reader will now wait forever: no longer a waiter */
			plat_add_u32(&rt->sched.netpoll_waiters, (uint32_t)-1, memory_order_release);
			pd->rg->waitreason = "IO wait (source exhausted)";
		}
		rt_unlock(&pd->lock);
		if (g) {
			assert(g->status == G_WAITING);
			g->status = G_RUNNABLE;
			g->runnable_since = now;
			g->schedlink = NULL;
			*tail = g;
			tail = &g->schedlink;
			(*count)++;
		}
	}
	return list;
}

/* Puts readied Gs where Ms will find them: one per idle P on the global
 * queue with an M started for it, the rest on m's P (Go's injectglist). */
static void inject(struct m *m, struct g *list, uint32_t n)
{
	struct rt *rt = m->rt;
	if (!list)
		return;
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
	for (uint32_t i = 0; i < k; i++)
		rt_startm(m, NULL, false);
	while (list) {
		struct g *g = list;
		list = g->schedlink;
		rt_runqput(rt, m->p, g, false);
	}
}

/* A poll without waiting, by an M holding a P; returns a G to run (the
 * rest injected), or NULL. */
struct g *rt_netpoll_now(struct m *m)
{
	struct netpoll_event ev[NETPOLL_BATCH];
	int n = plat_netpoll(m->rt, 0, ev, NETPOLL_BATCH);
	if (n <= 0)
		return NULL;
	uint32_t count;
	struct g *list = deliver(m->rt, ev, n, &count);
	if (!list)
		return NULL;
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
	if (until) {
		int64_t now = plat_nanotime();
		timeout = until > now ? until - now : 0;
	}
	return plat_netpoll(m->rt, timeout, ev, max);
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
		rt_mutex_init(rt, &pd->lock, pd->line);
		pd->is_fd = true;
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
			plat_add_u32(&rt->sched.netpoll_waiters, (uint32_t)-1, memory_order_release);
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
	m->curg->waitreason = mode == NETPOLL_R ? "IO wait" : "IO wait (write)";
	plat_add_u32(&m->rt->sched.netpoll_waiters, 1, memory_order_release);
	rt_park_commit(m, pd_unlock, pd);
	return FD_PARK;
}
