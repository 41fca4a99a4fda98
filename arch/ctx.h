/* Execution contexts: the register-only x86-64 switch under the simulator's
 * actors (and, later, the native runtime's goroutines).
 *
 * glibc's swapcontext saves the signal mask with a system call (~300 ns);
 * a context here is just a saved stack pointer, the callee-saved registers
 * living on the stack they belong to, so a switch costs a handful of
 * instructions.  MXCSR and the x87 control word are callee-saved by the ABI
 * too; nothing in schedlab changes them, so they are not saved.
 *
 * Sanitizers: AddressSanitizer and ThreadSanitizer must be told about stack
 * switches or they report false errors; ctx_switch() does that when built
 * with them and compiles to the bare switch otherwise.  valgrind is told
 * where each context's stack is (a no-op outside valgrind), or it takes a
 * switch for a huge stack allocation and reports the frames on the new
 * stack as uninitialised. */
#ifndef SCHEDLAB_ARCH_CTX_H
#define SCHEDLAB_ARCH_CTX_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define CTX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CTX_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define CTX_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CTX_TSAN 1
#endif
#endif

struct ctx {
	void *sp;                 /* saved stack pointer; registers are above it */
	void (*fn)(void *);       /* entry of a context made by ctx_make */
	void *arg;
	const void *stack_lo;     /* bounds, for the sanitizers; NULL for a thread's own stack */
	size_t stack_size;
#ifdef CTX_ASAN
	void *asan_fake;
#endif
#ifdef CTX_TSAN
	void *tsan_fiber;
#endif
	unsigned valgrind_stack;  /* valgrind's id for the stack, 0 if none */
};

/* Assembly (arch/x86_64/ctx_swap.S): store the stack pointer in *save, load
 * next, return on the other stack. */
void ctx_swap(void **save, void *next);

/* Prepares c to start fn(arg) on [stack, stack+size) at its first switch-in.
 * fn must never return: a context ends by switching away for good with
 * ctx_exit_to(). */
void ctx_make(struct ctx *c, void *stack, size_t size, void (*fn)(void *), void *arg);

/* Makes c describe the calling thread's own stack (its sp is filled in by the
 * first switch away from it). */
void ctx_init_thread(struct ctx *c);

/* Releases sanitizer state of a context made by ctx_make (not needed, and a
 * no-op, in plain builds). */
void ctx_destroy(struct ctx *c);

#if defined(CTX_ASAN) || defined(CTX_TSAN)
void ctx_switch(struct ctx *from, struct ctx *to);
void ctx_exit_to(struct ctx *from, struct ctx *to);
#else
/* Saves the running context into from and resumes to. */
static inline void ctx_switch(struct ctx *from, struct ctx *to)
{
	ctx_swap(&from->sp, to->sp);
}

/* Like ctx_switch, for a context that will never be resumed. */
static inline void ctx_exit_to(struct ctx *from, struct ctx *to)
{
	ctx_swap(&from->sp, to->sp);
}
#endif

#endif
