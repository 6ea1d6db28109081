/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ps: TensorFlow parameter-server jobs as ModelArts, TI-ONE, Azure ML and
 * Kubeflow's TFJob start them: every task gets TF_CONFIG naming every
 * task's address:port by role, and its own role and index. The roles come
 * from dist_roles.h; every task's port was picked free on its own node and
 * exchanged in the one fence. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "dist_mode.h"

/* TensorFlow keeps the evaluator out of the cluster spec (as Kubeflow does):
 * it is not a member the others connect to. */
static bool in_cluster(enum dist_role role)
{
	return role != DIST_ROLE_EVALUATOR;
}

static int add_task(json_t *cluster, enum dist_role role, const struct dist_task *task)
{
	const char *name = dist_role_name(role);
	json_t *list = json_object_get(cluster, name);
	char hostport[DIST_ADDR_MAX + 8];

	if (!list) {
		list = json_array();
		if (!list || json_object_set_new(cluster, name, list))
			return -1;
	}
	snprintf(hostport, sizeof(hostport), "%s:%u", task->addr, task->port);
	return json_array_append_new(list, json_string(hostport));
}

/* {"chief":[...],"ps":[...],"worker":[...]}, each in rank order. */
static json_t *build_cluster(const struct dist_world *w)
{
	static const enum dist_role order[] = {DIST_ROLE_CHIEF, DIST_ROLE_PS, DIST_ROLE_WORKER};
	json_t *cluster = json_object();

	for (size_t k = 0; cluster && k < sizeof(order) / sizeof(order[0]); k++) {
		for (uint32_t rank = 0; rank < w->size; rank++) {
			enum dist_role role;
			uint32_t index;

			dist_role_of(&w->roles, w->size, rank, &role, &index);
			if (role == order[k] && in_cluster(role) &&
			    add_task(cluster, role, &w->tasks[rank])) {
				json_decref(cluster);
				return NULL;
			}
		}
	}
	return cluster;
}

static char *build_tf_config(const struct dist_world *w)
{
	enum dist_role role;
	uint32_t index;
	json_t *config;
	char *text;

	dist_role_of(&w->roles, w->size, w->rank, &role, &index);
	config =
	        json_pack("{s:o, s:{s:s, s:i}, s:s}", "cluster", build_cluster(w), "task", "type",
	                  dist_role_name(role), "index", (json_int_t)index, "environment", "cloud");
	if (!config)
		return NULL;
	text = json_dumps(config, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(config);
	return text;
}

static int ps_build_env(const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	char *tf_config;
	int rc;

	if (!w->tasks)
		return dist_err_set(err, "the task table was not gathered for mode ps");
	if (dist_roles_check(&w->roles, w->size, err))
		return -1;
	tf_config = build_tf_config(w);
	if (!tf_config)
		return dist_err_set(err, "cannot build TF_CONFIG (out of memory)");
	rc = dist_env_set(env, "TF_CONFIG", tf_config, err);
	free(tf_config);
	return rc;
}

const struct dist_mode dist_mode_ps = {
        .name = "ps",
        .summary = "TensorFlow parameter server: TF_CONFIG with every task's address:port",
        .needs_nodes = true,
        .needs_tasks = true,
        .build_env = ps_build_env,
};
