/* Calibration of the memory hierarchy: core-to-core line transfer by
 * relation, the working-set sweep (effective cache sizes and hit
 * latencies), DRAM latency for every pair of nodes and streaming
 * bandwidth per node. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>

#include "calib/calib.h"
#include "calib/pairs.h"

/* ---- Core-to-core transfer: a counter passed between two spinning
 * threads; each step moves the line from one core's cache to the
 * other's. */

#define C2C_ROUNDS 100

struct c2c {
	hwloc_topology_t hw;
	unsigned pu[2];
	struct cal_budget b;
	_Alignas(64) _Atomic uint64_t line;
	_Alignas(64) _Atomic int stop;
	struct cal_samples s;
};

struct c2c_arg {
	struct c2c *x;
	int me;
};

static void *c2c_main(void *p)
{
	struct c2c_arg *a = p;
	struct c2c *x = a->x;
	cal_bind_pu(x->hw, x->pu[a->me]);
	uint64_t v = (uint64_t)a->me;
	if (a->me == 1) {
		for (;;) {
			uint64_t got;
			while ((got = atomic_load_explicit(&x->line, memory_order_acquire)) != v &&
			       !atomic_load_explicit(&x->stop, memory_order_relaxed))
				__builtin_ia32_pause();
			if (got != v)
				break;
			atomic_store_explicit(&x->line, v + 1, memory_order_release);
			v += 2;
		}
	} else {
		for (int n = 0; cal_more(&x->b, n); n++) {
			int64_t t0 = cal_now();
			for (int r = 0; r < C2C_ROUNDS; r++) {
				atomic_store_explicit(&x->line, v + 1, memory_order_release);
				v += 2;
				while (atomic_load_explicit(&x->line, memory_order_acquire) != v)
					__builtin_ia32_pause();
			}
			cal_add(&x->s, (double)(cal_now() - t0) / (2 * C2C_ROUNDS));
		}
		atomic_store(&x->stop, 1);
	}
	cal_thread_done();
	return NULL;
}

static bool c2c_pair(struct cal_ctx *c, const struct cal_pair *pr, int share, struct cal_stat *out,
		     struct err *e)
{
	struct c2c *x = aligned_alloc(64, sizeof(*x));
	if (!x)
		die_oom(sizeof(*x));
	memset(x, 0, sizeof(*x));
	x->hw = c->hw;
	x->pu[0] = pr->pu_a;
	x->pu[1] = pr->pu_b;
	x->b = cal_budget(c, 50, 2000);
	int64_t left = x->b.deadline - cal_now();
	x->b.deadline = cal_now() + (left > 0 ? left / share : 0);
	pthread_t th[2];
	struct c2c_arg args[2] = { { x, 0 }, { x, 1 } };
	if (pthread_create(&th[1], NULL, c2c_main, &args[1]) != 0) {
		free(x);
		err_set(e, "calibrate: cannot start a thread: %s", strerror(errno));
		return false;
	}
	if (pthread_create(&th[0], NULL, c2c_main, &args[0]) != 0) {
		atomic_store(&x->stop, 1);
		pthread_join(th[1], NULL);
		free(x);
		err_set(e, "calibrate: cannot start a thread: %s", strerror(errno));
		return false;
	}
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	cal_summarize(&x->s, out);
	cal_method(out, "a counter handed back and forth by two threads spinning on PUs %u and %u "
		   "(%s): one hand-off, in batches of %d round trips", pr->pu_a, pr->pu_b, pr->what,
		   C2C_ROUNDS);
	cal_samples_free(&x->s);
	free(x);
	return true;
}

bool cal_c2c_probes(struct cal_ctx *c, struct err *e)
{
	struct cal_pair pairs[CAL_MAX_PAIRS];
	int n = cal_pairs(c->t, pairs, false);
	cJSON *hops = NULL;
	bool smt = false, package = false, group = false;
	for (int i = 0; i < n; i++) {
		struct cal_stat st;
		if (!c2c_pair(c, &pairs[i], n - i, &st, e))
			return false;
		char mname[96];
		snprintf(mname, sizeof(mname), "c2c_%.23s_ns", pairs[i].name);
		cal_measurement(c, mname, &st);
		char path[64];
		switch (pairs[i].rel) {
		case CAL_SAME_PU:
			break;
		case CAL_SMT:
			smt = true;
			cal_figure(c, "c2c_ns.core", &st);
			break;
		case CAL_GROUP:
			group = true;
			cal_figure(c, "c2c_ns.group", &st);
			break;
		case CAL_PACKAGE:
			package = true;
			cal_figure(c, "c2c_ns.package", &st);
			break;
		case CAL_HOPS:
			if (!hops) {
				cJSON *o = cJSON_GetObjectItemCaseSensitive(c->latency, "c2c_ns");
				if (!o)
					o = cJSON_AddObjectToObject(c->latency, "c2c_ns");
				hops = cJSON_AddArrayToObject(o, "hops");
			}
			cJSON_AddItemToArray(hops, cJSON_CreateNumber(cal_rounded(st.median)));
			snprintf(path, sizeof(path), "c2c_ns.hops[%d]", pairs[i].hops - 1);
			cal_figure(c, path, &st);
			break;
		}
		cal_progress_step(&c->prog, (double)(i + 1) / n);
	}
	(void)smt;
	(void)group;
	(void)package;
	return true;
}

