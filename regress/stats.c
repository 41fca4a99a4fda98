/* Exact rank tests [regress/stats.h].  A statistic's null distribution is
 * counted over sums of doubled ranks: a midrank of tied values is a whole
 * or a half number, so twice it is whole, and an array indexed by the
 * doubled sum holds the distribution exactly whatever the ties. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "regress/stats.h"
#include "util/util.h"

struct keyed {
	double key;
	int idx;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key < y->key)
		return -1;
	if (x->key > y->key)
		return 1;
	return x->idx - y->idx;
}

/* Doubled midranks of key[0..n) into r2 (ranks 1..n, a tie group sharing
 * the mean of its ranks). */
static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

static void doubled_ranks(const double *key, int n, long *r2)
{
	struct keyed *k = xmalloc(sizeof(*k) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		k[i] = (struct keyed){ key[i], i };
	qsort(k, (size_t)n, sizeof(*k), cmp_keyed);
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && k[j + 1].key == k[i].key)
			j++;
		for (int m = i; m <= j; m++)
			r2[k[m].idx] = (long)i + j + 2;   /* (i+1 + j+1) */
		i = j + 1;
	}
	free(k);
}

/* ---- signed ranks ---- */

/* The null distribution of the doubled W+: each rank counts with
 * probability one half.  Returns the array (of *total + 1 entries). */
static double *signrank_dist(const long *r2, int n, long *total)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += r2[i];
	double *p = xcalloc((size_t)s + 1, sizeof(*p));
	p[0] = 1;
	long reach = 0;
	for (int i = 0; i < n; i++) {
		reach += r2[i];
		for (long v = reach; v >= 0; v--)
			p[v] = 0.5 * p[v] + (v >= r2[i] ? 0.5 * p[v - r2[i]] : 0);
	}
	*total = s;
	return p;
}

/* Tails of the doubled W+ = w2 over ranks r2[0..n): P(>= w2), P(<= w2). */
static void signrank_tails(const long *r2, int n, long w2, double *upper, double *lower)
{
	if (n <= RS_SIGNRANK_EXACT_MAX) {
		long total;
		double *p = signrank_dist(r2, n, &total);
		double up = 0, lo = 0;
		for (long v = 0; v <= total; v++) {
			if (v >= w2)
				up += p[v];
			if (v <= w2)
				lo += p[v];
		}
		free(p);
		*upper = fmin(1, up);
		*lower = fmin(1, lo);
		return;
	}
	/* W2 is a sum of independent r2_i * Bernoulli(1/2): its mean and
	 * variance are exact whatever the ties */
	double mean = 0, var = 0;
	for (int i = 0; i < n; i++) {
		mean += 0.5 * (double)r2[i];
		var += 0.25 * (double)r2[i] * (double)r2[i];
	}
	double sd = sqrt(var);
	*upper = gsl_cdf_ugaussian_Q(((double)w2 - 1 - mean) / sd);
	*lower = gsl_cdf_ugaussian_P(((double)w2 + 1 - mean) / sd);
}

/* The nonzero differences' doubled ranks of |d| and the doubled W+. */
static int signrank_prepare(const double *d, int n, long **r2_out, long *w2)
{
	double *a = xmalloc(sizeof(*a) * (size_t)(n ? n : 1));
	bool *pos = xmalloc(sizeof(*pos) * (size_t)(n ? n : 1));
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (d[i] == 0 || isnan(d[i]))
			continue;
		a[m] = fabs(d[i]);
		pos[m++] = d[i] > 0;
	}
	long *r2 = xmalloc(sizeof(*r2) * (size_t)(m ? m : 1));
	doubled_ranks(a, m, r2);
	*w2 = 0;
	for (int i = 0; i < m; i++)
		if (pos[i])
			*w2 += r2[i];
	free(a);
	free(pos);
	*r2_out = r2;
	return m;
}

/* Both tails of the signed-rank statistic of d: 1 and 1 with no nonzero
 * difference left. */
static void signrank_p(const double *d, int n, int *used, double *up, double *lo)
{
	long *r2, w2;
	int m = signrank_prepare(d, n, &r2, &w2);
	if (used)
		*used = m;
	*up = *lo = 1;
	if (m > 0)
		signrank_tails(r2, m, w2, up, lo);
	free(r2);
}

double rs_signrank_upper(const double *d, int n, int *used)
{
	double up, lo;
	signrank_p(d, n, used, &up, &lo);
	return up;
}

