/* `schedlab compare`: one workload under several policies -- or one policy
 * and variants of its knobs -- each run with the same seeds, and one table
 * of the report's metrics, a column per policy, each against the first
 * [docs/runtime.md, "Comparing policies"].  A run is made and reported by
 * run's own machinery (cli/run.h); the table reads the metrics back out of
 * each run's JSON report, so a metric a run did not produce is missing here
 * exactly as it is missing there. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_statistics_double.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "exp/matrix.h"
#include "exp/metric.h"
#include "util/output.h"
#include "exp/store.h"
#include "exp/spec.h"
#include "regress/stats.h"
#include "core/policy.h"
#include "topologies/topo.h"
#include "workloads/program.h"

#define CMD "compare"
#define MAX_SEEDS 10000

void cli_help_compare(FILE *f)
{
	fprintf(f,
		"usage: schedlab compare -p P1,P2,... [-t TOPOLOGY] [-w WORKLOAD] [--procs N|RULE]\n"
		"                        [--cpu-quota CPUS [--cpu-period T]] [--cpuset LIST] [--load N]\n"
		"                        [--seeds N] [--seed S] [--set KEY=VALUE ...] [-j N]\n"
		"                        [--why] [--json FILE|-] [--csv FILE|-] [--store FILE]\n"
		"                        [--max-sim-time T] [--max-wall-time T]\n"
		"                        [--max-memory SIZE]\n"
		"\n"
		"Runs one workload on one simulated machine under several policies, each with\n"
		"the same seeds, and prints one table: a row per metric, a column per policy,\n"
		"and for each column after the first its change relative to the first.\n"
		"Simulation only: there is no --native here.  Each run is a process of its\n"
		"own, N at once (docs/experiments.md); the table is the same for any N.\n"
		"\n");
	cli_opts_help(f, cli_compare_opts, CLI_OPT_HELP_COL - 2);
	fprintf(f,
		"\n"
		"The change of a column is (its mean - the first column's) / |the first column's|\n"
		"(rel_change, a fraction; shown as a percentage), or for a share (a fraction:\n"
		"the cpu and locality shares) the difference of the two in percentage points\n"
		"(pp_change; shown as +1.23 pp).  With 2 seeds or more its p is that of\n"
		"Wilcoxon's signed-rank test of the per-seed changes (paired, two-sided,\n"
		"exact), and as in benchstat a change that is not significant at 0.05 shows\n"
		"as \"~ (p=...)\".  A column's name carries the --set knobs its policy took\n"
		"(-p steal,numa --set lifo=0: steal and numa:lifo=0).  Throughput is in\n"
		"requests/s for a workload that answers requests, else in goroutines/s.\n"
		"A metric a run did not produce is \"-\" in the table and absent from JSON and CSV.\n"
		"\n"
		"Exit status: 0 every run completed; else that of the first run, in column and\n"
		"seed order, that did not: 1 it deadlocked, 2 it panicked, 3 it could not be\n"
		"started, 4 it was cut at a time limit, 128 + N its process was killed by\n"
		"signal N.  That run's summary and message are printed, naming its column and\n"
		"seed, and no table: every other run was made all the same (they run in\n"
		"parallel), and how many failed is said.  2 bad input.\n");
}

/* ---- Columns ---- */

/* One column of the table: a policy and its knobs, run once per seed. */
struct column {
	char *label;                   /* as -p gave it, with the --set knobs it took: "numa:lifo=0" */
	const struct pol_ops *pol;
	int64_t *knobs;
};

struct compare {
	struct column *cols;
	int ncols;
	uint64_t seed;                 /* the first */
	int nseeds;
	enum progress_when progress;
	cJSON *runs;                   /* every run's report, column by column, seed by seed */
	bool why;                      /* --why: the runs' waits by cause, a second table */
};

/* --why's rows: the mean scheduling latency of a G, then its part in each
 * cause (the report's why.all: the parts add up to the mean); then, where
 * the workload answers requests, a request's mean latency and its part in
 * each of its causes (why.requests) -- read as the table's metrics are,
 * from the runs' reports. */
#define WHY_ROWS (RT_WHY__COUNT + 1)
#define WHYRQ_ROWS (RT_WHYRQ__COUNT + 1)
#define NWHY (WHY_ROWS + WHYRQ_ROWS)
static struct metric why_table[NWHY];
static char why_paths[NWHY][64], why_labels[NWHY][48];

static void why_table_init(void)
{
	for (int i = 0; i < NWHY; i++) {
		bool rq = i >= WHY_ROWS;
		int k = rq ? i - WHY_ROWS : i;
		const char *key = rq ? "requests" : "all";
		if (k == 0) {
			snprintf(why_paths[i], sizeof(why_paths[i]), "why.%s.mean_ns", key);
			snprintf(why_labels[i], sizeof(why_labels[i]), rq ? "mean request" : "mean wait");
		} else {
			const char *cause = rq ? rt_whyrq_names[k - 1] : rt_why_names[k - 1];
			snprintf(why_paths[i], sizeof(why_paths[i]), "why.%s.causes.%s.mean_ns", key,
				 cause);
			snprintf(why_labels[i], sizeof(why_labels[i]), "  %s", cause);
		}
		why_table[i] = (struct metric){ .path = why_paths[i], .label = why_labels[i],
						.name = why_paths[i], .unit = MU_NS, .better = -1,
						.only_if_any = true };
	}
}

static void columns_free(struct compare *c)
{
	for (int i = 0; i < c->ncols; i++) {
		free(c->cols[i].label);
		free(c->cols[i].knobs);
	}
	free(c->cols);
}

