/* The registry of a report's metrics (metric.h). */
#include "exp/metric.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "util/util.h"

/* Directions: latency, time and the costs of scheduling (its CPU, its
 * lock, its thread and futex traffic, moving Gs and stacks) are better
 * lower; work done, useful shares and locality higher.  An off-CPU share
 * that is parked is better higher: the rest of off-CPU time is waiting. */
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

const struct metric metric_table[] = {
	{ "makespan_ns", "makespan", "makespan", MU_NS, -1, false, NULL },
	{ "throughput_per_s", "throughput", "throughput", MU_RATE, +1, false, "throughput_unit" },
	{ "completed", "goroutines completed", "completed", MU_COUNT, +1, false, NULL },
	{ "requests", "requests", "requests", MU_COUNT, +1, true, NULL },
	{ "sched_latency_ns.p50", "sched latency p50", "sched_p50", MU_NS, -1, false, NULL },
	{ "sched_latency_ns.p90", "sched latency p90", "sched_p90", MU_NS, -1, false, NULL },
	{ "sched_latency_ns.p99", "sched latency p99", "sched_p99", MU_NS, -1, false, NULL },
	{ "sched_latency_ns.p999", "sched latency p99.9", "sched_p999", MU_NS, -1, false, NULL },
	{ "sched_latency_ns.max", "sched latency max", "sched_max", MU_NS, -1, false, NULL },
	{ "sched_latency_ns.mean", "sched latency mean", "sched_mean", MU_NS, -1, false, NULL },
	{ "request_latency_ns.p50", "request latency p50", "request_p50", MU_NS, -1, true, NULL },
	{ "request_latency_ns.p90", "request latency p90", "request_p90", MU_NS, -1, true, NULL },
	{ "request_latency_ns.p99", "request latency p99", "request_p99", MU_NS, -1, true, NULL },
	{ "request_latency_ns.p999", "request latency p99.9", "request_p999", MU_NS, -1, true, NULL },
	{ "request_latency_ns.max", "request latency max", "request_max", MU_NS, -1, true, NULL },
	{ "request_latency_ns.mean", "request latency mean", "request_mean", MU_NS, -1, true, NULL },
	{ "cpu.busy_pus", "cpu busy PUs", "busy_pus", MU_PUS, -1, false, NULL },
	{ "cpu.busy_frac", "cpu busy, of all PUs", "busy", MU_FRAC, -1, false, NULL },
	{ "cpu.futex_frac", "cpu futex, of on-CPU", "cpu_futex", MU_FRAC, -1, false, NULL },
	{ "cpu.on_cpu_ns", "on-CPU time", "on_cpu", MU_NS, -1, false, NULL },
	{ "cpu.on_cpu.user", "on-CPU user", "cpu_user", MU_FRAC, +1, false, NULL },
	{ "cpu.on_cpu.sched", "on-CPU sched", "cpu_sched", MU_FRAC, -1, false, NULL },
	{ "cpu.on_cpu.spin", "on-CPU spin", "cpu_spin", MU_FRAC, -1, false, NULL },
	{ "cpu.on_cpu.lock_wait", "on-CPU lock wait", "cpu_lock_wait", MU_FRAC, -1, false, NULL },
	{ "cpu.lock_wait_by.on_cpu.sched", "on-CPU lock wait, scheduler", "cpu_lock_wait_sched",
	  MU_FRAC, -1, false, NULL },
	{ "cpu.off_cpu_ns", "off-CPU time", "off_cpu", MU_NS, -1, false, NULL },
	{ "cpu.off_cpu.lock_wait", "off-CPU lock wait", "off_lock_wait", MU_FRAC, -1, false, NULL },
	{ "cpu.lock_wait_by.off_cpu.sched", "off-CPU lock wait, scheduler", "off_lock_wait_sched",
	  MU_FRAC, -1, false, NULL },
	{ "cpu.off_cpu.syscall", "off-CPU syscall", "off_syscall", MU_FRAC, -1, false, NULL },
	{ "cpu.off_cpu.parked", "off-CPU parked", "off_parked", MU_FRAC, +1, false, NULL },
	{ "locality.mem_local_frac", "local memory", "mem_local", MU_FRAC, +1, false, NULL },
	{ "locality.cache_hit_frac", "cache hits", "cache_hit", MU_FRAC, +1, false, NULL },
	{ "locality.migrations_core", "migrations core", "migrations_core", MU_COUNT, -1, false,
	  NULL },
	{ "locality.migrations_node", "migrations node", "migrations_node", MU_COUNT, -1, false,
	  NULL },
	{ "locality.stack_migrations", "stack migrations", "stack_migrations", MU_COUNT, -1, true,
	  NULL },
	{ "steals.same_node", "steals same node", "steals_same", MU_COUNT, -1, false, NULL },
	{ "steals.remote_node", "steals remote node", "steals_remote", MU_COUNT, -1, false, NULL },
	{ "steals.goroutines_stolen", "goroutines stolen", "stolen", MU_COUNT, -1, false, NULL },
	{ "threads.created", "threads created", "threads", MU_COUNT, -1, false, NULL },
	{ "threads.parks", "thread parks", "thread_parks", MU_COUNT, -1, false, NULL },
	{ "threads.wakeups", "thread wake-ups", "thread_wakeups", MU_COUNT, -1, false, NULL },
	{ "threads.futex_calls", "futex calls", "futex_calls", MU_COUNT, -1, false, NULL },
};
const int metric_count = (int)(sizeof(metric_table) / sizeof(metric_table[0]));

