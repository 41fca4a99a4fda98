/* The native C API (native/schedlab.h), used as a C program would: every
 * test is an sl_run whose main goroutine does the work and records what
 * it saw in plain statics the test then checks. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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
	sl.wg = sl_wg_new();
	sl_wg_add(sl.wg, NSLEEPERS);
	for (uintptr_t i = 0; i < NSLEEPERS; i++)
		sl_go(sleeper, (void *)i);
	sl_wg_wait(sl.wg);
	sl_wg_free(sl.wg);
}

START_TEST(sleep_order)
{
	memset(&sl, 0, sizeof(sl));
	ck_assert_int_eq(sl_run(&two_ps, sleep_main, NULL), 0);
	for (int i = 0; i < NSLEEPERS; i++) {
		ck_assert_msg(sl.woke[i] >= sl.due[i], "%d woke early", i);
		for (int j = 0; j < NSLEEPERS && !test_under_valgrind(); j++)
			if (sl.due[j] + 20000000 <= sl.due[i])
				ck_assert_msg(sl.woke[j] < sl.woke[i], "%d (due 20 ms earlier) woke after %d",
					      j, i);
	}
}
END_TEST

/* ---- A G blocked in a system call does not hold up the others ---- */

static struct {
	int64_t call_end;
	int64_t other_done;
	sl_wg *wg;
} sc;

static void in_syscall(void *arg)
{
	(void)arg;
	sl_syscall_enter();
	struct timespec ts = { 0, 100 * 1000000 };
	nanosleep(&ts, NULL);
	sc.call_end = sl_nanotime();
	sl_syscall_exit();
	sl_wg_done(sc.wg);
}

static void other(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++)
		sl_gosched();
	sc.other_done = sl_nanotime();
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
	/* one P: the other G could only run if the P was handed off */
	ck_assert_msg(sc.other_done < sc.call_end, "the other G waited for the system call");
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

START_TEST(bad_options)
{
	struct sl_options o = { .policy = "no-such-policy" };
	ck_assert_int_eq(sl_run(&o, nothing, NULL), 2);
	const char *set[] = { "no_such_knob=1", NULL };
	o = (struct sl_options){ .set = set };
	ck_assert_int_eq(sl_run(&o, nothing, NULL), 2);
	o = (struct sl_options){ .procs = -1 };
	ck_assert_int_eq(sl_run(&o, nothing, NULL), 2);
	const char *good[] = { "runnext=0", NULL };
	o = (struct sl_options){ .procs = 1, .set = good };
	ck_assert_int_eq(sl_run(&o, nothing, NULL), 0);
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
	tcase_add_test(tc, channel_semantics);
	tcase_add_test(tc, select_contention);
	tcase_add_test(tc, mutex_waitgroup);
	tcase_add_test(tc, sleep_order);
	tcase_add_test(tc, syscall_handoff);
	tcase_add_test(tc, end_of_run);
	tcase_add_test(tc, bad_options);
	tcase_add_test(tc, tcp_echo);
	suite_add_tcase(s, tc);
	return s;
}
