/* Reading a results store one row at a time, each row checked against the
 * contract and folded into its group (report.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/report.h"
#include "exp/store.h"
#include "util/jsonv.h"

const char *const rep_status_names[RS_N] = { "ok", "deadlock", "panic", "limit", "crashed",
					     "error" };
const char *const rep_dist_paths[REP_NDIST] = { "sched_latency_ns", "request_latency_ns" };
/* Request latency where the workload answers requests, else the
 * goroutines' scheduling latency; makespan is the time the work took. */
const char *const rep_head_paths[REP_NHEAD] = { "request_latency_ns.p99", "request_latency_ns.p50",
						"sched_latency_ns.p99", "sched_latency_ns.p50",
						"makespan_ns" };
const char *const rep_cpu_names[REP_NCPU] = { "user",     "sched",    "spin",  "lock_wait",
					      "lock_wait", "syscall", "parked" };


/* Nodes of a memory matrix: as many as a topology may have. */
#define MAX_NODES 1024

void rep_acc_add(struct rep_acc *a, double x)
{
	a->n++;
	double d = x - a->mean;
	a->mean += d / a->n;
	a->m2 += d * (x - a->mean);
}

double rep_acc_ci95(const struct rep_acc *a)
{
	if (a->n < 2)
		return 0;
	return metric_ci95(a->n, sqrt(a->m2 / (a->n - 1)));
}

void rep_hist_expand(const struct rep_hist *h, struct hist *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < h->n; i++)
		out->bucket[h->idx[i]] = h->cnt[i];
	out->count = h->count;
	out->max = h->max;
	out->sum = h->sum;
}

static void hist_compress(const struct hist *full, struct rep_hist *h)
{
	uint32_t n = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		n += full->bucket[b] != 0;
	free(h->idx);
	free(h->cnt);
	h->idx = xcalloc(n ? n : 1, sizeof(*h->idx));
	h->cnt = xcalloc(n ? n : 1, sizeof(*h->cnt));
	h->n = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		if (full->bucket[b]) {
			h->idx[h->n] = (uint16_t)b;
			h->cnt[h->n++] = full->bucket[b];
		}
	h->count = full->count;
	h->max = full->max;
	h->sum = full->sum;
}

/* ---- Checking a row ---- */

static bool get_string(const struct jv *j, const cJSON *obj, const char *parent, const char *key,
		       bool nullable, const char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char p[JV_PATH];
	if (nullable && cJSON_IsNull(v)) {
		*out = NULL;
		return true;
	}
	if (!cJSON_IsString(v))
		return jv_fail(j, jv_key(p, sizeof(p), parent, key), "expected a string%s, got %s",
			       nullable ? " or null" : "", jv_type_name(v));
	*out = v->valuestring;
	return true;
}

/* A whole number in [min, max] (doubles hold integers exactly to 2^53). */
static bool as_whole(const struct jv *j, const cJSON *v, const char *path, double min, double max,
		     double *out)
{
	if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < min ||
	    v->valuedouble > max)
		return jv_fail(j, path, "expected a whole number from %.0f to %.0f, got %s", min, max,
			       cJSON_IsNumber(v) ? "a number outside that" : jv_type_name(v));
	*out = v->valuedouble;
	return true;
}

static bool get_whole(const struct jv *j, const cJSON *obj, const char *parent, const char *key,
		      double min, double max, double *out)
{
	char p[JV_PATH];
	return as_whole(j, cJSON_GetObjectItemCaseSensitive(obj, key),
			jv_key(p, sizeof(p), parent, key), min, max, out);
}

#define WHOLE_MAX 9007199254740992.0 /* 2^53 */

