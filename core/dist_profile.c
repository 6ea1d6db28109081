/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_profile.h"

#include "dist_buf.h"
#include "dist_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Huawei ModelArts: the start file gets --init_method (and, on several
 * nodes, --rank/--world_size of the nodes); MPI jobs read MA_* and VC_*. */
static const struct dist_profile_var modelarts_vars[] = {
        {"MA_NUM_HOSTS", SRC_NNODES},       {"MA_NUM_GPUS", SRC_GPUS_PER_NODE},
        {"MA_CURRENT_IP", SRC_NODE_ADDR},   {"VC_TASK_INDEX", SRC_NODE_RANK},
        {"VC_WORKER_HOSTS", SRC_HOST_LIST},
};
static const struct dist_profile_arg modelarts_args[] = {
        {"--init_method", SRC_TCP_INIT_METHOD, false},
        {"--rank", SRC_NODE_RANK, true},
        {"--world_size", SRC_NNODES, true},
};

/* Tencent TI-ONE: one container per node, so RANK and WORLD_SIZE count nodes. */
static const struct dist_profile_var tione_vars[] = {
        {"WORLD_SIZE", SRC_NNODES},
        {"RANK", SRC_NODE_RANK},
        {"INDEX", SRC_NODE_RANK},
        {"NODE_LIST", SRC_NODE_GPU_LIST},
        {"GPU_NUM", SRC_GPUS_TOTAL},
        {"GPU_NUM_PER_NODE", SRC_GPUS_PER_NODE},
        {"NODE_IP_SLOT_LIST", SRC_NODE_SLOT_LIST},
};

/* Azure ML: one process per GPU, so RANK and WORLD_SIZE count processes
 * (stated here so that a profile giving them another meaning conflicts),
 * plus the multi-instance variables of Azure Batch, which Azure ML runs on and
 * older training scripts read (AZ_BATCH_MASTER_NODE is "addr:port"). */
static const struct dist_profile_var azureml_vars[] = {
        {"RANK", SRC_RANK},
        {"WORLD_SIZE", SRC_WORLD_SIZE},
        {"LOCAL_RANK", SRC_LOCAL_RANK},
        {"NODE_RANK", SRC_NODE_RANK},
        {"AZ_BATCH_MASTER_NODE", SRC_MASTER_ADDR_PORT},
        {"AZ_BATCHAI_MPI_MASTER_NODE", SRC_MASTER_ADDR},
        {"AZ_BATCH_HOST_LIST", SRC_HOST_LIST},
};

/* Kubeflow PyTorchJob: torchrun's PET_* (the others come with ddp). */
static const struct dist_profile_var kubeflow_vars[] = {
        {"PET_NPROC_PER_NODE", SRC_PROCS_PER_NODE},
};

/* Huawei ModelArts, TensorFlow parameter-server jobs: the start file gets
 * its role and both host lists as arguments, and the same as variables. */
static const struct dist_profile_var modelarts_ps_vars[] = {
        {"MA_TASK_NAME", SRC_TF_ROLE},
        {"VC_TASK_INDEX", SRC_TF_INDEX},
        {"TF_PS_HOSTS", SRC_TF_PS_HOSTS},
        {"TF_WORKER_HOSTS", SRC_TF_WORKER_HOSTS},
};
static const struct dist_profile_arg modelarts_ps_args[] = {
        {"--task_index", SRC_TF_INDEX, false},
        {"--ps_hosts", SRC_TF_PS_HOSTS, false},
        {"--worker_hosts", SRC_TF_WORKER_HOSTS, false},
        {"--job_name", SRC_TF_ROLE, false},
};

/* MindSpore's parameter-server mode: a scheduler (the chief), servers (ps)
 * and workers. */
static const struct dist_profile_var mindspore_vars[] = {
        {"MS_ROLE", SRC_MS_ROLE},
        {"MS_SCHED_HOST", SRC_MS_SCHED_HOST},
        {"MS_SCHED_PORT", SRC_MS_SCHED_PORT},
        {"MS_WORKER_NUM", SRC_MS_WORKER_NUM},
        {"MS_SERVER_NUM", SRC_MS_SERVER_NUM},
};

