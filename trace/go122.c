/* A run's trace in Go's current execution-trace format, the one Go 1.22
 * and later write ("go 1.22 trace"), which today's `go tool trace' and
 * the readers of Go's new trace API read as their own.
 *
 * The format, as Go's src/internal/trace describes and checks it (read for
 * facts: tracev2's event table, batch.go, generation.go, order.go; and
 * src/runtime/tracebuf.go, traceevent.go; this is our own code):
 *
 *   - A 16-byte header, then batches: the byte EventBatch and LEB128
 *     numbers -- generation, thread (M) id, the batch's time in ticks, the
 *     byte count (at most 64 KiB) -- then that many bytes.
 *   - A trace is cut into generations.  Each has its own string table
 *     (Strings batches), stack table (Stacks batches) and tick frequency
 *     (a Frequency batch); ids are the generation's own.  All of one
 *     generation's batches come before the next one's.
 *   - An event batch holds one thread's events in the order it made them:
 *     a type byte, then the ticks since the previous event of the batch,
 *     then the arguments.  An event names no thread, P or G of its own:
 *     the thread is the batch's, and the reader keeps each thread's P and
 *     running G (a ProcStart binds a P to it, a GoStart a G, ...).
 *   - Across threads the reader takes the earliest next event that the
 *     state allows: a G's starts and wake-ups carry the G's sequence
 *     number, a P's starts, steals and system calls the P's, each one the
 *     last plus one within the generation, from 0 at the G's creation or
 *     at a status event (GoStatus, ProcStatus) that restates a G's or P's
 *     state at the start of each generation.  An event the state forbids
 *     (a G blocking on a thread that runs none, a goroutine created
 *     without a P) ends the reading of the whole trace.
 *
 * So this writer replays the run's events (core/trace.h, in (ts, seq)
 * order) through the reader's state -- which P and G each thread holds,
 * each P's and G's status and sequence number -- and writes each event on
 * the thread that made it, in a state where the reader accepts it.  Every
 * event gets its own nanosecond: a time at or before the last one written
 * is moved 1 ns past it (Go's reader does the same to events of one
 * instant), so the reader's earliest-first merge meets the events in
 * exactly the order written.  What does not fit (natively, two threads'
 * clock reads can race with the work they order) is repaired the least
 * visible way, or left out, and counted (trace_go_stats); a simulated
 * trace needs neither, which a test checks.
 *
 * Where the format asks more than the run records:
 *   - a goroutine is created by a thread that holds a P: the main G,
 *     made before any P runs, is created when the first P starts;
 *   - GOMAXPROCS (ProcsChange), a user log and a user task are written by
 *     a running goroutine: GOMAXPROCS right after the first G starts; the
 *     policies' steals, global-queue takes and placements, which the
 *     scheduler makes on a P between two Gs, as user logs at the next G
 *     start of that thread (the G they found); a request as a task from
 *     its handling to its answer, with a log saying how long it waited
 *     since it arrived;
 *   - a system call's P taken (sysmon's retake, or the Go 1.0 policy's
 *     hand-off at entry) is a ProcSteal from the thread in the call, and
 *     a return on another P is that P's ProcStart, GoSyscallEndBlocked and
 *     a GoStart, as Go's exitsyscall writes them (that start is not one of
 *     the report's runs: trace_go_stats.restarts).
 * A generation spans at most a second of the run (Go's runtime starts one
 * about every second) and 16 MiB of events, so a reader holds one at a
 * time; each starts with every P's status and the statuses of the Gs
 * bound to a thread, and a G waiting or runnable then has its status
 * written where it is next named. */
#include "trace/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace/bytes.h"
#include "trace/frames.h"
#include "trace/read122.h"
#include "trace/u64map.h"

#define NO_THREAD UINT64_MAX
#define MAX_BATCH ((size_t)64 << 10)
/* An event's bytes at most: its type and five LEB128 numbers. */
#define EV_MAX 64
#define MAX_STRING 1024
#define GEN_NS 1000000000
#define GEN_BYTES ((size_t)16 << 20)

/* G statuses: 1 to 4 are the wire's (GoStatus); 0 and dead are ours. */
enum { G_NONE, G_RUNNABLE, G_RUNNING, G_SYSCALL, G_WAITING, G_DEAD };
/* P statuses, the wire's (ProcStatus). */
enum { P_RUNNING = 1, P_IDLE, P_SYSCALL };

/* ---- The writer's state ---- */

/* A user log waiting for its thread's next G. */
struct plog {
	uint8_t cat;
	char *msg;
};

/* A thread (M) of the trace: the run's Ms 0..ms-1, and one more for what
 * was recorded outside every M. */
struct thr {
	struct bytes b;         /* its open batch */
	int64_t base, last;     /* ticks: the open batch's first event, its last */
	int p;                  /* the P it holds (running, or in a system call), -1 */
	uint64_t g;             /* its G (running, or in a system call), 0 */
	struct plog *logs;
	size_t nlogs, caplogs;
};

struct pst {
	uint8_t status;
	int m;                  /* the thread holding it, -1 */
	uint64_t seq;
};

/* A request arrived at a G, not yet handled. */
struct arrival {
	uint64_t a;
	int64_t ts;
};

