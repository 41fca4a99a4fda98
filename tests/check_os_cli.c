/* The OS options and --procs rules on the command line (suite "cli"):
 * --cpu-quota, --cpu-period, --cpuset, --load and --procs RULE, good and
 * bad, on run, compare, sweep, explore and regress; what reaches the run
 * (its report's "os" object, the P count) and what stays as it was. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "tests/tests.h"

static const struct {
	const char *args;
	const char *message;
} bad_os[] = {
	{ "run -p steal -w spawn-tree --procs go1.24",
	  "--procs go1.24: expected a number from 1 to 4096 or a rule (cpus, go1.25, automaxprocs)" },
	{ "run -p steal -w spawn-tree --cpu-quota 0", "--cpu-quota 0: expected CPUs' worth of time" },
	{ "run -p steal -w spawn-tree --cpu-quota -1", "--cpu-quota -1: expected CPUs' worth" },
	{ "run -p steal -w spawn-tree --cpu-quota 1x", "--cpu-quota 1x: expected CPUs' worth" },
	{ "run -p steal -w spawn-tree --cpu-quota nan", "--cpu-quota nan: expected CPUs' worth" },
	{ "run -p steal -w spawn-tree -t numa1 --cpu-quota 33",
	  "--cpu-quota 33: more than numa1's 32 PUs" },
	{ "run -p steal -w spawn-tree --cpu-quota 0.001",
	  "--cpu-quota 0.001: 0.001 CPUs of a 100000 us period is under the kernel's least quota" },
	{ "run -p steal -w spawn-tree --cpu-quota 1 --cpu-period 2s",
	  "--cpu-period 2s: expected whole microseconds from 1ms to 1s" },
	{ "run -p steal -w spawn-tree --cpu-quota 1 --cpu-period 1500500ns",
	  "--cpu-period 1500500ns: expected whole microseconds" },
	{ "run -p steal -w spawn-tree --cpu-quota 1 --cpu-period 500us", "--cpu-period 500us: expected" },
	{ "run -p steal -w spawn-tree --cpu-period 50ms",
	  "--cpu-period is the period of --cpu-quota: give both" },
	{ "run -p steal -w spawn-tree -t numa1 --cpuset 0-32",
	  "--cpuset 0-32: '0-32': out of range (numa1's PUs are OS indexes 0 to 31)" },
	{ "run -p steal -w spawn-tree --cpuset 3-1", "--cpuset 3-1: '3-1': not a range A-B" },
	{ "run -p steal -w spawn-tree --cpuset 0,,2", "--cpuset 0,,2: an empty item" },
	{ "run -p steal -w spawn-tree --cpuset ''", "--cpuset: an empty value" },
	{ "run -p steal -w spawn-tree --cpuset 0-7:0", "'0-7:0': not a stride of 1 or more" },
	{ "run -p steal -w spawn-tree --cpuset x", "--cpuset x: 'x': not a CPU number" },
	{ "run -p steal -w spawn-tree --load 0", "--load 0: '0' is not a number of threads from 1" },
	{ "run -p steal -w spawn-tree --load 2@0", "--load 2@0: duty '0' is not a fraction above 0" },
	{ "run -p steal -w spawn-tree --load 2@1.5", "--load 2@1.5: duty '1.5' is not a fraction" },
	{ "run -p steal -w spawn-tree --load 2/1us", "--load PERIOD 1us: expected a duration" },
	{ "run -p steal -w spawn-tree --load 2/2s", "--load 2/2s: period '2s' is longer than 1s" },
	{ "run -p steal -w spawn-tree --load 4097", "--load 4097: '4097' is not a number of threads" },
	{ "run -p steal -w spawn-tree --native --cpu-quota 1",
	  "--cpu-quota is simulated only: natively, run schedlab under the limit itself" },
	{ "run -p steal -w spawn-tree --native --cpuset 0", "--cpuset is simulated only" },
	{ "run -p steal -w spawn-tree --native --load 1", "--load is simulated only" },
	{ "compare -p steal,global -w ping-pong --cpuset 99999", "--cpuset 99999: '99999': out of range" },
	{ "compare -p steal,global -w ping-pong --procs go1", "--procs go1: expected a number" },
	{ "sweep -p steal -w ping-pong --procs 1,go1.26",
	  "--procs 1,go1.26: 'go1.26' is not a P count from 1 to 4096 or a rule" },
	{ "sweep -p steal -w ping-pong -t numa1,numa4 --cpuset 40",
	  "--cpuset 40: '40': out of range (numa1's PUs" },
	{ "explore -p steal -w ping-pong --load 1@x", "--load 1@x: duty 'x' is not a fraction" },
	{ "regress --baseline x.json --cpu-quota 1", "--cpu-quota: the suite gives each case's OS limits" },
};

START_TEST(bad_os_options_exit_2_naming_the_option)
{
	char *out, *err;
	ck_assert_int_eq(test_schedlab(bad_os[_i].args, &out, &err), 2);
	ck_assert_msg(strstr(err, bad_os[_i].message), "'%s' printed: %s", bad_os[_i].args, err);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
}
END_TEST

static cJSON *run_json(const char *args)
{
	char *out;
	ck_assert_int_eq(test_schedlabf(&out, NULL, "run -p steal -w spawn-tree --json - %s", args), 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	free(out);
	return o;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	ck_assert_msg(cJSON_IsNumber(v), "no number %s", key);
	return v->valuedouble;
}

START_TEST(report_os_object_says_the_rule_and_the_limits)
{
	cJSON *o = run_json("-t numa1 --procs go1.25 --cpu-quota 2.5 --cpu-period 50ms "
			    "--cpuset 0-7:2,9 --load 3@0.25/5ms");
	ck_assert_int_eq((int)num(o, "procs"), 3);
	const cJSON *os = cJSON_GetObjectItemCaseSensitive(o, "os");
	ck_assert_ptr_nonnull(os);
	ck_assert_str_eq(cJSON_GetObjectItem(os, "procs_rule")->valuestring, "go1.25");
	ck_assert_int_eq((int)num(os, "procs"), 3);
	ck_assert_int_eq((int)num(os, "cpus"), 5);
	ck_assert_double_eq(num(os, "cpu_quota"), 2.5);
	ck_assert_double_eq(num(os, "cpu_period_ns"), 50e6);
	ck_assert_str_eq(cJSON_GetObjectItem(os, "cpuset")->valuestring, "0,2,4,6,9");
	const cJSON *load = cJSON_GetObjectItem(os, "load");
	ck_assert_int_eq((int)num(load, "threads"), 3);
	ck_assert_double_eq(num(load, "duty"), 0.25);
	ck_assert_double_eq(num(load, "period_ns"), 5e6);
	cJSON_Delete(o);

	/* each rule on the same limits: 2.5 CPUs on a 2-PU cpuset */
	static const struct { const char *rule; int procs; } rules[] = {
		{ "cpus", 2 }, { "go1.25", 2 }, { "automaxprocs", 2 },
	};
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		char args[128];
		snprintf(args, sizeof(args), "-t numa1 --procs %s --cpu-quota 2.5 --cpuset 4-5",
			 rules[i].rule);
		o = run_json(args);
		ck_assert_int_eq((int)num(o, "procs"), rules[i].procs);
		os = cJSON_GetObjectItem(o, "os");
		ck_assert_str_eq(cJSON_GetObjectItem(os, "procs_rule")->valuestring, rules[i].rule);
		cJSON_Delete(o);
	}
	/* automaxprocs is not capped at the CPUs; go1.25 is */
	o = run_json("-t numa1 --procs automaxprocs --cpu-quota 6 --cpuset 0-3");
	ck_assert_int_eq((int)num(o, "procs"), 6);
	cJSON_Delete(o);
	o = run_json("-t numa1 --procs go1.25 --cpu-quota 6 --cpuset 0-3");
	ck_assert_int_eq((int)num(o, "procs"), 4);
	cJSON_Delete(o);
	/* no limit: every rule gives the topology's PUs */
	o = run_json("-t numa1 --procs go1.25");
	ck_assert_int_eq((int)num(o, "procs"), 32);
	os = cJSON_GetObjectItem(o, "os");
	ck_assert_ptr_null(cJSON_GetObjectItem(os, "cpu_quota"));
	ck_assert_ptr_null(cJSON_GetObjectItem(os, "cpuset"));
	cJSON_Delete(o);
	/* a quota without a rule: no procs_rule, the default procs */
	o = run_json("-t numa1 --cpu-quota 0.5");
	os = cJSON_GetObjectItem(o, "os");
	ck_assert_ptr_null(cJSON_GetObjectItem(os, "procs_rule"));
	ck_assert_double_eq(num(os, "cpu_quota"), 0.5);
	ck_assert_double_eq(num(os, "cpu_period_ns"), 100e6);
	ck_assert_int_eq((int)num(o, "procs"), 32);
	cJSON_Delete(o);
}
END_TEST

