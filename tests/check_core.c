/* The scheduler core's own tests, compiled once per platform like the core.
 *
 * Local run queues and steal order: the Go runtime's own tests
 * (proc_test.go's TestSchedLocalQueue, TestSchedLocalQueueSteal,
 * TestSchedLocalQueueEmpty, and TestStealOrder via export_test.go), with
 * the same loops and assertions; the sequential ones run against both
 * compilations of core/runq.c, the one that needs real threads
 * natively.  Then Gs running C functions, which only native Gs can. */
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime.h"
#include "workloads/wlr.h"
#include "tests/tests.h"
#ifdef SCHEDLAB_NATIVE
#include "native/schedlab.h"
#endif

/* Bare Ps as Go's tests use them: a runtime is made (for its Ps, lines and
 * lock) but never run, and nothing below runs on an M. */
static struct workload *idle_workload(void)
{
	struct workload *w = wl_new("idle", "");
	w->main = wl_add_program(w, "main");
	return w;
}

struct fixture {
	struct topo *topo;
	struct workload *wl;
	struct rt *rt;
};

static void fixture_open(struct fixture *f, int procs)
{
	struct err e = { "" };
	f->topo = topo_load("numa1", &e);
	ck_assert_msg(f->topo, "%s", e.msg);
	f->wl = idle_workload();
	struct rt_config cfg = {
		.policy = pol_find("steal"), .procs = procs, .seed = 1, .topo = f->topo,
		.body = &wlr_body, .body_arg = &(struct wlr_args){ .workload = f->wl },
	};
	f->rt = rt_new(&cfg, &e);
	ck_assert_msg(f->rt, "%s", e.msg);
}

static void fixture_close(struct fixture *f)
{
	rt_free(f->rt);
	wl_free(f->wl);
	topo_free(f->topo);
}

/* For i in 0..255: the queue is empty, i Gs go in and come back out in
 * order, and it is empty again.  The indices wrap the ring many times.
 * (Go's test puts one G i times; a G here may be on one queue only.) */
START_TEST(local_queue)
{
	struct fixture f;
	fixture_open(&f, 1);
	struct p *pp = f.rt->allp[0];
	uint32_t n = f.rt->choices.runq_size;
	struct g *gs = calloc(n, sizeof(*gs));
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_msg(rt_runqget(pp, NULL) == NULL, "runq is not empty initially");
		for (uint32_t j = 0; j < i; j++)
			rt_runqput(f.rt, pp, &gs[j], false);
		for (uint32_t j = 0; j < i; j++)
			ck_assert_msg(rt_runqget(pp, NULL) == &gs[j], "bad element at iter %u/%u", i, j);
		ck_assert_msg(rt_runqget(pp, NULL) == NULL, "runq is not empty afterwards");
	}
	free(gs);
	fixture_close(&f);
}
END_TEST

/* For i in 0..255: i Gs on p1, a steal into p2, both drained: every G is
 * seen exactly once, and the steal took i/2 or i/2+1 of them. */
START_TEST(local_queue_steal)
{
	struct fixture f;
	fixture_open(&f, 2);
	struct p *p1 = f.rt->allp[0], *p2 = f.rt->allp[1];
	uint32_t n = f.rt->choices.runq_size;
	struct g *gs = calloc(n, sizeof(*gs));
	int *sig = calloc(n, sizeof(*sig));
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t j = 0; j < i; j++) {
			sig[j] = 0;
			rt_runqput(f.rt, p1, &gs[j], false);
		}
		struct g *g = rt_runqsteal(f.rt, p2, p1, true, 3, NULL);
		uint32_t s = 0;
		if (g) {
			s++;
			sig[g - gs]++;
		}
		while ((g = rt_runqget(p2, NULL))) {
			s++;
			sig[g - gs]++;
		}
		while ((g = rt_runqget(p1, NULL)))
			sig[g - gs]++;
		for (uint32_t j = 0; j < i; j++)
			ck_assert_msg(sig[j] == 1, "bad element %u (%d) at iter %u", j, sig[j], i);
		ck_assert_msg(s == i / 2 || s == i / 2 + 1, "bad steal %u, want %u or %u, iter %u", s,
			      i / 2, i / 2 + 1, i);
	}
	free(sig);
	free(gs);
	fixture_close(&f);
}
END_TEST

/* runnext: a put with next goes first, the G it displaces goes to the
 * ring's tail, and a G taken from runnext says it inherits the slice. */
