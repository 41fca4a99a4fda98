/* The workload language: JSON to the program form (docs/workload-format.md).
 *
 * Compilation is one pass over the document, in two halves: first every
 * named thing (channels, wait groups, mutexes, regions, listeners, and
 * each program's parameters and variables), so that a program may use
 * what is declared after it; then each program's body, op by op, each
 * operand resolved against the program's slots and the workload's names
 * and type-checked there.  Structured control flow (loop, if, select
 * with case bodies, break) becomes jumps.  The first problem stops it,
 * with a message naming the file, the JSON path and what is wrong. */
#include "workloads/json.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/policy.h"
#include "util/jsonv.h"
#include "workloads/dist.h"

#define MAX_LOOP_NEST 8
#define MAX_BREAKS 64

uint64_t wl__compile_steps;

struct name_ent {
	const char *name;   /* NULL: empty */
	uint32_t hash, idx;
	uint8_t type;
};

struct name_ix {
	struct name_ent *ents;
	uint32_t cap, n;    /* cap a power of two, at most half full */
};

struct loopctx {
	uint32_t breaks[MAX_BREAKS];   /* jumps to patch to the loop's end */
	uint32_t nbreaks;
};

struct cc {
	struct jv j;
	struct workload *w;
	const cJSON *progs;      /* $.programs */
	uint32_t prog;           /* being compiled */
	struct loopctx loops[MAX_LOOP_NEST];
	uint32_t nloops;
	bool ok;
	struct name_ix globals;   /* channels, wait groups, mutexes, regions, listeners */
	struct name_ix progs_ix;  /* programs */
};

static bool fail(struct cc *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool fail(struct cc *c, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	c->ok = false;
	jv_fail(&c->j, path, "%s", msg);
	free(msg);
	return false;
}

static const char *kp(char *buf, const char *parent, const char *key)
{
	return jv_key(buf, JV_PATH, parent, key);
}

static bool is_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

/* ---- Names ----
 *
 * Workload-level objects (one namespace for channels, wait groups,
 * mutexes, regions and listeners) and programs are found through hash
 * indexes, so a workload of 100,000 of them compiles in time linear in
 * its size; a program's slots are few (PROG_MAX_LOCALS) and searched in
 * order.  The indexes point at the names the workload owns. */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;   /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static const struct name_ent *ix_find(const struct name_ix *ix, const char *name)
{
	if (!ix->cap)
		return NULL;
	uint32_t h = name_hash(name);
	for (uint32_t i = h & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
		const struct name_ent *e = &ix->ents[i];
		if (!e->name)
			return NULL;
		wl__compile_steps++;
		if (e->hash == h && strcmp(e->name, name) == 0)
			return e;
	}
	return NULL;   /* not reached: the table is never full */
}

static void ix_put(struct name_ix *ix, struct name_ent ent)
{
	for (uint32_t i = ent.hash & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1))
		if (!ix->ents[i].name) {
			ix->ents[i] = ent;
			return;
		}
}

/* Adds a name not in the index yet. */
static void ix_add(struct name_ix *ix, const char *name, enum prog_type t, uint32_t idx)
{
	if (2 * (ix->n + 1) > ix->cap) {
		struct name_ix old = *ix;
		ix->cap = old.cap ? 2 * old.cap : 64;
		ix->ents = xcalloc(ix->cap, sizeof(*ix->ents));
		for (uint32_t i = 0; i < old.cap; i++)
			if (old.ents[i].name)
				ix_put(ix, old.ents[i]);
		free(old.ents);
	}
	ix_put(ix, (struct name_ent){ name, name_hash(name), idx, (uint8_t)t });
	ix->n++;
}

static int find_global(const struct cc *c, enum prog_type t, const char *name)
{
	const struct name_ent *e = ix_find(&c->globals, name);
	return e && e->type == t ? (int)e->idx : -1;
}

static int find_local(const struct program *p, const char *name)
{
	for (uint32_t i = 0; i < p->nlocals; i++)
		if (strcmp(p->local_names[i], name) == 0)
			return (int)i;
	return -1;
}

static int find_prog(const struct cc *c, const char *name)
{
	const struct name_ent *e = ix_find(&c->progs_ix, name);
	return e ? (int)e->idx : -1;
}

/* Whether name is already a workload-level object of any kind. */
static bool global_taken(const struct cc *c, const char *name)
{
	return ix_find(&c->globals, name) != NULL;
}

/* ---- Values ---- */

static const struct {
	const char *name;
	enum prog_expr_op op;
	int arity;
} operators[] = {
	{ "+", PE_ADD, 2 },  { "-", PE_SUB, 2 },   { "*", PE_MUL, 2 },   { "/", PE_DIV, 2 },
	{ "%", PE_MOD, 2 },  { "<", PE_LT, 2 },    { "<=", PE_LE, 2 },   { ">", PE_GT, 2 },
	{ ">=", PE_GE, 2 },  { "==", PE_EQ, 2 },   { "!=", PE_NE, 2 },   { "min", PE_MIN, 2 },
	{ "max", PE_MAX, 2 }, { "and", PE_AND, 2 }, { "or", PE_OR, 2 },  { "not", PE_NOT, 1 },
};

static bool parse_val(struct cc *c, const cJSON *v, const char *path, enum dist_unit unit,
		      enum prog_type t, struct prog_val *out, int depth);

static bool parse_expr(struct cc *c, const cJSON *v, const char *path, enum dist_unit unit,
		       struct prog_val *out, int depth, bool *was_expr)
{
	*was_expr = false;
	if (!cJSON_IsObject(v) || !v->child || v->child->next)
		return true;
	const cJSON *k = v->child;
	for (size_t i = 0; i < sizeof(operators) / sizeof(operators[0]); i++) {
		if (strcmp(operators[i].name, k->string) != 0)
			continue;
		*was_expr = true;
		char p[JV_PATH], q[JV_PATH];
		kp(p, path, k->string);
		if (!cJSON_IsArray(k) || cJSON_GetArraySize(k) != operators[i].arity)
			return fail(c, p, "expected an array of %d operand%s", operators[i].arity,
				    operators[i].arity == 1 ? "" : "s");
		struct prog_val a, b = PV_C(0);
		if (!parse_val(c, cJSON_GetArrayItem(k, 0), jv_idx(q, sizeof(q), p, 0), unit, PT_INT,
			       &a, depth + 1))
			return false;
		if (operators[i].arity == 2 &&
		    !parse_val(c, cJSON_GetArrayItem(k, 1), jv_idx(q, sizeof(q), p, 1), unit, PT_INT,
			       &b, depth + 1))
			return false;
		*out = (struct prog_val){ PV_EXPR, wl_add_expr(c->w, operators[i].op, a, b), 0 };
		return true;
	}
	return true;
}

/* An operand of type t: for an integer, a whole number, a unit string, a
 * slot's name, a distribution or an expression; for an object, the name
 * of a slot or a workload object of that type, or null (nil). */
static bool parse_val(struct cc *c, const cJSON *v, const char *path, enum dist_unit unit,
		      enum prog_type t, struct prog_val *out, int depth)
{
	const struct program *p = &c->w->progs[c->prog];
	if (depth > 32)
		return fail(c, path, "expression nested too deeply");
	if (!v)
		return fail(c, path, "required key is missing");
	if (cJSON_IsString(v)) {
		int l = find_local(p, v->valuestring);
		if (l >= 0) {
			if (p->local_types[l] != t)
				return fail(c, path, "'%s' is of type %s, expected %s", v->valuestring,
					    wl_type_name((enum prog_type)p->local_types[l]),
					    wl_type_name(t));
			*out = (struct prog_val){ PV_LOCAL, (uint32_t)l, 0 };
			return true;
		}
		if (t != PT_INT) {
			int g = find_global(c, t, v->valuestring);
			if (g < 0)
				return fail(c, path, "no %s named '%s' in program %s or the workload",
					    wl_type_name(t), v->valuestring, p->name);
			*out = (struct prog_val){ PV_GLOBAL, (uint32_t)g, 0 };
			return true;
		}
		if (is_ident(v->valuestring))
			return fail(c, path, "no variable or parameter named '%s' in program %s",
				    v->valuestring, p->name);
	}
	if (t != PT_INT) {
		if (cJSON_IsNull(v)) {
			*out = PV_C(0);
			return true;
		}
		return fail(c, path, "expected the name of a %s (or null)", wl_type_name(t));
	}
	if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;
		if (d != floor(d) || fabs(d) > 9.0e18)
			return fail(c, path, "expected a whole number, got %g", d);
		*out = PV_C((int64_t)d);
		return true;
	}
	bool was_expr;
	if (!parse_expr(c, v, path, unit, out, depth, &was_expr) || was_expr)
		return c->ok;
	struct dist *d = dist_parse(&c->j, v, path, unit);
	if (!d)
		return c->ok = false;
	int64_t k;
	if (dist_is_const(d, &k)) {
		dist_free(d);
		*out = PV_C(k);
	} else {
		*out = (struct prog_val){ PV_DIST, wl_add_dist(c->w, d), 0 };
	}
	return true;
}

