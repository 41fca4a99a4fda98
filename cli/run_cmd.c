/* `schedlab run`: one workload under one policy, simulated or native, and
 * its report; the set-up and report `schedlab compare` shares (cli/run.h);
 * `workload expand`, `workload show`, `list policies`, `list workloads`. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "core/policy.h"
#include "exp/store.h"
#include "topologies/topo.h"
#include "workloads/json.h"
#include "workloads/program.h"
#include "trace/import.h"
#include "trace/trace.h"
#include "util/output.h"

void cli_help_run(FILE *f)
{
	fprintf(f,
		"usage: schedlab run -p POLICY -t TOPOLOGY -w WORKLOAD [--procs N|RULE] [--seed N]\n"
		"                    [--cpu-quota CPUS [--cpu-period T]] [--cpuset LIST] [--load N]\n"
		"                    [--set KEY=VALUE ...] [--json FILE|-] [--cdf FILE|-] [--native]\n"
		"                    [--schedtrace DUR [--scheddetail]]\n"
		"                    [--max-sim-time T] [--max-wall-time T] [--max-memory SIZE]\n"
		"                    [--trace FILE [--trace-format go1.22|go1.19|chrome]\n"
		"                     [--trace-limit N]] [--why]\n"
		"\n"
		"Runs a workload under a scheduling policy on a simulated machine (or, with\n"
		"--native, on this one) and prints what it measured.\n"
		"\n");
	cli_opts_help(f, cli_run_opts, CLI_OPT_HELP_COL - 2);
	fprintf(f,
		"\n"
		"A simulated run cut at --max-sim-time or --max-wall-time still reports what it\n"
		"did up to the cut, marked \"ended\" in JSON and CUT in the text.\n"
		"\n"
		"Exit status: 0 the run completed; 1 it deadlocked (goroutines were left\n"
		"waiting with nothing to wake them: they are listed with what they wait for);\n"
		"2 bad input, including a workload that panics (a send on a closed channel, a\n"
		"negative WaitGroup counter, an unlock of an unlocked mutex, the memory budget\n"
		"exceeded, and a native run stopped by a limit of the runtime's: \"panic:\n"
		"runtime: out of memory: ...\" when goroutine stacks would exceed half of this\n"
		"machine's memory or leave it less than 1/16 available; \"panic: runtime:\n"
		"failed to create new OS thread\"); 4 the run was cut at a time limit.\n");
}

bool cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	if (*s == '-' || *s == '\0')
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end != '\0' || errno == ERANGE || v > max)
		return false;
	*out = v;
	return true;
}

/* ---- Limits [docs/runtime.md, "Limits"] ---- */

/* "1.5h" -> ns, or a size "64MiB" -> bytes: a positive number and a unit
 * from units (names and their multipliers), at most max. */
struct unit {
	const char *name;
	double mult;
};

static bool parse_quantity(const char *s, const struct unit *units, double min, double max,
			   double *out)
{
	char *end;
	errno = 0;
	if (!(*s >= '0' && *s <= '9') && *s != '.')
		return false;
	double x = strtod(s, &end);
	if (errno || end == s)
		return false;
	for (const struct unit *u = units; u->name; u++) {
		if (strcmp(end, u->name) != 0)
			continue;
		x *= u->mult;
		if (!(x >= min && x <= max))
			return false;
		*out = x;
		return true;
	}
	return false;
}

