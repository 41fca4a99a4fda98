/* A run's trace (core/trace.h) as Chrome's JSON trace-event format, for
 * ui.perfetto.dev and chrome://tracing.
 *
 * Layout of what a viewer shows:
 *   process 0 "Scheduler": the counters of the whole run (the global
 *     queue's length, spinning Ms, GOMAXPROCS) and one track, "runtime",
 *     for what happens on no P (a timer's or the poller's wake-up, a
 *     placement made outside a P);
 *   process 1 "Ps": a track per P, with a complete slice ("X") per G run
 *     on it -- named by the G's program and goid, with why it stopped --,
 *     instants for blocks, steals, global-queue takes, placements and
 *     system calls, and a counter per P of its run queue's length;
 *   process 2 "Ms": a track per M, with a slice per P it held.
 * Flows ("s" to "f") join a waker's slice to the woken G's next run
 * (bound to the slice enclosing the end: "bp":"e"), and a steal's victim
 * P to the thief's next slice (the default binding, "next slice").
 * Timestamps are microseconds with three decimals: nanoseconds exactly.
 *
 * Streamed, not built as a cJSON tree: a trace holds millions of events,
 * and a tree of them would take hundreds of bytes per event.  Everything
 * written is a fixed key or a number, except the labels (the workload's
 * program and op names) and the mode, which are escaped once each:
 * str_escape (control bytes, invalid UTF-8), then cJSON's printer for
 * JSON's own quoting, so every string still goes through cJSON.  The
 * output depends on the trace only: the same trace gives the same bytes. */
#include "trace/trace.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { PID_SCHED = 0, PID_PS = 1, PID_MS = 2 };

/* A G as the writer follows it. */
struct gstate {
	uint64_t goid;           /* 0: an empty slot */
	uint64_t label;          /* its program */
	int run_p;               /* the P it runs on, -1 if none */
	int64_t wake_ts;         /* a wake-up waiting for its next run, if wake_p >= 0 */
	int wake_p;
};

struct open_run {
	uint64_t goid;           /* 0: the P runs no G */
	int64_t ts;
	int m;
};

struct open_hold {
	int p;                   /* -1: the M holds no P */
	int64_t ts;
};

struct cw {
	FILE *f;
	const struct rt_trace *t;
	char **labels;           /* escaped, without quotes */
	char *mode;              /* ... the mode's, with its quotes */
	struct gstate *gs;       /* open addressing by goid */
	size_t gcap, gcount;
	struct open_run *runs;   /* [procs] */
	struct open_hold *holds; /* [ms] */
	int *holder;             /* [procs]: the M holding it, -1 */
	uint64_t flows;
	bool first;
};

/* A string as a JSON literal: str_escape, then cJSON's quoting. */
static char *json_literal(const char *s)
{
	char *clean = str_escape(s ? s : "");
	cJSON *j = cJSON_CreateString(clean);
	free(clean);
	if (!j)
		die_oom(strlen(s ? s : "") + 16);
	char *out = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	if (!out)
		die_oom(strlen(s ? s : "") * 6 + 16);
	return out;
}

/* ... without its quotes, for names made of several parts. */
static char *json_inner(const char *s)
{
	char *lit = json_literal(s);
	size_t n = strlen(lit);
	memmove(lit, lit + 1, n - 2);
	lit[n - 2] = '\0';
	return lit;
}

static const char *label(const struct cw *w, uint64_t i)
{
	return i < w->t->nlabels ? w->labels[i] : "";
}

