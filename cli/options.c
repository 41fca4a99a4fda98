/* Command-line options: one parser for every command, driven by the
 * command's table (cli/cli.h), and the table of the options `run',
 * `compare', `sweep', `workload expand', `explore' and `regress' share
 * (cli/run.h), so that an option is spelled, checked, refused and
 * described in one place. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "topologies/topo.h"

/* ---- The shared options ---- */

bool cli_parse_procs(const char *v, uint64_t *n, enum gmp_rule *rule)
{
	*rule = gmp_rule_find(v);
	*n = 0;
	return *rule != GMP_NUMBER || (cli_parse_u64(v, RT_MAX_PROCS, n) && *n > 0);
}

static int parse_procs(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct cli_opts *o = ctx;
	if (!cli_parse_procs(v, &o->procs, &o->procs_rule))
		return cli_usage_error(cmd, "--procs %s: expected a number from 1 to %d or a rule (%s)",
				       v, RT_MAX_PROCS, gmp_rule_list());
	return 0;
}

/* ---- The OS a run lives under [docs/runtime.md, "The OS a run lives
 * under, and GOMAXPROCS rules"] ----
 *
 * The period's bounds and the quota's least are the kernel's own:
 * kernel/sched/core.c (Linux 6.x), min_cfs_quota_period = 1ms and
 * max_cfs_quota_period = 1s, which tg_set_cfs_bandwidth holds both the
 * period and the quota to (the quota has no upper bound there but
 * max_cfs_runtime; here it is at most the machine's PUs, past which it
 * never binds).  A cgroup holds them in whole microseconds.  Other load's
 * period has the same bounds (core/policy.h, RT_OS_PERIOD_MIN/MAX). */
#define OS_PERIOD_DEFAULT_NS 100000000   /* cfs_period_us's default, 100ms */
#define OS_LOAD_PERIOD_DEFAULT_NS 10000000

/* A positive decimal fraction, nothing else. */
static bool parse_fraction(const char *s, double *out)
{
	char *end;
	if (!((*s >= '0' && *s <= '9') || *s == '.'))
		return false;
	*out = strtod(s, &end);
	return *end == '\0' && isfinite(*out) && *out > 0;
}

static int parse_cpu_quota(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct cli_opts *o = ctx;
	if (!parse_fraction(v, &o->cpu_quota) || o->cpu_quota > RT_MAX_PROCS)
		return cli_usage_error(cmd, "--cpu-quota %s: expected CPUs' worth of time per period, "
				       "a number above 0 (0.5, 1, 1.5, ...)", v);
	return 0;
}

static int parse_cpu_period(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct cli_opts *o = ctx;
	int rc = cli_parse_duration(cmd, a, v, RT_OS_PERIOD_MIN, &o->cpu_period_ns);
	if (rc == 0 && (o->cpu_period_ns > RT_OS_PERIOD_MAX || o->cpu_period_ns % 1000))
		return cli_usage_error(cmd, "--cpu-period %s: expected whole microseconds from 1ms to "
				       "1s, the kernel's bounds", v);
	return rc;
}

/* "N[@DUTY][/PERIOD]" */
static int parse_load(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct cli_opts *o = ctx;
	char *copy = xstrdup(v), *period = strchr(copy, '/'), *duty = strchr(copy, '@');
	uint64_t n = 0;
	int rc = 0;
	if (period)
		*period++ = '\0';
	if (duty && (!period || duty < period))
		*duty++ = '\0';
	else
		duty = NULL;
	o->load_duty = 1;
	o->load_period_ns = OS_LOAD_PERIOD_DEFAULT_NS;
	if (!cli_parse_u64(copy, RT_OS_LOAD_MAX, &n) || n == 0)
		rc = cli_usage_error(cmd, "--load %s: '%s' is not a number of threads from 1 to %d", v,
				     copy, RT_OS_LOAD_MAX);
	else if (duty && (!parse_fraction(duty, &o->load_duty) || o->load_duty > 1))
		rc = cli_usage_error(cmd, "--load %s: duty '%s' is not a fraction above 0 and at "
				     "most 1", v, duty);
	else if (period && (rc = cli_parse_duration(cmd, "--load PERIOD", period, RT_OS_PERIOD_MIN,
						    &o->load_period_ns)) == 0 &&
		 o->load_period_ns > RT_OS_PERIOD_MAX)
		rc = cli_usage_error(cmd, "--load %s: period '%s' is longer than 1s", v, period);
	o->load_threads = (int)n;
	free(copy);
	return rc;
}

