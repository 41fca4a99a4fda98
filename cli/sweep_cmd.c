/* `schedlab sweep`: the cartesian product of lists of topologies,
 * workloads, policy variants, knob values, P counts and seeds, run by the
 * run-matrix engine (exp/matrix.h) into a results store (exp/store.h);
 * or, with --emit-jobs, written as one command per run for GNU parallel
 * and a Slurm job array, each of which runs one cell (--only I) and
 * writes its row [docs/experiments.md]. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "util/output.h"
#include "cli/run.h"
#include "core/policy.h"
#include "exp/matrix.h"
#include "exp/spec.h"
#include "exp/store.h"
#include "topologies/topo.h"
#include "util/version.h"
#include "workloads/json.h"
#include "workloads/program.h"

#define CMD "sweep"

void cli_help_sweep(FILE *f)
{
	fprintf(f,
		"usage: schedlab sweep -p P1,P2:K=V,... [-t T1,T2,...] [-w W1,W2,...]\n"
		"                      [--procs LIST] [--set KEY=LIST ...] [--seeds N] [--seed S]\n"
		"                      [--cpu-quota CPUS [--cpu-period T]] [--cpuset LIST] [--load N]\n"
		"                      [-j N] [--json FILE|-] [--csv FILE|-] [--resume] [--native] [--why]\n"
		"                      [--emit-jobs FILE [--results DIR]] [--only I]\n"
		"                      [--max-sim-time T] [--max-wall-time T] [--max-memory SIZE]\n"
		"\n"
		"Runs every combination of the lists given -- a cartesian product -- each run a\n"
		"process of its own, N at once, and writes every run's row to a results store\n"
		"(docs/experiments.md): its inputs, status and whole report.  Without --json -\n"
		"or --csv -, a line per run goes to stdout.\n"
		"\n");
	cli_opts_help(f, cli_sweep_opts, CLI_OPT_HELP_COL - 2);
	fprintf(f,
		"\n"
		"A LIST is items separated by commas.  For --procs and --set an item may be a\n"
		"range: A..B doubles from A up to B (1..64 = 1,2,4,8,16,32,64), A..B+S steps\n"
		"by S (0..100+25 = 0,25,50,75,100).  A matrix of more than %d runs is refused.\n"
		"\n"
		"The order of the runs (a row's \"index\"): topology, then workload, policy\n"
		"variant, each --set in the order given, P count, and seed innermost -- the\n"
		"first list varying slowest.  A row's \"variant\" is the -p item with the --set\n"
		"values applied to it appended, steal:runnext=0:spinning_max_pct=25.\n"
		"\n"
		"Exit status: 0 every run completed; else that of the first run, in matrix\n"
		"order, that did not (1 deadlock, 2 panic, 3 could not be started, 4 cut at a\n"
		"limit, 128 + N killed by signal N), the store holding every row all the same;\n"
		"2 bad input.\n",
		EXP_MAX_RUNS);
}

/* ---- The matrix ---- */

struct variant {
	char *label;                   /* the -p item */
	const struct pol_ops *pol;
	int64_t *knobs;                /* defaults, then the item's own */
	cJSON *given;                  /* the item's own knobs, effective values */
};

struct dim {                           /* a --set dimension */
	char key[128];
	char **vals;
	long n;
};

struct sweep {
	struct variant *vars;
	long nvars;
	struct topo **topos;
	char **topo_args;              /* as to give them again (files: absolute paths) */
	long ntopos;
	struct workload **wls;
	char **wl_args;
	long nwls;
	struct dim dims[CLI_MAX_SETS];
	int ndims;
	char **procs;                  /* as given, expanded; NULL: each topology's PUs */
	long nprocs;
	/* the OS options (cli/run.h), and what they are on each topology:
	 * its rt_os and the cpuset's flags it points to */
	const struct cli_opts *o;
	struct rt_os *os;
	bool **cpusets;
	uint64_t seed, nseeds;
	bool native;
	bool why;                      /* --why: each row's report has its "why" */
	struct run limits;
	/* the cells */
	struct exp_cell *cells;
	int64_t **knobs;
	cJSON **sets;
	char **labels;
	long n;
};

static void sweep_free(struct sweep *s)
{
	for (long i = 0; i < s->nvars; i++) {
		free(s->vars[i].label);
		free(s->vars[i].knobs);
		cJSON_Delete(s->vars[i].given);
	}
	free(s->vars);
	for (long i = 0; i < s->ntopos; i++) {
		topo_free(s->topos[i]);
		free(s->topo_args[i]);
	}
	free(s->topos);
	free(s->topo_args);
	for (long i = 0; i < s->nwls; i++) {
		wl_free(s->wls[i]);
		free(s->wl_args[i]);
	}
	free(s->wls);
	free(s->wl_args);
	for (int d = 0; d < s->ndims; d++)
		exp_list_free(s->dims[d].vals, s->dims[d].n);
	exp_list_free(s->procs, s->nprocs);
	for (long i = 0; s->cpusets && i < s->ntopos; i++)
		free(s->cpusets[i]);
	free(s->cpusets);
	free(s->os);
	for (long i = 0; i < s->n; i++) {
		free(s->knobs[i]);
		cJSON_Delete(s->sets[i]);
		free(s->labels[i]);
	}
	free(s->cells);
	free(s->knobs);
	free(s->sets);
	free(s->labels);
}

static int list_error(const struct err *e)
{
	return cli_usage_error(CMD, "%s", e->msg);
}

/* A file argument (a path: it has a '/' or names an existing file) as an
 * absolute path, so that a job run elsewhere finds it; a bundled name as
 * it is. */
static char *input_arg(const char *item)
{
	struct stat st;
	char buf[PATH_MAX];
	if ((strchr(item, '/') || stat(item, &st) == 0) && realpath(item, buf))
		return xstrdup(buf);
	return xstrdup(item);
}

static int parse_variants(struct sweep *s, const char *spec)
{
	struct err e = { "" };
	char **items;
	long n;
	if (!exp_list_expand("-p", spec, false, &items, &n, &e))
		return list_error(&e);
	s->vars = xcalloc((size_t)n, sizeof(*s->vars));
	int rc = 0;
	for (long i = 0; i < n && rc == 0; i++) {
		struct variant *v = &s->vars[s->nvars++];
		v->label = xstrdup(items[i]);
		v->given = cJSON_CreateObject();
		const struct rt_api *api = s->native ? &nat__rt_api : &sim__rt_api;
		rc = cli_item_policy(CMD, api, v->label, "variant", i + 1, &v->pol);
		if (rc)
			break;
		v->knobs = run_knobs_new(v->pol);
		rc = cli_item_knobs(CMD, v->label, "variant", i + 1, v->pol, v->knobs, v->given);
	}
	exp_list_free(items, n);
	return rc;
}

