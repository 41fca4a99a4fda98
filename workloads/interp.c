/* The program interpreter: what a workload's G does when it runs, and the
 * workload run's side of the body interface [core/body.h, wlr_body].
 *
 * wlr_g_run() executes the G's program from its pc until the G gives
 * control back (it yields, parks, exits or is preempted).  A G is its pc,
 * its frame of typed slots and its random stream, so a simulated G needs
 * no stack: the M calls wlr_g_run() on its own.  Natively the same function
 * runs on the G's stack.  An operation that must wait (a receive with no
 * sender) queues the G, sets g->in_op and returns G_PARK; when the G runs
 * again, in_op says the operation was completed by its partner meanwhile
 * (the value handed over), and the G moves on [The fallible protocol].
 * Each op is a short function of its own [Operations]; what Go's rules
 * decide (nil and closed channels, a negative WaitGroup, an unlocked
 * mutex, a select's nil cases) the core's chan.c and sync.c decide,
 * not the interpreter.
 *
 * Objects: the workload's named channels, wait groups, mutexes, regions
 * and listeners are made with the run; those a program makes (make,
 * alloc, accept) live in a slot as a pointer and are freed with the run,
 * as a garbage collector would have left them to the end.
 *
 * Randomness: every distribution-valued operand is sampled when the op
 * runs, from the running G's own stream.  A stream is keyed by the G's
 * place in the spawn tree (main, its k-th child, that child's j-th ...),
 * not by goroutine id or time, so the values a G sees are the same under
 * every policy and machine: comparing policies compares them on the same
 * sampled workload.  `workload expand' records every draw by key; a
 * replayed trace hands them back in order. */
#include "workloads/wlr.h"

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/dist.h"
#include "workloads/program.h"

#define MAIN_KEY 0x6d61696e2d67ULL

/* ---- Budgets ----
 *
 * Valid input must not be able to exhaust the machine: a workload's run
 * counts what it makes against a memory budget (RT_MEMORY_BUDGET, or a
 * lower one the run was given), in bytes of simulator memory never given
 * back -- what is made lives to the end of the run.  Counted: goroutines
 * (RT_BYTES_PER_G each, a slab at a time, as the compiler's check counts
 * them), Ms (RT_BYTES_PER_M), made channels with their buffers, mutexes
 * and wait groups (WL_BYTES_PER_OBJ), regions' page records
 * (WL_BYTES_PER_PAGE a page) and a trace's recorded draws.  What would
 * pass it panics, as Go's runtime does when memory runs out, naming the
 * file, program and op that asked; the run then ends like any panic
 * (exit 2).  The compiler refuses what it can bound before the run; this
 * catches the rest: counts computed at run time, recursion, loops. */

/* "4 GiB memory budget" (or MiB), and what of it is used. */
static const char *budget_str(const struct rt *rt)
{
	static _Thread_local char buf[96];
	uint64_t b = rt->mem_budget;
	double used = (double)__atomic_load_n(&rt->mem_used, __ATOMIC_RELAXED);
	if (b % (1u << 30) == 0)
		snprintf(buf, sizeof(buf), "its %llu GiB memory budget (%.2f GiB used)",
			 (unsigned long long)(b >> 30), used / (1u << 30));
	else
		snprintf(buf, sizeof(buf), "its %.0f MiB memory budget (%.1f MiB used)",
			 (double)b / (1u << 20), used / (1u << 20));
	return buf;
}

/* Panics with a budget's (or a limit's) message, naming where the
 * workload asked for it (its file, g's program and op). */
static void budget_panic(struct m *m, struct g *g, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void budget_panic(struct m *m, struct g *g, const char *fmt, ...)
{
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	const struct workload *w = wlr(m->rt)->wl;
	const char *file = w->file ? w->file : w->name;
	const struct gframe *f = g ? g_frame(g) : NULL;
	if (f)
		rt_panic(m, "%s (%s: program %s, op %u: %s)", msg, file, f->prog->name, f->pc,
			 wl_op_name(f->prog->ops[f->pc].code));
	else
		rt_panic(m, "%s (%s)", msg, file);
}

/* ---- Streams ---- */

void wlr_stream_init(struct rt *rt, struct wlr_stream *s, uint64_t key)
{
	s->key = key;
	s->state = dist_stream_seed(rt->seed, key);
	s->used = 0;
	s->replay = wlr(rt)->wl->trace ? wl_trace_find(wlr(rt)->wl, key) : NULL;
}

/* false: no room in the budget to keep the draw */
static bool record(struct rt *rt, uint64_t key, int64_t v)
{
	struct wlr_run *w = wlr(rt);
	if (w->nrec == w->caprec) {
		size_t cap = w->caprec ? 2 * w->caprec : 1024;
		if (!rt_mem_charge(rt, (cap - w->caprec) * sizeof(*w->rec)))
			return false;
		w->caprec = cap;
		w->rec = xrealloc(w->rec, w->caprec * sizeof(*w->rec));
	}
	w->rec[w->nrec++] = (struct rt_draw){ key, v };
	return true;
}

/* m's state of the run, made at its first need. */
static struct wlr_m *wlr_m(struct m *m)
{
	if (!m->body_m)
		m->body_m = xcalloc(1, sizeof(struct wlr_m));
	return m->body_m;
}

int64_t wlr_draw(struct m *m, struct wlr_stream *s, const struct dist *d)
{
	int64_t v;
	if (dist_is_const(d, &v))
		return v;
	struct rt *rt = m->rt;
	if (wlr(rt)->wl->trace) {
		if (!s->replay || s->used >= s->replay->ndraws) {
			rt_panic(m, "trace: no more values for stream %016llx (%u used): the trace "
				    "does not match this workload's control flow",
				 (unsigned long long)s->key, s->used);
			return 0;
		}
		return (int64_t)s->replay->draws[s->used++];
	}
	struct wlr_m *wm = wlr_m(m);
	if (!wm->gsl)
		wm->gsl = dist_rng_new();
	dist_rng_use(wm->gsl, &s->state);
	v = dist_sample(d, wm->gsl);
	s->used++;
	if (wlr(rt)->recording && !record(rt, s->key, v))
		budget_panic(m, m->curg, "runtime: out of memory: the trace's draw %zu would take "
					    "the run past %s",
				wlr(rt)->nrec + 1, budget_str(rt));
	return v;
}

size_t wlr_draws(struct rt *rt, const struct rt_draw **out)
{
	*out = wlr(rt)->rec;
	return wlr(rt)->nrec;
}

/* ---- Objects ---- */

static void wlr_objs_push(struct wlr_objs *o, void *obj)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 16;
		o->v = xrealloc(o->v, o->cap * sizeof(*o->v));
	}
	o->v[o->n++] = obj;
}

