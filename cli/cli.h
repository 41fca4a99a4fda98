/* The command line: one function per subcommand, shared error helpers. */
#ifndef SCHEDLAB_CLI_H
#define SCHEDLAB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "util/util.h"

struct topo;

int cmd_topo(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_workload(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_regress(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_explore(int argc, char **argv);
int cli_list_policies(void);
int cli_list_workloads(void);

void cli_help_topo(FILE *f);
void cli_help_list(FILE *f);
void cli_help_run(FILE *f);
void cli_help_compare(FILE *f);
void cli_help_workload(FILE *f);
void cli_help_calibrate(FILE *f);
void cli_help_regress(FILE *f);
void cli_help_sweep(FILE *f);
void cli_help_merge(FILE *f);
void cli_help_report(FILE *f);
void cli_help_explore(FILE *f);
/* Prints "schedlab CMD: problem" and a pointer to --help; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints a loader's message; returns 2. */
int cli_input_error(const struct err *e);
/* The same, as "schedlab CMD: problem" (a store read by merge, ...). */
int cli_cmd_input_error(const char *cmd, const struct err *e);

cJSON *topo_to_json(const struct topo *t);

/* ---- Option tables (options.c) ----
 *
 * A command's options are one table of struct cli_opt, in the order its
 * --help lists them: each entry spells the option (short and long), says
 * whether it takes a value and the value's name, how the value is parsed
 * and where it goes, and the option's lines of --help.  cli_parse reads a
 * command line through the table, cli_opts_help prints the table's part
 * of --help, and `schedlab list options CMD` prints its spellings (for the
 * shell completion and the tests that hold the man page to the tables).
 * The options several commands share (-p, -t, -w, --procs, --seed, --set,
 * the limits) are spelled once, in cli_shared_opts; a command's table
 * names the ones it takes with CLI_SHARED. */
enum cli_opt_kind {
	CLI_OPT_END,                   /* ends a table */
	CLI_OPT_FLAG,                  /* no value: sets the bool at off */
	CLI_OPT_STRING,                /* the value as given, at off (const char *) */
	CLI_OPT_COUNT,                 /* a decimal integer from min to max, at off (uint64_t) */
	CLI_OPT_DURATION,              /* a Go duration of min ns or more, at off (int64_t) */
	CLI_OPT_REPEAT,                /* each value appended to the const char *[max] at off,
					* their number the int at off2 */
	CLI_OPT_CALL,                  /* parsed by call (v NULL for an option with no value) */
	CLI_OPT_SHARED,                /* shared, the one of cli_shared_opts */
	CLI_OPT_TEXT,                  /* not an option: lines of --help as they are */
};

struct cli_opt {
	enum cli_opt_kind kind;
	const char *shrt, *lng;        /* "-p", "--policy": either may be NULL */
	/* the value's name in --help ("P"); NULL: no value (a SHARED entry's:
	 * the shared one's name for it) */
	const char *arg;
	size_t off, off2;              /* where the value goes in the command's context */
	uint64_t min, max;
	/* a bad COUNT's message after "OPT VALUE: ", a printf format given
	 * min and max (unsigned long long); NULL: "expected a number from
	 * MIN to MAX" */
	const char *bad;
	int (*call)(void *ctx, const char *cmd, const char *opt, const char *v);
	const struct cli_opt *shared;  /* CLI_OPT_SHARED */
	const char *missing;           /* a missing value's message, if not the command's */
	const char *help;              /* first line beside the spelling, the others below it;
					* a SHARED entry's NULL: the shared one's */
	void (*help_more)(FILE *f);    /* more --help lines, made when printed */
	const char *label;             /* --help's spelling and value, if not the entry's */
	bool hidden;                   /* taken, but --help does not list it (it says it in
					* words, or shows it in the usage only) */
	bool refused;                  /* taken only to be refused in words of the command's */
	bool eq;                       /* --long=VALUE is taken too */
};

#define CLI_OPT_HELP_COL 21            /* the usual column of an option's help */

#define CLI_FLAG(S, L, T, F, H) \
	{ .kind = CLI_OPT_FLAG, .shrt = S, .lng = L, .off = offsetof(T, F), .help = H }
#define CLI_STRING(S, L, A, T, F, H) \
	{ .kind = CLI_OPT_STRING, .shrt = S, .lng = L, .arg = A, .off = offsetof(T, F), .help = H }
#define CLI_COUNT(S, L, A, T, F, MIN, MAX, BAD, H) \
	{ .kind = CLI_OPT_COUNT, .shrt = S, .lng = L, .arg = A, .off = offsetof(T, F), \
	  .min = MIN, .max = MAX, .bad = BAD, .help = H }
#define CLI_DURATION(L, A, T, F, MIN, H) \
	{ .kind = CLI_OPT_DURATION, .lng = L, .arg = A, .off = offsetof(T, F), .min = MIN, .help = H }
#define CLI_REPEAT(L, A, T, F, N, MAX, H) \
	{ .kind = CLI_OPT_REPEAT, .lng = L, .arg = A, .off = offsetof(T, F), .off2 = offsetof(T, N), \
	  .max = MAX, .help = H }
#define CLI_CALL(S, L, A, FN, H) \
	{ .kind = CLI_OPT_CALL, .shrt = S, .lng = L, .arg = A, .call = FN, .help = H }
#define CLI_SHARED(WHICH, H) \
	{ .kind = CLI_OPT_SHARED, .shared = &cli_shared_opts[WHICH], .help = H }
#define CLI_SHARED_AS(WHICH, ARG, H) \
	{ .kind = CLI_OPT_SHARED, .shared = &cli_shared_opts[WHICH], .arg = ARG, .help = H }
#define CLI_SHARED_HIDDEN(WHICH) \
	{ .kind = CLI_OPT_SHARED, .shared = &cli_shared_opts[WHICH], .hidden = true }
#define CLI_SHARED_REFUSED(WHICH) \
	{ .kind = CLI_OPT_SHARED, .shared = &cli_shared_opts[WHICH], .hidden = true, .refused = true }
#define CLI_TEXT(H) { .kind = CLI_OPT_TEXT, .help = H }
#define CLI_END { .kind = CLI_OPT_END }

/* cli_shared_opts' entries, in its order. */
enum {
	CLI_SH_POLICY, CLI_SH_TOPOLOGY, CLI_SH_WORKLOAD, CLI_SH_PROCS, CLI_SH_SEED, CLI_SH_SET,
	CLI_SH_MAX_SIM_TIME, CLI_SH_MAX_WALL_TIME, CLI_SH_MAX_MEMORY,
	CLI_SH_CPU_QUOTA, CLI_SH_CPU_PERIOD, CLI_SH_CPUSET, CLI_SH_LOAD, CLI_SH_PROGRESS,
	CLI_SH_COUNT,
};
extern const struct cli_opt cli_shared_opts[];
/* The three limits, with their shared help. */
#define CLI_SHARED_LIMITS \
	CLI_SHARED(CLI_SH_MAX_SIM_TIME, NULL), CLI_SHARED(CLI_SH_MAX_WALL_TIME, NULL), \
	CLI_SHARED(CLI_SH_MAX_MEMORY, NULL)
#define CLI_SHARED_LIMITS_HIDDEN \
	CLI_SHARED_HIDDEN(CLI_SH_MAX_SIM_TIME), CLI_SHARED_HIDDEN(CLI_SH_MAX_WALL_TIME), \
	CLI_SHARED_HIDDEN(CLI_SH_MAX_MEMORY)

/* The OS options (the quota, its period, the cpuset, other load). */
#define CLI_SHARED_OS \
	CLI_SHARED(CLI_SH_CPU_QUOTA, NULL), CLI_SHARED(CLI_SH_CPU_PERIOD, NULL), \
	CLI_SHARED(CLI_SH_CPUSET, NULL), CLI_SHARED(CLI_SH_LOAD, NULL)

struct cli_opts;

/* How cli_parse reads a command's line. */
struct cli_parser {
	const char *cmd;               /* for messages: "schedlab CMD: ..." */
	const struct cli_opt *opts;
	void *ctx;                     /* where the command's own options go */
	struct cli_opts *shared;       /* where the shared ones go (cli/run.h) */
	void (*help)(FILE *f);         /* -h, --help */
	/* an argument that is not an option ("-" included), or NULL: such an
	 * argument is an unknown option; 0 or an exit status */
	int (*arg)(void *ctx, const char *a);
	const char *unknown;           /* format; NULL: "unknown option '%s'" */
	const char *missing;           /* format; NULL: "option %s needs a value" */
};

/* Reads argv[1..] through p: 0 (*help set if --help was printed), or an
 * exit status after a usage message. */
int cli_parse(const struct cli_parser *p, int argc, char **argv, bool *help);
/* The option lines of opts' --help, each option's help from column
 * width + 2. */
void cli_opts_help(FILE *f, const struct cli_opt *opts, int width);
/* The entry of opts (a shared one resolved) spelled a, or NULL. */
const struct cli_opt *cli_opt_find(const struct cli_opt *opts, const char *a);

/* Every command's table (one for each of workload's subcommands that
 * takes options). */
extern const struct cli_opt cli_run_opts[], cli_compare_opts[], cli_expand_opts[],
	cli_import_opts[], cli_sweep_opts[], cli_merge_opts[], cli_report_opts[], cli_topo_opts[],
	cli_list_opts[], cli_calibrate_opts[], cli_explore_opts[], cli_regress_opts[];
/* The commands and their tables, for `list options` (main.c): NULL-ended. */
struct cli_command {
	const char *name;
	int (*main)(int argc, char **argv);
	const struct cli_opt *opts[2];
};
extern const struct cli_command cli_commands[];


/* Output files (output.c): claims path (not "-") for option opt before the
 * run -- checks that it and a temporary file beside it can be written, so
 * a bad path fails now; returns 2 after printing why, else 0.
 * cli_out_release, when the command returns, forgets the claims. */
int cli_out_claim(const char *cmd, const char *opt, const char *path);
/* path (a file, or a name that may be one) is read by the command: a
 * later claim of the same file is refused. */
void cli_in_note(const char *path);
void cli_out_release(void);

#endif