/* An optional key: absent leaves *out as it is. */
static bool opt_val(struct cc *c, const cJSON *obj, const char *path, const char *key,
		    enum dist_unit unit, enum prog_type t, struct prog_val *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char p[JV_PATH];
	return !v || parse_val(c, v, kp(p, path, key), unit, t, out, 0);
}

static bool req_val(struct cc *c, const cJSON *obj, const char *path, const char *key,
		    enum dist_unit unit, enum prog_type t, struct prog_val *out)
{
	char p[JV_PATH];
	kp(p, path, key);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v)
		return fail(c, p, "required key is missing");
	return parse_val(c, v, p, unit, t, out, 0);
}

/* A slot the op writes: a variable of type t. */
static bool parse_dst(struct cc *c, const cJSON *v, const char *path, enum prog_type t,
		      uint32_t *out)
{
	const struct program *p = &c->w->progs[c->prog];
	if (!cJSON_IsString(v))
		return fail(c, path, "expected the name of a %s variable", wl_type_name(t));
	int l = find_local(p, v->valuestring);
	if (l < 0)
		return fail(c, path, "no variable named '%s' in program %s (declare it in \"vars\")",
			    v->valuestring, p->name);
	if (p->local_types[l] != t)
		return fail(c, path, "'%s' is a %s, expected a %s", v->valuestring,
			    wl_type_name((enum prog_type)p->local_types[l]), wl_type_name(t));
	*out = (uint32_t)l;
	return true;
}

/* ---- Ops ---- */

static struct prog_op blank(enum prog_opcode code)
{
	return (struct prog_op){ .code = (uint8_t)code, .dst = PROG_NO_SLOT, .b = PROG_NO_SLOT };
}

static uint32_t emit(struct cc *c, struct prog_op op)
{
	return wl_op(c->w, c->prog, op);
}

static uint32_t here(struct cc *c)
{
	return c->w->progs[c->prog].nops;
}

static bool compile_body(struct cc *c, const cJSON *body, const char *path);

/* The argument object of an op, checked for its keys; a bare value is
 * allowed where the op has one main operand (short: its key). */
static bool op_args(struct cc *c, const cJSON *v, const char *path, const char *const *keys)
{
	return jv_object(&c->j, v, path, keys) || (c->ok = false);
}

static bool parse_args(struct cc *c, const cJSON *args, const char *path, uint32_t child,
		       struct prog_op *op)
{
	const struct program *cp = &c->w->progs[child];
	op->dst = c->w->nargs;
	op->aux = 0;
	if (!args)
		return true;
	if (!cJSON_IsObject(args))
		return fail(c, path, "expected an object of parameter: value");
	/* the values first (they add expressions), then the table */
	struct prog_arg tmp[PROG_MAX_LOCALS];
	uint32_t n = 0;
	for (const cJSON *a = args->child; a; a = a->next) {
		char p[JV_PATH];
		kp(p, path, a->string);
		int slot = find_local(cp, a->string);
		if (slot < 0 || (uint32_t)slot >= cp->nparams)
			return fail(c, p, "program %s has no parameter '%s'", cp->name, a->string);
		for (uint32_t k = 0; k < n; k++)
			if (tmp[k].slot == (uint32_t)slot)
				return fail(c, p, "key given twice");
		enum prog_type t = (enum prog_type)cp->local_types[slot];
		if (!parse_val(c, a, p, DIST_COUNT, t, &tmp[n].v, 0))
			return false;
		tmp[n++].slot = (uint32_t)slot;
	}
	op->dst = c->w->nargs;
	for (uint32_t k = 0; k < n; k++) {
		struct workload *w = c->w;
		if (!(w->nargs & (w->nargs - 1)))   /* capacity: the next power of two */
			w->args = xrealloc(w->args, (w->nargs ? 2 * w->nargs : 1) * sizeof(*w->args));
		w->args[w->nargs++] = tmp[k];
	}
	op->aux = (uint16_t)n;
	return true;
}

static bool op_spawn(struct cc *c, const cJSON *v, const char *path)
{
	struct prog_op op = blank(PROG_SPAWN);
	const cJSON *name = v, *args = NULL;
	op.x = PV_C(1);
	char p[JV_PATH];
	if (cJSON_IsObject(v)) {
		static const char *const keys[] = { "program", "count", "args", "after", NULL };
		if (!op_args(c, v, path, keys))
			return false;
		name = cJSON_GetObjectItemCaseSensitive(v, "program");
		args = cJSON_GetObjectItemCaseSensitive(v, "args");
		if (!opt_val(c, v, path, "count", DIST_COUNT, PT_INT, &op.x))
			return false;
		if (cJSON_GetObjectItemCaseSensitive(v, "after")) {
			if (!opt_val(c, v, path, "after", DIST_TIME, PT_INT, &op.y))
				return false;
			if (op.y.kind == PV_CONST && op.y.c < 0)
				return fail(c, kp(p, path, "after"), "must not be negative (got %lld)",
					    (long long)op.y.c);
			op.flags |= PROG_F_AFTER;
		}
		if (op.x.kind == PV_CONST && op.x.c < 0)
			return fail(c, kp(p, path, "count"), "must not be negative (got %lld)",
				    (long long)op.x.c);
		kp(p, path, "program");
	} else {
		snprintf(p, sizeof(p), "%s", path);
	}
	if (!name)
		return fail(c, p, "required key is missing");
	if (!cJSON_IsString(name))
		return fail(c, p, "expected a program's name");
	int child = find_prog(c, name->valuestring);
	if (child < 0)
		return fail(c, p, "no program named '%s'", name->valuestring);
	op.a = (uint32_t)child;
	char q[JV_PATH];
	if (!parse_args(c, args, kp(q, path, "args"), op.a, &op))
		return false;
	emit(c, op);
	return true;
}

/* An op's first operand: the op's value itself, or in its object form
 * (args) the value of key, the object's other keys among keys. */
static bool first_operand(struct cc *c, const cJSON *v, const char *path, bool args,
			  const char *const *keys, const char *key, enum dist_unit unit,
			  enum prog_type t, struct prog_val *out)
{
	if (!args)
		return parse_val(c, v, path, unit, t, out, 0);
	return op_args(c, v, path, keys) && req_val(c, v, path, key, unit, t, out);
}

/* Whether v is an op's object form with key (else an object is a value:
 * a distribution or an expression). */
static bool has_arg(const cJSON *v, const char *key)
{
	return cJSON_IsObject(v) && cJSON_GetObjectItemCaseSensitive(v, key);
}

/* A one-operand op: {"op": X} or {"op": {"key": X}}. */
static bool op_one(struct cc *c, const cJSON *v, const char *path, enum prog_opcode code,
		   const char *key, enum dist_unit unit, enum prog_type t)
{
	struct prog_op op = blank(code);
	const char *keys[] = { key, NULL };
	if (!first_operand(c, v, path, has_arg(v, key), keys, key, unit, t, &op.x))
		return false;
	emit(c, op);
	return true;
}

static bool op_send(struct cc *c, const cJSON *v, const char *path)
{
	static const char *const keys[] = { "chan", "value", NULL };
	struct prog_op op = blank(PROG_SEND);
	op.y = PV_C(0);
	bool args = cJSON_IsObject(v);
	if (!first_operand(c, v, path, args, keys, "chan", DIST_COUNT, PT_CHAN, &op.x) ||
	    (args && !opt_val(c, v, path, "value", DIST_COUNT, PT_INT, &op.y)))
		return false;
	emit(c, op);
	return true;
}

static bool op_recv(struct cc *c, const cJSON *v, const char *path)
{
	static const char *const keys[] = { "chan", "into", "ok", NULL };
	struct prog_op op = blank(PROG_RECV);
	bool args = cJSON_IsObject(v);
	const cJSON *into = args ? cJSON_GetObjectItemCaseSensitive(v, "into") : NULL;
	const cJSON *okv = args ? cJSON_GetObjectItemCaseSensitive(v, "ok") : NULL;
	char p[JV_PATH];
	if (!first_operand(c, v, path, args, keys, "chan", DIST_COUNT, PT_CHAN, &op.x) ||
	    (into && !parse_dst(c, into, kp(p, path, "into"), PT_INT, &op.dst)) ||
	    (okv && !parse_dst(c, okv, kp(p, path, "ok"), PT_INT, &op.b)))
		return false;
	emit(c, op);
	return true;
}

static bool op_make(struct cc *c, const cJSON *v, const char *path, enum prog_type t)
{
	struct prog_op op = blank(PROG_MAKE);
	op.a = t;
	op.x = PV_C(0);
	const cJSON *into = v;
	char p[JV_PATH];
	snprintf(p, sizeof(p), "%s", path);
	if (cJSON_IsObject(v)) {
		static const char *const chan_keys[] = { "into", "cap", NULL };
		static const char *const keys[] = { "into", NULL };
		if (!op_args(c, v, path, t == PT_CHAN ? chan_keys : keys))
			return false;
		if (t == PT_CHAN && !opt_val(c, v, path, "cap", DIST_COUNT, PT_INT, &op.x))
			return false;
		if (t == PT_CHAN && op.x.kind == PV_CONST &&
		    (op.x.c < 0 || op.x.c > (int64_t)WL_CHAN_CAP_MAX))
			return fail(c, kp(p, path, "cap"), "must be between 0 and %u, got %lld",
				    WL_CHAN_CAP_MAX, (long long)op.x.c);
		into = cJSON_GetObjectItemCaseSensitive(v, "into");
		kp(p, path, "into");
		if (!into)
			return fail(c, p, "required key is missing");
	}
	if (!parse_dst(c, into, p, t, &op.dst))
		return false;
	emit(c, op);
	return true;
}

