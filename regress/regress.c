/* A side's values, the baseline file, the comparison and its reports
 * [regress/regress.h, docs/regress.md]. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "exp/store.h"
#include "regress/regress.h"
#include "regress/stats.h"
#include "util/gomaxprocs.h"
#include "util/jsonv.h"
#include "util/output.h"
#include "util/version.h"

#define NM metric_count

/* ---- Values ---- */

struct rg_side *rg_side_new(int ncases, int nseeds)
{
	struct rg_side *s = xcalloc(1, sizeof(*s));
	s->ncases = ncases;
	s->nseeds = nseeds;
	size_t n = (size_t)ncases * (size_t)NM * (size_t)nseeds;
	s->v = xmalloc(sizeof(*s->v) * (n ? n : 1));
	for (size_t i = 0; i < n; i++)
		s->v[i] = NAN;
	s->ran = xcalloc((size_t)ncases + 1, sizeof(*s->ran));
	s->host = xcalloc((size_t)ncases + 1, sizeof(*s->host));
	s->knobs = xcalloc((size_t)ncases + 1, sizeof(*s->knobs));
	s->variant = xcalloc((size_t)ncases + 1, sizeof(*s->variant));
	s->open_loop = xcalloc((size_t)ncases + 1, sizeof(*s->open_loop));
	return s;
}

void rg_side_free(struct rg_side *s)
{
	if (!s)
		return;
	for (int c = 0; c < s->ncases; c++) {
		cJSON_Delete(s->host[c]);
		cJSON_Delete(s->knobs[c]);
		free(s->variant[c]);
	}
	free(s->v);
	free(s->ran);
	free(s->host);
	free(s->knobs);
	free(s->variant);
	free(s->open_loop);
	free(s);
}

void rg_side_take(struct rg_side *s, int c, int k, const cJSON *row)
{
	const cJSON *report = cJSON_GetObjectItemCaseSensitive(row, "report");
	for (int m = 0; m < NM; m++) {
		double v;
		*rg_at(s, c, m, k) = exp_row_metric_number(row, metric_table[m].path, &v) ? v : NAN;
	}
	const cJSON *knobs = cJSON_GetObjectItemCaseSensitive(report, "knobs");
	if (knobs && !s->knobs[c])
		s->knobs[c] = cJSON_Duplicate(knobs, true);
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(report, "host");
	if (host) {
		if (!s->host[c])
			s->host[c] = cJSON_CreateArray();
		cJSON_AddItemToArray(s->host[c], cJSON_Duplicate(host, true));
	}
	s->ran[c] = true;
	if (exp_json_dotted(cJSON_GetObjectItemCaseSensitive(report, "metrics"), "request_load"))
		s->open_loop[c] = true;
}

/* ---- The baseline file ---- */

#define BASELINE_FORMAT 1

