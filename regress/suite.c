/* The metrics regress knows by short name, and its suites: a JSON file of
 * cases [docs/regress.md, "Suites"], checked key by key so a typo is an
 * error naming its JSON path, never a silently ignored setting. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/policy.h"
#include "exp/spec.h"
#include "regress/regress.h"
#include "regress/stats.h"
#include "util/gomaxprocs.h"
#include "util/jsonv.h"

bool rg_parse_pct(const char *s, double *frac)
{
	if (!s || !*s || isspace((unsigned char)*s))
		return false;
	char *end;
	double v = strtod(s, &end);
	if (end == s)
		return false;
	if (*end == '%')
		end++;
	if (*end || !isfinite(v) || v < 0 || v > 1000)
		return false;
	*frac = v / 100;
	return true;
}

/* ---- Suites ---- */

#define DEFAULT_SEEDS 8
#define MAX_SEEDS 1000
#define MAX_CASES 1000

/* Gated unless the suite says otherwise, and shown beside them. */
static const struct {
	const char *name;
	double pct;
} default_thresholds[] = {
	{ "request_p99", 5 }, { "sched_p99", 10 }, { "throughput", 2 }, { "makespan", 2 },
};
static const char *const default_shown[] = { "request_p50", "sched_p50" };

extern const struct { const char *name; const char *text; } regress_suite_files[];
extern const size_t regress_suite_files_count;

const char *rg_suite_default_text(void)
{
	for (size_t i = 0; i < regress_suite_files_count; i++)
		if (strcmp(regress_suite_files[i].name, "default") == 0)
			return regress_suite_files[i].text;
	return NULL;
}

void rg_suite_free(struct rg_suite *s)
{
	if (!s)
		return;
	free(s->label);
	for (int i = 0; i < s->ncases; i++) {
		struct rg_case *c = &s->cases[i];
		free(c->name);
		free(c->policy);
		cJSON_Delete(c->set);
		free(c->topology);
		free(c->workload);
		free(c->exercises);
		free(c->cpuset);
	}
	free(s->cases);
	free(s->threshold);
	free(s->shown);
	free(s->name);
	free(s->description);
	cJSON_Delete(s->json);
	free(s);
}

static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-+", *s))
			return false;
	return true;
}

static bool given_before(const cJSON *obj, const cJSON *k)
{
	for (const cJSON *o = obj->child; o != k; o = o->next)
		if (strcmp(o->string, k->string) == 0)
			return true;
	return false;
}

/* A case's "set": each knob once, and one the policy takes, as --set
 * would give it. */
static bool check_set(const struct jv *j, const cJSON *set, const char *path,
		      const struct pol_ops *pol)
{
	if (!cJSON_IsObject(set))
		return jv_fail(j, path, "expected an object of knobs, got %s", jv_type_name(set));
	int64_t *knobs = xcalloc((size_t)pol_nknobs(pol) + 1, sizeof(*knobs));
	pol_default_knobs(pol, knobs);
	bool ok = true;
	for (const cJSON *k = set->child; k && ok; k = k->next) {
		char q[JV_PATH];
		long v;
		jv_key(q, sizeof(q), path, k->string);
		if (given_before(set, k)) {
			ok = jv_fail(j, q, "key given twice");
			break;
		}
		if (!jv_as_int(j, k, q, -(1L << 40), 1L << 40, &v)) {
			ok = false;
			break;
		}
		char *a = xasprintf("%s=%ld", k->string, v);
		struct err ke;
		if (!pol_set_knob(pol, knobs, a, &ke))
			ok = jv_fail(j, q, "%s", ke.msg);
		free(a);
	}
	free(knobs);
	return ok;
}

/* "procs": a P count, or a rule's name ("go1.25"). */
static bool parse_procs(const struct jv *j, const cJSON *node, const char *path,
			struct rg_case *c)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(node, "procs");
	char p[JV_PATH];
	if (!cJSON_IsString(v))
		return jv_get_int(j, node, path, "procs", false, 1, RT_MAX_PROCS, &c->procs);
	c->procs_rule = gmp_rule_find(v->valuestring);
	if (c->procs_rule == GMP_NUMBER)
		return jv_fail(j, jv_key(p, sizeof(p), path, "procs"), "\"%s\" is not a rule "
			       "(expected a number from 1 to %d, or one of: %s)", v->valuestring,
			       RT_MAX_PROCS, gmp_rule_list());
	return true;
}

