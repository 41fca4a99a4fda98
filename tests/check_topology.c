/* Topology model tests: the bundled machines, hwloc XML against hwloc's own
 * command line, JSON twins of real machines, the host, latency derivation,
 * and the one-line messages that bad input gets.
 *
 * Real-machine XML comes from test_shared_dir()/topologies; the JSON twins
 * of three of them live in tests/data.  Inline JSON is loaded with
 * topo_load_json_text() under the label "bad.json" (or "ok.json"); cases
 * where the path matters are written to temporary files. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/tests.h"
#include "topologies/topo.h"

#define NS_TOL 1e-9

static bool near(double a, double b)
{
	return fabs(a - b) < NS_TOL;
}

/* ---- Helpers ------------------------------------------------------------- */

static char *shared_xml(const char *base)
{
	return xasprintf("%s/topologies/%s", test_shared_dir(), base);
}

static char *data_file(const char *base)
{
	return xasprintf("%s/%s", test_data_dir(), base);
}

/* s in single quotes (each ' written as '\''), for a shell command line. */
static char *shell_quote(const char *s)
{
	size_t n = 3;
	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	char *q = xmalloc(n), *o = q;
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}

static struct topo *load_ok(const char *spec)
{
	struct err e = { "" };
	struct topo *t = topo_load(spec, &e);
	ck_assert_msg(t != NULL, "topo_load(\"%s\") failed: %s", spec, e.msg);
	return t;
}

static struct topo *xml_ok(const char *path)
{
	struct err e = { "" };
	struct topo *t = topo_load_xml(path, &e);
	ck_assert_msg(t != NULL, "topo_load_xml(\"%s\") failed: %s", path, e.msg);
	return t;
}

static struct topo *shared_ok(const char *base)
{
	char *path = shared_xml(base);
	struct topo *t = xml_ok(path);
	free(path);
	return t;
}

static struct topo *text_ok(const char *text)
{
	struct err e = { "" };
	struct topo *t = topo_load_json_text(text, "ok.json", &e);
	ck_assert_msg(t != NULL, "ok.json failed: %s\n%s", e.msg, text);
	return t;
}

/* A new file under /tmp holding text; the caller unlinks and frees. */
static char *write_temp(const char *text)
{
	char tmpl[] = "/tmp/schedlab-topo-XXXXXX";
	int fd = mkstemp(tmpl);
	ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
	size_t len = strlen(text);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return xstrdup(tmpl);
}

static char *write_file(const char *dir, const char *base, const char *text)
{
	char *path = xasprintf("%s/%s", dir, base);
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
	return path;
}

/* Asserts that a load failed cleanly (NULL) with a message holding each of
 * the fragments that follow 'what' (a description of the case). */
static void vexpect_failure(struct topo *t, const struct err *e, const char *what, va_list ap)
{
	if (t) {
		topo_free(t);
		ck_abort_msg("%s: loaded, but should have been rejected", what);
	}
	ck_assert_msg(e->msg[0] != '\0', "%s: rejected without a message", what);
	const char *frag;
	while ((frag = va_arg(ap, const char *)) != NULL)
		ck_assert_msg(strstr(e->msg, frag) != NULL,
			      "%s: message \"%s\" does not contain \"%s\"", what, e->msg, frag);
}

static void __attribute__((sentinel)) expect_failure(struct topo *t, const struct err *e,
						    const char *what, ...)
{
	va_list ap;
	va_start(ap, what);
	vexpect_failure(t, e, what, ap);
	va_end(ap);
}

/* Inline JSON that must be rejected; the message must name "bad.json" and
 * hold each fragment. */
static void __attribute__((sentinel)) text_fails(const char *text, ...)
{
	struct err e = { "" };
	struct topo *t = topo_load_json_text(text, "bad.json", &e);
	va_list ap;
	va_start(ap, text);
	vexpect_failure(t, &e, text, ap);
	va_end(ap);
	ck_assert_msg(strstr(e.msg, "bad.json") != NULL, "message \"%s\" does not name bad.json",
		      e.msg);
}

/* Invariants every loaded machine keeps, whatever its source. */
static void check_consistent(const struct topo *t)
{
	const char *n = t->name ? t->name : "?";
	ck_assert_msg(t->npackages > 0 && t->nnodes > 0 && t->ncores > 0 && t->npus >= t->ncores,
		      "%s: counts %d/%d/%d/%d", n, t->npackages, t->nnodes, t->ncores, t->npus);
	ck_assert_msg(t->ngroups >= 1 && t->ngroups <= t->ncores, "%s: %d groups", n, t->ngroups);
	int pus = 0;
	for (int c = 0; c < t->ncores; c++) {
		const struct topo_core *core = &t->cores[c];
		ck_assert_msg(core->package >= 0 && core->package < t->npackages,
			      "%s: core %d package %d", n, c, core->package);
		ck_assert_msg(core->node >= 0 && core->node < t->nnodes, "%s: core %d node %d", n, c,
			      core->node);
		ck_assert_msg(core->group >= 0 && core->group < t->ngroups, "%s: core %d group %d", n,
			      c, core->group);
		ck_assert_msg(core->npus >= 1 && core->first_pu >= 0 &&
			      core->first_pu + core->npus <= t->npus, "%s: core %d PUs %d+%d", n, c,
			      core->first_pu, core->npus);
		for (int p = core->first_pu; p < core->first_pu + core->npus; p++)
			ck_assert_msg(t->pus[p].core == c, "%s: PU %d belongs to core %d, not %d", n, p,
				      t->pus[p].core, c);
		pus += core->npus;
		for (int l = 1; l <= TOPO_MAX_LEVEL; l++) {
			int k = core->cache[l];
			if (k < 0)
				continue;
			ck_assert_msg(k < t->ncaches, "%s: core %d L%d instance %d of %d", n, c, l, k,
				      t->ncaches);
			const struct topo_cache *cache = &t->caches[k];
			ck_assert_int_eq(cache->level, l);
			ck_assert_msg(cache->size > 0 && cache->ncores >= 1 && cache->first_core <= c,
				      "%s: core %d L%d: %llu bytes, %d cores from %d", n, c, l,
				      (unsigned long long)cache->size, cache->ncores, cache->first_core);
		}
		/* A group is a set of cores sharing a cache, so within one package. */
		for (int d = 0; d < c; d++)
			if (t->cores[d].group == core->group && t->cores[d].package != core->package)
				ck_abort_msg("%s: cores %d and %d share group %d across packages", n, d,
					     c, core->group);
	}
	ck_assert_int_eq(pus, t->npus);
	int node_cores = 0;
	for (int i = 0; i < t->nnodes; i++)
		node_cores += t->nodes[i].ncores;
	ck_assert_int_eq(node_cores, t->ncores);
	ck_assert_msg(t->max_hops >= (t->nnodes > 1) && t->max_hops <= TOPO_MAX_HOPS,
		      "%s: max_hops %d with %d nodes", n, t->max_hops, t->nnodes);
	for (int i = 0; i < t->nnodes; i++)
		for (int j = 0; j < t->nnodes; j++) {
			if (i == j) {
				ck_assert_uint_eq(topo_distance(t, i, j), 10);
				ck_assert_int_eq(topo_hops(t, i, j), 0);
				ck_assert(near(topo_dram_ns(t, i, j), t->lat.dram_local_ns));
				continue;
			}
			ck_assert_msg(topo_distance(t, i, j) > 10, "%s: distance[%d][%d] = %u", n, i, j,
				      topo_distance(t, i, j));
			ck_assert_msg(topo_hops(t, i, j) >= 1 && topo_hops(t, i, j) <= t->max_hops,
				      "%s: hops[%d][%d] = %d, max %d", n, i, j, topo_hops(t, i, j),
				      t->max_hops);
			ck_assert_msg(topo_dram_ns(t, i, j) >= t->lat.dram_local_ns,
				      "%s: remote DRAM %d->%d (%g ns) below local (%g ns)", n, i, j,
				      topo_dram_ns(t, i, j), t->lat.dram_local_ns);
		}
}

/* The documented defaults of the latency model; tests of derivation rules
 * price from these so that retuning a figure does not break them. */
static struct topo_latency defaults(void)
{
	struct topo_latency d;
	topo__latency_defaults(&d);
	return d;
}

static bool same_machine(const struct topo *a, const struct topo *b, struct err *e)
{
	e->msg[0] = '\0';
	return topo_same_machine(a, b, e);
}

/* ---- Bundled machines ---------------------------------------------------- */

static const struct {
	const char *name;
	int packages, nodes, cores, pus, groups, max_hops;
} bundled_expect[] = {
	{ "numa1", 1, 1, 16, 32, 1, 0 },
	{ "numa2", 2, 2, 32, 64, 2, 1 },
	{ "numa4", 4, 4, 32, 64, 4, 2 },
	{ "numa8", 8, 8, 64, 128, 8, 3 },
	/* the published cases' machines (docs/cases.md) */
	{ "box8", 2, 2, 8, 8, 2, 1 },
	{ "e5-2660v4", 2, 2, 28, 56, 2, 1 },
	{ "epyc9684x", 2, 2, 192, 384, 24, 1 },
	{ "plat8160", 2, 2, 48, 96, 2, 1 },
};
#define N_BUNDLED_EXPECT ((int)(sizeof(bundled_expect) / sizeof(bundled_expect[0])))

START_TEST(test_bundled_names_are_sorted_and_include_numa1_2_4_8)
{
	int n = topo_bundled_count();
	ck_assert_int_ge(n, N_BUNDLED_EXPECT);
	for (int i = 1; i < n; i++)
		ck_assert_msg(strcmp(topo_bundled_name(i - 1), topo_bundled_name(i)) < 0,
			      "bundled names out of order: %s, %s", topo_bundled_name(i - 1),
			      topo_bundled_name(i));
	for (int k = 0; k < N_BUNDLED_EXPECT; k++) {
		const char *text = topo_bundled_json(bundled_expect[k].name);
		ck_assert_msg(text != NULL, "%s is not bundled", bundled_expect[k].name);
		ck_assert_msg(text[strspn(text, " \t\r\n")] == '{', "%s: text is not a JSON object",
			      bundled_expect[k].name);
	}
	ck_assert_ptr_null(topo_bundled_json("nosuch"));
}
END_TEST

START_TEST(test_bundled_machine_loads_with_sane_counts)
{
	const char *name = topo_bundled_name(_i);
	struct topo *t = load_ok(name);
	ck_assert_str_eq(t->name, name);
	ck_assert_str_eq(t->source, "bundled");
	check_consistent(t);
	ck_assert_int_eq(t->ncores % t->npackages, 0);
	for (int k = 0; k < N_BUNDLED_EXPECT; k++) {
		if (strcmp(bundled_expect[k].name, name) != 0)
			continue;
		ck_assert_int_eq(t->npackages, bundled_expect[k].packages);
		ck_assert_int_eq(t->nnodes, bundled_expect[k].nodes);
		ck_assert_int_eq(t->ncores, bundled_expect[k].cores);
		ck_assert_int_eq(t->npus, bundled_expect[k].pus);
		ck_assert_int_eq(t->ngroups, bundled_expect[k].groups);
		ck_assert_int_eq(t->max_hops, bundled_expect[k].max_hops);
	}
	topo_free(t);
}
END_TEST

START_TEST(test_numa4_hop_matrix_is_a_square)
{
	/* Edges 0-1, 1-3, 3-2, 2-0 are one hop; the diagonals 0-3, 1-2 two. */
	static const int hops[4][4] = {
		{ 0, 1, 1, 2 },
		{ 1, 0, 2, 1 },
		{ 1, 2, 0, 1 },
		{ 2, 1, 1, 0 },
	};
	struct topo *t = load_ok("numa4");
	ck_assert_int_eq(t->max_hops, 2);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			ck_assert_msg(topo_hops(t, i, j) == hops[i][j],
				      "numa4 hops[%d][%d] = %d, want %d", i, j, topo_hops(t, i, j),
				      hops[i][j]);
	topo_free(t);
}
END_TEST

START_TEST(test_numa4_dram_is_135_local_198_one_hop_261_two_hops)
{
	static const double by_hops[] = { 135, 198, 261 };
	struct topo *t = load_ok("numa4");
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			ck_assert(near(topo_dram_ns(t, i, j), by_hops[topo_hops(t, i, j)]));
	ck_assert_double_eq_tol(topo_dram_ns(t, 0, 3), 261, NS_TOL);
	ck_assert_double_eq_tol(topo_dram_ns(t, 1, 2), 261, NS_TOL);
	ck_assert_double_eq_tol(topo_dram_ns(t, 3, 2), 198, NS_TOL);
	topo_free(t);
}
END_TEST

