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

#endif
