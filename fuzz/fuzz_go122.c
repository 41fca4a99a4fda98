/* libFuzzer target: Go execution traces, 1.22+ (trace/read122.c) and, from
 * the 1.19 seeds, 1.11-1.21 (trace/read19.c), read through ti_open as
 * `schedlab workload import' reads them, then translated (trace/import.c).
 * Besides no crash: a refusal is one valid line naming the file and an
 * offset inside it, the stream's time never goes backwards, and what the
 * reader refuses the import refuses. */
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "trace/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The reader takes a file (it streams it): give it one. */
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof path, "/tmp/fuzz-go122-%d.trace", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	struct err e = { "" };
	struct ti_reader *r = ti_open(path, &e);
	int got = -1;
	if (r) {
		struct ti_event ev;
		int64_t last = 0;
		while ((got = ti_next(r, &ev, &e)) == 1) {
			if (ev.ts < last || ev.off >= size)
				abort();
			last = ev.ts;
		}
		ti_close(r);
	}
	if (got < 0) {
		fuzz_check_message(&e);
		const char *o = strstr(e.msg, ": offset ");
		if (o && strtoull(o + 9, NULL, 10) > size)
			abort();
	}
	FILE *out = fopen("/dev/null", "w");
	if (!out)
		abort();
	struct ti_stats st;
	struct err ie = { "" };
	bool ok = ti_import(path, "fuzz", out, &st, &ie);
	fclose(out);
	if (!ok)
		fuzz_check_message(&ie);
	if (ok && (!r || got < 0))
		abort();
	return 0;
}
