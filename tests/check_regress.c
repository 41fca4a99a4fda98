/* `schedlab regress` (suite "regress"): the exact rank tests against
 * published tables and against enumeration, the suite and baseline
 * formats and their errors, and the gate end to end: no change and a tiny
 * change pass over several seed bases, a real regression fails naming its
 * metric and case. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exp/metric.h"
#include "regress/regress.h"
#include "regress/stats.h"
#include "util/util.h"
#include "tests/tests.h"

/* ---- The statistics ---- */

/* Wilcoxon's signed-rank critical values T (the largest T with
 * P(W <= T) <= alpha, one-sided) from the published tables (e.g. Siegel
 * & Castellan, Nonparametric Statistics, table H; the same in every
 * textbook). */
static const struct {
	int n;
	double alpha;
	int t;
} signrank_table[] = {
	{ 5, 0.05, 0 }, { 6, 0.05, 2 }, { 6, 0.025, 0 }, { 10, 0.05, 10 }, { 10, 0.025, 8 },
	{ 10, 0.01, 5 }, { 10, 0.005, 3 }, { 15, 0.05, 30 }, { 15, 0.025, 25 }, { 20, 0.05, 60 },
	{ 20, 0.025, 52 }, { 20, 0.01, 43 }, { 20, 0.005, 37 }, { 25, 0.025, 89 },
};

START_TEST(signrank_tables)
{
	for (size_t i = 0; i < sizeof(signrank_table) / sizeof(signrank_table[0]); i++) {
		int n = signrank_table[i].n, t = signrank_table[i].t;
		double a = signrank_table[i].alpha;
		ck_assert_msg(rs_signrank_cdf_lower(n, t) <= a, "n=%d: P(W<=%d)=%g > %g", n, t,
			      rs_signrank_cdf_lower(n, t), a);
		ck_assert_msg(rs_signrank_cdf_lower(n, t + 1) > a, "n=%d: P(W<=%d)=%g <= %g", n, t + 1,
			      rs_signrank_cdf_lower(n, t + 1), a);
		/* symmetric: the upper tail from the other end */
		ck_assert_double_eq_tol(rs_signrank_cdf_upper(n, n * (n + 1) / 2.0 - t),
					rs_signrank_cdf_lower(n, t), 1e-12);
	}
	/* exact probabilities: 43/1024, 1/32, 1/1024 */
	ck_assert_double_eq_tol(rs_signrank_cdf_lower(10, 10), 43.0 / 1024, 1e-12);
	ck_assert_double_eq_tol(rs_signrank_cdf_lower(5, 0), 1.0 / 32, 1e-15);
	ck_assert_double_eq_tol(rs_signrank_cdf_lower(10, 0), 1.0 / 1024, 1e-15);
	ck_assert_double_eq_tol(rs_signrank_cdf_lower(10, 55), 1, 1e-12);
	/* the smallest n that can reach 0.05 one-sided: 5 (1/32); the issue's
	 * two-sided test at n=5 could never (its smallest p is 1/16) */
	ck_assert_int_eq(rs_signrank_min_n(0.05), 5);
	ck_assert_int_eq(rs_signrank_min_n(0.01), 7);
	double five[] = { 0.1, 0.2, 0.3, 0.4, 0.5 };
	ck_assert_double_eq_tol(rs_signrank_upper(five, 5, NULL), 1.0 / 32, 1e-15);
	ck_assert_double_eq_tol(rs_signrank_two(five, 5, NULL), 1.0 / 16, 1e-15);
}
END_TEST

/* Every sign assignment of the ranks, for the exact p by enumeration. */
static double signrank_enum(const double *d, int n)
{
	double a[32], obs = 0;
	int m = 0;
	bool pos[32];
	for (int i = 0; i < n; i++)
		if (d[i] != 0) {
			a[m] = fabs(d[i]);
			pos[m++] = d[i] > 0;
		}
	double r[32];
	for (int i = 0; i < m; i++) {
		double less = 0, same = 0;
		for (int j = 0; j < m; j++) {
			less += a[j] < a[i];
			same += a[j] == a[i];
		}
		r[i] = less + (same + 1) / 2;
		if (pos[i])
			obs += r[i];
	}
	long hits = 0;
	for (long mask = 0; mask < (1L << m); mask++) {
		double w = 0;
		for (int i = 0; i < m; i++)
			if (mask & (1L << i))
				w += r[i];
		hits += w >= obs - 1e-9;
	}
	return m ? (double)hits / (double)(1L << m) : 1;
}

START_TEST(signrank_ties)
{
	/* |d| = 1, 1, 2, 3: midranks 1.5, 1.5, 3, 4; W+ = 7 reached or passed
	 * by 5 of the 16 sign assignments */
	double d[] = { 1, 1, -2, 3 };
	int used;
	ck_assert_double_eq_tol(rs_signrank_upper(d, 4, &used), 5.0 / 16, 1e-15);
	ck_assert_int_eq(used, 4);
	/* zeros are dropped */
	double z[] = { 0, 1, 0, 1, -2, 3 };
	ck_assert_double_eq_tol(rs_signrank_upper(z, 6, &used), 5.0 / 16, 1e-15);
	ck_assert_int_eq(used, 4);
	double none[] = { 0, 0, 0 };
	ck_assert_double_eq(rs_signrank_upper(none, 3, &used), 1);
	ck_assert_int_eq(used, 0);
	/* against enumeration, with many ties */
	unsigned s = 12345;
	for (int trial = 0; trial < 300; trial++) {
		int n = 1 + trial % 14;
		double v[16];
		for (int i = 0; i < n; i++) {
			s = s * 1103515245u + 12345u;
			v[i] = (double)((int)(s >> 16) % 9 - 3);   /* -3..5: ties and zeros */
		}
		ck_assert_double_eq_tol(rs_signrank_upper(v, n, NULL), signrank_enum(v, n), 1e-12);
	}
}
END_TEST

/* Mann-Whitney critical values U (one-sided), checked by enumeration
 * (P(U <= U_crit) <= alpha < P(U <= U_crit + 1)) and as in the published
 * tables. */
static const struct {
	int nx, ny;
	double alpha;
	int u;
} ranksum_table[] = {
	{ 5, 5, 0.05, 4 }, { 10, 10, 0.05, 27 }, { 5, 10, 0.05, 11 }, { 20, 20, 0.05, 138 },
	{ 4, 4, 0.05, 1 }, { 3, 3, 0.05, 0 },
};

START_TEST(ranksum_tables)
{
	for (size_t i = 0; i < sizeof(ranksum_table) / sizeof(ranksum_table[0]); i++) {
		int nx = ranksum_table[i].nx, ny = ranksum_table[i].ny, u = ranksum_table[i].u;
		double a = ranksum_table[i].alpha;
		ck_assert_msg(rs_ranksum_cdf_lower(nx, ny, u) <= a + 1e-12, "%d,%d: P(U<=%d)=%g", nx, ny,
			      u, rs_ranksum_cdf_lower(nx, ny, u));
		ck_assert_msg(rs_ranksum_cdf_lower(nx, ny, u + 1) > a, "%d,%d: P(U<=%d)=%g", nx, ny,
			      u + 1, rs_ranksum_cdf_lower(nx, ny, u + 1));
	}
	/* two-sided 0.05: U = 2 for 5 and 5, 23 for 10 and 10, 127 for 20 and 20 */
	ck_assert(rs_ranksum_cdf_lower(5, 5, 2) <= 0.025);
	ck_assert(rs_ranksum_cdf_lower(10, 10, 23) <= 0.025);
	ck_assert(rs_ranksum_cdf_lower(20, 20, 127) <= 0.025);
	ck_assert_double_eq_tol(rs_ranksum_cdf_lower(5, 5, 4), 12.0 / 252, 1e-12);
	ck_assert_double_eq_tol(rs_ranksum_cdf_lower(3, 3, 0), 1.0 / 20, 1e-12);
	/* 3 repetitions a side reach 0.05 (1/20) exactly; fewer never */
	ck_assert_int_eq(rs_ranksum_min_n(0.05), 3);
	ck_assert_int_eq(rs_ranksum_min_n(0.01), 5);
	double x[] = { 10, 11, 12 }, y[] = { 1, 2, 3 };
	ck_assert_double_eq_tol(rs_ranksum_upper(x, 3, y, 3), 1.0 / 20, 1e-15);
	ck_assert_double_eq_tol(rs_ranksum_upper(y, 3, x, 3), 1, 1e-15);
	ck_assert_double_eq_tol(rs_ranksum_two(x, 3, y, 3), 1.0 / 10, 1e-15);
}
END_TEST

