/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a node's first task read of the exchange, kept for the node's other
 * tasks (wireup/shared.h). The text:
 *
 *   slurm-dist shared exchange 1
 *   layout COUNT                 (when the layout was read)
 *   NTASKS RANK RANK ...         (COUNT lines, one per node)
 *   value RANK KEY LENGTH        (one per value read, then its bytes)
 *   BYTES
 *
 * Values are counted, not escaped: a node record holds any text. */
#include "wireup/shared.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_buf.h"

#define SHARED_HEADER "slurm-dist shared exchange 1\n"

struct kept_value {
	uint32_t rank;
	char *key;
	char *value;
};

static struct {
	const struct wireup_transport *real;
	struct wireup_transport view;
	bool have_layout;
	struct wireup_node *nodes;
	uint32_t count;
	struct kept_value *values;
	size_t nvalues, cap;
} kept;

static void free_nodes(struct wireup_node *nodes, uint32_t count)
{
	for (uint32_t i = 0; nodes && i < count; i++)
		free(nodes[i].ranks);
	free(nodes);
}

void wireup_shared_clear(void)
{
	free_nodes(kept.nodes, kept.count);
	for (size_t i = 0; i < kept.nvalues; i++) {
		free(kept.values[i].key);
		free(kept.values[i].value);
	}
	free(kept.values);
	memset(&kept, 0, sizeof(kept));
}

static int copy_nodes(const struct wireup_node *from, uint32_t count, struct wireup_node *to)
{
	for (uint32_t i = 0; i < count; i++) {
		to[i].ntasks = from[i].ntasks;
		to[i].ranks = malloc((from[i].ntasks ? from[i].ntasks : 1) * sizeof(uint32_t));
		if (!to[i].ranks)
			return -1;
		memcpy(to[i].ranks, from[i].ranks, from[i].ntasks * sizeof(uint32_t));
	}
	return 0;
}

static int keep_value(uint32_t rank, const char *key, const char *value, size_t len)
{
	struct kept_value *v;

	if (kept.nvalues == kept.cap) {
		size_t cap = kept.cap ? 2 * kept.cap : 16;
		struct kept_value *grown = realloc(kept.values, cap * sizeof(*grown));

		if (!grown)
			return -1;
		kept.values = grown;
		kept.cap = cap;
	}
	v = &kept.values[kept.nvalues];
	v->rank = rank;
	v->key = strdup(key);
	v->value = strndup(value, len);
	if (!v->key || !v->value) {
		free(v->key);
		free(v->value);
		return -1;
	}
	kept.nvalues++;
	return 0;
}

/* Recording: the real transport answers, and what it answered is kept. */
static int record_layout(const struct dist_world *w, struct wireup_node *nodes, uint32_t max,
                         uint32_t *count, struct dist_err *err)
{
	struct wireup_node *copy;

	if (kept.real->layout(w, nodes, max, count, err))
		return -1;
	copy = calloc(*count ? *count : 1, sizeof(*copy));
	if (copy && copy_nodes(nodes, *count, copy) == 0) {
		kept.nodes = copy;
		kept.count = *count;
		kept.have_layout = true;
	} else {
		free_nodes(copy, *count);
	}
	return 0;
}

static int record_get(uint32_t rank, const char *key, unsigned timeout_s, char *buf, size_t len,
                      struct dist_err *err)
{
	if (kept.real->get(rank, key, timeout_s, buf, len, err))
		return -1;
	/* Out of memory, it is not kept, and the others ask for it themselves. */
	keep_value(rank, key, buf, strlen(buf));
	return 0;
}

const struct wireup_transport *wireup_shared_record(const struct wireup_transport *real)
{
	wireup_shared_clear();
	kept.real = real;
	kept.view = *real;
	kept.view.layout = record_layout;
	kept.view.get = record_get;
	return &kept.view;
}

char *wireup_shared_text(void)
{
	struct dist_buf b = DIST_BUF_INIT;

	dist_buf_append(&b, SHARED_HEADER);
	if (kept.have_layout)
		dist_buf_appendf(&b, "layout %u\n", kept.count);
	for (uint32_t i = 0; kept.have_layout && i < kept.count; i++) {
		dist_buf_appendf(&b, "%u", kept.nodes[i].ntasks);
		for (uint32_t j = 0; j < kept.nodes[i].ntasks; j++)
			dist_buf_appendf(&b, " %u", kept.nodes[i].ranks[j]);
		dist_buf_append(&b, "\n");
	}
	for (size_t i = 0; i < kept.nvalues; i++)
		dist_buf_appendf(&b, "value %u %s %zu\n%s\n", kept.values[i].rank,
		                 kept.values[i].key, strlen(kept.values[i].value),
		                 kept.values[i].value);
	return dist_buf_take(&b);
}

