/* Simulated platform: the contract of core/platform.h on the engine and
 * the hardware model.  Included only through core/platform.h.
 *
 * An M is an engine actor with its own clock, m->plat.clock (ns, as a
 * double: the hardware model prices in fractions of a nanosecond), which
 * runs ahead of the engine's time while the M does private work.  Private
 * work -- a G computing, a PAUSE, the M's own bookkeeping -- only moves that
 * clock.  Before anything other Ms can see (an atomic, a lock-protected
 * access, a futex call, starting a thread) the M waits until the engine
 * reaches its clock, so every actor due earlier has run first, and then
 * does the access at that time and adds its price.  Races between Ms thus
 * happen in simulated-time order, with ties broken by the engine's
 * sequence numbers: deterministically.
 *
 * Atomics carry their line: the value and the id of the simulated cache
 * line that holds it.  The simulator is one OS thread, so the C11 memory
 * order is accepted and needs no fence. */
#ifndef SCHEDLAB_SIM_PLAT_H
#define SCHEDLAB_SIM_PLAT_H

#include <errno.h>
#include <stdlib.h>

#include "sim/engine.h"
#include "sim/os.h"
#include "hw/hw.h"

typedef hw_line_t plat_line_t;

typedef struct { uint32_t v; plat_line_t line; } plat_u32;
typedef struct { uint64_t v; plat_line_t line; } plat_u64;
typedef struct { void *v; plat_line_t line; } plat_ptr;

struct simp_waiter;

struct plat_pd {
	char unused;             /* simulation has no real descriptors */
};

struct plat_rt {
	struct sim_engine *eng;
	struct hw *hw;
	struct m *netpoller;          /* the M blocked in plat_netpoll, if any */
	sim_time_t netpoll_until;     /* ... until when, if nobody breaks its wait */
	bool break_pending;           /* a break with nobody polling: the next poll returns */
	double epoll_free;            /* when the epoll instance's mutex is next free */
	double *epoll_c2c;            /* [PU]: a line's transfer from the average PU, 0: not yet */
	struct simp_waiter **futexq;  /* [line]: sleepers on that line's futexes, FIFO */
	size_t nfutexq;
	uint64_t futex_calls;
	struct m **pu_m;              /* [PU]: the M that ran there last (context switches) */
	struct os *os;                /* the OS beneath the Ms [sim/os.h] */
	uint64_t stacks_live;         /* Gs holding a stack now */
	uint64_t stacks_made;         /* the most that ever did: stacks carved so far */
};

/* Where an M's time went, in ns (the report's cpu breakdown). */
struct plat_m {
	struct sim_actor *actor;
	double clock;            /* the M's own time, >= the engine's while it runs */
	int cpu;                 /* PU it runs on (OS placement model, see plat_set_cpu) */
	struct os_thread os;     /* the OS's view of it: its PU held, its waits */
	struct g *computing;     /* the G whose computation it is blocked in, if any */
	sim_time_t work_start;   /* ... since when */
};

struct plat_region {
	hw_region_t id;
};

struct plat_g {
	/* A simulated G has no stack and no context; this says whether the
	 * native platform would have given it one by now (taken at its first
	 * run, given back at its exit), to price stack_acquire as it does. */
	bool stack;
};

/* The out-of-line half, in sim/plat.c. */
void simp_access(plat_line_t line, enum hw_access kind);
plat_line_t simp_line_new(struct rt *rt, int node);
void simp_futex_wait(plat_u32 *a, uint32_t val, int64_t timeout_ns);
void simp_futex_wake(plat_u32 *a, int n);
int64_t simp_nanotime(void);
void simp_spend(double ns);
void simp_osyield(void);
void simp_usleep(int64_t us);
int simp_cpu(void);
int simp_node(void);
void simp_set_cpu(int cpu);
struct m *simp_self(void);
void simp_newm(struct rt *rt, struct m *m);
void simp_g_init(struct g *g);
enum g_why simp_execute(struct m *m, struct g *g);
_Noreturn void simp_g_leave(void);
double simp_pause_ns(void);
bool simp_rt_init(struct rt *rt, struct err *e);
void simp_rt_run(struct rt *rt);
void simp_rt_fini(struct rt *rt);
void simp_rt_halt(struct rt *rt);

