/* Hardware model: caches, coherence of shared lines, NUMA memory with
 * bandwidth, OS costs.  The model is described in hw.h. */
#include "hw/hw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* ---- Cache instances: LRU sets of chunks -------------------------------- */

struct slot {
	uint64_t chunk;
	uint32_t version;
	uint32_t hnext;          /* next slot in the hash chain (0 = end) */
	uint32_t prev, next;     /* LRU list, most recent first (0 = end) */
};

/* The most slots a cache makes: 4 TiB of distinct chunks, more than a run
 * can declare within its memory budget (4 GiB at 12 bytes a page is 1.3
 * TiB), so a larger cache is never full. */
#define CACHE_SLOTS_MAX (1u << 30)

struct cache {
	uint64_t cap;            /* size / HW_CHUNK: any size, as the topology says */
	uint32_t n, mask;
	uint32_t nslots;         /* slots allocated so far, up to cap */
	uint32_t head, tail;     /* most and least recently used slots */
	uint32_t *bucket;        /* first slot of each chain, 0 = empty */
	struct slot *slot;       /* 1-based: slot[0] is unused */
};

static void cache_rehash(struct cache *c);

/* The slots and the hash table grow with the chunks the cache has held,
 * not with its size: a 1 TB L3 costs what the run puts in it. */
static void cache_init(struct cache *c, uint64_t bytes)
{
	uint64_t cap = bytes / HW_CHUNK;
	if (cap < 1)
		cap = 1; /* a cache smaller than a chunk still holds the last one */
	c->cap = cap;
	c->nslots = cap < 64 ? (uint32_t)cap : 64;
	c->slot = xcalloc((size_t)c->nslots + 1, sizeof(struct slot));
	cache_rehash(c);
}

static inline uint32_t chunk_hash(uint64_t chunk, uint32_t mask);

/* A table of at least twice as many chains as slots, and every slot in
 * use put back in its chain.  Only a chain's order changes, and no lookup
 * depends on it. */
static void cache_rehash(struct cache *c)
{
	uint32_t nb = 1;
	while (nb < 2 * c->nslots)
		nb <<= 1;
	free(c->bucket);
	c->bucket = xcalloc(nb, sizeof(uint32_t));
	c->mask = nb - 1;
	for (uint32_t s = 1; s <= c->n; s++) {
		uint32_t *b = &c->bucket[chunk_hash(c->slot[s].chunk, c->mask)];
		c->slot[s].hnext = *b;
		*b = s;
	}
}

/* Room for one more slot, while the cache is not yet full. */
static void cache_grow(struct cache *c)
{
	if (c->n < c->nslots)
		return;
	uint64_t want = 2 * (uint64_t)c->nslots;
	if (want > c->cap)
		want = c->cap;
	if (want > CACHE_SLOTS_MAX)
		want = CACHE_SLOTS_MAX;
	c->slot = xrealloc(c->slot, ((size_t)want + 1) * sizeof(struct slot));
	memset(&c->slot[c->nslots + 1], 0, (size_t)(want - c->nslots) * sizeof(struct slot));
	c->nslots = (uint32_t)want;
	cache_rehash(c);
}

static inline uint32_t chunk_hash(uint64_t chunk, uint32_t mask)
{
	uint64_t h = chunk * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(h >> 32) & mask;
}

static void lru_unlink(struct cache *c, uint32_t s)
{
	struct slot *x = &c->slot[s];
	if (x->prev)
		c->slot[x->prev].next = x->next;
	else
		c->head = x->next;
	if (x->next)
		c->slot[x->next].prev = x->prev;
	else
		c->tail = x->prev;
}

static void lru_push_front(struct cache *c, uint32_t s)
{
	struct slot *x = &c->slot[s];
	x->prev = 0;
	x->next = c->head;
	if (c->head)
		c->slot[c->head].prev = s;
	c->head = s;
	if (!c->tail)
		c->tail = s;
}

