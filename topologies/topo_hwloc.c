/* Topology loader: hwloc, from the live machine ("host") or an XML file
 * written by `lstopo --of xml`.  hwloc's logical order is kept, so core i
 * here is hwloc's Core L#i and node i its NUMANode L#i. */
#include <errno.h>
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/topo.h"

struct topo *topo__load_xml_raw(const char *path, struct err *e);

static bool read_caches(hwloc_topology_t h, struct topo *t, hwloc_obj_t *core_objs)
{
	static const hwloc_obj_type_t types[TOPO_MAX_LEVEL + 1] = {
		0, HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
	};
	int total = 0;
	for (int l = 1; l <= TOPO_MAX_LEVEL; l++)
		total += hwloc_get_nbobjs_by_type(h, types[l]);
	t->caches = xcalloc((size_t)(total ? total : 1), sizeof(*t->caches));
	for (int c = 0; c < t->ncores; c++)
		for (int l = 0; l <= TOPO_MAX_LEVEL; l++)
			t->cores[c].cache[l] = -1;

	int k = 0;
	for (int l = 1; l <= TOPO_MAX_LEVEL; l++) {
		int n = hwloc_get_nbobjs_by_type(h, types[l]);
		for (int i = 0; i < n; i++) {
			hwloc_obj_t o = hwloc_get_obj_by_type(h, types[l], (unsigned)i);
			if (o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
				continue;
			struct topo_cache *cache = &t->caches[k];
			cache->level = l;
			cache->size = o->attr->cache.size;
			cache->line = o->attr->cache.linesize ? o->attr->cache.linesize : 64;
			cache->first_core = -1;
			for (int c = 0; c < t->ncores; c++) {
				if (!hwloc_bitmap_isincluded(core_objs[c]->cpuset, o->cpuset))
					continue;
				if (cache->first_core < 0)
					cache->first_core = c;
				cache->ncores++;
				t->cores[c].cache[l] = k;
			}
			if (cache->ncores > 0)
				k++;
		}
	}
	t->ncaches = k;
	return true;
}

static bool read_distances(hwloc_topology_t h, struct topo *t, const char *label,
			   struct err *e)
{
	int n = t->nnodes;
	t->distance = xcalloc((size_t)n * (size_t)n, sizeof(unsigned));
	/* Without a SLIT, Linux assumes 20 for every remote pair
	 * (REMOTE_DISTANCE); do the same. */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			t->distance[i * n + j] = i == j ? 10 : 20;
	if (n == 1)
		return true;

	unsigned nr = 1;
	struct hwloc_distances_s *d = NULL;
	if (hwloc_distances_get_by_type(h, HWLOC_OBJ_NUMANODE, &nr, &d,
					HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 || nr == 0)
		return true;
	bool ok = true;
	for (unsigned i = 0; i < d->nbobjs && ok; i++)
		for (unsigned j = 0; j < d->nbobjs && ok; j++) {
			unsigned a = d->objs[i]->logical_index, b = d->objs[j]->logical_index;
			hwloc_uint64_t v = d->values[i * d->nbobjs + j];
			if (a >= (unsigned)n || b >= (unsigned)n)
				continue;
			if ((a == b && v != 10) || (a != b && (v <= 10 || v > 254))) {
				err_set(e, "%s: NUMA distance from node %u to node %u is %llu; a SLIT matrix has 10 "
					"on its diagonal and 11-254 elsewhere", label, a, b,
					(unsigned long long)v);
				ok = false;
			}
			t->distance[a * (unsigned)n + b] = (unsigned)v;
		}
	hwloc_distances_release(h, d);
	return ok;
}

static struct topo *from_hwloc(hwloc_topology_t h, const char *label, struct err *e)
{
	struct topo *t = topo__new();
	int ncores = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);
	/* Some files have PUs without Core objects: each PU is then a core. */
	hwloc_obj_type_t core_type = ncores > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
	if (ncores <= 0)
		ncores = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
	int npus = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
	int npkg = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PACKAGE);
	int nnodes = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
	if (ncores <= 0 || npus <= 0) {
		err_set(e, "%s: hwloc found no processing units", label);
		topo_free(t);
		return NULL;
	}
	t->ncores = ncores;
	t->npus = npus;
	t->npackages = npkg > 0 ? npkg : 1;
	t->nnodes = nnodes > 0 ? nnodes : 1;
	t->cores = xcalloc((size_t)ncores, sizeof(*t->cores));
	t->pus = xcalloc((size_t)npus, sizeof(*t->pus));
	t->nodes = xcalloc((size_t)t->nnodes, sizeof(*t->nodes));

	hwloc_obj_t *core_objs = xcalloc((size_t)ncores, sizeof(*core_objs));
	for (int c = 0; c < ncores; c++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(h, core_type, (unsigned)c);
		core_objs[c] = o;
		struct topo_core *core = &t->cores[c];
		hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_PACKAGE, o);
		core->package = pkg ? (int)pkg->logical_index : 0;
		core->node = 0;
		for (int i = 0; i < nnodes; i++) {
			hwloc_obj_t nd = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
			if (hwloc_bitmap_isincluded(o->cpuset, nd->cpuset)) {
				core->node = i;
				break;
			}
		}
		core->first_pu = -1;
	}
	for (int p = 0; p < npus; p++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, (unsigned)p);
		hwloc_obj_t core = core_type == HWLOC_OBJ_PU ? o
			: hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, o);
		int c = core ? (int)core->logical_index : 0;
		t->pus[p].core = c;
		t->pus[p].os_index = o->os_index;
		if (t->cores[c].first_pu < 0)
			t->cores[c].first_pu = p;
		t->cores[c].npus++;
	}
	for (int i = 0; i < nnodes; i++) {
		hwloc_obj_t nd = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
		t->nodes[i].memory = nd->attr->numanode.local_memory;
		t->nodes[i].os_index = nd->os_index;
	}
	read_caches(h, t, core_objs);
	free(core_objs);
	if (!read_distances(h, t, label, e)) {
		topo_free(t);
		return NULL;
	}
	return t;
}

