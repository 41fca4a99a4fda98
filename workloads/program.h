/* Goroutine programs: the in-memory form a workload is run from.
 *
 * A program is a flat array of operations over a small frame of typed
 * local slots (its parameters first, then its variables).  In simulation a
 * G runs its program as a resumable state machine (a program counter and
 * its frame, no C stack), so a million Gs cost a million small structs;
 * natively the same interpreter runs on the G's own stack.  Control flow is
 * counted loops, if/else and break, so every program terminates unless it
 * blocks forever; recursion (a program spawning itself, directly or not)
 * must declare a depth bound.
 *
 * Operands are values: a constant, a local slot, one of the workload's
 * named objects, a distribution (sampled from the G's own random stream
 * each time the operand is evaluated) or an integer expression.
 *
 * The JSON language that compiles to this form is workloads/json.c
 * (docs/workload-format.md); workloads/builtin.c builds a few in C. */
#ifndef SCHEDLAB_WORKLOADS_PROGRAM_H
#define SCHEDLAB_WORKLOADS_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/policy.h"
#include "util/util.h"

struct dist;

#define PROG_MAX_LOCALS 16   /* parameters, variables and loop counters per program */
#define PROG_NO_SLOT UINT32_MAX

/* What a workload may cost before it is refused: simulator memory for its
 * goroutines (at the core's RT_BYTES_PER_G each, core/policy.h), its regions (WL_BYTES_PER_PAGE for
 * each 4 KiB page: the hardware model keeps a page's home, last writer and
 * version for the rest of the run) and its channels, mutexes and wait
 * groups (WL_BYTES_PER_OBJ each, with their simulated line, and a
 * channel's buffer, 8 bytes a slot).  A region counts every page it
 * declares, though the model makes a page's records only when a touch
 * reaches its block of pages (hw/hw.c): the budget is what the run may
 * come to.  The compiler (workloads/json.c)
 * checks what can be counted beforehand; the run counts the rest as it is
 * made, against the same budget (at most the core's RT_MEMORY_BUDGET) or a
 * lower one [workloads/interp.c: Budgets]. */
#define WL_BYTES_PER_PAGE 12u
#define WL_BYTES_PER_OBJ 256u

/* The most slots a channel's buffer has, declared or made: a constant
 * past it is refused when compiling, a computed one panics. */
#define WL_CHAN_CAP_MAX (1u << 24)

/* What a local slot, a parameter or a named object holds. */
enum prog_type {
	PT_INT,
	PT_CHAN,
	PT_WG,
	PT_MUTEX,
	PT_REGION,
	PT_CONN,       /* a network connection: read requests, write responses */
	PT_LISTENER,   /* a workload-level source of connections */
	PT__COUNT
};

/* The operations of a program, each once: the enum, wl_op_name's names,
 * program.c's check of one op and interp.c's handler come from this list
 * (ORDER OP: the enum follows it).  X(CODE, name, check, run): PROG_CODE,
 * the name messages give it, its validator (program.c) and its handler
 * (interp.c). */
