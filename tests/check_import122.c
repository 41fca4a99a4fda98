/* The Go 1.22+ trace reader (suite "import122"): Go's own text-form test
 * traces (tests/data/trace122, from Go's src/internal/trace/testdata/tests)
 * are encoded to binary by tests/trace122/encode.c and read back through
 * ti_open; those Go expects to read give a stream whose every G moves
 * only as a G can (checked here by a state machine of our own), those Go
 * expects to refuse are refused with the byte offset and the same
 * complaint; cut, corrupted and wrongly versioned traces exit with a
 * message naming the offset, never a crash. */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/tests.h"
#include "tests/trace122/encode.h"
#include "tests/trace122/synth.h"
#include "trace/import.h"
#include "trace/read122.h"

static char tmpdir[64];

static void tmpdir_setup(void)
{
	test_tmpdir(tmpdir, sizeof(tmpdir), "i122");
}

static void tmpdir_teardown(void)
{
	test_rm_rf(tmpdir);
}

static void write_bytes(const char *path, const void *b, size_t n);
static unsigned char *slurp(const char *path, size_t *n);

/* ---- Reading a whole trace ---- */

struct evlog {
	struct ti_event *ev;
	char **labels;
	size_t n, cap;
	char version[16];
	bool ok;
	char err[1024];
};

static void evlog_free(struct evlog *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->labels[i]);
	free(l->labels);
	free(l->ev);
	memset(l, 0, sizeof *l);
}

static void read_all(const char *path, struct evlog *l)
{
	memset(l, 0, sizeof *l);
	struct err e = { { 0 } };
	struct ti_reader *r = ti_open(path, &e);
	if (!r) {
		snprintf(l->err, sizeof l->err, "%s", e.msg);
		return;
	}
	snprintf(l->version, sizeof l->version, "%s", ti_version(r));
	struct ti_event ev;
	int got;
	while ((got = ti_next(r, &ev, &e)) == 1) {
		if (l->n == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 64;
			l->ev = realloc(l->ev, l->cap * sizeof *l->ev);
			l->labels = realloc(l->labels, l->cap * sizeof *l->labels);
			ck_assert_ptr_nonnull(l->ev);
			ck_assert_ptr_nonnull(l->labels);
		}
		l->labels[l->n] = ev.label ? strdup(ev.label) : NULL;
		ev.label = NULL;
		l->ev[l->n++] = ev;
	}
	if (got < 0)
		snprintf(l->err, sizeof l->err, "%s", e.msg);
	else
		l->ok = true;
	ti_close(r);
}

/* Every G's events follow the life of a G: created or existing, started
 * only when runnable, stopped, blocked, ended or entering a syscall only
 * while running, unblocked only while blocked, out of a syscall only from
 * one; time never goes backwards.  Returns a message, or NULL. */
enum { S_NONE, S_RUNNABLE, S_RUNNING, S_BLOCKED, S_SYSCALL, S_DEAD };
#define MAXG 4096

static const char *check_stream(const struct evlog *l, char *buf, size_t n)
{
	static unsigned char st[MAXG];
	memset(st, 0, sizeof st);
	int64_t last = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct ti_event *ev = &l->ev[i];
		if (ev->ts < last) {
			snprintf(buf, n, "event %zu: time goes back from %lld to %lld", i, (long long)last,
				 (long long)ev->ts);
			return buf;
		}
		last = ev->ts;
		if (ev->g >= MAXG || ev->target >= MAXG) {
			snprintf(buf, n, "event %zu: G id over %d in a test trace", i, MAXG);
			return buf;
		}
		unsigned char *g = &st[ev->g], *t = &st[ev->target];
		int want = -1;
		switch (ev->kind) {
		case TI_PROCS:
			if (ev->arg <= 0)
				return snprintf(buf, n, "event %zu: GOMAXPROCS %lld", i, (long long)ev->arg), buf;
			break;
		case TI_G_EXISTS:
			if (*g != S_NONE)
				return snprintf(buf, n, "event %zu: G %llu exists twice", i,
						(unsigned long long)ev->g), buf;
			*g = ev->reason == TI_R_NONE	  ? S_RUNNABLE
			     : ev->reason == TI_R_SYSCALL ? S_SYSCALL : S_BLOCKED;
			break;
		case TI_G_CREATE:
			if (ev->g && *g != S_RUNNING)
				return snprintf(buf, n, "event %zu: G %llu creates while not running", i,
						(unsigned long long)ev->g), buf;
			if (*t != S_NONE)
				return snprintf(buf, n, "event %zu: G %llu created twice", i,
						(unsigned long long)ev->target), buf;
			*t = S_RUNNABLE;
			break;
		case TI_G_START:
			want = S_RUNNABLE;
			/* On no P only a G made by a C thread (cgo callback). */
			if (ev->p < 0 && !(i && l->ev[i - 1].kind == TI_G_CREATE && !l->ev[i - 1].g &&
					   l->ev[i - 1].target == ev->g) &&
			    !(i && l->ev[i - 1].kind == TI_G_EXISTS && l->ev[i - 1].g == ev->g))
				return snprintf(buf, n, "event %zu: G %llu starts on no P", i,
						(unsigned long long)ev->g), buf;
			if (*g == want)
				*g = S_RUNNING;
			break;
		case TI_G_STOP:
			want = S_RUNNING;
			if (ev->reason != TI_R_YIELD && ev->reason != TI_R_PREEMPT)
				return snprintf(buf, n, "event %zu: stop reason %u", i, ev->reason), buf;
			if (*g == want)
				*g = S_RUNNABLE;
			break;
		case TI_G_BLOCK:
			if (ev->reason < TI_R_CHAN_SEND || ev->reason > TI_R_OTHER)
				return snprintf(buf, n, "event %zu: block reason %u", i, ev->reason), buf;
			want = S_RUNNING;
			if (*g == want)
				*g = S_BLOCKED;
			break;
		case TI_G_UNBLOCK:
			if (*t != S_BLOCKED)
				return snprintf(buf, n, "event %zu: unblock of G %llu, not blocked", i,
						(unsigned long long)ev->target), buf;
			*t = S_RUNNABLE;
			break;
		case TI_G_END:
			want = S_RUNNING;
			if (*g == want)
				*g = S_DEAD;
			break;
		case TI_SYSCALL:
			want = S_RUNNING;
			if (*g == want)
				*g = S_SYSCALL;
			break;
		case TI_SYSCALL_END:
			want = S_SYSCALL;
			if (*g == want)
				*g = ev->arg ? S_RUNNABLE : S_RUNNING;
			break;
		case TI_USER_TASK:
			break;
		default:
			return snprintf(buf, n, "event %zu: kind %u", i, ev->kind), buf;
		}
		if (want >= 0 && *g == want)
			return snprintf(buf, n, "event %zu (kind %u) of G %llu: not possible in its state", i,
					ev->kind, (unsigned long long)ev->g), buf;
	}
	return NULL;
}

