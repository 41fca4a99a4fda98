/* The conventions of a Unix command (suite "conventions"): every command
 * and subcommand answers --help; --version names the commit built; the
 * man page has a section per command naming every option its --help
 * lists, and lints clean; `list --names` agrees with the tables; the bash
 * completion offers what the binary says there is.
 *
 * The commands and options are read from the binary's own --help texts,
 * never listed here, so that a command or an option added without its
 * place in the man page fails this suite. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tests.h"

/* The source tree: meson sets SCHEDLAB_SOURCE_ROOT; by hand, the suite is
 * run from the source root (as tests/data's default assumes). */
static const char *source_root(void)
{
	const char *v = getenv("SCHEDLAB_SOURCE_ROOT");
	return v && *v ? v : ".";
}

/* A growable list of strings, each once. */
struct words {
	char **w;
	int n, cap;
};

static bool words_has(const struct words *ws, const char *s)
{
	for (int i = 0; i < ws->n; i++)
		if (strcmp(ws->w[i], s) == 0)
			return true;
	return false;
}

static void words_add_n(struct words *ws, const char *s, size_t len)
{
	char *copy = strndup(s, len);
	if (words_has(ws, copy)) {
		free(copy);
		return;
	}
	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? 2 * ws->cap : 16;
		ws->w = realloc(ws->w, (size_t)ws->cap * sizeof(*ws->w));
	}
	ws->w[ws->n++] = copy;
}

static void words_free(struct words *ws)
{
	for (int i = 0; i < ws->n; i++)
		free(ws->w[i]);
	free(ws->w);
	ws->w = NULL;
	ws->n = ws->cap = 0;
}

/* Every line of text, one word each (the output of --names, of the
 * completion). */
static struct words lines_of(const char *text)
{
	struct words ws = { 0 };
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len)
			words_add_n(&ws, p, len);
		p += len + (e ? 1 : 0);
	}
	return ws;
}

static bool opt_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* Adds the options at the start of s ("-p, --policy P": -p and --policy). */
static void options_of_option_line(struct words *ws, const char *s)
{
	while (s[0] == '-' && opt_char(s[1])) {
		size_t len = 1;
		while (opt_char(s[len]))
			len++;
		words_add_n(ws, s, len);
		s += len;
		if (strncmp(s, ", -", 3) != 0)
			break;
		s += 2;
	}
}

/* Adds every option a usage line names: a "-" or "--" word that starts
 * the line or follows a blank, "[" or "|" ("FILE|-" is a file or stdout,
 * not an option). */
static void options_of_usage_line(struct words *ws, const char *line, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (line[i] != '-' || !opt_char(line[i + 1]) || line[i + 1] == '_')
			continue;
		if (i > 0 && !strchr(" [|", line[i - 1]))
			continue;
		size_t n = 1;
		while (i + n < len && opt_char(line[i + n]))
			n++;
		/* "--" alone ends options, or is prose */
		if (n == 2 && line[i + 1] == '-')
			continue;
		words_add_n(ws, line + i, n);
		i += n;
	}
}

/* The options a --help text lists: those of its usage lines (from
 * "usage:" or an indented "schedlab ..." to the next blank line) and of
 * its option lines (indented 1 to 4 blanks, then "-"). */
static struct words help_options(const char *help)
{
	struct words ws = { 0 };
	bool usage = false;
	for (const char *p = help; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		size_t ind = 0;
		while (ind < len && p[ind] == ' ')
			ind++;
		if (len == 0)
			usage = false;
		else if (strncmp(p, "usage:", 6) == 0 || (ind > 0 && strncmp(p + ind, "schedlab ", 9) == 0))
			usage = true;
		if (usage)
			options_of_usage_line(&ws, p, len);
		else if (ind >= 1 && ind <= 4 && p[ind] == '-')
			options_of_option_line(&ws, p + ind);
		p += len + (e ? 1 : 0);
	}
	return ws;
}

/* The commands `schedlab --help` shows: "  schedlab WORD ..." lines. */
static struct words help_commands(const char *help)
{
	struct words ws = { 0 };
	for (const char *p = help; (p = strstr(p, "\n  schedlab ")) != NULL;) {
		p += strlen("\n  schedlab ");
		size_t len = 0;
		while (islower((unsigned char)p[len]))
			len++;
		if (len && (p[len] == ' ' || p[len] == '\n'))
			words_add_n(&ws, p, len);
	}
	return ws;
}

static char *schedlab_out(const char *args)
{
	char *out, *err;
	int rc = test_schedlab(args, &out, &err);
	ck_assert_msg(rc == 0, "schedlab %s: exit %d: %s", args, rc, err);
	free(err);
	return out;
}

