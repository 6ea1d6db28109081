/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_roles.h"

#include "dist_slurmenv.h"

int dist_roles_parse_ps(const char *option, const char *text, uint32_t *ps, struct dist_err *err)
{
	uint32_t n;

	if (dist_parse_u32(text, &n) != 0 || n > 100000)
		return dist_err_set(err,
		                    "invalid %s '%s': expected a number of parameter servers, 0 or "
		                    "more",
		                    option, text ? text : "");
	*ps = n;
	return 0;
}

int dist_roles_check(const struct dist_roles *roles, uint32_t size, struct dist_err *err)
{
	uint64_t others = (uint64_t)roles->ps + roles->chief + roles->evaluator;

	if (others >= size)
		return dist_err_set(err,
		                    "%u tasks cannot hold %u ps%s%s and at least one worker; start "
		                    "more tasks or lower --dist-ps",
		                    size, roles->ps, roles->chief ? ", a chief" : "",
		                    roles->evaluator ? ", an evaluator" : "");
	return 0;
}

void dist_role_of(const struct dist_roles *roles, uint32_t size, uint32_t rank,
                  enum dist_role *role, uint32_t *index)
{
	uint32_t first_ps = roles->chief ? 1 : 0;

	if (roles->chief && rank == 0) {
		*role = DIST_ROLE_CHIEF;
		*index = 0;
	} else if (rank < first_ps + roles->ps) {
		*role = DIST_ROLE_PS;
		*index = rank - first_ps;
	} else if (roles->evaluator && rank == size - 1) {
		*role = DIST_ROLE_EVALUATOR;
		*index = 0;
	} else {
		*role = DIST_ROLE_WORKER;
		*index = rank - first_ps - roles->ps;
	}
}

const char *dist_role_name(enum dist_role role)
{
	static const char *const names[] = {"chief", "ps", "worker", "evaluator"};

	return names[role];
}
