/* `schedlab report` (suite "report"): the report of a known store, built
 * here from `schedlab run --json` reports wrapped in rows as the store
 * contract has them, has each section; its CDFs come from the histograms,
 * its heat map's numbers are the store's; bad stores exit 2 naming file,
 * line and JSON path; the same store gives the same bytes. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "report/report.h"
#include "tests/tests.h"

static char dir[] = "/tmp/schedlab-report-test-XXXXXX";
static char store[128];
/* the runs of the store: variant, procs, seed */
static const struct {
	const char *variant, *policy, *knob;
	int procs, seed;
} runs[] = {
	{ "steal", "steal", NULL, 2, 1 },
	{ "steal", "steal", NULL, 2, 2 },
	{ "steal", "steal", NULL, 4, 1 },
	{ "steal:runnext=0", "steal", "runnext", 2, 1 },
	{ "steal:runnext=0", "steal", "runnext", 4, 1 },
};
#define NRUNS ((int)(sizeof(runs) / sizeof(runs[0])))
static cJSON *reports[NRUNS];

static char *row_text(int i, const char *status, cJSON *report)
{
	cJSON *row = cJSON_CreateObject();
	cJSON_AddNumberToObject(row, "store", 1);
	cJSON_AddStringToObject(row, "schedlab", "0.1.0");
	cJSON_AddStringToObject(row, "commit", "f940d16test");
	cJSON_AddStringToObject(row, "matrix", "00112233aabbccdd");
	cJSON_AddNumberToObject(row, "index", i);
	cJSON_AddStringToObject(row, "variant", runs[i].variant);
	cJSON *in = cJSON_AddObjectToObject(row, "inputs");
	cJSON_AddStringToObject(in, "mode", "sim");
	cJSON_AddStringToObject(in, "policy", runs[i].policy);
	cJSON *set = cJSON_AddObjectToObject(in, "set");
	if (runs[i].knob)
		cJSON_AddNumberToObject(set, runs[i].knob, 0);
	cJSON_AddStringToObject(in, "topology", "numa2");
	cJSON_AddStringToObject(in, "workload", "rpc-server");
	cJSON_AddNumberToObject(in, "procs", runs[i].procs);
	cJSON_AddNumberToObject(in, "seed", runs[i].seed + (strcmp(status, "ok") ? 10 : 0));
	cJSON_AddStringToObject(row, "status", status);
	cJSON_AddNumberToObject(row, "exit_status", strcmp(status, "ok") ? 1 : 0);
	if (strcmp(status, "ok") == 0)
		cJSON_AddNullToObject(row, "message");
	else
		cJSON_AddStringToObject(row, "message", "all goroutines are asleep - deadlock!");
	if (report)
		cJSON_AddItemToObject(row, "report", cJSON_Duplicate(report, true));
	else
		cJSON_AddNullToObject(row, "report");
	char *text = cJSON_PrintUnformatted(row);
	cJSON_Delete(row);
	return text;
}

static void store_setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(store, sizeof(store), "%s/store.jsonl", dir);
	FILE *f = fopen(store, "w");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < NRUNS; i++) {
		char args[512], *out = NULL;
		snprintf(args, sizeof(args), "run -p %s -t numa2 -w rpc-server --procs %d --seed %d "
			 "%s --json -", runs[i].policy, runs[i].procs, runs[i].seed,
			 runs[i].knob ? "--set runnext=0" : "");
		ck_assert_int_eq(test_schedlab(args, &out, NULL), 0);
		reports[i] = cJSON_Parse(out);
		ck_assert_ptr_nonnull(reports[i]);
		free(out);
		char *row = row_text(i, "ok", reports[i]);
		fprintf(f, "%s\n", row);
		free(row);
	}
	/* a run that did not complete: shown, not hidden (run NRUNS of the
	 * matrix: a row of its own) */
	char *row = row_text(0, "deadlock", NULL);
	char *at = strstr(row, "\"index\":0");
	ck_assert_ptr_nonnull(at);
	fprintf(f, "%.*s\"index\":%d%s\n", (int)(at - row), row, NRUNS, at + strlen("\"index\":0"));
	free(row);
	ck_assert_int_eq(fclose(f), 0);
}

static void store_teardown(void)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	for (int i = 0; i < NRUNS; i++)
		cJSON_Delete(reports[i]);
}

/* schedlab report STORE -o OUT [extra]; returns the exit status, the
 * stderr in *err if err. */
static int report(const char *in, const char *out, const char *extra, char **err)
{
	char args[1024];
	snprintf(args, sizeof(args), "report '%s' -o '%s' %s", in, out, extra ? extra : "");
	return test_schedlab(args, NULL, err);
}

static double metric(int run, const char *path)
{
	const cJSON *o = cJSON_GetObjectItem(reports[run], "metrics");
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok(buf, "."); k && o; k = strtok(NULL, "."))
		o = cJSON_GetObjectItem(o, k);
	ck_assert_msg(cJSON_IsNumber(o), "metric %s", path);
	return o->valuedouble;
}

