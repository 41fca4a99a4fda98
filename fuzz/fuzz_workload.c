/* libFuzzer target: the workload compiler, JSON text to programs
 * (workloads/json.c), as `-w FILE` runs it. */
#include "fuzz/fuzz.h"
#include "workloads/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	if (!text)
		return -1;
	struct err e = { "" };
	struct workload *w = wl_compile("fuzz.json", text, &e);
	if (w)
		wl_free(w);
	else
		fuzz_check_message(&e);
	free(text);
	return 0;
}
