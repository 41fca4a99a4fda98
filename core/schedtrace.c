/* Go's GODEBUG=schedtrace (and scheddetail) lines from the core's state.
 *
 * The format is Go 1.26's, field for field (src/runtime/proc.go,
 * schedtrace), or Go 1.19's where the run follows that release
 * (choices.go_release, steal's go=119): one SCHED line, and with detail a
 * P line per P, an M line per M (newest first, as allm) and a G line per G
 * ever made.  Go 1.26 adds needspinning to the SCHED line, spaces inside
 * the brackets of the queue lengths and a schedticks=[ ... ] list after
 * them, and prints a missing M, P or G as nil where 1.19 printed -1.
 * Fields schedlab has no counterpart for (GC, locked threads, malloc
 * state) are printed as Go prints them when idle: 0, false, nil (-1) or
 * empty.
 *
 * Who calls it makes the state still enough to read: the simulated
 * platform between two engine events (nothing runs then; reads are
 * unpriced peeks, so the run's accesses keep their prices and the report
 * stays byte-identical), the native one from its own thread holding
 * sched.lock, as Go's sysmon does.  Natively most of what is read is
 * still written meanwhile by the Ms owning it (a P's schedtick, an M's
 * curg): Go reads those racily, and so does this, with relaxed atomic
 * loads so that no value is torn or cached; ThreadSanitizer is told not
 * to watch this file's reads (no_sanitize), since the race is the design.
 * Gs and Ms are never freed during a run, so a pointer read racily still
 * points at a G or an M. */
#include "core/runtime.h"

#include <stdio.h>
#include <stdlib.h>

#define RACY(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

#if defined(__SANITIZE_THREAD__)
#define SCHEDTRACE_RACY __attribute__((no_sanitize("thread")))
#else
#define SCHEDTRACE_RACY
#endif

/* Go's G status numbers (runtime2.go): _Gdead is 6, 5 being unused
 * there (_Gmoribund_unused). */
static int go_gstatus(enum g_status s)
{
	switch (s) {
	case G_IDLE: return 0;
	case G_RUNNABLE: return 1;
	case G_RUNNING: return 2;
	case G_SYSCALL: return 3;
	case G_WAITING: return 4;
	case G_DEAD: return 6;
	}
	return 0;
}

/* The Gs queued on pp: its ring, as Go counts (runnext excluded), and its
 * shared queue, where a policy places Gs from elsewhere (numa's), which
 * Go has no counterpart of but which is pp's queue all the same. */
SCHEDTRACE_RACY static uint32_t p_queued(struct p *pp)
{
	uint32_t h = rq_head(plat_peek_u64(&pp->runqhead));
	uint32_t t = plat_peek_u32(&pp->runqtail);
	uint32_t n = t - h;
	if (pp->sharedq_used)
		n += plat_peek_u32(&pp->sharedq_size);
	return n;
}

/* An M's, P's or G's id, or none: nil in Go 1.26's lines, -1 in 1.19's
 * (buf: 24 bytes). */
static const char *id_or_none(char *buf, bool go126, long long id)
{
	if (id < 0)
		return go126 ? "nil" : "-1";
	snprintf(buf, 24, "%lld", id);
	return buf;
}

SCHEDTRACE_RACY static void print_ms(struct rt *rt, FILE *f)
{
	bool go126 = rt->choices.go_release >= 126;
	char a[24], b[24];
	/* Go's blocked: the M sleeps on a note.  Here: on the idle list. */
	int mcount = RACY(rt->sched.mcount);
	bool *idle = xcalloc((size_t)mcount + 1, sizeof(*idle));
	for (struct m *m = RACY(rt->sched.midle); m; m = RACY(m->schedlink))
		if (m->id >= 0 && m->id < mcount)
			idle[m->id] = true;
	for (struct m *m = RACY(rt->allm); m; m = RACY(m->alllink)) {
		struct p *pp = RACY(m->p);
		struct g *g = RACY(m->curg);
		bool spinning = RACY(m->spinning);
		fprintf(f,
			"  M%d: p=%s curg=%s mallocing=0 throwing=0 preemptoff= locks=0 dying=0 "
			"spinning=%s blocked=%s lockedg=%s\n",
			m->id, id_or_none(a, go126, pp ? pp->id : -1),
			id_or_none(b, go126, g ? (long long)RACY(g->goid) : -1LL),
			spinning ? "true" : "false",
			m->id >= 0 && m->id < mcount && idle[m->id] ? "true" : "false",
			go126 ? "nil" : "-1");
	}
	free(idle);
}

