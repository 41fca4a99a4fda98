/* One run: its runtime made from the run's inputs, run to its end, its
 * result and mechanisms read back (run.h). */
#include <stdlib.h>

#include "run/run.h"
#include "workloads/program.h"

int64_t *run_knobs_new(const struct pol_ops *pol)
{
	int64_t *knobs = xcalloc((size_t)pol_nknobs(pol) + 1, sizeof(*knobs));
	pol_default_knobs(pol, knobs);
	return knobs;
}

struct rt *run_exec(struct run *run, bool record_draws, struct err *e)
{
	struct wlr_args args = { .workload = run->wl, .record_draws = record_draws };
	struct rt_config cfg = {
		.policy = run->pol,
		.knobs = run->knobs,
		.procs = run->procs,
		.seed = run->seed,
		.topo = run->topo,
		.body = run->api->body,
		.body_arg = &args,
		.lim = run->lim,
		.os = run->os,
		.explore = run->explore,
	};
	struct rt *rt = run->api->create(&cfg, e);
	if (rt) {
		run->api->run(rt);
		run->api->result(rt, &run->r);
		rt_mech_free(&run->mech);
		run->api->mech(rt, &run->mech);
	}
	return rt;
}

