/* `schedlab merge`: results stores -- whole ones, or the one-row files
 * the jobs of `sweep --emit-jobs` write -- gathered into one, rows sorted
 * by (matrix, index) [docs/experiments.md, "merge"]. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "exp/store.h"

#define CMD "merge"

void cli_help_merge(FILE *f)
{
	fprintf(f,
		"usage: schedlab merge FILE|DIR... -o STORE\n"
		"\n"
		"Gathers results stores (JSON lines, as sweep --json and compare --store write\n"
		"them) into one: every row of every FILE, and of every *.jsonl file in a DIR\n"
		"(the folder of `sweep --emit-jobs`'s jobs), sorted by matrix and then by index.\n"
		"A row found twice is kept once; two different rows for the same run of a\n"
		"matrix are refused, naming both files and lines.  The same runs give the same\n"
		"store, byte for byte, whether made by one sweep or by its jobs merged.\n"
		"\n");
	cli_opts_help(f, cli_merge_opts, 20);
	fprintf(f,
		"\n"
		"Exit status: 0 the store is written and every matrix in it is whole; 1 it is\n"
		"written but runs of a matrix are missing (listed on stderr: a job that did not\n"
		"run or did not finish); 2 bad input (a file that is not a store, a conflict).\n");
}

struct entry {
	cJSON *row;
	const char *matrix;
	double index;
	long file, line, order;
	char *text;
};

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int c = strcmp(a->matrix, b->matrix);
	if (c)
		return c;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int jsonl_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return d->d_name[0] != '.' && n > 6 && strcmp(d->d_name + n - 6, ".jsonl") == 0;
}

static void push_file(char ***files, long *nfiles, long *cap, char *path)
{
	if (*nfiles == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*files = xrealloc(*files, (size_t)*cap * sizeof(**files));
	}
	(*files)[(*nfiles)++] = path;
}

/* The files a FILE argument names: itself, or a folder's *.jsonl files in
 * order, appended to *files.  0, or a usage error's status. */
static int add_files(const char *a, char ***files, long *nfiles, long *cap)
{
	struct stat st;
	if (!(stat(a, &st) == 0 && S_ISDIR(st.st_mode))) {
		push_file(files, nfiles, cap, xstrdup(a));
		return 0;
	}
	struct dirent **list;
	int n = scandir(a, &list, jsonl_filter, alphasort);
	if (n < 0)
		return cli_usage_error(CMD, "%s: cannot read the folder", a);
	for (int k = 0; k < n; k++) {
		push_file(files, nfiles, cap, xasprintf("%s/%s", a, list[k]->d_name));
		free(list[k]);
	}
	free(list);
	return n == 0 ? cli_usage_error(CMD, "%s: no *.jsonl file in the folder", a) : 0;
}

/* ents sorted by (matrix, index): the rows kept into rows, a row given
 * twice once; two different rows of one run are refused (exit 2). */
static int dedupe(const struct entry *ents, long n, char *const *files, cJSON **rows, long *kept)
{
	*kept = 0;
	for (long i = 0; i < n; i++) {
		if (i > 0 && strcmp(ents[i].matrix, ents[i - 1].matrix) == 0 &&
		    ents[i].index == ents[i - 1].index) {
			if (strcmp(ents[i].text, ents[i - 1].text) != 0) {
				char *a = str_shown(files[ents[i - 1].file], 256);
				char *b = str_shown(files[ents[i].file], 256);
				fprintf(stderr, "schedlab %s: run %.0f of matrix %s differs between %s:%ld "
					"and %s:%ld (two runs of the same cell that did not give the same "
					"row: different schedlab builds, or a native run?)\n", CMD,
					ents[i].index, ents[i].matrix, a, ents[i - 1].line, b, ents[i].line);
				free(a);
				free(b);
				return EXIT_BADINPUT;
			}
			continue;
		}
		rows[(*kept)++] = ents[i].row;
	}
	return 0;
}

/* Says on stderr which runs each matrix lacks (rows say how many runs it
 * has; the reader holds index < runs <= EXP_MAX_RUNS): the total less the
 * rows there are, the first 20 listed from the gaps.  True if any does. */
