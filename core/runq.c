/* Local run queues: each P's lock-free ring and runnext [proc: Run queues].
 *
 * head and tail are free-running 32-bit counters; a slot is counter mod
 * the ring size (a power of two, so wrap-around of the counters is
 * harmless).  tail is written by the owner only, with a store-release
 * after the slot is filled; head is advanced by CAS by the owner and by
 * thieves, with release, after they have read the slots they take.  Slots
 * are atomics (relaxed) because a thief may read a slot that the owner is
 * about to reuse: the thief's CAS of head then fails and it reads again.
 *
 * Popping from the tail (rt_runqget_lifo, for numa's mostly-LIFO order)
 * breaks the last sentence unless the thief can see it.  A thief sizes its
 * batch from a tail it read before the CAS, and the owner may meanwhile
 * have taken slots from the tail -- even refilled them -- without moving
 * head, so a CAS of the head position alone succeeds and the thief runs
 * Gs the owner already took.  (It did: numa on skynet, numa4, 8 Ps ran a
 * G twice, caught by rt_g_deq's assert in simulation and a crash
 * natively.)  So head carries a second half, the count of the owner's tail
 * pops, and every pop from the tail bumps it by CAS after lowering tail.
 * A thief that read head before such a pop then fails its CAS; one that
 * read head after it also reads the lowered tail (both seq_cst), so its
 * batch stops below the popped slot. */
#include "core/runtime.h"
#include "core/mech.h"

#include <assert.h>
#include <stdlib.h>

/* Slots per simulated cache line: 8-byte pointers on 64-byte lines. */
#define SLOTS_PER_LINE 8

void rt_runq_init(struct rt *rt, struct p *pp)
{
	plat_line_t ends = plat_line_new(rt, pp->node);
	plat_u64_init(&pp->runqhead, 0, ends);
	plat_u32_init(&pp->runqtail, 0, ends);
	plat_ptr_init(&pp->runnext, NULL, plat_line_new(rt, pp->node));
	pp->runq = plat_alloc(rt->choices.runq_size * sizeof(plat_ptr), pp->node);
	plat_line_t line = 0;
	for (uint32_t i = 0; i < rt->choices.runq_size; i++) {
		if (i % SLOTS_PER_LINE == 0)
			line = plat_line_new(rt, pp->node);
		plat_ptr_init(&pp->runq[i], NULL, line);
	}
	pp->runq_mask = rt->choices.runq_size - 1;
	pp->sharedq_used = rt->choices.shared_queues;
	plat_line_t shared = plat_line_new(rt, pp->node);
	rt_mutex_init(rt, &pp->sharedq_lock, shared, RT_LOCK_SCHED);
	plat_u32_init(&pp->sharedq_size, 0, shared);
	pp->runqbatch = xmalloc((rt->choices.runq_size / 2 + 1) * sizeof(*pp->runqbatch));
}

/* Puts half of a full ring, and g, on the global queue in one batch.
 * Returns false if a thief got there first (the ring is no longer full).
 * Executed only by the owner P (rt_runqput, in runtime.h). */
bool rt_runqputslow(struct rt *rt, struct p *pp, struct g *g, uint64_t head, uint32_t t)
{
	uint32_t h = rq_head(head);
	uint32_t n = (t - h) / 2;
	assert(n == (pp->runq_mask + 1) / 2 && "runqputslow: queue is not full");
	/* cas-release: commits the consumption of the batch */
	if (!plat_cas_u64(&pp->runqhead, &head, rq_head_make(head, h + n), memory_order_release))
		return false;
	/* Read only now: the slots stay put, since only this owner writes
	 * them, and the CAS made the Gs ours. */
	struct g **batch = pp->runqbatch;
	for (uint32_t i = 0; i < n; i++) {
		batch[i] = plat_load_ptr(&pp->runq[(h + i) & pp->runq_mask], memory_order_relaxed);
		rt_g_deq(batch[i], RT_Q_LOCAL);
	}
	rt_g_deq(g, RT_Q_LOCAL);
	batch[n] = g;
	rt_lock(&rt->sched.lock);
	rt_globrunqputbatch(rt, rt_gq_of_node(rt, pp->node), batch, n + 1);
	rt_unlock(&rt->sched.lock);
	return true;
}

