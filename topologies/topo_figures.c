/* The latency model's figures: the specs of topo_figlist.h's list, with
 * the look-ups the loader and calibrate use; `topo --json`'s latency object
 * written from them; and where each figure comes from: the list of a
 * machine's figures (topo__finish builds it, every one a default), the JSON
 * loader's marking of the figures a file sets ("given") and of those its
 * "provenance" object describes (measured, published, assumption), and the
 * file's free-form "measurements" (docs/topology.md, "Provenance"). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/topo.h"
#include "topologies/topo_figlist.h"
#include "util/jsonv.h"

const char *const topo_fig_kind_names[] = {
	[TOPO_FIG_DEFAULT] = "default",
	[TOPO_FIG_GIVEN] = "given",
	[TOPO_FIG_MEASURED] = "measured",
	[TOPO_FIG_PUBLISHED] = "published",
	[TOPO_FIG_ASSUMPTION] = "assumption",
	[TOPO_FIG_DERIVED] = "derived",
};

const struct topo_fig_spec topo_fig_specs[] = {
#define X(shape, path, where, count, unit, lo, hi, use, source, doc) \
	{ path, TOPO_SHAPE_##shape, where, count, unit, lo, hi, TOPO_##use, source, doc },
	TOPO_FIGURES(X)
#undef X
};
const int topo_nfig_specs = (int)(sizeof(topo_fig_specs) / sizeof(topo_fig_specs[0]));

static const char SRC_HOP_RULE[] = "each hop past the list adds its last step (half the first figure when it has one)";

const struct topo_fig_spec *topo_fig_spec_find(const char *path)
{
	for (int i = 0; i < topo_nfig_specs; i++)
		if (strcmp(topo_fig_specs[i].path, path) == 0)
			return &topo_fig_specs[i];
	return NULL;
}

double *topo_fig_value(struct topo_latency *lat, const struct topo_fig_spec *s)
{
	return (double *)((char *)lat + s->off);
}

static int *hop_count(struct topo_latency *lat, const struct topo_fig_spec *s)
{
	return (int *)((char *)lat + s->count_off);
}

bool topo_fig_one_number(const char *section)
{
	/* "os_ns.wakeup": 4000 is every relation's wake-up */
	return strcmp(section, "os_ns.wakeup") == 0;
}

void topo_fig_keys(const char *section, bool sizes, struct topo_fig_keys *k)
{
	size_t n = strlen(section);
	k->n = 0;
	for (int i = 0; i < topo_nfig_specs; i++) {
		const char *p = topo_fig_specs[i].path;
		if ((topo_fig_specs[i].shape == TOPO_SHAPE_SIZE) != sizes)
			continue;
		if (n && (strncmp(p, section, n) != 0 || p[n] != '.'))
			continue;
		const char *key = n ? p + n + 1 : p;
		size_t len = strcspn(key, ".");
		if (k->n && strlen(k->name[k->n - 1]) == len &&
		    strncmp(k->name[k->n - 1], key, len) == 0)
			continue;  /* a section's figures are together (ORDER) */
		snprintf(k->name[k->n], sizeof(k->name[0]), "%.*s", (int)len, key);
		k->list[k->n] = k->name[k->n];
		k->n++;
	}
	k->list[k->n] = NULL;
}

/* ---- The listing ---- */

/* What the figure list is built from: the machine, and its relations. */
struct fig_build {
	struct topo *t;
	int cap;
	bool has_level[TOPO_MAX_LEVEL + 1];
	bool smt, groups, package;
};

