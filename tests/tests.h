/* Check suites: one make_<module>_suite per tests/check_<module>.c, run by
 * tests/runner.c.  Suite names match folders ("topologies", "sim", ...), so
 * CK_RUN_SUITE=sim runs one folder's tests. */
#ifndef SCHEDLAB_TESTS_H
#define SCHEDLAB_TESTS_H

#include <check.h>
#include <stdbool.h>

#include "core/policy.h"
#include "workloads/program.h"

Suite *make_topology_suite(void);
Suite *make_engine_suite(void);
Suite *make_hw_suite(void);
Suite *make_cli_suite(void);
Suite *make_os_cli_suite(void);
Suite *make_sched_suite(void);
Suite *make_os_suite(void);
Suite *make_hist_suite(void);
Suite *make_gomaxprocs_suite(void);
Suite *make_mech_suite(void);
Suite *make_api_suite(void);
Suite *make_dist_suite(void);
Suite *make_workloads_suite(void);
Suite *make_conformance_suite(void);
Suite *make_knobs_suite(void);
Suite *make_inputs_suite(void);
Suite *make_trace_suite(void);
Suite *make_trace_chrome_suite(void);
Suite *make_trace122_suite(void);
Suite *make_schedtrace_suite(void);
Suite *make_host_suite(void);
Suite *make_calibrate_suite(void);
Suite *make_regress_suite(void);
Suite *make_exp_suite(void);
Suite *make_report_suite(void);
Suite *make_conventions_suite(void);
Suite *make_explore_suite(void);
Suite *make_import122_suite(void);
Suite *make_import_suite(void);
Suite *make_why_suite(void);
/* tests/check_core.c, compiled once per platform */
Suite *sim__make_core_suite(void);
Suite *nat__make_core_suite(void);

/* ../shared (real-machine hwloc XML in shared/topologies), from the
 * environment variable SCHEDLAB_SHARED_DIR that meson sets. */
const char *test_shared_dir(void);
/* tests/data in the source tree (SCHEDLAB_TEST_DATA). */
const char *test_data_dir(void);
/* The built schedlab binary (SCHEDLAB_BIN), for end-to-end tests. */
const char *test_schedlab_bin(void);

/* Runs a shell command line; returns its exit status and its stdout and
 * stderr (caller frees). */
int test_run(const char *cmdline, char **out, char **err);
/* test_run of a command line made printf's way. */
int test_runf(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* test_schedlab with its args made printf's way. */
int test_schedlabf(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A fresh folder /tmp/schedlab-TAG-XXXXXX into buf (64 bytes do), and
 * its removal with everything in it. */
void test_tmpdir(char *buf, size_t n, const char *tag);
void test_rm_rf(const char *dir);
/* test_run of the built schedlab with args (a shell-quoted string). */
int test_schedlab(const char *args, char **out, char **err);
/* The whole file at path, NUL-terminated (the caller frees it); fails the
 * test if it cannot be opened. */
char *test_read_file(const char *path);
/* Today's Go (1.26, the machine's own: scripts/find-go 1.26), or NULL
 * after one line on stderr saying the cases that need it pass without. */
const char *test_go126(void);
/* The inputs a fuzz target once failed on, fuzz/regressions/TARGET/
 * (SCHEDLAB_FUZZ_REGRESSIONS), as paths in name order, NULL-ended (the
 * caller frees each and the array); fails the test if there are none. */
char **test_fuzz_regressions(const char *target);
/* Fails the test unless msg, a refusal of the input at path, is one line
 * of text: not empty, no control byte, valid UTF-8. */
void test_assert_clean_refusal(const char *path, const char *msg);

/* CPU time the process has used, its threads' (those ended too), in ns:
 * with a run's wall time, the share of the CPU the host gave it. */
int64_t test_cpu_ns(void);
/* Time the process's live threads have spent runnable but waiting for a
 * CPU (the sum of their schedstat run_delay), in ns; -1 if the kernel
 * does not say.  Read from inside a native run (its threads are alive
 * until it ends), the difference of two readings is how long the host
 * kept the run's threads off the CPU meanwhile. */
int64_t test_threads_wait_ns(void);
/* The same for a run whose threads end before it returns (a workload run
 * through rt_api): a thread samples every thread's run_delay every 2 ms
 * from start to stop, and stop returns how long those other than itself
 * waited for a CPU meanwhile (a thread's last 2 ms may be missed), or -1
 * if the kernel does not say. */
struct test_wait_probe;
struct test_wait_probe *test_wait_probe_start(void);
int64_t test_wait_probe_stop(struct test_wait_probe *p);

/* Whether the suite runs under valgrind (SCHEDLAB_VALGRIND, set by meson's
 * valgrind setup), where the heavy runs are cut short. */
bool test_under_valgrind(void);
bool test_under_tsan(void);
bool test_under_asan(void);
/* Test cases that run no native thread: ThreadSanitizer's run
 * (scripts/run-tests --tsan) leaves them out through CK_EXCLUDE_TAGS, as
 * a simulation runs on one thread and TSan has nothing there to see. */
#define TEST_SIM_ONLY "sim-only"
/* The first mode of a loop over test_modes(): 0 (simulated) but under
 * ThreadSanitizer, where only the native mode (1) runs. */
int test_first_mode(void);
/* How many modes a both-modes loop test runs: 2 (0 simulated, 1 native),
 * or under valgrind only the simulated one.  Native runs are ASan's and
 * TSan's to check: under valgrind, which runs one thread at a time, the
 * fibers' stack switches and the Ms' spinning make them slow and their
 * reports unreliable. */
int test_modes(void);

/* One run of a workload in process: created (else e says why) and what it
 * measured. */
struct test_outcome {
	struct rt_result r;
	bool created;
	struct err e;
};
/* Runs w under policy on topology (a bundled name, or "host" natively)
 * with the policy's default knobs changed by sets (NULL-terminated, or
 * NULL), through api (sim__rt_api or nat__rt_api). */
struct test_outcome test_run_policy(const struct rt_api *api, const char *policy,
				    const char *topology, const struct workload *w, int procs,
				    uint64_t seed, const char *const *sets);
/* The same under the OS limits os [struct rt_os] (NULL: none). */
struct test_outcome test_run_os(const struct rt_api *api, const char *policy,
				const char *topology, const struct workload *w, int procs,
				uint64_t seed, const char *const *sets, const struct rt_os *os);

#endif