struct gst {
	uint64_t goid;
	uint64_t gen, seq;      /* its sequence number in generation gen (its status known there) */
	uint32_t prog;          /* its program's label */
	uint8_t status;         /* G_NONE: not created yet (a request's arrival came first) */
	bool pend;              /* made before any P ran: created at the next ProcStart */
	int m;                  /* its thread (running, system call), -1 */
	int sysp;               /* the P it made its system call on */
	uint64_t task, task_a;  /* the request it handles: its task, its name; 0 none */
	struct arrival *arr;
	size_t narr, caparr;
};


/* The fixed strings: Go's own reason strings (runtime/traceruntime.go's
 * tables, which readers map back to reasons), the log categories, names. */
enum {
	S_CHAN_SEND, S_CHAN_RECV, S_SELECT, S_SYNC, S_SLEEP, S_NET, S_UNSPECIFIED,
	S_GOSCHED, S_PREEMPTED,
	S_CAT_STEAL, S_CAT_GLOBRUNQ, S_CAT_PLACE, S_REQUEST, S_ARRIVAL,
	S__COUNT
};
static const char *const fixed[S__COUNT] = {
	"chan send", "chan receive", "select", "sync", "sleep", "network", "unspecified",
	"runtime.Gosched", "preempted",
	"steal", "globrunq", "place", "request", "arrival",
};
enum { CAT_STEAL, CAT_GLOBRUNQ, CAT_PLACE };
static const char *const global_why[] = {
	[RT_TG_FAIRNESS] = "fairness", [RT_TG_EMPTY_LOCAL] = "local queue empty",
	[RT_TG_OTHER] = "other", [RT_TG_ONLY] = "the only queue",
	[RT_TG_STEAL] = "another node's queue", [RT_TG_IDLE] = "last look before idle",
};

/* A string id of the current generation: valid when gen is. */
struct sid {
	uint64_t gen, id;
};

/* The generation's other strings (log messages), by content. */
struct msgs {
	struct { uint64_t hash, id; size_t off; } *v;   /* id 0: empty slot */
	size_t n, cap;
	struct bytes text;      /* the strings, NUL-terminated */
};

struct w {
	const struct rt_trace *t;
	FILE *f;
	bool ok;
	int64_t gen_ns;
	size_t gen_max;

	struct thr *thr;        /* ms + 1 */
	int nthr, rtthr;        /* rtthr: the thread of events off every M */
	struct pst *ps;
	struct u64map gidx;     /* goid -> index in gs */
	struct gst *gs;
	size_t ngs, capgs;
	uint64_t *pending;      /* Gs made before any P ran, created at the next ProcStart */
	size_t npending, cappending;
	int64_t procs;          /* GOMAXPROCS to write after the next G start, 0 none */

	int64_t last_tick;
	uint64_t gen;           /* the generation being written, 0 before the first */
	int64_t gen_ts;
	size_t gen_bytes;
	uint64_t str_next, stk_next;
	struct bytes strings, stacks;   /* the open Strings and Stacks batches */
	struct sid *frame_sid;  /* labels, then the runtime frames (frames.h) */
	struct sid fixed_sid[S__COUNT];
	struct sid file_sid;
	struct msgs msgs;
	struct u64map stk;      /* (top << 32 | bottom) -> stack id, this generation's */
	uint64_t task_next;
	struct trace_go_stats st;
};

/* ---- Output ---- */

static void out(struct w *w, const void *p, size_t n)
{
	if (w->ok && n && fwrite(p, 1, n, w->f) != n)
		w->ok = false;
}

/* One batch of the generation: the thread m, the time and the bytes. */
static void write_batch(struct w *w, uint64_t m, int64_t tick, const struct bytes *data)
{
	struct bytes h = { 0 };
	by_byte(&h, T122_EVENT_BATCH);
	by_uv(&h, w->gen);
	by_uv(&h, m);
	by_uv(&h, (uint64_t)tick);
	by_uv(&h, data->n);
	out(w, h.p, h.n);
	out(w, data->p, data->n);
	by_free(&h);
}

static void thr_flush(struct w *w, int th)
{
	struct thr *h = &w->thr[th];
	if (!h->b.n)
		return;
	write_batch(w, (uint64_t)th, h->base, &h->b);
	h->b.n = 0;
}

/* A structural batch (strings, stacks) of the generation, when full. */
static void table_flush(struct w *w, struct bytes *b)
{
	if (b->n <= 1)
		return;
	write_batch(w, NO_THREAD, w->gen_ts, b);
	b->n = 0;
}

static void table_room(struct w *w, struct bytes *b, uint8_t type, size_t more)
{
	if (b->n && b->n + more > MAX_BATCH)
		table_flush(w, b);
	if (!b->n)
		by_byte(b, type);
}

/* ---- Strings and stacks of the generation ---- */

static uint64_t string_new(struct w *w, const char *s, size_t len)
{
	if (!len) {
		s = "?";
		len = 1;
	}
	if (len > MAX_STRING)
		len = MAX_STRING;
	table_room(w, &w->strings, T122_STRINGS, len + 24);
	uint64_t id = ++w->str_next;
	by_byte(&w->strings, T122_STRING);
	by_uv(&w->strings, id);
	by_uv(&w->strings, len);
	by_mem(&w->strings, s, len);
	return id;
}

static uint64_t string_at(struct w *w, struct sid *slot, const char *s)
{
	if (slot->gen != w->gen) {
		slot->id = string_new(w, s, strlen(s));
		slot->gen = w->gen;
	}
	return slot->id;
}

