/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wireup/check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/msg.h"
#include "dist_check.h"
#include "dist_slurmenv.h"
#include "node/stepids.h"
#include "wireup/netcheck.h"

#define KEY_LISTEN "slurm-dist.check-listen" /* "PORT HOST" of a node's first task */
#define KEY_RESULT "slurm-dist.check"        /* "ok", or failures joined by '|' */
#define RESULT_OK  "ok"
#define HOST_MAX   64
/* A node's result: at most two failed paths (bounded whatever the job). */
#define RESULT_MAX 1024

static bool checks(const struct wireup_request *req, const struct dist_world *w)
{
	return req->check && req->check->net && w->nnodes > 1;
}

static void host_name(char host[HOST_MAX])
{
	if (gethostname(host, HOST_MAX - 1) != 0)
		snprintf(host, HOST_MAX, "?");
	host[HOST_MAX - 1] = '\0';
}

int wireup_check_listen(struct check_listeners *l, const struct wireup_transport *t,
                        const struct wireup_request *req, const struct dist_world *w,
                        uint16_t master_port, struct dist_err *err)
{
	struct netcheck_listener *ring_listener = NULL, *master_listener = NULL;
	uint32_t jobid, stepid;
	char host[HOST_MAX], text[HOST_MAX + 16];

	if (!checks(req, w) || w->local_rank != 0)
		return 0;
	if (w->rank == 0 && master_port && netcheck_listen(master_port, &master_listener, err))
		return -1;
	l->master = master_listener;
	(void)stepids_read(&jobid, &stepid, NULL);
	if (netcheck_listen_any(&req->ports,
	                        dist_port_first_for(DIST_PORT_CHECK, &req->ports, jobid, stepid, 0),
	                        &ring_listener, err))
		return -1;
	l->ring = ring_listener;
	host_name(host);
	snprintf(text, sizeof(text), "%u %s", netcheck_listener_port(ring_listener), host);
	return t->put(KEY_LISTEN, text, err);
}

void wireup_check_close(struct check_listeners *l)
{
	netcheck_listener_close(l->ring);
	netcheck_listener_close(l->master);
	l->ring = l->master = NULL;
}

/* The listeners serve the step's nodes only from now on: the exchange
 * gave their addresses (connections that came before wait in the
 * backlog). */
static void allow_step_nodes(const struct check_listeners *l, const struct dist_world *w)
{
	uint32_t *addrs = calloc(w->nnodes ? w->nnodes : 1, sizeof(*addrs));
	size_t n = 0;

	for (uint32_t i = 0; addrs && w->nodes && i < w->nnodes; i++)
		if (dist_ipv4_parse(w->nodes[i].addr, &addrs[n]) == 0)
			n++;
	netcheck_listener_allow(l->ring, addrs, n);
	netcheck_listener_allow(l->master, addrs, n);
	free(addrs);
}

/* Where a node's first task listens for the ring, and its host name. */
static int read_listen(const struct wireup_transport *t, const struct wireup_request *req,
                       uint32_t leader, uint16_t *port, char host[HOST_MAX], struct dist_err *err)
{
	char text[HOST_MAX + 16];
	uint32_t p;
	char *end;

	if (t->get(leader, KEY_LISTEN, req->timeout_s, text, sizeof(text), err))
		return -1;
	if (dist_parse_u32_prefix(text, &p, &end) || p == 0 || p > 65535 || *end != ' ')
		return dist_err_set(err, "rank %u published a malformed check record", leader);
	*port = (uint16_t)p;
	snprintf(host, HOST_MAX, "%s", end + 1);
	return 0;
}

/* The source of this node's connections: the address of the interface the
 * program's sockets will use (the user's GLOO_/NCCL_SOCKET_IFNAME, else the
 * contract's), or 0 for the kernel's choice when none is known. */
static int source_addr(const struct dist_world *w, const struct dist_addr_list *local,
                       uint32_t *src, char ifname[DIST_IFNAME_MAX], struct dist_err *err)
{
	char buf[DIST_IFNAME_MAX];
	const char *user = dist_check_user_ifname(getenv("GLOO_SOCKET_IFNAME"),
	                                          getenv("NCCL_SOCKET_IFNAME"), buf, sizeof(buf));
	const char *name = user ? user : w->master_ifname;

	*src = 0;
	snprintf(ifname, DIST_IFNAME_MAX, "%s", name[0] ? name : "any interface");
	if (!name[0])
		return 0;
	for (size_t i = 0; i < local->count; i++)
		if (strcmp(local->a[i].ifname, name) == 0) {
			*src = local->a[i].addr;
			return 0;
		}
	return dist_err_set(err,
	                    "interface %s (%s) is down or has no IPv4 address here: bring it "
	                    "up or name another",
	                    name, user ? "GLOO_SOCKET_IFNAME or NCCL_SOCKET_IFNAME" : "chosen");
}

struct target {
	const char *what; /* "the master", "the next node of the ring" */
	char host[HOST_MAX];
	char addr[DIST_ADDR_MAX];
};

static void describe_error(int error, unsigned timeout_s, char *buf, size_t len)
{
	if (error == ETIMEDOUT)
		snprintf(buf, len, "no answer in %u s (a firewall dropping the port?)", timeout_s);
	else
		snprintf(buf, len, "%s", strerror(error));
}

