/* Tests of the hardware model (suite "sim"): analytic expectations on the
 * bundled numa4 and on real machines from ../shared/topologies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/engine.h"
#include "hw/hw.h"
#include "hw/mlc.h"
#include "tests/tests.h"
#include "util/util.h"

static struct topo *load(const char *spec)
{
	struct err e = { "" };
	struct topo *t = topo_load(spec, &e);
	ck_assert_msg(t != NULL, "%s", e.msg);
	return t;
}

static struct topo *load_shared(const char *file)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/topologies/%s", test_shared_dir(), file);
	return load(path);
}

/* PU of the first core with the given package and index within it. */
static int pu_of(const struct topo *t, int package, int nth)
{
	for (int c = 0; c < t->ncores; c++)
		if (t->cores[c].package == package && nth-- == 0)
			return t->cores[c].first_pu;
	ck_abort_msg("no core %d in package %d", nth, package);
	return -1;
}

/* ---- DRAM latency ------------------------------------------------------- */

static const char *const chase_topologies[] = {
	"numa4", "numa8", "4s-dell-c6145-opteron-6276.xml", "24s-sgi-uv2000-xeon-e5-4640.xml",
};

START_TEST(pointer_chase_matrix_reproduces_dram_latencies)
{
	const char *name = chase_topologies[_i];
	struct topo *t = strstr(name, ".xml") ? load_shared(name) : load(name);
	struct hw_mlc *m = hw_mlc_run(t);
	for (int i = 0; i < t->nnodes; i++)
		for (int j = 0; j < t->nnodes; j++)
			ck_assert_msg(fabs(m->dram_ns[i * t->nnodes + j] - topo_dram_ns(t, i, j)) < 1e-9,
				      "%s: node %d -> %d measured %g, configured %g", name, i, j,
				      m->dram_ns[i * t->nnodes + j], topo_dram_ns(t, i, j));
	if (strcmp(name, "numa4") == 0) {
		ck_assert(fabs(m->dram_ns[0] - 135) < 1e-9);
		ck_assert(fabs(m->dram_ns[1] - 198) < 1e-9);  /* 0 -> 1: one hop */
		ck_assert(fabs(m->dram_ns[3] - 261) < 1e-9);  /* 0 -> 3: two hops */
	}
	hw_mlc_free(m);
	topo_free(t);
}
END_TEST

/* ---- Coherence ------------------------------------------------------------- */

START_TEST(line_written_on_core0_read_two_hops_away_costs_the_2hop_transfer)
{
	struct topo *t = load("numa4");
	struct hw *hw = hw_new(t);
	hw_line_t line = hw_line_new(hw, 0);
	int reader = pu_of(t, 3, 0); /* package 3 is diagonal to package 0 */
	ck_assert_int_eq(topo_hops(t, 0, t->cores[t->pus[reader].core].node), 2);
	hw_line_access(hw, 0, 0, line, HW_STORE);
	double cost = hw_line_access(hw, reader, 1000, line, HW_LOAD);
	ck_assert(fabs(cost - 195) < 1e-9);
	/* Now a sharer: the next load hits its own copy. */
	ck_assert(fabs(hw_line_access(hw, reader, 2000, line, HW_LOAD) - t->lat.cache_ns[1]) < 1e-9);
	/* A write by core 0 invalidates it; the reader pays the transfer again. */
	hw_line_access(hw, 0, 3000, line, HW_STORE);
	ck_assert(fabs(hw_line_access(hw, reader, 4000, line, HW_LOAD) - 195) < 1e-9);
	const struct hw_counters *k = hw_counters(hw);
	ck_assert_uint_eq(k->line_accesses, 5);
	ck_assert_uint_eq(k->line_hits, 1);
	hw_free(hw);
	topo_free(t);
}
END_TEST

/* All n PUs do one RMW at the same instant on a line another PU owns; the
 * last finishes after the sum of the serialized transfers. */
