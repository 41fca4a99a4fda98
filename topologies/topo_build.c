/* Topology model: defaults of the latency model, the derivations every
 * loader shares (core groups, hops, DRAM matrix), relations, comparison. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "topologies/topo.h"

/* ---- Latency defaults ----------------------------------------------------
 * Sources (see ../shared/topologies/latency-figures.md and docs/topology.md):
 *  - caches: L1 4 cycles, L2 13 cycles (AnandTech, Xeon 8280 / EPYC 7742) at
 *    3 GHz; L3 about 48 cycles on a Xeon, rounded to 16 ns; L4 a guess.
 *  - core to core: 48 ns within a socket (CAS round trip, Xeon Gold 6242
 *    median), 107 ns between CCXs of one package (EPYC 7R13), 130 ns across
 *    sockets (Gold 6242 136, E5-2695 v4 118).  SMT siblings share L1/L2:
 *    5 ns.  Each hop past the first adds half of the one-hop figure.
 *  - DRAM: 90 ns local (2S Xeon Gold 6140, MLC); remote by the SLIT rule
 *    with slit_scale 0.5, which puts SLIT 20 at 1.5x local (measured on
 *    E7-4800: 1.45x) and SLIT 21 at 1.55x (Skylake-SP: 1.6-1.9x).
 *  - bandwidth: 50 GB/s per node, about a sustained 4-6-channel DDR4 socket.
 *  - mlp: 20 lines in flight for a sequential stream: a Xeon core's 10-12
 *    fill buffers plus the L2 streamer's prefetches; one core then streams
 *    64 B * 20 / 135 ns = 9.5 GB/s, typical of single-core STREAM on a
 *    server of that generation.  Independent random loads get half.
 *  - OS: a context switch costs ~1000 ns ("Scheduling In Go: Part II");
 *    syscall, futex and thread-creation figures are typical Linux x86-64
 *    measurements, documented as estimates. */
void topo__latency_defaults(struct topo_latency *lat)
{
	memset(lat, 0, sizeof(*lat));
	lat->cache_ns[1] = 1.3;
	lat->cache_ns[2] = 4.3;
	lat->cache_ns[3] = 16.0;
	lat->cache_ns[4] = 40.0;
	/* A core streaming lines that hit: Intel's optimization manual gives
	 * Skylake-SP 64 B/cycle of stores into L1, 52 B/cycle sustained from
	 * L2 and about 15 from L3; at the 3 GHz of the latencies above.
	 * Without this bound a stream of hits overlapped as DRAM's mlp
	 * does, 0.07 ns a line (1 TB/s) from L1. */
	lat->cache_bw_gbs[1] = 192.0;
	lat->cache_bw_gbs[2] = 156.0;
	lat->cache_bw_gbs[3] = 45.0;
	lat->cache_bw_gbs[4] = 30.0;
	lat->c2c_core_ns = 5.0;
	lat->c2c_group_ns = 48.0;
	lat->c2c_package_ns = 107.0;
	lat->c2c_hop_ns[0] = 130.0;
	lat->n_c2c_hops = 1;
	lat->dram_local_ns = 90.0;
	lat->n_dram_hops = 0;
	lat->slit_scale = 0.5;
	lat->bandwidth_gbs = 50.0;
	lat->mlp = 20.0;
	lat->syscall_ns = 100.0;
	lat->futex_wait_ns = 700.0;
	lat->futex_wake_ns = 900.0;
	lat->wakeup_core_ns = 4000.0;
	lat->wakeup_group_ns = 4000.0;
	lat->wakeup_package_ns = 4000.0;
	for (int h = 0; h < TOPO_MAX_HOPS; h++)
		lat->wakeup_hop_ns[h] = 4000.0;
	lat->n_wakeup_hops = TOPO_MAX_HOPS;
	lat->timer_slack_ns = 50000.0;
	lat->epoll_event_ns = 81.0;
	lat->thread_create_ns = 15000.0;
	lat->context_switch_ns = 1000.0;
	lat->g_switch_ns = 50.0;
	lat->pause_ns = 10.0;
	/* Go's BenchmarkCreateGoroutines: 302 ns a goroutine's whole life on
	 * a 2.2 GHz Xeon (CockroachDB RFC 20220602, fine-grained CPU
	 * attribution); the model prices 149 ns of the same life itself
	 * (spawn-burst, 1 P, numa1: two G switches, queue and free-list
	 * lines), so g_create and g_exit take the other ~150 ns
	 * (docs/topology.md).  A new stack is paid only when none is free:
	 * carving it and faulting its first page in, about a microsecond
	 * (1.7 us measured by calibrate on a KVM guest). */
	lat->g_create_ns = 100.0;
	lat->g_exit_ns = 40.0;
	lat->stack_acquire_ns = 1000.0;
}

