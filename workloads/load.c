/* Finding a workload by name or path, the bundled catalog, and traces.
 *
 * A trace is JSON lines: first {"schedlab_trace": 1, "seed": N,
 * "workload": {...}} with the workload's own document, then one line per
 * random stream that drew anything, {"stream": "KEY", "draws": [...]},
 * with its draws in the order they were drawn.  Replaying it runs the
 * workload with every distribution answered from those lines instead of
 * sampled, so a trace replays the run it was expanded from exactly, and
 * can be edited value by value. */
#include "workloads/json.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/import.h"
#include "util/jsonv.h"

extern const struct { const char *name; const char *text; } wl_catalog_files[];
extern const size_t wl_catalog_files_count;
#define wl_catalog wl_catalog_files

int wl_catalog_count(void)
{
	return (int)wl_catalog_files_count;
}

const char *wl_catalog_name(int i)
{
	return wl_catalog[i].name;
}

const char *wl_catalog_text(int i)
{
	return wl_catalog[i].text;
}

static int cmp_trace(const void *a, const void *b)
{
	const struct trace_g *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The lines after a trace's header. */
static bool read_streams(const char *file, const char *text, struct workload *w, struct err *e)
{
	int line = 2;
	uint32_t cap = 0;
	for (const char *p = text; *p; line++) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *s = xmalloc(len + 1);
		memcpy(s, p, len);
		s[len] = '\0';
		p += len + (nl ? 1 : 0);
		bool blank = strspn(s, " \t\r") == len;
		if (blank) {
			free(s);
			continue;
		}
		/* allocated: a long path must not push the line number out */
		char *label = xasprintf("%s: line %d", file, line);
		struct jv j = { label, e };
		cJSON *o = wl_parse_json(&j, s);
		free(s);
		static const char *const keys[] = { "stream", "draws", NULL };
		const char *key = NULL;
		const cJSON *draws;
		char *end;
		if (!o || !jv_object(&j, o, "$", keys) || !jv_get_string(&j, o, "$", "stream", true, &key))
			goto bad;
		uint64_t k = strtoull(key, &end, 16);
		if (strlen(key) != 16 || *end) {
			jv_fail(&j, "$.stream", "expected 16 hexadecimal digits");
			goto bad;
		}
		draws = cJSON_GetObjectItemCaseSensitive(o, "draws");
		if (!draws || !cJSON_IsArray(draws)) {
			jv_fail(&j, "$.draws", "expected an array of whole numbers");
			goto bad;
		}
		if (w->ntrace == cap) {
			cap = cap ? 2 * cap : 16;
			w->trace = xrealloc(w->trace, cap * sizeof(*w->trace));
		}
		struct trace_g *t = &w->trace[w->ntrace++];
		t->key = k;
		t->ndraws = (uint32_t)cJSON_GetArraySize(draws);
		t->draws = xmalloc((t->ndraws + 1) * sizeof(*t->draws));
		int i = 0;
		for (const cJSON *d = draws->child; d; d = d->next, i++) {
			char path[JV_PATH];
			long v;
			if (!jv_as_int(&j, d, jv_idx(path, sizeof(path), "$.draws", i), 0, INT64_MAX / 4, &v))
				goto bad;
			t->draws[i] = (uint64_t)v;
		}
		cJSON_Delete(o);
		free(label);
		continue;
bad:
		cJSON_Delete(o);
		free(label);
		return false;
	}
	qsort(w->trace, w->ntrace, sizeof(*w->trace), cmp_trace);
	for (uint32_t i = 1; i < w->ntrace; i++) {
		if (w->trace[i].key == w->trace[i - 1].key) {
			err_set(e, "%s: stream %016" PRIx64 " is given twice", file, w->trace[i].key);
			return false;
		}
	}
	return true;
}

/* A JSON number is a double, exact up to 2^53: a larger seed is written
 * as a string of digits (wl_write_trace), and a larger number refused
 * rather than replayed with another seed. */
#define SEED_EXACT (1ull << 53)

static bool read_seed(const struct jv *j, const cJSON *s, uint64_t *seed)
{
	if (s && cJSON_IsString(s)) {
		const char *t = s->valuestring;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(t, &end, 10);
		if (!isdigit((unsigned char)*t) || *end || errno)
			return jv_fail(j, "$.seed", "expected a whole number from 0 to 2^64 - 1, got \"%s\"",
				       t);
		*seed = v;
		return true;
	}
	double d;
	if (!s || !cJSON_IsNumber(s) || !((d = s->valuedouble) >= 0) || d != floor(d))
		return jv_fail(j, "$.seed", "expected a non-negative whole number");
	if (d > (double)SEED_EXACT)
		return jv_fail(j, "$.seed", "%.17g is past 2^53, where JSON numbers lose digits: "
			       "write the seed as a string of its digits", d);
	*seed = (uint64_t)d;
	return true;
}

