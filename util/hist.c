/* Latency histograms: log-linear buckets (see hist.h). */
#include "util/hist.h"

#include <string.h>

static unsigned bucket_of(uint64_t v)
{
	if (v < 2 * HIST_SUB)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v);      /* v in [2^e, 2^(e+1)) */
	unsigned shift = e - HIST_SUB_BITS;
	unsigned sub = (unsigned)(v >> shift) - HIST_SUB;       /* top bits below the leading one */
	return 2 * HIST_SUB + (e - HIST_SUB_BITS - 1) * HIST_SUB + sub;
}

/* The largest value that falls in bucket b. */
static uint64_t bucket_top(unsigned b)
{
	if (b < 2 * HIST_SUB)
		return b;
	unsigned k = b - 2 * HIST_SUB;
	unsigned e = k / HIST_SUB + HIST_SUB_BITS + 1;
	uint64_t sub = k % HIST_SUB;
	unsigned shift = e - HIST_SUB_BITS;
	return ((HIST_SUB + sub + 1) << shift) - 1;
}

void hist_record(struct hist *h, uint64_t v)
{
	h->bucket[bucket_of(v)]++;
	h->count++;
	h->sum += (double)v;
	if (v > h->max)
		h->max = v;
}

void hist_merge(struct hist *into, const struct hist *from)
{
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		into->bucket[b] += from->bucket[b];
	into->count += from->count;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	if (h->count == 0)
		return 0;
	/* rank of the wanted value, 1-based: ceil(q * count), at least 1 */
	uint64_t rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			uint64_t top = bucket_top(b);
			return top < h->max ? top : h->max;
		}
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->sum / (double)h->count : 0.0;
}

uint64_t hist_bucket_top(unsigned b)
{
	return bucket_top(b);
}

void hist_add(struct hist *h, uint64_t v, uint64_t n)
{
	if (!n)
		return;
	h->bucket[bucket_of(v)] += n;
	h->count += n;
	h->sum += (double)v * (double)n;
	if (v > h->max)
		h->max = v;
}
