/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_options.h"

#include "dist_bind.h"
#include "dist_check.h"
#include "dist_mode.h"
#include "dist_profile.h"
#include "dist_roles.h"

const struct dist_opt dist_opts[DIST_OPT_COUNT] = {
#define DIST_OPT_ROW(id, spank, shim, sh, arg, len, check, help)                                   \
	[DIST_OPT_##id] = {spank, "--" spank, shim,  "--" shim, sh, DIST_OPT_ENV(id),              \
	                   arg,   len,        check, help},
        DIST_OPTIONS(DIST_OPT_ROW)
#undef DIST_OPT_ROW
};

int dist_opt_check_mode(const char *option, const char *text, struct dist_err *err)
{
	(void)option;
	return dist_mode_validate(text, err);
}

int dist_opt_check_compat(const char *option, const char *text, struct dist_err *err)
{
	const struct dist_profile *profiles[DIST_PROFILES_MAX];
	size_t n;

	(void)option;
	return dist_profiles_parse(text, profiles, &n, err);
}

int dist_opt_check_ps(const char *option, const char *text, struct dist_err *err)
{
	uint32_t n;

	return dist_roles_parse_ps(option, text, &n, err);
}

int dist_opt_check_bind(const char *option, const char *text, struct dist_err *err)
{
	enum dist_bind_policy policy;

	return dist_bind_policy_parse(option, text, &policy, err);
}

int dist_opt_check_check(const char *option, const char *text, struct dist_err *err)
{
	struct dist_check check;

	return dist_check_parse(option, text, &check, err);
}
