/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one walker of separated lists ("0,1,3", "gpu:closest;nic:none"): the
 * core's parsers read Slurm's and the platforms' lists through it instead
 * of each stepping a pointer by hand. */
#ifndef DIST_LIST_H
#define DIST_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The next item of the SEP-separated list at *CURSOR (NULL or "" is an
 * empty list): *ITEM and *LEN (0 for an empty item between two
 * separators), *CURSOR moved past it and its separator. False at the end;
 * a trailing separator ends the list without an empty item. */
static inline bool dist_list_next(const char **cursor, char sep, const char **item, size_t *len)
{
	const char *p = *cursor;
	const char seps[2] = {sep, '\0'};

	if (!p || !*p)
		return false;
	*item = p;
	*len = strcspn(p, seps);
	*cursor = p + *len + (p[*len] == sep);
	return true;
}

/* Whether the item ITEM (LEN bytes) is exactly WORD. */
static inline bool dist_list_item_is(const char *item, size_t len, const char *word)
{
	return strlen(word) == len && strncmp(item, word, len) == 0;
}

#endif
