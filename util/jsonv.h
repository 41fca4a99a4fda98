/* JSON input with exact error messages: parsing with line and column, and
 * typed look-ups that reject unknown keys and wrong types, each message
 * naming the file and the JSON path ("$.latency.dram_ns.local").
 *
 * Every function returns false after filling the error; callers stop at the
 * first problem, so a user sees one precise message. */
#ifndef SCHEDLAB_JSONV_H
#define SCHEDLAB_JSONV_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "util/util.h"

struct jv {
	const char *file;   /* label used in messages */
	struct err *e;
};

/* Reads a whole file; NULL with a message if it cannot. */
char *jv_read_file(const char *path, struct err *e);
/* Parses text; on a syntax error the message gives line and column.  A
 * text that escapes a NUL (\u0000) is refused, naming the string. */
cJSON *jv_parse(const struct jv *j, const char *text);

/* Formats "PARENT.key" / "PARENT[i]" into buf and returns buf. */
const char *jv_key(char *buf, size_t n, const char *parent, const char *key);
const char *jv_idx(char *buf, size_t n, const char *parent, int i);
#define JV_PATH 256
/* Whether the JSON text escapes a NUL (\u0000), at which cJSON would cut a
 * string short; if so, path (JV_PATH bytes) gets the JSON path ("$.a[2]")
 * of the first string holding one, or of the object with such a key
 * (*key set). */
bool jv_nul_escaped(const char *text, char *path, bool *key);

/* What v is, for messages: "an object", "a number", "nothing" (NULL)... */
const char *jv_type_name(const cJSON *v);

bool jv_fail(const struct jv *j, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* node must be an object whose keys are all in allowed (NULL-terminated). */
bool jv_object(const struct jv *j, const cJSON *node, const char *path,
	       const char *const *allowed);
bool jv_array(const struct jv *j, const cJSON *node, const char *path);
/* Look-ups of obj[key]; a missing optional key leaves *out alone and
 * succeeds; a missing required key fails. */
bool jv_get_string(const struct jv *j, const cJSON *obj, const char *path, const char *key,
		   bool required, const char **out);
bool jv_get_int(const struct jv *j, const cJSON *obj, const char *path, const char *key,
		bool required, long min, long max, long *out);
bool jv_get_positive(const struct jv *j, const cJSON *obj, const char *path, const char *key,
		     bool required, double *out);
/* A size: a whole number of bytes or a string like "32KiB", "1.25MiB",
 * "16GiB" (K, M, G, T with or without "iB"/"B" are binary multiples). */
bool jv_get_size(const struct jv *j, const cJSON *obj, const char *path, const char *key,
		 bool required, uint64_t *out);
bool jv_as_positive(const struct jv *j, const cJSON *v, const char *path, double *out);
/* A finite number >= 0 (a cost that may be nothing). */
bool jv_get_nonneg(const struct jv *j, const cJSON *obj, const char *path, const char *key,
		   bool required, double *out);
bool jv_as_nonneg(const struct jv *j, const cJSON *v, const char *path, double *out);
bool jv_as_int(const struct jv *j, const cJSON *v, const char *path, long min, long max,
	       long *out);
bool jv_as_size(const struct jv *j, const cJSON *v, const char *path, uint64_t *out);

#endif