static int parse_dims(struct sweep *s, const char *const *sets, int nsets)
{
	struct err e = { "" };
	for (int i = 0; i < nsets; i++) {
		struct dim *d = &s->dims[s->ndims];
		const char *eq = strchr(sets[i], '=');
		if (!eq || eq == sets[i] || eq - sets[i] >= (long)sizeof(d->key))
			return cli_usage_error(CMD, "--set %s: expected KEY=LIST", sets[i]);
		snprintf(d->key, sizeof(d->key), "%.*s", (int)(eq - sets[i]), sets[i]);
		for (int j = 0; j < s->ndims; j++)
			if (strcmp(s->dims[j].key, d->key) == 0)
				return cli_usage_error(CMD, "--set %s: %s is given twice (list its values "
						       "in one --set)", sets[i], d->key);
		char opt[160];
		snprintf(opt, sizeof(opt), "--set %s=", d->key);
		if (!exp_list_expand(opt, eq + 1, true, &d->vals, &d->n, &e))
			return list_error(&e);
		s->ndims++;
		bool used = false;
		for (long v = 0; v < s->nvars; v++) {
			if (!pol_knob(s->vars[v].pol, d->key, NULL))
				continue;
			used = true;
			int64_t *tmp = run_knobs_new(s->vars[v].pol);
			for (long k = 0; k < d->n; k++) {
				char *a = xasprintf("%s=%s", d->key, d->vals[k]);
				bool ok = pol_set_knob(s->vars[v].pol, tmp, a, &e);
				free(a);
				if (!ok) {
					free(tmp);
					return cli_usage_error(CMD, "%s", e.msg);
				}
			}
			free(tmp);
		}
		if (!used)
			return cli_usage_error(CMD, "--set %s: no policy of -p has a knob '%s' "
					       "(`schedlab list knobs POLICY` lists a policy's)", sets[i],
					       d->key);
	}
	return 0;
}

static int load_inputs(struct sweep *s, const char *topology, const char *workload,
		       bool *any_trace, uint64_t *trace_seed)
{
	struct err e = { "" };
	char **items;
	long n;
	if (!exp_list_expand("-t", topology, false, &items, &n, &e))
		return list_error(&e);
	s->topos = xcalloc((size_t)n, sizeof(*s->topos));
	s->topo_args = xcalloc((size_t)n, sizeof(*s->topo_args));
	for (long i = 0; i < n; i++) {
		if (s->native && strcmp(items[i], "host") != 0) {
			int rc = cli_usage_error(CMD, "--native runs on this machine: -t must be host, "
						 "not '%s'", items[i]);
			exp_list_free(items, n);
			return rc;
		}
		s->topos[s->ntopos] = topo_load(items[i], &e);
		if (!s->topos[s->ntopos]) {
			exp_list_free(items, n);
			return cli_input_error(&e);
		}
		s->topo_args[s->ntopos++] = input_arg(items[i]);
	}
	exp_list_free(items, n);
	if (!exp_list_expand("-w", workload, false, &items, &n, &e))
		return list_error(&e);
	s->wls = xcalloc((size_t)n, sizeof(*s->wls));
	s->wl_args = xcalloc((size_t)n, sizeof(*s->wl_args));
	*any_trace = false;
	for (long i = 0; i < n; i++) {
		bool is_trace;
		uint64_t ts;
		s->wls[s->nwls] = wl_load(items[i], &is_trace, &ts, &e);
		if (!s->wls[s->nwls]) {
			exp_list_free(items, n);
			return cli_input_error(&e);
		}
		s->wl_args[s->nwls++] = input_arg(items[i]);
		if (is_trace) {
			if (*any_trace && ts != *trace_seed) {
				exp_list_free(items, n);
				return cli_usage_error(CMD, "-w: the traces given were expanded with "
						       "different seeds (%llu, %llu): sweep them apart",
						       (unsigned long long)*trace_seed,
						       (unsigned long long)ts);
			}
			*any_trace = true;
			*trace_seed = ts;
		}
	}
	exp_list_free(items, n);
	return 0;
}

/* Whether --set dimension d varies variant v: its policy has the knob and
 * the -p item does not set it itself (its own value wins, as in compare). */
static bool dim_applies(const struct sweep *s, const struct variant *v, int d)
{
	return pol_knob(v->pol, s->dims[d].key, NULL) &&
	       !cJSON_GetObjectItemCaseSensitive(v->given, s->dims[d].key);
}

/* The number of --set values a variant runs (the product of the
 * dimensions its policy has), saturating past EXP_MAX_RUNS. */
static uint64_t variant_combos(const struct sweep *s, const struct variant *v)
{
	uint64_t c = 1;
	for (int d = 0; d < s->ndims; d++)
		if (dim_applies(s, v, d)) {
			c *= (uint64_t)s->dims[d].n;
			if (c > EXP_MAX_RUNS)
				return EXP_MAX_RUNS + 1;
		}
	return c;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	if (a && b > (EXP_MAX_RUNS + 1) / a + 1)
		return EXP_MAX_RUNS + 1;
	uint64_t c = a * b;
	return c > EXP_MAX_RUNS ? EXP_MAX_RUNS + 1 : c;
}

/* The OS options on each topology: 0 or an exit status. */
static int sweep_os(struct sweep *s)
{
	s->os = xcalloc((size_t)s->ntopos, sizeof(*s->os));
	s->cpusets = xcalloc((size_t)s->ntopos, sizeof(*s->cpusets));
	for (long t = 0; t < s->ntopos; t++) {
		struct run r = { .topo = s->topos[t] };
		int rc = cli_os_apply(s->o, s->native, &r, &s->cpusets[t]);
		if (rc)
			return rc;
		s->os[t] = r.os;
	}
	return 0;
}

/* The P count of --procs LIST's item p (a count or a rule) on topology t
 * and workload w, with the OS it lives under: in a struct run's procs,
 * gmp and os. */
static struct run cell_procs(const struct sweep *s, long t, long w, long p)
{
	struct run r = { .topo = s->topos[t], .wl = s->wls[w], .os = s->os[t] };
	uint64_t n = 0;
	enum gmp_rule rule = GMP_NUMBER;
	if (s->procs)
		cli_parse_procs(s->procs[p], &n, &rule);   /* checked by sweep_procs */
	cli_os_procs(rule, (long)n, s->native, &r);
	return r;
}