static struct words commands(void)
{
	char *help = schedlab_out("--help");
	struct words cmds = help_commands(help);
	free(help);
	/* what this test must at least find: a misparse finds nothing */
	ck_assert_msg(cmds.n >= 6 && words_has(&cmds, "run") && words_has(&cmds, "workload"),
		      "commands of schedlab --help: %d", cmds.n);
	return cmds;
}

/* The subcommands CMD's usage names: "schedlab CMD a|b|c ..." gives a, b
 * and c; "schedlab CMD -p ..." or "schedlab CMD [...]" none. */
static struct words subcommands(const char *cmd, const char *help)
{
	struct words ws = { 0 };
	char *key = NULL;
	ck_assert_int_ge(asprintf(&key, "schedlab %s ", cmd), 0);
	for (const char *p = help; (p = strstr(p, key)) != NULL;) {
		p += strlen(key);
		while (islower((unsigned char)*p)) {
			size_t len = 0;
			while (islower((unsigned char)p[len]) || p[len] == '-')
				len++;
			words_add_n(&ws, p, len);
			p += len;
			if (*p != '|')
				break;
			p++;
		}
	}
	free(key);
	return ws;
}

/* ---- --help ---- */

static void assert_help(const char *args)
{
	char *out, *err;
	int rc = test_schedlab(args, &out, &err);
	ck_assert_msg(rc == 0, "schedlab %s: exit %d, stderr: %s", args, rc, err);
	ck_assert_msg(strncmp(out, "usage:", 6) == 0 || strstr(out, "\nusage:"),
		      "schedlab %s printed no usage on stdout: %s", args, out);
	ck_assert_msg(strcmp(err, "") == 0, "schedlab %s wrote to stderr: %s", args, err);
	free(out);
	free(err);
}

START_TEST(every_command_and_subcommand_answers_help)
{
	assert_help("--help");
	assert_help("-h");
	assert_help("help");
	struct words cmds = commands();
	int checked = 0;
	for (int i = 0; i < cmds.n; i++) {
		char *args = NULL;
		ck_assert_int_ge(asprintf(&args, "%s --help", cmds.w[i]), 0);
		assert_help(args);
		free(args);
		ck_assert_int_ge(asprintf(&args, "%s -h", cmds.w[i]), 0);
		assert_help(args);
		free(args);
		char *cmd_help = NULL;
		ck_assert_int_ge(asprintf(&args, "%s --help", cmds.w[i]), 0);
		cmd_help = schedlab_out(args);
		free(args);
		struct words subs = subcommands(cmds.w[i], cmd_help);
		for (int s = 0; s < subs.n; s++) {
			ck_assert_int_ge(asprintf(&args, "%s %s --help", cmds.w[i], subs.w[s]), 0);
			assert_help(args);
			free(args);
			checked++;
		}
		words_free(&subs);
		free(cmd_help);
	}
	/* list's five kinds... and workload's show and expand at least */
	ck_assert_int_ge(checked, 6);
	words_free(&cmds);
}
END_TEST

/* ---- --version ---- */

START_TEST(version_names_the_commit_built)
{
	char *out = schedlab_out("--version");
	char *again = schedlab_out("version");
	ck_assert_str_eq(out, again);
	ck_assert_msg(strncmp(out, "schedlab " SCHEDLAB_VERSION " (commit ", 18 + strlen(SCHEDLAB_VERSION)) == 0,
		      "%s", out);
	const char *commit = out + strlen("schedlab " SCHEDLAB_VERSION " (commit ");
	const char *end = strstr(commit, ")\n");
	ck_assert_msg(end && end[2] == '\0', "%s", out);
	char *cmdline = NULL, *head = NULL;
	ck_assert_int_ge(asprintf(&cmdline, "git -C '%s' rev-parse --short=12 HEAD", source_root()), 0);
	int rc = test_run(cmdline, &head, NULL);
	if (rc == 0) {
		/* built in a git checkout: that commit, "-dirty" if the tree had
		 * uncommitted changes (which edits since the build may have made
		 * or undone, so either is accepted) */
		head[strcspn(head, "\n")] = '\0';
		ck_assert_int_eq(strlen(head), 12);
		size_t n = (size_t)(end - commit);
		ck_assert_msg((n == 12 || (n == 18 && strncmp(commit + 12, "-dirty", 6) == 0)) &&
				      strncmp(commit, head, 12) == 0,
			      "--version says %s, the tree's HEAD is %s (a commit since the build? "
			      "ninja, or meson test, rebuilds)", out, head);
	} else {
		ck_assert_msg(strcmp(commit, "unknown)\n") == 0, "outside git: %s", out);
	}
	free(cmdline);
	free(head);
	free(out);
	free(again);
}
END_TEST

