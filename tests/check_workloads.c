/* The workload language end to end (suite "workloads", with check_dist.c's):
 * every bundled catalog workload runs to completion, a workload and a seed
 * are one exact run, a trace replays it, bad input is refused with a
 * message naming the file, the JSON path and the problem, and the
 * language's constructs do what they say (each checked by assertions
 * inside the workload, which panic the run when wrong). */
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/policy.h"
#include "tests/tests.h"
#include "workloads/json.h"

/* ---- Helpers ---- */

static int schedlab(const char *args, char **out, char **err)
{
	char *cmd = NULL;
	/* a run that hangs fails the test instead of stalling the suite */
	ck_assert_int_ge(asprintf(&cmd, "timeout 120 '%s' %s", test_schedlab_bin(), args), 0);
	int rc = test_run(cmd, out, err);
	free(cmd);
	return rc;
}

static int schedlabf(char **out, char **err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int schedlabf(char **out, char **err, const char *fmt, ...)
{
	char *args = NULL;
	va_list ap;
	va_start(ap, fmt);
	ck_assert_int_ge(vasprintf(&args, fmt, ap), 0);
	va_end(ap);
	int rc = schedlab(args, out, err);
	free(args);
	return rc;
}

/* One temporary directory per test case (an unchecked fixture: made and
 * removed in the runner, so a failed test leaves nothing behind). */
static char tmpdir[64];

static void tmpdir_setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/schedlab-wl-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void tmpdir_teardown(void)
{
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Writes text to a file named name in the test case's directory; returns
 * its path (caller frees). */
static char *write_file(const char *name, const char *text)
{
	char *path = NULL;
	ck_assert_int_ge(asprintf(&path, "%s/%s", tmpdir, name), 0);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

static bool in_catalog(const char *name)
{
	for (int i = 0; i < wl_catalog_count(); i++)
		if (strcmp(wl_catalog_name(i), name) == 0)
			return true;
	return false;
}

/* Runs w under policy steal, simulated on topology (or natively on the
 * host with api nat__rt_api). */
static struct test_outcome run_wl(const struct rt_api *api, const char *topology,
				  struct workload *w, int procs, uint64_t seed)
{
	return test_run_policy(api, "steal", topology, w, procs, seed, NULL);
}

static struct workload *compile(const char *text)
{
	struct err e = { "" };
	struct workload *w = wl_compile("inline.json", text, &e);
	ck_assert_msg(w, "does not compile: %s", e.msg);
	return w;
}

/* Compiles text and runs it (i == 0: simulated on numa2 with 4 Ps; 1:
 * natively): it must end well, every G done, no assertion failed. */
static struct rt_result run_ok(const char *text, int i)
{
	struct workload *w = compile(text);
	struct test_outcome o = i == 0 ? run_wl(&sim__rt_api, "numa2", w, 4, 1)
				  : run_wl(&nat__rt_api, "host", w, 2, 1);
	ck_assert_msg(o.created, "%s", o.e.msg);
	ck_assert_msg(!o.r.panicked, "panic: %s", o.r.panic);
	ck_assert_msg(!o.r.deadlock, "deadlock:\n%s", o.r.blocked);
	ck_assert_uint_gt(o.r.goroutines, 0);
	ck_assert_uint_eq(o.r.completed, o.r.goroutines);
	wl_free(w);
	return o.r;
}

/* ---- The catalog ---- */

/* Under valgrind (~50x slower) only the light workloads run, and only on
 * one package: how many Gs one makes is learnt from the schedlab command,
 * which valgrind does not trace. */
#define VALGRIND_MAX_GS 100000

static bool light_enough(const char *name, const char *topology)
{
	if (strcmp(topology, "numa1") != 0)
		return false;
	char *out;
	ck_assert_int_eq(schedlabf(&out, NULL, "run -p steal -t numa1 -w '%s' --json -", name), 0);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	cJSON *gs = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metrics"), "goroutines");
	ck_assert_ptr_nonnull(gs);
	bool light = gs->valuedouble <= VALGRIND_MAX_GS;
	cJSON_Delete(o);
	free(out);
	return light;
}

/* Each bundled workload, on four packages (every PU) and on one: it ends,
 * every G it made ran to its end, and its own assertions (skynet's sum,
 * ...) held. */
static void run_catalog(int i, const char *topology)
{
	const char *name = wl_catalog_name(i);
	struct err e = { "" };
	bool is_trace = true;
	uint64_t seed;
	struct workload *w = wl_load(name, &is_trace, &seed, &e);
	ck_assert_msg(w, "%s: %s", name, e.msg);
	ck_assert(!is_trace);
	ck_assert_msg(w->source_json, "%s has no source", name);
	if (test_under_valgrind() && !light_enough(name, topology)) {
		wl_free(w);
		return;
	}
	struct test_outcome o = run_wl(&sim__rt_api, topology, w, 0, 1);
	ck_assert_msg(o.created, "%s on %s: %s", name, topology, o.e.msg);
	ck_assert_msg(!o.r.panicked, "%s on %s panicked: %s", name, topology, o.r.panic);
	ck_assert_msg(!o.r.deadlock, "%s on %s deadlocked:\n%s", name, topology, o.r.blocked);
	ck_assert_uint_gt(o.r.goroutines, 0);
	ck_assert_msg(o.r.completed == o.r.goroutines, "%s on %s: %llu of %llu Gs completed", name,
		      topology, (unsigned long long)o.r.completed,
		      (unsigned long long)o.r.goroutines);
	ck_assert_int_gt(o.r.makespan_ns, 0);
	wl_free(w);
}

START_TEST(catalog_workload_completes_numa4)
{
	run_catalog(_i, "numa4");
}
END_TEST

START_TEST(catalog_workload_completes_numa1)
{
	run_catalog(_i, "numa1");
}
END_TEST

/* `schedlab list workloads': each catalog workload on a line of its own,
 * then the built-ins. */
START_TEST(list_workloads_lists_the_catalog)
{
	char *out, *err;
	ck_assert_int_eq(schedlab("list workloads", &out, &err), 0);
	ck_assert_str_eq(err, "");
	int lines = 0;
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	ck_assert_int_eq(lines, wl_catalog_count() + wl_builtin_count());
	for (int i = 0; i < wl_catalog_count() + wl_builtin_count(); i++) {
		const char *name = i < wl_catalog_count() ? wl_catalog_name(i)
							  : wl_builtin_name(i - wl_catalog_count());
		int found = 0;
		size_t len = strlen(name);
		for (const char *l = out; *l; l = strchr(l, '\n') + 1) {
			if (strncmp(l, name, len) == 0 && l[len] == ' ')
				found++;
			if (!strchr(l, '\n'))
				break;
		}
		ck_assert_msg(found == 1, "%s on %d lines of:\n%s", name, found, out);
		/* a description follows the name */
		const char *at = strstr(out, name);
		ck_assert_msg(strchr(at, '\n') - at > (ptrdiff_t)len + 3, "%s has no description", name);
	}
	free(out);
	free(err);
}
END_TEST

/* ---- Determinism and traces ---- */

/* A small server with sampled values everywhere: arrivals, requests per
 * connection, think times, service times. */
static const char mini_rpc[] =
	"{\"name\": \"mini-rpc\", \"description\": \"A small server.\",\n"
	" \"listeners\": {\"l\": {\"connections\": 30, \"rate\": 20000,\n"
	"   \"requests\": {\"uniform\": {\"min\": 1, \"max\": 5}},\n"
	"   \"think\": {\"exponential\": {\"mean\": \"20us\"}}}},\n"
	" \"programs\": {\n"
	"  \"main\": [{\"accept\": {\"listener\": \"l\", \"spawn\": \"handler\"}}],\n"
	"  \"handler\": {\"params\": {\"c\": \"conn\"}, \"body\": [\n"
	"   {\"loop\": {\"count\": 1000000, \"body\": [\n"
	"     {\"net_read\": {\"conn\": \"c\", \"eof\": \"break\"}},\n"
	"     {\"request_begin\": \"arrival\"},\n"
	"     {\"compute\": {\"lognormal\": {\"median\": \"10us\", \"sigma\": 0.5}}},\n"
	"     {\"net_write\": \"c\"},\n"
	"     \"request_end\"]}}]}}}\n";

/* rpc-server when the catalog has it, else the small one above. */
static char *det_workload(void)
{
	if (in_catalog("rpc-server"))
		return strdup("rpc-server");
	return write_file("mini-rpc.json", mini_rpc);
}

#define RUN_ARGS "run -p steal -t numa2 --procs 8"

START_TEST(same_seed_same_report_other_seed_other_samples)
{
	char *w = det_workload();
	char *a, *b, *c;
	ck_assert_int_eq(schedlabf(&a, NULL, RUN_ARGS " -w '%s' --seed 3 --json -", w), 0);
	ck_assert_int_eq(schedlabf(&b, NULL, RUN_ARGS " -w '%s' --seed 3 --json -", w), 0);
	ck_assert_int_eq(schedlabf(&c, NULL, RUN_ARGS " -w '%s' --seed 4 --json -", w), 0);
	ck_assert_str_eq(a, b);
	cJSON *ja = cJSON_Parse(a), *jc = cJSON_Parse(c);
	ck_assert_ptr_nonnull(ja);
	ck_assert_ptr_nonnull(jc);
	cJSON *ma = cJSON_GetObjectItem(ja, "metrics"), *mc = cJSON_GetObjectItem(jc, "metrics");
	ck_assert_ptr_nonnull(ma);
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(ma, "request_latency_ns"));
	/* not just the seed echoed: what was sampled differs */
	ck_assert_msg(!cJSON_Compare(ma, mc, true), "seeds 3 and 4 give the same metrics");
	ck_assert(!cJSON_Compare(cJSON_GetObjectItem(ma, "request_latency_ns"),
				 cJSON_GetObjectItem(mc, "request_latency_ns"), true));
	cJSON_Delete(ja);
	cJSON_Delete(jc);
	free(a);
	free(b);
	free(c);
	free(w);
}
END_TEST

/* expand then replay gives the run the workload gives with that seed; a
 * replay under another seed is refused. */
START_TEST(trace_replays_the_run_exactly)
{
	char *w = det_workload();
	char *t = NULL, *out, *err, *direct, *replay;
	ck_assert_int_ge(asprintf(&t, "%s/run.lim.trace", tmpdir), 0);
	ck_assert_int_eq(schedlabf(&out, &err, "workload expand '%s' -t numa2 --procs 8 --seed 7 "
				   "-o '%s'", w, t), 0);
	ck_assert_msg(strcmp(err, "") == 0, "%s", err);
	free(out);
	free(err);
	char *trace = test_read_file(t);
	ck_assert_msg(strncmp(trace, "{\"schedlab_trace\":1,\"seed\":7,", 29) == 0, "%.200s", trace);
	ck_assert_ptr_nonnull(strstr(trace, "\n{\"stream\":\""));
	free(trace);
	ck_assert_int_eq(schedlabf(&direct, NULL, RUN_ARGS " -w '%s' --seed 7 --json -", w), 0);
	ck_assert_int_eq(schedlabf(&replay, &err, RUN_ARGS " -w '%s' --json -", t), 0);
	ck_assert_msg(strcmp(err, "") == 0, "%s", err);
	ck_assert_str_eq(direct, replay);
	free(err);
	/* the seed given again is fine; another one is not */
	free(replay);
	ck_assert_int_eq(schedlabf(&replay, NULL, RUN_ARGS " -w '%s' --seed 7 --json -", t), 0);
	ck_assert_str_eq(direct, replay);
	ck_assert_int_eq(schedlabf(&out, &err, RUN_ARGS " -w '%s' --seed 8", t), 2);
	ck_assert_msg(strstr(err, "--seed 8") && strstr(err, "seed 7") && strstr(err, t), "%s", err);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
	free(direct);
	free(replay);
	free(t);
	free(w);
}
END_TEST

/* The replay takes its values from the trace, not from the seed: the same
 * trace with every draw of service time changed gives another run. */
START_TEST(trace_values_are_used)
{
	char *w = write_file("mini-rpc.json", mini_rpc);
	char *t = NULL;
	ck_assert_int_ge(asprintf(&t, "%s/run.lim.trace", tmpdir), 0);
	ck_assert_int_eq(schedlabf(NULL, NULL, "workload expand '%s' -t numa2 --procs 8 --seed 7 "
				   "-o '%s'", w, t), 0);
	char *trace = test_read_file(t);
	/* rewrite every draw as 1 (one request, no think, 1 ns of work) */
	size_t n = strlen(trace);
	char *edit = malloc(n + 1), *q = edit;
	bool in_draws = false;
	for (const char *p = trace; *p; p++) {
		if (strncmp(p, "\"draws\":[", 9) == 0) {
			memcpy(q, p, 9);
			q += 9;
			p += 8;
			in_draws = true;
			*q++ = '1';
			continue;
		}
		if (in_draws && *p >= '0' && *p <= '9')
			continue;
		if (in_draws && *p == ',') {
			*q++ = ',';
			*q++ = '1';
			continue;
		}
		if (*p == ']')
			in_draws = false;
		*q++ = *p;
	}
	*q = '\0';
	ck_assert_str_ne(trace, edit);
	char *t2 = write_file("edited.trace", edit);
	char *a, *b;
	ck_assert_int_eq(schedlabf(&a, NULL, RUN_ARGS " -w '%s' --json -", t), 0);
	ck_assert_int_eq(schedlabf(&b, NULL, RUN_ARGS " -w '%s' --json -", t2), 0);
	cJSON *ja = cJSON_Parse(a), *jb = cJSON_Parse(b);
	cJSON *ma = cJSON_GetObjectItem(ja, "metrics"), *mb = cJSON_GetObjectItem(jb, "metrics");
	/* one request per connection now: 30 in all */
	ck_assert_int_eq(cJSON_GetObjectItem(mb, "requests")->valueint, 30);
	ck_assert_int_gt(cJSON_GetObjectItem(ma, "requests")->valueint, 30);
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	free(a);
	free(b);
	free(edit);
	free(trace);
	free(t2);
	free(t);
	free(w);
}
END_TEST

static const struct {
	const char *line;    /* a stream line, after a good header */
	int lineno;
	const char *path;
	const char *gist;
} bad_trace[] = {
	{ "{\"stream\":\"0123456789abcdef\",\"drawz\":[4]}", 3, "$.drawz", "unknown key" },
	{ "{\"stream\":\"0123456789abcdef\",\"draws\":[4,\"x\"]}", 3, "$.draws[1]",
	  "expected an integer" },
	{ "{\"stream\":\"0123456789abcdef\",\"draws\":[4,-1]}", 3, "$.draws[1]", "between 0 and" },
	{ "{\"stream\":\"0123456789abcdef\",\"draws\":7}", 3, "$.draws", "expected an array" },
	{ "{\"stream\":\"xyz\",\"draws\":[4]}", 3, "$.stream", "16 hexadecimal digits" },
	{ "{\"stream\":\"0123456789abcdef\",\"draws\":[4]", 3, "", "syntax error" },
};

START_TEST(bad_trace_line_exits_2_naming_the_line)
{
	char *w = write_file("mini-rpc.json", mini_rpc);
	char *t = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&t, "%s/good.trace", tmpdir), 0);
	ck_assert_int_eq(schedlabf(NULL, NULL, "workload expand '%s' -t numa1 --procs 2 -o '%s'", w,
				   t), 0);
	char *trace = test_read_file(t);
	char *nl = strchr(trace, '\n');
	ck_assert_ptr_nonnull(nl);
	/* header, a good line (the trace's first stream), then the bad one */
	char *second_end = strchr(nl + 1, '\n');
	ck_assert_ptr_nonnull(second_end);
	second_end[1] = '\0';
	char *text = NULL;
	ck_assert_int_ge(asprintf(&text, "%s%s\n", trace, bad_trace[_i].line), 0);
	char *bad = write_file("bad.trace", text);
	ck_assert_int_eq(schedlabf(&out, &err, RUN_ARGS " -w '%s'", bad), 2);
	char where[64];
	snprintf(where, sizeof(where), "line %d", bad_trace[_i].lineno);
	ck_assert_msg(strstr(err, bad) && strstr(err, where) && strstr(err, bad_trace[_i].path) &&
			      strstr(err, bad_trace[_i].gist),
		      "%s printed: %s", bad_trace[_i].line, err);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
	free(bad);
	free(text);
	free(trace);
	free(t);
	free(w);
}
END_TEST

