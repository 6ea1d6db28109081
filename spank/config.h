/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Site settings from plugstack.conf: key=value arguments, explicit defaults,
 * and an unknown key or bad value is an error naming it. */
#ifndef SPANK_DIST_CONFIG_H
#define SPANK_DIST_CONFIG_H

#include <limits.h>

#include "dist_err.h"

struct dist_config {
	char shim[PATH_MAX]; /* absolute path of dist-shim */
	char port_range[32]; /* LO-HI for MASTER_PORT */
	char timeout[16];    /* seconds the shim waits for its peers */
};

/* DEFAULT_SHIM is where the build installed the shim. */
int dist_config_parse(int ac, char **av, const char *default_shim, struct dist_config *cfg,
                      struct dist_err *err);

#endif
