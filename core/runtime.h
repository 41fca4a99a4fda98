/* Runtime core: G, M and P, the scheduler's shared state, and the policy
 * interface.  The essay on how they fit together opens core/proc.c;
 * fields below point back to its sections as [proc: Section].
 *
 * Locking, written down once:
 *   sched.lock guards the global run queue, the idle M and P lists, the
 *   global G free list and the M count (each marked "sched.lock");
 *   a P's own fields are the owner's (the M holding the P) except those
 *   marked atomic, which any M may read;
 *   a G belongs to exactly one place at a time: running on one M, on one
 *   run queue (a ring slot, a runnext, or the global queue), parked on one
 *   wait queue, or free.  Its fields are that place's owner's. */
#ifndef SCHEDLAB_CORE_RUNTIME_H
#define SCHEDLAB_CORE_RUNTIME_H

#include "core/platform.h"
#include "core/body.h"
#include "core/policy.h"
#include "topologies/topo.h"
#include "util/hist.h"
#include "core/trace.h"
#include "core/explore.h"

#include <assert.h>

/* ---- Locks and notes (core/lock.c) ---- */

/* A futex mutex; the key is unlocked, locked, or locked with sleepers. */
struct rt_mutex {
	plat_u32 key;
	uint8_t cls;    /* enum rt_lock_class: whose wait it is in the report */
};
enum {
	RT_MUTEX_UNLOCKED = 0,
	RT_MUTEX_LOCKED = 1,
	RT_MUTEX_SLEEPING = 2,
};
void rt_mutex_init(struct rt *rt, struct rt_mutex *l, plat_line_t line, enum rt_lock_class cls);
void rt_lock_slow(struct rt_mutex *l, uint32_t v);
bool rt_mutex_held(struct rt_mutex *l);
/* Inline up to the uncontended case; the rest is in lock.c. */
static inline void rt_lock(struct rt_mutex *l)
{
	uint32_t v = plat_xchg_u32(&l->key, RT_MUTEX_LOCKED, memory_order_acquire);
	if (v != RT_MUTEX_UNLOCKED)
		rt_lock_slow(l, v);
}
/* Takes the lock only if it is free; never waits. */
static inline bool rt_trylock(struct rt_mutex *l)
{
	uint32_t expected = RT_MUTEX_UNLOCKED;
	return plat_cas_u32(&l->key, &expected, RT_MUTEX_LOCKED, memory_order_acquire);
}
static inline void rt_unlock(struct rt_mutex *l)
{
	uint32_t v = plat_xchg_u32(&l->key, RT_MUTEX_UNLOCKED, memory_order_release);
	assert(v != RT_MUTEX_UNLOCKED && "unlock of an unlocked mutex");
	if (v == RT_MUTEX_SLEEPING)
		plat_futex_wake(&l->key, 1);
}

/* A one-shot wake-up, as Go's note: one sleeper, one waker, then cleared. */
struct rt_note {
	plat_u32 key;
};
void rt_note_init(struct rt_note *n, plat_line_t line);
void rt_note_clear(struct rt_note *n);
void rt_note_sleep(struct rt_note *n);
/* ... for ns at most; true if woken (Go's notetsleep). */
bool rt_note_tsleep(struct rt_note *n, int64_t ns);
void rt_note_wakeup(struct rt_note *n);

/* ---- Simulated time's arithmetic ----
 *
 * Times are int64_t ns.  A time computed as now + a duration (a sleep, a
 * time-out, a listener's next arrival) saturates at RT_TIME_NEVER instead
 * of wrapping: a workload's durations are at most DIST_VALUE_MAX (2^61),
 * but its expressions may compute any int64_t, and a wrapped time would
 * be in the past -- a sleep that takes no time.  RT_TIME_NEVER is far
 * beyond the longest run a simulation may make (RT_MAX_SIM_NS), so what
 * waits for it waits until the run is cut. */
#define RT_TIME_NEVER ((int64_t)1 << 62)

/* now + ns (ns < 0 counts as 0), at most RT_TIME_NEVER. */
static inline int64_t rt_time_after(int64_t now, int64_t ns)
{
	if (ns <= 0)
		return now;
	return ns >= RT_TIME_NEVER - now ? RT_TIME_NEVER : now + ns;
}

/* ---- Timers (core/time.c) ---- */

struct timer {
	int64_t when;            /* when it fires (plat_nanotime) */
	uint64_t seq;            /* order of adding on its P: breaks ties of when */
	void (*f)(struct m *m, struct timer *t);   /* run on an M holding a P */
	struct g *g;             /* for f */
	struct p *pp;            /* the heap it is on, NULL if none (its timers_lock) */
	uint32_t idx;            /* its place in that heap */
	struct timer *next;      /* while being run */
};

/* ---- The netpoller (core/netpoll.c) ---- */

/* A real file descriptor the netpoller watches (Go's pollDesc), opened
 * natively through the C API.  (A body's own sources of data, such as a
 * workload's listeners, are the body's: body_ops' net_ hooks.)  Guarded
 * by its lock. */
struct pollfd_desc {
	struct rt_mutex lock;
	plat_line_t line;
	struct g *rg;            /* the G parked reading it */
	/* Readiness seen and not yet consumed by a waiter (readiness comes
	 * as edges: one with no waiter must be kept). */
	int fd;
	bool open;
	bool rready, wready;
	struct g *wg;            /* the G parked writing it */
	struct pollfd_desc *link;  /* next on the free list (sched.lock) */
	struct pollfd_desc *all_link; /* every descriptor made (sched.lock) */
	struct plat_pd plat;
};

enum { NETPOLL_R = 1, NETPOLL_W = 2 };
struct netpoll_event {
	struct pollfd_desc *pd;  /* a descriptor's, or NULL: */
	void *src;               /* ... the body's source's [body_ops.net_deliver] */
	uint64_t units;          /* the body's: units of data that became readable */
	int64_t when;            /* ... and when they arrived */
	uint32_t mode;           /* a descriptor: NETPOLL_R and/or NETPOLL_W */
};

/* An M's execution-trace events [core/trace.c], its own: no lock.  A
 * list of chunks, each mapped once and never moved: ev and cap are the
 * chunk being filled, whose header (struct rt_tchunk) precedes it. */
struct rt_tchunk;
struct rt_tbuf {
	struct rt_tev *ev;
	size_t n, cap;
	struct rt_tchunk *chunks; /* newest first, the one being filled included */
	size_t total;            /* events in the chunks before the current one */
	uint64_t seq;            /* natively: this M's events so far */
};

/* ---- G ---- */

enum g_status {
	G_IDLE,       /* just allocated, not yet initialised */
	G_RUNNABLE,   /* on a run queue */
	G_RUNNING,    /* running on an M that holds a P */
	G_SYSCALL,    /* in a system call, on an M that may have lost its P */
	G_WAITING,    /* parked: on a wait queue, or nowhere until readied */
	G_DEAD,       /* exited, on a free list */
};

struct hchan;
struct p_mech;
struct rt_mechrun;

/* A G waiting on a channel: [proc: Channels]. */
struct sudog {
	struct g *g;
	struct sudog *next, *prev;
	struct sudog *wnext;  /* on a list of Gs being woken together */
	struct hchan *c;
	uint64_t elem;      /* the value sent, or received */
	bool success;       /* completed by a peer (not by close) */
	bool queued;        /* on a channel's wait queue */
	bool is_send;
	bool is_select;     /* one case of a select: claimed through sel->done */
	uint32_t case_index;
};

/* A FIFO of waiting Gs' sudogs: a channel's senders or receivers, a
 * mutex's or wait group's waiters.  Guarded by its owner's lock. */
struct waitq {
	struct sudog *first, *last;
};

