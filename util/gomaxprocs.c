/* GOMAXPROCS rules and the OS limits they read (util/gomaxprocs.h).
 *
 * Where each rule comes from (read in the sources, not copied):
 *
 *  - cpus: Go 1.5 to 1.24 start with GOMAXPROCS = runtime.NumCPU(), the
 *    CPUs of the affinity mask sched_getaffinity returns at start-up
 *    (src/runtime/os_linux.go getproccount, go1.24).
 *
 *  - go1.25: src/runtime/cgroup_linux.go, go1.25.0, defaultGOMAXPROCS and
 *    adjustCgroupGOMAXPROCS: the CPU count as above; then, if the process's
 *    CPU cgroup has a limit, limit = quota / period as a float, rounded up
 *    (ceil), raised to at least 2, and GOMAXPROCS is the smaller of it and
 *    the CPU count.  So the floor of 2 never lifts GOMAXPROCS above the CPU
 *    count: one CPU gives 1 whatever the quota.  No limit (v2 "max", v1 a
 *    negative quota), no cgroup, or a file that cannot be read: the CPU
 *    count.  Only the cgroup holding the process is read, not its parents
 *    (cgroup_linux.go's opening essay, point 1); a v1 hierarchy with the
 *    "cpu" controller is preferred to the v2 one
 *    (src/internal/runtime/cgroup/cgroup_linux.go parseCPURelativePath).
 *    sysmon rereads the limit (and the CPU count) from time to time and a
 *    helper goroutine applies a changed default under stop-the-world
 *    (proc.go sysmonUpdateGOMAXPROCS, updateMaxProcsGoroutine), unless
 *    GOMAXPROCS was set by the environment or runtime.GOMAXPROCS; a
 *    simulated run's limits never change, so the start-up value holds.
 *    GODEBUG=containermaxprocs=0 (and a go.mod older than 1.25) give the
 *    cpus rule.
 *
 *  - automaxprocs: go.uber.org/automaxprocs v1.6.0, maxprocs/maxprocs.go
 *    Set and internal/runtime/cpu_quota_linux.go CPUQuotaToGOMAXPROCS:
 *    quota / period rounded down (math.Floor; v1.2.0's changelog: "always
 *    round down"), at least MinGOMAXPROCS = 1, and not capped at the CPU
 *    count (a quota of 8 on 4 CPUs gives 8).  No quota defined (v1 quota
 *    <= 0, v2 "max", no cpu cgroup): GOMAXPROCS is left as the runtime set
 *    it -- the CPU count, for the Go versions automaxprocs was made for.
 *    v1 is read from the cgroup its /proc/self/cgroup line names, v2 from
 *    the process's own cgroup's cpu.max (internal/cgroups/cgroups2.go).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/gomaxprocs.h"

/* ---- The rules ---- */

static const char *const gmp_rule_names[GMP_NRULES] = {
	[GMP_CPUS] = "cpus", [GMP_GO125] = "go1.25", [GMP_AUTOMAXPROCS] = "automaxprocs",
};

const char *gmp_rule_name(enum gmp_rule r)
{
	return r > GMP_NUMBER && r < GMP_NRULES ? gmp_rule_names[r] : NULL;
}

enum gmp_rule gmp_rule_find(const char *s)
{
	for (int r = GMP_NUMBER + 1; r < GMP_NRULES; r++)
		if (strcmp(s, gmp_rule_names[r]) == 0)
			return (enum gmp_rule)r;
	return GMP_NUMBER;
}

const char *gmp_rule_list(void)
{
	return "cpus, go1.25, automaxprocs";
}

/* Integer ceil and floor of quota / period: the same as Go's float64
 * division then ceil or floor for any quota the kernel takes (at most
 * 2^44 us, so the quotient is exact to well under one part in 2^9). */
static int64_t quota_ceil(const struct gmp_limits *l)
{
	return (l->quota_ns + l->period_ns - 1) / l->period_ns;
}

int gmp_procs(enum gmp_rule r, const struct gmp_limits *l)
{
	int cpus = l->cpus > 0 ? l->cpus : 1;
	bool limited = l->quota_ns > 0 && l->period_ns > 0;
	switch (r) {
	case GMP_GO125: {
		if (!limited)
			return cpus;
		int64_t lim = quota_ceil(l);
		if (lim < 2)
			lim = 2;
		return lim < cpus ? (int)lim : cpus;
	}
	case GMP_AUTOMAXPROCS: {
		if (!limited)
			return cpus;
		int64_t lim = l->quota_ns / l->period_ns;
		return lim < 1 ? 1 : lim > INT32_MAX ? INT32_MAX : (int)lim;
	}
	default:
		return cpus;
	}
}