/* True if pp has nothing to run.  Can be executed by any P.  Seeing head ==
 * tail and then runnext == NULL does not prove emptiness: in between, the
 * owner may have kicked runnext into the ring and taken a new runnext.  So
 * the tail is read again, and the answer stands only if it did not move. */
bool rt_runqempty(struct p *pp)
{
	for (;;) {
		uint32_t h = rq_head(plat_load_u64(&pp->runqhead, memory_order_acquire));
		uint32_t t = plat_load_u32(&pp->runqtail, memory_order_acquire);
		void *next = plat_load_ptr(&pp->runnext, memory_order_acquire);
		if (t == plat_load_u32(&pp->runqtail, memory_order_acquire))
			return h == t && !next;
	}
}

/* Asked by an idle P's owner, whose queue nobody else fills (a thief can
 * only empty it), so one look is the answer. */
bool rt_runqempty_peek(struct p *pp)
{
	return rq_head(plat_peek_u64(&pp->runqhead)) == plat_peek_u32(&pp->runqtail) &&
	       !plat_peek_ptr(&pp->runnext);
}

/* A snapshot length, for statistics and tests. */
uint32_t rt_runqlen(struct p *pp)
{
	uint32_t h = rq_head(plat_load_u64(&pp->runqhead, memory_order_acquire));
	uint32_t t = plat_load_u32(&pp->runqtail, memory_order_acquire);
	return t - h;
}

/* Moves half (rounded up) of pp's ring into batch (a ring of the same size,
 * from batch_head on); with steal_runnext, takes pp's runnext when the ring
 * is empty.  Returns the number taken.  Can be executed by any P. */
static uint32_t runqgrab(struct p *pp, plat_ptr *batch, uint32_t batch_mask, uint32_t batch_head,
			 bool steal_runnext, int64_t runnext_delay_us)
{
	for (;;) {
		/* load-acquire: synchronize with other consumers, and with the
		 * producer; seq_cst for the owner's tail pops (see the top) */
		uint64_t head = plat_load_u64(&pp->runqhead, memory_order_seq_cst);
		uint32_t h = rq_head(head);
		uint32_t t = plat_load_u32(&pp->runqtail, memory_order_seq_cst);
		uint32_t n = t - h;
		n = n - n / 2;
		if (n == 0) {
			if (!steal_runnext)
				return 0;
			void *next = plat_load_ptr(&pp->runnext, memory_order_acquire);
			if (!next)
				return 0;
			/* A running owner is probably about to run its runnext (it
			 * just readied it): give it time to, rather than steal a G
			 * and move it between CPUs for nothing. */
			if (runnext_delay_us > 0 &&
			    plat_load_u32(&pp->status, memory_order_relaxed) == P_RUNNING) {
				/* the back-off is parked time [proc: Where the time goes] */
				struct m *self = plat_self();
				unsigned was = self ? rt_mt_switch(self, RT_MT(RT_CPU_PARKED, 0)) : 0;
				plat_usleep(runnext_delay_us);
				if (self)
					rt_mt_switch(self, was);
			}
#if defined(SCHEDLAB_SEEDED_BUGS)
			struct m *me = plat_self();
			if (me && RT_BUG(me->rt, RT_BUG_RUNNEXT_EAGER)) {
				/* the seeded bug: no delay was asked, so no CAS
				 * either -- the owner may run it meanwhile */
				plat_store_ptr(&pp->runnext, NULL, memory_order_release);
				plat_store_ptr(&batch[batch_head & batch_mask], next, memory_order_relaxed);
				return 1;
			}
#endif
			if (!plat_cas_ptr(&pp->runnext, &next, NULL, memory_order_acq_rel))
				continue;
			plat_store_ptr(&batch[batch_head & batch_mask], next, memory_order_relaxed);
			return 1;
		}
		if (n > (pp->runq_mask + 1) / 2)
			continue;   /* h and t read at different moments: inconsistent */
		for (uint32_t i = 0; i < n; i++) {
			void *g = plat_load_ptr(&pp->runq[(h + i) & pp->runq_mask], memory_order_relaxed);
			plat_store_ptr(&batch[(batch_head + i) & batch_mask], g, memory_order_relaxed);
		}
		/* cas-release: commits the consumption, unless the owner has
		 * popped from the tail since head was read */
		if (plat_cas_u64(&pp->runqhead, &head, rq_head_make(head, h + n),
				 memory_order_release))
			return n;
	}
}

