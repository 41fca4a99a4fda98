/* Why a G waited [core/why.c; docs/runtime.md, "Why a G waited"]: each
 * wait's parts add up to its scheduling latency, per program and in all;
 * the causes are the ones the run's shape makes (sched.lock under global
 * at many Ps, the quota under a quota, ...); and asking changes nothing
 * else in the run or its report. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "run/run.h"
#include "tests/tests.h"
#include "topologies/topo.h"
#include "workloads/json.h"

#define MS ((int64_t)1000000)

struct why_run {
	struct run run;
	struct topo *t;
	struct workload *w;
	int64_t *knobs;
};

/* Runs catalog workload wl under policy on topology, with --why if why. */
static void why_exec(struct why_run *x, const char *policy, const char *topology, const char *wl,
		     int procs, uint64_t seed, const struct rt_os *os, bool why)
{
	memset(x, 0, sizeof(*x));
	struct err e = { "" };
	x->t = topo_load(topology, &e);
	ck_assert_msg(x->t, "%s", e.msg);
	bool is_trace;
	uint64_t trace_seed;
	x->w = wl_load(wl, &is_trace, &trace_seed, &e);
	ck_assert_msg(x->w, "%s", e.msg);
	x->run.api = &sim__rt_api;
	x->run.pol = sim__rt_api.pol_find(policy);
	ck_assert(x->run.pol);
	x->knobs = run_knobs_new(x->run.pol);
	x->run.knobs = x->knobs;
	x->run.topo = x->t;
	x->run.wl = x->w;
	x->run.seed = seed;
	x->run.procs = procs;
	x->run.lim.why = why;
	/* short runs: the rule holds for any span */
	x->run.lim.max_sim_ns = 200 * MS;
	if (os)
		x->run.os = *os;
	struct rt *rt = run_exec(&x->run, false, &e);
	ck_assert_msg(rt, "%s", e.msg);
	x->run.api->destroy(rt);
}

static void why_free(struct why_run *x)
{
	rt_mech_free(&x->run.mech);
	wl_free(x->w);
	topo_free(x->t);
	free(x->knobs);
}

/* The sum rule: every class's and the total's parts add up to their
 * latency, the classes to the total, and the total to the scheduling
 * latency the report measures (its histogram's count and sum). */
static void check_sums(const struct why_run *x)
{
	const struct rt_why *w = x->run.mech.why;
	ck_assert_msg(w, "--why gave no breakdown");
	const struct hist *h = &x->run.r.sched_latency;
	ck_assert_uint_gt(w->all.waits, 0);
	ck_assert_uint_eq(w->all.waits, h->count);
	ck_assert_msg((double)w->all.total_ns == h->sum, "latency %llu ns by cause, %.0f ns measured",
		      (unsigned long long)w->all.total_ns, h->sum);
	uint64_t waits = 0, total = 0;
	for (int k = 0; k <= RT_USER_CLASSES; k++) {
		const struct rt_why_class *c = k < RT_USER_CLASSES ? &w->cls[k] : &w->all;
		uint64_t sum = 0;
		for (int j = 0; j < RT_WHY__COUNT; j++) {
			sum += c->ns[j];
			ck_assert_uint_le(c->waits_with[j], c->waits);
		}
		ck_assert_msg(sum == c->total_ns, "class %d: parts %llu ns, latency %llu ns", k,
			      (unsigned long long)sum, (unsigned long long)c->total_ns);
		if (k < RT_USER_CLASSES) {
			waits += c->waits;
			total += c->total_ns;
		}
	}
	ck_assert_uint_eq(waits, w->all.waits);
	ck_assert_uint_eq(total, w->all.total_ns);
	/* a request's causes add up to its latency, and the requests' to the
	 * request latency the report measures */
	const struct hist *rh = &x->run.r.request_latency;
	ck_assert_uint_eq(w->req.requests, rh->count);
	ck_assert_msg((double)w->req.total_ns == rh->sum, "requests %llu ns by cause, %.0f ns",
		      (unsigned long long)w->req.total_ns, rh->sum);
	uint64_t sum = 0;
	for (int k = 0; k < RT_WHYRQ__COUNT; k++) {
		sum += w->req.ns[k];
		ck_assert_uint_le(w->req.with[k], w->req.requests);
	}
	ck_assert_uint_eq(sum, w->req.total_ns);
}

