/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A container runtime the step starts (`srun --dist-mode=... ch-run IMAGE
 * -- PROGRAM`): the shim exports the contract and execs the runtime, which
 * passes the environment and the node's /tmp on unless told not to. Told
 * so, the program would run without the contract, alone, and say nothing:
 * such a line is read before it runs and refused with one line. */
#ifndef DIST_RUNTIME_H
#define DIST_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>

#include "dist_err.h"

struct dist_runtime_line {
	const char *runtime; /* "ch-run", "apptainer", "singularity"; NULL: none known */
	const char *drops;   /* the option that removes the contract's variables, or NULL */
	const char *dropped; /* with DROPS: a contract variable it removes */
	bool env_given;      /* variables given back by an option (--set-env=FILE, --env...) */
	const char *hides;   /* the option that gives the program a /tmp of its own, or NULL */
	bool step_dir_bound; /* the step's directory (or a directory holding it) is bound inside */
};

/* Reads ARGV's runtime options up to its image. NAMES (COUNT of them) are
 * the contract's variables, to match --unset-env's patterns against;
 * STEP_DIR (or NULL) the step's directory, to match binds against. An
 * option it does not know ends the reading: what follows is then not read,
 * never misread as the runtime's. */
void dist_runtime_read(char *const *argv, const char *const *names, size_t count,
                       const char *step_dir, struct dist_runtime_line *line);

/* -1 with ERR set (one line: what is lost and how to keep it) when LINE
 * (as read) starts a runtime that drops the contract's variables without
 * giving any back, or, when the mode's files are needed (NEEDS_FILES),
 * hides the step's directory STEP_DIR under a /tmp of its own. */
int dist_runtime_check(const struct dist_runtime_line *line, const char *step_dir, bool needs_files,
                       struct dist_err *err);

/* For --explain: the container path a step takes, as "WHERE: ENVIRONMENT;
 * TMP" text (written to BUF, LEN bytes), from LINE as read. */
void dist_runtime_describe(const struct dist_runtime_line *line, bool needs_files, char *buf,
                           size_t len);

#endif
