/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for shim/wireup/exchange.c without a cluster: the exchange
 * runs through a fake transport (wireup/transport.h) that plays one task of
 * a step whose other tasks' records the test sets beforehand, and keeps
 * what this task puts. Each test looks at the step from one or more tasks'
 * side: what they put, what they read, and whether the program may start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dist_net.h"
#include "dist_record.h"
#include "dist_slurmenv.h"
#include "wireup/exchange.h"

#define KEY_NODE  "slurm-dist.node"
#define KEY_PORT  "slurm-dist.port"
#define MAX_NODES 4
#define MAX_TASKS 8
#define MAX_KV    16

struct kv {
	uint32_t rank;
	char key[64];
	char value[DIST_RECORD_MAX];
};

/* The fake step: its nodes in Slurm's order, this task's rank, what the
 * other tasks put (SEEDED) and what this task put (PUT). */
static struct {
	uint32_t nnodes, size, me;
	struct {
		uint32_t ntasks;
		uint32_t ranks[MAX_TASKS];
	} nodes[MAX_NODES];
	struct kv seeded[MAX_KV], put[MAX_KV];
	size_t nseeded, nput;
	unsigned commits, fences, gets, layouts;
	bool fence_fails;
} fake;

/* A step of NNODES nodes; NODES[i] lists node i's ranks ascending, 0 ending
 * each list after its first entry (rank 0 comes first where it is). */
static void fake_step(uint32_t nnodes, const uint32_t nodes[][MAX_TASKS + 1], uint32_t me)
{
	memset(&fake, 0, sizeof(fake));
	fake.nnodes = nnodes;
	fake.me = me;
	for (uint32_t i = 0; i < nnodes; i++) {
		uint32_t n = 0;

		while (n == 0 || (n < MAX_TASKS && nodes[i][n] != 0))
			n++;
		fake.nodes[i].ntasks = n;
		memcpy(fake.nodes[i].ranks, nodes[i], n * sizeof(uint32_t));
		fake.size += n;
	}
}

/* What RANK put under KEY, in place of what the test seeded before. */
static void seed(uint32_t rank, const char *key, const char *value)
{
	struct kv *e = NULL;

	for (size_t i = 0; !e && i < fake.nseeded; i++)
		if (fake.seeded[i].rank == rank && strcmp(fake.seeded[i].key, key) == 0)
			e = &fake.seeded[i];
	if (!e) {
		e = &fake.seeded[fake.nseeded++];
		assert_true(fake.nseeded <= MAX_KV);
	}
	e->rank = rank;
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->value, sizeof(e->value), "%s", value);
}

/* What this task put under KEY, or NULL. */
static const char *put_value(const char *key)
{
	for (size_t i = fake.nput; i-- > 0;)
		if (strcmp(fake.put[i].key, key) == 0)
			return fake.put[i].value;
	return NULL;
}

static int fake_init(const struct wireup_host *host, struct dist_world *w, struct dist_err *err)
{
	(void)host;
	(void)err;
	w->rank = fake.me;
	w->size = fake.size;
	w->nnodes = fake.nnodes;
	for (uint32_t i = 0; i < fake.nnodes; i++)
		for (uint32_t j = 0; j < fake.nodes[i].ntasks; j++)
			if (fake.nodes[i].ranks[j] == fake.me) {
				w->node_rank = i; /* Slurm's order, as PMIx and PMI2 number */
				w->local_rank = j;
				w->local_size = fake.nodes[i].ntasks;
			}
	return 0;
}

static int fake_put(const char *key, const char *value, struct dist_err *err)
{
	struct kv *e = &fake.put[fake.nput++];

	(void)err;
	assert_true(fake.nput <= MAX_KV);
	e->rank = fake.me;
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->value, sizeof(e->value), "%s", value);
	return 0;
}

static int fake_commit(struct dist_err *err)
{
	(void)err;
	fake.commits++;
	return 0;
}

static int fake_fence(unsigned timeout_s, struct dist_err *err)
{
	fake.fences++;
	if (fake.fence_fails)
		return dist_err_set(err, "fence timed out after %u s", timeout_s);
	return 0;
}

