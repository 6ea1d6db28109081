/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "nodedir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "dist_launch.h"
#include "dist_protocol.h"

/* How long slurmstepd waits for the directory's removal at the step's end:
 * a TMPDIR on a hung file system (NFS, FUSE) must not keep the step
 * completing. The remover is killed then. */
#define REMOVE_TIMEOUT_MS 5000

/* Made in this slurmstepd (one per step and node), removed at its end. */
static char made[PATH_MAX];
static struct dist_err make_err;
static bool make_failed;

void nodedir_make(spank_t sp)
{
	char base[PATH_MAX] = "/tmp";
	uint32_t job = 0, step = 0;

	if (spank_getenv(sp, "TMPDIR", base, sizeof(base)) != ESPANK_SUCCESS || base[0] != '/')
		strcpy(base, "/tmp");
	spank_get_item(sp, S_JOB_ID, &job);
	spank_get_item(sp, S_JOB_STEPID, &step);
	if ((size_t)snprintf(made, sizeof(made), "%s/slurm-dist.job%u.step%u.XXXXXX", base, job,
	                     step) >= sizeof(made)) {
		made[0] = '\0';
		make_failed = true;
		dist_err_set(&make_err, "TMPDIR %.200s is too long for the step's directory", base);
		return;
	}
	/* With the job's user as effective ids (Slurm set them for user_init;
	 * the real ids stay root); mode 0700. */
	if (!mkdtemp(made)) {
		dist_err_set(&make_err, "cannot create the step's directory in %.200s: %s", base,
		             strerror(errno));
		made[0] = '\0';
		make_failed = true;
	}
}

int nodedir_handover(spank_t sp, struct dist_err *err)
{
	char value[PATH_MAX + 32];

	if (make_failed) {
		*err = make_err;
		return -1;
	}
	if (!made[0])
		return dist_err_set(err, "the step's directory was not made on this node");
	if (dist_handover_encode((long)getpid(), made, value, sizeof(value)) ||
	    spank_setenv(sp, DIST_SHIM_ENV_STEPDIR, value, 1) != ESPANK_SUCCESS)
		return dist_err_set(err, "cannot pass the step's directory to the shim");
	return 0;
}

/* Removes what is inside FD (depth bounded: the shim writes plain files). */
static void empty_dir(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		int sub;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno != EISDIR || depth >= 8)
			continue;
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			empty_dir(sub, depth + 1);
		unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

/* In a child that is the job's user and nothing more, and holds none of
 * slurmstepd's descriptors. */
static void remove_as(uid_t uid, gid_t gid)
{
	int fd;

	child_close_from(3);
	if (getuid() == 0 && setgroups(0, NULL) != 0)
		_exit(1);
	if (setgid(gid) != 0 || setuid(uid) != 0 || (uid != 0 && setuid(0) == 0))
		_exit(1);
	fd = open(made, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		empty_dir(fd, 0);
	_exit(rmdir(made) == 0 ? 0 : 1);
}

void nodedir_remove(spank_t sp)
{
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int status = 0, rc = -1;

	if (!made[0] || spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS)
		return;
	pid = fork();
	if (pid == 0)
		remove_as(uid, gid);
	if (pid > 0)
		rc = child_wait(pid, REMOVE_TIMEOUT_MS, &status);
	if (rc == 1)
		slurm_error("dist: gave up removing the step's directory %s after %d s (its file "
		            "system hangs?): killed the remover",
		            made, REMOVE_TIMEOUT_MS / 1000);
	else if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		slurm_error("dist: could not remove the step's directory %s", made);
	made[0] = '\0';
}
