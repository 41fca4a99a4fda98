/* The child-process pool: n jobs, each run in a forked child of the
 * caller, a fixed number at once.  Every command that runs work in
 * children goes through it: the run-matrix engine (exp/matrix.c),
 * explore's schedules (exp/explore.c) and the hwloc XML parser's
 * sandbox (topologies/topo_hwloc.c).
 *
 * A child is forked from the caller, so it inherits everything loaded
 * (topologies, workloads); it runs ops->run(ctx, i, fd), writes its
 * result to fd (a pipe), and _exits with what run returns.  It dies with
 * the caller (proc_die_with_parent): a killed command leaves nothing
 * running.  With ops->capture its stdout and stderr go to a memory file
 * of the parent's, so that parallel children never interleave on the
 * terminal and a child that dies says why.
 *
 * The parent hands each job's end to ops->done in job order, 0, 1, 2...,
 * whatever order the children end in: a report made from the ends is the
 * same at any -j.  done or halt may stop the pool; the pool kills and
 * reaps every child still running before pool_run returns, on every path. */
#ifndef SCHEDLAB_UTIL_POOL_H
#define SCHEDLAB_UTIL_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How one job ended, as the parent saw it. */
struct pool_end {
	/* NULL: the child ran and status is waitpid's.  Else the call that
	 * failed ("fork", "pipe", "memfd_create": the job never ran; "poll":
	 * the pool could not follow it and killed it), errno in err. */
	const char *what;
	int err;
	int status;
	bool killed;                   /* by the pool: watch asked, or past max_data */
	/* What the child wrote to its fd, NUL-terminated (at most max_data
	 * bytes); done may take it (and set data to NULL). */
	char *data;
	size_t len;
	/* With capture: the last 64 KiB of its stdout and stderr,
	 * NUL-terminated ("" without capture). */
	char *out;
	size_t outlen;
};

struct pool_ops {
	long n;                        /* jobs, numbered 0 to n-1 */
	/* Children at once; fewer if the descriptors allowed (RLIMIT_NOFILE)
	 * would not hold them, and never more than n.  At least 1. */
	int jobs;
	bool capture;                  /* the child's stdout and stderr kept (end->out) */
	size_t max_data;               /* a child that writes more is killed; 0: no bound */
	/* In the child: runs job i, its result written to fd; returns the
	 * child's exit status. */
	int (*run)(void *ctx, long i, int fd);
	/* In the parent, in job order: job i has ended.  false stops the
	 * pool: no job starts any more, the running ones are killed. */
	bool (*done)(void *ctx, long i, struct pool_end *end);
	/* In the parent, every tick_ms while children run (0: never): tick
	 * with the count of jobs ended and of children running (a progress
	 * line), and watch for each running child: true kills it (a limit
	 * it is past).  Either may be NULL. */
	int tick_ms;
	void (*tick)(void *ctx, long ended, int running);
	bool (*watch)(void *ctx, long i, pid_t pid);
	/* In the parent, before jobs start and each time the pool wakes (at
	 * least every tick_ms, if set; a signal caught wakes it too): true
	 * stops the pool as done's false does, once the jobs already ended
	 * have been handed to done in order.  NULL: never. */
	bool (*halt)(void *ctx);
	void *ctx;
};

/* In a child: writes all of buf to fd (the pool's pipe), through short
 * writes and interruptions; false if the pipe is gone. */
bool pool_write(int fd, const void *buf, size_t n);

/* Runs the jobs; returns how many were handed to done (n unless done
 * stopped the pool).  SIGCHLD is its default while it runs, whatever the
 * caller's (an ignored SIGCHLD would have the kernel reap the children
 * and their statuses lost). */
long pool_run(const struct pool_ops *ops);

/* The default -j: the online CPUs, at most max, and no more than the
 * available memory holds at bytes_each (0: no memory bound).  At least 1. */
int pool_default_jobs(int max, uint64_t bytes_each);

#endif