START_TEST(test_numa8_hops_are_cube_edges)
{
	/* Nodes are cube corners: hops = bits that differ between the indexes. */
	struct topo *t = load_ok("numa8");
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++) {
			int h = __builtin_popcount((unsigned)(i ^ j));
			ck_assert_msg(topo_hops(t, i, j) == h, "numa8 hops[%d][%d] = %d, want %d", i, j,
				      topo_hops(t, i, j), h);
			ck_assert_double_eq_tol(topo_dram_ns(t, i, j), 135 + 63 * h, NS_TOL);
		}
	/* core 8c sits on node c; core 0 to core 56 is three hops. */
	ck_assert_double_eq_tol(topo_c2c_ns(t, 0, 8), 130, NS_TOL);
	ck_assert_double_eq_tol(topo_c2c_ns(t, 0, 24), 195, NS_TOL);
	ck_assert_double_eq_tol(topo_c2c_ns(t, 0, 56), 260, NS_TOL);
	topo_free(t);
}
END_TEST

/* ---- hwloc XML against hwloc's command line ------------------------------ */

static char **xml_files;  /* base names in test_shared_dir()/topologies, sorted */
static int n_xml_files;
static char xml_dir_error[256];

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_xml_files(void)
{
	char *dir = xasprintf("%s/topologies", test_shared_dir());
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(xml_dir_error, sizeof(xml_dir_error), "%s: %s", dir, strerror(errno));
		free(dir);
		return;
	}
	int cap = 0;
	for (struct dirent *de; (de = readdir(d)) != NULL;) {
		size_t len = strlen(de->d_name);
		if (len <= 4 || strcmp(de->d_name + len - 4, ".xml") != 0)
			continue;
		if (n_xml_files == cap) {
			cap = cap ? 2 * cap : 16;
			xml_files = xrealloc(xml_files, sizeof(*xml_files) * (size_t)cap);
		}
		xml_files[n_xml_files++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n_xml_files == 0)
		snprintf(xml_dir_error, sizeof(xml_dir_error), "%s: no *.xml files", dir);
	else
		qsort(xml_files, (size_t)n_xml_files, sizeof(*xml_files), cmp_str);
	free(dir);
}

/* `hwloc-calc -i FILE --number-of TYPE all`, as a number. */
static long hwloc_calc_count(const char *path, const char *type)
{
	char *q = shell_quote(path);
	char *cmd = xasprintf("hwloc-calc -i %s --number-of %s all", q, type);
	char *out = NULL, *err = NULL;
	int rc = test_run(cmd, &out, &err);
	ck_assert_msg(rc == 0, "`%s` exited %d: %s", cmd, rc, err);
	char *end;
	long n = strtol(out, &end, 10);
	ck_assert_msg(end != out && strspn(end, " \n") == strlen(end),
		      "`%s` printed \"%s\", not one number", cmd, out);
	free(q);
	free(cmd);
	free(out);
	free(err);
	return n;
}

START_TEST(test_shared_dir_has_hwloc_xml_files)
{
	ck_assert_msg(n_xml_files > 0, "no real-machine XML to test: %s", xml_dir_error);
}
END_TEST

START_TEST(test_xml_counts_match_hwloc_calc)
{
	char *path = shared_xml(xml_files[_i]);
	struct topo *t = xml_ok(path);
	check_consistent(t);
	ck_assert_str_eq(t->source, path);
	static const char *const types[] = { "package", "numanode", "core", "pu" };
	const int ours[] = { t->npackages, t->nnodes, t->ncores, t->npus };
	for (int k = 0; k < 4; k++) {
		long theirs = hwloc_calc_count(path, types[k]);
		ck_assert_msg(ours[k] == theirs, "%s: %d of type %s, hwloc-calc counts %ld",
			      xml_files[_i], ours[k], types[k], theirs);
	}
	topo_free(t);
	free(path);
}
END_TEST

/* ---- JSON and hwloc describe the same machine ---------------------------- */

static const char *const twins[] = {
	"2s-corona-epyc-7401",
	"4s-dell-c6145-opteron-6276",
	"4s-dell-r910-xeon-e7-4870",
};
#define N_TWINS ((int)(sizeof(twins) / sizeof(twins[0])))

START_TEST(test_json_twin_is_same_machine_as_hwloc_xml)
{
	char *base = xasprintf("%s.json", twins[_i]);
	char *json = data_file(base);
	char *xml = xasprintf("%s/topologies/%s.xml", test_shared_dir(), twins[_i]);
	struct topo *j = load_ok(json);
	struct topo *x = xml_ok(xml);
	check_consistent(j);
	ck_assert_str_eq(j->name, twins[_i]);
	ck_assert_str_eq(j->source, json);
	struct err e = { "" };
	ck_assert_msg(same_machine(j, x, &e), "%s vs %s: %s", json, xml, e.msg);
	ck_assert_msg(same_machine(x, j, &e), "%s vs %s: %s", xml, json, e.msg);
	/* Derived figures follow from structure alone, so they agree too. */
	ck_assert_int_eq(j->max_hops, x->max_hops);
	for (int a = 0; a < j->nnodes; a++)
		for (int b = 0; b < j->nnodes; b++) {
			ck_assert_int_eq(topo_hops(j, a, b), topo_hops(x, a, b));
			ck_assert_double_eq_tol(topo_dram_ns(j, a, b), topo_dram_ns(x, a, b), NS_TOL);
		}
	for (int a = 0; a < j->ncores; a++)
		for (int b = 0; b < j->ncores; b++)
			if (!near(topo_c2c_ns(j, a, b), topo_c2c_ns(x, a, b)))
				ck_abort_msg("%s: cores %d,%d: c2c %g ns from JSON, %g from XML",
					     twins[_i], a, b, topo_c2c_ns(j, a, b), topo_c2c_ns(x, a, b));
	topo_free(j);
	topo_free(x);
	free(base);
	free(json);
	free(xml);
}
END_TEST

START_TEST(test_json_cores_are_numbered_package_major)
{
	/* Corona twin: 24 cores per package, 6 per node, 3 per L3, 2 PUs each. */
	char *json = data_file("2s-corona-epyc-7401.json");
	struct topo *t = load_ok(json);
	ck_assert_int_eq(t->npus, 96);
	for (int c = 0; c < t->ncores; c++) {
		const struct topo_core *core = &t->cores[c];
		ck_assert_int_eq(core->package, c / 24);
		ck_assert_int_eq(core->node, c / 6);
		ck_assert_int_eq(core->group, c / 3);
		ck_assert_int_eq(core->first_pu, 2 * c);
		ck_assert_int_eq(core->npus, 2);
		ck_assert_uint_eq(t->pus[2 * c + 1].os_index, (unsigned)(2 * c + 1));
		const struct topo_cache *l3 = &t->caches[core->cache[3]];
		ck_assert_int_eq(l3->first_core, c / 3 * 3);
		ck_assert_int_eq(l3->ncores, 3);
		ck_assert_uint_eq(l3->size, 8u << 20);
		ck_assert_int_eq(t->caches[core->cache[1]].ncores, 1);
		ck_assert_int_eq(core->cache[4], -1);
	}
	for (int i = 0; i < t->nnodes; i++) {
		ck_assert_int_eq(t->nodes[i].package, i / 4);
		ck_assert_int_eq(t->nodes[i].ncores, 6);
		ck_assert_uint_eq(t->nodes[i].memory, 32ull << 30);
	}
	topo_free(t);
	free(json);
}
END_TEST

START_TEST(test_same_machine_is_reflexive_for_bundled_text)
{
	struct topo *a = load_ok("numa4");
	struct topo *b = text_ok(topo_bundled_json("numa4"));
	struct err e = { "" };
	ck_assert_msg(same_machine(a, a, &e), "numa4 vs itself: %s", e.msg);
	ck_assert_msg(same_machine(a, b, &e), "numa4 vs its text: %s", e.msg);
	topo_free(a);
	topo_free(b);
}
END_TEST

START_TEST(test_same_machine_says_numa4_is_not_numa2)
{
	struct topo *a = load_ok("numa4");
	struct topo *b = load_ok("numa2");
	struct err e = { "" };
	ck_assert(!same_machine(a, b, &e));
	ck_assert_msg(strstr(e.msg, "packages: 4 vs 2") != NULL, "message: \"%s\"", e.msg);
	ck_assert(!same_machine(b, a, &e));
	ck_assert_msg(strstr(e.msg, "packages: 2 vs 4") != NULL, "message: \"%s\"", e.msg);
	topo_free(a);
	topo_free(b);
}
END_TEST

#define TWO_NODES(extra) \
	"{\"packages\": 2, \"numa_nodes\": 2, \"cores\": 8, " extra "}"
#define CACHES_8(l2, l3) \
	"\"caches\": [{\"level\": 1, \"size\": \"32KiB\"}, {\"level\": 2, \"size\": \"" l2 "\"}, " \
	"{\"level\": 3, \"size\": \"8MiB\", \"cores\": " l3 "}]"

