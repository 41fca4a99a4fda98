/* Native platform: the contract of core/platform.h on this machine.
 * Included only through core/platform.h.
 *
 * Ms are pthreads; atomics are C11 atomics with the orders the core asks
 * for; futexes are futex(2); a G has its own stack, carved from an mmap'ed
 * arena (native/plat.c: Stacks), and is entered
 * and left with the register-only switch of arch/ctx.h, each M keeping
 * its thread's own stack as the scheduler's context (Go's g0).  Lines do
 * not exist here: plat_line_t is accepted and ignored. */
#ifndef SCHEDLAB_NATIVE_PLAT_H
#define SCHEDLAB_NATIVE_PLAT_H

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "arch/ctx.h"
#include "native/faults.h"

typedef uint32_t plat_line_t;

#define NATP_STACK_CACHE 64      /* G stacks an M keeps for reuse (native/plat.c: Stacks) */
#define NATP_G_STACK (256u * 1024u)  /* a G stack's slot: the stack and the next one's canary */

struct natp_arena;
struct rt_host;

/* A thread's own scheduler statistics [native/host.c]. */
struct natp_tstat {
	bool ok, schedstat;
	uint64_t cpu_ns, delay_ns, slices, nvcsw, nivcsw;
};
/* The figures struct rt_host is made of [native/host.c]. */
struct natp_host {
	int64_t start_ns;
	struct natp_tstat m0_start;    /* the calling thread's, before the run */
	struct natp_tstat sum;
	uint64_t threads;
	int64_t wall_ns;
	double load_start, load_end;
	bool stat_ok;
	uint64_t busy_start, busy_end, steal_start, steal_end;   /* /proc/stat, ns */
	/* the CPU cgroup's quota and cpu.stat at both ends (cg_ok: read) */
	bool cg_ok;
	int64_t cg_quota_ns, cg_period_ns;
	uint64_t cg_periods[2], cg_throttled[2], cg_throttled_ns[2];
};

typedef struct { _Atomic uint32_t v; } plat_u32;
typedef struct { _Atomic uint64_t v; } plat_u64;
typedef struct { void *_Atomic v; } plat_ptr;

struct plat_pd {
	char unused;             /* the descriptor is the core's pd->fd */
};

struct plat_rt {
	int epfd;                /* the netpoller: epoll over the C API's descriptors */
	int waitfd;              /* the poller's wait: epoll over epfd, breakfd and timerfd */
	int breakfd;             /* an eventfd that ends the poller's wait */
	int timerfd;             /* ends it at its timeout, to the nanosecond */
	int *pu_of_os;           /* OS CPU number -> topology PU (-1: not in it) */
	unsigned npu_of_os;
	pthread_mutex_t stack_lock;  /* guards the arenas and the stacks pooled in them */
	struct natp_arena **arenas;  /* in the order made: stacks are taken from the first */
	struct natp_arena **by_addr; /* the same, by address: a stack's arena */
	size_t narenas, caparenas;
	size_t free_hint;        /* no arena before it has a pooled stack */
	size_t npooled;          /* stacks back in the arenas' free lists */
	size_t nstacks;          /* stacks carved so far: in use, cached or pooled */
	size_t max_stacks;       /* the most that may be carved (sl_options.max_stacks) */
	uint64_t mem_floor;      /* no arena is mapped with less memory available */
	size_t page;
	struct natp_host host;   /* the CPU the OS gave the run [native/host.c] */
};

struct plat_m {
	pthread_t thread;
	bool is_caller;          /* M0 runs on the thread that called rt_run */
	bool started;            /* its thread was made (natp_newm can fail) */
	struct ctx g0;           /* the thread's own stack: the scheduler's context */
	void *stacks[NATP_STACK_CACHE]; /* G stacks this M may reuse without a lock */
	int nstacks;
	struct natp_tstat tstat; /* its thread's, as it ended (read after the join) */
};

struct plat_g {
	struct ctx ctx;
	void *stack;             /* its stack's low end; NULL until it first runs */
	enum g_why why;          /* set by plat_g_leave for plat_execute */
};

/* The out-of-line half, in native/plat.c. */
void natp_futex_wait(plat_u32 *a, uint32_t val, int64_t timeout_ns);
void natp_futex_wake(plat_u32 *a, int n);
int64_t natp_nanotime(void);
int64_t natp_work(int64_t ns, plat_u32 *stop);
int natp_cpu(void);
int natp_node(void);
void natp_set_cpu(int cpu, bool bind);
void natp_bind_node(int node);
struct m *natp_self(void);
void natp_newm(struct rt *rt, struct m *m);
void natp_g_init(struct rt *rt, struct g *g);
void natp_g_free(struct rt *rt, struct g *g);
bool natp_g_first_run(struct m *m, struct g *g);
void natp_g_exited(struct m *m, struct g *g);
void natp_g_leave(struct g *g, enum g_why why);
void *natp_alloc(size_t size, int node);
void natp_free(void *p, size_t size);
bool natp_rt_init(struct rt *rt, struct err *e);
void natp_netpoll_init(struct rt *rt);
void natp_netpoll_fini(struct rt *rt);
int natp_netpoll(struct rt *rt, int64_t timeout_ns, struct netpoll_event *ev, int max);
void natp_netpoll_break(struct rt *rt);
void natp_rt_run(struct rt *rt);
void natp_rt_fini(struct rt *rt);
void natp_tstat(struct natp_tstat *out);
void natp_host_start(struct rt *rt);
void natp_host_end(struct rt *rt, const struct natp_tstat *schedtrace);
void natp_host(struct rt *rt, struct rt_host *out);

