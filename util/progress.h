/* Progress on stderr for the commands that run long: a line redrawn in
 * place on a terminal, and elsewhere (a CI log, a pipe) a plain line now
 * and then, so that a long sweep is never silent and a log never fills
 * with carriage returns.  [docs/runtime.md, "Progress"] */
#ifndef SCHEDLAB_UTIL_PROGRESS_H
#define SCHEDLAB_UTIL_PROGRESS_H

#include <stdbool.h>

/* --progress WHEN */
enum progress_when {
	PROGRESS_AUTO,     /* redrawn on a terminal, else a line every 10 s */
	PROGRESS_ALWAYS,   /* the same, but a line every 2 s, and the last one */
	PROGRESS_NEVER,
};

/* Parses "auto", "always" or "never". */
bool progress_parse(const char *s, enum progress_when *w);

/* The intervals, in seconds. */
#define PROGRESS_REDRAW_S 0.5
#define PROGRESS_LINE_S 10.0
#define PROGRESS_LINE_ALWAYS_S 2.0

struct progress {
	bool on, redraw, printed;
	double every, last;
};

/* Starts at t0 (seconds, any monotonic origin): the first report is
 * due one interval later. */
void progress_start(struct progress *p, enum progress_when w, double t0);
/* Whether a report is due at now; if so, it counts as made. */
bool progress_due(struct progress *p, double now);
/* Prints one report (printf-style, no newline): redrawn or a line. */
void progress_print(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The end: the last state is wanted on a terminal, with ALWAYS, and in a
 * log that had reports; a redrawn line is then ended with a newline. */
bool progress_wants_last(const struct progress *p);
void progress_finish(struct progress *p);

#endif