/* ---- Go's test traces ---- */

/* Each of Go's tests, what Go expects ("SUCCESS" or its FAILURE line), and
 * the words of our reader's refusal where Go refuses. */
static const struct gotest {
	const char *name;
	const char *expect;
	const char *our_error;
} gotests[] = {
	{ "go122-annotations", "SUCCESS", NULL },
	{ "go122-confuse-seq-across-generations", "SUCCESS", NULL },
	{ "go122-create-syscall-reuse-thread-id", "SUCCESS", NULL },
	{ "go122-create-syscall-with-p", "FAILURE \".*expected a proc but didn't have one.*\"",
	  "expected a P, the M has none" },
	{ "go122-fail-first-gen-first", "FAILURE \"expected a proc but didn't have one\"",
	  "expected a P, the M has none" },
	{ "go122-go-create-without-running-g", "SUCCESS", NULL },
	{ "go122-syscall-steal-proc-ambiguous", "SUCCESS", NULL },
	{ "go122-syscall-steal-proc-gen-boundary", "SUCCESS", NULL },
	{ "go122-syscall-steal-proc-gen-boundary-bare-m", "SUCCESS", NULL },
	{ "go122-syscall-steal-proc-gen-boundary-reacquire-new-proc", "SUCCESS", NULL },
	{ "go122-syscall-steal-proc-gen-boundary-reacquire-new-proc-bare-m", "SUCCESS", NULL },
	{ "go122-syscall-steal-proc-reacquire-new-proc", "SUCCESS", NULL },
	{ "go122-syscall-steal-proc-reacquire-new-proc-bare-m", "SUCCESS", NULL },
	{ "go122-syscall-steal-proc-self", "SUCCESS", NULL },
	{ "go122-syscall-steal-proc-simple", "SUCCESS", NULL },
	{ "go122-syscall-steal-proc-simple-bare-m", "SUCCESS", NULL },
	{ "go122-syscall-steal-proc-sitting-in-syscall", "SUCCESS", NULL },
	{ "go122-task-across-generations", "SUCCESS", NULL },
	{ "go123-sync", "SUCCESS", NULL },
	{ "go125-sync", "SUCCESS", NULL },
};
#define NGOTESTS ((int)(sizeof gotests / sizeof gotests[0]))

/* Encodes Go's test name into tmpdir; returns the binary's path (static). */
static const char *encode_gotest(const char *name, char *expect, size_t n, int *bad_sizes)
{
	static char out[256];
	char in[512];
	snprintf(in, sizeof in, "%s/trace122/%s.test", test_data_dir(), name);
	snprintf(out, sizeof out, "%s/%s.trace", tmpdir, name);
	struct err e = { { 0 } };
	if (!t122_encode_test(in, out, expect, n, bad_sizes, &e))
		ck_abort_msg("encoding %s: %s", name, e.msg);
	return out;
}

START_TEST(go_testdata)
{
	const struct gotest *t = &gotests[_i];
	char expect[256];
	int bad_sizes;
	const char *path = encode_gotest(t->name, expect, sizeof expect, &bad_sizes);
	/* Our table says what Go's file says. */
	ck_assert_str_eq(expect, t->expect);
	/* Every batch's declared size is what its events encode to, but the
	 * one that test cuts short on purpose: the reader's table of events
	 * and arguments agrees with Go's writer byte for byte. */
	ck_assert_int_eq(bad_sizes, strcmp(t->name, "go122-fail-first-gen-first") == 0);
	struct evlog l;
	read_all(path, &l);
	if (!t->our_error) {
		ck_assert_msg(l.ok, "%s: %s", t->name, l.err);
		char buf[256];
		const char *bad = check_stream(&l, buf, sizeof buf);
		ck_assert_msg(!bad, "%s: %s", t->name, bad);
	} else {
		ck_assert_msg(!l.ok, "%s: read without error, Go refuses it", t->name);
		ck_assert_msg(strstr(l.err, path) && strstr(l.err, ": offset ") &&
				      strstr(l.err, t->our_error),
			      "%s: message \"%s\"", t->name, l.err);
	}
	evlog_free(&l);
}
END_TEST

static size_t count(const struct evlog *l, uint16_t kind, uint64_t g);

/* The expected stream of the simplest test, event by event: G1 enters a
 * syscall on M0, M1 steals M0's P, and G1 comes back without it. */
