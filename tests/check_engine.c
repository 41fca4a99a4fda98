/* Tests of the discrete-event engine (suite "sim"). */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/ctx.h"
#include "sim/engine.h"
#include "tests/tests.h"

/* ---- Event order --------------------------------------------------------- */

struct rec {
	sim_time_t time;
	int id;
};
static struct rec fired[4096];
static int nfired;

static void record(struct sim_engine *eng, void *arg)
{
	fired[nfired].time = sim_now(eng);
	fired[nfired].id = (int)(intptr_t)arg;
	nfired++;
}

START_TEST(events_fire_in_time_then_schedule_order)
{
	struct sim_engine *eng = sim_engine_new();
	sim_time_t when[2000];
	unsigned x = 12345;
	nfired = 0;
	for (int i = 0; i < 2000; i++) {
		x = x * 1103515245u + 12345u;
		when[i] = (x >> 16) % 50; /* many ties on purpose */
		sim_schedule(eng, when[i], record, (void *)(intptr_t)i);
	}
	ck_assert_uint_eq(sim_run(eng), 2000);
	ck_assert_int_eq(nfired, 2000);
	for (int i = 1; i < nfired; i++) {
		ck_assert_uint_le(fired[i - 1].time, fired[i].time);
		if (fired[i - 1].time == fired[i].time)
			ck_assert_int_lt(fired[i - 1].id, fired[i].id);
		ck_assert_uint_eq(fired[i].time, when[fired[i].id]);
	}
	sim_engine_free(eng);
}
END_TEST

static void chain(struct sim_engine *eng, void *arg)
{
	record(eng, arg);
	int id = (int)(intptr_t)arg;
	if (id < 10)
		sim_schedule(eng, sim_now(eng), chain, (void *)(intptr_t)(id + 1));
}

START_TEST(event_scheduled_now_fires_after_those_already_due)
{
	struct sim_engine *eng = sim_engine_new();
	nfired = 0;
	sim_schedule(eng, 5, chain, (void *)(intptr_t)0);
	sim_schedule(eng, 5, record, (void *)(intptr_t)100);
	sim_run(eng);
	ck_assert_int_eq(nfired, 12);
	ck_assert_int_eq(fired[0].id, 0);
	ck_assert_int_eq(fired[1].id, 100);
	for (int i = 2; i < 12; i++)
		ck_assert_int_eq(fired[i].id, i - 1);
	sim_engine_free(eng);
}
END_TEST

START_TEST(run_until_leaves_later_events_pending)
{
	struct sim_engine *eng = sim_engine_new();
	nfired = 0;
	for (int i = 0; i < 10; i++)
		sim_schedule(eng, (sim_time_t)i * 100, record, (void *)(intptr_t)i);
	ck_assert_uint_eq(sim_run_until(eng, 450), 5);
	ck_assert_uint_eq(sim_now(eng), 400);
	ck_assert_uint_eq(sim_pending(eng), 5);
	ck_assert_uint_eq(sim_run(eng), 5);
	ck_assert_uint_eq(sim_now(eng), 900);
	sim_engine_free(eng);
}
END_TEST

static void past(struct sim_engine *eng, void *arg)
{
	(void)arg;
	sim_schedule(eng, sim_now(eng) - 1, record, NULL);
}

START_TEST(scheduling_in_the_past_aborts_in_debug_builds)
{
	struct sim_engine *eng = sim_engine_new();
	sim_schedule(eng, 10, past, NULL);
	sim_run(eng);
}
END_TEST

/* ---- Actors -------------------------------------------------------------- */

static char log_buf[256];
static void logc(char c)
{
	size_t n = strlen(log_buf);
	log_buf[n] = c;
	log_buf[n + 1] = '\0';
}

static void sleeper(struct sim_actor *self, void *arg)
{
	sim_time_t step = (sim_time_t)(uintptr_t)arg;
	for (int i = 0; i < 3; i++) {
		sim_sleep(self, step);
		logc(self->name[0]);
	}
}

