/* Hardware model: what memory accesses cost on a modeled machine.
 *
 * Three mechanisms make scheduler policies differ in simulation, and this
 * module prices all three from a topology's latency model:
 *
 *  1. Caches.  Every data/unified cache instance of the topology keeps an
 *     LRU set of the chunks it holds, up to its capacity.  A chunk is
 *     HW_CHUNK bytes (one 4 KiB page): a working set is tracked page by
 *     page, so touching 64 KiB costs 16 look-ups, not 1024.  A chunk found
 *     in a core's L1, L2 or L3 costs that level's latency per line; one
 *     last written by a core in another core group is fetched from there
 *     (core-to-core latency); anything else comes from DRAM.  Levels are
 *     inclusive: a fill goes into every level of the accessing core.
 *     Writes bump the chunk's version, so copies held elsewhere become
 *     stale without being searched for (they miss when next looked up).
 *
 *  2. Coherence of shared scheduler state.  A shared variable lives on a
 *     line (hw_line) with an owner PU (the last writer) and a set of
 *     sharer PUs.  A load by a sharer hits L1; otherwise the line comes from
 *     the owner at the core-to-core latency of their relation, or from DRAM
 *     when nobody wrote it yet.  A store or read-modify-write needs the line
 *     exclusively: it takes the line from the owner and invalidates the
 *     sharers, and the line is busy meanwhile, so read-modify-writes from N
 *     PUs on one line queue behind each other -- the longer the transfer
 *     (the farther apart the PUs), the longer the queue.
 *
 *  3. Memory.  A region has a home: one node, interleaved page by page
 *     across nodes, or the node of the first PU to touch each page.  A DRAM
 *     access costs the topology's latency for (accessing node, home node),
 *     and each node's controller is a FIFO server of finite bandwidth: the
 *     DRAM bytes a touch moves from a node wait until that controller is
 *     free and then occupy it for bytes / bandwidth, so every core streaming
 *     from one node shares that node's bandwidth, while interleaved data
 *     gets all the nodes'.  A write that misses moves its lines twice (read
 *     for ownership, written back on eviction; the bandwidth is a read
 *     stream's).  A touch costs the larger of its latency-bound time and
 *     its bandwidth-bound time (queueing included).
 *
 * Overlap of the lines of one touch: a sequential stream overlaps up to the
 * topology's mlp (memory-level parallelism: hardware prefetch and fill
 * buffers) outstanding lines, independent random loads up to half of that,
 * and a pointer chase not at all (each load needs the previous one's
 * value).  A touch of n lines at latency L costs L + (n-1) * L / overlap:
 * only its first line waits a full latency.  Lines that hit a cache come
 * no faster than that level streams: L + (n-1) * max(L / overlap, 64 /
 * cache_bw_gbs[level]).
 *
 * Everything is deterministic: no clocks, no randomness, no pointer order.
 * Costs are returned in nanoseconds as doubles (an L1 hit is 1.3 ns); the
 * caller owns the conversion to simulated integer time.  The `now' passed in
 * orders queueing at lines and memory controllers; callers pass
 * non-decreasing times per actor, as the engine guarantees. */
#ifndef SCHEDLAB_HW_HW_H
#define SCHEDLAB_HW_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topologies/topo.h"

#define HW_CHUNK 4096u   /* tracking granularity of working sets (one page) */
#define HW_LINE 64u      /* bytes per cache line */

struct hw;

enum hw_pattern {
	HW_SEQUENTIAL,
	HW_RANDOM,
	HW_POINTER_CHASE,
};

enum hw_access {
	HW_LOAD,
	HW_STORE,
	HW_RMW,      /* atomic read-modify-write: CAS, fetch-add, xchg */
};

/* Where a region's pages live. */
enum hw_placement {
	HW_PLACE_NODE,         /* all on one node */
	HW_PLACE_INTERLEAVE,   /* page i on node i mod nodes */
	HW_PLACE_FIRST_TOUCH,  /* each page on the node of its first accessor */
};

