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

/* Says on stderr which runs each matrix lacks (rows say how many runs it
 * has; the reader holds index < runs <= EXP_MAX_RUNS): the total less the
 * rows there are, the first 20 listed from the gaps.  True if any does. */
static bool report_missing(const struct exp_key *ents, const long *kept, long nkept)
{
	bool missing = false;
	for (long i = 0; i < nkept;) {
		const char *m = ents[kept[i]].matrix;
		long total = 0, j = i, have = 0, expect = 0, shown = 0;
		char list[512] = "";
		size_t used = 0;
		for (; j < nkept && strcmp(ents[kept[j]].matrix, m) == 0; j++) {
			const struct exp_key *en = &ents[kept[j]];
			if ((long)en->runs > total)
				total = (long)en->runs;
			long idx = (long)en->index;
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

struct kept_rows {
	struct exp_keys *k;
	const long *kept;
};

static const cJSON *kept_row(void *ctx, long i)
{
	struct kept_rows *kr = ctx;
	return exp_keys_row(kr->k, kr->kept[i]);
}

static bool gather_row(void *ctx, cJSON *row, long line, uint64_t offset, size_t len, struct err *e)
{
	(void)e;
	exp_keys_add(ctx, row, line, offset, len);
	cJSON_Delete(row);
	return true;
}

/* Every file's rows, sorted, deduplicated and written to out: 0, 1 (runs
 * missing: the store is written), or 2.  Only each row's key and place
 * are held; the rows are read again as they are written. */
static int merge(char *const *files, long nfiles, const char *out)
{
	int rc = 0;
	struct exp_keys k;
	exp_keys_init(&k, files);
	struct err e = { "" };
	for (long f = 0; f < nfiles && rc == 0; f++) {
		exp_keys_file(&k, f);
		if (!exp_store_scan(files[f], gather_row, &k, &e))
			rc = cli_cmd_input_error(CMD, &e);
	}
	/* an empty file among others is a job that wrote nothing: its runs
	 * are reported missing */
	if (rc == 0 && k.n == 0 && nfiles == 1) {
		char *shown = str_shown(files[0], 256);
		rc = cli_usage_error(CMD, "%s: no rows (an empty store)", shown);
		free(shown);
	} else if (rc == 0 && k.n == 0)
		rc = cli_usage_error(CMD, "the %ld files given hold no rows", nfiles);
	long *kept = xcalloc((size_t)(k.n ? k.n : 1), sizeof(*kept));
	long nkept = 0;
	if (rc == 0 && !exp_keys_dedupe(&k, kept, &nkept, &e))
		rc = cli_cmd_input_error(CMD, &e);
	bool missing = rc == 0 && report_missing(k.ents, kept, nkept);
	if (rc == 0) {
		size_t len = strlen(out);
		struct kept_rows kr = { &k, kept };
		struct exp_rows rows = { nkept, kept_row, &kr };
		rc = exp_store_save_rows(CMD, "-o", out, len > 4 && strcmp(out + len - 4, ".csv") == 0,
					 &rows);
	}
	if (rc == 0 && k.failed)     /* a row could not be read again: the store lacks it */
		rc = cli_cmd_input_error(CMD, &k.err);
	if (rc == 0 && missing)
		rc = EXIT_FOUND;
	exp_keys_free(&k);
	free(kept);
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
	if (!*a)
		return cli_usage_error(CMD, "an empty file name");
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