START_TEST(test_same_machine_names_the_first_difference)
{
	static const struct {
		const char *a, *b, *says;
	} cases[] = {
		{ TWO_NODES("\"distances\": [[10, 21], [21, 10]]"),
		  TWO_NODES("\"distances\": [[10, 22], [22, 10]]"), "distance[0][1]: 21 vs 22" },
		{ TWO_NODES("\"distances\": [[10, 21], [21, 10]]"),
		  TWO_NODES("\"pus_per_core\": 2, \"distances\": [[10, 21], [21, 10]]"),
		  "PUs: 8 vs 16" },
		{ TWO_NODES(CACHES_8("256KiB", "4") ", \"distances\": [[10, 21], [21, 10]]"),
		  TWO_NODES(CACHES_8("512KiB", "4") ", \"distances\": [[10, 21], [21, 10]]"),
		  "core 0: L2 262144 bytes" },
		{ TWO_NODES(CACHES_8("256KiB", "4") ", \"distances\": [[10, 21], [21, 10]]"),
		  TWO_NODES(CACHES_8("256KiB", "2") ", \"distances\": [[10, 21], [21, 10]]"),
		  "core groups: 2 vs 4" },
		{ TWO_NODES("\"distances\": [[10, 21], [21, 10]]"),
		  TWO_NODES("\"caches\": [{\"level\": 1, \"size\": \"32KiB\"}], "
			    "\"distances\": [[10, 21], [21, 10]]"),
		  "core 0: L1 present in one machine only" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct topo *a = text_ok(cases[k].a);
		struct topo *b = text_ok(cases[k].b);
		struct err e = { "" };
		ck_assert_msg(!same_machine(a, b, &e), "case %zu: called the same machine", k);
		ck_assert_msg(strstr(e.msg, cases[k].says) != NULL,
			      "case %zu: message \"%s\", want \"%s\"", k, e.msg, cases[k].says);
		topo_free(a);
		topo_free(b);
	}
}
END_TEST

/* ---- The host ------------------------------------------------------------ */

START_TEST(test_host_is_same_machine_as_its_lstopo_xml_export)
{
	char dir[] = "/tmp/schedlab-host-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *xml = xasprintf("%s/host.xml", dir);
	char *q = shell_quote(xml);
	char *cmd = xasprintf("lstopo --of xml %s", q);
	char *err = NULL;
	int rc = test_run(cmd, NULL, &err);
	struct err e = { "" };
	struct topo *x = rc == 0 ? topo_load_xml(xml, &e) : NULL;
	unlink(xml);
	rmdir(dir);
	ck_assert_msg(rc == 0, "`%s` exited %d: %s", cmd, rc, err);
	ck_assert_msg(x != NULL, "lstopo's export does not load: %s", e.msg);

	struct topo *h = load_ok("host");
	ck_assert_str_eq(h->name, "host");
	ck_assert_str_eq(h->source, "hwloc");
	check_consistent(h);
	ck_assert_msg(same_machine(h, x, &e), "host vs %s: %s", xml, e.msg);
	/* The export keeps the OS's PU numbers too. */
	for (int p = 0; p < h->npus; p++)
		ck_assert_uint_eq(h->pus[p].os_index, x->pus[p].os_index);

	topo_free(h);
	topo_free(x);
	free(xml);
	free(q);
	free(cmd);
	free(err);
}
END_TEST

/* ---- JSON that points at hwloc XML --------------------------------------- */

START_TEST(test_json_hwloc_xml_applies_latency_override)
{
	char dir[] = "/tmp/schedlab-ref-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *rel = shared_xml("4s-dell-r910-xeon-e7-4870.xml");
	char *xml = realpath(rel, NULL);
	ck_assert_msg(xml != NULL, "%s: %s", rel, strerror(errno));
	char *text = xasprintf("{\n"
			       "  \"name\": \"r910-measured\",\n"
			       "  \"hwloc_xml\": \"%s\",\n"
			       "  \"latency\": {\n"
			       "    \"dram_ns\": { \"local\": 111 },\n"
			       "    \"c2c_ns\": { \"group\": 33, \"hops\": [150] },\n"
			       "    \"bandwidth_gbs\": [10, 20, 30, 40]\n"
			       "  }\n"
			       "}\n", xml);
	char *json = write_file(dir, "ref.json", text);
	struct err e = { "" };
	struct topo *t = topo_load(json, &e);
	unlink(json);
	rmdir(dir);
	ck_assert_msg(t != NULL, "%s failed: %s", json, e.msg);

	struct topo *x = xml_ok(xml);
	ck_assert_str_eq(t->name, "r910-measured");
	ck_assert_str_eq(t->source, json);
	ck_assert_int_eq(t->npackages, 4);
	ck_assert_int_eq(t->nnodes, 4);
	ck_assert_int_eq(t->ncores, 40);
	ck_assert_int_eq(t->npus, 40);
	ck_assert_msg(same_machine(t, x, &e), "%s vs %s: %s", json, xml, e.msg);
	/* The override, and what the SLIT rule makes of it (distance 20: 1.5x). */
	ck_assert_double_eq_tol(t->lat.dram_local_ns, 111, NS_TOL);
	ck_assert_double_eq_tol(topo_dram_ns(t, 2, 2), 111, NS_TOL);
	ck_assert_double_eq_tol(topo_dram_ns(t, 0, 3), 166.5, NS_TOL);
	ck_assert_double_eq_tol(topo_dram_ns(x, 0, 3), 1.5 * defaults().dram_local_ns, NS_TOL);
	ck_assert_double_eq_tol(topo_c2c_ns(t, 0, 9), 33, NS_TOL);    /* same L3 */
	ck_assert_double_eq_tol(topo_c2c_ns(t, 0, 10), 150, NS_TOL);  /* next package */
	ck_assert_double_eq_tol(topo_c2c_ns(t, 0, 0), t->lat.c2c_core_ns, NS_TOL);
	for (int i = 0; i < 4; i++)
		ck_assert_double_eq_tol(t->nodes[i].bandwidth_gbs, 10 * (i + 1), NS_TOL);

	topo_free(t);
	topo_free(x);
	free(json);
	free(text);
	free(xml);
	free(rel);
}
END_TEST

START_TEST(test_json_hwloc_xml_relative_path_is_relative_to_the_json_file)
{
	char dir[] = "/tmp/schedlab-ref-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *xml = shared_xml("8s-tyan-s4881-opteron-865.xml");
	char *abs = realpath(xml, NULL);
	ck_assert_msg(abs != NULL, "%s: %s", xml, strerror(errno));
	char *link = xasprintf("%s/tyan.xml", dir);
	ck_assert_int_eq(symlink(abs, link), 0);
	char *json = write_file(dir, "tyan-ref.json",
				"{ \"hwloc_xml\": \"tyan.xml\", \"latency\": { \"mlp\": 4 } }");
	struct err e = { "" };
	struct topo *t = topo_load(json, &e);
	unlink(json);
	unlink(link);
	rmdir(dir);
	ck_assert_msg(t != NULL, "%s failed: %s", json, e.msg);

	ck_assert_str_eq(t->name, "tyan-ref");
	ck_assert_int_eq(t->npackages, 8);
	ck_assert_int_eq(t->ncores, 16);
	ck_assert_double_eq_tol(t->lat.mlp, 4, NS_TOL);

	topo_free(t);
	free(json);
	free(link);
	free(abs);
	free(xml);
}
END_TEST

START_TEST(test_json_hwloc_xml_rejects_structural_keys)
{
	char *xml = shared_xml("8s-tyan-s4881-opteron-865.xml");
	char *text = xasprintf("{\"hwloc_xml\": \"%s\", \"cores\": 16}", xml);
	text_fails(text, "bad.json: $.cores: cannot be combined with \"hwloc_xml\"", NULL);
	free(text);
	text = xasprintf("{\"hwloc_xml\": \"%s\", \"distances\": [[10]]}", xml);
	text_fails(text, "bad.json: $.distances: cannot be combined", NULL);
	free(text);
	free(xml);
}
END_TEST

/* ---- Latency derivation -------------------------------------------------- */

/* Two nodes at distance D, with latency text L. */
#define PAIR(d, lat) \
	"{\"packages\": 2, \"numa_nodes\": 2, \"cores\": 4, \"distances\": [[10, " d "], [" d \
	", 10]]" lat "}"

START_TEST(test_slit_rule_prices_distance_20_at_1_5x_local)
{
	/* By default: the default local figure, and 1.5x it at distance 20. */
	const struct topo_latency d = defaults();
	struct topo *t = text_ok(PAIR("20", ""));
	ck_assert_double_eq_tol(topo_dram_ns(t, 1, 1), d.dram_local_ns, NS_TOL);
	ck_assert_double_eq_tol(topo_dram_ns(t, 0, 1), 1.5 * d.dram_local_ns, NS_TOL);
	topo_free(t);

	static const struct {
		const char *text;
		double local, remote;
	} cases[] = {
		{ PAIR("20", ", \"latency\": {\"dram_ns\": {\"local\": 100}}"), 100, 150 },
		{ PAIR("20", ", \"latency\": {\"dram_ns\": {\"local\": 100}, \"slit_scale\": 1}"),
		  100, 200 },
		{ PAIR("31", ", \"latency\": {\"dram_ns\": {\"local\": 100}}"), 100, 205 },
		/* A hop list replaces the rule. */
		{ PAIR("20", ", \"latency\": {\"dram_ns\": {\"local\": 100, \"hops\": [170]}}"),
		  100, 170 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		t = text_ok(cases[k].text);
		ck_assert_int_eq(t->max_hops, 1);
		ck_assert_double_eq_tol(topo_dram_ns(t, 0, 0), cases[k].local, NS_TOL);
		ck_assert_double_eq_tol(topo_dram_ns(t, 1, 1), cases[k].local, NS_TOL);
		ck_assert_double_eq_tol(topo_dram_ns(t, 0, 1), cases[k].remote, NS_TOL);
		ck_assert_double_eq_tol(topo_dram_ns(t, 1, 0), cases[k].remote, NS_TOL);
		topo_free(t);
	}
}
END_TEST

/* Four nodes in a line, one package each (core i on node i): distances
 * 21, 31, 41 for 1, 2, 3 hops. */
#define LINE4(lat) \
	"{\"packages\": 4, \"numa_nodes\": 4, \"cores\": 4, \"distances\": [" \
	"[10, 21, 31, 41], [21, 10, 21, 31], [31, 21, 10, 21], [41, 31, 21, 10]]" lat "}"

START_TEST(test_hop_lists_extend_to_the_machine_hop_count)
{
	struct {
		const char *text;
		double c2c[3], dram[3];
	} cases[] = {
		/* One figure: each extra hop adds half of it. */
		{ LINE4(", \"latency\": {\"c2c_ns\": {\"hops\": [100]}, "
			"\"dram_ns\": {\"hops\": [200]}}"),
		  { 100, 150, 200 }, { 200, 300, 400 } },
		/* Two figures: each extra hop adds the last step. */
		{ LINE4(", \"latency\": {\"c2c_ns\": {\"hops\": [100, 110]}, "
			"\"dram_ns\": {\"hops\": [120, 150]}}"),
		  { 100, 110, 120 }, { 120, 150, 180 } },
		/* A full list is kept as given. */
		{ LINE4(", \"latency\": {\"c2c_ns\": {\"hops\": [100, 300, 310]}, "
			"\"dram_ns\": {\"hops\": [120, 130, 500]}}"),
		  { 100, 300, 310 }, { 120, 130, 500 } },
		/* Defaults are filled in below: one c2c figure plus half of it per
		 * extra hop, and DRAM by the SLIT rule (distances 21, 31, 41). */
		{ LINE4(""), { 0 }, { 0 } },
	};
	const struct topo_latency d = defaults();
	const size_t last = sizeof(cases) / sizeof(cases[0]) - 1;
	for (int h = 0; h < 3; h++) {
		cases[last].c2c[h] = d.c2c_hop_ns[0] * (1 + 0.5 * h);
		cases[last].dram[h] = d.dram_local_ns * (1 + d.slit_scale * (11 + 10.0 * h) / 10);
	}
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct topo *t = text_ok(cases[k].text);
		ck_assert_int_eq(t->max_hops, 3);
		for (int h = 1; h <= 3; h++) {
			ck_assert_int_eq(topo_hops(t, 0, h), h);
			ck_assert_msg(topo_core_rel(t, 0, h) == TOPO_REL_REMOTE, "case %zu", k);
			double c2c = topo_c2c_ns(t, 0, h), dram = topo_dram_ns(t, 0, h);
			ck_assert_msg(near(c2c, cases[k].c2c[h - 1]), "case %zu: c2c at %d hops %g, want %g",
				      k, h, c2c, cases[k].c2c[h - 1]);
			ck_assert_msg(near(dram, cases[k].dram[h - 1]),
				      "case %zu: DRAM at %d hops %g, want %g", k, h, dram,
				      cases[k].dram[h - 1]);
		}
		/* Symmetric, and the same from the other end of the line. */
		ck_assert_double_eq_tol(topo_c2c_ns(t, 3, 0), cases[k].c2c[2], NS_TOL);
		ck_assert_double_eq_tol(topo_dram_ns(t, 3, 1), cases[k].dram[1], NS_TOL);
		topo_free(t);
	}
}
END_TEST

START_TEST(test_hops_rank_distinct_remote_distances)
{
	/* 8s-tyan: SLIT 20 for every remote pair, so all are one hop. */
	struct topo *t = shared_ok("8s-tyan-s4881-opteron-865.xml");
	ck_assert_int_eq(t->max_hops, 1);
	for (int i = 0; i < t->nnodes; i++)
		for (int j = 0; j < t->nnodes; j++)
			ck_assert_int_eq(topo_hops(t, i, j), i != j);
	topo_free(t);

	/* SGI UV 2000: SLIT {10, 50, 65, 79} is three hop classes. */
	t = shared_ok("24s-sgi-uv2000-xeon-e5-4640.xml");
	ck_assert_int_eq(t->nnodes, 24);
	ck_assert_int_eq(t->max_hops, 3);
	int seen[4] = { 0 };
	for (int i = 0; i < t->nnodes; i++)
		for (int j = 0; j < t->nnodes; j++) {
			unsigned d = topo_distance(t, i, j);
			int want = d == 10 ? 0 : d == 50 ? 1 : d == 65 ? 2 : d == 79 ? 3 : -1;
			ck_assert_msg(want >= 0, "sgi distance[%d][%d] = %u", i, j, d);
			ck_assert_int_eq(topo_hops(t, i, j), want);
			seen[want]++;
		}
	ck_assert_msg(seen[1] && seen[2] && seen[3], "sgi hop classes %d/%d/%d", seen[1], seen[2],
		      seen[3]);
	ck_assert_int_eq(topo_hops(t, 0, 1), 1); /* paired nodes, distance 50 */
	topo_free(t);

	/* Corona EPYC: 16 between dies of a package, 32 across packages. */
	t = shared_ok("2s-corona-epyc-7401.xml");
	ck_assert_int_eq(t->max_hops, 2);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			ck_assert_int_eq(topo_hops(t, i, j), i == j ? 0 : i / 4 == j / 4 ? 1 : 2);
	topo_free(t);

	/* R740 SNC2: 11 between the clusters of a socket, 21 across. */
	t = shared_ok("2s-dell-r740-xeon-6230-snc2.xml");
	ck_assert_int_eq(t->max_hops, 2);
	for (int i = 0; i < t->nnodes; i++)
		for (int j = 0; j < t->nnodes; j++)
			if (i != j)
				ck_assert_int_eq(topo_hops(t, i, j),
						 topo_distance(t, i, j) == 11 ? 1 : 2);
	topo_free(t);
}
END_TEST

START_TEST(test_core_groups_follow_the_outermost_cache)
{
	static const struct {
		const char *xml;
		int groups, cores_per_group;
	} cases[] = {
		{ "2s-corona-epyc-7401.xml", 16, 3 },         /* L3 per CCX of 3 cores */
		{ "4s-dell-r910-xeon-e7-4870.xml", 4, 10 },   /* L3 per package */
		{ "4s-dell-c6145-opteron-6276.xml", 8, 8 },   /* L3 per die */
		{ "8s-tyan-s4881-opteron-865.xml", 16, 1 },   /* no L3: private L2 */
		{ "16s-ibm-x3950m2.xml", 16, 6 },             /* L3 per package */
		{ "1s-hp-elitebook-i7-1370p.xml", 1, 14 },    /* one L3 for all */
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct topo *t = shared_ok(cases[k].xml);
		ck_assert_msg(t->ngroups == cases[k].groups, "%s: %d groups, want %d", cases[k].xml,
			      t->ngroups, cases[k].groups);
		for (int c = 0; c < t->ncores; c++)
			ck_assert_msg(t->cores[c].group == c / cases[k].cores_per_group,
				      "%s: core %d in group %d", cases[k].xml, c, t->cores[c].group);
		topo_free(t);
	}
}
END_TEST

START_TEST(test_c2c_ns_prices_core_group_package_and_hops)
{
	/* Corona EPYC from hwloc, default figures.  Cores 0-2 share an L3,
	 * cores 0-5 a die (node 0), cores 0-23 a package; core 24 is on node 4,
	 * two hops away, priced at the one default figure plus half of it. */
	const struct topo_latency d = defaults();
	const double two_hops = d.c2c_hop_ns[0] * 1.5;
	const struct {
		int a, b;
		enum topo_rel rel;
		double ns;
	} corona[] = {
		{ 0, 0, TOPO_REL_CORE, d.c2c_core_ns },
		{ 0, 2, TOPO_REL_GROUP, d.c2c_group_ns },
		{ 2, 0, TOPO_REL_GROUP, d.c2c_group_ns },
		{ 0, 3, TOPO_REL_PACKAGE, d.c2c_package_ns },
		{ 0, 6, TOPO_REL_PACKAGE, d.c2c_package_ns },
		{ 5, 23, TOPO_REL_PACKAGE, d.c2c_package_ns },
		{ 0, 24, TOPO_REL_REMOTE, two_hops },
		{ 47, 0, TOPO_REL_REMOTE, two_hops },
	};
	struct topo *t = shared_ok("2s-corona-epyc-7401.xml");
	ck_assert_int_eq(t->cores[0].npus, 2);
	ck_assert_uint_eq(t->pus[t->cores[0].first_pu + 1].os_index, 48);
	for (size_t k = 0; k < sizeof(corona) / sizeof(corona[0]); k++) {
		int a = corona[k].a, b = corona[k].b;
		ck_assert_msg(topo_core_rel(t, a, b) == corona[k].rel, "corona cores %d,%d: rel %d", a,
			      b, (int)topo_core_rel(t, a, b));
		ck_assert_msg(near(topo_c2c_ns(t, a, b), corona[k].ns),
			      "corona cores %d,%d: %g ns, want %g", a, b, topo_c2c_ns(t, a, b),
			      corona[k].ns);
	}
	topo_free(t);

	/* numa4 (core 8n is on node n): its own figures, one and two hops. */
	t = load_ok("numa4");
	ck_assert_double_eq_tol(topo_c2c_ns(t, 3, 3), 5, NS_TOL);
	ck_assert_double_eq_tol(topo_c2c_ns(t, 0, 7), 48, NS_TOL);
	ck_assert_double_eq_tol(topo_c2c_ns(t, 0, 8), 130, NS_TOL);
	ck_assert_double_eq_tol(topo_c2c_ns(t, 0, 16), 130, NS_TOL);
	ck_assert_double_eq_tol(topo_c2c_ns(t, 0, 24), 195, NS_TOL);
	ck_assert_double_eq_tol(topo_c2c_ns(t, 8, 16), 195, NS_TOL);
	topo_free(t);

	/* IBM x3950: one NUMA node holds four packages; crossing a package
	 * inside a node still costs one hop. */
	t = shared_ok("16s-ibm-x3950m2.xml");
	ck_assert_int_eq(t->cores[0].node, t->cores[6].node);
	ck_assert_int_ne(t->cores[0].package, t->cores[6].package);
	ck_assert_int_eq(t->nodes[0].package, -1);
	ck_assert(topo_core_rel(t, 0, 6) == TOPO_REL_REMOTE);
	ck_assert_double_eq_tol(topo_c2c_ns(t, 0, 6), d.c2c_hop_ns[0], NS_TOL);
	ck_assert_double_eq_tol(topo_c2c_ns(t, 0, 95), d.c2c_hop_ns[0], NS_TOL);
	topo_free(t);
}
END_TEST

/* ---- Bad input ----------------------------------------------------------- */

START_TEST(test_missing_file_cannot_open)
{
	static const char *const path = "/nonexistent-schedlab-dir/machine.json";
	struct err e1 = { "" }, e2 = { "" }, e3 = { "" }, e4 = { "" };
	expect_failure(topo_load(path, &e1), &e1, "topo_load", path, ": cannot open", NULL);
	expect_failure(topo_load_json(path, &e2), &e2, "topo_load_json", path, ": cannot open",
		       NULL);
	expect_failure(topo_load_xml("/nonexistent-schedlab-dir/m.xml", &e3), &e3, "topo_load_xml",
		       "/nonexistent-schedlab-dir/m.xml: cannot open", NULL);
	/* A name with a dot is a file name, not a bundled name. */
	expect_failure(topo_load("no-such-machine.json", &e4), &e4, "relative",
		       "no-such-machine.json: cannot open", NULL);
}
END_TEST

START_TEST(test_unknown_name_is_neither_bundled_nor_a_file)
{
	struct err e = { "" };
	expect_failure(topo_load("nosuch", &e), &e, "nosuch",
		       "nosuch: not a bundled topology", "numa4", "\"host\"", NULL);
}
END_TEST

START_TEST(test_json_syntax_error_gives_line_and_column)
{
	/* The '@' is line 3, column 12: two spaces, "cores" (7), ':', ' '. */
	char *path = write_temp("{\n  \"packages\": 1,\n  \"cores\": @\n}\n");
	char *want = xasprintf("%s:3:12: JSON syntax error", path);
	struct err e = { "" };
	struct topo *t = topo_load(path, &e);
	unlink(path);
	expect_failure(t, &e, "file", want, "near '@", NULL);
	free(path);
	free(want);

	/* Input ends after the newline of line 2: line 3, column 1. */
	text_fails("{\n  \"packages\": 1,\n",
		   "bad.json:3:1: JSON syntax error: unexpected end of input", NULL);
	/* A missing value: the '}' is column 14. */
	text_fails("{\"packages\": }", "bad.json:1:14: JSON syntax error near '}'", NULL);
	/* Text after the document: the 'x' is line 2, column 14. */
	text_fails("{\"packages\": 1,\n \"cores\": 2} x", "bad.json:2:14: JSON syntax error near 'x'",
		   NULL);
	text_fails("", "bad.json:1:1: JSON syntax error", NULL);
}
END_TEST

START_TEST(test_unknown_key_names_its_json_path)
{
	text_fails("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 4, \"pacakges\": 2}",
		   "bad.json: $.pacakges: unknown key", "packages", NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 4,"
		   " \"latency\": {\"dram_ns\": {\"lcoal\": 80}}}",
		   "bad.json: $.latency.dram_ns.lcoal: unknown key (expected one of: local, hops, matrix)",
		   NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 4, \"latency\": {\"dram\": 80}}",
		   "bad.json: $.latency.dram: unknown key", NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 4, \"caches\": ["
		   "{\"level\": 1, \"size\": 32768}, {\"level\": 2, \"size\": 1, \"shared\": 2}]}",
		   "bad.json: $.caches[1].shared: unknown key", NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 4, \"cores\": 8}",
		   "bad.json: $.cores: key given twice", NULL);

	/* From a file, the message names the file. */
	char *path = write_temp("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 4,\n"
				" \"latency\": {\"os_ns\": {\"sycall\": 80}}}\n");
	char *want = xasprintf("%s: $.latency.os_ns.sycall: unknown key", path);
	struct err e = { "" };
	struct topo *t = topo_load(path, &e);
	unlink(path);
	expect_failure(t, &e, "file", want, NULL);
	free(path);
	free(want);
}
END_TEST

START_TEST(test_required_keys_must_be_present)
{
	text_fails("{}", "bad.json: $.packages: required key is missing", NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 1}", "bad.json: $.cores: required key is missing",
		   NULL);
	text_fails("{\"packages\": 2, \"numa_nodes\": 2, \"cores\": 4}",
		   "bad.json: $.distances: required key is missing", NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 4, \"caches\": [{\"level\": 1}]}",
		   "bad.json: $.caches[0].size: required key is missing", NULL);
	text_fails("[1, 2]", "bad.json: $: expected an object, got an array", NULL);
}
END_TEST

