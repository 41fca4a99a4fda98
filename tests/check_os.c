/* The OS beneath a simulated run [sim/os.h]: threads that share a PU take
 * turns, a quota holds the process back for the rest of its period, other
 * load takes its share, and none of it happens to a run that asks for
 * none and never has more runnable threads than PUs.  Simulated time is
 * exact, so the checks are ratios and ranges of simulated figures. */
#include <stdlib.h>
#include <string.h>

#include "core/policy.h"
#include "tests/tests.h"
#include "util/hist.h"
#include "workloads/json.h"

#define MS ((int64_t)1000000)

/* n goroutines, each computing each_ms in one piece, joined. */
static struct workload *hogs(int n, int each_ms)
{
	char text[512];
	snprintf(text, sizeof(text),
		 "{\"name\": \"hogs\", \"waitgroups\": [\"done\"], \"programs\": {"
		 "\"main\": [{\"wg_add\": {\"wg\": \"done\", \"n\": %d}}, "
		 "{\"spawn\": {\"program\": \"hog\", \"count\": %d}}, {\"wg_wait\": \"done\"}], "
		 "\"hog\": [{\"compute\": \"%dms\"}, {\"wg_done\": \"done\"}]}}",
		 n, n, each_ms);
	struct err e = { "" };
	struct workload *w = wl_compile("hogs.json", text, &e);
	ck_assert_msg(w, "%s", e.msg);
	return w;
}

static struct rt_result run(const char *policy, const struct workload *w, int procs,
			    const struct rt_os *os)
{
	struct test_outcome o = test_run_os(&sim__rt_api, policy, "numa1", w, procs, 1, NULL, os);
	ck_assert_msg(o.created, "%s", o.e.msg);
	ck_assert(!o.r.deadlock);
	return o.r;
}

static double ratio(const struct rt_result *a, const struct rt_result *b)
{
	return (double)a->makespan_ns / (double)b->makespan_ns;
}

static const char *const policies[] = { "steal", "global", "numa" };

/* Two Ps on one PU do the work of one: the same makespan as one P there,
 * twice that of two Ps on two PUs; the Ms waited for the PU and were
 * switched out at the ends of their slices. */
START_TEST(threads_on_one_pu_take_turns)
{
	struct workload *w = hogs(4, 10);
	bool one[32] = { [0] = true }, two[32] = { [0] = true, [1] = true };
	struct rt_os on1 = { .cpuset = one }, on2 = { .cpuset = two };
	struct rt_result a = run(policies[_i], w, 1, &on1);
	struct rt_result b = run(policies[_i], w, 2, &on1);
	struct rt_result c = run(policies[_i], w, 2, &on2);
	ck_assert_msg(ratio(&b, &a) > 0.97 && ratio(&b, &a) < 1.1, "2 Ps on 1 PU: %.3f of 1 P",
		      ratio(&b, &a));
	ck_assert_msg(ratio(&c, &a) > 0.45 && ratio(&c, &a) < 0.6, "2 Ps on 2 PUs: %.3f of 1 P",
		      ratio(&c, &a));
	ck_assert(b.os.modelled);
	ck_assert_uint_gt(b.os.run_delay_ns, 10 * (uint64_t)MS);
	ck_assert_uint_gt(b.os.involuntary_switches, 5);
	/* one PU: the Ms' CPU time is at most the run's length */
	ck_assert_uint_le(b.os.cpu_ns, (uint64_t)b.makespan_ns + (uint64_t)MS);
	wl_free(w);
}
END_TEST

/* A quota of one CPU per 10 ms: four Ps computing 4 ms each use it up
 * 2.5 ms into the first period and wait 7.5 ms for the next (the classic
 * container tail); with 20 ms of quota nothing waits. */
START_TEST(a_quota_holds_the_process_to_its_period)
{
	struct workload *w = hogs(4, 4);
	struct rt_os one = { .quota_ns = 10 * MS, .period_ns = 10 * MS };
	struct rt_os two = { .quota_ns = 20 * MS, .period_ns = 10 * MS };
	struct rt_result free_run = run(policies[_i], w, 4, NULL);
	struct rt_result q1 = run(policies[_i], w, 4, &one);
	struct rt_result q2 = run(policies[_i], w, 4, &two);
	ck_assert_msg(free_run.makespan_ns > 39 * MS / 10 && free_run.makespan_ns < 5 * MS, "%lld",
		      (long long)free_run.makespan_ns);
	ck_assert_msg(q1.makespan_ns > 112 * MS / 10 && q1.makespan_ns < 13 * MS, "quota 1: %lld ns",
		      (long long)q1.makespan_ns);
	ck_assert_uint_eq(q1.os.throttled_periods, 1);
	ck_assert_msg(q1.os.throttled_ns > 7 * (uint64_t)MS && q1.os.throttled_ns < 78 * (uint64_t)MS / 10,
		      "throttled %llu ns", (unsigned long long)q1.os.throttled_ns);
	ck_assert_uint_eq(q2.os.throttled_periods, 0);
	ck_assert_msg(ratio(&q2, &free_run) < 1.05, "quota 2: %.3f", ratio(&q2, &free_run));
	wl_free(w);
}
END_TEST

/* Another process's busy thread on every PU: a P confined to one PU gets
 * half of it. */
