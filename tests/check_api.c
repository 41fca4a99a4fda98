/* The native C API (native/schedlab.h), used as a C program would: every
 * test is an sl_run whose main goroutine does the work and records what
 * it saw in plain statics the test then checks. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "arch/ctx.h"   /* CTX_ASAN, CTX_TSAN: the sanitizer this suite is built with */
#include "native/faults.h"
#include "native/schedlab.h"
#include "tests/tests.h"

static const struct sl_options two_ps = { .procs = 2, .seed = 1 };

/* ---- Goroutines, yields, channels in order ---- */

static struct {
	sl_chan *c;
	sl_wg *wg;
	atomic_int yields;
	uint64_t sum;
	bool in_order;
} cf;

static void yielder(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++) {
		atomic_fetch_add(&cf.yields, 1);
		sl_gosched();
	}
	sl_wg_done(cf.wg);
}

static void producer(void *arg)
{
	(void)arg;
	for (uint64_t v = 1; v <= 1000; v++)
		sl_chan_send(cf.c, v);
	sl_wg_done(cf.wg);
}

static void consumer(void *arg)
{
	(void)arg;
	cf.in_order = true;
	for (uint64_t expect = 1; expect <= 1000; expect++) {
		uint64_t v = sl_chan_recv(cf.c);
		cf.in_order &= v == expect;
		cf.sum += v;
	}
	sl_wg_done(cf.wg);
}

static void goroutines_main(void *arg)
{
	(void)arg;
	cf.c = sl_chan_make(0);
	cf.wg = sl_wg_new();
	sl_wg_add(cf.wg, 102);
	for (int i = 0; i < 100; i++)
		sl_go(yielder, NULL);
	sl_go(consumer, NULL);
	sl_go(producer, NULL);
	sl_wg_wait(cf.wg);
	sl_chan_free(cf.c);
	sl_wg_free(cf.wg);
}

START_TEST(goroutines)
{
	memset(&cf, 0, sizeof(cf));
	struct sl_stats st;
	struct sl_options o = two_ps;
	o.stats = &st;
	ck_assert_int_eq(sl_run(&o, goroutines_main, NULL), 0);
	ck_assert_uint_eq(st.goroutines, 103);
	ck_assert_int_eq(atomic_load(&cf.yields), 1000);
	ck_assert(cf.in_order);
	ck_assert_uint_eq(cf.sum, 1000ull * 1001 / 2);
}
END_TEST

/* ---- Channel semantics ---- */

static struct {
	bool buffered_no_wait, fourth_waits, drained_then_closed, zero_after_close;
	bool unbuffered_default, nil_case_ignored;
} cs;

static void chan_semantics_main(void *arg)
{
	(void)arg;
	sl_chan *b = sl_chan_make(3);
	for (uint64_t v = 1; v <= 3; v++)
		sl_chan_send(b, v);                  /* would deadlock if it waited */
	cs.buffered_no_wait = true;
	struct sl_case send4 = { b, SL_SEND, 4, false };
	cs.fourth_waits = sl_select(&send4, 1, true) == -1;
	sl_chan_close(b);
	bool ok = true;
	uint64_t got[3];
	for (int i = 0; i < 3; i++)
		got[i] = sl_chan_recv2(b, &ok);
	cs.drained_then_closed = got[0] == 1 && got[1] == 2 && got[2] == 3 && ok;
	uint64_t after = sl_chan_recv2(b, &ok);
	cs.zero_after_close = after == 0 && !ok;
	sl_chan_free(b);

	sl_chan *u = sl_chan_make(0);
	struct sl_case c[2] = { { u, SL_RECV, 0, false }, { NULL, SL_RECV, 0, false } };
	cs.unbuffered_default = sl_select(c, 2, true) == -1;
	/* a closed channel's receive case is ready; the nil one never is */
	sl_chan_close(u);
	cs.nil_case_ignored = sl_select(c, 2, false) == 0 && !c[0].ok;
	sl_chan_free(u);
}

START_TEST(channel_semantics)
{
	memset(&cs, 0, sizeof(cs));
	ck_assert_int_eq(sl_run(&two_ps, chan_semantics_main, NULL), 0);
	ck_assert(cs.buffered_no_wait);
	ck_assert(cs.fourth_waits);
	ck_assert(cs.drained_then_closed);
	ck_assert(cs.zero_after_close);
	ck_assert(cs.unbuffered_default);
	ck_assert(cs.nil_case_ignored);
}
END_TEST