static inline void waitq_push(struct waitq *q, struct sudog *s)
{
	s->next = NULL;
	s->prev = q->last;
	if (q->last)
		q->last->next = s;
	else
		q->first = s;
	q->last = s;
	s->queued = true;
}

static inline void waitq_remove(struct waitq *q, struct sudog *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		q->first = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else
		q->last = s->prev;
	s->next = s->prev = NULL;
	s->queued = false;
}

static inline struct sudog *waitq_pop(struct waitq *q)
{
	struct sudog *s = q->first;
	if (s)
		waitq_remove(q, s);
	return s;
}

/* A G's select [chan.c]: allocated at its first select. */
#define RT_SELECT_MAX 16
enum { RT_SELECT_DEFAULT = -1, RT_SELECT_PARKED = -2 };
struct gselect {
	plat_u32 done;                      /* atomic: a partner claimed this select */
	uint32_t n;
	struct hchan *order[RT_SELECT_MAX]; /* the cases' channels in lock order */
	struct sudog sud[RT_SELECT_MAX];
	struct sudog *fired;                /* the case that completed it */
};

struct select_case {
	struct hchan *c;
	bool send;
	uint64_t v;         /* the value to send */
};

/* Laid out by who touches what: the first line holds what the M that
 * takes a G from a queue and runs it reads and writes (the G was usually
 * made or readied on another CPU, so each line touched is a cache miss),
 * the second the platform's context, the third what a channel wait uses,
 * the fourth what is set when the G is made and read only in a timed run,
 * by a policy that uses it, or by a less common wait.  Natively that is
 * 208 bytes, and the body's state follows in the fourth line, then the
 * policy's (a C function's call, and numa's records: 256 bytes a G);
 * making a G writes its first and fourth lines, running it the first
 * two.  Gs are allocated on cache-line boundaries (gslab_new). */
struct g {
	struct g *schedlink;     /* next on a free list or a shared queue, or readied together */
	enum g_status status;
	int last_cpu;            /* PU it last ran on, -1 before its first run */
	struct m *m;             /* the M running it, while running */
	int64_t runnable_since;  /* when it last became runnable (scheduling latency); -1: untimed */
	plat_u32 preempt;        /* atomic: sysmon asks it to give up the P [sysmon.c] */
	uint32_t burst;          /* Gs it made in its current time slice */
	bool panicking;          /* it panicked: it ends at its next op boundary */
	bool in_op;              /* parked inside the op at pc; it completes on resume */
	/* Where it is [proc: Every G in one place]: the run queue holding it,
	 * RT_Q_NONE while running, parked, free or in transit inside one
	 * operation.  Written by whoever owns the G at that moment, in builds
	 * with asserts only (rt_g_enq). */
	uint8_t onq;
	uint8_t wake;            /* why it was last readied (enum rt_wake) */
	uint8_t runwhy;          /* why it last became runnable (enum rt_run_why): the report's */
	struct plat_g plat;

	/* While it waits (a channel's wait touches this line only); each
	 * wait sets the fields it uses. */
	struct sudog sud;
	uint8_t waitreason;      /* why it is parked (enum rt_wait) */

	uint64_t goid;
	/* The node its stack is (to be) on, its maker's at first.  A G's
	 * stack is the core's (plat_g's natively; in simulation a body may
	 * model one: body_ops.g_stack_modelled), like where the G last ran:
	 * the body that models it sets this, also when it moves the stack
	 * (g_stack_move), and a policy that moves stacks reads it. */
	int stack_node;
	/* Made at its first select or sleep, kept while the G struct is
	 * reused: inline, they would make every G a line longer for the few
	 * that use them. */
	struct gselect *sel;
	struct timer *timer;     /* its sleep */
	/* The runtime's own G (Go 1.13's timer goroutine of the heap of
	 * sys_p), run by the core, not by the body; none of the body's hooks
	 * is ever called on it, and it counts in no figure of the report */
	struct p *sys_p;
};

/* Its body's own state (body_ops.g_bytes of it), right after it in its
 * slab; the policy's (pol_ops.g_bytes) follows that, at rt->pol_g_off. */
static inline void *rt_g_body(struct g *g)
{
	return g + 1;
}

/* The places a runnable G can be [proc: Every G in one place]. */
enum rt_q {
	RT_Q_NONE,
	RT_Q_LOCAL,      /* a P's ring or runnext */
	RT_Q_GLOBAL,     /* a global run queue */
	RT_Q_SHARED,     /* a P's shared queue */
	RT_Q_NEXTG,      /* handed to an M directly (m->nextg) */
	RT_Q_POLICY,     /* a policy's own queue */
};

/* Why a parked G became runnable: a policy may place it by that. */
enum rt_wake {
	RT_WAKE_OTHER,        /* a channel, mutex or wait group partner */
	RT_WAKE_TIMER,        /* its sleep ended */
	RT_WAKE_NET_WRITE,    /* its descriptor became writable */
	RT_WAKE_NET_READ,     /* data arrived on its connection or descriptor */
	RT_WAKE_NET_ACCEPT,   /* a connection arrived on its listener */
};

/* Marks g as moving onto queue q / off it (asserted in debug builds):
 * a G is on at most one queue, and taken only from the one it is on.
 * Only the asserts read the mark, so a build without them does not keep
 * it: a batch moved between the global and a local queue would otherwise
 * write to every G in it, which the queues are rings of pointers to
 * avoid. */
static inline void rt_g_enq(struct g *g, enum rt_q q)
{
#ifdef NDEBUG
	(void)g, (void)q;
#else
	assert(g->onq == RT_Q_NONE && "a G put on a queue while on another");
	g->onq = (uint8_t)q;
#endif
}
static inline void rt_g_deq(struct g *g, enum rt_q q)
{
#ifdef NDEBUG
	(void)g, (void)q;
#else
	assert(g->onq == q && "a G taken from a queue it is not on");
	g->onq = RT_Q_NONE;
#endif
}

/* ---- P ---- */

enum p_status {
	P_IDLE,       /* on the idle list, or being handed to an M */
	P_RUNNING,    /* held by an M */
	P_SYSCALL,    /* its G is in a system call: its M may take it back, or sysmon retake it */
};

struct p {
	int id;
	int cpu, node;           /* the PU an M holding it runs on, and its node */
	plat_u32 status;         /* atomic: read by stealers [proc: Stealing] */
	struct m *m;             /* the M holding it */
	struct m *lastm;         /* the M that held it last (for P-M affinity) */
	struct p *link;          /* next on the idle list (sched.lock) */
	uint32_t schedtick;      /* Gs scheduled with a fresh time slice (owner) */
	plat_u32 schedtick_pub;  /* atomic copy of schedtick, for sysmon */
	plat_u32 syscalltick;    /* atomic: system calls returned or retaken */
	plat_ptr curg;           /* atomic: the G running on it, for sysmon */
	/* sysmon's own records [sysmon.c] */
	uint32_t sm_schedtick, sm_syscalltick;
	int64_t sm_schedwhen, sm_syscallwhen;

	/* The local run queue [proc: Run queues; runq.c].  runq and
	 * runqtail are written by the owner only; runqhead by any consumer
	 * (CAS).  runqhead packs the head position (low half) with a count
	 * of the owner's LIFO pops (high half): rq_head(), rq_head_make(). */
	plat_u64 runqhead;
	plat_u32 runqtail;
	plat_ptr *runq;          /* runq_mask + 1 slots, a power of two */
	uint32_t runq_mask;
	struct g **runqbatch;    /* half a ring and one: runqputslow's batch (owner) */
	plat_ptr runnext;        /* a G to run next, ahead of runq */

