/* Why a G waited [docs/runtime.md, "Why a G waited"]: a run's breakdown
 * of its scheduling latency by cause (struct rt_why, `run --why`) as the
 * report's "why" object and as the text summary's table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"

/* The classes shown: each program with waits, when there are two or more. */
static bool show_classes(const struct rt_why *w)
{
	int n = 0;
	for (int k = 0; k < w->nclasses; k++)
		n += w->cls[k].waits > 0;
	return n > 1;
}

/* The indices of ns[0..n) with any time, the largest first. */
static int by_size(const uint64_t *ns, int n, int *order)
{
	int m = 0;
	for (int k = 0; k < n; k++) {
		if (!ns[k])
			continue;
		int i = m++;
		while (i > 0 && ns[order[i - 1]] < ns[k]) {
			order[i] = order[i - 1];
			i--;
		}
		order[i] = k;
	}
	return m;
}

/* ---- JSON ---- */

/* A breakdown of count items' total_ns into n causes: {UNIT: count,
 * latency_ns, mean_ns, causes: {NAME: {ns, share, mean_ns, UNIT}}}, UNIT
 * each cause's items with any time in it.  Returns the causes object. */
static cJSON *breakdown_json(cJSON *o, const char *unit, uint64_t count, uint64_t total_ns,
			     const char *const *names, const uint64_t *ns, const uint64_t *with,
			     int n)
{
	double c = (double)count, t = (double)total_ns;
	cJSON_AddNumberToObject(o, unit, c);
	cJSON_AddNumberToObject(o, "latency_ns", t);
	cJSON_AddNumberToObject(o, "mean_ns", c ? t / c : 0);
	cJSON *causes = cJSON_AddObjectToObject(o, "causes");
	for (int k = 0; k < n; k++) {
		cJSON *x = cJSON_AddObjectToObject(causes, names[k]);
		cJSON_AddNumberToObject(x, "ns", (double)ns[k]);
		cJSON_AddNumberToObject(x, "share", t ? (double)ns[k] / t : 0);
		cJSON_AddNumberToObject(x, "mean_ns", c ? (double)ns[k] / c : 0);
		cJSON_AddNumberToObject(x, unit, (double)with[k]);
	}
	return causes;
}

static cJSON *class_json(const struct rt_why_class *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *causes = breakdown_json(o, "waits", c->waits, c->total_ns, rt_why_names, c->ns,
				       c->waits_with, RT_WHY__COUNT);
	for (int k = 0; k < RT_WHY__COUNT; k++)
		if (c->puts[k])
			cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(causes, rt_why_names[k]),
						"behind", (double)c->ahead_sum[k] / (double)c->puts[k]);
	return o;
}

static cJSON *requests_json(const struct rt_why_requests *r)
{
	cJSON *o = cJSON_CreateObject();
	breakdown_json(o, "requests", r->requests, r->total_ns, rt_whyrq_names, r->ns, r->with,
		       RT_WHYRQ__COUNT);
	return o;
}

void run_why_json(cJSON *report, const struct rt_mech *mech)
{
	const struct rt_why *w = mech->why;
	if (!w)
		return;
	cJSON *o = cJSON_AddObjectToObject(report, "why");
	cJSON_AddItemToObject(o, "all", class_json(&w->all));
	cJSON_AddNumberToObject(o, "wait_p_free_ns", (double)w->wait_p_free_ns);
	if (w->req.requests)
		cJSON_AddItemToObject(o, "requests", requests_json(&w->req));
	if (!show_classes(w))
		return;
	cJSON *progs = cJSON_AddObjectToObject(o, "programs");
	for (int k = 0; k < w->nclasses; k++)
		if (w->cls[k].waits && mech->class_names[k])
			cJSON_AddItemToObject(progs, mech->class_names[k], class_json(&w->cls[k]));
}

/* ---- Text ---- */

static void class_text(const char *label, const struct rt_why_class *c)
{
	char t[16], m[16];
	printf("  %s: %llu waits, %s in all, mean %s\n", label, (unsigned long long)c->waits,
	       run_fmt_ns(t, (double)c->total_ns),
	       run_fmt_ns(m, c->waits ? (double)c->total_ns / (double)c->waits : 0));
	if (!c->total_ns)
		return;
	printf("    %-14s%10s%8s%11s%10s%8s\n", "cause", "total", "share", "mean/wait", "waits",
	       "behind");
	/* the largest first; a cause with no time is left out */
	int order[RT_WHY__COUNT];
	int n = by_size(c->ns, RT_WHY__COUNT, order);
	for (int i = 0; i < n; i++) {
		int k = order[i];
		char behind[16] = "";
		if (c->puts[k])
			snprintf(behind, sizeof(behind), "%.1f", (double)c->ahead_sum[k] / (double)c->puts[k]);
		printf("    %-14s%10s%7.1f%%%11s%10llu", rt_why_names[k],
		       run_fmt_ns(t, (double)c->ns[k]), 100.0 * (double)c->ns[k] / (double)c->total_ns,
		       run_fmt_ns(m, (double)c->ns[k] / (double)c->waits),
		       (unsigned long long)c->waits_with[k]);
		printf(behind[0] ? "%8s\n" : "%s\n", behind);
	}
}

static void requests_text(const struct rt_why_requests *r)
{
	char t[16], m[16];
	double n = (double)r->requests;
	printf("requests (each from its arrival to its answer, by cause; docs/runtime.md, "
	       "\"Why a request took its time\"):\n");
	printf("  %llu requests, %s in all, mean %s\n", (unsigned long long)r->requests,
	       run_fmt_ns(t, (double)r->total_ns), run_fmt_ns(m, n ? (double)r->total_ns / n : 0));
	if (!r->total_ns)
		return;
	printf("    %-16s%10s%8s%14s%10s\n", "cause", "total", "share", "mean/request",
	       "requests");
	int order[RT_WHYRQ__COUNT];
	int shown = by_size(r->ns, RT_WHYRQ__COUNT, order);
	for (int i = 0; i < shown; i++) {
		int k = order[i];
		printf("    %-16s%10s%7.1f%%%14s%10llu\n", rt_whyrq_names[k],
		       run_fmt_ns(t, (double)r->ns[k]), 100.0 * (double)r->ns[k] / (double)r->total_ns,
		       run_fmt_ns(m, (double)r->ns[k] / n), (unsigned long long)r->with[k]);
	}
}

void run_why_text(const struct rt_mech *mech)
{
	const struct rt_why *w = mech->why;
	if (!w)
		return;
	printf("why (each G's wait from runnable to running, by cause; docs/runtime.md, "
	       "\"Why a G waited\"):\n");
	if (show_classes(w))
		for (int k = 0; k < w->nclasses; k++)
			if (w->cls[k].waits && mech->class_names[k])
				class_text(mech->class_names[k], &w->cls[k]);
	class_text("all", &w->all);
	if (w->req.requests)
		requests_text(&w->req);
}