/* ---- Select under contention: 1,000 values arrive exactly once ---- */

#define SEL_CHANS 4
#define SEL_EACH 250
static struct {
	sl_chan *c[SEL_CHANS];
	unsigned char seen[SEL_CHANS * SEL_EACH];
	int dups;
} sel;

static void sel_sender(void *arg)
{
	uintptr_t k = (uintptr_t)arg;
	for (uint64_t i = 0; i < SEL_EACH; i++)
		sl_chan_send(sel.c[k], k * SEL_EACH + i);
	sl_chan_close(sel.c[k]);
}

static void select_main(void *arg)
{
	(void)arg;
	for (int k = 0; k < SEL_CHANS; k++)
		sel.c[k] = sl_chan_make(k % 2);   /* buffered and unbuffered */
	for (uintptr_t k = 0; k < SEL_CHANS; k++)
		sl_go(sel_sender, (void *)k);
	struct sl_case cases[SEL_CHANS];
	for (int k = 0; k < SEL_CHANS; k++)
		cases[k] = (struct sl_case){ sel.c[k], SL_RECV, 0, false };
	for (int open = SEL_CHANS; open > 0;) {
		int i = sl_select(cases, SEL_CHANS, false);
		if (!cases[i].ok) {
			cases[i].c = NULL;   /* closed: leave it out from now on */
			open--;
			continue;
		}
		if (sel.seen[cases[i].v]++)
			sel.dups++;
	}
	for (int k = 0; k < SEL_CHANS; k++)
		sl_chan_free(sel.c[k]);
}

START_TEST(select_contention)
{
	memset(&sel, 0, sizeof(sel));
	ck_assert_int_eq(sl_run(&two_ps, select_main, NULL), 0);
	ck_assert_int_eq(sel.dups, 0);
	for (int i = 0; i < SEL_CHANS * SEL_EACH; i++)
		ck_assert_msg(sel.seen[i] == 1, "value %d seen %d times", i, sel.seen[i]);
}
END_TEST

/* ---- Mutex and WaitGroup under contention ---- */

#define MU_GS 8
#define MU_EACH 2000
static struct {
	sl_mutex *mu;
	sl_wg *wg;
	long counter;
	int inside;
	bool overlap;
} mx;

static void mu_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < MU_EACH; i++) {
		sl_mutex_lock(mx.mu);
		if (mx.inside++)
			mx.overlap = true;
		long c = mx.counter;
		if (i % 100 == 0)
			sl_gosched();   /* hold the lock across a reschedule now and then */
		mx.counter = c + 1;
		mx.inside--;
		sl_mutex_unlock(mx.mu);
	}
	sl_wg_done(mx.wg);
}

static void mutex_main(void *arg)
{
	(void)arg;
	mx.mu = sl_mutex_new();
	mx.wg = sl_wg_new();
	sl_wg_add(mx.wg, MU_GS);
	for (int i = 0; i < MU_GS; i++)
		sl_go(mu_worker, NULL);
	sl_wg_wait(mx.wg);
	sl_mutex_free(mx.mu);
	sl_wg_free(mx.wg);
}

START_TEST(mutex_waitgroup)
{
	memset(&mx, 0, sizeof(mx));
	ck_assert_int_eq(sl_run(&two_ps, mutex_main, NULL), 0);
	ck_assert(!mx.overlap);
	ck_assert_int_eq(mx.counter, MU_GS * MU_EACH);
}
END_TEST

/* ---- Sleep ---- */

/* Sleepers started longest-first wake shortest-first, never early.  Gs
 * whose timers fire in one batch are readied through runnext, so the
 * later-due of them runs first, as in Go: order is checked between Gs due
 * 20 ms apart, which no batch spans even on a loaded machine under
 * ThreadSanitizer (10 ms was once spanned there). */
#define NSLEEPERS 40
static struct {
	int64_t due[NSLEEPERS], woke[NSLEEPERS];
	sl_wg *wg;
	int64_t waited;           /* ns the run's threads were kept off the CPU, -1: unknown */
} sl;

static int64_t sleep_ns(uintptr_t id)
{
	return (int64_t)(NSLEEPERS - id) * 1000000;
}

static void sleeper(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	sl.due[id] = sl_nanotime() + sleep_ns(id);
	sl_sleep(sleep_ns(id));
	sl.woke[id] = sl_nanotime();
	sl_wg_done(sl.wg);
}

