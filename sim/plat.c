/* Simulated platform: the out-of-line half of sim/plat.h.
 *
 * One simulated runtime runs at a time in a process (the engine is not
 * re-entrant), so the runtime being run is a file-level variable: the
 * contract's calls carry no runtime argument, as the native ones need
 * none.
 *
 * What each call costs (all from the topology's latency model; "wakeup"
 * is topo_wakeup_ns by the relation of the waker's PU to the PU the woken
 * M will run on, "wakeup on its PU" the same-core figure: a timer's
 * interrupt wakes the thread where it sleeps):
 *   atomic or lock-protected access  hw_line_access on its line
 *   futex wait                       the sleeper: futex_wait, then asleep
 *                                    until woken; the waker: futex_wake,
 *                                    and the sleeper runs wakeup later (on
 *                                    the PU of the P it is handed, if any)
 *   futex wait with a time-out       ... and if nobody wakes it: the
 *                                    time-out, timer_slack, then wakeup on
 *                                    its PU (Linux's hrtimer slack)
 *   starting a thread                the creator: thread_create; the new M
 *                                    starts wakeup after that
 *   G creation (newproc)             the creator: g_create
 *   G switch                         g_switch in, g_switch out
 *   a G's first run                  stack_acquire if no stack is free (a
 *                                    new one: natively a G takes its stack
 *                                    when it first runs, and reuses those
 *                                    given back)
 *   a G's exit                       g_exit
 *   an M taking a P whose PU another context_switch: the OS switches that
 *   M ran on last                    PU from one thread to another
 *   procyield(n)                     n * pause
 *   osyield                          syscall (nobody else wants the CPU:
 *                                    one M per P, one P per PU)
 *   usleep(us)                       syscall, us, timer_slack, then wakeup
 *                                    on its PU
 *   a G's system call of ns          syscall, ns, timer_slack, then wakeup
 *                                    on its PU: natively it is nanosleep(ns)
 *   netpoll wait with a time-out     syscall, then asleep until a break
 *                                    (the breaker: syscall; the poller runs
 *                                    wakeup later) or the time-out, then
 *                                    wakeup on its PU; no timer slack: the
 *                                    native poller's time-out is a timerfd,
 *                                    which Linux does not slacken */
#include "core/runtime.h"

#include <assert.h>
#include <math.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A sleeper on a futex: lives on the sleeping M's stack. */
struct simp_waiter {
	struct m *m;
	plat_u32 *addr;
	struct simp_waiter *next;
};

static struct rt *simp_rt;   /* the runtime being simulated */
/* Its exploration [core/explore.h], if it is explored: NULL otherwise,
 * and then each hook below is one predictable branch. */
static struct rt_explore *simp_x;

/* A latency-model figure as a whole number of ns of simulated time: the
 * model's figures are any non-negative number, and a sleep that is over
 * later than the run can last waits until the run is cut. */
static int64_t lat_ns(double ns)
{
	return ns < (double)RT_TIME_NEVER ? (int64_t)ns : RT_TIME_NEVER;
}

/* How late a timed sleep of m ends after its time: Linux's timer slack
 * (hrtimer_nanosleep and futex time-outs fire up to timer_slack_ns after
 * the time asked, so that timers can be batched, and a SCHED_OTHER thread
 * gets 50 us by default: prctl(2) PR_SET_TIMERSLACK), then the wake-up of
 * the thread on the PU it sleeps on. */
static int64_t timer_late_ns(const struct m *m)
{
	const struct topo_latency *lat = &m->rt->topo->lat;
	return rt_time_after(lat_ns(lat->timer_slack_ns), lat_ns(lat->wakeup_core_ns));
}

#define SIMP_M_STACK (256u * 1024u)

static inline struct m *cur_m(void)
{
	if (!simp_rt)
		return NULL;
	struct sim_actor *a = sim_current(simp_rt->plat.eng);
	return a ? a->user : NULL;
}

/* Lets every actor due before m's clock run, then brings the engine to it
 * [sim/plat.h]. */
static void sync_clock(struct m *m)
{
	struct sim_engine *eng = m->rt->plat.eng;
	sim_time_t t = (sim_time_t)m->plat.clock;
	if (t > sim_now(eng))
		sim_wait_until(m->plat.actor, t);
	else if (m->plat.clock < (double)sim_now(eng))
		m->plat.clock = (double)sim_now(eng);
}

/* m holds a PU again from now, after paid ns of being switched in. */
static void on_cpu(struct m *m, double paid)
{
	struct plat_rt *pr = &m->rt->plat;
	double now = (double)sim_now(pr->eng);
	/* a clock synced to now keeps its fraction of a nanosecond */
	if (m->plat.clock < now)
		m->plat.clock = now;
	m->plat.clock += paid;
	m->plat.cpu = m->plat.os.pu;
	if (paid > 0)
		pr->pu_m[m->plat.cpu] = m;
}

/* The OS wants m's PU [sim/os.h]: m waits its turn, then goes on. */
static __attribute__((noinline, cold)) void switched_out(struct m *m)
{
	on_cpu(m, simp_os_step(m->rt->plat.os, &m->plat.os));
}