/* ---- CPU lists ---- */

/* A decimal CPU number at *s, below n: advances *s. */
static bool cpu_number(const char **s, int n, int *out)
{
	if (**s < '0' || **s > '9')
		return false;
	long v = 0;
	while (**s >= '0' && **s <= '9') {
		v = v * 10 + (*(*s)++ - '0');
		if (v > 1000000)
			return false;
	}
	*out = (int)v;
	return v < n || n == 0;
}

/* One item, "A", "A-B" or "A-B:S", of length len at item. */
static bool cpulist_item(const char *item, size_t len, bool *flags, int n, char *bad, int badsize)
{
	char *copy = strndup(item, len);
	const char *s = copy;
	int a, b, step = 1;
	const char *why = NULL;
	if (!cpu_number(&s, 0, &a))
		why = "not a CPU number";
	else
		b = a;
	if (!why && *s == '-') {
		s++;
		if (!cpu_number(&s, 0, &b) || b < a)
			why = "not a range A-B with A <= B";
		else if (*s == ':') {
			s++;
			if (!cpu_number(&s, 0, &step) || step == 0)
				why = "not a stride of 1 or more";
		}
	}
	if (!why && *s)
		why = "not a CPU number";
	if (!why && b >= n)
		why = "out of range";
	if (why) {
		snprintf(bad, (size_t)badsize, "'%s': %s", copy, why);
		free(copy);
		return false;
	}
	for (int c = a; c <= b; c += step)
		flags[c] = true;
	free(copy);
	return true;
}

bool gmp_cpulist_parse(const char *list, bool *flags, int n, char *bad, int badsize)
{
	memset(flags, 0, (size_t)n * sizeof(*flags));
	if (!*list) {
		snprintf(bad, (size_t)badsize, "an empty list");
		return false;
	}
	for (const char *p = list;;) {
		size_t len = strcspn(p, ",");
		if (len == 0) {
			snprintf(bad, (size_t)badsize, "an empty item");
			return false;
		}
		if (!cpulist_item(p, len, flags, n, bad, badsize))
			return false;
		if (!p[len])
			return true;
		p += len + 1;
	}
}

void gmp_cpulist_format(const bool *flags, int n, char *buf, int size)
{
	int used = 0;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (!flags[i])
			continue;
		int j = i;
		while (j + 1 < n && flags[j + 1])
			j++;
		int w = j == i ? snprintf(buf + used, (size_t)(size - used), "%s%d", used ? "," : "", i)
			: snprintf(buf + used, (size_t)(size - used), "%s%d-%d", used ? "," : "", i, j);
		if (w < 0 || w >= size - used)
			return;
		used += w;
		i = j;
	}
}

/* ---- cgroup files ---- */

/* Whether the comma-separated list [s, s + len) holds word. */
static bool list_has(const char *s, size_t len, const char *word)
{
	size_t wl = strlen(word);
	for (const char *end = s + len; s < end;) {
		size_t n = strcspn(s, ",:");
		if (n > (size_t)(end - s))
			n = (size_t)(end - s);
		if (n == wl && strncmp(s, word, wl) == 0)
			return true;
		s += n + 1;
	}
	return false;
}

static void copy_field(char *dst, int size, const char *s, size_t n)
{
	if (n >= (size_t)size)
		n = (size_t)size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* The line at *at (its length, without the newline, in *len), *at moved
 * past it; false at the text's end. */
static bool next_line(const char **at, const char **l, size_t *len)
{
	if (!**at)
		return false;
	*l = *at;
	*len = strcspn(*l, "\n");
	*at = *l + *len + ((*l)[*len] ? 1 : 0);
	return true;
}

enum gmp_cg gmp_cgroup_path(const char *text, char *path, int size)
{
	enum gmp_cg found = GMP_CG_NONE;
	const char *l;
	size_t len;
	path[0] = '\0';
	for (const char *at = text; next_line(&at, &l, &len);) {
		const char *c1 = memchr(l, ':', len);
		const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - l)) : NULL;
		if (!c2)
			return GMP_CG_BAD;
		const char *p = c2 + 1;
		size_t plen = len - (size_t)(p - l);
		if (c1 - l == 1 && l[0] == '0') {
			copy_field(path, size, p, plen);
			found = GMP_CG_V2;
		} else if (list_has(c1 + 1, (size_t)(c2 - c1 - 1), "cpu")) {
			copy_field(path, size, p, plen);
			return GMP_CG_V1;
		}
	}
	return found;
}

