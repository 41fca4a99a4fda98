/* A run's trace in Go's own execution-trace format, as Go 1.19 writes it
 * ("go 1.19 trace"), which `go tool trace` opens.
 *
 * The format, in short (Go's src/runtime/trace.go and
 * src/internal/trace/parser.go are its definition): a 16-byte header;
 * then events, each a byte (type | n << 6) and unsigned LEB128 values,
 * where n + 1 values follow when n < 3, and with n == 3 the byte count of
 * the values follows first.  Events that happen on a P go in that P's
 * batch (EvBatch [P, ticks], then events whose first value is the ticks
 * since the previous event of the batch); events off every P go in the
 * batch of P -1.  Which G an event is about is implicit: the last G
 * started in that batch (EvGoStart), until it stops.  The reader merges
 * the batches by timestamp, ordering each G's life by the sequence
 * numbers its EvGoStart, EvGoUnblock and EvGoSysExit carry, and then
 * checks every G's and P's state transitions; it rejects the whole trace
 * at the first inconsistency.
 *
 * So this writer replays the run's events (core/trace.h, in (ts, seq)
 * order) through the same state machine the reader runs -- which G runs
 * on which P, each G's state and sequence number -- and writes each event
 * where the reader will find it consistent.  An event that does not fit
 * (natively, two Ms' clock reads can race with the work they order) is
 * repaired the least visible way, or left out, and counted
 * (trace_go_stats): simulated traces need no repair, which a test checks.
 *
 * Names: every label the body gave (core/trace.h) is a function name in
 * a one- or two-frame stack.  A G's creation carries its program's stack,
 * which is what `go tool trace` groups goroutines by; blocks, system
 * calls, creations and wake-ups carry their op's and program's, so the
 * blocking and scheduler-latency profiles name them.  Steals, global
 * queue takes and placements become user log events (EvUserLog, category
 * "steal", "globrunq", "place"), shown in the timeline. */
#include "trace/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace/bytes.h"
#include "trace/frames.h"

enum {
	EV_BATCH = 1,
	EV_FREQUENCY = 2,
	EV_STACK = 3,
	EV_GOMAXPROCS = 4,
	EV_PROC_START = 5,
	EV_PROC_STOP = 6,
	EV_GO_CREATE = 13,
	EV_GO_START = 14,
	EV_GO_END = 15,
	EV_GO_SCHED = 17,
	EV_GO_PREEMPT = 18,
	EV_GO_SLEEP = 19,
	EV_GO_BLOCK = 20,
	EV_GO_UNBLOCK = 21,
	EV_GO_BLOCK_SEND = 22,
	EV_GO_BLOCK_RECV = 23,
	EV_GO_BLOCK_SELECT = 24,
	EV_GO_BLOCK_SYNC = 25,
	EV_GO_BLOCK_NET = 27,
	EV_GO_SYSCALL = 28,
	EV_GO_SYSEXIT = 29,
	EV_GO_SYSBLOCK = 30,
	EV_STRING = 37,
	EV_GO_START_LABEL = 41,
	EV_USER_TASK_CREATE = 45,
	EV_USER_TASK_END = 46,
	EV_USER_REGION = 47,
	EV_USER_LOG = 48,
};

/* One event: its type and values (the first the time stamp, if it has
 * one), short or length-prefixed as the reader expects. */
static void by_event(struct bytes *b, uint8_t type, const uint64_t *v, int n)
{
	if (n <= 3) {
		by_byte(b, (uint8_t)(type | (n - 1) << 6));
		for (int i = 0; i < n; i++)
			by_uv(b, v[i]);
		return;
	}
	struct bytes t = { 0 };
	for (int i = 0; i < n; i++)
		by_uv(&t, v[i]);
	by_byte(b, (uint8_t)(type | 3 << 6));
	by_uv(b, t.n);
	by_mem(b, t.p, t.n);
	free(t.p);
}

/* ---- A hash of uint64 keys (goids, stacks) to small records ---- */

struct gst {
	uint64_t goid;          /* 0: empty slot */
	/* in w->tasks, a request of G goid: when it began (the second half
	 * of the key) and its user task, 0 once ended; in w->gs, start is 0 */
	int64_t start;
	uint64_t task;
	uint64_t seq;           /* the reader's sequence number for it */
	uint32_t prog;          /* its program's label */
	uint8_t state;          /* enum gstate */
	bool insys, sysblocked;
	int32_t sysp;           /* the P it made its system call on */
	int32_t p;              /* the P it runs on (GS_RUNNING) */
};