bool rg_baseline_write(const char *path, const struct rg_suite *s, const struct rg_side *side,
		       bool native, struct err *e)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "regress_baseline", BASELINE_FORMAT);
	cJSON_AddStringToObject(o, "schedlab", SCHEDLAB_VERSION);
	cJSON_AddStringToObject(o, "commit", schedlab_commit());
	cJSON_AddStringToObject(o, "mode", native ? "native" : "sim");
	cJSON_AddItemToObject(o, "suite", cJSON_Duplicate(s->json, true));
	cJSON *cases = cJSON_AddArrayToObject(o, "cases");
	for (int c = 0; c < s->ncases; c++) {
		const struct rg_case *k = &s->cases[c];
		cJSON *co = cJSON_CreateObject();
		cJSON_AddItemToArray(cases, co);
		cJSON_AddStringToObject(co, "name", k->name);
		cJSON_AddStringToObject(co, "variant", side->variant[c] ? side->variant[c] : k->policy);
		cJSON *in = cJSON_AddObjectToObject(co, "inputs");
		cJSON_AddStringToObject(in, "policy", k->policy);
		cJSON_AddItemToObject(in, "set", cJSON_Duplicate(k->set, true));
		cJSON_AddStringToObject(in, "topology", k->topology);
		cJSON_AddStringToObject(in, "workload", k->workload);
		if (k->procs_rule)
			cJSON_AddStringToObject(in, "procs", gmp_rule_name(k->procs_rule));
		else if (k->procs)
			cJSON_AddNumberToObject(in, "procs", (double)k->procs);
		else
			cJSON_AddNullToObject(in, "procs");
		cJSON_AddItemToObject(co, "knobs", side->knobs[c] ? cJSON_Duplicate(side->knobs[c], true)
								  : cJSON_CreateObject());
		cJSON *seeds = cJSON_AddArrayToObject(co, "seeds");
		for (int i = 0; i < side->nseeds; i++)
			cJSON_AddItemToArray(seeds, cJSON_CreateNumber(
				(double)(native ? s->seed : s->seed + i)));
		cJSON *vals = cJSON_AddObjectToObject(co, "values");
		for (int m = 0; m < NM; m++) {
			bool any = false;
			for (int i = 0; i < side->nseeds; i++)
				any |= !isnan(*rg_at(side, c, m, i));
			if (!any)
				continue;
			cJSON *a = cJSON_AddArrayToObject(vals, metric_table[m].name);
			for (int i = 0; i < side->nseeds; i++) {
				double v = *rg_at(side, c, m, i);
				cJSON_AddItemToArray(a, isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v));
			}
		}
		if (native)
			cJSON_AddItemToObject(co, "host", side->host[c] ? cJSON_Duplicate(side->host[c], true)
									: cJSON_CreateArray());
	}
	/* exact numbers (exp_json_line: cJSON's printer may drop the last
	 * bit, and a value that is not the run's would show as a change), a
	 * line per case so the file reads and diffs well */
	struct output out;
	if (!output_open(&out, "--baseline", path, e)) {
		cJSON_Delete(o);
		return false;
	}
	FILE *f = out.f;
	fputs("{", f);
	bool first = true;
	for (const cJSON *it = o->child; it; it = it->next) {
		fprintf(f, "%s\n  \"%s\": ", first ? "" : ",", it->string);
		first = false;
		if (cJSON_IsArray(it)) {
			fputs("[", f);
			for (const cJSON *c = it->child; c; c = c->next) {
				char *line = exp_json_line(c);
				fprintf(f, "\n    %s%s", line, c->next ? "," : "");
				free(line);
			}
			fputs("\n  ]", f);
		} else {
			char *line = exp_json_line(it);
			fputs(line, f);
			free(line);
		}
	}
	fputs("\n}\n", f);
	cJSON_Delete(o);
	return output_commit(&out, e);
}

void rg_baseline_free(struct rg_baseline *b)
{
	if (!b)
		return;
	free(b->schedlab);
	free(b->commit);
	rg_suite_free(b->suite);
	rg_side_free(b->side);
	free(b);
}

static bool load_case(const struct jv *j, const cJSON *co, const char *path, struct rg_baseline *b,
		      int c)
{
	static const char *const keys[] = { "name", "variant", "inputs", "knobs", "seeds",
					    "values", "host", NULL };
	if (!jv_object(j, co, path, keys))
		return false;
	const char *name = NULL, *variant = NULL;
	if (!jv_get_string(j, co, path, "name", true, &name) ||
	    !jv_get_string(j, co, path, "variant", true, &variant))
		return false;
	char p[JV_PATH], q[JV_PATH];
	if (strcmp(name, b->suite->cases[c].name) != 0)
		return jv_fail(j, jv_key(p, sizeof(p), path, "name"),
			       "\"%s\" is not the suite's case %d (\"%s\")", name, c,
			       b->suite->cases[c].name);
	b->side->variant[c] = xstrdup(variant);
	const cJSON *knobs = cJSON_GetObjectItemCaseSensitive(co, "knobs");
	if (knobs) {
		if (!cJSON_IsObject(knobs))
			return jv_fail(j, jv_key(p, sizeof(p), path, "knobs"), "expected an object, got %s",
				       jv_type_name(knobs));
		b->side->knobs[c] = cJSON_Duplicate(knobs, true);
	}
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(co, "host");
	if (host) {
		if (!jv_array(j, host, jv_key(p, sizeof(p), path, "host")))
			return false;
		b->side->host[c] = cJSON_Duplicate(host, true);
	}
	const cJSON *vals = cJSON_GetObjectItemCaseSensitive(co, "values");
	jv_key(p, sizeof(p), path, "values");
	if (!vals)
		return jv_fail(j, p, "missing (the per-seed values)");
	if (!cJSON_IsObject(vals))
		return jv_fail(j, p, "expected an object, got %s", jv_type_name(vals));
	for (const cJSON *a = vals->child; a; a = a->next) {
		jv_key(q, sizeof(q), p, a->string);
		int m = metric_index(a->string);
		if (m < 0)
			return jv_fail(j, q, "unknown metric");
		if (!jv_array(j, a, q))
			return false;
		if (cJSON_GetArraySize(a) != b->side->nseeds)
			return jv_fail(j, q, "expected %d values (one per seed), got %d",
				       b->side->nseeds, cJSON_GetArraySize(a));
		int i = 0;
		for (const cJSON *v = a->child; v; v = v->next, i++) {
			char r[JV_PATH];
			if (cJSON_IsNull(v))
				continue;
			if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
				return jv_fail(j, jv_idx(r, sizeof(r), q, i),
					       "expected a number or null, got %s", jv_type_name(v));
			*rg_at(b->side, c, m, i) = v->valuedouble;
		}
	}
	b->side->ran[c] = true;
	return true;
}