/* ---- the man page ---- */

static char *man_path(void)
{
	char *p = NULL;
	ck_assert_int_ge(asprintf(&p, "%s/man/schedlab.1", source_root()), 0);
	ck_assert_msg(access(p, R_OK) == 0, "no man page at %s", p);
	return p;
}

START_TEST(man_page_lints_clean)
{
	char *page = man_path(), *cmd = NULL, *out, *err;
	/* mandoc's checks are mdoc's own; groff is what man-db renders with */
	ck_assert_int_ge(asprintf(&cmd, "mandoc -T lint -W warning '%s'", page), 0);
	int rc = test_run(cmd, &out, &err);
	ck_assert_msg(rc == 0 && strcmp(out, "") == 0 && strcmp(err, "") == 0,
		      "%s: exit %d (127: install mandoc, scripts/install-deps.sh)\n%s%s", cmd, rc, out, err);
	free(cmd);
	free(out);
	free(err);
	ck_assert_int_ge(asprintf(&cmd, "groff -ww -z -mandoc '%s'", page), 0);
	rc = test_run(cmd, &out, &err);
	ck_assert_msg(rc == 0 && strcmp(out, "") == 0 && strcmp(err, "") == 0,
		      "%s: exit %d\n%s%s", cmd, rc, out, err);
	free(cmd);
	free(out);
	free(err);
	free(page);
}
END_TEST

/* The page as a reader sees it: mandoc's text, overstriking removed. */
static char *man_text(void)
{
	char *page = man_path(), *cmd = NULL, *out, *err;
	/* wide enough that nothing wraps inside "--json FILE|-" and alike */
	ck_assert_int_ge(asprintf(&cmd, "mandoc -T ascii -O width=240 '%s'", page), 0);
	int rc = test_run(cmd, &out, &err);
	ck_assert_msg(rc == 0, "%s: exit %d: %s", cmd, rc, err);
	size_t j = 0;
	for (size_t i = 0; out[i]; i++) {
		if (out[i] == '\b') {
			if (j > 0)
				j--;
			continue;
		}
		out[j++] = out[i];
	}
	out[j] = '\0';
	free(cmd);
	free(err);
	free(page);
	return out;
}

/* CMD's subsection of COMMANDS (from its heading, indented three, to the
 * next heading), or NULL. */
static char *man_section(const char *text, const char *cmd)
{
	const char *commands = strstr(text, "\nCOMMANDS\n");
	ck_assert_msg(commands != NULL, "the man page has no COMMANDS section");
	char *heading = NULL;
	ck_assert_int_ge(asprintf(&heading, "\n   %s\n", cmd), 0);
	const char *start = strstr(commands, heading);
	free(heading);
	if (!start)
		return NULL;
	start += 1;
	const char *end = start + 1;
	for (;;) {
		end = strchr(end, '\n');
		if (!end || (end[1] != ' ' && end[1] != '\n') ||
		    (strncmp(end + 1, "   ", 3) == 0 && end[4] != ' '))
			break;
		end++;
	}
	return end ? strndup(start, (size_t)(end - start)) : strdup(start);
}

/* Whether opt appears in text as a word of its own. */
static bool has_option(const char *text, const char *opt)
{
	size_t n = strlen(opt);
	for (const char *p = text; (p = strstr(p, opt)) != NULL; p++)
		if ((p == text || !opt_char(p[-1])) && !opt_char(p[n]))
			return true;
	return false;
}

START_TEST(man_page_has_every_command_and_option)
{
	char *text = man_text();
	char *top_help = schedlab_out("--help");
	struct words cmds = commands();
	struct words top = help_options(top_help);
	/* --help, --version: the page says them, not one command's section */
	for (int o = 0; o < top.n; o++)
		ck_assert_msg(has_option(text, top.w[o]), "schedlab --help lists %s; the man page "
			      "does not", top.w[o]);
	int checked = 0;
	for (int i = 0; i < cmds.n; i++) {
		char *section = man_section(text, cmds.w[i]);
		ck_assert_msg(section != NULL, "schedlab --help lists the command %s; the man page "
			      "(man/schedlab.1) has no subsection for it in COMMANDS", cmds.w[i]);
		char *args = NULL;
		ck_assert_int_ge(asprintf(&args, "%s --help", cmds.w[i]), 0);
		char *help = schedlab_out(args);
		struct words opts = help_options(help);
		/* and what the overall usage shows of this command */
		char *key = NULL;
		ck_assert_int_ge(asprintf(&key, "\n  schedlab %s ", cmds.w[i]), 0);
		for (const char *p = strstr(top_help, key); p; p = strstr(p + 1, key)) {
			const char *e = p + 1;
			/* the line and its continuations (deeper indented) */
			do
				e = strchr(e + 1, '\n');
			while (e && strncmp(e + 1, "    ", 4) == 0);
			options_of_usage_line(&opts, p + 1, e ? (size_t)(e - p - 1) : strlen(p + 1));
		}
		free(key);
		for (int o = 0; o < opts.n; o++) {
			ck_assert_msg(has_option(section, opts.w[o]),
				      "schedlab %s --help lists %s; the man page's %s section does not",
				      cmds.w[i], opts.w[o], cmds.w[i]);
			checked++;
		}
		words_free(&opts);
		free(help);
		free(args);
		free(section);
	}
	/* run alone has more than 20: a parse that finds few is broken */
	ck_assert_int_ge(checked, 40);
	words_free(&cmds);
	words_free(&top);
	free(top_help);
	free(text);
}
END_TEST