START_TEST(syscall_steal_stream)
{
	char expect[256];
	int bad;
	const char *path = encode_gotest("go122-syscall-steal-proc-simple", expect, sizeof expect, &bad);
	struct evlog l;
	read_all(path, &l);
	ck_assert_msg(l.ok, "%s", l.err);
	ck_assert_str_eq(l.version, "go 1.22");
	/* No ProcsChange: GOMAXPROCS is the Ps the first generation names
	 * (0 and 2: 3), first, at time 0. */
	static const struct { uint16_t kind; uint64_t g; int32_t p; int64_t arg, ts; } want[] = {
		{ TI_PROCS, 0, -1, 3, 0 }, { TI_G_EXISTS, 1, -1, 0, 64 }, { TI_G_START, 1, 0, 0, 64 },
		{ TI_G_EXISTS, 2, -1, 0, 64 }, { TI_G_START, 2, 2, 0, 64 },
		{ TI_SYSCALL, 1, -1, 0, 128 }, { TI_SYSCALL_END, 1, -1, 1, 192 },
	};
	ck_assert_uint_eq(l.n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < l.n; i++) {
		ck_assert_uint_eq(l.ev[i].kind, want[i].kind);
		ck_assert_uint_eq(l.ev[i].g, want[i].g);
		if (want[i].kind == TI_G_START)
			ck_assert_int_eq(l.ev[i].p, want[i].p);
		ck_assert_int_eq(l.ev[i].arg, want[i].arg);
		/* 15625000 ticks a second: 64 ns a tick, from the first event. */
		ck_assert_int_eq(l.ev[i].ts, want[i].ts);
		ck_assert_uint_gt(l.ev[i].off, 16);
		ck_assert_uint_lt(l.ev[i].off, 200);
	}
	evlog_free(&l);
	/* M0 takes P 1 before G1's call ends: Go's exitsyscallfast, which
	 * starts G1 at once (arg 2: no wait for a P, import.h); above it
	 * came back without one (arg 1: queued) */
	path = encode_gotest("go122-syscall-steal-proc-reacquire-new-proc", expect, sizeof expect, &bad);
	read_all(path, &l);
	ck_assert_msg(l.ok, "%s", l.err);
	ck_assert_uint_eq(count(&l, TI_SYSCALL_END, 1), 1);
	const struct ti_event *end = NULL;
	for (size_t i = 0; i < l.n; i++)
		if (l.ev[i].kind == TI_SYSCALL_END)
			end = &l.ev[i];
	ck_assert_int_eq(end->arg, 2);
	evlog_free(&l);
}
END_TEST

static size_t count(const struct evlog *l, uint16_t kind, uint64_t g)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->ev[i].kind == kind && (!g || l->ev[i].g == g);
	return n;
}

static const struct ti_event *find(const struct evlog *l, uint16_t kind, uint64_t g, uint64_t target,
				   size_t *at)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->ev[i].kind == kind && l->ev[i].g == g && l->ev[i].target == target) {
			if (at)
				*at = i;
			return &l->ev[i];
		}
	return NULL;
}

/* A real program's trace (Go's annotations test program, as Go 1.22
 * recorded it): GOMAXPROCS, the spawn tree with start functions, the
 * block reasons and the unblock edge main waits on. */
START_TEST(annotations_content)
{
	char expect[256];
	int bad;
	const char *path = encode_gotest("go122-annotations", expect, sizeof expect, &bad);
	struct evlog l;
	read_all(path, &l);
	ck_assert_msg(l.ok, "%s", l.err);
	/* ProcsChange twice with the same value: one event. */
	ck_assert_uint_eq(count(&l, TI_PROCS, 0), 1);
	size_t pc;
	for (pc = 0; l.ev[pc].kind != TI_PROCS; pc++)
		;
	ck_assert_int_eq(l.ev[pc].arg, 48);
	/* G1 (main) runs; G2-G5 wait (runtime Gs); main creates 6, 7, 8, 9. */
	ck_assert_uint_eq(count(&l, TI_G_EXISTS, 0), 5);
	ck_assert_uint_eq(count(&l, TI_G_CREATE, 1), 4);
	static const struct { uint64_t g; const char *fn; } made[] = {
		{ 6, "runtime.traceStartReadCPU.func1" },
		{ 7, "runtime.(*traceAdvancerState).start.func1" },
		{ 8, "runtime/trace.Start.func1" },
		{ 9, "main.main.func1" },
	};
	for (size_t k = 0; k < 4; k++) {
		size_t at;
		ck_assert_ptr_nonnull(find(&l, TI_G_CREATE, 1, made[k].g, &at));
		ck_assert_str_eq(l.labels[at], made[k].fn);
	}
	/* G7 and G6 block on channel receives, main on a WaitGroup (sync);
	 * G9 unblocks main, then ends; main runs again. */
	size_t b7, b1, u, end9;
	ck_assert_ptr_nonnull(find(&l, TI_G_BLOCK, 7, 0, &b7));
	ck_assert_uint_eq(l.ev[b7].reason, TI_R_CHAN_RECV);
	ck_assert_ptr_nonnull(find(&l, TI_G_BLOCK, 1, 0, &b1));
	ck_assert_uint_eq(l.ev[b1].reason, TI_R_SYNC);
	ck_assert_ptr_nonnull(find(&l, TI_G_UNBLOCK, 9, 1, &u));
	ck_assert_ptr_nonnull(find(&l, TI_G_END, 9, 0, &end9));
	ck_assert_uint_lt(b1, u);
	ck_assert_uint_lt(u, end9);
	ck_assert_uint_eq(count(&l, TI_G_START, 1), 2);
	/* The user task 1 begins in main and ends in G9. */
	ck_assert_uint_eq(count(&l, TI_USER_TASK, 0), 2);
	ck_assert_uint_eq(count(&l, TI_USER_TASK, 1), 1);
	ck_assert_int_eq(find(&l, TI_USER_TASK, 1, 0, NULL)->arg, 1);
	ck_assert_int_eq(find(&l, TI_USER_TASK, 9, 0, NULL)->arg, -1);
	/* Times: ns from the first event, the whole trace ~0.3 ms long. */
	ck_assert_int_gt(l.ev[l.n - 1].ts, 100000);
	ck_assert_int_lt(l.ev[l.n - 1].ts, 1000000);
	evlog_free(&l);
}
END_TEST

/* Versions: 1.23 and 1.25 headers are read (1.25's Sync batches), and the
 * version is what the header says; G1's four runs across generations in
 * the confusing-sequence test come out in order. */