static const struct {
	const char *policy, *topology, *workload;
	int procs;
} sum_cases[] = {
	/* the light ones first: valgrind runs only those (VALGRIND_SUM_CASES) */
	{ "steal", "numa1", "pingpong", 4 },     { "global", "numa4", "pipeline", 8 },
	{ "global", "numa1", "syscall-heavy", 4 },
	{ "global", "numa4", "rpc-server", 16 }, { "steal", "numa4", "rpc-server", 16 },
	{ "numa", "numa4", "rpc-server", 16 },   { "numa", "numa4", "spawn-burst", 8 },
	{ "steal", "numa4", "syscall-heavy", 8 }, { "steal", "numa1", "cpu-hogs", 4 },
	{ "numa", "numa8", "vtocc", 16 },
};
#define VALGRIND_SUM_CASES 3

START_TEST(parts_add_up_to_the_latency)
{
	struct why_run x;
	why_exec(&x, sum_cases[_i].policy, sum_cases[_i].topology, sum_cases[_i].workload,
		 sum_cases[_i].procs, 1, NULL, true);
	check_sums(&x);
	why_free(&x);
}
END_TEST

/* A quota of one CPU for 8 Ps, and 8 Ps on 2 PUs: the Ms' waits under
 * the quota and for a PU become the Gs', and the rule still holds; with
 * neither, neither shows. */
START_TEST(os_waits_are_causes)
{
	struct rt_os quota = { .quota_ns = 1 * MS, .period_ns = 10 * MS };
	bool two[32] = { [0] = true, [1] = true };
	struct rt_os cpuset = { .cpuset = two };
	struct why_run x;
	why_exec(&x, "steal", "numa1", "rpc-server", 8, 1, &quota, true);
	check_sums(&x);
	const struct rt_why_class *a = &x.run.mech.why->all;
	ck_assert_msg((double)a->ns[RT_WHY_CPU_QUOTA] > 0.2 * (double)a->total_ns,
		      "the quota: %llu ns of %llu ns", (unsigned long long)a->ns[RT_WHY_CPU_QUOTA],
		      (unsigned long long)a->total_ns);
	why_free(&x);
	why_exec(&x, "steal", "numa1", "rpc-server", 8, 1, &cpuset, true);
	check_sums(&x);
	a = &x.run.mech.why->all;
	ck_assert_msg((double)a->ns[RT_WHY_OS_RUN_DELAY] > 0.2 * (double)a->total_ns,
		      "8 Ms on 2 PUs: run delay %llu ns of %llu ns",
		      (unsigned long long)a->ns[RT_WHY_OS_RUN_DELAY], (unsigned long long)a->total_ns);
	ck_assert_uint_eq(a->ns[RT_WHY_CPU_QUOTA], 0);
	why_free(&x);
	why_exec(&x, "steal", "numa1", "rpc-server", 8, 1, NULL, true);
	check_sums(&x);
	ck_assert_uint_eq(x.run.mech.why->all.ns[RT_WHY_CPU_QUOTA], 0);
	ck_assert_uint_eq(x.run.mech.why->all.ns[RT_WHY_OS_RUN_DELAY], 0);
	why_free(&x);
}
END_TEST

/* Go 1.0's one lock at 32 Ps on an RPC server: a large part of the waits
 * is the Ms waiting for sched.lock; today's scheduler spends little of
 * its waits on it. */