static double rmw_makespan(struct hw *hw, const int *pus, int n, int owner)
{
	hw_line_t line = hw_line_new(hw, 0);
	hw_line_access(hw, owner, 0, line, HW_STORE);
	double makespan = 0;
	for (int k = 0; k < n; k++) {
		double done = hw_line_access(hw, pus[k], 1000, line, HW_RMW);
		if (done > makespan)
			makespan = done;
	}
	return makespan;
}

START_TEST(n_cores_rmw_on_one_line_take_n_times_longer)
{
	struct topo *t = load("numa4");
	struct hw *hw = hw_new(t);
	int local[8], remote[4];
	for (int k = 0; k < 8; k++)
		local[k] = pu_of(t, 0, k);
	int owner = pu_of(t, 0, 7);
	double one = rmw_makespan(hw, local, 1, owner);
	for (int n = 2; n <= 7; n++) {
		double ratio = rmw_makespan(hw, local, n, owner) / one;
		ck_assert_msg(ratio > n - 0.05 && ratio < n + 0.05, "%d cores: %.2fx one core", n, ratio);
	}
	/* Contention grows with distance: the same four-way fight across
	 * packages takes longer than inside one. */
	for (int p = 0; p < 4; p++)
		remote[p] = pu_of(t, p, 0);
	double near4 = rmw_makespan(hw, local, 4, owner);
	double far4 = rmw_makespan(hw, remote, 4, pu_of(t, 3, 1));
	ck_assert_msg(far4 > 2 * near4, "across packages %.0f ns, within one %.0f ns", far4, near4);
	ck_assert(hw_counters(hw)->line_stall_ns > 0);
	hw_free(hw);
	topo_free(t);
}
END_TEST

/* ---- Caches ------------------------------------------------------------------- */

START_TEST(working_sets_hit_l2_l3_or_miss_by_where_they_run)
{
	struct topo *t = load("numa4");
	struct hw *hw = hw_new(t);
	const uint64_t ws = 64 * 1024; /* > L1 (32 KiB), < L2 (256 KiB) */
	const uint64_t lines = ws / HW_LINE;
	hw_region_t r = hw_region_new(hw, ws, HW_PLACE_NODE, 0);
	int a = pu_of(t, 0, 0), b = pu_of(t, 0, 5), far = pu_of(t, 1, 0);
	const struct hw_counters *k = hw_counters(hw);

	hw_touch(hw, a, 0, r, 0, ws, HW_POINTER_CHASE, false);
	ck_assert_uint_eq(k->dram, lines);
	ck_assert_uint_eq(k->dram_by_hops[0], lines);

	/* Again on the same core: L2 (L1 holds only the last 32 KiB, which
	 * the chase from the start has evicted by the time it gets there). */
	hw_reset_counters(hw);
	double again = hw_touch(hw, a, 1e6, r, 0, ws, HW_POINTER_CHASE, false);
	ck_assert_uint_eq(k->hits[2], lines);
	ck_assert(fabs(again - (double)lines * t->lat.cache_ns[2]) < 1e-6);

	/* Another core of the same package: the shared L3. */
	hw_reset_counters(hw);
	double other = hw_touch(hw, b, 2e6, r, 0, ws, HW_POINTER_CHASE, false);
	ck_assert_uint_eq(k->hits[3], lines);
	ck_assert(fabs(other - (double)lines * t->lat.cache_ns[3]) < 1e-6);

	/* Moved to another package: nothing of it is there; from DRAM, one hop. */
	hw_reset_counters(hw);
	double moved = hw_touch(hw, far, 3e6, r, 0, ws, HW_POINTER_CHASE, false);
	ck_assert_uint_eq(k->dram, lines);
	ck_assert_uint_eq(k->dram_by_hops[1], lines);
	ck_assert(fabs(moved - (double)lines * 198) < 1e-6);

	/* A small set stays in L1. */
	hw_region_t small = hw_region_new(hw, 4096, HW_PLACE_NODE, 0);
	hw_touch(hw, a, 4e6, small, 0, 4096, HW_SEQUENTIAL, false);
	hw_reset_counters(hw);
	hw_touch(hw, a, 5e6, small, 0, 4096, HW_SEQUENTIAL, false);
	ck_assert_uint_eq(k->hits[1], 64);
	hw_free(hw);
	topo_free(t);
}
END_TEST

