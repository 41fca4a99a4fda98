/* Native platform: the out-of-line half of native/plat.h. */
#include "policies/runtime.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A G's stack.  Generous because sanitizer builds use several times the
 * frames of a plain one; untouched pages cost nothing. */
#define NATP_G_STACK (256u * 1024u)

static _Thread_local struct m *natp_cur;

/* Out of line on purpose: a G may leave one thread and resume on another,
 * and a compiler may keep a thread-local's address across the switch. */
__attribute__((noinline)) struct m *natp_self(void)
{
	return natp_cur;
}

/* ---- hwloc, for binding and node-bound memory: loaded once ---- */

static hwloc_topology_t natp_hwloc;
static pthread_once_t natp_hwloc_once = PTHREAD_ONCE_INIT;

static void hwloc_load_once(void)
{
	if (hwloc_topology_init(&natp_hwloc) != 0 || hwloc_topology_load(natp_hwloc) != 0) {
		fprintf(stderr, "schedlab: hwloc cannot read this machine's topology\n");
		exit(EXIT_BADINPUT);
	}
}

static hwloc_topology_t host_hwloc(void)
{
	pthread_once(&natp_hwloc_once, hwloc_load_once);
	return natp_hwloc;
}

/* ---- Futex ---- */

void natp_futex_wait(plat_u32 *a, uint32_t val, int64_t timeout_ns)
{
	struct m *m = natp_self();
	if (m)
		m->stats.futex_calls++;
	struct timespec ts, *tsp = NULL;
	if (timeout_ns >= 0) {
		ts.tv_sec = timeout_ns / 1000000000;
		ts.tv_nsec = timeout_ns % 1000000000;
		tsp = &ts;
	}
	/* EAGAIN (the value changed), EINTR and timeouts all return: callers
	 * re-check their condition. */
	syscall(SYS_futex, &a->v, FUTEX_WAIT_PRIVATE, val, tsp, NULL, 0);
}

void natp_futex_wake(plat_u32 *a, int n)
{
	struct m *m = natp_self();
	if (m)
		m->stats.futex_calls++;
	syscall(SYS_futex, &a->v, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* ---- Time and work ---- */

int64_t natp_nanotime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A G's computation: spinning until ns have passed on the monotonic clock
 * (a vDSO read, ~20 ns).  A loop calibrated once at start-up was tried and
 * dropped: the first measurement often runs before the CPU has raised its
 * clock, and later work then came out twice as fast as asked.  Time the OS
 * takes the CPU away counts as work, which only matters with more Ms than
 * CPUs. */
int64_t natp_work(int64_t ns, plat_u32 *stop)
{
	int64_t start = natp_nanotime(), end = start + ns, now = start;
	while (now < end) {
		if (atomic_load_explicit(&stop->v, memory_order_relaxed))
			return now - start;
		__builtin_ia32_pause();
		now = natp_nanotime();
	}
	return ns;
}

/* A blocking system call lasting ns: the thread really sleeps in the
 * kernel, as a read on a slow device would. */
void natp_syscall(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* ---- Place ---- */

int natp_cpu(void)
{
	struct m *m = natp_self();
	int os = sched_getcpu();
	if (!m || os < 0 || (unsigned)os >= m->rt->plat.npu_of_os)
		return 0;
	int pu = m->rt->plat.pu_of_os[os];
	return pu < 0 ? 0 : pu;
}

int natp_node(void)
{
	struct m *m = natp_self();
	if (!m)
		return 0;
	const struct topo *t = m->rt->topo;
	return t->cores[t->pus[natp_cpu()].core].node;
}

/* Binds the calling thread to the PU, if asked to; otherwise the OS places
 * it, as Go leaves it to the OS. */
void natp_set_cpu(int cpu, bool bind)
{
	struct m *m = natp_self();
	if (!bind || !m)
		return;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	hwloc_bitmap_only(set, m->rt->topo->pus[cpu].os_index);
	/* Failure (a PU that is not online) leaves the thread where the OS put it. */
	hwloc_set_cpubind(host_hwloc(), set, HWLOC_CPUBIND_THREAD);
	hwloc_bitmap_free(set);
}

void natp_bind_node(int node)
{
	hwloc_topology_t topo = host_hwloc();
	hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)node);
	/* Failure (no such node, binding refused) leaves the thread where the
	 * OS puts it: binding is a preference of the policy, not a need. */
	if (obj && obj->cpuset)
		hwloc_set_cpubind(topo, obj->cpuset, HWLOC_CPUBIND_THREAD);
}

void *natp_alloc(size_t size, int node)
{
	hwloc_topology_t topo = host_hwloc();
	hwloc_obj_t obj = node >= 0 ? hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)node)
				    : NULL;
	void *p = obj ? hwloc_alloc_membind(topo, size, obj->nodeset, HWLOC_MEMBIND_BIND,
					    HWLOC_MEMBIND_BYNODESET)
		      : NULL;
	if (!p)
		p = hwloc_alloc(topo, size);
	if (!p)
		die_oom(size);
	memset(p, 0, size);
	return p;
}

