/* `schedlab explore`: one workload under many perturbed schedules, each
 * checked for the core's invariants (core/explore.h; docs/runtime.md,
 * "Exploring schedules").
 *
 * Each schedule runs in a forked child of this process, -j at a time: the
 * topology and workload are loaded once, a fork costs far less than a run
 * (an exec'd process per run, as a run matrix makes, would load and
 * compile them again each time), and a child that crashes -- a core
 * assertion, a fault -- is one failed schedule, not the end of the
 * exploration.  A child reports through a file of its slot: the counts
 * and, if an invariant broke, which, why and the G/M/P state then.
 *
 * A schedule is (strategy, schedule seed, from, limit, k): schedule 0 is
 * the default one (limit 0: no perturbation at all), schedule i > 0 takes
 * the seed mix(--seed, i) and every perturbation it draws.  A failure is
 * shrunk by bisecting the window [from, limit) of the perturbations
 * applied down to one that still fails the same invariant, and printed
 * with the command that replays it (--replay SEED:FROM:LIMIT:K), which
 * with --trace FILE also writes its execution trace. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "core/explore.h"
#include "topologies/topo.h"
#include "workloads/program.h"

#define STATE_MAX (48 * 1024)   /* of the G/M/P state a child reports */

void cli_help_explore(FILE *f)
{
	fprintf(f,
		"usage: schedlab explore -p POLICY [-t TOPOLOGY] -w WORKLOAD [--procs N] [--seed N]\n"
		"                        [--set KEY=VALUE ...] [--schedules N] [--strategy random|pct]\n"
		"                        [--depth D] [-j N] [--keep-going] [--max-starve DUR]\n"
		"                        [--delay DUR] [--delay-rate N] [--bug NAME]\n"
		"                        [--replay SEED:FROM:LIMIT:K [--trace FILE]] [--quiet]\n"
		"                        [--max-sim-time T] [--max-wall-time T] [--max-memory SIZE]\n"
		"\n"
		"Runs WORKLOAD (simulated) under N schedules and checks the scheduler's\n"
		"invariants at every scheduling step: every G in one place, no G run by two\n"
		"Ms, no G lost, no false deadlock, idle and spinning counts consistent, no\n"
		"runnable G waiting longer than --max-starve while a P idles as long, and the\n"
		"workload's own asserts (docs/runtime.md, \"Exploring schedules\").  Schedule 0\n"
		"is the default, unperturbed one; the others perturb the order of events due\n"
		"at the same instant, delay contract operations (atomics, locks, futex calls,\n"
		"thread starts, G switches, sysmon's and the poller's sleeps) and move Ms\n"
		"between PUs, all drawn from the schedule's seed.  The first violation stops\n"
		"the exploration (--keep-going: every one is reported); it is shrunk to the\n"
		"fewest perturbations that still break the same invariant and printed with\n"
		"the G/M/P state at that moment and the command that replays it.\n"
		"\n");
	cli_opts_help(f, cli_explore_opts, CLI_OPT_HELP_COL - 2);
	fprintf(f,
		"\n"
		"Exit status: 0 no violation, 1 a violation found, 2 bad input, 4 no\n"
		"violation but some schedules were cut at a limit (a time limit, or the\n"
		"memory budget or thread limit the workload reached): their checks stopped\n"
		"there.\n");
}

struct explore_own {
	uint64_t schedules, jobs, depth, delay_rate;
	int64_t max_starve_ns, delay_ns;
	enum rt_explore_strategy strategy;
	enum rt_bug bug;
	bool keep_going, quiet, replay_given;
	uint64_t replay_seed, replay_from, replay_limit, replay_k;
	const char *trace;
};

static int own_strategy(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct explore_own *o = ctx;
	if (strcmp(v, "random") == 0)
		o->strategy = RT_EXPLORE_RANDOM;
	else if (strcmp(v, "pct") == 0)
		o->strategy = RT_EXPLORE_PCT;
	else
		return cli_usage_error(cmd, "--strategy %s: expected random or pct", v);
	return 0;
}

