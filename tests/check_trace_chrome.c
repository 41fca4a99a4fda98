/* The Chrome JSON trace writer (suite "trace"): a synthetic struct
 * rt_trace, written and parsed back with cJSON, gives the tracks, slices,
 * flows and counters it describes, byte for byte the same every time. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tests.h"
#include "trace/trace.h"

enum { L_NONE, L_WORKER, L_MAIN, L_RECV, L_WEIRD };
static const char *const labels[] = { "", "worker", "main", "recv req", ("we\"ird\\la\x01" "bel") };

#define EV(ts_, kind_, g_, p_, m_, a_, b_) \
	{ .ts = (ts_), .kind = (kind_), .g = (g_), .p = (p_), .m = (m_), .a = (a_), .b = (b_) }

/* Two Ps, two Ms.  G1 (main) runs 0-1000 on P0 and blocks; G2 (worker)
 * runs 1000-2000 on P0, wakes G1 at 1500 and ends; P1 steals G3 from P0
 * at 1600 and runs it 1700-2500 (yield) and again from 2600 to the end
 * (4000); G1 runs again on P0 2100-3000 (preempted).  G4 (the weird
 * label) runs on P1... never: it is only created. */
static const struct rt_tev events[] = {
	EV(0, RT_TEV_PROCS, 0, -1, -1, 2, 0),
	EV(0, RT_TEV_P_START, 0, 0, 0, 0, 0),
	EV(0, RT_TEV_G_CREATE, 1, 0, -1, 0, L_MAIN),
	EV(0, RT_TEV_G_START, 1, 0, 0, 0, 0),
	EV(10, RT_TEV_G_CREATE, 2, 0, -1, 1, L_WORKER),
	EV(20, RT_TEV_G_CREATE, 3, 0, -1, 1, L_WORKER),
	EV(30, RT_TEV_G_CREATE, 4, 0, -1, 1, L_WEIRD),
	EV(40, RT_TEV_RUNQ, 0, 0, -1, 2, 0),
	EV(100, RT_TEV_P_START, 0, 1, 1, 0, 0),
	EV(100, RT_TEV_SPINNING, 0, -1, -1, 1, 0),
	EV(1000, RT_TEV_G_BLOCK, 1, 0, -1, RT_TB_CHAN_RECV, L_RECV),
	EV(1000, RT_TEV_G_START, 2, 0, 0, 0, 0),
	EV(1500, RT_TEV_G_UNBLOCK, 1, 0, -1, 2, RT_TW_CHAN),
	EV(1500, RT_TEV_RUNQ, 0, 0, -1, 2, 0),
	EV(1600, RT_TEV_STEAL, 0, 1, -1, 0, 1),
	EV(1600, RT_TEV_RUNQ, 0, 0, -1, 1, 0),
	EV(1600, RT_TEV_SPINNING, 0, -1, -1, 0, 0),
	EV(1700, RT_TEV_G_START, 3, 1, 1, 0, 0),
	EV(2000, RT_TEV_G_END, 2, 0, -1, 0, 0),
	EV(2000, RT_TEV_GLOBAL_TAKE, 0, 0, -1, RT_TG_FAIRNESS, 1),
	EV(2000, RT_TEV_RUNQ, 0, -1, -1, 0, 0),
	EV(2100, RT_TEV_G_START, 1, 0, 0, 0, 0),
	EV(2500, RT_TEV_G_YIELD, 3, 1, -1, 0, 0),
	EV(2600, RT_TEV_G_START, 3, 1, 1, 0, 0),
	EV(2700, RT_TEV_PLACE, 4, 1, -1, 0, 0),
	EV(3000, RT_TEV_G_PREEMPT, 1, 0, -1, 0, 0),
	EV(3000, RT_TEV_P_STOP, 0, 0, 0, 0, 0),
	EV(3500, 9999, 0, 0, 0, 0, 0),   /* a kind from a later writer: ignored */
};

static struct rt_trace make_trace(void)
{
	static struct rt_tev ev[sizeof(events) / sizeof(events[0])];
	memcpy(ev, events, sizeof(ev));
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		ev[i].seq = i + 1;
	return (struct rt_trace){
		.ev = ev, .n = sizeof(ev) / sizeof(ev[0]),
		.labels = labels, .nlabels = sizeof(labels) / sizeof(labels[0]),
		.procs = 2, .ms = 2, .end_ns = 4000, .mode = "sim",
	};
}

