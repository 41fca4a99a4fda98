/* Input hardening (suite "inputs"): every input file through one bounded
 * reader, hwloc's crashes contained, messages that stay one line of valid
 * text with their reason, output files checked before the run, the
 * workload compiler's cost linear in the document, and the inputs the
 * fuzzers found (fuzz/regressions) loading cleanly. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/tests.h"
#include "topologies/topo.h"
#include "workloads/json.h"

static const char *fuzz_regressions(void)
{
	const char *v = getenv("SCHEDLAB_FUZZ_REGRESSIONS");
	return v && *v ? v : "fuzz/regressions";
}

/* A fresh folder for a test's files (removed by the system's /tmp policy;
 * tests run in forked children, so each has its own). */
static char *tmpdir(void)
{
	char *d = strdup("/tmp/schedlab-inputs-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

/* The contract of every message: one line, valid UTF-8, no control bytes. */
static void assert_one_clean_line(const char *msg)
{
	size_t n = strlen(msg);
	ck_assert_msg(n > 0, "empty message");
	ck_assert_msg(n > 0 && msg[n - 1] == '\n' && !memchr(msg, '\n', n - 1),
		      "not one line: \"%s\"", msg);
	char *body = strndup(msg, n - 1);
	ck_assert_msg(!str_has_control(body) && utf8_valid(body, n - 1, NULL),
		      "control bytes or invalid UTF-8 in \"%s\"", msg);
	free(body);
}

static const char tiny_workload[] =
	"{\"name\": \"tiny\", \"programs\": {\"main\": ["
	"{\"compute\": {\"uniform\": {\"min\": \"1us\", \"max\": \"2us\"}}}, \"yield\"]}}";

static char *write_tiny(const char *dir)
{
	char *path = NULL;
	ck_assert_int_ge(asprintf(&path, "%s/tiny.json", dir), 0);
	write_file(path, tiny_workload, strlen(tiny_workload));
	return path;
}

/* ---- One bounded reader ---- */

START_TEST(dev_zero_is_not_read_forever)
{
	char *err;
	ck_assert_int_eq(test_schedlab("run -p steal -t numa1 -w /dev/zero", NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "/dev/zero: byte 1 is a NUL: not a text file"));
	assert_one_clean_line(err);
	free(err);
	ck_assert_int_eq(test_schedlab("topo -t /dev/zero", NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "/dev/zero: byte 1 is a NUL"));
	free(err);
}
END_TEST

/* A pipe that never ends: stopped at the limit, for workloads and
 * topologies alike. */
START_TEST(endless_pipe_stops_at_the_limit)
{
	static const char *const cmds[] = {
		"run -p steal -t numa1 -w /dev/stdin",
		"topo -t /dev/stdin",
	};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *cmd = NULL, *err;
		ck_assert_int_ge(asprintf(&cmd, "yes ' ' | '%s' %s", test_schedlab_bin(), cmds[i]), 0);
		ck_assert_int_eq(test_run(cmd, NULL, &err), 2);
		ck_assert_msg(strstr(err, "/dev/stdin: larger than 64 MiB, the limit for an input file"),
			      "%s: %s", cmds[i], err);
		assert_one_clean_line(err);
		free(err);
		free(cmd);
	}
}
END_TEST

START_TEST(regular_file_limit_is_exact)
{
	char *dir = tmpdir(), *path = NULL;
	ck_assert_int_ge(asprintf(&path, "%s/big.json", dir), 0);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	static char spaces[1 << 16];
	memset(spaces, ' ', sizeof(spaces));
	for (size_t n = 0; n < INPUT_MAX_BYTES; n += sizeof(spaces))
		ck_assert_uint_eq(fwrite(spaces, 1, sizeof(spaces), f), sizeof(spaces));
	ck_assert_int_eq(fputc(' ', f), ' ');
	ck_assert_int_eq(fclose(f), 0);
	struct err e = { "" };
	size_t len;
	ck_assert_ptr_null(input_read(path, &len, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "big.json: larger than 64 MiB"));
	ck_assert_int_eq(truncate(path, (off_t)INPUT_MAX_BYTES), 0);
	char *text = input_read(path, &len, &e);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(len, INPUT_MAX_BYTES);
	free(text);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}
END_TEST

START_TEST(nul_inside_a_file_is_named)
{
	char *dir = tmpdir(), *path = NULL, *args = NULL, *err;
	ck_assert_int_ge(asprintf(&path, "%s/nul.json", dir), 0);
	write_file(path, "{\"name\":\"x\"}\0junk", 17);
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 -w '%s'", path), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 2);
	ck_assert_msg(strstr(err, "nul.json: byte 13 is a NUL: not a text file"), "%s", err);
	free(err);
	free(args);
	free(path);
	free(dir);
}
END_TEST

/* ---- Messages ---- */

START_TEST(long_path_keeps_the_reason)
{
	char *path = malloc(2000), *args = NULL, *err;
	strcpy(path, "/tmp/");
	memset(path + 5, 'd', 1500);
	strcpy(path + 1505, "/w.json");
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 -w '%s'", path), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 2);
	assert_one_clean_line(err);
	ck_assert_msg(strstr(err, "/w.json: cannot open: File name too long"), "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "schedlab: /tmp/ddd"));
	ck_assert_ptr_nonnull(strstr(err, "..."));
	ck_assert_uint_lt(strlen(err), 1100);
	free(err);
	free(args);
	free(path);
}
END_TEST

/* A real file at the end of a 1,200-character path: the message keeps the
 * file's name, the JSON path and the problem. */
START_TEST(long_path_keeps_json_path_and_problem)
{
	char *dir = tmpdir();
	char path[2048];
	snprintf(path, sizeof(path), "%s", dir);
	for (int i = 0; i < 6; i++) {
		size_t n = strlen(path);
		path[n] = '/';
		memset(path + n + 1, 'a' + i, 200);
		path[n + 201] = '\0';
		ck_assert_int_eq(mkdir(path, 0755), 0);
	}
	strcat(path, "/bad-op.json");
	const char doc[] = "{\"name\": \"x\", \"programs\": {\"main\": [{\"frobnicate\": 1}]}}";
	write_file(path, doc, sizeof(doc) - 1);
	char *args = NULL, *err;
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 -w '%s'", path), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 2);
	assert_one_clean_line(err);
	ck_assert_msg(strstr(err, "/bad-op.json: $.programs.main[0].frobnicate: unknown operation"),
		      "%s", err);
	free(err);
	free(args);
	free(dir);
}
END_TEST

START_TEST(control_bytes_and_bad_utf8_in_arguments_are_escaped)
{
	char *err;
	ck_assert_int_eq(test_schedlab("run -p steal -t numa1 -w \"$(printf 'a\\001b\\377c')\"", NULL, &err),
			 2);
	assert_one_clean_line(err);
	ck_assert_msg(strstr(err, "no workload named 'a\\x01b\\xffc'"), "%s", err);
	free(err);
	ck_assert_int_eq(test_schedlab("run -p steal -t numa1 -w \"$(printf '/tmp/x\\ny\\033[2J.json')\"",
				  NULL, &err), 2);
	assert_one_clean_line(err);
	ck_assert_msg(strstr(err, "/tmp/x\\ny\\x1b[2J.json: cannot open"), "%s", err);
	free(err);
	ck_assert_int_eq(test_schedlab("run -p \"$(printf 'st\\teal')\" -t numa1", NULL, &err), 2);
	assert_one_clean_line(err);
	ck_assert_msg(strstr(err, "-p st\\teal: no such policy"), "%s", err);
	free(err);
}
END_TEST

/* cJSON stops at 1,000 levels; the message says so instead of "syntax
 * error", and 990 levels (330 nested ifs) compile without exhausting the
 * stack, ASan's larger frames included. */
START_TEST(json_nesting_limit_is_named)
{
	for (int k = 0; k < 2; k++) {
		int d = k ? 340 : 330;
		size_t cap = (size_t)d * 40 + 100, len = 0;
		char *doc = malloc(cap);
		len += (size_t)snprintf(doc + len, cap - len, "{\"name\":\"n\",\"programs\":{\"main\":");
		for (int i = 0; i < d; i++)
			len += (size_t)snprintf(doc + len, cap - len, "[{\"if\":{\"cond\":1,\"then\":");
		len += (size_t)snprintf(doc + len, cap - len, "[\"yield\"]");
		for (int i = 0; i < d; i++)
			len += (size_t)snprintf(doc + len, cap - len, "}}]");
		len += (size_t)snprintf(doc + len, cap - len, "}}");
		ck_assert_uint_lt(len, cap);
		struct err e = { "" };
		struct workload *w = wl_compile("deep.json", doc, &e);
		if (k == 0) {
			ck_assert_msg(w != NULL, "%s", e.msg);
			wl_free(w);
		} else {
			ck_assert_ptr_null(w);
			ck_assert_msg(strstr(e.msg, "deep.json:1:") &&
				      strstr(e.msg, ": JSON nested more than 1000 levels deep"), "%s", e.msg);
		}
		free(doc);
	}
}
END_TEST

/* ---- UTF-8 in what reaches the reports ---- */

START_TEST(invalid_utf8_in_a_workload_is_refused_with_its_place)
{
	char *dir = tmpdir(), *path = NULL, *args = NULL, *err;
	ck_assert_int_ge(asprintf(&path, "%s/latin1.json", dir), 0);
	const char doc[] = "{\n  \"name\": \"caf\xe9\",\n  \"programs\": {\"main\": [\"yield\"]}}";
	write_file(path, doc, sizeof(doc) - 1);
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 -w '%s' --json -", path), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 2);
	assert_one_clean_line(err);
	ck_assert_msg(strstr(err, "latin1.json:2:15: not valid UTF-8 (byte 0xe9)"), "%s", err);
	free(err);
	free(args);
	free(path);
	free(dir);
}
END_TEST

START_TEST(control_characters_in_names_are_refused)
{
	char *dir = tmpdir(), *path = NULL, *args = NULL, *err;
	ck_assert_int_ge(asprintf(&path, "%s/ctl.json", dir), 0);
	const char doc[] = "{\"name\": \"two\\nlines\", \"programs\": {\"main\": [\"yield\"]}}";
	write_file(path, doc, sizeof(doc) - 1);
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 -w '%s'", path), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 2);
	assert_one_clean_line(err);
	ck_assert_msg(strstr(err, "ctl.json: $.name: a control character in \"two\\nlines\""), "%s",
		      err);
	free(err);
	free(args);
	free(path);
	free(dir);
}
END_TEST

/* A topology named after its file, whose name is not UTF-8: the report is
 * still valid JSON, the name escaped. */
START_TEST(file_names_in_reports_are_valid_utf8)
{
	char *dir = tmpdir(), *topo = NULL, *args = NULL, *out;
	char *wl = write_tiny(dir);
	ck_assert_int_ge(asprintf(&topo, "%s/m\xff\x01.json", dir), 0);
	const char doc[] = "{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 2}";
	write_file(topo, doc, sizeof(doc) - 1);
	ck_assert_int_ge(asprintf(&args, "run -p steal -t '%s' -w '%s' --json -", topo, wl), 0);
	ck_assert_int_eq(test_schedlab(args, &out, NULL), 0);
	ck_assert(utf8_valid(out, strlen(out), NULL));
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(cJSON_GetObjectItem(o, "topology")->valuestring, "m\\xff\\x01");
	cJSON_Delete(o);
	free(out);
	free(args);
	free(topo);
	free(wl);
	free(dir);
}
END_TEST

/* ---- Output files: checked before the run ---- */

START_TEST(json_to_a_missing_folder_fails_before_the_run)
{
	char *dir = tmpdir(), *wl = write_tiny(dir), *args = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 -w '%s' --json %s/no/such/r.json",
				  wl, dir), 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 2);
	ck_assert_str_eq(out, "");   /* no run: its summary would be here */
	ck_assert_msg(strstr(err, "schedlab run: --json ") && strstr(err, "/no/such/r.json: No such "
		      "file or directory"), "%s", err);
	free(out);
	free(err);
	free(args);
	ck_assert_int_ge(asprintf(&args, "compare -p steal,global -t numa1 -w '%s' --csv %s", wl, dir),
			 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 2);
	ck_assert_str_eq(out, "");
	ck_assert_msg(strstr(err, ": Is a directory"), "%s", err);
	free(out);
	free(err);
	free(args);
	ck_assert_int_ge(asprintf(&args, "workload expand '%s' -t numa1 -o %s/no/t.trace", wl, dir),
			 0);
	ck_assert_int_eq(test_schedlab(args, &out, &err), 2);
	ck_assert_msg(strstr(err, "-o ") && strstr(err, "No such file or directory"), "%s", err);
	free(out);
	free(err);
	free(args);
	free(wl);
	free(dir);
}
END_TEST

