/* The report's mechanism counters (suite "mech"): each is checked against
 * a figure it must agree with, so that losing a counter at its decision
 * point fails here [docs/runtime.md, "The mechanisms"]. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/tests.h"
#include "workloads/program.h"
#include "workloads/json.h"

struct mech_outcome {
	struct rt_result r;
	struct rt_mech mech;
};

/* Runs text (a workload) under policy, simulated on topology (mode 0) or
 * natively on the host (mode 1), with knobs sets; it must end well. */
static struct mech_outcome *run_mech(int mode, const char *policy, const char *topology,
				     const char *text, int procs, const char *const *sets)
{
	const struct rt_api *api = mode ? &nat__rt_api : &sim__rt_api;
	struct err e = { "" };
	struct workload *w = text[0] == '{' ? wl_compile("inline.json", text, &e)
					    : wl_load(text, &(bool){ false }, &(uint64_t){ 0 }, &e);
	ck_assert_msg(w, "%s", e.msg);
	struct topo *t = topo_load(mode ? "host" : topology, &e);
	ck_assert_msg(t, "%s", e.msg);
	const struct pol_ops *pol = api->pol_find(policy);
	ck_assert_ptr_nonnull(pol);
	int64_t knobs[64];
	pol_default_knobs(pol, knobs);
	for (; sets && *sets; sets++)
		ck_assert_msg(pol_set_knob(pol, knobs, *sets, &e), "%s", e.msg);
	struct rt_config cfg = {
		.policy = pol, .knobs = knobs, .procs = procs, .seed = 1, .topo = t,
		.body = api->body, .body_arg = &(struct wlr_args){ .workload = w },
	};
	struct rt *rt = api->create(&cfg, &e);
	ck_assert_msg(rt, "%s", e.msg);
	struct mech_outcome *o = calloc(1, sizeof(*o));
	api->run(rt);
	api->result(rt, &o->r);
	api->mech(rt, &o->mech);
	api->destroy(rt);
	topo_free(t);
	wl_free(w);
	ck_assert_msg(!o->r.panicked, "panic: %s", o->r.panic);
	ck_assert_msg(!o->r.deadlock, "deadlock:\n%s", o->r.blocked);
	ck_assert_msg(o->mech.measured, "no mechanisms measured");
	return o;
}

static void outcome_free(struct mech_outcome *o)
{
	rt_mech_free(&o->mech);
	free(o);
}

static uint64_t wake_total(const struct rt_mech *m)
{
	uint64_t n = 0;
	for (int k = 0; k < RT_RUN__COUNT; k++)
		n += m->latency_by_why[k] ? m->latency_by_why[k]->count : 0;
	return n;
}

/* One P, no time-slice inheritance: a pair ping-pongs on unbuffered
 * channels, so one of them is always in the P's runnext when the other
 * blocks, and the local queue is never empty while they play.  A third G
 * yields K times, each time to the global queue, where only the
 * every-61st look (fairness) can find it.  The pair outlasts it (61 x K
 * schedules, 2 a round), so no other reason ever takes. */
#define FAIR_K 20
static const char fairness_wl[] =
	"{\"name\": \"fairness\", \"channels\": {\"ping\": 0, \"pong\": 0},"
	" \"waitgroups\": [\"done\"],"
	" \"programs\": {"
	"  \"main\": [{\"wg_add\": {\"wg\": \"done\", \"n\": 3}},"
	"            {\"spawn\": \"a\"}, {\"spawn\": \"b\"}, {\"spawn\": \"y\"},"
	"            {\"wg_wait\": \"done\"}],"
	"  \"a\": [{\"loop\": {\"count\": 4000, \"body\": [{\"send\": \"ping\"}, {\"recv\": \"pong\"}]}},"
	"         {\"wg_done\": \"done\"}],"
	"  \"b\": [{\"loop\": {\"count\": 4000, \"body\": [{\"recv\": \"ping\"}, {\"send\": \"pong\"}]}},"
	"         {\"wg_done\": \"done\"}],"
	"  \"y\": [{\"loop\": {\"count\": 20, \"body\": [{\"compute\": \"1us\"}, \"yield\"]}},"
	"         {\"wg_done\": \"done\"}]}}";