/* sync_clock, then the OS's turn: where m may be switched out. */
static inline void sync_m(struct m *m)
{
	sync_clock(m);
	if (__builtin_expect(os_want_off(&m->plat.os), 0))
		switched_out(m);
}

/* m, woken, runs again: on want's PU if free, else where the OS finds one. */
static void wake_on_cpu(struct m *m, int want)
{
	on_cpu(m, simp_os_enter(m->rt->plat.os, &m->plat.os, want));
}

/* m sleeps from its clock's instant on: its PU is free from then.  No
 * sync where the OS may leave lazily: an event more would move later
 * ones' order among equal times (the quota counts every instant, so
 * there the engine is brought to the clock first). */
static void leave_cpu(struct m *m)
{
	struct os *os = m->rt->plat.os;
	if (!simp_os_lazy_leave(os))
		sync_clock(m);
	sim_time_t now = sim_now(m->rt->plat.eng), at = (sim_time_t)m->plat.clock;
	simp_os_leave(os, &m->plat.os, at > now ? at : now);
}

/* m, synced, sleeps from first ns on for ns more (a system call's sleep,
 * usleep): its PU is free meanwhile, and it wakes where it slept. */
static void sleep_off_cpu(struct m *m, double first, double ns)
{
	m->plat.clock += first;
	leave_cpu(m);
	m->plat.clock += ns;
	sync_clock(m);
	wake_on_cpu(m, m->plat.cpu);
}

/* ---- Exploration's perturbations [core/explore.h] ----
 * Every contract operation is a step, and a decision: the random strategy
 * delays it, with probability delay_per_mille, by up to delay_ns (so Ms
 * due meanwhile act first); PCT delays only the M that reaches one of its
 * change points, by delay_ns, and lowers its priority below every other
 * M's, which orders the engine's ties (explore_tie).  A sleep of sysmon or
 * of a thief's back-off, the poller's wait and a thread's start are steps
 * too, so when they act moves with the rest. */

static uint32_t pct_prio(struct rt_explore *x, uint32_t id)
{
	if (id >= RT_EXPLORE_MAX_M)
		return 1;
	if (!x->prio[id])   /* drawn above every change point's priority */
		x->prio[id] = (uint32_t)x->depth + 1 + (uint32_t)(rt_explore_rand(x) % 65536);
	return x->prio[id];
}

static uint32_t explore_tie(void *ctx, struct sim_actor *a)
{
	struct rt_explore *x = ctx;
	/* the higher an M's priority, the earlier; an empty window (schedule
	 * 0, the default one) draws no priorities */
	if (x->strategy == RT_EXPLORE_PCT)
		return a && x->limit > x->from ? (1u << (SIM_TIE_BITS - 1)) - pct_prio(x, a->id) : 0;
	uint64_t r = rt_explore_rand(x);
	if (r % 1000 >= 5u * x->delay_per_mille || !rt_explore_apply(x))
		return 0;
	return 1 + (uint32_t)(r >> 16) % ((1u << SIM_TIE_BITS) - 1);
}

static __attribute__((noinline, cold)) void perturb_op(struct m *m)
{
	struct rt_explore *x = simp_x;
	x->steps++;
	if (x->strategy == RT_EXPLORE_PCT) {
		if (x->next_change >= x->nchange || x->steps < x->change_at[x->next_change])
			return;
		int i = x->next_change++;
		if (!rt_explore_apply(x))
			return;
		uint32_t id = m->plat.actor ? m->plat.actor->id : 0;
		if (id < RT_EXPLORE_MAX_M)
			x->prio[id] = (uint32_t)(x->nchange - i);
		m->plat.clock += (double)x->delay_ns;
		return;
	}
	uint64_t r = rt_explore_rand(x);
	if (r % 1000 >= x->delay_per_mille || !rt_explore_apply(x))
		return;
	/* log-uniform from 1 ns to the bound: mostly a few ns to a few us (a
	 * cache miss, a lock's owner slowed), now and then as long as an OS
	 * time slice taken from the thread */
	double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);
	m->plat.clock += exp(u * log((double)x->delay_ns));
}

static inline void explore_op(struct m *m)
{
	if (__builtin_expect(simp_x != NULL, 0))
		perturb_op(m);
}

/* simp_access's one compare decides both whether the line is the model's
 * (unpriced) and whether the run is explored: lines at or above this are
 * looked at again -- only the model's normally, every line when
 * exploring -- so a normal run pays no instruction for the hook. */
static plat_line_t simp_line_slow = SIMP_LINE_MODEL;

/* Which PU the OS puts an M on: the random strategy moves it, now and
 * then, to any PU (the costs change, never what may happen). */
static __attribute__((noinline, cold)) int perturb_cpu(int cpu)
{
	struct rt_explore *x = simp_x;
	if (x->strategy != RT_EXPLORE_RANDOM)
		return cpu;
	uint64_t r = rt_explore_rand(x);
	if (r % 1000 >= 5u * x->delay_per_mille || !rt_explore_apply(x))
		return cpu;
	return (int)((r >> 16) % (uint64_t)simp_rt->topo->npus);
}

