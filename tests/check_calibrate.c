/* schedlab calibrate end to end (suite "calibrate"): one --quick run per
 * test case (an unchecked fixture), whose file every test reads.  No
 * wall-clock bounds: only what holds on any host, busy or idle --
 * orderings, spreads, that the file loads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "calib/calib.h"
#include "tests/tests.h"

static char tmpdir[] = "/tmp/schedlab-calib-XXXXXX";
static char calib_path[256];
static int calib_rc = -1;
static char *calib_err;

static void calibrate_once(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(calib_path, sizeof(calib_path), "%s/host.json", tmpdir);
	char *cmd = NULL;
	/* timeout(1): a probe that hangs fails the tests with a status */
	if (asprintf(&cmd, "timeout 300 '%s' calibrate --quick -o '%s'", test_schedlab_bin(),
		     calib_path) < 0)
		abort();
	char *out = NULL;
	calib_rc = test_run(cmd, &out, &calib_err);
	free(cmd);
	free(out);
}

static void calibrate_cleanup(void)
{
	char *cmd = NULL;
	if (asprintf(&cmd, "rm -rf '%s'", tmpdir) >= 0 && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	free(cmd);
	free(calib_err);
}

static cJSON *calib_doc(void)
{
	ck_assert_msg(calib_rc == 0, "calibrate --quick exited %d: %s", calib_rc,
		      calib_err ? calib_err : "");
	char *text = test_read_file(calib_path);
	cJSON *doc = cJSON_Parse(text);
	free(text);
	ck_assert_ptr_nonnull(doc);
	return doc;
}

/* The value of a figure path ("os_ns.wakeup.core", "dram_ns.matrix[0][0]",
 * "bandwidth_gbs[0]") in the latency object; NAN if absent. */
static double figure(const cJSON *lat, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	const cJSON *o = lat;
	for (char *tok = strtok(buf, "."); tok && o; tok = strtok(NULL, ".")) {
		char *br = strchr(tok, '[');
		if (br)
			*br = 0;
		o = cJSON_GetObjectItemCaseSensitive(o, tok);
		while (br && o) {
			int i = atoi(br + 1);
			o = cJSON_GetArrayItem(o, i);
			br = strchr(br + 1, '[');
		}
	}
	return o && cJSON_IsNumber(o) ? o->valuedouble : NAN;
}

START_TEST(quick_run_writes_a_file_that_loads)
{
	cJSON *doc = calib_doc();
	cJSON_Delete(doc);
	/* progress: one line per phase when stderr is not a terminal */
	ck_assert_ptr_nonnull(strstr(calib_err, "calibrate: 1/7 host load:"));
	ck_assert_ptr_nonnull(strstr(calib_err, "calibrate: 7/7 host load again:"));
	ck_assert_ptr_null(strchr(calib_err, '\r'));
	char *args = NULL, *out = NULL, *err = NULL;
	ck_assert_int_ge(asprintf(&args, "topo -t '%s' --json", calib_path), 0);
	ck_assert_msg(test_schedlab(args, &out, &err) == 0, "topo -t FILE: %s", err);
	cJSON *t = cJSON_Parse(out);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")), "host");
	cJSON_Delete(t);
	free(args);
	free(out);
	free(err);
	/* and a simulated run on it */
	ck_assert_int_ge(asprintf(&args, "run -p steal -w spawn-tree --procs 2 -t '%s' --json -",
				  calib_path), 0);
	ck_assert_msg(test_schedlab(args, &out, &err) == 0, "run -t FILE: %s", err);
	free(args);
	free(out);
	free(err);
}
END_TEST

/* The figures the brief says calibrate measures, on any machine. */
static const char *const always_measured[] = {
	"cache_ns.L1", "cache_ns.L2", "dram_ns.local", "dram_ns.matrix[0][0]", "bandwidth_gbs[0]",
	"mlp", "os_ns.syscall", "os_ns.futex_wait", "os_ns.futex_wake", "os_ns.wakeup.core",
	"os_ns.timer_slack", "os_ns.thread_create", "os_ns.context_switch", "os_ns.g_switch",
	"os_ns.pause", "os_ns.epoll_event", "runtime_ns.g_create", "runtime_ns.g_exit",
	"runtime_ns.stack_acquire",
	NULL,
};

/* "32KiB", "1536KiB", "32MiB" in bytes */
static double size_of(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (strcmp(end, "KiB") == 0)
		return v * 1024;
	if (strcmp(end, "MiB") == 0)
		return v * 1024 * 1024;
	return *end ? NAN : v;
}

static void check_measured(const cJSON *doc, const char *path)
{
	const cJSON *lat = cJSON_GetObjectItem(doc, "latency");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(doc, "provenance"), path);
	ck_assert_msg(p != NULL, "%s has no provenance", path);
	ck_assert_msg(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(p, "kind")), "measured") == 0,
		      "%s is not marked measured", path);
	double v = strncmp(path, "cache_sizes.", 12) == 0
			   ? size_of(cJSON_GetStringValue(cJSON_GetObjectItem(
				     cJSON_GetObjectItem(doc, "cache_sizes"), path + 12)))
			   : figure(lat, path);
	double p10 = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "p10"));
	double p90 = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "p90"));
	double n = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "samples"));
	ck_assert_msg(isfinite(v), "%s: no value in latency", path);
	ck_assert_msg(n > 0, "%s: %g samples", path, n);
	ck_assert_msg(p10 <= v && v <= p90, "%s: p10 %g, median %g, p90 %g", path, p10, v, p90);
	const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(p, "method"));
	ck_assert_msg(m && m[0], "%s: no method", path);
}

