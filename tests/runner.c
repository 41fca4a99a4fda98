/* The one test runner: every suite, Check's own summary at the end. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/tests.h"

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);
	return v && *v ? v : fallback;
}

const char *test_shared_dir(void) { return env_or("SCHEDLAB_SHARED_DIR", "../shared"); }
const char *test_data_dir(void) { return env_or("SCHEDLAB_TEST_DATA", "tests/data"); }
const char *test_schedlab_bin(void) { return env_or("SCHEDLAB_BIN", "./schedlab"); }

static char *slurp(FILE *f)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 >= cap)
			buf = realloc(buf, cap *= 2);
	}
	buf[n] = '\0';
	return buf;
}

char *test_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	char *text = slurp(f);
	fclose(f);
	return text;
}

static int visible(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

char **test_fuzz_regressions(const char *target)
{
	char *dir = NULL;
	ck_assert_int_ge(asprintf(&dir, "%s/%s", env_or("SCHEDLAB_FUZZ_REGRESSIONS",
							"fuzz/regressions"), target), 0);
	struct dirent **list;
	int n = scandir(dir, &list, visible, alphasort);
	ck_assert_msg(n > 0, "%s: no regression inputs", dir);
	char **paths = calloc((size_t)n + 1, sizeof(*paths));
	for (int i = 0; i < n; i++) {
		ck_assert_int_ge(asprintf(&paths[i], "%s/%s", dir, list[i]->d_name), 0);
		free(list[i]);
	}
	free(list);
	free(dir);
	return paths;
}

void test_assert_clean_refusal(const char *path, const char *msg)
{
	size_t n = strlen(msg);
	ck_assert_msg(n > 0 && !str_has_control(msg) && utf8_valid(msg, n, NULL),
		      "%s: not one line of text: \"%s\"", path, msg);
}

bool test_under_valgrind(void)
{
	const char *v = getenv("SCHEDLAB_VALGRIND");
	return v && *v && strcmp(v, "0") != 0;
}

/* ThreadSanitizer gives every simulated M a fiber with its own thread
 * state, and gives up past about 8,000 of them ("can not mmap thread
 * trace"): tests that make Go's 10,000 threads leave that to the other
 * builds. */
bool test_under_tsan(void)
{
#if defined(__SANITIZE_THREAD__)
	return true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
	return true;
#else
	return false;
#endif
#else
	return false;
#endif
}

/* AddressSanitizer keeps freed blocks in a quarantine of up to 256 MB
 * before reuse, so a process's peak memory says nothing of what the code
 * holds: memory bounds are checked by the other builds. */
bool test_under_asan(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return true;
#else
	return false;
#endif
#else
	return false;
#endif
}

int64_t test_cpu_ns(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

int64_t test_threads_wait_ns(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	int64_t sum = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/schedstat", e->d_name);
		FILE *f = fopen(path, "r");
		long long run = 0, wait = 0;
		if (f && fscanf(f, "%lld %lld", &run, &wait) == 2)
			sum += wait;
		else
			sum = -1;
		if (f)
			fclose(f);
		if (sum < 0)
			break;
	}
	closedir(d);
	return sum;
}

#define PROBE_TIDS 256

struct test_wait_probe {
	pthread_t thread;
	_Atomic bool stop;
	bool started, failed;
	pid_t self;
	int n;
	struct {
		pid_t tid;
		int64_t base, last;
	} t[PROBE_TIDS];
};

/* Reads every thread's run_delay into p; those not seen before start at
 * base (the probe's first look) or at 0 (made since). */
static void probe_sample(struct test_wait_probe *p, bool first)
{
	DIR *d = opendir("/proc/self/task");
	if (!d) {
		p->failed = true;
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		if (tid <= 0 || tid == p->self)
			continue;
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
		FILE *f = fopen(path, "r");
		long long run, wait;
		bool ok = f && fscanf(f, "%lld %lld", &run, &wait) == 2;
		if (f)
			fclose(f);
		if (!ok)
			continue;   /* it ended meanwhile */
		int i = 0;
		while (i < p->n && p->t[i].tid != tid)
			i++;
		if (i == p->n) {
			if (p->n == PROBE_TIDS)
				continue;
			p->n++;
			p->t[i].tid = tid;
			p->t[i].base = first ? wait : 0;
		}
		p->t[i].last = wait;
	}
	closedir(d);
}

