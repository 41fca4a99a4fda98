/* Native platform: the out-of-line half of native/plat.h. */
#include "core/runtime.h"

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
#include <sys/sysinfo.h>
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
static bool natp_hwloc_loaded;
static pthread_once_t natp_hwloc_once = PTHREAD_ONCE_INIT;

static void hwloc_load_once(void)
{
	if (hwloc_topology_init(&natp_hwloc) != 0)
		return;
	if (hwloc_topology_load(natp_hwloc) != 0) {
		hwloc_topology_destroy(natp_hwloc);
		return;
	}
	natp_hwloc_loaded = true;
}

/* NULL only before natp_rt_init has succeeded: it fails without it. */
static hwloc_topology_t host_hwloc(void)
{
	pthread_once(&natp_hwloc_once, hwloc_load_once);
	return natp_hwloc_loaded ? natp_hwloc : NULL;
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
	if (place == RT_PLACE_NODE || place == RT_PLACE_LOCAL) {
		hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)node);
		if (obj)
			p = hwloc_alloc_membind(topo, size, obj->nodeset, HWLOC_MEMBIND_BIND,
						HWLOC_MEMBIND_BYNODESET);
	} else if (place == RT_PLACE_INTERLEAVE) {
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
	if (pattern != RT_SEQUENTIAL && lines > 1) {
		step = (seed | 1) % lines;
		while (u64_gcd(step, lines) != 1)
			step++;
		at = (seed >> 17) % lines;
	}
	for (uint64_t i = 0; i < lines; i++) {
		unsigned v = b[at * 64];
		if (write)
			b[at * 64] = 0;
		if (pattern == RT_POINTER_CHASE)
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
	natp_tstat(&m->plat.tstat);
	return NULL;
}

/* A thread that cannot be made ends the run with a panic, as in Go; the
 * M it was for never runs, and holds its P until the run is over. */
void natp_newm(struct rt *rt, struct m *m)
{
	(void)rt;
	int err = EAGAIN;
	m->plat.started = true;
	if (atomic_load(&natp_faults.threads) < 0 || atomic_fetch_sub(&natp_faults.threads, 1) > 0)
		err = pthread_create(&m->plat.thread, NULL, natp_mmain, m);
	if (err) {
		m->plat.started = false;
		struct m *self = natp_self();
		rt_panic(self ? self : m, "runtime: failed to create new OS thread: %s", strerror(err));
	}
}

/* ---- Gs ---- */

/* A G's own stack starts here, and comes back here each time the G is run
 * again after its body returned (a program's yield: it resumes where it
 * was; a C function returns only at its end). */
static void natp_gmain(void *arg)
{
	struct g *g = arg;
	for (;;)
		natp_g_leave(g, rt_g_exec(g->m, g));
}

/* ---- Stacks ----
 *
 * A G gets a stack when it first runs, not when it is made, and gives it
 * back when it exits: a million Gs spawned and queued take a million small
 * structs, and only the Gs that have started and not finished hold a
 * stack.
 *
 * Stacks are carved from arenas: one mapping each, of ARENA_SLOTS slots
 * of NATP_G_STACK bytes, reserved with MAP_NORESERVE so that a stack's
 * pages cost memory only once touched (a blocked G's stack is usually one
 * page).  Each arena is two of the process's memory mappings (its lowest
 * page is a guard), whatever the number of Gs: Linux allows 65,530 by
 * default (vm.max_map_count), and a guard page under every stack, which
 * splits the mapping at each one, made every started G two of them.
 *
 * Overflow is caught by a canary instead: the top STACK_CANARY bytes of
 * each slot hold a pattern (the address it guards, scrambled) under the
 * low end of the stack in the slot above, which is checked each time a G
 * switches out, its exit included.  A G that grew past its stack's end
 * has overwritten it, and the process aborts with a message.  The canary
 * shares a page with the top of the stack below it, touched anyway, so
 * it costs no memory.  What it gives up against a guard page: the
 * overflow is found at the G's next switch, not at the faulting store, so
 * the top of the stack below (another G's frames) may already be
 * corrupt, and a frame larger than the canary that writes nothing where
 * it lies goes unseen.  The lowest slot of an arena still has the guard
 * page beneath it.
 *
 * Freed stacks stay with the M (no lock), up to STACK_CACHE; beyond that
 * half go back to their arenas under a mutex, and an M with none takes
 * STACK_BATCH from the first arena that has any, carving new slots only
 * when none has.  Reusing the first arenas first keeps the live stacks
 * packed, so that after a burst the later arenas empty: an arena whose
 * slots are all back gives its pages to the OS (MADV_DONTNEED) in one
 * call, the first arena excepted, which stays ready for the next burst.
 *
 * Limits end the run with a panic, "runtime: out of memory: ...": more
 * stacks than max_stacks (by default, as many as would fill half of the
 * machine's memory at one page each), too little memory left available
 * on the machine to map another arena (so that the kernel's OOM killer
 * is never what ends a run), or a failed mapping (address space). */
#define STACK_CACHE NATP_STACK_CACHE
#define STACK_BATCH (STACK_CACHE / 2)
#define STACK_CANARY 64u
#define STACK_USABLE (NATP_G_STACK - STACK_CANARY)
#define ARENA_SLOTS 1024u
#define CANARY_KEY 0x5a17c0debadc0ffeULL

struct natp_arena {
	char *map;               /* the mapping: guard page, a page for slot 0's canary, slots */
	size_t map_bytes;
	char *slots;
	size_t index;            /* in plat_rt.arenas */
	uint32_t carved;         /* slots handed out at least once */
	uint32_t nfree;          /* of them, back in free[] */
	bool resident;           /* pages may be in memory: not given back since last taken */
	bool dropping;           /* its pages are being given back: not to be taken meanwhile */
	char *free[ARENA_SLOTS];
};

struct natp_faults natp_faults = { .threads = -1 };

#ifdef CTX_ASAN
#include <sanitizer/asan_interface.h>
#define unpoison(p, n) __asan_unpoison_memory_region(p, n)
#else
#define unpoison(p, n) ((void)(p), (void)(n))
#endif

static inline uint64_t canary_of(const char *stack)
{
	return CANARY_KEY ^ (uint64_t)(uintptr_t)stack;
}

static void canary_set(char *stack)
{
	uint64_t *c = (uint64_t *)(stack - STACK_CANARY), v = canary_of(stack);
	for (unsigned i = 0; i < STACK_CANARY / 8; i++)
		c[i] = v;
}

/* Under ASan, an overflowing G's frames may have left the canary's bytes
 * as they were (a redzone is only marked in the shadow): reading it then
 * is what reports the overflow, as a stack-buffer-overflow. */
static inline bool canary_ok(const char *stack)
{
	const uint64_t *c = (const uint64_t *)(stack - STACK_CANARY);
	uint64_t v = canary_of(stack), diff = 0;
	for (unsigned i = 0; i < STACK_CANARY / 8; i++)
		diff |= c[i] ^ v;
	return diff == 0;
}

__attribute__((noinline, noreturn, cold)) static void stack_overflowed(const struct g *g)
{
	fprintf(stderr,
		"fatal error: stack overflow\n\n"
		"goroutine %llu grew past the end of its %u KiB stack (the canary under it at %p "
		"was overwritten); the memory under it, another goroutine's stack, may be "
		"corrupt\n",
		(unsigned long long)g->goid, NATP_G_STACK / 1024, (char *)g->plat.stack - STACK_CANARY);
	abort();
}

/* The machine's available memory, if under the floor below which no
 * arena is mapped.  sysinfo's free RAM (one system call) is a lower
 * bound of it: /proc/meminfo's MemAvailable, which counts the page cache
 * that could be reclaimed too, is read only when that is low. */
static bool memory_low(const struct plat_rt *pr, uint64_t *avail)
{
	struct sysinfo si;
	*avail = UINT64_MAX;
	if (sysinfo(&si) == 0) {
		*avail = ((uint64_t)si.freeram + si.bufferram) * si.mem_unit;
		FILE *f = *avail < pr->mem_floor ? fopen("/proc/meminfo", "r") : NULL;
		char line[128];
		unsigned long long kb;
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
				*avail = (uint64_t)kb * 1024;
		if (f)
			fclose(f);
	}
	if (natp_faults.memory_low)
		*avail = 0;
	return *avail < pr->mem_floor;
}

/* A new arena, last of pr->arenas (stack_lock held); NULL with why set
 * if a limit stops it. */
static struct natp_arena *arena_new(struct plat_rt *pr, char *why, size_t whysize)
{
	uint64_t avail;
	if (memory_low(pr, &avail)) {
		snprintf(why, whysize,
			 "runtime: out of memory: %zu goroutine stacks made and %llu MiB of memory "
			 "left available",
			 pr->nstacks, (unsigned long long)(avail >> 20));
		return NULL;
	}
	size_t bytes = 2 * pr->page + (size_t)ARENA_SLOTS * NATP_G_STACK;
	struct natp_arena *a = NULL;
	char *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED || mprotect(map, pr->page, PROT_NONE) != 0)
		goto fail;
	if (pr->narenas == pr->caparenas) {
		size_t cap = pr->caparenas ? 2 * pr->caparenas : 16;
		struct natp_arena **arenas = realloc(pr->arenas, cap * sizeof(*arenas));
		if (arenas)
			pr->arenas = arenas;
		struct natp_arena **by_addr = realloc(pr->by_addr, cap * sizeof(*by_addr));
		if (by_addr)
			pr->by_addr = by_addr;
		if (!arenas || !by_addr)
			goto fail;
		pr->caparenas = cap;
	}
	a = malloc(sizeof(*a));
	if (!a)
		goto fail;
	/* Huge pages would make each touched stack page 2 MiB of memory. */
	madvise(map + pr->page, bytes - pr->page, MADV_NOHUGEPAGE);
	/* Under ASan: the range may have been memory whose shadow someone
	 * left poisoned (released at this size, not written). */
	unpoison(map + pr->page, bytes - pr->page);
	*a = (struct natp_arena){ .map = map, .map_bytes = bytes, .slots = map + 2 * pr->page,
				  .index = pr->narenas };
	pr->arenas[pr->narenas] = a;
	size_t at = pr->narenas++;
	while (at > 0 && pr->by_addr[at - 1]->map > map) {
		pr->by_addr[at] = pr->by_addr[at - 1];
		at--;
	}
	pr->by_addr[at] = a;
	return a;
fail:
	snprintf(why, whysize, "runtime: out of memory: %zu goroutine stacks made, and mapping %zu MiB "
		 "more failed: %s", pr->nstacks, bytes >> 20, strerror(errno));
	if (map != MAP_FAILED)
		munmap(map, bytes);
	return NULL;
}

