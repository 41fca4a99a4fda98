/* Test helper: the binary form of a Go 1.22+ execution trace from Go's
 * text form (Go's src/internal/trace/testdata/tests files, NAME.test, and
 * traces the tests write in that form), so the reader (trace/read122.c)
 * is tested on the bytes Go's own writer would make of them. */
#ifndef SCHEDLAB_TESTS_TRACE122_ENCODE_H
#define SCHEDLAB_TESTS_TRACE122_ENCODE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/util.h"

/* Encodes the text of a trace ("Trace Go1.22" then one event a line) into
 * a malloc'd buffer (*out, *n).  Arguments are written as the text gives
 * them, after checking their names against the reader's event table (so
 * a table that disagrees with Go's text fails here); *bad_sizes counts
 * batches whose declared size is not what their events encode to (Go's
 * tests declare sizes by hand: 0 unless a test cuts a batch short on
 * purpose).  False with e set ("line N: ...") on text it cannot read. */
bool t122_encode(const char *text, unsigned char **out, size_t *n, int *bad_sizes, struct err *e);

/* Reads a test of Go's (a txtar archive: "-- expect --" then "-- trace
 * --"), writes the trace's binary form to out_path and the expectation's
 * first line ("SUCCESS", or FAILURE "regexp") to expect. */
bool t122_encode_test(const char *test_path, const char *out_path, char *expect, size_t expect_n,
		      int *bad_sizes, struct err *e);

#endif
