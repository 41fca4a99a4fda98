/* global: the Go 1.0 scheduler, one lock over everything.
 *
 * What the 2012 "Scalable Go Scheduler" design doc set out to replace, as
 * Go 1.0's runtime (proc.c) worked:
 *   - one mutex, sched.lock, guards every scheduling decision: the central
 *     FIFO run queue, the list of idle Ms and the G free list;
 *   - at most `procs' Ms run Go code at a time (Go 1.0's mcpu <= mcpumax).
 *     Here an M holding a P is an M counted in mcpu; Ps own nothing else:
 *     no local queue, no free list of their own, no stealing, no spinning;
 *   - a G made runnable (spawned, woken, yielding) goes on the queue under
 *     the lock; if an M slot is free, it is taken off again at once and
 *     handed to an idle (or new) M, which is woken to run it (matchmg,
 *     mnextg): every wake-up is a hand-off between threads;
 *   - an M with nothing to run queues itself as idle and sleeps on its
 *     note until it is handed a G (nextgandunlock);
 *   - a G entering a system call gives up its M's slot at once, and if Gs
 *     are waiting another M is woken or made to run them; on the way out
 *     the G takes a free slot if there is one, else it is queued and its M
 *     sleeps (entersyscall, exitsyscall);
 *   - nothing preempts a running G (there is no sysmon).
 * The 2012 doc's costs, each a knob: the lock (always on: it is the design),
 * the hand-off (`handoff'), idle Ms' sleeping (`idle_spin_us' lets them
 * spin first, as the doc's fix did), the free list of Gs under the lock
 * (`gfree_per_p' gives each P a cache of dead Gs instead).  Go 1.0's memory
 * cache belonged to the M; the simulator does not model allocator caches.
 *
 * Timers stay on the P where a G went to sleep (Go 1.0 had one heap run by
 * a timer goroutine): an M runs its own P's when it looks for work, and an
 * M with nothing to do waits for the earliest of all of them (the core's
 * poller, as in steal).  So does the network: Gs the netpoller readies go
 * through the queue like every other. */
#include "core/runtime.h"
#include "core/mech.h"

enum {
	K_HANDOFF,
	K_IDLE_SPIN,
	K_GFREE_PER_P,
};

static const struct pol_knob global_knobs[] = {
	[K_HANDOFF] = { "handoff", 1, 0, 1, POL_KNOB_BOOL,
			"a G made runnable while an M slot is free is taken off the queue and "
			"handed to an idle M, which is woken for it (0: the M is only woken and "
			"takes a G from the queue itself)" },
	[K_IDLE_SPIN] = { "idle_spin_us", 0, 0, 1000000, 0,
			  "an M that finds the queue empty polls it this long before it gives "
			  "up its slot and sleeps (0: it sleeps at once, as in Go 1.0)" },
	[K_GFREE_PER_P] = { "gfree_per_p", 0, 0, 1, POL_KNOB_BOOL,
			    "dead Gs are kept per P, as in later Go, instead of on the one free "
			    "list under the lock" },
	{ NULL, 0, 0, 0, 0, NULL },
};

struct global {
	bool handoff;
	int64_t idle_spin_ns;
};

static bool global_init(struct rt *rt, struct pol_choices *c, struct err *e)
{
	(void)e;
	struct global *gl = rt_pol_run(rt);
	gl->handoff = rt->knobs[K_HANDOFF] != 0;
	gl->idle_spin_ns = rt->knobs[K_IDLE_SPIN] * 1000;
	c->runq_size = 2;           /* the Ps' rings stay empty: nothing puts to them */
	c->no_local_runq = true;
	c->syscall_handoff = true;
	c->sysmon = false;
	c->preempt_ns = 0;
	if (!rt->knobs[K_GFREE_PER_P])
		c->gfree_local_max = 0;
	return true;
}

/* Go 1.0's readylocked + matchmg: queue g, and if an M slot is free hand
 * it (or, without hand-off, a wake-up) to an idle or new M. */
static void global_put(struct m *m, struct g *g)
{
	struct rt *rt = m->rt;
	struct global *gl = rt_pol_run(rt);
	rt_lock(&rt->sched.lock);
	struct p *pp = rt_pidleget(rt);
	if (pp && gl->handoff) {
		rt_startm_unlock(rt, pp, false, g);
		return;
	}
	rt_globrunqput(rt, g);
	rt_startm_unlock(rt, pp, false, NULL);
}

/* idle_spin_us: polls the queue's length (a hint read without the lock)
 * until something is queued or the time is up.  True if something was. */
static bool idle_spin(struct m *m, int64_t ns)
{
	struct rt *rt = m->rt;
	rt_becomespinning(m);
	int64_t until = plat_nanotime() + ns;
	bool found = false;
	while (!rt_done(rt)) {
		if (plat_load_u32(&rt->sched.runqsize, memory_order_relaxed)) {
			found = true;
			break;
		}
		if (plat_nanotime() >= until)
			break;
		plat_procyield(30);
	}
	/* the search is over either way: no spinner is left to pass it to */
	m->spinning = true;
	rt_resetspinning_quiet(m);
	return found;
}

/* With sched.lock held: the queue's oldest G, the lock released if there
 * is one. */
static struct g *take_locked(struct m *m)
{
	struct rt *rt = m->rt;
	rt_mech_gq_why(m->p, RT_GQ_ONLY);
	struct g *g = rt_globrunqget(rt, m->p, 1);
	if (g)
		rt_unlock(&rt->sched.lock);
	return g;
}

static struct g *global_find_runnable(struct m *m, bool *inherit)
{
	struct rt *rt = m->rt;
	struct sched *s = &rt->sched;
	struct global *gl = rt_pol_run(rt);
	bool spun = false;
	*inherit = false;
top:
	if (rt_done(rt))
		return NULL;
	/* wakep (a timer with no poller) may start an M spinning: this policy
	 * has no spinners, so it is an ordinary M at once */
	if (m->spinning)
		rt_resetspinning_quiet(m);
	struct g *g = rt_take_nextg(m);
	if (g)
		return g;
	rt_check_timers(m, m->p, 0);
	g = rt_take_nextg(m);
	if (g)
		return g;
	rt_lock(&s->lock);
	if ((g = take_locked(m)))
		return g;
	if (gl->idle_spin_ns && !spun) {
		rt_unlock(&s->lock);
		spun = true;
		if (idle_spin(m, gl->idle_spin_ns))
			goto top;
		rt_lock(&s->lock);
		if (plat_load_u32(&s->runqsize, memory_order_relaxed)) {
			rt_unlock(&s->lock);
			goto top;
		}
	}
	/* the network, once, before the M gives up its slot */
	if (rt_netpoll_any_waiters(rt) && !plat_load_u32(&s->polling, memory_order_relaxed)) {
		rt_unlock(&s->lock);
		rt_netpoll_now(m);
		rt_lock(&s->lock);
		if ((g = take_locked(m)))
			return g;
	}
	rt_pidleput(rt, rt_releasep(m));
	rt_unlock(&s->lock);
	spun = false;

	rt_idle(m);
	goto top;
}

const struct pol_ops pol_global = {
	.name = "global",
	.summary = "the Go 1.0 scheduler: one lock, one FIFO run queue, Gs handed to idle Ms, "
		   "no stealing, no preemption",
	.knobs = global_knobs,
	.run_bytes = sizeof(struct global),
	.init = global_init,
	.newproc = global_put,
	.ready = global_put,
	.ready_net = true,
	.yield = global_put,
	.find_runnable = global_find_runnable,
};
