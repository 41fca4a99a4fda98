/* exp/: the run-matrix engine (through compare and sweep), the results
 * store, sweep's lists and ranges, --emit-jobs and merge. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "exp/matrix.h"
#include "exp/metric.h"
#include "exp/spec.h"
#include "exp/store.h"
#include "tests/tests.h"
#include "util/pool.h"

/* A fresh temporary folder (the caller removes it with rm_rf). */
static char *temp_dir(void)
{
	char *d = malloc(64);
	ck_assert_ptr_nonnull(d);
	test_tmpdir(d, 64, "exp");
	return d;
}

static void rm_rf(char *dir)
{
	test_rm_rf(dir);
	free(dir);
}

static char *path_in(const char *dir, const char *name)
{
	char *p = NULL;
	ck_assert_int_ge(asprintf(&p, "%s/%s", dir, name), 0);
	return p;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

static struct exp_store *read_store(const char *path)
{
	struct err e = { "" };
	struct exp_store *s = exp_store_read(path, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	return s;
}

static const char *row_str(const cJSON *row, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(row, key);
	ck_assert_msg(cJSON_IsString(v), "%s", key);
	return v->valuestring;
}

static double row_num(const cJSON *row, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(row, key);
	ck_assert_msg(cJSON_IsNumber(v), "%s", key);
	return v->valuedouble;
}

/* ---- Lists and ranges ---- */

static void expect_list(const char *list, const char *want)
{
	struct err e = { "" };
	char **items;
	long n;
	ck_assert_msg(exp_list_expand("--procs", list, true, &items, &n, &e), "%s: %s", list, e.msg);
	char got[1024] = "";
	for (long i = 0; i < n; i++) {
		strcat(got, i ? "," : "");
		strcat(got, items[i]);
	}
	ck_assert_str_eq(got, want);
	exp_list_free(items, n);
}

START_TEST(ranges_double_or_step)
{
	expect_list("1,2,4..64", "1,2,4,8,16,32,64");
	expect_list("1..64", "1,2,4,8,16,32,64");
	expect_list("3..64", "3,6,12,24,48");
	expect_list("0..100+25", "0,25,50,75,100");
	expect_list("0..10+4", "0,4,8");
	expect_list("5..5", "5");
	expect_list("0..0", "0");
	expect_list("7", "7");
	expect_list("x,1..2", "x,1,2");
	expect_list("9223372036854775806..9223372036854775807", "9223372036854775806");
	expect_list("4611686018427387904..9223372036854775807", "4611686018427387904");
	/* without ranges a ".." is part of the item (a path) */
	struct err e = { "" };
	char **items;
	long n;
	ck_assert(exp_list_expand("-w", "../a.json,b", false, &items, &n, &e));
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(items[0], "../a.json");
	exp_list_free(items, n);
}
END_TEST

static const struct {
	const char *list, *message;
} bad_lists[] = {
	{ "64..1", "--procs 64..1: '64..1' is an empty range: 64 is above 1" },
	{ "0..8", "--procs 0..8: '0..8' doubles from 0, which never grows" },
	{ "1,,2", "--procs 1,,2: item 2 is empty" },
	{ ",", "--procs ,: item 1 is empty" },
	{ "", "--procs : item 1 is empty" },
	{ "1..", "'1..' is not a range" },
	{ "..4", "'..4' is not a range" },
	{ "1..4+0", "'1..4+0' is not a range" },
	{ "1..4+", "'1..4+' is not a range" },
	{ "-1..4", "'-1..4' is not a range" },
	{ "1..99999999999999999999", "is not a range" },
	{ "0..100000000000+1", "makes more than 100000 values" },
};

START_TEST(bad_lists_are_refused)
{
	struct err e = { "" };
	char **items = (char **)1;
	long n = 1;
	ck_assert(!exp_list_expand("--procs", bad_lists[_i].list, true, &items, &n, &e));
	ck_assert_msg(strstr(e.msg, bad_lists[_i].message), "%s", e.msg);
	ck_assert_ptr_null(items);
	ck_assert_int_eq(n, 0);
}
END_TEST

/* ---- The store ---- */

START_TEST(store_reader_names_file_line_and_path)
{
	static const struct {
		const char *text, *message;
	} bad[] = {
		{ "{\"store\": 1}\n", ":1: .schedlab: missing" },
		{ "\n\nnot json\n", ":3: not JSON" },
		{ "[1]\n", ":1: a row is a JSON object" },
		{ "{} {}\n", ":1: more than one JSON value" },
	};
	char *dir = temp_dir();
	char *p = path_in(dir, "s.jsonl");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(p, bad[i].text);
		struct err e = { "" };
		ck_assert_ptr_null(exp_store_read(p, &e));
		ck_assert_msg(strstr(e.msg, "s.jsonl") && strstr(e.msg, bad[i].message), "%s", e.msg);
	}
	/* a good row, then the same with one key's type wrong */
	char *out;
	ck_assert_int_eq(test_schedlab("sweep -p steal -t numa1 -w ping-pong --procs 2 --json -",
				       &out, NULL), 0);
	write_file(p, out);
	struct exp_store *s = read_store(p);
	ck_assert_int_eq(s->nrows, 1);
	double v;
	ck_assert(exp_row_metric_number(s->rows[0], "sched_latency_ns.p99", &v));
	ck_assert(v > 0);
	ck_assert(cJSON_IsArray(exp_row_metric(s->rows[0], "sched_latency_ns.buckets")));
	ck_assert_ptr_null(exp_row_metric(s->rows[0], "sched_latency_ns.p98"));
	cJSON *row = cJSON_Duplicate(s->rows[0], true);
	exp_store_free(s);
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(row, "inputs"), "procs",
				  cJSON_CreateString("2"));
	char *line = exp_json_line(row);
	char *text = NULL;
	ck_assert_int_ge(asprintf(&text, "\n%s\n", line), 0);
	write_file(p, text);
	struct err e = { "" };
	ck_assert_ptr_null(exp_store_read(p, &e));
	ck_assert_msg(strstr(e.msg, "s.jsonl:2: .inputs.procs: expected a number"), "%s", e.msg);
	cJSON_Delete(row);
	free(line);
	free(text);
	free(out);
	free(p);
	rm_rf(dir);
}
END_TEST

/* Numbers go through a store unchanged: cJSON's own printer would round
 * some to 15 digits. */
START_TEST(store_numbers_read_back_exactly)
{
	const double vals[] = { 0.1, 1.0 / 3, 2.0 / 3 * 1e-9, 123456789.123456789, 1e300, 4e15 + 1,
				9007199254740993.0, -0.5, 0 };
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(vals[i]));
	char *line = exp_json_line(a);
	cJSON *b = cJSON_Parse(line);
	ck_assert_ptr_nonnull(b);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		ck_assert_msg(cJSON_GetArrayItem(b, (int)i)->valuedouble == vals[i], "%zu: %s", i, line);
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(line);
}
END_TEST

/* ---- The engine: serial and parallel runs give the same store ---- */

#define SMALL "-p steal,global -t numa1 -w ping-pong,spawn-tree --procs 2,4 --seeds 2"

