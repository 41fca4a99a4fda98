/* trace122-encode TEST|TEXT OUT: writes the binary form of a Go 1.22+
 * trace given in Go's text form (a Go testdata .test archive, or the bare
 * text starting "Trace Go1.N") -- for trying `schedlab workload import`
 * on Go's test traces by hand.  trace122-encode --synth MB OUT writes a
 * valid synthetic 1.22 trace of about MB megabytes (tests/trace122/synth.h),
 * for measuring the reader's speed and memory; trace122-encode --read
 * TRACE reads a trace through ti_open and counts its stream's events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/trace122/encode.h"
#include "tests/trace122/synth.h"
#include "trace/import.h"

int main(int argc, char **argv)
{
	struct err e = { { 0 } };
	if (argc == 4 && strcmp(argv[1], "--synth") == 0) {
		char *end;
		unsigned long long mb = strtoull(argv[2], &end, 10);
		if (*end || !mb || mb > 100000) {
			fprintf(stderr, "trace122-encode: --synth: \"%s\" is not a size in MB\n", argv[2]);
			return 2;
		}
		uint64_t cycles, gens;
		if (!t122_synth(argv[3], (uint64_t)mb << 20, 4 << 20, &cycles, &gens, &e)) {
			fprintf(stderr, "trace122-encode: %s\n", e.msg);
			return 2;
		}
		printf("%s: %llu generations, %llu goroutines, %llu events in the stream\n", argv[3],
		       (unsigned long long)gens, (unsigned long long)cycles,
		       (unsigned long long)(cycles * 6 + 3));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--read") == 0) {
		struct ti_reader *r = ti_open(argv[2], &e);
		if (!r) {
			fprintf(stderr, "trace122-encode: %s\n", e.msg);
			return 2;
		}
		uint64_t n = 0, kinds[TI_USER_TASK + 1] = { 0 };
		struct ti_event ev;
		int got;
		while ((got = ti_next(r, &ev, &e)) == 1) {
			n++;
			if (ev.kind <= TI_USER_TASK)
				kinds[ev.kind]++;
		}
		if (got < 0) {
			fprintf(stderr, "trace122-encode: %s\n", e.msg);
			ti_close(r);
			return 2;
		}
		printf("%s: %s, %llu events (create %llu, start %llu, block %llu, unblock %llu, end %llu)\n",
		       argv[2], ti_version(r), (unsigned long long)n, (unsigned long long)kinds[TI_G_CREATE],
		       (unsigned long long)kinds[TI_G_START], (unsigned long long)kinds[TI_G_BLOCK],
		       (unsigned long long)kinds[TI_G_UNBLOCK], (unsigned long long)kinds[TI_G_END]);
		ti_close(r);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: trace122-encode TEST|TEXT OUT | --synth MB OUT | --read TRACE\n");
		return 2;
	}
	size_t len;
	char *text = input_read(argv[1], &len, &e);
	if (!text) {
		fprintf(stderr, "trace122-encode: %s\n", e.msg);
		return 2;
	}
	bool archive = strncmp(text, "-- expect --\n", 13) == 0;
	int bad_sizes = 0;
	bool ok;
	if (archive) {
		char expect[256];
		ok = t122_encode_test(argv[1], argv[2], expect, sizeof expect, &bad_sizes, &e);
		if (ok)
			printf("%s: Go expects: %s\n", argv[1], expect);
	} else {
		unsigned char *bin = NULL;
		size_t n = 0;
		ok = t122_encode(text, &bin, &n, &bad_sizes, &e);
		if (ok) {
			FILE *f = fopen(argv[2], "wb");
			ok = f && fwrite(bin, 1, n, f) == n;
			if (f && fclose(f) != 0)
				ok = false;
			if (!ok)
				err_set(&e, "%s: cannot write", argv[2]);
		} else {
			struct err w = e;
			err_set(&e, "%s: %s", argv[1], w.msg);
		}
		free(bin);
	}
	free(text);
	if (!ok) {
		fprintf(stderr, "trace122-encode: %s\n", e.msg);
		return 2;
	}
	if (bad_sizes)
		fprintf(stderr, "trace122-encode: %s: %d batch(es) declare a size their events do not have\n",
			argv[1], bad_sizes);
	return 0;
}