START_TEST(report_sections)
{
	char out[256];
	snprintf(out, sizeof(out), "%s/r.html", dir);
	char *err = NULL;
	ck_assert_int_eq(report(store, out, NULL, &err), 0);
	free(err);
	char *html = test_read_file(out);
	static const char *const want[] = {
		"<!DOCTYPE html>",
		"id=\"not-ok\"",            /* the deadlocked run, listed */
		"all goroutines are asleep - deadlock!",
		"id=\"scaling-procs\"",      /* procs 2 and 4 */
		"id=\"scaling-knobs\"",      /* runnext absent... only one value: see below */
		"id=\"scenario-1\"", "id=\"scenario-2\"",
		"id=\"scenario-1-latency\"", "id=\"scenario-1-cpu\"", "id=\"scenario-1-memory\"",
		"scheduling latency CDF", "request latency CDF", "CPU breakdown",
		"DRAM lines by node", "request latency p99", "ok 2, deadlock 1",
		"<svg", "</svg>",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (strcmp(want[i], "id=\"scaling-knobs\"") == 0) {
			/* runnext takes one value in the store: no knob curve */
			ck_assert_msg(!strstr(html, want[i]), "a knob curve from one value");
			continue;
		}
		ck_assert_msg(strstr(html, want[i]), "the report lacks %s", want[i]);
	}
	/* self-contained: nothing fetched, no script */
	ck_assert_ptr_null(strstr(html, "<script"));
	ck_assert_ptr_null(strstr(html, "src=\"http"));
	ck_assert_ptr_null(strstr(html, "href=\"http"));
	/* every figure's ids made its own */
	ck_assert_ptr_null(strstr(html, "id='gpDot'"));
	ck_assert_ptr_nonnull(strstr(html, "id='f1-gpDot'"));
	free(html);
}
END_TEST

/* The first CDF point of a block at or above fraction q: its latency. */
static double cdf_at(const char *script, const char *block, double q)
{
	const char *p = strstr(script, block);
	ck_assert_msg(p != NULL, "no block %s", block);
	p = strchr(p, '\n') + 1;
	p = strchr(p, '\n') + 1;    /* the comment line */
	while (strncmp(p, "EOD", 3) != 0) {
		double x, y;
		ck_assert_int_eq(sscanf(p, "%lf %lf", &x, &y), 2);
		if (y >= q)
			return x;
		p = strchr(p, '\n') + 1;
	}
	ck_abort_msg("block %s never reaches %g", block, q);
	return 0;
}

START_TEST(report_cdf_from_histograms)
{
	char out[256], gp[256];
	snprintf(out, sizeof(out), "%s/c.html", dir);
	snprintf(gp, sizeof(gp), "%s/c.gp", dir);
	char extra[300];
	snprintf(extra, sizeof(extra), "--plot-script '%s'", gp);
	ck_assert_int_eq(report(store, out, extra, NULL), 0);
	char *script = test_read_file(gp);
	/* scenario 1 (procs 2): steal (seeds 1, 2) is series 0, runnext=0
	 * (seed 1) series 1; figures 1.. are the scaling ones, so find the
	 * CDF blocks by their comment */
	const char *sched = strstr(script, "# sched_latency_ns latency_ns fraction");
	ck_assert_ptr_nonnull(sched);
	/* the block of runnext=0 at procs 2: one run, so its CDF's 50% point
	 * is that run's p50 exactly, and so on up the tail */
	const char *blk = strstr(script, "$cdf_");
	ck_assert_ptr_nonnull(blk);
	char name[64];
	int fig = 0;
	ck_assert_int_eq(sscanf(blk, "$cdf_%d_", &fig), 1);
	snprintf(name, sizeof(name), "$cdf_%d_1 <<", fig);
	static const struct {
		double q;
		const char *path;
	} qs[] = { { 0.5, "sched_latency_ns.p50" }, { 0.9, "sched_latency_ns.p90" },
		   { 0.99, "sched_latency_ns.p99" }, { 0.999, "sched_latency_ns.p999" } };
	for (int i = 0; i < 4; i++)
		ck_assert_double_eq(cdf_at(script, name, qs[i].q), metric(3, qs[i].path));
	/* steal at procs 2 pools seeds 1 and 2: its median lies between
	 * theirs, within the buckets' 1.6% */
	snprintf(name, sizeof(name), "$cdf_%d_0 <<", fig);
	double a = metric(0, "sched_latency_ns.p50"), b = metric(1, "sched_latency_ns.p50");
	double m = cdf_at(script, name, 0.5);
	ck_assert_msg(m >= fmin(a, b) * 0.984 && m <= fmax(a, b) * 1.016,
		      "pooled p50 %g outside the seeds' %g, %g", m, a, b);
	/* and the pooled-quantile table of the text says the same */
	char *html = test_read_file(out);
	char cellv[64], unit[16];
	double p99 = metric(3, "sched_latency_ns.p99"), scale;
	int decimals;
	snprintf(unit, sizeof(unit), "%s", str_ns_unit(p99, &scale, &decimals));
	snprintf(cellv, sizeof(cellv), "<td>%.*f %s</td>", decimals, p99 / scale, unit);
	ck_assert_msg(strstr(html, cellv), "no cell %s", cellv);
	free(html);
	free(script);
}
END_TEST

/* v as a gnuplot data block holds it: the fewest digits (6 or more) that
 * read back as v -- 1978260 is "1.97826e+06". */
