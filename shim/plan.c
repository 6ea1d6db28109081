/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "base/carried.h"
#include "base/msg.h"
#include "dist_launch.h"
#include "task.h"

int plan_make(const struct cli *cli, struct plan *plan)
{
	struct dist_err err = {{0}};

	memset(plan, 0, sizeof(*plan));
	if (!cli->mode) {
		msg_error("no mode given: pass --mode %s (or --dist-mode to srun)",
		          dist_mode_choices());
		return EXIT_USAGE;
	}
	if (dist_mode_validate(cli->mode, &err) ||
	    (cli->compat &&
	     dist_profiles_parse(cli->compat, plan->profiles, &plan->nprofiles, &err))) {
		msg_error("%s", err.msg);
		return EXIT_USAGE;
	}
	dist_mode_lookup(cli->mode, &plan->mode);
	if (plan->mode &&
	    dist_profiles_select_mode(plan->profiles, plan->nprofiles, cli->mode, &err)) {
		msg_error("%s", err.msg);
		return EXIT_USAGE;
	}
	plan->roles = cli->roles;
	return 0;
}

bool plan_needs_nodes(const struct plan *plan)
{
	bool needs = plan->mode->needs_nodes;

	for (size_t i = 0; i < plan->nprofiles; i++)
		needs = needs || dist_profile_needs_nodes(plan->profiles[i]);
	return needs;
}

int plan_export_contract(struct plan *plan, const struct dist_world *w, struct dist_err *err)
{
	struct dist_env env;
	int rc;

	dist_env_init(&env);
	rc = dist_contract_env(plan->mode, plan->profiles, plan->nprofiles, w, &env, err);
	/* A container plugin's import gives way to the contract; the user's
	 * own values stay (base/carried.h). */
	for (size_t i = 0; rc == 0 && i < env.count; i++)
		if (carried_imported(env.vars[i].name))
			unsetenv(env.vars[i].name);
	if (rc == 0)
		rc = dist_env_export(&env, err);
	dist_env_free(&env);
	if (rc == 0)
		rc = dist_profiles_build_args(plan->profiles, plan->nprofiles, w, &plan->extra_args,
		                              &plan->nextra, err);
	for (size_t i = 0; rc == 0 && i < plan->nextra; i++)
		rc = dist_exec_string_fits("an argument a profile adds",
		                           strlen(plan->extra_args[i]), err);
	return rc;
}

char **plan_full_argv(char **cmd, const struct plan *plan)
{
	size_t n = 0;
	char **argv;

	while (cmd[n])
		n++;
	if (plan->nextra == 0)
		return cmd;
	argv = calloc(n + plan->nextra + 1, sizeof(*argv));
	if (!argv)
		return NULL;
	memcpy(argv, cmd, n * sizeof(*argv));
	memcpy(argv + n, plan->extra_args, plan->nextra * sizeof(*argv));
	return argv;
}
