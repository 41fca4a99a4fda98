/* The clients' arrival process of a workload: its listeners and
 * connections, as the body's own sources of network data [core/body.h,
 * core/netpoll.c].
 *
 * A G that reads a listener (accept) or a connection (a request) with
 * nothing ready parks on it (src->rg) instead of blocking its M.  When
 * data arrives is the workload's: a listener's connections come at
 * sampled gaps from the start of the run (or all at once for a closed
 * loop of clients), and a connection's next request comes a think time
 * after the answer to the last one is written.  These arrivals wait in
 * one heap ordered by (time, sequence), so both platforms see the same
 * instants; the core's netpoller asks when the next is due (wlr_net_next),
 * takes those due by now as events (wlr_net_due), and applies each
 * (wlr_net_deliver): a unit of readable data on its source, and its
 * parked reader readied.  A source's fields are guarded by its lock; a
 * parked reader that still expects data counts in the core's
 * netpoll_waiters (rt_netpoll_waiters_add). */
#include "workloads/wlr.h"

#include "workloads/dist.h"

#include <assert.h>
#include <stdlib.h>

/* Stream keys of listeners (their connections are their children). */
#define LISTENER_KEY 0x6c697374656e6572ULL

static struct wlr_src *src_new(struct rt *rt)
{
	struct wlr_src *src = xcalloc(1, sizeof(*src));
	src->line = plat_line_new(rt, 0);
	rt_mutex_init(rt, &src->lock, src->line, RT_LOCK_NET);
	return src;
}

void wlr_net_init(struct rt *rt)
{
	struct wlr_run *w = wlr(rt);
	const struct workload *wl = w->wl;
	w->arrivals_line = plat_line_model(rt);
	rt_mutex_init(rt, &w->arrivals_lock, w->arrivals_line, RT_LOCK_NET);
	plat_u64_init(&w->arrival0, 0, w->arrivals_line);
	w->listeners = xcalloc(wl->nlisteners + 1, sizeof(*w->listeners));
	for (uint32_t i = 0; i < wl->nlisteners; i++) {
		struct wlr_src *src = src_new(rt);
		src->is_listener = true;
		src->lis = &wl->listeners[i];
		src->index = i;
		src->remaining = src->lis->count;
		wlr_stream_init(rt, &src->rs, dist_key_child(LISTENER_KEY, i));
		w->listeners[i] = src;
	}
}

void wlr_net_free(struct rt *rt)
{
	struct wlr_run *w = wlr(rt);
	for (uint32_t i = 0; w->listeners && i < w->wl->nlisteners; i++) {
		if (w->listeners[i])
			free(w->listeners[i]->times);
		free(w->listeners[i]);
	}
	free(w->listeners);
	free(w->arrivals);
}

/* ---- Arrivals: a heap by (when, seq) ---- */

static bool arrival_before(const struct arrival *a, const struct arrival *b)
{
	return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

/* arrivals_lock held */
static void arrival_push(struct wlr_run *w, int64_t when, struct wlr_src *src)
{
	if (w->narrivals == w->caparrivals) {
		w->caparrivals = w->caparrivals ? 2 * w->caparrivals : 64;
		w->arrivals = xrealloc(w->arrivals, w->caparrivals * sizeof(*w->arrivals));
	}
	struct arrival x = { when, w->arrivalseq++, src };
	uint32_t i = w->narrivals++;
	while (i > 0) {
		uint32_t up = (i - 1) / 2;
		if (!arrival_before(&x, &w->arrivals[up]))
			break;
		w->arrivals[i] = w->arrivals[up];
		i = up;
	}
	w->arrivals[i] = x;
}

static struct arrival arrival_pop(struct wlr_run *w)
{
	struct arrival top = w->arrivals[0], x = w->arrivals[--w->narrivals];
	uint32_t i = 0, n = w->narrivals;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && arrival_before(&w->arrivals[c + 1], &w->arrivals[c]))
			c++;
		if (!arrival_before(&w->arrivals[c], &x))
			break;
		w->arrivals[i] = w->arrivals[c];
		i = c;
	}
	if (n)
		w->arrivals[i] = x;
	return top;
}

/* arrival0 holds when + 1, so that an arrival at time 0 (a simulated
 * run's start) is not taken for none. */
