/* sysmon and blocking system calls.
 *
 * A G entering a blocking system call keeps its P only loosely: the P's
 * status becomes P_SYSCALL and its M lets go of it.  If the call returns
 * quickly, the M takes the P back with one CAS (P_SYSCALL -> P_RUNNING)
 * and the G goes on.  If it does not, sysmon retakes the P (the same CAS,
 * to P_IDLE) and hands it to another M, so the Gs queued behind the
 * sleeping one run.  A G whose P was retaken takes any idle P on its
 * return; failing that it goes to the global queue and its M parks.
 *
 * sysmon is an M of its own, without a P, outside the count that decides
 * a run has gone idle.  It wakes every 20 us, doubling its sleep up to
 * 10 ms while it finds nothing to do, and sleeps for good (until a P gets
 * busy) when every P is idle.  Each round it looks at every P:
 *   - a P that has run the same G (the same schedtick, which runnext Gs
 *     inherit) for preempt_ns gets that G preempted: a flag the G checks at
 *     its next operation and inside long computations;
 *   - a P in a system call for more than syscall_retake_ns is retaken if
 *     there is other work for it (its own queue, or no idle P or spinning
 *     M to take new work), and after 10 ms in any case;
 *   - with Go 1.14's timers (choices.timers_own_p), an overdue timer gets
 *     an M started for an idle P, if there is one.
 * Its per-P records (sm_*) are its own; what it reads of the Ps is atomic. */
#include "core/runtime.h"

#include <assert.h>

#define SYSMON_MIN_US 20
#define SYSMON_MAX_US 10000
#define SYSCALL_RETAKE_ANYWAY_NS 10000000

/* ---- System calls ---- */

static void handoffp(struct m *m, struct p *pp);

static void entersyscall(struct m *m, struct g *g, bool block);

void rt_entersyscall(struct m *m, struct g *g)
{
	entersyscall(m, g, m->rt->choices.syscall_handoff);
}

void rt_entersyscallblock(struct m *m, struct g *g)
{
	entersyscall(m, g, true);
}

static void entersyscall(struct m *m, struct g *g, bool block)
{
	struct p *pp = m->p;
	if (m->rt->tracing) {
		rt_trace_rec(m->rt, m, RT_TEV_SYSCALL, g->goid, pp->id, 0,
			     rt_trace_label(m->rt, g, true));
		pp->trace_sysg = g->goid;
	}
	rt_time_released(m);
	rt_time_split(m);
	g->status = G_SYSCALL;
	plat_store_ptr(&pp->curg, NULL, memory_order_relaxed);
	pp->m = NULL;
	m->p = NULL;
	m->oldp = pp;
	/* A new tick per call, so that sysmon times each call from when it
	 * first sees it (Go ticks only on the way out, so a P's first call
	 * can be retaken at once). */
	plat_add_u32(&pp->syscalltick, 1, memory_order_relaxed);
	if (block) {
		/* Go 1.0: the M gives up its slot at once, and another M runs
		 * what is waiting (or the P goes idle); so does Go's
		 * entersyscallblock, for a call known to block */
		plat_store_u32(&pp->status, P_IDLE, memory_order_release);
		rt_trace(m->rt, m, RT_TEV_SYSCALL_BLOCK, g->goid, pp->id, 0, 0);
		handoffp(m, pp);
		return;
	}
	/* store-release: publishes the P's state to whoever retakes it */
	plat_store_u32(&pp->status, P_SYSCALL, memory_order_release);
}

/* Back from the call: true if the G may go on running on m (its old P, or
 * an idle one), false if the G must be queued once it is off the M. */