/* mountinfo escapes a blank, tab, newline and backslash as \ooo. */
static void unescape_field(char *dst, int size, const char *s, size_t n)
{
	int o = 0;
	for (size_t i = 0; i < n && o < size - 1; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3') {
			dst[o++] = (char)(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0'));
			i += 3;
		} else {
			dst[o++] = s[i];
		}
	}
	dst[o] = '\0';
}

/* The nth (from 0) blank-separated field of line [l, l + len): its start
 * and length, or NULL. */
static const char *field(const char *l, size_t len, int nth, size_t *n)
{
	const char *end = l + len;
	for (int k = 0; l < end; k++) {
		while (l < end && *l == ' ')
			l++;
		const char *s = l;
		while (l < end && *l != ' ')
			l++;
		if (k == nth && l > s) {
			*n = (size_t)(l - s);
			return s;
		}
	}
	return NULL;
}

/* One mountinfo line: whether it mounts version v's CPU hierarchy. */
static bool cpu_mount_line(const char *l, size_t len, enum gmp_cg v)
{
	const char *sep = NULL;
	for (const char *s = l; s + 3 <= l + len; s++)
		if (s[0] == ' ' && s[1] == '-' && s[2] == ' ') {
			sep = s + 3;
			break;
		}
	if (!sep)
		return false;
	size_t rest = len - (size_t)(sep - l), tn = 0, on = 0;
	const char *type = field(sep, rest, 0, &tn), *opts = field(sep, rest, 2, &on);
	if (!type)
		return false;
	if (v == GMP_CG_V2)
		return tn == 7 && strncmp(type, "cgroup2", 7) == 0;
	return tn == 6 && strncmp(type, "cgroup", 6) == 0 && opts && list_has(opts, on, "cpu");
}

bool gmp_cgroup_mount(const char *text, enum gmp_cg v, char *mount, char *root, int size)
{
	const char *l;
	size_t len;
	for (const char *at = text; next_line(&at, &l, &len);) {
		size_t rn = 0, mn = 0;
		const char *r = field(l, len, 3, &rn), *m = field(l, len, 4, &mn);
		if (r && m && cpu_mount_line(l, len, v)) {
			unescape_field(root, size, r, rn);
			unescape_field(mount, size, m, mn);
			return true;
		}
	}
	return false;
}

/* A decimal integer, maybe negative, then blanks or a newline: advances *s. */
static bool int_at(const char **s, int64_t *out)
{
	char *end;
	const char *p = *s;
	if (!(*p == '-' || (*p >= '0' && *p <= '9')))
		return false;
	long long v = strtoll(p, &end, 10);
	if (end == p)
		return false;
	*out = v;
	*s = end;
	return true;
}

int gmp_parse_cpu_max(const char *text, int64_t *quota_us, int64_t *period_us)
{
	const char *s = text;
	bool none = strncmp(s, "max ", 4) == 0;
	if (none)
		s += 3;
	else if (!int_at(&s, quota_us) || *quota_us < 0)
		return -1;
	if (*s++ != ' ' || !int_at(&s, period_us) || *period_us <= 0 || (*s && strcmp(s, "\n") != 0))
		return -1;
	return none ? 0 : 1;
}

int gmp_parse_cfs(const char *quota, const char *period, int64_t *quota_us, int64_t *period_us)
{
	const char *q = quota, *p = period;
	if (!int_at(&q, quota_us) || (*q && strcmp(q, "\n") != 0))
		return -1;
	if (*quota_us < 0)
		return 0;
	if (!int_at(&p, period_us) || *period_us <= 0 || (*p && strcmp(p, "\n") != 0))
		return -1;
	return 1;
}

/* ---- This process ---- */

