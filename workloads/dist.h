/* Distributions: every duration, size and count in a workload may be one
 * (constant, uniform, exponential, normal, lognormal, pareto, bimodal, or an
 * empirical table), sampled with GSL from streams derived from the run's
 * seed, so a workload plus a seed is one exact run.
 *
 * Samples are whole numbers (ns, bytes or a count): a real draw is rounded to
 * the nearest integer and clamped to [0, DIST_VALUE_MAX], so callers can add
 * a few of them without overflow.
 *
 * JSON forms (C: a constant in the unit, as a number or a unit string; X: a
 * plain number):
 *   C                                           a constant (a whole number)
 *   {"uniform": {"min": C, "max": C}}           min <= max; with whole bounds
 *                                               every integer in [min, max] is
 *                                               equally likely
 *   {"exponential": {"mean": C}}                mean > 0
 *   {"normal": {"mean": C, "stddev": C}}        stddev > 0; negatives clamp to 0
 *   {"lognormal": {"median": C, "sigma": X}}    median, sigma > 0
 *   {"pareto": {"scale": C, "shape": X}}        scale, shape > 0
 *   {"bimodal": {"p": X, "a": D, "b": D}}       a with probability p, else b
 *   {"empirical": {"values": [C...], "weights": [X...]}}  weights optional
 * Times are ns or strings "250ns", "10us", "10µs", "1.5ms", "2s"; sizes are
 * bytes or strings "512B", "64KiB", "1.5MiB", "4GiB" (binary multiples). */
#ifndef SCHEDLAB_WORKLOADS_DIST_H
#define SCHEDLAB_WORKLOADS_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_rng.h>

#include "util/jsonv.h"

#define DIST_VALUE_MAX (INT64_MAX / 4)
#define DIST_MAX_DEPTH 8   /* nested bimodal distributions */

enum dist_unit { DIST_TIME, DIST_SIZE, DIST_COUNT };   /* how constants are written */

enum dist_kind {
	DIST_CONST,
	DIST_UNIFORM,
	DIST_EXPONENTIAL,
	DIST_NORMAL,
	DIST_LOGNORMAL,
	DIST_PARETO,
	DIST_BIMODAL,
	DIST_EMPIRICAL,
};

struct dist;

/* Parses the JSON value v found at path (e.g. "$.programs.main[3].compute").
 * On a problem, returns NULL with one message in j->e naming j->file, the
 * JSON path of the offending value and what is wrong. */
struct dist *dist_parse(const struct jv *j, const cJSON *v, const char *path,
			enum dist_unit unit);
/* A constant (clamped to [0, DIST_VALUE_MAX]). */
struct dist *dist_const(int64_t v);
void dist_free(struct dist *d);

bool dist_is_const(const struct dist *d, int64_t *value);
enum dist_kind dist_kind(const struct dist *d);
/* An upper bound of the samples if one exists (constant, uniform,
 * empirical, bimodal of bounded ones): true and *max; else false. */
bool dist_max(const struct dist *d, int64_t *max);
/* The analytic mean, rounding and clamping ignored; INFINITY for a pareto
 * with shape <= 1 (or a bimodal that may pick one). */
double dist_mean(const struct dist *d);
/* One sample.  A constant draws nothing, so r may be NULL for one. */
int64_t dist_sample(const struct dist *d, gsl_rng *r);
/* The distribution as JSON in canonical form: numbers in ns, bytes or a
 * count, never unit strings; dist_parse of it samples identically. */
cJSON *dist_to_json(const struct dist *d);

/* Per-goroutine random streams.  A million Gs each need their own stream in
 * 8 bytes of state, keyed by where the G sits in the spawn tree (the root's
 * key is any constant, e.g. 0; a child's is dist_key_child of its parent's),
 * so that sampled values do not depend on scheduling order and two policies
 * see the same values.
 *
 * The generator is splitmix64 (Vigna) wrapped as a gsl_rng_type, so GSL's
 * distribution functions draw from it.  dist_rng_use points one gsl_rng at a
 * caller-owned state word, which later draws advance; switching Gs is one
 * call.  gsl_rng_set on it detaches it from the caller's word and seeds a
 * word of its own; gsl_rng_clone / gsl_rng_memcpy of a generator that uses
 * its own word must not outlive the original. */
gsl_rng *dist_rng_new(void);                    /* free with gsl_rng_free */
void dist_rng_use(gsl_rng *r, uint64_t *state);
/* A well-mixed initial state for stream key of a run. */
uint64_t dist_stream_seed(uint64_t run_seed, uint64_t key);
/* The key of a parent's index-th child: distinct for the children of one
 * parent, and for others as unlikely to collide as random 64-bit values. */
uint64_t dist_key_child(uint64_t parent_key, uint64_t index);

#endif
