/* `schedlab regress`: a suite of cases run over the same seeds as a
 * baseline file, and a gate on the change [docs/regress.md].  The runs are
 * the run-matrix engine's (exp/matrix.h); the suite, the baseline, the
 * statistics and the reports are regress/'s.  -p and --set change the new
 * side only, so a knob or a policy registered beside the original is
 * gated against the original's baseline. */
#include <fcntl.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "core/policy.h"
#include "exp/explore.h"
#include "exp/matrix.h"
#include "exp/metric.h"
#include "util/output.h"
#include "exp/spec.h"
#include "exp/store.h"
#include "regress/regress.h"
#include "regress/stats.h"
#include "topologies/topo.h"
#include "workloads/program.h"

#define CMD "regress"

void cli_help_regress(FILE *f)
{
	fprintf(f,
		"usage: schedlab regress --baseline FILE [--update] [--suite FILE]\n"
		"                        [-p POLICY[:KEY=VALUE...]] [--against POLICY]\n"
		"                        [--set KEY=VALUE ...] [--seeds N]\n"
		"                        [--max-regress METRIC=PCT,...] [--alpha A] [-j N]\n"
		"                        [--native] [--explore N [--bug NAME]] [--markdown FILE|-]\n"
		"                        [--json FILE|-]\n"
		"                        [--max-sim-time T] [--max-wall-time T]\n"
		"                        [--max-memory SIZE]\n"
		"\n"
		"Runs a suite of cases (policy, knobs, topology, workload, procs) over N seeds\n"
		"and compares every metric with a baseline file made the same way, seed by\n"
		"seed, in benchstat's layout: per metric a row per case -- the baseline's and\n"
		"the new median (± half their range), the change and its p -- and the\n"
		"geometric mean over the cases.  A metric with a threshold is a gate: the\n"
		"run fails when it is significantly worse beyond its threshold\n"
		"(docs/regress.md).\n"
		"\n");
	cli_opts_help(f, cli_regress_opts, CLI_OPT_HELP_COL - 2);
	fprintf(f,
		"\n"
		"Simulated runs are deterministic, so the baseline's and the new value of a\n"
		"seed differ only by the change: the test is Wilcoxon's signed-rank test of\n"
		"the per-seed relative changes minus the threshold, one-sided, exact.  Native\n"
		"runs are not paired: the Wilcoxon-Mann-Whitney rank-sum test of the new\n"
		"values against the baseline's moved by the threshold, one-sided, exact.\n"
		"\n"
		"Exit status: 0 no metric regressed beyond its threshold; 1 one did (each is\n"
		"named on stderr, with its case), a new run deadlocked, panicked or was cut\n"
		"at a limit, or an exploration broke an invariant; 2 bad input (the suite, the baseline, an option), or a\n"
		"baseline run that failed.\n");
}

struct regress_own {
	const char *baseline, *suite, *against, *markdown, *json, *bug;
	const char *max_regress[64];
	int nmax;
	bool update, native;
	uint64_t seeds, jobs, explore;
	/* the limit options as given, passed on to each exploration */
	char **limit_args;
	int nlimit_args;
	double alpha;
	const char *alpha_arg;     /* --alpha as given (NULL: the default) */
};

/* --max-regress's help: the metrics' names, wrapped under it. */
static void help_metrics(FILE *f)
{
	char names[2048];
	metric_names_wrapped(names, sizeof(names), 30, 21, 79);
	fprintf(f, "                     Metrics: %s\n", names);
}

static int own_alpha(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct regress_own *r = ctx;
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (end == v || *end || errno || !(x > 0 && x < 0.5))
		return cli_usage_error(CMD, "--alpha %s: expected a level above 0 and below 0.5", v);
	r->alpha = x;
	r->alpha_arg = v;
	return 0;
}

#define STR_(x) #x
#define STR(x) STR_(x)

const struct cli_opt cli_regress_opts[] = {
	CLI_STRING(NULL, "--baseline", "FILE", struct regress_own, baseline,
		   "the baseline (written by --update; it holds the schedlab\n"
		   "version and commit, the suite, and every per-seed value)"),
	CLI_FLAG(NULL, "--update", struct regress_own, update,
		 "run the suite as it is and write the baseline; nothing is\n"
		 "compared (-p, --set, --max-regress are refused)"),
	CLI_STRING(NULL, "--suite", "FILE", struct regress_own, suite,
		   "a suite (JSON, docs/regress.md) for --update; default: the\n"
		   "bundled suite, 13 cases over the policies' mechanisms.\n"
		   "Without --update the baseline's suite is run, and a\n"
		   "--suite given must be the same"),
	CLI_SHARED_AS(CLI_SH_POLICY, "POLICY[:KEY=VALUE...]",
		      "the new side runs this policy with these knobs, in place\n"
		      "of the cases of the policy --against names (default: the\n"
		      "same policy; a policy the suite does not name needs it);\n"
		      "only those cases are run and compared"),
	CLI_STRING(NULL, "--against", "POLICY", struct regress_own, against,
		   "whose cases -p replaces: -p steal2 --against steal gates a\n"
		   "copy of steal registered as steal2 against steal's baseline"),
	CLI_SHARED(CLI_SH_SET, "a knob of the new side (repeatable); without -p, the cases\n"
		   "whose policy has the knob are run with it, the others not"),
	CLI_COUNT(NULL, "--seeds", "N", struct regress_own, seeds, 1, 1000, NULL,
		  "seeds per case (simulated) or repetitions (--native):\n"
		  "with --update, instead of the suite's (cases x N at most\n"
		  STR(EXP_MAX_RUNS) " runs); else at most the baseline's (its first N); at\n"
		  "least the test's smallest N that can reach --alpha (5\n"
		  "simulated, 3 native at 0.05)"),
	{ .kind = CLI_OPT_REPEAT, .lng = "--max-regress", .arg = "METRIC=PCT,...",
	  .off = offsetof(struct regress_own, max_regress), .off2 = offsetof(struct regress_own, nmax),
	  .max = 64, .help_more = help_metrics,
	  .help = "thresholds in percent (request_p99=5%,throughput=2%),\n"
		  "beside or instead of the suite's; METRIC=off ungates one." },
	CLI_CALL(NULL, "--alpha", "A", own_alpha, "the tests' significance level (default 0.05)"),
	CLI_COUNT("-j", "--jobs", "N", struct regress_own, jobs, 1, EXP_MAX_JOBS, NULL,
		  "runs at once (default: the online CPUs; 1 with --native)"),
	CLI_SHARED(CLI_SH_PROGRESS, NULL),
	CLI_FLAG(NULL, "--native", struct regress_own, native,
		 "run natively on this machine: N repetitions of each case\n"
		 "with the suite's first seed, compared unpaired (the host's\n"
		 "noise), each run's host load recorded; the baseline must\n"
		 "be native too"),
	CLI_COUNT(NULL, "--explore", "N", struct regress_own, explore, 1, 1000000,
		  "expected a number of schedules from %llu to %llu",
		  "also run each compared case (simulated, the suite's first\n"
		  "seed) under N schedules of `schedlab explore`: a broken\n"
		  "scheduler invariant fails the gate like a regression, with\n"
		  "the command that replays it"),
	CLI_STRING(NULL, "--bug", "NAME", struct regress_own, bug,
		   "with --explore, explore with a seeded bug switched on\n"
		   "(builds with -Dseeded_bugs; explore --help names them):\n"
		   "shows that the gate would catch it"),
	CLI_STRING(NULL, "--markdown", "FILE|-", struct regress_own, markdown,
		   "the report as Markdown (for a CI summary)"),
	CLI_STRING(NULL, "--json", "FILE|-", struct regress_own, json,
		   "the report as JSON (with - on stdout, no text table)"),
	CLI_SHARED_LIMITS,
	/* the suite gives these: taken, to be refused by name (cmd_regress) */
	CLI_SHARED_REFUSED(CLI_SH_TOPOLOGY),
	CLI_SHARED_REFUSED(CLI_SH_WORKLOAD),
	CLI_SHARED_REFUSED(CLI_SH_PROCS),
	CLI_SHARED_REFUSED(CLI_SH_SEED),
	CLI_SHARED_REFUSED(CLI_SH_CPU_QUOTA),
	CLI_SHARED_REFUSED(CLI_SH_CPU_PERIOD),
	CLI_SHARED_REFUSED(CLI_SH_CPUSET),
	CLI_SHARED_REFUSED(CLI_SH_LOAD),
	CLI_END,
};

