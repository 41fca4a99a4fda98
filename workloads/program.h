/* Goroutine programs: the in-memory form a workload is run from.
 *
 * A program is a flat array of operations.  In simulation a G runs its
 * program as a resumable state machine (a program counter and a small loop
 * stack, no C stack), so a million Gs cost a million small structs; natively
 * the same interpreter runs on the G's own stack.  Control flow is limited
 * to counted loops, so every program terminates unless it blocks forever.
 *
 * A workload is a set of programs, the channels they share and the program
 * of the first G ("main").  Built-in workloads made in C are in
 * workloads/builtin.c; the JSON language that compiles to this form comes
 * with the workload catalog. */
#ifndef SCHEDLAB_WORKLOADS_PROGRAM_H
#define SCHEDLAB_WORKLOADS_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "util/util.h"

#define PROG_MAX_DEPTH 8   /* nested loops per program */

enum prog_opcode {
	PROG_COMPUTE,   /* compute for n ns */
	PROG_SPAWN,     /* start n Gs running program a */
	PROG_SEND,      /* send on channel a (blocks as a Go channel does) */
	PROG_RECV,      /* receive from channel a */
	PROG_YIELD,     /* runtime.Gosched */
	PROG_SLEEP,     /* time.Sleep for n ns: parks the G, not the M */
	PROG_LOOP,      /* run the ops up to the matching PROG_END n times */
	PROG_END,       /* end of the loop opened at op a */
	PROG_EXIT,      /* end the G (falling off the end does the same) */
	PROG_CLOSE,     /* close channel a */
	PROG_SELECT,    /* select over the n PROG_CASE ops that follow; a = 1: with default */
	PROG_CASE,      /* a select case: channel a, n = 1 send, 0 receive; see prog_op.exit */
	PROG_LOCK,      /* lock mutex a (sync.Mutex) */
	PROG_UNLOCK,    /* unlock mutex a */
	PROG_WG_ADD,    /* add (int64_t)n to wait group a (Done is -1) */
	PROG_WG_WAIT,   /* wait until wait group a is zero */
	PROG_SYSCALL,   /* a blocking system call lasting n ns */
	PROG_NET_READ,  /* wait (in the netpoller) for one unit of data from source a, take it */
	PROG__COUNT
};

#define PROG_SELECT_MAX 16   /* cases per select */

struct prog_op {
	enum prog_opcode code;
	uint32_t a;
	uint64_t n;
	/* PROG_CASE only: if this case fires, end the G (Go's
	 * `case <-done: return'); else the G goes on after the select. */
	bool exit;
};

#define PROG_MAX_PROGRAMS_REPORTED 32   /* per-program figures kept for this many */

struct program {
	char *name;
	struct prog_op *ops;
	uint32_t nops, cap;
};

struct prog_chan {
	char *name;
	uint32_t cap;       /* buffered slots; 0 = unbuffered */
};

/* A network source: data becomes readable once every interval_ns from the
 * start of the run, count times (a connection's requests, in the
 * simplest arrival process).  Simulated, the netpoller sees it become
 * ready at those instants; natively it is a timerfd in epoll. */
struct prog_source {
	char *name;
	uint64_t interval_ns;
	uint64_t count;
};

struct workload {
	char *name;
	char *description;
	struct program *progs;
	uint32_t nprogs;
	struct prog_chan *chans;
	uint32_t nchans;
	char **mutexes;     /* names */
	uint32_t nmutexes;
	char **waitgroups;  /* names */
	uint32_t nwaitgroups;
	struct prog_source *sources;
	uint32_t nsources;
	uint32_t main;      /* program of the first G */
};

/* Building (used by the built-ins and, later, the JSON compiler). */
struct workload *wl_new(const char *name, const char *description);
uint32_t wl_add_program(struct workload *w, const char *name);
uint32_t wl_add_chan(struct workload *w, const char *name, uint32_t cap);
uint32_t wl_add_mutex(struct workload *w, const char *name);
uint32_t wl_add_waitgroup(struct workload *w, const char *name);
uint32_t wl_add_source(struct workload *w, const char *name, uint64_t interval_ns, uint64_t count);
void wl_emit(struct workload *w, uint32_t prog, enum prog_opcode code, uint32_t a, uint64_t n);
/* A select case that ends the G when it fires. */
void wl_emit_case_exit(struct workload *w, uint32_t prog, uint32_t chan, bool send);
/* Opens a loop of n iterations in prog; returns the op index to close it with. */
uint32_t wl_loop(struct workload *w, uint32_t prog, uint64_t n);
void wl_end(struct workload *w, uint32_t prog, uint32_t loop);
void wl_free(struct workload *w);

/* Checks what the interpreter relies on: indices in range, loops balanced
 * and no deeper than PROG_MAX_DEPTH, counts positive.  On failure names the
 * program and op in e. */
bool wl_validate(const struct workload *w, struct err *e);
const char *wl_op_name(enum prog_opcode code);

/* Workloads built in C, by name (workloads/builtin.c). */
int wl_builtin_count(void);
const char *wl_builtin_name(int i);
const char *wl_builtin_summary(int i);
struct workload *wl_builtin(const char *name, struct err *e);

#endif