struct rg_baseline *rg_baseline_load(const char *path, struct err *e)
{
	char *text = input_read(path, NULL, e);
	if (!text)
		return NULL;
	struct rg_baseline *b = rg_baseline_parse(path, text, e);
	free(text);
	return b;
}

struct rg_baseline *rg_baseline_parse(const char *path, const char *text, struct err *e)
{
	struct jv jj = { path, e }, *j = &jj;
	cJSON *o = jv_parse(j, text);
	if (!o)
		return NULL;
	struct rg_baseline *b = xcalloc(1, sizeof(*b));
	static const char *const keys[] = { "regress_baseline", "schedlab", "commit", "mode",
					    "suite", "cases", NULL };
	long format;
	const char *ver, *commit, *mode;
	if (!jv_object(j, o, "$", keys) ||
	    !jv_get_int(j, o, "$", "regress_baseline", true, 1, 1000, &format) ||
	    !jv_get_string(j, o, "$", "schedlab", true, &ver) ||
	    !jv_get_string(j, o, "$", "commit", true, &commit) ||
	    !jv_get_string(j, o, "$", "mode", true, &mode))
		goto fail;
	if (format != BASELINE_FORMAT) {
		jv_fail(j, "$.regress_baseline", "format %ld is not this schedlab's (%d)", format,
			BASELINE_FORMAT);
		goto fail;
	}
	if (strcmp(mode, "sim") != 0 && strcmp(mode, "native") != 0) {
		jv_fail(j, "$.mode", "expected \"sim\" or \"native\", got \"%s\"", mode);
		goto fail;
	}
	b->schedlab = xstrdup(ver);
	b->commit = xstrdup(commit);
	b->native = strcmp(mode, "native") == 0;
	const cJSON *suite = cJSON_GetObjectItemCaseSensitive(o, "suite");
	if (!suite) {
		jv_fail(j, "$.suite", "missing (the suite the baseline was made from)");
		goto fail;
	}
	/* the suite's own messages name its paths under $.suite */
	char label[1100];
	snprintf(label, sizeof(label), "%s: $.suite", path);
	b->suite = rg_suite_parse_json(label, suite, e);
	if (!b->suite)
		goto fail;
	const cJSON *cases = cJSON_GetObjectItemCaseSensitive(o, "cases");
	if (!cases) {
		jv_fail(j, "$.cases", "missing");
		goto fail;
	}
	if (!jv_array(j, cases, "$.cases"))
		goto fail;
	if (cJSON_GetArraySize(cases) != b->suite->ncases) {
		jv_fail(j, "$.cases", "expected %d cases (the suite's), got %d", b->suite->ncases,
			cJSON_GetArraySize(cases));
		goto fail;
	}
	b->side = rg_side_new(b->suite->ncases, b->suite->seeds);
	int c = 0;
	for (const cJSON *co = cases->child; co; co = co->next, c++) {
		char p[JV_PATH];
		if (!load_case(j, co, jv_idx(p, sizeof(p), "$.cases", c), b, c))
			goto fail;
	}
	cJSON_Delete(o);
	return b;
fail:
	cJSON_Delete(o);
	rg_baseline_free(b);
	return NULL;
}

/* ---- The comparison ---- */