/* Latency buckets: [[bound_ns, count], ...], bounds rising. */
static bool check_buckets(const struct jv *j, const cJSON *b, const char *path)
{
	if (!cJSON_IsArray(b))
		return jv_fail(j, path, "expected an array of [bound_ns, count], got %s",
			       jv_type_name(b));
	int i = 0;
	double prev = -1;
	for (const cJSON *pair = b->child; pair; pair = pair->next, i++) {
		char p[JV_PATH], q[JV_PATH];
		jv_idx(p, sizeof(p), path, i);
		if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2)
			return jv_fail(j, p, "expected [bound_ns, count], got %s",
				       cJSON_IsArray(pair) ? "an array of another length"
							   : jv_type_name(pair));
		double bound = 0, count = 0;   /* set by as_whole; -O3 cannot tell */
		if (!as_whole(j, pair->child, jv_idx(q, sizeof(q), p, 0), 0, WHOLE_MAX, &bound) ||
		    !as_whole(j, pair->child->next, jv_idx(q, sizeof(q), p, 1), 1, WHOLE_MAX, &count))
			return false;
		if (bound <= prev)
			return jv_fail(j, jv_idx(q, sizeof(q), p, 0),
				       "bounds must rise (%.0f after %.0f)", bound, prev);
		prev = bound;
	}
	return true;
}

/* The DRAM matrix: n rows of n whole numbers. */
static bool check_matrix(const struct jv *j, const cJSON *m, const char *path, int *n)
{
	if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) < 1 || cJSON_GetArraySize(m) > MAX_NODES)
		return jv_fail(j, path, "expected an array of 1 to %d rows, got %s", MAX_NODES,
			       cJSON_IsArray(m) ? "an array of another length" : jv_type_name(m));
	*n = cJSON_GetArraySize(m);
	int r = 0;
	for (const cJSON *row = m->child; row; row = row->next, r++) {
		char p[JV_PATH], q[JV_PATH];
		jv_idx(p, sizeof(p), path, r);
		if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != *n)
			return jv_fail(j, p, "expected a row of %d numbers (one per home node), got %s",
				       *n, cJSON_IsArray(row) ? "an array of another length"
							      : jv_type_name(row));
		int c = 0;
		double v;
		for (const cJSON *x = row->child; x; x = x->next, c++)
			if (!as_whole(j, x, jv_idx(q, sizeof(q), p, c), 0, WHOLE_MAX, &v))
				return false;
	}
	return true;
}

/* ---- Groups ---- */

static uint64_t fnv(const char *s, uint64_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull;
}

static uint64_t group_hash(const char *variant, const char *topology, const char *workload,
			   const char *mode, long procs)
{
	uint64_t h = 14695981039346656037ull;
	h = fnv(variant, h);
	h = fnv(topology, h);
	h = fnv(workload, h);
	h = fnv(mode, h);
	return (h ^ (uint64_t)procs) * 1099511628211ull;
}

static bool group_is(const struct rep_group *g, const char *variant, const char *topology,
		     const char *workload, const char *mode, long procs)
{
	return g->procs == procs && strcmp(g->variant, variant) == 0 &&
	       strcmp(g->topology, topology) == 0 && strcmp(g->workload, workload) == 0 &&
	       strcmp(g->mode, mode) == 0;
}

static void hash_grow(struct rep_store *s)
{
	int cap = s->hash_cap ? 2 * s->hash_cap : 64;
	free(s->hash);
	s->hash = xmalloc((size_t)cap * sizeof(int));
	for (int i = 0; i < cap; i++)
		s->hash[i] = -1;
	s->hash_cap = cap;
	for (int g = 0; g < s->ngroups; g++) {
		const struct rep_group *x = s->groups[g];
		uint64_t h = group_hash(x->variant, x->topology, x->workload, x->mode, x->procs);
		int i = (int)(h & (uint64_t)(cap - 1));
		while (s->hash[i] >= 0)
			i = (i + 1) & (cap - 1);
		s->hash[i] = g;
	}
}

