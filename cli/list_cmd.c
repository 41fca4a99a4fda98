/* schedlab list: what can be named on a command line.  The tables are for
 * people; --names and `list knobs` print bare names, one per line, for
 * scripts and the shell completion (completion/schedlab.bash), which asks
 * the binary at completion time so that it never goes stale. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/policy.h"
#include "topologies/topo.h"
#include "workloads/json.h"
#include "workloads/program.h"

void cli_help_list(FILE *f)
{
	fprintf(f,
		"usage: schedlab list policies|topologies|workloads [--names]\n"
		"       schedlab list knobs [POLICY]\n"
		"       schedlab list options COMMAND\n"
		"\n"
		"Lists what a command line can name.\n"
		"\n");
	cli_opts_help(f, cli_list_opts, 13);
}

static int list_topologies(bool names)
{
	int w = (int)strlen("host");	/* the names' column, as wide as the longest */
	for (int i = 0; i < topo_bundled_count(); i++)
		if ((int)strlen(topo_bundled_name(i)) > w)
			w = (int)strlen(topo_bundled_name(i));
	for (int i = 0; i < topo_bundled_count(); i++) {
		const char *name = topo_bundled_name(i);
		if (names) {
			printf("%s\n", name);
			continue;
		}
		struct err e = { "" };
		struct topo *t = topo_load(name, &e);
		if (!t)
			return cli_input_error(&e);
		printf("%-*s %3d packages %3d nodes %4d cores %4d PUs  %s\n", w, name, t->npackages,
		       t->nnodes, t->ncores, t->npus, t->description ? t->description : "");
		topo_free(t);
	}
	if (names)
		printf("host\n");
	else
		printf("%-*s this machine, discovered by hwloc\n", w, "host");
	return 0;
}

static int list_knobs(const char *policy)
{
	const struct rt_api *api = &sim__rt_api;
	if (policy && !api->pol_find(policy)) {
		char *shown = str_shown(policy, 256);
		int rc = cli_usage_error("list", "knobs %s: no such policy (see `schedlab list "
					 "policies`)", shown);
		free(shown);
		return rc;
	}
	for (int i = 0; i < api->pol_count(); i++) {
		const struct pol_ops *pol = api->pol_at(i);
		if (policy && strcmp(pol->name, policy) != 0)
			continue;
		for (int k = 0; k < pol_nknobs(pol); k++) {
			const char *name = pol->knobs[k].name;
			/* a name an earlier policy has was printed with it */
			bool seen = false;
			for (int j = 0; j < i && !policy && !seen; j++) {
				const struct pol_ops *prev = api->pol_at(j);
				for (int m = 0; m < pol_nknobs(prev) && !seen; m++)
					seen = strcmp(prev->knobs[m].name, name) == 0;
			}
			if (!seen)
				printf("%s\n", name);
		}
	}
	return 0;
}

/* `list options CMD`: a line per option of cmd's tables, its spellings
 * and the name of its value if it takes one, "-o --output FILE|-" (an
 * option taken only to be refused left out), each once. */
static int list_options(const char *cmd)
{
	if (!cmd)
		return cli_usage_error("list", "options: expected a COMMAND");
	const struct cli_command *c = cli_commands;
	while (c->name && strcmp(c->name, cmd) != 0)
		c++;
	if (!c->name) {
		char *shown = str_shown(cmd, 256);
		int rc = cli_usage_error("list", "options %s: no such command", shown);
		free(shown);
		return rc;
	}
	for (int t = 0; t < 2 && c->opts[t]; t++)
		for (const struct cli_opt *e = c->opts[t]; e->kind != CLI_OPT_END; e++) {
			const struct cli_opt *d = e->kind == CLI_OPT_SHARED ? e->shared : e;
			const char *any = d->lng ? d->lng : d->shrt;
			if (e->kind == CLI_OPT_TEXT || e->refused)
				continue;
			if (t > 0 && cli_opt_find(c->opts[0], any))
				continue;
			const char *arg = e->arg ? e->arg : d->arg;
			printf("%s%s%s%s%s\n", d->shrt ? d->shrt : "", d->shrt && d->lng ? " " : "",
			       d->lng ? d->lng : "", arg ? " " : "", arg ? arg : "");
		}
	return 0;
}

/* What list's line gives. */
struct list_args {
	const char *kind, *arg;
	bool names;
};

const struct cli_opt cli_list_opts[] = {
	CLI_TEXT("  policies     every scheduling policy (-p), with a summary, then each of\n"
		 "               its knobs (--set KEY=VALUE): name, default, range, meaning\n"
		 "  topologies   the bundled machines (-t), with their packages, nodes, cores\n"
		 "               and PUs, and \"host\" (this machine, as hwloc sees it)\n"
		 "  workloads    the bundled workloads (-w), with the first sentence of each\n"
		 "               one's description, then those built in C\n"
		 "  knobs        the knob names of POLICY, or without it of every policy (each\n"
		 "               name once, in the order `list policies` shows them), one a\n"
		 "               line\n"
		 "  options      the options of COMMAND, a line each: its spellings and the\n"
		 "               name of its value if it takes one (\"-o --output FILE|-\"),\n"
		 "               every one the command takes\n"),
	CLI_FLAG(NULL, "--names", struct list_args, names,
		 "print only the names, one a line (\"host\" last among the\n"
		 "topologies), for scripts and the shell completion"),
	CLI_END,
};

static int list_arg(void *ctx, const char *a)
{
	struct list_args *l = ctx;
	if (!l->kind)
		l->kind = a;
	else if (!l->arg)
		l->arg = a;
	else
		return cli_usage_error("list", "unexpected argument '%s'", a);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct list_args l = { 0 };
	const struct cli_parser p = {
		.cmd = "list", .opts = cli_list_opts, .ctx = &l, .help = cli_help_list, .arg = list_arg,
	};
	bool help;
	int rc = cli_parse(&p, argc, argv, &help);
	if (rc || help)
		return rc;
	const char *kind = l.kind, *arg = l.arg;
	bool names = l.names;
	if (!kind)
		return cli_usage_error("list", "expected one of: policies, topologies, workloads, knobs, "
				       "options");
	bool knobs = strcmp(kind, "knobs") == 0, options = strcmp(kind, "options") == 0;
	if (!knobs && !options && strcmp(kind, "policies") != 0 && strcmp(kind, "topologies") != 0 &&
	    strcmp(kind, "workloads") != 0)
		return cli_usage_error("list",
				       "unknown kind '%s' (expected policies, topologies, workloads, "
				       "knobs or options)",
				       kind);
	if (arg && !knobs && !options)
		return cli_usage_error("list", "unexpected argument '%s' after %s", arg, kind);
	/* names are all `list knobs` and `list options` print: --names
	 * changes nothing */
	if (knobs)
		return list_knobs(arg);
	if (options)
		return list_options(arg);
	if (strcmp(kind, "topologies") == 0)
		return list_topologies(names);
	if (strcmp(kind, "policies") == 0) {
		if (!names)
			return cli_list_policies();
		const struct rt_api *api = &sim__rt_api;
		for (int i = 0; i < api->pol_count(); i++)
			printf("%s\n", api->pol_at(i)->name);
		return 0;
	}
	if (!names)
		return cli_list_workloads();
	for (int i = 0; i < wl_catalog_count(); i++)
		printf("%s\n", wl_catalog_name(i));
	for (int i = 0; i < wl_builtin_count(); i++)
		printf("%s\n", wl_builtin_name(i));
	return 0;
}