START_TEST(test_distance_matrix_must_be_square)
{
	text_fails("{\"packages\": 2, \"numa_nodes\": 2, \"cores\": 4, \"distances\": [[10, 20], [20]]}",
		   "bad.json: $.distances[1]: matrix is not square: row has 1 entries, expected 2",
		   NULL);
	text_fails("{\"packages\": 2, \"numa_nodes\": 2, \"cores\": 4, \"distances\": [[10, 20]]}",
		   "bad.json: $.distances: must be a 2x2 matrix", NULL);
	text_fails("{\"packages\": 2, \"numa_nodes\": 2, \"cores\": 4, \"distances\": [[10, 20], 20]}",
		   "bad.json: $.distances[1]: expected an array, got a number", NULL);
}
END_TEST

START_TEST(test_distance_diagonal_must_be_10)
{
	text_fails("{\"packages\": 3, \"numa_nodes\": 3, \"cores\": 3, \"distances\": "
		   "[[10, 20, 20], [20, 10, 20], [20, 20, 11]]}",
		   "bad.json: $.distances[2][2]: diagonal must be 10", "got 11", NULL);
	text_fails("{\"packages\": 3, \"numa_nodes\": 3, \"cores\": 3, \"distances\": "
		   "[[10, 10, 20], [20, 10, 20], [20, 20, 10]]}",
		   "bad.json: $.distances[0][1]: remote distance must be above 10", NULL);
	text_fails(PAIR("-20", ""), "bad.json: $.distances[0][1]: must be between 0 and 254", NULL);
	text_fails(PAIR("20.5", ""), "bad.json: $.distances[0][1]: expected an integer, got 20.5",
		   NULL);
}
END_TEST

START_TEST(test_latency_must_be_a_positive_number)
{
	text_fails(PAIR("20", ", \"latency\": {\"dram_ns\": {\"local\": -5}}"),
		   "bad.json: $.latency.dram_ns.local: must be a positive number, got -5", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"c2c_ns\": {\"group\": 0}}"),
		   "bad.json: $.latency.c2c_ns.group: must be a positive number, got 0", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"dram_ns\": {\"hops\": [150, 0]}}"),
		   "bad.json: $.latency.dram_ns.hops[1]: must be a positive number", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"cache_ns\": {\"L2\": -1.5}}"),
		   "bad.json: $.latency.cache_ns.L2: must be a positive number", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"cache_bw_gbs\": {\"L2\": 0}}"),
		   "bad.json: $.latency.cache_bw_gbs.L2: must be a positive number", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"cache_bw_gbs\": {\"L5\": 10}}"),
		   "bad.json: $.latency.cache_bw_gbs.L5", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"os_ns\": {\"context_switch\": 0}}"),
		   "bad.json: $.latency.os_ns.context_switch: must be a positive number", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"slit_scale\": -0.5}"),
		   "bad.json: $.latency.slit_scale: must be a positive number", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"bandwidth_gbs\": [50, 0]}"),
		   "bad.json: $.latency.bandwidth_gbs[1]: must be a positive number", NULL);
}
END_TEST

START_TEST(test_latency_lists_have_the_right_length)
{
	text_fails(PAIR("20", ", \"latency\": {\"c2c_ns\": {\"hops\": []}}"),
		   "bad.json: $.latency.c2c_ns.hops: must list 1 to 32 figures", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"bandwidth_gbs\": [50, 60, 70]}"),
		   "bad.json: $.latency.bandwidth_gbs: must give one figure per NUMA node (2), got 3",
		   NULL);
}
END_TEST

START_TEST(test_cores_must_divide_evenly)
{
	text_fails("{\"packages\": 3, \"numa_nodes\": 3, \"cores\": 8}",
		   "bad.json: $.cores: 8 cores do not divide evenly among 3 packages", NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 3, \"cores\": 8}",
		   "bad.json: $.cores: 8 cores do not divide evenly among 3 NUMA nodes", NULL);
	text_fails("{\"packages\": 2, \"numa_nodes\": 3, \"cores\": 6}",
		   "bad.json: $.numa_nodes: 3 NUMA nodes and 2 packages do not nest", NULL);
	text_fails("{\"packages\": 0, \"numa_nodes\": 1, \"cores\": 8}",
		   "bad.json: $.packages: must be between 1 and", NULL);
}
END_TEST

START_TEST(test_cache_sharing_must_divide_package_cores)
{
	text_fails("{\"packages\": 2, \"numa_nodes\": 2, \"cores\": 16, "
		   "\"distances\": [[10, 20], [20, 10]], " CACHES_8("256KiB", "3") "}",
		   "bad.json: $.caches[2].cores: a cache shared by 3 cores does not divide the 8 cores "
		   "of a package evenly", NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 12, \"caches\": ["
		   "{\"level\": 2, \"size\": \"1MiB\", \"cores\": 4}, "
		   "{\"level\": 3, \"size\": \"8MiB\", \"cores\": 6}]}",
		   "bad.json: $.caches: an L3 shared by 6 cores cannot contain whole L2 caches "
		   "shared by 4",
		   NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 4, \"caches\": ["
		   "{\"level\": 2, \"size\": \"1MiB\"}, {\"level\": 2, \"size\": \"2MiB\"}]}",
		   "bad.json: $.caches[1].level: L2 is described twice", NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 4, \"caches\": ["
		   "{\"level\": 5, \"size\": \"1MiB\"}]}",
		   "bad.json: $.caches[0].level: must be between 1 and 4", NULL);
}
END_TEST