void simp_access(plat_line_t line, enum hw_access kind)
{
	struct m *m = cur_m();
	if (!m)
		return;
	if (__builtin_expect(line >= simp_line_slow, 0)) {
		if (line == SIMP_LINE_MODEL)
			return;
		perturb_op(m);
	}
	sync_m(m);
	m->plat.clock += hw_line_access(m->rt->plat.hw, m->plat.cpu, m->plat.clock, line, kind);
}

plat_line_t simp_line_new(struct rt *rt, int node)
{
	return hw_line_new(rt->plat.hw, node < 0 ? 0 : node);
}

void simp_spend(double ns)
{
	struct m *m = cur_m();
	if (m)
		m->plat.clock += ns;
}

/* A G's computation: the M sleeps through it, so that a preemption poke
 * (sim_wake) can cut it at the exact simulated time the flag was set. */
int64_t simp_work(int64_t ns, plat_u32 *stop)
{
	struct m *m = cur_m();
	if (!m || ns <= 0)
		return ns > 0 ? ns : 0;
	sync_m(m);
	if (stop->v)
		return 0;
	struct sim_engine *eng = m->rt->plat.eng;
	sim_time_t start = sim_now(eng);
	/* an expression's compute may be any int64_t: it is never over
	 * before the run is cut [runtime.h: Simulated time's arithmetic] */
	ns = rt_time_after((int64_t)start, ns) - (int64_t)start;
	m->plat.computing = m->curg;
	m->plat.work_start = start;
	int64_t done = 0;
	for (;;) {
		sim_time_t from = sim_now(eng);
		m->plat.os.cuttable = true;
		bool cut = sim_block_until(m->plat.actor, from + (sim_time_t)(ns - done));
		m->plat.os.cuttable = false;
		done += (int64_t)(sim_now(eng) - from);
		/* cut by the OS, not by a preemption: the G computes on once
		 * its M has a PU again */
		if (!cut || !os_want_off(&m->plat.os))
			break;
		switched_out(m);
		sync_clock(m);
		m->plat.work_start = sim_now(eng) - (sim_time_t)done;
		if (stop->v)
			break;
	}
	m->plat.computing = NULL;
	m->plat.clock = (double)sim_now(eng);
	return done;
}

void simp_preempt_poke(struct g *g)
{
	struct m *target = g->m;
	/* not while its M waits for a PU: it sees the flag once back */
	if (target && target->plat.computing == g && target->plat.os.cuttable)
		sim_wake(target->plat.actor, sim_now(target->rt->plat.eng));
}

void simp_syscall(int64_t ns)
{
	struct m *m = cur_m();
	if (!m)
		return;
	sync_m(m);
	/* natively the call is nanosleep(ns) (native/plat.c), a timed sleep */
	ns = rt_time_after(ns, timer_late_ns(m));
	ns = rt_time_after((int64_t)m->plat.clock, ns) - (int64_t)m->plat.clock;
	sleep_off_cpu(m, m->rt->topo->lat.syscall_ns, (double)ns);
}

/* ---- The workload's memory ---- */

bool simp_region_init(struct rt *rt, struct rt_region *r, int place, int node)
{
	static const enum hw_placement how[] = {
		[RT_PLACE_LOCAL] = HW_PLACE_NODE,
		[RT_PLACE_NODE] = HW_PLACE_NODE,
		[RT_PLACE_INTERLEAVE] = HW_PLACE_INTERLEAVE,
		[RT_PLACE_FIRST_TOUCH] = HW_PLACE_FIRST_TOUCH,
	};
	r->plat.id = hw_region_new(rt->plat.hw, r->bytes, how[place], node);
	return true;
}

/* The touch happens at the M's time, after every actor due before it, so
 * memory controllers and caches see accesses in simulated-time order. */
int64_t simp_touch(struct rt_region *r, uint64_t offset, uint64_t bytes, int pattern, bool write)
{
	static const enum hw_pattern how[] = {
		[RT_SEQUENTIAL] = HW_SEQUENTIAL,
		[RT_RANDOM] = HW_RANDOM,
		[RT_POINTER_CHASE] = HW_POINTER_CHASE,
	};
	struct m *m = cur_m();
	if (!m || bytes == 0)
		return 0;
	sync_m(m);
	double ns = hw_touch(m->rt->plat.hw, m->plat.cpu, m->plat.clock, r->plat.id, offset, bytes,
			     how[pattern], write);
	m->plat.clock += ns;
	return (int64_t)(ns + 0.5);
}

double simp_pause_ns(void)
{
	return simp_rt ? simp_rt->topo->lat.pause_ns : 0.0;
}

int64_t simp_nanotime(void)
{
	struct m *m = cur_m();
	if (m)
		return (int64_t)m->plat.clock;
	return simp_rt ? (int64_t)sim_now(simp_rt->plat.eng) : 0;
}

/* ---- Futex ---- */