static char *write_chrome(const struct rt_trace *t, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	ck_assert_ptr_nonnull(f);
	struct err e = { "" };
	ck_assert_msg(trace_write_chrome(f, t, &e), "%s", e.msg);
	ck_assert_int_eq(fclose(f), 0);
	if (len)
		*len = n;
	return buf;
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	ck_assert_msg(cJSON_IsNumber(v), "no number %s", key);
	return v->valuedouble;
}

static bool is_ph(const cJSON *ev, const char *ph)
{
	const char *p = str_of(ev, "ph");
	return p && strcmp(p, ph) == 0;
}

/* The thread_name of (pid, tid), or NULL. */
static const char *thread_name(const cJSON *evs, int pid, int tid)
{
	const cJSON *ev;
	cJSON_ArrayForEach(ev, evs) {
		if (is_ph(ev, "M") && strcmp(str_of(ev, "name"), "thread_name") == 0 &&
		    num_of(ev, "pid") == pid && num_of(ev, "tid") == tid)
			return str_of(cJSON_GetObjectItem(ev, "args"), "name");
	}
	return NULL;
}

/* The one X slice on (pid, tid) starting at ts us, or NULL. */
static const cJSON *slice_at(const cJSON *evs, int pid, int tid, double ts)
{
	const cJSON *found = NULL, *ev;
	cJSON_ArrayForEach(ev, evs) {
		if (is_ph(ev, "X") && num_of(ev, "pid") == pid && num_of(ev, "tid") == tid &&
		    num_of(ev, "ts") == ts) {
			ck_assert_msg(!found, "two slices at %g", ts);
			found = ev;
		}
	}
	return found;
}

static void check_slice(const cJSON *evs, int tid, double ts, double dur, const char *name,
			const char *stop, double goid)
{
	const cJSON *s = slice_at(evs, 1, tid, ts);
	ck_assert_msg(s, "no slice on P%d at %g us", tid, ts);
	ck_assert_double_eq(num_of(s, "dur"), dur);
	ck_assert_str_eq(str_of(s, "name"), name);
	const cJSON *args = cJSON_GetObjectItem(s, "args");
	ck_assert_str_eq(str_of(args, "stop"), stop);
	ck_assert_double_eq(num_of(args, "goid"), goid);
}