/* ---- Pointer chase ---- */

/* A random cycle through the first lines of buf, one pointer per 64-byte
 * line (Sattolo's shuffle: one cycle through all of them). */
static void build_chase(char *buf, size_t lines, uint32_t *idx, uint64_t *rng)
{
	for (size_t i = 0; i < lines; i++)
		idx[i] = (uint32_t)i;
	for (size_t i = lines - 1; i > 0; i--) {
		*rng ^= *rng << 13;
		*rng ^= *rng >> 7;
		*rng ^= *rng << 17;
		size_t j = *rng % i;
		uint32_t t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
	}
	for (size_t i = 0; i < lines; i++) {
		size_t from = idx[i], to = idx[(i + 1) % lines];
		*(void **)(buf + from * 64) = buf + to * 64;
	}
}

static void *volatile chase_sink;

/* Follows n pointers from *p; returns ns per load. */
static double chase(void **p, long n)
{
	void *q = *p;
	int64_t t0 = cal_now();
	for (long i = 0; i < n; i += 16) {
#define STEP q = *(void **)q;
		STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP
#undef STEP
	}
	int64_t t1 = cal_now();
	*p = q;
	chase_sink = q;
	return (double)(t1 - t0) / (double)n;
}

static void *map_buffer(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* huge pages keep the TLB out of the latencies */
	madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

/* ---- The working-set sweep ---- */

#define SWEEP_MAX 128

struct sweep {
	int n;
	uint64_t ws[SWEEP_MAX];
	double lat[SWEEP_MAX];
	struct cal_stat st[SWEEP_MAX];
};

struct sweep_arg {
	struct cal_ctx *c;
	struct sweep *s;
	uint64_t max_ws;
	uint64_t huge;    /* bytes in huge pages once the buffer was all touched */
	bool ok;
};

static void *sweep_main(void *p)
{
	struct sweep_arg *a = p;
	struct cal_ctx *c = a->c;
	struct sweep *s = a->s;
	cal_bind_pu(c->hw, c->t->pus[0].os_index);
	char *buf = map_buffer(a->max_ws);
	uint32_t *idx = xmalloc((a->max_ws / 64) * sizeof(*idx));
	if (!buf) {
		free(idx);
		cal_thread_done();
		return NULL;
	}
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	s->n = 0;
	int samples = c->o->quick ? 3 : 7;
	long loads = c->o->quick ? 20000 : 100000;
	/* a warm-up pass fills the caches; past them it only costs time */
	size_t warm_max = c->o->quick ? 262144 : 2000000;
	for (int oct = 12; s->n < SWEEP_MAX; oct++) {
		for (int q = 0; q < 4 && s->n < SWEEP_MAX; q++) {
			uint64_t ws = ((uint64_t)1 << oct) / 4 * (uint64_t)(4 + q);
			if (ws > a->max_ws)
				goto done;
			size_t lines = ws / 64;
			build_chase(buf, lines, idx, &rng);
			a->huge = cal_anon_huge_bytes();
			void *cur = buf;
			long warm = (long)(lines < warm_max ? lines : warm_max);
			chase(&cur, warm < 16 ? 16 : warm);
			struct cal_samples sm = { 0 };
			/* past the phase's time (a busy host), the fewest samples
			 * that still give a median */
			bool late = cal_now() > c->phase_deadline;
			for (int k = 0; k < (late ? 3 : samples); k++)
				cal_add(&sm, chase(&cur, late ? loads / 2 : loads));
			s->ws[s->n] = ws;
			cal_summarize(&sm, &s->st[s->n]);
			/* the curve the steps are found on: each point's least
			 * disturbed samples (a preemption or a neighbour's eviction
			 * only adds time) */
			s->lat[s->n] = s->st[s->n].p10;
			cal_samples_free(&sm);
			s->n++;
			cal_progress_step(&c->prog, (log2((double)ws) - 12) / (log2((double)a->max_ws) - 12));
		}
	}
done:
	munmap(buf, a->max_ws);
	free(idx);
	a->ok = s->n > 0;
	cal_thread_done();
	return NULL;
}

static double median3(double a, double b, double c)
{
	if (a > b) {
		double t = a;
		a = b;
		b = t;
	}
	if (b > c)
		b = c;
	return a > b ? a : b;
}

struct plateau {
	int first, last;
	double ns;
};

static double median_of(const double *v, int first, int last)
{
	double tmp[SWEEP_MAX];
	int m = 0;
	for (int i = first; i <= last; i++)
		tmp[m++] = v[i];
	for (int i = 1; i < m; i++)
		for (int j = i; j > 0 && tmp[j] < tmp[j - 1]; j--) {
			double t = tmp[j];
			tmp[j] = tmp[j - 1];
			tmp[j - 1] = t;
		}
	return tmp[m / 2];
}

#define RISE_W 2
#define RISE_MIN 1.3
#define PLATEAU_MIN 1.15

/* The plateaus between steps (sorted working-set indexes): one per cache
 * level, and memory after the last step. */
static int plateaus_at(const double *sm, int n, const int *steps, int ns, struct plateau *pl)
{
	int np = 0, first = 0;
	for (int i = 0; i < ns; i++) {
		/* a rise's first point may already be on its way up */
		int last = steps[i] >= first ? steps[i] : first;
		pl[np++] = (struct plateau){ first, last, median_of(sm, first, last) };
		first = steps[i] + RISE_W;
	}
	if (first < n)
		pl[np++] = (struct plateau){ first, n - 1, median_of(sm, first, n - 1) };
	return np;
}

/* The steps of the latency curve.  After a 3-point median (one noisy
 * point is not a step), a step is where latency rises most over half an
 * octave (RISE_W points); the largest rises, at least RISE_MIN and an
 * octave apart, are taken, at most maxsteps of them, in order of size
 * then put in order of working set.  A step that leaves the plateaus on
 * either side of it less than PLATEAU_MIN apart is dropped once the
 * next step is found: on a loaded host a burst of preemptions inside one
 * level can rise as much as a real step, and taken first it would cut
 * that level in two and leave the next level's step untaken (L1 and L2
 * both 1.08 ns, seen once with 32 test suites running).  Returns the
 * number of plateaus. */
static int find_plateaus(const double *lat, int n, double *sm, struct plateau *pl, int maxsteps)
{
	for (int k = 0; k < n; k++)
		sm[k] = (k == 0 || k == n - 1) ? lat[k] : median3(lat[k - 1], lat[k], lat[k + 1]);
	int steps[SWEEP_MAX], ns = 0;
	bool taken[SWEEP_MAX] = { false };
	while (ns < maxsteps) {
		int best = -1;
		double rise = RISE_MIN;
		for (int k = 0; k + RISE_W < n; k++) {
			bool near = false;
			for (int i = 0; i < ns; i++)
				if (abs(steps[i] - k) < 4)
					near = true;
			if (near || taken[k])
				continue;
			double r = sm[k + RISE_W] / sm[k];
			if (r > rise) {
				rise = r;
				best = k;
			}
		}
		if (best < 0)
			break;
		taken[best] = true;
		int at = ns++;
		for (; at > 0 && steps[at - 1] > best; at--)
			steps[at] = steps[at - 1];
		steps[at] = best;
		/* a step between two plateaus of one latency is no step */
		for (;;) {
			int np = plateaus_at(sm, n, steps, ns, pl), flat = 0;
			for (int i = 1; i < np && !flat; i++)
				if (pl[i].ns < pl[i - 1].ns * PLATEAU_MIN)
					flat = i;
			if (!flat)
				break;
			for (int i = flat - 1; i + 1 < ns; i++)
				steps[i] = steps[i + 1];
			ns--;
		}
	}
	return plateaus_at(sm, n, steps, ns, pl);
}

int cal_levels(const double *lat, int n, int maxsteps, double *level_ns)
{
	double sm[SWEEP_MAX];
	struct plateau pl[SWEEP_MAX];
	if (n > SWEEP_MAX)
		n = SWEEP_MAX;
	int np = find_plateaus(lat, n, sm, pl, maxsteps);
	for (int i = 0; i < np; i++)
		level_ns[i] = pl[i].ns;
	return np;
}

static void size_string(char *b, size_t n, uint64_t bytes)
{
	if (bytes % (1 << 20) == 0)
		snprintf(b, n, "%lluMiB", (unsigned long long)(bytes >> 20));
	else
		snprintf(b, n, "%lluKiB", (unsigned long long)(bytes >> 10));
}

/* A core's stream into one cache level: memset over a working set that
 * the level holds and the one inside it does not, repeated for a megabyte
 * or more a sample, by a thread bound to the first PU; GB/s.  memset is
 * how a native G writes its stacks frame (plat_g_write_frame), and glibc
 * (2.36) streams past the cache only above a threshold of the shared
 * cache's size, far above half of it. */
struct stream_arg {
	struct cal_ctx *c;
	uint64_t ws;
	struct cal_stat st;
	bool ok;
};

static void *stream_main(void *p)
{
	struct stream_arg *a = p;
	struct cal_ctx *c = a->c;
	cal_bind_pu(c->hw, c->t->pus[0].os_index);
	char *buf = map_buffer(a->ws);
	if (!buf) {
		cal_thread_done();
		return NULL;
	}
	long reps = (long)((1u << 20) / a->ws) + 1;   /* ~1 MB a sample at least */
	reps = reps < 8 ? 8 : reps;
	memset(buf, 1, a->ws);                         /* fault in, and warm */
	struct cal_samples sm = { 0 };
	struct cal_budget b = cal_budget(c, c->o->quick ? 5 : 9, 101);
	for (int k = 0; cal_more(&b, k); k++) {
		int64_t t0 = cal_now();
		for (long r = 0; r < reps; r++) {
			memset(buf, (int)r, a->ws);
			__asm__ volatile("" : : "r"(buf) : "memory");
		}
		int64_t dt = cal_now() - t0;
		if (dt > 0)
			cal_add(&sm, (double)a->ws * (double)reps / (double)dt);
	}
	cal_summarize(&sm, &a->st);
	a->st.samples = sm.n;
	cal_samples_free(&sm);
	munmap(buf, a->ws);
	a->ok = a->st.samples > 0;
	cal_thread_done();
	return NULL;
}

/* The working-set sweep and what is read from it, level by level. */
struct cache_sweep {
	struct cal_ctx *c;
	struct sweep *s;
	int levels, np;               /* hwloc's cache levels; the plateaus found */
	uint64_t reported[TOPO_MAX_LEVEL + 1];  /* hwloc's size of each level */
	uint64_t max_ws, huge, prev_eff;
	double sm[SWEEP_MAX];
	struct plateau pl[SWEEP_MAX];
	struct topo_latency d;        /* the model's defaults */
	char summary[256];
	size_t used;
};

/* The largest working set: past the largest cache, within a quarter of
 * the memory, at most a GiB. */
static uint64_t sweep_limit(struct cache_sweep *cs)
{
	const struct topo *t = cs->c->t;
	for (int i = 0; i < t->ncaches; i++) {
		int lv = t->caches[i].level;
		if (lv > cs->levels)
			cs->levels = lv;
		if (t->caches[i].size > cs->reported[lv])
			cs->reported[lv] = t->caches[i].size;
	}
	uint64_t largest = cs->levels ? cs->reported[cs->levels] : (32u << 20);
	uint64_t max_ws = cs->c->o->quick ? 64ull << 20 : 4 * largest;
	if (!cs->c->o->quick && max_ws < (128ull << 20))
		max_ws = 128ull << 20;
	if (max_ws > (1ull << 30))
		max_ws = 1ull << 30;
	uint64_t mem = 0;
	for (int i = 0; i < t->nnodes; i++)
		mem += t->nodes[i].memory;
	while (mem && max_ws > mem / 4 && max_ws > (16ull << 20))
		max_ws /= 2;
	return max_ws;
}

static bool run_sweep(struct cache_sweep *cs, struct err *e)
{
	struct sweep_arg a = { .c = cs->c, .s = cs->s, .max_ws = cs->max_ws };
	pthread_t th;
	if (pthread_create(&th, NULL, sweep_main, &a) != 0) {
		err_set(e, "calibrate: cannot start a thread: %s", strerror(errno));
		return false;
	}
	pthread_join(th, NULL);
	if (!a.ok) {
		err_set(e, "calibrate: cannot map %llu MiB for the working-set sweep",
			(unsigned long long)(cs->max_ws >> 20));
		return false;
	}
	cs->huge = a.huge;
	return true;
}

/* The sweep's points and its plateaus, as measurements. */
static void record_sweep(struct cache_sweep *cs)
{
	struct cal_ctx *c = cs->c;
	const struct sweep *s = cs->s;
	char *sm_method = xasprintf("pointer chase through a random cycle of 64-byte lines over a "
				    "working set of bytes, one thread bound to the first PU, huge pages "
				    "asked for (MADV_HUGEPAGE; %llu of %llu MiB granted): ns per load",
				    (unsigned long long)(cs->huge >> 20),
				    (unsigned long long)(cs->max_ws >> 20));
	cJSON *pts = cal_points(c, "working_set_sweep_ns", sm_method);
	free(sm_method);
	for (int i = 0; i < s->n; i++)
		cal_point(pts, &s->st[i], "bytes", (double)s->ws[i]);
	/* as many steps as hwloc has cache levels (it may lie about their
	 * sizes, not about their number): a TLB's or a victim cache's smaller
	 * step is left out */
	cs->np = find_plateaus(s->lat, s->n, cs->sm, cs->pl, cs->levels > 0 ? cs->levels : 3);
	cJSON *found = cal_points(c, "working_set_steps_ns",
				  "the sweep's plateaus between its largest rises, on each point's p10 (3-point median): "
				  "level 1.. a cache level, the last one memory; ns per load");
	for (int i = 0; i < cs->np; i++) {
		const struct plateau *pl = &cs->pl[i];
		struct cal_stat st = { pl->ns, pl->ns, pl->ns, pl->last - pl->first + 1, "" };
		cJSON *o = cal_point(found, &st, "level", i + 1);
		cJSON_AddNumberToObject(o, "from_bytes", (double)s->ws[pl->first]);
		cJSON_AddNumberToObject(o, "to_bytes", (double)s->ws[pl->last]);
	}
}

/* A level the sweep found no step for: the model's figures, and why. */
static void level_not_found(struct cache_sweep *cs, int lv)
{
	char note[256], path[32];
	snprintf(note, sizeof(note),
		 "the working-set sweep up to %llu MiB found no step for L%d; the model's "
		 "default hit latency and hwloc's size are kept",
		 (unsigned long long)(cs->max_ws >> 20), lv);
	snprintf(path, sizeof(path), "cache_ns.L%d", lv);
	cal_assumed(cs->c, path, cs->d.cache_ns[lv], note);
	snprintf(path, sizeof(path), "cache_bw_gbs.L%d", lv);
	cal_assumed(cs->c, path, cs->d.cache_bw_gbs[lv], note);
}

/* A level's effective size: the last working set below the geometric mean
 * of its latency and the next's; its bracket is the sweep's resolution
 * (the next working set already ran past the knee). */
static uint64_t level_size(struct cache_sweep *cs, int lv)
{
	const struct sweep *s = cs->s;
	const struct plateau *p = &cs->pl[lv - 1];
	double next = lv < cs->np ? cs->pl[lv].ns : p->ns * 2;
	double knee = sqrt(p->ns * next);
	int k = p->last;
	while (k + 1 < s->n && cs->sm[k + 1] <= knee)
		k++;
	uint64_t eff = s->ws[k];
	char spath[32];
	snprintf(spath, sizeof(spath), "cache_sizes.L%d", lv);
	struct cal_stat ss = { (double)eff, (double)eff,
			       (double)(k + 1 < s->n ? s->ws[k + 1] : eff), s->st[k].samples, "" };
	cal_method(&ss, "working-set sweep: the largest working set whose latency stays "
		   "below %.1f ns, the geometric mean of L%d's plateau and the next; p90 is "
		   "the next working set swept (hwloc reports %llu KiB)", knee, lv,
		   (unsigned long long)(cs->reported[lv] >> 10));
	cal_provenance(cs->c, spath, &ss);
	return eff;
}

/* A level's hit latency: its plateau's points. */
static double level_hit(struct cache_sweep *cs, int lv, const char *sz)
{
	const struct sweep *s = cs->s;
	const struct plateau *p = &cs->pl[lv - 1];
	struct cal_samples hs = { 0 };
	for (int i = p->first; i <= p->last; i++)
		cal_add(&hs, s->st[i].median);
	struct cal_stat st;
	cal_summarize(&hs, &st);
	st.samples = 0;
	for (int i = p->first; i <= p->last; i++)
		st.samples += s->st[i].samples;
	cal_samples_free(&hs);
	char lo[32], hi[32], path[32];
	size_string(lo, sizeof(lo), s->ws[p->first]);
	size_string(hi, sizeof(hi), s->ws[p->last]);
	cal_method(&st, "pointer chase over working sets of %s to %s (the sweep's plateau for "
		   "L%d, found on each point's p10): the points' medians; hwloc reports %llu KiB, "
		   "effective %s", lo, hi, lv, (unsigned long long)(cs->reported[lv] >> 10), sz);
	snprintf(path, sizeof(path), "cache_ns.L%d", lv);
	cal_figure(cs->c, path, &st);
	return st.median;
}

/* A level's stream: half the level, which is past the level inside it
 * when each level is more than twice the one inside; else three quarters.
 * Returns GB/s, the model's default when it could not be measured. */
static double level_stream(struct cache_sweep *cs, int lv, uint64_t eff, const char *sz)
{
	struct stream_arg sa = { .c = cs->c, .ws = eff / 2 / 64 * 64 };
	if (lv > 1 && sa.ws <= cs->prev_eff)
		sa.ws = (eff - eff / 4) / 64 * 64;
	char path[32];
	snprintf(path, sizeof(path), "cache_bw_gbs.L%d", lv);
	pthread_t th;
	if (pthread_create(&th, NULL, stream_main, &sa) == 0)
		pthread_join(th, NULL);
	if (!sa.ok) {
		cal_assumed(cs->c, path, cs->d.cache_bw_gbs[lv],
			    "the stream over this level could not be measured (no memory or no "
			    "thread); the model's default");
		return cs->d.cache_bw_gbs[lv];
	}
	char ws[32];
	size_string(ws, sizeof(ws), sa.ws);
	cal_method(&sa.st, "memset over %s (%s of L%d's effective %s), repeated, by "
		   "one thread bound to the first PU: GB/s a sample", ws,
		   sa.ws == eff / 2 / 64 * 64 ? "half" : "three quarters", lv, sz);
	cal_figure(cs->c, path, &sa.st);
	return sa.st.median;
}

static void cache_level(struct cache_sweep *cs, int lv, cJSON *sizes)
{
	if (lv > cs->np - 1) {
		level_not_found(cs, lv);
		return;
	}
	struct cal_ctx *c = cs->c;
	uint64_t eff = level_size(cs, lv);
	char key[16], sz[32];
	snprintf(key, sizeof(key), "L%d", lv);
	size_string(sz, sizeof(sz), eff);
	cJSON_AddStringToObject(sizes, key, sz);
	if (eff > c->largest_cache)
		c->largest_cache = eff;
	double hit = level_hit(cs, lv, sz);
	double bw = level_stream(cs, lv, eff, sz);
	cs->prev_eff = eff;
	size_t room = cs->used < sizeof(cs->summary) ? sizeof(cs->summary) - cs->used : 0;
	cs->used += (size_t)snprintf(cs->summary + cs->used, room, "%sL%d %s %.1f ns %.0f GB/s",
				     lv > 1 ? ", " : "", lv, sz, hit, bw);
}

bool cal_cache_probes(struct cal_ctx *c, struct err *e)
{
	struct cache_sweep *cs = xcalloc(1, sizeof(*cs));
	cs->c = c;
	topo__latency_defaults(&cs->d);
	cs->max_ws = sweep_limit(cs);
	cs->s = xcalloc(1, sizeof(*cs->s));
	bool ok = run_sweep(cs, e);
	if (ok) {
		record_sweep(cs);
		cJSON *sizes = cJSON_CreateObject();
		c->largest_cache = 0;
		for (int lv = 1; lv <= cs->levels; lv++)
			cache_level(cs, lv, sizes);
		c->cache_sizes = sizes;
		snprintf(c->summary, sizeof(c->summary), "%s",
			 cs->summary[0] ? cs->summary : "no cache steps found");
	}
	free(cs->s);
	free(cs);
	return ok;
}

/* ---- DRAM latency for every pair of nodes, bandwidth per node ---- */

static hwloc_obj_t node_obj(hwloc_topology_t hw, unsigned os_index)
{
	hwloc_obj_t o = NULL;
	while ((o = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_NUMANODE, o)))
		if (o->os_index == os_index)
			return o;
	return NULL;
}