START_TEST(written_data_comes_from_the_writers_cache)
{
	struct topo *t = load("numa4");
	struct hw *hw = hw_new(t);
	hw_region_t r = hw_region_new(hw, 8192, HW_PLACE_NODE, 0);
	int writer = pu_of(t, 0, 0), sibling = pu_of(t, 0, 3), far = pu_of(t, 3, 0);
	const struct hw_counters *k = hw_counters(hw);
	hw_touch(hw, far, 0, r, 0, 8192, HW_SEQUENTIAL, false); /* a stale copy over there */
	hw_touch(hw, writer, 1e4, r, 0, 8192, HW_SEQUENTIAL, true);
	hw_reset_counters(hw);
	hw_touch(hw, sibling, 2e4, r, 0, 8192, HW_SEQUENTIAL, false);
	ck_assert_uint_eq(k->hits[3], 128); /* written into the shared L3 */
	hw_reset_counters(hw);
	double cost = hw_touch(hw, far, 3e4, r, 0, 8192, HW_POINTER_CHASE, false);
	ck_assert_uint_eq(k->c2c, 128);        /* its old copy is stale */
	ck_assert(fabs(cost - 128 * 195) < 1e-6);
	hw_free(hw);
	topo_free(t);
}
END_TEST

START_TEST(regions_are_homed_by_placement)
{
	struct topo *t = load("numa4");
	struct hw *hw = hw_new(t);
	hw_region_t inter = hw_region_new(hw, 16 * HW_CHUNK, HW_PLACE_INTERLEAVE, 0);
	for (int i = 0; i < 16; i++)
		ck_assert_int_eq(hw_region_home(hw, inter, (uint64_t)i * HW_CHUNK), i % 4);
	hw_region_t ft = hw_region_new(hw, 4 * HW_CHUNK, HW_PLACE_FIRST_TOUCH, 0);
	ck_assert_int_eq(hw_region_home(hw, ft, 0), -1);
	hw_touch(hw, pu_of(t, 2, 0), 0, ft, 0, 2 * HW_CHUNK, HW_SEQUENTIAL, true);
	hw_touch(hw, pu_of(t, 1, 0), 0, ft, 2 * HW_CHUNK, 2 * HW_CHUNK, HW_SEQUENTIAL, true);
	ck_assert_int_eq(hw_region_home(hw, ft, 0), 2);
	ck_assert_int_eq(hw_region_home(hw, ft, HW_CHUNK), 2);
	ck_assert_int_eq(hw_region_home(hw, ft, 3 * HW_CHUNK), 1);
	hw_region_t pinned = hw_region_new(hw, HW_CHUNK, HW_PLACE_NODE, 3);
	ck_assert_int_eq(hw_region_home(hw, pinned, 0), 3);
	hw_free(hw);
	topo_free(t);
}
END_TEST

START_TEST(overlap_makes_streams_cheaper_than_chases)
{
	struct topo *t = load("numa4");
	struct hw *hw = hw_new(t);
	const uint64_t ws = 1 << 20, lines = ws / HW_LINE;
	hw_region_t a = hw_region_new(hw, ws, HW_PLACE_NODE, 0);
	hw_region_t b = hw_region_new(hw, ws, HW_PLACE_NODE, 0);
	hw_region_t c = hw_region_new(hw, ws, HW_PLACE_NODE, 0);
	double mlp = t->lat.mlp, lat = 135;
	double seq = hw_touch(hw, 0, 0, a, 0, ws, HW_SEQUENTIAL, false);
	double rnd = hw_touch(hw, 0, 1e9, b, 0, ws, HW_RANDOM, false);
	double chase = hw_touch(hw, 0, 2e9, c, 0, ws, HW_POINTER_CHASE, false);
	ck_assert(fabs(seq - (lat + (double)(lines - 1) * lat / mlp)) < 1e-6);
	ck_assert(fabs(rnd - (lat + (double)(lines - 1) * lat / (mlp / 2))) < 1e-6);
	ck_assert(fabs(chase - (double)lines * lat) < 1e-6);
	hw_free(hw);
	topo_free(t);
}
END_TEST

