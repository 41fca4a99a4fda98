/* The child-process pool (util/pool.h).
 *
 * The parent polls the pipes of its running children: a child's write end
 * closes when it dies, so end of file, not SIGCHLD, says a child is done,
 * and nothing of the caller's signal handling changes but SIGCHLD's
 * disposition while it runs.  Ended jobs wait in a ring until every job
 * before them has ended; no job starts further than the ring's size past
 * the first one not yet handed over, which bounds what waits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/pool.h"
#include "util/util.h"

#define OUT_TAIL 65536          /* of a child's stdout and stderr kept */
#define WINDOW_PER_JOB 64       /* jobs ended and waiting for an earlier one, per child */

struct child {
	pid_t pid;
	long job;
	int fd;                        /* the pipe's read end */
	int out;                       /* the memory file of its stdout and stderr, or -1 */
	char *data;
	size_t len, cap;
	bool killed;
};

struct pool {
	const struct pool_ops *ops;
	int jobs;
	struct child *ch;
	struct pollfd *pfd;
	int running;
	long next, delivered, ended;
	/* ring[j % window]: job j's end, for next > j >= delivered */
	struct pool_end *ring;
	bool *ready;
	long window;
	bool stopped;
	pid_t parent;
	double last_tick;
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int pool_default_jobs(int max, uint64_t bytes_each)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = cpus > 0 ? (int)(cpus < max ? cpus : max) : 1;
	return proc_jobs_cap(jobs, bytes_each, 0);
}