/* A run that fails after the claim leaves no new file, and an existing
 * file as it was; a run that succeeds writes it. */
START_TEST(failed_run_leaves_no_half_file)
{
	char *dir = tmpdir(), *wl = write_tiny(dir), *args = NULL, *report = NULL, *old = NULL;
	ck_assert_int_ge(asprintf(&report, "%s/new.json", dir), 0);
	ck_assert_int_ge(asprintf(&old, "%s/old.json", dir), 0);
	write_file(old, "old\n", 4);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 -w %s/missing.json --json '%s'",
					  dir, i ? old : report), 0);
		ck_assert_int_eq(test_schedlab(args, NULL, NULL), 2);
		free(args);
	}
	ck_assert_int_eq(access(report, F_OK), -1);
	char *text = input_read(old, NULL, &(struct err){ "" });
	ck_assert_str_eq(text, "old\n");
	free(text);
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 -w '%s' --json '%s'", wl, old), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	text = input_read(old, NULL, &(struct err){ "" });
	cJSON *o = cJSON_Parse(text);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(cJSON_GetObjectItem(o, "workload")->valuestring, "tiny");
	cJSON_Delete(o);
	free(text);
	free(args);
	free(report);
	free(old);
	free(wl);
	free(dir);
}
END_TEST

/* An output past the file-size limit (a full disk's first failing write:
 * the kernel refuses it with EFBIG) is exit 2 naming the option, and the
 * file it would have replaced is left whole, with nothing beside it.
 * _i: the writers. */
