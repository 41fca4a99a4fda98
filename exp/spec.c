/* Lists and ranges (exp/spec.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "exp/spec.h"

/* A whole decimal integer from 0 to INT64_MAX, nothing else. */
static bool parse_i64(const char *s, size_t n, int64_t *out)
{
	if (n == 0 || n > 19)
		return false;
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (INT64_MAX - (s[i] - '0')) / 10)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

static void add(char ***items, long *n, long *cap, char *s)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*items = xrealloc(*items, (size_t)*cap * sizeof(**items));
	}
	(*items)[(*n)++] = s;
}

bool exp_list_expand(const char *opt, const char *list, bool ranges, char ***items, long *n,
		     struct err *e)
{
	*items = NULL;
	*n = 0;
	long cap = 0, pos = 0;
	const char *p = list;
	/* "--procs 1..x", or for opt "--set KEY=": "--set KEY=1..x" */
	char *value = str_shown(list, 200);
	char *shown = xasprintf("%s%s", opt[0] && opt[strlen(opt) - 1] == '=' ? "" : " ", value);
	free(value);
	bool ok = true;
	while (ok) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		pos++;
		const char *dots = ranges ? strstr(p, "..") : NULL;
		if (dots && (size_t)(dots - p) >= len)
			dots = NULL;
		if (len == 0) {
			err_set(e, "%s%s: item %ld is empty (expected values separated by commas)", opt,
				shown, pos);
			ok = false;
		} else if (!dots) {
			char *s = xmalloc(len + 1);
			memcpy(s, p, len);
			s[len] = '\0';
			if (*n >= EXP_MAX_LIST) {
				free(s);
				err_set(e, "%s%s: more than %d values", opt, shown, EXP_MAX_LIST);
				ok = false;
			} else {
				add(items, n, &cap, s);
			}
		} else {
			/* A..B or A..B+S */
			const char *b = dots + 2, *end = p + len;
			const char *plus = memchr(b, '+', (size_t)(end - b));
			int64_t a, hi, step = 0;
			char item[64];
			snprintf(item, sizeof(item), "%.*s", (int)(len < 60 ? len : 60), p);
			if (!parse_i64(p, (size_t)(dots - p), &a) ||
			    !parse_i64(b, (size_t)((plus ? plus : end) - b), &hi) ||
			    (plus && (!parse_i64(plus + 1, (size_t)(end - plus - 1), &step) || step == 0))) {
				err_set(e, "%s%s: '%s' is not a range: expected A..B (doubling from A up "
					"to B) or A..B+S (from A to B in steps of S >= 1), A, B and S "
					"whole numbers", opt, shown, item);
				ok = false;
			} else if (a > hi) {
				err_set(e, "%s%s: '%s' is an empty range: %" PRId64 " is above %" PRId64
					" (ranges go upwards)", opt, shown, item, a, hi);
				ok = false;
			} else if (!plus && a == 0 && hi > 0) {
				err_set(e, "%s%s: '%s' doubles from 0, which never grows: start at 1 "
					"(1..%" PRId64 ") or give a step (0..%" PRId64 "+S)", opt, shown,
					item, hi, hi);
				ok = false;
			} else {
				uint64_t count = plus ? (uint64_t)(hi - a) / (uint64_t)step + 1 : 0;
				for (int64_t v = a; !plus; v *= 2) {
					count++;
					if (v == 0 || v > hi / 2)
						break;
				}
				if (count + (uint64_t)*n > EXP_MAX_LIST) {
					err_set(e, "%s%s: '%s' makes more than %d values", opt, shown, item,
						EXP_MAX_LIST);
					ok = false;
				} else {
					int64_t v = a;
					for (uint64_t i = 0; i < count; i++) {
						add(items, n, &cap, xasprintf("%" PRId64, v));
						if (i + 1 < count)
							v = plus ? v + step : v * 2;
					}
				}
			}
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	free(shown);
	if (!ok) {
		exp_list_free(*items, *n);
		*items = NULL;
		*n = 0;
	}
	return ok;
}

void exp_list_free(char **items, long n)
{
	for (long i = 0; i < n; i++)
		free(items[i]);
	free(items);
}