bool pool_write(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* The tail of the memory file's text, malloc'd. */
static char *out_tail(int fd, size_t *len)
{
	off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : 0;
	if (size < 0)
		size = 0;
	off_t from = size > OUT_TAIL ? size - OUT_TAIL : 0;
	char *s = xmalloc((size_t)(size - from) + 1);
	ssize_t r = size > from ? pread(fd, s, (size_t)(size - from), from) : 0;
	*len = r > 0 ? (size_t)r : 0;
	s[*len] = '\0';
	return s;
}

static struct pool_end *slot_of(struct pool *p, long job)
{
	return &p->ring[job % p->window];
}

static void end_failed(struct pool *p, long job, const char *what, int err)
{
	*slot_of(p, job) = (struct pool_end){ .what = what, .err = err, .data = xstrdup(""),
					      .out = xstrdup("") };
	p->ready[job % p->window] = true;
	p->ended++;
}

static void end_free(struct pool_end *e)
{
	free(e->data);
	free(e->out);
	memset(e, 0, sizeof(*e));
}

/* In the child: never returns. */
static _Noreturn void child_main(struct pool *p, long job, int fd, int out)
{
	/* a parent killed (SIGTERM, SIGINT, SIGKILL) takes its children
	 * with it, rather than leave them running to their own limits */
	proc_die_with_parent(p->parent);
	for (int i = 0; i < p->running; i++) {
		close(p->ch[i].fd);
		if (p->ch[i].out >= 0)
			close(p->ch[i].out);
	}
	if (out >= 0) {
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
	}
	signal(SIGPIPE, SIG_DFL);
	_exit(p->ops->run(p->ops->ctx, job, fd));
}

/* Forks job p->next.  0 started (or failed for good: its end is the
 * failure); -1 not now, short of descriptors or processes: retry when a
 * running child has ended. */
static int start(struct pool *p)
{
	long job = p->next;
	for (int tries = 0;; tries++) {
		int fds[2] = { -1, -1 };
		int out = -1;
		const char *what = NULL;
		if (p->ops->capture && (out = memfd_create("schedlab-child", MFD_CLOEXEC)) < 0)
			what = "memfd_create";
		if (!what && pipe2(fds, O_CLOEXEC) != 0)
			what = "pipe";
		pid_t pid = -1;
		if (!what) {
			fflush(NULL);
			pid = fork();
			if (pid < 0)
				what = "fork";
		}
		if (pid == 0) {
			close(fds[0]);
			child_main(p, job, fds[1], out);
		}
		if (!what) {
			close(fds[1]);
			p->ch[p->running++] = (struct child){ .pid = pid, .job = job, .fd = fds[0],
							      .out = out };
			p->next++;
			return 0;
		}
		int why = errno;
		if (fds[0] >= 0) {
			close(fds[0]);
			close(fds[1]);
		}
		if (out >= 0)
			close(out);
		bool passing = why == EMFILE || why == ENFILE || why == EAGAIN || why == ENOMEM;
		if (passing && p->running > 0)
			return -1;
		/* with nothing running, a full process table is still a
		 * passing state of a busy host: wait a little, a few times */
		if (why == EAGAIN && tries < 50) {
			nanosleep(&(struct timespec){ 0, 100 * 1000000 }, NULL);
			continue;
		}
		end_failed(p, job, what, why);
		p->next++;
		return 0;
	}
}

/* Child i has closed its pipe: reaps it into its job's end. */
static void reap(struct pool *p, int i)
{
	struct child *k = &p->ch[i];
	int status = 0;
	while (waitpid(k->pid, &status, 0) < 0 && errno == EINTR)
		;
	struct pool_end *e = slot_of(p, k->job);
	*e = (struct pool_end){ .status = status, .killed = k->killed };
	e->data = k->data ? k->data : xstrdup("");
	e->len = k->len;
	e->out = out_tail(k->out, &e->outlen);
	p->ready[k->job % p->window] = true;
	p->ended++;
	close(k->fd);
	if (k->out >= 0)
		close(k->out);
	p->ch[i] = p->ch[--p->running];
}

static void kill_child(struct child *k)
{
	kill(k->pid, SIGKILL);
	k->killed = true;
}

/* Reads what child i wrote; its end of file reaps it. */
static void drain(struct pool *p, int i)
{
	struct child *k = &p->ch[i];
	if (k->len + 65536 + 1 > k->cap) {
		k->cap = (k->len + 65536 + 1) * 2;
		k->data = xrealloc(k->data, k->cap);
		k->data[k->len] = '\0';     /* a child that writes nothing ends with "" */
	}
	ssize_t got = read(k->fd, k->data + k->len, k->cap - k->len - 1);
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (got > 0) {
		size_t max = p->ops->max_data;
		if (max && k->len + (size_t)got > max) {
			got = (ssize_t)(max - k->len);
			if (!k->killed)
				kill_child(k);
		}
		k->len += (size_t)got;
		k->data[k->len] = '\0';
		return;
	}
	reap(p, i);
}

/* Kills and reaps every running child. */
static void kill_all(struct pool *p)
{
	for (int i = 0; i < p->running; i++)
		kill_child(&p->ch[i]);
	while (p->running > 0)
		reap(p, p->running - 1);
}

/* Hands done the ended jobs in order, from the first not yet handed. */
static void deliver(struct pool *p)
{
	while (!p->stopped && p->delivered < p->next && p->ready[p->delivered % p->window]) {
		long job = p->delivered++;
		struct pool_end *e = slot_of(p, job);
		p->ready[job % p->window] = false;
		if (!p->ops->done(p->ops->ctx, job, e))
			p->stopped = true;
		end_free(e);
	}
}

static void tick(struct pool *p)
{
	const struct pool_ops *o = p->ops;
	if (o->tick_ms <= 0 || now_s() - p->last_tick < o->tick_ms / 1000.0)
		return;
	p->last_tick = now_s();
	if (o->tick)
		o->tick(o->ctx, p->ended, p->running);
	for (int i = 0; o->watch && i < p->running; i++)
		if (!p->ch[i].killed && o->watch(o->ctx, p->ch[i].job, p->ch[i].pid))
			kill_child(&p->ch[i]);
}

/* poll failed (it cannot with valid descriptors): every job not ended
 * is a failure, and no child is left behind. */
static void give_up(struct pool *p, int why)
{
	while (p->running > 0) {
		struct child *k = &p->ch[--p->running];
		kill(k->pid, SIGKILL);
		while (waitpid(k->pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(k->fd);
		if (k->out >= 0)
			close(k->out);
		free(k->data);
		end_failed(p, k->job, "poll", why);
	}
	while (!p->stopped && p->delivered < p->ops->n) {
		if (p->next < p->ops->n && p->next < p->delivered + p->window)
			end_failed(p, p->next++, "poll", why);
		deliver(p);
	}
}

/* Waits for the running children's pipes, reads them, reaps the ended. */
static void step(struct pool *p)
{
	for (int i = 0; i < p->running; i++)
		p->pfd[i] = (struct pollfd){ .fd = p->ch[i].fd, .events = POLLIN };
	int r = poll(p->pfd, (nfds_t)p->running, p->ops->tick_ms > 0 ? p->ops->tick_ms : -1);
	if (r < 0 && errno != EINTR && errno != EAGAIN) {
		give_up(p, errno);
		return;
	}
	/* from the last, so that a reaped child's place takes one already seen */
	for (int i = p->running - 1; r > 0 && i >= 0; i--)
		if (p->pfd[i].revents)
			drain(p, i);
	tick(p);
}

static bool halting(const struct pool *p)
{
	return p->ops->halt && p->ops->halt(p->ops->ctx);
}

long pool_run(const struct pool_ops *ops)
{
	struct pool p = { .ops = ops, .parent = getpid(), .last_tick = now_s() };
	if (ops->n <= 0)
		return 0;
	/* a running child holds its pipe and its memory file here, and the
	 * pipe's write end too while it starts */
	p.jobs = proc_jobs_cap(ops->jobs > 0 ? ops->jobs : 1, 0, ops->capture ? 3 : 2);
	if (p.jobs > ops->n)
		p.jobs = (int)ops->n;
	p.window = (long)p.jobs * WINDOW_PER_JOB;
	p.ch = xcalloc((size_t)p.jobs, sizeof(*p.ch));
	p.pfd = xcalloc((size_t)p.jobs, sizeof(*p.pfd));
	p.ring = xcalloc((size_t)p.window, sizeof(*p.ring));
	p.ready = xcalloc((size_t)p.window, sizeof(*p.ready));
	struct sigaction dfl = { .sa_handler = SIG_DFL }, saved;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGCHLD, &dfl, &saved);
	while (!p.stopped && p.delivered < ops->n) {
		bool halt = halting(&p);
		while (!halt && p.running < p.jobs && p.next < ops->n &&
		       p.next < p.delivered + p.window)
			if (start(&p) < 0)
				break;
		deliver(&p);
		/* asked again: done may be why (a signal raised in it) */
		p.stopped |= halt || halting(&p);
		if (!p.stopped && p.running > 0)
			step(&p);
	}
	kill_all(&p);
	for (long j = p.delivered; j < p.next; j++)
		end_free(slot_of(&p, j));
	sigaction(SIGCHLD, &saved, NULL);
	free(p.ch);
	free(p.pfd);
	free(p.ring);
	free(p.ready);
	return p.delivered;
}