/* P(sum of x's ranks >= observed) over every split, for ties. */
static double ranksum_enum(const double *x, int nx, const double *y, int ny)
{
	int N = nx + ny;
	double all[16], r[16], obs = 0;
	for (int i = 0; i < N; i++)
		all[i] = i < nx ? x[i] : y[i - nx];
	for (int i = 0; i < N; i++) {
		double less = 0, same = 0;
		for (int j = 0; j < N; j++) {
			less += all[j] < all[i];
			same += all[j] == all[i];
		}
		r[i] = less + (same + 1) / 2;
		if (i < nx)
			obs += r[i];
	}
	long hits = 0, total = 0;
	for (long mask = 0; mask < (1L << N); mask++) {
		if (__builtin_popcountl((unsigned long)mask) != nx)
			continue;
		double s = 0;
		for (int i = 0; i < N; i++)
			if (mask & (1L << i))
				s += r[i];
		total++;
		hits += s >= obs - 1e-9;
	}
	return (double)hits / (double)total;
}

START_TEST(ranksum_ties)
{
	unsigned s = 777;
	for (int trial = 0; trial < 200; trial++) {
		int nx = 1 + trial % 6, ny = 1 + (trial / 6) % 7;
		double x[8], y[8];
		for (int i = 0; i < nx; i++) {
			s = s * 1103515245u + 12345u;
			x[i] = (double)((s >> 16) % 5);
		}
		for (int i = 0; i < ny; i++) {
			s = s * 1103515245u + 12345u;
			y[i] = (double)((s >> 16) % 5);
		}
		ck_assert_double_eq_tol(rs_ranksum_upper(x, nx, y, ny), ranksum_enum(x, nx, y, ny),
					1e-12);
	}
}
END_TEST

/* Past the exact sizes, the normal approximation: the centre is 1/2 and
 * the tail of the table's critical value stays near alpha. */
START_TEST(normal_tails)
{
	int n = RS_SIGNRANK_EXACT_MAX + 50;
	double mean = n * (n + 1) / 4.0;
	ck_assert_double_eq_tol(rs_signrank_cdf_lower(n, mean), 0.5, 0.01);
	double sd = sqrt(n * (n + 1) * (2 * n + 1) / 24.0);
	ck_assert_double_eq_tol(rs_signrank_cdf_lower(n, mean - 1.6449 * sd), 0.05, 0.002);
	/* the exact distribution just below the switch agrees with it */
	int m = RS_SIGNRANK_EXACT_MAX;
	double mm = m * (m + 1) / 4.0, ms = sqrt(m * (m + 1) * (2 * m + 1) / 24.0);
	ck_assert_double_eq_tol(rs_signrank_cdf_lower(m, mm - 1.6449 * ms), 0.05, 0.002);
	double x[200], y[200];
	for (int i = 0; i < 200; i++) {
		x[i] = i;
		y[i] = i + 0.5;
	}
	ck_assert_double_eq_tol(rs_ranksum_upper(x, 200, y, 200), 0.5, 0.05);
	ck_assert_double_eq_tol(rs_median(x, 200), 99.5, 1e-12);
}
END_TEST

/* ---- Suites and baselines ---- */

static void suite_error(const char *text, const char *expect)
{
	struct err e = { "" };
	struct rg_suite *s = rg_suite_parse("s.json", text, &e);
	ck_assert_msg(s == NULL, "accepted: %s", text);
	ck_assert_msg(strstr(e.msg, expect) != NULL, "'%s' not in '%s'", expect, e.msg);
	ck_assert_msg(strncmp(e.msg, "s.json", 6) == 0, "no file in '%s'", e.msg);
}

/* A suite of n steal cases, seeds seeds each (0: the default). */
static char *many_cases(int n, int seeds)
{
	char *text = seeds ? xasprintf("{\"suite\": \"x\", \"seeds\": %d, \"cases\": [", seeds)
			   : xstrdup("{\"suite\": \"x\", \"cases\": [");
	for (int c = 0; c < n; c++) {
		char *more = xasprintf("%s%s{\"name\": \"c%d\", \"policy\": \"steal\", \"topology\": "
				       "\"numa1\", \"workload\": \"pingpong-hog\", \"procs\": 2}", text,
				       c ? ", " : "", c);
		free(text);
		text = more;
	}
	char *closed = xasprintf("%s]}", text);
	free(text);
	return closed;
}