START_TEST(runnext_order)
{
	struct fixture f;
	fixture_open(&f, 1);
	struct p *pp = f.rt->allp[0];
	struct g gs[3] = { 0 };
	rt_runqput(f.rt, pp, &gs[0], false);
	rt_runqput(f.rt, pp, &gs[1], true);
	rt_runqput(f.rt, pp, &gs[2], true); /* kicks gs[1] to the tail */
	bool inherit = false;
	ck_assert_ptr_eq(rt_runqget(pp, &inherit), &gs[2]);
	ck_assert(inherit);
	ck_assert_ptr_eq(rt_runqget(pp, &inherit), &gs[0]);
	ck_assert(!inherit);
	ck_assert_ptr_eq(rt_runqget(pp, &inherit), &gs[1]);
	ck_assert(rt_runqempty(pp));
	fixture_close(&f);
}
END_TEST

/* A full ring moves half of itself plus the new G to the global queue in
 * one batch, oldest first. */
START_TEST(overflow_to_global)
{
	struct fixture f;
	fixture_open(&f, 1);
	struct p *pp = f.rt->allp[0];
	uint32_t n = f.rt->choices.runq_size;
	struct g *gs = calloc(n + 1, sizeof(*gs));
	for (uint32_t i = 0; i <= n; i++)
		rt_runqput(f.rt, pp, &gs[i], false);
	ck_assert_uint_eq(rt_runqlen(pp), n / 2);
	ck_assert_uint_eq(plat_peek_u32(&f.rt->sched.runqsize), n / 2 + 1);
	struct globrunq *q = &f.rt->sched.gq[0];
	ck_assert_uint_eq(q->tail - q->head, n / 2 + 1);
	for (uint32_t i = 0; i <= n / 2; i++)
		ck_assert_ptr_eq(q->ring[(q->head + i) & (q->cap - 1)], i < n / 2 ? &gs[i] : &gs[n]);
	for (uint32_t i = n / 2; i < n; i++)
		ck_assert_ptr_eq(rt_runqget(pp, NULL), &gs[i]);
	free(gs);
	fixture_close(&f);
}
END_TEST

/* For 1..64 Ps, every start of the coprime enumeration visits each P
 * exactly once.  Go's test starts from 0..ncoprimes-1; the second loop
 * also starts from r = k*count, which selects each coprime step. */
START_TEST(steal_order)
{
	struct rt_steal_order ord = { 0 };
	for (uint32_t procs = 1; procs <= 64; procs++) {
		rt_steal_order_reset(&ord, procs);
		if (procs >= 3)
			ck_assert_msg(ord.ncoprimes >= 2, "too few coprimes for %u", procs);
		for (int pass = 0; pass < 2; pass++) {
			for (uint32_t co = 0; co < ord.ncoprimes; co++) {
				uint32_t r = pass == 0 ? co : co * procs + co % procs;
				struct rt_steal_enum e = rt_steal_order_start(&ord, r);
				bool checked[64] = { false };
				for (uint32_t p = 0; p < procs; p++) {
					ck_assert_msg(!checked[e.pos], "procs %u inc %u: duplicate", procs,
						      e.inc);
					checked[e.pos] = true;
					rt_steal_enum_next(&e);
				}
				ck_assert_msg(rt_steal_enum_done(&e), "not done");
			}
		}
	}
	rt_steal_order_free(&ord);
}
END_TEST

#ifdef SCHEDLAB_NATIVE
/* The queue never looks empty while it holds a G: one thread moves G0
 * between runnext and the ring (a put with next kicks it to the ring, a
 * get takes it back) while another asks rt_runqempty. */
struct empty_test {
	struct rt *rt;
	struct p *pp;
	int iters;
	plat_u32 arrived;     /* both sides' arrivals at each iteration's meeting */
	plat_u32 started;     /* the iteration the owner has set up (1-based) */
	plat_u32 checked;     /* the iteration the checker has looked at */
	bool saw_empty;
};

/* Spins until *v reaches want, letting the other side run on a machine
 * busy with more threads than CPUs (a sanitizer build, suites running side
 * by side, a loaded CI host). */
static void wait_for(plat_u32 *v, uint32_t want)
{
	for (unsigned spins = 1; plat_load_u32(v, memory_order_seq_cst) < want; spins++)
		if (spins % 256 == 0)
			sched_yield();
}