static const struct dist_profile profiles[] = {
        {"modelarts", "Huawei ModelArts", modelarts_vars, COUNT(modelarts_vars), modelarts_args,
         COUNT(modelarts_args), "ddp,mpi"},
        {"modelarts", "Huawei ModelArts", modelarts_ps_vars, COUNT(modelarts_ps_vars),
         modelarts_ps_args, COUNT(modelarts_ps_args), "ps"},
        {"tione", "Tencent TI-ONE", tione_vars, COUNT(tione_vars), NULL, 0, "ddp,mpi"},
        {"azureml", "Azure ML", azureml_vars, COUNT(azureml_vars), NULL, 0, "ddp,mpi"},
        {"kubeflow", "Kubeflow PyTorchJob", kubeflow_vars, COUNT(kubeflow_vars), NULL, 0,
         "ddp,mpi"},
        {"mindspore", "MindSpore", mindspore_vars, COUNT(mindspore_vars), NULL, 0, "ps"},
};

/* A --dist-compat list names each platform at most once, so it never holds
 * more than the table's entries: DIST_PROFILES_MAX is bounded by design. */
_Static_assert(COUNT(profiles) <= DIST_PROFILES_MAX, "raise DIST_PROFILES_MAX");

const struct dist_profile *dist_profile_table(size_t *count)
{
	*count = COUNT(profiles);
	return profiles;
}

const char *dist_source_describe(enum dist_source source)
{
	static const char *const words[] = {
	        [SRC_RANK] = "global rank of the task (per process)",
	        [SRC_WORLD_SIZE] = "tasks in the step",
	        [SRC_LOCAL_RANK] = "rank among the tasks of the node",
	        [SRC_NODE_RANK] = "index of the node, 0 = rank 0's node",
	        [SRC_NNODES] = "nodes in the step",
	        [SRC_MASTER_ADDR] = "MASTER_ADDR: rank 0's node's address every node reaches",
	        [SRC_MASTER_PORT] = "MASTER_PORT",
	        [SRC_MASTER_ADDR_PORT] = "`MASTER_ADDR:MASTER_PORT`",
	        [SRC_TCP_INIT_METHOD] = "`tcp://MASTER_ADDR:MASTER_PORT`",
	        [SRC_PROCS_PER_NODE] = "GPUs the task sees, at least 1 (processes per node)",
	        [SRC_NODE_ADDR] = "this node's address every node reaches",
	        [SRC_GPUS_PER_NODE] = "GPUs on this node (as its first task sees them)",
	        [SRC_GPUS_TOTAL] = "GPUs on all nodes of the step",
	        [SRC_HOST_LIST] = "`addr,addr,...`: every node's address, in node order",
	        [SRC_NODE_GPU_LIST] = "`addr:gpus,...` for every node",
	        [SRC_NODE_SLOT_LIST] = "`addr:slots,...`: slots are the node's tasks or GPUs, "
	                               "whichever are more",
	        [SRC_TF_ROLE] = "the task's role: `chief`, `ps`, `worker` or `evaluator`",
	        [SRC_TF_INDEX] = "the task's index within its role",
	        [SRC_TF_PS_HOSTS] = "`addr:port,...` of the parameter servers",
	        [SRC_TF_WORKER_HOSTS] = "`addr:port,...` of the workers",
	        [SRC_MS_ROLE] = "`MS_SCHED` (the chief), `MS_PSERVER` (ps) or `MS_WORKER`",
	        [SRC_MS_SCHED_HOST] = "the chief's address (needs `--dist-chief`)",
	        [SRC_MS_SCHED_PORT] = "the chief's port (needs `--dist-chief`)",
	        [SRC_MS_WORKER_NUM] = "workers in the step",
	        [SRC_MS_SERVER_NUM] = "parameter servers in the step",
	};

	return (size_t)source < COUNT(words) && words[source] ? words[source] : "?";
}

const char *dist_profile_choices(void)
{
	return "modelarts|tione|azureml|kubeflow|mindspore";
}

static const struct dist_profile *find_profile(const char *name, size_t len)
{
	for (size_t i = 0; i < COUNT(profiles); i++)
		if (strlen(profiles[i].name) == len && strncmp(profiles[i].name, name, len) == 0)
			return &profiles[i];
	return NULL;
}

int dist_profiles_parse(const char *list, const struct dist_profile **out, size_t *count,
                        struct dist_err *err)
{
	const char *cursor = list, *p;
	size_t len;