/* The options the man page's source gives CMD: those of its subsection's
 * synopsis (up to the first .Pp) and of its .It items.  An .Fl takes
 * every word after it up to the next macro (".Fl p , t" is -p and -t). */
static struct words man_source_options(const char *page, const char *cmd)
{
	struct words ws = { 0 };
	char *head = NULL;
	ck_assert_int_ge(asprintf(&head, "\n.Ss %s\n", cmd), 0);
	const char *p = strstr(page, head);
	free(head);
	ck_assert_msg(p != NULL, "the man page's source has no .Ss %s", cmd);
	bool synopsis = true;
	for (p = strchr(p + 1, '\n') + 1; *p && strncmp(p, ".Ss ", 4) != 0 && strncmp(p, ".Sh ", 4) != 0;) {
		size_t len = strcspn(p, "\n");
		char *line = strndup(p, len);
		synopsis = synopsis && strcmp(line, ".Pp") != 0;
		if (synopsis || strncmp(line, ".It ", 4) == 0) {
			bool fl = false;
			for (char *save, *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
				bool macro = isupper((unsigned char)t[0]) && strlen(t) <= 3 &&
					     islower((unsigned char)t[1]);
				if (macro || t[0] == '.')
					fl = strcmp(t, "Fl") == 0 || strcmp(t, ".Fl") == 0;
				else if (fl && (isalnum((unsigned char)t[0]) || t[0] == '-')) {
					char *opt = NULL;
					ck_assert_int_ge(asprintf(&opt, "-%s", t), 0);
					words_add_n(&ws, opt, strlen(opt));
					free(opt);
				}
			}
		}
		free(line);
		p += len + (p[len] ? 1 : 0);
	}
	return ws;
}

static char *read_text_file(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: cannot read", path);
	char *text = NULL;
	size_t cap = 0;
	ssize_t n = getdelim(&text, &cap, '\0', f);
	ck_assert_msg(n > 0, "%s: empty", path);
	fclose(f);
	return text;
}

/* The tables the commands parse their lines with, as `list options CMD`
 * prints them, against the man page and --help: every option in both
 * (by one of its spellings at least: explore names -p as run's), and
 * no option in the page's synopsis or items that the table lacks. */
START_TEST(option_tables_agree_with_man_page_and_help)
{
	char *text = man_text(), *path = man_path();
	char *page = read_text_file(path);
	struct words cmds = commands();
	int checked = 0;
	for (int i = 0; i < cmds.n; i++) {
		char *args = NULL;
		ck_assert_int_ge(asprintf(&args, "list options %s", cmds.w[i]), 0);
		char *list = schedlab_out(args);
		free(args);
		ck_assert_int_ge(asprintf(&args, "%s --help", cmds.w[i]), 0);
		char *help = schedlab_out(args);
		free(args);
		char *section = man_section(text, cmds.w[i]);
		ck_assert_msg(section != NULL, "no man page section for %s", cmds.w[i]);
		struct words table = { 0 };
		struct words opts = lines_of(list);
		ck_assert_msg(opts.n >= 1 && opts.w[0][0] == '-', "schedlab list options %s: %s",
			      cmds.w[i], list);
		for (int o = 0; o < opts.n; o++) {
			bool in_help = false, in_man = false;
			char *copy = strdup(opts.w[o]);
			for (char *save, *sp = strtok_r(copy, " ", &save); sp;
			     sp = strtok_r(NULL, " ", &save)) {
				if (sp[0] != '-')
					break;   /* the value's name */
				words_add_n(&table, sp, strlen(sp));
				in_help = in_help || has_option(help, sp);
				in_man = in_man || has_option(section, sp);
			}
			free(copy);
			ck_assert_msg(in_help, "schedlab %s takes %s; its --help does not say it",
				      cmds.w[i], opts.w[o]);
			ck_assert_msg(in_man, "schedlab %s takes %s; the man page's %s section does "
				      "not say it", cmds.w[i], opts.w[o], cmds.w[i]);
			checked++;
		}
		struct words man = man_source_options(page, cmds.w[i]);
		for (int o = 0; o < man.n; o++)
			ck_assert_msg(words_has(&table, man.w[o]), "the man page's %s section lists %s; "
				      "schedlab %s's option table has no such option", cmds.w[i],
				      man.w[o], cmds.w[i]);
		words_free(&man);
		words_free(&table);
		words_free(&opts);
		free(section);
		free(help);
		free(list);
	}
	/* run alone has 16 */
	ck_assert_int_ge(checked, 60);
	words_free(&cmds);
	free(page);
	free(path);
	free(text);
}
END_TEST

