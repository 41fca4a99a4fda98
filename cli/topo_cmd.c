/* `schedlab topo`: a topology's summary, as text or JSON. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "hw/mlc.h"
#include "topologies/topo.h"

static const char *human_size(char *buf, size_t n, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;
	while (v >= 1024 && u < 4 && (uint64_t)v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (v >= 1024 && u < 4) {
		while (v >= 1024 && u < 4) {
			v /= 1024;
			u++;
		}
		snprintf(buf, n, "%.1f %s", v, units[u]);
	} else {
		snprintf(buf, n, "%.0f %s", v, units[u]);
	}
	return buf;
}

/* Cache instances of one level, grouped by (size, sharing) in first-seen
 * order, so a hybrid CPU shows one line per kind. */
struct cache_kind {
	int level, ncores, count;
	uint64_t size;
};

static int cache_kinds(const struct topo *t, struct cache_kind *out, int max)
{
	int n = 0;
	for (int l = 1; l <= TOPO_MAX_LEVEL; l++)
		for (int i = 0; i < t->ncaches; i++) {
			const struct topo_cache *c = &t->caches[i];
			if (c->level != l)
				continue;
			int k = 0;
			while (k < n && !(out[k].level == l && out[k].size == c->size &&
					  out[k].ncores == c->ncores))
				k++;
			if (k == n) {
				if (n == max)
					continue;
				out[n++] = (struct cache_kind){ l, c->ncores, 0, c->size };
			}
			out[k].count++;
		}
	return n;
}

/* An n x n node matrix under a title; cell() formats entry (i, j) of ctx. */
static void print_matrix(int n, const char *title, int width, const void *ctx,
			 void (*cell)(const void *, int, int, char *, size_t))
{
	printf("%s\n  %6s", title, "");
	for (int j = 0; j < n; j++)
		printf(" %*d", width, j);
	printf("\n");
	for (int i = 0; i < n; i++) {
		printf("  %6d", i);
		for (int j = 0; j < n; j++) {
			char buf[32];
			cell(ctx, i, j, buf, sizeof(buf));
			printf(" %*s", width, buf);
		}
		printf("\n");
	}
}

static void cell_distance(const void *t, int i, int j, char *b, size_t n)
{
	snprintf(b, n, "%u", topo_distance(t, i, j));
}

static void cell_hops(const void *t, int i, int j, char *b, size_t n)
{
	snprintf(b, n, "%d", topo_hops(t, i, j));
}

static void cell_dram(const void *t, int i, int j, char *b, size_t n)
{
	snprintf(b, n, "%.0f", topo_dram_ns(t, i, j));
}

static void cell_mlc_latency(const void *ctx, int i, int j, char *b, size_t n)
{
	const struct hw_mlc *m = ctx;
	double v = m->dram_ns[i * m->nnodes + j];
	if (isnan(v))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.1f", v);
}

/* A figure's value with its unit: "40000 ns", "24 MiB", "0.5". */
static const char *figure_value(const struct topo_figure *f, char *buf, size_t n)
{
	if (strcmp(f->unit, "B") == 0)
		return human_size(buf, n, (uint64_t)f->value);
	snprintf(buf, n, "%g%s%s", f->value, f->unit[0] ? " " : "", f->unit);
	return buf;
}

/* Where a figure comes from, in a few words: the spread of a measurement
 * and how it was taken, a source, a note, or the default's source. */
