/* The results store: its exact one-line JSON, its reader, its CSV. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/policy.h"
#include "exp/spec.h"
#include "exp/store.h"
#include "util/jsonv.h"
#include "util/output.h"

/* ---- Exact compact JSON ---- */

struct buf {
	char *s;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void buf_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void print_number(struct buf *b, double v)
{
	char t[40];
	if (!isfinite(v)) {
		snprintf(t, sizeof(t), "null");
	} else if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		snprintf(t, sizeof(t), "%.0f", v);
		if (strcmp(t, "-0") == 0)
			snprintf(t, sizeof(t), "0");
	} else {
		for (int digits = 15; digits <= 17; digits++) {
			snprintf(t, sizeof(t), "%.*g", digits, v);
			if (strtod(t, NULL) == v)
				break;
		}
	}
	buf_str(b, t);
}

static void print_string(struct buf *b, const char *s)
{
	buf_add(b, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[8];
		switch (*p) {
		case '"': buf_add(b, "\\\"", 2); break;
		case '\\': buf_add(b, "\\\\", 2); break;
		case '\n': buf_add(b, "\\n", 2); break;
		case '\r': buf_add(b, "\\r", 2); break;
		case '\t': buf_add(b, "\\t", 2); break;
		case '\b': buf_add(b, "\\b", 2); break;
		case '\f': buf_add(b, "\\f", 2); break;
		default:
			if (*p < 0x20) {
				snprintf(esc, sizeof(esc), "\\u%04x", *p);
				buf_str(b, esc);
			} else {
				buf_add(b, (const char *)p, 1);
			}
		}
	}
	buf_add(b, "\"", 1);
}

static void print_item(struct buf *b, const cJSON *o)
{
	const cJSON *c;
	bool first = true;
	if (cJSON_IsObject(o)) {
		buf_add(b, "{", 1);
		cJSON_ArrayForEach(c, o) {
			if (!first)
				buf_add(b, ",", 1);
			first = false;
			print_string(b, c->string);
			buf_add(b, ":", 1);
			print_item(b, c);
		}
		buf_add(b, "}", 1);
	} else if (cJSON_IsArray(o)) {
		buf_add(b, "[", 1);
		cJSON_ArrayForEach(c, o) {
			if (!first)
				buf_add(b, ",", 1);
			first = false;
			print_item(b, c);
		}
		buf_add(b, "]", 1);
	} else if (cJSON_IsNumber(o)) {
		print_number(b, o->valuedouble);
	} else if (cJSON_IsString(o)) {
		print_string(b, o->valuestring);
	} else if (cJSON_IsTrue(o)) {
		buf_str(b, "true");
	} else if (cJSON_IsFalse(o)) {
		buf_str(b, "false");
	} else {
		buf_str(b, "null");
	}
}

char *exp_json_line(const cJSON *o)
{
	struct buf b = { NULL, 0, 0 };
	buf_add(&b, "", 0);
	print_item(&b, o);
	return b.s;
}

/* ---- Reading ---- */

static const char *const statuses[] = { "ok", "deadlock", "panic", "limit", "crashed", "error" };

/* A key of a row, and the cJSON_ type bits it may have. */
struct row_key {
	const char *key;
	int type;
};

static const char *type_wanted(int type)
{
	return type & cJSON_Number ? "a number" :
	       type == cJSON_Object ? "an object" :
	       type & cJSON_Object ? "an object or null" :
	       type & cJSON_NULL ? "a string or null" : "a string";
}

/* Every key of keys in obj, of its type; prefix names obj in messages. */
static bool check_keys(const cJSON *obj, const char *prefix, const struct row_key *keys,
		       size_t n, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, keys[i].key);
		if (!v) {
			err_set(e, "%s.%s: missing", prefix, keys[i].key);
			return false;
		}
		if (!(v->type & keys[i].type)) {
			err_set(e, "%s.%s: expected %s", prefix, keys[i].key,
				type_wanted(keys[i].type));
			return false;
		}
	}
	return true;
}

/* The row's place: a store version this build reads, and its index (and
 * runs, if given) in a matrix. */
