/* Topology model: a machine's packages, NUMA nodes, caches, cores and PUs,
 * its node distance matrix, and the latency model that prices accesses on
 * it.  One in-memory form whatever the source: hwloc's live discovery
 * ("host"), an hwloc XML file, a schedlab JSON file, or a bundled name.
 *
 * Relations used everywhere below:
 *   core group -- the cores sharing the core's outermost cache instance
 *                 (a CCX on EPYC, a whole package on most Xeons, the core
 *                 alone where the last level is private);
 *   hops       -- between NUMA nodes, the rank of their SLIT distance among
 *                 the distinct remote distances of the machine (1 for the
 *                 nearest remote class, 2 for the next, ...).  See
 *                 docs/topology.md for why and for the latency rules. */
#ifndef SCHEDLAB_TOPO_H
#define SCHEDLAB_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "util/util.h"

#define TOPO_MAX_LEVEL 4 /* cache levels L1..L4 */

struct topo_cache {
	int level;               /* 1..TOPO_MAX_LEVEL; data or unified caches only */
	uint64_t size;           /* bytes */
	unsigned line;           /* bytes */
	int ncores;              /* cores sharing this instance */
	int first_core;          /* lowest core index sharing it */
};

struct topo_core {
	int package, node, group;
	int cache[TOPO_MAX_LEVEL + 1]; /* instance per level, -1 if none; [0] unused */
	int first_pu, npus;
};

struct topo_pu {
	int core;
	unsigned os_index;       /* the OS's number for this PU (hwloc os_index) */
};

struct topo_node {
	int package;             /* the package holding it, -1 if it spans several */
	uint64_t memory;         /* bytes; 0 if the source does not say */
	double bandwidth_gbs;    /* memory controller peak, GB/s */
	unsigned os_index;
	int ncores;
};

/* Core-to-core relations, nearest first. */
enum topo_rel {
	TOPO_REL_CORE,     /* same core (SMT siblings, or the same PU) */
	TOPO_REL_GROUP,    /* same core group (share the outermost cache) */
	TOPO_REL_PACKAGE,  /* same package, different group */
	TOPO_REL_REMOTE,   /* different package: priced by node hops */
};

/* The latency model.  Every figure is idle latency in nanoseconds unless the
 * name says otherwise; defaults are in topo_build.c, their sources and bounds in
 * topo_figlist.h and docs/topology.md.  Hop lists hold what the source gave (index 0 = 1 hop);
 * topo__finish() extends them to the machine's hop count. */
#define TOPO_MAX_HOPS 32
#define TOPO_MAX_MATRIX_NODES 1024 /* "dram_ns.matrix" */
struct topo_latency {
	double cache_ns[TOPO_MAX_LEVEL + 1];  /* hit latency by level; [0] unused */
	double cache_bw_gbs[TOPO_MAX_LEVEL + 1]; /* one core's sustained stream from the level */
	double c2c_core_ns;     /* line transfer between SMT siblings */
	double c2c_group_ns;    /* ... within a core group */
	double c2c_package_ns;  /* ... between groups of one package */
	double c2c_hop_ns[TOPO_MAX_HOPS];  /* ... across packages, [h-1] for h hops */
	int n_c2c_hops;
	double dram_local_ns;
	double dram_hop_ns[TOPO_MAX_HOPS]; /* [h-1] for h hops, when given */
	int n_dram_hops;        /* 0: remote DRAM latency follows the SLIT rule */
	double slit_scale;      /* SLIT rule: remote = local * (1 + slit_scale * (d-10)/10) */
	double bandwidth_gbs;   /* per node, unless a node says otherwise */
	double mlp;             /* memory-level parallelism of a sequential stream */
	/* OS costs */
	double syscall_ns;        /* entry + exit of a trivial system call */
	double futex_wait_ns;     /* a thread's cost to go to sleep on a futex */
	double futex_wake_ns;     /* the waker's cost of a futex wake call */
	/* From a futex wake call until the woken thread runs, by the relation
	 * of the waker's PU to the PU the woken thread runs on (the same PU
	 * counts as TOPO_REL_CORE).  JSON "os_ns.wakeup": one number for every
	 * relation, or {"core", "group", "package", "hops"} like "c2c_ns". */
	double wakeup_core_ns, wakeup_group_ns, wakeup_package_ns;
	double wakeup_hop_ns[TOPO_MAX_HOPS];  /* [h-1] for h hops */
	int n_wakeup_hops;
	double timer_slack_ns;    /* a timed sleep ends this late (Linux timer slack), before its wake-up */
	/* epoll_wait's cost per ready event it returns, spent holding the
	 * epoll instance's mutex (ep->mtx): pollers of one instance take
	 * turns */
	double epoll_event_ns;
	double thread_create_ns;
	double context_switch_ns; /* OS thread switch on one core */
	double g_switch_ns;       /* runtime switch between Gs on one M (save/restore registers) */
	double pause_ns;          /* one PAUSE instruction (the spin-wait hint) */
	/* How long a thread runs before one waiting for its PU may take it
	 * (EEVDF's base slice); 0: the kernel's default for the PU count,
	 * topo_base_slice_ns. */
	double base_slice_ns;
	/* The runtime's own costs that its memory accesses do not account for
	 * (allocation, zeroing, set-up), JSON "runtime_ns". */
	double g_create_ns;       /* newproc: a G made ready to run, paid by the creator */
	double g_exit_ns;         /* goexit: a G's end and its return to the free list */
	double stack_acquire_ns;  /* a G's stack taken at its first run (from a cache, or mapped) */
};