/* ---- Bad input: exit 2, one message naming file, JSON path, problem ---- */

static const struct {
	const char *what;
	const char *json;
	const char *path;    /* the JSON path, or for syntax errors ":line:column:" */
	const char *gist;
	const char *gist2;   /* a second piece of the message, or NULL */
} bad_wl[] = {
	{ "unknown operation", "{\"name\": \"t\", \"programs\": {\"main\": [\"yield\", {\"frob\": 1}]}}",
	  "$.programs.main[1].frob", "unknown operation", "compute, sleep" },
	{ "unknown bare operation", "{\"name\": \"t\", \"programs\": {\"main\": [\"frob\"]}}",
	  "$.programs.main[0]", "unknown operation 'frob'", NULL },
	{ "undefined main program",
	  "{\"name\": \"t\", \"programs\": {\"main\": [], \"w\": [\"yield\"]},\n"
	  " \"main\": \"m2\"}",
	  "$.main", "no program named 'm2'", NULL },
	{ "a negative delay of a later spawn",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"spawn\": {\"program\": \"w\", \"after\": -1}}],"
	  " \"w\": [\"yield\"]}}",
	  "$.programs.main[0].spawn.after", "must not be negative", NULL },
	{ "unknown key of an op's object",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"spawn\": {\"program\": \"w\", \"cnt\": 2}}],"
	  " \"w\": [\"yield\"]}}",
	  "$.programs.main[0].spawn.cnt", "unknown key", "program, count, args" },
	{ "unknown top-level key",
	  "{\"name\": \"t\", \"progs\": {}, \"programs\": {\"main\": [\"yield\"]}}", "$.progs",
	  "unknown key", "programs" },
	{ "a string for a number",
	  "{\"name\": \"t\", \"channels\": {\"c\": \"big\"}, \"programs\": {\"main\": [\"yield\"]}}",
	  "$.channels.c", "expected an integer", "string" },
	{ "a boolean for a count",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"loop\": {\"count\": true, "
	  "\"body\": [\"yield\"]}}]}}",
	  "$.programs.main[0].loop.count", "expected a number", "boolean" },
	{ "a chan variable as an int",
	  "{\"name\": \"t\", \"programs\": {\"main\": {\"vars\": {\"c\": \"chan\"},\n"
	  " \"body\": [\"yield\", {\"compute\": \"c\"}]}}}",
	  "$.programs.main.body[1].compute", "'c' is of type chan", NULL },
	{ "an int variable as a chan",
	  "{\"name\": \"t\", \"programs\": {\"main\": {\"vars\": {\"n\": \"int\"},\n"
	  " \"body\": [{\"send\": \"n\"}]}}}",
	  "$.programs.main.body[0].send", "'n' is of type int", "expected chan" },
	{ "a time without its unit",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"compute\": {\"ns\": \"1.5\"}}]}}",
	  "$.programs.main[0].compute.ns", "missing unit", NULL },
	{ "negative rate of a listener",
	  "{\"name\": \"t\", \"listeners\": {\"l\": {\"connections\": 1, \"rate\": -5}},\n"
	  " \"programs\": {\"main\": [{\"accept\": {\"listener\": \"l\", \"spawn\": \"h\"}}],\n"
	  " \"h\": {\"params\": {\"c\": \"conn\"}, \"body\": [{\"net_read\": \"c\"}]}}}",
	  "$.listeners.l.rate", "must be a positive number", "-5" },
	{ "a stack frame larger than its stack",
	  "{\"name\": \"t\", \"stacks\": {\"size\": \"8KiB\", \"frame\": \"16KiB\"},\n"
	  " \"programs\": {\"main\": [\"yield\"]}}",
	  "$.stacks.frame", "64 bytes to the stack's size", "16384" },
	{ "a misspelt key of stacks",
	  "{\"name\": \"t\", \"stacks\": {\"size\": \"8KiB\", \"frames\": 64},\n"
	  " \"programs\": {\"main\": [\"yield\"]}}",
	  "$.stacks.frames", "unknown key (expected one of: size, frame)", NULL },
	{ "a stack too small",
	  "{\"name\": \"t\", \"stacks\": {\"size\": 512},\n"
	  " \"programs\": {\"main\": [\"yield\"]}}",
	  "$.stacks.size", "1 KiB to 1 GiB", "512" },
	{ "lognormal sigma 0",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"compute\": {\"lognormal\": "
	  "{\"median\": 1000, \"sigma\": 0}}}]}}",
	  "$.programs.main[0].compute.lognormal.sigma", "must be > 0", NULL },
	{ "lognormal sigma < 0 in a listener's think time",
	  "{\"name\": \"t\", \"listeners\": {\"l\": {\"clients\": 1, \"think\": {\"lognormal\": "
	  "{\"median\": 1000, \"sigma\": -1}}}},\n"
	  " \"programs\": {\"main\": [{\"accept\": {\"listener\": \"l\", \"spawn\": \"h\"}}],\n"
	  " \"h\": {\"params\": {\"c\": \"conn\"}, \"body\": [{\"net_read\": \"c\"}]}}}",
	  "$.listeners.l.think.lognormal.sigma", "must be > 0", NULL },
	{ "undefined program",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"spawn\": {\"program\": \"nosuch\"}}]}}",
	  "$.programs.main[0].spawn.program", "no program named 'nosuch'", NULL },
	{ "undefined region",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"touch\": {\"region\": \"nosuch\", "
	  "\"bytes\": 64}}]}}",
	  "$.programs.main[0].touch.region", "no region named 'nosuch'", NULL },
	{ "undefined channel",
	  "{\"name\": \"t\", \"channels\": {\"c\": 0}, \"programs\": {\"main\": [{\"send\": "
	  "{\"chan\": \"d\", \"value\": 1}}]}}",
	  "$.programs.main[0].send.chan", "no chan named 'd'", NULL },
	{ "undefined variable",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"sleep\": {\"+\": [1, \"nosuch\"]}}]}}",
	  "$.programs.main[0].sleep.+[1]", "no variable or parameter named 'nosuch'", NULL },
	{ "undefined variable written",
	  "{\"name\": \"t\", \"channels\": {\"c\": 1}, \"programs\": {\"main\": [{\"recv\": "
	  "{\"chan\": \"c\", \"into\": \"x\"}}]}}",
	  "$.programs.main[0].recv.into", "no variable named 'x'", NULL },
	{ "undefined parameter in spawn args",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"spawn\": {\"program\": \"w\", "
	  "\"args\": {\"m\": 1}}}], \"w\": {\"params\": {\"n\": \"int\"}, \"body\": [\"yield\"]}}}",
	  "$.programs.main[0].spawn.args.m", "program w has no parameter 'm'", NULL },
	{ "a billion goroutines",
	  "{\"name\": \"huge\", \"programs\": {\"main\": [{\"spawn\": {\"program\": \"w\", "
	  "\"count\": 1000000000}}], \"w\": [\"yield\"]}}",
	  "$", "would need about 476.8 GiB", "budget is 4 GiB" },
	{ "a million goroutines in a loop of a thousand",
	  "{\"name\": \"huge\", \"programs\": {\"main\": [{\"loop\": {\"count\": 1000, \"body\": "
	  "[{\"spawn\": {\"program\": \"w\", \"count\": 1000000}}]}}], \"w\": [\"yield\"]}}",
	  "$", "would need about", "1e+09 goroutines" },
	{ "named channels whose buffers pass the budget",
	  "{\"name\": \"t\", \"channels\": {\"c0\": 16777216, \"c1\": 16777216, \"c2\": 16777216, \"c3\": 16777216, \"c4\": 16777216, \"c5\": 16777216, \"c6\": 16777216, \"c7\": 16777216, \"c8\": 16777216, \"c9\": 16777216, \"c10\": 16777216, \"c11\": 16777216, \"c12\": 16777216, \"c13\": 16777216, \"c14\": 16777216, \"c15\": 16777216, \"c16\": 16777216, \"c17\": 16777216, \"c18\": 16777216, \"c19\": 16777216, \"c20\": 16777216, \"c21\": 16777216, \"c22\": 16777216, \"c23\": 16777216, \"c24\": 16777216, \"c25\": 16777216, \"c26\": 16777216, \"c27\": 16777216, \"c28\": 16777216, \"c29\": 16777216, \"c30\": 16777216, \"c31\": 16777216, \"c32\": 16777216, \"c33\": 16777216, \"c34\": 16777216, \"c35\": 16777216, \"c36\": 16777216, \"c37\": 16777216, \"c38\": 16777216, \"c39\": 16777216},\n"
	  " \"programs\": {\"main\": [\"yield\"]}}",
	  "$", "would need about 5.0 GiB", "channels' buffers" },
	{ "recursion without max_depth",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"spawn\": \"a\"}],\n"
	  " \"a\": [{\"spawn\": \"b\"}], \"b\": [{\"spawn\": \"a\"}]}}",
	  "$.programs.a", "spawns itself", "max_depth" },
	{ "syntax error",
	  "{\"name\": \"t\",\n \"programs\": {\"main\": [\n   {\"compute\": 5,}\n]}}",
	  ":3:18:", "syntax error", NULL },
	{ "break outside a loop", "{\"name\": \"t\", \"programs\": {\"main\": [\"break\"]}}",
	  "$.programs.main[0]", "break outside a loop", NULL },
	/* cJSON ends a string at a NUL: "ab\u0000cd" would be read as "ab" */
	{ "a NUL in the workload's name",
	  "{\"name\": \"ab\\u0000cd\", \"programs\": {\"main\": [\"yield\"]}}",
	  "$.name", "holds \\u0000 (NUL)", NULL },
	{ "a NUL in a channel's name, a key",
	  "{\"name\": \"t\", \"channels\": {\"c\\u0000x\": 1}, \"programs\": {\"main\": [\"yield\"]}}",
	  "$.channels", "a key here holds \\u0000", NULL },
	{ "a NUL in a program's name",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"spawn\": \"w\"}], \"w\\u0000\": [\"yield\"]}}",
	  "$.programs", "a key here holds \\u0000", NULL },
	{ "a NUL in an operand deep in a body",
	  "{\"name\": \"t\", \"programs\": {\"main\": {\"vars\": {\"c\": \"chan\"}, \"body\": [\"yield\",\n"
	  "  {\"loop\": {\"count\": 2, \"body\": [{\"chan\": {\"into\": \"c\\u0000zz\"}}]}}]}}}",
	  "$.programs.main.body[1].loop.body[0].chan.into", "holds \\u0000", NULL },
	{ "a negative constant loop count",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"loop\": {\"count\": -5, "
	  "\"body\": [\"yield\"]}}]}}",
	  "$.programs.main[0].loop.count", "must not be negative", "-5" },
	{ "a made channel of capacity 2^32",
	  "{\"name\": \"t\", \"programs\": {\"main\": {\"vars\": {\"c\": \"chan\"}, \"body\": "
	  "[{\"chan\": {\"into\": \"c\", \"cap\": 4294967296}}]}}}",
	  "$.programs.main.body[0].chan.cap", "between 0 and 16777216", "4294967296" },
	{ "a made channel of negative capacity",
	  "{\"name\": \"t\", \"programs\": {\"main\": {\"vars\": {\"c\": \"chan\"}, \"body\": "
	  "[{\"chan\": {\"into\": \"c\", \"cap\": -1}}]}}}",
	  "$.programs.main.body[0].chan.cap", "between 0 and 16777216", "-1" },
	{ "a named channel of capacity 2^32",
	  "{\"name\": \"t\", \"channels\": {\"c\": 4294967296}, \"programs\": {\"main\": [\"yield\"]}}",
	  "$.channels.c", "between 0 and 16777216", "4294967296" },
};

