/* Reader of Go 1.22+ execution traces ("go 1.22 trace"; 1.23, which Go
 * 1.24 also writes; 1.25; 1.26) into the common event stream of
 * trace/import.h.
 *
 * The format, as Go's src/internal/trace describes it (read for facts; this
 * is our own code):
 *
 *   - A 16-byte header, then batches.  A batch is the byte EventBatch, then
 *     LEB128 numbers: generation, M (thread) id, base time in ticks, size;
 *     then size bytes (at most 64 KiB).  ExperimentalBatch (1.23+) has an
 *     experiment byte after its type and is skipped whole.
 *   - The trace is cut into generations (the runtime starts one about
 *     every second).  A generation's batches come together and carry its
 *     number; it holds its own string table, stack table, CPU samples and
 *     tick frequency (a lone Frequency batch up to 1.23, a Sync batch with
 *     Frequency and ClockSnapshot from 1.25).  From 1.26 the runtime ends
 *     each generation with one EndOfGeneration byte in place of a batch,
 *     so a trace cut between two generations' batches is told from a
 *     whole one.  A generation is the unit of
 *     reading here: one is held in memory at a time, so memory is bounded
 *     by the largest generation (GEN_MAX_BYTES), never by the trace.
 *   - An event batch is one M's events in the order that M wrote them:
 *     a type byte, then LEB128 arguments, the first the ticks since the
 *     previous event of the batch (the batch's base time for the first).
 *   - Across Ms, times may disagree, so the true order is a partial order:
 *     each G and P carries a sequence number, restarted by GoStatus and
 *     ProcStatus events at the start of each generation, and an event that
 *     names a G or a P with a sequence number may only happen right after
 *     the previous one.  The reader keeps every G, P and M's state, and at
 *     each step takes, of the Ms' next events, the earliest that the state
 *     allows (scanning the rest by time when the earliest must wait).  When
 *     none can happen, or an event contradicts the state, the trace is
 *     broken: an error names the event's byte offset.
 *
 * What comes out: G creation (with the new G's start function as label,
 * from the top frame of its creation stack), starts, stops (preempted or
 * yielded), blocks with their reason (from the reason string Go records),
 * unblocks (by the G running on the M, or by none), exits, system calls
 * and their ends, GOMAXPROCS changes and user tasks.  Runtime-internal
 * events (GC, sweeping, STW, heap sizes, regions, logs, CPU samples) are
 * checked against the state where they need it and otherwise dropped. */
#include "trace/import.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/read122.h"
#include "util/util.h"

/* ---- The event table ---- */

#define TIMED(n, ...) { .name = n, .args = { "dt", __VA_ARGS__ }, .timed = true }
static const struct t122_spec specs[T122_NTYPES] = {
	[T122_EVENT_BATCH] = { .name = "EventBatch", .args = { "gen", "m", "time", "size" } },
	[T122_STACKS] = { .name = "Stacks" },
	[T122_STACK] = { .name = "Stack", .args = { "id", "nframes" }, .stack = true },
	[T122_STRINGS] = { .name = "Strings" },
	[T122_STRING] = { .name = "String", .args = { "id" }, .data = true },
	[T122_CPU_SAMPLES] = { .name = "CPUSamples" },
	[T122_CPU_SAMPLE] = { .name = "CPUSample", .args = { "time", "m", "p", "g", "stack" } },
	[T122_FREQUENCY] = { .name = "Frequency", .args = { "freq" } },
	[T122_PROCS_CHANGE] = TIMED("ProcsChange", "procs_value", "stack"),
	[T122_PROC_START] = TIMED("ProcStart", "p", "p_seq"),
	[T122_PROC_STOP] = TIMED("ProcStop"),
	[T122_PROC_STEAL] = TIMED("ProcSteal", "p", "p_seq", "m"),
	[T122_PROC_STATUS] = TIMED("ProcStatus", "p", "pstatus"),
	[T122_GO_CREATE] = TIMED("GoCreate", "new_g", "new_stack", "stack"),
	[T122_GO_CREATE_SYSCALL] = TIMED("GoCreateSyscall", "new_g"),
	[T122_GO_START] = TIMED("GoStart", "g", "g_seq"),
	[T122_GO_DESTROY] = TIMED("GoDestroy"),
	[T122_GO_DESTROY_SYSCALL] = TIMED("GoDestroySyscall"),
	[T122_GO_STOP] = TIMED("GoStop", "reason_string", "stack"),
	[T122_GO_BLOCK] = TIMED("GoBlock", "reason_string", "stack"),
	[T122_GO_UNBLOCK] = TIMED("GoUnblock", "g", "g_seq", "stack"),
	[T122_GO_SYSCALL_BEGIN] = TIMED("GoSyscallBegin", "p_seq", "stack"),
	[T122_GO_SYSCALL_END] = TIMED("GoSyscallEnd"),
	[T122_GO_SYSCALL_END_BLOCKED] = TIMED("GoSyscallEndBlocked"),
	[T122_GO_STATUS] = TIMED("GoStatus", "g", "m", "gstatus"),
	[T122_STW_BEGIN] = TIMED("STWBegin", "kind_string", "stack"),
	[T122_STW_END] = TIMED("STWEnd"),
	[T122_GC_ACTIVE] = TIMED("GCActive", "gc_seq"),
	[T122_GC_BEGIN] = TIMED("GCBegin", "gc_seq", "stack"),
	[T122_GC_END] = TIMED("GCEnd", "gc_seq"),
	[T122_GC_SWEEP_ACTIVE] = TIMED("GCSweepActive", "p"),
	[T122_GC_SWEEP_BEGIN] = TIMED("GCSweepBegin", "stack"),
	[T122_GC_SWEEP_END] = TIMED("GCSweepEnd", "swept_value", "reclaimed_value"),
	[T122_GC_MARK_ASSIST_ACTIVE] = TIMED("GCMarkAssistActive", "g"),
	[T122_GC_MARK_ASSIST_BEGIN] = TIMED("GCMarkAssistBegin", "stack"),
	[T122_GC_MARK_ASSIST_END] = TIMED("GCMarkAssistEnd"),
	[T122_HEAP_ALLOC] = TIMED("HeapAlloc", "heapalloc_value"),
	[T122_HEAP_GOAL] = TIMED("HeapGoal", "heapgoal_value"),
	[T122_GO_LABEL] = TIMED("GoLabel", "label_string"),
	[T122_USER_TASK_BEGIN] = TIMED("UserTaskBegin", "task", "parent_task", "name_string", "stack"),
	[T122_USER_TASK_END] = TIMED("UserTaskEnd", "task", "stack"),
	[T122_USER_REGION_BEGIN] = TIMED("UserRegionBegin", "task", "name_string", "stack"),
	[T122_USER_REGION_END] = TIMED("UserRegionEnd", "task", "name_string", "stack"),
	[T122_USER_LOG] = TIMED("UserLog", "task", "key_string", "value_string", "stack"),
	[T122_GO_SWITCH] = TIMED("GoSwitch", "g", "g_seq"),
	[T122_GO_SWITCH_DESTROY] = TIMED("GoSwitchDestroy", "g", "g_seq"),
	[T122_GO_CREATE_BLOCKED] = TIMED("GoCreateBlocked", "new_g", "new_stack", "stack"),
	[T122_GO_STATUS_STACK] = TIMED("GoStatusStack", "g", "m", "gstatus", "stack"),
	[T122_EXPERIMENTAL_BATCH] = { .name = "ExperimentalBatch", .args = { "exp", "gen", "m", "time" }, .data = true },
	[T122_SYNC] = { .name = "Sync" },
	[T122_CLOCK_SNAPSHOT] = TIMED("ClockSnapshot", "mono", "sec", "nsec"),
	[T122_END_OF_GENERATION] = { .name = "EndOfGeneration" },
};
#undef TIMED

static int type_since(unsigned type)
{
	if (type >= T122_END_OF_GENERATION)
		return 26;
	if (type >= T122_SYNC)
		return 25;
	if (type >= T122_GO_SWITCH)
		return 23;
	return 22;
}

bool t122_minor_known(int minor)
{
	/* Go 1.24 writes 1.23's header and format. */
	return minor == 22 || minor == 23 || minor == 25 || minor == 26;
}

const struct t122_spec *t122_spec(unsigned type, int minor)
{
	static struct t122_spec table[T122_NTYPES];
	static bool filled;
	if (!filled) {
		/* Argument counts and versions, computed once from the names. */
		for (unsigned t = 1; t < T122_NTYPES; t++) {
			table[t] = specs[t];
			while (table[t].nargs < T122_MAX_ARGS && table[t].args[table[t].nargs])
				table[t].nargs++;
			table[t].since = type_since(t);
		}
		filled = true;
	}
	if (type == 0 || type >= T122_NTYPES || table[type].since > minor)
		return NULL;
	return &table[type];
}

int t122_type_named(const char *name, int minor)
{
	for (unsigned t = 1; t < T122_NTYPES; t++) {
		const struct t122_spec *s = t122_spec(t, minor);
		if (s && strcmp(s->name, name) == 0)
			return (int)t;
	}
	return -1;
}

/* ---- Maps from 64-bit ids (G, M, string, stack) ---- */

/* Open addressing with linear probing and deletion by backward shift; the
 * key ~0 marks an empty slot, so that key (NoThread's M id, or any id a
 * corrupt trace gives) is kept beside the table. */
#define MAP_EMPTY UINT64_MAX
struct map {
	uint64_t *keys;
	uint64_t *vals;
	size_t cap, len; /* cap a power of two */
	bool has_max;
	uint64_t max_val;
};

