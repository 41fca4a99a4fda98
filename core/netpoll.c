/* The netpoller: network readiness making parked Gs runnable.
 *
 * A G that reads a workload's listener (accept) or connection (a request)
 * with nothing ready parks on its descriptor (pd->rg) instead of blocking
 * its M.  When data arrives is the workload's: a listener's connections
 * come at sampled gaps from the start of the run (or all at once for a
 * closed loop of clients), and a connection's next request comes a think
 * time after the answer to the last one is written.  The core keeps these
 * arrivals in one heap ordered by (time, sequence), so both platforms see
 * the same instants; a poll takes those that are due, as if the kernel
 * had reported them, and waits no later than the next one.  Each event
 * adds a unit of readable data to its descriptor and readies the parked
 * reader.  Ms poll in three places, as Go's do:
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
 * descriptor with nothing more scheduled to arrive is not counted -- nothing can
 * wake it, and the deadlock check sees it. */
#include "core/runtime.h"

#include "workloads/dist.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#define NETPOLL_BATCH 64

/* Stream keys of listeners (their connections are their children). */
#define LISTENER_KEY 0x6c697374656e6572ULL

static struct pollfd_desc *desc_new(struct rt *rt)
{
	struct pollfd_desc *pd = xcalloc(1, sizeof(*pd));
	pd->line = plat_line_new(rt, 0);
	rt_mutex_init(rt, &pd->lock, pd->line, RT_LOCK_NET);
	return pd;
}

void rt_netpoll_init(struct rt *rt)
{
	const struct workload *w = rt->wl;
	rt->arrivals_line = plat_line_model(rt);
	rt_mutex_init(rt, &rt->arrivals_lock, rt->arrivals_line, RT_LOCK_NET);
	plat_u64_init(&rt->arrival0, 0, rt->arrivals_line);
	rt->listeners = xcalloc(w->nlisteners + 1, sizeof(*rt->listeners));
	plat_netpoll_init(rt);
	for (uint32_t i = 0; i < w->nlisteners; i++) {
		struct pollfd_desc *pd = desc_new(rt);
		pd->is_listener = true;
		pd->lis = &w->listeners[i];
		pd->index = i;
		pd->remaining = pd->lis->count;
		rt_stream_init(rt, &pd->rs, dist_key_child(LISTENER_KEY, i));
		rt->listeners[i] = pd;
	}
}

/* ---- Arrivals: a heap by (when, seq) ---- */

static bool arrival_before(const struct arrival *a, const struct arrival *b)
{
	return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

/* arrivals_lock held */
static void arrival_push(struct rt *rt, int64_t when, struct pollfd_desc *pd)
{
	if (rt->narrivals == rt->caparrivals) {
		rt->caparrivals = rt->caparrivals ? 2 * rt->caparrivals : 64;
		rt->arrivals = xrealloc(rt->arrivals, rt->caparrivals * sizeof(*rt->arrivals));
	}
	struct arrival x = { when, rt->arrivalseq++, pd };
	uint32_t i = rt->narrivals++;
	while (i > 0) {
		uint32_t up = (i - 1) / 2;
		if (!arrival_before(&x, &rt->arrivals[up]))
			break;
		rt->arrivals[i] = rt->arrivals[up];
		i = up;
	}
	rt->arrivals[i] = x;
}

static struct arrival arrival_pop(struct rt *rt)
{
	struct arrival top = rt->arrivals[0], x = rt->arrivals[--rt->narrivals];
	uint32_t i = 0, n = rt->narrivals;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && arrival_before(&rt->arrivals[c + 1], &rt->arrivals[c]))
			c++;
		if (!arrival_before(&rt->arrivals[c], &x))
			break;
		rt->arrivals[i] = rt->arrivals[c];
		i = c;
	}
	if (n)
		rt->arrivals[i] = x;
	return top;
}

/* arrival0 holds when + 1, so that an arrival at time 0 (a simulated
 * run's start) is not taken for none. */
static void arrival0_update(struct rt *rt)
{
	/* seq_cst against the poller's flag, as a timer's [time.c: update_timer0] */
	plat_store_u64(&rt->arrival0, rt->narrivals ? (uint64_t)rt->arrivals[0].when + 1 : 0,
		       memory_order_seq_cst);
}

