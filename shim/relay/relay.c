/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "relay/relay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/module.h"
#include "base/msg.h"
#include "dist_protocol.h"
#include "dist_slurmenv.h"
#include "node/netlocal.h"
#include "node/stepids.h"

/* How long rank 0 keeps answering peers after the launcher ended. */
#define LATE_PEER_GRACE_S 30
/* How long either side waits for the other's part of the handshake. */
#define HANDSHAKE_S 10
/* Rank 0 tells every waiting task it is alive this often; a waiting task
 * that hears nothing for HEARTBEAT_S * HEARTBEAT_MISSES gives up. */
#define HEARTBEAT_S      5
#define HEARTBEAT_MISSES 6
/* Connections being checked at once; more are closed at once. */
#define PENDING_MAX 32
/* Refusals rank 0 reports, so that a flood does not fill the log. */
#define REFUSALS_REPORTED 10

/* Rank 0 greets with MAGIC and its nonce; a peer answers with its rank, its
 * nonce and the PEER MAC; rank 0 acknowledges with the ACK MAC; then sends
 * MSG_ALIVE bytes and finally MSG_STATUS, the status and the STATUS MAC. */
static const uint8_t magic[4] = {'S', 'D', 'R', '1'};
#define GREETING_LEN (sizeof(magic) + DIST_RELAY_NONCE_LEN)
#define HELLO_LEN    (4 + DIST_RELAY_NONCE_LEN + DIST_RELAY_MAC_LEN)
#define MSG_ALIVE    'h'
#define MSG_STATUS   'S'

/* The signals a launcher may want from Slurm (srun --signal, scancel
 * --signal, the time limit's TERM). */
static const int relayed_sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT};
#define NSIGS (sizeof(relayed_sigs) / sizeof(relayed_sigs[0]))

static volatile sig_atomic_t child_started;
/* Signals that came before the child existed, one bit each. */
static volatile sig_atomic_t early_sigs;
static struct sigaction saved_actions[NSIGS];

/* OpenSSL's HMAC, from its module (base/module.h): loaded by the launcher form's
 * tasks only, before the relay starts. */
static const struct relay_mac_module *macs;

static int load_macs(struct dist_err *err)
{
	macs = module_get(MODULE_CRYPTO, err);
	return macs ? 0 : -1;
}

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

static int random_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		}
	}
	return 0;
}

int relay_listen_any(const struct dist_port_range *range, uint16_t first, uint16_t avoid,
                     struct relay_params *p, struct dist_err *err)
{
	if (random_bytes(p->key, sizeof(p->key)))
		return dist_err_set(err, "cannot draw a key for the launcher relay: %s",
		                    strerror(errno));
	p->have_key = true;
	p->listen_fd = netlocal_listen_any(range, first, avoid, &p->port);
	if (p->listen_fd < 0)
		return dist_err_set(err, "no free port for the launcher relay in %u-%u from %u on",
		                    range->lo, range->hi, first);
	return 0;
}

void relay_params_format(const struct relay_params *p, char text[RELAY_PARAMS_TEXT])
{
	char hex[DIST_RELAY_KEY_HEX];

	dist_relay_key_format(p->key, hex);
	snprintf(text, RELAY_PARAMS_TEXT, "%u %s", p->port, hex);
}

int relay_params_parse(const char *text, struct relay_params *p, struct dist_err *err)
{
	uint32_t port;
	char *end;

	if (dist_parse_u32_prefix(text, &port, &end) || port == 0 || port > 65535 || *end != ' ' ||
	    dist_relay_key_parse(end + 1, p->key))
		return dist_err_set(err, "rank 0 published a malformed launcher relay record");
	p->port = (uint16_t)port;
	p->have_key = true;
	return 0;
}

int relay_params_without_exchange(const struct dist_port_range *range, const struct dist_world *w,
                                  struct relay_params *p, struct dist_err *err)
{
	uint32_t jobid, stepid;