/* Whether calibrate found the host busy (then a probe may have had no
 * sample in its time, and its figure keeps the default, said so). */
static bool host_was_busy(const cJSON *doc)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(doc, "measurements"),
							   "host_cpu_share");
	const char *note = cJSON_GetStringValue(cJSON_GetObjectItem(m, "note"));
	return note && strncmp(note, "busy", 4) == 0;
}

START_TEST(every_measured_figure_has_its_spread)
{
	cJSON *doc = calib_doc();
	bool busy = host_was_busy(doc);
	int unmeasured = 0;
	for (int i = 0; always_measured[i]; i++) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(doc, "provenance"),
								  always_measured[i]);
		const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(p, "kind"));
		if (busy && p && kind && strcmp(kind, "measured") != 0) {
			unmeasured++;
			continue;
		}
		check_measured(doc, always_measured[i]);
	}
	/* a busy host may cost a probe or two its sample, not the calibration */
	ck_assert_int_le(unmeasured, 3);
	/* a machine of two PUs or more has a wake-up between two of them */
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		const cJSON *prov = cJSON_GetObjectItem(doc, "provenance");
		int cross = 0;
		const char *rel[] = { "os_ns.wakeup.group", "os_ns.wakeup.package",
				      "os_ns.wakeup.hops[0]", NULL };
		for (int i = 0; rel[i]; i++) {
			const cJSON *p = cJSON_GetObjectItemCaseSensitive(prov, rel[i]);
			if (p && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(p, "kind")), "measured") == 0) {
				check_measured(doc, rel[i]);
				cross++;
			}
		}
		const cJSON *smt = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(doc, "measurements"),
								    "wakeup_smt_ns");
		ck_assert_msg(cross > 0 || smt, "no wake-up between two PUs was measured");
	}
	/* every provenance entry marked measured, whatever this machine has */
	const cJSON *it;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "provenance"))
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(it, "kind")), "measured") == 0)
			check_measured(doc, it->string);
	/* the effective cache sizes, at least L1 and L2 */
	const cJSON *cs = cJSON_GetObjectItem(doc, "cache_sizes");
	check_measured(doc, "cache_sizes.L1");
	check_measured(doc, "cache_sizes.L2");
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(cs, "L1"));
	ck_assert_ptr_nonnull(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "hwloc_xml_inline")),
				     "<topology"));
	cJSON_Delete(doc);
}
END_TEST

static double measurement(const cJSON *doc, const char *name)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(doc, "measurements"), name);
	ck_assert_msg(m != NULL, "no measurement %s", name);
	return cJSON_GetNumberValue(cJSON_GetObjectItem(m, "median"));
}

/* The working-set sweep of this machine (calibrate, quiet host: 4 KiB to
 * 128 MiB), once as measured and once with a burst of preemptions over two
 * points inside L1 -- as steep a rise as L1's own step, which taken first
 * cut L1 in two and left L2 measured at L1's latency. */
