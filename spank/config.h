/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Site settings from plugstack.conf: key=value arguments, explicit defaults,
 * and an unknown key or bad value is an error naming it. */
#ifndef SPANK_DIST_CONFIG_H
#define SPANK_DIST_CONFIG_H

#include <limits.h>
#include <stdbool.h>

#include "dist_err.h"

struct dist_config {
	char shim[PATH_MAX]; /* absolute path of dist-shim */
	char port_range[32]; /* LO-HI for MASTER_PORT */
	char timeout[16];    /* seconds the shim waits for its peers */
	/* carry_shim=always: carry the shim in even when it is still in reach
	 * at task_init (a container plugin listed after this one); the default,
	 * auto, carries it only when it is not (core/dist_carry.h). */
	bool carry_always;
};

/* DEFAULT_SHIM is where the build installed the shim. */
int dist_config_parse(int ac, char **av, const char *default_shim, struct dist_config *cfg,
                      struct dist_err *err);

#endif
