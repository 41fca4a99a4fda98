/* Calibration of the OS costs: futex wake-to-run latency by the relation
 * of the two PUs, the futex calls' own costs, a trivial system call,
 * thread creation, sleep overshoot, sched_yield, the thread context
 * switch, PAUSE, epoll_wait's cost per ready event. */
#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "calib/calib.h"
#include "calib/pairs.h"

static long futex(_Atomic uint32_t *a, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, (uint32_t *)a, op | FUTEX_PRIVATE_FLAG, val, ts, NULL, 0);
}

/* ---- Futex ping-pong ----
 * Two threads bound to two PUs (or both to one) wake each other in turn.
 * The waker notes the time, sets the other's word and calls FUTEX_WAKE;
 * the woken thread notes when it runs.  A half-round whose wake found no
 * sleeper (the other thread had not gone to sleep yet) is not a sample. */

#define PP_MAX 8192
#define PP_CHUNK 16

struct pingpong {
	hwloc_topology_t hw;
	unsigned pu[2];
	struct cal_budget b;
	_Atomic uint32_t word[2];
	_Atomic int64_t t_wake;
	_Atomic int k;             /* the half-round being woken */
	_Atomic int stop;
	bool bound[2];
	double lat[PP_MAX];        /* by half-round, written by the woken thread */
	bool valid[PP_MAX];        /* by half-round, written by the waker */
	double call[PP_MAX];       /* the waker's FUTEX_WAKE call */
	struct cal_samples cycle_cpu[2]; /* CPU per wake+wait cycle, per chunk */
};

struct pp_arg {
	struct pingpong *pp;
	int me;
};

static void *pp_main(void *p)
{
	struct pp_arg *a = p;
	struct pingpong *pp = a->pp;
	int me = a->me, other = 1 - me;
	pp->bound[me] = cal_bind_pu(pp->hw, pp->pu[me]);
	int cycles = 0;
	int64_t cpu0 = cal_thread_cpu();
	bool first = me == 0;
	for (;;) {
		if (!first) {
			while (atomic_load_explicit(&pp->word[me], memory_order_acquire) == 0)
				futex(&pp->word[me], FUTEX_WAIT, 0, NULL);
			int64_t t1 = cal_now();
			atomic_store_explicit(&pp->word[me], 0, memory_order_relaxed);
			int k = atomic_load(&pp->k);
			pp->lat[k] = (double)(t1 - atomic_load(&pp->t_wake));
			if (atomic_load(&pp->stop))
				break;
		}
		first = false;
		int k = atomic_load(&pp->k) + 1;
		bool last = !cal_more(&pp->b, k / 2) || k >= PP_MAX - 1;
		if (last)
			atomic_store(&pp->stop, 1);
		atomic_store(&pp->k, k);
		int64_t t0 = cal_now();
		atomic_store(&pp->t_wake, t0);
		atomic_store_explicit(&pp->word[other], 1, memory_order_release);
		long woke = futex(&pp->word[other], FUTEX_WAKE, 1, NULL);
		int64_t t2 = cal_now();
		pp->valid[k] = woke == 1;
		pp->call[k] = (double)(t2 - t0);
		if (last)
			break;
		if (++cycles % PP_CHUNK == 0) {
			int64_t cpu1 = cal_thread_cpu();
			cal_add(&pp->cycle_cpu[me], (double)(cpu1 - cpu0) / PP_CHUNK);
			cpu0 = cpu1;
		}
	}
	cal_thread_done();
	return NULL;
}

struct pp_result {
	struct cal_stat lat, call, cycle_cpu;
	bool bound;
};