#define PROG_OPS(X) \
	X(COMPUTE, "compute", check_int_x, op_compute)     /* compute for x ns */ \
	X(SPAWN, "spawn", check_spawn, op_spawn)           /* start x Gs running program a \
							    * with aux args from args[dst] */ \
	X(SEND, "send", check_send, op_send)               /* send y on channel x (blocks \
							    * as a Go channel does) */ \
	X(RECV, "recv", check_recv, op_recv)               /* receive from channel x into \
		slot dst (PROG_NO_SLOT: drop), and whether it was sent (not a close's \
		zero) into slot b */ \
	X(YIELD, "yield", check_nothing, op_yield)         /* runtime.Gosched */ \
	X(SLEEP, "sleep", check_int_x, op_sleep)           /* time.Sleep for x ns: parks \
							    * the G, not the M */ \
	X(LOOP, "loop", check_loop, op_loop)               /* x times, the ops up to END \
							    * at a; counter in dst, index in b */ \
	X(END, "end", check_end, op_end)                   /* end of the loop opened at \
							    * op a */ \
	X(EXIT, "exit", check_nothing, op_exit)            /* end the G (falling off the \
							    * end does the same) */ \
	X(CLOSE, "close", check_chan_x, op_close)          /* close channel x */ \
	X(SELECT, "select", check_select, op_select)       /* select over the aux \
		PROG_CASE ops that follow; PROG_F_DEFAULT */ \
	X(CASE, "case", check_nothing, op_case)            /* a case: channel x, \
		PROG_F_SEND (value y) or receive into dst; fired: PROG_F_EXIT ends \
		the G, PROG_F_JUMP goes to a; checked with its select */ \
	X(LOCK, "lock", check_mutex_x, op_lock)            /* lock mutex x (sync.Mutex) */ \
	X(UNLOCK, "unlock", check_mutex_x, op_unlock)      /* unlock mutex x */ \
	X(WG_ADD, "wg_add", check_wg_add, op_wg_add)       /* add y to wait group x (Done \
							    * is -1) */ \
	X(WG_WAIT, "wg_wait", check_wg_x, op_wg_wait)      /* wait until wait group x is \
							    * zero */ \
	X(SYSCALL, "syscall", check_int_x, op_syscall)     /* a blocking system call \
							    * lasting x ns */ \
	X(NET_READ, "net_read", check_net_read, op_net_read) /* wait (in the netpoller) \
		for connection x's next request, take it; at its end of file, exit the \
		G (PROG_F_JUMP: go to a) */ \
	X(NET_WRITE, "net_write", check_conn_x, op_net_write) /* answer connection x's \
		request: its client sends the next one later */ \
	X(ACCEPT, "accept", check_accept, op_accept)       /* every connection of \
		listener x: spawn program a (aux args from args[dst]) with the \
		connection in its slot b; ends when x has no more */ \
	X(SET, "set", check_set, op_set)                   /* slot dst = x */ \
	X(JUMP, "jump", check_jump, op_jump)               /* to a */ \
	X(JUMP_IFNOT, "if", check_jump_ifnot, op_jump_ifnot) /* to a unless x != 0 */ \
	X(MAKE, "make", check_make, op_make)               /* slot dst = a new object of \
							    * type a (channel: capacity x) */ \
	X(ALLOC, "alloc", check_alloc, op_alloc)           /* slot dst = a new region of \
							    * x bytes, placement a, node y */ \
	X(TOUCH, "touch", check_touch, op_touch)           /* touch y bytes of region x \
		from offset z, pattern aux, PROG_F_WRITE */ \
	X(REQ_BEGIN, "request_begin", check_nothing, op_req_begin) /* a request starts \
		now (PROG_F_ARRIVAL: when its data arrived) */ \
	X(REQ_END, "request_end", check_nothing, op_req_end) /* ... and ends: its \
		latency is recorded */ \
	X(ASSERT, "assert", check_assert, op_assert)       /* panic with message strs[a] \
							    * unless x != 0 */ \
	X(SLEEP_UNTIL, "sleep_until", check_int_x, op_sleep) /* sleep until x ns after \
		the run started (at once if past): an event from outside at its \
		recorded time (imported traces) */

enum prog_opcode {
#define PROG_OP_CODE(code, name, check, run) PROG_##code,
	PROG_OPS(PROG_OP_CODE)
#undef PROG_OP_CODE
	PROG__COUNT
};

enum {
	PROG_F_EXIT = 1u << 0,     /* CASE */
	PROG_F_JUMP = 1u << 1,     /* CASE, SELECT, NET_READ */
	PROG_F_SEND = 1u << 2,     /* CASE */
	PROG_F_DEFAULT = 1u << 3,  /* SELECT: has a default (taken: to a with PROG_F_JUMP,
				    * else on after the cases) */
	PROG_F_WRITE = 1u << 4,    /* TOUCH */
	PROG_F_ARRIVAL = 1u << 5,  /* REQ_BEGIN */
	PROG_F_AFTER = 1u << 6,    /* SPAWN: each G started by a timer y ns later
				    * (time.AfterFunc), on whichever M runs it */
};

