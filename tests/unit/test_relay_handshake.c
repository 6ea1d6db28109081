/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the launcher relay's protocol (shim/relay/handshake.c)
 * over a socketpair, with core's MACs (or a failing stand-in) in place of
 * the crypto module, and for rank 0's listener (shim/relay/listener.c) on
 * loopback: a good peer gets the status; a wrong key, a wrong nonce, an
 * all-zero MAC, a MAC that cannot be computed and a truncated message are
 * refused; strangers' idle connections do not keep the waiting task out
 * (issue 24); the relay key does not stay in the shim's environment. Run
 * a second time with an OPENSSL_CONF that loads only the null provider
 * ("no-provider"): no MAC, so nothing is accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "relay/handshake.h"
#include "relay/internal.h"
#include "relay/listener.h"

static const struct relay_mac_module real_macs = {"test", dist_relay_mac, dist_relay_mac_equal};

/* OpenSSL failing as it did with only the null provider: no MAC, and
 * (before issue 24) zeros in its place. */
static int failing_mac(const uint8_t key[DIST_RELAY_KEY_LEN], enum dist_relay_label label,
                       const uint8_t n0[DIST_RELAY_NONCE_LEN],
                       const uint8_t np[DIST_RELAY_NONCE_LEN], uint32_t rank, uint8_t status,
                       uint8_t mac[DIST_RELAY_MAC_LEN])
{
	(void)key, (void)label, (void)n0, (void)np, (void)rank, (void)status;
	memset(mac, 0, DIST_RELAY_MAC_LEN);
	return -1;
}

static const struct relay_mac_module failing_macs = {"test", failing_mac, dist_relay_mac_equal};

static const uint8_t key[DIST_RELAY_KEY_LEN] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const uint8_t other_key[DIST_RELAY_KEY_LEN] = {9, 8, 7};

/* What the fake rank 0 on the other end of the socketpair does. */
enum rank0_act {
	GOOD,
	ACK_WRONG_NONCE, /* an ack from another connection (other nonce) */
	ACK_ZEROS,
	ACK_TRUNCATED, /* half an ack, then closes */
	GREETING_TRUNCATED,
	CLOSE_AT_ONCE, /* closes before greeting: busy */
	STATUS_FORGED, /* a status other than the one its MAC is for */
	STATUS_TRUNCATED,
	IMPOSTOR, /* acks whatever the hello, with its own key */
};

struct rank0 {
	int fd;
	const struct relay_mac_module *macs;
	const uint8_t *key;
	enum rank0_act act;
	uint8_t status;
	int hello_rc; /* relay_check_hello's answer; 1 when it got no hello */
	uint32_t rank;
};

static void *rank0_side(void *arg)
{
	struct rank0 *r = arg;
	struct relay_session s;
	uint8_t greeting[RELAY_GREETING_LEN], hello[RELAY_HELLO_LEN], ack[DIST_RELAY_MAC_LEN];
	uint8_t msg[RELAY_STATUS_LEN];
	const uint8_t alive = RELAY_MSG_ALIVE;

	r->hello_rc = 1;
	if (r->act == CLOSE_AT_ONCE)
		goto out;
	assert_int_equal(relay_greeting(&s, greeting), 0);
	if (r->act == GREETING_TRUNCATED) {
		relay_send_all(r->fd, greeting, sizeof(greeting) / 2);
		goto out;
	}
	relay_send_all(r->fd, greeting, sizeof(greeting));
	if (relay_read_within(r->fd, hello, sizeof(hello), 5))
		goto out;
	r->hello_rc = relay_check_hello(r->macs, r->key, hello, &s);
	r->rank = s.rank;
	if (r->hello_rc && r->act != IMPOSTOR)
		goto out; /* rank 0 closes: refused */
	if (r->act == ACK_WRONG_NONCE) {
		struct relay_session other = s;

		other.n0[0] ^= 1;
		relay_ack(r->macs, r->key, &other, ack);
	} else if (relay_ack(r->macs, r->key, &s, ack)) {
		goto out;
	}
	if (r->act == ACK_ZEROS)
		memset(ack, 0, sizeof(ack));
	relay_send_all(r->fd, ack, r->act == ACK_TRUNCATED ? sizeof(ack) / 2 : sizeof(ack));
	if (r->act == ACK_TRUNCATED)
		goto out;
	relay_send_all(r->fd, &alive, 1);
	relay_send_all(r->fd, &alive, 1);
	relay_status_msg(r->macs, r->key, &s, r->status, msg);
	if (r->act == STATUS_FORGED)
		msg[1] ^= 1;
	relay_send_all(r->fd, msg, r->act == STATUS_TRUNCATED ? sizeof(msg) - 1 : sizeof(msg));
out:
	close(r->fd);
	return NULL;
}