static const struct {
	const char *opt, *args;   /* %1$s the folder, the output is OUT */
} big_outputs[] = {
	{ "--json", "run -p steal -t numa4 -w rpc-server --max-sim-time 20ms --json OUT" },
	{ "--cdf", "run -p steal -t numa4 -w rpc-server --max-sim-time 20ms --cdf OUT" },
	{ "--trace", "run -p steal -t numa4 -w rpc-server --max-sim-time 20ms --trace OUT.json" },
	{ "-o", "workload expand pipeline -o OUT" },
	{ "--json", "compare -p steal,numa -t numa1 -w pipeline --json OUT" },
	{ "--csv", "compare -p steal,numa -t numa1 -w pipeline --csv OUT" },
	{ "--csv", "sweep -p steal -t numa1 -w pipeline --seeds 2 --csv OUT" },
};

static void replace_out(char *buf, size_t n, const char *args, const char *out)
{
	const char *at = strstr(args, "OUT");
	ck_assert_ptr_nonnull(at);
	snprintf(buf, n, "%.*s%s%s", (int)(at - args), args, out, at + 3);
}

START_TEST(an_output_past_the_file_size_limit_keeps_the_old_file)
{
	char *dir = tmpdir(), *out = NULL, cmd[1024], args[512];
	ck_assert_int_ge(asprintf(&out, "%s/out", dir), 0);
	replace_out(args, sizeof(args), big_outputs[_i].args, out);
	bool trace = strstr(args, "--trace");
	char *target = trace ? xasprintf("%s.json", out) : xstrdup(out);
	/* 20 KiB of old content: more than the limit, so a truncation would show */
	char old[20480];
	memset(old, 'x', sizeof(old));
	old[sizeof(old) - 1] = '\n';
	write_file(target, old, sizeof(old));
	/* ulimit -f counts 1 KiB blocks (every output here is larger); SIGXFSZ
	 * ignored, as a write to a full disk fails with an error rather than
	 * a signal */
	snprintf(cmd, sizeof(cmd), "ulimit -f 1 && trap '' XFSZ && '%s' %s", test_schedlab_bin(),
		 args);
	char *err = NULL;
	int rc = test_run(cmd, NULL, &err);
	ck_assert_msg(rc == 2, "%s: exit %d: %s", args, rc, err);
	ck_assert_msg(strstr(err, big_outputs[_i].opt) && strstr(err, "File too large"), "%s", err);
	size_t n = 0;
	char *text = input_read(target, &n, &(struct err){ "" });
	ck_assert_msg(text && n == sizeof(old) && memcmp(text, old, n) == 0,
		      "%s: the old %s was changed (%zu bytes)", args, target, n);
	free(text);
	/* nothing left beside it */
	DIR *d = opendir(dir);
	int entries = 0;
	for (struct dirent *de; (de = readdir(d));)
		entries += de->d_name[0] != '.';
	closedir(d);
	ck_assert_msg(entries == 1, "%s: %d files in the folder, want the output alone", args,
		      entries);
	free(err);
	free(target);
	free(out);
	test_rm_rf(dir);
	free(dir);
}
END_TEST

/* ---- A full disk ---- */

/* Every writer, given an output whose old version is on a disk that is
 * full: exit 2 naming the option, the old output (and whatever goes with
 * it: a Markdown report's figures, --emit-jobs' .sbatch) byte for byte as
 * it was, nothing beside it (sweep --json keeps the rows done in
 * FILE.partial for --resume: here not one fits).  %1$s the folder of the
 * inputs, %2$s OUT, %3$s 1 for the old output, 2 for the new (which
 * differ, so that one replaced by the other shows). */
static const struct {
	const char *out, *opt, *args;
} full_writers[] = {
	{ "b.json", "--baseline", "regress --update --baseline '%2$s' --suite '%1$s/suite%3$s.json'" },
	{ "r.html", "-o", "report '%1$s/store%3$s.jsonl' -o '%2$s'" },
	{ "r.md", "-o", "report '%1$s/store%3$s.jsonl' -o '%2$s'" },
	{ "s.jsonl", "--json", "sweep -p steal -t numa1 -w '%1$s/tiny1.json' --seeds %3$s --json '%2$s'" },
	{ "s.csv", "--csv", "sweep -p steal -t numa1 -w '%1$s/tiny1.json' --seeds %3$s --csv '%2$s'" },
	{ "c.json", "--json", "compare -p steal,numa -t numa1 -w '%1$s/tiny1.json' --seed %3$s "
			      "--json '%2$s'" },
	{ "c.jsonl", "--store", "compare -p steal,numa -t numa1 -w '%1$s/tiny1.json' --seed %3$s "
				"--store '%2$s'" },
	{ "r.json", "--json", "run -p steal -t numa1 -w '%1$s/tiny1.json' --seed %3$s --json '%2$s'" },
	{ "r.csv", "--cdf", "run -p steal -t numa1 -w '%1$s/tiny1.json' --seed %3$s --cdf '%2$s'" },
	{ "t.trace", "--trace", "run -p steal -t numa1 -w '%1$s/tiny1.json' --seed %3$s --trace '%2$s'" },
	{ "t.json", "--trace", "run -p steal -t numa1 -w '%1$s/tiny1.json' --seed %3$s --trace '%2$s'" },
	{ "w.json", "-o", "workload expand '%1$s/tiny%3$s.json' -o '%2$s'" },
	{ "m.jsonl", "-o", "merge '%1$s/store%3$s.jsonl' -o '%2$s'" },
	{ "h.json", "-o", "calibrate --quick --seconds 1 -o '%2$s'" },   /* measurements differ */
	{ "jobs", "--emit-jobs", "sweep -p steal -t numa1 -w '%1$s/tiny1.json' --seeds %3$s "
				 "--emit-jobs '%2$s'" },
};

/* The inputs the writers read, in dir, two of each: tiny1.json and
 * tiny2.json, suites of one case (5 and 6 seeds), stores of 1 and 2
 * runs. */
static void full_inputs(const char *dir)
{
	for (int k = 1; k <= 2; k++) {
		char *path = xasprintf("%s/tiny%d.json", dir, k);
		char *text = xasprintf("{\"name\": \"tiny%d\", \"programs\": {\"main\": [{\"compute\": "
				       "{\"uniform\": {\"min\": \"1us\", \"max\": \"%dus\"}}}, \"yield\"]}}",
				       k, k + 1);
		write_file(path, text, strlen(text));
		free(path);
		free(text);
		path = xasprintf("%s/suite%d.json", dir, k);
		text = xasprintf("{\"suite\": \"x\", \"seeds\": %d, \"cases\": [{\"name\": \"c\", "
				 "\"policy\": \"steal\", \"topology\": \"numa1\", \"workload\": "
				 "\"pingpong-hog\", \"procs\": 2}]}", 4 + k);
		write_file(path, text, strlen(text));
		free(path);
		free(text);
		ck_assert_int_eq(test_schedlabf(NULL, NULL, "sweep -p steal -t numa1 -w '%s/tiny1.json' "
						"--seeds %d --json '%s/store%d.jsonl'", dir, k, dir, k), 0);
	}
}

/* What is wrong with writer i on the full disk mnt, its good output made
 * in stage first (NULL: nothing).  No assertion here: the caller unmounts
 * whatever happens. */