static bool pingpong(struct cal_ctx *c, unsigned pu_a, unsigned pu_b, int min, int max,
		     struct pp_result *r, struct err *e)
{
	struct pingpong *pp = xcalloc(1, sizeof(*pp));
	pp->hw = c->hw;
	pp->pu[0] = pu_a;
	pp->pu[1] = pu_b;
	pp->b = cal_budget(c, min, max);
	/* this pair's share of the phase */
	int64_t left = pp->b.deadline - cal_now();
	pp->b.deadline = cal_now() + (left > 0 ? left / 4 : 0);
	pthread_t th[2];
	struct pp_arg args[2] = { { pp, 0 }, { pp, 1 } };
	if (pthread_create(&th[1], NULL, pp_main, &args[1]) != 0) {
		free(pp);
		err_set(e, "calibrate: cannot start a thread: %s", strerror(errno));
		return false;
	}
	/* let the second thread reach its first wait before the first wake */
	struct timespec ms = { 0, 2000000 };
	nanosleep(&ms, NULL);
	if (pthread_create(&th[0], NULL, pp_main, &args[0]) != 0) {
		atomic_store(&pp->stop, 1);
		atomic_store(&pp->word[1], 1);
		futex(&pp->word[1], FUTEX_WAKE, 1, NULL);
		pthread_join(th[1], NULL);
		free(pp);
		err_set(e, "calibrate: cannot start a thread: %s", strerror(errno));
		return false;
	}
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	struct cal_samples lat = { 0 }, call = { 0 }, cyc = { 0 };
	int kmax = atomic_load(&pp->k);
	for (int k = 1; k <= kmax; k++) {
		if (!pp->valid[k])
			continue;
		cal_add(&lat, pp->lat[k]);
		cal_add(&call, pp->call[k]);
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < pp->cycle_cpu[i].n; j++)
			cal_add(&cyc, pp->cycle_cpu[i].v[j]);
	cal_summarize(&lat, &r->lat);
	cal_summarize(&call, &r->call);
	cal_summarize(&cyc, &r->cycle_cpu);
	r->bound = pp->bound[0] && pp->bound[1];
	cal_samples_free(&lat);
	cal_samples_free(&call);
	cal_samples_free(&cyc);
	cal_samples_free(&pp->cycle_cpu[0]);
	cal_samples_free(&pp->cycle_cpu[1]);
	free(pp);
	return true;
}

/* ---- One bound thread running a probe ---- */

struct on_pu {
	hwloc_topology_t hw;
	unsigned pu;
	void (*fn)(struct cal_ctx *c, void *arg);
	struct cal_ctx *c;
	void *arg;
};

static void *on_pu_main(void *p)
{
	struct on_pu *o = p;
	cal_bind_pu(o->hw, o->pu);
	o->fn(o->c, o->arg);
	cal_thread_done();
	return NULL;
}

static bool run_on_pu(struct cal_ctx *c, unsigned pu, void (*fn)(struct cal_ctx *, void *),
		      void *arg, struct err *e)
{
	struct on_pu o = { c->hw, pu, fn, c, arg };
	pthread_t th;
	if (pthread_create(&th, NULL, on_pu_main, &o) != 0) {
		err_set(e, "calibrate: cannot start a thread: %s", strerror(errno));
		return false;
	}
	pthread_join(th, NULL);
	return true;
}

/* ---- A trivial system call, sched_yield alone, PAUSE ---- */

struct loop_costs {
	struct cal_stat syscall, yield, pause;
};

static void loop_probe(struct cal_ctx *c, void *arg)
{
	struct loop_costs *r = arg;
	struct cal_samples sc = { 0 }, y = { 0 }, pz = { 0 };
	struct cal_budget b = cal_budget(c, 50, 400);
	for (int n = 0; cal_more(&b, n); n++) {
		int64_t t0 = cal_now();
		for (int i = 0; i < 200; i++)
			syscall(SYS_getppid);
		int64_t t1 = cal_now();
		for (int i = 0; i < 200; i++)
			sched_yield();
		int64_t t2 = cal_now();
		for (int i = 0; i < 1000; i++)
			__builtin_ia32_pause();
		int64_t t3 = cal_now();
		cal_add(&sc, (double)(t1 - t0) / 200);
		cal_add(&y, (double)(t2 - t1) / 200);
		cal_add(&pz, (double)(t3 - t2) / 1000);
	}
	cal_summarize(&sc, &r->syscall);
	cal_summarize(&y, &r->yield);
	cal_summarize(&pz, &r->pause);
	cal_method(&r->syscall, "getppid(2) through syscall(2), batches of 200 on one bound thread");
	cal_method(&r->yield, "sched_yield(2) with nothing else runnable on its PU, batches of 200");
	cal_method(&r->pause, "PAUSE instructions, batches of 1000");
	cal_samples_free(&sc);
	cal_samples_free(&y);
	cal_samples_free(&pz);
}