	*count = 0;
	if (!list || !*list)
		return dist_err_set(err,
		                    "empty --dist-compat: valid profiles are %s, comma-separated",
		                    dist_profile_choices());
	while (dist_list_next(&cursor, ',', &p, &len)) {
		const struct dist_profile *profile = find_profile(p, len);

		if (!profile)
			return dist_err_set(err,
			                    "invalid --dist-compat '%s': valid profiles are %s, "
			                    "comma-separated",
			                    list, dist_profile_choices());
		for (size_t i = 0; i < *count; i++)
			if (out[i] == profile)
				return dist_err_set(err, "--dist-compat '%s' names %s twice", list,
				                    profile->name);
		if (*count == DIST_PROFILES_MAX)
			return dist_err_set(err, "--dist-compat '%s' names too many profiles",
			                    list);
		out[(*count)++] = profile;
	}
	/* The walker ends a list at a trailing comma: refused here instead. */
	if (list[strlen(list) - 1] == ',')
		return dist_err_set(err, "invalid --dist-compat '%s': trailing comma", list);
	return 0;
}

static bool applies_to(const struct dist_profile *p, const char *mode)
{
	const char *modes = p->modes, *item;
	size_t len;

	while (dist_list_next(&modes, ',', &item, &len))
		if (dist_list_item_is(item, len, mode))
			return true;
	return false;
}

int dist_profiles_select_mode(const struct dist_profile **list, size_t count, const char *mode,
                              struct dist_err *err)
{
	for (size_t i = 0; i < count; i++) {
		const struct dist_profile *found = NULL;

		for (size_t k = 0; k < COUNT(profiles) && !found; k++)
			if (strcmp(profiles[k].name, list[i]->name) == 0 &&
			    applies_to(&profiles[k], mode))
				found = &profiles[k];
		if (!found)
			return dist_err_set(err, "--dist-compat=%s has nothing for --dist-mode=%s",
			                    list[i]->name, mode);
		list[i] = found;
	}
	return 0;
}

bool dist_source_same_for_all(enum dist_source source)
{
	switch (source) {
	case SRC_RANK:
	case SRC_WORLD_SIZE: /* the step's tasks, not the launcher's processes */
	case SRC_LOCAL_RANK:
	case SRC_NODE_RANK:
	case SRC_NODE_ADDR:
	case SRC_TF_ROLE:
	case SRC_TF_INDEX:
	case SRC_MS_ROLE:
		return false;
	default:
		return true;
	}
}

static bool needs_node_table(enum dist_source source)
{
	return source >= SRC_NODE_ADDR;
}

bool dist_profile_needs_nodes(const struct dist_profile *profile)
{
	for (size_t i = 0; i < profile->nvars; i++)
		if (needs_node_table(profile->vars[i].source))
			return true;
	for (size_t i = 0; i < profile->nargs; i++)
		if (needs_node_table(profile->args[i].source))
			return true;
	return false;
}

/* "addr[:N],..." for every node; N from COUNT_OF. */
static void render_node_list(const struct dist_world *w,
                             uint32_t (*count_of)(const struct dist_node *), struct dist_buf *out)
{
	for (uint32_t i = 0; i < w->nnodes; i++) {
		if (i)
			dist_buf_append(out, ",");
		dist_buf_append(out, w->nodes[i].addr);
		if (count_of)
			dist_buf_appendf(out, ":%u", count_of(&w->nodes[i]));
	}
}

static uint32_t gpus_of(const struct dist_node *node)
{
	return node->gpus;
}

uint32_t dist_node_slots(const struct dist_node *node)
{
	return node->gpus > node->ntasks ? node->gpus : node->ntasks;
}

static uint32_t total_gpus(const struct dist_world *w)
{
	uint32_t total = 0;

	for (uint32_t i = 0; i < w->nnodes; i++)
		total += w->nodes[i].gpus;
	return total;
}

