/* Policies and runs as the command line sees them: the policy table and its
 * knobs, what a run is given and what it measured.  Platform-independent:
 * both compilations of the core (sim and native) share these types, and
 * struct rt_api below puts the two side by side (each filled in by its
 * compilation's policies/registry.c). */
#ifndef SCHEDLAB_CORE_POLICY_H
#define SCHEDLAB_CORE_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "topologies/topo.h"
#include "util/hist.h"
#include "util/util.h"

struct rt_trace;

struct rt;
struct m;
struct g;
struct body_ops;

/* ---- Policies ---- */

enum {
	POL_KNOB_BOOL = 1u << 0,   /* 0 or 1 (also spelled false/true) */
	POL_KNOB_POW2 = 1u << 1,   /* a power of two */
};

struct pol_knob {
	const char *name;
	int64_t def, min, max;
	unsigned flags;
	const char *doc;
};

/* The structural choices a policy makes once, at init [proc: Policies'
 * choices]: what the core builds for the run and how its shared
 * mechanisms behave.  The core gives init these defaults, the policy
 * changes what it chooses, and from then on the core reads them
 * (rt->choices); nothing changes them during the run. */
struct pol_choices {
	uint32_t runq_size;            /* each P's local ring, a power of two >= 2 (256) */
	bool sysmon;                   /* run sysmon (false) */
	int64_t preempt_ns;            /* sysmon preempts a G this long on one time slice (0: never) */
	int64_t syscall_retake_ns;     /* ... and retakes the P of a G this long in a system call */
	bool node_queues;              /* global run queues and G free lists per node */
	bool node_mpools;              /* Ms bound to nodes, an M pool per node */
	bool lastm;                    /* a P is started on the M that last held it, if idle */
	bool node_heaps;               /* the Go heap allocates on the running P's node */
	bool syscall_handoff;          /* a G entering a system call lets go of its P at once */
	bool no_local_runq;            /* no per-P queues: Gs go to Ms directly (m->nextg) */
	bool shared_queues;            /* Ps' shared queues are used (rt_sharedq_put) */
	int gfree_local_max;           /* dead Gs a P keeps (64; 0: all go to the global lists) */
	/* The Go release whose schedtrace lines a run prints: 126 (Go 1.26's
	 * format, the default) or 119 (Go 1.19's) [core/schedtrace.c] */
	int go_release;
	/* Go 1.26's spinning (false: 1.19's) [proc: Spinning, needspinning]:
	 * a wake-up with no idle P asks the next M about to drop its P to
	 * spin instead, and a yield or the netpoller's injection wakes a
	 * spinner */
	bool needspinning;
	/* Go 1.26's non-blocking poll in findRunnable by one M at a time
	 * (sched.pollingNet): the others skip it rather than contend */
	bool one_poller;
	/* Go 1.14's timers [core/time.c, "Go 1.14"]: a running P's timers
	 * are its own until its G is marked for preemption -- no other M
	 * runs them or sleeps until them, a timer added with no poller
	 * wakes nobody -- and sysmon starts an M for an overdue timer */
	bool timers_own_p;
	/* The poller's wait for a timer ends on a whole millisecond, as
	 * epoll_wait's timeout does in Go's netpoller on Linux (1.14 and
	 * later): a delay under 1 ms waits 1 ms, a longer one is cut down to
	 * whole ms and the poller sleeps again for the rest */
	bool poll_ms;
	/* Go 1.13's timers [core/time.c, "Go 1.13"]: each P's heap is a
	 * bucket served by a timer goroutine of the runtime's, which sleeps
	 * in a system call holding its M and needs a P to run what is due;
	 * no M runs timers as it schedules, and the poller never sleeps
	 * until one */
	bool timerproc;
};

/* A scheduling policy: a static const table found by name (pol_find).  The
 * core calls these from an M; each says what it decides.  The tables are
 * compiled with the core, in the same build, so they carry no version: a
 * policy that does not match this header does not compile. */