static char *full_disk_problem(int i, const char *in, const char *stage, const char *mnt)
{
	char *out = xasprintf("%s/%s", stage, full_writers[i].out), *err = NULL, *problem = NULL;
	char *args = xasprintf(full_writers[i].args, in, out, "1");
	int rc = test_schedlab(args, NULL, &err);
	if (rc != 0) {
		problem = xasprintf("%s: the good output: exit %d: %s", args, rc, err);
		goto done;
	}
	free(err);
	err = NULL;
	/* the old output onto the disk, then the disk filled */
	rc = test_runf(NULL, &err, "cp -a '%s'/. '%s'/ && "
		       "{ dd if=/dev/zero of='%s/fill' bs=1k 2>/dev/null; test -s '%s/fill'; }",
		       stage, mnt, mnt, mnt);
	if (rc != 0) {
		problem = xasprintf("%s: the old output does not fit the disk: %s", args, err);
		goto done;
	}
	free(err);
	err = NULL;
	free(args);
	free(out);
	out = xasprintf("%s/%s", mnt, full_writers[i].out);
	args = xasprintf(full_writers[i].args, in, out, "2");
	rc = test_schedlab(args, NULL, &err);
	char *opt = xasprintf("%s ", full_writers[i].opt);
	if (rc != 2 || !strstr(err, opt) || !strstr(err, strerror(ENOSPC)))
		problem = xasprintf("%s on a full disk: exit %d (want 2, naming %s and the disk): %s",
				    args, rc, full_writers[i].opt, err);
	free(opt);
	free(err);
	err = NULL;
	/* the old output as it was, nothing new beside it */
	if (!problem && test_runf(&err, NULL, "diff -rq -x fill '%s' '%s'", stage, mnt) != 0)
		problem = xasprintf("%s on a full disk changed or left files: %s", args, err);
done:
	free(err);
	free(args);
	free(out);
	return problem;
}

/* _i: the writers.  The disk is a 64 KiB tmpfs mounted here, in a mount
 * namespace of this test's own: unmounted at the end, and gone with the
 * test's process whatever ends it.  Without the right to mount (not
 * root), the case says so and ends. */
START_TEST(a_full_disk_keeps_the_old_output)
{
	char *dir = tmpdir();
	char *mnt = xasprintf("%s/disk", dir), *stage = xasprintf("%s/stage", dir);
	char *in = xasprintf("%s/in", dir);
	ck_assert_int_eq(mkdir(mnt, 0777), 0);
	ck_assert_int_eq(mkdir(stage, 0777), 0);
	ck_assert_int_eq(mkdir(in, 0777), 0);
	/* "none": the kernel ignores a propagation change's source and type,
	 * but valgrind counts a NULL type as an error of the test's */
	if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", mnt, "tmpfs", 0, "size=64k") != 0) {
		fprintf(stderr, "inputs: a_full_disk_keeps_the_old_output: SKIPPED, cannot mount a "
			"tmpfs: %s\n", strerror(errno));
	} else {
		full_inputs(in);
		char *problem = full_disk_problem(_i, in, stage, mnt);
		int um = umount(mnt);
		ck_assert_msg(!problem, "%s", problem);
		ck_assert_msg(um == 0, "umount %s: %s", mnt, strerror(errno));
	}
	test_rm_rf(dir);
	free(in);
	free(stage);
	free(mnt);
	free(dir);
}
END_TEST

/* A device given as an output is written through, never replaced by a
 * regular file (a rename over /dev/null made it one).  Root makes its own
 * null device in the test's folder; elsewhere the case says so and ends. */
START_TEST(a_device_output_stays_a_device)
{
	char *dir = tmpdir(), *dev = NULL, *trace = NULL, *args = NULL;
	ck_assert_int_ge(asprintf(&dev, "%s/null", dir), 0);
	if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) != 0) {
		fprintf(stderr, "inputs: a_device_output_stays_a_device: SKIPPED, mknod: %s\n",
			strerror(errno));
		test_rm_rf(dir);
		free(dir);
		free(dev);
		return;
	}
	ck_assert_int_ge(asprintf(&trace, "%s/traces126/chan.trace", test_data_dir()), 0);
	static const char *const cmds[] = { "workload import '%s' -o '%s'",
					    "run -p steal -t numa1 -w pipeline --json '%2$s'",
					    "workload expand pipeline -o '%2$s'" };
	for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
		ck_assert_int_ge(asprintf(&args, cmds[k], trace, dev), 0);
		char *err = NULL;
		int rc = test_schedlab(args, NULL, &err);
		ck_assert_msg(rc == 0, "%s: exit %d: %s", args, rc, err);
		struct stat st;
		ck_assert_int_eq(stat(dev, &st), 0);
		ck_assert_msg(S_ISCHR(st.st_mode), "%s: the device became a regular file", args);
		free(err);
		free(args);
	}
	free(trace);
	free(dev);
	test_rm_rf(dir);
	free(dir);
}
END_TEST

/* Inputs and outputs that are FIFOs or pipes: a FIFO with no writer (or
 * reader) yet is waited for, as a shell's redirection would, and the wait
 * is said on stderr so that one that never ends is visible; a pipe's
 * workload is read once (a peek at its first bytes would lose them).  The
 * script waits for each note before it opens the other end: the order
 * holds whatever the host's load. */
START_TEST(fifos_and_pipes_are_read_and_written_through)
{
	char *dir = tmpdir();
	char *tiny = write_tiny(dir);
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err,
			   "cd '%s' && mkfifo w.json r.json || exit 8; "
			   "{ '%s' run -p steal -t numa1 -w w.json --json r.json >/dev/null 2>err.txt; "
			   "echo $? >rc.txt; } & "
			   "wait_for() { i=0; until grep -q \"$1\" err.txt 2>/dev/null; do "
			   "sleep 0.1; i=$((i + 1)); [ $i -lt 1200 ] || { echo \"no '$1'\"; exit 9; }; "
			   "done; }; "
			   "wait_for 'w.json: a FIFO with no writer yet: waiting for one' && "
			   "cat tiny.json >w.json && "
			   "wait_for 'r.json: a FIFO with no reader yet: waiting for one' && "
			   "cat r.json >got.json && wait && cat rc.txt && "
			   "cat tiny.json | '%s' run -p steal -t numa1 -w /dev/stdin --json piped.json >/dev/null",
			   dir, test_schedlab_bin(), test_schedlab_bin());
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	ck_assert_msg(strcmp(out, "0\n") == 0, "the FIFO run exited %s", out);
	static const char *const reports[] = { "got.json", "piped.json" };
	for (int k = 0; k < 2; k++) {
		char *path = xasprintf("%s/%s", dir, reports[k]);
		char *text = test_read_file(path);
		cJSON *o = cJSON_Parse(text);
		ck_assert_msg(o && cJSON_GetObjectItem(o, "metrics"), "%s: not a whole report",
			      reports[k]);
		cJSON_Delete(o);
		free(text);
		free(path);
	}
	free(out);
	free(err);
	/* a Go trace's readers open it by name, more than once: refused */
	rc = test_runf(NULL, &err, "cat '%s/traces126/chan.trace' | '%s' run -p steal -w /dev/stdin",
		       test_data_dir(), test_schedlab_bin());
	ck_assert_msg(rc == 2 && strstr(err, "/dev/stdin: a Go execution trace is read from a file"),
		      "a piped Go trace: exit %d: %s", rc, err);
	assert_one_clean_line(err);
	free(err);
	free(tiny);
	test_rm_rf(dir);
	free(dir);
}
END_TEST

