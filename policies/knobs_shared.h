/* What numa shares with steal (numa is built on steal's machinery): the
 * knobs both tables open with -- each one's name, default, range and
 * flags, written once -- and what both make of them.  Where the two
 * policies mean the same thing the doc is shared too; where numa's queues
 * change what a knob acts on, each policy words its own. */
#ifndef SCHEDLAB_POLICIES_KNOBS_SHARED_H
#define SCHEDLAB_POLICIES_KNOBS_SHARED_H

#include "core/policy.h"

/* The first KS__COUNT knobs of both tables, in this order. */
enum {
	KS_RUNQ_SIZE,
	KS_GLOBAL_CHECK,
	KS_STEAL_TRIES,
	KS_RUNNEXT_DELAY,
	KS_SPINNING_PCT,
	KS_RUNNEXT,
	KS__COUNT,
};

/* Those entries of a table, with the policy's own words for four. */
#define SHARED_KNOBS(runq_doc, check_doc, tries_doc, runnext_doc)                               \
	[KS_RUNQ_SIZE] = { "runq_size", 256, 2, 65536, POL_KNOB_POW2, runq_doc },                \
	[KS_GLOBAL_CHECK] = { "global_check_interval", 61, 0, 1000000, 0, check_doc },           \
	[KS_STEAL_TRIES] = { "steal_tries", 4, 1, 64, 0, tries_doc },                            \
	[KS_RUNNEXT_DELAY] = { "runnext_steal_delay_us", 3, 0, 1000000, 0,                       \
			       "a thief sleeps this long before taking a running P's runnext "   \
			       "(last pass only)" },                                             \
	[KS_SPINNING_PCT] = { "spinning_max_pct", 50, 0, 100, 0,                                 \
			      "Ms may start spinning while spinning Ms are fewer than this "     \
			      "percentage of busy Ps" },                                         \
	[KS_RUNNEXT] = { "runnext", 1, 0, 1, POL_KNOB_BOOL, runnext_doc }

/* sysmon's two knobs, later in both tables. */
#define SHARED_KNOB_PREEMPT                                                                      \
	{ "preempt_ms", 10, 0, 1000000, 0,                                                       \
	  "sysmon preempts a G that has run this long on one time slice (0: never)" }
#define SHARED_KNOB_RETAKE(doc) { "syscall_retake_us", 20, 0, 1000000000, 0, doc }

/* What both make of the shared knobs. */
struct shared_knobs {
	uint32_t global_check;
	int steal_tries;
	int64_t runnext_delay_us;
	uint32_t spinning_pct;
	bool runnext;
};

/* Reads the shared knobs of k into sk and c, and sysmon's (at the table's
 * indices preempt and retake) into c: both policies run sysmon. */
static inline void shared_knobs_read(struct shared_knobs *sk, struct pol_choices *c,
				     const int64_t *k, int preempt, int retake)
{
	c->runq_size = (uint32_t)k[KS_RUNQ_SIZE];
	sk->global_check = (uint32_t)k[KS_GLOBAL_CHECK];
	sk->steal_tries = (int)k[KS_STEAL_TRIES];
	sk->runnext_delay_us = k[KS_RUNNEXT_DELAY];
	sk->spinning_pct = (uint32_t)k[KS_SPINNING_PCT];
	sk->runnext = k[KS_RUNNEXT] != 0;
	c->sysmon = true;
	c->preempt_ns = k[preempt] * 1000000;
	c->syscall_retake_ns = k[retake] * 1000;
}

#endif