static double spread(const double *v, int n, double med)
{
	if (n < 2 || med == 0)
		return NAN;
	double lo = v[0], hi = v[0];
	for (int i = 1; i < n; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	return (hi - lo) / 2 / fabs(med);
}

static double rel_change(double old, double new)
{
	if (old == 0)
		return new == 0 ? 0 : copysign(INFINITY, new);
	return (new - old) / fabs(old);
}

/* The paired test of one set of per-seed relative changes: worse is the
 * change in the metric's bad direction, and the gate tests whether it
 * leans beyond the threshold. */
static void paired_test(struct rg_row *row, const double *rel, int n, int better, double t)
{
	double *d = xmalloc(sizeof(*d) * (size_t)(n ? n : 1));
	row->delta = rs_median(rel, n);
	row->p_change = rs_signrank_two(rel, n, NULL);
	row->n = n;
	row->p_gate = NAN;
	if (!isnan(t)) {
		for (int i = 0; i < n; i++)
			d[i] = (better < 0 ? rel[i] : -rel[i]) - t;
		row->p_gate = rs_signrank_upper(d, n, NULL);
	}
	free(d);
}

static bool sim_row(const struct rg_baseline *base, const struct rg_side *side, int c, int m,
		    double t, struct rg_row *row)
{
	int ns = side->nseeds;
	double *o = xmalloc(sizeof(*o) * (size_t)ns), *nw = xmalloc(sizeof(*nw) * (size_t)ns),
	       *rel = xmalloc(sizeof(*rel) * (size_t)ns);
	int n = 0;
	for (int k = 0; k < ns; k++) {
		double a = *rg_at(base->side, c, m, k), b = *rg_at(side, c, m, k);
		if (isnan(a) || isnan(b))
			continue;
		o[n] = a;
		nw[n] = b;
		rel[n++] = rel_change(a, b);
	}
	if (n > 0) {
		row->ncase = c;
		row->old_med = rs_median(o, n);
		row->new_med = rs_median(nw, n);
		row->old_spread = spread(o, n, row->old_med);
		row->new_spread = spread(nw, n, row->new_med);
		paired_test(row, rel, n, metric_table[m].better, t);
	}
	free(o);
	free(nw);
	free(rel);
	return n > 0;
}

static int finite_values(const struct rg_side *s, int c, int m, double *out)
{
	int n = 0;
	for (int k = 0; k < s->nseeds; k++) {
		double v = *rg_at(s, c, m, k);
		if (!isnan(v))
			out[n++] = v;
	}
	return n;
}

static bool native_row(const struct rg_baseline *base, const struct rg_side *side, int c, int m,
		       double t, struct rg_row *row)
{
	double *o = xmalloc(sizeof(*o) * (size_t)base->side->nseeds);
	double *nw = xmalloc(sizeof(*nw) * (size_t)side->nseeds);
	int no = finite_values(base->side, c, m, o), nn = finite_values(side, c, m, nw);
	bool ok = no > 0 && nn > 0;
	if (ok) {
		int better = metric_table[m].better;
		row->ncase = c;
		row->old_med = rs_median(o, no);
		row->new_med = rs_median(nw, nn);
		row->old_spread = spread(o, no, row->old_med);
		row->new_spread = spread(nw, nn, row->new_med);
		row->delta = rel_change(row->old_med, row->new_med);
		row->p_change = rs_utest_two(o, no, nw, nn);
		row->n = no < nn ? no : nn;
		row->p_gate = NAN;
		if (!isnan(t)) {
			/* worse beyond the threshold: new above old * (1 + t)
			 * when lower is better, below old * (1 - t) when higher
			 * is (negated, so "larger is worse" either way) */
			for (int i = 0; i < no; i++)
				o[i] = better < 0 ? o[i] * (1 + t) : -o[i] * (1 - t);
			for (int i = 0; i < nn; i++)
				nw[i] = better < 0 ? nw[i] : -nw[i];
			row->p_gate = rs_ranksum_upper(nw, nn, o, no);
		}
	}
	free(o);
	free(nw);
	return ok;
}

/* The geometric mean over the cases that have the metric, positive, on
 * every seed of both sides.  Simulated, the per-seed geometric mean of
 * the cases' ratios is a paired sample like a case's, and is tested the
 * same way; natively only the medians' geometric means are shown. */
/* An open loop's throughput is the load its clients offer, whatever the
 * scheduler does, until the server falls behind -- and then makespan and
 * request latency say so: it is not work done, so it is shown and not
 * gated (docs/regress.md, "Metrics"). */
static bool offered_load(const struct rg_side *side, int c, int m)
{
	static int throughput = -2;
	if (throughput == -2)
		throughput = metric_index("throughput");
	return m == throughput && side->open_loop[c];
}

static bool geomean_row(const struct rg_result *r, int m, double t, struct rg_row *row)
{
	const struct rg_side *side = r->side, *old = r->base->side;
	int ns = side->nseeds, nc = 0;
	double lo = 0, ln = 0;
	double *g = xcalloc((size_t)ns, sizeof(*g));
	for (int c = 0; c < side->ncases; c++) {
		if (!side->ran[c] || offered_load(side, c, m))
			continue;
		bool all = true;
		for (int k = 0; k < ns && all; k++)
			all = *rg_at(old, c, m, k) > 0 && *rg_at(side, c, m, k) > 0 &&
			      isfinite(*rg_at(old, c, m, k)) && isfinite(*rg_at(side, c, m, k));
		if (!all)
			continue;
		double ov[ns], nv[ns];
		for (int k = 0; k < ns; k++) {
			ov[k] = *rg_at(old, c, m, k);
			nv[k] = *rg_at(side, c, m, k);
			g[k] += log(nv[k] / ov[k]);
		}
		lo += log(rs_median(ov, ns));
		ln += log(rs_median(nv, ns));
		nc++;
	}
	bool ok = nc >= 2;
	if (ok) {
		row->ncase = -1;
		row->old_med = exp(lo / nc);
		row->new_med = exp(ln / nc);
		row->old_spread = row->new_spread = NAN;
		if (r->native) {
			row->delta = row->new_med / row->old_med - 1;
			row->p_change = row->p_gate = NAN;
			row->n = nc;
		} else {
			for (int k = 0; k < ns; k++)
				g[k] = expm1(g[k] / nc);
			paired_test(row, g, ns, metric_table[m].better, t);
		}
	}
	free(g);
	return ok;
}

struct rg_result *rg_compare(const struct rg_baseline *base, const struct rg_side *side,
			     const double *threshold, double alpha, const char *new_desc)
{
	struct rg_result *r = xcalloc(1, sizeof(*r));
	r->native = base->native;
	r->alpha = alpha;
	r->nseeds = side->nseeds;
	r->suite = base->suite;
	r->base = base;
	r->side = side;
	r->new_desc = xstrdup(new_desc ? new_desc : "");
	r->metrics = xcalloc((size_t)NM, sizeof(*r->metrics));
	r->unreported = xcalloc((size_t)NM, sizeof(*r->unreported));
	for (int m = 0; m < NM; m++) {
		double t = threshold[m];
		if (isnan(t) && !base->suite->shown[m])
			continue;
		struct rg_metric_result *mr = &r->metrics[r->nmetrics];
		mr->metric = m;
		mr->threshold = t;
		mr->rows = xcalloc((size_t)side->ncases + 1, sizeof(*mr->rows));
		for (int c = 0; c < side->ncases; c++) {
			if (!side->ran[c] || !base->side->ran[c])
				continue;
			struct rg_row *row = &mr->rows[mr->nrows];
			bool offered = offered_load(side, c, m);
			double tc = offered ? NAN : t;
			if (r->native ? native_row(base, side, c, m, tc, row)
				      : sim_row(base, side, c, m, tc, row)) {
				row->open_loop = offered;
				r->open_loop_rows += offered && !isnan(t);
				mr->nrows++;
			}
		}
		if (geomean_row(r, m, t, &mr->rows[mr->nrows]))
			mr->nrows++;
		if (mr->nrows == 0) {
			free(mr->rows);
			if (!isnan(t))
				r->unreported[r->nunreported++] = m;
			continue;
		}
		for (int i = 0; i < mr->nrows; i++) {
			struct rg_row *row = &mr->rows[i];
			row->regression = !isnan(row->p_gate) && row->p_gate <= alpha;
			r->nregressions += row->regression;
		}
		r->nmetrics++;
	}
	return r;
}

void rg_result_free(struct rg_result *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nmetrics; i++)
		free(r->metrics[i].rows);
	free(r->metrics);
	free(r->unreported);
	free(r->new_desc);
	free(r);
}