static size_t map_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static void map_free(struct map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

static uint64_t *map_get(struct map *m, uint64_t k)
{
	if (k == MAP_EMPTY)
		return m->has_max ? &m->max_val : NULL;
	if (!m->cap)
		return NULL;
	for (size_t i = map_hash(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == k)
			return &m->vals[i];
		if (m->keys[i] == MAP_EMPTY)
			return NULL;
	}
}

static bool map_grow(struct map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	uint64_t *nk = malloc(ncap * sizeof *nk), *nv = malloc(ncap * sizeof *nv);
	if (!nk || !nv) {
		free(nk);
		free(nv);
		return false;
	}
	memset(nk, 0xff, ncap * sizeof *nk);
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i] == MAP_EMPTY)
			continue;
		size_t j = map_hash(m->keys[i], ncap);
		while (nk[j] != MAP_EMPTY)
			j = (j + 1) & (ncap - 1);
		nk[j] = m->keys[i];
		nv[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return true;
}

/* Slot for k, made (value 0) if absent; NULL when out of memory. */
static uint64_t *map_put(struct map *m, uint64_t k, bool *fresh)
{
	uint64_t *v = map_get(m, k);
	if (fresh)
		*fresh = !v;
	if (v)
		return v;
	if (k == MAP_EMPTY) {
		m->has_max = true;
		m->max_val = 0;
		return &m->max_val;
	}
	if ((m->len + 1) * 4 > m->cap * 3 && !map_grow(m))
		return NULL;
	size_t i = map_hash(k, m->cap);
	while (m->keys[i] != MAP_EMPTY)
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = k;
	m->vals[i] = 0;
	m->len++;
	return &m->vals[i];
}

static void map_del(struct map *m, uint64_t k)
{
	if (k == MAP_EMPTY)
		m->has_max = false;
	if (k == MAP_EMPTY || !m->cap)
		return;
	size_t i = map_hash(k, m->cap);
	while (m->keys[i] != k) {
		if (m->keys[i] == MAP_EMPTY)
			return;
		i = (i + 1) & (m->cap - 1);
	}
	/* Backward shift: move later entries of the run into the hole when
	 * their home slot does not lie strictly after it. */
	size_t hole = i;
	for (size_t j = (i + 1) & (m->cap - 1); m->keys[j] != MAP_EMPTY; j = (j + 1) & (m->cap - 1)) {
		size_t home = map_hash(m->keys[j], m->cap);
		bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
		if (movable) {
			m->keys[hole] = m->keys[j];
			m->vals[hole] = m->vals[j];
			hole = j;
		}
	}
	m->keys[hole] = MAP_EMPTY;
	m->len--;
}

static void map_clear(struct map *m)
{
	if (m->cap)
		memset(m->keys, 0xff, m->cap * sizeof *m->keys);
	m->len = 0;
	m->has_max = false;
}

/* ---- The reader's state ---- */

#define NO_THREAD UINT64_MAX
/* Largest generation held in memory: Go's runtime starts a new one about
 * every second, so a generation this large means a program writing over
 * 256 MB of trace per second -- or a corrupt file. */
#define GEN_MAX_BYTES ((size_t)256 << 20)
#define MAX_BATCH ((uint64_t)64 << 10)
#define MAX_STRING 1024
#define MAX_FRAMES 128
/* P ids are dense (0..GOMAXPROCS-1); GOMAXPROCS is at most this many in
 * any runtime the reader could meet. */
#define MAX_PROCS (1 << 20)

enum { G_RUNNABLE = 1, G_RUNNING, G_SYSCALL, G_WAITING };
enum { P_RUNNING = 1, P_IDLE, P_SYSCALL, P_SYSCALL_ABANDONED };
enum { GC_UNDETERMINED, GC_RUNNING, GC_NOT_RUNNING };

/* A G or P's state packs its status and sequence number: a sequence
 * number counts within a generation, so it is kept with the generation. */
struct seqst {
	uint8_t status;
	uint64_t gen, seq;
};

struct batch {
	uint64_t m, ticks;
	size_t pos, len; /* in gen.buf */
	uint64_t foff;   /* file offset of its first data byte */
};

/* One event read from a batch, not yet interpreted. */
struct rawev {
	unsigned type;
	uint64_t args[T122_MAX_ARGS]; /* without dt */
	uint64_t ticks;
	uint64_t foff;
};

/* An M's batches of the generation, in time order, and its next event. */
struct cursor {
	uint64_t m;
	size_t *batches, nbatches, bi, off;
	uint64_t last;
	bool live;
	struct rawev ev;
};

struct mstate {
	uint64_t g; /* 0: none */
	int64_t p;  /* -1: none */
};

/* Events made by one trace event wait here (a G switch makes three). */
#define QMAX 4

struct r122 {
	struct ti_reader base;
	char *path;
	FILE *f;
	int minor;
	uint64_t fpos; /* file offset of the next byte f gives */

	/* The generation being read. */
	uint64_t gen;
	bool have_next_hdr; /* the first batch header of the next one is read */
	uint64_t next_gen, next_m, next_ticks, next_size, next_foff;
	int end_marks; /* Go 1.26's EndOfGeneration bytes since the last batch */
	bool eof;
	unsigned char *buf;
	size_t buflen, bufcap;
	struct batch *batches;
	size_t nbatches, batchcap;
	struct cursor *cur;
	size_t ncur;
	double ns_per_tick;
	bool have_freq;
	char *strarena; /* the generation's strings, NUL-terminated */
	size_t strlen_, strcap;
	struct map strings; /* id -> offset in strarena */
	struct map stacks;  /* id -> string id of the top frame's function (+1; 0: none) */
	struct map roots;   /* id -> the same of its outermost frame: a whole G's
			       stack's is the G's start function */
	struct map sitefr;  /* id -> its first TI_SITE_FRAMES frames in siteframes:
			       offset | count << 48 */
	uint64_t *siteframes; /* (function string id, line) pairs */
	size_t nsiteframes, capsiteframes;

	/* State across generations. */
	uint64_t first_gen;
	struct map gs;      /* G id -> index in gst */
	struct seqst *gst;  /* free slots chained through seq */
	size_t ngst, gstcap, gfree;
	struct seqst *ps;   /* by P id; status 0: never seen */
	size_t nps;
	struct map ms;      /* M id -> index in mst */
	struct mstate *mst;
	size_t nmst, mstcap;
	int gc_state;
	uint64_t gc_seq;
	int64_t procs;

	bool have_t0;
	double t0;
	int64_t last_ts;
	struct ti_event q[QMAX];
	char site[QMAX][256]; /* a queued block's site label, by its slot in q */
	int qhead, qlen;
};

static bool fail(struct r122 *r, struct err *e, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static bool fail(struct r122 *r, struct err *e, uint64_t off, const char *fmt, ...)
{
	char what[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	err_set(e, "%s: offset %llu: %s", r->path, (unsigned long long)off, what);
	return false;
}

/* ---- Reading the file ---- */

/* 1 read, 0 clean end of file (only if at_start), -1 error (set). */
static int read_uvarint_file(struct r122 *r, uint64_t *v, bool may_end, struct err *e)
{
	uint64_t start = r->fpos, x = 0;
	for (int i = 0;; i++) {
		int c = getc(r->f);
		if (c == EOF) {
			if (ferror(r->f))
				return fail(r, e, r->fpos, "read error: %s", strerror(errno)), -1;
			if (i == 0 && may_end)
				return 0;
			return fail(r, e, start, "truncated: the file ends inside a batch header"), -1;
		}
		r->fpos++;
		if (i == 9 && c > 1)
			return fail(r, e, start, "corrupt LEB128 number in a batch header (over 64 bits)"), -1;
		x |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80))
			break;
	}
	*v = x;
	return 1;
}

/* Reads one batch header at the file's position into r->next_*: 1 read,
 * 0 end of file, -1 error. */
static int read_batch_header(struct r122 *r, struct err *e)
{
	for (;;) {
		uint64_t off = r->fpos;
		int c = getc(r->f);
		if (c == EOF) {
			if (ferror(r->f))
				return fail(r, e, off, "read error: %s", strerror(errno)), -1;
			return 0;
		}
		r->fpos++;
		if (c == T122_END_OF_GENERATION && r->minor >= 26) {
			if (r->end_marks++)
				return fail(r, e, off, "two end-of-generation marks with no batch "
						       "between them"), -1;
			continue;
		}
		bool experimental = c == T122_EXPERIMENTAL_BATCH && r->minor >= 23;
		if (c != T122_EVENT_BATCH && !experimental)
			return fail(r, e, off, "expected a batch (type %d), found a byte of type %d",
				    T122_EVENT_BATCH, c), -1;
		if (experimental) {
			if (getc(r->f) == EOF)
				return fail(r, e, off, "truncated: the file ends inside a batch header"), -1;
			r->fpos++;
		}
		uint64_t h[4];
		for (int i = 0; i < 4; i++)
			if (read_uvarint_file(r, &h[i], false, e) < 0)
				return -1;
		if (h[3] > MAX_BATCH)
			return fail(r, e, off, "batch of %llu bytes (at most %llu)",
				    (unsigned long long)h[3], (unsigned long long)MAX_BATCH), -1;
		if (experimental) {
			/* Experiments (heap objects, spans): nothing for a scheduler. */
			for (uint64_t i = 0; i < h[3]; i++)
				if (getc(r->f) == EOF)
					return fail(r, e, off, "truncated: batch of %llu bytes, the file ends first",
						    (unsigned long long)h[3]), -1;
			r->fpos += h[3];
			continue;
		}
		r->next_gen = h[0];
		r->next_m = h[1];
		r->next_ticks = h[2];
		r->next_size = h[3];
		r->next_foff = off;
		return 1;
	}
}

