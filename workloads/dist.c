/* Distributions and per-goroutine random streams (see dist.h). */
#include "workloads/dist.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

struct dist {
	enum dist_kind kind;
	union {
		int64_t value;
		struct {
			double min, max;
			bool whole;   /* both bounds integers: draw integers evenly */
		} uniform;
		struct { double mean; } exponential;
		struct { double mean, stddev; } normal;
		struct { double median, sigma; } lognormal;
		struct { double scale, shape; } pareto;
		struct {
			double p;
			struct dist *a, *b;
		} bimodal;
		struct {
			size_t n;
			double *values, *weights;   /* weights as given (all 1 if omitted) */
			gsl_ran_discrete_t *table;
		} empirical;
	};
};

static const char *const kind_names[] = {
	[DIST_CONST] = "constant",
	[DIST_UNIFORM] = "uniform",
	[DIST_EXPONENTIAL] = "exponential",
	[DIST_NORMAL] = "normal",
	[DIST_LOGNORMAL] = "lognormal",
	[DIST_PARETO] = "pareto",
	[DIST_BIMODAL] = "bimodal",
	[DIST_EMPIRICAL] = "empirical",
};
#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

static struct dist *dist_new(enum dist_kind kind)
{
	struct dist *d = xcalloc(1, sizeof(*d));
	d->kind = kind;
	return d;
}

void dist_free(struct dist *d)
{
	if (!d)
		return;
	if (d->kind == DIST_BIMODAL) {
		dist_free(d->bimodal.a);
		dist_free(d->bimodal.b);
	} else if (d->kind == DIST_EMPIRICAL) {
		free(d->empirical.values);
		free(d->empirical.weights);
		if (d->empirical.table)
			gsl_ran_discrete_free(d->empirical.table);
	}
	free(d);
}

/* Rounds to the nearest integer in [0, DIST_VALUE_MAX]; NaN (a draw gone
 * wrong) is 0 rather than undefined behaviour in the conversion. */
static int64_t round_clamp(double x)
{
	if (!(x > 0))
		return 0;
	if (x >= (double)DIST_VALUE_MAX)
		return DIST_VALUE_MAX;
	return (int64_t)llround(x);
}

struct dist *dist_const(int64_t v)
{
	struct dist *d = dist_new(DIST_CONST);
	d->value = v < 0 ? 0 : v > DIST_VALUE_MAX ? DIST_VALUE_MAX : v;
	return d;
}

/* ---- parsing ---- */

static const char *unit_expected(enum dist_unit unit)
{
	switch (unit) {
	case DIST_TIME:
		return "a time (ns, or a string like \"10us\")";
	case DIST_SIZE:
		return "a size (bytes, or a string like \"64KiB\")";
	default:
		return "a number";
	}
}

static const char *unit_word(enum dist_unit unit)
{
	return unit == DIST_TIME ? "ns" : unit == DIST_SIZE ? "bytes" : "";
}

/* "1.5ms" -> 1500000.  Times scale by powers of ten in the decimal text
 * itself (1.1us is exactly 1100 ns, which 1.1 * 1000 in binary is not);
 * sizes by powers of two, which is exact anyway. */
