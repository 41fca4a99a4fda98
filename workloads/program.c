/* Goroutine programs: building and checking the in-memory form. */
#include "workloads/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/dist.h"

struct workload *wl_new(const char *name, const char *description)
{
	struct workload *w = xcalloc(1, sizeof(*w));
	w->name = xstrdup(name);
	w->description = xstrdup(description ? description : "");
	return w;
}

/* Grows *arr (of n elements of size sz) by one zeroed element; returns its
 * index.  The capacity is n rounded up to a power of two, so the arrays
 * need no capacity field and n additions cost O(n) copying in all. */
static uint32_t grow(void *arr, uint32_t *n, size_t sz)
{
	void **p = arr;
	if (!(*n & (*n - 1)))
		*p = xrealloc(*p, (*n ? 2 * (size_t)*n : 1) * sz);
	memset((char *)*p + *n * sz, 0, sz);
	return (*n)++;
}

uint32_t wl_add_program(struct workload *w, const char *name)
{
	uint32_t i = grow(&w->progs, &w->nprogs, sizeof(*w->progs));
	w->progs[i].name = xstrdup(name);
	return i;
}

uint32_t wl_add_chan(struct workload *w, const char *name, uint32_t cap)
{
	uint32_t i = grow(&w->chans, &w->nchans, sizeof(*w->chans));
	w->chans[i] = (struct prog_chan){ xstrdup(name), cap };
	return i;
}

uint32_t wl_add_mutex(struct workload *w, const char *name)
{
	uint32_t i = grow(&w->mutexes, &w->nmutexes, sizeof(*w->mutexes));
	w->mutexes[i] = xstrdup(name);
	return i;
}

uint32_t wl_add_waitgroup(struct workload *w, const char *name)
{
	uint32_t i = grow(&w->waitgroups, &w->nwaitgroups, sizeof(*w->waitgroups));
	w->waitgroups[i] = xstrdup(name);
	return i;
}

uint32_t wl_add_region(struct workload *w, const char *name, uint64_t bytes,
		       enum rt_place place, int node)
{
	uint32_t i = grow(&w->regions, &w->nregions, sizeof(*w->regions));
	w->regions[i] = (struct prog_region){ xstrdup(name), bytes, place, node };
	return i;
}

uint32_t wl_add_listener(struct workload *w, const char *name, uint64_t interval_ns,
			 uint64_t count)
{
	uint32_t i = grow(&w->listeners, &w->nlisteners, sizeof(*w->listeners));
	w->listeners[i] = (struct prog_listener){
		.name = xstrdup(name),
		.count = count,
		.interval = dist_const((int64_t)interval_ns),
		.requests = dist_const(1),
		.think = dist_const(0),
	};
	return i;
}

uint32_t wl_add_dist(struct workload *w, struct dist *d)
{
	uint32_t i = grow(&w->dists, &w->ndists, sizeof(*w->dists));
	w->dists[i] = d;
	return i;
}

uint32_t wl_add_expr(struct workload *w, enum prog_expr_op op, struct prog_val a,
		     struct prog_val b)
{
	uint32_t i = grow(&w->exprs, &w->nexprs, sizeof(*w->exprs));
	w->exprs[i] = (struct prog_expr){ op, a, b };
	return i;
}

uint32_t wl_add_local(struct workload *w, uint32_t prog, const char *name, enum prog_type t)
{
	struct program *p = &w->progs[prog];
	if (p->nlocals == PROG_MAX_LOCALS)
		return PROG_NO_SLOT;
	p->local_names[p->nlocals] = xstrdup(name);
	p->local_types[p->nlocals] = (uint8_t)t;
	return p->nlocals++;
}

uint32_t wl_op(struct workload *w, uint32_t prog, struct prog_op op)
{
	struct program *p = &w->progs[prog];
	if (p->nops == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 8;
		p->ops = xrealloc(p->ops, p->cap * sizeof(*p->ops));
	}
	p->ops[p->nops] = op;
	return p->nops++;
}

static struct prog_val global(uint32_t i)
{
	return (struct prog_val){ PV_GLOBAL, i, 0 };
}

