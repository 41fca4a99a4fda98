/* Outputs written whole or not at all (output.h). */
#include "util/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void fail(struct err *e, const struct output *o, int why)
{
	char *shown = str_shown(o->path, 512);
	err_set(e, "%s %s: %s", o->what, shown, strerror(why));
	free(shown);
}

/* A FIFO's writer waits for its reader, as a shell's redirection would,
 * saying so if there is none yet: a wait for a reader that never comes is
 * visible. */
static FILE *open_through(const char *path)
{
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENXIO) {
		fifo_wait_note(path, "reader");
		fd = open(path, O_WRONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return NULL;
	fd_blocking(fd);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int why = errno;
		close(fd);
		errno = why;
	}
	return f;
}

bool output_open(struct output *o, const char *what, const char *path, struct err *e)
{
	*o = (struct output){ .path = xstrdup(path), .what = what };
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return true;
	}
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		fail(e, o, EISDIR);
		output_abort(o);
		return false;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* a device or a FIFO: written through */
		o->f = open_through(path);
		if (!o->f) {
			fail(e, o, errno);
			output_abort(o);
			return false;
		}
		return true;
	}
	o->tmp = xasprintf("%s.tmp-XXXXXX", path);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		int why = errno;
		free(o->tmp);
		o->tmp = NULL;
		fail(e, o, why);
		output_abort(o);
		return false;
	}
	/* the mode a new file gets from fopen (0666 less the umask), or the
	 * replaced file's own */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int why = errno;
		close(fd);
		fail(e, o, why);
		output_abort(o);
		return false;
	}
	return true;
}

/* The rename made durable: a crash of the machine right after the commit
 * could otherwise leave the folder naming the old file.  Best effort: a
 * folder that cannot be opened or synced (not ours to read, a file system
 * without it) leaves the output as whole as it already is. */
static void sync_folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

bool output_commit(struct output *o, struct err *e)
{
	int why = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		why = errno ? errno : EIO;
	if (!why && o->tmp && fsync(fileno(o->f)) != 0)
		why = errno;
	if (o->f != stdout) {
		if (fclose(o->f) != 0 && !why)
			why = errno;
		o->f = NULL;
	}
	if (!why && o->tmp && rename(o->tmp, o->path) != 0)
		why = errno;
	if (!why && o->tmp)
		sync_folder(o->path);
	if (why) {
		fail(e, o, why);
		output_abort(o);
		return false;
	}
	free(o->tmp);
	free(o->path);
	*o = (struct output){ 0 };
	return true;
}

void output_abort(struct output *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	*o = (struct output){ 0 };
}

bool output_start(struct output *o, const char *cmd, const char *what, const char *path)
{
	struct err e;
	if (output_open(o, what, path, &e))
		return true;
	fprintf(stderr, "schedlab %s: %s\n", cmd, e.msg);
	return false;
}

int output_finish(struct output *o, const char *cmd)
{
	struct err e;
	if (output_commit(o, &e))
		return 0;
	fprintf(stderr, "schedlab %s: %s\n", cmd, e.msg);
	return EXIT_BADINPUT;
}

int output_write_text(const char *cmd, const char *what, const char *path, const char *text)
{
	struct output o;
	if (!output_start(&o, cmd, what, path))
		return EXIT_BADINPUT;
	fputs(text, o.f);
	return output_finish(&o, cmd);
}