/* ns as microseconds with three decimals. */
static void put_us(FILE *f, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	fprintf(f, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
}

/* Starts an event: the separator, then {"ph":..,"pid":..,"tid":..,"ts":.. */
static void ev_begin(struct cw *w, const char *ph, int pid, int tid, int64_t ts)
{
	FILE *f = w->f;
	fputs(w->first ? "\n" : ",\n", f);
	w->first = false;
	fprintf(f, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", ph, pid, tid);
	put_us(f, ts);
}

static int valid_p(const struct cw *w, int32_t p)
{
	return p >= 0 && p < w->t->procs ? p : -1;
}

static int valid_m(const struct cw *w, int32_t m)
{
	return m >= 0 && m < w->t->ms ? m : -1;
}

/* ---- Gs by goid ---- */

static size_t g_slot(const struct cw *w, uint64_t goid)
{
	uint64_t h = goid * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 20) & (w->gcap - 1);
	while (w->gs[i].goid && w->gs[i].goid != goid)
		i = (i + 1) & (w->gcap - 1);
	return i;
}

/* g's state, made if new (which may move every other G's). */
static struct gstate *g_get(struct cw *w, uint64_t goid)
{
	if (w->gcap) {
		struct gstate *g = &w->gs[g_slot(w, goid)];
		if (g->goid == goid)
			return g;
	}
	if ((w->gcount + 1) * 2 > w->gcap) {
		struct gstate *old = w->gs;
		size_t oldcap = w->gcap;
		w->gcap = oldcap ? oldcap * 2 : 1024;
		w->gs = xcalloc(w->gcap, sizeof(*w->gs));
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].goid)
				w->gs[g_slot(w, old[i].goid)] = old[i];
		free(old);
	}
	size_t i = g_slot(w, goid);
	struct gstate *g = &w->gs[i];
	if (!g->goid) {
		g->goid = goid;
		g->run_p = -1;
		g->wake_p = -1;
		w->gcount++;
	}
	return g;
}

/* ---- What each event becomes ---- */

static const char *const block_names[] = {
	[RT_TB_CHAN_SEND] = "chan send", [RT_TB_CHAN_RECV] = "chan receive",
	[RT_TB_SELECT] = "select", [RT_TB_SYNC] = "sync", [RT_TB_SLEEP] = "sleep",
	[RT_TB_NET] = "network", [RT_TB_OTHER] = "other",
};
static const char *const wake_names[] = {
	[RT_TW_CHAN] = "chan", [RT_TW_TIMER] = "timer", [RT_TW_NET] = "network",
	[RT_TW_SYSCALL] = "syscall", [RT_TW_OTHER] = "other",
};
static const char *const global_names[] = {
	[RT_TG_FAIRNESS] = "fairness", [RT_TG_EMPTY_LOCAL] = "empty local queue",
	[RT_TG_OTHER] = "other", [RT_TG_ONLY] = "the only queue",
	[RT_TG_STEAL] = "another node's queue", [RT_TG_IDLE] = "last look before idle",
};

#define NAME_OF(tab, i) ((i) < sizeof(tab) / sizeof(tab[0]) && tab[i] ? tab[i] : "unknown")

/* The G running on P p ends its run at ts, for why (a fixed string) and
 * maybe a block's reason and op. */
static void run_close(struct cw *w, int p, int64_t ts, const char *why, const char *reason,
		      uint64_t op)
{
	struct open_run *r = &w->runs[p];
	if (!r->goid)
		return;
	struct gstate *g = g_get(w, r->goid);
	ev_begin(w, "X", PID_PS, p, r->ts);
	fputs(",\"dur\":", w->f);
	put_us(w->f, ts - r->ts);
	fprintf(w->f, ",\"cat\":\"run\",\"name\":\"%s%sG%" PRIu64 "\",\"args\":{\"goid\":%" PRIu64
		",\"m\":%d,\"stop\":\"%s\"",
		label(w, g->label), *label(w, g->label) ? " " : "", r->goid, r->goid, r->m, why);
	if (reason)
		fprintf(w->f, ",\"reason\":\"%s\"", reason);
	if (op)
		fprintf(w->f, ",\"op\":\"%s\"", label(w, op));
	fputs("}}", w->f);
	g->run_p = -1;
	r->goid = 0;
}

/* g stops running, wherever it runs. */
static void g_stop(struct cw *w, const struct rt_tev *ev, const char *why, const char *reason,
		   uint64_t op)
{
	struct gstate *g = g_get(w, ev->g);
	int p = g->run_p >= 0 ? g->run_p : valid_p(w, ev->p);
	if (p >= 0 && w->runs[p].goid == ev->g)
		run_close(w, p, ev->ts, why, reason, op);
}