START_TEST(test_wrong_type_names_what_was_expected)
{
	text_fails(PAIR("20", ", \"latency\": {\"mlp\": \"fast\"}"),
		   "bad.json: $.latency.mlp: expected a number, got a string", NULL);
	text_fails("{\"packages\": \"2\", \"numa_nodes\": 2, \"cores\": 4}",
		   "bad.json: $.packages: expected an integer, got a string", NULL);
	text_fails("{\"packages\": 1.5, \"numa_nodes\": 2, \"cores\": 4}",
		   "bad.json: $.packages: expected an integer, got 1.5", NULL);
	text_fails("{\"name\": 5, \"packages\": 1, \"numa_nodes\": 1, \"cores\": 4}",
		   "bad.json: $.name: expected a string, got a number", NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 4, \"caches\": {}}",
		   "bad.json: $.caches: expected an array, got an object", NULL);
	text_fails(PAIR("20", ", \"latency\": [1]"),
		   "bad.json: $.latency: expected an object, got an array", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"dram_ns\": {\"hops\": 150}}"),
		   "bad.json: $.latency.dram_ns.hops: expected an array, got a number", NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 4, \"node_memory\": \"16 parsecs\"}",
		   "bad.json: $.node_memory: unknown unit in size \"16 parsecs\"", NULL);
	text_fails("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 4, \"node_memory\": true}",
		   "bad.json: $.node_memory: expected a size", "got a boolean", NULL);
}
END_TEST

START_TEST(test_non_hwloc_xml_is_rejected_naming_the_file)
{
	static const char *const texts[] = {
		"<?xml version=\"1.0\"?>\n<html><body>not a topology</body></html>\n",
		"<topology but not really",
		("<?xml version=\"1.0\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
		 "<topology version=\"2.0\"></topology>\n"),
	};
	for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
		char *path = write_temp(texts[k]);
		struct err e = { "" };
		char *what = xasprintf("XML case %zu", k);
		struct topo *t = topo_load(path, &e);
		unlink(path);
		expect_failure(t, &e, what, path, "hwloc cannot load", NULL);
		free(path);
		free(what);
	}
	/* The same through a JSON reference to it. */
	char *path = write_temp(texts[0]);
	char *text = xasprintf("{\"hwloc_xml\": \"%s\"}", path);
	struct err e = { "" };
	struct topo *t = topo_load_json_text(text, "ref.json", &e);
	unlink(path);
	expect_failure(t, &e, "hwloc_xml", path, "hwloc cannot load", NULL);
	free(path);
	free(text);
}
END_TEST

START_TEST(test_hwloc_xml_with_bad_slit_is_rejected)
{
	/* 8s-tyan with distance[0][0] turned from 10 into 11 (same length, so
	 * hwloc still reads the file). */
	char *xml = shared_xml("8s-tyan-s4881-opteron-865.xml");
	FILE *f = fopen(xml, "r");
	ck_assert_msg(f != NULL, "%s: %s", xml, strerror(errno));
	static char text[1 << 17];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	ck_assert_msg(len < sizeof(text) - 1, "%s: larger than the test's buffer", xml);
	text[len] = '\0';
	char *at = strstr(text, "<u64values length=\"30\">10 20");
	ck_assert_msg(at != NULL, "%s: no distance values found", xml);
	at[strlen("<u64values length=\"30\">1")] = '1';
	char *path = write_temp(text);
	struct err e = { "" };
	struct topo *t = topo_load(path, &e);
	unlink(path);
	expect_failure(t, &e, "SLIT", path, "NUMA distance from node 0 to node 0 is 11", NULL);
	free(path);
	free(xml);
}
END_TEST

START_TEST(test_file_neither_json_nor_xml_is_rejected)
{
	static const char *const texts[] = { "packages = 4\n", "", "   \n\t" };
	for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
		char *path = write_temp(texts[k]);
		struct err e = { "" };
		struct topo *t = topo_load(path, &e);
		unlink(path);
		expect_failure(t, &e, texts[k], path, "neither schedlab JSON", NULL);
		free(path);
	}
	struct err e = { "" };
	expect_failure(topo_load_json("/tmp", &e), &e, "directory", "/tmp: cannot read", NULL);
}
END_TEST

START_TEST(test_too_many_distance_classes_are_rejected)
{
	/* 7 nodes, 42 remote pairs, all different: more hop classes than the
	 * model holds. */
	char buf[2048];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "{\"packages\": 7, \"numa_nodes\": 7, "
				    "\"cores\": 7, \"distances\": [");
	int v = 20;
	for (int i = 0; i < 7; i++) {
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s[", i ? ", " : "");
		for (int j = 0; j < 7; j++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%d", j ? ", " : "",
					      i == j ? 10 : v++);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "]");
	}
	snprintf(buf + n, sizeof(buf) - n, "]}");
	text_fails(buf, "bad.json: distance matrix has 42 distinct remote distances; at most 32", NULL);
}
END_TEST

/* ---- Regressions ---------------------------------------------------------- */

/* A JSON file whose "hwloc_xml" target is missing once got only
 * "XML: cannot open: ...", naming neither the JSON file nor $.hwloc_xml. */
START_TEST(test_regression_missing_hwloc_xml_target_names_json_file_and_path)
{
	char *json = write_temp("{\"hwloc_xml\": \"/nonexistent-schedlab-dir/m.xml\"}");
	struct err e = { "" };
	struct topo *t = topo_load(json, &e);
	unlink(json);
	expect_failure(t, &e, "hwloc_xml target", "/nonexistent-schedlab-dir/m.xml", "cannot open",
		       json, "$.hwloc_xml", NULL);
	free(json);
}
END_TEST

/* cJSON's error offset for a bad object key lies one character past the
 * offending one; jv_parse corrects it, so a trailing comma is reported at
 * the brace, not after it. */
START_TEST(test_regression_trailing_comma_is_reported_at_the_brace)
{
	text_fails("{\n  \"packages\": 1,\n}\n", "bad.json:3:1: JSON syntax error near '}", NULL);
	text_fails("{\"packages\": 1,}", "bad.json:1:16: JSON syntax error near '}'", NULL);
}
END_TEST

/* topo_load_json_text() once overwrote the source path of an "hwloc_xml"
 * machine without freeing it: a leak that AddressSanitizer (as CI runs it)
 * and the valgrind setup report. */
START_TEST(test_regression_json_text_with_hwloc_xml_loads_without_leaking)
{
	char *xml = shared_xml("8s-tyan-s4881-opteron-865.xml");
	char *text = xasprintf("{\"hwloc_xml\": \"%s\", \"latency\": {\"dram_ns\": {\"local\": 70}}}",
			       xml);
	struct topo *t = text_ok(text);
	ck_assert_int_eq(t->ncores, 16);
	ck_assert_double_eq_tol(topo_dram_ns(t, 0, 7), 105, NS_TOL);
	topo_free(t);
	free(text);
	free(xml);
}
END_TEST

/* ---- Calibration files: inline XML, cache sizes, DRAM matrix, provenance -- */

/* The calibration file of docs/topology.md on the R910's XML: every key. */
static char *calibration_text(void)
{
	char *path = shared_xml("4s-dell-r910-xeon-e7-4870.xml");
	char *xml = test_read_file(path);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", "r910-calibrated");
	cJSON_AddStringToObject(o, "hwloc_xml_inline", xml);
	cJSON *cs = cJSON_AddObjectToObject(o, "cache_sizes");
	cJSON_AddStringToObject(cs, "L3", "12MiB");
	cJSON *lat = cJSON_Parse(
		"{\"c2c_ns\": {\"hops\": [120]},"
		" \"dram_ns\": {\"local\": 92, \"matrix\": [[100, 101, 102, 103], [110, 111, 112, 113],"
		"  [120, 121, 122, 123], [130, 131, 132, 133]]},"
		" \"os_ns\": {\"wakeup\": {\"core\": 3000, \"group\": 40000, \"hops\": [60000]}}}");
	cJSON_AddItemToObject(o, "latency", lat);
	cJSON_AddItemToObject(o, "provenance", cJSON_Parse(
		"{\"os_ns.wakeup.group\": {\"kind\": \"measured\", \"p10\": 30100, \"p90\": 79000,"
		"   \"samples\": 400, \"method\": \"futex ping-pong, PUs 0 and 1\"},"
		" \"os_ns.wakeup\": {\"kind\": \"published\", \"source\": \"somebody's blog\"},"
		" \"dram_ns.matrix[0][1]\": {\"kind\": \"assumption\", \"note\": \"copied from [1][0]\"},"
		" \"cache_sizes.L3\": {\"kind\": \"measured\", \"p10\": 11e6, \"p90\": 13e6,"
		"   \"samples\": 9, \"method\": \"working-set sweep\"}}"));
	cJSON_AddItemToObject(o, "measurements", cJSON_Parse(
		"{\"chan_handoff_ns\": {\"median\": 410, \"p10\": 380, \"p90\": 600, \"samples\": 2000,"
		"   \"min\": 301, \"max\": 9000, \"mean\": 450, \"unit\": \"ns\","
		"   \"method\": \"unbuffered channel between two Gs\"},"
		" \"sleep_overshoot_ns\": {\"method\": \"nanosleep\", \"points\": ["
		"   {\"asked_ns\": 1000, \"median\": 56000, \"p10\": 52000, \"p90\": 70000},"
		"   {\"asked_ns\": 1000000, \"median\": 1057000}]}}"));
	char *text = cJSON_Print(o);
	cJSON_Delete(o);
	free(xml);
	free(path);
	return text;
}

static const struct topo_figure *figure_of(const struct topo *t, const char *path)
{
	const struct topo_figure *f = topo_find_figure(t, path);
	ck_assert_msg(f != NULL, "%s: no figure %s", t->name, path);
	return f;
}

static void assert_kind(const struct topo *t, const char *path, enum topo_fig_kind kind)
{
	const struct topo_figure *f = figure_of(t, path);
	ck_assert_msg(f->kind == kind, "%s: %s is %s, want %s", t->name, path,
		      topo_fig_kind_names[f->kind], topo_fig_kind_names[kind]);
}

START_TEST(test_calibration_file_loads_with_every_field)
{
	char *text = calibration_text();
	struct topo *t = text_ok(text);
	struct topo *x = shared_ok("4s-dell-r910-xeon-e7-4870.xml");
	struct err e = { "" };

	/* the structure is the XML's; the L3 size is the measured one */
	ck_assert_str_eq(t->name, "r910-calibrated");
	ck_assert_msg(topo_same_structure(t, x, &e), "%s", e.msg);
	ck_assert(!topo_same_machine(t, x, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "L3"));
	int l3 = 0;
	for (int i = 0; i < t->ncaches; i++)
		if (t->caches[i].level == 3) {
			ck_assert_uint_eq(t->caches[i].size, 12u << 20);
			l3++;
		}
	ck_assert_int_eq(l3, 4);
	/* the matrix prices every pair, whatever "local" and the SLIT say */
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 4; k++)
			ck_assert_double_eq_tol(topo_dram_ns(t, i, k), 100 + 10 * i + k, NS_TOL);
	ck_assert_double_eq_tol(topo_wakeup_ns(t, 0, 1), 40000, NS_TOL);
	ck_assert_double_eq_tol(topo_wakeup_ns(t, 0, 0), 3000, NS_TOL);

	/* where each figure comes from */
	ck_assert_int_eq(t->nprov, 4);
	const struct topo_figure *f = figure_of(t, "os_ns.wakeup.group");
	ck_assert_int_eq(f->kind, TOPO_FIG_MEASURED);
	ck_assert_double_eq_tol(f->value, 40000, NS_TOL);
	const struct topo_prov *p = &t->prov[f->prov];
	ck_assert_str_eq(p->path, "os_ns.wakeup.group");
	ck_assert_double_eq_tol(p->p10, 30100, NS_TOL);
	ck_assert_double_eq_tol(p->p90, 79000, NS_TOL);
	ck_assert_int_eq(p->samples, 400);
	ck_assert_str_eq(p->method, "futex ping-pong, PUs 0 and 1");
	/* a section's entry covers the figures under it that the file sets */
	f = figure_of(t, "os_ns.wakeup.core");
	ck_assert_int_eq(f->kind, TOPO_FIG_PUBLISHED);
	ck_assert_str_eq(t->prov[f->prov].source, "somebody's blog");
	assert_kind(t, "os_ns.wakeup.hops[0]", TOPO_FIG_PUBLISHED);
	assert_kind(t, "os_ns.wakeup.package", TOPO_FIG_DEFAULT);
	f = figure_of(t, "dram_ns.matrix[0][1]");
	ck_assert_int_eq(f->kind, TOPO_FIG_ASSUMPTION);
	ck_assert_str_eq(t->prov[f->prov].note, "copied from [1][0]");
	ck_assert_double_eq_tol(f->value, 101, NS_TOL);
	assert_kind(t, "dram_ns.matrix[1][0]", TOPO_FIG_GIVEN);
	assert_kind(t, "dram_ns.local", TOPO_FIG_GIVEN);
	ck_assert(!figure_of(t, "dram_ns.local")->applies);
	assert_kind(t, "c2c_ns.hops[0]", TOPO_FIG_GIVEN);
	f = figure_of(t, "cache_sizes.L3");
	ck_assert_int_eq(f->kind, TOPO_FIG_MEASURED);
	ck_assert_double_eq_tol(f->value, 12 << 20, NS_TOL);
	f = figure_of(t, "os_ns.syscall");
	ck_assert_int_eq(f->kind, TOPO_FIG_DEFAULT);
	ck_assert_ptr_nonnull(f->default_source);
	assert_kind(t, "bandwidth_gbs[3]", TOPO_FIG_DEFAULT);
	ck_assert_ptr_null(topo_find_figure(t, "cache_sizes.L2"));

	/* the measurements, kept as given */
	ck_assert_ptr_nonnull(t->measurements);
	cJSON *m = cJSON_GetObjectItem(t->measurements, "chan_handoff_ns");
	ck_assert_double_eq_tol(cJSON_GetObjectItem(m, "median")->valuedouble, 410, NS_TOL);
	m = cJSON_GetObjectItem(t->measurements, "sleep_overshoot_ns");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(m, "points")), 2);

	topo_free(t);
	topo_free(x);
	free(text);
}
END_TEST

