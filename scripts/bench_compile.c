/* Compile-time figures of the workload compiler: reads a workload file,
 * compiles it (workloads/json.c) and prints the compile's wall time and
 * the process's peak RSS.  scripts/bench-compile makes the inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "util/jsonv.h"
#include "workloads/json.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bench_compile WORKLOAD.json\n");
		return 2;
	}
	struct err e = { "" };
	char *text = jv_read_file(argv[1], &e);
	if (!text) {
		fprintf(stderr, "bench_compile: %s\n", e.msg);
		return 2;
	}
	struct timespec a, b, ca, cb;
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
	struct workload *w = wl_compile(argv[1], text, &e);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (!w) {
		fprintf(stderr, "bench_compile: %s\n", e.msg);
		return 2;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	/* CPU time too: on a shared machine it is the steadier figure */
	printf("%-26s compile %8.3f s wall, %8.3f s CPU, peak RSS %7.1f MiB\n", w->name,
	       (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9,
	       (double)(cb.tv_sec - ca.tv_sec) + (double)(cb.tv_nsec - ca.tv_nsec) / 1e9,
	       (double)ru.ru_maxrss / 1024);
	wl_free(w);
	free(text);
	return 0;
}
