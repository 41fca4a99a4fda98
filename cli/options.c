/* The options `run', `compare' and `workload expand' share (cli/run.h):
 * one loop over the arguments, so that a shared option is spelled, checked
 * and refused in the same words by every command; each command gives only
 * its own options, through struct cli_own. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/run.h"

/* A shared option that takes a value: where a string one goes (NULL for
 * those parsed below). */
static bool shared_option(struct cli_opts *o, const char *a, const char ***val)
{
	*val = NULL;
	if (strcmp(a, "-p") == 0 || strcmp(a, "--policy") == 0)
		*val = &o->policy;
	else if (strcmp(a, "-t") == 0 || strcmp(a, "--topology") == 0)
		*val = &o->topology;
	else if (strcmp(a, "-w") == 0 || strcmp(a, "--workload") == 0)
		*val = &o->workload;
	else if (strcmp(a, "--procs") != 0 && strcmp(a, "--seed") != 0 && strcmp(a, "--set") != 0 &&
		 !cli_is_limit_option(a))
		return false;
	return true;
}

/* a's value v, for a shared option parsed here: 0 or an exit status. */
static int shared_value(struct cli_opts *o, const char *a, const char *v)
{
	const char *cmd = o->cmd;
	if (cli_is_limit_option(a)) {
		int rc = cli_parse_limit(cmd, a, v, o->limits);
		if (rc)
			return rc;
		if (!o->time_limit && strcmp(a, "--max-memory") != 0)
			o->time_limit = a;
	} else if (strcmp(a, "--procs") == 0) {
		if (!cli_parse_u64(v, 4096, &o->procs) || o->procs == 0)
			return cli_usage_error(cmd, "--procs %s: expected a number from 1 to 4096", v);
	} else if (strcmp(a, "--seed") == 0) {
		o->seed_given = true;
		if (!cli_parse_u64(v, UINT64_MAX, &o->seed))
			return cli_usage_error(cmd, "--seed %s: expected a non-negative integer", v);
	} else {
		if (o->nsets == CLI_MAX_SETS)
			return cli_usage_error(cmd, "at most %d --set options", CLI_MAX_SETS);
		o->sets[o->nsets++] = v;
	}
	return 0;
}

int cli_parse_options(struct cli_opts *o, int argc, char **argv, const struct cli_own *own)
{
	o->topology = o->workload = NULL;
	o->nsets = 0;
	o->seed = 1;
	o->procs = 0;
	o->seed_given = o->help = false;
	o->time_limit = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **val;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			own->help(stdout);
			o->help = true;
			return 0;
		}
		int kind = own->kind(own->ctx, a);
		if (kind == CLI_OWN_FLAG)
			continue;
		if (kind != CLI_OWN_NONE && kind != CLI_OWN_VALUE)
			return kind;
		if (kind == CLI_OWN_NONE && !shared_option(o, a, &val))
			return cli_usage_error(o->cmd, "unknown option '%s'", a);
		if (++i == argc)
			return cli_usage_error(o->cmd, "option %s needs a value", a);
		const char *v = argv[i];
		int rc = 0;
		if (kind == CLI_OWN_VALUE)
			rc = own->value(own->ctx, a, v);
		else if (val)
			*val = v;
		else
			rc = shared_value(o, a, v);
		if (rc)
			return rc;
	}
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
