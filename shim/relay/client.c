/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A waiting task's side of the launcher relay: connects to rank 0, retrying
 * while it does not answer, proves it is this step's task, checks that rank
 * 0 is the step's, and waits for the launcher's status. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "relay/handshake.h"
#include "relay/internal.h"
#include "relay/listener.h"

/* A socket bound to this node's address in the step (what rank 0 checks),
 * when it is one of ours, connected to SA; -1 if it cannot connect. */
static int connect_once(const struct sockaddr_in *sa, const struct dist_world *w)
{
	struct sockaddr_in me = {.sin_family = AF_INET};
	struct timeval limit = {RELAY_HANDSHAKE_S, 0};
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

int relay_client_wait(const struct relay_mac_module *macs, const struct relay_params *p,
                      const struct dist_world *w, unsigned timeout_s, struct dist_err *err)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(p->port)};
	struct timespec nap = {0, 200 * 1000 * 1000};
	time_t deadline = time(NULL) + timeout_s;
	struct relay_session s;
	char where[DIST_ADDR_MAX + 8];
	bool reached = false;
	int fd, rc, status;

	snprintf(where, sizeof(where), "%s:%u", w->master_addr, p->port);
	if (inet_pton(AF_INET, w->master_addr, &sa.sin_addr) != 1)
		return dist_err_set(err, "the launcher task's address '%s' is not IPv4",
		                    w->master_addr);
	/* Rank 0 not listening yet, or closing this connection for others
	 * (strangers' on a step's node): tried again until the deadline. */
	for (;;) {
		fd = connect_once(&sa, w);
		reached = reached || fd >= 0;
		rc = fd < 0 ? RELAY_UNANSWERED : relay_handshake(fd, macs, p->key, w->rank, &s);
		if (rc != RELAY_UNANSWERED || time(NULL) >= deadline)
			break;
		if (fd >= 0)
			close(fd);
		nanosleep(&nap, NULL);
	}
	if (rc == RELAY_UNANSWERED) {
		if (fd >= 0)
			close(fd);
		return reached ? dist_err_set(err,
		                              "the launcher task (rank 0) at %s took no connection "
		                              "of this task through the handshake within %u s",
		                              where, timeout_s)
		               : dist_err_set(
		                         err,
		                         "cannot reach the launcher task (rank 0) at %s within "
		                         "%u s",
		                         where, timeout_s);
	}
	if (rc) {
		close(fd);
		return dist_err_set(err,
		                    "refused the launcher relay at %s: it did not prove it is this "
		                    "step's rank 0 (another program holds the port?)",
		                    where);
	}
	status = relay_read_status(fd, macs, p->key, &s, RELAY_HEARTBEAT_S * RELAY_HEARTBEAT_MISSES,
	                           where, err);
	close(fd);
	return status;
}

int relay_wait(const struct relay_params *p, const struct dist_world *w, unsigned timeout_s,
               struct dist_err *err)
{
	const struct relay_mac_module *macs = relay_load_macs(err);

	if (!macs)
		return -1;
	relay_wait_through_signals();
	return relay_client_wait(macs, p, w, timeout_s, err);
}
