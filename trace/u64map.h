/* A map from 64-bit keys to 64-bit values, by open addressing: the trace
 * readers' and the importer's G tables (internal to trace/). */
#ifndef SCHEDLAB_TRACE_U64MAP_H
#define SCHEDLAB_TRACE_U64MAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct u64map {
	uint64_t *k, *v;
	uint8_t *used;
	size_t cap, n;
};

static inline size_t um_slot(const struct u64map *m, uint64_t k)
{
	uint64_t h = k * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 17) & (m->cap - 1);
	while (m->used[i] && m->k[i] != k)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static inline uint64_t *um_get(const struct u64map *m, uint64_t k)
{
	if (!m->cap)
		return NULL;
	size_t i = um_slot(m, k);
	return m->used[i] ? &m->v[i] : NULL;
}

static inline void um_put(struct u64map *m, uint64_t k, uint64_t v);

static inline void um_grow(struct u64map *m)
{
	struct u64map old = *m;
	m->cap = old.cap ? old.cap * 2 : 64;
	m->k = xcalloc(m->cap, sizeof(*m->k));
	m->v = xcalloc(m->cap, sizeof(*m->v));
	m->used = xcalloc(m->cap, 1);
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.used[i])
			um_put(m, old.k[i], old.v[i]);
	free(old.k);
	free(old.v);
	free(old.used);
}

static inline void um_put(struct u64map *m, uint64_t k, uint64_t v)
{
	if ((m->n + 1) * 2 > m->cap)
		um_grow(m);
	size_t i = um_slot(m, k);
	if (!m->used[i]) {
		m->used[i] = 1;
		m->k[i] = k;
		m->n++;
	}
	m->v[i] = v;
}

/* Deletion with backward shift, so lookups need no tombstones. */
static inline void um_del(struct u64map *m, uint64_t k)
{
	if (!m->cap)
		return;
	size_t i = um_slot(m, k);
	if (!m->used[i])
		return;
	m->used[i] = 0;
	m->n--;
	size_t j = i;
	for (;;) {
		j = (j + 1) & (m->cap - 1);
		if (!m->used[j])
			return;
		uint64_t h = m->k[j] * 0x9e3779b97f4a7c15ull;
		size_t want = (size_t)(h >> 17) & (m->cap - 1);
		/* Move j back to i unless its home lies cyclically in (i, j]. */
		bool stays = i <= j ? (want > i && want <= j) : (want > i || want <= j);
		if (stays)
			continue;
		m->k[i] = m->k[j];
		m->v[i] = m->v[j];
		m->used[i] = 1;
		m->used[j] = 0;
		i = j;
	}
}

static inline void um_free(struct u64map *m)
{
	free(m->k);
	free(m->v);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

#endif