struct pol_ops {
	const char *name;
	const char *summary;
	const struct pol_knob *knobs; /* ends with a NULL name */
	/* The policy's own state, by size, as a body's [core/body.h]: the
	 * core allocates it zeroed, frees it, and hands it out through
	 * rt_pol_run, rt_pol_p and rt_pol_g [core/runtime.h]; 0: none.
	 *   run_bytes  for the run, made before init;
	 *   p_bytes    for each P, after its struct p, made with the Ps (so
	 *              from placed on), the owner's as the P's own fields;
	 *   g_bytes    for each G, after the body's state in the G's slab,
	 *              zeroed whenever the G is made (a reused G's too), the
	 *              G's owner's as the G's own fields. */
	size_t run_bytes, p_bytes, g_bytes;
	/* Reads rt->knobs into its state, and fills in c (holding the
	 * defaults) before the core makes the Ps.  On failure (e says why)
	 * it leaves nothing to free: fini is not called. */
	bool (*init)(struct rt *rt, struct pol_choices *c, struct err *e);
	/* Optional second stage, called once the Ps are made and placed
	 * (rt->allp[i]->node and ->cpu are set) and before any M runs: the
	 * place for tables built from the Ps' layout.  Optional fini frees
	 * what init and placed made beyond the state above (placed has not
	 * run if rt_new failed before it). */
	void (*placed)(struct rt *rt);
	void (*fini)(struct rt *rt);
	/* A G became runnable: newly spawned, woken from a wait (g->wake says
	 * by what), or yielding. */
	void (*newproc)(struct m *m, struct g *g);
	void (*ready)(struct m *m, struct g *g);
	/* Gs the netpoller readies go through ready one by one (else the core
	 * places them as Go's injectglist does). */
	bool ready_net;
	void (*yield)(struct m *m, struct g *g);
	/* The next G for m (holding a P) to run, parking and spinning as the
	 * policy does; *inherit says it continues the last G's time slice.
	 * Returns NULL once the run is over. */
	struct g *(*find_runnable)(struct m *m, bool *inherit);
};

/* Knobs (policies/knobs.c, compiled once). */
int pol_nknobs(const struct pol_ops *pol);
const struct pol_knob *pol_knob(const struct pol_ops *pol, const char *name, int *index);
void pol_default_knobs(const struct pol_ops *pol, int64_t *knobs);
/* Applies one "key=value" to knobs; on an unknown key or a bad value says
 * which in e (naming the policy and the allowed keys or range). */
bool pol_set_knob(const struct pol_ops *pol, int64_t *knobs, const char *assignment,
		  struct err *e);

/* ---- The runtime ---- */

/* A class of the body's Gs whose user time the result keeps apart (a
 * workload's: its programs), at most this many: the last holds the rest. */
#define RT_USER_CLASSES 32

/* One value a body drew from a random stream, keyed by the stream. */
struct rt_draw {
	uint64_t key;
	int64_t v;
};

/* The most Ps a run has: --procs, sweeps and regress suites all take 1 to
 * RT_MAX_PROCS. */
#define RT_MAX_PROCS 4096

/* Where a run is cut and what it records besides its result: the same
 * for the runtime (rt_config) and a run of the library (run/run.h). */
struct rt_limits {
	/* Limits [docs/runtime.md, "Limits"]; 0 takes the default.  A
	 * simulated run is cut where its clock would pass max_sim_ns (at most
	 * RT_MAX_SIM_NS) or where it has taken max_wall_ns of real time; the
	 * native platform has neither.  max_memory is the run-time memory
	 * budget of a workload's run (both platforms), at most
	 * RT_MEMORY_BUDGET: what it makes past it panics. */
	int64_t max_sim_ns, max_wall_ns;
	uint64_t max_memory;
	/* Record the run's execution trace [core/trace.h] (rt_api.trace),
	 * at most trace_limit events (0: RT_TRACE_LIMIT); past it the run
	 * goes on and the trace is dropped.  Never changes a simulated run. */
	bool trace;
	uint64_t trace_limit;
	/* Go's schedtrace lines on stderr every schedtrace_ns of the run's
	 * time (simulated, or wall natively; 0: none), with the P, M and G
	 * lines if scheddetail [core/schedtrace.c]. */
	int64_t schedtrace_ns;
	bool scheddetail;
	/* A simulated run's progress on stderr every progress_ns of real
	 * time (0: none): its simulated time against max_sim_ns, redrawn in
	 * place where progress_redraw (a terminal), else a line each time. */
	int64_t progress_ns;
	bool progress_redraw;
	/* Where each G's scheduling latency went, by cause [core/why.c;
	 * docs/runtime.md, "Why a G waited"]: rt_mech.why.  Simulated runs
	 * only; never changes a simulated run. */
	bool why;
};

/* The OS a simulated run's threads live under [docs/hardware-model.md,
 * "The OS beneath the runtime"]: what the process may use, and who else
 * runs on the machine.  All zero: the whole machine, to itself. */
struct rt_os {
	/* CPU bandwidth (cgroup v2 cpu.max, v1 cpu.cfs_quota_us): the
	 * process's threads together run at most quota_ns of every
	 * period_ns, then all wait for the next period; quota_ns 0: none. */
	int64_t quota_ns, period_ns;
	/* The PUs it may run on, a flag per PU of the topology (by index);
	 * NULL: every PU. */
	const bool *cpuset;
	/* Other processes: load_threads threads, each busy load_duty (0 to
	 * 1) of every load_period_ns. */
	int load_threads;
	double load_duty;
	int64_t load_period_ns;
};