static uint64_t uvarint_mem(const unsigned char *p, size_t n, size_t *used)
{
	uint64_t x = 0;
	for (size_t i = 0; i < n && i < 10; i++) {
		if (i == 9 && p[i] > 1)
			break;
		x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*used = i + 1;
			return x;
		}
	}
	*used = 0; /* truncated or over 64 bits */
	return 0;
}

/* Reads a number at *pos of a batch; false (set) if there is none. */
static bool num(struct r122 *r, const struct batch *b, size_t *pos, uint64_t *v, const char *what,
		struct err *e)
{
	size_t used;
	*v = uvarint_mem(r->buf + b->pos + *pos, b->len - *pos, &used);
	if (!used) {
		uint64_t off = b->foff + *pos;
		size_t left = b->len - *pos;
		bool all_cont = left < 10;
		for (size_t i = 0; all_cont && i < left; i++)
			all_cont = r->buf[b->pos + *pos + i] & 0x80;
		if (all_cont)
			return fail(r, e, off, "truncated %s: the batch ends inside it", what);
		return fail(r, e, off, "corrupt LEB128 %s (over 64 bits)", what);
	}
	*pos += used;
	return true;
}

/* ---- Structural batches: strings, stacks, frequency ---- */

/* The next item of a structural batch, at *pos: its type byte must be
 * type ("expected WHAT (type N)WHERE, found ..." otherwise). */
static bool item(struct r122 *r, const struct batch *b, size_t *pos, unsigned type,
		 const char *what, const char *where, struct err *e)
{
	unsigned t = r->buf[b->pos + *pos];
	if (t != type)
		return fail(r, e, b->foff + *pos, "expected %s (type %u)%s, found type %u", what,
			    type, where, t);
	(*pos)++;
	return true;
}

/* A new id of a generation's table: its slot, or NULL with e set (the id
 * defined twice, or no memory). */
static uint64_t *define(struct r122 *r, struct map *m, uint64_t id, const char *what,
			uint64_t off, struct err *e)
{
	bool fresh;
	uint64_t *slot = map_put(m, id, &fresh);
	if (!slot)
		return fail(r, e, off, "out of memory"), NULL;
	if (!fresh)
		return fail(r, e, off, "%s id %llu defined twice", what, (unsigned long long)id), NULL;
	return slot;
}

static bool add_strings(struct r122 *r, const struct batch *b, struct err *e)
{
	size_t pos = 1;
	while (pos < b->len) {
		uint64_t off = b->foff + pos;
		if (!item(r, b, &pos, T122_STRING, "a string", " in a strings batch", e))
			return false;
		uint64_t id, len;
		if (!num(r, b, &pos, &id, "string id", e) || !num(r, b, &pos, &len, "string length", e))
			return false;
		if (len > MAX_STRING)
			return fail(r, e, off, "string of %llu bytes (at most %d)", (unsigned long long)len,
				    MAX_STRING);
		if (len > b->len - pos)
			return fail(r, e, off, "truncated string: %llu bytes, the batch ends first",
				    (unsigned long long)len);
		uint64_t *slot = define(r, &r->strings, id, "string", off, e);
		if (!slot)
			return false;
		if (r->strlen_ + len + 1 > r->strcap) {
			size_t ncap = (r->strcap ? r->strcap * 2 : 4096) + len + 1;
			char *n = realloc(r->strarena, ncap);
			if (!n)
				return fail(r, e, off, "out of memory");
			r->strarena = n;
			r->strcap = ncap;
		}
		*slot = r->strlen_;
		memcpy(r->strarena + r->strlen_, r->buf + b->pos + pos, len);
		r->strarena[r->strlen_ + len] = 0;
		r->strlen_ += len + 1;
		pos += len;
	}
	return true;
}

static bool add_stacks(struct r122 *r, const struct batch *b, struct err *e)
{
	size_t pos = 1;
	while (pos < b->len) {
		uint64_t off = b->foff + pos;
		if (!item(r, b, &pos, T122_STACK, "a stack", " in a stacks batch", e))
			return false;
		uint64_t id, n, top = 0, root = 0;
		size_t first = r->nsiteframes;
		if (!num(r, b, &pos, &id, "stack id", e) || !num(r, b, &pos, &n, "frame count", e))
			return false;
		if (n > MAX_FRAMES)
			return fail(r, e, off, "stack of %llu frames (at most %d)", (unsigned long long)n,
				    MAX_FRAMES);
		for (uint64_t i = 0; i < n; i++) {
			uint64_t fr[4];
			for (int k = 0; k < 4; k++)
				if (!num(r, b, &pos, &fr[k], "stack frame", e))
					return false;
			if (i == 0 && fr[1])
				top = fr[1] + 1;
			/* string 0 is the empty name of a frame the runtime
			 * could not name */
			if (fr[1])
				root = fr[1] + 1;
			if (i < TI_SITE_FRAMES) {
				if (r->nsiteframes + 2 > r->capsiteframes) {
					r->capsiteframes = r->capsiteframes ? 2 * r->capsiteframes : 256;
					r->siteframes = xrealloc(r->siteframes,
								 r->capsiteframes * sizeof(*r->siteframes));
				}
				r->siteframes[r->nsiteframes++] = fr[1];
				r->siteframes[r->nsiteframes++] = fr[3];
			}
		}
		uint64_t *slot = define(r, &r->stacks, id, "stack", off, e);
		if (!slot)
			return false;
		*slot = top;
		slot = define(r, &r->roots, id, "stack", off, e);
		if (!slot)
			return false;
		*slot = root;
		slot = define(r, &r->sitefr, id, "stack", off, e);
		if (!slot)
			return false;
		*slot = (uint64_t)first | (uint64_t)((r->nsiteframes - first) / 2) << 48;
	}
	return true;
}

static bool set_freq(struct r122 *r, uint64_t freq, uint64_t off, struct err *e)
{
	if (r->have_freq)
		return fail(r, e, off, "a second frequency in generation %llu", (unsigned long long)r->gen);
	if (freq == 0)
		return fail(r, e, off, "tick frequency 0");
	r->ns_per_tick = 1e9 / (double)freq;
	r->have_freq = true;
	return true;
}

/* Go 1.25's Sync batch: Frequency, then ClockSnapshot (wall clock, unused). */
static bool add_sync(struct r122 *r, const struct batch *b, struct err *e)
{
	size_t pos = 1;
	while (pos < b->len) {
		uint64_t off = b->foff + pos;
		unsigned t = r->buf[b->pos + pos++];
		const struct t122_spec *s = t == T122_FREQUENCY || t == T122_CLOCK_SNAPSHOT
						    ? t122_spec(t, r->minor) : NULL;
		if (!s)
			return fail(r, e, off, "unexpected event type %u in a sync batch", t);
		uint64_t a[T122_MAX_ARGS];
		for (int i = 0; i < s->nargs; i++)
			if (!num(r, b, &pos, &a[i], "sync argument", e))
				return false;
		if (t == T122_FREQUENCY && !set_freq(r, a[0], off, e))
			return false;
	}
	return true;
}

static bool check_cpu_samples(struct r122 *r, const struct batch *b, struct err *e)
{
	size_t pos = 1;
	while (pos < b->len) {
		if (!item(r, b, &pos, T122_CPU_SAMPLE, "a CPU sample", "", e))
			return false;
		uint64_t v;
		for (int i = 0; i < 5; i++)
			if (!num(r, b, &pos, &v, "CPU sample", e))
				return false;
	}
	return true;
}

/* ---- Loading a generation ---- */

static int cmp_batch_time(const void *a, const void *b, void *ctx)
{
	const struct batch *bs = ctx;
	const struct batch *x = &bs[*(const size_t *)a], *y = &bs[*(const size_t *)b];
	if (x->ticks != y->ticks)
		return x->ticks < y->ticks ? -1 : 1;
	/* Equal times keep file order. */
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	return ia < ib ? -1 : ia > ib;
}

static void free_cursors(struct r122 *r)
{
	for (size_t i = 0; i < r->ncur; i++)
		free(r->cur[i].batches);
	free(r->cur);
	r->cur = NULL;
	r->ncur = 0;
}

static bool next_event(struct r122 *r, struct cursor *c, struct err *e);

/* GOMAXPROCS for a trace whose first generation has no ProcsChange (Go's
 * hand-written test traces; the runtime writes one when tracing starts):
 * Go writes every P's status in each generation, so it is the number of
 * Ps the first generation names.  Errors are left to the real reading. */
static void infer_procs(struct r122 *r)
{
	int64_t maxp = -1;
	for (size_t i = 0; i < r->nbatches; i++) {
		const struct batch *b = &r->batches[i];
		for (size_t pos = 0; pos < b->len;) {
			const struct t122_spec *sp = t122_spec(r->buf[b->pos + pos], r->minor);
			if (!sp || !sp->timed)
				break;
			unsigned t = r->buf[b->pos + pos++];
			uint64_t a[T122_MAX_ARGS];
			size_t used = 1;
			for (int k = 0; k < sp->nargs && used; k++) {
				a[k] = uvarint_mem(r->buf + b->pos + pos, b->len - pos, &used);
				pos += used;
			}
			if (!used)
				break;
			if (t == T122_PROCS_CHANGE)
				return;
			if ((t == T122_PROC_STATUS || t == T122_PROC_START) && a[1] < MAX_PROCS &&
			    (int64_t)a[1] > maxp)
				maxp = (int64_t)a[1];
		}
	}
	if (maxp < 0)
		return;
	r->procs = maxp + 1;
	r->q[(r->qhead + r->qlen++) % QMAX] = (struct ti_event){
		.ts = 0, .off = r->batches[0].foff, .p = -1, .kind = TI_PROCS, .arg = r->procs };
}