void natp_free(void *p, size_t size)
{
	if (p)
		hwloc_free(host_hwloc(), p, size);
}

/* ---- The workload's memory ---- */

/* Placed as asked, but not written: pages of a first-touch region must
 * land where the G that first touches them runs, not here. */
bool natp_region_init(struct rt *rt, struct rt_region *r, int place, int node)
{
	(void)rt;
	hwloc_topology_t topo = host_hwloc();
	size_t size = r->bytes ? r->bytes : 1;
	void *p = NULL;
	if (place == PROG_PLACE_NODE || place == PROG_PLACE_LOCAL) {
		hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)node);
		if (obj)
			p = hwloc_alloc_membind(topo, size, obj->nodeset, HWLOC_MEMBIND_BIND,
						HWLOC_MEMBIND_BYNODESET);
	} else if (place == PROG_PLACE_INTERLEAVE) {
		hwloc_const_nodeset_t all = hwloc_topology_get_topology_nodeset(topo);
		p = hwloc_alloc_membind(topo, size, all, HWLOC_MEMBIND_INTERLEAVE,
					HWLOC_MEMBIND_BYNODESET);
	}
	if (!p)
		p = hwloc_alloc(topo, size);   /* first touch, or a machine that cannot bind */
	r->plat.base = p;
	return p != NULL;
}