static const char *shortest(char buf[32], double v)
{
	for (int digits = 6; digits <= 17; digits++) {
		snprintf(buf, 32, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

START_TEST(report_heatmap_numbers)
{
	char out[256], gp[256];
	snprintf(out, sizeof(out), "%s/h.md", dir);
	snprintf(gp, sizeof(gp), "%s/h.gp", dir);
	char extra[300];
	snprintf(extra, sizeof(extra), "--plot-script '%s'", gp);
	ck_assert_int_eq(report(store, out, extra, NULL), 0);
	char *md = test_read_file(out);
	char *script = test_read_file(gp);
	/* runnext=0 at procs 2 (one run): its table row by row, and the
	 * script's matrix, are the store's numbers */
	const cJSON *mat = cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(reports[3], "metrics"),
							"mechanisms"),
				    "memory"),
		"dram_lines_by_node_home");
	ck_assert_int_eq(cJSON_GetArraySize(mat), 2);
	const char *t = strstr(md, "| steal:runnext=0: node \\\\ home | home 0 | home 1 |");
	ck_assert_msg(t != NULL, "no memory table for steal:runnext=0");
	char line[256], data[256] = "";
	for (int r = 0; r < 2; r++) {
		const cJSON *row = cJSON_GetArrayItem(mat, r);
		snprintf(line, sizeof(line), "| node %d | %.0f | %.0f |", r,
			 cJSON_GetArrayItem(row, 0)->valuedouble, cJSON_GetArrayItem(row, 1)->valuedouble);
		ck_assert_msg(strstr(t, line), "no row %s", line);
		char a[32], b[32];
		size_t n = strlen(data);
		snprintf(data + n, sizeof(data) - n, "%s %s\n",
			 shortest(a, cJSON_GetArrayItem(row, 0)->valuedouble),
			 shortest(b, cJSON_GetArrayItem(row, 1)->valuedouble));
	}
	ck_assert_msg(strstr(script, data), "the script's matrix is not the store's:\n%s", data);
	/* the Markdown links its figures, which are there */
	char fig[300];
	snprintf(fig, sizeof(fig), "%s/h-figures/fig-0001.svg", dir);
	struct stat st;
	ck_assert_int_eq(stat(fig, &st), 0);
	ck_assert_ptr_nonnull(strstr(md, "](h-figures/fig-0001.svg)"));
	free(script);
	free(md);
}
END_TEST

/* Names the report does not choose: a Markdown link to figures beside
 * "my (x) report.md" (percent-encoded, or the link ends at the space), a
 * variant named with a backslash and an SVG attribute: shown as given in
 * the figures' data, its text left alone by the ids' renaming. */
START_TEST(report_odd_names)
{
	char *text = test_read_file(store);
	const char *from = "\"variant\":\"steal:runnext=0\"", *to = "\"variant\":\"a\\\\ ;id='zz'\"";
	char odd[300];
	snprintf(odd, sizeof(odd), "%s/odd.jsonl", dir);
	FILE *f = fopen(odd, "w");
	ck_assert_ptr_nonnull(f);
	int swapped = 0;
	for (const char *p = text, *q; *p; p = q + strlen(from)) {
		q = strstr(p, from);
		if (!q) {
			fputs(p, f);
			break;
		}
		fprintf(f, "%.*s%s", (int)(q - p), p, to);
		swapped++;
	}
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(swapped, 2);
	free(text);

	char out[300], gp[300], extra[400];
	snprintf(out, sizeof(out), "%s/my (x) report.md", dir);
	ck_assert_int_eq(report(odd, out, NULL, NULL), 0);
	char *md = test_read_file(out);
	ck_assert_msg(strstr(md, "](my%20%28x%29%20report-figures/fig-0001.svg)"), "%s", md);
	free(md);
	char fig[400];
	snprintf(fig, sizeof(fig), "%s/my (x) report-figures/fig-0001.svg", dir);
	struct stat st;
	ck_assert_int_eq(stat(fig, &st), 0);

	snprintf(out, sizeof(out), "%s/odd.html", dir);
	snprintf(gp, sizeof(gp), "%s/odd.gp", dir);
	snprintf(extra, sizeof(extra), "--plot-script '%s'", gp);
	ck_assert_int_eq(report(odd, out, extra, NULL), 0);
	char *script = test_read_file(gp);
	const char *z = strstr(script, "zz'");
	ck_assert_msg(strstr(script, "a\\\\ ;id='zz'"), "the label's backslash not doubled: %.200s",
		      z ? z - 40 : script);
	free(script);
	ck_assert_int_eq(report(odd, out, NULL, NULL), 0);
	char *html = test_read_file(out);
	ck_assert_ptr_nonnull(strstr(html, "id='f1-gpDot'"));
	ck_assert_msg(!strstr(html, "-zz'"), "a label's text renamed as an id");
	free(html);
}
END_TEST

START_TEST(report_deterministic)
{
	char a[256], b[256];
	for (int form = 0; form < 2; form++) {
		snprintf(a, sizeof(a), "%s/d1.%s", dir, form ? "md" : "html");
		snprintf(b, sizeof(b), "%s/d2.%s", dir, form ? "md" : "html");
		ck_assert_int_eq(report(store, a, NULL, NULL), 0);
		ck_assert_int_eq(report(store, b, NULL, NULL), 0);
		char *x = test_read_file(a), *y = test_read_file(b);
		if (form) {
			/* the same but for the figures' folder's name */
			char *p;
			while ((p = strstr(y, "d2-figures")))
				p[1] = '1';
		}
		ck_assert_msg(strcmp(x, y) == 0, "two reports of one store differ (%s)", a);
		free(x);
		free(y);
	}
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "cmp -s %s/d1-figures/fig-0003.svg %s/d2-figures/fig-0003.svg", dir,
		 dir);
	ck_assert_int_eq(test_run(cmd, NULL, NULL), 0);
}
END_TEST

/* Sets the number at a dotted path below a report's metrics. */
static void set_metric(cJSON *report, const char *path, double v)
{
	cJSON *o = cJSON_GetObjectItem(report, "metrics");
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	char *dot = strchr(buf, '.');
	if (dot) {
		*dot = '\0';
		o = cJSON_GetObjectItem(o, buf);
	}
	ck_assert_ptr_nonnull(o);
	cJSON *n = cJSON_GetObjectItem(o, dot ? dot + 1 : buf);
	ck_assert_msg(cJSON_IsNumber(n), "metric %s", path);
	cJSON_SetNumberValue(n, v);
}

