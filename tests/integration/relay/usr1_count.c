/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counts the USR1 signals this launcher gets, each delivery in its handler:
 * waits (bounded) for the first, then 3 s more for a second one. Writes the
 * job id to argv[1] once it counts. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t count;

static void on_usr1(int sig)
{
	(void)sig;
	count++;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	char tmp[4096];
	FILE *f;
	time_t end;

	if (argc != 2)
		return 2;
	sigaction(SIGUSR1, &sa, NULL);
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	f = fopen(tmp, "w");
	if (!f)
		return 1;
	fprintf(f, "%s\n", getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "?");
	fclose(f);
	rename(tmp, argv[1]);
	for (end = time(NULL) + 100; count == 0 && time(NULL) < end;)
		usleep(100000);
	for (end = time(NULL) + 3; time(NULL) < end;)
		usleep(100000);
	printf("USR1-COUNT %d\n", (int)count);
	return 0;
}