static int parse_seed(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct cli_opts *o = ctx;
	o->seed_given = true;
	if (!cli_parse_u64(v, UINT64_MAX, &o->seed))
		return cli_usage_error(cmd, "--seed %s: expected a non-negative integer", v);
	return 0;
}

static int parse_progress(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct cli_opts *o = ctx;
	if (!progress_parse(v, &o->progress))
		return cli_usage_error(cmd, "--progress %s: expected auto, always or never", v);
	return 0;
}

static int parse_limit(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct cli_opts *o = ctx;
	int rc = cli_parse_limit(cmd, a, v, o->limits);
	if (rc == 0 && !o->time_limit && strcmp(a, "--max-memory") != 0)
		o->time_limit = a;
	return rc;
}

/* [docs/runtime.md, "Limits"] */
const struct cli_opt cli_shared_opts[] = {
	[CLI_SH_POLICY] = CLI_STRING("-p", "--policy", "P", struct cli_opts, policy,
				     "a policy (see `schedlab list policies`)"),
	[CLI_SH_TOPOLOGY] = CLI_STRING("-t", "--topology", "T", struct cli_opts, topology,
				       "bundled name, \"host\", or a path to hwloc XML or schedlab\n"
				       "JSON (default: numa4)"),
	[CLI_SH_WORKLOAD] = CLI_STRING("-w", "--workload", "W", struct cli_opts, workload,
				       "a bundled workload (see `schedlab list workloads`; default\n"
				       "rpc-server), or a path to a workload, a trace, or a Go\n"
				       "execution trace (imported: docs/workload-format.md)"),
	[CLI_SH_PROCS] = CLI_CALL(NULL, "--procs", "N|RULE", parse_procs,
				  "number of Ps, GOMAXPROCS (default: an imported Go trace's\n"
				  "GOMAXPROCS if it fits, else the topology's PUs), or the\n"
				  "rule that chooses it: cpus (Go before 1.25: the cpuset's\n"
				  "PUs), go1.25 (the quota rounded up, at least 2, at most\n"
				  "the CPUs), automaxprocs (the quota rounded down, at least 1)"),
	[CLI_SH_SEED] = CLI_CALL(NULL, "--seed", "N", parse_seed, "the first seed (default 1)"),
	[CLI_SH_SET] = CLI_REPEAT("--set", "KEY=VALUE", struct cli_opts, sets, nsets, CLI_MAX_SETS,
				  "set a policy knob (repeatable; see `schedlab list policies`)"),
	[CLI_SH_MAX_SIM_TIME] = CLI_CALL(NULL, "--max-sim-time", "T", parse_limit,
					 "cut the run when its simulated clock would pass T (default\n"
					 "1h, at most 100h; units ns, us, ms, s, min, h)"),
	[CLI_SH_MAX_WALL_TIME] = CLI_CALL(NULL, "--max-wall-time", "T", parse_limit,
					  "cut the run when it has run T of real time (default 10min)"),
	[CLI_SH_MAX_MEMORY] = CLI_CALL(NULL, "--max-memory", "SIZE", parse_limit,
				       "the simulator memory a workload's run may make (goroutines,\n"
				       "Ms, objects, page records; default and at most 4GiB, at\n"
				       "least 16MiB; units B, KiB, MiB, GiB): past it the workload\n"
				       "panics with runtime: out of memory"),
	[CLI_SH_CPU_QUOTA] = CLI_CALL(NULL, "--cpu-quota", "CPUS", parse_cpu_quota,
				      "simulate a CPU quota (cgroup cpu.max): the process's threads\n"
				      "run CPUS x the period together, then wait for the next\n"
				      "period (0.5, 1, 1.5, ...; at most the topology's PUs)"),
	[CLI_SH_CPU_PERIOD] = CLI_CALL(NULL, "--cpu-period", "T", parse_cpu_period,
				       "the quota's period (default 100ms; 1ms to 1s)"),
	[CLI_SH_CPUSET] = CLI_STRING(NULL, "--cpuset", "LIST", struct cli_opts, cpuset,
				     "simulate a cpuset: the PUs the process may run on, by OS\n"
				     "index, as Linux lists them (0-3,8 or 0-7:2)"),
	[CLI_SH_LOAD] = CLI_CALL(NULL, "--load", "N[@DUTY][/T]", parse_load,
				 "simulate other processes: N threads, each busy DUTY (0 to\n"
				 "1, default 1) of every T (default 10ms; 1ms to 1s)"),
	[CLI_SH_PROGRESS] = CLI_CALL(NULL, "--progress", "WHEN", parse_progress,
				     "progress on stderr: auto (default: redrawn on a terminal,\n"
				     "else a line every 10 s), always (on a terminal the same,\n"
				     "else a line every 2 s and the last), never"),
	[CLI_SH_COUNT] = CLI_END,
};