void wl_emit(struct workload *w, uint32_t prog, enum prog_opcode code, uint32_t a, uint64_t n)
{
	struct prog_op op = { .code = (uint8_t)code, .dst = PROG_NO_SLOT, .b = PROG_NO_SLOT };
	switch (code) {
	case PROG_SPAWN:
		op.a = a;
		op.x = PV_C(n);
		break;
	case PROG_COMPUTE:
	case PROG_SLEEP:
	case PROG_SYSCALL:
		op.x = PV_C(n);
		break;
	case PROG_WG_ADD:
		op.x = global(a);
		op.y = PV_C((int64_t)n);
		break;
	case PROG_SELECT:   /* a: with a default (taken: on after the cases); n cases */
		op.aux = (uint16_t)n;
		op.flags = a ? PROG_F_DEFAULT : 0;
		break;
	case PROG_CASE:     /* a: the channel; n: 1 send (the value 0), 0 receive */
		op.x = global(a);
		op.flags = n ? PROG_F_SEND : 0;
		op.y = PV_C(0);
		break;
	default:
		op.x = global(a);
		op.y = PV_C(n);
		break;
	}
	wl_op(w, prog, op);
}

void wl_emit_case_exit(struct workload *w, uint32_t prog, uint32_t chan, bool send)
{
	wl_op(w, prog, (struct prog_op){ .code = PROG_CASE,
					 .flags = (uint8_t)(PROG_F_EXIT | (send ? PROG_F_SEND : 0)),
					 .x = global(chan), .dst = PROG_NO_SLOT, .b = PROG_NO_SLOT });
}

uint32_t wl_loop(struct workload *w, uint32_t prog, uint64_t n)
{
	char name[32];
	snprintf(name, sizeof(name), "loop#%u", w->progs[prog].nops);
	uint32_t slot = wl_add_local(w, prog, name, PT_INT);
	return wl_op(w, prog, (struct prog_op){ .code = PROG_LOOP, .x = PV_C(n), .dst = slot,
						.b = PROG_NO_SLOT });
}

void wl_end(struct workload *w, uint32_t prog, uint32_t loop)
{
	uint32_t end = wl_op(w, prog, (struct prog_op){ .code = PROG_END, .a = loop,
							.dst = PROG_NO_SLOT, .b = PROG_NO_SLOT });
	w->progs[prog].ops[loop].a = end;
}

void wl_free(struct workload *w)
{
	if (!w)
		return;
	free(w->file);
	for (uint32_t i = 0; i < w->nprogs; i++) {
		free(w->progs[i].name);
		free(w->progs[i].ops);
		for (uint32_t k = 0; k < w->progs[i].nlocals; k++)
			free(w->progs[i].local_names[k]);
	}
	for (uint32_t i = 0; i < w->nchans; i++)
		free(w->chans[i].name);
	for (uint32_t i = 0; i < w->nmutexes; i++)
		free(w->mutexes[i]);
	for (uint32_t i = 0; i < w->nwaitgroups; i++)
		free(w->waitgroups[i]);
	for (uint32_t i = 0; i < w->nregions; i++)
		free(w->regions[i].name);
	for (uint32_t i = 0; i < w->nlisteners; i++) {
		struct prog_listener *l = &w->listeners[i];
		free(l->name);
		dist_free(l->interval);
		dist_free(l->requests);
		dist_free(l->think);
	}
	for (uint32_t i = 0; i < w->ndists; i++)
		dist_free(w->dists[i]);
	for (uint32_t i = 0; i < w->ntrace; i++)
		free(w->trace[i].draws);
	free(w->trace);
	for (uint32_t i = 0; i < w->nstrs; i++)
		free(w->strs[i]);
	free(w->strs);
	free(w->dists);
	free(w->exprs);
	free(w->args);
	free(w->mutexes);
	free(w->waitgroups);
	free(w->regions);
	free(w->listeners);
	free(w->progs);
	free(w->chans);
	free(w->name);
	free(w->description);
	free(w->source_json);
	free(w);
}

static const char *const opnames[] = {
#define X(code, name, check, run) [PROG_##code] = name,
	PROG_OPS(X)
#undef X
};

const char *wl_op_name(enum prog_opcode code)
{
	return code < PROG__COUNT ? opnames[code] : "?";
}