/* The ranges rt_new takes: a quota's period as the kernel's
 * cpu.cfs_period_us (1 ms to 1 s), the other load's likewise. */
#define RT_OS_PERIOD_MIN ((int64_t)1000000)
#define RT_OS_PERIOD_MAX ((int64_t)1000000000)
#define RT_OS_LOAD_MAX 4096

struct rt_config {
	const struct pol_ops *policy;
	const int64_t *knobs;          /* one per policy knob; NULL: the defaults */
	int procs;                     /* Ps; 0: one per PU of the topology */
	uint64_t seed;
	const struct topo *topo;       /* simulated machine, or the host natively */
	/* What the Gs run [core/body.h], and what that body is given: the
	 * compilation's own body (rt_api.body: a workload's programs, given
	 * a struct wlr_args) or the native C API's (a struct natp_c_args). */
	const struct body_ops *body;
	const void *body_arg;
	struct rt_limits lim;
	struct rt_os os;
	/* `schedlab explore`'s perturbations, checks and seeded bug
	 * [core/explore.h]; NULL in every other run. */
	struct rt_explore *explore;
};
/* 56 bytes an event, and a second copy while merging: 448 MB at most. */
#define RT_TRACE_LIMIT ((uint64_t)4000000)

#define RT_DEFAULT_MAX_SIM_NS (3600 * (int64_t)1000000000)      /* one hour */
#define RT_DEFAULT_MAX_WALL_NS (600 * (int64_t)1000000000)      /* ten minutes */
/* An M's clock is a double in the sim platform: below 2^49 ns (156 hours)
 * it still resolves 1/16 ns, so the model's nanosecond-sized costs keep
 * their meaning.  Far below RT_TIME_NEVER, too. */
#define RT_MAX_SIM_NS (100 * 3600 * (int64_t)1000000000)        /* 100 hours */
/* The largest memory budget of a timed run (--max-memory), and what the
 * core counts against it for each G it makes: a bound on what one costs
 * in simulator memory with its share of queues and histograms.  A body's
 * own objects count against the same budget (the workload compiler's
 * check and its run: workloads/program.h). */
#define RT_MEMORY_BUDGET (4ull << 30)
#define RT_BYTES_PER_G 512u

/* How a run ended, when not by itself (a run that completes, deadlocks or
 * panics ends by itself). */
enum rt_ended {
	RT_ENDED_ITSELF,
	RT_ENDED_SIM_TIME,    /* cut at the simulated-time limit */
	RT_ENDED_WALL_TIME,   /* cut at the wall-clock limit */
	RT_ENDED__COUNT,
};
extern const char *const rt_ended_names[RT_ENDED__COUNT];  /* the report's "ended" */

/* The cpu breakdown of a run [docs/runtime.md, "The cpu breakdown"]:
 * where the Ms' time went, from each M's start to the end of the run,
 * split into time on a CPU and time off it.  Each set's fractions are of
 * its own total, so each adds up to exactly 1. */
enum rt_cpu {
	/* on a CPU */
	RT_CPU_USER,       /* Gs' own work: compute, and the memory their touches read */
	RT_CPU_SCHED,      /* the runtime's own work: run queues, G switches, channels, ... */
	RT_CPU_SPIN,       /* Ms spinning for work, Gs spinning for a sync.Mutex */
	RT_CPU_LOCK_SPIN,  /* a runtime lock's slow path: spinning, yielding, futex calls */
	/* off a CPU */
	RT_CPU_LOCK_SLEEP, /* asleep on a runtime lock's futex */
	RT_CPU_SYSCALL,    /* Gs' Ms blocked in system calls */
	RT_CPU_PARKED,     /* asleep by choice: nothing to do, sysmon's naps, a thief's back-off */
	RT_CPU__COUNT,
};
#define RT_CPU_FIRST_OFF RT_CPU_LOCK_SLEEP
/* The report's keys: within "on_cpu" for the first four, "off_cpu" for
 * the rest (both lock states are "lock_wait"). */
extern const char *const rt_cpu_names[RT_CPU__COUNT];

/* Whose lock the lock wait was for: the scheduler's own (sched.lock and
 * the Ps' shared queues), a channel's, a sync.Mutex's or WaitGroup's
 * queue, the netpoller's descriptors, or a P's timers. */
enum rt_lock_class {
	RT_LOCK_SCHED,
	RT_LOCK_CHAN,
	RT_LOCK_SYNC,
	RT_LOCK_NET,
	RT_LOCK_TIMERS,
	RT_LOCK__COUNT,
};
extern const char *const rt_lock_names[RT_LOCK__COUNT];  /* the report's keys */

