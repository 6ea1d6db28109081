#include "relay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long rank 0 keeps answering peers after the launcher ended. */
#define LATE_PEER_GRACE_S 30

static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

static void forward_signals(void)
{
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static int listen_on(uint16_t port, struct dist_err *err)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	if (fd < 0)
		return dist_err_set(err, "cannot open a socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 128) != 0) {
		dist_err_set(err, "cannot listen on port %u for the waiting tasks: %s", port,
		             strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Exit status as a shell reports it: the code, or 128 + the signal. */
static int shell_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

/* Accepts peers until the child ends; returns its status. */
static int supervise(int listen_fd, int *peers, uint32_t npeers, uint32_t *nconnected)
{
	struct pollfd pfd = {.fd = listen_fd, .events = POLLIN};
	int status;

	for (;;) {
		pid_t done = waitpid((pid_t)child_pid, &status, WNOHANG);

		if (done == (pid_t)child_pid)
			return shell_status(status);
		if (done < 0 && errno != EINTR)
			return 1;
		if (poll(&pfd, 1, 100) > 0 && *nconnected < npeers) {
			int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0)
				peers[(*nconnected)++] = fd;
		}
	}
}

/* Sends STATUS to every peer, waiting a while for those not yet connected. */
static void tell_peers(int listen_fd, int *peers, uint32_t npeers, uint32_t nconnected, int status)
{
	unsigned char byte = (unsigned char)status;
	time_t deadline = time(NULL) + LATE_PEER_GRACE_S;
	struct pollfd pfd = {.fd = listen_fd, .events = POLLIN};

	while (nconnected < npeers && time(NULL) < deadline)
		if (poll(&pfd, 1, 200) > 0) {
			int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0)
				peers[nconnected++] = fd;
		}
	for (uint32_t i = 0; i < nconnected; i++) {
		(void)!write(peers[i], &byte, 1);
		close(peers[i]);
	}
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

int relay_run_launcher(uint16_t port, uint32_t npeers, const char *path, char **argv,
                       struct dist_err *err)
{
	int listen_fd = listen_on(port, err), status;
	uint32_t nconnected = 0;
	int *peers;
	pid_t pid;

	if (listen_fd < 0)
		return -1;
	peers = calloc(npeers ? npeers : 1, sizeof(*peers));
	if (!peers) {
		close(listen_fd);
		return dist_err_set(err, "out of memory");
	}
	forward_signals();
	pid = fork();
	if (pid < 0) {
		free(peers);
		close(listen_fd);
		return dist_err_set(err, "cannot start '%s': %s", path, strerror(errno));
	}
	if (pid == 0) {
		drop_task_pmi_vars();
		execv(path, argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	status = supervise(listen_fd, peers, npeers, &nconnected);
	tell_peers(listen_fd, peers, npeers, nconnected, status);
	close(listen_fd);
	free(peers);
	return status;
}

static int connect_once(const struct sockaddr_in *sa)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

int relay_wait(const char *addr, uint16_t port, unsigned timeout_s, struct dist_err *err)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct timespec nap = {0, 200 * 1000 * 1000};
	time_t deadline = time(NULL) + timeout_s;
	unsigned char byte;
	ssize_t n;
	int fd;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return dist_err_set(err, "the launcher task's address '%s' is not IPv4", addr);
	while ((fd = connect_once(&sa)) < 0) {
		if (time(NULL) >= deadline)
			return dist_err_set(
			        err,
			        "cannot reach the launcher task (rank 0) at %s:%u within "
			        "%u s",
			        addr, port, timeout_s);
		nanosleep(&nap, NULL);
	}
	/* Unbounded on purpose: as long as the launcher runs. Rank 0's exit,
	 * however it happens, closes the connection. */
	do
		n = read(fd, &byte, 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n != 1)
		return dist_err_set(err,
		                    "the launcher task (rank 0) ended without reporting a status");
	return byte;
}
