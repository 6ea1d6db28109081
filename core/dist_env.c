/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_env.h"

#include "dist_buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dist_env_init(struct dist_env *env)
{
	env->vars = NULL;
	env->count = 0;
	env->cap = 0;
}

void dist_env_free(struct dist_env *env)
{
	for (size_t i = 0; i < env->count; i++) {
		free(env->vars[i].name);
		free(env->vars[i].value);
	}
	free(env->vars);
	dist_env_init(env);
}

static struct dist_env_var *find_var(const struct dist_env *env, const char *name)
{
	for (size_t i = 0; i < env->count; i++)
		if (strcmp(env->vars[i].name, name) == 0)
			return (struct dist_env_var *)&env->vars[i];
	return NULL;
}

/* Sets NAME to VALUE (malloc'd, taken over, freed on error). */
static int set_owned(struct dist_env *env, const char *name, char *value, struct dist_err *err)
{
	struct dist_env_var *var = find_var(env, name);

	if (!value)
		return dist_err_set(err, "out of memory");
	if (var) {
		free(var->value);
		var->value = value;
		return 0;
	}
	if (env->count == env->cap) {
		size_t cap = env->cap ? 2 * env->cap : 32;
		struct dist_env_var *vars = realloc(env->vars, cap * sizeof(*vars));

		if (!vars) {
			free(value);
			return dist_err_set(err, "out of memory");
		}
		env->vars = vars;
		env->cap = cap;
	}
	var = &env->vars[env->count];
	var->name = strdup(name);
	if (!var->name) {
		free(value);
		return dist_err_set(err, "out of memory");
	}
	var->value = value;
	var->replace = false;
	env->count++;
	return 0;
}

int dist_env_set(struct dist_env *env, const char *name, const char *value, struct dist_err *err)
{
	return set_owned(env, name, strdup(value), err);
}

int dist_env_setf(struct dist_env *env, struct dist_err *err, const char *name, const char *fmt,
                  ...)
{
	struct dist_buf value = DIST_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	dist_buf_vappendf(&value, fmt, ap);
	va_end(ap);
	return set_owned(env, name, dist_buf_take(&value), err);
}

int dist_env_replace(struct dist_env *env, const char *name, const char *value,
                     struct dist_err *err)
{
	if (dist_env_set(env, name, value, err))
		return -1;
	find_var(env, name)->replace = true;
	return 0;
}

const char *dist_env_get(const struct dist_env *env, const char *name)
{
	const struct dist_env_var *var = find_var(env, name);

	return var ? var->value : NULL;
}

void dist_env_unset(struct dist_env *env, const char *name)
{
	struct dist_env_var *var = find_var(env, name);

	if (!var)
		return;
	free(var->name);
	free(var->value);
	/* Keeps the order of the others: the golden files and --explain print it. */
	memmove(var, var + 1, (size_t)(&env->vars[env->count] - (var + 1)) * sizeof(*var));
	env->count--;
}

int dist_exec_string_fits(const char *what, size_t len, struct dist_err *err)
{
	if (len < DIST_EXEC_STRING_MAX)
		return 0;
	return dist_err_set(err,
	                    "%s would be %zu bytes, more than the %d Linux lets one variable "
	                    "or argument carry to a program: this step has too many tasks or "
	                    "nodes for it (docs/performance.md, \"one exec string\")",
	                    what, len, DIST_EXEC_STRING_MAX - 1);
}

/* Checked before any is set: the program must find all of them or the
 * step must not start. */
static int check_exec_limits(const struct dist_env *env, struct dist_err *err)
{
	for (size_t i = 0; i < env->count; i++)
		if (dist_exec_string_fits(
		            env->vars[i].name,
		            strlen(env->vars[i].name) + 1 + strlen(env->vars[i].value), err))
			return -1;
	return 0;
}

int dist_env_export(const struct dist_env *env, struct dist_err *err)
{
	if (check_exec_limits(env, err))
		return -1;
	for (size_t i = 0; i < env->count; i++)
		if (setenv(env->vars[i].name, env->vars[i].value, env->vars[i].replace) != 0)
			return dist_err_set(err, "cannot set %s: %s", env->vars[i].name,
			                    strerror(errno));
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(((const struct dist_env_var *)a)->name,
	              ((const struct dist_env_var *)b)->name);
}

void dist_env_sort(struct dist_env *env)
{
	if (env->count > 1)
		qsort(env->vars, env->count, sizeof(env->vars[0]), compare_names);
}