static uint32_t cache_find(const struct cache *c, uint64_t chunk)
{
	for (uint32_t s = c->bucket[chunk_hash(chunk, c->mask)]; s; s = c->slot[s].hnext)
		if (c->slot[s].chunk == chunk)
			return s;
	return 0;
}

static void hash_remove(struct cache *c, uint32_t s)
{
	uint32_t *link = &c->bucket[chunk_hash(c->slot[s].chunk, c->mask)];
	while (*link != s)
		link = &c->slot[*link].hnext;
	*link = c->slot[s].hnext;
}

/* Makes chunk the most recent entry with the given version, evicting the
 * least recent entry if the cache is full. */
static void cache_put(struct cache *c, uint64_t chunk, uint32_t version)
{
	uint32_t s = cache_find(c, chunk);
	if (s) {
		c->slot[s].version = version;
		if (c->head != s) {
			lru_unlink(c, s);
			lru_push_front(c, s);
		}
		return;
	}
	if (c->n < c->cap && c->n < CACHE_SLOTS_MAX) {
		cache_grow(c);
		s = ++c->n;
	} else {
		s = c->tail;
		lru_unlink(c, s);
		hash_remove(c, s);
	}
	struct slot *x = &c->slot[s];
	x->chunk = chunk;
	x->version = version;
	uint32_t *b = &c->bucket[chunk_hash(chunk, c->mask)];
	x->hnext = *b;
	*b = s;
	lru_push_front(c, s);
}

/* True if the cache holds chunk at version (refreshing its recency). */
static bool cache_hit(struct cache *c, uint64_t chunk, uint32_t version)
{
	uint32_t s = cache_find(c, chunk);
	if (!s || c->slot[s].version != version)
		return false;
	if (c->head != s) {
		lru_unlink(c, s);
		lru_push_front(c, s);
	}
	return true;
}

/* ---- The model ------------------------------------------------------------ */

struct chunk_meta {
	uint32_t version;
	int32_t writer;          /* PU of the last write, -1 if never written */
	int32_t home;            /* node, -1 until first touch */
};

struct region {
	uint64_t first_chunk, nchunks, bytes;
	enum hw_placement place;
	int node;
};

/* Chunk records are kept in blocks of CHUNK_BLOCK, a block made on the
 * first touch of a chunk in it: declaring a 1 TB region costs a pointer
 * per block, not a record per page. */
#define CHUNK_BLOCK 1024u

struct line {
	int32_t owner;           /* PU holding it modified, -1 if never written */
	int32_t home;
	double busy_until;       /* an exclusive access is in flight until then */
	uint64_t *sharers;       /* bitmap of PUs with a valid copy */
};

struct hw {
	const struct topo *t;
	struct cache *caches;            /* one per topology cache instance */
	int max_level;
	struct chunk_meta **blocks;      /* NULL: no chunk of it touched yet */
	uint64_t nchunks, block_cap;
	struct region *regions;
	uint32_t nregions, region_cap;
	struct line *lines;
	uint32_t nlines, line_cap;
	int pu_words;                    /* uint64 words of a sharer bitmap */
	int npus;
	/* Line transfer costs by PU pair, precomputed (xfer_build); NULL when
	 * the tables would not fit, and then computed per access. */
	uint8_t *xfer_cls;               /* [from * npus + to]: index into xfer_ns */
	double xfer_ns[3 + TOPO_MAX_HOPS];  /* the distinct costs */
	double inv_ns[3 + TOPO_MAX_HOPS];   /* those between distinct PUs, largest first */
	int ninv;
	uint64_t *inv_mask;              /* [(p * ninv + k) * pu_words + w]: the PUs s != p
					  * with inv_ns[k] from p */
	double *mc_busy_until;           /* per node memory controller */
	double *dram_bytes;              /* per node, during one touch */
	int *busy_nodes;                 /* nodes with dram_bytes != 0 */
	struct hw_counters ctr;
};

