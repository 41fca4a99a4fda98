/* schedlab calibrate: the phases, the host's load around them, and the
 * calibration file (docs/calibration.md). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calib/calib.h"

/* Shares of the time budget by phase; the sweep's time is set by its
 * sizes, not by the budget. */
enum { PH_HOST0, PH_OS, PH_C2C, PH_CACHE, PH_DRAM, PH_RT, PH_HOST1, NPHASES };
static const char *const phase_names[NPHASES] = {
	"host load", "OS costs", "core-to-core", "working-set sweep", "DRAM and bandwidth",
	"native runtime", "host load again",
};
static const double phase_share[NPHASES] = { 0.02, 0.3, 0.1, 0.2, 0.18, 0.18, 0.02 };
/* phases whose threads only compute: time they waited runnable is time
 * the host gave to others */
static const bool phase_cpu_bound[NPHASES] = { true, false, true, true, true, false, true };

#define BUSY_WAIT_SHARE 0.10 /* waited runnable more than this share of the CPU time */
#define BUSY_SPIN_SHARE 0.85 /* a spinning thread got less than this share of a PU */

struct host_note {
	double load1;
	double spin_share[2];
	double max_wait;          /* the largest wait share of a CPU-bound phase */
	char wait_phases[160];    /* the CPU-bound phases that waited */
	char why[512];
	size_t why_len;
	bool busy;
};

__attribute__((format(printf, 2, 3))) static void busy_because(struct host_note *h,
								 const char *fmt, ...)
{
	h->busy = true;
	if (h->why_len < sizeof(h->why))
		h->why_len += (size_t)snprintf(h->why + h->why_len, sizeof(h->why) - h->why_len,
					       h->why_len ? "; " : "");
	if (h->why_len < sizeof(h->why)) {
		va_list ap;
		va_start(ap, fmt);
		h->why_len += (size_t)vsnprintf(h->why + h->why_len, sizeof(h->why) - h->why_len, fmt, ap);
		va_end(ap);
	}
}

/* Why a figure no probe measured is the model's default, when there is a
 * better reason than "no sample could be taken". */
static const char *unmeasured_note(const char *path)
{
	static const struct {
		const char *path, *note;
	} why[] = {
		{ "c2c_ns.core", "this machine has no SMT siblings: no line transfer between two "
				 "threads of one core to measure; the model's default" },
		{ "c2c_ns.group", "no two cores of this machine share a core group; the model's default" },
		{ "c2c_ns.package", "no package of this machine holds two core groups; the model's "
				    "default" },
		{ "os_ns.wakeup.group", "no two cores of this machine share a core group; the model's "
					"default" },
		{ "os_ns.wakeup.package", "no package of this machine holds two core groups; the "
					  "model's default" },
		{ "slit_scale", "not used: dram_ns.matrix gives every node pair's measured latency" },
	};
	for (size_t k = 0; k < sizeof(why) / sizeof(why[0]); k++)
		if (strcmp(why[k].path, path) == 0)
			return why[k].note;
	return "no sample could be taken on this host: the model's default";
}

/* Every scalar figure of the model (topologies/topo_figlist.h) that no probe
 * measured: the model's value, marked as an assumption saying why.  The
 * cache levels are the sweep's (mem.c), which knows the levels present. */
static void fill_unmeasured(struct cal_ctx *c)
{
	struct topo_latency d;
	topo__latency_defaults(&d);
	for (int i = 0; i < topo_nfig_specs; i++) {
		const struct topo_fig_spec *s = &topo_fig_specs[i];
		bool level = s->use >= TOPO_USE_L1 && s->use <= TOPO_USE_L4;
		if (s->shape != TOPO_SHAPE_SCALAR || level ||
		    cJSON_GetObjectItemCaseSensitive(c->provenance, s->path))
			continue;
		cal_assumed(c, s->path, *topo_fig_value(&d, s), unmeasured_note(s->path));
	}
}

