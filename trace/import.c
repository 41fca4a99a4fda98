/* A Go execution trace (any reader of trace/import.h) as a workload in
 * schedlab's language (docs/workload-format.md, "Imported traces").
 *
 * Each goroutine becomes a program of what it did, in its own order:
 *   - compute for each stretch it ran (start, or the last event while
 *     running, to its next event);
 *   - spawn of each goroutine it created;
 *   - for each time it made another goroutine runnable, a send on a
 *     channel of capacity 1 kept for that pair (giver -> taker); the taker
 *     receives on it where it blocked: the happens-before edge, and no
 *     more than the edge;
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
	char *text;             /* resolved, at the end */
};

struct imp {
	const char *path;       /* the trace, for messages */
	struct err *e;
	struct gi *g;
	uint32_t ng, cg;
	struct u64map idx;      /* goid -> index */
	struct u64map pairs;    /* (giver << 32 | taker) -> 1: channels made */
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
	g->internal = label && strncmp(label, "runtime.", 8) == 0 && strcmp(label, "runtime.main") != 0;
	if (label && strncmp(label, "runtime/trace.", 14) == 0)
		g->internal = true;
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
			flush(im, g, ev->ts);
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
		um_put(&im->pairs, (uint64_t)gi << 32 | ti, 1);
		op(im, g, "{\"send\":\"h%" PRIu64 "_%" PRIu64 "\"}", g->id, t->id);
		op(im, t, "{\"recv\":\"h%" PRIu64 "_%" PRIu64 "\"}", g->id, t->id);
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

static char *resolve(struct imp *im, const struct gi *g)
{
	struct sbuf b = { 0 };
	uint64_t dummy = 0;
	const char *p = g->ops.p ? g->ops.p : "";
	while (*p) {
		const char *q = strchr(p, '\x01');
		if (!q) {
			sb_add(&b, p, strlen(p), &dummy);
			break;
		}
		sb_add(&b, p, (size_t)(q - p), &dummy);
		char *end;
		unsigned long c = strtoul(q + 1, &end, 10);
		char name[64];
		int n = snprintf(name, sizeof name, "{\"spawn\":\"g%" PRIu64 "\"}",
				 im->g[im->g[c].canon].id);
		sb_add(&b, name, (size_t)n, &dummy);
		p = end + 1;
	}
	if (!b.p)
		b.p = xstrdup("");
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
	snprintf(desc, sizeof desc,
		 "Imported from the Go execution trace %s (%s, GOMAXPROCS %d): %" PRIu64
		 " goroutines as %" PRIu64 " programs; %" PRIu64 " runtime goroutines left out. "
		 "%" PRIu64 " spawns, %" PRIu64 " wake-up edges between goroutines, %" PRIu64
		 " sleeps, %" PRIu64 " wake-ups from outside, %" PRIu64 " network waits, %" PRIu64
		 " blocking system calls. %" PRIu64 " switches' recorded gaps (p50 %" PRIu64
		 " ns) are charged as the compute of the goroutine that blocked or ended.",
		 base, st->go, st->gomaxprocs, st->goroutines, st->programs, st->internal,
		 st->spawns, st->edges, st->sleeps, st->external, st->net, st->blocked_syscalls,
		 st->gaps, st->gap_p50);
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
	fprintf(f, "},\n  \"wait_ns\": %" PRIu64 ", \"wait_p_free_ns\": %" PRIu64 "}", total,
		st->wait_free_ns);
	fprintf(f, ",\n\"main\": \"trace\"");
}

/* A channel of capacity 1 per (giver, taker) pair, in that order, for a
 * stable document. */
static void write_channels(const struct imp *im, FILE *f)
{
	if (!im->pairs.n)
		return;
	fprintf(f, ",\n\"channels\": {");
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

static bool write_workload(struct imp *im, const char *path, const char *name, FILE *f,
			   struct err *e)
{
	share_programs(im);
	write_head(im, path, name, f);
	write_channels(im, f);
	write_main(im, f);
	for (uint32_t i = 0; i < im->ng; i++) {
		struct gi *g = &im->g[i];
		if (g->internal || g->canon != i)
			continue;
		fprintf(f, ",\n\"g%" PRIu64 "\": [%s]", g->id, g->text);
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
	int k;
	while ((k = ti_next(r, &ev, e)) == 1) {
		st->events++;
		if (im.text > TEXT_LIMIT) {
			err_set(e, "%s: offset %" PRIu64 ": the workload passes %" PRIu64 " MiB here, "
				"the limit of a workload file: import a shorter trace (trace less of the "
				"run)", path, ev.off, TEXT_LIMIT >> 20);
			goto out;
		}
		if (have_prev && !step(&im, &prev))
			goto out;
		prev = ev;
		prev.label = NULL;   /* valid only until the next ti_next */
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
	if (have_prev && !stop_yield && !step(&im, &prev))
		goto out;
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
	ti_close(r);
	return ok;
}