static void sleep_main(void *arg)
{
	(void)arg;
	int64_t w0 = test_threads_wait_ns();
	sl.wg = sl_wg_new();
	sl_wg_add(sl.wg, NSLEEPERS);
	for (uintptr_t i = 0; i < NSLEEPERS; i++)
		sl_go(sleeper, (void *)i);
	sl_wg_wait(sl.wg);
	sl_wg_free(sl.wg);
	int64_t w1 = test_threads_wait_ns();
	sl.waited = w0 < 0 || w1 < 0 ? -1 : w1 - w0;
}

/* The first pair (j due 20 ms before i) woken out of order, or -1. */
static int sleepers_out_of_order(int *later)
{
	for (int i = 0; i < NSLEEPERS; i++)
		for (int j = 0; j < NSLEEPERS; j++)
			if (sl.due[j] + 20000000 <= sl.due[i] && sl.woke[j] >= sl.woke[i]) {
				*later = i;
				return j;
			}
	return -1;
}

/* A sleeper due 20 ms before another can only wake after it if the
 * timers' thread was 20 ms late, which a host busy with other work can
 * make it: a run out of order whose threads waited 10 ms or more for a
 * CPU (their schedstat run_delay) shows nothing, and is tried again, up
 * to 10 times.  Out of order with less waiting is a failure. */
START_TEST(sleep_order)
{
	int64_t waited = 0;
	for (int tries = 1; tries <= 10; tries++) {
		memset(&sl, 0, sizeof(sl));
		ck_assert_int_eq(sl_run(&two_ps, sleep_main, NULL), 0);
		for (int i = 0; i < NSLEEPERS; i++)
			ck_assert_msg(sl.woke[i] >= sl.due[i], "%d woke early", i);
		int i, j = sleepers_out_of_order(&i);
		if (j < 0 || test_under_valgrind())
			return;
		ck_assert_msg(sl.waited >= 10000000, "%d (due 20 ms earlier) woke after %d, the run's "
			      "threads having waited %lld us for a CPU", j, i, (long long)sl.waited / 1000);
		waited = sl.waited;
	}
	fprintf(stderr, "sleep_order: inconclusive: the host kept the run's threads off the CPU "
		"for 10 ms or more in each of 10 runs (%lld ms in the last)\n",
		(long long)waited / 1000000);
}
END_TEST

/* ---- A G blocked in a system call does not hold up the others ---- */

/* The call lasts until the other G is done, or 10 s: with one P, the other
 * G can only finish inside it if sysmon handed the P to another thread,
 * and a host however slow or busy (or valgrind, whose threads take turns)
 * only makes that later, never makes the call end first.  Without the
 * hand-off the call ends at 10 s and the other G after it. */
#define SYSCALL_BOUND_NS 10000000000LL

static struct {
	int64_t call_end;
	_Atomic int64_t other_done;
	sl_wg *wg;
} sc;

static void in_syscall(void *arg)
{
	(void)arg;
	sl_syscall_enter();
	int64_t start = sl_nanotime();
	while (atomic_load(&sc.other_done) == 0 && sl_nanotime() - start < SYSCALL_BOUND_NS) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	sc.call_end = sl_nanotime();
	sl_syscall_exit();
	sl_wg_done(sc.wg);
}

static void other(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++)
		sl_gosched();
	atomic_store(&sc.other_done, sl_nanotime());
	sl_wg_done(sc.wg);
}

static void syscall_main(void *arg)
{
	(void)arg;
	sc.wg = sl_wg_new();
	sl_wg_add(sc.wg, 2);
	sl_go(in_syscall, NULL);
	sl_sleep(1000000);   /* let it enter the call first */
	sl_go(other, NULL);
	sl_wg_wait(sc.wg);
	sl_wg_free(sc.wg);
}

START_TEST(syscall_handoff)
{
	memset(&sc, 0, sizeof(sc));
	struct sl_stats st;
	struct sl_options o = { .procs = 1, .stats = &st };
	ck_assert_int_eq(sl_run(&o, syscall_main, NULL), 0);
	int64_t done = atomic_load(&sc.other_done);
	ck_assert_msg(done > 0 && done <= sc.call_end,
		      "the other G finished %lld ms after the system call ended (it lasts until "
		      "then, or 10 s): the P was not handed off", (long long)(done - sc.call_end) / 1000000);
	ck_assert_uint_ge(st.threads, 2);
}
END_TEST

/* ---- The end of a run: deadlock, panics, main returning ---- */

