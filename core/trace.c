/* Recording a run's execution trace [core/trace.h].
 *
 * Every decision point calls rt_trace (runtime.h), one predictable branch
 * on rt->tracing, which is fixed for the run; when it is set, the event
 * goes to the recording M's own buffer (tbuf), a growable array nobody
 * else touches while the run lasts: no lock, no shared line.  Events
 * recorded outside every M (before the run starts) go to rt->tbuf0.
 *
 * Order.  In a simulated run one M runs at a time, so a counter of the
 * run (trace_seq) numbers the events in the order they were recorded;
 * sorting by (ts, seq) gives the run's own order.  Natively each M numbers
 * its own, and ties of ts between Ms are broken by M id: an event that
 * causes another (a G readied, then started) is recorded before the
 * cause is published, so its clock read comes first.
 *
 * Nothing here touches the platform but its clock and plain reads: a
 * simulated run is the same with tracing on or off (its report and its
 * schedule_hash; tested).
 *
 * Buffers.  Each M's events go to chunks mapped once (mmap, populated up
 * front: the kernel faults a chunk's pages in in one call rather than one
 * trap per page on the recording path) and never moved or copied while the
 * run lasts: a full chunk is followed by one twice its size, up to
 * TBUF_MAX events, so an M that records little costs little.  Realloc'ing
 * one array, as before, copied every event at each doubling and faulted its
 * pages in one by one (pingpong's 100,000 hops: 435 page faults untraced,
 * 13,116 traced).
 *
 * The limit.  Each new chunk reserves its slots against trace_limit (one
 * atomic add per chunk, not per event).
 * Past it the run goes on, nothing more is recorded, and rt_trace_get
 * says why there is no trace: a huge run ends with a message, never with
 * the kernel's OOM killer. */
#include "core/runtime.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define TBUF_FIRST 1024
#define TBUF_MAX (64 * 1024)

struct rt_tchunk {
	struct rt_tchunk *next;
	size_t bytes;            /* the mapping's */
	size_t n;                /* events in it, once it is full or taken */
	struct rt_tev ev[];
};

void rt_trace_init(struct rt *rt, const struct rt_config *cfg)
{
	rt->tracing = cfg->lim.trace;
	rt->trace_limit = cfg->lim.trace_limit ? cfg->lim.trace_limit : RT_TRACE_LIMIT;
}

static bool tbuf_grow(struct rt *rt, struct rt_tbuf *b)
{
	size_t ncap = b->cap ? (b->cap * 2 < TBUF_MAX ? b->cap * 2 : TBUF_MAX) : TBUF_FIRST;
	uint64_t had = __atomic_fetch_add(&rt->trace_reserved, ncap, __ATOMIC_RELAXED);
	if (had + ncap > rt->trace_limit) {
		/* the last slots up to the limit are not worth a partial chunk:
		 * the trace is dropped anyway */
		__atomic_store_n(&rt->trace_over, 1, __ATOMIC_RELAXED);
		return false;
	}
	size_t bytes = sizeof(struct rt_tchunk) + ncap * sizeof(struct rt_tev);
	struct rt_tchunk *c = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (c == MAP_FAILED) {
		__atomic_store_n(&rt->trace_over, 1, __ATOMIC_RELAXED);
		return false;
	}
	if (b->chunks) {
		b->chunks->n = b->n;
		b->total += b->n;
	}
	c->next = b->chunks;
	c->bytes = bytes;
	c->n = 0;
	b->chunks = c;
	b->ev = c->ev;
	b->cap = ncap;
	b->n = 0;
	return true;
}

static size_t tbuf_count(const struct rt_tbuf *b)
{
	return b->total + b->n;
}

/* Copies b's events, oldest first, to out; returns how many. */
static size_t tbuf_copy(struct rt_tbuf *b, struct rt_tev *out)
{
	if (b->chunks)
		b->chunks->n = b->n;
	size_t n = tbuf_count(b), k = n;
	for (const struct rt_tchunk *c = b->chunks; c; c = c->next) {
		k -= c->n;
		memcpy(out + k, c->ev, c->n * sizeof(*out));
	}
	return n;
}

static void tbuf_free(struct rt_tbuf *b)
{
	for (struct rt_tchunk *c = b->chunks, *next; c; c = next) {
		next = c->next;
		munmap(c, c->bytes);
	}
	*b = (struct rt_tbuf){ 0 };
}

int64_t rt_trace_now(struct rt *rt, struct m *m)
{
	int64_t now = m ? plat_nanotime() - rt->start_ns : 0;
	return now > 0 ? now : 0;
}

void rt_trace_rec(struct rt *rt, struct m *m, enum rt_tev_kind kind, uint64_t g, int p, uint64_t a,
		  uint64_t b)
{
	rt_trace_rec_at(rt, m, rt_trace_now(rt, m), kind, g, p, a, b);
}

