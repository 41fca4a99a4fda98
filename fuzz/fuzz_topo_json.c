/* libFuzzer target: schedlab's JSON machine descriptions
 * (topologies/topo_json.c), and the derivations every topology goes
 * through (topo_build.c). */
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "topologies/topo.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	if (!text)
		return -1;
	struct err e = { "" };
	struct topo *t = topo_load_json_text(text, "fuzz.json", &e);
	if (t) {
		/* what the simulator relies on */
		for (int c = 0; c < t->ncores; c++)
			if (t->cores[c].node < 0 || t->cores[c].node >= t->nnodes ||
			    t->cores[c].group < 0 || t->cores[c].group >= t->ngroups)
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