/* A region's placement and a touch's pattern are the platform's memory
 * contract's (enum rt_place, enum rt_pattern: core/policy.h). */

#define PROG_SELECT_MAX 16   /* cases per select */

enum prog_val_kind {
	PV_CONST,    /* c */
	PV_LOCAL,    /* the G's slot i */
	PV_GLOBAL,   /* the workload's object i of the type the operand expects */
	PV_DIST,     /* a sample of the workload's distribution i */
	PV_EXPR,     /* the workload's expression i */
};

struct prog_val {
	uint32_t kind;
	uint32_t i;
	int64_t c;
};

#define PV_C(v) ((struct prog_val){ PV_CONST, 0, (int64_t)(v) })

enum prog_expr_op { PE_ADD, PE_SUB, PE_MUL, PE_DIV, PE_MOD, PE_LT, PE_LE, PE_GT, PE_GE,
		    PE_EQ, PE_NE, PE_MIN, PE_MAX, PE_AND, PE_OR, PE_NOT, PE__COUNT };

struct prog_expr {
	enum prog_expr_op op;
	struct prog_val a, b;
};

struct prog_op {
	uint8_t code;
	uint8_t flags;
	uint16_t aux;
	uint32_t a, b;
	uint32_t dst;
	struct prog_val x, y, z;
};

/* A spawn argument: the child's slot and the value it gets (evaluated by
 * the parent). */
struct prog_arg {
	uint32_t slot;
	struct prog_val v;
};

struct program {
	char *name;
	struct prog_op *ops;
	uint32_t nops, cap;
	uint32_t nparams, nlocals;           /* parameters are slots 0..nparams-1 */
	char *local_names[PROG_MAX_LOCALS];
	uint8_t local_types[PROG_MAX_LOCALS];
	uint32_t max_depth;                  /* deepest its Gs may be in the spawn tree (main:
					      * 0); required on a spawn cycle; 0: none */
};

struct prog_chan {
	char *name;
	uint32_t cap;       /* buffered slots; 0 = unbuffered */
};

struct prog_region {
	char *name;
	uint64_t bytes;
	enum rt_place place;
	int node;
};

/* A source of connections.  Open loop: count connections arriving with
 * exponential (rate) or given (interval) gaps from the start of the run.
 * Closed loop: clients connections at the start.  Each connection sends
 * requests requests: the first on arrival, each next one think after the
 * answer to the previous one is written. */
struct prog_listener {
	char *name;
	bool closed;
	uint64_t count;               /* connections (clients when closed) */
	double rate;                  /* per second; 0: use interval */
	struct dist *interval;        /* gaps between arrivals, ns */
	struct dist *requests;        /* per connection */
	struct dist *think;           /* ns */
};

/* A random stream's recorded draws (a G's stream is keyed by where the G
 * is in the spawn tree, so sampled values do not depend on the order Gs
 * run in). */
struct trace_g {
	uint64_t key;
	uint64_t *draws;
	uint32_t ndraws;
};