/* Go 1.22-1.24's Frequency batch: the tick frequency alone. */
static bool add_frequency(struct r122 *r, const struct batch *b, struct err *e)
{
	size_t pos = 1;
	uint64_t f;
	return num(r, b, &pos, &f, "frequency", e) && set_freq(r, f, b->foff, e);
}

/* The batches that are not events, by the type of their first byte and
 * the versions that write them. */
typedef bool batch_fn(struct r122 *r, const struct batch *b, struct err *e);
static const struct {
	unsigned type;
	int minor_from, minor_to;
	batch_fn *add;
} structural[] = {
	{ T122_STRINGS, 0, INT_MAX, add_strings },
	{ T122_STACKS, 0, INT_MAX, add_stacks },
	{ T122_CPU_SAMPLES, 0, INT_MAX, check_cpu_samples },
	{ T122_FREQUENCY, 0, 24, add_frequency },
	{ T122_SYNC, 25, INT_MAX, add_sync },
};

/* Takes in one batch of the generation: a structural one's contents, or
 * an event batch kept for the cursors (an empty one is dropped). */
static bool file_batch(struct r122 *r, const struct batch *b, struct err *e)
{
	unsigned first = b->len ? r->buf[b->pos] : 0;
	for (size_t i = 0; i < sizeof structural / sizeof structural[0]; i++)
		if (first == structural[i].type && r->minor >= structural[i].minor_from &&
		    r->minor <= structural[i].minor_to)
			return structural[i].add(r, b, e);
	if (!b->len)
		return true;
	if (r->nbatches == r->batchcap) {
		size_t ncap = r->batchcap ? r->batchcap * 2 : 64;
		struct batch *n = realloc(r->batches, ncap * sizeof *n);
		if (!n)
			return fail(r, e, b->foff, "out of memory");
		r->batches = n;
		r->batchcap = ncap;
	}
	r->batches[r->nbatches++] = *b;
	return true;
}

/* Reads the data of the batch whose header is in r->next_* into r->buf. */
static bool read_batch_data(struct r122 *r, struct batch *b, struct err *e)
{
	if (r->buflen + r->next_size > GEN_MAX_BYTES)
		return fail(r, e, r->next_foff,
			    "generation %llu is over %zu MiB, larger than this reader holds",
			    (unsigned long long)r->gen, GEN_MAX_BYTES >> 20);
	if (r->buflen + r->next_size > r->bufcap) {
		size_t ncap = r->bufcap ? r->bufcap : (1 << 16);
		while (ncap < r->buflen + r->next_size)
			ncap *= 2;
		unsigned char *n = realloc(r->buf, ncap);
		if (!n)
			return fail(r, e, r->next_foff, "out of memory");
		r->buf = n;
		r->bufcap = ncap;
	}
	uint64_t data_off = r->fpos;
	size_t got = r->next_size ? fread(r->buf + r->buflen, 1, r->next_size, r->f) : 0;
	r->fpos += got;
	if (got != r->next_size)
		return fail(r, e, r->next_foff, "truncated: batch of %llu bytes, the file holds %zu",
			    (unsigned long long)r->next_size, got);
	*b = (struct batch){ .m = r->next_m, .ticks = r->next_ticks, .pos = r->buflen,
			     .len = r->next_size, .foff = data_off };
	r->buflen += r->next_size;
	return true;
}

/* Forgets the generation read before, and reads the header that starts
 * the next: false with e set, or with r->eof at the trace's end. */
static bool begin_generation(struct r122 *r, struct err *e)
{
	free_cursors(r);
	r->buflen = r->nbatches = r->strlen_ = 0;
	map_clear(&r->strings);
	map_clear(&r->stacks);
	map_clear(&r->roots);
	map_clear(&r->sitefr);
	r->nsiteframes = 0;
	r->have_freq = false;
	if (!r->have_next_hdr) {
		int got = read_batch_header(r, e);
		if (got < 0)
			return false;
		if (got == 0) {
			r->eof = true;
			return false;
		}
		r->have_next_hdr = true;
	}
	if (r->next_gen == 0)
		return fail(r, e, r->next_foff, "generation 0 (the runtime never writes it)");
	if (r->gen && r->next_gen != r->gen + 1)
		return fail(r, e, r->next_foff, "generation %llu follows generation %llu",
			    (unsigned long long)r->next_gen, (unsigned long long)r->gen);
	r->gen = r->next_gen;
	if (!r->first_gen)
		r->first_gen = r->gen;
	return true;
}

/* Reads the generation's batches, up to the first header of the next
 * (kept in r->next_*) or the end of the file. */
static bool read_batches(struct r122 *r, struct err *e)
{
	for (;;) {
		/* The header in r->next_* is of this generation: read its data. */
		r->have_next_hdr = false;
		struct batch b;
		if (!read_batch_data(r, &b, e) || !file_batch(r, &b, e))
			return false;
		int more = read_batch_header(r, e);
		if (more < 0)
			return false;
		bool ends = more == 0 || r->next_gen != r->gen;
		if (r->minor >= 26 && ends != (r->end_marks > 0))
			return fail(r, e, more ? r->next_foff : r->fpos,
				    ends ? "generation %llu has no end-of-generation mark (a trace cut "
					   "short?)"
					 : "a batch of generation %llu after its end-of-generation mark",
				    (unsigned long long)r->gen);
		r->end_marks = 0;
		if (more == 0)
			return true;
		r->have_next_hdr = true;
		if (ends)
			return true; /* read when this one is done */
	}
}

/* Batch i to its M's cursor, the cursor made on the M's first batch. */
static bool add_to_cursor(struct r122 *r, struct map *mi, size_t i, struct err *e)
{
	bool fresh;
	uint64_t *slot = map_put(mi, r->batches[i].m, &fresh);
	if (!slot)
		return fail(r, e, r->batches[i].foff, "out of memory");
	if (fresh) {
		struct cursor *n = realloc(r->cur, (r->ncur + 1) * sizeof *n);
		if (!n)
			return fail(r, e, r->batches[i].foff, "out of memory");
		r->cur = n;
		memset(&r->cur[r->ncur], 0, sizeof r->cur[0]);
		r->cur[r->ncur].m = r->batches[i].m;
		*slot = r->ncur++;
	}
	struct cursor *c = &r->cur[*slot];
	size_t *nb = realloc(c->batches, (c->nbatches + 1) * sizeof *nb);
	if (!nb)
		return fail(r, e, r->batches[i].foff, "out of memory");
	c->batches = nb;
	c->batches[c->nbatches++] = i;
	return true;
}

/* One cursor per M, in order of the M's first batch in the file, its
 * batches in time order, at its first event. */
static bool make_cursors(struct r122 *r, struct err *e)
{
	struct map mi = { 0 };
	bool ok = true;
	for (size_t i = 0; i < r->nbatches && ok; i++)
		ok = add_to_cursor(r, &mi, i, e);
	map_free(&mi);
	if (!ok)
		return false;
	for (size_t i = 0; i < r->ncur; i++) {
		struct cursor *c = &r->cur[i];
		qsort_r(c->batches, c->nbatches, sizeof *c->batches, cmp_batch_time, r->batches);
		c->live = true;
		if (!next_event(r, c, e))
			return false;
	}
	return true;
}

/* Reads the next generation whole; false with e set on error, or with
 * r->eof when the trace has ended. */
static bool load_generation(struct r122 *r, struct err *e)
{
	if (!begin_generation(r, e))
		return false;
	uint64_t gen_off = r->next_foff;
	if (!read_batches(r, e))
		return false;
	if (!r->have_freq)
		return fail(r, e, gen_off, "generation %llu has no tick frequency",
			    (unsigned long long)r->gen);
	if (!make_cursors(r, e))
		return false;
	if (r->gen == r->first_gen)
		infer_procs(r);
	return true;
}

/* Reads the cursor's next event into c->ev (c->live false at its end). */
static bool next_event(struct r122 *r, struct cursor *c, struct err *e)
{
	while (c->bi < c->nbatches && c->off == r->batches[c->batches[c->bi]].len) {
		c->bi++;
		c->off = 0;
	}
	if (c->bi == c->nbatches) {
		c->live = false;
		return true;
	}
	const struct batch *b = &r->batches[c->batches[c->bi]];
	if (c->off == 0)
		c->last = b->ticks;
	uint64_t off = b->foff + c->off;
	unsigned t = r->buf[b->pos + c->off];
	const struct t122_spec *s = t122_spec(t, r->minor);
	if (!s)
		return fail(r, e, off, "unknown event type %u for a go 1.%d trace", t, r->minor);
	if (!s->timed)
		return fail(r, e, off, "%s (type %u) inside an event batch", s->name, t);
	size_t pos = c->off + 1;
	uint64_t dt;
	if (!num(r, b, &pos, &dt, "time delta", e))
		return false;
	memset(&c->ev, 0, sizeof c->ev);
	for (int i = 1; i < s->nargs; i++)
		if (!num(r, b, &pos, &c->ev.args[i - 1], "event argument", e))
			return false;
	if (dt > UINT64_MAX - c->last)
		return fail(r, e, off, "time overflows 64 bits");
	c->ev.type = t;
	c->ev.ticks = c->last + dt;
	c->ev.foff = off;
	c->last = c->ev.ticks;
	c->off = pos;
	return true;
}

/* ---- G, P and M states ---- */

static struct seqst *gget(struct r122 *r, uint64_t g)
{
	uint64_t *i = map_get(&r->gs, g);
	return i ? &r->gst[*i] : NULL;
}

