/* Policy knobs: defaults, look-up by name, and --set's "key=value". */
#include "core/policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pol_nknobs(const struct pol_ops *pol)
{
	int n = 0;
	while (pol->knobs && pol->knobs[n].name)
		n++;
	return n;
}

const struct pol_knob *pol_knob(const struct pol_ops *pol, const char *name, int *index)
{
	for (int i = 0; i < pol_nknobs(pol); i++) {
		if (strcmp(pol->knobs[i].name, name) == 0) {
			if (index)
				*index = i;
			return &pol->knobs[i];
		}
	}
	return NULL;
}

void pol_default_knobs(const struct pol_ops *pol, int64_t *knobs)
{
	for (int i = 0; i < pol_nknobs(pol); i++)
		knobs[i] = pol->knobs[i].def;
}

static void list_knobs(const struct pol_ops *pol, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < pol_nknobs(pol); i++)
		used = str_list_add(buf, size, used, pol->knobs[i].name);
}

bool pol_set_knob(const struct pol_ops *pol, int64_t *knobs, const char *assignment,
		  struct err *e)
{
	const char *eq = strchr(assignment, '=');
	if (!eq || eq == assignment) {
		err_set(e, "--set %s: expected KEY=VALUE", assignment);
		return false;
	}
	char key[128];
	size_t klen = (size_t)(eq - assignment);
	if (klen >= sizeof(key))
		klen = sizeof(key) - 1;
	memcpy(key, assignment, klen);
	key[klen] = '\0';
	const char *val = eq + 1;
	int idx;
	const struct pol_knob *k = pol_knob(pol, key, &idx);
	if (!k) {
		char names[512];
		list_knobs(pol, names, sizeof(names));
		if (pol_nknobs(pol) == 0)
			err_set(e, "--set %s: policy %s has no knobs", assignment, pol->name);
		else
			err_set(e, "--set %s: policy %s has no knob '%s' (its knobs: %s)", assignment,
				pol->name, key, names);
		return false;
	}
	int64_t v;
	if ((k->flags & POL_KNOB_BOOL) && (strcmp(val, "true") == 0 || strcmp(val, "false") == 0)) {
		v = val[0] == 't';
	} else {
		char *end;
		errno = 0;
		long long x = strtoll(val, &end, 10);
		if (*val == '\0' || *end != '\0' || errno == ERANGE) {
			err_set(e, "--set %s: '%s' is not %s", assignment, val,
				(k->flags & POL_KNOB_BOOL) ? "a boolean (0, 1, false, true)"
							   : "an integer");
			return false;
		}
		v = x;
	}
	if (v < k->min || v > k->max) {
		err_set(e, "--set %s: %s must be between %lld and %lld", assignment, k->name,
			(long long)k->min, (long long)k->max);
		return false;
	}
	if ((k->flags & POL_KNOB_POW2) && (v & (v - 1)) != 0) {
		err_set(e, "--set %s: %s must be a power of two", assignment, k->name);
		return false;
	}
	knobs[idx] = v;
	return true;
}
