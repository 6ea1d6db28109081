/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_launchline.h"

#include <ctype.h>
#include <string.h>

#include "dist_launch.h"
#include "dist_profile.h"
#include "dist_slurmenv.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Open MPI's launchers, Debian's alternatives' names included (not
 * MPICH's: Hydra places any -np, oversubscribing as it must). */
static const char *const ompi_launchers[] = {"mpirun",         "mpiexec",        "orterun",
                                             "prterun",        "mpirun.openmpi", "mpiexec.openmpi",
                                             "orterun.openmpi"};
static const char *const np_options[] = {"np", "n", "c"};
static const char *const host_options[] = {"H", "host", "hostfile", "machinefile",
                                           "default-hostfile"};
/* Open MPI 4, 5 and 6 options that take one value, or two. */
static const char *const one_value[] = {"x",
                                        "map-by",
                                        "bind-to",
                                        "rank-by",
                                        "npernode",
                                        "N",
                                        "npersocket",
                                        "am",
                                        "tune",
                                        "wdir",
                                        "wd",
                                        "path",
                                        "prefix",
                                        "output-filename",
                                        "output",
                                        "timeout",
                                        "app",
                                        "cpu-set",
                                        "cpus-per-proc",
                                        "stdin",
                                        "personality",
                                        "display",
                                        "runtime-options",
                                        "report-bindings-file"};
static const char *const two_values[] = {"mca", "gmca", "prtemca", "pmixmca", "omca"};

static bool listed(const char *name, size_t len, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && strncmp(name, list[i], len) == 0)
			return true;
	return false;
}

static bool contains_oversubscribe(const char *text)
{
	static const char word[] = "oversubscribe";

	for (; *text; text++) {
		size_t i = 0;

		while (word[i] && tolower((unsigned char)text[i]) == word[i])
			i++;
		if (!word[i])
			return true;
	}
	return false;
}

/* A count as the launchers take it: digits only, at least 1. */
static bool parse_count(const char *text, uint32_t *value)
{
	return text && dist_parse_u32(text, value) == 0 && *value > 0;
}

void dist_launch_line_read(char *const *argv, struct dist_launch_line *line)
{
	memset(line, 0, sizeof(*line));
	if (!argv || !argv[0] ||
	    !listed(dist_program_name(argv[0]), strlen(dist_program_name(argv[0])), ompi_launchers,
	            COUNT(ompi_launchers)))
		return;
	line->ompi_launcher = true;
	for (size_t i = 1; argv[i] && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
		const char *name = argv[i] + (argv[i][1] == '-' ? 2 : 1);
		const char *equals = strchr(name, '=');
		size_t len = equals ? (size_t)(equals - name) : strlen(name);
		/* The option's value: after '=', or the next word. */
		const char *value = equals ? equals + 1 : argv[i + 1];
		bool takes_next = !equals;

		if (contains_oversubscribe(argv[i]))
			line->oversubscribe = true;
		if (listed(name, len, np_options, COUNT(np_options))) {
			if (!parse_count(value, &line->np))
				return;
		} else if (listed(name, len, host_options, COUNT(host_options))) {
			line->own_hosts = true;
		} else if (listed(name, len, one_value, COUNT(one_value))) {
			if (value && contains_oversubscribe(value))
				line->oversubscribe = true;
		} else if (listed(name, len, two_values, COUNT(two_values))) {
			if (!argv[i + 1] || (takes_next && !argv[i + 2]))
				return;
			i++;
		} else {
			takes_next = false; /* a flag, or unknown: read as a flag */
			if (argv[i + 1] && argv[i + 1][0] != '-')
				return; /* maybe its value, maybe the program: stop */
		}
		if (takes_next) {
			if (!argv[i + 1])
				return;
			i++;
		}
	}
}

uint32_t dist_world_slots(const struct dist_world *w)
{
	uint32_t total = 0;

	for (uint32_t i = 0; w->nodes && i < w->nnodes; i++)
		total += dist_node_slots(&w->nodes[i]);
	return total;
}

int dist_launch_line_check(char *const *argv, const struct dist_world *w, struct dist_err *err)
{
	struct dist_launch_line line;
	uint32_t slots = dist_world_slots(w);

	if (w->ompi == DIST_OMPI_UNKNOWN || !w->nodes)
		return 0;
	dist_launch_line_read(argv, &line);
	if (!line.ompi_launcher || line.np <= slots || line.oversubscribe || line.own_hosts)
		return 0;
	return dist_err_set(err,
	                    "%s -np %u asks for more processes than the %u slots of the step's "
	                    "%u nodes (a node's slots: its GPUs, or its tasks when more); "
	                    "lower -np, ask Slurm for more GPUs or tasks per node, or add "
	                    "--oversubscribe",
	                    dist_program_name(argv[0]), line.np, slots, w->nnodes);
}