	/* The shared queue: a FIFO any M may put to (a policy's placement of
	 * Gs on this P from elsewhere), under its own lock; size is a hint
	 * read without it.  Unused by policies that never put there. */
	bool sharedq_used;       /* the policy puts to it (choices.shared_queues) */
	struct rt_mutex sharedq_lock;
	struct g *sharedq_head, *sharedq_tail;
	plat_u32 sharedq_size;

	struct g *gfree;         /* dead Gs to reuse (owner) */
	int ngfree;
	char *gnew_slab;         /* never-used Gs, made a block at a time (owner) */
	int gnew_left;
	/* a slab made and not yet in rt->gslabs: its maker waits for
	 * sched.lock, and a run cut there must still free it (owner) */
	char *gslab_pending;
	uint64_t goidcache, goidcacheend;  /* goroutine ids taken in a batch (owner) */

	/* Timers [time.c]: a 4-ary heap guarded by timers_lock. */
	struct rt_mutex timers_lock;
	plat_line_t timers_line;
	struct timer **timers;
	uint32_t ntimers, captimers;
	uint64_t timerseq;
	plat_u64 timer0;         /* atomic: when of the earliest, 0 if none */
	/* Go 1.13's timer goroutine of this heap, as a bucket [time.c, "Go
	 * 1.13"] (timers_lock): made at the first timer; asleep in a system
	 * call until tp_until, woken early by tp_note; or parked, with no
	 * timer left */
	struct g *tp_g;
	struct rt_note tp_note;
	int64_t tp_until;
	bool tp_sleeping, tp_parked;
	/* the G in a system call on it, for the trace (published by the
	 * status store that starts the call) */
	uint64_t trace_sysg;
	struct p_mech *mech;     /* the report's counters of it (owner) [core/mech.h] */
	int64_t idle_since;      /* explored runs: when it last went idle (sched.lock) */
	struct rt_why_p *why;    /* its state clock, with --why [core/why.c] */
};

/* ---- M ---- */

/* Where an M's time went, ns (the report's cpu breakdown), and what it did. */
struct m_stats {
	uint64_t gs_created, gs_exited;
	uint64_t runs;           /* Gs it ran (a G runs again after each yield or park) */
	uint64_t gparks;         /* Gs that parked on it (blocked: a channel, a lock, a sleep, ...) */
	int64_t last_exit_ns;    /* when the last G it ended exited */
	uint64_t futex_calls;    /* counted by the platform */
	uint64_t steals_same_node, steals_remote_node, gs_stolen;
	uint64_t parks, migrations_core, migrations_node;
	uint64_t stack_moves;    /* modelled stacks moved to another node */
	uint64_t user_ns;        /* Gs' own work (compute, touches), within time_ns[RT_CPU_SCHED] */
	/* Timed runs only [proc: Where the time goes]: its time by state
	 * (RT_CPU_x; user is not one), cut at the end of the run, and the
	 * lock states' by whose lock ([0] spinning, [1] asleep). */
	uint64_t time_ns[RT_CPU__COUNT];
	uint64_t lock_ns[2][RT_LOCK__COUNT];
	uint64_t futex_ns;       /* CPU its futex calls took, where the platform counts it */
	uint64_t netpoll_ns;     /* CPU its polls spent on ready events, likewise [platform.h] */
	uint64_t preempted;      /* Gs that gave up their P to a preemption request */
	uint64_t sched_hash;     /* fingerprint of its scheduling decisions */
	uint64_t spinning_ns;    /* spinning for work (time_ns[RT_CPU_SPIN] less sync.Mutex spins) */
	uint32_t spinning_max;   /* Ms spinning at once, as seen when it started to [core/mech.h] */
	uint64_t spun_instead;   /* times it spun instead of dropping its P (needspinning) */
	uint64_t polls_skipped;  /* non-blocking polls left to another M (one_poller) */
	struct hist sched_latency;
};

struct m {
	int id;
	struct rt *rt;
	struct p *p;             /* the P held, if any */
	struct p *nextp;         /* the P to take when woken (set by the waker) */
	struct g *nextg;         /* a G handed to it to run first (set by the waker) */
	int node;                /* the NUMA node it is bound to, -1 if none */
	struct p *oldp;          /* the P it left for a system call */
	struct g *curg;          /* the G running on it */
	bool spinning;           /* looking for work with a P and none found yet [proc: Spinning] */
	uint8_t why_os;          /* with --why: the OS holds it back (RT_WHY_OS_x) [core/why.c] */
	struct rt_why_p *why;    /* ... and its state clock */
	/* Where its time goes (timed runs) [proc: Where the time goes]: its
	 * state (RT_MT), since when, its futex_ns then, when it started (-1:
	 * not yet), and the last instant charged to a state. */
	unsigned mt;
	int64_t mt_since, mt_born, mt_counted;
	uint64_t mt_futex0;
	struct rt_note park;     /* sleeps here when idle */
	struct m *schedlink;     /* next on the idle list (sched.lock) */
	struct m *alllink;       /* every M, newest first (set under sched.lock) */
	uint64_t rand;           /* rt_fastrand state */
	void (*park_unlock)(void *); /* after G_PARK: run on the M once the G is off it */
	void *park_arg;
	struct m_stats stats;
	void *body_m;            /* its Gs' body's state of this M [core/body.h] */
	struct rt_tbuf tbuf;      /* its execution-trace events [core/trace.c] */
	struct plat_m plat;
};

/* wyrand (Wang Yi's generator, as Go's runtime uses): one 64-bit add and a
 * 128-bit multiply per number.  The state is the M's own, so no line is
 * shared and simulated runs stay deterministic. */
static inline uint32_t rt_fastrand(struct m *m)
{
	m->rand += 0xa0761d6478bd642fULL;
	__uint128_t r = (__uint128_t)m->rand * (m->rand ^ 0xe7037ed1a0b428dbULL);
	return (uint32_t)((uint64_t)(r >> 64) ^ (uint64_t)r);
}

/* A number in [0, n) without division (Lemire's multiply-shift). */
static inline uint32_t rt_fastrandn(struct m *m, uint32_t n)
{
	return (uint32_t)(((uint64_t)rt_fastrand(m) * n) >> 32);
}

struct sched {
	struct rt_mutex lock;
	struct m *midle;               /* idle Ms (sched.lock) */
	int nmidle;                    /* (sched.lock) */
	int mcount;                    /* Ms made (sched.lock) */
	struct p *pidle;               /* idle Ps (sched.lock) */
	plat_u32 npidle;               /* atomic: read without the lock to decide spinning */
	plat_u32 nmspinning;           /* atomic [proc: Spinning] */
	plat_u32 needspinning;         /* atomic, set under lock [proc: Spinning, needspinning] */
	plat_u32 *idlepmask;           /* atomic bitmap of idle Ps: stealers skip them */
	/* The global run queues (sched.lock): one, or one per NUMA node if
	 * the policy partitions them (choices.node_queues), each on its own line
	 * homed on its node. */
	struct globrunq *gq;
	int ngq;
	plat_u32 runqsize;             /* atomic: all of them, read without the lock as a hint */
	/* Global G free lists (sched.lock), as partitioned as the queues. */
	struct gfreelist { struct g *head; plat_u32 n; } *gfree;
	plat_u64 goidgen;
	plat_u64 chanidgen;
	plat_u32 done;                 /* atomic: the run is over, Ms return [proc: The end of a run] */
	bool stopped;                  /* done, as sched.lock's holders see it: no M is made */
	int nmsys;                     /* Ms outside checkdead's count: sysmon (sched.lock) */
	/* the poller, while it waits with no deadline: set under sched.lock,
	 * cleared without it (rt_poller_forever) */
	struct m *poller_forever;
	plat_u32 sysmonwait;           /* atomic: sysmon sleeps until a P is busy */
	struct rt_note sysmonnote;
	/* The poller [time.c]: at most one M sleeps until the next timer. */
	plat_u32 polling;              /* atomic: an M is the poller */
	plat_u32 polling_net;          /* atomic: an M polls without blocking (choices.one_poller) */
	plat_u64 poll_until;           /* atomic: when it will wake, 0 if unknown */
	plat_u32 netpoll_waiters;      /* atomic: Gs parked on sources still expecting data */
};