/* The test's own parsers, on known text: a test that finds no option
 * would pass on any page. */
START_TEST(help_parsers_find_what_is_there)
{
	const char *help = "schedlab 0.1.0 -- a title, not a usage\n"
			   "\n"
			   "usage: schedlab x -p P [--seed N] [--json FILE|- | --csv FILE|-]\n"
			   "                  [--trace FILE [--trace-limit N]]\n"
			   "       schedlab x sub|other NAME\n"
			   "\n"
			   "Text with --not-an-option-line in prose and -t host.\n"
			   "\n"
			   "  -o, --output FILE  where\n"
			   "                     -x continuation, not an option\n"
			   "  --quick            fast\n";
	struct words ws = help_options(help);
	const char *want[] = { "-p", "--seed", "--json", "--csv", "--trace", "--trace-limit",
			       "-o", "--output", "--quick" };
	ck_assert_int_eq(ws.n, (int)(sizeof(want) / sizeof(want[0])));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(words_has(&ws, want[i]), "missing %s", want[i]);
	words_free(&ws);
	struct words subs = subcommands("x", help);
	ck_assert_int_eq(subs.n, 2);
	ck_assert(words_has(&subs, "sub") && words_has(&subs, "other"));
	words_free(&subs);
	ck_assert(has_option("a --json FILE|- b", "--json"));
	ck_assert(!has_option("a --json-lines b", "--json"));
	ck_assert(!has_option("a --procs b", "-p"));
	ck_assert(has_option("[-p POLICY]", "-p"));
	const char *page = "NAME\n     x\n\nCOMMANDS\n   run\n     -p here\n\n     --set too\n"
			   "   compare\n     --csv\nENVIRONMENT\n     --late\n";
	char *run = man_section(page, "run"), *cmp = man_section(page, "compare");
	ck_assert(has_option(run, "-p") && has_option(run, "--set") && !has_option(run, "--csv"));
	ck_assert(has_option(cmp, "--csv") && !has_option(cmp, "--late") && !has_option(cmp, "-p"));
	ck_assert_ptr_null(man_section(page, "sweep"));
	const char *src = ".Sh COMMANDS\n.Ss run\n.Nm\n.Cm run\n.Op Fl -seed Ar N\n.Pp\n"
			  "Prose with\n.Fl -prose\nin it.\n.Bl -tag\n.It Fl o , Fl -output Ar FILE\n"
			  ".It Fl p , t , -procs\n.El\n.Ss compare\n.It Fl -csv\n";
	struct words src_opts = man_source_options(src, "run");
	const char *src_want[] = { "--seed", "-o", "--output", "-p", "-t", "--procs" };
	ck_assert_int_eq(src_opts.n, 6);
	for (size_t i = 0; i < 6; i++)
		ck_assert_msg(words_has(&src_opts, src_want[i]), "missing %s", src_want[i]);
	words_free(&src_opts);
	free(run);
	free(cmp);
}
END_TEST

/* ---- list --names ---- */

/* The first word of every line of a table that starts at column 0. */
static struct words first_words(const char *table)
{
	struct words ws = { 0 };
	for (const char *p = table; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len && p[0] != ' ')
			words_add_n(&ws, p, strcspn(p, " \n"));
		p += len + (e ? 1 : 0);
	}
	return ws;
}

static void assert_same_words(const struct words *a, const struct words *b, const char *what)
{
	ck_assert_msg(a->n == b->n, "%s: %d names vs %d", what, a->n, b->n);
	for (int i = 0; i < a->n; i++)
		ck_assert_msg(strcmp(a->w[i], b->w[i]) == 0, "%s: %s vs %s", what, a->w[i], b->w[i]);
}