static const char *const typenames[] = {
	[PT_INT] = "int",       [PT_CHAN] = "chan",     [PT_WG] = "waitgroup", [PT_MUTEX] = "mutex",
	[PT_REGION] = "region", [PT_CONN] = "conn",     [PT_LISTENER] = "listener",
};

const char *wl_type_name(enum prog_type t)
{
	return t < PT__COUNT ? typenames[t] : "?";
}

static uint32_t nglobals(const struct workload *w, enum prog_type t)
{
	switch (t) {
	case PT_CHAN: return w->nchans;
	case PT_WG: return w->nwaitgroups;
	case PT_MUTEX: return w->nmutexes;
	case PT_REGION: return w->nregions;
	case PT_LISTENER: return w->nlisteners;
	default: return 0;
	}
}

/* Whether v is a well-formed operand of type t in program p. */
static const char *check_val(const struct workload *w, const struct program *p,
			     const struct prog_val *v, enum prog_type t, int depth)
{
	if (depth > 64)
		return "has an expression nested too deeply";
	switch (v->kind) {
	case PV_CONST:
		return t == PT_INT || v->c == 0 ? NULL : "uses a number where an object is needed";
	case PV_LOCAL:
		if (v->i >= p->nlocals)
			return "uses a slot that does not exist";
		return p->local_types[v->i] == t ? NULL : "uses a slot of the wrong type";
	case PV_GLOBAL: {
		static const char *const missing[] = {
			[PT_CHAN] = "uses a channel that does not exist",
			[PT_WG] = "uses a wait group that does not exist",
			[PT_MUTEX] = "uses a mutex that does not exist",
			[PT_REGION] = "uses a region that does not exist",
			[PT_LISTENER] = "uses a listener that does not exist",
		};
		if (t == PT_INT || t == PT_CONN)
			return "uses a named object where a value is needed";
		return v->i < nglobals(w, t) ? NULL : missing[t];
	}
	case PV_DIST:
		if (t != PT_INT)
			return "uses a distribution where an object is needed";
		return v->i < w->ndists ? NULL : "uses a distribution that does not exist";
	case PV_EXPR: {
		if (t != PT_INT)
			return "uses an expression where an object is needed";
		if (v->i >= w->nexprs)
			return "uses an expression that does not exist";
		const struct prog_expr *x = &w->exprs[v->i];
		if (x->op >= PE__COUNT)
			return "has an unknown expression";
		const char *bad = check_val(w, p, &x->a, PT_INT, depth + 1);
		return bad ? bad : check_val(w, p, &x->b, PT_INT, depth + 1);
	}
	}
	return "has an unknown operand";
}

static const char *check_slot(const struct program *p, uint32_t slot, enum prog_type t,
			      bool optional)
{
	if (slot == PROG_NO_SLOT)
		return optional ? NULL : "has no slot to write";
	if (slot >= p->nlocals)
		return "writes a slot that does not exist";
	return p->local_types[slot] == t ? NULL : "writes a slot of the wrong type";
}

static const char *check_args(const struct workload *w, const struct program *p,
			      const struct prog_op *op, const struct program *child)
{
	if (op->aux && (uint64_t)op->dst + op->aux > w->nargs)
		return "has arguments that do not exist";
	for (uint32_t k = 0; k < op->aux; k++) {
		const struct prog_arg *arg = &w->args[op->dst + k];
		if (arg->slot >= child->nparams)
			return "passes an argument the program does not take";
		const char *bad = check_val(w, p, &arg->v, child->local_types[arg->slot], 0);
		if (bad)
			return bad;
	}
	return NULL;
}

/* ---- One op's check: a validator per op (PROG_OPS), each returning what
 * is wrong with op i of p, or NULL ---- */

#define CHECK_ARGS const struct workload *w, const struct program *p, uint32_t i

static const char *check_nothing(CHECK_ARGS)
{
	return NULL;
}

/* Ops of one operand x of type t. */
static const char *check_x(CHECK_ARGS, enum prog_type t)
{
	return check_val(w, p, &p->ops[i].x, t, 0);
}

static const char *check_int_x(CHECK_ARGS)
{
	return check_x(w, p, i, PT_INT);
}

static const char *check_chan_x(CHECK_ARGS)
{
	return check_x(w, p, i, PT_CHAN);
}

