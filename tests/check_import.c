/* Go execution traces imported as workloads (suite "import"): real Go 1.19
 * traces recorded on the development host (tests/data/traces) read as the
 * goroutines, spawns, edges and waits they hold, and run from the command
 * line with their recorded figures beside the prediction; a trace written
 * by `run --trace' imports back to the run's goroutine structure; bad
 * traces exit 2 naming the byte offset; a large trace is read in bounded
 * memory; the workload language's sleep_until and "recorded". */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/tests.h"
#include "trace/import.h"
#include "util/util.h"
#include "workloads/json.h"

static char tmpdir[64];

static void tmpdir_setup(void)
{
	test_tmpdir(tmpdir, sizeof(tmpdir), "import");
}

static void tmpdir_teardown(void)
{
	test_rm_rf(tmpdir);
}

static char *data_trace(const char *name)
{
	return xasprintf("%s/traces/%s", test_data_dir(), name);
}

/* ti_import into memory: the workload's text, parsed. */
static cJSON *import_json(const char *path, struct ti_stats *st)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	struct err e = { "" };
	bool ok = ti_import(path, "t", f, st, &e);
	fclose(f);
	ck_assert_msg(ok, "%s", e.msg);
	cJSON *j = cJSON_Parse(text);
	ck_assert_msg(j != NULL, "the import is not JSON: %.200s", text);
	/* and it compiles as a workload */
	struct workload *w = wl_compile(path, text, &e);
	ck_assert_msg(w != NULL, "%s", e.msg);
	ck_assert(w->recorded.present);
	ck_assert_int_eq(w->recorded.gomaxprocs, st->gomaxprocs);
	ck_assert_int_eq(w->recorded.goroutines, (int64_t)st->goroutines);
	wl_free(w);
	free(text);
	return j;
}


/* ---- Real Go 1.19 traces ---- */

struct expect {
	const char *file;
	uint64_t goroutines, spawns, edges, sleeps, external, net, blocked_syscalls;
};

START_TEST(real_traces_structure)
{
	/* The recordings are fixed files: their structure is exact. */
	static const struct expect ex[] = {
		{ "chan.trace", 5, 4, 41, 0, 0, 0, 0 },
		{ "sync.trace", 4, 3, 1, 1, 15, 0, 1 },
		{ "net.trace", 2, 1, 1, 5, 0, 10, 0 },
	};
	for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
		char *path = data_trace(ex[i].file);
		struct ti_stats st;
		cJSON *j = import_json(path, &st);
		ck_assert_str_eq(st.go, "go 1.19");
		ck_assert_int_eq(st.gomaxprocs, 2);
		ck_assert_uint_eq(st.goroutines, ex[i].goroutines);
		ck_assert_uint_eq(st.spawns, ex[i].spawns);
		ck_assert_uint_eq(st.edges, ex[i].edges);
		ck_assert_uint_eq(st.sleeps, ex[i].sleeps);
		ck_assert_uint_eq(st.external, ex[i].external);
		ck_assert_uint_eq(st.net, ex[i].net);
		ck_assert_uint_eq(st.blocked_syscalls, ex[i].blocked_syscalls);
		/* the runtime's own goroutines are left out, and counted */
		ck_assert_uint_ge(st.internal, 4);
		ck_assert_int_gt(st.makespan_ns, 500000);
		ck_assert_uint_gt(st.lat_n, 0);
		ck_assert_uint_le(st.lat_p50, st.lat_p99);
		const cJSON *rec = cJSON_GetObjectItem(j, "recorded");
		ck_assert_str_eq(cJSON_GetObjectItem(rec, "go")->valuestring, "1.19");
		ck_assert_int_eq(cJSON_GetObjectItem(rec, "makespan_ns")->valuedouble,
				 (double)st.makespan_ns);
		const cJSON *progs = cJSON_GetObjectItem(j, "programs");
		ck_assert_int_eq(cJSON_GetArraySize(progs), (int)st.programs + 1);
		/* main is the Go program's main goroutine, spawned by "trace" */
		const cJSON *tr = cJSON_GetObjectItem(progs, "trace");
		ck_assert_int_eq(cJSON_GetArraySize(tr), 1);
		ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(tr, 0), "spawn")->valuestring,
				 "g1");
		cJSON_Delete(j);
		free(path);
	}
}
END_TEST

/* Go 1.26's recordings of the same programs (tests/data/traces126): the
 * version, GOMAXPROCS and the program's goroutines exact, as in Go 1.19's
 * -- the runtime's, which a 1.22+ trace lists at its start without their
 * creation, are told by the start function at the bottom of the stack Go
 * 1.23+ gives them there (GoStatusStack) and left out, at least the
 * sweeper, scavenger, finalizer and cleanup runners; the programs' own
 * structure at least what the source makes -- 4 workers spawned and 40
 * values handed to them; 3 workers, ticker wake-ups from outside and one
 * blocking system call; 5 round trips' network waits. */
START_TEST(real_traces_go126)
{
	static const struct expect ex[] = {
		{ "chan.trace", 5, 4, 40, 0, 0, 0, 0 },
		{ "sync.trace", 4, 3, 0, 1, 3, 0, 1 },
		{ "net.trace", 2, 1, 0, 0, 0, 10, 0 },
	};
	for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
		char *path = xasprintf("%s/traces126/%s", test_data_dir(), ex[i].file);
		struct ti_stats st;
		cJSON *j = import_json(path, &st);
		ck_assert_str_eq(st.go, "go 1.26");
		ck_assert_int_eq(st.gomaxprocs, 2);
		ck_assert_uint_eq(st.goroutines, ex[i].goroutines);
		ck_assert_uint_ge(st.internal, 4);
		ck_assert_uint_ge(st.spawns, ex[i].spawns);
		ck_assert_uint_ge(st.edges, ex[i].edges);
		ck_assert_uint_ge(st.sleeps, ex[i].sleeps);
		ck_assert_uint_ge(st.external, ex[i].external);
		ck_assert_uint_ge(st.net, ex[i].net);
		ck_assert_uint_ge(st.blocked_syscalls, ex[i].blocked_syscalls);
		ck_assert_int_gt(st.makespan_ns, 500000);
		const cJSON *rec = cJSON_GetObjectItem(j, "recorded");
		ck_assert_str_eq(cJSON_GetObjectItem(rec, "go")->valuestring, "1.26");
		cJSON_Delete(j);
		free(path);
	}
}
END_TEST