static struct natp_arena *arena_of(const struct plat_rt *pr, const char *stack)
{
	size_t lo = 0, hi = pr->narenas;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (pr->by_addr[mid]->map <= stack)
			lo = mid;
		else
			hi = mid;
	}
	return pr->by_addr[lo];
}

/* Fills m's empty cache: pooled stacks of the first arenas that have
 * any, then new slots.  With none to be had, the run panics (false). */
__attribute__((noinline)) static bool stack_refill(struct m *m)
{
	struct plat_rt *pr = &m->rt->plat;
	char why[sizeof(m->rt->panic_msg)] = "";
	pthread_mutex_lock(&pr->stack_lock);
	for (size_t i = pr->free_hint;
	     i < pr->narenas && pr->npooled > 0 && m->plat.nstacks < STACK_BATCH; i++) {
		struct natp_arena *a = pr->arenas[i];
		if (a->dropping || a->nfree == 0)
			continue;
		a->resident = true;
		while (a->nfree > 0 && m->plat.nstacks < STACK_BATCH) {
			char *s = a->free[--a->nfree];
			pr->npooled--;
			canary_set(s);   /* its page may have been given back */
			m->plat.stacks[m->plat.nstacks++] = s;
		}
	}
	while (pr->free_hint < pr->narenas && pr->arenas[pr->free_hint]->nfree == 0)
		pr->free_hint++;
	while (m->plat.nstacks < STACK_BATCH) {
		if (pr->nstacks >= pr->max_stacks) {
			if (m->plat.nstacks == 0)
				snprintf(why, sizeof(why),
					 "runtime: out of memory: %zu goroutine stacks made, the most "
					 "allowed (max_stacks)", pr->nstacks);
			break;
		}
		struct natp_arena *a = pr->narenas ? pr->arenas[pr->narenas - 1] : NULL;
		if (!a || a->carved == ARENA_SLOTS) {
			if (m->plat.nstacks > 0)
				break;   /* enough to go on with: the next refill maps */
			a = arena_new(pr, why, sizeof(why));
			if (!a)
				break;
		}
		char *s = a->slots + (size_t)a->carved++ * NATP_G_STACK;
		a->resident = true;
		canary_set(s);
		pr->nstacks++;
		m->plat.stacks[m->plat.nstacks++] = s;
	}
	pthread_mutex_unlock(&pr->stack_lock);
	if (m->plat.nstacks > 0)
		return true;
	rt_panic(m, "%s", why);
	return false;
}

