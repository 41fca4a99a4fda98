/* Topology loader: hwloc, from the live machine ("host") or an XML file
 * written by `lstopo --of xml`.  hwloc's logical order is kept, so core i
 * here is hwloc's Core L#i and node i its NUMANode L#i.
 *
 * XML is read in two steps, because libhwloc's own XML parser (Debian's
 * hwloc is built without libxml2, so it is hwloc's minimal parser whatever
 * HWLOC_LIBXML_IMPORT says) crashes on some malformed files: a forked child
 * (one job of the child-process pool, util/pool.h, watched for its CPU
 * time and memory) parses the file and writes hwloc's own export of it
 * back through the pool's pipe; a crash there is the file's fault,
 * reported as bad input.  This process
 * then loads only that export, which hwloc wrote itself, and converts it
 * here -- so the conversion below stays in the process that fuzzing and
 * the sanitizers watch, and the file's bytes never reach hwloc's parser
 * in the process that would die with it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <hwloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_VALGRIND_H
#include <valgrind/valgrind.h>
#endif

#include "topologies/topo.h"
#include "util/pool.h"

struct topo *topo__load_xml_raw(const char *path, struct err *e);

/* Objects of a type, or -1 with a message when hwloc has them at several
 * depths of its tree (possible in XML: "l2:2 group:2 pack:1 l2:1 ..."),
 * which the model -- one instance per level per core -- cannot express. */
static int count_type(hwloc_topology_t h, hwloc_obj_type_t type, const char *label,
		      struct err *e)
{
	int n = hwloc_get_nbobjs_by_type(h, type);
	if (n < 0) {
		const char *name = hwloc_obj_type_string(type);
		err_set(e, "%s: the topology has %s objects at several depths of its tree; schedlab "
			"models each kind of object at one depth", label, name);
	}
	return n;
}

