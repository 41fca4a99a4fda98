/* Latency histograms (suite "util"): exact below 128, within 1/64 above,
 * mergeable, and quantiles that never exceed the maximum. */
#include <stdlib.h>

#include "tests/tests.h"
#include "util/hist.h"

START_TEST(small_values_are_exact)
{
	struct hist *h = calloc(1, sizeof(*h));
	for (uint64_t v = 1; v <= 100; v++)
		hist_record(h, v);
	ck_assert_uint_eq(h->count, 100);
	ck_assert_uint_eq(hist_quantile(h, 0.5), 50);
	ck_assert_uint_eq(hist_quantile(h, 0.9), 90);
	ck_assert_uint_eq(hist_quantile(h, 0.99), 99);
	ck_assert_uint_eq(hist_quantile(h, 1.0), 100);
	ck_assert_uint_eq(hist_quantile(h, 0.0), 1);
	ck_assert_double_eq_tol(hist_mean(h), 50.5, 1e-9);
	free(h);
}
END_TEST

/* Every value, recorded alone, comes back as its bucket's top: at least
 * the value and less than 1/64 above it (or the exact maximum). */
START_TEST(large_values_within_bound)
{
	struct hist *h = calloc(1, sizeof(*h));
	uint64_t v = 1;
	for (int i = 0; i < 4000; i++) {
		v = v + v / 37 + 1;
		if (v > (UINT64_MAX >> 2))
			break;
		struct hist one = { 0 };
		hist_record(&one, v);
		hist_record(&one, v + 1);   /* so the max does not clamp the answer */
		hist_record(&one, UINT64_MAX >> 1);
		uint64_t q = hist_quantile(&one, 1.0 / 3);
		ck_assert_msg(q >= v && (double)(q - v) <= (double)v / 64.0, "v %llu gave %llu",
			      (unsigned long long)v, (unsigned long long)q);
		hist_record(h, v);
	}
	ck_assert_uint_le(hist_quantile(h, 0.999), h->max);
	ck_assert_uint_eq(hist_quantile(h, 1.0), h->max);
	free(h);
}
END_TEST

START_TEST(merge_adds_counts)
{
	struct hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b)), *c = calloc(1, sizeof(*c));
	for (uint64_t v = 0; v < 10000; v += 7) {
		hist_record(v % 2 ? a : b, v * 1000);
		hist_record(c, v * 1000);
	}
	hist_merge(a, b);
	ck_assert_uint_eq(a->count, c->count);
	ck_assert_uint_eq(a->max, c->max);
	for (double q = 0.05; q < 1.0; q += 0.05)
		ck_assert_uint_eq(hist_quantile(a, q), hist_quantile(c, q));
	struct hist empty = { 0 };
	ck_assert_uint_eq(hist_quantile(&empty, 0.5), 0);
	ck_assert_double_eq(hist_mean(&empty), 0.0);
	free(a);
	free(b);
	free(c);
}
END_TEST

Suite *make_hist_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("hist");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, small_values_are_exact);
	tcase_add_test(tc, large_values_within_bound);
	tcase_add_test(tc, merge_adds_counts);
	suite_add_tcase(s, tc);
	return s;
}