static void xfer_build(struct hw *hw, size_t limit);

struct hw *hw_new(const struct topo *t)
{
	return hw_new_limited(t, HW_XFER_TABLE_MAX);
}

struct hw *hw_new_limited(const struct topo *t, size_t table_bytes)
{
	struct hw *hw = xcalloc(1, sizeof(*hw));
	hw->t = t;
	hw->caches = xcalloc((size_t)(t->ncaches ? t->ncaches : 1), sizeof(struct cache));
	for (int i = 0; i < t->ncaches; i++) {
		cache_init(&hw->caches[i], t->caches[i].size);
		if (t->caches[i].level > hw->max_level)
			hw->max_level = t->caches[i].level;
	}
	hw->pu_words = (t->npus + 63) / 64;
	hw->mc_busy_until = xcalloc((size_t)t->nnodes, sizeof(double));
	hw->dram_bytes = xcalloc((size_t)t->nnodes, sizeof(double));
	hw->busy_nodes = xcalloc((size_t)t->nnodes, sizeof(int));
	hw->ctr.dram_by_hops = xcalloc((size_t)t->max_hops + 1, sizeof(uint64_t));
	hw->ctr.dram_by_node = xcalloc((size_t)t->nnodes * (size_t)t->nnodes, sizeof(uint64_t));
	hw->ctr.dram_ns_by_hops = xcalloc((size_t)t->max_hops + 1, sizeof(double));
	hw->npus = t->npus;
	xfer_build(hw, table_bytes);
	return hw;
}

/* The cost of moving a line between two PUs depends only on the relation
 * of their cores, so a machine has a handful of distinct costs.  A class
 * per PU pair makes a transfer one load instead of topo_c2c_ns's switch
 * and hop look-up, and, per PU, a bitmap per cost of the other PUs at that
 * cost lets a store find its farthest sharer by AND-ing bitmaps, largest
 * cost first, instead of pricing every sharer.  Both take npus^2 bytes and
 * more, so past limit bytes the costs stay computed per access.  They are
 * built only from costs that are finite and positive: for those, equal
 * values are the same double and the first cost met is the maximum, so
 * every result is the one the per-sharer computation gives. */
static void xfer_build(struct hw *hw, size_t limit)
{
	const struct topo *t = hw->t;
	size_t np = (size_t)t->npus, nc = (size_t)t->ncores, pw = (size_t)hw->pu_words;
	if (np == 0 || (double)np * (double)np > (double)limit)
		return;
	enum { CAP = sizeof(hw->xfer_ns) / sizeof(hw->xfer_ns[0]) };
	int n = 0;
	bool apart[CAP] = { false };   /* met between two distinct PUs */
	/* core pairs are priced as PUs meet them: a core without PUs adds no cost */
	uint8_t *core_cls = xmalloc(nc * nc);
	memset(core_cls, 0xff, nc * nc);
	uint8_t *cls = xmalloc(np * np);
	for (size_t a = 0; a < np; a++)
		for (size_t b = 0; b < np; b++) {
			size_t cab = (size_t)t->pus[a].core * nc + (size_t)t->pus[b].core;
			if (core_cls[cab] == 0xff) {
				double x = topo_c2c_ns(t, t->pus[a].core, t->pus[b].core);
				if (!(isfinite(x) && x > 0))
					goto fail;
				int k = 0;
				while (k < n && hw->xfer_ns[k] != x)
					k++;
				if (k == n) {
					if (n == CAP)
						goto fail;
					hw->xfer_ns[n++] = x;
				}
				core_cls[cab] = (uint8_t)k;
			}
			cls[a * np + b] = core_cls[cab];
			apart[cls[a * np + b]] |= a != b;
		}
	/* inv[k]: the rank of cost k among those met apart, largest first */
	int inv[CAP], ninv = 0;
	for (int k = 0; k < n; k++) {
		if (!apart[k])
			continue;
		inv[k] = 0;
		for (int j = 0; j < n; j++)
			inv[k] += apart[j] && hw->xfer_ns[j] > hw->xfer_ns[k];
		hw->inv_ns[inv[k]] = hw->xfer_ns[k];
		ninv++;
	}
	if ((double)np * (double)np + (double)np * ninv * (double)pw * sizeof(uint64_t) >
	    (double)limit)
		goto fail;
	hw->ninv = ninv;
	hw->inv_mask = xcalloc(np * (size_t)ninv * pw, sizeof(uint64_t));
	for (size_t a = 0; a < np; a++) {
		uint64_t *mask = &hw->inv_mask[a * (size_t)ninv * pw];
		for (size_t b = 0; b < np; b++) {
			size_t k = (size_t)inv[cls[a * np + b]];
			if (a != b)
				mask[k * pw + b / 64] |= 1ull << (b % 64);
		}
	}
	hw->xfer_cls = cls;
	free(core_cls);
	return;
fail:
	free(cls);
	free(core_cls);
}

