/* Exploration's invariants [core/explore.h; docs/runtime.md, "Exploring
 * schedules"].  Called only in runs given a struct rt_explore: elsewhere
 * the core pays one predictable branch per scheduling step.
 *
 * What is read is read unpriced (plat_peek_*, plain fields), so checking
 * changes no simulated timing: a schedule replays the same with or
 * without a check that did not fire.  In simulation one M runs at a time
 * and control passes between Ms only inside contract operations, so
 * whatever two fields' updates are not separated by one is seen whole.
 * Those that are (a queue under a lock someone holds now) are checked
 * only while their lock is free.
 *
 * The census -- every G on a run queue, runnext, shared or global queue,
 * handed to an M or running -- walks the queues, so it is amortised: a
 * census of c Gs is followed by c / 8 scheduling steps without one, which
 * keeps the checks' cost a constant factor of the run's whatever its
 * queues hold. */
#include "core/runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
	"idle", "runnable", "running", "syscall", "waiting", "dead",
};

static const char *gstatus(const struct g *g)
{
	return (unsigned)g->status < sizeof(status_names) / sizeof(status_names[0])
		       ? status_names[g->status]
		       : "?";
}

static int64_t now_ns(void)
{
	return plat_nanotime();
}

void rt_explore_fail(struct rt *rt, const char *what, const char *fmt, ...)
{
	struct rt_explore *x = rt->explore;
	if (x->failed)
		return;
	x->failed = true;
	snprintf(x->what, sizeof(x->what), "%s", what);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->msg, sizeof(x->msg), fmt, ap);
	va_end(ap);
	/* Go's scheddetail lines: every P, M and G as they are now */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f) {
		bool detail = rt->scheddetail;
		rt->scheddetail = true;
		rt_schedtrace(rt, now_ns() - rt->start_ns, f);
		rt->scheddetail = detail;
		fclose(f);
		/* dead Gs say nothing about the failure: counted, not listed */
		size_t dead = 0, o = 0;
		for (size_t i = 0; i < len;) {
			char *nl = memchr(buf + i, '\n', len - i);
			size_t n = nl ? (size_t)(nl - (buf + i)) + 1 : len - i;
			if (memmem(buf + i, n, " status=6(", 10) && memmem(buf + i, n, "  G", 3) == buf + i) {
				dead++;
			} else {
				memmove(buf + o, buf + i, n);
				o += n;
			}
			i += n;
		}
		buf[o] = '\0';
		if (dead) {
			char line[64];
			int n = snprintf(line, sizeof(line), "  (%zu dead Gs not shown)\n", dead);
			buf = xrealloc(buf, o + (size_t)n + 1);
			memcpy(buf + o, line, (size_t)n + 1);
		}
		x->state = buf;
	}
	plat_rt_halt(rt);
}

/* ---- The census's set of Gs ---- */

/* Emptied before each census, sized to the last one's count: the census
 * visits queued and running Gs only, far fewer than the run's Gs.  The
 * slots taken are listed, so that emptying it costs the Gs it held, not its
 * size (a census runs at every scheduling step). */
static void seen_clear(struct rt_explore *x, uint32_t want)
{
	uint32_t cap = 64;
	while (cap < 2 * want && cap < (1u << 30))
		cap *= 2;
	if (cap != x->seen_cap) {
		free(x->seen);
		free(x->seen_used);
		x->seen = xcalloc(cap, sizeof(*x->seen));
		x->seen_used = xcalloc(cap / 2, sizeof(*x->seen_used));
		x->seen_cap = cap;
	} else {
		for (uint32_t k = 0; k < x->seen_n; k++)
			x->seen[x->seen_used[k]] = NULL;
	}
	x->seen_n = 0;
}

static uint32_t seen_slot(void *const *set, uint32_t mask, const void *g)
{
	uint32_t i = (uint32_t)(((uintptr_t)g >> 6) * 0x9e3779b1u) & mask;
	while (set[i] && set[i] != g)
		i = (i + 1) & mask;
	return i;
}