static void figure_origin(const struct topo *t, const struct topo_figure *f, char *buf, size_t n)
{
	const struct topo_prov *p = f->prov >= 0 ? &t->prov[f->prov] : NULL;
	switch (f->kind) {
	case TOPO_FIG_MEASURED:
		snprintf(buf, n, "p10-p90 %g-%g, %ld samples: %s%s%s", p->p10, p->p90, p->samples,
			 p->method, p->note ? "; " : "", p->note ? p->note : "");
		break;
	case TOPO_FIG_PUBLISHED:
		snprintf(buf, n, "%s%s%s", p->source, p->note ? "; " : "", p->note ? p->note : "");
		break;
	case TOPO_FIG_ASSUMPTION:
		snprintf(buf, n, "%s%s%s%s", p->note, p->source ? " (from: " : "",
			 p->source ? p->source : "", p->source ? ")" : "");
		break;
	case TOPO_FIG_GIVEN:
		snprintf(buf, n, "set by the file, without provenance");
		break;
	case TOPO_FIG_DERIVED:
	case TOPO_FIG_DEFAULT:
		snprintf(buf, n, "%s", f->default_source ? f->default_source : "");
		break;
	}
}

/* One line per figure this machine uses, and a count per kind first so
 * that what is measured and what is not shows at a glance. */
static void print_figures(const struct topo *t)
{
	int count[TOPO_FIG_DERIVED + 1] = { 0 };
	int width = 0;
	for (int i = 0; i < t->nfigures; i++) {
		const struct topo_figure *f = &t->figures[i];
		if (!f->applies)
			continue;
		count[f->kind]++;
		int w = (int)strlen(f->path);
		if (w > width)
			width = w;
	}
	static const enum topo_fig_kind order[] = { TOPO_FIG_MEASURED, TOPO_FIG_PUBLISHED,
						    TOPO_FIG_ASSUMPTION, TOPO_FIG_GIVEN,
						    TOPO_FIG_DERIVED, TOPO_FIG_DEFAULT };
	printf("\nfigures:");
	const char *sep = " ";
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		if (count[order[k]]) {
			printf("%s%d %s", sep, count[order[k]], topo_fig_kind_names[order[k]]);
			sep = ", ";
		}
	printf("\n");
	for (int i = 0; i < t->nfigures; i++) {
		const struct topo_figure *f = &t->figures[i];
		if (!f->applies)
			continue;
		char v[32], origin[1024];
		figure_value(f, v, sizeof(v));
		figure_origin(t, f, origin, sizeof(origin));
		printf("  %-*s %10s  %-10s  %s\n", width, f->path, v, topo_fig_kind_names[f->kind],
		       origin);
	}
}

/* A measurement's summary: "median 410, p10-p90 380-600, 2000 samples". */
static void print_stats(const cJSON *m)
{
	const cJSON *med = cJSON_GetObjectItemCaseSensitive(m, "median");
	const cJSON *p10 = cJSON_GetObjectItemCaseSensitive(m, "p10");
	const cJSON *p90 = cJSON_GetObjectItemCaseSensitive(m, "p90");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(m, "samples");
	const cJSON *unit = cJSON_GetObjectItemCaseSensitive(m, "unit");
	printf("median %g%s%s", med->valuedouble, unit ? " " : "", unit ? unit->valuestring : "");
	if (p10 && p90)
		printf(", p10-p90 %g-%g", p10->valuedouble, p90->valuedouble);
	else if (p10 || p90)
		printf(", %s %g", p10 ? "p10" : "p90", (p10 ? p10 : p90)->valuedouble);
	if (n)
		printf(", %.0f samples", n->valuedouble);
}

static void print_measurements(const struct topo *t)
{
	if (!t->measurements || !t->measurements->child)
		return;
	printf("\nmeasurements\n");
	for (const cJSON *m = t->measurements->child; m; m = m->next) {
		const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
		const cJSON *points = cJSON_GetObjectItemCaseSensitive(m, "points");
		printf("  %s  ", m->string);
		if (points) {
			printf("%d point%s", cJSON_GetArraySize(points),
			       cJSON_GetArraySize(points) == 1 ? "" : "s");
		} else {
			print_stats(m);
		}
		if (method)
			printf(": %s", method->valuestring);
		printf("\n");
		for (const cJSON *pt = points ? points->child : NULL; pt; pt = pt->next) {
			printf("    ");
			for (const cJSON *k = pt->child; k; k = k->next)
				if (cJSON_IsNumber(k) && strcmp(k->string, "median") &&
				    strcmp(k->string, "p10") && strcmp(k->string, "p90") &&
				    strcmp(k->string, "samples"))
					printf("%s %g  ", k->string, k->valuedouble);
			print_stats(pt);
			printf("\n");
		}
	}
}

