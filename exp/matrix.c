/* The run-matrix engine (exp/matrix.h).
 *
 * Each run is a job of the child-process pool (util/pool.h), forked from
 * the caller: it inherits the loaded topologies and workloads, runs its
 * cell with run/run.h, and writes back through the pool's pipe its row
 * (exp_json_line: exact numbers, one line), a newline, its text summary,
 * a NUL and its messages.  Its stdout and stderr are the pool's memory
 * file, so that a child that dies says why (its last line: a sanitizer's
 * report, "schedlab: out of memory").  The pool hands the runs back in
 * cell order; a progress line is redrawn every half second. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/run.h"
#include "exp/matrix.h"
#include "exp/store.h"
#include "topologies/topo.h"
#include "util/pool.h"
#include "util/version.h"
#include "workloads/program.h"

/* ---- Rows ---- */

/* A row's fields up to "status"; the caller adds the rest (row_finish). */
static cJSON *row_new(const struct exp_cell *c, const char *matrix, long runs)
{
	cJSON *row = cJSON_CreateObject();
	cJSON_AddNumberToObject(row, "store", EXP_STORE_VERSION);
	cJSON_AddStringToObject(row, "schedlab", SCHEDLAB_VERSION);
	cJSON_AddStringToObject(row, "commit", schedlab_commit());
	cJSON_AddStringToObject(row, "matrix", matrix);
	cJSON_AddNumberToObject(row, "index", (double)c->index);
	cJSON_AddNumberToObject(row, "runs", (double)(c->runs > 0 ? c->runs : runs));
	cJSON_AddStringToObject(row, "variant", c->variant);
	cJSON *in = cJSON_AddObjectToObject(row, "inputs");
	cJSON_AddStringToObject(in, "mode", c->api->mode);
	cJSON_AddStringToObject(in, "policy", c->pol->name);
	cJSON_AddItemToObject(in, "set", c->set ? cJSON_Duplicate(c->set, true) : cJSON_CreateObject());
	cJSON_AddStringToObject(in, "topology", c->topo->name);
	cJSON_AddStringToObject(in, "workload", c->wl->name);
	cJSON_AddNumberToObject(in, "procs", c->procs);
	if (c->gmp.rule != GMP_NUMBER)
		cJSON_AddStringToObject(in, "procs_rule", gmp_rule_name(c->gmp.rule));
	cJSON_AddNumberToObject(in, "seed", (double)c->seed);
	return row;
}

static void row_finish(cJSON *row, const char *status, int exit_status, const char *message,
		       cJSON *report)
{
	cJSON_AddStringToObject(row, "status", status);
	cJSON_AddNumberToObject(row, "exit_status", exit_status);
	if (message) {
		char *m = str_escape(message);
		cJSON_AddStringToObject(row, "message", m);
		free(m);
	} else {
		cJSON_AddNullToObject(row, "message");
	}
	cJSON_AddItemToObject(row, "report", report ? report : cJSON_CreateNull());
}

/* The first line of s, without its newline (malloc'd). */
static char *first_line(const char *s)
{
	size_t n = strcspn(s, "\n");
	char *l = xmalloc(n + 1);
	memcpy(l, s, n);
	l[n] = '\0';
	return l;
}

/* The last non-empty line of s (malloc'd), or NULL. */
static char *last_line(const char *s, size_t len)
{
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' '))
		len--;
	if (len == 0)
		return NULL;
	size_t start = len;
	while (start > 0 && s[start - 1] != '\n')
		start--;
	char *l = xmalloc(len - start + 1);
	memcpy(l, s + start, len - start);
	l[len - start] = '\0';
	return l;
}