static const double sweep_ns[] = {
	1.08, 1.08, 1.08, 1.08, 1.08, 1.08, 1.08, 1.08, 1.08, 1.08, 1.08, 1.08, 1.2, 3.8,
	3.8, 3.8, 3.8, 3.8, 3.8, 3.8, 3.8, 3.8, 3.8, 3.83, 3.8, 4.03, 4.41, 4.65, 4.87,
	5.05, 6.26, 7.8, 8.76, 10.6, 12, 12.7, 13.4, 14.1, 14.9, 14.9, 15.1, 15.3, 15.9,
	16.6, 18.3, 24.9, 27.2, 57.2, 98.6, 119.2, 118.2, 133.6, 127.2, 136.3, 147.5,
	139.8, 140.2, 143.6, 146.2, 148.6, 148.3,
};

START_TEST(sweep_levels_survive_a_burst)
{
	enum { N = sizeof(sweep_ns) / sizeof(sweep_ns[0]) };
	double lat[N], lv[N];
	for (int burst = 0; burst < 2; burst++) {
		memcpy(lat, sweep_ns, sizeof(lat));
		if (burst)
			lat[4] = lat[5] = 4.2;
		int np = cal_levels(lat, N, 3, lv);
		ck_assert_int_eq(np, 4);
		ck_assert_msg(lv[0] < 1.2 && lv[1] > 3.5 && lv[1] < 4.5 && lv[2] > 12 && lv[2] < 18 &&
				      lv[3] > 120,
			      "burst %d: levels %g %g %g %g ns", burst, lv[0], lv[1], lv[2], lv[3]);
	}
}
END_TEST

START_TEST(orderings_that_hold_on_any_host)
{
	cJSON *doc = calib_doc();
	const cJSON *lat = cJSON_GetObjectItem(doc, "latency");
	double l1 = figure(lat, "cache_ns.L1"), l2 = figure(lat, "cache_ns.L2");
	double dram = figure(lat, "dram_ns.local");
	ck_assert_msg(l1 < l2 && l2 < dram, "L1 %g, L2 %g, DRAM %g ns", l1, l2, dram);
	/* sleeping never ends early, and a longer asked sleep overshoots too */
	const char *kinds[] = { "sleep_overshoot_nanosleep_ns", "sleep_overshoot_futex_ns", NULL };
	for (int k = 0; kinds[k]; k++) {
		const cJSON *pts = cJSON_GetObjectItem(
			cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "measurements"), kinds[k]), "points");
		ck_assert_int_ge(cJSON_GetArraySize(pts), 5);
		double asked_before = 0;
		const cJSON *pt;
		cJSON_ArrayForEach(pt, pts) {
			double asked = cJSON_GetNumberValue(cJSON_GetObjectItem(pt, "asked_ns"));
			double over = cJSON_GetNumberValue(cJSON_GetObjectItem(pt, "median"));
			ck_assert_msg(asked > asked_before, "%s: points out of order", kinds[k]);
			ck_assert_msg(over >= 0, "%s: asked %g ns, overshoot %g", kinds[k], asked, over);
			asked_before = asked;
		}
		ck_assert_double_ge(asked_before, 1e6);
	}
	/* a wake-up is a system call and more */
	double sys = figure(lat, "os_ns.syscall");
	double core = figure(lat, "os_ns.wakeup.core");
	ck_assert_msg(core > sys, "wake-up (core) %g ns, syscall %g ns", core, sys);
	const char *cross[] = { "wakeup_group_ns", "wakeup_package_ns", "wakeup_hops1_ns", NULL };
	for (int i = 0; cross[i]; i++)
		if (cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "measurements"), cross[i])) {
			double w = measurement(doc, cross[i]);
			ck_assert_msg(w > sys, "%s %g ns, syscall %g ns", cross[i], w, sys);
		}
	/* a fresh stack costs more than one given back -- but not visibly
	 * under ThreadSanitizer, whose fiber set-up at every G's first run
	 * (about 400 us each) swamps the stack's mapping and page faults
	 * (401.7 against 403.9 us in one run) */
	if (!test_under_tsan())
		ck_assert_double_gt(measurement(doc, "g_first_run_fresh_stack_ns"),
				    measurement(doc, "g_first_run_cached_stack_ns"));
	cJSON_Delete(doc);
}
END_TEST

