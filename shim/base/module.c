/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/module.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/carried.h"

static const char *const names[MODULE_COUNT] = {
#define MODULE_NAME(id, name, table, global) [MODULE_##id] = #name,
        MODULES(MODULE_NAME)
#undef MODULE_NAME
};
static const bool global[MODULE_COUNT] = {
#define MODULE_GLOBAL(id, name, table, global) [MODULE_##id] = global,
        MODULES(MODULE_GLOBAL)
#undef MODULE_GLOBAL
};
static const void *loaded[MODULE_COUNT];

const char *module_file(enum module_id id)
{
	static char files[MODULE_COUNT][32];

	if (!files[id][0])
		snprintf(files[id], sizeof(files[id]), "dist-shim-%s.so", names[id]);
	return files[id];
}

/* The directory of the running shim (symbolic links resolved), or the
 * node's one it was carried from (base/carried.h); -1 when /proc does not
 * say (a chroot without it). */
static int shim_dir(char *dir, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n;

	/* Carried into a container: /proc/self/exe is the node's loader. */
	if (carried_active())
		return (size_t)snprintf(dir, len, "%s", carried_dir()) < len ? 0 : -1;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || exe[0] != '/')
		return -1;
	exe[n] = '\0';
	return (size_t)snprintf(dir, len, "%s", dirname(exe)) < len ? 0 : -1;
}

/* Where an installed shim's modules are (DIST_SHIM_MODULE_RELDIR, from its
 * own directory), then beside it (a build tree, a test cluster's copy).
 * Without /proc the shim cannot know its directory: then only the install's
 * own module directory, compiled in, is tried, never one relative to the
 * working directory (root running --doctor from a directory someone else
 * can write would load what they left there). */
static void *open_module(enum module_id id, char *tried, size_t len)
{
	const char *const relative[] = {"/" DIST_SHIM_MODULE_RELDIR "/", "/"};
	const char *const fixed[] = {"/"};
	const char *const *places = relative;
	size_t nplaces = sizeof(relative) / sizeof(relative[0]);
	char dir[PATH_MAX], path[PATH_MAX + 64];
	void *handle = NULL;

	tried[0] = '\0';
	if (shim_dir(dir, sizeof(dir))) {
		snprintf(dir, sizeof(dir), "%s", DIST_SHIM_MODULE_FULLDIR);
		places = fixed;
		nplaces = 1;
	}
	for (size_t i = 0; i < nplaces && !handle; i++) {
		snprintf(path, sizeof(path), "%s%s%s", dir, places[i], module_file(id));
		if (access(path, F_OK) != 0)
			continue;
		handle = dlopen(path, RTLD_NOW | (global[id] ? RTLD_GLOBAL : RTLD_LOCAL));
		snprintf(tried, len, "%s", handle ? path : dlerror());
	}
	if (!handle && !tried[0] && places == fixed)
		snprintf(tried, len, "not in %s, and no /proc to find the shim's own directory",
		         dir);
	else if (!handle && !tried[0])
		snprintf(tried, len, "not in %s/%s nor beside the shim", dir,
		         DIST_SHIM_MODULE_RELDIR);
	return handle;
}

static const void *module_get(enum module_id id, struct dist_err *err)
{
	char symbol[64], tried[PATH_MAX + 256];
	const char *const *table;
	void *handle;

	if (loaded[id])
		return loaded[id];
	handle = open_module(id, tried, sizeof(tried));
	if (!handle) {
		dist_err_set(err, "cannot load the shim's module %s (%s): reinstall slurm-dist",
		             module_file(id), tried);
		return NULL;
	}
	snprintf(symbol, sizeof(symbol), "dist_shim_module_%s", names[id]);
	table = dlsym(handle, symbol);
	if (!table || strcmp(*table, MODULE_ABI) != 0) {
		dist_err_set(err,
		             "the shim's module %s is from another build (%s, not %s): reinstall "
		             "slurm-dist",
		             tried, table ? *table : "no table", MODULE_ABI);
		dlclose(handle);
		return NULL;
	}
	loaded[id] = table;
	return table;
}

int module_load(enum module_id id, struct dist_err *err)
{
	return module_get(id, err) ? 0 : -1;
}

#define MODULE_ACCESSOR(id, name, table, global)                                                   \
	const struct table *module_##name(struct dist_err *err)                                    \
	{                                                                                          \
		return module_get(MODULE_##id, err);                                               \
	}
MODULES(MODULE_ACCESSOR)
#undef MODULE_ACCESSOR