static bool check_place(const cJSON *row, struct err *e)
{
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(row, "store");
	if (ver->valuedouble != EXP_STORE_VERSION) {
		err_set(e, ".store: %g is not a store row version this schedlab reads (%d)",
			ver->valuedouble, EXP_STORE_VERSION);
		return false;
	}
	/* index < runs <= EXP_MAX_RUNS, the largest matrix a command makes:
	 * merge counts and lists a matrix's missing runs from them */
	const cJSON *idx = cJSON_GetObjectItemCaseSensitive(row, "index");
	if (!(idx->valuedouble >= 0 && idx->valuedouble < EXP_MAX_RUNS) ||
	    idx->valuedouble != floor(idx->valuedouble)) {
		err_set(e, ".index: %g is not a run's index (a whole number from 0 to %d)",
			idx->valuedouble, EXP_MAX_RUNS - 1);
		return false;
	}
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(row, "runs");
	if (runs && (!cJSON_IsNumber(runs) || !(runs->valuedouble > idx->valuedouble) ||
		     runs->valuedouble > EXP_MAX_RUNS ||
		     runs->valuedouble != floor(runs->valuedouble))) {
		err_set(e, ".runs: expected the matrix's number of runs, a whole number above "
			".index (%g) and at most %d", idx->valuedouble, EXP_MAX_RUNS);
		return false;
	}
	const char *m = cJSON_GetObjectItemCaseSensitive(row, "matrix")->valuestring;
	if (strlen(m) != 16 || strspn(m, "0123456789abcdef") != 16) {
		err_set(e, ".matrix: \"%.40s\" is not 16 lowercase hex digits", m);
		return false;
	}
	return true;
}

/* obj's key, a number, is whole and in [min, max] (a row read from a
 * cluster's job is checked before a reader casts it); the words are
 * report/store.c's, which checks the same keys. */
static bool whole(const cJSON *obj, const char *prefix, const char *key, double min, double max,
		  struct err *e)
{
	double v = cJSON_GetObjectItemCaseSensitive(obj, key)->valuedouble;
	if (v >= min && v <= max && v == floor(v))
		return true;
	err_set(e, "%s.%s: expected a whole number from %.0f to %.0f, got %g", prefix, key, min,
		max, v);
	return false;
}

/* The numbers a reader turns into integers (a seed as a double is exact
 * up to 2^53), the mode, and the knobs' values. */
static bool check_values(const cJSON *row, struct err *e)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(row, "inputs");
	if (!whole(row, "", "exit_status", 0, 255, e) ||
	    !whole(in, ".inputs", "procs", 1, RT_MAX_PROCS, e) ||
	    !whole(in, ".inputs", "seed", 0, 9007199254740992.0, e))
		return false;
	const char *mode = cJSON_GetObjectItemCaseSensitive(in, "mode")->valuestring;
	if (strcmp(mode, "sim") != 0 && strcmp(mode, "native") != 0) {
		err_set(e, ".inputs.mode: '%.40s' is not a mode (sim, native)", mode);
		return false;
	}
	const cJSON *k;
	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(in, "set"))
		if (!cJSON_IsNumber(k)) {
			err_set(e, ".inputs.set.%.60s: expected a number (a knob's value)", k->string);
			return false;
		}
	return true;
}

bool exp_row_check(const cJSON *row, struct err *e)
{
	static const struct row_key keys[] = {
		{ "store", cJSON_Number }, { "schedlab", cJSON_String }, { "commit", cJSON_String },
		{ "matrix", cJSON_String }, { "index", cJSON_Number }, { "variant", cJSON_String },
		{ "inputs", cJSON_Object }, { "status", cJSON_String },
		{ "exit_status", cJSON_Number }, { "message", cJSON_String | cJSON_NULL },
		{ "report", cJSON_Object | cJSON_NULL },
	};
	static const struct row_key inputs[] = {
		{ "mode", cJSON_String }, { "policy", cJSON_String }, { "set", cJSON_Object },
		{ "topology", cJSON_String }, { "workload", cJSON_String },
		{ "procs", cJSON_Number }, { "seed", cJSON_Number },
	};
	if (!cJSON_IsObject(row)) {
		err_set(e, "a row is a JSON object");
		return false;
	}
	if (!check_keys(row, "", keys, sizeof(keys) / sizeof(keys[0]), e) ||
	    !check_place(row, e))
		return false;
	const char *st = cJSON_GetObjectItemCaseSensitive(row, "status")->valuestring;
	bool known = false;
	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		known = known || strcmp(st, statuses[i]) == 0;
	if (!known) {
		err_set(e, ".status: \"%.40s\" is not one of ok, deadlock, panic, limit, crashed, "
			"error", st);
		return false;
	}
	return check_keys(cJSON_GetObjectItemCaseSensitive(row, "inputs"), ".inputs", inputs,
			  sizeof(inputs) / sizeof(inputs[0]), e) &&
	       check_values(row, e);
}

