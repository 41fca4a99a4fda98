/* libFuzzer target: regress's baseline files (regress/regress.c), with
 * the suite each holds (regress/suite.c).  A baseline that loads is then
 * compared with itself and reported in every form, as `regress` compares
 * and reports a new side against it: the values and the suite read from
 * the file are what the statistics and the tables work on. */
#include "fuzz/fuzz.h"
#include "regress/regress.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	return 0;
}

static void compare_with_itself(const struct rg_baseline *b)
{
	struct rg_result *r = rg_compare(b, b->side, b->suite->threshold, 0.05, "itself");
	rg_report_text(sink, r);
	rg_report_markdown(sink, r);
	cJSON *j = rg_report_json(r);
	char *s = cJSON_PrintUnformatted(j);
	free(s);
	cJSON_Delete(j);
	rg_report_regressions(sink, "fuzz: ", r);
	rg_report_unreported(sink, "fuzz: ", r);
	rg_result_free(r);
}

static void load(const char *text, size_t size, struct err *e)
{
	(void)size;
	struct rg_baseline *b = rg_baseline_parse("fuzz.json", text, e);
	if (!b) {
		fuzz_check_message(e);
		return;
	}
	if (b->side->ncases != b->suite->ncases || b->side->nseeds != b->suite->seeds)
		abort();
	compare_with_itself(b);
	rg_baseline_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text_input(data, size, load);
}