static bool op_wg_add(struct cc *c, const cJSON *v, const char *path, bool done)
{
	static const char *const keys[] = { "wg", "n", NULL };
	static const char *const done_keys[] = { "wg", NULL };
	struct prog_op op = blank(PROG_WG_ADD);
	op.y = PV_C(done ? -1 : 1);
	bool args = has_arg(v, "wg");
	if (!first_operand(c, v, path, args, done ? done_keys : keys, "wg", DIST_COUNT, PT_WG,
			   &op.x) ||
	    (args && !opt_val(c, v, path, "n", DIST_COUNT, PT_INT, &op.y)))
		return false;
	emit(c, op);
	return true;
}

static const char *const placements[] = {
	[RT_PLACE_LOCAL] = "local",
	[RT_PLACE_NODE] = "node",
	[RT_PLACE_INTERLEAVE] = "interleave",
	[RT_PLACE_FIRST_TOUCH] = "first-touch",
	[RT_PLACE_HEAP] = "heap",
};
static const char *const patterns[] = {
	[RT_SEQUENTIAL] = "sequential",
	[RT_RANDOM] = "random",
	[RT_POINTER_CHASE] = "pointer-chase",
};

static bool parse_enum(struct cc *c, const cJSON *obj, const char *path, const char *key,
		       const char *const *names, int n, int *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v)
		return true;
	char p[JV_PATH], list[256] = "";
	kp(p, path, key);
	size_t len = 0;
	for (int i = 0; i < n; i++) {
		if (cJSON_IsString(v) && strcmp(v->valuestring, names[i]) == 0) {
			*out = i;
			return true;
		}
		len = str_list_add(list, sizeof(list), len, names[i]);
	}
	return fail(c, p, "expected one of: %s", list);
}

static bool op_alloc(struct cc *c, const cJSON *v, const char *path)
{
	static const char *const keys[] = { "into", "size", "placement", "node", NULL };
	struct prog_op op = blank(PROG_ALLOC);
	int place = RT_PLACE_HEAP;
	op.y = PV_C(0);
	char p[JV_PATH];
	const cJSON *into = cJSON_GetObjectItemCaseSensitive(v, "into");
	if (!op_args(c, v, path, keys) || !req_val(c, v, path, "size", DIST_SIZE, PT_INT, &op.x) ||
	    !parse_enum(c, v, path, "placement", placements, 5, &place) ||
	    !opt_val(c, v, path, "node", DIST_COUNT, PT_INT, &op.y))
		return false;
	if (!into)
		return fail(c, kp(p, path, "into"), "required key is missing");
	if (!parse_dst(c, into, kp(p, path, "into"), PT_REGION, &op.dst))
		return false;
	if (place == RT_PLACE_NODE && !cJSON_GetObjectItemCaseSensitive(v, "node"))
		return fail(c, kp(p, path, "node"), "required with placement \"node\"");
	op.a = (uint32_t)place;
	emit(c, op);
	return true;
}

static bool op_touch(struct cc *c, const cJSON *v, const char *path)
{
	static const char *const keys[] = { "region", "bytes", "offset", "pattern", "write", NULL };
	struct prog_op op = blank(PROG_TOUCH);
	int pattern = RT_SEQUENTIAL;
	op.z = PV_C(0);
	if (!op_args(c, v, path, keys) || !req_val(c, v, path, "region", DIST_SIZE, PT_REGION, &op.x) ||
	    !req_val(c, v, path, "bytes", DIST_SIZE, PT_INT, &op.y) ||
	    !opt_val(c, v, path, "offset", DIST_SIZE, PT_INT, &op.z) ||
	    !parse_enum(c, v, path, "pattern", patterns, 3, &pattern))
		return false;
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(v, "write");
	if (w && !cJSON_IsBool(w)) {
		char p[JV_PATH];
		return fail(c, kp(p, path, "write"), "expected true or false");
	}
	if (w && cJSON_IsTrue(w))
		op.flags |= PROG_F_WRITE;
	op.aux = (uint16_t)pattern;
	emit(c, op);
	return true;
}

static bool op_accept(struct cc *c, const cJSON *v, const char *path)
{
	static const char *const keys[] = { "listener", "spawn", "conn", "args", NULL };
	struct prog_op op = blank(PROG_ACCEPT);
	char p[JV_PATH];
	if (!op_args(c, v, path, keys) ||
	    !req_val(c, v, path, "listener", DIST_COUNT, PT_LISTENER, &op.x))
		return false;
	if (op.x.kind != PV_GLOBAL)
		return fail(c, kp(p, path, "listener"), "expected the name of a workload listener");
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(v, "spawn");
	kp(p, path, "spawn");
	if (!sp)
		return fail(c, p, "required key is missing");
	int prog = cJSON_IsString(sp) ? find_prog(c, sp->valuestring) : -1;
	if (prog < 0)
		return fail(c, p, "expected the name of a program");
	op.a = (uint32_t)prog;
	const struct program *h = &c->w->progs[op.a];
	const cJSON *conn = cJSON_GetObjectItemCaseSensitive(v, "conn");
	int slot = -1;
	if (conn) {
		kp(p, path, "conn");
		if (!cJSON_IsString(conn))
			return fail(c, p, "expected the name of a parameter of %s", h->name);
		slot = find_local(h, conn->valuestring);
	} else {
		for (uint32_t i = 0; i < h->nparams && slot < 0; i++)
			if (h->local_types[i] == PT_CONN)
				slot = (int)i;
		snprintf(p, sizeof(p), "%s", path);
	}
	if (slot < 0 || (uint32_t)slot >= h->nparams || h->local_types[slot] != PT_CONN)
		return fail(c, p, "program %s needs a conn parameter for the connection", h->name);
	op.b = (uint32_t)slot;
	if (!parse_args(c, cJSON_GetObjectItemCaseSensitive(v, "args"), kp(p, path, "args"), op.a, &op))
		return false;
	emit(c, op);
	return true;
}

static bool add_break(struct cc *c, const char *path, uint32_t op_index)
{
	if (c->nloops == 0)
		return fail(c, path, "break outside a loop");
	struct loopctx *l = &c->loops[c->nloops - 1];
	if (l->nbreaks == MAX_BREAKS)
		return fail(c, path, "more than %d breaks in one loop", MAX_BREAKS);
	l->breaks[l->nbreaks++] = op_index;
	return true;
}

/* {"net_read": C} or {"net_read": {"conn": C, "eof": "exit"|"break"}}. */
static bool op_net_read(struct cc *c, const cJSON *v, const char *path)
{
	struct prog_op op = blank(PROG_NET_READ);
	static const char *const keys[] = { "conn", "eof", NULL };
	const char *eof = "exit";
	bool args = cJSON_IsObject(v);
	if (!first_operand(c, v, path, args, keys, "conn", DIST_COUNT, PT_CONN, &op.x))
		return false;
	if (args && !jv_get_string(&c->j, v, path, "eof", false, &eof))
		return c->ok = false;
	char p[JV_PATH];
	if (strcmp(eof, "break") == 0) {
		op.flags |= PROG_F_JUMP;
		if (!add_break(c, kp(p, path, "eof"), here(c)))
			return false;
	} else if (strcmp(eof, "exit") != 0) {
		return fail(c, kp(p, path, "eof"), "expected \"exit\" or \"break\"");
	}
	emit(c, op);
	return true;
}

static bool op_loop(struct cc *c, const cJSON *v, const char *path)
{
	static const char *const keys[] = { "count", "var", "body", NULL };
	struct prog_op op = blank(PROG_LOOP);
	char p[JV_PATH];
	if (!op_args(c, v, path, keys) || !req_val(c, v, path, "count", DIST_COUNT, PT_INT, &op.x))
		return false;
	if (op.x.kind == PV_CONST && op.x.c < 0)
		return fail(c, kp(p, path, "count"), "must not be negative (got %lld)",
			    (long long)op.x.c);
	const cJSON *var = cJSON_GetObjectItemCaseSensitive(v, "var");
	if (var && !parse_dst(c, var, kp(p, path, "var"), PT_INT, &op.b))
		return false;
	if (c->nloops == MAX_LOOP_NEST)
		return fail(c, path, "loops nested more than %d deep", MAX_LOOP_NEST);
	char name[32];
	snprintf(name, sizeof(name), "loop#%u", here(c));
	op.dst = wl_add_local(c->w, c->prog, name, PT_INT);
	if (op.dst == PROG_NO_SLOT)
		return fail(c, path, "program %s needs more than %d parameters, variables and loops",
			    c->w->progs[c->prog].name, PROG_MAX_LOCALS);
	uint32_t at = emit(c, op);
	c->loops[c->nloops++].nbreaks = 0;
	const cJSON *body = cJSON_GetObjectItemCaseSensitive(v, "body");
	if (!body)
		return fail(c, kp(p, path, "body"), "required key is missing");
	if (!compile_body(c, body, kp(p, path, "body")))
		return false;
	struct prog_op end = blank(PROG_END);
	end.a = at;
	uint32_t e = emit(c, end);
	struct program *pr = &c->w->progs[c->prog];
	pr->ops[at].a = e;
	struct loopctx *l = &c->loops[--c->nloops];
	for (uint32_t i = 0; i < l->nbreaks; i++)
		pr->ops[l->breaks[i]].a = e + 1;
	return true;
}

