/* The Go 1.11-1.20 execution-trace reader ("go 1.11 trace" and "go 1.19
 * trace" headers: one layout; 1.19 added only EvCPUSample), as the
 * stream of trace/import.h.
 *
 * The format is described in trace/go.c, the writer.  What matters here:
 * events are written in per-P batches (EvBatch [P, ticks]), each event's
 * first value the ticks since the batch's previous one; the G an event is
 * about is implicit (the last G started in that P's batches); batches of
 * different Ps are interleaved in the file as the runtime flushed them.
 * The order across Ps comes from timestamps and from the sequence numbers
 * that EvGoStart, EvGoUnblock and EvGoSysExit carry for their G.
 *
 * To read a trace of any length in bounded memory the reader makes two
 * passes over the file.  The first checks every event's framing and keeps
 * what the structure needs: the offset and P of each batch, the string
 * table, the first frame of each stack, the tick frequency (written last).
 * The second reads each P's batches in sequence through its own window
 * on the file and merges the Ps: at each step, of the Ps whose next event
 * is consistent with its G's state, the one with the earliest timestamp.
 * When no P's next event can go, the trace is inconsistent (as Go's own
 * parser says, "no consistent ordering").  So memory is the batch index
 * (16 bytes per batch, a batch being up to 64 KiB of trace), the strings
 * and stacks, the live Gs' states, and a 16 KiB window per P. */
#include "trace/import.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/u64map.h"
#include "util/util.h"

enum {
	EV_NONE = 0, EV_BATCH = 1, EV_FREQUENCY = 2, EV_STACK = 3, EV_GOMAXPROCS = 4,
	EV_PROC_START = 5, EV_PROC_STOP = 6, EV_GC_START = 7, EV_GC_DONE = 8,
	EV_GC_STW_START = 9, EV_GC_STW_DONE = 10, EV_GC_SWEEP_START = 11, EV_GC_SWEEP_DONE = 12,
	EV_GO_CREATE = 13, EV_GO_START = 14, EV_GO_END = 15, EV_GO_STOP = 16, EV_GO_SCHED = 17,
	EV_GO_PREEMPT = 18, EV_GO_SLEEP = 19, EV_GO_BLOCK = 20, EV_GO_UNBLOCK = 21,
	EV_GO_BLOCK_SEND = 22, EV_GO_BLOCK_RECV = 23, EV_GO_BLOCK_SELECT = 24,
	EV_GO_BLOCK_SYNC = 25, EV_GO_BLOCK_COND = 26, EV_GO_BLOCK_NET = 27, EV_GO_SYSCALL = 28,
	EV_GO_SYSEXIT = 29, EV_GO_SYSBLOCK = 30, EV_GO_WAITING = 31, EV_GO_INSYSCALL = 32,
	EV_HEAP_ALLOC = 33, EV_HEAP_GOAL = 34, EV_TIMER_GOROUTINE = 35, EV_FUTILE_WAKEUP = 36,
	EV_STRING = 37, EV_GO_START_LOCAL = 38, EV_GO_UNBLOCK_LOCAL = 39,
	EV_GO_SYSEXIT_LOCAL = 40, EV_GO_START_LABEL = 41, EV_GO_BLOCK_GC = 42,
	EV_GC_MARK_ASSIST_START = 43, EV_GC_MARK_ASSIST_DONE = 44, EV_USER_TASK_CREATE = 45,
	EV_USER_TASK_END = 46, EV_USER_REGION = 47, EV_USER_LOG = 48, EV_CPU_SAMPLE = 49,
	EV_COUNT = 50,
};

/* Values each event carries in the 1.11/1.19 layout (timestamp delta and
 * stack id included); -1: not an event of the layout; EvStack: any. */
static const int8_t nargs[EV_COUNT] = {
	[EV_NONE] = -1, [EV_BATCH] = 2, [EV_FREQUENCY] = 1, [EV_STACK] = 99,
	[EV_GOMAXPROCS] = 3, [EV_PROC_START] = 2, [EV_PROC_STOP] = 1, [EV_GC_START] = 3,
	[EV_GC_DONE] = 1, [EV_GC_STW_START] = 2, [EV_GC_STW_DONE] = 1, [EV_GC_SWEEP_START] = 2,
	[EV_GC_SWEEP_DONE] = 3, [EV_GO_CREATE] = 4, [EV_GO_START] = 3, [EV_GO_END] = 1,
	[EV_GO_STOP] = 2, [EV_GO_SCHED] = 2, [EV_GO_PREEMPT] = 2, [EV_GO_SLEEP] = 2,
	[EV_GO_BLOCK] = 2, [EV_GO_UNBLOCK] = 4, [EV_GO_BLOCK_SEND] = 2, [EV_GO_BLOCK_RECV] = 2,
	[EV_GO_BLOCK_SELECT] = 2, [EV_GO_BLOCK_SYNC] = 2, [EV_GO_BLOCK_COND] = 2,
	[EV_GO_BLOCK_NET] = 2, [EV_GO_SYSCALL] = 2, [EV_GO_SYSEXIT] = 4, [EV_GO_SYSBLOCK] = 1,
	[EV_GO_WAITING] = 2, [EV_GO_INSYSCALL] = 2, [EV_HEAP_ALLOC] = 2, [EV_HEAP_GOAL] = 2,
	[EV_TIMER_GOROUTINE] = 1, [EV_FUTILE_WAKEUP] = 1, [EV_STRING] = 99,
	[EV_GO_START_LOCAL] = 2, [EV_GO_UNBLOCK_LOCAL] = 3, [EV_GO_SYSEXIT_LOCAL] = 3,
	[EV_GO_START_LABEL] = 4, [EV_GO_BLOCK_GC] = 2, [EV_GC_MARK_ASSIST_START] = 2,
	[EV_GC_MARK_ASSIST_DONE] = 1, [EV_USER_TASK_CREATE] = 5, [EV_USER_TASK_END] = 3,
	[EV_USER_REGION] = 5, [EV_USER_LOG] = 4, [EV_CPU_SAMPLE] = 5,
};