/* What the test seeded for RANK, else what this task put. */
static int fake_get(uint32_t rank, const char *key, unsigned timeout_s, char *buf, size_t len,
                    struct dist_err *err)
{
	(void)timeout_s;
	fake.gets++;
	for (size_t i = 0; i < fake.nseeded; i++)
		if (fake.seeded[i].rank == rank && strcmp(fake.seeded[i].key, key) == 0) {
			snprintf(buf, len, "%s", fake.seeded[i].value);
			return 0;
		}
	if (rank == fake.me && put_value(key)) {
		snprintf(buf, len, "%s", put_value(key));
		return 0;
	}
	return dist_err_set(err, "rank %u did not publish %s", rank, key);
}

static int fake_layout(const struct dist_world *w, struct wireup_node *nodes, uint32_t max,
                       uint32_t *count, struct dist_err *err)
{
	(void)w;
	fake.layouts++;
	if (fake.nnodes > max)
		return dist_err_set(err, "fake layout: %u nodes, room for %u", fake.nnodes, max);
	for (uint32_t i = 0; i < fake.nnodes; i++) {
		nodes[i].ntasks = fake.nodes[i].ntasks;
		nodes[i].ranks = malloc(nodes[i].ntasks * sizeof(uint32_t));
		assert_non_null(nodes[i].ranks);
		memcpy(nodes[i].ranks, fake.nodes[i].ranks, nodes[i].ntasks * sizeof(uint32_t));
	}
	*count = fake.nnodes;
	return 0;
}

static void fake_abort(const char *why)
{
	(void)why;
	fail_msg("the exchange itself never aborts");
}

static void fake_finalize(void)
{
}

static const struct wireup_transport fake_transport = {
        .name = "FAKE",
        .max_value = DIST_RECORD_MAX,
        .init = fake_init,
        .put = fake_put,
        .commit = fake_commit,
        .fence = fake_fence,
        .get = fake_get,
        .layout = fake_layout,
        .abort = fake_abort,
        .finalize = fake_finalize,
};

/* An "ok" node record: one address on eth0 (ADDR/24), GPUS, PORTS. */
static void seed_ok(uint32_t rank, const char *addr, uint32_t gpus, const char *ports)
{
	struct dist_node_record rec;
	struct dist_err err = {{0}};
	char text[DIST_RECORD_MAX];
	uint32_t ip;

	memset(&rec, 0, sizeof(rec));
	assert_int_equal(dist_ipv4_parse(addr, &ip), 0);
	dist_addr_list_add(&rec.addrs, "eth0", ip, 24);
	rec.gpus = gpus;
	snprintf(rec.ports, sizeof(rec.ports), "%s", ports);
	snprintf(rec.extra, sizeof(rec.extra), "-");
	assert_int_equal(dist_node_record_format(&rec, text, sizeof(text), &err), 0);
	seed(rank, KEY_NODE, text);
}

static struct wireup_request request(void)
{
	struct wireup_request req = {.timeout_s = 5};

	req.ports.lo = 45000;
	req.ports.hi = 45999;
	return req;
}

/* The outcome of one task's exchange; its world stays valid until done(). */
struct run {
	struct exchange *ex;
	struct dist_world w;
	struct dist_err err;
	enum wireup_result result;
};

static void run(struct run *r, const struct wireup_request *req, const char *local_failure)
{
	memset(r, 0, sizeof(*r));
	r->ex = exchange_create(&fake_transport, req);
	assert_non_null(r->ex);
	r->result = exchange_run(r->ex, local_failure, &r->w, &r->err);
}

static void done(struct run *r)
{
	exchange_free(r->ex);
	r->ex = NULL;
}

/* Runs this task's exchange, which must end in RESULT, ERR saying WANT. */
static void run_fails(const struct wireup_request *req, const char *local_failure,
                      enum wireup_result result, const char *want)
{
	struct run r;

	run(&r, req, local_failure);
	assert_int_equal(r.result, result);
	assert_string_equal(r.err.msg, want);
	done(&r);
}

/* Two nodes of two tasks, rank 0's node first in Slurm's order. */
static const uint32_t two_by_two[][MAX_TASKS + 1] = {{0, 1}, {2, 3}};