void wlr_objs_add(struct m *m, enum prog_type t, void *obj)
{
	wlr_objs_push(&wlr_m(m)->made[t], obj);
}

static uint64_t region_pages(uint64_t bytes)
{
	return bytes / 4096 + (bytes % 4096 != 0) + (bytes == 0);
}

/* NULL if its page records would take the run past its budget [Budgets]
 * (the model's records are never given back, so every region made
 * counts, freed or not). */
static struct rt_region *region_new(struct rt *rt, uint64_t bytes, int place, int node)
{
	if (!rt_mem_charge(rt, region_pages(bytes) * WL_BYTES_PER_PAGE))
		return NULL;
	__atomic_add_fetch(&wlr(rt)->region_pages, region_pages(bytes), __ATOMIC_RELAXED);
	struct rt_region *r = xcalloc(1, sizeof(*r));
	r->bytes = bytes;
	/* a workload written for more nodes than the machine has wraps */
	node = node < 0 ? 0 : node % rt->topo->nnodes;
	if (!plat_region_init(rt, r, place, node)) {
		free(r);
		return NULL;
	}
	return r;
}

static void region_free(struct rt *rt, struct rt_region *r)
{
	plat_region_fini(rt, r);
	free(r);
}

/* ---- The run [core/body.h] ---- */

static bool run_check(const struct rt_config *cfg, struct err *e)
{
	const struct wlr_args *a = cfg->body_arg;
	if (!a || !a->workload) {
		err_set(e, "no workload to run");
		return false;
	}
	if (a->record_draws && plat_g_has_stack()) {
		err_set(e, "draws are recorded in simulation only");
		return false;
	}
	return wl_validate(a->workload, e);
}

/* The workload's named objects, made with the run, in the order the
 * platform sees them: channels, mutexes, wait groups, listeners, regions. */
/* The trace's names: a G groups by its program, a block names its op. */
static void make_labels(struct wlr_run *r, const struct workload *w)
{
	size_t n = 1 + w->nprogs;
	r->op_label = xcalloc(w->nprogs + 1, sizeof(*r->op_label));
	for (uint32_t i = 0; i < w->nprogs; i++) {
		r->op_label[i] = (uint32_t)n;
		n += w->progs[i].nops;
	}
	r->labels = xcalloc(n, sizeof(*r->labels));
	r->labels[0] = xstrdup("");
	for (uint32_t i = 0; i < w->nprogs; i++) {
		const struct program *pr = &w->progs[i];
		r->labels[1 + i] = xstrdup(pr->name);
		for (uint32_t pc = 0; pc < pr->nops; pc++)
			r->labels[r->op_label[i] + pc] = xasprintf("%s: %s (op %u)", pr->name,
								   wl_op_name(pr->ops[pc].code), pc);
	}
	r->nlabels = n;
}

static size_t trace_labels(const struct rt *rt, const char *const **out)
{
	const struct wlr_run *r = wlr(rt);
	*out = (const char *const *)r->labels;
	return r->labels ? r->nlabels : 0;
}

static uint32_t g_label(const struct rt *rt, const struct g *g, bool op)
{
	const struct wlr_run *r = wlr(rt);
	const struct gframe *f = g_frame((struct g *)g);
	if (!r->labels || !f->prog)
		return 0;
	uint32_t i = (uint32_t)(f->prog - r->wl->progs);
	if (!op || f->pc >= f->prog->nops)
		return 1 + i;
	return r->op_label[i] + f->pc;
}

static bool run_new(struct rt *rt, const struct rt_config *cfg, struct err *e)
{
	struct wlr_run *r = xcalloc(1, sizeof(*r));
	rt->body_run = r;
	const struct wlr_args *a = cfg->body_arg;
	const struct workload *w = r->wl = a->workload;
	r->recording = a->record_draws;
	rt->name = w->file ? w->file : w->name;
	/* The workload's own objects count against the budget first, as the
	 * compiler's check counts them (a lowered budget may not fit them). */
	uint64_t named = (uint64_t)(w->nchans + w->nmutexes + w->nwaitgroups) * WL_BYTES_PER_OBJ;
	for (uint32_t i = 0; i < w->nchans; i++)
		named += (uint64_t)w->chans[i].cap * sizeof(uint64_t);
	if (!rt_mem_charge(rt, named)) {
		err_set(e, "%s: the workload's channels, mutexes and wait groups need %.1f MiB, past "
			   "the run's memory budget of %.1f MiB",
			rt->name, (double)named / (1 << 20), (double)rt->mem_budget / (1 << 20));
		return false;
	}
	r->chans = xcalloc(w->nchans + 1, sizeof(*r->chans));
	for (uint32_t i = 0; i < w->nchans; i++)
		r->chans[i] = rt_chan_new(rt, w->chans[i].cap, 0);
	r->mutexes = xcalloc(w->nmutexes + 1, sizeof(*r->mutexes));
	for (uint32_t i = 0; i < w->nmutexes; i++)
		r->mutexes[i] = rt_gmutex_new(rt, 0);
	r->waitgroups = xcalloc(w->nwaitgroups + 1, sizeof(*r->waitgroups));
	for (uint32_t i = 0; i < w->nwaitgroups; i++)
		r->waitgroups[i] = rt_waitgroup_new(rt, 0);
	wlr_net_init(rt);
	if (cfg->lim.trace)
		make_labels(r, w);
	if (w->stack_bytes && !plat_g_frame_init(rt, w->stack_frame, e)) {
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		err_set(e, "%s: %s", rt->name, why);
		return false;
	}
	r->regions = xcalloc(w->nregions + 1, sizeof(*r->regions));
	for (uint32_t i = 0; i < w->nregions; i++) {
		const struct prog_region *pr = &w->regions[i];
		r->regions[i] = region_new(rt, pr->bytes, pr->place, pr->node);
		if (!r->regions[i]) {
			/* the compiler's check fits them in the largest budget */
			err_set(e, "%s: region %s would take the run past %s", rt->name, pr->name,
				budget_str(rt));
			return false;
		}
	}
	return true;
}