/* Memory of bytes bound to node home (NULL if it cannot be had). */
static void *node_alloc(hwloc_topology_t hw, const struct topo *t, int home, size_t bytes,
			bool *bound)
{
	hwloc_obj_t n = node_obj(hw, t->nodes[home].os_index);
	void *p = NULL;
	*bound = false;
	if (n) {
		p = hwloc_alloc_membind(hw, bytes, n->nodeset, HWLOC_MEMBIND_BIND,
					HWLOC_MEMBIND_BYNODESET);
		*bound = p != NULL;
	}
	if (!p && t->nnodes == 1)
		p = hwloc_alloc(hw, bytes);
	if (p)
		madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

static unsigned first_pu_of_node(const struct topo *t, int node)
{
	for (int c = 0; c < t->ncores; c++)
		if (t->cores[c].node == node)
			return t->pus[t->cores[c].first_pu].os_index;
	return t->pus[0].os_index;
}

struct dram_arg {
	struct cal_ctx *c;
	int from;
	char *buf;           /* the chase, built on the home node */
	struct cal_budget b;
	struct cal_stat st;
};

static void *dram_main(void *p)
{
	struct dram_arg *a = p;
	struct cal_ctx *c = a->c;
	cal_bind_pu(c->hw, first_pu_of_node(c->t, a->from));
	void *cur = a->buf;
	chase(&cur, 200000);
	struct cal_samples s = { 0 };
	for (int n = 0; cal_more(&a->b, n); n++)
		cal_add(&s, chase(&cur, 20000));
	cal_summarize(&s, &a->st);
	cal_samples_free(&s);
	cal_thread_done();
	return NULL;
}

struct bw_shared {
	struct cal_ctx *c;
	pthread_barrier_t bar;
	const char *buf;
	size_t slice;
	int nthreads;
	struct cal_budget b;
	_Atomic int stop;
	_Atomic int go;       /* 0: wait, 1: run, -1: the start failed */
	struct cal_samples s;
	int64_t t0;
};

struct bw_arg {
	struct bw_shared *sh;
	unsigned pu;
	int me;
	volatile uint64_t sink;   /* the sums, so the loads are not optimised out */
};

static void *bw_main(void *p)
{
	struct bw_arg *a = p;
	struct bw_shared *sh = a->sh;
	cal_bind_pu(sh->c->hw, a->pu);
	const uint64_t *w = (const uint64_t *)(sh->buf + (size_t)a->me * sh->slice);
	size_t nw = sh->slice / 8;
	int go;
	while ((go = atomic_load(&sh->go)) == 0)
		sched_yield();
	for (int n = 0; go > 0; n++) {
		pthread_barrier_wait(&sh->bar);
		if (atomic_load(&sh->stop))
			break;
		if (a->me == 0)
			sh->t0 = cal_now();
		uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
		for (size_t i = 0; i + 8 <= nw; i += 8) {
			s0 += w[i] + w[i + 4];
			s1 += w[i + 1] + w[i + 5];
			s2 += w[i + 2] + w[i + 6];
			s3 += w[i + 3] + w[i + 7];
		}
		a->sink = s0 + s1 + s2 + s3;
		pthread_barrier_wait(&sh->bar);
		if (a->me == 0) {
			double ns = (double)(cal_now() - sh->t0);
			/* bytes per ns = GB/s; the first pass faults pages in */
			if (n > 0)
				cal_add(&sh->s, (double)(sh->slice * (size_t)sh->nthreads) / ns);
			if (!cal_more(&sh->b, sh->s.n))
				atomic_store(&sh->stop, 1);
		}
	}
	cal_thread_done();
	return NULL;
}

/* Streaming read of bytes on node home by nthreads threads on node home's
 * PUs (1: its first PU). */
static bool bandwidth(struct cal_ctx *c, int home, int nthreads, size_t bytes, int64_t budget_ns,
		      struct cal_stat *out, struct err *e)
{
	unsigned *pus = xcalloc((size_t)c->t->npus, sizeof(*pus));
	int npu = 0;
	for (int k = 0; k < c->t->ncores; k++)
		if (c->t->cores[k].node == home)
			for (int i = 0; i < c->t->cores[k].npus; i++)
				pus[npu++] = c->t->pus[c->t->cores[k].first_pu + i].os_index;
	if (npu == 0)
		pus[npu++] = c->t->pus[0].os_index;
	if (nthreads <= 0 || nthreads > npu)
		nthreads = npu;
	bool bound;
	char *buf = node_alloc(c->hw, c->t, home, bytes, &bound);
	if (!buf) {
		free(pus);
		err_set(e, "calibrate: cannot allocate %zu MiB on node %d", bytes >> 20, home);
		return false;
	}
	memset(buf, 1, bytes);
	struct bw_shared sh = { .c = c, .buf = buf, .nthreads = nthreads };
	sh.slice = (bytes / (size_t)nthreads) & ~(size_t)63;
	sh.b = cal_budget(c, 5, 40);
	sh.b.deadline = cal_now() + budget_ns;
	pthread_t *th = xcalloc((size_t)nthreads, sizeof(*th));
	struct bw_arg *args = xcalloc((size_t)nthreads, sizeof(*args));
	bool ok = true;
	int started = 0;
	for (int i = 0; i < nthreads; i++, started++) {
		args[i] = (struct bw_arg){ &sh, pus[i], i, 0 };
		if (pthread_create(&th[i], NULL, bw_main, &args[i]) != 0) {
			err_set(e, "calibrate: cannot start a thread: %s", strerror(errno));
			ok = false;
			break;
		}
	}
	/* the barrier counts every thread: it is made once all have started */
	if (ok)
		pthread_barrier_init(&sh.bar, NULL, (unsigned)nthreads);
	atomic_store(&sh.go, ok ? 1 : -1);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (ok)
		pthread_barrier_destroy(&sh.bar);
	cal_summarize(&sh.s, out);
	cal_method(out, "streaming read (64-bit loads) of %zu MiB bound to node %d by %d thread%s on "
		   "its PUs; GB/s per pass", bytes >> 20, home, nthreads, nthreads > 1 ? "s" : "");
	cal_samples_free(&sh.s);
	hwloc_free(c->hw, buf, bytes);
	free(th);
	free(args);
	free(pus);
	return ok;
}

/* The chase's buffer: eight times the largest cache, within a quarter of
 * each node's memory, 16 MiB to 1 GiB. */
static size_t dram_bytes(const struct cal_ctx *c)
{
	const struct topo *t = c->t;
	size_t bytes = c->o->quick ? 64ull << 20 : 256ull << 20;
	if (c->largest_cache * 8 > bytes)
		bytes = c->largest_cache * 8;
	if (bytes > (1ull << 30))
		bytes = 1ull << 30;
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].memory && bytes > t->nodes[i].memory / 4)
			bytes = (size_t)(t->nodes[i].memory / 4) & ~(size_t)((1 << 20) - 1);
	if (bytes < (16u << 20))
		bytes = 16u << 20;
	return bytes;
}