/* ---- epoll_wait's cost per ready event ----
 * EPOLL_EVENTS eventfds in one epoll instance, edge-triggered as Go
 * registers its descriptors; each sample readies all of them, or one,
 * and times the epoll_wait that takes what is ready: the difference over
 * EPOLL_EVENTS - 1 is what each more event costs the call (ep_send_events'
 * walk and copy, under the instance's mutex).  Readying is not timed. */

#define EPOLL_EVENTS 128

struct epoll_cost {
	struct cal_stat per_event;
	bool ok;
};

static void epoll_probe(struct cal_ctx *c, void *arg)
{
	struct epoll_cost *r = arg;
	int ep = epoll_create1(EPOLL_CLOEXEC), fd[EPOLL_EVENTS];
	int made = 0;
	r->ok = false;
	if (ep < 0)
		return;
	for (; made < EPOLL_EVENTS; made++) {
		fd[made] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		struct epoll_event e = { .events = EPOLLIN | EPOLLET, .data.u32 = (uint32_t)made };
		if (fd[made] < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd[made], &e) != 0) {
			if (fd[made] >= 0)
				close(fd[made]);
			goto out;
		}
	}
	struct epoll_event ev[EPOLL_EVENTS];
	struct cal_samples s = { 0 };
	struct cal_budget b = cal_budget(c, 50, 400);
	for (int n = 0; cal_more(&b, n); n++) {
		double t[2];
		for (int k = 0; k < 2; k++) {
			int want = k ? EPOLL_EVENTS : 1;
			uint64_t one = 1;
			for (int i = 0; i < want; i++)
				if (write(fd[i], &one, sizeof(one)) != sizeof(one))
					goto done;
			int64_t t0 = cal_now();
			int got = epoll_wait(ep, ev, EPOLL_EVENTS, 0);
			t[k] = (double)(cal_now() - t0);
			if (got != want)
				goto done;
		}
		cal_add(&s, (t[1] - t[0]) / (EPOLL_EVENTS - 1));
	}
done:
	cal_summarize(&s, &r->per_event);
	cal_method(&r->per_event, "epoll_wait taking %d ready edge-triggered eventfds against "
		   "taking 1, on one bound thread: the difference over %d", EPOLL_EVENTS,
		   EPOLL_EVENTS - 1);
	r->ok = s.n > 0;
	cal_samples_free(&s);
out:
	for (int i = 0; i < made; i++)
		close(fd[i]);
	close(ep);
}

/* ---- Thread context switch: two threads yielding on one PU ----
 * Each thread yields in chunks of 64; a chunk's CPU time less 64 lone
 * yields, over the switches the thread made meanwhile (getrusage), is the
 * cost of a switch. */

struct cs_shared {
	hwloc_topology_t hw;
	unsigned pu;
	struct cal_budget b;
	double yield_ns;
	_Atomic int go;
	_Atomic int done;
	struct cal_samples s[2];
};

struct cs_arg {
	struct cs_shared *sh;
	int me;
};

