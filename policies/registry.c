/* The policies, found by name, and this compilation's entry points: the
 * product assembled from the core, its policies and its default body. */
#include "core/runtime.h"
#include "core/mech.h"
#include "workloads/wlr.h"

#include <string.h>

extern const struct pol_ops pol_global, pol_steal, pol_numa;

/* In the order `schedlab list policies' shows them: by age. */
static const struct pol_ops *const policies[] = {
	&pol_global,
	&pol_steal,
	&pol_numa,
};

int pol_count(void)
{
	return (int)(sizeof(policies) / sizeof(policies[0]));
}

const struct pol_ops *pol_at(int i)
{
	return i >= 0 && i < pol_count() ? policies[i] : NULL;
}

const struct pol_ops *pol_find(const char *name)
{
	for (int i = 0; i < pol_count(); i++)
		if (strcmp(policies[i]->name, name) == 0)
			return policies[i];
	return NULL;
}

const struct rt_api rt_api_impl = {
	.mode = PLAT_NAME,
	.pol_count = pol_count,
	.pol_at = pol_at,
	.pol_find = pol_find,
	.create = rt_new,
	.body = &wlr_body,
	.run = rt_run,
	.result = rt_collect,
	.destroy = rt_free,
	.draws = rt_draws,
	.trace = rt_trace_get,
	.mech = rt_mech_collect,
};