/* Flight-recorder snapshots (tests/data/traces126/README.md): they begin
 * mid-run, with goroutines alive, and hold several generation boundaries.
 * Both import and replay every goroutine to its end: one with a P whose
 * syscall status was written by the M about to steal it, one with
 * never-run goroutines whose stack has a frame without a name. */
START_TEST(flight_snapshots_import)
{
	static const struct {
		const char *file;
		uint64_t goroutines;
	} ex[] = {
		{ "flight-syscall.trace", 7 },     /* the 6 workers and main */
		/* as Go's reader counts them: two of the tracer's goroutines,
		 * first named mid-window without a stack, are told by their
		 * own blocks' stacks */
		{ "flight-spawn.trace", 870 },
	};
	for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
		char *path = xasprintf("%s/traces126/%s", test_data_dir(), ex[i].file);
		struct ti_stats st;
		cJSON *j = import_json(path, &st);
		ck_assert_str_eq(st.go, "go 1.26");
		ck_assert_uint_eq(st.goroutines, ex[i].goroutines);
		/* the runtime's, alive at the snapshot's start, told by their stacks */
		ck_assert_uint_ge(st.internal, 4);
		cJSON_Delete(j);
		char *out = NULL, *err = NULL;
		int rc = test_runf(&out, &err, "%s run -p steal -t numa1 -w '%s'", test_schedlab_bin(),
				   path);
		ck_assert_msg(rc == 0, "%s: %s", ex[i].file, err);
		char want[64];
		snprintf(want, sizeof want, "%" PRIu64 " made, %" PRIu64 " completed",
			 ex[i].goroutines + 1, ex[i].goroutines + 1);
		ck_assert_msg(strstr(out, want), "%s: want '%s' in:\n%s", ex[i].file, want, out);
		free(out);
		free(err);
		free(path);
	}
}
END_TEST

/* The "inferred" object of an import's "recorded". */
static const cJSON *inferred_of(const cJSON *w)
{
	const cJSON *x = cJSON_GetObjectItem(cJSON_GetObjectItem(w, "recorded"), "inferred");
	ck_assert_ptr_nonnull(x);
	return x;
}

static double inferred_num(const cJSON *w, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(inferred_of(w), key);
	ck_assert_msg(cJSON_IsNumber(v), "recorded.inferred.%s", key);
	return v->valuedouble;
}

/* The replay's makespan (ns) of workload path at procs Ps on numa4; every
 * goroutine must complete (no deadlock). */
static double replay_makespan(const char *path, int procs)
{
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err, "%s run -p steal -t numa4 -w '%s' --procs %d --json -",
			   test_schedlab_bin(), path, procs);
	ck_assert_msg(rc == 0, "%s at %d Ps: %s", path, procs, err);
	cJSON *j = cJSON_Parse(out);
	ck_assert_ptr_nonnull(j);
	const cJSON *m = cJSON_GetObjectItem(j, "metrics");
	double made = cJSON_GetObjectItem(m, "goroutines")->valuedouble;
	double done = cJSON_GetObjectItem(m, "completed")->valuedouble;
	ck_assert_msg(made == done, "%s at %d Ps: %.0f of %.0f goroutines completed", path, procs,
		      done, made);
	double ms = cJSON_GetObjectItem(m, "makespan_ns")->valuedouble;
	cJSON_Delete(j);
	free(out);
	free(err);
	return ms;
}

/* A program, not a recording (trace/import.c, "Channels"): a pool's jobs
 * go through one channel any waiting worker takes from, so that more Ps
 * run more of the workers at once -- in Go 1.26's and 1.19's formats --
 * while a producer that waits for each job's answer keeps its pairs, as
 * sharing them stalls the replay; and stages of a pipeline that run one
 * function stay pairs too. */
