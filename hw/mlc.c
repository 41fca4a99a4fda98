/* Simulated Memory Latency Checker: latency matrices from single touches,
 * bandwidth from every core streaming at once in the event engine. */
#include "hw/mlc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"
#include "hw/hw.h"
#include "util/util.h"

/* Long enough that the chase never revisits a page: every access is cold. */
#define CHASE_BYTES (256u * 1024u)
/* Cores keep issuing reads for this long (simulated); bandwidth is all the
 * bytes read divided by the time the last read completed.  With every core
 * of a 4-socket machine queued on one controller a 64 KiB step can take
 * ~70 us, so the window holds dozens of steps per core. */
#define BW_WINDOW_NS 2000000.0
/* Each streaming core gets its own slice, larger than it can read in the
 * window, so nothing is served from a cache; it reads it in 64 KiB steps,
 * as a streaming loop keeps many lines in flight across page boundaries. */
#define BW_SLICE_BYTES (8u * 1024u * 1024u)
#define BW_STEP (64u * 1024u)

static int first_pu_of_node(const struct topo *t, int node)
{
	for (int c = 0; c < t->ncores; c++)
		if (t->cores[c].node == node)
			return t->cores[c].first_pu;
	return -1;
}

static void measure_latency(const struct topo *t, struct hw_mlc *m)
{
	int n = t->nnodes;
	m->dram_ns = xmalloc(sizeof(double) * (size_t)n * (size_t)n);
	for (int i = 0; i < n; i++) {
		int cpu = first_pu_of_node(t, i);
		for (int j = 0; j < n; j++) {
			if (cpu < 0) {
				m->dram_ns[i * n + j] = NAN;
				continue;
			}
			/* a read chase moves no line between PUs: a model per pair of
			 * nodes without the transfer tables, which cost npus^2 to make */
			struct hw *hw = hw_new_limited(t, 0);
			hw_region_t r = hw_region_new(hw, CHASE_BYTES, HW_PLACE_NODE, j);
			double cost = hw_touch(hw, cpu, 0, r, 0, CHASE_BYTES, HW_POINTER_CHASE, false);
			m->dram_ns[i * n + j] = cost / (CHASE_BYTES / HW_LINE);
			hw_free(hw);
		}
	}
}

/* The first pair of PUs (in index order) whose relation matches. */
static bool find_pair(const struct topo *t, enum topo_rel rel, int hops, int *a, int *b)
{
	for (int x = 0; x < t->npus; x++)
		for (int y = 0; y < t->npus; y++) {
			if (x == y)
				continue;
			int cx = t->pus[x].core, cy = t->pus[y].core;
			if (topo_core_rel(t, cx, cy) != rel)
				continue;
			if (rel == TOPO_REL_CORE && cx != cy)
				continue;
			if (rel == TOPO_REL_REMOTE) {
				int h = topo_hops(t, t->cores[cx].node, t->cores[cy].node);
				if ((h ? h : 1) != hops)
					continue;
			}
			*a = x;
			*b = y;
			return true;
		}
	return false;
}

static void measure_c2c(const struct topo *t, struct hw_mlc *m)
{
	static const char *const names[] = { "same_core", "same_group", "same_package" };
	static char hop_names[TOPO_MAX_HOPS][16];
	m->c2c = xcalloc((size_t)(3 + t->max_hops), sizeof(*m->c2c));
	for (int k = 0; k < 3 + t->max_hops; k++) {
		enum topo_rel rel = k < 3 ? (enum topo_rel)k : TOPO_REL_REMOTE;
		int hops = k < 3 ? 0 : k - 2;
		int a, b;
		if (!find_pair(t, rel, hops, &a, &b))
			continue;
		struct hw *hw = hw_new(t);
		hw_line_t line = hw_line_new(hw, t->cores[t->pus[a].core].node);
		hw_line_access(hw, a, 0, line, HW_STORE);
		double ns = hw_line_access(hw, b, 1e6, line, HW_LOAD);
		hw_free(hw);
		struct hw_mlc_c2c *c = &m->c2c[m->nc2c++];
		if (k < 3) {
			c->relation = names[k];
		} else {
			snprintf(hop_names[hops - 1], sizeof(hop_names[0]), "hops_%d", hops);
			c->relation = hop_names[hops - 1];
		}
		c->ns = ns;
		c->cpu_a = a;
		c->cpu_b = b;
	}
}

/* ---- Bandwidth: one streaming actor per core ------------------------------ */

struct streamer {
	struct hw *hw;
	hw_region_t region;
	int cpu;
	uint64_t offset, end;
	uint64_t bytes;
	double finish;
};

static void stream(struct sim_actor *self, void *arg)
{
	struct streamer *s = arg;
	double carry = 0;
	while ((double)sim_now(self->eng) < BW_WINDOW_NS && s->offset < s->end) {
		double cost = hw_touch(s->hw, s->cpu, (double)sim_now(self->eng) + carry, s->region,
				       s->offset, BW_STEP, HW_SEQUENTIAL, false);
		s->offset += BW_STEP;
		s->bytes += BW_STEP;
		carry += cost;
		sim_time_t whole = (sim_time_t)carry;
		carry -= (double)whole;
		sim_sleep(self, whole);
	}
	s->finish = (double)sim_now(self->eng) + carry;
}

static double measure_bandwidth(const struct topo *t, enum hw_placement place, int node)
{
	struct hw *hw = hw_new(t);
	struct sim_engine *eng = sim_engine_new();
	hw_region_t r = hw_region_new(hw, (uint64_t)BW_SLICE_BYTES * (uint64_t)t->ncores, place, node);
	struct streamer *s = xcalloc((size_t)t->ncores, sizeof(*s));
	for (int c = 0; c < t->ncores; c++) {
		s[c] = (struct streamer){ hw, r, t->cores[c].first_pu, (uint64_t)c * BW_SLICE_BYTES,
					  (uint64_t)(c + 1) * BW_SLICE_BYTES, 0, 0 };
		sim_spawn(eng, "stream", stream, &s[c], 16384);
	}
	sim_run(eng);
	uint64_t bytes = 0;
	double elapsed = 0;
	for (int c = 0; c < t->ncores; c++) {
		bytes += s[c].bytes;
		if (s[c].finish > elapsed)
			elapsed = s[c].finish;
	}
	free(s);
	sim_engine_free(eng);
	hw_free(hw);
	return (double)bytes / elapsed; /* bytes per ns = GB/s */
}

struct hw_mlc *hw_mlc_run(const struct topo *t)
{
	struct hw_mlc *m = xcalloc(1, sizeof(*m));
	m->nnodes = t->nnodes;
	measure_latency(t, m);
	measure_c2c(t, m);
	m->bw_one_node = xcalloc((size_t)t->nnodes, sizeof(double));
	for (int i = 0; i < t->nnodes; i++)
		m->bw_one_node[i] = measure_bandwidth(t, HW_PLACE_NODE, i);
	m->bw_interleaved = measure_bandwidth(t, HW_PLACE_INTERLEAVE, 0);
	m->bw_window_ns = BW_WINDOW_NS;
	return m;
}

void hw_mlc_free(struct hw_mlc *m)
{
	if (!m)
		return;
	free(m->dram_ns);
	free(m->c2c);
	free(m->bw_one_node);
	free(m);
}