/* The language's operations (json.c's LANG_OPS), as the compiler lists
 * them for an unknown one: each compiles as an operation (its own error,
 * never "unknown operation") and has its row in docs/workload-format.md. */
START_TEST(every_operation_compiles_and_is_documented)
{
	struct err e = { "" };
	ck_assert_ptr_null(wl_compile("ops.json", "{\"name\": \"t\", \"programs\": {\"main\": "
				      "[{\"frob\": 1}]}}", &e));
	const char *list = strstr(e.msg, "expected one of: ");
	ck_assert_msg(list, "%s", e.msg);
	char *names = xstrdup(list + strlen("expected one of: "));
	names[strcspn(names, ")")] = '\0';
	const char *root = getenv("SCHEDLAB_SOURCE_ROOT");
	char *doc_path = xasprintf("%s/docs/workload-format.md", root && *root ? root : ".");
	char *doc = test_read_file(doc_path);
	int n = 0;
	for (char *save = NULL, *name = strtok_r(names, ", ", &save); name;
	     name = strtok_r(NULL, ", ", &save), n++) {
		char *row = xasprintf("| `%s` |", name);
		ck_assert_msg(strstr(doc, row), "%s: no row %s", doc_path, row);
		free(row);
		/* a value no operation takes: the operation's own complaint */
		char *text = xasprintf("{\"name\": \"t\", \"programs\": {\"main\": [{\"%s\": [[]]}]}}",
				       name);
		struct err e2 = { "" };
		struct workload *w = wl_compile("ops.json", text, &e2);
		ck_assert_msg(!w && !strstr(e2.msg, "unknown operation"), "%s: %s", name, e2.msg);
		free(text);
	}
	ck_assert_int_ge(n, 30);
	free(doc);
	free(doc_path);
	free(names);
}
END_TEST