/* Whether a is an option of the table that takes a value. */
static int own_kind(void *ctx, const char *a)
{
	const struct cli_opt *e = cli_opt_find(cli_regress_opts, a);
	return e && e->arg ? CLI_OWN_VALUE : CLI_OWN_NONE;
}

/* --max-regress METRIC=PCT,... onto the suite's thresholds. */
static int apply_max_regress(const struct regress_own *r, double *threshold)
{
	for (int i = 0; i < r->nmax; i++) {
		char *list = xstrdup(r->max_regress[i]);
		int rc = 0;
		for (char *item = list, *next; item && !rc; item = next) {
			next = strchr(item, ',');
			if (next)
				*next++ = '\0';
			char *eq = strchr(item, '=');
			char names[512];
			if (!eq) {
				rc = cli_usage_error(CMD, "--max-regress %s: expected METRIC=PCT%%", item);
				break;
			}
			*eq = '\0';
			int m = metric_index(item);
			if (m < 0) {
				metric_names(names, sizeof(names));
				rc = cli_usage_error(CMD, "--max-regress: unknown metric '%s' (expected one "
						     "of: %s)", item, names);
				break;
			}
			double f;
			if (strcmp(eq + 1, "off") == 0)
				threshold[m] = NAN;
			else if (rg_parse_pct(eq + 1, &f))
				threshold[m] = f;
			else
				rc = cli_usage_error(CMD, "--max-regress %s=%s: expected a percentage from 0 "
						     "to 1000 (5%% or 5) or off", item, eq + 1);
		}
		free(list);
		if (rc)
			return rc;
	}
	return 0;
}

/* One case of the new side (or of the baseline, with --update). */
struct plan {
	int ncase;
	const struct pol_ops *pol;
	int64_t *knobs;
	cJSON *set;                /* the knobs given: the case's, --set's, -p's */
	char *variant;             /* "steal:runnext=0" */
	struct topo *topo;
	struct workload *wl;
	int procs;
	struct run_gmp gmp;        /* the case's procs rule, and what it read */
	struct rt_os os;           /* the case's OS limits (cpuset: the plan's) */
	bool *cpuset;
};

static void plans_free(struct plan *p, int n)
{
	for (int i = 0; i < n; i++) {
		free(p[i].knobs);
		cJSON_Delete(p[i].set);
		free(p[i].variant);
		wl_free(p[i].wl);
		topo_free(p[i].topo);
		free(p[i].cpuset);
	}
	free(p);
}

/* Sets a knob of the plan, recorded as given; 0 or an exit status. */
static int plan_set(struct plan *p, const char *assignment, const char *what)
{
	struct err e;
	if (!pol_set_knob(p->pol, p->knobs, assignment, &e))
		return cli_usage_error(CMD, "%s %s: %s", what, assignment, e.msg);
	char key[128];
	const char *eq = strchr(assignment, '=');
	snprintf(key, sizeof(key), "%.*s", (int)(eq - assignment), assignment);
	int k;
	pol_knob(p->pol, key, &k);
	cJSON_DeleteItemFromObjectCaseSensitive(p->set, key);
	cJSON_AddNumberToObject(p->set, key, (double)p->knobs[k]);
	return 0;
}

static bool has_knob(const struct pol_ops *pol, const char *assignment)
{
	char key[128];
	const char *eq = strchr(assignment, '=');
	snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - assignment) : (int)strlen(assignment),
		 assignment);
	int k;
	return pol_knob(pol, key, &k) != NULL;
}

/* A plan's knobs: the case's, then --set's (those its policy has; with
 * -p, every one), then -p's own; and its variant label.  0 or an exit
 * status. */