START_TEST(suite_format)
{
	struct err e = { "" };
	struct rg_suite *s = rg_suite_default(&e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_ge(s->ncases, 10);
	ck_assert_int_ge(s->seeds, rs_signrank_min_n(0.05));
	/* every policy has cases, and every case says what it exercises */
	for (int p = 0; p < sim__rt_api.pol_count(); p++) {
		const char *pol = sim__rt_api.pol_at(p)->name;
		int n = 0;
		for (int c = 0; c < s->ncases; c++)
			n += strcmp(s->cases[c].policy, pol) == 0;
		ck_assert_msg(n >= 2, "%s: %d cases", pol, n);
	}
	for (int c = 0; c < s->ncases; c++)
		ck_assert_msg(s->cases[c].exercises && *s->cases[c].exercises, "%s", s->cases[c].name);
	ck_assert(isnan(s->threshold[metric_index("request_p50")]));
	ck_assert_double_eq_tol(s->threshold[metric_index("request_p99")], 0.05, 1e-12);
	rg_suite_free(s);

	s = rg_suite_parse("s.json", "{\"suite\": \"x\", \"cases\": [{\"name\": \"a\", \"policy\": "
			   "\"steal\", \"set\": {\"runnext\": 0}}], \"thresholds\": {\"makespan\": 3}}", &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_double_eq_tol(s->threshold[metric_index("makespan")], 0.03, 1e-12);
	ck_assert(isnan(s->threshold[metric_index("request_p99")]));
	ck_assert_str_eq(s->cases[0].topology, "numa4");
	ck_assert_int_eq(s->seeds, 8);
	rg_suite_free(s);

	suite_error("{\"suite\": \"x\", \"cases\": [{\"name\": \"a\", \"polcy\": \"steal\"}]}",
		    "$.cases[0].polcy: unknown key");
	suite_error("{\"suite\": \"x\", \"cases\": [{\"name\": \"a\", \"policy\": \"stael\"}]}",
		    "$.cases[0].policy: unknown policy \"stael\"");
	suite_error("{\"suite\": \"x\", \"cases\": [{\"name\": \"a\", \"policy\": \"steal\", "
		    "\"set\": {\"runext\": 0}}]}", "$.cases[0].set.runext");
	suite_error("{\"suite\": \"x\", \"cases\": [{\"name\": \"a\", \"policy\": \"steal\", "
		    "\"set\": {\"runnext\": 7}}]}", "$.cases[0].set.runnext");
	/* the range of --procs, from the one constant */
	suite_error("{\"suite\": \"x\", \"cases\": [{\"name\": \"a\", \"policy\": \"steal\", "
		    "\"procs\": 5000}]}", "$.cases[0].procs: must be between 1 and 4096, got 5000");
	suite_error("{\"suite\": \"x\", \"cases\": [{\"name\": \"a\", \"policy\": \"steal\", "
		    "\"procs\": 0}]}", "$.cases[0].procs: must be between 1 and 4096");
	s = rg_suite_parse("s.json", "{\"suite\": \"x\", \"cases\": [{\"name\": \"a\", \"policy\": "
			   "\"steal\", \"procs\": 4096}]}", &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(s->cases[0].procs, RT_MAX_PROCS);
	rg_suite_free(s);
	suite_error("{\"suite\": \"x\", \"cases\": [{\"name\": \"a\", \"policy\": \"steal\"}, "
		    "{\"name\": \"a\", \"policy\": \"numa\"}]}", "$.cases[1].name: \"a\" names case 0");
	suite_error("{\"suite\": \"x\", \"cases\": []}", "$.cases: expected 1 to");
	suite_error("{\"suite\": \"x\"}", "$.cases: missing");
	suite_error("{\"suite\": \"x\", \"cases\": [{\"name\": \"a\", \"policy\": \"steal\"}], "
		    "\"thresholds\": {\"p99\": \"5%\"}}", "$.thresholds.p99: unknown metric");
	suite_error("{\"suite\": \"x\", \"cases\": [{\"name\": \"a\", \"policy\": \"steal\"}], "
		    "\"thresholds\": {\"makespan\": \"five\"}}", "$.thresholds.makespan: expected a percentage");
	suite_error("{\"suite\": \"x\", \"seeds\": 0, \"cases\": [{\"name\": \"a\", \"policy\": \"steal\"}]}",
		    "$.seeds");
	suite_error("{\"suite\": \"x\", \"cases\": [{\"name\": \"a b\", \"policy\": \"steal\"}]}",
		    "$.cases[0].name");
	suite_error("{\"suite\": \"x\", \"cases\": [{\"name\": \"a\", \"policy\": \"steal\"}], \"show\": "
		    "[\"cpu\"]}", "$.show[0]: unknown metric");
	suite_error("{\"suite\": \"x\", \"cases\": [", "JSON syntax error");
	/* every run is held until the comparison: at most a run matrix's */
	char *big = many_cases(21, 1000);
	suite_error(big, "$.seeds: 21 cases x 1000 seeds is 21000 runs, more than the 20000");
	free(big);
	big = many_cases(20, 1000);
	s = rg_suite_parse("s.json", big, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(s->ncases * s->seeds, 20000);
	rg_suite_free(s);
	free(big);

	double f;
	ck_assert(rg_parse_pct("5%", &f) && fabs(f - 0.05) < 1e-12);
	ck_assert(rg_parse_pct("0.5", &f) && fabs(f - 0.005) < 1e-12);
	ck_assert(!rg_parse_pct("-1%", &f) && !rg_parse_pct("5%%", &f) && !rg_parse_pct("", &f));
	ck_assert_int_ge(metric_index("throughput"), 0);
	ck_assert_int_eq(metric_table[metric_index("throughput")].better, 1);
	ck_assert_int_eq(metric_table[metric_index("request_p99")].better, -1);
	ck_assert_str_eq(metric_table[metric_index("sched_p50")].path, "sched_latency_ns.p50");
}
END_TEST

/* ---- End to end ---- */

static char tmpdir[64];

static void make_tmp(void)
{
	test_tmpdir(tmpdir, sizeof(tmpdir), "regress");
}

static void clean_tmp(void)
{
	test_rm_rf(tmpdir);
}

static char *tmp_path(const char *name)
{
	char *p = NULL;
	ck_assert_int_ge(asprintf(&p, "%s/%s", tmpdir, name), 0);
	return p;
}

static char *write_tmp(const char *name, const char *text)
{
	char *p = tmp_path(name);
	FILE *f = fopen(p, "w");
	ck_assert(f != NULL);
	fputs(text, f);
	fclose(f);
	return p;
}

/* steal on rpc-short, a quarter of rpc-server on numa4's 64 Ps (its
 * makespan and latency depend on the spinning Ms and runnext; the whole
 * rpc-server shows the same at four times the CPU: 40 s of it for this
 * case before, 9 minutes' wall under ASan), and steal on pingpong-hog at
 * 4 Ps (runnext and the hog's time slice; deterministic over seeds) */
static const char *case_rpc(void)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf), "{\"name\": \"steal-rpc\", \"policy\": \"steal\", "
		 "\"workload\": \"%s/rpc-short.json\"}", test_data_dir());
	return buf;
}
#define CASE_PPH "{\"name\": \"steal-pph\", \"policy\": \"steal\", \"topology\": \"numa1\", " \
		 "\"workload\": \"pingpong-hog\", \"procs\": 4}"
#define THRESHOLDS "\"thresholds\": {\"makespan\": \"2%\", \"throughput\": \"2%\", \"sched_p50\": \"20%\"}, " \
		   "\"show\": [\"request_p50\", \"cpu_user\", \"cpu_sched\", \"mem_local\", \"cache_hit\"]"

/* A suite of the cases given (more: NULL or another one). */
static char *make_suite(const char *name, long seed, const char *cases, const char *more)
{
	char *text = NULL;
	ck_assert_int_ge(asprintf(&text, "{\"suite\": \"t\", \"seeds\": 5, \"seed\": %ld, %s, "
				  "\"cases\": [%s%s%s]}", seed, THRESHOLDS, cases, more ? ", " : "",
				  more ? more : ""), 0);
	char *p = write_tmp(name, text);
	free(text);
	return p;
}

static int regress(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int regress(char **out, char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *args = NULL;
	ck_assert_int_ge(vasprintf(&args, fmt, ap), 0);
	va_end(ap);
	char *full = NULL;
	ck_assert_int_ge(asprintf(&full, "regress -j 2 %s", args), 0);
	int rc = test_schedlab(full, out, err);
	free(full);
	free(args);
	return rc;
}

/* No change passes; a change too small for the thresholds (the global
 * queue checked every 60th schedule instead of 61st: the latencies move,
 * makespan and throughput by tenths of a percent) passes too; over
 * several seed bases. */
START_TEST(no_change_passes)
{
	make_tmp();
	const long bases[] = { 1, 1000, 777777 };
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		char *suite = make_suite("s.json", bases[i], case_rpc(), NULL);
		char *base = tmp_path("b.json"), *json = tmp_path("r.json");
		char *out, *err;
		int rc = regress(&out, &err, "--baseline %s --update --suite %s", base, suite);
		ck_assert_msg(rc == 0, "update: %s", err);
		ck_assert_ptr_nonnull(strstr(out, "wrote baseline"));
		free(out);
		free(err);
		rc = regress(&out, &err, "--baseline %s --json %s", base, json);
		ck_assert_msg(rc == 0, "seed base %ld, no change: rc %d: %s%s", bases[i], rc, out, err);
		ck_assert_ptr_nonnull(strstr(out, "0 regressions"));
		ck_assert_ptr_nonnull(strstr(out, "steal-rpc"));
		free(out);
		free(err);
		/* the report's numbers are the runs' to the last bit: a case's
		 * median of 5 seeds is one of the baseline's values */
		char *btext = test_read_file(base), *rtext = test_read_file(json);
		cJSON *bj = cJSON_Parse(btext), *rj = cJSON_Parse(rtext);
		const cJSON *vals = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(bj, "cases"), 0),
							"values");
		const cJSON *mm;
		int checked = 0;
		cJSON_ArrayForEach(mm, cJSON_GetObjectItem(rj, "metrics")) {
			const cJSON *a = cJSON_GetObjectItem(vals, cJSON_GetObjectItem(mm, "metric")->valuestring);
			const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(mm, "rows"), 0);
			double old = cJSON_GetObjectItem(row, "old")->valuedouble;
			bool found = false;
			const cJSON *v;
			cJSON_ArrayForEach(v, a)
				found |= v->valuedouble == old;
			ck_assert_msg(found, "%s: %.17g is not a baseline value",
				      cJSON_GetObjectItem(mm, "metric")->valuestring, old);
			ck_assert(cJSON_GetObjectItem(row, "new")->valuedouble == old);
			checked++;
		}
		ck_assert_int_ge(checked, 8);
		cJSON_Delete(bj);
		cJSON_Delete(rj);
		free(btext);
		free(rtext);
		rc = regress(&out, &err, "--baseline %s --set global_check_interval=60 --json %s", base,
			     json);
		ck_assert_msg(rc == 0, "seed base %ld, tiny change: rc %d: %s%s", bases[i], rc, out, err);
		free(out);
		free(err);
		/* the change did change something: not a comparison of identical runs */
		char *text = test_read_file(json);
		cJSON *j = cJSON_Parse(text);
		ck_assert_ptr_nonnull(j);
		ck_assert_str_eq(cJSON_GetObjectItem(j, "verdict")->valuestring, "ok");
		bool moved = false;
		const cJSON *m;
		cJSON_ArrayForEach(m, cJSON_GetObjectItem(j, "metrics")) {
			const cJSON *row;
			cJSON_ArrayForEach(row, cJSON_GetObjectItem(m, "rows")) {
				const cJSON *d = cJSON_GetObjectItem(row, "delta");
				moved |= cJSON_IsNumber(d) && d->valuedouble != 0;
			}
		}
		ck_assert_msg(moved, "seed base %ld: global_check_interval=60 changed nothing", bases[i]);
		cJSON_Delete(j);
		free(text);
		free(suite);
		free(base);
		free(json);
	}
	clean_tmp();
}
END_TEST