/* Replaying: the text answers, the real transport what it lacks. */
static int compare_values(const void *a, const void *b)
{
	const struct kept_value *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int replay_layout(const struct dist_world *w, struct wireup_node *nodes, uint32_t max,
                         uint32_t *count, struct dist_err *err)
{
	if (!kept.have_layout)
		return kept.real->layout(w, nodes, max, count, err);
	if (kept.count > max)
		return dist_err_set(err, "%s lists more nodes than the %u of the step",
		                    kept.real->name, max);
	*count = 0;
	if (copy_nodes(kept.nodes, kept.count, nodes))
		return dist_err_set(err, "out of memory");
	*count = kept.count;
	return 0;
}

static int replay_get(uint32_t rank, const char *key, unsigned timeout_s, char *buf, size_t len,
                      struct dist_err *err)
{
	struct kept_value want = {.rank = rank, .key = (char *)key};
	const struct kept_value *v = kept.nvalues ? bsearch(&want, kept.values, kept.nvalues,
	                                                    sizeof(want), compare_values)
	                                          : NULL;

	if (!v)
		return kept.real->get(rank, key, timeout_s, buf, len, err);
	if ((size_t)snprintf(buf, len, "%s", v->value) >= len)
		return dist_err_set(err, "rank %u published a malformed %s", rank, key);
	return 0;
}

/* The parser's position in the text; every take_ fails once it is off. */
struct cursor {
	const char *p;
	const char *end; /* the text's NUL */
	bool bad;
};

static uint32_t take_u32(struct cursor *c, char after)
{
	char *end;
	unsigned long n;

	if (c->bad || *c->p < '0' || *c->p > '9')
		return c->bad = true, 0;
	errno = 0;
	n = strtoul(c->p, &end, 10);
	if (errno || n > UINT32_MAX || *end != after)
		return c->bad = true, 0;
	c->p = end + 1;
	return (uint32_t)n;
}

static void take_word(struct cursor *c, const char *word)
{
	size_t n = strlen(word);

	if (c->bad || strncmp(c->p, word, n) != 0)
		c->bad = true;
	else
		c->p += n;
}

static void parse_node(struct cursor *c, struct wireup_node *node)
{
	uint32_t n = take_u32(c, ' ');

	/* A node line holds NTASKS ranks, each at least two bytes. */
	if (c->bad || n == 0 || n > (size_t)(c->end - c->p) / 2) {
		c->bad = true;
		return;
	}
	node->ranks = malloc(n * sizeof(uint32_t));
	if (!node->ranks) {
		c->bad = true;
		return;
	}
	node->ntasks = n;
	for (uint32_t j = 0; j < n; j++)
		node->ranks[j] = take_u32(c, j + 1 < n ? ' ' : '\n');
}

static void parse_layout(struct cursor *c)
{
	uint32_t count;

	if (strncmp(c->p, "layout ", 7) != 0)
		return;
	take_word(c, "layout ");
	count = take_u32(c, '\n');
	/* A node line is at least four bytes. */
	if (c->bad || count > (size_t)(c->end - c->p) / 4) {
		c->bad = true;
		return;
	}
	kept.nodes = calloc(count ? count : 1, sizeof(*kept.nodes));
	if (!kept.nodes) {
		c->bad = true;
		return;
	}
	kept.count = count;
	for (uint32_t i = 0; i < count && !c->bad; i++)
		parse_node(c, &kept.nodes[i]);
	kept.have_layout = !c->bad;
}

static void parse_value(struct cursor *c)
{
	const char *key, *space;
	uint32_t rank, len;
	char *k;

	take_word(c, "value ");
	rank = take_u32(c, ' ');
	key = c->p;
	space = c->bad ? NULL : strchr(key, ' ');
	if (!space || space == key || memchr(key, '\n', (size_t)(space - key))) {
		c->bad = true;
		return;
	}
	c->p = space + 1;
	len = take_u32(c, '\n');
	if (c->bad || (size_t)(c->end - c->p) <= len || c->p[len] != '\n') {
		c->bad = true;
		return;
	}
	k = strndup(key, (size_t)(space - key));
	if (!k || keep_value(rank, k, c->p, len))
		c->bad = true;
	free(k);
	c->p += len + 1;
}

const struct wireup_transport *wireup_shared_replay(const struct wireup_transport *real,
                                                    const char *text, struct dist_err *err)
{
	struct cursor c = {.p = text, .end = text + strlen(text), .bad = false};

	wireup_shared_clear();
	kept.real = real;
	take_word(&c, SHARED_HEADER);
	if (!c.bad)
		parse_layout(&c);
	while (!c.bad && *c.p)
		parse_value(&c);
	if (c.bad) {
		wireup_shared_clear();
		dist_err_set(err, "not an exchange kept by the node's first task (near byte %zu)",
		             (size_t)(c.p - text));
		return NULL;
	}
	if (kept.nvalues > 1)
		qsort(kept.values, kept.nvalues, sizeof(*kept.values), compare_values);
	kept.view = *real;
	kept.view.layout = replay_layout;
	kept.view.get = replay_get;
	return &kept.view;
}
