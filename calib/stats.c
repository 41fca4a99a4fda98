/* Calibration helpers: samples and their spread, time budgets, binding,
 * the CPU the host gave us, the progress line, and the file's figures. */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calib/calib.h"

/* ---- Samples ---- */

void cal_add(struct cal_samples *s, double v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = xrealloc(s->v, (size_t)s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = v;
}

void cal_samples_free(struct cal_samples *s)
{
	free(s->v);
	*s = (struct cal_samples){ 0 };
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The q-quantile by linear interpolation between the order statistics. */
static double quantile(const double *sorted, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;
	if (i >= n - 1)
		return sorted[n - 1];
	return sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]);
}

void cal_summarize(const struct cal_samples *s, struct cal_stat *out)
{
	out->samples = s->n;
	if (s->n == 0) {
		out->median = out->p10 = out->p90 = NAN;
		return;
	}
	double *v = xmalloc((size_t)s->n * sizeof(*v));
	memcpy(v, s->v, (size_t)s->n * sizeof(*v));
	qsort(v, (size_t)s->n, sizeof(*v), cmp_double);
	out->median = quantile(v, s->n, 0.5);
	out->p10 = quantile(v, s->n, 0.1);
	out->p90 = quantile(v, s->n, 0.9);
	free(v);
}

void cal_method(struct cal_stat *st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st->method, sizeof(st->method), fmt, ap);
	va_end(ap);
}

int64_t cal_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t cal_thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool cal_more(const struct cal_budget *b, int n)
{
	if (n >= b->max)
		return false;
	int64_t now = cal_now();
	/* Past the hard deadline a probe stops, but not before its first
	 * sample: a figure of no samples cannot be written at all, and a
	 * slow host (a sanitizer build, a loaded CI machine) reaches a late
	 * probe with its phase already spent. */
	if (b->hard && now >= b->hard) {
		int64_t from = b->start > b->hard ? b->start : b->hard;
		return n == 0 && now < from + CAL_FIRST_SAMPLE_NS;
	}
	return n < b->min || now < b->deadline;
}

bool cal_bind_pu(hwloc_topology_t hw, unsigned os_pu)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	hwloc_bitmap_only(set, os_pu);
	int rc = hwloc_set_cpubind(hw, set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT);
	if (rc != 0)
		rc = hwloc_set_cpubind(hw, set, HWLOC_CPUBIND_THREAD);
	hwloc_bitmap_free(set);
	return rc == 0;
}

uint64_t cal_anon_huge_bytes(void)
{
	return proc_kb_bytes("/proc/self/smaps_rollup", "AnonHugePages");
}

/* ---- The CPU the host gave us ---- */

/* Totals of the probe threads that have ended (their schedstat is gone
 * with them). */
static _Atomic int64_t ended_cpu, ended_wait;

static bool read_schedstat(const char *path, int64_t *cpu, int64_t *wait)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	long long a, b;
	bool ok = fscanf(f, "%lld %lld", &a, &b) == 2;
	fclose(f);
	if (ok) {
		*cpu = a;
		*wait = b;
	}
	return ok;
}

void cal_thread_done(void)
{
	int64_t cpu, wait;
	if (read_schedstat("/proc/thread-self/schedstat", &cpu, &wait)) {
		atomic_fetch_add(&ended_cpu, cpu);
		atomic_fetch_add(&ended_wait, wait);
	}
}

void cal_usage_now(struct cal_usage *u)
{
	u->cpu_ns = atomic_load(&ended_cpu);
	u->wait_ns = atomic_load(&ended_wait);
	u->wall_ns = cal_now();
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[64];
		int64_t cpu, wait;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/schedstat", de->d_name);
		if (read_schedstat(path, &cpu, &wait)) {
			u->cpu_ns += cpu;
			u->wait_ns += wait;
		}
	}
	closedir(d);
}

