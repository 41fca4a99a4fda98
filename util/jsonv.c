/* JSON input with exact error messages (see jsonv.h). */
#include "util/jsonv.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

char *jv_read_file(const char *path, struct err *e)
{
	return input_read(path, NULL, e);
}

/* Line and column (from 1) of at in text. */
static void line_col(const char *text, const char *at, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (const char *p = text; p < at && *p; p++) {
		if (*p == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

/* Arrays and objects open at at (cJSON refuses more than
 * CJSON_NESTING_LIMIT, and says only that the text stops parsing). */
static long nesting_at(const char *text, const char *at)
{
	long depth = 0;
	bool in_string = false;
	for (const char *p = text; p < at && *p; p++) {
		if (in_string) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_string = false;
		} else if (*p == '"') {
			in_string = true;
		} else if (*p == '[' || *p == '{') {
			depth++;
		} else if (*p == ']' || *p == '}') {
			depth--;
		}
	}
	return depth;
}

/* ---- NULs ----
 *
 * cJSON ends its strings at a NUL, so "ab\u0000cd" would be read as "ab"
 * without a word.  Where the text escapes a NUL, it is parsed again with
 * each such escape turned into a 0xFF byte, which valid UTF-8 (the callers
 * have checked it) never holds, and the first string holding one is
 * named. */
#define NUL_MARK '\xff'

/* Outside strings valid JSON has no backslash, and inside one a backslash
 * and the character after it are one escape. */
static bool nul_escaped(const char *text)
{
	for (const char *p = text; *p; p++)
		if (*p == '\\') {
			if (p[1] == 'u' && strncmp(p + 2, "0000", 4) == 0)
				return true;
			if (p[1])
				p++;
		}
	return false;
}

static char *nul_marked(const char *text)
{
	char *out = xmalloc(strlen(text) + 1), *o = out;
	for (const char *p = text; *p; p++) {
		if (*p == '\\' && p[1] == 'u' && strncmp(p + 2, "0000", 4) == 0) {
			*o++ = NUL_MARK;
			p += 5;
			continue;
		}
		*o++ = *p;
		if (*p == '\\' && p[1])
			*o++ = *++p;
	}
	*o = '\0';
	return out;
}

/* The path of the first string (or, with *key set, of the object whose
 * key) holding the mark. */
static bool nul_path(const cJSON *v, const char *path, char *out, bool *key)
{
	if (cJSON_IsString(v) && strchr(v->valuestring, NUL_MARK)) {
		snprintf(out, JV_PATH, "%s", path);
		return true;
	}
	int i = 0;
	for (const cJSON *k = v->child; k; k = k->next, i++) {
		char p[JV_PATH];
		if (cJSON_IsObject(v) && strchr(k->string, NUL_MARK)) {
			snprintf(out, JV_PATH, "%s", path);
			return *key = true;
		}
		if (nul_path(k, cJSON_IsObject(v) ? jv_key(p, sizeof(p), path, k->string)
						  : jv_idx(p, sizeof(p), path, i), out, key))
			return true;
	}
	return false;
}

bool jv_nul_escaped(const char *text, char *path, bool *key)
{
	if (!nul_escaped(text))
		return false;
	char *marked = nul_marked(text);
	cJSON *again = cJSON_Parse(marked);
	snprintf(path, JV_PATH, "$");
	*key = false;
	/* at "$" if the walk cannot say where */
	if (again)
		nul_path(again, "$", path, key);
	cJSON_Delete(again);
	free(marked);
	return true;
}

cJSON *jv_parse(const struct jv *j, const char *text)
{
	/* JSON is UTF-8 (RFC 8259); a stray byte would reach names in the
	 * reports, and make them invalid JSON. */
	size_t bad;
	if (!utf8_valid(text, strlen(text), &bad)) {
		int line, col;
		line_col(text, text + bad, &line, &col);
		err_set(j->e, "%s:%d:%d: not valid UTF-8 (byte 0x%02x): JSON text is UTF-8", j->file,
			line, col, (unsigned char)text[bad]);
		return NULL;
	}
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithOpts(text, &end, true);
	char path[JV_PATH];
	bool key;
	if (root && jv_nul_escaped(text, path, &key)) {
		jv_fail(j, path, "%s holds \\u0000 (NUL), which would cut it short: names and "
			"strings are text without NULs", key ? "a key here" : "the string");
		cJSON_Delete(root);
		return NULL;
	}
	if (root)
		return root;
	const char *at = end ? end : cJSON_GetErrorPtr();
	if (!at)
		at = text;
	/* Where an object key was expected (after '{' or ','), cJSON stops one
	 * character past the offending token; point at the token itself. */
	if (at > text && !isspace((unsigned char)at[-1]) && !strchr(",{[:", at[-1])) {
		const char *q = at - 2;
		while (q >= text && isspace((unsigned char)*q))
			q--;
		if (q >= text && (*q == ',' || *q == '{'))
			at--;
	}
	int line, col;
	line_col(text, at, &line, &col);
	if (nesting_at(text, at) >= CJSON_NESTING_LIMIT) {
		err_set(j->e, "%s:%d:%d: JSON nested more than %d levels deep", j->file, line, col,
			CJSON_NESTING_LIMIT);
		return NULL;
	}
	if (!*at && at != text)
		err_set(j->e, "%s:%d:%d: JSON syntax error: unexpected end of input", j->file, line, col);
	else
		err_set(j->e, "%s:%d:%d: JSON syntax error near '%.12s'", j->file, line, col, at);
	return NULL;
}

const char *jv_key(char *buf, size_t n, const char *parent, const char *key)
{
	snprintf(buf, n, "%s.%s", parent, key);
	return buf;
}

const char *jv_idx(char *buf, size_t n, const char *parent, int i)
{
	snprintf(buf, n, "%s[%d]", parent, i);
	return buf;
}

bool jv_fail(const struct jv *j, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *what = xvasprintf(fmt, ap);
	va_end(ap);
	/* err_set shortens the whole, keeping its end: the reason */
	err_set(j->e, "%s: %s: %s", j->file, path, what);
	free(what);
	return false;
}

const char *jv_type_name(const cJSON *v)
{
	if (!v)
		return "nothing";
	if (cJSON_IsObject(v))
		return "an object";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNull(v))
		return "null";
	return "an unknown value";
}

bool jv_object(const struct jv *j, const cJSON *node, const char *path,
	       const char *const *allowed)
{
	if (!cJSON_IsObject(node))
		return jv_fail(j, path, "expected an object, got %s", jv_type_name(node));
	for (const cJSON *it = node->child; it; it = it->next) {
		bool ok = false;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = strcmp(*a, it->string) == 0;
		if (!ok) {
			char list[512] = "";
			size_t len = 0;
			for (const char *const *a = allowed; *a; a++)
				len = str_list_add(list, sizeof(list), len, *a);
			char p[JV_PATH];
			return jv_fail(j, jv_key(p, sizeof(p), path, it->string),
				       "unknown key (expected one of: %s)", list);
		}
		/* cJSON keeps duplicate keys; the second would be silently ignored. */
		for (const cJSON *o = node->child; o != it; o = o->next)
			if (strcmp(o->string, it->string) == 0) {
				char p[JV_PATH];
				return jv_fail(j, jv_key(p, sizeof(p), path, it->string),
					       "key given twice");
			}
	}
	return true;
}

bool jv_array(const struct jv *j, const cJSON *node, const char *path)
{
	if (!cJSON_IsArray(node))
		return jv_fail(j, path, "expected an array, got %s", jv_type_name(node));
	return true;
}

static const cJSON *lookup(const struct jv *j, const cJSON *obj, const char *path,
			   const char *key, bool required, bool *ok)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	*ok = true;
	if (!v && required) {
		char p[JV_PATH];
		*ok = jv_fail(j, jv_key(p, sizeof(p), path, key), "required key is missing");
	}
	return v;
}