/* The OS keys, as the run options take them: "cpu_quota" (CPUs),
 * "cpu_period_ns" (1ms to 1s, whole us), "cpuset" (a cpu list; the
 * topology checks its numbers), "load" {"threads", "duty", "period_ns"}. */
static bool parse_os(const struct jv *j, const cJSON *node, const char *path, struct rg_case *c,
		     const char **cpuset)
{
	static const char *const load_keys[] = { "threads", "duty", "period_ns", NULL };
	char p[JV_PATH];
	c->load_duty = 1;
	c->load_period_ns = 10000000;
	if (!jv_get_positive(j, node, path, "cpu_quota", false, &c->cpu_quota) ||
	    !jv_get_int(j, node, path, "cpu_period_ns", false, RT_OS_PERIOD_MIN, RT_OS_PERIOD_MAX,
			&c->cpu_period_ns) ||
	    !jv_get_string(j, node, path, "cpuset", false, cpuset))
		return false;
	if (c->cpu_period_ns % 1000)
		return jv_fail(j, jv_key(p, sizeof(p), path, "cpu_period_ns"), "a cgroup's period is "
			       "whole microseconds (got %ld ns)", c->cpu_period_ns);
	if (c->cpu_period_ns && !c->cpu_quota)
		return jv_fail(j, jv_key(p, sizeof(p), path, "cpu_period_ns"), "the period of "
			       "cpu_quota: give both");
	const cJSON *load = cJSON_GetObjectItemCaseSensitive(node, "load");
	const char *lp = jv_key(p, sizeof(p), path, "load");
	if (load && (!jv_object(j, load, lp, load_keys) ||
		     !jv_get_int(j, load, lp, "threads", true, 1, RT_OS_LOAD_MAX, &c->load_threads) ||
		     !jv_get_positive(j, load, lp, "duty", false, &c->load_duty) ||
		     !jv_get_int(j, load, lp, "period_ns", false, RT_OS_PERIOD_MIN,
				 RT_OS_PERIOD_MAX, &c->load_period_ns)))
		return false;
	if (c->load_duty > 1)
		return jv_fail(j, lp, "duty: a fraction above 0 and at most 1 (got %g)", c->load_duty);
	return true;
}

static bool parse_case(const struct jv *j, const cJSON *node, const char *path, struct rg_case *c)
{
	static const char *const keys[] = { "name", "policy", "set", "topology", "workload",
					    "procs", "cpu_quota", "cpu_period_ns", "cpuset", "load",
					    "exercises", NULL };
	if (!jv_object(j, node, path, keys))
		return false;
	const char *name = NULL, *policy = NULL, *topology = "numa4", *workload = "rpc-server",
		   *exercises = NULL, *cpuset = NULL;
	if (!jv_get_string(j, node, path, "name", true, &name) ||
	    !jv_get_string(j, node, path, "policy", true, &policy) ||
	    !jv_get_string(j, node, path, "topology", false, &topology) ||
	    !jv_get_string(j, node, path, "workload", false, &workload) ||
	    !jv_get_string(j, node, path, "exercises", false, &exercises) ||
	    !parse_procs(j, node, path, c) || !parse_os(j, node, path, c, &cpuset))
		return false;
	char p[JV_PATH];
	if (!*topology || !*workload)
		return jv_fail(j, jv_key(p, sizeof(p), path, *topology ? "workload" : "topology"),
			       "an empty name");
	if (!name_ok(name))
		return jv_fail(j, jv_key(p, sizeof(p), path, "name"),
			       "a case's name is letters, digits and . _ - + (got \"%s\")", name);
	const struct pol_ops *pol = sim__rt_api.pol_find(policy);
	if (!pol) {
		char list[256] = "";
		size_t len = 0;
		for (int i = 0; i < sim__rt_api.pol_count(); i++)
			len = str_list_add(list, sizeof(list), len, sim__rt_api.pol_at(i)->name);
		return jv_fail(j, jv_key(p, sizeof(p), path, "policy"),
			       "unknown policy \"%s\" (expected one of: %s)", policy, list);
	}
	const cJSON *set = cJSON_GetObjectItemCaseSensitive(node, "set");
	if (set && !check_set(j, set, jv_key(p, sizeof(p), path, "set"), pol))
		return false;
	c->name = xstrdup(name);
	c->policy = xstrdup(policy);
	c->set = set ? cJSON_Duplicate(set, true) : cJSON_CreateObject();
	c->topology = xstrdup(topology);
	c->workload = xstrdup(workload);
	c->exercises = exercises ? xstrdup(exercises) : NULL;
	c->cpuset = cpuset ? xstrdup(cpuset) : NULL;
	return true;
}