/* Knob lists of the columns' policies, each policy once: "steal's knobs:
 * a, b; numa has no knobs". */
static void columns_knob_names(const struct compare *c, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < c->ncols; i++) {
		const struct pol_ops *pol = c->cols[i].pol;
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen = seen || c->cols[j].pol == pol;
		if (seen)
			continue;
		char names[512] = "";
		size_t len = 0;
		for (int k = 0; k < pol_nknobs(pol); k++)
			len = str_list_add(names, sizeof(names), len, pol->knobs[k].name);
		if (used < size)
			used += (size_t)snprintf(buf + used, size - used, "%s%s%s%s", used ? "; " : "",
						 pol->name, len ? "'s knobs: " : " has no knobs", names);
	}
}

/* Whether a column's label sets key itself ("numa:lifo=0" sets lifo). */
static bool label_sets(const char *label, const char *key)
{
	size_t klen = strlen(key);
	for (const char *a = strchr(label, ':'); a; a = strchr(a + 1, ':'))
		if (strncmp(a + 1, key, klen) == 0 && a[1 + klen] == '=')
			return true;
	return false;
}

/* -p P1,P2,... and --set: each column's policy and knobs, which are the
 * policy's defaults, then the --set values for the knobs it has, then its
 * own.  Returns 0 or the exit status of a message printed. */
static int columns_parse(struct compare *c, const char *spec, const char *const *sets, int nsets)
{
	const struct rt_api *api = &sim__rt_api;
	char *copy = xstrdup(spec);
	int n = 1;
	for (const char *p = spec; *p; p++)
		n += *p == ',';
	c->cols = xcalloc((size_t)n, sizeof(*c->cols));
	c->ncols = 0;
	int rc = 0;
	char *next = copy;
	/* each column's label and policy */
	for (int i = 0; i < n && rc == 0; i++) {
		char *item = next;
		char *comma = strchr(item, ',');
		if (comma)
			*comma = '\0';
		next = comma ? comma + 1 : NULL;
		if (*item == '\0') {
			rc = cli_usage_error(CMD, "-p %s: column %d is empty (expected POLICY or "
					     "POLICY:KEY=VALUE, separated by commas)", spec, i + 1);
			break;
		}
		struct column *col = &c->cols[c->ncols++];
		col->label = xstrdup(item);
		rc = cli_item_policy(CMD, api, col->label, "column", i + 1, &col->pol);
		if (rc)
			break;
		col->knobs = run_knobs_new(col->pol);
	}
	free(copy);
	/* --set, for each column whose policy has the knob */
	struct err e = { "" };
	for (int s = 0; s < nsets && rc == 0; s++) {
		const char *eq = strchr(sets[s], '=');
		if (!eq || eq == sets[s]) {
			rc = cli_usage_error(CMD, "--set %s: expected KEY=VALUE", sets[s]);
			break;
		}
		char key[128];
		snprintf(key, sizeof(key), "%.*s", (int)(eq - sets[s]), sets[s]);
		bool used = false;
		for (int i = 0; i < c->ncols && rc == 0; i++) {
			struct column *col = &c->cols[i];
			if (!pol_knob(col->pol, key, NULL))
				continue;
			used = true;
			if (!pol_set_knob(col->pol, col->knobs, sets[s], &e))
				rc = cli_usage_error(CMD, "%s", e.msg);
		}
		if (rc == 0 && !used) {
			char names[1024];
			columns_knob_names(c, names, sizeof(names));
			rc = cli_usage_error(CMD, "--set %s: no policy compared has a knob '%s' (%s)",
					     sets[s], key, names);
		}
	}
	/* the columns' own knobs */
	for (int i = 0; i < c->ncols && rc == 0; i++)
		rc = cli_item_knobs(CMD, c->cols[i].label, "column", i + 1, c->cols[i].pol,
				    c->cols[i].knobs, NULL);
	/* a column's name says what it ran: the --set values its policy took
	 * and its own knobs did not override join its label ("-p steal,numa
	 * --set lifo=0" compares steal with numa:lifo=0) */
	for (int i = 0; i < c->ncols && rc == 0; i++) {
		struct column *col = &c->cols[i];
		for (int s = 0; s < nsets; s++) {
			const char *eq = strchr(sets[s], '=');
			size_t klen = (size_t)(eq - sets[s]);
			char key[128];
			snprintf(key, sizeof(key), "%.*s", (int)klen, sets[s]);
			if (!pol_knob(col->pol, key, NULL) || label_sets(col->label, key))
				continue;
			char *label = NULL;
			if (asprintf(&label, "%s:%s", col->label, sets[s]) < 0)
				die_oom(strlen(col->label) + strlen(sets[s]) + 2);
			free(col->label);
			col->label = label;
		}
	}
	/* two columns that would run the same thing compare nothing */
	for (int i = 0; i < c->ncols && rc == 0; i++)
		for (int j = 0; j < i && rc == 0; j++)
			if (c->cols[i].pol == c->cols[j].pol &&
			    memcmp(c->cols[i].knobs, c->cols[j].knobs,
				   (size_t)pol_nknobs(c->cols[i].pol) * sizeof(int64_t)) == 0)
				rc = cli_usage_error(CMD, "-p %s: columns %d (%s) and %d (%s) are the same "
						     "policy with the same knobs", spec, j + 1,
						     c->cols[j].label, i + 1, c->cols[i].label);
	return rc;
}

/* ---- Metrics ---- */

/* The table's rows are the registry's (exp/metric.h), in its order. */

/* The item at path below a report's "metrics", or NULL. */
static const cJSON *metric_item(const cJSON *report, const char *path)
{
	if (strncmp(path, "why.", 4) == 0)
		return exp_json_dotted(report, path);     /* --why's rows */
	return exp_json_dotted(cJSON_GetObjectItemCaseSensitive(report, "metrics"), path);
}