bool rt_exitsyscall(struct m *m, struct g *g)
{
	struct rt *rt = m->rt;
	struct p *pp = m->oldp;
	m->oldp = NULL;
	uint32_t st = P_SYSCALL;
	if (plat_cas_u32(&pp->status, &st, P_RUNNING, memory_order_acq_rel)) {
		rt_time_held(m);
		m->p = pp;
		pp->m = m;
		rt_why_with(rt, pp, m);
		if (rt->tracing && pp->trace_sysg != g->goid) {
			/* pp was retaken and is in another G's system call
			 * now: this M takes it from that G, as Go's does */
			rt_trace_rec(rt, m, RT_TEV_SYSCALL_BLOCK, pp->trace_sysg, pp->id, 0, 0);
			rt_trace_rec(rt, m, RT_TEV_P_START, 0, pp->id, 0, 0);
		}
		plat_set_cpu(pp->cpu, false);
	} else {
		rt_lock(&rt->sched.lock);
		pp = rt_pidleget_near(rt, plat_node());
		rt_unlock(&rt->sched.lock);
		if (!pp) {
			g->status = G_RUNNABLE;
			rt_trace(rt, m, RT_TEV_SYSCALL_EXIT, g->goid, -1, 0, 0);
			return false;
		}
		rt_acquirep(m, pp);
	}
	rt_trace(rt, m, RT_TEV_SYSCALL_EXIT, g->goid, pp->id, 0, 0);
	plat_add_u32(&pp->syscalltick, 1, memory_order_relaxed);
	plat_store_ptr(&pp->curg, g, memory_order_relaxed);
	g->status = G_RUNNING;
	return true;
}

/* ---- Handing a P over ---- */

/* pp has no M: start one for it if there is work, else make it idle. */
static void handoffp(struct m *m, struct p *pp)
{
	struct rt *rt = m->rt;
	struct sched *s = &rt->sched;
	if (rt_p_has_work(pp) || plat_load_u32(&s->runqsize, memory_order_relaxed)) {
		rt_startm(m, pp, false);
		return;
	}
	uint32_t zero = 0;
	if (!rt->choices.no_local_runq &&
	    plat_load_u32(&s->nmspinning, memory_order_relaxed) +
			    plat_load_u32(&s->npidle, memory_order_relaxed) == 0 &&
	    plat_cas_u32(&s->nmspinning, &zero, 1, memory_order_acq_rel)) {
		if (rt->choices.needspinning)
			plat_store_u32(&s->needspinning, 0, memory_order_relaxed);
		rt_startm(m, pp, true);
		return;
	}
	rt_lock(&s->lock);
	if (plat_load_u32(&s->runqsize, memory_order_relaxed)) {
		rt_unlock(&s->lock);
		rt_startm(m, pp, false);
		return;
	}
	rt_pidleput(rt, pp);
	/* a put to its shared queue that did not see it idle yet (numa's kick) */
	if (pp->sharedq_used && plat_add_u32(&pp->sharedq_size, 0, memory_order_seq_cst) &&
	    rt_pidleget_this(rt, pp)) {
		rt_unlock(&s->lock);
		rt_startm(m, pp, false);
		return;
	}
	rt_unlock(&s->lock);
	/* (Go 1.13's timers have their own goroutines, which wake for them) */
	int64_t when = rt->choices.timerproc
			       ? 0
			       : (int64_t)plat_load_u64(&pp->timer0, memory_order_acquire);
	if (when && !RT_BUG(rt, RT_BUG_LOST_TIMER))
		rt_wake_netpoller(m, when);
}

/* ---- sysmon ---- */

static void preemptone(struct rt *rt, struct p *pp)
{
	struct g *g = plat_load_ptr(&pp->curg, memory_order_acquire);
	if (!g)
		return;
	plat_store_u32(&g->preempt, 1, memory_order_release);
	plat_preempt_poke(g);
	rt->preemptions++;
}