/* The group of a row, made on its first row (knobs from inputs.set). */
static struct rep_group *group_of(struct rep_store *s, const char *variant, const char *topology,
				  const char *workload, const char *mode, long procs,
				  const char *policy, const cJSON *set)
{
	if (2 * (s->ngroups + 1) > s->hash_cap)
		hash_grow(s);
	uint64_t h = group_hash(variant, topology, workload, mode, procs);
	int i = (int)(h & (uint64_t)(s->hash_cap - 1));
	for (; s->hash[i] >= 0; i = (i + 1) & (s->hash_cap - 1))
		if (group_is(s->groups[s->hash[i]], variant, topology, workload, mode, procs))
			return s->groups[s->hash[i]];
	if (s->ngroups == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->groups = xrealloc(s->groups, (size_t)s->cap * sizeof(*s->groups));
	}
	struct rep_group *g = xcalloc(1, sizeof(*g));
	g->variant = xstrdup(variant);
	g->topology = xstrdup(topology);
	g->workload = xstrdup(workload);
	g->mode = xstrdup(mode);
	g->policy = xstrdup(policy);
	g->procs = procs;
	g->m = xcalloc((size_t)metric_count, sizeof(*g->m));
	g->nset = cJSON_GetArraySize(set);
	g->set_keys = xcalloc((size_t)g->nset + 1, sizeof(char *));
	g->set_vals = xcalloc((size_t)g->nset + 1, sizeof(double));
	int k = 0;
	for (const cJSON *it = set->child; it; it = it->next, k++) {
		g->set_keys[k] = xstrdup(it->string);
		g->set_vals[k] = it->valuedouble;
	}
	s->hash[i] = s->ngroups;
	s->groups[s->ngroups++] = g;
	return g;
}

static void note_distinct(char **list, int *n, bool *more, const char *v)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(list[i], v) == 0)
			return;
	if (*n < 8)
		list[(*n)++] = xstrdup(v);
	else
		*more = true;
}


/* A --why object's mean (why.all's or why.requests') and its n causes'
 * parts into *acc, made at the first; absent: nothing. */
static void why_add(struct rep_acc **acc, const cJSON *o, const char *const *names, int n)
{
	const cJSON *mean = cJSON_GetObjectItemCaseSensitive(o, "mean_ns");
	if (!cJSON_IsNumber(mean))
		return;
	if (!*acc)
		*acc = xcalloc((size_t)n + 1, sizeof(**acc));
	rep_acc_add(&(*acc)[0], mean->valuedouble);
	const cJSON *causes = cJSON_GetObjectItemCaseSensitive(o, "causes");
	for (int k = 0; k < n; k++) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(causes, names[k]);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "mean_ns");
		rep_acc_add(&(*acc)[k + 1], cJSON_IsNumber(v) ? v->valuedouble : 0);
	}
}