/* Structural machines take cache sizes and provenance too; a hop past the
 * given list is derived, and provenance cannot claim it. */
START_TEST(test_provenance_on_a_structural_machine)
{
	const char *base = "{\"packages\": 3, \"numa_nodes\": 3, \"cores\": 3,"
			   " \"caches\": [{\"level\": 2, \"size\": \"1MiB\"}],"
			   " \"cache_sizes\": {\"L2\": \"512KiB\"},"
			   " \"distances\": [[10, 20, 30], [20, 10, 20], [30, 20, 10]],"
			   " \"latency\": {\"c2c_ns\": {\"hops\": [100]}, \"bandwidth_gbs\": 40}";
	char *text = xasprintf("%s, \"provenance\": {\"c2c_ns.hops\": {\"kind\": \"published\","
			       " \"source\": \"a paper\"}, \"bandwidth_gbs\": {\"kind\": \"assumption\","
			       " \"note\": \"a guess\", \"source\": \"DDR4 sockets\"}}}", base);
	struct topo *t = text_ok(text);
	ck_assert_uint_eq(t->caches[0].size, 512u << 10);
	ck_assert_int_eq(t->max_hops, 2);
	assert_kind(t, "c2c_ns.hops[0]", TOPO_FIG_PUBLISHED);
	assert_kind(t, "c2c_ns.hops[1]", TOPO_FIG_DERIVED);
	ck_assert_double_eq_tol(figure_of(t, "c2c_ns.hops[1]")->value, 150, NS_TOL);
	assert_kind(t, "cache_sizes.L2", TOPO_FIG_GIVEN);
	for (int i = 0; i < 3; i++) {
		char path[32];
		snprintf(path, sizeof(path), "bandwidth_gbs[%d]", i);
		assert_kind(t, path, TOPO_FIG_ASSUMPTION);
		ck_assert_str_eq(t->prov[figure_of(t, path)->prov].source, "DDR4 sockets");
	}
	assert_kind(t, "c2c_ns.group", TOPO_FIG_DEFAULT);
	ck_assert_ptr_null(t->measurements);
	topo_free(t);
	free(text);

	text = xasprintf("%s, \"provenance\": {\"c2c_ns.hops[1]\": {\"kind\": \"published\","
			 " \"source\": \"a paper\"}}}", base);
	text_fails(text, "bad.json: $.provenance[\"c2c_ns.hops[1]\"]: the file does not set "
		   "c2c_ns.hops[1]", NULL);
	free(text);
}
END_TEST

START_TEST(test_calibration_inline_xml_errors_name_the_path)
{
	text_fails("{\"hwloc_xml_inline\": 5}", "bad.json: $.hwloc_xml_inline: expected a string",
		   NULL);
	text_fails("{\"hwloc_xml_inline\": \"<topology><object type=\\\"Machine\\\">\"}",
		   "bad.json: $.hwloc_xml_inline: the XML: ", "hwloc", NULL);
	text_fails("{\"hwloc_xml\": \"a.xml\", \"hwloc_xml_inline\": \"<x/>\"}",
		   "bad.json: $.hwloc_xml_inline: cannot be combined with \"hwloc_xml\"", NULL);
	text_fails("{\"hwloc_xml_inline\": \"<x/>\", \"packages\": 1}",
		   "bad.json: $.packages: cannot be combined with \"hwloc_xml_inline\"", NULL);
}
END_TEST

/* A calibration file at path: this machine's XML from lstopo (or the file
 * at xml), an effective size for its outermost cache level, one OS figure
 * and its provenance. */
static void write_calibration(const char *path, const char *xml)
{
	char *text = NULL, *err = NULL;
	if (xml) {
		text = test_read_file(xml);
	} else {
		int rc = test_run("lstopo --of xml -", &text, &err);
		ck_assert_msg(rc == 0, "lstopo exited %d: %s", rc, err);
		free(err);
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "description", "calibrated by a test");
	cJSON_AddStringToObject(o, "hwloc_xml_inline", text);
	cJSON_AddItemToObject(o, "latency", cJSON_Parse("{\"os_ns\": {\"syscall\": 123}}"));
	cJSON_AddItemToObject(o, "provenance", cJSON_Parse(
		"{\"os_ns.syscall\": {\"kind\": \"measured\", \"p10\": 120, \"p90\": 130,"
		" \"samples\": 1000, \"method\": \"getppid\"}}"));
	char *json = cJSON_Print(o);
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fputs(json, f);
	fclose(f);
	cJSON_Delete(o);
	free(json);
	free(text);
}

START_TEST(test_host_uses_a_calibration_of_this_machine)
{
	char dir[] = "/tmp/schedlab-cal-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *path = xasprintf("%s/host.json", dir);
	write_calibration(path, NULL);

	setenv("SCHEDLAB_CALIBRATION", path, 1);
	struct topo *t = load_ok("host");
	setenv("SCHEDLAB_CALIBRATION", "off", 1);
	struct topo *live = load_ok("host");
	unlink(path);
	rmdir(dir);

	ck_assert_str_eq(t->name, "host");
	ck_assert_str_eq(t->source, "hwloc");
	ck_assert_str_eq(t->calibration, path);
	ck_assert_str_eq(t->description, "calibrated by a test");
	ck_assert_double_eq_tol(t->lat.syscall_ns, 123, NS_TOL);
	assert_kind(t, "os_ns.syscall", TOPO_FIG_MEASURED);
	struct err e = { "" };
	ck_assert_msg(topo_same_machine(t, live, &e), "%s", e.msg);
	/* off: hwloc's discovery with the default figures */
	ck_assert_ptr_null(live->calibration);
	ck_assert_double_eq_tol(live->lat.syscall_ns, defaults().syscall_ns, NS_TOL);
	assert_kind(live, "os_ns.syscall", TOPO_FIG_DEFAULT);
	topo_free(t);
	topo_free(live);
	free(path);
}
END_TEST

START_TEST(test_host_ignores_a_calibration_of_another_machine)
{
	char dir[] = "/tmp/schedlab-cal-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *path = xasprintf("%s/host.json", dir);
	char *xml = shared_xml("4s-dell-r910-xeon-e7-4870.xml");
	write_calibration(path, xml);
	setenv("SCHEDLAB_CALIBRATION", path, 1);
	struct topo *t = load_ok("host");
	setenv("SCHEDLAB_CALIBRATION", "off", 1);
	unlink(path);
	rmdir(dir);
	ck_assert_ptr_null(t->calibration);
	ck_assert_double_eq_tol(t->lat.syscall_ns, defaults().syscall_ns, NS_TOL);
	ck_assert_int_eq(t->nprov, 0);
	topo_free(t);
	free(xml);
	free(path);
}
END_TEST

START_TEST(test_host_calibration_that_cannot_be_read_is_an_error)
{
	char dir[] = "/tmp/schedlab-cal-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *path = xasprintf("%s/host.json", dir);
	setenv("SCHEDLAB_CALIBRATION", path, 1);
	struct err e = { "" };
	struct topo *t = topo_load("host", &e);
	expect_failure(t, &e, "missing calibration", path, "cannot open", "SCHEDLAB_CALIBRATION=off",
		       NULL);

	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 1, \"latency\": {\"os_ns\": {\"syscall\": -1}}}", f);
	fclose(f);
	e.msg[0] = '\0';
	t = topo_load("host", &e);
	setenv("SCHEDLAB_CALIBRATION", "off", 1);
	unlink(path);
	rmdir(dir);
	expect_failure(t, &e, "bad calibration", path, "$.latency.os_ns.syscall", NULL);
	free(path);
}
END_TEST

/* Without SCHEDLAB_CALIBRATION, the file at topo_calibration_path() if it
 * exists (XDG_CONFIG_HOME points at a temporary folder: $HOME is left alone). */
START_TEST(test_host_finds_the_calibration_at_the_default_path)
{
	char dir[] = "/tmp/schedlab-xdg-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	unsetenv("SCHEDLAB_CALIBRATION");
	setenv("XDG_CONFIG_HOME", dir, 1);
	char *sub = xasprintf("%s/schedlab", dir);
	char *path = xasprintf("%s/host.json", sub);
	char *found = topo_calibration_path();
	ck_assert_str_eq(found, path);
	struct topo *none = load_ok("host");
	ck_assert_ptr_null(none->calibration);

	ck_assert_int_eq(mkdir(sub, 0700), 0);
	write_calibration(path, NULL);
	struct topo *t = load_ok("host");
	setenv("SCHEDLAB_CALIBRATION", "off", 1);
	struct topo *off = load_ok("host");
	unlink(path);
	rmdir(sub);
	rmdir(dir);
	ck_assert_str_eq(t->calibration, path);
	ck_assert_double_eq_tol(t->lat.syscall_ns, 123, NS_TOL);
	ck_assert_ptr_null(off->calibration);
	topo_free(none);
	topo_free(t);
	topo_free(off);
	free(found);
	free(path);
	free(sub);
}
END_TEST

START_TEST(test_calibration_path_is_xdg_config_home_then_home)
{
	char *was = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	setenv("XDG_CONFIG_HOME", "/cfg", 1);
	setenv("HOME", "/home/u", 1);
	char *p = topo_calibration_path();
	ck_assert_str_eq(p, "/cfg/schedlab/host.json");
	free(p);
	/* a relative XDG_CONFIG_HOME is invalid (XDG base directory spec) */
	setenv("XDG_CONFIG_HOME", "cfg", 1);
	p = topo_calibration_path();
	ck_assert_str_eq(p, "/home/u/.config/schedlab/host.json");
	free(p);
	unsetenv("XDG_CONFIG_HOME");
	p = topo_calibration_path();
	ck_assert_str_eq(p, "/home/u/.config/schedlab/host.json");
	free(p);
	unsetenv("HOME");
	ck_assert_ptr_null(topo_calibration_path());
	if (was)
		setenv("HOME", was, 1);
	free(was);
}
END_TEST

#define ONE "{\"packages\": 1, \"numa_nodes\": 1, \"cores\": 2, " \
	"\"caches\": [{\"level\": 1, \"size\": \"32KiB\"}, {\"level\": 2, \"size\": \"1MiB\"}]"
#define TWO "{\"packages\": 2, \"numa_nodes\": 2, \"cores\": 2, \"distances\": [[10, 20], [20, 10]]"
#define MLP ", \"latency\": {\"mlp\": 8}, \"provenance\": {\"mlp\": "

