/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "dist_port.h"
#include "dist_slurmenv.h"

static int set_shim(struct dist_config *cfg, const char *value, struct dist_err *err)
{
	if (value[0] != '/')
		return dist_err_set(err, "shim=%s: expected an absolute path", value);
	if ((size_t)snprintf(cfg->shim, sizeof(cfg->shim), "%s", value) >= sizeof(cfg->shim))
		return dist_err_set(err, "shim=: path too long (over %zu bytes)",
		                    sizeof(cfg->shim) - 1);
	return 0;
}

static int set_port_range(struct dist_config *cfg, const char *value, struct dist_err *err)
{
	struct dist_port_range range;

	if (dist_port_range_parse(value, &range, err))
		return -1;
	snprintf(cfg->port_range, sizeof(cfg->port_range), "%u-%u", range.lo, range.hi);
	return 0;
}

static int set_timeout(struct dist_config *cfg, const char *value, struct dist_err *err)
{
	uint32_t seconds;

	if (dist_parse_u32(value, &seconds) || seconds == 0 || seconds > 86400)
		return dist_err_set(err, "timeout=%s: expected seconds, 1 to 86400", value);
	snprintf(cfg->timeout, sizeof(cfg->timeout), "%u", seconds);
	return 0;
}

static int set_carry_shim(struct dist_config *cfg, const char *value, struct dist_err *err)
{
	if (strcmp(value, "auto") != 0 && strcmp(value, "always") != 0)
		return dist_err_set(err, "carry_shim=%s: expected auto or always", value);
	cfg->carry_always = strcmp(value, "always") == 0;
	return 0;
}

static const struct {
	const char *key;
	int (*set)(struct dist_config *, const char *, struct dist_err *);
} settings[] = {
        {"shim", set_shim},
        {"port_range", set_port_range},
        {"timeout", set_timeout},
        {"carry_shim", set_carry_shim},
};

static int parse_arg(struct dist_config *cfg, const char *arg, struct dist_err *err)
{
	const char *eq = strchr(arg, '=');

	if (!eq)
		return dist_err_set(err, "plugstack argument '%s': expected key=value", arg);
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (strlen(settings[i].key) == (size_t)(eq - arg) &&
		    strncmp(arg, settings[i].key, (size_t)(eq - arg)) == 0)
			return settings[i].set(cfg, eq + 1, err);
	return dist_err_set(err,
	                    "unknown plugstack argument '%.*s' (known: shim, port_range, timeout, "
	                    "carry_shim)",
	                    (int)(eq - arg), arg);
}

int dist_config_parse(int ac, char **av, const char *default_shim, struct dist_config *cfg,
                      struct dist_err *err)
{
	snprintf(cfg->shim, sizeof(cfg->shim), "%s", default_shim);
	snprintf(cfg->port_range, sizeof(cfg->port_range), "%s", DIST_PORT_RANGE_DEFAULT);
	cfg->timeout[0] = '\0';
	cfg->carry_always = false;
	for (int i = 0; i < ac; i++)
		if (parse_arg(cfg, av[i], err))
			return -1;
	return 0;
}