static void *probe_main(void *arg)
{
	struct test_wait_probe *p = arg;
	p->self = (pid_t)syscall(SYS_gettid);
	while (!atomic_load(&p->stop)) {
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
		probe_sample(p, false);
	}
	return NULL;
}

struct test_wait_probe *test_wait_probe_start(void)
{
	struct test_wait_probe *p = calloc(1, sizeof(*p));
	p->self = -1;
	probe_sample(p, true);
	p->started = pthread_create(&p->thread, NULL, probe_main, p) == 0;
	p->failed |= !p->started;
	return p;
}

int64_t test_wait_probe_stop(struct test_wait_probe *p)
{
	atomic_store(&p->stop, true);
	if (p->started)
		pthread_join(p->thread, NULL);
	probe_sample(p, false);
	int64_t sum = 0;
	for (int i = 0; i < p->n; i++)
		if (p->t[i].tid != p->self)
			sum += p->t[i].last - p->t[i].base;
	bool failed = p->failed;
	free(p);
	return failed ? -1 : sum;
}

int test_first_mode(void)
{
	return test_under_tsan() ? 1 : 0;
}

int test_modes(void)
{
	return test_under_valgrind() ? 1 : 2;
}

struct test_outcome test_run_policy(const struct rt_api *api, const char *policy,
				    const char *topology, const struct workload *w, int procs,
				    uint64_t seed, const char *const *sets)
{
	return test_run_os(api, policy, topology, w, procs, seed, sets, NULL);
}

struct test_outcome test_run_os(const struct rt_api *api, const char *policy,
				const char *topology, const struct workload *w, int procs,
				uint64_t seed, const char *const *sets, const struct rt_os *os)
{
	struct test_outcome o;
	memset(&o, 0, sizeof(o));
	struct topo *t = topo_load(topology, &o.e);
	ck_assert_msg(t, "%s", o.e.msg);
	const struct pol_ops *pol = api->pol_find(policy);
	ck_assert_msg(pol, "no policy %s", policy);
	int64_t knobs[64];
	ck_assert_int_le(pol_nknobs(pol), 64);
	pol_default_knobs(pol, knobs);
	for (; sets && *sets; sets++)
		ck_assert_msg(pol_set_knob(pol, knobs, *sets, &o.e), "%s", o.e.msg);
	struct rt_config cfg = {
		.policy = pol, .knobs = knobs, .procs = procs, .seed = seed, .topo = t,
		.body = api->body, .body_arg = &(struct wlr_args){ .workload = w },
	};
	if (os)
		cfg.os = *os;
	struct rt *rt = api->create(&cfg, &o.e);
	if (rt) {
		o.created = true;
		api->run(rt);
		api->result(rt, &o.r);
		api->destroy(rt);
	}
	topo_free(t);
	return o;
}