void hw_free(struct hw *hw)
{
	if (!hw)
		return;
	for (int i = 0; i < hw->t->ncaches; i++) {
		free(hw->caches[i].bucket);
		free(hw->caches[i].slot);
	}
	free(hw->caches);
	for (uint64_t i = 0; i < hw->block_cap; i++)
		free(hw->blocks[i]);
	free(hw->blocks);
	free(hw->regions);
	for (uint32_t i = 0; i < hw->nlines; i++)
		free(hw->lines[i].sharers);
	free(hw->lines);
	free(hw->mc_busy_until);
	free(hw->dram_bytes);
	free(hw->busy_nodes);
	free(hw->ctr.dram_by_hops);
	free(hw->ctr.dram_by_node);
	free(hw->ctr.dram_ns_by_hops);
	free(hw->xfer_cls);
	free(hw->inv_mask);
	free(hw);
}

const struct topo *hw_topo(const struct hw *hw) { return hw->t; }
const struct hw_counters *hw_counters(const struct hw *hw) { return &hw->ctr; }

void hw_reset_counters(struct hw *hw)
{
	uint64_t *by_hops = hw->ctr.dram_by_hops, *by_node = hw->ctr.dram_by_node;
	double *ns_by_hops = hw->ctr.dram_ns_by_hops;
	size_t nn = (size_t)hw->t->nnodes;
	memset(by_hops, 0, sizeof(uint64_t) * ((size_t)hw->t->max_hops + 1));
	memset(by_node, 0, sizeof(uint64_t) * nn * nn);
	memset(ns_by_hops, 0, sizeof(double) * ((size_t)hw->t->max_hops + 1));
	memset(&hw->ctr, 0, sizeof(hw->ctr));
	hw->ctr.dram_by_hops = by_hops;
	hw->ctr.dram_by_node = by_node;
	hw->ctr.dram_ns_by_hops = ns_by_hops;
}

/* Chunk i of a region, as its placement makes it before any touch. */
static struct chunk_meta chunk_fresh(const struct hw *hw, const struct region *reg, uint64_t i)
{
	struct chunk_meta m = { .version = 0, .writer = -1, .home = -1 };
	if (reg->place == HW_PLACE_NODE)
		m.home = reg->node;
	else if (reg->place == HW_PLACE_INTERLEAVE)
		m.home = (int32_t)(i % (uint64_t)hw->t->nnodes);
	return m;
}

/* The region holding chunk gid (regions are in chunk order). */
static const struct region *region_of(const struct hw *hw, uint64_t gid)
{
	uint32_t lo = 0, hi = hw->nregions;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (hw->regions[mid].first_chunk <= gid)
			lo = mid;
		else
			hi = mid;
	}
	return &hw->regions[lo];
}

