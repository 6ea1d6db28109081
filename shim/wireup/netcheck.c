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
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "node/netlocal.h"

/* Connections held at once, at most, whatever the step: a node connects
 * once to each listener, so more are not the step's. */
#define HELD_MAX 256
/* At the descriptor limit with no reserve to accept and drop with: how
 * long the listener leaves its socket alone. */
#define BACKOFF_MS 100

struct netcheck_listener {
	int fd;
	uint16_t port;
	/* A pipe: a byte on it says the step's addresses are given; closing
	 * its write end stops the thread. */
	int stop[2];
	/* /dev/null, closed to accept and drop a connection when the process
	 * is out of descriptors, then opened again (-1 when it could not be). */
	int reserve;
	pthread_t thread;
	/* The step's nodes' addresses (host byte order), once given. */
	pthread_mutex_t lock;
	uint32_t *allowed;
	size_t nallowed;
	bool given;
	/* The thread's own: whether it accepts yet (the addresses are given),
	 * and how many it may hold. */
	bool accepting;
	size_t held_max;
	/* Accepted connections, until their other end closes (it closes first). */
	struct pollfd *fds;
	size_t nfds, cap;
};

static void drop_fd(struct netcheck_listener *l, size_t i)
{
	close(l->fds[i].fd);
	l->fds[i] = l->fds[--l->nfds];
}

static bool allowed(struct netcheck_listener *l, const struct sockaddr_in *sa, socklen_t len)
{
	bool yes = false;

	if (len < sizeof(*sa) || sa->sin_family != AF_INET)
		return false;
	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; i < l->nallowed && !yes; i++)
		yes = l->allowed[i] == ntohl(sa->sin_addr.s_addr);
	pthread_mutex_unlock(&l->lock);
	return yes;
}

/* Out of descriptors: the reserve makes room to take the connection off
 * the backlog and close it (else the socket stays readable and poll
 * returns at once, forever). 0 when done, -1 when the listener must back
 * off instead. */
static int drop_at_limit(struct netcheck_listener *l)
{
	int fd;

	if (l->reserve < 0)
		l->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (l->reserve < 0)
		return -1;
	close(l->reserve);
	fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0)
		close(fd);
	l->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? 0 : -1; /* another thread took the room: back off */
}

/* Takes one connection off the backlog: kept (until its other end closes)
 * when it comes from one of the step's nodes, else closed at once. Its
 * connect is complete either way: a check is not failed by closing it.
 * Returns -1 when the listener must back off. */
static int accept_one(struct netcheck_listener *l)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd = accept4(l->fd, (struct sockaddr *)&sa, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct pollfd *grown;

	if (fd < 0 && (errno == EMFILE || errno == ENFILE))
		return drop_at_limit(l);
	if (fd < 0)
		return errno == ENOBUFS || errno == ENOMEM ? -1 : 0;
	if (!allowed(l, &sa, len)) {
		close(fd);
		return 0;
	}
	if (l->nfds == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;

		grown = realloc(l->fds, (cap + 2) * sizeof(*grown));
		if (!grown) {
			close(fd);
			return -1;
		}
		l->fds = grown;
		l->cap = cap;
	}
	l->fds[l->nfds++] = (struct pollfd){.fd = fd, .events = POLLIN};
	return 0;
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

/* A byte on the stop pipe: the addresses are given (accept from now on);
 * its end: stop. Returns false to stop. */
static bool read_stop(struct netcheck_listener *l)
{
	char byte;
	ssize_t n = read(l->stop[0], &byte, 1);

	if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
		return false;
	pthread_mutex_lock(&l->lock);
	l->accepting = l->given;
	pthread_mutex_unlock(&l->lock);
	return true;
}

/* Accepts only once the step's addresses are given (connections wait in
 * the backlog until then, their connect complete), holds at most held_max,
 * and backs off when out of descriptors or memory: never a busy loop. */
static void *serve(void *arg)
{
	struct netcheck_listener *l = arg;
	struct pollfd *set = NULL;
	int timeout = -1;

	for (;;) {
		size_t n = l->nfds;
		struct pollfd *grown = realloc(set, (n + 2) * sizeof(*set));
		bool listening = l->accepting && timeout < 0 && n < l->held_max;
		int ready;

		if (!grown)
			break;
		set = grown;
		set[0] = (struct pollfd){.fd = l->stop[0], .events = POLLIN};
		set[1] = (struct pollfd){.fd = listening ? l->fd : -1, .events = POLLIN};
		memcpy(set + 2, l->fds, n * sizeof(*set));
		ready = poll(set, n + 2, timeout);
		timeout = -1;
		if (ready < 0 && errno != EINTR)
			break;
		if (ready <= 0)
			continue;
		if (set[0].revents && !read_stop(l))
			break;
		if (set[1].revents && accept_one(l) < 0)
			timeout = BACKOFF_MS;
		reap_closed(l, set + 2, n);
	}
	free(set);
	return NULL;
}

/* How many connections a listener holds at most: a quarter of the
 * descriptors this process may have (the check's own connections and the
 * program need the rest), HELD_MAX at most. */
static size_t held_max(void)
{
	struct rlimit lim;
	size_t n = HELD_MAX;

	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
	    lim.rlim_cur / 4 < n)
		n = (size_t)(lim.rlim_cur / 4);
	return n ? n : 1;
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
	l->held_max = held_max();
	l->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pthread_mutex_init(&l->lock, NULL);
	rc = pthread_create(&l->thread, NULL, serve, l);
	if (rc != 0) {
		close(l->stop[0]);
		close(l->stop[1]);
		close(fd);
		if (l->reserve >= 0)
			close(l->reserve);
		pthread_mutex_destroy(&l->lock);
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

void netcheck_listener_allow(struct netcheck_listener *l, const uint32_t *addrs, size_t n)
{
	const char byte = 1;
	uint32_t *copy;

	if (!l)
		return;
	copy = calloc(n ? n : 1, sizeof(*copy));
	if (copy && n)
		memcpy(copy, addrs, n * sizeof(*copy));
	pthread_mutex_lock(&l->lock);
	free(l->allowed);
	l->allowed = copy;
	l->nallowed = copy ? n : 0;
	l->given = true;
	pthread_mutex_unlock(&l->lock);
	while (write(l->stop[1], &byte, 1) < 0 && errno == EINTR)
		;
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
	if (l->reserve >= 0)
		close(l->reserve);
	pthread_mutex_destroy(&l->lock);
	free(l->allowed);
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
