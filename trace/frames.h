/* The frames both Go trace writers (go.c, Go 1.19's format; go122.c, Go
 * 1.22's) give the events' stacks: a workload's program labels first,
 * then the runtime's own doings, and a stack of at most two of them. */
#ifndef SCHEDLAB_TRACE_FRAMES_H
#define SCHEDLAB_TRACE_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace.h"

enum {
	RF_RUNTIME, RF_TIMER, RF_NETPOLL, RF_SYSCALL, RF_WAKE, RF_MAIN, RF__COUNT
};

/* Frame f's function name: a label of the trace, or a runtime frame. */
static inline const char *trace_frame_name(const struct rt_trace *t, size_t f)
{
	static const char *const rt_frames[RF__COUNT] = {
		"runtime", "runtime.timer", "runtime.netpoll", "runtime.exitsyscall",
		"runtime.ready", "runtime.main",
	};
	return f < t->nlabels ? t->labels[f] : rt_frames[f - t->nlabels];
}

/* The runtime frame which (RF_*) among t's frames. */
static inline size_t trace_rt_frame(const struct rt_trace *t, int which)
{
	return t->nlabels + (size_t)which;
}

/* A stack of frames top (innermost) and bottom (SIZE_MAX: none), made
 * canonical -- label 0 is no frame, and no frame at all is "runtime" --
 * and its key among a trace's stacks. */
static inline uint64_t trace_stack_key(const struct rt_trace *t, size_t *top, size_t *bottom)
{
	if (*top == *bottom || (*bottom != SIZE_MAX && *bottom == 0))
		*bottom = SIZE_MAX;
	if (*top == 0 && *bottom != SIZE_MAX) {
		*top = *bottom;
		*bottom = SIZE_MAX;
	}
	if (*top == 0)
		*top = trace_rt_frame(t, RF_RUNTIME);
	return (uint64_t)*top << 32 | (*bottom == SIZE_MAX ? 0xffffffffu : (uint32_t)*bottom);
}

/* A PC of its own per function: the tools key frames on PCs. */
static inline uint64_t trace_frame_pc(size_t f)
{
	return 0x400000 + 0x100 * (uint64_t)f;
}

#endif
