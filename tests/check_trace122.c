/* Go 1.22's execution-trace format (suite "trace", trace/go122.c):
 * `run --trace FILE' writes it by default; schedlab's own reader
 * (trace/read122.c, which `workload import' uses) reads every catalog
 * workload's trace back, simulated and native, with the goroutines,
 * runs and blocks the run's report counts; Go 1.26's `go tool trace'
 * (whose -d=parsed checks every event against its state) accepts the
 * same traces and counts as schedlab's reader does, and its
 * scheduler-latency profile names the programs; a trace cut into many
 * generations reads as the same trace; a simulated trace needs no
 * repair; and --trace-format picks the format.
 *
 * Without Go 1.26 (scripts/find-go 1.26) the cases that need it say so
 * in one line on stderr and check what they can without it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/trace.h"
#include "tests/tests.h"
#include "topologies/topo.h"
#include "trace/import.h"
#include "trace/trace.h"
#include "workloads/json.h"

static char tmpdir[64];

static void tmpdir_setup(void)
{
	test_tmpdir(tmpdir, sizeof(tmpdir), "trace122");
}

static void tmpdir_teardown(void)
{
	test_rm_rf(tmpdir);
}

/* Every catalog and built-in workload; under ThreadSanitizer or valgrind
 * the first six only (their runs are many times slower, and the plain and
 * ASan builds run them all). */
static int nworkloads(void)
{
	int n = wl_catalog_count() + wl_builtin_count();
	if ((test_under_tsan() || test_under_valgrind()) && n > 6)
		n = 6;
	return n;
}

static const char *workload_name(int i)
{
	return i < wl_catalog_count() ? wl_catalog_name(i) : wl_builtin_name(i - wl_catalog_count());
}

/* Runs too big to trace natively in a test (a million goroutines). */
static bool native_heavy(const char *name)
{
	return strcmp(name, "skynet") == 0 || strcmp(name, "spawn-wide") == 0 ||
	       strcmp(name, "fib") == 0;
}

/* metrics.NAME of the JSON report at path (0 if optional and absent). */
static uint64_t report_metric(const char *path, const char *name, bool optional)
{
	char *text = test_read_file(path);
	cJSON *o = cJSON_Parse(text);
	free(text);
	ck_assert_msg(o, "%s: not JSON", path);
	cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metrics"), name);
	ck_assert_msg(cJSON_IsNumber(v) || (optional && !v), "%s: no metrics.%s", path, name);
	uint64_t x = v ? (uint64_t)v->valuedouble : 0;
	cJSON_Delete(o);
	return x;
}

static void assert_header(const char *path, const char *want)
{
	char head[17] = { 0 };
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(head, 1, 16, f);
	fclose(f);
	ck_assert_msg(n >= strlen(want) && memcmp(head, want, strlen(want)) == 0,
		      "%s starts with '%.16s', not '%s'", path, head, want);
}

/* ---- What a reader found ---- */

struct counts {
	uint64_t creates, starts, restarts, blocks, unblocks, syscalls, ends, task_begin,
		task_end, logs;
	int64_t procs;
};

/* The trace at path as schedlab's own reader gives it (trace/import.h). */
static struct counts read_back(const char *path)
{
	struct counts c = { 0 };
	struct err e = { "" };
	struct ti_reader *r = ti_open(path, &e);
	ck_assert_msg(r, "schedlab's reader refused %s: %s", path, e.msg);
	struct ti_event ev;
	int got;
	while ((got = ti_next(r, &ev, &e)) == 1) {
		switch ((enum ti_kind)ev.kind) {
		case TI_PROCS: c.procs = ev.arg; break;
		case TI_G_EXISTS:
		case TI_G_CREATE: c.creates++; break;
		case TI_G_START: c.starts++; break;
		case TI_G_BLOCK: c.blocks++; break;
		case TI_G_UNBLOCK: c.unblocks++; break;
		case TI_G_END: c.ends++; break;
		case TI_SYSCALL: c.syscalls++; break;
		case TI_SYSCALL_END: c.restarts += ev.arg == 2; break;
		case TI_USER_TASK: c.task_begin += ev.arg > 0; c.task_end += ev.arg < 0; break;
		case TI_G_STOP: break;
		}
	}
	ck_assert_msg(got == 0, "schedlab's reader: %s", e.msg);
	ti_close(r);
	return c;
}