/* What the runs below leave behind (their Gs are dropped), freed after. */
static struct {
	sl_chan *c;
	sl_wg *wg;
	sl_mutex *mu;
} left;

static void free_left(void)
{
	sl_chan_free(left.c);
	sl_wg_free(left.wg);
	sl_mutex_free(left.mu);
	memset(&left, 0, sizeof(left));
}

static void deadlock_main(void *arg)
{
	(void)arg;
	left.c = sl_chan_make(0);
	sl_chan_recv(left.c);   /* nobody will ever send */
}

static void blocked_forever(void *arg)
{
	sl_chan_recv(arg);
}

static void main_returns_main(void *arg)
{
	(void)arg;
	left.c = sl_chan_make(0);
	for (int i = 0; i < 10; i++)
		sl_go(blocked_forever, left.c);
	sl_gosched();
}

static void send_closed_main(void *arg)
{
	(void)arg;
	left.c = sl_chan_make(1);
	sl_chan_close(left.c);
	sl_chan_send(left.c, 1);
	abort();   /* not reached: the panic ends this G */
}

static void close_closed_main(void *arg)
{
	(void)arg;
	left.c = sl_chan_make(0);
	sl_chan_close(left.c);
	sl_chan_close(left.c);
	abort();
}

static void unlock_unlocked_main(void *arg)
{
	(void)arg;
	left.mu = sl_mutex_new();
	sl_mutex_unlock(left.mu);
	abort();
}

static void negative_wg_main(void *arg)
{
	(void)arg;
	left.wg = sl_wg_new();
	sl_wg_done(left.wg);
	abort();
}

START_TEST(end_of_run)
{
	static void (*const mains[])(void *) = { deadlock_main, main_returns_main,
						 send_closed_main, close_closed_main,
						 unlock_unlocked_main, negative_wg_main };
	static const int want[] = { 1, 0, 2, 2, 2, 2 };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_int_eq(sl_run(&two_ps, mains[i], NULL), want[i]);
		free_left();
	}
}
END_TEST

static void nothing(void *arg) { (void)arg; }

/* sl_run with fd 2 sent to a file: its status, and what it printed. */
static int run_capturing_stderr(const struct sl_options *o, void (*fn)(void *), void *arg,
				char *printed, size_t size)
{
	fflush(stderr);
	int saved = dup(2);
	FILE *tmp = tmpfile();
	ck_assert(saved >= 0 && tmp);
	ck_assert_int_ge(dup2(fileno(tmp), 2), 0);
	int rc = sl_run(o, fn, arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t n = fread(printed, 1, size - 1, tmp);
	printed[n] = '\0';
	fclose(tmp);
	return rc;
}

/* Go's rules, decided by the core (core/chan.c), as the C API shows
 * them: the run's status and Go's message. */
static void close_nil_main(void *arg)
{
	(void)arg;
	sl_chan_close(NULL);
	abort();   /* not reached: the panic ends this G */
}

static atomic_int sender_sending;

static void send_parks(void *c)
{
	atomic_store(&sender_sending, 1);
	sl_chan_send(c, 1);   /* parks: nobody receives; the close wakes it */
	abort();
}

static void send_woken_main(void *arg)
{
	(void)arg;
	atomic_store(&sender_sending, 0);
	left.c = sl_chan_make(0);
	sl_go(send_parks, left.c);
	while (!atomic_load(&sender_sending))
		sl_gosched();
	/* it is parked by now, or about to find the channel closed: the
	 * same panic either way */
	sl_sleep(5000000);
	sl_chan_close(left.c);
	sl_sleep(5000000);
}

static void recv_nil(void *arg)
{
	sl_chan_recv(arg);
}

static void nil_chans_main(void *arg)
{
	(void)arg;
	sl_go(recv_nil, NULL);
	sl_chan_send(NULL, 1);
}

static void select_nil_main(void *arg)
{
	(void)arg;
	struct sl_case c[1] = { { NULL, SL_RECV, 0, false } };
	sl_select(c, 1, false);   /* no case can ever fire */
}

START_TEST(go_rules_from_the_core)
{
	static const struct {
		void (*fn)(void *);
		int rc;
		const char *said[2];
	} runs[] = {
		{ close_nil_main, 2, { "panic: close of nil channel", NULL } },
		{ send_woken_main, 2, { "panic: send on closed channel [goroutine 2]", NULL } },
		{ nil_chans_main, 1, { "chan send (nil chan)", "chan receive (nil chan)" } },
		{ select_nil_main, 1, { "select (no cases)", NULL } },
	};
	char printed[4096];
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		int rc = run_capturing_stderr(&two_ps, runs[i].fn, NULL, printed, sizeof(printed));
		ck_assert_msg(rc == runs[i].rc, "run %zu: %d: %s", i, rc, printed);
		for (int k = 0; k < 2 && runs[i].said[k]; k++)
			ck_assert_msg(strstr(printed, runs[i].said[k]), "run %zu: %s", i, printed);
		free_left();
	}
}
END_TEST