START_TEST(global_waits_on_sched_lock)
{
	struct why_run g, s;
	why_exec(&g, "global", "numa4", "rpc-server", 32, 1, NULL, true);
	why_exec(&s, "steal", "numa4", "rpc-server", 32, 1, NULL, true);
	check_sums(&g);
	check_sums(&s);
	const struct rt_why_class *a = &g.run.mech.why->all, *b = &s.run.mech.why->all;
	double gshare = (double)a->ns[RT_WHY_SCHED_LOCK] / (double)a->total_ns;
	double sshare = (double)b->ns[RT_WHY_SCHED_LOCK] / (double)b->total_ns;
	ck_assert_msg(gshare > 0.25, "global: sched.lock %.3f of the latency", gshare);
	ck_assert_msg(sshare < 0.05, "steal: sched.lock %.3f of the latency", sshare);
	/* the programs are named and each is counted apart */
	ck_assert_int_ge(g.run.mech.why->nclasses, 2);
	why_free(&g);
	why_free(&s);
}
END_TEST

static double rq_share(const struct rt_why *w, int cause)
{
	return (double)w->req.ns[cause] / (double)w->req.total_ns;
}

/* A request's time by cause: on an overloaded RPC server under Go 1.0's
 * scheduler most of a request's latency is spent before its handler runs
 * at all -- its data unpolled while every M runs Gs, a new connection
 * waiting to be accepted -- which is why request latency is many times the
 * scheduling latency; under a quota of half a CPU the quota is most of it;
 * the handler's own running time is in (nearly) every request. */
START_TEST(requests_by_cause)
{
	struct why_run x;
	why_exec(&x, "global", "numa4", "rpc-server", 32, 1, NULL, true);
	check_sums(&x);
	const struct rt_why *w = x.run.mech.why;
	ck_assert_uint_gt(w->req.requests, 1000);
	double rq_mean = (double)w->req.total_ns / (double)w->req.requests;
	double g_mean = (double)w->all.total_ns / (double)w->all.waits;
	ck_assert_msg(rq_mean > 3 * g_mean, "request %.0f ns, wait %.0f ns", rq_mean, g_mean);
	double before = rq_share(w, RT_WHYRQ_UNPOLLED) + rq_share(w, RT_WHYRQ_ACCEPT);
	ck_assert_msg(before > 0.5, "unpolled and accept backlog: %.3f of it", before);
	/* (a few have none left where two Ms' clocks disagreed: the excess is
	 * given back from the last causes, running first) */
	ck_assert_uint_ge(w->req.with[RT_WHYRQ_RUNNING], w->req.requests * 99 / 100);
	ck_assert_uint_eq(w->req.ns[RT_WHYRQ_SCHED + RT_WHY_CPU_QUOTA], 0);
	/* only connections' first requests wait to be accepted */
	ck_assert_uint_lt(w->req.with[RT_WHYRQ_ACCEPT], w->req.requests / 2);
	why_free(&x);

	struct rt_os quota = { .quota_ns = 5 * MS, .period_ns = 10 * MS };
	why_exec(&x, "steal", "numa1", "rpc-server", 8, 1, &quota, true);
	check_sums(&x);
	w = x.run.mech.why;
	double q = rq_share(w, RT_WHYRQ_SCHED + RT_WHY_CPU_QUOTA);
	ck_assert_msg(q > 0.5, "half a CPU: the quota %.3f of the requests' time", q);
	/* the quota held the poller and acceptor back too, not only the
	 * handlers' waits for a P */
	ck_assert_msg(w->req.ns[RT_WHYRQ_SCHED + RT_WHY_CPU_QUOTA] > 2 * w->all.ns[RT_WHY_CPU_QUOTA],
		      "the quota: %llu ns of the requests', %llu ns of the Gs' waits",
		      (unsigned long long)w->req.ns[RT_WHYRQ_SCHED + RT_WHY_CPU_QUOTA],
		      (unsigned long long)w->all.ns[RT_WHY_CPU_QUOTA]);
	why_free(&x);
}
END_TEST

/* Asking changes nothing: the same result, schedule and report, but for
 * the "why" object. */
