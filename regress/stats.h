/* The statistics of `schedlab regress` [docs/regress.md, "Statistics"]:
 * exact rank tests, written here because GSL has none (it has the normal
 * distribution, used past the exact tests' sizes, and sorting).
 *
 * Both tests take ties as midranks and compute the exact permutation
 * distribution of the statistic given those ranks (a count over sums of
 * doubled ranks, which are whole numbers), so a tie costs no accuracy at
 * the small sizes a gate runs at. */
#ifndef SCHEDLAB_REGRESS_STATS_H
#define SCHEDLAB_REGRESS_STATS_H

#include <stdbool.h>

/* Past these sizes the tests use the normal approximation (with the tie
 * correction and a continuity correction of half a rank). */
#define RS_SIGNRANK_EXACT_MAX 400
#define RS_RANKSUM_EXACT_MAX 120

/* Wilcoxon's signed-rank test of the paired differences d[0..n): zeros
 * are dropped (Wilcoxon's rule), *used (if not NULL) is how many remain.
 * rs_signrank_upper is the one-sided p of "the differences lean positive":
 * P(W+ >= the observed W+) when they are symmetric about 0; 1 with none
 * left.  rs_signrank_two is the two-sided p (twice the smaller tail, at
 * most 1). */
double rs_signrank_upper(const double *d, int n, int *used);
double rs_signrank_two(const double *d, int n, int *used);
/* P(W+ >= w) and P(W+ <= w) for n untied nonzero differences (the
 * tables' distribution), exact. */
double rs_signrank_cdf_upper(int n, double w);
double rs_signrank_cdf_lower(int n, double w);

/* The Wilcoxon-Mann-Whitney rank-sum test of two independent samples:
 * the one-sided p of "x tends to be larger than y", P(U_x >= observed),
 * U_x being the number of pairs (x_i, y_j) with x_i > y_j (ties count
 * half); and the two-sided p. */
double rs_ranksum_upper(const double *x, int nx, const double *y, int ny);
double rs_ranksum_two(const double *x, int nx, const double *y, int ny);
/* The two-sided p of the same test as benchstat computes it, the anchor
 * of regress's native comparison: 1 when the two U are equal, else twice
 * the probability of U_old at or below the smaller U (given the ties),
 * exact up to 50 a side (25 with ties), past that the normal
 * approximation with the tie and continuity corrections. */
double rs_utest_two(const double *old, int no, const double *new, int nn);
/* P(U <= u) for samples of nx and ny without ties (the tables'), exact. */
double rs_ranksum_cdf_lower(int nx, int ny, double u);

/* The smallest number of paired differences whose one-sided exact p can
 * reach alpha (2^-n <= alpha), and of repetitions per side (equal sizes)
 * for the rank-sum test (1 / C(2n, n) <= alpha). */
int rs_signrank_min_n(double alpha);
int rs_ranksum_min_n(double alpha);

/* The median of v[0..n) (v is left alone); NAN for n == 0. */
double rs_median(const double *v, int n);

#endif
