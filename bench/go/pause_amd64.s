#include "textflag.h"

// func pause()
// One PAUSE, as natp_work's __builtin_ia32_pause between clock reads.
TEXT ·pause(SB),NOSPLIT,$0-0
	PAUSE
	RET

// func rawGettid() int
// gettid(2) with no preemption point: Go cannot switch goroutines inside
// an assembly function, so nothing but the OS comes between the clock
// read before it and the thread's CPU time read after it.
TEXT ·rawGettid(SB),NOSPLIT,$0-8
	MOVQ	$186, AX	// SYS_gettid
	SYSCALL
	MOVQ	AX, ret+0(FP)
	RET

// func rawThreadCPU(ts *syscall.Timespec)
// clock_gettime(CLOCK_THREAD_CPUTIME_ID, ts), as rawGettid.
TEXT ·rawThreadCPU(SB),NOSPLIT,$0-8
	MOVQ	$228, AX	// SYS_clock_gettime
	MOVQ	$3, DI		// CLOCK_THREAD_CPUTIME_ID
	MOVQ	ts+0(FP), SI
	SYSCALL
	RET