/* One global run queue (sched.lock): a ring of G pointers, the oldest at
 * ring[head & (cap - 1)], doubled when full.  Go links its Gs through
 * schedlink instead; taking a batch then walks Gs made long before, cold
 * by then, one dependent cache miss after another.  The order, and so
 * every scheduling decision, is the same.  head and tail are plain
 * counters under the lock: the priced accesses are to line and size. */
struct globrunq {
	struct g **ring;
	uint32_t head, tail;
	uint32_t cap;                  /* a power of two, 0 before the first put */
	plat_u32 size;                 /* atomic: read without the lock as a hint */
	plat_line_t line;
};

struct rt {
	const struct pol_ops *pol;
	int64_t *knobs;
	/* The policy's state of the run (pol_ops.run_bytes of it, NULL if
	 * none: rt_pol_run), and where its state of a G starts in the G's
	 * slab (rt_pol_g). */
	void *pol_run;
	size_t pol_g_off;
	/* The structural choices its init made [proc: Policies' choices],
	 * fixed for the run. */
	struct pol_choices choices;
	int procs;
	uint64_t seed;
	const struct topo *topo;
	const char *name;              /* the run's, for messages (its body sets it) */
	struct m *m0, *sysmon_m;
	plat_line_t gflag_line;        /* the line of every G's preempt flag */
	uint64_t preemptions, retakes; /* (sysmon's) */

	struct sched sched;
	struct p **allp;
	struct m *allm;                /* (sched.lock) */
	struct g **allg;               /* every G struct ever made (sched.lock) */
	void **gslabs;                 /* the blocks they were made in (sched.lock) */
	size_t ngslabs, capgslabs;
	/* What its Gs run [core/body.h]: the table, and the body's state of
	 * the run, opaque here. */
	const struct body_ops *body;
	void *body_run;
	struct g *main_g;              /* the G whose return ends the run (body->main_ends_run) */
	/* Scheduling latency and each G's exit are timed (the report needs
	 * them); a C API run measures only how long it took, with no clock
	 * reads in the scheduler's fast paths. */
	bool timed;
	size_t nallg, capallg;
	/* The memory budget [workloads/interp.c: Budgets]: what the run has made, in
	 * bytes of simulator memory, never given back; atomic (any M). */
	uint64_t mem_budget, mem_used;
	int64_t max_sim_ns, max_wall_ns;   /* the simulated run's limits [rt_config] */
	int64_t progress_ns;           /* its progress line [rt_limits] */
	bool progress_redraw;
	enum rt_ended ended;           /* cut by a limit (rt_cut) */
	struct pollfd_desc *fdfree;    /* closed descriptors for reuse (sched.lock) */
	struct pollfd_desc *fdall;     /* every descriptor made, by all_link (sched.lock) */
	bool panicked;                 /* (sched.lock) */
	char panic_msg[400];
	uint64_t panic_goid;
	/* end_ns: written once, by stop_run (rt_end_ns) */
	int64_t start_ns, end_ns;
	uint64_t threads_created, wakeups;   /* (sched.lock) */
	bool deadlock;
	/* The execution trace [core/trace.c]: recorded if tracing (fixed
	 * for the run), into each M's tbuf and tbuf0 (outside every M);
	 * trace_over: the events passed trace_limit, nothing more is kept. */
	bool tracing;
	uint32_t trace_over;           /* atomic (__atomic) */
	uint64_t trace_limit, trace_reserved;  /* trace_reserved: atomic */
	uint64_t trace_seq;            /* simulated: every event's, in order */
	struct rt_tbuf tbuf0;
	struct rt_tev *trace_ev;       /* merged, once the run is over */
	size_t trace_n;
	struct rt_mechrun *mech;       /* the report's mechanism counters [core/mech.h] */
	/* --schedtrace: a snapshot every schedtrace_ns (0: none), by the
	 * platform [core/schedtrace.c] */
	int64_t schedtrace_ns;
	bool scheddetail;
	/* `schedlab explore` [core/explore.h]: NULL but in its runs, so every
	 * check of it is one predictable branch elsewhere. */
	struct rt_explore *explore;
	struct rt_os os;              /* the OS limits (simulated runs) [struct rt_os] */
	/* --why [core/why.c]: NULL unless asked, so every hook of it is one
	 * predictable branch; its state of a G follows the policy's in the
	 * G's slab, at why_g_off. */
	struct rt_whyrun *why;
	size_t why_g_off;
	struct plat_rt plat;
};

/* When the run ended (stop_run), 0 before.  Ms read it to cut their time
 * at the end [proc: Where the time goes]: bookkeeping of the report, not
 * the runtime's work, so a plain atomic, unpriced in simulation. */
static inline int64_t rt_end_ns(const struct rt *rt)
{
	return __atomic_load_n(&rt->end_ns, __ATOMIC_RELAXED);
}

/* ---- Why a G waited (core/why.c) [docs/runtime.md, "Why a G waited"] ----
 * Each call is one predictable branch without --why.  Whoever moves a
 * runnable G says where to (rt_why_enq: a place, its P, and the Gs ahead
 * of it on a put, -1 on a move) or that it took it (rt_why_deq); whoever
 * changes what a P's state is made of says so (rt_why_p, rt_why_m). */
enum rt_why_place {
	RT_WP_HAND,      /* in an M's hands: made runnable, or taken off a queue */
	RT_WP_RUNNEXT,
	RT_WP_LOCAL,     /* a P's ring */
	RT_WP_GLOBAL,
	RT_WP_SHARED,
	RT_WP_HELD,      /* a policy's own queue on a P (RT_Q_POLICY) */
	RT_WP_NEXTG,     /* handed to an M with a P */
};
/* What the OS holds an M back for (the sim platform says, rt_why_m_os). */
enum { RT_WHY_OS_NONE, RT_WHY_OS_PU, RT_WHY_OS_QUOTA };
void rt_why_init(struct rt *rt);
void rt_why_fini(struct rt *rt);
size_t rt_why_g_bytes(void);
void rt_why_collect(struct rt *rt, struct rt_why **out, int nclasses);
void rt_why_ready_slow(struct rt *rt, struct g *g) __attribute__((cold, noinline));
void rt_why_enq_slow(struct rt *rt, struct g *g, unsigned place, struct p *pp, int64_t ahead)
	__attribute__((cold, noinline));
void rt_why_deq_slow(struct rt *rt, struct g *g) __attribute__((cold, noinline));
void rt_why_deq_p_slow(struct p *pp, struct g *g) __attribute__((cold, noinline));
void rt_why_run_slow(struct rt *rt, struct g *g, int64_t now) __attribute__((cold, noinline));
void rt_why_p_slow(struct rt *rt, struct p *pp) __attribute__((cold, noinline));
void rt_why_p_with(struct rt *rt, struct p *pp, struct m *m) __attribute__((cold, noinline));
void rt_why_p_idle(struct rt *rt, struct p *pp, bool idle) __attribute__((cold, noinline));
void rt_why_m_slow(struct m *m) __attribute__((cold, noinline));
/* A request's causes [core/policy.h, RT_WHYRQ_PRE]: g parks (or ends); g, running,
 * took data that arrived at arrived; g begins a request (at its data's
 * arrival, or now); g answers the request begun at start. */