/* ---- Reports ---- */

static const char *case_name(const struct rg_result *r, const struct rg_row *row)
{
	return row->ncase < 0 ? "geomean" : r->suite->cases[row->ncase].name;
}

static const char *fmt_value(char *b, size_t n, enum metric_unit unit, double v)
{
	double a = fabs(v);
	if (isnan(v))
		snprintf(b, n, "-");
	else if (unit == MU_NS) {
		if (a >= 1e9)
			snprintf(b, n, "%.3fs", v / 1e9);
		else if (a >= 1e6)
			snprintf(b, n, "%.3fms", v / 1e6);
		else if (a >= 1e3)
			snprintf(b, n, "%.2fµs", v / 1e3);
		else
			snprintf(b, n, "%.0fns", v);
	} else if (unit == MU_RATE) {
		if (a >= 1e6)
			snprintf(b, n, "%.4gM/s", v / 1e6);
		else if (a >= 1e3)
			snprintf(b, n, "%.4gk/s", v / 1e3);
		else
			snprintf(b, n, "%.4g/s", v);
	} else if (unit == MU_FRAC)
		snprintf(b, n, "%.2f%%", 100 * v);
	else
		snprintf(b, n, "%.6g", v);
	return b;
}

static const char *fmt_pct(char *b, size_t n, double f)
{
	if (isinf(f))
		snprintf(b, n, "%sinf", f > 0 ? "+" : "-");
	else if (isnan(f))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%+.2f%%", 100 * f);
	return b;
}

