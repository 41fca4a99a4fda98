/* Execution contexts: stack set-up and the sanitizer-aware switch. */
#include "arch/ctx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef CTX_ASAN
#include <sanitizer/asan_interface.h>
#endif
#ifdef CTX_TSAN
#include <sanitizer/tsan_interface.h>
#endif
#ifdef HAVE_VALGRIND_H
#include <valgrind/valgrind.h>
#endif

void ctx_start(void);

#if defined(CTX_ASAN) || defined(CTX_TSAN)
/* The context being left, so that a context's first code can complete the
 * sanitizer hand-shake on its behalf. */
static _Thread_local struct ctx *ctx_leaving;
#endif

static void ctx_boot(void *arg)
{
	struct ctx *c = arg;
#ifdef CTX_ASAN
	const void *lo;
	size_t size;
	__sanitizer_finish_switch_fiber(NULL, &lo, &size);
	if (ctx_leaving && !ctx_leaving->stack_lo) {
		ctx_leaving->stack_lo = lo;
		ctx_leaving->stack_size = size;
	}
#endif
	c->fn(c->arg);
	abort(); /* entries end with ctx_exit_to(), never by returning */
}

void ctx_make(struct ctx *c, void *stack, size_t size, void (*fn)(void *), void *arg)
{
	uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
	/* Nine slots: six saved registers, ctx_start as the return address and
	 * two of padding, so that ctx_start runs with rsp 16-byte aligned and
	 * the entry sees the alignment a call gives (rsp = 8 mod 16). */
	uint64_t *sp = (uint64_t *)(top - 9 * sizeof(uint64_t));

#ifdef CTX_ASAN
	/* The memory may have been another context's stack whose frames never
	 * returned (a context that ended, or was abandoned, while deep in
	 * calls): clear their poisoned redzones. */
	__asan_unpoison_memory_region(stack, size);
#endif
	memset(c, 0, sizeof(*c));
	c->fn = fn;
	c->arg = arg;
	c->stack_lo = stack;
	c->stack_size = size;
	sp[0] = 0;                          /* r15 */
	sp[1] = 0;                          /* r14 */
	sp[2] = (uint64_t)(uintptr_t)c;     /* r13: ctx_boot's argument */
	sp[3] = (uint64_t)(uintptr_t)ctx_boot; /* r12: entry */
	sp[4] = 0;                          /* rbx */
	sp[5] = 0;                          /* rbp: ends frame-pointer walks */
	sp[6] = (uint64_t)(uintptr_t)ctx_start;
	sp[7] = 0;
	sp[8] = 0;
	c->sp = sp;
#ifdef CTX_TSAN
	c->tsan_fiber = __tsan_create_fiber(0);
#endif
#ifdef HAVE_VALGRIND_H
	c->valgrind_stack = VALGRIND_STACK_REGISTER(stack, (char *)stack + size);
#endif
}

void ctx_init_thread(struct ctx *c)
{
	memset(c, 0, sizeof(*c));
#ifdef CTX_TSAN
	c->tsan_fiber = __tsan_get_current_fiber();
#endif
}

void ctx_destroy(struct ctx *c)
{
#ifdef CTX_ASAN
	/* A context that ended or was abandoned deep in calls leaves its frames'
	 * redzones poisoned in the shadow, and munmap does not clear them: the
	 * next mapping at that address (a trace chunk, say) would be reported as
	 * a stack underflow on its first write. */
	if (c->fn && c->stack_lo)
		__asan_unpoison_memory_region(c->stack_lo, c->stack_size);
#endif
#ifdef CTX_TSAN
	if (c->fn && c->tsan_fiber)
		__tsan_destroy_fiber(c->tsan_fiber);
	c->tsan_fiber = NULL;
#endif
#ifdef HAVE_VALGRIND_H
	if (c->valgrind_stack)
		VALGRIND_STACK_DEREGISTER(c->valgrind_stack);
	c->valgrind_stack = 0;
#endif
	(void)c;
}

#if defined(CTX_ASAN) || defined(CTX_TSAN)
/* Completes a switch back into from.  Out of line so that ctx_leaving is
 * looked up on the thread that resumed from, which is not always the one
 * that left it: the native runtime resumes a G on whichever M runs it, and
 * a compiler may keep a thread-local's address across the switch. */
static __attribute__((noinline)) void ctx_resumed(struct ctx *from)
{
#ifdef CTX_ASAN
	const void *lo;
	size_t size;
	__sanitizer_finish_switch_fiber(from->asan_fake, &lo, &size);
	if (ctx_leaving && !ctx_leaving->stack_lo) {
		ctx_leaving->stack_lo = lo;
		ctx_leaving->stack_size = size;
	}
#endif
	(void)from;
}

static void ctx_switch_common(struct ctx *from, struct ctx *to, int final)
{
	ctx_leaving = from;
#ifdef CTX_ASAN
	__sanitizer_start_switch_fiber(final ? NULL : &from->asan_fake,
				       to->stack_lo, to->stack_size);
#endif
#ifdef CTX_TSAN
	__tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
	ctx_swap(&from->sp, to->sp);
	ctx_resumed(from);
	(void)final;
}

void ctx_switch(struct ctx *from, struct ctx *to)
{
	ctx_switch_common(from, to, 0);
}

void ctx_exit_to(struct ctx *from, struct ctx *to)
{
	ctx_switch_common(from, to, 1);
}
#endif