#define MAXARGS 8
#define WINDOW 16384
#define MAX_STRING 1000000

/* ---- A window on the file ---- */

struct win {
	int fd;
	uint64_t base;      /* file offset of buf[0] */
	size_t len, i;
	uint8_t buf[WINDOW];
};

static void win_seek(struct win *w, uint64_t off)
{
	w->base = off;
	w->len = w->i = 0;
}

static uint64_t win_off(const struct win *w)
{
	return w->base + w->i;
}

/* 1: a byte; 0: end of file; -1: read error (errno). */
static int win_byte(struct win *w, uint8_t *b)
{
	if (w->i == w->len) {
		w->base += w->len;
		w->i = w->len = 0;
		ssize_t n;
		do
			n = pread(w->fd, w->buf, sizeof w->buf, (off_t)w->base);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		w->len = (size_t)n;
	}
	*b = w->buf[w->i++];
	return 1;
}

/* ---- The reader ---- */

struct r19_event {
	uint8_t type;
	uint8_t n;
	uint64_t off;
	uint64_t g;         /* the P's current G when the event was written */
	int64_t ticks;
	uint64_t a[MAXARGS];
};

struct stream {
	int32_t p;
	uint64_t *batches;  /* offsets of its batches, in file order */
	size_t nb, cb, next;
	uint64_t end;       /* where the current batch ends */
	int64_t ticks;
	uint64_t lastg;
	bool has_head, done;
	struct r19_event head;
	struct win w;
};

struct r19 {
	struct ti_reader base;
	char *path;
	int fd;
	uint64_t size;
	int minor;
	int64_t freq;       /* ticks per second */
	/* Batches in file order: offset and P. */
	uint64_t *boff;
	int64_t *bp;
	size_t nbatch, cbatch;
	struct u64map strings;     /* id -> index in strs */
	char **strs;
	size_t nstrs, cstrs;
	struct u64map stacks;      /* id -> string id of the first frame's function */
	/* Where a G blocked, for the importer's shared objects [import.c:
	 * Channels]: by (stack id, frame), a stack's first TI_SITE_FRAMES
	 * frames as (function string id, line); the sites made of them
	 * (trace/import.h), by that pair */
	struct u64map stack_site;
	struct u64map site_idx;
	char **sites;
	size_t nsites, csites;
	struct stream *st;
	size_t nst;
	struct u64map gs;          /* g -> seq << 2 | status */
	bool started;
	int64_t t0;                /* ticks of the first event */
	int64_t last_ticks;
	/* Events made and not yet given out (at most a few per raw event). */
	struct ti_event q[4];
	int qh, qn;
};

enum { GDEAD, GRUNNABLE, GRUNNING, GWAITING };

static const char *r19_string(const struct r19 *r, uint64_t id)
{
	const uint64_t *i = um_get(&r->strings, id);
	return i ? r->strs[*i] : NULL;
}

/* stack_site's keys hold a frame's index in 4 bits */
_Static_assert(TI_SITE_FRAMES <= 16, "TI_SITE_FRAMES frames of a stack in 4 bits");

/* The site of a block's stack [struct r19: stack_site], NULL if none. */
static const char *r19_site(struct r19 *r, uint64_t stack)
{
	if (stack >> 59)
		return NULL;
	for (uint64_t i = 0; i < TI_SITE_FRAMES; i++) {
		const uint64_t *fl = um_get(&r->stack_site, stack << 4 | i);
		if (!fl)
			return NULL;
		const char *fn = r19_string(r, *fl >> 24);
		if (!fn || ti_library_fn(fn))
			continue;
		const uint64_t *k = um_get(&r->site_idx, *fl);
		if (k)
			return r->sites[*k];
		if (r->nsites == r->csites) {
			r->csites = r->csites ? 2 * r->csites : 16;
			r->sites = xrealloc(r->sites, r->csites * sizeof(*r->sites));
		}
		r->sites[r->nsites] = xasprintf("%s:%" PRIu64, fn, *fl & ((1u << 24) - 1));
		um_put(&r->site_idx, *fl, r->nsites);
		return r->sites[r->nsites++];
	}
	return NULL;
}

static const char *r19_stack_fn(const struct r19 *r, uint64_t stack)
{
	const uint64_t *s = um_get(&r->stacks, stack);
	return s ? r19_string(r, *s) : NULL;
}