START_TEST(only_fairness_takes_from_the_global_queue)
{
	static const char *const sets[] = { "inherit_time_slice=0", NULL };
	struct mech_outcome *o = run_mech(0, "steal", "numa1", fairness_wl, 1, sets);
	const struct rt_mech *m = &o->mech;
	ck_assert_uint_eq(m->gq_takes[RT_GQ_FAIRNESS], FAIR_K);
	ck_assert_uint_eq(m->gq_gs[RT_GQ_FAIRNESS], FAIR_K);
	for (int k = 0; k < RT_GQ__COUNT; k++)
		if (k != RT_GQ_FAIRNESS)
			ck_assert_msg(m->gq_takes[k] == 0, "%s: %llu takes", rt_gq_why_names[k],
				      (unsigned long long)m->gq_takes[k]);
	/* the yielder waited there alone */
	ck_assert_uint_eq(m->globrunq.max, 1);
	ck_assert(m->globrunq.area_ns > 0 && m->globrunq.area_ns <= (double)m->span_ns);
	ck_assert_ptr_nonnull(m->latency_by_why[RT_RUN_YIELD]);
	ck_assert_uint_eq(m->latency_by_why[RT_RUN_YIELD]->count, FAIR_K);
	ck_assert_uint_eq(wake_total(m), o->r.sched_latency.count);
	outcome_free(o);
}
END_TEST

/* Takes by reason add up to what went to the global queue: every yield of
 * steal goes there, and so does every preemption; nothing else does in
 * this workload. */
START_TEST(global_queue_takes_add_up_to_the_yields)
{
	static const char wl[] =
		"{\"name\": \"yielders\", \"waitgroups\": [\"done\"], \"programs\": {"
		" \"main\": [{\"wg_add\": {\"wg\": \"done\", \"n\": 8}},"
		"           {\"spawn\": {\"program\": \"y\", \"count\": 8}}, {\"wg_wait\": \"done\"}],"
		" \"y\": [{\"loop\": {\"count\": 50, \"body\": [{\"compute\": \"5us\"}, \"yield\"]}},"
		"        {\"wg_done\": \"done\"}]}}";
	for (int mode = test_first_mode(); mode < test_modes(); mode++) {
		struct mech_outcome *o = run_mech(mode, "steal", "numa2", wl, 4, NULL);
		const struct rt_mech *m = &o->mech;
		uint64_t gs = 0, takes = 0;
		for (int k = 0; k < RT_GQ__COUNT; k++) {
			gs += m->gq_gs[k];
			takes += m->gq_takes[k];
			ck_assert_uint_ge(m->gq_gs[k], m->gq_takes[k]);
		}
		/* a preemption is a yield too (natively, on a loaded host, a
		 * G descheduled by the OS for 10 ms is preempted) */
		ck_assert_uint_eq(gs, 8 * 50 + o->r.preemptions);
		ck_assert_uint_gt(takes, 0);
		ck_assert_uint_eq(m->latency_by_why[RT_RUN_YIELD]->count, 8 * 50);
		ck_assert_uint_eq(m->latency_by_why[RT_RUN_PREEMPT] ? m->latency_by_why[RT_RUN_PREEMPT]->count
								   : 0,
				  o->r.preemptions);
		ck_assert_uint_eq(m->gq_takes[RT_GQ_ONLY], 0);
		outcome_free(o);
	}
}
END_TEST

/* Steal batch sizes add up to the steals and to the Gs stolen. */
START_TEST(steal_batches_add_up)
{
	static const char *const pols[] = { "steal", "numa" };
	for (int i = 0; i < 2; i++) {
		struct mech_outcome *o = run_mech(0, pols[i], "numa4", "spawn-burst", 16, NULL);
		const struct rt_mech *m = &o->mech;
		uint64_t batches = 0, gs = 0, sized = 0;
		for (unsigned b = 0; b < RT_STEAL_BUCKETS; b++) {
			uint64_t lo, hi;
			rt_steal_bucket_range(b, &lo, &hi);
			batches += m->steal_batches[b];
			gs += m->steal_gs[b];
			ck_assert(m->steal_gs[b] >= lo * m->steal_batches[b] &&
				  m->steal_gs[b] <= hi * m->steal_batches[b]);
			if (lo == hi)
				sized += lo * m->steal_batches[b];
			else
				sized += m->steal_gs[b];
		}
		ck_assert_uint_gt(batches, 0);
		ck_assert_uint_eq(batches, o->r.steals.same_node + o->r.steals.remote_node);
		ck_assert_uint_eq(gs, o->r.steals.gs_stolen);
		ck_assert_uint_eq(sized, o->r.steals.gs_stolen);
		outcome_free(o);
	}
}
END_TEST