void rt_why_park_slow(struct rt *rt, struct g *g) __attribute__((cold, noinline));
void rt_why_took_slow(struct rt *rt, struct g *g, int64_t arrived) __attribute__((cold, noinline));
void rt_why_req_begin_slow(struct rt *rt, struct g *g, bool at_arrival)
	__attribute__((cold, noinline));
void rt_why_req_end_slow(struct rt *rt, struct g *g, int64_t start, int64_t end)
	__attribute__((cold, noinline));
void rt_why_m_os(struct m *m, unsigned wait, int64_t now);
struct rt_why_p *rt_why_m_new(struct rt *rt, struct m *m);
#define RT_WHY_ON(rt) __builtin_expect((rt)->why != NULL, 0)
/* g just became runnable (its runnable_since and runwhy are set) */
static inline void rt_why_ready(struct rt *rt, struct g *g)
{
	if (RT_WHY_ON(rt))
		rt_why_ready_slow(rt, g);
}
static inline void rt_why_enq(struct rt *rt, struct g *g, enum rt_why_place place, struct p *pp,
			      int64_t ahead)
{
	if (RT_WHY_ON(rt))
		rt_why_enq_slow(rt, g, place, pp, ahead);
}
static inline void rt_why_deq(struct rt *rt, struct g *g)
{
	if (RT_WHY_ON(rt))
		rt_why_deq_slow(rt, g);
}
/* ... by pp's owner, from pp's queue (where no rt is at hand) */
static inline void rt_why_deq_p(struct p *pp, struct g *g)
{
	if (__builtin_expect(pp->why != NULL, 0))
		rt_why_deq_p_slow(pp, g);
}
/* pp's state may have changed; ... and it is with m now (NULL: none);
 * ... it goes on or off the idle list */
static inline void rt_why_p(struct rt *rt, struct p *pp)
{
	if (RT_WHY_ON(rt))
		rt_why_p_slow(rt, pp);
}
static inline void rt_why_with(struct rt *rt, struct p *pp, struct m *m)
{
	if (RT_WHY_ON(rt))
		rt_why_p_with(rt, pp, m);
}
static inline void rt_why_idle(struct rt *rt, struct p *pp, bool idle)
{
	if (RT_WHY_ON(rt))
		rt_why_p_idle(rt, pp, idle);
}
/* m's state changed (its P's with it) */
static inline void rt_why_m(struct m *m)
{
	if (RT_WHY_ON(m->rt))
		rt_why_m_slow(m);
}

/* The execution trace [core/trace.h, core/trace.c]: one predictable
 * branch when off.  m: the recording M (NULL: outside every M). */
void rt_trace_rec(struct rt *rt, struct m *m, enum rt_tev_kind kind, uint64_t g, int p,
		  uint64_t a, uint64_t b) __attribute__((cold, noinline));
static inline void rt_trace(struct rt *rt, struct m *m, enum rt_tev_kind kind, uint64_t g, int p,
			    uint64_t a, uint64_t b)
{
	if (__builtin_expect(rt->tracing, 0))
		rt_trace_rec(rt, m, kind, g, p, a, b);
}
/* g's label: its program's (op false) or the operation it is at. */
static inline uint32_t rt_trace_label(const struct rt *rt, const struct g *g, bool op)
{
	return rt->body->g_label && !g->sys_p ? rt->body->g_label(rt, g, op) : 0;
}
/* ... at ts (from rt_trace_now): events of one moment, one clock read. */
int64_t rt_trace_now(struct rt *rt, struct m *m);
void rt_trace_rec_at(struct rt *rt, struct m *m, int64_t ts, enum rt_tev_kind kind, uint64_t g,
		     int p, uint64_t a, uint64_t b);
void rt_trace_init(struct rt *rt, const struct rt_config *cfg);
/* At a G's block / wake: the trace's reason. */
void rt_trace_block(struct m *m, struct g *g);
void rt_trace_wake(struct m *m, struct g *g, unsigned why);
/* Once the run is over: the merged trace (false: none, e says why). */
bool rt_trace_get(struct rt *rt, struct rt_trace *out, struct err *e);
void rt_trace_free(struct rt *rt);
/* The local queue's length, read without pricing it in simulation. */
uint32_t rt_trace_runqlen(const struct p *pp);

/* The policy's own state [pol_ops: run_bytes, p_bytes, g_bytes]: of the
 * run, of P pp (after its struct p), and of G g (after the body's state
 * in its slab). */
static inline void *rt_pol_run(const struct rt *rt)
{
	return rt->pol_run;
}
#define RT_P_POL_OFF ((sizeof(struct p) + 15) / 16 * 16)
static inline void *rt_pol_p(struct p *pp)
{
	return (char *)pp + RT_P_POL_OFF;
}
static inline void *rt_pol_g(const struct rt *rt, struct g *g)
{
	return (char *)g + rt->pol_g_off;
}

/* The policies of this compilation, and its entry points
 * (policies/registry.c). */
int pol_count(void);
const struct pol_ops *pol_at(int i);
const struct pol_ops *pol_find(const char *name);
extern const struct rt_api rt_api_impl;

/* Setting up and running. */
struct rt *rt_new(const struct rt_config *cfg, struct err *e);
void rt_run(struct rt *rt);
void rt_collect(struct rt *rt, struct rt_result *out);
/* The run's recorded draws (rt_config.record_draws), through its body. */
size_t rt_draws(struct rt *rt, const struct rt_draw **out);
void rt_free(struct rt *rt);

/* ---- The scheduler core, for policies and platforms (core/proc.c) ---- */

/* The body of every M: acquires its nextp and runs the scheduler loop. */
void rt_mstart(struct m *m);

/* m, holding a P, stole n Gs from victim: its counters and the
 * mechanisms' (same node or remote, Gs stolen). */
void rt_count_steal(struct m *m, const struct p *victim, uint32_t n);

/* Ms: starting, stopping, waking [proc: Spinning]. */
void rt_startm(struct m *m, struct p *pp, bool spinning);
bool rt_start_idle_or_need(struct m *m);
/* With sched.lock held: starts an M for pp (NULL: none), spinning, with g
 * to run first (NULL: none; Go 1.0's hand-off), and releases the lock,
 * before the M is woken or made.  False if no M was started: no pp, or
 * the run is over (pp and g then stay where they are). */
bool rt_startm_unlock(struct rt *rt, struct p *pp, bool spinning, struct g *g);
/* The G handed to m to run first, if any (Go 1.0's m->nextg); inline,
 * as the scheduler loop asks before every schedule. */
static inline struct g *rt_take_nextg(struct m *m)
{
	struct g *g = m->nextg;
	if (g) {
		m->nextg = NULL;
		rt_g_deq(g, RT_Q_NEXTG);
		rt_why_deq(m->rt, g);
	}
	return g;
}
void rt_stopm(struct m *m);
/* Ends the run if every M and P is idle [proc: The end of a run]: after
 * sysmon hands off a P it retook (takes sched.lock). */
void rt_checkdead(struct rt *rt);
/* m, the poller, is about to wait with no deadline (forever: true), or is
 * back from such a wait (false) [proc: The end of a run]. */
void rt_poller_forever(struct m *m, bool forever);
void rt_wakep(struct m *m);
/* The wake-up throttle [proc: Spinning]: true if the caller now holds the
 * one count of a spinner it is about to start (nmspinning was 0); false if
 * an M is spinning, which will find the work.  rt_release_spinner gives
 * the count back when no M was started after all. */
bool rt_claim_spinner(struct rt *rt);
void rt_release_spinner(struct rt *rt);
/* With sched.lock held: starts a spinning M for pp, whose count the caller
 * holds (rt_claim_spinner, or counted), and releases the lock; with no pp,
 * or at the run's end, the count is given back. */