int exp_lines_read(struct exp_lines *r, size_t max, char **buf, size_t *cap)
{
	size_t n = 0;
	bool any = false;
	for (;;) {
		if (r->pos == r->len) {
			if (r->eof)
				break;
			r->len = fread(r->blk, 1, sizeof(r->blk), r->f);
			r->pos = 0;
			if (r->len == 0) {
				r->eof = true;
				break;
			}
		}
		any = true;
		const char *from = r->blk + r->pos;
		size_t avail = r->len - r->pos;
		const char *nl = memchr(from, '\n', avail);
		size_t take = nl ? (size_t)(nl - from) : avail;
		if (memchr(from, '\0', take))
			return EXP_LINE_NUL;
		if (n + take > max)
			return EXP_LINE_LONG;
		if (n + take + 1 > *cap) {
			while (n + take + 1 > *cap)
				*cap = *cap ? 2 * *cap : 1 << 16;
			*buf = xrealloc(*buf, *cap);
		}
		memcpy(*buf + n, from, take);
		n += take;
		r->pos += take + (nl != NULL);
		r->off += take + (nl != NULL);
		if (nl)
			break;
	}
	if (!any && n == 0)
		return EXP_LINE_EOF;
	if (!*buf)
		*buf = xmalloc(*cap = 1 << 16);
	(*buf)[n] = '\0';
	return EXP_LINE_OK;
}

/* A store is read a line at a time (input_read's 64 MiB bound is a
 * workload's; a store of 20,000 runs is about 1 GiB). */
bool exp_store_scan(const char *path, exp_row_fn *fn, void *ctx, struct err *e)
{
	FILE *f = input_fopen(path, e);
	if (!f)
		return false;
	char *shown = str_shown(path, 256);
	long line = 0;
	size_t size = 0;
	char *p = NULL;
	int got;
	bool ok = true;
	struct exp_lines *lr = xcalloc(1, sizeof(*lr));
	lr->f = f;
	for (;;) {
		uint64_t offset = lr->off;
		if (!ok || (got = exp_lines_read(lr, EXP_STORE_MAX_LINE, &p, &size)) == EXP_LINE_EOF)
			break;
		line++;
		if (got == EXP_LINE_NUL) {
			err_set(e, "%s:%ld: a NUL byte: not a text file", shown, line);
			ok = false;
			break;
		}
		if (got == EXP_LINE_LONG) {
			err_set(e, "%s:%ld: a row longer than %zu MiB", shown, line,
				EXP_STORE_MAX_LINE >> 20);
			ok = false;
			break;
		}
		size_t n = strlen(p);
		if (lr->off > EXP_STORE_MAX_BYTES) {
			err_set(e, "%s:%ld: the store passes %zu MiB, the most schedlab reads: split "
				"the matrix", shown, line, EXP_STORE_MAX_BYTES >> 20);
			ok = false;
			break;
		}
		struct err re = { "" };
		cJSON *row = exp_row_parse(p, n, &re);
		if (!row && re.msg[0]) {
			err_set(e, "%s:%ld: %s", shown, line, re.msg);
			ok = false;
		} else if (row) {
			ok = fn(ctx, row, line, offset, n, e);
		}
	}
	if (ok && ferror(f)) {
		err_set(e, "%s: %s", shown, strerror(errno));
		ok = false;
	}
	free(p);
	free(lr);
	fclose(f);
	free(shown);
	return ok;
}

