/* Simulator benchmark: one simulated run of a workload, and what it cost
 * the simulator -- wall time, engine events per second, simulated time per
 * wall second, peak RSS, and wall time per goroutine execution (a G being
 * given a P and run once).  Prints one line of figures; asserts nothing.
 *   bench_sim [-p POLICY] WORKLOAD TOPOLOGY PROCS [SEED]      (default steal)
 * Compiled against the simulated core (-DSCHEDLAB_SIM) to read the engine's
 * counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/runtime.h"
#include "workloads/wlr.h"
#include "workloads/json.h"

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *policy = "steal";
	if (argc > 2 && strcmp(argv[1], "-p") == 0) {
		policy = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 4 || !pol_find(policy)) {
		fprintf(stderr, "usage: bench_sim [-p POLICY] WORKLOAD TOPOLOGY PROCS [SEED]\n");
		return 2;
	}
	struct err e;
	bool trace;
	uint64_t tseed, seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
	struct topo *t = topo_load(argv[2], &e);
	struct workload *w = t ? wl_load(argv[1], &trace, &tseed, &e) : NULL;
	if (!w) {
		fprintf(stderr, "bench_sim: %s\n", e.msg);
		return 2;
	}
	struct rt_config cfg = {
		.policy = pol_find(policy), .procs = atoi(argv[3]), .seed = trace ? tseed : seed,
		.topo = t, .body = &wlr_body, .body_arg = &(struct wlr_args){ .workload = w },
	};
	double t0 = wall();
	struct rt *rt = rt_new(&cfg, &e);
	if (!rt) {
		fprintf(stderr, "bench_sim: %s\n", e.msg);
		return 2;
	}
	rt_run(rt);
	double t1 = wall();
	struct rt_result r;
	rt_collect(rt, &r);
	uint64_t events = sim_stats(rt->plat.eng)->events;
	uint64_t advances = sim_stats(rt->plat.eng)->advances;
	rt_free(rt);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double secs = t1 - t0;
	printf("%-6s %-12s %-6s procs %3d  wall %7.3f s  events %10llu  advances %10llu  %6.2f M events/s  "
	       "sim/wall %8.4f  peak RSS %7.1f MiB  %8.0f B/G  Gs %8llu  runs %9llu  "
	       "%7.0f ns wall per G run%s\n",
	       policy, w->name, t->name, cfg.procs ? cfg.procs : t->npus, secs, (unsigned long long)events,
	       (unsigned long long)advances,
	       (double)events / secs / 1e6, (double)r.makespan_ns / 1e9 / secs,
	       (double)ru.ru_maxrss / 1024.0, (double)ru.ru_maxrss * 1024.0 / (double)r.goroutines,
	       (unsigned long long)r.goroutines, (unsigned long long)r.runs,
	       secs * 1e9 / (double)(r.runs ? r.runs : 1),
	       r.deadlock || r.panicked ? "  (did not complete)" : "");
	wl_free(w);
	topo_free(t);
	return 0;
}