/* A run given none of them reports none of them: its "os" object (there
 * only if the OS model saw a thread wait) has none of their keys, and the
 * text summary has no "os limits" line. */
START_TEST(plain_runs_report_no_os_limits)
{
	static const char *const keys[] = { "procs_rule", "cpus", "cpu_quota", "cpu_period_ns",
					    "cpuset", "load" };
	cJSON *o = run_json("--procs 4");
	const cJSON *os = cJSON_GetObjectItem(o, "os");
	for (size_t i = 0; os && i < sizeof(keys) / sizeof(keys[0]); i++)
		ck_assert_msg(!cJSON_GetObjectItem(os, keys[i]), "os.%s", keys[i]);
	cJSON_Delete(o);
	char *out;
	ck_assert_int_eq(test_schedlab("run -p steal -w spawn-tree", &out, NULL), 0);
	ck_assert_ptr_null(strstr(out, "\nos limits "));
	free(out);
	ck_assert_int_eq(test_schedlab("run -p steal -w spawn-tree -t numa1 --procs automaxprocs "
				       "--cpu-quota 1.5 --cpuset 0-1", &out, NULL), 0);
	ck_assert_msg(strstr(out, "\nos limits       procs automaxprocs = 1 of 2 CPUs, quota 1.5 "
			     "CPUs per 100.00 ms, cpuset 0-1\n"), "%s", out);
	free(out);
}
END_TEST