/* Writers racing for one output (two `regress --update` on one baseline
 * once left NUL bytes in it): each writes its own temporary file and
 * renames it, so the file ends as one writer's whole output -- byte for
 * byte what that writer writes alone -- and nothing is left beside it. */
START_TEST(concurrent_writers_leave_one_whole_output)
{
	char *dir = tmpdir();
	int rc = test_runf(NULL, NULL,
			   "cd '%s' || exit 8; for s in 1 2 3 4; do "
			   "'%s' run -p steal -t numa1 -w pingpong --seed $s --json alone.$s.json >/dev/null "
			   "|| exit 9; done; "
			   "for round in 1 2 3; do for s in 1 2 3 4; do "
			   "'%s' run -p steal -t numa1 -w pingpong --seed $s --json raced.json >/dev/null & "
			   "done; wait; "
			   "cmp -s raced.json alone.1.json || cmp -s raced.json alone.2.json || "
			   "cmp -s raced.json alone.3.json || cmp -s raced.json alone.4.json || exit 10; "
			   "done; ls | grep -q tmp && exit 11; exit 0",
			   dir, test_schedlab_bin(), test_schedlab_bin());
	ck_assert_msg(rc == 0, "exit %d (10: the raced output is no writer's whole report; "
		      "11: a temporary file was left)", rc);
	test_rm_rf(dir);
	free(dir);
}
END_TEST

/* The peak resident memory of `schedlab merge IN -o OUT`, in KiB. */
static long merge_peak_kib(const char *in, const char *out)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* AddressSanitizer keeps freed memory in quarantine (256 MB):
		 * a reader that frees each row as it goes would look like one
		 * that keeps them */
		const char *asan = getenv("ASAN_OPTIONS");
		char *opts = xasprintf("%s%squarantine_size_mb=0", asan ? asan : "", asan ? ":" : "");
		setenv("ASAN_OPTIONS", opts, 1);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execl(test_schedlab_bin(), "schedlab", "merge", in, "-o", out, (char *)NULL);
		_exit(127);
	}
	int status;
	struct rusage ru;
	ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "merge %s: status %d", in, status);
	return ru.ru_maxrss;
}

/* merge holds each row's key and place, not the row: a store of 40 times
 * the rows takes about the memory of the small one (a 375 MB store once
 * took 5.4 GB, where report read it in 16 MB), and the output is the
 * same as when the rows were held. */
START_TEST(merge_memory_does_not_grow_with_the_store)
{
	char *dir = tmpdir();
	char *one = xasprintf("%s/one.jsonl", dir);
	char *args = xasprintf("sweep -p steal -t numa1 -w pingpong --seeds 2 --json '%s'", one);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	char *text = test_read_file(one);
	cJSON *row = cJSON_Parse(text);   /* the first line: one row of about 10 KB */
	ck_assert_ptr_nonnull(row);
	long peak[2];
	static const int nrows[2] = { 50, 2000 };
	for (int k = 0; k < 2; k++) {
		char *in = xasprintf("%s/in%d.jsonl", dir, k), *out = xasprintf("%s/out%d.jsonl", dir, k);
		FILE *f = fopen(in, "w");
		cJSON_ReplaceItemInObject(row, "runs", cJSON_CreateNumber(nrows[k]));
		for (int i = nrows[k] - 1; i >= 0; i--) {   /* backwards: merge sorts them */
			cJSON_ReplaceItemInObject(row, "index", cJSON_CreateNumber(i));
			char *line = cJSON_PrintUnformatted(row);
			fprintf(f, "%s\n", line);
			free(line);
		}
		ck_assert_int_eq(fclose(f), 0);
		peak[k] = merge_peak_kib(in, out);
		char *merged = test_read_file(out);
		ck_assert_int_eq((int)strlen(merged) > 0, 1);
		ck_assert_msg(strncmp(merged, "{\"store\":", 9) == 0, "%s: not a store", out);
		free(merged);
		free(in);
		free(out);
	}
	fprintf(stderr, "inputs: merge of %d rows: %ld KiB at the peak; of %d rows: %ld KiB\n",
		nrows[0], peak[0], nrows[1], peak[1]);
	/* AddressSanitizer's allocator and shadow grow with what was ever
	 * allocated (121 MB against 24 MB measured): the figures are shown,
	 * the other builds assert them */
#if defined(__SANITIZE_ADDRESS__)
	bool asserted = false;
#else
	bool asserted = true;
#endif
	ck_assert_msg(!asserted || peak[1] < 2 * peak[0] + 16 * 1024,
		      "merge of %d rows peaked at %ld KiB, of %d rows at %ld KiB", nrows[1], peak[1],
		      nrows[0], peak[0]);
	/* an empty store is named */
	char *empty = xasprintf("%s/empty.jsonl", dir), *err = NULL;
	write_file(empty, "", 0);
	free(args);
	args = xasprintf("merge '%s' -o '%s/none.jsonl'", empty, dir);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 2);
	ck_assert_msg(strstr(err, "empty.jsonl: no rows (an empty store)"), "%s", err);
	free(err);
	free(empty);
	cJSON_Delete(row);
	free(text);
	free(args);
	free(one);
	test_rm_rf(dir);
	free(dir);
}
END_TEST

/* A command killed while it runs leaves no empty or partial output: the
 * file is either not there (the kill came first) or the whole report (the
 * run ended first), whatever the timing; a calibration killed so once
 * left an empty host.json that -t host then failed on. */
START_TEST(a_killed_command_leaves_no_empty_output)
{
	char *dir = tmpdir(), *out = xasprintf("%s/r.json", dir), *cmd = NULL;
	for (int ms = 100; ms <= 400; ms += 150) {
		ck_assert_int_ge(asprintf(&cmd, "'%s' run -p global -t numa4 -w rpc-server --procs 64 "
					  "--max-sim-time 2s --json '%s' >/dev/null 2>&1 & pid=$!; "
					  "sleep 0.%03d; kill -9 $pid; wait $pid; exit 0",
					  test_schedlab_bin(), out, ms), 0);
		ck_assert_int_eq(test_run(cmd, NULL, NULL), 0);
		free(cmd);
		struct stat st;
		if (stat(out, &st) == 0) {
			char *text = test_read_file(out);
			cJSON *o = cJSON_Parse(text);
			ck_assert_msg(o && cJSON_GetObjectItem(o, "metrics"),
				      "killed after %d ms: %s is not a whole report (%lld bytes)", ms, out,
				      (long long)st.st_size);
			cJSON_Delete(o);
			free(text);
			unlink(out);
		}
		DIR *d = opendir(dir);
		for (struct dirent *de; (de = readdir(d));)
			ck_assert_msg(de->d_name[0] == '.' || strstr(de->d_name, ".tmp-"),
				      "killed after %d ms: %s left behind", ms, de->d_name);
		closedir(d);
	}
	free(out);
	test_rm_rf(dir);
	free(dir);
}
END_TEST