SCHEDTRACE_RACY static void print_gs(struct rt *rt, FILE *f)
{
	bool go126 = rt->choices.go_release >= 126;
	char a[24];
	size_t n = RACY(rt->nallg);
	struct g **allg = RACY(rt->allg);
	for (size_t i = 0; i < n; i++) {
		struct g *g = allg[i];
		enum g_status st = RACY(g->status);
		if (st == G_IDLE)
			continue;   /* made and not yet given a goid */
		struct m *m = RACY(g->m);
		/* Go clears a G's wait reason when it exits and keeps it
		 * otherwise (a readied G shows why it last waited); a G made
		 * here does not reset it (a reused G's line is cold), so a new
		 * G may show its struct's last life's reason. */
		const char *why = st == G_DEAD ? NULL : rt_wait_names[RACY(g->waitreason)];
		fprintf(f, "  G%llu: status=%d(%s) m=%s lockedm=%s\n",
			(unsigned long long)RACY(g->goid), go_gstatus(st), why ? why : "",
			id_or_none(a, go126, st == G_RUNNING || st == G_SYSCALL ? (m ? m->id : -1) : -1),
			go126 ? "nil" : "-1");
	}
}

SCHEDTRACE_RACY static void print_snapshot(struct rt *rt, int64_t since_ns, bool detail,
					   FILE *f)
{
	struct sched *s = &rt->sched;
	bool go126 = rt->choices.go_release >= 126;
	char a[24];
	fprintf(f, "SCHED %lldms: gomaxprocs=%d idleprocs=%u threads=%d spinningthreads=%u",
		(long long)(since_ns / 1000000), rt->procs, plat_peek_u32(&s->npidle),
		RACY(s->mcount), plat_peek_u32(&s->nmspinning));
	if (go126)
		fprintf(f, " needspinning=%u", plat_peek_u32(&s->needspinning));
	fprintf(f, " idlethreads=%d runqueue=%u", RACY(s->nmidle), plat_peek_u32(&s->runqsize));
	if (detail && go126)   /* its gcwaiting and sysmonwait are booleans */
		fprintf(f, " gcwaiting=false nmidlelocked=0 stopwait=0 sysmonwait=%s\n",
			plat_peek_u32(&s->sysmonwait) ? "true" : "false");
	else if (detail)
		fprintf(f, " gcwaiting=0 nmidlelocked=0 stopwait=0 sysmonwait=%u\n",
			plat_peek_u32(&s->sysmonwait));
	for (int i = 0; i < rt->procs; i++) {
		struct p *pp = rt->allp[i];
		if (detail) {
			struct m *m = RACY(pp->m);
			fprintf(f,
				"  P%d: status=%u schedtick=%u syscalltick=%u m=%s runqsize=%u "
				"gfreecnt=%d timerslen=%u\n",
				i, plat_peek_u32(&pp->status), RACY(pp->schedtick),
				plat_peek_u32(&pp->syscalltick), id_or_none(a, go126, m ? m->id : -1),
				p_queued(pp), RACY(pp->ngfree), RACY(pp->ntimers));
		} else if (go126) {
			fprintf(f, "%s%u%s", i == 0 ? " [ " : " ", p_queued(pp),
				i == rt->procs - 1 ? " ]" : "");
		} else {
			fprintf(f, "%s%u%s", i == 0 ? " [" : " ", p_queued(pp),
				i == rt->procs - 1 ? "]\n" : "");
		}
	}
	if (!detail && go126) {
		fprintf(f, " schedticks=[ ");
		for (int i = 0; i < rt->procs; i++)
			fprintf(f, "%u ", RACY(rt->allp[i]->schedtick));
		fprintf(f, "]\n");
	}
	if (!detail)
		return;
	print_ms(rt, f);
	print_gs(rt, f);
}

void rt_schedtrace(struct rt *rt, int64_t since_ns, FILE *out)
{
	/* One write for the whole snapshot, so that lines of other writers
	 * to the same stream (a native run's Gs) do not land inside it. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		die_oom(len);
	print_snapshot(rt, since_ns, rt->scheddetail, f);
	if (fclose(f) != 0)
		die_oom(len);
	fwrite(buf, 1, len, out);
	fflush(out);
	free(buf);
}
