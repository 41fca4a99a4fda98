/* The workload run: a workload's programs as the body of a run's Gs
 * [core/body.h].  Compiled once per platform with the core; its
 * functions carry the prefix wlr_ (and PLAT_SYM names, core/names.h).
 *
 *   interp.c  the body's table (wlr_body), the run's and the Ms' state,
 *             random streams, budgets, objects, and the interpreter;
 *   net.c     the clients' arrival process: listeners, connections, the
 *             arrivals heap, think times -- what the core's netpoller
 *             sees through the body's net_ hooks. */
#ifndef SCHEDLAB_WORKLOADS_WLR_H
#define SCHEDLAB_WORKLOADS_WLR_H

#include "core/runtime.h"
#include "workloads/program.h"

#include <gsl/gsl_rng.h>

/* A random stream of the workload's distributions: a G's, a listener's
 * or a connection's, keyed by its place in the workload (not by when it
 * was made), so sampled values do not depend on scheduling.  A replayed
 * trace gives its draws instead [interp.c]. */
struct wlr_stream {
	uint64_t key;
	uint64_t state;
	const struct trace_g *replay;
	uint32_t used;
};

/* A workload's listener or connection [net.c]: data arrives at times the
 * workload says.  Guarded by its lock. */
struct wlr_src {
	struct rt_mutex lock;
	plat_line_t line;
	bool is_listener;        /* units are connections, not requests */
	struct g *rg;            /* the G parked reading it */
	uint64_t pending;        /* units arrived and not yet read */
	uint64_t remaining;      /* units scheduled to arrive and not yet arrived */
	struct wlr_stream rs;
	const struct prog_listener *lis;
	uint32_t index;          /* a listener: in the workload's listeners */
	uint64_t made;           /* a listener: connections scheduled so far */
	uint64_t accepted;       /* a listener: connections taken */
	int64_t *times;          /* a listener: arrival times of the pending, FIFO */
	uint64_t times_head, times_cap;
	int64_t arrived_at;      /* a connection: when its pending request arrived */
	uint64_t to_send;        /* a connection: requests its client sends after that one */
};

/* The run's state of the body (rt->body_run). */
struct wlr_run {
	const struct workload *wl;
	struct hchan **chans;          /* the workload's channels */
	struct gmutex **mutexes;       /* ... mutexes */
	struct waitgroup **waitgroups; /* ... wait groups */
	struct rt_region **regions;    /* ... memory regions */
	struct wlr_src **listeners;    /* ... listeners [net.c] */
	uint64_t region_pages;         /* 4 KiB pages of every region made in the run */
	/* Network arrivals not yet due, a heap by (when, seq) guarded by
	 * arrivals_lock [net.c]. */
	struct rt_mutex arrivals_lock;
	plat_line_t arrivals_line;
	struct arrival { int64_t when; uint64_t seq; struct wlr_src *src; } *arrivals;
	uint32_t narrivals, caparrivals;
	uint64_t arrivalseq;
	plat_u64 arrival0;             /* atomic: when of the earliest + 1, 0 if none */
	/* The open loops' connections: how many, the first's and the last's
	 * instants (arrivals_lock): the load offered, whatever the server
	 * makes of it (the report's request_load) */
	uint64_t open_count;
	int64_t open_first, open_last;
	/* `workload expand': every draw, in order (simulation only). */
	struct rt_draw *rec;
	size_t nrec, caprec;
	bool recording;
	/* The trace's names [core/body.h trace_labels]: "", then each
	 * program's, then each op's of each program, from op_label[prog]. */
	char **labels;
	size_t nlabels;
	uint32_t *op_label;
};

/* An M's state of the body (m->body_m), made at its first need. */
struct wlr_m {
	gsl_rng *gsl;            /* draws from the stream of the G it runs */
	struct wlr_objs { void **v; size_t n, cap; } made[PT__COUNT];  /* objects its Gs made */
	/* What its Gs measured, summed into the run's result (collect) */
	uint64_t user_ns_by_class[RT_USER_CLASSES];
	struct hist request_latency;   /* request_begin to request_end */
	uint64_t requests;
	int64_t req_answered;          /* the last answer, absolute; with requests > 0 */
	/* spawn's "after" records [interp.c, "Spawning later"]: every one this
	 * M made, and those that fired on it, free for its next spawns */
	struct wlr_objs afters;
	struct wlr_after *after_free;
};

/* A G's frame: its program's place, right after the G in its slab
 * (rt_g_body). */
struct gframe {
	const struct program *prog;
	uint32_t pc;
	uint32_t nspawned;       /* children made: their random streams' keys */
	uint32_t depth;          /* how deep in its own program's recursion */
	bool root_spawn;         /* what it spawns now is a root goroutine (it accepted) */
	int64_t compute_left;    /* of a computation cut by preemption */
	int64_t req_start;       /* the request it serves began (request_begin) */
	int64_t last_arrival;    /* when the data it last read arrived */
	struct wlr_stream rs;
	struct rt_region *stack; /* its modelled stack (workload "stacks"), kept on reuse */
	int64_t locals[PROG_MAX_LOCALS];
};

static inline struct gframe *g_frame(struct g *g)
{
	return rt_g_body(g);
}

static inline struct wlr_run *wlr(const struct rt *rt)
{
	return rt->body_run;
}

int64_t wlr_draw(struct m *m, struct wlr_stream *s, const struct dist *d);
void wlr_stream_init(struct rt *rt, struct wlr_stream *s, uint64_t key);
/* Records an object made during the run, freed with the run. */
void wlr_objs_add(struct m *m, enum prog_type t, void *obj);
size_t wlr_draws(struct rt *rt, const struct rt_draw **out);
/* The interpreter: runs g's program until it gives control back. */
enum g_why wlr_g_run(struct m *m, struct g *g);

/* ---- The clients' arrivals (net.c) ---- */

/* Makes the listeners and the arrivals heap; frees them and what they made. */
void wlr_net_init(struct rt *rt);
void wlr_net_free(struct rt *rt);
/* The body's net_ hooks [core/body.h]. */
void wlr_net_start(struct rt *rt, struct m *m0);
int64_t wlr_net_next(struct rt *rt);
int wlr_net_due(struct m *m, struct netpoll_event *ev, int max, bool wait);
struct g *wlr_net_deliver(struct rt *rt, const struct netpoll_event *ev);
/* From the running G: takes a unit of a listener or connection
 * (NR_TOOK), or commits the G to park until one arrives (NR_PARK);
 * NR_DONE when it has nothing pending and nothing more to come (a
 * listener out of connections, a connection its client has finished
 * with: end of file). */
enum nr { NR_TOOK, NR_PARK, NR_DONE };
enum nr wlr_net_take(struct m *m, struct wlr_src *src);
/* After a read of a listener: the connection taken, its first request
 * pending, arrived when the connection did. */
struct wlr_src *wlr_net_accept(struct m *m, struct wlr_src *lis);
/* An answer written on a connection: its client sends its next request,
 * if any, a think time later. */
void wlr_net_respond(struct m *m, struct wlr_src *conn);

/* The body of a workload's Gs: its programs, interpreted.  The run API
 * (policies/registry.c: rt_api.create) gives it to a run that names no
 * body. */
extern const struct body_ops wlr_body;

#endif