START_TEST(shared_objects_inferred)
{
	static const char *const pools[] = { "traces126/pool.trace", "traces/pool.trace" };
	for (size_t i = 0; i < 2; i++) {
		char *path = xasprintf("%s/%s", test_data_dir(), pools[i]);
		struct ti_stats st;
		cJSON *j = import_json(path, &st);
		ck_assert_int_eq(inferred_num(j, "shared_channels"), 1);
		ck_assert_int_eq(inferred_num(j, "takers"), 16);
		ck_assert_int_gt(inferred_num(j, "backpressure"), 0);
		ck_assert_int_eq(inferred_num(j, "job_channels"), 1);
		ck_assert_str_eq(cJSON_GetObjectItem(inferred_of(j), "site")->valuestring,
				 "main.pool.func1:30");
		cJSON_Delete(j);
		/* 40 ms of jobs: at 2 Ps about 21 ms, as recorded; at 64 Ps
		 * the 16 workers at once, 0.19 of it (bound to their recorded
		 * jobs, the replay took 0.45) */
		double two = replay_makespan(path, 2), many = replay_makespan(path, 64);
		ck_assert_msg(many < 0.3 * two, "%s: %.0f ns at 64 Ps, %.0f at 2", pools[i], many, two);
		free(path);
	}
	/* the jobs move with their tokens: at 2 Ps two workers took nearly
	 * every chunk without waiting; bound to them, a replay at 16 Ps took
	 * 0.79 of the time at 2 (now 0.44: the chunks' channel is unbuffered,
	 * as the program's, so the feeder hands them out one at a time) */
	char *path = xasprintf("%s/traces126/sum.trace", test_data_dir());
	struct ti_stats st;
	cJSON *j = import_json(path, &st);
	ck_assert_int_eq(inferred_num(j, "job_channels"), 1);
	ck_assert_int_eq(inferred_num(j, "takers"), 8);
	cJSON_Delete(j);
	double two = replay_makespan(path, 2), many = replay_makespan(path, 16);
	ck_assert_msg(many < 0.6 * two, "sum.trace: %.0f ns at 16 Ps, %.0f at 2", many, two);
	free(path);

	path = xasprintf("%s/traces126/acks.trace", test_data_dir());
	j = import_json(path, &st);
	ck_assert_int_eq(inferred_num(j, "shared_channels"), 0);
	ck_assert_int_gt(inferred_num(j, "pairs"), 4);
	cJSON_Delete(j);
	replay_makespan(path, 2);
	replay_makespan(path, 16);
	free(path);

	/* schedlab's own traces: its pipeline's stages are one program
	 * reading one channel and writing the next */
	static const struct {
		const char *wl;
		int procs;
		bool shares;
	} sims[] = { { "pipeline", 2, false }, { "vtocc", 4, true }, { "pingpong-hog", 2, false } };
	for (size_t i = 0; i < sizeof sims / sizeof sims[0]; i++) {
		char tr[300], wl[300];
		snprintf(tr, sizeof tr, "%s/%s.trace", tmpdir, sims[i].wl);
		snprintf(wl, sizeof wl, "%s/%s.json", tmpdir, sims[i].wl);
		char *out = NULL, *err = NULL;
		int rc = test_runf(&out, &err, "%s run -p steal -t numa1 -w %s --procs %d --trace '%s' && "
				   "%s workload import '%s' -o '%s'", test_schedlab_bin(), sims[i].wl,
				   sims[i].procs, tr, test_schedlab_bin(), tr, wl);
		ck_assert_msg(rc == 0, "%s: %s", sims[i].wl, err);
		free(out);
		free(err);
		char *text = test_read_file(wl);
		cJSON *w = cJSON_Parse(text);
		ck_assert_ptr_nonnull(w);
		ck_assert_msg((inferred_num(w, "shared_channels") > 0) == sims[i].shares, "%s: %.0f shared",
			      sims[i].wl, inferred_num(w, "shared_channels"));
		cJSON_Delete(w);
		free(text);
		replay_makespan(wl, 16);
	}
}
END_TEST

START_TEST(real_traces_events_ordered)
{
	/* The stream: in time order (a blocking call's end carries the
	 * time the call returned: only it may go back), each G's life
	 * consistent, every G started is one that exists. */
	char *path = data_trace("chan.trace");
	struct err e;
	struct ti_reader *r = ti_open(path, &e);
	ck_assert_msg(r != NULL, "%s", e.msg);
	ck_assert_str_eq(ti_version(r), "go 1.19");
	struct ti_event ev;
	int k, creates = 0, exists = 0, starts = 0, ends = 0, blocks = 0, unblocks = 0;
	int64_t last = 0;
	while ((k = ti_next(r, &ev, &e)) == 1) {
		if (ev.kind != TI_SYSCALL_END)
			ck_assert_int_ge(ev.ts, last);
		if (ev.kind != TI_SYSCALL_END)
			last = ev.ts;
		switch (ev.kind) {
		case TI_G_CREATE:
			creates++;
			ck_assert_ptr_nonnull(ev.label);
			break;
		case TI_G_EXISTS: exists++; break;
		case TI_G_START: starts++; ck_assert_int_ge(ev.p, 0); break;
		case TI_G_END: ends++; break;
		case TI_G_BLOCK: blocks++; break;
		case TI_G_UNBLOCK: unblocks++; break;
		default: break;
		}
	}
	ck_assert_msg(k == 0, "%s", e.msg);
	ti_close(r);
	/* main.chans made 4 workers, which all ended; the trace writer's
	 * goroutine is made by the runtime/trace package */
	ck_assert_int_eq(creates, 5);
	ck_assert_int_ge(exists, 4);
	ck_assert_int_ge(ends, 4);
	ck_assert_int_ge(starts, blocks);
	ck_assert_int_ge(unblocks, 41);
	free(path);
}
END_TEST

START_TEST(real_trace_runs_from_the_command_line)
{
	char *out = NULL, *err = NULL;
	char *path = data_trace("net.trace");
	/* run -w TRACE: the recorded GOMAXPROCS as --procs, the recorded
	 * figures beside the prediction */
	int rc = test_runf(&out, &err, "%s run -p steal -t numa4 -w '%s' --json -", test_schedlab_bin(),
		     path);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	cJSON *j = cJSON_Parse(out);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(cJSON_GetObjectItem(j, "procs")->valueint, 2);
	const cJSON *m = cJSON_GetObjectItem(j, "metrics");
	ck_assert(!cJSON_IsTrue(cJSON_GetObjectItem(m, "deadlock")));
	/* the program's 2 goroutines and the replay's main */
	ck_assert_int_eq(cJSON_GetObjectItem(m, "completed")->valueint, 3);
	const cJSON *rec = cJSON_GetObjectItem(j, "recorded");
	ck_assert_ptr_nonnull(rec);
	ck_assert_int_eq(cJSON_GetObjectItem(rec, "gomaxprocs")->valueint, 2);
	ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(rec, "makespan_error")));
	/* network readiness is at its recorded times: the replay cannot end
	 * before the last of them */
	double rec_span = cJSON_GetObjectItem(rec, "makespan_ns")->valuedouble;
	double span = cJSON_GetObjectItem(m, "makespan_ns")->valuedouble;
	ck_assert_msg(span >= 0.95 * rec_span, "replay %.0f ns, recorded %.0f ns", span, rec_span);
	cJSON_Delete(j);
	free(out);
	free(err);
	rc = test_runf(&out, &err, "%s run -p steal -t numa4 -w '%s' --procs 4", test_schedlab_bin(),
		 path);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	ck_assert_ptr_nonnull(strstr(out, ", 4 Ps,"));
	ck_assert_ptr_nonnull(strstr(out, "recorded        Go 1.19 trace, GOMAXPROCS 2"));
	ck_assert_ptr_nonnull(strstr(out, "predicted"));
	free(out);
	free(err);
	free(path);
}
END_TEST