static const char *fmt_spread(char *b, size_t n, double s)
{
	if (isnan(s))
		snprintf(b, n, "%s", "");
	else
		snprintf(b, n, "± %.0f%%", 100 * s);
	return b;
}

/* benchstat's "vs base": the change, or "~" when it is not significant */
static const char *fmt_vs(char *b, size_t n, const struct rg_result *r, const struct rg_row *row)
{
	char d[32];
	if (isnan(row->p_change))
		snprintf(b, n, "%s (n=%d cases)", fmt_pct(d, sizeof(d), row->delta), row->n);
	else if (row->p_change > r->alpha)
		snprintf(b, n, "~ (p=%.3f n=%d)", row->p_change, row->n);
	else
		snprintf(b, n, "%s (p=%.3f n=%d)", fmt_pct(d, sizeof(d), row->delta), row->p_change,
			 row->n);
	return b;
}

static const char *fmt_gate(char *b, size_t n, const struct rg_row *row)
{
	if (row->open_loop)
		snprintf(b, n, "%s", "not gated: open loop");
	else if (isnan(row->p_gate))
		snprintf(b, n, "%s", "");
	else
		snprintf(b, n, "%s p=%.3f", row->regression ? "REGRESSION" : "ok", row->p_gate);
	return b;
}

/* Left-aligned in width characters (not bytes: "µs") */
static void pad(FILE *f, const char *s, int width)
{
	int chars = 0;
	for (const char *c = s; *c; c++)
		chars += ((unsigned char)*c & 0xc0) != 0x80;
	fputs(s, f);
	for (; chars < width; chars++)
		fputc(' ', f);
}

static const char *test_name(const struct rg_result *r)
{
	return r->native ? "Wilcoxon-Mann-Whitney rank-sum test (unpaired, exact), repetitions"
			 : "Wilcoxon signed-rank test (paired by seed, exact), seeds";
}

void rg_report_text(FILE *f, const struct rg_result *r)
{
	const struct rg_baseline *b = r->base;
	fprintf(f, "baseline: suite %s, %s, schedlab %s (%s), %d %s\n", b->suite->name,
		b->native ? "native" : "simulated", b->schedlab, b->commit, r->nseeds,
		b->native ? "repetitions" : "seeds");
	fprintf(f, "new:      schedlab %s (%s)%s%s\n", SCHEDLAB_VERSION, schedlab_commit(),
		*r->new_desc ? ", " : "", r->new_desc);
	fprintf(f, "test:     %s; alpha %.3g; gate: worse beyond the threshold\n", test_name(r),
		r->alpha);
	for (int i = 0; i < r->nmetrics; i++) {
		const struct rg_metric_result *mr = &r->metrics[i];
		const struct metric *m = &metric_table[mr->metric];
		char th[64] = "not gated";
		if (!isnan(mr->threshold))
			snprintf(th, sizeof(th), "gate: %s by more than %.4g%%",
				 m->better < 0 ? "higher" : "lower", 100 * mr->threshold);
		fprintf(f, "\n%s (%s is better; %s)\n", m->name, m->better < 0 ? "lower" : "higher", th);
		fprintf(f, "%-24s %-18s %-18s %-26s %s\n", "", "baseline", "new", "vs base", "gate");
		for (int k = 0; k < mr->nrows; k++) {
			const struct rg_row *row = &mr->rows[k];
			char ov[32], os[16], nv[32], ns[16], o[48], n[48], vs[64], g[48];
			snprintf(o, sizeof(o), "%s %s", fmt_value(ov, sizeof(ov), m->unit, row->old_med),
				 fmt_spread(os, sizeof(os), row->old_spread));
			snprintf(n, sizeof(n), "%s %s", fmt_value(nv, sizeof(nv), m->unit, row->new_med),
				 fmt_spread(ns, sizeof(ns), row->new_spread));
			pad(f, case_name(r, row), 25);
			pad(f, o, 19);
			pad(f, n, 19);
			pad(f, fmt_vs(vs, sizeof(vs), r, row), 27);
			fprintf(f, "%s\n", fmt_gate(g, sizeof(g), row));
		}
	}
	if (r->nunreported || r->open_loop_rows)
		fputc('\n', f);
	rg_report_unreported(f, "", r);
	rg_report_open_loops(f, "", r);
	fprintf(f, "\n%d regression%s beyond %s threshold%s\n", r->nregressions,
		r->nregressions == 1 ? "" : "s", r->nregressions == 1 ? "its" : "their",
		r->nregressions == 1 ? "" : "s");
}