/* Each bad option returns 2 with a message, printed and kept for
 * sl_error (or only kept, quiet), and the process goes on. */
START_TEST(bad_options)
{
	char printed[2048];
	struct sl_options o = { .policy = "no-such-policy" };
	ck_assert_int_eq(run_capturing_stderr(&o, nothing, NULL, printed, sizeof(printed)), 2);
	ck_assert_str_eq(printed, sl_error());
	ck_assert_msg(strstr(sl_error(), "schedlab: sl_run: policy 'no-such-policy': no such policy"),
		      "%s", sl_error());
	o.quiet = true;
	ck_assert_int_eq(run_capturing_stderr(&o, nothing, NULL, printed, sizeof(printed)), 2);
	ck_assert_str_eq(printed, "");
	ck_assert(strstr(sl_error(), "no such policy"));
	const char *set[] = { "no_such_knob=1", NULL };
	o = (struct sl_options){ .set = set, .quiet = true };
	ck_assert_int_eq(sl_run(&o, nothing, NULL), 2);
	ck_assert_msg(strstr(sl_error(), "no knob 'no_such_knob'"), "%s", sl_error());
	o = (struct sl_options){ .procs = -1, .quiet = true };
	ck_assert_int_eq(sl_run(&o, nothing, NULL), 2);
	ck_assert_msg(strstr(sl_error(), "procs -1"), "%s", sl_error());
	o = (struct sl_options){ .quiet = true };
	ck_assert_int_eq(sl_run(&o, NULL, NULL), 2);
	ck_assert_msg(strstr(sl_error(), "no function"), "%s", sl_error());
	const char *good[] = { "runnext=0", NULL };
	o = (struct sl_options){ .procs = 1, .set = good };
	ck_assert_int_eq(sl_run(&o, nothing, NULL), 0);
	ck_assert_str_eq(sl_error(), "");
	ck_assert_int_eq(sl_run(NULL, nothing, NULL), 0);
}
END_TEST

/* The runtime takes the machine's structure from hwloc and never reads a
 * calibration (docs/calibration.md): one that cannot be read made every
 * sl_run fail, and with it calibrate's own runtime probes. */
START_TEST(calibration_is_not_read)
{
	char path[] = "/tmp/schedlab-cal-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "{\"no\": ", 8), 8);
	close(fd);
	const char *was = getenv("SCHEDLAB_CALIBRATION");
	char *keep = was ? strdup(was) : NULL;
	setenv("SCHEDLAB_CALIBRATION", path, 1);
	struct sl_options o = { .procs = 1, .quiet = true };
	int rc = sl_run(&o, nothing, NULL);
	if (keep)
		setenv("SCHEDLAB_CALIBRATION", keep, 1);
	else
		unsetenv("SCHEDLAB_CALIBRATION");
	free(keep);
	unlink(path);
	ck_assert_msg(rc == 0, "%s", sl_error());
}
END_TEST

/* ---- Goroutines by the million, and the runtime's limits ---- */

static long maps_count(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	ck_assert(f);
	long n = 0;
	for (int c; (c = fgetc(f)) != EOF;)
		n += c == '\n';
	fclose(f);
	return n;
}

static long rss_bytes(void)
{
	long size = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	ck_assert(f && fscanf(f, "%ld %ld", &size, &rss) == 2);
	fclose(f);
	return rss * sysconf(_SC_PAGESIZE);
}

/* n goroutines that all start, then wait on a gate until main opens it:
 * main measures the process between the two. */
static struct {
	long n;
	size_t deep;              /* bytes of its stack each goroutine writes */
	sl_chan *gate;
	sl_wg *started, *done;
	long maps_before, maps_blocked;
	long rss_before, rss_blocked, rss_after;
} bk;