static void arrival0_update(struct wlr_run *w)
{
	/* seq_cst against the poller's flag, as a timer's [time.c: update_timer0] */
	plat_store_u64(&w->arrival0, w->narrivals ? (uint64_t)w->arrivals[0].when + 1 : 0,
		       memory_order_seq_cst);
}

int64_t wlr_net_next(struct rt *rt)
{
	uint64_t v = plat_load_u64(&wlr(rt)->arrival0, memory_order_seq_cst);
	return v ? (int64_t)v - 1 : -1;
}

/* A listener's next connection, a sampled gap after the last (arrivals_lock
 * held: the listener's stream is the lock holder's). */
static void listener_next(struct m *m, struct wlr_run *w, struct wlr_src *src, int64_t last)
{
	const struct prog_listener *l = src->lis;
	if (src->made == l->count)
		return;
	src->made++;
	int64_t when = rt_time_after(last, l->closed ? 0 : wlr_draw(m, &src->rs, l->interval));
	if (!l->closed) {
		if (w->open_count == 0 || when < w->open_first)
			w->open_first = when;
		if (w->open_count == 0 || when > w->open_last)
			w->open_last = when;
		w->open_count++;
	}
	arrival_push(w, when, src);
}

/* Sources of connections start with the run: an open loop's first
 * connection a gap after the start, a closed loop's clients all at once. */
void wlr_net_start(struct rt *rt, struct m *m0)
{
	struct wlr_run *w = wlr(rt);
	rt_lock(&w->arrivals_lock);
	for (uint32_t i = 0; i < w->wl->nlisteners; i++) {
		struct wlr_src *src = w->listeners[i];
		uint64_t n = src->lis->closed ? src->lis->count : 1;
		for (uint64_t k = 0; k < n; k++)
			listener_next(m0, w, src, rt->start_ns);
	}
	arrival0_update(w);
	rt_unlock(&w->arrivals_lock);
}

/* The arrivals due by now, as events.  A poll that must not wait (!wait)
 * gives up if another M holds the lock: that M is taking the due arrivals
 * right now, as one epoll_wait drains the ready list another then finds
 * empty.  Waiting instead would sleep on the futex behind every M that
 * spins into a poll at once -- the kernel's ready-list lock is a spinlock
 * held for a few list operations, and costs nothing like a sleep. */
int wlr_net_due(struct m *m, struct netpoll_event *ev, int max, bool wait)
{
	struct rt *rt = m->rt;
	struct wlr_run *w = wlr(rt);
	int64_t first = wlr_net_next(rt);
	if (first < 0 || max <= 0)
		return 0;
	int64_t now = plat_nanotime();
	if (first > now)
		return 0;
	int n = 0;
	if (wait)
		rt_lock(&w->arrivals_lock);
	else if (!rt_trylock(&w->arrivals_lock))
		return 0;
	plat_shared_access(w->arrivals_line, true);
	while (n < max && w->narrivals && w->arrivals[0].when <= now) {
		struct arrival a = arrival_pop(w);
		ev[n++] = (struct netpoll_event){ .src = a.src, .units = 1, .when = a.when };
		if (a.src->is_listener && !a.src->lis->closed)
			listener_next(m, w, a.src, a.when);
	}
	arrival0_update(w);
	rt_unlock(&w->arrivals_lock);
	return n;
}

static void src_unlock(void *arg)
{
	rt_unlock(&((struct wlr_src *)arg)->lock);
}

/* A listener's ring of arrival times, one per pending connection (its
 * lock held): units more arrived at when, already counted in pending. */
static void times_push(struct wlr_src *src, int64_t when, uint64_t units)
{
	uint64_t held = src->pending - units;
	if (src->pending > src->times_cap) {
		uint64_t cap = src->times_cap ? 2 * src->times_cap : 16;
		while (cap < src->pending)
			cap *= 2;
		int64_t *t = xmalloc(cap * sizeof(*t));
		for (uint64_t k = 0; k < held; k++)
			t[k] = src->times[(src->times_head + k) % src->times_cap];
		free(src->times);
		src->times = t;
		src->times_cap = cap;
		src->times_head = 0;
	}
	for (uint64_t k = 0; k < units; k++)
		src->times[(src->times_head + held + k) % src->times_cap] = when;
}

