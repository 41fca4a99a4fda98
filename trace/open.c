/* The front of every trace reader (trace/import.h): which reader a file's
 * header asks for, and the calls that reach that reader's own functions. */
#include "trace/import.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/util.h"

/* The runtime's, the sync package's and the internal packages' functions:
 * a blocking call's own frames, above the program's.  An empty name (a
 * frame the runtime could not name) is none of the program's either. */
bool ti_library_fn(const char *fn)
{
	return !*fn || strncmp(fn, "runtime.", 8) == 0 || strncmp(fn, "runtime/", 8) == 0 ||
	       strncmp(fn, "sync.", 5) == 0 || strncmp(fn, "internal/", 9) == 0;
}

int ti_header_minor(const unsigned char *head, size_t n, char out[16])
{
	/* "go 1.N trace" padded with NULs to 16 bytes. */
	if (n < 16 || memcmp(head, "go 1.", 5) != 0)
		return -1;
	int minor = 0;
	size_t i = 5;
	while (i < 16 && head[i] >= '0' && head[i] <= '9' && minor < 1000)
		minor = minor * 10 + (head[i++] - '0');
	if (i == 5 || i + 6 > 16 || memcmp(head + i, " trace", 6) != 0)
		return -1;
	for (size_t j = i + 6; j < 16; j++)
		if (head[j] != 0)
			return -1;
	/* minor is at most 9999 (the loop stops past 999); the modulo says
	 * so to gcc's -Wformat-truncation at -O0 */
	if (out)
		snprintf(out, 16, "go 1.%u", (unsigned)minor % 10000u);
	return minor;
}

struct ti_reader *ti_open(const char *path, struct err *e)
{
	/* the readers open the file again by name: a pipe's bytes would be
	 * gone, and a FIFO would wait for a second writer */
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		err_set(e, "%s: a folder, not a trace file", path);
		return NULL;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		err_set(e, "%s: not a regular file: a Go execution trace is read from a file (save "
			"it to a file first)", path);
		return NULL;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		err_set(e, "%s: %s", path, strerror(errno));
		return NULL;
	}
	unsigned char head[16];
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	char ver[16];
	int minor = ti_header_minor(head, n, ver);
	if (minor < 0) {
		err_set(e, "%s: offset 0: not a Go execution trace (no \"go 1.N trace\" header)", path);
		return NULL;
	}
	if (minor >= 22)
		return ti_open_go122(path, e);
	return ti_open_go119(path, e);
}

int ti_next(struct ti_reader *r, struct ti_event *ev, struct err *e)
{
	return r->ops->next(r, ev, e);
}

const char *ti_version(const struct ti_reader *r)
{
	return r->version;
}

void ti_close(struct ti_reader *r)
{
	if (r)
		r->ops->close(r);
}
