/* The CPU a native run got (suite "host"): the report's "host" object
 * [docs/runtime.md, "The CPU a native run got"], its text line and busy
 * warning, and that a CPU hog on the run's one PU shows in it. */
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "native/schedlab.h"
#include "tests/tests.h"

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);
	ck_assert_msg(cJSON_IsNumber(v), "\"%s\" is not a number", key);
	return v->valuedouble;
}

/* The "host" object's keys, with what each must hold; returns busy. */
static bool check_host(const cJSON *h, int procs)
{
	ck_assert_msg(cJSON_IsObject(h), "no \"host\" object");
	double wall = num(h, "wall_ns"), cpu = num(h, "cpu_ns");
	ck_assert(wall > 0);
	ck_assert(cpu > 0);
	double threads = num(h, "threads");
	ck_assert(threads >= 2);   /* M0 and another M at least */
	ck_assert(cpu <= wall * threads);
	const cJSON *delay = cJSON_GetObjectItem(h, "run_delay_ns");
	const cJSON *share = cJSON_GetObjectItem(h, "cpu_share");
	if (cJSON_IsNumber(delay)) {
		ck_assert(delay->valuedouble >= 0);
		ck_assert(cJSON_IsNumber(share));
		ck_assert(share->valuedouble > 0 && share->valuedouble <= 1);
		ck_assert(fabs(share->valuedouble - cpu / (cpu + delay->valuedouble)) < 1e-9);
		ck_assert(num(h, "timeslices") >= threads);
	} else {   /* a kernel without schedstat */
		ck_assert(cJSON_IsNull(delay) && cJSON_IsNull(share));
	}
	ck_assert(num(h, "voluntary_switches") >= 0);
	ck_assert(num(h, "involuntary_switches") >= 0);
	const cJSON *load = cJSON_GetObjectItem(h, "loadavg_1m");
	ck_assert(cJSON_IsNull(load) || (cJSON_IsNumber(load) && load->valuedouble >= 0));
	ck_assert(num(h, "pus") >= 1);
	ck_assert_int_eq((int)num(h, "procs"), procs);
	const cJSON *busy = cJSON_GetObjectItem(h, "busy");
	ck_assert(cJSON_IsBool(busy));
	const cJSON *why = cJSON_GetObjectItem(h, "busy_why");
	if (cJSON_IsTrue(busy))
		ck_assert(cJSON_IsString(why) && why->valuestring[0]);
	else
		ck_assert(cJSON_IsNull(why));
	return cJSON_IsTrue(busy);
}

/* A native run in a cgroup of its own with a CPU quota (the test makes
 * it, v1's cpu controller or v2's cpu.max, and removes it whatever
 * happens) reports the quota and what cpu.stat counted during the run, as
 * a simulated run's "os" object does.  Skipped, with a line, where no
 * cgroup can be made. */
static char cg_dir[128];

static void cg_remove(void)
{
	if (cg_dir[0]) {
		rmdir(cg_dir);
		cg_dir[0] = '\0';
	}
}

static bool cg_write(const char *file, const char *text)
{
	char path[192];
	snprintf(path, sizeof(path), "%s/%s", cg_dir, file);
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	bool ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok;
}

