/* The command line: one function per subcommand, shared error helpers. */
#ifndef SCHEDLAB_CLI_H
#define SCHEDLAB_CLI_H

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