static void *cs_main(void *p)
{
	struct cs_arg *a = p;
	struct cs_shared *sh = a->sh;
	cal_bind_pu(sh->hw, sh->pu);
	atomic_fetch_add(&sh->go, 1);
	while (atomic_load(&sh->go) < 2)
		sched_yield();
	for (int n = 0; !atomic_load(&sh->done); n++) {
		struct rusage r0, r1;
		getrusage(RUSAGE_THREAD, &r0);
		int64_t c0 = cal_thread_cpu();
		for (int i = 0; i < 64; i++)
			sched_yield();
		int64_t c1 = cal_thread_cpu();
		getrusage(RUSAGE_THREAD, &r1);
		long sw = (r1.ru_nvcsw - r0.ru_nvcsw) + (r1.ru_nivcsw - r0.ru_nivcsw);
		if (sw > 0) {
			double v = ((double)(c1 - c0) - 64 * sh->yield_ns) / (double)sw;
			if (v > 0)
				cal_add(&sh->s[a->me], v);
		}
		if (a->me == 0 && !cal_more(&sh->b, sh->s[0].n))
			atomic_store(&sh->done, 1);
	}
	cal_thread_done();
	return NULL;
}

static bool context_switch(struct cal_ctx *c, unsigned pu, double yield_ns, struct cal_stat *out,
			   struct err *e)
{
	struct cs_shared sh = { .hw = c->hw, .pu = pu, .yield_ns = yield_ns };
	sh.b = cal_budget(c, 40, 400);
	int64_t left = sh.b.deadline - cal_now();
	sh.b.deadline = cal_now() + (left > 0 ? left / 3 : 0);
	pthread_t th[2];
	struct cs_arg args[2] = { { &sh, 0 }, { &sh, 1 } };
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, cs_main, &args[i]) != 0) {
			atomic_store(&sh.go, 2);
			atomic_store(&sh.done, 1);
			if (i)
				pthread_join(th[0], NULL);
			err_set(e, "calibrate: cannot start a thread: %s", strerror(errno));
			return false;
		}
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	struct cal_samples all = { 0 };
	for (int i = 0; i < 2; i++) {
		for (int j = 0; j < sh.s[i].n; j++)
			cal_add(&all, sh.s[i].v[j]);
		cal_samples_free(&sh.s[i]);
	}
	cal_summarize(&all, out);
	cal_samples_free(&all);
	cal_method(out, "two threads bound to PU %u calling sched_yield(2): CPU time per switch "
		   "(getrusage RUSAGE_THREAD) less a lone yield", pu);
	return true;
}

/* ---- Thread creation ---- */

static _Atomic int64_t started_at;

static void *empty_thread(void *p)
{
	(void)p;
	atomic_store(&started_at, cal_now());
	cal_thread_done();
	return NULL;
}

struct create_costs {
	struct cal_stat create, to_run;
};

static void create_probe(struct cal_ctx *c, void *arg)
{
	struct create_costs *r = arg;
	struct cal_samples cr = { 0 }, run = { 0 };
	struct cal_budget b = cal_budget(c, 30, 300);
	int64_t left = b.deadline - cal_now();
	b.deadline = cal_now() + (left > 0 ? left / 3 : 0);
	for (int n = 0; cal_more(&b, n); n++) {
		pthread_t th;
		atomic_store(&started_at, 0);
		int64_t t0 = cal_now();
		if (pthread_create(&th, NULL, empty_thread, NULL) != 0)
			break;
		int64_t t1 = cal_now();
		pthread_join(th, NULL);
		cal_add(&cr, (double)(t1 - t0));
		cal_add(&run, (double)(atomic_load(&started_at) - t0));
	}
	cal_summarize(&cr, &r->create);
	cal_summarize(&run, &r->to_run);
	cal_method(&r->create, "pthread_create(3) call of a thread that returns at once, as its creator pays it");
	cal_method(&r->to_run, "from pthread_create(3) until the new thread runs");
	cal_samples_free(&cr);
	cal_samples_free(&run);
}

/* ---- Sleep overshoot ----
 * nanosleep and a futex wait with a timeout, for several asked durations,
 * taken in turn so that a change of load touches every point alike. */