bool cli_is_limit_option(const char *a)
{
	const struct cli_opt *e = cli_opt_find(cli_shared_opts, a);
	return e && e->call == parse_limit;
}

/* ---- The parser ---- */

static bool spelled(const struct cli_opt *e, const char *a, size_t n)
{
	return (e->shrt && strlen(e->shrt) == n && strncmp(e->shrt, a, n) == 0) ||
	       (e->lng && strlen(e->lng) == n && strncmp(e->lng, a, n) == 0);
}

/* The entry spelled a, or with *eq set, "--long=VALUE" of an entry that
 * takes it (*eq then points at VALUE). */
static const struct cli_opt *find(const struct cli_opt *opts, const char *a, const char **eq)
{
	const char *sign = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
	*eq = NULL;
	for (const struct cli_opt *e = opts; e->kind != CLI_OPT_END; e++) {
		const struct cli_opt *d = e->kind == CLI_OPT_SHARED ? e->shared : e;
		if (e->kind == CLI_OPT_TEXT)
			continue;
		if (spelled(d, a, strlen(a)))
			return e;
		if (sign && e->eq && spelled(d, a, (size_t)(sign - a))) {
			*eq = sign + 1;
			return e;
		}
	}
	return NULL;
}

const struct cli_opt *cli_opt_find(const struct cli_opt *opts, const char *a)
{
	const char *eq;
	const struct cli_opt *e = find(opts, a, &eq);
	return e && e->kind == CLI_OPT_SHARED ? e->shared : e;
}

/* Option d's value v (NULL: d takes none) into ctx: 0 or an exit status. */
static int take(const struct cli_opt *d, void *ctx, const char *cmd, const char *a, const char *v)
{
	char *at = (char *)ctx + d->off;
	/* no option means "" (a file, a name, a list): said here, where the
	 * option is known, not as ": cannot open" where it is used */
	if (v && !*v)
		return cli_usage_error(cmd, "%s: an empty value", a);
	switch (d->kind) {
	case CLI_OPT_FLAG:
		*(bool *)at = true;
		return 0;
	case CLI_OPT_STRING:
		*(const char **)at = v;
		return 0;
	case CLI_OPT_COUNT:
		if (!cli_parse_u64(v, d->max, (uint64_t *)at) || *(uint64_t *)at < d->min) {
			char *why = xasprintf(d->bad ? d->bad : "expected a number from %llu to %llu",
					      (unsigned long long)d->min, (unsigned long long)d->max);
			int rc = cli_usage_error(cmd, "%s %s: %s", a, v, why);
			free(why);
			return rc;
		}
		return 0;
	case CLI_OPT_DURATION:
		return cli_parse_duration(cmd, a, v, (int64_t)d->min, (int64_t *)at);
	case CLI_OPT_REPEAT: {
		int *n = (int *)((char *)ctx + d->off2);
		if ((uint64_t)*n == d->max)
			return cli_usage_error(cmd, "at most %llu %s options", (unsigned long long)d->max,
					       d->lng);
		((const char **)at)[(*n)++] = v;
		return 0;
	}
	case CLI_OPT_CALL:
		return d->call(ctx, cmd, a, v);
	default:
		return 0;
	}
}

int cli_parse(const struct cli_parser *p, int argc, char **argv, bool *help)
{
	*help = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			p->help(stdout);
			*help = true;
			return 0;
		}
		const struct cli_opt *e = find(p->opts, a, &v);
		if (!e && p->arg && (a[0] != '-' || a[1] == '\0')) {
			int rc = p->arg(p->ctx, a);
			if (rc)
				return rc;
			continue;
		}
		if (!e)
			return cli_usage_error(p->cmd, p->unknown ? p->unknown : "unknown option '%s'", a);
		const struct cli_opt *d = e->kind == CLI_OPT_SHARED ? e->shared : e;
		void *ctx = e->kind == CLI_OPT_SHARED ? (void *)p->shared : p->ctx;
		/* messages name the option, not "--long=VALUE" */
		const char *opt = v ? d->lng : a;
		if (d->arg && !v) {
			if (++i == argc) {
				const char *m = e->missing ? e->missing
						: p->missing ? p->missing : "option %s needs a value";
				return cli_usage_error(p->cmd, m, a);
			}
			v = argv[i];
		}
		int rc = take(d, ctx, p->cmd, opt, v);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- --help ---- */