int metric_index(const char *name)
{
	for (int i = 0; i < metric_count; i++)
		if (strcmp(metric_table[i].name, name) == 0)
			return i;
	return -1;
}

int metric_index_by_path(const char *path)
{
	for (int i = 0; i < metric_count; i++)
		if (strcmp(metric_table[i].path, path) == 0)
			return i;
	return -1;
}

void metric_names(char *buf, size_t size)
{
	size_t used = 0;
	if (size)
		buf[0] = '\0';
	for (int i = 0; i < metric_count; i++)
		used = str_list_add(buf, size, used, metric_table[i].name);
}

void metric_names_wrapped(char *buf, size_t size, int first, int indent, int width)
{
	size_t len = 0;
	int col = first;
	if (size)
		buf[0] = '\0';
	for (int i = 0; i < metric_count; i++) {
		const char *name = metric_table[i].name;
		int w = (int)strlen(name) + (i + 1 < metric_count);   /* and its comma */
		if (i > 0 && col + 1 + w > width) {
			append(buf, size, &len, "\n%*s", indent, "");
			col = indent;
		} else if (i > 0) {
			append(buf, size, &len, " ");
			col++;
		}
		append(buf, size, &len, "%s%s", name, i + 1 < metric_count ? "," : "");
		col += w;
	}
}

const char *metric_unit_name(enum metric_unit u)
{
	static const char *const names[] = {
		[MU_NS] = "ns", [MU_RATE] = "/s", [MU_COUNT] = "count", [MU_PUS] = "PUs",
		[MU_FRAC] = "fraction",
	};
	return names[u];
}

double metric_ci95(int n, double sd)
{
	if (n < 2)
		return 0;
	return gsl_cdf_tdist_Pinv(0.975, n - 1) * sd / sqrt(n);
}

/* Appends to buf[*len..size) what fits; *len never passes size - 1, so a
 * later append starts inside the buffer however long the number was. */
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	if (*len + 1 >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

void metric_format_mean(char *buf, size_t size, const struct metric *m, const char *rate,
			double mean, double ci95, int n, int nall)
{
	size_t len = 0;
	if (size)
		buf[0] = '\0';
	if (n == 0) {
		append(buf, size, &len, "-");
		return;
	}
	double scale = 1;
	int decimals = 0;
	const char *unit = "";
	switch (m->unit) {
	case MU_NS:
		unit = str_ns_unit(mean, &scale, &decimals);
		break;
	case MU_RATE:
		decimals = 1;
		unit = rate ? rate : "/s";
		break;
	case MU_COUNT:
		/* a count's mean over several runs may be fractional */
		decimals = n > 1;
		break;
	case MU_PUS:
		decimals = 2;
		unit = "PUs";
		break;
	case MU_FRAC:
		/* two decimals, more below 1% to show three digits */
		scale = 0.01;
		decimals = 2;
		if (mean > 0 && mean < 0.01)
			decimals = 2 + (int)fmin(3, ceil(-log10(100 * mean)));
		unit = "%";
		break;
	}
	append(buf, size, &len, "%.*f%s%s", decimals, mean / scale,
	       m->unit == MU_FRAC || m->unit == MU_COUNT ? "" : " ", unit);
	if (n >= 2)
		append(buf, size, &len, " \xc2\xb1%.*f", decimals, ci95 / scale);
	if (n < nall)
		append(buf, size, &len, " (n=%d)", n);
}
