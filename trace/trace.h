/* Writers of a run's execution trace (core/trace.h) to files: Go's own
 * execution-trace format as Go 1.19 writes it ("go 1.19 trace", opened by
 * `go tool trace`), and Chrome's JSON trace-event format (Perfetto,
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
bool trace_write_chrome(FILE *f, const struct rt_trace *t, struct err *e);

/* What trace_write_go wrote: the reader's counts (goroutines created,
 * starts of the run's Gs, blocks, unblocks, system calls, user logs) and
 * what it had to repair or leave out to keep the trace consistent for
 * `go tool trace' (natively, clock reads can race with the work they
 * order; a simulated trace needs neither). */
struct trace_go_stats {
	uint64_t events, goroutines, starts, blocks, unblocks, syscalls, logs;
	uint64_t tasks;         /* requests, as user tasks */
	uint64_t repaired, dropped, reattributed, clamped;
};
bool trace_write_go_stats(FILE *f, const struct rt_trace *t, struct trace_go_stats *st,
			  struct err *e);

#endif
