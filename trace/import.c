/* A Go execution trace (any reader of trace/import.h) as a workload in
 * schedlab's language (docs/workload-format.md, "Imported traces").
 *
 * Each goroutine becomes a program of what it did, in its own order:
 *   - compute for each stretch it ran (start, or the last event while
 *     running, to its next event);
 *   - spawn of each goroutine it created;
 *   - for each time it made another goroutine runnable, a send on a
 *     channel, which the taker receives on where it blocked: of capacity
 *     1 kept for that pair (giver -> taker), the happens-before edge and
 *     no more than the edge -- or shared, where the trace shows one object
 *     several goroutines wait on (below, "Channels");
 *   - sleep for the time it slept; a block ended from outside any
 *     goroutine (a timer, the runtime) the same, for the time it waited;
 *   - sleep_until the recorded instant for a network wait: readiness
 *     comes from outside the program, at its recorded time;
 *   - syscall for the duration of each call that blocked its M long enough
 *     for the P to be taken (faster calls are part of its compute: the
 *     Go 1.19 format records no end for them);
 *   - yield for runtime.Gosched (a preemption is the scheduler's doing:
 *     the compute simply goes on).
 * Goroutines whose start function is in the runtime (GC workers, the
 * sweeper, the trace writer) are left out and counted; an edge from one
 * of them counts as from outside.  The goroutines alive when tracing
 * started are spawned at time 0 by the workload's main program, "trace".
 * Identical programs are shared (the name of the first).  The recorded
 * figures go in the workload's "recorded" key. */
#include "trace/import.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace/u64map.h"
#include "util/hist.h"
#include "util/util.h"

struct sbuf {
	char *p;
	size_t n, cap;
};

static void sb_add(struct sbuf *b, const char *s, size_t n, uint64_t *total)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (b->n + n + 1 > cap)
			cap *= 2;
		*total += cap - b->cap;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

enum gs { S_RUNNABLE, S_RUNNING, S_BLOCKED, S_SYSCALL, S_DONE };

struct gi {
	uint64_t id;
	uint32_t parent;        /* index + 1 of the spawner; 0: the main program */
	bool internal;
	bool existed;           /* alive when it was first seen, not made in the trace */
	bool system_wait;       /* it waited as only the runtime's goroutines do */
	bool runtime_root;      /* a stack of its own says its start function is the runtime's */
	bool spawned;           /* it spawned a kept G */
	bool no_wait;           /* runnable but never queued: its start is no latency sample */
	uint8_t state;
	uint16_t reason;
	int64_t since;          /* running: the start of the current compute; blocked: the block */
	int64_t ready_at;       /* runnable since */
	uint8_t wake;           /* why it became runnable (enum rt_run_why) */
	uint64_t ready_free;    /* the no-G clock (imp.free_cum) at ready_at */
	int64_t sys_at;         /* in a system call since */
	int64_t made_at;        /* when it was made (or the trace started) */
	int64_t pending;        /* compute not yet written: one op for a stretch the
				 * trace cuts only by events the replay has no op for */
	struct sbuf ops;
	int32_t p;              /* the P it last started on */
	uint32_t canon;         /* the G whose program it shares (itself if none) */
	uint32_t site;          /* where it last blocked: index + 1 in imp.sites, 0: unknown */
	uint32_t job_chan;      /* the job channel it works from [Channels], 0: none */
	uint32_t nops;          /* ops in its program so far: an op's position */
	uint32_t spawn_pos;     /* the position of its spawn in its parent's program */
	char *text;             /* resolved, at the end */
};

struct imp {
	const char *path;       /* the trace, for messages */
	struct err *e;
	struct gi *g;
	uint32_t ng, cg;
	struct u64map idx;      /* goid -> index */
	struct u64map pairs;    /* (giver << 32 | taker) -> 1: channels made */
	/* Channels: every wake-up edge between kept Gs, with the site its
	 * taker blocked at, and the sites by their text */
	struct edge *edges;
	uint32_t nedges, cedges;
	char **sites;
	uint32_t nsites, csites;
	struct u64map site_idx; /* hash of the text -> index + 1 (chained by probing) */
	uint32_t cur_site;      /* the site of the block event being stepped */
	bool cur_runtime;       /* its stack's root is the runtime's */
	uint32_t *edge_chan;    /* at the end: by edge, 0 for its pair's channel,
				   else the shared channel's number */
	uint8_t *edge_rev;      /* by edge: its ends' ops swapped [Channels] */
	uint64_t *job_val;      /* by edge: the job its token carries + 1, 0: none */
	uint32_t *job_last;     /* by shared channel - 1: its producer's last job
				   edge (UINT32_MAX: not a job channel) */
	uint32_t *job_workers;  /* by shared channel - 1: its workers */
	uint64_t *chan_cap;     /* by shared channel number - 1: its capacity */
	uint64_t *chan_tokens;  /* ... and the sends on it */
	struct hist *lat;
	struct ti_stats *st;
	uint64_t bytes;         /* allocated for the programs' text */
	uint64_t text;          /* the programs' text */
	int64_t last_ts;
	struct pstop *ps;       /* by P: the G that last left it */
	int32_t nps;
	struct hist *gap;
	/* Gs holding a P (running, or in a system call: the trace cannot say
	 * when a P was taken from one), and the time with fewer of them than
	 * GOMAXPROCS -- a P with no G: idle, or its M not yet come round to
	 * the G -- to each instant, for the waits' share of it */
	int64_t nbusy, free_since;
	uint64_t free_cum;
};

struct edge {
	uint32_t giver, taker, site;
	uint32_t gpos, tpos;    /* the send's position in the giver's program, the
				   receive's in the taker's */
	uint8_t reason;         /* why the taker was blocked (enum ti_reason) */
};

/* edge_chan while a search runs: an edge taken out of it */
#define EDGE_DROPPED UINT32_MAX

static bool busy(uint8_t s)
{
	return s == S_RUNNING || s == S_SYSCALL;
}

static uint64_t free_clock(const struct imp *im, int64_t ts)
{
	uint64_t c = im->free_cum;
	if (im->nbusy < im->st->gomaxprocs && ts > im->free_since)
		c += (uint64_t)(ts - im->free_since);
	return c;
}

/* Every change of a G's state, so that the count of busy Gs follows. */
static void set_state(struct imp *im, struct gi *g, uint8_t to, int64_t ts)
{
	int64_t n = im->nbusy + busy(to) - busy(g->state);
	g->state = to;
	if (n == im->nbusy)
		return;
	im->free_cum = free_clock(im, ts);
	im->free_since = ts;
	im->nbusy = n;
}

/* g becomes runnable at ts for reason why. */
static void made_ready(struct imp *im, struct gi *g, enum rt_run_why why, int64_t ts)
{
	set_state(im, g, S_RUNNABLE, ts);
	g->ready_at = ts;
	g->wake = (uint8_t)why;
	g->ready_free = free_clock(im, ts);
}

/* The G that last blocked or ended on a P, and when, until the P starts
 * another.  The time between is the recorded runtime's own: its scheduler
 * and, in a traced run, the tracer, which takes a stack trace at every
 * block.  The replay's scheduler charges its own switch, so without this
 * the recording's gap (0.7 us a switch in a traced Go 1.19 ping-pong here,
 * half the recorded latency) would be lost from every wake-up's latency. */
struct pstop {
	uint32_t g;             /* index + 1; 0: none */
	int64_t ts;
	size_t ops_n;           /* its text then: a gap after a later op is not its */
};

/* The workload's text is kept whole until the end (programs are shared
 * only when complete).  It stops at the limit of an input file, so that
 * what `workload import -o` writes can be read back, and an import on the
 * fly compiles no more than a file could give (compiling takes about 19
 * bytes of memory per byte of JSON). */
#define TEXT_LIMIT ((uint64_t)INPUT_MAX_BYTES)

