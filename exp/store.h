/* The results store [docs/experiments.md, "The store"]: a JSON Lines file,
 * one row per run, each row's inputs, status and report; and its CSV
 * rendering.  Written by compare, sweep and merge; read by merge, report
 * and regress.  Depends on cJSON and util/ only (part of libschedlab).
 *
 * A row:
 *   {"store": 1, "schedlab": "0.1.0", "commit": "f940d16...",
 *    "matrix": "<16 hex>", "index": 17, "runs": 40, "variant": "steal:runnext=0",
 *    "inputs": {"mode", "policy", "set": {...}, "topology", "workload",
 *               "procs", "seed"},
 *    "status": "ok"|"deadlock"|"panic"|"limit"|"crashed"|"error",
 *    "exit_status": 0, "message": null|"...", "report": {...}|null} */
#ifndef SCHEDLAB_EXP_STORE_H
#define SCHEDLAB_EXP_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "util/util.h"

#define EXP_STORE_VERSION 1

/* The largest store read: 1 GiB (a row of a 64-P run is about 20 KiB). */
#define EXP_STORE_MAX_BYTES ((size_t)1 << 30)

/* The longest row read: a report is ~60 KiB; this is a thousand times
 * that. */
#define EXP_STORE_MAX_LINE ((size_t)64 << 20)

/* A file read in 64 KiB blocks and cut into lines with memchr: a line is
 * never read whole before it is checked, so a store that is one endless
 * line (/dev/zero, a pipe) stops at its first NUL byte or at max bytes,
 * not at the kernel's hand. */
struct exp_lines {
	FILE *f;
	char blk[1 << 16];
	size_t pos, len;
	bool eof;
	uint64_t off;                  /* bytes of the file consumed: the next line's offset */
};
enum { EXP_LINE_EOF, EXP_LINE_OK, EXP_LINE_NUL, EXP_LINE_LONG };
/* The next line of r, without its newline, NUL-terminated in *buf (grown
 * as needed; *cap its size): EXP_LINE_OK, EXP_LINE_EOF at the end,
 * EXP_LINE_NUL (a NUL byte in the line) or EXP_LINE_LONG (past max
 * bytes); after the last two the reader is not to be used again. */
int exp_lines_read(struct exp_lines *r, size_t max, char **buf, size_t *cap);

/* o as one line of compact JSON, malloc'd, without a newline.  Unlike
 * cJSON's printer, every number reads back as the very double it was
 * (an integer below 2^53 in whole digits, else the fewest of 15 to 17
 * significant digits that round-trip), so a value read from a store is the
 * value the run measured. */
char *exp_json_line(const cJSON *o);

/* A store read into memory: its rows in file order. */
struct exp_store {
	cJSON **rows;
	long nrows;
	char *path;                    /* as given, for messages */
	long *lines;                   /* each row's line number in the file */
};

/* Reads a JSONL store: every non-empty line one row object, checked for
 * the row's keys and their types.  NULL with e naming the file, the line
 * and the JSON path of what is wrong ("results.jsonl:3: .inputs.procs:
 * expected a number"). */
struct exp_store *exp_store_read(const char *path, struct err *e);
/* The same a row at a time, for a reader that keeps less than every row
 * (merge: where each is): fn is given each row (its to delete or keep),
 * its line number, and the offset and length of its line's bytes in the
 * file; false from fn (e set) stops the scan.  False with e set if the
 * file or a row is bad (as exp_store_read). */
typedef bool exp_row_fn(void *ctx, cJSON *row, long line, uint64_t offset, size_t len,
			struct err *e);
bool exp_store_scan(const char *path, exp_row_fn *fn, void *ctx, struct err *e);
/* One line's row (len bytes at p, NUL-terminated after them and any
 * trailing \r, which is ignored), checked: NULL
 * for a blank line (e untouched) or a bad one (e says why, without the
 * file and line). */
cJSON *exp_row_parse(const char *p, size_t len, struct err *e);
void exp_store_free(struct exp_store *s);
/* Checks one row's shape (as exp_store_read does); e gets ".key: problem". */
bool exp_row_check(const cJSON *row, struct err *e);