static inline plat_line_t plat_line_new(struct rt *rt, int node)
{
	(void)rt, (void)node;
	return 0;
}
static inline plat_line_t plat_line_model(struct rt *rt)
{
	(void)rt;
	return 0;
}
static inline void plat_shared_access(plat_line_t line, bool write) { (void)line, (void)write; }

#define NATP_ATOMIC_OPS(T, suffix)                                                         \
	static inline void plat_##suffix##_init(plat_##suffix *a, T v, plat_line_t line)   \
	{                                                                                  \
		(void)line;                                                                \
		atomic_init(&a->v, v);                                                     \
	}                                                                                  \
	static inline T plat_load_##suffix(plat_##suffix *a, memory_order mo)              \
	{                                                                                  \
		return atomic_load_explicit(&a->v, mo);                                    \
	}                                                                                  \
	static inline void plat_store_##suffix(plat_##suffix *a, T v, memory_order mo)     \
	{                                                                                  \
		atomic_store_explicit(&a->v, v, mo);                                       \
	}                                                                                  \
	static inline bool plat_cas_##suffix(plat_##suffix *a, T *expected, T desired,     \
					     memory_order mo)                              \
	{                                                                                  \
		/* failure order: the success order without its release part */           \
		memory_order fail = mo == memory_order_release   ? memory_order_relaxed    \
				    : mo == memory_order_acq_rel ? memory_order_acquire    \
								 : mo;                     \
		return atomic_compare_exchange_strong_explicit(&a->v, expected, desired,   \
							       mo, fail);                  \
	}                                                                                  \
	static inline T plat_xchg_##suffix(plat_##suffix *a, T v, memory_order mo)         \
	{                                                                                  \
		return atomic_exchange_explicit(&a->v, v, mo);                             \
	}

NATP_ATOMIC_OPS(uint32_t, u32)
NATP_ATOMIC_OPS(uint64_t, u64)
NATP_ATOMIC_OPS(void *, ptr)
#undef NATP_ATOMIC_OPS

static inline void *plat_peek_ptr(const plat_ptr *a)
{
	return atomic_load_explicit((void *_Atomic *)&a->v, memory_order_relaxed);
}
static inline void plat_prefetch(const void *p, int lines)
{
	for (int i = 0; i < lines; i++)
		__builtin_prefetch((const char *)p + 64 * i);
}
static inline uint32_t plat_peek_u32(const plat_u32 *a)
{
	return atomic_load_explicit((_Atomic uint32_t *)&a->v, memory_order_relaxed);
}
static inline uint64_t plat_peek_u64(const plat_u64 *a)
{
	return atomic_load_explicit((_Atomic uint64_t *)&a->v, memory_order_relaxed);
}
static inline uint32_t plat_add_u32(plat_u32 *a, uint32_t d, memory_order mo)
{
	return atomic_fetch_add_explicit(&a->v, d, mo);
}
static inline uint64_t plat_add_u64(plat_u64 *a, uint64_t d, memory_order mo)
{
	return atomic_fetch_add_explicit(&a->v, d, mo);
}

static inline void plat_futex_wait(plat_u32 *a, uint32_t val, int64_t timeout_ns)
{
	natp_futex_wait(a, val, timeout_ns);
}
static inline void plat_futex_wake(plat_u32 *a, int n) { natp_futex_wake(a, n); }

static inline int64_t plat_nanotime(void) { return natp_nanotime(); }
static inline void plat_procyield(int n)
{
	for (int i = 0; i < n; i++)
		__builtin_ia32_pause();
}
static inline void plat_osyield(void) { sched_yield(); }
static inline void plat_usleep(int64_t us) { usleep((useconds_t)us); }
static inline int64_t plat_work(int64_t ns, plat_u32 *stop) { return natp_work(ns, stop); }
static inline void plat_preempt_poke(struct g *g) { (void)g; /* the spin polls the flag */ }
void natp_syscall(int64_t ns);
static inline void plat_syscall(int64_t ns) { natp_syscall(ns); }
static inline int plat_cpu(void) { return natp_cpu(); }
static inline int plat_node(void) { return natp_node(); }
static inline void plat_set_cpu(int cpu, bool bind) { natp_set_cpu(cpu, bind); }
static inline void plat_bind_node(int node) { natp_bind_node(node); }