START_TEST(jobs_1_and_2_give_byte_identical_stores)
{
	char *dir = temp_dir();
	char *j1 = path_in(dir, "j1.jsonl"), *j2 = path_in(dir, "j2.jsonl");
	char *c1 = path_in(dir, "j1.csv"), *c2 = path_in(dir, "j2.csv");
	char *args = NULL, *err;
	ck_assert_int_ge(asprintf(&args, "sweep " SMALL " -j 1 --json %s --csv %s", j1, c1), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 0);
	/* not a terminal: no progress */
	ck_assert_str_eq(err, "");
	free(err);
	free(args);
	ck_assert_int_ge(asprintf(&args, "sweep " SMALL " -j 2 --json %s --csv %s", j2, c2), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	free(args);
	char *a = test_read_file(j1), *b = test_read_file(j2);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	a = test_read_file(c1);
	b = test_read_file(c2);
	ck_assert_str_eq(a, b);
	ck_assert(strncmp(a, "index,variant,status,exit_status,mode,policy,topology,workload,procs,"
			  "seed,schedlab,commit,knob.", strlen("index,variant,status,exit_status,"
			  "mode,policy,topology,workload,procs,seed,schedlab,commit,knob.")) == 0);
	free(a);
	free(b);
	/* 2 variants x 2 workloads x 2 procs x 2 seeds, in order, each the run's report */
	struct exp_store *s = read_store(j1);
	ck_assert_int_eq(s->nrows, 16);
	for (long i = 0; i < 16; i++) {
		const cJSON *r = s->rows[i], *in = cJSON_GetObjectItem(r, "inputs");
		ck_assert_int_eq((long)row_num(r, "index"), i);
		ck_assert_int_eq((long)row_num(r, "runs"), 16);
		ck_assert_str_eq(row_str(r, "status"), "ok");
		ck_assert_str_eq(row_str(r, "matrix"), row_str(s->rows[0], "matrix"));
		ck_assert_str_eq(row_str(in, "workload"), i < 8 ? "ping-pong" : "spawn-tree");
		ck_assert_str_eq(row_str(r, "variant"), i % 8 < 4 ? "steal" : "global");
		ck_assert_int_eq((int)row_num(in, "procs"), i % 4 < 2 ? 2 : 4);
		ck_assert_int_eq((int)row_num(in, "seed"), 1 + (int)(i % 2));
		ck_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "message")));
	}
	/* a row's report is what `run --json` writes */
	char *out;
	ck_assert_int_eq(test_schedlab("run -p global -t numa1 -w spawn-tree --procs 4 --seed 2 "
				       "--json -", &out, NULL), 0);
	cJSON *want = cJSON_Parse(out);
	ck_assert(cJSON_Compare(want, cJSON_GetObjectItem(s->rows[15], "report"), true));
	cJSON_Delete(want);
	free(out);
	exp_store_free(s);
	free(j1);
	free(j2);
	free(c1);
	free(c2);
	rm_rf(dir);
}
END_TEST

/* On a terminal the progress line is drawn (script(1) gives the run one). */
START_TEST(progress_on_a_terminal_only)
{
	char *cmd = NULL, *out;
	ck_assert_int_ge(asprintf(&cmd, "script -qec \"'%s' sweep -p steal -t numa1 -w ping-pong "
				  "--seeds 3 -j 2 --json /dev/null\" /dev/null", test_schedlab_bin()), 0);
	ck_assert_int_eq(test_run(cmd, &out, NULL), 0);
	ck_assert_msg(strstr(out, "\rschedlab sweep: 3/3 runs done, 0 running, 0 failed, "), "%s", out);
	ck_assert_msg(strstr(out, " elapsed"), "%s", out);
	free(out);
	free(cmd);
}
END_TEST

/* Outside a terminal (a CI log): plain lines, no carriage return --
 * with always the last state at least, with never nothing; auto prints
 * only every 10 s, so a short sweep stays silent. */
START_TEST(progress_in_a_log_is_plain_lines)
{
	static const struct {
		const char *when;
		bool lines;
	} cases[] = { { "always", true }, { "never", false }, { "auto", false } };
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *out, *err;
		ck_assert_int_eq(test_schedlabf(&out, &err, "sweep -p steal -t numa1 -w ping-pong "
						"--seeds 3 -j 2 --json /dev/null --progress %s",
						cases[k].when), 0);
		ck_assert_msg(!strchr(err, '\r') && !strstr(err, "\033["), "%s: %s", cases[k].when, err);
		ck_assert_msg((strstr(err, "schedlab sweep: 3/3 runs done, 0 running, 0 failed, ") !=
			       NULL) == cases[k].lines, "%s: %s", cases[k].when, err);
		if (cases[k].lines)
			ck_assert_msg(err[strlen(err) - 1] == '\n', "%s", err);
		free(out);
		free(err);
	}
}
END_TEST

/* ---- Runs that fail ---- */

static const char stuck_json[] = "{\"name\": \"stuck\", \"channels\": {\"never\": 0},\n"
				 " \"programs\": {\"main\": [{\"recv\": \"never\"}]}}\n";
static const char panics_json[] = "{\"name\": \"panics\", \"channels\": {\"c\": 1}, \"programs\": "
				  "{\"main\": [{\"close\": \"c\"}, {\"close\": \"c\"}]}}\n";
static const char long_json[] = "{\"name\": \"long\", \"programs\": {\"main\": "
				"[{\"compute\": \"1s\"}]}}\n";

START_TEST(failing_runs_are_their_rows_and_the_others_complete)
{
	char *dir = temp_dir();
	char *stuck = path_in(dir, "stuck.json"), *panics = path_in(dir, "panics.json");
	char *lng = path_in(dir, "long.json"), *store = path_in(dir, "s.jsonl");
	write_file(stuck, stuck_json);
	write_file(panics, panics_json);
	write_file(lng, long_json);
	char *args = NULL, *err;
	ck_assert_int_ge(asprintf(&args, "sweep -p steal -t numa1 --procs 2 -w ping-pong,%s,%s,%s "
				  "--max-sim-time 100ms -j 2 --json %s", stuck, panics, lng, store), 0);
	/* the first run that failed, in matrix order, gives the exit status */
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 1);
	ck_assert_msg(strstr(err, "3 of 4 runs did not complete; the first, run 1 (steal, seed 1): "
			     "deadlock:"), "%s", err);
	free(err);
	struct exp_store *s = read_store(store);
	ck_assert_int_eq(s->nrows, 4);
	static const struct {
		const char *status, *message;
		int exit_status;
	} want[] = {
		{ "ok", NULL, 0 },
		{ "deadlock", "fatal error: all goroutines are asleep - deadlock! (1 goroutines "
			      "blocked)", 1 },
		{ "panic", "panic: close of closed channel", 2 },
		{ "limit", "the run reached its simulated-time limit, 100ms", 4 },
	};
	for (int i = 0; i < 4; i++) {
		const cJSON *r = s->rows[i];
		ck_assert_str_eq(row_str(r, "status"), want[i].status);
		ck_assert_int_eq((int)row_num(r, "exit_status"), want[i].exit_status);
		if (want[i].message)
			ck_assert_msg(strstr(row_str(r, "message"), want[i].message), "%s",
				      row_str(r, "message"));
		/* a run that ended is reported, even cut */
		ck_assert(cJSON_IsObject(cJSON_GetObjectItem(r, "report")));
	}
	exp_store_free(s);
	free(args);
	free(stuck);
	free(panics);
	free(lng);
	free(store);
	rm_rf(dir);
}
END_TEST

/* The process of a run killed from outside (as the OOM killer or an
 * operator would): its row says so, and the run after it is made. */
START_TEST(a_killed_run_is_crashed_and_the_others_complete)
{
	/* twice: the second time with SIGCHLD ignored, as a parent may leave
	 * it (the sweep's waitpid must still see how the run died) */
	for (int ignored = 0; ignored < 2; ignored++) {
		char *dir = temp_dir();
		char *store = path_in(dir, "s.jsonl");
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			if (ignored)
				signal(SIGCHLD, SIG_IGN);
			if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
				_exit(126);
			execl(test_schedlab_bin(), "schedlab", "sweep", "-p", "steal", "-t", "numa1", "--procs",
			      "4", "-w", "skynet,ping-pong", "-j", "1", "--json", store, (char *)NULL);
			_exit(127);
		}
		/* the first run's process: the sweep's only child while it runs */
		char children[64];
		snprintf(children, sizeof(children), "/proc/%d/task/%d/children", pid, pid);
		pid_t run = 0;
		for (int tries = 0; tries < 6000 && run == 0; tries++) {
			FILE *f = fopen(children, "r");
			if (f) {
				int c;
				if (fscanf(f, "%d", &c) == 1)
					run = c;
				fclose(f);
			}
			if (run == 0)
				usleep(10000);
		}
		ck_assert_int_gt(run, 0);
		ck_assert_int_eq(kill(run, SIGKILL), 0);
		int status;
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFEXITED(status));
		ck_assert_int_eq(WEXITSTATUS(status), 128 + SIGKILL);
		struct exp_store *s = read_store(store);
		ck_assert_int_eq(s->nrows, 2);
		ck_assert_str_eq(row_str(s->rows[0], "status"), "crashed");
		ck_assert_int_eq((int)row_num(s->rows[0], "exit_status"), 128 + SIGKILL);
		ck_assert_msg(strstr(row_str(s->rows[0], "message"), "killed by signal 9"), "%s",
			      row_str(s->rows[0], "message"));
		ck_assert(cJSON_IsNull(cJSON_GetObjectItem(s->rows[0], "report")));
		ck_assert_str_eq(row_str(s->rows[1], "status"), "ok");
		exp_store_free(s);
		free(store);
		rm_rf(dir);
	}
}
END_TEST