START_TEST(compare_sweep_and_explore_label_the_rule)
{
	char *out;
	ck_assert_int_eq(test_schedlab("compare -p steal,global -w ping-pong -t numa1 --procs go1.25 "
				       "--cpu-quota 2.5", &out, NULL), 0);
	ck_assert_msg(strstr(out, "workload ping-pong, 3 Ps (go1.25), seed 1"), "%s", out);
	free(out);
	ck_assert_int_eq(test_schedlab("compare -p steal,global -w ping-pong -t numa1 --procs go1.25 "
				       "--cpu-quota 2.5 --json -", &out, NULL), 0);
	cJSON *o = cJSON_Parse(out);
	const cJSON *os = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "compare"), "os");
	ck_assert_str_eq(cJSON_GetObjectItem(os, "procs_rule")->valuestring, "go1.25");
	cJSON_Delete(o);
	free(out);
	ck_assert_int_eq(test_schedlab("sweep -p steal -w ping-pong -t numa1 --procs 1,automaxprocs "
				       "--cpu-quota 2.5 --cpuset 0-3", &out, NULL), 0);
	ck_assert_msg(strstr(out, " 2 (automaxprocs) "), "%s", out);
	free(out);
	ck_assert_int_eq(test_schedlab("sweep -p steal -w ping-pong -t numa1 --procs cpus --cpuset 0-3 "
				       "--json -", &out, NULL), 0);
	o = cJSON_Parse(out);
	const cJSON *in = cJSON_GetObjectItem(o, "inputs");
	ck_assert_str_eq(cJSON_GetObjectItem(in, "procs_rule")->valuestring, "cpus");
	ck_assert_int_eq((int)num(in, "procs"), 4);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "report"),
								 "os"), "cpuset")->valuestring, "0-3");
	cJSON_Delete(o);
	free(out);
	ck_assert_int_eq(test_schedlab("explore -p steal -w ping-pong -t numa1 --procs go1.25 "
				       "--cpu-quota 1 --schedules 2 --quiet", &out, NULL), 0);
	ck_assert_msg(strstr(out, "2 Ps"), "%s", out);
	free(out);
}
END_TEST