struct spin_arg {
	hwloc_topology_t hw;
	unsigned pu;
	int ms;
	double share;
};

static void *spin_main(void *p)
{
	struct spin_arg *a = p;
	cal_bind_pu(a->hw, a->pu);
	int64_t w0 = cal_now(), c0 = cal_thread_cpu(), end = w0 + (int64_t)a->ms * 1000000;
	volatile uint64_t x = 0;
	while (cal_now() < end)
		for (int i = 0; i < 1000; i++)
			x = x + 1;
	int64_t w1 = cal_now(), c1 = cal_thread_cpu();
	a->share = w1 > w0 ? (double)(c1 - c0) / (double)(w1 - w0) : 1.0;
	cal_thread_done();
	return NULL;
}

double cal_host_share(hwloc_topology_t hw, const struct topo *t, int ms)
{
	int n = t->npus;
	struct spin_arg *args = xcalloc((size_t)n, sizeof(*args));
	pthread_t *th = xcalloc((size_t)n, sizeof(*th));
	int started = 0;
	for (int i = 0; i < n; i++) {
		args[i] = (struct spin_arg){ hw, t->pus[i].os_index, ms, 1.0 };
		if (pthread_create(&th[i], NULL, spin_main, &args[i]) != 0)
			break;
		started++;
	}
	double sum = 0;
	for (int i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		sum += args[i].share;
	}
	free(th);
	free(args);
	return started ? sum / started : 1.0;
}

/* ---- Progress ----
 * On a terminal: one line redrawn in place, a bar over the whole run and
 * the phase's name.  Elsewhere (a log, a test): one line per phase when it
 * ends, so a log is not a stream of carriage returns. */

#define BAR 30

static void draw(struct cal_progress *p, double frac)
{
	double all = (p->phase + frac) / p->nphases;
	if (all > 1)
		all = 1;
	int fill = (int)(all * BAR + 0.5);
	char bar[BAR + 1];
	for (int i = 0; i < BAR; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[BAR] = 0;
	fprintf(p->f, "\r\033[Kcalibrate [%s] %3d%%  %d/%d %s", bar, (int)(all * 100 + 0.5),
		p->phase + 1, p->nphases, p->name ? p->name : "");
	fflush(p->f);
	p->last_draw = cal_now();
}

void cal_progress_phase(struct cal_progress *p, const char *name)
{
	p->name = name;
	p->phase_start = cal_now();
	if (!p->start)
		p->start = p->phase_start;
	if (p->f && p->tty)
		draw(p, 0);
}

void cal_progress_step(struct cal_progress *p, double frac)
{
	if (!p->f || !p->tty || cal_now() - p->last_draw < 100000000)
		return;
	draw(p, frac < 0 ? 0 : frac > 1 ? 1 : frac);
}

void cal_progress_end_phase(struct cal_progress *p, const char *summary)
{
	double s = (double)(cal_now() - p->phase_start) / 1e9;
	if (p->f) {
		if (p->tty)
			fprintf(p->f, "\r\033[K");
		fprintf(p->f, "calibrate: %d/%d %s: %s (%.1f s)\n", p->phase + 1, p->nphases, p->name,
			summary, s);
		fflush(p->f);
	}
	p->phase++;
}

void cal_progress_done(struct cal_progress *p)
{
	if (p->f && p->tty) {
		fprintf(p->f, "\r\033[K");
		fflush(p->f);
	}
}

/* ---- The file's figures ---- */

double cal_rounded(double v)
{
	if (!isfinite(v))
		return 0;
	double a = fabs(v);
	double scale = a >= 1000 ? 1 : a >= 10 ? 10 : 100;
	return round(v * scale) / scale;
}

cJSON *cal_stat_json(const struct cal_stat *st)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "median", cal_rounded(st->median));
	cJSON_AddNumberToObject(o, "p10", cal_rounded(st->p10));
	cJSON_AddNumberToObject(o, "p90", cal_rounded(st->p90));
	cJSON_AddNumberToObject(o, "samples", st->samples);
	cJSON_AddStringToObject(o, "method", st->method);
	return o;
}