START_TEST(list_names_agree_with_the_tables)
{
	const char *kinds[] = { "policies", "topologies", "workloads" };
	for (size_t k = 0; k < 3; k++) {
		char *args = NULL;
		ck_assert_int_ge(asprintf(&args, "list %s", kinds[k]), 0);
		char *table = schedlab_out(args);
		free(args);
		ck_assert_int_ge(asprintf(&args, "list %s --names", kinds[k]), 0);
		char *names = schedlab_out(args);
		free(args);
		struct words t = first_words(table), n = lines_of(names);
		ck_assert_int_ge(n.n, 3);
		assert_same_words(&t, &n, kinds[k]);
		words_free(&t);
		words_free(&n);
		free(table);
		free(names);
	}
	/* list knobs POLICY: the knobs `list policies` shows under it */
	char *table = schedlab_out("list policies");
	char *all = schedlab_out("list knobs");
	struct words every = lines_of(all), pols = first_words(table);
	int total = 0;
	for (int i = 0; i < pols.n; i++) {
		char *args = NULL;
		ck_assert_int_ge(asprintf(&args, "list knobs %s", pols.w[i]), 0);
		char *knobs = schedlab_out(args);
		free(args);
		struct words mine = lines_of(knobs), shown = { 0 };
		char *head = NULL;
		ck_assert_int_ge(asprintf(&head, "%s  ", pols.w[i]), 0);
		const char *p = strncmp(table, head, strlen(head)) == 0 ? table : NULL;
		char *nl_head = NULL;
		ck_assert_int_ge(asprintf(&nl_head, "\n%s", head), 0);
		if (!p)
			p = strstr(table, nl_head) + 1;
		for (p = strchr(p, '\n'); p && strncmp(p, "\n  ", 3) == 0; p = strchr(p + 1, '\n'))
			words_add_n(&shown, p + 3, strcspn(p + 3, " "));
		assert_same_words(&shown, &mine, pols.w[i]);
		for (int k = 0; k < mine.n; k++)
			ck_assert_msg(words_has(&every, mine.w[k]), "list knobs lacks %s", mine.w[k]);
		total += mine.n;
		words_free(&mine);
		words_free(&shown);
		free(head);
		free(nl_head);
		free(knobs);
	}
	/* each name once: fewer than the policies' knobs counted apart */
	ck_assert_int_gt(total, every.n);
	int printed = 0;
	for (const char *p = all; *p; p++)
		printed += *p == '\n';
	ck_assert_int_eq(printed, every.n);
	char *out, *err;
	ck_assert_int_eq(test_schedlab("list knobs nosuch", &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "knobs nosuch: no such policy"));
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
	ck_assert_int_eq(test_schedlab("list workloads extra", &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "unexpected argument 'extra'"));
	free(out);
	free(err);
	words_free(&every);
	words_free(&pols);
	free(all);
	free(table);
}
END_TEST

/* ---- bash completion ---- */

/* What the completion offers for the line COMP_WORDS=(schedlab words...),
 * the cursor at the end of the last word, run in folder dir (or here):
 * COMPREPLY, one a line. */
static struct words complete_in(const char *dir, const char *words)
{
	/* absolute, as the shell changes folder */
	char *root = realpath(source_root(), NULL);
	const char *bin_given = test_schedlab_bin();
	char *bin = strchr(bin_given, '/') ? realpath(bin_given, NULL) : strdup(bin_given);
	ck_assert_msg(root && bin, "no %s or %s", source_root(), bin_given);
	char *cmd = NULL, *out, *err;
	ck_assert_int_ge(asprintf(&cmd,
				  "cd '%s' && bash --norc --noprofile -c '"
				  "source \"$0\" || exit 9; "
				  "COMP_WORDS=(\"$1\" %s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
				  "COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}; "
				  "_schedlab || exit 8; printf \"%%s\\n\" \"${COMPREPLY[@]}\"' "
				  "'%s/completion/schedlab.bash' '%s'",
				  dir ? dir : ".", words, root, bin),
			  0);
	free(root);
	free(bin);
	int rc = test_run(cmd, &out, &err);
	ck_assert_msg(rc == 0 && strcmp(err, "") == 0, "completion of '%s': exit %d: %s", words, rc,
		      err);
	struct words ws = lines_of(out);
	free(cmd);
	free(out);
	free(err);
	return ws;
}

static struct words complete(const char *words)
{
	return complete_in(NULL, words);
}