static bool read_caches(hwloc_topology_t h, struct topo *t, hwloc_obj_t *core_objs,
			const char *label, struct err *e)
{
	static const hwloc_obj_type_t types[TOPO_MAX_LEVEL + 1] = {
		0, HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
	};
	int total = 0;
	for (int l = 1; l <= TOPO_MAX_LEVEL; l++) {
		int n = count_type(h, types[l], label, e);
		if (n < 0)
			return false;
		total += n;
	}
	t->caches = xcalloc((size_t)(total ? total : 1), sizeof(*t->caches));
	for (int c = 0; c < t->ncores; c++)
		for (int l = 0; l <= TOPO_MAX_LEVEL; l++)
			t->cores[c].cache[l] = -1;

	int k = 0;
	for (int l = 1; l <= TOPO_MAX_LEVEL; l++) {
		int n = hwloc_get_nbobjs_by_type(h, types[l]);
		for (int i = 0; i < n; i++) {
			hwloc_obj_t o = hwloc_get_obj_by_type(h, types[l], (unsigned)i);
			if (o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
				continue;
			struct topo_cache *cache = &t->caches[k];
			cache->level = l;
			cache->size = o->attr->cache.size;
			cache->line = o->attr->cache.linesize ? o->attr->cache.linesize : 64;
			cache->first_core = -1;
			for (int c = 0; c < t->ncores; c++) {
				if (!hwloc_bitmap_isincluded(core_objs[c]->cpuset, o->cpuset))
					continue;
				if (cache->first_core < 0)
					cache->first_core = c;
				cache->ncores++;
				t->cores[c].cache[l] = k;
			}
			if (cache->ncores > 0)
				k++;
		}
	}
	t->ncaches = k;
	return true;
}

static bool read_distances(hwloc_topology_t h, struct topo *t, const char *label,
			   struct err *e)
{
	int n = t->nnodes;
	t->distance = xcalloc((size_t)n * (size_t)n, sizeof(unsigned));
	/* Without a SLIT, Linux assumes 20 for every remote pair
	 * (REMOTE_DISTANCE); do the same. */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			t->distance[i * n + j] = i == j ? 10 : 20;
	if (n == 1)
		return true;

	unsigned nr = 1;
	struct hwloc_distances_s *d = NULL;
	if (hwloc_distances_get_by_type(h, HWLOC_OBJ_NUMANODE, &nr, &d,
					HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 || nr == 0)
		return true;
	bool ok = true;
	for (unsigned i = 0; i < d->nbobjs && ok; i++)
		for (unsigned j = 0; j < d->nbobjs && ok; j++) {
			unsigned a = d->objs[i]->logical_index, b = d->objs[j]->logical_index;
			hwloc_uint64_t v = d->values[i * d->nbobjs + j];
			if (a >= (unsigned)n || b >= (unsigned)n)
				continue;
			if ((a == b && v != 10) || (a != b && (v <= 10 || v > 254))) {
				err_set(e, "%s: NUMA distance from node %u to node %u is %llu; a SLIT matrix has 10 "
					"on its diagonal and 11-254 elsewhere", label, a, b,
					(unsigned long long)v);
				ok = false;
			}
			t->distance[a * (unsigned)n + b] = (unsigned)v;
		}
	hwloc_distances_release(h, d);
	return ok;
}

static struct topo *from_hwloc(hwloc_topology_t h, const char *label, struct err *e)
{
	struct topo *t = topo__new();
	int ncores = count_type(h, HWLOC_OBJ_CORE, label, e);
	int npus = count_type(h, HWLOC_OBJ_PU, label, e);
	int npkg = count_type(h, HWLOC_OBJ_PACKAGE, label, e);
	int nnodes = count_type(h, HWLOC_OBJ_NUMANODE, label, e);
	if (ncores < 0 || npus < 0 || npkg < 0 || nnodes < 0)
		goto fail;
	/* Some files have PUs without Core objects: each PU is then a core. */
	hwloc_obj_type_t core_type = ncores > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
	if (ncores == 0)
		ncores = npus;
	if (ncores <= 0 || npus <= 0) {
		err_set(e, "%s: hwloc found no processing units", label);
		goto fail;
	}
	t->ncores = ncores;
	t->npus = npus;
	t->npackages = npkg > 0 ? npkg : 1;
	t->nnodes = nnodes > 0 ? nnodes : 1;
	t->cores = xcalloc((size_t)ncores, sizeof(*t->cores));
	t->pus = xcalloc((size_t)npus, sizeof(*t->pus));
	t->nodes = xcalloc((size_t)t->nnodes, sizeof(*t->nodes));

	hwloc_obj_t *core_objs = xcalloc((size_t)ncores, sizeof(*core_objs));
	for (int c = 0; c < ncores; c++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(h, core_type, (unsigned)c);
		core_objs[c] = o;
		struct topo_core *core = &t->cores[c];
		hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_PACKAGE, o);
		core->package = pkg ? (int)pkg->logical_index : 0;
		core->node = 0;
		for (int i = 0; i < nnodes; i++) {
			hwloc_obj_t nd = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
			if (hwloc_bitmap_isincluded(o->cpuset, nd->cpuset)) {
				core->node = i;
				break;
			}
		}
		core->first_pu = -1;
	}
	for (int p = 0; p < npus; p++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, (unsigned)p);
		hwloc_obj_t core = core_type == HWLOC_OBJ_PU ? o
			: hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, o);
		int c = core ? (int)core->logical_index : 0;
		t->pus[p].core = c;
		t->pus[p].os_index = o->os_index;
		if (t->cores[c].first_pu < 0)
			t->cores[c].first_pu = p;
		t->cores[c].npus++;
	}
	for (int i = 0; i < nnodes; i++) {
		hwloc_obj_t nd = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
		t->nodes[i].memory = nd->attr->numanode.local_memory;
		t->nodes[i].os_index = nd->os_index;
	}
	bool ok = read_caches(h, t, core_objs, label, e);
	free(core_objs);
	if (!ok || !read_distances(h, t, label, e))
		goto fail;
	return t;
fail:
	topo_free(t);
	return NULL;
}

static hwloc_topology_t open_hwloc(void)
{
	hwloc_topology_t h;
	if (hwloc_topology_init(&h) != 0)
		return NULL;
	hwloc_topology_set_cache_types_filter(h, HWLOC_TYPE_FILTER_KEEP_ALL);
	hwloc_topology_set_io_types_filter(h, HWLOC_TYPE_FILTER_KEEP_NONE);
	return h;
}

/* ---- XML, parsed in a child first ---- */

/* What the child may use.  Some malformed files send hwloc into a loop
 * that allocates without end (a gigabyte every few seconds): the parent
 * watches the child's CPU time and resident memory and stops it past
 * these, which no real file comes near (hwloc reads the 24-socket UV 2000
 * file in 20 ms and 10 MiB).  CPU time, not wall time, so a loaded host
 * does not fail a good file; the wall limit is only a backstop. */