/* The DRAM matrix being measured: a row per accessing node. */
struct dram_probe {
	struct cal_ctx *c;
	size_t bytes;
	int64_t left;             /* the phase's time when the matrix began */
	cJSON *matrix;
	struct cal_samples diag;  /* the diagonal, for dram_ns.local */
	int diag_samples;
};

/* The chase over node home's memory, followed from each node. */
static bool chase_from_each_node(struct dram_probe *dp, int home, char *buf, bool bound,
				 struct err *e)
{
	struct cal_ctx *c = dp->c;
	int nn = c->t->nnodes;
	bool huge = cal_anon_huge_bytes() >= dp->bytes / 2;
	for (int i = 0; i < nn; i++) {
		struct dram_arg a = { .c = c, .from = i, .buf = buf };
		a.b = cal_budget(c, 30, 1000);
		a.b.deadline = cal_now() + dp->left / 2 / (nn * nn);
		pthread_t th;
		if (pthread_create(&th, NULL, dram_main, &a) != 0) {
			err_set(e, "calibrate: cannot start a thread: %s", strerror(errno));
			return false;
		}
		pthread_join(th, NULL);
		cal_method(&a.st, "pointer chase through a random cycle of 64-byte lines over %zu "
			   "MiB %s node %d (hwloc_alloc_membind), thread bound to node %d's "
			   "first PU; %s", dp->bytes >> 20, bound ? "bound to" : "(unbound) on", home,
			   i, huge ? "in huge pages" : "huge pages refused: TLB misses included");
		cJSON_AddItemToArray(cJSON_GetArrayItem(dp->matrix, i),
				     cJSON_CreateNumber(cal_rounded(a.st.median)));
		char path[64];
		snprintf(path, sizeof(path), "dram_ns.matrix[%d][%d]", i, home);
		cal_figure(c, path, &a.st);
		if (i == home) {
			cal_add(&dp->diag, a.st.median);
			dp->diag_samples += a.st.samples;
		}
		cal_progress_step(&c->prog, 0.5 * (home * nn + i + 1) / (nn * nn));
	}
	return true;
}