static void assert_offers(const struct words *got, const char *const *want, int n, bool exactly,
			  const char *line)
{
	for (int i = 0; i < n; i++)
		ck_assert_msg(words_has(got, want[i]), "'%s' does not offer %s (%d offered, first %s)",
			      line, want[i], got->n, got->n ? got->w[0] : "-");
	if (exactly)
		ck_assert_msg(got->n == n, "'%s' offers %d, expected %d", line, got->n, n);
}

START_TEST(completion_offers_commands_and_every_option)
{
	struct words cmds = commands();
	struct words got = complete("\"\"");
	assert_offers(&got, (const char *const *)cmds.w, cmds.n, true, "schedlab ");
	words_free(&got);
	for (int i = 0; i < cmds.n; i++) {
		char *args = NULL, *line = NULL;
		ck_assert_int_ge(asprintf(&args, "%s --help", cmds.w[i]), 0);
		char *help = schedlab_out(args);
		struct words opts = help_options(help);
		ck_assert_int_ge(asprintf(&line, "%s -", cmds.w[i]), 0);
		got = complete(line);
		assert_offers(&got, (const char *const *)opts.w, opts.n, false, line);
		ck_assert_msg(words_has(&got, "--help"), "'%s' does not offer --help", line);
		words_free(&got);
		words_free(&opts);
		free(help);
		free(args);
		free(line);
	}
	got = complete("run --max-");
	assert_offers(&got, (const char *[]){ "--max-sim-time", "--max-wall-time", "--max-memory" },
		      3, true, "run --max-");
	words_free(&got);
	got = complete("list \"\"");
	assert_offers(&got, (const char *[]){ "policies", "topologies", "workloads", "knobs",
					       "options" }, 5, true, "list ");
	words_free(&got);
	got = complete("list options \"\"");
	assert_offers(&got, (const char *const *)cmds.w, cmds.n, true, "list options ");
	words_free(&got);
	got = complete("workload \"\"");
	assert_offers(&got, (const char *[]){ "expand", "import", "show" }, 3, true, "workload ");
	words_free(&got);
	/* a value by its name in the table: a choice, a file, nothing */
	got = complete("report --format \"\"");
	assert_offers(&got, (const char *[]){ "html", "md" }, 2, true, "report --format ");
	words_free(&got);
	got = complete("run --trace-format \"\"");
	assert_offers(&got, (const char *[]){ "go1.22", "go1.19", "chrome" }, 3, true,
		      "run --trace-format ");
	words_free(&got);
	got = complete("compare --seeds \"\"");
	ck_assert_msg(got.n == 0, "compare --seeds: %d offered", got.n);
	words_free(&got);
	words_free(&cmds);
}
END_TEST

START_TEST(completion_offers_policies_and_knobs)
{
	char *names = schedlab_out("list policies --names");
	struct words pols = lines_of(names);
	struct words got = complete("run -p \"\"");
	assert_offers(&got, (const char *const *)pols.w, pols.n, true, "run -p ");
	words_free(&got);
	got = complete("list knobs \"\"");
	assert_offers(&got, (const char *const *)pols.w, pols.n, true, "list knobs ");
	words_free(&got);
	got = complete("compare -p steal,");
	assert_offers(&got, (const char *[]){ "steal,global", "steal,steal", "steal,numa" }, 3,
		      true, "compare -p steal,");
	words_free(&got);
	/* readline splits steal:runn at ":": the words arrive apart, and what
	 * is offered replaces the text after the ":" */
	got = complete("compare -p steal : runn");
	assert_offers(&got, (const char *[]){ "runnext=", "runnext_steal_delay_us=" }, 2, true,
		      "compare -p steal:runn");
	words_free(&got);
	got = complete("compare -p steal,numa : runnext = 0 : node_");
	assert_offers(&got, (const char *[]){ "node_queues=", "node_mpools=", "node_heaps=" }, 3,
		      true, "compare -p steal,numa:runnext=0:node_");
	words_free(&got);
	/* --set: the knobs of the line's policy, or of every policy */
	char *knobs = schedlab_out("list knobs steal");
	struct words steal = lines_of(knobs);
	got = complete("run -p steal --set \"\"");
	ck_assert_int_eq(got.n, steal.n);
	for (int i = 0; i < steal.n; i++) {
		char *kv = NULL;
		ck_assert_int_ge(asprintf(&kv, "%s=", steal.w[i]), 0);
		ck_assert_msg(words_has(&got, kv), "--set does not offer %s", kv);
		free(kv);
	}
	words_free(&got);
	got = complete("run -p numa --set l");
	assert_offers(&got, (const char *[]){ "lastm=", "lifo=" }, 2, true, "run -p numa --set l");
	words_free(&got);
	got = complete("compare -p steal,global --set h");
	assert_offers(&got, (const char *[]){ "handoff=" }, 1, true, "compare --set h");
	words_free(&got);
	/* regress --against POLICY; report --format */
	got = complete("regress --against st");
	assert_offers(&got, (const char *[]){ "steal" }, 1, true, "regress --against st");
	words_free(&got);
	got = complete("report --format \"\"");
	assert_offers(&got, (const char *[]){ "html", "md" }, 2, true, "report --format ");
	words_free(&got);
	/* a value: nothing to offer, and not the knob again */
	got = complete("run -p steal --set runnext =");
	ck_assert_int_eq(got.n, 0);
	words_free(&got);
	words_free(&steal);
	words_free(&pols);
	free(knobs);
	free(names);
}
END_TEST