static void print_text(const struct topo *t)
{
	char a[32];
	printf("topology %s (%s)\n", t->name, t->source);
	if (t->description)
		printf("  %s\n", t->description);
	if (t->calibration)
		printf("  calibration %s\n", t->calibration);
	printf("packages %d, NUMA nodes %d, core groups %d, cores %d, PUs %d\n\n", t->npackages,
	       t->nnodes, t->ngroups, t->ncores, t->npus);

	struct cache_kind kinds[32];
	int nk = cache_kinds(t, kinds, 32);
	printf("caches\n");
	if (nk == 0)
		printf("  (none described)\n");
	for (int k = 0; k < nk; k++)
		printf("  L%d  %10s  shared by %3d core%s  x%d\n", kinds[k].level,
		       human_size(a, sizeof(a), kinds[k].size), kinds[k].ncores,
		       kinds[k].ncores == 1 ? " " : "s", kinds[k].count);

	printf("\nnodes\n  %4s  %7s  %5s  %10s  %9s\n", "node", "package", "cores", "memory",
	       "bandwidth");
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *nd = &t->nodes[i];
		char pkg[16];
		snprintf(pkg, sizeof(pkg), nd->package >= 0 ? "%d" : "-", nd->package);
		printf("  %4d  %7s  %5d  %10s  %4.0f GB/s\n", i, pkg, nd->ncores,
		       nd->memory ? human_size(a, sizeof(a), nd->memory) : "?", nd->bandwidth_gbs);
	}
	printf("\n");
	print_matrix(t->nnodes, "distances (SLIT, 10 = local)", 4, t, cell_distance);
	print_matrix(t->nnodes, "hops", 4, t, cell_hops);
	print_matrix(t->nnodes, "DRAM latency (ns, accessing node x home node)", 4, t, cell_dram);

	const struct topo_latency *lat = &t->lat;
	/* Only what the machine has: levels present, and the same-package
	 * figure only where a package holds more than one core group. */
	int max_level = 0;
	for (int i = 0; i < t->ncaches; i++)
		if (t->caches[i].level > max_level)
			max_level = t->caches[i].level;
	printf("\ncache hit (ns)   ");
	for (int l = 1; l <= max_level; l++)
		printf("  L%d %g", l, lat->cache_ns[l]);
	printf("\ncache stream (GB/s) ");
	for (int l = 1; l <= max_level; l++)
		printf("  L%d %g", l, lat->cache_bw_gbs[l]);
	printf("\ncore to core (ns)   same core %g  same group %g", lat->c2c_core_ns,
	       lat->c2c_group_ns);
	if (t->ngroups > t->npackages)
		printf("  same package %g", lat->c2c_package_ns);
	for (int h = 1; h <= t->max_hops; h++)
		printf("  %d hop%s %g", h, h == 1 ? "" : "s", lat->c2c_hop_ns[h - 1]);
	printf("\nmemory   mlp %g, DRAM %s\n", lat->mlp,
	       lat->n_dram_hops ? "latency by hops as given" : "remote latency from the SLIT rule");
	printf("OS (ns)   syscall %g  futex wait %g  futex wake %g  thread create %g  "
	       "context switch %g\n"
	       "          timer slack %g  G switch %g  pause %g\n",
	       lat->syscall_ns, lat->futex_wait_ns, lat->futex_wake_ns, lat->thread_create_ns,
	       lat->context_switch_ns, lat->timer_slack_ns, lat->g_switch_ns, lat->pause_ns);
	printf("wakeup (ns)   same core %g  same group %g", lat->wakeup_core_ns, lat->wakeup_group_ns);
	if (t->ngroups > t->npackages)
		printf("  same package %g", lat->wakeup_package_ns);
	for (int h = 1; h <= t->max_hops; h++)
		printf("  %d hop%s %g", h, h == 1 ? "" : "s", lat->wakeup_hop_ns[h - 1]);
	printf("\nruntime (ns)   G create %g  G exit %g  stack acquire %g\n", lat->g_create_ns,
	       lat->g_exit_ns, lat->stack_acquire_ns);
	print_figures(t);
	print_measurements(t);
}