START_TEST(why_changes_nothing_else)
{
	struct why_run a, b;
	why_exec(&a, sum_cases[_i].policy, sum_cases[_i].topology, sum_cases[_i].workload,
		 sum_cases[_i].procs, 7, NULL, false);
	why_exec(&b, sum_cases[_i].policy, sum_cases[_i].topology, sum_cases[_i].workload,
		 sum_cases[_i].procs, 7, NULL, true);
	ck_assert(!a.run.mech.why);
	ck_assert_uint_eq(a.run.r.schedule_hash, b.run.r.schedule_hash);
	ck_assert_int_eq(a.run.r.makespan_ns, b.run.r.makespan_ns);
	cJSON *ja = run_report_json(&a.run), *jb = run_report_json(&b.run);
	ck_assert(cJSON_GetObjectItem(jb, "why"));
	ck_assert(!cJSON_GetObjectItem(ja, "why"));
	cJSON_DeleteItemFromObject(jb, "why");
	char *sa = cJSON_PrintUnformatted(ja), *sb = cJSON_PrintUnformatted(jb);
	ck_assert_str_eq(sa, sb);
	free(sa);
	free(sb);
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	why_free(&a);
	why_free(&b);
}
END_TEST

/* The command: the table per program and in all, "why" in --json whose
 * causes add up; refused natively. */
START_TEST(run_why_cli)
{
	char *out = NULL, *err = NULL;
	int rc = test_schedlabf(&out, &err, "run -p global -t numa4 -w rpc-server --procs 16 --why");
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_msg(strstr(out, "why (") && strstr(out, "sched_lock") && strstr(out, "  all: "),
		      "%s", out);
	ck_assert_msg(strstr(out, "  server: ") || strstr(out, "  handler: "), "no program: %s", out);
	ck_assert_msg(strstr(out, "\nrequests (each from its arrival") &&
		      strstr(out, "    accept_backlog "), "no requests' table: %s", out);
	free(out);
	free(err);
	rc = test_schedlabf(&out, &err, "run -p steal -t numa4 -w rpc-server --procs 16 --why "
				       "--json -");
	ck_assert_msg(rc == 0, "%s", err);
	cJSON *j = cJSON_Parse(out);
	ck_assert(j);
	cJSON *all = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "why"), "all");
	ck_assert(all);
	double lat = cJSON_GetObjectItem(all, "latency_ns")->valuedouble, sum = 0, share = 0;
	cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(all, "causes")) {
		sum += cJSON_GetObjectItem(c, "ns")->valuedouble;
		share += cJSON_GetObjectItem(c, "share")->valuedouble;
	}
	ck_assert_msg(sum == lat, "causes %.0f ns, latency %.0f ns", sum, lat);
	ck_assert_msg(share > 0.999999 && share < 1.000001, "shares add up to %f", share);
	cJSON_Delete(j);
	free(out);
	free(err);
	rc = test_schedlabf(&out, &err, "run -p steal -t host -w pingpong --native --why");
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(err, "--why"), "%s", err);
	free(out);
	free(err);
}
END_TEST

/* compare --why: a second table of the mean wait by cause per column,
 * the causes adding up to the mean, each against the first column's;
 * "why" in --json; nothing of it without --why. */