START_TEST(completion_offers_workloads_topologies_and_files)
{
	char dir[] = "/tmp/schedlab-compl-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *cmd = NULL;
	ck_assert_int_ge(asprintf(&cmd, "cd %s && mkdir sub && touch machine.xml box.json notes.txt "
				  "pipe.trace", dir), 0);
	ck_assert_int_eq(test_run(cmd, NULL, NULL), 0);
	free(cmd);

	char *t = schedlab_out("list topologies --names");
	struct words topos = lines_of(t);
	ck_assert(words_has(&topos, "host") && words_has(&topos, "numa4"));
	struct words got = complete_in(dir, "run -t \"\"");
	assert_offers(&got, (const char *const *)topos.w, topos.n, false, "run -t ");
	/* machine files: hwloc XML and JSON, and folders to go into */
	assert_offers(&got, (const char *[]){ "machine.xml", "box.json", "sub" }, 3, false,
		      "run -t ");
	ck_assert_msg(!words_has(&got, "notes.txt"), "run -t offers notes.txt");
	ck_assert_int_eq(got.n, topos.n + 3);
	words_free(&got);

	got = complete_in(dir, "compare -w pi");
	assert_offers(&got, (const char *[]){ "pingpong", "pingpong-hog", "pipeline", "ping-pong",
					      "pipe.trace" },
		      5, true, "compare -w pi");
	words_free(&got);
	/* sweep's lists: the piece after the last comma */
	got = complete_in(dir, "sweep -t numa1,numa");
	assert_offers(&got, (const char *[]){ "numa1,numa1", "numa1,numa2", "numa1,numa4",
					      "numa1,numa8" },
		      4, true, "sweep -t numa1,numa");
	words_free(&got);
	got = complete_in(dir, "sweep -w fib,pipe");
	assert_offers(&got, (const char *[]){ "fib,pipeline", "fib,pipe.trace" }, 2, true,
		      "sweep -w fib,pipe");
	words_free(&got);
	got = complete_in(dir, "workload show rpc");
	assert_offers(&got, (const char *[]){ "rpc-server" }, 1, true, "workload show rpc");
	words_free(&got);
	got = complete_in(dir, "workload expand fi");
	assert_offers(&got, (const char *[]){ "fib" }, 1, true, "workload expand fi");
	words_free(&got);
	got = complete_in(dir, "run --json \"\"");
	assert_offers(&got, (const char *[]){ "machine.xml", "box.json", "notes.txt", "pipe.trace",
					      "sub" },
		      5, true, "run --json ");
	words_free(&got);
	/* a number: nothing */
	got = complete_in(dir, "run --procs \"\"");
	ck_assert_int_eq(got.n, 0);
	words_free(&got);

	ck_assert_int_ge(asprintf(&cmd, "rm -r %s", dir), 0);
	ck_assert_int_eq(test_run(cmd, NULL, NULL), 0);
	free(cmd);
	words_free(&topos);
	free(t);
}
END_TEST

Suite *make_conventions_suite(void)
{
	Suite *s = suite_create("conventions");
	TCase *tc = tcase_create("help");
	tcase_add_test(tc, every_command_and_subcommand_answers_help);
	tcase_add_test(tc, version_names_the_commit_built);
	tcase_add_test(tc, list_names_agree_with_the_tables);
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	tc = tcase_create("manpage");
	tcase_add_test(tc, help_parsers_find_what_is_there);
	tcase_add_test(tc, man_page_lints_clean);
	tcase_add_test(tc, man_page_has_every_command_and_option);
	tcase_add_test(tc, option_tables_agree_with_man_page_and_help);
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	tc = tcase_create("completion");
	tcase_add_test(tc, completion_offers_commands_and_every_option);
	tcase_add_test(tc, completion_offers_policies_and_knobs);
	tcase_add_test(tc, completion_offers_workloads_topologies_and_files);
	tcase_set_tags(tc, TEST_SIM_ONLY);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return s;
}