static uint64_t str_fixed(struct w *w, int which)
{
	return string_at(w, &w->fixed_sid[which], fixed[which]);
}

static const char *frame_name(const struct w *w, size_t f)
{
	return trace_frame_name(w->t, f);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h | 1;
}

/* A log message's string id, written once per generation. */
static uint64_t str_msg(struct w *w, const char *s)
{
	struct msgs *m = &w->msgs;
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		typeof(m->v) v = xcalloc(cap, sizeof(*v));
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->v[i].id)
				continue;
			size_t j = m->v[i].hash & (cap - 1);
			while (v[j].id)
				j = (j + 1) & (cap - 1);
			v[j] = m->v[i];
		}
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	uint64_t h = hash_str(s);
	size_t j = h & (m->cap - 1);
	for (; m->v[j].id; j = (j + 1) & (m->cap - 1))
		if (m->v[j].hash == h && strcmp((const char *)m->text.p + m->v[j].off, s) == 0)
			return m->v[j].id;
	size_t len = strlen(s);
	m->v[j].hash = h;
	m->v[j].off = m->text.n;
	m->v[j].id = string_new(w, s, len);
	by_mem(&m->text, s, len + 1);
	m->n++;
	return m->v[j].id;
}

static size_t rtf(const struct w *w, int which)
{
	return trace_rt_frame(w->t, which);
}

/* The stack of frames top (innermost) and bottom (SIZE_MAX: none), as
 * go.c names them: a label 0 is no frame, none at all is "runtime". */
static uint64_t stack_id(struct w *w, size_t top, size_t bottom)
{
	uint64_t key = trace_stack_key(w->t, &top, &bottom);
	uint64_t *id = um_get(&w->stk, key);
	if (id)
		return *id;
	size_t frames[2] = { top, bottom };
	int nf = bottom == SIZE_MAX ? 1 : 2;
	uint64_t fid[2];
	for (int i = 0; i < nf; i++)
		fid[i] = string_at(w, &w->frame_sid[frames[i]], frame_name(w, frames[i]));
	uint64_t file = string_at(w, &w->file_sid, w->t->mode && strcmp(w->t->mode, "native") == 0
				  ? "schedlab (native)" : "schedlab (sim)");
	table_room(w, &w->stacks, T122_STACKS, 24 + 44 * (size_t)nf);
	uint64_t sid = ++w->stk_next;
	by_byte(&w->stacks, T122_STACK);
	by_uv(&w->stacks, sid);
	by_uv(&w->stacks, (uint64_t)nf);
	for (int i = 0; i < nf; i++) {
		/* a PC of its own per function, as go.c's: the tools key on PCs */
		by_uv(&w->stacks, trace_frame_pc(frames[i]));
		by_uv(&w->stacks, fid[i]);
		by_uv(&w->stacks, file);
		by_uv(&w->stacks, 1);
	}
	um_put(&w->stk, key, sid);
	return sid;
}

static uint64_t stack_prog(struct w *w, uint32_t prog)
{
	return stack_id(w, prog ? prog : rtf(w, RF_RUNTIME), SIZE_MAX);
}

/* ---- Events into threads' batches ---- */

/* The next tick: the event's time, or 1 past the last one written. */
static int64_t tick(struct w *w, int64_t ts)
{
	int64_t t = ts > w->last_tick ? ts : w->last_tick + 1;
	if (t != ts && ts > 0) {
		w->st.shifted++;
		if ((uint64_t)(t - ts) > w->st.shift_max_ns)
			w->st.shift_max_ns = (uint64_t)(t - ts);
	}
	w->last_tick = t;
	return t;
}

static void put(struct w *w, int th, int64_t ts, unsigned type, const uint64_t *a, int n)
{
	struct thr *h = &w->thr[th];
	int64_t t = tick(w, ts);
	if (h->b.n + EV_MAX > MAX_BATCH)
		thr_flush(w, th);
	if (!h->b.n)
		h->base = h->last = t;
	size_t n0 = h->b.n;
	by_byte(&h->b, (uint8_t)type);
	by_uv(&h->b, (uint64_t)(t - h->last));
	for (int i = 0; i < n; i++)
		by_uv(&h->b, a[i]);
	h->last = t;
	w->gen_bytes += h->b.n - n0;
	w->st.events++;
}

static bool is_p(const struct w *w, int p)
{
	return p >= 0 && p < w->t->procs;
}

static struct gst *gget(struct w *w, uint64_t goid)
{
	uint64_t *i = goid ? um_get(&w->gidx, goid) : NULL;
	return i ? &w->gs[*i] : NULL;
}

static struct gst *gnew(struct w *w, uint64_t goid, uint32_t prog)
{
	if (w->ngs == w->capgs) {
		w->capgs = w->capgs ? w->capgs * 2 : 1024;
		w->gs = xrealloc(w->gs, w->capgs * sizeof(*w->gs));
	}
	um_put(&w->gidx, goid, w->ngs);
	struct gst *g = &w->gs[w->ngs++];
	*g = (struct gst){ .goid = goid, .prog = prog, .m = -1, .sysp = -1, .gen = w->gen };
	return g;
}