static bool unit_string(const struct jv *j, const char *path, const char *s,
			enum dist_unit unit, double *out)
{
	static const struct { const char *name; int exp10; } times[] = {
		{ "ns", 0 }, { "us", 3 }, { "\xc2\xb5s", 3 }, { "\xce\xbcs", 3 },
		{ "ms", 6 }, { "s", 9 },
	};
	static const struct { const char *name; double mult; } sizes[] = {
		{ "", 1 }, { "B", 1 },
		{ "K", 1024.0 }, { "KB", 1024.0 }, { "KiB", 1024.0 }, { "kB", 1024.0 },
		{ "M", 1048576.0 }, { "MB", 1048576.0 }, { "MiB", 1048576.0 },
		{ "G", 1073741824.0 }, { "GB", 1073741824.0 }, { "GiB", 1073741824.0 },
		{ "T", 1099511627776.0 }, { "TB", 1099511627776.0 }, { "TiB", 1099511627776.0 },
	};
	const char *units = unit == DIST_TIME ? "ns, us, ms or s" : "B, KiB, MiB, GiB or TiB";
	/* Only decimal digits: strtod would also take "inf", "nan" and hex. */
	size_t len = strspn(s, "+-0123456789.eE");
	char num[64];
	if (len == 0 || len >= sizeof(num))
		return jv_fail(j, path, "bad %s \"%s\" (expected a number and a unit, like \"%s\")",
			       unit == DIST_TIME ? "time" : "size", s,
			       unit == DIST_TIME ? "10us" : "64KiB");
	memcpy(num, s, len);
	num[len] = '\0';
	char *end;
	errno = 0;
	double x = strtod(num, &end);
	if (*end || errno || !isfinite(x))
		return jv_fail(j, path, "bad number in \"%s\"", s);
	const char *u = s + len;
	while (*u == ' ')
		u++;
	if (unit == DIST_SIZE) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			if (strcmp(u, sizes[i].name) == 0) {
				*out = x * sizes[i].mult;
				return true;
			}
		return jv_fail(j, path, "unknown unit in \"%s\" (use %s)", s, units);
	}
	if (!*u)
		return jv_fail(j, path, "missing unit in \"%s\" (use %s)", s, units);
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		if (strcmp(u, times[i].name) != 0)
			continue;
		char *e = strpbrk(num, "eE");
		long exp10 = 0;
		if (e) {
			exp10 = strtol(e + 1, NULL, 10);
			*e = '\0';
		}
		char scaled[96];
		snprintf(scaled, sizeof(scaled), "%se%ld", num, exp10 + times[i].exp10);
		*out = strtod(scaled, NULL);
		return true;
	}
	return jv_fail(j, path, "unknown unit in \"%s\" (use %s)", s, units);
}

/* A constant C in the unit: >= 0, or > 0 if positive. */
static bool constant(const struct jv *j, const cJSON *v, const char *path, enum dist_unit unit,
		     bool positive, double *out)
{
	double x;
	char got[96];
	if (cJSON_IsNumber(v)) {
		x = v->valuedouble;
		snprintf(got, sizeof(got), "%g", x);
	} else if (cJSON_IsString(v) && unit != DIST_COUNT) {
		if (!unit_string(j, path, v->valuestring, unit, &x))
			return false;
		snprintf(got, sizeof(got), "\"%.80s\"", v->valuestring);
	} else {
		return jv_fail(j, path, "expected %s, got %s", unit_expected(unit), jv_type_name(v));
	}
	if (!isfinite(x))
		return jv_fail(j, path, "must be a finite number (got %s)", got);
	if (positive ? !(x > 0) : !(x >= 0))
		return jv_fail(j, path, "must be %s 0 (got %s)", positive ? ">" : ">=", got);
	if (x > (double)DIST_VALUE_MAX)
		return jv_fail(j, path, "must be at most %lld%s%s (got %s)", (long long)DIST_VALUE_MAX,
			       unit == DIST_COUNT ? "" : " ", unit_word(unit), got);
	*out = x;
	return true;
}

/* A plain number X (no unit). */
static bool plain(const struct jv *j, const cJSON *v, const char *path, double *out)
{
	if (!cJSON_IsNumber(v))
		return jv_fail(j, path, "expected a plain number, got %s", jv_type_name(v));
	if (!isfinite(v->valuedouble))
		return jv_fail(j, path, "must be a finite number (got %g)", v->valuedouble);
	*out = v->valuedouble;
	return true;
}

/* obj[key], which must be there; kp receives its path. */
static const cJSON *member(const struct jv *j, const cJSON *obj, const char *path,
			   const char *key, char *kp)
{
	jv_key(kp, JV_PATH, path, key);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v)
		jv_fail(j, kp, "required key is missing");
	return v;
}

static bool member_const(const struct jv *j, const cJSON *obj, const char *path,
			 const char *key, enum dist_unit unit, bool positive, double *out)
{
	char kp[JV_PATH];
	const cJSON *v = member(j, obj, path, key, kp);
	return v && constant(j, v, kp, unit, positive, out);
}

static bool member_positive(const struct jv *j, const cJSON *obj, const char *path,
			    const char *key, double *out)
{
	char kp[JV_PATH];
	const cJSON *v = member(j, obj, path, key, kp);
	if (!v || !plain(j, v, kp, out))
		return false;
	if (!(*out > 0))
		return jv_fail(j, kp, "must be > 0 (got %g)", *out);
	return true;
}

