/* A large valid Go 1.22 trace, written straight in the wire format. */
#include "tests/trace122/synth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/read122.h"

/* One M's open batch. */
struct bw {
	unsigned char data[64 << 10];
	size_t n;
	uint64_t m, base, last;
	bool open;
};

struct synth {
	FILE *f;
	uint64_t gen, tick, written;
	struct bw b[2];
};

static size_t uv(unsigned char *p, uint64_t v)
{
	size_t n = 0;
	do {
		p[n] = v & 0x7f;
		v >>= 7;
		if (v)
			p[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

static void batch_out(struct synth *s, uint64_t m, uint64_t time, const unsigned char *d, size_t n)
{
	unsigned char h[64];
	size_t k = 0;
	h[k++] = T122_EVENT_BATCH;
	k += uv(h + k, s->gen);
	k += uv(h + k, m);
	k += uv(h + k, time);
	k += uv(h + k, n);
	fwrite(h, 1, k, s->f);
	fwrite(d, 1, n, s->f);
	s->written += k + n;
}

static void flush(struct synth *s, struct bw *b)
{
	if (b->open && b->n)
		batch_out(s, b->m, b->base, b->data, b->n);
	b->open = false;
	b->n = 0;
}

/* An event on M m, at the next tick. */
static void ev(struct synth *s, int m, unsigned type, int nargs, const uint64_t *args)
{
	struct bw *b = &s->b[m];
	if (b->open && b->n + 64 > sizeof b->data)
		flush(s, b);
	uint64_t t = ++s->tick;
	if (!b->open) {
		b->open = true;
		b->base = b->last = t;
	}
	b->data[b->n++] = (unsigned char)type;
	b->n += uv(b->data + b->n, t - b->last);
	b->last = t;
	for (int i = 0; i < nargs; i++)
		b->n += uv(b->data + b->n, args[i]);
}

#define EV(s, m, type, ...)                                                  \
	do {                                                                 \
		const uint64_t a_[] = { __VA_ARGS__ };                       \
		ev(s, m, type, (int)(sizeof a_ / sizeof a_[0]), a_);         \
	} while (0)

static void gen_end(struct synth *s)
{
	flush(s, &s->b[0]);
	flush(s, &s->b[1]);
	unsigned char d[256];
	size_t n = 0;
	d[n++] = T122_FREQUENCY;
	n += uv(d + n, 1000000000);
	batch_out(s, UINT64_MAX, s->tick, d, n);
	n = 0;
	d[n++] = T122_STACKS;
	d[n++] = T122_STACK;
	n += uv(d + n, 1); /* id */
	n += uv(d + n, 1); /* frames */
	n += uv(d + n, 4096);
	n += uv(d + n, 2); /* func: main.worker */
	n += uv(d + n, 3); /* file */
	n += uv(d + n, 7); /* line */
	batch_out(s, UINT64_MAX, s->tick, d, n);
	static const char *const strs[] = { "chan receive", "main.worker", "synth.go" };
	n = 0;
	d[n++] = T122_STRINGS;
	for (int i = 0; i < 3; i++) {
		d[n++] = T122_STRING;
		n += uv(d + n, (uint64_t)i + 1);
		n += uv(d + n, strlen(strs[i]));
		memcpy(d + n, strs[i], strlen(strs[i]));
		n += strlen(strs[i]);
	}
	batch_out(s, UINT64_MAX, s->tick, d, n);
}

bool t122_synth(const char *path, uint64_t bytes, uint64_t gen_bytes, uint64_t *cycles,
		uint64_t *gens, struct err *e)
{
	struct synth *s = calloc(1, sizeof *s);
	if (!s) {
		err_set(e, "out of memory");
		return false;
	}
	s->f = fopen(path, "wb");
	if (!s->f) {
		err_set(e, "%s: %s", path, strerror(errno));
		free(s);
		return false;
	}
	s->b[0].m = 0;
	s->b[1].m = 1;
	fwrite("go 1.22 trace\0\0\0", 1, 16, s->f);
	s->written = 16;
	uint64_t next_g = 2;
	*cycles = 0;
	while (s->written < bytes) {
		s->gen++;
		uint64_t gen_start = s->written;
		EV(s, 0, T122_PROC_STATUS, 0, 1);
		EV(s, 0, T122_GO_STATUS, 1, 0, 2);
		if (s->gen == 1)
			EV(s, 0, T122_PROCS_CHANGE, 2, 0);
		EV(s, 1, T122_PROC_STATUS, 1, 1);
		/* main's sequence number restarts with its status. */
		uint64_t seq = 0;
		while (s->written - gen_start < gen_bytes && s->written < bytes) {
			uint64_t g = next_g++;
			EV(s, 0, T122_GO_CREATE, g, 1, 0);
			EV(s, 0, T122_GO_BLOCK, 1, 0);
			EV(s, 1, T122_GO_START, g, 1);
			EV(s, 1, T122_GO_UNBLOCK, 1, ++seq, 0);
			EV(s, 1, T122_GO_DESTROY);
			EV(s, 0, T122_GO_START, 1, ++seq);
			(*cycles)++;
			/* Batches count when flushed: flush now and then. */
			if (s->b[0].n > 60000)
				flush(s, &s->b[0]);
			if (s->b[1].n > 60000)
				flush(s, &s->b[1]);
		}
		gen_end(s);
	}
	*gens = s->gen;
	bool ok = !ferror(s->f);
	if (fclose(s->f) != 0)
		ok = false;
	if (!ok)
		err_set(e, "%s: write error", path);
	free(s);
	return ok;
}