double rs_signrank_two(const double *d, int n, int *used)
{
	double up, lo;
	signrank_p(d, n, used, &up, &lo);
	return fmin(1, 2 * fmin(up, lo));
}

static long *plain_ranks(int n)
{
	long *r2 = xmalloc(sizeof(*r2) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		r2[i] = 2L * (i + 1);
	return r2;
}

/* The signed-rank tails at doubled statistic s2, the ranks 1..n untied. */
static void plain_tails(int n, long s2, double *up, double *lo)
{
	long *r2 = plain_ranks(n);
	signrank_tails(r2, n, s2, up, lo);
	free(r2);
}

double rs_signrank_cdf_upper(int n, double w)
{
	double up, lo;
	plain_tails(n, (long)ceil(2 * w), &up, &lo);
	return up;
}

double rs_signrank_cdf_lower(int n, double w)
{
	double up, lo;
	plain_tails(n, (long)floor(2 * w), &up, &lo);
	return lo;
}

/* ---- rank sums ---- */

/* Tails of the doubled rank sum of a subset of size k of the N items of
 * doubled ranks r2: P(sum >= s2) and P(sum <= s2), every subset equally
 * likely. */
static void ranksum_tails(const long *r2, int N, int k, long s2, double *upper, double *lower)
{
	long total = 0;
	for (int i = 0; i < N; i++)
		total += r2[i];
	if (N <= RS_RANKSUM_EXACT_MAX) {
		/* counts[j][v]: subsets of j items so far summing to v, as
		 * doubles (C(120, 60) is about 1e35) */
		size_t w = (size_t)total + 1;
		double *c = xcalloc((size_t)(k + 1) * w, sizeof(*c));
		c[0] = 1;
		long reach = 0;
		for (int i = 0; i < N; i++) {
			reach += r2[i];
			for (int j = (i + 1 < k ? i + 1 : k); j >= 1; j--) {
				double *to = c + (size_t)j * w, *from = c + (size_t)(j - 1) * w;
				for (long v = reach; v >= r2[i]; v--)
					to[v] += from[v - r2[i]];
			}
		}
		double all = 0, up = 0, lo = 0;
		const double *row = c + (size_t)k * w;
		for (long v = 0; v <= total; v++) {
			all += row[v];
			if (v >= s2)
				up += row[v];
			if (v <= s2)
				lo += row[v];
		}
		free(c);
		*upper = fmin(1, up / all);
		*lower = fmin(1, lo / all);
		return;
	}
	/* sampling k of N without replacement: the finite-population
	 * variance, exact with ties */
	double mu = (double)total / N, ss = 0;
	for (int i = 0; i < N; i++)
		ss += ((double)r2[i] - mu) * ((double)r2[i] - mu);
	double mean = k * mu;
	double var = (double)k * (N - k) / ((double)N * (N - 1)) * ss;
	double sd = sqrt(var);
	*upper = gsl_cdf_ugaussian_Q(((double)s2 - 1 - mean) / sd);
	*lower = gsl_cdf_ugaussian_P(((double)s2 + 1 - mean) / sd);
}

/* The doubled midranks of x's values then y's, ranked together
 * (malloc'd, nx + ny of them). */
static long *pooled_ranks(const double *x, int nx, const double *y, int ny)
{
	int N = nx + ny;
	double *all = xmalloc(sizeof(*all) * (size_t)N);
	memcpy(all, x, sizeof(*x) * (size_t)nx);
	memcpy(all + nx, y, sizeof(*y) * (size_t)ny);
	long *r2 = xmalloc(sizeof(*r2) * (size_t)N);
	doubled_ranks(all, N, r2);
	free(all);
	return r2;
}

static void ranksum_both(const double *x, int nx, const double *y, int ny, double *up, double *lo)
{
	*up = *lo = 1;
	if (nx == 0 || ny == 0)
		return;
	int N = nx + ny;
	long *r2 = pooled_ranks(x, nx, y, ny);
	long sx = 0, total = 0;
	for (int i = 0; i < N; i++) {
		total += r2[i];
		if (i < nx)
			sx += r2[i];
	}
	/* count subsets of the smaller sample's size: x's sum is large
	 * exactly when y's (the rest) is small */
	if (nx <= ny)
		ranksum_tails(r2, N, nx, sx, up, lo);
	else
		ranksum_tails(r2, N, ny, total - sx, lo, up);
	free(r2);
}

double rs_ranksum_upper(const double *x, int nx, const double *y, int ny)
{
	double up, lo;
	ranksum_both(x, nx, y, ny, &up, &lo);
	return up;
}

double rs_ranksum_two(const double *x, int nx, const double *y, int ny)
{
	double up, lo;
	ranksum_both(x, nx, y, ny, &up, &lo);
	return fmin(1, 2 * fmin(up, lo));
}

/* benchstat's sizes: its U test is exact up to 50 a side without ties and
 * 25 with them, and normal beyond (golang.org/x/perf's benchmath, through
 * go-moremath's MannWhitneyUTest). */
#define BENCHSTAT_EXACT_MAX 50
#define BENCHSTAT_TIES_EXACT_MAX 25

double rs_utest_two(const double *old, int no, const double *new, int nn)
{
	if (no == 0 || nn == 0)
		return 1;
	int N = no + nn;
	long *r2 = pooled_ranks(old, no, new, nn);
	/* doubled U of the old side; the new side's is the rest of 2 no nn */
	long s2 = 0;
	for (int i = 0; i < no; i++)
		s2 += r2[i];
	long u1 = s2 - (long)no * (no + 1), u2 = 2L * no * nn - u1;
	/* tie groups: equal doubled ranks are one group */
	long *sorted = xmalloc(sizeof(*sorted) * (size_t)N);
	memcpy(sorted, r2, sizeof(*r2) * (size_t)N);
	qsort(sorted, (size_t)N, sizeof(*sorted), cmp_long);
	int groups = 0;
	bool ties = false;
	double tie_sum = 0;   /* sum of t^3 - t over groups of t */
	for (int i = 0; i < N;) {
		int j = i;
		while (j < N && sorted[j] == sorted[i])
			j++;
		double t = j - i;
		tie_sum += t * t * t - t;
		ties |= j - i > 1;
		groups++;
		i = j;
	}
	free(sorted);
	double p;
	if (groups == 1) {
		p = 1;   /* every value equal: benchstat's "samples are equal" */
	} else if (ties ? no <= BENCHSTAT_TIES_EXACT_MAX && nn <= BENCHSTAT_TIES_EXACT_MAX
			: no <= BENCHSTAT_EXACT_MAX && nn <= BENCHSTAT_EXACT_MAX) {
		/* twice the lower tail of U_old at the smaller of the two U,
		 * which takes the distribution as symmetric; with ties it is
		 * not quite, and this p can differ from twice the smaller
		 * observed tail (rs_ranksum_two) */
		if (u1 == u2) {
			p = 1;
		} else {
			double up, lo;
			long small = u1 < u2 ? u1 : u2;
			ranksum_tails(r2, N, no, small + (long)no * (no + 1), &up, &lo);
			p = fmin(1, 2 * lo);
		}
	} else {
		double mu = (double)no * nn / 2;
		double sd = sqrt((double)no * nn * ((N + 1) - tie_sum / ((double)N * (N - 1))) / 12);
		double num = (double)u1 / 2 - mu;
		num -= num > 0 ? 0.5 : num < 0 ? -0.5 : 0;
		double z = num / sd;
		p = sd == 0 ? 1 : 2 * fmin(gsl_cdf_ugaussian_P(z), gsl_cdf_ugaussian_Q(z));
	}
	free(r2);
	return p;
}

double rs_ranksum_cdf_lower(int nx, int ny, double u)
{
	int N = nx + ny;
	long *r2 = plain_ranks(N);
	double up, lo;
	/* R = U + nx(nx+1)/2, doubled */
	long s2 = (long)floor(2 * u) + (long)nx * (nx + 1);
	ranksum_tails(r2, N, nx, s2, &up, &lo);
	free(r2);
	return lo;
}

int rs_signrank_min_n(double alpha)
{
	int n = 1;
	while (ldexp(1, -n) > alpha && n < 64)
		n++;
	return n;
}

int rs_ranksum_min_n(double alpha)
{
	for (int n = 1; n < 64; n++) {
		double c = 1;   /* C(2n, n) */
		for (int i = 1; i <= n; i++)
			c = c * (n + i) / i;
		if (1 / c <= alpha)
			return n;
	}
	return 64;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double rs_median(const double *v, int n)
{
	if (n <= 0)
		return NAN;
	double *c = xmalloc(sizeof(*c) * (size_t)n);
	memcpy(c, v, sizeof(*c) * (size_t)n);
	qsort(c, (size_t)n, sizeof(*c), cmp_double);
	double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
	free(c);
	return m;
}
