/* libFuzzer target: traces of drawn values (workloads/load.c), the JSON
 * lines `schedlab workload expand` writes and `-w TRACE` replays; a
 * document that is not a trace goes to the compiler, as with -w. */
#include "fuzz/fuzz.h"
#include "workloads/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	if (!text)
		return -1;
	struct err e = { "" };
	bool is_trace;
	uint64_t seed;
	struct workload *w = wl_load_text("fuzz.trace", text, &is_trace, &seed, &e);
	if (w) {
		/* a replay looks draws up by stream: the table must be sorted */
		for (uint32_t i = 1; i < w->ntrace; i++)
			if (w->trace[i - 1].key >= w->trace[i].key)
				abort();
		wl_free(w);
	} else {
		fuzz_check_message(&e);
	}
	free(text);
	return 0;
}