/* ---- Bandwidth ------------------------------------------------------------- */

static const char *const bw_topologies[] = { "numa4", "numa8", "4s-dell-r910-xeon-e7-4870.xml" };

START_TEST(one_node_saturates_while_interleaved_scales_with_nodes)
{
	const char *name = bw_topologies[_i];
	struct topo *t = strstr(name, ".xml") ? load_shared(name) : load(name);
	struct hw_mlc *m = hw_mlc_run(t);
	for (int i = 0; i < t->nnodes; i++) {
		double ratio = m->bw_interleaved / m->bw_one_node[i];
		ck_assert_msg(ratio > 0.85 * t->nnodes && ratio < 1.05 * t->nnodes,
			      "%s node %d: interleaved %.1f GB/s vs one node %.1f GB/s", name, i,
			      m->bw_interleaved, m->bw_one_node[i]);
		/* Saturated: within 5% of the controller's peak. */
		ck_assert(m->bw_one_node[i] > 0.95 * t->nodes[i].bandwidth_gbs);
		ck_assert(m->bw_one_node[i] <= t->nodes[i].bandwidth_gbs * 1.0001);
	}
	hw_mlc_free(m);
	topo_free(t);
}
END_TEST

START_TEST(hammering_one_node_stalls_on_its_controller)
{
	struct topo *t = load("numa4");
	struct hw *hw = hw_new(t);
	hw_region_t r = hw_region_new(hw, 32u << 20, HW_PLACE_NODE, 0);
	double alone = hw_touch(hw, 0, 0, r, 0, 1 << 20, HW_SEQUENTIAL, false);
	ck_assert(hw_counters(hw)->bw_stall_ns == 0);
	/* 16 cores start the same 1 MiB read at the same time. */
	double worst = 0;
	for (int k = 1; k <= 16; k++) {
		double c = hw_touch(hw, t->cores[k * 2 - 1].first_pu, 1e9, r, (uint64_t)k << 20, 1 << 20,
				    HW_SEQUENTIAL, false);
		if (c > worst)
			worst = c;
	}
	ck_assert(hw_counters(hw)->bw_stall_ns > 0);
	/* 16 MiB through a 30 GB/s controller: ~560 us; alone ~110 us. */
	ck_assert_msg(worst > 4 * alone, "worst %.0f ns, alone %.0f ns", worst, alone);
	ck_assert(fabs(worst - 16.0 * (1 << 20) / 30.0) < 1.0);
	hw_free(hw);
	topo_free(t);
}
END_TEST

/* ---- Determinism ------------------------------------------------------------- */

static void mixed_workload(struct hw *hw, uint64_t *digest)
{
	const struct topo *t = hw_topo(hw);
	hw_region_t r = hw_region_new(hw, 4u << 20, HW_PLACE_FIRST_TOUCH, 0);
	hw_line_t l = hw_line_new(hw, 1);
	unsigned x = 7;
	double now = 0, sum = 0;
	for (int i = 0; i < 5000; i++) {
		x = x * 1103515245u + 12345u;
		int cpu = (int)((x >> 8) % (unsigned)t->npus);
		if (x & 1) {
			uint64_t off = ((x >> 4) % 1024) * 4096;
			sum += hw_touch(hw, cpu, now, r, off, 4096 * (1 + (x >> 20) % 4),
					(enum hw_pattern)((x >> 12) % 3), (x >> 3) & 1);
		} else {
			sum += hw_line_access(hw, cpu, now, l, (enum hw_access)((x >> 5) % 3));
		}
		now += 50;
	}
	const struct hw_counters *k = hw_counters(hw);
	uint64_t h = 1469598103934665603ull;
	uint64_t vals[] = { k->hits[1], k->hits[2], k->hits[3], k->c2c, k->dram, k->line_transfers,
			    (uint64_t)(k->bw_stall_ns * 1000), (uint64_t)(k->line_stall_ns * 1000),
			    (uint64_t)(sum * 1000) };
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		h = (h ^ vals[i]) * 1099511628211ull;
	for (int i = 0; i <= t->max_hops; i++)
		h = (h ^ k->dram_by_hops[i]) * 1099511628211ull;
	*digest = h;
}