/* "thresholds": {"request_p99": "5%", "throughput": 2}: a string with or
 * without %, or a number, both in percent. */
static bool parse_thresholds(const struct jv *j, const cJSON *node, const char *path,
			     double *threshold)
{
	if (!cJSON_IsObject(node))
		return jv_fail(j, path, "expected an object of metric: \"PCT%%\", got %s",
			       jv_type_name(node));
	for (int m = 0; m < metric_count; m++)
		threshold[m] = NAN;
	for (const cJSON *t = node->child; t; t = t->next) {
		char p[JV_PATH], names[512];
		jv_key(p, sizeof(p), path, t->string);
		int m = metric_index(t->string);
		if (m < 0) {
			metric_names(names, sizeof(names));
			return jv_fail(j, p, "unknown metric (expected one of: %s)", names);
		}
		if (!isnan(threshold[m]))
			return jv_fail(j, p, "key given twice");
		double f;
		bool ok;
		if (cJSON_IsNumber(t))
			ok = t->valuedouble >= 0 && t->valuedouble <= 1000 &&
			     (f = t->valuedouble / 100, true);
		else
			ok = cJSON_IsString(t) && rg_parse_pct(t->valuestring, &f);
		if (!ok)
			return jv_fail(j, p, "expected a percentage from 0 to 1000 (\"5%%\" or 5)");
		threshold[m] = f;
	}
	return true;
}

/* The suite's thresholds: "thresholds" as given, else the defaults. */
static bool parse_gates(const struct jv *j, const cJSON *json, struct rg_suite *s)
{
	const cJSON *th = cJSON_GetObjectItemCaseSensitive(json, "thresholds");
	if (th)
		return parse_thresholds(j, th, "$.thresholds", s->threshold);
	for (int m = 0; m < metric_count; m++)
		s->threshold[m] = NAN;
	for (size_t i = 0; i < sizeof(default_thresholds) / sizeof(default_thresholds[0]); i++)
		s->threshold[metric_index(default_thresholds[i].name)] =
			default_thresholds[i].pct / 100;
	return true;
}

/* The metrics shown: "show" as given, else the defaults; and every gated
 * one. */
static bool parse_show(const struct jv *j, const cJSON *json, struct rg_suite *s)
{
	const cJSON *show = cJSON_GetObjectItemCaseSensitive(json, "show");
	if (show) {
		if (!jv_array(j, show, "$.show"))
			return false;
		int i = 0;
		for (const cJSON *it = show->child; it; it = it->next, i++) {
			char p[JV_PATH], names[512];
			jv_idx(p, sizeof(p), "$.show", i);
			if (!cJSON_IsString(it))
				return jv_fail(j, p, "expected a metric's name, got %s", jv_type_name(it));
			int m = metric_index(it->valuestring);
			if (m < 0) {
				metric_names(names, sizeof(names));
				return jv_fail(j, p, "unknown metric \"%s\" (expected one of: %s)",
					       it->valuestring, names);
			}
			s->shown[m] = true;
		}
	} else {
		for (size_t i = 0; i < sizeof(default_shown) / sizeof(default_shown[0]); i++)
			s->shown[metric_index(default_shown[i])] = true;
	}
	for (int m = 0; m < metric_count; m++)
		if (!isnan(s->threshold[m]))
			s->shown[m] = true;
	return true;
}