/* g's status, if not yet written in this generation, on thread th. */
static void g_status(struct w *w, int th, struct gst *g, int64_t ts)
{
	if (g->gen == w->gen)
		return;
	bool bound = g->status == G_RUNNING || g->status == G_SYSCALL;
	uint64_t a[3] = { g->goid, bound ? (uint64_t)g->m : NO_THREAD, g->status };
	put(w, th, ts, T122_GO_STATUS, a, 3);
	g->gen = w->gen;
	g->seq = 0;
}

/* ---- Generations ---- */

/* The thread that states the Ps no thread holds. */
static int status_thr(const struct w *w)
{
	return w->t->ms > 0 ? 0 : w->rtthr;
}

static void gen_begin(struct w *w, int64_t ts)
{
	w->gen++;
	w->st.generations++;
	w->gen_ts = ts > w->last_tick ? ts : w->last_tick + 1;
	w->gen_bytes = 0;
	w->str_next = w->stk_next = 0;
	um_free(&w->stk);
	free(w->msgs.v);
	by_free(&w->msgs.text);
	w->msgs = (struct msgs){ 0 };
	for (int p = 0; p < w->t->procs; p++) {
		struct pst *ps = &w->ps[p];
		uint64_t a[2] = { (uint64_t)p, ps->status };
		put(w, ps->m >= 0 ? ps->m : status_thr(w), ts, T122_PROC_STATUS, a, 2);
		ps->seq = 0;
	}
	for (int th = 0; th < w->nthr; th++) {
		struct gst *g = gget(w, w->thr[th].g);
		if (g)
			g_status(w, th, g, ts);
	}
}

static void gen_end(struct w *w)
{
	for (int th = 0; th < w->nthr; th++)
		thr_flush(w, th);
	table_flush(w, &w->strings);
	table_flush(w, &w->stacks);
	struct bytes fb = { 0 };
	by_byte(&fb, T122_FREQUENCY);
	by_uv(&fb, 1000000000);   /* ticks are ns */
	write_batch(w, NO_THREAD, w->gen_ts, &fb);
	by_free(&fb);
}

/* ---- The reader's transitions, written ---- */

static void proc_start(struct w *w, int th, int pid, int64_t ts);

/* th's G stops running, runnable (a repair: the run never said so). */
static void stop_g(struct w *w, int th, int64_t ts)
{
	struct thr *h = &w->thr[th];
	struct gst *g = gget(w, h->g);
	if (!g || g->status != G_RUNNING)
		return;
	uint64_t a[2] = { str_fixed(w, S_UNSPECIFIED), stack_prog(w, g->prog) };
	put(w, th, ts, T122_GO_STOP, a, 2);
	g->status = G_RUNNABLE;
	g->m = -1;
	h->g = 0;
	w->st.repaired++;
}

/* Thread th takes P pid from thread from's system call (from == th: its
 * own, which is a stop). */
static void steal(struct w *w, int th, int pid, int from, int64_t ts)
{
	struct pst *p = &w->ps[pid];
	uint64_t a[3] = { (uint64_t)pid, ++p->seq, (uint64_t)from };
	put(w, th, ts, T122_PROC_STEAL, a, 3);
	p->status = P_IDLE;
	p->m = -1;
	w->thr[from].p = -1;
}

static void proc_stop(struct w *w, int th, int64_t ts)
{
	struct thr *h = &w->thr[th];
	put(w, th, ts, T122_PROC_STOP, NULL, 0);
	w->ps[h->p].status = P_IDLE;
	w->ps[h->p].m = -1;
	h->p = -1;
	/* what waited for a G of this P's is not that G's */
	for (size_t i = 0; i < h->nlogs; i++)
		free(h->logs[i].msg);
	w->st.logs_left += h->nlogs;
	h->nlogs = 0;
}

/* th lets its P go, whatever it was doing (a repair). */
static void drop_p(struct w *w, int th, int64_t ts)
{
	struct thr *h = &w->thr[th];
	if (h->p < 0)
		return;
	if (w->ps[h->p].status == P_SYSCALL) {
		steal(w, th, h->p, th, ts);
	} else {
		stop_g(w, th, ts);
		proc_stop(w, th, ts);
	}
	w->st.repaired++;
}

/* th holds P pid, running, taking it from wherever it is (repairs). */
static void take_p(struct w *w, int th, int pid, int64_t ts)
{
	struct thr *h = &w->thr[th];
	struct pst *p = &w->ps[pid];
	if (h->p == pid && p->status == P_RUNNING)
		return;
	drop_p(w, th, ts);
	if (p->status == P_RUNNING) {
		int o = p->m;
		stop_g(w, o, ts);
		proc_stop(w, o, ts);
		w->st.repaired++;
	} else if (p->status == P_SYSCALL) {
		steal(w, th, pid, p->m, ts);
		w->st.repaired++;
	}
	proc_start(w, th, pid, ts);
}

/* Creates g on th, which holds a running P; by: the G that made it, for
 * the creator's stack (0: the runtime). */
static void go_create(struct w *w, int th, struct gst *g, uint64_t by, int64_t ts)
{
	struct gst *c = gget(w, by);
	uint64_t a[3] = { g->goid, stack_prog(w, g->prog),
			  c ? stack_prog(w, c->prog) : stack_id(w, rtf(w, RF_MAIN), SIZE_MAX) };
	put(w, th, ts, T122_GO_CREATE, a, 3);
	g->status = G_RUNNABLE;
	g->gen = w->gen;
	g->seq = 0;
	w->st.goroutines++;
}