/* false if g was there already */
static bool seen_add(struct rt_explore *x, struct g *g)
{
	if (2 * (x->seen_n + 1) > x->seen_cap) {
		uint32_t cap = x->seen_cap * 2;
		void **set = xcalloc(cap, sizeof(*set));
		uint32_t *used = xcalloc(cap / 2, sizeof(*used));
		for (uint32_t k = 0; k < x->seen_n; k++) {
			uint32_t i = seen_slot(set, cap - 1, x->seen[x->seen_used[k]]);
			set[i] = x->seen[x->seen_used[k]];
			used[k] = i;
		}
		free(x->seen);
		free(x->seen_used);
		x->seen = set;
		x->seen_used = used;
		x->seen_cap = cap;
	}
	uint32_t i = seen_slot(x->seen, x->seen_cap - 1, g);
	if (x->seen[i])
		return false;
	x->seen[i] = g;
	x->seen_used[x->seen_n++] = i;
	return true;
}

static bool lock_free(struct rt_mutex *l)
{
	return plat_peek_u32(&l->key) == RT_MUTEX_UNLOCKED;
}

struct census {
	struct rt *rt;
	int64_t now;
	bool idle_p;            /* some P has been idle for longer than the bound */
	uint32_t n;
	const char *where;
	int where_id;
};

/* One queued G: in one place only, runnable, not waiting too long while a
 * P idles.  false once a violation is recorded. */
static bool census_g(struct census *c, struct g *g)
{
	struct rt *rt = c->rt;
	struct rt_explore *x = rt->explore;
	c->n++;
	if (!seen_add(x, g)) {
		rt_explore_fail(rt, "G in one place",
				"G%llu is on two run queues at once (found again on %s %d)",
				(unsigned long long)g->goid, c->where, c->where_id);
		return false;
	}
	if (g->status != G_RUNNABLE) {
		rt_explore_fail(rt, "G in one place",
				"G%llu is on %s %d but its status is %s, not runnable",
				(unsigned long long)g->goid, c->where, c->where_id, gstatus(g));
		return false;
	}
	if (c->idle_p && g->runnable_since >= 0 &&
	    c->now - g->runnable_since > x->max_starve_ns) {
		rt_explore_fail(rt, "starvation",
				"G%llu has been runnable on %s %d for %lld ns while a P has been idle "
				"longer than the bound (%lld ns: --max-starve)",
				(unsigned long long)g->goid, c->where, c->where_id,
				(long long)(c->now - g->runnable_since), (long long)x->max_starve_ns);
		return false;
	}
	return true;
}

