/* The knobs numa shares with steal (numa is built on steal's machinery):
 * each one's name, default, range and flags, written once.  Where the two
 * policies mean the same thing the doc is shared too; where numa's queues
 * change what a knob acts on, each policy words its own.  A table entry
 * is SHARED_KNOB_X or SHARED_KNOB_X("doc"). */
#ifndef SCHEDLAB_POLICIES_KNOBS_SHARED_H
#define SCHEDLAB_POLICIES_KNOBS_SHARED_H

#include "core/policy.h"

#define SHARED_KNOB_RUNQ_SIZE(doc) { "runq_size", 256, 2, 65536, POL_KNOB_POW2, doc }
#define SHARED_KNOB_GLOBAL_CHECK(doc) { "global_check_interval", 61, 0, 1000000, 0, doc }
#define SHARED_KNOB_STEAL_TRIES(doc) { "steal_tries", 4, 1, 64, 0, doc }
#define SHARED_KNOB_RUNNEXT_DELAY                                                                \
	{ "runnext_steal_delay_us", 3, 0, 1000000, 0,                                            \
	  "a thief sleeps this long before taking a running P's runnext (last pass only)" }
#define SHARED_KNOB_SPINNING_PCT                                                                 \
	{ "spinning_max_pct", 50, 0, 100, 0,                                                     \
	  "Ms may start spinning while spinning Ms are fewer than this percentage of busy Ps" }
#define SHARED_KNOB_RUNNEXT(doc) { "runnext", 1, 0, 1, POL_KNOB_BOOL, doc }
#define SHARED_KNOB_PREEMPT                                                                      \
	{ "preempt_ms", 10, 0, 1000000, 0,                                                       \
	  "sysmon preempts a G that has run this long on one time slice (0: never)" }
#define SHARED_KNOB_RETAKE(doc) { "syscall_retake_us", 20, 0, 1000000000, 0, doc }

#endif
