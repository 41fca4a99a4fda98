/* The options the commands that make runs share, and what they do with a
 * run's inputs and outputs (loading, files); the run itself and its report
 * are the library's (run/run.h).  Internal to cli/; implemented in
 * run_cmd.c and options.c. */
#ifndef SCHEDLAB_CLI_RUN_H
#define SCHEDLAB_CLI_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "core/policy.h"
#include "run/run.h"
#include "util/progress.h"

#define CLI_DEFAULT_TOPOLOGY "numa4"
#define CLI_DEFAULT_WORKLOAD "rpc-server"

/* ---- Options (options.c) ---- */

#define CLI_MAX_SETS 64

/* The options run, compare and workload expand share: -p, -t, -w, --procs,
 * --seed, --set and the limits. */
struct cli_opts {
	const char *cmd;               /* for messages: "run", "compare"... */
	const char *policy;            /* -p; set before parsing to a default, or NULL */
	const char *topology;          /* -t, or NULL: the default */
	const char *workload;          /* -w, or CLI_DEFAULT_WORKLOAD */
	const char *sets[CLI_MAX_SETS];   /* --set KEY=VALUE, in order */
	int nsets;
	uint64_t seed, procs;          /* --seed (default 1), --procs (0: not given) */
	enum gmp_rule procs_rule;      /* --procs RULE (GMP_NUMBER: a number, or none) */
	/* --cpu-quota (0: none), --cpu-period (0: the default), --cpuset (as
	 * given: the topology says what it means), --load */
	double cpu_quota;
	int64_t cpu_period_ns;
	const char *cpuset;
	int load_threads;
	double load_duty;
	int64_t load_period_ns;
	bool seed_given;
	enum progress_when progress;   /* --progress (util/progress.h) */
	const char *time_limit;        /* the first time limit given, or NULL */
	struct run *limits;        /* set before parsing: where the limits go */
	bool help;                     /* -h or --help: the help was printed */
};

/* What an argument is to a command beside the shared options (regress
 * skips the values of its own when it reads its line again). */
enum {
	CLI_OWN_NONE = -1,             /* not one of its own */
	CLI_OWN_VALUE = -3,            /* its own, and it takes the next argument */
};

/* A command's own options: its table (cli/cli.h), in whose order --help
 * lists them, shared ones included; their values go to ctx. */
struct cli_own {
	void (*help)(FILE *f);
	const struct cli_opt *opts;
	void *ctx;
};

/* Parses argv[1..] into o and the command's own options: 0, with o->help
 * set if the help was printed; or an exit status after a usage message (an
 * unknown option, a missing value, a bad shared value). */
int cli_parse_options(struct cli_opts *o, int argc, char **argv, const struct cli_own *own);
/* The OS options of o (--cpu-quota, --cpu-period, --cpuset, --load) for a
 * run on run->topo into run->os; natively (native) refused, each with the
 * way to get it.  The cpuset's flags are malloc'd into *cpuset (NULL if
 * none), which must outlive the run.  0, or 2 after a message naming the
 * option. */
int cli_os_apply(const struct cli_opts *o, bool native, struct run *run, bool **cpuset);
/* run->procs and run->gmp: the P count rule gives (GMP_NUMBER: given, or
 * the default), reading run->os (simulated) or this process's limits
 * (native). */
void cli_os_procs(enum gmp_rule rule, long given, bool native, struct run *run);
/* A P count or a rule, as --procs and sweep's --procs LIST items take
 * them: true with *n or *rule set. */
bool cli_parse_procs(const char *v, uint64_t *n, enum gmp_rule *rule);

/* A trace replays the draws of the seed it was expanded with: 0 if --seed
 * agrees (or was not given), else a usage error's exit status. */
int cli_check_trace_seed(const struct cli_opts *o, uint64_t trace_seed);

/* A decimal integer from 0 to max, nothing else. */
bool cli_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* Whether a is one of the limit options (--max-sim-time, --max-wall-time,
 * --max-memory), which run, compare and workload expand share; and its
 * value, into run (0, or a usage error's EXIT_BADINPUT). */
bool cli_is_limit_option(const char *a);
int cli_parse_limit(const char *cmd, const char *a, const char *v, struct run *run);
/* A real time as --max-wall-time takes it (1ms to 8760h, units ns, us,
 * ms, s, min, h) for option opt: 0, or a usage error's exit status. */
int cli_parse_wall_time(const char *cmd, const char *opt, const char *v, int64_t *ns);
/* api's policies as "a, b, c", for the message of an unknown -p. */
void cli_policy_names(const struct rt_api *api, char *buf, size_t size);
/* An item of a -p list, "POLICY[:KEY=VALUE...]", the nth (from 1) of
 * what ("column", "variant"): its policy among api's into *pol.  0, or 2
 * after "-p ITEM (WHAT N): no such policy 'X' (policies: ...)". */
int cli_item_policy(const char *cmd, const struct rt_api *api, const char *item,
		    const char *what, long nth, const struct pol_ops **pol);
/* The item's own KEY=VALUEs, in order, set on knobs (pol's; the last of a
 * key wins), each also into given (if not NULL) as the value set.  0, or
 * 2 after "-p ITEM (WHAT N): KEY=VALUE: problem". */
int cli_item_knobs(const char *cmd, const char *item, const char *what, long nth,
		   const struct pol_ops *pol, int64_t *knobs, cJSON *given);

/* -t and -w (NULL: the defaults above).  A trace's seed goes to
 * *trace_seed with *is_trace set.  Returns 0, or prints the loader's
 * message and returns EXIT_BADINPUT with nothing left to free. */
int cli_load_inputs(const char *topology, const char *workload, struct topo **topo,
		    struct workload **wl, bool *is_trace, uint64_t *trace_seed);
/* The same with the loader's message in e (false) for the caller to say
 * where the names came from. */
bool cli_load_inputs_e(const char *topology, const char *workload, struct topo **topo,
		       struct workload **wl, bool *is_trace, uint64_t *trace_seed, struct err *e);

/* A duration option's value (a Go duration or whole ns, from min_ns to
 * RT_MAX_SIM_NS): 0, or a usage error's exit status. */
int cli_parse_duration(const char *cmd, const char *opt, const char *v, int64_t min_ns,
		       int64_t *out);
/* --trace-format: the writer of --trace FILE.  AUTO: Chrome's JSON for a
 * FILE ending in .json, else Go 1.22's format (docs/tracing.md says why
 * that is the default). */
enum cli_trace_format { CLI_TRACE_AUTO, CLI_TRACE_GO122, CLI_TRACE_GO119, CLI_TRACE_CHROME };
/* --trace-format's value: 0, or a usage error's exit status. */
int cli_parse_trace_format(const char *cmd, const char *v, enum cli_trace_format *out);
/* The run's execution trace to path in format fmt: 0, or EXIT_BADINPUT
 * with the reason on stderr. */
int cli_write_exec_trace(const char *cmd, const char *path, enum cli_trace_format fmt,
			 const struct rt_api *api, struct rt *rt);

/* o, printed, to path ("-": stdout); returns 0, or EXIT_BADINPUT with a
 * message naming cmd and --json path.  exact: on one line, every number
 * to its last bit (exp_json_line), as a baseline's; else cJSON's
 * indented print. */
int cli_write_json(const char *cmd, const char *path, const cJSON *o);
int cli_write_json_as(const char *cmd, const char *path, const cJSON *o, bool exact);

#endif
