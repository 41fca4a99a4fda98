/* The report's document, HTML or Markdown, and its figures, drawn by
 * gnuplot.
 *
 * The document is made in two passes of one function (emit): the first
 * writes every figure's gnuplot commands, data inline, into one script,
 * which one gnuplot process turns into SVG files; the second writes the
 * text, placing each SVG (inline in HTML, linked from Markdown).  Both
 * passes walk the groups in the same order and number the figures alike,
 * so figure N of the text is figure N of the script.  Nothing in the
 * output comes from the clock or the environment: the same store gives
 * the same bytes. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"
#include "regress/stats.h"
#include "util/output.h"

struct doc {
	const struct rep_store *s;
	enum rep_format fmt;
	FILE *out;                     /* the text (pass 2), or a sink (pass 1) */
	FILE *gp;                      /* the gnuplot script (pass 1), or NULL */
	const char *figdir;            /* where gnuplot writes the SVGs */
	const char *figlink;           /* Markdown: the folder as the report links it */
	int nfig;
	bool failed;
	struct err *e;
};

/* ---- Text ---- */

static void put(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct doc *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(d->out, fmt, ap);
	va_end(ap);
}

/* s as text of the document: HTML's specials as entities; in Markdown the
 * characters that would start markup or end a table cell, escaped. */
static void esc(struct doc *d, const char *s)
{
	for (; *s; s++) {
		if (d->fmt == REP_HTML) {
			switch (*s) {
			case '&': fputs("&amp;", d->out); break;
			case '<': fputs("&lt;", d->out); break;
			case '>': fputs("&gt;", d->out); break;
			case '"': fputs("&quot;", d->out); break;
			default: fputc(*s, d->out);
			}
		} else {
			if (strchr("\\|*_`<>[]#", *s))
				fputc('\\', d->out);
			fputc(*s == '\n' ? ' ' : *s, d->out);
		}
	}
}

