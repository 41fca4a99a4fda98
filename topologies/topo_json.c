/* Topology loader: schedlab's JSON machine description (docs/topology.md).
 *
 * A description is either structural -- counts of packages, NUMA nodes,
 * cores and PUs per core, the caches and how many cores share each, and the
 * distance matrix -- or hwloc XML, in a file ("hwloc_xml") or in the
 * description ("hwloc_xml_inline", as a calibration writes it); in every
 * case "cache_sizes" may set a level's effective size, a "latency" object
 * any figure of the latency model, "provenance" where figures come from
 * and "measurements" the raw figures of a calibration (topo_figures.c).
 * Cores are numbered package-major, so core c belongs to package
 * c / (cores/packages) and to node c / (cores/numa_nodes). */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/topo.h"
#include "util/jsonv.h"

/* A figure within its spec's bounds: the check that keeps an absurd figure
 * (1e300 ns, a 0.0001 ns DRAM) out of the model. */
static bool in_bounds(const struct jv *j, const struct topo_fig_spec *s, const char *path,
		      double v)
{
	if (v >= s->lo && v <= s->hi)
		return true;
	return jv_fail(j, path, "%g is out of bounds: %s takes %g to %g%s%s", v, s->doc, s->lo,
		       s->hi, s->unit[0] ? " " : "", s->unit);
}

/* One number of spec s: positive (or >= 0 when its bounds start at 0),
 * within its bounds. */
static bool parse_number(const struct jv *j, const struct topo_fig_spec *s, const cJSON *v,
			 const char *path, double *out)
{
	double d;
	if (!(s->lo > 0 ? jv_as_positive(j, v, path, &d) : jv_as_nonneg(j, v, path, &d)) ||
	    !in_bounds(j, s, path, d))
		return false;
	*out = d;
	return true;
}

/* n numbers of s from the array v into out. */
static bool parse_numbers(const struct jv *j, const struct topo_fig_spec *s, const cJSON *v,
			  const char *path, double *out)
{
	int i = 0;
	for (const cJSON *it = v->child; it; it = it->next, i++) {
		char q[JV_PATH];
		if (!parse_number(j, s, it, jv_idx(q, sizeof(q), path, i), &out[i]))
			return false;
	}
	return true;
}

static bool parse_hops(const struct jv *j, const struct topo_fig_spec *s, const cJSON *v,
		       const char *p, struct topo_latency *lat)
{
	if (!jv_array(j, v, p))
		return false;
	int count = cJSON_GetArraySize(v);
	if (count < 1 || count > TOPO_MAX_HOPS)
		return jv_fail(j, p, "must list 1 to %d figures (one per hop), got %d", TOPO_MAX_HOPS,
			       count);
	if (!parse_numbers(j, s, v, p, topo_fig_value(lat, s)))
		return false;
	*(int *)((char *)lat + s->count_off) = count;
	return true;
}

/* An n x n node matrix given as rows: the rows' count and each row's
 * length (distances, dram_ns.matrix). */
static bool matrix_rows(const struct jv *j, const cJSON *m, const char *p, int n)
{
	if (!jv_array(j, m, p))
		return false;
	if (cJSON_GetArraySize(m) != n)
		return jv_fail(j, p, "must be a %dx%d matrix (one row per NUMA node), got %d rows", n, n,
			       cJSON_GetArraySize(m));
	return true;
}

static bool matrix_row(const struct jv *j, const cJSON *row, const char *q, int n)
{
	if (!jv_array(j, row, q))
		return false;
	if (cJSON_GetArraySize(row) != n)
		return jv_fail(j, q, "matrix is not square: row has %d entries, expected %d",
			       cJSON_GetArraySize(row), n);
	return true;
}

/* "matrix": DRAM latency measured for every (accessing node, home node)
 * pair; it prices every access, whatever "local", "hops" and the SLIT say. */
static bool parse_dram_matrix(const struct jv *j, const struct topo_fig_spec *s, const cJSON *m,
			      const char *p, struct topo *t)
{
	int n = t->nnodes;
	/* each entry is a figure with its provenance: a million at most */
	if (cJSON_IsArray(m) && n > TOPO_MAX_MATRIX_NODES)
		return jv_fail(j, p, "a DRAM matrix is supported up to %d NUMA nodes; this machine has %d",
			       TOPO_MAX_MATRIX_NODES, n);
	if (!matrix_rows(j, m, p, n))
		return false;
	free(t->dram_matrix);
	t->dram_matrix = xcalloc((size_t)n * (size_t)n, sizeof(double));
	int i = 0;
	for (const cJSON *row = m->child; row; row = row->next, i++) {
		char q[JV_PATH];
		if (!matrix_row(j, row, jv_idx(q, sizeof(q), p, i), n) ||
		    !parse_numbers(j, s, row, q, &t->dram_matrix[i * n]))
			return false;
	}
	return true;
}