/* stack_put with m's cache full: half of it goes back to the arenas, and
 * arenas that are whole again give their pages back. */
__attribute__((noinline)) static void stack_spill(struct m *m)
{
	struct plat_rt *pr = &m->rt->plat;
	struct natp_arena *drop[STACK_BATCH];
	int ndrop = 0;
	pthread_mutex_lock(&pr->stack_lock);
	while (m->plat.nstacks > STACK_BATCH) {
		char *s = m->plat.stacks[--m->plat.nstacks];
		struct natp_arena *a = arena_of(pr, s);
		a->free[a->nfree++] = s;
		pr->npooled++;
		if (a->index < pr->free_hint)
			pr->free_hint = a->index;
		if (a->nfree == ARENA_SLOTS && a->index > 0 && a->resident) {
			a->resident = false;
			a->dropping = true;
			drop[ndrop++] = a;
		}
	}
	pthread_mutex_unlock(&pr->stack_lock);
	if (ndrop == 0)
		return;
	for (int i = 0; i < ndrop; i++)
		madvise(drop[i]->slots - pr->page, (size_t)ARENA_SLOTS * NATP_G_STACK + pr->page,
			MADV_DONTNEED);
	pthread_mutex_lock(&pr->stack_lock);
	for (int i = 0; i < ndrop; i++)
		drop[i]->dropping = false;
	pthread_mutex_unlock(&pr->stack_lock);
}

