/* Distributions and random streams (suite "workloads"): every JSON form
 * parses, every bad parameter is one message naming file and JSON path,
 * samples have the right mean and support, and streams depend only on the
 * seed and the key, not on the order they are drawn from. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "tests/tests.h"
#include "workloads/dist.h"

#define PATH "$.programs.main[3].compute"

static struct dist *parse_text(const char *text, enum dist_unit unit, struct err *e)
{
	struct jv j = { "w.json", e };
	cJSON *v = cJSON_Parse(text);
	ck_assert_msg(v != NULL, "test JSON does not parse: %s", text);
	e->msg[0] = '\0';
	struct dist *d = dist_parse(&j, v, PATH, unit);
	cJSON_Delete(v);
	return d;
}

static int64_t const_of(const char *text, enum dist_unit unit)
{
	struct err e;
	struct dist *d = parse_text(text, unit, &e);
	ck_assert_msg(d != NULL, "%s: %s", text, e.msg);
	int64_t v = -1;
	ck_assert(dist_is_const(d, &v));
	dist_free(d);
	return v;
}

/* text must fail with exactly one message: "w.json: PATH<sub>: <what...>". */
static void expect_error(const char *text, enum dist_unit unit, const char *sub,
			 const char *what)
{
	struct err e;
	struct dist *d = parse_text(text, unit, &e);
	ck_assert_msg(d == NULL, "%s parsed", text);
	char want[512];
	snprintf(want, sizeof(want), "w.json: " PATH "%s: %s", sub, what);
	ck_assert_msg(strncmp(e.msg, want, strlen(want)) == 0, "%s: got \"%s\", want \"%s...\"",
		      text, e.msg, want);
}

/* A generator on its own stream: the state word lives in the caller. */
static gsl_rng *stream(uint64_t *word, uint64_t seed, uint64_t key)
{
	*word = dist_stream_seed(seed, key);
	gsl_rng *r = dist_rng_new();
	dist_rng_use(r, word);
	return r;
}

static double sample_mean(const struct dist *d, int n, uint64_t key)
{
	uint64_t word;
	gsl_rng *r = stream(&word, 42, key);
	double *xs = malloc((size_t)n * sizeof(*xs));
	for (int i = 0; i < n; i++)
		xs[i] = (double)dist_sample(d, r);
	double m = gsl_stats_mean(xs, 1, (size_t)n);
	free(xs);
	gsl_rng_free(r);
	return m;
}

START_TEST(constants_and_units)
{
	ck_assert_int_eq(const_of("0", DIST_TIME), 0);
	ck_assert_int_eq(const_of("1500", DIST_TIME), 1500);
	ck_assert_int_eq(const_of("\"250ns\"", DIST_TIME), 250);
	ck_assert_int_eq(const_of("\"10us\"", DIST_TIME), 10000);
	ck_assert_int_eq(const_of("\"10\xc2\xb5s\"", DIST_TIME), 10000);
	ck_assert_int_eq(const_of("\"1.1us\"", DIST_TIME), 1100);   /* exact in decimal */
	ck_assert_int_eq(const_of("\"1.5ms\"", DIST_TIME), 1500000);
	ck_assert_int_eq(const_of("\"2s\"", DIST_TIME), 2000000000);
	ck_assert_int_eq(const_of("\"2.5e-3s\"", DIST_TIME), 2500000);
	ck_assert_int_eq(const_of("\"512B\"", DIST_SIZE), 512);
	ck_assert_int_eq(const_of("\"64KiB\"", DIST_SIZE), 65536);
	ck_assert_int_eq(const_of("\"1.5MiB\"", DIST_SIZE), 1572864);
	ck_assert_int_eq(const_of("\"4GiB\"", DIST_SIZE), 4294967296LL);
	ck_assert_int_eq(const_of("4096", DIST_SIZE), 4096);
	ck_assert_int_eq(const_of("7", DIST_COUNT), 7);
	expect_error("\"10\"", DIST_TIME, "", "missing unit in \"10\"");
	expect_error("\"10 parsecs\"", DIST_TIME, "", "unknown unit in \"10 parsecs\"");
	expect_error("\"64KiB\"", DIST_COUNT, "", "expected a number, got a string");
	expect_error("2.5", DIST_COUNT, "", "must be a whole number (got 2.5)");
	expect_error("\"0.5ns\"", DIST_TIME, "", "must be a whole number of ns");
	expect_error("\"-3us\"", DIST_TIME, "", "must be >= 0 (got \"-3us\")");
	expect_error("\"infms\"", DIST_TIME, "", "bad time \"infms\"");

	struct dist *d = dist_const(-5);
	int64_t v = 1;
	ck_assert(dist_is_const(d, &v));
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(dist_sample(d, NULL), 0);
	dist_free(d);
}
END_TEST

