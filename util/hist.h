/* Latency histograms with bounded relative error.
 *
 * Values (ns) go into log-linear buckets: exact below 2*HIST_SUB, then
 * HIST_SUB buckets per power of two, so any reported quantile is within
 * 1/HIST_SUB (1.6%) of a recorded value, whatever the range.  Recording is
 * an increment (no allocation, no sorting), histograms of different Ms
 * merge by addition, and quantiles are a function of the counts alone -- so
 * reports stay byte-identical for the same run.  Max and mean are exact. */
#ifndef SCHEDLAB_UTIL_HIST_H
#define SCHEDLAB_UTIL_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS) * HIST_SUB + 2 * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t max;
	double sum;
	uint64_t bucket[HIST_BUCKETS];
};

void hist_record(struct hist *h, uint64_t v);
void hist_merge(struct hist *into, const struct hist *from);
/* n values of v at once (a histogram rebuilt from its buckets: v a
 * bucket's bound). */
void hist_add(struct hist *h, uint64_t v, uint64_t n);
/* The smallest recorded value's bucket bound with at least q of the values at or
 * below it (q in [0,1]); 0 for an empty histogram. */
uint64_t hist_quantile(const struct hist *h, double q);
double hist_mean(const struct hist *h);
/* The largest value bucket b holds (b < HIST_BUCKETS): a reported
 * bucket's bound, as the quantiles report it. */
uint64_t hist_bucket_top(unsigned b);

#endif
