/* The CPU a native run got (struct rt_host) [docs/runtime.md, "The CPU a
 * native run got"]: the report's "host" object, its line of the text
 * summary, and the warning on stderr when the host was busy. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"

static void add_or_null(cJSON *o, const char *key, bool known, double v)
{
	if (known)
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

void run_host_json(cJSON *report, const struct rt_host *h)
{
	if (!h->measured)
		return;
	cJSON *o = cJSON_AddObjectToObject(report, "host");
	double share = 0;
	bool has_share = rt_host_share(h, &share);
	char why[160];
	bool busy = rt_host_busy(h, why, sizeof(why));
	cJSON_AddNumberToObject(o, "wall_ns", (double)h->wall_ns);
	cJSON_AddNumberToObject(o, "cpu_ns", (double)h->cpu_ns);
	add_or_null(o, "run_delay_ns", h->schedstat, (double)h->run_delay_ns);
	add_or_null(o, "cpu_share", has_share, share);
	cJSON_AddNumberToObject(o, "voluntary_switches", (double)h->voluntary_switches);
	cJSON_AddNumberToObject(o, "involuntary_switches", (double)h->involuntary_switches);
	add_or_null(o, "loadavg_1m", h->loadavg_start >= 0, h->loadavg_start);
	cJSON_AddNumberToObject(o, "pus", h->pus);
	cJSON_AddBoolToObject(o, "busy", busy);
	if (busy)
		cJSON_AddStringToObject(o, "busy_why", why);
	else
		cJSON_AddNullToObject(o, "busy_why");
	/* beyond the contract's keys: what the figures above come from */
	add_or_null(o, "timeslices", h->schedstat, (double)h->timeslices);
	cJSON_AddNumberToObject(o, "threads", (double)h->threads);
	cJSON_AddNumberToObject(o, "procs", h->procs);
	add_or_null(o, "loadavg_1m_end", h->loadavg_end >= 0, h->loadavg_end);
	add_or_null(o, "others_cpu_ns", h->stat_read, (double)h->others_cpu_ns);
	add_or_null(o, "steal_ns", h->stat_read, (double)h->steal_ns);
	/* the container's limit, as the simulated "os" object gives it */
	if (h->cgroup) {
		cJSON *c = cJSON_AddObjectToObject(o, "cgroup");
		cJSON_AddNumberToObject(c, "cpu_quota", (double)h->quota_ns / (double)h->period_ns);
		cJSON_AddNumberToObject(c, "cpu_period_ns", (double)h->period_ns);
		cJSON_AddNumberToObject(c, "periods", (double)h->periods);
		cJSON_AddNumberToObject(c, "throttled_periods", (double)h->throttled_periods);
		cJSON_AddNumberToObject(c, "throttled_ns", (double)h->throttled_ns);
	}
}

/* The simulated OS's figures [struct rt_os_stats], into the report's
 * "os" object (made if absent): the keys "host" has natively, and the
 * quota's. */
/* The OS figures' keys in the "os" object, in order. */
static const struct {
	const char *key;
	size_t off;
} os_keys[] = {
#define OS_KEY(k) { #k, offsetof(struct rt_os_stats, k) }
	OS_KEY(threads), OS_KEY(cpu_ns), OS_KEY(run_delay_ns), OS_KEY(max_m_run_delay_ns),
	OS_KEY(timeslices), OS_KEY(voluntary_switches), OS_KEY(involuntary_switches),
	OS_KEY(stays), OS_KEY(elsewhere), OS_KEY(periods), OS_KEY(throttled_periods),
	OS_KEY(throttled_ns), OS_KEY(load_cpu_ns),
#undef OS_KEY
};

void run_os_json(cJSON *report, const struct rt_os_stats *s)
{
	if (!s->modelled)
		return;
	cJSON *o = cJSON_GetObjectItemCaseSensitive(report, "os");
	if (!o)
		o = cJSON_AddObjectToObject(report, "os");
	for (size_t i = 0; i < sizeof(os_keys) / sizeof(os_keys[0]); i++)
		cJSON_AddNumberToObject(o, os_keys[i].key,
					(double)*(const uint64_t *)((const char *)s + os_keys[i].off));
}

void run_host_text(const struct rt_host *h)
{
	if (!h->measured)
		return;
	char b[3][16];
	double share;
	printf("%-16scpu %s in %s wall (%.2f PUs)", "host", run_fmt_ns(b[0], (double)h->cpu_ns),
	       run_fmt_ns(b[1], (double)h->wall_ns), (double)h->cpu_ns / (double)h->wall_ns);
	if (rt_host_share(h, &share))
		printf(", run delay %s (%.1f%% of runnable time)",
		       run_fmt_ns(b[2], (double)h->run_delay_ns), 100.0 * (1.0 - share));
	printf(", %llu involuntary switches", (unsigned long long)h->involuntary_switches);
	if (h->loadavg_start >= 0)
		printf(", load %.2f on %d PUs", h->loadavg_start, h->pus);
	if (h->stat_read && h->wall_ns)
		printf(", others %.2f PUs", (double)h->others_cpu_ns / (double)h->wall_ns);
	char why[160];
	printf("%s\n", rt_host_busy(h, why, sizeof(why)) ? ", BUSY" : "");
	if (h->cgroup)
		printf("%-16sCPU quota %.2f of every %s: throttled in %llu of %llu periods, %s in all\n",
		       "cgroup", (double)h->quota_ns / (double)h->period_ns,
		       run_fmt_ns(b[0], (double)h->period_ns), (unsigned long long)h->throttled_periods,
		       (unsigned long long)h->periods, run_fmt_ns(b[1], (double)h->throttled_ns));
}

void run_os_text(const struct rt_os_stats *s)
{
	if (!s->modelled)
		return;
	char b[4][16];
	double runnable = (double)s->cpu_ns + (double)s->run_delay_ns;
	printf("%-16scpu %s, run delay %s (%.1f%% of runnable time; one M at most %s), "
	       "%llu involuntary switches", "os", run_fmt_ns(b[0], (double)s->cpu_ns),
	       run_fmt_ns(b[1], (double)s->run_delay_ns),
	       runnable > 0 ? 100.0 * (double)s->run_delay_ns / runnable : 0.0,
	       run_fmt_ns(b[2], (double)s->max_m_run_delay_ns),
	       (unsigned long long)s->involuntary_switches);
	if (s->periods)
		printf(", throttled in %llu of %llu periods (%s)",
		       (unsigned long long)s->throttled_periods, (unsigned long long)s->periods,
		       run_fmt_ns(b[3], (double)s->throttled_ns));
	printf("\n");
}

/* n with a comma every three digits: "3,410". */
static const char *fmt_count(char buf[32], uint64_t n)
{
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
	int o = 0;
	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

bool run_host_warn(FILE *f, const struct rt_host *h)
{
	char why[160];
	if (!rt_host_busy(h, why, sizeof(why)))
		return false;
	char b[16], n[32];
	fprintf(f, "schedlab: warning: the host was busy: %s (run delay %s, %s involuntary switches",
		why, run_fmt_ns(b, (double)h->run_delay_ns), fmt_count(n, h->involuntary_switches));
	if (h->loadavg_start >= 0)
		fprintf(f, ", load %.1f on %d PUs", h->loadavg_start, h->pus);
	fprintf(f, "); native figures understate what an idle machine gives\n");
	return true;
}