/* The usual step, seen from rank ME: two_by_two, both nodes ready
 * (10.0.0.1 and 10.0.0.2, 4 GPUs each, no task ports), rank 0's port 29500. */
static void usual_step(uint32_t me)
{
	fake_step(2, two_by_two, me);
	seed_ok(0, "10.0.0.1", 4, "-");
	seed_ok(2, "10.0.0.2", 4, "-");
	seed(0, KEY_PORT, "29500");
}

static void test_normal_case(void **state)
{
	struct wireup_request req = request();
	struct run r;

	(void)state;
	req.needs_nodes = true;
	usual_step(1);
	seed_ok(2, "10.0.0.2", 2, "-");
	run(&r, &req, NULL);
	assert_int_equal(r.result, WIREUP_OK);
	assert_string_equal(r.w.master_addr, "10.0.0.1");
	assert_int_equal(r.w.master_port, 29500);
	assert_int_equal(r.w.node_rank, 0);
	assert_int_equal(r.w.local_rank, 1);
	assert_non_null(r.w.nodes);
	assert_string_equal(r.w.nodes[0].addr, "10.0.0.1");
	assert_string_equal(r.w.nodes[1].addr, "10.0.0.2");
	assert_int_equal(r.w.nodes[0].ntasks, 2);
	assert_int_equal(r.w.nodes[1].gpus, 2);
	assert_int_equal(r.w.nodes[0].prefix, 24);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(r.w.ranks_by_node[i], i);
	assert_string_equal(r.w.node_extras[1], "-");
	assert_null(r.w.tasks);
	/* Neither rank 0 nor a node's first task: it puts nothing, fences once. */
	assert_int_equal(fake.nput, 0);
	assert_int_equal(fake.fences, 1);
	done(&r);
}

/* Without needs_nodes the world gets no tables, only the master. */
static void test_no_tables_unless_asked(void **state)
{
	struct wireup_request req = request();
	struct run r;

	(void)state;
	usual_step(3);
	run(&r, &req, NULL);
	assert_int_equal(r.result, WIREUP_OK);
	assert_string_equal(r.w.master_addr, "10.0.0.1");
	assert_int_equal(r.w.node_rank, 1);
	assert_null(r.w.nodes);
	assert_null(r.w.ranks_by_node);
	done(&r);
}

/* Rank 0 picks a free port from the range, puts it and its node record,
 * and reads the port back like every task. */
static void test_rank0_publishes_port(void **state)
{
	struct wireup_request req = request();
	struct dist_node_record rec;
	struct dist_err err = {{0}};
	uint32_t port;
	struct run r;

	(void)state;
	/* Rank 0's record is read in place of its own, whatever this host has. */
	usual_step(0);
	fake.nseeded--; /* usual_step seeds the port last: rank 0 publishes its own */
	run(&r, &req, NULL);
	assert_int_equal(r.result, WIREUP_OK);
	assert_non_null(put_value(KEY_PORT));
	assert_int_equal(dist_parse_u32(put_value(KEY_PORT), &port), 0);
	assert_true(port >= req.ports.lo &&
	            port <= req.ports.hi); /* not assert_in_range: deprecated in cmocka 2 (forky) */
	assert_int_equal(r.w.master_port, port);
	assert_string_equal(r.w.master_addr, "10.0.0.1");
	assert_non_null(put_value(KEY_NODE));
	assert_int_equal(dist_node_record_parse(put_value(KEY_NODE), &rec, &err), 0);
	assert_false(rec.failed);
	assert_string_equal(rec.ports, "-");
	done(&r);
}

/* The user's MASTER_PORT: rank 0 publishes none, nobody reads one. */
static void test_user_port(void **state)
{
	struct wireup_request req = request();
	struct run r;

	(void)state;
	req.user_master_port = "31000";
	req.user_master_addr = "192.0.2.7";
	usual_step(1);
	seed(0, KEY_PORT, "bogus"); /* not read */
	run(&r, &req, NULL);
	assert_int_equal(r.result, WIREUP_OK);
	assert_int_equal(r.w.master_port, 31000);
	assert_string_equal(r.w.master_addr, "192.0.2.7");
	done(&r);
}

/* The task table: each task's node address and the port its node's first
 * task picked for it. */