enum gstate { GS_NONE, GS_RUNNABLE, GS_RUNNING, GS_WAITING, GS_DEAD };

struct gmap {
	struct gst *v;
	size_t n, cap;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* Records by (goid, start): Gs by goid alone (start 0), and a G's
 * requests by when each began -- its next can arrive before it has
 * answered the last.  Request slots are not reused: a run's requests are
 * few next to its events. */
static uint64_t gkey(uint64_t goid, int64_t start)
{
	return mix(goid ^ mix((uint64_t)start));
}

static struct gst *gmap_get2(struct gmap *m, uint64_t goid, int64_t start, bool make)
{
	if (make && 2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		struct gst *v = xcalloc(cap, sizeof(*v));
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->v[i].goid)
				continue;
			size_t j = gkey(m->v[i].goid, m->v[i].start) & (cap - 1);
			while (v[j].goid)
				j = (j + 1) & (cap - 1);
			v[j] = m->v[i];
		}
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	if (!m->cap)
		return NULL;
	size_t j = gkey(goid, start) & (m->cap - 1);
	while (m->v[j].goid) {
		if (m->v[j].goid == goid && m->v[j].start == start)
			return &m->v[j];
		j = (j + 1) & (m->cap - 1);
	}
	if (!make)
		return NULL;
	m->n++;
	m->v[j] = (struct gst){ .goid = goid, .start = start, .p = -1, .sysp = -1 };
	return &m->v[j];
}

static struct gst *gmap_get(struct gmap *m, uint64_t goid, bool make)
{
	return gmap_get2(m, goid, 0, make);
}

/* ---- The writer's state ---- */

struct batch {
	struct bytes b;
	bool begun;
	int64_t last;           /* ts of its last event */
	bool running;           /* the reader's view of the P: started */
	uint64_t curg;          /* ... and the G it runs, 0 none */
};

enum { CAT_STEAL, CAT_GLOBRUNQ, CAT_PLACE, CAT__COUNT };
static const char *const global_why[] = {
	[RT_TG_FAIRNESS] = "fairness", [RT_TG_EMPTY_LOCAL] = "local queue empty",
	[RT_TG_OTHER] = "other", [RT_TG_ONLY] = "the only queue",
	[RT_TG_STEAL] = "another node's queue", [RT_TG_IDLE] = "last look before idle",
};
static const char *const categories[CAT__COUNT] = { "steal", "globrunq", "place" };

struct w {
	const struct rt_trace *t;
	struct batch *b;        /* procs Ps, then the batch off every P */
	int nop;                /* its index */
	struct gmap gs;
	size_t nframes;         /* labels, then the runtime frames (frames.h) */
	uint64_t *str_of_frame; /* string ids, 0: not yet */
	uint64_t str_next;
	uint64_t str_file;
	uint64_t str_cat[CAT__COUNT];
	uint64_t str_sysexit;
	uint64_t str_request;
	struct gmap tasks;      /* requests (gmap_get2) */
	uint64_t task_next;
	struct bytes strings;
	/* stacks: (top, bottom) frame pairs; bottom == UINT32_MAX: one frame */
	struct { uint64_t key, id; } *stk;
	size_t nstk, capstk;
	struct bytes stacks;
	uint64_t stk_next;
	struct trace_go_stats st;
};

static uint64_t string_id(struct w *w, const char *s, uint64_t *slot)
{
	if (*slot)
		return *slot;
	size_t len = strlen(s);
	if (!len) {
		s = "?";
		len = 1;
	}
	uint64_t id = ++w->str_next;
	by_byte(&w->strings, EV_STRING);
	by_uv(&w->strings, id);
	by_uv(&w->strings, len);
	by_mem(&w->strings, s, len);
	*slot = id;
	return id;
}

static const char *frame_name(const struct w *w, size_t f)
{
	return trace_frame_name(w->t, f);
}

static uint64_t frame_str(struct w *w, size_t f)
{
	return string_id(w, frame_name(w, f), &w->str_of_frame[f]);
}

static size_t rtf(const struct w *w, int which)
{
	return trace_rt_frame(w->t, which);
}