/* "bandwidth_gbs": one figure for every node, or one per node. */
static bool parse_nodes(const struct jv *j, const struct topo_fig_spec *s, const cJSON *v,
			const char *p, struct topo *t)
{
	if (!cJSON_IsArray(v))
		return parse_number(j, s, v, p, topo_fig_value(&t->lat, s));
	if (cJSON_GetArraySize(v) != t->nnodes)
		return jv_fail(j, p, "must give one figure per NUMA node (%d), got %d", t->nnodes,
			       cJSON_GetArraySize(v));
	int i = 0;
	for (const cJSON *it = v->child; it; it = it->next, i++) {
		char q[JV_PATH];
		if (!parse_number(j, s, it, jv_idx(q, sizeof(q), p, i), &t->nodes[i].bandwidth_gbs))
			return false;
	}
	return true;
}

static bool parse_figure(const struct jv *j, const struct topo_fig_spec *s, const cJSON *v,
			 const char *p, struct topo *t)
{
	switch (s->shape) {
	case TOPO_SHAPE_SCALAR:
		return parse_number(j, s, v, p, topo_fig_value(&t->lat, s));
	case TOPO_SHAPE_HOPS:
		return parse_hops(j, s, v, p, &t->lat);
	case TOPO_SHAPE_MATRIX:
		return parse_dram_matrix(j, s, v, p, t);
	case TOPO_SHAPE_NODES:
		return parse_nodes(j, s, v, p, t);
	case TOPO_SHAPE_SIZE:
		break;
	}
	return jv_fail(j, p, "not a figure of the latency object");
}

/* A section given as one number ("wakeup": 4000): every figure in it,
 * each hop list to its full length. */
static bool parse_one_number(const struct jv *j, const cJSON *v, const char *section,
			     const char *p, struct topo_latency *lat)
{
	size_t n = strlen(section);
	double d = 0;
	for (int i = 0; i < topo_nfig_specs; i++) {
		const struct topo_fig_spec *s = &topo_fig_specs[i];
		if (strncmp(s->path, section, n) != 0 || s->path[n] != '.')
			continue;
		if (!parse_number(j, s, v, p, &d))
			return false;
		double *out = topo_fig_value(lat, s);
		if (s->shape != TOPO_SHAPE_HOPS) {
			*out = d;
			continue;
		}
		for (int h = 0; h < TOPO_MAX_HOPS; h++)
			out[h] = d;
		*(int *)((char *)lat + s->count_off) = TOPO_MAX_HOPS;
	}
	return true;
}

/* An object of the latency model: its keys are the list's (topo_figlist.h),
 * each a figure or a section of figures, read in the list's order. */
static bool parse_section(const struct jv *j, const cJSON *o, const char *section,
			  const char *path, struct topo *t)
{
	struct topo_fig_keys k;
	topo_fig_keys(section, false, &k);
	if (!jv_object(j, o, path, k.list))
		return false;
	for (int i = 0; i < k.n; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k.list[i]);
		if (!v)
			continue;
		char p[JV_PATH], sub[JV_PATH];
		jv_key(p, sizeof(p), path, k.list[i]);
		snprintf(sub, sizeof(sub), "%s%s%s", section, section[0] ? "." : "", k.list[i]);
		const struct topo_fig_spec *s = topo_fig_spec_find(sub);
		bool ok = s ? parse_figure(j, s, v, p, t)
			: !cJSON_IsObject(v) && topo_fig_one_number(sub)
			? parse_one_number(j, v, sub, p, &t->lat)
			: parse_section(j, v, sub, p, t);
		if (!ok)
			return false;
	}
	return true;
}

