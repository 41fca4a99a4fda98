/* `schedlab explore`: one workload under many perturbed schedules, each
 * checked for the core's invariants (core/explore.h; docs/runtime.md,
 * "Exploring schedules").  The exploration is the library's
 * (exp/explore.h: the schedules in the child-process pool, the first
 * failure in schedule order shrunk); this file parses the options, loads
 * the inputs, prints the progress, the summary and each failure with the
 * command that replays it (--replay SEED:FROM:LIMIT:K, which with --trace
 * FILE also writes its execution trace). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "core/explore.h"
#include "exp/explore.h"
#include "topologies/topo.h"
#include "workloads/program.h"

void cli_help_explore(FILE *f)
{
	fprintf(f,
		"usage: schedlab explore -p POLICY [-t TOPOLOGY] -w WORKLOAD [--procs N|RULE] [--seed N]\n"
		"                        [--set KEY=VALUE ...] [--schedules N] [--strategy random|pct]\n"
		"                        [--depth D] [-j N] [--keep-going] [--max-starve DUR]\n"
		"                        [--delay DUR] [--delay-rate N] [--bug NAME]\n"
		"                        [--replay SEED:FROM:LIMIT:K [--trace FILE\n"
		"                         [--trace-format go1.22|go1.19|chrome]]] [--quiet]\n"
		"                        [--max-total-time T] [--max-sim-time T] [--max-wall-time T]\n"
		"                        [--max-memory SIZE]\n"
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
		"SIGINT or SIGTERM stops the exploration as --max-total-time does, and the\n"
		"summary says it was interrupted.\n"
		"\n"
		"Exit status: 0 no violation, 1 a violation found, 2 bad input, 4 no\n"
		"violation but some schedules were cut at a limit (a time limit, or the\n"
		"memory budget or thread limit the workload reached): their checks stopped\n"
		"there; or the exploration was cut at --max-total-time.  128 + the signal's\n"
		"number (130 for SIGINT, 143 for SIGTERM): interrupted, whatever was found.\n");
}

struct explore_own {
	uint64_t schedules, jobs, depth, delay_rate;
	int64_t max_starve_ns, delay_ns, max_total_ns;
	enum rt_explore_strategy strategy;
	enum rt_bug bug;
	bool keep_going, quiet, replay_given;
	uint64_t replay_seed, replay_from, replay_limit, replay_k;
	const char *trace;
	const char *trace_format;      /* --trace-format F, as given */
	enum cli_trace_format tformat;
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

static int own_trace_format(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct explore_own *o = ctx;
	o->trace_format = v;
	return cli_parse_trace_format(cmd, v, &o->tformat);
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

static int own_total_time(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct explore_own *o = ctx;
	return cli_parse_wall_time(cmd, a, v, &o->max_total_ns);
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
	CLI_CALL(NULL, "--trace-format", "go1.22|go1.19|chrome", own_trace_format,
		 "--trace's format, as run's: go1.22 (default), go1.19,\n"
		 "chrome"),
	CLI_SHARED(CLI_SH_PROGRESS, NULL),
	CLI_FLAG(NULL, "--quiet", struct explore_own, quiet, "no progress line (--progress never)"),
	CLI_CALL(NULL, "--max-total-time", "T", own_total_time,
		 "the whole exploration's real time (shrinking included;\n"
		 "default: no bound; units as --max-wall-time's): then no\n"
		 "schedule starts, the running ones are killed, and the\n"
		 "summary counts the schedules completed, 0 to N-1"),
	CLI_TEXT("  -p, -t, -w, --procs, --seed, --set, the limits and the OS's (--cpu-quota,\n"
		 "  --cpu-period, --cpuset, --load) are `run`'s, each\n"
		 "  schedule's own (--max-wall-time: one schedule's real time; the seed is the\n"
		 "  workload's; every schedule uses it).\n"),
	CLI_SHARED_HIDDEN(CLI_SH_POLICY),
	CLI_SHARED_HIDDEN(CLI_SH_TOPOLOGY),
	CLI_SHARED_HIDDEN(CLI_SH_WORKLOAD),
	CLI_SHARED_HIDDEN(CLI_SH_PROCS),
	CLI_SHARED_HIDDEN(CLI_SH_SEED),
	CLI_SHARED_HIDDEN(CLI_SH_SET),
	CLI_SHARED_LIMITS_HIDDEN,
	CLI_SHARED_HIDDEN(CLI_SH_CPU_QUOTA),
	CLI_SHARED_HIDDEN(CLI_SH_CPU_PERIOD),
	CLI_SHARED_HIDDEN(CLI_SH_CPUSET),
	CLI_SHARED_HIDDEN(CLI_SH_LOAD),
	CLI_END,
};

/* ---- The exploration (exp/explore.h) and its report ---- */

struct explore_ctx {
	struct exp_explore_opts x;
	struct explore_own *own;
	const struct cli_opts *o;
	/* the replay command's words: this command's, less the exploration's
	 * own options */
	const char **words;
	int nwords;
	struct progress progress;
	double t0;
	uint64_t done, violations;    /* as last told */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The words of the replay command: argv's options, but --schedules, -j,
 * --replay, --trace, --trace-format, --max-total-time, --keep-going and
 * --quiet. */
static void replay_words(struct explore_ctx *c, int argc, char **argv)
{
	c->words = xcalloc((size_t)argc + 1, sizeof(*c->words));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--schedules") == 0 || strcmp(a, "-j") == 0 || strcmp(a, "--replay") == 0 ||
		    strcmp(a, "--trace") == 0 || strcmp(a, "--trace-format") == 0 ||
		    strcmp(a, "--max-total-time") == 0 || strcmp(a, "--progress") == 0) {
			i++;
			continue;
		}
		if (strcmp(a, "--keep-going") != 0 && strcmp(a, "--quiet") != 0)
			c->words[c->nwords++] = a;
	}
}