/* Native cells run too: one at a time unless -j says otherwise, which is
 * obeyed with a warning. */
START_TEST(native_cells_run)
{
	char *out, *err;
	ck_assert_int_eq(test_schedlab("sweep -p steal,global --native -w ping-pong --procs 2 "
				       "--seeds 2 -j 2 --json -", &out, &err), 0);
	ck_assert_msg(strstr(err, "warning: -j 2 native runs at once take each other's CPUs"), "%s",
		      err);
	char *dir = temp_dir();
	char *p = path_in(dir, "s.jsonl");
	write_file(p, out);
	struct exp_store *s = read_store(p);
	ck_assert_int_eq(s->nrows, 4);
	for (long i = 0; i < 4; i++) {
		const cJSON *in = cJSON_GetObjectItem(s->rows[i], "inputs");
		ck_assert_str_eq(row_str(in, "mode"), "native");
		ck_assert_str_eq(row_str(in, "topology"), "host");
		ck_assert_str_eq(row_str(s->rows[i], "status"), "ok");
		double done;
		ck_assert(exp_row_metric_number(s->rows[i], "completed", &done));
		ck_assert(done >= 2);
	}
	exp_store_free(s);
	free(out);
	free(err);
	free(p);
	rm_rf(dir);
}
END_TEST

/* ---- sweep's matrix ---- */

START_TEST(sweep_is_the_cartesian_product_in_its_order)
{
	char *out;
	/* steal: 2 runnext x 3 procs x 2 seeds; global has no runnext: 3 x 2 */
	ck_assert_int_eq(test_schedlab("sweep -p steal,global -t numa1 -w ping-pong --procs 1..4 "
				       "--set runnext=0..1+1 --seeds 2 --seed 5 --json -", &out, NULL),
			 0);
	char *dir = temp_dir();
	char *p = path_in(dir, "s.jsonl");
	write_file(p, out);
	struct exp_store *s = read_store(p);
	ck_assert_int_eq(s->nrows, 18);
	static const char *const variants[] = { "steal:runnext=0", "steal:runnext=1", "global" };
	for (long i = 0; i < 18; i++) {
		const cJSON *r = s->rows[i], *in = cJSON_GetObjectItem(r, "inputs");
		ck_assert_str_eq(row_str(r, "variant"), variants[i / 6]);
		ck_assert_int_eq((int)row_num(in, "procs"), 1 << (i % 6 / 2));
		ck_assert_int_eq((int)row_num(in, "seed"), 5 + (int)(i % 2));
		const cJSON *set = cJSON_GetObjectItem(in, "set");
		if (i < 12)
			ck_assert_int_eq((int)row_num(set, "runnext"), (int)(i / 6));
		else
			ck_assert_int_eq(cJSON_GetArraySize(set), 0);
	}
	/* knobs run: the dimension's value, in the report */
	ck_assert_int_eq((int)row_num(cJSON_GetObjectItem(cJSON_GetObjectItem(s->rows[0], "report"),
							  "knobs"), "runnext"), 0);
	ck_assert_int_eq((int)row_num(cJSON_GetObjectItem(cJSON_GetObjectItem(s->rows[6], "report"),
							  "knobs"), "runnext"), 1);
	exp_store_free(s);
	free(out);
	/* a -p item's own knob wins over a --set dimension, which leaves it alone */
	ck_assert_int_eq(test_schedlab("sweep -p steal:runnext=0,steal -t numa1 -w ping-pong "
				       "--procs 2 --set runnext=0,1 --json -", &out, NULL), 0);
	write_file(p, out);
	s = read_store(p);
	ck_assert_int_eq(s->nrows, 3);
	ck_assert_str_eq(row_str(s->rows[0], "variant"), "steal:runnext=0");
	ck_assert_str_eq(row_str(s->rows[1], "variant"), "steal:runnext=0");
	ck_assert_str_eq(row_str(s->rows[2], "variant"), "steal:runnext=1");
	exp_store_free(s);
	free(out);
	free(p);
	rm_rf(dir);
}
END_TEST

/* The jobs of --emit-jobs, run by hand (some through sh, some through
 * the Slurm script as a Slurm task would), merged: the local sweep's
 * store, byte for byte. */
