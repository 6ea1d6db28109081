/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_bind.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_list.h"
#include "dist_slurmenv.h"

int dist_bind_policy_parse(const char *option, const char *text, enum dist_bind_policy *policy,
                           struct dist_err *err)
{
	if (text && strcmp(text, "auto") == 0)
		*policy = DIST_BIND_AUTO;
	else if (text && strcmp(text, "none") == 0)
		*policy = DIST_BIND_NONE;
	else
		return dist_err_set(err, "invalid %s '%s': valid policies are auto|none", option,
		                    text ? text : "");
	return 0;
}

bool dist_slurm_bind_given(const char *value)
{
	const char *item;
	size_t len;

	while (dist_list_next(&value, ',', &item, &len))
		if (len > 0 && !dist_list_item_is(item, len, "quiet") &&
		    !dist_list_item_is(item, len, "verbose"))
			return true;
	return false;
}

/* Whether ITEM (*LEN bytes) starts with PREFIX; if so, both move past it. */
static bool skip_prefix(const char **item, size_t *len, const char *prefix)
{
	size_t n = strlen(prefix);

	if (*len < n || strncmp(*item, prefix, n) != 0)
		return false;
	*item += n;
	*len -= n;
	return true;
}

bool dist_slurm_gpu_bind(const char *tres_bind, const char **what, size_t *len)
{
	const char *entry;
	size_t n;

	while (dist_list_next(&tres_bind, ';', &entry, &n)) {
		skip_prefix(&entry, &n, "gres/");
		if (skip_prefix(&entry, &n, "gpu:")) {
			*what = entry;
			*len = n;
			return n > 0;
		}
	}
	return false;
}

static int32_t gpu_of(const struct dist_bind_input *in, uint32_t local_rank)
{
	if (in->ngpus == 0)
		return -1;
	return in->gpu_first ? 0 : (int32_t)(local_rank % in->ngpus);
}

static bool same_locality(const struct dist_locality *a, const struct dist_locality *b)
{
	return a->ncpus == b->ncpus && memcmp(a->cpus, b->cpus, a->ncpus * sizeof(*a->cpus)) == 0;
}

static bool contains(const uint32_t *set, size_t n, uint32_t cpu)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == cpu)
			return true;
	return false;
}

/* True when every used GPU has some allowed CPU near it. Otherwise the
 * localities are ignored altogether: tasks falling back to all allowed
 * CPUs would overlap those keeping their locality. */
static bool localities_usable(const struct dist_bind_input *in)
{
	uint32_t used = in->ngpus < in->local_size ? in->ngpus : in->local_size;

	if (in->gpu_first && used > 1)
		used = 1; /* only its own GPU's locality counts */
	if (!in->localities)
		return false;
	for (uint32_t g = 0; g < used; g++) {
		bool any = false;

		for (size_t i = 0; i < in->localities[g].ncpus && !any; i++)
			any = contains(in->allowed, in->nallowed, in->localities[g].cpus[i]);
		if (!any)
			return false;
	}
	return true;
}

/* The locality a task's CPUs come from, or NULL for "all allowed CPUs". */
static const struct dist_locality *locality_of(const struct dist_bind_input *in,
                                               uint32_t local_rank)
{
	int32_t gpu = gpu_of(in, local_rank);

	return gpu >= 0 && localities_usable(in) ? &in->localities[gpu] : NULL;
}

/* LOCALITY's CPUs the task may use; all allowed ones when none of them is. */
static size_t pool_of(const struct dist_bind_input *in, const struct dist_locality *locality,
                      uint32_t *pool)
{
	size_t n = 0;

	for (size_t i = 0; locality && i < locality->ncpus; i++)
		if (contains(in->allowed, in->nallowed, locality->cpus[i]))
			pool[n++] = locality->cpus[i];
	if (n > 0)
		return n;
	memcpy(pool, in->allowed, in->nallowed * sizeof(*pool));
	return in->nallowed;
}

/* The task's index among the node's tasks drawing from the same pool. */
static void sharers(const struct dist_bind_input *in, uint32_t local_rank, uint32_t *index,
                    uint32_t *count)
{
	const struct dist_locality *mine = locality_of(in, local_rank);

	*index = *count = 0;
	for (uint32_t j = 0; j < in->local_size; j++) {
		const struct dist_locality *theirs = locality_of(in, j);

		if (mine == theirs || (mine && theirs && same_locality(mine, theirs))) {
			if (j < local_rank)
				(*index)++;
			(*count)++;
		}
	}
}