/* The item at a dotted path ("cpu.on_cpu.user") below the object o, or
 * NULL (o NULL, no such item).  Every reader of reports and stores looks
 * paths up with it. */
const cJSON *exp_json_dotted(const cJSON *o, const char *path);
/* The item at a dotted path below the row's report's "metrics"
 * ("sched_latency_ns.p99", "cpu.on_cpu.user"), or NULL (no report, no
 * such metric). */
const cJSON *exp_row_metric(const cJSON *row, const char *path);
/* The same as a number: false if absent or not a number. */
bool exp_row_metric_number(const cJSON *row, const char *path, double *v);

/* Writes rows as JSONL to f (one exp_json_line each). */
void exp_store_write_jsonl(FILE *f, cJSON *const *rows, long n);
/* Writes rows as the store's CSV to f: the input columns, a knob.NAME
 * column per knob of the rows' reports, then every scalar leaf under
 * report.metrics by its dotted path, columns in order of first
 * appearance across the rows; an absent value is an empty field. */
void exp_store_write_csv(FILE *f, cJSON *const *rows, long n);
/* Writes rows to path ("-": stdout) as CSV if csv, else JSONL; 0, or
 * EXIT_BADINPUT after a message naming cmd, opt and path. */
int exp_store_save(const char *cmd, const char *opt, const char *path, bool csv,
		   cJSON *const *rows, long n);
/* The same for rows handed over one at a time (a store too large to hold
 * parsed): get gives row i, valid until its next call; i runs from 0 to
 * n - 1, twice for CSV (its columns, then its lines). */
struct exp_rows {
	long n;
	const cJSON *(*get)(void *ctx, long i);
	void *ctx;
};
int exp_store_save_rows(const char *cmd, const char *opt, const char *path, bool csv,
			const struct exp_rows *rows);

/* ---- Rows by run ----
 *
 * The rows of one or more stores by their run (matrix, index), as merge
 * gathers them and report counts them: each row's key and where its line
 * is, not the row (a store of a gigabyte parsed whole took over ten GB),
 * read again when it is needed; a row of a file that cannot be read again
 * (a pipe) is kept as its text.  A row given twice is kept once; two
 * different rows of one run are refused, naming both files and lines. */
struct exp_key {
	char *matrix;
	double index, runs;            /* runs: 0 if the row does not say */
	long file, line, order;        /* order: the nth row added */
	uint64_t offset;               /* its line's bytes in its file */
	size_t len;
	char *text;                    /* its canonical text, if its file is a pipe */
};
struct exp_keys {
	char *const *files;            /* the files read, for messages and reading again */
	struct exp_key *ents;
	long n, cap;
	long file;                     /* the file being read */
	bool keep_text;                /* ... is not a regular file */
	long open_file;                /* reading again: the file open, the row last read */
	int fd;
	cJSON *row;
	bool failed;                   /* a file changed meanwhile: err says which */
	struct err err;
};
void exp_keys_init(struct exp_keys *k, char *const *files);
/* The rows added next are of k->files[file]. */
void exp_keys_file(struct exp_keys *k, long file);
/* A row (checked by exp_row_check, not taken) of the current file, its
 * line number, and its line's offset and length in the file. */
void exp_keys_add(struct exp_keys *k, const cJSON *row, long line, uint64_t offset, size_t len);
/* Sorts k's rows by (matrix, index, order) and puts the index of each to
 * keep into kept[] (room for k->n), a row given twice once.  False with e
 * naming both files and lines if two different rows are of one run. */
bool exp_keys_dedupe(struct exp_keys *k, long *kept, long *nkept, struct err *e);
/* Row i (of k->ents), read again: valid until the next call.  NULL if
 * its file changed meanwhile (k->failed, k->err says where). */
const cJSON *exp_keys_row(struct exp_keys *k, long i);
void exp_keys_free(struct exp_keys *k);

#endif
