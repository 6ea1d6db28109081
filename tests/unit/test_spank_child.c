/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for spank/child.c: slurmstepd's bounded wait for the child
 * that removes the step's directory, and the child's closing of
 * slurmstepd's descriptors. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "child.h"

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

static void test_ends_in_time(void **state)
{
	int status = -1;
	pid_t pid = fork();

	(void)state;
	if (pid == 0)
		_exit(3);
	assert_true(pid > 0);
	assert_int_equal(child_wait(pid, 5000, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
}

/* A remover stuck (a hung TMPDIR): killed at the deadline, and gone. */
static void test_hung_child_killed(void **state)
{
	struct timespec start;
	int status = 12345;
	pid_t pid = fork();

	(void)state;
	if (pid == 0) {
		for (;;)
			pause();
	}
	assert_true(pid > 0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	assert_int_equal(child_wait(pid, 300, &status), 1);
	assert_true(seconds_since(&start) >= 0.3);
	assert_true(seconds_since(&start) < 2.0);
	assert_int_equal(status, 12345); /* not set */
	/* Reaped: no child left to wait for. */
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* Nothing to wait for: an error, the status untouched. */
static void test_not_a_child(void **state)
{
	int status = 12345;

	(void)state;
	assert_int_equal(child_wait(getppid(), 100, &status), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(status, 12345);
}

/* The child keeps none of its parent's descriptors from 3 up. */
static void test_close_from(void **state)
{
	int fds[2], status = -1, high;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	high = fcntl(fds[0], F_DUPFD, 200);
	assert_true(high >= 200);
	pid = fork();
	if (pid == 0) {
		child_close_from(3);
		_exit(fcntl(fds[0], F_GETFD) == -1 && fcntl(fds[1], F_GETFD) == -1 &&
		                      fcntl(high, F_GETFD) == -1 && fcntl(2, F_GETFD) != -1
		              ? 0
		              : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(child_wait(pid, 5000, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(fds[0]);
	close(fds[1]);
	close(high);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_ends_in_time),
	        cmocka_unit_test(test_hung_child_killed),
	        cmocka_unit_test(test_not_a_child),
	        cmocka_unit_test(test_close_from),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