static int compare_cpus(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int dist_bind_plan_for(const struct dist_bind_input *in, uint32_t local_rank,
                       struct dist_bind_plan *plan, struct dist_err *err)
{
	const struct dist_locality *locality = locality_of(in, local_rank);
	uint32_t *pool, index, count;
	size_t npool, share, extra, start, len;

	memset(plan, 0, sizeof(*plan));
	plan->gpu = gpu_of(in, local_rank);
	if (in->nallowed == 0)
		return dist_err_set(err, "this task may use no CPU");
	pool = calloc(in->nallowed, sizeof(*pool));
	plan->cpus = calloc(in->nallowed, sizeof(*plan->cpus));
	if (!pool || !plan->cpus) {
		free(pool);
		dist_bind_plan_free(plan);
		return dist_err_set(err, "out of memory");
	}
	npool = in->keep_cpus ? pool_of(in, NULL, pool) : pool_of(in, locality, pool);
	if (in->task_bound || in->keep_cpus) {
		index = 0;
		count = 1;
	} else {
		sharers(in, local_rank, &index, &count);
	}
	if (npool >= count) {
		share = npool / count;
		extra = npool % count;
		start = index * share + (index < extra ? index : extra);
		len = share + (index < extra ? 1 : 0);
	} else { /* more tasks than CPUs: one each, shared in turn */
		start = index % npool;
		len = 1;
	}
	memcpy(plan->cpus, pool + start, len * sizeof(*pool));
	plan->ncpus = len;
	qsort(plan->cpus, len, sizeof(*plan->cpus), compare_cpus);
	if (plan->gpu >= 0 && in->localities)
		snprintf(plan->nic, sizeof(plan->nic), "%s", in->localities[plan->gpu].nic);
	free(pool);
	return 0;
}

void dist_bind_plan_free(struct dist_bind_plan *plan)
{
	free(plan->cpus);
	plan->cpus = NULL;
	plan->ncpus = 0;
}

int dist_cpu_list_format(const uint32_t *cpus, size_t n, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return -1;
	buf[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int k;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		k = j > i ? snprintf(buf + used, len - used, "%s%u-%u", used ? "," : "", cpus[i],
		                     cpus[j])
		          : snprintf(buf + used, len - used, "%s%u", used ? "," : "", cpus[i]);
		if (k < 0 || (size_t)k >= len - used)
			return -1;
		used += (size_t)k;
		i = j + 1;
	}
	return 0;
}

char *dist_cpu_list_alloc(const uint32_t *cpus, size_t n)
{
	/* Each entry at most "4294967295-4294967295,". */
	size_t len = n * 22 + 1;
	char *buf = malloc(len);

	if (buf && dist_cpu_list_format(cpus, n, buf, len)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* One "A" or "A-B" of a list; *P moves past it. */
static int parse_cpu_range(const char **p, uint32_t *lo, uint32_t *hi)
{
	char *end;

	if (dist_parse_u32_prefix(*p, lo, &end))
		return -1;
	*hi = *lo;
	if (*end == '-' && (dist_parse_u32_prefix(end + 1, hi, &end) || *hi < *lo))
		return -1;
	*p = end;
	return 0;
}

int dist_cpu_list_parse(const char *text, uint32_t **cpus, size_t *n, struct dist_err *err)
{
	const char *p = text;
	size_t count = 0, cap = 0;
	uint32_t *list = NULL, lo, hi;
	bool ok = p && *p;

	while (ok && *p) {
		ok = parse_cpu_range(&p, &lo, &hi) == 0 && (count == 0 || lo > list[count - 1]) &&
		     (*p == '\0' || (*p == ',' && p[1] != '\0')) && hi - lo <= 65535;
		for (uint64_t c = lo; ok && c <= hi; c++) {
			if (count == cap) {
				uint32_t *grown =
				        realloc(list, (cap = cap ? 2 * cap : 64) * sizeof(*list));

				if (!grown) {
					free(list);
					return dist_err_set(err, "out of memory");
				}
				list = grown;
			}
			list[count++] = (uint32_t)c;
		}
		p += ok && *p == ',';
	}
	if (!ok) {
		free(list);
		return dist_err_set(err, "malformed CPU list '%.40s'", text ? text : "");
	}
	*cpus = list;
	*n = count;
	return 0;
}
