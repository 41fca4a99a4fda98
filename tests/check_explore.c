/* `schedlab explore` end to end (suite explore): clean policies pass their
 * schedules; seeded bugs (test builds, -Dseeded_bugs) are missed by the
 * default schedule and found by the exploration within a stated number of
 * schedules; the printed command replays the failure.  And the library's
 * exploration (exp/explore.h) in this process: its counts, the same at
 * any -j. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exp/explore.h"
#include "tests/tests.h"
#include "topologies/topo.h"
#include "workloads/json.h"

static char *wl(const char *name)
{
	char *p = NULL;
	ck_assert_int_ge(asprintf(&p, "%s/../explore/%s", test_data_dir(), name), 0);
	return p;
}

START_TEST(clean_policies_pass)
{
	static const char *const runs[] = {
		"explore -p steal -t numa1 --procs 2 -w %s --schedules 60 -j 2 --quiet --max-starve 500us",
		"explore -p steal -t numa1 --procs 1 -w %s --schedules 40 -j 2 --quiet",
		"explore -p numa -t numa4 --procs 4 -w %s --schedules 40 -j 2 --quiet",
		"explore -p global -t numa1 --procs 2 -w %s --schedules 40 -j 2 --quiet --max-starve 1ms",
		"explore -p steal -t numa1 --procs 2 -w %s --schedules 20 -j 2 --quiet --strategy pct",
	};
	const char *wls[] = { "wake.json", "timers.json", "recheck.json" };
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		for (int w = 0; w < 3; w++) {
			char *path = wl(wls[w]), *args = NULL, *out = NULL;
			ck_assert_int_ge(asprintf(&args, runs[i], path), 0);
			int rc = test_schedlab(args, &out, NULL);
			ck_assert_msg(rc == 0 && strstr(out, " 0 violations"), "%s: rc %d: %s", args, rc, out);
			free(args);
			free(out);
			free(path);
		}
}
END_TEST

/* A real deadlock after a retaken system call is reported in every
 * schedule, never left as a silent hang: before sysmon ran checkdead
 * after a hand-off, seed 1 hung at schedule 187 (numa) and 349 (steal). */
START_TEST(deadlock_always_reported)
{
	char *path = wl("deadlock.json");
	const char *pols[] = { "numa", "steal", "global" };
	for (int i = 0; i < 3; i++) {
		char *args = NULL, *out = NULL;
		ck_assert_int_ge(asprintf(&args, "explore -p %s -t numa1 --procs 2 -w %s "
					  "--schedules 400 -j 2 --quiet", pols[i], path), 0);
		int rc = test_schedlab(args, &out, NULL);
		ck_assert_msg(rc == 0 && strstr(out, " 0 violations"), "%s: rc %d: %s", args, rc, out);
		free(args);
		free(out);
	}
	free(path);
}
END_TEST

START_TEST(bad_options)
{
	char *err = NULL;
	ck_assert_int_eq(test_schedlab("explore -p steal --strategy dfs", NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "--strategy dfs: expected random or pct"));
	free(err);
	ck_assert_int_eq(test_schedlab("explore -p steal --replay 1:0:x:0", NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "--replay 1:0:x:0"));
	free(err);
	ck_assert_int_eq(test_schedlab("explore -p steal --bug nosuch", NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "--bug nosuch"));
	free(err);
	ck_assert_int_eq(test_schedlab("explore -p steal -w pipeline --keep-going --trace /tmp/x",
				       NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "--trace with --keep-going"));
	free(err);
	ck_assert_int_eq(test_schedlab("explore -p steal -w pipeline --max-total-time 10", NULL,
				       &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "--max-total-time 10: expected a time from 1ms"));
	free(err);
	ck_assert_int_eq(test_schedlab("explore -p steal -w pipeline --replay 1:0:5:1 "
				       "--max-total-time 1s", NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "--max-total-time with --replay"));
	free(err);
}
END_TEST

/* The schedules a summary counts, and that it names as the first not run
 * ("before schedule N of M"): the same N, fewer than M. */