START_TEST(actors_interleave_by_simulated_time)
{
	struct sim_engine *eng = sim_engine_new();
	log_buf[0] = '\0';
	sim_spawn(eng, "a", sleeper, (void *)(uintptr_t)10, 0);
	sim_spawn(eng, "b", sleeper, (void *)(uintptr_t)15, 0);
	sim_run(eng);
	/* a at 10, 20, 30; b at 15, 30, 45.  The tie at 30 goes to b: its wait
	 * was scheduled at 15, a's only at 20, and ties fire in scheduling
	 * order. */
	ck_assert_str_eq(log_buf, "ababab");
	ck_assert_uint_eq(sim_now(eng), 45);
	ck_assert_uint_eq(sim_stats(eng)->actors, 2);
	sim_engine_free(eng);
}
END_TEST

static struct sim_actor *blocked_actor;
static bool woken_result;
static sim_time_t woke_at;

static void blocker(struct sim_actor *self, void *arg)
{
	sim_time_t deadline = (sim_time_t)(uintptr_t)arg;
	woken_result = sim_block_until(self, deadline);
	woke_at = sim_now(self->eng);
}

static void waker(struct sim_actor *self, void *arg)
{
	sim_sleep(self, (sim_time_t)(uintptr_t)arg);
	sim_wake(blocked_actor, sim_now(self->eng) + 7);
}

START_TEST(block_ends_by_wake_or_by_deadline)
{
	struct sim_engine *eng = sim_engine_new();
	blocked_actor = sim_spawn(eng, "blocker", blocker, (void *)(uintptr_t)1000, 0);
	sim_spawn(eng, "waker", waker, (void *)(uintptr_t)100, 0);
	sim_run(eng);
	ck_assert(woken_result);
	ck_assert_uint_eq(woke_at, 107);
	/* The superseded time-out at 1000 must not resume it again. */
	ck_assert_uint_eq(sim_stats(eng)->stale, 1);
	sim_engine_free(eng);

	eng = sim_engine_new();
	blocked_actor = sim_spawn(eng, "blocker", blocker, (void *)(uintptr_t)50, 0);
	sim_spawn(eng, "waker", waker, (void *)(uintptr_t)100, 0);
	sim_run(eng);
	ck_assert(!woken_result);
	ck_assert_uint_eq(woke_at, 50);
	sim_engine_free(eng);
}
END_TEST

static void early_waker(struct sim_actor *self, void *arg)
{
	(void)arg;
	sim_wake(blocked_actor, sim_now(self->eng));
}

static void late_blocker(struct sim_actor *self, void *arg)
{
	(void)arg;
	sim_sleep(self, 10);   /* the wake arrives while we are not blocked */
	sim_block(self);       /* ... and is not lost */
	woke_at = sim_now(self->eng);
}

START_TEST(wake_before_block_is_kept)
{
	struct sim_engine *eng = sim_engine_new();
	woke_at = 0;
	blocked_actor = sim_spawn(eng, "late", late_blocker, NULL, 0);
	sim_spawn(eng, "early", early_waker, NULL, 0);
	sim_run(eng);
	ck_assert_uint_eq(woke_at, 10);
	sim_engine_free(eng);
}
END_TEST

static void yielder(struct sim_actor *self, void *arg)
{
	(void)arg;
	logc('y');
	sim_yield(self);
	logc('Y');
}

static void plain(struct sim_actor *self, void *arg)
{
	(void)self;
	(void)arg;
	logc('p');
}

START_TEST(yield_lets_everything_due_now_run_first)
{
	struct sim_engine *eng = sim_engine_new();
	log_buf[0] = '\0';
	sim_spawn(eng, "y", yielder, NULL, 0);
	sim_spawn(eng, "p", plain, NULL, 0);
	sim_run(eng);
	ck_assert_str_eq(log_buf, "ypY");
	ck_assert_uint_eq(sim_now(eng), 0);
	sim_engine_free(eng);
}
END_TEST