START_TEST(test_calibration_errors_name_file_and_json_path)
{
	/* cache sizes */
	text_fails(ONE ", \"cache_sizes\": {\"L5\": 1}}", "bad.json: $.cache_sizes.L5: unknown key",
		   NULL);
	text_fails(ONE ", \"cache_sizes\": {\"L3\": \"8MiB\"}}",
		   "bad.json: $.cache_sizes.L3: the machine has no L3 cache", NULL);
	text_fails(ONE ", \"cache_sizes\": {\"L2\": 0}}",
		   "bad.json: $.cache_sizes.L2: must be between 1 and", NULL);
	text_fails(ONE ", \"cache_sizes\": {\"L2\": \"big\"}}", "bad.json: $.cache_sizes.L2", NULL);
	/* the DRAM matrix */
	text_fails(TWO ", \"latency\": {\"dram_ns\": {\"matrix\": [[1, 2], [3, 4], [5, 6]]}}}",
		   "bad.json: $.latency.dram_ns.matrix: must be a 2x2 matrix", NULL);
	text_fails(TWO ", \"latency\": {\"dram_ns\": {\"matrix\": [[1, 2], [3]]}}}",
		   "bad.json: $.latency.dram_ns.matrix[1]: matrix is not square", NULL);
	text_fails(TWO ", \"latency\": {\"dram_ns\": {\"matrix\": [[1, -2], [3, 4]]}}}",
		   "bad.json: $.latency.dram_ns.matrix[0][1]", NULL);
	text_fails(TWO ", \"latency\": {\"dram_ns\": {\"matrix\": 5}}}",
		   "bad.json: $.latency.dram_ns.matrix: expected an array", NULL);
	/* provenance */
	text_fails(ONE ", \"provenance\": 5}", "bad.json: $.provenance: expected an object", NULL);
	text_fails(ONE MLP "{\"kind\": \"guessed\"}}}",
		   "bad.json: $.provenance[\"mlp\"].kind: unknown kind \"guessed\"", NULL);
	text_fails(ONE MLP "{\"source\": \"x\"}}}",
		   "bad.json: $.provenance[\"mlp\"].kind: required key is missing", NULL);
	text_fails(ONE MLP "{\"kind\": \"measured\", \"p10\": 1, \"samples\": 3, \"method\": \"m\"}}}",
		   "bad.json: $.provenance[\"mlp\"].p90: required key is missing", NULL);
	text_fails(ONE MLP "{\"kind\": \"measured\", \"p10\": 1, \"p90\": 2, \"method\": \"m\"}}}",
		   "bad.json: $.provenance[\"mlp\"].samples: required key is missing", NULL);
	text_fails(ONE MLP "{\"kind\": \"measured\", \"p10\": 3, \"p90\": 2, \"samples\": 3, "
		   "\"method\": \"m\"}}}", "bad.json: $.provenance[\"mlp\"].p10: 3 is above p90", NULL);
	text_fails(ONE MLP "{\"kind\": \"measured\", \"p10\": 1, \"p90\": 2, \"samples\": 0, "
		   "\"method\": \"m\"}}}", "bad.json: $.provenance[\"mlp\"].samples", NULL);
	text_fails(ONE MLP "{\"kind\": \"published\"}}}",
		   "bad.json: $.provenance[\"mlp\"].source: required key is missing", NULL);
	text_fails(ONE MLP "{\"kind\": \"assumption\", \"source\": \"x\"}}}",
		   "bad.json: $.provenance[\"mlp\"].note: required key is missing", NULL);
	text_fails(ONE MLP "{\"kind\": \"published\", \"source\": \"x\", \"samples\": 3}}}",
		   "bad.json: $.provenance[\"mlp\"].samples: not a field of a published figure", NULL);
	text_fails(ONE MLP "{\"kind\": \"published\", \"source\": \"x\", \"confidence\": 1}}}",
		   "bad.json: $.provenance[\"mlp\"].confidence: unknown key", NULL);
	text_fails(ONE MLP "{\"kind\": \"published\", \"source\": 7}}}",
		   "bad.json: $.provenance[\"mlp\"].source: expected a string", NULL);
	text_fails(ONE MLP "{\"kind\": \"published\", \"source\": \"x\"}, \"mlp\": {\"kind\": "
		   "\"published\", \"source\": \"y\"}}}",
		   "bad.json: $.provenance[\"mlp\"]: key given twice", NULL);
	text_fails(ONE ", \"provenance\": {\"os_ns.nosuch\": {\"kind\": \"published\", "
		   "\"source\": \"x\"}}}", "bad.json: $.provenance[\"os_ns.nosuch\"]: no figure", NULL);
	text_fails(ONE ", \"provenance\": {\"c2c_ns.hops[0]\": {\"kind\": \"published\", "
		   "\"source\": \"x\"}}}", "bad.json: $.provenance[\"c2c_ns.hops[0]\"]: no figure", NULL);
	text_fails(ONE ", \"provenance\": {\"cache_sizes.L1\": {\"kind\": \"published\", "
		   "\"source\": \"x\"}}}", "bad.json: $.provenance[\"cache_sizes.L1\"]: no figure", NULL);
	text_fails(ONE ", \"provenance\": {\"os_ns.syscall\": {\"kind\": \"published\", "
		   "\"source\": \"x\"}}}",
		   "bad.json: $.provenance[\"os_ns.syscall\"]: the file does not set os_ns.syscall",
		   NULL);
	text_fails(ONE MLP "{\"kind\": \"published\", \"source\": \"x\"}}, \"provenance\": {}}",
		   "bad.json: $.provenance: key given twice", NULL);
	/* measurements */
	text_fails(ONE ", \"measurements\": []}", "bad.json: $.measurements: expected an object",
		   NULL);
	text_fails(ONE ", \"measurements\": {\"x\": {\"p10\": 1}}}",
		   "bad.json: $.measurements.x.median: required key is missing", NULL);
	text_fails(ONE ", \"measurements\": {\"x\": {\"median\": 5, \"p10\": 6}}}",
		   "bad.json: $.measurements.x.p10: 6 is above the median", NULL);
	text_fails(ONE ", \"measurements\": {\"x\": {\"median\": 5, \"p90\": 4}}}",
		   "bad.json: $.measurements.x.p90: 4 is below the median", NULL);
	text_fails(ONE ", \"measurements\": {\"x\": {\"median\": 5, \"max\": -1}}}",
		   "bad.json: $.measurements.x.max", NULL);
	text_fails(ONE ", \"measurements\": {\"x\": {\"median\": 5, \"color\": 4}}}",
		   "bad.json: $.measurements.x.color: unknown key", NULL);
	text_fails(ONE ", \"measurements\": {\"x\": {\"median\": 5, \"method\": 4}}}",
		   "bad.json: $.measurements.x.method: expected a string", NULL);
	text_fails(ONE ", \"measurements\": {\"x\": {\"points\": []}}}",
		   "bad.json: $.measurements.x.points: must hold at least one point", NULL);
	text_fails(ONE ", \"measurements\": {\"x\": {\"median\": 1, \"points\": [{\"median\": 1}]}}}",
		   "bad.json: $.measurements.x.median: goes in each of the points", NULL);
	text_fails(ONE ", \"measurements\": {\"x\": {\"points\": [{\"median\": 1}, "
		   "{\"asked\": \"1us\", \"median\": 3}]}}}",
		   "bad.json: $.measurements.x.points[1].asked: a point's parameter is a number", NULL);
	text_fails(ONE ", \"measurements\": {\"x\": {\"points\": [{\"asked\": 1}]}}}",
		   "bad.json: $.measurements.x.points[0].median: required key is missing", NULL);
	text_fails(ONE ", \"measurements\": {\"x\": {\"points\": [5]}}}",
		   "bad.json: $.measurements.x.points[0]: expected an object", NULL);
	text_fails(ONE ", \"measurements\": {\"x\": 5}}",
		   "bad.json: $.measurements.x: expected an object", NULL);
}
END_TEST
#undef ONE
#undef TWO
#undef MLP

/* Every figure a bundled file sets says where it comes from (published,
 * with its source, or an assumption, with why); the rest are defaults. */
START_TEST(test_bundled_machine_figures_all_have_provenance)
{
	const char *name = topo_bundled_name(_i);
	struct topo *t = load_ok(name);
	int sourced = 0;
	for (int i = 0; i < t->nfigures; i++) {
		const struct topo_figure *f = &t->figures[i];
		ck_assert_msg(f->kind != TOPO_FIG_GIVEN, "%s: %s has no provenance", name, f->path);
		if (f->kind == TOPO_FIG_PUBLISHED)
			ck_assert_ptr_nonnull(t->prov[f->prov].source);
		if (f->kind == TOPO_FIG_ASSUMPTION)
			ck_assert_ptr_nonnull(t->prov[f->prov].note);
		if (f->kind == TOPO_FIG_DEFAULT || f->kind == TOPO_FIG_DERIVED)
			ck_assert_msg(f->default_source && f->default_source[0], "%s: %s", name, f->path);
		else
			sourced++;
	}
	ck_assert_int_ge(sourced, 4);
	topo_free(t);
}
END_TEST

/* numa4's DRAM: local and 1 hop measured on a 4S Xeon E7-4800, which has
 * no 2-hop pair: the diagonal's figure is an assumption. */
START_TEST(test_numa4_two_hop_figures_are_assumptions)
{
	struct topo *t = load_ok("numa4");
	assert_kind(t, "dram_ns.local", TOPO_FIG_PUBLISHED);
	assert_kind(t, "dram_ns.hops[0]", TOPO_FIG_PUBLISHED);
	assert_kind(t, "dram_ns.hops[1]", TOPO_FIG_ASSUMPTION);
	assert_kind(t, "c2c_ns.hops[1]", TOPO_FIG_ASSUMPTION);
	ck_assert_ptr_nonnull(strstr(t->prov[figure_of(t, "dram_ns.local")->prov].source,
				     "E7-4800"));
	topo_free(t);
}
END_TEST

/* ---- The suite ----------------------------------------------------------- */

/* ---- The figure list (topologies/topo_figlist.h) ---- */

/* {"a": {"b": value}} for path "a.b". */
static cJSON *nested(const char *path, cJSON *value)
{
	const char *dot = strrchr(path, '.');
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, dot ? dot + 1 : path, value);
	if (!dot)
		return o;
	char *parent = xasprintf("%.*s", (int)(dot - path), path);
	cJSON *up = nested(parent, o);
	free(parent);
	return up;
}

/* A two-node machine with spec s set to v where a file gives it; the JSON
 * path of the number in jpath. */
static char *machine_with(const struct topo_fig_spec *s, double v, char *jpath, size_t n)
{
	cJSON *doc = cJSON_Parse(PAIR("20", ""));
	cJSON *fig;
	const char *suffix = "";
	switch (s->shape) {
	case TOPO_SHAPE_HOPS:
		fig = cJSON_CreateDoubleArray(&v, 1);
		suffix = "[0]";
		break;
	case TOPO_SHAPE_MATRIX: {
		double row0[] = { v, 150 }, row1[] = { 150, 100 };
		fig = cJSON_CreateArray();
		cJSON_AddItemToArray(fig, cJSON_CreateDoubleArray(row0, 2));
		cJSON_AddItemToArray(fig, cJSON_CreateDoubleArray(row1, 2));
		suffix = "[0][0]";
		break;
	}
	default:
		fig = cJSON_CreateNumber(v);
		break;
	}
	bool root = s->shape == TOPO_SHAPE_SIZE;
	cJSON *lat = nested(s->path, fig);
	if (root) {
		cJSON_AddItemToObject(doc, "cache_sizes", cJSON_DetachItemFromObject(lat, "cache_sizes"));
		cJSON_Delete(lat);
	} else {
		cJSON_AddItemToObject(doc, "latency", lat);
	}
	snprintf(jpath, n, "$.%s%s%s", root ? "" : "latency.", s->path, suffix);
	char *text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	return text;
}

/* Every figure of the list, read from a file, is refused past either of
 * its bounds, with a message naming the file, its JSON path and the
 * range. */
START_TEST(test_figure_out_of_bounds_is_refused_naming_its_path)
{
	const struct topo_fig_spec *s = &topo_fig_specs[_i];
	double outside[] = { s->hi * 2, s->lo / 2 };
	for (int k = 0; k < (s->lo > 0 ? 2 : 1); k++) {
		char jpath[128], want[256];
		char *text = machine_with(s, outside[k], jpath, sizeof(jpath));
		snprintf(want, sizeof(want), "bad.json: %s: %g is out of bounds: %s takes %g to %g",
			 jpath, outside[k], s->doc, s->lo, s->hi);
		text_fails(text, want, NULL);
		free(text);
		/* and a figure within them loads */
		text = machine_with(s, s->shape == TOPO_SHAPE_SIZE ? 32768 : s->lo, jpath,
				    sizeof(jpath));
		struct err e = { "" };
		struct topo *t = topo_load_json_text(text, "ok.json", &e);
		ck_assert_msg(t || strstr(e.msg, "no L"), "%s: %s", s->path, e.msg);
		topo_free(t);
		free(text);
	}
}
END_TEST

START_TEST(test_absurd_figures_are_refused)
{
	text_fails(PAIR("20", ", \"latency\": {\"os_ns\": {\"syscall\": 1e300}}"),
		   "bad.json: $.latency.os_ns.syscall: 1e+300 is out of bounds: a trivial system "
		   "call takes 1 to 1e+07 ns", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"dram_ns\": {\"local\": 0.001}}"),
		   "bad.json: $.latency.dram_ns.local: 0.001 is out of bounds", "1 to 100000 ns", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"os_ns\": {\"wakeup\": 1e12}}"),
		   "bad.json: $.latency.os_ns.wakeup: 1e+12 is out of bounds", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"bandwidth_gbs\": [50, 1e9]}"),
		   "bad.json: $.latency.bandwidth_gbs[1]: 1e+09 is out of bounds", "GB/s", NULL);
	text_fails(PAIR("20", ", \"latency\": {\"mlp\": 1e6}"),
		   "bad.json: $.latency.mlp: 1e+06 is out of bounds: the lines a sequential stream "
		   "keeps in flight takes 0.1 to 1000", NULL);
	/* a cost that may be nothing still is not negative */
	text_fails(PAIR("20", ", \"latency\": {\"runtime_ns\": {\"g_exit\": -1}}"),
		   "bad.json: $.latency.runtime_ns.g_exit: must be a number >= 0", NULL);
}
END_TEST

/* The model's defaults are within the bounds: a file that writes them
 * back loads. */