/* Moves o's members into the order of keys (members not listed last). */
static void reorder(cJSON *o, const char *const *keys)
{
	if (!o)
		return;
	cJSON *tmp = cJSON_CreateObject();
	for (int i = 0; keys[i]; i++) {
		cJSON *it = cJSON_DetachItemFromObjectCaseSensitive(o, keys[i]);
		if (it)
			cJSON_AddItemToObject(tmp, keys[i], it);
	}
	while (o->child) {
		cJSON *it = o->child;
		char *k = xstrdup(it->string);
		cJSON_AddItemToObject(tmp, k, cJSON_DetachItemViaPointer(o, it));
		free(k);
	}
	while (tmp->child) {
		cJSON *it = tmp->child;
		char *k = xstrdup(it->string);
		cJSON_AddItemToObject(o, k, cJSON_DetachItemViaPointer(tmp, it));
		free(k);
	}
	cJSON_Delete(tmp);
}

/* The latency object's keys in the list's order, section by section, as
 * `topo --json` writes them. */
static void order_latency(cJSON *lat, const char *section)
{
	struct topo_fig_keys k;
	topo_fig_keys(section, false, &k);
	reorder(lat, k.list);
	for (int i = 0; i < k.n; i++) {
		cJSON *sub = cJSON_GetObjectItemCaseSensitive(lat, k.list[i]);
		if (!cJSON_IsObject(sub))
			continue;
		char path[64];
		snprintf(path, sizeof(path), "%s%s%s", section, section[0] ? "." : "", k.list[i]);
		order_latency(sub, path);
	}
}

static bool run_phase(struct cal_ctx *c, int ph, struct host_note *h, cJSON *phases,
		      struct err *e)
{
	const struct cal_options *o = c->o;
	cal_progress_phase(&c->prog, phase_names[ph]);
	int64_t phase_ns = (int64_t)(o->seconds * phase_share[ph] * 1e9);
	c->phase_deadline = cal_now() + phase_ns;
	c->phase_hard = c->phase_deadline + phase_ns;
	c->summary[0] = 0;
	struct cal_usage u0, u1;
	cal_usage_now(&u0);
	bool ok = true;
	switch (ph) {
	case PH_HOST0:
	case PH_HOST1: {
		int ms = o->quick ? 100 : 300;
		double s = cal_host_share(c->hw, c->t, ms);
		h->spin_share[ph == PH_HOST1] = s;
		snprintf(c->summary, sizeof(c->summary), "a spinning thread per PU got %.0f%% of its PU",
			 s * 100);
		break;
	}
	case PH_OS:
		ok = cal_os_probes(c, e);
		if (ok) {
			cJSON *os = cJSON_GetObjectItemCaseSensitive(c->latency, "os_ns");
			cJSON *wk = cJSON_GetObjectItemCaseSensitive(os, "wakeup");
			char *w = cJSON_PrintUnformatted(wk);
			snprintf(c->summary, sizeof(c->summary),
				 "syscall %.0f ns, wake-up %s ns, timer slack %.0f ns",
				 cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(os, "syscall")),
				 w ? w : "?",
				 cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(os, "timer_slack")));
			free(w);
		}
		break;
	case PH_C2C:
		ok = cal_c2c_probes(c, e);
		if (ok) {
			char *m = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(c->latency, "c2c_ns"));
			snprintf(c->summary, sizeof(c->summary), "%s", m ? m : "no pair of cores");
			free(m);
		}
		break;
	case PH_CACHE:
		ok = cal_cache_probes(c, e);
		break;
	case PH_DRAM:
		ok = cal_dram_probes(c, e);
		if (ok) {
			char *bw = cJSON_PrintUnformatted(
				cJSON_GetObjectItemCaseSensitive(c->latency, "bandwidth_gbs"));
			snprintf(c->summary, sizeof(c->summary), "DRAM %.1f ns, %s GB/s per node",
				 c->dram_local_ns, bw ? bw : "?");
			free(bw);
		}
		break;
	case PH_RT:
		ok = cal_rt_probes(c, e);
		break;
	}
	if (!ok)
		return false;
	cal_usage_now(&u1);
	double cpu = (double)(u1.cpu_ns - u0.cpu_ns), wait = (double)(u1.wait_ns - u0.wait_ns);
	double wall = (double)(u1.wall_ns - u0.wall_ns);
	double share = cpu + wait > 0 ? cpu / (cpu + wait) : 1;
	struct cal_stat st = { share, share, share, 1, "" };
	cJSON *p = cal_point(phases, &st, "phase", ph);
	cJSON_AddNumberToObject(p, "wall_ns", round(wall));
	cJSON_AddNumberToObject(p, "cpu_ns", round(cpu));
	cJSON_AddNumberToObject(p, "run_delay_ns", round(wait));
	if (phase_cpu_bound[ph] && cpu + wait > 0 && wait / (cpu + wait) > BUSY_WAIT_SHARE) {
		size_t n = strlen(h->wait_phases);
		snprintf(h->wait_phases + n, sizeof(h->wait_phases) - n, "%s%s", n ? ", " : "",
			 phase_names[ph]);
		if (wait / (cpu + wait) > h->max_wait)
			h->max_wait = wait / (cpu + wait);
	}
	cal_progress_end_phase(&c->prog, c->summary);
	return true;
}