/* Every queued G, each once; false on a violation. */
static bool census(struct rt *rt, struct census *c)
{
	struct sched *s = &rt->sched;
	bool sched_free = lock_free(&s->lock);
	for (int i = 0; i < rt->procs; i++) {
		struct p *pp = rt->allp[i];
		c->where_id = i;
		c->where = "the runnext of P";
		struct g *next = plat_peek_ptr(&pp->runnext);
		if (next && !census_g(c, next))
			return false;
		c->where = "the local run queue of P";
		uint32_t h = rq_head(plat_peek_u64(&pp->runqhead)), t = plat_peek_u32(&pp->runqtail);
		/* the owner's LIFO pop lowers tail before it claims the slot:
		 * with thieves racing it, tail is one below head for a moment */
		if ((int32_t)(t - h) < 0)
			t = h;
		if (t - h > pp->runq_mask + 1) {
			rt_explore_fail(rt, "run queue bounds", "P%d's run queue holds %u Gs in %u slots",
					i, t - h, pp->runq_mask + 1);
			return false;
		}
		for (uint32_t k = h; k != t; k++)
			if (!census_g(c, plat_peek_ptr(&pp->runq[k & pp->runq_mask])))
				return false;
		if (pp->sharedq_used && lock_free(&pp->sharedq_lock)) {
			c->where = "the shared queue of P";
			uint32_t n = 0;
			for (struct g *g = pp->sharedq_head; g; g = g->schedlink, n++)
				if (!census_g(c, g))
					return false;
			if (n != plat_peek_u32(&pp->sharedq_size)) {
				rt_explore_fail(rt, "queue counts",
						"P%d's shared queue holds %u Gs but its size says %u", i, n,
						plat_peek_u32(&pp->sharedq_size));
				return false;
			}
		}
	}
	if (sched_free) {
		uint32_t total = 0;
		for (int qi = 0; qi < s->ngq; qi++) {
			struct globrunq *q = &s->gq[qi];
			c->where = "the global run queue";
			c->where_id = qi;
			for (uint32_t k = q->head; k != q->tail; k++)
				if (!census_g(c, q->ring[k & (q->cap - 1)]))
					return false;
			total += q->tail - q->head;
			if (s->ngq > 1 && q->tail - q->head != plat_peek_u32(&q->size)) {
				rt_explore_fail(rt, "queue counts",
						"global queue %d holds %u Gs but its size says %u", qi,
						q->tail - q->head, plat_peek_u32(&q->size));
				return false;
			}
		}
		if (total != plat_peek_u32(&s->runqsize)) {
			rt_explore_fail(rt, "queue counts",
					"the global queues hold %u Gs but runqsize says %u", total,
					plat_peek_u32(&s->runqsize));
			return false;
		}
	}
	/* Gs handed to an M, and running ones: no G twice, none run by two */
	for (struct m *mp = rt->allm; mp; mp = mp->alllink) {
		c->where = "the hand-off (nextg) of M";
		c->where_id = mp->id;
		if (mp->nextg && !census_g(c, mp->nextg))
			return false;
		struct g *cg = mp->curg;
		if (!cg)
			continue;
		if (!seen_add(rt->explore, cg)) {
			rt_explore_fail(rt, "no G run by two Ms",
					"G%llu is running on M%d and is also queued or running elsewhere",
					(unsigned long long)cg->goid, mp->id);
			return false;
		}
		if (cg->m != mp) {
			rt_explore_fail(rt, "no G run by two Ms",
					"G%llu is M%d's current G but its M is M%d",
					(unsigned long long)cg->goid, mp->id, cg->m ? cg->m->id : -1);
			return false;
		}
	}
	return true;
}

/* The idle lists against their counts, and Ps against their Ms;
 * *idle_for gets how long the longest-idle P has been idle (0 if none, or
 * if sched.lock is held and the list cannot be read). */
static bool counters(struct rt *rt, int64_t now, int64_t *idle_for, int *idle_id)
{
	*idle_for = 0;
	*idle_id = -1;
	struct sched *s = &rt->sched;
	int mcount = 0;
	for (struct m *mp = rt->allm; mp; mp = mp->alllink) {
		mcount++;
		if (mp->p && mp->p->m != mp) {
			rt_explore_fail(rt, "P held by one M",
					"M%d holds P%d, whose M is M%d", mp->id, mp->p->id,
					mp->p->m ? mp->p->m->id : -1);
			return false;
		}
	}
	uint32_t spinning = plat_peek_u32(&s->nmspinning);
	if (spinning > (uint32_t)mcount) {
		rt_explore_fail(rt, "spinning count",
				"nmspinning is %u with %d Ms (a decrement without its increment)",
				spinning, mcount);
		return false;
	}
	if (!lock_free(&s->lock))
		return true;
	int nm = 0;
	for (struct m *mp = s->midle; mp; mp = mp->schedlink, nm++) {
		if (mp->p || mp->curg || mp->spinning) {
			rt_explore_fail(rt, "idle counts", "M%d is on the idle list %s", mp->id,
					mp->p ? "holding a P" : mp->curg ? "holding a G" : "spinning");
			return false;
		}
		if (nm > mcount)
			break;
	}
	if (nm != s->nmidle) {
		rt_explore_fail(rt, "idle counts", "%d Ms on the idle list, nmidle says %d", nm,
				s->nmidle);
		return false;
	}
	uint32_t np = 0;
	for (struct p *pp = s->pidle; pp; pp = pp->link, np++) {
		if (now - pp->idle_since > *idle_for) {
			*idle_for = now - pp->idle_since;
			*idle_id = pp->id;
		}
		if (pp->m || plat_peek_u32(&pp->status) != P_IDLE) {
			rt_explore_fail(rt, "idle counts",
					"P%d is on the idle list but is held by M%d (status %u)", pp->id,
					pp->m ? pp->m->id : -1, plat_peek_u32(&pp->status));
			return false;
		}
		if (np > (uint32_t)rt->procs)
			break;
	}
	if (np != plat_peek_u32(&s->npidle)) {
		rt_explore_fail(rt, "idle counts", "%u Ps on the idle list, npidle says %u", np,
				plat_peek_u32(&s->npidle));
		return false;
	}
	return true;
}

