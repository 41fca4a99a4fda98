/* Calibration of the native runtime's own costs, through its public C API
 * (native/schedlab.h): G create and exit, a stack's first use, the G
 * switch, a channel hand-off, the wake of a parked M. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "calib/calib.h"
#include "native/schedlab.h"

/* ---- Spawning: one run per sample ----
 * Batch A: N Gs that each signal they have started and park on a gate, so
 * that all hold a stack at once and each first run takes one never used
 * (carved from a new arena, its page faulted in).  Batch B: the same
 * again once A has exited, so each takes a stack A gave back.  Batch C:
 * N Gs that return at once, run one after the other. */

struct spawn {
	int n;
	sl_wg *started, *exited;
	sl_chan *gate;
	/* per G, this run */
	double create, fresh, cached, run_exit;
};

static void parked_g(void *arg)
{
	struct spawn *s = arg;
	sl_wg_done(s->started);
	sl_chan_recv(s->gate);
	sl_wg_done(s->exited);
}

static void trivial_g(void *arg)
{
	struct spawn *s = arg;
	sl_wg_done(s->exited);
}

/* One batch of parked Gs: returns ns per G from the last sl_go until all
 * have started; *create the ns per sl_go. */
static double parked_batch(struct spawn *s, double *create)
{
	s->started = sl_wg_new();
	s->exited = sl_wg_new();
	s->gate = sl_chan_make(0);
	sl_wg_add(s->started, s->n);
	sl_wg_add(s->exited, s->n);
	int64_t t0 = sl_nanotime();
	for (int i = 0; i < s->n; i++)
		sl_go(parked_g, s);
	int64_t t1 = sl_nanotime();
	sl_wg_wait(s->started);
	int64_t t2 = sl_nanotime();
	sl_chan_close(s->gate);
	sl_wg_wait(s->exited);
	sl_wg_free(s->started);
	sl_wg_free(s->exited);
	sl_chan_free(s->gate);
	*create = (double)(t1 - t0) / s->n;
	return (double)(t2 - t1) / s->n;
}

static void spawn_main(void *arg)
{
	struct spawn *s = arg;
	double create_b;
	s->fresh = parked_batch(s, &s->create);
	s->cached = parked_batch(s, &create_b);
	s->exited = sl_wg_new();
	sl_wg_add(s->exited, s->n);
	int64_t t0 = sl_nanotime();
	for (int i = 0; i < s->n; i++)
		sl_go(trivial_g, s);
	int64_t t1 = sl_nanotime();
	sl_wg_wait(s->exited);
	int64_t t2 = sl_nanotime();
	sl_wg_free(s->exited);
	s->create = (s->create + create_b + (double)(t1 - t0) / s->n) / 3;
	s->run_exit = (double)(t2 - t1) / s->n;
}

/* ---- Two Gs taking turns: sl_gosched, or a channel hand-off ---- */

#define TURNS 1000

struct turns {
	bool chan;
	int chunks;
	sl_chan *ab, *ba;
	sl_wg *done;
	struct cal_samples s;
};

static void turns_a(void *arg)
{
	struct turns *t = arg;
	for (int k = 0; k < t->chunks; k++) {
		int64_t t0 = sl_nanotime();
		for (int i = 0; i < TURNS; i++) {
			if (t->chan) {
				sl_chan_send(t->ab, (uint64_t)i);
				sl_chan_recv(t->ba);
			} else {
				sl_gosched();
			}
		}
		/* each of A's turns is two switches or two hand-offs */
		cal_add(&t->s, (double)(sl_nanotime() - t0) / (2 * TURNS));
	}
	if (t->chan)
		sl_chan_close(t->ab);
	sl_wg_done(t->done);
}

static void turns_b(void *arg)
{
	struct turns *t = arg;
	if (t->chan) {
		bool ok;
		for (;;) {
			uint64_t v = sl_chan_recv2(t->ab, &ok);
			if (!ok)
				break;
			sl_chan_send(t->ba, v);
		}
	} else {
		for (int i = 0; i < t->chunks * TURNS; i++)
			sl_gosched();
	}
	sl_wg_done(t->done);
}

static void turns_main(void *arg)
{
	struct turns *t = arg;
	t->done = sl_wg_new();
	t->ab = sl_chan_make(0);
	t->ba = sl_chan_make(0);
	sl_wg_add(t->done, 2);
	sl_go(turns_a, t);
	sl_go(turns_b, t);
	sl_wg_wait(t->done);
	sl_wg_free(t->done);
	sl_chan_free(t->ab);
	sl_chan_free(t->ba);
}

