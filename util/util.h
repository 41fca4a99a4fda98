/* Small helpers shared by every folder: allocation that cannot fail
 * silently, and the error-reporting convention of the command line. */
#ifndef SCHEDLAB_UTIL_H
#define SCHEDLAB_UTIL_H

#include <stddef.h>
#include <stdio.h>

/* Allocation failure is not an input error: print and abort-style exit 3. */
_Noreturn void die_oom(size_t bytes);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "dir/numa4.json" -> "numa4": a file's base name without its extension. */
char *path_stem(const char *path);

/* Appends item to the comma-separated list in buf (which starts as ""),
 * truncating at size; used is the list's length so far, and the new length
 * is returned.  For the "expected one of: a, b, c" of error messages. */
size_t str_list_add(char *buf, size_t size, size_t used, const char *item);

/* Exit statuses of the command line (DESIGN.md). */
enum {
	EXIT_FOUND = 1,     /* the run found what it was asked to find */
	EXIT_BADINPUT = 2,  /* bad input: a message names file, JSON path, problem */
	/* 3: the simulator itself ran out of memory (die_oom); valid input
	 * cannot get there, budgets end such runs first (exit 2) */
	EXIT_LIMIT = 4,     /* a simulated run was cut at a time limit: its report is partial */
};

/* An error message buffer passed down by loaders: they fill it and return
 * failure; the command line prints it once and exits 2.  Keeping messages
 * in the caller's hands (instead of printing where they arise) lets tests
 * check them. */
struct err {
	char msg[1024];
};
void err_set(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