	if (!p->have_key) {
		if (dist_relay_key_parse(getenv(DIST_SHIM_ENV_RELAY_KEY), p->key))
			return dist_err_set(
			        err, "--dist-launcher without an exchange needs the key srun's "
			             "plugin gives the step (" DIST_SHIM_ENV_RELAY_KEY
			             "): launch with srun --dist-mode, or with --mpi=pmix or "
			             "--mpi=pmi2");
		p->have_key = true;
	}
	if (p->port)
		return 0;
	if (stepids_read(&jobid, &stepid, NULL))
		return dist_err_set(err,
		                    "no SLURM_JOB_ID and SLURM_STEP_ID for the launcher relay");
	p->port = dist_port_first_for(DIST_PORT_RELAY, range, jobid, stepid, 0);
	if (p->port == w->master_port)
		p->port = p->port < range->hi ? p->port + 1 : range->lo;
	if (w->rank == 0 && (p->listen_fd = netlocal_listen(p->port)) < 0)
		return dist_err_set(err,
		                    "port %u for the launcher relay is in use on this node and "
		                    "without an exchange the tasks cannot agree on another; "
		                    "launch with --mpi=pmix or --mpi=pmi2",
		                    p->port);
	return 0;
}

/* Exit status as a shell reports it: the code, or 128 + the signal. */
static int shell_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

/* Writes all of BUF to a non-blocking FD, for at most a second. */
static int send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	struct pollfd pfd = {.fd = fd, .events = POLLOUT};

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n < 0 && errno != EINTR && errno != EAGAIN) {
			return -1;
		} else if (n < 0 && errno == EAGAIN && poll(&pfd, 1, 1000) <= 0) {
			return -1;
		}
	}
	return 0;
}

/* One connection on rank 0's side. */
struct conn {
	int fd;
	uint32_t addr;  /* the peer's IPv4 address, network order */
	time_t expires; /* pending: when its hello is late */
	uint8_t n0[DIST_RELAY_NONCE_LEN], np[DIST_RELAY_NONCE_LEN];
	uint8_t hello[HELLO_LEN];
	size_t got;
};

struct relay {
	const struct relay_params *p;
	const struct dist_world *w;
	struct conn pending[PENDING_MAX];
	struct conn *peers; /* by rank; fd -1 until that rank proved itself */
	uint32_t npeers, nconnected;
	unsigned refusals;
};

static void refuse(struct relay *r, struct conn *c, const char *why)
{
	char addr[INET_ADDRSTRLEN] = "?";

	if (r->refusals++ < REFUSALS_REPORTED) {
		inet_ntop(AF_INET, &c->addr, addr, sizeof(addr));
		fprintf(stderr,
		        "dist-shim: warning: launcher relay: refused a connection from %s: %s\n",
		        addr, why);
	}
	close(c->fd);
	c->fd = -1;
}

static bool from_step_node(const struct relay *r, uint32_t addr)
{
	struct in_addr node;

	if (!r->w->nodes)
		return false;
	for (uint32_t i = 0; i < r->w->nnodes; i++)
		if (inet_pton(AF_INET, r->w->nodes[i].addr, &node) == 1 && node.s_addr == addr)
			return true;
	return false;
}

