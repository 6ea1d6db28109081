/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for shim/wireup/netcheck.c's listener (--dist-check=net): it
 * serves the step's nodes' addresses only, closes any other connection at
 * once, and out of descriptors (a low RLIMIT_NOFILE, many connections) it
 * neither spins nor stops serving. Loopback: 127.0.0.1 is the step's node,
 * 127.0.0.2 a stranger. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "wireup/netcheck.h"

#define NODE     0x7f000001u /* 127.0.0.1 */
#define STRANGER 0x7f000002u /* 127.0.0.2 */
#define FLOOD    100         /* connections of each kind at the low limit */

static struct netcheck_listener *start_listener(void)
{
	struct dist_port_range range = {.lo = 40000, .hi = 49999};
	struct netcheck_listener *l = NULL;
	struct dist_err err = {{0}};
	const uint32_t node = NODE;

	assert_int_equal(netcheck_listen_any(&range, (uint16_t)(40000 + getpid() % 9000), &l, &err),
	                 0);
	netcheck_listener_allow(l, &node, 1);
	return l;
}

/* A connection from SRC to the listener; non-blocking when WAIT is false
 * (the connect may still be under way). */
static int connect_from(uint32_t src, uint16_t port, bool wait)
{
	struct sockaddr_in from = {.sin_family = AF_INET}, to = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (wait ? 0 : SOCK_NONBLOCK), 0);

	from.sin_addr.s_addr = htonl(src);
	to.sin_addr.s_addr = htonl(NODE);
	to.sin_port = htons(port);
	if (fd < 0 || bind(fd, (struct sockaddr *)&from, sizeof(from)) != 0 ||
	    (connect(fd, (struct sockaddr *)&to, sizeof(to)) != 0 && errno != EINPROGRESS)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Whether the listener closed FD's connection within MS: a refusal. */
static bool closed_within(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char byte;

	return poll(&p, 1, ms) == 1 && read(fd, &byte, 1) <= 0;
}

/* One connection from the step's node is held, a stranger's closed. */
static void expect_served_and_refused(uint16_t port)
{
	int node = connect_from(NODE, port, true), stranger = connect_from(STRANGER, port, true);

	assert_true(node >= 0);
	assert_true(stranger >= 0);
	assert_true(closed_within(stranger, 2000));
	assert_false(closed_within(node, 300));
	close(node);
	close(stranger);
}

static void test_serves_step_nodes_only(void **state)
{
	struct netcheck_listener *l = start_listener();

	(void)state;
	expect_served_and_refused(netcheck_listener_port(l));
	netcheck_listener_close(l);
}

/* Before the step's addresses are given nobody is accepted: a connection
 * waits (its connect complete), then is served once they are. */
static void test_waits_for_addresses(void **state)
{
	struct dist_port_range range = {.lo = 40000, .hi = 49999};
	struct netcheck_listener *l = NULL;
	struct dist_err err = {{0}};
	const uint32_t node = NODE;
	int fd;

	(void)state;
	assert_int_equal(netcheck_listen_any(&range, (uint16_t)(45000 + getpid() % 4000), &l, &err),
	                 0);
	fd = connect_from(NODE, netcheck_listener_port(l), true);
	assert_true(fd >= 0);
	assert_false(closed_within(fd, 200));
	netcheck_listener_allow(l, &node, 1);
	assert_false(closed_within(fd, 200));
	close(fd);
	netcheck_listener_close(l);
}

static double cpu_seconds(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* Another process opens FLOOD connections from a stranger and FLOOD from
 * the step's node, and keeps them 2 s. */
static pid_t flood(uint16_t port)
{
	pid_t pid = fork();
	struct rlimit lim;

	if (pid != 0)
		return pid;
	getrlimit(RLIMIT_NOFILE, &lim);
	lim.rlim_cur = lim.rlim_max;
	setrlimit(RLIMIT_NOFILE, &lim);
	for (int i = 0; i < FLOOD; i++) {
		connect_from(STRANGER, port, false);
		connect_from(NODE, port, false);
	}
	sleep(2);
	_exit(0);
}

/* At the descriptor limit, flooded: no busy loop (under 0.5 s of CPU in
 * 2 s; a listener spinning on EMFILE takes all 2), and afterwards the
 * step's node is still served and a stranger still refused. */
static void test_no_spin_at_fd_limit(void **state)
{
	struct netcheck_listener *l = start_listener();
	uint16_t port = netcheck_listener_port(l);
	struct rlimit saved, low;
	int fillers[64], nfillers = 0, status;
	const struct timespec two_s = {.tv_sec = 2, .tv_nsec = 0};
	double cpu;
	pid_t pid;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
	low = saved;
	low.rlim_cur = 64;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	/* Every descriptor taken: each accept fails with EMFILE. */
	while (nfillers < 64 && (fillers[nfillers] = open("/dev/null", O_RDONLY)) >= 0)
		nfillers++;
	assert_int_equal(errno, EMFILE);
	cpu = cpu_seconds();
	pid = flood(port);
	assert_true(pid > 0);
	nanosleep(&two_s, NULL);
	cpu = cpu_seconds() - cpu;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	while (nfillers > 0)
		close(fillers[--nfillers]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
	print_message("listener CPU over 2 s at the fd limit: %.3f s\n", cpu);
	assert_true(cpu < 0.5);
	expect_served_and_refused(port);
	netcheck_listener_close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_serves_step_nodes_only),
	        cmocka_unit_test(test_waits_for_addresses),
	        cmocka_unit_test(test_no_spin_at_fd_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