/* ---- The wake of a parked M ----
 * With two Ps, main keeps its P busy (no call that could yield) and makes
 * a G: the runtime wakes the parked M, which takes the G and runs it.
 * Between samples main waits long enough for that M to park again. */

struct mwake {
	int samples;
	int64_t settle_ns, give_up_ns;
	_Atomic int64_t ran_at;
	struct cal_samples s;
	int missed;
};

static void mark_g(void *arg)
{
	struct mwake *w = arg;
	atomic_store(&w->ran_at, sl_nanotime());
}

static void mwake_main(void *arg)
{
	struct mwake *w = arg;
	for (int k = 0; k < w->samples; k++) {
		int64_t until = sl_nanotime() + w->settle_ns;
		while (sl_nanotime() < until)
			__builtin_ia32_pause();
		atomic_store(&w->ran_at, 0);
		int64_t t0 = sl_nanotime();
		sl_go(mark_g, w);
		int64_t t1 = 0;
		while ((t1 = atomic_load(&w->ran_at)) == 0 && sl_nanotime() - t0 < w->give_up_ns)
			__builtin_ia32_pause();
		if (t1 == 0) {
			/* not taken by another M: let it run here */
			w->missed++;
			while (atomic_load(&w->ran_at) == 0)
				sl_gosched();
			continue;
		}
		cal_add(&w->s, (double)(t1 - t0));
	}
}

static bool run(int procs, void (*fn)(void *), void *arg, const char *what, struct err *e)
{
	struct sl_options o = { .procs = procs, .quiet = true };
	int rc = sl_run(&o, fn, arg);
	if (rc != 0) {
		char first[300];
		snprintf(first, sizeof(first), "%s", sl_error());
		char *nl = strchr(first, '\n');
		if (nl)
			*nl = 0;
		err_set(e, "calibrate: the native runtime's %s probe failed (status %d): %s", what, rc,
			first);
		return false;
	}
	return true;
}

static void stat_of(struct cal_samples *s, struct cal_stat *st, const char *method)
{
	cal_summarize(s, st);
	snprintf(st->method, sizeof(st->method), "%s", method);
	cal_samples_free(s);
}

/* st - sub, clamped at 0 (a difference of two medians drowned in noise
 * is reported as no cost, not a negative one). */
static void minus(struct cal_stat *st, double sub)
{
	st->median = fmax(0, st->median - sub);
	st->p10 = fmax(0, st->p10 - sub);
	st->p90 = fmax(st->median, st->p90 - sub);
}

/* G switch: two Gs taking turns on one P; returns os_ns.g_switch. */
static bool probe_g_switch(struct cal_ctx *c, struct cal_stat *gsw, struct err *e)
{
	struct turns t = { .chan = false, .chunks = c->o->quick ? 10 : 40 };
	if (!run(1, turns_main, &t, "G switch", e))
		return false;
	struct cal_stat gosched;
	stat_of(&t.s, &gosched, "sl_gosched() by two Gs taking turns on one P: ns per call, batches of "
		"1000");
	cal_measurement(c, "gosched_ns", &gosched);
	*gsw = gosched;
	gsw->median /= 2;
	gsw->p10 /= 2;
	gsw->p90 /= 2;
	cal_method(gsw, "half of an sl_gosched() between two Gs on one P (a switch out of one G and "
		   "into the other, the scheduler's own work included): %.0f ns / 2", gosched.median);
	cal_figure(c, "os_ns.g_switch", gsw);
	return true;
}

/* Channel hand-off on one P and on two: measurements only. */
static bool probe_handoff(struct cal_ctx *c, struct err *e)
{
	for (int procs = 1; procs <= 2; procs++) {
		struct turns h = { .chan = true, .chunks = c->o->quick ? 10 : 40 };
		if (!run(procs, turns_main, &h, "channel hand-off", e))
			return false;
		struct cal_stat st;
		char m[160];
		snprintf(m, sizeof(m), "a value sent back and forth on two unbuffered channels by two Gs, "
			 "%d P%s: ns per hand-off, batches of 2000", procs, procs > 1 ? "s" : "");
		stat_of(&h.s, &st, m);
		cal_measurement(c, procs == 1 ? "chan_handoff_ns" : "chan_handoff_2p_ns", &st);
	}
	return true;
}

/* Spawning: batches of Gs made, first run on fresh and given-back stacks,
 * run and exit. */