START_TEST(bad_workload_exits_2_naming_file_path_and_problem)
{
	char *path = write_file("bad.json", bad_wl[_i].json);
	char *out, *err;
	int rc = schedlabf(&out, &err, "run -p steal -t numa1 -w '%s'", path);
	ck_assert_msg(rc == 2, "%s: exit %d, printed: %s", bad_wl[_i].what, rc, err);
	ck_assert_str_eq(out, "");
	char *want = NULL;
	/* "FILE: PATH: problem", or for syntax "FILE:line:col: ..." */
	if (bad_wl[_i].path[0] == ':')
		ck_assert_int_ge(asprintf(&want, "%s%s", path, bad_wl[_i].path), 0);
	else
		ck_assert_int_ge(asprintf(&want, "%s: %s: ", path, bad_wl[_i].path), 0);
	ck_assert_msg(strstr(err, want), "%s: no '%s' in: %s", bad_wl[_i].what, want, err);
	ck_assert_msg(strstr(err, bad_wl[_i].gist), "%s: no '%s' in: %s", bad_wl[_i].what,
		      bad_wl[_i].gist, err);
	ck_assert_msg(!bad_wl[_i].gist2 || strstr(err, bad_wl[_i].gist2), "%s: no '%s' in: %s",
		      bad_wl[_i].what, bad_wl[_i].gist2, err);
	/* one message, on one line (a syntax error quotes the text it met,
	 * which may span lines) */
	ck_assert_msg(bad_wl[_i].path[0] == ':' || strchr(err, '\n') == err + strlen(err) - 1,
		      "%s: %s", bad_wl[_i].what, err);
	free(want);
	free(out);
	free(err);
	free(path);
}
END_TEST

/* The same refusals in process: NULL and the message, nothing leaked. */
START_TEST(bad_workload_compiles_to_null)
{
	struct err e = { "" };
	struct workload *w = wl_compile("bad.json", bad_wl[_i].json, &e);
	ck_assert_msg(!w, "%s compiled", bad_wl[_i].what);
	ck_assert_msg(strstr(e.msg, "bad.json") && strstr(e.msg, bad_wl[_i].gist), "%s: %s",
		      bad_wl[_i].what, e.msg);
}
END_TEST

/* "\\u0000" is a backslash and five characters, not a NUL: it stays text;
 * and a trace's header is read as strictly as a workload. */
START_TEST(only_an_escaped_nul_is_refused)
{
	struct err e = { "" };
	struct workload *w = wl_compile("ok.json", "{\"name\": \"a\\\\u0000b\", "
					"\"programs\": {\"main\": [\"yield\"]}}", &e);
	ck_assert_msg(w, "%s", e.msg);
	ck_assert_str_eq(w->name, "a\\u0000b");
	wl_free(w);
	bool is_trace;
	uint64_t seed;
	w = wl_load_text("t.trace", "{\"schedlab_trace\": 1, \"seed\": 1, \"workload\": "
			 "{\"name\": \"x\\u0000y\", \"programs\": {\"main\": [\"yield\"]}}}\n",
			 &is_trace, &seed, &e);
	ck_assert_ptr_null(w);
	ck_assert_msg(strstr(e.msg, "t.trace: line 1: $.workload.name: the string holds \\u0000"),
		      "%s", e.msg);
}
END_TEST

/* ---- Runs that end badly ---- */

START_TEST(deadlock_exits_1_and_says_so)
{
	char *path = write_file("stuck.json",
				"{\"name\": \"stuck\", \"channels\": {\"never\": 0},\n"
				" \"programs\": {\"main\": [{\"spawn\": {\"program\": \"w\", "
				"\"count\": 3}}, {\"recv\": \"never\"}],\n"
				"  \"w\": [{\"compute\": \"1us\"}]}}\n");
	char *out, *err;
	ck_assert_int_eq(schedlabf(&out, &err, "run -p steal -t numa4 -w '%s' --json -", path), 1);
	ck_assert_msg(strstr(err, "fatal error: all goroutines are asleep - deadlock!"), "%s", err);
	ck_assert_msg(strstr(err, "[chan receive]: program main, op 1 (recv)"), "%s", err);
	ck_assert_msg(strstr(err, "(1 goroutines blocked)"), "%s", err);
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	cJSON *m = cJSON_GetObjectItem(o, "metrics");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(m, "deadlock")));
	ck_assert_int_eq(cJSON_GetObjectItem(m, "goroutines")->valueint, 4);
	ck_assert_int_eq(cJSON_GetObjectItem(m, "completed")->valueint, 3);
	cJSON_Delete(o);
	free(out);
	free(err);
	free(path);
}
END_TEST

/* A send or receive on a nil channel, or a select with only nil cases,
 * blocks forever (core/chan.c), each with Go's wait reason. */
START_TEST(nil_channels_block_forever)
{
	char *path = write_file("nil.json",
				"{\"name\": \"nil\", \"programs\": {\"main\": [{\"spawn\": \"s\"}, "
				"{\"send\": {\"chan\": null, \"value\": 1}}],\n"
				"  \"s\": [{\"recv\": null}]}}\n");
	char *out, *err;
	ck_assert_int_eq(schedlabf(&out, &err, "run -p steal -t numa4 -w '%s' --json -", path), 1);
	ck_assert_msg(strstr(err, "fatal error: all goroutines are asleep - deadlock!"), "%s", err);
	ck_assert_msg(strstr(err, "[chan send (nil chan)]: program main, op 1 (send)"), "%s", err);
	ck_assert_msg(strstr(err, "[chan receive (nil chan)]: program s, op 0 (recv)"), "%s", err);
	ck_assert_msg(strstr(err, "(2 goroutines blocked)"), "%s", err);
	free(out);
	free(err);
	free(path);
	/* a select's nil case never fires (its "exit" would end main): the
	 * ready case is taken, then the default, and a select with only nil
	 * cases blocks forever */
	path = write_file("nilsel.json",
			  "{\"name\": \"nilsel\", \"channels\": {\"c\": 1}, \"programs\": {\"main\": "
			  "[{\"send\": \"c\"},\n"
			  " {\"select\": {\"cases\": [{\"recv\": null, \"then\": \"exit\"}, {\"recv\": \"c\"}]}},\n"
			  " {\"select\": {\"cases\": [{\"recv\": null, \"then\": \"exit\"}], "
			  "\"default\": [{\"compute\": \"1us\"}]}},\n"
			  " {\"select\": {\"cases\": [{\"send\": null}]}}]}}\n");
	ck_assert_int_eq(schedlabf(&out, &err, "run -p steal -t numa4 -w '%s' --json -", path), 1);
	ck_assert_msg(strstr(err, "goroutine 1 [select (no cases)]: program main, op 7 (select)"),
		      "%s", err);
	free(out);
	free(err);
	free(path);
}
END_TEST

