/* Check suites: one make_<module>_suite per tests/check_<module>.c, run by
 * tests/runner.c.  Suite names match folders ("topologies", "sim", ...), so
 * CK_RUN_SUITE=sim runs one folder's tests. */
#ifndef SCHEDLAB_TESTS_H
#define SCHEDLAB_TESTS_H

#include <check.h>

Suite *make_topology_suite(void);
Suite *make_engine_suite(void);
Suite *make_hw_suite(void);
Suite *make_cli_suite(void);
Suite *make_sched_suite(void);
Suite *make_hist_suite(void);
Suite *make_api_suite(void);
Suite *make_dist_suite(void);
Suite *make_workloads_suite(void);
Suite *make_conformance_suite(void);
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

#endif