/* Bad invocations found by the reliability audit: exit 2 and one line that
 * names what is wrong. */
START_TEST(bad_invocations_name_what_is_wrong)
{
	char *dir = tmpdir(), *empty = xasprintf("%s/empty.jsonl", dir);
	write_file(empty, "", 0);
	struct {
		char *args;
		const char *words;
	} cases[] = {
		{ xasprintf("workload frob"), "'frob' is not a workload command" },
		{ xasprintf("workload show --frob"), "unknown option --frob" },
		{ xasprintf("workload import '%s'", dir), "a folder, not a trace file" },
		{ xasprintf("report '%s' -o '%s/r.html'", empty, dir), "the store holds no rows" },
		{ xasprintf("explore -p steal -t numa1 -w pipeline --procs 2 --replay 1:5:2:0"),
		  "FROM (5) is past LIMIT (2)" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *err = NULL;
		int rc = test_schedlab(cases[k].args, NULL, &err);
		ck_assert_msg(rc == 2 && strstr(err, cases[k].words), "%s: exit %d: %s", cases[k].args,
			      rc, err);
		assert_one_clean_line(err);
		free(err);
		free(cases[k].args);
	}
	free(empty);
	test_rm_rf(dir);
	free(dir);
}
END_TEST

/* A file's bytes, whatever they are (a trace has NULs). */
static char *read_bytes(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	char *b = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t got = 1; got > 0;) {
		if (*n == cap)
			b = xrealloc(b, cap = cap ? 2 * cap : 4096);
		got = fread(b + *n, 1, cap - *n, f);
		*n += got;
	}
	fclose(f);
	return b;
}

/* An output that names an input, or another output, is refused before
 * anything is run or written: the input stays as it was. */
START_TEST(an_output_that_is_an_input_is_refused)
{
	char *dir = tmpdir(), *wl = write_tiny(dir), *args = NULL;
	char *store = xasprintf("%s/s.jsonl", dir), *trace = xasprintf("%s/t.trace", dir);
	ck_assert_int_ge(asprintf(&args, "sweep -p steal -t numa1 -w '%s' --json '%s'", wl, store), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	free(args);
	char *src = xasprintf("%s/traces126/chan.trace", test_data_dir());
	char *cp = xasprintf("cp '%s' '%s'", src, trace);
	ck_assert_int_eq(test_run(cp, NULL, NULL), 0);
	free(cp);
	free(src);
	struct {
		const char *fmt, *file, *words;
	} cases[] = {
		{ "run -p steal -t numa1 -w '%1$s' --json '%1$s'", wl, "an input of the command" },
		{ "workload expand '%1$s' -o '%1$s'", wl, "an input of the command" },
		{ "report '%1$s' -o '%1$s' --format html", store, "an input of the command" },
		{ "merge '%1$s' -o '%1$s'", store, "an input of the command" },
		{ "workload import '%1$s' -o '%1$s'", trace, "an input of the command" },
		{ "run -p steal -t numa1 -w pipeline --json '%1$s.x' --cdf '%1$s.x'", wl, "--json" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		size_t before = 0;
		char *was = read_bytes(cases[k].file, &before);
		ck_assert_int_ge(asprintf(&args, cases[k].fmt, cases[k].file), 0);
		char *err = NULL;
		int rc = test_schedlab(args, NULL, &err);
		ck_assert_msg(rc == 2 && strstr(err, cases[k].words), "%s: exit %d: %s", args, rc,
			      err);
		assert_one_clean_line(err);
		size_t after = 0;
		char *now = read_bytes(cases[k].file, &after);
		ck_assert_msg(now && after == before && memcmp(now, was, after) == 0,
			      "%s: the input changed", args);
		free(was);
		free(now);
		free(err);
		free(args);
	}
	free(store);
	free(trace);
	free(wl);
	test_rm_rf(dir);
	free(dir);
}
END_TEST

/* ---- hwloc XML ---- */

static char *regression(const char *target, const char *name)
{
	char *p = NULL;
	ck_assert_int_ge(asprintf(&p, "%s/%s/%s", fuzz_regressions(), target, name), 0);
	return p;
}

/* libhwloc 2.9 dies of SIGSEGV on these 32 bytes; schedlab does not. */
START_TEST(xml_that_crashes_hwloc_is_bad_input)
{
	char *dir = tmpdir(), *path = NULL, *args = NULL, *err;
	ck_assert_int_ge(asprintf(&path, "%s/crash.xml", dir), 0);
	const char xml[] = "<?xml >\n<topology version=\"2.0te";
	ck_assert_uint_eq(sizeof(xml) - 1, 32);
	write_file(path, xml, sizeof(xml) - 1);
	struct err e = { "" };
	ck_assert_ptr_null(topo_load(path, &e));
	ck_assert_msg(strstr(e.msg, "crash.xml: not a valid hwloc XML topology (the hwloc library "
			     "crashed reading it"), "%s", e.msg);
	ck_assert_int_ge(asprintf(&args, "topo -t '%s'", path), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, &err), 2);
	assert_one_clean_line(err);
	ck_assert_ptr_nonnull(strstr(err, "crash.xml: not a valid hwloc XML topology"));
	free(err);
	free(args);
	free(path);
	free(dir);
}
END_TEST

static const struct {
	const char *file, *want, *or_else;
} bad_xml[] = {
	/* lstopo --input "l2:2 group:2 pack:1 l2:1 l1:1 core:1 pu:1" --of xml:
	 * hwloc_get_nbobjs_by_type says -1, which overflowed the cache array */
	{ "l2-at-two-depths.xml", "the topology has L2Cache objects at several depths", NULL },
	/* a Core with an empty cpuset */
	{ "core-without-pu.xml", "core 21 has no processing unit (PU)", NULL },
	/* a PU without os_index: hwloc numbers it 2^32 - 1 and makes 512 MB
	 * cpusets; under ASan or valgrind hwloc may reach the child's memory
	 * or CPU limit before its load returns: refused all the same */
	{ "pu-without-os-index.xml", "the topology numbers a PU or NUMA node above 1048576",
	  "pu-without-os-index.xml: not a valid hwloc XML topology (the hwloc library " },
};

START_TEST(bad_xml_is_refused_with_a_reason)
{
	char *path = regression("hwloc_xml", bad_xml[_i].file);
	struct err e = { "" };
	struct topo *t = topo_load(path, &e);
	ck_assert_msg(t == NULL, "%s loaded", path);
	ck_assert_msg(strstr(e.msg, bad_xml[_i].want) ||
		      (bad_xml[_i].or_else && strstr(e.msg, bad_xml[_i].or_else)), "%s: %s",
		      bad_xml[_i].file, e.msg);
	free(path);
}
END_TEST

/* Every input a fuzzer once crashed on (fuzz/regressions/TARGET/) loads,
 * or is refused with one clean message, through the function its target
 * calls. */
START_TEST(fuzz_regressions_load_cleanly)
{
	static const char *const targets[] = { "workload", "trace", "topo_json", "hwloc_xml" };
	int files = 0;
	for (size_t k = 0; k < sizeof(targets) / sizeof(targets[0]); k++) {
		char *dirpath = NULL;
		ck_assert_int_ge(asprintf(&dirpath, "%s/%s", fuzz_regressions(), targets[k]), 0);
		DIR *d = opendir(dirpath);
		ck_assert_msg(d != NULL, "%s: %s", dirpath, strerror(errno));
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char *path = NULL;
			ck_assert_int_ge(asprintf(&path, "%s/%s", dirpath, de->d_name), 0);
			struct err e = { "" };
			size_t len;
			char *text = input_read(path, &len, &e);
			bool ok = false;
			if (text && k == 0) {
				struct workload *w = wl_compile(path, text, &e);
				ok = w != NULL;
				wl_free(w);
			} else if (text && k == 1) {
				bool is_trace;
				uint64_t seed;
				struct workload *w = wl_load_text(path, text, &is_trace, &seed, &e);
				ok = w != NULL;
				wl_free(w);
			} else if (text && k == 2) {
				struct topo *t = topo_load_json_text(text, path, &e);
				ok = t != NULL;
				topo_free(t);
			} else if (text) {
				struct topo *t = topo_load_xml_text(text, len, path, &e);
				ok = t != NULL;
				topo_free(t);
			}
			if (!ok) {
				char *line = NULL;
				ck_assert_int_ge(asprintf(&line, "%s\n", e.msg), 0);
				assert_one_clean_line(line);
				free(line);
			}
			free(text);
			free(path);
			files++;
		}
		closedir(d);
		free(dirpath);
	}
	ck_assert_int_ge(files, 4);
}
END_TEST

