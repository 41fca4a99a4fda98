/* Writers of a run's execution trace (core/trace.h) to files: Go's own
 * execution-trace format as Go 1.22 and later write it ("go 1.22 trace",
 * go122.c) and as Go 1.19 wrote it ("go 1.19 trace", go.c), both opened
 * by `go tool trace`, and Chrome's JSON trace-event format (Perfetto,
 * chrome://tracing).  Compiled once; they read only struct rt_trace. */
#ifndef SCHEDLAB_TRACE_TRACE_H
#define SCHEDLAB_TRACE_TRACE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/trace.h"
#include "util/util.h"

/* Each writes the whole trace to f; false on a write error, with the
 * reason in e (the caller names the file). */
bool trace_write_go(FILE *f, const struct rt_trace *t, struct err *e);
bool trace_write_go122(FILE *f, const struct rt_trace *t, struct err *e);
bool trace_write_chrome(FILE *f, const struct rt_trace *t, struct err *e);

/* What a Go writer wrote: the reader's counts (goroutines created,
 * starts of the run's Gs, blocks, unblocks, system calls, user logs) and
 * what it had to repair or leave out to keep the trace consistent for
 * `go tool trace' (natively, clock reads can race with the work they
 * order; a simulated trace needs neither). */
struct trace_go_stats {
	uint64_t events, goroutines, starts, blocks, unblocks, syscalls, logs;
	uint64_t tasks;         /* requests, as user tasks */
	uint64_t repaired, dropped, reattributed, clamped;
	/* go 1.22 only: its generations; starts that are not the run's (a G
	 * back from a system call on a P it did not make it on); events
	 * written later than their time, to order the events of one instant,
	 * and the most any was moved (ns); the policy's logs not shown, made
	 * on a thread that started no G before it let its P go or the run
	 * ended (Go's format has a log written by a running G) */
	uint64_t generations, restarts, shifted, shift_max_ns, logs_left;
};
bool trace_write_go_stats(FILE *f, const struct rt_trace *t, struct trace_go_stats *st,
			  struct err *e);

/* How trace_write_go122_opts cuts generations (0: the default, a second
 * of the run's time and 16 MiB of events; the tests cut them short). */
struct trace_go122_opts {
	int64_t gen_ns;
	size_t gen_bytes;
};
bool trace_write_go122_opts(FILE *f, const struct rt_trace *t, const struct trace_go122_opts *o,
			    struct trace_go_stats *st, struct err *e);

#endif