static const struct unit time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "min", 60e9 }, { "h", 3600e9 },
	{ NULL, 0 },
};
static const struct unit size_units[] = {
	{ "B", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
	{ "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 }, { NULL, 0 },
};

#define WALL_MAX_NS (8760 * 3600e9)   /* a year */
#define MEMORY_MIN (16u << 20)

int cli_parse_wall_time(const char *cmd, const char *opt, const char *v, int64_t *ns)
{
	double x;
	if (!parse_quantity(v, time_units, 1e6, WALL_MAX_NS, &x))
		return cli_usage_error(cmd, "%s %s: expected a time from 1ms to 8760h, with a unit "
				       "(ns, us, ms, s, min or h)", opt, v);
	*ns = (int64_t)x;
	return 0;
}

int cli_parse_limit(const char *cmd, const char *a, const char *v, struct run *run)
{
	double x;
	if (strcmp(a, "--max-sim-time") == 0) {
		if (!parse_quantity(v, time_units, 1, (double)RT_MAX_SIM_NS, &x))
			return cli_usage_error(cmd, "--max-sim-time %s: expected a time from 1ns to "
					       "100h, with a unit (ns, us, ms, s, min or h)", v);
		run->lim.max_sim_ns = (int64_t)x;
	} else if (strcmp(a, "--max-wall-time") == 0) {
		return cli_parse_wall_time(cmd, a, v, &run->lim.max_wall_ns);
	} else {
		if (!parse_quantity(v, size_units, MEMORY_MIN, (double)RT_MEMORY_BUDGET, &x))
			return cli_usage_error(cmd, "--max-memory %s: expected a size from 16MiB to "
					       "4GiB, with a unit (B, KiB, MiB or GiB)", v);
		run->lim.max_memory = (uint64_t)x;
	}
	return 0;
}

int cli_write_json_as(const char *cmd, const char *path, const cJSON *o, bool exact)
{
	char *text = exact ? exp_json_line(o) : cJSON_Print(o);
	char *line = xasprintf("%s\n", text);
	int rc = output_write_text(cmd, "--json", path, line);
	free(line);
	free(text);
	return rc;
}

int cli_write_json(const char *cmd, const char *path, const cJSON *o)
{
	return cli_write_json_as(cmd, path, o, false);
}

static int run_main(int argc, char **argv, const char *cmd, const char *expand);

static int write_trace(const char *cmd, const char *path, const struct workload *wl, uint64_t seed,
		       const struct rt_api *api, struct rt *rt)
{
	const struct rt_draw *recs;
	size_t n = api->draws(rt, &recs);
	struct output o;
	if (!output_start(&o, cmd, "-o", path))
		return EXIT_BADINPUT;
	wl_write_trace(o.f, wl, seed, recs, n);
	return output_finish(&o, cmd);
}

int cmd_run(int argc, char **argv)
{
	return run_main(argc, argv, "run", NULL);
}

/* `schedlab workload import TRACE [-o FILE]': a Go execution trace as a
 * workload (trace/import.c), to stdout or FILE. */
struct import_args {
	const char *in, *out;
};

const struct cli_opt cli_import_opts[] = {
	CLI_STRING("-o", "--output", "FILE|-", struct import_args, out, "where the workload goes"),
	CLI_END,
};

static int import_arg(void *ctx, const char *a)
{
	struct import_args *im = ctx;
	if (!*a)
		return cli_usage_error("workload", "import: an empty file name");
	if (im->in)
		return cli_usage_error("workload", "import: one trace at a time (%s, then %s)", im->in,
				       a);
	im->in = a;
	return 0;
}

static int workload_import(int argc, char **argv)
{
	struct import_args im = { .out = "-" };
	const struct cli_parser p = {
		.cmd = "workload", .opts = cli_import_opts, .ctx = &im, .help = cli_help_workload,
		.arg = import_arg, .unknown = "import: unknown option %s",
		.missing = "import: %s needs a file name (or -)",
	};
	bool help;
	int rc = cli_parse(&p, argc, argv, &help);
	if (rc || help)
		return rc;
	const char *in = im.in, *out = im.out;
	if (!in)
		return cli_usage_error("workload", "import: expected a Go execution trace: workload "
				       "import TRACE [-o FILE]");
	struct err e;
	/* -o may not be the trace read (cli/output.c) */
	cli_in_note(in);
	int claim = cli_out_claim("workload import", "-o", out);
	if (claim)
		return claim;
	/* a failed import leaves no half workload behind (util/output.h) */
	struct output o;
	if (!output_open(&o, "-o", out, &e)) {
		fprintf(stderr, "schedlab: %s\n", e.msg);
		return EXIT_BADINPUT;
	}
	struct ti_stats st;
	char *name = path_stem(in);
	bool ok = ti_import(in, name, o.f, &st, &e);
	free(name);
	if (!ok)
		output_abort(&o);
	else
		ok = output_commit(&o, &e);
	if (!ok) {
		fprintf(stderr, "schedlab: %s\n", e.msg);
		return EXIT_BADINPUT;
	}
	fprintf(stderr, "imported %s (%s): %" PRIu64 " events, %" PRIu64 " goroutines (%" PRIu64
		" of the runtime left out) as %" PRIu64 " programs, GOMAXPROCS %d, %.3f ms recorded\n",
		in, st.go, st.events, st.goroutines, st.internal, st.programs, st.gomaxprocs,
		(double)st.makespan_ns / 1e6);
	return 0;
}

/* `schedlab workload expand W ...': W's run as a trace. */
int cmd_workload(int argc, char **argv)
{
	/* `workload show --help` and `workload expand --help` too: expand's
	 * later options reach run_main, which answers --help itself */
	int h = argc >= 3 && (strcmp(argv[1], "show") == 0 || strcmp(argv[1], "expand") == 0) ? 2 : 1;
	for (int i = 2; argc >= 2 && strcmp(argv[1], "import") == 0 && i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			h = i;
	if (argc > h && (strcmp(argv[h], "-h") == 0 || strcmp(argv[h], "--help") == 0)) {
		cli_help_workload(stdout);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "show") == 0 && argv[2][0] == '-' && argv[2][1])
		return cli_usage_error("workload", "show: unknown option %s", argv[2]);
	if (argc == 3 && strcmp(argv[1], "show") == 0) {
		for (int i = 0; i < wl_catalog_count(); i++)
			if (strcmp(argv[2], wl_catalog_name(i)) == 0) {
				fputs(wl_catalog_text(i), stdout);
				return 0;
			}
		return cli_usage_error("workload", "show '%s': no bundled workload of that name (see "
				       "`schedlab list workloads`)", argv[2]);
	}
	if (argc >= 2 && strcmp(argv[1], "import") == 0)
		return workload_import(argc - 1, argv + 1);
	if (argc < 3 || strcmp(argv[1], "expand") != 0 || argv[2][0] == '-') {
		if (argc >= 2 && strcmp(argv[1], "expand") != 0 && strcmp(argv[1], "show") != 0)
			return cli_usage_error("workload", "'%s' is not a workload command (expected "
					       "expand, import or show)", argv[1]);
		return cli_usage_error("workload", "expected: workload expand WORKLOAD [options], "
				       "workload import TRACE [-o FILE], or workload show NAME");
	}
	/* the rest is run's options, with -w WORKLOAD */
	char **args = xcalloc((size_t)argc + 2, sizeof(*args));
	int n = 0;
	args[n++] = "expand";
	args[n++] = "-w";
	args[n++] = argv[2];
	for (int i = 3; i < argc; i++)
		args[n++] = argv[i];
	int rc = run_main(n, args, "workload expand", "-");
	free(args);
	return rc;
}

void cli_help_workload(FILE *f)
{
	fprintf(f,
		"usage: schedlab workload expand WORKLOAD [--seed N] [-o FILE|-] [-p POLICY]\n"
		"                [-t TOPOLOGY] [--procs N] [--set KEY=VALUE ...]\n"
		"                [--max-sim-time T] [--max-wall-time T] [--max-memory SIZE]\n"
		"       schedlab workload import TRACE [-o FILE|-]\n"
		"       schedlab workload show NAME\n"
		"\n"
		"show prints a bundled workload's JSON, to start a new one from.\n"
		"\n"
		"import reads a Go execution trace (`go test -trace t.out', runtime/trace; Go\n"
		"1.11-1.20 and 1.22+ formats) and writes it as a workload (JSON, to stdout by\n"
		"default): each goroutine a program of its compute, spawns, wake-up edges,\n"
		"sleeps, network waits and system calls, and the recorded figures in its\n"
		"\"recorded\" key.  `run -w TRACE' (and compare, sweep) import on the fly.\n"
		"See docs/workload-format.md, \"Imported traces\".\n"
		"\n"
		"Simulates WORKLOAD and writes it as a trace (JSON lines, to stdout by default):\n"
		"the workload's document and seed, then every random stream's sampled values in\n"
		"the order drawn.  A trace is itself a workload: `schedlab run -w TRACE' replays\n"
		"those values instead of sampling, and gives the report the workload gives with\n"
		"that seed.  The policy (default steal), topology and procs choose the run the\n"
		"values are drawn in; a workload whose control flow does not depend on\n"
		"scheduling draws the same values under any of them.  The limits are run's\n"
		"(see `schedlab run --help`); a run cut at a time limit writes no trace (exit\n"
		"4), and the recorded draws count against --max-memory.\n");
}

/* run's own options beside the shared ones: --native, --json, --cdf,
 * --trace, --trace-format, --trace-limit, --schedtrace and --scheddetail;
 * expand's, -o. */
struct run_own {
	const char *expand;            /* -o (workload expand), or NULL for run */
	bool native;
	const char *json;
	const char *trace;             /* --trace FILE */
	const char *trace_limit;       /* --trace-limit N */
	const char *trace_format;      /* --trace-format F, as given */
	enum cli_trace_format tformat;
	const char *cdf;               /* --cdf */
	int64_t schedtrace_ns;
	bool scheddetail;
	bool why;                      /* --why */
};

/* --schedtrace's DUR: a Go duration of one unit ("500us", "1.5ms", "2s")
 * or plain ns, from 1us (a snapshot every simulated ns would print more
 * than the run does) to the longest simulated run. */
static const struct unit go_time_units[] = {
	{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	{ "m", 60e9 }, { "h", 3600e9 }, { NULL, 0 },
};

static int parse_schedtrace(const char *cmd, const char *v, int64_t *out)
{
	double x;
	if (!parse_quantity(v, go_time_units, 1e3, (double)RT_MAX_SIM_NS, &x) || x != (double)(int64_t)x)
		return cli_usage_error(cmd, "--schedtrace %s: expected a duration from 1us to 100h, "
				       "as Go writes it (500us, 10ms, 1s; units ns, us, ms, s, m, h) "
				       "or in whole ns", v);
	*out = (int64_t)x;
	return 0;
}

int cli_parse_duration(const char *cmd, const char *opt, const char *v, int64_t min_ns,
		       int64_t *out)
{
	double x;
	if (!parse_quantity(v, go_time_units, (double)min_ns, (double)RT_MAX_SIM_NS, &x) ||
	    x != (double)(int64_t)x)
		return cli_usage_error(cmd, "%s %s: expected a duration from %lld ns to 100h, as Go "
				       "writes it (500us, 10ms, 1s; units ns, us, ms, s, m, h) or in "
				       "whole ns", opt, v, (long long)min_ns);
	*out = (int64_t)x;
	return 0;
}

static int own_schedtrace(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct run_own *r = ctx;
	return parse_schedtrace(cmd, v, &r->schedtrace_ns);
}

int cli_parse_trace_format(const char *cmd, const char *v, enum cli_trace_format *out)
{
	static const struct { const char *name; enum cli_trace_format f; } names[] = {
		{ "go1.22", CLI_TRACE_GO122 }, { "go1.19", CLI_TRACE_GO119 },
		{ "chrome", CLI_TRACE_CHROME },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(v, names[i].name) == 0) {
			*out = names[i].f;
			return 0;
		}
	}
	return cli_usage_error(cmd, "--trace-format %s: expected go1.22 (Go's format since Go "
			       "1.22, the default), go1.19 (Go 1.19's) or chrome (Chrome's JSON "
			       "trace events)", v);
}

static int own_trace_format(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct run_own *r = ctx;
	r->trace_format = v;
	return cli_parse_trace_format(cmd, v, &r->tformat);
}

const struct cli_opt cli_run_opts[] = {
	CLI_SHARED(CLI_SH_POLICY, NULL),
	CLI_SHARED(CLI_SH_TOPOLOGY, "bundled name, \"host\", or a path to hwloc XML or schedlab\n"
		   "JSON (default: numa4; with --native: host, the only choice)"),
	CLI_SHARED(CLI_SH_WORKLOAD, NULL),
	CLI_SHARED(CLI_SH_PROCS, NULL),
	CLI_SHARED_OS,
	CLI_SHARED(CLI_SH_SEED, "seed of every random choice (default 1); the same inputs\n"
		   "and seed give the same simulated run, byte for byte"),
	CLI_SHARED(CLI_SH_SET, NULL),
	CLI_STRING(NULL, "--json", "FILE|-", struct run_own, json,
		   "write the report as JSON to FILE, or to stdout with -\n"
		   "(each latency histogram whole: its buckets as [bound_ns,\n"
		   "count], the mechanisms' counters under \"mechanisms\")"),
	CLI_STRING(NULL, "--cdf", "FILE|-", struct run_own, cdf,
		   "write every latency distribution as a CDF in CSV to FILE,\n"
		   "or to stdout with -: distribution,le_ns,count,cum_count,\n"
		   "cum_frac, a row per non-empty bucket"),
	CLI_FLAG(NULL, "--native", struct run_own, native,
		 "run on this machine's threads instead of simulating; the\n"
		 "report's \"host\" says how much CPU the OS gave them, and\n"
		 "a warning on stderr when the host kept them waiting"),
	CLI_STRING(NULL, "--trace", "FILE", struct run_own, trace,
		   "write the run's execution trace to FILE in Go's format:\n"
		   "open it with `go tool trace FILE` (docs/tracing.md), or,\n"
		   "for a FILE ending in .json, in Chrome's (ui.perfetto.dev);\n"
		   "it never changes a simulated run's report"),
	CLI_CALL(NULL, "--trace-format", "go1.22|go1.19|chrome", own_trace_format,
		 "--trace's format: go1.22 (Go's format since Go 1.22,\n"
		 "read by today's go tool trace and Go's trace API; the\n"
		 "default), go1.19 (for Go 1.21's tools and older), chrome\n"
		 "(Chrome's JSON trace events; the default for FILE.json)"),
	CLI_STRING(NULL, "--trace-limit", "N", struct run_own, trace_limit,
		   "keep at most N trace events (default 4000000, about 56\n"
		   "bytes each, twice while merging); past it the run is\n"
		   "reported, no trace is written, and the exit status is 2"),
	CLI_CALL(NULL, "--schedtrace", "DUR", own_schedtrace,
		 "print Go's SCHED line (GODEBUG=schedtrace, Go 1.26's\n"
		 "format; 1.19's with steal's go=119) to stderr every DUR\n"
		 "of simulated time (natively: wall time); DUR as Go writes\n"
		 "durations (500us, 10ms, 1s; units ns, us, ms, s, m, h) or\n"
		 "plain ns, at least 1us; the report is the same with it or\n"
		 "without"),
	CLI_FLAG(NULL, "--scheddetail", struct run_own, scheddetail,
		 "with --schedtrace: also the P, M and G lines\n"
		 "(GODEBUG=scheddetail=1)"),
	CLI_FLAG(NULL, "--why", struct run_own, why,
		 "where each G's wait for a P went, by cause (a P's queue,\n"
		 "sched.lock, an M waking, a PU, the CPU quota, ...), per\n"
		 "program and in all, the parts adding up to the scheduling\n"
		 "latency; and each request's time from its arrival to its\n"
		 "answer (accept backlog, unpolled, those causes, blocked,\n"
		 "running); \"why\" in --json (simulated runs; docs/runtime.md,\n"
		 "\"Why a G waited\"); the rest of the report is the same"),
	CLI_SHARED(CLI_SH_PROGRESS, "a simulated run's clock against --max-sim-time on stderr:\n"
		   "auto (default: redrawn on a terminal, else none: a run's\n"
		   "stderr is its messages), always (else a line every 2 s),\n"
		   "never"),
	CLI_SHARED_LIMITS,
	CLI_END,
};

/* expand's: run's simulated ones, -w given as WORKLOAD, and -o. */
const struct cli_opt cli_expand_opts[] = {
	CLI_SHARED(CLI_SH_SEED, NULL),
	CLI_STRING("-o", "--output", "FILE|-", struct run_own, expand, "where the trace goes"),
	CLI_SHARED(CLI_SH_POLICY, NULL),
	CLI_SHARED(CLI_SH_TOPOLOGY, NULL),
	CLI_SHARED_HIDDEN(CLI_SH_WORKLOAD),
	CLI_SHARED(CLI_SH_PROCS, NULL),
	CLI_SHARED(CLI_SH_SET, NULL),
	CLI_SHARED_LIMITS,
	CLI_END,
};

/* --trace FILE's writer: --trace-format's, or by default Chrome's JSON for
 * a name ending in .json and Go 1.22's format for any other.  The one
 * place that picks the writer. */
static bool (*trace_writer(const char *path, enum cli_trace_format fmt))(FILE *,
									 const struct rt_trace *,
									 struct err *)
{
	size_t n = strlen(path);
	if (fmt == CLI_TRACE_AUTO)
		fmt = n >= 5 && strcmp(path + n - 5, ".json") == 0 ? CLI_TRACE_CHROME : CLI_TRACE_GO122;
	switch (fmt) {
	case CLI_TRACE_CHROME: return trace_write_chrome;
	case CLI_TRACE_GO119: return trace_write_go;
	case CLI_TRACE_AUTO:
	case CLI_TRACE_GO122: break;
	}
	return trace_write_go122;
}

static int trace_check_name(const char *cmd, const char *path)
{
	if (strcmp(path, "-") == 0)
		return cli_usage_error(cmd, "--trace -: name a file (Go's format by default; Chrome's "
				       "JSON trace events for FILE.json or --trace-format chrome)");
	return 0;
}

/* Writes the run's trace to path (claimed); 0, or EXIT_BADINPUT with the
 * reason on stderr (the trace passed its limit, or a write failed). */
int cli_write_exec_trace(const char *cmd, const char *path, enum cli_trace_format fmt,
			 const struct rt_api *api, struct rt *rt)
{
	struct rt_trace t;
	struct err e = { "" };
	char *shown = str_shown(path, 512);
	int rc = 0;
	if (!api->trace(rt, &t, &e)) {
		fprintf(stderr, "schedlab %s: --trace %s: %s\n", cmd, shown, e.msg);
		rc = EXIT_BADINPUT;
		goto out;
	}
	struct output o;
	if (!output_open(&o, "--trace", path, &e)) {
		fprintf(stderr, "schedlab %s: %s\n", cmd, e.msg);
		rc = EXIT_BADINPUT;
		goto out;
	}
	if (!trace_writer(path, fmt)(o.f, &t, &e)) {
		output_abort(&o);
		fprintf(stderr, "schedlab %s: --trace %s: %s\n", cmd, shown, e.msg);
		rc = EXIT_BADINPUT;
	} else if (!output_commit(&o, &e)) {
		fprintf(stderr, "schedlab %s: %s\n", cmd, e.msg);
		rc = EXIT_BADINPUT;
	}
out:
	free(shown);
	return rc;
}

/* The options' combinations run refuses, and the claims of its outputs:
 * 0 (the trace limit in *trace_limit), or an exit status after a message. */
static int run_check(const char *cmd, const struct cli_opts *o, const struct run_own *own,
		     uint64_t *trace_limit)
{
	bool native = own->native;
	const char *json = own->json, *expand = own->expand;
	if (!o->policy)
		return cli_usage_error(cmd, "missing -p POLICY");
	if (native && o->topology && strcmp(o->topology, "host") != 0)
		return cli_usage_error(cmd, "--native runs on this machine: -t must be host, not '%s'",
				       o->topology);
	if (own->scheddetail && !own->schedtrace_ns)
		return cli_usage_error(cmd, "--scheddetail: only with --schedtrace DUR (it adds "
				       "lines to the SCHED lines)");
	if (native && own->why)
		return cli_usage_error(cmd, "--why: only a simulated run is followed wait by wait, "
				       "not a --native one");
	if (native && o->time_limit)
		return cli_usage_error(cmd, "%s: only a simulated run is cut at a time limit, not a "
				       "--native one", o->time_limit);
	*trace_limit = 0;
	if (own->trace_limit) {
		if (!own->trace)
			return cli_usage_error(cmd, "--trace-limit %s: there is no --trace FILE to limit",
					       own->trace_limit);
		if (!cli_parse_u64(own->trace_limit, UINT64_MAX / 2, trace_limit) || *trace_limit == 0)
			return cli_usage_error(cmd, "--trace-limit %s: not a positive number of events",
					       own->trace_limit);
	}
	if (own->trace_format && !own->trace)
		return cli_usage_error(cmd, "--trace-format %s: there is no --trace FILE to write",
				       own->trace_format);
	if (own->trace) {
		int rc = trace_check_name(cmd, own->trace);
		if (rc)
			return rc;
		if (json && strcmp(json, own->trace) == 0 && strcmp(json, "-") != 0)
			return cli_usage_error(cmd, "--json and --trace both name %s", json);
	}
	int claim = json ? cli_out_claim(cmd, "--json", json)
		  : expand ? cli_out_claim(cmd, "-o", expand) : 0;
	if (!claim && own->cdf) {
		if (json && strcmp(json, "-") == 0 && strcmp(own->cdf, "-") == 0)
			return cli_usage_error(cmd, "--cdf -: stdout is --json's already");
		claim = cli_out_claim(cmd, "--cdf", own->cdf);
	}
	if (!claim && own->trace)
		claim = cli_out_claim(cmd, "--trace", own->trace);
	return claim;
}

/* A run made (rt): its report as text, --json, --cdf and --trace ask, the
 * host's warning; then the exit status its end gives. */
static int run_report(const char *cmd, const struct run_own *own, struct run *run, struct rt *rt)
{
	const char *json = own->json;
	int rc = 0;
	if (json) {
		cJSON *report = run_report_json(run);
		rc = cli_write_json(cmd, json, report);
		cJSON_Delete(report);
	}
	if (rc == 0 && own->cdf)
		rc = run_write_cdf(cmd, own->cdf, run);
	if ((!json || strcmp(json, "-") != 0) && (!own->cdf || strcmp(own->cdf, "-") != 0))
		run_report_text(run);
	run_host_warn(stderr, &run->r.host);
	if (own->trace) {
		int trc = cli_write_exec_trace(cmd, own->trace, own->tformat, run->api, rt);
		if (rc == 0)
			rc = trc;
	}
	if (rc == 0)
		rc = rt_result_report_fatal(&run->r, stderr);
	if (rc == 0)
		rc = run_report_cut(cmd, run, stderr);
	return rc;
}

/* -p and --set into run (the knobs, allocated, also into *knobs, which
 * the caller frees): 0, or an exit status after a message. */
static int run_policy(const char *cmd, const struct cli_opts *o, struct run *run,
		      int64_t **knobs)
{
	run->pol = run->api->pol_find(o->policy);
	if (!run->pol) {
		char names[256];
		cli_policy_names(run->api, names, sizeof(names));
		return cli_usage_error(cmd, "-p %s: no such policy (policies: %s)", o->policy, names);
	}
	*knobs = run_knobs_new(run->pol);
	struct err e = { "" };
	for (int i = 0; i < o->nsets; i++)
		if (!pol_set_knob(run->pol, *knobs, o->sets[i], &e))
			return cli_usage_error(cmd, "%s", e.msg);
	run->knobs = *knobs;
	return 0;
}

/* --progress for one run: redrawn on a terminal; elsewhere only when
 * asked for (always), since a run's stderr carries its messages. */
static void run_progress(const struct cli_opts *o, bool native, struct rt_limits *lim)
{
	bool tty = isatty(STDERR_FILENO);
	if (native || o->progress == PROGRESS_NEVER || (!tty && o->progress == PROGRESS_AUTO))
		return;
	lim->progress_redraw = tty;
	lim->progress_ns = (int64_t)((tty ? PROGRESS_REDRAW_S : PROGRESS_LINE_ALWAYS_S) * 1e9);
}

/* `run', and `workload expand' (expand: where the trace goes; the run is
 * simulated and reports nothing else). */
static int run_main(int argc, char **argv, const char *cmd, const char *expand)
{
	struct run run = { .seed = 0 };
	struct cli_opts o = { .cmd = cmd, .policy = expand ? "steal" : NULL, .limits = &run };
	struct run_own own = { .expand = expand };
	const struct cli_own own_ops = {
		expand ? cli_help_workload : cli_help_run, expand ? cli_expand_opts : cli_run_opts, &own,
	};
	int rc = cli_parse_options(&o, argc, argv, &own_ops);
	if (rc || o.help)
		return rc;
	bool native = own.native;
	expand = own.expand;
	uint64_t trace_limit = 0;
	rc = run_check(cmd, &o, &own, &trace_limit);
	if (rc)
		return rc;
	run.lim.trace = own.trace != NULL;
	run.lim.trace_limit = trace_limit;

	run.api = native ? &nat__rt_api : &sim__rt_api;
	run.seed = o.seed;
	run.lim.schedtrace_ns = own.schedtrace_ns;
	run.lim.scheddetail = own.scheddetail;
	run.lim.why = own.why;
	run_progress(&o, native, &run.lim);
	int64_t *knobs = NULL;
	struct topo *topo = NULL;
	struct workload *wl = NULL;
	struct rt *rt = NULL;
	bool *cpuset = NULL;
	struct err e = { "" };
	rc = run_policy(cmd, &o, &run, &knobs);
	if (rc)
		goto out;

	bool is_trace;
	uint64_t trace_seed;
	rc = cli_load_inputs(native ? "host" : o.topology, o.workload, &topo, &wl, &is_trace,
			     &trace_seed);
	if (rc)
		goto out;
	if (is_trace) {
		/* the trace's draws are its seed's: a replay under another seed
		 * would mix them with other scheduling choices */
		rc = cli_check_trace_seed(&o, trace_seed);
		if (rc)
			goto out;
		run.seed = trace_seed;
		if (expand) {
			rc = cli_usage_error(cmd, "%s is already a trace", o.workload);
			goto out;
		}
	}
	if (expand && !wl->source_json) {
		rc = cli_usage_error(cmd, "%s is built in C, not written in the workload language: "
				     "it has nothing to expand", o.workload);
		goto out;
	}
	run.topo = topo;
	run.wl = wl;
	rc = cli_os_apply(&o, native, &run, &cpuset);
	if (rc)
		goto out;
	cli_os_procs(o.procs_rule, (long)o.procs, native, &run);

	rt = run_exec(&run, expand != NULL, &e);
	if (!rt) {
		rc = cli_input_error(&e);
	} else if (expand) {
		/* a cut run's trace would end where it was cut: no trace */
		rc = rt_result_report_fatal(&run.r, stderr);
		if (rc == 0)
			rc = run_report_cut(cmd, &run, stderr);
		if (rc == 0)
			rc = write_trace(cmd, expand, wl, run.seed, run.api, rt);
	} else {
		rc = run_report(cmd, &own, &run, rt);
	}
out:
	if (rt)
		run.api->destroy(rt);
	rt_mech_free(&run.mech);
	wl_free(wl);
	topo_free(topo);
	free(knobs);
	free(cpuset);
	return rc;
}

void cli_policy_names(const struct rt_api *api, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < api->pol_count(); i++)
		len = str_list_add(buf, size, len, api->pol_at(i)->name);
}

int cli_item_policy(const char *cmd, const struct rt_api *api, const char *item,
		    const char *what, long nth, const struct pol_ops **pol)
{
	size_t n = strcspn(item, ":");
	char *name = xmalloc(n + 1);
	memcpy(name, item, n);
	name[n] = '\0';
	*pol = api->pol_find(name);
	int rc = 0;
	if (!*pol) {
		char names[256];
		cli_policy_names(api, names, sizeof(names));
		rc = cli_usage_error(cmd, "-p %s (%s %ld): no such policy '%s' (policies: %s)", item,
				     what, nth, name, names);
	}
	free(name);
	return rc;
}

int cli_item_knobs(const char *cmd, const char *item, const char *what, long nth,
		   const struct pol_ops *pol, int64_t *knobs, cJSON *given)
{
	const char *own = strchr(item, ':');
	if (!own)
		return 0;
	char *copy = xstrdup(own + 1);
	int rc = 0;
	struct err e = { "" };
	for (char *a = copy, *end; a && rc == 0; a = end) {
		end = strchr(a, ':');
		if (end)
			*end++ = '\0';
		const char *eq = strchr(a, '=');
		int k;
		if (*a == '\0') {
			rc = cli_usage_error(cmd, "-p %s (%s %ld): an empty KEY=VALUE", item, what, nth);
		} else if (!eq || eq == a) {
			rc = cli_usage_error(cmd, "-p %s (%s %ld): '%s' is not KEY=VALUE", item, what,
					     nth, a);
		} else if (!pol_set_knob(pol, knobs, a, &e)) {
			/* pol_set_knob says "--set KEY=VALUE: problem"; here the
			 * assignment came from -p */
			char prefix[256];
			snprintf(prefix, sizeof(prefix), "--set %s: ", a);
			const char *msg = e.msg;
			if (strncmp(msg, prefix, strlen(prefix)) == 0)
				msg += strlen(prefix);
			rc = cli_usage_error(cmd, "-p %s (%s %ld): %s: %s", item, what, nth, a, msg);
		} else if (given) {
			char key[128];
			snprintf(key, sizeof(key), "%.*s", (int)(eq - a), a);
			if (pol_knob(pol, key, &k)) {
				cJSON_DeleteItemFromObjectCaseSensitive(given, key);
				cJSON_AddNumberToObject(given, key, (double)knobs[k]);
			}
		}
	}
	free(copy);
	return rc;
}

bool cli_load_inputs_e(const char *topology, const char *workload, struct topo **topo,
		       struct workload **wl, bool *is_trace, uint64_t *trace_seed, struct err *e)
{
	*is_trace = false;
	*trace_seed = 0;
	*wl = NULL;
	*topo = topo_load(topology ? topology : CLI_DEFAULT_TOPOLOGY, e);
	if (*topo)
		*wl = wl_load(workload ? workload : CLI_DEFAULT_WORKLOAD, is_trace, trace_seed, e);
	if (!*wl) {
		topo_free(*topo);
		*topo = NULL;
		return false;
	}
	return true;
}

int cli_load_inputs(const char *topology, const char *workload, struct topo **topo,
		    struct workload **wl, bool *is_trace, uint64_t *trace_seed)
{
	struct err e = { "" };
	if (!cli_load_inputs_e(topology, workload, topo, wl, is_trace, trace_seed, &e))
		return cli_input_error(&e);
	return 0;
}

/* `schedlab list policies`: each policy, its knobs and their defaults. */
int cli_list_policies(void)
{
	const struct rt_api *api = &sim__rt_api;
	for (int i = 0; i < api->pol_count(); i++) {
		const struct pol_ops *pol = api->pol_at(i);
		printf("%s  %s\n", pol->name, pol->summary);
		for (int k = 0; k < pol_nknobs(pol); k++) {
			const struct pol_knob *kn = &pol->knobs[k];
			char range[64];
			if (kn->flags & POL_KNOB_BOOL)
				snprintf(range, sizeof(range), "bool");
			else
				snprintf(range, sizeof(range), "%lld..%lld%s", (long long)kn->min,
					 (long long)kn->max, (kn->flags & POL_KNOB_POW2) ? ", power of 2" : "");
			printf("  %-24s %8lld  (%s) %s\n", kn->name, (long long)kn->def, range, kn->doc);
		}
	}
	return 0;
}

/* The catalog, one line each: its name and the first sentence of its
 * description. */
int cli_list_workloads(void)
{
	for (int i = 0; i < wl_catalog_count(); i++) {
		struct err e;
		bool trace;
		uint64_t seed;
		struct workload *w = wl_load(wl_catalog_name(i), &trace, &seed, &e);
		if (!w) {
			fprintf(stderr, "schedlab: internal error: %s\n", e.msg);
			return 3;
		}
		const char *d = w->description;
		const char *dot = strstr(d, ". ");
		int len = dot ? (int)(dot - d) : (int)strlen(d);
		if (len > 0 && d[len - 1] == '.')
			len--;
		printf("%-14s %.*s\n", w->name, len, d);
		wl_free(w);
	}
	for (int i = 0; i < wl_builtin_count(); i++)
		printf("%-14s %s (built in C)\n", wl_builtin_name(i), wl_builtin_summary(i));
	return 0;
}