static void free_made(struct rt *rt, enum prog_type t, void *obj)
{
	switch (t) {
	case PT_CHAN: rt_chan_free(obj); break;
	case PT_REGION: region_free(rt, obj); break;
	case PT_CONN: free(obj); break;
	default: free(obj); break;
	}
}

/* Accepts a run_new that stopped half way. */
static void run_free(struct rt *rt)
{
	struct wlr_run *r = wlr(rt);
	const struct workload *w = r->wl;
	for (size_t i = 0; r->labels && i < r->nlabels; i++)
		free(r->labels[i]);
	free(r->labels);
	free(r->op_label);
	for (struct m *m = rt->allm; m; m = m->alllink) {
		struct wlr_m *wm = m->body_m;
		if (!wm)
			continue;
		for (int t = 0; t < PT__COUNT; t++) {
			for (size_t i = 0; i < wm->made[t].n; i++)
				free_made(rt, (enum prog_type)t, wm->made[t].v[i]);
			free(wm->made[t].v);
		}
		for (size_t i = 0; i < wm->afters.n; i++)
			free(wm->afters.v[i]);
		free(wm->afters.v);
		if (wm->gsl)
			gsl_rng_free(wm->gsl);
		free(wm);
		m->body_m = NULL;
	}
	for (uint32_t i = 0; r->regions && i < w->nregions; i++)
		if (r->regions[i])
			region_free(rt, r->regions[i]);
	free(r->regions);
	free(r->rec);
	wlr_net_free(rt);
	for (uint32_t i = 0; r->mutexes && i < w->nmutexes; i++)
		free(r->mutexes[i]);
	for (uint32_t i = 0; r->waitgroups && i < w->nwaitgroups; i++)
		free(r->waitgroups[i]);
	free(r->mutexes);
	free(r->waitgroups);
	for (uint32_t i = 0; r->chans && i < w->nchans; i++)
		rt_chan_free(r->chans[i]);
	free(r->chans);
	free(r);
	rt->body_run = NULL;
}

/* ---- Values ---- */

static void *global_obj(const struct rt *rt, enum prog_type t, uint32_t i)
{
	switch (t) {
	case PT_CHAN: return wlr(rt)->chans[i];
	case PT_WG: return wlr(rt)->waitgroups[i];
	case PT_MUTEX: return wlr(rt)->mutexes[i];
	case PT_REGION: return wlr(rt)->regions[i];
	case PT_LISTENER: return wlr(rt)->listeners[i];
	default: return NULL;
	}
}

static int64_t eval(struct m *m, struct g *g, const struct prog_val *v);

/* Kept out of eval: inlined there, GCC makes every operand's evaluation
 * dearer (callgrind: +0.9% of a skynet run's instructions). */
static __attribute__((noinline)) int64_t eval_expr(struct m *m, struct g *g,
						   const struct prog_expr *x)
{
	int64_t a = eval(m, g, &x->a);
	/* && and || do not evaluate what they do not need (a draw is not free) */
	if (x->op == PE_AND && !a)
		return 0;
	if (x->op == PE_OR && a)
		return 1;
	int64_t b = x->op == PE_NOT ? 0 : eval(m, g, &x->b);
	switch (x->op) {
	case PE_ADD: return (int64_t)((uint64_t)a + (uint64_t)b);
	case PE_SUB: return (int64_t)((uint64_t)a - (uint64_t)b);
	case PE_MUL: return (int64_t)((uint64_t)a * (uint64_t)b);
	case PE_DIV:
	case PE_MOD:
		if (b == 0) {
			rt_panic(m, "runtime error: integer divide by zero");
			return 0;
		}
		if (b == -1)   /* INT64_MIN / -1 overflows in C, wraps in Go */
			return x->op == PE_DIV ? (int64_t)(0 - (uint64_t)a) : 0;
		return x->op == PE_DIV ? a / b : a % b;
	case PE_LT: return a < b;
	case PE_LE: return a <= b;
	case PE_GT: return a > b;
	case PE_GE: return a >= b;
	case PE_EQ: return a == b;
	case PE_NE: return a != b;
	case PE_MIN: return a < b ? a : b;
	case PE_MAX: return a > b ? a : b;
	case PE_AND:
	case PE_OR: return b != 0;
	case PE_NOT: return !a;
	case PE__COUNT: break;
	}
	return 0;
}

static int64_t eval(struct m *m, struct g *g, const struct prog_val *v)
{
	switch ((enum prog_val_kind)v->kind) {
	case PV_CONST: return v->c;
	case PV_LOCAL: return g_frame(g)->locals[v->i];
	case PV_DIST: return wlr_draw(m, &g_frame(g)->rs, wlr(m->rt)->wl->dists[v->i]);
	case PV_EXPR: return eval_expr(m, g, &wlr(m->rt)->wl->exprs[v->i]);
	case PV_GLOBAL: break;   /* an object: see obj() */
	}
	return 0;
}

/* An operand of object type t: a handle in a slot, a named object, or
 * nil (the constant 0). */
static void *obj(struct m *m, struct g *g, const struct prog_val *v, enum prog_type t)
{
	if (v->kind == PV_GLOBAL)
		return global_obj(m->rt, t, v->i);
	return (void *)(intptr_t)eval(m, g, v);
}

/* A value for a slot of type t. */
static int64_t value(struct m *m, struct g *g, const struct prog_val *v, enum prog_type t)
{
	if (t != PT_INT)
		return (int64_t)(intptr_t)obj(m, g, v, t);
	return eval(m, g, v);
}

/* ---- Gs ---- */

/* Gives a new G running prog its frame, at depth of its program's
 * recursion, with the random stream key; its args are its maker's to set. */
static void g_init_at(struct rt *rt, struct g *g, const struct program *prog, uint32_t depth,
		      uint64_t key)
{
	struct gframe *f = g_frame(g);
	f->prog = prog;
	f->pc = 0;
	f->compute_left = 0;
	f->root_spawn = false;
	memset(f->locals, 0, f->prog->nlocals * sizeof(f->locals[0]));
	f->nspawned = 0;
	f->depth = depth;
	f->req_start = -1;
	f->last_arrival = 0;
	wlr_stream_init(rt, &f->rs, key);
	/* Go's newproc takes the stack from its maker's P and writes the
	 * first frame there: the stack is on the maker's node */
	if (!f->stack)
		g->stack_node = plat_self() ? plat_node() : 0;
}

