/* Engine benchmark: events per second of the classic hold model at several
 * queue sizes, and the cost of an actor switch.  Prints figures; asserts
 * nothing (targets are in the issue, judged by whoever reads the output). */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/engine.h"

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Hold model: every event, when it fires, schedules one more at now + an
 * exponentially distributed delay, so the queue size stays constant.  The
 * delays are drawn ahead of time so the figure is the engine's alone. */
#define NDELAYS 65536
static sim_time_t delays[NDELAYS];
static unsigned delay_i;
static uint64_t remaining;

static void hold(struct sim_engine *eng, void *arg)
{
	if (remaining == 0)
		return;
	remaining--;
	sim_schedule(eng, sim_now(eng) + delays[delay_i++ & (NDELAYS - 1)], hold, arg);
}

static void bench_hold(size_t pending, uint64_t events)
{
	struct sim_engine *eng = sim_engine_new();
	for (size_t i = 0; i < pending; i++)
		sim_schedule(eng, delays[(i * 7919) & (NDELAYS - 1)], hold, NULL);
	remaining = events;
	double t0 = wall();
	uint64_t fired = sim_run(eng);
	double t1 = wall();
	printf("hold model, %7zu pending: %6.1f M events/s  (%5.1f ns/event, %llu events)\n", pending,
	       (double)fired / (t1 - t0) / 1e6, (t1 - t0) * 1e9 / (double)fired,
	       (unsigned long long)fired);
	sim_engine_free(eng);
}

static struct sim_actor *ping, *pong;
static uint64_t rounds;

static void player(struct sim_actor *self, void *arg)
{
	struct sim_actor **other = arg;
	for (uint64_t i = 0; i < rounds; i++) {
		sim_wake(*other, sim_now(self->eng) + 1);
		sim_block(self);
	}
	sim_wake(*other, sim_now(self->eng));
}

static void bench_switch(uint64_t n)
{
	struct sim_engine *eng = sim_engine_new();
	rounds = n;
	ping = sim_spawn(eng, "ping", player, &pong, 0);
	pong = sim_spawn(eng, "pong", player, &ping, 0);
	double t0 = wall();
	sim_run(eng);
	double t1 = wall();
	uint64_t sw = sim_stats(eng)->switches;
	printf("actor switch (wake + block, via the event queue): %5.1f ns  (%.1f M switches/s)\n",
	       (t1 - t0) * 1e9 / (double)sw, (double)sw / (t1 - t0) / 1e6);
	sim_engine_free(eng);
}

static struct ctx main_ctx, co_ctx;
static void co_fn(void *arg)
{
	(void)arg;
	for (;;)
		ctx_switch(&co_ctx, &main_ctx);
}

static void bench_ctx(uint64_t n)
{
	static char stack[16384];
	ctx_init_thread(&main_ctx);
	ctx_make(&co_ctx, stack, sizeof(stack), co_fn, NULL);
	double t0 = wall();
	for (uint64_t i = 0; i < n; i++)
		ctx_switch(&main_ctx, &co_ctx);
	double t1 = wall();
	printf("bare context switch: %5.1f ns\n", (t1 - t0) * 1e9 / (double)(2 * n));
	ctx_destroy(&co_ctx);
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 1);
	for (int i = 0; i < NDELAYS; i++)
		delays[i] = (sim_time_t)gsl_ran_exponential(r, 1000.0) + 1;
	gsl_rng_free(r);

	/* A second argument picks one part: hold, switch or ctx. */
	const char *only = argc > 2 ? argv[2] : NULL;
	uint64_t n = (uint64_t)(20e6 * scale);
	if (!only || strcmp(only, "hold") == 0) {
		bench_hold(16, n);
		bench_hold(1000, n);
		bench_hold(100000, n);
	}
	if (!only || strcmp(only, "switch") == 0)
		bench_switch((uint64_t)(10e6 * scale));
	if (!only || strcmp(only, "ctx") == 0)
		bench_ctx((uint64_t)(20e6 * scale));
	return 0;
}