/* Folds an ok row's report into its group (already checked). */
static void fold_report(struct rep_store *s, struct rep_group *g, const cJSON *report,
			uint64_t seed)
{
	const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(report, "metrics");
	if (g->nseeded == g->capseeded) {
		g->capseeded = g->capseeded ? 2 * g->capseeded : 4;
		g->seeded = xrealloc(g->seeded, (size_t)g->capseeded * sizeof(*g->seeded));
	}
	struct rep_seeded *sv = &g->seeded[g->nseeded++];
	sv->seed = seed;
	for (int h = 0; h < REP_NHEAD; h++) {
		const cJSON *v = exp_json_dotted(metrics, rep_head_paths[h]);
		sv->v[h] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	}
	for (int i = 0; i < metric_count; i++) {
		const cJSON *v = exp_json_dotted(metrics, metric_table[i].path);
		if (cJSON_IsNumber(v))
			rep_acc_add(&g->m[i], v->valuedouble);
	}
	const cJSON *why = cJSON_GetObjectItemCaseSensitive(report, "why");
	why_add(&g->why, exp_json_dotted(why, "all"), rt_why_names, RT_WHY__COUNT);
	why_add(&g->whyrq, exp_json_dotted(why, "requests"), rt_whyrq_names, RT_WHYRQ__COUNT);
	const cJSON *unit = cJSON_GetObjectItemCaseSensitive(metrics, "throughput_unit");
	if (!g->rate_unit && cJSON_IsString(unit))
		g->rate_unit = xstrdup(unit->valuestring);
	for (int d = 0; d < REP_NDIST; d++) {
		const cJSON *dist = cJSON_GetObjectItemCaseSensitive(metrics, rep_dist_paths[d]);
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(dist, "buckets");
		if (!b || !b->child)
			continue;
		rep_hist_expand(&g->dist[d], s->scratch);
		uint64_t top = 0, rcount = 0;
		for (const cJSON *pair = b->child; pair; pair = pair->next) {
			uint64_t bound = (uint64_t)pair->child->valuedouble;
			uint64_t n = (uint64_t)pair->child->next->valuedouble;
			hist_add(s->scratch, bound, n);
			rcount += n;
			if (bound > top)
				top = bound;
		}
		/* a bucket's bound is above the largest value it holds: the
		 * quantiles stop at the runs' max, as each run's own did, and
		 * the mean is the runs' own */
		const cJSON *max = cJSON_GetObjectItemCaseSensitive(dist, "max");
		const cJSON *mean = cJSON_GetObjectItemCaseSensitive(dist, "mean");
		uint64_t rowmax = top;
		if (cJSON_IsNumber(max) && max->valuedouble >= 0 && max->valuedouble <= (double)top)
			rowmax = (uint64_t)max->valuedouble;
		s->scratch->max = g->dist[d].max > rowmax ? g->dist[d].max : rowmax;
		if (cJSON_IsNumber(mean))
			s->scratch->sum = g->dist[d].sum + mean->valuedouble * (double)rcount;
		hist_compress(s->scratch, &g->dist[d]);
	}
	const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(metrics, "cpu");
	const cJSON *on_ns = cJSON_GetObjectItemCaseSensitive(cpu, "on_cpu_ns");
	const cJSON *off_ns = cJSON_GetObjectItemCaseSensitive(cpu, "off_cpu_ns");
	if (cJSON_IsNumber(on_ns) && cJSON_IsNumber(off_ns)) {
		const cJSON *on = cJSON_GetObjectItemCaseSensitive(cpu, "on_cpu");
		const cJSON *off = cJSON_GetObjectItemCaseSensitive(cpu, "off_cpu");
		for (int c = 0; c < REP_NCPU; c++) {
			const cJSON *f = cJSON_GetObjectItemCaseSensitive(c < 4 ? on : off,
									  rep_cpu_names[c]);
			if (cJSON_IsNumber(f))
				g->cpu_ns[c] += f->valuedouble *
						(c < 4 ? on_ns->valuedouble : off_ns->valuedouble);
		}
		g->ncpu++;
	}
	const cJSON *mat = exp_json_dotted(metrics, "mechanisms.memory.dram_lines_by_node_home");
	if (mat) {
		int n = cJSON_GetArraySize(mat);
		if (!g->dram) {
			g->nnodes = n;
			g->dram = xcalloc((size_t)n * (size_t)n, sizeof(double));
		}
		int r = 0;
		for (const cJSON *row = mat->child; row; row = row->next, r++) {
			int c = 0;
			for (const cJSON *x = row->child; x; x = x->next, c++)
				g->dram[r * n + c] += x->valuedouble;
		}
		g->ndram++;
	}
}

/* Checks the parts of a report the report reads, and that it is one. */
/* A run --why's object, where the report reads it: why.all's mean and
 * each cause's part, numbers of time (absent: a run without --why). */
/* One breakdown of a --why object (why.all or why.requests): its mean and
 * each named cause's part, numbers of time. */