static int finished;
static void spawner(struct sim_actor *self, void *arg)
{
	int depth = (int)(intptr_t)arg;
	finished++;
	if (depth == 0)
		return;
	sim_spawn(self->eng, "child", spawner, (void *)(intptr_t)(depth - 1), 16384);
	sim_spawn(self->eng, "child", spawner, (void *)(intptr_t)(depth - 1), 16384);
	sim_sleep(self, 1);
}

START_TEST(many_actors_spawn_run_and_end)
{
	struct sim_engine *eng = sim_engine_new();
	finished = 0;
	sim_spawn(eng, "root", spawner, (void *)(intptr_t)10, 16384);
	sim_run(eng);
	ck_assert_int_eq(finished, 2047);
	ck_assert_uint_eq(sim_stats(eng)->actors, 2047);
	sim_engine_free(eng);
}
END_TEST

static void blocks_forever(struct sim_actor *self, void *arg)
{
	(void)arg;
	sim_block(self);
	ck_abort_msg("nobody wakes this actor");
}

START_TEST(engine_frees_actors_left_blocked)
{
	struct sim_engine *eng = sim_engine_new();
	for (int i = 0; i < 10; i++)
		sim_spawn(eng, "stuck", blocks_forever, NULL, 0);
	sim_run(eng);
	ck_assert_uint_eq(sim_pending(eng), 0);
	sim_engine_free(eng); /* valgrind/ASan: no leak */
}
END_TEST

#ifdef CTX_ASAN
#include <sanitizer/asan_interface.h>

static __attribute__((noinline)) void deep_then_block(struct sim_actor *self, int depth)
{
	volatile char pad[256];
	pad[0] = (char)depth;
	if (depth > 0)
		deep_then_block(self, depth - 1);
	else
		sim_block(self);
	(void)pad[0];
}

static void blocks_deep(struct sim_actor *self, void *arg)
{
	(void)arg;
	deep_then_block(self, 16);
}

/* An actor abandoned deep in calls leaves its frames' redzones poisoned;
 * once its stack is unmapped, the next mapping of that size usually lands
 * at the same address (a trace chunk did, in CI), and must be clean. */
START_TEST(unmapped_stacks_leave_no_poison_behind)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t map = SIM_STACK_DEFAULT + page;
	struct sim_engine *eng = sim_engine_new();
	sim_spawn(eng, "deep", blocks_deep, NULL, 0);
	sim_run(eng);
	sim_engine_free(eng);
	void *mem = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	ck_assert_ptr_null(__asan_region_is_poisoned(mem, map));
	munmap(mem, map);
}
END_TEST
#endif

/* ---- Superseded time-outs ---------------------------------------------------
 * Sleepers block with a far time-out and are woken long before it, again
 * and again: every time-out is superseded.  They must leave the queue (a
 * preempted computation does this once per preemption, for hours), and
 * purging them must not disturb when anything else fires. */

#define NSLEEPERS 64
#define ROUNDS 2000
static struct sim_actor *sleepers[NSLEEPERS];
static sim_time_t wake_due[NSLEEPERS];
static int wakes_seen[NSLEEPERS];
static size_t most_pending;
static sim_time_t last_timeout_at;

static void superseded(struct sim_actor *self, void *arg)
{
	int i = (int)(intptr_t)arg;
	for (int k = 0; k < ROUNDS; k++) {
		bool woken = sim_block_until(self, sim_now(self->eng) + 1000000000000ull + (sim_time_t)k);
		ck_assert(woken);
		ck_assert_uint_eq(sim_now(self->eng), wake_due[i]);
		wakes_seen[i]++;
	}
	/* and a time-out that nobody supersedes still ends its block */
	sim_time_t t = sim_now(self->eng) + 5 + (sim_time_t)i;
	ck_assert(!sim_block_until(self, t));
	ck_assert_uint_eq(sim_now(self->eng), t);
	last_timeout_at = t;
}