START_TEST(emitted_jobs_merged_give_the_sweeps_store)
{
	char *dir = temp_dir();
	char *jobs = path_in(dir, "jobs"), *local = path_in(dir, "local.jsonl");
	char *merged = path_in(dir, "merged.jsonl"), *results = path_in(dir, "jobs.results");
	char *args = NULL, *err, *cmd = NULL;
	ck_assert_int_ge(asprintf(&args, "sweep " SMALL " --json %s", local), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	free(args);
	ck_assert_int_ge(asprintf(&args, "sweep " SMALL " --emit-jobs %s", jobs), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 0);
	ck_assert_msg(strstr(err, "16 runs written to"), "%s", err);
	free(err);
	free(args);
	char *text = test_read_file(jobs);
	int lines = 0;
	for (char *q = text; *q; q++)
		lines += *q == '\n';
	ck_assert_int_eq(lines, 16);
	ck_assert_msg(strstr(text, " --only 15 --json '") && strstr(text, "/jobs.results/15.jsonl'\n"),
		      "%s", text);
	ck_assert_msg(text[0] == '\'' && text[1] == '/', "not an absolute path: %s", text);
	free(text);
	char *sb = NULL;
	ck_assert_int_ge(asprintf(&sb, "%s.sbatch", jobs), 0);
	text = test_read_file(sb);
	ck_assert_msg(strstr(text, "\n#SBATCH --array=0-15\n"), "%s", text);
	free(text);
	/* tasks 0..7 as Slurm runs them, 8..15 by hand with sh */
	ck_assert_int_ge(asprintf(&cmd, "cd / && for i in 0 1 2 3 4 5 6 7; do "
				  "SLURM_ARRAY_TASK_ID=$i sh '%s' >/dev/null || exit 1; done && "
				  "sed -n 9,16p '%s' | while read -r l; do sh -c \"$l\" >/dev/null || "
				  "exit 1; done", sb, jobs), 0);
	ck_assert_int_eq(test_run(cmd, NULL, NULL), 0);
	free(cmd);
	ck_assert_int_ge(asprintf(&args, "merge %s -o %s", results, merged), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	free(args);
	char *a = test_read_file(local), *b = test_read_file(merged);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	free(sb);
	free(jobs);
	free(local);
	free(merged);
	free(results);
	rm_rf(dir);
}
END_TEST

START_TEST(merge_refuses_conflicts_and_reports_missing_runs)
{
	char *dir = temp_dir();
	char *store = path_in(dir, "s.jsonl"), *one = path_in(dir, "one.jsonl");
	char *bad = path_in(dir, "bad.jsonl"), *out = path_in(dir, "out.jsonl");
	char *args = NULL, *err;
	ck_assert_int_ge(asprintf(&args, "sweep -p steal -t numa1 -w ping-pong --procs 1..8 "
				  "--json %s", store), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	free(args);
	struct exp_store *s = read_store(store);
	ck_assert_int_eq(s->nrows, 4);
	/* run 1 alone: the others missing */
	char *line = exp_json_line(s->rows[1]), *text = NULL;
	ck_assert_int_ge(asprintf(&text, "%s\n", line), 0);
	write_file(one, text);
	free(text);
	ck_assert_int_ge(asprintf(&args, "merge %s -o %s", one, out), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 1);
	ck_assert_msg(strstr(err, ": 3 of its 4 runs missing: 0, 2, 3\n"), "%s", err);
	free(err);
	free(args);
	/* the same row twice is one row; the store twice is the store */
	ck_assert_int_ge(asprintf(&args, "merge %s %s %s -o %s", store, one, store, out), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	free(args);
	char *a = test_read_file(store), *b = test_read_file(out);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	/* a different row for run 1: refused, naming both files */
	cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(s->rows[1], "report"), "metrics");
	cJSON_ReplaceItemInObject(m, "makespan_ns", cJSON_CreateNumber(1));
	free(line);
	line = exp_json_line(s->rows[1]);
	ck_assert_int_ge(asprintf(&text, "%s\n", line), 0);
	write_file(bad, text);
	free(text);
	unlink(out);
	ck_assert_int_ge(asprintf(&args, "merge %s %s -o %s", store, bad, out), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 2);
	ck_assert_msg(strstr(err, "run 1 of matrix ") && strstr(err, "s.jsonl:2 and ") &&
		      strstr(err, "bad.jsonl:1"), "%s", err);
	ck_assert_int_ne(access(out, F_OK), 0);
	free(err);
	free(args);
	/* CSV by the name */
	free(out);
	out = path_in(dir, "out.csv");
	ck_assert_int_ge(asprintf(&args, "merge %s -o %s", store, out), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	free(args);
	a = test_read_file(out);
	ck_assert(strncmp(a, "index,variant,status,", 21) == 0);
	free(a);
	exp_store_free(s);
	free(line);
	free(store);
	free(one);
	free(bad);
	free(out);
	rm_rf(dir);
}
END_TEST

/* merge on rows whose "runs" is huge: refused at once naming .runs, not
 * a count to 1e15; the largest matrix's missing runs counted, 20 listed */
START_TEST(merge_bounds_runs)
{
	char *dir = temp_dir();
	char *store = path_in(dir, "s.jsonl"), *big = path_in(dir, "big.jsonl");
	char *out = path_in(dir, "out.jsonl");
	char *args = NULL, *err;
	ck_assert_int_ge(asprintf(&args, "sweep -p steal -t numa1 -w ping-pong --json %s", store), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	free(args);
	struct exp_store *s = read_store(store);
	const double huge[] = { 1e15, 1e300, 20001 };
	for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
		cJSON_ReplaceItemInObject(s->rows[0], "runs", cJSON_CreateNumber(huge[i]));
		char *line = exp_json_line(s->rows[0]), *text = NULL;
		ck_assert_int_ge(asprintf(&text, "%s\n", line), 0);
		write_file(big, text);
		free(text);
		free(line);
		ck_assert_int_ge(asprintf(&args, "merge %s -o %s", big, out), 0);
		ck_assert_int_eq(test_schedlab(args, NULL, &err), 2);
		ck_assert_msg(strstr(err, "big.jsonl:1: .runs: ") && strstr(err, "at most 20000"),
			      "%s", err);
		free(err);
		free(args);
	}
	cJSON_ReplaceItemInObject(s->rows[0], "runs", cJSON_CreateNumber(20000));
	cJSON_ReplaceItemInObject(s->rows[0], "index", cJSON_CreateNumber(3));
	char *line = exp_json_line(s->rows[0]), *text = NULL;
	ck_assert_int_ge(asprintf(&text, "%s\n", line), 0);
	write_file(big, text);
	free(text);
	free(line);
	ck_assert_int_ge(asprintf(&args, "merge %s -o %s", big, out), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 1);
	ck_assert_msg(strstr(err, ": 19999 of its 20000 runs missing: 0, 1, 2, 4, 5, ") &&
		      strstr(err, ", 20, ...\n"), "%s", err);
	free(err);
	free(args);
	exp_store_free(s);
	free(store);
	free(big);
	free(out);
	rm_rf(dir);
}
END_TEST

/* Runs cmdline under sh with its stderr in *err, and gives its exit
 * status and the peak RSS (KiB) of it and its descendants, from wait4:
 * RUSAGE_CHILDREN would also count every child the test process had
 * before, all of them when the tests share one process (valgrind). */
static int run_peak_rss(const char *cmdline, char **err, long *peak_kib)
{
	char errpath[] = "/tmp/schedlab-exp-err-XXXXXX";
	int fd = mkstemp(errpath);
	ck_assert_int_ge(fd, 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fd, 2);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 1);
		execl("/bin/sh", "sh", "-c", cmdline, (char *)NULL);
		_exit(127);
	}
	close(fd);
	int status;
	struct rusage ru;
	ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
	*err = test_read_file(errpath);
	unlink(errpath);
	*peak_kib = ru.ru_maxrss;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A store that is one endless line stops at the line bound (64 MiB) or
 * its first NUL, exit 2, not at the OOM killer: the peak memory stays far
 * below the gigabytes getline would take. */
START_TEST(merge_of_an_endless_line_is_bounded)
{
	char *dir = temp_dir();
	char *out = path_in(dir, "out.jsonl");
	char *cmd = NULL, *err;
	long peak;
	ck_assert_int_ge(asprintf(&cmd, "'%s' merge /dev/zero -o %s", test_schedlab_bin(), out), 0);
	ck_assert_int_eq(run_peak_rss(cmd, &err, &peak), 2);
	ck_assert_msg(strstr(err, "/dev/zero:1: a NUL byte"), "%s", err);
	ck_assert_msg(peak < 512L * 1024, "peak RSS %ld KiB", peak);
	free(err);
	free(cmd);
	/* no NUL: a line of spaces past the bound, from a pipe */
	cmd = NULL;
	ck_assert_int_ge(asprintf(&cmd, "yes ' ' | tr -d '\\n' | '%s' merge /dev/stdin -o %s",
				  test_schedlab_bin(), out), 0);
	ck_assert_int_eq(run_peak_rss(cmd, &err, &peak), 2);
	ck_assert_msg(strstr(err, "/dev/stdin:1: a row longer than 64 MiB"), "%s", err);
	ck_assert_msg(peak < 512L * 1024, "peak RSS %ld KiB", peak);
	free(err);
	free(cmd);
	free(out);
	rm_rf(dir);
}
END_TEST

/* Waits until the file at path holds k whole lines (the rows a sweep
 * streams as its runs end), for at most two minutes. */
static void wait_rows(const char *path, int k)
{
	int lines = 0;
	for (int i = 0; i < 12000 && lines < k; i++) {
		int ch;
		FILE *f = fopen(path, "r");
		lines = 0;
		while (f && (ch = fgetc(f)) != EOF)
			lines += ch == '\n';
		if (f)
			fclose(f);
		if (lines < k)
			usleep(10000);
	}
	ck_assert_msg(lines >= k, "%s: %d rows, not %d", path, lines, k);
}

/* Two fast runs, then two of about half a second: an interrupt after the
 * first two rows finds the third running. */
#define RESUMED "-p steal -t numa1 --procs 2 -w ping-pong,rpc-server --seeds 2 -j 1"

/* A sweep interrupted (SIGINT) after its first rows leaves the old store
 * as it was and its rows in STORE.partial; --resume runs only the others
 * and writes the uninterrupted sweep's store and CSV, byte for byte; a
 * resume with every row done runs nothing and writes the same store. */
START_TEST(an_interrupted_sweep_resumed_is_the_whole_sweep)
{
	char *dir = temp_dir();
	char *store = path_in(dir, "s.jsonl"), *partial = path_in(dir, "s.jsonl.partial");
	char *csv = path_in(dir, "s.csv"), *errs = path_in(dir, "err");
	char *whole = path_in(dir, "whole.jsonl"), *wcsv = path_in(dir, "whole.csv");
	write_file(store, "the old store\n");
	pid_t sweep = fork();
	ck_assert_int_ge(sweep, 0);
	if (sweep == 0) {
		int null = open("/dev/null", O_WRONLY);
		int ef = open(errs, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(null, STDOUT_FILENO);
		dup2(ef, STDERR_FILENO);
		execl(test_schedlab_bin(), "schedlab", "sweep", "-p", "steal", "-t", "numa1", "--procs",
		      "2", "-w", "ping-pong,rpc-server", "--seeds", "2", "-j", "1", "--json", store,
		      "--csv", csv, (char *)NULL);
		_exit(127);
	}
	wait_rows(partial, 2);
	char *text = test_read_file(store);
	ck_assert_str_eq(text, "the old store\n");
	free(text);
	ck_assert_int_eq(kill(sweep, SIGINT), 0);
	int status;
	ck_assert_int_eq(waitpid(sweep, &status, 0), sweep);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
	text = test_read_file(errs);
	ck_assert_msg(strstr(text, "interrupted: the rows done are in ") &&
		      strstr(text, "s.jsonl.partial; the same command with --resume"), "%s", text);
	free(text);
	text = test_read_file(store);
	ck_assert_str_eq(text, "the old store\n");
	free(text);
	ck_assert_int_ne(access(csv, F_OK), 0);
	/* resumed: only the runs without a row */
	char *err;
	ck_assert_int_eq(test_schedlabf(NULL, &err, "sweep " RESUMED " --json %s --csv %s --resume",
					store, csv), 0);
	ck_assert_msg(strstr(err, " of 4 runs' rows are in ") && strstr(err, "s.jsonl.partial") &&
		      !strstr(err, "running the other 4") && !strstr(err, "running the other 0"),
		      "%s", err);
	free(err);
	ck_assert_int_ne(access(partial, F_OK), 0);
	ck_assert_int_eq(test_schedlabf(NULL, NULL, "sweep " RESUMED " --json %s --csv %s", whole,
					wcsv), 0);
	char *a = test_read_file(store), *b = test_read_file(whole);
	ck_assert_msg(strcmp(a, b) == 0, "the resumed store is not the whole sweep's");
	free(a);
	a = test_read_file(csv);
	char *c = test_read_file(wcsv);
	ck_assert_msg(strcmp(a, c) == 0, "the resumed CSV is not the whole sweep's");
	free(a);
	free(c);
	/* every row done: nothing runs, the same store */
	ck_assert_int_eq(test_schedlabf(NULL, &err, "sweep " RESUMED " --json %s --resume", store),
			 0);
	ck_assert_msg(strstr(err, "4 of 4 runs' rows are in ") && strstr(err, "running the other 0"),
		      "%s", err);
	free(err);
	a = test_read_file(store);
	ck_assert_msg(strcmp(a, b) == 0, "a resume with nothing to run changed the store");
	free(a);
	free(b);
	free(store);
	free(partial);
	free(csv);
	free(errs);
	free(whole);
	free(wcsv);
	rm_rf(dir);
}
END_TEST

/* --resume keeps only rows of this very matrix and build: another
 * matrix's rows, or this one's made by another build, are refused. */
START_TEST(resume_refuses_rows_of_another_matrix_or_build)
{
	char *dir = temp_dir();
	char *store = path_in(dir, "s.jsonl"), *partial = path_in(dir, "s.jsonl.partial");
	char *err;
	ck_assert_int_eq(test_schedlabf(NULL, NULL, "sweep -p steal -t numa1 -w ping-pong --procs 2 "
					"--json %s", store), 0);
	ck_assert_int_eq(test_schedlabf(NULL, &err, "sweep -p global -t numa1 -w ping-pong --procs 2 "
					"--json %s --resume", store), 2);
	ck_assert_msg(strstr(err, "s.jsonl:1: a row of matrix ") &&
		      strstr(err, "not this sweep's"), "%s", err);
	free(err);
	/* the same matrix's row from another commit, as a partial store */
	struct exp_store *s = read_store(store);
	cJSON_ReplaceItemInObject(s->rows[0], "commit", cJSON_CreateString("0123abc"));
	char *line = exp_json_line(s->rows[0]);
	exp_store_free(s);
	char *text = NULL;
	ck_assert_int_ge(asprintf(&text, "%s\n", line), 0);
	write_file(partial, text);
	free(text);
	free(line);
	ck_assert_int_eq(test_schedlabf(NULL, &err, "sweep -p steal -t numa1 -w ping-pong --procs 2 "
					"--json %s --resume", store), 2);
	ck_assert_msg(strstr(err, "s.jsonl.partial:1: a row of another build (commit 0123abc"),
		      "%s", err);
	free(err);
	/* --resume needs the store as a file */
	ck_assert_int_eq(test_schedlab("sweep -p steal -t numa1 -w ping-pong --json - --resume", NULL,
				       &err), 2);
	ck_assert_msg(strstr(err, "--resume: only with --json FILE"), "%s", err);
	free(err);
	free(store);
	free(partial);
	rm_rf(dir);
}
END_TEST

/* --emit-jobs --resume: jobs only for the runs without their row in the
 * results folder, the Slurm array as long; none left, none emitted. */
START_TEST(emit_jobs_resume_emits_the_missing_runs)
{
	char *dir = temp_dir();
	char *jobs = path_in(dir, "jobs"), *sb = path_in(dir, "jobs.sbatch"), *err;
#define TWO "sweep -p steal,global -t numa1 -w ping-pong --procs 2 --emit-jobs %s"
	ck_assert_int_eq(test_schedlabf(NULL, NULL, TWO, jobs), 0);
	/* run 1's job alone, as its line */
	ck_assert_int_eq(test_runf(NULL, NULL, "sed -n 2p '%s' | sh", jobs), 0);
	ck_assert_int_eq(test_schedlabf(NULL, &err, TWO " --resume", jobs), 0);
	ck_assert_msg(strstr(err, "1 of 2 runs have their row in "), "%s", err);
	free(err);
	char *text = test_read_file(jobs);
	ck_assert_msg(strstr(text, " --only 0 ") && !strstr(text, " --only 1 ") &&
		      strchr(text, '\n') == text + strlen(text) - 1, "%s", text);
	free(text);
	text = test_read_file(sb);
	ck_assert_msg(strstr(text, "#SBATCH --array=0-0\n") && strstr(text, "J its --only"), "%s", text);
	free(text);
	ck_assert_int_eq(test_runf(NULL, NULL, "sh '%s'", jobs), 0);
	ck_assert_int_eq(test_schedlabf(NULL, &err, TWO " --resume", jobs), 0);
	ck_assert_msg(strstr(err, "no job to emit"), "%s", err);
	free(err);
	/* another matrix's rows in the folder are refused */
	ck_assert_int_eq(test_schedlabf(NULL, &err, "sweep -p steal -t numa1 -w ping-pong --procs 2 "
					"--emit-jobs %s --results %s.results --resume", jobs, jobs), 2);
	ck_assert_msg(strstr(err, "0.jsonl:1: a row of matrix "), "%s", err);
	free(err);
#undef TWO
	free(jobs);
	free(sb);
	rm_rf(dir);
}
END_TEST

/* A sweep's parent killed with SIGTERM keeps the rows already done in its
 * store and takes its running run with it.
 * This test process is a subreaper, so the orphaned run becomes its child
 * and its end is seen: killed by SIGKILL (the parent-death signal), not
 * run to its end (where it would die of SIGPIPE writing its row, or
 * exit) -- no clock involved. */
START_TEST(a_killed_parent_leaves_no_run)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	char *dir = temp_dir();
	char *store = path_in(dir, "s.jsonl"), *partial = path_in(dir, "s.jsonl.partial");
	pid_t sweep = fork();
	ck_assert_int_ge(sweep, 0);
	if (sweep == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execl(test_schedlab_bin(), "schedlab", "sweep", "-p", "steal", "-t", "numa4", "-w",
		      "ping-pong,skynet", "--seeds", "2", "-j", "1", "--json", store, (char *)NULL);
		_exit(127);
	}
	/* the two ping-pong rows written as they end, then skynet's run
	 * going: its process, from /proc/PID/task/PID/children */
	wait_rows(partial, 2);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)sweep, (int)sweep);
	long child = 0;
	for (int i = 0; i < 6000 && child <= 0; i++) {
		FILE *f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%ld", &child) != 1)
				child = 0;
			fclose(f);
		}
		if (child <= 0)
			usleep(10000);
	}
	ck_assert_msg(child > 0, "the sweep started no run");
	ck_assert_int_eq(kill(sweep, SIGTERM), 0);
	int status;
	ck_assert_int_eq(waitpid(sweep, &status, 0), sweep);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	/* the run, now this process's child */
	ck_assert_int_eq(waitpid((pid_t)child, &status, 0), (pid_t)child);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		      "the run outlived its parent (%s %d)", WIFSIGNALED(status) ? "signal" : "exit",
		      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	/* the rows done before the kill are in the partial store, whole;
	 * the store itself not written */
	struct exp_store *s = read_store(partial);
	ck_assert_int_eq(s->nrows, 2);
	ck_assert_str_eq(row_str(cJSON_GetObjectItem(s->rows[1], "inputs"), "workload"), "ping-pong");
	exp_store_free(s);
	ck_assert_int_ne(access(store, F_OK), 0);
	free(store);
	free(partial);
	rm_rf(dir);
}
END_TEST