/* Real regressions: no spinning Ms (makespan and throughput on RPC
 * load), no runnext (the ping-pong's scheduling latency). */
START_TEST(regression_fails)
{
	make_tmp();
	char *suite = make_suite("s.json", 1, case_rpc(), CASE_PPH);
	char *base = tmp_path("b.json"), *md = tmp_path("r.md"), *json = tmp_path("r.json");
	char *out, *err;
	int rc = regress(&out, &err, "--baseline %s --update --suite %s", base, suite);
	ck_assert_msg(rc == 0, "update: %s", err);
	free(out);
	free(err);

	rc = regress(&out, &err, "--baseline %s -p steal:spinning_max_pct=0 --markdown %s --json %s",
		     base, md, json);
	ck_assert_msg(rc == 1, "rc %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(err, "regression: makespan of steal-rpc") != NULL, "%s", err);
	/* an open loop's throughput is the load offered: shown, not gated,
	 * and said so */
	ck_assert_msg(strstr(err, "regression: throughput of steal-rpc") == NULL, "%s", err);
	ck_assert_msg(strstr(out, "not gated: open loop") &&
		      strstr(out, "throughput: not gated in 1 open-loop case "), "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "REGRESSION"));
	char *text = test_read_file(md);
	ck_assert_ptr_nonnull(strstr(text, "| case | baseline | new | vs base | gate |"));
	ck_assert_ptr_nonnull(strstr(text, "**regression**"));
	free(text);
	text = test_read_file(json);
	cJSON *j = cJSON_Parse(text);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "verdict")->valuestring, "regression");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "test"), "name")->valuestring,
			 "wilcoxon-signed-rank");
	/* makespan: a row per case and the geometric mean over both, each
	 * paired over the 5 seeds */
	const cJSON *m, *geo = NULL;
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(j, "metrics")) {
		if (strcmp(cJSON_GetObjectItem(m, "metric")->valuestring, "makespan") != 0)
			continue;
		ck_assert_double_eq_tol(cJSON_GetObjectItem(m, "threshold")->valuedouble, 0.02, 1e-12);
		const cJSON *rows = cJSON_GetObjectItem(m, "rows");
		ck_assert_int_eq(cJSON_GetArraySize(rows), 3);
		geo = cJSON_GetArrayItem(rows, 2);
	}
	ck_assert_ptr_nonnull(geo);
	/* throughput: the open loop's row ungated, the goroutine workload's
	 * gated, and no geometric mean of one gated case */
	int tput_rows = 0;
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(j, "metrics")) {
		if (strcmp(cJSON_GetObjectItem(m, "metric")->valuestring, "throughput") != 0)
			continue;
		const cJSON *row;
		cJSON_ArrayForEach(row, cJSON_GetObjectItem(m, "rows")) {
			bool rpc = strcmp(cJSON_GetObjectItem(row, "case")->valuestring, "steal-rpc") == 0;
			ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(row, "open_loop")) == rpc);
			ck_assert(cJSON_IsNull(cJSON_GetObjectItem(row, "p_gate")) == rpc);
			tput_rows++;
		}
	}
	ck_assert_int_eq(tput_rows, 2);
	ck_assert_str_eq(cJSON_GetObjectItem(geo, "case")->valuestring, "geomean");
	ck_assert_int_eq((int)cJSON_GetObjectItem(geo, "n")->valuedouble, 5);
	ck_assert(cJSON_GetObjectItem(geo, "delta")->valuedouble > 0);
	cJSON_Delete(j);
	free(text);
	free(out);
	free(err);

	rc = regress(&out, &err, "--baseline %s --set runnext=0", base);
	ck_assert_msg(rc == 1, "rc %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(err, "regression: sched_p50 of steal-pph") != NULL, "%s", err);
	free(out);
	free(err);
	/* the same change under a threshold above it passes */
	rc = regress(&out, &err, "--baseline %s --set runnext=0 --max-regress sched_p50=1000%%", base);
	ck_assert_msg(rc == 0, "rc %d: %s%s", rc, out, err);
	free(out);
	free(err);
	free(suite);
	free(base);
	free(md);
	free(json);
	clean_tmp();
}
END_TEST

static void bad(const char *args, const char *expect)
{
	char *out, *err;
	int rc = regress(&out, &err, "%s", args);
	ck_assert_msg(rc == 2, "%s: rc %d: %s", args, rc, err);
	ck_assert_msg(strstr(err, expect) != NULL, "%s: '%s' not in '%s'", args, expect, err);
	free(out);
	free(err);
}