struct spawn_stats {
	int n;                    /* Gs a batch */
	struct cal_stat create, fresh, cached, run_exit;
};

static bool probe_spawn(struct cal_ctx *c, struct spawn_stats *ss, struct err *e)
{
	struct cal_samples cr = { 0 }, fr = { 0 }, ca = { 0 }, ex = { 0 };
	struct cal_budget b = cal_budget(c, 12, 60);
	int64_t left = b.deadline - cal_now();
	b.deadline = cal_now() + (left > 0 ? left * 2 / 3 : 0);
	int n = ss->n = c->o->quick ? 256 : 1000;
	for (int k = 0; cal_more(&b, k); k++) {
		struct spawn s = { .n = n };
		if (!run(1, spawn_main, &s, "G spawn", e))
			return false;
		cal_add(&cr, s.create);
		cal_add(&fr, s.fresh);
		cal_add(&ca, s.cached);
		cal_add(&ex, s.run_exit);
		cal_progress_step(&c->prog, 0.3 + 0.5 * k / b.max);
	}
	char m[300];
	snprintf(m, sizeof(m), "sl_go() of a G that does not run yet, one P: ns per call, mean of "
		 "batches of %d Gs per run", n);
	stat_of(&cr, &ss->create, m);
	snprintf(m, sizeof(m), "first run of %d Gs that all stay parked (each takes a stack never "
		 "used), per G, from the last sl_go until all have started", n);
	stat_of(&fr, &ss->fresh, m);
	snprintf(m, sizeof(m), "the same with the stacks a previous batch gave back, per G");
	stat_of(&ca, &ss->cached, m);
	snprintf(m, sizeof(m), "%d Gs that return at once, run one after the other on one P: per G, "
		 "start to exit", n);
	stat_of(&ex, &ss->run_exit, m);
	return true;
}

/* The wake of a parked M (two PUs at least): a measurement. */
static bool probe_m_wake(struct cal_ctx *c, struct err *e)
{
	if (c->t->npus <= 1)
		return true;
	struct mwake w = { .samples = c->o->quick ? 20 : 150, .settle_ns = 3000000,
			   .give_up_ns = 50000000 };
	if (!run(2, mwake_main, &w, "M wake", e))
		return false;
	struct cal_stat st;
	char mm[300];
	snprintf(mm, sizeof(mm), "two Ps: the main G, keeping its P busy, makes a G; from sl_go "
		 "until the G runs on the other M, woken from its park (%d of %d not taken by it)",
		 w.missed, w.samples);
	stat_of(&w.s, &st, mm);
	cal_measurement(c, "m_wake_ns", &st);
	return true;
}

bool cal_rt_probes(struct cal_ctx *c, struct err *e)
{
	struct cal_stat gsw;
	if (!probe_g_switch(c, &gsw, e))
		return false;
	cal_progress_step(&c->prog, 0.15);
	if (!probe_handoff(c, e))
		return false;
	cal_progress_step(&c->prog, 0.3);

	struct spawn_stats ss;
	if (!probe_spawn(c, &ss, e))
		return false;
	cal_figure(c, "runtime_ns.g_create", &ss.create);
	cal_measurement(c, "g_first_run_fresh_stack_ns", &ss.fresh);
	cal_measurement(c, "g_first_run_cached_stack_ns", &ss.cached);
	cal_measurement(c, "g_run_and_exit_ns", &ss.run_exit);
	struct cal_stat stack = ss.fresh;
	minus(&stack, ss.cached.median);
	cal_method(&stack, "first run of a G on a stack never used (%.0f ns per G) less the same on "
		   "a stack given back (%.0f ns): carving and faulting in a new stack",
		   ss.fresh.median, ss.cached.median);
	cal_figure(c, "runtime_ns.stack_acquire", &stack);
	struct cal_stat gexit = ss.run_exit;
	minus(&gexit, gsw.median);
	cal_method(&gexit, "a G that returns at once, start to exit with a stack given back (%.0f ns "
		   "per G), less os_ns.g_switch (%.0f ns, the switch into it; the switch out is "
		   "the exit's own)", ss.run_exit.median, gsw.median);
	cal_figure(c, "runtime_ns.g_exit", &gexit);

	if (!probe_m_wake(c, e))
		return false;
	snprintf(c->summary, sizeof(c->summary),
		 "g_create %.0f ns, g_exit %.0f ns, stack_acquire %.0f ns, g_switch %.0f ns",
		 ss.create.median, gexit.median, stack.median, gsw.median);
	return true;
}