/* This machine from hwloc: discovered, exported as XML (which the file
 * holds) and read back, so the file's relations are the ones measured. */
static bool discover(struct cal_ctx *c, char **xml, struct err *e)
{
	if (hwloc_topology_init(&c->hw) != 0) {
		err_set(e, "calibrate: hwloc cannot initialise a topology");
		return false;
	}
	hwloc_topology_set_io_types_filter(c->hw, HWLOC_TYPE_FILTER_KEEP_NONE);
	if (hwloc_topology_load(c->hw) != 0) {
		hwloc_topology_destroy(c->hw);
		err_set(e, "calibrate: hwloc cannot discover this machine");
		return false;
	}
	int xmllen = 0;
	if (hwloc_topology_export_xmlbuffer(c->hw, xml, &xmllen, 0) != 0) {
		hwloc_topology_destroy(c->hw);
		err_set(e, "calibrate: hwloc cannot export this machine as XML");
		return false;
	}
	c->t = topo_load_xml_text(*xml, (size_t)xmllen - 1, "host", e);
	if (!c->t) {
		hwloc_free_xmlbuffer(c->hw, *xml);
		hwloc_topology_destroy(c->hw);
		return false;
	}
	return true;
}

static void undiscover(struct cal_ctx *c, char *xml)
{
	topo_free(c->t);
	hwloc_free_xmlbuffer(c->hw, xml);
	hwloc_topology_destroy(c->hw);
}

/* The load average when calibrate starts. */
static void note_load(struct cal_ctx *c, struct host_note *h)
{
	double la[1];
	h->load1 = getloadavg(la, 1) == 1 ? la[0] : -1;
	if (h->load1 >= c->t->npus)
		busy_because(h, "the load average was %.2f on %d PUs when calibrate started", h->load1,
			     c->t->npus);
	if (h->load1 >= 0) {
		struct cal_stat ls = { h->load1, h->load1, h->load1, 1, "" };
		cal_method(&ls, "getloadavg(3) when calibrate started, on %d PUs", c->t->npus);
		cal_measurement(c, "loadavg_1m_start", &ls);
	}
}

/* Every phase in turn, each phase's share of the CPU as a point. */
static bool run_phases(struct cal_ctx *c, struct host_note *h, struct err *e)
{
	char phase_list[256];
	size_t pl = 0;
	for (int ph = 0; ph < NPHASES; ph++)
		pl += (size_t)snprintf(phase_list + pl, sizeof(phase_list) - pl, "%s%d %s",
				       ph ? ", " : "", ph, phase_names[ph]);
	char *pm = xasprintf("CPU time / (CPU time + run delay) of the process's threads in each "
			     "phase (%s), from /proc/self/task/*/schedstat; in phases 1 and 5 the "
			     "wake-ups measured are run delay themselves", phase_list);
	cJSON *phases = cal_points(c, "host_cpu_share", pm);
	free(pm);
	bool ok = true;
	for (int ph = 0; ph < NPHASES && ok; ph++)
		ok = run_phase(c, ph, h, phases, e);
	cal_progress_done(&c->prog);
	return ok;
}