static int own_bug(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct explore_own *o = ctx;
	int b = -1;
	for (int i = 1; i < RT_BUG__COUNT; i++)
		if (strcmp(v, rt_bug_names[i]) == 0)
			b = i;
	if (b < 0)
		return cli_usage_error(cmd, "--bug %s: no such seeded bug (no-recheck, no-wakep, "
				       "runnext-eager, sharedq-nolock, lost-timer, checkdead-ms, "
				       "retake-nocheck)", v);
#if !defined(SCHEDLAB_SEEDED_BUGS)
	return cli_usage_error(cmd, "--bug %s: this build has no seeded bugs (meson "
			       "-Dseeded_bugs=enabled)", v);
#endif
	o->bug = (enum rt_bug)b;
	return 0;
}

static int own_replay(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct explore_own *o = ctx;
	char *end;
	errno = 0;
	o->replay_seed = strtoull(v, &end, 10);
	bool ok = end != v && *end == ':' && errno == 0;
	if (ok) {
		const char *f = end + 1;
		o->replay_from = strtoull(f, &end, 10);
		ok = end != f && *end == ':' && errno == 0;
	}
	if (ok) {
		const char *l = end + 1;
		o->replay_limit = strtoull(l, &end, 10);
		ok = end != l && *end == ':' && errno == 0;
	}
	if (ok) {
		const char *k = end + 1;
		o->replay_k = strtoull(k, &end, 10);
		ok = end != k && *end == '\0' && errno == 0;
	}
	if (!ok || v[0] == '-')
		return cli_usage_error(cmd, "--replay %s: expected SEED:FROM:LIMIT:K, four "
				       "non-negative integers as a failure prints them", v);
	if (o->replay_from > o->replay_limit)
		return cli_usage_error(cmd, "--replay %s: FROM (%llu) is past LIMIT (%llu): the "
				       "perturbations run are FROM to LIMIT-1", v,
				       (unsigned long long)o->replay_from,
				       (unsigned long long)o->replay_limit);
	o->replay_given = true;
	return 0;
}

#define STR_(x) #x
#define STR(x) STR_(x)

/* The shared options are run's: taken, and --help says so in a line. */
const struct cli_opt cli_explore_opts[] = {
	CLI_COUNT(NULL, "--schedules", "N", struct explore_own, schedules, 1, 100000000, NULL,
		  "schedules to run, the default one included (default 100)"),
	CLI_CALL(NULL, "--strategy", "S", own_strategy,
		 "random: each decision perturbs independently (default);\n"
		 "pct: random M priorities and D-1 change points (PCT)"),
	CLI_COUNT(NULL, "--depth", "D", struct explore_own, depth, 1, RT_EXPLORE_MAX_DEPTH, NULL,
		  "pct's bug depth D, 1 to " STR(RT_EXPLORE_MAX_DEPTH) " (default 3)"),
	CLI_COUNT("-j", NULL, "N", struct explore_own, jobs, 1, 256, NULL,
		  "schedules run at once, in forked children (default: the\n"
		  "online CPUs, fewer if the memory available would not\n"
		  "hold that many runs at their --max-memory)"),
	CLI_FLAG(NULL, "--keep-going", struct explore_own, keep_going,
		 "report every failing schedule, not only the first"),
	CLI_DURATION("--max-starve", "DUR", struct explore_own, max_starve_ns, 1,
		     "the starvation bound (default 50ms)"),
	CLI_DURATION("--delay", "DUR", struct explore_own, delay_ns, 1,
		     "a perturbing delay's bound (default 200us; random draws\n"
		     "delays log-uniformly from 1ns to it, PCT delays by it)"),
	CLI_COUNT(NULL, "--delay-rate", "N", struct explore_own, delay_rate, 0, 1000,
		  "expected a number from %llu to %llu (per mille)",
		  "random: per mille of contract operations delayed (default 20)"),
	CLI_CALL(NULL, "--bug", "NAME", own_bug,
		 "switch on a seeded bug (builds with -Dseeded_bugs only):\n"
		 "no-recheck, no-wakep, runnext-eager, sharedq-nolock,\n"
		 "lost-timer, checkdead-ms, retake-nocheck"),
	CLI_CALL(NULL, "--replay", "S:F:L:K", own_replay,
		 "run only the schedule of seed S, perturbations F to L-1,\n"
		 "PCT steps K, as a failure prints it (exit 1 if it fails)"),
	CLI_STRING(NULL, "--trace", "FILE", struct explore_own, trace,
		   "with --replay, or when a failure is found: write the failing\n"
		   "schedule's execution trace (Go's format; Chrome's for *.json)"),
	CLI_FLAG(NULL, "--quiet", struct explore_own, quiet, "no progress line"),
	CLI_TEXT("  -p, -t, -w, --procs, --seed, --set and the limits are `run`'s (the seed is\n"
		 "  the workload's; every schedule uses it).\n"),
	CLI_SHARED_HIDDEN(CLI_SH_POLICY),
	CLI_SHARED_HIDDEN(CLI_SH_TOPOLOGY),
	CLI_SHARED_HIDDEN(CLI_SH_WORKLOAD),
	CLI_SHARED_HIDDEN(CLI_SH_PROCS),
	CLI_SHARED_HIDDEN(CLI_SH_SEED),
	CLI_SHARED_HIDDEN(CLI_SH_SET),
	CLI_SHARED_LIMITS_HIDDEN,
	CLI_END,
};

