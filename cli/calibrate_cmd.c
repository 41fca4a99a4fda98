/* schedlab calibrate: measures this machine and writes its calibrated
 * topology file (calib/, docs/calibration.md). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calib/calib.h"
#include "cli/cli.h"
#include "topologies/topo.h"
#include "util/output.h"

void cli_help_calibrate(FILE *f)
{
	fprintf(f,
		"usage: schedlab calibrate [-o FILE|-] [--quick] [--seconds N]\n"
		"\n"
		"Measures this machine with microbenchmarks -- futex wake-up latency by the\n"
		"relation of the two PUs, system call, futex, thread and sleep costs, the\n"
		"thread context switch, core-to-core line transfer, the effective size and hit\n"
		"latency of each cache level, DRAM latency for every pair of NUMA nodes,\n"
		"bandwidth per node, and the native runtime's own costs -- and writes a\n"
		"topology file: hwloc's structure of this machine, every figure of the latency\n"
		"model, each measured one with its spread (docs/calibration.md).  `-t host`\n"
		"uses that file when it is at the default path.\n"
		"\n");
	cli_opts_help(f, cli_calibrate_opts, CLI_OPT_HELP_COL - 2);
	fprintf(f,
		"\n"
		"Progress goes to stderr (a bar on a terminal, else one line per phase), and\n"
		"a warning if the host was busy meanwhile (the file says so too).\n");
}

/* The default calibration path (topo_calibration_path, where -t host
 * looks), its folder made; NULL with a message if there is none or the
 * folder cannot be made. */
static char *default_path(void)
{
	char *path = topo_calibration_path();
	if (!path) {
		fprintf(stderr, "schedlab calibrate: no -o given and neither XDG_CONFIG_HOME nor HOME "
			"is an absolute folder: nowhere to keep the calibration\n");
		return NULL;
	}
	/* every folder above the file, from the top */
	for (char *p = path + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		int rc = mkdir(path, 0777), err = errno;
		*p = '/';
		if (rc != 0 && err != EEXIST) {
			*p = 0;
			char *shown = str_shown(path, 512);
			fprintf(stderr, "schedlab calibrate: cannot make %s: %s\n", shown, strerror(err));
			free(shown);
			free(path);
			return NULL;
		}
	}
	return path;
}

/* What calibrate's line gives. */
struct calibrate_args {
	const char *out;
	bool quick;
	double seconds;
};

static int own_output(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct calibrate_args *c = ctx;
	if (!v[0])
		return cli_usage_error(cmd, "option %s needs a file, got ''", a);
	c->out = v;
	return 0;
}

static int own_seconds(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct calibrate_args *c = ctx;
	char *end;
	errno = 0;
	double s = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(s) || s < 1 || s > 3600)
		return cli_usage_error(cmd, "--seconds '%s': expected a number of seconds from 1 to 3600",
				       v);
	c->seconds = s;
	return 0;
}

const struct cli_opt cli_calibrate_opts[] = {
	{ .kind = CLI_OPT_CALL, .shrt = "-o", .lng = "--output", .arg = "FILE", .call = own_output,
	  .missing = "option %s needs a file",
	  .help = "where to write it (- for stdout); default\n"
		  "${XDG_CONFIG_HOME:-$HOME/.config}/schedlab/host.json" },
	CLI_FLAG(NULL, "--quick", struct calibrate_args, quick,
		 "a few seconds: fewer samples, smaller buffers (tests, CI)"),
	{ .kind = CLI_OPT_CALL, .lng = "--seconds", .arg = "N", .call = own_seconds, .eq = true,
	  .missing = "option %s needs a number",
	  .help = "the time budget, 1 to 3600 s (default 40, --quick 3);\n"
		  "the working-set sweep takes the time its sizes need" },
	CLI_END,
};

int cmd_calibrate(int argc, char **argv)
{
	struct calibrate_args c = { 0 };
	const struct cli_parser p = {
		.cmd = "calibrate", .opts = cli_calibrate_opts, .ctx = &c, .help = cli_help_calibrate,
	};
	bool help;
	int rc = cli_parse(&p, argc, argv, &help);
	if (rc || help)
		return rc;
	const char *out = c.out;
	bool quick = c.quick;
	double seconds = c.seconds;
	if (seconds == 0)
		seconds = quick ? 3 : 40;
	char *path = out ? xstrdup(out) : default_path();
	if (!path)
		return EXIT_BADINPUT;
	rc = cli_out_claim("calibrate", out ? "-o" : "the calibration file", path);
	if (rc) {
		free(path);
		return rc;
	}
	struct cal_options o = { .quick = quick, .seconds = seconds, .progress = stderr };
	struct err e = { "" };
	int64_t t0 = cal_now();
	cJSON *doc = cal_run(&o, &e);
	if (!doc) {
		free(path);
		fprintf(stderr, "schedlab %s\n", e.msg);
		return EXIT_BADINPUT;
	}
	char *text = cJSON_Print(doc);
	cJSON_Delete(doc);
	/* whole or not at all: an interrupted calibration leaves the last
	 * one in place, never an empty file -t host would fail on */
	char *line = xasprintf("%s\n", text);
	int wrc = output_write_text("calibrate", "-o", path, line);
	free(line);
	free(text);
	char *shown = str_shown(path, 512);
	if (wrc) {
		free(shown);
		free(path);
		return wrc;
	}
	if (strcmp(path, "-") != 0)
		fprintf(stderr, "calibrate: wrote %s in %.1f s\n", shown, (double)(cal_now() - t0) / 1e9);
	free(shown);
	free(path);
	return 0;
}