void rt_trace_rec_at(struct rt *rt, struct m *m, int64_t ts, enum rt_tev_kind kind, uint64_t g,
		     int p, uint64_t a, uint64_t b)
{
	if (__atomic_load_n(&rt->trace_over, __ATOMIC_RELAXED))
		return;
	struct rt_tbuf *tb = m ? &m->tbuf : &rt->tbuf0;
	if (tb->n == tb->cap && !tbuf_grow(rt, tb))
		return;
	struct rt_tev *e = &tb->ev[tb->n++];
	e->ts = ts;
	e->seq = PLAT_SERIAL ? rt->trace_seq++ : tb->seq++;
	e->g = g;
	e->p = p;
	e->m = m ? m->id : -1;
	e->kind = (uint32_t)kind;
	e->a = a;
	e->b = b;
}

/* The trace's block reason of each wait reason (core/policy.h's list). */
static const uint8_t block_reason[RT_WAIT__COUNT] = {
#define RT_WAIT_TB(name, words, tb) [RT_WAIT_##name] = tb,
	RT_WAIT_REASONS(RT_WAIT_TB)
#undef RT_WAIT_TB
};

void rt_trace_block(struct m *m, struct g *g)
{
	struct rt *rt = m->rt;
	rt_trace_rec(rt, m, RT_TEV_G_BLOCK, g->goid, m->p ? m->p->id : -1,
		     block_reason[g->waitreason], rt_trace_label(rt, g, true));
}

void rt_trace_wake(struct m *m, struct g *g, unsigned why)
{
	enum rt_twake w = RT_TW_OTHER;
	switch ((enum rt_wake)why) {
	case RT_WAKE_OTHER: w = RT_TW_CHAN; break;
	case RT_WAKE_TIMER: w = RT_TW_TIMER; break;
	case RT_WAKE_NET_WRITE:
	case RT_WAKE_NET_READ:
	case RT_WAKE_NET_ACCEPT: w = RT_TW_NET; break;
	}
	struct g *by = m->curg;
	rt_trace_rec(m->rt, m, RT_TEV_G_UNBLOCK, g->goid, m->p ? m->p->id : -1, by ? by->goid : 0,
		     w);
}

uint32_t rt_trace_runqlen(const struct p *pp)
{
	/* .v on both platforms: natively an atomic load, in simulation a
	 * plain read that costs no simulated time */
	uint32_t h = rq_head((uint64_t)pp->runqhead.v);
	uint32_t t = (uint32_t)pp->runqtail.v;
	return t - h + (plat_peek_ptr(&pp->runnext) != NULL);
}

static int tev_cmp(const void *x, const void *y)
{
	const struct rt_tev *a = x, *b = y;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (!PLAT_SERIAL && a->m != b->m)
		return a->m < b->m ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

bool rt_trace_get(struct rt *rt, struct rt_trace *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	if (!rt->tracing) {
		err_set(e, "the run was not traced");
		return false;
	}
	if (__atomic_load_n(&rt->trace_over, __ATOMIC_RELAXED)) {
		err_set(e, "the run recorded more than %llu trace events (the trace limit): no trace "
			   "written; raise --trace-limit, or shorten the run",
			(unsigned long long)rt->trace_limit);
		return false;
	}
	if (!rt->trace_ev) {
		size_t n = tbuf_count(&rt->tbuf0);
		for (struct m *m = rt->allm; m; m = m->alllink)
			n += tbuf_count(&m->tbuf);
		struct rt_tev *ev = xcalloc(n ? n : 1, sizeof(*ev));
		size_t k = tbuf_copy(&rt->tbuf0, ev);
		tbuf_free(&rt->tbuf0);
		for (struct m *m = rt->allm; m; m = m->alllink) {
			k += tbuf_copy(&m->tbuf, ev + k);
			tbuf_free(&m->tbuf);
		}
		qsort(ev, n, sizeof(*ev), tev_cmp);
		for (size_t i = 0; i < n; i++)
			ev[i].seq = i;
		rt->trace_ev = ev;
		rt->trace_n = n;
	}
	int ms = 0;
	for (struct m *m = rt->allm; m; m = m->alllink)
		ms++;
	out->ev = rt->trace_ev;
	out->n = rt->trace_n;
	out->nlabels = rt->body->trace_labels ? rt->body->trace_labels(rt, &out->labels) : 0;
	out->procs = rt->procs;
	out->ms = ms;
	int64_t end = rt_end_ns(rt) - rt->start_ns;
	if (rt->trace_n && end < rt->trace_ev[rt->trace_n - 1].ts)
		end = rt->trace_ev[rt->trace_n - 1].ts;
	out->end_ns = end > 0 ? end : 0;
	out->mode = PLAT_NAME;
	return true;
}

void rt_trace_free(struct rt *rt)
{
	for (struct m *m = rt->allm; m; m = m->alllink)
		tbuf_free(&m->tbuf);
	tbuf_free(&rt->tbuf0);
	free(rt->trace_ev);
	rt->trace_ev = NULL;
}
