/* Locks and notes: a futex mutex and a one-shot wake-up, on the contract's
 * atomics and futex, so that both are priced in simulation like any other
 * shared access.
 *
 * The mutex is the one Go's runtime uses on Linux (lock_futex.go): a key
 * that is unlocked, locked, or locked with possible sleepers.  lock()
 * swaps in "locked"; if the lock was taken it spins a little -- a few
 * rounds of PAUSE, then one sched_yield -- retrying whenever it sees the
 * key unlocked, and then sleeps on the futex with the key set to
 * "sleeping", so that unlock() knows to wake someone.  A waiter that got
 * the lock after sleeping keeps the key at "sleeping": others may still be
 * asleep, and a spurious wake-up costs less than a lost one. */
#include "core/runtime.h"

#include <assert.h>

enum {
	MUTEX_UNLOCKED = RT_MUTEX_UNLOCKED,
	MUTEX_LOCKED = RT_MUTEX_LOCKED,
	MUTEX_SLEEPING = RT_MUTEX_SLEEPING,
};

/* Spinning before sleeping (Go: active_spin, active_spin_cnt, passive_spin). */
#define ACTIVE_SPIN 4
#define ACTIVE_SPIN_PAUSES 30
#define PASSIVE_SPIN 1

void rt_mutex_init(struct rt *rt, struct rt_mutex *l, plat_line_t line, enum rt_lock_class cls)
{
	(void)rt;
	plat_u32_init(&l->key, MUTEX_UNLOCKED, line);
	l->cls = (uint8_t)cls;
}

/* Takes the lock if the key reads unlocked, keeping state as the key. */
static bool try_take(struct rt_mutex *l, uint32_t state)
{
	while (plat_load_u32(&l->key, memory_order_relaxed) == MUTEX_UNLOCKED) {
		uint32_t expected = MUTEX_UNLOCKED;
		if (plat_cas_u32(&l->key, &expected, state, memory_order_acquire))
			return true;
	}
	return false;
}

/* The lock was taken (v: LOCKED or SLEEPING): spin, then sleep.  m (NULL
 * outside an M) sleeps off a CPU [proc: Where the time goes]. */
static void lock_slow(struct m *m, struct rt_mutex *l, uint32_t v)
{
	/* If SLEEPING, we must keep it so, since someone else may be asleep. */
	uint32_t wait = v;
	for (;;) {
		for (int i = 0; i < ACTIVE_SPIN; i++) {
			if (try_take(l, wait))
				return;
			plat_procyield(ACTIVE_SPIN_PAUSES);
		}
		for (int i = 0; i < PASSIVE_SPIN; i++) {
			if (try_take(l, wait))
				return;
			plat_osyield();
		}
		v = plat_xchg_u32(&l->key, MUTEX_SLEEPING, memory_order_acquire);
		if (v == MUTEX_UNLOCKED)
			return;
		wait = MUTEX_SLEEPING;
		if (m)
			rt_mt_switch(m, RT_MT(RT_CPU_LOCK_SLEEP, l->cls));
		plat_futex_wait(&l->key, MUTEX_SLEEPING, -1);
		if (m)
			rt_mt_switch(m, RT_MT(RT_CPU_LOCK_SPIN, l->cls));
	}
}

/* rt_lock (runtime.h) found the lock taken: v is what its swap read. */
void rt_lock_slow(struct rt_mutex *l, uint32_t v)
{
	/* Only the slow path is timed, and only in a timed run: it is the
	 * M's lock wait [proc: Where the time goes]. */
	struct m *m = plat_self();
	unsigned was = m ? rt_mt_switch(m, RT_MT(RT_CPU_LOCK_SPIN, l->cls)) : 0;
	lock_slow(m, l, v);
	if (m)
		rt_mt_switch(m, was);
}

/* For assertions: the lock is held (by someone; the key does not say who). */
bool rt_mutex_held(struct rt_mutex *l)
{
	return plat_peek_u32(&l->key) != MUTEX_UNLOCKED;
}

/* Notes: the key is 0 until the wake-up, 1 after. */

void rt_note_init(struct rt_note *n, plat_line_t line)
{
	plat_u32_init(&n->key, 0, line);
}

/* Only when nobody can be sleeping on it or waking it. */
void rt_note_clear(struct rt_note *n)
{
	plat_store_u32(&n->key, 0, memory_order_relaxed);
}

void rt_note_sleep(struct rt_note *n)
{
	/* load-acquire: what the waker wrote before its wake-up is visible */
	while (plat_load_u32(&n->key, memory_order_acquire) == 0)
		plat_futex_wait(&n->key, 0, -1);
}

bool rt_note_tsleep(struct rt_note *n, int64_t ns)
{
	int64_t deadline = rt_time_after(plat_nanotime(), ns);
	while (plat_load_u32(&n->key, memory_order_acquire) == 0) {
		int64_t left = deadline - plat_nanotime();
		if (left <= 0)
			return false;
		plat_futex_wait(&n->key, 0, left);
	}
	return true;
}

void rt_note_wakeup(struct rt_note *n)
{
	/* swap-release: publishes what the waker set up for the sleeper */
	uint32_t old = plat_xchg_u32(&n->key, 1, memory_order_release);
	assert(old == 0 && "note woken twice");
	(void)old;
	plat_futex_wake(&n->key, 1);
}