START_TEST(steal_buckets_cover_every_size_once)
{
	for (uint32_t n = 1; n < 5000; n++) {
		uint64_t lo, hi;
		unsigned b = rt_steal_bucket(n);
		ck_assert_uint_lt(b, RT_STEAL_BUCKETS);
		rt_steal_bucket_range(b, &lo, &hi);
		ck_assert_msg(lo <= n && n <= hi, "%u in bucket %u [%llu, %llu]", n, b,
			      (unsigned long long)lo, (unsigned long long)hi);
		if (n > 1)
			ck_assert_uint_eq(rt_steal_bucket(n - 1) + (lo == n), b);
	}
	uint64_t lo, hi;
	rt_steal_bucket_range(rt_steal_bucket(UINT32_MAX), &lo, &hi);
	ck_assert_uint_ge(hi, UINT32_MAX);
}
END_TEST

/* Every G's wait for a P is counted under one reason; a sleep's under the
 * timer's, once a sleep; the per-program ones add up the same way. */
START_TEST(wakeups_by_reason_add_up)
{
	static const char wl[] =
		"{\"name\": \"sleepers\", \"waitgroups\": [\"done\"], \"programs\": {"
		" \"main\": [{\"wg_add\": {\"wg\": \"done\", \"n\": 10}},"
		"           {\"spawn\": {\"program\": \"s\", \"count\": 10}}, {\"wg_wait\": \"done\"}],"
		" \"s\": [{\"loop\": {\"count\": 7, \"body\": [{\"compute\": \"2us\"}, {\"sleep\": \"50us\"}]}},"
		"        {\"wg_done\": \"done\"}]}}";
	for (int mode = test_first_mode(); mode < test_modes(); mode++) {
		struct mech_outcome *o = run_mech(mode, "steal", "numa2", wl, 4, NULL);
		const struct rt_mech *m = &o->mech;
		ck_assert_uint_eq(wake_total(m), o->r.sched_latency.count);
		ck_assert_ptr_nonnull(m->latency_by_why[RT_RUN_TIMER]);
		ck_assert_uint_eq(m->latency_by_why[RT_RUN_TIMER]->count, 10 * 7);
		ck_assert_uint_eq(m->latency_by_why[RT_RUN_SPAWN]->count, 10 + 1);   /* and main */
		ck_assert_uint_eq(m->latency_by_why[RT_RUN_PARTNER]->count, 1);     /* main's wg_wait */
		ck_assert_int_eq(m->nclasses, 2);
		ck_assert_str_eq(m->class_names[0], "main");
		ck_assert_str_eq(m->class_names[1], "s");
		/* each s runs once and once after each sleep (natively, on a
		 * loaded host, once more after each preemption) */
		if (mode == 0)
			ck_assert_uint_eq(m->latency_by_class[1]->count, 10 * (7 + 1));
		ck_assert_uint_ge(m->latency_by_class[1]->count, 10 * (7 + 1));
		ck_assert_uint_le(m->latency_by_class[1]->count, 10 * (7 + 1) + o->r.preemptions);
		ck_assert_uint_eq(m->latency_by_class[0]->count + m->latency_by_class[1]->count,
				  o->r.sched_latency.count);
		outcome_free(o);
	}
}
END_TEST

/* The network's wake-ups: a server's handlers are readied by the
 * netpoller; each reason's count adds up to the scheduling latency's. */