/* Unsigned LEB128, at most 10 bytes.  0: ok; else e set. */
static int get_uvarint(struct r19 *r, struct win *w, uint64_t *v, struct err *e)
{
	uint64_t x = 0;
	uint64_t at = win_off(w);
	for (int shift = 0; shift < 70; shift += 7) {
		uint8_t b;
		int got = win_byte(w, &b);
		if (got < 0) {
			err_set(e, "%s: offset %" PRIu64 ": %s", r->path, win_off(w), strerror(errno));
			return -1;
		}
		if (got == 0) {
			err_set(e, "%s: offset %" PRIu64 ": truncated: the file ends inside a value",
				r->path, win_off(w));
			return -1;
		}
		if (shift == 63 && b > 1) {
			err_set(e, "%s: offset %" PRIu64 ": corrupt LEB128 value (more than 64 bits)",
				r->path, at);
			return -1;
		}
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	err_set(e, "%s: offset %" PRIu64 ": corrupt LEB128 value (more than 10 bytes)", r->path, at);
	return -1;
}

/* Reads one raw event at w's position: its type and values (up to
 * MAXARGS kept; EvStack's and EvString's contents handled by the caller
 * through *skip_from / *skip_len).  1: read; 0: end of file; -1: e set. */
struct raw {
	uint8_t type;
	uint64_t off;
	uint64_t a[MAXARGS];
	int n;              /* values read (kept: min(n, MAXARGS)) */
};

/* EvString's contents, after its type byte: kept in the string table on
 * the first pass (keep), skipped on the second.  0: ok; else e set. */
static int read_string(struct r19 *r, struct win *w, struct raw *ev, bool keep, struct err *e)
{
	uint64_t id, len;
	if (get_uvarint(r, w, &id, e) || get_uvarint(r, w, &len, e))
		return -1;
	if (id == 0 || len == 0 || len > MAX_STRING) {
		err_set(e, "%s: offset %" PRIu64 ": string %" PRIu64 " has %s", r->path, ev->off,
			id, id == 0 ? "the invalid id 0" : "an invalid length");
		return -1;
	}
	char *s = xmalloc(len + 1);
	for (uint64_t i = 0; i < len; i++) {
		if (win_byte(w, (uint8_t *)&s[i]) <= 0) {
			free(s);
			err_set(e, "%s: offset %" PRIu64 ": truncated: the file ends inside string %" PRIu64,
				r->path, win_off(w), id);
			return -1;
		}
	}
	s[len] = 0;
	ev->a[0] = id;
	ev->n = 1;
	if (!keep) {
		free(s);
		return 0;
	}
	if (um_get(&r->strings, id)) {
		free(s);
		err_set(e, "%s: offset %" PRIu64 ": string id %" PRIu64 " defined twice", r->path,
			ev->off, id);
		return -1;
	}
	if (r->nstrs == r->cstrs) {
		r->cstrs = r->cstrs ? r->cstrs * 2 : 256;
		r->strs = xrealloc(r->strs, r->cstrs * sizeof(*r->strs));
	}
	um_put(&r->strings, id, r->nstrs);
	r->strs[r->nstrs++] = s;
	return 0;
}

/* One more value of the event (the first MAXARGS kept). */
static int add_value(struct r19 *r, struct win *w, struct raw *ev, uint64_t *v, struct err *e)
{
	if (get_uvarint(r, w, v, e))
		return -1;
	if (ev->n < MAXARGS)
		ev->a[ev->n] = *v;
	ev->n++;
	return 0;
}

/* The values of an event whose type byte says how many (inl + 1, inl 0
 * to 2), or, for inl 3, which gives their length in bytes first; an
 * EvStack's all go to *all when asked.  0: ok; else e set. */
static int read_values(struct r19 *r, struct win *w, struct raw *ev, int inl, uint64_t **all,
		       size_t *nall, struct err *e)
{
	uint64_t v;
	if (inl < 3) {
		for (int i = 0; i <= inl; i++)
			if (add_value(r, w, ev, &v, e))
				return -1;
		return 0;
	}
	uint64_t len;
	if (get_uvarint(r, w, &len, e))
		return -1;
	uint64_t start = win_off(w);
	if (len > r->size) {
		err_set(e, "%s: offset %" PRIu64 ": event length %" PRIu64 " is past the end of the file",
			r->path, ev->off, len);
		return -1;
	}
	while (win_off(w) - start < len) {
		if (add_value(r, w, ev, &v, e))
			return -1;
		if (all && ev->type == EV_STACK) {
			*all = xrealloc(*all, (*nall + 1) * sizeof(**all));
			(*all)[(*nall)++] = v;
		}
	}
	if (win_off(w) - start != len) {
		err_set(e, "%s: offset %" PRIu64 ": event has the wrong length: %" PRIu64
			" bytes said, %" PRIu64 " read", r->path, ev->off, len, win_off(w) - start);
		return -1;
	}
	return 0;
}

/* EvUserLog's message, after its values: length, bytes.  0: ok; else e
 * set. */
static int skip_log_message(struct r19 *r, struct win *w, const struct raw *ev, struct err *e)
{
	uint64_t len;
	if (get_uvarint(r, w, &len, e))
		return -1;
	if (len > MAX_STRING) {
		err_set(e, "%s: offset %" PRIu64 ": log message of %" PRIu64 " bytes", r->path,
			ev->off, len);
		return -1;
	}
	for (uint64_t i = 0; i < len; i++) {
		uint8_t b;
		if (win_byte(w, &b) <= 0) {
			err_set(e, "%s: offset %" PRIu64 ": truncated: the file ends inside a log message",
				r->path, win_off(w));
			return -1;
		}
	}
	return 0;
}

static int read_raw(struct r19 *r, struct win *w, struct raw *ev, bool keep_all, uint64_t **all,
		    size_t *nall, struct err *e)
{
	uint8_t b;
	ev->off = win_off(w);
	int got = win_byte(w, &b);
	if (got < 0) {
		err_set(e, "%s: offset %" PRIu64 ": %s", r->path, ev->off, strerror(errno));
		return -1;
	}
	if (got == 0)
		return 0;
	ev->type = b & 0x3f;
	ev->n = 0;
	if (ev->type >= EV_COUNT || nargs[ev->type] < 0 ||
	    (ev->type == EV_CPU_SAMPLE && r->minor < 19)) {
		err_set(e, "%s: offset %" PRIu64 ": unknown event type %d", r->path, ev->off, ev->type);
		return -1;
	}
	if (ev->type == EV_STRING)
		return read_string(r, w, ev, keep_all, e) ? -1 : 1;
	if (read_values(r, w, ev, b >> 6, all, nall, e))
		return -1;
	if (ev->type != EV_STACK && ev->n != nargs[ev->type]) {
		err_set(e, "%s: offset %" PRIu64 ": event type %d has %d values, want %d", r->path,
			ev->off, ev->type, ev->n, nargs[ev->type]);
		return -1;
	}
	if (ev->type == EV_USER_LOG && skip_log_message(r, w, ev, e))
		return -1;
	return 1;
}

/* The first pass: framing, batches, strings, stacks, frequency. */
static bool index_file(struct r19 *r, struct err *e)
{
	struct win *w = xmalloc(sizeof(*w));
	w->fd = r->fd;
	win_seek(w, 16);
	uint64_t *frames = NULL;
	size_t nframes = 0;
	bool ok = false;
	for (;;) {
		struct raw ev;
		nframes = 0;
		int got = read_raw(r, w, &ev, true, &frames, &nframes, e);
		if (got < 0)
			goto out;
		if (got == 0)
			break;
		switch (ev.type) {
		case EV_BATCH:
			if (r->nbatch == r->cbatch) {
				r->cbatch = r->cbatch ? r->cbatch * 2 : 64;
				r->boff = xrealloc(r->boff, r->cbatch * sizeof(*r->boff));
				r->bp = xrealloc(r->bp, r->cbatch * sizeof(*r->bp));
			}
			if ((int64_t)ev.a[0] < -1 || (int64_t)ev.a[0] > 1000000) {
				err_set(e, "%s: offset %" PRIu64 ": batch of P %" PRId64 " (out of range)",
					r->path, ev.off, (int64_t)ev.a[0]);
				goto out;
			}
			r->boff[r->nbatch] = ev.off;
			r->bp[r->nbatch++] = (int64_t)ev.a[0];
			break;
		case EV_FREQUENCY:
			if ((int64_t)ev.a[0] <= 0) {
				err_set(e, "%s: offset %" PRIu64 ": tick frequency %" PRId64 " (must be > 0)",
					r->path, ev.off, (int64_t)ev.a[0]);
				goto out;
			}
			r->freq = (int64_t)ev.a[0];
			break;
		case EV_STACK:
			if (nframes < 2 || frames[1] > 1000 || nframes != 2 + 4 * frames[1]) {
				err_set(e, "%s: offset %" PRIu64 ": stack with a wrong number of values",
					r->path, ev.off);
				goto out;
			}
			if (frames[1] > 0)
				um_put(&r->stacks, frames[0], frames[3]);
			/* the site is resolved once the strings are all read */
			for (uint64_t i = 0; i < frames[1] && i < TI_SITE_FRAMES; i++) {
				uint64_t fn = frames[2 + 4 * i + 1], line = frames[2 + 4 * i + 3];
				if (fn >> 40 || line >> 24)
					break;
				um_put(&r->stack_site, frames[0] << 4 | i, fn << 24 | line);
			}
			break;
		default:
			if (r->nbatch == 0 && ev.type != EV_STRING) {
				err_set(e, "%s: offset %" PRIu64 ": event before the first batch", r->path,
					ev.off);
				goto out;
			}
			break;
		}
	}
	if (r->nbatch == 0) {
		err_set(e, "%s: offset %" PRIu64 ": the trace has no events", r->path, r->size);
		goto out;
	}
	if (r->freq == 0) {
		err_set(e, "%s: offset %" PRIu64 ": no frequency event: the trace is cut short (the "
			"program must stop tracing, or `go test` finish, for the trace to be complete)",
			r->path, r->size);
		goto out;
	}
	ok = true;
out:
	free(frames);
	free(w);
	return ok;
}

static struct stream *stream_of(struct r19 *r, int32_t p)
{
	for (size_t i = 0; i < r->nst; i++)
		if (r->st[i].p == p)
			return &r->st[i];
	r->st = xrealloc(r->st, (r->nst + 1) * sizeof(*r->st));
	struct stream *s = &r->st[r->nst++];
	memset(s, 0, sizeof(*s));
	s->p = p;
	return s;
}

/* Decodes the stream's next event into its head (skipping the string,
 * stack and frequency records, which the first pass took). */
static int stream_advance(struct r19 *r, struct stream *s, struct err *e)
{
	s->has_head = false;
	for (;;) {
		if (s->done)
			return 0;
		if (s->next == 0 || win_off(&s->w) >= s->end) {
			if (s->next == s->nb) {
				s->done = true;
				return 0;
			}
			uint64_t off = s->batches[s->next++];
			size_t bi = 0;
			/* Where this batch ends: the next batch's offset in the file. */
			size_t lo = 0, hi = r->nbatch;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (r->boff[mid] <= off)
					lo = mid + 1;
				else
					hi = mid;
			}
			bi = lo;
			s->end = bi < r->nbatch ? r->boff[bi] : r->size;
			win_seek(&s->w, off);
			struct raw b;
			if (read_raw(r, &s->w, &b, false, NULL, NULL, e) <= 0)
				return -1;
			s->ticks = (int64_t)b.a[1];
			continue;
		}
		struct raw ev;
		int got = read_raw(r, &s->w, &ev, false, NULL, NULL, e);
		if (got < 0)
			return -1;
		if (got == 0) {
			s->done = true;
			return 0;
		}
		switch (ev.type) {
		case EV_STRING: case EV_STACK: case EV_FREQUENCY: case EV_TIMER_GOROUTINE:
		case EV_BATCH:
			continue;
		default:
			break;
		}
		struct r19_event *h = &s->head;
		h->type = ev.type;
		h->off = ev.off;
		h->n = (uint8_t)(ev.n > MAXARGS ? MAXARGS : ev.n);
		memcpy(h->a, ev.a, sizeof(h->a));
		/* a corrupt delta may carry the clock past 2^63 ticks */
		if (__builtin_add_overflow(s->ticks, (int64_t)ev.a[0], &s->ticks) || s->ticks < 0) {
			err_set(e, "%s: offset %" PRIu64 ": a time stamp past 2^63 ticks", r->path,
				ev.off);
			return -1;
		}
		h->ticks = s->ticks;
		switch (ev.type) {
		case EV_GO_START: case EV_GO_START_LOCAL: case EV_GO_START_LABEL:
			s->lastg = ev.a[1];
			h->g = s->lastg;
			break;
		case EV_GO_SYSEXIT: case EV_GO_SYSEXIT_LOCAL: case EV_GO_WAITING: case EV_GO_INSYSCALL:
			h->g = ev.a[1];
			break;
		default:
			h->g = s->lastg;
			break;
		}
		switch (ev.type) {
		case EV_GO_END: case EV_GO_STOP: case EV_GO_SCHED: case EV_GO_PREEMPT:
		case EV_GO_SLEEP: case EV_GO_BLOCK: case EV_GO_BLOCK_SEND: case EV_GO_BLOCK_RECV:
		case EV_GO_BLOCK_SELECT: case EV_GO_BLOCK_SYNC: case EV_GO_BLOCK_COND:
		case EV_GO_BLOCK_NET: case EV_GO_SYSBLOCK: case EV_GO_BLOCK_GC:
			s->lastg = 0;
			break;
		default:
			break;
		}
		s->has_head = true;
		return 1;
	}
}