START_TEST(versions_and_generations)
{
	char expect[256];
	int bad;
	struct evlog l;
	read_all(encode_gotest("go123-sync", expect, sizeof expect, &bad), &l);
	ck_assert_msg(l.ok, "%s", l.err);
	ck_assert_str_eq(l.version, "go 1.23");
	evlog_free(&l);
	read_all(encode_gotest("go125-sync", expect, sizeof expect, &bad), &l);
	ck_assert_msg(l.ok, "%s", l.err);
	ck_assert_str_eq(l.version, "go 1.25");
	evlog_free(&l);
	read_all(encode_gotest("go122-confuse-seq-across-generations", expect, sizeof expect, &bad), &l);
	ck_assert_msg(l.ok, "%s", l.err);
	/* Running at the start (a start), then run on M1, then twice in the
	 * second generation: M0's start (sequence 1) before M1's (2), though
	 * M1's batch has the earlier time. */
	ck_assert_uint_eq(count(&l, TI_G_START, 1), 4);
	ck_assert_uint_eq(count(&l, TI_G_STOP, 1), 3);
	evlog_free(&l);
}
END_TEST

/* Go 1.23's coroutine events, which Go's tests do not cover (our own
 * text, sizes counted by hand and checked by the encoder): a G created
 * blocked (iter.Pull), switches back and forth, a switch that ends the
 * coroutine; a G status with a stack, and an experimental batch, skipped. */
static const char coro_text[] =
	"Trace Go1.23\n"
	"EventBatch gen=1 m=0 time=0 size=33\n"
	"ProcStatus dt=1 p=0 pstatus=1\n"
	"GoStatusStack dt=1 g=1 m=0 gstatus=2 stack=1\n"
	"GoCreateBlocked dt=1 new_g=2 new_stack=2 stack=1\n"
	"GoSwitch dt=1 g=2 g_seq=1\n"
	"GoSwitch dt=1 g=1 g_seq=1\n"
	"GoSwitch dt=1 g=2 g_seq=2\n"
	"GoSwitchDestroy dt=1 g=1 g_seq=2\n"
	"GoDestroy dt=1\n"
	"ExperimentalBatch exp=1 gen=1 m=0 time=0\n"
	"  data=\"\\x00\\x01anything\"\n"
	"EventBatch gen=1 m=18446744073709551615 time=0 size=5\n"
	"Frequency freq=15625000\n"
	"EventBatch gen=1 m=18446744073709551615 time=0 size=15\n"
	"Stacks\n"
	"Stack id=1 nframes=1\n"
	"  pc=1 func=1 file=2 line=3\n"
	"Stack id=2 nframes=1\n"
	"  pc=2 func=3 file=2 line=4\n"
	"EventBatch gen=1 m=18446744073709551615 time=0 size=32\n"
	"Strings\n"
	"String id=1\n"
	"  data=\"main.main\"\n"
	"String id=2\n"
	"  data=\"x.go\"\n"
	"String id=3\n"
	"  data=\"main.coro\"\n";

START_TEST(go123_coroutines)
{
	unsigned char *bin = NULL;
	size_t n = 0;
	int bad = -1;
	struct err e = { { 0 } };
	ck_assert_msg(t122_encode(coro_text, &bin, &n, &bad, &e), "%s", e.msg);
	ck_assert_int_eq(bad, 0);
	char path[300];
	snprintf(path, sizeof path, "%s/coro.trace", tmpdir);
	write_bytes(path, bin, n);
	free(bin);
	struct evlog l;
	read_all(path, &l);
	ck_assert_msg(l.ok, "%s", l.err);
	char buf[256];
	const char *why = check_stream(&l, buf, sizeof buf);
	ck_assert_msg(!why, "%s", why);
	static const struct { uint16_t kind; uint64_t g, target; } want[] = {
		{ TI_PROCS, 0, 0 },
		{ TI_G_EXISTS, 1, 0 }, { TI_G_START, 1, 0 },
		{ TI_G_CREATE, 1, 2 }, { TI_G_START, 2, 0 }, { TI_G_BLOCK, 2, 0 },
		{ TI_G_UNBLOCK, 1, 2 }, { TI_G_BLOCK, 1, 0 }, { TI_G_START, 2, 0 },
		{ TI_G_UNBLOCK, 2, 1 }, { TI_G_BLOCK, 2, 0 }, { TI_G_START, 1, 0 },
		{ TI_G_UNBLOCK, 1, 2 }, { TI_G_BLOCK, 1, 0 }, { TI_G_START, 2, 0 },
		{ TI_G_UNBLOCK, 2, 1 }, { TI_G_END, 2, 0 }, { TI_G_START, 1, 0 },
		{ TI_G_END, 1, 0 },
	};
	ck_assert_uint_eq(l.n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < l.n; i++) {
		ck_assert_msg(l.ev[i].kind == want[i].kind && l.ev[i].g == want[i].g &&
				      l.ev[i].target == want[i].target,
			      "event %zu: kind %u g %llu target %llu", i, l.ev[i].kind,
			      (unsigned long long)l.ev[i].g, (unsigned long long)l.ev[i].target);
	}
	ck_assert_str_eq(l.labels[3], "main.coro");
	ck_assert_uint_eq(l.ev[5].reason, TI_R_OTHER);
	evlog_free(&l);
}
END_TEST

static void write_bytes(const char *path, const void *b, size_t n);
static void expect_error(const char *path, const char *words);

/* Go 1.26: two generations like go125-sync's, each closed by its
 * EndOfGeneration byte, read as 1.25's are; without the last mark the
 * trace was cut (Go's reader says so too), and a batch of a generation
 * after its mark, or two marks in a row, are refused. */
static char *go126_text(const char *const *gens, int ngens)
{
	char *t = xstrdup("Trace Go1.26\n");
	for (int i = 0; i < ngens; i++) {
		char *n = xasprintf("%s%s", t, gens[i]);
		free(t);
		t = n;
	}
	return t;
}

static void write_go126(const char *path, const char *text)
{
	unsigned char *bin = NULL;
	size_t n = 0;
	int bad = -1;
	struct err e = { { 0 } };
	ck_assert_msg(t122_encode(text, &bin, &n, &bad, &e), "%s", e.msg);
	ck_assert_int_eq(bad, 0);
	write_bytes(path, bin, n);
	free(bin);
}

