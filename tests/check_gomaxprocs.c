/* GOMAXPROCS rules and the OS limits they read (suite "util"): each rule at
 * its edges, as util/gomaxprocs.c cites them from Go 1.25 and automaxprocs
 * v1.6.0; cpu lists; the cgroup files, on tests/data/cgroup's fixtures. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/tests.h"
#include "util/gomaxprocs.h"

#define MS 1000000LL

static int procs(enum gmp_rule r, int cpus, double quota_cpus)
{
	struct gmp_limits l = { .cpus = cpus, .period_ns = 100 * MS,
				.quota_ns = (int64_t)(quota_cpus * 100 * MS + 0.5) };
	return gmp_procs(r, &l);
}

START_TEST(rule_cpus_ignores_the_quota)
{
	ck_assert_int_eq(procs(GMP_CPUS, 8, 0), 8);
	ck_assert_int_eq(procs(GMP_CPUS, 8, 0.5), 8);
	ck_assert_int_eq(procs(GMP_CPUS, 1, 4), 1);
}
END_TEST

/* cgroup_linux.go adjustCgroupGOMAXPROCS, go1.25.0: ceil, at least 2,
 * at most the CPUs. */
START_TEST(rule_go125)
{
	ck_assert_int_eq(procs(GMP_GO125, 8, 0), 8);      /* no limit: the CPUs */
	ck_assert_int_eq(procs(GMP_GO125, 8, 0.5), 2);    /* the floor of 2 */
	ck_assert_int_eq(procs(GMP_GO125, 8, 1), 2);
	ck_assert_int_eq(procs(GMP_GO125, 8, 1.5), 2);
	ck_assert_int_eq(procs(GMP_GO125, 8, 2), 2);
	ck_assert_int_eq(procs(GMP_GO125, 8, 2.01), 3);   /* any fraction rounds up */
	ck_assert_int_eq(procs(GMP_GO125, 8, 3.5), 4);
	ck_assert_int_eq(procs(GMP_GO125, 8, 8), 8);
	ck_assert_int_eq(procs(GMP_GO125, 4, 6), 4);      /* a cpuset smaller than the quota */
	ck_assert_int_eq(procs(GMP_GO125, 1, 0.5), 1);    /* the floor stays under the CPUs */
	ck_assert_int_eq(procs(GMP_GO125, 1, 4), 1);
	struct gmp_limits odd = { .cpus = 64, .quota_ns = 250 * MS, .period_ns = 30 * MS };
	ck_assert_int_eq(gmp_procs(GMP_GO125, &odd), 9);  /* 8.33 CPUs */
}
END_TEST

/* automaxprocs v1.6.0 CPUQuotaToGOMAXPROCS: floor, at least 1, no cap. */
START_TEST(rule_automaxprocs)
{
	ck_assert_int_eq(procs(GMP_AUTOMAXPROCS, 8, 0), 8);   /* no quota: left alone */
	ck_assert_int_eq(procs(GMP_AUTOMAXPROCS, 8, 0.5), 1); /* the minimum of 1 */
	ck_assert_int_eq(procs(GMP_AUTOMAXPROCS, 8, 1), 1);
	ck_assert_int_eq(procs(GMP_AUTOMAXPROCS, 8, 1.5), 1); /* rounded down */
	ck_assert_int_eq(procs(GMP_AUTOMAXPROCS, 8, 2), 2);
	ck_assert_int_eq(procs(GMP_AUTOMAXPROCS, 8, 2.01), 2);
	ck_assert_int_eq(procs(GMP_AUTOMAXPROCS, 8, 3.99), 3);
	ck_assert_int_eq(procs(GMP_AUTOMAXPROCS, 4, 6), 6);   /* not capped at the CPUs */
}
END_TEST

START_TEST(rule_names)
{
	for (int r = GMP_NUMBER + 1; r < GMP_NRULES; r++)
		ck_assert_int_eq(gmp_rule_find(gmp_rule_name((enum gmp_rule)r)), r);
	ck_assert_ptr_null(gmp_rule_name(GMP_NUMBER));
	ck_assert_int_eq(gmp_rule_find("go1.24"), GMP_NUMBER);
	ck_assert_int_eq(gmp_rule_find("4"), GMP_NUMBER);
}
END_TEST