void rg_report_markdown(FILE *f, const struct rg_result *r)
{
	const struct rg_baseline *b = r->base;
	fprintf(f, "## schedlab regress: %s\n\n",
		r->nregressions ? "**regression**" : "no regression");
	fprintf(f, "- baseline: suite `%s`, %s, schedlab %s (`%s`), %d %s\n", b->suite->name,
		b->native ? "native" : "simulated", b->schedlab, b->commit, r->nseeds,
		b->native ? "repetitions" : "seeds");
	fprintf(f, "- new: schedlab %s (`%s`)%s%s\n", SCHEDLAB_VERSION, schedlab_commit(),
		*r->new_desc ? ", " : "", r->new_desc);
	fprintf(f, "- test: %s; alpha %.3g\n", test_name(r), r->alpha);
	for (int i = 0; i < r->nmetrics; i++) {
		const struct rg_metric_result *mr = &r->metrics[i];
		const struct metric *m = &metric_table[mr->metric];
		fprintf(f, "\n### %s (%s is better", m->name, m->better < 0 ? "lower" : "higher");
		if (!isnan(mr->threshold))
			fprintf(f, "; gate %.4g%%", 100 * mr->threshold);
		fprintf(f, ")\n\n| case | baseline | new | vs base | gate |\n|---|---:|---:|---|---|\n");
		for (int k = 0; k < mr->nrows; k++) {
			const struct rg_row *row = &mr->rows[k];
			char ov[32], os[16], nv[32], ns[16], vs[64], g[48];
			fmt_gate(g, sizeof(g), row);
			fprintf(f, "| %s | %s %s | %s %s | %s | %s%s%s |\n", case_name(r, row),
				fmt_value(ov, sizeof(ov), m->unit, row->old_med),
				fmt_spread(os, sizeof(os), row->old_spread),
				fmt_value(nv, sizeof(nv), m->unit, row->new_med),
				fmt_spread(ns, sizeof(ns), row->new_spread), fmt_vs(vs, sizeof(vs), r, row),
				row->regression ? "**" : "", g, row->regression ? "**" : "");
		}
	}
	if (r->nunreported)
		fputc('\n', f);
	for (int i = 0; i < r->nunreported; i++)
		fprintf(f, "- **%s**: gated, but no case reports it: its gate was not applied\n",
			(&metric_table[r->unreported[i]])->name);
	if (r->open_loop_rows && !r->nunreported)
		fputc('\n', f);
	rg_report_open_loops(f, "- ", r);
	fprintf(f, "\n%d regression%s beyond %s threshold%s.\n", r->nregressions,
		r->nregressions == 1 ? "" : "s", r->nregressions == 1 ? "its" : "their",
		r->nregressions == 1 ? "" : "s");
}

static cJSON *num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* A row's figures in the JSON, in its order; null where there is none. */
static const struct {
	const char *key;
	size_t off;
} row_figures[] = {
	{ "old", offsetof(struct rg_row, old_med) },
	{ "new", offsetof(struct rg_row, new_med) },
	{ "old_spread", offsetof(struct rg_row, old_spread) },
	{ "new_spread", offsetof(struct rg_row, new_spread) },
	{ "delta", offsetof(struct rg_row, delta) },
	{ "p_change", offsetof(struct rg_row, p_change) },
	{ "p_gate", offsetof(struct rg_row, p_gate) },
};