START_TEST(test_defaults_are_within_the_bounds)
{
	struct topo_latency d;
	topo__latency_defaults(&d);
	for (int i = 0; i < topo_nfig_specs; i++) {
		const struct topo_fig_spec *s = &topo_fig_specs[i];
		ck_assert_msg(s->lo >= 0 && s->lo < s->hi, "%s: bounds %g, %g", s->path, s->lo, s->hi);
		ck_assert_msg(s->doc && s->doc[0] && s->unit, "%s: no doc phrase or unit", s->path);
		if (s->shape == TOPO_SHAPE_MATRIX || s->shape == TOPO_SHAPE_SIZE)
			continue;
		double v = *topo_fig_value(&d, s);
		if (s->shape == TOPO_SHAPE_HOPS && *(int *)((char *)&d + s->count_off) == 0)
			continue;  /* dram_ns.hops: none by default, the SLIT rule */
		ck_assert_msg(v >= s->lo && v <= s->hi, "%s: default %g outside %g to %g", s->path, v,
			      s->lo, s->hi);
	}
}
END_TEST

/* docs/topology.md's table of bounds says what the list says: a row per
 * figure ("cache_ns.L1..L4" for a level's four). */
START_TEST(test_docs_bounds_table_agrees_with_the_list)
{
	const char *root = getenv("SCHEDLAB_SOURCE_ROOT");
	char *path = xasprintf("%s/docs/topology.md", root && *root ? root : ".");
	char *doc = test_read_file(path);
	for (int i = 0; i < topo_nfig_specs; i++) {
		const struct topo_fig_spec *s = &topo_fig_specs[i];
		size_t n = strlen(s->path);
		bool level = n > 3 && s->path[n - 3] == '.' && s->path[n - 2] == 'L';
		char *row = xasprintf("| `%.*s%s` | %g | %g | %s |", (int)(level ? n - 1 : n), s->path,
				      level ? "1..L4" : "", s->lo, s->hi, s->unit);
		ck_assert_msg(strstr(doc, row), "%s has no row %s", path, row);
		free(row);
	}
	free(doc);
	free(path);
}
END_TEST

/* A machine whose latency object is what `topo --json` writes for t
 * (topo_to_json's "latency" is topo_latency_json's, whole). */
static struct topo *written_back(const struct topo *t, const char *structure)
{
	cJSON *doc = cJSON_Parse(structure);
	ck_assert_ptr_nonnull(doc);
	cJSON_DeleteItemFromObject(doc, "latency");
	cJSON_DeleteItemFromObject(doc, "provenance");
	cJSON_DeleteItemFromObject(doc, "measurements");
	cJSON_AddItemToObject(doc, "latency", topo_latency_json(t));
	char *text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	struct err e = { "" };
	struct topo *back = topo_load_json_text(text, "written.json", &e);
	ck_assert_msg(back, "%s: %s", t->name, e.msg);
	free(text);
	return back;
}

/* The list, the writer and the parser agree: every figure of a machine
 * round-trips through `topo --json`'s latency object and the loader, and
 * every figure of the list is in the listing of a machine that has it. */
static void check_round_trip(const struct topo *t, const char *structure)
{
	struct topo *back = written_back(t, structure);
	ck_assert_int_eq(back->nfigures, t->nfigures);
	for (int i = 0; i < t->nfigures; i++) {
		const struct topo_figure *a = &t->figures[i], *b = &back->figures[i];
		ck_assert_str_eq(a->path, b->path);
		ck_assert_msg(a->value == b->value && a->applies == b->applies,
			      "%s: %s is %g (applies %d) written back, %g (%d) before", t->name,
			      a->path, b->value, b->applies, a->value, a->applies);
	}
	cJSON *x = topo_latency_json(t), *y = topo_latency_json(back);
	ck_assert_msg(cJSON_Compare(x, y, true), "%s: latency objects differ", t->name);
	cJSON_Delete(x);
	cJSON_Delete(y);
	for (int i = 0; i < topo_nfig_specs; i++) {
		const struct topo_fig_spec *s = &topo_fig_specs[i];
		char path[64];
		snprintf(path, sizeof(path), "%s%s", s->path,
			 s->shape == TOPO_SHAPE_HOPS ? "[0]" : s->shape == TOPO_SHAPE_NODES ? "[0]"
			 : s->shape == TOPO_SHAPE_MATRIX ? "[0][0]" : "");
		bool has = s->shape == TOPO_SHAPE_SIZE || s->shape == TOPO_SHAPE_MATRIX ||
			   (s->shape == TOPO_SHAPE_HOPS && !t->max_hops) ||
			   strcmp(s->path, "dram_ns.hops") == 0;
		ck_assert_msg(has || topo_find_figure(back, path), "%s: %s is not listed", t->name,
			      path);
	}
	topo_free(back);
}

START_TEST(test_bundled_figures_round_trip_through_topo_json)
{
	const char *name = topo_bundled_name(_i);
	struct err e = { "" };
	struct topo *t = topo_load(name, &e);
	ck_assert_msg(t, "%s", e.msg);
	check_round_trip(t, topo_bundled_json(name));
	topo_free(t);
}
END_TEST

START_TEST(test_xml_figures_round_trip_through_topo_json)
{
	char *path = shared_xml(xml_files[_i]);
	struct err e = { "" };
	struct topo *t = topo_load(path, &e);
	ck_assert_msg(t, "%s", e.msg);
	char *structure = xasprintf("{\"hwloc_xml\": \"%s\"}", path);
	check_round_trip(t, structure);
	free(structure);
	topo_free(t);
	free(path);
}
END_TEST

/* A machine that sets every figure the list has, a DRAM matrix and hop
 * lists included, written back and read again. */
START_TEST(test_every_figure_set_round_trips)
{
	const char *text =
		"{\"packages\": 2, \"numa_nodes\": 2, \"cores\": 8, \"pus_per_core\": 2,"
		" \"caches\": [{\"level\": 1, \"size\": \"32KiB\"}, {\"level\": 2, \"size\": \"1MiB\"},"
		" {\"level\": 3, \"size\": \"8MiB\", \"cores\": 2}],"
		" \"distances\": [[10, 21], [21, 10]],"
		" \"latency\": {\"cache_ns\": {\"L1\": 1.5, \"L2\": 5, \"L3\": 20},"
		" \"cache_bw_gbs\": {\"L1\": 100, \"L2\": 80, \"L3\": 40},"
		" \"c2c_ns\": {\"core\": 7, \"group\": 44, \"package\": 99, \"hops\": [140]},"
		" \"dram_ns\": {\"local\": 95, \"hops\": [150], \"matrix\": [[95, 150], [151, 96]]},"
		" \"slit_scale\": 0.7, \"bandwidth_gbs\": [40, 41], \"mlp\": 12,"
		" \"os_ns\": {\"syscall\": 120, \"futex_wait\": 600, \"futex_wake\": 800,"
		" \"wakeup\": {\"core\": 3000, \"group\": 5000, \"package\": 6000, \"hops\": [9000]},"
		" \"timer_slack\": 0, \"thread_create\": 12000, \"context_switch\": 1100,"
		" \"g_switch\": 40, \"pause\": 12},"
		" \"runtime_ns\": {\"g_create\": 0, \"g_exit\": 30, \"stack_acquire\": 900}}}";
	struct topo *t = text_ok(text);
	check_round_trip(t, text);
	ck_assert_double_eq(topo_find_figure(t, "dram_ns.matrix[1][0]")->value, 151);
	ck_assert_double_eq(topo_find_figure(t, "os_ns.wakeup.hops[0]")->value, 9000);
	ck_assert_double_eq(topo_find_figure(t, "os_ns.timer_slack")->value, 0);
	topo_free(t);
}
END_TEST

Suite *make_topology_suite(void)
{
	Suite *s = suite_create("topologies");
	TCase *tc;

	list_xml_files();

	tc = tcase_create("bundled");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, test_bundled_names_are_sorted_and_include_numa1_2_4_8);
	tcase_add_loop_test(tc, test_bundled_machine_loads_with_sane_counts, 0, topo_bundled_count());
	tcase_add_loop_test(tc, test_bundled_machine_figures_all_have_provenance, 0,
			    topo_bundled_count());
	tcase_add_test(tc, test_numa4_two_hop_figures_are_assumptions);
	tcase_add_test(tc, test_numa4_hop_matrix_is_a_square);
	tcase_add_test(tc, test_numa4_dram_is_135_local_198_one_hop_261_two_hops);
	tcase_add_test(tc, test_numa8_hops_are_cube_edges);
	suite_add_tcase(s, tc);

	tc = tcase_create("hwloc_xml");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, test_shared_dir_has_hwloc_xml_files);
	tcase_add_loop_test(tc, test_xml_counts_match_hwloc_calc, 0, n_xml_files);
	suite_add_tcase(s, tc);

	tc = tcase_create("json_vs_hwloc");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_loop_test(tc, test_json_twin_is_same_machine_as_hwloc_xml, 0, N_TWINS);
	tcase_add_test(tc, test_json_cores_are_numbered_package_major);
	tcase_add_test(tc, test_same_machine_is_reflexive_for_bundled_text);
	tcase_add_test(tc, test_same_machine_says_numa4_is_not_numa2);
	tcase_add_test(tc, test_same_machine_names_the_first_difference);
	suite_add_tcase(s, tc);

	tc = tcase_create("host");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, test_host_is_same_machine_as_its_lstopo_xml_export);
	suite_add_tcase(s, tc);

	tc = tcase_create("json_hwloc_ref");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, test_json_hwloc_xml_applies_latency_override);
	tcase_add_test(tc, test_json_hwloc_xml_relative_path_is_relative_to_the_json_file);
	tcase_add_test(tc, test_json_hwloc_xml_rejects_structural_keys);
	suite_add_tcase(s, tc);

	tc = tcase_create("figure_list");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_loop_test(tc, test_figure_out_of_bounds_is_refused_naming_its_path, 0,
			    topo_nfig_specs);
	tcase_add_test(tc, test_absurd_figures_are_refused);
	tcase_add_test(tc, test_defaults_are_within_the_bounds);
	tcase_add_test(tc, test_docs_bounds_table_agrees_with_the_list);
	tcase_add_loop_test(tc, test_bundled_figures_round_trip_through_topo_json, 0,
			    topo_bundled_count());
	tcase_add_loop_test(tc, test_xml_figures_round_trip_through_topo_json, 0, n_xml_files);
	tcase_add_test(tc, test_every_figure_set_round_trips);
	suite_add_tcase(s, tc);

	tc = tcase_create("latency");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, test_slit_rule_prices_distance_20_at_1_5x_local);
	tcase_add_test(tc, test_hop_lists_extend_to_the_machine_hop_count);
	tcase_add_test(tc, test_hops_rank_distinct_remote_distances);
	tcase_add_test(tc, test_core_groups_follow_the_outermost_cache);
	tcase_add_test(tc, test_c2c_ns_prices_core_group_package_and_hops);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad_input");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, test_missing_file_cannot_open);
	tcase_add_test(tc, test_unknown_name_is_neither_bundled_nor_a_file);
	tcase_add_test(tc, test_json_syntax_error_gives_line_and_column);
	tcase_add_test(tc, test_unknown_key_names_its_json_path);
	tcase_add_test(tc, test_required_keys_must_be_present);
	tcase_add_test(tc, test_distance_matrix_must_be_square);
	tcase_add_test(tc, test_distance_diagonal_must_be_10);
	tcase_add_test(tc, test_latency_must_be_a_positive_number);
	tcase_add_test(tc, test_latency_lists_have_the_right_length);
	tcase_add_test(tc, test_cores_must_divide_evenly);
	tcase_add_test(tc, test_cache_sharing_must_divide_package_cores);
	tcase_add_test(tc, test_wrong_type_names_what_was_expected);
	tcase_add_test(tc, test_non_hwloc_xml_is_rejected_naming_the_file);
	tcase_add_test(tc, test_hwloc_xml_with_bad_slit_is_rejected);
	tcase_add_test(tc, test_file_neither_json_nor_xml_is_rejected);
	tcase_add_test(tc, test_too_many_distance_classes_are_rejected);
	suite_add_tcase(s, tc);

	tc = tcase_create("calibration");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, test_calibration_file_loads_with_every_field);
	tcase_add_test(tc, test_provenance_on_a_structural_machine);
	tcase_add_test(tc, test_calibration_inline_xml_errors_name_the_path);
	tcase_add_test(tc, test_calibration_errors_name_file_and_json_path);
	tcase_add_test(tc, test_calibration_path_is_xdg_config_home_then_home);
	suite_add_tcase(s, tc);

	/* -t host with a calibration: lstopo exports this machine */
	tc = tcase_create("host_calibration");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, test_host_uses_a_calibration_of_this_machine);
	tcase_add_test(tc, test_host_ignores_a_calibration_of_another_machine);
	tcase_add_test(tc, test_host_calibration_that_cannot_be_read_is_an_error);
	tcase_add_test(tc, test_host_finds_the_calibration_at_the_default_path);
	suite_add_tcase(s, tc);

	/* Regressions: each of these once failed. */
	tc = tcase_create("regressions");
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_add_test(tc, test_regression_missing_hwloc_xml_target_names_json_file_and_path);
	tcase_add_test(tc, test_regression_trailing_comma_is_reported_at_the_brace);
	tcase_add_test(tc, test_regression_json_text_with_hwloc_xml_loads_without_leaking);
	suite_add_tcase(s, tc);

	return s;
}