typedef uint32_t hw_region_t;
typedef uint32_t hw_line_t;

/* Counters of everything the model priced.  Cache and memory counts are in
 * cache lines (a 4 KiB chunk touch counts its 64 lines). */
struct hw_counters {
	uint64_t hits[TOPO_MAX_LEVEL + 1];  /* [level]: lines served by that cache level */
	uint64_t c2c;                       /* lines fetched from another core group's cache */
	uint64_t dram;                      /* lines fetched from DRAM */
	uint64_t *dram_by_hops;             /* [h], h = 0..max_hops (0 = local) */
	uint64_t *dram_by_node;             /* [node * nnodes + home]: DRAM lines by where they
					     * were read from and where they live */
	double *dram_ns_by_hops;            /* [h]: their unloaded latency x lines, summed */
	double bw_stall_ns;                 /* time spent waiting for a memory controller */
	uint64_t line_accesses;             /* hw_line_access calls */
	uint64_t line_hits;                 /* ... served by the PU's own copy */
	uint64_t line_transfers;            /* ... that moved the line between PUs */
	double line_stall_ns;               /* time spent waiting for a busy line */
	uint64_t touches;                   /* hw_touch calls */
};

/* The tables of line transfer costs by PU pair (hw.c, xfer_build) are made
 * up to this many bytes; a larger machine prices transfers per access. */
#define HW_XFER_TABLE_MAX ((size_t)64 << 20)

struct hw *hw_new(const struct topo *t);
/* hw_new with another bound on the transfer tables: 0 makes the model
 * price every transfer per access, as on a machine too big for them (for
 * tests: both ways must give the same doubles). */
struct hw *hw_new_limited(const struct topo *t, size_t table_bytes);
/* Whether hw prices transfers from its tables. */
bool hw_has_xfer_table(const struct hw *hw);
void hw_free(struct hw *hw);
const struct topo *hw_topo(const struct hw *hw);
const struct hw_counters *hw_counters(const struct hw *hw);
void hw_reset_counters(struct hw *hw);

/* Regions: node is the home for HW_PLACE_NODE and ignored otherwise. */
hw_region_t hw_region_new(struct hw *hw, uint64_t bytes, enum hw_placement place, int node);
uint64_t hw_region_bytes(const struct hw *hw, hw_region_t r);
/* Home node of the page holding offset (-1: first touch, not touched yet). */
int hw_region_home(const struct hw *hw, hw_region_t r, uint64_t offset);

/* Touches [offset, offset+bytes) of region r from PU cpu at time now:
 * every line once, in the given pattern.  Returns the cost in ns. */
double hw_touch(struct hw *hw, int cpu, double now, hw_region_t r, uint64_t offset,
		uint64_t bytes, enum hw_pattern pattern, bool write);

/* Shared scheduler variables: one simulated cache line each, homed on a
 * node (whose DRAM serves it until somebody writes it). */
hw_line_t hw_line_new(struct hw *hw, int home_node);
double hw_line_access(struct hw *hw, int cpu, double now, hw_line_t line, enum hw_access kind);

/* What hw_line_access charges, exposed for tests.  The cost of moving a
 * line from PU `from' to PU `to': the core-to-core latency of their cores'
 * relation, 0 from a PU to itself. */
double hw_pu_transfer_ns(const struct hw *hw, int from, int to);
/* The wait of a store or RMW by cpu that fetches its line in `fetch' ns
 * while invalidating the copies of `sharers' (a bitmap of (npus + 63) / 64
 * words, bit s for PU s, cpu's own bit allowed): the larger of fetch and
 * the farthest sharer's transfer from cpu, fetch on a tie. */
double hw_store_wait_ns(const struct hw *hw, int cpu, const uint64_t *sharers, double fetch);


#endif