/* A store of variants a and b over seeds 1..nseeds, b's request p99 10%
 * under a's at every seed, p50 equal, makespan 2% up at odd seeds and 1%
 * down at even ones; the report's text in *text. */
static void headline_store(int nseeds, const char *out, char **text)
{
	char in[256];
	snprintf(in, sizeof(in), "%s/head%d.jsonl", dir, nseeds);
	FILE *f = fopen(in, "w");
	ck_assert_ptr_nonnull(f);
	for (int v = 0; v < 2; v++)
		for (int sd = 1; sd <= nseeds; sd++) {
			cJSON *rep = cJSON_Duplicate(reports[0], true);
			double p99 = 1e6 + 1000.0 * sd;
			set_metric(rep, "request_latency_ns.p99", v ? 0.9 * p99 : p99);
			set_metric(rep, "request_latency_ns.p50", 5e5);
			set_metric(rep, "makespan_ns", 1e8 + (v ? (sd % 2 ? 2e6 : -1e6) : 0));
			char *rowtext = row_text(0, "ok", rep);
			cJSON *row = cJSON_Parse(rowtext);
			free(rowtext);
			cJSON_Delete(rep);
			cJSON_ReplaceItemInObject(row, "variant", cJSON_CreateString(v ? "b" : "a"));
			cJSON_ReplaceItemInObject(row, "index", cJSON_CreateNumber(v * nseeds + sd));
			cJSON *inputs = cJSON_GetObjectItem(row, "inputs");
			cJSON_ReplaceItemInObject(inputs, "seed", cJSON_CreateNumber(sd));
			if (v)
				cJSON_AddNumberToObject(cJSON_GetObjectItem(inputs, "set"), "runnext", 0);
			char *line = cJSON_PrintUnformatted(row);
			fprintf(f, "%s\n", line);
			free(line);
			cJSON_Delete(row);
		}
	ck_assert_int_eq(fclose(f), 0);
	char *err = NULL;
	ck_assert_msg(report(in, out, NULL, &err) == 0, "report: %s", err);
	free(err);
	*text = test_read_file(out);
}

/* The headline names the best variant on each headline metric with its
 * change against the runner-up, and says from the paired seeds whether it
 * is significant; a tie is said as one; too few seeds are said. */
START_TEST(report_headline_verdicts)
{
	char out[256], *html;
	snprintf(out, sizeof(out), "%s/head.html", dir);
	headline_store(6, out, &html);
	static const char *const want[] = {
		"id=\"glance\"", "<table class=\"glance\">",
		"<li data-metric=\"request_latency_ns.p99\" data-best=\"b\" data-significant=\"yes\">"
		"<b>b</b> best on request latency p99:",
		"-10.0% against a", "significant (p=0.0312; 6 seeds paired)",
		"<li data-metric=\"request_latency_ns.p50\" data-best=\"a\" data-significant=\"no\">"
		"a and b tie on request latency p50: 500.0 us.",
		"<li data-metric=\"makespan_ns\"", "~ not significant (p=",
		"<td class=\"sig\">b -10.0%</td><td class=\"l\">tie</td>",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(html, want[i]), "the report lacks %s", want[i]);
	ck_assert_ptr_null(strstr(html, "cannot show a difference"));
	free(html);
	/* three seeds: no difference can be significant, and the report says so */
	snprintf(out, sizeof(out), "%s/head3.md", dir);
	char *md;
	headline_store(3, out, &md);
	ck_assert_ptr_nonnull(strstr(md, "**b** best on request latency p99"));
	ck_assert_ptr_nonnull(strstr(md, "3 seeds paired, 3 differing: at 6 or more"));
	ck_assert_ptr_nonnull(strstr(md, "| b -10.0% ~ | tie |"));
	ck_assert_ptr_nonnull(strstr(md, "cannot show a difference at p \\<= 0.05 (the smallest "
					 "two-sided p of 3 pairs is 0.25)"));
	free(md);
}
END_TEST

/* What the report shows in human units and on shared scales: latency
 * against procs on a log axis, a scenario's heat maps on one colour
 * scale, the CDF tables' quantiles in their unit. */
START_TEST(report_reads_at_a_glance)
{
	char out[256], gp[256], extra[300];
	snprintf(out, sizeof(out), "%s/g.html", dir);
	snprintf(gp, sizeof(gp), "%s/g.gp", dir);
	snprintf(extra, sizeof(extra), "--plot-script '%s'", gp);
	ck_assert_int_eq(report(store, out, extra, NULL), 0);
	char *script = test_read_file(gp), *html = test_read_file(out);
	/* the request p99 figure against procs: log y, no forced 0 */
	const char *fig = strstr(script, "set ylabel 'request latency p99'");
	ck_assert_ptr_nonnull(fig);
	const char *plot = strstr(fig, "\nplot ");
	ck_assert_ptr_nonnull(plot);
	const char *log = strstr(fig, "set logscale y 10");
	ck_assert_msg(log && log < plot, "request latency p99 against procs is not on a log axis");
	/* every heat map of scenario 1 (two variants at 2 Ps) has one cbrange */
	const char *c1 = strstr(script, "set cbrange [0:");
	ck_assert_ptr_nonnull(c1);
	const char *c2 = strstr(c1 + 1, "set cbrange [0:");
	ck_assert_ptr_nonnull(c2);
	ck_assert_int_eq(strcspn(c1, "\n"), strcspn(c2, "\n"));
	ck_assert_int_eq(strncmp(c1, c2, strcspn(c1, "\n")), 0);
	ck_assert_int_ne(c1[strlen("set cbrange [0:")], '*');
	/* the quantile tables: no raw nanoseconds past 10 us */
	const char *q = strstr(html, "<table class=\"quantiles\">");
	ck_assert_ptr_nonnull(q);
	const char *qend = strstr(q, "</table>");
	for (const char *p = q; p < qend; p++) {
		if (strncmp(p, " ns<", 4) != 0)
			continue;
		const char *b = p;
		while (b > q && b[-1] >= '0' && b[-1] <= '9')
			b--;
		ck_assert_msg(p - b <= 4, "a quantile in raw ns: %.*s", (int)(p - b + 3), b);
	}
	ck_assert_ptr_nonnull(strstr(q, " ms</td>"));
	free(script);
	free(html);
}
END_TEST

