/* Platform contract: everything the scheduler core needs from the world.
 *
 * The runtime core (core/), every policy (policies/) and the programs'
 * interpreter (workloads/interp.c) are compiled twice from the same files:
 * once with -DSCHEDLAB_SIM against the simulated platform (sim/plat.h),
 * once with -DSCHEDLAB_NATIVE against the native one (native/plat.h).
 * This header is the only one of theirs that names a platform.  Both platform headers define the same function set, listed
 * here with its meaning; a caller never knows which one it got.
 *
 *   Simulated                               Native
 *   an M is an engine actor (a coroutine)   an M is a pthread
 *   an atomic costs what the hardware       an atomic is a C11 atomic
 *     model says for its cache line
 *   a futex wait/wake costs the topology's  a futex is the futex(2) call
 *     OS costs and wakes after its latency
 *   a G is a state machine run on the M's   a G has its own stack and is
 *     stack (no context switch at all)        entered with arch/ctx.h
 *
 * Shared scheduler state.  Every variable that Ms share without a lock is
 * one of the atomic types below and lives on a cache line (plat_line_t)
 * chosen when it is initialised, so that in simulation its accesses are
 * priced by where the line was last written.  Lock-protected data is plain
 * C; its accesses are priced by plat_shared_access() on the line that holds
 * it.  Memory orders are C11's (memory_order_acquire, ...).  The simulator
 * runs one actor at a time, so it is sequentially consistent whatever order
 * is asked; natively the orders are what C11 makes of them, and the core's
 * comments say why each one is there.
 *
 * Who may call what: everything below from an M (the thread or actor that
 * runs rt_mstart) or from a G running on one, except the plat_line,
 * plat_*_init and plat_alloc calls, which may also be made while a runtime
 * is being set up.  Atomics called outside any M (as the run-queue tests do
 * on bare Ps) work and cost nothing.
 *
 *   Types (defined by the platform header):
 *     plat_u32, plat_u64, plat_ptr     atomic 32-bit, 64-bit, pointer
 *     plat_line_t                      a simulated cache line
 *     struct plat_rt, plat_m, plat_g   the platform's part of rt, M, G
 *
 *   Lines and atomics:
 *     plat_line_t plat_line_new(struct rt *, int node)
 *         a new line homed on node's memory
 *     plat_line_t plat_line_model(struct rt *)
 *         the line of the workload model's own state (the clients' next
 *         requests, which are not the machine's work): in simulation its
 *         accesses cost nothing and never let another M run, so a lock
 *         on it is never contended; natively it is like any other line
 *     void plat_u32_init(plat_u32 *, uint32_t v, plat_line_t)   (u64, ptr alike)
 *     uint32_t plat_load_u32(plat_u32 *, memory_order)
 *     void plat_store_u32(plat_u32 *, uint32_t, memory_order)
 *     bool plat_cas_u32(plat_u32 *, uint32_t *expected, uint32_t desired, memory_order)
 *         compare-and-swap; on failure *expected gets the value seen
 *     uint32_t plat_add_u32(plat_u32 *, uint32_t delta, memory_order)   returns the old value
 *     uint32_t plat_xchg_u32(plat_u32 *, uint32_t, memory_order)
 *     uint32_t plat_peek_u32(const plat_u32 *)
 *         a relaxed read that is not priced: for assertions, and for
 *         schedtrace's snapshot (core/schedtrace.c)
 *     ... and the same for _u64 and _ptr (void *; no add for pointers)
 *     void plat_shared_access(plat_line_t, bool write)
 *         a plain access to lock-protected data on that line
 *
 *   Futex (for the locks and notes of core/lock.c):
 *     void plat_futex_wait(plat_u32 *, uint32_t val, int64_t timeout_ns)
 *         sleeps while *addr == val, until woken or timeout_ns (< 0: none)
 *     void plat_futex_wake(plat_u32 *, int n)   wakes up to n sleepers
 *
 *   Time, spinning, place:
 *     int64_t plat_nanotime(void)     monotonic ns (simulated: the M's clock)
 *     void plat_procyield(int n)      n PAUSE instructions
 *     void plat_osyield(void)         sched_yield
 *     void plat_usleep(int64_t us)
 *     int64_t plat_work(int64_t ns, plat_u32 *stop)
 *         a G's own computation for ns; returns the ns done, fewer if
 *         *stop became non-zero meanwhile (preemption)
 *     void plat_preempt_poke(struct g *)
 *         after setting g's stop flag: cuts short the computation g is in
 *     void plat_syscall(int64_t ns)   a blocking system call lasting ns
 *     int plat_cpu(void)              topology PU the caller runs on
 *     int plat_node(void)             its NUMA node
 *     void plat_set_cpu(int cpu, bool bind)
 *         the M now runs for a P placed on cpu: in simulation the OS model
 *         moves it there; natively it is bound there only if bind
 *     void plat_bind_node(int node)
 *         binds the calling M to a NUMA node's PUs for good (natively,
 *         with hwloc; in simulation the placement model already runs an
 *         M where its P is, so there is nothing to do)
 *
 *   Ms and Gs:
 *     struct m *plat_self(void)       the calling M, NULL outside one
 *     void plat_newm(struct rt *, struct m *)
 *         starts an OS thread (or actor) running rt_mstart(m)
 *     void plat_g_init(struct rt *, struct g *)   gives a new G what it needs
 *         (newproc; in simulation the creating M pays runtime_ns.g_create)
 *     void plat_g_free(struct rt *, struct g *)   ... and takes it back
 *     enum g_why plat_execute(struct m *, struct g *)
 *         switches into g; returns when g gives control back, saying why
 *     void plat_g_leave(struct g *, enum g_why)
 *         from a G with a stack: gives control back to its M's scheduler
 *         and returns when the G is next run (never returns for G_EXIT)
 *     bool plat_g_has_stack(void)
 *         whether a G can run a C function (natively yes; a simulated G
 *         is only a program counter)
 *     bool plat_g_frame_init(struct rt *, uint64_t bytes, struct err *)
 *         every G of the run writes bytes of its own stack each time it
 *         runs (a workload's "stacks"): false if a G's stack has no room
 *         for them; the platform bounds its stacks' memory by them
 *     void plat_g_write_frame(uint64_t bytes)
 *         from a G with a stack: writes bytes of it below the caller's
 *         frame, as a deep call would
 *     bool plat_futex_cpu_counted(void)
 *         whether the futex calls add the CPU they take to the calling
 *         M's m->stats.futex_ns, cut at the run's end (simulated: their
 *         price; natively no: a wait's CPU is not told from its sleep)
 *
 *   The netpoller's readiness source (core/netpoll.c; the workload's
 *   own arrivals are the core's, timed by the timeouts it passes here):
 *     void plat_netpoll_init(struct rt *), plat_netpoll_fini(struct rt *)
 *     int plat_netpoll(struct rt *, int64_t timeout_ns, struct netpoll_event *, int max)
 *         readiness since the last poll; waits up to timeout_ns for some
 *         (0: not at all; < 0: as long as it takes) unless broken
 *     void plat_netpoll_break(struct rt *)   ends a waiting poll early
 *     void plat_netpoll_took(struct rt *, int n)
 *         the poll just made returned n > 0 ready events: in simulation
 *         the kernel's copy of them, os_ns.epoll_event each, holding the
 *         process's one epoll instance (pollers take turns; the wait and
 *         the copy are the M's CPU, in its netpoll_ns); natively the
 *         kernel has done it already
 *     int plat_netpoll_open(struct rt *, struct pollfd_desc *, int fd)
 *     void plat_netpoll_close(struct rt *, struct pollfd_desc *)
 *         a real file descriptor (native C API): registered for edge-
 *         triggered read and write readiness, reported with a mode; open
 *         returns 0 or an errno (simulation has no descriptors: ENOTSUP)
 *
 *   A hint:
 *     void plat_prefetch(const void *p, int lines)   start loading lines
 *         cache lines from p; a no-op in simulation
 *     void *plat_peek_ptr(const plat_ptr *)   relaxed load, no price
 *
 *   Node-bound memory:
 *     void *plat_alloc(size_t, int node)   zeroed, on node (-1: anywhere)
 *     void plat_free(void *, size_t)
 *
 *   The workload's memory (its regions and what its Gs touch):
 *     bool plat_region_init(struct rt *, struct rt_region *, int place, int node)
 *         r->bytes of memory placed as enum rt_place says (node: for
 *         RT_PLACE_NODE); false if it cannot be had
 *     void plat_region_fini(struct rt *, struct rt_region *)
 *     int64_t plat_touch(struct rt_region *, uint64_t offset, uint64_t bytes,
 *                        int pattern, bool write, uint64_t seed)
 *         a G reads or writes every line of [offset, offset+bytes) in the
 *         pattern of enum rt_pattern (seed: the order of a random one);
 *         returns the ns it took (simulated: the hardware model's price)
 *
 *   What the workload's memory cost (the report's locality):
 *     bool plat_mem_counters(struct rt *, struct rt_mem *)
 *         what the Gs' plat_touch calls read since the run began, in cache
 *         lines by where each came from (a cache, DRAM by hops); false if
 *         the platform keeps no such counters (natively; the struct is
 *         left alone).  Scheduler state is not in them.
 *     bool plat_mem_matrix(struct rt *, uint64_t *lines, int *nhops,
 *                          uint64_t *hop_lines, double *hop_ns)
 *         the DRAM lines of those, by accessing node x home node
 *         (lines[node * nnodes + home]), and by hops with the sum of the
 *         model's latency of each line (hop_ns); false natively, where
 *         no such measure exists (the arrays are left alone)
 *
 *   Runs:
 *     bool plat_rt_init(struct rt *, struct err *)   after the core's own set-up
 *     void plat_rt_run(struct rt *)   runs M0 (and everything it starts) to the end
 *     void plat_rt_fini(struct rt *)
 *     void plat_rt_halt(struct rt *)   ends the run before its next event
 *         (an exploration's violation: what follows would only bury it);
 *         natively nothing, as explorations are simulated only
 */
