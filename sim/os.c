/* The OS beneath a simulated run [sim/os.h].
 *
 * The fair rule.  Linux 6.6 and later pick by EEVDF: among the threads
 * whose virtual runtime is at most the queue's average (eligible), the one
 * whose virtual deadline (its runtime when it was last given a slice, plus
 * the slice) comes first.  Every thread here weighs the same (nice 0) and
 * has the same slice, so the earliest deadline is the least virtual
 * runtime, and that one is always eligible: the pick is the least v, ties
 * to the earlier arrival.  With RUN_TO_PARITY (on by default) a woken
 * thread does not cut the holder's slice short, so a PU changes hands
 * when its holder sleeps or at the end of the holder's slice.  A thread
 * keeps its lag while asleep (PLACE_LAG): it comes back at the queue's
 * average less what it was owed, within two slices either way.
 *
 * Where a woken thread runs (select_task_rq_fair, simplified): the PU it
 * asks for if free, else the free PU nearest it (same core, core group,
 * package, then anywhere in the cpuset) -- Linux looks in the last-level
 * cache's domain at wake-up and lets idle balancing pull from farther
 * within a few ms; the model pulls at once -- else it waits on the PU it
 * asked for.  A PU left with nobody waiting pulls the nearest waiter that
 * may run there (newidle balancing).  No periodic balancing between busy
 * PUs, no cache-hot test (sched_migration_cost): see the doc.
 *
 * The quota (CFS bandwidth control): the process's threads together run
 * at most quota_ns per period_ns.  The model keeps one pool (the kernel
 * hands it to each CPU in 5 ms slices): when the threads holding PUs have
 * used it, every one of them is switched out at its next step (a running
 * computation at once) and all wait for the next period; what they ran
 * past the quota is owed from the next period's.  The period timer runs
 * only while the process uses CPU, as the kernel's does. */
#include "sim/os.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "topologies/topo.h"
#include "util/util.h"

struct os_pu {
	struct os *os;
	struct os_thread *cur;       /* holding it (maybe leaving: cur->leave_at) */
	struct os_thread *queue;     /* waiting for it, in arrival order */
	int nqueue;
	bool allowed;                /* in the process's cpuset */
	bool timer;                  /* a resched event is pending at timer_at */
	sim_time_t timer_at;
	double vzero;                /* its average virtual runtime when last busy */
};

struct os_load {
	struct os_thread th;
	struct os *os;
	int home;
};

struct os {
	struct sim_engine *eng;
	const struct topo *t;
	int npus;
	struct os_pu *pu;
	double cs_ns, slice_ns;
	uint64_t seq;
	/* the quota */
	int64_t quota_ns, period_ns;
	double used;                 /* CPU the process used this period, ns */
	sim_time_t acct_at;          /* used counts up to here */
	int nrun;                    /* the process's threads holding PUs */
	bool throttled, period_armed;
	sim_time_t throttled_since, period_at;   /* period_at: the last boundary passed */
	struct os_thread *parked;    /* held back by the quota */
	/* the other load */
	struct os_load *load;
	int nload;
	int64_t busy_ns, idle_ns;
	bool ended;                  /* the run is over: the load goes too */
	struct rt_os_stats st;
};

/* th starts or stops waiting: whoever follows it is told. */
static inline void waiting(struct os_thread *th, int wait, sim_time_t now)
{
	if (__builtin_expect(th->wait_hook != NULL, 0))
		th->wait_hook(th, wait, now);
}

/* ---- Virtual runtime ---- */

static double cur_v(const struct os_thread *th, sim_time_t now)
{
	sim_time_t end = th->leave_at && th->leave_at < now ? th->leave_at : now;
	return th->v + (double)(end - th->since);
}

/* The PU's average virtual runtime (its own zero when nobody is on it). */
static double pu_avg(const struct os_pu *pu, sim_time_t now)
{
	double sum = 0;
	int n = 0;
	if (pu->cur) {
		sum += cur_v(pu->cur, now);
		n++;
	}
	for (const struct os_thread *q = pu->queue; q; q = q->next, n++)
		sum += q->v;
	return n ? sum / n : pu->vzero;
}

static double clamp_lag(const struct os *os, double lag)
{
	double lim = 2 * os->slice_ns;
	return lag > lim ? lim : lag < -lim ? -lim : lag;
}