int test_run(const char *cmdline, char **out, char **err)
{
	char errpath[] = "/tmp/schedlab-test-XXXXXX";
	int fd = mkstemp(errpath);
	ck_assert_int_ge(fd, 0);
	close(fd);
	char *full = NULL;
	ck_assert_int_ge(asprintf(&full, "(%s) 2>%s", cmdline, errpath), 0);
	FILE *p = popen(full, "r");
	ck_assert_ptr_nonnull(p);
	char *o = slurp(p);
	int status = pclose(p);
	FILE *ef = fopen(errpath, "r");
	char *e = ef ? slurp(ef) : strdup("");
	if (ef)
		fclose(ef);
	unlink(errpath);
	free(full);
	if (out)
		*out = o;
	else
		free(o);
	if (err)
		*err = e;
	else
		free(e);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int test_runf(char **out, char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *cmd = NULL;
	ck_assert_int_ge(vasprintf(&cmd, fmt, ap), 0);
	va_end(ap);
	int rc = test_run(cmd, out, err);
	free(cmd);
	return rc;
}

int test_schedlabf(char **out, char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *args = NULL;
	ck_assert_int_ge(vasprintf(&args, fmt, ap), 0);
	va_end(ap);
	int rc = test_schedlab(args, out, err);
	free(args);
	return rc;
}

void test_tmpdir(char *buf, size_t n, const char *tag)
{
	ck_assert_int_lt(snprintf(buf, n, "/tmp/schedlab-%s-XXXXXX", tag), (int)n);
	ck_assert_ptr_nonnull(mkdtemp(buf));
}

void test_rm_rf(const char *dir)
{
	char *cmd = NULL;
	ck_assert_int_ge(asprintf(&cmd, "rm -rf '%s'", dir), 0);
	ck_assert_int_eq(test_run(cmd, NULL, NULL), 0);
	free(cmd);
}

int test_schedlab(const char *args, char **out, char **err)
{
	char *cmd = NULL;
	ck_assert_int_ge(asprintf(&cmd, "'%s' %s", test_schedlab_bin(), args), 0);
	int rc = test_run(cmd, out, err);
	free(cmd);
	return rc;
}

const char *test_go126(void)
{
	static char path[512];
	static int have = -1;
	if (have < 0) {
		const char *root = getenv("SCHEDLAB_SOURCE_ROOT");
		char *out = NULL, *err = NULL;
		have = test_runf(&out, &err, "'%s/scripts/find-go' 1.26", root && *root ? root : ".") == 0;
		if (have) {
			snprintf(path, sizeof(path), "%s", out);
			path[strcspn(path, "\n")] = '\0';
		} else {
			fprintf(stderr, "trace tests: SKIPPED, no Go 1.26: %s", err);
		}
		free(out);
		free(err);
	}
	return have ? path : NULL;
}

/* Every suite of the program.  Several files may add to one suite name
 * (they test one folder): each meson test runs one name, so the slow
 * suites run side by side, each under its own timeout (tests/meson.build). */
static Suite *(*const suite_makers[])(void) = {
	make_topology_suite, make_engine_suite, make_hw_suite, make_cli_suite, make_os_cli_suite,
	make_inputs_suite, sim__make_core_suite, nat__make_core_suite, make_sched_suite,
	make_hist_suite, make_gomaxprocs_suite, make_mech_suite, make_api_suite, make_dist_suite,
	make_workloads_suite, make_conformance_suite, make_knobs_suite, make_trace_suite,
	make_trace_chrome_suite, make_schedtrace_suite, make_host_suite,
	make_calibrate_suite, make_regress_suite, make_exp_suite, make_report_suite,
	make_conventions_suite, make_explore_suite, make_import122_suite, make_import_suite,
	make_trace122_suite,
	make_os_suite, make_why_suite,
};

/* check-schedlab [SUITE]: that suite (as CK_RUN_SUITE would pick it), or
 * every suite (or CK_RUN_SUITE's) without one.  A named suite that runs no
 * test is an error (a misspelt name), unless a filter of tags or cases
 * left its tests out on purpose. */
int main(int argc, char **argv)
{
	if (argc > 2) {
		fprintf(stderr, "usage: check-schedlab [SUITE]\n");
		return 2;
	}
	/* -t host in tests: hwloc's discovery with the default figures, not a
	 * calibration the user keeps at the default path; tests that want
	 * one set the variable themselves */
	setenv("SCHEDLAB_CALIBRATION", "off", 0);
	SRunner *sr = NULL;
	for (size_t i = 0; i < sizeof(suite_makers) / sizeof(suite_makers[0]); i++) {
		if (!sr)
			sr = srunner_create(suite_makers[i]());
		else
			srunner_add_suite(sr, suite_makers[i]());
	}
	const char *only = argc == 2 ? argv[1] : NULL;
	srunner_run(sr, only, NULL, CK_NORMAL);
	int ran = srunner_ntests_run(sr), failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	/* a filter of cases or tags may leave a suite nothing to run */
	const char *filters[] = { "CK_EXCLUDE_TAGS", "CK_INCLUDE_TAGS", "CK_RUN_CASE" };
	bool filtered = false;
	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++)
		filtered |= getenv(filters[i]) && *getenv(filters[i]);
	if (only && ran == 0 && !filtered) {
		fprintf(stderr, "check-schedlab: no suite is named '%s'\n", only);
		return 2;
	}
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