static void superseder(struct sim_actor *self, void *arg)
{
	(void)arg;
	for (int k = 0; k < ROUNDS; k++) {
		sim_sleep(self, 10);
		for (int i = 0; i < NSLEEPERS; i++) {
			wake_due[i] = sim_now(self->eng) + (sim_time_t)(i % 3);
			sim_wake(sleepers[i], wake_due[i]);
		}
		size_t n = sim_pending(self->eng);
		most_pending = n > most_pending ? n : most_pending;
	}
}

START_TEST(superseded_timeouts_leave_the_queue)
{
	struct sim_engine *eng = sim_engine_new();
	memset(wakes_seen, 0, sizeof(wakes_seen));
	most_pending = 0;
	for (int i = 0; i < NSLEEPERS; i++)
		sleepers[i] = sim_spawn(eng, "superseded", superseded, (void *)(intptr_t)i, 0);
	sim_spawn(eng, "superseder", superseder, NULL, 0);
	sim_run(eng);
	for (int i = 0; i < NSLEEPERS; i++)
		ck_assert_int_eq(wakes_seen[i], ROUNDS);
	ck_assert_uint_eq(sim_stats(eng)->stale, (uint64_t)NSLEEPERS * ROUNDS);
	/* live: a time-out per sleeper and the wakes; stale: at most as many
	 * again, and the floor -- not the 128,000 superseded */
	ck_assert_msg(most_pending < 4 * NSLEEPERS + 64, "%zu pending", most_pending);
	ck_assert_uint_eq(sim_now(eng), last_timeout_at);
	ck_assert_uint_eq(sim_pending(eng), 0);
	sim_engine_free(eng);
}
END_TEST

/* Between runs, sim_pending_live counts what can still fire: not the
 * superseded time-out at 1000 (still queued at 500, unless it was
 * dropped at once), only the waker's wake at 2007. */
static void blocks_after_wake(struct sim_actor *self, void *arg)
{
	(void)arg;
	ck_assert(sim_block_until(self, 1000));
	sim_block(self);
}

static void wakes_then_sleeps(struct sim_actor *self, void *arg)
{
	sim_sleep(self, 7);
	sim_wake(arg, sim_now(self->eng));
	sim_sleep(self, 2000);
}

START_TEST(pending_live_leaves_out_superseded_timeouts)
{
	struct sim_engine *eng = sim_engine_new();
	struct sim_actor *a = sim_spawn(eng, "blocked", blocks_after_wake, NULL, 0);
	sim_spawn(eng, "waker", wakes_then_sleeps, a, 0);
	sim_run_until(eng, 500);
	size_t all = sim_pending(eng);
	ck_assert_uint_eq(sim_pending_live(eng), 1);
	ck_assert_uint_le(sim_pending(eng), all);
	sim_run(eng);
	ck_assert_uint_eq(sim_now(eng), 2007);
	ck_assert_uint_eq(sim_pending_live(eng), 0);
	sim_engine_free(eng);
}
END_TEST

/* sim_sleep saturates: a sleep to past 2^64 - 1 waits forever, it does
 * not wrap into the past. */
static bool slept_through;
static void long_sleeper(struct sim_actor *self, void *arg)
{
	(void)arg;
	sim_sleep(self, 10);
	sim_sleep(self, SIM_TIME_MAX - 5);
	slept_through = true;
}

START_TEST(sleep_past_the_end_of_time_saturates)
{
	struct sim_engine *eng = sim_engine_new();
	slept_through = false;
	sim_spawn(eng, "long", long_sleeper, NULL, 0);
	sim_run(eng);
	ck_assert(!slept_through);
	ck_assert_uint_eq(sim_now(eng), 10);
	sim_engine_free(eng);
}
END_TEST

