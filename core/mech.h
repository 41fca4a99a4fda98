/* The mechanism counters' side of the core [docs/runtime.md, "The
 * mechanisms"]: one call at each decision point (core/mech.c keeps and
 * adds up the figures).  Each P's counters are written only by the M
 * holding it and sit on lines of their own; the global queue's under
 * sched.lock.  Nothing here is priced in simulation, so the counters
 * leave a simulated schedule as it was. */
#ifndef SCHEDLAB_CORE_MECH_H
#define SCHEDLAB_CORE_MECH_H

#include "core/runtime.h"

struct p_mech {
	uint8_t gq_why;                /* enum rt_gq_why of the next take (rt_mech_gq_why) */
	uint64_t gq_takes[RT_GQ__COUNT], gq_gs[RT_GQ__COUNT];
	uint64_t steal_batches[RT_STEAL_BUCKETS], steal_gs[RT_STEAL_BUCKETS];
	struct hist *lat_why[RT_RUN__COUNT];       /* made at first use */
	struct hist *lat_class[RT_USER_CLASSES];
	uint64_t busy_ns;
	int64_t rq_t;                  /* its local queue's length since rq_t */
	uint32_t rq_len;
	struct rt_qlen rq;
	bool timed;                    /* the run's */
	/* its shared queue's length since sq_t (sharedq_lock: any M), on a
	 * line of its own */
	int64_t sq_t __attribute__((aligned(64)));
	uint32_t sq_len;
	struct rt_qlen sq;
} __attribute__((aligned(64)));

struct rt_mechrun {
	struct p_mech *p;              /* [procs] */
	int64_t gq_t;                  /* the global queues' length since gq_t (sched.lock) */
	uint32_t gq_len;
	struct rt_qlen gq;
};

/* rt_new, once the Ps are made; rt_free. */
void rt_mech_init(struct rt *rt);
void rt_mech_fini(struct rt *rt);
/* rt_api.mech */
void rt_mech_collect(struct rt *rt, struct rt_mech *out);

/* The next take from a global queue for pp is for why. */
static inline void rt_mech_gq_why(struct p *pp, enum rt_gq_why why)
{
	pp->mech->gq_why = (uint8_t)why;
}
/* n Gs were taken from a global queue for pp (sched.lock held). */
void rt_mech_gq_take(struct rt *rt, struct p *pp, uint32_t n);
/* A global queue's length changed (sched.lock held). */
void rt_mech_gq_len(struct rt *rt);
/* pp's M stole a batch of n. */
void rt_mech_steal(struct p *pp, uint32_t n);
/* pp's local queue may have changed length (its owner, at now). */
void rt_mech_runq(struct rt *rt, struct p *pp, int64_t now);
/* pp's owner put Gs on it (a spawn, a wake-up): in simulation, where
 * reading the clock costs nothing, the length is updated now; natively
 * only its maximum is (the time-weighted length is updated at the P's
 * next G start, rt_mech_run), sparing a clock read per put. */
void rt_mech_put(struct rt *rt, struct p *pp);
/* pp's shared queue changed length (sharedq_lock held). */
void rt_mech_sharedq(struct p *pp);
/* g starts on pp at now after waiting lat ns for it. */
void rt_mech_run(struct rt *rt, struct p *pp, const struct g *g, int64_t now, uint64_t lat);
/* pp's M worked ns for it (the cpu breakdown's user, sched and lock
 * states, and a G's spin for a sync.Mutex, while it held pp). */
static inline void rt_mech_busy(struct p *pp, uint64_t ns)
{
	if (pp->mech)
		pp->mech->busy_ns += ns;
}
/* m starts spinning for work; now nspinning do. */
void rt_mech_spinning(struct m *m, uint32_t nspinning);

#endif