/* Takes a pending unit's arrival time (its lock held). */
static int64_t take_unit(struct wlr_src *src)
{
	src->pending--;
	if (!src->is_listener)
		return src->arrived_at;
	return src->times[src->times_head++ % src->times_cap];
}

enum nr wlr_net_take(struct m *m, struct wlr_src *src)
{
	struct g *g = m->curg;
	rt_lock(&src->lock);
	plat_shared_access(src->line, true);
	if (src->pending) {
		int64_t arrived = take_unit(src);
		g_frame(g)->last_arrival = arrived;
		rt_unlock(&src->lock);
		if (RT_WHY_ON(m->rt))
			rt_why_took_slow(m->rt, g, arrived);
		return NR_TOOK;
	}
	if (src->remaining == 0 && (src->is_listener || src->to_send == 0)) {
		/* a listener with no more connections; a connection whose
		 * client has sent its last request and had it answered */
		rt_unlock(&src->lock);
		return NR_DONE;
	}
	if (src->rg) {
		rt_unlock(&src->lock);
		rt_panic(m, "two goroutines read %s at once",
			 src->is_listener ? src->lis->name : "a connection");
		return NR_TOOK;
	}
	src->rg = g;
	g->waitreason = src->remaining ? RT_WAIT_IO_READ : RT_WAIT_IO_ENDED;
	if (src->remaining)
		rt_netpoll_waiters_add(m->rt, 1);
	rt_park_commit(m, src_unlock, src);
	return NR_PARK;
}

struct wlr_src *wlr_net_accept(struct m *m, struct wlr_src *lis)
{
	struct rt *rt = m->rt;
	int64_t when = g_frame(m->curg)->last_arrival;
	rt_lock(&lis->lock);
	uint64_t index = lis->accepted++;
	rt_unlock(&lis->lock);
	struct wlr_src *c = src_new(rt);
	wlr_stream_init(rt, &c->rs, dist_key_child(lis->rs.key, index));
	int64_t requests = wlr_draw(m, &c->rs, lis->lis->requests);
	c->pending = requests > 0;
	c->to_send = requests > 0 ? (uint64_t)requests - 1 : 0;
	c->arrived_at = when;
	c->lis = lis->lis;
	wlr_objs_add(m, PT_CONN, c);
	return c;
}

void wlr_net_respond(struct m *m, struct wlr_src *c)
{
	struct rt *rt = m->rt;
	struct wlr_run *w = wlr(rt);
	rt_lock(&c->lock);
	plat_shared_access(c->line, true);
	if (!c->to_send) {
		rt_unlock(&c->lock);
		return;
	}
	c->to_send--;
	int64_t when = rt_time_after(plat_nanotime(), wlr_draw(m, &c->rs, c->lis->think));
	if (c->remaining++ == 0 && c->rg) {
		c->rg->waitreason = RT_WAIT_IO_READ;
		rt_netpoll_waiters_add(rt, 1);
	}
	rt_unlock(&c->lock);
	rt_lock(&w->arrivals_lock);
	plat_shared_access(w->arrivals_line, true);
	arrival_push(w, when, c);
	arrival0_update(w);
	rt_unlock(&w->arrivals_lock);
	rt_wake_netpoller(m, when);
}

struct g *wlr_net_deliver(struct rt *rt, const struct netpoll_event *ev)
{
	struct wlr_src *src = ev->src;
	rt_lock(&src->lock);
	plat_shared_access(src->line, true);
	uint64_t units = ev->units < src->remaining ? ev->units : src->remaining;
	src->remaining -= units;
	src->pending += units;
	if (src->is_listener)
		times_push(src, ev->when, units);
	else
		src->arrived_at = ev->when;
	struct g *g = NULL;
	if (src->rg && src->pending) {
		g = src->rg;
		src->rg = NULL;
		g_frame(g)->last_arrival = take_unit(src);
		rt_netpoll_waiters_add(rt, -1);
	} else if (src->rg && src->remaining == 0) {
		/* its reader will now wait forever: no longer a waiter */
		rt_netpoll_waiters_add(rt, -1);
		src->rg->waitreason = RT_WAIT_IO_ENDED;
	}
	rt_unlock(&src->lock);
	if (g)
		g->wake = src->is_listener ? RT_WAKE_NET_ACCEPT : RT_WAKE_NET_READ;
	return g;
}
