/* Scheduler core: Gs, Ms and Ps, the scheduler loop, and the M protocol.
 *
 * Goroutine scheduler
 *
 * Three kinds of object (core/runtime.h):
 *   G  a goroutine: a body to run and where it has got to;
 *   M  a worker thread: an OS thread natively, an engine actor in
 *      simulation; it runs Gs one at a time;
 *   P  a processor: the token an M must hold to run Gs, and the owner of
 *      a local run queue.  There are exactly `procs' Ps (GOMAXPROCS).
 * An M that holds a P loops: find a runnable G (the policy decides where
 * to look), run it until it gives control back, handle why (it yielded,
 * it parked, it exited), repeat.  A policy is a table of the decisions
 * that loop needs: where a new or woken G goes, and how an M finds work,
 * spins and parks.  The core owns everything the policies share: the
 * structures, the M protocol below, the global run queue, G lifetimes and
 * channels.
 *
 * Bodies
 *
 * What a G runs is its body [core/body.h], opaque to the core: a run's
 * body table says how to run a G (rt_g_exec: one indirect call), which
 * returns whenever the G gives control back.  The body is a workload's
 * program (workloads/wlr.h) or, natively, a C function (native/api.c).
 * Simulated Gs have no stack: a G is its program counter and loop
 * counters, and the M runs the body on its own stack.  Native Gs have a
 * stack each; the native platform runs the body on it and switches to
 * the M when it returns.  An operation that must wait (a channel send
 * with no receiver) queues the G, sets g->in_op and returns G_PARK; when
 * the G runs again the interpreter finds in_op set and completes the
 * operation, whose peer has done the work (handed over the value) in the
 * meantime.
 *
 * Run queues
 *
 * Each P has a ring of runq_size slots (a power of two) with a head that
 * any M may advance by CAS (consumers: the owner and thieves) and a tail
 * that only the owner moves (the only producer), plus a runnext slot that
 * holds one G to run before the ring: a G just readied by the running G
 * (a channel partner) runs next and inherits the rest of the time slice,
 * which keeps a producer-consumer pair on one P.  A full ring moves half
 * of itself and the new G to its node's global queue (a FIFO ring of G
 * pointers under sched.lock; one in all unless the policy partitions
 * them by node).  See core/runq.c.
 *
 * Spinning (worker thread parking and unparking)
 *
 * Two goals pull against each other: keep enough Ms running to use all Ps
 * when there is work, and park Ms when there is none, to save CPU.  An M
 * is "spinning" when it holds a P, has run out of local work and is
 * looking for work elsewhere (the global queue, other Ps).  The protocol:
 *   1. A G becoming runnable (spawned or readied) calls wakep(): if no M is
 *      spinning and a P is idle, it starts one M, spinning, with that P.
 *      One spinner at a time is enough: it will find the G or another
 *      spinner will.
 *   2. A spinning M that finds work stops spinning and calls wakep() again
 *      (resetspinning), so the next runnable G also finds someone looking.
 *      Wake-ups thus ripple out one M at a time, instead of a burst of
 *      spurious wake-ups when one G is made.
 *   3. An M that finds nothing releases its P, and if it was the last
 *      spinner it rechecks every queue after decrementing nmspinning: a G
 *      made between its last look and the decrement would otherwise find
 *      nmspinning > 0, skip the wake-up, and wait for nobody.  Then it parks
 *      on its note (stopm) until startm hands it a P.
 * nmspinning is the one counter both sides use: CAS from 0 to 1 claims the
 * right to start a spinner.
 *
 * needspinning (Go 1.26's, from about 1.21; choices.needspinning).  Go
 * 1.19's wakep gives up when no P is idle, and a P about to go idle right
 * then leaves the new G to wait for someone else's wake-up.  Go 1.26's
 * wakep claims the spinner
 * and looks for an idle P under sched.lock whatever npidle says; with none
 * it sets needspinning, and an M about to drop its P (under the same lock,
 * after its last look at the global queue) that is not spinning sees the
 * flag and spins instead, keeping its P; becoming a spinner clears it.  The
 * last spinner's recheck in rt_dropp sets it too when it sees work but no
 * idle P, and a yield (Gosched, preemption) and the netpoller's injection
 * call wakep.  The price is sched.lock in every wakep that finds no spinner,
 * busy Ps or not.
 *
 * The protocol is written once, here; a policy that spins (steal, numa)
 * keeps only its search order and calls:
 *   rt_trybecomespinning  the gate before stealing: an M may start to
 *      spin only while spinning Ms are fewer than max_pct percent of the
 *      busy Ps (Go's 2 * nmspinning < busy is 50), so that when work runs
 *      short the idle Ms do not all hammer the few busy Ps' queues;
 *   rt_dropp  step 3 in order: a last look at the global queues under
 *      sched.lock, which every put to them takes, so none is missed
 *      (nearest node's queue first, given the policy's order); the P's
 *      shared queue, if the policy gives Ps one, before and after the P
 *      goes idle; the P released; then, as the last spinner, the
 *      decrement and the recheck of the global queues and every P's
 *      queues, taking an idle P (of the old P's node first) and spinning
 *      on if any has work; then rt_idle, which looks after timers and the
 *      network: the M waits for them as the poller, or parks.  Whether the
 *      recheck reads the global queues before the Ps' or after is the
 *      policy's (a parameter): in simulation the order of shared accesses
 *      is part of the timing, and steal and numa have always differed;
 *   rt_startm_unlock  every start of an M (a P handed to an idle or new
 *      M), policies' included: the M is picked under sched.lock and woken
 *      or made after the lock is released.
 *
 * Work put on another P.  A policy that places a G where another P's
 * owner looks (numa's shared queues) or on a node's global queue cannot
 * rely on step 1's wakep, which starts an M for the caller's node: it
 * calls rt_wakep_for(target) or rt_wakep_node(node).  A busy target finds
 * the work itself; for an idle one the same throttle holds -- if an M is
 * spinning, nothing is started, since that M's steal pass or its last look
 * at every shared queue before it drops its P (rt_dropp) finds it -- else
 * the target (or an idle P of the node) is started with a spinning M.
 * Starting the target's M for every placed G instead cost the placing M
 * sched.lock and a wake-up each time (docs/runtime.md, "Why numa ...").
 * rt_start_idle_p starts an idle P past the throttle, for work a spinner
 * would take too slowly (numa's shared queue after a thief took one of
 * its Gs).  The count of spinners changes only in the core: through
 * these, rt_claim_spinner and rt_release_spinner, the spinning Ms' own
 * rt_becomespinning and rt_resetspinning, and sysmon's hand-off of a P.
 * global does not spin for work; its idle_spin only polls its one queue.
 *
 * Stealing
 *
 * A thief takes half (rounded up) of a victim's ring in one CAS of the
 * victim's head.  Victims are visited in a random order made of a random
 * start and a random step coprime with the P count, so every P is visited
 * once per pass and different thieves go different ways.  A victim's
 * runnext is taken only on the last pass and, if the victim is running,
 * only after a short sleep: its owner is probably about to run that G.
 *
 * Policies' choices
 *
 * Some of what makes a policy is not a decision at run time but a shape
 * the core builds and a way its shared mechanisms behave, chosen once:
 * the size of each P's ring; whether sysmon runs, and after how long it
 * preempts a G or retakes a P from a system call; one global queue and G
 * free list or one of each per node; Ms bound to nodes in per-node pools,
 * and a P started on the M that last ran it; the heap placed on the
 * running P's node; Go 1.0's hand-off of the P at every system call and
 * its Ps without local queues (Gs handed to Ms: m->nextg); Ps' shared
 * queues; how many dead Gs a P keeps.  A policy's init makes these
 * choices in one struct pol_choices [core/policy.h], which starts with
 * the core's defaults (Go's today: 256 slots, 64 dead Gs, the rest off),
 * so a policy states only what it changes; the core reads them as
 * rt->choices, fixed for the run.  The rest of what a policy keeps is its
 * own state, declared by size as a body's is (pol_ops.run_bytes, p_bytes,
 * g_bytes): the core makes it zeroed -- for the run, after each struct p,
 * after each G's body state in its slab -- and frees it, and the policy
 * reaches it through rt_pol_run, rt_pol_p and rt_pol_g.  No field of
 * struct rt, p or g is one policy's.
 *
 * The end of a run
 *
 * A run ends when every G has exited.  No counter of live Gs is shared:
 * each M counts the Gs it made and ended, and when the last M goes idle
 * (stopm with every M idle) it sums them under sched.lock.  Zero live Gs
 * means the run is over; more means they wait for something that can no
 * longer happen -- a deadlock, as Go's checkdead reports.  Either way it
 * sets sched.done and wakes every M, whose scheduler loops then return.
 * The poller [time.c] is never on the idle list, yet it can be as idle
 * as the Ms that are: it may begin a wait with no deadline (no timer,
 * nothing scheduled to arrive) while netpoll_waiters still counts Gs
 * whose data another M has just taken from the arrivals and is readying.
 * If those Gs then finish without sending more, nothing breaks that
 * wait.  So a poller about to wait with no deadline registers
 * (poller_forever) and runs checkdead itself, since every other M may
 * have gone idle already, and checkdead counts it as idle while no G
 * waits on the network and no timer or arrival is pending.  Without
 * this such a run just stopped with every M asleep: no end, no span, no
 * deadlock check.
 * The makespan is taken at the last G's exit, not at this quiet moment.
 * A run whose main G is a C function (the native C API) ends instead when
 * that G returns, as a Go program ends with main.
 *
 * Every M idle must mean that nothing can happen any more.  An M parks
 * only after rt_idle found no timer and no G waiting on the network, or
 * found another M polling already (the poller is not idle); an M back
 * from a system call without a P parks after queueing its G globally;
 * and whoever leaves a P idle with a timer on it wakes an M or the poller
 * for it.  sysmon is outside the count (nmsys), but it can hold a P: from
 * the CAS that retakes a P from a system call until handoffp starts an M
 * for it or puts it on the idle list (and, through wakep, from taking an
 * idle P to starting an M for it).  In that window every counted M may
 * be idle -- the M whose call lost the P comes back, finds no idle P,
 * queues its G and parks -- and a check that counted Ms alone declared a
 * deadlock with a runnable G queued and a P about to run it.  So
 * checkdead also wants every P on the idle list.  The check it skips is
 * owed, though: the window ends in handoffp, which finds the G that M
 * queued (sched.lock orders the two) and starts an M for it, or, if it
 * took the lock first, that M's own look for an idle P finds this one --
 * but the M may instead have found another P idle, run its G to a real
 * deadlock and parked while sysmon still held this P, and then nobody
 * parks after the P goes idle: the run hung with every M asleep and no
 * deadlock reported (schedlab explore found it: numa, 2 Ps, sysmon held
 * up 100 us inside handoffp).  So sysmon runs checkdead itself after each
 * hand-off of a retaken P, as Go does (incidlelocked after retake).
 * Once done is set no M is made (sched.stopped, under the lock that makes
 * them), so that the platform, which joins every M it knows of before the
 * run's memory is freed, knows of them all.
 *
 * Where the time goes
 *
 * The report's cpu breakdown follows each M from its start to the end of
 * the run (stop_run), in one state at a time, with clock reads only where
 * the state changes -- on slow paths: an M starting or stopping to spin,
 * parking, finding a runtime lock taken and sleeping on it, a G's system
 * call -- never between one G and the next, and only in timed runs (an
 * untimed run measures none of it).  The states (rt_mt_switch; a state
 * entered inside another returns to it):
 *   on a CPU
 *     sched      the default: the runtime's own work -- run queues, G
 *                switches, channels, timers, making and waking Ms -- and
 *                the Gs' (user: plat_work's own count and the touches'
 *                prices, no clock read, taken out of sched at the end);
 *     spin       spinning for work (m->spinning, holding a P), or a G
 *                spinning for a sync.Mutex;
 *     lock spin  in rt_lock's slow path, spinning, yielding, calling futex;
 *   off a CPU
 *     lock sleep asleep on a runtime lock's futex;
 *     syscall    blocked in a G's system call;
 *     parked     asleep by choice: stopm, the poller's wait, sysmon's naps,
 *                a thief's back-off before taking a runnext.
 * A futex call's own CPU (the platform counts it, in simulation) is on a
 * CPU even inside a sleep: it goes to the state the sleep returns to.
 * Every interval is cut at the end of the run, so the states of an M add
 * up to its life in the run, and the two sets' totals to every M's.  The
 * report gives each set's parts as fractions of that set's total (each
 * set adds up to 1), and the OS's view: PUs busy on average (on-CPU time
 * over the span) and the futex calls' share of the on-CPU time. */
