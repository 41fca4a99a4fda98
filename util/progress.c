#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/progress.h"

bool progress_parse(const char *s, enum progress_when *w)
{
	static const char *const names[] = { "auto", "always", "never" };
	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*w = (enum progress_when)i;
			return true;
		}
	return false;
}

void progress_start(struct progress *p, enum progress_when w, double t0)
{
	memset(p, 0, sizeof(*p));
	p->on = w != PROGRESS_NEVER;
	p->redraw = isatty(STDERR_FILENO);
	p->every = p->redraw ? PROGRESS_REDRAW_S : w == PROGRESS_ALWAYS ? PROGRESS_LINE_ALWAYS_S
									 : PROGRESS_LINE_S;
	p->last = t0;
	/* a terminal, and ALWAYS, get the last state even when no report
	 * was due; a log only after reports that it ends */
	p->printed = p->on && (p->redraw || w == PROGRESS_ALWAYS);
}

bool progress_due(struct progress *p, double now)
{
	if (!p->on || now - p->last < p->every)
		return false;
	p->last = now;
	return true;
}

void progress_print(struct progress *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (p->redraw)
		fputc('\r', stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(p->redraw ? "\033[K" : "\n", stderr);
	fflush(stderr);
	p->printed = true;
}

bool progress_wants_last(const struct progress *p)
{
	return p->on && p->printed;
}

void progress_finish(struct progress *p)
{
	if (p->on && p->printed && p->redraw) {
		fputc('\n', stderr);
		fflush(stderr);
	}
}