/* The next child of the G whose frame is pf: its recursion depth, and
 * its random stream's key (the spawn counts). */
static uint64_t next_child(struct gframe *pf, uint32_t *depth)
{
	*depth = pf->depth + 1;
	return dist_key_child(pf->rs.key, pf->nspawned++);
}

/* ... its stream the parent's next child's (NULL parent: main). */
static void g_init(struct rt *rt, struct g *parent, struct g *g, const struct program *prog)
{
	uint32_t depth = 0;
	uint64_t key = parent ? next_child(g_frame(parent), &depth) : MAIN_KEY;
	g_init_at(rt, g, prog, depth, key);
}

/* spawn's arguments for prog, evaluated by g into args.  false: g
 * panicked (its recursion went past prog's max_depth, or an argument). */
static bool spawn_args(struct m *m, struct g *g, const struct program *prog,
		       const struct prog_op *op, int64_t *args)
{
	if (prog->max_depth && g_frame(g)->depth + 1 > prog->max_depth) {
		rt_panic(m, "program %s: recursion deeper than its max_depth %u", prog->name,
			 prog->max_depth);
		return false;
	}
	for (uint32_t k = 0; k < op->aux; k++) {
		const struct prog_arg *arg = &wlr(m->rt)->wl->args[op->dst + k];
		args[k] = value(m, g, &arg->v, (enum prog_type)prog->local_types[arg->slot]);
	}
	return !g->panicking;
}

/* A new G, or NULL after a panic naming prog (g: the spawner, if any). */
static struct g *spawn_g(struct m *m, struct g *g, const struct program *prog)
{
	struct g *c = rt_newg(m);
	if (!c)
		budget_panic(m, g, "runtime: out of memory: a goroutine of program %s would take "
				      "the run past %s",
				prog->name, budget_str(m->rt));
	return c;
}

static void set_args(struct rt *rt, struct g *c, const struct prog_op *op, const int64_t *args)
{
	for (uint32_t k = 0; k < op->aux; k++)
		g_frame(c)->locals[wlr(rt)->wl->args[op->dst + k].slot] = args[k];
}

/* A child of g running prog, its parameters from args (evaluated by g),
 * queued.  false: the G panicked. */
static bool spawn(struct m *m, struct g *g, const struct program *prog, const struct prog_op *op,
		  uint32_t conn_slot, void *conn)
{
	struct rt *rt = m->rt;
	int64_t args[PROG_MAX_LOCALS];
	if (!spawn_args(m, g, prog, op, args))
		return false;
	/* made, given its frame, and only then queued where another M may run it */
	struct g *c = spawn_g(m, g, prog);
	if (!c)
		return false;
	g_init(rt, g, c, prog);
	set_args(rt, c, op, args);
	if (conn_slot != PROG_NO_SLOT)
		g_frame(c)->locals[conn_slot] = (int64_t)(intptr_t)conn;
	rt_startg(m, c);
	/* a root spawn's mark (it just accepted a connection) is used up */
	g_frame(g)->root_spawn = false;
	return true;
}

/* ---- Spawning later: time.AfterFunc ----
 * A spawn with "after" sets, for each G, a timer on the running P, as
 * AfterFunc does; the G is made when the timer fires, by whichever M runs
 * it (Go's timer function starts a goroutine there).  What the spawner
 * decides is decided at the spawn -- the arguments, the child's stream,
 * its depth -- so a run does not depend on when the timer ran.  The
 * record is kept by the M that made it until the run ends (and counted
 * in the budget, as an object), and reused: a fired record goes to the
 * free list of the M that fired it. */
struct wlr_after {
	struct timer t;
	struct wlr_after *next_free;
	const struct program *prog;
	const struct prog_op *op;
	uint32_t depth;
	uint64_t key;
	int64_t args[PROG_MAX_LOCALS];
};

static void after_put(struct wlr_m *wm, struct wlr_after *a)
{
	a->next_free = wm->after_free;
	wm->after_free = a;
}

static void after_fire(struct m *m, struct timer *t)
{
	struct wlr_after *a = (struct wlr_after *)t;
	struct g *c = spawn_g(m, NULL, a->prog);
	if (c) {
		g_init_at(m->rt, c, a->prog, a->depth, a->key);
		/* what started it was due then: request_begin "arrival" times
		 * from there, as AfterFunc's callback measures its lateness */
		g_frame(c)->last_arrival = a->t.when;
		set_args(m->rt, c, a->op, a->args);
		rt_startg(m, c);
	}
	after_put(wlr_m(m), a);
}

/* false: g panicked */
static bool spawn_after(struct m *m, struct g *g, const struct program *prog,
			const struct prog_op *op, int64_t ns)
{
	struct wlr_m *wm = wlr_m(m);
	struct wlr_after *a = wm->after_free;
	if (a) {
		wm->after_free = a->next_free;
	} else {
		if (!rt_mem_charge(m->rt, WL_BYTES_PER_OBJ)) {
			budget_panic(m, g, "runtime: out of memory: a timer for a goroutine of "
					   "program %s would take the run past %s",
				     prog->name, budget_str(m->rt));
			return false;
		}
		a = xcalloc(1, sizeof(*a));
		wlr_objs_push(&wm->afters, a);
	}
	if (!spawn_args(m, g, prog, op, a->args)) {
		after_put(wm, a);
		return false;
	}
	a->prog = prog;
	a->op = op;
	a->key = next_child(g_frame(g), &a->depth);
	memset(&a->t, 0, sizeof(a->t));
	a->t.when = rt_time_after(plat_nanotime(), ns);
	a->t.f = after_fire;
	rt_timer_add(m, &a->t);
	return true;
}

/* The per-program figure a program's work counts in. */
static unsigned prog_slot(const struct rt *rt, const struct program *pr)
{
	size_t i = (size_t)(pr - wlr(rt)->wl->progs);
	return i < RT_USER_CLASSES ? (unsigned)i : RT_USER_CLASSES - 1;
}

static unsigned g_class(const struct rt *rt, const struct g *g)
{
	return prog_slot(rt, g_frame((struct g *)g)->prog);
}