START_TEST(identical_runs_give_identical_counters)
{
	struct topo *t = load("numa4");
	uint64_t d1, d2;
	struct hw *hw = hw_new(t);
	mixed_workload(hw, &d1);
	ck_assert(hw_counters(hw)->c2c > 0 && hw_counters(hw)->dram > 0);
	hw_free(hw);
	hw = hw_new(t);
	mixed_workload(hw, &d2);
	hw_free(hw);
	ck_assert_uint_eq(d1, d2);
	topo_free(t);
}
END_TEST

/* A region's page records are made a block of 1024 pages at a time, on a
 * block's first touch: a region that begins in a block made for the one
 * before it, or spans untouched blocks, is homed as its placement says. */
START_TEST(page_records_made_on_touch_keep_their_placement)
{
	struct topo *t = load("numa4");
	struct hw *hw = hw_new(t);
	hw_region_t a = hw_region_new(hw, 3 * HW_CHUNK, HW_PLACE_INTERLEAVE, 0);
	hw_touch(hw, pu_of(t, 1, 0), 0, a, 0, HW_CHUNK, HW_SEQUENTIAL, false);  /* block 0 made */
	hw_region_t b = hw_region_new(hw, 3000 * HW_CHUNK, HW_PLACE_NODE, 2);
	hw_region_t c = hw_region_new(hw, 5000 * HW_CHUNK, HW_PLACE_INTERLEAVE, 0);
	hw_region_t d = hw_region_new(hw, 1ull << 40, HW_PLACE_FIRST_TOUCH, 0);   /* 1 TiB */
	ck_assert_int_eq(hw_region_home(hw, a, 2 * HW_CHUNK), 2);
	for (uint64_t i = 0; i < 3000; i += 499)
		ck_assert_int_eq(hw_region_home(hw, b, i * HW_CHUNK), 2);
	/* touch c across blocks, then ask again: the same homes */
	hw_touch(hw, pu_of(t, 3, 0), 1e3, c, 1000 * HW_CHUNK, 2000 * HW_CHUNK, HW_SEQUENTIAL, true);
	for (uint64_t i = 0; i < 5000; i += 7)
		ck_assert_int_eq(hw_region_home(hw, c, i * HW_CHUNK), (int)(i % 4));
	ck_assert_int_eq(hw_region_home(hw, d, 0), -1);
	ck_assert_int_eq(hw_region_home(hw, d, (1ull << 40) - 1), -1);
	hw_touch(hw, pu_of(t, 1, 0), 2e3, d, (1ull << 40) - HW_CHUNK, HW_CHUNK, HW_SEQUENTIAL, true);
	ck_assert_int_eq(hw_region_home(hw, d, (1ull << 40) - 1), 1);
	ck_assert_int_eq(hw_region_home(hw, d, (1ull << 40) - 2 * HW_CHUNK), -1);
	hw_free(hw);
	topo_free(t);
}
END_TEST

/* A cache's slots grow with what enters it: a 4 TiB L3 is built without
 * allocating for its size, and holds a working set larger than the 64
 * slots it starts with (the table rehashed as it grew) as any L3 would. */