static uint64_t summary_count(const char *out, const char *why, uint64_t asked)
{
	const char *p = strstr(out, "explore: ");
	ck_assert_msg(p != NULL, "no summary: %s", out);
	p = strstr(p, "explore-wake: ");
	ck_assert_msg(p != NULL, "%s", out);
	uint64_t n = 0, before = 0, of = 0;
	ck_assert_int_eq(sscanf(p, "explore-wake: %" SCNu64 " schedules", &n), 1);
	const char *w = strstr(p, why);
	ck_assert_msg(w != NULL, "not \"%s\": %s", why, out);
	w = strstr(w, " before schedule ");
	ck_assert_msg(w != NULL, "%s", out);
	ck_assert_int_eq(sscanf(w, " before schedule %" SCNu64 " of %" SCNu64, &before, &of), 2);
	ck_assert_int_eq(before, n);
	ck_assert_int_eq(of, asked);
	ck_assert_msg(n < asked, "%s", out);
	return n;
}

/* --max-total-time cuts an exploration that could not end in it (10^8
 * schedules in 1 s): the summary of those run, exit 4 as a cut run's. */
START_TEST(budget_cuts_the_exploration)
{
	char *path = wl("wake.json"), *out = NULL;
	int rc = test_schedlabf(&out, NULL, "explore -p steal -t numa1 --procs 2 -w %s "
				"--schedules 100000000 -j 2 --quiet --max-total-time 1s", path);
	ck_assert_msg(rc == EXIT_LIMIT, "rc %d: %s", rc, out);
	ck_assert_msg(strstr(out, " 0 violations;"), "%s", out);
	summary_count(out, "; cut at the time budget (--max-total-time 1", 100000000);
	free(out);
	free(path);
}
END_TEST

/* A pseudo-terminal for a child's stderr, so that it prints its progress
 * line; the master's descriptor, the slave's name into slave. */
static int open_pty(char *slave, size_t n)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	ck_assert_int_ge(m, 0);
	ck_assert_int_eq(grantpt(m), 0);
	ck_assert_int_eq(unlockpt(m), 0);
	ck_assert_int_eq(ptsname_r(m, slave, n), 0);
	return m;
}

/* Reads fd (a pty's master) until what has appeared; false at its end. */
static bool wait_for(int fd, const char *what)
{
	char buf[8192];
	size_t len = 0;
	for (;;) {
		ssize_t r = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		len += (size_t)r;
		buf[len] = '\0';
		if (strstr(buf, what))
			return true;
		if (len > sizeof(buf) / 2) {   /* keep the tail: a line may straddle */
			memmove(buf, buf + len - 256, 256);
			len = 256;
		}
	}
}

/* SIGINT, sent once the progress line shows a schedule done: the summary
 * of the schedules completed, exit 130, no process of the exploration
 * left (this process is a subreaper: one left would now be its child)
 * and nothing left beside the --trace file claimed. */
