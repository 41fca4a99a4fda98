/* blocked: n goroutines (a million by default) that all start, then wait
 * on one channel until main closes it: what a goroutine costs while it is
 * blocked.  Besides the time per goroutine (started, blocked, woken and
 * ended), it prints bytes_per_g: how much the process's resident memory
 * grew from before the first was started to when all had, per goroutine. */
#include "examples/common.h"

#include <unistd.h>

static long count;
static sl_chan *gate;
static sl_wg *started, *done;

static void waiter(void *arg)
{
	(void)arg;
	sl_wg_done(started);
	sl_chan_recv(gate);
	sl_wg_done(done);
}

static long resident_bytes(void)
{
	long size = 0, pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f || fscanf(f, "%ld %ld", &size, &pages) != 2)
		pages = 0;
	if (f)
		fclose(f);
	return pages * sysconf(_SC_PAGESIZE);
}

static void run(void *arg)
{
	(void)arg;
	gate = sl_chan_make(0);
	started = sl_wg_new();
	done = sl_wg_new();
	long before = resident_bytes();
	int64_t t0 = sl_nanotime();
	sl_wg_add(started, count);
	sl_wg_add(done, count);
	for (long i = 0; i < count; i++)
		sl_go(waiter, NULL);
	sl_wg_wait(started);
	long all = resident_bytes();
	sl_chan_close(gate);
	sl_wg_wait(done);
	int64_t ns = sl_nanotime() - t0;
	sl_chan_free(gate);
	sl_wg_free(started);
	sl_wg_free(done);
	printf("blocked n=%ld result=%ld ns=%" PRId64 " ns_per_op=%.1f bytes_per_g=%.0f\n", count,
	       count, ns, (double)ns / (double)count, (double)(all - before) / (double)count);
}

int main(int argc, char **argv)
{
	int procs;
	example_args(argc, argv, &procs, &count, 1000000);
	struct sl_options o = { .procs = procs };
	return sl_run(&o, run, NULL);
}