/* A waiting task (rank 3, PEER_MACS and PEER_KEY) against a fake rank 0
 * doing R: the handshake's result and, after a good one, the status read
 * (or -1). */
static int talk(struct rank0 *r, const struct relay_mac_module *peer_macs, const uint8_t *peer_key,
                int *status)
{
	struct relay_session s;
	struct dist_err err = {{0}};
	pthread_t t;
	int fds[2], rc;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
	r->fd = fds[1];
	assert_int_equal(pthread_create(&t, NULL, rank0_side, r), 0);
	rc = relay_handshake(fds[0], peer_macs, peer_key, 3, &s);
	*status = -2;
	if (rc == RELAY_OK)
		*status = relay_read_status(fds[0], peer_macs, peer_key, &s, 5, "rank0", &err);
	shutdown(fds[0], SHUT_RDWR);
	assert_int_equal(pthread_join(t, NULL), 0);
	close(fds[0]);
	return rc;
}

static void test_good_peer_gets_status(void **state)
{
	struct rank0 r = {.macs = &real_macs, .key = key, .act = GOOD, .status = 7};
	int status;

	(void)state;
	assert_int_equal(talk(&r, &real_macs, key, &status), RELAY_OK);
	assert_int_equal(r.hello_rc, 0);
	assert_int_equal(r.rank, 3);
	assert_int_equal(status, 7);
	r.status = 0;
	assert_int_equal(talk(&r, &real_macs, key, &status), RELAY_OK);
	assert_int_equal(status, 0);
	r.status = 255;
	assert_int_equal(talk(&r, &real_macs, key, &status), RELAY_OK);
	assert_int_equal(status, 255);
}

/* Rank 0 refuses a peer without the key; a peer refuses a rank 0 without it. */
static void test_wrong_key_refused(void **state)
{
	struct rank0 r = {.macs = &real_macs, .key = key, .act = GOOD, .status = 0};
	int status;

	(void)state;
	assert_int_not_equal(talk(&r, &real_macs, other_key, &status), RELAY_OK);
	assert_int_equal(r.hello_rc, -1);
	r.key = other_key;
	r.act = IMPOSTOR;
	assert_int_equal(talk(&r, &real_macs, key, &status), RELAY_REFUSED);
	assert_int_equal(r.hello_rc, -1);
}

static void test_wrong_nonce_refused(void **state)
{
	struct rank0 r = {.macs = &real_macs, .key = key, .act = ACK_WRONG_NONCE};
	struct relay_session s = {.rank = 0};
	uint8_t hello[RELAY_HELLO_LEN] = {0, 0, 0, 3}, n0[DIST_RELAY_NONCE_LEN] = {5};
	int status;

	(void)state;
	assert_int_equal(talk(&r, &real_macs, key, &status), RELAY_REFUSED);
	/* A hello proved for another connection's nonce. */
	hello[4] = 9;
	assert_int_equal(dist_relay_mac(key, DIST_RELAY_PEER, n0, hello + 4, 3, 0, hello + 20), 0);
	memcpy(s.n0, n0, sizeof(n0));
	assert_int_equal(relay_check_hello(&real_macs, key, hello, &s), 0);
	s.n0[0] ^= 1;
	assert_int_equal(relay_check_hello(&real_macs, key, hello, &s), -1);
}

/* All-zero MACs, from a rank 0 or from a peer, with MACs that work and with
 * MACs that cannot be computed (issue 24: they were zeros, and matched). */