/* ---- One schedule ---- */

struct explore_ctx {
	struct run base;           /* the run every schedule makes */
	struct explore_own *own;
	const struct cli_opts *o;
	int argc;
	char **argv;
};

struct sched_spec {
	uint64_t seed, from, limit, k;
};

/* What a schedule's child reports. */
struct sched_result {
	int status;                    /* 0 pass, 1 violation, 2 crash, 3 cut at a limit */
	uint64_t decisions, applied, steps, checks;
	char what[48];
	char msg[600];
	char *state;                   /* (malloc'd, or NULL) */
};

static void explore_init(struct explore_ctx *c, struct rt_explore *x, struct sched_spec s)
{
	memset(x, 0, sizeof(*x));
	x->strategy = c->own->strategy;
	x->seed = s.seed;
	x->from = s.from;
	x->limit = s.limit;
	x->depth = (int)c->own->depth;
	x->pct_steps = s.k;
	x->delay_ns = c->own->delay_ns;
	x->delay_per_mille = (uint32_t)c->own->delay_rate;
	x->max_starve_ns = c->own->max_starve_ns;
	x->bug = c->own->bug;
	rt_explore_reset(x);
}

/* Runs s here, in this process; trace: also write the run's trace there. */
static int run_schedule(struct explore_ctx *c, struct sched_spec s, struct sched_result *res,
			const char *trace)
{
	struct rt_explore x;
	explore_init(c, &x, s);
	struct run run = c->base;
	memset(&run.r, 0, sizeof(run.r));
	memset(&run.mech, 0, sizeof(run.mech));
	run.explore = &x;
	run.trace = trace != NULL;
	struct err e = { "" };
	struct rt *rt = run_exec(&run, false, &e);
	memset(res, 0, sizeof(*res));
	if (!rt) {
		fprintf(stderr, "schedlab: %s\n", e.msg);
		return EXIT_BADINPUT;
	}
	res->decisions = x.decisions;
	res->applied = x.applied;
	res->steps = x.steps;
	res->checks = x.checks;
	if (x.failed) {
		res->status = 1;
		snprintf(res->what, sizeof(res->what), "%s", x.what);
		snprintf(res->msg, sizeof(res->msg), "%s", x.msg);
		res->state = x.state;
	} else if (run.r.ended != RT_ENDED_ITSELF ||
		   (run.r.panicked && rt_explore_limit_panic(run.r.panic))) {
		res->status = 3;
	}
	int rc = 0;
	if (trace)
		rc = cli_write_exec_trace("explore", trace, run.api, rt);
	run.api->destroy(rt);
	rt_mech_free(&run.mech);
	free(x.seen);
	return rc;
}

