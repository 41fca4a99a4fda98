/* numa: the NUMA-aware scheduler proposed for Go in 2014 (D. Vyukov).
 *
 * The proposal's idea is affinity all the way down: core <-> M <-> P <-> G
 * and memory.  On top of steal's machinery (per-P rings, runnext,
 * spinning), each of its mechanisms is here, and each is a knob that turns
 * it off alone, so its share of a result can be measured:
 *
 *   node_queues     the global run queue and the G free list are split per
 *                   NUMA node; a P uses its node's, and a yielding or
 *                   preempted G goes to its node's queue;
 *   node_mpools     Ms are bound to nodes (natively with hwloc) and each
 *                   node has its own pool of idle Ms: a P is only ever run
 *                   by an M of its node;
 *   lastm           a P is started on the M that ran it last, if idle;
 *   hier_steal      an M out of work looks in this order: its node's queue,
 *                   its node's Ps, the other nodes' queues, their Ps --
 *                   nearest node (SLIT distance) first (off: Go's random
 *                   order over all Ps after the node's queue);
 *   lifo            the owner runs its ring mostly LIFO (the newest G is the
 *                   warmest in the caches), taking from the FIFO end every
 *                   fifo_interval-th schedule so nothing starves; thieves
 *                   always take from the FIFO end;
 *   home_return     a G woken by a timer or the netpoller goes back to its
 *                   home P (where it last ran, unless a P of another node
 *                   stole it), as if each P had its own netpoller and
 *                   timers;
 *   remote_steal_delay_us
 *                   a thief of another node leaves a P's shared queue and
 *                   timers alone until they have waited this long, so that
 *                   Gs sent home are run at home;
 *   root_rr         root goroutines -- those made by a G that just accepted
 *                   a connection, and a G's spawns past burst_spawns in one
 *                   time slice -- are dealt round-robin over the Ps, one
 *                   node after another, so that work does not all call P0
 *                   home; a burst's burst_batch at a time;
 *   shared_queue    each P has, besides its private ring (one producer: the
 *                   owner), a shared queue under a lock that any M may put
 *                   to; Gs placed on a P from elsewhere (roots, returns)
 *                   go there (off: to the P's node's global queue);
 *   net_priorities  Gs the network readies: writes ahead (runnext), reads
 *                   behind (the ring), accepts last (the shared queue);
 *   node_heaps      the Go heap is split per node: an alloc with the default
 *                   placement gets memory of the running P's node (off: the
 *                   OS's first touch, as Go's heap does today).
 *   stack_migrate_after
 *                   a G that has run this many times in a row on a node
 *                   other than its stack's has its stack moved there, right
 *                   before it runs (simulated workloads with "stacks").
 *
 * Ps are partitioned between nodes by the core's placement: P i runs on
 * the PU the OS model gives it, round-robin over nodes (core/proc.c). */
#include "core/runtime.h"
#include "core/mech.h"
#include "policies/knobs_shared.h"

#include <stdlib.h>

enum {
	K_PREEMPT = KS__COUNT,
	K_RETAKE,
	K_NODE_QUEUES,
	K_NODE_MPOOLS,
	K_LASTM,
	K_HIER_STEAL,
	K_LIFO,
	K_FIFO_INTERVAL,
	K_HOME_RETURN,
	K_ROOT_RR,
	K_BURST,
	K_SHARED_QUEUE,
	K_NET_PRIO,
	K_NODE_HEAPS,
	K_REMOTE_DELAY,
	K_BURST_BATCH,
	K_STACK_MIGRATE,
};

