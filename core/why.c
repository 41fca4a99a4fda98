/* Why a G waited: each scheduling latency cut into causes that add up to
 * it exactly [docs/runtime.md, "Why a G waited"; core/policy.h,
 * RT_WHY_CAUSES].
 *
 * Two clocks are kept, both only in a run that asks (rt_limits.why), and
 * neither touches a simulated line, so the run is the same with them or
 * without.
 *
 * Each P's state, one at a time: its M on a PU doing anything (RUN),
 * waiting for sched.lock (LOCK: spinning or asleep on it, class
 * RT_LOCK_SCHED), runnable but waiting for a PU (PU) or held back by the
 * quota (QUOTA) -- the OS model says which, through rt_why_m_os --, asleep
 * in a G's system call while the P waits for it (SYSCALL), no M running it
 * yet (WAKING: handed to an M still asleep or not yet made, or between
 * owners in sysmon's hands) and on the idle list (IDLE).  The state is a
 * function of the P's fields and its M's (pstate); whoever changes one of
 * them calls rt_why_p or rt_why_m, and the time since the last change goes
 * to the state left: a clock per state, per P, and the Ps' together.
 *
 * Each runnable G's place: in hand (made runnable, or taken off a queue,
 * by an M not yet running it), a P's runnext, ring or shared queue,
 * numa's held batch, a global queue, or handed to an M (Go 1.0's nextg).
 * At each move (rt_why_enq, rt_why_deq) the span since the last one is
 * cut: for a place of one P, by that P's clocks over the span -- the
 * part of it the P's M spent waiting for a lock, a PU, the quota, a
 * system call or to wake goes there, the rest to the place's own cause;
 * for a global queue, the time at least one P was free (idle or waking)
 * goes to m_wakeup, and the rest is shared among the Ps' other states in
 * proportion to the time the Ps spent in each over the span.  Spans are
 * cut at clock reads that never go backwards, so a wait's parts add up to
 * its latency; where one M's clock ran ahead of the one that ends the
 * wait, the excess is taken back from the last causes (rt_why_run). */
#include "core/runtime.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

enum wps {
	WPS_RUN,
	WPS_LOCK,
	WPS_PU,
	WPS_QUOTA,
	WPS_SYSCALL,
	WPS_WAKING,
	WPS_IDLE,
	WPS__COUNT,
};

/* A P's state clock (the owner's and its M's, and whoever hands it on). */
struct rt_why_p {
	struct rt *rt;
	struct m *m;                   /* the M it is with: holding it, handed it, in a
					* system call on it; NULL: none */
	bool idle;                     /* on the idle list */
	uint8_t state;                 /* enum wps */
	int64_t since;
	uint64_t cum[WPS__COUNT];
};

struct rt_whyrun {
	struct rt_why_p *p;            /* [procs] */
	/* the Ps together: a state's time is cum + n * now - sum of since */
	uint64_t cum[WPS__COUNT];
	int64_t n[WPS__COUNT], sumsince[WPS__COUNT];
	/* time with at least one P free (idle or waking) */
	int64_t nfree, free_since;
	uint64_t free_cum;
	struct rt_why_class cls[RT_USER_CLASSES];
};

/* A runnable G's wait so far, after the policy's state in its slab. */
struct rt_why_g {
	bool active;                   /* a wait is under way */
	uint8_t place;                 /* enum rt_why_place */
	struct rt_why_p *clk;          /* the place's P's clock, or the M's in hand; NULL: none */
	int64_t t0, since;             /* the wait's start, the span's */
	uint64_t snap[WPS__COUNT + 1]; /* the clocks at since (the last: free time) */
	uint64_t part[RT_WHY__COUNT];
};

static struct rt_why_g *why_g(const struct rt *rt, struct g *g)
{
	return (struct rt_why_g *)((char *)g + rt->why_g_off);
}

size_t rt_why_g_bytes(void)
{
	return sizeof(struct rt_why_g);
}

/* ---- The Ps' clocks ---- */

static bool wps_free(unsigned s)
{
	return s == WPS_WAKING || s == WPS_IDLE;
}

/* An M's own state, for a G in its hands: the same states as a P's.  A
 * parked M is waking it (or, for a P it still holds, parked says
 * otherwise: pstate). */
