/* One run and its report, as a library: what a run is given, making and
 * running its runtime, and what it measured as the JSON report of
 * DESIGN.md ("Report") or the text summary.  `schedlab run`, compare,
 * sweep, regress, explore, the run-matrix engine (matrix.h) and the tests
 * all make their runs here; cli/ only parses options and writes files.
 * Implemented in exec.c, report.c, mech_report.c and host_report.c. */
#ifndef SCHEDLAB_RUN_RUN_H
#define SCHEDLAB_RUN_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "core/policy.h"
#include "util/gomaxprocs.h"
#include "util/hist.h"
#include "util/util.h"

struct topo;
struct workload;

/* A run: what it is given, and (after run_exec) what it measured. */
struct run {
	const struct rt_api *api;
	const struct pol_ops *pol;
	const int64_t *knobs;          /* one per knob of pol */
	const struct topo *topo;
	const struct workload *wl;
	uint64_t seed;
	int procs;
	/* How procs was chosen: by --procs RULE from what the rule read (in),
	 * or (rule GMP_NUMBER) given as a number or the default */
	struct run_gmp {
		enum gmp_rule rule;
		struct gmp_limits in;
	} gmp;
	/* --max-sim-time, --max-wall-time, --max-memory (0: the default);
	 * --trace, --trace-limit; --schedtrace, --scheddetail (`run` only) */
	struct rt_limits lim;
	/* --cpu-quota, --cpu-period, --cpuset, --load (simulated runs) */
	struct rt_os os;
	/* `explore`'s schedule and checks (NULL: a plain run) */
	struct rt_explore *explore;
	struct rt_result r;
	struct rt_mech mech;           /* (run_exec; rt_mech_free frees it) */
};

/* pol's knobs at their defaults, one per knob (at least one slot); the
 * caller frees.  pol_set_knob changes them. */
int64_t *run_knobs_new(const struct pol_ops *pol);
/* Creates run's runtime, runs it to its end and fills run->r.  Returns the
 * runtime, for the caller to read what else it wants (the draws of
 * record_draws) and destroy (run->api->destroy); or NULL with the reason in
 * e if the runtime refused the input. */
struct rt *run_exec(struct run *run, bool record_draws, struct err *e);

/* ---- The report ---- */

/* The JSON report of DESIGN.md ("Report"); a metric the run did not
 * produce is left out.  The caller deletes it. */
cJSON *run_report_json(const struct run *run);
/* The text summary `schedlab run` prints, to stdout. */
void run_report_text(const struct run *run);
/* An imported Go trace's recorded figures beside the run's (nothing for other
 * workloads), and the Ps a run gets when --procs is not given. */
void run_recorded_text(const struct workload *wl, const struct rt_result *r,
		       const struct rt_mech *mech);
cJSON *run_recorded_json(const struct workload *wl, const struct rt_result *r,
			 const struct rt_mech *mech);
int run_default_procs(const struct workload *wl, const struct topo *t, long given);
/* A latency histogram as the report gives it: its quantiles, max, mean,
 * and its non-empty buckets whole, [bound_ns, count] each. */
cJSON *run_latency_json(const struct hist *h);
cJSON *run_hist_buckets_json(const struct hist *h);
/* The mechanisms (mech_report.c): into the report's metrics, as text,
 * and every latency distribution as a CDF in CSV to path ("-": stdout;
 * 0, or EXIT_BADINPUT with a message naming cmd and --cdf path). */
void run_mech_json(cJSON *metrics, const struct rt_mech *mech);
void run_mech_text(const struct rt_mech *mech);
/* Where the Gs' waits went, by cause (why_report.c; nothing without
 * rt_limits.why): the report's "why" object, and its table. */
void run_why_json(cJSON *report, const struct rt_mech *mech);
void run_why_text(const struct rt_mech *mech);
int run_write_cdf(const char *cmd, const char *path, const struct run *run);

/* The report's "os" object, made here: the --procs rule and its value,
 * the quota, cpuset and load the run lived under; nothing for a run with
 * none of them (its report stays as it was before them).  What the OS
 * model measured is added to the same object. */
void run_os_limits_json(cJSON *report, const struct run *run);
/* procs as compare's and sweep's labels give it: "4", or "2 (go1.25)"
 * when a rule chose it. */
const char *run_procs_label(char *buf, size_t size, const struct run_gmp *g, int procs);

/* The CPU a native run got (host_report.c): the report's "host" object
 * (nothing if the run measured none), its line of the text summary, and
 * the warning on f if the host was busy (true if it was). */
void run_host_json(cJSON *report, const struct rt_host *h);
void run_os_json(cJSON *report, const struct rt_os_stats *s);
void run_os_text(const struct rt_os_stats *s);
void run_host_text(const struct rt_host *h);
bool run_host_warn(FILE *f, const struct rt_host *h);

/* If the run was cut at a limit, says so on f -- which limit, where, the
 * option that raises it -- and returns EXIT_LIMIT; else 0. */
int run_report_cut(const char *cmd, const struct run *run, FILE *f);
/* The run's throughput per second of makespan, and its unit: requests
 * answered ("requests/s") if the workload's servers answered any, else
 * goroutines completed ("goroutines/s"). */
const char *run_throughput(const struct rt_result *r, double *per_s);

/* The load a workload's open loops offered against what the server made
 * of it [docs/runtime.md, "Overload"]: connections arrived over span_ns
 * (first to last), at arrival_per_s; the last answer came drain_ns after
 * the last arrival.  Overloaded when the server fell behind for good: 100
 * requests answered or more, and a drain longer than the arrivals' span,
 * or longer than a quarter of it and than 10 median request latencies.
 * False where the
 * workload has no open loop or the run answered no request. */
struct run_request_load {
	double arrival_per_s;
	int64_t span_ns, drain_ns;
	bool overloaded;
};
bool run_request_load(const struct rt_result *r, struct run_request_load *l);

/* The unit that suits a duration of ns nanoseconds, as the text summary
 * shows it: its name ("ns", "us", "ms", "s"), the nanoseconds in one of
 * it, and the decimals shown. */
/* ns in that unit, "12.31 ms": at most 9 characters. */
const char *run_fmt_ns(char buf[16], double ns);
/* A latency distribution's row of the text summary: label, its count if
 * asked, p50, p90, p99, p99.9, max and mean. */
void run_latency_row(const char *label, bool count, const struct hist *h);

#endif
