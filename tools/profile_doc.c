/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prints, as Markdown, what one --dist-compat profile sets, straight from
 * its table in core/dist_profile.c:  profile-doc NAME
 * docs/moving-from-*.md embed this output; tests/check-profile-docs.sh keeps
 * them in step with the code. */
#include <stdio.h>
#include <string.h>

#include "dist_profile.h"

static void print_profile(const struct dist_profile *p)
{
	printf("| variable | value |\n|---|---|\n");
	for (size_t i = 0; i < p->nvars; i++)
		printf("| `%s` | %s |\n", p->vars[i].name, dist_source_describe(p->vars[i].source));
	if (p->nargs == 0)
		return;
	printf("\nAppended to the program's arguments:\n\n| argument | value |\n|---|---|\n");
	for (size_t i = 0; i < p->nargs; i++)
		printf("| `%s` | %s%s |\n", p->args[i].flag,
		       dist_source_describe(p->args[i].source),
		       p->args[i].multi_node_only ? " (only when the step has several nodes)" : "");
}

int main(int argc, char **argv)
{
	size_t count, found = 0;
	const struct dist_profile *profiles = dist_profile_table(&count);

	for (size_t i = 0; argc == 2 && i < count; i++) {
		if (strcmp(profiles[i].name, argv[1]) != 0)
			continue;
		printf("%sWith `--dist-mode=` %s:\n\n", found++ ? "\n" : "", profiles[i].modes);
		print_profile(&profiles[i]);
	}
	if (found)
		return 0;
	fprintf(stderr, "usage: profile-doc %s\n", dist_profile_choices());
	return 2;
}