static int plan_knobs(struct plan *q, const struct rg_case *k, const char *const *sets, int nsets,
		      bool strict, const char *newpol, const char *pknobs)
{
	const struct pol_ops *pol = q->pol;
	int rc = 0;
	q->knobs = run_knobs_new(pol);
	q->set = cJSON_CreateObject();
	for (const cJSON *kv = k->set->child; kv && !rc; kv = kv->next) {
		char *a = xasprintf("%s=%.0f", kv->string, kv->valuedouble);
		if (!has_knob(pol, a))
			rc = cli_usage_error(CMD, "case %s sets %s, a knob %s does not have", k->name,
					     kv->string, pol->name);
		else
			rc = plan_set(q, a, "the case's");
		free(a);
	}
	for (int g = 0; g < nsets && !rc; g++)
		if (has_knob(pol, sets[g]))
			rc = plan_set(q, sets[g], "--set");
		else if (strict)
			rc = cli_usage_error(CMD, "--set %s: %s has no such knob", sets[g], pol->name);
	char *own = pknobs ? xstrdup(pknobs) : NULL;
	for (char *a = own, *end; a && !rc; a = end) {
		end = strchr(a, ':');
		if (end)
			*end++ = '\0';
		if (!strchr(a, '='))
			rc = cli_usage_error(CMD, "-p %s:%s: expected POLICY:KEY=VALUE[:KEY=VALUE...]",
					     newpol, pknobs);
		else
			rc = plan_set(q, a, "-p");
	}
	free(own);
	/* the variant label: the policy and the knobs given, as -p takes them */
	q->variant = xstrdup(pol->name);
	for (const cJSON *kv = q->set->child; kv; kv = kv->next) {
		char *more = xasprintf("%s:%s=%.0f", q->variant, kv->string, kv->valuedouble);
		free(q->variant);
		q->variant = more;
	}
	return rc;
}

/* The case's OS limits and procs rule on the plan's topology, as run's
 * options give them: 0 or an exit status. */
static int plan_os(const struct rg_case *k, struct plan *q, bool native)
{
	struct cli_opts o = {
		.cmd = CMD, .cpu_quota = k->cpu_quota, .cpu_period_ns = k->cpu_period_ns,
		.cpuset = k->cpuset, .load_threads = (int)k->load_threads,
		.load_duty = k->load_duty, .load_period_ns = k->load_period_ns,
	};
	struct run r = { .topo = q->topo, .wl = q->wl };
	int rc = cli_os_apply(&o, native, &r, &q->cpuset);
	if (rc) {
		fprintf(stderr, "schedlab %s: (in case %s of the suite)\n", CMD, k->name);
		return rc;
	}
	cli_os_procs((enum gmp_rule)k->procs_rule, k->procs, native, &r);
	q->procs = r.procs;
	q->gmp = r.gmp;
	q->os = r.os;
	return 0;
}

/* The plans' topologies and workloads (a native plan runs on "host"). */
static int plans_load(const struct rg_suite *s, struct plan *p, int n, bool native)
{
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		const struct rg_case *k = &s->cases[p[i].ncase];
		bool is_trace;
		uint64_t trace_seed;
		struct err e = { "" };
		/* the names are the suite's: said with its file and the case */
		if (!cli_load_inputs_e(native ? "host" : k->topology, k->workload, &p[i].topo,
				       &p[i].wl, &is_trace, &trace_seed, &e)) {
			fprintf(stderr, "schedlab %s: %s, case %d (%s): %s\n", CMD, s->label,
				p[i].ncase, k->name, e.msg);
			rc = EXIT_BADINPUT;
		}
		if (!rc && is_trace)
			rc = cli_usage_error(CMD, "case %s: %s is a trace, which replays one seed's draws: "
					     "a suite's case runs many seeds", k->name, k->workload);
		if (!rc)
			rc = plan_os(k, &p[i], native);
	}
	return rc;
}

/* The cases the new side runs, with its policy and knobs.  newpol is -p's
 * policy name (NULL: none), pknobs its ":KEY=VALUE" list. */
static int make_plans(const struct rg_suite *s, const char *newpol, const char *pknobs,
		      const char *against, const char *const *sets, int nsets, bool native,
		      struct plan **out, int *nout)
{
	const struct rt_api *api = native ? &nat__rt_api : &sim__rt_api;
	const struct pol_ops *np = NULL;
	if (newpol) {
		np = api->pol_find(newpol);
		if (!np) {
			char names[256];
			cli_policy_names(api, names, sizeof(names));
			return cli_usage_error(CMD, "-p %s: unknown policy (expected one of: %s)", newpol,
					       names);
		}
		if (!against)
			against = newpol;
	}
	if (against && !api->pol_find(against)) {
		char names[256];
		cli_policy_names(api, names, sizeof(names));
		return cli_usage_error(CMD, "--against %s: unknown policy (expected one of: %s)",
				       against, names);
	}
	for (int g = 0; g < nsets; g++)
		if (!strchr(sets[g], '='))
			return cli_usage_error(CMD, "--set %s: expected KEY=VALUE", sets[g]);
	struct plan *p = xcalloc((size_t)s->ncases, sizeof(*p));
	int n = 0, rc = 0;
	bool set_used[CLI_MAX_SETS] = { false };
	for (int c = 0; c < s->ncases && !rc; c++) {
		const struct rg_case *k = &s->cases[c];
		const struct pol_ops *pol = api->pol_find(k->policy);
		if (against && strcmp(k->policy, against) != 0)
			continue;
		if (np)
			pol = np;
		bool any = nsets == 0 || np;
		for (int g = 0; g < nsets; g++)
			if (has_knob(pol, sets[g]))
				any = set_used[g] = true;
		if (!any)
			continue;
		struct plan *q = &p[n++];
		q->ncase = c;
		q->pol = pol;
		rc = plan_knobs(q, k, sets, nsets, np != NULL, newpol, pknobs);
	}
	for (int g = 0; g < nsets && !rc && !np; g++)
		if (!set_used[g])
			rc = cli_usage_error(CMD, "--set %s: no case of the suite has a policy with this "
					     "knob", sets[g]);
	if (!rc && n == 0)
		rc = cli_usage_error(CMD, "-p %s: no case of suite %s runs %s; name the policy whose "
				     "cases it replaces with --against POLICY", newpol, s->name, against);
	if (!rc)
		rc = plans_load(s, p, n, native);
	if (rc) {
		plans_free(p, n);
		return rc;
	}
	*out = p;
	*nout = n;
	return 0;
}

/* Runs every plan over nseeds seeds into side (per case), through the
 * run-matrix engine.  0, or after a message: EXIT_BADINPUT for a run the
 * runtime refused, else (a deadlock, a panic, a limit, a crash) what the
 * baseline cannot be made of (update) or what the change broke (1). */