static struct dist *parse(const struct jv *j, const cJSON *v, const char *path,
			  enum dist_unit unit, int depth);

static bool parse_empirical(const struct jv *j, const cJSON *body, const char *path,
			    enum dist_unit unit, struct dist *d)
{
	char kp[JV_PATH], ip[JV_PATH];
	const cJSON *vals = member(j, body, path, "values", kp);
	if (!vals || !jv_array(j, vals, kp))
		return false;
	int n = cJSON_GetArraySize(vals);
	if (n == 0)
		return jv_fail(j, kp, "must list at least one value");
	d->empirical.n = (size_t)n;
	d->empirical.values = xcalloc((size_t)n, sizeof(double));
	d->empirical.weights = xcalloc((size_t)n, sizeof(double));
	int i = 0;
	for (const cJSON *it = vals->child; it; it = it->next, i++)
		if (!constant(j, it, jv_idx(ip, sizeof(ip), kp, i), unit, false,
			      &d->empirical.values[i]))
			return false;
	const cJSON *ws = cJSON_GetObjectItemCaseSensitive(body, "weights");
	jv_key(kp, sizeof(kp), path, "weights");
	if (!ws) {
		for (i = 0; i < n; i++)
			d->empirical.weights[i] = 1;
	} else {
		if (!jv_array(j, ws, kp))
			return false;
		if (cJSON_GetArraySize(ws) != n)
			return jv_fail(j, kp, "has %d entries but values has %d",
				       cJSON_GetArraySize(ws), n);
		double sum = 0;
		i = 0;
		for (const cJSON *it = ws->child; it; it = it->next, i++) {
			double *w = &d->empirical.weights[i];
			jv_idx(ip, sizeof(ip), kp, i);
			if (!plain(j, it, ip, w))
				return false;
			if (!(*w >= 0))
				return jv_fail(j, ip, "must be >= 0 (got %g)", *w);
			sum += *w;
		}
		if (!(sum > 0) || !isfinite(sum))
			return jv_fail(j, kp, "must have a positive, finite sum");
	}
	d->empirical.table = gsl_ran_discrete_preproc(d->empirical.n, d->empirical.weights);
	if (!d->empirical.table)
		die_oom(d->empirical.n * 3 * sizeof(double));
	return true;
}

/* The keys of each kind's object, in the order dist_to_json writes them;
 * for the kinds made of numbers, where each number lives (param_off). */
static const char *const *const kind_keys[] = {
	[DIST_UNIFORM] = (const char *const[]){ "min", "max", NULL },
	[DIST_EXPONENTIAL] = (const char *const[]){ "mean", NULL },
	[DIST_NORMAL] = (const char *const[]){ "mean", "stddev", NULL },
	[DIST_LOGNORMAL] = (const char *const[]){ "median", "sigma", NULL },
	[DIST_PARETO] = (const char *const[]){ "scale", "shape", NULL },
	[DIST_BIMODAL] = (const char *const[]){ "p", "a", "b", NULL },
	[DIST_EMPIRICAL] = (const char *const[]){ "values", "weights", NULL },
};
#define PARAM(field) offsetof(struct dist, field)
static const size_t param_off[][2] = {
	[DIST_UNIFORM] = { PARAM(uniform.min), PARAM(uniform.max) },
	[DIST_EXPONENTIAL] = { PARAM(exponential.mean) },
	[DIST_NORMAL] = { PARAM(normal.mean), PARAM(normal.stddev) },
	[DIST_LOGNORMAL] = { PARAM(lognormal.median), PARAM(lognormal.sigma) },
	[DIST_PARETO] = { PARAM(pareto.scale), PARAM(pareto.shape) },
};
#undef PARAM