static bool parse_caches(const struct jv *j, const cJSON *arr, struct topo *t, int cores_per_pkg,
			 unsigned line)
{
	static const char *const keys[] = { "level", "size", "cores", NULL };
	const char *path = "$.caches";
	int share_of[TOPO_MAX_LEVEL + 1] = { 0 };
	uint64_t size_of[TOPO_MAX_LEVEL + 1] = { 0 };
	char p[JV_PATH];

	if (!jv_array(j, arr, path))
		return false;
	int i = 0;
	for (const cJSON *it = arr->child; it; it = it->next, i++) {
		jv_idx(p, sizeof(p), path, i);
		long level, share = 1;
		uint64_t size;
		if (!jv_object(j, it, p, keys) ||
		    !jv_get_int(j, it, p, "level", true, 1, TOPO_MAX_LEVEL, &level) ||
		    !jv_get_size(j, it, p, "size", true, &size) ||
		    !jv_get_int(j, it, p, "cores", false, 1, t->ncores, &share))
			return false;
		if (share_of[level]) {
			char q[JV_PATH];
			return jv_fail(j, jv_key(q, sizeof(q), p, "level"), "L%ld is described twice",
				       level);
		}
		if (cores_per_pkg % share != 0) {
			char q[JV_PATH];
			return jv_fail(j, jv_key(q, sizeof(q), p, "cores"),
				       "a cache shared by %ld cores does not divide the %d cores of a package evenly",
				       share, cores_per_pkg);
		}
		share_of[level] = (int)share;
		size_of[level] = size;
	}
	/* Inner levels must nest inside outer ones. */
	int inner = 0;
	for (int l = 1; l <= TOPO_MAX_LEVEL; l++) {
		if (!share_of[l])
			continue;
		if (inner && share_of[l] % share_of[inner] != 0)
			return jv_fail(j, path,
				       "an L%d shared by %d cores cannot contain whole L%d caches shared by %d",
				       l, share_of[l], inner, share_of[inner]);
		inner = l;
	}

	for (int c = 0; c < t->ncores; c++)
		for (int l = 0; l <= TOPO_MAX_LEVEL; l++)
			t->cores[c].cache[l] = -1;
	t->ncaches = 0;
	for (int l = 1; l <= TOPO_MAX_LEVEL; l++)
		if (share_of[l])
			t->ncaches += t->ncores / share_of[l];
	t->caches = xcalloc((size_t)(t->ncaches ? t->ncaches : 1), sizeof(*t->caches));
	int k = 0;
	for (int l = 1; l <= TOPO_MAX_LEVEL; l++) {
		if (!share_of[l])
			continue;
		for (int first = 0; first < t->ncores; first += share_of[l], k++) {
			t->caches[k] = (struct topo_cache){ .level = l, .size = size_of[l], .line = line,
							    .ncores = share_of[l], .first_core = first };
			for (int c = first; c < first + share_of[l]; c++)
				t->cores[c].cache[l] = k;
		}
	}
	return true;
}

static bool parse_distances(const struct jv *j, const cJSON *d, struct topo *t)
{
	const char *path = "$.distances";
	int n = t->nnodes;
	t->distance = xcalloc((size_t)n * (size_t)n, sizeof(unsigned));
	if (!d) {
		if (n > 1)
			return jv_fail(j, path, "required key is missing (the machine has %d NUMA nodes)", n);
		t->distance[0] = 10;
		return true;
	}
	if (!matrix_rows(j, d, path, n))
		return false;
	int i = 0;
	for (const cJSON *row = d->child; row; row = row->next, i++) {
		char p[JV_PATH];
		if (!matrix_row(j, row, jv_idx(p, sizeof(p), path, i), n))
			return false;
		int k = 0;
		for (const cJSON *v = row->child; v; v = v->next, k++) {
			char q[JV_PATH];
			long dist;
			jv_idx(q, sizeof(q), p, k);
			if (!jv_as_int(j, v, q, 0, 254, &dist))
				return false;
			if (i == k && dist != 10)
				return jv_fail(j, q, "diagonal must be 10 (the SLIT local distance), got %ld", dist);
			if (i != k && dist <= 10)
				return jv_fail(j, q, "remote distance must be above 10 (the local distance), got %ld",
					       dist);
			t->distance[i * n + k] = (unsigned)dist;
		}
	}
	return true;
}

