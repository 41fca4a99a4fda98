/* The run-matrix engine (exp/matrix.h).
 *
 * Each run is a child process forked from the caller: it inherits the
 * loaded topologies and workloads, runs its cell with cli/run.h's
 * machinery, and writes back through a pipe its row (exp_json_line: exact
 * numbers, one line), a NUL-free newline, its text summary, a NUL and its
 * messages.  Its stdout and stderr go to a memory file of the parent's, so
 * that parallel runs never interleave on the terminal and a child that
 * dies says why (its last line: a sanitizer's report, "schedlab: out of
 * memory").  The parent polls the pipes of the running children, starts a
 * new run when one ends, and redraws one progress line. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/run.h"
#include "exp/matrix.h"
#include "exp/store.h"
#include "topologies/topo.h"
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
		.seed = c->seed, .procs = c->procs, .max_sim_ns = c->max_sim_ns,
		.max_wall_ns = c->max_wall_ns, .max_memory = c->max_memory,
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
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = cpus > 0 ? (int)(cpus < 4096 ? cpus : 4096) : 1;
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
	return proc_jobs_cap(jobs, each, 0);
}

/* ---- Running ---- */

struct child {
	pid_t pid;
	long cell;
	int fd;                        /* the pipe's read end */
	int out;                       /* the memory file holding its stdout and stderr */
	char *data;
	size_t len, cap;
};

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

static void progress(const char *cmd, long done, long n, int running, long failed, double t0)
{
	char el[32], eta[32];
	double e = now_s() - t0;
	fmt_dur(el, e);
	fprintf(stderr, "\rschedlab %s: %ld/%ld runs done, %d running, %ld failed, %s elapsed", cmd,
		done, n, running, failed, el);
	if (done > 0 && done < n) {
		fmt_dur(eta, e / (double)done * (double)(n - done));
		fprintf(stderr, ", ETA %s", eta);
	}
	fprintf(stderr, "\033[K");
	fflush(stderr);
}

/* The child: runs its cell and writes row, summary, messages to fd. */
static _Noreturn void child_main(const struct exp_cell *c, const char *matrix, long runs,
				 const char *cmd, int fd, int out)
{
	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
	signal(SIGPIPE, SIG_DFL);
	char *summary, *messages;
	cJSON *row = cell_run(c, matrix, runs, cmd, &summary, &messages);
	char *line = exp_json_line(row);
	struct part {
		const char *p;
		size_t n;
	} parts[] = {
		{ line, strlen(line) }, { "\n", 1 }, { summary ? summary : "", summary ? strlen(summary) : 0 },
		{ "", 1 }, { messages ? messages : "", messages ? strlen(messages) : 0 },
	};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		const char *p = parts[i].p;
		size_t left = parts[i].n;
		while (left > 0) {
			ssize_t w = write(fd, p, left);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				_exit(3);
			p += w;
			left -= (size_t)w;
		}
	}
	_exit(0);
}

/* The memory file's text (its stdout and stderr), malloc'd. */
static char *out_text(int fd, size_t *len)
{
	off_t size = lseek(fd, 0, SEEK_END);
	if (size < 0)
		size = 0;
	/* a runaway child's output is not worth more than its tail */
	off_t from = size > 65536 ? size - 65536 : 0;
	char *s = xmalloc((size_t)(size - from) + 1);
	ssize_t r = pread(fd, s, (size_t)(size - from), from);
	*len = r > 0 ? (size_t)r : 0;
	s[*len] = '\0';
	return s;
}

/* A child has ended (status from waitpid): its outcome. */
static void child_done(struct child *ch, int status, const struct exp_cell *c, const char *matrix,
		       long runs, struct exp_run *run)
{
	cJSON *row = NULL;
	char *nl = ch->data ? memchr(ch->data, '\n', ch->len) : NULL;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && nl) {
		row = cJSON_ParseWithLength(ch->data, (size_t)(nl - ch->data));
		const char *rest = nl + 1;
		size_t restlen = ch->len - (size_t)(rest - ch->data);
		const char *nul = memchr(rest, '\0', restlen);
		if (row && nul && strcmp(exp_row_status(row), "ok") != 0) {
			run->summary = xstrdup(rest);
			size_t mlen = restlen - (size_t)(nul + 1 - rest);
			run->messages = xmalloc(mlen + 1);
			memcpy(run->messages, nul + 1, mlen);
			run->messages[mlen] = '\0';
		}
	}
	if (!row) {
		size_t len;
		char *out = out_text(ch->out, &len);
		char *last = last_line(out, len);
		char *msg;
		int exit_status;
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
		row = row_new(c, matrix, runs);
		row_finish(row, "crashed", exit_status, msg, NULL);
		run->summary = xstrdup("");
		run->messages = xasprintf("%s%s\n", out, msg);
		free(msg);
		free(last);
		free(out);
	}
	run->row = row;
}

static void run_error(const struct exp_cell *c, const char *matrix, long runs,
		      struct exp_run *run, const char *what)
{
	char *msg = xasprintf("schedlab could not start the run: %s: %s", what, strerror(errno));
	run->row = row_new(c, matrix, runs);
	row_finish(run->row, "error", 3, msg, NULL);
	run->summary = xstrdup("");
	run->messages = xasprintf("%s\n", msg);
	free(msg);
}

/* Hands o->row_done the rows done in order from *emitted on. */
static void emit_rows(const struct exp_opts *o, const struct exp_run *runs, long n, long *emitted)
{
	for (; o->row_done && *emitted < n && runs[*emitted].row; ++*emitted)
		o->row_done(o->ctx, *emitted, runs[*emitted].row);
}

