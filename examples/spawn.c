/* spawn/join: the main goroutine starts n goroutines (a million by
 * default) that each mark a WaitGroup done, then waits for them all. */
#include "examples/common.h"

static long count;

static void worker(void *arg)
{
	sl_wg_done(arg);
}

static void run(void *arg)
{
	(void)arg;
	sl_wg *wg = sl_wg_new();
	int64_t t0 = sl_nanotime();
	for (long i = 0; i < count; i++) {
		sl_wg_add(wg, 1);
		sl_go(worker, wg);
	}
	sl_wg_wait(wg);
	int64_t ns = sl_nanotime() - t0;
	sl_wg_free(wg);
	example_report("spawn", count, count, count, ns);
}

int main(int argc, char **argv)
{
	int procs;
	example_args(argc, argv, &procs, &count, 1000000);
	struct sl_options o = { .procs = procs };
	return sl_run(&o, run, NULL);
}