START_TEST(go126_end_of_generation)
{
	static const char *const gen[] = {
		"EventBatch gen=1 m=18446744073709551615 time=9 size=16\n"
		"Sync\nFrequency freq=1000000000\n"
		"ClockSnapshot dt=1 mono=99 sec=1740755049 nsec=123\n"
		"EventBatch gen=1 m=1 time=15 size=4\nProcStatus dt=1 p=0 pstatus=1\n"
		"EventBatch gen=1 m=18446744073709551615 time=11 size=1\nStacks\n"
		"EventBatch gen=1 m=18446744073709551615 time=12 size=1\nStrings\n",
		"EndOfGeneration\n",
		"EventBatch gen=2 m=18446744073709551615 time=19 size=17\n"
		"Sync\nFrequency freq=500000000\n"
		"ClockSnapshot dt=1 mono=199 sec=1740755050 nsec=123\n"
		"EventBatch gen=2 m=1 time=40 size=4\nProcStatus dt=1 p=0 pstatus=1\n",
		"EndOfGeneration\n",
		"EventBatch gen=2 m=18446744073709551615 time=21 size=1\nStacks\n",
	};
	char path[300];
	snprintf(path, sizeof path, "%s/g126.trace", tmpdir);
	struct evlog l;
	/* whole: two generations, each closed */
	const char *const whole[] = { gen[0], gen[1], gen[2], gen[1] };
	char *t = go126_text(whole, 4);
	write_go126(path, t);
	free(t);
	read_all(path, &l);
	ck_assert_msg(l.ok, "%s", l.err);
	ck_assert_str_eq(l.version, "go 1.26");
	evlog_free(&l);
	/* the last mark missing: cut short */
	t = go126_text(whole, 3);
	write_go126(path, t);
	free(t);
	expect_error(path, "generation 2 has no end-of-generation mark");
	/* a generation's batch after its mark */
	const char *const late[] = { gen[0], gen[1], gen[2], gen[1], gen[4], gen[1] };
	t = go126_text(late, 6);
	write_go126(path, t);
	free(t);
	expect_error(path, "a batch of generation 2 after its end-of-generation mark");
	/* two marks in a row */
	const char *const twice[] = { gen[0], gen[1], gen[1], gen[2], gen[1] };
	t = go126_text(twice, 5);
	write_go126(path, t);
	free(t);
	expect_error(path, "two end-of-generation marks");
	/* the byte means nothing before 1.26: a 1.25 trace with it is broken */
	t = go126_text(whole, 4);
	memcpy(t, "Trace Go1.25", 12);
	unsigned char *bin = NULL;
	size_t n = 0;
	int bad = -1;
	struct err e = { { 0 } };
	ck_assert(!t122_encode(t, &bin, &n, &bad, &e));
	ck_assert_msg(strstr(e.msg, "no event \"EndOfGeneration\" in go 1.25"), "%s", e.msg);
	free(t);
}
END_TEST

/* ---- Bad traces ---- */