/* Which G an event moves through its states, from what to what (Go's
 * own ordering rules).  false: the event orders nothing. */
#define NOSEQ UINT64_MAX
#define SEQINC (UINT64_MAX - 1)
struct trans { uint64_t g, seq0, seq1; int st0, st1; };

static bool transition(const struct r19_event *ev, struct trans *t)
{
	switch (ev->type) {
	case EV_GO_CREATE:
		*t = (struct trans){ ev->a[1], 0, 1, GDEAD, GRUNNABLE };
		return true;
	case EV_GO_WAITING: case EV_GO_INSYSCALL:
		*t = (struct trans){ ev->g, 1, 2, GRUNNABLE, GWAITING };
		return true;
	case EV_GO_START: case EV_GO_START_LABEL:
		*t = (struct trans){ ev->g, ev->a[2], ev->a[2] + 1, GRUNNABLE, GRUNNING };
		return true;
	case EV_GO_START_LOCAL:
		*t = (struct trans){ ev->g, NOSEQ, SEQINC, GRUNNABLE, GRUNNING };
		return true;
	case EV_GO_BLOCK: case EV_GO_BLOCK_SEND: case EV_GO_BLOCK_RECV: case EV_GO_BLOCK_SELECT:
	case EV_GO_BLOCK_SYNC: case EV_GO_BLOCK_COND: case EV_GO_BLOCK_NET: case EV_GO_SLEEP:
	case EV_GO_SYSBLOCK: case EV_GO_BLOCK_GC: case EV_GO_STOP:
		*t = (struct trans){ ev->g, NOSEQ, NOSEQ, GRUNNING, GWAITING };
		return true;
	case EV_GO_SCHED: case EV_GO_PREEMPT:
		*t = (struct trans){ ev->g, NOSEQ, NOSEQ, GRUNNING, GRUNNABLE };
		return true;
	case EV_GO_END:
		*t = (struct trans){ ev->g, NOSEQ, NOSEQ, GRUNNING, GDEAD };
		return true;
	case EV_GO_UNBLOCK: case EV_GO_SYSEXIT:
		*t = (struct trans){ ev->a[1], ev->a[2], ev->a[2] + 1, GWAITING, GRUNNABLE };
		return true;
	case EV_GO_UNBLOCK_LOCAL: case EV_GO_SYSEXIT_LOCAL:
		*t = (struct trans){ ev->a[1], NOSEQ, SEQINC, GWAITING, GRUNNABLE };
		return true;
	default:
		return false;
	}
}