/* A store of one line of text; the report's exit status and message. */
static void bad(const char *text, int line, const char *path_and_why)
{
	char in[256], out[256];
	snprintf(in, sizeof(in), "%s/bad.jsonl", dir);
	snprintf(out, sizeof(out), "%s/bad.html", dir);
	FILE *f = fopen(in, "w");
	ck_assert_ptr_nonnull(f);
	/* a good row first, so the line number counts */
	char *good = row_text(2, "ok", reports[2]);
	for (int i = 1; i < line; i++)
		fprintf(f, "%s\n", good);
	free(good);
	fputs(text, f);
	fclose(f);
	char *err = NULL;
	ck_assert_int_eq(report(in, out, NULL, &err), 2);
	char want[512];
	snprintf(want, sizeof(want), "bad.jsonl:%d: %s", line, path_and_why);
	ck_assert_msg(strstr(err, want), "expected '%s' in: %s", want, err);
	ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
	free(err);
	struct stat st;
	ck_assert_msg(stat(out, &st) != 0, "a failed report left %s", out);
}

/* sweep --why's rows: a table per scenario of the mean wait by cause,
 * each cell the mean over the seeds of the rows' own figures; a "why" of
 * the wrong shape is refused naming its path; natively refused. */
START_TEST(report_why_table)
{
	char in[256], out[256];
	snprintf(in, sizeof(in), "%s/why.jsonl", dir);
	snprintf(out, sizeof(out), "%s/why.md", dir);
	char args[600], *err = NULL;
	snprintf(args, sizeof(args), "sweep -p global,steal -t numa2 -w rpc-server --procs 8 "
		 "--seeds 2 --why --json %s", in);
	ck_assert_msg(test_schedlab(args, NULL, &err) == 0, "%s", err);
	free(err);
	ck_assert_int_eq(report(in, out, NULL, NULL), 0);
	char *md = test_read_file(out), *text = test_read_file(in);
	const char *t = strstr(md, "### Where the waits went");
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(strstr(t, "| cause | global | steal |"));
	/* global's mean wait: the mean of its two rows' why.all.mean_ns */
	double sum = 0, rq_sum = 0;
	int n = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		cJSON *row = cJSON_Parse(line);
		if (strcmp(cJSON_GetObjectItem(row, "variant")->valuestring, "global") == 0) {
			const cJSON *why = cJSON_GetObjectItem(cJSON_GetObjectItem(row, "report"), "why");
			sum += cJSON_GetObjectItem(cJSON_GetObjectItem(why, "all"), "mean_ns")->valuedouble;
			rq_sum += cJSON_GetObjectItem(cJSON_GetObjectItem(why, "requests"),
						      "mean_ns")->valuedouble;
			n++;
		}
		cJSON_Delete(row);
	}
	ck_assert_int_eq(n, 2);
	double scale;
	int decimals;
	const char *unit = str_ns_unit(sum / n, &scale, &decimals);
	char want[128];
	snprintf(want, sizeof(want), "| mean wait | %.*f %s \xc2\xb1", decimals, sum / n / scale, unit);
	ck_assert_msg(strstr(t, want), "no '%s' in %.400s", want, t);
	ck_assert_ptr_nonnull(strstr(t, "| sched\\_lock |"));
	/* and a request's time by cause: the mean of the rows' why.requests */
	const char *rq = strstr(t, "### Where the requests' time went");
	ck_assert_ptr_nonnull(rq);
	unit = str_ns_unit(rq_sum / n, &scale, &decimals);
	snprintf(want, sizeof(want), "| mean request | %.*f %s \xc2\xb1", decimals,
		 rq_sum / n / scale, unit);
	ck_assert_msg(strstr(rq, want), "no '%s' in %.400s", want, rq);
	ck_assert_ptr_nonnull(strstr(rq, "| unpolled |"));
	free(text);
	free(md);
	/* without --why: no such section */
	ck_assert_int_eq(report(store, out, NULL, NULL), 0);
	md = test_read_file(out);
	ck_assert_ptr_null(strstr(md, "Where the waits went"));
	free(md);
	ck_assert_int_eq(test_schedlab("sweep -p steal -t host -w pingpong --native --why", NULL,
				       &err), 2);
	ck_assert_msg(strstr(err, "--why"), "%s", err);
	free(err);
}
END_TEST