/* The unit of m's values in report, if the report says one. */
static const char *report_unit(const cJSON *report, const struct metric *m)
{
	const cJSON *u = m->unit_path ? metric_item(report, m->unit_path) : NULL;
	return cJSON_IsString(u) ? u->valuestring : NULL;
}

/* m's unit as CSV and JSON name it: the first report's that has one (a
 * run whose report says another unit is left out of the metric), else
 * the metric's own. */
static const char *metric_unit(const struct compare *c, const struct metric *m)
{
	for (int i = 0; m->unit_path && i < cJSON_GetArraySize(c->runs); i++) {
		const char *u = report_unit(cJSON_GetArrayItem(c->runs, i), m);
		if (u)
			return u;
	}
	return metric_unit_name(m->unit);
}

/* A metric of a report, if the run produced it in the table's unit. */
static bool metric_value(const struct compare *c, const cJSON *report, const struct metric *m,
			 double *v)
{
	const cJSON *o = metric_item(report, m->path);
	if (!cJSON_IsNumber(o))
		return false;
	if (m->unit_path) {
		const char *u = report_unit(report, m);
		if (!u || strcmp(u, metric_unit(c, m)) != 0)
			return false;
	}
	*v = o->valuedouble;
	return true;
}

/* A metric over one column's runs: those that produced it. */
struct stat {
	int n;
	double mean;
	double ci95;                   /* half-width; with n >= 2 only */
	/* against the first column, seed by seed (columns after the first):
	 * Wilcoxon's signed-rank test of the per-seed changes, two-sided,
	 * exact -- regress's simulated test -- over the pairs that are not
	 * equal; NAN where fewer than two seeds have both values */
	double p;
	int pairs;
};

/* The significance level of the change column's "~" (benchstat's). */
#define COMPARE_ALPHA 0.05

static struct stat column_stat(const struct compare *c, int col, const struct metric *m)
{
	double *x = xcalloc((size_t)c->nseeds, sizeof(*x));
	double *d = xcalloc((size_t)c->nseeds, sizeof(*d));
	struct stat s = { 0, 0, 0, NAN, 0 };
	int paired = 0;
	for (int i = 0; i < c->nseeds; i++) {
		double base;
		if (!metric_value(c, cJSON_GetArrayItem(c->runs, col * c->nseeds + i), m, &x[s.n]))
			continue;
		/* the seed's change against the first column, as the change
		 * column shows it: in points for a share, else relative */
		if (col > 0 && metric_value(c, cJSON_GetArrayItem(c->runs, i), m, &base)) {
			if (m->unit == MU_FRAC)
				d[paired++] = x[s.n] - base;
			else if (base != 0)
				d[paired++] = (x[s.n] - base) / fabs(base);
			else
				d[paired++] = x[s.n] == 0 ? 0 : copysign(INFINITY, x[s.n]);
		}
		s.n++;
	}
	if (s.n >= 1)
		s.mean = gsl_stats_mean(x, 1, (size_t)s.n);
	if (s.n >= 2)
		s.ci95 = metric_ci95(s.n, gsl_stats_sd(x, 1, (size_t)s.n));
	if (paired > 1)
		s.p = rs_signrank_two(d, paired, &s.pairs);
	free(x);
	free(d);
	return s;
}

/* (b - a) / |a|, the change of b relative to a: false if either is
 * missing, or a is 0 and b is not. */
static bool rel_change(struct stat a, struct stat b, double *rel)
{
	if (a.n == 0 || b.n == 0 || (a.mean == 0 && b.mean != 0))
		return false;
	*rel = a.mean == 0 ? 0 : (b.mean - a.mean) / fabs(a.mean);
	return true;
}

/* For a share: (b - a) * 100, its change in percentage points (a relative
 * change of a tiny share is huge and says nothing).  False if either is
 * missing. */
static bool pp_change(struct stat a, struct stat b, double *pp)
{
	if (a.n == 0 || b.n == 0)
		return false;
	*pp = 100 * (b.mean - a.mean);
	return true;
}

/* ---- The table ---- */

/* Characters on screen, not bytes: '±' is two. */
static int text_width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void print_padded(const char *s, int width)
{
	printf("%*s%s", width - text_width(s), "", s);
}

/* "12.31 ms ±0.42": the mean, and the interval in the mean's unit (rate:
 * the unit the reports name). */
static void format_cell(char *buf, size_t size, const struct metric *m, const char *rate,
			struct stat s, int nseeds)
{
	metric_format_mean(buf, size, m, rate, s.mean, s.ci95, s.n, nseeds);
}

/* benchstat's "vs base": the change and its p, or "~" and the p when the
 * change is not significant; with one seed, the change alone. */
static void format_change(char *buf, size_t size, const struct metric *m, struct stat base,
			  struct stat s)
{
	double rel;
	char p[32] = "";
	if (!isnan(s.p))
		snprintf(p, sizeof(p), " (p=%.3f)", s.p);
	if (base.n == 0 || s.n == 0)
		snprintf(buf, size, "-");
	else if (!isnan(s.p) && s.p > COMPARE_ALPHA)
		snprintf(buf, size, "~%s", p);
	else if (m->unit == MU_FRAC && pp_change(base, s, &rel))
		snprintf(buf, size, "%+.2f pp%s", rel, p);
	else if (!rel_change(base, s, &rel))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%+.1f%%%s", 100 * rel, p);
}

#define CELL 64

/* The rows of tab (n metrics) shown, a column per policy with its
 * change against the first. */
