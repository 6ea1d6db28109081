/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for shim/wireup/shared.c: a node's first task reads the
 * exchange through the transport once; the node's other tasks replay it
 * and ask the transport nothing it already answered. The transport here is
 * a fake that counts what it is asked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wireup/shared.h"

/* The fake step: NODES nodes of TASKS tasks, ranks node after node. */
static struct {
	uint32_t nodes, tasks;
	uint32_t layouts, gets; /* calls so far */
	uint32_t missing_rank;  /* get of this rank fails; UINT32_MAX: none */
	bool layout_fails;
} fake;

static void fake_step(uint32_t nodes, uint32_t tasks)
{
	memset(&fake, 0, sizeof(fake));
	fake.nodes = nodes;
	fake.tasks = tasks;
	fake.missing_rank = UINT32_MAX;
}

static int fake_layout(const struct dist_world *w, struct wireup_node *nodes, uint32_t max,
                       uint32_t *count, struct dist_err *err)
{
	(void)w;
	fake.layouts++;
	if (fake.layout_fails || fake.nodes > max)
		return dist_err_set(err, "fake layout failed");
	for (uint32_t i = 0; i < fake.nodes; i++) {
		nodes[i].ntasks = fake.tasks;
		nodes[i].ranks = malloc(fake.tasks * sizeof(uint32_t));
		for (uint32_t j = 0; j < fake.tasks; j++)
			nodes[i].ranks[j] = i * fake.tasks + j;
	}
	*count = fake.nodes;
	return 0;
}

/* What rank RANK put under KEY: spaces and a newline in it, as a record may hold. */
static void fake_value(uint32_t rank, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "ok %s of rank %u\nsecond line", key, rank);
}

static int fake_get(uint32_t rank, const char *key, unsigned timeout_s, char *buf, size_t len,
                    struct dist_err *err)
{
	(void)timeout_s;
	fake.gets++;
	if (rank == fake.missing_rank)
		return dist_err_set(err, "rank %u did not publish %s", rank, key);
	fake_value(rank, key, buf, len);
	return 0;
}

static const struct wireup_transport fake_transport = {
        .name = "FAKE", .max_value = 1024, .layout = fake_layout, .get = fake_get};

static void free_nodes(struct wireup_node *nodes, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++)
		free(nodes[i].ranks);
}

/* Reads the exchange as wireup/exchange.c does: the layout, then each
 * node's record from its first rank, then rank 0's port. */
static void read_all(const struct wireup_transport *t, uint32_t max)
{
	struct wireup_node *nodes = calloc(max, sizeof(*nodes));
	struct dist_err err = {{0}};
	char buf[256], want[256];
	uint32_t count = 0;

	assert_int_equal(t->layout(NULL, nodes, max, &count, &err), 0);
	assert_int_equal(count, fake.nodes);
	for (uint32_t i = 0; i < count; i++) {
		assert_int_equal(nodes[i].ntasks, fake.tasks);
		assert_int_equal(nodes[i].ranks[fake.tasks - 1], i * fake.tasks + fake.tasks - 1);
		assert_int_equal(
		        t->get(nodes[i].ranks[0], "slurm-dist.node", 5, buf, sizeof(buf), &err), 0);
		fake_value(nodes[i].ranks[0], "slurm-dist.node", want, sizeof(want));
		assert_string_equal(buf, want);
	}
	assert_int_equal(t->get(0, "slurm-dist.port", 5, buf, sizeof(buf), &err), 0);
	fake_value(0, "slurm-dist.port", want, sizeof(want));
	assert_string_equal(buf, want);
	free_nodes(nodes, count);
	free(nodes);
}

/* What was kept, as the node's other tasks get it; the keeping ends. */
static char *kept_text(void)
{
	char *text = wireup_shared_text();

	assert_non_null(text);
	wireup_shared_clear();
	return text;
}

/* Records a read of the whole exchange; returns the text left for the node. */
static char *record_all(uint32_t max)
{
	read_all(wireup_shared_record(&fake_transport), max);
	return kept_text();
}

/* A node's other task's view of TEXT, counted from here on. */
static const struct wireup_transport *replay(const char *text)
{
	struct dist_err err = {{0}};
	const struct wireup_transport *t;

	fake.layouts = fake.gets = 0;
	t = wireup_shared_replay(&fake_transport, text, &err);
	assert_non_null(t);
	return t;
}

static void test_replay_asks_the_transport_nothing(void **state)
{
	const struct wireup_transport *t;
	char *text;

	(void)state;
	fake_step(3, 24);
	text = record_all(3);
	assert_int_equal(fake.layouts, 1);
	assert_int_equal(fake.gets, 4);
	t = replay(text);
	assert_string_equal(t->name, "FAKE");
	read_all(t, 3);
	assert_int_equal(fake.layouts, 0);
	assert_int_equal(fake.gets, 0);
	wireup_shared_clear();
	free(text);
}

static void test_replay_asks_for_what_was_not_kept(void **state)
{
	struct dist_err err = {{0}};
	const struct wireup_transport *t;
	char buf[128], want[128];
	char *text;

	(void)state;
	fake_step(2, 2);
	text = record_all(2);
	t = replay(text);
	assert_int_equal(t->get(1, "slurm-dist.relay", 5, buf, sizeof(buf), &err), 0);
	fake_value(1, "slurm-dist.relay", want, sizeof(want));
	assert_string_equal(buf, want);
	assert_int_equal(fake.gets, 1);
	wireup_shared_clear();
	free(text);
}