/* One pass, by hand: a strstr loop is quadratic under AddressSanitizer,
 * whose strstr measures the whole rest of the text at every call (Go's
 * dump of a 5 ms run is megabytes; the loop took ASan's trace suite past
 * its 30 minutes in CI). */
static uint64_t count_lines(const char *text, const char *needle)
{
	size_t len = strlen(needle);
	uint64_t n = 0;
	for (const char *p = text; *p; p++) {
		if (*p == needle[0] && strncmp(p, needle, len) == 0) {
			n++;
			p += len - 1;
		}
	}
	return n;
}

/* The trace at path as Go 1.26's reader gives it (go tool trace
 * -d=parsed: every event, after its checks); false if there is no Go
 * 1.26.  Fails the test if Go refuses the trace. */
static bool go_reads(const char *path, struct counts *c, uint64_t *syncs, char **text)
{
	const char *go = test_go126();
	if (!go)
		return false;
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err, "'%s' tool trace -d=parsed '%s'", go, path);
	ck_assert_msg(rc == 0, "Go 1.26's go tool trace refused %s: %.2000s", path, err);
	*c = (struct counts){ 0 };
	c->creates = count_lines(out, " NotExist->Runnable");
	c->starts = count_lines(out, " Runnable->Running");
	c->blocks = count_lines(out, " Running->Waiting");
	c->unblocks = count_lines(out, " Waiting->Runnable");
	c->syscalls = count_lines(out, " Running->Syscall");
	c->ends = count_lines(out, " Running->NotExist");
	c->task_begin = count_lines(out, " TaskBegin ");
	c->task_end = count_lines(out, " TaskEnd ");
	c->logs = count_lines(out, " Log ");
	if (syncs)
		*syncs = count_lines(out, " Sync ");
	if (text)
		*text = out;
	else
		free(out);
	free(err);
	return true;
}

/* Both readers saw the same trace. */
static void assert_same(const struct counts *a, const struct counts *b, const char *what)
{
	ck_assert_msg(a->creates == b->creates && a->starts == b->starts && a->blocks == b->blocks &&
		      a->unblocks == b->unblocks && a->syscalls == b->syscalls && a->ends == b->ends &&
		      a->task_begin == b->task_begin && a->task_end == b->task_end,
		      "%s: goroutines %llu/%llu, starts %llu/%llu, blocks %llu/%llu, unblocks "
		      "%llu/%llu, syscalls %llu/%llu, ends %llu/%llu, tasks %llu/%llu, %llu/%llu", what,
		      (unsigned long long)a->creates, (unsigned long long)b->creates,
		      (unsigned long long)a->starts, (unsigned long long)b->starts,
		      (unsigned long long)a->blocks, (unsigned long long)b->blocks,
		      (unsigned long long)a->unblocks, (unsigned long long)b->unblocks,
		      (unsigned long long)a->syscalls, (unsigned long long)b->syscalls,
		      (unsigned long long)a->ends, (unsigned long long)b->ends,
		      (unsigned long long)a->task_begin, (unsigned long long)b->task_begin,
		      (unsigned long long)a->task_end, (unsigned long long)b->task_end);
}

/* ---- From the command ---- */

/* Runs workload i (mode 0 simulated, 1 native) with --trace in the
 * default format; both readers read it back with the report's counts. */
