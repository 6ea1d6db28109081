/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "child.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* After SIGKILL: how long to wait for the child to go. */
#define KILLED_WAIT_MS 1000
/* Between two looks at the child: short, since most end at once. */
#define POLL_MS 10

void child_close_from(int lowfd)
{
	long max;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0) == 0)
		return;
#endif
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 1 << 20)
		max = 1 << 20;
	for (long fd = lowfd; fd < max; fd++)
		close((int)fd);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* 1 when PID ended (*STATUS set), 0 when it runs on at the deadline, -1
 * when waitpid fails. */
static int wait_until(pid_t pid, long long deadline, int *status)
{
	const struct timespec pause = {.tv_sec = 0, .tv_nsec = POLL_MS * 1000000L};

	for (;;) {
		pid_t done = waitpid(pid, status, WNOHANG);

		if (done == pid)
			return 1;
		if (done < 0 && errno != EINTR)
			return -1;
		if (done == 0 && now_ms() >= deadline)
			return 0;
		if (done == 0)
			nanosleep(&pause, NULL);
	}
}

int child_wait(pid_t pid, unsigned timeout_ms, int *status)
{
	int got, ignored;
	int rc = wait_until(pid, now_ms() + timeout_ms, &got);

	if (rc < 0)
		return -1;
	if (rc == 1) {
		*status = got;
		return 0;
	}
	kill(pid, SIGKILL);
	wait_until(pid, now_ms() + KILLED_WAIT_MS, &ignored);
	return 1;
}