struct topo *topo__new(void)
{
	struct topo *t = xcalloc(1, sizeof(*t));
	topo__latency_defaults(&t->lat);
	return t;
}

void topo_free(struct topo *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->source);
	free(t->description);
	free(t->caches);
	free(t->cores);
	free(t->pus);
	free(t->nodes);
	free(t->distance);
	free(t->hops);
	free(t->dram_ns);
	free(t->dram_matrix);
	topo__figures_free(t);
	for (int i = 0; i < t->nprov; i++) {
		free(t->prov[i].path);
		free(t->prov[i].method);
		free(t->prov[i].source);
		free(t->prov[i].note);
	}
	free(t->prov);
	cJSON_Delete(t->measurements);
	free(t->calibration);
	free(t);
}

/* ---- Derivations --------------------------------------------------------- */

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

/* Hop count of a node pair = rank of its distance among the distinct remote
 * distances.  SLIT values are relative, not additive, so they cannot be
 * divided by a per-hop constant; their order is what they reliably say. */
static bool derive_hops(struct topo *t, const char *label, struct err *e)
{
	int n = t->nnodes;
	unsigned *vals = xmalloc(sizeof(unsigned) * (size_t)n * (size_t)n);
	int nv = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (i != j)
				vals[nv++] = topo_distance(t, i, j);
	qsort(vals, (size_t)nv, sizeof(unsigned), cmp_unsigned);
	int distinct = 0;
	for (int k = 0; k < nv; k++)
		if (k == 0 || vals[k] != vals[k - 1])
			vals[distinct++] = vals[k];
	if (distinct > TOPO_MAX_HOPS) {
		err_set(e, "%s: distance matrix has %d distinct remote distances; at most %d are supported",
			label, distinct, TOPO_MAX_HOPS);
		free(vals);
		return false;
	}
	t->hops = xcalloc((size_t)n * (size_t)n, sizeof(int));
	t->max_hops = distinct;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			if (i == j)
				continue;
			unsigned d = topo_distance(t, i, j);
			int h = 1;
			while (vals[h - 1] != d)
				h++;
			t->hops[i * n + j] = h;
		}
	free(vals);
	return true;
}

/* Extends a per-hop list to max_hops entries: each missing hop adds the
 * last step (or half the first figure when only one is given). */
static void extend_hops(double *v, int given, int want)
{
	for (int h = given; h < want && h < TOPO_MAX_HOPS; h++) {
		double step = h >= 2 ? v[h - 1] - v[h - 2] : v[0] * 0.5;
		if (step < 0)
			step = 0;
		v[h] = v[h - 1] + step;
	}
}

