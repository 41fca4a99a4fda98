/* schedlab: entry point and subcommand dispatch. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/version.h"

static void help(FILE *f)
{
	fprintf(f,
		"schedlab %s -- a laboratory for goroutine-scheduler policies\n"
		"\n"
		"usage:\n"
		"  schedlab list policies|topologies|workloads [--names]\n"
		"  schedlab list knobs [POLICY]\n"
		"  schedlab list options COMMAND\n"
		"  schedlab topo [-t TOPOLOGY] [--mlc] [--json]\n"
		"  schedlab run -p POLICY -t TOPOLOGY -w WORKLOAD [--procs N] [--seed N]\n"
		"               [--set KEY=VALUE ...] [--json FILE|-] [--cdf FILE|-] [--native]\n"
		"               [--trace FILE [--trace-format go1.22|go1.19|chrome]\n"
		"                [--trace-limit N]]\n"
		"               [--schedtrace DUR [--scheddetail]]\n"
		"               [--max-sim-time T] [--max-wall-time T] [--max-memory SIZE]\n"
		"  schedlab compare -p P1,P2,... [-t TOPOLOGY] [-w WORKLOAD] [--procs N]\n"
		"               [--seeds N] [--seed S] [--set KEY=VALUE ...]\n"
		"               [-j N] [--json FILE|-] [--csv FILE|-] [--store FILE]\n"
		"               [--max-sim-time T] [--max-wall-time T] [--max-memory SIZE]\n"
		"  schedlab sweep -p P1,P2:K=V,... [-t T1,T2] [-w W1,W2] [--procs 1,2,4..64]\n"
		"               [--set KEY=V1,V2,A..B+S ...] [--seeds N] [-j N] [--json FILE]\n"
		"               [--csv FILE] [--emit-jobs FILE] [--only I]\n"
		"  schedlab merge FILE|DIR... -o STORE\n"
		"  schedlab explore -p POLICY [-t TOPOLOGY] -w WORKLOAD [--procs N]\n"
		"               [--schedules N] [--strategy random|pct] [--depth D] [-j N]\n"
		"               [--keep-going] [--max-starve DUR]\n"
		"               [--replay S:F:L:K [--trace FILE\n"
		"                [--trace-format go1.22|go1.19|chrome]]]\n"
		"  schedlab workload expand WORKLOAD [--seed N] [-o FILE|-]\n"
		"  schedlab workload import TRACE [-o FILE|-]\n"
		"  schedlab workload show NAME\n"
		"  schedlab calibrate [-o FILE|-] [--quick] [--seconds N]\n"
		"  schedlab regress --baseline FILE [--update] [--suite FILE] [-p POLICY[:K=V...]]\n"
		"               [--set K=V] [--seeds N] [--max-regress METRIC=PCT,...] [--native]\n"
		"  schedlab report STORE -o FILE.html|FILE.md [--plot-script FILE]\n"
		"  schedlab --version | version\n"
		"  schedlab --help | help\n"
		"\n"
		"TOPOLOGY is a bundled name (see `schedlab list topologies`; default numa4),\n"
		"\"host\" for this machine as hwloc sees it, or a path to an hwloc XML file\n"
		"(lstopo --of xml) or a schedlab JSON machine description (docs/topology.md).\n"
		"WORKLOAD is a bundled name (see `schedlab list workloads`; default rpc-server)\n"
		"or a path to a workload in the JSON language (docs/workload-format.md) or to\n"
		"a trace written by `schedlab workload expand`, or a Go execution trace\n"
		"(`go test -trace`), imported on the fly (`schedlab workload import`).\n"
		"compare runs each policy of -p (POLICY:KEY=VALUE gives it knobs of its own)\n"
		"with the same seeds, in simulation only, and prints one table of metrics with\n"
		"each column's change relative to the first.\n"
		"sweep runs the cartesian product of its lists, each run a process of its\n"
		"own, into a results store; merge gathers stores (docs/experiments.md).\n"
		"calibrate measures this machine and writes its topology file, which\n"
		"-t host uses (docs/calibration.md).\n"
		"report makes an HTML or Markdown report, figures by gnuplot, of a results\n"
		"store (docs/reports.md).\n"
		"`schedlab COMMAND --help` describes each command's options; the manual,\n"
		"`man schedlab`, all of them.  --version prints the release and the git\n"
		"commit built (\"unknown\" outside a git checkout).\n"
		"\n"
		"Exit status: 0 success, 1 the run found what it was asked to find,\n"
		"2 bad input (the message names the file, the JSON path and the problem;\n"
		"also a workload that panics, past its memory budget included), 4 a simulated\n"
		"run cut at --max-sim-time or --max-wall-time (its report is partial).\n",
		SCHEDLAB_VERSION);
}

void cli_help_topo(FILE *f)
{
	fprintf(f,
		"usage: schedlab topo [-t TOPOLOGY] [--mlc] [--json] [--source]\n"
		"\n"
		"Prints a machine's packages, NUMA nodes, core groups, cores, PUs, caches,\n"
		"the distance, hop and DRAM latency matrices and the latency model, then\n"
		"every figure of the model with where it comes from: measured (with its\n"
		"p10-p90 spread and samples), published (source), assumption (note), given\n"
		"by the file, derived by the hop rule, or the model's default (its source),\n"
		"and a calibration's raw measurements.  -t host uses the calibration in\n"
		"$SCHEDLAB_CALIBRATION (a path, or \"off\"), else the one `schedlab calibrate`\n"
		"wrote to ${XDG_CONFIG_HOME:-~/.config}/schedlab/host.json, if any.\n"
		"\n");
	cli_opts_help(f, cli_topo_opts, 18);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *raw = xvasprintf(fmt, ap);
	va_end(ap);
	/* options echo what was typed: one line of text, reason kept */
	char *shown = str_shown(raw, 1024);
	fprintf(stderr, "schedlab %s: %s (see schedlab %s --help)\n", cmd, shown, cmd);
	free(shown);
	free(raw);
	return EXIT_BADINPUT;
}