/* --native jobs name the P count the emitting machine defaulted to, so
 * every node runs the same matrix (a node's own PUs would differ). */
START_TEST(native_jobs_name_their_procs)
{
	char *dir = temp_dir();
	char *jobs = path_in(dir, "jobs");
	char *args = NULL;
	ck_assert_int_ge(asprintf(&args, "sweep --native -p global -w ping-pong --emit-jobs %s",
				  jobs), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	free(args);
	char *text = test_read_file(jobs);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char want[64];
	snprintf(want, sizeof(want), " --procs '%ld' ", cpus);
	ck_assert_msg(strstr(text, want) && strstr(text, " --native "), "%s", text);
	free(text);
	free(jobs);
	rm_rf(dir);
}
END_TEST

/* Few descriptors: -j is held to a quarter of the open-files limit and
 * the runs wait for each other, rather than fail (a soft limit set in the
 * test's own shell only). */
START_TEST(few_descriptors_do_not_fail_runs)
{
	char *cmd = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&cmd, "ulimit -S -n 16 && '%s' sweep -p steal -t numa1 -w "
				  "ping-pong --seeds 12 -j 64 --json -", test_schedlab_bin()), 0);
	ck_assert_msg(test_run(cmd, &out, &err) == 0, "%s", err);
	int ok = 0;
	for (const char *p = out; (p = strstr(p, "\"status\":\"ok\"")); p++)
		ok++;
	ck_assert_int_eq(ok, 12);
	free(out);
	free(err);
	free(cmd);
}
END_TEST