static bool op_if(struct cc *c, const cJSON *v, const char *path)
{
	static const char *const keys[] = { "cond", "then", "else", NULL };
	struct prog_op op = blank(PROG_JUMP_IFNOT);
	char p[JV_PATH];
	if (!op_args(c, v, path, keys) || !req_val(c, v, path, "cond", DIST_COUNT, PT_INT, &op.x))
		return false;
	const cJSON *th = cJSON_GetObjectItemCaseSensitive(v, "then");
	const cJSON *el = cJSON_GetObjectItemCaseSensitive(v, "else");
	if (!th)
		return fail(c, kp(p, path, "then"), "required key is missing");
	uint32_t jif = emit(c, op);
	if (!compile_body(c, th, kp(p, path, "then")))
		return false;
	uint32_t jend = PROG_NO_SLOT;
	if (el) {
		struct prog_op j = blank(PROG_JUMP);
		jend = emit(c, j);
	}
	c->w->progs[c->prog].ops[jif].a = here(c);
	if (el) {
		if (!compile_body(c, el, kp(p, path, "else")))
			return false;
		c->w->progs[c->prog].ops[jend].a = here(c);
	}
	return true;
}

/* A case's "then": "exit", "break", or a body. */
static bool op_select(struct cc *c, const cJSON *v, const char *path)
{
	static const char *const keys[] = { "cases", "default", NULL };
	static const char *const case_keys[] = { "recv", "send", "value", "into", "then", NULL };
	char p[JV_PATH], q[JV_PATH], r[JV_PATH];
	if (!op_args(c, v, path, keys))
		return false;
	const cJSON *cases = cJSON_GetObjectItemCaseSensitive(v, "cases");
	const cJSON *def = cJSON_GetObjectItemCaseSensitive(v, "default");
	kp(p, path, "cases");
	if (!cases)
		return fail(c, p, "required key is missing");
	if (!cJSON_IsArray(cases) || cJSON_GetArraySize(cases) < 1 ||
	    cJSON_GetArraySize(cases) > PROG_SELECT_MAX)
		return fail(c, p, "expected an array of 1 to %d cases", PROG_SELECT_MAX);
	uint32_t n = (uint32_t)cJSON_GetArraySize(cases);
	struct prog_op sel = blank(PROG_SELECT);
	sel.aux = (uint16_t)n;
	if (def)
		sel.flags |= PROG_F_DEFAULT | PROG_F_JUMP;
	uint32_t at = emit(c, sel);
	const cJSON *bodies[PROG_SELECT_MAX] = { 0 };
	for (uint32_t k = 0; k < n; k++) {
		const cJSON *cs = cJSON_GetArrayItem(cases, (int)k);
		jv_idx(q, sizeof(q), p, (int)k);
		if (!op_args(c, cs, q, case_keys))
			return false;
		const cJSON *rv = cJSON_GetObjectItemCaseSensitive(cs, "recv");
		const cJSON *sd = cJSON_GetObjectItemCaseSensitive(cs, "send");
		const cJSON *into = cJSON_GetObjectItemCaseSensitive(cs, "into");
		const cJSON *then = cJSON_GetObjectItemCaseSensitive(cs, "then");
		if (!rv == !sd)
			return fail(c, q, "a case has exactly one of \"recv\" and \"send\"");
		struct prog_op cop = blank(PROG_CASE);
		cop.y = PV_C(0);
		if (sd) {
			cop.flags |= PROG_F_SEND;
			if (into)
				return fail(c, kp(r, q, "into"), "a send case receives nothing");
			if (!parse_val(c, sd, kp(r, q, "send"), DIST_COUNT, PT_CHAN, &cop.x, 0) ||
			    !opt_val(c, cs, q, "value", DIST_COUNT, PT_INT, &cop.y))
				return false;
		} else {
			if (cJSON_GetObjectItemCaseSensitive(cs, "value"))
				return fail(c, kp(r, q, "value"), "a receive case sends nothing");
			if (!parse_val(c, rv, kp(r, q, "recv"), DIST_COUNT, PT_CHAN, &cop.x, 0) ||
			    (into && !parse_dst(c, into, kp(r, q, "into"), PT_INT, &cop.dst)))
				return false;
		}
		if (then && cJSON_IsString(then) && strcmp(then->valuestring, "exit") == 0) {
			cop.flags |= PROG_F_EXIT;
		} else if (then && cJSON_IsString(then) && strcmp(then->valuestring, "break") == 0) {
			cop.flags |= PROG_F_JUMP;
			if (!add_break(c, kp(r, q, "then"), at + 1 + k))
				return false;
		} else if (then) {
			cop.flags |= PROG_F_JUMP;
			bodies[k] = then;
		}
		emit(c, cop);
	}
	/* the bodies, each ending with a jump past the select */
	uint32_t ends[PROG_SELECT_MAX + 1], nends = 0;
	for (uint32_t k = 0; k < n; k++) {
		if (!bodies[k])
			continue;
		c->w->progs[c->prog].ops[at + 1 + k].a = here(c);
		jv_idx(q, sizeof(q), p, (int)k);
		if (!compile_body(c, bodies[k], kp(r, q, "then")))
			return false;
		ends[nends++] = emit(c, blank(PROG_JUMP));
	}
	if (def) {
		c->w->progs[c->prog].ops[at].a = here(c);
		if (!compile_body(c, def, kp(r, path, "default")))
			return false;
	}
	uint32_t end = here(c);
	struct program *pr = &c->w->progs[c->prog];
	for (uint32_t i = 0; i < nends; i++)
		pr->ops[ends[i]].a = end;
	/* a case without a body goes on after the select's bodies, not into them */
	for (uint32_t k = 0; k < n; k++)
		if (!(pr->ops[at + 1 + k].flags & (PROG_F_JUMP | PROG_F_EXIT))) {
			pr->ops[at + 1 + k].flags |= PROG_F_JUMP;
			pr->ops[at + 1 + k].a = end;
		}
	return true;
}

static bool op_set(struct cc *c, const cJSON *v, const char *path)
{
	if (!cJSON_IsObject(v) || !v->child)
		return fail(c, path, "expected an object of variable: value");
	for (const cJSON *a = v->child; a; a = a->next) {
		char p[JV_PATH];
		kp(p, path, a->string);
		struct prog_op op = blank(PROG_SET);
		cJSON name = { .type = cJSON_String, .valuestring = a->string };
		const struct program *pr = &c->w->progs[c->prog];
		int l = find_local(pr, a->string);
		if (l < 0)
			return fail(c, p, "no variable named '%s' in program %s", a->string, pr->name);
		/* parameters may be assigned too, as in Go */
		if (!parse_dst(c, &name, p, (enum prog_type)pr->local_types[l], &op.dst) ||
		    !parse_val(c, a, p, DIST_COUNT, (enum prog_type)pr->local_types[l], &op.x, 0))
			return false;
		emit(c, op);
	}
	return true;
}

static bool op_assert(struct cc *c, const cJSON *v, const char *path)
{
	static const char *const keys[] = { "cond", "message", NULL };
	struct prog_op op = blank(PROG_ASSERT);
	const char *msg = "";
	if (!op_args(c, v, path, keys) || !req_val(c, v, path, "cond", DIST_COUNT, PT_INT, &op.x) ||
	    !jv_get_string(&c->j, v, path, "message", false, &msg))
		return c->ok = false;
	struct workload *w = c->w;
	if (!(w->nstrs & (w->nstrs - 1)))   /* capacity: the next power of two */
		w->strs = xrealloc(w->strs, (w->nstrs ? 2 * w->nstrs : 1) * sizeof(*w->strs));
	w->strs[w->nstrs] = xstrdup(msg);
	op.a = w->nstrs++;
	emit(c, op);
	return true;
}

static bool op_request_begin(struct cc *c, const cJSON *v, const char *path)
{
	struct prog_op op = blank(PROG_REQ_BEGIN);
	if (cJSON_IsString(v) && strcmp(v->valuestring, "arrival") == 0)
		op.flags |= PROG_F_ARRIVAL;
	else if (!(cJSON_IsString(v) && strcmp(v->valuestring, "now") == 0) && !cJSON_IsTrue(v))
		return fail(c, path, "expected \"now\" or \"arrival\" (when the request's data arrived)");
	emit(c, op);
	return true;
}

/* Ops without operands, written as a string ("yield") or {"yield": true};
 * request_begin also takes "now" or "arrival" (op_request_begin). */