/* Whether the host was busy, from the spinning threads and the phases'
 * waits, as measurements and the note of host_cpu_share. */
static void note_busy(struct cal_ctx *c, struct host_note *h)
{
	double spin_min = fmin(h->spin_share[0], h->spin_share[1]);
	if (spin_min < BUSY_SPIN_SHARE)
		busy_because(h, "a thread spinning on each PU got %.0f%% of it before the probes and "
			     "%.0f%% after", h->spin_share[0] * 100, h->spin_share[1] * 100);
	if (h->max_wait > 0)
		busy_because(h, "the probes' threads waited runnable for up to %.0f%% of their time (%s)",
			     h->max_wait * 100, h->wait_phases);
	cJSON *spin = cal_points(c, "host_spin_share",
				 "a thread spinning on each PU: the share of its PU it got (1 on an idle "
				 "host); at 0 before the probes, 1 after them");
	for (int i = 0; i < 2; i++) {
		struct cal_stat st = { h->spin_share[i], h->spin_share[i], h->spin_share[i], 1, "" };
		cal_point(spin, &st, "at", i);
	}
	char *note = h->busy ? xasprintf("busy: %s", h->why)
			     : xasprintf("not busy: every check passed");
	cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(c->measurements, "host_cpu_share"),
				"note", note);
	free(note);
}

/* The calibration file: this machine's XML and what the phases measured. */
static cJSON *calibration_file(struct cal_ctx *c, const struct host_note *h, const char *xml)
{
	char hostname[256] = "this host";
	gethostname(hostname, sizeof(hostname));
	hostname[sizeof(hostname) - 1] = 0;
	char date[64];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", &tm);
	char *desc = xasprintf("calibrated by schedlab calibrate%s on %s, %s%s%s",
			       c->o->quick ? " --quick" : "", hostname, date,
			       h->busy ? "; the host was busy while calibrating: " : "",
			       h->busy ? h->why : "");
	char *shown = str_escape(desc);

	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "name", "host");
	cJSON_AddStringToObject(root, "description", shown);
	cJSON_AddStringToObject(root, "hwloc_xml_inline", xml);
	cJSON_AddItemToObject(root, "cache_sizes", c->cache_sizes ? c->cache_sizes : cJSON_CreateObject());
	cJSON_AddItemToObject(root, "latency", c->latency);
	cJSON_AddItemToObject(root, "provenance", c->provenance);
	cJSON_AddItemToObject(root, "measurements", c->measurements);
	free(shown);
	free(desc);
	return root;
}

cJSON *cal_run(const struct cal_options *o, struct err *e)
{
	struct cal_ctx c = { .o = o };
	c.prog.f = o->progress;
	c.prog.tty = o->progress && isatty(fileno(o->progress));
	c.prog.nphases = NPHASES;
	char *xml = NULL;
	if (!discover(&c, &xml, e))
		return NULL;
	c.latency = cJSON_CreateObject();
	c.provenance = cJSON_CreateObject();
	c.measurements = cJSON_CreateObject();

	struct host_note h = { 0 };
	note_load(&c, &h);
	int64_t t0 = cal_now();
	if (!run_phases(&c, &h, e)) {
		/* the phases' points belong to c.measurements */
		cJSON_Delete(c.latency);
		cJSON_Delete(c.provenance);
		cJSON_Delete(c.measurements);
		cJSON_Delete(c.cache_sizes);
		undiscover(&c, xml);
		return NULL;
	}
	note_busy(&c, &h);
	fill_unmeasured(&c);
	order_latency(c.latency, "");
	struct cal_stat wall = { (double)(cal_now() - t0), 0, 0, 1, "" };
	wall.p10 = wall.p90 = wall.median;
	cal_method(&wall, "the calibration's wall time");
	cal_measurement(&c, "calibrate_wall_ns", &wall);

	cJSON *root = calibration_file(&c, &h, xml);
	if (h.busy && o->progress)
		fprintf(o->progress, "schedlab calibrate: warning: the host was busy while calibrating "
			"(%s); the figures include its interference\n", h.why);
	undiscover(&c, xml);
	return root;
}