bool topo__finish(struct topo *t, const char *label, struct err *e)
{
	if (t->ncores <= 0 || t->npus <= 0 || t->nnodes <= 0 || t->npackages <= 0) {
		err_set(e, "%s: machine has no %s", label,
			t->npus <= 0 ? "PUs" : t->ncores <= 0 ? "cores" :
			t->nnodes <= 0 ? "NUMA nodes" : "packages");
		return false;
	}

	/* A core without a PU cannot run anything (hwloc XML can have one,
	 * with an empty cpuset); the simulator places Ms on PUs of cores. */
	for (int c = 0; c < t->ncores; c++)
		if (t->cores[c].npus <= 0 || t->cores[c].first_pu < 0) {
			err_set(e, "%s: core %d has no processing unit (PU)", label, c);
			return false;
		}

	/* Core groups: the cores sharing the outermost cache instance. */
	int *group_of_cache = xmalloc(sizeof(int) * (size_t)(t->ncaches ? t->ncaches : 1));
	for (int i = 0; i < t->ncaches; i++)
		group_of_cache[i] = -1;
	t->ngroups = 0;
	for (int c = 0; c < t->ncores; c++) {
		struct topo_core *core = &t->cores[c];
		int outer = -1;
		for (int l = TOPO_MAX_LEVEL; l >= 1 && outer < 0; l--)
			outer = core->cache[l];
		if (outer < 0) {
			core->group = t->ngroups++;
		} else {
			if (group_of_cache[outer] < 0)
				group_of_cache[outer] = t->ngroups++;
			core->group = group_of_cache[outer];
		}
	}
	free(group_of_cache);

	for (int i = 0; i < t->nnodes; i++) {
		t->nodes[i].ncores = 0;
		t->nodes[i].package = -2; /* unseen */
		if (t->nodes[i].bandwidth_gbs <= 0)
			t->nodes[i].bandwidth_gbs = t->lat.bandwidth_gbs;
	}
	for (int c = 0; c < t->ncores; c++) {
		struct topo_node *nd = &t->nodes[t->cores[c].node];
		nd->ncores++;
		if (nd->package == -2)
			nd->package = t->cores[c].package;
		else if (nd->package != t->cores[c].package)
			nd->package = -1;
	}
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].package == -2)
			t->nodes[i].package = -1; /* memory-only node */

	if (!derive_hops(t, label, e))
		return false;

	struct topo_latency *lat = &t->lat;
	extend_hops(lat->c2c_hop_ns, lat->n_c2c_hops, t->max_hops);
	extend_hops(lat->wakeup_hop_ns, lat->n_wakeup_hops, t->max_hops);
	if (lat->n_dram_hops > 0)
		extend_hops(lat->dram_hop_ns, lat->n_dram_hops, t->max_hops);

	int n = t->nnodes;
	t->dram_ns = xmalloc(sizeof(double) * (size_t)n * (size_t)n);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double v;
			if (t->dram_matrix)
				v = t->dram_matrix[i * n + j];
			else if (i == j)
				v = lat->dram_local_ns;
			else if (lat->n_dram_hops > 0)
				v = lat->dram_hop_ns[topo_hops(t, i, j) - 1];
			else
				v = lat->dram_local_ns *
				    (1.0 + lat->slit_scale * ((double)topo_distance(t, i, j) - 10.0) / 10.0);
			t->dram_ns[i * n + j] = v;
		}
	topo__figures_build(t);
	return true;
}

/* ---- Relations ----------------------------------------------------------- */

enum topo_rel topo_core_rel(const struct topo *t, int a, int b)
{
	const struct topo_core *x = &t->cores[a], *y = &t->cores[b];
	if (a == b)
		return TOPO_REL_CORE;
	if (x->group == y->group)
		return TOPO_REL_GROUP;
	if (x->package == y->package)
		return TOPO_REL_PACKAGE;
	return TOPO_REL_REMOTE;
}

double topo_base_slice_ns(const struct topo *t)
{
	if (t->lat.base_slice_ns > 0)
		return t->lat.base_slice_ns;
	int factor = 1;
	for (int n = t->npus < 8 ? t->npus : 8; n > 1; n >>= 1)
		factor++;
	return 750000.0 * factor;
}