static void print_rows(const struct compare *c, const struct metric *tab, int n, const bool *shown,
		       const struct stat *stats)
{
	int nc = c->ncols;
	char(*cells)[CELL] = xcalloc((size_t)(n * nc * 2), CELL);
	int label_w = 0;
	int *value_w = xcalloc((size_t)nc, sizeof(int));
	int change_w = (int)strlen("change");
	for (int j = 0; j < nc; j++)
		value_w[j] = text_width(c->cols[j].label);
	for (int i = 0; i < n; i++) {
		if (!shown[i])
			continue;
		if ((int)strlen(tab[i].label) > label_w)
			label_w = (int)strlen(tab[i].label);
		for (int j = 0; j < nc; j++) {
			char *v = cells[(i * nc + j) * 2], *d = cells[(i * nc + j) * 2 + 1];
			format_cell(v, CELL, &tab[i], metric_unit(c, &tab[i]), stats[i * nc + j],
				    c->nseeds);
			if (text_width(v) > value_w[j])
				value_w[j] = text_width(v);
			if (j > 0) {
				format_change(d, CELL, &tab[i], stats[i * nc], stats[i * nc + j]);
				if (text_width(d) > change_w)
					change_w = text_width(d);
			}
		}
	}
	printf("\n%-*s", label_w, "");
	for (int j = 0; j < nc; j++) {
		printf("  ");
		print_padded(c->cols[j].label, value_w[j]);
		if (j > 0) {
			printf("  ");
			print_padded("change", change_w);
		}
	}
	printf("\n");
	for (int i = 0; i < n; i++) {
		if (!shown[i])
			continue;
		printf("%-*s", label_w, tab[i].label);
		for (int j = 0; j < nc; j++) {
			printf("  ");
			print_padded(cells[(i * nc + j) * 2], value_w[j]);
			if (j > 0) {
				printf("  ");
				print_padded(cells[(i * nc + j) * 2 + 1], change_w);
			}
		}
		printf("\n");
	}
	free(value_w);
	free(cells);
}

static void print_heading(const struct compare *c, const struct run *run)
{
	int nc = c->ncols;
	const char *rule = gmp_rule_name(run->gmp.rule);
	printf("%s compare: topology %s, workload %s, %d Ps%s%s%s, ", run->api->mode, run->topo->name,
	       run->wl->name, run->procs, rule ? " (" : "", rule ? rule : "", rule ? ")" : "");
	if (c->nseeds == 1)
		printf("seed %llu\n", (unsigned long long)c->seed);
	else
		printf("seeds %llu..%llu\n", (unsigned long long)c->seed,
		       (unsigned long long)(c->seed + (uint64_t)c->nseeds - 1));
	const struct wl_recorded *rec = &run->wl->recorded;
	if (rec->present)
		/* an imported Go trace: what the program did when recorded */
		printf("recorded: Go %s trace, GOMAXPROCS %d: makespan %.3f ms, %lld goroutines "
		       "(the replay adds its main), sched latency p50 %.1f us, p99 %.1f us\n",
		       rec->go[0] ? rec->go : "?", rec->gomaxprocs, (double)rec->makespan_ns / 1e6,
		       (long long)rec->goroutines, (double)rec->lat_p50_ns / 1e3,
		       (double)rec->lat_p99_ns / 1e3);
	if (c->nseeds > 1)
		printf("each value: the mean over %d seeds ±95%% confidence interval (Student t)\n",
		       c->nseeds);
	if (nc > 1)
		printf("change: of the mean, relative to %s; of a share, in percentage points\n",
		       c->cols[0].label);
	if (nc > 1 && c->nseeds > 1) {
		printf("p: Wilcoxon's signed-rank test of the per-seed changes (paired, two-sided, "
		       "exact); ~: not significant at %g\n", COMPARE_ALPHA);
		if (rs_signrank_min_n(COMPARE_ALPHA / 2) > c->nseeds)
			printf("with %d seeds no change can be significant at %g (the smallest p is "
			       "%.3f): --seeds %d or more\n", c->nseeds, COMPARE_ALPHA,
			       ldexp(1, 1 - c->nseeds), rs_signrank_min_n(COMPARE_ALPHA / 2));
	}
}

/* ---- JSON and CSV ---- */

/* A number in the fewest digits from 15 to 17 that read back as itself. */
static const char *format_number(char buf[32], double v)
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, 32, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

/* Each latency distribution whole, a column's seeds' histograms added
 * up: its non-empty buckets, [bound_ns, count], as each run's report
 * gives them. */
static cJSON *distributions_json(const struct compare *c)
{
	static const char *const dists[] = { "sched_latency_ns", "request_latency_ns" };
	cJSON *o = cJSON_CreateObject();
	struct hist *h = xcalloc(1, sizeof(*h));
	for (size_t d = 0; d < sizeof(dists) / sizeof(dists[0]); d++) {
		cJSON *dist = NULL;
		for (int j = 0; j < c->ncols; j++) {
			memset(h, 0, sizeof(*h));
			for (int i = 0; i < c->nseeds; i++) {
				const cJSON *report = cJSON_GetArrayItem(c->runs, j * c->nseeds + i);
				const cJSON *b = cJSON_GetObjectItemCaseSensitive(
					metric_item(report, dists[d]), "buckets");
				const cJSON *pair;
				cJSON_ArrayForEach(pair, b)
				hist_add(h, (uint64_t)cJSON_GetArrayItem(pair, 0)->valuedouble,
					 (uint64_t)cJSON_GetArrayItem(pair, 1)->valuedouble);
			}
			if (!h->count)
				continue;
			if (!dist)
				dist = cJSON_AddObjectToObject(o, dists[d]);
			cJSON *col = cJSON_AddObjectToObject(dist, c->cols[j].label);
			cJSON_AddNumberToObject(col, "count", (double)h->count);
			cJSON_AddItemToObject(col, "buckets", run_hist_buckets_json(h));
		}
	}
	free(h);
	return o;
}

