/* libFuzzer target: hwloc XML files (topologies/topo_hwloc.c).  libhwloc
 * parses each input in a child process (it crashes on some); the
 * conversion of its result runs here, where coverage and ASan see it.
 * Every input costs a fork: expect hundreds, not thousands, per second. */
#include "fuzz/fuzz.h"
#include "topologies/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	if (!text)
		return -1;
	struct err e = { "" };
	struct topo *t = topo_load_xml_text(text, size, "fuzz.xml", &e);
	if (t) {
		for (int c = 0; c < t->ncores; c++)
			if (t->cores[c].node < 0 || t->cores[c].node >= t->nnodes ||
			    t->cores[c].group < 0 || t->cores[c].group >= t->ngroups ||
			    t->cores[c].first_pu < 0 || t->cores[c].first_pu >= t->npus)
				abort();
		for (int p = 0; p < t->npus; p++)
			if (t->pus[p].core < 0 || t->pus[p].core >= t->ncores)
				abort();
		topo_free(t);
	} else {
		fuzz_check_message(&e);
	}
	free(text);
	return 0;
}