/* The cells, in the documented order.  Returns 0 or an exit status. */
static int make_cells(struct sweep *s)
{
	uint64_t per_tw = 0;
	for (long v = 0; v < s->nvars; v++)
		per_tw += variant_combos(s, &s->vars[v]);
	uint64_t total = sat_mul(sat_mul(sat_mul(per_tw, (uint64_t)s->ntopos), (uint64_t)s->nwls),
				 sat_mul(s->procs ? (uint64_t)s->nprocs : 1, s->nseeds));
	if (total > EXP_MAX_RUNS)
		return cli_usage_error(CMD, "the matrix has more than %d runs (the product of the "
				       "lists and --seeds): split it into several sweeps",
				       EXP_MAX_RUNS);
	s->cells = xcalloc((size_t)total, sizeof(*s->cells));
	s->knobs = xcalloc((size_t)total, sizeof(*s->knobs));
	s->sets = xcalloc((size_t)total, sizeof(*s->sets));
	s->labels = xcalloc((size_t)total, sizeof(*s->labels));
	const struct rt_api *api = s->native ? &nat__rt_api : &sim__rt_api;
	struct err e = { "" };
	int applied[CLI_MAX_SETS];
	long at[CLI_MAX_SETS];
	for (long t = 0; t < s->ntopos; t++)
		for (long w = 0; w < s->nwls; w++)
			for (long vi = 0; vi < s->nvars; vi++) {
				const struct variant *v = &s->vars[vi];
				int na = 0;
				for (int d = 0; d < s->ndims; d++)
					if (dim_applies(s, v, d))
						applied[na++] = d;
				for (int a = 0; a < na; a++)
					at[a] = 0;
				for (;;) {
					/* one combination of the applied dimensions' values */
					int64_t *knobs = run_knobs_new(v->pol);
					memcpy(knobs, v->knobs, (size_t)pol_nknobs(v->pol) * sizeof(*knobs));
					cJSON *given = cJSON_Duplicate(v->given, true);
					size_t cap = strlen(v->label) + 1;
					for (int a = 0; a < na; a++)
						cap += strlen(s->dims[applied[a]].key) +
						       strlen(s->dims[applied[a]].vals[at[a]]) + 2;
					char *label = xmalloc(cap);
					strcpy(label, v->label);
					for (int a = 0; a < na; a++) {
						const struct dim *d = &s->dims[applied[a]];
						char *as = xasprintf("%s=%s", d->key, d->vals[at[a]]);
						pol_set_knob(v->pol, knobs, as, &e);   /* checked by parse_dims */
						strcat(label, ":");
						strcat(label, as);
						free(as);
						int k;
						pol_knob(v->pol, d->key, &k);
						cJSON_DeleteItemFromObjectCaseSensitive(given, d->key);
						cJSON_AddNumberToObject(given, d->key, (double)knobs[k]);
					}
					long np = s->procs ? s->nprocs : 1;
					for (long p = 0; p < np; p++)
						for (uint64_t sd = 0; sd < s->nseeds; sd++) {
							long i = s->n++;
							struct run r = cell_procs(s, t, w, p);
							s->knobs[i] = xcalloc((size_t)pol_nknobs(v->pol) + 1,
									      sizeof(int64_t));
							memcpy(s->knobs[i], knobs,
							       (size_t)pol_nknobs(v->pol) * sizeof(int64_t));
							s->sets[i] = cJSON_Duplicate(given, true);
							s->labels[i] = xstrdup(label);
							s->cells[i] = (struct exp_cell){
								.index = i, .variant = s->labels[i], .api = api,
								.pol = v->pol, .knobs = s->knobs[i],
								.set = s->sets[i], .topo = s->topos[t],
								.wl = s->wls[w],
								.procs = r.procs, .gmp = r.gmp,
								.os = r.os, .seed = s->seed + sd,
								.max_sim_ns = s->limits.lim.max_sim_ns,
								.max_wall_ns = s->limits.lim.max_wall_ns,
								.max_memory = s->limits.lim.max_memory,
								.why = s->why,
							};
						}
					free(knobs);
					free(label);
					cJSON_Delete(given);
					/* the next combination: the last dimension fastest */
					int a = na - 1;
					while (a >= 0 && ++at[a] == s->dims[applied[a]].n)
						at[a--] = 0;
					if (a < 0)
						break;
				}
			}
	return 0;
}

/* ---- --emit-jobs ---- */

/* s quoted for sh: '...' with ' as '\''. */
static void sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

static void sh_arg(FILE *f, const char *opt, const char *val)
{
	fprintf(f, " %s ", opt);
	sh_quote(f, val);
}

/* The OS options, as a job gives them again. */
static void write_os_args(FILE *f, const struct cli_opts *o)
{
	if (o->cpu_quota)
		fprintf(f, " --cpu-quota %.17g", o->cpu_quota);
	if (o->cpu_period_ns)
		fprintf(f, " --cpu-period %lldns", (long long)o->cpu_period_ns);
	if (o->cpuset)
		sh_arg(f, "--cpuset", o->cpuset);
	if (o->load_threads)
		fprintf(f, " --load %d@%.17g/%lldns", o->load_threads, o->load_duty,
			(long long)o->load_period_ns);
}

/* The matrix's options, as a job gives them again. */
static void write_matrix_args(FILE *f, const struct sweep *s, const char *policy,
			      const char *procs, const char *const *sets, int nsets)
{
	sh_arg(f, "-p", policy);
	char *list = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&list, &len);
	for (long i = 0; i < s->ntopos; i++)
		fprintf(m, "%s%s", i ? "," : "", s->topo_args[i]);
	fclose(m);
	sh_arg(f, "-t", list);
	free(list);
	m = open_memstream(&list, &len);
	for (long i = 0; i < s->nwls; i++)
		fprintf(m, "%s%s", i ? "," : "", s->wl_args[i]);
	fclose(m);
	sh_arg(f, "-w", list);
	free(list);
	if (procs)
		sh_arg(f, "--procs", procs);
	write_os_args(f, s->o);
	for (int i = 0; i < nsets; i++)
		sh_arg(f, "--set", sets[i]);
	fprintf(f, " --seeds %llu --seed %llu", (unsigned long long)s->nseeds,
		(unsigned long long)s->seed);
	if (s->native)
		fprintf(f, " --native");
	if (s->why)
		fprintf(f, " --why");
	if (s->limits.lim.max_sim_ns)
		fprintf(f, " --max-sim-time %lldns", (long long)s->limits.lim.max_sim_ns);
	if (s->limits.lim.max_wall_ns)
		fprintf(f, " --max-wall-time %lldns", (long long)s->limits.lim.max_wall_ns);
	if (s->limits.lim.max_memory)
		fprintf(f, " --max-memory %lluB", (unsigned long long)s->limits.lim.max_memory);
}

/* What the results folder, the script's #SBATCH --output, cannot hold. */
#define SBATCH_UNSAFE " \t%\"'\\"
#define SBATCH_WHY "the results folder is the Slurm script's #SBATCH --output, which takes " \
	"no blank, %, quote or backslash: choose a plain path (with --results DIR)"

/* The folder the jobs write their rows to (--results, or FILE.results),
 * made, as an absolute path into dir; exe is this program, which the jobs
 * run.  0, or EXIT_BADINPUT after a message: a path that a job's line or
 * the Slurm script cannot hold, a folder that cannot be made. */