static const struct {
	const char *name;
	enum prog_opcode code;
} bare_ops[] = {
	{ "yield", PROG_YIELD },
	{ "exit", PROG_EXIT },
	{ "request_end", PROG_REQ_END },
	{ "request_begin", PROG_REQ_BEGIN },
	{ "break", PROG_JUMP },  /* to past its loop's end, filled when the loop closes */
};

static bool op_bare(struct cc *c, const char *name, const char *path)
{
	for (size_t k = 0; k < sizeof(bare_ops) / sizeof(bare_ops[0]); k++) {
		if (strcmp(name, bare_ops[k].name) != 0)
			continue;
		if (bare_ops[k].code == PROG_JUMP && !add_break(c, path, here(c)))
			return false;
		emit(c, blank(bare_ops[k].code));
		return true;
	}
	return fail(c, path, "unknown operation '%s'", name);
}

/* {"yield": true}: the object form of a bare op. */
static bool op_true(struct cc *c, const cJSON *a, const char *p, const char *path)
{
	if (!cJSON_IsTrue(a))
		return fail(c, p, "expected true (or write the operation as the string \"%s\")",
			    a->string);
	return op_bare(c, a->string, path);
}

/* The operations of the workload language, each once: its name and how
 * its object form {"name": a} at path p compiles (ORDER: the order of
 * the list of names in messages).  See docs/workload-format.md. */
#define LANG_OPS(X) \
	X("compute", op_one(c, a, p, PROG_COMPUTE, "ns", DIST_TIME, PT_INT)) \
	X("sleep", op_one(c, a, p, PROG_SLEEP, "ns", DIST_TIME, PT_INT)) \
	X("sleep_until", op_one(c, a, p, PROG_SLEEP_UNTIL, "ns", DIST_TIME, PT_INT)) \
	X("syscall", op_one(c, a, p, PROG_SYSCALL, "ns", DIST_TIME, PT_INT)) \
	X("yield", op_true(c, a, p, path)) \
	X("spawn", op_spawn(c, a, p)) \
	X("chan", op_make(c, a, p, PT_CHAN)) \
	X("waitgroup", op_make(c, a, p, PT_WG)) \
	X("mutex", op_make(c, a, p, PT_MUTEX)) \
	X("send", op_send(c, a, p)) \
	X("recv", op_recv(c, a, p)) \
	X("close", op_one(c, a, p, PROG_CLOSE, "chan", DIST_COUNT, PT_CHAN)) \
	X("select", op_select(c, a, p)) \
	X("wg_add", op_wg_add(c, a, p, false)) \
	X("wg_done", op_wg_add(c, a, p, true)) \
	X("wg_wait", op_one(c, a, p, PROG_WG_WAIT, "wg", DIST_COUNT, PT_WG)) \
	X("lock", op_one(c, a, p, PROG_LOCK, "mutex", DIST_COUNT, PT_MUTEX)) \
	X("unlock", op_one(c, a, p, PROG_UNLOCK, "mutex", DIST_COUNT, PT_MUTEX)) \
	X("alloc", op_alloc(c, a, p)) \
	X("touch", op_touch(c, a, p)) \
	X("accept", op_accept(c, a, p)) \
	X("net_read", op_net_read(c, a, p)) \
	X("net_write", op_one(c, a, p, PROG_NET_WRITE, "conn", DIST_COUNT, PT_CONN)) \
	X("request_begin", op_request_begin(c, a, p)) \
	X("request_end", op_true(c, a, p, path)) \
	X("loop", op_loop(c, a, p)) \
	X("if", op_if(c, a, p)) \
	X("set", op_set(c, a, p)) \
	X("assert", op_assert(c, a, p)) \
	X("break", op_true(c, a, p, path)) \
	X("exit", op_true(c, a, p, path))

/* ", compute, sleep, ...": the names for messages, from the second on */
#define LANG_OP_NAME(name, compile) ", " name
static const char lang_op_names[] = LANG_OPS(LANG_OP_NAME);
#undef LANG_OP_NAME
#define OP_NAMES (lang_op_names + 2)

static bool compile_op(struct cc *c, const cJSON *v, const char *path)
{
	if (cJSON_IsString(v))
		return op_bare(c, v->valuestring, path);
	if (!cJSON_IsObject(v) || !v->child || v->child->next)
		return fail(c, path, "an operation is an object with one key (one of: %s), or a string",
			    OP_NAMES);
	const cJSON *a = v->child;
	const char *name = a->string;
	char p[JV_PATH];
	kp(p, path, name);
#define LANG_OP_COMPILE(op_name, compile) \
	if (strcmp(name, op_name) == 0) \
		return compile;
	LANG_OPS(LANG_OP_COMPILE)
#undef LANG_OP_COMPILE
	return fail(c, p, "unknown operation (expected one of: %s)", OP_NAMES);
}

static bool compile_body(struct cc *c, const cJSON *body, const char *path)
{
	if (!cJSON_IsArray(body))
		return fail(c, path, "expected an array of operations");
	int i = 0;
	for (const cJSON *op = body->child; op; op = op->next, i++) {
		char p[JV_PATH];
		if (!compile_op(c, op, jv_idx(p, sizeof(p), path, i)))
			return false;
	}
	return true;
}

/* ---- Declarations ---- */

static const char *const type_words[] = { "int", "chan", "waitgroup", "mutex", "region", "conn",
					  NULL };

static bool declare_slots(struct cc *c, const cJSON *decl, const char *path, uint32_t prog)
{
	if (!decl)
		return true;
	if (!cJSON_IsObject(decl))
		return fail(c, path, "expected an object of name: type (types: int, chan, waitgroup, "
				     "mutex, region, conn)");
	for (const cJSON *d = decl->child; d; d = d->next) {
		char p[JV_PATH];
		kp(p, path, d->string);
		if (!is_ident(d->string))
			return fail(c, p, "a name starts with a letter and has letters, digits, _ and -");
		if (find_local(&c->w->progs[prog], d->string) >= 0)
			return fail(c, p, "'%s' is declared twice in program %s", d->string,
				    c->w->progs[prog].name);
		int t = -1;
		for (int k = 0; type_words[k]; k++)
			if (cJSON_IsString(d) && strcmp(d->valuestring, type_words[k]) == 0)
				t = k;
		if (t < 0)
			return fail(c, p, "expected a type: int, chan, waitgroup, mutex, region or conn");
		if (wl_add_local(c->w, prog, d->string, (enum prog_type)t) == PROG_NO_SLOT)
			return fail(c, p, "program %s needs more than %d parameters, variables and loops",
				    c->w->progs[prog].name, PROG_MAX_LOCALS);
	}
	return true;
}

static bool declare_program(struct cc *c, const cJSON *v, const char *path)
{
	if (!is_ident(v->string))
		return fail(c, path, "a name starts with a letter and has letters, digits, _ and -");
	uint32_t prog = wl_add_program(c->w, v->string);
	ix_add(&c->progs_ix, c->w->progs[prog].name, PT_INT, prog);
	if (cJSON_IsArray(v))
		return true;
	static const char *const keys[] = { "params", "vars", "max_depth", "body", NULL };
	if (!cJSON_IsObject(v))
		return fail(c, path, "expected a program: an array of operations, or an object with "
				     "\"body\"");
	if (!op_args(c, v, path, keys))
		return false;
	char p[JV_PATH];
	if (!declare_slots(c, cJSON_GetObjectItemCaseSensitive(v, "params"), kp(p, path, "params"), prog))
		return false;
	c->w->progs[prog].nparams = c->w->progs[prog].nlocals;
	if (!declare_slots(c, cJSON_GetObjectItemCaseSensitive(v, "vars"), kp(p, path, "vars"), prog))
		return false;
	long depth = 0;
	if (!jv_get_int(&c->j, v, path, "max_depth", false, 1, 1000000, &depth))
		return c->ok = false;
	c->w->progs[prog].max_depth = (uint32_t)depth;
	if (!cJSON_GetObjectItemCaseSensitive(v, "body"))
		return fail(c, kp(p, path, "body"), "required key is missing");
	return true;
}

static bool declare_names(struct cc *c, const cJSON *list, const char *path, enum prog_type t,
			  uint32_t (*add)(struct workload *, const char *))
{
	if (!list)
		return true;
	if (!jv_array(&c->j, list, path))
		return c->ok = false;
	int i = 0;
	for (const cJSON *n = list->child; n; n = n->next, i++) {
		char p[JV_PATH];
		jv_idx(p, sizeof(p), path, i);
		if (!cJSON_IsString(n) || !is_ident(n->valuestring))
			return fail(c, p, "expected a name (a letter, then letters, digits, _ and -)");
		if (global_taken(c, n->valuestring))
			return fail(c, p, "'%s' is declared twice", n->valuestring);
		uint32_t k = add(c->w, n->valuestring);
		ix_add(&c->globals, t == PT_WG ? c->w->waitgroups[k] : c->w->mutexes[k], t, k);
	}
	return true;
}