/* The list of the model's figures (topo_figlist.h), one spec each. */
enum topo_fig_shape {
	TOPO_SHAPE_SCALAR,  /* one double of struct topo_latency */
	TOPO_SHAPE_HOPS,    /* a list by hop count, with its given length */
	TOPO_SHAPE_NODES,   /* one figure per NUMA node, or one number for all */
	TOPO_SHAPE_MATRIX,  /* node x node (dram_ns.matrix) */
	TOPO_SHAPE_SIZE,    /* a cache level's effective size, at the root */
};
/* Which machines use a figure ("applies" in the listing). */
enum topo_fig_use {
	TOPO_USE_ALWAYS,
	TOPO_USE_L1, TOPO_USE_L2, TOPO_USE_L3, TOPO_USE_L4, /* the level is present */
	TOPO_USE_SMT,        /* some core has two PUs */
	TOPO_USE_GROUPS,     /* some core group holds two cores */
	TOPO_USE_PACKAGE,    /* some package holds two core groups */
	TOPO_USE_NO_MATRIX,  /* no dram_ns.matrix */
	TOPO_USE_SLIT,       /* remote DRAM by the SLIT rule */
};
struct topo_fig_spec {
	const char *path;        /* below "latency" (the root for SIZE) */
	enum topo_fig_shape shape;
	size_t off, count_off;   /* in struct topo_latency (count: HOPS only) */
	const char *unit;
	double lo, hi;           /* the sane bounds, inclusive */
	enum topo_fig_use use;
	const char *source;      /* of the default, or NULL */
	const char *doc;
};
extern const struct topo_fig_spec topo_fig_specs[];
extern const int topo_nfig_specs;
/* The spec whose path is path exactly, or NULL. */
const struct topo_fig_spec *topo_fig_spec_find(const char *path);
/* A SCALAR's, HOPS' or NODES' value in lat (a HOPS' first entry). */
double *topo_fig_value(struct topo_latency *lat, const struct topo_fig_spec *s);
/* The keys of a section ("" for the latency object itself, "os_ns",
 * "os_ns.wakeup", "cache_sizes"), in the list's order, NULL-terminated;
 * sizes: the document root's SIZE figures instead of the latency object's. */
#define TOPO_FIG_MAX_KEYS 16
struct topo_fig_keys {
	int n;
	char name[TOPO_FIG_MAX_KEYS][24];
	const char *list[TOPO_FIG_MAX_KEYS + 1];
};
void topo_fig_keys(const char *section, bool sizes, struct topo_fig_keys *k);
/* Sections that may be given as one number setting every figure in them. */
bool topo_fig_one_number(const char *section);
/* The "latency" object as a file gives it (`topo --json`, read back the same). */
struct topo;
struct cJSON *topo_latency_json(const struct topo *t);

