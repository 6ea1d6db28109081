/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_mode.h"

#include <stdlib.h>
#include <string.h>

static const struct dist_mode *const modes[] = {
        &dist_mode_ddp,
        &dist_mode_mpi,
        &dist_mode_ps,
        &dist_mode_ascend,
};

/* Modes that later releases add; named so the message can say so. */
static const char *const planned_modes[] = {"horovod", "ray", "jax"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

enum dist_mode_status dist_mode_lookup(const char *name, const struct dist_mode **mode)
{
	if (mode)
		*mode = NULL;
	if (!name)
		return DIST_MODE_UNKNOWN;
	if (strcmp(name, "none") == 0)
		return DIST_MODE_OFF;
	for (size_t i = 0; i < COUNT(modes); i++) {
		if (strcmp(name, modes[i]->name) == 0) {
			if (mode)
				*mode = modes[i];
			return DIST_MODE_AVAILABLE;
		}
	}
	for (size_t i = 0; i < COUNT(planned_modes); i++)
		if (strcmp(name, planned_modes[i]) == 0)
			return DIST_MODE_PLANNED;
	return DIST_MODE_UNKNOWN;
}

const struct dist_mode *dist_mode_at(size_t index)
{
	return index < COUNT(modes) ? modes[index] : NULL;
}

bool dist_pmix_shareable(const char *server_version)
{
	char *end;
	unsigned long major;

	if (!server_version || server_version[0] < '0' || server_version[0] > '9')
		return false;
	major = strtoul(server_version, &end, 10);
	return *end == '.' && major >= 5;
}

const char *dist_mode_choices(void)
{
	return "none|ddp|mpi|ps|ascend";
}

int dist_mode_validate(const char *name, struct dist_err *err)
{
	switch (dist_mode_lookup(name, NULL)) {
	case DIST_MODE_OFF:
	case DIST_MODE_AVAILABLE:
		return 0;
	case DIST_MODE_PLANNED:
	case DIST_MODE_UNKNOWN:
		break;
	}
	/* Planned and unknown modes get the same message: both are unusable today. */
	return dist_err_set(err, "invalid --dist-mode '%s': valid modes are %s", name ? name : "",
	                    dist_mode_choices());
}

int dist_files_add(struct dist_files *files, const char *name, char *content, struct dist_err *err)
{
	if (!content)
		return dist_err_set(err, "out of memory");
	if (files->count == DIST_FILES_MAX) {
		free(content);
		return dist_err_set(err, "too many files (limit %d)", DIST_FILES_MAX);
	}
	files->f[files->count].name = name;
	files->f[files->count].content = content;
	files->count++;
	return 0;
}

void dist_files_free(struct dist_files *files)
{
	for (size_t i = 0; i < files->count; i++)
		free(files->f[i].content);
	files->count = 0;
}