static inline char *stack_get(struct m *m)
{
	if (m->plat.nstacks == 0 && !stack_refill(m))
		return NULL;
	return m->plat.stacks[--m->plat.nstacks];
}

static inline void stack_put(struct m *m, char *stack)
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

/* A G dropped with the run: its stack goes with its arena. */
void natp_g_free(struct rt *rt, struct g *g)
{
	(void)rt;
	if (!g->plat.stack)
		return;
	ctx_destroy(&g->plat.ctx);
	g->plat.stack = NULL;
}

/* A G's first run: its stack, and a context that starts natp_gmain.
 * False if there was no stack for it: the run has panicked. */
bool natp_g_first_run(struct m *m, struct g *g)
{
	char *stack = stack_get(m);
	if (!stack)
		return false;
	g->plat.stack = stack;
	ctx_make(&g->plat.ctx, stack, STACK_USABLE, natp_gmain, g);
	return true;
}

/* A G's exit: its stack goes back to m (natp_g_leave checked its canary). */
void natp_g_exited(struct m *m, struct g *g)
{
	ctx_destroy(&g->plat.ctx);
	stack_put(m, g->plat.stack);
	g->plat.stack = NULL;
}

void natp_g_leave(struct g *g, enum g_why why)
{
	if (__builtin_expect(!canary_ok(g->plat.stack), 0))
		stack_overflowed(g);
	struct m *m = g->m;
	g->plat.why = why;
	if (why == G_EXIT)
		ctx_exit_to(&g->plat.ctx, &m->plat.g0);
	else
		ctx_switch(&g->plat.ctx, &m->plat.g0);
}

/* A workload's "stacks" natively: each run of a G writes the declared
 * frame on its real stack, where a deep call would put its frames, so that
 * a native run pays what the simulated one charges for it (a frame that
 * stays in a cache between runs is cheap, one that was evicted is not).
 * Half the slot: the interpreter's own frames, several times larger in a
 * sanitizer build, need the rest. */
#define NATP_G_FRAME_MAX (NATP_G_STACK / 2)

bool natp_g_frame_init(struct rt *rt, uint64_t bytes, struct err *e)
{
	struct plat_rt *pr = &rt->plat;
	if (bytes > NATP_G_FRAME_MAX) {
		err_set(e, "$.stacks.frame: a goroutine's native stack has room for a frame of at most "
			   "%u KiB, not %llu KiB (a simulated run has no such bound)",
			NATP_G_FRAME_MAX / 1024, (unsigned long long)(bytes + 1023) / 1024);
		return false;
	}
	/* Every stack a G has run on now holds the frame's pages, not one:
	 * the bounds of natp_rt_init count them so. */
	uint64_t per = pr->page + (bytes + pr->page - 1) / pr->page * pr->page;
	uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * pr->page;
	if (ram / 2 / per < pr->max_stacks)
		pr->max_stacks = (size_t)(ram / 2 / per);
	if (pr->mem_floor < 2 * ARENA_SLOTS * per)
		pr->mem_floor = 2 * ARENA_SLOTS * per;
	return true;
}

