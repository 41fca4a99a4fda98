/* steal: the P-based work-stealing scheduler, as Go runs it today.
 *
 * Each P has a local ring and a runnext slot (core/runq.c); new and
 * woken Gs go to the running P's runnext, pushing the previous runnext
 * into the ring; a full ring spills half to the global queue.  An M looks
 * for work in this order:
 *   1. every global_check_interval-th schedule on its P, one G from the
 *      global queue first, so that its Gs are not starved by local work;
 *   2. its P's runnext, then the ring;
 *   3. a batch from the global queue;
 *   4. the netpoller, without waiting, if some G waits on the network;
 *   5. stealing, if not too many Ms are spinning already: steal_tries
 *      passes over the other Ps in random coprime order, taking half a
 *      victim's ring, its runnext only on the last pass;
 *   6. dropping its P: a last look at the global queue under the lock, then
 *      -- if it was the last spinner -- at every P's queue and the global
 *      queue, then parking.
 * Spinning, waking and dropping the P are the core's protocol
 * (core/proc.c [proc: Spinning]: rt_trybecomespinning, rt_dropp); this
 * file is the search order.  Every constant of the above is a knob. */
#include "core/runtime.h"
#include "core/mech.h"
#include "policies/knobs_shared.h"

enum {
	K_INHERIT = KS__COUNT,
	K_PREEMPT,
	K_RETAKE,
	K_GO,
	K_POLL_MS,
};

static const struct pol_knob steal_knobs[] = {
	SHARED_KNOBS("slots in each P's local ring; a full ring moves half of itself to the "
		     "global queue",
		     "every Nth schedule on a P takes from the global queue first, for fairness "
		     "(0: never first)",
		     "passes over all Ps, in random coprime order, before an M drops its P",
		     "a G spawned or readied by a running G goes to its P's runnext slot (else "
		     "the ring's tail)"),
	[K_INHERIT] = { "inherit_time_slice", 1, 0, 1, POL_KNOB_BOOL,
			"a G taken from runnext continues the current time slice (does not "
			"count as a new schedule)" },
	[K_PREEMPT] = SHARED_KNOB_PREEMPT,
	[K_RETAKE] = SHARED_KNOB_RETAKE("sysmon takes the P of a G blocked this long in a system "
					"call and hands it to another M, when there is other work"),
	[K_GO] = { "go", 126, 113, 126, 0,
		   "the Go release steal follows, 126 (Go 1.26), 119 (Go 1.19), 114 (Go 1.14) "
		   "or 113 (Go 1.13): 126's wake-up that finds no idle P asks the next M about to drop its "
		   "P to spin instead (sched.needspinning), its Gosched, preemption and "
		   "netpoller injection wake a spinner, and one M at a time polls the network "
		   "without blocking (sched.pollingNet); 119 does none of these; 114 is 119 "
		   "with Go 1.14's timers: a running P's timers are left to it until its G is "
		   "marked for preemption, and sysmon starts an M for an overdue timer; 113 is "
		   "119 with Go 1.13's timers: a timer goroutine per P's heap, asleep in a "
		   "system call until its next timer, needing a P to run it" },
	[K_POLL_MS] = { "poll_ms", 0, 0, 1, POL_KNOB_BOOL,
			"the poller's sleep until a timer ends on a whole millisecond, as Go's "
			"netpoller converts it to epoll_wait's timeout on Linux: under 1 ms it "
			"waits 1 ms, longer is cut down to whole ms (0: at the timer's "
			"nanosecond, as a timerfd would)" },
	{ NULL, 0, 0, 0, 0, NULL },
};

struct steal {
	struct shared_knobs sk;
	struct rt_steal_order order;
	uint64_t global_check_inv;   /* ceil(2^64 / sk.global_check) mod 2^64 */
	bool inherit;
};

static bool steal_init(struct rt *rt, struct pol_choices *c, struct err *e)
{
	struct steal *st = rt_pol_run(rt);
	/* the releases in between changed the protocol at one of them, which
	 * neither tree read says [docs/runtime.md, "Go 1.19 to 1.26"] */
	int64_t go = rt->knobs[K_GO];
	if (go != 113 && go != 114 && go != 119 && go != 126) {
		err_set(e, "steal: go=%lld: the releases modelled are 113 (Go 1.13), 114 (Go 1.14), "
			"119 (Go 1.19) and 126 (Go 1.26)", (long long)go);
		return false;
	}
	shared_knobs_read(&st->sk, c, rt->knobs, K_PREEMPT, K_RETAKE);
	if (st->sk.global_check)
		st->global_check_inv = UINT64_MAX / st->sk.global_check + 1;
	st->inherit = rt->knobs[K_INHERIT] != 0;
	c->go_release = (int)rt->knobs[K_GO];
	c->needspinning = c->one_poller = c->go_release == 126;
	c->timers_own_p = c->go_release == 114;
	c->timerproc = c->go_release == 113;
	c->poll_ms = rt->knobs[K_POLL_MS] != 0;
	rt_steal_order_reset(&st->order, (uint32_t)rt->procs);
	return true;
}

static void steal_fini(struct rt *rt)
{
	struct steal *st = rt_pol_run(rt);
	rt_steal_order_free(&st->order);
}

/* A spawned or woken G goes to the running P, and someone is woken to
 * look for work in case this P stays busy. */
static void steal_newproc(struct m *m, struct g *g)
{
	struct steal *st = rt_pol_run(m->rt);
	rt_runqput(m->rt, m->p, g, st->sk.runnext);
	rt_wakep(m);
}