/* The M's CPU from its clock to until, a kernel call's: the clock moves
 * there, and the span, up to the end of the run, counts in *ns_in (its
 * futex_ns or netpoll_ns). */
static void kernel_cpu_until(struct m *m, double until, uint64_t *ns_in)
{
	double from = m->plat.clock, to = until, end = (double)m->rt->end_ns;
	if (m->rt->end_ns) {
		from = from < end ? from : end;
		to = to < end ? to : end;
	}
	*ns_in += (uint64_t)((int64_t)to - (int64_t)from);
	m->plat.clock = until;
}

/* A futex call's price, from the M's clock on (plat_futex_cpu_counted). */
static void futex_cost(struct m *m, double ns)
{
	kernel_cpu_until(m, m->plat.clock + ns, &m->stats.futex_ns);
}

static struct simp_waiter **futexq(struct rt *rt, plat_line_t line)
{
	struct plat_rt *pr = &rt->plat;
	if (line >= pr->nfutexq) {
		size_t n = pr->nfutexq ? pr->nfutexq : 64;
		while (n <= line)
			n *= 2;
		pr->futexq = xrealloc(pr->futexq, n * sizeof(*pr->futexq));
		for (size_t i = pr->nfutexq; i < n; i++)
			pr->futexq[i] = NULL;
		pr->nfutexq = n;
	}
	return &pr->futexq[line];
}

static bool unlink_waiter(struct simp_waiter **q, struct simp_waiter *w)
{
	for (; *q; q = &(*q)->next) {
		if (*q == w) {
			*q = w->next;
			return true;
		}
	}
	return false;
}

void simp_futex_wait(plat_u32 *a, uint32_t val, int64_t timeout_ns)
{
	struct m *m = cur_m();
	assert(m && "futex wait outside an M");
	assert(a->line != SIMP_LINE_MODEL && "a model line's lock is never contended");
	struct rt *rt = m->rt;
	const struct topo_latency *lat = &rt->topo->lat;
	explore_op(m);
	sync_m(m);
	m->stats.futex_calls++;
	if (a->v != val) {
		futex_cost(m, lat->syscall_ns);
		return;
	}
	/* Queue first, at the moment the kernel would check the value; a
	 * wake-up that comes while we are still going to sleep is kept by the
	 * engine and ends the sleep at once. */
	struct simp_waiter w = { m, a, NULL }, **q = futexq(rt, a->line);
	while (*q)
		q = &(*q)->next;
	*q = &w;
	futex_cost(m, lat->futex_wait_ns);
	sync_clock(m);
	simp_os_leave(rt->plat.os, &m->plat.os, sim_now(rt->plat.eng));
	bool woken = true;
	if (timeout_ns < 0)
		sim_block(m->plat.actor);
	else
		woken = sim_block_until(m->plat.actor,
					(sim_time_t)rt_time_after((int64_t)sim_now(rt->plat.eng),
								  rt_time_after(timeout_ns, timer_late_ns(m))));
	/* Timed out -- unless a waker had already taken us off the queue: its
	 * wake is on its way, and must be received here rather than end some
	 * later block early. */
	if (!woken && !unlink_waiter(futexq(rt, a->line), &w))
		sim_block(m->plat.actor);
	m->plat.clock = (double)sim_now(rt->plat.eng);
	wake_on_cpu(m, m->plat.cpu);
}

void simp_futex_wake(plat_u32 *a, int n)
{
	struct m *m = cur_m();
	assert(m && "futex wake outside an M");
	struct rt *rt = m->rt;
	const struct topo_latency *lat = &rt->topo->lat;
	explore_op(m);
	sync_m(m);
	m->stats.futex_calls++;
	struct simp_waiter **q = futexq(rt, a->line);
	int woke = 0;
	while (*q && woke < n) {
		struct simp_waiter *w = *q;
		if (w->addr != a) {
			q = &w->next;
			continue;
		}
		*q = w->next;
		/* An M handed a P (startm) runs on that P's PU: the wake-up
		 * is priced there, where the OS will run it. */
		int to = w->m->nextp ? w->m->nextp->cpu : w->m->plat.cpu;
		double lag = topo_wakeup_ns(rt->topo, m->plat.cpu, to);
		sim_wake(w->m->plat.actor, (sim_time_t)(m->plat.clock + lag));
		woke++;
	}
	futex_cost(m, woke ? lat->futex_wake_ns : lat->syscall_ns);
}

/* ---- Time, spinning, place ---- */

void simp_osyield(void)
{
	struct m *m = cur_m();
	if (!m)
		return;
	sync_m(m);
	m->plat.clock += m->rt->topo->lat.syscall_ns;
	if (simp_os_waiters(m->rt->plat.os, m->plat.cpu)) {
		sync_clock(m);
		on_cpu(m, simp_os_yield(m->rt->plat.os, &m->plat.os));
	}
}

void simp_usleep(int64_t us)
{
	struct m *m = cur_m();
	if (!m)
		return;
	const struct topo_latency *lat = &m->rt->topo->lat;
	explore_op(m);
	sync_m(m);
	sleep_off_cpu(m, lat->syscall_ns, (double)us * 1000.0 + (double)timer_late_ns(m));
}