START_TEST(bad_input)
{
	make_tmp();
	char *suite = make_suite("s.json", 1, CASE_PPH, NULL);
	char *base = tmp_path("b.json");
	char *out, *err;
	int rc = regress(&out, &err, "--baseline %s --update --suite %s", base, suite);
	ck_assert_msg(rc == 0, "update: %s", err);
	free(out);
	free(err);
	char *text = test_read_file(base), *args = NULL;
	/* the baseline holds version, commit, the suite, per-seed values */
	cJSON *j = cJSON_Parse(text);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "schedlab")->valuestring, SCHEDLAB_VERSION);
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(j, "commit"));
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "suite"), "suite")->valuestring, "t");
	cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "cases"), 0);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(c0, "values"),
								 "makespan")), 5);

	/* a value too few */
	cJSON_DeleteItemFromArray(cJSON_GetObjectItem(cJSON_GetObjectItem(c0, "values"), "makespan"), 0);
	char *p = cJSON_Print(j);
	char *b2 = write_tmp("b2.json", p);
	free(p);
	ck_assert_int_ge(asprintf(&args, "--baseline %s", b2), 0);
	bad(args, "$.cases[0].values.makespan: expected 5 values");
	free(args);
	cJSON_AddStringToObject(j, "extra", "x");
	p = cJSON_Print(j);
	char *b3 = write_tmp("b3.json", p);
	free(p);
	ck_assert_int_ge(asprintf(&args, "--baseline %s", b3), 0);
	bad(args, "$.extra: unknown key");
	free(args);
	cJSON_Delete(j);
	char *b4 = write_tmp("b4.json", "{\"regress_baseline\": 1,");
	ck_assert_int_ge(asprintf(&args, "--baseline %s", b4), 0);
	bad(args, "JSON syntax error");
	free(args);
	ck_assert_int_ge(asprintf(&args, "--baseline %s/none.json", tmpdir), 0);
	char *expect = NULL;
	ck_assert_int_ge(asprintf(&expect, "schedlab regress: %s/none.json", tmpdir), 0);
	bad(args, expect);
	free(expect);
	free(args);

	char *badsuite = write_tmp("bad.json", "{\"suite\": \"t\", \"cases\": [{\"name\": \"a\", "
				   "\"policy\": \"steal\", \"workload\": \"rpc-server\", \"prcs\": 4}]}");
	ck_assert_int_ge(asprintf(&args, "--baseline %s/x.json --update --suite %s", tmpdir, badsuite), 0);
	bad(args, "$.cases[0].prcs: unknown key");
	free(args);
	char *badwl = write_tmp("badwl.json", "{\"suite\": \"t\", \"cases\": [{\"name\": \"a\", "
				"\"policy\": \"steal\", \"workload\": \"no-such-workload\"}]}");
	ck_assert_int_ge(asprintf(&args, "--baseline %s/x.json --update --suite %s", tmpdir, badwl), 0);
	bad(args, "no-such-workload");
	free(args);
	/* a --suite that is not the baseline's */
	char *other = make_suite("o.json", 2, CASE_PPH, NULL);
	ck_assert_int_ge(asprintf(&args, "--baseline %s --suite %s", base, other), 0);
	bad(args, "is not the suite baseline");
	free(args);
	/* too few seeds ever to reject */
	ck_assert_int_ge(asprintf(&args, "--baseline %s --seeds 4", base), 0);
	bad(args, "with fewer than 5 seeds the signed-rank test can never reach p <= 0.05");
	free(args);
	/* the seeds are the baseline's: --alpha is what asks for more */
	ck_assert_int_ge(asprintf(&args, "--baseline %s --alpha 0.01", base), 0);
	ck_assert_int_ge(asprintf(&expect, "schedlab regress: --alpha 0.01: baseline %s has 5 seeds: "
				  "with fewer than 7 seeds the signed-rank test can never reach p <= 0.01",
				  base), 0);
	bad(args, expect);
	free(expect);
	free(args);
	ck_assert_int_ge(asprintf(&args, "--baseline %s --seeds 6", base), 0);
	bad(args, "--seeds 6: baseline");
	free(args);
	ck_assert_int_ge(asprintf(&args, "--baseline %s/y.json --update --suite %s --seeds 3", tmpdir,
				  suite), 0);
	bad(args, "can never");
	free(args);
	char *text21 = many_cases(21, 5);
	char *s21 = write_tmp("s21.json", text21);
	ck_assert_int_ge(asprintf(&args, "--baseline %s/z.json --update --suite %s --seeds 1000",
				  tmpdir, s21), 0);
	bad(args, "schedlab regress: --seeds 1000: 21 cases x 1000 seeds is 21000 runs, more than "
	    "the 20000");
	free(args);
	free(text21);
	free(s21);
	ck_assert_int_ge(asprintf(&args, "--baseline %s -p stael", base), 0);
	bad(args, "-p stael: unknown policy");
	free(args);
	ck_assert_int_ge(asprintf(&args, "--baseline %s -p numa", base), 0);
	bad(args, "--against POLICY");
	free(args);
	ck_assert_int_ge(asprintf(&args, "--baseline %s --set nosuchknob=1", base), 0);
	bad(args, "--set nosuchknob=1");
	free(args);
	ck_assert_int_ge(asprintf(&args, "--baseline %s --max-regress p99=5%%", base), 0);
	bad(args, "unknown metric 'p99'");
	free(args);
	ck_assert_int_ge(asprintf(&args, "--baseline %s --max-regress makespan=lots", base), 0);
	bad(args, "expected a percentage");
	free(args);
	ck_assert_int_ge(asprintf(&args, "--baseline %s -w rpc-server", base), 0);
	bad(args, "-w: the suite gives");
	free(args);
	ck_assert_int_ge(asprintf(&args, "--baseline %s --native", base), 0);
	bad(args, "is simulated and this run is native");
	free(args);
	ck_assert_int_ge(asprintf(&args, "--baseline %s --update -p steal", base), 0);
	bad(args, "--update writes the baseline");
	free(args);
	bad("--update", "missing --baseline");

	/* -p with --against: numa in place of steal's cases */
	char *json = tmp_path("r.json");
	rc = regress(&out, &err, "--baseline %s -p numa --against steal --max-regress "
		     "makespan=off,throughput=off,sched_p50=off --json %s", base, json);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	free(out);
	free(err);
	char *rj = test_read_file(json);
	j = cJSON_Parse(rj);
	const cJSON *nc = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "new"), "cases"), 0);
	ck_assert_str_eq(cJSON_GetObjectItem(nc, "variant")->valuestring, "numa");
	cJSON_Delete(j);
	free(rj);
	free(json);
	free(text);
	free(suite);
	free(base);
	free(b2);
	free(b3);
	free(b4);
	free(badsuite);
	free(badwl);
	free(other);
	clean_tmp();
}
END_TEST

/* A gate on a metric no case reports (pingpong-hog answers no requests)
 * cannot fire: every report says so rather than leaving it out. */
