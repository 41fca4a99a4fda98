/* Reading Go execution traces (the import side of trace/go.c): each
 * reader turns one Go version's wire format into the common event stream
 * below, which trace/import.c translates into a workload. */
#ifndef SCHEDLAB_TRACE_IMPORT_H
#define SCHEDLAB_TRACE_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A Go execution trace read as one stream of events, the same whatever
 * Go version wrote it.  Events come in the order the trace's own
 * consistency rules give (time, then each G's sequence), every G's
 * transitions valid: the reader has checked them. */
enum ti_kind {
	TI_PROCS,          /* GOMAXPROCS is now arg (at trace start, and each change) */
	TI_G_EXISTS,       /* g existed at trace start; reason: TI_R_* of its state (TI_R_NONE runnable, or why blocked / TI_R_SYSCALL) */
	TI_G_CREATE,       /* g created target (g 0: created outside any G) */
	TI_G_START,        /* g starts running on P p */
	TI_G_STOP,         /* g stops running and stays runnable: reason TI_R_YIELD or TI_R_PREEMPT */
	TI_G_BLOCK,        /* g blocks: reason TI_R_CHAN_SEND.. TI_R_OTHER */
	TI_G_UNBLOCK,      /* g (0: no G, e.g. the netpoller or a timer off any G) makes target runnable */
	TI_G_END,          /* g exits */
	TI_SYSCALL,        /* g enters a system call (it keeps running on its M) */
	TI_SYSCALL_END,    /* g returns from it; arg 1 if its P was taken meanwhile (it must get one
			    * again), 2 if so but the trace says it got one at once (Go's
			    * exitsyscallfast: 1.19 writes no return instant, 1.22+ ends the
			    * call on an M that holds a P; it never waited, so no scheduling
			    * latency is counted) */
	TI_USER_TASK,      /* optional: user task begin (arg id) / end (arg -id); readers may skip */
};
enum ti_reason {
	TI_R_NONE, TI_R_YIELD, TI_R_PREEMPT,
	TI_R_CHAN_SEND, TI_R_CHAN_RECV, TI_R_SELECT, TI_R_SYNC, TI_R_COND,
	TI_R_SLEEP, TI_R_NET, TI_R_SYSCALL, TI_R_GC,
	TI_R_SYSTEM,       /* a runtime goroutine's own wait (Go 1.22+'s "system goroutine wait") */
	TI_R_OTHER,
};
struct ti_event {
	int64_t ts;        /* ns since the trace's first event */
	uint64_t off;      /* byte offset in the file of the event (for messages) */
	uint64_t g;        /* the G the event is about (0: none) */
	uint64_t target;   /* the other G (CREATE, UNBLOCK), else 0 */
	int32_t p;         /* the P (START), else -1 */
	uint16_t kind;     /* enum ti_kind */
	uint16_t reason;   /* enum ti_reason */
	int64_t arg;
	const char *label; /* optional: a function name for the event (creation: the G's start function; a block: its site, "function:line"), NULL if none; valid until the next ti_next */
	const char *root;  /* optional, a block: the outermost frame's function of its stack -- the G's start function -- NULL if none; valid until the next ti_next */
};
struct ti_reader;
struct err;
/* Opens path; NULL with e set ("FILE: offset N: what is wrong", as every
 * reader error) when it is not a trace this build reads. */
struct ti_reader *ti_open(const char *path, struct err *e);
struct ti_reader *ti_open_go119(const char *path, struct err *e);   /* "go 1.19 trace" (also 1.11-1.21 headers if the layout is the same: the reader says which it takes) */
struct ti_reader *ti_open_go122(const char *path, struct err *e);   /* "go 1.22 trace" and later */
/* 1: *ev filled; 0: the end; -1: e set (exit 2 for the command). */
int ti_next(struct ti_reader *r, struct ti_event *ev, struct err *e);
/* "go 1.19", "go 1.22", ...: what the header said. */
const char *ti_version(const struct ti_reader *r);
void ti_close(struct ti_reader *r);

/* ---- For the readers (not the contract's users) ---- */

/* A block's site (ti_event.label) is "function:line" of the first of a
 * stack's first TI_SITE_FRAMES frames whose function is the program's:
 * not ti_library_fn's, the blocking call's own (a mutex's Lock is 7 deep
 * in Go 1.26).  trace/open.c. */
#define TI_SITE_FRAMES 16
bool ti_library_fn(const char *fn);

/* Every reader's struct starts with this, so ti_next/ti_close reach its
 * own functions and ti_version its header's version. */
struct ti_ops {
	int (*next)(struct ti_reader *r, struct ti_event *ev, struct err *e);
	void (*close)(struct ti_reader *r);
};
struct ti_reader {
	const struct ti_ops *ops;
	char version[16];  /* "go 1.19" */
};

/* Whether the first 16 bytes of a file are a Go trace header: the version
 * ("go 1.19") in out (16 bytes), its minor number returned, or -1. */
int ti_header_minor(const unsigned char *head, size_t n, char out[16]);

/* ---- The translation into a workload (trace/import.c) ---- */

#include <stdio.h>

#include "core/policy.h"

/* What an import found: the recorded figures the workload carries in its
 * "recorded" key, and the counts its description gives. */
struct ti_stats {
	char go[16];                /* ti_version */
	int gomaxprocs;             /* the first TI_PROCS (0: none) */
	int64_t makespan_ns;        /* first event to last */
	uint64_t events, goroutines, internal;   /* Gs kept, Gs left out (runtime.*) */
	uint64_t programs;          /* distinct programs after sharing */
	uint64_t spawns, edges, external, sleeps, net, syscalls, blocked_syscalls, yields;
	uint64_t blocks[TI_R_OTHER + 1];         /* by reason, the kept Gs' */
	uint64_t lat_n, lat_p50, lat_p99, lat_max;   /* runnable -> running, ns */
	/* those waits by why the G became runnable, as its replay will see
	 * it: the report's wake-up reasons (enum rt_run_why) */
	uint64_t wake_n[RT_RUN__COUNT], wake_ns[RT_RUN__COUNT];
	uint64_t wait_free_ns;      /* their time with fewer Gs holding Ps than GOMAXPROCS */
	uint64_t gaps, gap_p50;     /* switches whose recorded gap was charged, its median (ns) */
	int64_t gap_ns;             /* their sum */
	uint64_t peak_bytes;        /* the importer's own peak of buffered text */
	/* inferred shared objects [import.c: Channels]: channels several
	 * goroutines wait on, the goroutines and the wake-ups through them */
	uint64_t shared, shared_takers, shared_edges;
	uint64_t shared_backpressure; /* of those, blocked sends released by a taker, reversed */
	uint64_t job_channels;      /* of the shared ones, those whose tokens carry the jobs */
	uint64_t shared_unsearched; /* groups left as pairs: the search's budget spent */
	char shared_site[128];      /* the site of the one with the most wake-ups */
};

/* Reads the Go trace at path and writes the workload (JSON) to out, named
 * name.  false with e set ("FILE: offset N: ..." for the trace's faults,
 * or the write's). */
bool ti_import(const char *path, const char *name, FILE *out, struct ti_stats *st, struct err *e);

#endif
