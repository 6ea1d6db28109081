/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for spank/taskns.c: a task in another mount namespace than
 * slurmstepd's (a job container) hands it over; slurmstepd receives each
 * namespace once, after the task is gone, and can still enter it. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "taskns.h"

/* Runs a "task": a child that, when NEW_NS, first gets a mount namespace
 * of its own (as root; else through a user namespace), then reports REPORTS
 * times. Its exit status: 0 when every report returned WANT, 77 when no
 * namespace could be made here, 1 otherwise. */
static int run_task(bool new_ns, int reports, int want)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (new_ns && unshare(CLONE_NEWNS) != 0 &&
		    unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			_exit(77);
		for (int i = 0; i < reports; i++)
			if (taskns_report() != want)
				_exit(1);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void ns_of_fd(int fd, struct stat *st)
{
	assert_int_equal(fstat(fd, st), 0);
}

static void test_same_namespace_sends_nothing(void **state)
{
	int fds[TASKNS_MAX];

	(void)state;
	assert_int_equal(taskns_prepare(), 0);
	assert_int_equal(run_task(false, 3, 0), 0);
	assert_int_equal(taskns_collect(fds, TASKNS_MAX), 0);
}

static void test_other_namespace_once_each(void **state)
{
	int fds[TASKNS_MAX], rc;
	struct stat mine, got[2];
	size_t n;

	(void)state;
	assert_int_equal(taskns_prepare(), 0);
	/* Two tasks, each in a namespace of its own, each reporting twice. */
	rc = run_task(true, 2, 1);
	if (rc == 77) {
		taskns_collect(fds, TASKNS_MAX);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(run_task(true, 2, 1), 0);
	n = taskns_collect(fds, TASKNS_MAX);
	assert_int_equal(n, 2);
	assert_int_equal(stat("/proc/self/ns/mnt", &mine), 0);
	ns_of_fd(fds[0], &got[0]);
	ns_of_fd(fds[1], &got[1]);
	assert_true(got[0].st_ino != mine.st_ino && got[1].st_ino != mine.st_ino);
	assert_true(got[0].st_ino != got[1].st_ino);
	close(fds[0]);
	close(fds[1]);
}

/* What the remover does at the step's end: the task is gone, the namespace
 * it handed over can still be entered (as root). */
static void test_enter_after_task_gone(void **state)
{
	int fds[TASKNS_MAX], status;
	struct stat handed;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(taskns_prepare(), 0);
	if (run_task(true, 1, 1) == 77) {
		taskns_collect(fds, TASKNS_MAX);
		skip();
	}
	assert_int_equal(taskns_collect(fds, TASKNS_MAX), 1);
	ns_of_fd(fds[0], &handed);
	pid = fork();
	if (pid == 0) {
		struct stat now;

		if (setns(fds[0], CLONE_NEWNS) != 0 || stat("/proc/self/ns/mnt", &now) != 0)
			_exit(2);
		_exit(now.st_ino == handed.st_ino ? 0 : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(fds[0]);
}

static void test_not_prepared(void **state)
{
	int fds[TASKNS_MAX];

	(void)state;
	assert_int_equal(taskns_report(), 0);
	assert_int_equal(taskns_collect(fds, TASKNS_MAX), 0);
}

/* More namespaces than kept: the rest are closed, none leaks. */
static void test_at_most_max(void **state)
{
	int fds[2], before, after;
	size_t n;

	(void)state;
	before = open("/dev/null", O_RDONLY);
	assert_true(before >= 0);
	close(before);
	assert_int_equal(taskns_prepare(), 0);
	for (int i = 0; i < 3; i++) {
		if (run_task(true, 1, 1) == 77) {
			taskns_collect(fds, 2);
			skip();
		}
	}
	n = taskns_collect(fds, 2);
	assert_int_equal(n, 2);
	close(fds[0]);
	close(fds[1]);
	after = open("/dev/null", O_RDONLY);
	assert_int_equal(after, before);
	close(after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_not_prepared),
	        cmocka_unit_test(test_same_namespace_sends_nothing),
	        cmocka_unit_test(test_other_namespace_once_each),
	        cmocka_unit_test(test_enter_after_task_gone),
	        cmocka_unit_test(test_at_most_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
