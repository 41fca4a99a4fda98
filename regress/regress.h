/* `schedlab regress` apart from running [docs/regress.md]: the metrics it
 * knows by short name, the suite (regress/suite.c), the baseline file, and
 * the comparison of a new side against a baseline with its reports (text
 * in benchstat's layout, Markdown, JSON).  The runs themselves are the
 * run-matrix engine's (exp/matrix.h), driven by cli/regress_cmd.c. */
#ifndef SCHEDLAB_REGRESS_H
#define SCHEDLAB_REGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "exp/metric.h"
#include "util/util.h"

/* ---- Metrics ---- */

/* The metrics are the registry's (exp/metric.h): any can be gated, by
 * its short name. */
/* A threshold as given: "5%", "5", "0.5%" (percent; 0 to 1000); false if
 * it is not one. */
bool rg_parse_pct(const char *s, double *frac);

/* ---- The suite ---- */

struct rg_case {
	char *name;
	char *policy;
	cJSON *set;            /* knob -> whole number (an object, maybe empty) */
	char *topology;
	char *workload;
	long procs;            /* 0: the topology's PUs (or procs_rule's) */
	int procs_rule;        /* enum gmp_rule: "procs" named a rule */
	/* the OS limits, as the run options: --cpu-quota (0: none),
	 * --cpu-period (0: the default), --cpuset (NULL: none), --load */
	double cpu_quota;
	long cpu_period_ns;
	char *cpuset;
	long load_threads;
	double load_duty;
	long load_period_ns;
	char *exercises;       /* what mechanism it is there for (may be NULL) */
};

struct rg_suite {
	char *name;
	char *description;
	int seeds;             /* seeds (or repetitions natively) per case */
	long seed;             /* the first seed */
	double *threshold;     /* per metric index: a fraction, or NAN: not gated */
	bool *shown;           /* per metric index: in the report */
	struct rg_case *cases;
	int ncases;
	cJSON *json;           /* the suite as read (the baseline keeps it) */
	char *label;           /* where it was read, for messages ("b.json: $.suite") */
};

/* Parses a suite from text (label names it in messages); NULL with one
 * message naming the file, the JSON path and the problem. */
struct rg_suite *rg_suite_parse(const char *label, const char *text, struct err *e);
struct rg_suite *rg_suite_parse_json(const char *label, const cJSON *json, struct err *e);
struct rg_suite *rg_suite_load(const char *path, struct err *e);
/* The bundled default suite (regress/suites/default.json). */
struct rg_suite *rg_suite_default(struct err *e);
const char *rg_suite_default_text(void);
void rg_suite_free(struct rg_suite *s);

/* ---- Values ---- */

/* What one side measured: per case, per metric, per seed (or repetition)
 * a value, NAN where a run did not produce the metric. */
struct rg_side {
	int ncases, nseeds;
	double *v;             /* [case][metric][seed] */
	bool *ran;             /* per case: measured on this side */
	cJSON **host;          /* per case: an array of each repetition's "host" (native), or NULL */
	cJSON **knobs;         /* per case: the effective knobs (report.knobs), or NULL */
	char **variant;        /* per case: "steal:runnext=0" as run */
	bool *open_loop;       /* per case: its workload has an open loop (the report's
				* request_load): its throughput is the load offered */
};

struct rg_side *rg_side_new(int ncases, int nseeds);
void rg_side_free(struct rg_side *s);
static inline double *rg_at(const struct rg_side *s, int c, int m, int k)
{
	return &s->v[((size_t)c * (size_t)metric_count + (size_t)m) * (size_t)s->nseeds + (size_t)k];
}
/* Reads every known metric of a run's report (a store row, exp/store.h)
 * into case c, seed slot k. */
void rg_side_take(struct rg_side *s, int c, int k, const cJSON *row);

/* ---- The baseline file ---- */

struct rg_baseline {
	char *schedlab, *commit;
	bool native;
	struct rg_suite *suite;
	struct rg_side *side;
};

/* Writes the baseline whole or not at all (util/output.h): version,
 * commit, mode, the suite, per case its inputs, knobs and every per-seed
 * value.  false with e set ("--baseline FILE: reason"). */
bool rg_baseline_write(const char *path, const struct rg_suite *s, const struct rg_side *side,
		       bool native,
		       struct err *e);
struct rg_baseline *rg_baseline_load(const char *path, struct err *e);
/* The same from the file's text; path names it in messages. */
struct rg_baseline *rg_baseline_parse(const char *path, const char *text, struct err *e);
void rg_baseline_free(struct rg_baseline *b);

/* ---- The comparison ---- */

struct rg_row {
	int ncase;             /* case index; -1 for the geometric mean */
	double old_med, new_med, old_spread, new_spread;   /* spread: half the range / median */
	double delta;          /* median of per-seed changes (sim), or of medians (native) */
	double p_change;       /* two-sided: is there a change at all */
	double p_gate;         /* one-sided: worse beyond the threshold (NAN: not gated) */
	int n;                 /* pairs (sim) or the smaller side's repetitions (native) */
	bool regression;
	bool open_loop;        /* throughput of an open loop: shown, not gated */
};

struct rg_metric_result {
	int metric;
	double threshold;      /* NAN: shown, not gated */
	struct rg_row *rows;
	int nrows;             /* the cases that have it, then the geomean (if any) */
};

struct rg_result {
	bool native;
	double alpha;
	int nseeds;
	struct rg_metric_result *metrics;
	int nmetrics;
	int nregressions;
	/* gated metrics no case compared has on both sides: their gate
	 * could not fire, which the reports say */
	int *unreported;
	int nunreported;
	/* gated throughput rows left ungated: the cases' open loops offer
	 * the load, so their throughput is not work done */
	int open_loop_rows;
	/* what was compared, for the reports */
	const struct rg_suite *suite;
	const struct rg_baseline *base;
	const struct rg_side *side;
	char *new_desc;        /* "-p steal:runnext=0 (the cases of steal)" */
};

struct rg_result *rg_compare(const struct rg_baseline *base, const struct rg_side *side,
			     const double *threshold, double alpha, const char *new_desc);
void rg_result_free(struct rg_result *r);

void rg_report_text(FILE *f, const struct rg_result *r);
void rg_report_markdown(FILE *f, const struct rg_result *r);
cJSON *rg_report_json(const struct rg_result *r);
/* One line per regression on f: "regression: request_p99 of steal-rpc ..." */
void rg_report_regressions(FILE *f, const char *prefix, const struct rg_result *r);
/* One line per gated metric no case reports: "request_p99: gated, but ..." */
void rg_report_unreported(FILE *f, const char *prefix, const struct rg_result *r);
/* The line saying which throughput rows were not gated and why (none: nothing). */
void rg_report_open_loops(FILE *f, const char *prefix, const struct rg_result *r);

#endif