/* Fills d (of the kind named at path) from body, the object under the kind. */
static bool parse_kind(const struct jv *j, const cJSON *body, const char *path,
		       enum dist_unit unit, int depth, struct dist *d)
{
	char kp[JV_PATH];
	if (!jv_object(j, body, path, kind_keys[d->kind]))
		return false;
	switch (d->kind) {
	case DIST_UNIFORM: {
		double *lo = &d->uniform.min, *hi = &d->uniform.max;
		if (!member_const(j, body, path, "min", unit, false, lo) ||
		    !member_const(j, body, path, "max", unit, false, hi))
			return false;
		if (*lo > *hi)
			return jv_fail(j, jv_key(kp, sizeof(kp), path, "max"),
				       "must be >= min (got max %g, min %g)", *hi, *lo);
		d->uniform.whole = *lo == floor(*lo) && *hi == floor(*hi);
		return true;
	}
	case DIST_EXPONENTIAL:
		return member_const(j, body, path, "mean", unit, true, &d->exponential.mean);
	case DIST_NORMAL:
		return member_const(j, body, path, "mean", unit, false, &d->normal.mean) &&
		       member_const(j, body, path, "stddev", unit, true, &d->normal.stddev);
	case DIST_LOGNORMAL:
		return member_const(j, body, path, "median", unit, true, &d->lognormal.median) &&
		       member_positive(j, body, path, "sigma", &d->lognormal.sigma);
	case DIST_PARETO:
		return member_const(j, body, path, "scale", unit, true, &d->pareto.scale) &&
		       member_positive(j, body, path, "shape", &d->pareto.shape);
	case DIST_BIMODAL: {
		const cJSON *v = member(j, body, path, "p", kp);
		if (!v || !plain(j, v, kp, &d->bimodal.p))
			return false;
		if (!(d->bimodal.p >= 0 && d->bimodal.p <= 1))
			return jv_fail(j, kp, "must be between 0 and 1 (got %g)", d->bimodal.p);
		if (!(v = member(j, body, path, "a", kp)) ||
		    !(d->bimodal.a = parse(j, v, kp, unit, depth + 1)))
			return false;
		if (!(v = member(j, body, path, "b", kp)) ||
		    !(d->bimodal.b = parse(j, v, kp, unit, depth + 1)))
			return false;
		return true;
	}
	case DIST_EMPIRICAL:
		return parse_empirical(j, body, path, unit, d);
	default:
		return false;
	}
}

static struct dist *parse(const struct jv *j, const cJSON *v, const char *path,
			  enum dist_unit unit, int depth)
{
	if (cJSON_IsNumber(v) || cJSON_IsString(v)) {
		double x;
		if (!constant(j, v, path, unit, false, &x))
			return NULL;
		/* A constant is exact: 2.5 Gs or half a byte is a mistake,
		 * not something to round quietly. */
		if (x != floor(x)) {
			jv_fail(j, path, "must be a whole number%s%s (got %.17g)",
				unit == DIST_COUNT ? "" : " of ", unit_word(unit), x);
			return NULL;
		}
		return dist_const((int64_t)x);
	}
	if (!cJSON_IsObject(v)) {
		jv_fail(j, path, "expected %s or a distribution like {\"exponential\": {\"mean\": ...}}, got %s",
			unit_expected(unit), jv_type_name(v));
		return NULL;
	}
	char list[256] = "";
	size_t len = 0;
	for (size_t k = DIST_UNIFORM; k < NKINDS; k++)
		len = str_list_add(list, sizeof(list), len, kind_names[k]);
	const cJSON *body = v->child;
	if (!body) {
		jv_fail(j, path, "expected one distribution (%s), got an empty object", list);
		return NULL;
	}
	if (body->next) {
		jv_fail(j, path, "expected exactly one distribution kind, got \"%s\" and \"%s\"%s",
			body->string, body->next->string, body->next->next ? " and more" : "");
		return NULL;
	}
	char kp[JV_PATH];
	jv_key(kp, sizeof(kp), path, body->string);
	size_t kind = DIST_UNIFORM;
	while (kind < NKINDS && strcmp(kind_names[kind], body->string) != 0)
		kind++;
	if (kind == NKINDS) {
		jv_fail(j, kp, "unknown distribution (expected one of: %s)", list);
		return NULL;
	}
	if (kind == DIST_BIMODAL && depth >= DIST_MAX_DEPTH) {
		jv_fail(j, kp, "distributions nested more than %d deep", DIST_MAX_DEPTH);
		return NULL;
	}
	struct dist *d = dist_new((enum dist_kind)kind);
	if (!parse_kind(j, body, kp, unit, depth, d)) {
		dist_free(d);
		return NULL;
	}
	return d;
}

struct dist *dist_parse(const struct jv *j, const cJSON *v, const char *path,
			enum dist_unit unit)
{
	return parse(j, v, path, unit, 0);
}