/* The Gs made before any P ran, created now on th (which holds one). */
static void flush_pending(struct w *w, int th, int64_t ts)
{
	for (size_t i = 0; i < w->npending; i++) {
		struct gst *g = gget(w, w->pending[i]);
		if (g && g->pend) {
			g->pend = false;
			go_create(w, th, g, 0, ts);
		}
	}
	w->npending = 0;
}

static void proc_start(struct w *w, int th, int pid, int64_t ts)
{
	struct pst *p = &w->ps[pid];
	uint64_t a[2] = { (uint64_t)pid, ++p->seq };
	put(w, th, ts, T122_PROC_START, a, 2);
	p->status = P_RUNNING;
	p->m = th;
	w->thr[th].p = pid;
	flush_pending(w, th, ts);
}

static void user_log_now(struct w *w, int th, int64_t ts, uint8_t cat, const char *msg)
{
	uint64_t a[4] = { 0, str_fixed(w, S_CAT_STEAL + cat), str_msg(w, msg), 0 };
	put(w, th, ts, T122_USER_LOG, a, 4);
	w->st.logs++;
}

/* g starts on th (which holds a running P and runs no G); then what
 * waited for a G start there. */
static void go_start(struct w *w, int th, struct gst *g, int64_t ts)
{
	struct thr *h = &w->thr[th];
	g_status(w, th, g, ts);
	uint64_t a[2] = { g->goid, ++g->seq };
	put(w, th, ts, T122_GO_START, a, 2);
	g->status = G_RUNNING;
	g->m = th;
	h->g = g->goid;
	if (w->procs) {
		uint64_t pc[2] = { (uint64_t)w->procs, 0 };
		put(w, th, ts, T122_PROCS_CHANGE, pc, 2);
		w->procs = 0;
	}
	for (size_t i = 0; i < h->nlogs; i++) {
		user_log_now(w, th, ts, h->logs[i].cat, h->logs[i].msg);
		free(h->logs[i].msg);
	}
	h->nlogs = 0;
}

/* th's G in its system call returns without the P it made it on, which
 * it lost (blocked: GoSyscallEndBlocked); then, on P p if it got one, it
 * runs on. */
static void syscall_end_blocked(struct w *w, int th, struct gst *g, int p, int64_t ts)
{
	put(w, th, ts, T122_GO_SYSCALL_END_BLOCKED, NULL, 0);
	g->status = G_RUNNABLE;
	g->m = -1;
	w->thr[th].g = 0;
	if (is_p(w, p)) {
		go_start(w, th, g, ts);
		w->st.restarts++;
	}
}

/* The G of thread th running there, on a running P: what a G's own event
 * needs.  NULL (the event left out) otherwise. */
static struct gst *running_here(struct w *w, int th, uint64_t goid)
{
	struct thr *h = &w->thr[th];
	struct gst *g = gget(w, goid);
	if (!g || g->status != G_RUNNING || g->m != th || h->g != goid || h->p < 0 ||
	    w->ps[h->p].status != P_RUNNING) {
		w->st.dropped++;
		return NULL;
	}
	return g;
}

/* A user log of the policy's, on th's running G, or at th's next start
 * (the scheduler makes them between two Gs). */
static void user_log(struct w *w, int th, int64_t ts, uint8_t cat, const char *msg)
{
	struct thr *h = &w->thr[th];
	struct gst *g = gget(w, h->g);
	if (g && g->status == G_RUNNING && h->p >= 0 && w->ps[h->p].status == P_RUNNING) {
		user_log_now(w, th, ts, cat, msg);
		return;
	}
	if (th == w->rtthr || h->p < 0) {
		w->st.logs_left++;
		return;
	}
	if (h->nlogs == h->caplogs) {
		h->caplogs = h->caplogs ? h->caplogs * 2 : 8;
		h->logs = xrealloc(h->logs, h->caplogs * sizeof(*h->logs));
	}
	h->logs[h->nlogs++] = (struct plog){ .cat = cat, .msg = xstrdup(msg) };
}

/* ---- Each kind of the run's events ---- */

static void on_procs(struct w *w, const struct rt_tev *ev, int th)
{
	w->procs = (int64_t)ev->a;
}

static void on_p_start(struct w *w, const struct rt_tev *ev, int th)
{
	int p = ev->p;
	if (!is_p(w, p) || th == w->rtthr ||
	    (w->ps[p].status == P_RUNNING && w->ps[p].m == th)) {
		w->st.dropped++;
		return;
	}
	take_p(w, th, p, ev->ts);
}

static void on_p_stop(struct w *w, const struct rt_tev *ev, int th)
{
	struct thr *h = &w->thr[th];
	if (!is_p(w, ev->p) || h->p != ev->p || w->ps[ev->p].status != P_RUNNING) {
		w->st.dropped++;
		return;
	}
	stop_g(w, th, ev->ts);
	proc_stop(w, th, ev->ts);
}