void natp_region_fini(struct rt *rt, struct rt_region *r)
{
	(void)rt;
	if (r->plat.base)
		hwloc_free(host_hwloc(), r->plat.base, r->bytes ? r->bytes : 1);
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Every line of the range once.  A random order is a stride coprime with
 * the line count from a seeded start; a pointer chase is the same walk
 * with each next line depending on the value just loaded, so the loads
 * cannot overlap.  The region's bytes stay zero (a write stores zero), so
 * the dependence changes no address. */
int64_t natp_touch(struct rt_region *r, uint64_t offset, uint64_t bytes, int pattern, bool write,
		   uint64_t seed)
{
	volatile unsigned char *b = r->plat.base + offset;
	uint64_t lines = (bytes + 63) / 64;
	if (lines == 0)
		return 0;
	int64_t t0 = natp_nanotime();
	uint64_t step = 1, at = 0;
	if (pattern != PROG_SEQUENTIAL && lines > 1) {
		step = (seed | 1) % lines;
		while (gcd64(step, lines) != 1)
			step++;
		at = (seed >> 17) % lines;
	}
	for (uint64_t i = 0; i < lines; i++) {
		unsigned v = b[at * 64];
		if (write)
			b[at * 64] = 0;
		if (pattern == PROG_POINTER_CHASE)
			__asm__ volatile("" : "+r"(v));
		else
			v = 0;
		at = (at + step + v) % lines;
	}
	return natp_nanotime() - t0;
}

/* ---- Ms ---- */

static void *natp_mmain(void *arg)
{
	struct m *m = arg;
	natp_cur = m;
	ctx_init_thread(&m->plat.g0);
	rt_mstart(m);
	natp_cur = NULL;
	return NULL;
}

void natp_newm(struct rt *rt, struct m *m)
{
	(void)rt;
	int err = pthread_create(&m->plat.thread, NULL, natp_mmain, m);
	if (err) {
		fprintf(stderr, "schedlab: cannot start a thread: %s\n", strerror(err));
		exit(3);
	}
}

/* ---- Gs ---- */

/* A G's own stack starts here, and comes back here each time the G is run
 * again after rt_g_run returned (a yield): the interpreter resumes at the
 * G's program counter. */
static void natp_gmain(void *arg)
{
	struct g *g = arg;
	for (;;) {
		enum g_why why;
		if (g->fn) {
			g->fn(g->arg);
			why = G_EXIT;
		} else {
			why = rt_g_run(g->m, g);
		}
		natp_g_leave(g, why);
	}
}

/* ---- Stacks ----
 *
 * A G gets a stack when it first runs, not when it is made, and gives it
 * back when it exits: a million Gs spawned and queued take a million small
 * structs, and only the Gs that have started and not finished hold a
 * stack.  Stacks freed by exiting Gs stay with the M (no lock), up to
 * STACK_CACHE; beyond that half go to a pool shared under a mutex, from
 * which Ms refill before mapping new ones.  New stacks are mapped
 * STACK_SLAB at a time, each with its own guard page, which costs a
 * memory mapping per stack and one per guard: Linux's vm.max_map_count
 * bounds how many can exist at once. */
#define STACK_CACHE NATP_STACK_CACHE
#define STACK_SLAB 16


static void stack_fail(const char *what)
{
	int err = errno;
	long limit = -1;
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	if (f) {
		if (fscanf(f, "%ld", &limit) != 1)
			limit = -1;
		fclose(f);
	}
	fprintf(stderr,
		"schedlab: cannot %s a goroutine stack: %s\n"
		"schedlab: each started goroutine's stack takes two memory mappings (the stack and "
		"its guard page) and vm.max_map_count is %ld; raise it, e.g. "
		"sysctl -w vm.max_map_count=1048576\n",
		what, strerror(err), limit);
	exit(3);
}

/* Maps STACK_SLAB stacks into m's cache. */
static void stack_map_slab(struct m *m)
{
	size_t one = m->rt->plat.stack_map, page = one - NATP_G_STACK;
	char *map = mmap(NULL, one * STACK_SLAB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
		stack_fail("map");
	for (int i = 0; i < STACK_SLAB; i++) {
		/* the guard is the lowest page: a stack grows down into it */
		if (mprotect(map + (size_t)i * one, page, PROT_NONE) != 0)
			stack_fail("guard");
		m->plat.stacks[m->plat.nstacks++] = map + (size_t)i * one;
	}
}

static void *stack_get(struct m *m)
{
	struct plat_rt *pr = &m->rt->plat;
	if (m->plat.nstacks == 0) {
		pthread_mutex_lock(&pr->stack_lock);
		while (pr->nstacks > 0 && m->plat.nstacks < STACK_CACHE / 2)
			m->plat.stacks[m->plat.nstacks++] = pr->stacks[--pr->nstacks];
		pthread_mutex_unlock(&pr->stack_lock);
		if (m->plat.nstacks == 0)
			stack_map_slab(m);
	}
	return m->plat.stacks[--m->plat.nstacks];
}

/* stack_put with m's cache full: half of it goes to the shared pool. */
__attribute__((noinline)) static void stack_spill(struct m *m)
{
	struct plat_rt *pr = &m->rt->plat;
	pthread_mutex_lock(&pr->stack_lock);
	if (pr->nstacks + STACK_CACHE / 2 > pr->capstacks) {
		pr->capstacks = pr->capstacks ? 2 * pr->capstacks : 256;
		pr->stacks = xrealloc(pr->stacks, pr->capstacks * sizeof(*pr->stacks));
	}
	while (m->plat.nstacks > STACK_CACHE / 2)
		pr->stacks[pr->nstacks++] = m->plat.stacks[--m->plat.nstacks];
	pthread_mutex_unlock(&pr->stack_lock);
}

static inline void stack_put(struct m *m, void *stack)
{
	m->plat.stacks[m->plat.nstacks++] = stack;
	if (m->plat.nstacks == STACK_CACHE)
		stack_spill(m);
}

void natp_g_init(struct rt *rt, struct g *g)
{
	(void)rt;
	assert(!g->plat.stack && "a G gives its stack back when it exits");
}

void natp_g_free(struct rt *rt, struct g *g)
{
	if (!g->plat.stack)
		return;
	ctx_destroy(&g->plat.ctx);
	munmap(g->plat.stack, rt->plat.stack_map);
	g->plat.stack = NULL;
}

/* A G's first run: its stack, and a context that starts natp_gmain. */
void natp_g_first_run(struct m *m, struct g *g)
{
	g->plat.stack = stack_get(m);
	size_t guard = m->rt->plat.stack_map - NATP_G_STACK;
	ctx_make(&g->plat.ctx, (char *)g->plat.stack + guard, NATP_G_STACK, natp_gmain, g);
}

/* A G's exit: its stack goes back to m. */
void natp_g_exited(struct m *m, struct g *g)
{
	ctx_destroy(&g->plat.ctx);
	stack_put(m, g->plat.stack);
	g->plat.stack = NULL;
}

void natp_g_leave(struct g *g, enum g_why why)
{
	struct m *m = g->m;
	g->plat.why = why;
	if (why == G_EXIT)
		ctx_exit_to(&g->plat.ctx, &m->plat.g0);
	else
		ctx_switch(&g->plat.ctx, &m->plat.g0);
}

/* ---- The netpoller: epoll ----
 *
 * Two epoll sets.  epfd holds the C API's descriptors; any M may poll it
 * without waiting (rt_netpoll_now), at the same time as the poller waits.
 * The poller -- one M at a time [time.c] -- waits on waitfd, which holds
 * epfd itself, the eventfd that breaks its wait and the timerfd that ends
 * it.  Those two wake-ups are the poller's alone: when they sat in epfd,
 * an M polling without waiting could read the break or the timer's
 * expiry meant for the poller, which then slept on in epoll_wait(-1) with
 * a timer or a workload arrival due (a missed wake-up; every other M
 * parked behind it). */

static void must(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "schedlab: %s: %s\n", what, strerror(errno));
		exit(3);
	}
}