START_TEST(cpulist_good)
{
	bool f[16];
	char bad[128], out[64];
	ck_assert(gmp_cpulist_parse("0", f, 16, bad, sizeof(bad)));
	gmp_cpulist_format(f, 16, out, sizeof(out));
	ck_assert_str_eq(out, "0");
	ck_assert(gmp_cpulist_parse("0-3,8", f, 16, bad, sizeof(bad)));
	gmp_cpulist_format(f, 16, out, sizeof(out));
	ck_assert_str_eq(out, "0-3,8");
	ck_assert(gmp_cpulist_parse("0-7:2,15", f, 16, bad, sizeof(bad)));
	gmp_cpulist_format(f, 16, out, sizeof(out));
	ck_assert_str_eq(out, "0,2,4,6,15");
	ck_assert(gmp_cpulist_parse("3,1-2,0", f, 16, bad, sizeof(bad)));
	gmp_cpulist_format(f, 16, out, sizeof(out));
	ck_assert_str_eq(out, "0-3");
}
END_TEST

START_TEST(cpulist_bad)
{
	bool f[16];
	char bad[128];
	const char *cases[][2] = {
		{ "", "an empty list" }, { "0,,1", "an empty item" }, { "1,", "an empty item" },
		{ "16", "'16': out of range" }, { "3-1", "'3-1': not a range A-B with A <= B" },
		{ "0-4:0", "'0-4:0': not a stride of 1 or more" }, { "a", "'a': not a CPU number" },
		{ "1-", "'1-': not a range A-B with A <= B" }, { "2:2", "'2:2': not a CPU number" },
		{ "0-15,99999999", "'99999999': not a CPU number" }, { " 1", "' 1': not a CPU number" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_msg(!gmp_cpulist_parse(cases[i][0], f, 16, bad, sizeof(bad)), "%s", cases[i][0]);
		ck_assert_str_eq(bad, cases[i][1]);
	}
}
END_TEST

START_TEST(cgroup_file_parsers)
{
	int64_t q, p;
	ck_assert_int_eq(gmp_parse_cpu_max("150000 100000\n", &q, &p), 1);
	ck_assert_int_eq(q, 150000);
	ck_assert_int_eq(p, 100000);
	ck_assert_int_eq(gmp_parse_cpu_max("max 100000\n", &q, &p), 0);
	ck_assert_int_eq(gmp_parse_cpu_max("150000\n", &q, &p), -1);
	ck_assert_int_eq(gmp_parse_cpu_max("150000 0\n", &q, &p), -1);
	ck_assert_int_eq(gmp_parse_cpu_max("1 2 3\n", &q, &p), -1);
	ck_assert_int_eq(gmp_parse_cfs("50000\n", "100000\n", &q, &p), 1);
	ck_assert_int_eq(q, 50000);
	ck_assert_int_eq(gmp_parse_cfs("-1\n", "100000\n", &q, &p), 0);
	ck_assert_int_eq(gmp_parse_cfs("x\n", "100000\n", &q, &p), -1);

	char path[256], mount[256], root[256];
	ck_assert_int_eq(gmp_cgroup_path("0::/a/b\n", path, sizeof(path)), GMP_CG_V2);
	ck_assert_str_eq(path, "/a/b");
	ck_assert_int_eq(gmp_cgroup_path("0::/x\n5:cpuset:/y\n4:cpuacct,cpu:/z\n", path,
					 sizeof(path)), GMP_CG_V1);
	ck_assert_str_eq(path, "/z");
	ck_assert_int_eq(gmp_cgroup_path("3:cpuacct:/q\n", path, sizeof(path)), GMP_CG_NONE);
	ck_assert_int_eq(gmp_cgroup_path("garbage\n", path, sizeof(path)), GMP_CG_BAD);
	ck_assert(gmp_cgroup_mount("36 30 0:31 / /sys/fs/my\\040cg rw - cgroup2 cgroup2 rw\n",
				   GMP_CG_V2, mount, root, sizeof(mount)));
	ck_assert_str_eq(mount, "/sys/fs/my cg");
	ck_assert(!gmp_cgroup_mount("36 30 0:31 / /c rw - cgroup cgroup rw,cpuacct\n", GMP_CG_V1,
				    mount, root, sizeof(mount)));
}
END_TEST

/* A fixture folder of tests/data/cgroup: its quota in ns (0: none). */
static int64_t fixture_quota(const char *name, int64_t *period)
{
	char *root = NULL;
	ck_assert_int_ge(asprintf(&root, "%s/cgroup/%s", test_data_dir(), name), 0);
	struct gmp_limits l;
	gmp_host_limits(root, &l);
	free(root);
	ck_assert_int_ge(l.cpus, 1);
	*period = l.period_ns;
	return l.quota_ns;
}

START_TEST(cpu_stat_parsers)
{
	struct gmp_cpu_stat st;
	ck_assert(gmp_parse_cpu_stat("nr_periods 30\nnr_throttled 12\nthrottled_time 540000000\n",
				     GMP_CG_V1, &st));
	ck_assert_uint_eq(st.periods, 30);
	ck_assert_uint_eq(st.throttled_periods, 12);
	ck_assert_uint_eq(st.throttled_ns, 540000000);
	ck_assert(gmp_parse_cpu_stat("usage_usec 9\nuser_usec 5\nsystem_usec 4\nnr_periods 7\n"
				     "nr_throttled 3\nthrottled_usec 250\nnr_bursts 0\n", GMP_CG_V2, &st));
	ck_assert_uint_eq(st.periods, 7);
	ck_assert_uint_eq(st.throttled_periods, 3);
	ck_assert_uint_eq(st.throttled_ns, 250000);
	/* a field missing, or v1's name in a v2 file: not read */
	ck_assert(!gmp_parse_cpu_stat("nr_periods 30\nnr_throttled 12\n", GMP_CG_V1, &st));
	ck_assert(!gmp_parse_cpu_stat("nr_periods 1\nnr_throttled 0\nthrottled_time 0\n", GMP_CG_V2,
				      &st));
	/* a prefix is not the field */
	ck_assert(!gmp_parse_cpu_stat("nr_periods_x 1\nnr_throttled 0\nthrottled_time 0\n",
				      GMP_CG_V1, &st));
}
END_TEST

START_TEST(cgroup_fixtures)
{
	int64_t period;
	/* v2 at the namespace's root: 1.5 CPUs */
	ck_assert_int_eq(fixture_quota("v2", &period), 150 * MS);
	ck_assert_int_eq(period, 100 * MS);
	/* v2, the leaf has none: a parent's quota does not count (Go 1.25) */
	ck_assert_int_eq(fixture_quota("v2max", &period), 0);
	/* v1's cpu hierarchy wins over v2; the mount shows it from the
	 * container's own folder down */
	ck_assert_int_eq(fixture_quota("v1", &period), 50 * MS);
	ck_assert_int_eq(period, 100 * MS);
	ck_assert_int_eq(fixture_quota("v1none", &period), 0);
	/* malformed, or no cgroup: no limit, as to Go */
	ck_assert_int_eq(fixture_quota("bad", &period), 0);
	ck_assert_int_eq(fixture_quota("none", &period), 0);
	ck_assert_int_eq(fixture_quota("no-such-folder", &period), 0);
}
END_TEST

Suite *make_gomaxprocs_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("gomaxprocs");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, rule_cpus_ignores_the_quota);
	tcase_add_test(tc, rule_go125);
	tcase_add_test(tc, rule_automaxprocs);
	tcase_add_test(tc, rule_names);
	tcase_add_test(tc, cpulist_good);
	tcase_add_test(tc, cpulist_bad);
	tcase_add_test(tc, cgroup_file_parsers);
	tcase_add_test(tc, cgroup_fixtures);
	tcase_add_test(tc, cpu_stat_parsers);
	suite_add_tcase(s, tc);
	return s;
}