/* Where a figure of the latency model comes from (docs/topology.md,
 * "Provenance").  A file's "provenance" object says measured, published or
 * assumption; a figure the file sets without an entry is given, one it does
 * not set is the model's default, or derived from the given hops. */
enum topo_fig_kind {
	TOPO_FIG_DEFAULT,
	TOPO_FIG_GIVEN,
	TOPO_FIG_MEASURED,
	TOPO_FIG_PUBLISHED,
	TOPO_FIG_ASSUMPTION,
	TOPO_FIG_DERIVED,   /* a hop past the given list, extended by the hop rule */
};
extern const char *const topo_fig_kind_names[]; /* "default", "given", ... */

/* One entry of a file's "provenance" object.  Its path names one figure
 * ("c2c_ns.hops[0]") or every figure under it ("os_ns.wakeup"). */
struct topo_prov {
	char *path;
	enum topo_fig_kind kind;  /* measured, published or assumption */
	double p10, p90;          /* measured: the spread of the samples */
	long samples;             /* measured */
	char *method;             /* measured: how */
	char *source;             /* published (required), assumption (optional) */
	char *note;               /* assumption (required), others (optional) */
};

/* Every figure of the latency model for this machine, with its value and
 * where it comes from.  Paths are those of `topo --json`'s latency object
 * ("cache_ns.L3", "c2c_ns.hops[0]", "os_ns.wakeup.core"), plus
 * "bandwidth_gbs[i]" per node, "dram_ns.matrix[i][j]" and "cache_sizes.Ln"
 * when the file gives them. */
struct topo_figure {
	char *path;
	double value;
	const char *unit;         /* "ns", "GB/s", "B" or "" */
	bool applies;             /* false where this machine does not use it (no L4, ...) */
	enum topo_fig_kind kind;
	int prov;                 /* index in topo.prov, or -1 */
	const char *default_source; /* TOPO_FIG_DEFAULT: where the default comes from */
};

struct topo {
	char *name;              /* bundled name, or the file's base name, or "host" */
	char *source;            /* where it came from: "bundled", a path, "hwloc", "inline" */
	char *description;
	int npackages, nnodes, ngroups, ncores, npus, ncaches;
	struct topo_cache *caches;
	struct topo_core *cores;
	struct topo_pu *pus;
	struct topo_node *nodes;
	unsigned *distance;      /* nnodes x nnodes, SLIT convention (10 = local) */
	int *hops;               /* nnodes x nnodes */
	int max_hops;
	double *dram_ns;         /* nnodes x nnodes: accessor node x home node */
	double *dram_matrix;     /* "dram_ns.matrix" as given (nnodes x nnodes), or NULL */
	uint64_t cache_sizes[TOPO_MAX_LEVEL + 1]; /* "cache_sizes" as given, 0 where not */
	struct topo_latency lat;
	struct topo_figure *figures; /* set by topo__finish, kinds by the JSON loader */
	int nfigures;
	struct topo_prov *prov;  /* the file's "provenance", in file order */
	int nprov;
	struct cJSON *measurements; /* the file's "measurements" (a copy), or NULL */
	char *calibration;       /* -t host: the calibration file used, or NULL */
};

/* Loads a topology: "host", a bundled name, or a path to hwloc XML or
 * schedlab JSON (told apart by content).  On failure returns NULL and puts
 * one message naming the file, the JSON path and the problem in e. */
struct topo *topo_load(const char *spec, struct err *e);
struct topo *topo_load_xml(const char *path, struct err *e);
struct topo *topo_load_json(const char *path, struct err *e);
struct topo *topo_load_json_text(const char *text, const char *label, struct err *e);
/* hwloc XML text of len bytes (NUL-terminated), named label in messages.
 * hwloc parses it in a child process first (topo_hwloc.c): a file that
 * crashes the library is reported as bad input. */
struct topo *topo_load_xml_text(const char *text, size_t len, const char *label,
				struct err *e);
/* "host": hwloc's discovery of this machine with its calibration, if any
 * ($SCHEDLAB_CALIBRATION: a path, or "off"; else topo_calibration_path()
 * if that file exists).  A calibration of another machine is not used: one
 * line on stderr says why.  A calibration that cannot be read is an error. */