START_TEST(workload_import_writes_a_file)
{
	tmpdir_setup();
	char *out = NULL, *err = NULL;
	char *path = data_trace("sync.trace");
	int rc = test_runf(&out, &err, "%s workload import '%s' -o %s/s.json && %s run -p numa -t numa4 "
		     "-w %s/s.json", test_schedlab_bin(), path, tmpdir, test_schedlab_bin(), tmpdir);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	ck_assert_ptr_nonnull(strstr(err, "4 goroutines"));
	ck_assert_ptr_nonnull(strstr(out, "workload sync, 2 Ps"));
	ck_assert_ptr_nonnull(strstr(out, "5 made, 5 completed"));
	free(out);
	free(err);
	/* compare -w TRACE: both policies, the recorded GOMAXPROCS */
	rc = test_runf(&out, &err, "%s compare -p steal,numa -t numa4 -w '%s'", test_schedlab_bin(), path);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	ck_assert_ptr_nonnull(strstr(out, "2 Ps"));
	free(out);
	free(err);
	free(path);
	tmpdir_teardown();
}
END_TEST

/* ---- The round trip: a schedlab-written trace imported back ---- */

static const char rt_workload[] =
	"{\"name\": \"rt\", \"channels\": {\"c\": 0},\n"
	" \"programs\": {\n"
	"  \"main\": [{\"spawn\": \"w1\"}, {\"spawn\": \"w2\"}, {\"spawn\": \"w3\"},\n"
	"           {\"recv\": \"c\"}, {\"recv\": \"c\"}, {\"recv\": \"c\"}],\n"
	"  \"w1\": [{\"spawn\": \"leaf\"}, {\"compute\": \"20us\"}, {\"sleep\": \"100us\"}, {\"send\": \"c\"}],\n"
	"  \"w2\": [{\"spawn\": \"leaf\"}, {\"compute\": \"20us\"}, {\"sleep\": \"200us\"}, {\"send\": \"c\"}],\n"
	"  \"w3\": [{\"spawn\": \"leaf\"}, {\"compute\": \"20us\"}, {\"sleep\": \"300us\"}, {\"send\": \"c\"}],\n"
	"  \"leaf\": [{\"compute\": \"10us\"}]\n"
	" }}\n";

/* How many goroutines program name (of the imported workload) spawns,
 * and how many its spawns spawn, all the way down. */
static int count_tree(const cJSON *progs, const char *name, int depth, int *at_depth)
{
	const cJSON *body = cJSON_GetObjectItem(progs, name);
	ck_assert_msg(body != NULL, "no program %s", name);
	int n = 0;
	const cJSON *op;
	cJSON_ArrayForEach(op, body) {
		const cJSON *s = cJSON_GetObjectItem(op, "spawn");
		if (!s)
			continue;
		at_depth[depth + 1]++;
		n += 1 + count_tree(progs, s->valuestring, depth + 1, at_depth);
	}
	return n;
}

START_TEST(round_trip_goroutine_structure)
{
	tmpdir_setup();
	char *wl = xasprintf("%s/rt.json", tmpdir);
	FILE *f = fopen(wl, "w");
	ck_assert_ptr_nonnull(f);
	fputs(rt_workload, f);
	fclose(f);
	static const char *const pols[] = { "steal", "global", "numa" };
	for (int p = 0; p < 3; p++) {
		char *out = NULL, *err = NULL;
		int rc = test_runf(&out, &err, "%s run -p %s -t numa4 -w %s --trace %s/rt.trace --json -",
			     test_schedlab_bin(), pols[p], wl, tmpdir);
		ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
		cJSON *rep = cJSON_Parse(out);
		int made = cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "metrics"),
					       "goroutines")->valueint;
		cJSON_Delete(rep);
		free(out);
		free(err);
		char *tr = xasprintf("%s/rt.trace", tmpdir);
		struct ti_stats st;
		cJSON *j = import_json(tr, &st);
		/* G count, spawn tree, blocks by reason */
		ck_assert_int_eq(made, 7);
		ck_assert_uint_eq(st.goroutines, 7);
		ck_assert_uint_eq(st.internal, 0);
		ck_assert_uint_eq(st.spawns, 6);
		ck_assert_uint_eq(st.blocks[TI_R_CHAN_RECV], 3);
		ck_assert_uint_eq(st.blocks[TI_R_SLEEP], 3);
		ck_assert_uint_eq(st.sleeps, 3);
		ck_assert_uint_eq(st.edges, 3);
		ck_assert_uint_eq(st.blocks[TI_R_CHAN_SEND] + st.blocks[TI_R_SYNC] +
				  st.blocks[TI_R_SELECT] + st.blocks[TI_R_NET], 0);
		int at_depth[8] = { 0 };
		const cJSON *progs = cJSON_GetObjectItem(j, "programs");
		ck_assert_int_eq(count_tree(progs, "trace", 0, at_depth), 7);
		ck_assert_int_eq(at_depth[1], 1);   /* main */
		ck_assert_int_eq(at_depth[2], 3);   /* w1..w3 */
		ck_assert_int_eq(at_depth[3], 3);   /* a leaf each */
		ck_assert_int_eq(at_depth[4], 0);
		cJSON_Delete(j);
		free(tr);
	}
	free(wl);
	tmpdir_teardown();
}
END_TEST

/* ---- Bad traces ---- */

static void write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	fclose(f);
}