/* The stack of frames top (innermost) and bottom (SIZE_MAX: none). */
static uint64_t stack_id(struct w *w, size_t top, size_t bottom)
{
	uint64_t key = trace_stack_key(w->t, &top, &bottom);
	if (2 * (w->nstk + 1) > w->capstk) {
		size_t cap = w->capstk ? w->capstk * 2 : 256;
		void *v = xcalloc(cap, sizeof(*w->stk));
		typeof(w->stk) nv = v;
		for (size_t i = 0; i < w->capstk; i++) {
			if (!w->stk[i].id)
				continue;
			size_t j = mix(w->stk[i].key) & (cap - 1);
			while (nv[j].id)
				j = (j + 1) & (cap - 1);
			nv[j] = w->stk[i];
		}
		free(w->stk);
		w->stk = nv;
		w->capstk = cap;
	}
	size_t j = mix(key) & (w->capstk - 1);
	while (w->stk[j].id) {
		if (w->stk[j].key == key)
			return w->stk[j].id;
		j = (j + 1) & (w->capstk - 1);
	}
	uint64_t id = ++w->stk_next;
	w->stk[j].key = key;
	w->stk[j].id = id;
	w->nstk++;
	size_t frames[2] = { top, bottom };
	int nf = bottom == SIZE_MAX ? 1 : 2;
	uint64_t v[2 + 4 * 2];
	v[0] = id;
	v[1] = (uint64_t)nf;
	for (int i = 0; i < nf; i++) {
		/* a PC of its own per function: the tools key on PCs */
		v[2 + 4 * i] = trace_frame_pc(frames[i]);
		v[3 + 4 * i] = frame_str(w, frames[i]);
		v[4 + 4 * i] = w->str_file;
		v[5 + 4 * i] = 1;
	}
	by_event(&w->stacks, EV_STACK, v, 2 + 4 * nf);
	return id;
}

/* ---- Events into batches ---- */

static void put(struct w *w, int bi, int64_t ts, uint8_t type, const uint64_t *args, int nargs)
{
	struct batch *b = &w->b[bi];
	if (!b->begun) {
		uint64_t h[2] = { bi == w->nop ? UINT64_MAX : (uint64_t)bi, (uint64_t)(ts > 0 ? ts : 0) };
		by_event(&b->b, EV_BATCH, h, 2);
		b->begun = true;
		b->last = ts > 0 ? ts : 0;
	}
	if (ts < b->last) {
		ts = b->last;   /* natively, a clock read raced: keep the batch in order */
		w->st.clamped++;
	}
	uint64_t v[8];
	v[0] = (uint64_t)(ts - b->last);
	for (int i = 0; i < nargs; i++)
		v[1 + i] = args[i];
	by_event(&b->b, type, v, 1 + nargs);
	b->last = ts;
	w->st.events++;
}

static bool is_p(const struct w *w, int p)
{
	return p >= 0 && p < w->t->procs;
}

/* The batch for something G `by' did on P p (0: the runtime did it). */
static int actor_batch(struct w *w, int p, uint64_t by)
{
	if (is_p(w, p) && w->b[p].curg == by)
		return p;
	if (by != 0)
		w->st.reattributed++;
	return w->nop;
}

static void proc_start(struct w *w, int p, int64_t ts, int m)
{
	uint64_t a[1] = { m >= 0 ? (uint64_t)m : 0 };
	put(w, p, ts, EV_PROC_START, a, 1);
	w->b[p].running = true;
}

static void proc_stop(struct w *w, int p, int64_t ts)
{
	put(w, p, ts, EV_PROC_STOP, NULL, 0);
	w->b[p].running = false;
}

/* g stops running on its P as ev says (a yield, block, end, ...). */
static void g_off(struct w *w, struct gst *g, int64_t ts, uint8_t type, uint64_t stk,
		  enum gstate to)
{
	int p = g->p;
	uint64_t a[1] = { stk };
	put(w, p, ts, type, a, type == EV_GO_END || type == EV_GO_SYSBLOCK ? 0 : 1);
	w->b[p].curg = 0;
	g->state = (uint8_t)to;
	g->p = -1;
}

/* label: a string id to show the start with (0: none): a start that
 * is not one of the run's (a G back from a system call on a new P). */
