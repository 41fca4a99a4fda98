/* The report's mechanisms [docs/runtime.md, "The mechanisms"]: the core's
 * counters of a run (struct rt_mech) as JSON, as text, and every latency
 * distribution as a CDF in CSV (`run --cdf`). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "util/output.h"

static const char *const gq_labels[RT_GQ__COUNT] = {
	[RT_GQ_FAIRNESS] = "fairness",
	[RT_GQ_LOCAL_EMPTY] = "local empty",
	[RT_GQ_ONLY] = "only queue",
	[RT_GQ_STEAL] = "steal",
	[RT_GQ_IDLE] = "before idle",
};

static const char *const why_labels[RT_RUN__COUNT] = {
	[RT_RUN_SPAWN] = "spawn",
	[RT_RUN_PARTNER] = "partner",
	[RT_RUN_TIMER] = "timer",
	[RT_RUN_NET] = "network",
	[RT_RUN_SYSCALL] = "syscall return",
	[RT_RUN_PREEMPT] = "preemption",
	[RT_RUN_YIELD] = "yield",
};

/* ---- JSON ---- */

cJSON *run_hist_buckets_json(const struct hist *h)
{
	cJSON *a = cJSON_CreateArray();
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		if (!h->bucket[b])
			continue;
		cJSON *pair = cJSON_CreateArray();
		cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)hist_bucket_top(b)));
		cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)h->bucket[b]));
		cJSON_AddItemToArray(a, pair);
	}
	return a;
}

static cJSON *dist_json(const struct hist *h)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "count", (double)h->count);
	cJSON_AddItemToObject(o, "latency_ns", run_latency_json(h));
	return o;
}

static cJSON *qlen_json(const struct rt_qlen *q, uint64_t span)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "mean", span ? q->area_ns / (double)span : 0);
	cJSON_AddNumberToObject(o, "max", q->max);
	return o;
}