static void expect_bad(const char *path, const char *what)
{
	char *out = NULL, *err = NULL;
	int rc = test_runf(&out, &err, "%s workload import '%s' -o %s/never.json", test_schedlab_bin(),
		     path, tmpdir);
	ck_assert_msg(rc == 2, "%s: exit %d (want 2): %s", path, rc, err);
	ck_assert_msg(strstr(err, "offset ") != NULL, "%s: no byte offset in: %s", path, err);
	ck_assert_msg(strstr(err, what) != NULL, "%s: want \"%s\" in: %s", path, what, err);
	ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
	char *never = xasprintf("%s/never.json", tmpdir);
	ck_assert_int_ne(access(never, F_OK), 0);
	free(never);
	free(out);
	free(err);
	/* run -w TRACE says the same */
	rc = test_runf(&out, &err, "%s run -p steal -w '%s'", test_schedlab_bin(), path);
	ck_assert_msg(rc == 2, "run -w %s: exit %d: %s", path, rc, err);
	ck_assert_msg(strstr(err, what) != NULL, "run: want \"%s\" in: %s", what, err);
	free(out);
	free(err);
}

START_TEST(bad_traces_exit_2_with_the_offset)
{
	tmpdir_setup();
	char *good = data_trace("chan.trace");
	char *text = NULL;
	size_t n = 0;
	{
		FILE *f = fopen(good, "rb");
		ck_assert_ptr_nonnull(f);
		text = xmalloc(1 << 20);
		n = fread(text, 1, 1 << 20, f);
		fclose(f);
	}
	ck_assert_uint_gt(n, 1000);
	char *p = xasprintf("%s/bad.trace", tmpdir);

	/* a version this build does not read */
	char hdr[16] = "go 1.15 trace";
	memcpy(text, hdr, 16);
	write_bytes(p, text, n);
	expect_bad(p, "this build reads");
	memcpy(text, "go 1.19 trace\0\0\0", 16);

	/* truncated: inside a value, or before the frequency (written last) */
	write_bytes(p, text, n / 2);
	expect_bad(p, "truncated");
	write_bytes(p, text, 16);
	expect_bad(p, "no events");

	/* corrupt LEB128: 11 continuation bytes after the first event's type */
	{
		char *c = xmalloc(n + 16);
		memcpy(c, text, 17);
		memset(c + 17, 0xff, 11);
		memcpy(c + 28, text + 17, n - 17);
		write_bytes(p, c, n + 11);
		expect_bad(p, "corrupt LEB128");
		free(c);
	}

	/* an unknown event type (0) */
	{
		char save = text[16];
		text[16] = 0;
		write_bytes(p, text, n);
		expect_bad(p, "offset 16: unknown event type 0");
		text[16] = save;
	}

	/* inconsistent: every GoStart's sequence number bumped, so no G can
	 * start (Go's parser refuses it the same way) */
	{
		FILE *f = fopen(p, "wb");
		ck_assert_ptr_nonnull(f);
		/* a synthetic trace: G 1 exists, then starts with seq 5 */
		static const unsigned char t[] = {
			'g', 'o', ' ', '1', '.', '1', '9', ' ', 't', 'r', 'a', 'c', 'e', 0, 0, 0,
			0x41, 0x00, 0x10,                   /* EvBatch P 0, ticks 16 */
			0xcd, 0x04, 0x01, 0x01, 0x01, 0x00, /* EvGoCreate (4 values, 4 bytes): g 1 */
			0x8e, 0x01, 0x01, 0x05,             /* EvGoStart g 1 seq 5: inconsistent */
			0x02, 0x80, 0x08,                   /* EvFrequency 1024 */
		};
		fwrite(t, 1, sizeof t, f);
		fclose(f);
		expect_bad(p, "offset 25: inconsistent trace");
	}

	/* not a trace at all, and an empty file */
	write_bytes(p, "{\"name\": 1}", 11);
	{
		char *out = NULL, *err = NULL;
		int rc = test_runf(&out, &err, "%s workload import '%s'", test_schedlab_bin(), p);
		ck_assert_int_eq(rc, 2);
		ck_assert_ptr_nonnull(strstr(err, "offset 0: not a Go execution trace"));
		free(out);
		free(err);
	}
	/* a pipe: the reader needs a file */
	{
		char *out = NULL, *err = NULL;
		int rc = test_runf(&out, &err, "cat '%s' | %s workload import /dev/stdin", good,
			     test_schedlab_bin());
		ck_assert_int_eq(rc, 2);
		ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
		free(out);
		free(err);
	}
	free(p);
	free(text);
	free(good);
	tmpdir_teardown();
}
END_TEST

/* ---- A large trace, read in bounded memory ---- */

/* A Go 1.19 trace of two goroutines waking each other rounds times, G 1
 * on P 0 and G 2 on P 1, each P's events in batches of about 64 KiB
 * written in turn, as the runtime interleaves them. */
struct tw {
	FILE *f;
	unsigned char buf[2][70000];
	size_t n[2];
	int64_t last[2], start[2], ticks;
	uint64_t bytes;
};