static void g_start(struct w *w, struct gst *g, int p, int64_t ts, int m, uint64_t label)
{
	struct batch *b = &w->b[p];
	if (!b->running) {
		proc_start(w, p, ts, m);
		w->st.repaired++;
	}
	if (b->curg) {
		/* another G is still running there in the reader's view */
		struct gst *h = gmap_get(&w->gs, b->curg, false);
		if (h)
			g_off(w, h, ts, EV_GO_SCHED, stack_id(w, h->prog, SIZE_MAX), GS_RUNNABLE);
		else
			b->curg = 0;
		w->st.repaired++;
	}
	uint64_t a[3] = { g->goid, g->seq, label };
	put(w, p, ts, label ? EV_GO_START_LABEL : EV_GO_START, a, label ? 3 : 2);
	g->seq++;
	g->state = GS_RUNNING;
	g->p = p;
	b->curg = g->goid;
	if (!label)
		w->st.starts++;
}

/* g, runnable or about to be: an unblock from batch bi. */
static void g_unblock(struct w *w, struct gst *g, int bi, int64_t ts, uint64_t stk)
{
	uint64_t a[3] = { g->goid, g->seq, stk };
	put(w, bi, ts, EV_GO_UNBLOCK, a, 3);
	g->seq++;
	g->state = GS_RUNNABLE;
}

static struct gst *g_create(struct w *w, uint64_t goid, uint32_t prog, int bi, int64_t ts,
			    uint64_t stk)
{
	struct gst *g = gmap_get(&w->gs, goid, true);
	g->prog = prog;
	uint64_t a[3] = { goid, stack_id(w, prog ? prog : rtf(w, RF_RUNTIME), SIZE_MAX), stk };
	put(w, bi, ts, EV_GO_CREATE, a, 3);
	g->state = GS_RUNNABLE;
	g->seq = 1;
	w->st.goroutines++;
	return g;
}

/* The G ev is about, in a state to do what ev says: running on a P (for
 * a stop), runnable (for a start).  NULL: leave the event out. */
static struct gst *running_g(struct w *w, const struct rt_tev *ev)
{
	struct gst *g = gmap_get(&w->gs, ev->g, false);
	if (!g || g->state != GS_RUNNING || !is_p(w, g->p) || w->b[g->p].curg != g->goid) {
		w->st.dropped++;
		return NULL;
	}
	return g;
}

static uint8_t block_type(uint64_t why)
{
	switch ((enum rt_tblock)why) {
	case RT_TB_CHAN_SEND: return EV_GO_BLOCK_SEND;
	case RT_TB_CHAN_RECV: return EV_GO_BLOCK_RECV;
	case RT_TB_SELECT: return EV_GO_BLOCK_SELECT;
	case RT_TB_SYNC: return EV_GO_BLOCK_SYNC;
	case RT_TB_SLEEP: return EV_GO_SLEEP;
	case RT_TB_NET: return EV_GO_BLOCK_NET;
	case RT_TB_OTHER: break;
	}
	return EV_GO_BLOCK;
}

static void user_log(struct w *w, int p, int64_t ts, int cat, const char *msg)
{
	uint64_t key = string_id(w, categories[cat], &w->str_cat[cat]);
	uint64_t a[3] = { 0, key, 0 };
	int bi = is_p(w, p) ? p : w->nop;
	put(w, bi, ts, EV_USER_LOG, a, 3);
	size_t len = strlen(msg);
	by_uv(&w->b[bi].b, len);
	by_mem(&w->b[bi].b, msg, len);
	w->st.logs++;
}

/* A request is a user task ("request", from its arrival to its answer),
 * created off every P, since no G runs it then; its handling a region of
 * the handling G.  So `go tool trace`'s user-defined tasks list requests
 * by latency, and each one's timeline shows where its G waited. */
static void request(struct w *w, const struct rt_tev *ev)
{
	uint64_t name = string_id(w, "request", &w->str_request);
	bool begin = ev->kind == RT_TEV_REQ_BEGIN;
	struct gst *t = gmap_get2(&w->tasks, ev->g, (int64_t)ev->a, begin);
	if (!t || (begin ? t->task != 0 : t->task == 0)) {
		w->st.dropped++;
		return;
	}
	if (begin) {
		t->task = ++w->task_next;
		uint64_t a[4] = { t->task, 0, name, stack_id(w, rtf(w, RF_NETPOLL), SIZE_MAX) };
		put(w, w->nop, ev->ts, EV_USER_TASK_CREATE, a, 4);
		w->st.tasks++;
		return;
	}
	/* the region must be in the handling G's batch: the reader gives a
	 * user event to the G running in its batch */
	struct gst *g = running_g(w, ev);
	uint64_t id = t->task;
	if (!g)
		return;
	/* go tool trace names a region by its first frame: it needs one */
	uint64_t stk = stack_id(w, g->prog ? g->prog : rtf(w, RF_RUNTIME), SIZE_MAX);
	bool end = ev->kind == RT_TEV_REQ_END;
	uint64_t r[4] = { id, end, name, stk };
	put(w, g->p, ev->ts, EV_USER_REGION, r, 4);
	if (end) {
		uint64_t a[2] = { id, stk };
		put(w, g->p, ev->ts, EV_USER_TASK_END, a, 2);
		t->task = 0;
	}
}