static const struct pol_knob numa_knobs[] = {
	SHARED_KNOBS("slots in each P's private ring; a full ring moves half of itself to its "
		     "node's global queue",
		     "every Nth schedule on a P takes from its node's global queue first (0: "
		     "never first)",
		     "passes over the other Ps and queues before an M drops its P",
		     "a G spawned or readied by a running G goes to its P's runnext slot"),
	[K_PREEMPT] = SHARED_KNOB_PREEMPT,
	[K_RETAKE] = SHARED_KNOB_RETAKE("sysmon takes the P of a G blocked this long in a system "
					"call"),
	[K_NODE_QUEUES] = { "node_queues", 1, 0, 1, POL_KNOB_BOOL,
			    "a global run queue and G free list per NUMA node (0: one of each)" },
	[K_NODE_MPOOLS] = { "node_mpools", 1, 0, 1, POL_KNOB_BOOL,
			    "Ms bound to nodes, an idle-M pool per node: a P runs only on an M "
			    "of its node" },
	[K_LASTM] = { "lastm", 1, 0, 1, POL_KNOB_BOOL,
		      "a P is started on the M that last ran it, if that M is idle" },
	[K_HIER_STEAL] = { "hier_steal", 1, 0, 1, POL_KNOB_BOOL,
			   "steal from the own node's Ps, then other nodes' queues and Ps, "
			   "nearest first (0: all Ps in random order)" },
	[K_LIFO] = { "lifo", 1, 0, 1, POL_KNOB_BOOL,
		     "the owner takes the newest G of its ring (0: the oldest, FIFO)" },
	[K_FIFO_INTERVAL] = { "fifo_interval", 16, 1, 1000000, 0,
			      "with lifo, every Nth schedule takes the ring's oldest G instead" },
	[K_HOME_RETURN] = { "home_return", 1, 0, 1, POL_KNOB_BOOL,
			    "a G woken by a timer or the network goes back to the P it last ran on" },
	[K_ROOT_RR] = { "root_rr", 1, 0, 1, POL_KNOB_BOOL,
			"root goroutines are dealt round-robin over Ps and nodes" },
	[K_BURST] = { "burst_spawns", 8, 0, 1000000, 0,
		      "with root_rr, a G's spawns past this many in one time slice are roots "
		      "(0: only the handlers of accepted connections are)" },
	[K_SHARED_QUEUE] = { "shared_queue", 1, 0, 1, POL_KNOB_BOOL,
			     "Gs placed on a P from elsewhere go to its shared queue (0: to its "
			     "node's global queue)" },
	[K_NET_PRIO] = { "net_priorities", 1, 0, 1, POL_KNOB_BOOL,
			 "network wake-ups: writes run next, reads queue behind, accepts go "
			 "last (the shared queue)" },
	[K_NODE_HEAPS] = { "node_heaps", 1, 0, 1, POL_KNOB_BOOL,
			   "allocations from the heap come from the running P's node (0: the "
			   "OS's first touch)" },
	[K_REMOTE_DELAY] = { "remote_steal_delay_us", 10, 0, 1000000, 0,
			     "a thief of another node leaves a P's shared queue (its returned "
			     "and placed Gs) and its timers alone until they have waited this "
			     "long (0: no wait)" },
	[K_BURST_BATCH] = { "burst_batch", 32, 1, 4096, 0,
			    "with root_rr, a burst's roots are dealt this many at a time, one "
			    "lock and one wake-up per batch (1: one by one)" },
	[K_STACK_MIGRATE] = { "stack_migrate_after", 4, 0, 1000000, 0,
			      "a G whose stack is on another node is moved with its stack after "
			      "this many runs in a row there (0: never; workloads with \"stacks\")" },
	{ NULL, 0, 0, 0, 0, NULL },
};

struct numa {
	struct shared_knobs sk;
	struct rt_steal_order order;     /* over all Ps, without hier_steal */
	int64_t remote_delay_ns;
	bool hier, lifo, home_return, root_rr, shared, net_prio;
	uint32_t fifo_interval, burst;
	int nnodes;
	int *near;                       /* nnodes x nnodes: nodes by distance from each */
	int **node_ps;                   /* P ids of each node */
	int *node_nps;
	struct rt_steal_order *node_order; /* per node, over its Ps */
	int *rr;                         /* Ps in round-robin order: one per node in turn */
	plat_u32 rr_next;                /* atomic: the next root's place in rr */
	uint32_t burst_batch;
	uint32_t stack_after;
};

/* A P's: its burst roots not yet dealt, linked through schedlink; only
 * the M holding the P touches its batch, and it deals the rest out before
 * it next looks for work (numa_find). */
struct numa_p {
	struct g *head, *tail;
	uint32_t n;
};

/* A G's. */
struct numa_g {
	struct p *home;          /* the P it last ran on [numa_find_runnable], NULL before */
	uint32_t remote_runs;    /* runs in a row on a node other than its stack's */
};

static inline struct numa *numa_of(struct rt *rt)
{
	return rt_pol_run(rt);
}
static inline struct numa_g *numa_g(struct rt *rt, struct g *g)
{
	return rt_pol_g(rt, g);
}