#ifdef SCHEDLAB_FUZZ
/* fuzzing: a slow input is cut short, not reported by libFuzzer as a hang */
#define XML_CHILD_CPU_S 2
#define XML_CHILD_RSS_MIN (512ull << 20)
#else
#define XML_CHILD_CPU_S 30
#define XML_CHILD_RSS_MIN (1024ull << 20)
#endif
#define XML_CHILD_WALL_S 600
#define XML_CHILD_RSS_PER_BYTE 32
/* The largest OS number of a PU or NUMA node read (Linux's NR_CPUS is at
 * most 8192).  hwloc numbers a PU without "os_index" 2^32 - 1, and every
 * cpuset above it then has four billion bits: its export of a 28 KiB file
 * is 134 MB. */
#define XML_MAX_OS_INDEX (1 << 20)
/* hwloc's export of a file is about as long as the file; room for twice. */
#define XML_EXPORT_MAX (2 * INPUT_MAX_BYTES + 4096)

/* A sanitizer's fatal-error callback (libFuzzer sets one that saves the
 * input as a crash): in the child, hwloc's crash is expected, not a find. */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/* The child: a status byte ('0' then the export, '1' then errno as an
 * int, or '2': a PU or node number is too large), and _exit
 * without running the parent's exit handlers. */
static _Noreturn void xml_child(int fd, const char *text, size_t len)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGTRAP };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull >= 0)
		dup2(devnull, STDERR_FILENO);
	errno = 0;
	/* What the child makes it frees before it exits: under valgrind a
	 * leak in the child is an error, and changes its exit status. */
	int status = 1;
	char *buf = NULL;
	int buflen = 0;
	hwloc_topology_t again = NULL;
	hwloc_topology_t h = open_hwloc();
	if (!h || hwloc_topology_set_xmlbuffer(h, text, (int)len + 1) != 0 ||
	    hwloc_topology_load(h) != 0)
		goto failed;
	hwloc_const_bitmap_t cpus = hwloc_topology_get_complete_cpuset(h);
	hwloc_const_bitmap_t nodes = hwloc_topology_get_complete_nodeset(h);
	/* hwloc's ints (last bit, count of words) wrap past 2^31: test
	 * inclusion in 0..XML_MAX_OS_INDEX instead */
	hwloc_bitmap_t range = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(range, 0, XML_MAX_OS_INDEX);
	bool in_range = hwloc_bitmap_isincluded(cpus, range) && hwloc_bitmap_isincluded(nodes, range);
	hwloc_bitmap_free(range);
	if (!in_range) {
		pool_write(fd, "2", 1);
		goto out;
	}
	/* The export is loaded here once too: hwloc reads the same bytes the
	 * same way, so if it crashes on its own export, it does so here and
	 * not in the parent. */
	if (hwloc_topology_export_xmlbuffer(h, &buf, &buflen, 0) != 0 || !(again = open_hwloc()) ||
	    hwloc_topology_set_xmlbuffer(again, buf, buflen) != 0 || hwloc_topology_load(again) != 0)
		goto failed;
	/* buflen counts hwloc's terminating NUL; the length ahead of the text
	 * lets the parent tell a whole answer from a cut one */
	uint64_t textlen = (uint64_t)buflen - 1;
	status = pool_write(fd, "0", 1) && pool_write(fd, &textlen, sizeof(textlen)) &&
		 pool_write(fd, buf, (size_t)textlen) ? 0 : 3;
	goto out;
failed:;
	int err = errno;
	pool_write(fd, "1", 1);
	pool_write(fd, &err, sizeof(err));
out:
	if (buf)
		hwloc_free_xmlbuffer(h, buf);
	if (again)
		hwloc_topology_destroy(again);
	if (h)
		hwloc_topology_destroy(h);
	_exit(status);
}

static bool under_valgrind(void)
{
#ifdef HAVE_VALGRIND_H
	return RUNNING_ON_VALGRIND;
#else
	return false;
#endif
}

enum child_limit { WITHIN, CPU_LIMIT, RSS_LIMIT, WALL_LIMIT };

