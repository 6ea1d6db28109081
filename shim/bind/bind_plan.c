/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bind/bind_plan.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/rdma.h"
#include "dist_slurmenv.h"

#define PLAN_FILE   "bind-plan"
#define PLAN_HEADER "slurm-dist bind plan 1\n"

int bind_plan_apply_cpus(const uint32_t *cpus, size_t n, struct dist_err *err)
{
	size_t cap = n ? cpus[n - 1] + 1 : 1;
	cpu_set_t *set = CPU_ALLOC(cap);
	int rc;

	if (!set)
		return dist_err_set(err, "out of memory");
	CPU_ZERO_S(CPU_ALLOC_SIZE(cap), set);
	for (size_t i = 0; i < n; i++)
		CPU_SET_S(cpus[i], CPU_ALLOC_SIZE(cap), set);
	rc = sched_setaffinity(0, CPU_ALLOC_SIZE(cap), set);
	CPU_FREE(set);
	return rc == 0 ? 0 : dist_err_set(err, "cannot bind to the planned CPUs");
}

struct bind_nic bind_nic_inspect(const struct dist_bind_plan *plan)
{
	struct bind_nic nic = {.active = true, .gid = -1};
	struct dist_err ignored;

	if (plan->nic[0] && rdma_inspect(plan->nic, &nic.active, &nic.gid, &ignored) != 0)
		nic = (struct bind_nic){.active = true, .gid = -1};
	return nic;
}

/* The CPUs this process may run on now, as a list (malloc'd), or NULL. */
static char *own_cpus(void)
{
	size_t cap = 1024, n = 0;
	cpu_set_t *set = NULL;
	uint32_t *cpus;
	char *text;

	/* A machine may have more CPUs than a cpu_set_t holds. */
	for (;;) {
		set = CPU_ALLOC(cap);
		if (!set)
			return NULL;
		if (sched_getaffinity(0, CPU_ALLOC_SIZE(cap), set) == 0)
			break;
		CPU_FREE(set);
		if (cap >= 1u << 20)
			return NULL;
		cap *= 2;
	}
	cpus = malloc(cap * sizeof(*cpus));
	for (size_t c = 0; cpus && c < cap; c++)
		if (CPU_ISSET_S(c, CPU_ALLOC_SIZE(cap), set))
			cpus[n++] = (uint32_t)c;
	CPU_FREE(set);
	text = cpus ? dist_cpu_list_alloc(cpus, n) : NULL;
	free(cpus);
	return text;
}

static int write_line(FILE *out, uint32_t r, const struct dist_bind_plan *plan,
                      struct dist_err *err)
{
	char *cpus = dist_cpu_list_alloc(plan->cpus, plan->ncpus);
	struct bind_nic nic = bind_nic_inspect(plan);

	if (!cpus)
		return dist_err_set(err, "out of memory");
	fprintf(out, "%u %d %s %s %d %d\n", r, plan->gpu, cpus, plan->nic[0] ? plan->nic : "-",
	        nic.active, nic.gid);
	free(cpus);
	return 0;
}

/* The file's text: header, the tasks' GPUs and CPUs it was made for, one
 * line per task. */
static int format_plan(const struct dist_bind_input *in, const char *gpus, char **text, size_t *len,
                       struct dist_err *err)
{
	FILE *out = open_memstream(text, len);
	char *cpus = own_cpus();
	int rc = 0;

	if (!out || !cpus) {
		if (out)
			fclose(out);
		free(cpus);
		return dist_err_set(err, "out of memory");
	}
	fprintf(out, PLAN_HEADER "gpus %s\ncpus %s\n", gpus && gpus[0] ? gpus : "-", cpus);
	free(cpus);
	for (uint32_t r = 0; r < in->local_size && rc == 0; r++) {
		struct dist_bind_plan plan = {.cpus = NULL};

		rc = dist_bind_plan_for(in, r, &plan, err);
		if (rc == 0)
			rc = write_line(out, r, &plan, err);
		dist_bind_plan_free(&plan);
	}
	if (fclose(out) != 0 && rc == 0)
		rc = dist_err_set(err, "out of memory");
	return rc;
}