/* One checker thread for every iteration: a thread made per iteration
 * made the test's time the cost of 100,000 thread creations, minutes
 * under AddressSanitizer on a busy machine. */
static void *empty_checker(void *arg)
{
	struct empty_test *t = arg;
	for (uint32_t i = 1; i <= (uint32_t)t->iters; i++) {
		wait_for(&t->started, i);
		plat_add_u32(&t->arrived, 1, memory_order_seq_cst);
		wait_for(&t->arrived, 2 * i);
		if (rt_runqempty(t->pp))
			t->saw_empty = true;
		plat_store_u32(&t->checked, i, memory_order_seq_cst);
	}
	return NULL;
}

START_TEST(local_queue_empty)
{
	int iters = getenv("SCHEDLAB_VALGRIND") ? 2000 : 100000;
	struct fixture f;
	fixture_open(&f, 1);
	struct g gs[2] = { 0 };
	struct empty_test t = { .rt = f.rt, .pp = f.rt->allp[0], .iters = iters };
	plat_u32_init(&t.arrived, 0, 0);
	plat_u32_init(&t.started, 0, 0);
	plat_u32_init(&t.checked, 0, 0);
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, empty_checker, &t), 0);
	for (uint32_t i = 1; i <= (uint32_t)iters; i++) {
		bool next0 = ((i - 1) & 1) == 0, next1 = ((i - 1) & 2) == 0;
		rt_runqput(f.rt, t.pp, &gs[0], next0);
		plat_store_u32(&t.started, i, memory_order_seq_cst);
		plat_add_u32(&t.arrived, 1, memory_order_seq_cst);
		wait_for(&t.arrived, 2 * i);
		rt_runqput(f.rt, t.pp, &gs[1], next1);
		rt_runqget(t.pp, NULL);
		wait_for(&t.checked, i);
		if (t.saw_empty) {
			/* let the checker run out its iterations and end */
			plat_store_u32(&t.started, (uint32_t)iters, memory_order_seq_cst);
			plat_store_u32(&t.arrived, 2 * (uint32_t)iters, memory_order_seq_cst);
			pthread_join(th, NULL);
			ck_abort_msg("queue is empty (next: %d %d, iteration %u)", next0, next1, i - 1);
		}
		rt_runqget(t.pp, NULL);
	}
	pthread_join(th, NULL);
	fixture_close(&f);
}
END_TEST
/* The owner popping from the tail (numa's mostly-LIFO order) and pushing
 * again while a thief steals halves from the head: every G is taken
 * exactly once.  A thief that sized its batch from a tail read before the
 * owner's pops, or read a slot the owner had popped and refilled, took Gs
 * twice before runqhead counted the owner's pops (runq.c). */
struct lifo_test {
	struct rt *rt;
	struct p *owner, *thief;
	plat_u32 done;
	_Atomic uint32_t *taken;
	struct g *gs;
};

static void lifo_take(struct lifo_test *t, struct g *g)
{
	atomic_fetch_add_explicit(&t->taken[g - t->gs], 1, memory_order_relaxed);
}

static void *lifo_thief(void *arg)
{
	struct lifo_test *t = arg;
	for (;;) {
		bool last = plat_load_u32(&t->done, memory_order_acquire);
		struct g *g = rt_runqsteal(t->rt, t->thief, t->owner, false, 0, NULL);
		for (; g; g = rt_runqget(t->thief, NULL))
			lifo_take(t, g);
		if (last)
			return NULL;
	}
}

START_TEST(local_queue_lifo_steal)
{
	uint32_t n = getenv("SCHEDLAB_VALGRIND") ? 20000 : 400000;
	struct fixture f;
	fixture_open(&f, 2);
	struct lifo_test t = { .rt = f.rt, .owner = f.rt->allp[0], .thief = f.rt->allp[1] };
	t.gs = calloc(n, sizeof(*t.gs));
	t.taken = calloc(n, sizeof(*t.taken));
	plat_u32_init(&t.done, 0, 0);
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, lifo_thief, &t), 0);
	uint64_t rnd = 88172645463325252ull;
	for (uint32_t next = 0; next < n;) {
		rnd ^= rnd << 13, rnd ^= rnd >> 7, rnd ^= rnd << 17;
		uint32_t burst = 1 + rnd % 8, pops = (rnd >> 8) % (burst + 1);
		for (uint32_t i = 0; i < burst && next < n; i++)
			rt_runqput(f.rt, t.owner, &t.gs[next++], false);
		if (rt_runqlen(t.owner) > f.rt->choices.runq_size / 2)
			pops = rt_runqlen(t.owner);   /* never overflow to the global queue */
		for (struct g *g; pops-- > 0 && (g = rt_runqget_lifo(t.owner));)
			lifo_take(&t, g);
	}
	for (struct g *g; (g = rt_runqget_lifo(t.owner));)
		lifo_take(&t, g);
	plat_store_u32(&t.done, 1, memory_order_release);
	pthread_join(th, NULL);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_msg(t.taken[i] == 1, "G %u taken %u times", i, (unsigned)t.taken[i]);
	free(t.taken);
	free(t.gs);
	fixture_close(&f);
}
END_TEST
#endif