START_TEST(unreported_gate)
{
	make_tmp();
	char *suite = write_tmp("s.json", "{\"suite\": \"u\", \"seeds\": 5, \"thresholds\": "
				"{\"request_p99\": \"5%\", \"makespan\": \"2%\"}, \"cases\": [" CASE_PPH "]}");
	char *base = tmp_path("b.json"), *md = tmp_path("r.md"), *json = tmp_path("r.json");
	char *out, *err;
	int rc = regress(&out, &err, "--baseline %s --update --suite %s", base, suite);
	ck_assert_msg(rc == 0, "update: %s", err);
	free(out);
	free(err);
	rc = regress(&out, &err, "--baseline %s --markdown %s --json %s", base, md, json);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	const char *said = "request_p99: gated, but no case reports it";
	ck_assert_msg(strstr(err, "schedlab regress: warning: request_p99: gated, but no case") != NULL,
		      "%s", err);
	ck_assert_msg(strstr(out, said) != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\nmakespan ") != NULL, "%s", out);
	char *text = test_read_file(md);
	ck_assert_msg(strstr(text, "**request_p99**: gated, but no case reports it") != NULL, "%s", text);
	free(text);
	text = test_read_file(json);
	cJSON *j = cJSON_Parse(text);
	const cJSON *un = cJSON_GetObjectItem(j, "unreported");
	ck_assert_int_eq(cJSON_GetArraySize(un), 1);
	ck_assert_str_eq(cJSON_GetArrayItem(un, 0)->valuestring, "request_p99");
	cJSON_Delete(j);
	free(text);
	free(out);
	free(err);
	/* ungated, it is not mentioned */
	rc = regress(&out, &err, "--baseline %s --max-regress request_p99=off", base);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_ptr_null(strstr(err, "request_p99"));
	ck_assert_ptr_null(strstr(out, "request_p99"));
	free(out);
	free(err);
	free(suite);
	free(base);
	free(md);
	free(json);
	clean_tmp();
}
END_TEST

/* A run of the new side that deadlocks is what the gate is for (exit 1,
 * naming case and seed); a baseline run that does is not a baseline
 * (exit 2, nothing written). */
START_TEST(failing_runs)
{
	make_tmp();
	char *wl = write_tmp("w.json", "{\"name\": \"w\", \"programs\": {\"main\": [{\"compute\": 1000}]}}");
	char *text = NULL;
	ck_assert_int_ge(asprintf(&text, "{\"suite\": \"f\", \"seeds\": 5, \"cases\": [{\"name\": "
				  "\"w\", \"policy\": \"steal\", \"topology\": \"numa1\", \"procs\": 2, "
				  "\"workload\": \"%s\"}]}", wl), 0);
	char *suite = write_tmp("s.json", text);
	char *base = tmp_path("b.json"), *out, *err;
	int rc = regress(&out, &err, "--baseline %s --update --suite %s", base, suite);
	ck_assert_msg(rc == 0, "update: %s", err);
	free(out);
	free(err);
	/* the same path, now a workload that deadlocks */
	free(write_tmp("w.json", "{\"name\": \"w\", \"channels\": {\"never\": 0},\n"
		       " \"programs\": {\"main\": [{\"recv\": \"never\"}]}}\n"));
	rc = regress(&out, &err, "--baseline %s", base);
	ck_assert_msg(rc == 1, "rc %d: %s", rc, err);
	ck_assert_msg(strstr(err, "case w (steal), seed 1: deadlock") != NULL, "%s", err);
	ck_assert_msg(strstr(err, "5 runs failed") != NULL, "%s", err);
	free(out);
	free(err);
	char *b2 = tmp_path("b2.json");
	rc = regress(&out, &err, "--baseline %s --update --suite %s", b2, suite);
	ck_assert_msg(rc == 2, "rc %d: %s", rc, err);
	ck_assert_msg(strstr(err, "no baseline written") != NULL, "%s", err);
	ck_assert_int_ne(access(b2, F_OK), 0);
	free(out);
	free(err);
	free(text);
	free(wl);
	free(suite);
	free(base);
	free(b2);
	clean_tmp();
}
END_TEST

/* --explore: each compared case also runs under perturbed schedules; a
 * clean policy passes with every schedule run, a broken invariant fails
 * the gate (exit 1) and names the case, with a replay command that
 * breaks it again.  The seeded bug (checkdead-ms: the ending M's count
 * off by one, issue 16's false deadlock) is found within 8 schedules at
 * seeds 1-5 on timers.json at 1 P (check_explore.c). */
START_TEST(explore_gate)
{
	make_tmp();
	char *text = NULL;
	ck_assert_int_ge(asprintf(&text, "{\"suite\": \"x\", \"seeds\": 5, \"cases\": ["
				  "{\"name\": \"st\", \"policy\": \"steal\", \"topology\": \"numa1\", "
				  "\"procs\": 1, \"workload\": \"%s/../explore/timers.json\"}, "
				  "{\"name\": \"gl\", \"policy\": \"global\", \"topology\": \"numa1\", "
				  "\"procs\": 2, \"workload\": \"pipeline\"}]}", test_data_dir()), 0);
	char *suite = write_tmp("s.json", text);
	char *base = tmp_path("b.json"), *json = tmp_path("r.json"), *md = tmp_path("r.md");
	char *out, *err;
	int rc = regress(&out, &err, "--baseline %s --update --suite %s", base, suite);
	ck_assert_msg(rc == 0, "update: %s", err);
	free(out);
	free(err);
	rc = regress(&out, &err, "--baseline %s --explore 6 --json %s --markdown %s", base, json, md);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_msg(strstr(out, "schedules explored (schedlab explore, 6 a case, seed 1)"), "%s", out);
	free(out);
	free(err);
	char *jt = test_read_file(json);
	cJSON *j = cJSON_Parse(jt);
	const cJSON *c;
	int n = 0;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(cJSON_GetObjectItem(j, "explore"), "cases")) {
		ck_assert_str_eq(cJSON_GetObjectItem(c, "status")->valuestring, "ok");
		ck_assert_int_eq((int)cJSON_GetObjectItem(c, "schedules")->valuedouble, 6);
		ck_assert_int_eq((int)cJSON_GetObjectItem(c, "violations")->valuedouble, 0);
		n++;
	}
	ck_assert_int_eq(n, 2);
	cJSON_Delete(j);
	free(jt);
	char *mt = test_read_file(md);
	ck_assert_msg(strstr(mt, "### Schedules explored") && strstr(mt, "| gl | `global` | 6 | 0 | ok |"),
		      "%s", mt);
	free(mt);
#if defined(SCHEDLAB_SEEDED_BUGS)
	rc = regress(&out, &err, "--baseline %s --explore 20 --bug checkdead-ms -j 3 --json %s", base,
		     json);
	ck_assert_msg(rc == 1, "rc %d: %s", rc, err);
	ck_assert_msg(strstr(err, "case st (steal): an exploration broke a scheduler invariant"), "%s",
		      err);
	ck_assert_msg(!strstr(err, "case gl"), "%s", err);
	free(out);
	free(err);
	jt = test_read_file(json);
	j = cJSON_Parse(jt);
	const cJSON *cs = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "explore"), "cases");
	const cJSON *st = cJSON_GetArrayItem(cs, 0), *gl = cJSON_GetArrayItem(cs, 1);
	ck_assert_str_eq(cJSON_GetObjectItem(st, "status")->valuestring, "violation");
	/* the exploration's own counts, in this process (exp_explore), and
	 * the same at any -j: schedule 1 is seed 1's first failure */
	ck_assert_int_eq((int)cJSON_GetObjectItem(st, "violations")->valuedouble, 1);
	ck_assert_int_eq((int)cJSON_GetObjectItem(st, "schedules")->valuedouble, 2);
	ck_assert_str_eq(cJSON_GetObjectItem(gl, "status")->valuestring, "ok");
	ck_assert_int_eq((int)cJSON_GetObjectItem(gl, "schedules")->valuedouble, 20);
	ck_assert_int_eq((int)cJSON_GetObjectItem(gl, "violations")->valuedouble, 0);
	/* the replay it printed breaks the same invariant again */
	const char *o = cJSON_GetObjectItem(st, "output")->valuestring;
	const char *line = strstr(o, "\nreplay: schedlab ");
	ck_assert_msg(line != NULL, "%s", o);
	line += strlen("\nreplay: schedlab ");
	char *replay = strndup(line, strcspn(line, "\n"));
	char *again = NULL;
	rc = test_schedlab(replay, &again, NULL);
	ck_assert_msg(rc == 1 && strstr(again, "broke \"no false deadlock\""), "%s: rc %d: %s", replay,
		      rc, again);
	free(again);
	free(replay);
	cJSON_Delete(j);
	free(jt);
#endif
	/* and the options' misuse */
	char *args = NULL;
	ck_assert_int_ge(asprintf(&args, "--baseline %s --bug checkdead-ms", base), 0);
	bad(args, "--bug checkdead-ms: only with --explore N");
	free(args);
	ck_assert_int_ge(asprintf(&args, "--baseline %s --update --explore 5", base), 0);
	bad(args, "--update runs no new side");
	free(args);
	ck_assert_int_ge(asprintf(&args, "--baseline %s --explore 0", base), 0);
	bad(args, "--explore 0: expected a number of schedules");
	free(args);
	free(text);
	free(suite);
	free(base);
	free(json);
	free(md);
	clean_tmp();
}
END_TEST