struct exp_run *exp_matrix_run(const struct exp_cell *cells, long n, const struct exp_opts *o)
{
	struct exp_run *runs = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*runs));
	char id[17];
	const char *matrix = o->matrix;
	if (!matrix) {
		exp_matrix_id(cells, n, id);
		matrix = id;
	}
	int jobs = o->jobs > 0 ? o->jobs : exp_default_jobs(cells, n, 0);
	/* a running run holds two descriptors here (its pipe, its memory
	 * file) and three while it starts */
	jobs = proc_jobs_cap(jobs, 0, 3);
	if (jobs > n)
		jobs = n > 0 ? (int)n : 1;
	bool show = o->progress == EXP_PROGRESS_ON ||
		    (o->progress == EXP_PROGRESS_AUTO && isatty(STDERR_FILENO));
	struct child *ch = xcalloc((size_t)jobs, sizeof(*ch));
	struct pollfd *pfd = xcalloc((size_t)jobs, sizeof(*pfd));
	int running = 0;
	long next = 0, done = 0, failed = 0, emitted = 0;
	double t0 = now_s(), last_shown = -1;
	pid_t parent = getpid();
	/* SIGCHLD inherited as ignored makes the kernel reap the children
	 * itself: waitpid would fail (ECHILD) with no status, and a crashed
	 * run read as one that exited 0 */
	struct sigaction dfl = { .sa_handler = SIG_DFL }, saved;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGCHLD, &dfl, &saved);
	/* a child's write end closes when it dies: that, not SIGCHLD, is the
	 * signal, so nothing of the caller's signal handling changes */
	while (done < n) {
		emit_rows(o, runs, n, &emitted);
		while (running < jobs && next < n) {
			const struct exp_cell *c = &cells[next];
			int p[2] = { -1, -1 };
			int out = memfd_create("schedlab-run", MFD_CLOEXEC);
			const char *what = out < 0 ? "memfd_create" : NULL;
			if (!what && pipe2(p, O_CLOEXEC) != 0)
				what = "pipe";
			pid_t pid = -1;
			if (!what) {
				fflush(stdout);
				fflush(stderr);
				pid = fork();
				if (pid < 0)
					what = "fork";
			}
			if (what) {
				int why = errno;
				if (p[0] >= 0) {
					close(p[0]);
					close(p[1]);
				}
				if (out >= 0)
					close(out);
				errno = why;
				/* short of descriptors or processes: wait for a
				 * running run to end and try again; only with none
				 * running is it the run's error */
				if (running > 0 && (why == EMFILE || why == ENFILE || why == EAGAIN ||
						    why == ENOMEM))
					break;
				run_error(c, matrix, n, &runs[next], what);
				next++, done++, failed++;
				continue;
			}
			if (pid == 0) {
				/* a parent killed (SIGTERM, SIGINT, SIGKILL) takes its
				 * runs with it, rather than leave them running to
				 * --max-wall-time */
				proc_die_with_parent(parent);
				close(p[0]);
				for (int i = 0; i < running; i++) {
					close(ch[i].fd);
					close(ch[i].out);
				}
				child_main(c, matrix, n, o->cmd, p[1], out);
			}
			close(p[1]);
			ch[running] = (struct child){ .pid = pid, .cell = next, .fd = p[0], .out = out };
			running++;
			next++;
		}
		if (running <= 0)
			continue;
		if (show && now_s() - last_shown >= 0.5) {
			progress(o->cmd, done, n, running, failed, t0);
			last_shown = now_s();
		}
		for (int i = 0; i < running; i++)
			pfd[i] = (struct pollfd){ .fd = ch[i].fd, .events = POLLIN };
		int r = poll(pfd, (nfds_t)running, show ? 500 : -1);
		if (r < 0 && errno != EINTR && errno != EAGAIN) {
			/* cannot happen with valid fds (EFAULT, EINVAL); were it
			 * to, every run unfinished is an error row and no
			 * child is left behind */
			int why = errno;
			for (int i = 0; i < running; i++) {
				kill(ch[i].pid, SIGKILL);
				while (waitpid(ch[i].pid, NULL, 0) < 0 && errno == EINTR)
					;
				errno = why;
				run_error(&cells[ch[i].cell], matrix, n, &runs[ch[i].cell], "poll");
				close(ch[i].fd);
				close(ch[i].out);
				free(ch[i].data);
			}
			running = 0;
			for (; next < n; next++) {
				errno = why;
				run_error(&cells[next], matrix, n, &runs[next], "poll");
			}
			break;
		}
		for (int i = running - 1; r > 0 && i >= 0; i--) {
			if (!pfd[i].revents)
				continue;
			struct child *k = &ch[i];
			if (k->len + 65536 > k->cap) {
				k->cap = (k->len + 65536) * 2;
				k->data = xrealloc(k->data, k->cap);
			}
			ssize_t got = read(k->fd, k->data + k->len, k->cap - k->len);
			if (got > 0) {
				k->len += (size_t)got;
				continue;
			}
			if (got < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			/* end of file: the child has finished or died */
			int status = 0;
			while (waitpid(k->pid, &status, 0) < 0 && errno == EINTR)
				;
			child_done(k, status, &cells[k->cell], matrix, n, &runs[k->cell]);
			failed += strcmp(exp_row_status(runs[k->cell].row), "ok") != 0;
			done++;
			close(k->fd);
			close(k->out);
			free(k->data);
			ch[i] = ch[--running];
		}
	}
	sigaction(SIGCHLD, &saved, NULL);
	emit_rows(o, runs, n, &emitted);
	if (show) {
		progress(o->cmd, done, n, 0, failed, t0);
		fprintf(stderr, "\n");
	}
	free(ch);
	free(pfd);
	return runs;
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