static enum wps mstate(const struct m *m)
{
	if (m->why_os == RT_WHY_OS_PU)
		return WPS_PU;
	if (m->why_os == RT_WHY_OS_QUOTA)
		return WPS_QUOTA;
	enum rt_cpu k = RT_MT_KIND(m->mt);
	if (k == RT_CPU_PARKED)
		return WPS_WAKING;
	if (k == RT_CPU_SYSCALL)
		return WPS_SYSCALL;
	if ((k == RT_CPU_LOCK_SPIN || k == RT_CPU_LOCK_SLEEP) && (m->mt >> 4) == RT_LOCK_SCHED)
		return WPS_LOCK;
	return WPS_RUN;
}

static enum wps pstate(const struct p *pp)
{
	const struct rt_why_p *wp = pp->why;
	if (wp->idle)
		return WPS_IDLE;
	const struct m *m = wp->m;
	if (!m || m->mt_born < 0)
		return WPS_WAKING;
	/* a parked M holding its P: a thief's back-off, the P still its */
	if (m->why_os == RT_WHY_OS_NONE && RT_MT_KIND(m->mt) == RT_CPU_PARKED && m->p == pp)
		return WPS_RUN;
	return mstate(m);
}

/* Moves a clock to state to at now: a P's (w: the Ps' together too) or
 * an M's (w NULL). */
static void p_set(struct rt_whyrun *w, struct rt_why_p *wp, enum wps to, int64_t now)
{
	enum wps from = (enum wps)wp->state;
	if (to == from)
		return;
	if (now < wp->since)
		now = wp->since;   /* an M's clock behind the last change's */
	uint64_t d = (uint64_t)(now - wp->since);
	wp->cum[from] += d;
	if (!w) {
		wp->state = (uint8_t)to;
		wp->since = now;
		return;
	}
	w->cum[from] += d;
	w->n[from]--;
	w->sumsince[from] -= wp->since;
	w->n[to]++;
	w->sumsince[to] += now;
	int64_t nfree = w->nfree + wps_free(to) - wps_free(from);
	if (w->nfree == 0 && nfree > 0)
		w->free_since = now;
	else if (w->nfree > 0 && nfree == 0 && now > w->free_since)
		w->free_cum += (uint64_t)(now - w->free_since);
	w->nfree = nfree;
	wp->state = (uint8_t)to;
	wp->since = now;
}

static uint64_t p_clock(const struct rt_why_p *wp, unsigned s, int64_t now)
{
	uint64_t c = wp->cum[s];
	if (wp->state == s && now > wp->since)
		c += (uint64_t)(now - wp->since);
	return c;
}

static uint64_t all_clock(const struct rt_whyrun *w, unsigned s, int64_t now)
{
	return w->cum[s] + (uint64_t)(w->n[s] * now - w->sumsince[s]);
}

static uint64_t free_clock(const struct rt_whyrun *w, int64_t now)
{
	uint64_t c = w->free_cum;
	if (w->nfree > 0 && now > w->free_since)
		c += (uint64_t)(now - w->free_since);
	return c;
}

void rt_why_p_slow(struct rt *rt, struct p *pp)
{
	p_set(rt->why, pp->why, pstate(pp), plat_nanotime());
}

void rt_why_p_with(struct rt *rt, struct p *pp, struct m *m)
{
	pp->why->m = m;
	rt_why_p_slow(rt, pp);
}

void rt_why_p_idle(struct rt *rt, struct p *pp, bool idle)
{
	pp->why->idle = idle;
	if (idle)
		pp->why->m = NULL;
	rt_why_p_slow(rt, pp);
}

/* The P m's state is the state of: the one it holds, was handed, or left
 * for a system call. */
static struct p *m_p(const struct m *m)
{
	return m->p ? m->p : m->nextp ? m->nextp : m->oldp;
}

void rt_why_m_slow(struct m *m)
{
	int64_t now = plat_nanotime();
	if (m->why)
		p_set(NULL, m->why, mstate(m), now);
	struct p *pp = m_p(m);
	if (pp)
		p_set(m->rt->why, pp->why, pstate(pp), now);
}

void rt_why_m_os(struct m *m, unsigned wait, int64_t now)
{
	struct rt *rt = m->rt;
	m->why_os = (uint8_t)wait;
	if (!rt->why)
		return;
	if (m->why)
		p_set(NULL, m->why, mstate(m), now);
	struct p *pp = m_p(m);
	if (pp)
		p_set(rt->why, pp->why, pstate(pp), now);
}

struct rt_why_p *rt_why_m_new(struct rt *rt, struct m *m)
{
	struct rt_why_p *wm = xcalloc(1, sizeof(*wm));
	wm->rt = rt;
	wm->m = m;
	wm->state = WPS_WAKING;   /* not started yet */
	return wm;
}

/* ---- A G's wait ---- */