static bool parse_structure(const struct jv *j, const cJSON *root, struct topo *t)
{
	long packages, nodes, cores, smt = 1, line = 64;
	uint64_t mem = 0;
	const char *path = "$";
	char p[JV_PATH];

	if (!jv_get_int(j, root, path, "packages", true, 1, 4096, &packages) ||
	    !jv_get_int(j, root, path, "numa_nodes", true, 1, 4096, &nodes) ||
	    !jv_get_int(j, root, path, "cores", true, 1, 1 << 20, &cores) ||
	    !jv_get_int(j, root, path, "pus_per_core", false, 1, 64, &smt) ||
	    !jv_get_int(j, root, path, "cache_line", false, 16, 4096, &line) ||
	    !jv_get_size(j, root, path, "node_memory", false, &mem))
		return false;
	if (cores % packages != 0)
		return jv_fail(j, jv_key(p, sizeof(p), path, "cores"),
			       "%ld cores do not divide evenly among %ld packages", cores, packages);
	if (cores % nodes != 0)
		return jv_fail(j, jv_key(p, sizeof(p), path, "cores"),
			       "%ld cores do not divide evenly among %ld NUMA nodes", cores, nodes);
	if (nodes % packages != 0 && packages % nodes != 0)
		return jv_fail(j, jv_key(p, sizeof(p), path, "numa_nodes"),
			       "%ld NUMA nodes and %ld packages do not nest (one must divide the other)",
			       nodes, packages);

	t->npackages = (int)packages;
	t->nnodes = (int)nodes;
	t->ncores = (int)cores;
	t->npus = (int)(cores * smt);
	t->cores = xcalloc((size_t)cores, sizeof(*t->cores));
	t->pus = xcalloc((size_t)t->npus, sizeof(*t->pus));
	t->nodes = xcalloc((size_t)nodes, sizeof(*t->nodes));
	for (int c = 0; c < t->ncores; c++) {
		struct topo_core *core = &t->cores[c];
		core->package = (int)(c / (cores / packages));
		core->node = (int)(c / (cores / nodes));
		core->first_pu = (int)(c * smt);
		core->npus = (int)smt;
		for (int k = 0; k < smt; k++) {
			t->pus[c * smt + k].core = c;
			t->pus[c * smt + k].os_index = (unsigned)(c * smt + k);
		}
	}
	for (int i = 0; i < t->nnodes; i++) {
		t->nodes[i].memory = mem;
		t->nodes[i].os_index = (unsigned)i;
	}

	const cJSON *caches = cJSON_GetObjectItemCaseSensitive(root, "caches");
	if (caches) {
		if (!parse_caches(j, caches, t, (int)(cores / packages), (unsigned)line))
			return false;
	} else {
		for (int c = 0; c < t->ncores; c++)
			for (int l = 0; l <= TOPO_MAX_LEVEL; l++)
				t->cores[c].cache[l] = -1;
	}
	return parse_distances(j, cJSON_GetObjectItemCaseSensitive(root, "distances"), t);
}

/* "cache_sizes": the effective size of a level (a calibration measures it;
 * a VM may report a shared cache far larger than the guest can use)
 * replaces every instance's size at that level. */
static bool parse_cache_sizes(const struct jv *j, const cJSON *cs, struct topo *t)
{
	struct topo_fig_keys k;
	topo_fig_keys("cache_sizes", true, &k);
	const char *path = "$.cache_sizes";
	if (!jv_object(j, cs, path, k.list))
		return false;
	for (int l = 1; l <= TOPO_MAX_LEVEL; l++) {
		uint64_t size = 0;
		char p[JV_PATH], name[32];
		jv_key(p, sizeof(p), path, k.list[l - 1]);
		if (!cJSON_GetObjectItemCaseSensitive(cs, k.list[l - 1]))
			continue;
		snprintf(name, sizeof(name), "cache_sizes.%s", k.list[l - 1]);
		if (!jv_get_size(j, cs, path, k.list[l - 1], false, &size) ||
		    !in_bounds(j, topo_fig_spec_find(name), p, (double)size))
			return false;
		int found = 0;
		for (int i = 0; i < t->ncaches; i++)
			if (t->caches[i].level == l) {
				t->caches[i].size = size;
				found++;
			}
		if (!found)
			return jv_fail(j, p, "the machine has no L%d cache", l);
		t->cache_sizes[l] = size;
	}
	return true;
}

/* "hwloc_xml_inline": hwloc's export of the machine, in the file. */
static struct topo *load_inline_xml(const struct jv *j, const cJSON *root)
{
	const char *path = "$.hwloc_xml_inline";
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "hwloc_xml_inline");
	/* not jv_get_string: XML has line breaks */
	if (!cJSON_IsString(v)) {
		jv_fail(j, path, "expected a string (hwloc XML), got %s", jv_type_name(v));
		return NULL;
	}
	struct err inner = { "" };
	struct topo *t = topo__load_xml_text(v->valuestring, strlen(v->valuestring), "the XML",
					     &inner);
	if (!t)
		jv_fail(j, path, "%s", inner.msg);
	return t;
}