/* Fresh records for chunks [from, to) of the block at b, all in regions. */
static void block_fill(const struct hw *hw, struct chunk_meta *blk, uint64_t b, uint64_t from,
		       uint64_t to)
{
	const struct region *reg = region_of(hw, from);
	for (uint64_t g = from; g < to; g++) {
		while (g >= reg->first_chunk + reg->nchunks)
			reg++;
		blk[g - b * CHUNK_BLOCK] = chunk_fresh(hw, reg, g - reg->first_chunk);
	}
}

static struct chunk_meta *chunk_at(struct hw *hw, uint64_t gid)
{
	uint64_t b = gid / CHUNK_BLOCK;
	if (!hw->blocks[b]) {
		uint64_t to = (b + 1) * CHUNK_BLOCK;
		hw->blocks[b] = xmalloc(CHUNK_BLOCK * sizeof(struct chunk_meta));
		block_fill(hw, hw->blocks[b], b, b * CHUNK_BLOCK, to < hw->nchunks ? to : hw->nchunks);
	}
	return &hw->blocks[b][gid % CHUNK_BLOCK];
}

hw_region_t hw_region_new(struct hw *hw, uint64_t bytes, enum hw_placement place, int node)
{
	uint64_t n = (bytes + HW_CHUNK - 1) / HW_CHUNK;
	if (n == 0)
		n = 1;
	uint64_t need = (hw->nchunks + n + CHUNK_BLOCK - 1) / CHUNK_BLOCK;
	if (need > hw->block_cap) {
		uint64_t cap = hw->block_cap ? hw->block_cap : 16;
		while (cap < need)
			cap *= 2;
		hw->blocks = xrealloc(hw->blocks, cap * sizeof(*hw->blocks));
		memset(&hw->blocks[hw->block_cap], 0, (cap - hw->block_cap) * sizeof(*hw->blocks));
		hw->block_cap = cap;
	}
	if (hw->nregions == hw->region_cap) {
		hw->region_cap = hw->region_cap ? hw->region_cap * 2 : 64;
		hw->regions = xrealloc(hw->regions, hw->region_cap * sizeof(*hw->regions));
	}
	hw_region_t id = hw->nregions++;
	hw->regions[id] = (struct region){ hw->nchunks, n, bytes, place, node };
	uint64_t first = hw->nchunks, b = first / CHUNK_BLOCK;
	hw->nchunks += n;
	/* the block the last region ends in may be made already */
	if (hw->blocks[b]) {
		uint64_t to = (b + 1) * CHUNK_BLOCK;
		block_fill(hw, hw->blocks[b], b, first, to < hw->nchunks ? to : hw->nchunks);
	}
	return id;
}

uint64_t hw_region_bytes(const struct hw *hw, hw_region_t r)
{
	return hw->regions[r].bytes;
}

int hw_region_home(const struct hw *hw, hw_region_t r, uint64_t offset)
{
	const struct region *reg = &hw->regions[r];
	uint64_t gid = reg->first_chunk + offset / HW_CHUNK;
	const struct chunk_meta *blk = hw->blocks[gid / CHUNK_BLOCK];
	return blk ? blk[gid % CHUNK_BLOCK].home : chunk_fresh(hw, reg, offset / HW_CHUNK).home;
}

static double overlap_of(const struct hw *hw, enum hw_pattern p)
{
	double mlp = hw->t->lat.mlp;
	switch (p) {
	case HW_SEQUENTIAL:
		return mlp;
	case HW_RANDOM:
		return mlp / 2 > 1 ? mlp / 2 : 1;
	case HW_POINTER_CHASE:
		break;
	}
	return 1;
}

/* Does the last writer of a chunk still hold its current version?  Its
 * outermost cache is enough to ask: levels are inclusive. */
