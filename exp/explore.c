/* Schedule exploration (exp/explore.h): the schedules in the pool's
 * children, the first failure shrunk, the report's lines.
 *
 * A child reports through the pool's pipe: its struct exp_sched_result,
 * then the state's bytes -- past STATE_MAX, its whole lines that fit and a
 * count of the rest, so that what follows it (the replay line) still
 * starts a line.  A child that dies instead is a crash, told by its
 * signal or status and the start of what it wrote on stderr. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exp/explore.h"
#include "topologies/topo.h"
#include "util/pool.h"
#include "workloads/program.h"

#define STATE_MAX (48 * 1024)   /* of the G/M/P state a child reports */
#define HALT_MS 100             /* the pool's longest sleep: how soon a stop is seen */

/* SIGINT or SIGTERM, caught while an exploration runs (0: none). */
static volatile sig_atomic_t caught;

/* ---- One schedule ---- */

static void explore_init(const struct exp_explore_opts *o, struct rt_explore *x,
			 struct exp_sched s)
{
	memset(x, 0, sizeof(*x));
	x->strategy = o->strategy;
	x->seed = s.seed;
	x->from = s.from;
	x->limit = s.limit;
	x->depth = o->depth;
	x->pct_steps = s.k;
	x->delay_ns = o->delay_ns;
	x->delay_per_mille = o->delay_per_mille;
	x->max_starve_ns = o->max_starve_ns;
	x->bug = o->bug;
	rt_explore_reset(x);
}

int exp_explore_schedule(const struct exp_explore_opts *o, struct exp_sched s,
			 struct exp_sched_result *res,
			 int (*with_rt)(void *ctx, const struct run *run, struct rt *rt), void *ctx,
			 struct err *e)
{
	struct rt_explore x;
	explore_init(o, &x, s);
	struct run run = o->base;
	memset(&run.r, 0, sizeof(run.r));
	memset(&run.mech, 0, sizeof(run.mech));
	run.explore = &x;
	run.lim.trace = with_rt != NULL;
	struct rt *rt = run_exec(&run, false, e);
	memset(res, 0, sizeof(*res));
	if (!rt)
		return EXIT_BADINPUT;
	res->decisions = x.decisions;
	res->applied = x.applied;
	res->steps = x.steps;
	res->checks = x.checks;
	if (x.failed) {
		res->status = EXP_SCHED_VIOLATION;
		snprintf(res->what, sizeof(res->what), "%s", x.what);
		snprintf(res->msg, sizeof(res->msg), "%s", x.msg);
		res->state = x.state;
	} else if (run.r.ended != RT_ENDED_ITSELF ||
		   (run.r.panicked && rt_explore_limit_panic(run.r.panic))) {
		res->status = EXP_SCHED_CUT;
	}
	int rc = with_rt ? with_rt(ctx, &run, rt) : 0;
	run.api->destroy(rt);
	rt_mech_free(&run.mech);
	free(x.seen);
	free(x.seen_used);
	return rc;
}

/* A child's report: the fixed part, then the state's bytes. */
static int write_result(int fd, const struct exp_sched_result *r)
{
	struct exp_sched_result fixed = *r;
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
	if (!pool_write(fd, &fixed, sizeof(fixed)) || !pool_write(fd, r->state, n) ||
	    !pool_write(fd, tail, nt))
		return 3;
	return 0;
}

static bool read_result(const struct pool_end *end, struct exp_sched_result *r)
{
	if (end->len < sizeof(*r))
		return false;
	memcpy(r, end->data, sizeof(*r));
	size_t n = (size_t)(uintptr_t)r->state;
	r->state = NULL;
	if (end->len != sizeof(*r) + n)
		return false;
	if (n) {
		r->state = xmalloc(n + 1);
		memcpy(r->state, end->data + sizeof(*r), n);
		r->state[n] = '\0';
	}
	return true;
}

/* A crashed child's result: the signal or status, and the start of what
 * it wrote on stderr, on one line. */