static bool numa_init(struct rt *rt, struct pol_choices *c, struct err *e)
{
	(void)e;
	struct numa *nu = numa_of(rt);
	const int64_t *k = rt->knobs;
	shared_knobs_read(&nu->sk, c, k, K_PREEMPT, K_RETAKE);
	nu->hier = k[K_HIER_STEAL] != 0;
	nu->lifo = k[K_LIFO] != 0;
	nu->fifo_interval = (uint32_t)k[K_FIFO_INTERVAL];
	nu->home_return = k[K_HOME_RETURN] != 0;
	nu->remote_delay_ns = k[K_REMOTE_DELAY] * 1000;
	nu->root_rr = k[K_ROOT_RR] != 0;
	nu->burst = (uint32_t)k[K_BURST];
	nu->burst_batch = (uint32_t)k[K_BURST_BATCH];
	nu->stack_after = (uint32_t)k[K_STACK_MIGRATE];
	nu->shared = k[K_SHARED_QUEUE] != 0;
	nu->net_prio = k[K_NET_PRIO] != 0;
	c->node_queues = k[K_NODE_QUEUES] != 0;
	c->node_mpools = k[K_NODE_MPOOLS] != 0;
	c->lastm = k[K_LASTM] != 0;
	c->node_heaps = k[K_NODE_HEAPS] != 0;
	c->shared_queues = nu->shared || nu->net_prio;
	rt_steal_order_reset(&nu->order, (uint32_t)rt->procs);
	nu->nnodes = rt->topo->nnodes;
	return true;
}

/* The per-node tables need the Ps' nodes: built once the core has made
 * and placed the Ps, before the run. */
static void numa_placed(struct rt *rt)
{
	struct numa *nu = numa_of(rt);
	const struct topo *t = rt->topo;
	int nn = nu->nnodes;
	nu->near = xcalloc((size_t)nn * (size_t)nn, sizeof(*nu->near));
	for (int a = 0; a < nn; a++) {
		/* nodes by SLIT distance from a, ties by number (insertion sort:
		 * a handful of nodes) */
		int *row = &nu->near[a * nn];
		for (int b = 0; b < nn; b++) {
			int j = b;
			for (; j > 0 && topo_distance(t, a, row[j - 1]) > topo_distance(t, a, b); j--)
				row[j] = row[j - 1];
			row[j] = b;
		}
	}
	nu->node_ps = xcalloc((size_t)nn, sizeof(*nu->node_ps));
	nu->node_nps = xcalloc((size_t)nn, sizeof(*nu->node_nps));
	nu->node_order = xcalloc((size_t)nn, sizeof(*nu->node_order));
	for (int i = 0; i < rt->procs; i++)
		nu->node_nps[rt->allp[i]->node]++;
	for (int n = 0; n < nn; n++) {
		nu->node_ps[n] = xcalloc((size_t)nu->node_nps[n] + 1, sizeof(int));
		nu->node_nps[n] = 0;
	}
	for (int i = 0; i < rt->procs; i++) {
		int n = rt->allp[i]->node;
		nu->node_ps[n][nu->node_nps[n]++] = i;
	}
	for (int n = 0; n < nn; n++)
		if (nu->node_nps[n])
			rt_steal_order_reset(&nu->node_order[n], (uint32_t)nu->node_nps[n]);
	/* round robin: the first P of each node, then the second of each... */
	nu->rr = xcalloc((size_t)rt->procs, sizeof(*nu->rr));
	int k = 0;
	for (int j = 0; k < rt->procs; j++)
		for (int n = 0; n < nn; n++)
			if (j < nu->node_nps[n])
				nu->rr[k++] = nu->node_ps[n][j];
	plat_u32_init(&nu->rr_next, 0, plat_line_new(rt, 0));
}

static void numa_fini(struct rt *rt)
{
	struct numa *nu = numa_of(rt);
	rt_steal_order_free(&nu->order);
	if (nu->node_ps) {
		for (int n = 0; n < nu->nnodes; n++) {
			free(nu->node_ps[n]);
			rt_steal_order_free(&nu->node_order[n]);
		}
	}
	free(nu->node_ps);
	free(nu->node_nps);
	free(nu->node_order);
	free(nu->near);
	free(nu->rr);
}

/* ---- Placing Gs ---- */

/* n Gs (head to tail through schedlink) go to target: the caller's own
 * ring if it is the caller's P, else target's shared queue, or without
 * one target's node's global queue. */