/* sim_stop from another thread ends a run that would never end by itself
 * (a wall-clock watchdog's use); one made before a run ends that run at
 * once, and the next goes on. */
static void spinner(struct sim_actor *self, void *arg)
{
	(void)arg;
	for (;;)
		sim_sleep(self, 1);
}

static void *stop_later(void *arg)
{
	usleep(20000);
	sim_stop(arg);
	return NULL;
}

START_TEST(stop_from_another_thread_ends_the_run)
{
	struct sim_engine *eng = sim_engine_new();
	sim_spawn(eng, "spinner", spinner, NULL, 0);
	sim_stop(eng);
	ck_assert_uint_eq(sim_run(eng), 0);
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, stop_later, eng), 0);
	ck_assert_uint_gt(sim_run(eng), 0);   /* returns: the stop came */
	pthread_join(t, NULL);
	sim_time_t at = sim_now(eng);
	ck_assert_uint_eq(sim_run_until(eng, at + 100), 100);
	sim_engine_free(eng);
}
END_TEST

/* A small random simulation whose trace is hashed: two runs must agree. */
static uint64_t trace_hash;
static void busy(struct sim_actor *self, void *arg)
{
	unsigned x = (unsigned)(uintptr_t)arg;
	for (int i = 0; i < 200; i++) {
		x = x * 1664525u + 1013904223u;
		if (x & 0x100)
			sim_sleep(self, (x >> 20) % 13);
		else
			sim_yield(self);
		trace_hash = trace_hash * 1099511628211ull ^ (sim_now(self->eng) * 31 + self->id);
	}
}

static uint64_t run_busy(void)
{
	struct sim_engine *eng = sim_engine_new();
	trace_hash = 1469598103934665603ull;
	for (int i = 0; i < 16; i++)
		sim_spawn(eng, "busy", busy, (void *)(uintptr_t)(i * 77 + 1), 0);
	sim_run(eng);
	sim_engine_free(eng);
	return trace_hash;
}

START_TEST(same_inputs_give_the_same_trace)
{
	uint64_t a = run_busy(), b = run_busy();
	ck_assert_uint_eq(a, b);
}
END_TEST

/* A wait that comes before every pending event only moves the clock
 * (engine.c, "Own clock").  The reference is the same simulation with every
 * wait an event (sim_set_own_clock off).  Ties are frequent here (sleeps of
 * 0 to 12 ns, yields, callbacks due at the same instants), and the run is
 * cut into pieces by sim_run_until, so a shortcut taken at a tie or past the
 * run's limit changes the hash.  Under a tie-break that draws a priority
 * from a stream at each event, as exploration's does, the shortcut must
 * draw it too: the stream, and so every later tie, stays the same. */
static uint64_t tie_stream;
static uint32_t drawn_priority(void *ctx, struct sim_actor *a)
{
	(void)ctx;
	tie_stream = tie_stream * 6364136223846793005ull + 1442695040888963407ull;
	trace_hash ^= (uint64_t)(a ? a->id : 999);
	return (uint32_t)(tie_stream >> 60);   /* 16 priorities: ties reordered often */
}

static void tick(struct sim_engine *eng, void *arg)
{
	uintptr_t k = (uintptr_t)arg;
	trace_hash = trace_hash * 1099511628211ull ^ (sim_now(eng) * 7 + k);
	if (k < 400)
		sim_schedule(eng, sim_now(eng) + k % 5, tick, (void *)(k + 16));
}