/* "cases": 1 to MAX_CASES of them, named apart, and with the seeds no
 * more runs than a matrix may have. */
static bool parse_cases(const struct jv *j, const cJSON *json, struct rg_suite *s)
{
	const cJSON *cases = cJSON_GetObjectItemCaseSensitive(json, "cases");
	if (!cases)
		return jv_fail(j, "$.cases", "missing (a suite is a list of cases)");
	if (!jv_array(j, cases, "$.cases"))
		return false;
	int n = cJSON_GetArraySize(cases);
	if (n < 1 || n > MAX_CASES)
		return jv_fail(j, "$.cases", "expected 1 to %d cases, got %d", MAX_CASES, n);
	/* every run's metrics are held until the comparison: a suite is at
	 * most a run matrix's worth of runs (past the default seeds: 1000
	 * cases x 8 is within it) */
	long seeds = s->seeds;
	if ((long)n * seeds > EXP_MAX_RUNS)
		return jv_fail(j, "$.seeds", "%d cases x %ld seeds is %ld runs, more than the %d a "
			       "suite may have", n, seeds, (long)n * seeds, EXP_MAX_RUNS);
	s->cases = xcalloc((size_t)n, sizeof(*s->cases));
	int i = 0;
	for (const cJSON *c = cases->child; c; c = c->next, i++) {
		char p[JV_PATH];
		jv_idx(p, sizeof(p), "$.cases", i);
		if (!parse_case(j, c, p, &s->cases[i]))
			return false;
		s->ncases = i + 1;
		for (int k = 0; k < i; k++)
			if (strcmp(s->cases[k].name, s->cases[i].name) == 0) {
				char q[JV_PATH];
				return jv_fail(j, jv_key(q, sizeof(q), p, "name"),
					       "\"%s\" names case %d too", s->cases[i].name, k);
			}
	}
	return true;
}

struct rg_suite *rg_suite_parse_json(const char *label, const cJSON *json, struct err *e)
{
	struct jv jj = { label, e }, *j = &jj;
	static const char *const keys[] = { "suite", "description", "seeds", "seed",
					    "thresholds", "show", "cases", NULL };
	if (!jv_object(j, json, "$", keys))
		return NULL;
	struct rg_suite *s = xcalloc(1, sizeof(*s));
	s->threshold = xmalloc(sizeof(*s->threshold) * metric_count);
	s->shown = xcalloc(metric_count, sizeof(*s->shown));
	s->json = cJSON_Duplicate(json, true);
	s->label = xstrdup(label);
	const char *name = NULL, *desc = NULL;
	long seeds = DEFAULT_SEEDS, seed = 1;
	if (!jv_get_string(j, json, "$", "suite", true, &name) ||
	    !jv_get_string(j, json, "$", "description", false, &desc) ||
	    !jv_get_int(j, json, "$", "seeds", false, 1, MAX_SEEDS, &seeds) ||
	    !jv_get_int(j, json, "$", "seed", false, 0, (1L << 53) - MAX_SEEDS, &seed))
		goto fail;
	s->name = xstrdup(name);
	s->description = desc ? xstrdup(desc) : NULL;
	s->seeds = (int)seeds;
	s->seed = seed;
	if (!parse_gates(j, json, s) || !parse_show(j, json, s) || !parse_cases(j, json, s))
		goto fail;
	return s;
fail:
	rg_suite_free(s);
	return NULL;
}

struct rg_suite *rg_suite_parse(const char *label, const char *text, struct err *e)
{
	struct jv j = { label, e };
	cJSON *json = jv_parse(&j, text);
	if (!json)
		return NULL;
	struct rg_suite *s = rg_suite_parse_json(label, json, e);
	cJSON_Delete(json);
	return s;
}

struct rg_suite *rg_suite_load(const char *path, struct err *e)
{
	char *text = input_read(path, NULL, e);
	if (!text)
		return NULL;
	struct rg_suite *s = rg_suite_parse(path, text, e);
	free(text);
	return s;
}

struct rg_suite *rg_suite_default(struct err *e)
{
	return rg_suite_parse("(bundled default suite)", rg_suite_default_text(), e);
}