/* ---- The report's locality: what the workload's memory touches cost ---- */

/* The hardware model's counts of memory touches become the report's lines
 * by source and its fractions; the scheduler's own lines stay out of
 * them.  Natively there are no such counters, and the report has none. */
START_TEST(mem_counters_become_locality)
{
	struct err e = { "" };
	struct topo *t = topo_load("numa4", &e);
	ck_assert_msg(t, "%s", e.msg);
	struct workload *wl = idle_workload();
	struct rt_config cfg = { .policy = pol_find("steal"), .procs = 4, .seed = 1, .topo = t,
				 .body = &wlr_body, .body_arg = &(struct wlr_args){ .workload = wl } };
	struct rt *rt = rt_new(&cfg, &e);
	ck_assert_msg(rt, "%s", e.msg);
	struct rt_result *r = calloc(1, sizeof(*r));
	struct rt_mem mem = { 0 };
#ifdef SCHEDLAB_SIM
	struct hw *hw = rt->plat.hw;
	/* Nothing touched yet: no figures, though the platform counts. */
	ck_assert(plat_mem_counters(rt, &mem));
	rt_collect(rt, r);
	ck_assert(!r->locality.mem.measured);
	/* PU 0 is on node 0; far is on the node farthest from it. */
	int far = 0, hops = 0;
	for (int pu = 0; pu < t->npus; pu++) {
		int h = topo_hops(t, 0, t->cores[t->pus[pu].core].node);
		if (h > hops)
			hops = h, far = pu;
	}
	ck_assert_int_gt(hops, 0);
	uint64_t bytes = 64 * 1024, lines = bytes / HW_LINE;
	int far_node = t->cores[t->pus[far].core].node;
	hw_region_t near_r = hw_region_new(hw, bytes, HW_PLACE_NODE, 0);
	hw_region_t far_r = hw_region_new(hw, bytes, HW_PLACE_NODE, far_node);
	hw_region_t shared = hw_region_new(hw, bytes, HW_PLACE_NODE, far_node);
	hw_touch(hw, 0, 0, near_r, 0, bytes, HW_SEQUENTIAL, false);    /* local DRAM */
	hw_touch(hw, 0, 1e6, near_r, 0, bytes, HW_SEQUENTIAL, false);  /* its own caches */
	hw_touch(hw, 0, 2e6, far_r, 0, bytes, HW_SEQUENTIAL, false);   /* DRAM `hops' away */
	hw_touch(hw, far, 3e6, shared, 0, bytes, HW_SEQUENTIAL, true); /* far's local DRAM */
	hw_touch(hw, 0, 4e6, shared, 0, bytes, HW_SEQUENTIAL, false);  /* from far's cache */
	/* Scheduler state: priced, but not the workload's memory. */
	hw_line_t line = hw_line_new(hw, 0);
	hw_line_access(hw, far, 5e6, line, HW_STORE);
	hw_line_access(hw, 0, 6e6, line, HW_LOAD);

	const struct hw_counters *c = hw_counters(hw);
	ck_assert_uint_eq(c->c2c, lines);
	ck_assert(plat_mem_counters(rt, &mem));
	ck_assert_uint_eq(mem.touches, 5);
	ck_assert_uint_eq(mem.lines, 5 * lines);
	ck_assert_uint_eq(mem.cached, 2 * lines);
	ck_assert_uint_eq(mem.dram, 3 * lines);
	ck_assert_int_eq(mem.nhops, t->max_hops + 1);
	ck_assert_uint_eq(mem.dram_by_hops[0], 2 * lines);
	ck_assert_uint_eq(mem.dram_by_hops[hops], lines);
	rt_collect(rt, r);
	ck_assert(r->locality.mem.measured);
	ck_assert(memcmp(r->locality.mem.dram_by_hops, mem.dram_by_hops, sizeof(mem.dram_by_hops)) == 0);
	double f;
	ck_assert(rt_mem_local_frac(&r->locality.mem, &f));
	ck_assert_double_eq_tol(f, 2.0 / 3.0, 1e-12);
	ck_assert(rt_mem_cache_hit_frac(&r->locality.mem, &f));
	ck_assert_double_eq_tol(f, 2.0 / 5.0, 1e-12);
	/* All from caches: no DRAM line, no local fraction. */
	struct rt_mem cached = { .measured = true, .touches = 1, .lines = 10, .cached = 10 };
	ck_assert(!rt_mem_local_frac(&cached, &f));
	ck_assert(rt_mem_cache_hit_frac(&cached, &f));
	ck_assert_double_eq(f, 1.0);
#else
	mem.touches = 7;
	ck_assert(!plat_mem_counters(rt, &mem));
	ck_assert_uint_eq(mem.touches, 7);   /* left alone */
	rt_collect(rt, r);
	ck_assert(!r->locality.mem.measured);
#endif
	double f2;
	ck_assert(!rt_mem_local_frac(&(struct rt_mem){ 0 }, &f2));
	ck_assert(!rt_mem_cache_hit_frac(&(struct rt_mem){ 0 }, &f2));
	free(r);
	rt_free(rt);
	wl_free(wl);
	topo_free(t);
}
END_TEST