cJSON *exp_row_parse(const char *p, size_t n, struct err *e)
{
	while (n > 0 && p[n - 1] == '\r')
		n--;
	if (strspn(p, " \t") >= n)
		return NULL;            /* a blank line is no row */
	size_t bad;
	if (!utf8_valid(p, n, &bad)) {
		err_set(e, "not UTF-8 (at column %zu)", bad + 1);
		return NULL;
	}
	const char *end = NULL;
	cJSON *row = cJSON_ParseWithLengthOpts(p, n, &end, false);
	struct err re = { "" };
	char path[JV_PATH];
	bool key;
	if (!row) {
		err_set(e, "not JSON (at column %ld)", end ? (long)(end - p) + 1 : 1L);
	} else if (end && (size_t)(end - p) < n && strspn(end, " \t") < n - (size_t)(end - p)) {
		err_set(e, "more than one JSON value on the line");
	} else if (!exp_row_check(row, &re)) {
		err_set(e, "%s", re.msg);
	} else if (jv_nul_escaped(p, path, &key)) {
		/* p is NUL-terminated past its n bytes by each caller, and what
		 * follows them is at most a \r */
		err_set(e, "%s: %s holds \\u0000 (NUL), which would cut it short",
			path[1] ? path + 1 : "the row",
			key ? "a key here" : "the string");
	} else {
		return row;
	}
	cJSON_Delete(row);
	return NULL;
}

/* exp_store_read's: every row kept, in file order. */
static bool keep_row(void *ctx, cJSON *row, long line, uint64_t offset, size_t len, struct err *e)
{
	(void)offset, (void)len, (void)e;
	struct exp_store *s = ctx;
	if ((s->nrows & (s->nrows - 1)) == 0) {
		size_t cap = s->nrows ? 2 * (size_t)s->nrows : 1;
		s->rows = xrealloc(s->rows, cap * sizeof(*s->rows));
		s->lines = xrealloc(s->lines, cap * sizeof(*s->lines));
	}
	s->lines[s->nrows] = line;
	s->rows[s->nrows++] = row;
	return true;
}

struct exp_store *exp_store_read(const char *path, struct err *e)
{
	struct exp_store *s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	if (!exp_store_scan(path, keep_row, s, e)) {
		exp_store_free(s);
		return NULL;
	}
	return s;
}

void exp_store_free(struct exp_store *s)
{
	if (!s)
		return;
	for (long i = 0; i < s->nrows; i++)
		cJSON_Delete(s->rows[i]);
	free(s->rows);
	free(s->lines);
	free(s->path);
	free(s);
}

const cJSON *exp_json_dotted(const cJSON *o, const char *path)
{
	for (const char *p = path; o;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		const cJSON *next = NULL;
		const cJSON *c;
		cJSON_ArrayForEach(c, o)
			if (c->string && strlen(c->string) == n && strncmp(c->string, p, n) == 0) {
				next = c;
				break;
			}
		o = next;
		if (!dot)
			break;
		p = dot + 1;
	}
	return o;
}

const cJSON *exp_row_metric(const cJSON *row, const char *path)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(row, "report");
	return exp_json_dotted(cJSON_GetObjectItemCaseSensitive(o, "metrics"), path);
}

bool exp_row_metric_number(const cJSON *row, const char *path, double *v)
{
	const cJSON *m = exp_row_metric(row, path);
	if (!cJSON_IsNumber(m))
		return false;
	*v = m->valuedouble;
	return true;
}

/* ---- Writing ---- */

static void write_jsonl(FILE *f, const struct exp_rows *rows)
{
	for (long i = 0; i < rows->n; i++) {
		char *line = exp_json_line(rows->get(rows->ctx, i));
		fprintf(f, "%s\n", line);
		free(line);
	}
}

/* The CSV's columns past the fixed ones: names in order of first
 * appearance. */
struct columns {
	char **names;
	long n, cap;
};

static long column_find(const struct columns *c, const char *name)
{
	for (long i = 0; i < c->n; i++)
		if (strcmp(c->names[i], name) == 0)
			return i;
	return -1;
}

static void column_add(struct columns *c, const char *name)
{
	if (column_find(c, name) >= 0)
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->names = xrealloc(c->names, (size_t)c->cap * sizeof(*c->names));
	}
	c->names[c->n++] = xstrdup(name);
}

/* Every scalar leaf (number, string, bool) under o, by dotted path. */
static void leaves(struct columns *c, const cJSON *o, const char *prefix)
{
	const cJSON *k;
	cJSON_ArrayForEach(k, o) {
		char *name = prefix[0] ? xasprintf("%s.%s", prefix, k->string) : xstrdup(k->string);
		if (cJSON_IsObject(k))
			leaves(c, k, name);
		else if (!cJSON_IsArray(k) && !cJSON_IsNull(k))
			column_add(c, name);
		free(name);
	}
}

