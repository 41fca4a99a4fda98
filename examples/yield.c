/* yield: two goroutines each give up the processor n times (a million by
 * default); ns_per_op is per yield. */
#include "examples/common.h"

static long yields;

static void yielder(void *arg)
{
	for (long i = 0; i < yields; i++)
		sl_gosched();
	sl_wg_done(arg);
}

static void run(void *arg)
{
	(void)arg;
	sl_wg *wg = sl_wg_new();
	sl_wg_add(wg, 2);
	int64_t t0 = sl_nanotime();
	sl_go(yielder, wg);
	sl_go(yielder, wg);
	sl_wg_wait(wg);
	int64_t ns = sl_nanotime() - t0;
	sl_wg_free(wg);
	example_report("yield", yields, 2 * yields, 2 * yields, ns);
}

int main(int argc, char **argv)
{
	int procs;
	example_args(argc, argv, &procs, &yields, 1000000);
	struct sl_options o = { .procs = procs };
	return sl_run(&o, run, NULL);
}
