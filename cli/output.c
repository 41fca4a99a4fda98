/* Output files named on the command line (--json FILE, --csv FILE, -o
 * FILE): claimed before the run, written after it.
 *
 * Claiming opens (creates) the file, so a path that cannot be written
 * fails at once with exit 2, not after a run of minutes.  It does not
 * truncate: the report is written whole at the end, by the command, so a
 * run that fails leaves an existing file as it was; and a file the claim
 * created that is still empty when the command returns (it failed before
 * writing) is removed.  A FIFO or device that exists is checked for write
 * permission only: opening a FIFO would wait for its reader and closing
 * it would end that reader's input.
 *
 * A claim is refused when its file is one of the command's inputs
 * (cli_in_note: the store a report reads, the baseline compared with,
 * the workload run) or another output's: written over, it would be lost. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/output.h"

#define MAX_CLAIMS 4
#define MAX_INPUTS 64

static struct {
	char *path;
	const char *opt;
	bool created;
} claims[MAX_CLAIMS];
static int nclaims;
static char *inputs[MAX_INPUTS];
static int ninputs;

void cli_in_note(const char *path)
{
	if (path && strcmp(path, "-") != 0 && ninputs < MAX_INPUTS)
		inputs[ninputs++] = xstrdup(path);
}

/* 0, or 2 after saying which input or output path already is. */
static int same_file(const char *cmd, const char *opt, const char *path)
{
	const char *what = NULL, *other = NULL;
	for (int i = 0; i < ninputs && !what; i++)
		if (output_is_file(path, inputs[i]))
			what = "an input of the command", other = inputs[i];
	for (int i = 0; i < nclaims && !what; i++)
		if (strcmp(path, claims[i].path) == 0 || output_is_file(path, claims[i].path))
			what = claims[i].opt, other = claims[i].path;
	if (!what)
		return 0;
	char *a = str_shown(path, 256), *b = str_shown(other, 256);
	fprintf(stderr, "schedlab %s: %s %s: the same file as %s (%s): it would be overwritten\n",
		cmd, opt, a, what, b);
	free(a);
	free(b);
	return EXIT_BADINPUT;
}

int cli_out_claim(const char *cmd, const char *opt, const char *path)
{
	if (strcmp(path, "-") == 0)
		return 0;
	int same = same_file(cmd, opt, path);
	if (same)
		return same;
	bool created = false;
	int err = 0;
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		err = EISDIR;
	} else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (access(path, W_OK) != 0)
			err = errno;
	} else {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0)
			created = true;
		else if (errno == EEXIST)
			fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			err = errno;
		else
			close(fd);
	}
	if (err) {
		char *shown = str_shown(path, 512);
		fprintf(stderr, "schedlab %s: %s %s: %s\n", cmd, opt, shown, strerror(err));
		free(shown);
		return EXIT_BADINPUT;
	}
	if (nclaims < MAX_CLAIMS) {
		claims[nclaims].path = xstrdup(path);
		claims[nclaims].opt = opt;
		claims[nclaims++].created = created;
	}
	return 0;
}

void cli_out_release(void)
{
	for (int i = 0; i < nclaims; i++) {
		struct stat st;
		if (claims[i].created && stat(claims[i].path, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size == 0)
			unlink(claims[i].path);
		free(claims[i].path);
	}
	nclaims = 0;
	for (int i = 0; i < ninputs; i++)
		free(inputs[i]);
	ninputs = 0;
}