static inline struct m *plat_self(void) { return natp_self(); }
static inline void plat_newm(struct rt *rt, struct m *m) { natp_newm(rt, m); }
static inline void plat_g_init(struct rt *rt, struct g *g) { natp_g_init(rt, g); }
static inline void plat_g_free(struct rt *rt, struct g *g) { natp_g_free(rt, g); }
/* A macro, where an inline function could not see into struct m and
 * struct g (not yet defined here): the switch into g has to be inline in
 * the scheduler loop itself, since each return between the loop and the
 * point where a switch back lands is mispredicted (the return-stack buffer
 * holds the G's calls by then).  A G's first run and its exit are calls.
 * A G that gets no stack (natp_g_first_run has ended the run with a
 * panic) never runs: it stays parked, dropped with the run. */
#define plat_execute(m, g)                                                     \
	({                                                                     \
		struct m *m_ = (m);                                            \
		struct g *g_ = (g);                                            \
		enum g_why why_ = G_PARK;                                      \
		if (__builtin_expect(g_->plat.stack != NULL, 1) ||             \
		    natp_g_first_run(m_, g_)) {                                \
			ctx_switch(&m_->plat.g0, &g_->plat.ctx);               \
			why_ = g_->plat.why;                                   \
			if (why_ == G_EXIT)                                    \
				natp_g_exited(m_, g_);                         \
		}                                                              \
		why_;                                                          \
	})
static inline void plat_g_leave(struct g *g, enum g_why why) { natp_g_leave(g, why); }
static inline bool plat_g_has_stack(void) { return true; }
bool natp_g_frame_init(struct rt *rt, uint64_t bytes, struct err *e);
static inline bool plat_g_frame_init(struct rt *rt, uint64_t bytes, struct err *e)
{
	return natp_g_frame_init(rt, bytes, e);
}
void natp_g_write_frame(uint64_t bytes);
static inline void plat_g_write_frame(uint64_t bytes) { natp_g_write_frame(bytes); }
static inline bool plat_futex_cpu_counted(void) { return false; }

static inline void *plat_alloc(size_t size, int node) { return natp_alloc(size, node); }
/* No counters of what memory accesses cost here: the report leaves them out. */
static inline bool plat_mem_counters(struct rt *rt, struct rt_mem *out)
{
	(void)rt, (void)out;
	return false;
}
static inline bool plat_mem_matrix(struct rt *rt, uint64_t *lines, int *nhops,
				   uint64_t *hop_lines, double *hop_ns)
{
	(void)rt, (void)lines, (void)nhops, (void)hop_lines, (void)hop_ns;
	return false;
}
static inline void plat_free(void *p, size_t size) { natp_free(p, size); }

struct plat_region {
	unsigned char *base;
};
bool natp_region_init(struct rt *rt, struct rt_region *r, int place, int node);
void natp_region_fini(struct rt *rt, struct rt_region *r);
int64_t natp_touch(struct rt_region *r, uint64_t offset, uint64_t bytes, int pattern, bool write,
		   uint64_t seed);
static inline bool plat_region_init(struct rt *rt, struct rt_region *r, int place, int node)
{
	return natp_region_init(rt, r, place, node);
}
static inline void plat_region_fini(struct rt *rt, struct rt_region *r) { natp_region_fini(rt, r); }
static inline int64_t plat_touch(struct rt_region *r, uint64_t offset, uint64_t bytes, int pattern,
				 bool write, uint64_t seed)
{
	return natp_touch(r, offset, bytes, pattern, write, seed);
}

static inline void plat_netpoll_init(struct rt *rt) { natp_netpoll_init(rt); }
static inline void plat_netpoll_fini(struct rt *rt) { natp_netpoll_fini(rt); }
static inline int plat_netpoll(struct rt *rt, int64_t timeout_ns, struct netpoll_event *ev, int max)
{
	return natp_netpoll(rt, timeout_ns, ev, max);
}
static inline void plat_netpoll_break(struct rt *rt) { natp_netpoll_break(rt); }
static inline void plat_netpoll_took(struct rt *rt, int n) { (void)rt, (void)n; }
int natp_netpoll_open(struct rt *rt, struct pollfd_desc *pd, int fd);
void natp_netpoll_close(struct rt *rt, struct pollfd_desc *pd);
static inline int plat_netpoll_open(struct rt *rt, struct pollfd_desc *pd, int fd)
{
	return natp_netpoll_open(rt, pd, fd);
}
static inline void plat_netpoll_close(struct rt *rt, struct pollfd_desc *pd)
{
	natp_netpoll_close(rt, pd);
}

static inline bool plat_rt_init(struct rt *rt, struct err *e) { return natp_rt_init(rt, e); }
static inline void plat_rt_run(struct rt *rt) { natp_rt_run(rt); }
static inline void plat_rt_fini(struct rt *rt) { natp_rt_fini(rt); }
static inline void plat_rt_halt(struct rt *rt) { (void)rt; }
#define PLAT_HOST 1
static inline void plat_host(struct rt *rt, struct rt_host *out) { natp_host(rt, out); }

/* The body of a run of C functions (native/api.c) [core/body.h]: the C
 * API's runs, given the main G's function (rt_config.body_arg). */
struct natp_c_args {
	void (*fn)(void *);
	void *arg;
};
extern const struct body_ops natp_c_body;

#endif
