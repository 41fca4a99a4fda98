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
	struct rt_why_requests req;
	/* The spans with some M held back by the quota -- the process
	 * throttled --, in order: a span before a request's handler had its
	 * data is the quota's for as long as they overlap (throttled_until) */
	/* Gs running (a system call included), and the time with fewer of
	 * them than Ps -- a P with no G -- to each instant: a wait's share of
	 * it is what an imported trace's recording can be compared with */
	int64_t nrunning, nog_since;
	uint64_t nog_cum;
	uint64_t wait_p_free_ns;
	int64_t nquota;                /* Ms waiting under the quota now */
	struct thr { int64_t start, end; uint64_t before; } *thr;   /* end -1: open */
	size_t nthr, capthr;
};

/* A G's clocks at an instant, for a request's start: when its handler
 * had the data, and what had happened before then [rt_why_req_end]. */
struct rq_mark {
	int64_t got;                   /* the handler had the data (or the request began) */
	uint8_t pre;                   /* what the time from arrival to got was: RT_WHYRQ_x,
					* or RT_WHYRQ__COUNT: none (begun "now") */
	uint64_t held[RT_WHY__COUNT];  /* = rt_why_g.held at got */
	uint64_t blocked;              /* = its blocked clock at got */
};

/* A G's state for --why, after the policy's state in its slab: its
 * current wait (reset at each), and its life's clocks for its requests
 * (reset when it is made). */
