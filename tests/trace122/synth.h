/* Test helper: a large, valid Go 1.22 trace made directly in the binary
 * form, for the reader's speed and memory (tests/check_import122.c, and
 * `build/tests/trace122-encode --synth MB OUT` by hand). */
#ifndef SCHEDLAB_TESTS_TRACE122_SYNTH_H
#define SCHEDLAB_TESTS_TRACE122_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

#include "util/util.h"

/* Writes about bytes of trace to path, in generations of about gen_bytes:
 * two Ms, two Ps; main (G1) runs on M0 and, cycle after cycle, creates a
 * G, blocks on a channel receive, and runs again once that G -- started
 * on M1 -- has unblocked it and ended; so every step of M1 waits on one
 * of M0's and back (the reader orders them by sequence numbers).
 * *cycles is how many (each makes 6 events of the stream); *gens how
 * many generations. */
bool t122_synth(const char *path, uint64_t bytes, uint64_t gen_bytes, uint64_t *cycles,
		uint64_t *gens, struct err *e);

#endif