static void blocked(void *arg)
{
	(void)arg;
	if (bk.deep) {
		char *buf = __builtin_alloca(bk.deep);
		memset(buf, 1, bk.deep);
		__asm__ volatile("" : : "r"(buf) : "memory");
	}
	sl_wg_done(bk.started);
	sl_chan_recv(bk.gate);
	sl_wg_done(bk.done);
}

static void blocked_main(void *arg)
{
	(void)arg;
	bk.gate = sl_chan_make(0);
	bk.started = sl_wg_new();
	bk.done = sl_wg_new();
	bk.maps_before = maps_count();
	bk.rss_before = rss_bytes();
	sl_wg_add(bk.started, bk.n);
	sl_wg_add(bk.done, bk.n);
	for (long i = 0; i < bk.n; i++)
		sl_go(blocked, NULL);
	sl_wg_wait(bk.started);
	bk.maps_blocked = maps_count();
	bk.rss_blocked = rss_bytes();
	sl_chan_close(bk.gate);
	sl_wg_wait(bk.done);
	/* the goroutines' exits come after their last sl_wg_done: wait for
	 * the arenas they leave whole to give their pages back (a bound on
	 * waiting, not on time: the check is on the memory) */
	long want = bk.rss_blocked - (bk.rss_blocked - bk.rss_before) / 4;
	for (int i = 0; i < 2000 && (bk.rss_after = rss_bytes()) > want; i++)
		sl_sleep(10000000);
	sl_chan_free(bk.gate);
	sl_wg_free(bk.started);
	sl_wg_free(bk.done);
}

/* As many goroutines started and blocked at once as the build can take:
 * a million plainly (the old stacks, two memory mappings each, stopped at
 * ~32,000 on Linux's default vm.max_map_count of 65,530); sanitizers and
 * valgrind cost far more per goroutine, and ThreadSanitizer stops at
 * 8,128 fibers and takes milliseconds to make each.  The process's
 * mappings do not grow with them, and plainly each costs its stack's top
 * page and little more. */
START_TEST(million_blocked_goroutines)
{
	memset(&bk, 0, sizeof(bk));
#if defined(CTX_TSAN)
	bk.n = 2000;
#elif defined(CTX_ASAN)
	bk.n = 40000;
#else
	bk.n = test_under_valgrind() ? 2000 : 1000000;
#endif
	struct sl_stats st;
	struct sl_options o = two_ps;
	o.stats = &st;
	o.quiet = true;
	int rc = sl_run(&o, blocked_main, NULL);
	if (rc == 2 && strstr(sl_error(), "of memory left available") && bk.n > 100000) {
		/* the machine is short of memory (shared with other work): the
		 * runtime stopped short of the OOM killer, as it should; a tenth
		 * is still three times what two mappings a goroutine allowed */
		fprintf(stderr, "million_blocked_goroutines: %s", sl_error());
		sl_chan_free(bk.gate);
		sl_wg_free(bk.started);
		sl_wg_free(bk.done);
		memset(&bk, 0, sizeof(bk));
		bk.n = 100000;
		rc = sl_run(&o, blocked_main, NULL);
	}
	ck_assert_msg(rc == 0, "%s", sl_error());
	ck_assert_uint_eq(st.goroutines, (uint64_t)bk.n + 1);
	/* (ThreadSanitizer maps state of its own for each fiber: ~4 each) */
#if !defined(CTX_TSAN)
	long maps = bk.maps_blocked - bk.maps_before;
	ck_assert_msg(maps < bk.n / 100 + 16, "%ld goroutines blocked took %ld more mappings", bk.n,
		      maps);
#endif
#if !defined(CTX_ASAN) && !defined(CTX_TSAN)
	if (!test_under_valgrind()) {
		double per_g = (double)(bk.rss_blocked - bk.rss_before) / (double)bk.n;
		ck_assert_msg(per_g < 6144, "%.0f bytes of memory per blocked goroutine", per_g);
	}
#endif
}
END_TEST

/* A burst of goroutines that each write 32 KiB of their stacks: once they
 * have exited, the arenas they leave whole give their pages back, so the
 * process does not stay at the burst's peak. */
START_TEST(burst_gives_stack_memory_back)
{
	memset(&bk, 0, sizeof(bk));
#if defined(CTX_TSAN)
	bk.n = 4 * 1024 + 512;
#else
	bk.n = 8 * 1024;
#endif
	bk.deep = 32 * 1024;
	ck_assert_int_eq(sl_run(&two_ps, blocked_main, NULL), 0);
	/* of the arenas of 1,024 stacks, the first stays, the last is not
	 * whole and the threads' caches may hold one more */
	long arenas = bk.n / 1024 - 3;
	long given_back = bk.rss_blocked - bk.rss_after;
	ck_assert_msg(given_back >= arenas * 1024 * (long)bk.deep / 2,
		      "%ld KiB given back of %ld KiB at the peak", given_back / 1024,
		      (bk.rss_blocked - bk.rss_before) / 1024);
}
END_TEST