static bool declare_channels(struct cc *c, const cJSON *chans, const char *path)
{
	if (!chans)
		return true;
	if (!cJSON_IsObject(chans))
		return fail(c, path, "expected an object of name: capacity");
	for (const cJSON *ch = chans->child; ch; ch = ch->next) {
		char p[JV_PATH];
		kp(p, path, ch->string);
		long cap;
		if (!is_ident(ch->string))
			return fail(c, p, "a name starts with a letter and has letters, digits, _ and -");
		if (global_taken(c, ch->string))
			return fail(c, p, "'%s' is declared twice", ch->string);
		if (!jv_as_int(&c->j, ch, p, 0, WL_CHAN_CAP_MAX, &cap))
			return c->ok = false;
		uint32_t i = wl_add_chan(c->w, ch->string, (uint32_t)cap);
		ix_add(&c->globals, c->w->chans[i].name, PT_CHAN, i);
	}
	return true;
}

static bool declare_regions(struct cc *c, const cJSON *regs, const char *path, int nnodes_hint)
{
	(void)nnodes_hint;
	if (!regs)
		return true;
	if (!cJSON_IsObject(regs))
		return fail(c, path, "expected an object of name: region");
	static const char *const keys[] = { "size", "placement", "node", NULL };
	for (const cJSON *r = regs->child; r; r = r->next) {
		char p[JV_PATH], q[JV_PATH];
		kp(p, path, r->string);
		if (!is_ident(r->string))
			return fail(c, p, "a name starts with a letter and has letters, digits, _ and -");
		if (global_taken(c, r->string))
			return fail(c, p, "'%s' is declared twice", r->string);
		if (!op_args(c, r, p, keys))
			return false;
		uint64_t size = 0;
		if (!jv_get_size(&c->j, r, p, "size", true, &size))
			return c->ok = false;
		int place = RT_PLACE_NODE;
		long node = 0;
		/* "local" has no running P at the start: a named region is on a node */
		if (!parse_enum(c, r, p, "placement", placements, 4, &place))
			return false;
		if (place == RT_PLACE_LOCAL)
			return fail(c, kp(q, p, "placement"),
				    "a workload's region is made before any G runs: use \"node\", "
				    "\"interleave\" or \"first-touch\" (\"local\" is for alloc)");
		if (!jv_get_int(&c->j, r, p, "node", false, 0, 4095, &node))
			return c->ok = false;
		uint32_t i = wl_add_region(c->w, r->string, size, (enum rt_place)place, (int)node);
		ix_add(&c->globals, c->w->regions[i].name, PT_REGION, i);
	}
	return true;
}

static struct dist *opt_dist(struct cc *c, const cJSON *obj, const char *path, const char *key,
			     enum dist_unit unit, int64_t def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char p[JV_PATH];
	if (!v)
		return dist_const(def);
	struct dist *d = dist_parse(&c->j, v, kp(p, path, key), unit);
	if (!d)
		c->ok = false;
	return d;
}

static bool declare_listeners(struct cc *c, const cJSON *ls, const char *path)
{
	if (!ls)
		return true;
	if (!cJSON_IsObject(ls))
		return fail(c, path, "expected an object of name: listener");
	static const char *const keys[] = { "connections", "rate", "interval", "clients", "requests",
					    "think", NULL };
	for (const cJSON *l = ls->child; l; l = l->next) {
		char p[JV_PATH], q[JV_PATH];
		kp(p, path, l->string);
		if (!is_ident(l->string))
			return fail(c, p, "a name starts with a letter and has letters, digits, _ and -");
		if (global_taken(c, l->string))
			return fail(c, p, "'%s' is declared twice", l->string);
		if (!op_args(c, l, p, keys))
			return false;
		bool has_conn = cJSON_GetObjectItemCaseSensitive(l, "connections");
		bool has_clients = cJSON_GetObjectItemCaseSensitive(l, "clients");
		bool has_rate = cJSON_GetObjectItemCaseSensitive(l, "rate");
		bool has_interval = cJSON_GetObjectItemCaseSensitive(l, "interval");
		if (has_conn == has_clients)
			return fail(c, p, "a listener has \"connections\" (an open loop, with \"rate\" or "
					  "\"interval\") or \"clients\" (a closed loop), not both");
		if (has_clients && (has_rate || has_interval))
			return fail(c, kp(q, p, has_rate ? "rate" : "interval"),
				    "a closed loop's clients come at the start: no arrival process");
		if (has_conn && has_rate == has_interval)
			return fail(c, p, "an open loop has \"rate\" (Poisson arrivals) or \"interval\" "
					  "(gaps between arrivals), not both");
		long count;
		if (!jv_get_int(&c->j, l, p, has_conn ? "connections" : "clients", true, 0, 100000000,
				&count))
			return c->ok = false;
		uint32_t i = wl_add_listener(c->w, l->string, 1, (uint64_t)count);
		ix_add(&c->globals, c->w->listeners[i].name, PT_LISTENER, i);
		struct prog_listener *pl = &c->w->listeners[i];
		pl->closed = has_clients;
		if (has_rate) {
			double rate;
			if (!jv_get_positive(&c->j, l, p, "rate", true, &rate))
				return c->ok = false;
			cJSON *spec = cJSON_CreateObject();
			cJSON *e = cJSON_AddObjectToObject(spec, "exponential");
			cJSON_AddNumberToObject(e, "mean", 1e9 / rate);
			dist_free(pl->interval);
			pl->interval = dist_parse(&c->j, spec, kp(q, p, "rate"), DIST_TIME);
			cJSON_Delete(spec);
			pl->rate = rate;
		} else if (has_interval) {
			dist_free(pl->interval);
			pl->interval = opt_dist(c, l, p, "interval", DIST_TIME, 0);
		}
		dist_free(pl->requests);
		dist_free(pl->think);
		pl->requests = opt_dist(c, l, p, "requests", DIST_COUNT, 1);
		pl->think = opt_dist(c, l, p, "think", DIST_TIME, 0);
		if (!pl->interval || !pl->requests || !pl->think)
			return c->ok = false;
	}
	return true;
}

/* ---- Whole-workload checks: recursion and memory ---- */

/* The spawn graph: an edge from each program to the program each of its
 * spawn and accept sites starts, as adjacency lists (edge k of program a
 * is adj[start[a] + k], its op at site[...]). */
struct spawn_graph {
	uint32_t *start, *adj, *site;
};

static bool is_spawn_site(const struct prog_op *op)
{
	return op->code == PROG_SPAWN || op->code == PROG_ACCEPT;
}

static struct spawn_graph spawn_graph(const struct workload *w)
{
	uint32_t n = w->nprogs;
	struct spawn_graph g = { xcalloc((size_t)n + 1, sizeof(uint32_t)), NULL, NULL };
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t i = 0; i < w->progs[a].nops; i++)
			g.start[a + 1] += is_spawn_site(&w->progs[a].ops[i]);
	for (uint32_t a = 0; a < n; a++)
		g.start[a + 1] += g.start[a];
	g.adj = xmalloc(((size_t)g.start[n] + 1) * sizeof(uint32_t));
	g.site = xmalloc(((size_t)g.start[n] + 1) * sizeof(uint32_t));
	for (uint32_t a = 0, k = 0; a < n; a++)
		for (uint32_t i = 0; i < w->progs[a].nops; i++)
			if (is_spawn_site(&w->progs[a].ops[i])) {
				g.adj[k] = w->progs[a].ops[i].a;
				g.site[k++] = i;
			}
	return g;
}

static void spawn_graph_free(struct spawn_graph *g)
{
	free(g->start);
	free(g->adj);
	free(g->site);
}

/* A program on a spawn cycle (it can spawn itself, through others or not)
 * must bound its depth: else a typo makes an endless tree of Gs.  The
 * cycles are the strongly connected components of the spawn graph with
 * more than one program, or with an edge to itself (Tarjan's algorithm,
 * without recursion: a chain of 100,000 programs is a valid workload). */
static bool check_recursion(struct cc *c, const struct spawn_graph *g)
{
	struct workload *w = c->w;
	uint32_t n = w->nprogs;
	const uint32_t NONE = UINT32_MAX;
	uint32_t *index = xmalloc(((size_t)n + 1) * sizeof(uint32_t));
	uint32_t *low = xmalloc(((size_t)n + 1) * sizeof(uint32_t));
	uint32_t *edge = xmalloc(((size_t)n + 1) * sizeof(uint32_t));   /* next edge to follow */
	uint32_t *stack = xmalloc(((size_t)n + 1) * sizeof(uint32_t));  /* Tarjan's stack */
	uint32_t *path = xmalloc(((size_t)n + 1) * sizeof(uint32_t));   /* the DFS's */
	bool *on_stack = xcalloc((size_t)n + 1, 1), *cyclic = xcalloc((size_t)n + 1, 1);
	for (uint32_t v = 0; v < n; v++)
		index[v] = NONE;
	uint32_t next = 0, sp = 0;
	for (uint32_t root = 0; root < n; root++) {
		if (index[root] != NONE)
			continue;
		uint32_t depth = 0;
		path[depth++] = root;
		index[root] = low[root] = next++;
		edge[root] = g->start[root];
		stack[sp++] = root;
		on_stack[root] = true;
		while (depth > 0) {
			uint32_t v = path[depth - 1];
			wl__compile_steps++;
			if (edge[v] < g->start[v + 1]) {
				uint32_t u = g->adj[edge[v]++];
				if (u == v)
					cyclic[v] = true;
				if (index[u] == NONE) {
					index[u] = low[u] = next++;
					edge[u] = g->start[u];
					stack[sp++] = u;
					on_stack[u] = true;
					path[depth++] = u;
				} else if (on_stack[u] && index[u] < low[v]) {
					low[v] = index[u];
				}
				continue;
			}
			depth--;
			if (depth > 0 && low[v] < low[path[depth - 1]])
				low[path[depth - 1]] = low[v];
			if (low[v] != index[v])
				continue;
			/* v roots a component: pop it */
			uint32_t first = sp;
			do
				on_stack[stack[--first]] = false;
			while (stack[first] != v);
			if (sp - first > 1)
				for (uint32_t k = first; k < sp; k++)
					cyclic[stack[k]] = true;
			sp = first;
		}
	}
	bool ok = true;
	for (uint32_t a = 0; a < n && ok; a++) {
		if (cyclic[a] && !w->progs[a].max_depth) {
			char p[JV_PATH];
			kp(p, "$.programs", w->progs[a].name);
			ok = fail(c, p, "program %s spawns itself (directly or through others) without "
					"a bound: give it \"max_depth\"",
				  w->progs[a].name);
		}
	}
	free(index);
	free(low);
	free(edge);
	free(stack);
	free(path);
	free(on_stack);
	free(cyclic);
	return ok;
}

