/* Every file schedlab writes as a result (--json, --csv, -o, a baseline,
 * a calibration, a store) goes through here, so that no output is ever
 * lost or half written:
 *
 *   - "-" is standard output, flushed and checked at the end;
 *   - a regular file, or a path that does not exist yet, is written to a
 *     temporary file beside it (same folder, so the rename cannot cross
 *     file systems), flushed to disk, checked, and renamed over the path
 *     only when whole: a full disk, a file-size limit or a kill leaves the
 *     old file as it was, and no temporary file behind (but after a kill);
 *   - anything else that exists (a device, a FIFO, a socket) is written
 *     through as it is: renaming a file over /dev/null would replace the
 *     device with a regular file.
 *
 * Every write's error is kept and reported once, at output_commit, naming
 * the option and the path. */
#ifndef SCHEDLAB_UTIL_OUTPUT_H
#define SCHEDLAB_UTIL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "util/util.h"

struct output {
	FILE *f;          /* write here */
	char *path;       /* the target ("-": stdout) */
	char *tmp;        /* the temporary file renamed over path, or NULL */
	const char *what; /* the option, for messages: "--json" */
};

/* Opens path for writing (what names it in messages: "--json", "-o").
 * false with e set ("--json FILE: reason") if it cannot be written. */
bool output_open(struct output *o, const char *what, const char *path, struct err *e);
/* Makes the output whole: flushes, syncs and checks every write, then
 * renames the temporary file over the target.  false with e set, the
 * target untouched and the temporary file removed, if any write failed. */
bool output_commit(struct output *o, struct err *e);
/* Gives the output up: the temporary file is removed, the target left as
 * it was. */
void output_abort(struct output *o);

/* The same for a command, saying "schedlab CMD: WHAT PATH: reason" on
 * stderr when it fails: output_start is output_open (false: nothing to
 * write to), output_finish is output_commit (0, or EXIT_BADINPUT). */
bool output_start(struct output *o, const char *cmd, const char *what, const char *path);
int output_finish(struct output *o, const char *cmd);
/* The whole of text to path in one go, as above. */
int output_write_text(const char *cmd, const char *what, const char *path, const char *text);

#endif