static void crashed(const struct pool_end *end, struct exp_sched_result *r)
{
	memset(r, 0, sizeof(*r));
	r->status = EXP_SCHED_CRASH;
	snprintf(r->what, sizeof(r->what), "crash");
	char err[400];
	snprintf(err, sizeof(err), "%s", end->out);
	char *nl;
	while ((nl = strchr(err, '\n')) && nl[1] == '\0')
		*nl = '\0';
	for (char *p = err; *p; p++)
		if (*p == '\n')
			*p = ' ';
	int status = end->status;
	if (WIFSIGNALED(status))
		snprintf(r->msg, sizeof(r->msg), "the run died of signal %d (%s)%s%s", WTERMSIG(status),
			 strsignal(WTERMSIG(status)), err[0] ? ": " : "", err);
	else
		snprintf(r->msg, sizeof(r->msg), "the run exited with status %d%s%s",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1, err[0] ? ": " : "", err);
}

/* ---- Schedules in the pool ---- */

struct explorer {
	const struct exp_explore_opts *o;
	struct exp_explore_result *res;
	int jobs;
	uint64_t k;                    /* PCT's steps: the default schedule's */
	uint64_t first;                /* the schedule of the pool's job 0 */
	bool isolated;                 /* the pool runs `one`, and keeps its result in `last` */
	struct exp_sched one;
	struct exp_sched_result last;
	bool broken;                   /* a schedule could not be run (res->error) */
	double t0, deadline;           /* deadline 0: no time budget */
};

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t z = a * 0x9e3779b97f4a7c15ULL + b + 0x6a09e667f3bcc909ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static struct exp_sched spec_of(const struct explorer *x, uint64_t i)
{
	return (struct exp_sched){ mix(x->o->base.seed, i), 0, i == 0 ? 0 : UINT64_MAX, x->k };
}

static struct exp_sched sched_of(const struct explorer *x, long job)
{
	return x->isolated ? x->one : spec_of(x, x->first + (uint64_t)job);
}

static int child_run(void *ctx, long job, int fd)
{
	struct explorer *x = ctx;
	struct exp_sched_result r;
	struct err e = { "" };
	int rc = exp_explore_schedule(x->o, sched_of(x, job), &r, NULL, NULL, &e);
	if (rc) {
		fprintf(stderr, "schedlab: %s\n", e.msg);
		return rc;
	}
	return write_result(fd, &r);
}