/* Programs past the last class share it: it is named "(rest)". */
static const char *class_name(const struct rt *rt, unsigned k)
{
	size_t n = wlr(rt)->wl->nprogs;
	if (k >= n || k >= RT_USER_CLASSES)
		return NULL;
	if (k == RT_USER_CLASSES - 1 && n > RT_USER_CLASSES)
		return "(rest)";
	return wlr(rt)->wl->progs[k].name;
}

static void account_user(struct m *m, const struct program *pr, int64_t ns)
{
	m->stats.user_ns += (uint64_t)ns;
	wlr_m(m)->user_ns_by_class[prog_slot(m->rt, pr)] += (uint64_t)ns;
}

static void g_account_user(struct m *m, struct g *g, int64_t ns)
{
	account_user(m, g_frame(g)->prog, ns);
}

/* ---- Modelled stacks [workload "stacks"] ----
 *
 * A simulated G is a program counter, with no stack of its own; a
 * workload that declares "stacks" gives each one a region standing for
 * it, made on its maker's node when it first runs and kept with the G
 * when the G is reused.  Each run writes the top frame, so a G that runs
 * far from its stack pays for it whenever the frame is no longer in a
 * cache.  Natively a G has a real stack, and each run writes the frame
 * there (plat_g_write_frame); it has no node to move from. */
static void stack_enter(struct m *m, struct g *g)
{
	struct rt *rt = m->rt;
	const struct workload *w = wlr(rt)->wl;
	struct gframe *f = g_frame(g);
	if (!f->stack) {
		f->stack = region_new(rt, w->stack_bytes, RT_PLACE_NODE, g->stack_node);
		if (!f->stack) {
			budget_panic(m, g, "runtime: out of memory: the modelled stack of a goroutine "
					      "would take the run past %s", budget_str(rt));
			return;
		}
		wlr_objs_add(m, PT_REGION, f->stack);
	}
	int64_t ns = plat_touch(f->stack, w->stack_bytes - w->stack_frame, w->stack_frame,
				RT_SEQUENTIAL, true, 0);
	account_user(m, f->prog, ns);
}

static bool g_stack_modelled(const struct g *g)
{
	return g_frame((struct g *)g)->stack != NULL;
}

static bool g_stack_move(struct m *m, struct g *g, int node)
{
	struct rt *rt = m->rt;
	struct gframe *f = g_frame(g);
	if (!f->stack || g->stack_node == node)
		return false;
	uint64_t bytes = wlr(rt)->wl->stack_bytes;
	struct rt_region *to = region_new(rt, bytes, RT_PLACE_NODE, node);
	if (!to) {
		budget_panic(m, g, "runtime: out of memory: moving a goroutine's modelled stack "
				      "would take the run past %s", budget_str(rt));
		g->panicking = true;   /* it is about to run, not running */
		return false;
	}
	wlr_objs_add(m, PT_REGION, to);
	/* copystack: read where it was, write where it goes (the runtime's
	 * work, so not the G's user time) */
	plat_touch(f->stack, 0, bytes, RT_SEQUENTIAL, false, 0);
	plat_touch(to, 0, bytes, RT_SEQUENTIAL, true, 0);
	f->stack = to;
	g->stack_node = node;
	m->stats.stack_moves++;
	return true;
}

/* ---- Operations ----
 *
 * One function per op, each a few lines, as Lua's lvm.c keeps each case
 * of its loop short; wlr_g_run's switch (op_run) calls them.  They are
 * static and each is called once, so the compiler inlines them and the
 * loop costs what one big switch did.  An op runs with the G at its pc and returns
 * OP_ON to go on with the op f->pc now names, or why the G gives its M
 * back (enum g_why). */
enum { OP_ON = -1 };

/* Past this op, to the next. */
static inline int next(struct gframe *f)
{
	f->pc++;
	return OP_ON;
}

static inline int jump(struct gframe *f, uint32_t pc)
{
	f->pc = pc;
	return OP_ON;
}

/* An op that may have panicked (the core decides Go's panics and calls
 * rt_panic): the G ends there, else goes on. */
static inline int next_unless_panicking(struct g *g, struct gframe *f)
{
	return g->panicking ? G_EXIT : next(f);
}

/* A nil operand the op would dereference: Go's nil pointer panic. */
static int nil_deref(struct m *m, const char *what)
{
	rt_panic(m, "invalid memory address or nil pointer dereference (%s)", what);
	return G_EXIT;
}

static int panic_exit(struct m *m, const char *msg)
{
	rt_panic(m, "%s", msg);
	return G_EXIT;
}

/* ---- The fallible protocol ----
 *
 * An op that may have to wait -- a send, a receive, a select, a sleep, a
 * wait group's wait, a network read, an accept -- runs in two halves.
 * Its start asks the core, which either completes it at once or leaves
 * the G committed to park, queued where its partner (a peer, a close, a
 * timer, the netpoller) will find it; park_or_exit() then sets g->in_op
 * and the G gives its M back.  The partner completes the op while the G
 * is parked, leaving the outcome in the G (g->sud, g->sel), and readies
 * it; when the G runs again, resumed() says so and the op's second half
 * takes the outcome (from the core: rt_chanrecv_resume ...) and moves on.
 * A preemption request is not honoured between the halves.  A start
 * that panicked ends the G instead.  A mutex's lock is not fallible in
 * this sense: a woken waiter is not handed the lock, it starts again
 * (and may lose to a newcomer, as in Go's normal mode). */
static inline bool resumed(struct g *g)
{
	if (!g->in_op)
		return false;
	g->in_op = false;
	return true;
}

/* The start did not complete the op (or panicked). */
static inline int park_or_exit(struct g *g)
{
	if (g->panicking)
		return G_EXIT;
	g->in_op = true;
	return G_PARK;
}

/* ---- Computation and system calls ---- */

static int op_compute(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	int64_t want = f->compute_left ? f->compute_left : eval(m, g, &op->x);
	int64_t done = plat_work(want, &g->preempt);
	account_user(m, f->prog, done);
	if (done < want) {
		/* cut by preemption: the rest when it runs again */
		f->compute_left = want - done;
		plat_store_u32(&g->preempt, 0, memory_order_relaxed);
		return G_PREEMPT;
	}
	f->compute_left = 0;
	return next(f);
}

static int op_syscall(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	int64_t ns = eval(m, g, &op->x);
	rt_entersyscall(m, g);
	unsigned was = rt_mt_switch(m, RT_MT(RT_CPU_SYSCALL, 0));
	plat_syscall(ns);
	rt_mt_switch(m, was);
	f->pc++;
	/* no P to go back to: queued, and run later by an M with one */
	return rt_exitsyscall(m, g) ? OP_ON : G_NOP;
}