/* An upper bound of a count operand (saturating), for the memory check. */
static double val_bound(const struct workload *w, const struct prog_val *v)
{
	int64_t max;
	switch (v->kind) {
	case PV_CONST: return v->c > 0 ? (double)v->c : 0;
	case PV_DIST:
		if (dist_max(w->dists[v->i], &max))
			return (double)max;
		/* unbounded: a generous multiple of the mean */
		return 10 * dist_mean(w->dists[v->i]);
	default: return NAN;   /* not known before the run */
	}
}

/* How often each op of p runs per run of p: the product of the bounds of
 * the loops around it, outermost first (loops nest: the compiler closes
 * them in order). */
static void times_run(const struct workload *w, const struct program *p, double *times)
{
	uint32_t open_end[MAX_LOOP_NEST + 1];
	double prod[MAX_LOOP_NEST + 2] = { 1 };
	uint32_t depth = 0;
	for (uint32_t i = 0; i < p->nops; i++) {
		while (depth > 0 && open_end[depth - 1] <= i)
			depth--;
		times[i] = prod[depth];
		const struct prog_op *op = &p->ops[i];
		if (op->code == PROG_LOOP && depth < MAX_LOOP_NEST + 1) {
			open_end[depth] = op->a;
			prod[depth + 1] = prod[depth] * val_bound(w, &op->x);
			depth++;
		}
	}
}

/* Bounds the goroutines an acyclic workload makes and the memory its
 * regions model; refuses one that would not fit the budget.  Counts known
 * only at run time (computed, or in recursion) are not bounded here: the
 * run itself stops at max_depth.
 *
 * gs[a] bounds the Gs of program a: 1 for main, and for a program the
 * largest over its spawn sites of (Gs of the spawner x the site's count x
 * the loops around it).  Programs with max_depth neither count nor pass
 * counts on, so what remains of the spawn graph has no cycle
 * (check_recursion): one pass in topological order (Kahn's) settles it. */
static bool check_budget(struct cc *c, const struct spawn_graph *g)
{
	struct workload *w = c->w;
	uint32_t n = w->nprogs;
	double *gs = xcalloc((size_t)n + 1, sizeof(double));
	uint32_t *indeg = xcalloc((size_t)n + 1, sizeof(uint32_t));
	uint32_t *order = xmalloc(((size_t)n + 1) * sizeof(uint32_t));
	uint32_t maxops = 0;
	for (uint32_t a = 0; a < n; a++) {
		if (w->progs[a].nops > maxops)
			maxops = w->progs[a].nops;
		if (w->progs[a].max_depth)
			continue;
		for (uint32_t k = g->start[a]; k < g->start[a + 1]; k++)
			indeg[g->adj[k]]++;
	}
	uint32_t head = 0, tail = 0;
	for (uint32_t a = 0; a < n; a++)
		if (!w->progs[a].max_depth && indeg[a] == 0)
			order[tail++] = a;
	double *times = xmalloc(((size_t)maxops + 1) * sizeof(double));
	gs[w->main] = 1;
	while (head < tail) {
		uint32_t a = order[head++];
		const struct program *p = &w->progs[a];
		if (gs[a])
			times_run(w, p, times);
		for (uint32_t k = g->start[a]; k < g->start[a + 1]; k++) {
			uint32_t b = g->adj[k];
			wl__compile_steps++;
			if (w->progs[b].max_depth)
				continue;
			if (--indeg[b] == 0)
				order[tail++] = b;
			if (!gs[a])
				continue;
			const struct prog_op *op = &p->ops[g->site[k]];
			double m = op->code == PROG_SPAWN ? val_bound(w, &op->x)
							  : (double)w->listeners[op->x.i].count;
			if (isnan(m))
				continue;
			double made = gs[a] * m * times[g->site[k]];
			if (made > gs[b])
				gs[b] = made;
		}
	}
	free(times);
	free(order);
	free(indeg);
	double total = 0;
	for (uint32_t a = 0; a < n; a++)
		total += isnan(gs[a]) ? 0 : gs[a];
	free(gs);
	double bytes = total * RT_BYTES_PER_G;
	for (uint32_t i = 0; i < w->nregions; i++)
		bytes += ceil((double)w->regions[i].bytes / 4096) * WL_BYTES_PER_PAGE;
	/* the named objects, as the run counts them [workloads/interp.c: Budgets] */
	bytes += (double)(w->nchans + w->nmutexes + w->nwaitgroups) * WL_BYTES_PER_OBJ;
	for (uint32_t i = 0; i < w->nchans; i++)
		bytes += (double)w->chans[i].cap * 8;
	if (bytes > (double)RT_MEMORY_BUDGET)
		return fail(c, "$", "workload %s would need about %.1f GiB of simulator memory "
				   "(%.3g goroutines at %u bytes, its regions' page tables and its "
				   "channels' buffers); the budget is %llu GiB",
			    w->name, bytes / (1u << 30), total, RT_BYTES_PER_G,
			    (unsigned long long)(RT_MEMORY_BUDGET >> 30));
	return true;
}

/* "stacks": {"size": S, "frame": F} -- a modelled stack per G. */
static bool declare_stacks(struct cc *c, const cJSON *st, const char *path)
{
	if (!st)
		return true;
	static const char *const keys[] = { "size", "frame", NULL };
	if (!op_args(c, st, path, keys))
		return false;
	uint64_t size, frame = 256;
	char p[JV_PATH];
	if (!jv_get_size(&c->j, st, path, "size", true, &size) ||
	    !jv_get_size(&c->j, st, path, "frame", false, &frame))
		return c->ok = false;
	if (size < 1024 || size > (1ull << 30))
		return fail(c, kp(p, path, "size"), "a stack is 1 KiB to 1 GiB, not %llu bytes",
			    (unsigned long long)size);
	if (frame < 64 || frame > size)
		return fail(c, kp(p, path, "frame"),
			    "the frame written per run is 64 bytes to the stack's size, not %llu",
			    (unsigned long long)frame);
	c->w->stack_bytes = size;
	c->w->stack_frame = frame;
	return true;
}

/* "waits": {REASON: {"count": N, "latency_ns": T}, ...}, "wait_ns": T,
 * "wait_p_free_ns": T: the recorded waits by wake-up reason. */
static bool declare_recorded_waits(struct cc *c, const cJSON *r, const char *path)
{
	struct wl_recorded *rec = &c->w->recorded;
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(r, "waits");
	char p[JV_PATH], q[JV_PATH];
	long total = 0, free_ns = 0;
	if (!w)
		return true;
	const char *names[RT_RUN__COUNT + 1];
	for (int k = 0; k < RT_RUN__COUNT; k++)
		names[k] = rt_run_why_names[k];
	names[RT_RUN__COUNT] = NULL;
	if (!jv_object(&c->j, w, kp(p, path, "waits"), names) ||
	    !jv_get_int(&c->j, r, path, "wait_ns", true, 0, LONG_MAX, &total) ||
	    !jv_get_int(&c->j, r, path, "wait_p_free_ns", true, 0, LONG_MAX, &free_ns))
		return c->ok = false;
	static const char *const wkeys[] = { "count", "latency_ns", NULL };
	for (int k = 0; k < RT_RUN__COUNT; k++) {
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(w, rt_run_why_names[k]);
		long n = 0, ns = 0;
		kp(q, p, rt_run_why_names[k]);
		if (x && (!jv_object(&c->j, x, q, wkeys) ||
			  !jv_get_int(&c->j, x, q, "count", true, 0, LONG_MAX, &n) ||
			  !jv_get_int(&c->j, x, q, "latency_ns", true, 0, LONG_MAX, &ns)))
			return c->ok = false;
		rec->wake_n[k] = n;
		rec->wake_ns[k] = ns;
	}
	if (free_ns > total)
		return fail(c, kp(p, path, "wait_p_free_ns"), "at most wait_ns (%ld)", total);
	rec->has_waits = true;
	rec->wait_ns = total;
	rec->wait_p_free_ns = free_ns;
	return true;
}