#include "core/runtime.h"
#include "core/mech.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Gs kept on a P's free list before half of them go to the global one
 * (Go's default; a policy may change it). */
#define GFREE_LOCAL_MAX 64

/* ---- Ms ---- */

static void panic_locked(struct rt *rt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static struct m *allocm(struct rt *rt)
{
	assert(rt_mutex_held(&rt->sched.lock));
	/* Past a limit the run fails, as Go's does; the M is still made, for
	 * the caller that needs one, and the run ends with it. */
	if (rt->sched.mcount == RT_MAX_THREADS)
		panic_locked(rt, "runtime: program exceeds %d-thread limit (an M for each goroutine "
			     "blocked in a system call; %s)", RT_MAX_THREADS,
			     rt->name);
	else if (!rt_mem_charge(rt, RT_BYTES_PER_M))
		panic_locked(rt, "runtime: out of memory: M %d would take the run past its %.0f MiB "
			     "memory budget (%s)", rt->sched.mcount, (double)rt->mem_budget / (1 << 20),
			     rt->name);
	struct m *m = xcalloc(1, sizeof(*m));
	m->id = rt->sched.mcount++;
	m->rt = rt;
	/* Each M's generator gets its own stream: the run's seed mixed with the
	 * M's number, so a run's randomness depends on nothing else. */
	m->rand = rt->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)m->id;
	m->mt = RT_MT(RT_CPU_SCHED, 0);
	m->mt_since = m->mt_born = m->mt_counted = -1;
	m->node = -1;
	if (rt->why)
		m->why = rt_why_m_new(rt, m);
	rt_note_init(&m->park, plat_line_new(rt, 0));
	m->alllink = rt->allm;
	rt->allm = m;
	return m;
}

/* Puts m on the idle list.  sched.lock must be held. */
static void mput(struct rt *rt, struct m *m)
{
	assert(rt_mutex_held(&rt->sched.lock));
	m->schedlink = rt->sched.midle;
	rt->sched.midle = m;
	rt->sched.nmidle++;
}

/* Takes an idle M to run pp (any if pp is NULL): with the policy's P-M
 * affinity, pp's last M if it is idle; with per-node M pools, only an M
 * of pp's node (NULL if none: the caller makes one there).  sched.lock
 * must be held. */
static struct m *mget(struct rt *rt, struct p *pp)
{
	assert(rt_mutex_held(&rt->sched.lock));
	struct m **link = &rt->sched.midle;
	if (pp && (rt->choices.lastm || rt->choices.node_mpools)) {
		struct m **pick = NULL;
		for (struct m **l = link; *l; l = &(*l)->schedlink) {
			if (rt->choices.lastm && *l == pp->lastm) {
				pick = l;
				break;
			}
			if (rt->choices.node_mpools && !pick && (*l)->node == pp->node)
				pick = l;
		}
		if (!pick && rt->choices.node_mpools)
			return NULL;
		if (pick)
			link = pick;
	}
	struct m *m = *link;
	if (m) {
		*link = m->schedlink;
		rt->sched.nmidle--;
	}
	return m;
}

/* Ends the run: sets done and wakes every idle M and the poller, whose
 * scheduler loops then return.  From here on no M is made (stopped):
 * the platform waits for the Ms there are, and one started later would
 * outlive the run's memory.  sched.lock must be held. */
static void stop_run(struct rt *rt)
{
	struct sched *s = &rt->sched;
	assert(rt_mutex_held(&s->lock));
	s->stopped = true;
	plat_store_u32(&s->done, 1, memory_order_release);
	/* an untimed run's makespan ends here; a timed run's cpu span too */
	if (!rt->end_ns)
		__atomic_store_n(&rt->end_ns, plat_nanotime(), __ATOMIC_RELAXED);
	struct m *m;
	while ((m = mget(rt, NULL))) {
		m->nextp = NULL;
		rt_note_wakeup(&m->park);
	}
	plat_netpoll_break(rt);
	rt_sysmon_wake(rt);
	rt_timerprocs_stop(rt);
}

/* Called when an M goes idle: if every M and every P now is, the run is
 * over (or deadlocked) [proc: The end of a run].  sched.lock must be held. */
static void checkdead(struct rt *rt);

void rt_checkdead(struct rt *rt)
{
	rt_lock(&rt->sched.lock);
	checkdead(rt);
	rt_unlock(&rt->sched.lock);
}

static void checkdead(struct rt *rt)
{
	struct sched *s = &rt->sched;
	assert(rt_mutex_held(&s->lock));
	int idle = s->nmidle, all = s->mcount - s->nmsys;
	/* A poller with no deadline and nothing to wait for: a timer added
	 * or a request answered since it began would have broken its wait,
	 * and an M that took one meanwhile is not idle. */
	if (__atomic_load_n(&s->poller_forever, __ATOMIC_RELAXED) && idle == all - 1 &&
	    !rt_netpoll_any_waiters(rt) &&
	    rt_timers_next(rt) == 0 && rt_arrivals_next(rt) < 0)
		idle++;
	if (idle < all)
		return;
	/* Every M counted is idle, but a P off the idle list is in the hands
	 * of sysmon, which is not counted: it retook the P from a system call
	 * or is about to start an M for one [proc: The end of a run]. */
	int idle_ps = 0;
	for (struct p *pp = rt->sched.pidle; pp; pp = pp->link)
		idle_ps++;
	if (idle_ps < rt->procs && !RT_BUG(rt, RT_BUG_CHECKDEAD_MS))
		return;
	uint64_t made = 1, ended = 0; /* the main G was made by rt_run */
	for (struct m *m = rt->allm; m; m = m->alllink) {
		made += m->stats.gs_created;
		ended += m->stats.gs_exited;
	}
	if (made != ended) {
		rt->deadlock = true;
		if (__builtin_expect(rt->explore != NULL, 0))
			rt_explore_deadlock(rt);
	}
	stop_run(rt);
}

static void vpanic_locked(struct rt *rt, struct m *m, const char *fmt, va_list ap)
{
	assert(rt_mutex_held(&rt->sched.lock));
	if (!rt->panicked) {
		rt->panicked = true;
		vsnprintf(rt->panic_msg, sizeof(rt->panic_msg), fmt, ap);
		rt->panic_goid = m && m->curg ? m->curg->goid : 0;
	}
	stop_run(rt);
}

void rt_panic(struct m *m, const char *fmt, ...)
{
	struct rt *rt = m->rt;
	rt_lock(&rt->sched.lock);
	va_list ap;
	va_start(ap, fmt);
	vpanic_locked(rt, m, fmt, ap);
	va_end(ap);
	rt_unlock(&rt->sched.lock);
	if (m->curg)
		m->curg->panicking = true;
}

/* rt_panic from under sched.lock, on whichever M (if any) is running:
 * the run ends, and the G it runs, if any, is not stopped at once. */
static void panic_locked(struct rt *rt, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vpanic_locked(rt, plat_self(), fmt, ap);
	va_end(ap);
}

bool rt_mem_charge(struct rt *rt, uint64_t bytes)
{
	uint64_t used = __atomic_load_n(&rt->mem_used, __ATOMIC_RELAXED);
	do {
		if (bytes > rt->mem_budget - used)
			return false;
	} while (!__atomic_compare_exchange_n(&rt->mem_used, &used, used + bytes, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return true;
}

void rt_acquirep(struct m *m, struct p *pp)
{
	assert(!m->p && !pp->m);
	rt_time_held(m);
	m->p = pp;
	pp->m = m;
	rt_why_with(m->rt, pp, m);
	plat_store_u32(&pp->status, P_RUNNING, memory_order_relaxed);
	rt_trace(m->rt, m, RT_TEV_P_START, 0, pp->id, 0, 0);
	plat_set_cpu(pp->cpu, false);
	rt_sysmon_wake(m->rt);
}

struct p *rt_releasep(struct m *m)
{
	struct p *pp = m->p;
	assert(pp && pp->m == m);
	rt_trace(m->rt, m, RT_TEV_P_STOP, 0, pp->id, 0, 0);
	rt_time_split(m);   /* its time so far is pp's (the report's busy Ps) */
	pp->lastm = m;
	pp->m = NULL;
	m->p = NULL;
	plat_store_u32(&pp->status, P_IDLE, memory_order_relaxed);
	rt_time_released(m);
	return pp;
}

/* The locked half of starting an M for pp (sched.lock held): picks an
 * idle M, or makes one (*fresh), and gives it pp, spinning and g to run
 * first (NULL: none; Go 1.0's hand-off).  startm_finish wakes or starts
 * it once the lock is released.  NULL once the run is over. */
static struct m *startm_locked(struct rt *rt, struct p *pp, bool spinning, struct g *g, bool *fresh)
{
	assert(rt_mutex_held(&rt->sched.lock));
	*fresh = false;
	if (rt->sched.stopped)
		return NULL;   /* the run is over: pp and g stay where they are */
	struct m *nmp = mget(rt, pp);
	*fresh = !nmp;
	if (!nmp) {
		nmp = allocm(rt);
		if (rt->choices.node_mpools)
			nmp->node = pp->node;
		rt->threads_created++;
	} else {
		rt->wakeups++;
	}
	nmp->spinning = spinning;
	nmp->nextp = pp;
	rt_why_with(rt, pp, nmp);
	if (g) {
		rt_g_enq(g, RT_Q_NEXTG);
		rt_why_enq(rt, g, RT_WP_NEXTG, pp, -1);
		nmp->nextg = g;
	}
	return nmp;
}

static void startm_finish(struct rt *rt, struct m *nmp, bool fresh)
{
	if (!nmp)
		return;
	if (fresh)
		plat_newm(rt, nmp);
	else
		rt_note_wakeup(&nmp->park);   /* its release/acquire hands over nextp, nextg, spinning */
}

/* Every start of an M goes through here: the M is picked (or counted as
 * made) under the lock, and woken or made outside it, since making a
 * thread or a futex wake under sched.lock would hold up every M. */
bool rt_startm_unlock(struct rt *rt, struct p *pp, bool spinning, struct g *g)
{
	if (!pp) {
		rt_unlock(&rt->sched.lock);
		return false;
	}
	bool fresh;
	struct m *nmp = startm_locked(rt, pp, spinning, g, &fresh);
	rt_unlock(&rt->sched.lock);
	startm_finish(rt, nmp, fresh);
	return nmp != NULL;
}

/* Starts an M to run pp (an idle P if NULL, one of the caller's node
 * first): an idle one if there is one, a new thread otherwise.  If
 * spinning, the caller has already counted the new M in nmspinning; with
 * no idle P that count is given back. */
void rt_startm(struct m *m, struct p *pp, bool spinning)
{
	struct rt *rt = m->rt;
	rt_lock(&rt->sched.lock);
	if (!pp) {
		pp = rt_pidleget_near(rt, m->p ? m->p->node : plat_node());
		if (!pp) {
			rt_unlock(&rt->sched.lock);
			if (spinning)
				rt_release_spinner(rt);
			return;
		}
	}
	if (!rt_startm_unlock(rt, pp, spinning, NULL) && spinning)
		rt_release_spinner(rt);
}

static void need_spinning(struct rt *rt);

/* Starts an M for an idle P, not spinning (of m's node first); with none,
 * false, and the next M to drop its P spins instead [proc: needspinning]. */
bool rt_start_idle_or_need(struct m *m)
{
	struct rt *rt = m->rt;
	rt_lock(&rt->sched.lock);
	struct p *pp = rt_pidleget_near(rt, m->p ? m->p->node : plat_node());
	if (!pp) {
		need_spinning(rt);
		rt_unlock(&rt->sched.lock);
		return false;
	}
	rt_startm_unlock(rt, pp, false, NULL);
	return true;
}

/* Parks m (which holds no P) until startm gives it one, or the run ends. */
void rt_stopm(struct m *m)
{
	struct rt *rt = m->rt;
	assert(!m->p && !m->spinning);
	rt_lock(&rt->sched.lock);
	if (rt_done(rt)) {
		rt_unlock(&rt->sched.lock);
		return;
	}
	mput(rt, m);
	checkdead(rt);
	rt_unlock(&rt->sched.lock);
	m->stats.parks++;
	unsigned was = rt_mt_switch(m, RT_MT(RT_CPU_PARKED, 0));
	rt_note_sleep(&m->park);
	rt_mt_switch(m, was);
	rt_note_clear(&m->park);
	if (m->nextp) {
		rt_acquirep(m, m->nextp);
		m->nextp = NULL;
	}
}

void rt_poller_forever(struct m *m, bool forever)
{
	struct rt *rt = m->rt;
	struct sched *s = &rt->sched;
	if (!forever) {
		/* Without the lock: until it is cleared checkdead may count the
		 * poller as idle, which is harmless while it has nothing to
		 * wait for (that is checked too), and it then finds nothing. */
		__atomic_store_n(&s->poller_forever, NULL, __ATOMIC_RELAXED);
		return;
	}
	rt_lock(&s->lock);
	__atomic_store_n(&s->poller_forever, m, __ATOMIC_RELAXED);
	checkdead(rt);
	rt_unlock(&s->lock);
}

bool rt_claim_spinner(struct rt *rt)
{
	uint32_t zero = 0;
	return plat_load_u32(&rt->sched.nmspinning, memory_order_relaxed) == 0 &&
	       plat_cas_u32(&rt->sched.nmspinning, &zero, 1, memory_order_acq_rel);
}

void rt_release_spinner(struct rt *rt)
{
	plat_add_u32(&rt->sched.nmspinning, (uint32_t)-1, memory_order_relaxed);
}

void rt_startm_spinning_unlock(struct rt *rt, struct p *pp)
{
	if (!rt_startm_unlock(rt, pp, true, NULL))
		rt_release_spinner(rt);
}

/* No idle P for work someone found (sched.lock held): with Go 1.26's
 * protocol, the next M to drop its P spins instead [proc: needspinning]. */
static void need_spinning(struct rt *rt)
{
	if (rt->choices.needspinning)
		plat_store_u32(&rt->sched.needspinning, 1, memory_order_relaxed);
}

/* Starts a spinning M if none is spinning and a P is idle [proc: Spinning]. */
void rt_wakep(struct m *m)
{
	struct rt *rt = m->rt;
	if ((!rt->choices.needspinning &&
	     plat_load_u32(&rt->sched.npidle, memory_order_relaxed) == 0) ||
	    !rt_claim_spinner(rt))
		return;
	rt_lock(&rt->sched.lock);
	struct p *pp = rt_pidleget_near(rt, m->p ? m->p->node : plat_node());
	if (!pp)
		need_spinning(rt);
	rt_unlock(&rt->sched.lock);
	if (!pp) {
		rt_release_spinner(rt);
		return;
	}
	rt_startm(m, pp, true);
}

/* [proc: Spinning, "Work put on another P"] */
void rt_wakep_for(struct m *m, struct p *target)
{
	struct rt *rt = m->rt;
	/* A busy target will see its shared queue: the put's full barrier
	 * (rt_sharedq_put) before this read, and the owner's after it marks
	 * itself idle, mean one of the two sees the other. */
	if (!rt_p_is_idle(rt, target->id))
		return;
	/* Read after the put's full barrier, as rt_wakep reads it after a
	 * ring put: a spinner that stops after this read looks at every
	 * shared queue again (rt_dropp). */
	if (!rt_claim_spinner(rt))
		return;
	/* Taking sched.lock orders this against target's owner dropping it,
	 * which checks its shared queue under the same lock: if target is
	 * no longer idle, it sees its queue. */
	rt_lock(&rt->sched.lock);
	rt_startm_spinning_unlock(rt, rt_pidleget_this(rt, target));
}

void rt_start_idle_p(struct rt *rt, struct p *target)
{
	plat_add_u32(&rt->sched.nmspinning, 1, memory_order_relaxed);
	rt_lock(&rt->sched.lock);
	rt_startm_spinning_unlock(rt, rt_pidleget_this(rt, target));
}

void rt_wakep_node(struct m *m, int node)
{
	struct rt *rt = m->rt;
	/* the put under sched.lock is seen by a spinner's last look, under
	 * the same lock */
	if (!plat_load_u32(&rt->sched.npidle, memory_order_relaxed) || !rt_claim_spinner(rt))
		return;
	rt_lock(&rt->sched.lock);
	rt_startm_spinning_unlock(rt, rt_pidleget_near(rt, node));
}

void rt_count_steal(struct m *m, const struct p *victim, uint32_t n)
{
	if (victim->node == m->p->node)
		m->stats.steals_same_node++;
	else
		m->stats.steals_remote_node++;
	m->stats.gs_stolen += n;
	rt_mech_steal(m->p, n);
}

/* ---- Where the time goes [proc: Where the time goes] ---- */

static void mt_charge(struct m *m, unsigned state, uint64_t ns)
{
	enum rt_cpu k = RT_MT_KIND(state);
	m->stats.time_ns[k] += ns;
	if (state == RT_MT(RT_CPU_SPIN, 0))
		m->stats.spinning_ns += ns;   /* not a G's spin for a sync.Mutex (class 1) */
	else if (m->p && k != RT_CPU_PARKED && k != RT_CPU_SYSCALL)
		rt_mech_busy(m->p, ns);       /* the P's work: its M neither idle nor looking */
	if (k == RT_CPU_LOCK_SPIN || k == RT_CPU_LOCK_SLEEP)
		m->stats.lock_ns[k == RT_CPU_LOCK_SLEEP][state >> 4] += ns;
}

/* Charges m's state with its time up to now, cut at end (0: the run goes
 * on), and moves it to state to. */
static unsigned mt_move(struct m *m, unsigned to, int64_t now, int64_t end)
{
	unsigned from = m->mt;
	int64_t a = m->mt_since, b = now;
	if (end) {
		a = a < end ? a : end;
		b = b < end ? b : end;
	}
	uint64_t d = b > a ? (uint64_t)(b - a) : 0;
	if (b > m->mt_counted)
		m->mt_counted = b;
	if (rt_cpu_off(RT_MT_KIND(from))) {
		/* its futex calls ran on a CPU: they count where it goes back to */
		uint64_t f = m->stats.futex_ns - m->mt_futex0;
		if (f > d)
			f = d;
		d -= f;
		mt_charge(m, rt_cpu_off(RT_MT_KIND(to)) ? RT_MT(RT_CPU_SCHED, 0) : to, f);
	}
	mt_charge(m, from, d);
	m->mt = to;
	m->mt_since = now;
	m->mt_futex0 = m->stats.futex_ns;
	return from;
}

unsigned rt_mt_switch(struct m *m, unsigned to)
{
	if (!m->rt->timed || m->mt_since < 0) {
		unsigned from = m->mt;
		m->mt = to;
		return from;
	}
	unsigned from = mt_move(m, to, plat_nanotime(), rt_end_ns(m->rt));
	rt_why_m(m);
	return from;
}

/* m starts: from now on its time counts. */
static void mt_start(struct m *m)
{
	if (!m->rt->timed)
		return;
	m->mt = RT_MT(RT_CPU_SCHED, 0);
	m->mt_since = m->mt_born = m->mt_counted = plat_nanotime();
	m->mt_futex0 = m->stats.futex_ns;
	rt_why_m(m);
}

/* Charges m's time so far to its state (and to its P, if it holds one):
 * before it takes or lets go of a P, so each P's busy time is its own. */
void rt_time_split(struct m *m)
{
	rt_mt_switch(m, m->mt);
}

/* m takes a P (a spinning M starts spinning with it). */
void rt_time_held(struct m *m)
{
	rt_time_split(m);
	if (m->spinning && RT_MT_KIND(m->mt) == RT_CPU_SCHED)
		rt_mt_switch(m, RT_MT(RT_CPU_SPIN, 0));
}

/* m lets go of its P (a spin ends with it). */
void rt_time_released(struct m *m)
{
	if (RT_MT_KIND(m->mt) == RT_CPU_SPIN)
		rt_mt_switch(m, RT_MT(RT_CPU_SCHED, 0));
}

/* m, holding a P, found no work of its own and looks elsewhere
 * [proc: Spinning]; the policy has checked that it may. */
void rt_becomespinning(struct m *m)
{
	assert(m->p && !m->spinning);
	m->spinning = true;
	uint32_t spinning = plat_add_u32(&m->rt->sched.nmspinning, 1, memory_order_relaxed) + 1;
	if (m->rt->choices.needspinning)
		plat_store_u32(&m->rt->sched.needspinning, 0, memory_order_relaxed);
	rt_mech_spinning(m, spinning);
	rt_trace(m->rt, m, RT_TEV_SPINNING, 0, m->p->id, spinning, 0);
	if (RT_MT_KIND(m->mt) == RT_CPU_SCHED)
		rt_mt_switch(m, RT_MT(RT_CPU_SPIN, 0));
}

/* m stops spinning without passing the search on (a policy whose Ms do
 * not look for each other's work). */
void rt_resetspinning_quiet(struct m *m)
{
	assert(m->spinning);
	rt_time_released(m);
	m->spinning = false;
	uint32_t old = plat_add_u32(&m->rt->sched.nmspinning, (uint32_t)-1, memory_order_acq_rel);
	assert(old > 0);
	(void)old;
	rt_trace(m->rt, m, RT_TEV_SPINNING, 0, m->p ? m->p->id : -1, old - 1, 0);
}

/* m was spinning and found work: it stops spinning and passes the search
 * on [proc: Spinning, step 2]. */
void rt_resetspinning(struct m *m)
{
	rt_resetspinning_quiet(m);
	rt_wakep(m);
}

/* [proc: Spinning] */
bool rt_trybecomespinning(struct m *m, uint32_t max_pct)
{
	struct sched *s = &m->rt->sched;
	uint32_t busy = (uint32_t)m->rt->procs - plat_load_u32(&s->npidle, memory_order_relaxed);
	if (m->spinning)
		return true;
	if (100 * plat_load_u32(&s->nmspinning, memory_order_relaxed) >= max_pct * busy)
		return false;
	rt_becomespinning(m);
	return true;
}

/* Some queue has work, seen without a P: the global queues (their total),
 * every P's ring and runnext, and its shared queue if it has one.  The
 * order is the policy's; in simulation it is part of the timing. */
static bool any_work_nop(struct rt *rt, bool global_first)
{
	struct sched *s = &rt->sched;
	if (global_first && plat_load_u32(&s->runqsize, memory_order_relaxed))
		return true;
	for (int i = 0; i < rt->procs; i++)
		if (rt_p_has_work(rt->allp[i]))
			return true;
	return !global_first && plat_load_u32(&s->runqsize, memory_order_relaxed) > 0;
}

/* [proc: Spinning, step 3] */
struct g *rt_dropp(struct m *m, const int *node_order, bool recheck_global_first)
{
	struct rt *rt = m->rt;
	struct sched *s = &rt->sched;
	struct p *pp = m->p;
	struct g *g = NULL;

	/* The last look, under the lock that every put to a global queue
	 * takes, so nothing put there is missed.  Without a node order only
	 * the P's node's queue is taken from: if the count is another
	 * node's, m looks again, holding its P. */
	rt_lock(&s->lock);
	if (plat_load_u32(&s->runqsize, memory_order_relaxed) > 0) {
		rt_mech_gq_why(pp, RT_GQ_IDLE);
		if (!node_order)
			g = rt_globrunqget(rt, pp, 0);
		for (int k = 0; node_order && k < rt->topo->nnodes && !g; k++)
			g = rt_globrunqget_from(rt, pp, rt_gq_of_node(rt, node_order[k]), 0);
		rt_unlock(&s->lock);
		return g;
	}
	/* A P's shared queue, if the policy gives Ps one: any M puts to it
	 * without sched.lock and then starts the P if it sees it idle.  So
	 * it is looked at twice, before the P goes idle and after, behind a
	 * full barrier that pairs with the put's: a put that saw the P still
	 * busy is seen by the second look, which takes the P back. */
	if (pp->sharedq_used && plat_load_u32(&pp->sharedq_size, memory_order_acquire)) {
		rt_unlock(&s->lock);
		return NULL;
	}
	/* someone found work and no idle P for it: spin for them instead */
	if (rt->choices.needspinning && !m->spinning &&
	    plat_load_u32(&s->needspinning, memory_order_relaxed)) {
		m->stats.spun_instead++;
		rt_becomespinning(m);
		rt_unlock(&s->lock);
		return NULL;
	}
	rt_pidleput(rt, rt_releasep(m));
	if (pp->sharedq_used && plat_add_u32(&pp->sharedq_size, 0, memory_order_seq_cst) &&
	    rt_pidleget_this(rt, pp)) {
		rt_unlock(&s->lock);
		rt_acquirep(m, pp);
		return NULL;
	}
	rt_unlock(&s->lock);

	if (m->spinning) {
		m->spinning = false;
		plat_add_u32(&s->nmspinning, (uint32_t)-1, memory_order_acq_rel);
		/* A G made before the decrement may have seen this M spinning
		 * and woken nobody: if any queue has work, m spins on. */
		if (!RT_BUG(rt, RT_BUG_NO_RECHECK) && any_work_nop(rt, recheck_global_first)) {
			rt_lock(&s->lock);
			struct p *p2 = rt_pidleget_near(rt, pp->node);
			if (!p2)
				need_spinning(rt);
			rt_unlock(&s->lock);
			if (p2) {
				rt_acquirep(m, p2);
				rt_becomespinning(m);
				return NULL;
			}
		}
	}
	rt_idle(m);
	return NULL;
}

/* ---- Idle Ps (sched.lock held) ---- */

void rt_pidleput(struct rt *rt, struct p *pp)
{
	assert(rt_mutex_held(&rt->sched.lock));
	assert(rt_runqempty_peek(pp) && "an idle P's queue must be empty");
	pp->link = rt->sched.pidle;
	rt->sched.pidle = pp;
	rt_why_idle(rt, pp, true);
	if (__builtin_expect(rt->explore != NULL, 0))
		pp->idle_since = plat_nanotime();   /* [core/explore.c: starvation] */
	plat_u32 *word = &rt->sched.idlepmask[pp->id / 32];
	uint32_t bits = plat_load_u32(word, memory_order_relaxed);
	/* seq_cst: a put to pp's shared queue reads this bit after its
	 * seq_cst add to the queue's size, and whoever idles pp reads that
	 * size after this store: one of the two sees the other (numa's kick) */
	plat_store_u32(word, bits | 1u << (pp->id % 32), memory_order_seq_cst);
	plat_add_u32(&rt->sched.npidle, 1, memory_order_relaxed);
}

/* pp, just unlinked from the idle list, is idle no more: its hint bit
 * cleared and the count down. */
static struct p *pidle_taken(struct rt *rt, struct p *pp)
{
	rt_why_idle(rt, pp, false);
	plat_u32 *word = &rt->sched.idlepmask[pp->id / 32];
	uint32_t bits = plat_load_u32(word, memory_order_relaxed);
	plat_store_u32(word, bits & ~(1u << (pp->id % 32)), memory_order_relaxed);
	plat_add_u32(&rt->sched.npidle, (uint32_t)-1, memory_order_relaxed);
	return pp;
}

struct p *rt_pidleget(struct rt *rt)
{
	assert(rt_mutex_held(&rt->sched.lock));
	struct p *pp = rt->sched.pidle;
	if (!pp)
		return NULL;
	rt->sched.pidle = pp->link;
	return pidle_taken(rt, pp);
}

/* An idle P of node if there is one, else any (the first); with the
 * policy's per-node queues only -- otherwise simply the first. */
struct p *rt_pidleget_near(struct rt *rt, int node)
{
	assert(rt_mutex_held(&rt->sched.lock));
	if (!rt->choices.node_queues)
		return rt_pidleget(rt);
	for (struct p *pp = rt->sched.pidle; pp; pp = pp->link)
		if (pp->node == node)
			return rt_pidleget_this(rt, pp);
	return rt_pidleget(rt);
}

/* Takes pp off the idle list if it is on it (NULL if not). */
struct p *rt_pidleget_this(struct rt *rt, struct p *pp)
{
	assert(rt_mutex_held(&rt->sched.lock));
	struct p **l = &rt->sched.pidle;
	while (*l && *l != pp)
		l = &(*l)->link;
	if (!*l)
		return NULL;
	*l = pp->link;
	return pidle_taken(rt, pp);
}

/* A hint for thieves, read without the lock: an idle P has nothing to
 * take.  seq_cst for numa's kick [rt_pidleput]. */
bool rt_p_is_idle(struct rt *rt, int id)
{
	return plat_load_u32(&rt->sched.idlepmask[id / 32], memory_order_seq_cst) >> (id % 32) & 1;
}

/* ---- The global run queues (sched.lock held) ---- */

/* Makes room in q for n more Gs (rt_globrunqput's and
 * rt_globrunqputbatch's slow path).  sched.lock must be held. */
void rt_globrunqgrow(struct globrunq *q, uint32_t n)
{
	uint32_t size = q->tail - q->head;
	uint32_t cap = q->cap ? q->cap : 256;
	while (cap < size + n)
		cap *= 2;
	struct g **ring = xmalloc(cap * sizeof(*ring));
	for (uint32_t i = 0; i < size; i++)
		ring[i] = q->ring[(q->head + i) & (q->cap - 1)];
	free(q->ring);
	q->ring = ring;
	q->head = 0;
	q->tail = size;
	q->cap = cap;
}

/* Puts gs[0..n) at queue qi's tail, in that order. */
void rt_globrunqputbatch(struct rt *rt, int qi, struct g *const *gs, uint32_t n)
{
	struct sched *s = &rt->sched;
	struct globrunq *q = &s->gq[qi];
	assert(rt_mutex_held(&s->lock));
	plat_shared_access(q->line, true);
	if (q->tail - q->head + n > q->cap)
		rt_globrunqgrow(q, n);
	uint32_t mask = q->cap - 1;
	for (uint32_t i = 0; i < n; i++) {
		rt_g_enq(gs[i], RT_Q_GLOBAL);
		rt_why_enq(rt, gs[i], RT_WP_GLOBAL, NULL, (int64_t)(q->tail - q->head));
		q->ring[q->tail++ & mask] = gs[i];
	}
	if (s->ngq > 1)
		plat_store_u32(&q->size, plat_load_u32(&q->size, memory_order_relaxed) + n,
			       memory_order_relaxed);
	plat_store_u32(&s->runqsize, plat_load_u32(&s->runqsize, memory_order_relaxed) + n,
		       memory_order_relaxed);
	rt_mech_gq_len(rt);
}

/* The oldest G of q; the caller accounts for it in the sizes. */
static struct g *globrunqpop(struct globrunq *q)
{
	assert(q->tail != q->head);
	struct g *g = q->ring[q->head++ & (q->cap - 1)];
	rt_g_deq(g, RT_Q_GLOBAL);
	return g;
}

/* Takes a batch for pp from queue qi: its fair share of the queue (the
 * queue's length over the Ps that draw from it), at most max (0: no
 * limit) and at most half a ring; returns one G and puts the rest on
 * pp's ring. */
struct g *rt_globrunqget_from(struct rt *rt, struct p *pp, int qi, uint32_t max)
{
	struct sched *s = &rt->sched;
	struct globrunq *q = &s->gq[qi];
	assert(rt_mutex_held(&s->lock));
	uint32_t size = rt_globrunqsize(rt, qi);
	if (size == 0)
		return NULL;
	assert(q->tail - q->head == size && "a global queue's count and ring disagree");
	plat_shared_access(q->line, true);
	uint32_t n = size / (uint32_t)rt->procs + 1;
	if (n > size)
		n = size;
	if (max > 0 && n > max)
		n = max;
	if (n > rt->choices.runq_size / 2)
		n = rt->choices.runq_size / 2;
	if (s->ngq > 1) {
		plat_store_u32(&q->size, size - n, memory_order_relaxed);
		size = plat_load_u32(&s->runqsize, memory_order_relaxed);
	}
	plat_store_u32(&s->runqsize, size - n, memory_order_relaxed);
	if (rt->tracing) {
		struct m *self = plat_self();
		/* the reason the policy gave for the report [core/mech.h] */
		static const uint8_t why[RT_GQ__COUNT] = {
			[RT_GQ_FAIRNESS] = RT_TG_FAIRNESS, [RT_GQ_LOCAL_EMPTY] = RT_TG_EMPTY_LOCAL,
			[RT_GQ_ONLY] = RT_TG_ONLY, [RT_GQ_STEAL] = RT_TG_STEAL, [RT_GQ_IDLE] = RT_TG_IDLE,
		};
		rt_trace_rec(rt, self, RT_TEV_GLOBAL_TAKE, 0, pp->id, why[pp->mech->gq_why], n);
		rt_trace_rec(rt, self, RT_TEV_RUNQ, 0, -1, size - n, 0);
	}
	rt_mech_gq_take(rt, pp, n);
	struct g *g = globrunqpop(q);
	rt_why_deq(rt, g);
	while (--n > 0)
		rt_runqput(rt, pp, globrunqpop(q), false);
	return g;
}

struct g *rt_globrunqtake_slow(struct rt *rt, struct p *pp, int qi, uint32_t max,
			       enum rt_gq_why why)
{
	rt_lock(&rt->sched.lock);
	rt_mech_gq_why(pp, why);
	struct g *g = rt_globrunqget_from(rt, pp, qi, max);
	rt_unlock(&rt->sched.lock);
	return g;
}

/* ---- G lifetimes ---- */

/* A dead G to reuse: pp's own, else a batch from its node's global list. */
static struct g *gfget(struct rt *rt, struct p *pp)
{
	struct gfreelist *gl = &rt->sched.gfree[rt_gq_of_node(rt, pp->node)];
	int keep = rt->choices.gfree_local_max / 2 > 0 ? rt->choices.gfree_local_max / 2 : 1;
	if (!pp->gfree && plat_load_u32(&gl->n, memory_order_relaxed) > 0) {
		rt_lock(&rt->sched.lock);
		while (pp->ngfree < keep && gl->head) {
			struct g *g = gl->head;
			gl->head = g->schedlink;
			plat_add_u32(&gl->n, (uint32_t)-1, memory_order_relaxed);
			g->schedlink = pp->gfree;
			pp->gfree = g;
			pp->ngfree++;
		}
		rt_unlock(&rt->sched.lock);
	}
	struct g *g = pp->gfree;
	if (g) {
		pp->gfree = g->schedlink;
		pp->ngfree--;
	}
	return g;
}

/* A dead G goes on pp's list; past gfree_local_max, half of that list goes
 * to the global one (with gfree_local_max 0, as in Go 1.0, every dead G
 * does, under the lock). */
static void gfput(struct rt *rt, struct p *pp, struct g *g)
{
	g->schedlink = pp->gfree;
	pp->gfree = g;
	if (++pp->ngfree < rt->choices.gfree_local_max)
		return;
	struct gfreelist *gl = &rt->sched.gfree[rt_gq_of_node(rt, pp->node)];
	rt_lock(&rt->sched.lock);
	while (pp->ngfree > rt->choices.gfree_local_max / 2) {
		struct g *x = pp->gfree;
		pp->gfree = x->schedlink;
		pp->ngfree--;
		x->schedlink = gl->head;
		gl->head = x;
		plat_add_u32(&gl->n, 1, memory_order_relaxed);
	}
	rt_unlock(&rt->sched.lock);
}

/* When a G became runnable, to time its wait for a P; -1 in an untimed
 * run (the C API's), where that clock read would cost more than the
 * rest of the schedule. */
static int64_t runnable_now(const struct rt *rt)
{
	return rt->timed ? plat_nanotime() : -1;
}

/* Goroutine ids come from a shared counter in batches, so that making a G
 * rarely touches a shared line (as Go's per-P goidcache does). */
#define GOID_BATCH 16

static uint64_t newgoid(struct rt *rt, struct p *pp)
{
	if (pp->goidcache == pp->goidcacheend) {
		pp->goidcache = plat_add_u64(&rt->sched.goidgen, GOID_BATCH, memory_order_relaxed) + 1;
		pp->goidcacheend = pp->goidcache + GOID_BATCH;
	}
	return pp->goidcache++;
}

/* Gs are made GSLAB at a time, each on a cache-line boundary (the first
 * line of a G is the one another CPU reads when it runs it), and
 * registered in allg under one lock.  Each G's body state (body_ops.g_bytes
 * of it: a program's frame; a C function's call) follows it in the slab,
 * then the policy's (pol_ops.g_bytes, at rt->pol_g_off). */
#define GSLAB 64

static size_t gstride(const struct rt *rt)
{
	size_t end = rt->why ? rt->why_g_off + rt_why_g_bytes() : rt->pol_g_off + rt->pol->g_bytes;
	return (end + 63) / 64 * 64;
}

/* false: the slab would take the run past its memory budget, which
 * counts RT_BYTES_PER_G a G as the workload compiler's check does. */
static bool gslab_new(struct rt *rt, struct p *pp)
{
	if (!rt_mem_charge(rt, GSLAB * RT_BYTES_PER_G))
		return false;
	size_t stride = gstride(rt), size = GSLAB * stride;
	char *slab = aligned_alloc(64, size);
	if (!slab)
		die_oom(size);
	memset(slab, 0, size);
	pp->gslab_pending = slab;
	rt_lock(&rt->sched.lock);
	if (rt->nallg + GSLAB > rt->capallg) {
		rt->capallg = rt->capallg ? 2 * rt->capallg : 1024;
		rt->allg = xrealloc(rt->allg, rt->capallg * sizeof(*rt->allg));
	}
	for (int i = 0; i < GSLAB; i++)
		rt->allg[rt->nallg++] = (struct g *)(slab + i * stride);
	if (rt->ngslabs == rt->capgslabs) {
		rt->capgslabs = rt->capgslabs ? 2 * rt->capgslabs : 64;
		rt->gslabs = xrealloc(rt->gslabs, rt->capgslabs * sizeof(*rt->gslabs));
	}
	rt->gslabs[rt->ngslabs++] = slab;
	pp->gslab_pending = NULL;
	rt_unlock(&rt->sched.lock);
	pp->gnew_slab = slab;
	pp->gnew_left = GSLAB;
	return true;
}

static struct g *gnew(struct rt *rt, struct p *pp)
{
	struct g *g = gfget(rt, pp);
	bool fresh = !g;
	if (!g) {
		if (pp->gnew_left == 0 && !gslab_new(rt, pp))
			return NULL;
		g = (struct g *)pp->gnew_slab;
		pp->gnew_slab += gstride(rt);
		pp->gnew_left--;
	}
	assert(g->status == G_IDLE || g->status == G_DEAD);
	/* Only the run's and the policies' fields are written (the body
	 * writes its own state): the rest is set by whatever uses it -- a wait
	 * its sudog, waitreason and timer, a select its gselect -- and a
	 * reused G is often cold here, freed by another CPU. */
	g->goid = newgoid(rt, pp);
	g->sys_p = NULL;
	g->schedlink = NULL;
	g->m = NULL;
	g->last_cpu = -1;
	g->in_op = false;
	g->panicking = false;
	g->onq = RT_Q_NONE;
	g->wake = RT_WAKE_OTHER;
	g->runwhy = RT_RUN_SPAWN;
	g->burst = 0;
	/* the policy's state of it starts afresh (a reused G keeps its
	 * stack, and the stack its node) */
	if (rt->pol->g_bytes)
		memset(rt_pol_g(rt, g), 0, rt->pol->g_bytes);
	/* sysmon may still hold this G from its last life and store to the
	 * flag: only a fresh G's flag is initialised, a reused one is reset */
	if (fresh)
		plat_u32_init(&g->preempt, 0, rt->gflag_line);
	else
		plat_store_u32(&g->preempt, 0, memory_order_relaxed);
	plat_g_init(rt, g);
	g->status = G_RUNNABLE;
	g->runnable_since = runnable_now(rt);
	rt_why_ready(rt, g);
	return g;
}

struct g *rt_newg(struct m *m)
{
	return gnew(m->rt, m->p);
}

void rt_startg(struct m *m, struct g *g)
{
	m->stats.gs_created++;
	rt_trace(m->rt, m, RT_TEV_G_CREATE, g->goid, m->p ? m->p->id : -1,
		 m->curg ? m->curg->goid : 0, rt_trace_label(m->rt, g, false));
	m->rt->pol->newproc(m, g);
	if (m->p)
		rt_mech_put(m->rt, m->p);
	/* the parent's spawn counts for burst detection */
	if (m->curg)
		m->curg->burst++;
}

/* Makes a parked G runnable, counting its wait for a P from since (-1:
 * not timed); why tells the policy what woke it. */
static void ready_since(struct m *m, struct g *g, int64_t since, enum rt_wake why)
{
	assert(g->status == G_WAITING);
	g->status = G_RUNNABLE;
	g->runnable_since = since;
	g->wake = (uint8_t)why;
	if (m->rt->tracing)
		rt_trace_wake(m, g, why);
	g->runwhy = why == RT_WAKE_TIMER ? RT_RUN_TIMER : why == RT_WAKE_OTHER ? RT_RUN_PARTNER
									    : RT_RUN_NET;
	rt_why_ready(m->rt, g);
	m->rt->pol->ready(m, g);   /* from here on another M may run it */
	if (m->p)
		rt_mech_put(m->rt, m->p);
}

/* Makes a parked G runnable.  Called by the M that woke it (a channel
 * partner's), which holds a P. */
void rt_ready(struct m *m, struct g *g)
{
	ready_since(m, g, runnable_now(m->rt), RT_WAKE_OTHER);
}

void rt_yield_global(struct m *m, struct g *g)
{
	struct rt *rt = m->rt;
	rt_lock(&rt->sched.lock);
	rt_globrunqput(rt, g);
	rt_unlock(&rt->sched.lock);
	if (rt->choices.needspinning)
		rt_wakep(m);   /* Go 1.26's goschedImpl */
}

void rt_park_commit(struct m *m, void (*unlock)(void *), void *arg)
{
	m->park_unlock = unlock;
	m->park_arg = arg;
}

/* ---- Sleep ---- */

static void sleep_ready(struct m *m, struct timer *t)
{
	/* It could have run from when its timer was due: scheduling latency
	 * counts from then, not from when some M got round to the timer. */
	int64_t now = plat_nanotime();
	ready_since(m, t->g, t->when < now ? t->when : now, RT_WAKE_TIMER);
}

/* Runs on the M once the sleeping G is off it: only then may its timer
 * fire, or it could be readied before it has parked. */
static void sleep_commit(void *arg)
{
	struct g *g = arg;
	rt_timer_add(plat_self(), g->timer);
}

/* Commits the running G to sleep for ns. */
void rt_sleep_park(struct m *m, struct g *g, int64_t ns)
{
	if (!g->timer)
		g->timer = xcalloc(1, sizeof(*g->timer));
	g->timer->when = rt_time_after(plat_nanotime(), ns);
	g->timer->f = sleep_ready;
	g->timer->g = g;
	g->waitreason = RT_WAIT_SLEEP;
	rt_park_commit(m, sleep_commit, g);
}

void rt_sleep(int64_t ns)
{
	struct m *m = plat_self();
	struct g *g = m->curg;
	rt_sleep_park(m, g, ns);
	plat_g_leave(g, G_PARK);
}

/* ---- The scheduler loop ---- */

static void count_migration(struct m *m, struct g *g, int cpu)
{
	const struct topo *t = m->rt->topo;
	if (g->last_cpu >= 0 && g->last_cpu != cpu) {
		int from = t->pus[g->last_cpu].core, to = t->pus[cpu].core;
		if (from != to)
			m->stats.migrations_core++;
		if (t->cores[from].node != t->cores[to].node)
			m->stats.migrations_node++;
	}
	g->last_cpu = cpu;
}

/* g, its new status set, is no longer m's. */
static inline void dropg(struct m *m, struct g *g)
{
	m->curg = NULL;
	g->m = NULL;
}

static void gdestroy(struct m *m, struct g *g)
{
	g->status = G_DEAD;
	dropg(m, g);
	m->stats.gs_exited++;
	if (m->rt->timed) {
		int64_t now = plat_nanotime();
		if (now > m->stats.last_exit_ns)
			m->stats.last_exit_ns = now;
	}
	gfput(m->rt, m->p, g);
}

/* The report's figures of g's schedule on pp, in a timed run: its wait
 * for a P, and the schedule's fingerprint.  An untimed run (the C API's)
 * has neither: no clock read, and its schedule is not reproducible
 * anyway. */
static inline __attribute__((always_inline)) void count_schedule(struct m *m, struct p *pp,
								 struct g *g)
{
	struct rt *rt = m->rt;
	int64_t now = 0;
	/* the runtime's own G counts in no figure */
	if (g->runnable_since >= 0 && __builtin_expect(!g->sys_p, 1)) {
		now = plat_nanotime();
		hist_record(&m->stats.sched_latency, (uint64_t)(now - g->runnable_since));
		rt_mech_run(rt, pp, g, now, (uint64_t)(now - g->runnable_since));
		if (RT_WHY_ON(rt))
			rt_why_run_slow(rt, g, now);
	}
	/* FNV-1a over the decision: a different schedule changes the hash */
	uint64_t h = m->stats.sched_hash ^ 0xcbf29ce484222325ULL;
	uint64_t words[3] = { (uint64_t)now, g->goid, (uint64_t)pp->id };
	for (int i = 0; i < 3; i++)
		h = (h ^ words[i]) * 0x100000001b3ULL;
	m->stats.sched_hash = h;
}

/* g, taken off its queue, starts to run on m, which holds pp: a fresh
 * time slice on pp unless it inherits one, published for sysmon, and
 * counted. */
static inline __attribute__((always_inline)) void g_start(struct m *m, struct p *pp, struct g *g,
							  bool inherit)
{
	struct rt *rt = m->rt;
	assert(g->status == G_RUNNABLE && "a G runs only from a run queue");
	assert(g->onq == RT_Q_NONE && "a G runs only once taken off its queue");
	g->status = G_RUNNING;
	g->burst = 0;
	g->m = m;
	m->curg = g;
	if (!inherit) {
		pp->schedtick++;
		plat_store_u32(&pp->schedtick_pub, pp->schedtick, memory_order_relaxed);
	}
	if (plat_peek_u32(&g->preempt))
		plat_store_u32(&g->preempt, 0, memory_order_relaxed);   /* a stale request */
	/* store-release: sysmon may act on g (preemptone) once it sees it */
	plat_store_ptr(&pp->curg, g, memory_order_release);
	m->stats.runs++;
	if (rt->timed)
		count_schedule(m, pp, g);
	count_migration(m, g, pp->cpu);
	if (rt->tracing) {
		int64_t ts = rt_trace_now(rt, m);
		rt_trace_rec_at(rt, m, ts, RT_TEV_G_START, g->goid, pp->id, 0, 0);
		rt_trace_rec_at(rt, m, ts, RT_TEV_RUNQ, 0, pp->id, rt_trace_runqlen(pp), 0);
	}
}

/* g yielded, or was preempted: runnable again, given to the policy. */
static void g_requeue(struct m *m, struct g *g, enum g_why why)
{
	struct rt *rt = m->rt;
	if (why == G_PREEMPT)
		m->stats.preempted++;
	rt_trace(rt, m, why == G_PREEMPT ? RT_TEV_G_PREEMPT : RT_TEV_G_YIELD, g->goid,
		 m->p ? m->p->id : -1, 0, 0);
	/* Go's gopreempt_m is a Gosched: both go to the global queue */
	g->status = G_RUNNABLE;
	dropg(m, g);
	g->runwhy = why == G_PREEMPT ? RT_RUN_PREEMPT : RT_RUN_YIELD;
	g->runnable_since = runnable_now(rt);
	rt_why_ready(rt, g);
	rt->pol->yield(m, g);
}

/* g is back from a system call with no P: m takes an idle one if one
 * appeared meanwhile (true: g runs on it at once), else g is queued
 * globally, and m parks (rt_mstart) while a P's M runs it. */
static bool g_syscall_back(struct m *m, struct g *g)
{
	struct rt *rt = m->rt;
	dropg(m, g);      /* runnable since rt_exitsyscall */
	g->runnable_since = runnable_now(rt);
	g->runwhy = RT_RUN_SYSCALL;
	rt_why_ready(rt, g);
	rt_lock(&rt->sched.lock);
	struct p *idle = rt_pidleget_near(rt, plat_node());
	if (!idle)
		rt_globrunqput(rt, g);
	rt_unlock(&rt->sched.lock);
	if (idle)
		rt_acquirep(m, idle);
	return idle != NULL;
}

/* g parked: only now, with g off m, may others find and ready it. */
static void g_parked(struct m *m, struct g *g)
{
	m->stats.gparks++;
	if (m->rt->tracing)
		rt_trace_block(m, g);
	g->status = G_WAITING;
	if (RT_WHY_ON(m->rt))
		rt_why_park_slow(m->rt, g);
	dropg(m, g);      /* before the unlock: after it g may run on another M */
	void (*unlock)(void *) = m->park_unlock;
	m->park_unlock = NULL;
	if (unlock)
		unlock(m->park_arg);
}

static void g_exited(struct m *m, struct g *g)
{
	struct rt *rt = m->rt;
	rt_trace(rt, m, RT_TEV_G_END, g->goid, m->p ? m->p->id : -1, 0, 0);
	if (RT_WHY_ON(rt))
		rt_why_park_slow(rt, g);   /* no longer running */
	if (g == rt->main_g) {
		/* A C program ends when its main does, as a Go program does:
		 * the Gs still parked are dropped. */
		rt_lock(&rt->sched.lock);
		stop_run(rt);
		rt_unlock(&rt->sched.lock);
	}
	gdestroy(m, g);
}

/* Runs g on m until it gives control back, then deals with why.  Inline
 * in the scheduler loop, its only caller: natively the switch back from g
 * lands here, and every return between here and the loop would be
 * mispredicted (the return-stack buffer holds g's calls by then). */
static inline __attribute__((always_inline)) void execute(struct m *m, struct g *g, bool inherit)
{
again:
	g_start(m, m->p, g, inherit);
	enum g_why why = __builtin_expect(g->sys_p != NULL, 0) ? rt_timerproc(m, g)
							      : plat_execute(m, g);
	/* g stays m's, both ways, until its case below sets its new status
	 * (dropg): the store to p->curg is priced, so a simulated schedtrace
	 * can fall between, and must not see a running G without its M or an
	 * M without its running G -- Go's dropg follows the status change too */
	if (m->p)
		plat_store_ptr(&m->p->curg, NULL, memory_order_relaxed);
	switch (why) {
	case G_PREEMPT:
	case G_YIELD:
		g_requeue(m, g, why);
		break;
	case G_NOP:
		if (g_syscall_back(m, g)) {
			inherit = false;
			goto again;
		}
		break;
	case G_PARK:
		g_parked(m, g);
		break;
	case G_EXIT:
		g_exited(m, g);
		break;
	}
}

/* Starts sysmon, an M without a P outside checkdead's count. */
static void newsysmon(struct m *m0)
{
	struct rt *rt = m0->rt;
	rt_lock(&rt->sched.lock);
	struct m *sm = allocm(rt);
	rt->sched.nmsys++;
	rt->threads_created++;
	rt->sysmon_m = sm;
	rt_unlock(&rt->sched.lock);
	plat_newm(rt, sm);
}

void rt_mstart(struct m *m)
{
	struct rt *rt = m->rt;
	mt_start(m);
	if (m == rt->sysmon_m) {
		rt_sysmon(m);
		return;
	}
	if (m->nextp) {
		rt_acquirep(m, m->nextp);
		m->nextp = NULL;
	}
	if (m->node >= 0)
		plat_bind_node(m->node);
	if (m == rt->m0 && rt->choices.sysmon)
		newsysmon(m);
	for (;;) {
		if (!m->p) {
			/* it came back from a system call without one */
			rt_stopm(m);
			if (!m->p)
				break;   /* the run is over */
		}
		bool inherit = false;
		struct g *g = rt_take_nextg(m);
		if (!g)
			g = rt->pol->find_runnable(m, &inherit);
		if (!g)
			break;
		if (__builtin_expect(rt->explore != NULL, 0))
			rt_explore_step(m, g);
		if (m->spinning)
			rt_resetspinning(m);
		execute(m, g, inherit);
	}
}

/* ---- Setting up, running, results ---- */

/* The PU each P's M runs on.  The OS spreads busy threads: one per core
 * before SMT siblings, and round-robin over NUMA nodes, as Linux's load
 * balancer does on an otherwise idle machine; so 4 Ps on a 4-node machine
 * get one node each. */
static void place_ps(struct rt *rt)
{
	const struct topo *t = rt->topo;
	int *order = xmalloc((size_t)t->npus * sizeof(*order));
	int *next_core = xcalloc((size_t)t->nnodes, sizeof(*next_core));
	int n = 0, maxsmt = 1;
	for (int c = 0; c < t->ncores; c++)
		if (t->cores[c].npus > maxsmt)
			maxsmt = t->cores[c].npus;
	for (int smt = 0; smt < maxsmt; smt++) {
		memset(next_core, 0, (size_t)t->nnodes * sizeof(*next_core));
		for (int taken = 1; taken;) {
			taken = 0;
			for (int node = 0; node < t->nnodes; node++) {
				/* the next core of this node, in core order */
				int seen = 0;
				for (int c = 0; c < t->ncores; c++) {
					if (t->cores[c].node != node)
						continue;
					if (seen++ < next_core[node])
						continue;
					next_core[node]++;
					taken = 1;
					if (smt < t->cores[c].npus)
						order[n++] = t->cores[c].first_pu + smt;
					break;
				}
			}
		}
	}
	assert(n == t->npus);
	/* a cpuset keeps the process on its PUs, in the same order */
	const bool *set = rt->os.cpuset;
	if (set) {
		int k = 0;
		for (int i = 0; i < n; i++)
			if (set[order[i]])
				order[k++] = order[i];
		n = k;
	}
	for (int i = 0; i < rt->procs; i++) {
		struct p *pp = rt->allp[i];
		pp->cpu = order[i % n];
		pp->node = t->cores[t->pus[pp->cpu].core].node;
	}
	free(next_core);
	free(order);
}

static struct rt *rt_alloc(const struct rt_config *cfg, const struct body_ops *body)
{
	struct rt *rt = xcalloc(1, sizeof(*rt));
	rt->pol = cfg->policy;
	int nk = pol_nknobs(rt->pol);
	rt->knobs = xcalloc((size_t)nk + 1, sizeof(*rt->knobs));
	if (cfg->knobs)
		memcpy(rt->knobs, cfg->knobs, (size_t)nk * sizeof(*rt->knobs));
	else
		pol_default_knobs(rt->pol, rt->knobs);
	rt->topo = cfg->topo;
	rt->procs = cfg->procs > 0 ? cfg->procs : cfg->topo->npus;
	rt->seed = cfg->seed;
	rt->body = body;
	/* the policy's state of a G follows the body's in its slab */
	rt->pol_g_off = (sizeof(struct g) + body->g_bytes + 15) / 16 * 16;
	rt->why_g_off = (rt->pol_g_off + cfg->policy->g_bytes + 15) / 16 * 16;
	rt->timed = body->timed;
	/* An untimed run (the C API's) has no budget but Go's thread limit:
	 * what it makes is its own business, as in Go. */
	rt->mem_budget = !body->timed ? UINT64_MAX : cfg->lim.max_memory ? cfg->lim.max_memory : RT_MEMORY_BUDGET;
	rt->max_sim_ns = cfg->lim.max_sim_ns ? cfg->lim.max_sim_ns : RT_DEFAULT_MAX_SIM_NS;
	rt->max_wall_ns = cfg->lim.max_wall_ns ? cfg->lim.max_wall_ns : RT_DEFAULT_MAX_WALL_NS;
	rt->schedtrace_ns = cfg->lim.schedtrace_ns;
	rt->progress_ns = cfg->lim.progress_ns;
	rt->progress_redraw = cfg->lim.progress_redraw;
	rt->scheddetail = cfg->lim.scheddetail;
	rt->explore = cfg->explore;
	rt->os = cfg->os;
	/* the choices a policy's init starts from */
	rt->choices = (struct pol_choices){ .runq_size = 256, .gfree_local_max = GFREE_LOCAL_MAX,
					    .go_release = 126 };
	rt_trace_init(rt, cfg);
	return rt;
}

/* The OS limits [struct rt_os] are ones the model can run: the library's
 * callers check them first, with their own words; this is the last line. */
static bool os_check(const struct rt_os *os, const struct topo *t, struct err *e)
{
	int allowed = 0;
	for (int i = 0; os->cpuset && i < t->npus; i++)
		allowed += os->cpuset[i];
	if (os->cpuset && allowed == 0) {
		err_set(e, "the cpuset holds none of the machine's %d PUs", t->npus);
		return false;
	}
	if (os->quota_ns < 0 || (os->quota_ns && (os->period_ns < RT_OS_PERIOD_MIN ||
						   os->period_ns > RT_OS_PERIOD_MAX))) {
		err_set(e, "a CPU quota of %lld ns per %lld ns: the period must be 1 ms to 1 s",
			(long long)os->quota_ns, (long long)os->period_ns);
		return false;
	}
	if (os->load_threads < 0 || os->load_threads > RT_OS_LOAD_MAX ||
	    (os->load_threads && (!(os->load_duty > 0 && os->load_duty <= 1) ||
				  os->load_period_ns < RT_OS_PERIOD_MIN ||
				  os->load_period_ns > RT_OS_PERIOD_MAX))) {
		err_set(e, "other load of %d threads, busy %g of every %lld ns: at most %d threads, "
			   "a share above 0 and at most 1, a period of 1 ms to 1 s",
			os->load_threads, os->load_duty, (long long)os->load_period_ns,
			RT_OS_LOAD_MAX);
		return false;
	}
	return true;
}

/* The configuration is one this compilation can run with its body; false:
 * e says why. */
static bool config_check(const struct rt_config *cfg, struct err *e)
{
	const struct body_ops *body = cfg->body;
	assert(body && "a run needs a body (rt_api.body: a workload's programs)");
	if (body->needs_stack && !plat_g_has_stack()) {
		err_set(e, "a %s G has no stack to run a %s on", PLAT_NAME, body->name);
		return false;
	}
	if (!body->check(cfg, e))
		return false;
	if (cfg->lim.max_sim_ns < 0 || cfg->lim.max_sim_ns > RT_MAX_SIM_NS || cfg->lim.max_wall_ns < 0 ||
	    cfg->lim.max_memory > RT_MEMORY_BUDGET) {
		err_set(e, "limits out of range: at most %lld ns of simulated time, and a memory "
			   "budget of at most %llu bytes",
			(long long)RT_MAX_SIM_NS, (unsigned long long)RT_MEMORY_BUDGET);
		return false;
	}
	if (!os_check(&cfg->os, cfg->topo, e))
		return false;
	if (cfg->lim.why && (!PLAT_SERIAL || !cfg->body->timed)) {
		err_set(e, "where each G's wait went (--why) is measured in timed simulated runs "
			   "only, not in a %s one", PLAT_NAME);
		return false;
	}
	if (cfg->lim.schedtrace_ns < 0) {
		err_set(e, "schedtrace interval %lld ns: must be positive (0: none)",
			(long long)cfg->lim.schedtrace_ns);
		return false;
	}
	return true;
}

/* Scheduler state on the lines Go's layout would give it: the lock and
 * the lists it guards together, the hot counters together, the global
 * queues and the id counters apart.  After the policy's choices (how many
 * global queues). */
static void sched_init(struct rt *rt)
{
	struct sched *s = &rt->sched;
	plat_line_t lock_line = plat_line_new(rt, 0), count_line = plat_line_new(rt, 0);
	rt_mutex_init(rt, &s->lock, lock_line, RT_LOCK_SCHED);
	plat_u32_init(&s->npidle, 0, count_line);
	plat_u32_init(&s->nmspinning, 0, count_line);
	plat_u32_init(&s->needspinning, 0, count_line);
	plat_u32_init(&s->done, 0, count_line);
	plat_line_t poll_line = plat_line_new(rt, 0);
	plat_u32_init(&s->polling, 0, poll_line);
	plat_u32_init(&s->polling_net, 0, poll_line);
	plat_u64_init(&s->poll_until, 0, poll_line);
	plat_u32_init(&s->netpoll_waiters, 0, poll_line);
	s->ngq = rt->choices.node_queues ? rt->topo->nnodes : 1;
	s->gq = xcalloc((size_t)s->ngq, sizeof(*s->gq));
	s->gfree = xcalloc((size_t)s->ngq, sizeof(*s->gfree));
	for (int i = 0; i < s->ngq; i++) {
		s->gq[i].line = plat_line_new(rt, i);
		plat_u32_init(&s->gq[i].size, 0, s->gq[i].line);
		/* the free lists' counts share the lock's line: they are
		 * written under it */
		plat_u32_init(&s->gfree[i].n, 0, lock_line);
	}
	plat_u32_init(&s->runqsize, 0, s->gq[0].line);
	plat_u64_init(&s->goidgen, 0, plat_line_new(rt, 0));
	plat_u64_init(&s->chanidgen, 0, plat_line_new(rt, 0));
	plat_u32_init(&s->sysmonwait, 0, count_line);
	rt_note_init(&s->sysmonnote, plat_line_new(rt, 0));
	rt->gflag_line = plat_line_new(rt, 0);
	int words = (rt->procs + 31) / 32;
	s->idlepmask = xcalloc((size_t)words, sizeof(*s->idlepmask));
	plat_line_t mask_line = plat_line_new(rt, 0);
	for (int i = 0; i < words; i++)
		plat_u32_init(&s->idlepmask[i], 0, mask_line);
}

/* The Ps, each with the policy's state of it after it, placed on PUs
 * (place_ps), then their lines homed on their nodes, rings and timers. */
static void make_ps(struct rt *rt)
{
	rt->allp = xcalloc((size_t)rt->procs, sizeof(*rt->allp));
	for (int i = 0; i < rt->procs; i++) {
		struct p *pp = xcalloc(1, RT_P_POL_OFF + rt->pol->p_bytes);
		pp->id = i;
		rt->allp[i] = pp;
	}
	place_ps(rt);
	for (int i = 0; i < rt->procs; i++) {
		struct p *pp = rt->allp[i];
		plat_line_t pline = plat_line_new(rt, pp->node);
		plat_u32_init(&pp->status, P_IDLE, pline);
		plat_u32_init(&pp->schedtick_pub, 0, pline);
		plat_u32_init(&pp->syscalltick, 0, pline);
		plat_ptr_init(&pp->curg, NULL, pline);
		rt_runq_init(rt, pp);
		rt_timers_init(rt, pp);
	}
}

/* Frees the policy's state: what fini frees, then what the core made. */
static void pol_free(struct rt *rt)
{
	if (rt->pol->fini)
		rt->pol->fini(rt);
	free(rt->pol_run);
	rt->pol_run = NULL;
}

struct rt *rt_new(const struct rt_config *cfg, struct err *e)
{
	if (!config_check(cfg, e))
		return NULL;
	/* One unwind for every failure below (as Redis's aeCreateEventLoop):
	 * what was made so far is undone in reverse, each part's free
	 * accepting what its init left half made. */
	struct rt *rt = rt_alloc(cfg, cfg->body);
	bool pol_made = false, plat_made = false, core_made = false;
	if (rt->pol->run_bytes)
		rt->pol_run = xcalloc(1, rt->pol->run_bytes);
	if (!rt->pol->init(rt, &rt->choices, e))
		goto err;
	pol_made = true;
	if (cfg->lim.why && rt->choices.timerproc) {
		/* its causes are the body's Gs'; a timer goroutine has none */
		err_set(e, "where each G's wait went (--why) is not measured with Go 1.13's timer "
			   "goroutines (steal's go=113)");
		goto err;
	}
	if (!plat_rt_init(rt, e))
		goto err;
	plat_made = true;
	assert(rt->choices.runq_size >= 2 &&
	       (rt->choices.runq_size & (rt->choices.runq_size - 1)) == 0);
	sched_init(rt);
	make_ps(rt);
	rt_mech_init(rt);
	if (cfg->lim.why)
		rt_why_init(rt);
	if (rt->pol->placed)
		rt->pol->placed(rt);
	rt_netpoll_init(rt);
	/* From here rt_free undoes it all, the body's half-made state too. */
	core_made = true;
	if (!rt->body->run_new(rt, cfg, e))
		goto err;
	return rt;

err:
	if (core_made) {
		rt_free(rt);
		return NULL;
	}
	if (plat_made)
		plat_rt_fini(rt);
	if (pol_made)
		pol_free(rt);
	free(rt->pol_run);   /* made before a failed init, which has no fini */
	free(rt->knobs);
	free(rt);
	return NULL;
}

/* Runs the workload's main program to the end of the run: M0 starts with
 * P0 and the main G on it; every other P is idle until wakep needs it. */
void rt_run(struct rt *rt)
{
	struct sched *s = &rt->sched;
	rt_lock(&s->lock);
	for (int i = rt->procs - 1; i >= 1; i--)
		rt_pidleput(rt, rt->allp[i]);
	struct m *m0 = allocm(rt);
	rt_unlock(&s->lock);
	struct g *main_g = gnew(rt, rt->allp[0]);
	assert(main_g && "the least budget has room for the main G");
	rt->body->main_init(rt, main_g);
	if (rt->body->main_ends_run)
		rt->main_g = main_g;
	if (rt->choices.no_local_runq) {
		rt_g_enq(main_g, RT_Q_NEXTG);
		rt_why_enq(rt, main_g, RT_WP_NEXTG, rt->allp[0], -1);
		m0->nextg = main_g;
	} else {
		rt_runqput(rt, rt->allp[0], main_g, true);
	}
	m0->nextp = rt->allp[0];
	rt_why_with(rt, rt->allp[0], m0);
	rt->m0 = m0;
	rt->start_ns = plat_nanotime();
	rt_trace(rt, NULL, RT_TEV_PROCS, 0, -1, (uint64_t)rt->procs, 0);
	rt_trace(rt, NULL, RT_TEV_G_CREATE, main_g->goid, 0, 0, rt_trace_label(rt, main_g, false));
	rt_netpoll_start(rt);
	plat_rt_run(rt);
	if (__builtin_expect(rt->explore != NULL, 0))
		rt_explore_end(rt);
}

void rt_cut(struct rt *rt, int64_t t, enum rt_ended why)
{
	/* An M's clock may be ahead of t (it waits for the engine to reach
	 * it): collect_cpu counts each M's time up to the end only. */
	rt->ended = why;
	rt->end_ns = t;
}

/* The cpu breakdown from the Ms' states [proc: Where the time goes]: each
 * M's last state runs to the end of the run. */
static void collect_cpu(struct rt *rt, struct rt_result *r)
{
	struct rt_cpu_time *c = &r->cpu;
	memset(c, 0, sizeof(*c));
	int64_t end = rt->end_ns;
	if (!rt->timed || end <= rt->start_ns)
		return;   /* no clock was read for any of it, or the run never ended */
	c->span_ns = (uint64_t)(end - rt->start_ns);
	c->pus = rt->topo->npus;
	c->futex_measured = plat_futex_cpu_counted();
	uint64_t sched = 0;
	for (struct m *m = rt->allm; m; m = m->alllink) {
		if (m->mt_born < 0 || m->mt_born >= end)
			continue;   /* started after the end, or never */
		mt_move(m, m->mt, end, end);
		/* Natively an M may read the clock, then find the end not yet
		 * set and charge its state past it, by the few us the ender
		 * took between reading its clock and publishing the end: its
		 * life runs to what it counted. */
		c->lifetime_ns += (uint64_t)((m->mt_counted > end ? m->mt_counted : end) - m->mt_born);
		for (int k = 0; k < RT_CPU__COUNT; k++)
			c->ns[k] += m->stats.time_ns[k];
		for (int off = 0; off < 2; off++)
			for (int k = 0; k < RT_LOCK__COUNT; k++)
				c->lock_ns[off][k] += m->stats.lock_ns[off][k];
		c->futex_ns += m->stats.futex_ns;
		c->netpoll_ns += m->stats.netpoll_ns;
	}
	/* the Gs' own work is part of the Ms' default state */
	sched = c->ns[RT_CPU_SCHED];
	c->ns[RT_CPU_USER] = r->user_ns;
	c->ns[RT_CPU_SCHED] = sched > r->user_ns ? sched - r->user_ns : 0;
	for (int k = 0; k < RT_CPU__COUNT; k++)
		*(rt_cpu_off((enum rt_cpu)k) ? &c->off_ns : &c->on_ns) += c->ns[k];
	r->syscall_ns = c->ns[RT_CPU_SYSCALL];
	c->measured = true;
}

void rt_collect(struct rt *rt, struct rt_result *r)
{
	memset(r, 0, sizeof(*r));
	int64_t last_exit = rt->start_ns;
	r->goroutines = 1;
	for (struct m *m = rt->allm; m; m = m->alllink) {
		const struct m_stats *st = &m->stats;
		r->goroutines += st->gs_created;
		r->completed += st->gs_exited;
		r->runs += st->runs;
		r->blocks += st->gparks;
		if (st->last_exit_ns > last_exit)
			last_exit = st->last_exit_ns;
		hist_merge(&r->sched_latency, &st->sched_latency);
		r->user_ns += st->user_ns;
		r->preemptions += st->preempted;
		r->schedule_hash += st->sched_hash * (2 * (uint64_t)m->id + 1);
		r->steals.same_node += st->steals_same_node;
		r->steals.remote_node += st->steals_remote_node;
		r->steals.gs_stolen += st->gs_stolen;
		r->threads.parks += st->parks;
		r->threads.futex_calls += st->futex_calls;
		r->locality.migrations_core += st->migrations_core;
		r->locality.migrations_node += st->migrations_node;
		r->locality.stack_moves += st->stack_moves;
	}
	/* an untimed run knows only when it ended; a cut one, where */
	r->makespan_ns = (rt->timed && !rt->ended ? last_exit : rt->end_ns) - rt->start_ns;
	r->ended = rt->ended;
	collect_cpu(rt, r);
	plat_host(rt, &r->host);
	plat_os_stats(rt, &r->os);
	if (plat_mem_counters(rt, &r->locality.mem))
		r->locality.mem.measured = r->locality.mem.touches > 0;
	if (rt->body->collect)
		rt->body->collect(rt, r);
	r->deadlock = rt->deadlock;
	r->panicked = rt->panicked;
	if (rt->panicked && rt->panic_goid)
		snprintf(r->panic, sizeof(r->panic), "%s [goroutine %llu]", rt->panic_msg,
			 (unsigned long long)rt->panic_goid);
	else if (rt->panicked)   /* the runtime's own, on no goroutine (an M's limit) */
		snprintf(r->panic, sizeof(r->panic), "%s", rt->panic_msg);
	size_t used = 0;
	for (size_t i = 0; i < rt->nallg; i++) {
		const struct g *g = rt->allg[i];
		if (g->status != G_WAITING || g->sys_p)
			continue;
		r->nblocked++;
		if (used >= sizeof(r->blocked))
			continue;
		char where[sizeof(r->blocked)];
		rt->body->g_describe(rt, g, where, sizeof(where));
		int n = snprintf(r->blocked + used, sizeof(r->blocked) - used, "goroutine %llu [%s]: %s\n",
				 (unsigned long long)g->goid,
				 rt_wait_names[g->waitreason] ? rt_wait_names[g->waitreason] : "?", where);
		used += n > 0 ? (size_t)n : 0;
	}
	r->threads.created = rt->threads_created;
	r->retakes = rt->retakes;
	r->threads.wakeups = rt->wakeups;
}

size_t rt_draws(struct rt *rt, const struct rt_draw **out)
{
	if (!rt->body->draws) {
		*out = NULL;
		return 0;
	}
	return rt->body->draws(rt, out);
}

void rt_free(struct rt *rt)
{
	if (!rt)
		return;
	rt_trace_free(rt);
	if (rt->body_run)
		rt->body->run_free(rt);
	rt_netpoll_fini(rt);
	plat_rt_fini(rt);
	pol_free(rt);
	rt_mech_fini(rt);
	rt_why_fini(rt);
	for (size_t i = 0; i < rt->nallg; i++) {
		plat_g_free(rt, rt->allg[i]);
		free(rt->allg[i]->sel);
		free(rt->allg[i]->timer);
	}
	for (size_t i = 0; i < rt->ngslabs; i++)
		free(rt->gslabs[i]);
	free(rt->gslabs);
	free(rt->allg);
	for (int i = 0; i < rt->procs; i++) {
		free(rt->allp[i]->gslab_pending);
		plat_free(rt->allp[i]->runq, rt->choices.runq_size * sizeof(plat_ptr));
		free(rt->allp[i]->runqbatch);
		rt_timers_free(rt->allp[i]);
		free(rt->allp[i]);
	}
	free(rt->allp);
	for (struct m *m = rt->allm, *next; m; m = next) {
		next = m->alllink;
		free(m->why);
		free(m);
	}
	free(rt->sched.idlepmask);
	for (int i = 0; i < rt->sched.ngq; i++)
		free(rt->sched.gq[i].ring);
	free(rt->sched.gq);
	free(rt->sched.gfree);
	free(rt->knobs);
	free(rt);
}
