/* Hardware-model benchmark: the model's own wall-clock cost per modeled
 * operation, so that it never dominates a simulation.  Prints figures. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hw/hw.h"

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile double sink;

/* Working sets of `ws` bytes, one per goroutine-like owner, touched by PUs
 * chosen in a fixed pseudo-random order: some touches hit, some move to
 * another package and miss, as in a scheduler simulation. */
static void bench_touch(const struct topo *t, uint64_t ws, int nsets, long iters, bool migrate)
{
	struct hw *hw = hw_new(t);
	hw_region_t *r = malloc(sizeof(*r) * (size_t)nsets);
	for (int i = 0; i < nsets; i++)
		r[i] = hw_region_new(hw, ws, HW_PLACE_FIRST_TOUCH, 0);
	unsigned x = 1;
	double now = 0, sum = 0;
	double t0 = wall();
	for (long i = 0; i < iters; i++) {
		x = x * 1103515245u + 12345u;
		int set = (int)((x >> 8) % (unsigned)nsets);
		int cpu = migrate ? (int)((x >> 16) % (unsigned)t->npus) : set % t->npus;
		sum += hw_touch(hw, cpu, now, r[set], 0, ws, HW_SEQUENTIAL, (x >> 4) & 1);
		now += 100;
	}
	double t1 = wall();
	sink = sum;
	printf("touch %3llu KiB working set (%s): %7.0f ns wall per touch\n",
	       (unsigned long long)(ws >> 10), migrate ? "random PU each time" : "same PU        ",
	       (t1 - t0) * 1e9 / (double)iters);
	free(r);
	hw_free(hw);
}

static void bench_line(const struct topo *t, long iters)
{
	struct hw *hw = hw_new(t);
	hw_line_t lines[16];
	for (int i = 0; i < 16; i++)
		lines[i] = hw_line_new(hw, i % t->nnodes);
	unsigned x = 1;
	double now = 0, sum = 0;
	double t0 = wall();
	for (long i = 0; i < iters; i++) {
		x = x * 1103515245u + 12345u;
		int cpu = (int)((x >> 16) % (unsigned)t->npus);
		sum += hw_line_access(hw, cpu, now, lines[(x >> 8) & 15], (enum hw_access)((x >> 4) % 3));
		now += 20;
	}
	double t1 = wall();
	sink = sum;
	printf("line access (random PU, load/store/RMW): %7.1f ns wall per access\n",
	       (t1 - t0) * 1e9 / (double)iters);
	hw_free(hw);
}

int main(int argc, char **argv)
{
	const char *spec = argc > 1 ? argv[1] : "numa4";
	double scale = argc > 2 ? atof(argv[2]) : 1.0;
	struct err e;
	struct topo *t = topo_load(spec, &e);
	if (!t) {
		fprintf(stderr, "%s\n", e.msg);
		return 2;
	}
	printf("hardware model on %s (%d PUs)\n", t->name, t->npus);
	long n = (long)(200000 * scale);
	bench_touch(t, 4096, 256, n, false);
	bench_touch(t, 4096, 256, n, true);
	bench_touch(t, 65536, 256, n, false);
	bench_touch(t, 65536, 256, n, true);
	bench_line(t, (long)(5000000 * scale));
	topo_free(t);
	return 0;
}