static void test_task_table(void **state)
{
	struct wireup_request req = request();
	struct run r;

	(void)state;
	req.needs_tasks = true;
	usual_step(3);
	seed_ok(0, "10.0.0.1", 4, "41000,41001");
	seed_ok(2, "10.0.0.2", 4, "42000,42001");
	run(&r, &req, NULL);
	assert_int_equal(r.result, WIREUP_OK);
	assert_non_null(r.w.tasks);
	assert_string_equal(r.w.tasks[0].addr, "10.0.0.1");
	assert_int_equal(r.w.tasks[0].port, 41000);
	assert_int_equal(r.w.tasks[1].port, 41001);
	assert_string_equal(r.w.tasks[3].addr, "10.0.0.2");
	assert_int_equal(r.w.tasks[3].port, 42001);
	done(&r);
}

/* A node record without a port for each of its node's tasks. */
static void test_task_ports_missing(void **state)
{
	struct wireup_request req = request();

	(void)state;
	req.needs_tasks = true;
	usual_step(1);
	seed_ok(0, "10.0.0.1", 4, "41000,41001");
	seed_ok(2, "10.0.0.2", 4, "42000");
	run_fails(&req, NULL, WIREUP_FAILED,
	          "rank 2 published no port for each of its node's 2 tasks");
}

/* Node 1's first task could not start: it says so in its record, every
 * other task learns it there with its words, and none starts. */
static void test_peer_failure(void **state)
{
	static const uint32_t others[] = {0, 1, 3};
	struct wireup_request req = request();

	(void)state;
	req.user_master_port = "29500"; /* rank 0 then picks no port of this host's */
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		usual_step(others[i]);
		seed(2, KEY_NODE, DIST_RECORD_FAILED "rank 2 on node-b: no GPU here");
		run_fails(&req, NULL, WIREUP_PEER_FAILED,
		          "not starting: rank 2 on node-b: no GPU here");
	}
}

/* The failing task itself: its record says why, naming it and its host;
 * it fails with its own words. */
static void test_local_failure_is_published(void **state)
{
	struct wireup_request req = request();
	char host[64] = "?", want[256];
	struct run r;

	(void)state;
	req.user_master_port = "29500";
	fake_step(2, two_by_two, 2);
	seed_ok(0, "10.0.0.1", 4, "-");
	run(&r, &req, "no GPU here");
	assert_int_equal(r.result, WIREUP_FAILED);
	assert_string_equal(r.err.msg, "no GPU here");
	assert_int_equal(fake.fences, 1); /* it still joined the fence */
	gethostname(host, sizeof(host) - 1);
	snprintf(want, sizeof(want), DIST_RECORD_FAILED "rank 2 on %s: no GPU here", host);
	assert_non_null(put_value(KEY_NODE));
	assert_string_equal(put_value(KEY_NODE), want);
	done(&r);
}

/* A node's other task that fails: covered when its node's first task
 * reported a failure, else it must end the step itself. */
static void test_local_failure_of_another_task(void **state)
{
	struct wireup_request req = request();

	(void)state;
	usual_step(3);
	seed(2, KEY_NODE, DIST_RECORD_FAILED "rank 2 on node-b: no GPU here");
	run_fails(&req, "no GPU here", WIREUP_FAILED, "no GPU here");
	assert_null(put_value(KEY_NODE));

	usual_step(3);
	run_fails(&req, "cannot open the step directory", WIREUP_FAILED_UNSHARED,
	          "cannot open the step directory");
}

/* A failure found before the fence (an invalid MASTER_PORT on rank 0)
 * goes into rank 0's record like one it was given. */
static void test_failure_before_fence(void **state)
{
	struct wireup_request req = request();
	struct dist_node_record rec;
	struct dist_err err = {{0}};
	struct run r;

	(void)state;
	req.user_master_port = "70000";
	fake_step(2, two_by_two, 0);
	run(&r, &req, NULL);
	assert_int_equal(r.result, WIREUP_FAILED);
	assert_string_equal(r.err.msg,
	                    "invalid MASTER_PORT '70000' in the environment: expected 1-65535");
	assert_null(put_value(KEY_PORT));
	assert_int_equal(dist_node_record_parse(put_value(KEY_NODE), &rec, &err), 0);
	assert_true(rec.failed);
	assert_non_null(strstr(rec.why, "rank 0 on "));
	done(&r);
}