static void op(struct imp *im, struct gi *g, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put(struct imp *im, struct gi *g, const char *s, size_t n)
{
	if (g->ops.n)
		sb_add(&g->ops, ",", 1, &im->bytes);
	sb_add(&g->ops, s, n, &im->bytes);
	im->text += n + 1;
	g->nops++;
}

static void put_compute(struct imp *im, struct gi *g)
{
	if (g->pending <= 0)
		return;
	char buf[64];
	int n = snprintf(buf, sizeof buf, "{\"compute\":%" PRId64 "}", g->pending);
	g->pending = 0;
	put(im, g, buf, (size_t)n);
}

static void op(struct imp *im, struct gi *g, const char *fmt, ...)
{
	char buf[256];
	put_compute(im, g);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	put(im, g, buf, (size_t)n);
}

static struct gi *find(struct imp *im, uint64_t id)
{
	const uint64_t *i = um_get(&im->idx, id);
	return i ? &im->g[*i] : NULL;
}

/* A start function of the runtime's own goroutines (runtime.main is the
 * program's main goroutine; runtime/trace's writer and flight recorder
 * are the tracer's). */
static bool runtime_fn(const char *fn)
{
	return (strncmp(fn, "runtime.", 8) == 0 && strcmp(fn, "runtime.main") != 0) ||
	       strncmp(fn, "runtime/", 8) == 0;
}

static struct gi *add_g(struct imp *im, uint64_t id, const char *label, int64_t ts)
{
	if (im->ng == im->cg) {
		im->cg = im->cg ? im->cg * 2 : 64;
		im->g = xrealloc(im->g, im->cg * sizeof(*im->g));
	}
	struct gi *g = &im->g[im->ng];
	memset(g, 0, sizeof(*g));
	g->id = id;
	/* The runtime's own goroutines (GC workers, the sweeper and
	 * scavenger, the finalizer runner) and the trace writer. */
	g->internal = label && runtime_fn(label);
	g->state = S_RUNNABLE;
	g->ready_at = ts;
	g->wake = RT_RUN_SPAWN;
	g->ready_free = free_clock(im, ts);
	g->made_at = ts;
	g->p = -1;
	g->canon = im->ng;
	um_put(&im->idx, id, im->ng);
	im->ng++;
	if (g->internal)
		im->st->internal++;
	else
		im->st->goroutines++;
	return g;
}

/* The compute of a running G up to ts. */
static void flush(struct imp *im, struct gi *g, int64_t ts)
{
	if (g->state != S_RUNNING)
		return;
	if (ts > g->since)
		g->pending += ts - g->since;
	g->since = ts;
}

static void note_stop(struct imp *im, const struct gi *g, int64_t ts)
{
	if (g->internal || g->p < 0 || g->p >= im->nps)
		return;
	im->ps[g->p] = (struct pstop){ .g = (uint32_t)(g - im->g) + 1, .ts = ts, .ops_n = g->ops.n };
}

/* A G starts on P p at ts: when the G that last left p blocked or ended
 * with this one already runnable (no idle time between), the gap is the
 * stopped G's, before whatever it does next. */
static void charge_gap(struct imp *im, const struct gi *started, int32_t p, int64_t ts)
{
	/* P ids are GOMAXPROCS-bound; a corrupt trace's are only numbers */
	if (p < 0 || p >= 1 << 16)
		return;
	if (p >= im->nps) {
		int32_t n = im->nps ? im->nps : 8;
		while (n <= p)
			n *= 2;
		im->ps = xrealloc(im->ps, (size_t)n * sizeof(*im->ps));
		memset(im->ps + im->nps, 0, (size_t)(n - im->nps) * sizeof(*im->ps));
		im->nps = n;
	}
	struct pstop *s = &im->ps[p];
	struct gi *g = s->g ? &im->g[s->g - 1] : NULL;
	s->g = 0;
	if (!g || g == started || started->internal || started->ready_at > s->ts || ts <= s->ts)
		return;
	if (g->ops.n != s->ops_n || (g->state != S_BLOCKED && g->state != S_DONE))
		return;
	g->pending += ts - s->ts;
	hist_record(im->gap, (uint64_t)(ts - s->ts));
	im->st->gaps++;
	im->st->gap_ns += ts - s->ts;
	if (g->state == S_DONE)
		put_compute(im, g);
}

static bool bad(struct imp *im, const struct ti_event *ev, const char *what, uint64_t g)
{
	err_set(im->e, "%s: offset %" PRIu64 ": inconsistent trace: %s (G %" PRIu64 ")", im->path,
		ev->off, what, g);
	return false;
}

/* ---- Each event kind's step ----
 *
 * g is the event's G (NULL if it names none the import knows), already
 * checked against the state its kind needs (on_kinds, below).  A step
 * returns false with im->e set when the event contradicts what came
 * before. */

static bool on_procs(struct imp *im, const struct ti_event *ev, struct gi *g)
{
	if (!im->st->gomaxprocs) {
		im->st->gomaxprocs = (int)ev->arg;
		im->free_since = ev->ts;   /* the no-G clock counts from here */
	}
	return true;
}

static bool on_exists(struct imp *im, const struct ti_event *ev, struct gi *g)
{
	if (find(im, ev->g))
		return bad(im, ev, "a goroutine said to exist twice", ev->g);
	g = add_g(im, ev->g, ev->label, ev->ts);
	g->existed = true;
	if (ev->reason == TI_R_SYSCALL) {
		set_state(im, g, S_SYSCALL, ev->ts);
		g->sys_at = ev->ts;
	} else if (ev->reason != TI_R_NONE) {
		set_state(im, g, S_BLOCKED, ev->ts);
		g->reason = ev->reason;
		g->since = ev->ts;
	}
	return true;
}

static bool on_create(struct imp *im, const struct ti_event *ev, struct gi *g)
{
	if (find(im, ev->target))
		return bad(im, ev, "a goroutine created twice", ev->target);
	uint32_t pi = g ? (uint32_t)(g - im->g) : 0;
	struct gi *c = add_g(im, ev->target, ev->label, ev->ts);
	g = ev->g ? find(im, ev->g) : NULL;   /* add_g may move the table */
	if (g && g->state == S_RUNNING && !g->internal) {
		c->parent = pi + 1;
		if (!c->internal) {
			g->spawned = true;
			flush(im, g, ev->ts);
			put_compute(im, g);
			c->spawn_pos = g->nops;
			op(im, g, "\x01%" PRIu32 "\x02", (uint32_t)(c - im->g));
			im->st->spawns++;
		}
	}
	/* Else made outside the kept goroutines: parent 0, the main
	 * program starts it when it was made. */
	return true;
}

static bool on_start(struct imp *im, const struct ti_event *ev, struct gi *g)
{
	if (!g->internal && !g->no_wait) {
		uint64_t lat = (uint64_t)(ev->ts > g->ready_at ? ev->ts - g->ready_at : 0);
		hist_record(im->lat, lat);
		struct ti_stats *st = im->st;
		st->wake_n[g->wake]++;
		st->wake_ns[g->wake] += lat;
		uint64_t f = free_clock(im, ev->ts) - g->ready_free;
		st->wait_free_ns += f < lat ? f : lat;
	}
	g->no_wait = false;
	charge_gap(im, g, ev->p, ev->ts);
	set_state(im, g, S_RUNNING, ev->ts);
	g->since = ev->ts;
	g->p = ev->p;
	return true;
}

static bool on_stop(struct imp *im, const struct ti_event *ev, struct gi *g)
{
	flush(im, g, ev->ts);
	if (ev->reason == TI_R_YIELD && !g->internal) {
		op(im, g, "\"yield\"");
		im->st->yields++;
	}
	made_ready(im, g, ev->reason == TI_R_YIELD ? RT_RUN_YIELD : RT_RUN_PREEMPT, ev->ts);
	return true;
}

static bool on_block(struct imp *im, const struct ti_event *ev, struct gi *g)
{
	flush(im, g, ev->ts);
	set_state(im, g, S_BLOCKED, ev->ts);
	g->reason = ev->reason;
	g->since = ev->ts;
	g->site = im->cur_site;
	g->system_wait |= ev->reason == TI_R_SYSTEM;
	g->runtime_root |= im->cur_runtime;
	if (!g->internal && ev->reason <= TI_R_OTHER)
		im->st->blocks[ev->reason]++;
	note_stop(im, g, ev->ts);
	return true;
}

/* What ends kept G t's block, written in its program (and g's, for an
 * edge between two kept Gs). */
static void wake_ops(struct imp *im, const struct ti_event *ev, struct gi *g, struct gi *t)
{
	struct ti_stats *st = im->st;
	bool from_g = g && g->state == S_RUNNING && !g->internal && g != t;
	if (t->reason == TI_R_NET) {
		op(im, t, "{\"sleep_until\":%" PRId64 "}", ev->ts);
		st->net++;
	} else if (t->reason == TI_R_SLEEP || !from_g) {
		op(im, t, "{\"sleep\":%" PRId64 "}", ev->ts - t->since);
		if (t->reason == TI_R_SLEEP)
			st->sleeps++;
		else
			st->external++;
	} else {
		uint32_t gi = (uint32_t)(g - im->g), ti = (uint32_t)(t - im->g);
		flush(im, g, ev->ts);
		/* the channel is named at the end, once every edge is known */
		if (im->nedges == im->cedges) {
			im->cedges = im->cedges ? 2 * im->cedges : 64;
			im->edges = xrealloc(im->edges, im->cedges * sizeof(*im->edges));
		}
		put_compute(im, g);
		put_compute(im, t);
		im->edges[im->nedges] = (struct edge){ gi, ti, t->site, g->nops, t->nops,
						       (uint8_t)t->reason };
		op(im, g, "\x03%" PRIu32 "\x04", im->nedges);
		op(im, t, "\x05%" PRIu32 "\x06", im->nedges);
		im->nedges++;
		st->edges++;
	}
}

static bool on_unblock(struct imp *im, const struct ti_event *ev, struct gi *g)
{
	struct gi *t = find(im, ev->target);
	if (!t || t->state != S_BLOCKED)
		return bad(im, ev, "a goroutine made runnable that is not blocked",
			   ev->target);
	if (!t->internal)
		wake_ops(im, ev, g, t);
	/* as the replay will see it: the netpoller for a network wait, a
	 * timer for a sleep or a wake-up from outside the kept Gs (it is a
	 * sleep in the program), else the partner G */
	bool from_g = g && g->state == S_RUNNING && !g->internal && g != t;
	made_ready(im, t, t->reason == TI_R_NET ? RT_RUN_NET
		       : t->reason == TI_R_SLEEP || !from_g ? RT_RUN_TIMER : RT_RUN_PARTNER, ev->ts);
	return true;
}

static bool on_end(struct imp *im, const struct ti_event *ev, struct gi *g)
{
	flush(im, g, ev->ts);
	put_compute(im, g);
	set_state(im, g, S_DONE, ev->ts);
	note_stop(im, g, ev->ts);
	return true;
}

static bool on_syscall(struct imp *im, const struct ti_event *ev, struct gi *g)
{
	flush(im, g, ev->ts);
	set_state(im, g, S_SYSCALL, ev->ts);
	g->sys_at = ev->ts;
	if (!g->internal)
		im->st->syscalls++;
	return true;
}

static bool on_syscall_end(struct imp *im, const struct ti_event *ev, struct gi *g)
{
	if (ev->arg == 0) {
		set_state(im, g, S_RUNNING, ev->ts);
		g->since = ev->ts;
		return true;
	}
	if (!g->internal) {
		op(im, g, "{\"syscall\":%" PRId64 "}", ev->ts > g->sys_at ? ev->ts - g->sys_at : 0);
		im->st->blocked_syscalls++;
	}
	made_ready(im, g, RT_RUN_SYSCALL, ev->ts);
	/* schedlab counts a wait only for a G that was queued */
	g->no_wait = ev->arg == 2;
	return true;
}

/* Each kind's step, and the state its G must be in first (with what the
 * error says otherwise); need -1: no G to check.  A kind not here (a user
 * task, or one added after this importer) changes nothing. */
static const struct on_kind {
	bool (*step)(struct imp *im, const struct ti_event *ev, struct gi *g);
	int8_t need;
	const char *otherwise;
} on_kinds[] = {
	[TI_PROCS] = { on_procs, -1, NULL },
	[TI_G_EXISTS] = { on_exists, -1, NULL },
	[TI_G_CREATE] = { on_create, -1, NULL },
	[TI_G_START] = { on_start, S_RUNNABLE, "a goroutine starts that is not runnable" },
	[TI_G_STOP] = { on_stop, S_RUNNING, "a goroutine stops that is not running" },
	[TI_G_BLOCK] = { on_block, S_RUNNING, "a goroutine blocks that is not running" },
	[TI_G_UNBLOCK] = { on_unblock, -1, NULL },
	[TI_G_END] = { on_end, S_RUNNING, "a goroutine ends that is not running" },
	[TI_SYSCALL] = { on_syscall, S_RUNNING, "a system call by a goroutine not running" },
	[TI_SYSCALL_END] = { on_syscall_end, S_SYSCALL,
			     "a system call returns that was not made" },
};

static bool step(struct imp *im, const struct ti_event *ev)
{
	struct gi *g = ev->g ? find(im, ev->g) : NULL;
	if (ev->ts > im->last_ts)
		im->last_ts = ev->ts;
	if (ev->kind >= sizeof(on_kinds) / sizeof(on_kinds[0]) || !on_kinds[ev->kind].step)
		return true;
	const struct on_kind *k = &on_kinds[ev->kind];
	if (k->need >= 0 && (!g || g->state != k->need))
		return bad(im, ev, k->otherwise, ev->g);
	return k->step(im, ev, g);
}

/* FNV-1a, for sharing identical programs. */
static uint64_t hash_text(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

/* The G that sends on edge k's channel and the one that receives: its
 * giver and taker, or the other way round for a reversed edge. */
static uint32_t edge_sender(const struct imp *im, uint32_t k)
{
	return im->edge_rev[k] ? im->edges[k].taker : im->edges[k].giver;
}

static uint32_t edge_receiver(const struct imp *im, uint32_t k)
{
	return im->edge_rev[k] ? im->edges[k].giver : im->edges[k].taker;
}

/* Edge k's op in the giver's (send) or the taker's (recv) program; a
 * job's token carries the job's compute + 1 (0 is the end).  (No edge is
 * left dropped once infer_channels is done.) */
static int edge_op(const struct imp *im, uint32_t k, bool send, char *buf, size_t size)
{
	uint32_t c = im->edge_chan[k];
	if (im->edge_rev[k])
		send = !send;
	const char *what = send ? "send" : "recv";
	if (c && send && im->job_val[k])
		return snprintf(buf, size, "{\"send\":{\"chan\":\"s%" PRIu32 "\",\"value\":%" PRIu64 "}}",
				c, im->job_val[k]);
	if (c)
		return snprintf(buf, size, "{\"%s\":\"s%" PRIu32 "\"}", what, c);
	return snprintf(buf, size, "{\"%s\":\"h%" PRIu64 "_%" PRIu64 "\"}", what,
			im->g[im->edges[k].giver].id, im->g[im->edges[k].taker].id);
}

/* A G's ops, as spans of its text (ops hold no commas: each is one
 * key and a number, a name or a placeholder). */
struct span {
	const char *p;
	uint32_t n;
};

static uint32_t split_ops(const struct gi *g, struct span **out)
{
	uint32_t n = 0, cap = g->nops + 1;
	struct span *sp = xmalloc(cap * sizeof(*sp));
	const char *p = g->ops.p;
	while (p && *p) {
		const char *q = strchr(p, ',');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		if (n == cap) {
			cap *= 2;
			sp = xrealloc(sp, cap * sizeof(*sp));
		}
		sp[n++] = (struct span){ p, (uint32_t)len };
		p = q ? q + 1 : p + len;
	}
	*out = sp;
	return n;
}

/* The edge a span is the send (send true) or receive of, UINT32_MAX if it
 * is no edge's op. */
static uint32_t span_edge(const struct span *s, bool *send)
{
	if (s->n < 3 || (s->p[0] != '\x03' && s->p[0] != '\x05'))
		return UINT32_MAX;
	*send = s->p[0] == '\x03';
	return (uint32_t)strtoul(s->p + 1, NULL, 10);
}

/* The edge of which span s is the receive on shared channel c (a job's
 * token, for a worker of a job channel), UINT32_MAX if none. */
static uint32_t job_recv(const struct imp *im, const struct span *s, uint32_t c)
{
	bool send;
	uint32_t k = span_edge(s, &send);
	if (k == UINT32_MAX || im->edge_chan[k] != c || send != im->edge_rev[k])
		return UINT32_MAX;
	return k;
}

static int64_t span_compute(const struct span *s)
{
	static const char key[] = "{\"compute\":";
	if (s->n <= sizeof key - 1 || memcmp(s->p, key, sizeof key - 1) != 0)
		return -1;
	return strtoll(s->p + sizeof key - 1, NULL, 10);
}

/* The op of span s, as the workload has it (placeholders filled in), into
 * b, after a comma unless it is the first. */
static void put_span(struct imp *im, const struct span *s, struct sbuf *b, bool first)
{
	uint64_t dummy = 0;
	char name[192];
	int n;
	bool send;
	uint32_t k = span_edge(s, &send);
	if (s->n && s->p[0] == '\x01')
		n = snprintf(name, sizeof name, "{\"spawn\":\"g%" PRIu64 "\"}",
			     im->g[im->g[strtoul(s->p + 1, NULL, 10)].canon].id);
	else if (k != UINT32_MAX)
		n = edge_op(im, k, send, name, sizeof name);
	else {
		if (!first)
			sb_add(b, ",", 1, &dummy);
		sb_add(b, s->p, s->n, &dummy);
		return;
	}
	if (!first)
		sb_add(b, ",", 1, &dummy);
	sb_add(b, name, (size_t)n, &dummy);
	/* a job channel's producer ends it after its last job: a 0 for each
	 * worker */
	if (k != UINT32_MAX && im->edge_chan[k] && im->job_last[im->edge_chan[k] - 1] == k &&
	    im->job_val[k] && send != im->edge_rev[k]) {
		uint32_t c = im->edge_chan[k];
		n = snprintf(name, sizeof name,
			     ",{\"loop\":{\"count\":%" PRIu32 ",\"body\":[{\"send\":\"s%" PRIu32 "\"}]}}",
			     im->job_workers[c - 1], c);
		sb_add(b, name, (size_t)n, &dummy);
	}
}

/* g's program as the workload has it: its ops with their placeholders
 * filled in (\x01 G \x02, a spawn of G's program; \x03 K \x04 and
 * \x05 K \x06, edge K's send and receive).  A worker of a job channel
 * [Channels] becomes its ops before its first job, a loop that takes jobs
 * until a 0 and computes each, and its ops after its last job. */
static char *resolve(struct imp *im, const struct gi *g)
{
	struct sbuf b = { 0 };
	uint64_t dummy = 0;
	struct span *sp;
	uint32_t n = split_ops(g, &sp), from = n, to = n;
	uint32_t jc = g->job_chan;
	if (jc) {
		/* the job receives: from the first to the end of the last's
		 * computes */
		for (uint32_t i = 0; i < n; i++) {
			if (job_recv(im, &sp[i], jc) == UINT32_MAX)
				continue;
			if (from == n)
				from = i;
			to = i + 1;
			while (to < n && span_compute(&sp[to]) >= 0)
				to++;
		}
		static const char head[] = "{\"vars\":{\"job\":\"int\"},\"body\":[";
		sb_add(&b, head, sizeof head - 1, &dummy);
	} else {
		sb_add(&b, "[", 1, &dummy);
	}
	bool first = true;
	for (uint32_t i = 0; i < n; i++) {
		if (i == from) {
			char loop[256];
			int m = snprintf(loop, sizeof loop,
					 "%s{\"loop\":{\"count\":%" PRIu64 ",\"body\":["
					 "{\"recv\":{\"chan\":\"s%" PRIu32 "\",\"into\":\"job\"}},"
					 "{\"if\":{\"cond\":{\"==\":[\"job\",0]},\"then\":[\"break\"]}},"
					 "{\"compute\":{\"-\":[\"job\",1]}}]}}",
					 first ? "" : ",", im->chan_tokens[jc - 1] + 1, jc);
			sb_add(&b, loop, (size_t)m, &dummy);
			first = false;
			i = to - 1;
			continue;
		}
		put_span(im, &sp[i], &b, first);
		first = false;
	}
	sb_add(&b, jc ? "]}" : "]", jc ? 2 : 1, &dummy);
	free(sp);
	return b.p;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Children were made after their parents: resolving from the last made
 * to the first, every spawned program is final when its spawner's text
 * names it.  A G whose text is another's shares that one's program. */
static void share_programs(struct imp *im)
{
	struct u64map seen = { 0 };
	for (uint32_t i = im->ng; i-- > 0;) {
		struct gi *g = &im->g[i];
		if (g->internal)
			continue;
		g->text = resolve(im, g);
		uint64_t h = hash_text(g->text);
		g->canon = i;
		for (uint64_t k = h;; k++) {
			uint64_t *v = um_get(&seen, k);
			if (!v) {
				um_put(&seen, k, i);
				im->st->programs++;
				break;
			}
			if (strcmp(im->g[*v].text, g->text) == 0) {
				g->canon = (uint32_t)*v;
				break;
			}
		}
	}
	um_free(&seen);
}

/* The workload's name, description and recorded figures. */
static void write_head(const struct imp *im, const char *path, const char *name, FILE *f)
{
	const struct ti_stats *st = im->st;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	fprintf(f, "{\n\"name\": ");
	json_str(f, name);
	char desc[1024];
	int n = snprintf(desc, sizeof desc,
		 "Imported from the Go execution trace %s (%s, GOMAXPROCS %d): %" PRIu64
		 " goroutines as %" PRIu64 " programs; %" PRIu64 " runtime goroutines left out. "
		 "%" PRIu64 " spawns, %" PRIu64 " wake-up edges between goroutines, %" PRIu64
		 " sleeps, %" PRIu64 " wake-ups from outside, %" PRIu64 " network waits, %" PRIu64
		 " blocking system calls. %" PRIu64 " switches' recorded gaps (p50 %" PRIu64
		 " ns) are charged as the compute of the goroutine that blocked or ended. "
		 "%" PRIu64 " shared channels inferred (%" PRIu64 " wake-ups, %" PRIu64
		 " of them a blocked send's), %zu pairs kept.",
		 base, st->go, st->gomaxprocs, st->goroutines, st->programs, st->internal,
		 st->spawns, st->edges, st->sleeps, st->external, st->net, st->blocked_syscalls,
		 st->gaps, st->gap_p50, st->shared, st->shared_edges, st->shared_backpressure,
		 im->pairs.n);
	/* the search's budget spent: what it did not look at stayed pairs */
	if (st->shared_unsearched && n > 0 && (size_t)n < sizeof desc)
		snprintf(desc + n, sizeof desc - (size_t)n,
			 " %" PRIu64 " groups left as pairs unsearched: the inference's budget was spent.",
			 st->shared_unsearched);
	fprintf(f, ",\n\"description\": ");
	json_str(f, desc);
	fprintf(f, ",\n\"recorded\": {\"go\": ");
	json_str(f, st->go + (strncmp(st->go, "go ", 3) == 0 ? 3 : 0));
	fprintf(f, ", \"gomaxprocs\": %d, \"makespan_ns\": %" PRId64 ", \"goroutines\": %" PRIu64
		", \"sched_latency_ns\": {\"p50\": %" PRIu64 ", \"p99\": %" PRIu64 "}",
		st->gomaxprocs, st->makespan_ns, st->goroutines, st->lat_p50, st->lat_p99);
	/* the waits by why the G became runnable, and their time with a P
	 * that had no G (docs/replay.md, "Recorded against replayed") */
	fprintf(f, ",\n  \"waits\": {");
	bool first = true;
	uint64_t total = 0;
	for (int k = 0; k < RT_RUN__COUNT; k++) {
		total += st->wake_ns[k];
		if (!st->wake_n[k])
			continue;
		fprintf(f, "%s\"%s\": {\"count\": %" PRIu64 ", \"latency_ns\": %" PRIu64 "}",
			first ? "" : ", ", rt_run_why_names[k], st->wake_n[k], st->wake_ns[k]);
		first = false;
	}
	fprintf(f, "},\n  \"wait_ns\": %" PRIu64 ", \"wait_p_free_ns\": %" PRIu64, total,
		st->wait_free_ns);
	/* what the import inferred [Channels] */
	fprintf(f, ",\n  \"inferred\": {\"shared_channels\": %" PRIu64 ", \"takers\": %" PRIu64
		", \"wake_ups\": %" PRIu64 ", \"backpressure\": %" PRIu64
		", \"job_channels\": %" PRIu64 ", \"pairs\": %zu",
		st->shared, st->shared_takers, st->shared_edges, st->shared_backpressure,
		st->job_channels, im->pairs.n);
	if (st->shared) {
		fprintf(f, ", \"site\": ");
		json_str(f, st->shared_site);
	}
	fprintf(f, "}}");
	fprintf(f, ",\n\"main\": \"trace\"");
}

/* A channel of capacity 1 per (giver, taker) pair, in that order, for a
 * stable document; then the shared ones, s1, s2, ... [Channels]:
 * unbuffered where the recording's givers blocked to give, else as large
 * as the wake-ups through it, as nothing says they ever waited. */
static void write_channels(const struct imp *im, FILE *f)
{
	if (!im->pairs.n && !im->st->shared)
		return;
	fprintf(f, ",\n\"channels\": {");
	for (uint64_t i = 0; i < im->st->shared; i++)
		fprintf(f, "%s\"s%" PRIu64 "\": %" PRIu64, i ? ", " : "", i + 1, im->chan_cap[i]);
	if (im->st->shared && im->pairs.n)
		fprintf(f, ", ");
	uint64_t *keys = xmalloc(im->pairs.n * sizeof(*keys));
	size_t n = 0;
	for (size_t i = 0; i < im->pairs.cap; i++)
		if (im->pairs.used[i])
			keys[n++] = im->pairs.k[i];
	qsort(keys, n, sizeof(*keys), cmp_u64);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\"h%" PRIu64 "_%" PRIu64 "\": 1", i ? ", " : "",
			im->g[keys[i] >> 32].id, im->g[(uint32_t)keys[i]].id);
	free(keys);
	fprintf(f, "}");
}

/* The main program: spawns each G no kept G made, at the time it was made. */
static void write_main(const struct imp *im, FILE *f)
{
	fprintf(f, ",\n\"programs\": {\n\"trace\": [");
	bool first = true;
	int64_t now = 0;
	for (uint32_t i = 0; i < im->ng; i++) {
		const struct gi *g = &im->g[i];
		if (g->internal || g->parent)
			continue;
		/* Made from outside after the start: at its recorded time. */
		if (g->made_at > now) {
			fprintf(f, "%s{\"sleep_until\": %" PRId64 "}", first ? "" : ", ", g->made_at);
			now = g->made_at;
			first = false;
		}
		fprintf(f, "%s{\"spawn\": \"g%" PRIu64 "\"}", first ? "" : ", ", im->g[g->canon].id);
		first = false;
	}
	fprintf(f, "]");
}

/* ---- Channels ----
 *
 * A recording says who woke whom, not through what.  Pinning each wake-up
 * to its pair replays the recording, not the program: a worker pool
 * recorded at 2 Ps hands job k to the worker that took it then, and at 64
 * Ps the others wait.  So the importer infers the objects behind the
 * edges.  The wake-ups whose takers blocked at the same site (function
 * and line of the program's first frame of the block's stack, from the
 * readers) and that are joined by their goroutines (a giver and the
 * takers it woke there; a G's giving and taking kept apart) form a
 * group, and a group with several givers or several takers goes through
 * one shared channel: any waiting taker may take the next wake-up, and
 * any giver give it, as in the program -- a pool's jobs, a collector's
 * results.  Only where that cannot stall a replay that keeps each
 * goroutine's own sequence of waits (infer_channels: no G both gives and
 * takes in the group; no taker can hold up a giver before its last give,
 * by a search over the Gs' gives and spawns by op position -- the
 * producer that waits for each job's answer stays pairs).  A giver's
 * blocked send that a taker released is the taker receiving the giver's
 * value: it goes through the channel the other way round, and makes it
 * unbuffered, as the program's was (or was full).  A pool whose workers
 * only compute between jobs has its tokens carry the jobs (infer_jobs).
 * A site with one giver and one taker, an edge without a site (a block
 * the tracer took no stack for) or one between groups keeps its pair's
 * channel, where the evidence is one-to-one anyway. */

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

/* The site's index + 1 for label, added if new. */
static uint32_t intern_site(struct imp *im, const char *label)
{
	for (uint64_t k = hash_text(label);; k++) {
		uint64_t *v = um_get(&im->site_idx, k);
		if (!v) {
			if (im->nsites == im->csites) {
				im->csites = im->csites ? 2 * im->csites : 16;
				im->sites = xrealloc(im->sites, im->csites * sizeof(*im->sites));
			}
			im->sites[im->nsites++] = xstrdup(label);
			um_put(&im->site_idx, k, im->nsites);
			return im->nsites;
		}
		if (strcmp(im->sites[*v - 1], label) == 0)
			return (uint32_t)*v;
	}
}

/* The union-find node of G g's end of an edge at site s, as giver (1) or
 * taker (0), made if new. */
static uint32_t chan_node(struct u64map *node, uint32_t *up, uint32_t *nn, uint32_t s,
			  uint32_t g, int giver)
{
	uint64_t key = (uint64_t)s << 33 | (uint64_t)giver << 32 | g;
	uint64_t *v = um_get(node, key);
	if (v)
		return (uint32_t)*v;
	um_put(node, key, *nn);
	up[*nn] = *nn;
	return (*nn)++;
}

/* A G's out-edges for the dependency search: each edge it gave (to its
 * taker, at the positions), and each G it spawned (ref UINT32_MAX). */
struct dep {
	uint32_t to, from_pos, to_pos, edge;
};

static int cmp_dep(const void *a, const void *b)
{
	const struct dep *x = a, *y = b;
	return x->from_pos < y->from_pos ? -1 : x->from_pos > y->from_pos;
}

/* The work a search may do before sharing gives up (the rest stay pairs):
 * about a second. */
#define SEARCH_BUDGET 200000000ull

struct search {
	uint32_t *off;          /* CSR by G: its deps, by position */
	struct dep *deps;
	uint32_t *reach;        /* by G: the earliest position that may wait on
				   the group's takers (UINT32_MAX: none) */
	uint32_t *stamp, now;   /* reach is valid where stamp == now */
	uint32_t *work;         /* the worklist */
	uint64_t spent;
};

static uint32_t reach_of(const struct search *sr, uint32_t g)
{
	return sr->stamp[g] == sr->now ? sr->reach[g] : UINT32_MAX;
}

/* Whether no G can wait, through anything but group r's own edges and the
 * edges dropped, on one of the Gs with a start position before that G's
 * stop position: a G may wait from its start on, and what it gives or
 * spawns after that waits too, and so on.  With the takers' first
 * receives as starts and the givers' last sends as stops: the givers'
 * sends happen whatever the takers do, and a shared channel that never
 * blocks a giver cannot stall where the pairs did not [Channels].  With
 * the givers' first sends and the takers' last receives: the takers'
 * receives happen whatever the givers do, and an unbuffered one cannot
 * stall either.  false too when the budget is spent. */
static bool independent(struct imp *im, struct search *sr, const uint32_t *root, uint32_t r,
			const uint32_t *members, uint32_t nm, const uint32_t *start,
			const uint32_t *stop)
{
	sr->now++;
	uint32_t nw = 0;
	for (uint32_t i = 0; i < nm; i++) {
		uint32_t g = members[i];
		if (start[g] != UINT32_MAX && reach_of(sr, g) > start[g]) {
			sr->stamp[g] = sr->now;
			sr->reach[g] = start[g];
			sr->work[nw++] = g;
		}
	}
	while (nw) {
		uint32_t g = sr->work[--nw];
		uint32_t from = sr->reach[g];
		if (stop[g] != UINT32_MAX && from < stop[g])
			return false;
		/* its deps from that position on: they are sorted by position */
		uint32_t lo = sr->off[g], hi = sr->off[g + 1];
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (sr->deps[mid].from_pos < from)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t i = lo; i < sr->off[g + 1]; i++) {
			const struct dep *d = &sr->deps[i];
			if (++sr->spent > SEARCH_BUDGET)
				return false;
			if (d->edge != UINT32_MAX &&
			    (root[d->edge] == r || im->edge_chan[d->edge] == EDGE_DROPPED))
				continue;
			/* each in-edge lowers its G's reach at most once: the
			 * list holds at most the edges, spawns and seeds */
			if (reach_of(sr, d->to) > d->to_pos) {
				sr->stamp[d->to] = sr->now;
				sr->reach[d->to] = d->to_pos;
				sr->work[nw++] = d->to;
			}
		}
	}
	return true;
}

/* By G, for the group at hand: the positions of its first and last sends
 * and receives on it (UINT32_MAX: none). */
struct ends {
	uint32_t *first_send, *last_send, *first_recv, *last_recv;
};

/* sender sends on the group at position spos, receiver receives at rpos. */
static void note_ends(const struct ends *en, uint32_t sender, uint32_t spos, uint32_t receiver,
		      uint32_t rpos)
{
	if (en->last_send[sender] == UINT32_MAX || spos > en->last_send[sender])
		en->last_send[sender] = spos;
	if (spos < en->first_send[sender])
		en->first_send[sender] = spos;
	if (rpos < en->first_recv[receiver])
		en->first_recv[receiver] = rpos;
	if (en->last_recv[receiver] == UINT32_MAX || rpos > en->last_recv[receiver])
		en->last_recv[receiver] = rpos;
}

static void infer_channels(struct imp *im)
{
	struct ti_stats *st = im->st;
	uint32_t ne = im->nedges, ng = im->ng;
	im->edge_chan = xcalloc(ne ? ne : 1, sizeof(*im->edge_chan));
	im->edge_rev = xcalloc(ne ? ne : 1, sizeof(*im->edge_rev));
	/* Groups: union-find over the ends of the edges that have a site, a
	 * G's giving and taking kept apart, so that stages of a pipeline that
	 * run one function (each taking from the one before, giving to the
	 * next) are separate pairs, not one chain. */
	struct u64map node = { 0 };
	uint32_t *up = xmalloc((2 * (size_t)ne + 1) * sizeof(*up));
	uint32_t *gnode = xmalloc((ne ? ne : 1) * sizeof(*gnode));
	uint32_t *tnode = xmalloc((ne ? ne : 1) * sizeof(*tnode));
	uint32_t nn = 0;
	for (uint32_t k = 0; k < ne; k++) {
		const struct edge *ed = &im->edges[k];
		if (!ed->site || im->g[ed->giver].internal)
			continue;   /* (an edge between runtime goroutines left out late) */
		gnode[k] = chan_node(&node, up, &nn, ed->site, ed->giver, 1);
		tnode[k] = chan_node(&node, up, &nn, ed->site, ed->taker, 0);
		uint32_t a = uf_find(up, gnode[k]), b = uf_find(up, tnode[k]);
		if (a != b)
			up[a > b ? a : b] = a < b ? a : b;   /* the earlier node is the root */
	}
	/* by edge: its group's root (UINT32_MAX: no site); by root: its takers
	 * and givers (a node is one G in one role), its wake-ups */
	uint32_t *root = xmalloc((ne ? ne : 1) * sizeof(*root));
	uint32_t *takers = xcalloc(nn ? nn : 1, sizeof(*takers));
	uint32_t *givers = xcalloc(nn ? nn : 1, sizeof(*givers));
	uint64_t *wakes = xcalloc(nn ? nn : 1, sizeof(*wakes));
	uint8_t *counted = xcalloc(nn ? nn : 1, 1);
	for (uint32_t k = 0; k < ne; k++) {
		root[k] = UINT32_MAX;
		if (!im->edges[k].site || im->g[im->edges[k].giver].internal)
			continue;
		uint32_t r = root[k] = uf_find(up, gnode[k]);
		wakes[r]++;
		if (!counted[gnode[k]]) {
			counted[gnode[k]] = 1;
			givers[r]++;
		}
		if (!counted[tnode[k]]) {
			counted[tnode[k]] = 1;
			takers[r]++;
		}
	}
	/* The dependency graph: each G's gives and spawns, by position. */
	struct search sr = { 0 };
	sr.off = xcalloc((size_t)ng + 1, sizeof(*sr.off));
	uint32_t nspawn = 0;
	for (uint32_t k = 0; k < ne; k++)
		sr.off[im->edges[k].giver + 1]++;
	for (uint32_t i = 0; i < ng; i++)
		if (im->g[i].parent) {
			sr.off[im->g[i].parent]++;   /* parent is index + 1 */
			nspawn++;
		}
	for (uint32_t i = 0; i < ng; i++)
		sr.off[i + 1] += sr.off[i];
	sr.deps = xmalloc(((size_t)ne + nspawn + 1) * sizeof(*sr.deps));
	uint32_t *fill = xmalloc(((size_t)ng + 1) * sizeof(*fill));
	memcpy(fill, sr.off, ((size_t)ng + 1) * sizeof(*fill));
	for (uint32_t k = 0; k < ne; k++) {
		const struct edge *ed = &im->edges[k];
		sr.deps[fill[ed->giver]++] = (struct dep){ ed->taker, ed->gpos, ed->tpos, k };
	}
	for (uint32_t i = 0; i < ng; i++)
		if (im->g[i].parent)
			sr.deps[fill[im->g[i].parent - 1]++] =
				(struct dep){ i, im->g[i].spawn_pos, 0, UINT32_MAX };
	for (uint32_t i = 0; i < ng; i++)
		qsort(sr.deps + sr.off[i], sr.off[i + 1] - sr.off[i], sizeof(*sr.deps), cmp_dep);
	free(fill);
	sr.reach = xmalloc(((size_t)ng + 1) * sizeof(*sr.reach));
	sr.stamp = xcalloc((size_t)ng + 1, sizeof(*sr.stamp));
	sr.work = xmalloc(((size_t)ne + nspawn + ng + 1) * sizeof(*sr.work));
	/* by G, for the group at hand (reset after it): its role in it (1
	 * taker, 2 giver), the positions of its sends and receives on it */
	struct ends en;
	uint32_t **ends[] = { &en.first_send, &en.last_send, &en.first_recv, &en.last_recv };
	for (int i = 0; i < 4; i++) {
		*ends[i] = xmalloc(((size_t)ng + 1) * sizeof(**ends[i]));
		for (uint32_t j = 0; j <= ng; j++)
			(*ends[i])[j] = UINT32_MAX;
	}
	uint8_t *role = xcalloc((size_t)ng + 1, 1);
	uint32_t *members = xmalloc(((size_t)2 * ne + 1) * sizeof(*members));
	uint32_t *bp = xmalloc(((size_t)ne + 1) * sizeof(*bp));

	/* Two passes: groups whose takers wait to receive (a channel's
	 * receivers, a mutex's waiters, a select), then those whose takers
	 * wait to send (a channel's blocked senders, released by receivers).
	 * A shared group of the first pass takes in its backpressure -- one
	 * of its takers releasing one of its givers from a blocked send: the
	 * taker received the giver's value, so the edge goes the other way
	 * through the shared channel (the giver sends where it blocked, the
	 * taker receives where it released it).  Left bound to its pair, a
	 * job a worker took without waiting would stay that worker's, and the
	 * replay would keep the recording's share of the work. */
	uint8_t *done = xcalloc(nn ? nn : 1, 1);
	uint64_t best = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t k0 = 0; k0 < ne; k0++) {
			uint32_t r = root[k0];
			if (r == UINT32_MAX || done[r] ||
			    (im->edges[k0].reason == TI_R_CHAN_SEND) != (pass == 1))
				continue;
			done[r] = 1;
			if (takers[r] < 2 && givers[r] < 2)
				continue;   /* one to one: the pair's channel says it all */
			if (sr.spent > SEARCH_BUDGET) {
				st->shared_unsearched++;
				continue;
			}
			/* its Gs, in one role only (a mutex's holders wake each
			 * other: pairs) */
			uint32_t nm = 0, live = 0;
			bool mixed = false;
			for (uint32_t k = k0; k < ne; k++) {
				if (root[k] != r || im->edge_chan[k] == EDGE_DROPPED)
					continue;
				const struct edge *ed = &im->edges[k];
				live++;
				if (!role[ed->giver])
					members[nm++] = ed->giver;
				if (!role[ed->taker])
					members[nm++] = ed->taker;
				role[ed->giver] |= 2;
				role[ed->taker] |= 1;
				mixed |= role[ed->giver] == 3 || role[ed->taker] == 3;
				note_ends(&en, ed->giver, ed->gpos, ed->taker, ed->tpos);
			}
			sr.spent += ne - k0;
			uint32_t nbp = 0;
			/* a group all of whose edges were another's backpressure
			 * is gone with them */
			bool ok = !mixed && live >= 2;
			if (ok && pass == 0) {
				/* its backpressure, dropped for the search */
				for (uint32_t k = 0; k < ne; k++) {
					const struct edge *ed = &im->edges[k];
					if (ed->reason == TI_R_CHAN_SEND && im->edge_chan[k] == 0 &&
					    role[ed->giver] == 1 && role[ed->taker] == 2) {
						im->edge_chan[k] = EDGE_DROPPED;
						bp[nbp++] = k;
					}
				}
				sr.spent += ne;
				/* reversed: its taker sends, its giver receives */
				for (uint32_t i = 0; i < nbp; i++) {
					const struct edge *ed = &im->edges[bp[i]];
					note_ends(&en, ed->taker, ed->tpos, ed->giver, ed->gpos);
				}
			}
			if (ok)
				ok = independent(im, &sr, root, r, members, nm, en.first_recv,
						 en.last_send);
			/* A group whose givers blocked to give (its backpressure)
			 * is a channel that filled up or has no buffer: it stays
			 * unbuffered, so that a giver waits for a taker as in the
			 * recording -- with the sends never blocking, a pool's
			 * workers sending results, or a feeder, run on without
			 * the switches the program made.  Safe when the takers do
			 * not wait on the givers either. */
			bool unbuffered = nbp > 0;
			if (ok && unbuffered)
				ok = independent(im, &sr, root, r, members, nm, en.first_send,
						 en.last_recv);
			for (uint32_t i = 0; i < nm; i++) {
				role[members[i]] = 0;
				for (int j = 0; j < 4; j++)
					(*ends[j])[members[i]] = UINT32_MAX;
			}
			if (!ok) {
				for (uint32_t i = 0; i < nbp; i++)
					im->edge_chan[bp[i]] = 0;
				if (!mixed && sr.spent > SEARCH_BUDGET)
					st->shared_unsearched++;
				continue;
			}
			st->shared_backpressure += nbp;
			uint32_t c = (uint32_t)++st->shared;
			im->chan_cap = xrealloc(im->chan_cap, st->shared * sizeof(*im->chan_cap));
			im->chan_tokens = xrealloc(im->chan_tokens, st->shared * sizeof(*im->chan_tokens));
			im->chan_cap[c - 1] = unbuffered ? 0 : wakes[r];
			im->chan_tokens[c - 1] = wakes[r] + nbp;
			for (uint32_t i = 0; i < nbp; i++) {
				im->edge_chan[bp[i]] = c;
				im->edge_rev[bp[i]] = 1;
				st->shared_edges++;
			}
			st->shared_takers += takers[r];
			if (wakes[r] > best) {
				best = wakes[r];
				snprintf(st->shared_site, sizeof st->shared_site, "%s",
					 im->sites[im->edges[k0].site - 1]);
			}
			for (uint32_t k = k0; k < ne; k++)
				if (root[k] == r) {
					im->edge_chan[k] = c;
					st->shared_edges++;
				}
		}
	}
	for (uint32_t k = 0; k < ne; k++)
		if (!im->edge_chan[k] && !im->g[im->edges[k].giver].internal)
			um_put(&im->pairs, (uint64_t)im->edges[k].giver << 32 | im->edges[k].taker, 1);
	um_free(&node);
	free(up);
	free(gnode);
	free(tnode);
	free(root);
	free(takers);
	free(givers);
	free(wakes);
	free(counted);
	free(done);
	free(role);
	free(members);
	free(bp);
	for (int i = 0; i < 4; i++)
		free(*ends[i]);
	free(sr.off);
	free(sr.deps);
	free(sr.reach);
	free(sr.stamp);
	free(sr.work);
}