__attribute__((noinline)) void natp_g_write_frame(uint64_t bytes)
{
	char *frame = __builtin_alloca(bytes);
	memset(frame, 0x5a, bytes);
	/* the frame is dead after the memset: keep its stores */
	__asm__ volatile("" : : "r"(frame) : "memory");
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

/* For calls on descriptors that natp_rt_init made and checked: a failure
 * is a bug, not a condition to report. */
static void must(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "schedlab: internal error: %s: %s\n", what, strerror(errno));
		abort();
	}
}

static bool epoll_add(int epfd, int fd, void *tag)
{
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = tag };
	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) == 0;
}

/* Its descriptors are made by natp_rt_init, which can report failure. */
void natp_netpoll_init(struct rt *rt)
{
	(void)rt;
}

static bool netpoll_open_fds(struct plat_rt *pr, struct err *e)
{
	const char *what = "epoll_create1";
	pr->waitfd = pr->breakfd = pr->timerfd = -1;
	pr->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (pr->epfd < 0)
		goto fail;
	pr->waitfd = epoll_create1(EPOLL_CLOEXEC);
	if (pr->waitfd < 0)
		goto fail;
	what = "eventfd";
	pr->breakfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (pr->breakfd < 0)
		goto fail;
	what = "timerfd_create";
	pr->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (pr->timerfd < 0)
		goto fail;
	what = "epoll_ctl";
	if (!epoll_add(pr->waitfd, pr->epfd, &pr->epfd) ||
	    !epoll_add(pr->waitfd, pr->breakfd, &pr->breakfd) ||
	    !epoll_add(pr->waitfd, pr->timerfd, &pr->timerfd))
		goto fail;
	return true;
fail:
	err_set(e, "the network poller cannot be set up: %s: %s", what, strerror(errno));
	int fds[4] = { pr->epfd, pr->waitfd, pr->breakfd, pr->timerfd };
	for (int i = 0; i < 4; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return false;
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
	if (!host_hwloc()) {
		err_set(e, "hwloc cannot read this machine's topology");
		return false;
	}
	if (!netpoll_open_fds(&rt->plat, e))
		return false;
	const struct topo *t = rt->topo;
	unsigned n = 0;
	for (int i = 0; i < t->npus; i++)
		if (t->pus[i].os_index + 1 > n)
			n = t->pus[i].os_index + 1;
	pthread_mutex_init(&rt->plat.stack_lock, NULL);
	rt->plat.page = (size_t)sysconf(_SC_PAGESIZE);
	/* Half of the memory at one page a stack; the floor, 1/16 of it. */
	uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * rt->plat.page;
	rt->plat.max_stacks = (size_t)(ram / 2 / rt->plat.page);
	rt->plat.mem_floor = ram / 16;
	if (rt->plat.mem_floor < (128u << 20))
		rt->plat.mem_floor = 128u << 20;
	if (rt->plat.mem_floor > (2ull << 30))
		rt->plat.mem_floor = 2ull << 30;
	rt->plat.npu_of_os = n;
	rt->plat.pu_of_os = xmalloc((n ? n : 1) * sizeof(int));
	for (unsigned i = 0; i < n; i++)
		rt->plat.pu_of_os[i] = -1;
	for (int i = 0; i < t->npus; i++)
		rt->plat.pu_of_os[t->pus[i].os_index] = i;
	return true;
}

/* M0 is the calling thread; the others are joined once the run is over.
 * No M is made after that (rt_startm_unlock), so allm, read under the
 * lock it is written under, is every thread there will be.  They are
 * joined oldest first: an M's thread was created by an older M (or
 * sysmon, or M0), and until that creator is joined its pthread_create
 * may not have stored the handle yet. */
/* --schedtrace [core/schedtrace.c]: a thread of its own, outside the
 * runtime's Ms, prints a snapshot every rt->schedtrace_ns of wall time
 * while the run lasts.  Not sysmon: not every policy runs one, and
 * sysmon's own timing (its retakes) should not depend on the option.  It
 * holds sched.lock while it reads, as Go's schedtrace does, and writes
 * after letting go of it. */
struct natp_schedtrace {
	struct rt *rt;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done;
	struct natp_tstat tstat; /* its thread's, as it ended */
};

static void *schedtrace_main(void *arg)
{
	struct natp_schedtrace *st = arg;
	struct rt *rt = st->rt;
	pthread_mutex_lock(&st->mu);
	/* from the start: Go's sysmon prints "SCHED 0ms" at its first round */
	for (int64_t next = rt->start_ns; !st->done; next += rt->schedtrace_ns) {
		struct timespec at = { (time_t)(next / 1000000000), (long)(next % 1000000000) };
		while (!st->done && pthread_cond_timedwait(&st->cv, &st->mu, &at) != ETIMEDOUT)
			;
		if (st->done || rt_done(rt))
			break;
		pthread_mutex_unlock(&st->mu);
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (!f)
			die_oom(0);
		rt_lock(&rt->sched.lock);
		rt_schedtrace(rt, natp_nanotime() - rt->start_ns, f);
		rt_unlock(&rt->sched.lock);
		if (fclose(f) != 0)
			die_oom(len);
		fwrite(buf, 1, len, stderr);
		fflush(stderr);
		free(buf);
		/* a late wake-up skips the snapshots it missed, as Go's does */
		int64_t now = natp_nanotime();
		if (next < now - rt->schedtrace_ns)
			next += (now - next) / rt->schedtrace_ns * rt->schedtrace_ns;
		pthread_mutex_lock(&st->mu);
	}
	pthread_mutex_unlock(&st->mu);
	natp_tstat(&st->tstat);
	return NULL;
}

static void schedtrace_start(struct natp_schedtrace *st, struct rt *rt)
{
	memset(st, 0, sizeof(*st));
	st->rt = rt;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&st->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&st->mu, NULL);
	int rc = pthread_create(&st->thread, NULL, schedtrace_main, st);
	if (rc != 0) {
		fprintf(stderr, "schedlab: cannot start the --schedtrace thread: %s\n", strerror(rc));
		exit(3);
	}
}