static void go_procs(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	uint64_t a[2] = { ev->a, 0 };
	put(w, w->nop, ts, EV_GOMAXPROCS, a, 2);
}

static void go_p_start(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	int p = ev->p;
	if (!is_p(w, p) || w->b[p].running) {
		w->st.dropped++;
		return;
	}
	proc_start(w, p, ts, ev->m);
}

static void go_p_stop(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	int p = ev->p;
	if (!is_p(w, p) || !w->b[p].running) {
		w->st.dropped++;
		return;
	}
	if (w->b[p].curg) {
		struct gst *h = gmap_get(&w->gs, w->b[p].curg, false);
		if (h)
			g_off(w, h, ts, EV_GO_SCHED, stack_id(w, h->prog, SIZE_MAX), GS_RUNNABLE);
		w->b[p].curg = 0;
		w->st.repaired++;
	}
	proc_stop(w, p, ts);
}

static void go_g_create(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	int p = ev->p;
	if (gmap_get(&w->gs, ev->g, false)) {
		w->st.dropped++;
		return;
	}
	struct gst *by = ev->a ? gmap_get(&w->gs, ev->a, false) : NULL;
	int bi = actor_batch(w, p, ev->a);
	uint64_t stk = by ? stack_id(w, by->prog, SIZE_MAX) : stack_id(w, rtf(w, RF_MAIN), SIZE_MAX);
	g_create(w, ev->g, (uint32_t)ev->b, bi, ts, stk);
}

static void go_g_start(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	int p = ev->p;
	struct gst *g;
	if (!is_p(w, p)) {
		w->st.dropped++;
		return;
	}
	g = gmap_get(&w->gs, ev->g, false);
	if (!g) {
		g = g_create(w, ev->g, 0, w->nop, ts, stack_id(w, rtf(w, RF_RUNTIME), SIZE_MAX));
		w->st.repaired++;
	}
	if (g->state == GS_DEAD) {
		w->st.dropped++;
		return;
	}
	if (g->state == GS_RUNNING && g->p == p)
		return;   /* already shown running there */
	if (g->state == GS_RUNNING) {
		g_off(w, g, ts, EV_GO_SCHED, stack_id(w, g->prog, SIZE_MAX), GS_RUNNABLE);
		w->st.repaired++;
	}
	if (g->state == GS_WAITING) {
		g_unblock(w, g, w->nop, ts, stack_id(w, rtf(w, RF_WAKE), SIZE_MAX));
		w->st.repaired++;
	}
	g->insys = g->sysblocked = false;
	g_start(w, g, p, ts, ev->m, 0);
}

static void go_g_end(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	struct gst *g;
	if ((g = running_g(w, ev)))
		g_off(w, g, ts, EV_GO_END, 0, GS_DEAD);
}

static void go_g_yield(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	struct gst *g;
	if ((g = running_g(w, ev))) {
		g_off(w, g, ts, ev->kind == RT_TEV_G_YIELD ? EV_GO_SCHED : EV_GO_PREEMPT,
		      stack_id(w, g->prog, SIZE_MAX), GS_RUNNABLE);
	}
}

static void go_g_block(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	struct gst *g;
	if ((g = running_g(w, ev))) {
		g_off(w, g, ts, block_type(ev->a), stack_id(w, ev->b, g->prog), GS_WAITING);
		w->st.blocks++;
	}
}