static bool writer_holds(struct hw *hw, const struct chunk_meta *m, uint64_t gid)
{
	const struct topo_core *wc = &hw->t->cores[hw->t->pus[m->writer].core];
	for (int l = hw->max_level; l >= 1; l--) {
		int inst = wc->cache[l];
		if (inst >= 0) {
			uint32_t s = cache_find(&hw->caches[inst], gid);
			return s && hw->caches[inst].slot[s].version == m->version;
		}
	}
	return false;
}

/* A transfer priced from the tables (xfer_build), which hw must have. */
static inline double xfer_of(const struct hw *hw, int from, int to)
{
	return hw->xfer_ns[hw->xfer_cls[(size_t)from * (size_t)hw->npus + (size_t)to]];
}

double hw_touch(struct hw *hw, int cpu, double now, hw_region_t r, uint64_t offset,
		uint64_t bytes, enum hw_pattern pattern, bool write)
{
	const struct topo *t = hw->t;
	const struct region *reg = &hw->regions[r];
	if (bytes == 0 || offset >= reg->bytes)
		return 0;
	if (offset + bytes > reg->bytes)
		bytes = reg->bytes - offset;

	int core = t->pus[cpu].core;
	const struct topo_core *tc = &t->cores[core];
	int node = tc->node;
	double m = overlap_of(hw, pattern);
	uint64_t end = offset + bytes;
	/* Latency-bound time: only the first line of a touch waits a full
	 * latency; after it an overlapping stream delivers a line every lat/m
	 * (for a pointer chase m is 1, so every line waits in full), and lines
	 * that hit a cache no faster than its cache_bw_gbs. */
	double lat_time = 0;
	double first = 1;
	int nbusy = 0;          /* nodes whose DRAM this touch reads */
	hw->ctr.touches++;

	for (uint64_t c = offset / HW_CHUNK; c * HW_CHUNK < end; c++) {
		uint64_t lo = c * HW_CHUNK > offset ? c * HW_CHUNK : offset;
		uint64_t hi = (c + 1) * HW_CHUNK < end ? (c + 1) * HW_CHUNK : end;
		uint64_t lines = (hi + HW_LINE - 1) / HW_LINE - lo / HW_LINE;
		uint64_t gid = reg->first_chunk + c;
		struct chunk_meta *meta = chunk_at(hw, gid);
		if (meta->home < 0)
			meta->home = node; /* first touch places the page */

		int hit = 0;
		for (int l = 1; l <= hw->max_level && !hit; l++)
			if (tc->cache[l] >= 0 && cache_hit(&hw->caches[tc->cache[l]], gid, meta->version))
				hit = l;

		double lat, step;  /* the first line's wait; each later line's */
		if (hit) {
			lat = t->lat.cache_ns[hit];
			/* hits overlap too, but no faster than the level streams */
			step = fmax(lat / m, HW_LINE / t->lat.cache_bw_gbs[hit]);
			hw->ctr.hits[hit] += lines;
		} else if (meta->writer >= 0 && writer_holds(hw, meta, gid)) {
			/* not pu_transfer, whose 0 for a PU to itself this path
			 * never charged: the cores' figure, as topo_c2c_ns gives it */
			lat = hw->xfer_cls ? xfer_of(hw, meta->writer, cpu)
				: topo_c2c_ns(t, t->pus[meta->writer].core, core);
			step = lat / m;
			hw->ctr.c2c += lines;
		} else {
			int home = meta->home;
			lat = topo_dram_ns(t, node, home);
			step = lat / m;   /* the controller's bandwidth bounds it below */
			hw->ctr.dram += lines;
			int hops = topo_hops(t, node, home);
			hw->ctr.dram_by_hops[hops] += lines;
			hw->ctr.dram_by_node[node * t->nnodes + home] += lines;
			hw->ctr.dram_ns_by_hops[hops] += lat * (double)lines;
			if (hw->dram_bytes[home] == 0)
				hw->busy_nodes[nbusy++] = home;
			/* a write allocates: the line is read for ownership now and
			 * written back when it is evicted, twice its bytes through
			 * the controller (bandwidth_gbs is a read stream's) */
			hw->dram_bytes[home] += (double)(lines * HW_LINE) * (write ? 2 : 1);
		}
		lat_time += first * lat + ((double)lines - first) * step;
		first = 0;

		if (write) {
			meta->version++;
			meta->writer = cpu;
		}
		/* Fill (or refresh) every level up to the one that hit; a write
		 * re-tags the writer's copies with the new version. */
		int upto = hit && !write ? hit - 1 : hw->max_level;
		for (int l = 1; l <= upto; l++)
			if (tc->cache[l] >= 0)
				cache_put(&hw->caches[tc->cache[l]], gid, meta->version);
	}

	/* Bandwidth: the touch's DRAM bytes of each node form one request to
	 * that node's controller, a FIFO server busy until busy_until.  A
	 * request is served as one contiguous block (not line by line at the
	 * times the lines would issue), so that it cannot hold the controller
	 * through the gaps of its own latency-bound stream. */
	double bw_time = 0;
	for (int k = 0; k < nbusy; k++) {
		int n = hw->busy_nodes[k];
		double service = hw->dram_bytes[n] / t->nodes[n].bandwidth_gbs; /* GB/s = B/ns */
		double start = hw->mc_busy_until[n] > now ? hw->mc_busy_until[n] : now;
		hw->mc_busy_until[n] = start + service;
		hw->ctr.bw_stall_ns += start - now;
		if (start - now + service > bw_time)
			bw_time = start - now + service;
		hw->dram_bytes[n] = 0;
	}
	return lat_time > bw_time ? lat_time : bw_time;
}

