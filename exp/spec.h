/* Lists and ranges of a sweep's options [docs/experiments.md, "Ranges"]:
 * "1,2,4..64", "0..100+25", "steal,global".  Part of libschedlab. */
#ifndef SCHEDLAB_EXP_SPEC_H
#define SCHEDLAB_EXP_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#include "util/util.h"

/* The most values one list may expand to, and the most runs a matrix may
 * have: past them a sweep is refused before anything is allocated.  A row
 * of rpc-server on numa4 is about 54 KiB (its latency histograms whole),
 * every row is held until the store is written, and a store is read
 * whole (EXP_STORE_MAX_BYTES): 20,000 runs keep both near 1 GiB. */
#define EXP_MAX_LIST 100000
#define EXP_MAX_RUNS 20000
/* The largest seed a matrix runs: a store's row holds it as a JSON number
 * (a double), whole numbers exact up to 2^53. */
#define EXP_MAX_SEED ((uint64_t)1 << 53)

/* Expands a comma-separated list into its items (malloc'd strings, *n of
 * them; exp_list_free frees them).  An item "A..B" (integers, 0 <= A <=
 * B) doubles from A up to B -- 1..64 is 1,2,4,8,16,32,64 -- and "A..B+S"
 * steps by S >= 1 -- 0..100+25 is 0,25,50,75,100; ranges expand to
 * decimal integers, other items are kept as written (the caller checks
 * them).  With ranges false a ".." is not special (paths).  False with e
 * saying "OPT LIST: problem" for an empty item, a bad or empty range, a
 * doubling range from 0, or more than EXP_MAX_LIST items. */
bool exp_list_expand(const char *opt, const char *list, bool ranges, char ***items, long *n,
		     struct err *e);
void exp_list_free(char **items, long n);

#endif