/* ---- The quota ---- */

static void acct(struct os *os, sim_time_t now)
{
	if (os->quota_ns && now > os->acct_at)
		os->used += (double)os->nrun * (double)(now - os->acct_at);
	os->acct_at = now;
}

static void exhaust_fire(struct sim_engine *eng, void *arg);
static void period_fire(struct sim_engine *eng, void *arg);

/* When the threads running now will have used the quota. */
static void arm_exhaust(struct os *os)
{
	if (!os->quota_ns || os->throttled || os->nrun == 0)
		return;
	double left = (double)os->quota_ns - os->used;
	sim_time_t now = sim_now(os->eng);
	sim_time_t at = now + (left > 0 ? (sim_time_t)ceil(left / os->nrun) : 0);
	sim_schedule(os->eng, at, exhaust_fire, os);
}

/* The next period boundary after now; periods the process sat out give
 * back what they would have. */
static void arm_period(struct os *os)
{
	if (!os->quota_ns || os->period_armed)
		return;
	sim_time_t now = sim_now(os->eng), p = (sim_time_t)os->period_ns;
	sim_time_t missed = (now - os->period_at) / p;
	os->period_at += missed * p;
	os->used = fmax(0, os->used - (double)missed * (double)os->quota_ns);
	os->period_armed = true;
	sim_schedule(os->eng, os->period_at + p, period_fire, os);
}

static void run_count(struct os *os, struct os_thread *th, int d)
{
	if (!th->process || !os->quota_ns)
		return;
	acct(os, sim_now(os->eng));
	os->nrun += d;
	if (d > 0)
		arm_period(os);
	arm_exhaust(os);
}

static void want_off(struct os_thread *th, sim_time_t now)
{
	if (th->want_off)
		return;
	th->want_off = true;
	if (th->cuttable)
		sim_wake(th->actor, now);
}

static void throttle(struct os *os, sim_time_t now)
{
	os->throttled = true;
	os->throttled_since = now;
	os->st.throttled_periods++;
	for (int i = 0; i < os->npus; i++) {
		struct os_pu *pu = &os->pu[i];
		/* the process's waiters wait for the period, not for the PU */
		for (struct os_thread **q = &pu->queue; *q;) {
			struct os_thread *th = *q;
			if (!th->process) {
				q = &th->next;
				continue;
			}
			*q = th->next;
			pu->nqueue--;
			th->queued = false;
			th->parked = true;
			th->next = os->parked;
			os->parked = th;
			waiting(th, OS_WAIT_QUOTA, now);
			sim_wake(th->actor, now);
		}
		if (pu->cur && pu->cur->process && !pu->cur->leave_at)
			want_off(pu->cur, now);
	}
}

static void exhaust_fire(struct sim_engine *eng, void *arg)
{
	struct os *os = arg;
	sim_time_t now = sim_now(eng);
	acct(os, now);
	/* a stale event (the running count changed since) finds quota left */
	if (!os->throttled && os->nrun > 0 && os->used >= (double)os->quota_ns - 0.5)
		throttle(os, now);
}

static void period_fire(struct sim_engine *eng, void *arg)
{
	struct os *os = arg;
	sim_time_t now = sim_now(eng);
	acct(os, now);
	os->period_at = now;
	os->period_armed = false;
	os->st.periods++;
	os->used = fmax(0, os->used - (double)os->quota_ns);
	if (os->throttled && os->used < (double)os->quota_ns) {
		os->throttled = false;
		os->st.throttled_ns += now - os->throttled_since;
		while (os->parked) {
			struct os_thread *th = os->parked;
			os->parked = th->next;
			th->parked = false;
			sim_wake(th->actor, now);
		}
	}
	if (os->nrun > 0 || os->throttled)
		arm_period(os);
	arm_exhaust(os);
}

/* ---- PUs ---- */

static void timer_fire(struct sim_engine *eng, void *arg);

static void arm_timer(struct os_pu *pu, sim_time_t at)
{
	if (pu->timer && pu->timer_at <= at && pu->timer_at >= sim_now(pu->os->eng))
		return;
	pu->timer = true;
	pu->timer_at = at;
	sim_schedule(pu->os->eng, at, timer_fire, pu);
}

static int pu_index(const struct os *os, const struct os_pu *pu)
{
	return (int)(pu - os->pu);
}

