/* trace122-encode TEST|TEXT OUT: writes the binary form of a Go 1.22+
 * trace given in Go's text form (a Go testdata .test archive, or the bare
 * text starting "Trace Go1.N") -- for trying `schedlab workload import`
 * on Go's test traces by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/trace122/encode.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: trace122-encode TEST|TEXT OUT\n");
		return 2;
	}
	struct err e = { { 0 } };
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