/* One chase per home node, built once (memory bound to the node holds its
 * pages there whoever touches them), then followed from each node. */
static bool dram_matrix(struct dram_probe *dp, struct err *e)
{
	struct cal_ctx *c = dp->c;
	int nn = c->t->nnodes;
	size_t lines = dp->bytes / 64;
	uint32_t *idx = xmalloc(lines * sizeof(*idx));
	bool ok = true;
	for (int j = 0; j < nn && ok; j++) {
		bool bound;
		char *buf = node_alloc(c->hw, c->t, j, dp->bytes, &bound);
		if (!buf) {
			err_set(e, "calibrate: cannot allocate %zu MiB on node %d", dp->bytes >> 20, j);
			ok = false;
			break;
		}
		uint64_t rng = 0x2545f4914f6cdd1dULL ^ (uint64_t)j;
		build_chase(buf, lines, idx, &rng);
		ok = chase_from_each_node(dp, j, buf, bound, e);
		hwloc_free(c->hw, buf, dp->bytes);
	}
	free(idx);
	return ok;
}

/* dram_ns.local: the median of the matrix's diagonal. */
static void dram_local(struct dram_probe *dp)
{
	struct cal_ctx *c = dp->c;
	struct cal_stat local;
	cal_summarize(&dp->diag, &local);
	local.samples = dp->diag_samples;
	cal_method(&local, "median of the matrix's diagonal (each a pointer chase over %zu MiB of "
		   "the thread's own node)", dp->bytes >> 20);
	if (c->t->nnodes == 1) {
		/* one node: the diagonal's own spread */
		cJSON *pv = cJSON_GetObjectItemCaseSensitive(c->provenance, "dram_ns.matrix[0][0]");
		local.p10 = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(pv, "p10"));
		local.p90 = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(pv, "p90"));
	}
	cal_figure(c, "dram_ns.local", &local);
	c->dram_local_ns = local.median;
}

