/* What every example shares: its command line (procs and a size, both
 * optional) and the one line of figures scripts/bench-native reads, which
 * the Go twins in bench/go print the same way. */
#ifndef SCHEDLAB_EXAMPLES_COMMON_H
#define SCHEDLAB_EXAMPLES_COMMON_H

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "native/schedlab.h"

/* argv[1]: procs (default 0, one per processing unit); argv[2]: the size
 * (default def).  Exits 2 with a message on anything else. */
static inline void example_args(int argc, char **argv, int *procs, long *n, long def)
{
	*procs = 0;
	*n = def;
	if (argc > 3) {
		fprintf(stderr, "usage: %s [PROCS [N]]\n", argv[0]);
		exit(2);
	}
	for (int i = 1; i < argc; i++) {
		char *end;
		errno = 0;
		long v = strtol(argv[i], &end, 10);
		if (errno || *end || end == argv[i] || v < (i == 1 ? 0 : 1) || v > 1000000000) {
			fprintf(stderr, "%s: %s '%s': want a number from %d\n", argv[0],
				i == 1 ? "PROCS" : "N", argv[i], i == 1 ? 0 : 1);
			exit(2);
		}
		if (i == 1)
			*procs = (int)v;
		else
			*n = v;
	}
}

/* name, the size, the result, the time taken and the time per operation */
static inline void example_report(const char *name, long n, long ops, int64_t result, int64_t ns)
{
	printf("%s n=%ld result=%" PRId64 " ns=%" PRId64 " ns_per_op=%.1f\n", name, n, result, ns,
	       (double)ns / (double)ops);
}

#endif
