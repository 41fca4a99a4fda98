/* What a G's body is: the one interface between the scheduler core and
 * what its Gs run.
 *
 * The core knows that a G runs a body, which gives control back with a
 * reason (enum g_why) and may block in the core's channels, locks, timers
 * and netpoller; it never knows what the body is.  A run has one body
 * table (struct body_ops), chosen by its configuration, in the spirit of a
 * simulation engine's model table (ROSS's tw_lptype) and of Lua's split
 * of global and per-thread state: the body's state of the run hangs off
 * rt->body_run, its state of an M off m->body_m, and its state of a G is
 * g_bytes bytes right after the struct g in its slab (rt_g_body).  Two
 * bodies exist: a workload's programs, interpreted (workloads/wlr.h,
 * wlr_body), and C functions of the native C API (native/api.c).
 *
 * Order matters in a simulated run: what a body's hooks do with the
 * platform (lines, regions, draws) is part of the run's determinism, and
 * the core calls them at fixed points: run_new after the Ps are made,
 * main_init once before the run starts, g_run each time a G runs. */
#ifndef SCHEDLAB_CORE_BODY_H
#define SCHEDLAB_CORE_BODY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rt;
struct m;
struct g;
struct err;
struct rt_config;
struct rt_result;
struct netpoll_event;
struct rt_draw;
enum g_why;

struct body_ops {
	const char *name;
	/* Bytes of per-G state after each struct g (its frame); 0: none. */
	size_t g_bytes;
	/* Its Gs need a stack of their own (a C function does; a program
	 * is run on its M's). */
	bool needs_stack;
	/* A run of it is timed (scheduling latency, each G's exit) and
	 * counts what it makes against a memory budget. */
	bool timed;
	/* The run ends when the main G's body returns (as a Go program's
	 * main), instead of when every G has finished or blocked. */
	bool main_ends_run;

	/* Before the run is made: the configuration is one this body can
	 * run (false: e says why). */
	bool (*check)(const struct rt_config *cfg, struct err *e);
	/* Makes the body's state of the run (rt->body_run) and sets rt->name,
	 * after the core's state and the Ps; false: e says why, and
	 * run_free is still called. */
	bool (*run_new)(struct rt *rt, const struct rt_config *cfg, struct err *e);
	/* Frees the run's state and every M's (m->body_m), once the run is
	 * over; also after a failed run_new. */
	void (*run_free)(struct rt *rt);
	/* Gives g, just made by the core on P 0 and not yet queued, the
	 * run's main body. */
	void (*main_init)(struct rt *rt, struct g *g);
	/* Runs g's body on m until it gives control back. */
	enum g_why (*g_run)(struct m *m, struct g *g);
	/* Says where a blocked g is, for the deadlock report: at most n
	 * bytes, NUL-terminated. */
	void (*g_describe)(const struct rt *rt, const struct g *g, char *buf, size_t n);
	/* ns of g's own work, counted as its body's user time (the platform
	 * closing a computation the run cut). */
	void (*g_account_user)(struct m *m, struct g *g, int64_t ns);
	/* The G g is making now is a root goroutine (g accepted a
	 * connection): a policy may place it apart from g. */
	bool (*g_spawns_root)(const struct g *g);
	/* g has a modelled stack (NULL: no G has one); g_stack_move moves it
	 * to node, paying for the copy (false: it did not move). */
	bool (*g_stack_modelled)(const struct g *g);
	bool (*g_stack_move)(struct m *m, struct g *g, int node);
	/* g's class for the report's per-class figures (a workload's: its
	 * program), below RT_USER_CLASSES, and class k's name (NULL past
	 * the last); both NULL: the body has no classes. */
	unsigned (*g_class)(const struct rt *rt, const struct g *g);
	const char *(*class_name)(const struct rt *rt, unsigned k);
	/* What the run's report takes from the body (its locality.stacks). */
	void (*collect)(const struct rt *rt, struct rt_result *r);
	/* The values it drew from random streams, in order, if it recorded
	 * them (rt_config.record_draws; NULL: it never does). */
	size_t (*draws)(struct rt *rt, const struct rt_draw **out);
	/* Names for the execution trace [core/trace.h] (both NULL: none):
	 * the run's labels, label 0 "" (made by run_new when
	 * cfg->lim.trace), and the label of g's program (op false) or of the
	 * operation g is at (op true).  Read-only: they never touch the
	 * platform. */
	size_t (*trace_labels)(const struct rt *rt, const char *const **out);
	uint32_t (*g_label)(const struct rt *rt, const struct g *g, bool op);

	/* The body's own sources of network data [core/netpoll.c] (all NULL:
	 * none), such as a workload's clients: they start with the run
	 * (m0, before it runs); net_next says when the earliest arrival is
	 * due (-1: none); net_due puts the arrivals due by now in ev, as if
	 * the kernel had reported them (at most max; !wait: none if another
	 * M is taking them); net_deliver applies one (ev->src, from net_due)
	 * and returns the G it readies, if any, its wake reason set and still
	 * G_WAITING. */
	void (*net_start)(struct rt *rt, struct m *m0);
	int64_t (*net_next)(struct rt *rt);
	int (*net_due)(struct m *m, struct netpoll_event *ev, int max, bool wait);
	struct g *(*net_deliver)(struct rt *rt, const struct netpoll_event *ev);
};

#endif