static int results_folder(const char *file, const char *results, const char *exe,
			  char dir[PATH_MAX])
{
	/* every path is written into a job's line or the script: a control
	 * character would split a line (or end a comment, and run the rest);
	 * the results folder is also the script's #SBATCH --output, which
	 * Slurm neither quotes (a blank ends it) nor takes literally (%j, %A) */
	const char *bad_opt = str_has_control(file) ? "--emit-jobs" : NULL;
	if (!bad_opt && results && str_has_control(results))
		bad_opt = "--results";
	if (bad_opt) {
		char *shown = str_shown(strcmp(bad_opt, "--results") == 0 ? results : file, 256);
		fprintf(stderr, "schedlab %s: %s %s: a control character (a line break, a tab) in "
			"the path: the jobs file and its script cannot hold it\n", CMD, bad_opt, shown);
		free(shown);
		return EXIT_BADINPUT;
	}
	if (str_has_control(exe)) {
		char *shown = str_shown(exe, 256);
		fprintf(stderr, "schedlab %s: --emit-jobs: this program's path %s has a control "
			"character: the jobs file cannot name it\n", CMD, shown);
		free(shown);
		return EXIT_BADINPUT;
	}
	char *dir_given = results ? xstrdup(results) : xasprintf("%s.results", file);
	int rc = EXIT_BADINPUT;
	struct stat st;
	if (strpbrk(dir_given, SBATCH_UNSAFE)) {
		char *shown = str_shown(dir_given, 256);
		fprintf(stderr, "schedlab %s: --results %s: %s\n", CMD, shown, SBATCH_WHY);
		free(shown);
	} else if (mkdir(dir_given, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "schedlab %s: --results %s: %s\n", CMD, dir_given, strerror(errno));
	} else if (!realpath(dir_given, dir) || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "schedlab %s: --results %s: not a folder\n", CMD, dir_given);
	} else if (strpbrk(dir, SBATCH_UNSAFE) || str_has_control(dir)) {
		char *shown = str_shown(dir, 256);
		fprintf(stderr, "schedlab %s: --results %s: %s\n", CMD, shown, SBATCH_WHY);
		free(shown);
	} else {
		rc = 0;
	}
	free(dir_given);
	return rc;
}

/* FILE.sbatch, the Slurm job array that runs line I+1 of the jobs file
 * (absfile), m lines (fewer than the matrix's runs with --resume): 0, or
 * EXIT_BADINPUT after a message. */
static int write_sbatch(const struct sweep *s, long m, const char *sb, const char *absfile,
			const char *dir)
{
	struct output bo;
	if (!output_start(&bo, CMD, "--emit-jobs", sb))
		return EXIT_BADINPUT;
	FILE *b = bo.f;
	fprintf(b, "#!/bin/sh\n"
		   "# A Slurm job array of schedlab sweep's %ld runs, written by\n"
		   "# `schedlab sweep --emit-jobs`: task I runs line I+1 of the jobs file,\n"
		   "# which writes its row to %s/%s.jsonl%s; when all are done:\n"
		   "#   schedlab merge %s -o STORE\n"
		   "# (Slurm refuses arrays above its MaxArraySize, 1001 tasks by default.)\n"
		   "#SBATCH --job-name=schedlab-sweep\n"
		   "#SBATCH --array=0-%ld\n"
		   "#SBATCH --ntasks=1\n"
		   "#SBATCH --cpus-per-task=1\n"
		   "#SBATCH --output=%s/slurm-%%A_%%a.out\n"
		   "set -eu\n"
		   "line=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" ",
		s->n, dir, m < s->n ? "J" : "I", m < s->n ? ", J its --only" : "", dir, m - 1, dir);
	sh_quote(b, absfile);
	fprintf(b, ")\n"
		   "exec sh -c \"$line\"\n");
	if (output_finish(&bo, CMD))
		return EXIT_BADINPUT;
	chmod(sb, 0755);
	return 0;
}

static cJSON **jobs_done(const char *dir, const char *id, long n, long *ndone);

/* jobs_done's rows, and the table (NULL: nothing). */
static void done_free(cJSON **done, long n)
{
	for (long i = 0; done && i < n; i++)
		cJSON_Delete(done[i]);
	free(done);
}

/* The jobs of the matrix's runs -- with id (--resume), only of those
 * without their row in the results folder. */
static int emit_jobs(const struct sweep *s, const char *file, const char *results, const char *id,
		     const char *policy, const char *procs, const char *const *sets, int nsets)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0) {
		fprintf(stderr, "schedlab %s: --emit-jobs: cannot find this program (/proc/self/exe): "
			"%s\n", CMD, strerror(errno));
		return EXIT_BADINPUT;
	}
	exe[len] = '\0';
	char dir[PATH_MAX], absfile[PATH_MAX];
	if (results_folder(file, results, exe, dir))
		return EXIT_BADINPUT;
	/* the matrix's arguments too (a workload file's path) */
	char *args = NULL;
	size_t argslen = 0;
	FILE *am = open_memstream(&args, &argslen);
	write_matrix_args(am, s, policy, procs, sets, nsets);
	fclose(am);
	if (str_has_control(args)) {
		fprintf(stderr, "schedlab %s: --emit-jobs: an option of the matrix (-p, -t, -w, --set) "
			"has a control character: a job's line cannot hold it\n", CMD);
		free(args);
		return EXIT_BADINPUT;
	}
	free(args);
	long m = s->n;
	cJSON **done = id ? jobs_done(dir, id, s->n, &m) : NULL;
	if (id && (!done || m == 0)) {
		if (done)
			fprintf(stderr, "schedlab %s: --resume: every run has its row in %s: no job to "
				"emit; `schedlab merge %s -o STORE`\n", CMD, dir, dir);
		int rc = done ? 0 : EXIT_BADINPUT;
		done_free(done, s->n);
		return rc;
	}
	/* both files whole or not at all (util/output.h); the jobs file
	 * first, since the Slurm script names its absolute path */
	struct output jo;
	if (!output_start(&jo, CMD, "--emit-jobs", file)) {
		done_free(done, s->n);
		return EXIT_BADINPUT;
	}
	FILE *f = jo.f;
	for (long i = 0; i < s->n; i++) {
		if (done && done[i]) {
			cJSON_Delete(done[i]);
			continue;
		}
		sh_quote(f, exe);
		fprintf(f, " sweep");
		write_matrix_args(f, s, policy, procs, sets, nsets);
		fprintf(f, " --only %ld --json ", i);
		char *out = xasprintf("%s/%ld.jsonl", dir, i);
		sh_quote(f, out);
		free(out);
		fputc('\n', f);
	}
	free(done);
	if (output_finish(&jo, CMD))
		return EXIT_BADINPUT;
	if (!realpath(file, absfile)) {
		fprintf(stderr, "schedlab %s: --emit-jobs %s: %s\n", CMD, file, strerror(errno));
		return EXIT_BADINPUT;
	}
	char *sb = xasprintf("%s.sbatch", file);
	int rc = write_sbatch(s, m, sb, absfile, dir);
	if (rc == 0)
		fprintf(stderr, "schedlab %s: %ld runs written to %s (one per line) and %s; each "
			"writes its row to %s/I.jsonl\n", CMD, m, file, sb, dir);
	free(sb);
	return rc;
}

