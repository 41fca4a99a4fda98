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

static bool parse_hop_list(const struct jv *j, const cJSON *obj, const char *path,
			   double *out, int *n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "hops");
	if (!v)
		return true;
	char p[JV_PATH];
	jv_key(p, sizeof(p), path, "hops");
	if (!jv_array(j, v, p))
		return false;
	int count = cJSON_GetArraySize(v);
	if (count < 1 || count > TOPO_MAX_HOPS)
		return jv_fail(j, p, "must list 1 to %d figures (one per hop), got %d", TOPO_MAX_HOPS,
			       count);
	int i = 0;
	for (const cJSON *it = v->child; it; it = it->next, i++) {
		char q[JV_PATH];
		if (!jv_as_positive(j, it, jv_idx(q, sizeof(q), p, i), &out[i]))
			return false;
	}
	*n = count;
	return true;
}

/* "wakeup": one figure for every relation, or one per relation. */
static bool parse_wakeup(const struct jv *j, const cJSON *os, const char *path,
			 struct topo_latency *lat)
{
	static const char *const rel_keys[] = { "core", "group", "package", "hops", NULL };
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(os, "wakeup");
	if (!w)
		return true;
	char p[JV_PATH];
	jv_key(p, sizeof(p), path, "wakeup");
	if (cJSON_IsObject(w)) {
		int n = lat->n_wakeup_hops;
		if (!jv_object(j, w, p, rel_keys) ||
		    !jv_get_positive(j, w, p, "core", false, &lat->wakeup_core_ns) ||
		    !jv_get_positive(j, w, p, "group", false, &lat->wakeup_group_ns) ||
		    !jv_get_positive(j, w, p, "package", false, &lat->wakeup_package_ns) ||
		    !parse_hop_list(j, w, p, lat->wakeup_hop_ns, &n))
			return false;
		lat->n_wakeup_hops = n;
		return true;
	}
	double v;
	if (!jv_as_positive(j, w, p, &v))
		return false;
	lat->wakeup_core_ns = lat->wakeup_group_ns = lat->wakeup_package_ns = v;
	for (int h = 0; h < TOPO_MAX_HOPS; h++)
		lat->wakeup_hop_ns[h] = v;
	lat->n_wakeup_hops = TOPO_MAX_HOPS;
	return true;
}

/* "matrix": DRAM latency measured for every (accessing node, home node)
 * pair; it prices every access, whatever "local", "hops" and the SLIT say. */
static bool parse_dram_matrix(const struct jv *j, const cJSON *dram, const char *path,
			      struct topo *t)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(dram, "matrix");
	if (!m)
		return true;
	char p[JV_PATH];
	jv_key(p, sizeof(p), path, "matrix");
	int n = t->nnodes;
	if (!jv_array(j, m, p))
		return false;
	/* each entry is a figure with its provenance: a million at most */
	if (n > TOPO_MAX_MATRIX_NODES)
		return jv_fail(j, p, "a DRAM matrix is supported up to %d NUMA nodes; this machine has %d",
			       TOPO_MAX_MATRIX_NODES, n);
	if (cJSON_GetArraySize(m) != n)
		return jv_fail(j, p, "must be a %dx%d matrix (one row per NUMA node), got %d rows", n, n,
			       cJSON_GetArraySize(m));
	free(t->dram_matrix);
	t->dram_matrix = xcalloc((size_t)n * (size_t)n, sizeof(double));
	int i = 0;
	for (const cJSON *row = m->child; row; row = row->next, i++) {
		char q[JV_PATH];
		jv_idx(q, sizeof(q), p, i);
		if (!jv_array(j, row, q))
			return false;
		if (cJSON_GetArraySize(row) != n)
			return jv_fail(j, q, "matrix is not square: row has %d entries, expected %d",
				       cJSON_GetArraySize(row), n);
		int k = 0;
		for (const cJSON *v = row->child; v; v = v->next, k++) {
			char r[JV_PATH];
			if (!jv_as_positive(j, v, jv_idx(r, sizeof(r), q, k), &t->dram_matrix[i * n + k]))
				return false;
		}
	}
	return true;
}

/* A figure per cache level, "L1".."L4", in the latency object's key. */
static bool parse_levels(const struct jv *j, const cJSON *lat_json, const char *path,
			 const char *key, double *by_level)
{
	static const char *const level_keys[] = { "L1", "L2", "L3", "L4", NULL };
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(lat_json, key);
	if (!o)
		return true;
	char p[JV_PATH];
	jv_key(p, sizeof(p), path, key);
	if (!jv_object(j, o, p, level_keys))
		return false;
	for (int l = 1; l <= TOPO_MAX_LEVEL; l++)
		if (!jv_get_positive(j, o, p, level_keys[l - 1], false, &by_level[l]))
			return false;
	return true;
}