static void tw_uv(unsigned char *b, size_t *n, uint64_t v)
{
	while (v >= 0x80) {
		b[(*n)++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b[(*n)++] = (unsigned char)v;
}

static void tw_flush(struct tw *w, int p)
{
	if (!w->n[p])
		return;
	unsigned char h[24];
	size_t hn = 0;
	h[hn++] = 1 | 1 << 6;
	tw_uv(h, &hn, (uint64_t)p);
	tw_uv(h, &hn, (uint64_t)w->start[p]);
	fwrite(h, 1, hn, w->f);
	fwrite(w->buf[p], 1, w->n[p], w->f);
	w->bytes += hn + w->n[p];
	w->n[p] = 0;
}

/* An event of P p now: type and values after the timestamp delta. */
static void tw_event(struct tw *w, int p, int type, const uint64_t *v, int nv)
{
	w->ticks += 100;
	if (w->n[p] > 65536)
		tw_flush(w, p);
	if (w->n[p] == 0)   /* the batch's ticks: its first event is at delta 0 */
		w->last[p] = w->start[p] = w->ticks;
	unsigned char *b = w->buf[p];
	size_t *n = &w->n[p];
	if (nv + 1 < 4) {
		b[(*n)++] = (unsigned char)(type | nv << 6);
		tw_uv(b, n, (uint64_t)(w->ticks - w->last[p]));
		for (int i = 0; i < nv; i++)
			tw_uv(b, n, v[i]);
	} else {
		unsigned char tmp[64];
		size_t tn = 0;
		tw_uv(tmp, &tn, (uint64_t)(w->ticks - w->last[p]));
		for (int i = 0; i < nv; i++)
			tw_uv(tmp, &tn, v[i]);
		b[(*n)++] = (unsigned char)(type | 3 << 6);
		tw_uv(b, n, tn);
		memcpy(b + *n, tmp, tn);
		*n += tn;
	}
	w->last[p] = w->ticks;
}

/* A trace of Gs 1 and 2, existing when it starts, GOMAXPROCS 2; an event
 * every 100 ns. */
static struct tw *tw_open(const char *path)
{
	struct tw *w = xcalloc(1, sizeof(*w));
	w->f = fopen(path, "wb");
	ck_assert_ptr_nonnull(w->f);
	fwrite("go 1.19 trace\0\0\0", 1, 16, w->f);
	w->bytes = 16;
	uint64_t v[4];
	v[0] = 2; v[1] = 0;
	tw_event(w, 0, 4, v, 2);                    /* EvGomaxprocs 2 */
	v[0] = 1; v[1] = 1; v[2] = 0;
	tw_event(w, 0, 13, v, 3);                   /* G 1 exists (stack 1) */
	v[0] = 2;
	tw_event(w, 0, 13, v, 3);                   /* G 2 exists */
	return w;
}

static uint64_t tw_close(struct tw *w);

/* G 1 on P 0 and G 2 on P 1 (or both on P 0), waking each other rounds
 * times, each blocking on a receive after waking the other. */
static uint64_t write_pingpong_on(const char *path, long rounds, bool one_p)
{
	struct tw *w = tw_open(path);
	int p2 = one_p ? 0 : 1;
	uint64_t v[4];
	uint64_t seq[3] = { 0, 1, 1 };
	if (one_p) {
		v[0] = 2; v[1] = seq[2]++;
		tw_event(w, 0, 14, v, 2);           /* GoStart 2 on P 0 */
		v[0] = 0;
		tw_event(w, 0, 23, v, 1);           /* G 2 blocks (recv) */
		v[0] = 1; v[1] = seq[1]++;
		tw_event(w, 0, 14, v, 2);           /* GoStart 1 on P 0 */
	} else {
		v[0] = 1; v[1] = seq[1]++;
		tw_event(w, 0, 14, v, 2);           /* GoStart 1 on P 0 */
		v[0] = 2; v[1] = seq[2]++;
		tw_event(w, 1, 14, v, 2);           /* GoStart 2 on P 1 */
		v[0] = 0;
		tw_event(w, 1, 23, v, 1);           /* G 2 blocks (recv) */
	}
	for (long r = 0; r < rounds; r++) {
		v[0] = 2; v[1] = seq[2]++; v[2] = 0;
		tw_event(w, 0, 21, v, 3);           /* G 1 wakes G 2 */
		v[0] = 0;
		tw_event(w, 0, 23, v, 1);           /* G 1 blocks */
		v[0] = 2; v[1] = seq[2]++;
		tw_event(w, p2, 14, v, 2);          /* G 2 starts */
		v[0] = 1; v[1] = seq[1]++; v[2] = 0;
		tw_event(w, p2, 21, v, 3);          /* G 2 wakes G 1 */
		v[0] = 0;
		tw_event(w, p2, 23, v, 1);          /* G 2 blocks */
		v[0] = 1; v[1] = seq[1]++;
		tw_event(w, 0, 14, v, 2);           /* G 1 starts */
	}
	tw_event(w, 0, 15, v, 0);                   /* G 1 ends */
	return tw_close(w);
}

static uint64_t write_pingpong(const char *path, long rounds)
{
	return write_pingpong_on(path, rounds, false);
}

/* Flushes both Ps' batches and writes the footer. */
static uint64_t tw_close(struct tw *w)
{
	tw_flush(w, 0);
	tw_flush(w, 1);
	/* the string, the stack and the frequency come last, as Go writes them */
	static const char fn[] = "main.pingpong";
	unsigned char t[64];
	size_t tn = 0;
	t[tn++] = 37;
	tw_uv(t, &tn, 1);
	tw_uv(t, &tn, sizeof fn - 1);
	memcpy(t + tn, fn, sizeof fn - 1);
	tn += sizeof fn - 1;
	t[tn++] = 3 | 3 << 6;
	t[tn++] = 6;
	t[tn++] = 1; t[tn++] = 1; t[tn++] = 0x10; t[tn++] = 1; t[tn++] = 1; t[tn++] = 1;
	t[tn++] = 2;
	tw_uv(t, &tn, 1000000000);
	fwrite(t, 1, tn, w->f);
	w->bytes += tn;
	ck_assert_int_eq(fclose(w->f), 0);
	uint64_t bytes = w->bytes;
	free(w);
	return bytes;
}

/* ---- What the recording's runtime did between Gs ---- */

/* The first op of program name, as JSON text. */
static char *first_op(const cJSON *j, const char *name)
{
	const cJSON *prog = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "programs"), name);
	ck_assert_msg(cJSON_IsArray(prog) && cJSON_GetArraySize(prog) > 0, "no program %s", name);
	return cJSON_PrintUnformatted(cJSON_GetArrayItem(prog, 0));
}

/* On one P, the time between a G blocking and the next, already runnable,
 * starting is the recorded runtime's (its scheduler, the tracer): it is
 * charged to the G that blocked, before its next op, so that the G it
 * woke waits as long in the replay.  Across Ps there is no such gap. */
