/* ping-pong: two goroutines hand a counter back and forth over two
 * unbuffered channels, n round trips (a million by default).  A send to a
 * receiver already waiting hands the value over and makes the receiver
 * the next to run on the sender's P, which is what keeps this fast. */
#include "examples/common.h"

static long rounds;
static sl_chan *ping, *pong;

static void ponger(void *arg)
{
	(void)arg;
	for (long i = 0; i < rounds; i++)
		sl_chan_send(pong, sl_chan_recv(ping) + 1);
}

static void run(void *arg)
{
	(void)arg;
	ping = sl_chan_make(0);
	pong = sl_chan_make(0);
	sl_go(ponger, NULL);
	int64_t t0 = sl_nanotime();
	uint64_t v = 0;
	for (long i = 0; i < rounds; i++) {
		sl_chan_send(ping, v);
		v = sl_chan_recv(pong);
	}
	int64_t ns = sl_nanotime() - t0;
	example_report("pingpong", rounds, rounds, (int64_t)v, ns);
	sl_chan_free(ping);
	sl_chan_free(pong);
}

int main(int argc, char **argv)
{
	int procs;
	example_args(argc, argv, &procs, &rounds, 1000000);
	struct sl_options o = { .procs = procs };
	return sl_run(&o, run, NULL);
}
