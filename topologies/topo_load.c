/* Topology loader front door: "host", bundled names, or files (hwloc XML or
 * schedlab JSON, told apart by their first character). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

	if (!strchr(spec, '/') && !strchr(spec, '.') && access(spec, F_OK) != 0) {
		char names[256] = "";
		size_t len = 0;
		for (int i = 0; i < topo_bundled_count(); i++)
			len = str_list_add(names, sizeof(names), len, topo_bundled_name(i));
		err_set(e, "%s: not a bundled topology (%s), \"host\", or a readable file", spec, names);
		return NULL;
	}
	/* read once, so the file is told apart and parsed from the same bytes */
	size_t n;
	char *buf = input_read(spec, &n, e);
	if (!buf)
		return NULL;
	const char *p = buf + strspn(buf, " \t\r\n");
	struct topo *t = NULL;
	if (*p == '{') {
		t = topo__load_json_file_text(buf, spec, e);
	} else if (*p == '<') {
		t = topo__load_xml_text(buf, n, spec, e);
		if (t) {
			t->name = topo__name_of_path(spec);
			t->source = str_escape(spec);
			if (!topo__finish(t, spec, e)) {
				topo_free(t);
				t = NULL;
			}
		}
	} else {
		err_set(e, "%s: neither schedlab JSON (starts with '{') nor hwloc XML (starts with '<')",
			spec);
	}
	free(buf);
	return t;
}

char *topo__name_of_path(const char *path)
{
	char *stem = path_stem(path);
	char *name = str_escape(stem);
	free(stem);
	return name;
}

char *topo_calibration_path(void)
{
	/* XDG: a relative XDG_CONFIG_HOME is invalid and is ignored */
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && xdg[0] == '/')
		return xasprintf("%s/schedlab/host.json", xdg);
	const char *home = getenv("HOME");
	if (home && home[0] == '/')
		return xasprintf("%s/.config/schedlab/host.json", home);
	return NULL;
}

struct topo *topo_discover_host(struct err *e)
{
	return topo__discover_host(e);
}

char *topo_host_calibration_file(void)
{
	const char *env = getenv("SCHEDLAB_CALIBRATION");
	if (env && env[0])
		return strcmp(env, "off") == 0 ? NULL : xstrdup(env);
	char *path = topo_calibration_path();
	if (path && access(path, F_OK) != 0) {
		free(path);
		path = NULL;
	}
	return path;
}

struct topo *topo_load_host(struct err *e)
{
	char *path = topo_host_calibration_file();
	struct topo *live = topo__discover_host(e);
	if (!live || !path) {
		free(path);
		return live;
	}
	struct err inner = { "" };
	struct topo *cal = topo_load_json(path, &inner);
	if (!cal) {
		err_set(e, "%s (the calibration of -t host; SCHEDLAB_CALIBRATION=off ignores it)",
			inner.msg);
		free(path);
		topo_free(live);
		return NULL;
	}
	struct err why = { "" };
	if (!topo_same_structure(live, cal, &why)) {
		char *shown = str_escape(path);
		fprintf(stderr, "schedlab: calibration %s not used: it describes another machine "
			"(this one vs the file, %s); -t host has the default figures (run `schedlab "
			"calibrate` again)\n",
			shown, why.msg);
		free(shown);
		free(path);
		topo_free(cal);
		return live;
	}
	topo_free(live);
	free(cal->name);
	free(cal->source);
	cal->name = xstrdup("host");
	cal->source = xstrdup("hwloc");
	cal->calibration = str_escape(path);
	free(path);
	return cal;
}