/* th's run on its PU up to t, counted in its virtual runtime and CPU. */
static void count_run(struct os *os, struct os_thread *th, sim_time_t t)
{
	double ran = (double)(t - th->since);
	th->v += ran;
	th->cpu_ns += (uint64_t)ran;
	if (!th->process)
		os->st.load_cpu_ns += (uint64_t)ran;
}

/* th leaves its PU's hold at t: its run is counted. */
static void off_cpu(struct os *os, struct os_thread *th, sim_time_t t)
{
	struct os_pu *pu = &os->pu[th->pu];
	count_run(os, th, t);
	pu->cur = NULL;
	double avg = pu_avg(pu, t);
	/* the average with th still in it: what th is owed, or owes */
	int n = pu->nqueue + 1;
	avg = (avg * (n - 1) + th->v) / n;
	th->vlag = clamp_lag(os, avg - th->v);
	pu->vzero = avg;
	th->last = th->pu;
	th->pu = -1;
	th->leave_at = 0;
	run_count(os, th, -1);
}

static void hand_over(struct os *os, struct os_pu *pu, sim_time_t now);

/* A holder whose sleep began by now lets go. */
static void settle(struct os *os, struct os_pu *pu, sim_time_t now)
{
	struct os_thread *cur = pu->cur;
	if (cur && cur->leave_at && cur->leave_at <= now) {
		off_cpu(os, cur, cur->leave_at);
		hand_over(os, pu, now);
	}
}

static void dequeue(struct os_pu *pu, struct os_thread *th)
{
	struct os_thread **q = &pu->queue;
	while (*q != th)
		q = &(*q)->next;
	*q = th->next;
	th->next = NULL;
	th->queued = false;
	pu->nqueue--;
}

static struct os_thread *least_v(const struct os_pu *pu, bool (*may)(const struct os *, const struct os_thread *, int), int at)
{
	struct os_thread *best = NULL;
	for (struct os_thread *q = pu->queue; q; q = q->next) {
		if (may && !may(pu->os, q, at))
			continue;
		if (!best || q->v < best->v || (q->v == best->v && q->seq < best->seq))
			best = q;
	}
	return best;
}

/* th holds pu from now (dequeued if it waited). */
static void hold(struct os *os, struct os_pu *pu, struct os_thread *th, sim_time_t now)
{
	if (th->queued)
		dequeue(pu, th);
	th->pu = pu_index(os, pu);
	th->run_delay_ns += now - th->since;
	th->since = now;
	th->slice_start = now;
	th->timeslices++;
	pu->cur = th;
	waiting(th, OS_WAIT_NONE, now);
	run_count(os, th, +1);
	if (pu->nqueue)
		arm_timer(pu, now + (sim_time_t)os->slice_ns);
}

static bool may_run(const struct os *os, const struct os_thread *th, int pu)
{
	return !th->process || os->pu[pu].allowed;
}

/* How near PU b is to PU a: 0 the same core, up to 3 another package. */
static int nearness(const struct os *os, int a, int b)
{
	return (int)topo_core_rel(os->t, os->t->pus[a].core, os->t->pus[b].core);
}

/* pu is free with nobody waiting: the nearest waiter elsewhere that may
 * run on it comes over (newidle balancing), its due kept. */
static struct os_thread *pull(struct os *os, struct os_pu *pu, sim_time_t now)
{
	int here = pu_index(os, pu);
	struct os_thread *best = NULL;
	struct os_pu *from = NULL;
	int best_near = 4;
	for (int i = 0; i < os->npus; i++) {
		struct os_pu *q = &os->pu[i];
		if (q == pu || !q->nqueue)
			continue;
		int near = nearness(os, here, i);
		if (near >= best_near)
			continue;
		struct os_thread *th = least_v(q, may_run, here);
		if (th) {
			best = th;
			from = q;
			best_near = near;
		}
	}
	if (!best)
		return NULL;
	double lag = clamp_lag(os, pu_avg(from, now) - best->v);
	dequeue(from, best);
	best->v = pu_avg(pu, now) - lag;
	return best;
}

/* pu is free: whoever comes first gets it. */
static void hand_over(struct os *os, struct os_pu *pu, sim_time_t now)
{
	assert(!pu->cur);
	struct os_thread *next = least_v(pu, NULL, 0);
	if (!next)
		next = pull(os, pu, now);
	if (!next)
		return;
	hold(os, pu, next, now);
	sim_wake(next->actor, now);
}

