/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "relay/handshake.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

static const uint8_t magic[RELAY_MAGIC_LEN] = {'S', 'D', 'R', '1'};

int relay_random(void *buf, size_t len)
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

int relay_send_all(int fd, const void *buf, size_t len)
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

int relay_read_within(int fd, void *buf, size_t len, unsigned seconds)
{
	uint8_t *p = buf;
	size_t got = 0;
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	while (got < len) {
		int ready = poll(&pfd, 1, 1000);
		ssize_t n;

		if (ready == 0 && seconds-- == 0)
			break;
		if (ready <= 0)
			continue;
		n = recv(fd, p + got, len - got, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			break;
		if (n > 0)
			got += (size_t)n;
	}
	if (got == len)
		return 0;
	return got == 0 ? RELAY_UNANSWERED : RELAY_REFUSED;
}

int relay_greeting(struct relay_session *s, uint8_t greeting[RELAY_GREETING_LEN])
{
	memset(s, 0, sizeof(*s));
	if (relay_random(s->n0, sizeof(s->n0)))
		return -1;
	memcpy(greeting, magic, sizeof(magic));
	memcpy(greeting + sizeof(magic), s->n0, sizeof(s->n0));
	return 0;
}

int relay_check_hello(const struct relay_mac_module *macs, const uint8_t *key,
                      const uint8_t hello[RELAY_HELLO_LEN], struct relay_session *s)
{
	uint32_t rank = (uint32_t)hello[0] << 24 | (uint32_t)hello[1] << 16 |
	                (uint32_t)hello[2] << 8 | hello[3];
	uint8_t want[DIST_RELAY_MAC_LEN];

	if (macs->mac(key, DIST_RELAY_PEER, s->n0, hello + 4, rank, 0, want) ||
	    !macs->equal(want, hello + 4 + DIST_RELAY_NONCE_LEN))
		return -1;
	memcpy(s->np, hello + 4, sizeof(s->np));
	s->rank = rank;
	return 0;
}

int relay_ack(const struct relay_mac_module *macs, const uint8_t *key,
              const struct relay_session *s, uint8_t ack[DIST_RELAY_MAC_LEN])
{
	return macs->mac(key, DIST_RELAY_ACK, s->n0, s->np, s->rank, 0, ack);
}

int relay_status_msg(const struct relay_mac_module *macs, const uint8_t *key,
                     const struct relay_session *s, uint8_t status, uint8_t msg[RELAY_STATUS_LEN])
{
	msg[0] = RELAY_MSG_STATUS;
	msg[1] = status;
	return macs->mac(key, DIST_RELAY_STATUS, s->n0, s->np, s->rank, status, msg + 2);
}

enum relay_result relay_handshake(int fd, const struct relay_mac_module *macs, const uint8_t *key,
                                  uint32_t rank, struct relay_session *s)
{
	uint8_t greeting[RELAY_GREETING_LEN], hello[RELAY_HELLO_LEN], ack[DIST_RELAY_MAC_LEN],
	        want[DIST_RELAY_MAC_LEN];
	int rc;

	memset(s, 0, sizeof(*s));
	s->rank = rank;
	rc = relay_read_within(fd, greeting, sizeof(greeting), RELAY_HANDSHAKE_S);
	if (rc)
		return rc;
	if (memcmp(greeting, magic, sizeof(magic)) != 0 || relay_random(s->np, sizeof(s->np)))
		return RELAY_REFUSED;
	memcpy(s->n0, greeting + sizeof(magic), sizeof(s->n0));
	for (int i = 0; i < 4; i++)
		hello[i] = (uint8_t)(rank >> (24 - 8 * i));
	memcpy(hello + 4, s->np, sizeof(s->np));
	if (macs->mac(key, DIST_RELAY_PEER, s->n0, s->np, rank, 0,
	              hello + 4 + DIST_RELAY_NONCE_LEN))
		return RELAY_REFUSED;
	/* Rank 0 may have had to close this connection for a newer one before
	 * reading the hello (listener.c): no acknowledgement at all is
	 * "unanswered", a wrong or partial one a refusal. */
	if (relay_send_all(fd, hello, sizeof(hello)))
		return RELAY_UNANSWERED;
	rc = relay_read_within(fd, ack, sizeof(ack), RELAY_HANDSHAKE_S);
	if (rc)
		return rc;
	if (macs->mac(key, DIST_RELAY_ACK, s->n0, s->np, rank, 0, want))
		return RELAY_REFUSED;
	return macs->equal(ack, want) ? RELAY_OK : RELAY_REFUSED;
}

int relay_read_status(int fd, const struct relay_mac_module *macs, const uint8_t *key,
                      const struct relay_session *s, unsigned silence_s, const char *where,
                      struct dist_err *err)
{
	uint8_t kind, rest[1 + DIST_RELAY_MAC_LEN], want[DIST_RELAY_MAC_LEN];

	for (;;) {
		if (relay_read_within(fd, &kind, 1, silence_s))
			return dist_err_set(
			        err,
			        "the launcher task (rank 0) at %s went away or was silent "
			        "for %u s without reporting a status",
			        where, silence_s);
		if (kind == RELAY_MSG_ALIVE)
			continue;
		if (kind != RELAY_MSG_STATUS ||
		    relay_read_within(fd, rest, sizeof(rest), RELAY_HANDSHAKE_S))
			break;
		if (macs->mac(key, DIST_RELAY_STATUS, s->n0, s->np, s->rank, rest[0], want) ||
		    !macs->equal(want, rest + 1))
			break;
		return rest[0];
	}
	return dist_err_set(err, "refused a status from %s that does not carry the step's key",
	                    where);
}