void run_mech_json(cJSON *metrics, const struct rt_mech *mc)
{
	if (!mc->measured)
		return;
	cJSON *o = cJSON_AddObjectToObject(metrics, "mechanisms");
	double span = (double)mc->span_ns;
	cJSON_AddNumberToObject(o, "span_ns", span);

	cJSON *gq = cJSON_AddObjectToObject(o, "global_queue");
	cJSON *takes = cJSON_AddObjectToObject(gq, "takes");
	for (int k = 0; k < RT_GQ__COUNT; k++) {
		cJSON *t = cJSON_AddObjectToObject(takes, rt_gq_why_names[k]);
		cJSON_AddNumberToObject(t, "takes", (double)mc->gq_takes[k]);
		cJSON_AddNumberToObject(t, "goroutines", (double)mc->gq_gs[k]);
	}
	cJSON_AddItemToObject(gq, "length", qlen_json(&mc->globrunq, mc->span_ns));

	cJSON *sb = cJSON_AddArrayToObject(o, "steal_batches");
	for (unsigned b = 0; b < RT_STEAL_BUCKETS; b++) {
		if (!mc->steal_batches[b])
			continue;
		uint64_t lo, hi;
		rt_steal_bucket_range(b, &lo, &hi);
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "min", (double)lo);
		cJSON_AddNumberToObject(e, "max", (double)hi);
		cJSON_AddNumberToObject(e, "batches", (double)mc->steal_batches[b]);
		cJSON_AddNumberToObject(e, "goroutines", (double)mc->steal_gs[b]);
		cJSON_AddItemToArray(sb, e);
	}

	cJSON *wk = cJSON_AddObjectToObject(o, "wakeups");
	for (int k = 0; k < RT_RUN__COUNT; k++)
		if (mc->latency_by_why[k])
			cJSON_AddItemToObject(wk, rt_run_why_names[k], dist_json(mc->latency_by_why[k]));

	if (mc->nclasses) {
		cJSON *pr = cJSON_AddObjectToObject(o, "programs");
		for (int k = 0; k < mc->nclasses; k++)
			if (mc->latency_by_class[k])
				cJSON_AddItemToObject(pr, mc->class_names[k],
						      dist_json(mc->latency_by_class[k]));
	}

	cJSON *sp = cJSON_AddObjectToObject(o, "spinning_threads");
	cJSON_AddNumberToObject(sp, "mean", span > 0 ? (double)mc->spinning_ns / span : 0);
	cJSON_AddNumberToObject(sp, "max", mc->spinning_max);
	cJSON_AddNumberToObject(sp, "spinning_ns", (double)mc->spinning_ns);
	if (mc->needspinning)
		cJSON_AddNumberToObject(sp, "instead_of_dropping_p", (double)mc->spun_instead);
	if (mc->one_poller)
		cJSON_AddNumberToObject(o, "netpoll_skipped", (double)mc->polls_skipped);

	cJSON *ps = cJSON_AddArrayToObject(o, "procs");
	for (int i = 0; i < mc->nprocs; i++) {
		const struct rt_mech_p *p = &mc->p[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "p", i);
		cJSON_AddNumberToObject(e, "node", p->node);
		cJSON_AddNumberToObject(e, "busy_ns", (double)p->busy_ns);
		cJSON_AddNumberToObject(e, "busy_frac", span > 0 ? (double)p->busy_ns / span : 0);
		cJSON_AddItemToObject(e, "runq", qlen_json(&p->runq, mc->span_ns));
		if (p->sharedq.max)
			cJSON_AddItemToObject(e, "sharedq", qlen_json(&p->sharedq, mc->span_ns));
		cJSON_AddItemToArray(ps, e);
	}

	if (mc->mem_measured) {
		cJSON *mem = cJSON_AddObjectToObject(o, "memory");
		cJSON *rows = cJSON_AddArrayToObject(mem, "dram_lines_by_node_home");
		for (int n = 0; n < mc->nnodes; n++) {
			cJSON *row = cJSON_CreateArray();
			for (int h = 0; h < mc->nnodes; h++)
				cJSON_AddItemToArray(row, cJSON_CreateNumber(
								  (double)mc->mem_lines[n * mc->nnodes + h]));
			cJSON_AddItemToArray(rows, row);
		}
		cJSON *hops = cJSON_AddArrayToObject(mem, "by_hops");
		for (int h = 0; h < mc->nhops; h++) {
			cJSON *e = cJSON_CreateObject();
			cJSON_AddNumberToObject(e, "hops", h);
			cJSON_AddNumberToObject(e, "lines", (double)mc->mem_hop_lines[h]);
			if (mc->mem_hop_lines[h])
				cJSON_AddNumberToObject(e, "mean_ns",
							mc->mem_hop_ns[h] / (double)mc->mem_hop_lines[h]);
			cJSON_AddItemToArray(hops, e);
		}
	}
}

/* ---- Text ---- */

static void global_queue_text(const struct rt_mech *mc, double span)
{
	printf("  %-14s", "global queue");
	bool any = false;
	for (int k = 0; k < RT_GQ__COUNT; k++) {
		if (!mc->gq_takes[k])
			continue;
		printf("%s%s %llu (%llu Gs)", any ? ", " : "", gq_labels[k],
		       (unsigned long long)mc->gq_takes[k], (unsigned long long)mc->gq_gs[k]);
		any = true;
	}
	printf("%s\n", any ? " takes" : "no takes");
	printf("  %-14slength %.2f on average, at most %u\n", "",
	       span > 0 ? mc->globrunq.area_ns / span : 0, mc->globrunq.max);
}