int64_t rt_arrivals_next(struct rt *rt)
{
	uint64_t v = plat_load_u64(&rt->arrival0, memory_order_seq_cst);
	return v ? (int64_t)v - 1 : -1;
}

/* A listener's next connection, a sampled gap after the last (arrivals_lock
 * held: the listener's stream is the lock holder's). */
static void listener_next(struct m *m, struct rt *rt, struct pollfd_desc *pd, int64_t last)
{
	const struct prog_listener *l = pd->lis;
	if (pd->made == l->count)
		return;
	pd->made++;
	arrival_push(rt, rt_time_after(last, l->closed ? 0 : rt_draw(m, &pd->rs, l->interval)), pd);
}

/* Sources of connections start with the run: an open loop's first
 * connection a gap after the start, a closed loop's clients all at once. */
void rt_netpoll_start(struct rt *rt)
{
	struct m *m = rt->m0;
	rt_lock(&rt->arrivals_lock);
	for (uint32_t i = 0; i < rt->wl->nlisteners; i++) {
		struct pollfd_desc *pd = rt->listeners[i];
		uint64_t n = pd->lis->closed ? pd->lis->count : 1;
		for (uint64_t k = 0; k < n; k++)
			listener_next(m, rt, pd, rt->start_ns);
	}
	arrival0_update(rt);
	rt_unlock(&rt->arrivals_lock);
}

/* The arrivals due by now, as events.  A poll that must not wait (!wait)
 * gives up if another M holds the lock: that M is taking the due arrivals
 * right now, as one epoll_wait drains the ready list another then finds
 * empty.  Waiting instead would sleep on the futex behind every M that
 * spins into a poll at once -- the kernel's ready-list lock is a spinlock
 * held for a few list operations, and costs nothing like a sleep. */
static int arrivals_due(struct m *m, struct netpoll_event *ev, int max, bool wait)
{
	struct rt *rt = m->rt;
	int64_t first = rt_arrivals_next(rt);
	if (first < 0 || max <= 0)
		return 0;
	int64_t now = plat_nanotime();
	if (first > now)
		return 0;
	int n = 0;
	if (wait)
		rt_lock(&rt->arrivals_lock);
	else if (!rt_trylock(&rt->arrivals_lock))
		return 0;
	plat_shared_access(rt->arrivals_line, true);
	while (n < max && rt->narrivals && rt->arrivals[0].when <= now) {
		struct arrival a = arrival_pop(rt);
		ev[n++] = (struct netpoll_event){ .pd = a.pd, .units = 1, .when = a.when };
		if (a.pd->is_listener && !a.pd->lis->closed)
			listener_next(m, rt, a.pd, a.when);
	}
	arrival0_update(rt);
	rt_unlock(&rt->arrivals_lock);
	return n;
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
	for (uint32_t i = 0; i < rt->wl->nlisteners; i++) {
		free(rt->listeners[i]->times);
		free(rt->listeners[i]);
	}
	free(rt->listeners);
	free(rt->arrivals);
}

bool rt_netpoll_any_waiters(struct rt *rt)
{
	return plat_load_u32(&rt->sched.netpoll_waiters, memory_order_acquire) != 0;
}

static void pd_unlock(void *arg)
{
	rt_unlock(&((struct pollfd_desc *)arg)->lock);
}

/* A listener's ring of arrival times, one per pending connection (its
 * lock held): units more arrived at when, already counted in pending. */
static void times_push(struct pollfd_desc *pd, int64_t when, uint64_t units)
{
	uint64_t held = pd->pending - units;
	if (pd->pending > pd->times_cap) {
		uint64_t cap = pd->times_cap ? 2 * pd->times_cap : 16;
		while (cap < pd->pending)
			cap *= 2;
		int64_t *t = xmalloc(cap * sizeof(*t));
		for (uint64_t k = 0; k < held; k++)
			t[k] = pd->times[(pd->times_head + k) % pd->times_cap];
		free(pd->times);
		pd->times = t;
		pd->times_cap = cap;
		pd->times_head = 0;
	}
	for (uint64_t k = 0; k < units; k++)
		pd->times[(pd->times_head + held + k) % pd->times_cap] = when;
}