/* The object at a dotted path under latency, made as needed; *leaf the
 * last component. */
static cJSON *parent_of(cJSON *root, const char *path, char *leaf, size_t leafsize)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	char *start = buf, *dot;
	cJSON *o = root;
	while ((dot = strchr(start, '.'))) {
		*dot = 0;
		cJSON *next = cJSON_GetObjectItemCaseSensitive(o, start);
		if (!next)
			next = cJSON_AddObjectToObject(o, start);
		o = next;
		start = dot + 1;
	}
	snprintf(leaf, leafsize, "%s", start);
	return o;
}

static void set_value(cJSON *root, const char *path, double v)
{
	char leaf[128];
	cJSON *o = parent_of(root, path, leaf, sizeof(leaf));
	cJSON_DeleteItemFromObjectCaseSensitive(o, leaf);
	cJSON_AddNumberToObject(o, leaf, cal_rounded(v));
}

void cal_figure(struct cal_ctx *c, const char *path, const struct cal_stat *st)
{
	if (st->samples < 1 || !isfinite(st->median))
		return;
	if (!strchr(path, '['))
		set_value(c->latency, path, st->median);
	cal_provenance(c, path, st);
}

void cal_provenance(struct cal_ctx *c, const char *path, const struct cal_stat *st)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "kind", "measured");
	cJSON_AddNumberToObject(p, "p10", cal_rounded(st->p10));
	cJSON_AddNumberToObject(p, "p90", cal_rounded(st->p90));
	cJSON_AddNumberToObject(p, "samples", st->samples);
	cJSON_AddStringToObject(p, "method", st->method);
	cJSON_DeleteItemFromObjectCaseSensitive(c->provenance, path);
	cJSON_AddItemToObject(c->provenance, path, p);
}

void cal_assumed(struct cal_ctx *c, const char *path, double v, const char *note)
{
	if (!strchr(path, '['))
		set_value(c->latency, path, v);
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "kind", "assumption");
	cJSON_AddStringToObject(p, "note", note);
	cJSON_DeleteItemFromObjectCaseSensitive(c->provenance, path);
	cJSON_AddItemToObject(c->provenance, path, p);
}

cJSON *cal_measurement(struct cal_ctx *c, const char *name, const struct cal_stat *st)
{
	if (st->samples < 1 || !isfinite(st->median))
		return NULL;
	cJSON *o = cal_stat_json(st);
	cJSON_DeleteItemFromObjectCaseSensitive(c->measurements, name);
	cJSON_AddItemToObject(c->measurements, name, o);
	return o;
}

cJSON *cal_points(struct cal_ctx *c, const char *name, const char *method)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "method", method);
	cJSON *pts = cJSON_AddArrayToObject(o, "points");
	cJSON_DeleteItemFromObjectCaseSensitive(c->measurements, name);
	cJSON_AddItemToObject(c->measurements, name, o);
	return pts;
}

cJSON *cal_point(cJSON *points, const struct cal_stat *st, const char *param, double value)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, param, value);
	cJSON_AddNumberToObject(o, "median", cal_rounded(st->median));
	cJSON_AddNumberToObject(o, "p10", cal_rounded(st->p10));
	cJSON_AddNumberToObject(o, "p90", cal_rounded(st->p90));
	cJSON_AddNumberToObject(o, "samples", st->samples);
	cJSON_AddItemToArray(points, o);
	return o;
}

struct cal_budget cal_budget(const struct cal_ctx *c, int min, int max)
{
	if (c->o->quick) {
		min = min / 4 > 5 ? min / 4 : 5;
		max = max / 8 > min ? max / 8 : min;
	}
	return (struct cal_budget){ min, max, c->phase_deadline, c->phase_hard, cal_now() };
}