void rt_startm_spinning_unlock(struct rt *rt, struct p *pp);
/* Work was put where target's owner looks (its shared queue): makes sure
 * someone runs it, as rt_wakep does for a put to the caller's own ring
 * [proc: Spinning, "Work put on another P"]. */
void rt_wakep_for(struct m *m, struct p *target);
/* Starts idle target with a spinning M past the throttle, for work the
 * spinners would be too slow to take (numa's shared queues after a
 * steal); nothing if target is no longer idle. */
void rt_start_idle_p(struct rt *rt, struct p *target);
/* Work was put on node's global queue: a spinning M on an idle P of that
 * node (or the nearest), if none is spinning. */
void rt_wakep_node(struct m *m, int node);
void rt_becomespinning(struct m *m);
void rt_resetspinning(struct m *m);
void rt_resetspinning_quiet(struct m *m);
/* The spinning gate [proc: Spinning]: true if m, holding a P, is
 * spinning -- already, or from now on because spinning Ms are fewer than
 * max_pct percent of the busy Ps. */
bool rt_trybecomespinning(struct m *m, uint32_t max_pct);
/* m found nothing: the last look under sched.lock, then m drops its P and
 * parks [proc: Spinning, step 3].  The last look takes a batch from the
 * global queues, nearest first in node_order (nnodes entries; NULL: the
 * P's node's queue only).  The last spinner's recheck looks at the global
 * queues before the Ps' with recheck_global_first.  Returns a G to run
 * (m keeps its P), or NULL: look again, m holding a P -- kept, retaken or
 * given -- unless the run is over. */
struct g *rt_dropp(struct m *m, const int *node_order, bool recheck_global_first);
/* Where the time goes [proc: Where the time goes]: m just took a P
 * without rt_acquirep, or lets go of it without rt_releasep (system calls). */
void rt_time_held(struct m *m);
void rt_time_released(struct m *m);
void rt_time_split(struct m *m);
/* An M's state for the cpu breakdown: an RT_CPU_x other than user, with
 * the lock's class for the two lock states. */
#define RT_MT(k, cls) ((unsigned)(k) | (unsigned)(cls) << 4)
#define RT_MT_KIND(mt) ((enum rt_cpu)((mt) & 15u))
/* From now on m's time goes to state to; returns the state it leaves, to
 * switch back to.  Reads the clock only in a timed run. */
unsigned rt_mt_switch(struct m *m, unsigned to);
void rt_acquirep(struct m *m, struct p *pp);
struct p *rt_releasep(struct m *m);
/* Idle Ps (sched.lock held). */
void rt_pidleput(struct rt *rt, struct p *pp);
struct p *rt_pidleget(struct rt *rt);
struct p *rt_pidleget_near(struct rt *rt, int node);
struct p *rt_pidleget_this(struct rt *rt, struct p *pp);
bool rt_p_is_idle(struct rt *rt, int id);
/* The global run queues (sched.lock held for put/get): put goes to the
 * calling M's node's queue, get takes from pp's node's.  The queue of a
 * node is 0 unless the policy partitions them. */
static inline int rt_gq_of_node(const struct rt *rt, int node)
{
	return rt->choices.node_queues ? node : 0;
}
void rt_globrunqgrow(struct globrunq *q, uint32_t n) __attribute__((cold));
void rt_mech_gq_len(struct rt *rt);   /* [core/mech.h] */
/* Inline, as the local queue's put below: every yield comes here. */
static inline void rt_globrunqput(struct rt *rt, struct g *g)
{
	struct sched *s = &rt->sched;
	/* plat_node only when the queues are per node: natively it asks the
	 * kernel which CPU this is, which costs as much as the put */
	struct globrunq *q = &s->gq[rt->choices.node_queues ? plat_node() : 0];
	assert(rt_mutex_held(&s->lock));
	plat_shared_access(q->line, true);
	rt_g_enq(g, RT_Q_GLOBAL);
	rt_why_enq(rt, g, RT_WP_GLOBAL, NULL, (int64_t)(q->tail - q->head));
	if (q->tail - q->head == q->cap)
		rt_globrunqgrow(q, 1);
	q->ring[q->tail++ & (q->cap - 1)] = g;
	if (s->ngq > 1)
		plat_store_u32(&q->size, plat_load_u32(&q->size, memory_order_relaxed) + 1,
			       memory_order_relaxed);
	plat_store_u32(&s->runqsize, plat_load_u32(&s->runqsize, memory_order_relaxed) + 1,
		       memory_order_relaxed);
	rt_mech_gq_len(rt);
}
void rt_globrunqputbatch(struct rt *rt, int qi, struct g *const *gs, uint32_t n);
struct g *rt_globrunqget_from(struct rt *rt, struct p *pp, int qi, uint32_t max);
/* From pp's own node's queue. */
static inline struct g *rt_globrunqget(struct rt *rt, struct p *pp, uint32_t max)
{
	return rt_globrunqget_from(rt, pp, rt_gq_of_node(rt, pp->node), max);
}
/* Queue qi's length, read without the lock as a hint.  A single queue's
 * is the total: it keeps no count of its own. */
static inline uint32_t rt_globrunqsize(struct rt *rt, int qi)
{
	struct sched *s = &rt->sched;
	return plat_load_u32(s->ngq > 1 ? &s->gq[qi].size : &s->runqsize, memory_order_relaxed);
}
/* Gs for pp from queue qi as rt_globrunqget_from takes them (max 0: a
 * batch), the take counted under why [core/mech.h], if its length hint
 * says it holds any: sched.lock is taken and released here.  Returns one
 * G (the rest on pp's ring), or NULL. */
struct g *rt_globrunqtake_slow(struct rt *rt, struct p *pp, int qi, uint32_t max,
			       enum rt_gq_why why);
static inline struct g *rt_globrunqtake(struct rt *rt, struct p *pp, int qi, uint32_t max,
					enum rt_gq_why why)
{
	return rt_globrunqsize(rt, qi) ? rt_globrunqtake_slow(rt, pp, qi, max, why) : NULL;
}
/* The run is over [proc: The end of a run]: the scheduler loops return. */
static inline bool rt_done(struct rt *rt)
{
	return plat_load_u32(&rt->sched.done, memory_order_acquire) != 0;
}

/* Gs: the runtime calls a body can make.  A G is made in two steps: made
 * (NULL: past the run's memory budget), its body's state (rt_g_body)
 * filled in by the body, then started -- given to the policy, where
 * another M may run it. */
struct g *rt_newg(struct m *m);
void rt_startg(struct m *m, struct g *g);
void rt_ready(struct m *m, struct g *g);
/* A yielding or preempted G to the global queue (its M's node's), with no
 * M woken: this M looks there itself in a moment (Go's goschedImpl).  A
 * policy's yield. */
void rt_yield_global(struct m *m, struct g *g);
/* From a running G: gives control back to the scheduler with why; for
 * G_PARK, unlock(arg) runs on the M once the G is off it. */
void rt_park_commit(struct m *m, void (*unlock)(void *), void *arg);


/* From a G with a stack (the native C API): parks it for ns. */
void rt_sleep(int64_t ns);
/* Commits the running G to sleep for ns (it parks when the caller returns
 * G_PARK). */
void rt_sleep_park(struct m *m, struct g *g, int64_t ns);

/* ---- Bodies' memory and time [core/body.h] ---- */

/* A memory region a body models: the hardware model's, or real memory. */
struct rt_region {
	uint64_t bytes;
	struct plat_region plat;
};

/* Budgets [workloads/interp.c: Budgets]: the estimates a timed run counts
 * against its memory budget, as the workload compiler's check does
 * (json.h). */