/* One look at every P; returns the number of Ps retaken from syscalls. */
static int retake(struct m *m, int64_t now)
{
	struct rt *rt = m->rt;
	struct sched *s = &rt->sched;
	int n = 0;
	for (int i = 0; i < rt->procs; i++) {
		struct p *pp = rt->allp[i];
		uint32_t st = plat_load_u32(&pp->status, memory_order_acquire);
		bool sysretake = false;
		if (st == P_RUNNING || st == P_SYSCALL) {
			uint32_t t = plat_load_u32(&pp->schedtick_pub, memory_order_relaxed);
			if (pp->sm_schedtick != t) {
				pp->sm_schedtick = t;
				pp->sm_schedwhen = now;
			} else if (rt->choices.preempt_ns && pp->sm_schedwhen + rt->choices.preempt_ns <= now) {
				preemptone(rt, pp);
				sysretake = true;   /* a G in a syscall cannot see the flag */
			}
		}
		if (st != P_SYSCALL)
			continue;
		uint32_t t = plat_load_u32(&pp->syscalltick, memory_order_relaxed);
		if (!sysretake && pp->sm_syscalltick != t) {
			pp->sm_syscalltick = t;
			pp->sm_syscallwhen = now;
			continue;
		}
		if (!sysretake && now - pp->sm_syscallwhen < rt->choices.syscall_retake_ns)
			continue;
		/* Nothing waits for this P and others are free to take new work:
		 * leave it to its G for a while (it may come back soon). */
		if (!rt_p_has_work(pp) &&
		    plat_load_u32(&s->nmspinning, memory_order_relaxed) +
				    plat_load_u32(&s->npidle, memory_order_relaxed) > 0 &&
		    pp->sm_syscallwhen + SYSCALL_RETAKE_ANYWAY_NS > now)
			continue;
		uint32_t expect = P_SYSCALL;
		if (plat_cas_u32(&pp->status, &expect, P_IDLE, memory_order_acq_rel)) {
			rt_why_with(rt, pp, NULL);   /* in sysmon's hands */
			n++;
			rt->retakes++;
			rt_trace(rt, m, RT_TEV_SYSCALL_BLOCK, pp->trace_sysg, pp->id, 0, 0);
			plat_add_u32(&pp->syscalltick, 1, memory_order_relaxed);
			handoffp(m, pp);
			/* [proc: The end of a run]: every M may have parked
			 * while this P was in sysmon's hands.  Only when every
			 * P is idle now (sysmon's own put is seen), so runs
			 * that never get there are timed as before. */
			if (plat_peek_u32(&s->npidle) == (uint32_t)rt->procs &&
			    !RT_BUG(rt, RT_BUG_RETAKE_NOCHECK))
				rt_checkdead(rt);
		}
	}
	return n;
}

/* Wakes sysmon if it sleeps because every P was idle. */
void rt_sysmon_wake(struct rt *rt)
{
	if (plat_load_u32(&rt->sched.sysmonwait, memory_order_acquire) &&
	    plat_xchg_u32(&rt->sched.sysmonwait, 0, memory_order_acq_rel))
		rt_note_wakeup(&rt->sched.sysmonnote);
}

void rt_sysmon(struct m *m)
{
	struct rt *rt = m->rt;
	struct sched *s = &rt->sched;
	int64_t delay = SYSMON_MIN_US;
	int idle = 0;
	while (!rt_done(rt)) {
		if (idle == 0)
			delay = SYSMON_MIN_US;
		else if (idle > 50)
			delay *= 2;
		if (delay > SYSMON_MAX_US)
			delay = SYSMON_MAX_US;
		/* its naps are parked time [proc: Where the time goes] */
		unsigned was = rt_mt_switch(m, RT_MT(RT_CPU_PARKED, 0));
		plat_usleep(delay);
		rt_mt_switch(m, was);
		if (rt_done(rt))
			break;
		if (plat_load_u32(&s->npidle, memory_order_relaxed) == (uint32_t)rt->procs) {
			/* Every P idle: sleep until one is busy again (acquirep wakes
			 * us; so does the end of the run). */
			rt_lock(&s->lock);
			if (plat_load_u32(&s->npidle, memory_order_relaxed) == (uint32_t)rt->procs &&
			    !rt_done(rt)) {
				plat_store_u32(&s->sysmonwait, 1, memory_order_release);
				rt_unlock(&s->lock);
				was = rt_mt_switch(m, RT_MT(RT_CPU_PARKED, 0));
				rt_note_sleep(&s->sysmonnote);
				rt_mt_switch(m, was);
				rt_note_clear(&s->sysmonnote);
				idle = 0;
				continue;
			}
			rt_unlock(&s->lock);
		}
		int64_t now = plat_nanotime();
		/* Go 1.14: an overdue timer may be a busy P's, which only a
		 * started M that finds that P's G marked for preemption runs
		 * [core/time.c] */
		if (rt->choices.timers_own_p) {
			int64_t next = rt_timers_next(rt);
			if (next && next < now)
				rt_startm(m, NULL, false);
		}
		if (retake(m, now))
			idle = 0;
		else
			idle++;
	}
}