/* What the PU's holder and waiters do now: the holder's sleep begins, or
 * its slice ends and the fair rule says who goes on. */
static void resched(struct os *os, struct os_pu *pu)
{
	sim_time_t now = sim_now(os->eng);
	settle(os, pu, now);
	struct os_thread *cur = pu->cur;
	if (!cur) {
		hand_over(os, pu, now);
		return;
	}
	if (!pu->nqueue || cur->want_off)
		return;
	if (cur->leave_at) {
		arm_timer(pu, cur->leave_at);
		return;
	}
	sim_time_t end = cur->slice_start + (sim_time_t)os->slice_ns;
	if (now < end) {
		arm_timer(pu, end);
		return;
	}
	struct os_thread *w = least_v(pu, NULL, 0);
	if (w->v <= cur_v(cur, now)) {
		want_off(cur, now);
	} else {
		cur->slice_start = now;
		arm_timer(pu, now + (sim_time_t)os->slice_ns);
	}
}

static void timer_fire(struct sim_engine *eng, void *arg)
{
	struct os_pu *pu = arg;
	if (pu->timer && pu->timer_at <= sim_now(eng))
		pu->timer = false;
	resched(pu->os, pu);
}

/* ---- Threads ---- */

static bool pu_free(struct os *os, int i, sim_time_t now)
{
	struct os_pu *pu = &os->pu[i];
	settle(os, pu, now);
	return !pu->cur && !pu->nqueue;
}

/* The free PU nearest from (-1: none free); th's cpuset only. */
static int nearest_free(struct os *os, const struct os_thread *th, int from, sim_time_t now)
{
	int best = -1, best_near = 4;
	for (int i = 0; i < os->npus && best_near > 0; i++) {
		if (!may_run(os, th, i) || !pu_free(os, i, now))
			continue;
		int near = nearness(os, from, i);
		if (near < best_near) {
			best = i;
			best_near = near;
		}
	}
	return best;
}

/* The allowed PU with the fewest waiters, nearest from first. */
static int least_queued(struct os *os, const struct os_thread *th, int from)
{
	int best = -1;
	for (int i = 0; i < os->npus; i++) {
		if (!may_run(os, th, i))
			continue;
		if (best < 0 || os->pu[i].nqueue < os->pu[best].nqueue ||
		    (os->pu[i].nqueue == os->pu[best].nqueue &&
		     nearness(os, from, i) < nearness(os, from, best)))
			best = i;
	}
	return best;
}

static void enqueue(struct os *os, struct os_pu *pu, struct os_thread *th)
{
	th->seq = os->seq++;
	th->queued = true;
	th->next = NULL;
	struct os_thread **q = &pu->queue;
	while (*q)
		q = &(*q)->next;
	*q = th;
	pu->nqueue++;
	waiting(th, OS_WAIT_PU, sim_now(os->eng));
}

static void wait_turn(struct os_thread *th)
{
	while (th->pu < 0 && !th->parked)
		sim_block(th->actor);
}

double simp_os_enter(struct os *os, struct os_thread *th, int want)
{
	sim_time_t now = sim_now(os->eng);
	if (th->pu >= 0)   /* asleep since its lazy leave */
		settle(os, &os->pu[th->pu], now);
	assert(th->pu < 0 && "os_enter while holding a PU");
	th->since = now;
	double paid = 0;
	for (;;) {
		if (th->process && os->throttled) {
			if (!th->parked) {
				th->parked = true;
				th->next = os->parked;
				os->parked = th;
				waiting(th, OS_WAIT_QUOTA, now);
			}
			while (th->parked)
				sim_block(th->actor);
			paid = os->cs_ns;
			now = sim_now(os->eng);
		}
		if (want < 0 || want >= os->npus)
			want = th->last >= 0 ? th->last : 0;
		int at = may_run(os, th, want) && pu_free(os, want, now) ? want
			 : nearest_free(os, th, want, now);
		if (at >= 0) {
			if (at != want && th->process)
				os->st.elsewhere++;
			th->vlag = clamp_lag(os, th->vlag);
			th->v = pu_avg(&os->pu[at], now) - th->vlag;
			hold(os, &os->pu[at], th, now);
			return paid;
		}
		at = may_run(os, th, want) ? want : least_queued(os, th, want);
		struct os_pu *pu = &os->pu[at];
		th->v = pu_avg(pu, now) - th->vlag;
		enqueue(os, pu, th);
		resched(os, pu);
		wait_turn(th);
		now = sim_now(os->eng);
		if (th->pu >= 0)
			return os->cs_ns;
	}
}