/* The file root + path, whole (at most 64 KiB), or NULL. */
static char *slurp(const char *root, const char *path)
{
	char *name = NULL;
	if (asprintf(&name, "%s%s", root, path) < 0)
		return NULL;
	FILE *f = fopen(name, "re");
	free(name);
	if (!f)
		return NULL;
	size_t cap = 65536;
	char *buf = malloc(cap + 1);
	size_t n = buf ? fread(buf, 1, cap, f) : 0;
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* The quota of the cgroup folder dir (under root): 1, 0 or -1 as
 * gmp_parse_cpu_max. */
static int read_quota(const char *root, const char *dir, enum gmp_cg v, struct gmp_limits *l)
{
	int64_t q, p;
	int rc = -1;
	char *a = NULL, *b = NULL, *name = NULL;
	if (asprintf(&name, "%s/%s", dir, v == GMP_CG_V2 ? "cpu.max" : "cpu.cfs_quota_us") < 0)
		return -1;
	a = slurp(root, name);
	free(name);
	if (v == GMP_CG_V2) {
		rc = a ? gmp_parse_cpu_max(a, &q, &p) : -1;
	} else if (asprintf(&name, "%s/cpu.cfs_period_us", dir) >= 0) {
		b = slurp(root, name);
		free(name);
		rc = a && b ? gmp_parse_cfs(a, b, &q, &p) : -1;
	}
	if (rc == 1) {
		l->quota_ns = q * 1000;
		l->period_ns = p * 1000;
	}
	free(a);
	free(b);
	return rc;
}

/* The folder of this process's CPU cgroup (malloc'd, below root) and its
 * version, or NULL. */
static char *cpu_cgroup_dir(const char *root, enum gmp_cg *vout)
{
	char *cg = slurp(root, "/proc/self/cgroup"), *mi = slurp(root, "/proc/self/mountinfo");
	char path[4096], mount[4096], mroot[4096];
	char *dir = NULL;
	enum gmp_cg v = cg ? gmp_cgroup_path(cg, path, sizeof(path)) : GMP_CG_NONE;
	if ((v == GMP_CG_V1 || v == GMP_CG_V2) && mi &&
	    gmp_cgroup_mount(mi, v, mount, mroot, sizeof(mount))) {
		/* the path is the hierarchy's; the mount shows it from mroot down
		 * (a container's bind mount of its own cgroup) */
		size_t rl = strlen(mroot);
		const char *rel = path;
		if (strcmp(mroot, "/") != 0 && strncmp(path, mroot, rl) == 0 &&
		    (path[rl] == '/' || path[rl] == '\0'))
			rel = path + rl;
		if (asprintf(&dir, "%s%s", mount, strcmp(rel, "/") == 0 ? "" : rel) < 0)
			dir = NULL;
	}
	*vout = v;
	free(cg);
	free(mi);
	return dir;
}

void gmp_host_limits(const char *root, struct gmp_limits *l)
{
	cpu_set_t set;
	l->cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
	l->quota_ns = l->period_ns = 0;
	enum gmp_cg v;
	char *dir = cpu_cgroup_dir(root, &v);
	if (dir)
		read_quota(root, dir, v, l);
	free(dir);
}

bool gmp_parse_cpu_stat(const char *text, enum gmp_cg v, struct gmp_cpu_stat *out)
{
	const char *want[3] = { "nr_periods", "nr_throttled",
				v == GMP_CG_V2 ? "throttled_usec" : "throttled_time" };
	uint64_t got[3];
	int seen = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		for (int k = 0; k < 3; k++) {
			size_t n = strlen(want[k]);
			unsigned long long x;
			if (strncmp(l, want[k], n) == 0 && l[n] == ' ' &&
			    sscanf(l + n + 1, "%llu", &x) == 1) {
				got[k] = x;
				seen |= 1 << k;
			}
		}
	}
	if (seen != 7)
		return false;
	out->periods = got[0];
	out->throttled_periods = got[1];
	out->throttled_ns = v == GMP_CG_V2 ? got[2] * 1000 : got[2];
	return true;
}

bool gmp_host_cpu_stat(const char *root, struct gmp_limits *l, struct gmp_cpu_stat *out)
{
	gmp_host_limits(root, l);
	enum gmp_cg v;
	char *dir = cpu_cgroup_dir(root, &v), *name = NULL, *text = NULL;
	bool ok = dir && asprintf(&name, "%s/cpu.stat", dir) >= 0 && (text = slurp(root, name)) &&
		  gmp_parse_cpu_stat(text, v, out);
	free(text);
	free(name);
	free(dir);
	return ok;
}