START_TEST(report_bad_input)
{
	bad("{\"store\": 1, \"variant\": \n", 2, "not JSON (at column");
	bad("[1, 2]\n", 1, "a row is a JSON object");
	
	char *row = row_text(2, "ok", reports[2]);
	/* wrong types and values, found by path */
	static const struct {
		const char *from, *to, *why;
	} edits[] = {
		{ "\"procs\":4", "\"procs\":\"4\"", ".inputs.procs: expected a number" },
		{ "\"procs\":4", "\"procs\":4.5", ".inputs.procs: expected a whole number" },
		{ "\"status\":\"ok\"", "\"status\":\"fine\"", ".status: \"fine\" is not one of" },
		{ "\"store\":1", "\"store\":2", ".store: 2 is not a store row version" },
		{ "\"mode\":\"sim\"", "\"mode\":\"fast\"", ".inputs.mode: 'fast' is not a mode" },
		{ "\"buckets\":[[", "\"buckets\":[[-3,1],[", ".report.metrics.sched_latency_ns.buckets[0][0]" },
		{ "\"dram_lines_by_node_home\":[[", "\"dram_lines_by_node_home\":[[1],[",
		  ".report.metrics.mechanisms.memory.dram_lines_by_node_home[0]: expected a row of 3" },
		{ "\"p99\":", "\"p99\":\"x\",\"q\":", ".report.metrics.sched_latency_ns.p99: expected a number" },
		/* a seed past 2^53 is not what a double holds (nor a uint64 after 2^64) */
		{ "\"seed\":", "\"seed\":18446744073709551615,\"x\":",
		  ".inputs.seed: expected a whole number from 0 to 9007199254740992" },
		{ "\"seed\":", "\"seed\":9007199254740994,\"x\":",
		  ".inputs.seed: expected a whole number from 0 to 9007199254740992" },
	};
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		char *at = strstr(row, edits[i].from);
		ck_assert_msg(at != NULL, "%s not in the row", edits[i].from);
		char *text = NULL;
		ck_assert_int_ge(asprintf(&text, "%.*s%s%s\n", (int)(at - row), row, edits[i].to,
					  at + strlen(edits[i].from)), 0);
		bad(text, 2, edits[i].why);
		free(text);
	}
	free(row);
	/* a status ok without a report */
	char *noreport = row_text(2, "ok", NULL);
	bad(noreport, 1, ".report: a row whose status is ok has a report");
	free(noreport);
	/* no such store; no -o */
	char *err = NULL;
	ck_assert_int_eq(test_schedlab("report /nonexistent/store.jsonl -o /tmp/x.html", NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/store.jsonl"));
	free(err);
	/* an endless file stops at its first NUL, not at the kernel's hand */
	ck_assert_int_eq(test_schedlab("report /dev/zero -o /tmp/x.html", NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "/dev/zero:1: a NUL byte"));
	free(err);
	ck_assert_int_eq(test_schedlab("report store.jsonl", NULL, NULL), 2);
	ck_assert_int_eq(test_schedlab("report store.jsonl -o r.pdf", NULL, NULL), 2);
	/* a run --why's object of the wrong shape */
	{
		cJSON *rep = cJSON_Duplicate(reports[2], true);
		cJSON *why = cJSON_AddObjectToObject(rep, "why");
		cJSON *all = cJSON_AddObjectToObject(why, "all");
		cJSON_AddStringToObject(all, "mean_ns", "soon");
		char *wrow = row_text(2, "ok", rep);
		char *line = xasprintf("%s\n", wrow);
		bad(line, 2, ".report.why.all.mean_ns");
		free(line);
		free(wrow);
		/* ... and a request's */
		cJSON_ReplaceItemInObject(all, "mean_ns", cJSON_CreateNumber(1));
		cJSON_AddObjectToObject(all, "causes");
		cJSON *rqo = cJSON_AddObjectToObject(why, "requests");
		cJSON_AddNumberToObject(rqo, "mean_ns", 5);
		cJSON *causes = cJSON_AddObjectToObject(rqo, "causes");
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(causes, "unpolled"), "mean_ns", -1);
		wrow = row_text(2, "ok", rep);
		line = xasprintf("%s\n", wrow);
		bad(line, 2, ".report.why.requests.causes.unpolled.mean_ns");
		free(line);
		free(wrow);
		cJSON_Delete(rep);
	}
}
END_TEST

START_TEST(report_empty_and_missing)
{
	char in[256], out[256];
	snprintf(in, sizeof(in), "%s/empty.jsonl", dir);
	snprintf(out, sizeof(out), "%s/empty.html", dir);
	FILE *f = fopen(in, "w");
	fclose(f);
	/* a store of no rows is refused, as merge refuses it */
	char *err = NULL;
	ck_assert_int_eq(report(in, out, NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "the store holds no rows"));
	free(err);
	ck_assert_int_eq(access(out, F_OK), -1);
	/* a run without a memory matrix or request latency: said, not drawn */
	cJSON *r = cJSON_Duplicate(reports[2], true);
	cJSON *m = cJSON_GetObjectItem(r, "metrics");
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(m, "mechanisms"), "memory");
	cJSON_DeleteItemFromObject(m, "request_latency_ns");
	char *row = row_text(2, "ok", r);
	cJSON_Delete(r);
	snprintf(in, sizeof(in), "%s/nomem.jsonl", dir);
	f = fopen(in, "w");
	fprintf(f, "%s\n", row);
	fclose(f);
	free(row);
	ck_assert_int_eq(report(in, out, NULL, NULL), 0);
	char *html = test_read_file(out);
	ck_assert_ptr_nonnull(strstr(html, "measured memory by node"));
	ck_assert_ptr_nonnull(strstr(html, "no heat map"));
	ck_assert_ptr_null(strstr(html, "request latency CDF"));
	ck_assert_ptr_nonnull(strstr(html, "scheduling latency CDF"));
	ck_assert_ptr_null(strstr(html, "id=\"scaling-procs\""));   /* one P count */
	free(html);
	/* gnuplot missing: said, exit 2 */
	err = NULL;
	char args[600];
	snprintf(args, sizeof(args), "report '%s' -o '%s'", store, out);
	char cmd[800];
	snprintf(cmd, sizeof(cmd), "SCHEDLAB_GNUPLOT=/nonexistent/gnuplot %s %s", test_schedlab_bin(),
		 args);
	ck_assert_int_eq(test_run(cmd, NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "gnuplot"));
	free(err);
}
END_TEST