START_TEST(native_run_reports_its_cgroup_quota)
{
	bool v1 = access("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", F_OK) == 0;
	bool v2 = !v1 && access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;
	snprintf(cg_dir, sizeof(cg_dir), "%s/schedlab-test-host.%d",
		 v1 ? "/sys/fs/cgroup/cpu" : "/sys/fs/cgroup", (int)getpid());
	if ((!v1 && !v2) || mkdir(cg_dir, 0755) != 0) {
		fprintf(stderr, "host: cannot make a CPU cgroup here (%s): the quota report is not "
			"checked\n", (!v1 && !v2) ? "no cpu controller" : strerror(errno));
		cg_dir[0] = '\0';
		return;
	}
	bool set = v1 ? cg_write("cpu.cfs_period_us", "100000") && cg_write("cpu.cfs_quota_us", "50000")
		      : cg_write("cpu.max", "50000 100000");
	if (!set) {
		fprintf(stderr, "host: cannot set a CPU quota in %s: the quota report is not checked\n",
			cg_dir);
		cg_remove();
		return;
	}
	char tmp[64], *out = NULL;
	test_tmpdir(tmp, sizeof(tmp), "host-cg");
	ck_assert_int_ge(asprintf(&out, "%s/r.json", tmp), 0);
	pid_t pid = fork();
	if (pid == 0) {
		char me[32];
		snprintf(me, sizeof(me), "%d\n", (int)getpid());
		if (!cg_write("cgroup.procs", me))
			_exit(126);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, STDERR_FILENO);
		dup2(null, STDOUT_FILENO);
		execl(test_schedlab_bin(), "schedlab", "run", "--native", "-p", "steal", "-w",
		      "cpu-hogs", "--procs", "2", "--json", out, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	bool waited = pid > 0 && waitpid(pid, &status, 0) == pid;
	cg_remove();
	ck_assert_msg(waited && WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	char *text = test_read_file(out);
	cJSON *o = cJSON_Parse(text);
	ck_assert_ptr_nonnull(o);
	const cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "host"), "cgroup");
	ck_assert_msg(c != NULL, "no host.cgroup in %s", text);
	ck_assert_double_eq_tol(cJSON_GetObjectItem(c, "cpu_quota")->valuedouble, 0.5, 1e-9);
	ck_assert_double_eq(cJSON_GetObjectItem(c, "cpu_period_ns")->valuedouble, 1e8);
	/* cpu-hogs computes for seconds: some periods pass, and the throttled
	 * ones are among them */
	double periods = cJSON_GetObjectItem(c, "periods")->valuedouble;
	ck_assert_double_ge(periods, 1);
	ck_assert_double_le(cJSON_GetObjectItem(c, "throttled_periods")->valuedouble, periods);
	cJSON_Delete(o);
	free(text);
	test_rm_rf(tmp);
	free(out);
}
END_TEST

START_TEST(native_report_has_host)
{
	char *out;
	ck_assert_int_eq(test_schedlab("run -p steal -w spawn-tree --native --procs 2 --json -", &out, NULL),
			 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	const cJSON *h = cJSON_GetObjectItem(o, "host");
	check_host(h, 2);
	/* Every M is counted: while the runtime has an M on a CPU (by its own
	 * clock), the OS has that thread running or runnable. */
	const cJSON *delay = cJSON_GetObjectItem(h, "run_delay_ns");
	if (cJSON_IsNumber(delay)) {
		double on = num(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metrics"), "cpu"),
				"on_cpu_ns");
		double got = num(h, "cpu_ns") + delay->valuedouble;
		ck_assert_msg(got >= 0.9 * on, "cpu + run delay %.0f ns < the Ms' %.0f ns on a CPU",
			      got, on);
	}
	cJSON_Delete(o);
	free(out);
}
END_TEST

/* The text summary's line, and the warning on stderr exactly when the
 * report says busy. */
START_TEST(native_text_has_host_line_and_warns_when_busy)
{
	char path[] = "/tmp/schedlab-host-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	char *args = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&args, "run -p steal -w ping-pong --native --procs 2 --json %s",
				  path), 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 0);
	char *json = test_read_file(path);
	unlink(path);
	cJSON *o = cJSON_Parse(json);
	ck_assert_ptr_nonnull(o);
	bool busy = check_host(cJSON_GetObjectItem(o, "host"), 2);
	const char *line = strstr(out, "\nhost            cpu ");
	ck_assert_msg(line, "no host line in:\n%s", out);
	const char *eol = strchr(line + 1, '\n');
	ck_assert(memmem(line, (size_t)(eol - line), " wall (", 7));
	ck_assert(memmem(line, (size_t)(eol - line), " involuntary switches", 21));
	ck_assert_int_eq(memmem(line, (size_t)(eol - line), ", BUSY", 6) != NULL, busy);
	const char *warn = strstr(err, "schedlab: warning: the host was busy: ");
	ck_assert_msg((warn != NULL) == busy, "busy %d, stderr:\n%s", busy, err);
	if (busy) {
		ck_assert_ptr_nonnull(strstr(warn, "involuntary switches"));
		ck_assert_ptr_nonnull(
			strstr(warn, "); native figures understate what an idle machine gives\n"));
	}
	cJSON_Delete(o);
	free(json);
	free(args);
	free(out);
	free(err);
}
END_TEST