static const int64_t asked_ns[] = { 1000, 10000, 30000, 100000, 1000000 };
#define NASKED ((int)(sizeof(asked_ns) / sizeof(asked_ns[0])))

struct sleep_costs {
	struct cal_stat nano[NASKED], fut[NASKED];
	struct cal_samples over; /* overshoots at asked >= 10 us, both kinds */
};

static void sleep_probe(struct cal_ctx *c, void *arg)
{
	struct sleep_costs *r = arg;
	struct cal_samples nano[NASKED] = { { 0 } }, fut[NASKED] = { { 0 } };
	struct cal_budget b = cal_budget(c, 20, 300);
	int64_t left = b.deadline - cal_now();
	b.deadline = cal_now() + (left > 0 ? left / 2 : 0);
	_Atomic uint32_t word = 0;
	for (int n = 0; cal_more(&b, n); n++) {
		for (int i = 0; i < NASKED; i++) {
			struct timespec ts = { asked_ns[i] / 1000000000, asked_ns[i] % 1000000000 };
			int64_t t0 = cal_now();
			nanosleep(&ts, NULL);
			int64_t t1 = cal_now();
			futex(&word, FUTEX_WAIT, 0, &ts);
			int64_t t2 = cal_now();
			double o1 = (double)(t1 - t0 - asked_ns[i]), o2 = (double)(t2 - t1 - asked_ns[i]);
			cal_add(&nano[i], o1);
			cal_add(&fut[i], o2);
			if (asked_ns[i] >= 10000) {
				cal_add(&r->over, o1);
				cal_add(&r->over, o2);
			}
		}
		cal_progress_step(&c->prog, 0.5 + 0.3 * n / b.max);
	}
	for (int i = 0; i < NASKED; i++) {
		cal_summarize(&nano[i], &r->nano[i]);
		cal_summarize(&fut[i], &r->fut[i]);
		cal_method(&r->nano[i], "nanosleep(2) of %lld ns: elapsed less asked",
			   (long long)asked_ns[i]);
		cal_method(&r->fut[i], "FUTEX_WAIT timing out after %lld ns: elapsed less asked",
			   (long long)asked_ns[i]);
		cal_samples_free(&nano[i]);
		cal_samples_free(&fut[i]);
	}
}

/* ---- Going to sleep on a futex ----
 * A and B on one PU.  A notes the time and calls FUTEX_WAIT; B, runnable
 * meanwhile and yielding, gets the PU once A sleeps and notes how long
 * that took (A's wait call up to its sleep, and the switch), then wakes A
 * and yields the PU back to it. */

struct sleeper {
	hwloc_topology_t hw;
	unsigned pu;
	struct cal_budget b;
	_Atomic uint32_t word;
	_Atomic int64_t t0;
	_Atomic int seq;
	_Atomic int stop;
	struct cal_samples s;
};

static void *sleeper_a(void *p)
{
	struct sleeper *x = p;
	cal_bind_pu(x->hw, x->pu);
	while (!atomic_load(&x->stop)) {
		atomic_store(&x->word, 0);
		atomic_store(&x->t0, cal_now());
		atomic_fetch_add(&x->seq, 1);
		futex(&x->word, FUTEX_WAIT, 0, NULL);
	}
	cal_thread_done();
	return NULL;
}

static void *sleeper_b(void *p)
{
	struct sleeper *x = p;
	cal_bind_pu(x->hw, x->pu);
	int last = 0; /* A may have gone to sleep before B started */
	while (cal_more(&x->b, x->s.n)) {
		int seq;
		while ((seq = atomic_load(&x->seq)) == last)
			sched_yield();
		int64_t t1 = cal_now();
		cal_add(&x->s, (double)(t1 - atomic_load(&x->t0)));
		last = seq;
		atomic_store(&x->word, 1);
		futex(&x->word, FUTEX_WAKE, 1, NULL);
	}
	atomic_store(&x->stop, 1);
	atomic_store(&x->word, 1);
	futex(&x->word, FUTEX_WAKE, 1, NULL);
	cal_thread_done();
	return NULL;
}

