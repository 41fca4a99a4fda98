/* Output files named on the command line (--json FILE, --csv FILE, -o
 * FILE): claimed before the run, written after it (util/output.h).
 *
 * Claiming checks that the file can be written -- an existing one opened
 * without truncating it, and a temporary file made and removed beside it,
 * where the output will be written -- so a path that cannot be written
 * fails at once with exit 2, not after a run of minutes, and nothing is
 * left behind by a command that fails or is killed.  A FIFO or device
 * that exists is checked for write permission only: opening a FIFO would
 * wait for its reader and closing it would end that reader's input.
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

#define MAX_CLAIMS 4
#define MAX_INPUTS 64

static struct {
	char *path;
	const char *opt;
} claims[MAX_CLAIMS];
static int nclaims;
static char *inputs[MAX_INPUTS];
static int ninputs;

void cli_in_note(const char *path)
{
	if (path && strcmp(path, "-") != 0 && ninputs < MAX_INPUTS)
		inputs[ninputs++] = xstrdup(path);
}

/* Whether a and b name one file (device and inode; false if either does
 * not exist). */
static bool same_inode(const char *a, const char *b)
{
	struct stat sa, sb;
	return strcmp(a, "-") != 0 && strcmp(b, "-") != 0 && stat(a, &sa) == 0 &&
	       stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* 0, or 2 after saying which input or output path already is. */
static int same_file(const char *cmd, const char *opt, const char *path)
{
	const char *what = NULL, *other = NULL;
	for (int i = 0; i < ninputs && !what; i++)
		if (same_inode(path, inputs[i]))
			what = "an input of the command", other = inputs[i];
	for (int i = 0; i < nclaims && !what; i++)
		if (strcmp(path, claims[i].path) == 0 || same_inode(path, claims[i].path))
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
	int err = 0;
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		err = EISDIR;
	} else if (exists && !S_ISREG(st.st_mode)) {
		if (access(path, W_OK) != 0)
			err = errno;
	} else if (exists) {
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			err = errno;
		else
			close(fd);
	}
	/* the folder must take the temporary file the output is written to
	 * (util/output.h): made and removed at once, so that a command
	 * killed before its end leaves nothing behind, not even an empty
	 * file where none was */
	if (!err) {
		char *tmp = xasprintf("%s.tmp-XXXXXX", path);
		int fd = mkstemp(tmp);
		if (fd < 0) {
			err = errno;
		} else {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
	}
	if (err) {
		char *shown = str_shown(path, 512);
		fprintf(stderr, "schedlab %s: %s %s: %s\n", cmd, opt, shown, strerror(err));
		free(shown);
		return EXIT_BADINPUT;
	}
	if (nclaims < MAX_CLAIMS) {
		claims[nclaims].path = xstrdup(path);
		claims[nclaims++].opt = opt;
	}
	return 0;
}

void cli_out_release(void)
{
	for (int i = 0; i < nclaims; i++)
		free(claims[i].path);
	nclaims = 0;
	for (int i = 0; i < ninputs; i++)
		free(inputs[i]);
	ninputs = 0;
}