START_TEST(simulated_report_has_no_host)
{
	char *out, *err;
	ck_assert_int_eq(test_schedlab("run -p steal -w spawn-tree -t numa1 --json -", &out, NULL), 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_null(cJSON_GetObjectItem(o, "host"));
	cJSON_Delete(o);
	free(out);
	ck_assert_int_eq(test_schedlab("run -p steal -w spawn-tree -t numa1", &out, &err), 0);
	ck_assert_ptr_null(strstr(out, "\nhost "));
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
}
END_TEST

/* ---- A CPU hog on the run's PU ---- */

/* A child spinning on cpu until killed (and if the test dies first). */
static pid_t hog_start(int cpu)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0)
			_exit(1);
		for (volatile unsigned long i = 0;; i++)
			;
	}
	return pid;
}

static void hog_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

struct host_fig {
	double delay, share;
	bool busy, warned;
};

/* One native run at 1 P, on the PU the test is bound to: ping-pong, whose
 * 10,000 trades take tens of ms natively, a second or two under TSan. */
static struct host_fig run_once(void)
{
	char *out, *err;
	ck_assert_int_eq(test_schedlab("run -p steal -w ping-pong --native --procs 1 --json -", &out,
				  &err), 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	const cJSON *h = cJSON_GetObjectItem(o, "host");
	struct host_fig f = { .busy = check_host(h, 1) };
	f.delay = num(h, "run_delay_ns");
	f.share = num(h, "cpu_share");
	f.warned = strstr(err, "schedlab: warning: the host was busy: ") != NULL;
	cJSON_Delete(o);
	free(out);
	free(err);
	return f;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#define HOG_REPS 5

static double median(double *v)
{
	qsort(v, HOG_REPS, sizeof(*v), cmp_double);
	return v[HOG_REPS / 2];
}

/* The run and a busy loop bound to the same PU, against the run alone
 * there, alternately: the medians of five each order the run delay and the
 * share, and most runs beside the hog are busy and say so.  Orderings
 * only, so a loaded host changes the figures, not the outcome. */
START_TEST(hog_on_the_same_pu_shows_as_run_delay)
{
	FILE *f = fopen("/proc/self/schedstat", "r");
	if (!f)
		return;   /* no run delays to compare (the report says null: see check_host) */
	fclose(f);
	cpu_set_t old;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(old), &old), 0);
	int cpu = 0;
	while (!CPU_ISSET(cpu, &old))
		cpu++;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	double delay[2][HOG_REPS], share[2][HOG_REPS];
	int busy = 0;
	for (int i = 0; i < HOG_REPS; i++) {
		struct host_fig alone = run_once();
		pid_t hog = hog_start(cpu);
		struct host_fig beside = run_once();
		hog_stop(hog);
		delay[0][i] = alone.delay;
		share[0][i] = alone.share;
		delay[1][i] = beside.delay;
		share[1][i] = beside.share;
		busy += beside.busy;
		ck_assert_int_eq(beside.busy, beside.warned);
		ck_assert_int_eq(alone.busy, alone.warned);
	}
	ck_assert_int_eq(sched_setaffinity(0, sizeof(old), &old), 0);
	double d0 = median(delay[0]), d1 = median(delay[1]);
	double s0 = median(share[0]), s1 = median(share[1]);
	ck_assert_msg(d1 > d0, "median run delay with the hog %.0f ns, alone %.0f ns", d1, d0);
	ck_assert_msg(s1 < s0, "median cpu_share with the hog %.3f, alone %.3f", s1, s0);
	ck_assert_msg(busy > HOG_REPS / 2, "%d of %d runs beside the hog busy (median share %.3f)",
		      busy, HOG_REPS, s1);
}
END_TEST

/* ---- The C API ---- */

/* Spins until its thread has had ns of CPU: however loaded the host, the
 * run got at least that much. */
static void compute(void *arg)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	int64_t end = t.tv_sec * 1000000000LL + t.tv_nsec + *(int64_t *)arg;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while (t.tv_sec * 1000000000LL + t.tv_nsec < end);
}

/* sl_stats has the figures, and counts the calling thread's CPU from the
 * run's start only: a run that computes nothing, after one that computed
 * 50 ms of CPU on the same thread, got less than half of it (counted from
 * the thread's start, it would have all of it and more).  Under valgrind a
 * run's own start and end cost about 150-250 ms of CPU, so the big run
 * computes 1 s there. */
