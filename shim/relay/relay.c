/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the launcher relay listens and the key it proves: drawn by rank 0
 * and published through the exchange, or computed alike by every task and
 * given by srun's plugin. The rest: launcher.c (rank 0), client.c (the
 * waiting tasks), handshake.c (the protocol), listener.c (rank 0's
 * connections). */
#include "relay/relay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/module.h"
#include "base/msg.h"
#include "dist_protocol.h"
#include "dist_slurmenv.h"
#include "node/netlocal.h"
#include "node/stepids.h"
#include "relay/handshake.h"
#include "relay/internal.h"

/* OpenSSL's HMAC, from its module (base/module.h): loaded by the launcher form's
 * tasks only, before the relay starts. */
static const struct relay_mac_module *macs;

static int load_macs(struct dist_err *err)
{
	macs = module_crypto(err);
	return macs ? 0 : -1;
}

int relay_listen_any(const struct dist_port_range *range, uint16_t first, uint16_t avoid,
                     struct relay_params *p, struct dist_err *err)
{
	if (relay_random(p->key, sizeof(p->key)))
		return dist_err_set(err, "cannot draw a key for the launcher relay: %s",
		                    strerror(errno));
	p->have_key = true;
	p->listen_fd = netlocal_listen_any(range, first, avoid, &p->port);
	if (p->listen_fd < 0)
		return dist_err_set(err, "no free port for the launcher relay in %u-%u from %u on",
		                    range->lo, range->hi, first);
	return 0;
}

void relay_params_format(const struct relay_params *p, char text[RELAY_PARAMS_TEXT])
{
	char hex[DIST_RELAY_KEY_HEX];

	dist_relay_key_format(p->key, hex);
	snprintf(text, RELAY_PARAMS_TEXT, "%u %s", p->port, hex);
}

int relay_params_parse(const char *text, struct relay_params *p, struct dist_err *err)
{
	uint32_t port;
	char *end;

	if (dist_parse_u32_prefix(text, &port, &end) || port == 0 || port > 65535 || *end != ' ' ||
	    dist_relay_key_parse(end + 1, p->key))
		return dist_err_set(err, "rank 0 published a malformed launcher relay record");
	p->port = (uint16_t)port;
	p->have_key = true;
	return 0;
}

/* The key srun's plugin gave the task, overwritten where it lies: unsetenv
 * alone leaves it in the memory /proc/PID/environ shows, which the
 * launcher's processes (and the user's other processes on the node) read
 * for as long as this shim lives (issue 24). */
static void forget_env_key(void)
{
	char *value = getenv(DIST_SHIM_ENV_RELAY_KEY);

	if (value)
		memset(value, 0, strlen(value));
	unsetenv(DIST_SHIM_ENV_RELAY_KEY);
}

int relay_params_without_exchange(const struct dist_port_range *range, const struct dist_world *w,
                                  struct relay_params *p, struct dist_err *err)
{
	uint32_t jobid, stepid;

	if (!p->have_key) {
		if (dist_relay_key_parse(getenv(DIST_SHIM_ENV_RELAY_KEY), p->key))
			return dist_err_set(
			        err, "--dist-launcher without an exchange needs the key srun's "
			             "plugin gives the step (" DIST_SHIM_ENV_RELAY_KEY
			             "): launch with srun --dist-mode, or with --mpi=pmix or "
			             "--mpi=pmi2");
		p->have_key = true;
	}
	forget_env_key();
	if (p->port)
		return 0;
	if (stepids_read(&jobid, &stepid, NULL))
		return dist_err_set(err,
		                    "no SLURM_JOB_ID and SLURM_STEP_ID for the launcher relay");
	p->port = dist_port_first_for(DIST_PORT_RELAY, range, jobid, stepid, 0);
	if (p->port == w->master_port)
		p->port = p->port < range->hi ? p->port + 1 : range->lo;
	if (w->rank == 0 && (p->listen_fd = netlocal_listen(p->port)) < 0)
		return dist_err_set(err,
		                    "port %u for the launcher relay is in use on this node and "
		                    "without an exchange the tasks cannot agree on another; "
		                    "launch with --mpi=pmix or --mpi=pmi2",
		                    p->port);
	return 0;
}

/* A MAC of nothing in particular: OpenSSL without a provider that has
 * SHA-256 (an OPENSSL_CONF that loads none) fails here, before the
 * launcher starts, rather than on each connection. */
const struct relay_mac_module *relay_load_macs(struct dist_err *err)
{
	uint8_t key[DIST_RELAY_KEY_LEN] = {0}, nonce[DIST_RELAY_NONCE_LEN] = {0},
	        mac[DIST_RELAY_MAC_LEN];

	if (load_macs(err))
		return NULL;
	if (macs->mac(key, DIST_RELAY_PEER, nonce, nonce, 0, 0, mac)) {
		dist_err_set(err,
		             "OpenSSL cannot compute the launcher relay's HMAC-SHA-256 "
		             "(OPENSSL_CONF%s%s "
		             "without the default provider?)",
		             getenv("OPENSSL_CONF") ? "=" : "",
		             getenv("OPENSSL_CONF") ? getenv("OPENSSL_CONF") : "");
		return NULL;
	}
	return macs;
}