static int op_spawn(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	int64_t n = eval(m, g, &op->x);
	const struct program *prog = &wlr(m->rt)->wl->progs[op->a];
	if (op->flags & PROG_F_AFTER) {
		/* one delay for all of them, evaluated once, as a loop of
		 * AfterFunc calls with one duration */
		int64_t ns = n > 0 ? eval(m, g, &op->y) : 0;
		for (int64_t i = 0; i < n && !g->panicking; i++)
			spawn_after(m, g, prog, op, ns);
		return next(f);
	}
	for (int64_t i = 0; i < n && !g->panicking; i++)
		spawn(m, g, prog, op, PROG_NO_SLOT, NULL);
	return next(f);
}

static int op_sleep(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	if (resumed(g))
		return next(f);
	/* not through park_or_exit: the sleep is committed whatever the
	 * duration's evaluation did (a panic there ends the G when it wakes,
	 * not with its park half made) */
	g->in_op = true;
	int64_t ns = eval(m, g, &op->x);
	if (op->code == PROG_SLEEP_UNTIL)
		/* an instant of the run: what is left of it from now */
		ns -= plat_nanotime() - m->rt->start_ns;
	rt_sleep_park(m, g, ns);
	return G_PARK;
}

/* ---- Channels: Go's rules (nil, closed) are the core's [core/chan.c] ---- */

static bool chan_send(struct m *m, struct g *g, const struct prog_op *op)
{
	struct hchan *c = obj(m, g, &op->x, PT_CHAN);
	/* a G that blocks forever on nil does not draw the value it will
	 * never send */
	return rt_chansend(m, c, c ? (uint64_t)eval(m, g, &op->y) : 0);
}

static int op_send(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	if (resumed(g))
		rt_chansend_resume(m);   /* panics if a close woke it */
	else if (!chan_send(m, g, op))
		return park_or_exit(g);
	return next_unless_panicking(g, f);
}

static int op_recv(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	uint64_t v = 0;
	bool ok = false;
	if (resumed(g))
		rt_chanrecv_resume(m, &v, &ok);
	else if (!rt_chanrecv(m, obj(m, g, &op->x, PT_CHAN), &v, &ok) || g->panicking)
		return park_or_exit(g);
	if (op->dst != PROG_NO_SLOT)
		f->locals[op->dst] = ok ? (int64_t)v : 0;
	if (op->b != PROG_NO_SLOT)
		f->locals[op->b] = ok;
	return next(f);
}

static int op_close(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	rt_chanclose(m, obj(m, g, &op->x, PT_CHAN));
	return next_unless_panicking(g, f);
}

/* A select's cases (the ops after it), evaluated in order, send values
 * even for nil channels, whose cases the core leaves out. */
static void select_cases(struct m *m, struct g *g, const struct prog_op *op,
			 struct select_case *cases)
{
	for (uint32_t k = 0; k < op->aux; k++) {
		const struct prog_op *c = op + 1 + k;
		bool send = c->flags & PROG_F_SEND;
		struct hchan *ch = obj(m, g, &c->x, PT_CHAN);
		cases[k] = (struct select_case){ ch, send, send ? (uint64_t)eval(m, g, &c->y) : 0 };
	}
}

static int op_select(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	uint64_t v = 0;
	bool ok = false;
	int fired;
	if (resumed(g)) {
		fired = rt_select_resume(m, &v, &ok);
	} else {
		struct select_case cases[PROG_SELECT_MAX];
		select_cases(m, g, op, cases);
		if (g->panicking)
			return G_EXIT;
		fired = rt_select(m, cases, op->aux, op->flags & PROG_F_DEFAULT, &v, &ok);
	}
	if (fired == RT_SELECT_PARKED || g->panicking)
		return park_or_exit(g);
	uint32_t past = f->pc + 1 + op->aux;
	if (fired == RT_SELECT_DEFAULT)
		return jump(f, (op->flags & PROG_F_JUMP) ? op->a : past);
	const struct prog_op *c = op + 1 + fired;
	if (!(c->flags & PROG_F_SEND) && c->dst != PROG_NO_SLOT)
		f->locals[c->dst] = ok ? (int64_t)v : 0;
	if (c->flags & PROG_F_EXIT)
		return G_EXIT;
	return jump(f, (c->flags & PROG_F_JUMP) ? c->a : past);
}

/* ---- sync: Go's rules are the core's [core/sync.c] ---- */

static int op_lock(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	struct gmutex *mu = obj(m, g, &op->x, PT_MUTEX);
	if (!mu)
		return nil_deref(m, "mutex");
	/* not fallible: a woken waiter runs this op again [The fallible protocol] */
	return rt_gmutex_lock(m, mu) ? next(f) : G_PARK;
}

static int op_unlock(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	struct gmutex *mu = obj(m, g, &op->x, PT_MUTEX);
	if (!mu)
		return nil_deref(m, "mutex");
	rt_gmutex_unlock(m, mu);
	return next_unless_panicking(g, f);
}

static int op_wg_add(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	struct waitgroup *wg = obj(m, g, &op->x, PT_WG);
	int64_t d = eval(m, g, &op->y);
	if (!wg)
		return nil_deref(m, "wait group");
	rt_waitgroup_add(m, wg, d);
	return next_unless_panicking(g, f);
}

static int op_wg_wait(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	if (resumed(g))
		return next(f);
	struct waitgroup *wg = obj(m, g, &op->x, PT_WG);
	if (!wg)
		return nil_deref(m, "wait group");
	return rt_waitgroup_wait(m, wg) ? next(f) : park_or_exit(g);
}

/* ---- The network ---- */

static int op_net_read(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	if (resumed(g))
		return next(f);   /* the netpoller handed it a unit */
	struct wlr_src *c = obj(m, g, &op->x, PT_CONN);
	if (!c)
		return panic_exit(m, "net_read on a nil connection");
	enum nr r = wlr_net_take(m, c);
	if (r == NR_PARK || g->panicking)
		return park_or_exit(g);
	if (r != NR_DONE)
		return next(f);
	/* the client is done: the handler returns, or leaves its loop */
	return (op->flags & PROG_F_JUMP) ? jump(f, op->a) : G_EXIT;
}