START_TEST(chrome_tracks_slices_flows_counters)
{
	struct rt_trace t = make_trace();
	char *text = write_chrome(&t, NULL);
	cJSON *root = cJSON_Parse(text);
	ck_assert_msg(root, "not JSON: %.200s", text);
	const cJSON *evs = cJSON_GetObjectItem(root, "traceEvents");
	ck_assert(cJSON_IsArray(evs));
	ck_assert_str_eq(str_of(cJSON_GetObjectItem(root, "otherData"), "mode"), "sim");

	/* a track per P and per M */
	ck_assert_str_eq(thread_name(evs, 1, 0), "P0");
	ck_assert_str_eq(thread_name(evs, 1, 1), "P1");
	ck_assert_str_eq(thread_name(evs, 2, 0), "M0");
	ck_assert_str_eq(thread_name(evs, 2, 1), "M1");
	ck_assert_ptr_null(thread_name(evs, 1, 2));

	/* a slice per G run: five on the Ps; two P-held slices on the Ms */
	int xs_p = 0, xs_m = 0;
	const cJSON *ev;
	cJSON_ArrayForEach(ev, evs) {
		if (is_ph(ev, "X"))
			*(num_of(ev, "pid") == 1 ? &xs_p : &xs_m) += 1;
	}
	ck_assert_int_eq(xs_p, 5);
	ck_assert_int_eq(xs_m, 2);
	check_slice(evs, 0, 0.0, 1.0, "main G1", "block", 1);
	ck_assert_str_eq(str_of(cJSON_GetObjectItem(slice_at(evs, 1, 0, 0.0), "args"), "reason"),
			 "chan receive");
	ck_assert_str_eq(str_of(cJSON_GetObjectItem(slice_at(evs, 1, 0, 0.0), "args"), "op"),
			 "recv req");
	check_slice(evs, 0, 1.0, 1.0, "worker G2", "end", 2);
	check_slice(evs, 0, 2.1, 0.9, "main G1", "preempted", 1);
	check_slice(evs, 1, 1.7, 0.8, "worker G3", "yield", 3);
	check_slice(evs, 1, 2.6, 1.4, "worker G3", "running at the end", 3);
	const cJSON *held = NULL;
	cJSON_ArrayForEach(ev, evs) {
		if (is_ph(ev, "X") && num_of(ev, "pid") == 2 && num_of(ev, "tid") == 0)
			held = ev;
	}
	ck_assert_ptr_nonnull(held);
	ck_assert_str_eq(str_of(held, "name"), "P0");
	ck_assert_double_eq(num_of(held, "dur"), 3.0);

	/* flows: every s has one f with its id; the wake-up goes from P0 at
	 * 1.5 us (inside G2's slice) to P0 at 2.1 us (G1's next run, bound to
	 * the enclosing slice), the steal from P0 to P1 at 1.6 us */
	int nflows = 0;
	bool wake = false, steal = false;
	cJSON_ArrayForEach(ev, evs) {
		if (!is_ph(ev, "s"))
			continue;
		nflows++;
		double id = num_of(ev, "id");
		const cJSON *end = NULL, *e2;
		cJSON_ArrayForEach(e2, evs) {
			if (is_ph(e2, "f") && num_of(e2, "id") == id) {
				ck_assert_ptr_null(end);
				end = e2;
			}
		}
		ck_assert_msg(end, "flow %g has no end", id);
		if (strcmp(str_of(ev, "cat"), "wake") == 0) {
			wake = true;
			ck_assert_double_eq(num_of(ev, "tid"), 0);
			ck_assert_double_eq(num_of(ev, "ts"), 1.5);
			ck_assert_double_eq(num_of(end, "tid"), 0);
			ck_assert_double_eq(num_of(end, "ts"), 2.1);
			ck_assert_str_eq(str_of(end, "bp"), "e");
		} else {
			ck_assert_str_eq(str_of(ev, "cat"), "steal");
			steal = true;
			ck_assert_double_eq(num_of(ev, "tid"), 0);
			ck_assert_double_eq(num_of(end, "tid"), 1);
			ck_assert_double_eq(num_of(end, "ts"), 1.6);
		}
	}
	int nends = 0;
	cJSON_ArrayForEach(ev, evs) nends += is_ph(ev, "f");
	ck_assert_int_eq(nflows, 2);
	ck_assert_int_eq(nends, 2);
	ck_assert(wake && steal);

	/* counters: P0's queue 2, 2, 1; the global queue 0; spinning 1, 0 */
	int runq_p0 = 0, global = 0, spinning = 0, procs = 0;
	cJSON_ArrayForEach(ev, evs) {
		if (!is_ph(ev, "C"))
			continue;
		const char *name = str_of(ev, "name");
		const cJSON *args = cJSON_GetObjectItem(ev, "args");
		if (strcmp(name, "runq P0") == 0) {
			runq_p0++;
			ck_assert_double_eq(num_of(args, "len"), runq_p0 < 3 ? 2 : 1);
		} else if (strcmp(name, "global runq") == 0) {
			global++;
		} else if (strcmp(name, "spinning Ms") == 0) {
			ck_assert_double_eq(num_of(args, "Ms"), spinning == 0 ? 1 : 0);
			spinning++;
		} else if (strcmp(name, "GOMAXPROCS") == 0) {
			procs++;
			ck_assert_double_eq(num_of(args, "procs"), 2);
		}
	}
	ck_assert_int_eq(runq_p0, 3);
	ck_assert_int_eq(global, 1);
	ck_assert_int_eq(spinning, 2);
	ck_assert_int_eq(procs, 1);

	/* instants: the block, the steal, the global take, the placement */
	int blocks = 0, steals = 0, takes = 0, places = 0;
	cJSON_ArrayForEach(ev, evs) {
		if (!is_ph(ev, "i"))
			continue;
		const char *cat = str_of(ev, "cat");
		blocks += strcmp(cat, "block") == 0;
		steals += strcmp(cat, "steal") == 0;
		takes += strcmp(cat, "global") == 0;
		places += strcmp(cat, "place") == 0;
	}
	ck_assert_int_eq(blocks, 1);
	ck_assert_int_eq(steals, 1);
	ck_assert_int_eq(takes, 1);
	ck_assert_int_eq(places, 1);

	/* the label with a quote, a backslash and a control byte survives as
	 * JSON: escaped by str_escape, quoted by cJSON */
	bool weird = false;
	cJSON_ArrayForEach(ev, evs) {
		const cJSON *args = cJSON_GetObjectItem(ev, "args");
		const char *prog = args ? str_of(args, "program") : NULL;
		if (prog && strstr(prog, "we\"ird\\la"))
			weird = strstr(prog, "\\x01") != NULL;
	}
	ck_assert(weird);
	cJSON_Delete(root);
	free(text);
}
END_TEST