static void gstate(const struct r19 *r, uint64_t g, uint64_t *seq, int *st)
{
	const uint64_t *v = um_get(&r->gs, g);
	*seq = v ? *v >> 2 : 0;
	*st = v ? (int)(*v & 3) : GDEAD;
}

static bool ready(const struct r19 *r, const struct r19_event *ev)
{
	struct trans t;
	if (!transition(ev, &t))
		return true;
	uint64_t seq;
	int st;
	gstate(r, t.g, &seq, &st);
	return (t.seq0 == NOSEQ || t.seq0 == seq) && t.st0 == st;
}

static void apply(struct r19 *r, const struct r19_event *ev)
{
	struct trans t;
	if (!transition(ev, &t))
		return;
	uint64_t seq;
	int st;
	gstate(r, t.g, &seq, &st);
	uint64_t nseq = t.seq1 == NOSEQ ? seq : t.seq1 == SEQINC ? seq + 1 : t.seq1;
	if (t.st1 == GDEAD)
		/* Go ids are never reused: an ended G's state is no longer needed. */
		um_del(&r->gs, t.g);
	else
		um_put(&r->gs, t.g, nseq << 2 | (uint64_t)t.st1);
}

static int64_t ns_of(const struct r19 *r, int64_t ticks)
{
	/* Long double: ticks up to 2^63 times 1e9 without overflow. */
	return (int64_t)((long double)(ticks - r->t0) * 1e9L / (long double)r->freq);
}