static void add(struct fig_build *b, const char *src, const char *unit, bool applies,
		double value, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void add(struct fig_build *b, const char *src, const char *unit, bool applies,
		double value, const char *fmt, ...)
{
	struct topo *t = b->t;
	if (t->nfigures == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		t->figures = xrealloc(t->figures, sizeof(*t->figures) * (size_t)b->cap);
	}
	va_list ap;
	va_start(ap, fmt);
	char *path = xvasprintf(fmt, ap);
	va_end(ap);
	t->figures[t->nfigures++] = (struct topo_figure){
		.path = path, .value = value, .unit = unit, .applies = applies,
		.kind = TOPO_FIG_DEFAULT, .prov = -1, .default_source = src,
	};
}

static bool applies(const struct fig_build *b, enum topo_fig_use use)
{
	const struct topo *t = b->t;
	bool matrix = t->dram_matrix != NULL;
	switch (use) {
	case TOPO_USE_L1:
	case TOPO_USE_L2:
	case TOPO_USE_L3:
	case TOPO_USE_L4:
		return b->has_level[1 + use - TOPO_USE_L1];
	case TOPO_USE_SMT:
		return b->smt;
	case TOPO_USE_GROUPS:
		return b->groups;
	case TOPO_USE_PACKAGE:
		return b->package;
	case TOPO_USE_NO_MATRIX:
		return !matrix;
	case TOPO_USE_SLIT:
		return !matrix && !t->lat.n_dram_hops && t->max_hops > 0;
	case TOPO_USE_ALWAYS:
		break;
	}
	return true;
}

/* A hop list: entries past the given ones are derived by the hop rule. */
static void add_hops(struct fig_build *b, const struct topo_fig_spec *s)
{
	struct topo *t = b->t;
	const double *v = topo_fig_value(&t->lat, s);
	int given = *hop_count(&t->lat, s);
	if (!given)
		return;  /* dram_ns.hops not given: the SLIT rule */
	for (int h = 0; h < t->max_hops; h++) {
		int before = t->nfigures;
		add(b, h < given ? s->source : SRC_HOP_RULE, s->unit, applies(b, s->use), v[h],
		    "%s[%d]", s->path, h);
		if (h >= given)
			t->figures[before].kind = TOPO_FIG_DERIVED;
	}
}

static void add_spec(struct fig_build *b, const struct topo_fig_spec *s)
{
	struct topo *t = b->t;
	int n = t->nnodes;
	switch (s->shape) {
	case TOPO_SHAPE_SCALAR:
		add(b, s->source, s->unit, applies(b, s->use), *topo_fig_value(&t->lat, s), "%s",
		    s->path);
		break;
	case TOPO_SHAPE_SIZE: {
		int level = s->path[strlen(s->path) - 1] - '0';
		if (t->cache_sizes[level])  /* as given: a level the machine has */
			add(b, s->source, s->unit, applies(b, s->use), (double)t->cache_sizes[level],
			    "%s", s->path);
		break;
	}
	case TOPO_SHAPE_HOPS:
		add_hops(b, s);
		break;
	case TOPO_SHAPE_MATRIX:
		for (int i = 0; t->dram_matrix && i < n; i++)
			for (int k = 0; k < n; k++)
				add(b, s->source, s->unit, applies(b, s->use), t->dram_matrix[i * n + k],
				    "%s[%d][%d]", s->path, i, k);
		break;
	case TOPO_SHAPE_NODES:
		for (int i = 0; i < n; i++)
			add(b, s->source, s->unit, applies(b, s->use), t->nodes[i].bandwidth_gbs,
			    "%s[%d]", s->path, i);
		break;
	}
}

void topo__figures_free(struct topo *t)
{
	for (int i = 0; i < t->nfigures; i++)
		free(t->figures[i].path);
	free(t->figures);
	t->figures = NULL;
	t->nfigures = 0;
}

void topo__figures_build(struct topo *t)
{
	struct fig_build b = { .t = t };
	topo__figures_free(t);
	for (int i = 0; i < t->ncaches; i++)
		b.has_level[t->caches[i].level] = true;
	for (int c = 0; c < t->ncores && !b.smt; c++)
		b.smt = t->cores[c].npus > 1;
	b.groups = t->ngroups < t->ncores;  /* some group holds two cores */
	b.package = t->ngroups > t->npackages;
	for (int i = 0; i < topo_nfig_specs; i++)
		add_spec(&b, &topo_fig_specs[i]);
}

/* ---- The latency object ---- */

/* The object at section ("os_ns.wakeup") below lat, made if missing. */
static cJSON *section_of(cJSON *lat, const char *path, const char **key)
{
	cJSON *o = lat;
	const char *p = path;
	for (const char *dot; (dot = strchr(p, '.')); p = dot + 1) {
		char name[32];
		snprintf(name, sizeof(name), "%.*s", (int)(dot - p), p);
		cJSON *next = cJSON_GetObjectItemCaseSensitive(o, name);
		o = next ? next : cJSON_AddObjectToObject(o, name);
	}
	*key = p;
	return o;
}

static cJSON *number_list(const double *v, int n)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
	return a;
}

