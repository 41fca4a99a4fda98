/* Small helpers shared by every folder: allocation that cannot fail
 * silently, and the error-reporting convention of the command line. */
#ifndef SCHEDLAB_UTIL_H
#define SCHEDLAB_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Allocation failure is not an input error: print and abort-style exit 3. */
_Noreturn void die_oom(size_t bytes);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same over a va_list (the caller's va_end stays the caller's). */
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* "dir/numa4.json" -> "numa4": a file's base name without its extension. */
char *path_stem(const char *path);

/* Appends item to the comma-separated list in buf (which starts as ""),
 * truncating at size; used is the list's length so far, and the new length
 * is returned.  For the "expected one of: a, b, c" of error messages. */
size_t str_list_add(char *buf, size_t size, size_t used, const char *item);

/* The unit a duration of ns reads best in -- "ns" below 10 us, then "us",
 * "ms" below 1 s, "s" -- with the divisor and the decimals to print it
 * with; a negative duration (a change) by its magnitude. */
const char *str_ns_unit(double ns, double *scale, int *decimals);

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
/* Formats the message; control bytes and invalid UTF-8 in it are escaped
 * (str_escape) so it stays one line of valid text, and a message longer
 * than the buffer loses its middle, not its end, where the reason is. */
void err_set(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- Input files and the text of messages (input.c) ---- */

/* The largest input file schedlab reads (a workload, a trace, a topology):
 * 64 MiB, over ten times a workload of 100,000 named objects. */
#define INPUT_MAX_BYTES ((size_t)64 << 20)
/* Reads a whole text file (or pipe, or device) of at most INPUT_MAX_BYTES,
 * NUL-terminated, its length in *len (if len); NULL with a message naming
 * the file if it cannot be opened or read, is larger, or holds a NUL. */
char *input_read(const char *path, size_t *len, struct err *e);
/* Opens an input file for reading (input_read's and every reader's open):
 * a folder is refused, and a FIFO with no writer yet is waited for --
 * `-w <(cmd)` and a FIFO its writer opens later both work, as with cat --
 * with a line on stderr after INPUT_FIFO_NOTE_MS of silence, so that a
 * wait for a writer that never comes is visible.  -1, or NULL, with a
 * message naming the file. */
int input_open(const char *path, struct err *e);
FILE *input_fopen(const char *path, struct err *e);
/* input_read of an open fd (closed here) whose first nhead bytes, head,
 * were read already (a look at what kind of file it is). */
char *input_read_fd(int fd, const char *path, const void *head, size_t nhead, size_t *len,
		    struct err *e);
#define INPUT_FIFO_NOTE_MS 1000
/* The line said while a FIFO waits for its other end ("writer" for an
 * input, "reader" for an output), and an fd opened with O_NONBLOCK made
 * to block again once open. */
void fifo_wait_note(const char *path, const char *whom);
void fd_blocking(int fd);
/* Whether s[0..n) is well-formed UTF-8; if not, *bad (if bad) is the
 * offset of the first byte that is not. */
bool utf8_valid(const char *s, size_t n, size_t *bad);
/* Whether s has a control character (below 0x20, or DEL). */
bool str_has_control(const char *s);
/* A copy of s (malloc'd) with control characters and bytes that are not
 * UTF-8 written as \n, \r, \t or \xNN: safe to print on one line and to
 * put in JSON. */
char *str_escape(const char *s);
/* Copies s into dst of size bytes; if it does not fit, its middle is
 * replaced by "..." so its start and its end both survive. */
void str_fit(char *dst, size_t size, const char *s);
/* str_escape(s), cut to fewer than max bytes by str_fit (malloc'd). */
char *str_shown(const char *s, size_t max);

/* The value of the line "KEY: N kB" of a /proc file (/proc/meminfo's
 * MemAvailable, smaps_rollup's AnonHugePages), in bytes; 0 if the file or
 * the line is missing. */
uint64_t proc_kb_bytes(const char *path, const char *key);

/* In a child just forked from parent: arranges for the child to die by
 * SIGKILL when the parent does, and, if the parent is already gone (it
 * died before the prctl could take), dies that way at once.  The child
 * never exits with a status of its own for it: a status would read as the
 * run's result.  Compares with parent, not with 1: under a subreaper an
 * orphan's parent is the subreaper. */
void proc_die_with_parent(int parent);
/* How many of jobs children this machine can hold at once: at most as
 * many as MemAvailable has room for at bytes_each (0: no memory bound),
 * and few enough that fds_each descriptors each leave the caller a share
 * of RLIMIT_NOFILE as large as one child's.  At least 1. */
int proc_jobs_cap(int jobs, uint64_t bytes_each, int fds_each);

/* Greatest common divisor: strides coprime with a count visit every
 * element once (steal orders, walks of a region's lines). */
static inline uint64_t u64_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

#endif
