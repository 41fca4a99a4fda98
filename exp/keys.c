/* Rows of results stores by their run (exp/store.h, "Rows by run"): what
 * merge gathers and report counts once, a row given twice kept once and
 * two different rows of one run refused -- one detector for both. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exp/store.h"

void exp_keys_init(struct exp_keys *k, char *const *files)
{
	*k = (struct exp_keys){ .files = files, .open_file = -1, .fd = -1 };
}

void exp_keys_file(struct exp_keys *k, long file)
{
	struct stat st;
	k->file = file;
	k->keep_text = stat(k->files[file], &st) != 0 || !S_ISREG(st.st_mode);
}

void exp_keys_add(struct exp_keys *k, const cJSON *row, long line, uint64_t offset, size_t len)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 1024;
		k->ents = xrealloc(k->ents, (size_t)k->cap * sizeof(*k->ents));
	}
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(row, "runs");
	k->ents[k->n] = (struct exp_key){
		.matrix = xstrdup(cJSON_GetObjectItemCaseSensitive(row, "matrix")->valuestring),
		.index = cJSON_GetObjectItemCaseSensitive(row, "index")->valuedouble,
		.runs = cJSON_IsNumber(runs) ? runs->valuedouble : 0,
		.file = k->file, .line = line, .order = k->n,
		.offset = offset, .len = len,
		.text = k->keep_text ? exp_json_line(row) : NULL,
	};
	k->n++;
}

const cJSON *exp_keys_row(struct exp_keys *k, long i)
{
	const struct exp_key *en = &k->ents[i];
	cJSON_Delete(k->row);
	k->row = NULL;
	if (en->text)
		return k->row = cJSON_Parse(en->text);
	if (k->open_file != en->file) {
		if (k->fd >= 0)
			close(k->fd);
		struct err e = { "" };
		k->fd = input_open(k->files[en->file], &e);
		k->open_file = k->fd >= 0 ? en->file : -1;
	}
	char *buf = xmalloc(en->len + 1);
	ssize_t got = k->fd >= 0 ? pread(k->fd, buf, en->len, (off_t)en->offset) : -1;
	struct err e = { "" };
	if (got == (ssize_t)en->len) {
		buf[en->len] = '\0';
		k->row = exp_row_parse(buf, en->len, &e);
	}
	free(buf);
	if (!k->row && !k->failed) {
		char *shown = str_shown(k->files[en->file], 256);
		err_set(&k->err, "%s:%ld: the file changed while it was read", shown, en->line);
		free(shown);
		k->failed = true;
	}
	return k->row;
}

/* Whether two rows of one run are the same row: their canonical texts
 * compared, read again (rare: a row given twice). */
static bool same_row(struct exp_keys *k, long a, long b)
{
	const cJSON *ra = exp_keys_row(k, a);
	char *ta = ra ? exp_json_line(ra) : NULL;
	const cJSON *rb = ta ? exp_keys_row(k, b) : NULL;
	char *tb = rb ? exp_json_line(rb) : NULL;
	bool same = ta && tb && strcmp(ta, tb) == 0;
	free(ta);
	free(tb);
	return same;
}

static int key_cmp(const void *pa, const void *pb)
{
	const struct exp_key *a = pa, *b = pb;
	int c = strcmp(a->matrix, b->matrix);
	if (c)
		return c;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

bool exp_keys_dedupe(struct exp_keys *k, long *kept, long *nkept, struct err *e)
{
	if (k->n > 1)
		qsort(k->ents, (size_t)k->n, sizeof(*k->ents), key_cmp);
	*nkept = 0;
	const struct exp_key *ents = k->ents;
	for (long i = 0; i < k->n; i++) {
		if (i > 0 && strcmp(ents[i].matrix, ents[i - 1].matrix) == 0 &&
		    ents[i].index == ents[i - 1].index) {
			if (same_row(k, i - 1, i))
				continue;
			if (k->failed) {
				err_set(e, "%s", k->err.msg);
				return false;
			}
			char *a = str_shown(k->files[ents[i - 1].file], 256);
			char *b = str_shown(k->files[ents[i].file], 256);
			err_set(e, "run %.0f of matrix %s differs between %s:%ld and %s:%ld (two runs "
				"of the same cell that did not give the same row: different schedlab "
				"builds, or a native run?)", ents[i].index, ents[i].matrix, a,
				ents[i - 1].line, b, ents[i].line);
			free(a);
			free(b);
			return false;
		}
		kept[(*nkept)++] = i;
	}
	return true;
}

void exp_keys_free(struct exp_keys *k)
{
	for (long i = 0; i < k->n; i++) {
		free(k->ents[i].matrix);
		free(k->ents[i].text);
	}
	free(k->ents);
	cJSON_Delete(k->row);
	if (k->fd >= 0)
		close(k->fd);
	*k = (struct exp_keys){ .fd = -1, .open_file = -1 };
}