static int run_plans(const struct rg_suite *s, struct plan *p, int np, int nseeds, bool native,
		     const struct run *limits, int jobs, enum progress_when progress, bool update,
		     struct rg_side *side)
{
	long n = (long)np * nseeds;
	struct exp_cell *cells = xcalloc((size_t)n, sizeof(*cells));
	for (int i = 0; i < np; i++)
		for (int k = 0; k < nseeds; k++)
			cells[(long)i * nseeds + k] = (struct exp_cell){
				.index = (long)i * nseeds + k, .variant = p[i].variant,
				.api = native ? &nat__rt_api : &sim__rt_api, .pol = p[i].pol,
				.knobs = p[i].knobs, .set = p[i].set, .topo = p[i].topo, .wl = p[i].wl,
				.procs = p[i].procs, .gmp = p[i].gmp, .os = p[i].os,
				.seed = (uint64_t)s->seed + (native ? 0 : (uint64_t)k),
				.max_sim_ns = limits->lim.max_sim_ns, .max_wall_ns = limits->lim.max_wall_ns,
				.max_memory = limits->lim.max_memory,
			};
	struct exp_opts eo = {
		.cmd = CMD,
		.jobs = jobs ? jobs : exp_default_jobs(cells, n, limits->lim.max_memory),
		.progress = progress,
	};
	struct exp_run *runs = exp_matrix_run(cells, n, &eo);
	int rc = 0;
	long nfailed = 0;
	for (long j = 0; j < n; j++) {
		const char *status = exp_row_status(runs[j].row);
		const struct rg_case *k = &s->cases[p[j / nseeds].ncase];
		if (strcmp(status, "ok") == 0) {
			rg_side_take(side, p[j / nseeds].ncase, (int)(j % nseeds), runs[j].row);
			continue;
		}
		if (nfailed++ == 0) {
			const cJSON *m = cJSON_GetObjectItemCaseSensitive(runs[j].row, "message");
			fprintf(stderr, "schedlab %s: case %s (%s), seed %llu: %s: %s\n", CMD, k->name,
				p[j / nseeds].variant, (unsigned long long)cells[j].seed, status,
				cJSON_IsString(m) ? m->valuestring : "");
			if (runs[j].messages && *runs[j].messages)
				fputs(runs[j].messages, stderr);
			rc = strcmp(status, "error") == 0 || update ? EXIT_BADINPUT : EXIT_FOUND;
		}
	}
	if (nfailed > 1)
		fprintf(stderr, "schedlab %s: %ld of the %ld runs failed; the first is shown\n", CMD,
			nfailed, n);
	if (rc && update)
		fprintf(stderr, "schedlab %s: no baseline written\n", CMD);
	for (int i = 0; i < np; i++)
		side->variant[p[i].ncase] = xstrdup(p[i].variant);
	exp_runs_free(runs, n);
	free(cells);
	return rc;
}

/* Refuses too few seeds for alpha, blaming what was given: --seeds, else
 * --alpha and where the seeds came from (the suite, the baseline). */
static int too_few(const struct regress_own *r, bool native, uint64_t n, const char *from)
{
	int min = native ? rs_ranksum_min_n(r->alpha) : rs_signrank_min_n(r->alpha);
	if ((int)n >= min)
		return 0;
	const char *seeds = native ? "repetitions" : "seeds";
	char blame[1024];
	if (r->seeds)
		snprintf(blame, sizeof(blame), "--seeds %llu", (unsigned long long)n);
	else
		snprintf(blame, sizeof(blame), "%s%s%s%s has %llu %s", r->alpha_arg ? "--alpha " : "",
			 r->alpha_arg ? r->alpha_arg : "", r->alpha_arg ? ": " : "", from,
			 (unsigned long long)n, seeds);
	return cli_usage_error(CMD, "%s: with fewer than %d %s the %s test can never reach p <= %g, "
			       "and the gate could never fire", blame, min, seeds,
			       native ? "rank-sum" : "signed-rank", r->alpha);
}

/* A suite's or a baseline's error (e names the file), as regress's */
static int input_error(const struct err *e)
{
	fprintf(stderr, "schedlab %s: %s\n", CMD, e->msg);
	return EXIT_BADINPUT;
}