struct rt_cpu_time {
	bool measured;                 /* a timed run's (an untimed one reads no clock) */
	uint64_t ns[RT_CPU__COUNT];    /* summed over Ms */
	/* ns[RT_CPU_LOCK_SPIN] ([0]) and ns[RT_CPU_LOCK_SLEEP] ([1]) by whose lock */
	uint64_t lock_ns[2][RT_LOCK__COUNT];
	uint64_t on_ns, off_ns;        /* the two sets' totals: their fractions' denominators */
	uint64_t lifetime_ns;          /* every M's time from its start to the end of the run
					* (natively, to its last state change if that read the
					* clock just before the end was published): on_ns +
					* off_ns, unless a panic cut the run short */
	uint64_t span_ns;              /* from the start of the run to its end (every M idle) */
	int pus;                       /* the machine's PUs */
	bool futex_measured;           /* the platform counts the CPU its futex calls take */
	uint64_t futex_ns;             /* ... which is this, within on_ns */
	/* The CPU the netpoller's calls spent on the ready events they took,
	 * waiting for the epoll instance and copying (plat_netpoll_took),
	 * within on_ns; 0 where nothing counts it */
	uint64_t netpoll_ns;
};

/* True if k is one of the off-CPU figures. */
static inline bool rt_cpu_off(enum rt_cpu k)
{
	return k >= RT_CPU_FIRST_OFF;
}
/* ns[k] over its set's total, if the run measured it and that total is
 * not 0. */
bool rt_cpu_frac(const struct rt_cpu_time *c, enum rt_cpu k, double *frac);
/* The lock wait for class k, on a CPU (off false) or off it, over that
 * set's total. */
bool rt_lock_frac(const struct rt_cpu_time *c, bool off, enum rt_lock_class k, double *frac);
/* The OS's view: PUs busy on average over the span (on_ns / span_ns),
 * that over the machine's PUs, and the futex calls' share of on_ns. */
bool rt_cpu_busy_pus(const struct rt_cpu_time *c, double *pus);
bool rt_cpu_busy_frac(const struct rt_cpu_time *c, double *frac);
bool rt_cpu_futex_frac(const struct rt_cpu_time *c, double *frac);
/* netpoll_ns's share of on_ns; false if none was counted. */
bool rt_cpu_netpoll_frac(const struct rt_cpu_time *c, double *frac);

/* The CPU the OS gave a native run's threads, from their own scheduler
 * statistics [docs/runtime.md, "The CPU a native run got"]: every thread
 * the platform made for the run (Ms, sysmon among them, the --schedtrace
 * thread) read as it ends, and the calling thread's share of the run.
 * A simulated M's PU is never taken from it: measured stays false. */
struct rt_host {
	bool measured;
	bool schedstat;                /* the kernel keeps run delays (schedstat) */
	uint64_t threads;              /* threads counted */
	uint64_t wall_ns;              /* from the run's start to its last thread's end */
	uint64_t cpu_ns;               /* CPU time they got */
	uint64_t run_delay_ns;         /* time runnable, waiting for a CPU (schedstat) */
	uint64_t timeslices;           /* times put on a CPU (schedstat) */
	uint64_t voluntary_switches, involuntary_switches;
	int pus;                       /* the machine's PUs (the topology's) */
	int procs;                     /* the run's Ps */
	double loadavg_start, loadavg_end;   /* /proc/loadavg, 1 min; < 0: unread */
	bool stat_read;                /* /proc/stat read at both ends */
	uint64_t others_cpu_ns;        /* CPU the rest of the machine used meanwhile */
	uint64_t steal_ns;             /* time a hypervisor took from the machine's vCPUs */
	/* The CPU quota of the cgroup the run was in, and what its cpu.stat
	 * counted during the run (cgroup: a quota was set and read) */
	bool cgroup;
	int64_t quota_ns, period_ns;
	uint64_t periods, throttled_periods, throttled_ns;
};
/* Below this share of their runnable time on a CPU, the host starved the run. */
#define RT_HOST_BUSY_SHARE 0.9
/* cpu / (cpu + run delay): false without run delays or CPU. */
bool rt_host_share(const struct rt_host *h, double *share);
/* Whether the host starved the run [docs/runtime.md, "The CPU a native
 * run got"], and why, in a phrase (why: "" if not). */
bool rt_host_busy(const struct rt_host *h, char *why, size_t size);

/* Memory a body asks the platform for [core/platform.h: regions], and how
 * its Gs walk it.  HEAP: Go's heap, whose placement is the policy's
 * (rt->choices.node_heaps: the running P's node; else the OS's first touch). */
enum rt_place { RT_PLACE_LOCAL, RT_PLACE_NODE, RT_PLACE_INTERLEAVE, RT_PLACE_FIRST_TOUCH,
		RT_PLACE_HEAP };