static bool check_why_part(const struct jv *j, const cJSON *o, const char *key,
			   const char *const *names, int n)
{
	char p[JV_PATH];
	double x;
	snprintf(p, sizeof(p), ".report.why.%s.mean_ns", key);
	if (!jv_as_nonneg(j, cJSON_GetObjectItemCaseSensitive(o, "mean_ns"), p, &x))
		return false;
	const cJSON *causes = cJSON_GetObjectItemCaseSensitive(o, "causes");
	if (!cJSON_IsObject(causes)) {
		snprintf(p, sizeof(p), ".report.why.%s.causes", key);
		return jv_fail(j, p, "expected an object, got %s", jv_type_name(causes));
	}
	for (int k = 0; k < n; k++) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(causes, names[k]);
		if (!c)
			continue;
		snprintf(p, sizeof(p), ".report.why.%s.causes.%s.mean_ns", key, names[k]);
		if (!jv_as_nonneg(j, cJSON_GetObjectItemCaseSensitive(c, "mean_ns"), p, &x))
			return false;
	}
	return true;
}

static bool check_why(const struct jv *j, const cJSON *why)
{
	if (!why)
		return true;
	if (!cJSON_IsObject(why) || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(why, "all")))
		return jv_fail(j, ".report.why", "expected an object with \"all\", got %s",
			       jv_type_name(why));
	if (!check_why_part(j, cJSON_GetObjectItemCaseSensitive(why, "all"), "all", rt_why_names,
			    RT_WHY__COUNT))
		return false;
	const cJSON *rq = cJSON_GetObjectItemCaseSensitive(why, "requests");
	if (!rq)
		return true;
	if (!cJSON_IsObject(rq))
		return jv_fail(j, ".report.why.requests", "expected an object, got %s",
			       jv_type_name(rq));
	return check_why_part(j, rq, "requests", rt_whyrq_names, RT_WHYRQ__COUNT);
}

static bool check_report(const struct jv *j, const cJSON *report, struct rep_group *g)
{
	const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(report, "metrics");
	if (!cJSON_IsObject(metrics))
		return jv_fail(j, ".report.metrics", "expected an object, got %s",
			       jv_type_name(metrics));
	char p[JV_PATH];
	for (int i = 0; i < metric_count; i++) {
		const cJSON *v = exp_json_dotted(metrics, metric_table[i].path);
		if (v && !cJSON_IsNumber(v)) {
			snprintf(p, sizeof(p), ".report.metrics.%s", metric_table[i].path);
			return jv_fail(j, p, "expected a number, got %s", jv_type_name(v));
		}
	}
	for (int d = 0; d < REP_NDIST; d++) {
		const cJSON *b = exp_json_dotted(exp_json_dotted(metrics, rep_dist_paths[d]), "buckets");
		snprintf(p, sizeof(p), ".report.metrics.%s.buckets", rep_dist_paths[d]);
		if (b && !check_buckets(j, b, p))
			return false;
	}
	const cJSON *mat = exp_json_dotted(metrics, "mechanisms.memory.dram_lines_by_node_home");
	if (mat) {
		int n = 0;
		if (!check_matrix(j, mat, ".report.metrics.mechanisms.memory.dram_lines_by_node_home",
				  &n))
			return false;
		if (g->dram && n != g->nnodes)
			return jv_fail(j, ".report.metrics.mechanisms.memory.dram_lines_by_node_home",
				       "%d nodes, where the group's earlier rows (%s on %s) had %d", n,
				       g->variant, g->topology, g->nnodes);
	}
	return check_why(j, cJSON_GetObjectItemCaseSensitive(report, "why"));
}

/* What the report takes of a row, checked. */
struct row_fields {
	const char *variant, *status, *version, *commit, *matrix, *message;
	double exit_status;
	int st;                        /* enum rep_status */
	const char *mode, *policy, *topology, *workload;
	double procs, seed;
	const cJSON *set, *report;
};

