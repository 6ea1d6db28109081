/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "taskns.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* slurmstepd's own namespace and the socket's two ends: [0] slurmstepd
 * reads, [1] the tasks write. Set before the tasks are forked, so each task
 * holds a copy. */
static struct stat stepd_ns;
static bool prepared;
static int sock[2] = {-1, -1};

static int ns_stat(struct stat *st)
{
	return stat("/proc/self/ns/mnt", st);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int taskns_prepare(void)
{
	if (prepared)
		return 0;
	if (ns_stat(&stepd_ns) != 0)
		return -1;
	/* Datagrams: each descriptor arrives alone, and a task that finds
	 * the queue full is told at once (EAGAIN) rather than waiting. */
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sock) != 0)
		return -1;
	prepared = true;
	return 0;
}

/* One datagram of one byte, with room for one descriptor. */
struct fd_msg {
	char byte;
	struct iovec iov;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg;
};

static void fd_msg_init(struct fd_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->byte = 'n';
	m->iov.iov_base = &m->byte;
	m->iov.iov_len = 1;
	m->msg.msg_iov = &m->iov;
	m->msg.msg_iovlen = 1;
	m->msg.msg_control = m->ctl.buf;
	m->msg.msg_controllen = sizeof(m->ctl.buf);
}

static int send_fd(int fd)
{
	struct fd_msg m;
	struct cmsghdr *c;

	fd_msg_init(&m);
	c = CMSG_FIRSTHDR(&m.msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock[1], &m.msg, MSG_DONTWAIT | MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int taskns_report(void)
{
	struct stat mine;
	int fd, rc;

	if (!prepared)
		return 0;
	if (ns_stat(&mine) != 0)
		return -1;
	if (same_file(&mine, &stepd_ns))
		return 0;
	fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = send_fd(fd);
	close(fd);
	return rc == 0 ? 1 : -1;
}

/* One descriptor from the socket: >= 0, or -1 when none is left. */
static int receive_fd(void)
{
	for (;;) {
		struct fd_msg m;
		struct cmsghdr *c;
		int fd = -1;
		ssize_t n;

		fd_msg_init(&m);
		n = recvmsg(sock[0], &m.msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		c = CMSG_FIRSTHDR(&m.msg);
		if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
		if (fd >= 0)
			return fd;
	}
}

/* Whether FD names a namespace already in FDS[0..N) or slurmstepd's own. */
static bool known(int fd, const int *fds, size_t n)
{
	struct stat st, other;

	if (fstat(fd, &st) != 0 || same_file(&st, &stepd_ns))
		return true;
	for (size_t i = 0; i < n; i++)
		if (fstat(fds[i], &other) == 0 && same_file(&st, &other))
			return true;
	return false;
}

size_t taskns_collect(int *fds, size_t max)
{
	size_t n = 0;
	int fd;

	if (!prepared)
		return 0;
	while ((fd = receive_fd()) >= 0) {
		if (n < max && !known(fd, fds, n))
			fds[n++] = fd;
		else
			close(fd);
	}
	close(sock[0]);
	close(sock[1]);
	sock[0] = sock[1] = -1;
	prepared = false;
	return n;
}