void rt_explore_step(struct m *m, struct g *g)
{
	struct rt *rt = m->rt;
	struct rt_explore *x = rt->explore;
	if (x->failed)
		return;
	x->checks++;
	int64_t now = now_ns();
	if (g->status == G_RUNNING || (g->m && g->m != m)) {
		rt_explore_fail(rt, "no G run by two Ms", "M%d is about to run G%llu, which M%d runs",
				m->id, (unsigned long long)g->goid, g->m ? g->m->id : -1);
		return;
	}
	if (g->status != G_RUNNABLE) {
		rt_explore_fail(rt, "G in one place", "M%d is about to run G%llu, whose status is %s",
				m->id, (unsigned long long)g->goid, gstatus(g));
		return;
	}
	/* Starvation is a runnable G's wait past the bound while a P idled
	 * past it too (both end now, so they overlap by more than the bound):
	 * work left undone with a P free to do it, not a long queue. */
	int64_t idle_for;
	int idle_id;
	if (!counters(rt, now, &idle_for, &idle_id))
		return;
	bool idle_p = idle_for > x->max_starve_ns;
	/* A G readied by its timer counts from the timer's time: if it runs
	 * past the bound with a P idle even now, nobody was watching the
	 * timer (the P holding it was left without an M or a poller). */
	if (g->wake == RT_WAKE_TIMER && g->runnable_since >= 0 &&
	    now - g->runnable_since > x->max_starve_ns && plat_peek_u32(&rt->sched.npidle) > 0) {
		rt_explore_fail(rt, "starvation",
				"G%llu's timer fired %lld ns late with a P idle (bound %lld ns: "
				"--max-starve)",
				(unsigned long long)g->goid, (long long)(now - g->runnable_since),
				(long long)x->max_starve_ns);
		return;
	}
	if (idle_p && g->runnable_since >= 0 && now - g->runnable_since > x->max_starve_ns) {
		rt_explore_fail(rt, "starvation",
				"G%llu waited %lld ns to run while P%d had been idle for %lld ns (bound "
				"%lld ns: --max-starve)",
				(unsigned long long)g->goid, (long long)(now - g->runnable_since), idle_id,
				(long long)idle_for, (long long)x->max_starve_ns);
		return;
	}
	if (x->census_due > 0) {
		x->census_due--;
		return;
	}
	struct census c = { rt, now, idle_p, 0, "", 0 };
	seen_clear(x, x->seen_n);
	if (!seen_add(x, g)) {
		/* cannot happen: the set is empty */
	}
	c.n = 1;
	if (!census(rt, &c))
		return;
	x->census_due = c.n / 8;
}