#ifndef SCHEDLAB_CORE_PLATFORM_H
#define SCHEDLAB_CORE_PLATFORM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

struct rt;
struct m;
struct g;
struct pollfd_desc;
struct netpoll_event;
struct rt_region;
struct rt_mem;

/* Why a G gave control back to its M's scheduler. */
enum g_why {
	G_YIELD,    /* still runnable: runtime.Gosched */
	G_PARK,     /* waiting: m->park_unlock(m->park_arg) still to run */
	G_EXIT,     /* finished */
	G_PREEMPT,  /* still runnable, preempted by sysmon */
	G_NOP,      /* still runnable, back from a system call with no P for it */
};

/* Every external name of the core is given a per-platform prefix, so that
 * both compilations link into one program (see core/names.h). */
/* PLAT_SERIAL: 1 where Ms run one at a time and reading the clock is free
 * (simulation): what is recorded in one order needs no tie-break, and a
 * measure may read the clock wherever it likes; 0 natively. */
#if defined(SCHEDLAB_SIM)
#define PLAT_NAME "sim"
#define PLAT_SERIAL 1
#define PLAT_SYM(x) sim__##x
#include "core/names.h"
#include "sim/plat.h"
#elif defined(SCHEDLAB_NATIVE)
#define PLAT_NAME "native"
#define PLAT_SERIAL 0
#define PLAT_SYM(x) nat__##x
#include "core/names.h"
#include "native/plat.h"
#else
#error "compile the scheduler core with -DSCHEDLAB_SIM or -DSCHEDLAB_NATIVE"
#endif

/* plat_host(rt, out): the CPU the OS gave the run's threads (struct
 * rt_host), on a platform whose threads are the OS's (PLAT_HOST).  A
 * simulated M's PU is never taken from it: there is nothing to report. */
#ifndef PLAT_HOST
#define plat_host(rt, out) ((void)(rt), (void)(out))
#endif
/* plat_os_stats(rt, out): what a simulated OS did to the run's threads
 * (struct rt_os_stats); natively the host's figures say it (plat_host). */
#ifndef PLAT_OS_STATS
#define plat_os_stats(rt, out) ((void)(rt), (void)(out))
#endif

#endif