START_TEST(compare_why_cli)
{
	char *out = NULL, *err = NULL;
	int rc = test_schedlabf(&out, &err, "compare -p global,steal -t numa4 -w rpc-server "
				       "--procs 16 --seeds 2 --why --json -");
	ck_assert_msg(rc == 0, "%s", err);
	cJSON *j = cJSON_Parse(out);
	ck_assert(j);
	const cJSON *why = cJSON_GetObjectItem(j, "why");
	ck_assert_ptr_nonnull(why);
	static const char *const cols[] = { "global", "steal" };
	for (int k = 0; k < 2; k++) {
		double mean = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
			why, "why.all.mean_ns"), cols[k]), "mean")->valuedouble, sum = 0;
		double rq_mean = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
			why, "why.requests.mean_ns"), cols[k]), "mean")->valuedouble, rq_sum = 0;
		const cJSON *row;
		cJSON_ArrayForEach(row, why) {
			bool rq = strncmp(row->string, "why.requests.causes.", 20) == 0;
			if (!rq && strncmp(row->string, "why.all.causes.", 15) != 0)
				continue;
			const cJSON *v = cJSON_GetObjectItem(row, cols[k]);
			ck_assert_msg(v, "%s has no %s", row->string, cols[k]);
			ck_assert_int_eq((int)cJSON_GetObjectItem(v, "n")->valuedouble, 2);
			*(rq ? &rq_sum : &sum) += cJSON_GetObjectItem(v, "mean")->valuedouble;
		}
		ck_assert_msg(fabs(sum - mean) <= 1e-9 * mean, "%s: causes %.3f ns, mean %.3f ns",
			      cols[k], sum, mean);
		ck_assert_msg(fabs(rq_sum - rq_mean) <= 1e-9 * rq_mean,
			      "%s: request causes %.3f ns, mean %.3f ns", cols[k], rq_sum, rq_mean);
	}
	/* Go 1.0's one lock against none: steal's wait for sched.lock is a
	 * sliver of global's, with its pairs tested */
	const cJSON *lock = cJSON_GetObjectItem(cJSON_GetObjectItem(
		why, "why.all.causes.sched_lock.mean_ns"), "steal");
	ck_assert(cJSON_GetObjectItem(lock, "rel_change")->valuedouble < -0.9);
	ck_assert_int_eq((int)cJSON_GetObjectItem(lock, "pairs")->valuedouble, 2);
	cJSON_Delete(j);
	free(out);
	free(err);
	rc = test_schedlabf(&out, &err, "compare -p global,steal -t numa4 -w rpc-server --procs 16 "
				       "--why");
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_msg(strstr(out, "\nwhy: a G's mean scheduling latency") &&
		      strstr(out, "\nmean wait ") && strstr(out, "\n  sched_lock "), "%s", out);
	ck_assert_msg(strstr(out, "\nrequests: a request's mean latency") &&
		      strstr(out, "\nmean request ") && strstr(out, "\n  unpolled "), "%s", out);
	ck_assert_ptr_null(strstr(out, "\n  held "));     /* no time in it: no row */
	free(out);
	free(err);
	rc = test_schedlabf(&out, &err, "compare -p global,steal -t numa4 -w rpc-server --procs 16 "
				       "--json -");
	ck_assert_msg(rc == 0, "%s", err);
	j = cJSON_Parse(out);
	ck_assert_ptr_null(cJSON_GetObjectItem(j, "why"));
	ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "runs"), 0),
					       "why"));
	cJSON_Delete(j);
	free(out);
	free(err);
}
END_TEST

Suite *make_why_suite(void)
{
	Suite *s = suite_create("why");
	TCase *tc = tcase_create("why");
	tcase_set_timeout(tc, 600);
	tcase_set_tags(tc, TEST_SIM_ONLY);
	int n = (int)(sizeof(sum_cases) / sizeof(sum_cases[0]));
	/* under valgrind the light runs only: rpc-server at 16 and 32 Ps
	 * takes minutes there, and ASan's build runs them all */
	bool vg = test_under_valgrind();
	tcase_add_loop_test(tc, parts_add_up_to_the_latency, 0, vg ? VALGRIND_SUM_CASES : n);
	if (!vg) {
		tcase_add_test(tc, os_waits_are_causes);
		tcase_add_test(tc, global_waits_on_sched_lock);
	}
	tcase_add_loop_test(tc, why_changes_nothing_else, 0, vg ? 2 : n);
	tcase_add_test(tc, run_why_cli);
	if (!vg)
		tcase_add_test(tc, requests_by_cause);
	tcase_add_test(tc, compare_why_cli);
	suite_add_tcase(s, tc);
	return s;
}
