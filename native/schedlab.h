/* schedlab's native runtime for C programs: goroutines, channels, select,
 * WaitGroup, Mutex, sleep, blocking system calls and a network poller,
 * scheduled M:N on this machine's threads by a schedlab policy -- the same
 * scheduler source the simulator runs.
 *
 *   #include "native/schedlab.h"
 *
 *   static void hello(void *arg) { ... sl_go(worker, x); ... }
 *
 *   int main(void)
 *   {
 *           struct sl_options o = { .procs = 2 };
 *           return sl_run(&o, hello, NULL);
 *   }
 *
 * sl_run() starts the runtime, runs fn(arg) as the main goroutine and
 * returns when it returns.  Every other call below is made from inside a
 * goroutine (a function started by sl_run or sl_go); called from anywhere
 * else they abort with a message.
 *
 * What a goroutine may do.  A goroutine is a C function on its own stack
 * of 256 KiB (address space: only the pages it touches cost memory, one
 * for most goroutines).  A goroutine that outgrows it overwrites a canary
 * under it, found the next time it parks, yields or returns: the process
 * then prints "fatal error: stack overflow" and aborts, since the stack
 * under it (another goroutine's) may be corrupt.  A goroutine gives its
 * thread back to the scheduler at the calls below that may wait, and is
 * preempted -- made to give its P to other goroutines after running
 * preempt_ms (10 ms) -- only at the calls that start goroutines, use
 * channels, WaitGroups or mutexes: C code is not interrupted in the
 * middle of a loop, so a goroutine that computes for long without such
 * calls should call sl_gosched() now and then.  Blocking the thread behind the runtime's back
 * (read() on a slow pipe, a pthread mutex held for long) costs a whole P;
 * wrap such calls in sl_syscall_enter()/sl_syscall_exit() so the P can be
 * handed to another thread meanwhile, or use the sl_net_* calls, which park
 * only the goroutine.
 *
 * When main's goroutine returns, sl_run returns once every thread has come
 * back to the scheduler: goroutines still parked are dropped (their stacks
 * freed, nothing run), as a Go program drops them at exit.
 *
 * Errors.  sl_run never exits the process: it returns a status, and the
 * reason (sl_error) is printed on stderr unless options.quiet.  What Go
 * reports with a panic -- a send on a closed channel, closing a closed
 * channel, unlocking an unlocked mutex, a negative WaitGroup counter --
 * ends the run: the goroutine that did it stops there, the others are
 * dropped, and sl_run returns 2 with "panic: ...".  So do the runtime's
 * own limits, as "panic: runtime: ...": a thread that cannot be made
 * ("failed to create new OS thread"), and goroutine stacks ("out of
 * memory", below).  Bad options return 2 with "schedlab: sl_run: ...".
 * If every goroutine is blocked with nothing that could wake one, sl_run
 * returns 1 with Go's "all goroutines are asleep - deadlock!" and the
 * list of blocked goroutines.  Calling the goroutine calls below from
 * outside a goroutine aborts (a bug in the caller), as does a stack
 * overflow.  The one exit left is malloc failing, which Linux's
 * overcommit leaves to address-space limits (ulimit -v): the process
 * exits with status 3 and "schedlab: out of memory (asked for N bytes)".
 *
 * Memory.  Stacks are carved 1,024 at a time from one mapping, so a
 * million goroutines blocked at once need no change to Linux's settings
 * (vm.max_map_count); each costs about 4.3 KiB of memory (its stack's
 * one touched page and its 256-byte G) and 0.5 KiB of the kernel's page
 * tables (docs/native-api.md).
 * Goroutines that have not started yet take no stack.  A run panics
 * with "runtime: out of memory: ..." rather than go on when it would
 * make more than options.max_stacks stacks (default: as many as would
 * fill half of this machine's memory at one page each), when the machine
 * has less than 1/16 of its memory (at most 2 GiB) left available, or
 * when the address space runs out. */
#ifndef SCHEDLAB_H
#define SCHEDLAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The runtime ---- */

struct sl_stats {
	uint64_t goroutines;      /* made, main included */
	uint64_t threads;         /* OS threads started */
	uint64_t steals;          /* Gs taken from other Ps' queues */
	uint64_t parks;           /* times a thread went to sleep for lack of work */
	uint64_t retakes;         /* Ps taken from goroutines in system calls */
	int64_t elapsed_ns;       /* from start to main's return */
	/* The CPU the OS gave the run's threads, as `schedlab run --native`
	 * reports it under "host" (docs/runtime.md, "The CPU a native run
	 * got") */
	int64_t cpu_ns;           /* CPU time they got */
	int64_t run_delay_ns;     /* time runnable, waiting for a CPU; -1: not kept */
	uint64_t involuntary_switches;
	bool host_busy;           /* they waited 10% or more of it: the host was busy */
};

