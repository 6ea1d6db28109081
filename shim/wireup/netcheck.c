/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wireup/netcheck.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "node/netlocal.h"

struct netcheck_listener {
	int fd;
	uint16_t port;
	int stop[2]; /* a pipe: closing its write end stops the thread */
	pthread_t thread;
	/* Accepted connections, until their other end closes (it closes first). */
	struct pollfd *fds;
	size_t nfds, cap;
};

static void drop_fd(struct netcheck_listener *l, size_t i)
{
	close(l->fds[i].fd);
	l->fds[i] = l->fds[--l->nfds];
}

static void accept_one(struct netcheck_listener *l)
{
	int fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct pollfd *grown;

	if (fd < 0)
		return;
	if (l->nfds == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;

		grown = realloc(l->fds, (cap + 2) * sizeof(*grown));
		if (!grown) {
			close(fd);
			return;
		}
		l->fds = grown;
		l->cap = cap;
	}
	l->fds[l->nfds++] = (struct pollfd){.fd = fd, .events = POLLIN};
}

/* A connection whose other end is gone (EOF or error) is closed here. */
static void reap_closed(struct netcheck_listener *l, const struct pollfd *polled, size_t n)
{
	char buf[64];

	for (size_t i = n; i-- > 0;)
		if (polled[i].revents && read(polled[i].fd, buf, sizeof(buf)) <= 0)
			for (size_t j = 0; j < l->nfds; j++)
				if (l->fds[j].fd == polled[i].fd) {
					drop_fd(l, j);
					break;
				}
}

static void *serve(void *arg)
{
	struct netcheck_listener *l = arg;
	struct pollfd *set = NULL;

	for (;;) {
		size_t n = l->nfds;
		struct pollfd *grown = realloc(set, (n + 2) * sizeof(*set));

		if (!grown)
			break;
		set = grown;
		set[0] = (struct pollfd){.fd = l->stop[0], .events = POLLIN};
		set[1] = (struct pollfd){.fd = l->fd, .events = POLLIN};
		memcpy(set + 2, l->fds, n * sizeof(*set));
		if (poll(set, n + 2, -1) < 0 && errno != EINTR)
			break;
		if (set[0].revents)
			break;
		if (set[1].revents)
			accept_one(l);
		reap_closed(l, set + 2, n);
	}
	free(set);
	return NULL;
}

static int start(int fd, uint16_t port, struct netcheck_listener **out, struct dist_err *err)
{
	struct netcheck_listener *l = calloc(1, sizeof(*l));
	int rc;

	if (!l || pipe2(l->stop, O_CLOEXEC) != 0) {
		free(l);
		close(fd);
		return dist_err_set(err, "network check: %s", strerror(errno));
	}
	l->fd = fd;
	l->port = port;
	rc = pthread_create(&l->thread, NULL, serve, l);
	if (rc != 0) {
		close(l->stop[0]);
		close(l->stop[1]);
		close(fd);
		free(l);
		return dist_err_set(err, "network check: cannot start a thread: %s", strerror(rc));
	}
	*out = l;
	return 0;
}

int netcheck_listen(uint16_t port, struct netcheck_listener **out, struct dist_err *err)
{
	int fd = netlocal_listen(port);

	if (fd < 0)
		return dist_err_set(err, "network check: cannot listen on port %u: %s", port,
		                    strerror(errno));
	return start(fd, port, out, err);
}

int netcheck_listen_any(const struct dist_port_range *range, uint16_t first,
                        struct netcheck_listener **out, struct dist_err *err)
{
	uint16_t port;
	int fd = netlocal_listen_any(range, first, 0, &port);

	if (fd < 0)
		return dist_err_set(err, "network check: no free port in %u-%u from %u on",
		                    range->lo, range->hi, first);
	return start(fd, port, out, err);
}

uint16_t netcheck_listener_port(const struct netcheck_listener *l)
{
	return l->port;
}

void netcheck_listener_close(struct netcheck_listener *l)
{
	if (!l)
		return;
	close(l->stop[1]);
	pthread_join(l->thread, NULL);
	while (l->nfds)
		drop_fd(l, l->nfds - 1);
	close(l->fd);
	close(l->stop[0]);
	free(l->fds);
	free(l);
}

/* Starts a non-blocking connect from SRC; -1 with the path's error set. */
static int start_connect(uint32_t src, struct netcheck_path *p)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(p->port)};
	struct sockaddr_in from = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	to.sin_addr.s_addr = htonl(p->addr);
	from.sin_addr.s_addr = htonl(src);
	if (fd < 0 || (src && bind(fd, (struct sockaddr *)&from, sizeof(from)) != 0) ||
	    (connect(fd, (struct sockaddr *)&to, sizeof(to)) != 0 && errno != EINPROGRESS)) {
		p->error = errno;
		if (fd >= 0)
			close(fd);
		return -1;
	}
	p->error = EINPROGRESS;
	return fd;
}

static int ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? (int)ms : 0;
}

/* Settles every path still connecting: connected, failed, or timed out.
 * SET[i].fd is -1 for a path that is not (or no longer) connecting. */
static void wait_connects(struct pollfd *set, struct netcheck_path *paths, size_t n,
                          unsigned timeout_s)
{
	struct timespec deadline;
	size_t pending = 0;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_s;
	for (size_t i = 0; i < n; i++)
		pending += set[i].fd >= 0;
	while (pending > 0) {
		int ready = poll(set, n, ms_left(&deadline));

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			break;
		for (size_t i = 0; i < n; i++) {
			int soerr = 0;
			socklen_t len = sizeof(soerr);

			if (set[i].fd < 0 || !set[i].revents)
				continue;
			getsockopt(set[i].fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
			paths[i].error = soerr;
			set[i].fd = -1;
			pending--;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (paths[i].error == EINPROGRESS)
			paths[i].error = ETIMEDOUT;
}

void netcheck_connect(uint32_t src, struct netcheck_path *paths, size_t n, unsigned timeout_s)
{
	struct pollfd *set = calloc(n ? n : 1, sizeof(*set));
	int *fds = calloc(n ? n : 1, sizeof(*fds));

	for (size_t i = 0; set && fds && i < n; i++) {
		fds[i] = start_connect(src, &paths[i]);
		set[i] = (struct pollfd){.fd = fds[i], .events = POLLOUT};
	}
	if (set && fds)
		wait_connects(set, paths, n, timeout_s);
	else
		for (size_t i = 0; i < n; i++)
			paths[i].error = ENOMEM;
	/* This side closes first: the TIME_WAIT stays here, on a port the
	 * kernel chose, and never on the listener's. */
	for (size_t i = 0; set && fds && i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(set);
	free(fds);
}