/* A trace: its header, then its streams. */
static struct workload *load_trace(const char *file, const char *text, uint64_t *seed,
				   struct err *e)
{
	const char *nl = strchr(text, '\n');
	size_t len = nl ? (size_t)(nl - text) : strlen(text);
	char *head = xmalloc(len + 1);
	memcpy(head, text, len);
	head[len] = '\0';
	char *label = xasprintf("%s: line 1", file);
	struct jv j = { label, e };
	cJSON *o = wl_parse_json(&j, head);
	free(head);
	struct workload *w = NULL;
	static const char *const keys[] = { "schedlab_trace", "seed", "workload", NULL };
	long version;
	if (!o || !jv_object(&j, o, "$", keys) ||
	    !jv_get_int(&j, o, "$", "schedlab_trace", true, 1, 1, &version))
		goto out;
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "seed");
	const cJSON *doc = cJSON_GetObjectItemCaseSensitive(o, "workload");
	if (!read_seed(&j, s, seed))
		goto out;
	if (!doc || !cJSON_IsObject(doc)) {
		jv_fail(&j, "$.workload", "expected the workload's document");
		goto out;
	}
	char *wtext = cJSON_PrintUnformatted(doc);
	w = wl_compile(label, wtext, e);
	free(wtext);
	if (w)   /* a trace, even one that drew nothing: replay never samples */
		w->trace = xcalloc(1, sizeof(*w->trace));
	if (w && !read_streams(file, nl ? nl + 1 : "", w, e)) {
		wl_free(w);
		w = NULL;
	}
out:
	cJSON_Delete(o);
	free(label);
	return w;
}

/* A Go execution trace, imported on the fly (trace/import.c). */
static struct workload *wl_import_go(const char *path, struct err *e)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		err_set(e, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct ti_stats st;
	char *name = path_stem(path);
	bool ok = ti_import(path, name, f, &st, e);
	free(name);
	fclose(f);
	struct workload *w = ok ? wl_compile(path, text, e) : NULL;
	free(text);
	return w;
}

/* The first n bytes of fd at most (fewer at its end), into head. */
static size_t read_head(int fd, unsigned char *head, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, head + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

struct workload *wl_load(const char *spec, bool *is_trace, uint64_t *trace_seed, struct err *e)
{
	*is_trace = false;
	for (int i = 0; i < wl_catalog_count(); i++)
		if (strcmp(spec, wl_catalog[i].name) == 0) {
			char label[300];
			snprintf(label, sizeof(label), "workloads/catalog/%s.json (bundled)", spec);
			return wl_compile(label, wl_catalog[i].text, e);
		}
	for (int i = 0; i < wl_builtin_count(); i++)
		if (strcmp(spec, wl_builtin_name(i)) == 0)
			return wl_builtin(spec, e);
	if (!strchr(spec, '/') && !strchr(spec, '.')) {
		char names[1024] = "";
		size_t len = 0;
		for (int i = 0; i < wl_catalog_count(); i++)
			len = str_list_add(names, sizeof(names), len, wl_catalog[i].name);
		err_set(e, "no workload named '%s' (bundled: %s; or give a path to a .json file)", spec,
			names);
		return NULL;
	}
	/* The file is opened once, and its first bytes say what it is: a pipe
	 * or a FIFO can be read once only, so its head is kept for the text
	 * after it.  A Go trace's readers open it again by name (a file). */
	int fd = input_open(spec, e);
	if (fd < 0)
		return NULL;
	unsigned char head[16];
	size_t n = read_head(fd, head, sizeof(head));
	if (ti_header_minor(head, n, NULL) >= 0) {
		struct stat st;
		bool file = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
		close(fd);
		if (file)
			return wl_import_go(spec, e);
		err_set(e, "%s: a Go execution trace is read from a file, not a pipe or FIFO: "
			"save it to a file first", spec);
		return NULL;
	}
	char *text = input_read_fd(fd, spec, head, n, NULL, e);
	if (!text)
		return NULL;
	struct workload *w = wl_load_text(spec, text, is_trace, trace_seed, e);
	free(text);
	return w;
}

struct workload *wl_load_text(const char *file, const char *text, bool *is_trace,
			      uint64_t *trace_seed, struct err *e)
{
	const char *p = text + strspn(text, " \t\r\n");
	*is_trace = strncmp(p, "{\"schedlab_trace\"", 17) == 0;
	return *is_trace ? load_trace(file, p, trace_seed, e) : wl_compile(file, text, e);
}

static int cmp_draw(const void *a, const void *b)
{
	const struct rt_draw *const *x = a, *const *y = b;
	if ((*x)->key != (*y)->key)
		return (*x)->key < (*y)->key ? -1 : 1;
	return *x < *y ? -1 : *x > *y;   /* drawn first, first: the order within a stream */
}

void wl_write_trace(FILE *f, const struct workload *w, uint64_t seed, const struct rt_draw *recs,
		    size_t n)
{
	const char *q = seed > SEED_EXACT ? "\"" : "";
	fprintf(f, "{\"schedlab_trace\":1,\"seed\":%s%" PRIu64 "%s,\"workload\":%s}\n", q, seed, q,
		w->source_json ? w->source_json : "null");
	const struct rt_draw **by = xmalloc((n + 1) * sizeof(*by));
	for (size_t i = 0; i < n; i++)
		by[i] = &recs[i];
	qsort(by, n, sizeof(*by), cmp_draw);
	for (size_t i = 0; i < n;) {
		size_t k = i;
		fprintf(f, "{\"stream\":\"%016" PRIx64 "\",\"draws\":[", by[i]->key);
		for (; k < n && by[k]->key == by[i]->key; k++)
			fprintf(f, "%s%" PRId64, k == i ? "" : ",", by[k]->v);
		fprintf(f, "]}\n");
		i = k;
	}
	free(by);
}