/* ---- Gs running C functions ---- */

/* A simulated G is only a program counter: it cannot run a C function,
 * and the runtime says so (natively, tests/check_api.c runs them). */
#ifndef SCHEDLAB_NATIVE
static bool never_check(const struct rt_config *cfg, struct err *e)
{
	(void)cfg, (void)e;
	abort();
}

/* A body whose Gs need stacks, as the C API's (natp_c_body, native only). */
static const struct body_ops stack_body = {
	.name = "C function",
	.needs_stack = true,
	.check = never_check,
};

START_TEST(c_function_refused)
{
	struct err e = { "" };
	struct topo *topo = topo_load("numa1", &e);
	ck_assert_msg(topo, "%s", e.msg);
	struct rt_config cfg = { .policy = pol_find("steal"), .procs = 2, .seed = 1, .topo = topo,
				 .body = &stack_body };
	ck_assert_ptr_null(rt_new(&cfg, &e));
	ck_assert_str_eq(e.msg, "a sim G has no stack to run a C function on");
	topo_free(topo);
}
END_TEST
#endif

#ifdef SCHEDLAB_NATIVE
/* A C function's run is untimed: no clock is read for the scheduling
 * latency or the cpu breakdown, and the result says it has neither. */
static void untimed_child(void *arg)
{
	sl_wg_done(arg);
}

static void untimed_main(void *arg)
{
	(void)arg;
	sl_wg *wg = sl_wg_new();
	sl_wg_add(wg, 100);
	for (int i = 0; i < 100; i++)
		sl_go(untimed_child, wg);
	sl_wg_wait(wg);
	sl_wg_free(wg);
}

START_TEST(untimed_run_has_no_clock_figures)
{
	struct err e = { "" };
	struct topo *t = topo_load("host", &e);
	ck_assert_msg(t, "%s", e.msg);
	struct rt_config cfg = { .policy = pol_find("steal"), .procs = 2, .seed = 1, .topo = t,
				 .body = &natp_c_body,
				 .body_arg = &(struct natp_c_args){ untimed_main, NULL } };
	struct rt *rt = rt_new(&cfg, &e);
	ck_assert_msg(rt, "%s", e.msg);
	rt_run(rt);
	struct rt_result *r = calloc(1, sizeof(*r));
	rt_collect(rt, r);
	ck_assert_uint_eq(r->goroutines, 101);
	ck_assert_int_gt(r->makespan_ns, 0);
	ck_assert_uint_eq(r->sched_latency.count, 0);
	ck_assert_uint_eq(r->cpu.measured, 0);
	for (int k = 0; k < RT_CPU__COUNT; k++) {
		double f;
		ck_assert(!rt_cpu_frac(&r->cpu, (enum rt_cpu)k, &f));
	}
	double pus;
	ck_assert(!rt_cpu_busy_pus(&r->cpu, &pus));
	ck_assert_uint_eq(r->cpu.on_ns + r->cpu.off_ns + r->cpu.span_ns, 0);
	for (struct m *m = rt->allm; m; m = m->alllink) {
		ck_assert_int_eq(m->mt_born, -1);
		for (int k = 0; k < RT_CPU__COUNT; k++)
			ck_assert_uint_eq(m->stats.time_ns[k], 0);
	}
	free(r);
	rt_free(rt);
	topo_free(t);
}
END_TEST
#endif

