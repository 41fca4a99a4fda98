/* `schedlab report STORE -o FILE`: a results store as a report people look
 * at (report/report.h, docs/reports.md). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"

#define CMD "report"

void cli_help_report(FILE *f)
{
	fprintf(f,
		"usage: schedlab report STORE -o FILE.html|FILE.md [--format html|md]\n"
		"                       [--plot-script FILE]\n"
		"\n"
		"Makes a report of a results store -- the JSON Lines file that `schedlab sweep\n"
		"--json FILE`, `schedlab compare --store FILE` and `schedlab merge -o FILE`\n"
		"write, a row per run (docs/reports.md) -- with figures drawn by gnuplot\n"
		"(Debian: gnuplot-nox):\n"
		"  - at a glance, and as each scenario's headline: the best variant on p99 and\n"
		"    p50 latency (of requests, else scheduling) and on makespan, its change\n"
		"    against the runner-up, and whether the seeds show it (Wilcoxon's signed-rank\n"
		"    test, paired by seed, exact; '~' where p > 0.05);\n"
		"  - for each scenario (topology, workload, procs), a table of the metrics\n"
		"    `compare` shows, a column per variant: the mean over the runs that\n"
		"    completed, ±95%% confidence interval (Student t) from two runs on, and\n"
		"    how many runs ended in each status (anything but ok is shown, and listed);\n"
		"  - the latency distributions as CDFs from the runs' whole histograms;\n"
		"  - the CPU breakdown (on-CPU and off-CPU thread time) as stacked bars;\n"
		"  - the DRAM lines read by node and home node as heat maps on one colour\n"
		"    scale per scenario, with their numbers;\n"
		"  - scaling curves with 95%% confidence bands where the store varies procs, or a\n"
		"    knob given with --set, across runs (latencies on a log axis).\n"
		"\n");
	cli_opts_help(f, cli_report_opts, CLI_OPT_HELP_COL - 2);
	fprintf(f,
		"\n"
		"The same store gives a byte-identical report.  SCHEDLAB_GNUPLOT names another\n"
		"gnuplot program.  Figures are drawn for the first %d scenarios (tables for\n"
		"all), at most %d curves or bars a figure and %d heat maps a scenario.\n"
		"\n"
		"Exit status: 0 the report was written; 2 bad input (a store that is not one:\n"
		"the message names the file, the line and the JSON path; two different rows\n"
		"of one run), a path that cannot be written, or gnuplot missing or failing;\n"
		"128 + N interrupted by signal N (SIGINT, SIGTERM), nothing written.\n",
		REP_MAX_SCENARIO_FIGS, REP_MAX_CURVES, REP_MAX_HEATMAPS);
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);
	return n >= m && strcmp(s + n - m, end) == 0;
}

/* What report's line gives. */
struct report_args {
	const char *store, *out, *format, *script;
};

const struct cli_opt cli_report_opts[] = {
	CLI_TEXT("  STORE              the store (JSONL; - reads stdin)\n"),
	/* --output is taken; the help shows -o FILE, as the usage */
	{ .kind = CLI_OPT_STRING, .shrt = "-o", .lng = "--output", .arg = "FILE",
	  .off = offsetof(struct report_args, out), .label = "-o FILE",
	  .help = "the report: FILE.html is one self-contained page (SVG\n"
		  "inline, no network, no JavaScript); FILE.md is Markdown,\n"
		  "its figures in the folder FILE-figures/ beside it" },
	CLI_STRING(NULL, "--format", "html|md", struct report_args, format,
		   "the form, when FILE's name does not say it"),
	CLI_STRING(NULL, "--plot-script", "FILE", struct report_args, script,
		   "also write the gnuplot script, data inline, to FILE\n"
		   "(`gnuplot -d FILE` redraws the figures as fig-NNNN.svg)"),
	CLI_END,
};

static int report_arg(void *ctx, const char *a)
{
	struct report_args *r = ctx;
	if (r->store)
		return cli_usage_error(CMD, "one STORE only ('%s' and '%s')", r->store, a);
	if (!a[0])
		return cli_usage_error(CMD, "STORE: an empty file name");
	r->store = a;
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_args r = { 0 };
	const struct cli_parser p = {
		.cmd = CMD, .opts = cli_report_opts, .ctx = &r, .help = cli_help_report,
		.arg = report_arg, .missing = "%s: expected a value",
	};
	bool help;
	int rc = cli_parse(&p, argc, argv, &help);
	if (rc || help)
		return rc;
	const char *store = r.store, *out = r.out, *format = r.format, *script = r.script;
	if (!store)
		return cli_usage_error(CMD, "missing STORE (a results store: sweep --json FILE)");
	if (!out)
		return cli_usage_error(CMD, "missing -o FILE.html or -o FILE.md");
	enum rep_format fmt;
	if (format) {
		if (strcmp(format, "html") == 0)
			fmt = REP_HTML;
		else if (strcmp(format, "md") == 0)
			fmt = REP_MD;
		else
			return cli_usage_error(CMD, "--format %s: expected html or md", format);
	} else if (ends_with(out, ".html") || ends_with(out, ".htm")) {
		fmt = REP_HTML;
	} else if (ends_with(out, ".md")) {
		fmt = REP_MD;
	} else {
		return cli_usage_error(CMD, "-o %s: name it .html or .md, or give --format", out);
	}
	if (strcmp(out, "-") == 0)
		return cli_usage_error(CMD, "-o -: the report is a file (Markdown has a folder of "
				       "figures beside it)");
	cli_in_note(store);
	rc = cli_out_claim(CMD, "-o", out);
	if (!rc && script)
		rc = cli_out_claim(CMD, "--plot-script", script);
	if (rc)
		return rc;

	struct err e = { "" };
	struct rep_store s;
	if (!rep_store_read(&s, store, &e)) {
		rep_store_free(&s);
		fprintf(stderr, "schedlab %s: %s\n", CMD, e.msg);
		return EXIT_BADINPUT;
	}
	if (s.rows == 0) {
		/* as merge refuses a store of no rows: a report of nothing is
		 * a mistake in what was given */
		char *shown = str_shown(store, 512);
		fprintf(stderr, "schedlab %s: %s: the store holds no rows\n", CMD, shown);
		free(shown);
		rep_store_free(&s);
		return EXIT_BADINPUT;
	}
	struct rep_opts o = { .out = out, .format = fmt, .plot_script = script,
			      .gnuplot = getenv("SCHEDLAB_GNUPLOT") };
	rc = rep_write(&s, &o, &e);
	if (rc)
		fprintf(stderr, "schedlab %s: %s\n", CMD, e.msg);
	rep_store_free(&s);
	return rc;
}