struct workload {
	char *name;
	char *description;
	char *file;         /* where it was compiled from, for run-time messages; NULL: built in C */
	struct program *progs;
	uint32_t nprogs;
	struct prog_chan *chans;
	uint32_t nchans;
	char **mutexes;     /* names */
	uint32_t nmutexes;
	char **waitgroups;  /* names */
	uint32_t nwaitgroups;
	struct prog_region *regions;
	uint32_t nregions;
	struct prog_listener *listeners;
	uint32_t nlisteners;
	struct dist **dists;
	uint32_t ndists;
	struct prog_expr *exprs;
	uint32_t nexprs;
	struct prog_arg *args;
	uint32_t nargs;
	char **strs;        /* assertion messages */
	uint32_t nstrs;
	uint32_t main;      /* program of the first G */
	/* "stacks": each simulated G's stack as memory (0: not modelled) --
	 * the bytes in use, which a move copies, and the top frame bytes it
	 * writes each time it is run */
	uint64_t stack_bytes, stack_frame;
	/* "recorded": what the Go program a trace was imported from did
	 * (trace/import.c), for a report to set beside its prediction. */
	struct wl_recorded {
		bool present;
		char go[16];             /* the Go version that wrote the trace */
		int gomaxprocs;
		int64_t makespan_ns;
		int64_t goroutines;
		int64_t lat_p50_ns, lat_p99_ns;   /* runnable to running */
		/* those waits by why the G became runnable (the report's
		 * wake-up reasons, enum rt_run_why), and their time with a P
		 * that had no G; has_waits false: an import that did not say */
		bool has_waits;
		int64_t wake_n[RT_RUN__COUNT], wake_ns[RT_RUN__COUNT];
		int64_t wait_ns, wait_p_free_ns;
		/* what the import inferred (trace/import.c, "Channels"):
		 * shared channels, the goroutines taking from them and the
		 * wake-ups through them (backpressure: of those, blocked sends), those
		 * whose tokens carry the jobs, pairs
		 * kept, the busiest's site; has_inferred false: not said */
		bool has_inferred;
		int64_t shared, takers, wake_ups, backpressure, jobs, pairs;
		char site[128];
	} recorded;
	/* The JSON it was compiled from (canonical), for traces. */
	char *source_json;
	/* A replayed trace: every stream's draws, sorted by key. */
	struct trace_g *trace;
	uint32_t ntrace;
};

/* Building (used by the built-ins, the JSON compiler and tests). */
struct workload *wl_new(const char *name, const char *description);
uint32_t wl_add_program(struct workload *w, const char *name);
uint32_t wl_add_chan(struct workload *w, const char *name, uint32_t cap);
uint32_t wl_add_mutex(struct workload *w, const char *name);
uint32_t wl_add_waitgroup(struct workload *w, const char *name);
uint32_t wl_add_region(struct workload *w, const char *name, uint64_t bytes,
		       enum rt_place place, int node);
/* An open-loop listener of count connections every interval_ns, one
 * request each. */
uint32_t wl_add_listener(struct workload *w, const char *name, uint64_t interval_ns,
			 uint64_t count);
uint32_t wl_add_dist(struct workload *w, struct dist *d);
uint32_t wl_add_expr(struct workload *w, enum prog_expr_op op, struct prog_val a,
		     struct prog_val b);
uint32_t wl_add_local(struct workload *w, uint32_t prog, const char *name, enum prog_type t);
/* Appends an op; returns its index. */
uint32_t wl_op(struct workload *w, uint32_t prog, struct prog_op op);
/* The common shape: an op on the workload's object a (as a PV_GLOBAL
 * operand x, or the program for SPAWN) with the constant n (SPAWN and
 * SLEEP's count or time; for COMPUTE, SYSCALL: x). */
void wl_emit(struct workload *w, uint32_t prog, enum prog_opcode code, uint32_t a, uint64_t n);
/* A select case that ends the G when it fires. */
void wl_emit_case_exit(struct workload *w, uint32_t prog, uint32_t chan, bool send);
/* Opens a loop of n iterations in prog; returns the op index to close it with. */
uint32_t wl_loop(struct workload *w, uint32_t prog, uint64_t n);
void wl_end(struct workload *w, uint32_t prog, uint32_t loop);
void wl_free(struct workload *w);

/* Checks what the interpreter relies on: indices in range, operand types,
 * loops balanced, jumps inside the program.  On failure names the
 * program and op in e. */
bool wl_validate(const struct workload *w, struct err *e);
const char *wl_op_name(enum prog_opcode code);
const char *wl_type_name(enum prog_type t);
/* The draws recorded for a key in a replayed trace, or NULL. */
const struct trace_g *wl_trace_find(const struct workload *w, uint64_t key);

/* Workloads built in C, by name (workloads/builtin.c). */
int wl_builtin_count(void);
const char *wl_builtin_name(int i);
const char *wl_builtin_summary(int i);
struct workload *wl_builtin(const char *name, struct err *e);

/* What a run of programs is given (rt_config.body_arg of the body workloads/wlr.h
 * gives: rt_api.body). */
struct wlr_args {
	const struct workload *workload;
	/* Record every value drawn from the workload's distributions
	 * (`workload expand'; simulation only). */
	bool record_draws;
};

#endif