int simp_cpu(void)
{
	struct m *m = cur_m();
	return m ? m->plat.cpu : 0;
}

int simp_node(void)
{
	struct m *m = cur_m();
	if (!m)
		return 0;
	const struct topo *t = m->rt->topo;
	return t->cores[t->pus[m->plat.cpu].core].node;
}

/* The OS placement model runs an M holding a P on the P's PU.  When the
 * PU last ran another M -- a woken M takes a P that another let go of, a
 * new M starts on it, an M back from a system call finds its P run by
 * another meanwhile -- the OS switches the PU from one thread to the
 * other, and the M coming in pays for it (the wake-up's own latency covers
 * a thread coming back to the PU it left). */
void simp_set_cpu(int cpu)
{
	struct m *m = cur_m();
	if (!m)
		return;
	if (__builtin_expect(simp_x != NULL, 0))
		cpu = perturb_cpu(cpu);
	struct m **last = &m->rt->plat.pu_m[cpu];
	/* the OS keeps a thread where it runs if its P's PU is busy */
	if (!simp_os_move(m->rt->plat.os, &m->plat.os, cpu))
		return;
	if (*last && *last != m)
		m->plat.clock += m->rt->topo->lat.context_switch_ns;
	*last = m;
	m->plat.cpu = cpu;
}

/* ---- Ms and Gs ---- */

struct m *simp_self(void)
{
	return cur_m();
}

static void simp_mmain(struct sim_actor *self, void *arg)
{
	struct m *m = arg;
	(void)self;
	sync_clock(m);   /* thread creation is over */
	wake_on_cpu(m, m->plat.cpu);
	rt_mstart(m);
	if (plat_peek_u32(&m->rt->sched.done))
		simp_os_end(m->rt->plat.os);
	leave_cpu(m);
}

/* --why follows an M's waits for a PU and under the quota [core/why.c]. */
static void why_wait(struct os_thread *th, int wait, sim_time_t now)
{
	struct m *m = (struct m *)((char *)th - offsetof(struct m, plat.os));
	rt_why_m_os(m, wait == OS_WAIT_PU ? RT_WHY_OS_PU
		       : wait == OS_WAIT_QUOTA ? RT_WHY_OS_QUOTA : RT_WHY_OS_NONE, (int64_t)now);
}

void simp_newm(struct rt *rt, struct m *m)
{
	struct m *creator = cur_m();
	double start = (double)sim_now(rt->plat.eng);
	m->plat.cpu = m->nextp ? m->nextp->cpu : 0;
	if (creator) {
		explore_op(creator);
		sync_m(creator);
		creator->plat.clock += rt->topo->lat.thread_create_ns;
		/* the new thread is woken where it will run, as any other */
		start = creator->plat.clock + topo_wakeup_ns(rt->topo, creator->plat.cpu, m->plat.cpu);
	}
	m->plat.clock = start;
	char name[32];
	snprintf(name, sizeof(name), "M%d", m->id);
	m->plat.actor = sim_spawn(rt->plat.eng, name, simp_mmain, m, SIMP_M_STACK);
	m->plat.actor->user = m;
	simp_os_thread_init(&m->plat.os, m->plat.actor, true);
	if (rt->why)
		m->plat.os.wait_hook = why_wait;
}

void simp_g_init(struct g *g)
{
	struct m *creator = cur_m();
	g->plat.stack = false;
	if (creator)
		creator->plat.clock += creator->rt->topo->lat.g_create_ns;
}

/* As the native platform does: a stack at a G's first run, given back at
 * its exit [native/plat.c, Stacks].  A stack given back is used again, so
 * only a G that finds none free -- more Gs holding stacks than ever before
 * in the run -- pays for a new one (carving it and faulting its pages in:
 * 1.7 us on the machine calibrate measured, against 0.08 us for a reused
 * one).  Natively the free stacks are cached per M, so a run whose Gs
 * end on other Ms than they start on carves a few more than this. */
enum g_why simp_execute(struct m *m, struct g *g)
{
	const struct topo_latency *lat = &m->rt->topo->lat;
	struct plat_rt *pr = &m->rt->plat;
	explore_op(m);
	if (!g->plat.stack) {
		if (++pr->stacks_live > pr->stacks_made) {
			pr->stacks_made = pr->stacks_live;
			m->plat.clock += lat->stack_acquire_ns;
		}
		g->plat.stack = true;
	}
	m->plat.clock += lat->g_switch_ns;
	enum g_why why = rt_g_exec(m, g);
	if (why == G_EXIT) {
		m->plat.clock += lat->g_exit_ns;
		g->plat.stack = false;
		pr->stacks_live--;
	}
	m->plat.clock += lat->g_switch_ns;
	return why;
}

void simp_g_leave(void)
{
	fprintf(stderr, "schedlab: internal error: a simulated G has no stack to leave\n");
	abort();
}

/* ---- The network ---- */

/* An epoll_wait on no descriptors (the workload's arrivals are the
 * core's): the call's cost, then, if it may wait, sleep until the
 * time-out or a break. */