static void place_list(struct m *m, struct numa *nu, struct p *target, struct g *head,
		       struct g *tail, uint32_t n)
{
	struct rt *rt = m->rt;
	if (m->p == target) {
		for (struct g *g = head, *next; g; g = next) {
			next = g->schedlink;
			rt_runqput(rt, target, g, false);
		}
		rt_wakep(m);
		return;
	}
	if (nu->shared) {
		rt_sharedq_putlist(rt, target, head, tail, n);
		rt_wakep_for(m, target);
		return;
	}
	int qi = rt_gq_of_node(rt, target->node);
	rt_lock(&rt->sched.lock);
	for (struct g *g = head, *next; g; g = next) {
		next = g->schedlink;
		rt_globrunqputbatch(rt, qi, &g, 1);
	}
	rt_unlock(&rt->sched.lock);
	rt_wakep_node(m, target->node);
}

static void place_on(struct m *m, struct numa *nu, struct p *target, struct g *g)
{
	g->schedlink = NULL;
	place_list(m, nu, target, g, g, 1);
}

static struct p *next_root_p(struct rt *rt, struct numa *nu)
{
	uint32_t i = plat_add_u32(&nu->rr_next, 1, memory_order_relaxed);
	return rt->allp[nu->rr[i % (uint32_t)rt->procs]];
}

/* The roots of a burst held back on m's P, dealt to the next P round. */
static void deal_batch(struct m *m, struct numa *nu)
{
	struct numa_p *b = rt_pol_p(m->p);
	if (!b->n)
		return;
	for (struct g *g = b->head; g; g = g->schedlink) {
		rt_g_deq(g, RT_Q_POLICY);
		rt_why_deq(m->rt, g);
	}
	struct g *head = b->head, *tail = b->tail;
	uint32_t n = b->n;
	*b = (struct numa_p){ NULL, NULL, 0 };
	place_list(m, nu, next_root_p(m->rt, nu), head, tail, n);
}

static void numa_newproc(struct m *m, struct g *g)
{
	struct rt *rt = m->rt;
	struct numa *nu = numa_of(rt);
	struct g *parent = m->curg;
	if (nu->root_rr && parent && rt->body->g_spawns_root(parent)) {
		place_on(m, nu, next_root_p(rt, nu), g);
		return;
	}
	/* One by one, a burst's roots cost the spawner a remote lock and
	 * often a wake-up each ("assigning each new goroutine to P's round
	 * robin is too expensive", says the proposal): they are dealt
	 * burst_batch at a time instead, to one P each batch. */
	if (nu->root_rr && parent && nu->burst && parent->burst >= nu->burst) {
		struct numa_p *b = rt_pol_p(m->p);
		rt_g_enq(g, RT_Q_POLICY);
		rt_why_enq(rt, g, RT_WP_HELD, m->p, -1);
		g->schedlink = NULL;
		if (b->tail)
			b->tail->schedlink = g;
		else
			b->head = g;
		b->tail = g;
		if (++b->n >= nu->burst_batch)
			deal_batch(m, nu);
		return;
	}
	rt_runqput(rt, m->p, g, nu->sk.runnext);
	rt_wakep(m);
}

static void numa_ready(struct m *m, struct g *g)
{
	struct rt *rt = m->rt;
	struct numa *nu = numa_of(rt);
	enum rt_wake why = (enum rt_wake)g->wake;
	struct p *here = m->p;
	struct p *home = numa_g(rt, g)->home;
	if (!home)
		home = here;
	if (why != RT_WAKE_OTHER && nu->home_return && home && home != here) {
		place_on(m, nu, home, g);
		return;
	}
	if (!here) {
		/* the poller, holding no P: the G's home, else its node's queue */
		if (home) {
			place_on(m, nu, home, g);
			return;
		}
		rt_lock(&rt->sched.lock);
		rt_globrunqput(rt, g);
		rt_unlock(&rt->sched.lock);
		rt_startm(m, NULL, false);
		return;
	}
	bool next = nu->sk.runnext;
	if (nu->net_prio) {
		if (why == RT_WAKE_NET_ACCEPT) {
			rt_sharedq_put(rt, here, g);
			rt_wakep(m);
			return;
		}
		if (why == RT_WAKE_NET_WRITE)
			next = true;
		else if (why == RT_WAKE_NET_READ)
			next = false;
	}
	rt_runqput(rt, here, g, next);
	rt_wakep(m);
}