static void go_g_unblock(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	int p = ev->p;
	struct gst *g;
	g = gmap_get(&w->gs, ev->g, false);
	if (!g || g->state != GS_WAITING) {
		w->st.dropped++;
		return;
	}
	struct gst *by = ev->a ? gmap_get(&w->gs, ev->a, false) : NULL;
	int bi = actor_batch(w, p, ev->a);
	size_t f = ev->b == RT_TW_TIMER ? rtf(w, RF_TIMER) : ev->b == RT_TW_NET ? rtf(w, RF_NETPOLL)
		 : ev->b == RT_TW_SYSCALL ? rtf(w, RF_SYSCALL) : rtf(w, RF_WAKE);
	g_unblock(w, g, bi, ts, by ? stack_id(w, by->prog, SIZE_MAX) : stack_id(w, f, SIZE_MAX));
	w->st.unblocks++;
}

static void go_syscall(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	struct gst *g;
	if ((g = running_g(w, ev))) {
		uint64_t a[1] = { stack_id(w, ev->b, g->prog) };
		put(w, g->p, ts, EV_GO_SYSCALL, a, 1);
		g->insys = true;
		g->sysblocked = false;
		g->sysp = g->p;
		w->st.syscalls++;
	}
}

static void go_syscall_block(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	int p = ev->p;
	struct gst *g;
	g = gmap_get(&w->gs, ev->g, false);
	if (!g || !g->insys || g->sysblocked || g->state != GS_RUNNING || g->p != p) {
		w->st.dropped++;
		return;
	}
	g_off(w, g, ts, EV_GO_SYSBLOCK, 0, GS_WAITING);
	g->sysblocked = true;
	proc_stop(w, p, ts);
}

static void go_syscall_exit(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	int p = ev->p;
	struct gst *g;
	g = gmap_get(&w->gs, ev->g, false);
	if (!g || !g->insys) {
		w->st.dropped++;
		return;
	}
	if (!g->sysblocked && p == g->sysp && g->state == GS_RUNNING) {
		g->insys = false;   /* back on its own P, which it never lost */
		return;
	}
	if (!g->sysblocked) {
		/* it came back to another P before the hand-off of its
		 * own was recorded (natively, a race of clock reads) */
		if (g->state != GS_RUNNING)
			return;
		int op = g->p;
		g_off(w, g, ts, EV_GO_SYSBLOCK, 0, GS_WAITING);
		proc_stop(w, op, ts);
		w->st.repaired++;
	}
	{
		uint64_t a[3] = { g->goid, g->seq, 0 };
		put(w, is_p(w, p) ? p : w->nop, ts, EV_GO_SYSEXIT, a, 3);
		g->seq++;
		g->state = GS_RUNNABLE;
	}
	g->insys = g->sysblocked = false;
	if (is_p(w, p)) {
		/* not one of the run's starts: the same run goes on */
		g_start(w, g, p, ts, ev->m,
			string_id(w, "back from a system call", &w->str_sysexit));
	}
}

static void go_steal(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	int p = ev->p;
	char msg[160];
	snprintf(msg, sizeof(msg), "P%d stole %" PRIu64 " Gs from P%" PRIu64, p, ev->b, ev->a);
	user_log(w, p, ts, CAT_STEAL, msg);
}

static void go_global_take(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	int p = ev->p;
	char msg[160];
	snprintf(msg, sizeof(msg), "P%d took %" PRIu64 " Gs from the global queue (%s)", p, ev->b,
		 ev->a < sizeof(global_why) / sizeof(global_why[0]) && global_why[ev->a]
		 ? global_why[ev->a] : "other");
	user_log(w, p, ts, CAT_GLOBRUNQ, msg);
}

static void go_place(struct w *w, const struct rt_tev *ev)
{
	int64_t ts = ev->ts;
	int p = ev->p;
	char msg[160];
	snprintf(msg, sizeof(msg), "G%" PRIu64 " placed on P%" PRIu64 " (node %" PRIu64 ") by P%d",
		 ev->g, ev->a, ev->b, p);
	user_log(w, p, ts, CAT_PLACE, msg);
}

static void go_req_begin(struct w *w, const struct rt_tev *ev)
{
	request(w, ev);
}

/* Each kind of the run's events as Go 1.19's format shows it; the kinds
 * not here (run-queue lengths, spinning) have nothing of Go's format to
 * show them. */