/* Appends one failed path to RESULT (LEN bytes), '|' between paths. */
static void add_failure(char *result, size_t len, const char *from, const struct target *to,
                        const struct netcheck_path *p, unsigned timeout_s)
{
	char why[96];
	size_t used = strcmp(result, RESULT_OK) == 0 ? 0 : strlen(result);

	describe_error(p->error, timeout_s, why, sizeof(why));
	snprintf(result + used, len - used, "%s%s cannot reach %s %s at %s:%u: %s", used ? "|" : "",
	         from, to->what, to->host, to->addr, p->port, why);
}

/* The paths this node's first task tries: to the master (from any node
 * but the master's) and to the next node of the ring. */
static int plan_paths(const struct wireup_transport *t, const struct wireup_request *req,
                      const struct dist_world *w, struct target *to, struct netcheck_path *paths,
                      size_t *n, struct dist_err *err)
{
	uint32_t next = dist_check_ring_next(w->node_rank, w->nnodes);
	char master_host[HOST_MAX];
	uint16_t port;

	*n = 0;
	if (w->node_rank != 0 && !req->user_master_addr) {
		if (read_listen(t, req, 0, &port, master_host, err) ||
		    dist_ipv4_parse(w->master_addr, &paths[*n].addr))
			return dist_err_set(err, "no master to check");
		to[*n] = (struct target){.what = "the master"};
		snprintf(to[*n].host, HOST_MAX, "%s", master_host);
		snprintf(to[*n].addr, DIST_ADDR_MAX, "%s", w->master_addr);
		paths[(*n)++].port = w->master_port;
	}
	if (read_listen(t, req, dist_check_node_leader(w, next), &port, to[*n].host, err) ||
	    dist_ipv4_parse(w->nodes[next].addr, &paths[*n].addr))
		return -1;
	to[*n].what = "the next node of the ring";
	snprintf(to[*n].addr, DIST_ADDR_MAX, "%s", w->nodes[next].addr);
	paths[(*n)++].port = port;
	return 0;
}

/* This node's result: RESULT_OK, or one text per failed path. */
static void check_node(const struct wireup_transport *t, const struct wireup_request *req,
                       const struct dist_world *w, const struct dist_addr_list *local, char *result,
                       size_t len)
{
	struct target to[2];
	struct netcheck_path paths[2] = {{0}};
	char host[HOST_MAX], ifname[DIST_IFNAME_MAX], ip[DIST_ADDR_MAX];
	char from[HOST_MAX + DIST_ADDR_MAX + DIST_IFNAME_MAX + 16];
	struct dist_err err = {{0}};
	uint32_t src;
	size_t n;

	host_name(host);
	snprintf(result, len, RESULT_OK);
	if (source_addr(w, local, &src, ifname, &err) ||
	    plan_paths(t, req, w, to, paths, &n, &err)) {
		snprintf(result, len, "%s: %s", host, err.msg);
		return;
	}
	dist_ipv4_format(src, ip);
	snprintf(from, sizeof(from), "%s (%s%s%s)", host, src ? ip : "", src ? " via " : "via ",
	         ifname);
	netcheck_connect(src, paths, n, req->check->timeout_s);
	for (size_t i = 0; i < n; i++)
		if (paths[i].error)
			add_failure(result, len, from, &to[i], &paths[i], req->check->timeout_s);
}

/* Reads every node's result; rank 0 prints each failed path. Returns the
 * number of nodes that failed, or -1 when a result cannot be read. */
static int count_failures(const struct wireup_transport *t, const struct wireup_request *req,
                          const struct dist_world *w, struct dist_err *err)
{
	char text[RESULT_MAX];
	int failed = 0;

	for (uint32_t k = 0; k < w->nnodes; k++) {
		if (t->get(dist_check_node_leader(w, k), KEY_RESULT, req->timeout_s, text,
		           sizeof(text), err))
			return -1;
		if (strcmp(text, RESULT_OK) == 0)
			continue;
		failed++;
		for (char *save = NULL, *line = strtok_r(text, "|", &save); line && w->rank == 0;
		     line = strtok_r(NULL, "|", &save))
			msg_error("network check: %s", line);
	}
	return failed;
}

static double ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1e3 + (now.tv_nsec - start->tv_nsec) / 1e6;
}

enum wireup_result wireup_check_run(struct check_listeners *l, const struct wireup_transport *t,
                                    const struct wireup_request *req, struct dist_world *w,
                                    const struct dist_addr_list *local, struct dist_err *err)
{
	struct timespec start;
	char result[RESULT_MAX];
	size_t len = t->max_value < sizeof(result) ? t->max_value : sizeof(result);
	int failed;

	if (!checks(req, w))
		return WIREUP_OK;
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (w->local_rank == 0) {
		allow_step_nodes(l, w);
		check_node(t, req, w, local, result, len);
		if (t->put(KEY_RESULT, result, err))
			return WIREUP_FAILED_UNSHARED;
	}
	/* Nodes arrive as their connections end: within the check's bound. */
	if (t->commit(err) || t->fence(req->timeout_s + req->check->timeout_s, err))
		return WIREUP_TIMED_OUT;
	wireup_check_close(l); /* every node has tried its paths */
	failed = count_failures(t, req, w, err);
	if (failed < 0)
		return WIREUP_FAILED_UNSHARED;
	if (failed > 0) {
		dist_err_set(err,
		             "not starting: the network check failed on %d of %u nodes (see "
		             "above; docs: dist-shim(1), --check)",
		             failed, w->nnodes);
		return WIREUP_PEER_FAILED;
	}
	if (req->explain && w->rank == 0)
		msg_info(
		        "network check: %u nodes reached the master %s:%u and the next node of the "
		        "ring in %.0f ms",
		        w->nnodes, w->master_addr, w->master_port, ms_since(&start));
	return WIREUP_OK;
}