enum rt_pattern { RT_SEQUENTIAL, RT_RANDOM, RT_POINTER_CHASE };

/* The workload's memory as the platform counted it (simulation only): the
 * cache lines its touches read, by where each came from. */
struct rt_mem {
	bool measured;                 /* the platform counts, and something was touched */
	uint64_t touches;              /* memory operations */
	uint64_t lines;                /* cache lines they touched: cached + dram */
	uint64_t cached;               /* ... served by a cache: a level of the toucher's
					* core, or another core group's (c2c) */
	uint64_t dram;                 /* ... read from DRAM */
	int nhops;                     /* entries of dram_by_hops: the topology's max_hops + 1 */
	uint64_t dram_by_hops[TOPO_MAX_HOPS + 1]; /* DRAM lines by hops to their home node */
};

/* dram_by_hops[0] / dram (false if nothing came from DRAM), and
 * cached / lines (false if nothing was touched). */
bool rt_mem_local_frac(const struct rt_mem *mem, double *frac);
bool rt_mem_cache_hit_frac(const struct rt_mem *mem, double *frac);

/* What a run measured, the same in both modes. */
/* What the simulated OS did to a run's threads [sim/os.h]: the report's
 * "os" object.  modelled: a thread waited for a PU, or the run had a
 * quota, a cpuset or other load; nothing else is set otherwise. */
struct rt_os_stats {
	bool modelled;
	uint64_t threads;              /* the run's Ms */
	uint64_t cpu_ns;               /* CPU time the Ms got */
	uint64_t run_delay_ns;         /* time Ms were runnable, waiting for a PU */
	uint64_t max_m_run_delay_ns;   /* ... the most one M waited */
	uint64_t timeslices;           /* times an M was put on a PU */
	uint64_t voluntary_switches, involuntary_switches;
	uint64_t stays;                /* an M stayed on its PU: its P's was busy */
	uint64_t elsewhere;            /* an M woke on another PU: the one it asked for was busy */
	uint64_t periods, throttled_periods, throttled_ns;   /* the quota's */
	uint64_t load_cpu_ns;          /* CPU the other load's threads got */
};

struct rt_result {
	int64_t makespan_ns;
	uint64_t goroutines, completed;
	bool deadlock;                 /* Gs were left waiting with nothing to wake them */
	uint64_t schedule_hash;        /* a fingerprint of every (time, M, G, P) decision; 0 untimed */
	bool panicked;                 /* a G panicked (send on a closed channel, ...) */
	/* Cut by a limit: the figures cover the run from its start to
	 * makespan_ns, where it was cut (work under way then is counted up to
	 * there; Gs still running or waiting are neither completed nor
	 * deadlocked). */
	enum rt_ended ended;
	char panic[448];               /* "message [goroutine N]" */
	uint64_t nblocked;             /* Gs left parked */
	char blocked[1024];            /* one line each, "goroutine N [reason]: where", truncated */
	struct hist sched_latency;     /* empty in an untimed run (a C function's main) */
	uint64_t requests;             /* requests the workload's servers answered */
	struct hist request_latency;   /* from each request's arrival to its answer */
	/* The last answer, from the run's start (with requests > 0); and the
	 * open-loop arrivals the workload offered (its listeners' connections,
	 * whenever the server takes them): how many, the first's and the
	 * last's instants -- what run_request_load weighs the answers by */
	int64_t request_answered_ns;
	uint64_t offered;
	int64_t offered_first_ns, offered_last_ns;
	uint64_t runs;                 /* times a G was given a P and run */
	uint64_t blocks;               /* times a G parked (not system calls) */
	uint64_t user_ns;              /* Gs' own computation, summed */
	uint64_t syscall_ns;           /* Ms' time blocked in Gs' system calls (timed runs) */
	uint64_t user_ns_by_class[RT_USER_CLASSES]; /* user_ns by the body's class of G (the last: the rest) */
	uint64_t preemptions;          /* Gs preempted (each is scheduled once more) */
	uint64_t retakes;              /* Ps sysmon took from Gs in system calls */
	struct {
		uint64_t same_node, remote_node, gs_stolen;
	} steals;
	struct {
		uint64_t created, parks, wakeups, futex_calls;
	} threads;
	struct {
		uint64_t migrations_core, migrations_node;
		bool stacks;             /* Gs' stacks were modelled (simulated, workload "stacks") */
		uint64_t stack_moves;    /* ... and moved to another node this many times */
		struct rt_mem mem;
	} locality;
	struct rt_cpu_time cpu;
	struct rt_host host;            /* natively [struct rt_host] */
	struct rt_os_stats os;          /* simulated [struct rt_os_stats] */
};