int simp_netpoll(struct rt *rt, int64_t timeout_ns, struct netpoll_event *ev, int max)
{
	struct m *m = cur_m();
	assert(m && "netpoll outside an M");
	struct sim_engine *eng = rt->plat.eng;
	explore_op(m);
	sync_m(m);
	m->plat.clock += rt->topo->lat.syscall_ns;
	sync_clock(m);
	(void)ev, (void)max;
	if (timeout_ns == 0)
		return 0;
	if (rt->plat.break_pending) {
		rt->plat.break_pending = false;
		return 0;
	}
	/* The time-out is a timerfd natively: no slack, only the wake-up --
	 * but Go's is epoll_wait's own (poll_ms), which the kernel slackens
	 * as it does any sleep of a normal thread. */
	int64_t late = lat_ns(rt->topo->lat.wakeup_core_ns);
	if (rt->choices.poll_ms && timeout_ns > 0)
		late += lat_ns(rt->topo->lat.timer_slack_ns);
	sim_time_t wake = timeout_ns > 0 ? (sim_time_t)rt_time_after((int64_t)sim_now(eng),
								     rt_time_after(timeout_ns, late))
					 : SIM_TIME_MAX;
	rt->plat.netpoller = m;
	rt->plat.netpoll_until = wake;
	simp_os_leave(rt->plat.os, &m->plat.os, sim_now(eng));
	if (wake == SIM_TIME_MAX)
		sim_block(m->plat.actor);
	else
		sim_block_until(m->plat.actor, wake);
	rt->plat.netpoller = NULL;
	rt->plat.break_pending = false;
	m->plat.clock = (double)sim_now(eng);
	wake_on_cpu(m, m->plat.cpu);
	return 0;
}

/* What a line last written by a PU taken at random costs pu to read:
 * where a ready event's epitem was written, by the softirq of the CPU
 * its packet came in on (receive-side scaling spreads them over all). */
static double epoll_c2c(struct rt *rt, int pu)
{
	struct plat_rt *pr = &rt->plat;
	const struct topo *t = rt->topo;
	if (!pr->epoll_c2c)
		pr->epoll_c2c = xcalloc((size_t)t->npus, sizeof(*pr->epoll_c2c));
	if (pr->epoll_c2c[pu] == 0) {
		double sum = 0;
		for (int q = 0; q < t->npus; q++)
			sum += topo_c2c_ns(t, t->pus[pu].core, t->pus[q].core);
		pr->epoll_c2c[pu] = sum / t->npus;
	}
	return pr->epoll_c2c[pu];
}

/* The kernel's copy of n ready events (ep_send_events, under ep->mtx):
 * after any poller ahead of this M, n x (os_ns.epoll_event, measured on a
 * host where the events were hot in its caches, plus the transfer of the
 * event's line from the PU that readied it).  Linux's mutex spins while
 * its owner runs, so the wait is CPU too; both count in the M's
 * netpoll_ns up to the end of the run, as its futex calls do. */
void simp_netpoll_took(struct rt *rt, int n)
{
	struct m *m = cur_m();
	if (!m || n <= 0 || rt->topo->lat.epoll_event_ns <= 0)
		return;
	explore_op(m);
	sync_m(m);
	double hold = (double)n * (rt->topo->lat.epoll_event_ns + epoll_c2c(rt, m->plat.cpu));
	struct plat_rt *pr = &rt->plat;
	double start = m->plat.clock > pr->epoll_free ? m->plat.clock : pr->epoll_free;
	pr->epoll_free = start + hold;
	kernel_cpu_until(m, start + hold, &m->stats.netpoll_ns);
	sync_clock(m);
}

void simp_netpoll_break(struct rt *rt)
{
	struct m *m = cur_m();
	if (m)
		sync_m(m);
	/* who polls is read after the sync: other Ms ran meanwhile */
	sim_time_t at = sim_now(rt->plat.eng);
	struct m *poller = rt->plat.netpoller;
	if (m) {
		/* natively a write to the poller's eventfd; the poller runs a
		 * wake-up later, as a futex sleeper does */
		if (poller)
			at = (sim_time_t)(m->plat.clock +
					  topo_wakeup_ns(rt->topo, m->plat.cpu, poller->plat.cpu));
		/* a wake-up due after the wait's own end does not delay it */
		if (poller && at > rt->plat.netpoll_until)
			at = rt->plat.netpoll_until;
		m->plat.clock += rt->topo->lat.syscall_ns;
	}
	/* Wake only an actor blocked in the poll: a wake kept for an actor
	 * that is not blocked would end its next block early, whatever it is. */
	if (poller && poller->plat.actor->state == SIM_ACTOR_BLOCKED)
		sim_wake(poller->plat.actor, at);
	else
		rt->plat.break_pending = true;
}

/* ---- The workload's memory, counted ---- */

/* The hardware model's counts of hw_touch, the workload's memory: the
 * scheduler's own lines are priced by hw_line_access and counted apart
 * (line_*), so they are not in these. */