static cJSON *cell_run(const struct exp_cell *c, const char *matrix, long runs, const char *cmd,
		       char **summary, char **messages)
{
	struct run run = {
		.api = c->api, .pol = c->pol, .knobs = c->knobs, .topo = c->topo, .wl = c->wl,
		.seed = c->seed, .procs = c->procs, .gmp = c->gmp, .os = c->os,
		.lim.max_sim_ns = c->max_sim_ns,
		.lim.max_wall_ns = c->max_wall_ns, .lim.max_memory = c->max_memory,
		.lim.why = c->why,
	};
	cJSON *row = row_new(c, matrix, runs);
	struct err e = { "" };
	struct rt *rt = run_exec(&run, false, &e);
	if (summary)
		*summary = NULL;
	if (messages)
		*messages = NULL;
	if (!rt) {
		row_finish(row, "error", EXIT_BADINPUT, e.msg, NULL);
		if (summary)
			*summary = xstrdup("");
		if (messages)
			*messages = xasprintf("%s\n", e.msg);
		rt_mech_free(&run.mech);
		return row;
	}
	run.api->destroy(rt);
	cJSON *report = run_report_json(&run);
	char *msg = NULL;
	size_t msglen = 0;
	FILE *mf = open_memstream(&msg, &msglen);
	int rc = rt_result_report_fatal(&run.r, mf);
	if (rc == 0)
		rc = run_report_cut(cmd ? cmd : "run", &run, mf);
	fclose(mf);
	const char *status = run.r.panicked ? "panic" : run.r.deadlock ? "deadlock"
			     : rc == EXIT_LIMIT ? "limit" : "ok";
	char *line = rc ? first_line(msg) : NULL;
	if (run.r.deadlock && !run.r.panicked) {
		free(line);
		line = xasprintf("fatal error: all goroutines are asleep - deadlock! (%llu goroutines "
				 "blocked)", (unsigned long long)run.r.nblocked);
	} else if (rc == EXIT_LIMIT && line) {
		/* "schedlab run: the run reached ..." -> "the run reached ..." */
		const char *p = strstr(line, ": ");
		if (p) {
			char *l = xstrdup(p + 2);
			free(line);
			line = l;
		}
	}
	row_finish(row, status, rc, line, report);
	if (rc && summary) {
		char *text = NULL;
		size_t len = 0;
		FILE *saved = stdout;
		stdout = open_memstream(&text, &len);
		run_report_text(&run);
		fclose(stdout);
		stdout = saved;
		*summary = text;
	}
	if (rc && messages) {
		*messages = msg;
		msg = NULL;
	}
	free(msg);
	free(line);
	rt_mech_free(&run.mech);
	return row;
}

cJSON *exp_cell_run(const struct exp_cell *c, const char *matrix, const char *cmd,
		    char **summary, char **messages)
{
	return cell_run(c, matrix, 1, cmd, summary, messages);
}

/* ---- The matrix's id and the default -j ---- */

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* A cell's procs rule and OS limits into h: nothing for a cell with none,
 * so that the ids of matrices made before them stay the same. */
static uint64_t os_fnv(uint64_t h, const struct exp_cell *c)
{
	const struct rt_os *os = &c->os;
	if (c->gmp.rule == GMP_NUMBER && !os->quota_ns && !os->cpuset && !os->load_threads)
		return h;
	char *s = xasprintf("os:%d|%lld|%lld|%d|%.17g|%lld|", (int)c->gmp.rule,
			    (long long)os->quota_ns, (long long)os->period_ns, os->load_threads,
			    os->load_duty, (long long)os->load_period_ns);
	h = fnv(h, s, strlen(s));
	free(s);
	for (int i = 0; os->cpuset && i < c->topo->npus; i++)
		h = fnv(h, os->cpuset[i] ? "1" : "0", 1);
	return h;
}

void exp_matrix_id(const struct exp_cell *cells, long n, char id[17])
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (long i = 0; i < n; i++) {
		const struct exp_cell *c = &cells[i];
		char *s = xasprintf("%ld|%s|%s|%s|%s|%s|%d|%llu|%lld|%lld|%llu|", c->index, c->api->mode,
				    c->variant, c->pol->name, c->topo->name, c->wl->name, c->procs,
				    (unsigned long long)c->seed, (long long)c->max_sim_ns,
				    (long long)c->max_wall_ns, (unsigned long long)c->max_memory);
		h = fnv(h, s, strlen(s) + 1);
		free(s);
		if (c->why)       /* only then: a matrix without it keeps its id */
			h = fnv(h, "why", 3);
		h = os_fnv(h, c);
		for (int k = 0; k < pol_nknobs(c->pol); k++) {
			char kv[96];
			snprintf(kv, sizeof(kv), "%s=%lld;", c->pol->knobs[k].name, (long long)c->knobs[k]);
			h = fnv(h, kv, strlen(kv));
		}
		h = fnv(h, "\n", 1);
	}
	snprintf(id, 17, "%016llx", (unsigned long long)h);
}