/* ---- The command ---- */

struct sweep_own {
	const char *json, *csv, *emit, *results, *procs, *only;
	uint64_t nseeds, jobs;
	bool native, resume, why;
};

const struct cli_opt cli_sweep_opts[] = {
	CLI_SHARED_AS(CLI_SH_POLICY, "LIST",
		      "policy variants, POLICY[:KEY=VALUE...] each, comma-separated"),
	CLI_SHARED_AS(CLI_SH_TOPOLOGY, "LIST", "topologies (default numa4; with --native: host)"),
	CLI_SHARED_AS(CLI_SH_WORKLOAD, "LIST", "workloads (default rpc-server)"),
	/* a list here, not the shared option's one count */
	CLI_STRING(NULL, "--procs", "LIST", struct sweep_own, procs,
		   "P counts or rules (cpus, go1.25, automaxprocs: `run --help`;\n"
		   "default: each topology's PUs, or an imported Go trace's\n"
		   "GOMAXPROCS when it fits)"),
	CLI_SHARED_OS,
	CLI_SHARED_AS(CLI_SH_SET, "KEY=LIST",
		      "a knob's values (repeatable, one dimension each); a variant\n"
		      "whose policy has no KEY, or whose -p item sets KEY itself,\n"
		      "runs once for the dimension; a KEY no variant's policy\n"
		      "has is an error"),
	CLI_COUNT(NULL, "--seeds", "N", struct sweep_own, nseeds, 1, EXP_MAX_RUNS, NULL,
		  "runs per combination, seeds S..S+N-1 (default 1)"),
	CLI_SHARED_AS(CLI_SH_SEED, "S", NULL),
	CLI_COUNT("-j", "--jobs", "N", struct sweep_own, jobs, 1, EXP_MAX_JOBS,
		  "expected a number of runs at once from %llu to %llu",
		  "runs at once (default: the online CPUs, no more than the\n"
		  "available memory holds at --max-memory each, and 1 with\n"
		  "--native: parallel native runs take each other's CPUs and\n"
		  "their timings mean little; -j N > 1 is obeyed with a\n"
		  "warning).  Each run may use up to --max-memory (default\n"
		  "4GiB) of simulator memory: N runs, N times that; and no\n"
		  "more than a quarter of the open-files limit (ulimit -n)"),
	CLI_SHARED(CLI_SH_PROGRESS, NULL),
	CLI_STRING(NULL, "--json", "FILE|-", struct sweep_own, json,
		   "write the store, a JSON object per line and run"),
	CLI_STRING(NULL, "--csv", "FILE|-", struct sweep_own, csv,
		   "write the store as CSV; both may be given (one to stdout)"),
	CLI_FLAG(NULL, "--resume", struct sweep_own, resume,
		 "with --json FILE: keep the rows of this matrix already in\n"
		 "FILE.partial (an interrupted sweep's), else in FILE, and run\n"
		 "only the others; the store is the uninterrupted sweep's.\n"
		 "With --emit-jobs: jobs only for the runs without a row in\n"
		 "the results folder"),
	CLI_FLAG(NULL, "--native", struct sweep_own, native, "run on this machine (-t host only)"),
	CLI_FLAG(NULL, "--why", struct sweep_own, why,
		 "each row's report with its \"why\", as run --why gives it\n"
		 "(simulated runs only): where the Gs' waits went, by cause;\n"
		 "`schedlab report` tables it per scenario"),
	CLI_STRING(NULL, "--emit-jobs", "FILE", struct sweep_own, emit,
		   "run nothing: write FILE, the command of run I on line I+1\n"
		   "(for `parallel --slf HOSTS < FILE`), and FILE.sbatch, a\n"
		   "Slurm job array running line $SLURM_ARRAY_TASK_ID + 1\n"
		   "(`sbatch FILE.sbatch`); each writes DIR/I.jsonl; then\n"
		   "`schedlab merge DIR -o STORE`"),
	CLI_STRING(NULL, "--results", "DIR", struct sweep_own, results,
		   "with --emit-jobs: where the runs write (default FILE.results;\n"
		   "no blank, %, quote or backslash: it is #SBATCH --output)"),
	CLI_STRING(NULL, "--only", "I", struct sweep_own, only,
		   "run only run I of the matrix (its row as the whole sweep's)"),
	CLI_SHARED_LIMITS,
	CLI_TEXT("                     (the limits apply to each run on its own)\n"),
	CLI_END,
};

/* A line per run on stdout: what it was and its headline figures. */
/* A row's procs as the line gives it: "4", or "2 (go1.25)" when a rule
 * chose it. */
static const char *row_procs(char *buf, size_t size, const cJSON *in)
{
	const cJSON *rule = cJSON_GetObjectItem(in, "procs_rule");
	struct run_gmp g = { .rule = cJSON_IsString(rule) ? gmp_rule_find(rule->valuestring)
							  : GMP_NUMBER };
	return run_procs_label(buf, size, &g, (int)cJSON_GetObjectItem(in, "procs")->valuedouble);
}

static void print_runs(cJSON *const *rows, long n)
{
	char procs[48];
	int w = 5;
	for (long i = 0; i < n; i++) {
		int l = (int)strlen(row_procs(procs, sizeof(procs),
					      cJSON_GetObjectItem(rows[i], "inputs")));
		w = l > w ? l : w;
	}
	printf("%5s  %-28s %-8s %-14s %*s %6s  %-8s %12s %12s\n", "index", "variant", "topology",
	       "workload", w, "procs", "seed", "status", "makespan", "sched p99");
	for (long i = 0; i < n; i++) {
		const cJSON *row = rows[i], *in = cJSON_GetObjectItem(row, "inputs");
		double mk = 0, p99 = 0;
		char a[16] = "-", b[16] = "-";
		if (exp_row_metric_number(row, "makespan_ns", &mk))
			run_fmt_ns(a, mk);
		if (exp_row_metric_number(row, "sched_latency_ns.p99", &p99))
			run_fmt_ns(b, p99);
		printf("%5ld  %-28s %-8s %-14s %*s %6.0f  %-8s %12s %12s\n",
		       (long)cJSON_GetObjectItem(row, "index")->valuedouble,
		       cJSON_GetObjectItem(row, "variant")->valuestring,
		       cJSON_GetObjectItem(in, "topology")->valuestring,
		       cJSON_GetObjectItem(in, "workload")->valuestring, w,
		       row_procs(procs, sizeof(procs), in),
		       cJSON_GetObjectItem(in, "seed")->valuedouble, exp_row_status(row), a, b);
	}
}

