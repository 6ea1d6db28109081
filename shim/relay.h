/* The launcher form (--launcher): the step has one task per node; rank 0
 * runs the user's command (mpirun, horovodrun, deepspeed...) and the other
 * tasks wait quietly, then exit with the launcher's status, which rank 0
 * relays to them over TCP. */
#ifndef SHIM_RELAY_H
#define SHIM_RELAY_H

#include <stdint.h>

#include "dist_err.h"

/* Rank 0: listens on PORT, runs PATH/ARGV as a child, forwards signals to
 * it, tells every one of NPEERS peers its status; returns the status to
 * exit with. Returns -1 with ERR set if it cannot start. */
int relay_run_launcher(uint16_t port, uint32_t npeers, const char *path, char **argv,
                       struct dist_err *err);

/* Other ranks: connects to ADDR:PORT (retrying for TIMEOUT_S) and waits,
 * as long as the launcher runs, for its status; returns it, or -1 with ERR
 * set. */
int relay_wait(const char *addr, uint16_t port, unsigned timeout_s, struct dist_err *err);

#endif
