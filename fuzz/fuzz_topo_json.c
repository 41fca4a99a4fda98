/* libFuzzer target: schedlab's JSON machine descriptions
 * (topologies/topo_json.c), and the derivations every topology goes
 * through (topo_build.c). */
#include <unistd.h>

#include "fuzz/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* "hwloc_xml" names a file: relative ones resolve in an empty folder,
	 * and /dev/stdin reads nothing */
	if (!freopen("/dev/null", "r", stdin))
		abort();
	return 0;
}

static void load(const char *text, size_t size, struct err *e)
{
	fuzz_check_topo(topo_load_json_text(text, "fuzz.json", e), e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text_input(data, size, load);
}