static const char *check_mutex_x(CHECK_ARGS)
{
	return check_x(w, p, i, PT_MUTEX);
}

static const char *check_wg_x(CHECK_ARGS)
{
	return check_x(w, p, i, PT_WG);
}

static const char *check_conn_x(CHECK_ARGS)
{
	return check_x(w, p, i, PT_CONN);
}

/* x of type t, then y an int. */
static const char *check_x_int_y(CHECK_ARGS, enum prog_type t)
{
	const char *bad = check_x(w, p, i, t);
	return bad ? bad : check_val(w, p, &p->ops[i].y, PT_INT, 0);
}

static const char *check_send(CHECK_ARGS)
{
	return check_x_int_y(w, p, i, PT_CHAN);
}

static const char *check_wg_add(CHECK_ARGS)
{
	return check_x_int_y(w, p, i, PT_WG);
}

static const char *jump_target(const struct program *p, uint32_t a)
{
	return a <= p->nops ? NULL : "jumps outside its program";
}

static const char *check_spawn(CHECK_ARGS)
{
	const struct prog_op *op = &p->ops[i];
	if (op->a >= w->nprogs)
		return "spawns a program that does not exist";
	const char *bad = check_val(w, p, &op->x, PT_INT, 0);
	if (!bad && (op->flags & PROG_F_AFTER))
		bad = check_val(w, p, &op->y, PT_INT, 0);
	return bad ? bad : check_args(w, p, op, &w->progs[op->a]);
}

static const char *check_recv(CHECK_ARGS)
{
	const struct prog_op *op = &p->ops[i];
	const char *bad = check_val(w, p, &op->x, PT_CHAN, 0);
	if (!bad)
		bad = check_slot(p, op->b, PT_INT, true);
	return bad ? bad : check_slot(p, op->dst, PT_INT, true);
}

static const char *check_net_read(CHECK_ARGS)
{
	const struct prog_op *op = &p->ops[i];
	if ((op->flags & PROG_F_JUMP) && op->a > p->nops)
		return "jumps outside its program";
	return check_val(w, p, &op->x, PT_CONN, 0);
}

static const char *check_accept(CHECK_ARGS)
{
	const struct prog_op *op = &p->ops[i];
	if (op->a >= w->nprogs)
		return "spawns a program that does not exist";
	if (op->x.kind != PV_GLOBAL)
		return "accepts from something that is not a listener";
	const char *bad = check_val(w, p, &op->x, PT_LISTENER, 0);
	if (!bad && (op->b >= w->progs[op->a].nparams ||
		     w->progs[op->a].local_types[op->b] != PT_CONN))
		bad = "hands its connection to a parameter that is not a conn";
	return bad ? bad : check_args(w, p, op, &w->progs[op->a]);
}

static const char *check_set(CHECK_ARGS)
{
	const struct prog_op *op = &p->ops[i];
	if (op->dst >= p->nlocals)
		return "writes a slot that does not exist";
	return check_val(w, p, &op->x, (enum prog_type)p->local_types[op->dst], 0);
}

static const char *check_jump(CHECK_ARGS)
{
	return jump_target(p, p->ops[i].a);
}

static const char *check_jump_ifnot(CHECK_ARGS)
{
	const char *bad = check_int_x(w, p, i);
	return bad ? bad : jump_target(p, p->ops[i].a);
}

static const char *check_make(CHECK_ARGS)
{
	const struct prog_op *op = &p->ops[i];
	if (op->a != PT_CHAN && op->a != PT_WG && op->a != PT_MUTEX)
		return "makes something that is not a channel, wait group or mutex";
	const char *bad = check_slot(p, op->dst, (enum prog_type)op->a, false);
	return bad ? bad : check_val(w, p, &op->x, PT_INT, 0);
}

static const char *check_alloc(CHECK_ARGS)
{
	const struct prog_op *op = &p->ops[i];
	if (op->a > RT_PLACE_HEAP)
		return "has an unknown placement";
	const char *bad = check_slot(p, op->dst, PT_REGION, false);
	if (!bad)
		bad = check_val(w, p, &op->x, PT_INT, 0);
	return bad ? bad : check_val(w, p, &op->y, PT_INT, 0);
}

