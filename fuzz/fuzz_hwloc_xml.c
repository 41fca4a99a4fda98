/* libFuzzer target: hwloc XML files (topologies/topo_hwloc.c).  libhwloc
 * parses each input in a child process (it crashes on some); the
 * conversion of its result runs here, where coverage and ASan see it.
 * Every input costs a fork: expect hundreds, not thousands, per second. */
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load(const char *text, size_t size, struct err *e)
{
	fuzz_check_topo(topo_load_xml_text(text, size, "fuzz.xml", e), e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text_input(data, size, load);
}