/* ---- Shared lines ---------------------------------------------------------- */

hw_line_t hw_line_new(struct hw *hw, int home_node)
{
	if (hw->nlines == hw->line_cap) {
		hw->line_cap = hw->line_cap ? hw->line_cap * 2 : 64;
		hw->lines = xrealloc(hw->lines, hw->line_cap * sizeof(*hw->lines));
	}
	struct line *l = &hw->lines[hw->nlines];
	l->owner = -1;
	l->home = home_node;
	l->busy_until = 0;
	l->sharers = xcalloc((size_t)hw->pu_words, sizeof(uint64_t));
	return hw->nlines++;
}

/* Moving a line between two PUs. */
static inline double pu_transfer(const struct hw *hw, int from, int to)
{
	const struct topo *t = hw->t;
	if (from == to)
		return 0;
	if (hw->xfer_cls)
		return xfer_of(hw, from, to);
	return topo_c2c_ns(t, t->pus[from].core, t->pus[to].core);
}

double hw_pu_transfer_ns(const struct hw *hw, int from, int to)
{
	return pu_transfer(hw, from, to);
}

/* Invalidations go out in parallel with the fetch; the farthest sharer's
 * acknowledgement bounds the wait. */
static inline double store_wait(const struct hw *hw, int cpu, const uint64_t *sharers,
				double fetch)
{
	int pw = hw->pu_words;
	if (!hw->xfer_cls) {
		for (int w = 0; w < pw; w++)
			for (uint64_t bits = sharers[w]; bits; bits &= bits - 1) {
				int s = w * 64 + __builtin_ctzll(bits);
				double inv = pu_transfer(hw, cpu, s);
				if (inv > fetch)
					fetch = inv;
			}
		return fetch;
	}
	const uint64_t *m = &hw->inv_mask[(size_t)cpu * (size_t)hw->ninv * (size_t)pw];
	for (int k = 0; k < hw->ninv; k++, m += pw)
		for (int w = 0; w < pw; w++)
			if (m[w] & sharers[w]) {
				double inv = hw->inv_ns[k];
				if (inv > fetch)
					fetch = inv;
				return fetch;
			}
	/* cpu's own copy costs nothing, which can win only over a negative
	 * fetch: kept so that any fetch gets the per-sharer answer */
	if ((sharers[cpu / 64] >> (cpu % 64) & 1) && 0 > fetch)
		fetch = 0;
	return fetch;
}