#define RT_BYTES_PER_M (sizeof(struct m) + 64u * 1024u)  /* with its stack and actor */
/* Ms at once, as Go's default debug.SetMaxThreads: past it the run fails
 * as Go's does ("program exceeds 10000-thread limit").  Every simulated
 * M is two memory maps, well inside the kernel's default 65530. */
#define RT_MAX_THREADS 10000
/* Counts bytes against the run's budget; false, counting nothing, if that
 * would take it past.  Any M, or before the run. */
bool rt_mem_charge(struct rt *rt, uint64_t bytes);
/* ns of g's own work, counted as its body's user time (the platform's
 * call, closing a computation the run cut). */
static inline void rt_account_user(struct m *m, struct g *g, int64_t ns)
{
	m->rt->body->g_account_user(m, g, ns);
}
/* g has a modelled stack [body_ops.g_stack_modelled]: a policy may move
 * it (body_ops.g_stack_move). */
static inline bool rt_g_stack_modelled(const struct rt *rt, const struct g *g)
{
	return rt->body->g_stack_modelled && rt->body->g_stack_modelled(g);
}
/* Runs g's body until it gives control back: the platforms' one way in
 * to what a G runs (one indirect call a run). */
static inline enum g_why rt_g_exec(struct m *m, struct g *g)
{
	return m->rt->body->g_run(m, g);
}

/* ---- System calls and sysmon (core/sysmon.c) ---- */

void rt_entersyscall(struct m *m, struct g *g);
/* ... a call known to block: the P is handed off at once. */
void rt_entersyscallblock(struct m *m, struct g *g);
bool rt_exitsyscall(struct m *m, struct g *g);
void rt_sysmon(struct m *m);
void rt_sysmon_wake(struct rt *rt);

/* ---- Timers (core/time.c) ---- */

void rt_timers_init(struct rt *rt, struct p *pp);
void rt_timers_free(struct p *pp);
void rt_timer_add(struct m *m, struct timer *t);
/* Runs pp's timers due at now (0: read the clock, only if pp has a timer
 * at all -- a clock read costs more than the rest of a schedule), on m
 * (which holds a P: what they ready goes there).  Returns when the next
 * one is due, 0 if none.  pp may be any P.  Inline up to the common case,
 * no timer at all. */
int64_t rt_run_timers(struct m *m, struct p *pp, int64_t now, int64_t next);
static inline int64_t rt_check_timers(struct m *m, struct p *pp, int64_t now)
{
	/* Go 1.13's are run by their own goroutines only */
	if (__builtin_expect(m->rt->choices.timerproc, 0))
		return 0;
	int64_t next = (int64_t)plat_load_u64(&pp->timer0, memory_order_acquire);
	return next ? rt_run_timers(m, pp, now, next) : 0;
}
void rt_check_all_timers(struct m *m);
/* Go 1.13's timer goroutine g runs [time.c]; and at the end of the run,
 * the sleeping ones wake (sched.lock held). */
enum g_why rt_timerproc(struct m *m, struct g *g);
void rt_timerprocs_stop(struct rt *rt);
int64_t rt_timers_next(struct rt *rt);
/* An M other than pp's may run pp's timers (always, but with Go 1.14's
 * timers_own_p: not while pp runs a G not marked for preemption). */
bool rt_timers_stealable(struct rt *rt, struct p *pp);
void rt_wake_netpoller(struct m *m, int64_t when);
int rt_poll_block(struct m *m, int64_t until, struct netpoll_event *ev, int max);
void rt_idle(struct m *m);

/* ---- The netpoller (core/netpoll.c) ---- */

void rt_netpoll_init(struct rt *rt);
void rt_netpoll_start(struct rt *rt);
void rt_netpoll_fini(struct rt *rt);
bool rt_netpoll_any_waiters(struct rt *rt);
/* Gs parked on sources still expecting data, counted by whoever parks or
 * wakes them (a body's sources too) [netpoll.c]. */
static inline void rt_netpoll_waiters_add(struct rt *rt, int32_t delta)
{
	plat_add_u32(&rt->sched.netpoll_waiters, (uint32_t)delta, memory_order_release);
}
/* When the body's next network arrival is due, -1 if none. */
static inline int64_t rt_arrivals_next(struct rt *rt)
{
	return rt->body->net_next ? rt->body->net_next(rt) : -1;
}
/* Events one poll takes at most: Go's netpoll reads up to 128 a call. */
#define RT_NETPOLL_BATCH 128
struct g *rt_netpoll_now(struct m *m);
int rt_netpoll_wait(struct m *m, int64_t until, struct netpoll_event *ev, int max);
void rt_netpoll_inject(struct m *m, const struct netpoll_event *ev, int n);
/* Real descriptors (native C API).  open returns NULL with errno set. */
struct pollfd_desc *rt_netpoll_open(struct m *m, int fd);
void rt_netpoll_close(struct m *m, struct pollfd_desc *pd);
/* From the running G, after a call on pd would have blocked: FD_READY if
 * an edge for mode came meanwhile (try again), FD_CLOSED, FD_BUSY if
 * another G already waits that way (only one may, as Go's fdMutex lets
 * one reader in at a time), else FD_PARK: the G is committed to park
 * until the next edge or a close. */
enum fd_wait { FD_READY, FD_PARK, FD_CLOSED, FD_BUSY };
enum fd_wait rt_netpoll_fd_wait(struct m *m, struct pollfd_desc *pd, uint32_t mode);

/* ---- Local run queues (core/runq.c) [proc: Run queues] ---- */

void rt_runq_init(struct rt *rt, struct p *pp);
bool rt_runqputslow(struct rt *rt, struct p *pp, struct g *g, uint64_t head, uint32_t t);
struct g *rt_runqget_lifo(struct p *pp);
bool rt_runqempty(struct p *pp);
/* the same, unpriced, for assertions: a build without NDEBUG must simulate
 * exactly what a release build does */
bool rt_runqempty_peek(struct p *pp);
void rt_sharedq_put(struct rt *rt, struct p *pp, struct g *g);
/* n Gs linked through schedlink, head to tail, in one put */
void rt_sharedq_putlist(struct rt *rt, struct p *pp, struct g *head, struct g *tail, uint32_t n);
struct g *rt_sharedq_get(struct p *pp);
/* ... only if its oldest G became runnable at or before ready_by (ns) or
 * is untimed */
struct g *rt_sharedq_get_ready_by(struct p *pp, int64_t ready_by);
bool rt_p_has_work(struct p *pp);
uint32_t rt_runqlen(struct p *pp);
/* Steals half of p2's queue into pp's; returns one G to run, or NULL. */
struct g *rt_runqsteal(struct rt *rt, struct p *pp, struct p *p2, bool steal_runnext,
		       int64_t runnext_delay_us, uint32_t *stolen);

/* The owner's put and get, the scheduler's hottest path, are inline. */

/* runqhead's two halves: the ring's head position, and how many times the
 * owner has popped from the tail (runq.c says why a thief must see those). */
static inline uint32_t rq_head(uint64_t head) { return (uint32_t)head; }
static inline uint64_t rq_head_make(uint64_t head, uint32_t pos)
{
	return (head & ~(uint64_t)UINT32_MAX) | pos;
}

/* Puts g on pp's queue: in runnext if next (kicking the old runnext out to
 * the ring), else at the ring's tail; a full ring overflows to the global
 * queue.  Executed only by the owner P. */