START_TEST(network_wakeups_are_counted)
{
	struct mech_outcome *o = run_mech(0, "numa", "numa4", "rpc-server", 16, NULL);
	const struct rt_mech *m = &o->mech;
	ck_assert_ptr_nonnull(m->latency_by_why[RT_RUN_NET]);
	ck_assert_uint_gt(m->latency_by_why[RT_RUN_NET]->count, o->r.requests / 2);
	ck_assert_uint_eq(wake_total(m), o->r.sched_latency.count);
	uint64_t by_class = 0;
	for (int k = 0; k < m->nclasses; k++)
		by_class += m->latency_by_class[k] ? m->latency_by_class[k]->count : 0;
	ck_assert_uint_eq(by_class, o->r.sched_latency.count);
	/* numa places Gs on Ps' shared queues: some waited there */
	uint32_t smax = 0;
	for (int i = 0; i < m->nprocs; i++)
		smax = m->p[i].sharedq.max > smax ? m->p[i].sharedq.max : smax;
	ck_assert_uint_gt(smax, 0);
	outcome_free(o);
}
END_TEST

/* Busy fractions are fractions; together the Ps were worked for at least
 * as long as the Gs computed, and at most as long as the Ms were on a CPU
 * not spinning for work, or asleep on a lock. */
START_TEST(ps_busy_time_is_bounded_by_the_cpu_breakdown)
{
	for (int mode = test_first_mode(); mode < test_modes(); mode++) {
		struct mech_outcome *o = run_mech(mode, "steal", "numa2", "cpu-hogs", 4, NULL);
		const struct rt_mech *m = &o->mech;
		const struct rt_cpu_time *c = &o->r.cpu;
		ck_assert(c->measured);
		uint64_t busy = 0;
		for (int i = 0; i < m->nprocs; i++) {
			ck_assert_uint_le(m->p[i].busy_ns, m->span_ns);
			busy += m->p[i].busy_ns;
		}
		ck_assert_int_eq(m->nprocs, 4);
		ck_assert_uint_ge(busy, o->r.user_ns);
		ck_assert_uint_le(busy, c->lifetime_ns - c->ns[RT_CPU_PARKED] - c->ns[RT_CPU_SYSCALL]);
		/* the breakdown's states a P's M works in: on a CPU less the
		 * spinning for work, and asleep on a lock */
		ck_assert_uint_le(busy, c->on_ns - m->spinning_ns + c->ns[RT_CPU_LOCK_SLEEP]);
		/* computing hogs: the Ps were busy nearly all the time, and
		 * (simulated: natively the host's other threads take their
		 * share of it) running Gs is almost all of it user time */
		ck_assert_msg((double)busy >= (mode == 0 ? 0.9 : 0.5) * 4 * (double)m->span_ns,
			      "busy %llu of %llu",
			      (unsigned long long)busy, (unsigned long long)(4 * m->span_ns));
		if (mode == 0)
			ck_assert((double)o->r.user_ns >= 0.95 * (double)busy);
		/* spinning for work is part of the cpu breakdown's spin */
		ck_assert_uint_le(m->spinning_ns, c->ns[RT_CPU_SPIN]);
		outcome_free(o);
	}
}
END_TEST

/* The node x home matrix adds up to the DRAM lines, row by hops to the
 * per-hop counts, and a line further away is dearer. */
START_TEST(memory_matrix_adds_up_to_the_dram_lines)
{
	struct mech_outcome *o = run_mech(0, "steal", "numa4", "rpc-server", 16, NULL);
	const struct rt_mech *m = &o->mech;
	const struct rt_mem *mem = &o->r.locality.mem;
	ck_assert(m->mem_measured && mem->measured);
	ck_assert_int_eq(m->nnodes, 4);
	ck_assert_int_eq(m->nhops, mem->nhops);
	uint64_t total = 0, local = 0;
	for (int n = 0; n < 4; n++)
		for (int h = 0; h < 4; h++) {
			total += m->mem_lines[n * 4 + h];
			if (n == h)
				local += m->mem_lines[n * 4 + h];
		}
	ck_assert_uint_gt(total, 0);
	ck_assert_uint_eq(total, mem->dram);
	ck_assert_uint_eq(local, mem->dram_by_hops[0]);
	for (int h = 0; h < m->nhops; h++)
		ck_assert_uint_eq(m->mem_hop_lines[h], mem->dram_by_hops[h]);
	for (int h = 1; h < m->nhops; h++)
		ck_assert(m->mem_hop_ns[h] / (double)m->mem_hop_lines[h] >
			  m->mem_hop_ns[h - 1] / (double)m->mem_hop_lines[h - 1]);
	/* the model's unloaded latency, numa4's SLIT-derived 135 ns locally */
	ck_assert_double_eq_tol(m->mem_hop_ns[0] / (double)m->mem_hop_lines[0], 135, 1e-6);
	outcome_free(o);
}
END_TEST

