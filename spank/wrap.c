/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wrap.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist_launch.h"
#include "dist_protocol.h"
#include "dist_slurmenv.h"

/* Slurm 23.11 and later; looked up at run time so one build serves both. */
typedef spank_err_t (*prepend_argv_fn)(spank_t sp, int argc, const char *argv[]);

static int wrap_by_prepending(spank_t sp, prepend_argv_fn prepend, const char *shim,
                              struct dist_err *err)
{
	const char *prefix[] = {shim, "--"};
	spank_err_t rc;

	/* Only the 22.05 route hands argv[0] over; a value in the task's
	 * environment is a leftover or the user's, and must not reach the shim. */
	rc = spank_unsetenv(sp, DIST_SHIM_ENV_ARGV0);
	if (rc != ESPANK_SUCCESS && rc != ESPANK_ENV_NOEXIST)
		return dist_err_set(err, "cannot clear %s in the task: %s", DIST_SHIM_ENV_ARGV0,
		                    spank_strerror(rc));
	rc = prepend(sp, 2, prefix);

	if (rc != ESPANK_SUCCESS)
		return dist_err_set(err, "cannot prepend the shim to the task: %s",
		                    spank_strerror(rc));
	return 0;
}

/* Slurm 22.05: S_JOB_ARGV is the array every task execs; replace argv[0]
 * with the shim (absolute, so Slurm's PATH search leaves it alone) and hand
 * the original to the shim, which resolves it itself. */
static int wrap_by_argv0(spank_t sp, const char *shim, struct dist_err *err)
{
	char **argv = NULL;
	int argc = 0;
	char *copy, *handover;
	size_t len;

	if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS || argc < 1 || !argv ||
	    !argv[0])
		return dist_err_set(err, "cannot read the task's command line");
	/* Each --multi-prog task execs its own line, out of our reach here. */
	if (dist_is_multi_prog_argv(argc, argv))
		return dist_err_set(err, "--dist-mode cannot wrap --multi-prog steps on this Slurm "
		                         "(before 23.11); start each line's program with "
		                         "'dist-shim --mode MODE -- PROGRAM' instead");
	/* Tied to this process, which execs the shim next (dist_launch.h). */
	len = strlen(argv[0]) + 32;
	handover = malloc(len);
	if (!handover)
		return dist_err_set(err, "out of memory");
	if (dist_handover_encode((long)getpid(), argv[0], handover, len) ||
	    spank_setenv(sp, DIST_SHIM_ENV_ARGV0, handover, 1) != ESPANK_SUCCESS) {
		free(handover);
		return dist_err_set(err, "cannot pass the task's program to the shim");
	}
	free(handover);
	copy = strdup(shim);
	if (!copy)
		return dist_err_set(err, "out of memory");
	argv[0] = copy; /* this process execs next; nothing else owns the old pointer's fate */
	return 0;
}

int wrap_task(spank_t sp, const char *shim, struct dist_err *err)
{
	prepend_argv_fn prepend = (prepend_argv_fn)dlsym(RTLD_DEFAULT, "spank_prepend_task_argv");

	if (prepend)
		return wrap_by_prepending(sp, prepend, shim, err);
	return wrap_by_argv0(sp, shim, err);
}
