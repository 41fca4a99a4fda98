/* `schedlab report`: a results store (JSON Lines, one row per run: the
 * contract in docs/experiments.md and docs/reports.md) made into a report
 * people look at -- HTML (one self-contained file) or Markdown (plus a
 * folder of SVGs) -- with gnuplot drawing the figures.
 *
 * The store is read one line at a time and folded into groups (variant,
 * topology, workload, procs, mode) as it is read: memory grows with the
 * number of groups, not of rows, so a store of thousands of runs of
 * 60 KiB each is never held whole. */
#ifndef SCHEDLAB_REPORT_H
#define SCHEDLAB_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/policy.h"
#include "exp/metric.h"
#include "util/hist.h"
#include "util/util.h"

enum rep_format { REP_HTML, REP_MD };

/* The statuses a row may have, in the contract's order. */
enum rep_status { RS_OK, RS_DEADLOCK, RS_PANIC, RS_LIMIT, RS_CRASHED, RS_ERROR, RS_N };
extern const char *const rep_status_names[RS_N];



/* Running mean and variance (Welford): a metric over a group's seeds
 * without keeping the values. */
struct rep_acc {
	int n;
	double mean, m2;
};
void rep_acc_add(struct rep_acc *a, double x);
/* The 95% Student-t half-width of the mean; 0 below two values. */
double rep_acc_ci95(const struct rep_acc *a);

/* A histogram kept sparse (a group's seeds added up): its non-empty
 * buckets' indexes and counts, as struct hist would hold them. */
struct rep_hist {
	uint64_t count, max;
	double sum;
	uint32_t n;
	uint16_t *idx;
	uint64_t *cnt;
};
/* Expands h into the full histogram out. */
void rep_hist_expand(const struct rep_hist *h, struct hist *out);

#define REP_NDIST 2          /* sched_latency_ns, request_latency_ns */
#define REP_NCPU 7           /* on: user sched spin lock_wait; off: lock_wait syscall parked */
extern const char *const rep_dist_paths[REP_NDIST];
extern const char *const rep_cpu_names[REP_NCPU];

/* The headline metrics (registry paths): each ok row's values of these
 * are kept with its seed, so that two variants can be compared seed by
 * seed (a paired test) -- a few numbers a row, where the rest of a row is
 * folded away. */
#define REP_NHEAD 5
extern const char *const rep_head_paths[REP_NHEAD];
struct rep_seeded {
	uint64_t seed;
	double v[REP_NHEAD];           /* NAN where the row has no such metric */
};

/* One group of rows: a variant on one topology, workload, P count and mode. */
struct rep_group {
	char *variant, *topology, *workload, *mode, *policy;
	long procs;
	int nset;                      /* the knobs given (inputs.set), in the row's order */
	char **set_keys;
	double *set_vals;
	int nrows, nstatus[RS_N];
	struct rep_acc *m;             /* [metric_count], over the ok rows */
	char *rate_unit;               /* throughput's unit, the first ok row's */
	struct rep_hist dist[REP_NDIST];
	double cpu_ns[REP_NCPU];       /* sums over ok rows with a cpu breakdown */
	int ncpu;
	int nnodes, ndram;             /* the DRAM matrix, summed over ndram ok rows */
	double *dram;
	uint64_t first_seed, last_seed;
	struct rep_seeded *seeded;     /* the ok rows', in the store's order */
	int nseeded, capseeded;
	/* rows run with --why: a G's mean wait, then its part in each cause
	 * (the report's why.all, REP_NWHY - 1 causes in the core's order);
	 * NULL if no row of the group has it */
	struct rep_acc *why;
	/* ... and a request's mean latency and its causes (why.requests,
	 * REP_NWHYRQ - 1 of them); NULL if no row has it */
	struct rep_acc *whyrq;
};
#define REP_NWHY (RT_WHY__COUNT + 1)
#define REP_NWHYRQ (RT_WHYRQ__COUNT + 1)

/* A row that did not complete, kept for the report's list (the first
 * REP_MAX_FAILED of them; the others are counted). */
struct rep_failed {
	long line;
	char *variant, *topology, *workload, *status, *message;
	long procs, exit_status;
	uint64_t seed;
};
#define REP_MAX_FAILED 200

struct rep_store {
	char *file;
	long rows, lines;
	int nstatus[RS_N];
	struct rep_group **groups;     /* in order of first appearance */
	int ngroups, cap;
	int *hash;                     /* open addressing over groups, -1 empty */
	int hash_cap;
	struct rep_failed failed[REP_MAX_FAILED];
	int nfailed;
	/* the store's builds and matrices, distinct, first few */
	char *versions[8];
	int nversions;
	bool more_versions;
	char *matrices[8];
	int nmatrices;
	bool more_matrices;
	struct hist *scratch;
};

/* Reads the store at path ("-": stdin) into s, a run given twice once;
 * false with a message naming the file, the line and the JSON path if it
 * is not a store, or both lines if two different rows are of one run
 * (merge's rule, exp_keys_dedupe). */
bool rep_store_read(struct rep_store *s, const char *path, struct err *e);
void rep_store_free(struct rep_store *s);

struct rep_opts {
	const char *out;               /* the report file */
	enum rep_format format;
	const char *plot_script;       /* also write gnuplot's script here, or NULL */
	const char *gnuplot;           /* the program, "gnuplot" unless set */
};

/* Writes the report of s whole or not at all (gnuplot's work in a
 * temporary folder beside o->out, removed whatever happens); 0, 2 after a
 * message in e, or 128 + N when signal N (SIGINT, SIGTERM) came
 * meanwhile: gnuplot killed and reaped, nothing written. */
int rep_write(const struct rep_store *s, const struct rep_opts *o, struct err *e);

/* The folder of a Markdown report's figures: "DIR/report.md" ->
 * "DIR/report-figures" (malloc'd). */
char *rep_figures_dir(const char *md_path);

/* Limits that keep a report of a big store bounded in size and time. */
#define REP_MAX_SCENARIO_FIGS 48  /* scenarios drawn with figures; the rest as tables */
#define REP_MAX_HEATMAPS 12       /* heat maps per scenario (variants) */
#define REP_MAX_CURVES 12         /* curves per figure */
#define REP_CDF_POINTS 200        /* grid of a CDF's fractions (plus the tail's) */

#endif