int cli_input_error(const struct err *e)
{
	fprintf(stderr, "schedlab: %s\n", e->msg);
	return EXIT_BADINPUT;
}

int cli_cmd_input_error(const char *cmd, const struct err *e)
{
	fprintf(stderr, "schedlab %s: %s\n", cmd, e->msg);
	return EXIT_BADINPUT;
}

/* Every command, its entry point and its option tables (workload's:
 * expand's and import's). */
const struct cli_command cli_commands[] = {
	{ "topo", cmd_topo, { cli_topo_opts } },
	{ "list", cmd_list, { cli_list_opts } },
	{ "workload", cmd_workload, { cli_expand_opts, cli_import_opts } },
	{ "run", cmd_run, { cli_run_opts } },
	{ "compare", cmd_compare, { cli_compare_opts } },
	{ "calibrate", cmd_calibrate, { cli_calibrate_opts } },
	{ "regress", cmd_regress, { cli_regress_opts } },
	{ "sweep", cmd_sweep, { cli_sweep_opts } },
	{ "merge", cmd_merge, { cli_merge_opts } },
	{ "report", cmd_report, { cli_report_opts } },
	{ "explore", cmd_explore, { cli_explore_opts } },
	{ NULL, NULL, { NULL } },
};

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
	int rc = dispatch(argc, argv);
	cli_out_release();
	/* what went to stdout (a run's summary, a listing) must have been
	 * written: a full disk or device is a failure, not a silent exit 0 */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "schedlab: standard output: %s\n",
			errno ? strerror(errno) : "write error");
		return rc ? rc : EXIT_BADINPUT;
	}
	return rc;
}

static int dispatch(int argc, char **argv)
{
	if (argc < 2) {
		help(stderr);
		return EXIT_BADINPUT;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		help(stdout);
		return 0;
	}
	/* `version` as go, git and docker spell it, beside GNU's --version */
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("schedlab %s (commit %s)\n", SCHEDLAB_VERSION, schedlab_commit());
		return 0;
	}
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (strcmp(cmd, c->name) == 0)
			return c->main(argc - 1, argv + 1);
	char *shown = str_shown(cmd, 256);
	fprintf(stderr, "schedlab: unknown command '%s' (see schedlab --help)\n", shown);
	free(shown);
	return EXIT_BADINPUT;
}