/* Bandwidth: every PU of a node, then one thread, for mlp. */
static bool dram_bandwidth(struct cal_ctx *c, size_t bytes, struct err *e)
{
	int nn = c->t->nnodes;
	int64_t bw_left = c->phase_deadline - cal_now();
	if (bw_left < 0)
		bw_left = 0;
	cJSON *bwa = cJSON_AddArrayToObject(c->latency, "bandwidth_gbs");
	cJSON *bwm = cal_points(c, "bandwidth_node_gbs",
				"streaming read (64-bit loads) of memory bound to the node by a thread on "
				"each of its PUs: GB/s per pass");
	for (int j = 0; j < nn; j++) {
		struct cal_stat st;
		if (!bandwidth(c, j, 0, bytes, bw_left / (nn + 1), &st, e))
			return false;
		char path[32];
		snprintf(path, sizeof(path), "bandwidth_gbs[%d]", j);
		if (st.samples < 1) {
			/* no pass timed within the phase: the default, said so */
			cJSON_AddItemToArray(bwa, cJSON_CreateNumber(c->t->lat.bandwidth_gbs));
			cal_assumed(c, path, c->t->lat.bandwidth_gbs,
				    "no streaming pass finished within the phase's time: the default");
			continue;
		}
		cJSON_AddItemToArray(bwa, cJSON_CreateNumber(cal_rounded(st.median)));
		cal_point(bwm, &st, "node", j);
		cal_figure(c, path, &st);
		cal_progress_step(&c->prog, 0.5 + 0.4 * (j + 1) / nn);
	}
	struct cal_stat one;
	if (!bandwidth(c, 0, 1, bytes, bw_left / (nn + 1), &one, e))
		return false;
	cal_measurement(c, "bandwidth_one_thread_gbs", &one);
	/* lines in flight = bytes per ns x ns per line / 64 bytes */
	struct cal_stat mlp = one;
	mlp.median = one.median * c->dram_local_ns / 64;
	mlp.p10 = one.p10 * c->dram_local_ns / 64;
	mlp.p90 = one.p90 * c->dram_local_ns / 64;
	cal_method(&mlp, "one thread's streaming bandwidth (%.2f GB/s) x dram_ns.local (%.1f ns) / 64 "
		   "bytes: the lines a sequential stream keeps in flight", one.median, c->dram_local_ns);
	cal_figure(c, "mlp", &mlp);
	return true;
}

bool cal_dram_probes(struct cal_ctx *c, struct err *e)
{
	struct dram_probe dp = { .c = c, .bytes = dram_bytes(c) };
	dp.left = c->phase_deadline - cal_now();
	if (dp.left < 0)
		dp.left = 0;
	cJSON *dram = cJSON_GetObjectItemCaseSensitive(c->latency, "dram_ns");
	if (!dram)
		dram = cJSON_AddObjectToObject(c->latency, "dram_ns");
	dp.matrix = cJSON_CreateArray();
	for (int i = 0; i < c->t->nnodes; i++)
		cJSON_AddItemToArray(dp.matrix, cJSON_CreateArray());
	if (!dram_matrix(&dp, e)) {
		cJSON_Delete(dp.matrix);
		cal_samples_free(&dp.diag);
		return false;
	}
	dram_local(&dp);
	cal_samples_free(&dp.diag);
	cJSON_AddItemToObject(dram, "matrix", dp.matrix);
	return dram_bandwidth(c, dp.bytes, e);
}
