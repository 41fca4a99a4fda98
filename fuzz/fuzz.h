/* What every fuzz target checks besides "no crash": a loader that refuses
 * its input says why in one message that is one line of valid UTF-8 text
 * (the contract of util/util.h's struct err).  Breaking it is a find. */
#ifndef SCHEDLAB_FUZZ_H
#define SCHEDLAB_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/topo.h"
#include "util/util.h"

/* The body of a target of text: gives load the input as the loaders see
 * a file, NUL-terminated text with none inside (input_read refuses a file
 * with a NUL; such an input is rejected, -1, kept out of the corpus), and
 * an empty struct err. */
static inline int fuzz_text_input(const uint8_t *data, size_t size,
				  void (*load)(const char *text, size_t size, struct err *e))
{
	if (memchr(data, '\0', size))
		return -1;
	char *text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	struct err e = { "" };
	load(text, size, &e);
	free(text);
	return 0;
}

static inline void fuzz_check_message(const struct err *e)
{
	size_t n = strlen(e->msg);
	if (n == 0 || str_has_control(e->msg) || !utf8_valid(e->msg, n, NULL)) {
		fprintf(stderr, "fuzz: bad error message: \"%s\"\n", e->msg);
		abort();
	}
}

/* A loaded topology, or the loader's refusal: what the simulator relies
 * on (every core on a node and a core group of the machine, with a first
 * PU of the machine; every PU on a core) holds, or the message is one
 * line of text.  Frees t. */
static inline void fuzz_check_topo(struct topo *t, const struct err *e)
{
	if (!t) {
		fuzz_check_message(e);
		return;
	}
	for (int c = 0; c < t->ncores; c++)
		if (t->cores[c].node < 0 || t->cores[c].node >= t->nnodes ||
		    t->cores[c].group < 0 || t->cores[c].group >= t->ngroups ||
		    t->cores[c].first_pu < 0 || t->cores[c].first_pu >= t->npus)
			abort();
	for (int p = 0; p < t->npus; p++)
		if (t->pus[p].core < 0 || t->pus[p].core >= t->ncores)
			abort();
	topo_free(t);
}

#endif