/* fmt's text, escaped as esc does. */
static void vesc(struct doc *d, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void vesc(struct doc *d, const char *fmt, va_list ap)
{
	char *s = xvasprintf(fmt, ap);
	esc(d, s);
	free(s);
}

static void escf(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void escf(struct doc *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vesc(d, fmt, ap);
	va_end(ap);
}

static void heading(struct doc *d, int level, const char *id, const char *text)
{
	if (d->fmt == REP_HTML) {
		put(d, "<h%d id=\"%s\">", level, id);
		esc(d, text);
		put(d, "</h%d>\n", level);
	} else {
		put(d, "\n%.*s ", level, "######");
		esc(d, text);
		put(d, "\n\n");
	}
}

static void para_begin(struct doc *d)
{
	put(d, d->fmt == REP_HTML ? "<p>" : "");
}

static void para_end(struct doc *d)
{
	put(d, d->fmt == REP_HTML ? "</p>\n" : "\n\n");
}

static void para(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void para(struct doc *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	para_begin(d);
	vesc(d, fmt, ap);
	para_end(d);
	va_end(ap);
}

/* A note that something is missing or left out: said, not hidden. */
static void note(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct doc *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	put(d, d->fmt == REP_HTML ? "<p class=\"note\">" : "> ");
	vesc(d, fmt, ap);
	put(d, d->fmt == REP_HTML ? "</p>\n" : "\n\n");
	va_end(ap);
}

/* Tables: a header row, then rows; the first column is a label. */
static int table_cols;
static int table_cell_no;

static void table_begin(struct doc *d, const char *cls, int ncols, const char *const *head)
{
	table_cols = ncols;
	if (d->fmt == REP_HTML) {
		put(d, "<table class=\"%s\"><thead><tr>", cls);
		for (int i = 0; i < ncols; i++) {
			put(d, "<th>");
			esc(d, head[i]);
			put(d, "</th>");
		}
		put(d, "</tr></thead><tbody>\n");
	} else {
		put(d, "\n|");
		for (int i = 0; i < ncols; i++) {
			put(d, " ");
			esc(d, head[i]);
			put(d, " |");
		}
		put(d, "\n|");
		for (int i = 0; i < ncols; i++)
			put(d, i ? " ---: |" : " --- |");
		put(d, "\n");
	}
}

static void row_begin(struct doc *d)
{
	table_cell_no = 0;
	put(d, d->fmt == REP_HTML ? "<tr>" : "|");
}

static void cell(struct doc *d, const char *cls, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void cell(struct doc *d, const char *cls, const char *fmt, ...)
{
	if (d->fmt == REP_MD)
		put(d, " ");
	else if (table_cell_no == 0)
		put(d, "<th>");
	else if (cls)
		put(d, "<td class=\"%s\">", cls);
	else
		put(d, "<td>");
	va_list ap;
	va_start(ap, fmt);
	vesc(d, fmt, ap);
	va_end(ap);
	if (d->fmt == REP_MD)
		put(d, " |");
	else
		put(d, table_cell_no == 0 ? "</th>" : "</td>");
	table_cell_no++;
}

static void row_end(struct doc *d)
{
	put(d, d->fmt == REP_HTML ? "</tr>\n" : "\n");
}

static void table_end(struct doc *d)
{
	put(d, d->fmt == REP_HTML ? "</tbody></table>\n" : "\n");
}

/* ---- Numbers ---- */

/* "12.31 ms ±0.42 (n=3)": a metric over a group's ok runs. */
static void format_stat(char *buf, size_t size, const struct metric *m, const char *rate,
			const struct rep_acc *a, int nok)
{
	double ci = rep_acc_ci95(a);
	if (m->unit == MU_RATE && a->n && fabs(a->mean) >= 1e4) {
		/* "318.73k requests/s ±0.44k": SI, as the figures' axes */
		double sc = fabs(a->mean) >= 1e7 ? 1e6 : 1e3;
		const char *pre = sc == 1e6 ? "M" : "k";
		int len = snprintf(buf, size, "%.2f%s %s", a->mean / sc, pre, rate ? rate : "/s");
		if (a->n >= 2 && len >= 0 && (size_t)len < size)
			len += snprintf(buf + len, size - (size_t)len, " \xc2\xb1%.2f%s", ci / sc, pre);
		if (a->n < nok && len >= 0 && (size_t)len < size)
			snprintf(buf + len, size - (size_t)len, " (n=%d)", a->n);
		return;
	}
	/* a latency quantile is a histogram bucket's bound: seeds whose values
	 * fell in one bucket agree only to its resolution, not exactly */
	bool bucketed = m->unit == MU_NS && strstr(m->path, "_ns.p") != NULL;
	if (bucketed && a->n >= 2 && ci < a->mean / HIST_SUB) {
		metric_format_mean(buf, size, m, rate, a->mean, 0, 1, 1);
		size_t len = strlen(buf);
		len += (size_t)snprintf(buf + len, size - len, " \xc2\xb1<%.1f%%", 100.0 / HIST_SUB);
		if (a->n < nok && len < size)
			snprintf(buf + len, size - len, " (n=%d)", a->n);
		return;
	}
	metric_format_mean(buf, size, m, rate, a->mean, ci, a->n, nok);
}

/* A time in the unit that reads best: "102.76 ms". */
static void ns_text(char *buf, size_t size, double ns)
{
	double scale;
	int decimals;
	const char *unit = str_ns_unit(ns, &scale, &decimals);
	snprintf(buf, size, "%.*f %s", decimals, ns / scale, unit);
}

/* A figure's number as data: the fewest digits that read back exactly. */
static const char *num(char buf[32], double v)
{
	for (int digits = 6; digits <= 17; digits++) {
		snprintf(buf, 32, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

/* ---- Grouping ---- */

/* Entries folded into clusters (one per key, in order of first
 * appearance) of series (one per sub-key, likewise), points sorted by x. */
struct entry {
	char *key, *sub;
	double x;
	int g, order;
};
struct series {
	char *label;
	int n;
	struct entry **pts;
};
struct cluster {
	char *key;
	int first, nseries;
	struct series *series;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->order > y->order) - (x->order < y->order);
}

static int cluster_cmp(const void *a, const void *b)
{
	const struct cluster *x = a, *y = b;
	return (x->first > y->first) - (x->first < y->first);
}

static int point_cmp(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;
	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* Sorts the entries (kept: the clusters point into them) and returns the
 * clusters.  Series within a cluster are found by a linear scan: a
 * cluster's series are the variants of one scenario, a few. */
static struct cluster *cluster_entries(struct entry *e, int n, int *ncl)
{
	qsort(e, (size_t)n, sizeof(*e), entry_cmp);
	struct cluster *cl = xcalloc((size_t)n + 1, sizeof(*cl));
	int k = 0;
	for (int i = 0; i < n;) {
		int j = i;
		while (j < n && strcmp(e[j].key, e[i].key) == 0)
			j++;
		struct cluster *c = &cl[k++];
		c->key = e[i].key;
		c->first = e[i].order;
		c->series = xcalloc((size_t)(j - i), sizeof(*c->series));
		for (int t = i; t < j; t++) {
			struct series *s = NULL;
			for (int u = 0; u < c->nseries && !s; u++)
				if (strcmp(c->series[u].label, e[t].sub) == 0)
					s = &c->series[u];
			if (!s) {
				s = &c->series[c->nseries++];
				s->label = e[t].sub;
				s->pts = xcalloc((size_t)(j - i), sizeof(*s->pts));
			}
			s->pts[s->n++] = &e[t];
		}
		for (int u = 0; u < c->nseries; u++)
			qsort(c->series[u].pts, (size_t)c->series[u].n, sizeof(struct entry *),
			      point_cmp);
		i = j;
	}
	qsort(cl, (size_t)k, sizeof(*cl), cluster_cmp);
	*ncl = k;
	return cl;
}

static void clusters_free(struct cluster *cl, int ncl, struct entry *e, int n)
{
	for (int i = 0; i < ncl; i++) {
		for (int u = 0; u < cl[i].nseries; u++)
			free(cl[i].series[u].pts);
		free(cl[i].series);
	}
	free(cl);
	for (int i = 0; i < n; i++) {
		free(e[i].key);
		free(e[i].sub);
	}
	free(e);
}

static int group_ok(const struct rep_group *g)
{
	return g->nstatus[RS_OK];
}

/* ---- Figures ---- */

/* A string in a gnuplot single-quoted string ('' is a quote). */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('\'', f);
}

/* A label inside a data block: double-quoted, without double quotes;
 * gnuplot reads backslash escapes there, so a backslash is doubled. */
static void gp_datastr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\')
			fputc('\\', f);
		fputc(*s == '"' || *s == '\n' ? '\'' : *s, f);
	}
	fputc('"', f);
}

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				       "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
				       "#393b79", "#637939" };
#define NPALETTE ((int)(sizeof(palette) / sizeof(palette[0])))

/* Starts figure N: in the script, its terminal and output file. */
static int fig_begin(struct doc *d, int width, int height, const char *title)
{
	int n = ++d->nfig;
	if (d->gp) {
		fprintf(d->gp, "\n# figure %d\nreset\n", n);
		fprintf(d->gp, "set terminal svg size %d,%d dynamic noenhanced font 'sans,12' "
			       "background '#ffffff'\n", width, height);
		fprintf(d->gp, "set output 'fig-%04d.svg'\n", n);
		fprintf(d->gp, "set title ");
		gp_str(d->gp, title);
		fprintf(d->gp, "\nset grid lc rgb '#dddddd'\n");
	}
	return n;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = xmalloc(cap);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (cap - n - 1 == 0)
			buf = xrealloc(buf, cap *= 2);
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* A relative link's path percent-encoded: a Markdown link ends at a space
 * or an unbalanced parenthesis, so all but unreserved characters and '/'
 * are written %XX (UTF-8 bytes too, as URLs have them). */
static void put_url(struct doc *d, const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (isalnum(*c) || strchr("-._~/", *c))
			fputc(*c, d->out);
		else
			fprintf(d->out, "%%%02X", *c);
}

/* Places figure n in the text: its SVG inline (ids made unique to it, as
 * every gnuplot SVG defines the same ones) or linked. */
static void fig_place(struct doc *d, int n, const char *caption)
{
	if (d->gp)
		return;
	if (d->fmt == REP_MD) {
		put(d, "![");
		esc(d, caption);
		put(d, "](");
		put_url(d, d->figlink);
		put(d, "/fig-%04d.svg)\n\n", n);
		return;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/fig-%04d.svg", d->figdir, n);
	size_t len;
	char *svg = read_all(path, &len);
	const char *start = svg ? strstr(svg, "<svg") : NULL;
	if (!start) {
		if (!d->failed)
			err_set(d->e, "gnuplot wrote no figure %d (%s)", n, path);
		d->failed = true;
		free(svg);
		return;
	}
	put(d, "<figure id=\"fig-%d\" class=\"plot\">\n", n);
	char prefix[16];
	snprintf(prefix, sizeof(prefix), "f%d-", n);
	static const char *const refs[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };
	/* only inside tags: a label's text (a variant named id='x') is the
	 * user's, and in it '<' and '>' are escaped */
	bool in_tag = false;
	for (const char *p = start; *p;) {
		int hit = -1;
		for (int i = 0; i < 5 && hit < 0 && in_tag; i++)
			if (strncmp(p, refs[i], strlen(refs[i])) == 0)
				hit = i;
		if (hit >= 0) {
			put(d, "%s%s", refs[hit], prefix);
			p += strlen(refs[hit]);
		} else {
			if (*p == '<')
				in_tag = true;
			else if (*p == '>')
				in_tag = false;
			fputc(*p++, d->out);
		}
	}
	put(d, "<figcaption>");
	esc(d, caption);
	put(d, "</figcaption></figure>\n");
	free(svg);
}

/* A CDF's points from a histogram: the bucket where each fraction of a
 * grid (k/REP_CDF_POINTS, and the tail's 99.5% ... 99.999%) is first
 * reached, as hist_quantile finds it, at the CDF's value there. */
static void cdf_points(FILE *f, const struct hist *h)
{
	static const double tail[] = { 0.995, 0.999, 0.9995, 0.9999, 0.99999 };
	double grid[REP_CDF_POINTS + 5];
	int ng = 0;
	for (int k = 1; k <= REP_CDF_POINTS; k++) {
		double q = (double)k / REP_CDF_POINTS;
		for (int t = 0; t < 5; t++)
			if (tail[t] > (double)(k - 1) / REP_CDF_POINTS && tail[t] < q)
				grid[ng++] = tail[t];
		grid[ng++] = q;
	}
	uint64_t seen = 0;
	int gi = 0;
	unsigned last = HIST_BUCKETS;
	for (unsigned b = 0; b < HIST_BUCKETS && gi < ng; b++) {
		seen += h->bucket[b];
		if (!h->bucket[b])
			continue;
		bool emit = false;
		while (gi < ng) {
			uint64_t rank = (uint64_t)(grid[gi] * (double)h->count);
			if ((double)rank < grid[gi] * (double)h->count)
				rank++;
			if (rank == 0)
				rank = 1;
			if (seen < rank)
				break;
			emit = true;
			gi++;
		}
		if (emit || last == HIST_BUCKETS) {
			uint64_t top = hist_bucket_top(b);
			char a[32];
			fprintf(f, "%llu %s\n", (unsigned long long)(top < h->max ? top : h->max),
				num(a, (double)seen / (double)h->count));
			last = b;
		}
	}
}

/* ---- Headlines ---- */

static void scenario_title(char *buf, size_t size, const struct rep_group *g);

/* A scenario's verdict on one headline metric: the best variant against
 * the runner-up, and Wilcoxon's signed-rank test of their per-seed changes
 * (paired by seed, two-sided, exact: compare's and regress's test). */
struct verdict {
	int mi;                        /* metric_table index */
	int best, second;              /* series of the scenario; second -1: one variant */
	double change;                 /* (best - second) / |second| */
	double p;                      /* NAN below two pairs */
	int pairs;                     /* seeds with both values */
	int differing;                 /* of them, those whose values differ */
};

/* The significance level of a headline (benchstat's, and compare's). */
#define REP_ALPHA 0.05

static const struct rep_group *series_group(const struct doc *d, const struct series *sr)
{
	return d->s->groups[sr->pts[0]->g];
}

/* Which of rep_head_paths a scenario's headline reads: request latency if
 * any variant answered requests, else scheduling latency; then makespan. */
static int scenario_heads(const struct doc *d, const struct series *vs, int nv, int *heads)
{
	bool requests = false;
	int rq = metric_index_by_path("request_latency_ns.p99");
	for (int v = 0; v < nv; v++)
		requests = requests || series_group(d, &vs[v])->m[rq].n > 0;
	int n = 0;
	heads[n++] = requests ? 0 : 2;
	heads[n++] = requests ? 1 : 3;
	heads[n++] = 4;
	return n;
}

static double seeded_at(const struct rep_group *g, uint64_t seed, int h)
{
	for (int i = 0; i < g->nseeded; i++)
		if (g->seeded[i].seed == seed)
			return g->seeded[i].v[h];
	return NAN;
}

static struct verdict judge(const struct doc *d, const struct series *vs, int nv, int h)
{
	struct verdict w = { metric_index_by_path(rep_head_paths[h]), -1, -1, 0, NAN, 0, 0 };
	const struct metric *m = &metric_table[w.mi];
	for (int v = 0; v < nv; v++) {
		const struct rep_acc *a = &series_group(d, &vs[v])->m[w.mi];
		if (!a->n)
			continue;
		double x = a->mean * m->better;
		if (w.best < 0 || x > series_group(d, &vs[w.best])->m[w.mi].mean * m->better) {
			w.second = w.best;
			w.best = v;
		} else if (w.second < 0 ||
			   x > series_group(d, &vs[w.second])->m[w.mi].mean * m->better) {
			w.second = v;
		}
	}
	if (w.second < 0)
		return w;
	const struct rep_group *b = series_group(d, &vs[w.best]);
	const struct rep_group *r = series_group(d, &vs[w.second]);
	double bm = b->m[w.mi].mean, rm = r->m[w.mi].mean;
	w.change = rm != 0 ? (bm - rm) / fabs(rm) : 0;
	double *dd = xcalloc((size_t)b->nseeded + 1, sizeof(*dd));
	int n = 0;
	for (int i = 0; i < b->nseeded; i++) {
		double x = b->seeded[i].v[h], y = seeded_at(r, b->seeded[i].seed, h);
		if (isnan(x) || isnan(y))
			continue;
		dd[n++] = y != 0 ? (x - y) / fabs(y) : x == 0 ? 0 : copysign(INFINITY, x);
	}
	w.pairs = n;
	if (n >= 2)
		w.p = rs_signrank_two(dd, n, &w.differing);
	else
		w.differing = n == 1 && dd[0] != 0;
	free(dd);
	return w;
}

static bool significant(const struct verdict *w)
{
	return !isnan(w->p) && w->p <= REP_ALPHA;
}

/* "-53.4%": the change as the table shows it. */
static void change_text(char *buf, size_t size, double change)
{
	snprintf(buf, size, "%+.*f%%", fabs(change) < 0.001 ? 2 : 1, 100 * change);
}

/* A value of metric mi with its unit: "376.8 us". */
static void value_text(char *buf, size_t size, const struct rep_group *g, int mi)
{
	metric_format_mean(buf, size, &metric_table[mi], g->rate_unit, g->m[mi].mean, 0, 1, 1);
}

/* The scenario's headline: a sentence per headline metric saying which
 * variant is best, by how much against the runner-up, and whether the
 * seeds say the difference is real. */
static void scenario_headline(struct doc *d, const struct series *vs, int nv, int scen)
{
	int heads[REP_NHEAD], nh = scenario_heads(d, vs, nv, heads);
	int need = rs_signrank_min_n(REP_ALPHA / 2);
	if (d->fmt == REP_HTML)
		put(d, "<ul class=\"headline\" id=\"scenario-%d-headline\">\n", scen);
	int said = 0;
	for (int k = 0; k < nh; k++) {
		struct verdict w = judge(d, vs, nv, heads[k]);
		if (w.best < 0)
			continue;
		const struct metric *m = &metric_table[w.mi];
		const struct rep_group *b = series_group(d, &vs[w.best]);
		char bv[96], rv[96], ch[32];
		value_text(bv, sizeof(bv), b, w.mi);
		if (d->fmt == REP_HTML) {
			put(d, "<li data-metric=\"%s\" data-best=\"", m->path);
			esc(d, vs[w.best].label);
			put(d, "\" data-significant=\"%s\">", significant(&w) ? "yes" : "no");
		} else {
			put(d, "- ");
		}
		said++;
		if (w.second < 0) {
			escf(d, "%s: %s only, %s.", m->label, vs[w.best].label, bv);
			put(d, d->fmt == REP_HTML ? "</li>\n" : "\n");
			continue;
		}
		const struct rep_group *r = series_group(d, &vs[w.second]);
		value_text(rv, sizeof(rv), r, w.mi);
		change_text(ch, sizeof(ch), w.change);
		if (b->m[w.mi].mean == r->m[w.mi].mean) {
			escf(d, "%s and %s tie on %s: %s.", vs[w.best].label, vs[w.second].label,
			     m->label, bv);
			put(d, d->fmt == REP_HTML ? "</li>\n" : "\n");
			continue;
		}
		put(d, d->fmt == REP_HTML ? "<b>" : "**");
		esc(d, vs[w.best].label);
		put(d, d->fmt == REP_HTML ? "</b>" : "**");
		escf(d, " best on %s: %s, %s against %s (%s); ", m->label, bv, ch,
		     vs[w.second].label, rv);
		if (w.pairs < 2)
			escf(d, "not tested: %d seed%s in common.", w.pairs, w.pairs == 1 ? "" : "s");
		else if (significant(&w))
			escf(d, "significant (p=%.3g; %d seeds paired).", w.p, w.pairs);
		else if (w.differing < need)
			escf(d, "~ not significant (p=%.3g; %d seeds paired, %d differing: at %d or "
				"more a difference can reach p <= %g).", w.p, w.pairs, w.differing,
			     need, REP_ALPHA);
		else
			escf(d, "~ not significant (p=%.3g; %d seeds paired).", w.p, w.pairs);
		put(d, d->fmt == REP_HTML ? "</li>\n" : "\n");
	}
	if (d->fmt == REP_HTML)
		put(d, "</ul>\n");
	else if (said)
		put(d, "\n");
}

/* The headlines of every scenario in one table: the best variant on each
 * headline metric, its change against the runner-up, '~' where the seeds
 * do not show the difference is real. */
static void section_glance(struct doc *d, const struct cluster *cl, int ncl)
{
	bool several = false;
	for (int i = 0; i < ncl; i++)
		several = several || cl[i].nseries > 1;
	if (!several)
		return;
	heading(d, 2, "glance", "At a glance");
	para(d, "For each scenario, the best variant on its p99 and p50 latency (of requests "
		"where the workload answers them, else of scheduling) and on makespan, with its "
		"change against the runner-up, the seeds paired (Wilcoxon's signed-rank test, "
		"exact): '~' where p > %g, the difference not shown real.", REP_ALPHA);
	static const char *const head[] = { "scenario", "latency", "p99", "p50", "makespan" };
	int need = rs_signrank_min_n(REP_ALPHA / 2), fewest = need;
	table_begin(d, "glance", 5, head);
	for (int i = 0; i < ncl; i++) {
		if (cl[i].nseries < 2)
			continue;
		const struct rep_group *g = series_group(d, &cl[i].series[0]);
		char title[512];
		scenario_title(title, sizeof(title), g);
		int heads[REP_NHEAD], nh = scenario_heads(d, cl[i].series, cl[i].nseries, heads);
		row_begin(d);
		cell(d, NULL, "%s", title);
		cell(d, "l", "%s", heads[0] == 0 ? "request" : "scheduling");
		for (int k = 0; k < nh; k++) {
			struct verdict w = judge(d, cl[i].series, cl[i].nseries, heads[k]);
			if (w.best < 0 || w.second < 0) {
				cell(d, NULL, "-");
				continue;
			}
			if (w.pairs >= 1 && w.pairs < fewest)
				fewest = w.pairs;
			const struct rep_group *b = series_group(d, &cl[i].series[w.best]);
			if (b->m[w.mi].mean == series_group(d, &cl[i].series[w.second])->m[w.mi].mean) {
				cell(d, "l", "tie");
				continue;
			}
			char ch[32];
			change_text(ch, sizeof(ch), w.change);
			cell(d, significant(&w) ? "sig" : "l", "%s %s%s", cl[i].series[w.best].label,
			     ch, significant(&w) ? "" : " ~");
		}
		row_end(d);
	}
	table_end(d);
	if (fewest < need)
		note(d, "A scenario with fewer than %d seeds in common between its variants cannot "
			"show a difference at p <= %g (the smallest two-sided p of %d pairs is %.3g): "
			"sweep with --seeds %d or more for a verdict.", need, REP_ALPHA, fewest,
		     ldexp(1, 1 - fewest), need);
}

/* ---- Sections ---- */

static void scenario_title(char *buf, size_t size, const struct rep_group *g)
{
	snprintf(buf, size, "%s · %s · %ld Ps%s", g->topology, g->workload, g->procs,
		 strcmp(g->mode, "sim") == 0 ? "" : " (native)");
}

static void status_text(char *buf, size_t size, const int *nstatus)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int st = 0; st < RS_N; st++)
		if (nstatus[st] && used < size)
			used += (size_t)snprintf(buf + used, size - used, "%s%s %d", used ? ", " : "",
						 rep_status_names[st], nstatus[st]);
}

static void section_summary(struct doc *d, int nscen)
{
	const struct rep_store *s = d->s;
	char st[256];
	status_text(st, sizeof(st), s->nstatus);
	para(d, "Store %s: %ld rows (%s) in %d groups of variant, topology, workload and "
		"procs; %d scenarios (topology, workload, procs).",
	     s->file, s->rows, s->rows ? st : "none", s->ngroups, nscen);
	if (s->nversions) {
		para_begin(d);
		esc(d, "Built by schedlab ");
		for (int i = 0; i < s->nversions; i++)
			escf(d, "%s%s", i ? ", " : "", s->versions[i]);
		esc(d, s->more_versions ? ", and others." : ".");
		if (s->nmatrices) {
			escf(d, " Matrix%s ", s->nmatrices > 1 || s->more_matrices ? "es" : "");
			for (int i = 0; i < s->nmatrices; i++)
				escf(d, "%s%s", i ? ", " : "", s->matrices[i]);
			esc(d, s->more_matrices ? ", and others." : ".");
		}
		para_end(d);
	}
	para(d, "Each figure and table is computed from the store alone: a group's value is "
		"the mean over its runs that completed (status ok) with its 95%% confidence "
		"interval (Student t over the seeds) from two runs on; latency distributions are "
		"the runs' whole histograms added up. A latency quantile is a histogram bucket's "
		"bound (within %.1f%% of a recorded value): where the seeds' spread is below that, "
		"its interval reads \xc2\xb1<%.1f%%.", 100.0 / HIST_SUB, 100.0 / HIST_SUB);
}

static void section_failed(struct doc *d)
{
	const struct rep_store *s = d->s;
	long notok = s->rows - s->nstatus[RS_OK];
	if (!notok)
		return;
	heading(d, 2, "not-ok", "Runs that did not complete");
	para(d, "%ld of %ld runs ended otherwise than ok; their figures are left out of the "
		"means, the CDFs and the plots, and each group's table says how many it lost.",
	     notok, s->rows);
	static const char *const head[] = { "line", "variant", "topology", "workload", "procs",
					    "seed", "status", "exit", "message" };
	table_begin(d, "failed", 9, head);
	for (int i = 0; i < s->nfailed; i++) {
		const struct rep_failed *f = &s->failed[i];
		row_begin(d);
		cell(d, NULL, "%ld", f->line);
		cell(d, "l", "%s", f->variant);
		cell(d, "l", "%s", f->topology);
		cell(d, "l", "%s", f->workload);
		cell(d, NULL, "%ld", f->procs);
		cell(d, NULL, "%llu", (unsigned long long)f->seed);
		cell(d, "bad", "%s", f->status);
		cell(d, NULL, "%ld", f->exit_status);
		cell(d, "l", "%s", f->message ? f->message : "");
		row_end(d);
	}
	table_end(d);
	if (notok > s->nfailed)
		note(d, "The list stops at %d runs; %ld more did not complete.", REP_MAX_FAILED,
		     notok - s->nfailed);
}

/* The metrics a scaling figure plots (the first that a run has of the two
 * latencies: the requests' when the workload answers requests). */
static const char *const scaling_paths[] = { "throughput_per_s", "request_latency_ns.p99",
					     "sched_latency_ns.p99", "cpu.busy_frac" };
#define NSCALING 4

/* How a scaling figure's y axis shows a metric: its title, the factor
 * its values are divided by, and gnuplot's tick format. */
struct y_axis {
	char title[128];
	double scale;
	const char *format;
	bool log;          /* latencies: a log axis, so 100 us and 100 ms both read */
};

static void y_axis_of(struct y_axis *y, const struct metric *m, const char *rate)
{
	y->log = false;
	y->scale = 1;
	y->format = "%.1s%c";             /* gnuplot's SI prefixes: 160k */
	if (m->unit == MU_NS) {
		snprintf(y->title, sizeof(y->title), "%s", m->label);
		y->scale = 1e9;
		y->format = "%.1s %cs";   /* 300 ms */
	} else if (m->unit == MU_FRAC) {
		snprintf(y->title, sizeof(y->title), "%s (%%)", m->label);
		y->scale = 0.01;
		y->format = "%g";
	} else {
		snprintf(y->title, sizeof(y->title), "%s (%s)", m->label,
			 m->unit == MU_RATE ? (rate ? rate : "/s") : "");
	}
}

/* Figure n's script: a data block per curve (x, mean, band), then the
 * bands and the curves. */
static void scaling_script(struct doc *d, const struct cluster *c, int n, int ncurves,
			   const char *xname, bool log2x, const struct y_axis *y, int mi)
{
	FILE *f = d->gp;
	fprintf(f, "set xlabel ");
	gp_str(f, xname);
	fprintf(f, "\nset ylabel ");
	gp_str(f, y->title);
	fprintf(f, "\nset key outside right top\nset encoding utf8\nset format y '%s'\n",
		y->format);
	if (y->log)
		fprintf(f, "set logscale y 10\nset yrange [*:*]\nset format y '%%.0s %%cs'\n");
	else
		fprintf(f, "set yrange [0:*]\n");
	if (log2x)
		fprintf(f, "set logscale x 2\n");
	fprintf(f, "set style fill transparent solid 0.18 noborder\n");
	for (int u = 0; u < ncurves; u++) {
		fprintf(f, "$scale_%d_%d << EOD\n# %s mean lo hi n (%s)\n", n, u, xname,
			y->scale == 1e9 ? "s" : y->scale == 0.01 ? "%" : "as stored");
		for (int p = 0; p < c->series[u].n; p++) {
			const struct entry *e = c->series[u].pts[p];
			const struct rep_acc *a = &d->s->groups[e->g]->m[mi];
			if (!a->n)
				continue;
			double ci = rep_acc_ci95(a);
			/* on a log axis a band reaching 0 or below starts at the mean */
			double low = y->log && a->mean - ci <= 0 ? a->mean : a->mean - ci;
			char x[32], v[32], lo[32], hi[32];
			fprintf(f, "%s %s %s %s %d\n", num(x, e->x), num(v, a->mean / y->scale),
				num(lo, low / y->scale), num(hi, (a->mean + ci) / y->scale), a->n);
		}
		fprintf(f, "EOD\n");
	}
	fprintf(f, "plot ");
	for (int u = 0; u < ncurves; u++) {
		const char *col = palette[u % NPALETTE];
		fprintf(f, "%s$scale_%d_%d using 1:3:4 with filledcurves lc rgb '%s' notitle, "
			   "$scale_%d_%d using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '%s' "
			   "title ", u ? ", " : "", n, u, col, n, u, col);
		gp_str(f, c->series[u].label);
	}
	fprintf(f, "\n");
}

/* The distinct x values of a cluster's series, rising; *nx of them. */
static double *cluster_xs(const struct cluster *c, int *nx)
{
	int total = 0;
	for (int u = 0; u < c->nseries; u++)
		total += c->series[u].n;
	double *xs = xcalloc((size_t)total, sizeof(double));
	int n = 0;
	for (int u = 0; u < c->nseries; u++)
		for (int p = 0; p < c->series[u].n; p++) {
			double x = c->series[u].pts[p]->x;
			int k = 0;
			while (k < n && xs[k] < x)
				k++;
			if (k < n && xs[k] == x)
				continue;
			memmove(xs + k + 1, xs + k, (size_t)(n - k) * sizeof(double));
			xs[k] = x;
			n++;
		}
	*nx = n;
	return xs;
}

/* A scaling figure's table: a row per x, a column per series. */
static void scaling_table(struct doc *d, const struct cluster *c, const char *xname, int mi)
{
	const struct metric *m = &metric_table[mi];
	const char **head = xcalloc((size_t)c->nseries + 1, sizeof(char *));
	head[0] = xname;
	for (int u = 0; u < c->nseries; u++)
		head[u + 1] = c->series[u].label;
	table_begin(d, "scaling", c->nseries + 1, head);
	free(head);
	int nx;
	double *xs = cluster_xs(c, &nx);
	for (int k = 0; k < nx; k++) {
		row_begin(d);
		char x[32];
		cell(d, NULL, "%s", num(x, xs[k]));
		for (int u = 0; u < c->nseries; u++) {
			const struct rep_group *g = NULL;
			for (int p = 0; p < c->series[u].n && !g; p++)
				if (c->series[u].pts[p]->x == xs[k])
					g = d->s->groups[c->series[u].pts[p]->g];
			char v[128] = "";
			if (g)
				format_stat(v, sizeof(v), m, g->rate_unit, &g->m[mi], group_ok(g));
			cell(d, NULL, "%s", v);
		}
		row_end(d);
	}
	free(xs);
	table_end(d);
}

/* One figure of a metric against x (procs or a knob), a curve per series
 * with its 95% band; and its table. */
static void scaling_figure(struct doc *d, const struct cluster *c, const char *xname,
			   bool log2x, const char *title, int mi)
{
	const struct rep_store *s = d->s;
	const struct metric *m = &metric_table[mi];
	int have = 0;
	for (int u = 0; u < c->nseries; u++)
		for (int p = 0; p < c->series[u].n; p++)
			have += s->groups[c->series[u].pts[p]->g]->m[mi].n > 0;
	if (!have)
		return;
	const char *rate = NULL;
	for (int u = 0; u < c->nseries && !rate; u++)
		rate = s->groups[c->series[u].pts[0]->g]->rate_unit;
	struct y_axis y;
	y_axis_of(&y, m, rate);
	if (m->unit == MU_NS) {
		/* a log axis where every mean is above 0 (a log axis has no 0) */
		y.log = true;
		for (int u = 0; u < c->nseries; u++)
			for (int p = 0; p < c->series[u].n; p++) {
				const struct rep_acc *a = &s->groups[c->series[u].pts[p]->g]->m[mi];
				if (a->n && !(a->mean > 0))
					y.log = false;
			}
	}
	char ftitle[512];
	snprintf(ftitle, sizeof(ftitle), "%s: %s", title, m->label);
	int n = fig_begin(d, 760, 380, ftitle);
	int ncurves = c->nseries < REP_MAX_CURVES ? c->nseries : REP_MAX_CURVES;
	if (d->gp)
		scaling_script(d, c, n, ncurves, xname, log2x, &y, mi);
	char cap[700];
	snprintf(cap, sizeof(cap), "Figure %d. %s against %s, a curve per variant: the mean over "
		 "seeds, the band its 95%% confidence interval (none with one seed)%s.", n, m->label,
		 xname, y.log ? "; log scale" : "");
	fig_place(d, n, cap);
	if (c->nseries > ncurves)
		note(d, "Figure %d draws the first %d of %d curves; the table has them all.", n,
		     ncurves, c->nseries);
	scaling_table(d, c, xname, mi);
}

/* Whether a cluster has a series of two x values or more with ok runs. */
static bool cluster_scales(const struct rep_store *s, const struct cluster *c)
{
	for (int u = 0; u < c->nseries; u++) {
		int n = 0;
		double prev = NAN;
		for (int p = 0; p < c->series[u].n; p++) {
			const struct entry *e = c->series[u].pts[p];
			if (group_ok(s->groups[e->g]) && e->x != prev) {
				n++;
				prev = e->x;
			}
		}
		if (n >= 2)
			return true;
	}
	return false;
}

static void scaling_cluster(struct doc *d, const struct cluster *c, const char *xname,
			    const char *title, int *sec)
{
	const struct rep_store *s = d->s;
	double lo = INFINITY, hi = 0;
	bool positive = true;
	for (int u = 0; u < c->nseries; u++)
		for (int p = 0; p < c->series[u].n; p++) {
			double x = c->series[u].pts[p]->x;
			lo = fmin(lo, x);
			hi = fmax(hi, x);
			positive = positive && x > 0;
		}
	char id[32];
	snprintf(id, sizeof(id), "scaling-%d", ++*sec);
	heading(d, 3, id, title);
	bool requests = false;
	for (int u = 0; u < c->nseries; u++)
		for (int p = 0; p < c->series[u].n; p++)
			requests = requests ||
				   s->groups[c->series[u].pts[p]->g]->m[metric_index_by_path("requests")].n;
	for (int k = 0; k < NSCALING; k++) {
		if (k == 2 && requests)
			continue;    /* request latency is the one that matters there */
		scaling_figure(d, c, xname, positive && hi >= 4 * lo, title,
			       metric_index_by_path(scaling_paths[k]));
	}
}

/* By procs: a series per variant on one topology and workload. */
static struct entry *procs_entries(const struct rep_store *s, int *n)
{
	struct entry *e = xcalloc((size_t)s->ngroups + 1, sizeof(*e));
	for (int i = 0; i < s->ngroups; i++) {
		const struct rep_group *g = s->groups[i];
		e[i] = (struct entry){ xasprintf("%s\x1f%s\x1f%s", g->topology, g->workload, g->mode),
				       xstrdup(g->variant), (double)g->procs, i, i };
	}
	*n = s->ngroups;
	return e;
}

/* By a knob: a series per policy and its other knobs, on one topology,
 * workload and P count; the key starts with the knob's name. */
static struct entry *knob_entries(const struct rep_store *s, int *nentries)
{
	int n = 0, cap = 16;
	struct entry *e = xcalloc((size_t)cap, sizeof(*e));
	for (int i = 0; i < s->ngroups; i++) {
		const struct rep_group *g = s->groups[i];
		for (int k = 0; k < g->nset; k++) {
			char *base = xstrdup(g->policy);
			for (int o = 0; o < g->nset; o++) {
				if (o == k)
					continue;
				char v[32];
				char *b2 = xasprintf("%s:%s=%s", base, g->set_keys[o],
						     num(v, g->set_vals[o]));
				free(base);
				base = b2;
			}
			if (n == cap)
				e = xrealloc(e, (size_t)(cap *= 2) * sizeof(*e));
			e[n] = (struct entry){ xasprintf("%s\x1f%s\x1f%s\x1f%ld\x1f%s", g->set_keys[k],
							 g->topology, g->workload, g->procs, g->mode),
					       base, g->set_vals[k], i, n };
			n++;
		}
	}
	*nentries = n;
	return e;
}

/* One part of the scaling section: the entries' clusters that scale,
 * each under its title, against procs or (by_knob) the knob its key
 * names.  Frees the entries. */
static void scaling_part(struct doc *d, struct entry *e, int n, bool by_knob, int *sec)
{
	const struct rep_store *s = d->s;
	int ncl;
	struct cluster *cl = cluster_entries(e, n, &ncl);
	int any = 0;
	for (int i = 0; i < ncl; i++)
		any += cluster_scales(s, &cl[i]);
	if (any)
		heading(d, 2, by_knob ? "scaling-knobs" : "scaling-procs",
			by_knob ? "Scaling with a knob" : "Scaling with procs");
	for (int i = 0; any && i < ncl; i++) {
		if (!cluster_scales(s, &cl[i]))
			continue;
		const struct rep_group *g = s->groups[cl[i].series[0].pts[0]->g];
		const char *native = strcmp(g->mode, "sim") == 0 ? "" : " (native)";
		if (by_knob) {
			char knob[128], title[700];
			snprintf(knob, sizeof(knob), "%.*s", (int)strcspn(cl[i].key, "\x1f"), cl[i].key);
			snprintf(title, sizeof(title), "%s · %s · %s · %ld Ps%s", knob, g->topology,
				 g->workload, g->procs, native);
			scaling_cluster(d, &cl[i], knob, title, sec);
		} else {
			char title[512];
			snprintf(title, sizeof(title), "%s · %s%s", g->topology, g->workload, native);
			scaling_cluster(d, &cl[i], "procs", title, sec);
		}
	}
	clusters_free(cl, ncl, e, n);
}

static void section_scaling(struct doc *d)
{
	int sec = 0, n;
	struct entry *e = procs_entries(d->s, &n);
	scaling_part(d, e, n, false, &sec);
	e = knob_entries(d->s, &n);
	scaling_part(d, e, n, true, &sec);
}

/* The metrics table of one scenario: a column per variant. */
static void scenario_table(struct doc *d, const struct series *vs, int nv)
{
	const struct rep_store *s = d->s;
	const char **head = xcalloc((size_t)nv + 1, sizeof(char *));
	head[0] = "metric";
	for (int v = 0; v < nv; v++)
		head[v + 1] = vs[v].label;
	table_begin(d, "metrics", nv + 1, head);
	free(head);
	row_begin(d);
	cell(d, NULL, "runs");
	for (int v = 0; v < nv; v++) {
		const struct rep_group *g = s->groups[vs[v].pts[0]->g];
		char st[256];
		status_text(st, sizeof(st), g->nstatus);
		cell(d, g->nstatus[RS_OK] == g->nrows ? NULL : "bad", "%s", st);
	}
	row_end(d);
	row_begin(d);
	cell(d, NULL, "seeds");
	for (int v = 0; v < nv; v++) {
		const struct rep_group *g = s->groups[vs[v].pts[0]->g];
		if (g->first_seed == g->last_seed)
			cell(d, NULL, "%llu", (unsigned long long)g->first_seed);
		else
			cell(d, NULL, "%llu..%llu", (unsigned long long)g->first_seed,
			     (unsigned long long)g->last_seed);
	}
	row_end(d);
	for (int i = 0; i < metric_count; i++) {
		bool any = !metric_table[i].only_if_any;
		for (int v = 0; v < nv && !any; v++)
			any = s->groups[vs[v].pts[0]->g]->m[i].n > 0;
		if (!any)
			continue;
		row_begin(d);
		cell(d, NULL, "%s", metric_table[i].label);
		for (int v = 0; v < nv; v++) {
			const struct rep_group *g = s->groups[vs[v].pts[0]->g];
			char buf[128];
			format_stat(buf, sizeof(buf), &metric_table[i], g->rate_unit, &g->m[i],
				    group_ok(g));
			cell(d, NULL, "%s", buf);
		}
		row_end(d);
	}
	table_end(d);
}

/* One --why table: a mean (row 0) and its causes (row k: names[k - 1]),
 * a column per variant from each group's accumulators (rq: a request's,
 * else a G's wait); the causes no variant spent time in are left out. */
static void why_rows(struct doc *d, const struct series *vs, int nv, bool rq)
{
	const struct rep_store *s = d->s;
	int n = rq ? REP_NWHYRQ : REP_NWHY;
	const char **head = xcalloc((size_t)nv + 1, sizeof(char *));
	head[0] = "cause";
	for (int v = 0; v < nv; v++)
		head[v + 1] = vs[v].label;
	table_begin(d, rq ? "why-requests" : "why", nv + 1, head);
	free(head);
	const struct metric m = { .path = rq ? "why.requests.mean_ns" : "why.all.mean_ns",
				  .label = "", .name = "", .unit = MU_NS, .better = -1 };
	for (int k = 0; k < n; k++) {
		bool any = k == 0;
		for (int v = 0; v < nv && !any; v++) {
			const struct rep_group *g = s->groups[vs[v].pts[0]->g];
			const struct rep_acc *a = rq ? g->whyrq : g->why;
			any = a && a[k].mean > 0;
		}
		if (!any)
			continue;
		row_begin(d);
		cell(d, NULL, "%s", k == 0 ? (rq ? "mean request" : "mean wait")
				  : rq ? rt_whyrq_names[k - 1] : rt_why_names[k - 1]);
		for (int v = 0; v < nv; v++) {
			const struct rep_group *g = s->groups[vs[v].pts[0]->g];
			const struct rep_acc *a = rq ? g->whyrq : g->why;
			char buf[128] = "-";
			if (a)
				format_stat(buf, sizeof(buf), &m, NULL, &a[k], a[0].n);
			cell(d, NULL, "%s", buf);
		}
		row_end(d);
	}
	table_end(d);
}

/* Rows run with --why (sweep --why): a G's mean scheduling latency cut
 * into the causes run --why gives, which add up to it, a column per
 * variant; then, where the workload answers requests, a request's mean
 * latency by its causes. */
static void scenario_why(struct doc *d, const struct series *vs, int nv, int scen)
{
	const struct rep_store *s = d->s;
	int have = 0, have_rq = 0;
	for (int v = 0; v < nv; v++) {
		have += s->groups[vs[v].pts[0]->g]->why != NULL;
		have_rq += s->groups[vs[v].pts[0]->g]->whyrq != NULL;
	}
	if (!have)
		return;
	char id[48];
	snprintf(id, sizeof(id), "scenario-%d-why", scen);
	heading(d, 3, id, "Where the waits went");
	para(d, "A G's mean scheduling latency (from runnable to running) cut into causes that "
		"add up to it, as run --why gives them (docs/runtime.md, \"Why a G waited\"): "
		"the mean over the seeds run with --why, ±95%% confidence interval.");
	why_rows(d, vs, nv, false);
	if (!have_rq)
		return;
	snprintf(id, sizeof(id), "scenario-%d-why-requests", scen);
	heading(d, 3, id, "Where the requests' time went");
	para(d, "A request's mean latency, from its arrival to its answer, cut into causes that "
		"add up to it: before its handler had it (accept backlog, unpolled, handler busy), "
		"the handler's waits by the causes above, blocked and running (docs/runtime.md, "
		"\"Why a request took its time\"); the mean over the seeds, ±95%% confidence "
		"interval.");
	why_rows(d, vs, nv, true);
}

static void scenario_cdfs(struct doc *d, const struct series *vs, int nv, const char *title)
{
	const struct rep_store *s = d->s;
	static const char *const names[REP_NDIST] = { "scheduling latency", "request latency" };
	struct hist *h = xcalloc(1, sizeof(*h));
	for (int dist = 0; dist < REP_NDIST; dist++) {
		int have = 0;
		for (int v = 0; v < nv; v++)
			have += s->groups[vs[v].pts[0]->g]->dist[dist].count > 0;
		if (!have) {
			if (dist == 0)
				note(d, "No run of this scenario has a scheduling-latency histogram: "
					"no CDF.");
			continue;        /* a workload without requests has no request latency */
		}
		char ftitle[600];
		snprintf(ftitle, sizeof(ftitle), "%s: %s CDF", title, names[dist]);
		int n = fig_begin(d, 760, 400, ftitle);
		int ncurves = 0;
		if (d->gp) {
			FILE *f = d->gp;
			fprintf(f, "set encoding utf8\nset logscale x 10\nset format x '%%.0s %%cs'\n"
				   "set xlabel 'latency'\nset ylabel 'fraction at or below'\n"
				   "set yrange [0:1]\nset key outside right top\n");
			for (int v = 0; v < nv && ncurves < REP_MAX_CURVES; v++) {
				const struct rep_group *g = s->groups[vs[v].pts[0]->g];
				if (!g->dist[dist].count)
					continue;
				rep_hist_expand(&g->dist[dist], h);
				fprintf(f, "$cdf_%d_%d << EOD\n# ", n, v);
				fprintf(f, "%s latency_ns fraction\n", rep_dist_paths[dist]);
				cdf_points(f, h);
				fprintf(f, "EOD\n");
				ncurves++;
			}
			fprintf(f, "plot ");
			int k = 0;
			for (int v = 0; v < nv && k < ncurves; v++) {
				const struct rep_group *g = s->groups[vs[v].pts[0]->g];
				if (!g->dist[dist].count)
					continue;
				fprintf(f, "%s$cdf_%d_%d using ($1*1e-9):2 with steps lw 2 lc rgb '%s' "
					   "title ", k ? ", " : "", n, v, palette[k % NPALETTE]);
				gp_str(f, vs[v].label);
				k++;
			}
			fprintf(f, "\n");
		}
		char cap[700];
		snprintf(cap, sizeof(cap), "Figure %d. %s: the CDF of every value the runs "
			 "recorded (their histograms added up; 1.6%% bucket error), log scale.", n,
			 names[dist]);
		fig_place(d, n, cap);
		if (have > REP_MAX_CURVES)
			note(d, "Figure %d draws the first %d of %d variants; the table has them all.",
			     n, REP_MAX_CURVES, have);
		/* the pooled quantiles the curves pass through */
		static const char *const head[] = { "variant", "values", "p50", "p90", "p99",
						    "p99.9", "max" };
		table_begin(d, "quantiles", 7, head);
		for (int v = 0; v < nv; v++) {
			const struct rep_group *g = s->groups[vs[v].pts[0]->g];
			if (!g->dist[dist].count)
				continue;
			rep_hist_expand(&g->dist[dist], h);
			row_begin(d);
			cell(d, NULL, "%s", vs[v].label);
			cell(d, NULL, "%llu", (unsigned long long)h->count);
			static const double qs[] = { 0.5, 0.9, 0.99, 0.999, 1.0 };
			for (int q = 0; q < 5; q++) {
				char t[64];
				ns_text(t, sizeof(t), (double)(q == 4 ? h->max : hist_quantile(h, qs[q])));
				cell(d, NULL, "%s", t);
			}
			row_end(d);
		}
		table_end(d);
	}
	free(h);
}

static void scenario_cpu(struct doc *d, const struct series *vs, int nv, const char *title)
{
	const struct rep_store *s = d->s;
	int have = 0;
	for (int v = 0; v < nv; v++)
		have += s->groups[vs[v].pts[0]->g]->ncpu > 0;
	if (!have) {
		note(d, "No run of this scenario has a CPU breakdown: no bars.");
		return;
	}
	static const char *const seg[REP_NCPU] = { "on: user",      "on: sched",   "on: spin",
						   "on: lock wait", "off: lock wait", "off: syscall",
						   "off: parked" };
	static const char *const colors[REP_NCPU] = { "#2ca02c", "#1f77b4", "#ff7f0e", "#d62728",
						      "#f4a6a6", "#c5b0d5", "#dddddd" };
	char ftitle[600];
	snprintf(ftitle, sizeof(ftitle), "%s: CPU breakdown", title);
	int n = fig_begin(d, 760, 400, ftitle);
	int nbars = have < REP_MAX_CURVES ? have : REP_MAX_CURVES;
	if (d->gp) {
		FILE *f = d->gp;
		fprintf(f, "set style data histograms\nset style histogram rowstacked\n"
			   "set style fill solid 0.9 border rgb '#555555'\nset boxwidth 0.7\n"
			   "set ylabel 'thread time (ms), mean per run'\nset yrange [0:*]\n"
			   "set key outside right top\nset xtics rotate by -25\n");
		fprintf(f, "$cpu_%d << EOD\n# bar on_user on_sched on_spin on_lock_wait off_lock_wait "
			   "off_syscall off_parked\n", n);
		int k = 0;
		for (int v = 0; v < nv && k < nbars; v++) {
			const struct rep_group *g = s->groups[vs[v].pts[0]->g];
			if (!g->ncpu)
				continue;
			for (int half = 0; half < 2; half++) {
				char *label = xasprintf("%s %s", vs[v].label, half ? "off" : "on");
				gp_datastr(f, label);
				free(label);
				for (int c = 0; c < REP_NCPU; c++) {
					char a[32];
					bool mine = (c < 4) == (half == 0);
					fprintf(f, " %s", num(a, mine ? g->cpu_ns[c] / g->ncpu / 1e6 : 0));
				}
				fprintf(f, "\n");
			}
			k++;
		}
		fprintf(f, "EOD\nplot ");
		for (int c = 0; c < REP_NCPU; c++) {
			fprintf(f, "%s$cpu_%d using %d%s lc rgb '%s' title ", c ? ", " : "", n, c + 2,
				c ? "" : ":xtic(1)", colors[c]);
			gp_str(f, seg[c]);
		}
		fprintf(f, "\n");
	}
	char cap[600];
	snprintf(cap, sizeof(cap), "Figure %d. Where the threads' time went: for each variant a "
		 "bar of on-CPU time and one of off-CPU time, split by what the thread did (mean "
		 "per run, in ms of thread time).", n);
	fig_place(d, n, cap);
	if (have > nbars)
		note(d, "Figure %d draws the first %d of %d variants; the table has them all.", n,
		     nbars, have);
	static const char *const head[] = { "variant (ms)", "on: user", "on: sched", "on: spin",
					    "on: lock wait", "off: lock wait", "off: syscall",
					    "off: parked" };
	table_begin(d, "cpu", 8, head);
	for (int v = 0; v < nv; v++) {
		const struct rep_group *g = s->groups[vs[v].pts[0]->g];
		if (!g->ncpu)
			continue;
		row_begin(d);
		cell(d, NULL, "%s", vs[v].label);
		for (int c = 0; c < REP_NCPU; c++)
			cell(d, NULL, "%.3f", g->cpu_ns[c] / g->ncpu / 1e6);
		row_end(d);
	}
	table_end(d);
}

/* A matrix value: a whole number as one, else one decimal. */
static void matrix_value(char *buf, size_t size, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.1f", v);
}

static void scenario_memory(struct doc *d, const struct series *vs, int nv, const char *title)
{
	const struct rep_store *s = d->s;
	int have = 0;
	for (int v = 0; v < nv; v++)
		have += s->groups[vs[v].pts[0]->g]->ndram > 0;
	if (!have) {
		note(d, "No run of this scenario measured memory by node (natively there is no such "
			"measure): no heat map.");
		return;
	}
	/* one colour scale for every variant's map, so that a colour means the
	 * same number of lines in each */
	double top = 0;
	for (int v = 0; v < nv; v++) {
		const struct rep_group *g = s->groups[vs[v].pts[0]->g];
		for (int k = 0; g->ndram && k < g->nnodes * g->nnodes; k++)
			top = fmax(top, g->dram[k] / g->ndram);
	}
	char range[40] = "*";
	if (top > 0)
		num(range, top);
	int drawn = 0;
	for (int v = 0; v < nv; v++) {
		const struct rep_group *g = s->groups[vs[v].pts[0]->g];
		if (!g->ndram)
			continue;
		int nn = g->nnodes;
		if (drawn < REP_MAX_HEATMAPS) {
			char ftitle[600];
			snprintf(ftitle, sizeof(ftitle), "%s: %s: DRAM lines by node", title, vs[v].label);
			int side = 140 + 60 * (nn < 12 ? nn : 12);
			int n = fig_begin(d, side + 160, side + 40, ftitle);
			if (d->gp) {
				FILE *f = d->gp;
				fprintf(f, "set xlabel 'home node of the memory'\n"
					   "set ylabel 'node of the reading CPU'\n"
					   "set xrange [-0.5:%d.5]\nset yrange [%d.5:-0.5]\n"
					   "set xtics 1 out\nset ytics 1 out\nunset grid\nset size ratio -1\n"
					   "set palette defined (0 '#ffffff', 1 '#9ecae1', 2 '#3182bd')\n"
					   "set format cb '%%.1s%%c'\n"
					   "set cblabel 'lines, mean per run'\nset cbrange [0:%s]\n",
					nn - 1, nn - 1, range);
				fprintf(f, "$dram_%d << EOD\n", n);
				for (int r = 0; r < nn; r++) {
					for (int c = 0; c < nn; c++) {
						char a[32];
						fprintf(f, "%s%s", c ? " " : "",
							num(a, g->dram[r * nn + c] / g->ndram));
					}
					fprintf(f, "\n");
				}
				fprintf(f, "EOD\n");
				fprintf(f, "plot $dram_%d matrix with image pixels notitle", n);
				if (nn <= 8)
					fprintf(f, ", $dram_%d matrix using 1:2:($3 == 0 ? '0' : "
						   "gprintf('%%.3s%%c', $3)) "
						   "with labels textcolor rgb '#000000' notitle", n);
				fprintf(f, "\n");
			}
			char cap[700];
			snprintf(cap, sizeof(cap), "Figure %d. %s: the DRAM lines read from each node's "
				 "CPUs (rows) of memory homed on each node (columns), mean per run; "
				 "the diagonal is local. Every map of this scenario has one colour "
				 "scale.", n, vs[v].label);
			fig_place(d, n, cap);
		}
		drawn++;
		/* the numbers themselves */
		const char **head = xcalloc((size_t)nn + 1, sizeof(char *));
		char **names = xcalloc((size_t)nn + 1, sizeof(char *));
		names[0] = xasprintf("%s: node \\ home", vs[v].label);
		head[0] = names[0];
		for (int c = 0; c < nn; c++)
			head[c + 1] = names[c + 1] = xasprintf("home %d", c);
		table_begin(d, "dram", nn + 1, head);
		for (int r = 0; r < nn; r++) {
			row_begin(d);
			cell(d, NULL, "node %d", r);
			for (int c = 0; c < nn; c++) {
				char a[48];
				matrix_value(a, sizeof(a), g->dram[r * nn + c] / g->ndram);
				cell(d, NULL, "%s", a);
			}
			row_end(d);
		}
		table_end(d);
		for (int c = 0; c <= nn; c++)
			free(names[c]);
		free(names);
		free(head);
	}
	if (drawn > REP_MAX_HEATMAPS)
		note(d, "Heat maps are drawn for the first %d variants; the tables have them all.",
		     REP_MAX_HEATMAPS);
}

static void section_scenarios(struct doc *d, const struct cluster *cl, int ncl)
{
	const struct rep_store *s = d->s;
	for (int i = 0; i < ncl; i++) {
		const struct rep_group *g = s->groups[cl[i].series[0].pts[0]->g];
		char title[512], id[32];
		scenario_title(title, sizeof(title), g);
		snprintf(id, sizeof(id), "scenario-%d", i + 1);
		heading(d, 2, id, title);
		scenario_headline(d, cl[i].series, cl[i].nseries, i + 1);
		scenario_table(d, cl[i].series, cl[i].nseries);
		scenario_why(d, cl[i].series, cl[i].nseries, i + 1);
		if (i >= REP_MAX_SCENARIO_FIGS) {
			note(d, "Figures are drawn for the first %d scenarios of the store; this one has "
				"its table only.", REP_MAX_SCENARIO_FIGS);
			continue;
		}
		int ok = 0;
		for (int v = 0; v < cl[i].nseries; v++)
			ok += group_ok(s->groups[cl[i].series[v].pts[0]->g]);
		if (!ok) {
			note(d, "No run of this scenario completed: nothing to draw.");
			continue;
		}
		snprintf(id, sizeof(id), "scenario-%d-latency", i + 1);
		heading(d, 3, id, "Latency distributions");
		scenario_cdfs(d, cl[i].series, cl[i].nseries, title);
		snprintf(id, sizeof(id), "scenario-%d-cpu", i + 1);
		heading(d, 3, id, "CPU breakdown");
		scenario_cpu(d, cl[i].series, cl[i].nseries, title);
		snprintf(id, sizeof(id), "scenario-%d-memory", i + 1);
		heading(d, 3, id, "Memory access by node");
		scenario_memory(d, cl[i].series, cl[i].nseries, title);
	}
}

static const char css[] =
	"body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}"
	"table{border-collapse:collapse;margin:0.6em 0 1.2em}"
	"table{display:block;max-width:100%;overflow-x:auto}"
	"th,td{border:1px solid #ccc;padding:2px 8px;text-align:right;font-size:90%}"
	"thead th{background:#f0f0f0}tbody th{text-align:left;font-weight:normal}"
	"td.l{text-align:left}td.bad{color:#b00;font-weight:bold}"
	"td.sig{text-align:left;font-weight:bold;color:#1a6b1a}"
	"ul.headline{margin:0.4em 0 0.8em;padding-left:1.2em}ul.headline li{margin:0.15em 0}"
	".note{color:#555;font-style:italic}"
	"figure.plot{margin:0.5em 0}figure.plot svg{width:100%;max-width:900px;height:auto}"
	"figcaption{font-size:90%;color:#444}";

/* The whole document (both passes). */
static void emit(struct doc *d)
{
	const struct rep_store *s = d->s;
	struct entry *e = xcalloc((size_t)s->ngroups + 1, sizeof(*e));
	for (int i = 0; i < s->ngroups; i++) {
		const struct rep_group *g = s->groups[i];
		e[i] = (struct entry){ xasprintf("%s\x1f%s\x1f%ld\x1f%s", g->topology, g->workload,
						 g->procs, g->mode),
				       xstrdup(g->variant), 0, i, i };
	}
	int ncl;
	struct cluster *cl = cluster_entries(e, s->ngroups, &ncl);

	char *base = strrchr(s->file, '/') ? xstrdup(strrchr(s->file, '/') + 1) : xstrdup(s->file);
	if (d->fmt == REP_HTML) {
		put(d, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       "<title>schedlab report: ");
		esc(d, base);
		put(d, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
		put(d, "<h1 id=\"top\">schedlab report: ");
		esc(d, base);
		put(d, "</h1>\n");
	} else {
		put(d, "# schedlab report: ");
		esc(d, base);
		put(d, "\n\n");
	}
	free(base);
	section_summary(d, ncl);
	if (s->rows == 0) {
		note(d, "The store has no rows: there is nothing to report.");
	} else {
		section_glance(d, cl, ncl);
		section_failed(d);
		section_scaling(d);
		section_scenarios(d, cl, ncl);
	}
	if (d->fmt == REP_HTML)
		put(d, "</body>\n</html>\n");
	clusters_free(cl, ncl, e, s->ngroups);
}

/* ---- Interruption ---- */

/* SIGINT and SIGTERM are blocked while a report is made (one that is
 * ignored stays ignored) and taken only where stopping leaves nothing
 * behind: while gnuplot runs, which is then killed and reaped, and before
 * the report is put in place.  The temporary folder is removed and the
 * command exits 128 + the signal, as explore does. */
static void stops_block(sigset_t *stops, sigset_t *saved)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	sigemptyset(stops);
	for (int i = 0; i < 2; i++) {
		struct sigaction sa;
		if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			sigaddset(stops, sigs[i]);
	}
	sigprocmask(SIG_BLOCK, stops, saved);
}

/* The stop pending, taken; 0 if none. */
static int stop_taken(const sigset_t *stops)
{
	static const struct timespec now = { 0, 0 };
	int sig = sigtimedwait(stops, NULL, &now);
	return sig > 0 ? sig : 0;
}

static int interrupted(struct err *e, int sig)
{
	err_set(e, "interrupted by %s: no report written", sig == SIGINT ? "SIGINT" : "SIGTERM");
	return 128 + sig;
}

/* ---- gnuplot ---- */

struct gnuplot {
	const char *program, *dir, *script, *errfile;
	const sigset_t *stops, *saved;  /* the signals rep_write took, the mask before */
};

/* In the child: gnuplot on the script in dir (its own defaults, no
 * start-up file, the C locale), dying with the report if it is killed. */
static _Noreturn void gnuplot_child(const struct gnuplot *g, pid_t parent)
{
	proc_die_with_parent(parent);
	/* a group of its own: whatever it starts is killed with it */
	setpgid(0, 0);
	sigprocmask(SIG_SETMASK, g->saved, NULL);
	int in = open("/dev/null", O_RDONLY);
	int out = open(g->errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (in < 0 || out < 0 || chdir(g->dir) != 0)
		_exit(126);
	dup2(in, 0);
	dup2(out, 1);
	dup2(out, 2);
	setenv("LC_ALL", "C", 1);
	unsetenv("GNUPLOT_LIB");
	execlp(g->program, g->program, "-d", g->script, (char *)NULL);
	_exit(127);
}

/* Waits for gnuplot's end (SIGCHLD, blocked as the stops are, is waited
 * for with them: no stop is missed between a check and the wait).  A stop
 * kills and reaps it.  The stop taken, 0 if none, -1 if waitpid failed. */
static int gnuplot_wait(pid_t pid, const sigset_t *waits, int *status)
{
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		static const struct timespec tick = { 1, 0 };
		int sig = sigtimedwait(waits, NULL, &tick);
		if (sig > 0 && sig != SIGCHLD) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return sig;
		}
	}
}

/* What gnuplot's end says: 0, or 2 with a message. */
static int gnuplot_status(const struct gnuplot *g, int status, struct err *e)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		err_set(e, "%s: cannot run it (not installed? Debian: apt-get install gnuplot-nox; "
			"or SCHEDLAB_GNUPLOT=PROGRAM)", g->program);
		return EXIT_BADINPUT;
	}
	size_t len = 0;
	char *msg = read_all(g->errfile, &len);
	/* gnuplot's message: its last non-empty line says what went wrong */
	char *last = NULL;
	for (char *line = msg ? strtok(msg, "\n") : NULL; line; line = strtok(NULL, "\n"))
		if (strspn(line, " \t^") != strlen(line))
			last = line;
	err_set(e, "%s failed on the report's figures (%s): %s", g->program,
		WIFEXITED(status) ? "exit status" : "killed", last ? last : "no message");
	free(msg);
	return EXIT_BADINPUT;
}

