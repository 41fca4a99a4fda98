/* A run's execution trace as the core records it: one flat list of events,
 * the same from both platforms, which the writers in trace/ turn into a
 * file (Go's execution-trace format, or Chrome's JSON trace events).
 *
 * The core records an event where a decision is made; it never formats
 * one.  Each M appends to its own buffer (natively: no lock, no shared
 * line); at the end of the run the buffers are merged into one list in
 * (ts, seq) order, where seq numbers the events of the whole run in the
 * order they were recorded in a simulated run and, natively, orders each
 * M's events and breaks ties between Ms by M.  A writer may rely on that
 * order and on every G's events forming a valid life (created, then
 * started, then stopped, blocked, ...), except for Gs that already exist
 * when tracing starts, which get RT_TEV_G_CREATE at ts 0.
 *
 * Kinds may be added at the end; a writer ignores kinds it does not know.
 * Fields not listed for a kind are 0 (g), -1 (p, m) or 0 (a, b). */
#ifndef SCHEDLAB_CORE_TRACE_H
#define SCHEDLAB_CORE_TRACE_H

#include <stddef.h>
#include <stdint.h>

enum rt_tev_kind {
	RT_TEV_PROCS,         /* GOMAXPROCS is a */
	RT_TEV_P_START,       /* P p starts running on M m */
	RT_TEV_P_STOP,        /* P p stops (M m gives it up, or it is handed off) */
	RT_TEV_G_CREATE,      /* G g made by G a (0: the runtime), on P p; b: label of its program */
	RT_TEV_G_START,       /* G g starts running on P p, M m */
	RT_TEV_G_END,         /* G g returns (ends) on P p */
	RT_TEV_G_YIELD,       /* G g gives up P p and stays runnable */
	RT_TEV_G_PREEMPT,     /* G g is preempted on P p, runnable */
	RT_TEV_G_BLOCK,       /* G g parks on P p: a is why (enum rt_tblock), b the label of the op */
	RT_TEV_G_UNBLOCK,     /* G g made runnable by G a (0: the runtime: timer, poller, sysmon),
	                       * recorded on P p (-1 none); b is why (enum rt_twake) */
	RT_TEV_SYSCALL,       /* G g on P p enters a system call; b: label of the op */
	RT_TEV_SYSCALL_BLOCK, /* G g's system call blocks its M: P p is handed off */
	RT_TEV_SYSCALL_EXIT,  /* G g returns from its system call (p: the P it got, -1 none yet) */
	RT_TEV_STEAL,         /* P p took b Gs from P a's queue */
	RT_TEV_GLOBAL_TAKE,   /* P p took b Gs from the global queue; a is why (enum rt_tglobal) */
	RT_TEV_PLACE,         /* the policy put runnable G g on P a's queue (b: its node), from P p */
	RT_TEV_RUNQ,          /* queue length a: P p's local queue, or the global one if p is -1 */
	RT_TEV_SPINNING,      /* a Ms are spinning */
	/* A request a server answered (the report's request latency): it
	 * began at ts (its arrival, recorded late, by the G that handles it,
	 * when it starts to: so this event's ts may be earlier than its
	 * neighbours' in the M's buffer), G g began handling it on P p, and
	 * answered it.  A G handles one request at a time, but the next can
	 * arrive before it answers the last: a names the request (the
	 * body's time it began, the same in its three events). */
	RT_TEV_REQ_BEGIN,     /* request a of G g arrived (p -1) */
	RT_TEV_REQ_HANDLE,    /* G g starts handling request a on P p */
	RT_TEV_REQ_END,       /* G g answered request a on P p */
	RT_TEV_KINDS
};

/* Why a G parks (RT_TEV_G_BLOCK's a). */
enum rt_tblock {
	RT_TB_CHAN_SEND,
	RT_TB_CHAN_RECV,
	RT_TB_SELECT,
	RT_TB_SYNC,           /* sync.Mutex, WaitGroup */
	RT_TB_SLEEP,
	RT_TB_NET,
	RT_TB_OTHER,
};

/* Why a G became runnable (RT_TEV_G_UNBLOCK's b). */
enum rt_twake {
	RT_TW_CHAN,           /* a channel, mutex or wait group partner */
	RT_TW_TIMER,
	RT_TW_NET,
	RT_TW_SYSCALL,        /* back from a system call with no P */
	RT_TW_OTHER,
};

/* Why a P took from the global queue (RT_TEV_GLOBAL_TAKE's a). */
enum rt_tglobal {
	RT_TG_FAIRNESS,       /* the every-61st check */
	RT_TG_EMPTY_LOCAL,    /* its own queue was empty */
	RT_TG_OTHER,
	RT_TG_ONLY,           /* the policy's one queue (global) */
	RT_TG_STEAL,          /* looking for work elsewhere: another node's queue (numa) */
	RT_TG_IDLE,           /* the last look before its P goes idle */
};

struct rt_tev {
	int64_t ts;           /* ns since the run started (simulated or wall time) */
	uint64_t seq;
	uint64_t g;           /* goid; 0: none */
	int32_t p, m;         /* -1: none */
	uint32_t kind;        /* enum rt_tev_kind */
	uint64_t a, b;
};

/* A finished run's trace, owned by the run (valid until it is destroyed).
 * Labels are the names the body gives its programs and ops
 * (label 0 is "" : none). */
struct rt_trace {
	const struct rt_tev *ev;
	size_t n;
	const char *const *labels;
	size_t nlabels;
	int procs, ms;        /* Ps, and Ms that ran (M ids are 0..ms-1) */
	int64_t end_ns;       /* when the run ended */
	const char *mode;     /* "sim" or "native" */
};

#endif