static bool sleep_switch(struct cal_ctx *c, unsigned pu, struct cal_stat *out, struct err *e)
{
	struct sleeper *x = xcalloc(1, sizeof(*x));
	x->hw = c->hw;
	x->pu = pu;
	x->b = cal_budget(c, 50, 2000);
	int64_t left = x->b.deadline - cal_now();
	x->b.deadline = cal_now() + (left > 0 ? left / 3 : 0);
	pthread_t a, b;
	if (pthread_create(&a, NULL, sleeper_a, x) != 0) {
		free(x);
		err_set(e, "calibrate: cannot start a thread: %s", strerror(errno));
		return false;
	}
	if (pthread_create(&b, NULL, sleeper_b, x) != 0) {
		atomic_store(&x->stop, 1);
		atomic_store(&x->word, 1);
		futex(&x->word, FUTEX_WAKE, 1, NULL);
		pthread_join(a, NULL);
		free(x);
		err_set(e, "calibrate: cannot start a thread: %s", strerror(errno));
		return false;
	}
	pthread_join(b, NULL);
	/* A may have gone back to sleep after B's last look */
	atomic_store(&x->word, 1);
	futex(&x->word, FUTEX_WAKE, 1, NULL);
	pthread_join(a, NULL);
	cal_summarize(&x->s, out);
	cal_samples_free(&x->s);
	free(x);
	return true;
}

/* ---- The phase ---- */

static void wake_figure(struct cal_ctx *c, const char *path, const struct pp_result *r,
			const struct cal_pair *pr)
{
	struct cal_stat st = r->lat;
	cal_method(&st, "futex ping-pong between threads bound to PUs %u and %u (%s): from the "
		   "FUTEX_WAKE call until the woken thread runs", pr->pu_a, pr->pu_b, pr->what);
	cal_figure(c, path, &st);
}

/* A figure measured as the sum of two costs, less the one measured apart:
 * s less by, no part of it below 0 and its p90 not below its median. */
static void stat_less(struct cal_stat *s, double by)
{
	s->median -= by;
	s->p10 -= by;
	s->p90 -= by;
	if (s->median < 0)
		s->median = 0;
	if (s->p10 < 0)
		s->p10 = 0;
	if (s->p90 < s->median)
		s->p90 = s->median;
}

/* os_ns.wakeup.hops[] in c->latency, made on first use. */
static cJSON *hops_array(struct cal_ctx *c)
{
	cJSON *os = cJSON_GetObjectItemCaseSensitive(c->latency, "os_ns");
	if (!os)
		os = cJSON_AddObjectToObject(c->latency, "os_ns");
	cJSON *wk = cJSON_GetObjectItemCaseSensitive(os, "wakeup");
	if (!wk)
		wk = cJSON_AddObjectToObject(os, "wakeup");
	cJSON *hops = cJSON_GetObjectItemCaseSensitive(wk, "hops");
	return hops ? hops : cJSON_AddArrayToObject(wk, "hops");
}

/* The wake-up of a sleeping thread by every relation of two PUs the
 * machine has (os_ns.wakeup.*), and os_ns.futex_wake from the nearest two
 * PUs; *fr (the nearest pair's, or the same PU's) and *pair_name say whose
 * ping-pong the later figures use. */
