/* Simulated measurements through the hardware model, in the spirit of
 * Intel's Memory Latency Checker: what `schedlab topo --mlc` prints. */
#ifndef SCHEDLAB_HW_MLC_H
#define SCHEDLAB_HW_MLC_H

#include <stdbool.h>

#include "topologies/topo.h"

struct hw_mlc_c2c {
	const char *relation;   /* "same_core", "same_group", "same_package", "hops_1", ... */
	double ns;
	int cpu_a, cpu_b;       /* the PUs measured: a writes, b reads */
};

struct hw_mlc {
	int nnodes;
	/* nnodes x nnodes idle pointer-chase latency; NaN for a node without
	 * cores to measure from. */
	double *dram_ns;
	struct hw_mlc_c2c *c2c; /* relations present on the machine, nearest first */
	int nc2c;
	double *bw_one_node;    /* per node: every core streaming from that node, GB/s */
	double bw_interleaved;  /* every core streaming from memory interleaved over all nodes */
	double bw_window_ns;    /* simulated time each bandwidth run kept issuing */
};

struct hw_mlc *hw_mlc_run(const struct topo *t);
void hw_mlc_free(struct hw_mlc *m);

#endif
