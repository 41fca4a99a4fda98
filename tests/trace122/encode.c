/* Go's text form of a 1.22+ trace -> its wire form (tests only).  The text
 * form, as Go's internal/trace/raw describes it: a header line "Trace
 * Go1.N", then an event a line (its name, then name=value arguments, in
 * the event's order); a Stack event is followed by a line per frame
 * (pc= func= file= line=), a String event by a line data="..." holding a
 * Go-quoted string.  Blank lines and text after '#' are ignored. */
#include "tests/trace122/encode.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/read122.h"

struct out {
	unsigned char *b;
	size_t n, cap;
	bool oom;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->oom)
		return;
	if (o->n + n > o->cap) {
		size_t ncap = o->cap ? o->cap * 2 : 4096;
		while (ncap < o->n + n)
			ncap *= 2;
		unsigned char *nb = realloc(o->b, ncap);
		if (!nb) {
			o->oom = true;
			return;
		}
		o->b = nb;
		o->cap = ncap;
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void put_uvarint(struct out *o, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;
	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	put(o, b, n);
}

/* The line's tokens, split at whitespace, up to a '#'. */
#define MAXTOK 16
static int tokens(char *line, char **tok)
{
	int n = 0;
	char *h = strchr(line, '#');
	if (h)
		*h = 0;
	for (char *s = strtok(line, " \t\r\v\f"); s && n < MAXTOK; s = strtok(NULL, " \t\r\v\f"))
		tok[n++] = s;
	return n;
}

static bool arg(const char *tok, const char *want, uint64_t *v, int lineno, struct err *e)
{
	const char *eq = strchr(tok, '=');
	if (!eq || (size_t)(eq - tok) != strlen(want) || strncmp(tok, want, (size_t)(eq - tok)) != 0) {
		err_set(e, "line %d: expected argument %s, found \"%s\"", lineno, want, tok);
		return false;
	}
	char *end;
	errno = 0;
	*v = strtoull(eq + 1, &end, 10);
	if (errno || end == eq + 1 || *end || eq[1] == '-') {
		err_set(e, "line %d: argument %s: \"%s\" is not an unsigned number", lineno, want, eq + 1);
		return false;
	}
	return true;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void put_utf8(struct out *o, uint32_t c)
{
	unsigned char b[4];
	size_t n;
	if (c < 0x80) {
		b[0] = (unsigned char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (unsigned char)(0xc0 | c >> 6);
		b[1] = (unsigned char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (unsigned char)(0xe0 | c >> 12);
		b[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | c >> 18);
		b[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
		b[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		b[3] = (unsigned char)(0x80 | (c & 0x3f));
		n = 4;
	}
	put(o, b, n);
}

/* A Go double-quoted string (strconv.Quote's escapes) into o. */
static bool unquote(const char *s, struct out *o, int lineno, struct err *e)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n < 2 || s[0] != '"' || s[n - 1] != '"') {
		err_set(e, "line %d: data is not a double-quoted string", lineno);
		return false;
	}
	for (size_t i = 1; i < n - 1; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c != '\\') {
			put(o, &c, 1);
			continue;
		}
		if (++i >= n - 1)
			goto bad;
		int k, digits = 0;
		uint32_t v = 0;
		switch (s[i]) {
		case 'a': c = '\a'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'v': c = '\v'; break;
		case '\\': c = '\\'; break;
		case '"': c = '"'; break;
		case '\'': c = '\''; break;
		case 'x': digits = 2; break;
		case 'u': digits = 4; break;
		case 'U': digits = 8; break;
		default:
			if (s[i] >= '0' && s[i] <= '7') {
				for (k = 0; k < 3; k++, i++) {
					if (i >= n - 1 || s[i] < '0' || s[i] > '7')
						goto bad;
					v = v * 8 + (uint32_t)(s[i] - '0');
				}
				i--;
				if (v > 255)
					goto bad;
				c = (unsigned char)v;
				break;
			}
			goto bad;
		}
		if (digits) {
			for (k = 0; k < digits; k++) {
				if (i + 1 >= n - 1 || hexval(s[i + 1]) < 0)
					goto bad;
				v = v * 16 + (uint32_t)hexval(s[++i]);
			}
			if (digits == 2) {
				c = (unsigned char)v;
				put(o, &c, 1);
			} else
				put_utf8(o, v);
			continue;
		}
		put(o, &c, 1);
	}
	return true;
bad:
	err_set(e, "line %d: bad escape in a quoted string", lineno);
	return false;
}

bool t122_encode(const char *text, unsigned char **outp, size_t *outn, int *bad_sizes, struct err *e)
{
	char *copy = strdup(text);
	if (!copy) {
		err_set(e, "out of memory");
		return false;
	}
	struct out o = { 0 };
	int minor = -1, lineno = 0;
	*bad_sizes = 0;
	/* The open batch: where its data starts and the size it declares. */
	bool in_batch = false;
	size_t batch_start = 0;
	uint64_t batch_size = 0;
	/* Lines still owed to the last event: frames, or a data line. */
	uint64_t frames_due = 0;
	bool data_due = false;
	for (char *line = copy, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		char raw[4096];
		snprintf(raw, sizeof raw, "%s", line);
		char *tok[MAXTOK];
		int nt = tokens(line, tok);
		if (nt == 0)
			continue;
		if (minor < 0) {
			if (nt != 2 || strcmp(tok[0], "Trace") != 0 || strncmp(tok[1], "Go1.", 4) != 0 ||
			    !(minor = atoi(tok[1] + 4)) || !t122_minor_known(minor)) {
				err_set(e, "line %d: expected the header \"Trace Go1.N\" of a known version", lineno);
				goto fail;
			}
			char head[16] = { 0 };
			snprintf(head, sizeof head, "go 1.%d trace", minor);
			put(&o, head, 16);
			continue;
		}
		if (data_due) {
			const char *eq = strchr(raw, '=');
			const char *k = raw;
			while (isspace((unsigned char)*k))
				k++;
			if (!eq || strncmp(k, "data", 4) != 0) {
				err_set(e, "line %d: expected data=\"...\"", lineno);
				goto fail;
			}
			struct out d = { 0 };
			bool ok = unquote(eq + 1, &d, lineno, e);
			if (ok) {
				put_uvarint(&o, d.n);
				put(&o, d.b, d.n);
			}
			free(d.b);
			if (!ok)
				goto fail;
			data_due = false;
			continue;
		}
		if (frames_due) {
			static const char *const ff[] = { "pc", "func", "file", "line" };
			if (nt != 4) {
				err_set(e, "line %d: expected a stack frame (pc= func= file= line=)", lineno);
				goto fail;
			}
			for (int i = 0; i < 4; i++) {
				uint64_t v;
				if (!arg(tok[i], ff[i], &v, lineno, e))
					goto fail;
				put_uvarint(&o, v);
			}
			frames_due--;
			continue;
		}
		int t = t122_type_named(tok[0], minor);
		if (t < 0) {
			err_set(e, "line %d: no event \"%s\" in go 1.%d traces", lineno, tok[0], minor);
			goto fail;
		}
		const struct t122_spec *s = t122_spec((unsigned)t, minor);
		if (nt - 1 != s->nargs) {
			err_set(e, "line %d: %s takes %d arguments, found %d", lineno, s->name, s->nargs, nt - 1);
			goto fail;
		}
		uint64_t a[T122_MAX_ARGS];
		for (int i = 0; i < s->nargs; i++)
			if (!arg(tok[i + 1], s->args[i], &a[i], lineno, e))
				goto fail;
		if (t == T122_EVENT_BATCH || t == T122_EXPERIMENTAL_BATCH ||
		    t == T122_END_OF_GENERATION) {
			if (in_batch && o.n - batch_start != batch_size)
				(*bad_sizes)++;
			in_batch = t == T122_EVENT_BATCH;
		}
		unsigned char tb = (unsigned char)t;
		put(&o, &tb, 1);
		for (int i = 0; i < s->nargs; i++)
			put_uvarint(&o, a[i]);
		if (t == T122_EVENT_BATCH) {
			batch_start = o.n;
			batch_size = a[3];
		}
		if (s->stack)
			frames_due = a[1];
		if (s->data)
			data_due = true;
	}
	if (minor < 0) {
		err_set(e, "no header line");
		goto fail;
	}
	if (frames_due || data_due) {
		err_set(e, "line %d: the text ends inside an event", lineno);
		goto fail;
	}
	if (in_batch && o.n - batch_start != batch_size)
		(*bad_sizes)++;
	if (o.oom) {
		err_set(e, "out of memory");
		goto fail;
	}
	free(copy);
	*outp = o.b;
	*outn = o.n;
	return true;
fail:
	free(copy);
	free(o.b);
	return false;
}

bool t122_encode_test(const char *test_path, const char *out_path, char *expect, size_t expect_n,
		      int *bad_sizes, struct err *e)
{
	struct err ie;
	char *text = input_read(test_path, NULL, &ie);
	if (!text) {
		err_set(e, "%s", ie.msg);
		return false;
	}
	char *ex = strstr(text, "-- expect --\n"), *tr = strstr(text, "-- trace --\n");
	if (ex != text || !tr) {
		err_set(e, "%s: not a txtar test with \"-- expect --\" then \"-- trace --\"", test_path);
		free(text);
		return false;
	}
	const char *ex_line = ex + strlen("-- expect --\n");
	size_t ln = strcspn(ex_line, "\n");
	snprintf(expect, expect_n, "%.*s", (int)ln, ex_line);
	unsigned char *bin = NULL;
	size_t n = 0;
	if (!t122_encode(tr + strlen("-- trace --\n"), &bin, &n, bad_sizes, &ie)) {
		err_set(e, "%s: trace: %s", test_path, ie.msg);
		free(text);
		return false;
	}
	free(text);
	FILE *f = fopen(out_path, "wb");
	bool ok = f && fwrite(bin, 1, n, f) == n;
	if (f && fclose(f) != 0)
		ok = false;
	free(bin);
	if (!ok)
		err_set(e, "%s: cannot write: %s", out_path, strerror(errno));
	return ok;
}