bool jv_get_string(const struct jv *j, const cJSON *obj, const char *path, const char *key,
		   bool required, const char **out)
{
	bool ok;
	const cJSON *v = lookup(j, obj, path, key, required, &ok);
	if (!v)
		return ok;
	if (!cJSON_IsString(v)) {
		char p[JV_PATH];
		return jv_fail(j, jv_key(p, sizeof(p), path, key), "expected a string, got %s",
			       jv_type_name(v));
	}
	/* Strings end up in messages, listings and reports, one per line. */
	if (str_has_control(v->valuestring)) {
		char p[JV_PATH];
		return jv_fail(j, jv_key(p, sizeof(p), path, key),
			       "a control character in \"%s\" (names and messages are one line of text)",
			       v->valuestring);
	}
	*out = v->valuestring;
	return true;
}

bool jv_as_int(const struct jv *j, const cJSON *v, const char *path, long min, long max,
	       long *out)
{
	if (!cJSON_IsNumber(v))
		return jv_fail(j, path, "expected an integer, got %s", jv_type_name(v));
	double d = v->valuedouble;
	if (!isfinite(d) || d != floor(d))
		return jv_fail(j, path, "expected an integer, got %g", d);
	if (d < (double)min || d > (double)max)
		return jv_fail(j, path, "must be between %ld and %ld, got %.0f", min, max, d);
	*out = (long)d;
	return true;
}