static void on_g_create(struct w *w, const struct rt_tev *ev, int th)
{
	struct gst *g = gget(w, ev->g);
	if (!ev->g || (g && (g->status != G_NONE || g->pend))) {
		w->st.dropped++;
		return;
	}
	if (!g)
		g = gnew(w, ev->g, 0);
	g->prog = (uint32_t)ev->b;
	struct thr *h = &w->thr[th];
	if (th == w->rtthr || h->p < 0 || w->ps[h->p].status != P_RUNNING) {
		/* made before any P ran (the main G), or off a P */
		if (th != w->rtthr)
			w->st.reattributed++;
		if (w->npending == w->cappending) {
			w->cappending = w->cappending ? w->cappending * 2 : 8;
			w->pending = xrealloc(w->pending, w->cappending * sizeof(*w->pending));
		}
		w->pending[w->npending++] = ev->g;
		g->pend = true;
		return;
	}
	if (ev->a && ev->a != h->g)
		w->st.reattributed++;
	go_create(w, th, g, ev->a, ev->ts);
}

static void on_g_start(struct w *w, const struct rt_tev *ev, int th)
{
	int64_t ts = ev->ts;
	if (!is_p(w, ev->p) || th == w->rtthr) {
		w->st.dropped++;
		return;
	}
	struct gst *g = gget(w, ev->g);
	if (g && (g->status == G_DEAD || (g->status == G_RUNNING && g->m == th))) {
		if (g->status == G_DEAD)
			w->st.dropped++;
		return;   /* gone, or already shown running there */
	}
	take_p(w, th, ev->p, ts);
	struct thr *h = &w->thr[th];
	if (!g)
		g = gnew(w, ev->g, 0);
	if (g->status == G_NONE) {
		/* started, never made: made here */
		g->pend = false;
		go_create(w, th, g, 0, ts);
		w->st.repaired++;
	}
	if (h->g) {
		struct gst *o = gget(w, h->g);
		if (o && o->status == G_SYSCALL) {
			/* its system call ends, without the P */
			syscall_end_blocked(w, th, o, -1, ts);
			w->st.repaired++;
		} else {
			stop_g(w, th, ts);
		}
	}
	if (g->status == G_RUNNING) {
		stop_g(w, g->m, ts);
	} else if (g->status == G_SYSCALL) {
		int o = g->m;
		if (w->thr[o].p >= 0 && w->ps[w->thr[o].p].status == P_SYSCALL)
			steal(w, o, w->thr[o].p, o, ts);
		syscall_end_blocked(w, o, g, -1, ts);
		w->st.repaired++;
	} else if (g->status == G_WAITING) {
		g_status(w, th, g, ts);
		uint64_t a[3] = { g->goid, ++g->seq, stack_id(w, rtf(w, RF_WAKE), SIZE_MAX) };
		put(w, th, ts, T122_GO_UNBLOCK, a, 3);
		g->status = G_RUNNABLE;
		w->st.repaired++;
	}
	go_start(w, th, g, ts);
	w->st.starts++;
}

static void on_g_end(struct w *w, const struct rt_tev *ev, int th)
{
	struct gst *g = running_here(w, th, ev->g);
	if (!g)
		return;
	put(w, th, ev->ts, T122_GO_DESTROY, NULL, 0);
	g->status = G_DEAD;
	g->m = -1;
	w->thr[th].g = 0;
}

static void on_g_yield(struct w *w, const struct rt_tev *ev, int th)
{
	struct gst *g = running_here(w, th, ev->g);
	if (!g)
		return;
	uint64_t a[2] = { str_fixed(w, ev->kind == RT_TEV_G_YIELD ? S_GOSCHED : S_PREEMPTED),
			  stack_prog(w, g->prog) };
	put(w, th, ev->ts, T122_GO_STOP, a, 2);
	g->status = G_RUNNABLE;
	g->m = -1;
	w->thr[th].g = 0;
}

static int block_reason(uint64_t why)
{
	switch ((enum rt_tblock)why) {
	case RT_TB_CHAN_SEND: return S_CHAN_SEND;
	case RT_TB_CHAN_RECV: return S_CHAN_RECV;
	case RT_TB_SELECT: return S_SELECT;
	case RT_TB_SYNC: return S_SYNC;
	case RT_TB_SLEEP: return S_SLEEP;
	case RT_TB_NET: return S_NET;
	case RT_TB_OTHER: break;
	}
	return S_UNSPECIFIED;
}

static void on_g_block(struct w *w, const struct rt_tev *ev, int th)
{
	struct gst *g = running_here(w, th, ev->g);
	if (!g)
		return;
	uint64_t a[2] = { str_fixed(w, block_reason(ev->a)), stack_id(w, ev->b, g->prog) };
	put(w, th, ev->ts, T122_GO_BLOCK, a, 2);
	g->status = G_WAITING;
	g->m = -1;
	w->thr[th].g = 0;
	w->st.blocks++;
}

static void on_g_unblock(struct w *w, const struct rt_tev *ev, int th)
{
	struct gst *g = gget(w, ev->g);
	if (!g || g->status != G_WAITING) {
		w->st.dropped++;
		return;
	}
	struct gst *by = gget(w, ev->a);
	size_t f = ev->b == RT_TW_TIMER ? rtf(w, RF_TIMER) : ev->b == RT_TW_NET ? rtf(w, RF_NETPOLL)
		 : ev->b == RT_TW_SYSCALL ? rtf(w, RF_SYSCALL) : rtf(w, RF_WAKE);
	g_status(w, th, g, ev->ts);
	uint64_t a[3] = { g->goid, ++g->seq,
			  by ? stack_prog(w, by->prog) : stack_id(w, f, SIZE_MAX) };
	put(w, th, ev->ts, T122_GO_UNBLOCK, a, 3);
	g->status = G_RUNNABLE;
	w->st.unblocks++;
}