static int op_net_write(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	struct wlr_src *c = obj(m, g, &op->x, PT_CONN);
	if (!c)
		return panic_exit(m, "net_write on a nil connection");
	wlr_net_respond(m, c);
	return next(f);
}

/* A loop in one op: take a connection, start its handler, again, until
 * the listener has no more to give. */
static int op_accept(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	struct rt *rt = m->rt;
	struct wlr_src *lis = wlr(rt)->listeners[op->x.i];
	if (!resumed(g)) {
		enum nr r = wlr_net_take(m, lis);
		if (r == NR_DONE)
			return next(f);
		if (r == NR_PARK || g->panicking)
			return park_or_exit(g);
	}
	struct wlr_src *conn = wlr_net_accept(m, lis);
	/* a connection's handler is a root goroutine [the numa policy] */
	f->root_spawn = true;
	return spawn(m, g, &wlr(rt)->wl->progs[op->a], op, op->b, conn) ? OP_ON : G_EXIT;
}

/* ---- Control flow ---- */

static int op_loop(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	int64_t n = eval(m, g, &op->x);
	if (n <= 0)
		return jump(f, op->a + 1);   /* past the matching end */
	f->locals[op->dst] = n;
	if (op->b != PROG_NO_SLOT)
		f->locals[op->b] = 0;
	return next(f);
}

static int op_end(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	const struct prog_op *loop = &f->prog->ops[op->a];
	if (--f->locals[loop->dst] <= 0)
		return next(f);
	if (loop->b != PROG_NO_SLOT)
		f->locals[loop->b]++;
	return jump(f, op->a + 1);   /* back to the loop's first op */
}

static int op_set(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	f->locals[op->dst] = value(m, g, &op->x, (enum prog_type)f->prog->local_types[op->dst]);
	return next(f);
}

static int op_assert(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	if (eval(m, g, &op->x))
		return next(f);
	const char *msg = wlr(m->rt)->wl->strs[op->a];
	rt_panic(m, "assertion failed%s%s (program %s, op %u)", *msg ? ": " : "", msg,
		 f->prog->name, f->pc);
	return G_EXIT;
}

/* ---- Objects and memory ---- */

static void make_oom(struct m *m, struct g *g, const struct prog_op *op, int64_t cap,
		     uint64_t bytes)
{
	if (op->a == PT_CHAN)
		budget_panic(m, g, "runtime: out of memory: a channel of capacity %lld (%.1f MiB) "
				      "would take the run past %s",
				(long long)cap, (double)bytes / (1u << 20), budget_str(m->rt));
	else
		budget_panic(m, g, "runtime: out of memory: a new %s would take the run past %s",
				wl_type_name((enum prog_type)op->a), budget_str(m->rt));
}

/* What make makes, on the maker's node and counted in the budget
 * [Budgets]; NULL if it panicked. */
static void *make_obj(struct m *m, struct g *g, const struct prog_op *op)
{
	int node = plat_node();
	uint64_t bytes = WL_BYTES_PER_OBJ;
	int64_t cap = 0;
	if (op->a == PT_CHAN) {
		cap = eval(m, g, &op->x);
		if (cap < 0 || cap > (int64_t)WL_CHAN_CAP_MAX) {
			budget_panic(m, g, "makechan: size out of range (%lld; a channel holds 0 to %u)",
				     (long long)cap, WL_CHAN_CAP_MAX);
			return NULL;
		}
		bytes += (uint64_t)cap * sizeof(uint64_t);
	}
	if (!rt_mem_charge(m->rt, bytes)) {
		make_oom(m, g, op, cap, bytes);
		return NULL;
	}
	if (op->a == PT_CHAN)
		return rt_chan_new(m->rt, (uint32_t)cap, node);
	if (op->a == PT_WG)
		return rt_waitgroup_new(m->rt, node);
	return rt_gmutex_new(m->rt, node);
}

static int op_make(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	void *o = make_obj(m, g, op);
	if (!o)
		return G_EXIT;
	wlr_objs_add(m, (enum prog_type)op->a, o);
	f->locals[op->dst] = (int64_t)(intptr_t)o;
	return next(f);
}

static int alloc_oom(struct m *m, struct g *g, int64_t bytes)
{
	budget_panic(m, g, "runtime: out of memory: alloc of %lld bytes (%llu page records) "
			      "would take the run past %s",
			(long long)bytes, (unsigned long long)region_pages((uint64_t)bytes),
			budget_str(m->rt));
	return G_EXIT;
}

static int op_alloc(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	struct rt *rt = m->rt;
	int64_t bytes = eval(m, g, &op->x);
	uint32_t place = op->a;
	if (place == RT_PLACE_HEAP)
		place = rt->choices.node_heaps ? RT_PLACE_LOCAL : RT_PLACE_FIRST_TOUCH;
	int node = place == RT_PLACE_LOCAL ? plat_node() : (int)eval(m, g, &op->y);
	if (bytes < 0) {
		rt_panic(m, "alloc of %lld bytes failed", (long long)bytes);
		return G_EXIT;
	}
	struct rt_region *r = region_new(rt, (uint64_t)bytes, place, node);
	if (!r)
		return alloc_oom(m, g, bytes);
	wlr_objs_add(m, PT_REGION, r);
	f->locals[op->dst] = (int64_t)(intptr_t)r;
	return next(f);
}

static int op_touch(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	struct rt_region *r = obj(m, g, &op->x, PT_REGION);
	int64_t bytes = eval(m, g, &op->y), off = eval(m, g, &op->z);
	if (!r)
		return panic_exit(m, "touch of a nil region");
	if (!r->bytes)
		return next(f);
	/* an offset wraps; a range stops at the region's end */
	uint64_t o = off > 0 ? (uint64_t)off % r->bytes : 0;
	uint64_t b = bytes > 0 ? (uint64_t)bytes : 0;
	if (b > r->bytes - o)
		b = r->bytes - o;
	int64_t ns = plat_touch(r, o, b, op->aux, op->flags & PROG_F_WRITE,
				f->rs.key ^ ((uint64_t)f->rs.used << 32) ^ f->pc);
	account_user(m, f->prog, ns);
	return next(f);
}

/* ---- Requests ---- */

/* The trace's request events [core/trace.h]: a request is a user task in
 * Go's trace, from its arrival to its answer, so `go tool trace` lists the
 * slowest; its handling is a region of the G. */