/* A job's end as a schedule's result; false if it could not be run. */
static bool collect(struct explorer *x, const struct pool_end *end, struct exp_sched_result *r)
{
	if (end->what) {
		snprintf(x->res->error, sizeof(x->res->error), "%s: %s", end->what, strerror(end->err));
		x->broken = true;
		memset(r, 0, sizeof(*r));
		return false;
	}
	if (!WIFEXITED(end->status) || WEXITSTATUS(end->status) != 0 || !read_result(end, r))
		crashed(end, r);
	return true;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Has the exploration to stop -- a signal caught, or its budget spent?
 * Once it has, it stays stopped; a signal outranks the budget. */
static bool halted(struct explorer *x)
{
	struct exp_explore_result *res = x->res;
	if (caught) {
		res->stop = EXP_STOP_SIGNAL;
		res->signo = caught;
	} else if (!res->stop && x->deadline > 0 && now_s() >= x->deadline) {
		res->stop = EXP_STOP_TIME;
	}
	return res->stop != EXP_STOP_NONE;
}

static bool pool_halt(void *ctx)
{
	return halted(ctx);
}

static bool isolated_done(void *ctx, long job, struct pool_end *end)
{
	struct explorer *x = ctx;
	(void)job;
	collect(x, end, &x->last);
	return true;
}

/* Runs s in a child (crash-safe) and waits for it; false if the
 * exploration stopped first (the child killed, *r not set). */
static bool run_isolated(struct explorer *x, struct exp_sched s, struct exp_sched_result *r)
{
	x->isolated = true;
	x->one = s;
	struct pool_ops ops = { .n = 1, .jobs = 1, .capture = true, .run = child_run,
				.done = isolated_done, .tick_ms = HALT_MS, .halt = pool_halt,
				.ctx = x };
	bool ran = pool_run(&ops) == 1;
	x->isolated = false;
	if (ran)
		*r = x->last;
	return ran;
}

static bool failed(const struct exp_sched_result *r)
{
	return r->status == EXP_SCHED_VIOLATION || r->status == EXP_SCHED_CRASH;
}

/* Counts schedule i's result; false once the exploration stops. */
static bool account(struct explorer *x, uint64_t i, struct exp_sched s, struct exp_sched_result *r)
{
	struct exp_explore_result *res = x->res;
	const struct exp_explore_opts *o = x->o;
	res->schedules++;
	res->checks += r->checks;
	res->cut += r->status == EXP_SCHED_CUT;
	bool go_on = true;
	if (failed(r)) {
		res->violations++;
		res->crashes += r->status == EXP_SCHED_CRASH;
		struct exp_explore_failure f = { i, s, *r, r->applied, 0 };
		if (o->keep_going) {
			if (o->failure)
				o->failure(o->ctx, &f);
		} else {
			res->found = xmalloc(sizeof(*res->found));
			*res->found = f;
			r->state = NULL;   /* now the failure's */
			go_on = false;
		}
	}
	free(r->state);
	if (o->progress)
		o->progress(o->ctx, res->schedules, res->violations);
	return go_on;
}

static bool schedule_done(void *ctx, long job, struct pool_end *end)
{
	struct explorer *x = ctx;
	struct exp_sched_result r;
	if (!collect(x, end, &r))
		return false;
	uint64_t i = x->first + (uint64_t)job;
	return account(x, i, spec_of(x, i), &r);
}

/* ---- Shrinking ---- */

/* Does t break the same invariant as *best?  If so it becomes *best.
 * A run the exploration's stop cut is not counted among the trials. */
static bool same_failure(struct explorer *x, struct exp_sched t, struct exp_sched_result *best,
			 int *trials)
{
	struct exp_sched_result r;
	if (!run_isolated(x, t, &r))
		return false;
	(*trials)++;
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
/* Bisects *at between bad, where t fails the same way as *best, and
 * good, where it is assumed to pass, until they are adjacent, the trials
 * reach max or the exploration stops; returns the failing end. */
static uint64_t bisect(struct explorer *x, struct exp_sched *t, uint64_t *at, uint64_t bad,
		       uint64_t good, int max, struct exp_sched_result *best, int *trials)
{
	while ((bad > good ? bad - good : good - bad) > 1 && *trials < max && !halted(x)) {
		uint64_t lo = bad < good ? bad : good, hi = bad < good ? good : bad;
		*at = lo + (hi - lo) / 2;
		if (same_failure(x, *t, best, trials))
			bad = *at;
		else
			good = *at;
	}
	return bad;
}

static struct exp_sched shrink(struct explorer *x, struct exp_sched s,
			       struct exp_sched_result *best, int *trials)
{
	struct exp_sched t = s;
	t.limit = best->decisions < s.limit ? best->decisions : s.limit;
	if (!same_failure(x, t, best, trials))
		return s;
	/* the limit fails; from (nothing applied) is assumed to pass */
	t.limit = bisect(x, &t, &t.limit, t.limit, t.from, 48, best, trials);
	/* from fails; [limit, limit) (nothing) is assumed to pass */
	t.from = bisect(x, &t, &t.from, t.from, t.limit, 96, best, trials);
	/* *best is the last failing trial's, which is t's; a stopped
	 * exploration leaves it at that */
	if ((t.from != s.from || t.limit != s.limit) && !halted(x)) {
		/* the last trial may have been a passing one: make *best t's */
		if (!same_failure(x, t, best, trials))
			return s;
	}
	return t;
}

/* ---- The exploration ---- */

/* Schedule 0, the default, first and alone: its steps are PCT's k. */
static bool explore_default(struct explorer *x)
{
	struct exp_sched_result r0;
	if (!run_isolated(x, spec_of(x, 0), &r0) || x->broken)
		return false;
	x->k = r0.steps ? r0.steps : 1;
	x->res->default_fails = failed(&r0);
	/* a failure is reported with the k the others run with */
	return account(x, 0, spec_of(x, 0), &r0);
}

static void on_signal(int sig)
{
	caught = sig;
}

/* SIGINT and SIGTERM stop the exploration (halted) rather than kill this
 * process: the schedules completed are still reported.  One that is
 * ignored (a command started in the background) stays ignored. */
static void catch_signals(struct sigaction saved[2])
{
	static const int sigs[2] = { SIGINT, SIGTERM };
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	caught = 0;
	for (int i = 0; i < 2; i++) {
		sigaction(sigs[i], NULL, &saved[i]);
		if (saved[i].sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

static void restore_signals(const struct sigaction saved[2])
{
	sigaction(SIGINT, &saved[0], NULL);
	sigaction(SIGTERM, &saved[1], NULL);
}

static int explore_status(const struct explorer *x)
{
	const struct exp_explore_result *res = x->res;
	if (x->broken)
		return 3;
	if (res->stop == EXP_STOP_SIGNAL)
		return 128 + res->signo;
	/* a cut schedule's checks stopped at the limit: not a pass; nor
	 * schedules never run */
	return res->violations ? EXIT_FOUND : res->cut || res->stop ? EXIT_LIMIT : 0;
}

int exp_explore(const struct exp_explore_opts *o, struct exp_explore_result *res)
{
	memset(res, 0, sizeof(*res));
	struct explorer x = { .o = o, .res = res, .first = 1, .t0 = now_s() };
	if (o->max_total_ns > 0)
		x.deadline = x.t0 + (double)o->max_total_ns * 1e-9;
	struct sigaction saved[2];
	catch_signals(saved);
	/* by default as many as the CPUs and the memory hold, each schedule's
	 * process growing to the run's memory budget at most, as the run
	 * matrix's */
	uint64_t each = o->base.lim.max_memory ? o->base.lim.max_memory : RT_MEMORY_BUDGET;
	x.jobs = o->jobs > 0 ? o->jobs : pool_default_jobs(256, each);
	if (explore_default(&x) && o->schedules > 1) {
		struct pool_ops ops = {
			.n = (long)(o->schedules - 1), .jobs = x.jobs, .capture = true,
			.run = child_run, .done = schedule_done, .tick_ms = HALT_MS,
			.halt = pool_halt, .ctx = &x,
		};
		pool_run(&ops);
	}
	res->secs = now_s() - x.t0;
	if (res->found && !x.broken && res->found->index != 0 && !halted(&x)) {
		/* a crash (a core assertion) shrinks the same way: the replay
		 * then ends by that assertion, in the replaying process */
		struct exp_explore_failure *f = res->found;
		f->sched = shrink(&x, f->sched, &f->r, &f->trials);
	}
	/* every schedule run: a budget reached as the last one ended cut
	 * nothing */
	if (res->stop == EXP_STOP_TIME && res->schedules == o->schedules && !res->found)
		res->stop = EXP_STOP_NONE;
	restore_signals(saved);
	/* a signal that came once nothing was left to stop is the
	 * caller's, as if never caught */
	if (caught && res->stop != EXP_STOP_SIGNAL)
		raise(caught);
	return res->status = explore_status(&x);
}

void exp_explore_result_free(struct exp_explore_result *res)
{
	if (res->found)
		free(res->found->r.state);
	free(res->found);
	res->found = NULL;
}

/* ---- The report ---- */

/* Where and why an exploration stopped early. */
static void print_stop(FILE *f, const struct exp_explore_opts *o,
		       const struct exp_explore_result *r)
{
	char why[64];
	if (r->stop == EXP_STOP_NONE)
		return;
	if (r->stop == EXP_STOP_SIGNAL) {
		snprintf(why, sizeof(why), "interrupted by %s", r->signo == SIGINT ? "SIGINT" :
			 r->signo == SIGTERM ? "SIGTERM" : strsignal(r->signo));
	} else {
		double scale;
		int decimals;
		const char *unit = str_ns_unit((double)o->max_total_ns, &scale, &decimals);
		snprintf(why, sizeof(why), "cut at the time budget (--max-total-time %g %s)",
			 (double)o->max_total_ns / scale, unit);
	}
	if (r->found)
		fprintf(f, "; shrinking %s", why);
	else if (r->schedules < o->schedules)
		fprintf(f, "; %s before schedule %" PRIu64 " of %" PRIu64, why, r->schedules,
			o->schedules);
	else
		fprintf(f, "; %s after its last schedule", why);
}

void exp_explore_print_summary(FILE *f, const struct exp_explore_opts *o,
			       const struct exp_explore_result *r)
{
	double secs = r->secs;
	uint64_t done = r->schedules;
	fprintf(f, "explore: %s on %s, %d Ps, %s: %" PRIu64 " schedules (%s) in %.1f s, %.1f "
		"schedules/s (%.0f/min), %" PRIu64 " scheduling steps checked, %" PRIu64
		" violations%s",
		o->base.pol->name, o->base.topo->name, o->base.procs, o->base.wl->name, done,
		o->strategy == RT_EXPLORE_PCT ? "pct" : "random", secs,
		secs > 0 ? (double)done / secs : 0.0, secs > 0 ? 60.0 * (double)done / secs : 0.0,
		r->checks, r->violations, r->crashes ? " (crashes among them)" : "");
	if (r->cut)
		fprintf(f, ", %" PRIu64 " cut at a limit", r->cut);
	if (r->default_fails)
		fprintf(f, "; the default schedule fails too");
	print_stop(f, o, r);
	fprintf(f, "\n");
}

/* A word of a command line, quoted for a shell if it needs it. */
static void print_word(FILE *f, const char *a)
{
	bool plain = a[0] != '\0';
	for (const char *p = a; *p; p++)
		if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') ||
		      ('0' <= *p && *p <= '9') || strchr("-_./:=,+@%", *p)))
			plain = false;
	if (plain) {
		fprintf(f, " %s", a);
		return;
	}
	fputs(" '", f);
	for (const char *p = a; *p; p++)
		*p == '\'' ? fputs("'\\''", f) : fputc(*p, f);
	fputc('\'', f);
}

void exp_explore_print_failure(FILE *f, const struct exp_explore_failure *fl,
			       const char *const *words, int nwords)
{
	const struct exp_sched_result *r = &fl->r;
	const struct exp_sched *s = &fl->sched;
	if (fl->index == UINT64_MAX)   /* --replay's */
		fprintf(f, "explore: the replayed schedule broke \"%s\": %s\n", r->what, r->msg);
	else
		fprintf(f, "explore: schedule %" PRIu64 " broke \"%s\": %s\n", fl->index, r->what,
			r->msg);
	if (fl->trials)
		fprintf(f, "  shrunk in %d runs to %" PRIu64 " perturbations (of %" PRIu64 "): those "
			"numbered %" PRIu64 " to %" PRIu64 "\n",
			fl->trials, r->applied, fl->applied0, s->from, s->limit - 1);
	else
		fprintf(f, "  %" PRIu64 " perturbations applied\n", r->applied);
	if (r->state)
		fprintf(f, "state at the violation (Go's scheddetail lines):\n%s", r->state);
	fprintf(f, "replay: schedlab explore");
	for (int i = 0; i < nwords; i++)
		print_word(f, words[i]);
	fprintf(f, " --replay %" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64 "\n", s->seed, s->from,
		s->limit, s->k);
	fflush(f);
}