/* A G back from a system call that lost its P waits under its own
 * reason; a workload without memory touches has no memory matrix. */
START_TEST(syscall_returns_are_counted)
{
	struct mech_outcome *o = run_mech(0, "steal", "numa2", "syscall-heavy", 4, NULL);
	const struct rt_mech *m = &o->mech;
	ck_assert_uint_gt(o->r.retakes, 0);
	ck_assert_ptr_nonnull(m->latency_by_why[RT_RUN_SYSCALL]);
	ck_assert_uint_gt(m->latency_by_why[RT_RUN_SYSCALL]->count, o->r.retakes / 2);
	ck_assert_uint_le(m->latency_by_why[RT_RUN_SYSCALL]->count, o->r.retakes);
	ck_assert_uint_eq(wake_total(m), o->r.sched_latency.count);
	ck_assert(!m->mem_measured);
	outcome_free(o);
}
END_TEST

START_TEST(native_runs_have_no_memory_matrix)
{
	if (test_modes() < 2)
		return;
	struct mech_outcome *o = run_mech(1, "steal", "host", "pingpong", 2, NULL);
	ck_assert(!o->mech.mem_measured);
	ck_assert_uint_eq(wake_total(&o->mech), o->r.sched_latency.count);
	outcome_free(o);
}
END_TEST

/* Run queue lengths: a mean at most the max, local queues within a ring
 * and runnext. */
START_TEST(queue_lengths_are_consistent)
{
	struct mech_outcome *o = run_mech(0, "steal", "numa4", "spawn-burst", 16, NULL);
	const struct rt_mech *m = &o->mech;
	bool any = false;
	for (int i = 0; i < m->nprocs; i++) {
		const struct rt_qlen *q = &m->p[i].runq;
		ck_assert(q->area_ns <= (double)q->max * (double)m->span_ns);
		ck_assert_uint_le(q->max, 256 + 1);
		any = any || (q->max > 0 && q->area_ns > 0);
	}
	ck_assert(any);
	/* Ps ran out of work and looked for more */
	ck_assert_uint_gt(m->spinning_ns, 0);
	ck_assert_uint_ge(m->spinning_max, 1);
	ck_assert_uint_le(m->spinning_max, 16);
	ck_assert(m->globrunq.area_ns <= (double)m->globrunq.max * (double)m->span_ns);
	ck_assert(m->spinning_ns <= (uint64_t)m->spinning_max * m->span_ns);
	outcome_free(o);
}
END_TEST

/* ---- From the command line ---- */

static uint64_t buckets_total(const cJSON *lat)
{
	const cJSON *b = cJSON_GetObjectItem(lat, "buckets"), *pair;
	ck_assert_ptr_nonnull(b);
	uint64_t n = 0;
	double last = -1;
	cJSON_ArrayForEach(pair, b) {
		double le = cJSON_GetArrayItem(pair, 0)->valuedouble;
		ck_assert(le > last);
		last = le;
		n += (uint64_t)cJSON_GetArrayItem(pair, 1)->valuedouble;
	}
	return n;
}