/* ---- Bad input ---- */

static const struct {
	const char *args, *message;
} bad_args[] = {
	{ "sweep -t numa1", "missing -p P1,P2,..." },
	{ "sweep -p steal --procs 64..1", "--procs 64..1: '64..1' is an empty range" },
	{ "sweep -p steal --procs 0..8", "--procs 0..8: '0..8' doubles from 0" },
	{ "sweep -p steal --procs 1,,4", "--procs 1,,4: item 2 is empty" },
	{ "sweep -p steal --procs 5000", "--procs 5000: '5000' is not a P count from 1 to 4096" },
	{ "sweep -p steal --procs 0", "--procs 0: '0' is not a P count" },
	{ "sweep -p steal,,global", "-p steal,,global: item 2 is empty" },
	{ "sweep -p steal,nosuch", "-p nosuch (variant 2): no such policy 'nosuch'" },
	{ "sweep -p steal:runnext=7", "-p steal:runnext=7 (variant 1): " },
	{ "sweep -p steal --set nosuch=1,2", "--set nosuch=1,2: no policy of -p has a knob 'nosuch'" },
	{ "sweep -p steal --set runnext=0..1+0", "--set runnext=0..1+0: '0..1+0' is not a range" },
	{ "sweep -p steal --set runnext=0,,1", "--set runnext=0,,1: item 2 is empty" },
	{ "sweep -p steal --set runnext", "--set runnext: expected KEY=LIST" },
	{ "sweep -p steal --set runnext=0 --set runnext=1", "runnext is given twice" },
	{ "sweep -p steal --procs 1..4096+1 --seeds 100",
	  "the matrix has more than 20000 runs (the product of the lists and --seeds)" },
	{ "sweep -p steal --set runq_size=1..99999999999+1", "makes more than 100000 values" },
	{ "sweep -p steal --seeds 0", "--seeds 0: expected a number from 1 to 20000" },
	{ "sweep -p steal --procs 1..64 --seeds 20000 --set runnext=0,1",
	  "the matrix has more than 20000 runs" },
	{ "sweep -p steal --seed 9007199254740993", "the seeds pass 2^53" },
	{ "sweep -p steal --seed 9007199254740992 --seeds 2", "the seeds pass 2^53" },
	{ "compare -p steal,global -w ping-pong --seed 9007199254740990 --seeds 4",
	  "--seed 9007199254740990 --seeds 4: the seeds pass 2^53" },
	{ "compare -p steal,global,steal:runnext=0 --seeds 10000",
	  "3 columns of 10000 seeds pass 20000 runs" },
	{ "sweep -p steal -j 0", "-j 0: expected a number of runs at once from 1 to 1024" },
	{ "sweep -p steal -w ping-pong -t numa1 --only 1", "--only 1: the matrix's runs are 0 to 0" },
	{ "sweep -p steal --json - --csv -", "only one of them can write to stdout" },
	{ "sweep -p steal --emit-jobs j --json x", "--emit-jobs runs nothing" },
	{ "sweep -p steal --results d", "--results d: only with --emit-jobs" },
	/* paths a job's line or the Slurm script cannot hold */
	{ "sweep -p steal -t numa1 -w ping-pong --emit-jobs \"$(printf '/tmp/a\\nb')\"",
	  "--emit-jobs /tmp/a\\nb: a control character" },
	{ "sweep -p steal -t numa1 -w ping-pong --emit-jobs /tmp/j --results \"$(printf 'r\\nid')\"",
	  "--results r\\nid: a control character" },
	{ "sweep -p steal -t numa1 -w ping-pong --emit-jobs /tmp/j --results /tmp/r%j",
	  "--results /tmp/r%j: the results folder is the Slurm script's #SBATCH --output" },
	{ "sweep -p steal -t numa1 -w ping-pong --emit-jobs /tmp/j --results '/tmp/sp ace'",
	  "--results /tmp/sp ace: the results folder is the Slurm script's #SBATCH --output" },
	{ "sweep -p steal --native -t numa4", "--native runs on this machine: -t must be host" },
	{ "sweep -p steal -t numa1,nosuch", "nosuch: not a bundled topology" },
	{ "merge", "missing -o STORE" },
	{ "merge -o /tmp/x.jsonl", "no FILE to merge" },
	{ "merge /nonexistent/x.jsonl -o /tmp/x.jsonl", "/nonexistent/x.jsonl" },
	{ "merge --frob x -o y", "unknown option '--frob'" },
	{ "merge /dev/zero -o /tmp/x.jsonl", "schedlab merge: /dev/zero:1: a NUL byte" },
	{ "compare -p steal -w ping-pong --store -", "--store -: name a file" },
	{ "compare -p steal -w ping-pong -j 2000", "-j 2000: expected a number of runs at once" },
};

START_TEST(bad_input_exits_2)
{
	char *err;
	ck_assert_int_eq(test_schedlab(bad_args[_i].args, NULL, &err), 2);
	ck_assert_msg(strstr(err, bad_args[_i].message), "%s: %s", bad_args[_i].args, err);
	ck_assert_msg(!strchr(err, '\n') || strchr(err, '\n')[1] == '\0', "one line: %s", err);
	const char *see = strstr(err, "(see ");
	ck_assert_msg(!see || !strstr(see + 1, "(see "), "one hint: %s", err);
	free(err);
}
END_TEST

/* ---- compare on the engine ---- */

/* compare's outputs do not depend on -j, --json and --csv together are
 * each what they are alone, and its --store is sweep's store of the same
 * matrix. */