/* Runs gnuplot: 0, 2 with a message, or 128 + a stop that came meanwhile. */
static int run_gnuplot(const struct gnuplot *g, struct err *e)
{
	sigset_t waits = *g->stops, before;
	sigaddset(&waits, SIGCHLD);
	sigprocmask(SIG_BLOCK, &waits, &before);
	pid_t parent = getpid(), pid = fork();
	if (pid == 0)
		gnuplot_child(g, parent);
	int status = 0, sig = pid < 0 ? -1 : gnuplot_wait(pid, &waits, &status);
	int why = errno;
	sigprocmask(SIG_SETMASK, &before, NULL);
	if (sig > 0)
		return interrupted(e, sig);
	if (sig < 0) {
		err_set(e, "gnuplot: %s: %s", pid < 0 ? "fork" : "waitpid", strerror(why));
		return EXIT_BADINPUT;
	}
	return gnuplot_status(g, status, e);
}

/* Every figure gnuplot was to write, whole: an SVG that does not end with
 * its closing tag was cut (a full disk), and gnuplot does not always say. */
static int figures_whole(const char *dir, int nfig, struct err *e)
{
	for (int n = 1; n <= nfig; n++) {
		char *path = xasprintf("%s/fig-%04d.svg", dir, n);
		char tail[33] = "";
		size_t got = 0;
		FILE *f = fopen(path, "r");
		if (f && fseek(f, -32, SEEK_END) != 0)
			rewind(f);
		if (f) {
			got = fread(tail, 1, 32, f);
			fclose(f);
		}
		while (got > 0 && isspace((unsigned char)tail[got - 1]))
			got--;
		bool whole = got >= 6 && strncmp(tail + got - 6, "</svg>", 6) == 0;
		if (!whole)
			err_set(e, "gnuplot wrote figure %d incompletely (%s): a full disk?", n, path);
		free(path);
		if (!whole)
			return EXIT_BADINPUT;
	}
	return 0;
}