static void run_and_read(int i, int mode)
{
	const char *name = workload_name(i);
	const char *pol = sim__rt_api.pol_at(i % sim__rt_api.pol_count())->name;
	const char *how = mode ? "native" : "sim";
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err, "timeout 300 '%s' run -p %s -w %s %s --trace %s/t.out "
			   "--json %s/r.json", test_schedlab_bin(), pol, name,
			   mode == 0 ? "-t numa4 --procs 4 --max-sim-time 5ms" : "--native --procs 2",
			   tmpdir, tmpdir);
	ck_assert_msg(rc == 0 || (mode == 0 && rc == 4), "%s under %s (%s): exit %d: %s", name, pol,
		      how, rc, err);
	free(out);
	free(err);
	char path[128], report[128];
	snprintf(path, sizeof(path), "%s/t.out", tmpdir);
	snprintf(report, sizeof(report), "%s/r.json", tmpdir);
	assert_header(path, "go 1.22 trace");
	struct counts c = read_back(path);
	uint64_t gs = report_metric(report, "goroutines", false);
	uint64_t runs = report_metric(report, "runs", false);
	uint64_t blocks = report_metric(report, "blocks", false);
	uint64_t reqs = report_metric(report, "requests", true);
	ck_assert_msg(c.creates == gs && c.starts - c.restarts == runs && c.blocks == blocks,
		      "%s under %s (%s): the trace has %llu goroutines, %llu starts (%llu back from "
		      "a system call), %llu blocks; the report %llu, %llu runs, %llu", name, pol, how,
		      (unsigned long long)c.creates, (unsigned long long)c.starts,
		      (unsigned long long)c.restarts, (unsigned long long)c.blocks,
		      (unsigned long long)gs, (unsigned long long)runs, (unsigned long long)blocks);
	ck_assert_uint_gt(c.starts, 0);
	ck_assert_int_eq(c.procs, mode ? 2 : 4);
	/* every request answered is a task ended; one cut short by the end
	 * of the run is only begun */
	ck_assert_msg(c.task_end == reqs && c.task_begin >= reqs,
		      "%s under %s (%s): %llu requests answered, the trace's tasks %llu begun, "
		      "%llu ended", name, pol, how, (unsigned long long)reqs,
		      (unsigned long long)c.task_begin, (unsigned long long)c.task_end);
	struct counts g;
	char label[128];
	snprintf(label, sizeof(label), "%s under %s (%s), Go 1.26's reader/schedlab's", name, pol,
		 how);
	if (!go_reads(path, &g, NULL, NULL))
		return;
	assert_same(&g, &c, label);
	if (strcmp(name, "pipeline") != 0)
		return;
	/* the scheduler-latency profile names who made the work wait */
	rc = test_runf(&out, &err, "'%s' tool trace -pprof=sched %s > %s/s.pprof && '%s' tool pprof "
		       "-top %s/s.pprof", test_go126(), path, tmpdir, test_go126(), tmpdir);
	ck_assert_msg(rc == 0 && strstr(out, "producer") && strstr(out, "stage"),
		      "Go 1.26's scheduler-latency profile does not name the programs: %s %s", out,
		      err);
	free(out);
	free(err);
}

START_TEST(run_sim_reads_back)
{
	run_and_read(_i, 0);
}
END_TEST

START_TEST(run_native_reads_back)
{
	/* native runs are ASan's and TSan's to check, not valgrind's; under
	 * TSan, whose threads run several times slower, the workloads whose
	 * recording differs (channels, system calls and hand-offs, the
	 * network, yields, spawns) */
	const char *name = workload_name(_i);
	if (test_under_valgrind() || native_heavy(name))
		return;
	static const char *const tsan_set[] = { "pipeline", "syscall-heavy", "vtocc",
						"yield-storm", "spawn-tree", "pingpong-hog" };
	if (test_under_tsan()) {
		bool in = false;
		for (size_t k = 0; k < sizeof(tsan_set) / sizeof(tsan_set[0]); k++)
			in |= strcmp(name, tsan_set[k]) == 0;
		if (!in)
			return;
	}
	run_and_read(_i, 1);
}
END_TEST

/* The policies' mechanisms are user logs on the G they led to: a steal's
 * thief and victim, a take from the global queue, numa's placements; and
 * the global-queue takes are the report's, reason by reason. */
