/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "launch.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int check_candidate(const char *path, char **path_out, struct dist_err *err)
{
	if (access(path, F_OK) != 0)
		return -1;
	if (!is_regular(path) || access(path, X_OK) != 0) {
		dist_err_set(err, "cannot execute '%s': Permission denied", path);
		return LAUNCH_NOT_EXECUTABLE;
	}
	*path_out = strdup(path);
	if (!*path_out) {
		dist_err_set(err, "out of memory");
		return LAUNCH_NOT_EXECUTABLE;
	}
	return 0;
}

static int search_path(const char *program, char **path_out, struct dist_err *err)
{
	const char *path = getenv("PATH");
	int found_unexecutable = 0;

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *dir = path; dir; dir = strchr(dir, ':') ? strchr(dir, ':') + 1 : NULL) {
		size_t dlen = strcspn(dir, ":");
		char candidate[4096];
		int rc;

		if (snprintf(candidate, sizeof(candidate), "%.*s%s%s", (int)dlen, dlen ? dir : ".",
		             "/", program) >= (int)sizeof(candidate))
			continue;
		rc = check_candidate(candidate, path_out, err);
		if (rc == 0)
			return 0;
		if (rc == LAUNCH_NOT_EXECUTABLE)
			found_unexecutable = 1;
	}
	if (found_unexecutable)
		return LAUNCH_NOT_EXECUTABLE;
	dist_err_set(err, "cannot execute '%s': command not found in PATH", program);
	return LAUNCH_NOT_FOUND;
}

int launch_resolve(const char *program, char **path_out, struct dist_err *err)
{
	int rc;

	*path_out = NULL;
	if (!program || !*program) {
		dist_err_set(err, "cannot execute an empty program name");
		return LAUNCH_NOT_FOUND;
	}
	if (!strchr(program, '/'))
		return search_path(program, path_out, err);
	rc = check_candidate(program, path_out, err);
	if (rc < 0) {
		dist_err_set(err, "cannot execute '%s': No such file or directory", program);
		return LAUNCH_NOT_FOUND;
	}
	return rc;
}

int launch_exec(const char *path, char **argv, struct dist_err *err)
{
	execv(path, argv);
	dist_err_set(err, "cannot execute '%s': %s", path, strerror(errno));
	return errno == ENOENT ? LAUNCH_NOT_FOUND : LAUNCH_NOT_EXECUTABLE;
}

/* mpirun's real directory (through the alternatives' links) holds the
 * daemon it starts: orted for Open MPI 4, prted for 5 and later. */
enum dist_ompi launch_probe_ompi(void)
{
	struct dist_err ignored;
	char *found = NULL, real[PATH_MAX], daemon[PATH_MAX + 8];
	const char *dir;
	enum dist_ompi ompi = DIST_OMPI_UNKNOWN;

	if (launch_resolve("mpirun", &found, &ignored) != 0)
		return DIST_OMPI_UNKNOWN;
	/* Debian's alternatives may point mpirun at MPICH's beside Open MPI's daemons. */
	if (realpath(found, real) && !strstr(real, "mpich")) {
		dir = dirname(real);
		snprintf(daemon, sizeof(daemon), "%s/prted", dir);
		if (access(daemon, X_OK) == 0)
			ompi = DIST_OMPI_PRRTE;
		snprintf(daemon, sizeof(daemon), "%s/orted", dir);
		if (ompi == DIST_OMPI_UNKNOWN && access(daemon, X_OK) == 0)
			ompi = DIST_OMPI_ORTE;
	}
	free(found);
	return ompi;
}