static const struct {
	const char *args, *msg;
} bad[] = {
	{ "calibrate --bogus", "schedlab calibrate: unknown option '--bogus'" },
	{ "calibrate --seconds 0", "--seconds '0': expected a number of seconds from 1 to 3600" },
	{ "calibrate --seconds abc", "--seconds 'abc': expected a number of seconds from 1 to 3600" },
	{ "calibrate --seconds=1e9", "--seconds '1e9': expected a number of seconds from 1 to 3600" },
	{ "calibrate --seconds", "option --seconds needs a number" },
	{ "calibrate -o", "option -o needs a file" },
	{ "calibrate -o /nonexistent-dir/x.json --quick", "-o /nonexistent-dir/x.json: No such file or directory" },
	{ "calibrate -o /tmp --quick", "-o /tmp: Is a directory" },
};

START_TEST(bad_options_exit_2)
{
	char *out, *err;
	ck_assert_int_eq(test_schedlab(bad[_i].args, &out, &err), 2);
	ck_assert_msg(strstr(err, bad[_i].msg) != NULL, "%s: stderr was: %s", bad[_i].args, err);
	ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "%s: more than one line: %s",
		      bad[_i].args, err);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
}
END_TEST

START_TEST(without_o_it_writes_the_default_path)
{
	char dir[] = "/tmp/schedlab-xdg-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *args = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&args, "calibrate --quick --seconds 1"), 0);
	char *cmd = NULL;
	ck_assert_int_ge(asprintf(&cmd, "XDG_CONFIG_HOME='%s' timeout 300 '%s' %s", dir,
				  test_schedlab_bin(), args), 0);
	ck_assert_int_eq(test_run(cmd, &out, &err), 0);
	char path[300];
	snprintf(path, sizeof(path), "%s/schedlab/host.json", dir);
	struct stat st;
	ck_assert_msg(stat(path, &st) == 0 && st.st_size > 0, "no %s; stderr: %s", path, err);
	ck_assert_ptr_nonnull(strstr(err, path));
	free(cmd);
	free(args);
	free(out);
	free(err);
	ck_assert_int_ge(asprintf(&cmd, "rm -rf '%s'", dir), 0);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}
END_TEST

/* A probe's sample budget: its minimum is kept past the phase's soft end,
 * never past its hard one (a --quick calibration took 60-90 s on a busy
 * host waiting for minimums) -- except its first sample, without which
 * the figure could not be written (CI's ThreadSanitizer build reached the
 * bandwidth probe with its phase spent and wrote bandwidth_gbs[0] = 0). */
START_TEST(budgets_stop_at_the_hard_deadline)
{
	int64_t now = cal_now(), hour = 3600 * (int64_t)1000000000;
	struct cal_budget soft_over = { 10, 100, now - 1, now + hour, now };
	ck_assert(cal_more(&soft_over, 3));          /* below min: on */
	ck_assert(!cal_more(&soft_over, 10));        /* at min, past the soft end: done */
	struct cal_budget hard_over = { 10, 100, now - 2, now - 1, now - 3 };
	ck_assert(cal_more(&hard_over, 0));          /* a figure needs one sample */
	ck_assert(!cal_more(&hard_over, 1));         /* past the hard end: done below min */
	/* ... but not forever: a probe whose samples are all refused ends */
	struct cal_budget refused = { 10, 100, now - 2 * CAL_FIRST_SAMPLE_NS,
				      now - CAL_FIRST_SAMPLE_NS - 1, 0 };
	ck_assert(!cal_more(&refused, 0));
	struct cal_budget open = { 10, 100, now + hour, now + 2 * hour, now };
	ck_assert(cal_more(&open, 50));
	ck_assert(!cal_more(&open, 100));            /* max */
}
END_TEST

Suite *make_calibrate_suite(void)
{
	Suite *s = suite_create("calibrate");
	TCase *tc = tcase_create("file");
	tcase_add_unchecked_fixture(tc, calibrate_once, calibrate_cleanup);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, quick_run_writes_a_file_that_loads);
	tcase_add_test(tc, every_measured_figure_has_its_spread);
	tcase_add_test(tc, orderings_that_hold_on_any_host);
	suite_add_tcase(s, tc);
	TCase *opts = tcase_create("options");
	tcase_set_timeout(opts, 600);
	tcase_add_loop_test(opts, bad_options_exit_2, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(opts, without_o_it_writes_the_default_path);
	tcase_add_test(opts, budgets_stop_at_the_hard_deadline);
	tcase_add_test(opts, sweep_levels_survive_a_burst);
	suite_add_tcase(s, opts);
	return s;
}
