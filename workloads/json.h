/* The workload language: JSON documents compiled to the program form of
 * workloads/program.h (the language is docs/workload-format.md), the
 * bundled catalog, and traces (a workload with every sampled value
 * written out, which replays exactly). */
#ifndef SCHEDLAB_WORKLOADS_JSON_H
#define SCHEDLAB_WORKLOADS_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "core/policy.h"
#include "util/jsonv.h"
#include "workloads/program.h"

/* Compiles a workload from JSON text; file labels messages.  NULL with one
 * message in e naming the file, the JSON path and the problem. */
struct workload *wl_compile(const char *file, const char *text, struct err *e);
/* jv_parse, refusing a string or key that escapes a NUL (\u0000), which
 * cJSON's strings would silently end at: one message naming its path. */
cJSON *wl_parse_json(const struct jv *j, const char *text);
/* Steps the compiler has taken in name look-ups and whole-workload checks,
 * over all compiles: for tests that its cost grows linearly. */
extern uint64_t wl__compile_steps;

/* A bundled name, a built-in, or a path to a workload or a trace.  A
 * trace's seed is in *trace_seed (and *is_trace set). */
struct workload *wl_load(const char *spec, bool *is_trace, uint64_t *trace_seed, struct err *e);
/* The file's text, as wl_load reads it: a trace or a workload. */
struct workload *wl_load_text(const char *file, const char *text, bool *is_trace,
			      uint64_t *trace_seed, struct err *e);

/* The bundled catalog (workloads/catalog/ *.json). */
int wl_catalog_count(void);
const char *wl_catalog_name(int i);
const char *wl_catalog_text(int i);

/* Writes w as a trace: a header line with the workload and the seed, then
 * one line per random stream with its draws in order.  recs are every
 * draw of a run, in the order drawn. */
void wl_write_trace(FILE *f, const struct workload *w, uint64_t seed, const struct rt_draw *recs,
		    size_t n);

#endif