int exp_default_jobs(const struct exp_cell *cells, long n, uint64_t max_memory)
{
	for (long i = 0; i < n; i++)
		if (strcmp(cells[i].api->mode, "native") == 0)
			return 1;
	uint64_t each = max_memory;
	/* 0: the largest budget a cell runs with */
	for (long i = 0; each == 0 && i < n; i++)
		if (!cells[i].max_memory)
			each = RT_MEMORY_BUDGET;
	for (long i = 0; max_memory == 0 && i < n; i++)
		if (cells[i].max_memory > each)
			each = cells[i].max_memory;
	if (each == 0)
		each = RT_MEMORY_BUDGET;
	return pool_default_jobs(4096, each);
}

/* ---- Running ---- */

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void fmt_dur(char buf[32], double s)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, 32, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, 32, "%ld:%02ld", t / 60, t % 60);
}

static void progress(struct progress *p, const char *cmd, long done, long n, int running,
		     long failed, double t0)
{
	char el[32], eta[48] = "";
	double e = now_s() - t0;
	fmt_dur(el, e);
	if (done > 0 && done < n) {
		char d[32];
		fmt_dur(d, e / (double)done * (double)(n - done));
		snprintf(eta, sizeof(eta), ", ETA %s", d);
	}
	progress_print(p, "schedlab %s: %ld/%ld runs done, %d running, %ld failed, %s elapsed%s", cmd,
		       done, n, running, failed, el, eta);
}

/* A matrix being run: the pool's context. */
struct matrix {
	const struct exp_cell *cells;
	long n;
	const char *id;
	const struct exp_opts *o;
	struct exp_run *runs;
	long failed;
	double t0;
	struct progress progress;
};

/* The child: runs its cell and writes row, summary, messages to fd. */
static int child_run(void *ctx, long i, int fd)
{
	struct matrix *m = ctx;
	char *summary, *messages;
	cJSON *row = cell_run(&m->cells[i], m->id, m->n, m->o->cmd, &summary, &messages);
	char *line = exp_json_line(row);
	struct part {
		const char *p;
		size_t n;
	} parts[] = {
		{ line, strlen(line) }, { "\n", 1 }, { summary ? summary : "", summary ? strlen(summary) : 0 },
		{ "", 1 }, { messages ? messages : "", messages ? strlen(messages) : 0 },
	};
	for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++)
		if (!pool_write(fd, parts[k].p, parts[k].n))
			return 3;
	return 0;
}

/* The row a child wrote, with the summary and messages of a failed run;
 * NULL if it wrote none. */
static cJSON *child_row(const struct pool_end *end, struct exp_run *run)
{
	const char *nl = memchr(end->data, '\n', end->len);
	if (end->what || !WIFEXITED(end->status) || WEXITSTATUS(end->status) != 0 || !nl)
		return NULL;
	cJSON *row = cJSON_ParseWithLength(end->data, (size_t)(nl - end->data));
	const char *rest = nl + 1;
	size_t restlen = end->len - (size_t)(rest - end->data);
	const char *nul = memchr(rest, '\0', restlen);
	if (row && nul && strcmp(exp_row_status(row), "ok") != 0) {
		run->summary = xstrdup(rest);
		size_t mlen = restlen - (size_t)(nul + 1 - rest);
		run->messages = xmalloc(mlen + 1);
		memcpy(run->messages, nul + 1, mlen);
		run->messages[mlen] = '\0';
	}
	return row;
}

