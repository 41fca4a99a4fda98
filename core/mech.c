/* The mechanism counters [core/mech.h; docs/runtime.md, "The mechanisms"]:
 * kept per P by its owner, added up once the run is over. */
#include "core/mech.h"

#include <stdlib.h>
#include <string.h>

void rt_mech_init(struct rt *rt)
{
	size_t size = (size_t)rt->procs * sizeof(struct p_mech);
	struct rt_mechrun *mr = xcalloc(1, sizeof(*mr));
	mr->p = aligned_alloc(64, (size + 63) / 64 * 64);
	if (!mr->p)
		die_oom(size);
	memset(mr->p, 0, size);
	for (int i = 0; i < rt->procs; i++) {
		mr->p[i].rq_t = -1;
		mr->p[i].sq_t = -1;
		mr->p[i].timed = rt->timed;
		rt->allp[i]->mech = &mr->p[i];
	}
	mr->gq_t = -1;
	rt->mech = mr;
}

void rt_mech_fini(struct rt *rt)
{
	struct rt_mechrun *mr = rt->mech;
	if (!mr)
		return;
	for (int i = 0; i < rt->procs; i++) {
		for (int k = 0; k < RT_RUN__COUNT; k++)
			free(mr->p[i].lat_why[k]);
		for (int k = 0; k < RT_USER_CLASSES; k++)
			free(mr->p[i].lat_class[k]);
	}
	free(mr->p);
	free(mr);
	rt->mech = NULL;
}

/* Adds len x (now - *t) to q and moves the length to next.  Ms' clocks
 * may disagree by a little in simulation (each runs ahead of the
 * engine's): time never runs backwards here. */
static void qlen_move(struct rt_qlen *q, int64_t *t, uint32_t *len, int64_t now, uint32_t next)
{
	if (*t >= 0 && now > *t)
		q->area_ns += (double)*len * (double)(now - *t);
	if (*t < 0 || now > *t)
		*t = now;
	*len = next;
	if (next > q->max)
		q->max = next;
}

void rt_mech_gq_take(struct rt *rt, struct p *pp, uint32_t n)
{
	struct p_mech *pm = pp->mech;
	pm->gq_takes[pm->gq_why]++;
	pm->gq_gs[pm->gq_why] += n;
	rt_mech_gq_len(rt);
}

void rt_mech_gq_len(struct rt *rt)
{
	struct rt_mechrun *mr = rt->mech;
	if (!rt->timed || !mr)
		return;
	qlen_move(&mr->gq, &mr->gq_t, &mr->gq_len, plat_nanotime(),
		  plat_peek_u32(&rt->sched.runqsize));
}

void rt_mech_steal(struct p *pp, uint32_t n)
{
	unsigned b = rt_steal_bucket(n);
	pp->mech->steal_batches[b]++;
	pp->mech->steal_gs[b] += n;
}

static uint32_t runq_len(struct p *pp)
{
	uint32_t t = plat_peek_u32(&pp->runqtail);
	uint32_t h = rq_head(plat_peek_u64(&pp->runqhead));
	return t - h + (plat_peek_ptr(&pp->runnext) != NULL);
}

void rt_mech_runq(struct rt *rt, struct p *pp, int64_t now)
{
	if (!rt->timed)
		return;
	struct p_mech *pm = pp->mech;
	qlen_move(&pm->rq, &pm->rq_t, &pm->rq_len, now, runq_len(pp));
}

void rt_mech_sharedq(struct p *pp)
{
	struct p_mech *pm = pp->mech;
	if (!pm || !pm->timed)
		return;
	qlen_move(&pm->sq, &pm->sq_t, &pm->sq_len, plat_nanotime(), plat_peek_u32(&pp->sharedq_size));
}

void rt_mech_put(struct rt *rt, struct p *pp)
{
	if (!rt->timed)
		return;
	if (PLAT_SERIAL) {
		rt_mech_runq(rt, pp, plat_nanotime());
		return;
	}
	uint32_t len = runq_len(pp);
	if (len > pp->mech->rq.max)
		pp->mech->rq.max = len;
}

static struct hist *hist_of(struct hist **slot)
{
	if (!*slot)
		*slot = xcalloc(1, sizeof(**slot));
	return *slot;
}