/* Steals half of p2's ring into pp's and returns one of the stolen Gs (the
 * rest become runnable on pp), or NULL.  *stolen gets the count taken.
 * Executed only by the owner of pp. */
struct g *rt_runqsteal(struct rt *rt, struct p *pp, struct p *p2, bool steal_runnext,
		       int64_t runnext_delay_us, uint32_t *stolen)
{
	(void)rt;
	uint32_t t = plat_load_u32(&pp->runqtail, memory_order_relaxed);
	uint32_t n = runqgrab(p2, pp->runq, pp->runq_mask, t, steal_runnext, runnext_delay_us);
	if (stolen)
		*stolen = n;
	if (n == 0)
		return NULL;
	if (rt->tracing)
		rt_trace_rec(rt, plat_self(), RT_TEV_STEAL, 0, pp->id, (uint64_t)p2->id, n);
	n--;
	struct g *g = plat_load_ptr(&pp->runq[(t + n) & pp->runq_mask], memory_order_relaxed);
	rt_g_deq(g, RT_Q_LOCAL);
	if (RT_WHY_ON(rt)) {
		/* moved to pp's ring, and one taken from there: unpriced reads */
		for (uint32_t i = 0; i < n; i++)
			rt_why_enq_slow(rt, plat_peek_ptr(&pp->runq[(t + i) & pp->runq_mask]),
					RT_WP_LOCAL, pp, -1);
		rt_why_deq_slow(rt, g);
	}
	if (n == 0)
		return g;
	/* load-acquire: synchronize with consumers */
	uint32_t h = rq_head(plat_load_u64(&pp->runqhead, memory_order_acquire));
	assert(t - h + n <= pp->runq_mask && "runqsteal: runq overflow");
	(void)h;
	/* store-release: makes the stolen Gs available to consumers */
	plat_store_u32(&pp->runqtail, t + n, memory_order_release);
	return g;
}

/* Takes the G at the ring's tail, the one put last (for a policy that runs
 * its local work mostly LIFO: it is the warmest in the caches).  Thieves
 * keep taking from the head; the pop lowers tail first and then bumps
 * head's pop count by CAS, which fails only if a thief moved head
 * meanwhile -- then the pop looks again at what the thief left (see the
 * top of this file).  runnext is not looked at.  Executed only by the
 * owner P. */
struct g *rt_runqget_lifo(struct p *pp)
{
	uint32_t t = plat_load_u32(&pp->runqtail, memory_order_relaxed);
	uint64_t head = plat_load_u64(&pp->runqhead, memory_order_acquire);
	if (t == rq_head(head))
		return NULL;
	t--;
	/* seq_cst store before the head's CAS: a thief that reads head after
	 * the CAS reads this tail too */
	plat_store_u32(&pp->runqtail, t, memory_order_seq_cst);
	for (;;) {
		head = plat_load_u64(&pp->runqhead, memory_order_seq_cst);
		if ((int32_t)(t - rq_head(head)) < 0) {
			/* thieves took every G, slot t's too: empty, head == tail */
			plat_store_u32(&pp->runqtail, t + 1, memory_order_release);
			return NULL;
		}
		struct g *g = plat_load_ptr(&pp->runq[t & pp->runq_mask], memory_order_relaxed);
		if (plat_cas_u64(&pp->runqhead, &head, head + ((uint64_t)1 << 32),
				 memory_order_seq_cst)) {
			rt_g_deq(g, RT_Q_LOCAL);
			rt_why_deq_p(pp, g);
			return g;
		}
	}
}

/* ---- Shared queues: a FIFO per P that any M may put to ---- */