/* Natively: repetitions of one seed, unpaired, each run's host recorded.
 * The thresholds are wide: the host's noise is not under test here. */
START_TEST(native_mode)
{
	make_tmp();
	char *suite = write_tmp("n.json", "{\"suite\": \"n\", \"seeds\": 3, \"thresholds\": "
				"{\"makespan\": \"400%\"}, \"cases\": [{\"name\": \"pph\", \"policy\": "
				"\"steal\", \"workload\": \"pingpong-hog\", \"procs\": 2}]}");
	char *base = tmp_path("b.json"), *json = tmp_path("r.json");
	char *out, *err;
	int rc = regress(&out, &err, "--native --baseline %s --update --suite %s", base, suite);
	ck_assert_msg(rc == 0, "update: %s", err);
	free(out);
	free(err);
	char *text = test_read_file(base);
	cJSON *j = cJSON_Parse(text);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "mode")->valuestring, "native");
	cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "cases"), 0);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(c0, "host")), 3);
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(c0, "host"), 0),
						  "run_delay_ns"));
	/* repetitions of the suite's one seed */
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(c0, "seeds"))
		ck_assert_int_eq((int)s->valuedouble, 1);
	cJSON_Delete(j);
	free(text);
	rc = regress(&out, &err, "--native --baseline %s --json %s", base, json);
	ck_assert_msg(rc == 0, "rc %d: %s%s", rc, out, err);
	ck_assert_ptr_nonnull(strstr(out, "rank-sum"));
	free(out);
	free(err);
	text = test_read_file(json);
	j = cJSON_Parse(text);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "test"), "name")->valuestring,
			 "wilcoxon-mann-whitney");
	const cJSON *nc = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "new"), "cases"), 0);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(nc, "host")), 3);
	cJSON_Delete(j);
	free(text);
	free(suite);
	free(base);
	free(json);
	clean_tmp();
}
END_TEST

/* Two updates of one baseline take turns: while another holds the
 * baseline (here the test, with the same flock an update takes), an
 * update says it waits and leaves the file alone; once it is let go, it
 * writes its own whole baseline. */
START_TEST(updates_of_one_baseline_take_turns)
{
	make_tmp();
	char *suite = write_tmp("t.json", "{\"suite\": \"t\", \"seeds\": 5, \"cases\": [{\"name\": "
				"\"pp\", \"policy\": \"steal\", \"workload\": \"ping-pong\", "
				"\"topology\": \"numa1\", \"procs\": 2}]}");
	char *base = write_tmp("b.json", "held\n");
	char *errp = write_tmp("err.txt", "");
	/* close-on-exec: a copy of it in the child would be the child's lock */
	int fd = open(base, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int null = open("/dev/null", O_WRONLY);
		dup2(e, STDERR_FILENO);
		dup2(null, STDOUT_FILENO);
		execl(test_schedlab_bin(), "schedlab", "regress", "--update", "--baseline", base,
		      "--suite", suite, "-j", "1", (char *)NULL);
		_exit(127);
	}
	/* it says it waits (within a minute, however busy the host) */
	bool waiting = false;
	for (int i = 0; i < 600 && !waiting; i++) {
		char *err = test_read_file(errp);
		waiting = err && strstr(err, "another regress --update is writing it; waiting");
		free(err);
		if (!waiting)
			usleep(100000);
	}
	ck_assert_msg(waiting, "regress --update did not wait for the lock");
	int status;
	ck_assert_int_eq(waitpid(pid, &status, WNOHANG), 0);
	char *text = test_read_file(base);
	ck_assert_str_eq(text, "held\n");
	free(text);
	/* let go: it runs and writes a whole baseline */
	close(fd);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	struct err e = { "" };
	struct rg_baseline *b = rg_baseline_load(base, &e);
	ck_assert_msg(b != NULL, "%s", e.msg);
	rg_baseline_free(b);
	free(suite);
	free(base);
	free(errp);
	clean_tmp();
}
END_TEST

/* A case whose topology does not load is named with the suite's file
 * and the case, in one line; an empty name is refused where it is. */
START_TEST(suite_case_inputs_are_named_where_they_are)
{
	make_tmp();
	char *suite = write_tmp("s.json", "{\"suite\": \"t\", \"seeds\": 5, \"cases\": [{\"name\": "
				"\"c\", \"policy\": \"steal\", \"topology\": \"nosuch\"}]}");
	char *base = tmp_path("b.json"), *err = NULL;
	ck_assert_int_eq(test_schedlabf(NULL, &err, "regress --baseline '%s' --update --suite '%s'",
					base, suite), 2);
	ck_assert_msg(strstr(err, "s.json, case 0 (c): nosuch: not a bundled topology") &&
		      strchr(err, '\n') == err + strlen(err) - 1, "%s", err);
	free(err);
	free(suite);
	suite = write_tmp("s.json", "{\"suite\": \"t\", \"seeds\": 5, \"cases\": [{\"name\": "
			  "\"c\", \"policy\": \"steal\", \"workload\": \"\"}]}");
	ck_assert_int_eq(test_schedlabf(NULL, &err, "regress --baseline '%s' --update --suite '%s'",
					base, suite), 2);
	ck_assert_msg(strstr(err, "$.cases[0].workload: an empty name"), "%s", err);
	free(err);
	free(suite);
	free(base);
	clean_tmp();
}
END_TEST

/* Every baseline a fuzzer once failed on (fuzz/regressions/baseline/)
 * loads and compares with itself, or is refused in one line of text. */
START_TEST(fuzz_baseline_regressions_load_cleanly)
{
	char **paths = test_fuzz_regressions("baseline");
	for (char **p = paths; *p; p++) {
		struct err e = { "" };
		struct rg_baseline *b = rg_baseline_load(*p, &e);
		if (!b)
			test_assert_clean_refusal(*p, e.msg);
		else
			rg_result_free(rg_compare(b, b->side, b->suite->threshold, 0.05, "itself"));
		rg_baseline_free(b);
		free(*p);
	}
	free(paths);
}
END_TEST

/* ---- benchstat as the anchor ---- */

/* benchstat (golang.org/x/perf, installed by scripts/install-deps.sh and
 * found by meson as $SCHEDLAB_BENCHSTAT): NULL, with one line saying why
 * the test is skipped, where it is not installed. */
static const char *benchstat(void)
{
	const char *b = getenv("SCHEDLAB_BENCHSTAT");
	if (b && *b && access(b, X_OK) == 0)
		return b;
	fprintf(stderr, "regress: benchstat not installed (scripts/install-deps.sh installs it "
		"with Go's module proxy): the native comparison is not checked against it\n");
	return NULL;
}

/* One CSV row of benchstat's: "S3,1.01e-07,CI,1.09e-07,CI,+7.92%,p=0.008 n=5+5". */
struct bs_row {
	double old_c, new_c, p;
	char vs[32];
};

static bool bs_find(const char *csv, int k, struct bs_row *r)
{
	char key[16];
	snprintf(key, sizeof(key), "\nS%d,", k);
	const char *at = strstr(csv, key);
	if (!at)
		return false;
	char line[256];
	const char *end = strchr(at + 1, '\n');
	size_t len = end ? (size_t)(end - at - 1) : strlen(at + 1);
	if (len >= sizeof(line))
		return false;
	memcpy(line, at + 1, len);
	line[len] = '\0';
	char *f[8] = { 0 };
	int nf = 0;
	for (char *save = NULL, *tok = strtok_r(line, ",", &save); tok && nf < 8;
	     tok = strtok_r(NULL, ",", &save))
		f[nf++] = tok;
	if (nf != 7)
		return false;
	r->old_c = strtod(f[1], NULL);
	r->new_c = strtod(f[3], NULL);
	snprintf(r->vs, sizeof(r->vs), "%s", f[5]);
	return sscanf(f[6], "p=%lf", &r->p) == 1;
}