static struct seqst *gnew(struct r122 *r, uint64_t g)
{
	size_t idx;
	if (r->gfree) {
		idx = r->gfree - 1;
		r->gfree = (size_t)r->gst[idx].seq;
	} else {
		if (r->ngst == r->gstcap) {
			size_t ncap = r->gstcap ? r->gstcap * 2 : 256;
			struct seqst *n = realloc(r->gst, ncap * sizeof *n);
			if (!n)
				return NULL;
			r->gst = n;
			r->gstcap = ncap;
		}
		idx = r->ngst++;
	}
	uint64_t *slot = map_put(&r->gs, g, NULL);
	if (!slot)
		return NULL;
	*slot = idx;
	memset(&r->gst[idx], 0, sizeof r->gst[idx]);
	return &r->gst[idx];
}

static void gdel(struct r122 *r, uint64_t g)
{
	uint64_t *i = map_get(&r->gs, g);
	if (!i)
		return;
	size_t idx = (size_t)*i;
	r->gst[idx].seq = r->gfree;
	r->gfree = idx + 1;
	map_del(&r->gs, g);
}

static struct seqst *pget(struct r122 *r, uint64_t p)
{
	return p < r->nps && r->ps[p].status ? &r->ps[p] : NULL;
}

static struct seqst *pmake(struct r122 *r, uint64_t p)
{
	if (p >= MAX_PROCS)
		return NULL;
	if (p >= r->nps) {
		size_t n = r->nps ? r->nps : 8;
		while (n <= p)
			n *= 2;
		struct seqst *np = realloc(r->ps, n * sizeof *np);
		if (!np)
			return NULL;
		memset(np + r->nps, 0, (n - r->nps) * sizeof *np);
		r->ps = np;
		r->nps = n;
	}
	return &r->ps[p];
}

static struct mstate *mget(struct r122 *r, uint64_t m, bool make)
{
	uint64_t *i = map_get(&r->ms, m);
	if (i)
		return &r->mst[*i];
	if (!make)
		return NULL;
	if (r->nmst == r->mstcap) {
		size_t ncap = r->mstcap ? r->mstcap * 2 : 16;
		struct mstate *n = realloc(r->mst, ncap * sizeof *n);
		if (!n)
			return NULL;
		r->mst = n;
		r->mstcap = ncap;
	}
	uint64_t *slot = map_put(&r->ms, m, NULL);
	if (!slot)
		return NULL;
	*slot = r->nmst;
	r->mst[r->nmst] = (struct mstate){ .g = 0, .p = -1 };
	return &r->mst[r->nmst++];
}

/* Whether seq is the one right after st's in this generation. */
static bool succeeds(const struct seqst *st, uint64_t gen, uint64_t seq)
{
	return st->gen == gen && seq == st->seq + 1;
}

static const char *const gnames[] = { "bad", "runnable", "running", "in a syscall", "waiting" };
static const char *const pnames[] = { "bad", "running", "idle", "in a syscall", "in an abandoned syscall" };

/* ---- Events out ---- */

static void emit(struct r122 *r, const struct rawev *ev, uint16_t kind, uint64_t g, uint64_t target,
		 int32_t p, uint16_t reason, int64_t arg, const char *label)
{
	/* advance checked that it fits in 64 bits. */
	double d = (double)ev->ticks * r->ns_per_tick - r->t0;
	int64_t ts = d > 0 ? (int64_t)d : 0;
	/* Ms' clocks may disagree slightly: time never goes backwards. */
	if (ts < r->last_ts)
		ts = r->last_ts;
	r->last_ts = ts;
	struct ti_event *o = &r->q[(r->qhead + r->qlen++) % QMAX];
	*o = (struct ti_event){ .ts = ts, .off = ev->foff, .g = g, .target = target, .p = p,
				.kind = kind, .reason = reason, .arg = arg, .label = label };
}

static const char *string_at(struct r122 *r, uint64_t id)
{
	uint64_t *o = map_get(&r->strings, id);
	return o ? r->strarena + *o : NULL;
}

/* The function of the frame map keeps for stack id stack (r->stacks: its
 * top, r->roots: its outermost) into *fn, NULL for none or stack 0; false
 * with e set when the generation's tables lack the stack or the name. */
static bool stack_fn(struct r122 *r, const struct rawev *ev, struct map *map, uint64_t stack,
		     const char **fn, struct err *e)
{
	const char *name = specs[ev->type].name;
	*fn = NULL;
	if (!stack)
		return true;
	uint64_t *v = map_get(map, stack);
	if (!v)
		return fail(r, e, ev->foff, "%s: stack id %llu not in the generation's stack table",
			    name, (unsigned long long)stack);
	if (*v && !(*fn = string_at(r, *v - 1)))
		return fail(r, e, ev->foff, "%s: function string id %llu not in the generation's string table",
			    name, (unsigned long long)(*v - 1));
	return true;
}

/* Where a G blocked, for the importer's shared objects [import.c:
 * Channels]: its site (trace/import.h, TI_SITE_FRAMES) in the buffer of the
 * queue slot the next emit fills; NULL if the stack has none (or no stack
 * was taken). */
static const char *block_site(struct r122 *r, uint64_t stack)
{
	uint64_t *v = stack ? map_get(&r->sitefr, stack) : NULL;
	if (!v)
		return NULL;
	size_t at = (size_t)(*v & ((1ull << 48) - 1)), n = (size_t)(*v >> 48);
	for (size_t i = 0; i < n; i++) {
		if (!r->siteframes[at + 2 * i])
			continue;   /* a frame without a name */
		const char *fn = string_at(r, r->siteframes[at + 2 * i]);
		if (!fn)
			return NULL;
		if (ti_library_fn(fn))
			continue;
		char *buf = r->site[(r->qhead + r->qlen) % QMAX];
		snprintf(buf, sizeof r->site[0], "%s:%llu", fn,
			 (unsigned long long)r->siteframes[at + 2 * i + 1]);
		return buf;
	}
	return NULL;
}

