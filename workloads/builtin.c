/* Workloads built in C: the shapes every policy is first tried on, until
 * the catalog's JSON workloads exist. */
#include "workloads/program.h"

#include <string.h>

/* A tree of 10,000 Gs: main spawns 9 children, each of them 10, three
 * levels deep (1 + 9 + 90 + 900 + 9000); every G computes for 10 us and
 * exits.  All parallelism comes from spawning, so it measures how fast a
 * policy spreads new work over idle Ps. */
static struct workload *spawn_tree(void)
{
	struct workload *w = wl_new("spawn-tree", "10,000 Gs spawned as a tree (fan-out 9, then 10), "
						  "10 us of work each");
	uint32_t level[5];
	static const char *const names[] = { "root", "level1", "level2", "level3", "leaf" };
	for (int i = 0; i < 5; i++)
		level[i] = wl_add_program(w, names[i]);
	for (int i = 0; i < 5; i++) {
		if (i < 4)
			wl_emit(w, level[i], PROG_SPAWN, level[i + 1], i == 0 ? 9 : 10);
		wl_emit(w, level[i], PROG_COMPUTE, 0, 10000);
		wl_emit(w, level[i], PROG_EXIT, 0, 0);
	}
	w->main = level[0];
	return w;
}

/* Two Gs passing a token back and forth 10,000 times over unbuffered
 * channels, with 1 us of work per hop.  Only one G is ever runnable: it
 * measures the cost of a hand-off (runnext keeps the pair on one P). */
static struct workload *ping_pong(void)
{
	struct workload *w = wl_new("ping-pong", "two Gs trade a token 10,000 times over unbuffered "
						 "channels, 1 us of work per hop");
	uint32_t ping = wl_add_chan(w, "ping", 0), pong = wl_add_chan(w, "pong", 0);
	uint32_t main = wl_add_program(w, "main"), pinger = wl_add_program(w, "pinger"),
		 ponger = wl_add_program(w, "ponger");
	wl_emit(w, main, PROG_SPAWN, pinger, 1);
	wl_emit(w, main, PROG_SPAWN, ponger, 1);

	uint32_t l = wl_loop(w, pinger, 10000);
	wl_emit(w, pinger, PROG_SEND, ping, 0);
	wl_emit(w, pinger, PROG_RECV, pong, 0);
	wl_emit(w, pinger, PROG_COMPUTE, 0, 1000);
	wl_end(w, pinger, l);

	l = wl_loop(w, ponger, 10000);
	wl_emit(w, ponger, PROG_RECV, ping, 0);
	wl_emit(w, ponger, PROG_COMPUTE, 0, 1000);
	wl_emit(w, ponger, PROG_SEND, pong, 0);
	wl_end(w, ponger, l);
	w->main = main;
	return w;
}

/* A million Gs: main spawns 1,000, each of which spawns 1,000 that compute
 * for 1 us.  Shows that a simulated G costs a small struct, not a stack. */
static struct workload *spawn_wide(void)
{
	struct workload *w = wl_new("spawn-wide", "1,001,001 Gs: 1,000 spawners of 1,000 Gs each, "
						  "1 us of work each");
	uint32_t main = wl_add_program(w, "main"), spawner = wl_add_program(w, "spawner"),
		 leaf = wl_add_program(w, "leaf");
	wl_emit(w, main, PROG_SPAWN, spawner, 1000);
	wl_emit(w, spawner, PROG_SPAWN, leaf, 1000);
	wl_emit(w, leaf, PROG_COMPUTE, 0, 1000);
	w->main = main;
	return w;
}

/* Many independent Gs that yield often: 1,000 Gs, each 100 rounds of 5 us
 * of work and a yield.  Every yield goes through the global queue, so it
 * exercises the fairness check and global batches. */
static struct workload *yield_storm(void)
{
	struct workload *w = wl_new("yield-storm", "1,000 Gs each doing 100 rounds of 5 us of work "
						   "and a yield");
	uint32_t main = wl_add_program(w, "main"), worker = wl_add_program(w, "worker");
	wl_emit(w, main, PROG_SPAWN, worker, 1000);
	uint32_t l = wl_loop(w, worker, 100);
	wl_emit(w, worker, PROG_COMPUTE, 0, 5000);
	wl_emit(w, worker, PROG_YIELD, 0, 0);
	wl_end(w, worker, l);
	w->main = main;
	return w;
}

static const struct {
	const char *name;
	const char *summary;
	struct workload *(*build)(void);
} builtins[] = {
	{ "ping-pong", "two Gs trade a token 10,000 times over unbuffered channels", ping_pong },
	{ "spawn-tree", "10,000 Gs spawned as a tree, 10 us of work each", spawn_tree },
	{ "spawn-wide", "1,001,001 Gs from 1,000 spawners, 1 us of work each", spawn_wide },
	{ "yield-storm", "1,000 Gs, each 100 x (5 us of work, yield)", yield_storm },
};

int wl_builtin_count(void)
{
	return (int)(sizeof(builtins) / sizeof(builtins[0]));
}

const char *wl_builtin_name(int i)
{
	return builtins[i].name;
}

const char *wl_builtin_summary(int i)
{
	return builtins[i].summary;
}

struct workload *wl_builtin(const char *name, struct err *e)
{
	for (int i = 0; i < wl_builtin_count(); i++)
		if (strcmp(builtins[i].name, name) == 0)
			return builtins[i].build();
	char names[256] = "";
	size_t len = 0;
	for (int i = 0; i < wl_builtin_count(); i++)
		len = str_list_add(names, sizeof(names), len, builtins[i].name);
	err_set(e, "no such built-in workload '%s' (built-ins: %s)", name, names);
	return NULL;
}
