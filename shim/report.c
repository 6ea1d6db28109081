#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dist_errfile.h"
#include "msg.h"
#include "readall.h"

/* torch writes a message and a Python call stack: far below this. */
#define ERRFILE_MAX (4 * 1024 * 1024)

/* Until PROGRAM (which the shim became) ends: a pidfd where the kernel has
 * them (no wake-ups), else polling whether it still exists. */
static void wait_for_end(pid_t program)
{
	int fd = (int)syscall(SYS_pidfd_open, program, 0);
	struct pollfd p = {.fd = fd, .events = POLLIN};

	if (fd >= 0) {
		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
		close(fd);
		return;
	}
	while (kill(program, 0) == 0 || errno == EPERM)
		sleep(1);
}

/* The file's text, NUL-terminated, malloc'd; NULL when absent (no error). */
static char *read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char *text = fd >= 0 ? readall_fd(fd, ERRFILE_MAX, NULL) : NULL;

	if (fd >= 0)
		close(fd);
	return text;
}

static void watch(pid_t program, const char *path)
{
	char *text, *summary;

	/* Only stderr is the watcher's: the program's files, sockets and PMI
	 * stay the program's alone. */
	if (syscall(SYS_close_range, 3U, ~0U, 0) != 0)
		for (long fd = 3, max = sysconf(_SC_OPEN_MAX); fd < max; fd++)
			close((int)fd);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	wait_for_end(program);
	text = read_file(path);
	summary = dist_errfile_summary(text);
	if (summary)
		msg_error("failed: %s (recorded in %s)", summary, path);
	_exit(0);
}

void report_arm(void)
{
	const char *file = getenv("TORCHELASTIC_ERROR_FILE");
	pid_t program = getpid(), child;
	char *path;

	if (!file || file[0] != '/')
		return;
	path = strdup(file);
	/* Twice: the watcher must not be the program's child, or a program
	 * that waits for any child (wait(), waitpid(-1)) would find it. The
	 * middle process ends at once and is reaped here, before the exec. */
	child = path ? fork() : -1;
	if (child == 0) {
		if (fork() == 0)
			watch(program, path);
		_exit(0);
	}
	if (child > 0)
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	free(path);
}