bool simp_os_lazy_leave(const struct os *os)
{
	return !os->quota_ns;
}

void simp_os_leave(struct os *os, struct os_thread *th, sim_time_t at)
{
	sim_time_t now = sim_now(os->eng);
	struct os_pu *pu = &os->pu[th->pu];
	th->want_off = false;
	th->nvcsw++;
	if (at > now) {
		assert(simp_os_lazy_leave(os));
		th->leave_at = at;
		if (pu->nqueue)
			arm_timer(pu, at);
		return;
	}
	off_cpu(os, th, now);
	hand_over(os, pu, now);
}

double simp_os_step(struct os *os, struct os_thread *th)
{
	sim_time_t now = sim_now(os->eng);
	struct os_pu *pu = &os->pu[th->pu];
	th->want_off = false;
	if (th->process && os->throttled) {
		th->nivcsw++;
		int last = th->pu;
		off_cpu(os, th, now);
		hand_over(os, pu, now);
		return simp_os_enter(os, th, last);
	}
	/* back in the queue with its runtime counted: the least v goes on */
	count_run(os, th, now);
	th->since = now;
	struct os_thread *w = least_v(pu, NULL, 0);
	if (!w || th->v < w->v) {
		th->slice_start = now;
		if (pu->nqueue)
			arm_timer(pu, now + (sim_time_t)os->slice_ns);
		return 0;
	}
	th->nivcsw++;
	pu->cur = NULL;
	run_count(os, th, -1);
	th->pu = -1;
	enqueue(os, pu, th);
	hold(os, pu, w, now);
	sim_wake(w->actor, now);
	wait_turn(th);
	if (th->pu >= 0)
		return os->cs_ns;
	return simp_os_enter(os, th, pu_index(os, pu)) + os->cs_ns;
}

bool simp_os_move(struct os *os, struct os_thread *th, int to)
{
	if (th->pu == to)
		return true;
	sim_time_t now = sim_now(os->eng);
	if (to < 0 || to >= os->npus || !may_run(os, th, to) || !pu_free(os, to, now)) {
		if (th->process)
			os->st.stays++;
		return false;
	}
	struct os_pu *from = &os->pu[th->pu], *pu = &os->pu[to];
	count_run(os, th, now);
	double lag = clamp_lag(os, pu_avg(from, now) - th->v);
	from->cur = NULL;
	th->last = th->pu;
	th->v = pu_avg(pu, now) - lag;
	th->pu = to;
	th->since = now;
	th->slice_start = now;
	pu->cur = th;
	hand_over(os, from, now);
	return true;
}

double simp_os_yield(struct os *os, struct os_thread *th)
{
	struct os_pu *pu = &os->pu[th->pu];
	if (!pu->nqueue)
		return 0;
	/* sched_yield pushes its deadline a slice on: everyone waiting first */
	sim_time_t now = sim_now(os->eng);
	struct os_thread *w = least_v(pu, NULL, 0);
	double v = cur_v(th, now);
	th->v = (v > w->v ? v : w->v) + 1 - (double)(now - th->since);
	double paid = simp_os_step(os, th);
	th->nvcsw++;
	th->nivcsw--;
	return paid;
}

/* ---- The other load ---- */

/* Its threads hold a PU through their busy time, switched out as any. */
static void load_busy(struct os *os, struct os_thread *th, int64_t ns)
{
	while (ns > 0) {
		sim_time_t from = sim_now(os->eng);
		th->cuttable = true;
		sim_block_until(th->actor, from + (sim_time_t)ns);
		th->cuttable = false;
		ns -= (int64_t)(sim_now(os->eng) - from);
		if (os->ended)
			return;
		if (th->want_off)
			simp_os_step(os, th);
	}
}

