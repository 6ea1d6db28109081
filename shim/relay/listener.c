/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "relay/listener.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/msg.h"

/* Refusals rank 0 reports, so that a flood does not fill the log. */
#define REFUSALS_REPORTED 10

int relay_listener_init(struct relay_listener *l, const struct relay_mac_module *macs,
                        const uint8_t *key, int listen_fd, const struct dist_world *w,
                        struct dist_err *err)
{
	memset(l, 0, sizeof(*l));
	l->macs = macs;
	l->key = key;
	l->listen_fd = listen_fd;
	l->w = w;
	l->npeers = w->size - 1;
	l->peers = calloc(l->npeers ? l->npeers : 1, sizeof(*l->peers));
	if (!l->peers)
		return dist_err_set(err, "out of memory");
	for (uint32_t i = 0; i < l->npeers; i++)
		l->peers[i].fd = -1;
	for (size_t i = 0; i < RELAY_PENDING_MAX; i++)
		l->pending[i].fd = -1;
	return 0;
}

void relay_listener_free(struct relay_listener *l)
{
	free(l->peers);
	l->peers = NULL;
}

static void refuse(struct relay_listener *l, struct relay_conn *c, const char *why)
{
	char addr[INET_ADDRSTRLEN] = "?";

	if (l->refusals++ < REFUSALS_REPORTED) {
		inet_ntop(AF_INET, &c->addr, addr, sizeof(addr));
		msg_warn("launcher relay: refused a connection from %s: %s", addr, why);
	}
	close(c->fd);
	c->fd = -1;
}

static bool from_step_node(const struct relay_listener *l, uint32_t addr)
{
	struct in_addr node;

	if (!l->w->nodes)
		return false;
	for (uint32_t i = 0; i < l->w->nnodes; i++)
		if (inet_pton(AF_INET, l->w->nodes[i].addr, &node) == 1 && node.s_addr == addr)
			return true;
	return false;
}

/* A free slot for a new connection: with none, the oldest connection still
 * unproven is closed for it. Refusing the newest instead let anyone on a
 * step's node keep the waiting tasks out with 32 idle connections (issue
 * 24); now they must open connections faster than the real peer answers. */
static struct relay_conn *free_slot(struct relay_listener *l)
{
	struct relay_conn *oldest = NULL;

	for (size_t i = 0; i < RELAY_PENDING_MAX; i++) {
		struct relay_conn *c = &l->pending[i];

		if (c->fd < 0)
			return c;
		if (!oldest || c->seq < oldest->seq)
			oldest = c;
	}
	refuse(l, oldest, "it had not proved who it is when newer connections came");
	return oldest;
}

static void accept_one(struct relay_listener *l)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd = accept4(l->listen_fd, (struct sockaddr *)&sa, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct relay_conn *c;
	uint8_t greeting[RELAY_GREETING_LEN];

	if (fd < 0)
		return;
	c = free_slot(l);
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->seq = l->accepted++;
	c->addr = sa.sin_family == AF_INET ? sa.sin_addr.s_addr : 0;
	if (!from_step_node(l, c->addr)) {
		refuse(l, c, "not one of the step's nodes");
		return;
	}
	c->expires = time(NULL) + RELAY_HANDSHAKE_S;
	if (relay_greeting(&c->s, greeting)) {
		refuse(l, c, "no random nonce");
		return;
	}
	if (relay_send_all(fd, greeting, sizeof(greeting)))
		refuse(l, c, "it does not read");
}

/* A complete hello: the rank it claims, proved by the key, not taken yet. */
static void check_hello(struct relay_listener *l, struct relay_conn *c)
{
	uint8_t ack[DIST_RELAY_MAC_LEN];
	uint32_t rank;

	if (relay_check_hello(l->macs, l->key, c->hello, &c->s)) {
		refuse(l, c, "it does not have the step's key");
		return;
	}
	rank = c->s.rank;
	if (rank == 0 || rank > l->npeers || l->peers[rank - 1].fd >= 0) {
		refuse(l, c, "its rank is not a waiting task's or is taken");
		return;
	}
	if (relay_ack(l->macs, l->key, &c->s, ack)) {
		refuse(l, c, "no MAC to answer it with (OpenSSL failed)");
		return;
	}
	if (relay_send_all(c->fd, ack, sizeof(ack))) {
		refuse(l, c, "it does not read");
		return;
	}
	l->peers[rank - 1] = *c;
	l->nconnected++;
	c->fd = -1;
}

static void read_hello(struct relay_listener *l, struct relay_conn *c)
{
	ssize_t n = recv(c->fd, c->hello + c->got, sizeof(c->hello) - c->got, MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		refuse(l, c, "it closed before proving who it is");
		return;
	}
	if (n > 0 && (c->got += (size_t)n) == sizeof(c->hello))
		check_hello(l, c);
}

void relay_listener_serve(struct relay_listener *l, int timeout_ms)
{
	struct pollfd pfds[1 + RELAY_PENDING_MAX];
	time_t now;
	int n;

	pfds[0].fd = l->listen_fd;
	pfds[0].events = POLLIN;
	for (size_t i = 0; i < RELAY_PENDING_MAX; i++) {
		pfds[1 + i].fd = l->pending[i].fd;
		pfds[1 + i].events = POLLIN;
	}
	n = poll(pfds, 1 + RELAY_PENDING_MAX, timeout_ms);
	now = time(NULL);
	for (size_t i = 0; n > 0 && i < RELAY_PENDING_MAX; i++)
		if (l->pending[i].fd >= 0 && pfds[1 + i].revents)
			read_hello(l, &l->pending[i]);
	for (size_t i = 0; i < RELAY_PENDING_MAX; i++)
		if (l->pending[i].fd >= 0 && now >= l->pending[i].expires)
			refuse(l, &l->pending[i], "it did not prove who it is in time");
	/* Accepted whatever the count: a pending connection left in the
	 * backlog would keep poll returning at once. */
	if (n > 0 && pfds[0].revents)
		accept_one(l);
}

void relay_listener_heartbeat(struct relay_listener *l, time_t *next)
{
	const uint8_t alive = RELAY_MSG_ALIVE;

	if (time(NULL) < *next)
		return;
	*next = time(NULL) + RELAY_HEARTBEAT_S;
	for (uint32_t i = 0; i < l->npeers; i++)
		if (l->peers[i].fd >= 0 && relay_send_all(l->peers[i].fd, &alive, 1)) {
			close(l->peers[i].fd);
			l->peers[i].fd = -1;
		}
}

void relay_listener_finish(struct relay_listener *l, int status, unsigned grace_s)
{
	time_t deadline = time(NULL) + grace_s;
	uint8_t msg[RELAY_STATUS_LEN];

	while (l->nconnected < l->npeers && time(NULL) < deadline)
		relay_listener_serve(l, 200);
	for (uint32_t i = 0; i < l->npeers; i++) {
		struct relay_conn *c = &l->peers[i];

		if (c->fd < 0)
			continue;
		if (relay_status_msg(l->macs, l->key, &c->s, (uint8_t)status, msg) == 0)
			(void)relay_send_all(c->fd, msg, sizeof(msg));
		close(c->fd);
		c->fd = -1;
	}
	for (size_t i = 0; i < RELAY_PENDING_MAX; i++)
		if (l->pending[i].fd >= 0) {
			close(l->pending[i].fd);
			l->pending[i].fd = -1;
		}
}