/* The Ps' busy time by node, where there are two nodes or more. */
static void busy_by_node_text(const struct rt_mech *mc, double span)
{
	int nnodes = 0;
	for (int i = 0; i < mc->nprocs; i++)
		if (mc->p[i].node + 1 > nnodes)
			nnodes = mc->p[i].node + 1;
	if (nnodes <= 1)
		return;
	printf("  %-14s", "... by node");
	for (int n = 0; n < nnodes; n++) {
		double b = 0;
		int np = 0;
		for (int i = 0; i < mc->nprocs; i++)
			if (mc->p[i].node == n) {
				b += (double)mc->p[i].busy_ns;
				np++;
			}
		if (np)
			printf("%s%d: %.1f%%", n ? ", " : "", n, 100.0 * b / span / np);
	}
	printf("\n");
}

/* The local queues and the Ps' busy time, over all Ps, then by node. */
static void procs_text(const struct rt_mech *mc, double span)
{
	double area = 0, sarea = 0, busy = 0;
	uint32_t qmax = 0, smax = 0;
	int pmin = 0, pmax = 0;
	for (int i = 0; i < mc->nprocs; i++) {
		area += mc->p[i].runq.area_ns;
		busy += (double)mc->p[i].busy_ns;
		if (mc->p[i].runq.max > qmax)
			qmax = mc->p[i].runq.max;
		sarea += mc->p[i].sharedq.area_ns;
		if (mc->p[i].sharedq.max > smax)
			smax = mc->p[i].sharedq.max;
		if (mc->p[i].busy_ns < mc->p[pmin].busy_ns)
			pmin = i;
		if (mc->p[i].busy_ns > mc->p[pmax].busy_ns)
			pmax = i;
	}
	if (!mc->nprocs || span <= 0)
		return;
	printf("  %-14slength %.2f a P on average, at most %u\n", "local queues",
	       area / span / mc->nprocs, qmax);
	if (smax)
		printf("  %-14slength %.2f a P on average, at most %u\n", "shared queues",
		       sarea / span / mc->nprocs, smax);
	printf("  %-14s%.1f%% on average; least P %d %.1f%%, most P %d %.1f%%\n", "Ps busy",
	       100.0 * busy / span / mc->nprocs, pmin, 100.0 * (double)mc->p[pmin].busy_ns / span,
	       pmax, 100.0 * (double)mc->p[pmax].busy_ns / span);
	busy_by_node_text(mc, span);
}

static void steal_text(const struct rt_mech *mc)
{
	printf("  %-14s", "steal batches");
	bool any = false;
	for (unsigned b = 0; b < RT_STEAL_BUCKETS; b++) {
		if (!mc->steal_batches[b])
			continue;
		uint64_t lo, hi;
		rt_steal_bucket_range(b, &lo, &hi);
		if (lo == hi)
			printf("%s%llu: %llu", any ? ", " : "", (unsigned long long)lo,
			       (unsigned long long)mc->steal_batches[b]);
		else
			printf("%s%llu-%llu: %llu", any ? ", " : "", (unsigned long long)lo,
			       (unsigned long long)hi, (unsigned long long)mc->steal_batches[b]);
		any = true;
	}
	printf("%s\n", any ? " (Gs: batches)" : "none");
}

/* The wake-ups' latency by why the G became runnable, then by program. */
static void wakeups_text(const struct rt_mech *mc)
{
	printf("  %-14s%10s%10s%10s%10s%10s%10s%10s\n", "wake-ups", "count", "p50", "p90", "p99",
	       "p99.9", "max", "mean");
	for (int k = 0; k < RT_RUN__COUNT; k++)
		if (mc->latency_by_why[k])
			run_latency_row(why_labels[k], true, mc->latency_by_why[k]);
	if (!mc->nclasses)
		return;
	printf("  programs\n");
	for (int k = 0; k < mc->nclasses; k++)
		if (mc->latency_by_class[k]) {
			char label[16];
			snprintf(label, sizeof(label), "%.14s", mc->class_names[k]);
			run_latency_row(label, true, mc->latency_by_class[k]);
		}
}

/* The DRAM lines by accessing and home node (left to the JSON past 8
 * nodes), and the model's latency by hops. */