static bool wakeup_probes(struct cal_ctx *c, unsigned pu0, struct pp_result *fr,
			  const char **pair_name, struct err *e)
{
	struct cal_pair pairs[CAL_MAX_PAIRS];
	int npairs = cal_pairs(c->t, pairs, true);
	struct pp_result same = { 0 }, nearest = { 0 };
	bool have_nearest = false, have_smt = false;
	for (int i = 0; i < npairs; i++) {
		struct pp_result r;
		if (!pingpong(c, pairs[i].pu_a, pairs[i].pu_b, 100, 4000, &r, e))
			return false;
		struct cal_stat st = r.lat;
		cal_method(&st, "futex ping-pong, threads bound to PUs %u and %u (%s)%s", pairs[i].pu_a,
			   pairs[i].pu_b, pairs[i].what, r.bound ? "" : " (binding refused: unbound)");
		char mname[96];
		snprintf(mname, sizeof(mname), "wakeup_%.23s_ns", pairs[i].name);
		cal_measurement(c, mname, &st);
		if (pairs[i].rel == CAL_SAME_PU) {
			same = r;
		} else if (!have_nearest) {
			nearest = r;
			have_nearest = true;
		}
		switch (pairs[i].rel) {
		case CAL_SAME_PU:
			break;
		case CAL_SMT:
			have_smt = true;
			wake_figure(c, "os_ns.wakeup.core", &r, &pairs[i]);
			break;
		case CAL_GROUP:
			wake_figure(c, "os_ns.wakeup.group", &r, &pairs[i]);
			break;
		case CAL_PACKAGE:
			wake_figure(c, "os_ns.wakeup.package", &r, &pairs[i]);
			break;
		case CAL_HOPS: {
			char path[64];
			snprintf(path, sizeof(path), "os_ns.wakeup.hops[%d]", pairs[i].hops - 1);
			cJSON *hops = hops_array(c);
			if (r.lat.samples > 0) {
				cJSON_AddItemToArray(hops, cJSON_CreateNumber(cal_rounded(r.lat.median)));
				wake_figure(c, path, &r, &pairs[i]);
			} else {
				/* no wake found its thread asleep: keep the list's place */
				struct topo_latency d;
				topo__latency_defaults(&d);
				cJSON_AddItemToArray(hops, cJSON_CreateNumber(d.wakeup_core_ns));
				cal_assumed(c, path, d.wakeup_core_ns,
					    "no wake-up between these packages found its thread asleep: "
					    "the model's default");
			}
			break;
		}
		}
		cal_progress_step(&c->prog, 0.05 + 0.35 * (i + 1) / npairs);
	}
	if (!have_smt) {
		struct cal_pair self = { "same_pu", "the same PU", CAL_SAME_PU, pu0, pu0, 0 };
		wake_figure(c, "os_ns.wakeup.core", &same, &self);
	}
	c->wakeup_core_ns = have_smt ? 0 : same.lat.median;
	if (have_smt) {
		cJSON *w = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(c->latency, "os_ns"), "wakeup");
		c->wakeup_core_ns = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(w, "core"));
	}
	/* the futex calls' own costs, from the nearest pair of two PUs */
	*fr = have_nearest ? nearest : same;
	*pair_name = have_nearest ? "nearest two PUs" : "one PU";
	struct cal_stat wake = fr->call;
	cal_method(&wake, "the waker's FUTEX_WAKE call that woke a sleeping thread (futex ping-pong, %s)",
		   *pair_name);
	cal_figure(c, "os_ns.futex_wake", &wake);
	return true;
}

/* How late nanosleep and a timed FUTEX_WAIT end (the measurements by time
 * asked), and os_ns.timer_slack from them, less a wake-up's own cost. */