static void test_malformed_port(void **state)
{
	static const char *const bad[] = {"bogus", "0", "65536", ""};
	struct wireup_request req = request();
	char want[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		usual_step(1);
		seed(0, KEY_PORT, bad[i]);
		snprintf(want, sizeof(want), "rank 0 published a malformed port '%s'", bad[i]);
		run_fails(&req, NULL, WIREUP_FAILED, want);
	}
}

static void test_malformed_node_record(void **state)
{
	struct wireup_request req = request();
	struct run r;

	(void)state;
	usual_step(1);
	seed(2, KEY_NODE, "garbage");
	run(&r, &req, NULL);
	assert_int_equal(r.result, WIREUP_FAILED);
	assert_non_null(strstr(r.err.msg, "rank 2 published a malformed node record ("));
	done(&r);
}

/* Slurm lists first a node without rank 0 (--distribution=arbitrary): the
 * step's order is by each node's first rank, so rank 0's node is node 0
 * for node ranks, the node table and the master alike. */
static void test_rank0_node_not_first(void **state)
{
	static const uint32_t arbitrary[][MAX_TASKS + 1] = {{1, 3}, {0, 2}};
	static const uint32_t by_node[] = {0, 2, 1, 3};
	static const uint32_t me[] = {3, 2};
	static const uint32_t node_rank[] = {1, 0};
	struct wireup_request req = request();
	struct run r;

	(void)state;
	req.needs_nodes = true;
	for (size_t i = 0; i < sizeof(me) / sizeof(me[0]); i++) {
		fake_step(2, arbitrary, me[i]);
		seed_ok(0, "10.0.0.2", 4, "-"); /* Slurm's second node */
		seed_ok(1, "10.0.0.1", 2, "-");
		seed(0, KEY_PORT, "29500");
		run(&r, &req, NULL);
		assert_int_equal(r.result, WIREUP_OK);
		assert_string_equal(r.w.master_addr, "10.0.0.2");
		assert_int_equal(r.w.node_rank, node_rank[i]);
		assert_string_equal(r.w.nodes[0].addr, "10.0.0.2");
		assert_int_equal(r.w.nodes[0].gpus, 4);
		assert_string_equal(r.w.nodes[1].addr, "10.0.0.1");
		for (uint32_t k = 0; k < 4; k++)
			assert_int_equal(r.w.ranks_by_node[k], by_node[k]);
		done(&r);
	}
}

/* A layout without rank 0 is the transport's fault: nobody starts. */
static void test_layout_without_rank0(void **state)
{
	static const uint32_t broken[][MAX_TASKS + 1] = {{1}, {2, 3}};
	struct wireup_request req = request();

	(void)state;
	fake_step(2, broken, 1);
	fake.size = 4; /* rank 0 exists, on no node */
	seed_ok(1, "10.0.0.1", 4, "-");
	seed_ok(2, "10.0.0.2", 4, "-");
	run_fails(&req, NULL, WIREUP_FAILED, "FAKE does not list rank 0's node");
}

static void test_fence_fails(void **state)
{
	struct wireup_request req = request();

	(void)state;
	usual_step(1);
	fake.fence_fails = true;
	run_fails(&req, NULL, WIREUP_TIMED_OUT, "fence timed out after 5 s");
	assert_int_equal(fake.gets, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_normal_case),
	        cmocka_unit_test(test_no_tables_unless_asked),
	        cmocka_unit_test(test_rank0_publishes_port),
	        cmocka_unit_test(test_user_port),
	        cmocka_unit_test(test_task_table),
	        cmocka_unit_test(test_task_ports_missing),
	        cmocka_unit_test(test_peer_failure),
	        cmocka_unit_test(test_local_failure_is_published),
	        cmocka_unit_test(test_local_failure_of_another_task),
	        cmocka_unit_test(test_failure_before_fence),
	        cmocka_unit_test(test_malformed_port),
	        cmocka_unit_test(test_malformed_node_record),
	        cmocka_unit_test(test_rank0_node_not_first),
	        cmocka_unit_test(test_layout_without_rank0),
	        cmocka_unit_test(test_fence_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