static cJSON *matrix_json(const struct topo *t, int kind)
{
	cJSON *m = cJSON_CreateArray();
	for (int i = 0; i < t->nnodes; i++) {
		cJSON *row = cJSON_CreateArray();
		for (int j = 0; j < t->nnodes; j++) {
			double v = kind == 0 ? topo_distance(t, i, j) : kind == 1 ? topo_hops(t, i, j)
				: topo_dram_ns(t, i, j);
			cJSON_AddItemToArray(row, cJSON_CreateNumber(v));
		}
		cJSON_AddItemToArray(m, row);
	}
	return m;
}

/* Every figure, keyed by its path as in a file's "provenance": its value,
 * kind, whether this machine uses it, and the fields of its kind. */
static cJSON *provenance_json(const struct topo *t)
{
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < t->nfigures; i++) {
		const struct topo_figure *f = &t->figures[i];
		const struct topo_prov *p = f->prov >= 0 ? &t->prov[f->prov] : NULL;
		cJSON *e = cJSON_AddObjectToObject(o, f->path);
		cJSON_AddStringToObject(e, "kind", topo_fig_kind_names[f->kind]);
		cJSON_AddNumberToObject(e, "value", f->value);
		cJSON_AddBoolToObject(e, "applies", f->applies);
		if (p && p->kind == TOPO_FIG_MEASURED) {
			cJSON_AddNumberToObject(e, "p10", p->p10);
			cJSON_AddNumberToObject(e, "p90", p->p90);
			cJSON_AddNumberToObject(e, "samples", (double)p->samples);
			cJSON_AddStringToObject(e, "method", p->method);
		}
		if (p && p->source)
			cJSON_AddStringToObject(e, "source", p->source);
		else if (!p && f->default_source &&
			 (f->kind == TOPO_FIG_DEFAULT || f->kind == TOPO_FIG_DERIVED))
			cJSON_AddStringToObject(e, "source", f->default_source);
		if (p && p->note)
			cJSON_AddStringToObject(e, "note", p->note);
		if (p && strcmp(p->path, f->path) != 0)
			cJSON_AddStringToObject(e, "entry", p->path);
	}
	return o;
}

/* Cache instances by kind: level, size, sharing and how many. */
static cJSON *caches_json(const struct topo *t)
{
	struct cache_kind kinds[32];
	int nk = cache_kinds(t, kinds, 32);
	cJSON *caches = cJSON_CreateArray();
	for (int k = 0; k < nk; k++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "level", kinds[k].level);
		cJSON_AddNumberToObject(c, "size", (double)kinds[k].size);
		cJSON_AddNumberToObject(c, "cores", kinds[k].ncores);
		cJSON_AddNumberToObject(c, "instances", kinds[k].count);
		cJSON_AddItemToArray(caches, c);
	}
	return caches;
}

static cJSON *nodes_json(const struct topo *t)
{
	cJSON *nodes = cJSON_CreateArray();
	for (int i = 0; i < t->nnodes; i++) {
		cJSON *n = cJSON_CreateObject();
		if (t->nodes[i].package >= 0)
			cJSON_AddNumberToObject(n, "package", t->nodes[i].package);
		else
			cJSON_AddNullToObject(n, "package");
		cJSON_AddNumberToObject(n, "cores", t->nodes[i].ncores);
		cJSON_AddNumberToObject(n, "memory", (double)t->nodes[i].memory);
		cJSON_AddNumberToObject(n, "bandwidth_gbs", t->nodes[i].bandwidth_gbs);
		cJSON_AddItemToArray(nodes, n);
	}
	return nodes;
}