static int render_from_node_table(enum dist_source source, const struct dist_world *w,
                                  struct dist_buf *out, struct dist_err *err)
{
	if (!w->nodes)
		return dist_err_set(err, "the node table was not gathered for this profile");
	switch (source) {
	case SRC_NODE_ADDR:
		dist_buf_append(out, w->nodes[w->node_rank].addr);
		return 0;
	case SRC_GPUS_PER_NODE:
		dist_buf_appendf(out, "%u", w->nodes[w->node_rank].gpus);
		return 0;
	case SRC_GPUS_TOTAL:
		dist_buf_appendf(out, "%u", total_gpus(w));
		return 0;
	case SRC_HOST_LIST:
		render_node_list(w, NULL, out);
		return 0;
	case SRC_NODE_GPU_LIST:
		render_node_list(w, gpus_of, out);
		return 0;
	case SRC_NODE_SLOT_LIST:
		render_node_list(w, dist_node_slots, out);
		return 0;
	default:
		return dist_err_set(err, "unknown value source %d", (int)source);
	}
}

/* "addr:port,..." of every task in ROLE, in rank order. */
static void render_role_hosts(const struct dist_world *w, enum dist_role role, struct dist_buf *out)
{
	bool first = true;

	for (uint32_t rank = 0; rank < w->size; rank++) {
		enum dist_role r;
		uint32_t index;

		dist_role_of(&w->roles, w->size, rank, &r, &index);
		if (r != role)
			continue;
		dist_buf_appendf(out, "%s%s:%u", first ? "" : ",", w->tasks[rank].addr,
		                 w->tasks[rank].port);
		first = false;
	}
}

static uint32_t count_role(const struct dist_world *w, enum dist_role role)
{
	uint32_t n = 0;

	for (uint32_t rank = 0; rank < w->size; rank++) {
		enum dist_role r;
		uint32_t index;

		dist_role_of(&w->roles, w->size, rank, &r, &index);
		n += r == role;
	}
	return n;
}

static int render_from_task_table(enum dist_source source, const struct dist_world *w,
                                  struct dist_buf *out, struct dist_err *err)
{
	static const char *const ms_roles[] = {"MS_SCHED", "MS_PSERVER", "MS_WORKER", "MS_WORKER"};
	enum dist_role role;
	uint32_t index;

	if (!w->tasks)
		return dist_err_set(err, "this profile needs --dist-mode=ps");
	if ((source == SRC_MS_SCHED_HOST || source == SRC_MS_SCHED_PORT) && !w->roles.chief)
		return dist_err_set(err, "--dist-compat=mindspore needs --dist-chief: MindSpore's "
		                         "scheduler runs as the chief");
	dist_role_of(&w->roles, w->size, w->rank, &role, &index);
	switch (source) {
	case SRC_TF_ROLE:
		dist_buf_append(out, dist_role_name(role));
		return 0;
	case SRC_TF_INDEX:
		dist_buf_appendf(out, "%u", index);
		return 0;
	case SRC_TF_PS_HOSTS:
		render_role_hosts(w, DIST_ROLE_PS, out);
		return 0;
	case SRC_TF_WORKER_HOSTS:
		render_role_hosts(w, DIST_ROLE_WORKER, out);
		return 0;
	case SRC_MS_ROLE:
		dist_buf_append(out, ms_roles[role]);
		return 0;
	case SRC_MS_SCHED_HOST:
		dist_buf_append(out, w->tasks[0].addr);
		return 0;
	case SRC_MS_SCHED_PORT:
		dist_buf_appendf(out, "%u", w->tasks[0].port);
		return 0;
	case SRC_MS_WORKER_NUM:
		dist_buf_appendf(out, "%u", count_role(w, DIST_ROLE_WORKER));
		return 0;
	case SRC_MS_SERVER_NUM:
		dist_buf_appendf(out, "%u", count_role(w, DIST_ROLE_PS));
		return 0;
	default:
		return dist_err_set(err, "unknown value source %d", (int)source);
	}
}

static int render(enum dist_source source, const struct dist_world *w, struct dist_buf *out,
                  struct dist_err *err)
{
	switch (source) {
	case SRC_RANK:
		return dist_buf_appendf(out, "%u", w->rank), 0;
	case SRC_WORLD_SIZE:
		return dist_buf_appendf(out, "%u", w->size), 0;
	case SRC_LOCAL_RANK:
		return dist_buf_appendf(out, "%u", w->local_rank), 0;
	case SRC_NODE_RANK:
		return dist_buf_appendf(out, "%u", w->node_rank), 0;
	case SRC_NNODES:
		return dist_buf_appendf(out, "%u", w->nnodes), 0;
	case SRC_MASTER_ADDR:
		return dist_buf_append(out, w->master_addr), 0;
	case SRC_MASTER_PORT:
		return dist_buf_appendf(out, "%u", w->master_port), 0;
	case SRC_MASTER_ADDR_PORT:
		return dist_buf_appendf(out, "%s:%u", w->master_addr, w->master_port), 0;
	case SRC_TCP_INIT_METHOD:
		return dist_buf_appendf(out, "tcp://%s:%u", w->master_addr, w->master_port), 0;
	case SRC_PROCS_PER_NODE:
		return dist_buf_appendf(out, "%u", w->local_gpus ? w->local_gpus : 1), 0;
	default:
		if (source >= SRC_TF_ROLE && source <= SRC_MS_SERVER_NUM)
			return render_from_task_table(source, w, out, err);
		return render_from_node_table(source, w, out, err);
	}
}