/* ---- Files ---- */

/* The fig-NNNN.svg files in dir from number from on removed. */
static void remove_figures(const char *dir, int from)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return;
	struct dirent *de;
	while ((de = readdir(dp))) {
		int n, end = 0;
		if (sscanf(de->d_name, "fig-%d.svg%n", &n, &end) == 1 && end > 0 &&
		    de->d_name[end] == '\0' && n >= from) {
			char *p = xasprintf("%s/%s", dir, de->d_name);
			unlink(p);
			free(p);
		}
	}
	closedir(dp);
}

char *rep_figures_dir(const char *md_path)
{
	size_t n = strlen(md_path);
	if (n > 3 && strcmp(md_path + n - 3, ".md") == 0)
		n -= 3;
	return xasprintf("%.*s-figures", (int)n, md_path);
}

/* A file whole or not at all (util/output.h); what is the option. */
static int write_file(const char *what, const char *path, const char *text, size_t len,
		      struct err *e)
{
	struct output o;
	if (!output_open(&o, what, path, e))
		return EXIT_BADINPUT;
	fwrite(text, 1, len, o.f);
	return output_commit(&o, e) ? 0 : EXIT_BADINPUT;
}

/* What one report makes: the temporary folder beside it (gnuplot's script
 * and its figures, on the report's file system so that they can be renamed
 * into place), and a Markdown report's figures' folder. */
