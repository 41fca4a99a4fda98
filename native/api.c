/* The C API of native/schedlab.h: thin wrappers that find the running G
 * and its M, call the scheduler core, and park the G (switch to its M)
 * when the core says it must wait.  Go's rules (nil channels, closed
 * ones, a negative WaitGroup, an unlocked mutex) are the core's: a call
 * here only ends the G if the core has made it panic.  A parked G resumes on whichever M ran
 * it next, so the M is looked up again after every park. */
#include "native/schedlab.h"
#include "core/runtime.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The running G's M; a call from outside a G is a programming error. */
static struct m *self(const char *call)
{
	struct m *m = plat_self();
	if (!m || !m->curg) {
		fprintf(stderr, "schedlab: %s called outside a goroutine\n", call);
		abort();
	}
	return m;
}

/* Runtime calls are where C code can be preempted, as Go's function
 * prologues were before signals: sysmon flags a G that has held its P for
 * preempt_ms, and its next call here gives the P up. */
static inline struct m *preempt_point(struct m *m)
{
	struct g *g = m->curg;
	if (__builtin_expect(plat_peek_u32(&g->preempt) != 0, 0)) {
		plat_g_leave(g, G_PREEMPT);
		m = plat_self();   /* it may resume on another M */
	}
	return m;
}

/* A panic ends the G that made it, there and then: C cannot unwind it. */
static void exit_if_panicking(struct g *g)
{
	if (g->panicking)
		plat_g_leave(g, G_EXIT);
}

static void panic_now(struct m *m, const char *msg)
{
	rt_panic(m, "%s", msg);
	plat_g_leave(m->curg, G_EXIT);
}

/* ---- The body of a run of C functions [core/body.h] ---- */

/* A G's call, right after it in its slab (rt_g_body). */
struct capi_g {
	void (*fn)(void *);
	void *arg;
	bool root_spawn;         /* what it spawns now is a root goroutine (it accepted) */
};

static struct capi_g *capi_g(struct g *g)
{
	return rt_g_body(g);
}

/* The run's: its main function. */
struct capi_run {
	void (*fn)(void *);
	void *arg;
};

static bool capi_check(const struct rt_config *cfg, struct err *e)
{
	const struct natp_c_args *a = cfg->body_arg;
	if (!a || !a->fn) {
		err_set(e, "no C function to run");
		return false;
	}
	return true;
}

static bool capi_run_new(struct rt *rt, const struct rt_config *cfg, struct err *e)
{
	struct capi_run *r = xcalloc(1, sizeof(*r));
	const struct natp_c_args *a = cfg->body_arg;
	r->fn = a->fn;
	r->arg = a->arg;
	rt->body_run = r;
	rt->name = "(C function)";
	return true;
}

static void capi_run_free(struct rt *rt)
{
	free(rt->body_run);
	rt->body_run = NULL;
}

static void capi_g_set(struct g *g, void (*fn)(void *), void *arg)
{
	struct capi_g *c = capi_g(g);
	c->fn = fn;
	c->arg = arg;
	c->root_spawn = false;
}

static void capi_main_init(struct rt *rt, struct g *g)
{
	const struct capi_run *r = rt->body_run;
	capi_g_set(g, r->fn, r->arg);
}

/* On the G's own stack: the function runs to its end, parking and
 * yielding inside the C API's calls as it goes. */
static enum g_why capi_g_run(struct m *m, struct g *g)
{
	struct capi_g *c = capi_g(g);
	c->fn(c->arg);
	return G_EXIT;
}

static void capi_g_describe(const struct rt *rt, const struct g *g, char *buf, size_t n)
{
	snprintf(buf, n, "a C function");
}

static void capi_g_account_user(struct m *m, struct g *g, int64_t ns)
{
	m->stats.user_ns += (uint64_t)ns;
}

static bool capi_g_spawns_root(const struct g *g)
{
	return capi_g((struct g *)g)->root_spawn;
}

/* The trace's names: a C function has no name the runtime knows, so Gs
 * group as the main function and the rest. */
static const char *const capi_labels[] = { "", "main", "goroutine" };

static size_t capi_trace_labels(const struct rt *rt, const char *const **out)
{
	(void)rt;
	*out = capi_labels;
	return sizeof(capi_labels) / sizeof(capi_labels[0]);
}

static uint32_t capi_g_label(const struct rt *rt, const struct g *g, bool op)
{
	(void)op;
	return g == rt->main_g ? 1 : 2;
}

/* Untimed and unbudgeted; its Gs have stacks, and no modelled ones; its
 * network is real descriptors only. */