START_TEST(mechanisms_as_user_logs)
{
	static const struct { const char *pol, *wl, *cat; } cases[] = {
		{ "steal", "spawn-tree", "steal" }, { "global", "spawn-tree", "globrunq" },
		{ "numa", "rpc-server", "place" },
	};
	char path[128], report[128];
	snprintf(path, sizeof(path), "%s/t.out", tmpdir);
	snprintf(report, sizeof(report), "%s/r.json", tmpdir);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *out = NULL, *err = NULL;
		int rc = test_runf(&out, &err, "'%s' run -p %s -w %s -t numa4 --procs 8 "
				   "--max-sim-time 2ms --trace %s", test_schedlab_bin(), cases[k].pol,
				   cases[k].wl, path);
		ck_assert_msg(rc == 0 || rc == 4, "%s: %s", cases[k].pol, err);
		free(out);
		free(err);
		struct counts g;
		char *text = NULL;
		if (!go_reads(path, &g, NULL, &text))
			return;
		char want[64];
		snprintf(want, sizeof(want), "Category=\"%s\"", cases[k].cat);
		ck_assert_msg(count_lines(text, want) > 0, "%s on %s: no user log %s (%llu logs)",
			      cases[k].pol, cases[k].wl, want, (unsigned long long)g.logs);
		free(text);
	}
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err, "'%s' run -p steal -w rpc-server -t numa4 --procs 16 "
			   "--max-sim-time 5ms --trace %s --json %s", test_schedlab_bin(), path, report);
	ck_assert_msg(rc == 0 || rc == 4, "exit %d: %s", rc, err);
	free(out);
	free(err);
	struct counts g;
	char *text = NULL;
	if (!go_reads(path, &g, NULL, &text))
		return;
	char *rtext = test_read_file(report);
	cJSON *o = cJSON_Parse(rtext);
	free(rtext);
	const cJSON *takes = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(o, "metrics"), "mechanisms"), "global_queue"), "takes");
	double fair = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(takes, "fairness"),
							       "takes"));
	double empty = cJSON_GetNumberValue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(takes, "local_empty"), "takes"));
	cJSON_Delete(o);
	ck_assert_msg(fair > 0 && empty > 0, "the run made no takes of both reasons");
	uint64_t tf = count_lines(text, "global queue (fairness)");
	uint64_t te = count_lines(text, "global queue (local queue empty)");
	ck_assert_msg(tf == (uint64_t)fair && te == (uint64_t)empty,
		      "trace: %llu fairness, %llu local-empty takes; report %.0f, %.0f",
		      (unsigned long long)tf, (unsigned long long)te, fair, empty);
	free(text);
}
END_TEST

/* --trace-format picks the writer whatever FILE's name; by default Go
 * 1.22's format, and Chrome's for FILE.json; a bad one is refused. */