/* "-p, --policy P": e's spelling (d's, if e is shared) and value's name
 * (e's own, if a command names it otherwise: "P1,P2,..."). */
static int label(char *buf, size_t size, const struct cli_opt *e, const struct cli_opt *d)
{
	const char *arg = e->arg ? e->arg : d->arg;
	if (e->label)
		return snprintf(buf, size, "%s", e->label);
	return snprintf(buf, size, "%s%s%s%s%s", d->shrt ? d->shrt : "",
			d->shrt && d->lng ? ", " : "", d->lng ? d->lng : "", arg ? " " : "",
			arg ? arg : "");
}

/* The label, then the help's first line beside it from column width + 2
 * (two blanks after a label that reaches it, the next line for one much
 * longer), and its other lines below, at that column. */
void cli_opts_help(FILE *f, const struct cli_opt *opts, int width)
{
	for (const struct cli_opt *e = opts; e->kind != CLI_OPT_END; e++) {
		if (e->hidden)
			continue;
		if (e->kind == CLI_OPT_TEXT) {
			fputs(e->help, f);
			continue;
		}
		const struct cli_opt *d = e->kind == CLI_OPT_SHARED ? e->shared : e;
		const char *help = e->help ? e->help : d->help;
		char buf[128];
		int n = label(buf, sizeof(buf), e, d);
		if (n < width)
			fprintf(f, "  %-*s", width, buf);
		else if (n <= width + 2)
			fprintf(f, "  %s  ", buf);
		else
			fprintf(f, "  %s\n%*s", buf, width + 2, "");
		for (const char *l = help; *l;) {
			size_t len = strcspn(l, "\n");
			fprintf(f, "%.*s\n", (int)len, l);
			l += len;
			if (*l == '\n' && *++l)
				fprintf(f, "%*s", width + 2, "");
		}
		if (e->help_more)
			e->help_more(f);
	}
}

/* ---- The shared options' parse ---- */

int cli_parse_options(struct cli_opts *o, int argc, char **argv, const struct cli_own *own)
{
	o->topology = o->workload = NULL;
	o->nsets = 0;
	o->seed = 1;
	o->procs = 0;
	o->procs_rule = GMP_NUMBER;
	o->cpu_quota = 0;
	o->cpu_period_ns = 0;
	o->cpuset = NULL;
	o->load_threads = 0;
	o->seed_given = o->help = false;
	o->time_limit = NULL;
	const struct cli_parser p = {
		.cmd = o->cmd, .opts = own->opts, .ctx = own->ctx, .shared = o, .help = own->help,
	};
	int rc = cli_parse(&p, argc, argv, &o->help);
	if (rc || o->help)
		return rc;
	if (!o->workload)
		o->workload = CLI_DEFAULT_WORKLOAD;
	/* the files -t and -w name (sweep's lists item by item) may not be
	 * any output's */
	const char *lists[2] = { o->topology, o->workload };
	for (int k = 0; k < 2; k++) {
		char *copy = lists[k] ? xstrdup(lists[k]) : NULL;
		for (char *item = copy, *end; item; item = end) {
			end = strchr(item, ',');
			if (end)
				*end++ = '\0';
			cli_in_note(item);
		}
		free(copy);
	}
	return 0;
}

int cli_check_trace_seed(const struct cli_opts *o, uint64_t trace_seed)
{
	if (o->seed_given && o->seed != trace_seed)
		return cli_usage_error(o->cmd, "--seed %llu: the trace %s was expanded with seed %llu",
				       (unsigned long long)o->seed, o->workload,
				       (unsigned long long)trace_seed);
	return 0;
}

/* ---- The OS options, applied to a run ---- */