void rt_mech_run(struct rt *rt, struct p *pp, const struct g *g, int64_t now, uint64_t lat)
{
	struct p_mech *pm = pp->mech;
	hist_record(hist_of(&pm->lat_why[g->runwhy < RT_RUN__COUNT ? g->runwhy : 0]), lat);
	if (rt->body->g_class) {
		unsigned k = rt->body->g_class(rt, g);
		hist_record(hist_of(&pm->lat_class[k < RT_USER_CLASSES ? k : RT_USER_CLASSES - 1]),
			    lat);
	}
	rt_mech_runq(rt, pp, now);
}

void rt_mech_spinning(struct m *m, uint32_t nspinning)
{
	if (nspinning > m->stats.spinning_max)
		m->stats.spinning_max = nspinning;
}

void rt_mech_collect(struct rt *rt, struct rt_mech *out)
{
	struct rt_mechrun *mr = rt->mech;
	memset(out, 0, sizeof(*out));
	rt_why_collect(rt, &out->why, 0);
	int64_t end = rt->end_ns;
	if (!rt->timed || !mr || end <= rt->start_ns)
		return;
	out->measured = true;
	out->span_ns = (uint64_t)(end - rt->start_ns);
	/* each queue's last length runs to the end */
	qlen_move(&mr->gq, &mr->gq_t, &mr->gq_len, end, mr->gq_len);
	out->globrunq = mr->gq;
	out->nprocs = rt->procs;
	out->p = xcalloc((size_t)rt->procs, sizeof(*out->p));
	for (int i = 0; i < rt->procs; i++) {
		struct p_mech *pm = &mr->p[i];
		struct rt_mech_p *op = &out->p[i];
		qlen_move(&pm->rq, &pm->rq_t, &pm->rq_len, end, pm->rq_len);
		qlen_move(&pm->sq, &pm->sq_t, &pm->sq_len, end, pm->sq_len);
		op->sharedq = pm->sq;
		op->node = rt->allp[i]->node;
		op->runq = pm->rq;
		op->busy_ns = pm->busy_ns;
		for (int k = 0; k < RT_GQ__COUNT; k++) {
			out->gq_takes[k] += pm->gq_takes[k];
			out->gq_gs[k] += pm->gq_gs[k];
		}
		for (int k = 0; k < RT_STEAL_BUCKETS; k++) {
			out->steal_batches[k] += pm->steal_batches[k];
			out->steal_gs[k] += pm->steal_gs[k];
		}
		for (int k = 0; k < RT_RUN__COUNT; k++)
			if (pm->lat_why[k])
				hist_merge(hist_of(&out->latency_by_why[k]), pm->lat_why[k]);
		for (int k = 0; k < RT_USER_CLASSES; k++)
			if (pm->lat_class[k])
				hist_merge(hist_of(&out->latency_by_class[k]), pm->lat_class[k]);
	}
	if (rt->body->class_name)
		for (int k = 0; k < RT_USER_CLASSES; k++) {
			const char *name = rt->body->class_name(rt, (unsigned)k);
			if (!name)
				break;
			out->class_names[k] = xstrdup(name);
			out->nclasses = k + 1;
		}
	if (out->why)
		out->why->nclasses = out->nclasses;
	for (struct m *m = rt->allm; m; m = m->alllink) {
		out->spinning_ns += m->stats.spinning_ns;
		out->spun_instead += m->stats.spun_instead;
		out->polls_skipped += m->stats.polls_skipped;
		if (m->stats.spinning_max > out->spinning_max)
			out->spinning_max = m->stats.spinning_max;
	}
	out->needspinning = rt->choices.needspinning;
	out->one_poller = rt->choices.one_poller;
	out->nnodes = rt->topo->nnodes;
	out->mem_lines = xcalloc((size_t)out->nnodes * (size_t)out->nnodes, sizeof(uint64_t));
	struct rt_mem mem;
	/* as the report's locality: only if the workload touched memory */
	out->mem_measured = plat_mem_counters(rt, &mem) && mem.touches > 0 &&
			    plat_mem_matrix(rt, out->mem_lines, &out->nhops, out->mem_hop_lines,
					    out->mem_hop_ns);
}