/* ---- queries and sampling ---- */

bool dist_is_const(const struct dist *d, int64_t *value)
{
	if (d->kind != DIST_CONST)
		return false;
	if (value)
		*value = d->value;
	return true;
}

enum dist_kind dist_kind(const struct dist *d)
{
	return d->kind;
}

bool dist_max(const struct dist *d, int64_t *max)
{
	switch (d->kind) {
	case DIST_CONST:
		*max = d->value;
		return true;
	case DIST_UNIFORM:
		*max = round_clamp(d->uniform.max);
		return true;
	case DIST_BIMODAL: {
		/* A side never picked does not bound anything. */
		int64_t ma = 0, mb = 0;
		if (d->bimodal.p > 0 && !dist_max(d->bimodal.a, &ma))
			return false;
		if (d->bimodal.p < 1 && !dist_max(d->bimodal.b, &mb))
			return false;
		*max = ma > mb ? ma : mb;
		return true;
	}
	case DIST_EMPIRICAL: {
		int64_t m = 0;
		for (size_t i = 0; i < d->empirical.n; i++)
			if (d->empirical.weights[i] > 0 && round_clamp(d->empirical.values[i]) > m)
				m = round_clamp(d->empirical.values[i]);
		*max = m;
		return true;
	}
	default:
		return false;
	}
}

double dist_mean(const struct dist *d)
{
	switch (d->kind) {
	case DIST_CONST:
		return (double)d->value;
	case DIST_UNIFORM:
		return (d->uniform.min + d->uniform.max) / 2;
	case DIST_EXPONENTIAL:
		return d->exponential.mean;
	case DIST_NORMAL:
		return d->normal.mean;
	case DIST_LOGNORMAL:
		return d->lognormal.median * exp(d->lognormal.sigma * d->lognormal.sigma / 2);
	case DIST_PARETO:
		if (d->pareto.shape <= 1)
			return INFINITY;
		return d->pareto.shape * d->pareto.scale / (d->pareto.shape - 1);
	case DIST_BIMODAL: {
		/* Skip a side never picked: 0 * INFINITY would be NaN. */
		double m = 0, p = d->bimodal.p;
		if (p > 0)
			m += p * dist_mean(d->bimodal.a);
		if (p < 1)
			m += (1 - p) * dist_mean(d->bimodal.b);
		return m;
	}
	case DIST_EMPIRICAL: {
		double sw = 0, swv = 0;
		for (size_t i = 0; i < d->empirical.n; i++) {
			sw += d->empirical.weights[i];
			swv += d->empirical.weights[i] * d->empirical.values[i];
		}
		return swv / sw;
	}
	}
	return 0;
}

int64_t dist_sample(const struct dist *d, gsl_rng *r)
{
	double x = 0;
	switch (d->kind) {
	case DIST_CONST:
		return d->value;
	case DIST_UNIFORM:
		if (d->uniform.whole) {
			double span = d->uniform.max - d->uniform.min + 1;
			x = floor(d->uniform.min + gsl_rng_uniform(r) * span);
			if (x > d->uniform.max)   /* u * span rounded up */
				x = d->uniform.max;
		} else {
			x = gsl_ran_flat(r, d->uniform.min, d->uniform.max);
		}
		break;
	case DIST_EXPONENTIAL:
		x = gsl_ran_exponential(r, d->exponential.mean);
		break;
	case DIST_NORMAL:
		x = d->normal.mean + gsl_ran_gaussian_ziggurat(r, d->normal.stddev);
		break;
	case DIST_LOGNORMAL:
		x = gsl_ran_lognormal(r, log(d->lognormal.median), d->lognormal.sigma);
		break;
	case DIST_PARETO:
		x = gsl_ran_pareto(r, d->pareto.shape, d->pareto.scale);
		break;
	case DIST_BIMODAL:
		return dist_sample(gsl_rng_uniform(r) < d->bimodal.p ? d->bimodal.a : d->bimodal.b, r);
	case DIST_EMPIRICAL:
		x = d->empirical.values[gsl_ran_discrete(r, d->empirical.table)];
		break;
	}
	return round_clamp(x);
}

/* ---- writing back ---- */

static cJSON *checked(cJSON *v)
{
	if (!v)
		die_oom(sizeof(cJSON));
	return v;
}

