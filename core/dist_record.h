/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The node record of the exchange (shim/wireup/exchange.c): what each
 * node's first task tells the others. Pure, so that what other tasks send
 * is parsed by code the unit tests and the fuzzer reach.
 *
 *   "ok GPUS PORTS EXTRA ADDRESSES"  GPUS its first task sees; PORTS one per
 *                                    task of the node, comma-separated, or
 *                                    "-"; EXTRA the mode's, or "-";
 *                                    ADDRESSES dist_addr_list's wire form
 *   "failed WHY"                     why the program cannot start there */
#ifndef DIST_RECORD_H
#define DIST_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist_err.h"
#include "dist_net.h"

#define DIST_RECORD_OK     "ok "
#define DIST_RECORD_FAILED "failed "
/* Bytes of one node's record, with its NUL: bounded by one node, not by the
 * job (its addresses, its NPUs, one port per task of the node: "P,P,..."
 * fits about 340 tasks a node). */
#define DIST_RECORD_MAX 2048

struct dist_node_record {
	bool failed;
	char why[DIST_RECORD_MAX];   /* failed: the reason */
	uint32_t gpus;               /* ok: the rest */
	char ports[DIST_RECORD_MAX]; /* "-" or "P,P,..." */
	char extra[DIST_RECORD_MAX]; /* "-" or the mode's, without spaces */
	struct dist_addr_list addrs;
};

/* Parses TEXT; -1 with ERR set for anything but a well-formed record. */
int dist_node_record_parse(const char *text, struct dist_node_record *rec, struct dist_err *err);

/* REC in TEXT (LIMIT bytes at most): addresses that do not fit are left
 * out (the node is then not chosen for the master); -1 when the rest does
 * not fit or a field would not parse back (empty, or holding a space). */
int dist_node_record_format(const struct dist_node_record *rec, char *text, size_t limit,
                            struct dist_err *err);

/* The N ports of a record's PORTS field ("P,P,...", each 1 to 65535), in
 * PORTS; -1 unless TEXT holds exactly N. */
int dist_task_ports_parse(const char *text, uint32_t n, uint16_t *ports);

#endif