/* Each policy's declared state [pol_ops: run_bytes, p_bytes, g_bytes]
 * is made zeroed where its accessors say: the run's, past each struct p,
 * and past the body's state of each G, overlapping neither the body's
 * state nor the next G in the slab. */
START_TEST(policy_state_apart)
{
	struct err e = { "" };
	struct topo *topo = topo_load("numa1", &e);
	ck_assert_msg(topo, "%s", e.msg);
	struct workload *wl = idle_workload();
	const struct pol_ops *pol = pol_at(_i);
	struct rt_config cfg = {
		.policy = pol, .procs = 2, .seed = 1, .topo = topo, .body = &wlr_body,
		.body_arg = &(struct wlr_args){ .workload = wl },
	};
	struct rt *rt = rt_new(&cfg, &e);
	ck_assert_msg(rt, "%s", e.msg);
	ck_assert(!rt_pol_run(rt) == !pol->run_bytes);
	for (int i = 0; i < rt->procs; i++) {
		const unsigned char *ps = rt_pol_p(rt->allp[i]);
		ck_assert(ps >= (const unsigned char *)(rt->allp[i] + 1));
		for (size_t b = 0; b < pol->p_bytes; b++)
			ck_assert_msg(!ps[b], "%s: P %d's state not zeroed", pol->name, i);
	}
	struct m m = { .rt = rt, .p = rt->allp[0] };
	enum { NG = 3 };
	struct g *gs[NG];
	size_t body = wlr_body.g_bytes;
	for (int i = 0; i < NG; i++) {
		gs[i] = rt_newg(&m);
		ck_assert(gs[i]);
		unsigned char *gst = rt_pol_g(rt, gs[i]);
		ck_assert(gst >= (unsigned char *)rt_g_body(gs[i]) + body);
		for (size_t b = 0; b < pol->g_bytes; b++)
			ck_assert_msg(!gst[b], "%s: G %d's state not zeroed", pol->name, i);
		memset(rt_g_body(gs[i]), 0xa5, body);
		memset(gst, 0x5a, pol->g_bytes);
	}
	for (int i = 0; i < NG; i++) {
		const unsigned char *gb = rt_g_body(gs[i]), *gst = rt_pol_g(rt, gs[i]);
		for (size_t b = 0; b < body; b++)
			ck_assert_msg(gb[b] == 0xa5, "%s: G %d's body state overwritten", pol->name, i);
		for (size_t b = 0; b < pol->g_bytes; b++)
			ck_assert_msg(gst[b] == 0x5a, "%s: G %d's state overwritten", pol->name, i);
		ck_assert_uint_eq(gs[i]->status, G_RUNNABLE);
	}
	rt_free(rt);
	wl_free(wl);
	topo_free(topo);
}
END_TEST

Suite *PLAT_SYM(make_core_suite)(void)
{
	Suite *s = suite_create("policies");
	TCase *tc = tcase_create("runq_" PLAT_NAME);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, local_queue);
	tcase_add_test(tc, local_queue_steal);
	tcase_add_test(tc, runnext_order);
	tcase_add_test(tc, overflow_to_global);
	tcase_add_test(tc, steal_order);
#ifdef SCHEDLAB_NATIVE
	tcase_add_test(tc, local_queue_empty);
	tcase_add_test(tc, local_queue_lifo_steal);
#endif
	suite_add_tcase(s, tc);
	tc = tcase_create("polstate_" PLAT_NAME);
	tcase_add_loop_test(tc, policy_state_apart, 0, pol_count());
	suite_add_tcase(s, tc);
	tc = tcase_create("report_" PLAT_NAME);
	tcase_add_test(tc, mem_counters_become_locality);
#ifdef SCHEDLAB_NATIVE
	tcase_add_test(tc, untimed_run_has_no_clock_figures);
#endif
	suite_add_tcase(s, tc);
#ifndef SCHEDLAB_NATIVE
	tc = tcase_create("cfunc_" PLAT_NAME);
	tcase_add_test(tc, c_function_refused);
	suite_add_tcase(s, tc);
#endif
	return s;
}