/* ---- The mechanisms behind a run [docs/runtime.md, "The mechanisms"] ----
 * Counters the core keeps at its decision points, apart from struct
 * rt_result (what every caller reads) since they take memory in
 * proportion to Ps and nodes: rt_api.mech fills one, rt_mech_free frees
 * it.  Timed runs only (an untimed one reads no clock). */

/* Why an M took Gs from a global run queue. */
enum rt_gq_why {
	RT_GQ_FAIRNESS,      /* the every-Nth look (Go's schedtick % 61) */
	RT_GQ_LOCAL_EMPTY,   /* its P's own queue was empty */
	RT_GQ_ONLY,          /* the policy's one queue (global: no local queues) */
	RT_GQ_STEAL,         /* looking for work elsewhere: another node's queue */
	RT_GQ_IDLE,          /* the last look before its P goes idle */
	RT_GQ__COUNT,
};
extern const char *const rt_gq_why_names[RT_GQ__COUNT];   /* the report's keys */

/* Why a G became runnable: its wait for a P is counted under this. */
enum rt_run_why {
	RT_RUN_SPAWN,        /* made by go */
	RT_RUN_PARTNER,      /* readied by a channel, mutex or wait group partner */
	RT_RUN_TIMER,        /* its sleep ended */
	RT_RUN_NET,          /* the netpoller: data, a connection, a writable descriptor */
	RT_RUN_SYSCALL,      /* back from a system call without a P */
	RT_RUN_PREEMPT,      /* preempted */
	RT_RUN_YIELD,        /* yielded (Gosched) */
	RT_RUN__COUNT,
};
extern const char *const rt_run_why_names[RT_RUN__COUNT];

/* Why a G is parked (Go's waitReason): its words in the deadlock report
 * and schedtrace's detail, and the execution trace's block reason.  One
 * list: NAME, the words (Go's where Go has them), the trace's reason. */
#define RT_WAIT_REASONS(X)                                                      \
	X(NONE, NULL, RT_TB_OTHER)                                              \
	X(CHAN_SEND, "chan send", RT_TB_CHAN_SEND)                              \
	X(CHAN_RECV, "chan receive", RT_TB_CHAN_RECV)                           \
	X(CHAN_SEND_NIL, "chan send (nil chan)", RT_TB_CHAN_SEND)               \
	X(CHAN_RECV_NIL, "chan receive (nil chan)", RT_TB_CHAN_RECV)            \
	X(SELECT, "select", RT_TB_SELECT)                                       \
	X(SELECT_NO_CASES, "select (no cases)", RT_TB_SELECT)                   \
	X(SLEEP, "sleep", RT_TB_SLEEP)                                          \
	X(IO_READ, "IO wait", RT_TB_NET)                                        \
	X(IO_WRITE, "IO wait (write)", RT_TB_NET)                               \
	X(IO_ENDED, "IO wait (nothing more will arrive)", RT_TB_NET)            \
	X(MUTEX, "sync.Mutex.Lock", RT_TB_SYNC)                                 \
	X(WAITGROUP, "sync.WaitGroup.Wait", RT_TB_SYNC)
enum rt_wait {
#define RT_WAIT_ENUM(name, words, tb) RT_WAIT_##name,
	RT_WAIT_REASONS(RT_WAIT_ENUM)
#undef RT_WAIT_ENUM
	RT_WAIT__COUNT
};
/* The words of a wait reason; NULL for RT_WAIT_NONE. */
extern const char *const rt_wait_names[RT_WAIT__COUNT];

/* Steal batch sizes: 1 to 16 exactly, then by powers of two (17-32, ...). */
#define RT_STEAL_EXACT 16
#define RT_STEAL_BUCKETS (RT_STEAL_EXACT + 28)
unsigned rt_steal_bucket(uint32_t n);
void rt_steal_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi);

/* A run queue's length over time: its integral over the run's span, and
 * the largest length seen. */
struct rt_qlen {
	double area_ns;                /* sum of length x ns */
	uint32_t max;
};

struct rt_mech_p {
	int node;
	uint64_t busy_ns;              /* its M worked for it: the cpu breakdown's user, sched
					* and lock wait while holding it (not spinning for
					* work, parked, or in a G's system call) */
	struct rt_qlen runq;           /* its local queue, runnext included */
	struct rt_qlen sharedq;        /* its shared queue (a policy's placements on it) */
};