static struct ti_event *q_push(struct r19 *r)
{
	struct ti_event *ev = &r->q[(r->qh + r->qn++) % 4];
	memset(ev, 0, sizeof(*ev));
	ev->p = -1;
	return ev;
}

static uint16_t block_reason(int type)
{
	switch (type) {
	case EV_GO_SLEEP: return TI_R_SLEEP;
	case EV_GO_BLOCK_SEND: return TI_R_CHAN_SEND;
	case EV_GO_BLOCK_RECV: return TI_R_CHAN_RECV;
	case EV_GO_BLOCK_SELECT: return TI_R_SELECT;
	case EV_GO_BLOCK_SYNC: return TI_R_SYNC;
	case EV_GO_BLOCK_COND: return TI_R_COND;
	case EV_GO_BLOCK_NET: return TI_R_NET;
	case EV_GO_BLOCK_GC: return TI_R_GC;
	default: return TI_R_OTHER;
	}
}

/* ---- What each raw event becomes ----
 *
 * A translation pushes the stream events of raw event h, taken from
 * stream s, at ts (ns): 0, or -1 with e set. */

static struct ti_event *push(struct r19 *r, const struct r19_event *h, int64_t ts, uint16_t kind)
{
	struct ti_event *ev = q_push(r);
	ev->ts = ts;
	ev->off = h->off;
	ev->kind = kind;
	ev->g = h->g;
	return ev;
}

static int on_gomaxprocs(struct r19 *r, struct stream *s, const struct r19_event *h,
			 int64_t ts, struct err *e)
{
	struct ti_event *ev = push(r, h, ts, TI_PROCS);
	ev->g = 0;
	ev->arg = (int64_t)h->a[1];
	return 0;
}

static int on_go_create(struct r19 *r, struct stream *s, const struct r19_event *h,
			int64_t ts, struct err *e)
{
	struct ti_event *ev;
	if (h->g) {
		ev = push(r, h, ts, TI_G_CREATE);
		ev->target = h->a[1];
		ev->label = r19_stack_fn(r, h->a[2]);
		return 0;
	}
	/* Created on no G: a G that existed when tracing started. */
	ev = push(r, h, ts, TI_G_EXISTS);
	ev->g = h->a[1];
	ev->label = r19_stack_fn(r, h->a[2]);
	/* The state it was in follows at once in the same batch. */
	if (s->has_head && s->head.g == h->a[1] &&
	    (s->head.type == EV_GO_WAITING || s->head.type == EV_GO_INSYSCALL)) {
		ev->reason = s->head.type == EV_GO_WAITING ? TI_R_OTHER : TI_R_SYSCALL;
		apply(r, &s->head);
		if (stream_advance(r, s, e) < 0)
			return -1;
	}
	return 0;
}