START_TEST(api_stats_have_the_cpu_of_this_run_only)
{
	struct sl_stats big = { 0 }, small = { 0 };
	int64_t ns = test_under_valgrind() ? 1000000000 : 50000000;
	struct sl_options o = { .procs = 1, .stats = &big };
	ck_assert_int_eq(sl_run(&o, compute, &ns), 0);
	int64_t none = 0;
	o.stats = &small;
	ck_assert_int_eq(sl_run(&o, compute, &none), 0);
	ck_assert_int_ge(big.cpu_ns, ns);
	ck_assert_int_gt(small.cpu_ns, 0);
	ck_assert_msg(small.cpu_ns < big.cpu_ns / 2, "%lld ns, after a run of %lld ns",
		      (long long)small.cpu_ns, (long long)big.cpu_ns);
	ck_assert(big.run_delay_ns >= -1);
	ck_assert_int_eq(big.host_busy, big.run_delay_ns >= 1000000 &&
			 (double)big.cpu_ns / (double)(big.cpu_ns + big.run_delay_ns) < 0.9);
}
END_TEST

/* ---- The rule ---- */

static struct rt_host host_of(uint64_t cpu_ms, uint64_t delay_us, int procs)
{
	return (struct rt_host){
		.measured = true, .schedstat = true, .threads = 3,
		.wall_ns = cpu_ms * 1000000, .cpu_ns = cpu_ms * 1000000,
		.run_delay_ns = delay_us * 1000, .pus = 2, .procs = procs,
		.loadavg_start = 5, .loadavg_end = 5,
	};
}

START_TEST(busy_is_a_tenth_of_runnable_time_waiting)
{
	char why[160];
	struct rt_host h = host_of(100, 10500, 2);   /* waited 9.5% */
	ck_assert(!rt_host_busy(&h, why, sizeof(why)));
	ck_assert_str_eq(why, "");   /* a load of 5 on 2 PUs is not the rule */
	h = host_of(100, 11200, 2);                  /* 10.1% */
	ck_assert(rt_host_busy(&h, why, sizeof(why)));
	ck_assert_str_eq(why, "the run's threads waited 10% of their runnable time for a CPU");
	h = host_of(1, 900, 2);                      /* 47%, but under 1 ms */
	ck_assert(!rt_host_busy(&h, why, sizeof(why)));
	h = host_of(100, 100000, 4);                 /* more Ps than PUs: said */
	ck_assert(rt_host_busy(&h, why, sizeof(why)));
	ck_assert_str_eq(why, "the run's threads waited 50% of their runnable time for a CPU, "
			      "having 4 Ps for 2 PUs");
	double share;
	ck_assert(rt_host_share(&h, &share));
	ck_assert(fabs(share - 0.5) < 1e-12);
	/* no run delays: the other processes' CPU beyond the PUs left free */
	h = host_of(100, 0, 1);
	h.schedstat = false;
	h.stat_read = true;
	h.others_cpu_ns = 120000000;   /* 1.2 PUs, 1 left free */
	ck_assert(!rt_host_share(&h, &share));
	ck_assert(!rt_host_busy(&h, why, sizeof(why)));
	h.others_cpu_ns = 130000000;
	ck_assert(rt_host_busy(&h, why, sizeof(why)));
	ck_assert_str_eq(why, "other processes used 1.30 PUs of 2 during the run");
	h.stat_read = false;
	ck_assert(!rt_host_busy(&h, why, sizeof(why)));
	h = (struct rt_host){ .measured = false };
	ck_assert(!rt_host_busy(&h, why, sizeof(why)));
	ck_assert(!rt_host_share(&h, &share));
}
END_TEST

Suite *make_host_suite(void)
{
	Suite *s = suite_create("host");
	TCase *tc = tcase_create("report");
	tcase_add_test(tc, native_report_has_host);
	tcase_add_test(tc, native_text_has_host_line_and_warns_when_busy);
	tcase_add_test(tc, api_stats_have_the_cpu_of_this_run_only);
	tcase_add_test(tc, native_run_reports_its_cgroup_quota);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	tc = tcase_create("sim");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, simulated_report_has_no_host);
	tcase_add_test(tc, busy_is_a_tenth_of_runnable_time_waiting);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tc = tcase_create("starve");
	tcase_add_test(tc, hog_on_the_same_pu_shows_as_run_delay);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return s;
}