/* Jobs: a shared channel with one producer, whose every worker does
 * nothing between two of its receives on it but compute, carries the jobs
 * themselves.  Each token is the compute its receiver did after it in the
 * recording (+ 1: 0 ends), and each worker becomes a loop that takes a
 * token and computes it until a 0, which the producer sends once per
 * worker after its last job.  So the work moves with the job, as in the
 * program: a pool whose jobs the recording gave to the two workers that
 * ran at 2 Ps spreads them over every worker at 64.  A channel whose
 * workers do more between jobs (send a result, lock, sleep) keeps each
 * worker's own recorded sequence. */
static void infer_jobs(struct imp *im)
{
	uint32_t nc = (uint32_t)im->st->shared, ne = im->nedges;
	im->job_val = xcalloc(ne ? ne : 1, sizeof(*im->job_val));
	im->job_last = xmalloc((nc ? nc : 1) * sizeof(*im->job_last));
	im->job_workers = xcalloc(nc ? nc : 1, sizeof(*im->job_workers));
	uint32_t *workers = xmalloc((ne ? ne : 1) * sizeof(*workers));
	for (uint32_t c = 1; c <= nc; c++) {
		im->job_last[c - 1] = UINT32_MAX;
		uint32_t sender = UINT32_MAX, nw = 0, last = UINT32_MAX, last_pos = 0;
		bool ok = true;
		for (uint32_t k = 0; k < ne && ok; k++) {
			if (im->edge_chan[k] != c)
				continue;
			uint32_t sd = edge_sender(im, k), rv = edge_receiver(im, k);
			uint32_t pos = im->edge_rev[k] ? im->edges[k].tpos : im->edges[k].gpos;
			if (sender == UINT32_MAX)
				sender = sd;
			ok = sd == sender && rv != sender && !im->g[rv].internal;
			if (last == UINT32_MAX || pos >= last_pos) {
				last = k;
				last_pos = pos;
			}
			if (ok && im->g[rv].job_chan != c) {
				if (im->g[rv].job_chan)
					ok = false;   /* another channel's worker */
				else {
					im->g[rv].job_chan = c;
					workers[nw++] = rv;
				}
			}
		}
		/* each worker: between its first job and its last, only job
		 * receives and computes; each job the computes after it */
		for (uint32_t w = 0; w < nw && ok; w++) {
			struct span *sp;
			uint32_t n = split_ops(&im->g[workers[w]], &sp), first = n, endi = n;
			for (uint32_t i = 0; i < n; i++) {
				uint32_t k = job_recv(im, &sp[i], c);
				if (k == UINT32_MAX)
					continue;
				if (first == n)
					first = i;
				else if (endi != i)
					ok = false;   /* something else between two jobs */
				uint64_t job = 0;
				uint32_t j = i + 1;
				for (int64_t v; j < n && (v = span_compute(&sp[j])) >= 0; j++)
					job += (uint64_t)v;
				im->job_val[k] = job + 1;
				endi = j;
			}
			free(sp);
		}
		if (!ok || nw == 0) {
			for (uint32_t w = 0; w < nw; w++)
				im->g[workers[w]].job_chan = 0;
			for (uint32_t k = 0; k < ne; k++)
				if (im->edge_chan[k] == c)
					im->job_val[k] = 0;
			continue;
		}
		im->job_last[c - 1] = last;
		im->job_workers[c - 1] = nw;
		if (im->chan_cap[c - 1])
			im->chan_cap[c - 1] += nw;   /* the 0s that end the workers */
		im->st->job_channels++;
	}
	free(workers);
}