static bool sleep_probes(struct cal_ctx *c, unsigned pu0, struct err *e)
{
	struct sleep_costs *sc = xcalloc(1, sizeof(*sc));
	if (!run_on_pu(c, pu0, sleep_probe, sc, e)) {
		free(sc);
		return false;
	}
	cJSON *pn = cal_points(c, "sleep_overshoot_nanosleep_ns",
			       "nanosleep(2) on a thread bound to the first PU: elapsed less asked");
	cJSON *pf = cal_points(c, "sleep_overshoot_futex_ns",
			       "FUTEX_WAIT timing out, on a thread bound to the first PU: elapsed less asked");
	for (int i = 0; i < NASKED; i++) {
		cal_point(pn, &sc->nano[i], "asked_ns", (double)asked_ns[i]);
		cal_point(pf, &sc->fut[i], "asked_ns", (double)asked_ns[i]);
	}
	struct cal_stat slack;
	cal_summarize(&sc->over, &slack);
	stat_less(&slack, c->wakeup_core_ns);
	cal_method(&slack, "overshoot of nanosleep and timed FUTEX_WAIT asked for 10 us to 1 ms "
		   "(pooled), less os_ns.wakeup.core (%.0f ns)", c->wakeup_core_ns);
	cal_figure(c, "os_ns.timer_slack", &slack);
	int slack_set = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	if (slack_set >= 0) {
		struct cal_stat set = { slack_set, slack_set, slack_set, 1, "" };
		cal_method(&set, "prctl(PR_GET_TIMERSLACK): the kernel's timer slack for this thread");
		cal_measurement(c, "timer_slack_setting_ns", &set);
	}
	cal_samples_free(&sc->over);
	free(sc);
	return true;
}

/* Making a thread, a context switch, and what a FUTEX_WAIT costs before
 * the switch; the CPU of a ping-pong cycle (fr's, the pair pair_name
 * names). */
static bool thread_probes(struct cal_ctx *c, unsigned pu0, double yield_ns,
			  const struct pp_result *fr, const char *pair_name, struct err *e)
{
	struct create_costs cc;
	if (!run_on_pu(c, pu0, create_probe, &cc, e))
		return false;
	cal_figure(c, "os_ns.thread_create", &cc.create);
	cal_measurement(c, "thread_create_to_run_ns", &cc.to_run);
	struct cal_stat cs;
	if (!context_switch(c, pu0, yield_ns, &cs, e))
		return false;
	cal_figure(c, "os_ns.context_switch", &cs);

	struct cal_stat sl;
	if (!sleep_switch(c, pu0, &sl, e))
		return false;
	cal_method(&sl, "two threads on PU %u: from one's FUTEX_WAIT call until the other, yielding "
		   "meanwhile, runs", pu0);
	cal_measurement(c, "futex_sleep_to_switch_ns", &sl);
	struct cal_stat wait = sl;
	stat_less(&wait, cs.median);
	cal_method(&wait, "two threads on PU %u: from one's FUTEX_WAIT call until the other, yielding "
		   "meanwhile, runs (%.0f ns), less os_ns.context_switch (%.0f ns)", pu0, sl.median,
		   cs.median);
	cal_figure(c, "os_ns.futex_wait", &wait);
	struct cal_stat cyc = fr->cycle_cpu;
	cal_method(&cyc, "CPU time (CLOCK_THREAD_CPUTIME_ID) of a futex ping-pong thread per wake "
		   "and wait (%s)", pair_name);
	cal_measurement(c, "futex_cycle_cpu_ns", &cyc);
	return true;
}

bool cal_os_probes(struct cal_ctx *c, struct err *e)
{
	unsigned pu0 = c->t->pus[0].os_index;
	struct loop_costs lc;
	if (!run_on_pu(c, pu0, loop_probe, &lc, e))
		return false;
	cal_figure(c, "os_ns.syscall", &lc.syscall);
	cal_figure(c, "os_ns.pause", &lc.pause);
	cal_measurement(c, "sched_yield_ns", &lc.yield);
	struct epoll_cost ec;
	if (!run_on_pu(c, pu0, epoll_probe, &ec, e))
		return false;
	if (ec.ok)
		cal_figure(c, "os_ns.epoll_event", &ec.per_event);
	else
		cal_assumed(c, "os_ns.epoll_event", c->t->lat.epoll_event_ns,
			    "epoll or eventfd could not be made here: the model's default");
	cal_progress_step(&c->prog, 0.05);
	struct pp_result fr;
	const char *pair_name;
	if (!wakeup_probes(c, pu0, &fr, &pair_name, e) || !sleep_probes(c, pu0, e))
		return false;
	cal_progress_step(&c->prog, 0.8);
	return thread_probes(c, pu0, lc.yield.median, &fr, pair_name, e);
}
