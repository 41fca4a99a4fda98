/* The CPU the OS gave a native run [docs/runtime.md, "The CPU a native run
 * got"]: each thread the platform made for the run reads its own
 * scheduler statistics as it ends (natp_mmain, the --schedtrace thread),
 * the calling thread (M0) its own before and after; natp_rt_run sums them
 * once every thread is joined, so no figure is shared while the run lasts.
 * The machine around the run: /proc/loadavg and /proc/stat at both ends. */
#include "core/runtime.h"
#include "util/gomaxprocs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A small /proc file whole, NUL-terminated; false if it cannot be read. */
static bool read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == size - 1)
			break;
	}
	close(fd);
	buf[len] = '\0';
	return len > 0;
}

/* The calling thread's: schedstat's CPU time, run delay and timeslices
 * (the kernel's own nanoseconds, CONFIG_SCHED_INFO), getrusage's switches.
 * Without schedstat the CPU time comes from the thread's CPU clock and
 * there is no run delay. */
void natp_tstat(struct natp_tstat *out)
{
	memset(out, 0, sizeof(*out));
	char buf[128];
	unsigned long long cpu, delay, slices;
	bool read = read_small("/proc/thread-self/schedstat", buf, sizeof(buf));
	if (!read) {   /* /proc/thread-self is Linux 3.17's */
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/task/%ld/schedstat",
			 (long)syscall(SYS_gettid));
		read = read_small(path, buf, sizeof(buf));
	}
	if (read &&
	    sscanf(buf, "%llu %llu %llu", &cpu, &delay, &slices) == 3) {
		out->schedstat = true;
		out->cpu_ns = cpu;
		out->delay_ns = delay;
		out->slices = slices;
	} else {
		struct timespec ts;
		if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
			return;
		out->cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		out->nvcsw = (uint64_t)ru.ru_nvcsw;
		out->nivcsw = (uint64_t)ru.ru_nivcsw;
	}
	out->ok = true;
}

static void tstat_add(struct natp_tstat *sum, const struct natp_tstat *t)
{
	if (!t->ok)
		return;
	/* one thread without run delays makes the sum's a lower bound */
	sum->schedstat = (sum->ok ? sum->schedstat : true) && t->schedstat;
	sum->ok = true;
	sum->cpu_ns += t->cpu_ns;
	sum->delay_ns += t->delay_ns;
	sum->slices += t->slices;
	sum->nvcsw += t->nvcsw;
	sum->nivcsw += t->nivcsw;
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static double loadavg_1m(void)
{
	char buf[128];
	double l;
	if (!read_small("/proc/loadavg", buf, sizeof(buf)) || sscanf(buf, "%lf", &l) != 1)
		return -1;
	return l;
}

/* /proc/stat's first line: every CPU's busy time (user, nice, system, irq,
 * softirq; guest time is within user) and steal, in ns. */
static bool stat_read(uint64_t *busy, uint64_t *steal)
{
	char buf[512];
	unsigned long long v[8];
	if (!read_small("/proc/stat", buf, sizeof(buf)) ||
	    sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) != 8)
		return false;
	long hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		return false;
	uint64_t tick = 1000000000u / (uint64_t)hz;
	*busy = (v[0] + v[1] + v[2] + v[5] + v[6]) * tick;
	*steal = v[7] * tick;
	return true;
}

/* The CPU cgroup's cpu.stat, at the run's start (end 0) or end (1): a
 * quota and its counters, as a container's limit shows on the run. */
static void cgroup_read(struct natp_host *h, int end)
{
	struct gmp_limits l;
	struct gmp_cpu_stat st;
	bool ok = gmp_host_cpu_stat("", &l, &st) && l.quota_ns > 0;
	if (end == 0) {
		h->cg_ok = ok;
		h->cg_quota_ns = l.quota_ns;
		h->cg_period_ns = l.period_ns;
	} else {
		h->cg_ok = ok;
	}
	if (ok) {
		h->cg_periods[end] = st.periods;
		h->cg_throttled[end] = st.throttled_periods;
		h->cg_throttled_ns[end] = st.throttled_ns;
	}
}