static void park_all(void *arg)
{
	sl_wg_done(left.wg);
	sl_chan_recv(arg);
}

/* main starts (long)arg goroutines and returns once all have started. */
static void start_many_main(void *arg)
{
	long n = (long)(intptr_t)arg;
	left.c = sl_chan_make(0);
	left.wg = sl_wg_new();
	sl_wg_add(left.wg, n);
	for (long i = 0; i < n; i++)
		sl_go(park_all, left.c);
	sl_wg_wait(left.wg);
}

/* More goroutines started at once than max_stacks allows: the run ends
 * with a panic, and the process goes on to the next run. */
START_TEST(stack_limit_ends_the_run)
{
	struct sl_options o = two_ps;
	o.max_stacks = 256;
	o.quiet = true;
	ck_assert_int_eq(sl_run(&o, start_many_main, (void *)(intptr_t)1000), 2);
	ck_assert_msg(strstr(sl_error(), "panic: runtime: out of memory: 256 goroutine stacks made, "
				     "the most allowed (max_stacks)"),
		      "%s", sl_error());
	free_left();
	/* 60 started, and up to 64 cached for reuse by each thread */
	ck_assert_int_eq(sl_run(&o, start_many_main, (void *)(intptr_t)60), 0);
	free_left();
}
END_TEST

/* A thread that cannot be made, the first (sysmon's) or a later one,
 * ends the run with a panic; the process goes on. */
START_TEST(thread_failure_ends_the_run)
{
	struct sl_options o = two_ps;
	o.quiet = true;
	for (int ok = 0; ok < 2; ok++) {
		atomic_store(&natp_faults.threads, ok);
		ck_assert_int_eq(sl_run(&o, start_many_main, (void *)(intptr_t)100), 2);
		ck_assert_msg(strstr(sl_error(), "panic: runtime: failed to create new OS thread: "),
			      "%s", sl_error());
		free_left();
	}
	atomic_store(&natp_faults.threads, -1);
	ck_assert_int_eq(sl_run(&o, start_many_main, (void *)(intptr_t)100), 0);
	free_left();
}
END_TEST

/* With too little memory left on the machine, no stack is mapped: the
 * run ends with a panic rather than with the kernel's OOM killer. */
START_TEST(low_memory_ends_the_run)
{
	struct sl_options o = two_ps;
	o.quiet = true;
	natp_faults.memory_low = true;
	ck_assert_int_eq(sl_run(&o, nothing, NULL), 2);
	natp_faults.memory_low = false;
	ck_assert_msg(strstr(sl_error(), "panic: runtime: out of memory: 0 goroutine stacks made and "
				     "0 MiB of memory left available"),
		      "%s", sl_error());
	ck_assert_int_eq(sl_run(&o, nothing, NULL), 0);
}
END_TEST

/* A goroutine that grows 8 KiB past the end of its 256 KiB stack
 * overwrites the canary under it: it is found when the goroutine next
 * switches out, and the process aborts (with "fatal error: stack
 * overflow" on stderr). */
static const char *overflow_top;

__attribute__((noinline)) static void grow(int depth)
{
	char buf[1024];
	memset(buf, 0x55, sizeof(buf));
	__asm__ volatile("" : : "r"(buf) : "memory");
	if (overflow_top - (const char *)__builtin_frame_address(0) < 264 * 1024)
		grow(depth + 1);
	else
		sl_gosched();
	__asm__ volatile("" : : "r"(buf) : "memory");   /* no tail call: buf lives across it */
}

static void overflow_g(void *arg)
{
	overflow_top = __builtin_frame_address(0);
	grow(0);
	sl_wg_done(arg);
}

static void overflow_main(void *arg)
{
	(void)arg;
	sl_wg *wg = sl_wg_new();
	sl_wg_add(wg, 1);
	sl_go(overflow_g, wg);
	sl_wg_wait(wg);
	sl_wg_free(wg);
}

START_TEST(stack_overflow_aborts)
{
	struct sl_options o = { .procs = 1 };
	sl_run(&o, overflow_main, NULL);
}
END_TEST