START_TEST(sigint_prints_the_summary)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	char dir[64], slave[64];
	test_tmpdir(dir, sizeof(dir), "explore");
	char *trace = NULL, *path = wl("wake.json");
	ck_assert_int_ge(asprintf(&trace, "%s/t.trace", dir), 0);
	int master = open_pty(slave, sizeof(slave));
	int out[2];
	ck_assert_int_eq(pipe(out), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);   /* whoever ran the tests may ignore it */
		int tty = open(slave, O_RDWR | O_NOCTTY);
		if (tty < 0)
			_exit(127);
		dup2(tty, STDERR_FILENO);
		dup2(out[1], STDOUT_FILENO);
		close(out[0]);
		execl(test_schedlab_bin(), "schedlab", "explore", "-p", "steal", "-t", "numa1",
		      "--procs", "2", "-w", path, "--schedules", "100000000", "-j", "2", "--trace",
		      trace, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	ck_assert_msg(wait_for(master, " schedules, "), "no progress line");
	ck_assert_int_eq(kill(pid, SIGINT), 0);
	char text[4096];
	size_t len = 0;
	ssize_t r;
	while ((r = read(out[0], text + len, sizeof(text) - 1 - len)) > 0 ||
	       (r < 0 && errno == EINTR))
		len += r > 0 ? (size_t)r : 0;
	text[len] = '\0';
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %#x: %s", status,
		      text);
	uint64_t n = summary_count(text, "; interrupted by SIGINT", 100000000);
	ck_assert_msg(n >= 1, "the progress line came after schedule 0: %s", text);
	/* no schedule's process outlived it */
	errno = 0;
	ck_assert_int_eq(waitpid(-1, &status, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	struct dirent *e;
	while ((e = readdir(d)))
		ck_assert_msg(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0,
			      "left in %s: %s", dir, e->d_name);
	closedir(d);
	close(master);
	close(out[0]);
	test_rm_rf(dir);
	free(trace);
	free(path);
}
END_TEST

/* ---- In-process: exp_explore, as regress --explore calls it ---- */

struct inproc {
	struct exp_explore_opts o;
	struct topo *topo;
	struct workload *wl;
	int64_t *knobs;
	uint64_t failures, last_index;
	bool in_order;
};

static void inproc_open(struct inproc *x, const char *pol, const char *wl_name, int procs,
			enum rt_bug bug)
{
	memset(x, 0, sizeof(*x));
	struct err e = { "" };
	char *path = wl(wl_name);
	bool is_trace;
	uint64_t trace_seed;
	x->topo = topo_load("numa1", &e);
	ck_assert_msg(x->topo != NULL, "%s", e.msg);
	x->wl = wl_load(path, &is_trace, &trace_seed, &e);
	ck_assert_msg(x->wl != NULL, "%s", e.msg);
	free(path);
	x->o.base = (struct run){ .api = &sim__rt_api, .pol = sim__rt_api.pol_find(pol),
				  .topo = x->topo, .wl = x->wl, .seed = 1, .procs = procs };
	ck_assert_ptr_nonnull(x->o.base.pol);
	x->knobs = run_knobs_new(x->o.base.pol);
	x->o.base.knobs = x->knobs;
	x->o.strategy = RT_EXPLORE_RANDOM;
	x->o.depth = EXP_EXPLORE_DEPTH;
	x->o.delay_per_mille = EXP_EXPLORE_DELAY_RATE;
	x->o.delay_ns = EXP_EXPLORE_DELAY_NS;
	x->o.max_starve_ns = EXP_EXPLORE_MAX_STARVE_NS;
	x->o.bug = bug;
	x->in_order = true;
}

static void inproc_close(struct inproc *x)
{
	free(x->knobs);
	wl_free(x->wl);
	topo_free(x->topo);
}

/* A clean policy: every schedule run, none failing, their checks counted. */
START_TEST(in_process_clean)
{
	struct inproc x;
	inproc_open(&x, "steal", "wake.json", 2, RT_BUG_NONE);
	x.o.schedules = 30;
	x.o.jobs = 2;
	struct exp_explore_result res;
	ck_assert_int_eq(exp_explore(&x.o, &res), 0);
	ck_assert_int_eq(res.status, 0);
	ck_assert_int_eq((int)res.schedules, 30);
	ck_assert_int_eq((int)res.violations, 0);
	ck_assert_int_eq((int)res.crashes, 0);
	ck_assert_int_gt((int)res.checks, 30);
	ck_assert_ptr_null(res.found);
	ck_assert(!res.default_fails);
	exp_explore_result_free(&res);
	inproc_close(&x);
}
END_TEST

/* A budget already spent when the exploration starts: no schedule run,
 * and that is a cut (EXIT_LIMIT), not a pass. */
START_TEST(in_process_budget)
{
	struct inproc x;
	inproc_open(&x, "steal", "wake.json", 2, RT_BUG_NONE);
	x.o.schedules = 30;
	x.o.jobs = 2;
	x.o.max_total_ns = 1;
	struct exp_explore_result res;
	ck_assert_int_eq(exp_explore(&x.o, &res), EXIT_LIMIT);
	ck_assert_int_eq(res.stop, EXP_STOP_TIME);
	ck_assert_int_eq((int)res.schedules, 0);
	ck_assert_int_eq((int)res.violations, 0);
	exp_explore_result_free(&res);
	inproc_close(&x);
}
END_TEST

struct interrupter {
	uint64_t at, last;
	bool in_order;
};

/* SIGINT to this process as schedule `at` is counted. */
static void interrupt_at(void *ctx, uint64_t done, uint64_t violations)
{
	struct interrupter *t = ctx;
	(void)violations;
	if (done != t->last + 1)
		t->in_order = false;
	t->last = done;
	if (done == t->at)
		raise(SIGINT);
}

/* SIGINT in exp_explore (as regress --explore calls it) stops it: status
 * 130, the schedules counted those completed, the caller's SIGINT
 * disposition back.  At -j 1 exactly those before the signal; at -j 3
 * also those already ended after them, in order. */
START_TEST(in_process_sigint)
{
	for (int jobs = 1; jobs <= 3; jobs += 2) {
		struct inproc x;
		inproc_open(&x, "steal", "wake.json", 2, RT_BUG_NONE);
		struct interrupter t = { .at = 5, .in_order = true };
		x.o.schedules = 100000;
		x.o.jobs = jobs;
		x.o.progress = interrupt_at;
		x.o.ctx = &t;
		signal(SIGINT, SIG_DFL);
		struct exp_explore_result res;
		ck_assert_int_eq(exp_explore(&x.o, &res), 130);
		ck_assert_int_eq(res.stop, EXP_STOP_SIGNAL);
		ck_assert_int_eq(res.signo, SIGINT);
		ck_assert(t.in_order);
		ck_assert_int_eq((int)t.last, (int)res.schedules);
		if (jobs == 1)
			ck_assert_int_eq((int)res.schedules, 5);
		else
			ck_assert_int_ge((int)res.schedules, 5);
		ck_assert_int_lt((int)res.schedules, 100000);
		struct sigaction now;
		sigaction(SIGINT, NULL, &now);
		ck_assert(now.sa_handler == SIG_DFL);
		exp_explore_result_free(&res);
		inproc_close(&x);
	}
}
END_TEST

/* A schedule that reaches the run's memory budget was cut at a limit: it
 * broke no invariant, and the exploration is not a pass either (exit 4,
 * as run's cut). */
START_TEST(limits_are_cuts)
{
	char *out = NULL;
	int rc = test_schedlab("explore -p steal -t numa1 -w skynet --procs 2 --schedules 2 -j 1 "
			       "--max-memory 16MiB --quiet", &out, NULL);
	ck_assert_msg(rc == 4, "rc %d: %s", rc, out);
	ck_assert_msg(strstr(out, " 0 violations, 2 cut at a limit"), "%s", out);
	free(out);
}
END_TEST

#if defined(SCHEDLAB_SEEDED_BUGS)
/* With SIGCHLD ignored by whoever started it, the kernel would reap the
 * schedules' processes and their results be lost: explore takes SIGCHLD
 * back, and still finds the bug. */
START_TEST(ignored_sigchld)
{
	char *path = wl("wake.json"), *cmd = NULL, *out = NULL;
	ck_assert_int_ge(asprintf(&cmd, "trap '' CHLD; exec '%s' explore -p steal -t numa1 --procs 2 "
				  "-w %s --bug runnext-eager --schedules 500 -j 2 --quiet",
				  test_schedlab_bin(), path), 0);
	int rc = test_run(cmd, &out, NULL);
	ck_assert_msg(rc == 1 && strstr(out, "broke \"G in one place\""), "rc %d: %s", rc, out);
	free(out);
	free(cmd);
	free(path);
}
END_TEST

/* One seeded bug: the default schedule alone misses it, the exploration of
 * at most `within` schedules finds it, and the replay line it prints
 * breaks the same invariant again. */
static void found_and_replayed(const char *policy_args, const char *wl_name, const char *bug,
			       int within, bool default_misses)
{
	char *path = wl(wl_name), *args = NULL, *out = NULL;
	ck_assert_int_ge(asprintf(&args, "explore %s -w %s --bug %s --schedules 1 --quiet",
				  policy_args, path, bug), 0);
	int rc = test_schedlab(args, &out, NULL);
	ck_assert_msg(rc == (default_misses ? 0 : 1), "the default schedule %s %s: %s",
		      default_misses ? "found" : "missed", bug, out);
	free(args);
	free(out);
	ck_assert_int_ge(asprintf(&args, "explore %s -w %s --bug %s --schedules %d -j 2 --quiet",
				  policy_args, path, bug, within), 0);
	rc = test_schedlab(args, &out, NULL);
	ck_assert_msg(rc == 1, "%s not found in %d schedules (rc %d): %s", bug, within, rc, out);
	char *broke = strstr(out, " broke \"");
	ck_assert_ptr_nonnull(broke);
	char what[64] = "";
	ck_assert_int_eq(sscanf(broke, " broke \"%63[^\"]\"", what), 1);
	char *line = strstr(out, "\nreplay: schedlab explore ");
	ck_assert_ptr_nonnull(line);
	line += strlen("\nreplay: schedlab ");
	char *end = strchr(line, '\n');
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	char *again = NULL;
	rc = test_schedlab(line, &again, NULL);
	ck_assert_msg(rc == 1, "replay %s: rc %d: %s", line, rc, again);
	char *want = NULL;
	ck_assert_int_ge(asprintf(&want, "broke \"%s\"", what), 0);
	ck_assert_msg(strstr(again, want), "replay broke another invariant: %s", again);
	/* and with --trace, the failing schedule's execution trace */
	char *traced = NULL, *tpath = NULL;
	ck_assert_int_ge(asprintf(&tpath, "/tmp/schedlab-explore-%d.trace", (int)getpid()), 0);
	ck_assert_int_ge(asprintf(&traced, "%s --trace %s", line, tpath), 0);
	free(again);
	rc = test_schedlab(traced, &again, NULL);
	ck_assert_msg(rc == 1, "replay with --trace: rc %d: %s", rc, again);
	FILE *tf = fopen(tpath, "rb");
	ck_assert_ptr_nonnull(tf);
	ck_assert_int_eq(fseek(tf, 0, SEEK_END), 0);
	ck_assert_int_gt(ftell(tf), 100);
	fclose(tf);
	unlink(tpath);
	free(tpath);
	free(traced);
	free(want);
	free(again);
	free(args);
	free(out);
	free(path);
}

/* The counts are the exploration's, whatever -j: seed 1 finds
 * runnext-eager at schedule 25 (see below), so 26 schedules ran, one
 * violation, and the failure shrunk is the same at -j 1 and -j 3. */
START_TEST(in_process_counts)
{
	struct exp_explore_failure first = { 0 };
	for (int jobs = 1; jobs <= 3; jobs += 2) {
		struct inproc x;
		inproc_open(&x, "steal", "wake.json", 2, RT_BUG_RUNNEXT_EAGER);
		x.o.schedules = 500;
		x.o.jobs = jobs;
		struct exp_explore_result res;
		ck_assert_int_eq(exp_explore(&x.o, &res), 1);
		ck_assert_int_eq((int)res.schedules, 26);
		ck_assert_int_eq((int)res.violations, 1);
		ck_assert_int_eq((int)res.crashes, 0);
		ck_assert_ptr_nonnull(res.found);
		ck_assert_int_eq((int)res.found->index, 25);
		ck_assert_str_eq(res.found->r.what, "G in one place");
		ck_assert_int_gt(res.found->trials, 0);
		ck_assert_int_le((int)res.found->r.applied, (int)res.found->applied0);
		if (jobs == 1) {
			first = *res.found;
			first.r.state = NULL;
		} else {
			ck_assert(memcmp(&first.sched, &res.found->sched, sizeof(first.sched)) == 0);
			ck_assert_int_eq((int)first.r.applied, (int)res.found->r.applied);
		}
		/* the shrunk schedule, replayed here, breaks the same invariant */
		struct exp_sched_result again;
		struct err e = { "" };
		ck_assert_int_eq(exp_explore_schedule(&x.o, res.found->sched, &again, NULL, NULL, &e), 0);
		ck_assert_int_eq(again.status, EXP_SCHED_VIOLATION);
		ck_assert_str_eq(again.what, "G in one place");
		free(again.state);
		exp_explore_result_free(&res);
		inproc_close(&x);
	}
}
END_TEST

static void count_failure(void *ctx, const struct exp_explore_failure *f)
{
	struct inproc *x = ctx;
	if (x->failures && f->index <= x->last_index)
		x->in_order = false;
	x->failures++;
	x->last_index = f->index;
}

/* --keep-going: every failure handed over, in schedule order, and counted. */
START_TEST(in_process_keep_going)
{
	struct inproc x;
	inproc_open(&x, "global", "timers.json", 2, RT_BUG_LOST_TIMER);
	x.o.max_starve_ns = 1000000;
	x.o.schedules = 100;
	x.o.jobs = 3;
	x.o.keep_going = true;
	x.o.failure = count_failure;
	x.o.ctx = &x;
	struct exp_explore_result res;
	ck_assert_int_eq(exp_explore(&x.o, &res), 1);
	ck_assert_int_eq((int)res.schedules, 100);
	ck_assert_int_gt((int)res.violations, 1);
	ck_assert_int_eq((int)res.violations, (int)x.failures);
	ck_assert(x.in_order);
	ck_assert_ptr_null(res.found);
	exp_explore_result_free(&res);
	inproc_close(&x);
}
END_TEST

/* The numbers of schedules are what seed 1 needs, rounded up (random
 * strategy; seeds 1..5 need runnext-eager 2-478, sharedq-nolock 2-16,
 * no-recheck 2-141, lost-timer 3-72, checkdead-ms 1-10, retake-nocheck
 * 187-4953; docs/runtime.md's table); no-wakep is found by the default
 * schedule itself (the readier computes 1 ms with its partner queued and
 * the other P idle).  The runs are deterministic: seed 1 needs 25, 16,
 * 141, 19, 1 and 187. */
START_TEST(finds_runnext_eager)
{
	found_and_replayed("-p steal -t numa1 --procs 2", "wake.json", "runnext-eager", 500, true);
}
END_TEST

START_TEST(finds_sharedq_nolock)
{
	found_and_replayed("-p numa -t numa4 --procs 4", "timers.json", "sharedq-nolock", 50, true);
}
END_TEST

START_TEST(finds_no_recheck)
{
	found_and_replayed("-p steal -t numa1 --procs 2 --max-starve 500us", "recheck.json",
			   "no-recheck", 150, true);
}
END_TEST

START_TEST(finds_no_wakep)
{
	found_and_replayed("-p steal -t numa1 --procs 2 --max-starve 500us", "wake.json", "no-wakep",
			   1, false);
}
END_TEST

START_TEST(finds_lost_timer)
{
	found_and_replayed("-p global -t numa1 --procs 2 --max-starve 1ms", "timers.json",
			   "lost-timer", 200, true);
}
END_TEST

/* Seeds 2 and 3 need 168 and 97 schedules; seed 1 needed 187 until numa's
 * wake_owner changed its schedules, and then none of 2,000 found it. */
START_TEST(finds_retake_nocheck)
{
	found_and_replayed("-p numa -t numa1 --procs 2", "deadlock.json", "retake-nocheck", 300,
			   true);
}
END_TEST

START_TEST(finds_checkdead_ms)
{
	found_and_replayed("-p steal -t numa1 --procs 1", "timers.json", "checkdead-ms", 20, true);
}
END_TEST
#endif

Suite *make_explore_suite(void)
{
	Suite *s = suite_create("explore");
	TCase *tc = tcase_create("explore");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, clean_policies_pass);
	tcase_add_test(tc, bad_options);
	tcase_add_test(tc, limits_are_cuts);
	tcase_add_test(tc, deadlock_always_reported);
	tcase_add_test(tc, in_process_clean);
	tcase_add_test(tc, in_process_budget);
	tcase_add_test(tc, in_process_sigint);
	tcase_add_test(tc, budget_cuts_the_exploration);
	tcase_add_test(tc, sigint_prints_the_summary);
#if defined(SCHEDLAB_SEEDED_BUGS)
	tcase_add_test(tc, finds_runnext_eager);
	tcase_add_test(tc, finds_sharedq_nolock);
	tcase_add_test(tc, finds_no_recheck);
	tcase_add_test(tc, finds_no_wakep);
	tcase_add_test(tc, ignored_sigchld);
	tcase_add_test(tc, finds_lost_timer);
	tcase_add_test(tc, finds_checkdead_ms);
	tcase_add_test(tc, finds_retake_nocheck);
	/* in this process, its schedules are children of the test runner:
	 * under valgrind, 936 of them under valgrind too (the runs above
	 * are the binary's, outside it) */
	if (!test_under_valgrind()) {
		tcase_add_test(tc, in_process_counts);
		tcase_add_test(tc, in_process_keep_going);
	}
#endif
	suite_add_tcase(s, tc);
	return s;
}