const struct body_ops natp_c_body = {
	.name = "C function",
	.g_bytes = sizeof(struct capi_g),
	.needs_stack = true,
	.timed = false,
	.main_ends_run = true,
	.check = capi_check,
	.run_new = capi_run_new,
	.run_free = capi_run_free,
	.main_init = capi_main_init,
	.g_run = capi_g_run,
	.g_describe = capi_g_describe,
	.g_account_user = capi_g_account_user,
	.g_spawns_root = capi_g_spawns_root,
	.trace_labels = capi_trace_labels,
	.g_label = capi_g_label,
};

/* ---- The runtime ---- */

/* Why the last sl_run on this thread did not return 0 (sl_error). */
static _Thread_local char last_error[2048];

/* Keeps msg as the run's error, and prints it unless asked not to. */
static void set_error(const struct sl_options *opt, const char *msg)
{
	snprintf(last_error, sizeof(last_error), "%s", msg);
	if (!opt->quiet)
		fputs(msg, stderr);
}

static int bad_options(const struct sl_options *opt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int bad_options(const struct sl_options *opt, const char *fmt, ...)
{
	char msg[1200];
	int n = snprintf(msg, sizeof(msg), "schedlab: sl_run: ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	strcat(msg, "\n");
	set_error(opt, msg);
	return EXIT_BADINPUT;
}

const char *sl_error(void)
{
	return last_error;
}

int sl_run(const struct sl_options *opt, void (*fn)(void *), void *arg)
{
	static const struct sl_options defaults;
	if (!opt)
		opt = &defaults;
	last_error[0] = '\0';
	if (!fn)
		return bad_options(opt, "no function to run as the main goroutine");
	const char *name = opt->policy ? opt->policy : "steal";
	const struct pol_ops *pol = pol_find(name);
	if (!pol) {
		char names[256] = "";
		size_t len = 0;
		for (int i = 0; i < pol_count(); i++)
			len = str_list_add(names, sizeof(names), len, pol_at(i)->name);
		return bad_options(opt, "policy '%s': no such policy (policies: %s)", name, names);
	}
	if (opt->procs < 0)
		return bad_options(opt, "procs %d: must be 0 (one per processing unit) or more",
				   opt->procs);
	int64_t *knobs = xcalloc((size_t)pol_nknobs(pol) + 1, sizeof(*knobs));
	pol_default_knobs(pol, knobs);
	struct err e = { "" };
	for (const char *const *s = opt->set; s && *s; s++) {
		if (!pol_set_knob(pol, knobs, *s, &e)) {
			free(knobs);
			return bad_options(opt, "set: %s", e.msg);
		}
	}
	struct topo *topo = topo_discover_host(&e);
	if (!topo) {
		free(knobs);
		return bad_options(opt, "%s", e.msg);
	}
	struct rt_config cfg = {
		.policy = pol,
		.knobs = knobs,
		.procs = opt->procs,
		.seed = opt->seed,
		.topo = topo,
		.body = &natp_c_body,
		.body_arg = &(struct natp_c_args){ fn, arg },
	};
	int rc;
	struct rt *rt = rt_new(&cfg, &e);
	if (!rt) {
		rc = bad_options(opt, "%s", e.msg);
	} else {
		if (opt->max_stacks)
			rt->plat.max_stacks = opt->max_stacks;
		rt_run(rt);
		struct rt_result *r = xcalloc(1, sizeof(*r));
		rt_collect(rt, r);
		rt_free(rt);
		char *msg = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&msg, &len);
		if (!f)
			die_oom(0);
		rc = rt_result_report_fatal(r, f);
		fclose(f);
		if (rc)
			set_error(opt, msg);
		free(msg);
		char why[160];
		if (opt->stats)
			*opt->stats = (struct sl_stats){
				.goroutines = r->goroutines,
				.threads = r->threads.created,
				.steals = r->steals.gs_stolen,
				.parks = r->threads.parks,
				.retakes = r->retakes,
				.elapsed_ns = r->makespan_ns,
				.cpu_ns = (int64_t)r->host.cpu_ns,
				.run_delay_ns = r->host.schedstat ? (int64_t)r->host.run_delay_ns : -1,
				.involuntary_switches = r->host.involuntary_switches,
				.host_busy = rt_host_busy(&r->host, why, sizeof(why)),
			};
		free(r);
	}
	topo_free(topo);
	free(knobs);
	return rc;
}

/* ---- Goroutines ---- */

void sl_go(void (*fn)(void *), void *arg)
{
	struct m *m = self("sl_go");
	struct g *g = rt_newg(m);
	assert(g && "a run of C functions has no memory budget");
	capi_g_set(g, fn, arg);
	rt_startg(m, g);
	/* a root spawn's mark (it just accepted a connection) is used up */
	capi_g(m->curg)->root_spawn = false;
	(void)preempt_point(m);
}

void sl_gosched(void)
{
	plat_g_leave(self("sl_gosched")->curg, G_YIELD);
}

void sl_sleep(int64_t ns)
{
	self("sl_sleep");
	rt_sleep(ns);
}

int64_t sl_nanotime(void)
{
	return plat_nanotime();
}

/* ---- Channels ---- */

sl_chan *sl_chan_make(size_t cap)
{
	struct m *m = self("sl_chan_make");
	if (cap > UINT32_MAX)
		panic_now(m, "makechan: size out of range");
	return rt_chan_new(m->rt, (uint32_t)cap, plat_node());
}

void sl_chan_free(sl_chan *c)
{
	rt_chan_free(c);
}

void sl_chan_send(sl_chan *c, uint64_t v)
{
	struct m *m = self("sl_chan_send");
	struct g *g = m->curg;
	m = preempt_point(m);
	/* the core decides Go's cases: nil blocks forever, closed panics */
	if (!rt_chansend(m, c, v)) {
		plat_g_leave(g, G_PARK);      /* a receiver, or close, completes it */
		rt_chansend_resume(plat_self());
	}
	exit_if_panicking(g);
}

uint64_t sl_chan_recv2(sl_chan *c, bool *ok)
{
	struct m *m = self("sl_chan_recv");
	struct g *g = m->curg;
	m = preempt_point(m);
	uint64_t v = 0;
	bool got = true;
	if (!rt_chanrecv(m, c, &v, &got)) {
		plat_g_leave(g, G_PARK);      /* a sender, or close, completes it */
		rt_chanrecv_resume(plat_self(), &v, &got);
	}
	if (ok)
		*ok = got;
	return v;
}

uint64_t sl_chan_recv(sl_chan *c)
{
	return sl_chan_recv2(c, NULL);
}

void sl_chan_close(sl_chan *c)
{
	struct m *m = self("sl_chan_close");
	rt_chanclose(m, c);
	exit_if_panicking(m->curg);
}

int sl_select(struct sl_case *cases, int n, bool nonblocking)
{
	struct m *m = self("sl_select");
	struct g *g = m->curg;
	if (n < 0 || n > SL_SELECT_MAX)
		panic_now(m, "select: more cases than SL_SELECT_MAX");
	/* nil channels' cases are the core's to leave out, as Go's are */
	struct select_case sc[SL_SELECT_MAX];
	for (int i = 0; i < n; i++)
		sc[i] = (struct select_case){ cases[i].c, cases[i].dir == SL_SEND, cases[i].v };
	uint64_t v = 0;
	bool ok = false;
	int fired = rt_select(m, sc, (uint32_t)n, nonblocking, &v, &ok);
	if (fired == RT_SELECT_PARKED) {
		plat_g_leave(g, G_PARK);      /* forever, if no case has a channel */
		fired = rt_select_resume(plat_self(), &v, &ok);
	}
	exit_if_panicking(g);
	if (fired == RT_SELECT_DEFAULT)
		return -1;
	struct sl_case *c = &cases[fired];
	if (c->dir == SL_RECV) {
		c->v = v;
		c->ok = ok;
	}
	return fired;
}

/* ---- sync ---- */

sl_wg *sl_wg_new(void)
{
	struct m *m = self("sl_wg_new");
	return rt_waitgroup_new(m->rt, plat_node());
}

void sl_wg_free(sl_wg *wg)
{
	free(wg);
}

void sl_wg_add(sl_wg *wg, int64_t delta)
{
	struct m *m = preempt_point(self("sl_wg_add"));
	rt_waitgroup_add(m, wg, delta);
	exit_if_panicking(m->curg);
}

void sl_wg_done(sl_wg *wg)
{
	sl_wg_add(wg, -1);
}

void sl_wg_wait(sl_wg *wg)
{
	struct m *m = self("sl_wg_wait");
	if (!rt_waitgroup_wait(m, wg))
		plat_g_leave(m->curg, G_PARK);   /* the Add that reaches zero readies it */
}

sl_mutex *sl_mutex_new(void)
{
	struct m *m = self("sl_mutex_new");
	return rt_gmutex_new(m->rt, plat_node());
}

void sl_mutex_free(sl_mutex *mu)
{
	free(mu);
}

void sl_mutex_lock(sl_mutex *mu)
{
	struct m *m = self("sl_mutex_lock");
	struct g *g = m->curg;
	m = preempt_point(m);
	/* a woken waiter tries again: it may lose to a newcomer */
	while (!rt_gmutex_lock(m, mu)) {
		plat_g_leave(g, G_PARK);
		m = plat_self();
	}
}

void sl_mutex_unlock(sl_mutex *mu)
{
	struct m *m = self("sl_mutex_unlock");
	rt_gmutex_unlock(m, mu);
	exit_if_panicking(m->curg);
}

/* ---- System calls ---- */

void sl_syscall_enter(void)
{
	struct m *m = self("sl_syscall_enter");
	if (m->curg->status == G_SYSCALL) {
		fprintf(stderr, "schedlab: sl_syscall_enter twice without sl_syscall_exit\n");
		abort();
	}
	rt_entersyscall(m, m->curg);
}

void sl_syscall_exit(void)
{
	struct m *m = self("sl_syscall_exit");
	struct g *g = m->curg;
	if (g->status != G_SYSCALL) {
		fprintf(stderr, "schedlab: sl_syscall_exit without sl_syscall_enter\n");
		abort();
	}
	if (!rt_exitsyscall(m, g))
		plat_g_leave(g, G_NOP);   /* no P free: queued, run later by an M with one */
}

ssize_t sl_read(int fd, void *buf, size_t n)
{
	sl_syscall_enter();
	ssize_t r = read(fd, buf, n);
	int err = errno;
	sl_syscall_exit();
	errno = err;
	return r;
}

ssize_t sl_write(int fd, const void *buf, size_t n)
{
	sl_syscall_enter();
	ssize_t r = write(fd, buf, n);
	int err = errno;
	sl_syscall_exit();
	errno = err;
	return r;
}

/* ---- The network poller ---- */

sl_netfd *sl_net_open(int fd)
{
	return rt_netpoll_open(self("sl_net_open"), fd);
}

int sl_net_fd(const sl_netfd *nfd)
{
	return nfd->fd;
}

int sl_net_close(sl_netfd *nfd)
{
	rt_netpoll_close(self("sl_net_close"), nfd);
	return 0;
}

/* After a call on nfd would have blocked: parks until it may not (true),
 * or says why not to try again (false, errno set). */
static bool fd_wait(sl_netfd *nfd, uint32_t mode, const char *call)
{
	struct m *m = self(call);
	struct g *g = m->curg;
	switch (rt_netpoll_fd_wait(m, nfd, mode)) {
	case FD_READY:
		return true;
	case FD_CLOSED:
		errno = EBADF;
		return false;
	case FD_BUSY:
		plat_g_leave(g, G_YIELD);   /* another G waits: let it go first */
		return true;
	case FD_PARK:
		plat_g_leave(g, G_PARK);
		return true;
	}
	return false;
}

ssize_t sl_net_read(sl_netfd *nfd, void *buf, size_t n)
{
	for (;;) {
		ssize_t r = read(nfd->fd, buf, n);
		if (r >= 0 || (errno != EAGAIN && errno != EINTR))
			return r;
		if (errno == EAGAIN && !fd_wait(nfd, NETPOLL_R, "sl_net_read"))
			return -1;
	}
}

ssize_t sl_net_write(sl_netfd *nfd, const void *buf, size_t n)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = write(nfd->fd, (const char *)buf + done, n - done);
		if (r > 0) {
			done += (size_t)r;
		} else if (r < 0 && errno == EAGAIN) {
			if (!fd_wait(nfd, NETPOLL_W, "sl_net_write"))
				return -1;
		} else if (r < 0 && errno != EINTR) {
			return -1;
		}
	}
	return (ssize_t)n;
}

sl_netfd *sl_net_accept(sl_netfd *listener)
{
	for (;;) {
		int fd = accept4(listener->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			sl_netfd *c = sl_net_open(fd);
			if (!c)
				close(fd);
			else
				capi_g(plat_self()->curg)->root_spawn = true;   /* its next spawn is a root */
			return c;
		}
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			return NULL;
		if (errno == EAGAIN && !fd_wait(listener, NETPOLL_R, "sl_net_accept"))
			return NULL;
	}
}

int sl_net_connect(sl_netfd *nfd, const struct sockaddr *addr, socklen_t len)
{
	if (connect(nfd->fd, addr, len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -1;
	for (;;) {
		if (!fd_wait(nfd, NETPOLL_W, "sl_net_connect"))
			return -1;
		int err = 0;
		socklen_t elen = sizeof(err);
		if (getsockopt(nfd->fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
			return -1;
		if (err == 0)
			return 0;
		if (err != EINPROGRESS && err != EALREADY) {
			errno = err;
			return -1;
		}
	}
}