static void test_zero_mac_refused(void **state)
{
	struct rank0 r = {.macs = &real_macs, .key = key, .act = ACK_ZEROS};
	struct relay_session s = {.rank = 0};
	uint8_t hello[RELAY_HELLO_LEN] = {0, 0, 0, 3};
	int status;

	(void)state;
	assert_int_equal(talk(&r, &real_macs, key, &status), RELAY_REFUSED);
	assert_int_equal(relay_check_hello(&real_macs, key, hello, &s), -1);
	assert_int_equal(relay_check_hello(&failing_macs, key, hello, &s), -1);
	/* Neither side can compute a MAC: the peer sends no hello. */
	r.macs = &failing_macs;
	assert_int_equal(talk(&r, &failing_macs, key, &status), RELAY_REFUSED);
	assert_int_equal(r.hello_rc, 1);
}

/* A peer whose MACs fail refuses a rank 0 that acks with zeros. */
static void test_failing_mac_refuses_zero_ack(void **state)
{
	uint8_t greeting[RELAY_GREETING_LEN], hello[RELAY_HELLO_LEN],
	        zeros[DIST_RELAY_MAC_LEN] = {0};
	struct relay_session s0, s;
	int fds[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
	assert_int_equal(relay_greeting(&s0, greeting), 0);
	assert_int_equal(relay_send_all(fds[1], greeting, sizeof(greeting)), 0);
	assert_int_equal(relay_send_all(fds[1], zeros, sizeof(zeros)), 0);
	assert_int_equal(relay_handshake(fds[0], &failing_macs, key, 3, &s), RELAY_REFUSED);
	(void)hello;
	close(fds[0]);
	close(fds[1]);
}

static void test_truncated_refused(void **state)
{
	struct rank0 r = {.macs = &real_macs, .key = key, .act = ACK_TRUNCATED};
	int status;

	(void)state;
	assert_int_equal(talk(&r, &real_macs, key, &status), RELAY_REFUSED);
	r.act = GREETING_TRUNCATED;
	assert_int_equal(talk(&r, &real_macs, key, &status), RELAY_REFUSED);
	r.act = STATUS_TRUNCATED;
	assert_int_equal(talk(&r, &real_macs, key, &status), RELAY_OK);
	assert_int_equal(status, -1);
}

static void test_forged_status_refused(void **state)
{
	struct rank0 r = {.macs = &real_macs, .key = key, .act = STATUS_FORGED, .status = 1};
	int status;

	(void)state;
	assert_int_equal(talk(&r, &real_macs, key, &status), RELAY_OK);
	assert_int_equal(status, -1);
}

/* A rank 0 that closes before greeting (busy: issue 24) is "unanswered",
 * which the waiting task retries, not a refusal. */
static void test_closed_before_greeting_is_unanswered(void **state)
{
	struct rank0 r = {.macs = &real_macs, .key = key, .act = CLOSE_AT_ONCE};
	int status;

	(void)state;
	assert_int_equal(talk(&r, &real_macs, key, &status), RELAY_UNANSWERED);
}

/* Issue 24: a stranger on a step's node holds 40 idle connections to rank
 * 0's relay before the waiting task connects. Before: rank 0 checked 32 at
 * once and closed the 33rd at once, and the waiting task took that for a
 * refusal and failed. Now the oldest unproven connection makes way, and
 * the waiting task gets the launcher's status. */
static void test_idle_connections_do_not_keep_the_peer_out(void **state)
{
	struct dist_node node = {.addr = "127.0.0.1"};
	struct dist_world w0 = {.rank = 0, .size = 2, .nnodes = 1, .nodes = &node};
	struct dist_world w1 = w0;
	struct relay_params p = RELAY_PARAMS_INIT;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	struct dist_err err = {{0}};
	int idle[40], lfd, wstatus, status;
	pid_t pid;

	(void)state;
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 128), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
	for (size_t i = 0; i < 40; i++) {
		idle[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		assert_int_equal(connect(idle[i], (struct sockaddr *)&sa, sizeof(sa)), 0);
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct relay_listener l;

		if (relay_listener_init(&l, &real_macs, key, lfd, &w0, &err))
			_exit(3);
		relay_listener_finish(&l, 42, 20);
		_exit(l.nconnected == 1 ? 0 : 4);
	}
	close(lfd);
	/* The idle connections are first in rank 0's queue. */
	usleep(200 * 1000);
	w1.rank = 1;
	strcpy(w1.master_addr, "127.0.0.1");
	memcpy(p.key, key, sizeof(key));
	p.have_key = true;
	p.port = ntohs(sa.sin_port);
	/* Less than the 10 s rank 0 gives an unproven connection: the peer
	 * must get in at once, not once the strangers' time is up. */
	status = relay_client_wait(&real_macs, &p, &w1, 3, &err);
	if (status < 0)
		print_error("relay_client_wait: %s\n", err.msg);
	assert_int_equal(status, 42);
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	assert_true(WIFEXITED(wstatus));
	assert_int_equal(WEXITSTATUS(wstatus), 0);
	for (size_t i = 0; i < 40; i++)
		close(idle[i]);
}

/* Under OPENSSL_CONF with only the null provider: core's MAC says it
 * failed, and neither side accepts a peer that sends zeros. */
static void test_no_provider_nothing_accepted(void **state)
{
	struct rank0 r = {.macs = &real_macs, .key = key, .act = ACK_ZEROS};
	struct relay_session s = {.rank = 0};
	uint8_t hello[RELAY_HELLO_LEN] = {0, 0, 0, 3}, mac[DIST_RELAY_MAC_LEN];
	int status;

	(void)state;
	assert_int_equal(dist_relay_mac(key, DIST_RELAY_PEER, s.n0, s.np, 3, 0, mac), -1);
	assert_int_equal(relay_check_hello(&real_macs, key, hello, &s), -1);
	assert_int_equal(talk(&r, &real_macs, key, &status), RELAY_REFUSED);
	assert_int_equal(r.hello_rc, 1);
	/* A rank 0 that sends zeros for the ack. */
	test_failing_mac_refuses_zero_ack(state);
}

/* Issue 24: the key srun's plugin gave the task is overwritten where it
 * lies, not only unset: /proc/PID/environ shows that memory to the
 * launcher's processes for as long as the shim lives. */
static void test_env_key_overwritten(void **state)
{
	static const char hex[] = "000102030405060708090a0b0c0d0e0f"
	                          "101112131415161718191a1b1c1d1e1f";
	struct dist_node node = {.addr = "127.0.0.1"};
	struct dist_world w = {.rank = 1, .size = 2, .nnodes = 1, .nodes = &node};
	struct dist_port_range range = {24000, 24999};
	struct relay_params p = RELAY_PARAMS_INIT;
	struct dist_err err = {{0}};
	char *value;

	(void)state;
	assert_int_equal(setenv("SLURM_DIST_RELAY_KEY", hex, 1), 0);
	assert_int_equal(setenv("SLURM_JOB_ID", "7", 1), 0);
	assert_int_equal(setenv("SLURM_STEP_ID", "0", 1), 0);
	value = getenv("SLURM_DIST_RELAY_KEY");
	assert_int_equal(relay_params_without_exchange(&range, &w, &p, &err), 0);
	assert_true(p.have_key);
	assert_int_equal(p.key[31], 0x1f);
	assert_null(getenv("SLURM_DIST_RELAY_KEY"));
	for (size_t i = 0; i < sizeof(hex) - 1; i++)
		assert_int_equal(value[i], 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_good_peer_gets_status),
	        cmocka_unit_test(test_wrong_key_refused),
	        cmocka_unit_test(test_wrong_nonce_refused),
	        cmocka_unit_test(test_zero_mac_refused),
	        cmocka_unit_test(test_failing_mac_refuses_zero_ack),
	        cmocka_unit_test(test_truncated_refused),
	        cmocka_unit_test(test_forged_status_refused),
	        cmocka_unit_test(test_closed_before_greeting_is_unanswered),
	        cmocka_unit_test(test_idle_connections_do_not_keep_the_peer_out),
	        cmocka_unit_test(test_env_key_overwritten),
	};
	const struct CMUnitTest no_provider[] = {
	        cmocka_unit_test(test_no_provider_nothing_accepted),
	};

	if (argc > 1 && strcmp(argv[1], "no-provider") == 0)
		return cmocka_run_group_tests(no_provider, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