/* regress's native (unpaired) comparison says what benchstat says of the
 * same samples: the medians, the change between them, the rank-sum test's
 * p (exact, ties included) and whether it is significant.  Sample sets of
 * 3 to 10 repetitions a side (and a few of 26 to 63), of small integers so that ties are common,
 * some with no change, some with a large one. */
START_TEST(native_comparison_is_benchstats)
{
	const char *bs = benchstat();
	if (!bs)
		return;
	enum { SETS = 48 };
	make_tmp();
	char *oldp = tmp_path("old.txt"), *newp = tmp_path("new.txt");
	FILE *fo = fopen(oldp, "w"), *fn = fopen(newp, "w");
	ck_assert(fo && fn);
	static double vals[SETS][2][64];
	int ns[SETS][2];
	uint64_t x = 88172645463325252ull;
	for (int k = 0; k < SETS; k++) {
		for (int side = 0; side < 2; side++) {
			/* the last few past benchstat's exact sizes (25 a side
			 * with ties), where it turns to the normal approximation */
			ns[k][side] = k < SETS - 6 ? 3 + (k * (side ? 5 : 3) + side) % 8
						  : 26 + (k * 13 + side * 7) % 38;
			for (int i = 0; i < ns[k][side]; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				/* a shift of 0 to 11 on the new side (0 to 2 in the
				 * large sets), over a noise of 0..5 */
				int shift = k < SETS - 6 ? k % 12 : k % 3;
				double v = 100 + (double)(x % 6) + (side ? shift : 0);
				vals[k][side][i] = v;
				fprintf(side ? fn : fo, "BenchmarkS%d 1 %.0f ns/op\n", k, v);
			}
		}
	}
	ck_assert_int_eq(fclose(fo), 0);
	ck_assert_int_eq(fclose(fn), 0);
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err, "'%s' -format csv -alpha 0.05 '%s' '%s'", bs, oldp, newp);
	ck_assert_msg(rc == 0, "benchstat: exit %d: %s", rc, err);
	char *csv = NULL;
	ck_assert_int_ge(asprintf(&csv, "\n%s", out), 0);

	struct err e = { "" };
	struct rg_suite *suite = rg_suite_parse("s.json", "{\"suite\": \"b\", \"seeds\": 3, "
						"\"cases\": [{\"name\": \"c\", \"policy\": \"steal\", "
						"\"workload\": \"pingpong\", \"procs\": 2}]}", &e);
	ck_assert_msg(suite != NULL, "%s", e.msg);
	int m = metric_index("makespan");
	ck_assert_int_ge(m, 0);
	double *threshold = xmalloc(sizeof(*threshold) * (size_t)metric_count);
	for (int i = 0; i < metric_count; i++)
		threshold[i] = NAN;
	threshold[m] = 1000;   /* shown: a threshold no change reaches */
	int significant = 0;
	for (int k = 0; k < SETS; k++) {
		struct rg_baseline base = { .native = true, .suite = suite,
					    .side = rg_side_new(1, ns[k][0]) };
		struct rg_side *now = rg_side_new(1, ns[k][1]);
		base.side->ran[0] = now->ran[0] = true;
		for (int i = 0; i < ns[k][0]; i++)
			*rg_at(base.side, 0, m, i) = vals[k][0][i];
		for (int i = 0; i < ns[k][1]; i++)
			*rg_at(now, 0, m, i) = vals[k][1][i];
		struct rg_result *r = rg_compare(&base, now, threshold, 0.05, "new");
		const struct rg_row *row = NULL;
		for (int i = 0; i < r->nmetrics; i++)
			if (r->metrics[i].metric == m)
				row = &r->metrics[i].rows[0];
		ck_assert_ptr_nonnull(row);
		struct bs_row b;
		ck_assert_msg(bs_find(csv, k, &b), "no row S%d in benchstat's output:\n%s", k, out);
		/* benchstat reads ns/op and prints seconds */
		ck_assert_msg(fabs(b.old_c * 1e9 - row->old_med) < 1e-6 &&
			      fabs(b.new_c * 1e9 - row->new_med) < 1e-6,
			      "S%d: medians %g %g, benchstat %g %g", k, row->old_med, row->new_med,
			      b.old_c * 1e9, b.new_c * 1e9);
		/* benchstat prints p to three places */
		ck_assert_msg(fabs(b.p - row->p_change) <= 0.0005 + 1e-9, "S%d: p %.6f, benchstat %.3f",
			      k, row->p_change, b.p);
		bool sig = row->p_change <= 0.05;
		significant += sig;
		if (!sig) {
			ck_assert_msg(strcmp(b.vs, "~") == 0, "S%d: p %.4f, benchstat says %s", k,
				      row->p_change, b.vs);
		} else {
			double pct = 0;
			ck_assert_msg(sscanf(b.vs, "%lf%%", &pct) == 1, "S%d: benchstat says %s", k, b.vs);
			ck_assert_msg(fabs(pct - 100 * row->delta) <= 0.005 + 1e-9,
				      "S%d: change %.4f%%, benchstat %s", k, 100 * row->delta, b.vs);
		}
		rg_result_free(r);
		rg_side_free(base.side);
		rg_side_free(now);
	}
	/* both verdicts were compared */
	ck_assert_int_gt(significant, 5);
	ck_assert_int_lt(significant, SETS - 5);
	rg_suite_free(suite);
	free(threshold);
	free(csv);
	free(out);
	free(err);
	free(oldp);
	free(newp);
	clean_tmp();
}
END_TEST

Suite *make_regress_suite(void)
{
	Suite *s = suite_create("regress");
	TCase *tc = tcase_create("stats");
	tcase_add_test(tc, fuzz_baseline_regressions_load_cleanly);
	tcase_add_test(tc, signrank_tables);
	tcase_add_test(tc, signrank_ties);
	tcase_add_test(tc, ranksum_tables);
	tcase_add_test(tc, ranksum_ties);
	tcase_add_test(tc, normal_tails);
	tcase_add_test(tc, suite_format);
	tcase_add_test(tc, native_comparison_is_benchstats);
	suite_add_tcase(s, tc);
	/* the gate's and the native case's tests run schedlab in
	 * subprocesses, which valgrind does not follow: under it they would
	 * only add time */
	if (!test_under_valgrind()) {
		TCase *e2e = tcase_create("gate");
		tcase_set_tags(e2e, TEST_SIM_ONLY);
		tcase_set_timeout(e2e, 900);
		tcase_add_test(e2e, no_change_passes);
		tcase_add_test(e2e, suite_case_inputs_are_named_where_they_are);
		tcase_add_test(e2e, regression_fails);
		tcase_add_test(e2e, bad_input);
		tcase_add_test(e2e, failing_runs);
		tcase_add_test(e2e, unreported_gate);
		tcase_add_test(e2e, explore_gate);
		tcase_add_test(e2e, updates_of_one_baseline_take_turns);
		suite_add_tcase(s, e2e);
	}
	if (!test_under_valgrind()) {
		TCase *nat = tcase_create("native");
		tcase_set_timeout(nat, 600);
		tcase_add_test(nat, native_mode);
		suite_add_tcase(s, nat);
	}
	return s;
}