/* The options' combinations sweep refuses: 0, or an exit status after a
 * message. */
static int sweep_check(const struct cli_opts *o, const struct sweep_own *own)
{
	if (!o->policy)
		return cli_usage_error(CMD, "missing -p P1,P2,...");
	if (own->json && own->csv && strcmp(own->json, "-") == 0 && strcmp(own->csv, "-") == 0)
		return cli_usage_error(CMD, "--json - and --csv -: only one of them can write to "
				       "stdout");
	if (own->json && own->csv && strcmp(own->json, own->csv) == 0)
		return cli_usage_error(CMD, "--json and --csv both name %s", own->json);
	if (own->emit && (own->json || own->csv || own->only))
		return cli_usage_error(CMD, "--emit-jobs runs nothing: no --json, --csv or --only "
				       "with it (each job writes its own row)");
	if (own->resume && !own->emit && (!own->json || strcmp(own->json, "-") == 0 || own->only))
		return cli_usage_error(CMD, "--resume: only with --json FILE, a file (the rows it "
				       "keeps), or --emit-jobs, and not with --only");
	if (own->results && !own->emit)
		return cli_usage_error(CMD, "--results %s: only with --emit-jobs", own->results);
	if (own->native && own->why)
		return cli_usage_error(CMD, "--why: only a simulated run is followed wait by wait, "
				       "not a --native one");
	if (own->native && o->time_limit)
		return cli_usage_error(CMD, "%s: only a simulated run is cut at a time limit, not a "
				       "--native one", o->time_limit);
	/* a store holds a seed as a JSON number, a double: exact to 2^53 */
	if (o->seed > EXP_MAX_SEED || own->nseeds - 1 > EXP_MAX_SEED - o->seed)
		return cli_usage_error(CMD, "--seed %llu --seeds %llu: the seeds pass 2^53 "
				       "(9007199254740992), the largest a store holds exactly",
				       (unsigned long long)o->seed, (unsigned long long)own->nseeds);
	return 0;
}

/* --procs LIST into s->procs, each a P count or a rule: 0 or an exit
 * status. */
static int sweep_procs(struct sweep *s, const char *procs)
{
	struct err e = { "" };
	if (!exp_list_expand("--procs", procs, true, &s->procs, &s->nprocs, &e))
		return list_error(&e);
	for (long i = 0; i < s->nprocs; i++) {
		uint64_t p;
		enum gmp_rule rule;
		if (!cli_parse_procs(s->procs[i], &p, &rule))
			return cli_usage_error(CMD, "--procs %s: '%s' is not a P count from 1 to %d or "
					       "a rule (%s)", procs, s->procs[i], RT_MAX_PROCS,
					       gmp_rule_list());
	}
	return 0;
}

/* The matrix made: its lists, the cells, the trace's seed.  0 or an exit
 * status. */
static int sweep_matrix(struct sweep *s, const struct cli_opts *o)
{
	int rc = parse_variants(s, o->policy);
	if (rc == 0)
		rc = parse_dims(s, o->sets, o->nsets);
	bool any_trace = false;
	uint64_t trace_seed = 0;
	if (rc == 0)
		rc = load_inputs(s, o->topology ? o->topology : s->native ? "host" : CLI_DEFAULT_TOPOLOGY,
				 o->workload, &any_trace, &trace_seed);
	if (rc == 0 && any_trace) {
		/* a trace replays the draws of the seed it was expanded with */
		if (s->nseeds > 1 || (o->seed_given && o->seed != trace_seed) || s->nwls > 1)
			rc = cli_usage_error(CMD, "-w %s: a trace replays the draws of one seed, %llu: "
					     "sweep it alone, with --seeds 1", o->workload,
					     (unsigned long long)trace_seed);
		s->seed = trace_seed;
	}
	if (rc == 0)
		rc = sweep_os(s);
	if (rc == 0)
		rc = make_cells(s);
	return rc;
}

/* ---- The store as the runs end, and --resume ---- */

/* --json FILE's rows go to FILE.partial as the runs end, each flushed at
 * once, and FILE.partial is renamed over FILE when the store is whole:
 * FILE stays the old store until then, and an interrupted sweep leaves
 * the rows it finished for --resume.  "-", a device or a FIFO is written
 * through (util/output.h). */
struct rows_out {
	const char *store;
	char *partial;                 /* FILE.partial; NULL: written through */
	struct output through;
	FILE *f;
	cJSON **have;                  /* --resume: the rows done, by index (NULL: none) */
	long nhave;
	const char *id;                /* the matrix's */
	long n;                        /* its runs */
	char *src;                     /* the file they were read from, as shown */
};

/* What an interrupt says (the parent only: a run's process inherits the
 * handler), before it dies of the signal as it would have. */
static pid_t sweep_pid;
static char *stop_msg;