/* Timestamps are microseconds with the nanoseconds as three decimals. */
START_TEST(chrome_ns_precision)
{
	struct rt_tev ev[] = {
		EV(1234567, RT_TEV_G_CREATE, 7, 0, -1, 0, 0),
		EV(1234567, RT_TEV_G_START, 7, 0, 0, 0, 0),
		EV(1240001, RT_TEV_G_END, 7, 0, -1, 0, 0),
	};
	struct rt_trace t = { .ev = ev, .n = 3, .labels = labels, .nlabels = 1, .procs = 1,
			      .ms = 1, .end_ns = 2000000, .mode = "native" };
	char *text = write_chrome(&t, NULL);
	ck_assert_msg(strstr(text, "\"ts\":1234.567,\"dur\":5.434"), "%s", text);
	ck_assert_msg(strstr(text, "\"name\":\"G7\""), "%s", text);
	free(text);
}
END_TEST

/* Same trace, same bytes. */
START_TEST(chrome_deterministic)
{
	struct rt_trace t = make_trace();
	size_t n1, n2;
	char *a = write_chrome(&t, &n1), *b = write_chrome(&t, &n2);
	ck_assert_uint_eq(n1, n2);
	ck_assert_int_eq(memcmp(a, b, n1), 0);
	free(a);
	free(b);
}
END_TEST

/* Many Gs (the writer's table of Gs grows) and a long trace stay valid. */
START_TEST(chrome_many_gs)
{
	enum { NG = 20000 };
	struct rt_tev *ev = calloc(3 * NG, sizeof(*ev));
	for (int i = 0; i < NG; i++) {
		uint64_t g = (uint64_t)i + 1;
		ev[3 * i] = (struct rt_tev)EV(10 * i, RT_TEV_G_CREATE, g, i % 4, -1, 0, L_WORKER);
		ev[3 * i + 1] = (struct rt_tev)EV(10 * i + 1, RT_TEV_G_START, g, i % 4, i % 4, 0, 0);
		ev[3 * i + 2] = (struct rt_tev)EV(10 * i + 5, RT_TEV_G_END, g, i % 4, -1, 0, 0);
	}
	struct rt_trace t = { .ev = ev, .n = 3 * NG, .labels = labels, .nlabels = 2, .procs = 4,
			      .ms = 4, .end_ns = 10 * NG, .mode = "sim" };
	char *text = write_chrome(&t, NULL);
	cJSON *root = cJSON_Parse(text);
	ck_assert_ptr_nonnull(root);
	int xs = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, "traceEvents")) {
		if (is_ph(e, "X")) {
			xs++;
			ck_assert_double_eq(num_of(e, "dur"), 0.004);
		}
	}
	ck_assert_int_eq(xs, NG);
	cJSON_Delete(root);
	free(text);
	free(ev);
}
END_TEST

/* A write error is reported, not lost. */
START_TEST(chrome_write_error)
{
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		return;   /* no /dev/full here: nothing to check */
	struct rt_trace t = make_trace();
	struct err e = { "" };
	ck_assert(!trace_write_chrome(f, &t, &e));
	ck_assert_msg(strstr(e.msg, "cannot write"), "%s", e.msg);
	fclose(f);
}
END_TEST

Suite *make_trace_chrome_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("chrome");
	tcase_set_tags(tc, TEST_SIM_ONLY);   /* one thread: nothing for ThreadSanitizer */
	tcase_add_test(tc, chrome_tracks_slices_flows_counters);
	tcase_add_test(tc, chrome_ns_precision);
	tcase_add_test(tc, chrome_deterministic);
	tcase_add_test(tc, chrome_many_gs);
	tcase_add_test(tc, chrome_write_error);
	suite_add_tcase(s, tc);
	return s;
}