static void __attribute__((noinline)) trace_request(struct m *m, struct g *g, bool begin)
{
	struct rt *rt = m->rt;
	int p = m->p ? m->p->id : -1;
	int64_t start = g_frame(g)->req_start;
	if (begin) {
		int64_t at = start - rt->start_ns;
		rt_trace_rec_at(rt, m, at > 0 ? at : 0, RT_TEV_REQ_BEGIN, g->goid, -1,
				(uint64_t)start, 0);
		rt_trace_rec(rt, m, RT_TEV_REQ_HANDLE, g->goid, p, (uint64_t)start, 0);
	} else {
		rt_trace_rec(rt, m, RT_TEV_REQ_END, g->goid, p, (uint64_t)start, 0);
	}
}

static int op_req_begin(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	/* a second request_begin restarts the request: the trace ends the
	 * open one first, unanswered */
	if (__builtin_expect(m->rt->tracing, 0) && f->req_start >= 0)
		trace_request(m, g, false);
	f->req_start = (op->flags & PROG_F_ARRIVAL) ? f->last_arrival : plat_nanotime();
	if (RT_WHY_ON(m->rt))
		rt_why_req_begin_slow(m->rt, g, op->flags & PROG_F_ARRIVAL);
	if (__builtin_expect(m->rt->tracing, 0))
		trace_request(m, g, true);
	return next(f);
}

static int op_req_end(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	if (f->req_start >= 0) {
		int64_t d = plat_nanotime() - f->req_start;
		struct wlr_m *wm = wlr_m(m);
		hist_record(&wm->request_latency, (uint64_t)(d > 0 ? d : 0));
		if (wm->requests == 0 || f->req_start + d > wm->req_answered)
			wm->req_answered = f->req_start + d;
		wm->requests++;
		if (RT_WHY_ON(m->rt))
			rt_why_req_end_slow(m->rt, g, f->req_start, f->req_start + d);
		if (__builtin_expect(m->rt->tracing, 0))
			trace_request(m, g, false);
		f->req_start = -1;
	}
	return next(f);
}

static int op_yield(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	f->pc++;
	return G_YIELD;
}

static int op_exit(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	return G_EXIT;
}

static int op_jump(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	return jump(f, op->a);
}

static int op_jump_ifnot(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	return jump(f, eval(m, g, &op->x) ? f->pc + 1 : op->a);
}

static int op_case(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	assert(!"a case outside a select");
	return G_EXIT;
}

/* ---- The loop ---- */

/* One op, by its handler in PROG_OPS (a switch the compiler inlines). */
static inline int op_run(struct m *m, struct g *g, struct gframe *f, const struct prog_op *op)
{
	switch ((enum prog_opcode)op->code) {
#define X(code, name, check, run) case PROG_##code: return run(m, g, f, op);
	PROG_OPS(X)
#undef X
	case PROG__COUNT: break;
	}
	assert(!"not an operation");
	return G_EXIT;
}

enum g_why wlr_g_run(struct m *m, struct g *g)
{
	struct gframe *f = g_frame(g);
	const struct program *pr = f->prog;
	const struct workload *w = wlr(m->rt)->wl;
	if (w->stack_bytes) {
		if (plat_g_has_stack())
			plat_g_write_frame(w->stack_frame);
		else
			stack_enter(m, g);
	}
	for (;;) {
		if (g->panicking || f->pc >= pr->nops)
			return G_EXIT;
		/* A preemption request is honoured between operations (an
		 * unpriced look: it is set rarely, and checked very often). */
		if (plat_peek_u32(&g->preempt) && !g->in_op) {
			plat_store_u32(&g->preempt, 0, memory_order_relaxed);
			return G_PREEMPT;
		}
		int r = op_run(m, g, f, &pr->ops[f->pc]);
		if (r != OP_ON)
			return (enum g_why)r;
	}
}

/* ---- The body's table [core/body.h] ---- */

static void main_init(struct rt *rt, struct g *g)
{
	const struct workload *w = wlr(rt)->wl;
	g_init(rt, NULL, g, &w->progs[w->main]);
}

static void g_describe(const struct rt *rt, const struct g *g, char *buf, size_t n)
{
	const struct gframe *f = g_frame((struct g *)g);
	snprintf(buf, n, "program %s, op %u (%s)", f->prog->name, f->pc,
		 wl_op_name(f->prog->ops[f->pc].code));
}

static bool g_spawns_root(const struct g *g)
{
	return g_frame((struct g *)g)->root_spawn;
}

static void collect(const struct rt *rt, struct rt_result *r)
{
	for (struct m *m = rt->allm; m; m = m->alllink) {
		const struct wlr_m *wm = m->body_m;
		if (!wm)
			continue;
		hist_merge(&r->request_latency, &wm->request_latency);
		int64_t answered = wm->req_answered - rt->start_ns;
		if (wm->requests && (r->requests == 0 || answered > r->request_answered_ns))
			r->request_answered_ns = answered;
		r->requests += wm->requests;
		for (int k = 0; k < RT_USER_CLASSES; k++)
			r->user_ns_by_class[k] += wm->user_ns_by_class[k];
	}
	r->locality.stacks = wlr(rt)->wl->stack_bytes && !plat_g_has_stack();
	const struct wlr_run *w = wlr(rt);
	r->offered = w->open_count;
	if (w->open_count) {
		r->offered_first_ns = w->open_first - rt->start_ns;
		r->offered_last_ns = w->open_last - rt->start_ns;
	}
}

const struct body_ops wlr_body = {
	.name = "workload program",
	.g_bytes = sizeof(struct gframe),
	.needs_stack = false,
	.timed = true,
	.main_ends_run = false,
	.check = run_check,
	.run_new = run_new,
	.run_free = run_free,
	.main_init = main_init,
	.g_run = wlr_g_run,
	.g_describe = g_describe,
	.g_account_user = g_account_user,
	.g_spawns_root = g_spawns_root,
	.g_stack_modelled = g_stack_modelled,
	.g_stack_move = g_stack_move,
	.collect = collect,
	.g_class = g_class,
	.class_name = class_name,
	.draws = wlr_draws,
	.trace_labels = trace_labels,
	.g_label = g_label,
	.net_start = wlr_net_start,
	.net_next = wlr_net_next,
	.net_due = wlr_net_due,
	.net_deliver = wlr_net_deliver,
};
