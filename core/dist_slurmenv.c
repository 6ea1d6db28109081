/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_slurmenv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dist_list.h"

int dist_parse_u32_prefix(const char *text, uint32_t *value, char **end)
{
	unsigned long v;

	if (!text || *text < '0' || *text > '9')
		return -1;
	errno = 0;
	v = strtoul(text, end, 10);
	if (errno || v > UINT32_MAX)
		return -1;
	*value = (uint32_t)v;
	return 0;
}

int dist_parse_u32(const char *text, uint32_t *value)
{
	uint32_t v;
	char *end;

	if (dist_parse_u32_prefix(text, &v, &end) || *end != '\0')
		return -1; /* *VALUE untouched on error */
	*value = v;
	return 0;
}

/* FNV-1a of TEXT (NULL: ""). */
static uint32_t hash_text(const char *text)
{
	uint32_t hash = 2166136261u;

	for (const char *c = text ? text : ""; *c; c++)
		hash = (hash ^ (unsigned char)*c) * 16777619u;
	return hash;
}

/* Parses NAME's TEXT into *VALUE, else sets FALLBACK and says why in ERR. */
static int parse_id(const char *name, const char *text, uint32_t fallback, uint32_t *value,
                    struct dist_err *err)
{
	if (dist_parse_u32(text, value) == 0)
		return 0;
	*value = fallback;
	if (!text)
		return dist_err_set(err, "%s is not set; is this a Slurm step?", name);
	return dist_err_set(err, "%s='%s' is not a number", name, text);
}

int dist_step_ids_parse(const char *job, const char *step, const char *nspace, uint32_t *jobid,
                        uint32_t *stepid, struct dist_err *err)
{
	struct dist_err step_err; /* not told when the job's is */
	int job_rc = parse_id("SLURM_JOB_ID", job, hash_text(nspace), jobid, err);
	int step_rc = parse_id("SLURM_STEP_ID", step, 0, stepid, job_rc ? &step_err : err);

	return job_rc || step_rc ? -1 : 0;
}

uint32_t dist_count_list_items(const char *list)
{
	const char *item;
	size_t len;
	uint32_t n = 0;

	if (!list || strcmp(list, "NoDevFiles") == 0)
		return 0;
	while (dist_list_next(&list, ',', &item, &len))
		if (len > 0)
			n++;
	return n;
}

/* Parses one "N" or "N(xR)" group at *p, advancing *p past it. */
static int parse_group(const char **p, unsigned long *count, unsigned long *repeat)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -1;
	*count = strtoul(*p, &end, 10);
	*repeat = 1;
	if (end[0] == '(' && end[1] == 'x') {
		const char *r = end + 2;

		if (*r < '0' || *r > '9')
			return -1;
		*repeat = strtoul(r, &end, 10);
		if (*end != ')' || *repeat == 0)
			return -1;
		end++;
	}
	*p = end;
	return 0;
}

int dist_tasks_per_node_parse(const char *text, uint32_t *counts, size_t max, size_t *n,
                              struct dist_err *err)
{
	const char *p = text;

	*n = 0;
	while (p && *p) {
		unsigned long count, repeat;

		if (parse_group(&p, &count, &repeat) != 0 || count > UINT32_MAX ||
		    (*p != ',' && *p != '\0'))
			return dist_err_set(err, "malformed SLURM_STEP_TASKS_PER_NODE '%s'", text);
		if (repeat > max - *n)
			return dist_err_set(
			        err, "SLURM_STEP_TASKS_PER_NODE '%s' lists more than %zu nodes",
			        text, max);
		for (unsigned long i = 0; i < repeat; i++)
			counts[(*n)++] = (uint32_t)count;
		if (*p == ',' && *++p == '\0')
			return dist_err_set(err, "malformed SLURM_STEP_TASKS_PER_NODE '%s'", text);
	}
	if (*n == 0)
		return dist_err_set(err, "empty SLURM_STEP_TASKS_PER_NODE");
	return 0;
}

void dist_tasks_per_node_format(const uint32_t *counts, size_t n, struct dist_buf *out)
{
	for (size_t i = 0, run; i < n; i += run) {
		for (run = 1; i + run < n && counts[i + run] == counts[i]; run++)
			;
		dist_buf_appendf(out, "%s%u", i ? "," : "", counts[i]);
		if (run > 1)
			dist_buf_appendf(out, "(x%zu)", run);
	}
}

/* A configuration line starts with task ids ("0-3,5") or "*". */
static bool is_task_spec_start(char c)
{
	return (c >= '0' && c <= '9') || c == '*';
}

/* First line that is neither blank nor a comment, or NULL. */
static const char *first_significant_line(const char *text)
{
	while (*text) {
		const char *start = text + strspn(text, " \t");
		size_t len = strcspn(text, "\n");

		if (*start != '#' && *start != '\n' && *start != '\0')
			return start;
		text += len + (text[len] == '\n');
	}
	return NULL;
}

bool dist_is_multi_prog_argv(int argc, char *const *argv)
{
	const char *line;

	if (argc != 2 || !argv || !argv[1] || !strchr(argv[1], '\n'))
		return false;
	line = first_significant_line(argv[1]);
	return line && is_task_spec_start(*line);
}

int dist_nodes_by_leader(const uint32_t *leaders, uint32_t n, uint32_t *order)
{
	if (n == 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = i;

		for (; k > 0 && leaders[order[k - 1]] > leaders[i]; k--)
			order[k] = order[k - 1];
		if (k > 0 && leaders[order[k - 1]] == leaders[i])
			return -1;
		order[k] = i;
	}
	return 0;
}

int dist_gpu_indexes_parse(const char *list, uint32_t *indexes, uint32_t n)
{
	const char *item;
	size_t len;
	uint32_t found = 0;

	if (dist_count_list_items(list) != n)
		return -1;
	while (n > 0 && dist_list_next(&list, ',', &item, &len)) {
		char *end;

		if (len == 0)
			continue;
		if (found == n || dist_parse_u32_prefix(item, &indexes[found], &end) ||
		    end != item + len)
			return -1;
		found++;
	}
	return found == n ? 0 : -1;
}