/* A key the row may leave out, a string where given. */
static bool get_optional(const struct jv *j, const cJSON *row, const char *key, const char **out)
{
	return !cJSON_HasObjectItem(row, key) || get_string(j, row, "", key, false, out);
}

/* The row's own keys. */
static bool read_outcome(const struct jv *j, const cJSON *row, struct row_fields *r)
{
	if (!get_string(j, row, "", "variant", false, &r->variant) ||
	    !get_string(j, row, "", "status", false, &r->status) ||
	    !get_string(j, row, "", "message", true, &r->message) ||
	    !get_optional(j, row, "schedlab", &r->version) ||
	    !get_optional(j, row, "commit", &r->commit) ||
	    !get_optional(j, row, "matrix", &r->matrix) ||
	    !get_whole(j, row, "", "exit_status", 0, 255, &r->exit_status))
		return false;
	r->st = 0;
	while (r->st < RS_N && strcmp(rep_status_names[r->st], r->status) != 0)
		r->st++;
	if (r->st == RS_N)
		return jv_fail(j, ".status", "'%s' is not a status (ok, deadlock, panic, limit, "
			       "crashed, error)", r->status);
	return true;
}

/* The row's inputs: what groups it. */
static bool read_inputs(const struct jv *j, const cJSON *row, struct row_fields *r)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(row, "inputs");
	if (!cJSON_IsObject(in))
		return jv_fail(j, ".inputs", "expected an object, got %s", jv_type_name(in));
	if (!get_string(j, in, ".inputs", "mode", false, &r->mode) ||
	    !get_string(j, in, ".inputs", "policy", false, &r->policy) ||
	    !get_string(j, in, ".inputs", "topology", false, &r->topology) ||
	    !get_string(j, in, ".inputs", "workload", false, &r->workload) ||
	    !get_whole(j, in, ".inputs", "procs", 1, 1 << 20, &r->procs) ||
	    !get_whole(j, in, ".inputs", "seed", 0, WHOLE_MAX, &r->seed))
		return false;
	if (strcmp(r->mode, "sim") != 0 && strcmp(r->mode, "native") != 0)
		return jv_fail(j, ".inputs.mode", "'%s' is not a mode (sim, native)", r->mode);
	r->set = cJSON_GetObjectItemCaseSensitive(in, "set");
	if (!cJSON_IsObject(r->set))
		return jv_fail(j, ".inputs.set", "expected an object of knobs, got %s",
			       jv_type_name(r->set));
	for (const cJSON *k = r->set->child; k; k = k->next) {
		char p[JV_PATH];
		if (!cJSON_IsNumber(k))
			return jv_fail(j, jv_key(p, sizeof(p), ".inputs.set", k->string),
				       "expected a number, got %s", jv_type_name(k));
	}
	return true;
}

/* Counts the row in its group and the store, and folds its report or
 * lists it as not completed. */
static void tally(struct rep_store *s, struct rep_group *g, const struct row_fields *r, long line)
{
	uint64_t sd = (uint64_t)r->seed;
	if (g->nrows == 0 || sd < g->first_seed)
		g->first_seed = sd;
	if (g->nrows == 0 || sd > g->last_seed)
		g->last_seed = sd;
	g->nrows++;
	g->nstatus[r->st]++;
	s->nstatus[r->st]++;
	s->rows++;
	if (r->version || r->commit) {
		char both[300];
		snprintf(both, sizeof(both), "%s (commit %s)", r->version ? r->version : "?",
			 r->commit ? r->commit : "?");
		note_distinct(s->versions, &s->nversions, &s->more_versions, both);
	}
	if (r->matrix)
		note_distinct(s->matrices, &s->nmatrices, &s->more_matrices, r->matrix);
	if (r->st == RS_OK) {
		fold_report(s, g, r->report, sd);
	} else if (s->nfailed < REP_MAX_FAILED) {
		struct rep_failed *f = &s->failed[s->nfailed++];
		f->line = line;
		f->variant = xstrdup(r->variant);
		f->topology = xstrdup(r->topology);
		f->workload = xstrdup(r->workload);
		f->status = xstrdup(r->status);
		f->message = r->message ? xstrdup(r->message) : NULL;
		f->procs = (long)r->procs;
		f->exit_status = (long)r->exit_status;
		f->seed = sd;
	}
}

