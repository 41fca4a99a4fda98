/* Goroutine programs: building and checking the in-memory form. */
#include "workloads/program.h"

#include <stdlib.h>
#include <string.h>

struct workload *wl_new(const char *name, const char *description)
{
	struct workload *w = xcalloc(1, sizeof(*w));
	w->name = xstrdup(name);
	w->description = xstrdup(description ? description : "");
	return w;
}

uint32_t wl_add_program(struct workload *w, const char *name)
{
	w->progs = xrealloc(w->progs, (w->nprogs + 1) * sizeof(*w->progs));
	struct program *p = &w->progs[w->nprogs];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	return w->nprogs++;
}

uint32_t wl_add_chan(struct workload *w, const char *name, uint32_t cap)
{
	w->chans = xrealloc(w->chans, (w->nchans + 1) * sizeof(*w->chans));
	w->chans[w->nchans].name = xstrdup(name);
	w->chans[w->nchans].cap = cap;
	return w->nchans++;
}

static uint32_t add_name(char ***names, uint32_t *n, const char *name)
{
	*names = xrealloc(*names, (*n + 1) * sizeof(**names));
	(*names)[*n] = xstrdup(name);
	return (*n)++;
}

uint32_t wl_add_mutex(struct workload *w, const char *name)
{
	return add_name(&w->mutexes, &w->nmutexes, name);
}

uint32_t wl_add_waitgroup(struct workload *w, const char *name)
{
	return add_name(&w->waitgroups, &w->nwaitgroups, name);
}

uint32_t wl_add_source(struct workload *w, const char *name, uint64_t interval_ns, uint64_t count)
{
	w->sources = xrealloc(w->sources, (w->nsources + 1) * sizeof(*w->sources));
	w->sources[w->nsources] = (struct prog_source){ xstrdup(name), interval_ns, count };
	return w->nsources++;
}

void wl_emit(struct workload *w, uint32_t prog, enum prog_opcode code, uint32_t a, uint64_t n)
{
	struct program *p = &w->progs[prog];
	if (p->nops == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 8;
		p->ops = xrealloc(p->ops, p->cap * sizeof(*p->ops));
	}
	p->ops[p->nops++] = (struct prog_op){ code, a, n, false };
}

void wl_emit_case_exit(struct workload *w, uint32_t prog, uint32_t chan, bool send)
{
	wl_emit(w, prog, PROG_CASE, chan, send);
	w->progs[prog].ops[w->progs[prog].nops - 1].exit = true;
}

uint32_t wl_loop(struct workload *w, uint32_t prog, uint64_t n)
{
	wl_emit(w, prog, PROG_LOOP, 0, n);
	return w->progs[prog].nops - 1;
}

void wl_end(struct workload *w, uint32_t prog, uint32_t loop)
{
	wl_emit(w, prog, PROG_END, loop, 0);
	w->progs[prog].ops[loop].a = w->progs[prog].nops - 1;
}

void wl_free(struct workload *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->nprogs; i++) {
		free(w->progs[i].name);
		free(w->progs[i].ops);
	}
	for (uint32_t i = 0; i < w->nchans; i++)
		free(w->chans[i].name);
	for (uint32_t i = 0; i < w->nmutexes; i++)
		free(w->mutexes[i]);
	for (uint32_t i = 0; i < w->nwaitgroups; i++)
		free(w->waitgroups[i]);
	free(w->mutexes);
	free(w->waitgroups);
	for (uint32_t i = 0; i < w->nsources; i++)
		free(w->sources[i].name);
	free(w->sources);
	free(w->progs);
	free(w->chans);
	free(w->name);
	free(w->description);
	free(w);
}