/* --cpuset's list on t: flags by PU index (malloc'd), or 2. */
static int os_cpuset(const char *cmd, const char *list, const struct topo *t, bool **out)
{
	int n = 0;
	for (int i = 0; i < t->npus; i++)
		if ((int)t->pus[i].os_index + 1 > n)
			n = (int)t->pus[i].os_index + 1;
	bool *by_os = xcalloc((size_t)n, sizeof(*by_os));
	char bad[160];
	int rc = 0;
	*out = NULL;
	if (!gmp_cpulist_parse(list, by_os, n, bad, sizeof(bad))) {
		rc = cli_usage_error(cmd, "--cpuset %s: %s (%s's PUs are OS indexes 0 to %d)", list, bad,
				     t->name, n - 1);
		goto out;
	}
	bool *flags = xcalloc((size_t)t->npus, sizeof(*flags));
	int listed = 0, found = 0;
	for (int c = 0; c < n; c++)
		listed += by_os[c];
	for (int i = 0; i < t->npus; i++) {
		flags[i] = by_os[t->pus[i].os_index];
		found += flags[i];
	}
	if (found < listed) {
		/* OS indexes with holes: a listed number that is no PU's */
		for (int i = 0; i < t->npus; i++)
			by_os[t->pus[i].os_index] = false;
		int c = 0;
		while (!by_os[c])
			c++;
		rc = cli_usage_error(cmd, "--cpuset %s: '%d': %s has no PU of that OS index", list, c,
				     t->name);
		free(flags);
		goto out;
	}
	*out = flags;
out:
	free(by_os);
	return rc;
}

/* The first OS option given, for native's refusal. */
static const char *os_first(const struct cli_opts *o)
{
	return o->cpu_quota ? "--cpu-quota" : o->cpu_period_ns ? "--cpu-period"
	       : o->load_threads ? "--load" : o->cpuset ? "--cpuset" : NULL;
}

int cli_os_apply(const struct cli_opts *o, bool native, struct run *run, bool **cpuset)
{
	const struct topo *t = run->topo;
	const char *first = os_first(o);
	*cpuset = NULL;
	if (native && first)
		return cli_usage_error(o->cmd, "%s is simulated only: natively, run schedlab under the "
				       "limit itself (in a cgroup with cpu.max for a quota, under "
				       "taskset for a cpuset, beside the other load)", first);
	if (o->cpu_period_ns && !o->cpu_quota)
		return cli_usage_error(o->cmd, "--cpu-period is the period of --cpu-quota: give both");
	if (o->cpu_quota) {
		int64_t period = o->cpu_period_ns ? o->cpu_period_ns : OS_PERIOD_DEFAULT_NS;
		/* in whole microseconds, as a cgroup holds it */
		int64_t quota = llround(o->cpu_quota * (double)(period / 1000)) * 1000;
		if (o->cpu_quota > t->npus)
			return cli_usage_error(o->cmd, "--cpu-quota %g: more than %s's %d PUs", o->cpu_quota,
					       t->name, t->npus);
		if (quota < RT_OS_PERIOD_MIN)
			return cli_usage_error(o->cmd, "--cpu-quota %g: %g CPUs of a %lld us period is "
					       "under the kernel's least quota, 1ms", o->cpu_quota,
					       o->cpu_quota, (long long)(period / 1000));
		run->os.quota_ns = quota;
		run->os.period_ns = period;
	}
	if (o->cpuset) {
		int rc = os_cpuset(o->cmd, o->cpuset, t, cpuset);
		if (rc)
			return rc;
		run->os.cpuset = *cpuset;
	}
	run->os.load_threads = o->load_threads;
	run->os.load_duty = o->load_threads ? o->load_duty : 0;
	run->os.load_period_ns = o->load_threads ? o->load_period_ns : 0;
	return 0;
}

void cli_os_procs(enum gmp_rule rule, long given, bool native, struct run *run)
{
	run->gmp.rule = rule;
	memset(&run->gmp.in, 0, sizeof(run->gmp.in));
	if (rule == GMP_NUMBER) {
		run->procs = run_default_procs(run->wl, run->topo, given);
		return;
	}
	struct gmp_limits *in = &run->gmp.in;
	if (native) {
		gmp_host_limits("", in);
	} else {
		in->cpus = run->topo->npus;
		if (run->os.cpuset) {
			in->cpus = 0;
			for (int i = 0; i < run->topo->npus; i++)
				in->cpus += run->os.cpuset[i];
		}
		in->quota_ns = run->os.quota_ns;
		in->period_ns = run->os.period_ns;
	}
	int p = gmp_procs(rule, in);
	run->procs = p > RT_MAX_PROCS ? RT_MAX_PROCS : p;
}
