/* libFuzzer target: the workload compiler, JSON text to programs
 * (workloads/json.c), as `-w FILE` runs it. */
#include "fuzz/fuzz.h"
#include "workloads/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load(const char *text, size_t size, struct err *e)
{
	struct workload *w = wl_compile("fuzz.json", text, e);
	if (w)
		wl_free(w);
	else
		fuzz_check_message(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text_input(data, size, load);
}
