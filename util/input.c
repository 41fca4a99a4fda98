/* Input files and the text of messages: one bounded reader for every file
 * schedlab reads (workloads, traces, topologies; regular files, pipes and
 * devices alike), and the escaping that keeps a message on one line and a
 * report valid UTF-8 whatever bytes the input held. */
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A FIFO opened without waiting (O_NONBLOCK) is open at once, writer or
 * not; its first byte or its writer's close is then waited for here, with
 * a note once the wait has lasted.  A FIFO no writer ever opens waits
 * forever, as a shell's redirection would: the note says for what. */
static void fifo_wait_writer(int fd, const char *path)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int rc;
	while ((rc = poll(&pfd, 1, INPUT_FIFO_NOTE_MS)) < 0 && errno == EINTR)
		;
	if (rc != 0)
		return;
	fifo_wait_note(path, "writer");
	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
}

int input_open(const char *path, struct err *e)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err_set(e, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		err_set(e, "%s: cannot read: %s", path, strerror(EISDIR));
		return -1;
	}
	if (S_ISFIFO(st.st_mode))
		fifo_wait_writer(fd, path);
	fd_blocking(fd);   /* a pipe's writer may be slower than its reader */
	return fd;
}

void fifo_wait_note(const char *path, const char *whom)
{
	char *shown = str_shown(path, 256);
	fprintf(stderr, "schedlab: %s: a FIFO with no %s yet: waiting for one\n", shown, whom);
	free(shown);
}

void fd_blocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
}

FILE *input_fopen(const char *path, struct err *e)
{
	int fd = input_open(path, e);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "r");
	if (!f) {
		err_set(e, "%s: cannot open: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

char *input_read_fd(int fd, const char *path, const void *head, size_t nhead, size_t *len,
		    struct err *e)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		st.st_mode = 0;
	/* Regular files tell their size; pipes and devices (/dev/zero) do not,
	 * so the limit is enforced on what is read, not on what fstat says. */
	size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < INPUT_MAX_BYTES
			     ? (size_t)st.st_size + 1 : 1 << 16;
	if (cap < nhead + 1)
		cap = nhead + 1;
	size_t n = nhead;
	char *buf = xmalloc(cap);
	if (nhead)
		memcpy(buf, head, nhead);
	int failed = 0;     /* errno of a failed read, or -1 past the limit */
	const char *nul = memchr(buf, '\0', nhead);
	while (!nul) {
		if (n + 1 == cap) {
			if (cap > INPUT_MAX_BYTES) {
				failed = -1;
				break;
			}
			cap = cap * 2 > INPUT_MAX_BYTES + 2 ? INPUT_MAX_BYTES + 2 : cap * 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			failed = got < 0 ? errno : 0;
			break;
		}
		/* A NUL ends the text early for every parser after this one:
		 * the rest would be silently ignored (and /dev/zero is
		 * refused at once, not at the limit). */
		nul = memchr(buf + n, '\0', (size_t)got);
		n += (size_t)got;
		if (nul)
			break;
		if (n > INPUT_MAX_BYTES) {
			failed = -1;
			break;
		}
	}
	close(fd);
	if (failed > 0)
		err_set(e, "%s: cannot read: %s", path, strerror(failed));
	else if (failed < 0)
		err_set(e, "%s: larger than %u MiB, the limit for an input file", path,
			(unsigned)(INPUT_MAX_BYTES >> 20));
	else if (nul)
		err_set(e, "%s: byte %zu is a NUL: not a text file", path, (size_t)(nul - buf) + 1);
	if (failed || nul) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *input_read(const char *path, size_t *len, struct err *e)
{
	int fd = input_open(path, e);
	return fd < 0 ? NULL : input_read_fd(fd, path, NULL, 0, len, e);
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs,
 * no surrogates, nothing past U+10FFFF), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	size_t n;
	unsigned char lo = 0x80, hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	if (avail < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

bool utf8_valid(const char *s, size_t n, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(p + i, n - i);
		if (!k) {
			if (bad)
				*bad = i;
			return false;
		}
		i += k;
	}
	return true;
}

bool str_has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7F)
			return true;
	return false;
}

char *str_escape(const char *s)
{
	size_t n = strlen(s);
	char *out = xmalloc(4 * n + 1), *o = out;
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = p[i] >= 0x20 && p[i] != 0x7F ? utf8_seq(p + i, n - i) : 0;
		if (k) {
			memcpy(o, p + i, k);
			o += k;
			i += k;
			continue;
		}
		static const char hex[] = "0123456789abcdef";
		*o++ = '\\';
		switch (p[i]) {
		case '\n': *o++ = 'n'; break;
		case '\r': *o++ = 'r'; break;
		case '\t': *o++ = 't'; break;
		default:
			*o++ = 'x';
			*o++ = hex[p[i] >> 4];
			*o++ = hex[p[i] & 15];
		}
		i++;
	}
	*o = '\0';
	return out;
}

void str_fit(char *dst, size_t size, const char *s)
{
	size_t n = strlen(s);
	if (n < size) {
		memcpy(dst, s, n + 1);
		return;
	}
	/* Keep the head (what the message is about) and the tail (the
	 * reason), eliding the middle, which is most often the middle of a
	 * long path; a cut never splits a UTF-8 sequence. */
	static const char dots[] = "...";
	size_t head = size / 5, tail = size - 1 - head - (sizeof(dots) - 1);
	while (head > 0 && ((unsigned char)s[head] & 0xC0) == 0x80)
		head--;
	size_t from = n - tail;
	while (from < n && ((unsigned char)s[from] & 0xC0) == 0x80)
		from++;
	memcpy(dst, s, head);
	memcpy(dst + head, dots, sizeof(dots) - 1);
	memcpy(dst + head + sizeof(dots) - 1, s + from, n - from + 1);
}

char *str_shown(const char *s, size_t max)
{
	char *esc = str_escape(s);
	if (strlen(esc) < max)
		return esc;
	char *out = xmalloc(max);
	str_fit(out, max, esc);
	free(esc);
	return out;
}