struct sl_options {
	int procs;                /* Ps (GOMAXPROCS); 0: one per processing unit */
	const char *policy;       /* a scheduler policy by name; NULL: "steal" */
	const char *const *set;   /* "knob=value" strings, NULL-terminated; may be NULL */
	uint64_t seed;            /* the scheduler's random choices */
	struct sl_stats *stats;   /* filled in by sl_run if not NULL */
	/* The most goroutine stacks the run may make: one per goroutine that
	 * has started and not finished, and up to 64 per thread kept for
	 * reuse.  0: as many as would fill half of the machine's memory at
	 * one page each. */
	size_t max_stacks;
	bool quiet;               /* print nothing: the reason is left to sl_error() */
};

/* Runs fn(arg) as the main goroutine; returns 0 when it returns, 1 on a
 * deadlock, 2 on a panic (the runtime's limits included) or bad options.
 * The reason is printed on stderr unless opt->quiet, and kept for
 * sl_error().  opt may be NULL (the defaults). */
int sl_run(const struct sl_options *opt, void (*fn)(void *), void *arg);

/* Why the last sl_run called on this thread returned non-zero, as it was
 * printed (one or more lines); "" if it returned 0.  Valid until the next
 * sl_run on this thread. */
const char *sl_error(void);

/* ---- Goroutines ---- */

void sl_go(void (*fn)(void *), void *arg);
/* Gives the processor to other runnable goroutines; this one runs again
 * later (Go's runtime.Gosched). */
void sl_gosched(void);
void sl_sleep(int64_t ns);
/* The runtime's monotonic clock, ns. */
int64_t sl_nanotime(void);

/* ---- Channels: of one 64-bit word (an integer, or a pointer through
 * uintptr_t) ---- */

typedef struct hchan sl_chan;
sl_chan *sl_chan_make(size_t cap);     /* cap 0: unbuffered */
/* Frees a channel no goroutine uses any more.  Channels, WaitGroups and
 * mutexes left when the run ends are not freed by it; their *_free may
 * also be called after sl_run has returned. */
void sl_chan_free(sl_chan *c);
void sl_chan_send(sl_chan *c, uint64_t v);
uint64_t sl_chan_recv(sl_chan *c);     /* 0 from a closed, drained channel */
/* As sl_chan_recv; *ok is false if the channel is closed and drained. */
uint64_t sl_chan_recv2(sl_chan *c, bool *ok);
void sl_chan_close(sl_chan *c);

enum sl_dir { SL_RECV, SL_SEND };
struct sl_case {
	sl_chan *c;               /* a NULL channel's case is never ready, as in Go */
	enum sl_dir dir;
	uint64_t v;               /* SL_SEND: the value; SL_RECV: the value received */
	bool ok;                  /* SL_RECV: false if it fired because the channel closed */
};
#define SL_SELECT_MAX 16
/* Waits until one case can proceed, does it and returns its index; a
 * random one among those ready at once.  With nonblocking, returns -1
 * instead of waiting (Go's default case). */
int sl_select(struct sl_case *cases, int n, bool nonblocking);

/* ---- sync.WaitGroup and sync.Mutex ---- */

typedef struct waitgroup sl_wg;
sl_wg *sl_wg_new(void);
void sl_wg_free(sl_wg *wg);
void sl_wg_add(sl_wg *wg, int64_t delta);
void sl_wg_done(sl_wg *wg);
void sl_wg_wait(sl_wg *wg);

typedef struct gmutex sl_mutex;
sl_mutex *sl_mutex_new(void);
void sl_mutex_free(sl_mutex *mu);
/* Spins briefly, then parks the goroutine (never the thread). */
void sl_mutex_lock(sl_mutex *mu);
void sl_mutex_unlock(sl_mutex *mu);

/* ---- Blocking system calls ---- */

/* Brackets a call that may block the thread: the goroutine's P can be
 * retaken by sysmon and handed to another thread meanwhile.  On exit the
 * goroutine takes its P back, or another idle one, or waits for one. */
void sl_syscall_enter(void);
void sl_syscall_exit(void);
/* read(2) and write(2) bracketed so (for files, pipes, devices). */
ssize_t sl_read(int fd, void *buf, size_t n);
ssize_t sl_write(int fd, const void *buf, size_t n);

/* ---- The network poller: sockets whose waits park only the goroutine ---- */

typedef struct pollfd_desc sl_netfd;
/* Makes fd non-blocking and registers it with the poller (edge-triggered);
 * NULL with errno set on failure.  The runtime owns fd from now on. */
sl_netfd *sl_net_open(int fd);
/* Unregisters and closes; goroutines waiting on it wake with EBADF. */
int sl_net_close(sl_netfd *nfd);
int sl_net_fd(const sl_netfd *nfd);
/* read(2): waits until at least one byte or the end of the stream (0). */
ssize_t sl_net_read(sl_netfd *nfd, void *buf, size_t n);
/* write(2) of all n bytes, waiting for room as needed. */
ssize_t sl_net_write(sl_netfd *nfd, const void *buf, size_t n);
/* accept4(2): waits for a connection and opens it with the poller. */
sl_netfd *sl_net_accept(sl_netfd *listener);
/* connect(2) on a socket opened with sl_net_open, waiting for it to finish. */
int sl_net_connect(sl_netfd *nfd, const struct sockaddr *addr, socklen_t len);

#ifdef __cplusplus
}
#endif

#endif