static void natp_epoll_add(int epfd, int fd, void *tag)
{
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = tag };
	must(epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) == 0, "epoll_ctl");
}

void natp_netpoll_init(struct rt *rt)
{
	struct plat_rt *pr = &rt->plat;
	pr->epfd = epoll_create1(EPOLL_CLOEXEC);
	must(pr->epfd >= 0, "epoll_create1");
	pr->waitfd = epoll_create1(EPOLL_CLOEXEC);
	must(pr->waitfd >= 0, "epoll_create1");
	pr->breakfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	must(pr->breakfd >= 0, "eventfd");
	pr->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	must(pr->timerfd >= 0, "timerfd_create");
	natp_epoll_add(pr->waitfd, pr->epfd, &pr->epfd);
	natp_epoll_add(pr->waitfd, pr->breakfd, &pr->breakfd);
	natp_epoll_add(pr->waitfd, pr->timerfd, &pr->timerfd);
}

void natp_netpoll_fini(struct rt *rt)
{
	close(rt->plat.timerfd);
	close(rt->plat.breakfd);
	close(rt->plat.waitfd);
	close(rt->plat.epfd);
}

/* A real descriptor: non-blocking, edge-triggered for both directions. */
int natp_netpoll_open(struct rt *rt, struct pollfd_desc *pd, int fd)
{
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return errno;
	struct epoll_event e = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
				 .data.ptr = pd };
	return epoll_ctl(rt->plat.epfd, EPOLL_CTL_ADD, fd, &e) == 0 ? 0 : errno;
}

void natp_netpoll_close(struct rt *rt, struct pollfd_desc *pd)
{
	epoll_ctl(rt->plat.epfd, EPOLL_CTL_DEL, pd->fd, NULL);
	close(pd->fd);
	pd->fd = -1;
}