START_TEST(each_kind_parses)
{
	static const struct {
		const char *text;
		enum dist_unit unit;
		enum dist_kind kind;
		double mean;
		bool bounded;
		int64_t max;
	} cases[] = {
		{ "\"3us\"", DIST_TIME, DIST_CONST, 3000, true, 3000 },
		{ "{\"uniform\": {\"min\": \"1us\", \"max\": \"3us\"}}", DIST_TIME, DIST_UNIFORM,
		  2000, true, 3000 },
		{ "{\"exponential\": {\"mean\": \"1ms\"}}", DIST_TIME, DIST_EXPONENTIAL, 1e6,
		  false, 0 },
		{ "{\"normal\": {\"mean\": \"4KiB\", \"stddev\": 512}}", DIST_SIZE, DIST_NORMAL,
		  4096, false, 0 },
		{ "{\"lognormal\": {\"median\": 100, \"sigma\": 1}}", DIST_TIME, DIST_LOGNORMAL,
		  100 * 1.6487212707001282, false, 0 },
		{ "{\"pareto\": {\"scale\": 10, \"shape\": 2}}", DIST_COUNT, DIST_PARETO, 20,
		  false, 0 },
		{ "{\"bimodal\": {\"p\": 0.25, \"a\": \"1ms\", \"b\": {\"uniform\": {\"min\": 0, "
		  "\"max\": \"2us\"}}}}", DIST_TIME, DIST_BIMODAL, 0.25e6 + 0.75 * 1000, true, 1000000 },
		{ "{\"bimodal\": {\"p\": 0, \"a\": {\"exponential\": {\"mean\": 5}}, \"b\": 7}}",
		  DIST_COUNT, DIST_BIMODAL, 7, true, 7 },
		{ "{\"empirical\": {\"values\": [1, 2, \"1KiB\"], \"weights\": [1, 1, 2]}}",
		  DIST_SIZE, DIST_EMPIRICAL, (1 + 2 + 2048) / 4.0, true, 1024 },
		{ "{\"empirical\": {\"values\": [10, 20]}}", DIST_COUNT, DIST_EMPIRICAL, 15, true,
		  20 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct err e;
		struct dist *d = parse_text(cases[i].text, cases[i].unit, &e);
		ck_assert_msg(d != NULL, "%s: %s", cases[i].text, e.msg);
		ck_assert_int_eq(dist_kind(d), cases[i].kind);
		ck_assert_double_eq_tol(dist_mean(d), cases[i].mean, 1e-9 * cases[i].mean);
		int64_t max = -1;
		ck_assert_int_eq(dist_max(d, &max), cases[i].bounded);
		if (cases[i].bounded)
			ck_assert_int_eq(max, cases[i].max);
		ck_assert_int_eq(dist_is_const(d, NULL), cases[i].kind == DIST_CONST);
		dist_free(d);
	}
}
END_TEST

START_TEST(bad_negative_mean)
{
	expect_error("{\"exponential\": {\"mean\": -5}}", DIST_TIME, ".exponential.mean",
		     "must be > 0 (got -5)");
	expect_error("{\"normal\": {\"mean\": \"-1ms\", \"stddev\": 1}}", DIST_TIME,
		     ".normal.mean", "must be >= 0 (got \"-1ms\")");
	expect_error("{\"normal\": {\"mean\": 10, \"stddev\": -1}}", DIST_TIME, ".normal.stddev",
		     "must be > 0 (got -1)");
}
END_TEST

START_TEST(bad_sigma)
{
	expect_error("{\"lognormal\": {\"median\": 100, \"sigma\": 0}}", DIST_TIME,
		     ".lognormal.sigma", "must be > 0 (got 0)");
	expect_error("{\"lognormal\": {\"median\": 100, \"sigma\": -0.5}}", DIST_TIME,
		     ".lognormal.sigma", "must be > 0 (got -0.5)");
	expect_error("{\"pareto\": {\"scale\": 0, \"shape\": 1}}", DIST_TIME, ".pareto.scale",
		     "must be > 0 (got 0)");
}
END_TEST

START_TEST(bad_min_above_max)
{
	expect_error("{\"uniform\": {\"min\": \"2ms\", \"max\": \"1ms\"}}", DIST_TIME,
		     ".uniform.max", "must be >= min (got max 1e+06, min 2e+06)");
}
END_TEST

START_TEST(bad_p)
{
	expect_error("{\"bimodal\": {\"p\": 1.5, \"a\": 1, \"b\": 2}}", DIST_COUNT, ".bimodal.p",
		     "must be between 0 and 1 (got 1.5)");
	expect_error("{\"bimodal\": {\"p\": -0.1, \"a\": 1, \"b\": 2}}", DIST_COUNT, ".bimodal.p",
		     "must be between 0 and 1 (got -0.1)");
	/* Errors inside a nested distribution name its own path. */
	expect_error("{\"bimodal\": {\"p\": 0.5, \"a\": 1, \"b\": {\"exponential\": "
		     "{\"mean\": 0}}}}", DIST_COUNT, ".bimodal.b.exponential.mean",
		     "must be > 0 (got 0)");
}
END_TEST

START_TEST(bad_empty_empirical)
{
	expect_error("{\"empirical\": {\"values\": []}}", DIST_COUNT, ".empirical.values",
		     "must list at least one value");
	expect_error("{\"empirical\": {\"values\": [1, 2], \"weights\": [0, 0]}}", DIST_COUNT,
		     ".empirical.weights", "must have a positive, finite sum");
	expect_error("{\"empirical\": {\"values\": [1, 2], \"weights\": [1, -1]}}", DIST_COUNT,
		     ".empirical.weights[1]", "must be >= 0 (got -1)");
	expect_error("{\"empirical\": {\"weights\": [1]}}", DIST_COUNT, ".empirical.values",
		     "required key is missing");
}
END_TEST

START_TEST(bad_weights_length)
{
	expect_error("{\"empirical\": {\"values\": [1, 2, 3], \"weights\": [1, 2]}}", DIST_COUNT,
		     ".empirical.weights", "has 2 entries but values has 3");
}
END_TEST

START_TEST(bad_unknown_kind)
{
	expect_error("{\"poisson\": {\"mean\": 3}}", DIST_COUNT, ".poisson",
		     "unknown distribution (expected one of: uniform, exponential, normal, "
		     "lognormal, pareto, bimodal, empirical)");
	expect_error("{\"uniform\": {\"min\": 1, \"max\": 2, \"step\": 1}}", DIST_COUNT,
		     ".uniform.step", "unknown key (expected one of: min, max)");
	expect_error("{}", DIST_COUNT, "", "expected one distribution");
}
END_TEST

START_TEST(bad_two_keys)
{
	expect_error("{\"uniform\": {\"min\": 1, \"max\": 2}, \"normal\": {\"mean\": 1, "
		     "\"stddev\": 1}}", DIST_COUNT, "",
		     "expected exactly one distribution kind, got \"uniform\" and \"normal\"");
}
END_TEST

START_TEST(bad_wrong_type)
{
	expect_error("true", DIST_TIME, "", "expected a time (ns, or a string like \"10us\") or a "
		     "distribution");
	expect_error("[1, 2]", DIST_SIZE, "", "expected a size");
	expect_error("{\"lognormal\": {\"median\": 100, \"sigma\": \"1ms\"}}", DIST_TIME,
		     ".lognormal.sigma", "expected a plain number, got a string");
	expect_error("{\"uniform\": 5}", DIST_TIME, ".uniform", "expected an object, got a number");
	expect_error("{\"empirical\": {\"values\": 5}}", DIST_TIME, ".empirical.values",
		     "expected an array, got a number");
	expect_error("{\"empirical\": {\"values\": [1, null]}}", DIST_TIME, ".empirical.values[1]",
		     "expected a time");
}
END_TEST

START_TEST(bad_nesting_depth)
{
	char text[2048] = "1";
	for (int i = 0; i <= DIST_MAX_DEPTH; i++) {
		char next[2048];
		snprintf(next, sizeof(next), "{\"bimodal\": {\"p\": 0.5, \"a\": 1, \"b\": %s}}", text);
		strcpy(text, next);
	}
	struct err e;
	ck_assert_ptr_null(parse_text(text, DIST_COUNT, &e));
	ck_assert_msg(strstr(e.msg, "nested more than 8 deep") != NULL, "%s", e.msg);
}
END_TEST

START_TEST(sample_means)
{
	static const struct { const char *text; double tol; } cases[] = {
		{ "{\"exponential\": {\"mean\": \"10us\"}}", 0.03 },
		{ "{\"uniform\": {\"min\": 1000, \"max\": 3000}}", 0.01 },
		{ "{\"uniform\": {\"min\": 0.5, \"max\": 99.5}}", 0.02 },
		{ "{\"normal\": {\"mean\": 5000, \"stddev\": 1000}}", 0.01 },
		{ "{\"lognormal\": {\"median\": 1000, \"sigma\": 0.5}}", 0.03 },
		{ "{\"bimodal\": {\"p\": 0.9, \"a\": 100, \"b\": {\"exponential\": "
		  "{\"mean\": 10000}}}}", 0.05 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct err e;
		struct dist *d = parse_text(cases[i].text, DIST_TIME, &e);
		ck_assert_msg(d != NULL, "%s", e.msg);
		double got = sample_mean(d, 20000, i), want = dist_mean(d);
		ck_assert_msg(fabs(got - want) <= cases[i].tol * want, "%s: sample mean %g, mean %g",
			      cases[i].text, got, want);
		dist_free(d);
	}
}
END_TEST

/* Whole bounds: every integer in [min, max] alike, nothing outside. */
START_TEST(uniform_whole_bounds)
{
	struct err e;
	struct dist *d = parse_text("{\"uniform\": {\"min\": 1, \"max\": 6}}", DIST_COUNT, &e);
	ck_assert_ptr_nonnull(d);
	uint64_t word;
	gsl_rng *r = stream(&word, 7, 0);
	int seen[8] = { 0 };
	for (int i = 0; i < 12000; i++) {
		int64_t x = dist_sample(d, r);
		seen[x >= 1 && x <= 6 ? x : 0]++;
	}
	ck_assert_int_eq(seen[0], 0);
	for (int k = 1; k <= 6; k++)
		ck_assert_msg(abs(seen[k] - 2000) < 200, "%d seen %d times", k, seen[k]);
	gsl_rng_free(r);
	dist_free(d);
}
END_TEST

START_TEST(empirical_weights)
{
	struct err e;
	struct dist *d = parse_text("{\"empirical\": {\"values\": [\"10us\", \"20us\", \"1ms\"], "
				    "\"weights\": [1, 0, 3]}}", DIST_TIME, &e);
	ck_assert_msg(d != NULL, "%s", e.msg);
	uint64_t word;
	gsl_rng *r = stream(&word, 1, 99);
	int small = 0, large = 0;
	for (int i = 0; i < 20000; i++) {
		int64_t x = dist_sample(d, r);
		small += x == 10000;
		large += x == 1000000;
	}
	ck_assert_msg(fabs(large / 20000.0 - 0.75) < 0.02, "1ms picked %d of 20000", large);
	ck_assert_int_eq(small + large, 20000);   /* nothing else, not even 20us */
	int64_t max;
	ck_assert(dist_max(d, &max));
	ck_assert_int_eq(max, 1000000);
	gsl_rng_free(r);
	dist_free(d);
}
END_TEST

/* The generator as GSL sees it, and its draws in range. */
START_TEST(rng_type)
{
	uint64_t word;
	gsl_rng *r = stream(&word, 3, 4);
	ck_assert_str_eq(gsl_rng_name(r), "schedlab-splitmix64");
	ck_assert_uint_eq(gsl_rng_min(r), 0);
	ck_assert_uint_eq(gsl_rng_max(r), 0xffffffffUL);
	uint64_t before = word;
	double lo = 1, hi = 0;
	unsigned long top = 0;
	for (int i = 0; i < 10000; i++) {
		double u = gsl_rng_uniform(r);
		lo = fmin(lo, u);
		hi = fmax(hi, u);
		unsigned long g = gsl_rng_get(r);
		top = g > top ? g : top;
	}
	ck_assert(lo >= 0 && lo < 0.001 && hi > 0.999 && hi < 1);
	ck_assert_uint_le(top, 0xffffffffUL);
	ck_assert_uint_gt(top, 0xff000000UL);
	ck_assert_uint_ne(word, before);   /* draws advance the caller's word */
	/* gsl_rng_set detaches it onto a word of its own. */
	uint64_t held = word;
	gsl_rng_set(r, 5);
	gsl_rng_uniform(r);
	ck_assert_uint_eq(word, held);
	gsl_rng_free(r);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

START_TEST(streams_by_key)
{
	struct err e;
	struct dist *d = parse_text("{\"exponential\": {\"mean\": 1000}}", DIST_TIME, &e);
	ck_assert_ptr_nonnull(d);
	enum { N = 64 };
	int64_t a[N], b[N], c[N];
	uint64_t k1 = dist_key_child(0, 1), k2 = dist_key_child(0, 2);
	uint64_t w1, w2;
	gsl_rng *r = stream(&w1, 42, k1);
	for (int i = 0; i < N; i++)
		a[i] = dist_sample(d, r);
	/* The same stream again, interleaved with another one through the same
	 * gsl_rng: the order Gs run in does not change their values. */
	w1 = dist_stream_seed(42, k1);
	w2 = dist_stream_seed(42, k2);
	for (int i = 0; i < N; i++) {
		dist_rng_use(r, &w1);
		b[i] = dist_sample(d, r);
		dist_rng_use(r, &w2);
		c[i] = dist_sample(d, r);
	}
	ck_assert_mem_eq(a, b, sizeof(a));
	int same = 0;
	for (int i = 0; i < N; i++)
		same += a[i] == c[i];
	ck_assert_int_lt(same, 4);
	/* Another run seed, another sequence. */
	w1 = dist_stream_seed(43, k1);
	dist_rng_use(r, &w1);
	same = 0;
	for (int i = 0; i < N; i++)
		same += a[i] == dist_sample(d, r);
	ck_assert_int_lt(same, 4);
	gsl_rng_free(r);
	dist_free(d);

	/* Keys: children of one parent distinct, grandchildren too, and not
	 * equal to their parent's. */
	enum { K = 2000 };
	uint64_t *keys = malloc(2 * K * sizeof(*keys));
	for (uint64_t i = 0; i < K; i++) {
		keys[i] = dist_key_child(0, i);
		keys[K + i] = dist_key_child(keys[i % 7], i / 7);
	}
	qsort(keys, 2 * K, sizeof(*keys), cmp_u64);
	int dups = keys[0] == 0;
	for (int i = 1; i < 2 * K; i++)
		dups += keys[i] == keys[i - 1] || keys[i] == 0;
	ck_assert_int_eq(dups, 0);
	free(keys);

	/* Well mixed: neighbouring keys or seeds give states differing in
	 * about half their bits (states a multiple of splitmix64's increment
	 * apart would be the same stream shifted). */
	int bits_key = 0, bits_seed = 0;
	for (uint64_t i = 0; i < 1000; i++) {
		bits_key += __builtin_popcountll(dist_stream_seed(1, i) ^ dist_stream_seed(1, i + 1));
		bits_seed += __builtin_popcountll(dist_stream_seed(i, 3) ^ dist_stream_seed(i + 1, 3));
	}
	ck_assert_msg(abs(bits_key - 32000) < 1000 && abs(bits_seed - 32000) < 1000,
		      "%d and %d bits of 64000 differ", bits_key, bits_seed);
}
END_TEST

/* Written back (canonical numbers, printed and read again), every kind
 * gives the same samples from the same stream. */
START_TEST(json_round_trip)
{
	static const struct { const char *text; enum dist_unit unit; } cases[] = {
		{ "\"1.5ms\"", DIST_TIME },
		{ "{\"uniform\": {\"min\": \"1us\", \"max\": \"3.3us\"}}", DIST_TIME },
		{ "{\"uniform\": {\"min\": 0.25, \"max\": 0.75}}", DIST_TIME },
		{ "{\"exponential\": {\"mean\": \"1.1ms\"}}", DIST_TIME },
		{ "{\"normal\": {\"mean\": \"4KiB\", \"stddev\": 100.7}}", DIST_SIZE },
		{ "{\"lognormal\": {\"median\": 1000, \"sigma\": 0.3333333333333333}}", DIST_TIME },
		{ "{\"pareto\": {\"scale\": 10, \"shape\": 1.1}}", DIST_COUNT },
		{ "{\"bimodal\": {\"p\": 0.1, \"a\": {\"exponential\": {\"mean\": \"5ms\"}}, "
		  "\"b\": {\"empirical\": {\"values\": [\"1us\", 7]}}}}", DIST_TIME },
		{ "{\"empirical\": {\"values\": [\"1KiB\", \"1.5MiB\", 3], \"weights\": "
		  "[0.1, 0.7, 0.2]}}", DIST_SIZE },
	};
	struct jv j = { "trace.json", NULL };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct err e;
		j.e = &e;
		struct dist *d = parse_text(cases[i].text, cases[i].unit, &e);
		ck_assert_msg(d != NULL, "%s: %s", cases[i].text, e.msg);
		cJSON *out = dist_to_json(d);
		char *printed = cJSON_PrintUnformatted(out);
		ck_assert_msg(strstr(printed, "\"1") == NULL && strstr(printed, "\"3") == NULL,
			      "unit strings in %s", printed);
		cJSON *back = cJSON_Parse(printed);
		struct dist *d2 = dist_parse(&j, back, "$", cases[i].unit);
		ck_assert_msg(d2 != NULL, "%s: %s", printed, e.msg);
		cJSON *out2 = dist_to_json(d2);
		char *printed2 = cJSON_PrintUnformatted(out2);
		ck_assert_str_eq(printed, printed2);
		uint64_t w1 = dist_stream_seed(9, i), w2 = w1;
		gsl_rng *r = dist_rng_new();
		int differ = 0;
		for (int k = 0; k < 500; k++) {
			dist_rng_use(r, &w1);
			int64_t x = dist_sample(d, r);
			dist_rng_use(r, &w2);
			differ += x != dist_sample(d2, r);
		}
		ck_assert_int_eq(differ, 0);
		ck_assert_uint_eq(w1, w2);
		gsl_rng_free(r);
		free(printed);
		free(printed2);
		cJSON_Delete(out);
		cJSON_Delete(out2);
		cJSON_Delete(back);
		dist_free(d);
		dist_free(d2);
	}
}
END_TEST

/* Heavy tails and wide normals stay within [0, DIST_VALUE_MAX]. */
START_TEST(samples_clamped)
{
	struct err e;
	struct dist *p = parse_text("{\"pareto\": {\"scale\": 1e18, \"shape\": 0.05}}",
				    DIST_COUNT, &e);
	struct dist *n = parse_text("{\"normal\": {\"mean\": 1, \"stddev\": 1000}}", DIST_TIME,
				    &e);
	ck_assert(p && n);
	ck_assert(isinf(dist_mean(p)));
	uint64_t word;
	gsl_rng *r = stream(&word, 5, 5);
	int zeros = 0, tops = 0, bad = 0;
	for (int i = 0; i < 2000; i++) {
		int64_t x = dist_sample(p, r), y = dist_sample(n, r);
		bad += x < 0 || x > DIST_VALUE_MAX || y < 0;
		tops += x == DIST_VALUE_MAX;
		zeros += y == 0;
	}
	ck_assert_int_eq(bad, 0);
	ck_assert_int_gt(tops, 0);
	ck_assert_int_gt(zeros, 800);
	gsl_rng_free(r);
	dist_free(p);
	dist_free(n);
}
END_TEST

Suite *make_dist_suite(void)
{
	Suite *s = suite_create("workloads");
	TCase *tc = tcase_create("dist");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, constants_and_units);
	tcase_add_test(tc, each_kind_parses);
	tcase_add_test(tc, bad_negative_mean);
	tcase_add_test(tc, bad_sigma);
	tcase_add_test(tc, bad_min_above_max);
	tcase_add_test(tc, bad_p);
	tcase_add_test(tc, bad_empty_empirical);
	tcase_add_test(tc, bad_weights_length);
	tcase_add_test(tc, bad_unknown_kind);
	tcase_add_test(tc, bad_two_keys);
	tcase_add_test(tc, bad_wrong_type);
	tcase_add_test(tc, bad_nesting_depth);
	tcase_add_test(tc, sample_means);
	tcase_add_test(tc, uniform_whole_bounds);
	tcase_add_test(tc, empirical_weights);
	tcase_add_test(tc, rng_type);
	tcase_add_test(tc, streams_by_key);
	tcase_add_test(tc, json_round_trip);
	tcase_add_test(tc, samples_clamped);
	suite_add_tcase(s, tc);
	return s;
}
