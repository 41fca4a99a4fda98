/* Go 1.22+ execution traces: the wire format's event table, shared by the
 * reader (trace/read122.c) and the test encoder that turns Go's text form
 * of a trace into the binary form (tests/trace122/). */
#ifndef SCHEDLAB_TRACE_READ122_H
#define SCHEDLAB_TRACE_READ122_H

#include <stdbool.h>
#include <stdint.h>

#include "util/util.h"

/* Event types of the wire format (the byte before an event's arguments). */
enum t122_type {
	T122_EVENT_BATCH = 1, T122_STACKS, T122_STACK, T122_STRINGS, T122_STRING,
	T122_CPU_SAMPLES, T122_CPU_SAMPLE, T122_FREQUENCY,
	T122_PROCS_CHANGE, T122_PROC_START, T122_PROC_STOP, T122_PROC_STEAL, T122_PROC_STATUS,
	T122_GO_CREATE, T122_GO_CREATE_SYSCALL, T122_GO_START, T122_GO_DESTROY,
	T122_GO_DESTROY_SYSCALL, T122_GO_STOP, T122_GO_BLOCK, T122_GO_UNBLOCK,
	T122_GO_SYSCALL_BEGIN, T122_GO_SYSCALL_END, T122_GO_SYSCALL_END_BLOCKED, T122_GO_STATUS,
	T122_STW_BEGIN, T122_STW_END,
	T122_GC_ACTIVE, T122_GC_BEGIN, T122_GC_END, T122_GC_SWEEP_ACTIVE, T122_GC_SWEEP_BEGIN,
	T122_GC_SWEEP_END, T122_GC_MARK_ASSIST_ACTIVE, T122_GC_MARK_ASSIST_BEGIN,
	T122_GC_MARK_ASSIST_END, T122_HEAP_ALLOC, T122_HEAP_GOAL,
	T122_GO_LABEL, T122_USER_TASK_BEGIN, T122_USER_TASK_END, T122_USER_REGION_BEGIN,
	T122_USER_REGION_END, T122_USER_LOG,
	/* Go 1.23 */
	T122_GO_SWITCH, T122_GO_SWITCH_DESTROY, T122_GO_CREATE_BLOCKED, T122_GO_STATUS_STACK,
	T122_EXPERIMENTAL_BATCH,
	/* Go 1.25 */
	T122_SYNC, T122_CLOCK_SNAPSHOT,
	/* Go 1.26: a lone byte between generations, outside any batch */
	T122_END_OF_GENERATION,
	T122_NTYPES
};

#define T122_MAX_ARGS 5
/* One event type: its name in Go's text form, its arguments' names (the
 * first, "dt", is the time since the previous event of the batch when
 * timed), and what follows the arguments: stack frames (4 numbers each,
 * as many as the second argument says) or bytes (a length, then them). */
struct t122_spec {
	const char *name;
	const char *args[T122_MAX_ARGS];
	int nargs;
	bool timed, stack, data;
	int since; /* the first Go 1.x whose traces have it */
};

/* The spec of type in a trace of Go 1.minor, NULL if that version has no
 * such event. */
const struct t122_spec *t122_spec(unsigned type, int minor);
/* The type named name in Go 1.minor's text form, -1 if none. */
int t122_type_named(const char *name, int minor);
/* Whether this build reads traces whose header says Go 1.minor. */
bool t122_minor_known(int minor);

#endif