START_TEST(a_huge_cache_costs_what_it_holds)
{
	char path[] = "/tmp/schedlab-hw-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs("{\"name\": \"bigl3\", \"packages\": 1, \"numa_nodes\": 1, \"cores\": 2, "
	      "\"pus_per_core\": 1, \"caches\": [{\"level\": 1, \"size\": \"32KiB\"}, "
	      "{\"level\": 2, \"size\": \"1MiB\"}, {\"level\": 3, \"size\": \"4096GiB\", \"cores\": 2}], "
	      "\"node_memory\": \"8TiB\", \"distances\": [[10]], \"latency\": {\"c2c_ns\": "
	      "{\"core\": 5, \"group\": 50}, \"dram_ns\": {\"local\": 90}, \"bandwidth_gbs\": 100}}", f);
	ck_assert_int_eq(fclose(f), 0);
	struct topo *t = load(path);
	unlink(path);
	struct hw *hw = hw_new(t);
	const uint64_t ws = 64ull << 20;   /* 16384 chunks: past L2, well inside L3 */
	hw_region_t r = hw_region_new(hw, ws, HW_PLACE_NODE, 0);
	const struct hw_counters *k = hw_counters(hw);
	hw_touch(hw, 0, 0, r, 0, ws, HW_SEQUENTIAL, false);
	ck_assert_uint_eq(k->dram, ws / HW_LINE);
	hw_reset_counters(hw);
	hw_touch(hw, 1, 1e9, r, 0, ws, HW_SEQUENTIAL, false);   /* the other core: the L3 */
	ck_assert_uint_eq(k->hits[3], ws / HW_LINE);
	ck_assert_uint_eq(k->dram, 0);
	hw_free(hw);
	topo_free(t);
}
END_TEST

/* ---- Transfer tables --------------------------------------------------------
 *
 * hw_new prices transfers from tables made once; past HW_XFER_TABLE_MAX
 * (or with hw_new_limited(t, 0)) it prices each access from the topology.
 * Both must give the doubles the per-sharer computation below gives, to
 * the bit: a report must not change with the machine's size. */

static const char *const xfer_topologies[] = {
	"numa1", "numa4", "numa8", "24s-sgi-uv2000-xeon-e5-4640.xml", "2s-corona-epyc-7401.xml",
	"16s-ibm-x3950m2.xml", "2s-dell-r740-xeon-6230-snc2.xml",
};

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double direct_transfer(const struct topo *t, int from, int to)
{
	return from == to ? 0 : topo_c2c_ns(t, t->pus[from].core, t->pus[to].core);
}

/* What hw_line_access did before the tables: every sharer priced. */
static double direct_store_wait(const struct topo *t, int cpu, const uint64_t *sharers,
				double fetch)
{
	for (int s = 0; s < t->npus; s++)
		if (sharers[s / 64] >> (s % 64) & 1) {
			double inv = direct_transfer(t, cpu, s);
			if (inv > fetch)
				fetch = inv;
		}
	return fetch;
}

static void assert_bits(double got, double want, const char *what, const char *topo, int a,
			int b)
{
	ck_assert_msg(memcmp(&got, &want, sizeof(double)) == 0,
		      "%s: %s (%d, %d) gives %.17g, the direct computation %.17g", topo, what, a, b,
		      got, want);
}

/* A random sharer set of npus PUs: none, one, a few, or a random share of
 * all, cpu's own bit sometimes among them. */
static void random_sharers(uint64_t *rng, int npus, int cpu, uint64_t *sharers)
{
	memset(sharers, 0, sizeof(uint64_t) * (size_t)((npus + 63) / 64));
	uint64_t x = splitmix(rng);
	int few = x % 4 == 1 ? 1 : x % 4 == 2 ? 1 + (int)((x >> 8) % 8) : 0;
	for (int k = 0; k < few; k++) {
		int s = (int)(splitmix(rng) % (uint64_t)npus);
		sharers[s / 64] |= 1ull << (s % 64);
	}
	if (x % 4 == 3) {
		uint64_t permille = (x >> 8) % 1001;
		for (int s = 0; s < npus; s++)
			if (splitmix(rng) % 1000 < permille)
				sharers[s / 64] |= 1ull << (s % 64);
	}
	if ((x >> 40) & 1)
		sharers[cpu / 64] |= 1ull << (cpu % 64);
}

/* A fetch as hw_line_access makes one (nothing, DRAM, another PU's copy,
 * ties with a sharer's cost), and ones it never makes (negative, NaN). */