/* Drains a counter descriptor (the eventfd or the timerfd). */
static void natp_drain(int fd, const char *what)
{
	uint64_t count;
	if (read(fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		must(false, what);
}

/* The descriptors' readiness, without waiting. */
static int natp_poll_fds(struct rt *rt, struct netpoll_event *ev, int max)
{
	struct epoll_event e[64];
	if (max > 64)
		max = 64;
	int k = epoll_wait(rt->plat.epfd, e, max, 0);
	int n = 0;
	for (int i = 0; i < k; i++) {
		uint32_t mode = 0;
		if (e[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			mode |= NETPOLL_R;
		if (e[i].events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
			mode |= NETPOLL_W;
		ev[n++] = (struct netpoll_event){ .pd = e[i].data.ptr, .mode = mode };
	}
	return n;
}

int natp_netpoll(struct rt *rt, int64_t timeout_ns, struct netpoll_event *ev, int max)
{
	struct plat_rt *pr = &rt->plat;
	if (timeout_ns == 0)
		return natp_poll_fds(rt, ev, max);
	/* The poller's wait.  The run's end breaks it, but a poller before
	 * us may have taken that break (it then returns and sees the end
	 * itself): a wait begun after the poll flag passed from it sees done
	 * here. */
	if (rt_done(rt))
		return 0;
	/* The timer is set for every timed wait (the workload's arrivals are
	 * timed in ns, finer than epoll's ms), and cleared for an untimed
	 * one: setting it also drops an expiry left from an earlier wait
	 * that ended otherwise. */
	struct itimerspec its = { 0 };
	if (timeout_ns > 0)
		its.it_value = (struct timespec){ (time_t)(timeout_ns / 1000000000),
						  (long)(timeout_ns % 1000000000) };
	must(timerfd_settime(pr->timerfd, 0, &its, NULL) == 0, "timerfd_settime");
	struct epoll_event e[3];
	int k = epoll_wait(pr->waitfd, e, 3, -1);
	bool fds = false;
	for (int i = 0; i < k; i++) {
		if (e[i].data.ptr == &pr->breakfd)
			natp_drain(pr->breakfd, "read eventfd");
		else if (e[i].data.ptr == &pr->timerfd)
			natp_drain(pr->timerfd, "read timerfd");
		else
			fds = true;
	}
	return fds ? natp_poll_fds(rt, ev, max) : 0;
}

void natp_netpoll_break(struct rt *rt)
{
	uint64_t one = 1;
	if (write(rt->plat.breakfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		must(false, "write eventfd");
}

/* ---- Runs ---- */

bool natp_rt_init(struct rt *rt, struct err *e)
{
	(void)e;
	const struct topo *t = rt->topo;
	unsigned n = 0;
	for (int i = 0; i < t->npus; i++)
		if (t->pus[i].os_index + 1 > n)
			n = t->pus[i].os_index + 1;
	pthread_mutex_init(&rt->plat.stack_lock, NULL);
	rt->plat.stack_map = NATP_G_STACK + (size_t)sysconf(_SC_PAGESIZE);
	rt->plat.npu_of_os = n;
	rt->plat.pu_of_os = xmalloc((n ? n : 1) * sizeof(int));
	for (unsigned i = 0; i < n; i++)
		rt->plat.pu_of_os[i] = -1;
	for (int i = 0; i < t->npus; i++)
		rt->plat.pu_of_os[t->pus[i].os_index] = i;
	return true;
}

/* M0 is the calling thread; the others are joined once the run is over.
 * No M is made after that (rt_startm_locked), so allm, read under the
 * lock it is written under, is every thread there will be.  They are
 * joined oldest first: an M's thread was created by an older M (or
 * sysmon, or M0), and until that creator is joined its pthread_create
 * may not have stored the handle yet. */
void natp_rt_run(struct rt *rt)
{
	struct m *m0 = rt->m0;
	m0->plat.is_caller = true;
	natp_cur = m0;
	ctx_init_thread(&m0->plat.g0);
	rt_mstart(m0);
	natp_cur = NULL;
	rt_lock(&rt->sched.lock);
	assert(rt->sched.stopped);
	int n = rt->sched.mcount;
	struct m **ms = xmalloc((size_t)n * sizeof(*ms));
	for (struct m *m = rt->allm; m; m = m->alllink)
		ms[--n] = m;   /* allm is newest first, ids in order of making */
	assert(n == 0);
	rt_unlock(&rt->sched.lock);
	for (int i = 0; i < rt->sched.mcount; i++)
		if (!ms[i]->plat.is_caller)
			pthread_join(ms[i]->plat.thread, NULL);
	free(ms);
}

void natp_rt_fini(struct rt *rt)
{
	size_t one = rt->plat.stack_map;
	for (struct m *m = rt->allm; m; m = m->alllink)
		while (m->plat.nstacks > 0)
			munmap(m->plat.stacks[--m->plat.nstacks], one);
	while (rt->plat.nstacks > 0)
		munmap(rt->plat.stacks[--rt->plat.nstacks], one);
	free(rt->plat.stacks);
	pthread_mutex_destroy(&rt->plat.stack_lock);
	free(rt->plat.pu_of_os);
}