static const struct {
	const char *what;
	const char *json;
	const char *message;
	const char *args;    /* more options for run, if any */
	const char *where;   /* a run-time budget's: the file's, program's and op's part */
	bool heavy;          /* left out under valgrind and TSan (10,000 Ms) */
} panics[] = {
	{ "divide by zero",
	  "{\"name\": \"t\", \"programs\": {\"main\": {\"vars\": {\"z\": \"int\", \"x\": \"int\"},\n"
	  " \"body\": [{\"set\": {\"x\": {\"/\": [10, \"z\"]}}}]}}}",
	  "panic: runtime error: integer divide by zero", NULL, NULL, false },
	{ "modulo zero",
	  "{\"name\": \"t\", \"programs\": {\"main\": {\"vars\": {\"z\": \"int\", \"x\": \"int\"},\n"
	  " \"body\": [{\"compute\": {\"%\": [10, \"z\"]}}]}}}",
	  "panic: runtime error: integer divide by zero", NULL, NULL, false },
	{ "failed assertion",
	  "{\"name\": \"t\", \"programs\": {\"main\": [\"yield\", {\"assert\": {\"cond\": {\"<\": [2, 1]}, "
	  "\"message\": \"two is less\"}}]}}",
	  "panic: assertion failed: two is less (program main, op 1)", NULL, NULL, false },
	{ "recursion past max_depth",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"spawn\": {\"program\": \"r\", "
	  "\"args\": {\"n\": 10}}}],\n"
	  " \"r\": {\"params\": {\"n\": \"int\"}, \"max_depth\": 3, \"body\": [\n"
	  "  {\"if\": {\"cond\": {\">\": [\"n\", 0]}, \"then\": [\n"
	  "   {\"spawn\": {\"program\": \"r\", \"args\": {\"n\": {\"-\": [\"n\", 1]}}}}]}}]}}}",
	  "panic: program r: recursion deeper than its max_depth 3", NULL, NULL, false },
	/* 1365 GiB alone fits the budget's 357,913,941 pages (at 12 bytes);
	 * after the first GiB it does not, and nothing that large is made */
	{ "allocs past the memory budget",
	  "{\"name\": \"t\", \"programs\": {\"main\": {\"vars\": {\"r\": \"region\"}, \"body\": [\n"
	  " {\"alloc\": {\"into\": \"r\", \"size\": \"1GiB\"}},\n"
	  " {\"alloc\": {\"into\": \"r\", \"size\": \"1365GiB\"}}]}}}",
	  "panic: runtime: out of memory: alloc of 1465657589760 bytes (357826560 page records) would "
	  "take the run past its 4 GiB memory budget",
	  NULL, "panic.json: program main, op 1: alloc)", false },
	/* Run-time budgets [workloads/interp.c: Budgets]: what the compiler
	 * cannot count ends in a panic naming file, program and op, never in
	 * the kernel's OOM killer or exit 3.  A lowered budget keeps them
	 * cheap; the 4 GiB default ends them the same way. */
	{ "a goroutine count held in a variable (2^40)",
	  "{\"name\": \"t\", \"channels\": {\"c\": 0}, \"programs\": {\n"
	  " \"main\": {\"vars\": {\"n\": \"int\"}, \"body\": [\n"
	  "  {\"set\": {\"n\": {\"*\": [1048576, 1048576]}}},\n"
	  "  {\"spawn\": {\"program\": \"w\", \"count\": \"n\"}}]},\n"
	  " \"w\": [\"yield\", {\"recv\": \"c\"}]}}",
	  "panic: runtime: out of memory: a goroutine of program w would take the run past its 16 MiB "
	  "memory budget",
	  "--max-memory 16MiB", "panic.json: program main, op 1: spawn)", false },
	{ "recursion bounded only by its depth (2^41 goroutines)",
	  "{\"name\": \"t\", \"channels\": {\"c\": 0}, \"programs\": {\n"
	  " \"main\": [{\"spawn\": {\"program\": \"r\", \"args\": {\"n\": 40}}}],\n"
	  " \"r\": {\"params\": {\"n\": \"int\"}, \"max_depth\": 41, \"body\": [\n"
	  "  {\"if\": {\"cond\": {\">\": [\"n\", 0]}, \"then\": [\n"
	  "   {\"spawn\": {\"program\": \"r\", \"count\": 2, \"args\": {\"n\": {\"-\": [\"n\", 1]}}}}]}},\n"
	  "  {\"recv\": \"c\"}]}}}",
	  "panic: runtime: out of memory: a goroutine of program r would take the run past its 16 MiB "
	  "memory budget",
	  "--max-memory 16MiB", "panic.json: program r, op 1: spawn)", false },
	{ "a channel of the largest capacity, past a lowered budget",
	  "{\"name\": \"t\", \"programs\": {\"main\": {\"vars\": {\"c\": \"chan\"}, \"body\": [\n"
	  " {\"chan\": {\"into\": \"c\", \"cap\": 16777216}}, {\"send\": {\"chan\": \"c\", \"value\": 1}}]}}}",
	  "panic: runtime: out of memory: a channel of capacity 16777216 (128.0 MiB) would take the "
	  "run past its",
	  "--max-memory 64MiB", "panic.json: program main, op 0: make)", false },
	{ "mutexes made in an endless loop",
	  "{\"name\": \"t\", \"programs\": {\"main\": {\"vars\": {\"mu\": \"mutex\"}, \"body\": [\n"
	  " {\"loop\": {\"count\": 1000000000000, \"body\": [{\"mutex\": \"mu\"}]}}]}}}",
	  "panic: runtime: out of memory: a new mutex would take the run past its 16 MiB memory budget",
	  "--max-memory 16MiB", "panic.json: program main, op 1: make)", false },
	/* Ms: one per goroutine blocked in a system call.  Past the budget,
	 * or past Go's 10000-thread limit (the default budget's case; it
	 * would otherwise exhaust vm.max_map_count, two maps an M) */
	/* 5,000 Gs take 2.5 MiB: an M crosses the budget, not a G, however
	 * fast the spawner goes against the Ms being made */
	{ "Ms for goroutines in system calls, past the budget",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"spawn\": {\"program\": \"s\", "
	  "\"count\": 5000}}],\n \"s\": [{\"syscall\": \"1s\"}]}}",
	  "would take the run past its 16 MiB memory budget (",
	  "--max-memory 16MiB", "panic.json)", false },
	{ "Ms for goroutines in system calls, past the thread limit",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"spawn\": {\"program\": \"s\", "
	  "\"count\": 10500}}],\n \"s\": [{\"syscall\": \"1s\"}]}}",
	  "panic: runtime: program exceeds 10000-thread limit",
	  NULL, "panic.json)", true },
	{ "close of a closed channel",
	  "{\"name\": \"t\", \"channels\": {\"c\": 1}, \"programs\": {\"main\": "
	  "[{\"close\": \"c\"}, {\"close\": \"c\"}]}}",
	  "panic: ", NULL, NULL, false },
	{ "a computed channel capacity past what a channel holds",
	  "{\"name\": \"t\", \"programs\": {\"main\": {\"vars\": {\"c\": \"chan\", \"n\": \"int\"},\n"
	  " \"body\": [{\"set\": {\"n\": 4294967296}}, {\"chan\": {\"into\": \"c\", \"cap\": \"n\"}}]}}}",
	  "panic: makechan: size out of range (4294967296; a channel holds 0 to 16777216)", NULL,
	  "panic.json: program main, op 1: make)", false },
	/* Go's rules, decided in core/chan.c, not the interpreter */
	{ "close of a nil channel",
	  "{\"name\": \"t\", \"programs\": {\"main\": [{\"close\": null}]}}",
	  "panic: close of nil channel [goroutine 1]", NULL, NULL, false },
	{ "a sender woken by the close of its channel",
	  "{\"name\": \"t\", \"channels\": {\"c\": 0}, \"programs\": {\"main\": "
	  "[{\"spawn\": \"s\"}, {\"sleep\": \"1ms\"}, {\"close\": \"c\"}, {\"sleep\": \"1ms\"}],\n"
	  " \"s\": [{\"send\": \"c\"}]}}",
	  "panic: send on closed channel [goroutine 2]", NULL, NULL, false },
};

START_TEST(panic_exits_2_with_go_message)
{
	if (panics[_i].heavy && (test_under_valgrind() || test_under_tsan()))
		return;
	char *path = write_file("panic.json", panics[_i].json);
	char *out, *err;
	int rc = schedlabf(&out, &err, "run -p steal -t numa1 -w '%s' --json - %s", path,
			   panics[_i].args ? panics[_i].args : "");
	ck_assert_msg(rc == 2, "%s: exit %d: %s", panics[_i].what, rc, err);
	ck_assert_msg(strstr(err, panics[_i].message), "%s: %s", panics[_i].what, err);
	if (panics[_i].where)
		ck_assert_msg(strstr(err, panics[_i].where), "%s: %s", panics[_i].what, err);
	cJSON *o = cJSON_Parse(out);
	ck_assert_msg(o, "%s: no report: %s", panics[_i].what, out);
	cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metrics"), "panic");
	ck_assert_msg(cJSON_IsString(p), "%s: no panic in the report", panics[_i].what);
	/* the report has the message, without stderr's "panic: " */
	ck_assert_msg(strstr(p->valuestring, panics[_i].message + strlen("panic: ")), "%s: %s",
		      panics[_i].what, p->valuestring);
	cJSON_Delete(o);
	free(out);
	free(err);
	free(path);
}
END_TEST