static double elapsed_s(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* Two updates of one baseline take turns: each holds an exclusive flock
 * on the file it will replace from before its runs to its rename, so the
 * second waits (saying so) and then makes its own whole baseline.  A
 * baseline not there yet has nothing to protect: -1, and each writer's
 * rename leaves one whole file. */
static int lock_baseline(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	if (errno == EWOULDBLOCK) {
		fprintf(stderr, "schedlab %s: --baseline %s: another regress --update is writing it; "
			"waiting for it to finish\n", CMD, path);
		while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
			;
		return fd;
	}
	close(fd);
	return -1;
}

static int update(const struct regress_own *r, const struct cli_opts *o,
		  const struct run *limits)
{
	if (o->policy || o->nsets || r->nmax || r->against || r->markdown || r->json)
		return cli_usage_error(CMD, "--update writes the baseline from the suite as it is: "
				       "-p, --set, --against, --max-regress, --markdown and --json "
				       "belong to a comparison");
	struct err e = { "" };
	struct rg_suite *s = r->suite ? rg_suite_load(r->suite, &e) : rg_suite_default(&e);
	if (!s)
		return input_error(&e);
	if (r->seeds && (long)r->seeds * s->ncases > EXP_MAX_RUNS) {
		int ncases = s->ncases;
		rg_suite_free(s);
		return cli_usage_error(CMD, "--seeds %llu: %d cases x %llu seeds is %llu runs, more "
				       "than the %d a suite may have", (unsigned long long)r->seeds,
				       ncases, (unsigned long long)r->seeds,
				       (unsigned long long)r->seeds * (unsigned long long)ncases,
				       EXP_MAX_RUNS);
	}
	if (r->seeds) {
		s->seeds = (int)r->seeds;
		cJSON_DeleteItemFromObjectCaseSensitive(s->json, "seeds");
		cJSON_AddNumberToObject(s->json, "seeds", (double)r->seeds);
	}
	char *from = r->suite ? xasprintf("suite %s", r->suite) : xstrdup("the bundled suite");
	int rc = too_few(r, r->native, (uint64_t)s->seeds, from);
	free(from);
	if (!rc)
		rc = cli_out_claim(CMD, "--baseline", r->baseline);
	struct plan *p = NULL;
	int np = 0;
	if (!rc)
		rc = make_plans(s, NULL, NULL, NULL, NULL, 0, r->native, &p, &np);
	if (rc) {
		rg_suite_free(s);
		return rc;
	}
	int lock = lock_baseline(r->baseline);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct rg_side *side = rg_side_new(s->ncases, s->seeds);
	rc = run_plans(s, p, np, s->seeds, r->native, limits, (int)r->jobs, o->progress, true, side);
	if (!rc) {
		struct err we;
		if (!rg_baseline_write(r->baseline, s, side, r->native, &we)) {
			fprintf(stderr, "schedlab %s: %s\n", CMD, we.msg);
			rc = EXIT_BADINPUT;
		} else {
			printf("schedlab regress: wrote baseline %s: suite %s, %d cases x %d %s (%ld runs, "
			       "%s) in %.1f s\n", r->baseline, s->name, s->ncases, s->seeds,
			       r->native ? "repetitions" : "seeds", (long)s->ncases * s->seeds,
			       r->native ? "native" : "simulated", elapsed_s(&t0));
		}
	}
	if (lock >= 0)
		close(lock);
	rg_side_free(side);
	plans_free(p, np);
	rg_suite_free(s);
	return rc;
}

/* The baseline's first n seeds only (--seeds below the baseline's). */
static void truncate_side(struct rg_side **sp, int n)
{
	struct rg_side *s = *sp;
	if (n >= s->nseeds)
		return;
	struct rg_side *t = rg_side_new(s->ncases, n);
	for (int c = 0; c < s->ncases; c++) {
		t->ran[c] = s->ran[c];
		t->variant[c] = s->variant[c] ? xstrdup(s->variant[c]) : NULL;
		t->knobs[c] = s->knobs[c] ? cJSON_Duplicate(s->knobs[c], true) : NULL;
		t->host[c] = s->host[c] ? cJSON_Duplicate(s->host[c], true) : NULL;
		for (int m = 0; m < metric_count; m++)
			for (int k = 0; k < n; k++)
				*rg_at(t, c, m, k) = *rg_at(s, c, m, k);
	}
	rg_side_free(s);
	*sp = t;
}

struct md_report;

static int write_text(const char *opt, const char *path, void (*fn)(FILE *, const struct md_report *),
		      const struct md_report *res)
{
	struct output o;
	if (!output_start(&o, CMD, opt, path))
		return EXIT_BADINPUT;
	fn(o.f, res);
	return output_finish(&o, CMD);
}

static int busy_runs(const struct rg_side *side)
{
	int n = 0;
	for (int c = 0; c < side->ncases; c++)
		for (const cJSON *h = side->host[c] ? side->host[c]->child : NULL; h; h = h->next)
			n += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "busy"));
	return n;
}

/* ---- --explore: each compared case under perturbed schedules ---- */

/* What one case's exploration gave. */
struct explored {
	int status;                /* explore's exit status (128 + N: killed by signal N) */
	uint64_t schedules, violations;
	char *out;                 /* what it printed: the summary, a failure and its replay */
};

/* A case's OS limits as explore's options, into w (at most 8 words):
 * how many. */
static int os_words(const struct rg_case *k, char **w)
{
	int n = 0;
	if (k->cpu_quota) {
		w[n++] = xstrdup("--cpu-quota");
		w[n++] = xasprintf("%.17g", k->cpu_quota);
	}
	if (k->cpu_period_ns) {
		w[n++] = xstrdup("--cpu-period");
		w[n++] = xasprintf("%ldns", k->cpu_period_ns);
	}
	if (k->cpuset) {
		w[n++] = xstrdup("--cpuset");
		w[n++] = xstrdup(k->cpuset);
	}
	if (k->load_threads) {
		w[n++] = xstrdup("--load");
		w[n++] = xasprintf("%ld@%.17g/%ldns", k->load_threads, k->load_duty,
				   k->load_period_ns);
	}
	return n;
}

/* The replay command's words of a case's exploration: what `schedlab
 * explore` is given to explore the case by hand (malloc'd, as is each). */
static char **explore_words(const struct rg_suite *s, const struct plan *p,
			    const struct regress_own *r, int *nwords)
{
	const struct rg_case *k = &s->cases[p->ncase];
	char **w = xcalloc((size_t)(20 + 2 * cJSON_GetArraySize(p->set) + r->nlimit_args),
			   sizeof(*w));
	int n = 0;
	w[n++] = xstrdup("-p");
	w[n++] = xstrdup(p->pol->name);
	for (const cJSON *kv = p->set->child; kv; kv = kv->next) {
		w[n++] = xstrdup("--set");
		w[n++] = xasprintf("%s=%.0f", kv->string, kv->valuedouble);
	}
	w[n++] = xstrdup("-t");
	w[n++] = xstrdup(k->topology);
	w[n++] = xstrdup("-w");
	w[n++] = xstrdup(k->workload);
	w[n++] = xstrdup("--procs");
	w[n++] = xasprintf("%d", p->procs);
	n += os_words(k, w + n);
	w[n++] = xstrdup("--seed");
	w[n++] = xasprintf("%ld", s->seed);
	if (r->bug) {
		w[n++] = xstrdup("--bug");
		w[n++] = xstrdup(r->bug);
	}
	for (int i = 0; i < r->nlimit_args; i++)
		w[n++] = xstrdup(r->limit_args[i]);
	*nwords = n;
	return w;
}

/* The simulated run a case's exploration makes: the plan's, but a native
 * plan's policy and topology are the simulated ones the suite names (an
 * exploration is always simulated).  *own holds what was made here. */
static int explore_base(const struct rg_case *k, const struct plan *p, bool native,
			const struct run *limits, struct run *base, struct topo **own, int64_t **knobs)
{
	*base = (struct run){
		.api = &sim__rt_api, .pol = sim__rt_api.pol_find(p->pol->name), .topo = p->topo,
		.wl = p->wl, .procs = p->procs, .gmp = p->gmp, .os = p->os,
		.lim.max_sim_ns = limits->lim.max_sim_ns,
		.lim.max_wall_ns = limits->lim.max_wall_ns, .lim.max_memory = limits->lim.max_memory,
	};
	*knobs = run_knobs_new(base->pol);
	base->knobs = *knobs;
	struct err e = { "" };
	for (const cJSON *kv = p->set->child; kv; kv = kv->next) {
		char *a = xasprintf("%s=%.0f", kv->string, kv->valuedouble);
		bool ok = pol_set_knob(base->pol, *knobs, a, &e);
		free(a);
		if (!ok)
			return cli_input_error(&e);
	}
	if (native) {
		*own = topo_load(k->topology, &e);
		if (!*own)
			return cli_input_error(&e);
		base->topo = *own;
	}
	return 0;
}