START_TEST(switch_gap_charged_to_the_blocked_g)
{
	tmpdir_setup();
	char *p = xasprintf("%s/one.trace", tmpdir);
	write_pingpong_on(p, 10, true);
	struct ti_stats st;
	cJSON *j = import_json(p, &st);
	/* every start after a block: G 1's first, then two a round */
	ck_assert_uint_eq(st.gaps, 21);
	ck_assert_int_eq(st.gap_ns, 21 * 100);
	ck_assert_uint_ge(st.gap_p50, 95);
	ck_assert_uint_le(st.gap_p50, 105);
	/* G 2 ran 100 ns before blocking, and the gap after it was 100 ns */
	char *op = first_op(j, "g2");
	ck_assert_str_eq(op, "{\"compute\":200}");
	free(op);
	const char *desc = cJSON_GetObjectItem(j, "description")->valuestring;
	ck_assert_ptr_nonnull(strstr(desc, "21 switches' recorded gaps (p50 "));
	cJSON_Delete(j);
	free(p);

	p = xasprintf("%s/two.trace", tmpdir);
	write_pingpong_on(p, 10, false);
	j = import_json(p, &st);
	ck_assert_uint_eq(st.gaps, 0);
	ck_assert_int_eq(st.gap_ns, 0);
	op = first_op(j, "g2");
	ck_assert_str_eq(op, "{\"compute\":100}");
	free(op);
	cJSON_Delete(j);
	free(p);
	tmpdir_teardown();
}
END_TEST

/* Go 1.19 writes a blocking call's return with the instant it returned
 * when the G had to wait for a P, and with 0 when it took one at once
 * (exitsyscallfast).  Only the first is a wait for a P: schedlab's report
 * counts no latency for a G that never queued, so neither does the
 * recording's figure. */
START_TEST(syscall_fast_return_is_no_latency_sample)
{
	tmpdir_setup();
	char *p = xasprintf("%s/sys.trace", tmpdir);
	struct tw *w = tw_open(p);
	uint64_t v[4];
	v[0] = 1; v[1] = 1;
	tw_event(w, 0, 14, v, 2);                   /* GoStart 1 on P 0 */
	v[0] = 0;
	tw_event(w, 0, 28, v, 1);                   /* GoSysCall */
	tw_event(w, 0, 30, v, 0);                   /* GoSysBlock: its P taken */
	v[0] = 1; v[1] = 2; v[2] = 0;
	tw_event(w, 0, 29, v, 3);                   /* GoSysExit, ts 0: a P at once */
	v[0] = 1; v[1] = 3;
	tw_event(w, 0, 14, v, 2);                   /* GoStart 1 */
	v[0] = 0;
	tw_event(w, 0, 28, v, 1);                   /* GoSysCall */
	tw_event(w, 0, 30, v, 0);                   /* GoSysBlock */
	uint64_t returned = (uint64_t)w->ticks + 50;
	v[0] = 1; v[1] = 4; v[2] = returned;
	tw_event(w, 0, 29, v, 3);                   /* GoSysExit at returned: queued */
	v[0] = 1; v[1] = 5;
	tw_event(w, 0, 14, v, 2);                   /* GoStart 1, 150 ns after it returned */
	tw_event(w, 0, 15, v, 0);                   /* GoEnd */
	tw_close(w);
	struct ti_stats st;
	cJSON *j = import_json(p, &st);
	ck_assert_uint_eq(st.blocked_syscalls, 2);
	/* G 1's first start (it existed, runnable, when tracing began) and
	 * the queued return: not the fast one */
	ck_assert_uint_eq(st.lat_n, 2);
	/* each call lasts to its return: the event (200 ns on), or the
	 * instant written in it (150 ns on) */
	const cJSON *prog = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "programs"), "g1");
	char *text = cJSON_PrintUnformatted(prog);
	ck_assert_msg(strstr(text, "{\"syscall\":200}") && strstr(text, "{\"syscall\":150}"), "%s", text);
	free(text);
	cJSON_Delete(j);
	free(p);
	tmpdir_teardown();
}
END_TEST

/* Reads the ping-pong trace of write_pingpong to its end: 0 if every
 * wake-up was there, 3 if it does not open, 4 otherwise. */
static int read_all(const char *path, long rounds)
{
	struct err e;
	struct ti_reader *r = ti_open(path, &e);
	if (!r)
		return 3;
	struct ti_event ev;
	long unblocks = 0;
	int k;
	while ((k = ti_next(r, &ev, &e)) == 1)
		unblocks += ev.kind == TI_G_UNBLOCK;
	ti_close(r);
	return k == 0 && unblocks == 2 * rounds ? 0 : 4;
}

