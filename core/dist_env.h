/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The environment a mode wants its tasks to see, and how it is merged with
 * what the user already exported: a variable the user set always wins. */
#ifndef DIST_ENV_H
#define DIST_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "dist_err.h"

struct dist_env_var {
	char *name;
	char *value;
	bool replace; /* set even over the user's value (an explicit opt-in asked for it) */
};

/* As many variables as the mode and the profiles set: no fixed cap. */
struct dist_env {
	struct dist_env_var *vars;
	size_t count;
	size_t cap;
};

void dist_env_init(struct dist_env *env);
void dist_env_free(struct dist_env *env);

/* Sets (or replaces) NAME=VALUE. */
int dist_env_set(struct dist_env *env, const char *name, const char *value, struct dist_err *err);
int dist_env_setf(struct dist_env *env, struct dist_err *err, const char *name, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));

/* Like dist_env_set, for a variable the user's own value must not win over
 * (only where the user opted in to exactly that). */
int dist_env_replace(struct dist_env *env, const char *name, const char *value,
                     struct dist_err *err);

/* Removes NAME if set. */
void dist_env_unset(struct dist_env *env, const char *name);

/* Value of NAME, or NULL. */
const char *dist_env_get(const struct dist_env *env, const char *name);

/* Exports every variable the process environment does not already have
 * (setenv without overwrite): the user's own values take precedence, except
 * over those set with dist_env_replace. */
int dist_env_export(const struct dist_env *env, struct dist_err *err);

/* Linux's MAX_ARG_STRLEN: the longest one "NAME=value" or argument execve
 * passes to a program (32 pages of 4 KiB), NUL included. */
#define DIST_EXEC_STRING_MAX 131072

/* 0 when a string of LEN bytes (NUL excluded) can reach the program; else
 * -1 with ERR naming WHAT, its size and what to do. */
int dist_exec_string_fits(const char *what, size_t len, struct dist_err *err);

/* Sorts by name: stable output for golden files and --explain. */
void dist_env_sort(struct dist_env *env);

#endif