/* Explores one case in this process (exp/explore.h) as `schedlab explore`
 * would with the case's inputs and --schedules N --quiet: x->out is the
 * text it would print, its summary and a failure with its replay. */
static void explore_case(const struct rg_suite *s, const struct plan *p,
			 const struct regress_own *r, const struct run *limits, enum rt_bug bug,
			 struct explored *x)
{
	memset(x, 0, sizeof(*x));
	struct exp_explore_opts o = {
		.schedules = r->explore, .jobs = r->jobs < 256 ? (int)r->jobs : 256,
		.strategy = RT_EXPLORE_RANDOM, .depth = EXP_EXPLORE_DEPTH,
		.delay_per_mille = EXP_EXPLORE_DELAY_RATE, .delay_ns = EXP_EXPLORE_DELAY_NS,
		.max_starve_ns = EXP_EXPLORE_MAX_STARVE_NS, .bug = bug,
	};
	struct topo *topo = NULL;
	int64_t *knobs = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&x->out, &len);
	x->status = explore_base(&s->cases[p->ncase], p, r->native, limits, &o.base, &topo, &knobs);
	o.base.seed = (uint64_t)s->seed;
	struct exp_explore_result res = { 0 };
	if (!x->status && (x->status = exp_explore(&o, &res)) == 3)
		fprintf(stderr, "schedlab explore: %s\n", res.error);
	if (!x->status || x->status == EXIT_FOUND || x->status == EXIT_LIMIT ||
	    res.stop == EXP_STOP_SIGNAL) {
		exp_explore_print_summary(f, &o, &res);
		int nwords;
		char **words = explore_words(s, p, r, &nwords);
		if (res.found)
			exp_explore_print_failure(f, res.found, (const char *const *)words, nwords);
		for (int i = 0; i < nwords; i++)
			free(words[i]);
		free(words);
	}
	fclose(f);
	x->schedules = res.schedules;
	x->violations = res.violations;
	exp_explore_result_free(&res);
	topo_free(topo);
	free(knobs);
}

/* --bug's seeded bug; 0 or an exit status. */
static int explore_bug(const char *name, enum rt_bug *bug)
{
	*bug = RT_BUG_NONE;
	for (int i = 1; name && i < RT_BUG__COUNT; i++)
		if (strcmp(name, rt_bug_names[i]) == 0)
			*bug = (enum rt_bug)i;
	if (name && *bug == RT_BUG_NONE)
		return cli_usage_error(CMD, "--bug %s: no such seeded bug (explore --help names them)",
				       name);
#if !defined(SCHEDLAB_SEEDED_BUGS)
	if (name)
		return cli_usage_error(CMD, "--bug %s: this build has no seeded bugs (meson "
				       "-Dseeded_bugs=enabled)", name);
#endif
	return 0;
}

/* Explores every plan; 0, or EXIT_FOUND after naming each case whose
 * exploration broke an invariant (or could not run) on stderr. */
static int explore_cases(const struct rg_suite *s, const struct plan *p, int np,
			 const struct regress_own *r, const struct run *limits, struct explored *x)
{
	enum rt_bug bug;
	int rc = explore_bug(r->bug, &bug);
	if (rc) {
		for (int i = 0; i < np; i++)
			x[i] = (struct explored){ .status = rc, .out = xstrdup("") };
		return rc;
	}
	for (int i = 0; i < np; i++) {
		const struct rg_case *k = &s->cases[p[i].ncase];
		if (isatty(2))
			fprintf(stderr, "\rregress: exploring case %d of %d (%s) ", i + 1, np, k->name);
		explore_case(s, &p[i], r, limits, bug, &x[i]);
		if (isatty(2))
			fputc('\n', stderr);
		if (x[i].status == 0)
			continue;
		if (x[i].status > 128) {
			/* SIGINT or SIGTERM: the case's summary, and no more */
			fprintf(stderr, "schedlab %s: case %s (%s): its exploration was interrupted\n%s",
				CMD, k->name, p[i].variant, x[i].out);
			return x[i].status;
		}
		if (x[i].status == EXIT_FOUND)
			fprintf(stderr, "schedlab %s: case %s (%s): an exploration broke a scheduler "
				"invariant:\n%s", CMD, k->name, p[i].variant, x[i].out);
		else
			fprintf(stderr, "schedlab %s: case %s (%s): its exploration ended with status "
				"%d\n%s", CMD, k->name, p[i].variant, x[i].status, x[i].out);
		rc = x[i].status == EXIT_BADINPUT ? EXIT_BADINPUT : rc ? rc : EXIT_FOUND;
	}
	return rc;
}

static const char *explored_word(const struct explored *x)
{
	return x->status == 0 ? "ok" : x->status == EXIT_FOUND ? "violation" : "error";
}

static void explore_text(FILE *f, const struct rg_suite *s, const struct plan *p, int np,
			 const struct regress_own *r, const struct explored *x)
{
	fprintf(f, "\nschedules explored (schedlab explore, %" PRIu64 " a case, seed %ld):\n",
		r->explore, s->seed);
	fprintf(f, "%-22s %-28s %10s %10s  %s\n", "case", "variant", "schedules", "violations",
		"");
	for (int i = 0; i < np; i++)
		fprintf(f, "%-22s %-28s %10" PRIu64 " %10" PRIu64 "  %s\n", s->cases[p[i].ncase].name,
			p[i].variant, x[i].schedules, x[i].violations, explored_word(&x[i]));
}

static void explore_markdown(FILE *f, const struct rg_suite *s, const struct plan *p, int np,
			     const struct regress_own *r, const struct explored *x)
{
	fprintf(f, "\n### Schedules explored\n\n`schedlab explore`, %" PRIu64 " schedules a case, "
		"seed %ld.\n\n| case | variant | schedules | violations | |\n|---|---|---:|---:|---|\n",
		r->explore, s->seed);
	for (int i = 0; i < np; i++)
		fprintf(f, "| %s | `%s` | %" PRIu64 " | %" PRIu64 " | %s |\n", s->cases[p[i].ncase].name,
			p[i].variant, x[i].schedules, x[i].violations, explored_word(&x[i]));
	for (int i = 0; i < np; i++)
		if (x[i].status)
			fprintf(f, "\n%s (`%s`):\n\n```\n%s```\n", s->cases[p[i].ncase].name, p[i].variant,
				x[i].out);
}