START_TEST(large_trace_bounded_memory)
{
	tmpdir_setup();
	char *p = xasprintf("%s/big.trace", tmpdir);
	/* about 27 bytes a round: 40 MB (4 MB under valgrind) */
	long rounds = test_under_valgrind() ? 150000 : 1500000;
	uint64_t bytes = write_pingpong(p, rounds);
	ck_assert_uint_gt(bytes, (uint64_t)rounds * 20);
	/* The reader alone, in a child whose peak memory the kernel counts:
	 * a few MiB, whatever the length.  Under valgrind, whose own memory
	 * leaves no bound to check (and whose leak check at a forked child's
	 * _exit would count the parent's allocations), in this process. */
	int status = 0;
	struct rusage ru = { 0 };
	if (test_under_valgrind()) {
		ck_assert_int_eq(read_all(p, rounds), 0);
	} else {
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(read_all(p, rounds));
		ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "reader child: status %d", status);
	}
	long kb = ru.ru_maxrss;
	/* the trace is ~40 MB; the reader keeps its batch index and two 16 KiB
	 * windows (valgrind's own memory and ASan's quarantine leave no bound
	 * to check in those builds) */
	if (!test_under_valgrind() && !test_under_asan())
		ck_assert_msg(kb < 24 * 1024, "reader peak %ld KiB for a %llu-byte trace", kb,
			      (unsigned long long)bytes);
	/* the big one's workload would pass the limit of a workload file:
	 * refused where it does, with the offset */
	if (!test_under_valgrind()) {
		char *out = NULL, *err = NULL;
		int rc = test_runf(&out, &err, "%s workload import %s -o %s/big.json", test_schedlab_bin(),
			     p, tmpdir);
		ck_assert_msg(rc == 2, "exit %d: %s", rc, err);
		ck_assert_ptr_nonnull(strstr(err, "the limit of a workload file"));
		ck_assert_ptr_nonnull(strstr(err, ": offset "));
		free(out);
		free(err);
	}
	/* and the whole import of a smaller one: each wake-up an edge */
	char *small = xasprintf("%s/small.trace", tmpdir);
	write_pingpong(small, 2000);
	struct ti_stats st;
	cJSON *j = import_json(small, &st);
	ck_assert_uint_eq(st.goroutines, 2);
	ck_assert_uint_eq(st.edges, 4000);
	ck_assert_uint_eq(st.programs, 2);
	cJSON_Delete(j);
	free(small);
	free(p);
	tmpdir_teardown();
}
END_TEST

/* ---- The language: sleep_until and "recorded" ---- */

START_TEST(sleep_until_is_absolute)
{
	/* w sleeps until 5 ms after the start, after 1 ms of compute or 7 ms:
	 * the first wakes at 5 ms, the second at once */
	static const char *const cases[][2] = {
		{ "[{\"compute\": \"1ms\"}, {\"sleep_until\": \"5ms\"}, {\"compute\": \"1ms\"}]", "6.0" },
		{ "[{\"compute\": \"7ms\"}, {\"sleep_until\": \"5ms\"}, {\"compute\": \"1ms\"}]", "8.0" },
	};
	tmpdir_setup();
	for (int i = 0; i < 2; i++) {
		char *wl = xasprintf("%s/su.json", tmpdir);
		FILE *f = fopen(wl, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "{\"name\": \"su\", \"programs\": {\"main\": %s}}", cases[i][0]);
		fclose(f);
		char *out = NULL, *err = NULL;
		int rc = test_runf(&out, &err, "%s run -p steal -t numa1 -w %s --json -", test_schedlab_bin(),
			     wl);
		ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
		cJSON *j = cJSON_Parse(out);
		double span = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "metrics"),
						  "makespan_ns")->valuedouble;
		double want = atof(cases[i][1]) * 1e6;
		ck_assert_msg(span >= want && span < want * 1.01, "case %d: makespan %.0f ns, want %.0f",
			      i, span, want);
		cJSON_Delete(j);
		free(out);
		free(err);
		free(wl);
	}
	tmpdir_teardown();
}
END_TEST

START_TEST(recorded_key_checked)
{
	static const char *const bad[][2] = {
		{ "{\"gomaxprocs\": 0, \"makespan_ns\": 1}", "$.recorded.gomaxprocs" },
		{ "{\"gomaxprocs\": 2}", "$.recorded.makespan_ns" },
		{ "{\"gomaxprocs\": 2, \"makespan_ns\": 5, \"bogus\": 1}", "$.recorded" },
		{ "{\"gomaxprocs\": 2, \"makespan_ns\": 5, \"sched_latency_ns\": {\"p5\": 1}}",
		  "$.recorded.sched_latency_ns" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *text = xasprintf("{\"name\": \"r\", \"recorded\": %s, \"programs\": {\"main\": "
				       "[\"yield\"]}}", bad[i][0]);
		struct err e = { "" };
		struct workload *w = wl_compile("r.json", text, &e);
		ck_assert_msg(w == NULL, "accepted: %s", bad[i][0]);
		ck_assert_msg(strstr(e.msg, bad[i][1]) != NULL, "%s: %s", bad[i][0], e.msg);
		free(text);
	}
	struct err e;
	struct workload *w = wl_compile("r.json",
		"{\"name\": \"r\", \"recorded\": {\"go\": \"1.19\", \"gomaxprocs\": 3, "
		"\"makespan_ns\": 5000, \"goroutines\": 4, \"sched_latency_ns\": {\"p50\": 10, "
		"\"p99\": 20}}, \"programs\": {\"main\": [{\"sleep_until\": \"1us\"}]}}", &e);
	ck_assert_msg(w != NULL, "%s", e.msg);
	ck_assert(w->recorded.present);
	ck_assert_str_eq(w->recorded.go, "1.19");
	ck_assert_int_eq(w->recorded.gomaxprocs, 3);
	ck_assert_int_eq(w->recorded.makespan_ns, 5000);
	ck_assert_int_eq(w->recorded.lat_p99_ns, 20);
	wl_free(w);
}
END_TEST

Suite *make_import_suite(void)
{
	Suite *s = suite_create("import");
	TCase *tc = tcase_create("go119");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, real_traces_structure);
	tcase_add_test(tc, real_traces_go126);
	tcase_add_test(tc, flight_snapshots_import);
	tcase_add_test(tc, shared_objects_inferred);
	tcase_add_test(tc, real_traces_events_ordered);
	tcase_add_test(tc, real_trace_runs_from_the_command_line);
	tcase_add_test(tc, workload_import_writes_a_file);
	tcase_add_test(tc, round_trip_goroutine_structure);
	tcase_add_test(tc, bad_traces_exit_2_with_the_offset);
	tcase_add_test(tc, large_trace_bounded_memory);
	tcase_add_test(tc, switch_gap_charged_to_the_blocked_g);
	tcase_add_test(tc, syscall_fast_return_is_no_latency_sample);
	tcase_add_test(tc, sleep_until_is_absolute);
	tcase_add_test(tc, recorded_key_checked);
	suite_add_tcase(s, tc);
	return s;
}