static void add_number(cJSON *obj, const char *key, double x)
{
	cJSON_AddItemToObject(obj, key, checked(cJSON_CreateNumber(x)));
}

static cJSON *number_array(const double *xs, size_t n)
{
	cJSON *a = checked(cJSON_CreateArray());
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, checked(cJSON_CreateNumber(xs[i])));
	return a;
}

cJSON *dist_to_json(const struct dist *d)
{
	if (d->kind == DIST_CONST)
		return checked(cJSON_CreateNumber((double)d->value));
	cJSON *root = checked(cJSON_CreateObject());
	cJSON *body = checked(cJSON_CreateObject());
	cJSON_AddItemToObject(root, kind_names[d->kind], body);
	switch (d->kind) {
	case DIST_UNIFORM:
	case DIST_EXPONENTIAL:
	case DIST_NORMAL:
	case DIST_LOGNORMAL:
	case DIST_PARETO:
		for (int i = 0; kind_keys[d->kind][i]; i++)
			add_number(body, kind_keys[d->kind][i],
				   *(const double *)((const char *)d + param_off[d->kind][i]));
		break;
	case DIST_BIMODAL:
		add_number(body, "p", d->bimodal.p);
		cJSON_AddItemToObject(body, "a", dist_to_json(d->bimodal.a));
		cJSON_AddItemToObject(body, "b", dist_to_json(d->bimodal.b));
		break;
	case DIST_EMPIRICAL:
		cJSON_AddItemToObject(body, "values",
				      number_array(d->empirical.values, d->empirical.n));
		cJSON_AddItemToObject(body, "weights",
				      number_array(d->empirical.weights, d->empirical.n));
		break;
	default:
		break;
	}
	return root;
}

/* ---- per-goroutine streams ---- */

#define GOLDEN 0x9e3779b97f4a7c15ULL

/* splitmix64's output function (Stafford's Mix13): a bijection that turns
 * nearby inputs into unrelated outputs. */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t splitmix_next(uint64_t *s)
{
	return mix64(*s += GOLDEN);
}

/* The gsl_rng's state: the word drawn from, the caller's (dist_rng_use) or
 * own (gsl_rng_set, which gsl_rng_alloc calls before anyone can point it
 * elsewhere, so word is never left dangling). */
struct splitmix_state {
	uint64_t *word;
	uint64_t own;
};

static void splitmix_set(void *state, unsigned long seed)
{
	struct splitmix_state *st = state;
	st->own = seed;
	st->word = &st->own;
}

static unsigned long splitmix_get(void *state)
{
	struct splitmix_state *st = state;
	return (unsigned long)(splitmix_next(st->word) >> 32);
}

/* 53 bits: every value a multiple of 2^-53 in [0, 1), as GSL requires. */
static double splitmix_get_double(void *state)
{
	struct splitmix_state *st = state;
	return (double)(splitmix_next(st->word) >> 11) * 0x1.0p-53;
}

static const gsl_rng_type splitmix_type = {
	.name = "schedlab-splitmix64",
	.max = 0xffffffffUL,
	.min = 0,
	.size = sizeof(struct splitmix_state),
	.set = splitmix_set,
	.get = splitmix_get,
	.get_double = splitmix_get_double,
};

gsl_rng *dist_rng_new(void)
{
	gsl_rng *r = gsl_rng_alloc(&splitmix_type);
	if (!r)
		die_oom(sizeof(struct splitmix_state));
	return r;
}

void dist_rng_use(gsl_rng *r, uint64_t *state)
{
	struct splitmix_state *st = r->state;
	st->word = state;
}

uint64_t dist_stream_seed(uint64_t run_seed, uint64_t key)
{
	/* Xor into a mixed run seed, then mix again: for one run, distinct
	 * keys give distinct states (mix64 is a bijection), spread over the
	 * whole cycle so streams are unlikely to overlap. */
	return mix64(mix64(run_seed ^ 0x6a09e667f3bcc909ULL) ^ key);
}

uint64_t dist_key_child(uint64_t parent_key, uint64_t index)
{
	/* index * GOLDEN is injective (GOLDEN is odd) and so is mix64: one
	 * parent's children never share a key. */
	return mix64(mix64(parent_key ^ 0xbb67ae8584caa73bULL) + (index + 1) * GOLDEN);
}