static cJSON *explore_json(const struct rg_suite *s, const struct plan *p, int np,
			   const struct regress_own *r, const struct explored *x)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "schedules", (double)r->explore);
	cJSON_AddNumberToObject(j, "seed", (double)s->seed);
	cJSON *cases = cJSON_AddArrayToObject(j, "cases");
	for (int i = 0; i < np; i++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "case", s->cases[p[i].ncase].name);
		cJSON_AddStringToObject(c, "variant", p[i].variant);
		cJSON_AddStringToObject(c, "status", explored_word(&x[i]));
		cJSON_AddNumberToObject(c, "exit_status", x[i].status);
		cJSON_AddNumberToObject(c, "schedules", (double)x[i].schedules);
		cJSON_AddNumberToObject(c, "violations", (double)x[i].violations);
		cJSON_AddStringToObject(c, "output", x[i].out);
		cJSON_AddItemToArray(cases, c);
	}
	return j;
}

/* The markdown report, and the exploration's section after it. */
struct md_report {
	const struct rg_result *res;
	const struct rg_suite *s;
	const struct plan *p;
	int np;
	const struct regress_own *r;
	const struct explored *x;
};

static void write_markdown(FILE *f, const struct md_report *m)
{
	rg_report_markdown(f, m->res);
	if (m->x)
		explore_markdown(f, m->s, m->p, m->np, m->r, m->x);
}

/* --suite, if given, must be the baseline's suite (--seeds aside). */
static int check_suite(const struct regress_own *r, const struct rg_baseline *b)
{
	if (!r->suite)
		return 0;
	struct err e = { "" };
	struct rg_suite *given = rg_suite_load(r->suite, &e);
	int rc = 0;
	if (!given)
		return input_error(&e);
	if (!cJSON_Compare(given->json, b->suite->json, true)) {
		/* the baseline may have had --seeds: compare without it */
		cJSON *x = cJSON_Duplicate(given->json, true), *y = cJSON_Duplicate(b->suite->json, true);
		cJSON_DeleteItemFromObjectCaseSensitive(x, "seeds");
		cJSON_DeleteItemFromObjectCaseSensitive(y, "seeds");
		if (!cJSON_Compare(x, y, true))
			rc = cli_usage_error(CMD, "--suite %s is not the suite baseline %s was made "
					     "from; remake it with --update", r->suite, r->baseline);
		cJSON_Delete(x);
		cJSON_Delete(y);
	}
	rg_suite_free(given);
	return rc;
}

/* A comparison's options against its baseline: the mode, --seeds (into
 * *nseeds), the thresholds, the outputs.  0 or an exit status. */
static int check_comparison(const struct regress_own *r, const struct rg_baseline *b,
			    int *nseeds, double *threshold)
{
	int rc = check_suite(r, b);
	if (!rc && b->native != r->native)
		rc = cli_usage_error(CMD, "--baseline %s is %s and this run is %s: %s", r->baseline,
				     b->native ? "native" : "simulated", r->native ? "native" : "simulated",
				     b->native ? "add --native" : "drop --native, or make a native baseline");
	*nseeds = b->side->nseeds;
	if (!rc && r->seeds) {
		if ((int)r->seeds > *nseeds)
			rc = cli_usage_error(CMD, "--seeds %llu: baseline %s has %d", (unsigned long long)r->seeds,
					     r->baseline, *nseeds);
		else
			*nseeds = (int)r->seeds;
	}
	if (!rc) {
		char *from = xasprintf("baseline %s", r->baseline);
		rc = too_few(r, b->native, (uint64_t)*nseeds, from);
		free(from);
	}
	memcpy(threshold, b->suite->threshold, sizeof(*threshold) * (size_t)metric_count);
	if (!rc)
		rc = apply_max_regress(r, threshold);
	cli_in_note(r->baseline);
	if (!rc && r->json)
		rc = cli_out_claim(CMD, "--json", r->json);
	if (!rc && r->markdown)
		rc = cli_out_claim(CMD, "--markdown", r->markdown);
	if (!rc && r->json && r->markdown && strcmp(r->json, r->markdown) == 0)
		rc = cli_usage_error(CMD, "--json and --markdown both name %s%s", r->json,
				     strcmp(r->json, "-") == 0 ? " (stdout): one of them can write there" : "");
	return rc;
}

/* What the new side is, for the reports: "-p steal2 --set k=v, 3 of 13
 * cases (those of steal)". */
static void describe(char *desc, size_t size, const struct cli_opts *o,
		     const struct regress_own *r, const char *newpol, int np, int ncases)
{
	size_t len = 0;
	desc[0] = '\0';
	if (o->policy)
		len += (size_t)snprintf(desc + len, size - len, "-p %s", o->policy);
	for (int g = 0; g < o->nsets && len < size; g++)
		len += (size_t)snprintf(desc + len, size - len, "%s--set %s", len ? " " : "",
					o->sets[g]);
	if (len < size)
		snprintf(desc + len, size - len, "%s%d of %d cases%s%s", len ? ", " : "", np, ncases,
			 o->policy ? " (those of " : "",
			 o->policy ? (r->against ? r->against : newpol) : "");
	if (o->policy && strlen(desc) + 2 < size)
		strcat(desc, ")");
}

/* The reports of a comparison made (the text, --markdown, --json) and its
 * warnings; 0, EXIT_FOUND for a regression, or an output's failure. */