/* "inferred": {"shared_channels": N, "takers": N, "wake_ups": N,
 * "backpressure": N, "job_channels": N, "pairs": N, "site": S}: what the import
 * inferred from the trace (trace/import.c, "Channels"). */
static bool declare_recorded_inferred(struct cc *c, const cJSON *r, const char *path)
{
	struct wl_recorded *rec = &c->w->recorded;
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(r, "inferred");
	if (!x)
		return true;
	static const char *const keys[] = { "shared_channels", "takers", "wake_ups",
					    "backpressure", "job_channels", "pairs", "site", NULL };
	char p[JV_PATH];
	long n[6] = { 0 };
	const char *site = "";
	kp(p, path, "inferred");
	if (!jv_object(&c->j, x, p, keys))
		return c->ok = false;
	for (int i = 0; i < 6; i++)
		if (!jv_get_int(&c->j, x, p, keys[i], true, 0, LONG_MAX, &n[i]))
			return c->ok = false;
	if (!jv_get_string(&c->j, x, p, "site", false, &site))
		return c->ok = false;
	if (strlen(site) >= sizeof rec->site) {
		char q[JV_PATH];
		return fail(c, kp(q, p, "site"), "a site of at most %zu characters",
			    sizeof rec->site - 1);
	}
	rec->has_inferred = true;
	rec->shared = n[0];
	rec->takers = n[1];
	rec->wake_ups = n[2];
	rec->backpressure = n[3];
	rec->jobs = n[4];
	rec->pairs = n[5];
	snprintf(rec->site, sizeof rec->site, "%s", site);
	return true;
}

/* "recorded": {"go": V, "gomaxprocs": N, "makespan_ns": T, "goroutines": N,
 * "sched_latency_ns": {"p50": T, "p99": T}} -- an imported trace's own
 * figures (docs/workload-format.md, "Imported traces"). */
static bool declare_recorded(struct cc *c, const cJSON *r, const char *path)
{
	if (!r)
		return true;
	static const char *const keys[] = { "go", "gomaxprocs", "makespan_ns", "goroutines",
					    "sched_latency_ns", "waits", "wait_ns", "wait_p_free_ns",
					    "inferred", NULL };
	static const char *const lkeys[] = { "p50", "p99", NULL };
	struct wl_recorded *rec = &c->w->recorded;
	const char *go = "";
	long procs = 0, span = 0, gs = 0, p50 = 0, p99 = 0;
	char p[JV_PATH];
	if (!jv_object(&c->j, r, path, keys) || !jv_get_string(&c->j, r, path, "go", false, &go) ||
	    !jv_get_int(&c->j, r, path, "gomaxprocs", true, 1, 1024, &procs) ||
	    !jv_get_int(&c->j, r, path, "makespan_ns", true, 0, LONG_MAX, &span) ||
	    !jv_get_int(&c->j, r, path, "goroutines", false, 0, LONG_MAX, &gs))
		return c->ok = false;
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(r, "sched_latency_ns");
	if (l && (!jv_object(&c->j, l, kp(p, path, "sched_latency_ns"), lkeys) ||
		  !jv_get_int(&c->j, l, p, "p50", false, 0, LONG_MAX, &p50) ||
		  !jv_get_int(&c->j, l, p, "p99", false, 0, LONG_MAX, &p99)))
		return c->ok = false;
	if (strlen(go) >= sizeof rec->go)
		return fail(c, kp(p, path, "go"), "a Go version of at most %zu characters",
			    sizeof rec->go - 1);
	rec->present = true;
	snprintf(rec->go, sizeof rec->go, "%s", go);
	rec->gomaxprocs = (int)procs;
	rec->makespan_ns = span;
	rec->goroutines = gs;
	rec->lat_p50_ns = p50;
	rec->lat_p99_ns = p99;
	return declare_recorded_waits(c, r, path) && declare_recorded_inferred(c, r, path);
}

/* ---- The document ---- */

/* jv_parse refuses a text that escapes a NUL, naming the string. */
cJSON *wl_parse_json(const struct jv *j, const char *text)
{
	return jv_parse(j, text);
}

/* The workload-wide objects: channels, wait groups, mutexes, regions,
 * listeners, stacks and the recorded figures. */
static bool declare_objects(struct cc *c, const cJSON *root)
{
	return declare_channels(c, cJSON_GetObjectItemCaseSensitive(root, "channels"), "$.channels") &&
	       declare_names(c, cJSON_GetObjectItemCaseSensitive(root, "waitgroups"), "$.waitgroups",
			     PT_WG, wl_add_waitgroup) &&
	       declare_names(c, cJSON_GetObjectItemCaseSensitive(root, "mutexes"), "$.mutexes",
			     PT_MUTEX, wl_add_mutex) &&
	       declare_regions(c, cJSON_GetObjectItemCaseSensitive(root, "regions"), "$.regions", 0) &&
	       declare_listeners(c, cJSON_GetObjectItemCaseSensitive(root, "listeners"),
				 "$.listeners") &&
	       declare_stacks(c, cJSON_GetObjectItemCaseSensitive(root, "stacks"), "$.stacks") &&
	       declare_recorded(c, cJSON_GetObjectItemCaseSensitive(root, "recorded"), "$.recorded");
}

/* Every program's name, parameters and variables, before any body (a body
 * may spawn a program declared after it); then the main one. */
static bool declare_programs(struct cc *c, const cJSON *root, const cJSON *progs,
			     const char *main_name)
{
	if (!progs)
		return jv_fail(&c->j, "$.programs", "required key is missing");
	if (!cJSON_IsObject(progs) || !progs->child)
		return jv_fail(&c->j, "$.programs",
			       "expected an object of name: program, with at least main");
	for (const cJSON *p = progs->child; p; p = p->next) {
		char path[JV_PATH];
		kp(path, "$.programs", p->string);
		if (find_prog(c, p->string) >= 0)
			return jv_fail(&c->j, path, "key given twice");
		if (!declare_program(c, p, path))
			return false;
	}
	int m = find_prog(c, main_name);
	if (m < 0)
		return jv_fail(&c->j, cJSON_GetObjectItemCaseSensitive(root, "main") ? "$.main"
			       : "$.programs", "no program named '%s' to start with", main_name);
	c->w->main = (uint32_t)m;
	if (c->w->progs[m].nparams) {
		char path[JV_PATH];
		return jv_fail(&c->j, kp(path, "$.programs", main_name),
			       "the first program takes no parameters");
	}
	return true;
}

static bool compile_programs(struct cc *c, const cJSON *progs)
{
	uint32_t pi = 0;
	for (const cJSON *p = progs->child; p; p = p->next, pi++) {
		char path[JV_PATH], bpath[JV_PATH];
		kp(path, "$.programs", p->string);
		c->prog = pi;
		c->nloops = 0;
		const cJSON *body = cJSON_IsArray(p) ? p : cJSON_GetObjectItemCaseSensitive(p, "body");
		if (!compile_body(c, body, cJSON_IsArray(p) ? path : kp(bpath, path, "body")))
			return false;
	}
	return true;
}

/* What needs the whole workload: recursion, the memory budget, and the
 * validator's word that the compiler made only valid programs. */
static bool check_whole(struct cc *c, const char *file, struct err *e)
{
	struct spawn_graph g = spawn_graph(c->w);
	bool whole_ok = check_recursion(c, &g) && check_budget(c, &g);
	spawn_graph_free(&g);
	if (!whole_ok)
		return false;
	struct err ve;
	if (!wl_validate(c->w, &ve)) {
		/* the compiler makes only valid programs: this is its bug */
		err_set(e, "%s: internal error: %s", file, ve.msg);
		return false;
	}
	return true;
}

struct workload *wl_compile(const char *file, const char *text, struct err *e)
{
	struct cc c = { .j = { file, e }, .ok = true };
	cJSON *root = wl_parse_json(&c.j, text);
	if (!root)
		return NULL;
	static const char *const keys[] = { "name", "description", "main", "channels", "waitgroups",
					    "mutexes", "regions", "listeners", "stacks", "recorded", "programs",
					    NULL };
	struct workload *w = NULL;
	const char *name = NULL, *desc = "", *main_name = "main";
	if (!jv_object(&c.j, root, "$", keys) || !jv_get_string(&c.j, root, "$", "name", true, &name) ||
	    !jv_get_string(&c.j, root, "$", "description", false, &desc) ||
	    !jv_get_string(&c.j, root, "$", "main", false, &main_name))
		goto out;
	w = c.w = wl_new(name, desc);
	w->file = xstrdup(file);
	const cJSON *progs = cJSON_GetObjectItemCaseSensitive(root, "programs");
	if (!declare_objects(&c, root) || !declare_programs(&c, root, progs, main_name) ||
	    !compile_programs(&c, progs) || !check_whole(&c, file, e)) {
		wl_free(w);
		w = NULL;
		goto out;
	}
	w->source_json = cJSON_PrintUnformatted(root);
out:
	free(c.globals.ents);
	free(c.progs_ix.ents);
	cJSON_Delete(root);
	return w;
}
