/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether this shim was carried into a container by the plugin and
 * dist-shim-enter (core/dist_carry.h), and where its directory is then. */
#ifndef SHIM_CARRIED_H
#define SHIM_CARRIED_H

#include <stdbool.h>
#include <stddef.h>

/* First thing in main: takes DIST_SHIM_CARRIED out of the environment and,
 * when it was made for this process, keeps the shim's directory and marks
 * the carried descriptors close-on-exec (they stay usable for the modules
 * until the program's exec, which closes them). */
void carried_adopt(void);
bool carried_active(void);
/* Whether NAME is set and was not in the environment srun handed over,
 * in a carried shim: a container plugin imported it (pyxis's import,
 * enroot's hooks), and the contract replaces it. Always false otherwise:
 * what is in the environment is the user's, and wins. */
bool carried_imported(const char *name);
/* getenv(NAME), unless carried_imported(NAME). */
const char *carried_user_getenv(const char *name);
/* setenv(NAME, VALUE) over the user's value never, over an imported one. */
int carried_setenv_default(const char *name, const char *value);
/* "/proc/self/fd/N": the shim's directory on the node, when carried. */
const char *carried_dir(void);

#endif