/* Recursion within max_depth runs: r(2) -> r(1) -> r(0) is three deep. */
START_TEST(recursion_within_max_depth_completes)
{
	struct rt_result r = run_ok(
		"{\"name\": \"t\", \"programs\": {\"main\": [{\"spawn\": {\"program\": \"r\", "
		"\"args\": {\"n\": 2}}}],\n"
		" \"r\": {\"params\": {\"n\": \"int\"}, \"max_depth\": 3, \"body\": [\n"
		"  {\"if\": {\"cond\": {\">\": [\"n\", 0]}, \"then\": [\n"
		"   {\"spawn\": {\"program\": \"r\", \"count\": 2, \"args\": {\"n\": {\"-\": [\"n\", 1]}}}}]}}]}}}",
		_i);
	ck_assert_uint_eq(r.goroutines, 1 + 1 + 2 + 4);
}
END_TEST

/* A workload's "stacks" natively: each G writes its declared frame on its
 * real stack when it runs.  200 Gs each write a 128 KiB frame, say they
 * are ready and wait, all at once (main closes the gate only when all are
 * ready), so 200 stacks hold the frame's fresh pages each: the run faults
 * in at least 3/4 of them more than the same workload without stacks
 * (minor faults: a count, whatever the host's load). */
static const char stacked_text[] =
	"{\"name\": \"t\", %s\"channels\": {\"go\": 0}, \"waitgroups\": [\"ready\", \"wg\"],\n"
	" \"programs\": {\"main\": [{\"wg_add\": {\"wg\": \"wg\", \"n\": 200}},\n"
	"  {\"wg_add\": {\"wg\": \"ready\", \"n\": 200}},\n"
	"  {\"spawn\": {\"program\": \"w\", \"count\": 200}},\n"
	"  {\"wg_wait\": \"ready\"}, {\"close\": \"go\"}, {\"wg_wait\": \"wg\"}],\n"
	" \"w\": [{\"wg_done\": \"ready\"}, {\"recv\": {\"chan\": \"go\"}}, {\"wg_done\": \"wg\"}]}}";

static long faults_of_native_run(const char *stacks)
{
	char *text = NULL;
	ck_assert_int_ge(asprintf(&text, stacked_text, stacks), 0);
	struct rusage before, after;
	getrusage(RUSAGE_SELF, &before);
	run_ok(text, 1);
	getrusage(RUSAGE_SELF, &after);
	free(text);
	return after.ru_minflt - before.ru_minflt;
}

START_TEST(native_run_writes_the_declared_stack_frame)
{
	faults_of_native_run("");   /* the first native run's own faults go here */
	long plain = faults_of_native_run("");
	long stacked = faults_of_native_run("\"stacks\": {\"size\": \"256KiB\", \"frame\": \"128KiB\"},\n");
	long pages = (128 << 10) / sysconf(_SC_PAGESIZE);
	ck_assert_msg(stacked >= plain + 200 * pages * 3 / 4,
		      "200 Gs' 128 KiB frames faulted %ld pages, without stacks %ld", stacked, plain);
}
END_TEST

/* ... which a native G's stack bounds; a simulated run has no such bound. */
START_TEST(native_frame_past_the_stack_exits_2)
{
	char *path = write_file("big.json",
				"{\"name\": \"big\", \"stacks\": {\"size\": \"1MiB\", \"frame\": \"256KiB\"},\n"
				" \"programs\": {\"main\": [{\"compute\": \"1us\"}]}}");
	char *out = NULL, *err = NULL;
	ck_assert_int_eq(schedlabf(&out, &err, "run -p steal --native -w '%s'", path), 2);
	ck_assert_msg(strstr(err, path) && strstr(err, "stacks.frame") && strstr(err, "128 KiB"),
		      "%s", err);
	free(out), free(err);
	ck_assert_int_eq(schedlabf(&out, &err, "run -p steal -w '%s'", path), 0);
	free(out), free(err), free(path);
}
END_TEST

/* ---- What the language's constructs do ---- */

/* A loop's var counts 0..n-1; nested loops; the count may be computed. */
START_TEST(loop_var_counts_from_zero)
{
	run_ok("{\"name\": \"t\", \"programs\": {\"main\": {\n"
	       " \"vars\": {\"i\": \"int\", \"j\": \"int\", \"n\": \"int\", \"s\": \"int\", \"k\": \"int\"},\n"
	       " \"body\": [\n"
	       "  {\"loop\": {\"count\": 10, \"var\": \"i\", \"body\": [\n"
	       "    {\"assert\": {\"cond\": {\"==\": [\"i\", \"n\"]}, \"message\": \"i counts 0..9\"}},\n"
	       "    {\"set\": {\"n\": {\"+\": [\"n\", 1]}, \"s\": {\"+\": [\"s\", \"i\"]}}}]}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [\"n\", 10]}, \"message\": \"ten times\"}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [\"s\", 45]}, \"message\": \"sum 0..9\"}},\n"
	       "  {\"loop\": {\"count\": {\"-\": [\"n\", 7]}, \"var\": \"i\", \"body\": [\n"
	       "    {\"loop\": {\"count\": \"i\", \"var\": \"j\", \"body\": [\n"
	       "      {\"assert\": {\"cond\": {\"<\": [\"j\", \"i\"]}, \"message\": \"j < i\"}},\n"
	       "      {\"set\": {\"k\": {\"+\": [\"k\", 1]}}}]}}]}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [\"k\", 3]}, \"message\": \"0 + 1 + 2 inner rounds\"}},\n"
	       "  {\"loop\": {\"count\": 0, \"body\": [{\"assert\": {\"cond\": 0, "
	       "\"message\": \"a loop of 0 runs its body\"}}]}},\n"
	       "  {\"loop\": {\"count\": {\"-\": [\"k\", 8]}, \"body\": [{\"assert\": {\"cond\": 0, "
	       "\"message\": \"a computed count of -5 runs its body\"}}]}}\n"
	       " ]}}}",
	       _i);
}
END_TEST

/* if with and without else, conditions from comparisons and logic. */
START_TEST(if_else_takes_one_branch)
{
	run_ok("{\"name\": \"t\", \"programs\": {\"main\": {\n"
	       " \"vars\": {\"x\": \"int\", \"y\": \"int\"},\n"
	       " \"body\": [\n"
	       "  {\"set\": {\"x\": 5}},\n"
	       "  {\"if\": {\"cond\": {\">\": [\"x\", 3]}, \"then\": [{\"set\": {\"y\": 1}}],\n"
	       "           \"else\": [{\"set\": {\"y\": 2}}]}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [\"y\", 1]}, \"message\": \"then taken\"}},\n"
	       "  {\"if\": {\"cond\": {\"<\": [\"x\", 3]}, \"then\": [{\"set\": {\"y\": 10}}],\n"
	       "           \"else\": [{\"set\": {\"y\": 20}}]}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [\"y\", 20]}, \"message\": \"else taken\"}},\n"
	       "  {\"if\": {\"cond\": 0, \"then\": [{\"set\": {\"y\": 30}}]}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [\"y\", 20]}, \"message\": \"no else: nothing\"}},\n"
	       "  {\"if\": {\"cond\": {\"and\": [{\"==\": [\"x\", 5]}, {\"not\": [{\"!=\": [\"y\", 20]}]}]},\n"
	       "           \"then\": [{\"set\": {\"y\": 40}}]}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [\"y\", 40]}, \"message\": \"and, not, !=\"}},\n"
	       "  {\"loop\": {\"count\": 100, \"var\": \"x\", \"body\": [\n"
	       "    {\"if\": {\"cond\": {\"==\": [\"x\", 3]}, \"then\": [\"break\"]}},\n"
	       "    {\"set\": {\"y\": \"x\"}}]}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [\"y\", 2]}, \"message\": \"break in an if leaves the loop\"}}\n"
	       " ]}}}",
	       _i);
}
END_TEST

/* Expressions: arithmetic, comparisons, min/max, logic; / and % truncate
 * toward zero as Go's do. */
