/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rank 0's side of the launcher relay: the launcher as a child, the
 * signals Slurm sends the step, and the listener (listener.c) until the
 * launcher ends and every waiting task has its status. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "relay/internal.h"
#include "relay/listener.h"

/* How long rank 0 keeps answering peers after the launcher ended. */
#define LATE_PEER_GRACE_S 30

/* The signals a launcher may want from Slurm (srun --signal, scancel
 * --signal, the time limit's TERM). */
static const int relayed_sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT};
#define NSIGS (sizeof(relayed_sigs) / sizeof(relayed_sigs[0]))

static volatile sig_atomic_t child_started;
/* Signals that came before the child existed, one bit each. */
static volatile sig_atomic_t early_sigs;
static struct sigaction saved_actions[NSIGS];

static void note_signal(int sig)
{
	if (!child_started && sig < 31)
		early_sigs |= 1 << sig;
}

static void on_sigchld(int sig)
{
	(void)sig;
}

/* Catches the signals (no SA_RESTART: a poll returns at once) and SIGCHLD;
 * BLOCKED gets them all. */
static void catch_signals(sigset_t *blocked)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(blocked);
	sa.sa_handler = note_signal;
	for (size_t i = 0; i < NSIGS; i++) {
		sigaction(relayed_sigs[i], &sa, &saved_actions[i]);
		sigaddset(blocked, relayed_sigs[i]);
	}
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	sigaddset(blocked, SIGCHLD);
}

static void ignore_signal(int sig)
{
	(void)sig;
}

void relay_wait_through_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ignore_signal;
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(relayed_sigs[i], &sa, NULL);
}

/* Exit status as a shell reports it: the code, or 128 + the signal. */
static int shell_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

/* What Slurm's PMI2 (--mpi=pmi2) gives this task for its own wire-up: the
 * launcher is no client of the step's PMI, and left set the variables
 * reach every process it starts (through its daemons' srun too), where a
 * program reading PMI_RANK would take rank 0's. (PMIx's PMIX_RANK needs no
 * such care: Open MPI's daemons set their own for each process.) */
static void drop_task_pmi_vars(void)
{
	static const char *const names[] = {"PMI_FD", "PMI_JOBID", "PMI_RANK", "PMI_SIZE"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unsetenv(names[i]);
}

/* The child: the signal handling the shim had before, then the launcher.
 * A signal Slurm sent the step after the fork reached the child itself and
 * is delivered now, as to any program that has just started. */
static void exec_launcher(const char *path, char **argv, const sigset_t *old_mask)
{
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(relayed_sigs[i], &saved_actions[i], NULL);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, old_mask, NULL);
	drop_task_pmi_vars();
	execv(path, argv);
	_exit(errno == ENOENT ? 127 : 126);
}

/* Starts the launcher. Slurm signals every process of the step, the child
 * included, so the shim passes on only what came before the child existed:
 * each signal reaches the launcher once. */
static pid_t start_launcher(const char *path, char **argv, struct dist_err *err)
{
	sigset_t blocked, old_mask;
	pid_t pid;

	catch_signals(&blocked);
	sigprocmask(SIG_BLOCK, &blocked, &old_mask);
	pid = fork();
	if (pid == 0)
		exec_launcher(path, argv, &old_mask);
	if (pid < 0) {
		dist_err_set(err, "cannot start '%s': %s", path, strerror(errno));
	} else {
		child_started = 1;
		for (int sig = 1; sig < 31; sig++)
			if (early_sigs & (1 << sig))
				kill(pid, sig);
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return pid;
}

/* Serves peers until the child ends; returns its status. */
static int supervise(struct relay_listener *l, pid_t child)
{
	time_t next_beat = 0;
	int status;

	for (;;) {
		pid_t done = waitpid(child, &status, WNOHANG);

		if (done == child)
			return shell_status(status);
		if (done < 0 && errno != EINTR)
			return 1;
		relay_listener_heartbeat(l, &next_beat);
		relay_listener_serve(l, 1000);
	}
}

int relay_run_launcher(struct relay_params *p, const struct dist_world *w, const char *path,
                       char **argv, struct dist_err *err)
{
	const struct relay_mac_module *macs;
	struct relay_listener l;
	int status;
	pid_t pid;

	if (p->listen_fd < 0)
		return dist_err_set(err, "the launcher relay is not listening");
	macs = relay_load_macs(err);
	if (!macs || relay_listener_init(&l, macs, p->key, p->listen_fd, w, err))
		return -1;
	pid = start_launcher(path, argv, err);
	if (pid < 0) {
		relay_listener_free(&l);
		return -1;
	}
	status = supervise(&l, pid);
	relay_listener_finish(&l, status, LATE_PEER_GRACE_S);
	close(p->listen_fd);
	p->listen_fd = -1;
	relay_listener_free(&l);
	return status;
}