struct rt_why_g {
	struct {
		bool active;                   /* a wait is under way */
		uint8_t place;                 /* enum rt_why_place */
		struct rt_why_p *clk;          /* the place's P's clock, or the M's in hand;
						* NULL: none */
		int64_t t0, since;             /* the wait's start, the span's */
		uint64_t snap[WPS__COUNT + 1]; /* the clocks at since (the last: free time) */
		uint64_t part[RT_WHY__COUNT];
		uint64_t nog0;                 /* the no-G clock at t0 */
	} w;
	bool running;
	int64_t born;
	/* every finished wait's parts, plus its Ms' held-up time while it ran */
	uint64_t held[RT_WHY__COUNT];
	uint64_t blocked;              /* parked, up to the last park's end */
	int64_t parked_since;          /* -1: not parked */
	struct rt_why_p *run_clk;      /* the M it runs on (its clock), NULL: not running */
	uint64_t run_snap[WPS__COUNT]; /* that clock when it started to run */
	struct rq_mark data;           /* when it last had data [rt_why_took] */
	struct rq_mark req;            /* its open request's */
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

/* The throttled spans' time from the run's start to t. */
static uint64_t throttled_until(const struct rt_whyrun *w, int64_t t)
{
	size_t lo = 0, hi = w->nthr;   /* the last span starting before t */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (w->thr[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	const struct thr *x = &w->thr[lo - 1];
	int64_t end = x->end >= 0 && x->end < t ? x->end : t;
	return x->before + (uint64_t)(end - x->start);
}

static void quota_count(struct rt_whyrun *w, bool was, bool is, int64_t now)
{
	if (was == is)
		return;
	w->nquota += is ? 1 : -1;
	if (is && w->nquota == 1) {
		uint64_t before = 0;
		if (w->nthr) {
			const struct thr *last = &w->thr[w->nthr - 1];
			if (now < last->end)
				now = last->end;   /* an M's clock behind the last span's end */
			before = last->before + (uint64_t)(last->end - last->start);
		}
		if (w->nthr == w->capthr) {
			w->capthr = w->capthr ? 2 * w->capthr : 16;
			w->thr = xrealloc(w->thr, w->capthr * sizeof(*w->thr));
		}
		w->thr[w->nthr++] = (struct thr){ now, -1, before };
	} else if (!is && w->nquota == 0) {
		struct thr *last = &w->thr[w->nthr - 1];
		last->end = now > last->start ? now : last->start;
	}
}

void rt_why_m_os(struct m *m, unsigned wait, int64_t now)
{
	struct rt *rt = m->rt;
	bool was_quota = m->why_os == RT_WHY_OS_QUOTA;
	m->why_os = (uint8_t)wait;
	if (!rt->why)
		return;
	quota_count(rt->why, was_quota, wait == RT_WHY_OS_QUOTA, now);
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
	if (now > wg->w.since)
		wg->w.since = now;
	wg->w.place = (uint8_t)place;
	wg->w.clk = place == RT_WP_GLOBAL ? NULL : clk;
	if (place == RT_WP_GLOBAL) {
		for (int s = 0; s < WPS__COUNT; s++)
			wg->w.snap[s] = all_clock(w, (unsigned)s, wg->w.since);
		wg->w.snap[WPS__COUNT] = free_clock(w, wg->w.since);
	} else if (wg->w.clk) {
		for (int s = 0; s < WPS__COUNT; s++)
			wg->w.snap[s] = p_clock(wg->w.clk, (unsigned)s, wg->w.since);
	}
}

static uint64_t grew(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* The span from since to now, cut into causes. */
static void close_span(struct rt_whyrun *w, struct rt_why_g *wg, int64_t now)
{
	if (now <= wg->w.since)
		return;
	uint64_t left = (uint64_t)(now - wg->w.since);
	enum rt_why_cause own = place_cause(wg->w.place);
	if (wg->w.place == RT_WP_NEXTG)
		own = RT_WHY_SCHEDULER;   /* its M is up and about to run it */
	if (wg->w.place == RT_WP_GLOBAL) {
		uint64_t f = grew(free_clock(w, now), wg->w.snap[WPS__COUNT]);
		f = f < left ? f : left;
		wg->w.part[RT_WHY_M_WAKEUP] += f;
		left -= f;
		/* the rest by the held Ps' states, in proportion */
		uint64_t d[WPS__COUNT], busy = 0;
		for (int s = 0; s < WPS__COUNT; s++) {
			d[s] = wps_free((unsigned)s) ? 0 : grew(all_clock(w, (unsigned)s, now), wg->w.snap[s]);
			busy += d[s];
		}
		uint64_t share = 0;
		for (int s = 0; s < WPS__COUNT && busy; s++) {
			if (s == WPS_RUN || !d[s])
				continue;
			uint64_t x = (uint64_t)((unsigned __int128)left * d[s] / busy);
			wg->w.part[wps_cause[s]] += x;
			share += x;
		}
		wg->w.part[own] += left - share;
	} else if (wg->w.clk) {
		for (int s = 0; s < WPS__COUNT && left; s++) {
			if (s == WPS_RUN)
				continue;
			uint64_t x = grew(p_clock(wg->w.clk, (unsigned)s, now), wg->w.snap[s]);
			x = x < left ? x : left;
			wg->w.part[wps_cause[s]] += x;
			left -= x;
		}
		wg->w.part[own] += left;
	} else {
		wg->w.part[own] += left;
	}
	wg->w.since = now;
}

/* The clock of the M calling, if any: a G in its hands waits on its
 * state. */
static struct rt_why_p *self_clk(void)
{
	struct m *m = plat_self();
	return m ? m->why : NULL;
}

/* ---- A G's life, for its requests ---- */

/* The M's held-up states while a G runs on it: the same causes as a
 * runnable G's P's. */
static const uint8_t run_held_states[] = { WPS_LOCK, WPS_PU, WPS_QUOTA };

/* Adds to held, by cause, what the M wg runs on has been held up since
 * the G started to run, to now. */
static void add_run_held(const struct rt_why_g *wg, int64_t now, uint64_t *held)
{
	if (!wg->run_clk)
		return;
	for (size_t i = 0; i < sizeof(run_held_states); i++) {
		unsigned s = run_held_states[i];
		held[wps_cause[s]] += grew(p_clock(wg->run_clk, s, now), wg->run_snap[s]);
	}
}

static uint64_t nog_clock(const struct rt_whyrun *w, const struct rt *rt, int64_t now)
{
	uint64_t c = w->nog_cum;
	if (w->nrunning < rt->procs && now > w->nog_since)
		c += (uint64_t)(now - w->nog_since);
	return c;
}

static void count_running(struct rt *rt, int d, int64_t now)
{
	struct rt_whyrun *w = rt->why;
	w->nog_cum = nog_clock(w, rt, now);
	if (now > w->nog_since)
		w->nog_since = now;
	w->nrunning += d;
}

static void run_stop(struct rt *rt, struct rt_why_g *wg, int64_t now)
{
	if (wg->running) {
		wg->running = false;
		count_running(rt, -1, now);
	}
	add_run_held(wg, now, wg->held);
	wg->run_clk = NULL;
}

static void mark(struct rq_mark *mk, const struct rt_why_g *wg, int64_t at, unsigned pre)
{
	mk->got = at;
	mk->pre = (uint8_t)pre;
	memcpy(mk->held, wg->held, sizeof(mk->held));
	mk->blocked = wg->blocked;
	if (wg->parked_since >= 0 && at > wg->parked_since)
		mk->blocked += (uint64_t)(at - wg->parked_since);
}

/* A G made (runwhy spawn): its life's clocks start, and whatever data it
 * takes that arrived before now was waiting for it to be made. */
static void life_start(struct rt_why_g *wg, int64_t born)
{
	memset(wg, 0, sizeof(*wg));
	wg->born = born;
	wg->parked_since = -1;
	mark(&wg->data, wg, born, RT_WHYRQ_ACCEPT);
}

void rt_why_park_slow(struct rt *rt, struct g *g)
{
	struct rt_why_g *wg = why_g(rt, g);
	int64_t now = plat_nanotime();
	run_stop(rt, wg, now);
	wg->parked_since = now;
}

void rt_why_took_slow(struct rt *rt, struct g *g, int64_t arrived)
{
	struct rt_why_g *wg = why_g(rt, g);
	if (arrived >= wg->born)
		mark(&wg->data, wg, plat_nanotime(), RT_WHYRQ_BUSY);
}

void rt_why_req_begin_slow(struct rt *rt, struct g *g, bool at_arrival)
{
	struct rt_why_g *wg = why_g(rt, g);
	if (at_arrival)
		wg->req = wg->data;
	else
		mark(&wg->req, wg, plat_nanotime(), RT_WHYRQ__COUNT);
}

void rt_why_req_end_slow(struct rt *rt, struct g *g, int64_t start, int64_t end)
{
	struct rt_why_g *wg = why_g(rt, g);
	const struct rq_mark *mk = &wg->req;
	uint64_t part[RT_WHYRQ__COUNT] = { 0 }, sum = 0;
	uint64_t total = end > start ? (uint64_t)(end - start) : 0;
	if (mk->pre < RT_WHYRQ__COUNT && mk->got > start) {
		/* before its handler had it, the quota's while the process was
		 * throttled: nothing of it ran, the poller and acceptor included */
		uint64_t q = grew(throttled_until(rt->why, mk->got), throttled_until(rt->why, start));
		uint64_t pre = (uint64_t)(mk->got - start);
		q = q < pre ? q : pre;
		part[RT_WHYRQ_SCHED + RT_WHY_CPU_QUOTA] += q;
		part[mk->pre] = pre - q;
	}
	uint64_t held[RT_WHY__COUNT];
	memcpy(held, wg->held, sizeof(held));
	add_run_held(wg, end, held);
	for (int k = 0; k < RT_WHY__COUNT; k++)
		part[RT_WHYRQ_SCHED + k] += grew(held[k], mk->held[k]);
	part[RT_WHYRQ_BLOCKED] = grew(wg->blocked, mk->blocked);
	for (int k = 0; k < RT_WHYRQ__COUNT; k++)
		sum += part[k];
	/* the rest is its own time on an M; where Ms' clocks disagree the
	 * excess is given back from the last causes, as a wait's is */
	if (sum <= total)
		part[RT_WHYRQ_RUNNING] = total - sum;
	for (int k = RT_WHYRQ__COUNT - 1; k >= 0 && sum > total; k--) {
		uint64_t x = sum - total < part[k] ? sum - total : part[k];
		part[k] -= x;
		sum -= x;
	}
	struct rt_why_requests *r = &rt->why->req;
	r->requests++;
	r->total_ns += total;
	for (int k = 0; k < RT_WHYRQ__COUNT; k++) {
		r->ns[k] += part[k];
		r->with[k] += part[k] > 0;
	}
}

void rt_why_ready_slow(struct rt *rt, struct g *g)
{
	struct rt_why_g *wg = why_g(rt, g);
	int64_t now = plat_nanotime();
	if (g->runwhy == RT_RUN_SPAWN) {
		life_start(wg, g->runnable_since >= 0 ? g->runnable_since : now);
	} else {
		run_stop(rt, wg, now);   /* preempted, yielded, or back from a system call */
		if (wg->parked_since >= 0) {
			int64_t until = g->runnable_since >= 0 ? g->runnable_since : now;
			wg->blocked += grew((uint64_t)until, (uint64_t)wg->parked_since);
			wg->parked_since = -1;
		}
		if (g->runwhy == RT_RUN_NET && g->runnable_since >= 0)
			mark(&wg->data, wg, g->runnable_since, RT_WHYRQ_UNPOLLED);
	}
	memset(&wg->w, 0, sizeof(wg->w));
	wg->w.active = true;
	wg->w.t0 = wg->w.since = g->runnable_since;
	wg->w.nog0 = nog_clock(rt->why, rt, g->runnable_since);
	/* A sleep's timer due before now: from then to now it waited for an
	 * M to run the timer.  The netpoller's Gs are dated at the poll's
	 * return, before it delivers the batch's events one by one. */
	if (now > wg->w.since) {
		wg->w.part[g->runwhy == RT_RUN_TIMER ? RT_WHY_TIMER
			 : g->runwhy == RT_RUN_NET ? RT_WHY_NETPOLL : RT_WHY_SCHEDULER] +=
			(uint64_t)(now - wg->w.since);
		wg->w.since = now;
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
	if (!wg->w.active)
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
	if (!wg->w.active)
		return;
	int64_t now = plat_nanotime();
	close_span(rt->why, wg, now);
	open_span(rt->why, wg, RT_WP_HAND, self_clk(), now);
}

void rt_why_run_slow(struct rt *rt, struct g *g, int64_t now)
{
	struct rt_why_g *wg = why_g(rt, g);
	if (!wg->running) {
		wg->running = true;
		count_running(rt, 1, now);
	}
	wg->run_clk = self_clk();
	if (wg->run_clk)
		for (int s = 0; s < WPS__COUNT; s++)
			wg->run_snap[s] = p_clock(wg->run_clk, (unsigned)s, now);
	if (!wg->w.active)
		return;
	wg->w.active = false;
	close_span(rt->why, wg, now);
	uint64_t total = now > wg->w.t0 ? (uint64_t)(now - wg->w.t0) : 0, sum = 0;
	for (int k = 0; k < RT_WHY__COUNT; k++)
		sum += wg->w.part[k];
	/* an M's clock ran ahead of this one's: give the excess back from the
	 * last causes in the list (the runtime's own work first) */
	for (int k = RT_WHY__COUNT - 1; k >= 0 && sum > total; k--) {
		uint64_t x = sum - total < wg->w.part[k] ? sum - total : wg->w.part[k];
		wg->w.part[k] -= x;
		sum -= x;
	}
	assert(sum == total && "a wait's parts must add up to its latency");
	uint64_t nog = grew(nog_clock(rt->why, rt, now), wg->w.nog0);
	rt->why->wait_p_free_ns += nog < total ? nog : total;
	struct rt_why_class *c = &rt->why->cls[g_cls(rt, g)];
	c->waits++;
	c->total_ns += total;
	for (int k = 0; k < RT_WHY__COUNT; k++) {
		c->ns[k] += wg->w.part[k];
		c->waits_with[k] += wg->w.part[k] > 0;
		wg->held[k] += wg->w.part[k];
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
	free(rt->why->thr);
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
	o->req = rt->why->req;
	o->wait_p_free_ns = rt->why->wait_p_free_ns;
	*out = o;
}