int dist_source_render(enum dist_source source, const struct dist_world *w, struct dist_buf *out,
                       struct dist_err *err)
{
	dist_buf_reset(out);
	if (render(source, w, out, err))
		return -1;
	if (out->failed)
		return dist_err_set(err, "out of memory");
	return 0;
}

/* The profile before LIST[P] that set NAME (a variable the launcher form
 * leaves out was not set), or NULL. */
static const struct dist_profile *set_by(const struct dist_profile *const *list, size_t p,
                                         const char *name, bool launcher)
{
	for (size_t q = 0; q < p; q++)
		for (size_t i = 0; i < list[q]->nvars; i++)
			if (strcmp(list[q]->vars[i].name, name) == 0 &&
			    (!launcher || dist_source_same_for_all(list[q]->vars[i].source)))
				return list[q];
	return NULL;
}

int dist_profiles_build_env(const struct dist_profile *const *list, size_t count,
                            const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	struct dist_buf value = DIST_BUF_INIT;
	int rc = 0;

	for (size_t p = 0; p < count && rc == 0; p++) {
		for (size_t i = 0; i < list[p]->nvars && rc == 0; i++) {
			const char *name = list[p]->vars[i].name;
			const struct dist_profile *earlier = set_by(list, p, name, w->launcher);

			if (w->launcher && !dist_source_same_for_all(list[p]->vars[i].source))
				continue;
			if (dist_source_render(list[p]->vars[i].source, w, &value, err))
				rc = -1;
			else if (earlier &&
			         strcmp(dist_env_get(env, name), dist_buf_str(&value)) != 0)
				rc = dist_err_set(
				        err,
				        "--dist-compat profiles %s and %s give %s different "
				        "meanings (%s vs %s); use one of them",
				        earlier->name, list[p]->name, name, dist_env_get(env, name),
				        dist_buf_str(&value));
			else
				rc = dist_env_set(env, name, dist_buf_str(&value), err);
		}
	}
	dist_buf_free(&value);
	return rc;
}

void dist_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static int append_arg(char **argv, size_t *argc, const char *text, struct dist_err *err)
{
	argv[*argc] = strdup(text);
	if (!argv[*argc])
		return dist_err_set(err, "out of memory");
	(*argc)++;
	return 0;
}

int dist_profiles_build_args(const struct dist_profile *const *list, size_t count,
                             const struct dist_world *w, char ***argv_out, size_t *argc,
                             struct dist_err *err)
{
	struct dist_buf value = DIST_BUF_INIT;
	size_t max = 1;
	char **argv;
	int rc = 0;

	/* A launcher's arguments are not the program's: appended to mpirun's
	 * command line they would reach every process it starts alike. */
	for (size_t p = 0; p < count && !w->launcher; p++)
		max += 2 * list[p]->nargs;
	argv = calloc(max, sizeof(*argv));
	if (!argv)
		return dist_err_set(err, "out of memory");
	*argc = 0;
	for (size_t p = 0; p < count && !w->launcher && rc == 0; p++) {
		for (size_t i = 0; i < list[p]->nargs && rc == 0; i++) {
			const struct dist_profile_arg *arg = &list[p]->args[i];

			if (arg->multi_node_only && w->nnodes < 2)
				continue;
			if (dist_source_render(arg->source, w, &value, err) ||
			    append_arg(argv, argc, arg->flag, err) ||
			    append_arg(argv, argc, dist_buf_str(&value), err))
				rc = -1;
		}
	}
	dist_buf_free(&value);
	if (rc) {
		dist_argv_free(argv);
		return -1;
	}
	*argv_out = argv;
	return 0;
}
