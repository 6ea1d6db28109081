/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launcher form (--launcher): the step has one task per node; rank 0
 * runs the user's command (mpirun, horovodrun, deepspeed...) and the other
 * tasks wait quietly, then exit with the launcher's status, which rank 0
 * relays to them over TCP. Every message is authenticated with a key only
 * the step's tasks have (docs/security.md, "launcher relay"). */
#ifndef SHIM_RELAY_H
#define SHIM_RELAY_H

#include <stdbool.h>
#include <stdint.h>

#include "dist_err.h"
#include "dist_port.h"
#include "dist_relay.h"
#include "dist_world.h"

/* Where rank 0 listens and the key every task of the step shares. */
struct relay_params {
	uint16_t port; /* 0 until known */
	bool have_key; /* key is set */
	int listen_fd; /* rank 0: listening on port since it was chosen; -1 otherwise */
	uint8_t key[DIST_RELAY_KEY_LEN];
};

#define RELAY_PARAMS_INIT                                                                          \
	{                                                                                          \
		0, false, -1,                                                                      \
		{                                                                                  \
			0                                                                          \
		}                                                                                  \
	}
/* "PORT KEY" as the exchange carries it, its NUL included. */
#define RELAY_PARAMS_TEXT (6 + DIST_RELAY_KEY_HEX)

/* Rank 0, before the exchange: listens on the first port of RANGE from
 * FIRST on that is free and is not AVOID, and draws a fresh key. */
int relay_listen_any(const struct dist_port_range *range, uint16_t first, uint16_t avoid,
                     struct relay_params *p, struct dist_err *err);
void relay_params_format(const struct relay_params *p, char text[RELAY_PARAMS_TEXT]);
int relay_params_parse(const char *text, struct relay_params *p, struct dist_err *err);

/* Without an exchange: the port every task computes alike (from RANGE, the
 * job and step, never MASTER_PORT) and the key srun's plugin set for the
 * step (DIST_SHIM_ENV_RELAY_KEY); rank 0 listens on that port or fails. */
int relay_params_without_exchange(const struct dist_port_range *range, const struct dist_world *w,
                                  struct relay_params *p, struct dist_err *err);

/* Rank 0: runs PATH/ARGV as a child, which Slurm signals with the rest of
 * the step (signals that came before it existed are passed on to it once),
 * accepts only the step's waiting tasks and tells each its status; returns
 * the status to exit with, or -1 with ERR set if it cannot start. */
int relay_run_launcher(struct relay_params *p, const struct dist_world *w, const char *path,
                       char **argv, struct dist_err *err);

/* Other ranks: connects to rank 0 (retrying for TIMEOUT_S), checks that it
 * is the step's rank 0, and waits, as long as it hears from it, for the
 * launcher's status; returns it, or -1 with ERR set. */
int relay_wait(const struct relay_params *p, const struct dist_world *w, unsigned timeout_s,
               struct dist_err *err);

#endif