/* A child's report: the fixed part, then the state's bytes -- past
 * STATE_MAX, its whole lines that fit and a count of the rest, so that
 * what follows it (the replay line) still starts a line. */
static void write_result(int fd, const struct sched_result *r)
{
	struct sched_result fixed = *r;
	size_t n = r->state ? strlen(r->state) : 0;
	char tail[64] = "";
	if (n > STATE_MAX) {
		size_t keep = STATE_MAX - sizeof(tail);
		while (keep && r->state[keep - 1] != '\n')
			keep--;
		size_t more = 0;
		for (const char *p = r->state + keep; *p; p++)
			more += *p == '\n';
		snprintf(tail, sizeof(tail), "  ... %zu more lines\n", more);
		n = keep;
	}
	size_t nt = strlen(tail);
	fixed.state = (char *)(uintptr_t)(n + nt);
	if (write(fd, &fixed, sizeof(fixed)) != (ssize_t)sizeof(fixed) ||
	    (n && write(fd, r->state, n) != (ssize_t)n) ||
	    (nt && write(fd, tail, nt) != (ssize_t)nt))
		_exit(3);
}

static bool read_result(int fd, struct sched_result *r)
{
	if (lseek(fd, 0, SEEK_SET) != 0 || read(fd, r, sizeof(*r)) != (ssize_t)sizeof(*r))
		return false;
	size_t n = (size_t)(uintptr_t)r->state;
	r->state = NULL;
	if (n) {
		r->state = xcalloc(1, n + 1);
		if (read(fd, r->state, n) != (ssize_t)n) {
			free(r->state);
			r->state = NULL;
		}
	}
	return true;
}

/* A slot: one child at a time, its report and stderr in files of its own. */
struct slot {
	pid_t pid;
	uint64_t index;
	struct sched_spec spec;
	int res_fd, err_fd;
};

static int tmp_fd(void)
{
	FILE *f = tmpfile();
	if (!f) {
		fprintf(stderr, "schedlab explore: cannot make a temporary file: %s\n", strerror(errno));
		exit(EXIT_BADINPUT);
	}
	return fileno(f);   /* kept open for the command's life: two per slot */
}

static void launch(struct explore_ctx *c, struct slot *sl)
{
	if (ftruncate(sl->res_fd, 0) != 0 || ftruncate(sl->err_fd, 0) != 0) {
		fprintf(stderr, "schedlab explore: a temporary file: %s\n", strerror(errno));
		exit(3);
	}
	lseek(sl->res_fd, 0, SEEK_SET);
	lseek(sl->err_fd, 0, SEEK_SET);
	fflush(stdout);
	fflush(stderr);
	pid_t pid;
	/* a full process table is a passing state of a busy host: retry */
	pid_t parent = getpid();
	for (int tries = 0; (pid = fork()) < 0 && errno == EAGAIN && tries < 50; tries++)
		nanosleep(&(struct timespec){ 0, 100 * 1000000 }, NULL);
	if (pid < 0) {
		fprintf(stderr, "schedlab explore: fork: %s\n", strerror(errno));
		exit(3);   /* running schedules die with this process (their PDEATHSIG) */
	}
	if (pid == 0) {
		/* the exploration's end (or death) ends its schedules */
		proc_die_with_parent(parent);
		dup2(sl->err_fd, 2);
		struct sched_result r;
		int rc = run_schedule(c, sl->spec, &r, NULL);
		if (rc)
			_exit(rc);
		write_result(sl->res_fd, &r);
		_exit(0);
	}
	sl->pid = pid;
}