static void write_spec(const struct topo *t, cJSON *lat, const struct topo_fig_spec *s)
{
	struct topo_latency *l = (struct topo_latency *)&t->lat;
	const char *key;
	cJSON *o = section_of(lat, s->path, &key);
	int n = t->nnodes;
	switch (s->shape) {
	case TOPO_SHAPE_SCALAR:
		cJSON_AddNumberToObject(o, key, *topo_fig_value(l, s));
		break;
	case TOPO_SHAPE_HOPS:
		/* as given and extended; none on a one-node machine (an empty
		 * list is not valid input), none for DRAM left to the SLIT rule */
		if (*hop_count(l, s) && t->max_hops)
			cJSON_AddItemToObject(o, key, number_list(topo_fig_value(l, s), t->max_hops));
		break;
	case TOPO_SHAPE_MATRIX: {
		cJSON *m = t->dram_matrix ? cJSON_AddArrayToObject(o, key) : NULL;
		for (int i = 0; m && i < n; i++)
			cJSON_AddItemToArray(m, number_list(&t->dram_matrix[i * n], n));
		break;
	}
	case TOPO_SHAPE_NODES: {
		/* as the input takes it: one number, or one per node */
		bool same = true;
		for (int i = 1; i < n; i++)
			same = same && t->nodes[i].bandwidth_gbs == t->nodes[0].bandwidth_gbs;
		if (same) {
			cJSON_AddNumberToObject(o, key, t->nodes[0].bandwidth_gbs);
			break;
		}
		cJSON *a = cJSON_AddArrayToObject(o, key);
		for (int i = 0; i < n; i++)
			cJSON_AddItemToArray(a, cJSON_CreateNumber(t->nodes[i].bandwidth_gbs));
		break;
	}
	case TOPO_SHAPE_SIZE:
		break;  /* the root's "cache_sizes": not called */
	}
}

cJSON *topo_latency_json(const struct topo *t)
{
	cJSON *lat = cJSON_CreateObject();
	for (int i = 0; i < topo_nfig_specs; i++)
		if (topo_fig_specs[i].shape != TOPO_SHAPE_SIZE)
			write_spec(t, lat, &topo_fig_specs[i]);
	return lat;
}

const struct topo_figure *topo_find_figure(const struct topo *t, const char *path)
{
	for (int i = 0; i < t->nfigures; i++)
		if (strcmp(t->figures[i].path, path) == 0)
			return &t->figures[i];
	return NULL;
}

/* Whether the "latency" object sets the figure at path: walks its names
 * and indices; a number met before the end covers everything below it
 * ("os_ns.wakeup": 4000 sets os_ns.wakeup.core, "bandwidth_gbs": 30 sets
 * bandwidth_gbs[2]). */
static bool json_sets(const cJSON *node, const char *path)
{
	const char *p = path;
	while (node && *p) {
		if (cJSON_IsNumber(node))
			return true;
		if (*p == '.') {
			p++;
			continue;
		}
		if (*p == '[') {
			char *end;
			long i = strtol(p + 1, &end, 10);
			if (*end != ']' || !cJSON_IsArray(node))
				return false;
			node = cJSON_GetArrayItem(node, (int)i);
			p = end + 1;
			continue;
		}
		size_t n = strcspn(p, ".[");
		if (!cJSON_IsObject(node))
			return false;
		const cJSON *next = NULL;
		for (const cJSON *c = node->child; c && !next; c = c->next)
			if (strlen(c->string) == n && strncmp(c->string, p, n) == 0)
				next = c;
		node = next;
		p += n;
	}
	return node != NULL;
}

static int cmp_key(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	int c = strcmp(x->string, y->string);
	/* ties in file order, so the second of a pair is reported */
	return c ? c : (x < y ? -1 : x > y);
}