static uint16_t block_reason(const char *s)
{
	static const struct { const char *s; uint16_t r; } tab[] = {
		{ "chan send", TI_R_CHAN_SEND }, { "chan receive", TI_R_CHAN_RECV },
		{ "select", TI_R_SELECT }, { "sync", TI_R_SYNC },
		{ "sync.(*Cond).Wait", TI_R_COND }, { "sleep", TI_R_SLEEP },
		{ "network", TI_R_NET }, { "system goroutine wait", TI_R_SYSTEM },
		{ "wait until GC ends", TI_R_GC }, { "GC mark assist wait for work", TI_R_GC },
		{ "GC background sweeper wait", TI_R_GC }, { "preempted", TI_R_PREEMPT },
		{ "runtime.Gosched", TI_R_YIELD },
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (strcmp(s, tab[i].s) == 0)
			return tab[i].r;
	/* "forever", "unspecified", "wait for debug call", and whatever later
	 * Go versions add. */
	return TI_R_OTHER;
}

/* ---- Advancing: whether an M's next event may happen now ---- */

enum { NEED_NOT = -1, MAY = 0, MUST = 1 };

static bool need(struct r122 *r, const struct rawev *ev, uint64_t m, const struct mstate *ms,
		 int p, int g, struct err *e)
{
	const char *name = specs[ev->type].name;
	if (m == NO_THREAD)
		return fail(r, e, ev->foff, "%s outside any M (a batch of no thread)", name);
	if (p == MUST && ms->p < 0)
		return fail(r, e, ev->foff, "%s on M %llu: expected a P, the M has none", name,
			    (unsigned long long)m);
	if (p == NEED_NOT && ms->p >= 0)
		return fail(r, e, ev->foff, "%s on M %llu: expected no P, the M has P %lld", name,
			    (unsigned long long)m, (long long)ms->p);
	if (g == MUST && !ms->g)
		return fail(r, e, ev->foff, "%s on M %llu: expected a running G, the M has none", name,
			    (unsigned long long)m);
	if (g == NEED_NOT && ms->g)
		return fail(r, e, ev->foff, "%s on M %llu: expected no G, the M runs G %llu", name,
			    (unsigned long long)m, (unsigned long long)ms->g);
	return true;
}

/* The running G of the M, in state want. */
static struct seqst *cur_g(struct r122 *r, const struct rawev *ev, const struct mstate *ms,
			   uint8_t want, struct err *e)
{
	struct seqst *g = gget(r, ms->g);
	if (!g)
		return fail(r, e, ev->foff, "%s for G %llu, which does not exist", specs[ev->type].name,
			    (unsigned long long)ms->g), NULL;
	if (g->status != want)
		return fail(r, e, ev->foff, "%s for G %llu, which is %s, not %s", specs[ev->type].name,
			    (unsigned long long)ms->g, gnames[g->status], gnames[want]), NULL;
	return g;
}

static uint16_t status_reason(uint64_t st)
{
	return st == G_SYSCALL ? TI_R_SYSCALL : st == G_WAITING ? TI_R_OTHER : TI_R_NONE;
}

static int on_proc_status(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	uint64_t gen = r->gen;
	uint64_t pid = a[0], st = a[1];
	if (st < P_RUNNING || st > P_SYSCALL_ABANDONED)
		return fail(r, e, ev->foff, "ProcStatus for P %llu: unknown status %llu",
			    (unsigned long long)pid, (unsigned long long)st), -1;
	struct seqst *p = pget(r, pid);
	if (p) {
		if (st == P_SYSCALL_ABANDONED && p->status == P_SYSCALL)
			st = P_SYSCALL; /* nothing lost: it is in a syscall we know */
		else if (!(st == P_SYSCALL_ABANDONED && p->status == P_SYSCALL_ABANDONED) &&
			 p->status != st)
			return fail(r, e, ev->foff, "ProcStatus says P %llu is %s, it was %s",
				    (unsigned long long)pid, pnames[st], pnames[p->status]), -1;
	} else {
		p = pmake(r, pid);
		if (!p)
			return fail(r, e, ev->foff, "P id %llu out of range (at most %d)",
				    (unsigned long long)pid, MAX_PROCS - 1), -1;
	}
	p->status = (uint8_t)st;
	p->gen = gen;
	p->seq = 0;
	/* A P running or in a syscall is its emitter's.  An abandoned one is
	 * not, even when it was in a syscall we know of (st promoted above):
	 * the emitter is usually the M about to steal it, and the M the P is
	 * in a syscall on keeps it until then (as Go's reader binds it). */
	if ((a[1] == P_RUNNING || a[1] == P_SYSCALL) && m != NO_THREAD)
		ms->p = (int64_t)pid;
	return 1;
}

static int on_proc_start(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	uint64_t gen = r->gen;
	struct seqst *p = pget(r, a[0]);
	if (!p || p->status != P_IDLE || !succeeds(p, gen, a[1]) || ms->p >= 0)
		return 0;
	if (!need(r, ev, m, ms, NEED_NOT, MAY, e))
		return -1;
	p->status = P_RUNNING;
	p->seq = a[1];
	ms->p = (int64_t)a[0];
	return 1;
}

static int on_proc_stop(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	if (!need(r, ev, m, ms, MUST, MAY, e))
		return -1;
	struct seqst *p = pget(r, (uint64_t)ms->p);
	if (!p || (p->status != P_RUNNING && p->status != P_SYSCALL))
		return fail(r, e, ev->foff, "ProcStop of P %lld, which is %s", (long long)ms->p,
			    p ? pnames[p->status] : "unknown"), -1;
	p->status = P_IDLE;
	ms->p = -1;
	return 1;
}

static int on_proc_steal(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	uint64_t gen = r->gen;
	uint64_t pid = a[0], victim = a[2];
	struct seqst *p = pget(r, pid);
	if (!p || (p->status != P_SYSCALL && p->status != P_SYSCALL_ABANDONED) ||
	    !succeeds(p, gen, a[1]))
		return 0;
	if (!need(r, ev, m, ms, MAY, MAY, e))
		return -1;
	uint8_t old = p->status;
	p->status = P_IDLE;
	p->seq = a[1];
	if (old == P_SYSCALL_ABANDONED)
		return 1; /* its M is unknown: leave every M as it is */
	if (victim == m) {
		if (ms->p != (int64_t)pid)
			return fail(r, e, ev->foff, "M %llu steals P %llu from itself, but holds P %lld",
				    (unsigned long long)m, (unsigned long long)pid, (long long)ms->p), -1;
		ms->p = -1;
		return 1;
	}
	struct mstate *vm = mget(r, victim, false);
	if (!vm)
		return fail(r, e, ev->foff, "ProcSteal of P %llu from M %llu, which never ran",
			    (unsigned long long)pid, (unsigned long long)victim), -1;
	if (vm->p != (int64_t)pid)
		return fail(r, e, ev->foff, "ProcSteal of P %llu from M %llu, which holds P %lld",
			    (unsigned long long)pid, (unsigned long long)victim, (long long)vm->p), -1;
	vm->p = -1;
	return 1;
}

static int on_go_status(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	const char *name = specs[ev->type].name;
	uint64_t gen = r->gen;
	uint64_t gid = a[0], gm = a[1], st = a[2];
	if (st < G_RUNNABLE || st > G_WAITING)
		return fail(r, e, ev->foff, "%s for G %llu: unknown status %llu", name,
			    (unsigned long long)gid, (unsigned long long)st), -1;
	struct seqst *g = gget(r, gid);
	bool first = false;
	if (g) {
		if (g->status != st)
			return fail(r, e, ev->foff, "%s says G %llu is %s, it was %s", name,
				    (unsigned long long)gid, gnames[st], gnames[g->status]), -1;
	} else if (gen == r->first_gen) {
		g = gnew(r, gid);
		if (!g)
			return fail(r, e, ev->foff, "out of memory"), -1;
		g->status = (uint8_t)st;
		first = true;
	} else
		return fail(r, e, ev->foff, "%s for G %llu, unknown, after the first generation",
			    name, (unsigned long long)gid), -1;
	g->gen = gen;
	g->seq = 0;
	if (st == G_RUNNING) {
		if (m == NO_THREAD)
			return fail(r, e, ev->foff, "%s: G %llu running on no M", name,
				    (unsigned long long)gid), -1;
		ms->g = gid;
	} else if (st == G_SYSCALL) {
		if (gm == NO_THREAD)
			return fail(r, e, ev->foff, "%s: G %llu in a syscall on no M", name,
				    (unsigned long long)gid), -1;
		if (gm == m)
			ms->g = gid;
		else {
			struct mstate *om = mget(r, gm, false);
			if (om && om->g != gid)
				return fail(r, e, ev->foff, "%s: G %llu in a syscall on M %llu, which runs G %llu",
					    name, (unsigned long long)gid, (unsigned long long)gm,
					    (unsigned long long)om->g), -1;
			if (!om) {
				om = mget(r, gm, true);
				if (!om)
					return fail(r, e, ev->foff, "out of memory"), -1;
				if (m != NO_THREAD)
					ms = mget(r, m, false); /* the table may have moved */
				om->g = gid;
			}
		}
	}
	if (first) {
		/* Go 1.23+ gives a G it had not seen in the generation its whole
		 * stack (GoStatusStack): the outermost frame is the G's start
		 * function, which tells the runtime's Gs (GC workers, the trace
		 * reader and advancer) from the program's in a trace that begins
		 * mid-run, such as a flight recorder's snapshot, as a creation's
		 * label does [import.c: add_g]. */
		const char *label = NULL;
		if (ev->type == T122_GO_STATUS_STACK && !stack_fn(r, ev, &r->roots, a[3], &label, e))
			return -1;
		emit(r, ev, TI_G_EXISTS, gid, 0, -1, status_reason(st), 0, label);
		/* Its M's P (-1 in the odd trace whose M names none). */
		if (st == G_RUNNING)
			emit(r, ev, TI_G_START, gid, 0, (int32_t)ms->p, TI_R_NONE, 0, NULL);
	}
	return 1;
}

static int on_go_create(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	const char *name = specs[ev->type].name;
	uint64_t gen = r->gen;
	if (!need(r, ev, m, ms, MUST, MAY, e))
		return -1;
	if (ms->g) {
		struct seqst *cg = gget(r, ms->g);
		if (cg && cg->status != G_RUNNING)
			return fail(r, e, ev->foff, "%s by G %llu, which is %s, not running", name,
				    (unsigned long long)ms->g, gnames[cg->status]), -1;
	}
	uint64_t ng = a[0];
	if (gget(r, ng))
		return fail(r, e, ev->foff, "%s of G %llu, which already exists", name,
			    (unsigned long long)ng), -1;
	const char *label;
	if (!stack_fn(r, ev, &r->stacks, a[1], &label, e))
		return -1;
	struct seqst *g = gnew(r, ng);
	if (!g)
		return fail(r, e, ev->foff, "out of memory"), -1;
	g->status = ev->type == T122_GO_CREATE ? G_RUNNABLE : G_WAITING;
	g->gen = gen;
	g->seq = 0;
	emit(r, ev, TI_G_CREATE, ms->g, ng, -1, TI_R_NONE, 0, label);
	if (ev->type == T122_GO_CREATE_BLOCKED) {
		/* A coroutine (iter.Pull) is made waiting: in the stream, a
		 * start and a block at its creation, a run of no length. */
		emit(r, ev, TI_G_START, ng, 0, (int32_t)ms->p, TI_R_NONE, 0, NULL);
		emit(r, ev, TI_G_BLOCK, ng, 0, -1, TI_R_OTHER, 0, NULL);
	}
	return 1;
}

/* The running G ends, is stopped (preempted, yielded) or blocks: it
 * leaves its M. */
static int on_go_leaves_m(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	const char *name = specs[ev->type].name;
	if (!need(r, ev, m, ms, MUST, MUST, e))
		return -1;
	struct seqst *g = cur_g(r, ev, ms, G_RUNNING, e);
	if (!g)
		return -1;
	uint64_t gid = ms->g;
	ms->g = 0;
	if (ev->type == T122_GO_DESTROY) {
		gdel(r, gid);
		emit(r, ev, TI_G_END, gid, 0, -1, TI_R_NONE, 0, NULL);
		return 1;
	}
	const char *why = string_at(r, a[0]);
	if (!why)
		return fail(r, e, ev->foff, "%s: reason string id %llu not in the generation's string table",
			    name, (unsigned long long)a[0]), -1;
	uint16_t reason = block_reason(why);
	if (ev->type == T122_GO_STOP) {
		g->status = G_RUNNABLE;
		emit(r, ev, TI_G_STOP, gid, 0, -1,
		     reason == TI_R_PREEMPT ? TI_R_PREEMPT : TI_R_YIELD, 0, NULL);
	} else {
		g->status = G_WAITING;
		emit(r, ev, TI_G_BLOCK, gid, 0, -1,
		     reason == TI_R_PREEMPT || reason == TI_R_YIELD ? TI_R_OTHER : reason, 0,
		     block_site(r, a[1]));
		/* the G's own stack: its outermost frame is its start function */
		uint64_t *root = a[1] ? map_get(&r->roots, a[1]) : NULL;
		if (root && *root)
			r->q[(r->qhead + r->qlen - 1) % QMAX].root = string_at(r, *root - 1);
	}
	return 1;
}

static int on_go_start(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	uint64_t gen = r->gen;
	struct seqst *g = gget(r, a[0]);
	if (!g || g->status != G_RUNNABLE || !succeeds(g, gen, a[1]))
		return 0;
	if (!need(r, ev, m, ms, MUST, NEED_NOT, e))
		return -1;
	g->status = G_RUNNING;
	g->seq = a[1];
	ms->g = a[0];
	emit(r, ev, TI_G_START, a[0], 0, (int32_t)ms->p, TI_R_NONE, 0, NULL);
	return 1;
}

static int on_go_unblock(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	uint64_t gen = r->gen;
	struct seqst *g = gget(r, a[0]);
	if (!g || g->status != G_WAITING || !succeeds(g, gen, a[1]))
		return 0;
	g->status = G_RUNNABLE;
	g->seq = a[1];
	emit(r, ev, TI_G_UNBLOCK, ms->g, a[0], -1, TI_R_NONE, 0, NULL);
	return 1;
}

static int on_go_switch(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	uint64_t gen = r->gen;
	/* A coroutine switch: the running G hands its M and P to a
	 * waiting one, and waits (or ends). */
	if (!need(r, ev, m, ms, MUST, MUST, e))
		return -1;
	struct seqst *ng = gget(r, a[0]);
	if (!ng || ng->status != G_WAITING || !succeeds(ng, gen, a[1]))
		return 0;
	struct seqst *g = cur_g(r, ev, ms, G_RUNNING, e);
	if (!g)
		return -1;
	uint64_t gid = ms->g;
	ng->status = G_RUNNING;
	ng->seq = a[1];
	ms->g = a[0];
	emit(r, ev, TI_G_UNBLOCK, gid, a[0], -1, TI_R_NONE, 0, NULL);
	if (ev->type == T122_GO_SWITCH) {
		g->status = G_WAITING;
		emit(r, ev, TI_G_BLOCK, gid, 0, -1, TI_R_OTHER, 0, NULL);
	} else {
		gdel(r, gid);
		emit(r, ev, TI_G_END, gid, 0, -1, TI_R_NONE, 0, NULL);
	}
	emit(r, ev, TI_G_START, a[0], 0, (int32_t)ms->p, TI_R_NONE, 0, NULL);
	return 1;
}

static int on_go_syscall_begin(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	uint64_t gen = r->gen;
	if (!need(r, ev, m, ms, MUST, MUST, e))
		return -1;
	struct seqst *g = cur_g(r, ev, ms, G_RUNNING, e);
	if (!g)
		return -1;
	struct seqst *p = pget(r, (uint64_t)ms->p);
	if (!p)
		return fail(r, e, ev->foff, "GoSyscallBegin on P %lld, never seen",
			    (long long)ms->p), -1;
	if (!succeeds(p, gen, a[0]))
		return fail(r, e, ev->foff, "GoSyscallBegin: P %lld's sequence goes from %llu to %llu",
			    (long long)ms->p, (unsigned long long)p->seq, (unsigned long long)a[0]), -1;
	g->status = G_SYSCALL;
	p->status = P_SYSCALL;
	p->seq = a[0];
	emit(r, ev, TI_SYSCALL, ms->g, 0, -1, TI_R_NONE, 0, NULL);
	return 1;
}

static int on_go_syscall_end(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	if (!need(r, ev, m, ms, MUST, MUST, e))
		return -1;
	struct seqst *g = cur_g(r, ev, ms, G_SYSCALL, e);
	if (!g)
		return -1;
	struct seqst *p = pget(r, (uint64_t)ms->p);
	if (!p || p->status != P_SYSCALL)
		return fail(r, e, ev->foff, "GoSyscallEnd: P %lld is %s, not in a syscall",
			    (long long)ms->p, p ? pnames[p->status] : "unknown"), -1;
	g->status = G_RUNNING;
	p->status = P_RUNNING;
	emit(r, ev, TI_SYSCALL_END, ms->g, 0, -1, TI_R_NONE, 0, NULL);
	return 1;
}

static int on_go_syscall_end_blocked(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	/* Only once the M has lost the P it entered the syscall with. */
	if (ms->p >= 0) {
		struct seqst *p = pget(r, (uint64_t)ms->p);
		if (!p)
			return fail(r, e, ev->foff, "GoSyscallEndBlocked on P %lld, never seen",
				    (long long)ms->p), -1;
		if (p->status == P_SYSCALL)
			return 0;
	}
	if (!need(r, ev, m, ms, MAY, MUST, e))
		return -1;
	struct seqst *g = cur_g(r, ev, ms, G_SYSCALL, e);
	if (!g)
		return -1;
	uint64_t gid = ms->g;
	g->status = G_RUNNABLE;
	ms->g = 0;
	/* With a P the M got one back at once (exitsyscallfast) and
	 * starts the G next: it never queued (import.h) */
	emit(r, ev, TI_SYSCALL_END, gid, 0, -1, TI_R_NONE, ms->p >= 0 ? 2 : 1, NULL);
	return 1;
}

static int on_go_create_syscall(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	uint64_t gen = r->gen;
	/* A G appears out of a C thread calling into Go (cgo callback). */
	if (!need(r, ev, m, ms, MAY, NEED_NOT, e))
		return -1;
	if (gget(r, a[0]))
		return fail(r, e, ev->foff, "GoCreateSyscall of G %llu, which already exists",
			    (unsigned long long)a[0]), -1;
	struct seqst *g = gnew(r, a[0]);
	if (!g)
		return fail(r, e, ev->foff, "out of memory"), -1;
	g->status = G_SYSCALL;
	g->gen = gen;
	g->seq = 0;
	ms->g = a[0];
	/* In the stream: made by no G, running on its own thread (on no
	 * P: p -1), in a syscall -- the C code -- from then on. */
	emit(r, ev, TI_G_CREATE, 0, a[0], -1, TI_R_NONE, 0, NULL);
	emit(r, ev, TI_G_START, a[0], 0, -1, TI_R_NONE, 0, NULL);
	emit(r, ev, TI_SYSCALL, a[0], 0, -1, TI_R_NONE, 0, NULL);
	return 1;
}

static int on_go_destroy_syscall(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	if (!need(r, ev, m, ms, MAY, MUST, e))
		return -1;
	if (!cur_g(r, ev, ms, G_SYSCALL, e))
		return -1;
	uint64_t gid = ms->g;
	gdel(r, gid);
	ms->g = 0;
	if (ms->p >= 0) {
		/* The thread goes back to C: its P is left to be stolen. */
		struct seqst *p = pget(r, (uint64_t)ms->p);
		if (!p || p->status != P_SYSCALL)
			return fail(r, e, ev->foff, "GoDestroySyscall: P %lld is %s, not in a syscall",
				    (long long)ms->p, p ? pnames[p->status] : "unknown"), -1;
		p->status = P_SYSCALL_ABANDONED;
		ms->p = -1;
	}
	/* Back from C, then gone. */
	emit(r, ev, TI_SYSCALL_END, gid, 0, -1, TI_R_NONE, 0, NULL);
	emit(r, ev, TI_G_END, gid, 0, -1, TI_R_NONE, 0, NULL);
	return 1;
}

static int on_gc_active(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	uint64_t gen = r->gen;
	if (gen == r->first_gen) {
		if (r->gc_state != GC_UNDETERMINED)
			return fail(r, e, ev->foff, "GCActive after another GC event of the first generation"), -1;
	} else {
		if (a[0] != r->gc_seq + 1)
			return 0;
		if (r->gc_state != GC_RUNNING)
			return fail(r, e, ev->foff, "GCActive while no GC runs"), -1;
	}
	r->gc_seq = a[0];
	r->gc_state = GC_RUNNING;
	return 1;
}

static int on_gc_begin(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	if (r->gc_state != GC_UNDETERMINED) {
		if (a[0] != r->gc_seq + 1)
			return 0;
		if (r->gc_state == GC_RUNNING)
			return fail(r, e, ev->foff, "GCBegin while a GC runs"), -1;
	}
	r->gc_seq = a[0];
	r->gc_state = GC_RUNNING;
	return 1;
}

static int on_gc_end(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	if (a[0] != r->gc_seq + 1)
		return 0;
	if (r->gc_state != GC_RUNNING)
		return fail(r, e, ev->foff, "GCEnd while no GC runs"), -1;
	r->gc_seq = a[0];
	r->gc_state = GC_NOT_RUNNING;
	return 1;
}

static int on_procs_change(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	if (!need(r, ev, m, ms, MUST, MUST, e))
		return -1;
	if (a[0] == 0 || a[0] > MAX_PROCS)
		return fail(r, e, ev->foff, "GOMAXPROCS %llu", (unsigned long long)a[0]), -1;
	if ((int64_t)a[0] != r->procs) {
		r->procs = (int64_t)a[0];
		emit(r, ev, TI_PROCS, 0, 0, -1, TI_R_NONE, r->procs, NULL);
	}
	return 1;
}

static int on_user_task(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	const uint64_t *a = ev->args;
	const char *name = specs[ev->type].name;
	if (!need(r, ev, m, ms, MUST, MUST, e))
		return -1;
	if (a[0] > INT64_MAX)
		return fail(r, e, ev->foff, "%s: task id %llu too large", name,
			    (unsigned long long)a[0]), -1;
	emit(r, ev, TI_USER_TASK, ms->g, 0, -1, TI_R_NONE,
	     ev->type == T122_USER_TASK_BEGIN ? (int64_t)a[0] : -(int64_t)a[0], NULL);
	return 1;
}

/* Labels, logs, regions, stopping the world, mark assists: on an M that
 * holds a P and runs a G; nothing a scheduler replays. */
static int on_runtime_event(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	return need(r, ev, m, ms, MUST, MUST, e) ? 1 : -1;
}

/* Heap figures and sweeping: on an M that runs a G, with a P or not. */
static int on_runtime_event_on_g(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	return need(r, ev, m, ms, MUST, MAY, e) ? 1 : -1;
}

/* A sweep or an assist under way as a generation starts: no state here. */
static int on_runtime_status(struct r122 *r, const struct rawev *ev, uint64_t m,
		struct mstate *ms, struct err *e)
{
	return 1;
}

/* Each event type's step: 1 it happened (the state moved and what it
 * means was emitted), 0 it cannot happen yet (another M's event must come
 * first), -1 the trace is broken (e says where). */
typedef int step_fn(struct r122 *r, const struct rawev *ev, uint64_t m, struct mstate *ms,
		    struct err *e);
static step_fn *const steps[T122_NTYPES] = {
	[T122_PROC_STATUS] = on_proc_status,
	[T122_PROC_START] = on_proc_start,
	[T122_PROC_STOP] = on_proc_stop,
	[T122_PROC_STEAL] = on_proc_steal,
	[T122_GO_STATUS] = on_go_status,
	[T122_GO_STATUS_STACK] = on_go_status,
	[T122_GO_CREATE] = on_go_create,
	[T122_GO_CREATE_BLOCKED] = on_go_create,
	[T122_GO_DESTROY] = on_go_leaves_m,
	[T122_GO_STOP] = on_go_leaves_m,
	[T122_GO_BLOCK] = on_go_leaves_m,
	[T122_GO_START] = on_go_start,
	[T122_GO_UNBLOCK] = on_go_unblock,
	[T122_GO_SWITCH] = on_go_switch,
	[T122_GO_SWITCH_DESTROY] = on_go_switch,
	[T122_GO_SYSCALL_BEGIN] = on_go_syscall_begin,
	[T122_GO_SYSCALL_END] = on_go_syscall_end,
	[T122_GO_SYSCALL_END_BLOCKED] = on_go_syscall_end_blocked,
	[T122_GO_CREATE_SYSCALL] = on_go_create_syscall,
	[T122_GO_DESTROY_SYSCALL] = on_go_destroy_syscall,
	[T122_GC_ACTIVE] = on_gc_active,
	[T122_GC_BEGIN] = on_gc_begin,
	[T122_GC_END] = on_gc_end,
	[T122_PROCS_CHANGE] = on_procs_change,
	[T122_USER_TASK_BEGIN] = on_user_task,
	[T122_USER_TASK_END] = on_user_task,
	[T122_GO_LABEL] = on_runtime_event,
	[T122_USER_LOG] = on_runtime_event,
	[T122_USER_REGION_BEGIN] = on_runtime_event,
	[T122_USER_REGION_END] = on_runtime_event,
	[T122_STW_BEGIN] = on_runtime_event,
	[T122_STW_END] = on_runtime_event,
	[T122_GC_MARK_ASSIST_BEGIN] = on_runtime_event,
	[T122_GC_MARK_ASSIST_END] = on_runtime_event,
	[T122_HEAP_ALLOC] = on_runtime_event_on_g,
	[T122_HEAP_GOAL] = on_runtime_event_on_g,
	[T122_GC_SWEEP_BEGIN] = on_runtime_event_on_g,
	[T122_GC_SWEEP_END] = on_runtime_event_on_g,
	[T122_GC_SWEEP_ACTIVE] = on_runtime_status,
	[T122_GC_MARK_ASSIST_ACTIVE] = on_runtime_status,
};

/* Returns 1 if the event happened (its state applied, its events queued),
 * 0 if it must wait for another M's events, -1 on error: the checks every
 * event passes, then its type's step. */
static int advance(struct r122 *r, const struct rawev *ev, uint64_t m, struct err *e)
{
	static struct mstate none = { .g = 0, .p = -1 };
	struct mstate scratch = none;
	struct mstate *ms = m == NO_THREAD ? &scratch : mget(r, m, true);
	if (!ms)
		return fail(r, e, ev->foff, "out of memory"), -1;
	const char *name = specs[ev->type].name;
	if (!r->have_t0) {
		/* Times count from the trace's first event (this one, if it may
		 * happen: the earliest of every M's first). */
		r->t0 = (double)ev->ticks * r->ns_per_tick;
		r->have_t0 = true;
	}
	if ((double)ev->ticks * r->ns_per_tick - r->t0 > 9e18)
		return fail(r, e, ev->foff, "%s at tick %llu: over 280 years after the trace's first event",
			    name, (unsigned long long)ev->ticks), -1;

	step_fn *step = steps[ev->type];
	if (!step)
		return fail(r, e, ev->foff, "%s (type %u) inside an event batch", name, ev->type), -1;
	return step(r, ev, m, ms, e);
}

/* ---- The reader ---- */

static int cmp_cursor(const void *a, const void *b, void *ctx)
{
	const struct r122 *r = ctx;
	const struct cursor *x = &r->cur[*(const size_t *)a], *y = &r->cur[*(const size_t *)b];
	if (x->ev.ticks != y->ev.ticks)
		return x->ev.ticks < y->ev.ticks ? -1 : 1;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	return ia < ib ? -1 : ia > ib;
}

/* Applies the next event that may happen; 1 done, 0 generation over, -1. */
static int step(struct r122 *r, struct err *e)
{
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < r->ncur; i++)
		if (r->cur[i].live && (best == SIZE_MAX || r->cur[i].ev.ticks < r->cur[best].ev.ticks))
			best = i;
	if (best == SIZE_MAX)
		return 0;
	int got = advance(r, &r->cur[best].ev, r->cur[best].m, e);
	if (got < 0)
		return -1;
	if (!got) {
		/* The earliest must wait: try the others, earliest first. */
		size_t *order = malloc(r->ncur * sizeof *order), n = 0;
		if (!order)
			return fail(r, e, r->cur[best].ev.foff, "out of memory"), -1;
		for (size_t i = 0; i < r->ncur; i++)
			if (r->cur[i].live && i != best)
				order[n++] = i;
		qsort_r(order, n, sizeof *order, cmp_cursor, r);
		for (size_t k = 0; k < n && !got; k++) {
			got = advance(r, &r->cur[order[k]].ev, r->cur[order[k]].m, e);
			if (got < 0) {
				free(order);
				return -1;
			}
			if (got)
				best = order[k];
		}
		free(order);
		if (!got) {
			const struct cursor *c = &r->cur[best];
			return fail(r, e, c->ev.foff,
				    "broken trace: no M's next event can happen (the earliest, %s on M %llu, "
				    "waits for an event that never comes)",
				    specs[c->ev.type].name, (unsigned long long)c->m), -1;
		}
	}
	return next_event(r, &r->cur[best], e) ? 1 : -1;
}