START_TEST(json_has_buckets_and_mechanisms)
{
	char *out;
	ck_assert_int_eq(test_schedlab("run -p steal -t numa2 -w rpc-server --procs 8 --json -", &out, NULL),
			 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	cJSON *met = cJSON_GetObjectItem(o, "metrics");
	cJSON *sl = cJSON_GetObjectItem(met, "sched_latency_ns");
	uint64_t count = buckets_total(sl);
	ck_assert_uint_gt(count, 0);
	ck_assert_uint_gt(buckets_total(cJSON_GetObjectItem(met, "request_latency_ns")), 0);
	cJSON *mc = cJSON_GetObjectItem(met, "mechanisms");
	ck_assert_ptr_nonnull(mc);
	uint64_t wakes = 0;
	cJSON *w;
	cJSON_ArrayForEach(w, cJSON_GetObjectItem(mc, "wakeups")) {
		uint64_t n = (uint64_t)cJSON_GetObjectItem(w, "count")->valuedouble;
		ck_assert_uint_eq(buckets_total(cJSON_GetObjectItem(w, "latency_ns")), n);
		wakes += n;
	}
	ck_assert_uint_eq(wakes, count);
	cJSON *takes = cJSON_GetObjectItem(cJSON_GetObjectItem(mc, "global_queue"), "takes");
	for (int k = 0; k < RT_GQ__COUNT; k++)
		ck_assert_ptr_nonnull(cJSON_GetObjectItem(takes, rt_gq_why_names[k]));
	cJSON *sp = cJSON_GetObjectItem(mc, "spinning_threads");
	ck_assert_ptr_nonnull(sp);
	ck_assert(cJSON_GetObjectItem(sp, "mean")->valuedouble <=
		  cJSON_GetObjectItem(sp, "max")->valuedouble);
	cJSON *gl = cJSON_GetObjectItem(cJSON_GetObjectItem(mc, "global_queue"), "length");
	ck_assert(cJSON_GetObjectItem(gl, "mean")->valuedouble <=
		  cJSON_GetObjectItem(gl, "max")->valuedouble);
	ck_assert_int_gt(cJSON_GetArraySize(cJSON_GetObjectItem(mc, "steal_batches")), 0);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(mc, "procs")), 8);
	cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(mc, "procs")) {
		double f = cJSON_GetObjectItem(p, "busy_frac")->valuedouble;
		ck_assert(f >= 0 && f <= 1);
	}
	cJSON *rows = cJSON_GetObjectItem(cJSON_GetObjectItem(mc, "memory"), "dram_lines_by_node_home");
	ck_assert_int_eq(cJSON_GetArraySize(rows), 2);
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetObjectItem(mc, "programs"), "handler"));
	cJSON_Delete(o);
	free(out);
}
END_TEST

/* The CDF: a header, then per distribution rows whose cumulative fraction
 * rises to exactly 1 and whose counts add up. */
START_TEST(cdf_csv_is_monotone_and_ends_at_one)
{
	char path[] = "/tmp/schedlab-cdf-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(path);
	char *args = NULL, *out;
	ck_assert_int_ge(asprintf(&args, "run -p numa -t numa2 -w rpc-server --procs 8 --cdf %s", path),
			 0);
	ck_assert_int_eq(test_schedlab(args, &out, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "mechanisms"));
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char line[512], name[300] = "", prev[300] = "";
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_str_eq(line, "distribution,le_ns,count,cum_count,cum_frac\n");
	int dists = 0;
	bool seen_sched = false, seen_timerless = true;
	double last_frac = 1, last_le = -1;
	unsigned long long le, n, cum, sum = 0;
	double frac;
	while (fgets(line, sizeof(line), f)) {
		ck_assert_int_eq(sscanf(line, "%299[^,],%llu,%llu,%llu,%lf", name, &le, &n, &cum, &frac), 5);
		if (strcmp(name, prev) != 0) {
			ck_assert_msg(last_frac == 1.0, "%s ends at %g", prev, last_frac);
			dists++;
			snprintf(prev, sizeof(prev), "%s", name);
			last_le = -1;
			sum = 0;
		}
		seen_sched = seen_sched || strcmp(name, "sched_latency") == 0;
		ck_assert((double)le > last_le);
		ck_assert(frac > 0 && frac <= 1 && frac >= (last_le < 0 ? 0 : last_frac));
		sum += n;
		ck_assert_uint_eq(sum, cum);
		last_le = (double)le;
		last_frac = frac;
	}
	ck_assert(last_frac == 1.0);
	ck_assert(seen_sched && seen_timerless);
	ck_assert_int_ge(dists, 4);   /* sched, request, a wake reason, a program */
	fclose(f);
	unlink(path);
	free(args);
	free(out);
	/* a path that cannot be written: one line naming --cdf, status 2 */
	char *err;
	ck_assert_int_eq(test_schedlab("run -p steal -t numa1 -w fib --cdf /nonexistent/dir/x.csv", &out, &err),
			 2);
	ck_assert_ptr_nonnull(strstr(err, "--cdf /nonexistent/dir/x.csv"));
	free(out);
	free(err);
}
END_TEST

