/* The run-matrix engine [docs/experiments.md]: a matrix of runs -- cells
 * of (variant, policy + knobs, topology, workload, procs, seed, sim or
 * native, limits) -- each run in a process of its own, up to -j N at once,
 * each giving back one row of the results store (exp/store.h) in cell
 * order.  A run that deadlocks, panics, is cut at a limit, is refused by
 * the runtime or whose process dies (a signal, an exit without a row) is
 * that row's status and message; the other runs go on.  compare, sweep
 * and regress make their runs here.
 *
 * In the library: it runs each cell with run/run.h, so tests and any
 * command can run a matrix in-process. */
#ifndef SCHEDLAB_EXP_MATRIX_H
#define SCHEDLAB_EXP_MATRIX_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/policy.h"
#include "run/run.h"
#include "util/progress.h"

struct topo;
struct workload;

/* The most runs at once -j takes. */
#define EXP_MAX_JOBS 1024

/* One run of a matrix.  The pointers are the caller's and must outlive
 * exp_matrix_run: the runs are forked from the caller's process, so a
 * topology or workload loaded once serves every cell that names it. */
struct exp_cell {
	long index;                    /* the row's "index": its place in the whole matrix */
	const char *variant;           /* the row's "variant": the label -p gave, "steal:runnext=0" */
	const struct rt_api *api;      /* &sim__rt_api or &nat__rt_api (mode "native") */
	const struct pol_ops *pol;
	const int64_t *knobs;          /* every knob of pol, the values run */
	const cJSON *set;              /* the row's "inputs.set": the knobs given, {"runnext": 0};
				        * NULL: {} */
	const struct topo *topo;
	const struct workload *wl;
	int procs;                     /* the P count run (the topology's PUs if not given) */
	struct run_gmp gmp;            /* the --procs rule that chose it, and what it read */
	struct rt_os os;               /* the OS the run lives under (its cpuset the caller's) */
	uint64_t seed;
	/* --max-sim-time, --max-wall-time, --max-memory (0: the default) */
	int64_t max_sim_ns, max_wall_ns;
	uint64_t max_memory;
	bool why;                      /* the report's "why" (run --why: simulated only) */
	/* The row's "runs": how many runs the whole matrix has, when the
	 * cells given are only part of it (sweep --only); 0: the cells given
	 * are the whole matrix (exp_cell_run: 1). */
	long runs;
};

/* How a matrix is run. */
struct exp_opts {
	const char *cmd;               /* "compare", "sweep": messages say "schedlab CMD: ..." */
	int jobs;                      /* runs at once; 0: exp_default_jobs */
	/* The row's "matrix": 16 hex digits naming the matrix the cells belong
	 * to (exp_matrix_id); NULL: exp_matrix_id of the cells given. */
	const char *matrix;
	/* Progress on stderr (util/progress.h): redrawn on a terminal, else
	 * a line now and then; PROGRESS_AUTO (0) unless set. */
	enum progress_when progress;
	/* Called with each run's row, in cell order, as soon as it and every
	 * row before it are done (a store written as the runs end, so that an
	 * interrupted matrix keeps its first rows); NULL: not called. */
	void (*row_done)(void *ctx, long i, const cJSON *row);
	void *ctx;
};

/* One run's outcome. */
struct exp_run {
	cJSON *row;                    /* the store's row (exp/store.h), never NULL */
	/* For a run whose status is not "ok": what `schedlab run` would have
	 * printed for it -- its text summary (stdout) and its messages
	 * (stderr: the panic, the deadlock's blocked goroutines, the cut) --
	 * or "" where there is none (a crashed run's summary).  NULL for an
	 * ok run. */
	char *summary, *messages;
};

/* The -j default: the online CPUs, but no more runs than the available
 * memory (MemAvailable) holds at max_memory each (0: the largest of the
 * cells' budgets, 4 GiB for a cell that gives none), and 1 if any cell is
 * native (parallel native runs take each other's
 * CPUs, and their timings mean nothing).  At least 1. */
int exp_default_jobs(const struct exp_cell *cells, long n, uint64_t max_memory);

/* The matrix's fingerprint, 16 hex digits and a NUL, from every cell's
 * inputs in order (mode, variant, policy, knobs run, topology and workload
 * by name, procs, seed, limits, and the procs rule and OS limits where
 * given): the same cells give the same id on any machine. */
void exp_matrix_id(const struct exp_cell *cells, long n, char id[17]);

/* Runs the cells, o->jobs at a time, and returns their outcomes in cell
 * order (n of them; exp_runs_free frees them).  Never fails for a run's
 * sake; a fork or pipe that cannot be made is the run's "error" row. */
struct exp_run *exp_matrix_run(const struct exp_cell *cells, long n, const struct exp_opts *o);
void exp_runs_free(struct exp_run *runs, long n);

/* The one run of a cell, in this process, as its row: what a child of
 * exp_matrix_run does (summary and messages as there, if not NULL; cmd
 * names the command in the messages, "schedlab CMD: the run reached its
 * ... limit"). */
cJSON *exp_cell_run(const struct exp_cell *cell, const char *matrix, const char *cmd,
		    char **summary, char **messages);

/* The first run, in cell order, whose status is not "ok"; -1 if none. */
long exp_runs_first_failed(const struct exp_run *runs, long n);
/* A row's "status" and "exit_status". */
const char *exp_row_status(const cJSON *row);
int exp_row_exit_status(const cJSON *row);

#endif
