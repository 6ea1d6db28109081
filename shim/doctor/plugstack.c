/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "doctor/plugstack.h"

#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLUGIN_FILE "spank_dist.so"
/* include lines nested deeper than this are a loop, as Slurm sees it too. */
#define INCLUDE_DEPTH_MAX 8

static int find_in(const char *conf, const char *plugindir, int depth, struct plugstack_line *line,
                   struct dist_err *err);

static bool is_ours(const char *path)
{
	const char *slash = strrchr(path, '/');

	return strcmp(slash ? slash + 1 : path, PLUGIN_FILE) == 0;
}

/* Plugins that move a task into a container in their task_init: the shim
 * must then be carried in (spank/carry.h), which needs dist after them. */
static bool is_container_plugin(const char *path)
{
	static const char *const names[] = {"pyxis", "shifter", "sarus", "singularity",
	                                    "apptainer"};
	const char *slash = strrchr(path, '/');

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(slash ? slash + 1 : path, names[i]))
			return true;
	return false;
}

/* A container plugin's line, before or after ours. */
static int note_container_plugin(const char *path, struct plugstack_line *line,
                                 struct dist_err *err)
{
	char **slot = line->file ? &line->container_after : &line->container_before;

	if (!is_container_plugin(path) || *slot)
		return 0;
	*slot = strdup(path);
	return *slot ? 0 : dist_err_set(err, "out of memory");
}

/* A bare plugin name is looked up in PluginDir, as Slurm does. */
static char *resolve_plugin(const char *path, const char *plugindir)
{
	char *dirs, *dir, *save = NULL, *found = NULL;

	if (path[0] == '/' || !plugindir)
		return strdup(path);
	dirs = strdup(plugindir);
	for (dir = dirs ? strtok_r(dirs, ":", &save) : NULL; dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		if (asprintf(&found, "%s/%s", dir, path) < 0)
			found = NULL;
		else if (access(found, F_OK) != 0) {
			free(found);
			found = NULL;
		}
	}
	free(dirs);
	return found ? found : strdup(path);
}

/* A required or optional line (WORD), TEXT its whole text before it was
 * split, LINENO its number in CONF. */
static int take_line(const char *conf, int lineno, const char *text, const char *word,
                     const char *plugindir, char *save, struct plugstack_line *line,
                     struct dist_err *err)
{
	char *path = strtok_r(NULL, " \t", &save), *arg;

	if (!path)
		return 0;
	if (!is_ours(path) || line->file)
		return note_container_plugin(path, line, err);
	line->file = strdup(conf);
	line->lineno = lineno;
	line->text = strdup(text);
	line->optional = strcmp(word, "optional") == 0;
	line->path = resolve_plugin(path, plugindir);
	while ((arg = strtok_r(NULL, " \t", &save))) {
		char **grown = realloc(line->args, sizeof(*grown) * (size_t)(line->nargs + 1));

		if (!grown)
			return dist_err_set(err, "out of memory");
		line->args = grown;
		line->args[line->nargs++] = strdup(arg);
	}
	if (!line->file || !line->path || !line->text)
		return dist_err_set(err, "out of memory");
	return 0;
}

/* include PATTERN: a glob, relative to the including file's directory. */
static int take_include(const char *conf, const char *plugindir, int depth, char *save,
                        struct plugstack_line *line, struct dist_err *err)
{
	char *pattern = strtok_r(NULL, " \t", &save), *full = NULL, *copy;
	glob_t g = {0};
	int rc = 0;

	if (!pattern)
		return 0;
	copy = strdup(conf);
	if (!copy || asprintf(&full, "%s/%s", dirname(copy), pattern) < 0)
		full = NULL;
	free(copy);
	if (pattern[0] != '/' && !full)
		return dist_err_set(err, "out of memory");
	if (glob(pattern[0] == '/' ? pattern : full, 0, NULL, &g) == 0)
		for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++)
			rc = find_in(g.gl_pathv[i], plugindir, depth + 1, line, err);
	globfree(&g);
	free(full);
	return rc;
}

static int find_in(const char *conf, const char *plugindir, int depth, struct plugstack_line *line,
                   struct dist_err *err)
{
	FILE *f;
	char *text = NULL, *whole = NULL, *save, *word;
	size_t cap = 0;
	int rc = 0, lineno = 0;

	if (depth > INCLUDE_DEPTH_MAX)
		return dist_err_set(err, "%s: include lines nested over %d deep", conf,
		                    INCLUDE_DEPTH_MAX);
	f = fopen(conf, "r");
	if (!f)
		return dist_err_set(err, "cannot read %s: %s", conf, strerror(errno));
	while (rc == 0 && getline(&text, &cap, f) >= 0) {
		lineno++;
		text[strcspn(text, "#\n")] = '\0';
		free(whole);
		whole = strdup(text);
		if (!whole) {
			rc = dist_err_set(err, "out of memory");
			break;
		}
		for (size_t n = strlen(whole); n > 0 && strchr(" \t\r", whole[n - 1]); n--)
			whole[n - 1] = '\0';
		word = strtok_r(text, " \t", &save);
		if (!word)
			continue;
		if (strcmp(word, "required") == 0 || strcmp(word, "optional") == 0)
			rc = take_line(conf, lineno, whole, word, plugindir, save, line, err);
		else if (strcmp(word, "include") == 0)
			rc = take_include(conf, plugindir, depth, save, line, err);
	}
	free(whole);
	free(text);
	fclose(f);
	return rc;
}

int plugstack_find(const char *conf, const char *plugindir, struct plugstack_line *line,
                   struct dist_err *err)
{
	memset(line, 0, sizeof(*line));
	int rc = find_in(conf, plugindir, 0, line, err) ? -1 : line->file ? 1 : 0;

	/* Only a found line is the caller's to free. */
	if (rc != 1)
		plugstack_line_free(line);
	return rc;
}

void plugstack_line_free(struct plugstack_line *line)
{
	for (int i = 0; i < line->nargs; i++)
		free(line->args[i]);
	free(line->args);
	free(line->file);
	free(line->text);
	free(line->path);
	free(line->container_before);
	free(line->container_after);
	memset(line, 0, sizeof(*line));
}