/* A CSV field: quoted if it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_value(FILE *f, const cJSON *v)
{
	if (cJSON_IsNumber(v)) {
		cJSON tmp = *v;
		tmp.next = tmp.prev = tmp.child = NULL;
		tmp.string = NULL;
		char *s = exp_json_line(&tmp);
		fputs(s, f);
		free(s);
	} else if (cJSON_IsString(v)) {
		csv_field(f, v->valuestring);
	} else if (cJSON_IsTrue(v)) {
		fputs("true", f);
	} else if (cJSON_IsFalse(v)) {
		fputs("false", f);
	}
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static void write_csv(FILE *f, const struct exp_rows *rows)
{
	long n = rows->n;
	static const char *const fixed[] = {
		"index", "variant", "status", "exit_status", "mode", "policy", "topology",
		"workload", "procs", "seed", "schedlab", "commit",
	};
	struct columns knobs = { 0 }, metrics = { 0 };
	for (long i = 0; i < n; i++) {
		const cJSON *report = get(rows->get(rows->ctx, i), "report");
		const cJSON *k;
		cJSON_ArrayForEach(k, get(report, "knobs")) {
			char *name = xasprintf("knob.%s", k->string);
			column_add(&knobs, name);
			free(name);
		}
		leaves(&metrics, get(report, "metrics"), "");
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		fprintf(f, "%s%s", i ? "," : "", fixed[i]);
	for (long i = 0; i < knobs.n; i++) {
		fputc(',', f);
		csv_field(f, knobs.names[i]);
	}
	for (long i = 0; i < metrics.n; i++) {
		fputc(',', f);
		csv_field(f, metrics.names[i]);
	}
	fputc('\n', f);
	for (long r = 0; r < n; r++) {
		const cJSON *row = rows->get(rows->ctx, r), *in = get(row, "inputs");
		const cJSON *report = get(row, "report");
		const cJSON *vals[] = {
			get(row, "index"), get(row, "variant"), get(row, "status"),
			get(row, "exit_status"), get(in, "mode"), get(in, "policy"),
			get(in, "topology"), get(in, "workload"), get(in, "procs"), get(in, "seed"),
			get(row, "schedlab"), get(row, "commit"),
		};
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			if (i)
				fputc(',', f);
			csv_value(f, vals[i]);
		}
		for (long i = 0; i < knobs.n; i++) {
			fputc(',', f);
			csv_value(f, get(get(report, "knobs"), knobs.names[i] + strlen("knob.")));
		}
		for (long i = 0; i < metrics.n; i++) {
			fputc(',', f);
			csv_value(f, exp_row_metric(row, metrics.names[i]));
		}
		fputc('\n', f);
	}
	for (long i = 0; i < knobs.n; i++)
		free(knobs.names[i]);
	for (long i = 0; i < metrics.n; i++)
		free(metrics.names[i]);
	free(knobs.names);
	free(metrics.names);
}

static const cJSON *array_row(void *ctx, long i)
{
	return ((cJSON *const *)ctx)[i];
}

void exp_store_write_jsonl(FILE *f, cJSON *const *rows, long n)
{
	write_jsonl(f, &(struct exp_rows){ n, array_row, (void *)rows });
}

void exp_store_write_csv(FILE *f, cJSON *const *rows, long n)
{
	write_csv(f, &(struct exp_rows){ n, array_row, (void *)rows });
}

int exp_store_save_rows(const char *cmd, const char *opt, const char *path, bool csv,
			const struct exp_rows *rows)
{
	struct output o;
	if (!output_start(&o, cmd, opt, path))
		return EXIT_BADINPUT;
	if (csv)
		write_csv(o.f, rows);
	else
		write_jsonl(o.f, rows);
	return output_finish(&o, cmd);
}

int exp_store_save(const char *cmd, const char *opt, const char *path, bool csv,
		   cJSON *const *rows, long n)
{
	return exp_store_save_rows(cmd, opt, path, csv, &(struct exp_rows){ n, array_row, (void *)rows });
}