static void schedtrace_stop(struct natp_schedtrace *st)
{
	pthread_mutex_lock(&st->mu);
	st->done = true;
	pthread_cond_signal(&st->cv);
	pthread_mutex_unlock(&st->mu);
	pthread_join(st->thread, NULL);
	pthread_cond_destroy(&st->cv);
	pthread_mutex_destroy(&st->mu);
}

void natp_rt_run(struct rt *rt)
{
	struct m *m0 = rt->m0;
	struct natp_schedtrace st;
	natp_host_start(rt);
	if (rt->schedtrace_ns > 0)
		schedtrace_start(&st, rt);
	m0->plat.is_caller = true;
	natp_cur = m0;
	ctx_init_thread(&m0->plat.g0);
	rt_mstart(m0);
	natp_cur = NULL;
	if (rt->schedtrace_ns > 0)
		schedtrace_stop(&st);
	rt_lock(&rt->sched.lock);
	assert(rt->sched.stopped);
	int n = rt->sched.mcount;
	struct m **ms = xmalloc((size_t)n * sizeof(*ms));
	for (struct m *m = rt->allm; m; m = m->alllink)
		ms[--n] = m;   /* allm is newest first, ids in order of making */
	assert(n == 0);
	rt_unlock(&rt->sched.lock);
	for (int i = 0; i < rt->sched.mcount; i++)
		if (!ms[i]->plat.is_caller && ms[i]->plat.started)
			pthread_join(ms[i]->plat.thread, NULL);
	free(ms);
	natp_host_end(rt, rt->schedtrace_ns > 0 ? &st.tstat : NULL);
}

/* Every stack goes with its arena, those of Gs dropped with the run too. */
void natp_rt_fini(struct rt *rt)
{
	struct plat_rt *pr = &rt->plat;
	for (size_t i = 0; i < pr->narenas; i++) {
		struct natp_arena *a = pr->arenas[i];
		/* dropped Gs' frames left their redzones poisoned */
		unpoison(a->slots, (size_t)ARENA_SLOTS * NATP_G_STACK);
		munmap(a->map, a->map_bytes);
		free(a);
	}
	free(pr->arenas);
	free(pr->by_addr);
	pthread_mutex_destroy(&pr->stack_lock);
	free(rt->plat.pu_of_os);
}