START_TEST(other_load_takes_its_share)
{
	struct workload *w = hogs(4, 5);
	bool one[32] = { [0] = true };
	struct rt_os alone = { .cpuset = one };
	struct rt_os loaded = { .cpuset = one, .load_threads = 32, .load_duty = 1,
				.load_period_ns = 2 * MS };
	struct rt_result a = run(policies[_i], w, 1, &alone);
	struct rt_result b = run(policies[_i], w, 1, &loaded);
	ck_assert_msg(ratio(&b, &a) > 1.8 && ratio(&b, &a) < 2.2, "loaded: %.3f", ratio(&b, &a));
	/* counted to the run's end, not on to its time limit */
	ck_assert_uint_gt(b.os.load_cpu_ns, 31 * (uint64_t)b.makespan_ns);
	ck_assert_uint_le(b.os.load_cpu_ns, 32 * ((uint64_t)b.makespan_ns + (uint64_t)MS));
	wl_free(w);
}
END_TEST

/* Same inputs, same run, waits and throttling included. */
START_TEST(the_os_is_deterministic)
{
	struct workload *w = hogs(6, 3);
	bool set[32] = { [3] = true, [4] = true };
	struct rt_os os = { .cpuset = set, .quota_ns = 7 * MS, .period_ns = 5 * MS,
			    .load_threads = 3, .load_duty = 0.3, .load_period_ns = 2 * MS };
	struct rt_result a = run(policies[_i], w, 3, &os);
	struct rt_result b = run(policies[_i], w, 3, &os);
	ck_assert(memcmp(&a, &b, sizeof(a)) == 0);
	ck_assert_uint_gt(a.os.throttled_periods, 0);
	wl_free(w);
}
END_TEST

/* Fewer busy threads than PUs and no limits: no thread ever waits or is
 * switched out (sysmon, started on M0's PU, may wake on another). */
START_TEST(a_machine_to_itself_is_not_modelled)
{
	struct workload *w = hogs(4, 5);
	struct rt_result a = run(policies[_i], w, 2, NULL);
	ck_assert_uint_eq(a.os.run_delay_ns, 0);
	ck_assert_uint_eq(a.os.involuntary_switches, 0);
	ck_assert_uint_eq(a.os.throttled_periods, 0);
	ck_assert_uint_eq(a.os.load_cpu_ns, 0);
	wl_free(w);
}
END_TEST

/* docs/gomaxprocs.md's worked example: a server sized to a 2-CPU quota
 * on 64 PUs has its tail set by the quota at Go's old default (a P per
 * PU), not at the quota's own size. */
START_TEST(more_ps_than_quota_lengthen_the_tail)
{
	if (test_under_valgrind())
		return;   /* two seconds of 36,000 requests each, 50 times slower */
	const char *root = getenv("SCHEDLAB_SOURCE_ROOT");
	char path[4096];
	snprintf(path, sizeof(path), "%s/docs/examples/rpc-server-2cpu.json", root ? root : ".");
	bool is_trace;
	uint64_t seed;
	struct err e = { "" };
	struct workload *w = wl_load(path, &is_trace, &seed, &e);
	ck_assert_msg(w, "%s", e.msg);
	struct rt_os quota = { .quota_ns = 200 * MS, .period_ns = 100 * MS };
	struct test_outcome few = test_run_os(&sim__rt_api, "steal", "numa2", w, 3, 1, NULL, &quota);
	struct test_outcome all = test_run_os(&sim__rt_api, "steal", "numa2", w, 64, 1, NULL, &quota);
	ck_assert(few.created && all.created);
	ck_assert_uint_eq(few.r.requests, all.r.requests);
	/* (one period of eleven at 3 Ps under Go 1.26's spinning, whose Ms
	 * park less: docs/gomaxprocs.md's table) */
	ck_assert_uint_le(few.r.os.throttled_periods, 1);
	ck_assert_uint_ge(all.r.os.throttled_periods, 5);
	double p99_few = (double)hist_quantile(&few.r.request_latency, 0.99);
	double p99_all = (double)hist_quantile(&all.r.request_latency, 0.99);
	ck_assert_msg(p99_all > 10 * p99_few, "p99 %.0f ns at 64 Ps, %.0f at 3", p99_all, p99_few);
	wl_free(w);
}
END_TEST

/* The limits rt_new refuses. */
START_TEST(bad_limits_are_refused)
{
	struct workload *w = hogs(1, 1);
	bool none[32] = { false };
	const struct rt_os bad[] = {
		{ .cpuset = none },
		{ .quota_ns = 10 * MS, .period_ns = 1000 },
		{ .quota_ns = -1, .period_ns = 100 * MS },
		{ .load_threads = 1, .load_duty = 0, .load_period_ns = 10 * MS },
		{ .load_threads = 1, .load_duty = 1.5, .load_period_ns = 10 * MS },
		{ .load_threads = RT_OS_LOAD_MAX + 1, .load_duty = 1, .load_period_ns = 10 * MS },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct test_outcome o = test_run_os(&sim__rt_api, "steal", "numa1", w, 1, 1, NULL,
						    &bad[i]);
		ck_assert_msg(!o.created, "case %zu was accepted", i);
		ck_assert(o.e.msg[0]);
	}
	wl_free(w);
}
END_TEST

Suite *make_os_suite(void)
{
	Suite *s = suite_create("os");
	TCase *tc = tcase_create("model");
	tcase_set_timeout(tc, 300);
	tcase_set_tags(tc, TEST_SIM_ONLY);
	int np = (int)(sizeof(policies) / sizeof(policies[0]));
	tcase_add_loop_test(tc, threads_on_one_pu_take_turns, 0, np);
	tcase_add_loop_test(tc, a_quota_holds_the_process_to_its_period, 0, np);
	tcase_add_loop_test(tc, other_load_takes_its_share, 0, np);
	tcase_add_loop_test(tc, the_os_is_deterministic, 0, np);
	tcase_add_loop_test(tc, a_machine_to_itself_is_not_modelled, 0, np);
	tcase_add_test(tc, bad_limits_are_refused);
	tcase_add_test(tc, more_ps_than_quota_lengthen_the_tail);
	suite_add_tcase(s, tc);
	return s;
}