static bool parse_latency(const struct jv *j, const cJSON *lat_json, struct topo *t)
{
	static const char *const keys[] = { "cache_ns", "cache_bw_gbs", "c2c_ns", "dram_ns",
					    "slit_scale", "bandwidth_gbs", "mlp", "os_ns",
					    "runtime_ns", NULL };
	static const char *const c2c_keys[] = { "core", "group", "package", "hops", NULL };
	static const char *const dram_keys[] = { "local", "hops", "matrix", NULL };
	static const char *const os_keys[] = { "syscall", "futex_wait", "futex_wake", "wakeup",
					       "timer_slack", "thread_create", "context_switch",
					       "g_switch", "pause", NULL };
	static const char *const runtime_keys[] = { "g_create", "g_exit", "stack_acquire", NULL };
	struct topo_latency *lat = &t->lat;
	const char *path = "$.latency";
	char p[JV_PATH];

	if (!jv_object(j, lat_json, path, keys))
		return false;

	if (!parse_levels(j, lat_json, path, "cache_ns", lat->cache_ns) ||
	    !parse_levels(j, lat_json, path, "cache_bw_gbs", lat->cache_bw_gbs))
		return false;
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(lat_json, "c2c_ns");
	if (o) {
		jv_key(p, sizeof(p), path, "c2c_ns");
		if (!jv_object(j, o, p, c2c_keys) ||
		    !jv_get_positive(j, o, p, "core", false, &lat->c2c_core_ns) ||
		    !jv_get_positive(j, o, p, "group", false, &lat->c2c_group_ns) ||
		    !jv_get_positive(j, o, p, "package", false, &lat->c2c_package_ns) ||
		    !parse_hop_list(j, o, p, lat->c2c_hop_ns, &lat->n_c2c_hops))
			return false;
	}
	o = cJSON_GetObjectItemCaseSensitive(lat_json, "dram_ns");
	if (o) {
		jv_key(p, sizeof(p), path, "dram_ns");
		if (!jv_object(j, o, p, dram_keys) ||
		    !jv_get_positive(j, o, p, "local", false, &lat->dram_local_ns) ||
		    !parse_hop_list(j, o, p, lat->dram_hop_ns, &lat->n_dram_hops) ||
		    !parse_dram_matrix(j, o, p, t))
			return false;
	}
	if (!jv_get_positive(j, lat_json, path, "slit_scale", false, &lat->slit_scale) ||
	    !jv_get_positive(j, lat_json, path, "mlp", false, &lat->mlp))
		return false;

	o = cJSON_GetObjectItemCaseSensitive(lat_json, "bandwidth_gbs");
	if (o) {
		jv_key(p, sizeof(p), path, "bandwidth_gbs");
		if (cJSON_IsArray(o)) {
			if (cJSON_GetArraySize(o) != t->nnodes)
				return jv_fail(j, p, "must give one figure per NUMA node (%d), got %d",
					       t->nnodes, cJSON_GetArraySize(o));
			int i = 0;
			for (const cJSON *it = o->child; it; it = it->next, i++) {
				char q[JV_PATH];
				if (!jv_as_positive(j, it, jv_idx(q, sizeof(q), p, i),
						    &t->nodes[i].bandwidth_gbs))
					return false;
			}
		} else if (!jv_as_positive(j, o, p, &lat->bandwidth_gbs)) {
			return false;
		}
	}

	o = cJSON_GetObjectItemCaseSensitive(lat_json, "os_ns");
	if (o) {
		jv_key(p, sizeof(p), path, "os_ns");
		if (!jv_object(j, o, p, os_keys) ||
		    !jv_get_positive(j, o, p, "syscall", false, &lat->syscall_ns) ||
		    !jv_get_positive(j, o, p, "futex_wait", false, &lat->futex_wait_ns) ||
		    !jv_get_positive(j, o, p, "futex_wake", false, &lat->futex_wake_ns) ||
		    !parse_wakeup(j, o, p, lat) ||
		    !jv_get_nonneg(j, o, p, "timer_slack", false, &lat->timer_slack_ns) ||
		    !jv_get_positive(j, o, p, "thread_create", false, &lat->thread_create_ns) ||
		    !jv_get_positive(j, o, p, "context_switch", false, &lat->context_switch_ns) ||
		    !jv_get_positive(j, o, p, "g_switch", false, &lat->g_switch_ns) ||
		    !jv_get_positive(j, o, p, "pause", false, &lat->pause_ns))
			return false;
	}
	o = cJSON_GetObjectItemCaseSensitive(lat_json, "runtime_ns");
	if (o) {
		jv_key(p, sizeof(p), path, "runtime_ns");
		if (!jv_object(j, o, p, runtime_keys) ||
		    !jv_get_nonneg(j, o, p, "g_create", false, &lat->g_create_ns) ||
		    !jv_get_nonneg(j, o, p, "g_exit", false, &lat->g_exit_ns) ||
		    !jv_get_nonneg(j, o, p, "stack_acquire", false, &lat->stack_acquire_ns))
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
	if (!jv_array(j, d, path))
		return false;
	if (cJSON_GetArraySize(d) != n)
		return jv_fail(j, path, "must be a %dx%d matrix (one row per NUMA node), got %d rows", n,
			       n, cJSON_GetArraySize(d));
	int i = 0;
	for (const cJSON *row = d->child; row; row = row->next, i++) {
		char p[JV_PATH];
		jv_idx(p, sizeof(p), path, i);
		if (!jv_array(j, row, p))
			return false;
		if (cJSON_GetArraySize(row) != n)
			return jv_fail(j, p, "matrix is not square: row has %d entries, expected %d",
				       cJSON_GetArraySize(row), n);
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
	static const char *const keys[] = { "L1", "L2", "L3", "L4", NULL };
	const char *path = "$.cache_sizes";
	if (!jv_object(j, cs, path, keys))
		return false;
	for (int l = 1; l <= TOPO_MAX_LEVEL; l++) {
		uint64_t size = 0;
		char p[JV_PATH];
		jv_key(p, sizeof(p), path, keys[l - 1]);
		if (!jv_get_size(j, cs, path, keys[l - 1], false, &size))
			return false;
		if (!cJSON_GetObjectItemCaseSensitive(cs, keys[l - 1]))
			continue;
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
	if (lat && !parse_latency(j, lat, t))
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