static int on_go_start(struct r19 *r, struct stream *s, const struct r19_event *h,
		       int64_t ts, struct err *e)
{
	struct ti_event *ev = push(r, h, ts, TI_G_START);
	ev->p = s->p;
	if (h->type == EV_GO_START_LABEL)
		ev->label = r19_string(r, h->a[3]);
	return 0;
}

static int on_go_end(struct r19 *r, struct stream *s, const struct r19_event *h, int64_t ts,
		     struct err *e)
{
	push(r, h, ts, TI_G_END);
	return 0;
}

static int on_go_sched(struct r19 *r, struct stream *s, const struct r19_event *h, int64_t ts,
		       struct err *e)
{
	push(r, h, ts, TI_G_STOP)->reason = h->type == EV_GO_SCHED ? TI_R_YIELD : TI_R_PREEMPT;
	return 0;
}

static int on_go_block(struct r19 *r, struct stream *s, const struct r19_event *h, int64_t ts,
		       struct err *e)
{
	struct ti_event *ev = push(r, h, ts, TI_G_BLOCK);
	ev->reason = block_reason(h->type);
	ev->label = r19_site(r, h->a[1]);
	return 0;
}

static int on_go_unblock(struct r19 *r, struct stream *s, const struct r19_event *h,
			 int64_t ts, struct err *e)
{
	push(r, h, ts, TI_G_UNBLOCK)->target = h->a[1];
	return 0;
}

static int on_go_syscall(struct r19 *r, struct stream *s, const struct r19_event *h,
			 int64_t ts, struct err *e)
{
	push(r, h, ts, TI_SYSCALL);
	/* A call that returned before sysmon took its P has no end event in
	 * this format: its time is part of the G's running time, and it
	 * ends where it starts. */
	if (!(s->has_head && s->head.type == EV_GO_SYSBLOCK && s->head.g == h->g))
		push(r, h, ts, TI_SYSCALL_END)->arg = 0;
	return 0;
}

static int on_go_sysexit(struct r19 *r, struct stream *s, const struct r19_event *h,
			 int64_t ts, struct err *e)
{
	int64_t real = (int64_t)h->a[h->type == EV_GO_SYSEXIT ? 3 : 2];
	struct ti_event *ev = push(r, h, ts, TI_SYSCALL_END);
	ev->arg = 1;
	/* The runtime writes the exit when the G has a P again; the value is
	 * when the call returned, and 0 when it took its old P back or an
	 * idle one at once (exitsyscallfast), without waiting in a queue. */
	if (real > 0 && real >= r->t0 && real <= h->ticks)
		ev->ts = ns_of(r, real);
	else if (real == 0)
		ev->arg = 2;
	return 0;
}

static int on_user_task(struct r19 *r, struct stream *s, const struct r19_event *h,
			int64_t ts, struct err *e)
{
	/* begin: the task's id; end: minus it */
	int64_t id = (int64_t)h->a[1];
	push(r, h, ts, TI_USER_TASK)->arg = h->type == EV_USER_TASK_CREATE ? id : -id;
	return 0;
}

typedef int translate_fn(struct r19 *r, struct stream *s, const struct r19_event *h,
			 int64_t ts, struct err *e);
/* The raw events the stream carries; the others (GC, heap, regions,
 * logs, ...) say nothing of the scheduling a workload replays. */
static translate_fn *const translations[EV_COUNT] = {
	[EV_GOMAXPROCS] = on_gomaxprocs,
	[EV_GO_CREATE] = on_go_create,
	[EV_GO_START] = on_go_start,
	[EV_GO_START_LOCAL] = on_go_start,
	[EV_GO_START_LABEL] = on_go_start,
	[EV_GO_END] = on_go_end,
	[EV_GO_SCHED] = on_go_sched,
	[EV_GO_PREEMPT] = on_go_sched,
	[EV_GO_STOP] = on_go_block,
	[EV_GO_SLEEP] = on_go_block,
	[EV_GO_BLOCK] = on_go_block,
	[EV_GO_BLOCK_SEND] = on_go_block,
	[EV_GO_BLOCK_RECV] = on_go_block,
	[EV_GO_BLOCK_SELECT] = on_go_block,
	[EV_GO_BLOCK_SYNC] = on_go_block,
	[EV_GO_BLOCK_COND] = on_go_block,
	[EV_GO_BLOCK_NET] = on_go_block,
	[EV_GO_BLOCK_GC] = on_go_block,
	[EV_GO_UNBLOCK] = on_go_unblock,
	[EV_GO_UNBLOCK_LOCAL] = on_go_unblock,
	[EV_GO_SYSCALL] = on_go_syscall,
	[EV_GO_SYSEXIT] = on_go_sysexit,
	[EV_GO_SYSEXIT_LOCAL] = on_go_sysexit,
	[EV_USER_TASK_CREATE] = on_user_task,
	[EV_USER_TASK_END] = on_user_task,
};

