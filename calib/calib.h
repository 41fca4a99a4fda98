/* Calibration: microbenchmarks of this machine (OS, caches, memory, the
 * native runtime) and the topology file they make (docs/calibration.md).
 *
 * calib.c runs the phases and writes the file; os.c, mem.c and rt.c hold
 * the probes; stats.c the samples, the budgets, the host's load and the
 * progress line.  Every probe returns medians over many samples with their
 * p10/p90 spread, never one timing. */
#ifndef SCHEDLAB_CALIB_H
#define SCHEDLAB_CALIB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>
#include <hwloc.h>

#include "topologies/topo.h"

struct cal_options {
	bool quick;       /* a few seconds: fewer samples, smaller buffers */
	double seconds;   /* the whole run's time budget */
	FILE *progress;   /* stderr, or NULL for silence */
};

/* Runs every probe and returns the calibration file's JSON object (the
 * caller frees it), or NULL with a message in e. */
cJSON *cal_run(const struct cal_options *o, struct err *e);

/* The working-set sweep's levels (mem.c): given ns per load at growing
 * working sets (at most 128 points), the plateaus' latencies, one per
 * cache level and memory last, each above the one before; at most
 * maxsteps + 1 of them.  Returns their number. */
int cal_levels(const double *lat, int n, int maxsteps, double *level_ns);

/* ---- Samples (stats.c) ---- */

struct cal_stat {
	double median, p10, p90;
	int samples;
	char method[320];
};

struct cal_samples {
	double *v;
	int n, cap;
};
void cal_add(struct cal_samples *s, double v);
void cal_samples_free(struct cal_samples *s);
/* Median, p10, p90 of s into out (samples 0: all three NaN). */
void cal_summarize(const struct cal_samples *s, struct cal_stat *out);
void cal_method(struct cal_stat *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int64_t cal_now(void);       /* CLOCK_MONOTONIC, ns */
int64_t cal_thread_cpu(void); /* CLOCK_THREAD_CPUTIME_ID, ns */

/* How many samples to take: at least min, at most max, and more than min
 * only while the phase's time lasts -- but none past hard, the phase's end
 * plus its length again, even below min, once there is one: on a busy host a probe's minimum
 * could take a minute where --quick asks for 3 s (the figure then has the
 * samples it got, and their count in its provenance). */
struct cal_budget {
	int min, max;
	int64_t deadline;
	int64_t hard;
	int64_t start;   /* when the probe began (cal_budget) */
};
/* A probe that reaches its hard deadline with no sample yet tries this
 * long more for one (from the deadline, or from its start if later): a
 * figure needs a sample, but a probe whose samples are all refused (a
 * context switch measured below a yield on a loaded host) must end. */
#define CAL_FIRST_SAMPLE_NS ((int64_t)5000000000)
bool cal_more(const struct cal_budget *b, int n);

/* Bytes of the process's memory in transparent huge pages (smaps_rollup):
 * whether MADV_HUGEPAGE was granted. */
uint64_t cal_anon_huge_bytes(void);

/* Binds the calling thread to the PU with OS index os_pu; false if hwloc
 * cannot. */
bool cal_bind_pu(hwloc_topology_t hw, unsigned os_pu);

/* ---- The CPU the process got (stats.c) ----
 * Sums of the process's threads' schedstat (CPU time, time runnable but
 * waiting); threads the probes start add theirs when they end
 * (cal_thread_done), so a phase's difference counts them too. */
struct cal_usage {
	int64_t cpu_ns, wait_ns, wall_ns;
};
void cal_usage_now(struct cal_usage *u);
void cal_thread_done(void);
/* Spins one thread per PU for ms milliseconds: the share of a PU each got
 * (1 on an idle host). */
double cal_host_share(hwloc_topology_t hw, const struct topo *t, int ms);

/* ---- Progress on stderr (stats.c) ---- */
struct cal_progress {
	FILE *f;
	bool tty;
	int phase, nphases;
	const char *name;
	int64_t start, phase_start, last_draw;
};
void cal_progress_phase(struct cal_progress *p, const char *name);
void cal_progress_step(struct cal_progress *p, double frac);
void cal_progress_end_phase(struct cal_progress *p, const char *summary);
void cal_progress_done(struct cal_progress *p);

/* ---- The probes ---- */

struct cal_ctx {
	hwloc_topology_t hw;
	struct topo *t;        /* this machine, from hwloc's export */
	const struct cal_options *o;
	struct cal_progress prog;
	int64_t phase_deadline, phase_hard;
	cJSON *latency, *provenance, *measurements;
	cJSON *cache_sizes;       /* the sweep's effective sizes, or NULL */
	char summary[256];        /* the phase's figures, for its progress line */
	/* what later phases need from earlier ones */
	uint64_t largest_cache;   /* the sweep's largest effective cache, bytes */
	double wakeup_core_ns;    /* for timer_slack */
	double dram_local_ns;     /* for mlp */
};
/* A budget of [min, max] samples ending at the phase's deadline (fewer
 * with --quick). */
struct cal_budget cal_budget(const struct cal_ctx *c, int min, int max);
/* Records a measured figure: its value under latency at path (section.key,
 * as "os_ns.wakeup.group") and its provenance entry; nothing if it has no
 * sample (the model's default is then filled in as an assumption). */
void cal_figure(struct cal_ctx *c, const char *path, const struct cal_stat *st);
/* Only the provenance entry, for a figure set elsewhere. */
void cal_provenance(struct cal_ctx *c, const char *path, const struct cal_stat *st);
/* A figure this machine cannot measure: the model's value, marked as an
 * assumption with note. */
void cal_assumed(struct cal_ctx *c, const char *path, double v, const char *note);
/* A raw measurement under "measurements" (name: {median, p10, p90,
 * samples, method}). */
cJSON *cal_measurement(struct cal_ctx *c, const char *name, const struct cal_stat *st);
cJSON *cal_stat_json(const struct cal_stat *st);
/* A figure as the file writes it (4 significant digits at most, whole
 * from 1000 on): a figure and its spread are rounded alike, so the
 * median never falls outside p10-p90 in the file. */
double cal_rounded(double v);
/* A measurement of several points (name: {method, points: []}); returns
 * the array for cal_point, which adds st with its parameter (a number:
 * "asked_ns", "bytes", "node") and returns the point. */
cJSON *cal_points(struct cal_ctx *c, const char *name, const char *method);
cJSON *cal_point(cJSON *points, const struct cal_stat *st, const char *param, double value);

/* os.c */
bool cal_os_probes(struct cal_ctx *c, struct err *e);
/* mem.c */
bool cal_c2c_probes(struct cal_ctx *c, struct err *e);
bool cal_cache_probes(struct cal_ctx *c, struct err *e);
bool cal_dram_probes(struct cal_ctx *c, struct err *e);
/* rt.c */
bool cal_rt_probes(struct cal_ctx *c, struct err *e);

#endif