void natp_host_start(struct rt *rt)
{
	struct natp_host *h = &rt->plat.host;
	memset(h, 0, sizeof(*h));
	h->load_start = loadavg_1m();
	h->stat_ok = stat_read(&h->busy_start, &h->steal_start);
	cgroup_read(h, 0);
	natp_tstat(&h->m0_start);
	h->start_ns = natp_nanotime();
}

/* After every thread of the run is joined: their figures (m->plat.tstat)
 * and the calling thread's since natp_host_start. */
void natp_host_end(struct rt *rt, const struct natp_tstat *schedtrace)
{
	struct natp_host *h = &rt->plat.host;
	h->wall_ns = natp_nanotime() - h->start_ns;
	struct natp_tstat m0;
	natp_tstat(&m0);
	if (m0.ok && h->m0_start.ok) {
		m0.cpu_ns = sub0(m0.cpu_ns, h->m0_start.cpu_ns);
		m0.delay_ns = sub0(m0.delay_ns, h->m0_start.delay_ns);
		m0.slices = sub0(m0.slices, h->m0_start.slices);
		m0.nvcsw = sub0(m0.nvcsw, h->m0_start.nvcsw);
		m0.nivcsw = sub0(m0.nivcsw, h->m0_start.nivcsw);
		m0.schedstat = m0.schedstat && h->m0_start.schedstat;
		tstat_add(&h->sum, &m0);
		h->threads++;
	}
	for (struct m *m = rt->allm; m; m = m->alllink) {
		if (m->plat.is_caller || !m->plat.tstat.ok)
			continue;
		tstat_add(&h->sum, &m->plat.tstat);
		h->threads++;
	}
	if (schedtrace && schedtrace->ok) {
		tstat_add(&h->sum, schedtrace);
		h->threads++;
	}
	h->load_end = loadavg_1m();
	if (h->stat_ok)
		h->stat_ok = stat_read(&h->busy_end, &h->steal_end);
	if (h->cg_ok)
		cgroup_read(h, 1);
}

void natp_host(struct rt *rt, struct rt_host *out)
{
	const struct natp_host *h = &rt->plat.host;
	memset(out, 0, sizeof(*out));
	if (!h->sum.ok || h->wall_ns <= 0)
		return;   /* the run never ran (natp_host_end was not reached) */
	out->measured = true;
	out->schedstat = h->sum.schedstat;
	out->threads = h->threads;
	out->wall_ns = (uint64_t)h->wall_ns;
	out->cpu_ns = h->sum.cpu_ns;
	out->run_delay_ns = h->sum.delay_ns;
	out->timeslices = h->sum.slices;
	out->voluntary_switches = h->sum.nvcsw;
	out->involuntary_switches = h->sum.nivcsw;
	out->pus = rt->topo->npus;
	out->procs = rt->procs;
	out->loadavg_start = h->load_start;
	out->loadavg_end = h->load_end;
	out->stat_read = h->stat_ok;
	if (h->stat_ok) {
		/* ticks of 1/CLK_TCK s: a short run's figure is that coarse */
		out->others_cpu_ns = sub0(sub0(h->busy_end, h->busy_start), out->cpu_ns);
		out->steal_ns = sub0(h->steal_end, h->steal_start);
	}
	if (h->cg_ok) {
		out->cgroup = true;
		out->quota_ns = h->cg_quota_ns;
		out->period_ns = h->cg_period_ns;
		out->periods = sub0(h->cg_periods[1], h->cg_periods[0]);
		out->throttled_periods = sub0(h->cg_throttled[1], h->cg_throttled[0]);
		out->throttled_ns = sub0(h->cg_throttled_ns[1], h->cg_throttled_ns[0]);
	}
}