void rt_sharedq_putlist(struct rt *rt, struct p *pp, struct g *head, struct g *tail, uint32_t n)
{
	assert(pp->sharedq_used);
	for (struct g *g = head; g; g = g->schedlink)
		rt_g_enq(g, RT_Q_SHARED);
	tail->schedlink = NULL;
	if (rt->tracing) {
		struct m *self = plat_self();
		for (struct g *g = head; g; g = g->schedlink)
			rt_trace_rec(rt, self, RT_TEV_PLACE, g->goid,
				     self && self->p ? self->p->id : -1, (uint64_t)pp->id,
				     (uint64_t)pp->node);
	}
	bool lock = !RT_BUG(rt, RT_BUG_SHAREDQ_NOLOCK);
	if (lock)
		rt_lock(&pp->sharedq_lock);
	if (RT_WHY_ON(rt)) {
		uint32_t ahead = plat_peek_u32(&pp->sharedq_size);
		for (struct g *g = head; g; g = g->schedlink)
			rt_why_enq_slow(rt, g, RT_WP_SHARED, pp, ahead++);
	}
	if (pp->sharedq_tail)
		pp->sharedq_tail->schedlink = head;
	else
		pp->sharedq_head = head;
	pp->sharedq_tail = tail;
	/* seq_cst: a full barrier before the caller reads whether pp is idle */
	plat_add_u32(&pp->sharedq_size, n, memory_order_seq_cst);
	rt_mech_sharedq(pp);
	if (lock)
		rt_unlock(&pp->sharedq_lock);
}

void rt_sharedq_put(struct rt *rt, struct p *pp, struct g *g)
{
	g->schedlink = NULL;
	rt_sharedq_putlist(rt, pp, g, g, 1);
}

/* True if pp has Gs in its ring, runnext or shared queue (any M). */
bool rt_p_has_work(struct p *pp)
{
	return !rt_runqempty(pp) ||
	       (pp->sharedq_used && plat_load_u32(&pp->sharedq_size, memory_order_acquire));
}

/* Takes the oldest G of pp's shared queue (any M: the owner, or a thief). */
struct g *rt_sharedq_get(struct p *pp)
{
	return rt_sharedq_get_ready_by(pp, INT64_MAX);
}

struct g *rt_sharedq_get_ready_by(struct p *pp, int64_t ready_by)
{
	if (!plat_load_u32(&pp->sharedq_size, memory_order_acquire))
		return NULL;
	rt_lock(&pp->sharedq_lock);
	struct g *g = pp->sharedq_head;
	/* a queued G's runnable_since is its readier's, written before the
	 * put: read under the lock, it is stable */
	if (g && g->runnable_since >= 0 && g->runnable_since > ready_by)
		g = NULL;
	if (g) {
		pp->sharedq_head = g->schedlink;
		if (!pp->sharedq_head)
			pp->sharedq_tail = NULL;
		plat_store_u32(&pp->sharedq_size,
			       plat_load_u32(&pp->sharedq_size, memory_order_relaxed) - 1,
			       memory_order_relaxed);
		rt_g_deq(g, RT_Q_SHARED);
		rt_why_deq_p(pp, g);
		rt_mech_sharedq(pp);
	}
	rt_unlock(&pp->sharedq_lock);
	return g;
}

/* ---- Steal order ---- */

void rt_steal_order_reset(struct rt_steal_order *ord, uint32_t count)
{
	ord->count = count;
	ord->ncoprimes = 0;
	ord->coprimes = xrealloc(ord->coprimes, (count + 1) * sizeof(*ord->coprimes));
	for (uint32_t i = 1; i <= count; i++)
		if (u64_gcd(i, count) == 1)
			ord->coprimes[ord->ncoprimes++] = i;
}

void rt_steal_order_free(struct rt_steal_order *ord)
{
	free(ord->coprimes);
	ord->coprimes = NULL;
}

/* r picks both the start (r mod count) and the step (a coprime). */
struct rt_steal_enum rt_steal_order_start(const struct rt_steal_order *ord, uint32_t r)
{
	return (struct rt_steal_enum){
		.i = 0,
		.count = ord->count,
		.pos = r % ord->count,
		.inc = ord->coprimes[r / ord->count % ord->ncoprimes],
	};
}