static void load_main(struct sim_actor *self, void *arg)
{
	struct os_load *l = arg;
	struct os *os = l->os;
	simp_os_enter(os, &l->th, l->home);
	while (!os->ended) {
		load_busy(os, &l->th, os->busy_ns);
		if (os->idle_ns <= 0 || os->ended)
			continue;
		simp_os_leave(os, &l->th, sim_now(os->eng));
		l->th.cuttable = true;
		sim_block_until(self, sim_now(os->eng) + (sim_time_t)os->idle_ns);
		l->th.cuttable = false;
		if (os->ended)
			return;
		simp_os_enter(os, &l->th, l->home);
	}
	simp_os_leave(os, &l->th, sim_now(os->eng));
}

/* The run is over: the other load's threads stop now (the engine runs
 * until no event is left, and theirs would never end). */
void simp_os_end(struct os *os)
{
	if (os->ended)
		return;
	os->ended = true;
	for (int i = 0; i < os->nload; i++) {
		struct os_thread *th = &os->load[i].th;
		if (th->cuttable)
			sim_wake(th->actor, sim_now(os->eng));
	}
}

void simp_os_start_load(struct os *os)
{
	for (int i = 0; i < os->nload; i++) {
		struct os_load *l = &os->load[i];
		l->th.actor = sim_spawn(os->eng, "load", load_main, l, 0);
	}
}

/* ---- The run's OS ---- */

struct os *simp_os_new(struct sim_engine *eng, const struct topo *t, const struct rt_os *lim,
		  double context_switch_ns, double base_slice_ns)
{
	struct os *os = xcalloc(1, sizeof(*os));
	os->eng = eng;
	os->t = t;
	os->npus = t->npus;
	os->pu = xcalloc((size_t)t->npus, sizeof(*os->pu));
	for (int i = 0; i < t->npus; i++) {
		os->pu[i].os = os;
		os->pu[i].allowed = !lim->cpuset || lim->cpuset[i];
	}
	os->cs_ns = context_switch_ns;
	os->slice_ns = base_slice_ns;
	os->quota_ns = lim->quota_ns;
	os->period_ns = lim->period_ns;
	os->period_at = sim_now(eng);
	os->acct_at = sim_now(eng);
	os->nload = lim->load_threads;
	if (os->nload) {
		os->load = xcalloc((size_t)os->nload, sizeof(*os->load));
		os->busy_ns = (int64_t)llround(lim->load_duty * (double)lim->load_period_ns);
		os->idle_ns = lim->load_period_ns - os->busy_ns;
		for (int i = 0; i < os->nload; i++) {
			os->load[i].os = os;
			os->load[i].home = (t->npus - 1 - i % t->npus);
			simp_os_thread_init(&os->load[i].th, NULL, false);
		}
	}
	os->st.modelled = lim->quota_ns || lim->cpuset || lim->load_threads;
	return os;
}

void simp_os_free(struct os *os)
{
	if (!os)
		return;
	free(os->pu);
	free(os->load);
	free(os);
}

bool simp_os_allowed(const struct os *os, int pu)
{
	return os->pu[pu].allowed;
}

void simp_os_thread_init(struct os_thread *th, struct sim_actor *a, bool process)
{
	*th = (struct os_thread){ .actor = a, .pu = -1, .last = -1, .process = process };
}

bool simp_os_waiters(const struct os *os, int pu)
{
	return os->pu[pu].nqueue > 0;
}

void simp_os_collect_thread(struct os *os, const struct os_thread *th, sim_time_t t)
{
	struct rt_os_stats *s = &os->st;
	s->threads++;
	s->cpu_ns += th->cpu_ns;
	if (th->pu >= 0) {
		sim_time_t end = th->leave_at && th->leave_at < t ? th->leave_at : t;
		s->cpu_ns += end > th->since ? end - th->since : 0;
	}
	s->run_delay_ns += th->run_delay_ns;
	if (th->run_delay_ns > s->max_m_run_delay_ns)
		s->max_m_run_delay_ns = th->run_delay_ns;
	s->timeslices += th->timeslices;
	s->voluntary_switches += th->nvcsw;
	s->involuntary_switches += th->nivcsw;
	if (th->run_delay_ns || th->nivcsw)
		s->modelled = true;
}

const struct rt_os_stats *simp_os_counts(struct os *os, sim_time_t t)
{
	if (os->throttled) {
		os->st.throttled_ns += t - os->throttled_since;
		os->throttled_since = t;
	}
	if (os->st.stays || os->st.elsewhere)
		os->st.modelled = true;
	return &os->st;
}