static inline void rt_runqput(struct rt *rt, struct p *pp, struct g *g, bool next)
{
	rt_g_enq(g, RT_Q_LOCAL);
	if (next) {
		void *old = plat_load_ptr(&pp->runnext, memory_order_relaxed);
		while (!plat_cas_ptr(&pp->runnext, &old, g, memory_order_acq_rel))
			;
		rt_why_enq(rt, g, RT_WP_RUNNEXT, pp, -1);
		if (!old)
			return;
		g = old;
	}
	for (;;) {
		/* load-acquire: synchronize with consumers */
		uint64_t head = plat_load_u64(&pp->runqhead, memory_order_acquire);
		uint32_t h = rq_head(head);
		uint32_t t = plat_load_u32(&pp->runqtail, memory_order_relaxed);
		if (t - h <= pp->runq_mask) {
			plat_store_ptr(&pp->runq[t & pp->runq_mask], g, memory_order_relaxed);
			/* store-release: makes the slot available to consumers */
			plat_store_u32(&pp->runqtail, t + 1, memory_order_release);
			if (RT_WHY_ON(rt))
				rt_why_enq_slow(rt, g, RT_WP_LOCAL, pp,
						(int64_t)(t - h) + (plat_peek_ptr(&pp->runnext) != NULL));
			return;
		}
		if (rt_runqputslow(rt, pp, g, head, t))
			return;
		/* a thief emptied part of the ring: the put above succeeds now */
	}
}

/* Takes the next G: runnext first (it inherits the time slice), then the
 * ring's head.  Executed only by the owner P. */
static inline struct g *rt_runqget(struct p *pp, bool *inherit)
{
	void *next = plat_load_ptr(&pp->runnext, memory_order_relaxed);
	/* Only the owner sets runnext non-NULL, so a failed CAS means a thief
	 * took it: no retry. */
	if (next && plat_cas_ptr(&pp->runnext, &next, NULL, memory_order_acq_rel)) {
		if (inherit)
			*inherit = true;
		rt_g_deq(next, RT_Q_LOCAL);
		rt_why_deq_p(pp, next);
		return next;
	}
	for (;;) {
		/* load-acquire: synchronize with other consumers */
		uint64_t head = plat_load_u64(&pp->runqhead, memory_order_acquire);
		uint32_t h = rq_head(head);
		uint32_t t = plat_load_u32(&pp->runqtail, memory_order_relaxed);
		if (t == h)
			return NULL;
		struct g *g = plat_load_ptr(&pp->runq[h & pp->runq_mask], memory_order_relaxed);
		/* cas-release: commits the consumption */
		if (plat_cas_u64(&pp->runqhead, &head, rq_head_make(head, h + 1),
				 memory_order_release)) {
			if (inherit)
				*inherit = false;
			/* The next G will probably run after this one: start
			 * fetching its first two lines, often cold by now. */
			if (h + 1 != t)
				plat_prefetch(plat_peek_ptr(&pp->runq[(h + 1) & pp->runq_mask]), 2);
			rt_g_deq(g, RT_Q_LOCAL);
			rt_why_deq_p(pp, g);
			return g;
		}
	}
}

/* A random permutation of Ps: a random start and a step coprime with the
 * count [proc: Stealing]. */
struct rt_steal_order {
	uint32_t count;
	uint32_t *coprimes;
	uint32_t ncoprimes;
};
struct rt_steal_enum {
	uint32_t i, count, pos, inc;
};
void rt_steal_order_reset(struct rt_steal_order *ord, uint32_t count);
void rt_steal_order_free(struct rt_steal_order *ord);
struct rt_steal_enum rt_steal_order_start(const struct rt_steal_order *ord, uint32_t r);
static inline bool rt_steal_enum_done(const struct rt_steal_enum *e) { return e->i == e->count; }
static inline void rt_steal_enum_next(struct rt_steal_enum *e)
{
	e->i++;
	e->pos = (e->pos + e->inc) % e->count;
}

/* ---- Channels (core/chan.c) ---- */

struct hchan *rt_chan_new(struct rt *rt, uint32_t cap, int node);
void rt_chan_free(struct hchan *c);
/* Go's semantics are decided here, not by the callers (the interpreter,
 * native/api.c): a nil channel blocks forever, a send on or close of a
 * closed channel and a close of nil call rt_panic with Go's message, and
 * the caller ends the G if it is panicking.
 *
 * From the running G (m->curg): completes the operation and returns true,
 * or queues the G on the channel, commits it to park (rt_park_commit, the
 * channel's lock released once the G is off the M) and returns false; the
 * partner completes the operation and readies the G, which then calls
 * rt_chansend_resume / rt_chanrecv_resume for the outcome. */
bool rt_chansend(struct m *m, struct hchan *c, uint64_t v);
bool rt_chanrecv(struct m *m, struct hchan *c, uint64_t *v, bool *ok);
void rt_chansend_resume(struct m *m);
void rt_chanrecv_resume(struct m *m, uint64_t *v, bool *ok);
void rt_chanclose(struct m *m, struct hchan *c);
/* Completes one ready case (chosen at random among the ready ones) and
 * returns its index; RT_SELECT_DEFAULT if none is ready and has_default;
 * else RT_SELECT_PARKED, the G committed to park on every case, and
 * rt_select_resume says which fired once it runs again.  A case whose
 * channel is nil never fires; with no other case and no default the G
 * blocks forever ("select (no cases)"). */
int rt_select(struct m *m, const struct select_case *cases, uint32_t n, bool has_default,
	      uint64_t *v, bool *ok);
int rt_select_resume(struct m *m, uint64_t *v, bool *ok);

/* ---- sync.Mutex and sync.WaitGroup (core/sync.c) ---- */

struct gmutex {
	plat_u32 state;          /* locked and waiters bits */
	struct rt_mutex qlock;   /* guards the queue */
	struct waitq q;
};
struct waitgroup {
	plat_u64 state;          /* atomic: counter << 32 | waiters [sync.c] */
	struct rt_mutex lock;    /* guards the queue */
	plat_line_t line;
	struct waitq q;
};
struct gmutex *rt_gmutex_new(struct rt *rt, int node);
/* true: locked; false: the G is committed to park, and tries again when run */
bool rt_gmutex_lock(struct m *m, struct gmutex *mu);
/* Both panic (rt_panic, Go's message) on misuse: an unlock of an unlocked
 * mutex, a counter taken below zero; the caller ends the G. */
void rt_gmutex_unlock(struct m *m, struct gmutex *mu);
struct waitgroup *rt_waitgroup_new(struct rt *rt, int node);
void rt_waitgroup_add(struct m *m, struct waitgroup *wg, int64_t delta);
/* true: the count is zero; false: the G is committed to park until it is */
bool rt_waitgroup_wait(struct m *m, struct waitgroup *wg);

/* A Go panic: records the first one, ends the run, and marks the running
 * G to end. */
void rt_panic(struct m *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The platform cut the run at t, by a limit [proc: The end of a run]: the
 * Ms' open spans of time are closed there.  Outside every M, after the
 * run's last event. */
void rt_cut(struct rt *rt, int64_t t, enum rt_ended why);

/* Go's schedtrace lines (scheddetail's too if rt->scheddetail) for the
 * state now, since_ns into the run, in one write to f (core/schedtrace.c:
 * what the caller must hold). */
void rt_schedtrace(struct rt *rt, int64_t since_ns, FILE *f);

/* ---- Exploration's invariants (core/explore.c) [core/explore.h] ---- */

/* m is about to run g: the checks of a scheduling step. */
void rt_explore_step(struct m *m, struct g *g) __attribute__((cold, noinline));
/* checkdead is about to declare a deadlock (sched.lock held). */
void rt_explore_deadlock(struct rt *rt) __attribute__((cold, noinline));
/* After the run: the end's checks (a hang, a lost G, a panic). */
void rt_explore_end(struct rt *rt);
/* Records the first violation, with the state now, and stops the run. */
void rt_explore_fail(struct rt *rt, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), cold, noinline));

#endif