static void print_failure(const struct explore_ctx *c, const struct exp_explore_failure *f)
{
	exp_explore_print_failure(stdout, f, c->words, c->nwords);
}

static void on_failure(void *ctx, const struct exp_explore_failure *f)
{
	print_failure(ctx, f);
}

static void print_progress(struct explore_ctx *c, double t)
{
	progress_print(&c->progress, "explore: %" PRIu64 "/%" PRIu64 " schedules, %.1f/s, %" PRIu64
		       " violations", c->done, c->x.schedules,
		       t > c->t0 ? (double)c->done / (t - c->t0) : 0.0, c->violations);
}

static void on_progress(void *ctx, uint64_t done, uint64_t violations)
{
	struct explore_ctx *c = ctx;
	c->done = done;
	c->violations = violations;
	double t = now_s();
	if (progress_due(&c->progress, t))
		print_progress(c, t);
}

static int write_trace(void *ctx, const struct run *run, struct rt *rt)
{
	const struct explore_ctx *c = ctx;
	return cli_write_exec_trace("explore", c->own->trace, c->own->tformat, run->api, rt);
}

/* Runs s here, in this process, with --trace's file if given. */
static int run_here(struct explore_ctx *c, struct exp_sched s, struct exp_sched_result *r)
{
	struct err e = { "" };
	int rc = exp_explore_schedule(&c->x, s, r, c->own->trace ? write_trace : NULL, c, &e);
	if (rc == EXIT_BADINPUT && e.msg[0])
		fprintf(stderr, "schedlab: %s\n", e.msg);
	return rc;
}

static int replay(struct explore_ctx *c)
{
	struct explore_own *own = c->own;
	struct exp_explore_failure f = {
		.index = UINT64_MAX,
		.sched = { own->replay_seed, own->replay_from, own->replay_limit, own->replay_k },
	};
	struct exp_sched s = f.sched;
	int rc = run_here(c, s, &f.r);
	if (rc)
		return rc;
	if (f.r.status == EXP_SCHED_VIOLATION) {
		f.applied0 = f.r.applied;
		print_failure(c, &f);
		free(f.r.state);
		return EXIT_FOUND;
	}
	printf("explore: the schedule %" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64 " broke no "
	       "invariant (%" PRIu64 " scheduling steps checked, %" PRIu64 " perturbations)%s\n",
	       s.seed, s.from, s.limit, s.k, f.r.checks, f.r.applied,
	       f.r.status == EXP_SCHED_CUT ? "; the run was cut at a limit" : "");
	return 0;
}

static int explore(struct explore_ctx *c)
{
	c->t0 = now_s();
	progress_start(&c->progress, c->own->quiet ? PROGRESS_NEVER : c->o->progress, c->t0);
	struct exp_explore_result res;
	int rc = exp_explore(&c->x, &res);
	if (progress_wants_last(&c->progress))
		print_progress(c, now_s());
	progress_finish(&c->progress);
	if (rc == 3) {
		fprintf(stderr, "schedlab explore: %s\n", res.error);
		exp_explore_result_free(&res);
		return rc;
	}
	exp_explore_print_summary(stdout, &c->x, &res);
	const struct exp_explore_failure *f = res.found;
	if (f) {
		print_failure(c, f);
		/* interrupted, nothing more is run */
		if (c->own->trace && f->r.status == EXP_SCHED_VIOLATION &&
		    res.stop != EXP_STOP_SIGNAL) {
			struct exp_sched_result tr;
			int trc = run_here(c, f->sched, &tr);
			free(tr.state);
			if (trc)
				rc = trc;
			else
				printf("trace: %s\n", c->own->trace);
		}
	}
	exp_explore_result_free(&res);
	return rc;
}