/* row text with from replaced by to (malloc'd); from must be there. */
static char *edited(const char *row, const char *from, const char *to)
{
	const char *at = strstr(row, from);
	ck_assert_msg(at != NULL, "%s not in the row", from);
	return xasprintf("%.*s%s%s", (int)(at - row), row, to, at + strlen(from));
}

/* A store of n scenarios (run 2's row at procs 1..n, each its own run of
 * the matrix): gnuplot has n of each figure to draw. */
static char *many_scenarios(int n)
{
	char *path = xasprintf("%s/many.jsonl", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	char *row = row_text(2, "ok", reports[2]);
	for (int k = 1; k <= n; k++) {
		char procs[32], index[32];
		snprintf(procs, sizeof(procs), "\"procs\":%d", k);
		snprintf(index, sizeof(index), "\"index\":%d", 100 + k);
		char *a = edited(row, "\"procs\":4", procs), *b = edited(a, "\"index\":2", index);
		fprintf(f, "%s\n", b);
		free(a);
		free(b);
	}
	free(row);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

/* The first folder in where holding a figure gnuplot wrote (where a
 * report's temporary folder is, or, before reports kept it beside
 * themselves, TMPDIR's schedlab-report-XXXXXX): gnuplot is at work. */
static bool gnuplot_at_work(const char *where)
{
	DIR *d = opendir(where);
	ck_assert_ptr_nonnull(d);
	bool seen = false;
	for (struct dirent *de; !seen && (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		char *fig = xasprintf("%s/%s/fig-0001.svg", where, de->d_name);
		seen = access(fig, F_OK) == 0;
		free(fig);
	}
	closedir(d);
	return seen;
}

/* A run given twice: counted once when the rows are the same (the report
 * is the report of the store without the copy), refused with exit 2
 * naming both lines when they differ -- merge's rule, by merge's code. */
START_TEST(report_duplicate_rows)
{
	char *text = test_read_file(store);
	const char *second = strchr(text, '\n') + 1;
	char *sub[3];
	for (int k = 0; k < 3; k++) {
		sub[k] = xasprintf("%s/dup%d", dir, k);
		ck_assert_int_eq(mkdir(sub[k], 0777), 0);
	}
	/* 0: the store; 1: its first row again at the end; 2: that row again
	 * with another seed's result */
	char *path = xasprintf("%s/s.jsonl", sub[0]);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	free(path);
	path = xasprintf("%s/s.jsonl", sub[1]);
	f = fopen(path, "w");
	fprintf(f, "%s%.*s", text, (int)(second - text), text);
	ck_assert_int_eq(fclose(f), 0);
	free(path);
	char *other = row_text(0, "ok", reports[1]);
	path = xasprintf("%s/s.jsonl", sub[2]);
	f = fopen(path, "w");
	fprintf(f, "%s%s\n", text, other);
	ck_assert_int_eq(fclose(f), 0);
	free(path);
	free(other);
	char *err = NULL;
	for (int k = 0; k < 3; k++) {
		int rc = test_runf(NULL, &err, "cd '%s' && '%s' report s.jsonl -o r.html", sub[k],
				   test_schedlab_bin());
		ck_assert_msg(rc == (k == 2 ? 2 : 0), "store %d: exit %d: %s", k, rc, err);
		free(err);
	}
	path = xasprintf("%s/r.html", sub[0]);
	char *once = test_read_file(path);
	free(path);
	path = xasprintf("%s/r.html", sub[1]);
	char *twice = test_read_file(path);
	free(path);
	ck_assert_msg(strcmp(once, twice) == 0, "a row given twice counted twice");
	free(once);
	free(twice);
	test_runf(NULL, &err, "cd '%s' && '%s' report s.jsonl -o r.html", sub[2], test_schedlab_bin());
	ck_assert_msg(strstr(err, "run 0 of matrix 00112233aabbccdd differs between s.jsonl:1 and "
			      "s.jsonl:7") && strchr(err, '\n') == err + strlen(err) - 1, "%s", err);
	free(err);
	path = xasprintf("%s/r.html", sub[2]);
	ck_assert_int_eq(access(path, F_OK), -1);
	free(path);
	/* merge says the same of the same store */
	test_runf(NULL, &err, "cd '%s' && '%s' merge s.jsonl -o m.jsonl", sub[2], test_schedlab_bin());
	ck_assert_msg(strstr(err, "run 0 of matrix 00112233aabbccdd differs between s.jsonl:1 and "
			      "s.jsonl:7"), "%s", err);
	free(err);
	for (int k = 0; k < 3; k++)
		free(sub[k]);
	free(text);
}
END_TEST

/* A path the report must make that is a file: one line naming the path
 * and what is wrong, exit 2, nothing made (the figures' folder once gave
 * "gnuplot failed ... no message"). */
START_TEST(report_paths_that_are_files)
{
	char *file = xasprintf("%s/plain", dir);
	FILE *f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fclose(f), 0);
	char *figs = xasprintf("%s/f-figures", dir);
	f = fopen(figs, "w");
	ck_assert_ptr_nonnull(f);
	fputs("mine\n", f);
	ck_assert_int_eq(fclose(f), 0);
	struct {
		char *out, *extra;
		const char *why;
	} cases[] = {
		{ xasprintf("%s/f.md", dir), NULL,
		  "the figures' folder %s/f-figures: there is a file of that name, not a folder" },
		{ xasprintf("%s/plain/r.html", dir), NULL, "%s/plain/r.html" },
		{ xasprintf("%s/p.html", dir), xasprintf("--plot-script '%s'", dir),
		  "--plot-script %s: Is a directory" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *err = NULL;
		ck_assert_int_eq(report(store, cases[k].out, cases[k].extra, &err), 2);
		char *want = xasprintf(cases[k].why, dir);
		ck_assert_msg(strstr(err, want) && strchr(err, '\n') == err + strlen(err) - 1,
			      "expected one line with '%s': %s", want, err);
		ck_assert_msg(!strstr(err, "gnuplot"), "%s", err);
		ck_assert_int_eq(access(cases[k].out, F_OK), -1);
		free(want);
		free(err);
		free(cases[k].out);
		free(cases[k].extra);
	}
	char *text = test_read_file(figs);
	ck_assert_str_eq(text, "mine\n");
	free(text);
	/* nothing left beside them */
	DIR *d = opendir(dir);
	for (struct dirent *de; (de = readdir(d));)
		ck_assert_msg(!strstr(de->d_name, ".tmp-"), "left in %s: %s", dir, de->d_name);
	closedir(d);
	unlink(figs);
	unlink(file);
	free(figs);
	free(file);
}
END_TEST

/* A gnuplot that draws the report's figures, then pauses 30 s: a signal
 * sent once it has drawn one always finds it at work. */
static char *slow_gnuplot(int i)
{
	char *prog = xasprintf("%s/slowgp%d", dir, i), *gp = xasprintf("%s/slow%d.gp", dir, i);
	char *text = xasprintf("#!/bin/sh\nprintf \"load '%%s'\\npause 30\\n\" \"$2\" >'%s'\n"
			       "exec gnuplot -d '%s'\n", gp, gp);
	FILE *f = fopen(prog, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(prog, 0755), 0);
	free(text);
	free(gp);
	return prog;
}

/* SIGINT or SIGTERM while gnuplot works on a store of many scenarios:
 * gnuplot killed and reaped (this process is a subreaper, so one left
 * running would be its child now), no temporary folder left (TMPDIR is
 * the report's folder, where older builds made theirs), no report, exit
 * 128 + the signal and a line that says so.  _i: 0 SIGINT, 1 SIGTERM. */
START_TEST(report_interrupted_leaves_nothing)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	int sig = _i ? SIGTERM : SIGINT;
	char *in = many_scenarios(REP_MAX_SCENARIO_FIGS);
	char *where = xasprintf("%s/stop%d", dir, _i), *out = xasprintf("%s/r.html", where);
	char *gnuplot = slow_gnuplot(_i);
	ck_assert_int_eq(mkdir(where, 0777), 0);
	int errp[2];
	ck_assert_int_eq(pipe(errp), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);   /* whoever ran the tests may ignore it */
		signal(SIGTERM, SIG_DFL);
		setenv("TMPDIR", where, 1);
		setenv("SCHEDLAB_GNUPLOT", gnuplot, 1);
		dup2(errp[1], STDERR_FILENO);
		close(errp[0]);
		execl(test_schedlab_bin(), "schedlab", "report", in, "-o", out, (char *)NULL);
		_exit(127);
	}
	close(errp[1]);
	/* the sign: gnuplot's first figure; 60 s at most */
	bool working = false;
	for (int t = 0; t < 6000 && !(working = gnuplot_at_work(where)); t++)
		usleep(10000);
	ck_assert_msg(working, "gnuplot never wrote a figure");
	ck_assert_int_eq(kill(pid, sig), 0);
	char text[4096];
	size_t len = 0;
	ssize_t r;
	while ((r = read(errp[0], text + len, sizeof(text) - 1 - len)) > 0 ||
	       (r < 0 && errno == EINTR))
		len += r > 0 ? (size_t)r : 0;
	text[len] = '\0';
	close(errp[0]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sig, "status %#x: %s",
		      status, text);
	ck_assert_msg(strstr(text, sig == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM"),
		      "%s", text);
	ck_assert_msg(strchr(text, '\n') == text + len - 1, "not one line: %s", text);
	/* no gnuplot outlived it, running or unreaped */
	errno = 0;
	ck_assert_int_eq(waitpid(-1, &status, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	DIR *d = opendir(where);
	for (struct dirent *de; (de = readdir(d));)
		ck_assert_msg(de->d_name[0] == '.', "left in %s: %s", where, de->d_name);
	closedir(d);
	free(gnuplot);
	free(where);
	free(out);
	free(in);
}
END_TEST

Suite *make_report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");
	tcase_add_unchecked_fixture(tc, store_setup, store_teardown);
	tcase_set_timeout(tc, 300);
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, report_sections);
	tcase_add_test(tc, report_cdf_from_histograms);
	tcase_add_test(tc, report_heatmap_numbers);
	tcase_add_test(tc, report_deterministic);
	tcase_add_test(tc, report_headline_verdicts);
	tcase_add_test(tc, report_why_table);
	tcase_add_test(tc, report_reads_at_a_glance);
	tcase_add_test(tc, report_odd_names);
	tcase_add_test(tc, report_bad_input);
	tcase_add_test(tc, report_empty_and_missing);
	tcase_add_test(tc, report_duplicate_rows);
	tcase_add_test(tc, report_paths_that_are_files);
	tcase_add_loop_test(tc, report_interrupted_leaves_nothing, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