static bool fold_row(struct rep_store *s, const struct jv *j, const cJSON *row, long line)
{
	/* the row's shape, as every reader of stores checks it (exp/store.h);
	 * then what the report reads, closer */
	struct err re = { "" };
	if (!exp_row_check(row, &re)) {
		err_set(j->e, "%s: %s", j->file, re.msg);
		return false;
	}
	struct row_fields r = { 0 };
	if (!read_outcome(j, row, &r) || !read_inputs(j, row, &r))
		return false;
	r.report = cJSON_GetObjectItemCaseSensitive(row, "report");
	if (!cJSON_IsObject(r.report) && !cJSON_IsNull(r.report))
		return jv_fail(j, ".report", "expected an object or null, got %s",
			       jv_type_name(r.report));
	if (r.st == RS_OK && !cJSON_IsObject(r.report))
		return jv_fail(j, ".report", "a row whose status is ok has a report, not null");
	struct rep_group *g = group_of(s, r.variant, r.topology, r.workload, r.mode, (long)r.procs,
				       r.policy, r.set);
	if (cJSON_IsObject(r.report) && !check_report(j, r.report, g))
		return false;
	tally(s, g, &r, line);
	return true;
}

/* One line of the store: checked, folded into s and its run added to
 * keys.  False with e set if it is not a row. */
static bool read_line(struct rep_store *s, struct exp_keys *keys, char *line, uint64_t offset,
		      const char *label, struct err *e)
{
	struct jv j = { label, e };
	size_t n = strlen(line), len = n, bad;
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	if (strspn(line, " \t") == n)
		return true;                 /* a blank line is no row */
	if (!utf8_valid(line, n, &bad)) {
		err_set(e, "%s: not UTF-8 (at column %zu)", label, bad + 1);
		return false;
	}
	const char *end = NULL;
	cJSON *row = cJSON_ParseWithLengthOpts(line, n + 1, &end, true);
	if (!row) {
		size_t col = end ? (size_t)(end - line) + 1 : 1;
		err_set(e, "%s: not JSON (at column %zu; each line of a store is one row, a "
			"JSON object)", label, col);
		return false;
	}
	bool ok = fold_row(s, &j, row, s->lines);
	if (ok)
		exp_keys_add(keys, row, s->lines, offset, len);
	cJSON_Delete(row);
	return ok;
}

/* Every line of f into s and keys. */
static bool read_lines(struct rep_store *s, struct exp_keys *keys, FILE *f, const char *shown,
		       struct err *e)
{
	char *line = NULL;
	size_t cap = 0;
	bool ok = true;
	int got;
	struct exp_lines *lr = xcalloc(1, sizeof(*lr));
	lr->f = f;
	for (uint64_t offset = 0; ok; offset = lr->off) {
		if ((got = exp_lines_read(lr, EXP_STORE_MAX_LINE, &line, &cap)) == EXP_LINE_EOF)
			break;
		s->lines++;
		char label[600];
		snprintf(label, sizeof(label), "%s:%ld", shown, s->lines);
		if (got == EXP_LINE_NUL)
			err_set(e, "%s: a NUL byte: not a JSON Lines store", label);
		else if (got == EXP_LINE_LONG)
			err_set(e, "%s: a row longer than %zu MiB", label, EXP_STORE_MAX_LINE >> 20);
		ok = got == EXP_LINE_OK && read_line(s, keys, line, offset, label, e);
	}
	if (ok && ferror(f)) {
		err_set(e, "%s: %s", shown, strerror(errno));
		ok = false;
	}
	free(line);
	free(lr);
	return ok;
}