/* The "crashed" row of a child that died without one. */
static cJSON *crashed_row(const struct matrix *m, const struct exp_cell *c,
			  const struct pool_end *end, struct exp_run *run)
{
	char *last = last_line(end->out, end->outlen);
	char *msg;
	int exit_status;
	int status = end->status;
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		exit_status = 128 + sig;
		msg = xasprintf("the run's process was killed by signal %d (%s)%s%s", sig,
				strsignal(sig), last ? ": " : "", last ? last : "");
	} else {
		exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
		msg = xasprintf("the run's process exited with status %d without a report%s%s",
				exit_status, last ? ": " : "", last ? last : "");
	}
	cJSON *row = row_new(c, m->id, m->n);
	row_finish(row, "crashed", exit_status, msg, NULL);
	run->summary = xstrdup("");
	run->messages = xasprintf("%s%s\n", end->out, msg);
	free(msg);
	free(last);
	return row;
}

/* The row of a run that could not start (or be followed). */
static cJSON *error_row(const struct matrix *m, const struct exp_cell *c,
			const struct pool_end *end, struct exp_run *run)
{
	char *msg = xasprintf("schedlab could not start the run: %s: %s", end->what,
			      strerror(end->err));
	cJSON *row = row_new(c, m->id, m->n);
	row_finish(row, "error", 3, msg, NULL);
	run->summary = xstrdup("");
	run->messages = xasprintf("%s\n", msg);
	free(msg);
	return row;
}

/* A run has ended, and every run before it: its outcome. */
static bool child_done(void *ctx, long i, struct pool_end *end)
{
	struct matrix *m = ctx;
	struct exp_run *run = &m->runs[i];
	const struct exp_cell *c = &m->cells[i];
	run->row = child_row(end, run);
	if (!run->row)
		run->row = end->what ? error_row(m, c, end, run) : crashed_row(m, c, end, run);
	m->failed += strcmp(exp_row_status(run->row), "ok") != 0;
	if (m->o->row_done)
		m->o->row_done(m->o->ctx, i, run->row);
	return true;
}

static void tick(void *ctx, long ended, int running)
{
	struct matrix *m = ctx;
	if (progress_due(&m->progress, now_s()))
		progress(&m->progress, m->o->cmd, ended, m->n, running, m->failed, m->t0);
}

struct exp_run *exp_matrix_run(const struct exp_cell *cells, long n, const struct exp_opts *o)
{
	struct matrix m = {
		.cells = cells, .n = n, .id = o->matrix, .o = o, .t0 = now_s(),
		.runs = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*m.runs)),
	};
	char id[17];
	if (!m.id) {
		exp_matrix_id(cells, n, id);
		m.id = id;
	}
	progress_start(&m.progress, o->progress, m.t0);
	struct pool_ops pool = {
		.n = n, .jobs = o->jobs > 0 ? o->jobs : exp_default_jobs(cells, n, 0),
		.capture = true, .run = child_run, .done = child_done,
		.tick_ms = m.progress.on ? 500 : 0, .tick = tick, .ctx = &m,
	};
	pool_run(&pool);
	if (progress_wants_last(&m.progress))
		progress(&m.progress, o->cmd, n, n, 0, m.failed, m.t0);
	progress_finish(&m.progress);
	return m.runs;
}

void exp_runs_free(struct exp_run *runs, long n)
{
	if (!runs)
		return;
	for (long i = 0; i < n; i++) {
		cJSON_Delete(runs[i].row);
		free(runs[i].summary);
		free(runs[i].messages);
	}
	free(runs);
}

const char *exp_row_status(const cJSON *row)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(row, "status");
	return cJSON_IsString(s) ? s->valuestring : "error";
}

int exp_row_exit_status(const cJSON *row)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(row, "exit_status");
	return cJSON_IsNumber(s) ? (int)s->valuedouble : 3;
}

long exp_runs_first_failed(const struct exp_run *runs, long n)
{
	for (long i = 0; i < n; i++)
		if (strcmp(exp_row_status(runs[i].row), "ok") != 0)
			return i;
	return -1;
}
