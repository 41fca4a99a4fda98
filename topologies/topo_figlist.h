/* The figures of the latency model, each once: the one list the JSON
 * loader's parser and bounds, `topo --json`'s latency object, the figure
 * listing (`schedlab topo`, provenance) and calibrate's lists are made from
 * (topo_figures.c expands it into topo_fig_specs[]).
 *
 * X(shape, path, where, count, unit, lo, hi, use, source, doc):
 *   shape  -- SCALAR: one double; HOPS: a list by hop count ("hops": [..],
 *             figures "PATH[h]"), `count` its length as given; NODES: one
 *             figure per NUMA node (a number for every node, stored at
 *             `where`, or a list); MATRIX: dram_ns.matrix, node x node;
 *             SIZE: a cache level's effective size, at the document's root
 *             ("cache_sizes"), not under "latency";
 *   path   -- the JSON path below "latency" (or the root, for SIZE), as
 *             `topo --json` writes it and "provenance" names it;
 *   where  -- offset of the value in struct topo_latency (LAT(field)); 0 for
 *             MATRIX and SIZE, which live in struct topo;
 *   count  -- HOPS: offset of the given length (an int), else 0;
 *   unit   -- "ns", "GB/s", "B" or "" (a ratio);
 *   lo, hi -- the sane bounds: a figure read from a file outside [lo, hi]
 *             is refused, naming the path and the range.  Every bundled
 *             machine, the shared hwloc files and the calibrated hosts seen
 *             so far pass with room (a busy KVM guest measured DRAM at
 *             1.2 us and an L3 stream at 1.2 GB/s); lo 0 admits a cost
 *             that may be nothing;
 *   use    -- whether a machine uses the figure (USE_*, topo_figures.c): a
 *             cache level's, where the level is present;
 *   source -- where the default comes from (docs/topology.md's table);
 *   doc    -- a short phrase saying what it is, for messages.
 *
 * ORDER: `topo --json`'s latency object, the listing and a calibration's
 * keys follow this order; keep a section's figures together. */
#ifndef SCHEDLAB_TOPO_FIGLIST_H
#define SCHEDLAB_TOPO_FIGLIST_H

#include <stddef.h>

#define LAT(field) offsetof(struct topo_latency, field)

#define TOPO_SRC_CACHE_L1 "4 cycles at 3 GHz (AnandTech: Xeon 8280, EPYC 7742)"
#define TOPO_SRC_CACHE_L2 "13 cycles at 3 GHz (AnandTech: Xeon 8280, EPYC 7742)"
#define TOPO_SRC_CACHE_L3 "about 48 cycles of a Xeon at 3 GHz"
#define TOPO_SRC_GUESS "a guess"
#define TOPO_SRC_BW_L1 "64 B/cycle of stores at 3 GHz (Intel optimization manual: Skylake-SP)"
#define TOPO_SRC_BW_L2 "52 B/cycle sustained at 3 GHz (Intel optimization manual: Skylake-SP)"
#define TOPO_SRC_BW_L3 \
	"about 15 B/cycle sustained at 3 GHz (Intel optimization manual: Skylake-SP)"
#define TOPO_SRC_WAKEUP \
	"estimate: an IPI, an idle exit and a scheduling decision; calibrate measured 2.7 us " \
	"on one PU and 30 us across the cores of a KVM guest"
#define TOPO_SRC_RUNTIME \
	"Go's BenchmarkCreateGoroutines, 302 ns a goroutine's life (CockroachDB RFC 20220602), " \
	"less the 149 ns the model prices itself, split 100/40 (an assumption)"
#define TOPO_SRC_STACK \
	"assumption: carving a stack and faulting its first page in, about 1 us (calibrate " \
	"measured 1.7 us on a KVM guest, 0.08 us for a reused stack)"

/* The four cache levels' figures under key: where(l) is level l's offset. */
#define TOPO_LEVELS(X, shape, key, where, unit, lo, hi, doc, s1, s2, s3, s4) \
	X(shape, key ".L1", where(1), 0, unit, lo, hi, USE_L1, s1, doc " L1") \
	X(shape, key ".L2", where(2), 0, unit, lo, hi, USE_L2, s2, doc " L2") \
	X(shape, key ".L3", where(3), 0, unit, lo, hi, USE_L3, s3, doc " L3") \
	X(shape, key ".L4", where(4), 0, unit, lo, hi, USE_L4, s4, doc " L4")