static double random_fetch(uint64_t *rng, const struct topo *t, int cpu)
{
	uint64_t x = splitmix(rng);
	int other = (int)((x >> 8) % (uint64_t)t->npus);
	switch (x % 6) {
	case 0:
		return 0;
	case 1:
		return topo_dram_ns(t, t->cores[t->pus[cpu].core].node,
				    (int)((x >> 32) % (uint64_t)t->nnodes));
	case 2:
	case 3:
		return direct_transfer(t, other, cpu);
	case 4:
		return -1.5;
	}
	return NAN;
}

/* Costs of shared lines and written chunks, step by step on two models. */
static void assert_same_runs(struct hw *a, struct hw *b, const struct topo *t, const char *name,
			     uint64_t *rng)
{
	hw_line_t la[4], lb[4];
	for (int i = 0; i < 4; i++) {
		la[i] = hw_line_new(a, i % t->nnodes);
		lb[i] = hw_line_new(b, i % t->nnodes);
	}
	double now = 0;
	for (int i = 0; i < 3000; i++) {
		uint64_t x = splitmix(rng);
		int cpu = (int)((x >> 8) % (uint64_t)t->npus);
		enum hw_access kind = (enum hw_access)(x % 3);
		double ca = hw_line_access(a, cpu, now, la[(x >> 40) % 4], kind);
		double cb = hw_line_access(b, cpu, now, lb[(x >> 40) % 4], kind);
		assert_bits(ca, cb, "hw_line_access", name, cpu, (int)kind);
		now += (double)((x >> 48) % 300);
	}
	for (int i = 0; i < 200; i++) {
		uint64_t x = splitmix(rng);
		int w = (int)((x >> 8) % (uint64_t)t->npus);
		int r = (int)((x >> 32) % (uint64_t)t->npus);
		hw_region_t ra = hw_region_new(a, HW_CHUNK, HW_PLACE_NODE, 0);
		hw_region_t rb = hw_region_new(b, HW_CHUNK, HW_PLACE_NODE, 0);
		hw_touch(a, w, now, ra, 0, HW_LINE, HW_SEQUENTIAL, true);
		hw_touch(b, w, now, rb, 0, HW_LINE, HW_SEQUENTIAL, true);
		now += 1e4;
		double ca = hw_touch(a, r, now, ra, 0, HW_LINE, HW_SEQUENTIAL, false);
		double cb = hw_touch(b, r, now, rb, 0, HW_LINE, HW_SEQUENTIAL, false);
		assert_bits(ca, cb, "hw_touch of a written chunk", name, w, r);
		now += 1e4;
	}
	ck_assert_uint_eq(hw_counters(a)->c2c, hw_counters(b)->c2c);
	if (t->ngroups > 1)   /* else every written chunk is in the reader's L3 */
		ck_assert_uint_gt(hw_counters(a)->c2c, 0);
	ck_assert_uint_eq(hw_counters(a)->line_transfers, hw_counters(b)->line_transfers);
	assert_bits(hw_counters(a)->line_stall_ns, hw_counters(b)->line_stall_ns, "line stalls",
		    name, 0, 0);
}

START_TEST(transfer_tables_give_the_per_sharer_costs_bit_for_bit)
{
	const char *name = xfer_topologies[_i];
	struct topo *t = strstr(name, ".xml") ? load_shared(name) : load(name);
	struct hw *tab = hw_new(t);
	struct hw *direct = hw_new_limited(t, 0);
	/* the pair table fits, the sharer bitmaps do not */
	struct hw *half = hw_new_limited(t, (size_t)t->npus * (size_t)t->npus);
	ck_assert_msg(hw_has_xfer_table(tab), "%s: no tables", name);
	ck_assert(!hw_has_xfer_table(direct));
	ck_assert(!hw_has_xfer_table(half));
	struct hw *models[] = { tab, direct, half };

	for (int a = 0; a < t->npus; a++)
		for (int b = 0; b < t->npus; b++)
			for (int m = 0; m < 3; m++)
				assert_bits(hw_pu_transfer_ns(models[m], a, b),
					    direct_transfer(t, a, b), "hw_pu_transfer_ns", name,
					    a, b);

	uint64_t rng = 35 + (uint64_t)_i;
	uint64_t *sharers = xcalloc((size_t)(t->npus + 63) / 64, sizeof(uint64_t));
	for (int i = 0; i < 20000; i++) {
		int cpu = (int)(splitmix(&rng) % (uint64_t)t->npus);
		random_sharers(&rng, t->npus, cpu, sharers);
		double fetch = random_fetch(&rng, t, cpu);
		double want = direct_store_wait(t, cpu, sharers, fetch);
		for (int m = 0; m < 3; m++)
			assert_bits(hw_store_wait_ns(models[m], cpu, sharers, fetch), want,
				    "hw_store_wait_ns", name, cpu, i);
	}
	free(sharers);
	assert_same_runs(tab, direct, t, name, &rng);
	for (int m = 0; m < 3; m++)
		hw_free(models[m]);
	topo_free(t);
}
END_TEST

