/* Command-line options: one parser for every command, driven by the
 * command's table (cli/cli.h), and the table of the options `run',
 * `compare', `sweep', `workload expand', `explore' and `regress' share
 * (cli/run.h), so that an option is spelled, checked, refused and
 * described in one place. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/run.h"

/* ---- The shared options ---- */

static int parse_procs(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct cli_opts *o = ctx;
	if (!cli_parse_u64(v, RT_MAX_PROCS, &o->procs) || o->procs == 0)
		return cli_usage_error(cmd, "--procs %s: expected a number from 1 to %d", v, RT_MAX_PROCS);
	return 0;
}

static int parse_seed(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct cli_opts *o = ctx;
	o->seed_given = true;
	if (!cli_parse_u64(v, UINT64_MAX, &o->seed))
		return cli_usage_error(cmd, "--seed %s: expected a non-negative integer", v);
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
	[CLI_SH_PROCS] = CLI_CALL(NULL, "--procs", "N", parse_procs,
				  "number of Ps, GOMAXPROCS (default: an imported Go trace's\n"
				  "GOMAXPROCS if it fits, else the topology's PUs)"),
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