bool simp_mem_counters(struct rt *rt, struct rt_mem *out)
{
	const struct hw_counters *c = hw_counters(rt->plat.hw);
	memset(out, 0, sizeof(*out));
	out->touches = c->touches;
	for (int l = 1; l <= TOPO_MAX_LEVEL; l++)
		out->cached += c->hits[l];
	out->cached += c->c2c;
	out->dram = c->dram;
	out->lines = out->cached + out->dram;
	out->nhops = rt->topo->max_hops + 1;
	for (int h = 0; h < out->nhops; h++)
		out->dram_by_hops[h] = c->dram_by_hops[h];
	return true;
}

bool simp_mem_matrix(struct rt *rt, uint64_t *lines, int *nhops, uint64_t *hop_lines,
		     double *hop_ns)
{
	const struct hw_counters *c = hw_counters(rt->plat.hw);
	size_t nn = (size_t)rt->topo->nnodes;
	memcpy(lines, c->dram_by_node, nn * nn * sizeof(*lines));
	*nhops = rt->topo->max_hops + 1;
	for (int h = 0; h < *nhops; h++) {
		hop_lines[h] = c->dram_by_hops[h];
		hop_ns[h] = c->dram_ns_by_hops[h];
	}
	return true;
}

/* ---- Runs ---- */

bool simp_rt_init(struct rt *rt, struct err *e)
{
	(void)e;
	rt->plat.eng = sim_engine_new();
	rt->plat.hw = hw_new(rt->topo);
	rt->plat.pu_m = xcalloc((size_t)rt->topo->npus, sizeof(*rt->plat.pu_m));
	rt->plat.os = simp_os_new(rt->plat.eng, rt->topo, &rt->os, rt->topo->lat.context_switch_ns,
			     topo_base_slice_ns(rt->topo));
	return true;
}

/* ---- Limits [docs/runtime.md, "Limits"] ----
 *
 * A run is cut where its simulated clock would pass rt->max_sim_ns (the
 * engine fires no event after it) or when it has taken rt->max_wall_ns of
 * real time: a watchdog thread sleeps that long, then stops the engine
 * (sim_stop, the engine's one call safe from another thread), so the cut
 * comes after at most one more event however long the events take, and
 * the dispatch loop pays nothing for it.  The engine then leaves every
 * actor where it was; the run's accounts are closed at the cut.
 *
 * The same thread wakes every rt->progress_ns, if set, to print how far
 * the simulated clock has come against its limit (it reads the clock
 * with sim_now_from_outside and changes nothing of the run). */

struct watchdog {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct timespec start, deadline;    /* CLOCK_MONOTONIC */
	struct sim_engine *eng;
	sim_time_t sim_start, sim_limit;
	int64_t progress_ns;
	bool redraw, printed;
	bool done, fired;
};