/* Each metric of tab (n) per column: mean, ci95, n, unit, the change
 * and its test. */
static cJSON *summary_json(const struct compare *c, const struct metric *tab, int n,
			   const struct stat *stats)
{
	cJSON *sum = cJSON_CreateObject();
	for (int i = 0; i < n; i++) {
		cJSON *m = NULL;
		for (int j = 0; j < c->ncols; j++) {
			struct stat s = stats[i * c->ncols + j];
			if (s.n == 0)
				continue;
			if (!m)
				m = cJSON_AddObjectToObject(sum, tab[i].path);
			cJSON *v = cJSON_AddObjectToObject(m, c->cols[j].label);
			cJSON_AddNumberToObject(v, "mean", s.mean);
			if (s.n >= 2)
				cJSON_AddNumberToObject(v, "ci95", s.ci95);
			cJSON_AddNumberToObject(v, "n", s.n);
			cJSON_AddStringToObject(v, "unit", metric_unit(c, &tab[i]));
			double ch;
			if (j > 0 && tab[i].unit == MU_FRAC) {
				if (pp_change(stats[i * c->ncols], s, &ch))
					cJSON_AddNumberToObject(v, "pp_change", ch);
			} else if (j > 0 && rel_change(stats[i * c->ncols], s, &ch)) {
				cJSON_AddNumberToObject(v, "rel_change", ch);
			}
			if (j > 0 && !isnan(s.p)) {
				cJSON_AddNumberToObject(v, "p", s.p);
				cJSON_AddNumberToObject(v, "pairs", s.pairs);
				cJSON_AddBoolToObject(v, "significant", s.p <= COMPARE_ALPHA);
			}
		}
	}
	return sum;
}

static cJSON *compare_json(struct compare *c, const struct run *run, const struct stat *stats)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "schedlab", SCHEDLAB_VERSION);
	cJSON *cmp = cJSON_AddObjectToObject(o, "compare");
	cJSON *pols = cJSON_AddArrayToObject(cmp, "policies");
	for (int j = 0; j < c->ncols; j++)
		cJSON_AddItemToArray(pols, cJSON_CreateString(c->cols[j].label));
	cJSON_AddStringToObject(cmp, "topology", run->topo->name);
	cJSON_AddStringToObject(cmp, "workload", run->wl->name);
	cJSON_AddNumberToObject(cmp, "procs", run->procs);
	run_os_limits_json(cmp, run);
	if (run->wl->recorded.present)
		cJSON_AddItemToObject(cmp, "recorded", run_recorded_json(run->wl, NULL, NULL));
	cJSON *seeds = cJSON_AddArrayToObject(cmp, "seeds");
	for (int i = 0; i < c->nseeds; i++)
		cJSON_AddItemToArray(seeds, cJSON_CreateNumber((double)(c->seed + (uint64_t)i)));
	cJSON *sum = summary_json(c, metric_table, metric_count, stats);
	if (c->why)
		cJSON_AddItemToObject(o, "why", summary_json(c, why_table, NWHY,
							    stats + metric_count * c->ncols));
	cJSON_AddItemToObject(o, "distributions", distributions_json(c));
	/* a copy: the table, printed after, reads the units from the runs */
	cJSON_AddItemToObject(o, "runs", cJSON_Duplicate(c->runs, true));
	cJSON_AddItemToObject(o, "summary", sum);
	return o;
}

static void csv_rows(FILE *f, const struct compare *c, const struct metric *tab, int n,
		     const struct stat *stats)
{
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < c->ncols; j++) {
			struct stat s = stats[i * c->ncols + j];
			if (s.n == 0)
				continue;
			char b[32];
			fprintf(f, "%s,%s,%s,", tab[i].path, c->cols[j].label,
				format_number(b, s.mean));
			if (s.n >= 2)
				fprintf(f, "%s", format_number(b, s.ci95));
			fprintf(f, ",%d,", s.n);
			double ch;
			bool frac = tab[i].unit == MU_FRAC;
			if (j > 0 && !frac && rel_change(stats[i * c->ncols], s, &ch))
				fprintf(f, "%s", format_number(b, ch));
			fprintf(f, ",");
			if (j > 0 && frac && pp_change(stats[i * c->ncols], s, &ch))
				fprintf(f, "%s", format_number(b, ch));
			fprintf(f, ",%s,", metric_unit(c, &tab[i]));
			if (j > 0 && !isnan(s.p))
				fprintf(f, "%s", format_number(b, s.p));
			fprintf(f, "\n");
		}
	}
}

static int write_csv(const char *path, const struct compare *c, const struct stat *stats)
{
	struct output o;
	if (!output_start(&o, CMD, "--csv", path))
		return EXIT_BADINPUT;
	FILE *f = o.f;
	fprintf(f, "metric,column,mean,ci95,n,rel_change,pp_change,unit,p\n");
	csv_rows(f, c, metric_table, metric_count, stats);
	if (c->why)
		csv_rows(f, c, why_table, NWHY, stats + metric_count * c->ncols);
	return output_finish(&o, CMD);
}

/* ---- The command ---- */

/* A column's knobs given -- the --set values its policy has, then its
 * own -- with the values run: the rows' "inputs.set". */