static const char *const opnames[] = {
	[PROG_COMPUTE] = "compute", [PROG_SPAWN] = "spawn", [PROG_SEND] = "send",
	[PROG_RECV] = "recv",       [PROG_YIELD] = "yield", [PROG_LOOP] = "loop",
	[PROG_END] = "end",         [PROG_EXIT] = "exit",        [PROG_SLEEP] = "sleep",
	[PROG_CLOSE] = "close",     [PROG_SELECT] = "select",    [PROG_CASE] = "case",
	[PROG_LOCK] = "lock",       [PROG_UNLOCK] = "unlock",    [PROG_WG_ADD] = "wg_add",
	[PROG_WG_WAIT] = "wg_wait",   [PROG_SYSCALL] = "syscall",  [PROG_NET_READ] = "net_read",
};

const char *wl_op_name(enum prog_opcode code)
{
	return code < PROG__COUNT ? opnames[code] : "?";
}

bool wl_validate(const struct workload *w, struct err *e)
{
	for (uint32_t i = 0; i < w->nsources; i++) {
		if (w->sources[i].interval_ns == 0) {
			err_set(e, "workload %s: source %s: interval must be positive", w->name,
				w->sources[i].name);
			return false;
		}
	}
	if (w->nprogs == 0 || w->main >= w->nprogs) {
		err_set(e, "workload %s: no main program", w->name);
		return false;
	}
	for (uint32_t pi = 0; pi < w->nprogs; pi++) {
		const struct program *p = &w->progs[pi];
		uint32_t open[PROG_MAX_DEPTH];
		uint32_t depth = 0;
		for (uint32_t i = 0; i < p->nops; i++) {
			const struct prog_op *op = &p->ops[i];
			const char *bad = NULL;
			switch (op->code) {
			case PROG_SPAWN:
				if (op->a >= w->nprogs)
					bad = "spawns a program that does not exist";
				break;
			case PROG_SEND:
			case PROG_RECV:
			case PROG_CLOSE:
				if (op->a >= w->nchans)
					bad = "uses a channel that does not exist";
				break;
			case PROG_SELECT:
				if (op->n == 0 || op->n > PROG_SELECT_MAX)
					bad = "must have 1 to 16 cases";
				else if (i + op->n >= p->nops)
					bad = "has fewer cases than it says";
				for (uint32_t k = 1; !bad && k <= op->n; k++) {
					const struct prog_op *c = &p->ops[i + k];
					if (c->code != PROG_CASE)
						bad = "has fewer cases than it says";
					else if (c->a >= w->nchans)
						bad = "has a case on a channel that does not exist";
				}
				if (!bad)
					i += (uint32_t)op->n;   /* its cases are checked */
				break;
			case PROG_CASE:
				bad = "is a case outside a select";
				break;
			case PROG_LOCK:
			case PROG_UNLOCK:
				if (op->a >= w->nmutexes)
					bad = "uses a mutex that does not exist";
				break;
			case PROG_WG_ADD:
			case PROG_WG_WAIT:
				if (op->a >= w->nwaitgroups)
					bad = "uses a wait group that does not exist";
				break;
			case PROG_NET_READ:
				if (op->a >= w->nsources)
					bad = "reads a source that does not exist";
				break;
			case PROG_LOOP:
				if (depth == PROG_MAX_DEPTH)
					bad = "nests loops too deeply (at most 8)";
				else if (op->a <= i || op->a >= p->nops || p->ops[op->a].code != PROG_END ||
					 p->ops[op->a].a != i)
					bad = "opens a loop without a matching end";
				else
					open[depth++] = i;
				break;
			case PROG_END:
				if (depth == 0 || open[depth - 1] != op->a)
					bad = "closes a loop that is not open";
				else
					depth--;
				break;
			case PROG_COMPUTE:
			case PROG_YIELD:
			case PROG_SLEEP:
			case PROG_SYSCALL:
			case PROG_EXIT:
				break;
			default:
				bad = "has an unknown operation";
			}
			if (bad) {
				err_set(e, "workload %s: program %s: op %u (%s) %s", w->name, p->name, i,
					wl_op_name(op->code), bad);
				return false;
			}
		}
		if (depth) {
			err_set(e, "workload %s: program %s: a loop is never closed", w->name, p->name);
			return false;
		}
	}
	return true;
}