static struct topo *load_doc(const struct jv *j, const cJSON *root, const char *dir)
{
	static const char *const keys[] = { "name", "description", "packages", "numa_nodes",
					    "cores", "pus_per_core", "caches", "cache_line",
					    "node_memory", "distances", "hwloc_xml", "hwloc_xml_inline",
					    "cache_sizes", "latency", "provenance", "measurements", NULL };
	static const char *const structural[] = { "packages", "numa_nodes", "cores", "pus_per_core",
						  "caches", "cache_line", "node_memory", "distances",
						  NULL };
	const char *name = NULL, *desc = NULL, *xml = NULL;

	if (!jv_object(j, root, "$", keys) ||
	    !jv_get_string(j, root, "$", "name", false, &name) ||
	    !jv_get_string(j, root, "$", "description", false, &desc) ||
	    !jv_get_string(j, root, "$", "hwloc_xml", false, &xml))
		return NULL;

	struct topo *t;
	bool inline_xml = cJSON_GetObjectItemCaseSensitive(root, "hwloc_xml_inline") != NULL;
	if (xml && inline_xml) {
		jv_fail(j, "$.hwloc_xml_inline", "cannot be combined with \"hwloc_xml\" (give one)");
		return NULL;
	}
	if (xml || inline_xml) {
		const char *key = xml ? "hwloc_xml" : "hwloc_xml_inline";
		for (const char *const *k = structural; *k; k++)
			if (cJSON_GetObjectItemCaseSensitive(root, *k)) {
				char p[JV_PATH];
				jv_fail(j, jv_key(p, sizeof(p), "$", *k),
					"cannot be combined with \"%s\" (the XML describes the machine)", key);
				return NULL;
			}
	}
	if (inline_xml) {
		t = load_inline_xml(j, root);
		if (!t)
			return NULL;
	} else if (xml) {
		char *xml_path = (xml[0] == '/' || !dir) ? xstrdup(xml) : xasprintf("%s/%s", dir, xml);
		struct err inner = { "" };
		t = topo__load_xml_raw(xml_path, &inner);
		free(xml_path);
		if (!t) {
			jv_fail(j, "$.hwloc_xml", "%s", inner.msg);
			return NULL;
		}
	} else {
		t = topo__new();
		if (!parse_structure(j, root, t))
			goto fail;
	}
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(root, "cache_sizes");
	if (cs && !parse_cache_sizes(j, cs, t))
		goto fail;
	const cJSON *lat = cJSON_GetObjectItemCaseSensitive(root, "latency");
	if (lat && !parse_section(j, lat, "", "$.latency", t))
		goto fail;
	free(t->name);
	free(t->description);
	t->name = name ? xstrdup(name) : NULL;
	t->description = desc ? xstrdup(desc) : NULL;
	if (!topo__finish(t, j->file, j->e))
		goto fail;
	/* after topo__finish: provenance names the figures of the whole machine */
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "measurements");
	if (!topo__figures_mark(t, j, lat, cJSON_GetObjectItemCaseSensitive(root, "provenance")) ||
	    (m && !topo__parse_measurements(t, j, m)))
		goto fail;
	return t;
fail:
	topo_free(t);
	return NULL;
}

static struct topo *load_text(const char *text, const char *label, const char *dir,
			      struct err *e)
{
	struct jv j = { .file = label, .e = e };
	cJSON *root = jv_parse(&j, text);
	if (!root)
		return NULL;
	struct topo *t = load_doc(&j, root, dir);
	cJSON_Delete(root);
	return t;
}

struct topo *topo_load_json_text(const char *text, const char *label, struct err *e)
{
	struct topo *t = load_text(text, label, NULL, e);
	if (t) {
		if (!t->name)
			t->name = xstrdup(label);
		free(t->source);
		t->source = xstrdup("inline");
	}
	return t;
}

struct topo *topo__load_json_file_text(const char *text, const char *path, struct err *e)
{
	char *dir_copy = xstrdup(path);
	struct topo *t = load_text(text, path, dirname(dir_copy), e);
	free(dir_copy);
	if (t) {
		if (!t->name)
			t->name = topo__name_of_path(path);
		free(t->source);
		t->source = str_escape(path);
	}
	return t;
}

struct topo *topo_load_json(const char *path, struct err *e)
{
	char *text = jv_read_file(path, e);
	if (!text)
		return NULL;
	struct topo *t = topo__load_json_file_text(text, path, e);
	free(text);
	return t;
}