static void hold_close(struct cw *w, int m, int64_t ts)
{
	struct open_hold *h = &w->holds[m];
	if (h->p < 0)
		return;
	ev_begin(w, "X", PID_MS, m, h->ts);
	fputs(",\"dur\":", w->f);
	put_us(w->f, ts - h->ts);
	fprintf(w->f, ",\"cat\":\"p\",\"name\":\"P%d\",\"args\":{\"p\":%d}}", h->p, h->p);
	if (w->holder[h->p] == m)
		w->holder[h->p] = -1;
	h->p = -1;
}

/* An instant of category cat on P p's track, or on the runtime's if p is
 * -1: fmt writes its name (the opening quote written here, the closing
 * one fmt's) and its args; the event is closed here. */
static void instant(struct cw *w, int p, int64_t ts, const char *cat, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void instant(struct cw *w, int p, int64_t ts, const char *cat, const char *fmt, ...)
{
	ev_begin(w, "i", p >= 0 ? PID_PS : PID_SCHED, p >= 0 ? p : 0, ts);
	fprintf(w->f, ",\"s\":\"t\",\"cat\":\"%s\",\"name\":\"", cat);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(w->f, fmt, ap);
	va_end(ap);
	fputs("}", w->f);
}

static void counter(struct cw *w, int pid, int64_t ts, const char *name, int p,
		    const char *key, uint64_t v)
{
	ev_begin(w, "C", pid, 0, ts);
	if (p >= 0)
		fprintf(w->f, ",\"name\":\"%s P%d\"", name, p);
	else
		fprintf(w->f, ",\"name\":\"%s\"", name);
	fprintf(w->f, ",\"args\":{\"%s\":%" PRIu64 "}}", key, v);
}

static void flow(struct cw *w, const char *cat, int from_p, int64_t from_ts, int to_p,
		 int64_t to_ts, bool enclosing)
{
	uint64_t id = ++w->flows;
	ev_begin(w, "s", PID_PS, from_p, from_ts);
	fprintf(w->f, ",\"cat\":\"%s\",\"name\":\"%s\",\"id\":%" PRIu64 "}", cat, cat, id);
	ev_begin(w, "f", PID_PS, to_p, to_ts);
	fprintf(w->f, ",\"cat\":\"%s\",\"name\":\"%s\",\"id\":%" PRIu64 "%s}", cat, cat, id,
		enclosing ? ",\"bp\":\"e\"" : "");
}

static void draw_procs(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	counter(w, PID_SCHED, ev->ts, "GOMAXPROCS", -1, "procs", ev->a);
}

static void draw_p_start(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	if (p < 0 || m < 0)
		return;
	if (w->holder[p] >= 0)
		hold_close(w, w->holder[p], ev->ts);
	hold_close(w, m, ev->ts);
	w->holds[m] = (struct open_hold){ p, ev->ts };
	w->holder[p] = m;
}

static void draw_p_stop(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	if (p < 0)
		return;
	if (m < 0 || w->holds[m].p != p)
		m = w->holder[p];
	if (m >= 0)
		hold_close(w, m, ev->ts);
}

static void draw_g_create(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	struct gstate *g = g_get(w, ev->g);
	g->label = ev->b;
	instant(w, p, ev->ts, "g", "create G%" PRIu64 "\",\"args\":{\"goid\":%" PRIu64
		",\"by\":%" PRIu64 ",\"program\":\"%s\"}",
		ev->g, ev->g, ev->a, label(w, ev->b));
}

static void draw_g_start(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	if (p < 0)
		return;
	struct gstate *g = g_get(w, ev->g);
	if (g->run_p >= 0)   /* never stopped: a broken trace, closed here */
		run_close(w, g->run_p, ev->ts, "unknown", NULL, 0);
	run_close(w, p, ev->ts, "unknown", NULL, 0);
	g = g_get(w, ev->g);
	w->runs[p] = (struct open_run){ ev->g, ev->ts, m };
	g->run_p = p;
	if (g->wake_p >= 0) {
		flow(w, "wake", g->wake_p, g->wake_ts, p, ev->ts, true);
		g->wake_p = -1;
	}
}

static void draw_g_end(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	g_stop(w, ev, "end", NULL, 0);
}

static void draw_g_yield(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	g_stop(w, ev, "yield", NULL, 0);
}

static void draw_g_preempt(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	g_stop(w, ev, "preempted", NULL, 0);
}

static void draw_g_block(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	const char *why = NAME_OF(block_names, ev->a);
	g_stop(w, ev, "block", why, ev->b);
	instant(w, p, ev->ts, "block", "block G%" PRIu64 "\",\"args\":{\"goid\":%" PRIu64
		",\"reason\":\"%s\",\"op\":\"%s\"}", ev->g, ev->g, why, label(w, ev->b));
}

static void draw_g_unblock(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	struct gstate *g = g_get(w, ev->g);
	/* the flow leaves from the waker's slice, on the P it runs on */
	g->wake_p = p;
	g->wake_ts = ev->ts;
	instant(w, p, ev->ts, "wake", "unblock G%" PRIu64 "\",\"args\":{\"goid\":%" PRIu64
		",\"by\":%" PRIu64 ",\"reason\":\"%s\"}",
		ev->g, ev->g, ev->a, NAME_OF(wake_names, ev->b));
}

static void draw_syscall(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	instant(w, p, ev->ts, "syscall", "syscall G%" PRIu64 "\",\"args\":{\"goid\":%" PRIu64
		",\"op\":\"%s\"}", ev->g, ev->g, label(w, ev->b));
}

static void draw_syscall_block(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	/* the G keeps its M but gives up the P: its run on the P ends */
	g_stop(w, ev, "syscall", NULL, 0);
	instant(w, p, ev->ts, "syscall", "syscall blocks G%" PRIu64
		"\",\"args\":{\"goid\":%" PRIu64 "}", ev->g, ev->g);
}

static void draw_syscall_exit(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	instant(w, p, ev->ts, "syscall", "syscall exit G%" PRIu64
		"\",\"args\":{\"goid\":%" PRIu64 "}", ev->g, ev->g);
}

static void draw_steal(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	int victim = valid_p(w, (int32_t)ev->a);
	instant(w, p, ev->ts, "steal", "steal %" PRIu64 " from P%d\",\"args\":{\"from\":%d"
		",\"gs\":%" PRIu64 "}", ev->b, victim, victim, ev->b);
	if (p >= 0 && victim >= 0)
		flow(w, "steal", victim, ev->ts, p, ev->ts, false);
}

static void draw_global_take(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	instant(w, p, ev->ts, "global", "global take %" PRIu64 "\",\"args\":{\"gs\":%" PRIu64
		",\"reason\":\"%s\"}", ev->b, ev->b, NAME_OF(global_names, ev->a));
}

static void draw_place(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	instant(w, p, ev->ts, "place", "place G%" PRIu64 " on P%" PRIu64
		"\",\"args\":{\"goid\":%" PRIu64 ",\"to\":%" PRIu64 ",\"node\":%" PRIu64 "}",
		ev->g, ev->a, ev->g, ev->a, ev->b);
}

static void draw_runq(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	if (p >= 0)
		counter(w, PID_PS, ev->ts, "runq", p, "len", ev->a);
	else
		counter(w, PID_SCHED, ev->ts, "global runq", -1, "len", ev->a);
}

static void draw_spinning(struct cw *w, const struct rt_tev *ev, int p, int m)
{
	counter(w, PID_SCHED, ev->ts, "spinning Ms", -1, "Ms", ev->a);
}

/* Each kind of the run's events as the trace-event format draws it, given
 * its P and M (-1 where the event names none the trace has); a kind
 * added after this writer is left out. */
typedef void draw_fn(struct cw *w, const struct rt_tev *ev, int p, int m);
static draw_fn *const drawers[RT_TEV_KINDS] = {
	[RT_TEV_PROCS] = draw_procs,
	[RT_TEV_P_START] = draw_p_start,
	[RT_TEV_P_STOP] = draw_p_stop,
	[RT_TEV_G_CREATE] = draw_g_create,
	[RT_TEV_G_START] = draw_g_start,
	[RT_TEV_G_END] = draw_g_end,
	[RT_TEV_G_YIELD] = draw_g_yield,
	[RT_TEV_G_PREEMPT] = draw_g_preempt,
	[RT_TEV_G_BLOCK] = draw_g_block,
	[RT_TEV_G_UNBLOCK] = draw_g_unblock,
	[RT_TEV_SYSCALL] = draw_syscall,
	[RT_TEV_SYSCALL_BLOCK] = draw_syscall_block,
	[RT_TEV_SYSCALL_EXIT] = draw_syscall_exit,
	[RT_TEV_STEAL] = draw_steal,
	[RT_TEV_GLOBAL_TAKE] = draw_global_take,
	[RT_TEV_PLACE] = draw_place,
	[RT_TEV_RUNQ] = draw_runq,
	[RT_TEV_SPINNING] = draw_spinning,
};

static void event(struct cw *w, const struct rt_tev *ev)
{
	int p = valid_p(w, ev->p), m = valid_m(w, ev->m);
	if (ev->g == 0 && ev->kind >= RT_TEV_G_CREATE && ev->kind <= RT_TEV_SYSCALL_EXIT)
		return;   /* a G's event without a G: nothing to draw */
	if (ev->kind < RT_TEV_KINDS && drawers[ev->kind])
		drawers[ev->kind](w, ev, p, m);
}

static void meta(struct cw *w, int pid, int tid, const char *what, const char *name, int sort)
{
	FILE *f = w->f;
	fputs(w->first ? "\n" : ",\n", f);
	w->first = false;
	fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s_name\","
		   "\"args\":{\"name\":\"%s\"}},\n", pid, tid, what, name);
	fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s_sort_index\","
		   "\"args\":{\"sort_index\":%d}}", pid, tid, what, sort);
}

