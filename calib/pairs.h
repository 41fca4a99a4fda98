/* Pairs of PUs, one per relation this machine has (same PU, SMT siblings,
 * same core group, same package, other packages by hops), for the probes
 * that measure something between two threads. */
#ifndef SCHEDLAB_CALIB_PAIRS_H
#define SCHEDLAB_CALIB_PAIRS_H

#include "topologies/topo.h"

enum cal_rel { CAL_SAME_PU, CAL_SMT, CAL_GROUP, CAL_PACKAGE, CAL_HOPS };

#define CAL_MAX_PAIRS (4 + TOPO_MAX_HOPS)

struct cal_pair {
	char name[24];       /* "same_pu", "smt", "group", "package", "hops1" ... */
	char what[64];       /* for the method text */
	enum cal_rel rel;
	unsigned pu_a, pu_b; /* OS indexes */
	int hops;            /* CAL_HOPS */
};

/* The pairs, nearest first, each from the first PU of the machine (or of
 * its first core that has such a partner); with_same_pu adds the PU with
 * itself first.  Returns how many. */
int cal_pairs(const struct topo *t, struct cal_pair *out, bool with_same_pu);

#endif