/* A store with a row given twice, folded again with each run once (the
 * rows read again through keys, in the file's order). */
static void refold(struct rep_store *s, struct exp_keys *keys, const long *kept, long nkept)
{
	long *by_order = xcalloc((size_t)keys->n, sizeof(*by_order));
	bool *keep = xcalloc((size_t)keys->n, sizeof(*keep));
	for (long i = 0; i < keys->n; i++)
		by_order[keys->ents[i].order] = i;
	for (long i = 0; i < nkept; i++)
		keep[keys->ents[kept[i]].order] = true;
	char *file = xstrdup(s->file);
	long lines = s->lines;
	rep_store_free(s);
	memset(s, 0, sizeof(*s));
	s->file = file;
	s->lines = lines;
	s->scratch = xcalloc(1, sizeof(*s->scratch));
	struct err e = { "" };
	for (long o = 0; o < keys->n; o++) {
		const struct exp_key *en = &keys->ents[by_order[o]];
		const cJSON *row = keep[o] ? exp_keys_row(keys, by_order[o]) : NULL;
		if (row)
			fold_row(s, &(struct jv){ s->file, &e }, row, en->line);
	}
	free(keep);
	free(by_order);
}

bool rep_store_read(struct rep_store *s, const char *path, struct err *e)
{
	memset(s, 0, sizeof(*s));
	s->file = xstrdup(path);
	s->scratch = xcalloc(1, sizeof(*s->scratch));
	FILE *f = strcmp(path, "-") == 0 ? stdin : input_fopen(path, e);
	if (!f)
		return false;
	char *shown = str_shown(strcmp(path, "-") == 0 ? "(stdin)" : path, 512);
	bool in = strcmp(path, "-") == 0;
	char *files[1] = { xstrdup(in ? "(stdin)" : path) };
	struct exp_keys keys;
	exp_keys_init(&keys, files);
	exp_keys_file(&keys, 0);
	keys.keep_text |= in;
	bool ok = read_lines(s, &keys, f, shown, e);
	if (f != stdin)
		fclose(f);
	/* each run once, as merge keeps it; two different rows of one run
	 * are refused as merge refuses them */
	long *kept = xcalloc((size_t)keys.n + 1, sizeof(*kept)), nkept = keys.n;
	ok = ok && exp_keys_dedupe(&keys, kept, &nkept, e);
	if (ok && nkept < keys.n)
		refold(s, &keys, kept, nkept);
	if (ok && keys.failed) {
		err_set(e, "%s", keys.err.msg);
		ok = false;
	}
	free(kept);
	exp_keys_free(&keys);
	free(files[0]);
	free(shown);
	return ok;
}

void rep_store_free(struct rep_store *s)
{
	for (int i = 0; i < s->ngroups; i++) {
		struct rep_group *g = s->groups[i];
		free(g->variant);
		free(g->topology);
		free(g->workload);
		free(g->mode);
		free(g->policy);
		for (int k = 0; k < g->nset; k++)
			free(g->set_keys[k]);
		free(g->set_keys);
		free(g->set_vals);
		free(g->m);
		free(g->rate_unit);
		for (int d = 0; d < REP_NDIST; d++) {
			free(g->dist[d].idx);
			free(g->dist[d].cnt);
		}
		free(g->dram);
		free(g->seeded);
		free(g->why);
		free(g->whyrq);
		free(g);
	}
	free(s->groups);
	free(s->hash);
	for (int i = 0; i < s->nfailed; i++) {
		struct rep_failed *f = &s->failed[i];
		free(f->variant);
		free(f->topology);
		free(f->workload);
		free(f->status);
		free(f->message);
	}
	for (int i = 0; i < s->nversions; i++)
		free(s->versions[i]);
	for (int i = 0; i < s->nmatrices; i++)
		free(s->matrices[i]);
	free(s->scratch);
	free(s->file);
	memset(s, 0, sizeof(*s));
}