static void write_bytes(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	long len = ftell(f);
	ck_assert_int_ge(len, 0);
	rewind(f);
	unsigned char *b = malloc((size_t)len + 1);
	ck_assert_uint_eq(fread(b, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return b;
}

static void expect_error(const char *path, const char *words)
{
	struct evlog l;
	read_all(path, &l);
	ck_assert_msg(!l.ok, "%s read without error", path);
	ck_assert_msg(strstr(l.err, path) && strstr(l.err, "offset ") && strstr(l.err, words),
		      "want \"%s\", got \"%s\"", words, l.err);
	evlog_free(&l);
}

static unsigned long long msg_offset(const char *msg)
{
	const char *o = strstr(msg, ": offset ");
	ck_assert_ptr_nonnull(o);
	return strtoull(o + strlen(": offset "), NULL, 10);
}

START_TEST(bad_traces)
{
	char expect[256], path[300];
	int bad;
	const char *good = encode_gotest("go122-syscall-steal-proc-simple", expect, sizeof expect, &bad);
	size_t n;
	unsigned char *b = slurp(good, &n);
	unsigned char *c = malloc(n + 32);

	/* A version this reader does not take, and no header at all. */
	memcpy(c, b, n);
	memcpy(c, "go 1.24 trace", 13);
	snprintf(path, sizeof path, "%s/v24.trace", tmpdir);
	write_bytes(path, c, n);
	expect_error(path, "go 1.24 traces are not read by this build");
	snprintf(path, sizeof path, "%s/nohdr.trace", tmpdir);
	write_bytes(path, "go 1.22 trace\0\0\0", 16);
	expect_error(path, "no batches after the header");

	/* Cut inside the first batch's data (after its 5-byte header). */
	enum { D = 16 + 5 };
	snprintf(path, sizeof path, "%s/cut.trace", tmpdir);
	write_bytes(path, b, D + 3);
	expect_error(path, "truncated: batch of 15 bytes, the file holds 3");

	/* A batch size whose LEB128 never ends within 64 bits. */
	unsigned char leb[32];
	memcpy(leb, b, 16 + 4);
	memset(leb + 20, 0xff, 11);
	snprintf(path, sizeof path, "%s/leb.trace", tmpdir);
	write_bytes(path, leb, 31);
	expect_error(path, "corrupt LEB128");

	/* An event type no version has, inside a batch: at its own offset. */
	memcpy(c, b, n);
	c[D] = 200;
	snprintf(path, sizeof path, "%s/type.trace", tmpdir);
	write_bytes(path, c, n);
	expect_error(path, "unknown event type 200");
	struct evlog l;
	read_all(path, &l);
	ck_assert_uint_eq(msg_offset(l.err), D);
	evlog_free(&l);

	/* A G that is running says it is waiting, then enters a syscall:
	 * inconsistent state, at the syscall's offset (after GoStatus). */
	memcpy(c, b, n);
	/* GoStatus dt=1 g=1 m=0 gstatus=2: its status byte is the batch's
	 * 9th (ProcStatus is 4 bytes, then type, dt, g, m). */
	ck_assert_uint_eq(c[D + 4], T122_GO_STATUS);
	c[D + 8] = 4;
	snprintf(path, sizeof path, "%s/state.trace", tmpdir);
	write_bytes(path, c, n);
	expect_error(path, "GoSyscallBegin on M 0: expected a running G, the M has none");
	read_all(path, &l);
	ck_assert_uint_eq(msg_offset(l.err), D + 9);
	evlog_free(&l);

	/* G1 enters a syscall but M1 steals a P with the wrong sequence
	 * number: nothing can happen. */
	memcpy(c, b, n);
	/* M1's batch: ProcStatus (4), GoStatus (5), ProcSteal dt p p_seq m. */
	size_t m1 = D + 15 + 5;
	ck_assert_uint_eq(c[m1 + 9], T122_PROC_STEAL);
	ck_assert_uint_eq(c[m1 + 12], 2);
	c[m1 + 12] = 3;
	snprintf(path, sizeof path, "%s/seq.trace", tmpdir);
	write_bytes(path, c, n);
	expect_error(path, "broken trace: no M's next event can happen");

	free(b);
	free(c);
}
END_TEST

/* Every cut of a real trace, and every byte of it changed, ends with the
 * stream read or a message naming the file and an offset inside it:
 * never a crash (the sanitizer builds run this), never an offset past
 * the end. */
START_TEST(cuts_and_flips)
{
	char expect[256], path[300];
	int bad;
	const char *good = encode_gotest("go122-annotations", expect, sizeof expect, &bad);
	size_t n;
	unsigned char *b = slurp(good, &n);
	unsigned char *c = malloc(n);
	snprintf(path, sizeof path, "%s/mut.trace", tmpdir);
	size_t refused = 0, tried = 0;
	size_t step = test_under_valgrind() ? 37 : 1;
	for (size_t cut = 16; cut < n; cut += step) {
		write_bytes(path, b, cut);
		struct evlog l;
		read_all(path, &l);
		tried++;
		if (!l.ok) {
			refused++;
			ck_assert_msg(strstr(l.err, path), "%s", l.err);
			ck_assert_uint_le(msg_offset(l.err), cut);
		} else {
			/* Cut between two batches, with what the events need. */
			char buf[256];
			const char *why = check_stream(&l, buf, sizeof buf);
			ck_assert_msg(!why, "cut %zu: %s", cut, why);
		}
		evlog_free(&l);
	}
	/* A cut trace misses its strings or stacks, which come last: only a
	 * cut right after the first batch (the frequency) reads, empty (one
	 * the coarser steps under valgrind may not hit). */
	ck_assert_uint_ge(refused + 1, tried);
	ck_assert_uint_gt(refused, 0);
	static const unsigned char vals[] = { 0x00, 0x01, 0x7f, 0x80, 0xff };
	for (size_t i = 16; i < n; i += step * 3) {
		for (size_t k = 0; k < sizeof vals; k++) {
			memcpy(c, b, n);
			if (c[i] == vals[k])
				continue;
			c[i] = vals[k];
			write_bytes(path, c, n);
			struct evlog l;
			read_all(path, &l);
			if (!l.ok) {
				ck_assert_msg(strstr(l.err, path), "%s", l.err);
				ck_assert_uint_le(msg_offset(l.err), n);
			} else {
				char buf[256];
				const char *why = check_stream(&l, buf, sizeof buf);
				ck_assert_msg(!why, "byte %zu = %#x: %s", i, vals[k], why);
			}
			evlog_free(&l);
		}
	}
	free(b);
	free(c);
}
END_TEST

/* Every input the fuzzer (fuzz/fuzz_go122.c) once crashed on reads, or
 * is refused with one message naming an offset inside it: a batch of no
 * bytes, times past 2^63 ns, a Go 1.19 trace whose frequency of 23 ticks
 * a second made its times ages. */
START_TEST(fuzz_regressions)
{
	const char *root = getenv("SCHEDLAB_FUZZ_REGRESSIONS");
	char dirpath[512];
	snprintf(dirpath, sizeof dirpath, "%s/go122", root && *root ? root : "fuzz/regressions");
	DIR *d = opendir(dirpath);
	ck_assert_msg(d != NULL, "%s", dirpath);
	struct dirent *de;
	int files = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dirpath, de->d_name);
		size_t n;
		free(slurp(path, &n));
		struct evlog l;
		read_all(path, &l);
		if (!l.ok) {
			ck_assert_msg(strstr(l.err, path) && !strchr(l.err, '\n'), "%s", l.err);
			ck_assert_uint_le(msg_offset(l.err), n);
		}
		/* and the translation refuses what the reader refuses */
		FILE *out = fopen("/dev/null", "w");
		ck_assert_ptr_nonnull(out);
		struct ti_stats st;
		struct err e = { "" };
		bool imported = ti_import(path, "r", out, &st, &e);
		fclose(out);
		ck_assert_msg(l.ok || !imported, "%s: the reader refuses it, the import does not", path);
		evlog_free(&l);
		files++;
	}
	closedir(d);
	ck_assert_int_ge(files, 2);
}
END_TEST

/* ---- Large traces ---- */

/* A 48 MB trace (1.5 million goroutines, 12 generations of 4 MB) reads
 * whole, every event there, in a process that grows by less than half
 * the trace: the reader holds one generation, not the trace.  (Under
 * valgrind 4 MB; under ASan, whose freed-memory quarantine counts in RSS,
 * the counts only.) */
