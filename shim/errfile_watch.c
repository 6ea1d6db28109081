/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "errfile_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/msg.h"
#include "base/readall.h"
#include "dist_errfile.h"

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

/* What the watcher needs, in memory it keeps after the shim's exec. */
static struct watch_args {
	pid_t program;
	char *path;
	int gate[2]; /* the shim's exec closes the write end (O_CLOEXEC) */
} args;

/* Each stack below a guard page; pages never touched cost nothing, and the
 * watcher parses torch's JSON. */
#define GUARD         4096
#define WATCHER_STACK (512 * 1024)
static char *stacks; /* guard, the middle process's stack, guard, the watcher's */

/* Runs in the shim's memory (CLONE_VM) until the shim has exec'd the
 * program or ended: until then it touches nothing but its stack and makes
 * no call that can fail (errno is the shim's too) or take a signal (all
 * blocked). Then the memory is the watcher's alone. */
static int watch(void *unused)
{
	char *text, *summary;
	sigset_t none;
	char byte;

	(void)unused;
	close(args.gate[1]);
	while (read(args.gate[0], &byte, 1) > 0)
		;
	/* Only stderr is the watcher's: the program's files, sockets and PMI
	 * stay the program's alone. */
	if (syscall(SYS_close_range, 3U, ~0U, 0) != 0)
		for (long fd = 3, max = sysconf(_SC_OPEN_MAX); fd < max; fd++)
			close((int)fd);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	wait_for_end(args.program);
	text = read_file(args.path);
	summary = dist_errfile_summary(text);
	if (summary)
		msg_error("failed: %s (recorded in %s)", summary, args.path);
	return 0;
}

/* Lives while the shim waits for it (CLONE_VFORK): starts the watcher and
 * ends, so that the watcher is nobody's child once the shim has exec'd. */
static int start_watcher(void *unused)
{
	(void)unused;
	clone(watch, stacks + 2 * (GUARD + WATCHER_STACK), CLONE_VM | SIGCHLD, NULL);
	return 0;
}

void errfile_watch_start(void)
{
	const char *file = getenv("TORCHELASTIC_ERROR_FILE");
	sigset_t all, old;
	pid_t middle;

	if (!file || file[0] != '/')
		return;
	/* Not fork(): copying the shim's page tables, twice, cost a task
	 * milliseconds (docs/performance.md). The watcher shares the shim's
	 * memory instead, which the exec leaves to it. Never freed: the
	 * watcher keeps using it. */
	stacks = mmap(NULL, 2 * (GUARD + WATCHER_STACK), PROT_READ | PROT_WRITE,
	              MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	args.program = getpid();
	args.path = strdup(file);
	if (stacks == MAP_FAILED || mprotect(stacks, GUARD, PROT_NONE) != 0 ||
	    mprotect(stacks + GUARD + WATCHER_STACK, GUARD, PROT_NONE) != 0 || !args.path ||
	    pipe2(args.gate, O_CLOEXEC) != 0)
		return; /* no report, as without @record */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	middle = clone(start_watcher, stacks + GUARD + WATCHER_STACK,
	               CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (middle > 0)
		while (waitpid(middle, NULL, 0) < 0 && errno == EINTR)
			;
	close(args.gate[0]); /* the write end stays open until the exec */
}