struct topo *topo_load_host(struct err *e);
/* The calibration file topo_load_host reads, or NULL (none, or "off"). */
char *topo_host_calibration_file(void);
/* hwloc's XML of this machine, discovered with -t host's filters
 * (malloc'd). */
char *topo_host_xml(struct err *e);
/* hwloc's discovery of this machine with the default figures, whatever
 * calibration there is: the native runtime needs only the structure, and
 * `schedlab calibrate` must not measure through a previous calibration. */
struct topo *topo_discover_host(struct err *e);
void topo_free(struct topo *t);

/* Bundled machines: names (sorted), and their JSON text. */
int topo_bundled_count(void);
const char *topo_bundled_name(int i);
const char *topo_bundled_json(const char *name);

enum topo_rel topo_core_rel(const struct topo *t, int core_a, int core_b);
/* os_ns.base_slice, or Linux's default where it is 0: sysctl_sched_base_slice
 * 0.75 ms scaled by 1 + log2(min(online CPUs, 8)) (SCHED_TUNABLESCALING_LOG,
 * kernel/sched/fair.c), 3 ms from 8 PUs up. */
double topo_base_slice_ns(const struct topo *t);
/* Line transfer latency between two cores, by their relation. */
double topo_c2c_ns(const struct topo *t, int core_a, int core_b);
/* Wake-up latency from a waker on PU pu_from to a thread run on pu_to. */
double topo_wakeup_ns(const struct topo *t, int pu_from, int pu_to);
static inline unsigned topo_distance(const struct topo *t, int a, int b)
{
	return t->distance[a * t->nnodes + b];
}
static inline int topo_hops(const struct topo *t, int a, int b)
{
	return t->hops[a * t->nnodes + b];
}
static inline double topo_dram_ns(const struct topo *t, int from, int home)
{
	return t->dram_ns[from * t->nnodes + home];
}

/* Structural equality: same counts, same core -> package/node/group map, same
 * caches (level, size, sharing), same distances.  Latencies are not
 * compared.  On a difference, says what differs in e. */
bool topo_same_machine(const struct topo *a, const struct topo *b, struct err *e);
/* The same with cache sizes aside (a calibration measures effective sizes). */
bool topo_same_structure(const struct topo *a, const struct topo *b, struct err *e);

/* The figure at path, or NULL. */
const struct topo_figure *topo_find_figure(const struct topo *t, const char *path);

/* Where `schedlab calibrate` writes by default and `-t host` looks:
 * ${XDG_CONFIG_HOME:-$HOME/.config}/schedlab/host.json (malloc'd), or NULL
 * when neither variable gives an absolute folder. */
char *topo_calibration_path(void);

/* ---- Internal: shared by the loaders (topo_build.c) ---- */

/* Fills groups, node core counts, hops, node packages and default-derived
 * latencies once the loader has set counts, cores, caches and distances.
 * Returns false with a message if the structure is inconsistent. */
bool topo__finish(struct topo *t, const char *label, struct err *e);
/* The loaders without topo__finish: XML text (contained, see above), an
 * XML file, and JSON text read from path (whose folder "hwloc_xml" is
 * relative to). */
struct topo *topo__load_xml_text(const char *text, size_t len, const char *label,
				 struct err *e);
struct topo *topo__load_xml_raw(const char *path, struct err *e);
struct topo *topo__load_json_file_text(const char *text, const char *path, struct err *e);
/* A machine's name from its file's path: the base name without its
 * extension, escaped (str_escape) so it is valid in a JSON report. */
char *topo__name_of_path(const char *path);
/* hwloc's discovery of this machine, without a calibration. */
struct topo *topo__discover_host(struct err *e);
void topo__latency_defaults(struct topo_latency *lat);
struct topo *topo__new(void);
/* topo_figures.c: the figure list of a finished machine (all default), and
 * the JSON loader's marking of it from the file's "latency" (given) and
 * "provenance" objects, which it validates against the list. */
void topo__figures_build(struct topo *t);
void topo__figures_free(struct topo *t);
struct jv;
bool topo__figures_mark(struct topo *t, const struct jv *j, const struct cJSON *latency,
			const struct cJSON *provenance);
bool topo__parse_measurements(struct topo *t, const struct jv *j, const struct cJSON *m);

#endif