START_TEST(compare_outputs_do_not_depend_on_jobs)
{
	char *dir = temp_dir();
	const char *base = "compare -p steal,steal:runnext=0,global -t numa1 -w spawn-tree --procs 4 "
			   "--seeds 2";
	char *outs[2], *args = NULL;
	for (int j = 0; j < 2; j++) {
		ck_assert_int_ge(asprintf(&args, "%s -j %d", base, j + 1), 0);
		ck_assert_int_eq(test_schedlab(args, &outs[j], NULL), 0);
		free(args);
	}
	ck_assert_str_eq(outs[0], outs[1]);
	ck_assert_msg(strstr(outs[0], "sim compare: topology numa1, workload spawn-tree, 4 Ps, "
			     "seeds 1..2\n"), "%s", outs[0]);
	char *json = path_in(dir, "c.json"), *csv = path_in(dir, "c.csv");
	char *store = path_in(dir, "c.jsonl"), *sweep = path_in(dir, "s.jsonl");
	char *both;
	ck_assert_int_ge(asprintf(&args, "%s -j 2 --json %s --csv %s --store %s", base, json, csv,
				  store), 0);
	ck_assert_int_eq(test_schedlab(args, &both, NULL), 0);
	free(args);
	ck_assert_str_eq(both, outs[0]);
	char *alone;
	ck_assert_int_ge(asprintf(&args, "%s -j 1 --json -", base), 0);
	ck_assert_int_eq(test_schedlab(args, &alone, NULL), 0);
	free(args);
	char *f = test_read_file(json);
	ck_assert_str_eq(f, alone);
	free(f);
	free(alone);
	ck_assert_int_ge(asprintf(&args, "%s --csv -", base), 0);
	ck_assert_int_eq(test_schedlab(args, &alone, NULL), 0);
	free(args);
	f = test_read_file(csv);
	ck_assert_str_eq(f, alone);
	free(f);
	free(alone);
	ck_assert_int_ge(asprintf(&args, "sweep -p steal,steal:runnext=0,global -t numa1 "
				  "-w spawn-tree --procs 4 --seeds 2 --json %s", sweep), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	free(args);
	char *a = test_read_file(store), *b = test_read_file(sweep);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	free(both);
	free(outs[0]);
	free(outs[1]);
	free(json);
	free(csv);
	free(store);
	free(sweep);
	rm_rf(dir);
}
END_TEST

/* A failing run ends compare as it ends run, all runs made: the first
 * failure in column and seed order is shown, and how many failed. */
START_TEST(compare_reports_the_first_failing_run)
{
	char *dir = temp_dir();
	char *stuck = path_in(dir, "stuck.json");
	write_file(stuck, stuck_json);
	char *args = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&args, "compare -p steal,global -t numa1 --procs 2 --seed 7 "
				  "--seeds 2 -j 2 -w %s", stuck), 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 1);
	ck_assert_msg(strstr(err, "schedlab compare: column 1 (steal), seed 7:\nfatal error: all "
			     "goroutines are asleep - deadlock!"), "%s", err);
	ck_assert_msg(strstr(err, "schedlab compare: 4 of the 4 runs failed; the first, in column "
			     "and seed order, is shown\n"), "%s", err);
	ck_assert_msg(strstr(out, "sim run: policy steal, topology numa1, workload stuck, 2 Ps, "
			     "seed 7\n"), "%s", out);
	ck_assert_ptr_null(strstr(out, "sim compare"));
	free(out);
	free(err);
	free(args);
	free(stuck);
	rm_rf(dir);
}
END_TEST

/* ---- The metric registry ---- */

/* Every registered metric is a number in a run's report: a report key
 * renamed without its registry row would otherwise read as "-" in compare,
 * be missing from the report and ungateable.  rpc-server under numa has
 * requests; deep-stacks has stacks (stack migrations). */
START_TEST(every_registered_metric_is_in_a_report)
{
	char *dir = temp_dir();
	static const char *const workloads[] = { "rpc-server", "deep-stacks" };
	cJSON *reports[2];
	for (int w = 0; w < 2; w++) {
		char *path = path_in(dir, workloads[w]);
		char *out = NULL, *err = NULL;
		int rc = test_schedlabf(&out, &err, "run -p numa -t numa4 -w %s --procs 8 "
					"--max-sim-time 20ms --json %s", workloads[w], path);
		ck_assert_msg(rc == 0 || rc == 4, "%s: exit %d: %s", workloads[w], rc, err);
		free(out);
		free(err);
		char *text = test_read_file(path);
		reports[w] = cJSON_Parse(text);
		ck_assert_ptr_nonnull(reports[w]);
		free(text);
		free(path);
	}
	for (int i = 0; i < metric_count; i++) {
		const struct metric *m = &metric_table[i];
		bool found = false;
		for (int w = 0; w < 2 && !found; w++) {
			const cJSON *v = exp_json_dotted(
				cJSON_GetObjectItemCaseSensitive(reports[w], "metrics"), m->path);
			found = cJSON_IsNumber(v);
		}
		ck_assert_msg(found, "metric %s (%s): no number at metrics.%s in either report",
			      m->name, m->label, m->path);
		ck_assert_int_eq(metric_index(m->name), i);
		ck_assert_int_eq(metric_index_by_path(m->path), i);
		ck_assert(m->better == -1 || m->better == 1);
		ck_assert(m->unit_path == NULL || m->unit == MU_RATE);
	}
	for (int w = 0; w < 2; w++)
		cJSON_Delete(reports[w]);
	rm_rf(dir);
}
END_TEST

/* The manual's list of regress's metrics is the registry's. */
START_TEST(the_manual_lists_every_metric)
{
	char *path = NULL;
	const char *root = getenv("SCHEDLAB_SOURCE_ROOT");
	ck_assert_int_ge(asprintf(&path, "%s/man/schedlab.1", root && *root ? root : "."), 0);
	char *man = test_read_file(path);
	const char *list = strstr(man, "The metrics, by their short names:");
	ck_assert_msg(list, "%s has no list of the metrics", path);
	const char *end = strstr(list, "\n.It");
	ck_assert_ptr_nonnull(end);
	for (int i = 0; i < metric_count; i++) {
		char word[64];
		snprintf(word, sizeof(word), "%s%s", metric_table[i].name,
			 i + 1 < metric_count ? "," : ".");
		const char *at = strstr(list, word);
		ck_assert_msg(at && at < end && (at[-1] == ' ' || at[-1] == '\n'),
			      "%s: --max-regress's list lacks %s", path, metric_table[i].name);
	}
	/* and the ones better higher, by name */
	const char *hi = strstr(man, "lower is better but for");
	ck_assert_ptr_nonnull(hi);
	const char *hi_end = strchr(hi, '.');
	for (int i = 0; i < metric_count; i++) {
		const char *name = metric_table[i].name, *at = hi;
		size_t n = strlen(name);
		bool listed = false;
		while ((at = strstr(at, name)) && at < hi_end && !listed) {
			listed = (at[-1] == ' ' || at[-1] == '\n') &&
				 (at[n] == ',' || at[n] == ' ' || at[n] == '.' || at[n] == '\n');
			at += n;
		}
		ck_assert_msg(listed == (metric_table[i].better > 0),
			      "%s: %s is %s as better higher", path, name,
			      listed ? "listed, wrongly," : "not listed");
	}
	free(man);
	free(path);
}
END_TEST

/* ---- The child-process pool (util/pool.h) ---- */

struct pool_test {
	long n, next;                  /* jobs, and the next one done expects */
	long stop_at;                  /* done stops the pool here (-1: never) */
	bool in_order;
	int watched;
	struct pool_end ends[16];      /* status, killed, len, data's first bytes */
	char data[16][32], out[16][64];
};

/* Job i: later jobs end sooner; job 3 dies of SIGKILL after a word on
 * stderr, job 4 exits 7, job 5 writes far more than max_data, job 6
 * sleeps a minute (unless killed). */
