/* Allocation helpers and error messages. */
#include "util/util.h"

#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

_Noreturn void die_oom(size_t bytes)
{
	fprintf(stderr, "schedlab: out of memory (asked for %zu bytes)\n", bytes);
	exit(3);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die_oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die_oom(n);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		die_oom(0);
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

char *path_stem(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	char *s = xmalloc(n + 1);
	memcpy(s, base, n);
	s[n] = '\0';
	return s;
}

void err_set(struct err *e, const char *fmt, ...)
{
	if (!e)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *raw = xvasprintf(fmt, ap);
	va_end(ap);
	char *esc = str_escape(raw);
	str_fit(e->msg, sizeof(e->msg), esc);
	free(esc);
	free(raw);
}

const char *str_ns_unit(double ns, double *scale, int *decimals)
{
	static const struct {
		double below, scale;
		int decimals;
		const char *name;
	} units[] = {
		{ 1e4, 1, 0, "ns" },
		{ 1e6, 1e3, 1, "us" },
		{ 1e9, 1e6, 2, "ms" },
		{ 0, 1e9, 2, "s" },
	};
	int i = 0;
	while (i < 3 && !(fabs(ns) < units[i].below))
		i++;
	*scale = units[i].scale;
	*decimals = units[i].decimals;
	return units[i].name;
}

size_t str_list_add(char *buf, size_t size, size_t used, const char *item)
{
	if (used >= size)
		return used;
	int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", item);
	return n < 0 ? used : used + (size_t)n;
}

uint64_t proc_kb_bytes(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[256];
	size_t n = strlen(key);
	unsigned long long kb = 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 && line[n] == ':' &&
		    sscanf(line + n + 1, " %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}

void proc_die_with_parent(int parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != (pid_t)parent)
		raise(SIGKILL);
}

int proc_jobs_cap(int jobs, uint64_t bytes_each, int fds_each)
{
	uint64_t avail = proc_kb_bytes("/proc/meminfo", "MemAvailable");
	if (bytes_each && avail && avail / bytes_each < (uint64_t)jobs)
		jobs = (int)(avail / bytes_each);
	struct rlimit nofile;
	if (fds_each > 0 && getrlimit(RLIMIT_NOFILE, &nofile) == 0 &&
	    nofile.rlim_cur != RLIM_INFINITY && (rlim_t)jobs > nofile.rlim_cur / (rlim_t)(fds_each + 1))
		jobs = (int)(nofile.rlim_cur / (rlim_t)(fds_each + 1));
	return jobs < 1 ? 1 : jobs;
}