/* ---- Finding work ---- */

/* The owner's next local G: runnext, then the ring (mostly LIFO), then
 * the shared queue. */
static struct g *local_get(struct numa *nu, struct p *pp, bool *inherit)
{
	struct g *g;
	*inherit = false;
	if (!nu->lifo || pp->schedtick % nu->fifo_interval == 0) {
		g = rt_runqget(pp, inherit);
	} else {
		void *next = plat_load_ptr(&pp->runnext, memory_order_relaxed);
		g = next ? rt_runqget(pp, inherit) : NULL;   /* takes runnext */
		if (!g)
			g = rt_runqget_lifo(pp);
	}
	if (!g && pp->sharedq_used)
		g = rt_sharedq_get(pp);
	return g;
}

/* A batch (max 0) from node's queue, or one G (max 1: the local ring may
 * be full, and overflowing it would take sched.lock again). */
static struct g *take_node_queue(struct rt *rt, struct p *pp, int node, uint32_t max,
				 enum rt_gq_why why)
{
	return rt_globrunqtake(rt, pp, rt_gq_of_node(rt, node), max, why);
}

/* An idle P whose shared queue still holds work after a thief took a G
 * of it is started to run the rest itself.  rt_wakep_for starts nobody while an
 * M spins, trusting the spinner; but a spinner takes one G of a shared
 * queue at a time, and Go's throttle (half the busy Ps may spin) keeps
 * the spinners few, so a burst dealt round the Ps could sit on idle Ps
 * for tens of milliseconds while they stayed idle (spawn-burst on numa4's
 * 64 Ps: 1,120 Gs on each of 40 idle Ps at 51 ms, found by `schedlab
 * explore`'s starvation check).  At most one start per idle P: started,
 * it is busy and not started again. */
static void wake_owner(struct rt *rt, struct p *p2)
{
	if (!rt_p_is_idle(rt, p2->id) || !plat_load_u32(&p2->sharedq_size, memory_order_relaxed))
		return;
	rt_start_idle_p(rt, p2);
}

/* One victim: half its ring (its runnext on the last pass), else a G of
 * its shared queue. */
static struct g *steal_from(struct m *m, struct numa *nu, struct p *p2, bool last)
{
	struct rt *rt = m->rt;
	struct p *pp = m->p;
	if (p2 == pp)
		return NULL;
	/* A P of another node waits before it takes what was put on p2 for
	 * p2 -- Gs sent home, roots dealt there -- or runs p2's timers, so
	 * that p2's own node (woken for them) has the first chance: else an
	 * idle remote spinner takes every G home_return sends back. */
	int64_t ready_by = INT64_MAX;
	if (p2->node != pp->node && nu->remote_delay_ns)
		ready_by = plat_nanotime() - nu->remote_delay_ns;
	uint64_t t0 = plat_load_u64(&p2->timer0, memory_order_relaxed);
	if (last && t0 && (int64_t)t0 <= ready_by) {
		rt_check_timers(m, p2, 0);
		bool inh;
		struct g *g = local_get(nu, pp, &inh);
		if (g)
			return g;
	}
	uint32_t n = 0;
	struct g *g = NULL;
	if (!rt_p_is_idle(rt, p2->id))
		g = rt_runqsteal(rt, pp, p2, last, nu->sk.runnext_delay_us, &n);
	if (!g && p2->sharedq_used && (g = rt_sharedq_get_ready_by(p2, ready_by))) {
		n = 1;
		wake_owner(rt, p2);
	}
	if (g)
		rt_count_steal(m, p2, n);
	return g;
}

static struct g *steal_node_ps(struct m *m, struct numa *nu, int node, bool last)
{
	struct rt *rt = m->rt;
	if (!nu->node_nps[node])
		return NULL;
	for (struct rt_steal_enum e = rt_steal_order_start(&nu->node_order[node], rt_fastrand(m));
	     !rt_steal_enum_done(&e); rt_steal_enum_next(&e)) {
		struct g *g = steal_from(m, nu, rt->allp[nu->node_ps[node][e.pos]], last);
		if (g)
			return g;
	}
	return NULL;
}