static cJSON *column_set(const struct column *col, const char *const *sets, int nsets)
{
	cJSON *set = cJSON_CreateObject();
	char *own = strchr(col->label, ':');
	char *knobs = own ? xstrdup(own + 1) : NULL;
	int nown = 0;
	const char *given[CLI_MAX_SETS + 64];
	for (int s = 0; s < nsets; s++)
		given[nown++] = sets[s];
	for (char *a = knobs, *end; a && nown < (int)(sizeof(given) / sizeof(given[0])); a = end) {
		end = strchr(a, ':');
		if (end)
			*end++ = '\0';
		given[nown++] = a;
	}
	for (int g = 0; g < nown; g++) {
		char key[128];
		const char *eq = strchr(given[g], '=');
		snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - given[g]) : 0, given[g]);
		int k;
		if (!pol_knob(col->pol, key, &k))
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(set, key);
		cJSON_AddNumberToObject(set, key, (double)col->knobs[k]);
	}
	free(knobs);
	return set;
}

/* Every run, column by column, seed by seed, made by the run-matrix engine
 * (exp/matrix.h) -jobs at a time; each report kept in c->runs.  A run that
 * deadlocks, panics, is cut at a time limit or dies ends the comparison as
 * it ends `run`: the first such run in column and seed order is shown --
 * its summary (or with --json -, its report), the message -- and its exit
 * status returned (1, 2, 4; a crash's 128 + the signal), with no table: a
 * cut run's figures would not be comparable with the others'.  The other
 * runs were made all the same (they ran in parallel). */
static int run_all(struct compare *c, struct run *run, const char *json, int jobs,
		   const char *const *sets, int nsets, const char *store)
{
	long n = (long)c->ncols * c->nseeds;
	struct exp_cell *cells = xcalloc((size_t)n, sizeof(*cells));
	cJSON **given = xcalloc((size_t)c->ncols, sizeof(*given));
	for (int j = 0; j < c->ncols; j++) {
		given[j] = column_set(&c->cols[j], sets, nsets);
		for (int i = 0; i < c->nseeds; i++) {
			long k = (long)j * c->nseeds + i;
			cells[k] = (struct exp_cell){
				.index = k, .variant = c->cols[j].label, .api = run->api,
				.pol = c->cols[j].pol, .knobs = c->cols[j].knobs, .set = given[j],
				.topo = run->topo, .wl = run->wl, .procs = run->procs,
				.gmp = run->gmp, .os = run->os, .seed = c->seed + (uint64_t)i, .max_sim_ns = run->lim.max_sim_ns,
				.max_wall_ns = run->lim.max_wall_ns, .max_memory = run->lim.max_memory,
				.why = c->why,
			};
		}
	}
	struct exp_opts eo = {
		.cmd = CMD,
		.jobs = jobs ? jobs : exp_default_jobs(cells, n, run->lim.max_memory),
		.progress = c->progress,
	};
	struct exp_run *runs = exp_matrix_run(cells, n, &eo);
	c->runs = cJSON_CreateArray();
	for (long k = 0; k < n; k++) {
		cJSON *report = cJSON_GetObjectItemCaseSensitive(runs[k].row, "report");
		cJSON_AddItemToArray(c->runs, cJSON_Duplicate(report, true));
	}
	int rc = 0;
	if (store) {
		cJSON **rows = xcalloc((size_t)n, sizeof(*rows));
		for (long k = 0; k < n; k++)
			rows[k] = runs[k].row;
		size_t len = strlen(store);
		rc = exp_store_save(CMD, "--store", store, len > 4 && strcmp(store + len - 4, ".csv") == 0,
				    rows, n);
		free(rows);
	}
	long first = rc ? -1 : exp_runs_first_failed(runs, n);
	if (first >= 0) {
		const struct exp_run *r = &runs[first];
		int j = (int)(first / c->nseeds);
		unsigned long long seed = (unsigned long long)cells[first].seed;
		long nfailed = 0;
		for (long k = first; k < n; k++)
			nfailed += strcmp(exp_row_status(runs[k].row), "ok") != 0;
		const char *status = exp_row_status(r->row);
		const cJSON *report = cJSON_GetArrayItem(c->runs, (int)first);
		rc = exp_row_exit_status(r->row);
		if (strcmp(status, "error") == 0 || strcmp(status, "crashed") == 0) {
			const cJSON *m = cJSON_GetObjectItemCaseSensitive(r->row, "message");
			fprintf(stderr, "schedlab %s: column %d (%s), seed %llu: %s\n", CMD, j + 1,
				c->cols[j].label, seed, cJSON_IsString(m) ? m->valuestring : status);
		} else {
			if (json && strcmp(json, "-") == 0)
				cli_write_json(CMD, json, report);
			else
				fputs(r->summary ? r->summary : "", stdout);
			fflush(stdout);
			fprintf(stderr, "schedlab %s: column %d (%s), seed %llu:\n%s", CMD, j + 1,
				c->cols[j].label, seed, r->messages ? r->messages : "");
		}
		if (nfailed > 1)
			fprintf(stderr, "schedlab %s: %ld of the %ld runs failed; the first, in column "
				"and seed order, is shown\n", CMD, nfailed, n);
	}
	exp_runs_free(runs, n);
	for (int j = 0; j < c->ncols; j++)
		cJSON_Delete(given[j]);
	free(given);
	free(cells);
	return rc;
}

/* compare's own options beside the shared ones: --seeds, --json, --csv,
 * --store, -j; --native is refused. */
struct compare_own {
	bool why;
	const char *json, *csv, *store;
	uint64_t nseeds;
	uint64_t jobs;                 /* 0: the default */
};

