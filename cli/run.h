/* One run as the command line makes it -- its set-up from the options'
 * values and its report, text or JSON -- shared by `schedlab run` and
 * `schedlab compare`, and the options they share.  Internal to cli/;
 * implemented in run_cmd.c and options.c. */
#ifndef SCHEDLAB_CLI_RUN_H
#define SCHEDLAB_CLI_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "core/policy.h"

#define CLI_DEFAULT_TOPOLOGY "numa4"
#define CLI_DEFAULT_WORKLOAD "rpc-server"

/* A run: what it is given, and (after cli_run_exec) what it measured. */
struct cli_run {
	const struct rt_api *api;
	const struct pol_ops *pol;
	const int64_t *knobs;          /* one per knob of pol */
	const struct topo *topo;
	const struct workload *wl;
	uint64_t seed;
	int procs;
	/* --max-sim-time, --max-wall-time, --max-memory (0: the default) */
	int64_t max_sim_ns, max_wall_ns;
	uint64_t max_memory;
	/* --trace: record the run's execution trace, at most trace_limit
	 * events (0: the default) */
	bool trace;
	uint64_t trace_limit;
	/* --schedtrace (0: none), --scheddetail: `run` only */
	int64_t schedtrace_ns;
	bool scheddetail;
	/* `explore`'s schedule and checks (NULL: a plain run) */
	struct rt_explore *explore;
	struct rt_result r;
	struct rt_mech mech;           /* (cli_run_exec; rt_mech_free frees it) */
};

/* ---- Set-up ---- */

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
	bool seed_given;
	const char *time_limit;        /* the first time limit given, or NULL */
	struct cli_run *limits;        /* set before parsing: where the limits go */
	bool help;                     /* -h or --help: the help was printed */
};

/* What an argument is to a command beside the shared options. */
enum {
	CLI_OWN_NONE = -1,             /* not one of its own */
	CLI_OWN_FLAG = -2,             /* its own, taken, with no value */
	CLI_OWN_VALUE = -3,            /* its own, and it takes the next argument */
};

/* A command's own options.  kind(ctx, a) returns a CLI_OWN_ value, or an
 * exit status after a message (an option the command refuses); value(ctx,
 * a, v) takes the value of a CLI_OWN_VALUE option: 0 or an exit status
 * after a message. */
struct cli_own {
	void (*help)(FILE *f);
	int (*kind)(void *ctx, const char *a);
	int (*value)(void *ctx, const char *a, const char *v);
	void *ctx;
};

/* Parses argv[1..] into o and the command's own options: 0, with o->help
 * set if the help was printed; or an exit status after a usage message (an
 * unknown option, a missing value, a bad shared value). */
int cli_parse_options(struct cli_opts *o, int argc, char **argv, const struct cli_own *own);
/* A trace replays the draws of the seed it was expanded with: 0 if --seed
 * agrees (or was not given), else a usage error's exit status. */
int cli_check_trace_seed(const struct cli_opts *o, uint64_t trace_seed);

/* A decimal integer from 0 to max, nothing else. */
bool cli_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* Whether a is one of the limit options (--max-sim-time, --max-wall-time,
 * --max-memory), which run, compare and workload expand share; and its
 * value, into run (0, or a usage error's EXIT_BADINPUT). */
bool cli_is_limit_option(const char *a);
int cli_parse_limit(const char *cmd, const char *a, const char *v, struct cli_run *run);
/* The options' lines of --help. */
extern const char cli_limits_help[];
/* api's policies as "a, b, c", for the message of an unknown -p. */
void cli_policy_names(const struct rt_api *api, char *buf, size_t size);
/* pol's knobs at their defaults, one per knob (at least one slot); the
 * caller frees.  pol_set_knob changes them. */
int64_t *cli_knobs_new(const struct pol_ops *pol);
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

/* Creates run's runtime, runs it to its end and fills run->r.  Returns the
 * runtime, for the caller to read what else it wants (the draws of
 * record_draws) and destroy (run->api->destroy); or NULL with the reason in
 * e if the runtime refused the input. */
struct rt *cli_run_exec(struct cli_run *run, bool record_draws, struct err *e);

/* A duration option's value (a Go duration or whole ns, from min_ns to
 * RT_MAX_SIM_NS): 0, or a usage error's exit status. */
int cli_parse_duration(const char *cmd, const char *opt, const char *v, int64_t min_ns,
		       int64_t *out);
/* The run's execution trace to path (Go's format, or Chrome's for *.json):
 * 0, or EXIT_BADINPUT with the reason on stderr. */
int cli_write_exec_trace(const char *cmd, const char *path, const struct rt_api *api,
			 struct rt *rt);

/* ---- The report ---- */

/* The JSON report of DESIGN.md ("Report"); a metric the run did not
 * produce is left out.  The caller deletes it. */
cJSON *cli_report_json(const struct cli_run *run);
/* The text summary `schedlab run` prints, to stdout. */
void cli_report_text(const struct cli_run *run);
/* An imported Go trace's recorded figures beside the run's (nothing for other
 * workloads), and the Ps a run gets when --procs is not given. */
void cli_recorded_text(const struct workload *wl, const struct rt_result *r);
cJSON *cli_recorded_json(const struct workload *wl, const struct rt_result *r);
int cli_default_procs(const struct workload *wl, const struct topo *t, long given);
/* o, printed, to path ("-": stdout); returns 0, or EXIT_BADINPUT with a
 * message naming cmd and --json path. */
int cli_write_json(const char *cmd, const char *path, const cJSON *o);

/* A latency histogram as the report gives it: its quantiles, max, mean,
 * and its non-empty buckets whole, [bound_ns, count] each. */
cJSON *cli_latency_json(const struct hist *h);
cJSON *cli_hist_buckets_json(const struct hist *h);
/* The mechanisms (mech_report.c): into the report's metrics, as text,
 * and every latency distribution as a CDF in CSV to path ("-": stdout;
 * 0, or EXIT_BADINPUT with a message naming cmd and --cdf path). */
void cli_mech_json(cJSON *metrics, const struct rt_mech *mech);
void cli_mech_text(const struct rt_mech *mech);
int cli_write_cdf(const char *cmd, const char *path, const struct cli_run *run);

/* The CPU a native run got (host_report.c): the report's "host" object
 * (nothing if the run measured none), its line of the text summary, and
 * the warning on f if the host was busy (true if it was). */
void cli_host_json(cJSON *report, const struct rt_host *h);
void cli_host_text(const struct rt_host *h);
bool cli_host_warn(FILE *f, const struct rt_host *h);

/* If the run was cut at a limit, says so on f -- which limit, where, the
 * option that raises it -- and returns EXIT_LIMIT; else 0. */
int cli_report_cut(const char *cmd, const struct cli_run *run, FILE *f);
/* The run's throughput per second of makespan, and its unit: requests
 * answered ("requests/s") if the workload's servers answered any, else
 * goroutines completed ("goroutines/s"). */
const char *cli_throughput(const struct rt_result *r, double *per_s);

/* The unit that suits a duration of ns nanoseconds, as the text summary
 * shows it: its name ("ns", "us", "ms", "s"), the nanoseconds in one of
 * it, and the decimals shown. */
/* ns in that unit, "12.31 ms": at most 9 characters. */
const char *cli_fmt_ns(char buf[16], double ns);

#endif
