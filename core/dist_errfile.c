/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_errfile.h"

#include <jansson.h>
#include <string.h>

char *dist_errfile_summary(const char *text)
{
	json_t *root = text ? json_loads(text, 0, NULL) : NULL;
	json_t *message = json_object_get(root, "message");
	const char *line;
	char *out = NULL;

	if (json_is_object(message))
		message = json_object_get(message, "message");
	line = json_string_value(message);
	if (line && line[0] != '\0')
		out = strndup(line, strcspn(line, "\n"));
	json_decref(root);
	return out;
}