/* Whether the child is past a limit, from /proc/PID/stat. */
static enum child_limit child_over(pid_t pid, uint64_t rss_max, const struct timespec *start)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - start->tv_sec > XML_CHILD_WALL_S)
		return WALL_LIMIT;
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return WITHIN;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return WITHIN;
	buf[n] = '\0';
	/* the fields after the command's name, which ends at the last ')' */
	const char *p = strrchr(buf, ')');
	unsigned long long utime, stime, rss;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d "
			 "%*d %*d %*d %*d %*u %*u %llu", &utime, &stime, &rss) != 3)
		return WITHIN;
	long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	if (hz > 0 && (utime + stime) / (unsigned long long)hz > XML_CHILD_CPU_S)
		return CPU_LIMIT;
	if (page > 0 && rss * (unsigned long long)page > rss_max)
		return RSS_LIMIT;
	return WITHIN;
}

/* The XML parse in the child-process pool: one job, watched. */
struct xml_job {
	const char *text;
	size_t len;
	uint64_t rss_max;
	struct timespec start;
	enum child_limit limit;        /* the one the child was killed at */
	struct pool_end end;           /* its end (data taken) */
};

static int xml_run(void *ctx, long i, int fd)
{
	const struct xml_job *j = ctx;
	xml_child(fd, j->text, j->len);
}

static bool xml_watch(void *ctx, long i, pid_t pid)
{
	struct xml_job *j = ctx;
	j->limit = child_over(pid, j->rss_max, &j->start);
	return j->limit != WITHIN;
}

static bool xml_done(void *ctx, long i, struct pool_end *end)
{
	struct xml_job *j = ctx;
	j->end = *end;
	end->data = NULL;
	j->end.out = NULL;
	return true;
}

/* hwloc's export of the XML text (malloc'd, *outlen bytes), or NULL with
 * a message naming label. */