static bool write_workload(struct imp *im, const char *path, const char *name, FILE *f,
			   struct err *e)
{
	infer_channels(im);
	infer_jobs(im);
	share_programs(im);
	write_head(im, path, name, f);
	write_channels(im, f);
	write_main(im, f);
	for (uint32_t i = 0; i < im->ng; i++) {
		struct gi *g = &im->g[i];
		if (g->internal || g->canon != i)
			continue;
		fprintf(f, ",\n\"g%" PRIu64 "\": %s", g->id, g->text);
	}
	fprintf(f, "\n}\n}\n");
	if (fflush(f) != 0 || ferror(f)) {
		err_set(e, "writing the workload: %s", strerror(errno));
		return false;
	}
	return true;
}

bool ti_import(const char *path, const char *name, FILE *out, struct ti_stats *st, struct err *e)
{
	memset(st, 0, sizeof(*st));
	struct ti_reader *r = ti_open(path, e);
	if (!r)
		return false;
	snprintf(st->go, sizeof st->go, "%s", ti_version(r));
	struct imp im = { .path = path, .e = e, .st = st };
	im.lat = xcalloc(1, sizeof(*im.lat));
	im.gap = xcalloc(1, sizeof(*im.gap));
	bool ok = false;
	/* One event behind the reader: the last one may be the tracer's own
	 * (below). */
	struct ti_event ev, prev;
	bool have_prev = false;
	uint32_t prev_site = 0;
	bool prev_runtime = false;
	int k;
	while ((k = ti_next(r, &ev, e)) == 1) {
		st->events++;
		if (im.text > TEXT_LIMIT) {
			err_set(e, "%s: offset %" PRIu64 ": the workload passes %" PRIu64 " MiB here, "
				"the limit of a workload file: import a shorter trace (trace less of the "
				"run)", path, ev.off, TEXT_LIMIT >> 20);
			goto out;
		}
		im.cur_site = prev_site;
		im.cur_runtime = prev_runtime;
		if (have_prev && !step(&im, &prev))
			goto out;
		prev = ev;
		prev.label = prev.root = NULL;   /* valid only until the next ti_next */
		prev_site = ev.kind == TI_G_BLOCK && ev.label ? intern_site(&im, ev.label) : 0;
		prev_runtime = ev.kind == TI_G_BLOCK && ev.root && runtime_fn(ev.root);
		if (ev.label && (ev.kind == TI_G_EXISTS || ev.kind == TI_G_CREATE)) {
			/* labels decide what is internal: take it now */
			if (!step(&im, &ev))
				goto out;
			have_prev = false;
			continue;
		}
		have_prev = true;
	}
	if (k < 0)
		goto out;
	/* Go 1.19's StopTrace writes a GoSched for the G that stops tracing,
	 * after stopping the world: the stretch before it is the tracer
	 * stopping (ms on a busy host), not the program.  So a yield that is
	 * the trace's last event is left out, and the recording ends at the
	 * event before it. */
	int minor = 0;
	bool stop_yield = have_prev && prev.kind == TI_G_STOP && prev.reason == TI_R_YIELD &&
			  sscanf(st->go, "go 1.%d", &minor) == 1 && minor < 22;
	im.cur_site = prev_site;
	im.cur_runtime = prev_runtime;
	if (have_prev && !stop_yield && !step(&im, &prev))
		goto out;
	/* A goroutine the trace first names mid-run, with a status and no
	 * stack (Go 1.22+ writes a G's status when it first touches it in a
	 * generation), is the runtime's if it waited as only the runtime's
	 * do ("system goroutine wait": the scavenger) or a stack of its own
	 * block ends in the runtime's (the tracer's reader and advancer, a
	 * flight recorder's), and is joined to no goroutine but such others:
	 * it is left out, as if its start function had said so, with its
	 * edges. */
	uint8_t *cand = xcalloc(im.ng ? im.ng : 1, 1);
	for (uint32_t i = 0; i < im.ng; i++) {
		const struct gi *g = &im.g[i];
		cand[i] = !g->internal && g->existed && (g->system_wait || g->runtime_root) &&
			  !g->spawned && !g->parent;
	}
	/* joined to a kept one, or to one joined to a kept one... */
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t j = 0; j < im.nedges; j++) {
			uint32_t a = im.edges[j].giver, b = im.edges[j].taker;
			if (cand[a] != cand[b]) {
				cand[a] = cand[b] = 0;
				changed = true;
			}
		}
	}
	for (uint32_t i = 0; i < im.ng; i++)
		if (cand[i]) {
			im.g[i].internal = true;
			st->goroutines--;
			st->internal++;
		}
	free(cand);
	if (st->goroutines == 0) {
		err_set(e, "%s: the trace has no goroutines of the program (only the runtime's)", path);
		goto out;
	}
	/* Still running at the end: its compute to the end of the trace. */
	for (uint32_t i = 0; i < im.ng; i++) {
		flush(&im, &im.g[i], im.last_ts);
		put_compute(&im, &im.g[i]);
	}
	st->makespan_ns = im.last_ts;
	st->lat_n = im.lat->count;
	st->lat_p50 = hist_quantile(im.lat, 0.5);
	st->lat_p99 = hist_quantile(im.lat, 0.99);
	st->lat_max = im.lat->max;
	st->gap_p50 = st->gaps ? hist_quantile(im.gap, 0.5) : 0;
	st->peak_bytes = im.bytes;
	ok = write_workload(&im, path, name, out, e);
out:
	for (uint32_t i = 0; i < im.ng; i++) {
		free(im.g[i].ops.p);
		free(im.g[i].text);
	}
	free(im.g);
	free(im.lat);
	free(im.gap);
	free(im.ps);
	um_free(&im.idx);
	um_free(&im.pairs);
	for (uint32_t i = 0; i < im.nsites; i++)
		free(im.sites[i]);
	free(im.sites);
	um_free(&im.site_idx);
	free(im.edges);
	free(im.edge_chan);
	free(im.edge_rev);
	free(im.job_val);
	free(im.job_last);
	free(im.job_workers);
	free(im.chan_cap);
	free(im.chan_tokens);
	ti_close(r);
	return ok;
}