#define TOPO_AT_CACHE_NS(l) LAT(cache_ns[l])
#define TOPO_AT_CACHE_BW(l) LAT(cache_bw_gbs[l])
#define TOPO_AT_ROOT(l) 0  /* t->cache_sizes[l] */

#define TOPO_FIGURES(X) \
	TOPO_LEVELS(X, SCALAR, "cache_ns", TOPO_AT_CACHE_NS, "ns", 0.1, 1e4, "a hit in", \
		    TOPO_SRC_CACHE_L1, TOPO_SRC_CACHE_L2, TOPO_SRC_CACHE_L3, TOPO_SRC_GUESS) \
	TOPO_LEVELS(X, SCALAR, "cache_bw_gbs", TOPO_AT_CACHE_BW, "GB/s", 0.01, 1e5, \
		    "one core's stream of hits in", TOPO_SRC_BW_L1, TOPO_SRC_BW_L2, TOPO_SRC_BW_L3, \
		    TOPO_SRC_GUESS) \
	TOPO_LEVELS(X, SIZE, "cache_sizes", TOPO_AT_ROOT, "B", 1024, 1e12, \
		    "the effective size of", NULL, NULL, NULL, NULL) \
	X(SCALAR, "c2c_ns.core", LAT(c2c_core_ns), 0, "ns", 0.1, 1e5, USE_SMT, \
	  "SMT siblings share L1 and L2 (estimate)", "a line transfer between SMT siblings") \
	X(SCALAR, "c2c_ns.group", LAT(c2c_group_ns), 0, "ns", 0.1, 1e5, USE_GROUPS, \
	  "CAS round trip, Xeon Gold 6242 median (core-to-core-latency)", \
	  "a line transfer within a core group") \
	X(SCALAR, "c2c_ns.package", LAT(c2c_package_ns), 0, "ns", 0.1, 1e5, USE_PACKAGE, \
	  "EPYC 7R13 across CCXs", "a line transfer between core groups of a package") \
	X(HOPS, "c2c_ns.hops", LAT(c2c_hop_ns), LAT(n_c2c_hops), "ns", 0.1, 1e5, USE_ALWAYS, \
	  "Xeon Gold 6242 136, E5-2695 v4 118 (1 hop)", "a line transfer across packages") \
	X(SCALAR, "dram_ns.local", LAT(dram_local_ns), 0, "ns", 1, 1e5, USE_NO_MATRIX, \
	  "2S Xeon Gold 6140, MLC (89-90)", "a local DRAM access") \
	X(HOPS, "dram_ns.hops", LAT(dram_hop_ns), LAT(n_dram_hops), "ns", 1, 1e5, \
	  USE_NO_MATRIX, NULL, "a remote DRAM access") \
	X(MATRIX, "dram_ns.matrix", 0, 0, "ns", 1, 1e5, USE_ALWAYS, NULL, \
	  "a DRAM access from one node to another's memory") \
	X(SCALAR, "slit_scale", LAT(slit_scale), 0, "", 0.01, 100, USE_SLIT, \
	  "SLIT 20 at 1.5x local (4S Xeon E7-4800, MLC: 1.45x)", "the SLIT rule's slope") \
	X(NODES, "bandwidth_gbs", LAT(bandwidth_gbs), 0, "GB/s", 0.01, 1e5, USE_ALWAYS, \
	  "a sustained 4-6 channel DDR4 socket", "a node's memory bandwidth") \
	X(SCALAR, "mlp", LAT(mlp), 0, "", 0.1, 1000, USE_ALWAYS, \
	  "10-12 fill buffers plus the L2 streamer (single-core STREAM 9.5 GB/s)", \
	  "the lines a sequential stream keeps in flight") \
	X(SCALAR, "os_ns.syscall", LAT(syscall_ns), 0, "ns", 1, 1e7, USE_ALWAYS, \
	  "typical Linux x86-64", "a trivial system call") \
	X(SCALAR, "os_ns.futex_wait", LAT(futex_wait_ns), 0, "ns", 1, 1e7, USE_ALWAYS, \
	  "estimate", "going to sleep on a futex") \
	X(SCALAR, "os_ns.futex_wake", LAT(futex_wake_ns), 0, "ns", 1, 1e7, USE_ALWAYS, \
	  "estimate", "a futex wake call") \
	X(SCALAR, "os_ns.wakeup.core", LAT(wakeup_core_ns), 0, "ns", 1, 1e8, USE_SMT, \
	  TOPO_SRC_WAKEUP, "a wake-up on the same core") \
	X(SCALAR, "os_ns.wakeup.group", LAT(wakeup_group_ns), 0, "ns", 1, 1e8, USE_GROUPS, \
	  TOPO_SRC_WAKEUP, "a wake-up within a core group") \
	X(SCALAR, "os_ns.wakeup.package", LAT(wakeup_package_ns), 0, "ns", 1, 1e8, USE_PACKAGE, \
	  TOPO_SRC_WAKEUP, "a wake-up between core groups of a package") \
	X(HOPS, "os_ns.wakeup.hops", LAT(wakeup_hop_ns), LAT(n_wakeup_hops), "ns", 1, 1e8, \
	  USE_ALWAYS, TOPO_SRC_WAKEUP, "a wake-up across packages") \
	X(SCALAR, "os_ns.timer_slack", LAT(timer_slack_ns), 0, "ns", 0, 1e9, USE_ALWAYS, \
	  "Linux's default timer slack (prctl PR_SET_TIMERSLACK)", \
	  "how late a timed sleep ends") \
	X(SCALAR, "os_ns.epoll_event", LAT(epoll_event_ns), 0, "ns", 0, 1e6, USE_ALWAYS, \
	  "epoll_wait, 128 ready edge-triggered eventfds against 1 (a KVM guest, AMD EPYC)", \
	  "epoll_wait's cost per ready event, under the instance's lock") \
	X(SCALAR, "os_ns.thread_create", LAT(thread_create_ns), 0, "ns", 1, 1e9, USE_ALWAYS, \
	  "estimate", "creating an OS thread") \
	X(SCALAR, "os_ns.context_switch", LAT(context_switch_ns), 0, "ns", 1, 1e8, USE_ALWAYS, \
	  "\"Scheduling In Go: Part II\" (~1000 ns)", "an OS thread switch") \
	X(SCALAR, "os_ns.g_switch", LAT(g_switch_ns), 0, "ns", 0.1, 1e6, USE_ALWAYS, \
	  "estimate (\"Scheduling In Go: Part II\": ~200 ns for a whole goroutine switch)", \
	  "the runtime's switch between Gs") \
	X(SCALAR, "os_ns.pause", LAT(pause_ns), 0, "ns", 0.1, 1e5, USE_ALWAYS, \
	  "estimate: ~10 cycles before Skylake (Intel optimization manual)", \
	  "one PAUSE instruction") \
	X(SCALAR, "os_ns.base_slice", LAT(base_slice_ns), 0, "ns", 0, 1e9, USE_ALWAYS, \
	  "Linux's sysctl_sched_base_slice, 0.75 ms x (1 + log2(min(PUs, 8))); 0 takes that rule", \
	  "a thread's run before a waiting one may take its PU") \
	X(SCALAR, "runtime_ns.g_create", LAT(g_create_ns), 0, "ns", 0, 1e7, USE_ALWAYS, \
	  TOPO_SRC_RUNTIME, "newproc's own work") \
	X(SCALAR, "runtime_ns.g_exit", LAT(g_exit_ns), 0, "ns", 0, 1e7, USE_ALWAYS, \
	  TOPO_SRC_RUNTIME, "goexit's own work") \
	X(SCALAR, "runtime_ns.stack_acquire", LAT(stack_acquire_ns), 0, "ns", 0, 1e8, USE_ALWAYS, \
	  TOPO_SRC_STACK, "a new G stack")

#endif