static bool report_missing(cJSON *const *rows, long kept)
{
	bool missing = false;
	for (long i = 0; i < kept;) {
		const char *m = cJSON_GetObjectItem(rows[i], "matrix")->valuestring;
		long total = 0, j = i, have = 0, expect = 0, shown = 0;
		char list[512] = "";
		size_t used = 0;
		for (; j < kept && strcmp(cJSON_GetObjectItem(rows[j], "matrix")->valuestring, m) == 0; j++) {
			const cJSON *rj = cJSON_GetObjectItem(rows[j], "runs");
			if (cJSON_IsNumber(rj) && (long)rj->valuedouble > total)
				total = (long)rj->valuedouble;
			long idx = (long)cJSON_GetObjectItem(rows[j], "index")->valuedouble;
			if (idx + 1 > total)
				total = idx + 1;
			for (; expect < idx && shown < 20; expect++, shown++)
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%ld",
							 used ? ", " : "", expect);
			expect = idx + 1;
			have++;
		}
		for (; expect < total && shown < 20; expect++, shown++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%ld",
						 used ? ", " : "", expect);
		long nmiss = total - have;
		if (nmiss > 0) {
			missing = true;
			fprintf(stderr, "schedlab %s: matrix %s: %ld of its %ld runs missing: %s%s\n", CMD,
				m, nmiss, total, list, nmiss > 20 ? ", ..." : "");
		}
		i = j;
	}
	return missing;
}

/* Every file's rows, read whole, sorted, deduplicated and written to out:
 * 0, 1 (runs missing: the store is written), or 2. */
static int merge(char *const *files, long nfiles, const char *out)
{
	int rc = 0;
	struct exp_store **stores = xcalloc((size_t)nfiles, sizeof(*stores));
	long nrows = 0;
	for (long f = 0; f < nfiles && rc == 0; f++) {
		struct err e = { "" };
		stores[f] = exp_store_read(files[f], &e);
		if (!stores[f])
			rc = cli_cmd_input_error(CMD, &e);
		else
			nrows += stores[f]->nrows;
	}
	struct entry *ents = xcalloc((size_t)(nrows ? nrows : 1), sizeof(*ents));
	long n = 0;
	for (long f = 0; f < nfiles && rc == 0; f++)
		for (long r = 0; r < stores[f]->nrows; r++) {
			cJSON *row = stores[f]->rows[r];
			ents[n] = (struct entry){
				.row = row,
				.matrix = cJSON_GetObjectItem(row, "matrix")->valuestring,
				.index = cJSON_GetObjectItem(row, "index")->valuedouble,
				.file = f, .line = stores[f]->lines[r], .order = n,
				.text = exp_json_line(row),
			};
			n++;
		}
	if (rc == 0 && n == 0)
		rc = cli_usage_error(CMD, "the files given hold no rows");
	if (rc == 0)
		qsort(ents, (size_t)n, sizeof(*ents), entry_cmp);
	cJSON **rows = xcalloc((size_t)(n ? n : 1), sizeof(*rows));
	long kept = 0;
	if (rc == 0)
		rc = dedupe(ents, n, files, rows, &kept);
	bool missing = rc == 0 && report_missing(rows, kept);
	if (rc == 0) {
		size_t len = strlen(out);
		rc = exp_store_save(CMD, "-o", out, len > 4 && strcmp(out + len - 4, ".csv") == 0, rows,
				    kept);
	}
	if (rc == 0 && missing)
		rc = EXIT_FOUND;
	for (long i = 0; i < n; i++)
		free(ents[i].text);
	free(ents);
	free(rows);
	for (long f = 0; f < nfiles; f++)
		exp_store_free(stores[f]);
	free(stores);
	return rc;
}

/* What merge's line gives. */
struct merge_args {
	const char *out;
	char **files;
	long nfiles, cap;
};

const struct cli_opt cli_merge_opts[] = {
	CLI_STRING("-o", "--output", "STORE", struct merge_args, out,
		   "the store to write: CSV if its name ends in .csv, else\n"
		   "JSON lines (docs/experiments.md)"),
	CLI_END,
};

static int merge_arg(void *ctx, const char *a)
{
	struct merge_args *m = ctx;
	return add_files(a, &m->files, &m->nfiles, &m->cap);
}

int cmd_merge(int argc, char **argv)
{
	struct merge_args m = { 0 };
	const struct cli_parser p = {
		.cmd = CMD, .opts = cli_merge_opts, .ctx = &m, .help = cli_help_merge, .arg = merge_arg,
	};
	bool help;
	int rc = cli_parse(&p, argc, argv, &help);
	const char *out = m.out;
	char **files = m.files;
	long nfiles = m.nfiles;
	if (rc || help)
		goto done;
	if (!out)
		rc = cli_usage_error(CMD, "missing -o STORE");
	else if (nfiles == 0)
		rc = cli_usage_error(CMD, "no FILE to merge");
	else {
		for (long f = 0; f < nfiles; f++)
			cli_in_note(files[f]);
		if (strcmp(out, "-") == 0 || (rc = cli_out_claim(CMD, "-o", out)) == 0)
			rc = merge(files, nfiles, out);
	}
done:
	for (long f = 0; f < nfiles; f++)
		free(files[f]);
	free(files);
	return rc;
}