int bind_plan_share(const struct stepdir *dir, const struct dist_bind_input *in, const char *gpus,
                    struct dist_err *err)
{
	struct dist_err ignored;
	char *text = NULL;
	size_t len = 0;
	int rc = format_plan(in, gpus, &text, &len, err);

	/* Without a plan the file still tells the others at once to plan for
	 * themselves, rather than after waiting for it. */
	if (stepdir_write(dir, PLAN_FILE, rc == 0 ? text : "no plan\n", rc ? &ignored : err))
		rc = -1;
	free(text);
	return rc;
}

/* Whether LINE ("KEY VALUE") holds VALUE under KEY. */
static bool header_matches(const char *line, const char *key, const char *value)
{
	size_t k = strlen(key);
	const char *end = strchr(line, '\n');

	return end && strncmp(line, key, k) == 0 && line[k] == ' ' &&
	       (size_t)(end - line - k - 1) == strlen(value) &&
	       strncmp(line + k + 1, value, strlen(value)) == 0;
}

/* This task's line: "R GPU CPUS NIC ACTIVE GID", its fields on that line
 * only. */
static int parse_line(char *line, struct dist_bind_plan *plan, struct bind_nic *nic,
                      struct dist_err *err)
{
	char *save = NULL, *f[6];
	int32_t gpu, gid, active;

	line[strcspn(line, "\n")] = '\0';
	for (int i = 0; i < 6; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " ", &save)))
			return dist_err_set(err, "malformed binding plan line");
	if (sscanf(f[1], "%d", &gpu) != 1 || sscanf(f[4], "%d", &active) != 1 ||
	    sscanf(f[5], "%d", &gid) != 1 || strlen(f[3]) >= sizeof(plan->nic) ||
	    dist_cpu_list_parse(f[2], &plan->cpus, &plan->ncpus, err))
		return dist_err_set(err, "malformed binding plan line");
	plan->gpu = gpu;
	snprintf(plan->nic, sizeof(plan->nic), "%s", strcmp(f[3], "-") ? f[3] : "");
	*nic = (struct bind_nic){.active = active != 0, .gid = gid};
	return 0;
}

int bind_plan_parse(char *text, uint32_t local_rank, const char *gpus, const char *cpus,
                    struct dist_bind_plan *plan, struct bind_nic *nic, struct dist_err *err)
{
	char *line, prefix[16];

	if (strncmp(text, PLAN_HEADER, strlen(PLAN_HEADER)) != 0)
		return 1;
	line = text + strlen(PLAN_HEADER);
	if (!header_matches(line, "gpus", gpus && gpus[0] ? gpus : "-"))
		return 1;
	line = strchr(line, '\n');
	if (!line || !header_matches(line + 1, "cpus", cpus))
		return 1;
	snprintf(prefix, sizeof(prefix), "\n%u ", local_rank);
	line = strstr(line, prefix);
	return line ? parse_line(line + 1, plan, nic, err) : 1;
}

/* Finds LOCAL_RANK's line in TEXT, if the plan was made for this task's
 * GPUS and CPUs; 1 when it was not. */
static int find_line(char *text, uint32_t local_rank, const char *gpus, struct dist_bind_plan *plan,
                     struct bind_nic *nic, struct dist_err *err)
{
	char *cpus = own_cpus();
	int rc = cpus ? bind_plan_parse(text, local_rank, gpus, cpus, plan, nic, err) : 1;

	free(cpus);
	return rc;
}

int bind_plan_take(const struct stepdir *dir, uint32_t local_rank, const char *gpus,
                   unsigned timeout_s, struct dist_bind_plan *plan, struct bind_nic *nic,
                   struct dist_err *err)
{
	struct dist_err ignored;
	char *text;
	int rc;

	if (stepdir_wait(dir, PLAN_FILE, timeout_s, &ignored) ||
	    stepdir_read(dir, PLAN_FILE, &text, &ignored))
		return 1;
	rc = find_line(text, local_rank, gpus, plan, nic, err);
	free(text);
	return rc;
}