static uint64_t run_mixed(bool own_clock, bool tiebreak, uint64_t *advances)
{
	struct sim_engine *eng = sim_engine_new();
	sim_set_own_clock(eng, own_clock);
	tie_stream = 1;
	if (tiebreak)
		sim_set_tiebreak(eng, drawn_priority, NULL);
	trace_hash = 1469598103934665603ull;
	for (int i = 0; i < 16; i++) {
		sim_spawn(eng, "busy", busy, (void *)(uintptr_t)(i * 77 + 1), 0);
		sim_schedule(eng, (sim_time_t)i, tick, (void *)(uintptr_t)i);
	}
	for (sim_time_t until = 3; sim_pending(eng) > 0; until += 37)
		sim_run_until(eng, until);
	*advances = sim_stats(eng)->advances;
	sim_engine_free(eng);
	return trace_hash ^ tie_stream;
}

START_TEST(waits_ahead_of_all_move_only_the_clock)
{
	for (int tiebreak = 0; tiebreak <= 1; tiebreak++) {
		uint64_t fast_adv, ref_adv;
		uint64_t fast = run_mixed(true, tiebreak, &fast_adv);
		uint64_t ref = run_mixed(false, tiebreak, &ref_adv);
		ck_assert_msg(fast == ref, "tie-break %d: %llx against %llx", tiebreak,
			      (unsigned long long)fast, (unsigned long long)ref);
		ck_assert_uint_eq(ref_adv, 0);
		ck_assert_uint_gt(fast_adv, 0);
	}
}
END_TEST

/* ---- Context switch ------------------------------------------------------ */

static struct ctx t_main, t_co;
static int co_steps;
static void co_body(void *arg)
{
	double d = *(double *)arg;
	for (;;) {
		co_steps++;
		/* floating point and a call across the switch keep working */
		d = d * 1.5;
		*(double *)arg = d;
		ctx_switch(&t_co, &t_main);
	}
}

START_TEST(context_switch_preserves_callee_saved_state)
{
	static char stack[32768];
	double v = 2.0;
	volatile long keep[6] = { 1, 2, 3, 4, 5, 6 };
	ctx_init_thread(&t_main);
	ctx_make(&t_co, stack, sizeof(stack), co_body, &v);
	co_steps = 0;
	for (int i = 0; i < 5; i++)
		ctx_switch(&t_main, &t_co);
	ck_assert_int_eq(co_steps, 5);
	ck_assert(v == 2.0 * 1.5 * 1.5 * 1.5 * 1.5 * 1.5);
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(keep[i], i + 1);
	ctx_destroy(&t_co);
}
END_TEST

Suite *make_engine_suite(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("engine");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, events_fire_in_time_then_schedule_order);
	tcase_add_test(tc, event_scheduled_now_fires_after_those_already_due);
	tcase_add_test(tc, run_until_leaves_later_events_pending);
#ifndef NDEBUG
	const char *fork_env = getenv("CK_FORK");
	if (!fork_env || strcmp(fork_env, "no") != 0)
		tcase_add_test_raise_signal(tc, scheduling_in_the_past_aborts_in_debug_builds, SIGABRT);
#endif
	tcase_add_test(tc, actors_interleave_by_simulated_time);
	tcase_add_test(tc, block_ends_by_wake_or_by_deadline);
	tcase_add_test(tc, wake_before_block_is_kept);
	tcase_add_test(tc, yield_lets_everything_due_now_run_first);
	tcase_add_test(tc, many_actors_spawn_run_and_end);
	tcase_add_test(tc, engine_frees_actors_left_blocked);
#ifdef CTX_ASAN
	tcase_add_test(tc, unmapped_stacks_leave_no_poison_behind);
#endif
	tcase_add_test(tc, superseded_timeouts_leave_the_queue);
	tcase_add_test(tc, sleep_past_the_end_of_time_saturates);
	tcase_add_test(tc, pending_live_leaves_out_superseded_timeouts);
	tcase_add_test(tc, stop_from_another_thread_ends_the_run);
	tcase_add_test(tc, same_inputs_give_the_same_trace);
	tcase_add_test(tc, waits_ahead_of_all_move_only_the_clock);
	tcase_add_test(tc, context_switch_preserves_callee_saved_state);
	suite_add_tcase(s, tc);
	return s;
}