/* The exploration's options from the command's. */
static void explore_opts(struct explore_ctx *c)
{
	const struct explore_own *own = c->own;
	struct exp_explore_opts *x = &c->x;
	x->schedules = own->schedules;
	x->jobs = (int)own->jobs;
	x->strategy = own->strategy;
	x->depth = (int)own->depth;
	x->delay_per_mille = (uint32_t)own->delay_rate;
	x->delay_ns = own->delay_ns;
	x->max_starve_ns = own->max_starve_ns;
	x->bug = own->bug;
	x->max_total_ns = own->max_total_ns;
	x->keep_going = own->keep_going;
	x->failure = on_failure;
	x->progress = on_progress;
	x->ctx = c;
}

/* The run every schedule makes, from -p, --set, -t, -w, --procs, --seed
 * and the OS options; 0 or an exit status.  The caller frees *knobs,
 * *topo, *wl, *cpuset. */
static int load_base(const struct cli_opts *o, struct run *base, int64_t **knobs,
		     struct topo **topo, struct workload **wl, bool **cpuset)
{
	base->api = &sim__rt_api;
	base->seed = o->seed;
	base->pol = base->api->pol_find(o->policy);
	if (!base->pol) {
		char names[256];
		cli_policy_names(base->api, names, sizeof(names));
		return cli_usage_error("explore", "-p %s: no such policy (policies: %s)", o->policy,
				       names);
	}
	*knobs = run_knobs_new(base->pol);
	base->knobs = *knobs;
	struct err e = { "" };
	for (int i = 0; i < o->nsets; i++)
		if (!pol_set_knob(base->pol, *knobs, o->sets[i], &e))
			return cli_usage_error("explore", "%s", e.msg);
	bool is_trace;
	uint64_t trace_seed;
	int rc = cli_load_inputs(o->topology, o->workload, topo, wl, &is_trace, &trace_seed);
	/* a trace replays its own seed's draws */
	if (!rc && is_trace && !(rc = cli_check_trace_seed(o, trace_seed)))
		base->seed = trace_seed;
	if (rc)
		return rc;
	base->topo = *topo;
	base->wl = *wl;
	rc = cli_os_apply(o, false, base, cpuset);
	if (rc == 0)
		cli_os_procs(o->procs_rule, (long)o->procs, false, base);
	return rc;
}

int cmd_explore(int argc, char **argv)
{
	struct explore_own own = {
		.schedules = EXP_EXPLORE_SCHEDULES, .depth = EXP_EXPLORE_DEPTH,
		.delay_rate = EXP_EXPLORE_DELAY_RATE, .max_starve_ns = EXP_EXPLORE_MAX_STARVE_NS,
		.delay_ns = EXP_EXPLORE_DELAY_NS,
		.strategy = RT_EXPLORE_RANDOM, .bug = RT_BUG_NONE,
	};
	struct explore_ctx c = { .own = &own };
	struct cli_opts o = { .cmd = "explore", .policy = NULL, .limits = &c.x.base };
	const struct cli_own own_ops = { cli_help_explore, cli_explore_opts, &own };
	int rc = cli_parse_options(&o, argc, argv, &own_ops);
	if (rc || o.help)
		return rc;
	c.o = &o;
	if (!o.policy)
		return cli_usage_error("explore", "missing -p POLICY");
	if (own.trace && strcmp(own.trace, "-") == 0)
		return cli_usage_error("explore", "--trace -: name a file (Go's format by default; "
				       "Chrome's JSON trace events for FILE.json or --trace-format chrome)");
	if (own.trace_format && !own.trace)
		return cli_usage_error("explore", "--trace-format %s: there is no --trace FILE to write",
				       own.trace_format);
	if (own.trace && own.keep_going && !own.replay_given)
		return cli_usage_error("explore", "--trace with --keep-going: which failure's trace? "
				       "(--replay the one you want with --trace)");
	if (own.replay_given && own.max_total_ns)
		return cli_usage_error("explore", "--max-total-time with --replay: a replay is one "
				       "schedule (--max-wall-time bounds it)");
	if (own.replay_given && own.strategy == RT_EXPLORE_PCT && own.replay_k == 0)
		return cli_usage_error("explore", "--replay: a pct schedule's K (its steps) is not 0");
	int64_t *knobs = NULL;
	struct topo *topo = NULL;
	struct workload *wl = NULL;
	bool *cpuset = NULL;
	rc = load_base(&o, &c.x.base, &knobs, &topo, &wl, &cpuset);
	/* claimed now, so a bad path fails before the exploration */
	if (!rc && own.trace)
		rc = cli_out_claim("explore", "--trace", own.trace);
	if (!rc) {
		explore_opts(&c);
		replay_words(&c, argc, argv);
		rc = own.replay_given ? replay(&c) : explore(&c);
	}
	free(c.words);
	wl_free(wl);
	topo_free(topo);
	free(knobs);
	free(cpuset);
	return rc;
}