/* A get that failed is not kept: the others ask, and fail alike. */
static void test_failed_get_is_asked_again(void **state)
{
	const struct wireup_transport *t;
	struct dist_err err = {{0}};
	char buf[128];
	char *text;

	(void)state;
	fake_step(2, 2);
	fake.missing_rank = 2;
	t = wireup_shared_record(&fake_transport);
	assert_int_not_equal(t->get(2, "slurm-dist.node", 5, buf, sizeof(buf), &err), 0);
	assert_int_equal(t->get(0, "slurm-dist.node", 5, buf, sizeof(buf), &err), 0);
	text = kept_text();
	t = replay(text);
	assert_int_equal(t->get(0, "slurm-dist.node", 5, buf, sizeof(buf), &err), 0);
	assert_int_equal(fake.gets, 0);
	assert_int_not_equal(t->get(2, "slurm-dist.node", 5, buf, sizeof(buf), &err), 0);
	assert_string_equal(err.msg, "rank 2 did not publish slurm-dist.node");
	assert_int_equal(fake.gets, 1);
	wireup_shared_clear();
	free(text);
}

/* A layout that failed is not kept either. */
static void test_layout_failure_is_asked_again(void **state)
{
	struct wireup_node nodes[2];
	const struct wireup_transport *t;
	struct dist_err err = {{0}};
	uint32_t count = 0;
	char *text;

	(void)state;
	fake_step(2, 2);
	fake.layout_fails = true;
	t = wireup_shared_record(&fake_transport);
	assert_int_not_equal(t->layout(NULL, nodes, 2, &count, &err), 0);
	text = kept_text();
	assert_string_equal(text, "slurm-dist shared exchange 1\n");
	fake.layout_fails = false;
	t = replay(text);
	assert_int_equal(t->layout(NULL, nodes, 2, &count, &err), 0);
	assert_int_equal(fake.layouts, 1);
	free_nodes(nodes, count);
	wireup_shared_clear();
	free(text);
}

static void test_replayed_layout_larger_than_the_step_is_refused(void **state)
{
	struct wireup_node nodes[2];
	const struct wireup_transport *t;
	struct dist_err err = {{0}};
	uint32_t count = 0;
	char *text;

	(void)state;
	fake_step(3, 1);
	text = record_all(3);
	t = replay(text);
	assert_int_not_equal(t->layout(NULL, nodes, 2, &count, &err), 0);
	assert_string_equal(err.msg, "FAKE lists more nodes than the 2 of the step");
	wireup_shared_clear();
	free(text);
}

static void test_exact_text(void **state)
{
	char *text;

	(void)state;
	fake_step(2, 2);
	text = record_all(2);
	assert_string_equal(text, "slurm-dist shared exchange 1\n"
	                          "layout 2\n"
	                          "2 0 1\n"
	                          "2 2 3\n"
	                          "value 0 slurm-dist.node 40\n"
	                          "ok slurm-dist.node of rank 0\nsecond line\n"
	                          "value 2 slurm-dist.node 40\n"
	                          "ok slurm-dist.node of rank 2\nsecond line\n"
	                          "value 0 slurm-dist.port 40\n"
	                          "ok slurm-dist.port of rank 0\nsecond line\n");
	free(text);
}

/* Anything but a whole text is refused, and the caller reads for itself. */
static void test_malformed_texts_are_refused(void **state)
{
	static const char *const bad[] = {
	        "",
	        "slurm-dist shared exchange 2\n",
	        "slurm-dist shared exchange 1\nlayout 1\n",
	        "slurm-dist shared exchange 1\nlayout 1\n0\n",
	        "slurm-dist shared exchange 1\nlayout 1\n2 0\n",
	        "slurm-dist shared exchange 1\nlayout 4294967295\n1 0\n",
	        "slurm-dist shared exchange 1\nlayout 1\n4000000000 0 1\n",
	        "slurm-dist shared exchange 1\nlayout 1\n1 99999999999\n",
	        "slurm-dist shared exchange 1\nvalue 0 k 5\nabc\n",
	        "slurm-dist shared exchange 1\nvalue 0 k 3\nabcd\n",
	        "slurm-dist shared exchange 1\nvalue 0 k 4294967295\nabc\n",
	        "slurm-dist shared exchange 1\nvalue 0  3\nabc\n",
	        "slurm-dist shared exchange 1\nvalue x k 3\nabc\n",
	        "slurm-dist shared exchange 1\nvalue 0 k\n3\nabc\n",
	        "slurm-dist shared exchange 1\nnonsense\n",
	};

	(void)state;
	fake_step(1, 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dist_err err = {{0}};

		if (wireup_shared_replay(&fake_transport, bad[i], &err) != NULL)
			fail_msg("accepted text %zu", i);
		assert_non_null(strstr(err.msg, "not an exchange kept by the node's first task"));
	}
}

/* 16,384 nodes of 8 tasks: what the node's other tasks replay holds every
 * node, and asks the transport nothing. Sizes printed, not judged. */
static void test_many_nodes(void **state)
{
	char *text;

	(void)state;
	fake_step(16384, 8);
	text = record_all(16384);
	assert_int_equal(fake.gets, 16384 + 1);
	read_all(replay(text), 16384);
	assert_int_equal(fake.layouts + fake.gets, 0);
	printf("# 16384 nodes x 8 tasks: %zu bytes kept for the node's other tasks\n",
	       strlen(text));
	wireup_shared_clear();
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_replay_asks_the_transport_nothing),
	        cmocka_unit_test(test_replay_asks_for_what_was_not_kept),
	        cmocka_unit_test(test_failed_get_is_asked_again),
	        cmocka_unit_test(test_layout_failure_is_asked_again),
	        cmocka_unit_test(test_replayed_layout_larger_than_the_step_is_refused),
	        cmocka_unit_test(test_exact_text),
	        cmocka_unit_test(test_malformed_texts_are_refused),
	        cmocka_unit_test(test_many_nodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