static void accept_one(struct relay *r)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd = accept4(r->p->listen_fd, (struct sockaddr *)&sa, &len,
	                 SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct conn *c = NULL;
	uint8_t greeting[GREETING_LEN];

	if (fd < 0)
		return;
	for (size_t i = 0; i < PENDING_MAX && !c; i++)
		if (r->pending[i].fd < 0)
			c = &r->pending[i];
	if (!c) {
		close(fd);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->addr = sa.sin_family == AF_INET ? sa.sin_addr.s_addr : 0;
	if (!from_step_node(r, c->addr)) {
		refuse(r, c, "not one of the step's nodes");
		return;
	}
	c->expires = time(NULL) + HANDSHAKE_S;
	memcpy(greeting, magic, sizeof(magic));
	if (random_bytes(c->n0, sizeof(c->n0))) {
		refuse(r, c, "no random nonce");
		return;
	}
	memcpy(greeting + sizeof(magic), c->n0, sizeof(c->n0));
	if (send_all(fd, greeting, sizeof(greeting)))
		refuse(r, c, "it does not read");
}

/* A complete hello: the rank it claims, proved by the key, not taken yet. */
static void check_hello(struct relay *r, struct conn *c)
{
	uint32_t rank = (uint32_t)c->hello[0] << 24 | (uint32_t)c->hello[1] << 16 |
	                (uint32_t)c->hello[2] << 8 | c->hello[3];
	uint8_t want[DIST_RELAY_MAC_LEN], ack[DIST_RELAY_MAC_LEN];

	memcpy(c->np, c->hello + 4, sizeof(c->np));
	macs->mac(r->p->key, DIST_RELAY_PEER, c->n0, c->np, rank, 0, want);
	if (!macs->equal(want, c->hello + 4 + DIST_RELAY_NONCE_LEN)) {
		refuse(r, c, "it does not have the step's key");
		return;
	}
	if (rank == 0 || rank > r->npeers || r->peers[rank - 1].fd >= 0) {
		refuse(r, c, "its rank is not a waiting task's or is taken");
		return;
	}
	macs->mac(r->p->key, DIST_RELAY_ACK, c->n0, c->np, rank, 0, ack);
	if (send_all(c->fd, ack, sizeof(ack))) {
		refuse(r, c, "it does not read");
		return;
	}
	r->peers[rank - 1] = *c;
	r->nconnected++;
	c->fd = -1;
}

static void read_hello(struct relay *r, struct conn *c)
{
	ssize_t n = recv(c->fd, c->hello + c->got, sizeof(c->hello) - c->got, MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		refuse(r, c, "it closed before proving who it is");
		return;
	}
	if (n > 0 && (c->got += (size_t)n) == sizeof(c->hello))
		check_hello(r, c);
}

/* Waits up to TIMEOUT_MS for connections and hellos, handling them. */
static void serve(struct relay *r, int timeout_ms)
{
	struct pollfd pfds[1 + PENDING_MAX];
	time_t now;
	int n;

	pfds[0].fd = r->p->listen_fd;
	pfds[0].events = POLLIN;
	for (size_t i = 0; i < PENDING_MAX; i++) {
		pfds[1 + i].fd = r->pending[i].fd;
		pfds[1 + i].events = POLLIN;
	}
	n = poll(pfds, 1 + PENDING_MAX, timeout_ms);
	now = time(NULL);
	for (size_t i = 0; n > 0 && i < PENDING_MAX; i++)
		if (r->pending[i].fd >= 0 && pfds[1 + i].revents)
			read_hello(r, &r->pending[i]);
	for (size_t i = 0; i < PENDING_MAX; i++)
		if (r->pending[i].fd >= 0 && now >= r->pending[i].expires)
			refuse(r, &r->pending[i], "it did not prove who it is in time");
	/* Accepted whatever the count: a pending connection left in the
	 * backlog would keep poll returning at once. */
	if (n > 0 && pfds[0].revents)
		accept_one(r);
}

static void heartbeat(struct relay *r, time_t *next)
{
	const uint8_t alive = MSG_ALIVE;

	if (time(NULL) < *next)
		return;
	*next = time(NULL) + HEARTBEAT_S;
	for (uint32_t i = 0; i < r->npeers; i++)
		if (r->peers[i].fd >= 0 && send_all(r->peers[i].fd, &alive, 1)) {
			close(r->peers[i].fd);
			r->peers[i].fd = -1;
		}
}

/* Serves peers until the child ends; returns its status. */
static int supervise(struct relay *r, pid_t child)
{
	time_t next_beat = 0;
	int status;

	for (;;) {
		pid_t done = waitpid(child, &status, WNOHANG);

		if (done == child)
			return shell_status(status);
		if (done < 0 && errno != EINTR)
			return 1;
		heartbeat(r, &next_beat);
		serve(r, 1000);
	}
}

/* Sends STATUS to every peer, waiting a while for those not yet connected. */
static void tell_peers(struct relay *r, int status)
{
	time_t deadline = time(NULL) + LATE_PEER_GRACE_S;
	uint8_t msg[2 + DIST_RELAY_MAC_LEN];

	while (r->nconnected < r->npeers && time(NULL) < deadline)
		serve(r, 200);
	msg[0] = MSG_STATUS;
	msg[1] = (uint8_t)status;
	for (uint32_t i = 0; i < r->npeers; i++) {
		struct conn *c = &r->peers[i];

		if (c->fd < 0)
			continue;
		macs->mac(r->p->key, DIST_RELAY_STATUS, c->n0, c->np, i + 1, msg[1], msg + 2);
		(void)send_all(c->fd, msg, sizeof(msg));
		close(c->fd);
	}
	for (size_t i = 0; i < PENDING_MAX; i++)
		if (r->pending[i].fd >= 0)
			close(r->pending[i].fd);
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

int relay_run_launcher(struct relay_params *p, const struct dist_world *w, const char *path,
                       char **argv, struct dist_err *err)
{
	struct relay r = {.p = p, .w = w, .npeers = w->size - 1};
	int status;
	pid_t pid;

	if (p->listen_fd < 0)
		return dist_err_set(err, "the launcher relay is not listening");
	if (load_macs(err))
		return -1;
	r.peers = calloc(r.npeers ? r.npeers : 1, sizeof(*r.peers));
	if (!r.peers)
		return dist_err_set(err, "out of memory");
	for (uint32_t i = 0; i < r.npeers; i++)
		r.peers[i].fd = -1;
	for (size_t i = 0; i < PENDING_MAX; i++)
		r.pending[i].fd = -1;
	pid = start_launcher(path, argv, err);
	if (pid < 0) {
		free(r.peers);
		return -1;
	}
	status = supervise(&r, pid);
	tell_peers(&r, status);
	close(p->listen_fd);
	p->listen_fd = -1;
	free(r.peers);
	return status;
}

/* Reads exactly LEN bytes, giving up after SECONDS one-second waits with
 * nothing: counted in waits, not by the clock, so that a suspended job
 * (scontrol suspend stops rank 0 and this task alike) does not find its
 * time up the moment it resumes. */
static int read_within(int fd, void *buf, size_t len, unsigned seconds)
{
	uint8_t *p = buf;
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	while (len > 0) {
		int ready = poll(&pfd, 1, 1000);
		ssize_t n;

		if (ready == 0 && seconds-- == 0)
			return -1;
		if (ready <= 0)
			continue;
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return -1;
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		}
	}
	return 0;
}

/* A socket bound to this node's address in the step (what rank 0 checks),
 * when it is one of ours, connected to SA; -1 if it cannot connect. */
static int connect_once(const struct sockaddr_in *sa, const struct dist_world *w)
{
	struct sockaddr_in me = {.sin_family = AF_INET};
	struct timeval limit = {HANDSHAKE_S, 0};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
	if (w->nodes && w->node_rank < w->nnodes &&
	    inet_pton(AF_INET, w->nodes[w->node_rank].addr, &me.sin_addr) == 1)
		(void)bind(fd, (struct sockaddr *)&me, sizeof(me));
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
		return fd;
	close(fd);
	return -1;
}

/* Rank 0 closed or did not greet: it may be busy with strangers; retried. */
#define HANDSHAKE_UNANSWERED (-2)

/* The handshake: rank 0 proves it has the key before this task believes
 * anything it says. */
static int handshake(int fd, const struct relay_params *p, uint32_t rank, uint8_t n0[],
                     uint8_t np[])
{
	uint8_t greeting[GREETING_LEN], hello[HELLO_LEN], ack[DIST_RELAY_MAC_LEN],
	        want[DIST_RELAY_MAC_LEN];

	if (read_within(fd, greeting, sizeof(greeting), HANDSHAKE_S) ||
	    memcmp(greeting, magic, sizeof(magic)) != 0 || random_bytes(np, DIST_RELAY_NONCE_LEN))
		return -1;
	memcpy(n0, greeting + sizeof(magic), DIST_RELAY_NONCE_LEN);
	for (int i = 0; i < 4; i++)
		hello[i] = (uint8_t)(rank >> (24 - 8 * i));
	memcpy(hello + 4, np, DIST_RELAY_NONCE_LEN);
	macs->mac(p->key, DIST_RELAY_PEER, n0, np, rank, 0, hello + 4 + DIST_RELAY_NONCE_LEN);
	if (send_all(fd, hello, sizeof(hello)) || read_within(fd, ack, sizeof(ack), HANDSHAKE_S))
		return -1;
	macs->mac(p->key, DIST_RELAY_ACK, n0, np, rank, 0, want);
	return macs->equal(ack, want) ? 0 : -1;
}

static void ignore_signal(int sig)
{
	(void)sig;
}

/* A waiting task has no program to pass a signal to: it goes on waiting
 * for the launcher's status (Slurm's SIGKILL still ends it). */
static void wait_through_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ignore_signal;
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(relayed_sigs[i], &sa, NULL);
}