double topo_c2c_ns(const struct topo *t, int a, int b)
{
	switch (topo_core_rel(t, a, b)) {
	case TOPO_REL_CORE:
		return t->lat.c2c_core_ns;
	case TOPO_REL_GROUP:
		return t->lat.c2c_group_ns;
	case TOPO_REL_PACKAGE:
		return t->lat.c2c_package_ns;
	case TOPO_REL_REMOTE:
		break;
	}
	int h = topo_hops(t, t->cores[a].node, t->cores[b].node);
	/* Two packages sharing one NUMA node (a node above packages) are still
	 * a socket crossing: price them as one hop. */
	return t->lat.c2c_hop_ns[(h > 0 ? h : 1) - 1];
}

double topo_wakeup_ns(const struct topo *t, int pu_from, int pu_to)
{
	int a = t->pus[pu_from].core, b = t->pus[pu_to].core;
	switch (topo_core_rel(t, a, b)) {
	case TOPO_REL_CORE:
		return t->lat.wakeup_core_ns;
	case TOPO_REL_GROUP:
		return t->lat.wakeup_group_ns;
	case TOPO_REL_PACKAGE:
		return t->lat.wakeup_package_ns;
	case TOPO_REL_REMOTE:
		break;
	}
	int h = topo_hops(t, t->cores[a].node, t->cores[b].node);
	return t->lat.wakeup_hop_ns[(h > 0 ? h : 1) - 1];
}

/* ---- Comparison ---------------------------------------------------------- */

static bool same(const struct topo *a, const struct topo *b, bool sizes, struct err *e)
{
#define DIFF(...) do { err_set(e, __VA_ARGS__); return false; } while (0)
	if (a->npackages != b->npackages)
		DIFF("packages: %d vs %d", a->npackages, b->npackages);
	if (a->nnodes != b->nnodes)
		DIFF("NUMA nodes: %d vs %d", a->nnodes, b->nnodes);
	if (a->ncores != b->ncores)
		DIFF("cores: %d vs %d", a->ncores, b->ncores);
	if (a->npus != b->npus)
		DIFF("PUs: %d vs %d", a->npus, b->npus);
	if (a->ngroups != b->ngroups)
		DIFF("core groups: %d vs %d", a->ngroups, b->ngroups);
	for (int c = 0; c < a->ncores; c++) {
		const struct topo_core *x = &a->cores[c], *y = &b->cores[c];
		if (x->package != y->package || x->node != y->node || x->group != y->group)
			DIFF("core %d: package/node/group %d/%d/%d vs %d/%d/%d", c, x->package,
			     x->node, x->group, y->package, y->node, y->group);
		if (x->npus != y->npus)
			DIFF("core %d: %d PUs vs %d", c, x->npus, y->npus);
		for (int l = 1; l <= TOPO_MAX_LEVEL; l++) {
			if ((x->cache[l] < 0) != (y->cache[l] < 0))
				DIFF("core %d: L%d present in one machine only", c, l);
			if (x->cache[l] < 0)
				continue;
			const struct topo_cache *p = &a->caches[x->cache[l]], *q = &b->caches[y->cache[l]];
			if ((sizes && p->size != q->size) || p->ncores != q->ncores ||
			    p->first_core != q->first_core)
				DIFF("core %d: L%d %llu bytes shared by %d cores from core %d vs %llu bytes "
				     "shared by %d from core %d", c, l, (unsigned long long)p->size,
				     p->ncores, p->first_core, (unsigned long long)q->size, q->ncores,
				     q->first_core);
		}
	}
	for (int i = 0; i < a->nnodes; i++)
		for (int j = 0; j < a->nnodes; j++)
			if (topo_distance(a, i, j) != topo_distance(b, i, j))
				DIFF("distance[%d][%d]: %u vs %u", i, j, topo_distance(a, i, j),
				     topo_distance(b, i, j));
	return true;
#undef DIFF
}

bool topo_same_machine(const struct topo *a, const struct topo *b, struct err *e)
{
	return same(a, b, true, e);
}

bool topo_same_structure(const struct topo *a, const struct topo *b, struct err *e)
{
	return same(a, b, false, e);
}