/* The child's end as a result: its report, or the crash it died of. */
static void collect(struct slot *sl, int status, struct sched_result *r)
{
	memset(r, 0, sizeof(*r));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && read_result(sl->res_fd, r))
		return;
	r->status = 2;
	snprintf(r->what, sizeof(r->what), "crash");
	char err[400] = "";
	ssize_t n = pread(sl->err_fd, err, sizeof(err) - 1, 0);
	if (n > 0) {
		err[n] = '\0';
		char *nl;
		while ((nl = strchr(err, '\n')) && nl[1] == '\0')
			*nl = '\0';
		for (char *p = err; *p; p++)
			if (*p == '\n')
				*p = ' ';
	}
	if (WIFSIGNALED(status))
		snprintf(r->msg, sizeof(r->msg), "the run died of signal %d (%s)%s%s", WTERMSIG(status),
			 strsignal(WTERMSIG(status)), err[0] ? ": " : "", err);
	else
		snprintf(r->msg, sizeof(r->msg), "the run exited with status %d%s%s",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1, err[0] ? ": " : "", err);
}

/* Runs s in a child (crash-safe) and waits for it. */
static void run_isolated(struct explore_ctx *c, struct slot *sl, struct sched_spec s,
			 struct sched_result *r)
{
	sl->spec = s;
	launch(c, sl);
	int status;
	pid_t got;
	while ((got = waitpid(sl->pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (got < 0) {
		fprintf(stderr, "schedlab explore: waitpid: %s\n", strerror(errno));
		exit(3);
	}
	sl->pid = 0;
	collect(sl, status, r);
}

/* ---- Schedules, shrinking, the report ---- */

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t z = a * 0x9e3779b97f4a7c15ULL + b + 0x6a09e667f3bcc909ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static struct sched_spec spec_of(const struct explore_ctx *c, uint64_t i, uint64_t k)
{
	struct sched_spec s = { mix(c->o->seed, i), 0, i == 0 ? 0 : UINT64_MAX, k };
	return s;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The command that replays s: this one's options, --replay instead of the
 * exploration's own. */
static void print_replay(const struct explore_ctx *c, struct sched_spec s, FILE *f)
{
	fprintf(f, "replay: schedlab explore");
	for (int i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--schedules") == 0 || strcmp(a, "-j") == 0 || strcmp(a, "--replay") == 0 ||
		    strcmp(a, "--trace") == 0) {
			i++;
			continue;
		}
		if (strcmp(a, "--keep-going") == 0 || strcmp(a, "--quiet") == 0)
			continue;
		bool plain = a[0] != '\0';
		for (const char *p = a; *p; p++)
			if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') ||
			      ('0' <= *p && *p <= '9') || strchr("-_./:=,+@%", *p)))
				plain = false;
		if (plain) {
			fprintf(f, " %s", a);
		} else {
			fputs(" '", f);
			for (const char *p = a; *p; p++)
				*p == '\'' ? fputs("'\\''", f) : fputc(*p, f);
			fputc('\'', f);
		}
	}
	fprintf(f, " --replay %" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64 "\n", s.seed, s.from,
		s.limit, s.k);
}

/* Does t break the same invariant as *best?  If so it becomes *best. */
static bool same_failure(struct explore_ctx *c, struct slot *sl, struct sched_spec t,
			 struct sched_result *best)
{
	struct sched_result r;
	run_isolated(c, sl, t, &r);
	if (r.status != best->status || strcmp(r.what, best->what) != 0) {
		free(r.state);
		return false;
	}
	free(best->state);
	*best = r;
	return true;
}

/* The narrowest window of perturbations [from, limit) that still breaks
 * the same invariant: the limit bisected down from the perturbations the
 * failure had drawn, then from bisected up.  Neither half is monotone in
 * general (fewer perturbations make another schedule), so this finds a
 * window whose ends each matter, not the least one.  *best gets the
 * result of the schedule returned. */
static struct sched_spec shrink(struct explore_ctx *c, struct slot *sl, struct sched_spec s,
				struct sched_result *best, int *trials)
{
	struct sched_spec t = s;
	t.limit = best->decisions < s.limit ? best->decisions : s.limit;
	(*trials)++;
	if (!same_failure(c, sl, t, best))
		return s;
	uint64_t lo = t.from, hi = t.limit;   /* hi fails; lo (nothing) is assumed to pass */
	while (hi - lo > 1 && *trials < 48) {
		t.limit = lo + (hi - lo) / 2;
		(*trials)++;
		if (same_failure(c, sl, t, best))
			hi = t.limit;
		else
			lo = t.limit;
	}
	t.limit = hi;
	lo = t.from;   /* fails */
	hi = t.limit;  /* [limit, limit): nothing, assumed to pass */
	while (hi - lo > 1 && *trials < 96) {
		t.from = lo + (hi - lo) / 2;
		(*trials)++;
		if (same_failure(c, sl, t, best))
			lo = t.from;
		else
			hi = t.from;
	}
	t.from = lo;
	if (t.from != s.from || t.limit != s.limit) {
		/* the last trial may have been a passing one: make *best t's */
		(*trials)++;
		if (!same_failure(c, sl, t, best))
			return s;
	}
	return t;
}

static void print_failure(const struct explore_ctx *c, uint64_t index, struct sched_spec s,
			  const struct sched_result *r, uint64_t applied0, int trials)
{
	if (index == UINT64_MAX)   /* --replay's */
		printf("explore: the replayed schedule broke \"%s\": %s\n", r->what, r->msg);
	else
		printf("explore: schedule %" PRIu64 " broke \"%s\": %s\n", index, r->what, r->msg);
	if (trials)
		printf("  shrunk in %d runs to %" PRIu64 " perturbations (of %" PRIu64 "): those "
		       "numbered %" PRIu64 " to %" PRIu64 "\n",
		       trials, r->applied, applied0, s.from, s.limit - 1);
	else
		printf("  %" PRIu64 " perturbations applied\n", r->applied);
	if (r->state)
		printf("state at the violation (Go's scheddetail lines):\n%s", r->state);
	print_replay(c, s, stdout);
	fflush(stdout);
}

static long online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

static int replay(struct explore_ctx *c)
{
	struct explore_own *own = c->own;
	struct sched_spec s = { own->replay_seed, own->replay_from, own->replay_limit, own->replay_k };
	struct sched_result r;
	int rc = run_schedule(c, s, &r, own->trace);
	if (rc)
		return rc;
	if (r.status == 1) {
		print_failure(c, UINT64_MAX, s, &r, r.applied, 0);
		free(r.state);
		return EXIT_FOUND;
	}
	printf("explore: the schedule %" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64 " broke no "
	       "invariant (%" PRIu64 " scheduling steps checked, %" PRIu64 " perturbations)%s\n",
	       s.seed, s.from, s.limit, s.k, r.checks, r.applied,
	       r.status == 3 ? "; the run was cut at a limit" : "");
	return 0;
}

static int explore(struct explore_ctx *c)
{
	struct explore_own *own = c->own;
	uint64_t n = own->schedules;
	long cpus = online_cpus();
	/* by default as many as the CPUs and the memory hold, each schedule's
	 * process growing to the run's memory budget at most, as the run
	 * matrix's; and -j or not, each slot's two temporary files leave the
	 * command its share of descriptors */
	uint64_t each = c->base.max_memory ? c->base.max_memory : RT_MEMORY_BUDGET;
	int jobs = own->jobs ? (int)own->jobs : proc_jobs_cap(cpus < 256 ? (int)cpus : 256, each, 0);
	jobs = proc_jobs_cap(jobs, 0, 2);
	if ((uint64_t)jobs > n)
		jobs = (int)n;
	struct slot *slots = xcalloc((size_t)jobs, sizeof(*slots));
	for (int i = 0; i < jobs; i++) {
		slots[i].res_fd = tmp_fd();
		slots[i].err_fd = tmp_fd();
	}
	bool tty = !own->quiet && isatty(2);
	double t0 = now_s(), last_print = 0;

	/* Schedule 0, the default, first and alone: its steps are PCT's k */
	struct sched_result r0;
	run_isolated(c, &slots[0], spec_of(c, 0, 0), &r0);
	uint64_t k = r0.steps ? r0.steps : 1;
	uint64_t done = 1, failures = 0, crashes = 0, cut = 0, checks = r0.checks;
	uint64_t first_fail = UINT64_MAX;
	int rc = 0;
	struct sched_result *found = NULL;
	struct sched_spec found_spec = { 0, 0, 0, 0 };
	if (r0.status == 1 || r0.status == 2) {
		failures++;
		crashes += r0.status == 2;
		first_fail = 0;
		found = xcalloc(1, sizeof(*found));
		*found = r0;
		found_spec = spec_of(c, 0, k);
	} else {
		cut += r0.status == 3;
	}
	bool stop = found && !own->keep_going;
	if (found && own->keep_going) {
		print_failure(c, 0, found_spec, found, found->applied, 0);
	}

	uint64_t next = 1;
	int inflight = 0;
	while ((next < n && !stop) || inflight) {
		for (int i = 0; i < jobs && next < n && !stop; i++) {
			if (slots[i].pid)
				continue;
			slots[i].index = next;
			slots[i].spec = spec_of(c, next, k);
			next++;
			launch(c, &slots[i]);
			inflight++;
		}
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			/* SIGCHLD is not ignored (cmd_explore): a lost child is ours to report */
			fprintf(stderr, "schedlab explore: waitpid: %s\n", strerror(errno));
			exit(3);
		}
		struct slot *sl = NULL;
		for (int i = 0; i < jobs; i++)
			if (slots[i].pid == pid)
				sl = &slots[i];
		if (!sl)
			continue;
		sl->pid = 0;
		inflight--;
		struct sched_result r;
		collect(sl, status, &r);
		done++;
		checks += r.checks;
		if (r.status == 3)
			cut++;
		if (r.status == 1 || r.status == 2) {
			failures++;
			crashes += r.status == 2;
			if (own->keep_going) {
				print_failure(c, sl->index, sl->spec, &r, r.applied, 0);
				free(r.state);
			} else if (!found || sl->index < first_fail) {
				/* the lowest failing index wins: the same report at any -j */
				if (found)
					free(found->state);
				else
					found = xcalloc(1, sizeof(*found));
				*found = r;
				found_spec = sl->spec;
				first_fail = sl->index;
				stop = true;
			} else {
				free(r.state);
			}
		} else {
			free(r.state);
		}
		double t = now_s();
		if (tty && t - last_print > 0.25) {
			last_print = t;
			fprintf(stderr, "\rexplore: %" PRIu64 "/%" PRIu64 " schedules, %.1f/s, %" PRIu64
				" violations ", done, n, (double)done / (t - t0), failures);
		}
	}
	double secs = now_s() - t0;
	if (tty)
		fputc('\n', stderr);
	printf("explore: %s on %s, %d Ps, %s: %" PRIu64 " schedules (%s) in %.1f s, %.1f "
	       "schedules/s (%.0f/min), %" PRIu64 " scheduling steps checked, %" PRIu64
	       " violations%s",
	       c->base.pol->name, c->base.topo->name, c->base.procs, c->base.wl->name, done,
	       own->strategy == RT_EXPLORE_PCT ? "pct" : "random", secs,
	       secs > 0 ? (double)done / secs : 0.0, secs > 0 ? 60.0 * (double)done / secs : 0.0,
	       checks, failures, crashes ? " (crashes among them)" : "");
	if (cut)
		printf(", %" PRIu64 " cut at a limit", cut);
	if (r0.status == 1 || r0.status == 2)
		printf("; the default schedule fails too");
	printf("\n");
	if (found && !own->keep_going) {
		int trials = 0;
		uint64_t applied0 = found->applied;
		struct sched_spec s = found_spec;
		/* a crash (a core assertion) shrinks the same way: the replay
		 * then ends by that assertion, in the replaying process */
		if (first_fail != 0)
			s = shrink(c, &slots[0], found_spec, found, &trials);
		print_failure(c, first_fail, s, found, applied0, trials);
		if (own->trace && found->status == 1) {
			struct sched_result tr;
			int trc = run_schedule(c, s, &tr, own->trace);
			free(tr.state);
			if (trc)
				rc = trc;
			else
				printf("trace: %s\n", own->trace);
		}
	}
	if (found) {
		free(found->state);
		free(found);
	} else if (r0.state) {
		free(r0.state);
	}
	free(slots);
	/* a cut schedule's checks stopped at the limit: not a pass */
	return rc ? rc : failures ? EXIT_FOUND : cut ? EXIT_LIMIT : 0;
}