cJSON *topo_to_json(const struct topo *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", t->name);
	cJSON_AddStringToObject(o, "source", t->source);
	cJSON_AddItemToObject(o, "calibration", t->calibration ? cJSON_CreateString(t->calibration)
			      : cJSON_CreateNull());
	if (t->description)
		cJSON_AddStringToObject(o, "description", t->description);
	cJSON_AddNumberToObject(o, "packages", t->npackages);
	cJSON_AddNumberToObject(o, "numa_nodes", t->nnodes);
	cJSON_AddNumberToObject(o, "core_groups", t->ngroups);
	cJSON_AddNumberToObject(o, "cores", t->ncores);
	cJSON_AddNumberToObject(o, "pus", t->npus);
	cJSON_AddItemToObject(o, "caches", caches_json(t));
	cJSON_AddItemToObject(o, "nodes", nodes_json(t));
	cJSON_AddItemToObject(o, "distances", matrix_json(t, 0));
	cJSON_AddItemToObject(o, "hops", matrix_json(t, 1));
	cJSON_AddItemToObject(o, "dram_latency_ns", matrix_json(t, 2));
	/* every figure of the list (topologies/topo_figlist.h), as a file gives it */
	cJSON_AddItemToObject(o, "latency", topo_latency_json(t));
	cJSON_AddItemToObject(o, "provenance", provenance_json(t));
	cJSON_AddItemToObject(o, "measurements", t->measurements
			      ? cJSON_Duplicate(t->measurements, true) : cJSON_CreateNull());
	return o;
}

static void print_mlc_text(const struct topo *t, const struct hw_mlc *m)
{
	printf("simulated memory latency checker on %s\n\n", t->name);
	print_matrix(m->nnodes, "idle pointer-chase latency (ns, accessing node x home node)", 6, m,
		     cell_mlc_latency);
	printf("\ncore-to-core transfer (ns): a line written by one PU, read by another\n");
	for (int k = 0; k < m->nc2c; k++)
		printf("  %-13s %7.1f   (PU %d -> PU %d)\n", m->c2c[k].relation, m->c2c[k].ns,
		       m->c2c[k].cpu_a, m->c2c[k].cpu_b);
	printf("\npeak bandwidth (GB/s), every core streaming for %.0f us of simulated time\n",
	       m->bw_window_ns / 1000);
	printf("  %4s  %9s\n", "node", "one node");
	for (int i = 0; i < m->nnodes; i++)
		printf("  %4d  %9.1f\n", i, m->bw_one_node[i]);
	printf("  interleaved over all nodes: %.1f\n", m->bw_interleaved);
}

static cJSON *mlc_to_json(const struct topo *t, const struct hw_mlc *m)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "topology", t->name);
	cJSON *lat = cJSON_AddArrayToObject(o, "dram_latency_ns");
	for (int i = 0; i < m->nnodes; i++) {
		cJSON *row = cJSON_CreateArray();
		for (int j = 0; j < m->nnodes; j++) {
			double v = m->dram_ns[i * m->nnodes + j];
			cJSON_AddItemToArray(row, isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v));
		}
		cJSON_AddItemToArray(lat, row);
	}
	cJSON *c2c = cJSON_AddObjectToObject(o, "c2c_latency_ns");
	for (int k = 0; k < m->nc2c; k++)
		cJSON_AddNumberToObject(c2c, m->c2c[k].relation, m->c2c[k].ns);
	cJSON *bw = cJSON_AddObjectToObject(o, "bandwidth_gbs");
	cJSON *one = cJSON_AddArrayToObject(bw, "one_node");
	for (int i = 0; i < m->nnodes; i++)
		cJSON_AddItemToArray(one, cJSON_CreateNumber(m->bw_one_node[i]));
	cJSON_AddNumberToObject(bw, "interleaved", m->bw_interleaved);
	return o;
}

