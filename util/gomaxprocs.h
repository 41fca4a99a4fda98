/* GOMAXPROCS as Go and its users choose it, and the OS limits it is chosen
 * from: `--procs RULE` [docs/runtime.md, "The OS a run lives under, and GOMAXPROCS rules"].
 *
 * The rules are one pure function of (rule, CPUs the process may run on,
 * its CPU quota); what a simulated run gives them comes from --cpuset and
 * --cpu-quota, what a native run gives them is read from this process
 * (gmp_host_limits: sched_getaffinity, and the cgroup's quota the way Go
 * 1.25 finds it).  The file parsers are separate and take text, so the
 * tests hold them to fixture files. */
#ifndef SCHEDLAB_UTIL_GOMAXPROCS_H
#define SCHEDLAB_UTIL_GOMAXPROCS_H

#include <stdbool.h>
#include <stdint.h>

/* ORDER: gmp_rule_names in gomaxprocs.c. */
enum gmp_rule {
	GMP_NUMBER,            /* --procs N, or the default: no rule */
	GMP_CPUS,              /* Go before 1.25: the CPUs of the affinity mask */
	GMP_GO125,             /* Go 1.25's container-aware default */
	GMP_AUTOMAXPROCS,      /* go.uber.org/automaxprocs's maxprocs.Set */
	GMP_NRULES,
};

/* What the rules read: the CPUs the process may run on (its affinity mask,
 * its cpuset; at least 1) and its CPU bandwidth limit, quota_ns of every
 * period_ns (quota_ns 0: none). */
struct gmp_limits {
	int cpus;
	int64_t quota_ns, period_ns;
};

/* The GOMAXPROCS rule r gives a process under l (r not GMP_NUMBER). */
int gmp_procs(enum gmp_rule r, const struct gmp_limits *l);
/* "cpus", "go1.25", "automaxprocs" (NULL for GMP_NUMBER). */
const char *gmp_rule_name(enum gmp_rule r);
/* The rule spelled s, or GMP_NUMBER if none is. */
enum gmp_rule gmp_rule_find(const char *s);
/* The rules' names as --help gives them: "cpus, go1.25, automaxprocs". */
const char *gmp_rule_list(void);

/* ---- Linux CPU lists ("0-3,8,10-15:2", cpuset(7), "List format") ---- */

/* Parses list into flags[0..n) by CPU number (set for each CPU listed).
 * true, or false with the offending item (or the reason) in bad. */
bool gmp_cpulist_parse(const char *list, bool *flags, int n, char *bad, int badsize);
/* flags[0..n) as the shortest cpu list ("0-3,8"), into buf. */
void gmp_cpulist_format(const bool *flags, int n, char *buf, int size);

/* ---- The cgroup a process's CPU limit comes from ---- */

enum gmp_cg { GMP_CG_NONE, GMP_CG_V1, GMP_CG_V2, GMP_CG_BAD };

/* From /proc/self/cgroup's text: the CPU controller's cgroup path (into
 * path) and its version -- a v1 hierarchy listing "cpu" wins, else the v2
 * one (hierarchy 0); GMP_CG_NONE if neither, GMP_CG_BAD if malformed. */
enum gmp_cg gmp_cgroup_path(const char *proc_cgroup, char *path, int size);
/* From /proc/self/mountinfo's text: where the version v CPU controller's
 * hierarchy is mounted (mount) and which of its folders is the mount's
 * root (root).  false if no such mount. */
bool gmp_cgroup_mount(const char *mountinfo, enum gmp_cg v, char *mount, char *root, int size);
/* A v2 cpu.max ("QUOTA PERIOD\n", QUOTA "max" for none) or v1's
 * cpu.cfs_quota_us and cpu.cfs_period_us (a negative quota: none), in
 * microseconds: 1 with a limit, 0 without, -1 if malformed. */
int gmp_parse_cpu_max(const char *text, int64_t *quota_us, int64_t *period_us);
int gmp_parse_cfs(const char *quota, const char *period, int64_t *quota_us, int64_t *period_us);

/* This process's limits, as Go 1.25 reads them: the CPUs of its affinity
 * mask, and the quota of the cgroup that holds it (only that one, not its
 * parents'), found through root's proc/self/cgroup and
 * proc/self/mountinfo (root "" in real use; a fixture folder in tests,
 * which also stands for the cgroup mounts).  A cgroup that cannot be
 * read is no limit, as it is to Go. */
void gmp_host_limits(const char *root, struct gmp_limits *l);

/* What the CPU controller says of the cgroup that holds this process
 * (cpu.stat): the enforcement periods that have passed since the quota was
 * set, those in which the cgroup was throttled, and the time its threads
 * waited throttled (v1's throttled_time in ns, v2's throttled_usec). */
struct gmp_cpu_stat {
	uint64_t periods, throttled_periods, throttled_ns;
};
/* Parses cpu.stat's text of version v: false if a field is missing. */
bool gmp_parse_cpu_stat(const char *text, enum gmp_cg v, struct gmp_cpu_stat *out);
/* This process's cgroup's cpu.stat (root as gmp_host_limits), and its
 * quota in *l: false if there is no CPU cgroup or it cannot be read. */
bool gmp_host_cpu_stat(const char *root, struct gmp_limits *l, struct gmp_cpu_stat *out);

#endif