cJSON *rg_report_json(const struct rg_result *r)
{
	const struct rg_baseline *b = r->base;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "verdict", r->nregressions ? "regression" : "ok");
	cJSON_AddNumberToObject(o, "regressions", r->nregressions);
	cJSON *bo = cJSON_AddObjectToObject(o, "baseline");
	cJSON_AddStringToObject(bo, "suite", b->suite->name);
	cJSON_AddStringToObject(bo, "schedlab", b->schedlab);
	cJSON_AddStringToObject(bo, "commit", b->commit);
	cJSON_AddStringToObject(bo, "mode", b->native ? "native" : "sim");
	cJSON *no = cJSON_AddObjectToObject(o, "new");
	cJSON_AddStringToObject(no, "schedlab", SCHEDLAB_VERSION);
	cJSON_AddStringToObject(no, "commit", schedlab_commit());
	cJSON_AddStringToObject(no, "change", r->new_desc);
	cJSON *cases = cJSON_AddArrayToObject(no, "cases");
	for (int c = 0; c < r->side->ncases; c++)
		if (r->side->ran[c]) {
			cJSON *co = cJSON_CreateObject();
			cJSON_AddStringToObject(co, "name", r->suite->cases[c].name);
			cJSON_AddStringToObject(co, "variant", r->side->variant[c] ? r->side->variant[c] : "");
			if (r->side->host[c])
				cJSON_AddItemToObject(co, "host", cJSON_Duplicate(r->side->host[c], true));
			cJSON_AddItemToArray(cases, co);
		}
	cJSON *t = cJSON_AddObjectToObject(o, "test");
	cJSON_AddStringToObject(t, "name", r->native ? "wilcoxon-mann-whitney" : "wilcoxon-signed-rank");
	cJSON_AddBoolToObject(t, "paired", !r->native);
	cJSON_AddNumberToObject(t, "alpha", r->alpha);
	cJSON_AddNumberToObject(t, "n", r->nseeds);
	cJSON *un = cJSON_AddArrayToObject(o, "unreported");
	for (int i = 0; i < r->nunreported; i++)
		cJSON_AddItemToArray(un, cJSON_CreateString((&metric_table[r->unreported[i]])->name));
	cJSON *ms = cJSON_AddArrayToObject(o, "metrics");
	for (int i = 0; i < r->nmetrics; i++) {
		const struct rg_metric_result *mr = &r->metrics[i];
		const struct metric *m = &metric_table[mr->metric];
		cJSON *mo = cJSON_CreateObject();
		cJSON_AddItemToArray(ms, mo);
		cJSON_AddStringToObject(mo, "metric", m->name);
		cJSON_AddStringToObject(mo, "path", m->path);
		cJSON_AddStringToObject(mo, "better", m->better < 0 ? "lower" : "higher");
		cJSON_AddItemToObject(mo, "threshold", num_or_null(mr->threshold));
		cJSON *rows = cJSON_AddArrayToObject(mo, "rows");
		for (int k = 0; k < mr->nrows; k++) {
			const struct rg_row *row = &mr->rows[k];
			cJSON *ro = cJSON_CreateObject();
			cJSON_AddItemToArray(rows, ro);
			cJSON_AddStringToObject(ro, "case", case_name(r, row));
			for (size_t f = 0; f < sizeof(row_figures) / sizeof(row_figures[0]); f++)
				cJSON_AddItemToObject(ro, row_figures[f].key, num_or_null(
					*(const double *)((const char *)row + row_figures[f].off)));
			cJSON_AddNumberToObject(ro, "n", row->n);
			cJSON_AddBoolToObject(ro, "regression", row->regression);
			if (row->open_loop)
				cJSON_AddBoolToObject(ro, "open_loop", true);
		}
	}
	return o;
}

void rg_report_regressions(FILE *f, const char *prefix, const struct rg_result *r)
{
	for (int i = 0; i < r->nmetrics; i++) {
		const struct rg_metric_result *mr = &r->metrics[i];
		const struct metric *m = &metric_table[mr->metric];
		for (int k = 0; k < mr->nrows; k++) {
			const struct rg_row *row = &mr->rows[k];
			if (!row->regression)
				continue;
			char d[32];
			fprintf(f, "%sregression: %s of %s %s (worse beyond its threshold of %.4g%%, p=%.4f, n=%d)\n",
				prefix, m->name, case_name(r, row), fmt_pct(d, sizeof(d), row->delta),
				100 * mr->threshold, row->p_gate, row->n);
		}
	}
}

void rg_report_open_loops(FILE *f, const char *prefix, const struct rg_result *r)
{
	if (!r->open_loop_rows)
		return;
	fprintf(f, "%sthroughput: not gated in %d open-loop case%s (its clients offer the load, so "
		"throughput is not work done; makespan and request latency gate an overload)\n",
		prefix, r->open_loop_rows, r->open_loop_rows == 1 ? "" : "s");
}

void rg_report_unreported(FILE *f, const char *prefix, const struct rg_result *r)
{
	for (int i = 0; i < r->nunreported; i++)
		fprintf(f, "%s%s: gated, but no case reports it: its gate was not applied\n", prefix,
			(&metric_table[r->unreported[i]])->name);
}