/* After the handshake: heartbeats, then the status with its MAC. */
static int read_status(int fd, const struct relay_params *p, uint32_t rank, const uint8_t n0[],
                       const uint8_t np[], const char *where, struct dist_err *err)
{
	uint8_t kind, rest[1 + DIST_RELAY_MAC_LEN], want[DIST_RELAY_MAC_LEN];
	const unsigned silence = HEARTBEAT_S * HEARTBEAT_MISSES;

	for (;;) {
		if (read_within(fd, &kind, 1, silence))
			return dist_err_set(
			        err,
			        "the launcher task (rank 0) at %s went away or was silent "
			        "for %u s without reporting a status",
			        where, silence);
		if (kind == MSG_ALIVE)
			continue;
		if (kind != MSG_STATUS || read_within(fd, rest, sizeof(rest), HANDSHAKE_S))
			break;
		macs->mac(p->key, DIST_RELAY_STATUS, n0, np, rank, rest[0], want);
		if (!macs->equal(want, rest + 1))
			break;
		return rest[0];
	}
	return dist_err_set(err, "refused a status from %s that does not carry the step's key",
	                    where);
}

int relay_wait(const struct relay_params *p, const struct dist_world *w, unsigned timeout_s,
               struct dist_err *err)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(p->port)};
	struct timespec nap = {0, 200 * 1000 * 1000};
	time_t deadline = time(NULL) + timeout_s;
	uint8_t n0[DIST_RELAY_NONCE_LEN], np[DIST_RELAY_NONCE_LEN];
	char where[DIST_ADDR_MAX + 8];
	int fd, rc, status;

	snprintf(where, sizeof(where), "%s:%u", w->master_addr, p->port);
	if (load_macs(err))
		return -1;
	if (inet_pton(AF_INET, w->master_addr, &sa.sin_addr) != 1)
		return dist_err_set(err, "the launcher task's address '%s' is not IPv4",
		                    w->master_addr);
	wait_through_signals();
	for (;;) {
		fd = connect_once(&sa, w);
		rc = fd < 0 ? HANDSHAKE_UNANSWERED : handshake(fd, p, w->rank, n0, np);
		if (rc != HANDSHAKE_UNANSWERED || time(NULL) >= deadline)
			break;
		if (fd >= 0)
			close(fd);
		nanosleep(&nap, NULL);
	}
	if (fd < 0)
		return dist_err_set(err,
		                    "cannot reach the launcher task (rank 0) at %s within %u s",
		                    where, timeout_s);
	if (rc) {
		close(fd);
		return dist_err_set(err,
		                    "refused the launcher relay at %s: it did not prove it is this "
		                    "step's rank 0 (another program holds the port?)",
		                    where);
	}
	status = read_status(fd, p, w->rank, n0, np, where, err);
	close(fd);
	return status;
}