/* The cause of a place's own time (its P's M running, or no P). */
static enum rt_why_cause place_cause(unsigned place)
{
	switch (place) {
	case RT_WP_RUNNEXT: return RT_WHY_RUNNEXT;
	case RT_WP_LOCAL: return RT_WHY_LOCAL_QUEUE;
	case RT_WP_GLOBAL: return RT_WHY_GLOBAL_QUEUE;
	case RT_WP_SHARED: return RT_WHY_SHARED_QUEUE;
	case RT_WP_HELD: return RT_WHY_HELD;
	default: return RT_WHY_SCHEDULER;
	}
}

/* Where a P's held-up states' time goes. */
static const uint8_t wps_cause[WPS__COUNT] = {
	[WPS_RUN] = RT_WHY__COUNT, [WPS_LOCK] = RT_WHY_SCHED_LOCK, [WPS_PU] = RT_WHY_OS_RUN_DELAY,
	[WPS_QUOTA] = RT_WHY_CPU_QUOTA, [WPS_SYSCALL] = RT_WHY_SYSCALL,
	[WPS_WAKING] = RT_WHY_M_WAKEUP, [WPS_IDLE] = RT_WHY_M_WAKEUP,
};

static void open_span(struct rt_whyrun *w, struct rt_why_g *wg, unsigned place,
		      struct rt_why_p *clk, int64_t now)
{
	if (now > wg->since)
		wg->since = now;
	wg->place = (uint8_t)place;
	wg->clk = place == RT_WP_GLOBAL ? NULL : clk;
	if (place == RT_WP_GLOBAL) {
		for (int s = 0; s < WPS__COUNT; s++)
			wg->snap[s] = all_clock(w, (unsigned)s, wg->since);
		wg->snap[WPS__COUNT] = free_clock(w, wg->since);
	} else if (wg->clk) {
		for (int s = 0; s < WPS__COUNT; s++)
			wg->snap[s] = p_clock(wg->clk, (unsigned)s, wg->since);
	}
}