static int refuse_native(void *ctx, const char *cmd, const char *a, const char *v)
{
	return cli_usage_error(CMD, "--native: compare runs simulations only "
			       "(`schedlab run --native` runs one policy natively)");
}

static int own_store(void *ctx, const char *cmd, const char *a, const char *v)
{
	struct compare_own *c = ctx;
	if (strcmp(v, "-") == 0)
		return cli_usage_error(CMD, "--store -: name a file (stdout is the table's, "
				       "--json -'s or --csv -'s)");
	c->store = v;
	return 0;
}

const struct cli_opt cli_compare_opts[] = {
	CLI_SHARED_AS(CLI_SH_POLICY, "P1,P2,...",
		      "the columns: policies (see `schedlab list policies`),\n"
		      "each with knobs of its own if wanted, as\n"
		      "POLICY:KEY=VALUE[:KEY=VALUE...], so that a policy can be\n"
		      "compared with a variant of itself: -p steal,steal:runnext=0"),
	CLI_SHARED(CLI_SH_TOPOLOGY, NULL),
	CLI_SHARED(CLI_SH_WORKLOAD, NULL),
	CLI_SHARED(CLI_SH_PROCS, NULL),
	CLI_SHARED_OS,
	CLI_COUNT(NULL, "--seeds", "N", struct compare_own, nseeds, 1, MAX_SEEDS, NULL,
		  "runs per column, with the seeds S, S+1, ..., S+N-1\n"
		  "(default 1); from 2 on, a cell is the mean over the seeds\n"
		  "and its 95% confidence interval (Student t): 12.31 ms ±0.42"),
	CLI_SHARED_AS(CLI_SH_SEED, "S", NULL),
	CLI_SHARED(CLI_SH_SET, "set a knob in every column whose policy has it (repeatable);\n"
		   "a column's own KEY=VALUE wins; a key that no column's policy\n"
		   "has is an error"),
	CLI_COUNT("-j", "--jobs", "N", struct compare_own, jobs, 1, EXP_MAX_JOBS,
		  "expected a number of runs at once from %llu to %llu",
		  "make N runs at once (default: the online CPUs, but no more\n"
		  "than the available memory holds at --max-memory each);\n"
		  "each run may use up to --max-memory (default 4GiB) of\n"
		  "simulator memory, so N runs may use N times that"),
	CLI_SHARED(CLI_SH_PROGRESS, "progress (runs done, running, failed, elapsed, ETA) on\n"
		   "stderr: auto (default: redrawn on a terminal, else a line\n"
		   "every 10 s), always (else a line every 2 s, and the last),\n"
		   "never"),
	CLI_FLAG(NULL, "--why", struct compare_own, why,
		 "also where each column's scheduling latency went: a G's\n"
		 "mean wait cut into causes that add up to it (run --why),\n"
		 "and a request's mean latency likewise where the workload\n"
		 "answers requests, each against the first column's with its\n"
		 "test; \"why\" in --json, why.all.* and why.requests.* rows\n"
		 "in --csv"),
	CLI_STRING(NULL, "--json", "FILE|-", struct compare_own, json,
		   "write {\"compare\", \"distributions\", \"runs\", \"summary\"} to\n"
		   "FILE, or to stdout with - (then no table): \"runs\" holds\n"
		   "every run's report as `schedlab run --json` writes it,\n"
		   "column by column, seed by seed; \"summary\" each metric's\n"
		   "mean, ci95 and n per column; \"distributions\" each\n"
		   "latency histogram whole per column, its seeds' added up"),
	CLI_STRING(NULL, "--csv", "FILE|-", struct compare_own, csv,
		   "write a row per metric and column,\n"
		   "metric,column,mean,ci95,n,rel_change,pp_change,unit,p\n"
		   "to FILE, or to stdout with - (then no table); --json and\n"
		   "--csv may both be given (one of them to stdout at most)"),
	CLI_CALL(NULL, "--store", "FILE", own_store,
		 "write every run's row of the results store to FILE: JSON\n"
		 "lines, or CSV if FILE ends in .csv (docs/experiments.md);\n"
		 "written whether the runs completed or not"),
	CLI_SHARED_LIMITS,
	CLI_TEXT("                     (the limits apply to each run on its own)\n"),
	{ .kind = CLI_OPT_CALL, .lng = "--native", .call = refuse_native, .hidden = true,
	  .refused = true },
	CLI_END,
};

/* The options' combinations compare refuses, and the claims of its
 * outputs: 0, or an exit status after a message. */
static int compare_check(const struct cli_opts *o, const struct compare_own *own)
{
	const char *json = own->json, *csv = own->csv;
	uint64_t seed = o->seed, nseeds = own->nseeds;
	if (!o->policy)
		return cli_usage_error(CMD, "missing -p P1,P2,...");
	if (json && csv && strcmp(json, "-") == 0 && strcmp(csv, "-") == 0)
		return cli_usage_error(CMD, "--json - and --csv -: only one of them can write to "
				       "stdout");
	if (json && csv && strcmp(json, csv) == 0)
		return cli_usage_error(CMD, "--json and --csv both name %s", json);
	/* a store holds a seed as a JSON number, a double: exact to 2^53 */
	if (seed > EXP_MAX_SEED || nseeds - 1 > EXP_MAX_SEED - seed)
		return cli_usage_error(CMD, "--seed %llu --seeds %llu: the seeds pass 2^53 "
				       "(9007199254740992), the largest a store holds exactly",
				       (unsigned long long)seed, (unsigned long long)nseeds);
	int claim = json ? cli_out_claim(CMD, "--json", json) : 0;
	if (!claim && csv)
		claim = cli_out_claim(CMD, "--csv", csv);
	if (!claim && own->store && ((json && strcmp(json, own->store) == 0) ||
				     (csv && strcmp(csv, own->store) == 0)))
		return cli_usage_error(CMD, "--store %s: --%s names it too", own->store,
				       json && strcmp(json, own->store) == 0 ? "json" : "csv");
	if (!claim && own->store)
		claim = cli_out_claim(CMD, "--store", own->store);
	return claim;
}