typedef void write_fn(struct w *w, const struct rt_tev *ev);
static write_fn *const writers[RT_TEV_KINDS] = {
	[RT_TEV_PROCS] = go_procs,
	[RT_TEV_P_START] = go_p_start,
	[RT_TEV_P_STOP] = go_p_stop,
	[RT_TEV_G_CREATE] = go_g_create,
	[RT_TEV_G_START] = go_g_start,
	[RT_TEV_G_END] = go_g_end,
	[RT_TEV_G_YIELD] = go_g_yield,
	[RT_TEV_G_PREEMPT] = go_g_yield,
	[RT_TEV_G_BLOCK] = go_g_block,
	[RT_TEV_G_UNBLOCK] = go_g_unblock,
	[RT_TEV_SYSCALL] = go_syscall,
	[RT_TEV_SYSCALL_BLOCK] = go_syscall_block,
	[RT_TEV_SYSCALL_EXIT] = go_syscall_exit,
	[RT_TEV_STEAL] = go_steal,
	[RT_TEV_GLOBAL_TAKE] = go_global_take,
	[RT_TEV_PLACE] = go_place,
	[RT_TEV_REQ_BEGIN] = go_req_begin,
	[RT_TEV_REQ_HANDLE] = go_req_begin,
	[RT_TEV_REQ_END] = go_req_begin,
};

static void one(struct w *w, const struct rt_tev *ev)
{
	if (ev->kind < RT_TEV_KINDS && writers[ev->kind])
		writers[ev->kind](w, ev);
}

bool trace_write_go_stats(FILE *f, const struct rt_trace *t, struct trace_go_stats *st,
			  struct err *e)
{
	struct w w = { .t = t };
	w.nop = t->procs;
	w.b = xcalloc((size_t)t->procs + 1, sizeof(*w.b));
	w.nframes = t->nlabels + RF__COUNT;
	w.str_of_frame = xcalloc(w.nframes, sizeof(*w.str_of_frame));
	uint64_t slot = 0;
	char file[64];
	snprintf(file, sizeof(file), "schedlab (%s)", t->mode ? t->mode : "?");
	w.str_file = string_id(&w, file, &slot);
	for (size_t i = 0; i < t->n; i++)
		one(&w, &t->ev[i]);

	static const char header[16] = "go 1.19 trace\0\0\0";
	bool ok = fwrite(header, 1, 16, f) == 16;
	bool any = false;
	for (int i = 0; i <= t->procs; i++) {
		if (!w.b[i].b.n)
			continue;
		any = true;
		ok = ok && fwrite(w.b[i].b.p, 1, w.b[i].b.n, f) == w.b[i].b.n;
	}
	if (!any) {
		/* the reader refuses a trace without a batch */
		struct bytes eb = { 0 };
		uint64_t h[2] = { UINT64_MAX, 0 }, a[2] = { 0, (uint64_t)t->procs };
		by_event(&eb, EV_BATCH, h, 2);
		uint64_t v[3] = { 0, a[1], 0 };
		by_event(&eb, EV_GOMAXPROCS, v, 3);
		ok = ok && fwrite(eb.p, 1, eb.n, f) == eb.n;
		free(eb.p);
	}
	/* The tick frequency, the strings and the stack table last, in a batch
	 * of no P, as Go 1.19's runtime writes its stack table when tracing
	 * stops: Go 1.22 and later read a 1.19 trace's events, strings
	 * included, only inside batches (outside, its stacks were refused and
	 * its strings dropped). */
	struct bytes fb = { 0 };
	uint64_t gh[2] = { UINT64_MAX, 0 }, freq[1] = { 1000000000 };   /* ticks are ns */
	by_event(&fb, EV_BATCH, gh, 2);
	by_event(&fb, EV_FREQUENCY, freq, 1);
	ok = ok && fwrite(fb.p, 1, fb.n, f) == fb.n;
	ok = ok && fwrite(w.strings.p, 1, w.strings.n, f) == w.strings.n;
	ok = ok && (!w.stacks.n || fwrite(w.stacks.p, 1, w.stacks.n, f) == w.stacks.n);
	if (!ok)
		err_set(e, "%s", strerror(errno ? errno : EIO));
	if (st)
		*st = w.st;
	for (int i = 0; i <= t->procs; i++)
		free(w.b[i].b.p);
	free(w.b);
	free(w.str_of_frame);
	free(w.strings.p);
	free(w.stacks.p);
	free(w.stk);
	free(w.gs.v);
	free(w.tasks.v);
	free(fb.p);
	return ok;
}

bool trace_write_go(FILE *f, const struct rt_trace *t, struct err *e)
{
	return trace_write_go_stats(f, t, NULL, e);
}