int cmd_explore(int argc, char **argv)
{
	struct explore_own own = {
		.schedules = 100, .depth = 3, .delay_rate = 20,
		.max_starve_ns = 50 * 1000000LL, .delay_ns = 200000,
		.strategy = RT_EXPLORE_RANDOM, .bug = RT_BUG_NONE,
	};
	struct explore_ctx c = { .own = &own, .argc = argc, .argv = argv };
	struct cli_opts o = { .cmd = "explore", .policy = NULL, .limits = &c.base };
	const struct cli_own own_ops = { cli_help_explore, cli_explore_opts, &own };
	int rc = cli_parse_options(&o, argc, argv, &own_ops);
	if (rc || o.help)
		return rc;
	c.o = &o;
	if (!o.policy)
		return cli_usage_error("explore", "missing -p POLICY");
	if (own.trace && strcmp(own.trace, "-") == 0)
		return cli_usage_error("explore", "--trace -: name a file (its name chooses the format: "
				       "FILE.json Chrome's JSON trace events, any other Go's)");
	if (own.trace && own.keep_going && !own.replay_given)
		return cli_usage_error("explore", "--trace with --keep-going: which failure's trace? "
				       "(--replay the one you want with --trace)");
	if (own.replay_given && own.strategy == RT_EXPLORE_PCT && own.replay_k == 0)
		return cli_usage_error("explore", "--replay: a pct schedule's K (its steps) is not 0");
	/* the schedules are children this process waits for: an inherited
	 * SIG_IGN would have the kernel reap them, and their results lost */
	signal(SIGCHLD, SIG_DFL);
	c.base.api = &sim__rt_api;
	c.base.seed = o.seed;
	c.base.pol = c.base.api->pol_find(o.policy);
	if (!c.base.pol) {
		char names[256];
		cli_policy_names(c.base.api, names, sizeof(names));
		return cli_usage_error("explore", "-p %s: no such policy (policies: %s)", o.policy,
				       names);
	}
	int64_t *knobs = run_knobs_new(c.base.pol);
	struct topo *topo = NULL;
	struct workload *wl = NULL;
	struct err e = { "" };
	for (int i = 0; i < o.nsets; i++) {
		if (!pol_set_knob(c.base.pol, knobs, o.sets[i], &e)) {
			rc = cli_usage_error("explore", "%s", e.msg);
			goto out;
		}
	}
	c.base.knobs = knobs;
	bool is_trace;
	uint64_t trace_seed;
	rc = cli_load_inputs(o.topology, o.workload, &topo, &wl, &is_trace, &trace_seed);
	if (rc)
		goto out;
	if (is_trace) {
		rc = cli_check_trace_seed(&o, trace_seed);
		if (rc)
			goto out;
		c.base.seed = trace_seed;
	}
	c.base.topo = topo;
	c.base.wl = wl;
	c.base.procs = run_default_procs(wl, topo, (long)o.procs);
	if (own.trace) {
		/* claimed now, so a bad path fails before the exploration */
		rc = cli_out_claim("explore", "--trace", own.trace);
		if (rc)
			goto out;
	}
	rc = own.replay_given ? replay(&c) : explore(&c);
out:
	wl_free(wl);
	topo_free(topo);
	free(knobs);
	return rc;
}