static void steal_ready(struct m *m, struct g *g)
{
	struct steal *st = rt_pol_run(m->rt);
	rt_runqput(m->rt, m->p, g, st->sk.runnext);
	if (!RT_BUG(m->rt, RT_BUG_NO_WAKEP))
		rt_wakep(m);
}

/* Step 5: steal_tries passes over the other Ps. */
static struct g *steal_work(struct m *m, struct steal *st)
{
	struct rt *rt = m->rt;
	struct p *pp = m->p;
	for (int i = 0; i < st->sk.steal_tries; i++) {
		bool last = i == st->sk.steal_tries - 1;
		for (struct rt_steal_enum e = rt_steal_order_start(&st->order, rt_fastrand(m));
		     !rt_steal_enum_done(&e); rt_steal_enum_next(&e)) {
			struct p *p2 = rt->allp[e.pos];
			if (p2 == pp)
				continue;
			/* Last pass: run the victim's due timers, even an idle
			 * victim's; what they ready comes to this P. */
			if (last && plat_load_u64(&p2->timer0, memory_order_relaxed) &&
			    rt_timers_stealable(rt, p2)) {
				rt_check_timers(m, p2, 0);
				struct g *g = rt_runqget(pp, NULL);
				if (g)
					return g;
			}
			if (rt_p_is_idle(rt, (int)e.pos))
				continue;
			uint32_t n;
			bool eager = RT_BUG(rt, RT_BUG_RUNNEXT_EAGER);
			struct g *g = rt_runqsteal(rt, pp, p2, last || eager,
						   eager ? 0 : st->sk.runnext_delay_us, &n);
			if (g) {
				rt_count_steal(m, p2, n);
				return g;
			}
		}
	}
	return NULL;
}

/* Steps 1 to 3: what an M finds without looking beyond its P and the
 * global queue, the common case; inline in both callers below.  NULL with
 * *over set if the run is over. */
static inline __attribute__((always_inline)) struct g *find_quick(struct m *m, struct steal *st,
								  bool *inherit, bool *over)
{
	struct rt *rt = m->rt;
	struct g *g;

	*over = rt_done(rt);
	if (*over)
		return NULL;
	struct p *pp = m->p;
	*inherit = false;
	/* Due timers ready their Gs onto this P. */
	rt_check_timers(m, pp, 0);

	/* 1: fairness.  x % d == 0 exactly when x * c <= c - 1 mod 2^64, with
	 * c = ceil(2^64 / d) mod 2^64 (Lemire's divisibility test; for d = 1,
	 * c wraps to 0 and the test always holds): a divide here costs as
	 * much as the rest of this function. */
	int qi = rt_gq_of_node(rt, pp->node);
	if (st->sk.global_check &&
	    (uint64_t)pp->schedtick * st->global_check_inv <= st->global_check_inv - 1 &&
	    (g = rt_globrunqtake(rt, pp, qi, 1, RT_GQ_FAIRNESS)))
		return g;

	/* 2: local */
	g = rt_runqget(pp, inherit);
	if (g) {
		*inherit = *inherit && st->inherit;
		return g;
	}

	/* 3: global */
	return rt_globrunqtake(rt, pp, qi, 0, RT_GQ_LOCAL_EMPTY);
}

/* Steps 4 to 6, after find_quick found nothing; back to find_quick
 * whenever the M has a P again. */
__attribute__((noinline)) static struct g *find_slow(struct m *m, struct steal *st, bool *inherit)
{
	struct rt *rt = m->rt;
	struct sched *s = &rt->sched;
	struct g *g;
	bool over;

	for (;;) {
		/* 4: the network, without waiting, if some G waits on it and no
		 * M is blocked polling it already -- nor, from Go 1.26, polling
		 * it without blocking: one at a time, against the kernel's
		 * contention on many cores */
		if (rt_netpoll_any_waiters(rt) &&
		    !plat_load_u32(&s->polling, memory_order_relaxed)) {
			uint32_t zero = 0;
			if (!rt->choices.one_poller) {
				g = rt_netpoll_now(m);
			} else if (plat_cas_u32(&s->polling_net, &zero, 1, memory_order_acq_rel)) {
				g = rt_netpoll_now(m);
				plat_store_u32(&s->polling_net, 0, memory_order_release);
			} else {
				g = NULL;
				m->stats.polls_skipped++;
			}
			if (g)
				return g;
		}

		/* 5: steal, unless enough Ms are spinning already */
		if (rt_trybecomespinning(m, st->sk.spinning_pct)) {
			g = steal_work(m, st);
			if (g)
				return g;
		}

		/* 6: drop the P (after a last look at the global queue), and
		 * as the last spinner look at the Ps' queues first */
		g = rt_dropp(m, NULL, false);
		if (g)
			return g;
		g = find_quick(m, st, inherit, &over);
		if (g || over)
			return g;
	}
}

static struct g *steal_find_runnable(struct m *m, bool *inherit)
{
	struct steal *st = rt_pol_run(m->rt);
	bool over;
	struct g *g = find_quick(m, st, inherit, &over);
	if (g || over)
		return g;
	return find_slow(m, st, inherit);
}

const struct pol_ops pol_steal = {
	.name = "steal",
	.summary = "P-based work stealing as Go runs it today: per-P rings and runnext, "
		   "global queue, steal half, spinning Ms",
	.knobs = steal_knobs,
	.run_bytes = sizeof(struct steal),
	.init = steal_init,
	.fini = steal_fini,
	.newproc = steal_newproc,
	.ready = steal_ready,
	.yield = rt_yield_global,          /* Go's goschedImpl */
	.find_runnable = steal_find_runnable,
};