bool trace_write_chrome(FILE *f, const struct rt_trace *t, struct err *e)
{
	struct cw w = { .f = f, .t = t, .first = true };
	int procs = t->procs > 0 ? t->procs : 0, ms = t->ms > 0 ? t->ms : 0;
	w.labels = xcalloc(t->nlabels + 1, sizeof(*w.labels));
	for (size_t i = 0; i < t->nlabels; i++)
		w.labels[i] = json_inner(t->labels[i]);
	w.mode = json_literal(t->mode ? t->mode : "");
	w.runs = xcalloc((size_t)procs + 1, sizeof(*w.runs));
	w.holder = xmalloc(((size_t)procs + 1) * sizeof(*w.holder));
	for (int i = 0; i < procs; i++)
		w.holder[i] = -1;
	w.holds = xmalloc(((size_t)ms + 1) * sizeof(*w.holds));
	for (int i = 0; i < ms; i++)
		w.holds[i] = (struct open_hold){ -1, 0 };

	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"schedlab\",\"mode\":%s,"
		   "\"procs\":%d,\"ms\":%d,\"end_ns\":%" PRId64 "},\"traceEvents\":[",
		w.mode, t->procs, t->ms, t->end_ns);
	meta(&w, PID_SCHED, 0, "process", "Scheduler", 0);
	meta(&w, PID_SCHED, 0, "thread", "runtime", 0);
	meta(&w, PID_PS, 0, "process", "Ps", 1);
	for (int i = 0; i < procs; i++) {
		char name[32];
		snprintf(name, sizeof(name), "P%d", i);
		meta(&w, PID_PS, i, "thread", name, i);
	}
	meta(&w, PID_MS, 0, "process", "Ms", 2);
	for (int i = 0; i < ms; i++) {
		char name[32];
		snprintf(name, sizeof(name), "M%d", i);
		meta(&w, PID_MS, i, "thread", name, i);
	}
	for (size_t i = 0; i < t->n; i++)
		event(&w, &t->ev[i]);
	/* What still runs at the end is cut there, in P then M order. */
	int64_t end = t->end_ns;
	for (int i = 0; i < procs; i++)
		if (w.runs[i].goid)
			run_close(&w, i, end > w.runs[i].ts ? end : w.runs[i].ts, "running at the end",
				  NULL, 0);
	for (int i = 0; i < ms; i++)
		if (w.holds[i].p >= 0)
			hold_close(&w, i, end > w.holds[i].ts ? end : w.holds[i].ts);
	fputs("\n]}\n", f);

	for (size_t i = 0; i < t->nlabels; i++)
		free(w.labels[i]);
	free(w.labels);
	free(w.mode);
	free(w.gs);
	free(w.runs);
	free(w.holder);
	free(w.holds);
	if (fflush(f) != 0 || ferror(f)) {
		err_set(e, "cannot write the trace: %s", strerror(errno ? errno : EIO));
		return false;
	}
	return true;
}