struct rt_mech {
	bool measured;                 /* a timed run's */
	uint64_t span_ns;              /* the denominators of the time-weighted figures */
	uint64_t gq_takes[RT_GQ__COUNT], gq_gs[RT_GQ__COUNT];
	struct rt_qlen globrunq;       /* every global queue together */
	uint64_t steal_batches[RT_STEAL_BUCKETS], steal_gs[RT_STEAL_BUCKETS];
	/* scheduling latency by why the G became runnable (NULL: none) */
	struct hist *latency_by_why[RT_RUN__COUNT];
	/* ... and by the body's class of G: a workload's programs */
	int nclasses;
	char *class_names[RT_USER_CLASSES];
	struct hist *latency_by_class[RT_USER_CLASSES];
	uint64_t spinning_ns;          /* Ms spinning for work, summed (its integral) */
	uint32_t spinning_max;         /* the most seen at once, as an M started spinning */
	bool needspinning;             /* the run followed Go 1.26's protocol (choices.needspinning) */
	uint64_t spun_instead;         /* ... and an M spun instead of dropping its P, so often */
	bool one_poller;               /* choices.one_poller */
	uint64_t polls_skipped;        /* ... and a non-blocking poll was left to the M polling */
	int nprocs;
	struct rt_mech_p *p;           /* [nprocs] */
	/* DRAM lines the workload read, by accessing node x home node, and
	 * the model's latency of them by hops (simulation only) */
	bool mem_measured;
	int nnodes, nhops;
	uint64_t *mem_lines;           /* [node * nnodes + home] */
	uint64_t mem_hop_lines[TOPO_MAX_HOPS + 1];
	double mem_hop_ns[TOPO_MAX_HOPS + 1];   /* sum of latency x lines */
	struct rt_why *why;            /* rt_limits.why's breakdown (NULL: not asked) */
};
void rt_mech_free(struct rt_mech *mech);

/* ---- Why a G waited [docs/runtime.md, "Why a G waited"; core/why.c] ----
 * Each scheduling latency (from a G becoming runnable to its running) cut
 * into causes that add up to it exactly.  Where the G was at each moment
 * -- a P's runnext or ring, a global queue, a P's shared queue, numa's
 * held batch, handed to an M, or in no queue -- is followed with a clock
 * read at each move; while it sat in a P's queue, the time its P spent in
 * each state (its M running Gs, waiting for sched.lock, for a PU, under
 * the quota, in a system call, or no M awake for it) is that P's own
 * clock's over the same span, and for a global queue the Ps' together.
 * One list: NAME, the report's key, what it means. */
#define RT_WHY_CAUSES(X)                                                                     \
	X(RUNNEXT, "runnext", "in its P's runnext slot while the P's M ran other work (the G "  \
	  "that readied it, usually)")                                                        \
	X(LOCAL_QUEUE, "local_queue", "in a P's local run queue while the P's M ran the Gs "   \
	  "ahead of it (behind: Gs ahead of it when it was put there, on average)")            \
	X(GLOBAL_QUEUE, "global_queue", "in a global run queue while every P was held by a "   \
	  "running M (behind: Gs ahead of it when it was put there)")                          \
	X(SHARED_QUEUE, "shared_queue", "in a P's shared queue (numa) while the P's M ran "     \
	  "other work")                                                                       \
	X(HELD, "held", "held back by the policy on a P before it was placed (numa's batches " \
	  "of a burst's root goroutines)")                                                    \
	X(M_WAKEUP, "m_wakeup", "a P was free for it -- idle, or handed to an M not running "  \
	  "yet -- and no M had taken it: an M being woken (futex wake-up) or made")           \
	X(SCHED_LOCK, "sched_lock", "the M that would run it (its P's; for a global queue, "   \
	  "the Ms holding Ps, by share) was waiting for sched.lock")                          \
	X(OS_RUN_DELAY, "os_run_delay", "that M was runnable but waiting for a PU (the OS "    \
	  "model's run delay: more runnable threads than PUs)")                               \
	X(CPU_QUOTA, "cpu_quota", "that M was throttled by the CPU quota until the next "      \
	  "period")                                                                           \
	X(SYSCALL, "syscall", "its P's M was blocked in another G's system call, the P not "   \
	  "yet retaken by sysmon")                                                            \
	X(NETPOLL, "netpoll", "readied by the netpoller with a batch of events: from the "     \
	  "poll's return until its own event was delivered, those ahead of it first")          \
	X(TIMER, "timer", "its sleep was over but its timer not yet run (an M got to the P's " \
	  "timers late)")                                                                     \
	X(SCHEDULER, "scheduler", "in no queue: the runtime's own work making it runnable and " \
	  "putting it on a queue, or taking it off one and switching to it")
enum rt_why_cause {
#define RT_WHY_ENUM(name, key, doc) RT_WHY_##name,
	RT_WHY_CAUSES(RT_WHY_ENUM)
#undef RT_WHY_ENUM
	RT_WHY__COUNT
};
extern const char *const rt_why_names[RT_WHY__COUNT];   /* the report's keys */