static void on_stop(int sig)
{
	if (getpid() == sweep_pid && stop_msg)
		(void)!write(STDERR_FILENO, stop_msg, strlen(stop_msg));
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_stops(const char *partial)
{
	if (!partial)
		return;
	char *shown = str_shown(partial, 512);
	stop_msg = xasprintf("\nschedlab %s: interrupted: the rows done are in %s; the same command "
			     "with --resume runs only the others\n", CMD, shown);
	free(shown);
	sweep_pid = getpid();
	struct sigaction sa = { .sa_handler = on_stop };
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* exp_opts.row_done: one row, flushed at once; Ctrl-C and SIGTERM wait
 * for it to be whole (only a SIGKILL can cut it: --resume drops such a
 * line). */
static void write_row(void *ctx, long i, const cJSON *row)
{
	(void)i;
	FILE *f = ctx;
	sigset_t stops, saved;
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_BLOCK, &stops, &saved);
	char *line = exp_json_line(row);
	fprintf(f, "%s\n", line);
	fflush(f);
	free(line);
	sigprocmask(SIG_SETMASK, &saved, NULL);
}

static bool resume_row(void *ctx, cJSON *row, long line, uint64_t off, size_t len, struct err *e)
{
	(void)off;
	(void)len;
	struct rows_out *ro = ctx;
	const char *m = cJSON_GetObjectItemCaseSensitive(row, "matrix")->valuestring;
	const char *c = cJSON_GetObjectItemCaseSensitive(row, "commit")->valuestring;
	long i = (long)cJSON_GetObjectItemCaseSensitive(row, "index")->valuedouble;
	if (strcmp(m, ro->id) != 0 || i >= ro->n)
		err_set(e, "%s:%ld: a row of matrix %s, not this sweep's %s: other options made "
			"it (give the same, or drop --resume to start afresh)", ro->src, line, m, ro->id);
	else if (strcmp(c, schedlab_commit()) != 0)
		err_set(e, "%s:%ld: a row of another build (commit %s, this one %s), which may run "
			"differently: drop --resume to start afresh", ro->src, line, c,
			schedlab_commit());
	else if (ro->have[i])
		err_set(e, "%s:%ld: run %ld's row again", ro->src, line, i);
	if (e->msg[0]) {
		cJSON_Delete(row);
		return false;
	}
	ro->have[i] = row;
	ro->nhave++;
	return true;
}

/* A SIGKILL in the middle of a row leaves a last line without its
 * newline: cut off, said.  false on an I/O error (errno). */
static bool drop_cut_row(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	off_t end = lseek(fd, 0, SEEK_END), keep = end;
	char buf[4096];
	while (keep > 0) {
		size_t k = keep > (off_t)sizeof(buf) ? sizeof(buf) : (size_t)keep;
		if (pread(fd, buf, k, keep - (off_t)k) != (ssize_t)k)
			break;
		const char *nl = memrchr(buf, '\n', k);
		keep -= (off_t)k;
		if (nl) {
			keep += nl - buf + 1;
			break;
		}
	}
	bool ok = end >= 0 && (keep == end || ftruncate(fd, keep) == 0);
	if (ok && keep < end)
		fprintf(stderr, "schedlab %s: --resume: %s's last row was cut in the middle: "
			"dropped, its run runs again\n", CMD, path);
	close(fd);
	return ok;
}

/* --resume: the rows done, from FILE.partial, else FILE, into ro->have
 * (n of them, by index).  0, or EXIT_BADINPUT after a message. */
static int resume_read(struct rows_out *ro, const char *id, long n)
{
	struct stat st;
	const char *src = stat(ro->partial, &st) == 0 ? ro->partial
			  : stat(ro->store, &st) == 0 ? ro->store : NULL;
	if (!src) {
		fprintf(stderr, "schedlab %s: --resume: neither %s nor %s exists: running all %ld "
			"runs\n", CMD, ro->partial, ro->store, n);
		return 0;
	}
	ro->src = str_shown(src, 512);
	if (src == ro->partial && !drop_cut_row(src)) {
		fprintf(stderr, "schedlab %s: --resume: %s: %s\n", CMD, ro->src, strerror(errno));
		return EXIT_BADINPUT;
	}
	struct err e = { "" };
	ro->id = id;
	ro->n = n;
	ro->have = xcalloc((size_t)n, sizeof(*ro->have));
	if (!exp_store_scan(src, resume_row, ro, &e)) {
		fprintf(stderr, "schedlab %s: --resume: %s\n", CMD, e.msg);
		return EXIT_BADINPUT;
	}
	fprintf(stderr, "schedlab %s: --resume: %ld of %ld runs' rows are in %s: running the "
		"other %ld\n", CMD, ro->nhave, n, ro->src, n - ro->nhave);
	return 0;
}
/* The first run, in matrix order, that did not complete, said: its exit
 * status, or 0. */
static int sweep_failed(const struct exp_cell *cells, cJSON *const *rows, long n)
{
	long first = -1, nfailed = 0;
	for (long i = 0; i < n; i++)
		if (strcmp(exp_row_status(rows[i]), "ok") != 0) {
			nfailed++;
			if (first < 0)
				first = i;
		}
	if (first < 0)
		return 0;
	const cJSON *msg = cJSON_GetObjectItem(rows[first], "message");
	fprintf(stderr, "schedlab %s: %ld of %ld runs did not complete; the first, run %ld "
		"(%s, seed %llu): %s: %s\n", CMD, nfailed, n, cells[first].index,
		cells[first].variant, (unsigned long long)cells[first].seed,
		exp_row_status(rows[first]), cJSON_IsString(msg) ? msg->valuestring : "");
	return exp_row_exit_status(rows[first]);
}

/* --emit-jobs --resume: the rows the jobs wrote, DIR/I.jsonl, by index
 * (n of them), *left the runs without one; NULL after a message. */
static cJSON **jobs_done(const char *dir, const char *id, long n, long *left)
{
	struct rows_out ro = { .id = id, .n = n, .have = xcalloc((size_t)n, sizeof(cJSON *)) };
	struct err e = { "" };
	bool ok = true;
	for (long i = 0; i < n && ok; i++) {
		char *path = xasprintf("%s/%ld.jsonl", dir, i);
		struct stat st;
		if (stat(path, &st) == 0) {
			ro.src = str_shown(path, 512);
			ok = exp_store_scan(path, resume_row, &ro, &e);
			free(ro.src);
		}
		free(path);
	}
	if (!ok) {
		fprintf(stderr, "schedlab %s: --resume: %s\n", CMD, e.msg);
		for (long i = 0; i < n; i++)
			cJSON_Delete(ro.have[i]);
		free(ro.have);
		return NULL;
	}
	*left = n - ro.nhave;
	fprintf(stderr, "schedlab %s: --resume: %ld of %ld runs have their row in %s: jobs for the "
		"other %ld\n", CMD, ro.nhave, n, dir, *left);
	return ro.have;
}

/* FILE.partial made afresh, holding the rows done in index order: made
 * beside as FILE.partial.new and renamed, so that a kill meanwhile loses
 * none of them.  NULL after a message. */
static FILE *partial_start(const struct rows_out *ro, long n)
{
	char *fresh = ro->nhave ? xasprintf("%s.new", ro->partial) : xstrdup(ro->partial);
	FILE *f = fopen(fresh, "we");
	struct stat st;
	if (f && stat(ro->store, &st) == 0)
		fchmod(fileno(f), st.st_mode & 07777);      /* the store's own mode, renamed over it */
	for (long i = 0; f && ro->have && i < n; i++)
		if (ro->have[i])
			write_row(f, i, ro->have[i]);
	if (f && ro->nhave && (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0 ||
			       rename(fresh, ro->partial) != 0)) {
		int why = errno;
		fclose(f);
		unlink(fresh);
		f = NULL;
		errno = why;
	}
	if (!f)
		fprintf(stderr, "schedlab %s: --json %s: %s\n", CMD, fresh, strerror(errno));
	free(fresh);
	return f;
}

/* Opens --json's rows (and reads --resume's): 0, or an exit status after
 * a message. */
static int rows_open(struct rows_out *ro, const char *path, bool resume, const char *id, long n)
{
	*ro = (struct rows_out){ .store = path };
	struct stat st;
	if (strcmp(path, "-") == 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode))) {
		if (!output_start(&ro->through, CMD, "--json", path))
			return EXIT_BADINPUT;
		ro->f = ro->through.f;
		if (resume)
			return cli_usage_error(CMD, "--resume: --json %s is not a file: it keeps no rows",
					       path);
		return 0;
	}
	ro->partial = xasprintf("%s.partial", path);
	int rc = resume ? resume_read(ro, id, n) : 0;
	if (rc == 0) {
		ro->f = partial_start(ro, n);
		rc = ro->f ? 0 : EXIT_BADINPUT;
	}
	if (rc == 0)
		catch_stops(ro->partial);
	return rc;
}