static struct timespec ts_add(struct timespec t, int64_t ns)
{
	t.tv_sec += (time_t)(ns / 1000000000);
	t.tv_nsec += (long)(ns % 1000000000);
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

static bool ts_before(struct timespec a, struct timespec b)
{
	return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* "simulated 1.25 s of 1 h (0.0%), 3.0 s elapsed" */
static void watchdog_progress(struct watchdog *w)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double el = (double)(now.tv_sec - w->start.tv_sec) + (double)(now.tv_nsec - w->start.tv_nsec) / 1e9;
	double sim = (double)(sim_now_from_outside(w->eng) - w->sim_start) / 1e9;
	double lim = (double)(w->sim_limit - w->sim_start) / 1e9;
	fprintf(stderr, "%sschedlab run: simulated %.3f s of the %.6g s limit (%.1f%%), %.1f s elapsed%s",
		w->redraw ? "\r" : "", sim, lim, lim > 0 ? 100 * sim / lim : 0, el,
		w->redraw ? "\033[K" : "\n");
	fflush(stderr);
	w->printed = true;
}

static void *watchdog_main(void *arg)
{
	struct watchdog *w = arg;
	pthread_mutex_lock(&w->mu);
	struct timespec tick = w->progress_ns ? ts_add(w->start, w->progress_ns) : w->deadline;
	while (!w->done) {
		struct timespec until = ts_before(tick, w->deadline) ? tick : w->deadline;
		if (pthread_cond_timedwait(&w->cv, &w->mu, &until) != ETIMEDOUT || w->done)
			continue;
		if (ts_before(until, w->deadline)) {
			watchdog_progress(w);
			tick = ts_add(tick, w->progress_ns);
			continue;
		}
		w->fired = true;
		sim_stop(w->eng);
		break;
	}
	if (w->printed && w->redraw)
		fprintf(stderr, "\r\033[K");
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static void watchdog_start(struct watchdog *w, struct sim_engine *eng, const struct rt *rt,
			   sim_time_t limit)
{
	memset(w, 0, sizeof(*w));
	w->eng = eng;
	w->sim_start = (sim_time_t)rt->start_ns;
	w->sim_limit = limit;
	w->progress_ns = rt->progress_ns;
	w->redraw = rt->progress_redraw;
	clock_gettime(CLOCK_MONOTONIC, &w->start);
	w->deadline = ts_add(w->start, rt->max_wall_ns);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&w->mu, NULL);
	int rc = pthread_create(&w->thread, NULL, watchdog_main, w);
	if (rc != 0) {
		fprintf(stderr, "schedlab: cannot start the wall-clock watchdog: %s\n", strerror(rc));
		exit(3);
	}
}

/* Whether it fired. */
static bool watchdog_stop(struct watchdog *w)
{
	pthread_mutex_lock(&w->mu);
	w->done = true;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	return w->fired;
}

/* Closes what each M was in the middle of at t: a G's computation (a
 * system call is an M state, closed by the core's accounts); then the
 * core's accounts. */
static void cut_run(struct rt *rt, sim_time_t t, enum rt_ended why)
{
	for (struct m *m = rt->allm; m; m = m->alllink) {
		if (m->plat.computing && t > m->plat.work_start)
			rt_account_user(m, m->plat.computing, (int64_t)(t - m->plat.work_start));
	}
	rt_cut(rt, (int64_t)t, why);
}

static bool watchdog_fired(struct watchdog *w)
{
	pthread_mutex_lock(&w->mu);
	bool fired = w->fired;
	pthread_mutex_unlock(&w->mu);
	return fired;
}

/* --schedtrace [core/schedtrace.c]: the run is made in legs, each up to
 * the next snapshot's time, and the snapshot printed between two legs,
 * with no actor running.  No event is added and no access priced, so the
 * run's events fire in the same (time, seq) order with the same sequence
 * numbers as in one leg, and the report is byte-identical; only the
 * engine's own context-switch count differs (a leg ends on the main
 * stack).  Snapshots at D, 2D, ... while the run is not over, as Go's
 * sysmon prints every D while the program runs.  True if the watchdog
 * cut the run (the caller must not run on). */
static bool run_schedtrace(struct rt *rt, struct watchdog *wd, sim_time_t limit)
{
	struct sim_engine *eng = rt->plat.eng;
	if (rt->schedtrace_ns <= 0)
		return false;
	sim_time_t start = (sim_time_t)rt->start_ns, d = (sim_time_t)rt->schedtrace_ns;
	/* "SCHED 0ms" first, as Go's sysmon prints at its first round: once
	 * what the run's first instant starts has started */
	sim_run_until(eng, start);
	if (watchdog_fired(wd))
		return true;
	if (!plat_peek_u32(&rt->sched.done) && sim_pending(eng) > 0)
		rt_schedtrace(rt, 0, stderr);
	for (sim_time_t t = start + d; t < limit; t += d) {
		sim_run_until(eng, t);
		if (watchdog_fired(wd))
			return true;
		if (plat_peek_u32(&rt->sched.done) || sim_pending(eng) == 0)
			break;
		rt_schedtrace(rt, (int64_t)(t - start), stderr);
		if (limit - t <= d)
			break;
	}
	return false;
}

void simp_rt_run(struct rt *rt)
{
	assert(!simp_rt && "one simulated runtime at a time");
	struct sim_engine *eng = rt->plat.eng;
	simp_rt = rt;
	simp_x = rt->explore;
	if (simp_x) {
		sim_set_tiebreak(eng, explore_tie, simp_x);
		simp_line_slow = 0;
	}
	simp_newm(rt, rt->m0);
	simp_os_start_load(rt->plat.os);
	struct watchdog wd;
	sim_time_t limit = (sim_time_t)rt->start_ns + (sim_time_t)rt->max_sim_ns;
	watchdog_start(&wd, eng, rt, limit);
	if (!run_schedtrace(rt, &wd, limit))
		sim_run_until(eng, limit);
	bool fired = watchdog_stop(&wd);
	/* Over by itself (done: completed, deadlocked or panicked), or cut --
	 * unless nothing is left to fire: every M asleep with nothing to wake
	 * it, and the core never saw the end.  That is the core's to find
	 * (checkdead); such a run is reported as it always was, not as cut. */
	if (!plat_peek_u32(&rt->sched.done) && (fired || sim_pending_live(eng) > 0))
		cut_run(rt, fired ? sim_now(eng) : limit,
			fired ? RT_ENDED_WALL_TIME : RT_ENDED_SIM_TIME);
	simp_rt = NULL;
	simp_x = NULL;
	simp_line_slow = SIMP_LINE_MODEL;
}

void simp_rt_halt(struct rt *rt)
{
	sim_stop(rt->plat.eng);
}

void simp_rt_fini(struct rt *rt)
{
	sim_engine_free(rt->plat.eng);
	hw_free(rt->plat.hw);
	free(rt->plat.futexq);
	free(rt->plat.pu_m);
	free(rt->plat.epoll_c2c);
	simp_os_free(rt->plat.os);
}

void simp_os_stats(struct rt *rt, struct rt_os_stats *out)
{
	struct os *os = rt->plat.os;
	sim_time_t t = sim_now(rt->plat.eng);
	for (struct m *m = rt->allm; m; m = m->alllink)
		simp_os_collect_thread(os, &m->plat.os, t);
	*out = *simp_os_counts(os, t);
}