static int r122_next(struct ti_reader *base, struct ti_event *ev, struct err *e)
{
	struct r122 *r = (struct r122 *)base;
	for (;;) {
		if (r->qlen) {
			*ev = r->q[r->qhead];
			r->qhead = (r->qhead + 1) % QMAX;
			r->qlen--;
			return 1;
		}
		if (r->eof)
			return 0;
		int got = step(r, e);
		if (got < 0)
			return -1;
		if (got == 0 && !load_generation(r, e)) {
			if (r->eof)
				return 0;
			return -1;
		}
	}
}

static void r122_close(struct ti_reader *base)
{
	struct r122 *r = (struct r122 *)base;
	if (r->f)
		fclose(r->f);
	free_cursors(r);
	free(r->path);
	free(r->buf);
	free(r->batches);
	free(r->strarena);
	map_free(&r->strings);
	map_free(&r->stacks);
	map_free(&r->roots);
	map_free(&r->sitefr);
	free(r->siteframes);
	map_free(&r->gs);
	map_free(&r->ms);
	free(r->gst);
	free(r->ps);
	free(r->mst);
	free(r);
}

static const struct ti_ops r122_ops = { .next = r122_next, .close = r122_close };

struct ti_reader *ti_open_go122(const char *path, struct err *e)
{
	struct r122 *r = calloc(1, sizeof *r);
	if (!r || !(r->path = strdup(path))) {
		free(r);
		err_set(e, "%s: out of memory", path);
		return NULL;
	}
	r->base.ops = &r122_ops;
	r->procs = -1;
	r->f = fopen(path, "rb");
	if (!r->f) {
		err_set(e, "%s: %s", path, strerror(errno));
		r122_close(&r->base);
		return NULL;
	}
	unsigned char head[16];
	size_t n = fread(head, 1, sizeof head, r->f);
	r->fpos = n;
	r->minor = ti_header_minor(head, n, r->base.version);
	if (r->minor < 0) {
		err_set(e, "%s: offset 0: not a Go execution trace (no \"go 1.N trace\" header)", path);
		r122_close(&r->base);
		return NULL;
	}
	if (!t122_minor_known(r->minor)) {
		err_set(e, "%s: offset 0: go 1.%d traces are not read by this build (it reads go 1.22, "
			   "1.23 -- also written by Go 1.24 -- 1.25 and 1.26)", path, r->minor);
		r122_close(&r->base);
		return NULL;
	}
	/* Fail now, not at the first ti_next, when the first generation is bad. */
	if (!load_generation(r, e)) {
		if (r->eof)
			err_set(e, "%s: offset %llu: no batches after the header (an empty or cut trace)", path,
				(unsigned long long)r->fpos);
		r122_close(&r->base);
		return NULL;
	}
	return &r->base;
}