START_TEST(expressions_compute_as_go)
{
	run_ok("{\"name\": \"t\", \"programs\": {\"main\": {\n"
	       " \"vars\": {\"a\": \"int\", \"b\": \"int\"},\n"
	       " \"body\": [\n"
	       "  {\"set\": {\"a\": 7, \"b\": -2}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [{\"+\": [\"a\", \"b\"]}, 5]}, \"message\": \"+\"}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [{\"-\": [\"a\", \"b\"]}, 9]}, \"message\": \"-\"}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [{\"*\": [\"a\", \"b\"]}, -14]}, \"message\": \"*\"}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [{\"/\": [\"a\", \"b\"]}, -3]}, \"message\": \"/\"}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [{\"%\": [\"a\", \"b\"]}, 1]}, \"message\": \"%\"}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [{\"%\": [{\"-\": [0, \"a\"]}, 2]}, -1]}, \"message\": \"% of a negative\"}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [{\"min\": [\"a\", \"b\"]}, -2]}, \"message\": \"min\"}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [{\"max\": [\"a\", \"b\"]}, 7]}, \"message\": \"max\"}},\n"
	       "  {\"assert\": {\"cond\": {\"<=\": [\"a\", 7]}, \"message\": \"<=\"}},\n"
	       "  {\"assert\": {\"cond\": {\">=\": [\"a\", 7]}, \"message\": \">=\"}},\n"
	       "  {\"assert\": {\"cond\": {\"not\": [{\"<\": [\"a\", \"b\"]}]}, \"message\": \"<\"}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [{\"or\": [0, \"b\"]}, 1]}, \"message\": \"or is 0 or 1\"}},\n"
	       "  {\"assert\": {\"cond\": {\"==\": [{\"and\": [\"a\", 0]}, 0]}, \"message\": \"and\"}},\n"
	       "  {\"set\": {\"a\": {\"uniform\": {\"min\": 3, \"max\": 4}}}},\n"
	       "  {\"assert\": {\"cond\": {\"and\": [{\">=\": [\"a\", 3]}, {\"<=\": [\"a\", 4]}]}, "
	       "\"message\": \"a sample in range\"}}\n"
	       " ]}}}",
	       _i);
}
END_TEST

/* spawn args (values, expressions, channels), channels made at run time,
 * recv into, wait groups. */
START_TEST(spawn_args_and_recv_into)
{
	struct rt_result r = run_ok(
		"{\"name\": \"t\", \"waitgroups\": [\"wg\"], \"programs\": {\n"
		" \"main\": {\"vars\": {\"c\": \"chan\", \"v\": \"int\", \"s\": \"int\", \"i\": \"int\"},\n"
		"  \"body\": [\n"
		"   {\"chan\": {\"into\": \"c\", \"cap\": 0}},\n"
		"   {\"spawn\": {\"program\": \"mul\", \"args\": {\"out\": \"c\", \"x\": 3, \"y\": {\"*\": [2, 5]}}}},\n"
		"   {\"recv\": {\"chan\": \"c\", \"into\": \"v\"}},\n"
		"   {\"assert\": {\"cond\": {\"==\": [\"v\", 30]}, \"message\": \"3 * 10\"}},\n"
		"   {\"wg_add\": {\"wg\": \"wg\", \"n\": 5}},\n"
		"   {\"loop\": {\"count\": 5, \"var\": \"i\", \"body\": [\n"
		"     {\"spawn\": {\"program\": \"mul\", \"args\": {\"out\": \"c\", \"x\": \"i\", \"y\": \"i\"}}}]}},\n"
		"   {\"loop\": {\"count\": 5, \"body\": [\n"
		"     {\"recv\": {\"chan\": \"c\", \"into\": \"v\"}},\n"
		"     {\"set\": {\"s\": {\"+\": [\"s\", \"v\"]}}}]}},\n"
		"   {\"assert\": {\"cond\": {\"==\": [\"s\", 30]}, \"message\": \"0+1+4+9+16\"}},\n"
		"   {\"wg_wait\": \"wg\"}\n"
		"  ]},\n"
		" \"mul\": {\"params\": {\"out\": \"chan\", \"x\": \"int\", \"y\": \"int\"},\n"
		"  \"body\": [{\"send\": {\"chan\": \"out\", \"value\": {\"*\": [\"x\", \"y\"]}}},\n"
		"           {\"if\": {\"cond\": {\"!=\": [\"y\", 10]}, \"then\": [{\"wg_done\": \"wg\"}]}}]}}}",
		_i);
	ck_assert_uint_eq(r.goroutines, 7);
}
END_TEST

/* spawn with "after" (time.AfterFunc): the Gs start when their timers
 * fire, with the arguments the spawner evaluated at the spawn, and their
 * request_begin "arrival" is the instant the timer was due -- so main's
 * request (the spawn to the last callback) takes the delay, and each
 * callback's (its lateness) far less. */
START_TEST(spawn_after_starts_later)
{
	struct rt_result r = run_ok(
		"{\"name\": \"t\", \"waitgroups\": [\"wg\"], \"programs\": {\n"
		" \"main\": {\"vars\": {\"k\": \"int\"}, \"body\": [\n"
		"   {\"set\": {\"k\": 5}}, {\"wg_add\": {\"wg\": \"wg\", \"n\": 3}},\n"
		"   {\"request_begin\": \"now\"},\n"
		"   {\"spawn\": {\"program\": \"cb\", \"count\": 3, \"after\": \"20ms\","
		"    \"args\": {\"k\": \"k\"}}},\n"
		"   {\"set\": {\"k\": 6}}, {\"wg_wait\": \"wg\"}, \"request_end\"]},\n"
		" \"cb\": {\"params\": {\"k\": \"int\"}, \"body\": [\n"
		"   {\"request_begin\": \"arrival\"},\n"
		"   {\"assert\": {\"cond\": {\"==\": [\"k\", 5]}, \"message\": \"k at the spawn\"}},\n"
		"   \"request_end\", {\"wg_done\": \"wg\"}]}}}",
		_i);
	ck_assert_uint_eq(r.goroutines, 4);
	ck_assert_uint_eq(r.requests, 4);
	ck_assert_uint_ge(r.request_latency.max, 20000000);
	/* the three callbacks' lateness below the spawner's wait */
	ck_assert_uint_lt(hist_quantile(&r.request_latency, 0.75), 20000000);
}
END_TEST

/* select: a receive case with a body, default, a case that breaks out of
 * the enclosing loop, a send case, a case that ends the G. */
START_TEST(select_cases_bodies_and_break)
{
	run_ok("{\"name\": \"t\", \"channels\": {\"a\": 1, \"b\": 1, \"d\": 1, \"done\": 0},\n"
	       " \"programs\": {\n"
	       " \"main\": {\"vars\": {\"v\": \"int\", \"got\": \"int\", \"defs\": \"int\", \"k\": \"int\",\n"
	       "   \"sent\": \"int\"},\n"
	       "  \"body\": [\n"
	       "   {\"send\": {\"chan\": \"a\", \"value\": 7}},\n"
	       "   {\"loop\": {\"count\": 5, \"body\": [\n"
	       "     {\"select\": {\"cases\": [\n"
	       "        {\"recv\": \"a\", \"into\": \"v\", \"then\": [{\"set\": {\"got\": \"v\"}}]},\n"
	       "        {\"recv\": \"b\", \"then\": \"break\"}],\n"
	       "      \"default\": [{\"set\": {\"defs\": {\"+\": [\"defs\", 1]}}},\n"
	       "                  {\"send\": {\"chan\": \"b\", \"value\": 1}}]}},\n"
	       "     {\"set\": {\"k\": {\"+\": [\"k\", 1]}}}]}},\n"
	       "   {\"assert\": {\"cond\": {\"==\": [\"got\", 7]}, \"message\": \"recv into, then body\"}},\n"
	       "   {\"assert\": {\"cond\": {\"==\": [\"defs\", 1]}, \"message\": \"default once\"}},\n"
	       "   {\"assert\": {\"cond\": {\"==\": [\"k\", 2]}, \"message\": \"break left the loop\"}},\n"
	       "   {\"select\": {\"cases\": [\n"
	       "      {\"recv\": \"b\", \"then\": [{\"set\": {\"sent\": -1}}]},\n"
	       "      {\"send\": \"d\", \"value\": 42, \"then\": [{\"set\": {\"sent\": 1}}]}]}},\n"
	       "   {\"assert\": {\"cond\": {\"==\": [\"sent\", 1]}, \"message\": \"the ready case fires\"}},\n"
	       "   {\"recv\": {\"chan\": \"d\", \"into\": \"v\"}},\n"
	       "   {\"assert\": {\"cond\": {\"==\": [\"v\", 42]}, \"message\": \"the value sent\"}},\n"
	       "   {\"spawn\": \"quitter\"},\n"
	       "   {\"recv\": {\"chan\": \"done\", \"into\": \"v\"}},\n"
	       "   {\"assert\": {\"cond\": {\"==\": [\"v\", 5]}, \"message\": \"blocking select woken\"}}\n"
	       "  ]},\n"
	       " \"quitter\": {\"vars\": {\"x\": \"int\"}, \"body\": [\n"
	       "   {\"sleep\": \"10us\"},\n"
	       "   {\"select\": {\"cases\": [\n"
	       "      {\"recv\": \"a\", \"then\": [{\"set\": {\"x\": 99}}]},\n"
	       "      {\"send\": \"done\", \"value\": 5, \"then\": \"exit\"}]}},\n"
	       "   {\"assert\": {\"cond\": 0, \"message\": \"exit case ends the G\"}}]}}}",
	       _i);
}
END_TEST

