/* Exploration's parts compiled once [core/explore.h]. */
#include "core/explore.h"

#include <string.h>

const char *const rt_bug_names[RT_BUG__COUNT] = {
	[RT_BUG_NONE] = "none",
	[RT_BUG_NO_RECHECK] = "no-recheck",
	[RT_BUG_NO_WAKEP] = "no-wakep",
	[RT_BUG_RUNNEXT_EAGER] = "runnext-eager",
	[RT_BUG_SHAREDQ_NOLOCK] = "sharedq-nolock",
	[RT_BUG_LOST_TIMER] = "lost-timer",
	[RT_BUG_CHECKDEAD_MS] = "checkdead-ms",
	[RT_BUG_RETAKE_NOCHECK] = "retake-nocheck",
};

bool rt_explore_limit_panic(const char *msg)
{
	return strstr(msg, "memory budget") != NULL || strstr(msg, "-thread limit") != NULL;
}

void rt_explore_reset(struct rt_explore *x)
{
	x->rng = x->seed * 0x2545f4914f6cdd1dULL + 0x632be59bd9b4e019ULL;
	x->decisions = x->applied = x->steps = x->checks = x->census_due = 0;
	memset(x->prio, 0, sizeof(x->prio));
	x->nchange = x->next_change = 0;
	if (x->strategy == RT_EXPLORE_PCT) {
		/* d - 1 change points, uniform over the k steps, in order */
		int n = x->depth - 1;
		if (n > RT_EXPLORE_MAX_DEPTH)
			n = RT_EXPLORE_MAX_DEPTH;
		uint64_t k = x->pct_steps ? x->pct_steps : 1;
		for (int i = 0; i < n; i++) {
			uint64_t at = 1 + rt_explore_rand(x) % k;
			int j = i;
			while (j > 0 && x->change_at[j - 1] > at) {
				x->change_at[j] = x->change_at[j - 1];
				j--;
			}
			x->change_at[j] = at;
		}
		x->nchange = n > 0 ? n : 0;
	}
	x->failed = false;
	x->what[0] = x->msg[0] = '\0';
	x->state = NULL;
}