/* A request's time, from its arrival (or its request_begin) to its
 * answer, cut into causes that add up to its latency [docs/runtime.md,
 * "Why a request took its time"]: what happened before its handler G had
 * the data, the handler's own waits for a P by the causes above, its M
 * held back while it ran (os_run_delay, cpu_quota, sched_lock), and the
 * rest of its time parked or running.  The index of the list: the three
 * before-handler causes, then RT_WHY__COUNT scheduling causes at
 * RT_WHYRQ_SCHED + k, then blocked and running. */
#define RT_WHYRQ_PRE(X)                                                                      \
	X(ACCEPT, "accept_backlog", "a new connection's first request, from its arrival to "  \
	  "its handler G being made: the acceptor's wake-up and turn, and the connections "   \
	  "accepted ahead of it")                                                             \
	X(UNPOLLED, "unpolled", "the data had arrived and its handler was parked reading, "    \
	  "but no M had polled the network yet")                                             \
	X(BUSY, "handler_busy", "the data arrived while its handler was doing something "      \
	  "other than reading it (finishing the last request, say)")
enum rt_whyrq {
#define RT_WHYRQ_ENUM(name, key, doc) RT_WHYRQ_##name,
	RT_WHYRQ_PRE(RT_WHYRQ_ENUM)
#undef RT_WHYRQ_ENUM
	RT_WHYRQ_SCHED,                                  /* + enum rt_why_cause */
	RT_WHYRQ_BLOCKED = RT_WHYRQ_SCHED + RT_WHY__COUNT, /* parked on a channel, lock, sleep,
							  * wait group or another read */
	RT_WHYRQ_RUNNING,                                /* on its M: its work, its system calls */
	RT_WHYRQ__COUNT
};
extern const char *const rt_whyrq_names[RT_WHYRQ__COUNT];
struct rt_why_requests {
	uint64_t requests;             /* answered with a request_begin before */
	uint64_t total_ns;             /* their latencies' sum: ns[] adds up to it */
	uint64_t ns[RT_WHYRQ__COUNT];
	uint64_t with[RT_WHYRQ__COUNT];   /* requests with any time in the cause */
};

/* The waits of one class of G (a workload's program), or of all. */
struct rt_why_class {
	uint64_t waits;                /* scheduling latencies measured */
	uint64_t total_ns;             /* their sum: ns[] adds up to it exactly */
	uint64_t ns[RT_WHY__COUNT];
	uint64_t waits_with[RT_WHY__COUNT];   /* waits with any time in the cause */
	/* queue causes: Gs ahead of it at each put on such a queue */
	uint64_t ahead_sum[RT_WHY__COUNT], puts[RT_WHY__COUNT];
};
struct rt_why {
	int nclasses;                  /* the body's classes (rt_mech.class_names) */
	struct rt_why_class cls[RT_USER_CLASSES];
	struct rt_why_class all;
	struct rt_why_requests req;
	/* the waits' time with fewer Gs running than Ps (a P with no G), as
	 * an imported trace's recording gives it (recorded.wait_p_free_ns) */
	uint64_t wait_p_free_ns;
};

/* One compilation of the runtime: the simulated one or the native one.
 * Both are linked into every program; a run picks one. */
struct rt_api {
	const char *mode;              /* "sim" or "native" */
	int (*pol_count)(void);
	const struct pol_ops *(*pol_at)(int i);
	const struct pol_ops *(*pol_find)(const char *name);
	/* NULL on bad input (the workload, the knobs), with the reason in e. */
	struct rt *(*create)(const struct rt_config *cfg, struct err *e);
	void (*run)(struct rt *rt);
	void (*result)(struct rt *rt, struct rt_result *out);
	void (*destroy)(struct rt *rt);
	/* The body this compilation's runs are given by the command: a
	 * workload's programs, interpreted. */
	const struct body_ops *body;
	/* Every value the run's body drew from its random streams, in the
	 * order drawn, if it was asked to record them. */
	size_t (*draws)(struct rt *rt, const struct rt_draw **out);
	/* The run's execution trace (rt_config.trace), valid until destroy;
	 * false with the reason in e if it was not recorded or passed
	 * its limit. */
	bool (*trace)(struct rt *rt, struct rt_trace *out, struct err *e);
	/* The run's mechanism counters, after result (which closes the Ms'
	 * time up to the end); the caller frees them with rt_mech_free. */
	void (*mech)(struct rt *rt, struct rt_mech *out);
};
extern const struct rt_api sim__rt_api, nat__rt_api;

/* Prints a panic or a deadlock in Go's words to f; returns the exit status
 * (0 if the run ended well, EXIT_FOUND for a deadlock, EXIT_BADINPUT for a
 * panic, as Go exits 2). */
int rt_result_report_fatal(const struct rt_result *r, FILE *f);

#endif