bool jv_get_int(const struct jv *j, const cJSON *obj, const char *path, const char *key,
		bool required, long min, long max, long *out)
{
	bool ok;
	const cJSON *v = lookup(j, obj, path, key, required, &ok);
	if (!v)
		return ok;
	char p[JV_PATH];
	return jv_as_int(j, v, jv_key(p, sizeof(p), path, key), min, max, out);
}

/* A finite number above 0, or from 0 on when zero_ok. */
static bool as_number(const struct jv *j, const cJSON *v, const char *path, bool zero_ok,
		      double *out)
{
	if (!cJSON_IsNumber(v))
		return jv_fail(j, path, "expected a number, got %s", jv_type_name(v));
	double d = v->valuedouble;
	if (!isfinite(d) || d < 0 || (d == 0 && !zero_ok))
		return jv_fail(j, path, zero_ok ? "must be a number >= 0, got %g"
						: "must be a positive number, got %g", d);
	*out = d;
	return true;
}

bool jv_as_positive(const struct jv *j, const cJSON *v, const char *path, double *out)
{
	return as_number(j, v, path, false, out);
}

bool jv_as_nonneg(const struct jv *j, const cJSON *v, const char *path, double *out)
{
	return as_number(j, v, path, true, out);
}

static bool get_number(const struct jv *j, const cJSON *obj, const char *path, const char *key,
		       bool required, bool zero_ok, double *out)
{
	bool ok;
	const cJSON *v = lookup(j, obj, path, key, required, &ok);
	if (!v)
		return ok;
	char p[JV_PATH];
	return as_number(j, v, jv_key(p, sizeof(p), path, key), zero_ok, out);
}

bool jv_get_nonneg(const struct jv *j, const cJSON *obj, const char *path, const char *key,
		   bool required, double *out)
{
	return get_number(j, obj, path, key, required, true, out);
}

bool jv_get_positive(const struct jv *j, const cJSON *obj, const char *path, const char *key,
		     bool required, double *out)
{
	return get_number(j, obj, path, key, required, false, out);
}

bool jv_as_size(const struct jv *j, const cJSON *v, const char *path, uint64_t *out)
{
	double bytes;
	if (cJSON_IsNumber(v)) {
		long n;
		if (!jv_as_int(j, v, path, 1, 1L << 62, &n))
			return false;
		*out = (uint64_t)n;
		return true;
	}
	if (!cJSON_IsString(v))
		return jv_fail(j, path, "expected a size (bytes, or a string like \"32KiB\"), got %s",
			       jv_type_name(v));
	const char *s = v->valuestring;
	char *end;
	errno = 0;
	bytes = strtod(s, &end);
	if (end == s || errno || !isfinite(bytes) || bytes <= 0)
		return jv_fail(j, path, "bad size \"%s\" (expected a positive number and a unit, like \"32KiB\")", s);
	while (*end == ' ')
		end++;
	static const struct { const char *unit; double mult; } units[] = {
		{ "", 1 }, { "B", 1 },
		{ "K", 1024.0 }, { "KB", 1024.0 }, { "KiB", 1024.0 }, { "kB", 1024.0 },
		{ "M", 1048576.0 }, { "MB", 1048576.0 }, { "MiB", 1048576.0 },
		{ "G", 1073741824.0 }, { "GB", 1073741824.0 }, { "GiB", 1073741824.0 },
		{ "T", 1099511627776.0 }, { "TB", 1099511627776.0 }, { "TiB", 1099511627776.0 },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0) {
			double b = bytes * units[i].mult;
			if (b != floor(b) || b > 4.0e18)
				return jv_fail(j, path, "size \"%s\" is not a whole number of bytes below 4 EB", s);
			*out = (uint64_t)b;
			return true;
		}
	return jv_fail(j, path, "unknown unit in size \"%s\" (use B, KiB, MiB, GiB or TiB)", s);
}

bool jv_get_size(const struct jv *j, const cJSON *obj, const char *path, const char *key,
		 bool required, uint64_t *out)
{
	bool ok;
	const cJSON *v = lookup(j, obj, path, key, required, &ok);
	if (!v)
		return ok;
	char p[JV_PATH];
	return jv_as_size(j, v, jv_key(p, sizeof(p), path, key), out);
}