/* Turns the raw event just taken from stream s into stream events. */
static int translate(struct r19 *r, struct stream *s, const struct r19_event *h, struct err *e)
{
	/* A frequency of a few ticks a second makes any tick count ages:
	 * refused before it passes what the stream's ns can hold (with room
	 * for the sums the importer makes of them). */
	if (((long double)h->ticks - (long double)r->t0) * 1e9L / (long double)r->freq > 0x1p62L) {
		err_set(e, "%s: offset %" PRIu64 ": time stamp %" PRId64 " ticks after the first is "
			"past 2^62 ns at %" PRId64 " ticks a second", r->path, h->off,
			(int64_t)((uint64_t)h->ticks - (uint64_t)r->t0), r->freq);
		return -1;
	}
	translate_fn *fn = translations[h->type];
	return fn ? fn(r, s, h, ns_of(r, h->ticks), e) : 0;
}

static int r19_next(struct ti_reader *base, struct ti_event *out, struct err *e)
{
	struct r19 *r = (struct r19 *)base;
	while (r->qn == 0) {
		struct stream *best = NULL;
		bool any = false;
		for (size_t i = 0; i < r->nst; i++) {
			struct stream *s = &r->st[i];
			if (!s->has_head)
				continue;
			any = true;
			/* the cheap test first: most heads are later than the best */
			if ((!best || s->head.ticks < best->head.ticks) && ready(r, &s->head))
				best = s;
		}
		if (!any)
			return 0;
		if (!best) {
			const struct r19_event *stuck = NULL;
			for (size_t i = 0; i < r->nst; i++)
				if (r->st[i].has_head && (!stuck || r->st[i].head.off < stuck->off))
					stuck = &r->st[i].head;
			struct trans t;
			transition(stuck, &t);
			err_set(e, "%s: offset %" PRIu64 ": inconsistent trace: no P's next event fits "
				"its goroutine's state (the earliest: event type %d of G %" PRIu64 ")",
				r->path, stuck->off, stuck->type, t.g);
			return -1;
		}
		struct r19_event h = best->head;
		if (!r->started) {
			r->started = true;
			r->t0 = h.ticks;
			r->last_ticks = h.ticks;
		}
		if (h.ticks < r->last_ticks) {
			err_set(e, "%s: offset %" PRIu64 ": time stamps out of order (%" PRIu64 " ticks "
				"before the previous event)", r->path, h.off,
				(uint64_t)r->last_ticks - (uint64_t)h.ticks);
			return -1;
		}
		r->last_ticks = h.ticks;
		apply(r, &h);
		if (stream_advance(r, best, e) < 0)
			return -1;
		if (translate(r, best, &h, e) < 0)
			return -1;
	}
	*out = r->q[r->qh];
	r->qh = (r->qh + 1) % 4;
	r->qn--;
	return 1;
}

static void r19_close(struct ti_reader *base)
{
	struct r19 *r = (struct r19 *)base;
	if (r->fd >= 0)
		close(r->fd);
	for (size_t i = 0; i < r->nst; i++)
		free(r->st[i].batches);
	free(r->st);
	for (size_t i = 0; i < r->nstrs; i++)
		free(r->strs[i]);
	free(r->strs);
	um_free(&r->strings);
	um_free(&r->stacks);
	um_free(&r->stack_site);
	um_free(&r->site_idx);
	for (size_t i = 0; i < r->nsites; i++)
		free(r->sites[i]);
	free(r->sites);
	um_free(&r->gs);
	free(r->boff);
	free(r->bp);
	free(r->path);
	free(r);
}

static const struct ti_ops r19_ops = { r19_next, r19_close };

struct ti_reader *ti_open_go119(const char *path, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err_set(e, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		err_set(e, "%s: not a regular file: the Go 1.19 trace reader reads the file twice "
			"(save the trace to a file first)", path);
		return NULL;
	}
	unsigned char head[16];
	ssize_t n = pread(fd, head, sizeof head, 0);
	char ver[16];
	int minor = ti_header_minor(head, n < 0 ? 0 : (size_t)n, ver);
	if (minor < 0) {
		close(fd);
		err_set(e, "%s: offset 0: not a Go execution trace (no \"go 1.N trace\" header)", path);
		return NULL;
	}
	if (minor != 11 && minor != 19) {
		close(fd);
		err_set(e, "%s: offset 0: \"%s trace\": this build reads the traces of Go 1.11 to "
			"1.20 (headers \"go 1.11 trace\" and \"go 1.19 trace\") and of Go 1.22 and later",
			path, ver);
		return NULL;
	}
	struct r19 *r = xcalloc(1, sizeof(*r));
	r->base.ops = &r19_ops;
	memcpy(r->base.version, ver, sizeof ver);
	r->path = xstrdup(path);
	r->fd = fd;
	r->size = (uint64_t)sb.st_size;
	r->minor = minor;
	if (!index_file(r, e)) {
		r19_close(&r->base);
		return NULL;
	}
	for (size_t i = 0; i < r->nbatch; i++) {
		struct stream *s = stream_of(r, (int32_t)r->bp[i]);
		if (s->nb == s->cb) {
			s->cb = s->cb ? s->cb * 2 : 16;
			s->batches = xrealloc(s->batches, s->cb * sizeof(*s->batches));
		}
		s->batches[s->nb++] = r->boff[i];
	}
	for (size_t i = 0; i < r->nst; i++) {
		r->st[i].w.fd = fd;
		if (stream_advance(r, &r->st[i], e) < 0) {
			r19_close(&r->base);
			return NULL;
		}
	}
	return &r->base;
}