/* ---- A TCP echo server on the netpoller: 1,000 loopback requests ---- */

#define ECHO_CLIENTS 10
#define ECHO_REQUESTS 100
static struct {
	sl_netfd *listener;
	struct sockaddr_in addr;
	sl_wg *clients;
	atomic_int answered, wrong;
} echo;

static void echo_conn(void *arg)
{
	sl_netfd *c = arg;
	char buf[512];
	ssize_t n;
	while ((n = sl_net_read(c, buf, sizeof(buf))) > 0)
		if (sl_net_write(c, buf, (size_t)n) != n)
			break;
	sl_net_close(c);
}

static void echo_accept(void *arg)
{
	(void)arg;
	sl_netfd *c;
	while ((c = sl_net_accept(echo.listener)))
		sl_go(echo_conn, c);
}

static void echo_client(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	sl_netfd *s = sl_net_open(socket(AF_INET, SOCK_STREAM, 0));
	if (!s || sl_net_connect(s, (struct sockaddr *)&echo.addr, sizeof(echo.addr)) != 0) {
		atomic_fetch_add(&echo.wrong, ECHO_REQUESTS);
		sl_wg_done(echo.clients);
		return;
	}
	for (int i = 0; i < ECHO_REQUESTS; i++) {
		char req[64], resp[64];
		int len = snprintf(req, sizeof(req), "client %lu request %d", (unsigned long)id, i);
		size_t got = 0;
		if (sl_net_write(s, req, (size_t)len) != len)
			break;
		while (got < (size_t)len) {
			ssize_t n = sl_net_read(s, resp + got, sizeof(resp) - got);
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		if (got == (size_t)len && memcmp(req, resp, got) == 0)
			atomic_fetch_add(&echo.answered, 1);
		else
			atomic_fetch_add(&echo.wrong, 1);
	}
	sl_net_close(s);
	sl_wg_done(echo.clients);
}

static void echo_main(void *arg)
{
	(void)arg;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	echo.addr = (struct sockaddr_in){ .sin_family = AF_INET,
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(echo.addr);
	if (bind(fd, (struct sockaddr *)&echo.addr, len) != 0 || listen(fd, 64) != 0 ||
	    getsockname(fd, (struct sockaddr *)&echo.addr, &len) != 0)
		return;
	echo.listener = sl_net_open(fd);
	echo.clients = sl_wg_new();
	sl_go(echo_accept, NULL);
	sl_wg_add(echo.clients, ECHO_CLIENTS);
	for (uintptr_t i = 0; i < ECHO_CLIENTS; i++)
		sl_go(echo_client, (void *)i);
	sl_wg_wait(echo.clients);
	sl_net_close(echo.listener);   /* the accept loop wakes and ends */
	sl_wg_free(echo.clients);
}

START_TEST(tcp_echo)
{
	memset(&echo, 0, sizeof(echo));
	ck_assert_int_eq(sl_run(&two_ps, echo_main, NULL), 0);
	ck_assert_int_eq(atomic_load(&echo.wrong), 0);
	ck_assert_int_eq(atomic_load(&echo.answered), ECHO_CLIENTS * ECHO_REQUESTS);
}
END_TEST

Suite *make_api_suite(void)
{
	Suite *s = suite_create("native");
	TCase *tc = tcase_create("api");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, goroutines);
	tcase_add_test(tc, calibration_is_not_read);
	tcase_add_test(tc, channel_semantics);
	tcase_add_test(tc, select_contention);
	tcase_add_test(tc, mutex_waitgroup);
	tcase_add_test(tc, sleep_order);
	tcase_add_test(tc, syscall_handoff);
	tcase_add_test(tc, end_of_run);
	tcase_add_test(tc, go_rules_from_the_core);
	tcase_add_test(tc, bad_options);
	tcase_add_test(tc, tcp_echo);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, million_blocked_goroutines);
	if (!test_under_valgrind())
		tcase_add_test(tc, burst_gives_stack_memory_back);
	tcase_add_test(tc, stack_limit_ends_the_run);
	tcase_add_test(tc, thread_failure_ends_the_run);
	tcase_add_test(tc, low_memory_ends_the_run);
	/* it aborts: only in a process of its own */
	const char *fork = getenv("CK_FORK");
	if (!fork || strcmp(fork, "no") != 0)
		tcase_add_test_raise_signal(tc, stack_overflow_aborts, SIGABRT);
	suite_add_tcase(s, tc);
	return s;
}