/* The first key of obj given twice, or NULL: sorted, as these objects'
 * keys are free-form and may be many. */
static const cJSON *twice(const cJSON *obj)
{
	int n = cJSON_GetArraySize(obj), k = 0;
	if (n < 2)
		return NULL;
	const cJSON **keys = xmalloc(sizeof(*keys) * (size_t)n);
	for (const cJSON *it = obj->child; it; it = it->next)
		keys[k++] = it;
	qsort(keys, (size_t)n, sizeof(*keys), cmp_key);
	const cJSON *dup = NULL;
	for (int i = 1; i < n && !dup; i++)
		if (strcmp(keys[i - 1]->string, keys[i]->string) == 0)
			dup = keys[i];
	free(keys);
	return dup;
}

/* Whether path p names figure f: f itself, or a section or list holding it. */
static bool names(const char *p, size_t n, const char *f)
{
	return strncmp(p, f, n) == 0 && (f[n] == '\0' || f[n] == '.' || f[n] == '[');
}

static const struct topo_figure *sort_figures;

static int cmp_figure_path(const void *a, const void *b)
{
	return strcmp(sort_figures[*(const int *)a].path, sort_figures[*(const int *)b].path);
}

static const char *const prov_keys[] = { "kind", "p10", "p90", "samples", "method", "source",
					 "note", NULL };

/* One entry of "provenance": its kind and the fields that kind takes. */
static bool parse_prov(const struct jv *j, const cJSON *v, const char *path, struct topo_prov *pr)
{
	/* the fields each kind takes; "note" goes with any */
	static const char *const measured[] = { "kind", "p10", "p90", "samples", "method", "note", NULL };
	static const char *const published[] = { "kind", "source", "note", NULL };
	static const char *const assumption[] = { "kind", "note", "source", NULL };
	const char *kind, *method = NULL, *source = NULL, *note = NULL;
	char p[JV_PATH];

	if (!jv_object(j, v, path, prov_keys) || !jv_get_string(j, v, path, "kind", true, &kind))
		return false;
	const char *const *allowed;
	if (strcmp(kind, "measured") == 0) {
		pr->kind = TOPO_FIG_MEASURED;
		allowed = measured;
	} else if (strcmp(kind, "published") == 0) {
		pr->kind = TOPO_FIG_PUBLISHED;
		allowed = published;
	} else if (strcmp(kind, "assumption") == 0) {
		pr->kind = TOPO_FIG_ASSUMPTION;
		allowed = assumption;
	} else {
		return jv_fail(j, jv_key(p, sizeof(p), path, "kind"),
			       "unknown kind \"%s\" (expected one of: measured, published, assumption)",
			       kind);
	}
	for (const cJSON *it = v->child; it; it = it->next) {
		bool ok = false;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = strcmp(*a, it->string) == 0;
		if (!ok)
			return jv_fail(j, jv_key(p, sizeof(p), path, it->string),
				       "not a field of a %s figure (%s takes %s)", kind, kind,
				       pr->kind == TOPO_FIG_MEASURED ? "p10, p90, samples, method, note"
				       : pr->kind == TOPO_FIG_PUBLISHED ? "source, note" : "note, source");
	}
	switch (pr->kind) {
	case TOPO_FIG_MEASURED:
		if (!jv_get_nonneg(j, v, path, "p10", true, &pr->p10) ||
		    !jv_get_nonneg(j, v, path, "p90", true, &pr->p90) ||
		    !jv_get_int(j, v, path, "samples", true, 1, 1L << 50, &pr->samples) ||
		    !jv_get_string(j, v, path, "method", true, &method))
			return false;
		if (pr->p10 > pr->p90)
			return jv_fail(j, jv_key(p, sizeof(p), path, "p10"),
				       "%g is above p90 (%g)", pr->p10, pr->p90);
		break;
	case TOPO_FIG_PUBLISHED:
		if (!jv_get_string(j, v, path, "source", true, &source))
			return false;
		break;
	default:
		if (!jv_get_string(j, v, path, "note", true, &note) ||
		    !jv_get_string(j, v, path, "source", false, &source))
			return false;
		break;
	}
	if (!jv_get_string(j, v, path, "note", false, &note))
		return false;
	pr->method = method ? xstrdup(method) : NULL;
	pr->source = source ? xstrdup(source) : NULL;
	pr->note = note ? xstrdup(note) : NULL;
	return true;
}