double hw_store_wait_ns(const struct hw *hw, int cpu, const uint64_t *sharers, double fetch)
{
	return store_wait(hw, cpu, sharers, fetch);
}

bool hw_has_xfer_table(const struct hw *hw)
{
	return hw->xfer_cls != NULL;
}

/* A locked instruction on a line already held exclusively: it drains the
 * store buffer, roughly four L1 hits. */
#define RMW_LOCAL_FACTOR 4.0

/* The line must move to cpu (a load) or be taken exclusively (a store or
 * an RMW): a transfer, a memory fetch and invalidations.  Out of line, so
 * that the hits below need none of its registers. */
static __attribute__((noinline)) double line_miss(struct hw *hw, struct line *l, int cpu,
						  double start, double stall, enum hw_access kind)
{
	const struct topo *t = hw->t;
	uint64_t bit = 1ull << ((unsigned)cpu % 64);
	uint64_t *word = &l->sharers[(unsigned)cpu / 64];

	if (kind == HW_LOAD) {
		double fetch = l->owner >= 0 ? pu_transfer(hw, l->owner, cpu)
			: topo_dram_ns(t, t->cores[t->pus[cpu].core].node, l->home);
		*word |= bit;
		hw->ctr.line_transfers++;
		hw->ctr.line_stall_ns += stall;
		return stall + fetch;
	}
	double op = kind == HW_RMW ? t->lat.cache_ns[1] * RMW_LOCAL_FACTOR : t->lat.cache_ns[1];
	double fetch = 0;
	if (l->owner < 0 && !(*word & bit))
		fetch = topo_dram_ns(t, t->cores[t->pus[cpu].core].node, l->home);
	else if (l->owner >= 0 && l->owner != cpu)
		fetch = pu_transfer(hw, l->owner, cpu);
	fetch = store_wait(hw, cpu, l->sharers, fetch);
	memset(l->sharers, 0, sizeof(uint64_t) * (size_t)hw->pu_words);
	*word = bit;
	l->owner = cpu;
	double cost = fetch + op;
	l->busy_until = start + cost;
	hw->ctr.line_transfers++;
	hw->ctr.line_stall_ns += stall;
	return stall + cost;
}

double hw_line_access(struct hw *hw, int cpu, double now, hw_line_t id, enum hw_access kind)
{
	struct line *l = &hw->lines[id];
	uint64_t bit = 1ull << ((unsigned)cpu % 64);
	unsigned wi = (unsigned)cpu / 64;
	double l1 = hw->t->lat.cache_ns[1];
	hw->ctr.line_accesses++;

	/* A load of a line cpu holds a copy of: an L1 hit, which does not wait
	 * for another PU's exclusive access in flight (busy_until). */
	if (kind == HW_LOAD && (l->sharers[wi] & bit)) {
		hw->ctr.line_hits++;
		return l1;
	}
	double start = l->busy_until > now ? l->busy_until : now;
	double stall = start - now;
	if (kind == HW_LOAD)
		return line_miss(hw, l, cpu, start, stall, kind);

	/* Store or RMW on a line cpu already holds alone. */
	bool exclusive = l->owner == cpu && l->sharers[wi] == bit;
	for (int w = 0; w < hw->pu_words && exclusive; w++)
		exclusive = (unsigned)w == wi || l->sharers[w] == 0;
	if (!exclusive)
		return line_miss(hw, l, cpu, start, stall, kind);
	double op = kind == HW_RMW ? l1 * RMW_LOCAL_FACTOR : l1;
	hw->ctr.line_hits++;
	l->busy_until = start + op;
	hw->ctr.line_stall_ns += stall;
	return stall + op;
}