/* set: several at once, parameters too, a distribution sampled each time. */
START_TEST(set_assigns_variables_and_parameters)
{
	run_ok("{\"name\": \"t\", \"channels\": {\"r\": 0}, \"programs\": {\n"
	       " \"main\": {\"vars\": {\"a\": \"int\", \"b\": \"int\", \"v\": \"int\", \"c\": \"chan\"},\n"
	       "  \"body\": [\n"
	       "   {\"set\": {\"a\": 3, \"b\": {\"+\": [\"a\", 1]}}},\n"
	       "   {\"assert\": {\"cond\": {\"==\": [\"b\", 4]}, \"message\": \"in order\"}},\n"
	       "   {\"set\": {\"c\": \"r\"}},\n"
	       "   {\"spawn\": {\"program\": \"p\", \"args\": {\"n\": 5, \"out\": \"c\"}}},\n"
	       "   {\"recv\": {\"chan\": \"r\", \"into\": \"v\"}},\n"
	       "   {\"assert\": {\"cond\": {\"==\": [\"v\", 50]}, \"message\": \"parameter set\"}}]},\n"
	       " \"p\": {\"params\": {\"n\": \"int\", \"out\": \"chan\"}, \"body\": [\n"
	       "   {\"set\": {\"n\": {\"*\": [\"n\", 10]}}},\n"
	       "   {\"send\": {\"chan\": \"out\", \"value\": \"n\"}}]}}}",
	       _i);
}
END_TEST

/* A closed-loop server: 4 clients, 3 requests each, a think time between;
 * the handler loops until its client's end of file, then goes on (and
 * says so on a wait group). */
static const char closed_loop[] =
	"{\"name\": \"closed\", \"waitgroups\": [\"wg\"],\n"
	" \"listeners\": {\"l\": {\"clients\": 4, \"requests\": 3, \"think\": \"50us\"}},\n"
	" \"programs\": {\n"
	"  \"main\": [{\"wg_add\": {\"wg\": \"wg\", \"n\": 4}},\n"
	"            {\"accept\": {\"listener\": \"l\", \"spawn\": \"handler\"}},\n"
	"            {\"wg_wait\": \"wg\"}],\n"
	"  \"handler\": {\"params\": {\"c\": \"conn\"}, \"vars\": {\"n\": \"int\"}, \"body\": [\n"
	"   {\"loop\": {\"count\": 1000, \"body\": [\n"
	"     {\"net_read\": {\"conn\": \"c\", \"eof\": \"break\"}},\n"
	"     {\"request_begin\": \"arrival\"},\n"
	"     {\"compute\": \"20us\"},\n"
	"     {\"net_write\": \"c\"},\n"
	"     \"request_end\",\n"
	"     {\"set\": {\"n\": {\"+\": [\"n\", 1]}}}]}},\n"
	"   {\"assert\": {\"cond\": {\"==\": [\"n\", 3]}, \"message\": \"three requests\"}},\n"
	"   {\"wg_done\": \"wg\"}]}}}\n";

START_TEST(closed_loop_server_reports_request_latency)
{
	char *path = write_file("closed.json", closed_loop);
	char *out, *err;
	ck_assert_int_eq(schedlabf(&out, &err, "run -p steal -t numa2 --procs 4 -w '%s' --json -",
				   path), 0);
	ck_assert_str_eq(err, "");
	cJSON *o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	cJSON *m = cJSON_GetObjectItem(o, "metrics");
	ck_assert_int_eq(cJSON_GetObjectItem(m, "goroutines")->valueint, 5);
	ck_assert_int_eq(cJSON_GetObjectItem(m, "completed")->valueint, 5);
	ck_assert_int_eq(cJSON_GetObjectItem(m, "requests")->valueint, 12);
	cJSON *lat = cJSON_GetObjectItem(m, "request_latency_ns");
	ck_assert_ptr_nonnull(lat);
	/* at least the 20 us of work each */
	ck_assert_double_ge(cJSON_GetObjectItem(lat, "p50")->valuedouble, 20000);
	ck_assert_double_ge(cJSON_GetObjectItem(lat, "max")->valuedouble,
			    cJSON_GetObjectItem(lat, "p50")->valuedouble);
	/* three requests in turn with 50 us of think between: >= 3 x 20 + 2 x 50 us */
	ck_assert_double_ge(cJSON_GetObjectItem(m, "makespan_ns")->valuedouble, 160000);
	cJSON_Delete(o);
	free(out);
	free(err);
	free(path);
}
END_TEST

/* The same in process, both platforms: the handler's code after its loop
 * runs (main waits for it). */
START_TEST(closed_loop_server_completes)
{
	struct rt_result r = run_ok(closed_loop, _i);
	ck_assert_uint_eq(r.requests, 12);
	ck_assert_uint_eq(r.request_latency.count, 12);
	ck_assert_uint_eq(r.goroutines, 5);
}
END_TEST

/* An open-loop listener whose handler exits at end of file (the default). */
START_TEST(open_loop_handler_exits_at_eof)
{
	struct rt_result r = run_ok(
		"{\"name\": \"open\", \"listeners\": {\"l\": {\"connections\": 10, \"interval\": \"5us\", "
		"\"requests\": 2}},\n"
		" \"programs\": {\n"
		"  \"main\": [{\"accept\": {\"listener\": \"l\", \"spawn\": \"h\"}}],\n"
		"  \"h\": {\"params\": {\"c\": \"conn\"}, \"body\": [\n"
		"   {\"loop\": {\"count\": 5, \"body\": [\n"
		"     {\"net_read\": \"c\"}, \"request_begin\", {\"compute\": \"1us\"}, {\"net_write\": \"c\"},\n"
		"     \"request_end\"]}},\n"
		"   {\"assert\": {\"cond\": 0, \"message\": \"eof ends the G\"}}]}}}",
		_i);
	ck_assert_uint_eq(r.requests, 20);
	ck_assert_uint_eq(r.goroutines, 11);
}
END_TEST

Suite *make_workloads_suite(void)
{
	Suite *s = suite_create("workloads");
	TCase *tc = tcase_create("catalog");
	tcase_add_loop_test(tc, catalog_workload_completes_numa4, 0, wl_catalog_count());
	tcase_add_loop_test(tc, catalog_workload_completes_numa1, 0, wl_catalog_count());
	tcase_add_test(tc, list_workloads_lists_the_catalog);
	tcase_set_timeout(tc, 300);
	/* simulations: ThreadSanitizer's build is for the native threads, and
	 * these 26 runs at up to 64 Ps took it past 20 minutes on a busy host */
	tcase_set_tags(tc, TEST_SIM_ONLY);
	suite_add_tcase(s, tc);

	tc = tcase_create("replay");
	tcase_add_unchecked_fixture(tc, tmpdir_setup, tmpdir_teardown);
	tcase_add_test(tc, same_seed_same_report_other_seed_other_samples);
	tcase_add_test(tc, trace_replays_the_run_exactly);
	tcase_add_test(tc, trace_values_are_used);
	tcase_add_loop_test(tc, bad_trace_line_exits_2_naming_the_line, 0,
			    (int)(sizeof(bad_trace) / sizeof(bad_trace[0])));
	tcase_set_timeout(tc, 300);
	tcase_set_tags(tc, TEST_SIM_ONLY);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, every_operation_compiles_and_is_documented);
	tcase_add_unchecked_fixture(tc, tmpdir_setup, tmpdir_teardown);
	tcase_add_loop_test(tc, bad_workload_exits_2_naming_file_path_and_problem, 0,
			    (int)(sizeof(bad_wl) / sizeof(bad_wl[0])));
	tcase_add_loop_test(tc, bad_workload_compiles_to_null, 0,
			    (int)(sizeof(bad_wl) / sizeof(bad_wl[0])));
	tcase_add_test(tc, only_an_escaped_nul_is_refused);
	tcase_add_test(tc, deadlock_exits_1_and_says_so);
	tcase_add_test(tc, nil_channels_block_forever);
	tcase_add_loop_test(tc, panic_exits_2_with_go_message, 0,
			    (int)(sizeof(panics) / sizeof(panics[0])));
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	/* the language's constructs: _i 0 simulated, 1 native */
	tc = tcase_create("language");
	tcase_add_unchecked_fixture(tc, tmpdir_setup, tmpdir_teardown);
	tcase_add_loop_test(tc, loop_var_counts_from_zero, test_first_mode(), test_modes());
	tcase_add_loop_test(tc, if_else_takes_one_branch, test_first_mode(), test_modes());
	tcase_add_loop_test(tc, expressions_compute_as_go, test_first_mode(), test_modes());
	tcase_add_loop_test(tc, spawn_after_starts_later, test_first_mode(), test_modes());
	tcase_add_loop_test(tc, spawn_args_and_recv_into, test_first_mode(), test_modes());
	tcase_add_loop_test(tc, select_cases_bodies_and_break, test_first_mode(), test_modes());
	tcase_add_loop_test(tc, set_assigns_variables_and_parameters, test_first_mode(), test_modes());
	tcase_add_loop_test(tc, recursion_within_max_depth_completes, test_first_mode(), test_modes());
	tcase_add_test(tc, closed_loop_server_reports_request_latency);
	tcase_add_loop_test(tc, closed_loop_server_completes, test_first_mode(), test_modes());
	tcase_add_loop_test(tc, open_loop_handler_exits_at_eof, test_first_mode(), test_modes());
	tcase_add_loop_test(tc, native_run_writes_the_declared_stack_frame, 1, test_modes());
	tcase_add_loop_test(tc, native_frame_past_the_stack_exits_2, 1, test_modes());
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}