START_TEST(large_trace_bounded)
{
	char path[300];
	snprintf(path, sizeof path, "%s/big.trace", tmpdir);
	uint64_t mb = test_under_valgrind() ? 4 : 48, cycles, gens;
	struct err e = { { 0 } };
	ck_assert_msg(t122_synth(path, mb << 20, 4 << 20, &cycles, &gens, &e), "%s", e.msg);
	ck_assert_uint_ge(gens, mb / 4);
	int fd[2];
	ck_assert_int_eq(pipe(fd), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* The child reads: its peak RSS is its own. */
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		long before = ru.ru_maxrss;
		uint64_t n = 0, kinds[TI_USER_TASK + 1] = { 0 };
		struct ti_reader *r = ti_open(path, &e);
		int got = -1;
		if (r) {
			struct ti_event ev;
			while ((got = ti_next(r, &ev, &e)) == 1) {
				n++;
				kinds[ev.kind <= TI_USER_TASK ? ev.kind : 0]++;
			}
			ti_close(r);
		}
		getrusage(RUSAGE_SELF, &ru);
		char msg[512];
		int len = snprintf(msg, sizeof msg, "%d %llu %llu %llu %llu %ld %s", got,
				   (unsigned long long)n, (unsigned long long)kinds[TI_G_CREATE],
				   (unsigned long long)kinds[TI_G_UNBLOCK], (unsigned long long)kinds[TI_G_END],
				   ru.ru_maxrss - before, got < 0 ? e.msg : "");
		ssize_t w = write(fd[1], msg, (size_t)len);
		_exit(w == len ? 0 : 1);
	}
	close(fd[1]);
	char msg[512] = { 0 };
	ssize_t len = 0, k;
	while ((k = read(fd[0], msg + len, sizeof msg - 1 - (size_t)len)) > 0)
		len += k;
	close(fd[0]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %s", msg);
	int got;
	unsigned long long n, creates, unblocks, ends;
	long grew_kb;
	ck_assert_int_eq(sscanf(msg, "%d %llu %llu %llu %llu %ld", &got, &n, &creates, &unblocks, &ends,
				&grew_kb), 6);
	ck_assert_msg(got == 0, "%s", msg);
	/* GOMAXPROCS, main's status and start, then 6 events a cycle. */
	ck_assert_uint_eq(n, cycles * 6 + 3);
	ck_assert_uint_eq(creates, cycles);
	ck_assert_uint_eq(unblocks, cycles);
	ck_assert_uint_eq(ends, cycles);
	if (!test_under_valgrind() && !test_under_asan())
		ck_assert_msg(grew_kb < (long)(mb << 10) / 2, "the reader grew by %ld KB for a %llu MB trace",
			      grew_kb, (unsigned long long)mb);
}
END_TEST

/* ---- The whole pipeline: a 1.22 trace through the command line ---- */

/* `schedlab workload import` of Go's annotations trace (1.22) writes a
 * workload with the recording's figures and main's wait on G9 as a
 * channel edge; `run -w` replays the trace itself at its GOMAXPROCS and
 * sets the recording beside the prediction; a cut trace exits 2 naming
 * the file and the offset. */
START_TEST(pipeline)
{
	char expect[256], wl[300], cut[300];
	int bad;
	const char *tr = encode_gotest("go122-annotations", expect, sizeof expect, &bad);
	snprintf(wl, sizeof wl, "%s/ann.json", tmpdir);
	char *out = NULL, *err = NULL;
	int rc = test_schedlabf(&out, &err, "workload import '%s' -o '%s'", tr, wl);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	free(out);
	free(err);
	char *json = test_read_file(wl);
	ck_assert_ptr_nonnull(strstr(json, "\"go\": \"1.22\""));
	ck_assert_ptr_nonnull(strstr(json, "\"gomaxprocs\": 48"));
	ck_assert_ptr_nonnull(strstr(json, "\"goroutines\": 6"));
	ck_assert_ptr_nonnull(strstr(json, "{\"spawn\":\"g9\"}"));
	ck_assert_ptr_nonnull(strstr(json, "{\"send\":\"h9_1\"}"));
	ck_assert_ptr_nonnull(strstr(json, "{\"recv\":\"h9_1\"}"));
	free(json);

	rc = test_schedlabf(&out, &err, "run -p steal -w '%s'", tr);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_msg(strstr(out, "48 Ps") && strstr(out, "Go 1.22 trace, GOMAXPROCS 48"), "%s", out);
	free(out);
	free(err);

	size_t n;
	unsigned char *b = slurp(tr, &n);
	snprintf(cut, sizeof cut, "%s/cut.trace", tmpdir);
	write_bytes(cut, b, n - 100);
	free(b);
	rc = test_schedlabf(&out, &err, "workload import '%s'", cut);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(err, cut) && strstr(err, ": offset ") && strstr(err, "truncated"), "%s", err);
	free(out);
	free(err);
}
END_TEST

static cJSON *read_json(const char *path)
{
	char *text = test_read_file(path);
	cJSON *j = cJSON_Parse(text);
	ck_assert_msg(j, "%s is not JSON", path);
	free(text);
	return j;
}

/* Recorded against replayed: a trace a simulated run wrote (Go 1.22's
 * format), imported, gives the recording's waits by why each G became
 * runnable and their time with a P that had no G -- and these are the
 * run's own figures (its wake-up counts, its --why share), computed from
 * the trace alone; a replay of the import with --why puts its own beside
 * them. */
