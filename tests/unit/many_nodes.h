/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For unit tests: a node table longer than any fixed 4 KiB buffer held. */
#ifndef TEST_MANY_NODES_H
#define TEST_MANY_NODES_H

#include <stdio.h>

#include "dist_world.h"

#define MANY_NODES 250

/* MANY_NODES nodes 192.168.100.100, .100.101, ... .102.149 ("192.168.1xx.1xx",
 * 18 bytes with ":8," in a slot list: 4.5 kB in all), TASKS tasks and as
 * many GPUs each, on a /16. */
static inline const struct dist_node *many_nodes(uint32_t tasks)
{
	static struct dist_node nodes[MANY_NODES];

	for (uint32_t i = 0; i < MANY_NODES; i++) {
		snprintf(nodes[i].addr, sizeof(nodes[i].addr), "192.168.%u.%u", 100 + i / 100,
		         100 + i % 100);
		nodes[i].ntasks = tasks;
		nodes[i].gpus = tasks;
		nodes[i].prefix = 16;
	}
	return nodes;
}

/* Counts C in TEXT. */
static inline size_t count_char(const char *text, char c)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == c;
	return n;
}

#endif