static inline plat_line_t plat_line_new(struct rt *rt, int node) { return simp_line_new(rt, node); }
/* Not a line of the hardware model: simp_access prices nothing on it. */
#define SIMP_LINE_MODEL ((plat_line_t)UINT32_MAX)
static inline plat_line_t plat_line_model(struct rt *rt) { (void)rt; return SIMP_LINE_MODEL; }
static inline void plat_shared_access(plat_line_t line, bool write)
{
	simp_access(line, write ? HW_STORE : HW_LOAD);
}

#define SIMP_ATOMIC_OPS(T, suffix)                                                         \
	static inline void plat_##suffix##_init(plat_##suffix *a, T v, plat_line_t line)   \
	{                                                                                  \
		a->v = v;                                                                  \
		a->line = line;                                                            \
	}                                                                                  \
	static inline T plat_load_##suffix(plat_##suffix *a, memory_order mo)              \
	{                                                                                  \
		(void)mo;                                                                  \
		simp_access(a->line, HW_LOAD);                                             \
		return a->v;                                                               \
	}                                                                                  \
	static inline void plat_store_##suffix(plat_##suffix *a, T v, memory_order mo)     \
	{                                                                                  \
		(void)mo;                                                                  \
		simp_access(a->line, HW_STORE);                                            \
		a->v = v;                                                                  \
	}                                                                                  \
	static inline bool plat_cas_##suffix(plat_##suffix *a, T *expected, T desired,     \
					     memory_order mo)                              \
	{                                                                                  \
		(void)mo;                                                                  \
		simp_access(a->line, HW_RMW);                                              \
		if (a->v != *expected) {                                                   \
			*expected = a->v;                                                  \
			return false;                                                      \
		}                                                                          \
		a->v = desired;                                                            \
		return true;                                                               \
	}                                                                                  \
	static inline T plat_xchg_##suffix(plat_##suffix *a, T v, memory_order mo)         \
	{                                                                                  \
		(void)mo;                                                                  \
		simp_access(a->line, HW_RMW);                                              \
		T old = a->v;                                                              \
		a->v = v;                                                                  \
		return old;                                                                \
	}

SIMP_ATOMIC_OPS(uint32_t, u32)
SIMP_ATOMIC_OPS(uint64_t, u64)
SIMP_ATOMIC_OPS(void *, ptr)
#undef SIMP_ATOMIC_OPS

static inline uint32_t plat_peek_u32(const plat_u32 *a) { return a->v; }
static inline uint64_t plat_peek_u64(const plat_u64 *a) { return a->v; }
static inline void *plat_peek_ptr(const plat_ptr *a) { return a->v; }
static inline void plat_prefetch(const void *p, int lines) { (void)p, (void)lines; }

/* fetch-add: integers only */
#define SIMP_ADD_OP(T, suffix)                                                             \
	static inline T plat_add_##suffix(plat_##suffix *a, T d, memory_order mo)          \
	{                                                                                  \
		(void)mo;                                                                  \
		simp_access(a->line, HW_RMW);                                              \
		T old = a->v;                                                              \
		a->v = old + d;                                                            \
		return old;                                                                \
	}

SIMP_ADD_OP(uint32_t, u32)
SIMP_ADD_OP(uint64_t, u64)
#undef SIMP_ADD_OP

static inline void plat_futex_wait(plat_u32 *a, uint32_t val, int64_t timeout_ns)
{
	simp_futex_wait(a, val, timeout_ns);
}
static inline void plat_futex_wake(plat_u32 *a, int n) { simp_futex_wake(a, n); }

static inline int64_t plat_nanotime(void) { return simp_nanotime(); }
static inline void plat_procyield(int n) { simp_spend(n * simp_pause_ns()); }
static inline void plat_osyield(void) { simp_osyield(); }
static inline void plat_usleep(int64_t us) { simp_usleep(us); }
int64_t simp_work(int64_t ns, plat_u32 *stop);
void simp_preempt_poke(struct g *g);
void simp_syscall(int64_t ns);
static inline int64_t plat_work(int64_t ns, plat_u32 *stop) { return simp_work(ns, stop); }
static inline void plat_preempt_poke(struct g *g) { simp_preempt_poke(g); }
static inline void plat_syscall(int64_t ns) { simp_syscall(ns); }
static inline int plat_cpu(void) { return simp_cpu(); }
static inline int plat_node(void) { return simp_node(); }
static inline void plat_bind_node(int node) { (void)node; }
static inline void plat_set_cpu(int cpu, bool bind)
{
	(void)bind;
	simp_set_cpu(cpu);
}