static void on_syscall(struct w *w, const struct rt_tev *ev, int th)
{
	struct gst *g = running_here(w, th, ev->g);
	if (!g)
		return;
	struct pst *p = &w->ps[w->thr[th].p];
	uint64_t a[2] = { ++p->seq, stack_id(w, ev->b, g->prog) };
	put(w, th, ev->ts, T122_GO_SYSCALL_BEGIN, a, 2);
	p->status = P_SYSCALL;
	g->status = G_SYSCALL;
	g->sysp = w->thr[th].p;
	w->st.syscalls++;
}

/* g's system call lost its P: taken by thread th (sysmon's retake, the
 * hand-off at entry on its own thread, or an M back from its own call). */
static void on_syscall_block(struct w *w, const struct rt_tev *ev, int th)
{
	int p = ev->p;
	struct gst *g = gget(w, ev->g);
	if (!is_p(w, p) || !g || g->status != G_SYSCALL || w->ps[p].status != P_SYSCALL ||
	    w->ps[p].m != g->m) {
		w->st.dropped++;
		return;
	}
	steal(w, th, p, g->m, ev->ts);
}

static void on_syscall_exit(struct w *w, const struct rt_tev *ev, int th)
{
	int64_t ts = ev->ts;
	struct gst *g = gget(w, ev->g);
	if (!g || g->status != G_SYSCALL || g->m != th) {
		w->st.dropped++;
		return;
	}
	struct thr *h = &w->thr[th];
	bool kept = h->p >= 0 && h->p == g->sysp && w->ps[h->p].status == P_SYSCALL;
	if (kept && ev->p == g->sysp) {
		put(w, th, ts, T122_GO_SYSCALL_END, NULL, 0);
		w->ps[h->p].status = P_RUNNING;
		g->status = G_RUNNING;
		return;
	}
	if (kept) {
		/* back on another P before its own was seen taken (natively,
		 * a race of clock reads) */
		steal(w, th, h->p, th, ts);
		w->st.repaired++;
	}
	if (is_p(w, ev->p))
		take_p(w, th, ev->p, ts);
	syscall_end_blocked(w, th, g, ev->p, ts);
}

static void on_steal(struct w *w, const struct rt_tev *ev, int th)
{
	char msg[160];
	snprintf(msg, sizeof(msg), "P%d stole %" PRIu64 " Gs from P%" PRIu64, ev->p, ev->b, ev->a);
	user_log(w, th, ev->ts, CAT_STEAL, msg);
}

static void on_global_take(struct w *w, const struct rt_tev *ev, int th)
{
	char msg[160];
	snprintf(msg, sizeof(msg), "P%d took %" PRIu64 " Gs from the global queue (%s)", ev->p, ev->b,
		 ev->a < sizeof(global_why) / sizeof(global_why[0]) && global_why[ev->a]
		 ? global_why[ev->a] : "other");
	user_log(w, th, ev->ts, CAT_GLOBRUNQ, msg);
}

static void on_place(struct w *w, const struct rt_tev *ev, int th)
{
	char msg[160];
	snprintf(msg, sizeof(msg), "G%" PRIu64 " placed on P%" PRIu64 " (node %" PRIu64 ") by P%d",
		 ev->g, ev->a, ev->b, ev->p);
	user_log(w, th, ev->ts, CAT_PLACE, msg);
}

/* A request's arrival, recorded when its G begins handling it (so it
 * may come before the G's creation): kept until then. */
static void on_req_begin(struct w *w, const struct rt_tev *ev, int th)
{
	struct gst *g = gget(w, ev->g);
	if (!g)
		g = gnew(w, ev->g, 0);
	if (g->narr == g->caparr) {
		g->caparr = g->caparr ? g->caparr * 2 : 2;
		g->arr = xrealloc(g->arr, g->caparr * sizeof(*g->arr));
	}
	g->arr[g->narr++] = (struct arrival){ .a = ev->a, .ts = ev->ts };
}

/* Its handling: the task begins (Go's format has a running G begin a
 * task), with the time it waited since it arrived, and the handling is
 * a region of it. */
static void on_req_handle(struct w *w, const struct rt_tev *ev, int th)
{
	struct gst *g = running_here(w, th, ev->g);
	if (!g)
		return;
	if (g->task) {
		w->st.dropped++;
		return;
	}
	int64_t arrived = -1;
	for (size_t i = 0; i < g->narr; i++) {
		if (g->arr[i].a != ev->a)
			continue;
		arrived = g->arr[i].ts;
		g->arr[i] = g->arr[--g->narr];
		break;
	}
	uint64_t stk = stack_prog(w, g->prog), name = str_fixed(w, S_REQUEST);
	g->task = ++w->task_next;
	g->task_a = ev->a;
	uint64_t a[4] = { g->task, 0, name, stk };
	put(w, th, ev->ts, T122_USER_TASK_BEGIN, a, 4);
	w->st.tasks++;
	if (arrived >= 0) {
		char msg[96];
		snprintf(msg, sizeof(msg), "arrived %" PRId64 " ns before its handling began",
			 ev->ts > arrived ? ev->ts - arrived : 0);
		uint64_t l[4] = { g->task, str_fixed(w, S_ARRIVAL), str_msg(w, msg), stk };
		put(w, th, ev->ts, T122_USER_LOG, l, 4);
	}
	uint64_t r[3] = { g->task, name, stk };
	put(w, th, ev->ts, T122_USER_REGION_BEGIN, r, 3);
}