static const char *check_touch(CHECK_ARGS)
{
	const struct prog_op *op = &p->ops[i];
	if (op->aux > RT_POINTER_CHASE)
		return "has an unknown pattern";
	const char *bad = check_x_int_y(w, p, i, PT_REGION);
	return bad ? bad : check_val(w, p, &op->z, PT_INT, 0);
}

static const char *check_assert(CHECK_ARGS)
{
	if (p->ops[i].a >= w->nstrs)
		return "has a message that does not exist";
	return check_int_x(w, p, i);
}

static const char *check_loop(CHECK_ARGS)
{
	const struct prog_op *op = &p->ops[i];
	if (op->a <= i || op->a >= p->nops || p->ops[op->a].code != PROG_END ||
	    p->ops[op->a].a != i)
		return "opens a loop without a matching end";
	const char *bad = check_slot(p, op->dst, PT_INT, false);
	if (!bad)
		bad = check_slot(p, op->b, PT_INT, true);
	return bad ? bad : check_val(w, p, &op->x, PT_INT, 0);
}

static const char *check_end(CHECK_ARGS)
{
	const struct prog_op *op = &p->ops[i];
	return op->a < i && p->ops[op->a].code == PROG_LOOP && p->ops[op->a].a == i
		       ? NULL
		       : "closes a loop that is not open";
}

/* A select's case (a PROG_CASE, never reached on its own). */
static const char *check_case(const struct workload *w, const struct program *p,
			      const struct prog_op *c)
{
	if (c->code != PROG_CASE)
		return "has fewer cases than it says";
	const char *bad = check_val(w, p, &c->x, PT_CHAN, 0);
	if (!bad && (c->flags & PROG_F_SEND))
		bad = check_val(w, p, &c->y, PT_INT, 0);
	if (!bad && !(c->flags & PROG_F_SEND))
		bad = check_slot(p, c->dst, PT_INT, true);
	if (!bad && (c->flags & PROG_F_JUMP) && c->a > p->nops)
		bad = "jumps outside its program";
	return bad;
}

static const char *check_select(CHECK_ARGS)
{
	const struct prog_op *op = &p->ops[i];
	if (op->aux == 0 || op->aux > PROG_SELECT_MAX)
		return "must have 1 to 16 cases";
	if ((uint64_t)i + op->aux >= p->nops)
		return "has fewer cases than it says";
	if ((op->flags & PROG_F_DEFAULT) && op->a > p->nops)
		return "jumps outside its program";
	for (uint32_t k = 1; k <= op->aux; k++) {
		const char *bad = check_case(w, p, &p->ops[i + k]);
		if (bad)
			return bad;
	}
	return NULL;
}

#undef CHECK_ARGS

static const char *(*const op_checks[PROG__COUNT])(const struct workload *, const struct program *,
						     uint32_t) = {
#define X(code, name, check, run) [PROG_##code] = check,
	PROG_OPS(X)
#undef X
};

static const char *check_op(const struct workload *w, const struct program *p, uint32_t i)
{
	uint8_t code = p->ops[i].code;
	return code < PROG__COUNT ? op_checks[code](w, p, i) : "has an unknown operation";
}

bool wl_validate(const struct workload *w, struct err *e)
{
	if (w->nprogs == 0 || w->main >= w->nprogs) {
		err_set(e, "workload %s: no main program", w->name);
		return false;
	}
	if (w->progs[w->main].nparams) {
		err_set(e, "workload %s: program %s: main takes no parameters", w->name,
			w->progs[w->main].name);
		return false;
	}
	for (uint32_t pi = 0; pi < w->nprogs; pi++) {
		const struct program *p = &w->progs[pi];
		for (uint32_t i = 0; i < p->nops; i++) {
			const char *bad = check_op(w, p, i);
			if (bad) {
				err_set(e, "workload %s: program %s: op %u (%s) %s", w->name, p->name,
					i, wl_op_name((enum prog_opcode)p->ops[i].code), bad);
				return false;
			}
			if (p->ops[i].code == PROG_SELECT)
				i += p->ops[i].aux;
		}
	}
	return true;
}

const struct trace_g *wl_trace_find(const struct workload *w, uint64_t key)
{
	uint32_t lo = 0, hi = w->ntrace;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (w->trace[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->ntrace && w->trace[lo].key == key ? &w->trace[lo] : NULL;
}
