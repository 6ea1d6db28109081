/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_pmimap.h"
#include "dist_slurmenv.h"

#define VECTOR_PREFIX "(vector"

struct block {
	uint32_t start, nodes, per_node;
};

/* Reads ",(S,N,P)" at *P into B. */
static int read_block(const char **p, struct block *b)
{
	uint32_t v[3];
	const char *s = *p;
	char *end;

	if (strncmp(s, ",(", 2) != 0)
		return -1;
	s += 2;
	for (int i = 0; i < 3; i++) {
		if (dist_parse_u32_prefix(s, &v[i], &end))
			return -1;
		s = end;
		if (*s != (i < 2 ? ',' : ')'))
			return -1;
		s++;
	}
	b->start = v[0];
	b->nodes = v[1];
	b->per_node = v[2];
	*p = s;
	return 0;
}

/* The blocks of TEXT (malloc'd), checked against SIZE ranks. */
static int read_blocks(const char *text, uint32_t size, struct block **blocks, size_t *count,
                       struct dist_err *err)
{
	const char *p = text + strlen(VECTOR_PREFIX);
	size_t max = 0;

	for (const char *c = text; *c; c++)
		max += *c == '(';
	*count = 0;
	*blocks = calloc(max ? max : 1, sizeof(**blocks));
	if (!*blocks)
		return dist_err_set(err, "out of memory");
	while (*p == ',') {
		struct block *b = &(*blocks)[*count];

		if (*count == max || read_block(&p, b))
			return dist_err_set(err, "malformed PMI_process_mapping '%s'", text);
		if (b->nodes == 0 || b->per_node == 0 || b->start >= size ||
		    b->nodes > size - b->start)
			return dist_err_set(err,
			                    "PMI_process_mapping '%s' has a block (%u,%u,%u) that "
			                    "does not fit %u ranks",
			                    text, b->start, b->nodes, b->per_node, size);
		(*count)++;
	}
	if (strcmp(p, ")") != 0 || *count == 0)
		return dist_err_set(err, "malformed PMI_process_mapping '%s'", text);
	return 0;
}

/* Hands ranks out block after block, from the first again while any remain. */
static void assign(const struct block *blocks, size_t count, uint32_t size, uint32_t *node_of)
{
	uint32_t rank = 0;

	while (rank < size)
		for (size_t i = 0; i < count && rank < size; i++)
			for (uint32_t n = 0; n < blocks[i].nodes && rank < size; n++)
				for (uint32_t k = 0; k < blocks[i].per_node && rank < size; k++)
					node_of[rank++] = blocks[i].start + n;
}

/* Every node from 0 to the highest one named must hold a rank. */
static int count_nodes(const char *text, const uint32_t *node_of, uint32_t size, uint32_t *nnodes,
                       struct dist_err *err)
{
	bool *used = calloc(size, sizeof(*used));
	int rc = 0;

	if (!used)
		return dist_err_set(err, "out of memory");
	*nnodes = 0;
	for (uint32_t r = 0; r < size; r++) {
		used[node_of[r]] = true;
		if (node_of[r] >= *nnodes)
			*nnodes = node_of[r] + 1;
	}
	for (uint32_t n = 0; n < *nnodes && rc == 0; n++)
		if (!used[n])
			rc = dist_err_set(err,
			                  "PMI_process_mapping '%s' gives node %u no rank of %u",
			                  text, n, size);
	free(used);
	return rc;
}

int dist_pmi_mapping_parse(const char *text, uint32_t size, uint32_t *node_of, uint32_t *nnodes,
                           struct dist_err *err)
{
	struct block *blocks = NULL;
	size_t count;
	int rc;

	if (!text || strncmp(text, VECTOR_PREFIX, strlen(VECTOR_PREFIX)) != 0)
		return dist_err_set(err, "PMI_process_mapping '%s' is not a (vector,...) mapping",
		                    text ? text : "");
	if (size == 0)
		return dist_err_set(err, "a PMI_process_mapping for no ranks");
	rc = read_blocks(text, size, &blocks, &count, err);
	if (rc == 0) {
		assign(blocks, count, size, node_of);
		rc = count_nodes(text, node_of, size, nnodes, err);
	}
	free(blocks);
	return rc;
}

int dist_pmi_mapping_format(const uint32_t *node_of, uint32_t size, struct dist_buf *out,
                            struct dist_err *err)
{
	struct block cur = {0, 0, 0};

	dist_buf_reset(out);
	dist_buf_append(out, VECTOR_PREFIX);
	for (uint32_t r = 0; r < size;) {
		uint32_t node = node_of[r], run = 0;

		while (r < size && node_of[r] == node) {
			run++;
			r++;
		}
		if (cur.nodes && run == cur.per_node && node == cur.start + cur.nodes) {
			cur.nodes++;
			continue;
		}
		if (cur.nodes)
			dist_buf_appendf(out, ",(%u,%u,%u)", cur.start, cur.nodes, cur.per_node);
		cur = (struct block){node, 1, run};
	}
	if (cur.nodes)
		dist_buf_appendf(out, ",(%u,%u,%u)", cur.start, cur.nodes, cur.per_node);
	if (dist_buf_append(out, ")"))
		return dist_err_set(err, "out of memory");
	return 0;
}