static int report(const struct md_report *md, const struct rg_side *side, bool native)
{
	const struct regress_own *r = md->r;
	const struct rg_result *res = md->res;
	int rc = 0;
	bool json_out = r->json && strcmp(r->json, "-") == 0;
	bool md_out = r->markdown && strcmp(r->markdown, "-") == 0;
	if (!json_out && !md_out) {
		rg_report_text(stdout, res);
		if (md->x)
			explore_text(stdout, md->s, md->p, md->np, r, md->x);
	}
	if (r->markdown)
		rc = write_text("--markdown", r->markdown, write_markdown, md);
	if (!rc && r->json) {
		cJSON *j = rg_report_json(res);
		if (md->x)
			cJSON_AddItemToObject(j, "explore", explore_json(md->s, md->p, md->np, r, md->x));
		/* every number exact, as the baseline's are: cJSON's printer
		 * may drop the last bit of a double */
		rc = cli_write_json_as(CMD, r->json, j, true);
		cJSON_Delete(j);
	}
	int busy = native ? busy_runs(side) : 0;
	if (busy)
		fprintf(stderr, "schedlab %s: warning: the host was busy during %d of the new "
			"side's runs (their \"host\" objects are in --json): native figures "
			"understate an idle machine's\n", CMD, busy);
	rg_report_unreported(stderr, "schedlab regress: warning: ", res);
	if (!rc && res->nregressions) {
		rg_report_regressions(stderr, "schedlab regress: ", res);
		rc = EXIT_FOUND;
	}
	return rc;
}

/* -p POLICY[:KEY=VALUE...] as the new policy's name and its knobs
 * (*newpol malloc'd, *pknobs within it); 0 or an exit status. */
static int new_policy(const struct cli_opts *o, char **newpol, char **pknobs)
{
	*newpol = *pknobs = NULL;
	if (!o->policy)
		return 0;
	*newpol = xstrdup(o->policy);
	char *colon = strchr(*newpol, ':');
	if (colon) {
		*colon = '\0';
		*pknobs = colon + 1;
	}
	if (strchr(o->policy, ','))
		return cli_usage_error(CMD, "-p %s: one policy (the new side), not a list", o->policy);
	return 0;
}

static int compare(const struct regress_own *r, const struct cli_opts *o,
		   const struct run *limits)
{
	struct err e = { "" };
	struct rg_baseline *b = rg_baseline_load(r->baseline, &e);
	if (!b)
		return input_error(&e);
	int nseeds;
	double *threshold = xmalloc(sizeof(*threshold) * (size_t)metric_count);
	int rc = check_comparison(r, b, &nseeds, threshold);
	char *newpol = NULL, *pknobs = NULL;
	if (!rc)
		rc = new_policy(o, &newpol, &pknobs);
	struct plan *p = NULL;
	int np = 0;
	if (!rc)
		rc = make_plans(b->suite, newpol, pknobs, r->against, o->sets, o->nsets, b->native, &p,
				&np);
	struct rg_side *side = NULL;
	struct rg_result *res = NULL;
	struct explored *x = NULL;
	int explore_rc = 0;
	if (!rc) {
		truncate_side(&b->side, nseeds);
		side = rg_side_new(b->suite->ncases, nseeds);
		rc = run_plans(b->suite, p, np, nseeds, b->native, limits, (int)r->jobs, o->progress,
			       false, side);
	}
	if (!rc && r->explore) {
		x = xcalloc((size_t)np, sizeof(*x));
		explore_rc = explore_cases(b->suite, p, np, r, limits, x);
		if (explore_rc > 128)   /* interrupted: no report */
			rc = explore_rc;
	}
	if (!rc) {
		char desc[1024];
		describe(desc, sizeof(desc), o, r, newpol, np, b->suite->ncases);
		res = rg_compare(b, side, threshold, r->alpha, desc);
		struct md_report md = { res, b->suite, p, np, r, x };
		rc = report(&md, side, b->native);
		if (!rc || (rc == EXIT_FOUND && explore_rc == EXIT_BADINPUT))
			rc = explore_rc;
	}
	for (int i = 0; x && i < np; i++)
		free(x[i].out);
	free(x);
	rg_result_free(res);
	rg_side_free(side);
	if (p)
		plans_free(p, np);
	free(newpol);
	free(threshold);
	rg_baseline_free(b);
	return rc;
}

int cmd_regress(int argc, char **argv)
{
	struct run limits = { .seed = 0 };
	struct cli_opts o = { .cmd = CMD, .limits = &limits };
	struct regress_own r = { .alpha = 0.05 };
	const struct cli_own own = { cli_help_regress, cli_regress_opts, &r };
	int rc = cli_parse_options(&o, argc, argv, &own);
	if (rc || o.help)
		return rc;
	char **limit_args = xcalloc((size_t)argc + 1, sizeof(*limit_args));
	/* the suite says the machine, the workload, the procs and the seeds */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-t") == 0 || strcmp(a, "--topology") == 0 || strcmp(a, "-w") == 0 ||
		    strcmp(a, "--workload") == 0 || strcmp(a, "--procs") == 0 ||
		    strcmp(a, "--seed") == 0) {
			free(limit_args);
			return cli_usage_error(CMD, "%s: the suite gives each case's topology, workload, "
					       "procs and seeds (a case of your own: --suite FILE)", a);
		}
		if (strcmp(a, "--cpu-quota") == 0 || strcmp(a, "--cpu-period") == 0 ||
		    strcmp(a, "--cpuset") == 0 || strcmp(a, "--load") == 0) {
			free(limit_args);
			return cli_usage_error(CMD, "%s: the suite gives each case's OS limits (its keys "
					       "cpu_quota, cpu_period_ns, cpuset, load; a case of your "
					       "own: --suite FILE)", a);
		}
		if (cli_is_limit_option(a) && i + 1 < argc) {
			r.limit_args = limit_args;
			limit_args[r.nlimit_args++] = argv[i];
			limit_args[r.nlimit_args++] = argv[i + 1];
		}
		if (own_kind(&(struct regress_own){ 0 }, a) == CLI_OWN_VALUE || strcmp(a, "-p") == 0 ||
		    strcmp(a, "--policy") == 0 || strcmp(a, "--set") == 0 || cli_is_limit_option(a))
			i++;
	}
	if (!r.baseline)
		rc = cli_usage_error(CMD, "missing --baseline FILE");
	else if (r.bug && !r.explore)
		rc = cli_usage_error(CMD, "--bug %s: only with --explore N (the seeded bugs are "
				     "switched on in explorations only)", r.bug);
	else if (r.update && r.explore)
		rc = cli_usage_error(CMD, "--explore checks the new side against the scheduler's "
				     "invariants; --update runs no new side (drop one of them)");
	else
		rc = r.update ? update(&r, &o, &limits) : compare(&r, &o, &limits);
	free(limit_args);
	return rc;
}