static int pool_job(void *ctx, long i, int fd)
{
	const struct pool_test *t = ctx;
	usleep((useconds_t)(t->n - i) * 3000);
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "job %ld", i);
	if (i == 3) {
		fprintf(stderr, "job 3 says boom\n");
		fflush(stderr);
		kill(getpid(), SIGKILL);
	}
	if (i == 4)
		return 7;
	if (i == 5) {
		static char big[1 << 16];
		memset(big, 'x', sizeof(big));
		for (int k = 0; k < 64; k++)
			if (write(fd, big, sizeof(big)) < 0)
				return 3;
	}
	if (i == 6)
		sleep(60);
	return write(fd, buf, (size_t)len) == len ? 0 : 3;
}

static bool pool_done(void *ctx, long i, struct pool_end *end)
{
	struct pool_test *t = ctx;
	t->in_order &= i == t->next++;
	t->ends[i] = *end;
	snprintf(t->data[i], sizeof(t->data[i]), "%s", end->data);
	snprintf(t->out[i], sizeof(t->out[i]), "%s", end->out);
	return i != t->stop_at;
}

static bool pool_watch(void *ctx, long i, pid_t pid)
{
	struct pool_test *t = ctx;
	t->watched++;
	return i == 6;
}

/* The ends come back in job order whatever order the children end in,
 * each with its data, status and output; a job past max_data and one
 * the watch names are killed, and no child is left. */
START_TEST(pool_hands_back_in_job_order)
{
	for (int jobs = 1; jobs <= 4; jobs += 3) {
		struct pool_test t = { .n = 8, .stop_at = -1, .in_order = true };
		struct pool_ops ops = { .n = t.n, .jobs = jobs, .capture = true, .max_data = 1000,
					.run = pool_job, .done = pool_done, .tick_ms = 20,
					.watch = pool_watch, .ctx = &t };
		ck_assert_int_eq(pool_run(&ops), 8);
		ck_assert(t.in_order);
		for (long i = 0; i < t.n; i++) {
			char want[32];
			snprintf(want, sizeof(want), "job %ld", i);
			if (i < 3 || i == 7) {
				ck_assert_str_eq(t.data[i], want);
				ck_assert(WIFEXITED(t.ends[i].status) && WEXITSTATUS(t.ends[i].status) == 0);
			}
		}
		ck_assert(WIFSIGNALED(t.ends[3].status) && WTERMSIG(t.ends[3].status) == SIGKILL);
		ck_assert(!t.ends[3].killed);
		ck_assert_str_eq(t.out[3], "job 3 says boom\n");
		ck_assert(WIFEXITED(t.ends[4].status) && WEXITSTATUS(t.ends[4].status) == 7);
		ck_assert(t.ends[5].killed);
		ck_assert_int_eq((int)t.ends[5].len, 1000);
		ck_assert(t.ends[6].killed && WIFSIGNALED(t.ends[6].status));
		ck_assert_int_gt(t.watched, 0);
		ck_assert(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
	}
}
END_TEST

/* done stops the pool: no job starts after, the running ones (job 6,
 * asleep for a minute) are killed and reaped before pool_run returns. */
START_TEST(pool_stop_kills_the_running)
{
	struct pool_test t = { .n = 8, .stop_at = 5, .in_order = true };
	struct pool_ops ops = { .n = t.n, .jobs = 4, .capture = true, .max_data = 1000,
				.run = pool_job, .done = pool_done, .ctx = &t };
	time_t t0 = time(NULL);
	ck_assert_int_eq(pool_run(&ops), 6);
	ck_assert(t.in_order);
	ck_assert_int_lt((int)(time(NULL) - t0), 30);
	ck_assert(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
}
END_TEST

/* Every store a fuzzer once failed on (fuzz/regressions/store/) is read,
 * or refused in one line of text, as merge and sweep --resume read it;
 * a row read keeps its values in the bounds its readers cast them to. */
START_TEST(fuzz_store_regressions_read_cleanly)
{
	char **paths = test_fuzz_regressions("store");
	for (char **p = paths; *p; p++) {
		struct err e = { "" };
		struct exp_store *st = exp_store_read(*p, &e);
		if (!st)
			test_assert_clean_refusal(*p, e.msg);
		for (long i = 0; st && i < st->nrows; i++)
			ck_assert_int_le(exp_row_exit_status(st->rows[i]), 255);
		exp_store_free(st);
		free(*p);
	}
	free(paths);
}
END_TEST

/* A string holding an escaped NUL is refused, not cut short: merge would
 * write the shortened row as the run's. */
START_TEST(store_row_with_a_nul_is_refused)
{
	static const char row[] =
		"{\"store\":1,\"schedlab\":\"0.1.0\",\"commit\":\"c\",\"matrix\":\"0123456789abcdef\","
		"\"index\":0,\"variant\":\"st\\u0000eal\",\"inputs\":{\"mode\":\"sim\","
		"\"policy\":\"steal\",\"set\":{},\"topology\":\"numa1\",\"workload\":\"w\","
		"\"procs\":2,\"seed\":1},\"status\":\"ok\",\"exit_status\":0,\"message\":null,"
		"\"report\":null}";
	struct err e = { "" };
	ck_assert_ptr_null(exp_row_parse(row, sizeof(row) - 1, &e));
	ck_assert_str_eq(e.msg, ".variant: the string holds \\u0000 (NUL), which would cut it short");
	/* the same row without it reads */
	char *ok = strdup(row);
	memmove(strstr(ok, "\\u0000"), strstr(ok, "\\u0000") + 6, strlen(strstr(ok, "\\u0000") + 5));
	cJSON *r = exp_row_parse(ok, strlen(ok), &e);
	ck_assert_msg(r != NULL, "%s", e.msg);
	cJSON_Delete(r);
	free(ok);
}
END_TEST

Suite *make_exp_suite(void)
{
	Suite *s = suite_create("exp");
	TCase *tc = tcase_create("spec");
	tcase_add_test(tc, ranges_double_or_step);
	tcase_add_loop_test(tc, bad_lists_are_refused, 0,
			    (int)(sizeof(bad_lists) / sizeof(bad_lists[0])));
	tcase_add_test(tc, store_numbers_read_back_exactly);
	tcase_add_test(tc, fuzz_store_regressions_read_cleanly);
	tcase_add_test(tc, store_row_with_a_nul_is_refused);
	tcase_add_test(tc, the_manual_lists_every_metric);
	suite_add_tcase(s, tc);
	tc = tcase_create("pool");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, pool_hands_back_in_job_order);
	tcase_add_test(tc, pool_stop_kills_the_running);
	suite_add_tcase(s, tc);
	tc = tcase_create("runs");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, store_reader_names_file_line_and_path);
	tcase_add_test(tc, jobs_1_and_2_give_byte_identical_stores);
	tcase_add_test(tc, progress_on_a_terminal_only);
	tcase_add_test(tc, progress_in_a_log_is_plain_lines);
	tcase_add_test(tc, failing_runs_are_their_rows_and_the_others_complete);
	tcase_add_test(tc, a_killed_run_is_crashed_and_the_others_complete);
	tcase_add_test(tc, native_cells_run);
	tcase_add_test(tc, sweep_is_the_cartesian_product_in_its_order);
	tcase_add_test(tc, emitted_jobs_merged_give_the_sweeps_store);
	tcase_add_test(tc, merge_refuses_conflicts_and_reports_missing_runs);
	tcase_add_test(tc, merge_bounds_runs);
	tcase_add_test(tc, few_descriptors_do_not_fail_runs);
	tcase_add_test(tc, native_jobs_name_their_procs);
	tcase_add_test(tc, a_killed_parent_leaves_no_run);
	tcase_add_test(tc, an_interrupted_sweep_resumed_is_the_whole_sweep);
	tcase_add_test(tc, resume_refuses_rows_of_another_matrix_or_build);
	tcase_add_test(tc, emit_jobs_resume_emits_the_missing_runs);
	tcase_add_test(tc, merge_of_an_endless_line_is_bounded);
	tcase_add_loop_test(tc, bad_input_exits_2, 0, (int)(sizeof(bad_args) / sizeof(bad_args[0])));
	tcase_add_test(tc, compare_outputs_do_not_depend_on_jobs);
	tcase_add_test(tc, compare_reports_the_first_failing_run);
	tcase_add_test(tc, every_registered_metric_is_in_a_report);
	suite_add_tcase(s, tc);
	return s;
}