static void on_req_end(struct w *w, const struct rt_tev *ev, int th)
{
	struct gst *g = running_here(w, th, ev->g);
	if (!g)
		return;
	if (!g->task || g->task_a != ev->a) {
		w->st.dropped++;
		return;
	}
	uint64_t stk = stack_prog(w, g->prog);
	uint64_t r[3] = { g->task, str_fixed(w, S_REQUEST), stk };
	put(w, th, ev->ts, T122_USER_REGION_END, r, 3);
	uint64_t a[2] = { g->task, stk };
	put(w, th, ev->ts, T122_USER_TASK_END, a, 2);
	g->task = 0;
}

/* Each kind of the run's events as Go's format shows it; the kinds not
 * here (run-queue lengths, spinning) have nothing of the format's. */
typedef void write_fn(struct w *w, const struct rt_tev *ev, int th);
static write_fn *const writers[RT_TEV_KINDS] = {
	[RT_TEV_PROCS] = on_procs,
	[RT_TEV_P_START] = on_p_start,
	[RT_TEV_P_STOP] = on_p_stop,
	[RT_TEV_G_CREATE] = on_g_create,
	[RT_TEV_G_START] = on_g_start,
	[RT_TEV_G_END] = on_g_end,
	[RT_TEV_G_YIELD] = on_g_yield,
	[RT_TEV_G_PREEMPT] = on_g_yield,
	[RT_TEV_G_BLOCK] = on_g_block,
	[RT_TEV_G_UNBLOCK] = on_g_unblock,
	[RT_TEV_SYSCALL] = on_syscall,
	[RT_TEV_SYSCALL_BLOCK] = on_syscall_block,
	[RT_TEV_SYSCALL_EXIT] = on_syscall_exit,
	[RT_TEV_STEAL] = on_steal,
	[RT_TEV_GLOBAL_TAKE] = on_global_take,
	[RT_TEV_PLACE] = on_place,
	[RT_TEV_REQ_BEGIN] = on_req_begin,
	[RT_TEV_REQ_HANDLE] = on_req_handle,
	[RT_TEV_REQ_END] = on_req_end,
};

static void one(struct w *w, const struct rt_tev *ev)
{
	if (ev->kind >= RT_TEV_KINDS || !writers[ev->kind])
		return;
	if (!w->gen) {
		gen_begin(w, ev->ts);
	} else if (ev->ts - w->gen_ts >= w->gen_ns || w->gen_bytes >= w->gen_max) {
		gen_end(w);
		gen_begin(w, ev->ts);
	}
	int th = ev->m >= 0 && ev->m < w->t->ms ? ev->m : w->rtthr;
	writers[ev->kind](w, ev, th);
}

bool trace_write_go122_opts(FILE *f, const struct rt_trace *t, const struct trace_go122_opts *o,
			    struct trace_go_stats *st, struct err *e)
{
	struct w w = { .t = t, .f = f, .ok = true };
	w.gen_ns = o && o->gen_ns > 0 ? o->gen_ns : GEN_NS;
	w.gen_max = o && o->gen_bytes > 0 ? o->gen_bytes : GEN_BYTES;
	w.nthr = t->ms + 1;
	w.rtthr = t->ms;
	w.thr = xcalloc((size_t)w.nthr, sizeof(*w.thr));
	for (int i = 0; i < w.nthr; i++)
		w.thr[i].p = -1;
	w.ps = xcalloc((size_t)(t->procs > 0 ? t->procs : 1), sizeof(*w.ps));
	for (int p = 0; p < t->procs; p++)
		w.ps[p] = (struct pst){ .status = P_IDLE, .m = -1 };
	w.frame_sid = xcalloc(t->nlabels + RF__COUNT, sizeof(*w.frame_sid));

	static const char header[16] = "go 1.22 trace\0\0\0";
	out(&w, header, sizeof(header));
	for (size_t i = 0; i < t->n; i++)
		one(&w, &t->ev[i]);
	if (!w.gen)   /* no event: the Ps alone, as the reader needs a generation */
		gen_begin(&w, 0);
	gen_end(&w);
	for (int i = 0; i < w.nthr; i++) {
		w.st.logs_left += w.thr[i].nlogs;
		for (size_t k = 0; k < w.thr[i].nlogs; k++)
			free(w.thr[i].logs[k].msg);
		free(w.thr[i].logs);
		by_free(&w.thr[i].b);
	}
	for (size_t i = 0; i < w.ngs; i++)
		free(w.gs[i].arr);
	bool ok = w.ok;
	if (!ok)
		err_set(e, "%s", strerror(errno ? errno : EIO));
	if (st)
		*st = w.st;
	free(w.thr);
	free(w.ps);
	free(w.gs);
	um_free(&w.gidx);
	free(w.pending);
	free(w.frame_sid);
	by_free(&w.strings);
	by_free(&w.stacks);
	free(w.msgs.v);
	by_free(&w.msgs.text);
	um_free(&w.stk);
	return ok;
}

bool trace_write_go122(FILE *f, const struct rt_trace *t, struct err *e)
{
	return trace_write_go122_opts(f, t, NULL, NULL, e);
}
