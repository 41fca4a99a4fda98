/* A growable byte buffer and Go's LEB128 numbers, for the writers of Go's
 * trace formats (go.c, go122.c; internal to trace/). */
#ifndef SCHEDLAB_TRACE_BYTES_H
#define SCHEDLAB_TRACE_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct bytes {
	uint8_t *p;
	size_t n, cap;
};

static inline void by_reserve(struct bytes *b, size_t more)
{
	if (b->n + more <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->n + more)
		cap *= 2;
	b->p = xrealloc(b->p, cap);
	b->cap = cap;
}

static inline void by_byte(struct bytes *b, uint8_t v)
{
	by_reserve(b, 1);
	b->p[b->n++] = v;
}

/* Unsigned LEB128, as Go's encoding/binary.PutUvarint writes it. */
static inline void by_uv(struct bytes *b, uint64_t v)
{
	by_reserve(b, 10);
	while (v >= 0x80) {
		b->p[b->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->p[b->n++] = (uint8_t)v;
}

static inline void by_mem(struct bytes *b, const void *p, size_t n)
{
	by_reserve(b, n);
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static inline void by_free(struct bytes *b)
{
	free(b->p);
	*b = (struct bytes){ 0 };
}

#endif