static uint64_t grew(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* The span from since to now, cut into causes. */
static void close_span(struct rt_whyrun *w, struct rt_why_g *wg, int64_t now)
{
	if (now <= wg->since)
		return;
	uint64_t left = (uint64_t)(now - wg->since);
	enum rt_why_cause own = place_cause(wg->place);
	if (wg->place == RT_WP_NEXTG)
		own = RT_WHY_SCHEDULER;   /* its M is up and about to run it */
	if (wg->place == RT_WP_GLOBAL) {
		uint64_t f = grew(free_clock(w, now), wg->snap[WPS__COUNT]);
		f = f < left ? f : left;
		wg->part[RT_WHY_M_WAKEUP] += f;
		left -= f;
		/* the rest by the held Ps' states, in proportion */
		uint64_t d[WPS__COUNT], busy = 0;
		for (int s = 0; s < WPS__COUNT; s++) {
			d[s] = wps_free((unsigned)s) ? 0 : grew(all_clock(w, (unsigned)s, now), wg->snap[s]);
			busy += d[s];
		}
		uint64_t share = 0;
		for (int s = 0; s < WPS__COUNT && busy; s++) {
			if (s == WPS_RUN || !d[s])
				continue;
			uint64_t x = (uint64_t)((unsigned __int128)left * d[s] / busy);
			wg->part[wps_cause[s]] += x;
			share += x;
		}
		wg->part[own] += left - share;
	} else if (wg->clk) {
		for (int s = 0; s < WPS__COUNT && left; s++) {
			if (s == WPS_RUN)
				continue;
			uint64_t x = grew(p_clock(wg->clk, (unsigned)s, now), wg->snap[s]);
			x = x < left ? x : left;
			wg->part[wps_cause[s]] += x;
			left -= x;
		}
		wg->part[own] += left;
	} else {
		wg->part[own] += left;
	}
	wg->since = now;
}

/* The clock of the M calling, if any: a G in its hands waits on its
 * state. */
static struct rt_why_p *self_clk(void)
{
	struct m *m = plat_self();
	return m ? m->why : NULL;
}

void rt_why_ready_slow(struct rt *rt, struct g *g)
{
	struct rt_why_g *wg = why_g(rt, g);
	int64_t now = plat_nanotime();
	memset(wg, 0, sizeof(*wg));
	wg->active = true;
	wg->t0 = wg->since = g->runnable_since;
	/* A sleep's timer due before now: from then to now it waited for an
	 * M to run the timer.  The netpoller's Gs are dated at the poll's
	 * return, before it delivers the batch's events one by one. */
	if (now > wg->since) {
		wg->part[g->runwhy == RT_RUN_TIMER ? RT_WHY_TIMER
			 : g->runwhy == RT_RUN_NET ? RT_WHY_NETPOLL : RT_WHY_SCHEDULER] +=
			(uint64_t)(now - wg->since);
		wg->since = now;
	}
	open_span(rt->why, wg, RT_WP_HAND, self_clk(), now);
}

static unsigned g_cls(const struct rt *rt, const struct g *g)
{
	unsigned k = rt->body->g_class ? rt->body->g_class(rt, g) : 0;
	return k < RT_USER_CLASSES ? k : RT_USER_CLASSES - 1;
}

void rt_why_enq_slow(struct rt *rt, struct g *g, unsigned place, struct p *pp, int64_t ahead)
{
	struct rt_whyrun *w = rt->why;
	struct rt_why_g *wg = why_g(rt, g);
	if (!wg->active)
		return;   /* untimed (runnable_since -1): nothing to cut */
	int64_t now = plat_nanotime();
	close_span(w, wg, now);
	open_span(w, wg, place, pp ? pp->why : NULL, now);
	if (ahead >= 0) {
		struct rt_why_class *c = &w->cls[g_cls(rt, g)];
		enum rt_why_cause k = place_cause(place);
		c->ahead_sum[k] += (uint64_t)ahead;
		c->puts[k]++;
	}
}

void rt_why_deq_p_slow(struct p *pp, struct g *g)
{
	rt_why_deq_slow(pp->why->rt, g);
}

void rt_why_deq_slow(struct rt *rt, struct g *g)
{
	struct rt_why_g *wg = why_g(rt, g);
	if (!wg->active)
		return;
	int64_t now = plat_nanotime();
	close_span(rt->why, wg, now);
	open_span(rt->why, wg, RT_WP_HAND, self_clk(), now);
}

void rt_why_run_slow(struct rt *rt, struct g *g, int64_t now)
{
	struct rt_why_g *wg = why_g(rt, g);
	if (!wg->active)
		return;
	wg->active = false;
	close_span(rt->why, wg, now);
	uint64_t total = now > wg->t0 ? (uint64_t)(now - wg->t0) : 0, sum = 0;
	for (int k = 0; k < RT_WHY__COUNT; k++)
		sum += wg->part[k];
	/* an M's clock ran ahead of this one's: give the excess back from the
	 * last causes in the list (the runtime's own work first) */
	for (int k = RT_WHY__COUNT - 1; k >= 0 && sum > total; k--) {
		uint64_t x = sum - total < wg->part[k] ? sum - total : wg->part[k];
		wg->part[k] -= x;
		sum -= x;
	}
	assert(sum == total && "a wait's parts must add up to its latency");
	struct rt_why_class *c = &rt->why->cls[g_cls(rt, g)];
	c->waits++;
	c->total_ns += total;
	for (int k = 0; k < RT_WHY__COUNT; k++) {
		c->ns[k] += wg->part[k];
		c->waits_with[k] += wg->part[k] > 0;
	}
}

/* ---- The run ---- */

void rt_why_init(struct rt *rt)
{
	struct rt_whyrun *w = xcalloc(1, sizeof(*w));
	w->p = xcalloc((size_t)rt->procs, sizeof(*w->p));
	/* every P starts with no M, until rt_run puts them idle or hands P0 on */
	for (int i = 0; i < rt->procs; i++) {
		w->p[i].rt = rt;
		w->p[i].state = WPS_WAKING;
		rt->allp[i]->why = &w->p[i];
	}
	w->n[WPS_WAKING] = rt->procs;
	w->nfree = rt->procs;
	rt->why = w;
}

void rt_why_fini(struct rt *rt)
{
	if (!rt->why)
		return;
	free(rt->why->p);
	free(rt->why);
	rt->why = NULL;
}

void rt_why_collect(struct rt *rt, struct rt_why **out, int nclasses)
{
	*out = NULL;
	if (!rt->why)
		return;
	struct rt_why *o = xcalloc(1, sizeof(*o));
	o->nclasses = nclasses;
	for (int k = 0; k < RT_USER_CLASSES; k++) {
		const struct rt_why_class *c = &rt->why->cls[k];
		o->cls[k] = *c;
		o->all.waits += c->waits;
		o->all.total_ns += c->total_ns;
		for (int j = 0; j < RT_WHY__COUNT; j++) {
			o->all.ns[j] += c->ns[j];
			o->all.waits_with[j] += c->waits_with[j];
			o->all.ahead_sum[j] += c->ahead_sum[j];
			o->all.puts[j] += c->puts[j];
		}
	}
	*out = o;
}