/* Is anything left that could wake someone?  NULL if not, else what. */
static const char *can_wake(struct rt *rt, char *buf, size_t size)
{
	struct sched *s = &rt->sched;
	for (int i = 0; i < rt->procs; i++) {
		struct p *pp = rt->allp[i];
		if (plat_peek_ptr(&pp->runnext) ||
		    rq_head(plat_peek_u64(&pp->runqhead)) != plat_peek_u32(&pp->runqtail) ||
		    (pp->sharedq_used && pp->sharedq_head)) {
			snprintf(buf, size, "P%d's queues hold a runnable G", i);
			return buf;
		}
	}
	for (int qi = 0; qi < s->ngq; qi++)
		if (s->gq[qi].tail != s->gq[qi].head) {
			snprintf(buf, size, "global queue %d holds %u runnable Gs", qi,
				 s->gq[qi].tail - s->gq[qi].head);
			return buf;
		}
	for (struct m *mp = rt->allm; mp; mp = mp->alllink)
		if (mp->nextg) {
			snprintf(buf, size, "M%d has G%llu handed to it", mp->id,
				 (unsigned long long)mp->nextg->goid);
			return buf;
		}
	for (size_t i = 0; i < rt->nallg; i++) {
		struct g *g = rt->allg[i];
		if (g->status == G_SYSCALL || g->status == G_RUNNING || g->status == G_RUNNABLE) {
			snprintf(buf, size, "G%llu is %s", (unsigned long long)g->goid, gstatus(g));
			return buf;
		}
	}
	int64_t t = 0;
	for (int i = 0; i < rt->procs; i++) {
		int64_t w = (int64_t)plat_peek_u64(&rt->allp[i]->timer0);
		if (w && (!t || w < t))
			t = w;
	}
	if (t) {
		snprintf(buf, size, "a timer is due at %lld ns", (long long)(t - rt->start_ns));
		return buf;
	}
	if (rt_arrivals_next(rt) >= 0) {
		snprintf(buf, size, "a network arrival is due at %lld ns",
			 (long long)(rt_arrivals_next(rt) - rt->start_ns));
		return buf;
	}
	if (plat_peek_u32(&s->netpoll_waiters)) {
		snprintf(buf, size, "%u Gs wait on the network with data still to come",
			 plat_peek_u32(&s->netpoll_waiters));
		return buf;
	}
	return NULL;
}

/* A G asleep must be on a timer heap, or nothing will ever wake it. */
static bool lost_sleeper(struct rt *rt)
{
	for (size_t i = 0; i < rt->nallg; i++) {
		struct g *g = rt->allg[i];
		if (g->status == G_WAITING && g->timer && g->timer->g == g && g->timer->pp == NULL &&
		    g->waitreason == RT_WAIT_SLEEP) {
			rt_explore_fail(rt, "no G lost",
					"G%llu sleeps but its timer is on no P's heap: nothing will wake it",
					(unsigned long long)g->goid);
			return true;
		}
	}
	return false;
}

void rt_explore_deadlock(struct rt *rt)
{
	struct rt_explore *x = rt->explore;
	if (x->failed)
		return;
	char buf[160];
	const char *why = can_wake(rt, buf, sizeof(buf));
	if (why) {
		rt_explore_fail(rt, "no false deadlock",
				"checkdead declared a deadlock, but %s", why);
		return;
	}
	/* Every M is idle, so none spins: the count is exact here, where the
	 * census can only bound it.  One left over makes wakep wake nobody. */
	uint32_t spinning = plat_peek_u32(&rt->sched.nmspinning);
	if (spinning) {
		rt_explore_fail(rt, "spinning count",
				"checkdead found every M idle with nmspinning %u (an increment "
				"never given back)", spinning);
		return;
	}
	lost_sleeper(rt);
}

void rt_explore_end(struct rt *rt)
{
	struct rt_explore *x = rt->explore;
	if (x->failed)
		return;
	if (rt->panicked) {
		if (!rt_explore_limit_panic(rt->panic_msg))
			rt_explore_fail(rt, "the workload's asserts", "the run panicked: %s",
					rt->panic_msg);
		return;
	}
	if (plat_peek_u32(&rt->sched.done) || rt->ended != RT_ENDED_ITSELF)
		return;
	/* Not over, not cut: nothing was left to fire, every M asleep */
	if (lost_sleeper(rt))
		return;
	char buf[160];
	const char *why = can_wake(rt, buf, sizeof(buf));
	rt_explore_fail(rt, "no G lost",
			"every M is asleep with the run unfinished and no deadlock reported (a lost "
			"wake-up)%s%s",
			why ? ": " : "", why ? why : "");
}
