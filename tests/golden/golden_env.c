/* Prints the environment a mode exports for a recorded rank/peer model:
 *   golden-env MODE WORLD_FILE
 * WORLD_FILE has one key=value per line (rank, size, local_rank, local_size,
 * node_rank, nnodes, master_addr, master_port, master_ifname). The output is
 * compared with a golden file by run-golden.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_mode.h"
#include "dist_slurmenv.h"

static int set_field(struct dist_world *w, const char *key, const char *value)
{
	static const struct {
		const char *key;
		size_t offset;
	} u32_fields[] = {
		{"rank", offsetof(struct dist_world, rank)},
		{"size", offsetof(struct dist_world, size)},
		{"local_rank", offsetof(struct dist_world, local_rank)},
		{"local_size", offsetof(struct dist_world, local_size)},
		{"node_rank", offsetof(struct dist_world, node_rank)},
		{"nnodes", offsetof(struct dist_world, nnodes)},
	};
	uint32_t v;

	for (size_t i = 0; i < sizeof(u32_fields) / sizeof(u32_fields[0]); i++)
		if (strcmp(key, u32_fields[i].key) == 0)
			return dist_parse_u32(value, (uint32_t *)((char *)w + u32_fields[i].offset));
	if (strcmp(key, "master_addr") == 0)
		return snprintf(w->master_addr, sizeof(w->master_addr), "%s", value) < 0;
	if (strcmp(key, "master_ifname") == 0)
		return snprintf(w->master_ifname, sizeof(w->master_ifname), "%s", value) < 0;
	if (strcmp(key, "master_port") == 0) {
		if (dist_parse_u32(value, &v) || v > 65535)
			return -1;
		w->master_port = (uint16_t)v;
		return 0;
	}
	return -1;
}

static int read_world(const char *path, struct dist_world *w)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (!eq || (*eq = '\0', set_field(w, line, eq + 1))) {
			fprintf(stderr, "golden-env: %s: bad line '%s'\n", path, line);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	const struct dist_mode *mode;
	struct dist_world world = {0};
	struct dist_err err = {{0}};
	struct dist_env env;

	if (argc != 3 || dist_mode_lookup(argv[1], &mode) != DIST_MODE_AVAILABLE) {
		fprintf(stderr, "usage: golden-env MODE WORLD_FILE\n");
		return 2;
	}
	if (read_world(argv[2], &world))
		return 1;
	dist_env_init(&env);
	if (mode->build_env(&world, &env, &err)) {
		fprintf(stderr, "golden-env: %s\n", err.msg);
		return 1;
	}
	dist_env_sort(&env);
	for (size_t i = 0; i < env.count; i++)
		printf("%s=%s\n", env.vars[i].name, env.vars[i].value);
	dist_env_free(&env);
	return 0;
}