/* The jobs sweep emits give the OS options again, and their matrix is the
 * sweep's. */
START_TEST(sweep_jobs_carry_the_os_options)
{
	char dir[64], *out;
	test_tmpdir(dir, sizeof(dir), "os-jobs");
	ck_assert_int_eq(test_schedlabf(&out, NULL, "sweep -p steal -w ping-pong -t numa1 --procs "
					"go1.25 --cpu-quota 1.5 --cpu-period 20ms --cpuset 0-3 "
					"--load 2@0.5 --emit-jobs %s/jobs", dir), 0);
	free(out);
	char *jobs = xasprintf("%s/jobs", dir);
	char *text = test_read_file(jobs);
	ck_assert_msg(strstr(text, " --cpu-quota 1.5 --cpu-period 20000000ns --cpuset '0-3' "
			     "--load 2@0.5/10000000ns"), "%s", text);
	free(text);
	free(jobs);
	test_rm_rf(dir);
}
END_TEST

/* The rules read this process's own limits natively: cpus is the
 * affinity mask's size. */
START_TEST(native_rules_read_the_process_limits)
{
	cpu_set_t set;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	char *out;
	ck_assert_int_eq(test_schedlab("run --native -p steal -w ping-pong --procs cpus --json -",
				       &out, NULL), 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_int_eq((int)num(o, "procs"), CPU_COUNT(&set));
	const cJSON *os = cJSON_GetObjectItem(o, "os");
	ck_assert_str_eq(cJSON_GetObjectItem(os, "procs_rule")->valuestring, "cpus");
	ck_assert_int_eq((int)num(os, "cpus"), CPU_COUNT(&set));
	cJSON_Delete(o);
	free(out);
	/* under taskset the mask is one CPU: so is GOMAXPROCS */
	int cpu = 0;
	while (!CPU_ISSET(cpu, &set))
		cpu++;
	if (test_runf(&out, NULL, "taskset -c %d true", cpu) == 0) {
		free(out);
		ck_assert_int_eq(test_runf(&out, NULL, "taskset -c %d %s run --native -p steal -w "
					   "ping-pong --procs go1.25 --json -", cpu,
					   test_schedlab_bin()), 0);
		o = cJSON_Parse(out);
		ck_assert_int_eq((int)num(o, "procs"), 1);
		cJSON_Delete(o);
	}
	free(out);
}
END_TEST

/* A suite's case: procs as a rule and the OS keys, checked where read. */
START_TEST(regress_suite_os_keys)
{
	static const struct { const char *keys, *message; } bad[] = {
		{ "\"procs\": \"go2\"", "$.cases[0].procs: \"go2\" is not a rule" },
		{ "\"cpu_quota\": 0", "$.cases[0].cpu_quota: must be a positive number" },
		{ "\"cpu_quota\": 1, \"cpu_period_ns\": 100", "$.cases[0].cpu_period_ns" },
		{ "\"cpu_quota\": 1, \"cpu_period_ns\": 1000500", "whole microseconds" },
		{ "\"cpu_period_ns\": 1000000", "the period of cpu_quota: give both" },
		{ "\"cpuset\": 3", "$.cases[0].cpuset" },
		{ "\"cpuset\": \"0-99\"", "--cpuset 0-99: '0-99': out of range" },
		{ "\"load\": {\"threads\": 0}", "$.cases[0].load.threads" },
		{ "\"load\": {\"threads\": 1, \"duty\": 2}", "duty: a fraction above 0 and at most 1" },
		{ "\"load\": {\"threads\": 1, \"often\": 2}", "$.cases[0].load.often: unknown key" },
	};
	char dir[64];
	test_tmpdir(dir, sizeof(dir), "os-suite");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *path = xasprintf("%s/s%zu.json", dir, i), *out, *err;
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "{\"suite\": \"os\", \"seeds\": 5, \"cases\": [{\"name\": \"a\", "
			"\"policy\": \"steal\", \"topology\": \"numa1\", \"workload\": \"ping-pong\", "
			"%s}]}", bad[i].keys);
		fclose(f);
		ck_assert_int_eq(test_schedlabf(&out, &err, "regress --update --suite %s --baseline "
						 "%s/b.json", path, dir), 2);
		ck_assert_msg(strstr(err, bad[i].message), "%s printed: %s", bad[i].keys, err);
		free(out);
		free(err);
		free(path);
	}
	/* good keys: the case runs under them, its baseline names the rule */
	char *path = xasprintf("%s/good.json", dir), *out, *err;
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "{\"suite\": \"os\", \"seeds\": 5, \"cases\": [{\"name\": \"a\", "
		"\"policy\": \"steal\", \"topology\": \"numa1\", \"workload\": \"ping-pong\", "
		"\"procs\": \"go1.25\", \"cpu_quota\": 2.5, \"cpu_period_ns\": 50000000, "
		"\"cpuset\": \"0-3\", \"load\": {\"threads\": 1, \"duty\": 0.5}}]}");
	fclose(f);
	ck_assert_int_eq(test_schedlabf(&out, &err, "regress --update --suite %s --baseline "
					"%s/b.json", path, dir), 0);
	free(out);
	free(err);
	char *b = xasprintf("%s/b.json", dir), *text = test_read_file(b);
	cJSON *o = cJSON_Parse(text);
	const cJSON *in = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "cases"), 0),
					      "inputs");
	ck_assert_str_eq(cJSON_GetObjectItem(in, "procs")->valuestring, "go1.25");
	cJSON_Delete(o);
	free(text);
	ck_assert_int_eq(test_schedlabf(&out, &err, "regress --baseline %s", b), 0);
	free(out);
	free(err);
	free(b);
	free(path);
	test_rm_rf(dir);
}
END_TEST

START_TEST(list_options_has_the_os_options)
{
	static const char *const cmds[] = { "run", "compare", "sweep", "explore" };
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *out;
		ck_assert_int_eq(test_schedlabf(&out, NULL, "list options %s", cmds[i]), 0);
		ck_assert_msg(strstr(out, "--cpu-quota") && strstr(out, "--cpu-period") &&
			      strstr(out, "--cpuset") && strstr(out, "--load"), "%s: %s", cmds[i], out);
		free(out);
	}
}
END_TEST

Suite *make_os_cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("os");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_loop_test(tc, bad_os_options_exit_2_naming_the_option, 0,
			    (int)(sizeof(bad_os) / sizeof(bad_os[0])));
	tcase_add_test(tc, report_os_object_says_the_rule_and_the_limits);
	tcase_add_test(tc, plain_runs_report_no_os_limits);
	tcase_add_test(tc, compare_sweep_and_explore_label_the_rule);
	tcase_add_test(tc, sweep_jobs_carry_the_os_options);
	tcase_add_test(tc, regress_suite_os_keys);
	tcase_add_test(tc, list_options_has_the_os_options);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	tc = tcase_create("os-native");
	tcase_add_test(tc, native_rules_read_the_process_limits);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}