/* Own node's Ps, then each other node's queue and Ps, nearest first. */
static struct g *steal_work(struct m *m, struct numa *nu)
{
	struct rt *rt = m->rt;
	int home = m->p->node;
	for (int i = 0; i < nu->sk.steal_tries; i++) {
		bool last = i == nu->sk.steal_tries - 1;
		if (!nu->hier) {
			for (struct rt_steal_enum e = rt_steal_order_start(&nu->order, rt_fastrand(m));
			     !rt_steal_enum_done(&e); rt_steal_enum_next(&e)) {
				struct g *g = steal_from(m, nu, rt->allp[e.pos], last);
				if (g)
					return g;
			}
			continue;
		}
		struct g *g = steal_node_ps(m, nu, home, last);
		if (g)
			return g;
		const int *near = &nu->near[home * nu->nnodes];
		for (int k = 0; k < nu->nnodes; k++)
			if (near[k] != home && rt->choices.node_queues &&
			    (g = take_node_queue(rt, m->p, near[k], 0, RT_GQ_STEAL)))
				return g;
		for (int k = 0; k < nu->nnodes; k++)
			if (near[k] != home && (g = steal_node_ps(m, nu, near[k], last)))
				return g;
	}
	return NULL;
}

static struct g *numa_find(struct m *m, bool *inherit)
{
	struct rt *rt = m->rt;
	struct sched *s = &rt->sched;
	struct numa *nu = numa_of(rt);
	struct g *g;
	deal_batch(m, nu);
top:
	if (rt_done(rt))
		return NULL;
	struct p *pp = m->p;
	*inherit = false;
	rt_check_timers(m, pp, 0);

	/* fairness: the node's queue first, now and then */
	if (nu->sk.global_check && pp->schedtick % nu->sk.global_check == 0 &&
	    (g = take_node_queue(rt, pp, pp->node, 1, RT_GQ_FAIRNESS)))
		return g;
	if ((g = local_get(nu, pp, inherit)))
		return g;
	if ((g = take_node_queue(rt, pp, pp->node, 0, RT_GQ_LOCAL_EMPTY)))
		return g;
	if (rt_netpoll_any_waiters(rt) && !plat_load_u32(&s->polling, memory_order_relaxed)) {
		rt_netpoll_now(m);   /* through numa_ready: home Ps, priorities */
		if ((g = local_get(nu, pp, inherit)))
			return g;
	}
	if (rt_trybecomespinning(m, nu->sk.spinning_pct) && (g = steal_work(m, nu)))
		return g;

	/* Drop the P, after a last look at every node's queue, nearest
	 * first, and at this P's shared queue; as the last spinner, look at
	 * the global queues before the Ps'. */
	if ((g = rt_dropp(m, &nu->near[pp->node * nu->nnodes], true)))
		return g;
	goto top;
}

static struct g *numa_find_runnable(struct m *m, bool *inherit)
{
	struct rt *rt = m->rt;
	struct g *g = numa_find(m, inherit);
	if (!g)
		return NULL;
	/* A G's home moves with it within its node only: one a P of another
	 * node stole keeps its home, and its next timer or network wake takes
	 * it back there (the proposal: netpoller and timers return stolen Gs
	 * to their home P), where its memory is. */
	struct numa_g *ng = numa_g(rt, g);
	if (!ng->home || ng->home->node == m->p->node)
		ng->home = m->p;
	/* The proposal's stack migration, right before the G runs: after
	 * stack_after runs in a row on a node other than its stack's. */
	struct numa *nu = numa_of(rt);
	if (nu->stack_after && rt_g_stack_modelled(rt, g)) {
		if (g->stack_node == m->p->node)
			ng->remote_runs = 0;
		else if (++ng->remote_runs >= nu->stack_after &&
			 rt->body->g_stack_move(m, g, m->p->node))
			ng->remote_runs = 0;
	}
	return g;
}

const struct pol_ops pol_numa = {
	.name = "numa",
	.summary = "the 2014 NUMA-aware proposal: per-node queues, M pools and heaps, "
		   "hierarchical stealing, mostly-LIFO, home Ps, round-robin roots",
	.knobs = numa_knobs,
	.run_bytes = sizeof(struct numa),
	.p_bytes = sizeof(struct numa_p),
	.g_bytes = sizeof(struct numa_g),
	.init = numa_init,
	.placed = numa_placed,
	.fini = numa_fini,
	.newproc = numa_newproc,
	.ready = numa_ready,
	.ready_net = true,
	.yield = rt_yield_global,          /* to its node's global queue */
	.find_runnable = numa_find_runnable,
};
