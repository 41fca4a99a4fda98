/* Topology loader front door: "host", bundled names, or files (hwloc XML or
 * schedlab JSON, told apart by their first character). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/topo.h"

extern const struct { const char *name; const char *text; } topo_machines[];
extern const size_t topo_machines_count;

int topo_bundled_count(void)
{
	return (int)topo_machines_count;
}

const char *topo_bundled_name(int i)
{
	return topo_machines[i].name;
}

const char *topo_bundled_json(const char *name)
{
	for (size_t i = 0; i < topo_machines_count; i++)
		if (strcmp(topo_machines[i].name, name) == 0)
			return topo_machines[i].text;
	return NULL;
}

struct topo *topo_load(const char *spec, struct err *e)
{
	if (strcmp(spec, "host") == 0)
		return topo_load_host(e);
	const char *text = topo_bundled_json(spec);
	if (text) {
		struct topo *t = topo_load_json_text(text, spec, e);
		if (t) {
			free(t->source);
			t->source = xstrdup("bundled");
		}
		return t;
	}

	FILE *f = fopen(spec, "rb");
	if (!f) {
		if (!strchr(spec, '/') && !strchr(spec, '.')) {
			char names[256] = "";
			size_t len = 0;
			for (int i = 0; i < topo_bundled_count(); i++)
				len = str_list_add(names, sizeof(names), len, topo_bundled_name(i));
			err_set(e, "%s: not a bundled topology (%s), \"host\", or a readable file", spec,
				names);
		} else {
			err_set(e, "%s: cannot open: %s", spec, strerror(errno));
		}
		return NULL;
	}
	int c;
	while ((c = fgetc(f)) != EOF && isspace(c))
		;
	fclose(f);
	if (c == '{')
		return topo_load_json(spec, e);
	if (c == '<')
		return topo_load_xml(spec, e);
	err_set(e, "%s: neither schedlab JSON (starts with '{') nor hwloc XML (starts with '<')",
		spec);
	return NULL;
}