static inline struct m *plat_self(void) { return simp_self(); }
static inline void plat_newm(struct rt *rt, struct m *m) { simp_newm(rt, m); }
/* The creator pays runtime_ns.g_create here (newproc). */
static inline void plat_g_init(struct rt *rt, struct g *g) { (void)rt, simp_g_init(g); }
static inline void plat_g_free(struct rt *rt, struct g *g) { (void)rt, (void)g; }
static inline enum g_why plat_execute(struct m *m, struct g *g) { return simp_execute(m, g); }
static inline bool plat_g_has_stack(void) { return false; }
/* A simulated G has no stack: the workload models one as a region
 * (workloads/interp.c, stack_enter), so any frame fits, and nothing is
 * written for it here. */
static inline bool plat_g_frame_init(struct rt *rt, uint64_t bytes, struct err *e)
{
	(void)rt, (void)bytes, (void)e;
	return true;
}
static inline void plat_g_write_frame(uint64_t bytes) { (void)bytes; }
static inline bool plat_futex_cpu_counted(void) { return true; }
static inline void plat_g_leave(struct g *g, enum g_why why)
{
	(void)g, (void)why;
	simp_g_leave();
}

/* What the simulated OS did to the run's threads [struct rt_os_stats]. */
void simp_os_stats(struct rt *rt, struct rt_os_stats *out);
#define PLAT_OS_STATS
static inline void plat_os_stats(struct rt *rt, struct rt_os_stats *out) { simp_os_stats(rt, out); }

bool simp_mem_counters(struct rt *rt, struct rt_mem *out);
bool simp_mem_matrix(struct rt *rt, uint64_t *lines, int *nhops, uint64_t *hop_lines,
		     double *hop_ns);
static inline bool plat_mem_matrix(struct rt *rt, uint64_t *lines, int *nhops,
				   uint64_t *hop_lines, double *hop_ns)
{
	return simp_mem_matrix(rt, lines, nhops, hop_lines, hop_ns);
}
static inline bool plat_mem_counters(struct rt *rt, struct rt_mem *out)
{
	return simp_mem_counters(rt, out);
}

static inline void *plat_alloc(size_t size, int node)
{
	(void)node; /* simulated memory placement is the hardware model's, not malloc's */
	return xcalloc(1, size);
}
static inline void plat_free(void *p, size_t size)
{
	(void)size;
	free(p);
}

int simp_netpoll(struct rt *rt, int64_t timeout_ns, struct netpoll_event *ev, int max);
void simp_netpoll_break(struct rt *rt);
static inline void plat_netpoll_init(struct rt *rt) { (void)rt; }
static inline void plat_netpoll_fini(struct rt *rt) { (void)rt; }
static inline int plat_netpoll(struct rt *rt, int64_t timeout_ns, struct netpoll_event *ev, int max)
{
	return simp_netpoll(rt, timeout_ns, ev, max);
}
static inline void plat_netpoll_break(struct rt *rt) { simp_netpoll_break(rt); }
void simp_netpoll_took(struct rt *rt, int n);
static inline void plat_netpoll_took(struct rt *rt, int n) { simp_netpoll_took(rt, n); }
/* A simulated run has no real descriptors: the C API needs a G with a
 * stack, which rt_new refuses here. */
static inline int plat_netpoll_open(struct rt *rt, struct pollfd_desc *pd, int fd)
{
	(void)rt, (void)pd, (void)fd;
	return ENOTSUP;
}
static inline void plat_netpoll_close(struct rt *rt, struct pollfd_desc *pd) { (void)rt, (void)pd; }

bool simp_region_init(struct rt *rt, struct rt_region *r, int place, int node);
int64_t simp_touch(struct rt_region *r, uint64_t offset, uint64_t bytes, int pattern, bool write);
static inline bool plat_region_init(struct rt *rt, struct rt_region *r, int place, int node)
{
	return simp_region_init(rt, r, place, node);
}
static inline void plat_region_fini(struct rt *rt, struct rt_region *r) { (void)rt, (void)r; }
static inline int64_t plat_touch(struct rt_region *r, uint64_t offset, uint64_t bytes, int pattern,
				 bool write, uint64_t seed)
{
	(void)seed;   /* the model prices a random order without making one */
	return simp_touch(r, offset, bytes, pattern, write);
}

static inline bool plat_rt_init(struct rt *rt, struct err *e) { return simp_rt_init(rt, e); }
static inline void plat_rt_run(struct rt *rt) { simp_rt_run(rt); }
static inline void plat_rt_fini(struct rt *rt) { simp_rt_fini(rt); }
static inline void plat_rt_halt(struct rt *rt) { simp_rt_halt(rt); }

#endif
