/* fib: the n-th Fibonacci number (30 by default) the slowest way: every
 * call above the base case starts two goroutines for its two halves and
 * waits for both on a WaitGroup.  fib(30) = 832040 takes 2.7 million
 * goroutines. */
#include "examples/common.h"

struct call {
	long n;
	int64_t result;
	sl_wg *wg;        /* the caller's, marked done when result is set */
};

static void fib(void *arg)
{
	struct call *c = arg;
	if (c->n < 2) {
		c->result = c->n;
	} else {
		sl_wg *wg = sl_wg_new();
		struct call a = { c->n - 1, 0, wg }, b = { c->n - 2, 0, wg };
		sl_wg_add(wg, 2);
		sl_go(fib, &a);
		sl_go(fib, &b);
		sl_wg_wait(wg);
		sl_wg_free(wg);
		c->result = a.result + b.result;
	}
	sl_wg_done(c->wg);
}

static long fib_n;

static void run(void *arg)
{
	(void)arg;
	sl_wg *wg = sl_wg_new();
	struct call top = { fib_n, 0, wg };
	int64_t t0 = sl_nanotime();
	sl_wg_add(wg, 1);
	sl_go(fib, &top);
	sl_wg_wait(wg);
	int64_t ns = sl_nanotime() - t0;
	sl_wg_free(wg);
	/* calls made: 2 fib(n+1) - 1 */
	int64_t a = 0, b = 1;
	for (long i = 0; i <= fib_n; i++) {
		int64_t t = a + b;
		a = b;
		b = t;
	}
	example_report("fib", fib_n, (long)(2 * a - 1), top.result, ns);
}

int main(int argc, char **argv)
{
	int procs;
	example_args(argc, argv, &procs, &fib_n, 30);
	if (fib_n > 40) {
		fprintf(stderr, "fib: N above 40 would take hundreds of millions of goroutines\n");
		return 2;
	}
	struct sl_options o = { .procs = procs };
	return sl_run(&o, run, NULL);
}
