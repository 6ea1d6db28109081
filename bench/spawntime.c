/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawntime: wall time of commands, repetitions interleaved, medians out.
 *
 *   spawntime [-n REPS] [-w WARMUP] LABEL CMD [ARGS...] ::: LABEL CMD [ARGS...] ...
 *
 * Each round runs every command once (A B C, then B C A, then C A B: the
 * order rotates), each as posix_spawnp + waitpid timed with CLOCK_MONOTONIC,
 * so drift on a shared or throttled machine hits every command alike. WARMUP
 * rounds (default 3) run first and are thrown away. stdin, stdout and stderr
 * of the commands are /dev/null; a command that exits non-zero stops the run.
 *
 * Output, one line per command, in the order given:
 *   LABEL median_ms=M p10_ms=A p90_ms=B min_ms=C reps=N ratio=R
 * where R is the command's median over the FIRST command's median (give the
 * bare launch first). Exit: 0; 2 usage; 1 a command failed to start or exited
 * non-zero. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_CMDS 16

struct cmd {
	const char *label;
	char **argv;
	double *ms;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank quantile of a sorted array; Q in [0,1]. The median of an even
 * count is the mean of the two middle values. */
static double quantile(const double *v, int n, double q)
{
	if (q == 0.5 && n % 2 == 0)
		return (v[n / 2 - 1] + v[n / 2]) / 2;
	int i = (int)(q * (n - 1) + 0.5);

	return v[i];
}

static int run_once(const struct cmd *c, double *ms)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, rc;
	double t0;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	t0 = now_ms();
	rc = posix_spawnp(&pid, c->argv[0], &fa, NULL, c->argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		fprintf(stderr, "spawntime: %s: cannot start %s: %s\n", c->label, c->argv[0],
		        strerror(rc));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	*ms = now_ms() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "spawntime: %s: %s exited with status %d (run it by hand to see why)\n",
		        c->label, c->argv[0], WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return -1;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: spawntime [-n REPS] [-w WARMUP] LABEL CMD [ARGS...] [::: LABEL CMD "
	                "[ARGS...]]...\n");
}

int main(int argc, char **argv)
{
	struct cmd cmds[MAX_CMDS];
	int ncmd = 0, reps = 100, warmup = 3, opt;

	while ((opt = getopt(argc, argv, "+n:w:")) != -1) {
		switch (opt) {
		case 'n':
			reps = atoi(optarg);
			break;
		case 'w':
			warmup = atoi(optarg);
			break;
		default:
			usage();
			return 2;
		}
	}
	if (reps < 1 || warmup < 0) {
		usage();
		return 2;
	}
	/* Split the rest at ":::" into LABEL CMD... groups. */
	for (int i = optind; i < argc;) {
		int j = i;

		while (j < argc && strcmp(argv[j], ":::") != 0)
			j++;
		if (j - i < 2 || ncmd == MAX_CMDS) {
			usage();
			return 2;
		}
		argv[j < argc ? j : argc] = NULL; /* argv[argc] is NULL already */
		cmds[ncmd].label = argv[i];
		cmds[ncmd].argv = &argv[i + 1];
		cmds[ncmd].ms = calloc(reps, sizeof(double));
		if (!cmds[ncmd].ms)
			return 1;
		ncmd++;
		i = j + 1;
	}
	if (ncmd == 0) {
		usage();
		return 2;
	}
	for (int r = 0; r < warmup + reps; r++) {
		for (int k = 0; k < ncmd; k++) {
			/* Rotate the order each round so that no command always runs
			 * right after the same neighbour. */
			const struct cmd *c = &cmds[(k + r) % ncmd];
			double ms;

			if (run_once(c, &ms))
				return 1;
			if (r >= warmup)
				c->ms[r - warmup] = ms;
		}
	}
	double base = 0;

	for (int k = 0; k < ncmd; k++) {
		double *v = cmds[k].ms;
		double med;

		qsort(v, reps, sizeof(double), cmp_double);
		med = quantile(v, reps, 0.5);
		if (k == 0)
			base = med;
		printf("%s median_ms=%.3f p10_ms=%.3f p90_ms=%.3f min_ms=%.3f reps=%d ratio=%.3f\n",
		       cmds[k].label, med, quantile(v, reps, 0.1), quantile(v, reps, 0.9), v[0], reps,
		       base > 0 ? med / base : 0);
	}
	return 0;
}
