/* skynet: a tree of goroutines, each with 10 children, down to n leaves
 * (a million by default); each leaf sends its number to its parent over a
 * channel and each parent sends the sum of its children's up.  The result
 * is the sum 0 + 1 + ... + n-1.  (The benchmark after which it is named:
 * github.com/atemerev/skynet.) */
#include "examples/common.h"

struct node {
	sl_chan *up;      /* where the parent listens */
	int64_t num;      /* the first leaf number under this node */
	int64_t size;     /* how many leaves under it */
};

static void skynet(void *arg)
{
	struct node *nd = arg;
	sl_chan *up = nd->up;
	if (nd->size == 1) {
		uint64_t num = (uint64_t)nd->num;
		free(nd);
		sl_chan_send(up, num);
		return;
	}
	int64_t step = nd->size / 10;
	sl_chan *c = sl_chan_make(0);
	for (int i = 0; i < 10; i++) {
		struct node *child = malloc(sizeof(*child));
		if (!child)
			abort();
		*child = (struct node){ c, nd->num + i * step, step };
		sl_go(skynet, child);
	}
	free(nd);
	uint64_t sum = 0;
	for (int i = 0; i < 10; i++)
		sum += sl_chan_recv(c);
	sl_chan_free(c);
	sl_chan_send(up, sum);
}

static long leaves;
static bool wrong;

static void run(void *arg)
{
	(void)arg;
	int64_t t0 = sl_nanotime();
	sl_chan *c = sl_chan_make(0);
	struct node *root = malloc(sizeof(*root));
	if (!root)
		abort();
	*root = (struct node){ c, 0, leaves };
	sl_go(skynet, root);
	int64_t sum = (int64_t)sl_chan_recv(c);
	int64_t ns = sl_nanotime() - t0;
	sl_chan_free(c);
	/* a 10-ary tree with `leaves' leaves has (10 * leaves - 1) / 9 nodes */
	example_report("skynet", leaves, (10 * leaves - 1) / 9, sum, ns);
	if (sum != (int64_t)leaves * (leaves - 1) / 2) {
		fprintf(stderr, "skynet: wrong sum %" PRId64 "\n", sum);
		wrong = true;
	}
}

int main(int argc, char **argv)
{
	int procs;
	example_args(argc, argv, &procs, &leaves, 1000000);
	long p = leaves;
	while (p % 10 == 0)
		p /= 10;
	if (p != 1) {
		fprintf(stderr, "skynet: N must be a power of 10, not %ld\n", leaves);
		return 2;
	}
	struct sl_options o = { .procs = procs };
	int rc = sl_run(&o, run, NULL);
	return rc ? rc : wrong;
}