START_TEST(recorded_causes_are_the_runs)
{
	static const char *const wls[] = { "pipeline", "syscall-heavy", "spawn-burst" };
	char tr[300], rep[300], wl[300];
	snprintf(tr, sizeof tr, "%s/r.trace", tmpdir);
	snprintf(rep, sizeof rep, "%s/r.json", tmpdir);
	snprintf(wl, sizeof wl, "%s/w.json", tmpdir);
	char *out = NULL, *err = NULL;
	int rc = test_schedlabf(&out, &err, "run -p steal -t numa1 -w %s --procs 2 --why --trace '%s' "
				       "--json '%s'", wls[_i], tr, rep);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	free(out);
	free(err);
	rc = test_schedlabf(&out, &err, "workload import '%s' -o '%s'", tr, wl);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	free(out);
	free(err);
	cJSON *run = read_json(rep), *imp = read_json(wl);
	const cJSON *rec = cJSON_GetObjectItem(imp, "recorded");
	const cJSON *waits = cJSON_GetObjectItem(rec, "waits");
	const cJSON *wk = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(run, "metrics"),
								  "mechanisms"), "wakeups");
	ck_assert_ptr_nonnull(waits);
	ck_assert_ptr_nonnull(wk);
	double total = 0;
	const cJSON *x;
	cJSON_ArrayForEach(x, waits) {
		const cJSON *w = cJSON_GetObjectItem(wk, x->string);
		ck_assert_msg(w, "recorded %s waits the run did not have", x->string);
		ck_assert_int_eq((int)cJSON_GetObjectItem(x, "count")->valuedouble,
				 (int)cJSON_GetObjectItem(w, "count")->valuedouble);
		total += cJSON_GetObjectItem(x, "latency_ns")->valuedouble;
	}
	cJSON_ArrayForEach(x, wk)
		ck_assert_msg(cJSON_GetObjectItem(waits, x->string), "%s not recorded", x->string);
	double wait_ns = cJSON_GetObjectItem(rec, "wait_ns")->valuedouble;
	ck_assert_double_eq(total, wait_ns);
	const cJSON *why = cJSON_GetObjectItem(run, "why");
	double run_share = cJSON_GetObjectItem(why, "wait_p_free_ns")->valuedouble /
			   cJSON_GetObjectItem(cJSON_GetObjectItem(why, "all"), "latency_ns")->valuedouble;
	double rec_share = cJSON_GetObjectItem(rec, "wait_p_free_ns")->valuedouble / wait_ns;
	ck_assert_msg(fabs(run_share - rec_share) < 0.01, "%s: a P with no G %.4f of the run's waits, "
		      "%.4f recorded", wls[_i], run_share, rec_share);
	cJSON_Delete(run);
	cJSON_Delete(imp);

	/* the replay's beside the recording's */
	rc = test_schedlabf(&out, &err, "run -p steal -t numa1 -w '%s' --why --json -", wl);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	cJSON *j = cJSON_Parse(out);
	rec = cJSON_GetObjectItem(j, "recorded");
	double f = cJSON_GetObjectItem(rec, "replayed_wait_p_free_share")->valuedouble;
	ck_assert(f >= 0 && f <= 1);
	ck_assert(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(rec, "waits"), "spawn"),
				      "replayed_count")->valuedouble > 0);
	cJSON_Delete(j);
	free(out);
	free(err);
	rc = test_schedlabf(&out, &err, "run -p steal -t numa1 -w '%s'", wl);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_msg(strstr(out, "  wake-ups ") && strstr(out, "recorded (the replay's with --why)"),
		      "%s", out);
	free(out);
	free(err);
}
END_TEST

/* The recorded waits' keys are checked as the rest of a workload. */
START_TEST(recorded_waits_bad)
{
	static const struct {
		const char *waits, *want;
	} cases[] = {
		{ "\"waits\": {\"spawn\": {\"count\": 1, \"latency_ns\": 5}}, \"wait_ns\": 5, "
		  "\"wait_p_free_ns\": 6", "$.recorded.wait_p_free_ns: at most wait_ns" },
		{ "\"waits\": {\"nap\": {\"count\": 1, \"latency_ns\": 5}}, \"wait_ns\": 5, "
		  "\"wait_p_free_ns\": 0", "$.recorded.waits" },
		{ "\"waits\": {\"spawn\": {\"count\": -1, \"latency_ns\": 5}}, \"wait_ns\": 5, "
		  "\"wait_p_free_ns\": 0", "$.recorded.waits.spawn.count" },
		{ "\"waits\": {}, \"wait_p_free_ns\": 0", "wait_ns" },
		/* what an import inferred: every count, no other key */
		{ "\"inferred\": {\"shared_channels\": 1, \"takers\": 2, \"wake_ups\": 3, "
		  "\"backpressure\": 0}", "$.recorded.inferred" },
		{ "\"inferred\": {\"shared_channels\": -1, \"takers\": 2, \"wake_ups\": 3, "
		  "\"backpressure\": 0, \"job_channels\": 0, \"pairs\": 1}", "$.recorded.inferred.shared_channels" },
		{ "\"inferred\": {\"shared_channels\": 1, \"takers\": 2, \"wake_ups\": 3, "
		  "\"backpressure\": 0, \"job_channels\": 0, \"pairs\": 1, \"sites\": \"x\"}", "sites" },
		{ "\"inferred\": {\"shared_channels\": 1, \"takers\": 2, \"wake_ups\": 3, "
		  "\"backpressure\": 0, \"job_channels\": 0, \"pairs\": 1, \"site\": 4}",
		  "$.recorded.inferred.site" },
	};
	char path[300];
	snprintf(path, sizeof path, "%s/bad.json", tmpdir);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		FILE *f = fopen(path, "w");
		fprintf(f, "{\"name\": \"b\", \"recorded\": {\"go\": \"1.26\", \"gomaxprocs\": 2, "
			"\"makespan_ns\": 10, %s}, \"main\": \"m\", \"programs\": {\"m\": "
			"[{\"compute\": 5}]}}", cases[i].waits);
		fclose(f);
		char *out = NULL, *err = NULL;
		int rc = test_schedlabf(&out, &err, "run -p steal -t numa1 -w '%s'", path);
		ck_assert_msg(rc == 2 && strstr(err, cases[i].want), "case %zu: rc %d: %s", i, rc, err);
		free(out);
		free(err);
	}
}
END_TEST

Suite *make_import122_suite(void)
{
	Suite *s = suite_create("import122");
	TCase *tc = tcase_create("go122");
	tcase_add_checked_fixture(tc, tmpdir_setup, tmpdir_teardown);
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, go_testdata, 0, NGOTESTS);
	tcase_add_test(tc, syscall_steal_stream);
	tcase_add_test(tc, annotations_content);
	tcase_add_test(tc, versions_and_generations);
	tcase_add_test(tc, go123_coroutines);
	tcase_add_test(tc, go126_end_of_generation);
	tcase_add_test(tc, bad_traces);
	tcase_add_test(tc, cuts_and_flips);
	tcase_add_test(tc, pipeline);
	tcase_add_test(tc, fuzz_regressions);
	tcase_add_test(tc, large_trace_bounded);
	tcase_add_loop_test(tc, recorded_causes_are_the_runs, 0, 3);
	tcase_add_test(tc, recorded_waits_bad);
	suite_add_tcase(s, tc);
	return s;
}