static void memory_text(const struct rt_mech *mc)
{
	if (mc->nnodes > 8) {
		printf("  %-14s%d x %d nodes: in the JSON report (mechanisms.memory)\n", "memory",
		       mc->nnodes, mc->nnodes);
	} else {
		printf("  %-14saccessing node x home node, DRAM lines\n", "memory");
		printf("  %-14s", "");
		for (int h = 0; h < mc->nnodes; h++)
			printf("%12d", h);
		printf("\n");
		for (int n = 0; n < mc->nnodes; n++) {
			printf("  %14d", n);
			for (int h = 0; h < mc->nnodes; h++)
				printf("%12llu", (unsigned long long)mc->mem_lines[n * mc->nnodes + h]);
			printf("\n");
		}
	}
	printf("  %-14s", "DRAM latency");
	for (int h = 0; h < mc->nhops; h++) {
		char b[16];
		if (mc->mem_hop_lines[h])
			printf("%s%d: %s", h ? ", " : "", h,
			       run_fmt_ns(b, mc->mem_hop_ns[h] / (double)mc->mem_hop_lines[h]));
		else
			printf("%s%d: -", h ? ", " : "", h);
	}
	printf(" (by hops; the model's, a line)\n");
}

void run_mech_text(const struct rt_mech *mc)
{
	if (!mc->measured)
		return;
	double span = (double)mc->span_ns;
	printf("mechanisms\n");
	global_queue_text(mc, span);
	procs_text(mc, span);
	printf("  %-14s%.2f on average, at most %u at once", "spinning Ms",
	       span > 0 ? (double)mc->spinning_ns / span : 0, mc->spinning_max);
	if (mc->needspinning)
		printf("; %llu times an M spun instead of dropping its P (needspinning)",
		       (unsigned long long)mc->spun_instead);
	printf("\n");
	if (mc->one_poller)
		printf("  %-14s%llu non-blocking polls left to the M polling already (pollingNet)\n",
		       "netpoll", (unsigned long long)mc->polls_skipped);
	steal_text(mc);
	wakeups_text(mc);
	if (mc->mem_measured)
		memory_text(mc);
}

/* ---- CDF ---- */

static void cdf_rows(FILE *f, const char *name, const struct hist *h)
{
	uint64_t seen = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		if (!h->bucket[b])
			continue;
		seen += h->bucket[b];
		fprintf(f, "%s,%llu,%llu,%llu,%.9g\n", name, (unsigned long long)hist_bucket_top(b),
			(unsigned long long)h->bucket[b], (unsigned long long)seen,
			seen == h->count ? 1.0 : (double)seen / (double)h->count);
	}
}

int run_write_cdf(const char *cmd, const char *path, const struct run *run)
{
	struct output o;
	if (!output_start(&o, cmd, "--cdf", path))
		return EXIT_BADINPUT;
	FILE *f = o.f;
	const struct rt_result *r = &run->r;
	const struct rt_mech *mc = &run->mech;
	fprintf(f, "distribution,le_ns,count,cum_count,cum_frac\n");
	if (r->sched_latency.count)
		cdf_rows(f, "sched_latency", &r->sched_latency);
	if (r->requests)
		cdf_rows(f, "request_latency", &r->request_latency);
	for (int k = 0; k < RT_RUN__COUNT; k++)
		if (mc->latency_by_why[k]) {
			char name[64];
			snprintf(name, sizeof(name), "wakeup.%s", rt_run_why_names[k]);
			cdf_rows(f, name, mc->latency_by_why[k]);
		}
	for (int k = 0; k < mc->nclasses; k++)
		if (mc->latency_by_class[k]) {
			/* a program's name is an identifier: no comma or quote to escape */
			char name[300];
			snprintf(name, sizeof(name), "program.%s", mc->class_names[k]);
			cdf_rows(f, name, mc->latency_by_class[k]);
		}
	return output_finish(&o, cmd);
}