/* What topo's line gives. */
struct topo_args {
	const char *spec;
	bool json, mlc, source;
};

const struct cli_opt cli_topo_opts[] = {
	CLI_STRING("-t", "--topology", "T", struct topo_args, spec,
		   "bundled name, \"host\", or a path to hwloc XML or\n"
		   "schedlab JSON (default: numa4)"),
	CLI_FLAG(NULL, "--mlc", struct topo_args, mlc,
		 "instead, run simulated measurements through the\n"
		 "hardware model, like Intel's Memory Latency Checker:\n"
		 "idle pointer-chase latency node x node, core-to-core\n"
		 "transfer latency by relation, and peak bandwidth with\n"
		 "every core streaming from one node or interleaved"),
	CLI_FLAG(NULL, "--json", struct topo_args, json,
		 "print as JSON (keys calibration, latency, provenance,\n"
		 "measurements, ...; with --mlc: keys dram_latency_ns,\n"
		 "c2c_latency_ns, bandwidth_gbs)"),
	CLI_FLAG(NULL, "--source", struct topo_args, source,
		 "instead, print what -t reads, which loads as the same\n"
		 "machine: a bundled machine's JSON, a file's text, -t\n"
		 "host's calibration or, with none, hwloc's XML of this\n"
		 "machine (a start for a machine of your own)"),
	CLI_END,
};

/* --source: the text the machine was read from, so that editing a copy
 * starts from exactly what -t gave.  (--json is the model as schedlab
 * resolved it: relations, matrices and defaults, not an input.)  t is the
 * machine loaded first: only what loads is printed, and for -t host it says
 * whether the calibration was used (not, if it describes another machine). */
static int print_source(const char *spec, const struct topo *t)
{
	const char *bundled = topo_bundled_json(spec);
	if (bundled) {
		fputs(bundled, stdout);
		return 0;
	}
	struct err e = { "" };
	size_t n = 0;
	char *text;
	if (strcmp(spec, "host") == 0) {
		char *cal = t->calibration ? topo_host_calibration_file() : NULL;
		text = cal ? input_read(cal, &n, &e) : topo_host_xml(&e);
		if (text && !cal)
			n = strlen(text);
		free(cal);
	} else {
		text = input_read(spec, &n, &e);
	}
	if (!text)
		return cli_input_error(&e);
	fwrite(text, 1, n, stdout);
	if (n > 0 && text[n - 1] != '\n')
		putchar('\n');
	free(text);
	return 0;
}

int cmd_topo(int argc, char **argv)
{
	struct topo_args ta = { .spec = "numa4" };
	const struct cli_parser p = {
		.cmd = "topo", .opts = cli_topo_opts, .ctx = &ta, .help = cli_help_topo,
		.missing = "option %s needs a topology",
	};
	bool help;
	int rc = cli_parse(&p, argc, argv, &help);
	if (rc || help)
		return rc;
	const char *spec = ta.spec;
	bool json = ta.json, mlc = ta.mlc;
	if (ta.source && (json || mlc)) {
		fprintf(stderr, "schedlab topo: --source cannot be combined with %s\n",
			json ? "--json" : "--mlc");
		return 2;
	}
	struct err e = { "" };
	struct topo *t = topo_load(spec, &e);
	if (!t)
		return cli_input_error(&e);
	if (ta.source) {
		rc = print_source(spec, t);
	} else if (mlc) {
		struct hw_mlc *m = hw_mlc_run(t);
		if (json) {
			cJSON *o = mlc_to_json(t, m);
			char *text = cJSON_Print(o);
			printf("%s\n", text);
			free(text);
			cJSON_Delete(o);
		} else {
			print_mlc_text(t, m);
		}
		hw_mlc_free(m);
	} else if (json) {
		cJSON *o = topo_to_json(t);
		char *s = cJSON_Print(o);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(o);
	} else {
		print_text(t);
	}
	topo_free(t);
	return rc;
}