/* The store whole: FILE.partial renamed over FILE -- or, if its rows are
 * not in index order (resumed from a store with gaps), FILE written from
 * rows and FILE.partial removed.  0, or EXIT_BADINPUT after a message
 * that says how to resume. */
static int rows_finish(struct rows_out *ro, cJSON *const *rows, long n)
{
	if (!ro->partial)
		return output_finish(&ro->through, CMD);
	bool ordered = true;
	for (long i = 1; ro->have && i < n; i++)
		ordered &= !(ro->have[i] && !ro->have[i - 1]);
	FILE *f = ro->f;
	ro->f = NULL;
	int rc = 0;
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
		fprintf(stderr, "schedlab %s: --json %s: %s\n", CMD, ro->partial, strerror(errno));
		rc = EXIT_BADINPUT;
	}
	fclose(f);
	if (rc == 0 && ordered && rename(ro->partial, ro->store) != 0) {
		fprintf(stderr, "schedlab %s: --json %s: %s\n", CMD, ro->store, strerror(errno));
		rc = EXIT_BADINPUT;
	}
	if (rc == 0 && !ordered) {
		rc = exp_store_save(CMD, "--json", ro->store, false, rows, n);
		if (rc == 0)
			unlink(ro->partial);
	}
	struct stat st;
	if (rc && stat(ro->partial, &st) == 0 && st.st_size == 0)
		unlink(ro->partial);   /* not one row written (a full disk): nothing to resume */
	else if (rc)
		fprintf(stderr, "schedlab %s: the rows done are in %s; the same command with "
			"--resume runs only the others\n", CMD, ro->partial);
	return rc;
}

static void rows_free(struct rows_out *ro, long n)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	for (long i = 0; ro->have && i < n; i++)
		cJSON_Delete(ro->have[i]);
	free(ro->have);
	free(ro->partial);
	free(ro->src);
}

/* The cells still to run (without a row in have), each saying the whole
 * matrix's run count; *m of them. */
static struct exp_cell *cells_todo(const struct exp_cell *cells, long n, cJSON *const *have,
				   long runs, long *m)
{
	struct exp_cell *todo = xcalloc((size_t)n + 1, sizeof(*todo));
	*m = 0;
	for (long i = 0; i < n; i++)
		if (!have || !have[i]) {
			todo[*m] = cells[i];
			todo[(*m)++].runs = runs;
		}
	return todo;
}

/* Runs the n cells (the matrix's, or the one of --only) but those
 * --resume found done, writes the store (--json row by row, --csv at the
 * end, whose columns depend on every row) and the line per run; the exit
 * status of the first that failed. */
static int sweep_run(const struct sweep *s, const struct sweep_own *own, struct exp_cell *cells,
		     long n, const char *id)
{
	struct rows_out ro = { 0 };
	int rc = own->json ? rows_open(&ro, own->json, own->resume, id, n) : 0;
	if (rc) {
		rows_free(&ro, n);
		return rc;
	}
	long m;
	struct exp_cell *todo = cells_todo(cells, n, ro.have, own->only ? cells->runs : s->n, &m);
	struct exp_opts eo = {
		.cmd = CMD,
		.jobs = own->jobs ? (int)own->jobs : exp_default_jobs(todo, m, s->limits.lim.max_memory),
		.matrix = id, .row_done = ro.f ? write_row : NULL, .ctx = ro.f,
		.progress = s->o->progress,
	};
	if (s->native && own->jobs > 1)
		fprintf(stderr, "schedlab %s: warning: -j %llu native runs at once take each other's "
			"CPUs: their timings are not those of a run alone\n", CMD,
			(unsigned long long)own->jobs);
	struct exp_run *runs = exp_matrix_run(todo, m, &eo);
	cJSON **rows = xcalloc((size_t)n, sizeof(*rows));
	for (long i = 0, j = 0; i < n; i++)
		rows[i] = ro.have && ro.have[i] ? ro.have[i] : runs[j++].row;
	if (own->json)
		rc = rows_finish(&ro, rows, n);
	if (own->csv && rc == 0)
		rc = exp_store_save(CMD, "--csv", own->csv, true, rows, n);
	bool to_stdout = (own->json && strcmp(own->json, "-") == 0) ||
			 (own->csv && strcmp(own->csv, "-") == 0);
	if (!to_stdout)
		print_runs(rows, n);
	if (rc == 0)
		rc = sweep_failed(cells, rows, n);
	free(rows);
	free(todo);
	exp_runs_free(runs, m);
	rows_free(&ro, n);
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep s = { .nseeds = 1 };
	struct cli_opts o = { .cmd = CMD, .limits = &s.limits };
	struct sweep_own own = { .nseeds = 1 };
	const struct cli_own own_ops = { cli_help_sweep, cli_sweep_opts, &own };
	int rc = cli_parse_options(&o, argc, argv, &own_ops);
	if (rc || o.help)
		return rc;
	rc = sweep_check(&o, &own);
	if (rc)
		return rc;
	s.native = own.native;
	s.why = own.why;
	s.o = &o;
	s.nseeds = own.nseeds;
	s.seed = o.seed;
	if (own.procs) {
		rc = sweep_procs(&s, own.procs);
		if (rc)
			goto out;
	}
	rc = own.json ? cli_out_claim(CMD, "--json", own.json) : 0;
	if (!rc && own.csv)
		rc = cli_out_claim(CMD, "--csv", own.csv);
	if (rc == 0)
		rc = sweep_matrix(&s, &o);
	if (rc)
		goto out;
	char id[17];
	exp_matrix_id(s.cells, s.n, id);
	if (own.emit) {
		/* native runs default to the P count of the machine they run on:
		 * the jobs say the emitting machine's, so that every node runs
		 * the same matrix */
		char *procs = own.procs ? xstrdup(own.procs)
			      : s.native ? xasprintf("%d", s.cells[0].procs) : NULL;
		rc = emit_jobs(&s, own.emit, own.results, own.resume ? id : NULL, o.policy, procs,
			       o.sets, o.nsets);
		free(procs);
		goto out;
	}
	struct exp_cell *cells = s.cells;
	long n = s.n;
	if (own.only) {
		uint64_t only;
		if (!cli_parse_u64(own.only, UINT64_MAX, &only) || only >= (uint64_t)s.n) {
			rc = cli_usage_error(CMD, "--only %s: the matrix's runs are 0 to %ld", own.only,
					     s.n - 1);
			goto out;
		}
		cells = &s.cells[only];
		cells->runs = s.n;
		n = 1;
	}
	rc = sweep_run(&s, &own, cells, n, id);
out:
	sweep_free(&s);
	return rc;
}