/* ---- The compiler's cost ---- */

/* A workload of n channels (each closed by main), n wait groups (each
 * waited on), or a chain of n programs, as JSON text. */
static char *big_workload(int kind, int n)
{
	size_t cap = (size_t)n * 64 + 256, len = 0;
	char *s = malloc(cap);
#define PUT(...) (len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__))
	PUT("{\"name\": \"big\", ");
	if (kind == 0) {
		PUT("\"channels\": {");
		for (int i = 0; i < n; i++)
			PUT("%s\"c%d\": 1", i ? ", " : "", i);
		PUT("}, \"programs\": {\"main\": [");
		for (int i = 0; i < n; i++)
			PUT("%s{\"close\": \"c%d\"}", i ? ", " : "", i);
		PUT("]}}");
	} else if (kind == 1) {
		PUT("\"waitgroups\": [");
		for (int i = 0; i < n; i++)
			PUT("%s\"w%d\"", i ? ", " : "", i);
		PUT("], \"programs\": {\"main\": [");
		for (int i = 0; i < n; i++)
			PUT("%s{\"wg_wait\": \"w%d\"}", i ? ", " : "", i);
		PUT("]}}");
	} else {
		PUT("\"programs\": {\"main\": [{\"spawn\": \"p0\"}]");
		for (int i = 0; i < n; i++) {
			PUT(", \"p%d\": [\"yield\"", i);
			if (i + 1 < n)
				PUT(", {\"spawn\": \"p%d\"}", i + 1);
			PUT("]");
		}
		PUT("}}");
	}
#undef PUT
	ck_assert_uint_lt(len, cap);
	return s;
}

/* Name look-ups and the whole-workload checks count their steps
 * (wl__compile_steps): eight times the objects must cost about eight
 * times the steps (a quadratic compiler: 64 times).  Counting, not timing,
 * so a loaded host cannot fail it. */
START_TEST(compile_cost_grows_linearly)
{
	static const char *const kinds[] = { "channels", "wait groups", "programs" };
	uint64_t steps[2];
	for (int k = 0; k < 2; k++) {
		int n = k ? 16000 : 2000;
		char *text = big_workload(_i, n);
		struct err e = { "" };
		uint64_t before = wl__compile_steps;
		struct workload *w = wl_compile("big.json", text, &e);
		ck_assert_msg(w != NULL, "%s", e.msg);
		steps[k] = wl__compile_steps - before;
		ck_assert_uint_eq(_i == 0 ? w->nchans : _i == 1 ? w->nwaitgroups : w->nprogs - 1,
				  (unsigned)n);
		wl_free(w);
		free(text);
	}
	ck_assert_msg(steps[0] >= 2000, "%s: only %llu steps counted", kinds[_i],
		      (unsigned long long)steps[0]);
	ck_assert_msg(steps[1] <= 12 * steps[0], "%s: 8x the objects took %.1fx the steps", kinds[_i],
		      (double)steps[1] / (double)steps[0]);
}
END_TEST

/* The recursion check (Tarjan's components): a cycle through three
 * programs names the first one without max_depth; a bound on every one
 * of them is enough; a name given twice is still found. */
START_TEST(spawn_cycles_are_found_through_several_programs)
{
	static const char *const docs[][2] = {
		{ "{\"name\": \"r\", \"programs\": {\"main\": [{\"spawn\": \"b\"}], "
		  "\"a\": {\"max_depth\": 3, \"body\": [{\"spawn\": \"b\"}]}, \"b\": [{\"spawn\": \"c\"}], "
		  "\"c\": [{\"spawn\": \"a\"}]}}",
		  "$.programs.b: program b spawns itself (directly or through others)" },
		{ "{\"name\": \"r\", \"programs\": {\"main\": [{\"spawn\": \"b\"}, {\"spawn\": \"d\"}], "
		  "\"a\": {\"max_depth\": 3, \"body\": [{\"spawn\": \"b\"}]}, "
		  "\"b\": {\"max_depth\": 3, \"body\": [{\"spawn\": \"a\"}]}, \"d\": [{\"spawn\": \"d\"}]}}",
		  "$.programs.d: program d spawns itself" },
		{ "{\"name\": \"r\", \"programs\": {\"main\": [{\"spawn\": \"b\"}], "
		  "\"a\": {\"max_depth\": 3, \"body\": [{\"spawn\": \"b\"}]}, "
		  "\"b\": {\"max_depth\": 3, \"body\": [{\"spawn\": \"a\"}]}}}",
		  NULL },
		{ "{\"name\": \"r\", \"channels\": {\"x\": 1}, \"waitgroups\": [\"x\"], "
		  "\"programs\": {\"main\": [\"yield\"]}}",
		  "$.waitgroups[0]: 'x' is declared twice" },
	};
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		struct err e = { "" };
		struct workload *w = wl_compile("r.json", docs[i][0], &e);
		if (!docs[i][1]) {
			ck_assert_msg(w != NULL, "%zu: %s", i, e.msg);
			wl_free(w);
			continue;
		}
		ck_assert_ptr_null(w);
		ck_assert_msg(strstr(e.msg, docs[i][1]), "%zu: %s", i, e.msg);
	}
}
END_TEST

/* ---- Traces ---- */

/* A seed past 2^53 does not survive a JSON number: expand writes it as a
 * string, and the replay gives the report of a run with that seed. */