/* 8,200 PUs: the pair table alone would pass 64 MiB, so the model prices
 * every access from the topology, and as the tables would. */
START_TEST(a_machine_too_big_for_the_tables_prices_per_access)
{
	struct err e = { "" };
	const char *json = "{\"packages\": 2, \"numa_nodes\": 2, \"cores\": 4100, "
			   "\"pus_per_core\": 2, \"distances\": [[10, 21], [21, 10]]}";
	struct topo *t = topo_load_json_text(json, "big.json", &e);
	ck_assert_msg(t != NULL, "%s", e.msg);
	ck_assert_int_eq(t->npus, 8200);
	struct hw *hw = hw_new(t);
	ck_assert(!hw_has_xfer_table(hw));
	uint64_t rng = 8200;
	uint64_t *sharers = xcalloc((size_t)(t->npus + 63) / 64, sizeof(uint64_t));
	for (int i = 0; i < 300; i++) {
		int cpu = (int)(splitmix(&rng) % (uint64_t)t->npus);
		int other = (int)(splitmix(&rng) % (uint64_t)t->npus);
		assert_bits(hw_pu_transfer_ns(hw, cpu, other), direct_transfer(t, cpu, other),
			    "hw_pu_transfer_ns", "big.json", cpu, other);
		random_sharers(&rng, t->npus, cpu, sharers);
		double fetch = random_fetch(&rng, t, cpu);
		assert_bits(hw_store_wait_ns(hw, cpu, sharers, fetch),
			    direct_store_wait(t, cpu, sharers, fetch), "hw_store_wait_ns",
			    "big.json", cpu, i);
	}
	free(sharers);
	hw_free(hw);
	topo_free(t);
}
END_TEST

Suite *make_hw_suite(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("hw");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_loop_test(tc, pointer_chase_matrix_reproduces_dram_latencies, 0,
			    (int)(sizeof(chase_topologies) / sizeof(chase_topologies[0])));
	tcase_add_test(tc, line_written_on_core0_read_two_hops_away_costs_the_2hop_transfer);
	tcase_add_test(tc, n_cores_rmw_on_one_line_take_n_times_longer);
	tcase_add_test(tc, working_sets_hit_l2_l3_or_miss_by_where_they_run);
	tcase_add_test(tc, written_data_comes_from_the_writers_cache);
	tcase_add_test(tc, regions_are_homed_by_placement);
	tcase_add_test(tc, overlap_makes_streams_cheaper_than_chases);
	tcase_add_loop_test(tc, one_node_saturates_while_interleaved_scales_with_nodes, 0,
			    (int)(sizeof(bw_topologies) / sizeof(bw_topologies[0])));
	tcase_add_test(tc, hammering_one_node_stalls_on_its_controller);
	tcase_add_test(tc, identical_runs_give_identical_counters);
	tcase_add_test(tc, page_records_made_on_touch_keep_their_placement);
	tcase_add_test(tc, a_huge_cache_costs_what_it_holds);
	tcase_add_loop_test(tc, transfer_tables_give_the_per_sharer_costs_bit_for_bit, 0,
			    (int)(sizeof(xfer_topologies) / sizeof(xfer_topologies[0])));
	tcase_add_test(tc, a_machine_too_big_for_the_tables_prices_per_access);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
