/* libFuzzer target: traces of drawn values (workloads/load.c), the JSON
 * lines `schedlab workload expand` writes and `-w TRACE` replays; a
 * document that is not a trace goes to the compiler, as with -w. */
#include "fuzz/fuzz.h"
#include "workloads/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load(const char *text, size_t size, struct err *e)
{
	bool is_trace;
	uint64_t seed;
	struct workload *w = wl_load_text("fuzz.trace", text, &is_trace, &seed, e);
	if (!w) {
		fuzz_check_message(e);
		return;
	}
	/* a replay looks draws up by stream: the table must be sorted */
	for (uint32_t i = 1; i < w->ntrace; i++)
		if (w->trace[i - 1].key >= w->trace[i].key)
			abort();
	wl_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text_input(data, size, load);
}