struct work {
	char *dir, *script, *errfile;
	char *figdir, *figlink;        /* Markdown only */
	bool made_figdir;
	int nfig;
};

static void say_path(struct err *e, const char *out, const char *what, const char *path,
		     const char *why)
{
	char *o = str_shown(out, 256), *p = str_shown(path, 256);
	err_set(e, "-o %s: %s %s: %s", o, what, p, why);
	free(o);
	free(p);
}

/* The temporary folder beside out, and a Markdown report's figures'
 * folder checked: a path that is there must be a folder. */
static int work_start(struct work *w, const struct rep_opts *o, struct err *e)
{
	*w = (struct work){ 0 };
	if (o->format == REP_MD) {
		w->figdir = rep_figures_dir(o->out);
		const char *slash = strrchr(w->figdir, '/');
		w->figlink = xstrdup(slash ? slash + 1 : w->figdir);
		struct stat fst;
		if (stat(w->figdir, &fst) == 0 && !S_ISDIR(fst.st_mode)) {
			say_path(e, o->out, "the figures' folder", w->figdir,
				 "there is a file of that name, not a folder");
			return EXIT_BADINPUT;
		}
	}
	/* beside the report, on its file system; a device or a FIFO has no
	 * folder of its own to hold it (beside /dev/null is /dev) */
	struct stat st;
	const char *tmpdir = getenv("TMPDIR");
	char *tmpl = stat(o->out, &st) != 0 || S_ISREG(st.st_mode)
			     ? xasprintf("%s.tmp-XXXXXX", o->out)
			     : xasprintf("%s/schedlab-report-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	char *made = mkdtemp(tmpl);
	w->dir = made ? realpath(made, NULL) : NULL;
	if (!w->dir) {
		say_path(e, o->out, "a temporary folder beside it,", tmpl, strerror(errno));
		if (made)
			rmdir(made);
		free(tmpl);
		return EXIT_BADINPUT;
	}
	free(tmpl);
	w->script = xasprintf("%s/report.gp", w->dir);
	w->errfile = xasprintf("%s/gnuplot.err", w->dir);
	return 0;
}

/* The temporary folder removed, with whatever is left in it (it is the
 * report's own: a gnuplot killed midway may leave anything there). */
static void work_end(struct work *w)
{
	DIR *dp = w->dir ? opendir(w->dir) : NULL;
	for (struct dirent *de; dp && (de = readdir(dp));) {
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			unlinkat(dirfd(dp), de->d_name, 0);
	}
	if (dp)
		closedir(dp);
	if (w->dir)
		rmdir(w->dir);
	free(w->dir);
	free(w->script);
	free(w->errfile);
	free(w->figdir);
	free(w->figlink);
}

/* A Markdown report's figures moved from the temporary folder into its
 * folder (made if need be), after its text is in place; the old figures
 * past the new ones removed. */
static int figures_commit(struct work *w, const char *out, struct err *e)
{
	for (int n = 1; n <= w->nfig; n++) {
		char *from = xasprintf("%s/fig-%04d.svg", w->dir, n);
		char *to = xasprintf("%s/fig-%04d.svg", w->figdir, n);
		int ok = rename(from, to);
		free(from);
		free(to);
		if (ok != 0) {
			say_path(e, out, "the figures' folder", w->figdir, strerror(errno));
			return EXIT_BADINPUT;
		}
	}
	remove_figures(w->figdir, w->nfig + 1);
	return 0;
}

/* Pass 1: every figure's script into the temporary folder. */
static int pass_script(struct doc *d, const struct work *w, const char *out, struct err *e)
{
	char *text = NULL;
	size_t len = 0;
	d->out = open_memstream(&text, &len);
	d->gp = fopen(w->script, "w");
	int rc = 0;
	if (d->out && d->gp) {
		fprintf(d->gp, "# schedlab report: the figures of %s, data inline; gnuplot -d "
			       "FILE in a folder writes them there as fig-NNNN.svg\n", d->s->file);
		emit(d);
	}
	if (!d->out || !d->gp || fflush(d->gp) != 0 || ferror(d->gp)) {
		say_path(e, out, "the figures' script", w->script, strerror(errno ? errno : EIO));
		rc = EXIT_BADINPUT;
	}
	if (d->gp)
		fclose(d->gp);
	d->gp = NULL;
	if (d->out)
		fclose(d->out);
	free(text);
	return rc;
}

/* The --plot-script copy of the script. */
static int write_plot_script(const struct work *w, const char *path, struct err *e)
{
	size_t len;
	char *sc = read_all(w->script, &len);
	if (!sc) {
		err_set(e, "%s: %s", w->script, strerror(errno));
		return EXIT_BADINPUT;
	}
	int rc = write_file("--plot-script", path, sc, len, e);
	free(sc);
	return rc;
}

/* Pass 2: the text, written to out; a Markdown report's figures put
 * beside it only once the text is in place (and a folder made for them
 * first, so that a failure leaves the old report and figures as they
 * were). */
static int pass_text(struct doc *d, struct work *w, const struct rep_opts *o, struct err *e)
{
	char *text = NULL;
	size_t len = 0;
	d->nfig = 0;
	d->out = open_memstream(&text, &len);
	emit(d);
	fclose(d->out);
	int rc = d->failed ? EXIT_BADINPUT : 0;
	if (rc == 0 && w->figdir && mkdir(w->figdir, 0777) == 0)
		w->made_figdir = true;
	else if (rc == 0 && w->figdir && errno != EEXIST) {
		say_path(e, o->out, "the figures' folder", w->figdir, strerror(errno));
		rc = EXIT_BADINPUT;
	}
	if (rc == 0)
		rc = write_file("-o", o->out, text, len, e);
	if (rc == 0 && w->figdir)
		rc = figures_commit(w, o->out, e);
	else if (w->made_figdir)
		rmdir(w->figdir);
	free(text);
	return rc;
}

int rep_write(const struct rep_store *s, const struct rep_opts *o, struct err *e)
{
	sigset_t stops, saved;
	stops_block(&stops, &saved);
	struct work w;
	int rc = work_start(&w, o, e);
	struct doc d = { .s = s, .fmt = o->format, .figdir = w.dir, .figlink = w.figlink, .e = e };
	if (rc == 0)
		rc = pass_script(&d, &w, o->out, e);
	w.nfig = d.nfig;
	struct gnuplot g = { .program = o->gnuplot ? o->gnuplot : "gnuplot", .dir = w.dir,
			     .script = w.script, .errfile = w.errfile, .stops = &stops,
			     .saved = &saved };
	if (rc == 0 && w.nfig > 0)
		rc = run_gnuplot(&g, e);
	if (rc == 0)
		rc = figures_whole(w.dir, w.nfig, e);
	int sig = rc == 0 ? stop_taken(&stops) : 0;
	if (sig)
		rc = interrupted(e, sig);
	if (rc == 0 && o->plot_script)
		rc = write_plot_script(&w, o->plot_script, e);
	if (rc == 0)
		rc = pass_text(&d, &w, o, e);
	work_end(&w);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	return rc;
}