static char *xml_contained(const char *text, size_t len, const char *label, size_t *outlen,
			   struct err *e)
{
	struct xml_job j = { .text = text, .len = len, .limit = WITHIN };
	j.rss_max = (uint64_t)len * XML_CHILD_RSS_PER_BYTE;
	if (j.rss_max < XML_CHILD_RSS_MIN)
		j.rss_max = XML_CHILD_RSS_MIN;
	clock_gettime(CLOCK_MONOTONIC, &j.start);
	struct pool_ops ops = {
		.n = 1, .jobs = 1, .max_data = XML_EXPORT_MAX, .run = xml_run, .done = xml_done,
		.tick_ms = 100, .watch = xml_watch, .ctx = &j,
	};
	pool_run(&ops);
	int status = j.end.status;
	char *out = j.end.data;
	size_t n = j.end.len;
	uint64_t textlen = UINT64_MAX;
	if (n >= 1 + sizeof(textlen))
		memcpy(&textlen, out + 1, sizeof(textlen));
	/* Under valgrind the child's exit status is valgrind's whenever the
	 * copy's leak check calls a block the parent still holds lost (it
	 * does, by stack layout): there a whole answer is the test. */
	bool exited_ok = WIFEXITED(status) && (WEXITSTATUS(status) == 0 || under_valgrind());
	if (j.end.what) {
		err_set(e, "%s: cannot read the XML: %s: %s", label, j.end.what, strerror(j.end.err));
	} else if (j.limit == CPU_LIMIT || j.limit == WALL_LIMIT) {
		err_set(e, "%s: not a valid hwloc XML topology (the hwloc library did not finish "
			"reading it in %d s)", label, j.limit == CPU_LIMIT ? XML_CHILD_CPU_S : XML_CHILD_WALL_S);
	} else if (j.limit == RSS_LIMIT) {
		err_set(e, "%s: not a valid hwloc XML topology (the hwloc library used more than "
			"%llu MiB reading it)", label, (unsigned long long)(j.rss_max >> 20));
	} else if (j.end.killed) {
		err_set(e, "%s: not a valid hwloc XML topology (hwloc's export of it is over %d MiB)",
			label, (int)(XML_EXPORT_MAX >> 20));
	} else if (WIFSIGNALED(status)) {
		err_set(e, "%s: not a valid hwloc XML topology (the hwloc library crashed reading "
			"it: %s)", label, strsignal(WTERMSIG(status)));
	} else if (n >= 1 && out[0] == '2' && WIFEXITED(status) && WEXITSTATUS(status) == 1) {
		err_set(e, "%s: the topology numbers a PU or NUMA node above %d (hwloc numbers one "
			"without os_index 2^32 - 1)", label, XML_MAX_OS_INDEX);
	} else if (n >= 1 && out[0] == '1' && WIFEXITED(status) && WEXITSTATUS(status) == 1) {
		int err = 0;
		if (n >= 1 + sizeof(err))
			memcpy(&err, out + 1, sizeof(err));
		err_set(e, "%s: hwloc cannot load this file as topology XML (%s)", label,
			err ? strerror(err) : "invalid content");
	} else if (n >= 1 && out[0] == '0' && exited_ok && textlen == n - 1 - sizeof(textlen) &&
		   !memchr(out + 1 + sizeof(textlen), '\0', textlen)) {
		char *xml = xmalloc(textlen + 1);
		memcpy(xml, out + 1 + sizeof(textlen), textlen);
		xml[textlen] = '\0';
		*outlen = textlen;
		free(out);
		return xml;
	} else {
		err_set(e, "%s: not a valid hwloc XML topology (the hwloc library failed reading it, "
			"status %d)", label, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	free(out);
	return NULL;
}

struct topo *topo__load_xml_text(const char *text, size_t len, const char *label,
				 struct err *e)
{
	size_t n;
	char *canon = xml_contained(text, len, label, &n, e);
	if (!canon)
		return NULL;
	struct topo *t = NULL;
	hwloc_topology_t h = open_hwloc();
	if (!h) {
		err_set(e, "%s: hwloc could not initialise", label);
		goto out;
	}
	/* hwloc's own export: a failure here is hwloc's, still reported */
	if (hwloc_topology_set_xmlbuffer(h, canon, (int)n + 1) != 0 || hwloc_topology_load(h) != 0) {
		err_set(e, "%s: hwloc cannot load its own export of this file (%s)", label,
			errno ? strerror(errno) : "invalid content");
		goto out;
	}
	t = from_hwloc(h, label, e);
out:
	if (h)
		hwloc_topology_destroy(h);
	free(canon);
	return t;
}

struct topo *topo__load_xml_raw(const char *path, struct err *e)
{
	size_t len;
	char *text = input_read(path, &len, e);
	if (!text)
		return NULL;
	struct topo *t = topo__load_xml_text(text, len, path, e);
	free(text);
	if (!t)
		return NULL;
	t->name = topo__name_of_path(path);
	t->source = str_escape(path);
	return t;
}

struct topo *topo_load_xml(const char *path, struct err *e)
{
	struct topo *t = topo__load_xml_raw(path, e);
	if (t && !topo__finish(t, path, e)) {
		topo_free(t);
		return NULL;
	}
	return t;
}

struct topo *topo_load_xml_text(const char *text, size_t len, const char *label,
				struct err *e)
{
	struct topo *t = topo__load_xml_text(text, len, label, e);
	if (!t)
		return NULL;
	t->name = xstrdup(label);
	t->source = xstrdup("inline");
	if (!topo__finish(t, label, e)) {
		topo_free(t);
		return NULL;
	}
	return t;
}

char *topo_host_xml(struct err *e)
{
	hwloc_topology_t h = open_hwloc();
	char *buf = NULL;
	int len = 0;
	if (!h || hwloc_topology_load(h) != 0 || hwloc_topology_export_xmlbuffer(h, &buf, &len, 0) != 0) {
		err_set(e, "host: hwloc could not discover and export this machine");
		if (h)
			hwloc_topology_destroy(h);
		return NULL;
	}
	char *text = xstrdup(buf);
	hwloc_free_xmlbuffer(h, buf);
	hwloc_topology_destroy(h);
	return text;
}

struct topo *topo__discover_host(struct err *e)
{
	hwloc_topology_t h = open_hwloc();
	if (!h || hwloc_topology_load(h) != 0) {
		err_set(e, "host: hwloc could not discover this machine");
		if (h)
			hwloc_topology_destroy(h);
		return NULL;
	}
	struct topo *t = from_hwloc(h, "host", e);
	hwloc_topology_destroy(h);
	if (!t)
		return NULL;
	t->name = xstrdup("host");
	t->source = xstrdup("hwloc");
	if (!topo__finish(t, "host", e)) {
		topo_free(t);
		return NULL;
	}
	return t;
}