bool topo__figures_mark(struct topo *t, const struct jv *j, const cJSON *latency,
			const cJSON *provenance)
{
	for (int i = 0; i < t->nfigures; i++) {
		struct topo_figure *f = &t->figures[i];
		if (f->kind == TOPO_FIG_DERIVED)
			continue;
		if (strncmp(f->path, "cache_sizes.", 12) == 0 || (latency && json_sets(latency, f->path)))
			f->kind = TOPO_FIG_GIVEN;
	}
	if (!provenance)
		return true;
	if (!cJSON_IsObject(provenance))
		return jv_fail(j, "$.provenance", "expected an object, got %s",
			       jv_type_name(provenance));
	const cJSON *dup = twice(provenance);
	if (dup) {
		char path[JV_PATH];
		snprintf(path, sizeof(path), "$.provenance[\"%s\"]", dup->string);
		return jv_fail(j, path, "key given twice");
	}
	int n = cJSON_GetArraySize(provenance);
	t->prov = xcalloc((size_t)(n ? n : 1), sizeof(*t->prov));
	/* figures by path: the figures a key names are the run of those it
	 * prefixes (a DRAM matrix can make many) */
	int *by_path = xmalloc(sizeof(int) * (size_t)(t->nfigures ? t->nfigures : 1));
	for (int i = 0; i < t->nfigures; i++)
		by_path[i] = i;
	sort_figures = t->figures;
	qsort(by_path, (size_t)t->nfigures, sizeof(int), cmp_figure_path);
	bool ok = true;
	for (const cJSON *it = provenance->child; it && ok; it = it->next) {
		char path[JV_PATH];
		snprintf(path, sizeof(path), "$.provenance[\"%s\"]", it->string);
		struct topo_prov *pr = &t->prov[t->nprov];
		if (!parse_prov(j, it, path, pr)) {
			ok = false;
			break;
		}
		pr->path = xstrdup(it->string);
		int idx = t->nprov++;

		size_t len = strlen(it->string);
		int lo = 0, hi = t->nfigures;
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;
			if (strcmp(t->figures[by_path[mid]].path, it->string) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		int named = 0, set = 0;
		for (int k = lo; k < t->nfigures; k++) {
			struct topo_figure *f = &t->figures[by_path[k]];
			if (strncmp(f->path, it->string, len) != 0)
				break;
			if (!names(it->string, len, f->path))
				continue;
			named++;
			if (f->kind == TOPO_FIG_DEFAULT || f->kind == TOPO_FIG_DERIVED)
				continue;
			set++;
			/* the entry naming the figure most precisely wins */
			if (f->prov < 0 || strlen(t->prov[f->prov].path) < len) {
				f->prov = idx;
				f->kind = pr->kind;
			}
		}
		if (!named)
			ok = jv_fail(j, path,
				     "no figure of this machine's latency model is called \"%s\" (figures "
				     "are named as in `schedlab topo --json`: cache_ns.L2, c2c_ns.hops[0], "
				     "os_ns.wakeup.core, dram_ns.matrix[0][1], bandwidth_gbs[0], ...)",
				     it->string);
		else if (!set)
			ok = jv_fail(j, path,
				     "the file does not set %s (its value is the model's default%s)",
				     it->string, named > 1 ? ", or derived by the hop rule" : "");
	}
	free(by_path);
	return ok;
}

/* One summary of samples: median, and optionally p10 <= median <= p90. */
static bool parse_stats(const struct jv *j, const cJSON *v, const char *path)
{
	double median, p10 = -1, p90 = -1;
	long samples;
	const char *s;
	double any;
	if (!jv_get_nonneg(j, v, path, "median", true, &median) ||
	    !jv_get_nonneg(j, v, path, "p10", false, &p10) ||
	    !jv_get_nonneg(j, v, path, "p90", false, &p90) ||
	    !jv_get_nonneg(j, v, path, "min", false, &any) ||
	    !jv_get_nonneg(j, v, path, "max", false, &any) ||
	    !jv_get_nonneg(j, v, path, "mean", false, &any) ||
	    !jv_get_int(j, v, path, "samples", false, 1, 1L << 50, &samples) ||
	    !jv_get_string(j, v, path, "method", false, &s) ||
	    !jv_get_string(j, v, path, "unit", false, &s) ||
	    !jv_get_string(j, v, path, "note", false, &s))
		return false;
	char p[JV_PATH];
	if (p10 >= 0 && p10 > median)
		return jv_fail(j, jv_key(p, sizeof(p), path, "p10"), "%g is above the median (%g)", p10,
			       median);
	if (p90 >= 0 && p90 < median)
		return jv_fail(j, jv_key(p, sizeof(p), path, "p90"), "%g is below the median (%g)", p90,
			       median);
	return true;
}

bool topo__parse_measurements(struct topo *t, const struct jv *j, const cJSON *m)
{
	static const char *const keys[] = { "median", "p10", "p90", "min", "max", "mean", "samples",
					    "method", "unit", "note", "points", NULL };
	static const char *const stat_keys[] = { "median", "p10", "p90", "min", "max", "mean",
						 "samples", "method", "unit", "note", NULL };
	const char *path = "$.measurements";
	if (!cJSON_IsObject(m))
		return jv_fail(j, path, "expected an object, got %s", jv_type_name(m));
	const cJSON *dup = twice(m);
	if (dup) {
		char p[JV_PATH];
		return jv_fail(j, jv_key(p, sizeof(p), path, dup->string), "key given twice");
	}
	for (const cJSON *it = m->child; it; it = it->next) {
		char p[JV_PATH];
		jv_key(p, sizeof(p), path, it->string);
		if (!jv_object(j, it, p, keys))
			return false;
		const cJSON *points = cJSON_GetObjectItemCaseSensitive(it, "points");
		if (!points) {
			if (!parse_stats(j, it, p))
				return false;
			continue;
		}
		char q[JV_PATH];
		jv_key(q, sizeof(q), p, "points");
		for (const char *const *k = stat_keys; *k; k++)
			if (strcmp(*k, "method") && strcmp(*k, "unit") && strcmp(*k, "note") &&
			    cJSON_GetObjectItemCaseSensitive(it, *k)) {
				char r[JV_PATH];
				return jv_fail(j, jv_key(r, sizeof(r), p, *k),
					       "goes in each of the points, not beside them");
			}
		const char *s;
		if (!jv_get_string(j, it, p, "method", false, &s) ||
		    !jv_get_string(j, it, p, "unit", false, &s) ||
		    !jv_get_string(j, it, p, "note", false, &s) || !jv_array(j, points, q))
			return false;
		if (cJSON_GetArraySize(points) < 1)
			return jv_fail(j, q, "must hold at least one point");
		int i = 0;
		for (const cJSON *pt = points->child; pt; pt = pt->next, i++) {
			char r[JV_PATH];
			jv_idx(r, sizeof(r), q, i);
			if (!cJSON_IsObject(pt))
				return jv_fail(j, r, "expected an object, got %s", jv_type_name(pt));
			const cJSON *again = twice(pt);
			if (again) {
				char s2[JV_PATH];
				return jv_fail(j, jv_key(s2, sizeof(s2), r, again->string),
					       "key given twice");
			}
			/* the stats, and the point's parameters ("asked_ns": 1000): numbers */
			for (const cJSON *f = pt->child; f; f = f->next) {
				char s2[JV_PATH];
				jv_key(s2, sizeof(s2), r, f->string);
				bool stat = false;
				for (const char *const *k = stat_keys; *k && !stat; k++)
					stat = strcmp(*k, f->string) == 0;
				if (!stat && !cJSON_IsNumber(f))
					return jv_fail(j, s2, "a point's parameter is a number, got %s",
						       jv_type_name(f));
			}
			if (!parse_stats(j, pt, r))
				return false;
		}
	}
	t->measurements = cJSON_Duplicate(m, true);
	if (!t->measurements)
		die_oom(0);
	return true;
}