static hwloc_topology_t open_hwloc(void)
{
	hwloc_topology_t h;
	if (hwloc_topology_init(&h) != 0)
		return NULL;
	hwloc_topology_set_cache_types_filter(h, HWLOC_TYPE_FILTER_KEEP_ALL);
	hwloc_topology_set_io_types_filter(h, HWLOC_TYPE_FILTER_KEEP_NONE);
	return h;
}

struct topo *topo__load_xml_raw(const char *path, struct err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		err_set(e, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	fclose(f);
	hwloc_topology_t h = open_hwloc();
	if (!h) {
		err_set(e, "%s: hwloc could not initialise", path);
		return NULL;
	}
	if (hwloc_topology_set_xml(h, path) != 0 || hwloc_topology_load(h) != 0) {
		err_set(e, "%s: hwloc cannot load this file as topology XML (%s)", path,
			errno ? strerror(errno) : "invalid content");
		hwloc_topology_destroy(h);
		return NULL;
	}
	struct topo *t = from_hwloc(h, path, e);
	hwloc_topology_destroy(h);
	if (!t)
		return NULL;
	t->name = path_stem(path);
	t->source = xstrdup(path);
	return t;
}

struct topo *topo_load_xml(const char *path, struct err *e)
{
	struct topo *t = topo__load_xml_raw(path, e);
	if (t && !topo__finish(t, path, e)) {
		topo_free(t);
		return NULL;
	}
	return t;
}

struct topo *topo_load_host(struct err *e)
{
	hwloc_topology_t h = open_hwloc();
	if (!h || hwloc_topology_load(h) != 0) {
		err_set(e, "host: hwloc could not discover this machine");
		if (h)
			hwloc_topology_destroy(h);
		return NULL;
	}
	struct topo *t = from_hwloc(h, "host", e);
	hwloc_topology_destroy(h);
	if (!t)
		return NULL;
	t->name = xstrdup("host");
	t->source = xstrdup("hwloc");
	if (!topo__finish(t, "host", e)) {
		topo_free(t);
		return NULL;
	}
	return t;
}