/* The runs made: each metric's summary per column, as --csv, --json and
 * the table (unless one of them is stdout) give it. */
static int compare_report(struct compare *c, const struct run *run, const char *json,
			  const char *csv)
{
	int rc = 0;
	int nrows = metric_count + (c->why ? NWHY : 0);
	struct stat *stats = xcalloc((size_t)(nrows * c->ncols), sizeof(*stats));
	bool *shown = xcalloc((size_t)nrows, sizeof(bool));
	for (int i = 0; i < nrows; i++) {
		const struct metric *m = i < metric_count ? &metric_table[i]
							  : &why_table[i - metric_count];
		/* a cause: shown where it took time */
		bool why_row = i > metric_count && i != metric_count + WHY_ROWS;
		shown[i] = !m->only_if_any;
		for (int j = 0; j < c->ncols; j++) {
			struct stat st = column_stat(c, j, m);
			stats[i * c->ncols + j] = st;
			shown[i] = shown[i] || (st.n > 0 && (!why_row || st.mean > 0));
		}
	}
	if (csv)
		rc = write_csv(csv, c, stats);
	if (json && rc == 0) {
		cJSON *report = compare_json(c, run, stats);
		rc = cli_write_json(CMD, json, report);
		cJSON_Delete(report);
	}
	bool to_stdout = (json && strcmp(json, "-") == 0) || (csv && strcmp(csv, "-") == 0);
	if (rc == 0 && !to_stdout) {
		print_heading(c, run);
		print_rows(c, metric_table, metric_count, shown, stats);
		if (c->why) {
			printf("\nwhy: a G's mean scheduling latency cut into causes that add up to it "
			       "(run --why; docs/runtime.md)\n");
			print_rows(c, why_table, WHY_ROWS, shown + metric_count,
				   stats + metric_count * c->ncols);
			if (shown[metric_count + WHY_ROWS]) {
				printf("\nrequests: a request's mean latency, from its arrival to its "
				       "answer, cut into causes that add up to it (run --why)\n");
				print_rows(c, why_table + WHY_ROWS, WHYRQ_ROWS,
					   shown + metric_count + WHY_ROWS,
					   stats + (metric_count + WHY_ROWS) * c->ncols);
			}
		}
	}
	free(shown);
	free(stats);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct run limits = { .seed = 0 };
	struct cli_opts o = { .cmd = CMD, .limits = &limits };
	struct compare_own own = { .nseeds = 1 };
	const struct cli_own own_ops = { cli_help_compare, cli_compare_opts, &own };
	int rc = cli_parse_options(&o, argc, argv, &own_ops);
	if (rc || o.help)
		return rc;
	const char *json = own.json, *csv = own.csv;
	uint64_t seed = o.seed, nseeds = own.nseeds;
	rc = compare_check(&o, &own);
	if (rc)
		return rc;

	struct compare c = { .seed = seed, .nseeds = (int)nseeds };
	struct topo *topo = NULL;
	struct workload *wl = NULL;
	struct run *run = NULL;
	bool *cpuset = NULL;
	rc = columns_parse(&c, o.policy, o.sets, o.nsets);
	if (rc)
		goto out;
	/* a store's reader takes no matrix larger than EXP_MAX_RUNS */
	if ((uint64_t)c.ncols * nseeds > EXP_MAX_RUNS) {
		rc = cli_usage_error(CMD, "-p %s --seeds %llu: %d columns of %llu seeds pass %d runs, "
				     "the most a matrix has", o.policy, (unsigned long long)nseeds,
				     c.ncols, (unsigned long long)nseeds, EXP_MAX_RUNS);
		goto out;
	}
	bool is_trace;
	uint64_t trace_seed;
	rc = cli_load_inputs(o.topology, o.workload, &topo, &wl, &is_trace, &trace_seed);
	if (rc == 0 && is_trace) {
		/* a trace replays the draws of the seed it was expanded with */
		if (nseeds > 1)
			rc = cli_usage_error(CMD, "--seeds %llu: the trace %s replays the draws of one "
					     "seed, %llu", (unsigned long long)nseeds, o.workload,
					     (unsigned long long)trace_seed);
		else
			rc = cli_check_trace_seed(&o, trace_seed);
		c.seed = trace_seed;
	}
	if (rc)
		goto out;
	run = xcalloc(1, sizeof(*run));
	run->api = &sim__rt_api;
	run->topo = topo;
	run->wl = wl;
	rc = cli_os_apply(&o, false, run, &cpuset);
	if (rc)
		goto out;
	cli_os_procs(o.procs_rule, (long)o.procs, false, run);
	run->lim.max_sim_ns = limits.lim.max_sim_ns;
	run->lim.max_wall_ns = limits.lim.max_wall_ns;
	run->lim.max_memory = limits.lim.max_memory;

	c.progress = o.progress;
	c.why = own.why;
	if (c.why)
		why_table_init();
	rc = run_all(&c, run, json, (int)own.jobs, o.sets, o.nsets, own.store);
	if (rc == 0)
		rc = compare_report(&c, run, json, csv);
out:
	cJSON_Delete(c.runs);
	if (run)
		rt_mech_free(&run->mech);
	free(run);
	free(cpuset);
	wl_free(wl);
	topo_free(topo);
	columns_free(&c);
	return rc;
}
