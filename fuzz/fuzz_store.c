/* libFuzzer target: results stores (exp/store.c), the JSON lines sweep,
 * compare and the cluster's jobs write and merge, sweep --resume and
 * report read back.  The input is the store file's bytes, NULs and all:
 * the readers cut it into lines themselves.  Each row the store reader
 * takes is used as its readers use it -- merge's key and canonical line,
 * the CSV, every metric by path -- and its canonical line must read back
 * as the same row (merge writes it, and a later merge reads it). */
#include <sys/mman.h>
#include <unistd.h>

#include "exp/matrix.h"
#include "exp/metric.h"
#include "exp/spec.h"
#include "exp/store.h"
#include "fuzz/fuzz.h"
#include "report/report.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The store as a file the readers open by name. */
static int fd = -1;
static char path[64];
static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = memfd_create("fuzz-store", 0);
	sink = fopen("/dev/null", "w");
	if (fd < 0 || !sink)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

static bool take_row(void *ctx, cJSON *row, long line, uint64_t offset, size_t len, struct err *e)
{
	(void)e;
	(void)line;
	size_t size = *(size_t *)ctx;
	if (offset > size || len > size - offset)
		abort();
	/* what merge keeps of a row and writes back */
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(row, "matrix");
	const cJSON *i = cJSON_GetObjectItemCaseSensitive(row, "index");
	if (strlen(m->valuestring) != 16 || !(i->valuedouble >= 0 && i->valuedouble < EXP_MAX_RUNS))
		abort();
	char *text = exp_json_line(row);
	struct err re = { "" };
	cJSON *again = exp_row_parse(text, strlen(text), &re);
	if (!again) {
		fprintf(stderr, "fuzz: a row's canonical line does not read back: %s\n", re.msg);
		abort();
	}
	char *text2 = exp_json_line(again);
	if (strcmp(text, text2) != 0)
		abort();
	/* what sweep reads of a row, and regress and compare of its report */
	(void)exp_row_status(row);
	(void)exp_row_exit_status(row);
	for (int k = 0; k < metric_count; k++) {
		double v;
		(void)exp_row_metric_number(row, metric_table[k].path, &v);
	}
	exp_store_write_csv(sink, (cJSON *const *)&row, 1);
	free(text);
	free(text2);
	cJSON_Delete(again);
	cJSON_Delete(row);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	struct err e = { "" };
	if (!exp_store_scan(path, take_row, &size, &e))
		fuzz_check_message(&e);
	struct rep_store s;
	struct err re = { "" };
	if (!rep_store_read(&s, path, &re))
		fuzz_check_message(&re);
	rep_store_free(&s);
	return 0;
}