/* compare --json: every quantile of both latencies in the summary, and
 * each column's histograms whole, its seeds' added up. */
START_TEST(compare_json_keeps_every_quantile)
{
	char *out;
	ck_assert_int_eq(test_schedlab("compare -p steal,numa -t numa2 -w rpc-server --procs 8 --seeds 2 "
				  "--json -", &out, NULL), 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	cJSON *sum = cJSON_GetObjectItem(o, "summary");
	static const char *const qs[] = { "p50", "p90", "p99", "p999", "max", "mean" };
	static const char *const dists[] = { "sched_latency_ns", "request_latency_ns" };
	for (int d = 0; d < 2; d++)
		for (int q = 0; q < 6; q++) {
			char key[64];
			snprintf(key, sizeof(key), "%s.%s", dists[d], qs[q]);
			cJSON *row = cJSON_GetObjectItem(sum, key);
			ck_assert_msg(row, "summary has no %s", key);
			ck_assert_ptr_nonnull(cJSON_GetObjectItem(row, "numa"));
		}
	cJSON *dist = cJSON_GetObjectItem(o, "distributions");
	cJSON *runs = cJSON_GetObjectItem(o, "runs");
	ck_assert_int_eq(cJSON_GetArraySize(runs), 4);
	for (int d = 0; d < 2; d++) {
		static const char *const cols[] = { "steal", "numa" };
		for (int j = 0; j < 2; j++) {
			cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(dist, dists[d]), cols[j]);
			ck_assert_ptr_nonnull(c);
			uint64_t runs_total = 0;
			for (int i = 0; i < 2; i++)
				runs_total += buckets_total(cJSON_GetObjectItem(
					cJSON_GetObjectItem(cJSON_GetArrayItem(runs, j * 2 + i), "metrics"),
					dists[d]));
			ck_assert_uint_eq(buckets_total(c), runs_total);
			ck_assert_uint_eq((uint64_t)cJSON_GetObjectItem(c, "count")->valuedouble, runs_total);
		}
	}
	cJSON_Delete(o);
	free(out);
	ck_assert_int_eq(test_schedlab("compare -p steal,numa -t numa2 -w rpc-server --procs 8", &out, NULL),
			 0);
	ck_assert_ptr_nonnull(strstr(out, "sched latency p99.9"));
	ck_assert_ptr_nonnull(strstr(out, "request latency p90"));
	free(out);
}
END_TEST

/* The same seed gives the same mechanisms, byte for byte. */
START_TEST(mechanisms_are_deterministic)
{
	char *a, *b;
	const char *args = "run -p numa -t numa4 -w rpc-server --procs 16 --json -";
	ck_assert_int_eq(test_schedlab(args, &a, NULL), 0);
	ck_assert_int_eq(test_schedlab(args, &b, NULL), 0);
	ck_assert_str_eq(a, b);
	ck_assert_ptr_nonnull(strstr(a, "\"mechanisms\""));
	free(a);
	free(b);
}
END_TEST

Suite *make_mech_suite(void)
{
	Suite *s = suite_create("mech");
	TCase *tc = tcase_create("sim");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, only_fairness_takes_from_the_global_queue);
	tcase_add_test(tc, steal_batches_add_up);
	tcase_add_test(tc, steal_buckets_cover_every_size_once);
	tcase_add_test(tc, network_wakeups_are_counted);
	tcase_add_test(tc, memory_matrix_adds_up_to_the_dram_lines);
	tcase_add_test(tc, syscall_returns_are_counted);
	tcase_add_test(tc, queue_lengths_are_consistent);
	tcase_add_test(tc, json_has_buckets_and_mechanisms);
	tcase_add_test(tc, cdf_csv_is_monotone_and_ends_at_one);
	tcase_add_test(tc, compare_json_keeps_every_quantile);
	tcase_add_test(tc, mechanisms_are_deterministic);
	suite_add_tcase(s, tc);
	tc = tcase_create("both");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, global_queue_takes_add_up_to_the_yields);
	tcase_add_test(tc, wakeups_by_reason_add_up);
	tcase_add_test(tc, ps_busy_time_is_bounded_by_the_cpu_breakdown);
	tcase_add_test(tc, native_runs_have_no_memory_matrix);
	suite_add_tcase(s, tc);
	return s;
}