/* Takes a pending unit's arrival time (its lock held). */
static int64_t take_unit(struct pollfd_desc *pd)
{
	pd->pending--;
	if (!pd->is_listener)
		return pd->arrived_at;
	return pd->times[pd->times_head++ % pd->times_cap];
}

enum nr rt_netpoll_take(struct m *m, struct pollfd_desc *pd)
{
	struct g *g = m->curg;
	rt_lock(&pd->lock);
	plat_shared_access(pd->line, true);
	if (pd->pending) {
		g_frame(g)->last_arrival = take_unit(pd);
		rt_unlock(&pd->lock);
		return NR_TOOK;
	}
	if (pd->remaining == 0 && (pd->is_listener || pd->to_send == 0)) {
		/* a listener with no more connections; a connection whose
		 * client has sent its last request and had it answered */
		rt_unlock(&pd->lock);
		return NR_DONE;
	}
	if (pd->rg) {
		rt_unlock(&pd->lock);
		rt_panic(m, "two goroutines read %s at once",
			 pd->is_listener ? pd->lis->name : "a connection");
		return NR_TOOK;
	}
	pd->rg = g;
	g->waitreason = pd->remaining ? "IO wait" : "IO wait (nothing more will arrive)";
	if (pd->remaining)
		plat_add_u32(&m->rt->sched.netpoll_waiters, 1, memory_order_release);
	rt_park_commit(m, pd_unlock, pd);
	return NR_PARK;
}

struct pollfd_desc *rt_netpoll_accept(struct m *m, struct pollfd_desc *lis)
{
	struct rt *rt = m->rt;
	int64_t when = g_frame(m->curg)->last_arrival;
	rt_lock(&lis->lock);
	uint64_t index = lis->accepted++;
	rt_unlock(&lis->lock);
	struct pollfd_desc *c = desc_new(rt);
	rt_stream_init(rt, &c->rs, dist_key_child(lis->rs.key, index));
	int64_t requests = rt_draw(m, &c->rs, lis->lis->requests);
	c->pending = requests > 0;
	c->to_send = requests > 0 ? (uint64_t)requests - 1 : 0;
	c->arrived_at = when;
	c->lis = lis->lis;
	rt_objs_add(m, PT_CONN, c);
	return c;
}

void rt_netpoll_respond(struct m *m, struct pollfd_desc *c)
{
	struct rt *rt = m->rt;
	rt_lock(&c->lock);
	plat_shared_access(c->line, true);
	if (!c->to_send) {
		rt_unlock(&c->lock);
		return;
	}
	c->to_send--;
	int64_t when = rt_time_after(plat_nanotime(), rt_draw(m, &c->rs, c->lis->think));
	if (c->remaining++ == 0 && c->rg) {
		c->rg->waitreason = "IO wait";
		plat_add_u32(&rt->sched.netpoll_waiters, 1, memory_order_release);
	}
	rt_unlock(&c->lock);
	rt_lock(&rt->arrivals_lock);
	plat_shared_access(rt->arrivals_line, true);
	arrival_push(rt, when, c);
	arrival0_update(rt);
	rt_unlock(&rt->arrivals_lock);
	rt_wake_netpoller(m, when);
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
		if (pd->is_listener) {
			times_push(pd, ev[i].when, units);
		} else {
			pd->arrived_at = ev[i].when;
		}
		struct g *g = NULL;
		if (pd->rg && pd->pending) {
			g = pd->rg;
			pd->rg = NULL;
			g_frame(g)->last_arrival = take_unit(pd);
			plat_add_u32(&rt->sched.netpoll_waiters, (uint32_t)-1, memory_order_release);
		} else if (pd->rg && pd->remaining == 0) {
			/* its reader will now wait forever: no longer a waiter */
			plat_add_u32(&rt->sched.netpoll_waiters, (uint32_t)-1, memory_order_release);
			pd->rg->waitreason = "IO wait (nothing more will arrive)";
		}
		rt_unlock(&pd->lock);
		if (g) {
			assert(g->status == G_WAITING);
			g->wake = pd->is_listener ? RT_WAKE_NET_ACCEPT : RT_WAKE_NET_READ;
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
	if (n < 0)
		n = 0;
	n += arrivals_due(m, ev + n, NETPOLL_BATCH - n, false);
	if (n == 0)
		return NULL;
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
	return n + arrivals_due(m, ev + n, max - n, true);
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