START_TEST(trace_seed_past_2_53_round_trips)
{
	char *dir = tmpdir(), *wl = write_tiny(dir), *args = NULL, *trace = NULL, *a, *b;
	ck_assert_int_ge(asprintf(&trace, "%s/t.trace", dir), 0);
	ck_assert_int_ge(asprintf(&args, "workload expand '%s' -t numa1 --procs 2 "
				  "--seed 18446744073709551615 -o '%s'", wl, trace), 0);
	ck_assert_int_eq(test_schedlab(args, NULL, NULL), 0);
	free(args);
	char *text = input_read(trace, NULL, &(struct err){ "" });
	ck_assert_ptr_nonnull(strstr(text, "\"seed\":\"18446744073709551615\""));
	free(text);
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 --procs 2 -w '%s' --json -", trace),
			 0);
	ck_assert_int_eq(test_schedlab(args, &a, NULL), 0);
	free(args);
	ck_assert_int_ge(asprintf(&args, "run -p steal -t numa1 --procs 2 -w '%s' "
				  "--seed 18446744073709551615 --json -", wl), 0);
	ck_assert_int_eq(test_schedlab(args, &b, NULL), 0);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	free(args);
	/* a number that large is refused, not rounded */
	const char big[] = "{\"schedlab_trace\":1,\"seed\":18446744073709551615,"
			   "\"workload\":{\"name\":\"t\",\"programs\":{\"main\":[\"yield\"]}}}\n";
	struct err e = { "" };
	bool is_trace;
	uint64_t seed;
	ck_assert_ptr_null(wl_load_text("big.trace", big, &is_trace, &seed, &e));
	ck_assert_msg(strstr(e.msg, "big.trace: line 1: $.seed: 1.8446744073709552e+19 is past 2^53"),
		      "%s", e.msg);
	free(trace);
	free(wl);
	free(dir);
}
END_TEST

/* ---- Sizes the model must not allocate for ---- */

/* schedlab ARGS...: its exit status and its peak resident KiB. */
static long huge_run_peak_kib(const char *const argv[], int *status)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execv(test_schedlab_bin(), (char *const *)argv);
		_exit(127);
	}
	struct rusage ru;
	ck_assert_int_eq(wait4(pid, status, 0, &ru), pid);
	return ru.ru_maxrss;
}

/* A workload that declares a 1 TiB region and touches 64 KiB of it, on a
 * machine with a 4 TiB L3: it once took 3.0 GB and 12.6 s to set up (a
 * record per page declared, outside --max-wall-time), and the L3 alone an
 * "out of memory" exit 3 (a slot per chunk of its size).  Now the model
 * makes what the run touches: a few MB. */
START_TEST(a_huge_region_and_cache_cost_what_is_touched)
{
	char *dir = tmpdir();
	char *wl = xasprintf("%s/huge-region.json", dir), *topo = xasprintf("%s/huge-l3.json", dir);
	static const char wtext[] =
		"{\"name\": \"huge-region\", \"regions\": {\"r\": {\"size\": \"1TiB\", "
		"\"placement\": \"interleave\"}},\n \"programs\": {\"main\": [{\"touch\": "
		"{\"region\": \"r\", \"bytes\": \"64KiB\", \"offset\": \"1000GiB\"}}]}}";
	static const char ttext[] =
		"{\"name\": \"huge-l3\", \"packages\": 1, \"numa_nodes\": 2, \"cores\": 4, "
		"\"pus_per_core\": 1, \"caches\": [{\"level\": 1, \"size\": \"32KiB\"}, "
		"{\"level\": 2, \"size\": \"1MiB\"}, {\"level\": 3, \"size\": \"4096GiB\", \"cores\": 4}], "
		"\"node_memory\": \"8TiB\", \"distances\": [[10, 20], [20, 10]], \"latency\": "
		"{\"c2c_ns\": {\"core\": 5, \"group\": 50, \"hops\": [120]}, \"dram_ns\": "
		"{\"local\": 90, \"hops\": [140]}, \"bandwidth_gbs\": 100}}";
	write_file(wl, wtext, strlen(wtext));
	write_file(topo, ttext, strlen(ttext));
	const char *const argv[] = { "schedlab", "run", "-p", "steal", "-t", topo, "-w", wl,
				     "--max-wall-time", "10s", NULL };
	int status;
	long kib = huge_run_peak_kib(argv, &status);
	fprintf(stderr, "inputs: a 1 TiB region on a 4 TiB L3: %ld KiB at the peak\n", kib);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	/* 12 bytes a page of 1 TiB would be 3 GiB; sanitizers' own share is
	 * well under the bound */
	ck_assert_msg(kib < 512 * 1024, "%ld KiB", kib);
	free(wl);
	free(topo);
	test_rm_rf(dir);
	free(dir);
}
END_TEST

Suite *make_inputs_suite(void)
{
	Suite *s = suite_create("inputs");
	TCase *tc = tcase_create("files");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, dev_zero_is_not_read_forever);
	tcase_add_test(tc, endless_pipe_stops_at_the_limit);
	if (!test_under_valgrind())   /* 64 MiB read under valgrind: minutes */
		tcase_add_test(tc, regular_file_limit_is_exact);
	tcase_add_test(tc, nul_inside_a_file_is_named);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	tc = tcase_create("messages");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, long_path_keeps_the_reason);
	tcase_add_test(tc, long_path_keeps_json_path_and_problem);
	tcase_add_test(tc, control_bytes_and_bad_utf8_in_arguments_are_escaped);
	tcase_add_test(tc, json_nesting_limit_is_named);
	tcase_add_test(tc, invalid_utf8_in_a_workload_is_refused_with_its_place);
	tcase_add_test(tc, control_characters_in_names_are_refused);
	tcase_add_test(tc, file_names_in_reports_are_valid_utf8);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tc = tcase_create("outputs");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, json_to_a_missing_folder_fails_before_the_run);
	tcase_add_test(tc, failed_run_leaves_no_half_file);
	tcase_add_loop_test(tc, an_output_past_the_file_size_limit_keeps_the_old_file, 0,
			    (int)(sizeof(big_outputs) / sizeof(big_outputs[0])));
	tcase_add_loop_test(tc, a_full_disk_keeps_the_old_output, 0,
			    (int)(sizeof(full_writers) / sizeof(full_writers[0])));
	tcase_add_test(tc, a_device_output_stays_a_device);
	tcase_add_test(tc, fifos_and_pipes_are_read_and_written_through);
	tcase_add_test(tc, concurrent_writers_leave_one_whole_output);
	tcase_add_test(tc, merge_memory_does_not_grow_with_the_store);
	tcase_add_test(tc, a_killed_command_leaves_no_empty_output);
	tcase_add_test(tc, bad_invocations_name_what_is_wrong);
	tcase_add_test(tc, an_output_that_is_an_input_is_refused);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tc = tcase_create("hwloc");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, xml_that_crashes_hwloc_is_bad_input);
	tcase_add_loop_test(tc, bad_xml_is_refused_with_a_reason, 0,
			    (int)(sizeof(bad_xml) / sizeof(bad_xml[0])));
	tcase_add_test(tc, fuzz_regressions_load_cleanly);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	tc = tcase_create("compile");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_loop_test(tc, compile_cost_grows_linearly, 0, 3);
	tcase_add_test(tc, spawn_cycles_are_found_through_several_programs);
	tcase_add_test(tc, trace_seed_past_2_53_round_trips);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	tc = tcase_create("sizes");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, a_huge_region_and_cache_cost_what_is_touched);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