START_TEST(trace_format_option)
{
	static const struct { const char *file, *fmt, *head; } cases[] = {
		{ "t.out", NULL, "go 1.22 trace" }, { "t.out", "go1.22", "go 1.22 trace" },
		{ "t.out", "go1.19", "go 1.19 trace" }, { "t.json", NULL, "{" },
		{ "t.json", "go1.22", "go 1.22 trace" }, { "t.out", "chrome", "{" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *out = NULL, *err = NULL;
		char fmt[64] = "";
		if (cases[k].fmt)
			snprintf(fmt, sizeof(fmt), "--trace-format %s", cases[k].fmt);
		int rc = test_runf(&out, &err, "'%s' run -p steal -w pingpong -t numa1 --procs 2 "
				   "--max-sim-time 1ms --trace %s/%s %s", test_schedlab_bin(), tmpdir,
				   cases[k].file, fmt);
		ck_assert_msg(rc == 0 || rc == 4, "%s %s: exit %d: %s", cases[k].file, fmt, rc, err);
		char path[128];
		snprintf(path, sizeof(path), "%s/%s", tmpdir, cases[k].file);
		assert_header(path, cases[k].head);
		unlink(path);
		free(out);
		free(err);
	}
	static const struct { const char *args, *msg; } bad[] = {
		{ "run -p steal -w pingpong --trace %s/t.out --trace-format go1.26",
		  "--trace-format go1.26: expected go1.22" },
		{ "run -p steal -w pingpong --trace %s/t.out --trace-format", "--trace-format" },
		{ "run -p steal -w pingpong --trace-format go1.19 --json %s/r.json",
		  "--trace-format go1.19: there is no --trace FILE" },
		{ "explore -p steal -w pipeline --trace %s/t.out --trace-format json",
		  "--trace-format json: expected go1.22" },
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		char *out = NULL, *err = NULL, *args = NULL;
		ck_assert_int_ge(asprintf(&args, bad[k].args, tmpdir), 0);
		int rc = test_runf(&out, &err, "'%s' %s", test_schedlab_bin(), args);
		ck_assert_msg(rc == 2 && strstr(err, bad[k].msg), "%s: exit %d: %s", args, rc, err);
		char path[128];
		snprintf(path, sizeof(path), "%s/t.out", tmpdir);
		ck_assert_msg(access(path, F_OK) != 0, "%s: wrote %s", args, path);
		free(args);
		free(out);
		free(err);
	}
}
END_TEST

/* ---- In process: generations and repairs ---- */

/* A run of wname (mode 0 simulated on numa4 with 16 Ps, 1 native with 2),
 * traced; the caller destroys it. */
static struct rt *traced_run(int mode, const char *pol, const char *wname, int64_t sim_ns,
			     struct workload **w, struct topo **t, struct rt_result *res,
			     struct rt_trace *tr)
{
	struct err e = { "" };
	bool is_trace;
	uint64_t tseed;
	*w = wl_load(wname, &is_trace, &tseed, &e);
	ck_assert_msg(*w, "%s", e.msg);
	*t = topo_load(mode ? "host" : "numa4", &e);
	ck_assert_msg(*t, "%s", e.msg);
	const struct rt_api *api = mode ? &nat__rt_api : &sim__rt_api;
	struct rt_config cfg = {
		.policy = api->pol_find(pol), .procs = mode ? 2 : 16, .seed = 3, .topo = *t,
		.body = api->body, .body_arg = &(struct wlr_args){ .workload = *w },
		.lim.max_sim_ns = mode ? 0 : sim_ns, .lim.trace = true,
	};
	struct rt *rt = api->create(&cfg, &e);
	ck_assert_msg(rt, "%s", e.msg);
	api->run(rt);
	api->result(rt, res);
	ck_assert_msg(api->trace(rt, tr, &e), "%s", e.msg);
	return rt;
}

/* Writes tr to dir/name with o; its stats. */
static struct trace_go_stats write122(const struct rt_trace *tr, const char *name,
				      const struct trace_go122_opts *o, char *path, size_t n)
{
	snprintf(path, n, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	struct trace_go_stats st;
	struct err e = { "" };
	ck_assert_msg(trace_write_go122_opts(f, tr, o, &st, &e), "%s", e.msg);
	ck_assert_int_eq(fclose(f), 0);
	return st;
}

/* A trace cut into many generations (every 20 us of the run, or every 2
 * KiB of events) is the same trace to both readers as one generation:
 * each generation restates the Ps, the Gs on a thread, and each waiting
 * or runnable G where it is next named. */
START_TEST(generations_read_as_one)
{
	int mode = _i;
	if (mode == 1 && test_under_valgrind())
		return;
	static const char *const wls[] = { "rpc-server", "syscall-heavy" };
	for (size_t k = 0; k < sizeof(wls) / sizeof(wls[0]); k++) {
		/* ThreadSanitizer makes each G a fiber of its own, hundreds of KB
		 * of its state: rpc-server's thousands of connections alive at
		 * once ran its internal allocator out of memory */
		if (mode == 1 && test_under_tsan() && strcmp(wls[k], "rpc-server") == 0)
			continue;
		struct workload *w;
		struct topo *t;
		struct rt_result res;
		struct rt_trace tr;
		struct rt *rt = traced_run(mode, k ? "global" : "numa", wls[k],
					   test_under_valgrind() ? 2000000 : 10000000, &w, &t, &res,
					   &tr);
		/* valgrind's runs are 2 ms: smaller byte cuts still make ten
		 * generations of them */
		const struct trace_go122_opts cuts[] = {
			{ 0, 0 }, { 20000, 0 }, { 0, test_under_valgrind() ? 512 : 2048 },
		};
		struct counts first = { 0 };
		for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
			char path[128], label[160], name[16];
			snprintf(name, sizeof(name), "g%zu.out", c);
			struct trace_go_stats st = write122(&tr, name, &cuts[c], path, sizeof(path));
			snprintf(label, sizeof(label), "%s (%s), generations every %lld ns / %zu bytes",
				 wls[k], mode ? "native" : "sim", (long long)cuts[c].gen_ns,
				 cuts[c].gen_bytes);
			if (c == 0 && mode == 0)
				ck_assert_uint_eq(st.generations, 1);
			if (c > 0)
				ck_assert_msg(st.generations >= 10, "%s: %llu generations", label,
					      (unsigned long long)st.generations);
			if (mode == 0)
				ck_assert_msg(st.repaired + st.dropped + st.reattributed == 0,
					      "%s: %llu repaired, %llu left out, %llu reattributed",
					      label, (unsigned long long)st.repaired,
					      (unsigned long long)st.dropped,
					      (unsigned long long)st.reattributed);
			ck_assert_uint_eq(st.goroutines, res.goroutines);
			struct counts got = read_back(path);
			ck_assert_uint_eq(got.creates, res.goroutines);
			ck_assert_uint_eq(got.starts - got.restarts, res.runs);
			ck_assert_uint_eq(got.blocks, res.blocks);
			if (c == 0)
				first = got;
			else
				assert_same(&got, &first, label);
			struct counts g;
			uint64_t syncs = 0;
			if (go_reads(path, &g, &syncs, NULL)) {
				assert_same(&g, &got, label);
				/* one at each generation's start, one at the end */
				ck_assert_uint_eq(syncs, st.generations + 1);
			}
		}
		(mode ? &nat__rt_api : &sim__rt_api)->destroy(rt);
		topo_free(t);
		wl_free(w);
	}
}
END_TEST

/* A simulated run's trace needs no repair, under every policy and
 * workload, and counts what the run's result counts. */
START_TEST(sim_needs_no_repair)
{
	const char *wname = workload_name(_i);
	for (int k = 0; k < sim__rt_api.pol_count(); k++) {
		const char *pol = sim__rt_api.pol_at(k)->name;
		struct workload *w;
		struct topo *t;
		struct rt_result res;
		struct rt_trace tr;
		struct rt *rt = traced_run(0, pol, wname, 2000000, &w, &t, &res, &tr);
		FILE *f = fopen("/dev/null", "w");
		struct trace_go_stats st;
		struct err e = { "" };
		ck_assert(trace_write_go122_opts(f, &tr, NULL, &st, &e));
		fclose(f);
		ck_assert_msg(st.repaired + st.dropped + st.reattributed == 0 &&
			      st.goroutines == res.goroutines && st.starts == res.runs &&
			      st.blocks == res.blocks,
			      "%s under %s: %llu repaired, %llu left out, %llu reattributed; %llu "
			      "goroutines, %llu starts, %llu blocks written, the run %llu, %llu, %llu",
			      wname, pol, (unsigned long long)st.repaired,
			      (unsigned long long)st.dropped, (unsigned long long)st.reattributed,
			      (unsigned long long)st.goroutines, (unsigned long long)st.starts,
			      (unsigned long long)st.blocks, (unsigned long long)res.goroutines,
			      (unsigned long long)res.runs, (unsigned long long)res.blocks);
		sim__rt_api.destroy(rt);
		topo_free(t);
		wl_free(w);
	}
}
END_TEST

Suite *make_trace122_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("go122");
	tcase_add_checked_fixture(tc, tmpdir_setup, tmpdir_teardown);
	tcase_add_loop_test(tc, run_sim_reads_back, 0, nworkloads());
	tcase_add_loop_test(tc, sim_needs_no_repair, 0, nworkloads());
	tcase_add_loop_test(tc, generations_read_as_one, 0, 1);
	tcase_add_test(tc, mechanisms_as_user_logs);
	tcase_add_test(tc, trace_format_option);
	tcase_set_timeout(tc, 600);
	tcase_set_tags(tc, TEST_SIM_ONLY);
	suite_add_tcase(s, tc);

	tc = tcase_create("go122-native");
	tcase_add_checked_fixture(tc, tmpdir_setup, tmpdir_teardown);
	tcase_add_loop_test(tc, run_native_reads_back, 0, nworkloads());
	tcase_add_loop_test(tc, generations_read_as_one, 1, 2);
	tcase_set_timeout(tc, 900);
	suite_add_tcase(s, tc);
	return s;
}
