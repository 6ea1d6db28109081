/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "nodedir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
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
#include "taskns.h"

/* How long slurmstepd waits for the directory's removal at the step's end:
 * a TMPDIR on a hung file system (NFS, FUSE) must not keep the step
 * completing. The remover is killed then. */
#define REMOVE_TIMEOUT_MS 5000

/* Made in this slurmstepd (one per step and node), removed at its end. */
static char made[PATH_MAX];
static struct dist_err make_err;
static bool make_failed;

void nodedir_prepare(void)
{
	if (taskns_prepare())
		slurm_error("dist: cannot make the socket that finds the tasks' namespace: %s "
		            "(under a job container the step's directory will stay until the "
		            "job ends)",
		            strerror(errno));
}

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
	/* Under a job container the shim makes it in the task's namespace:
	 * slurmstepd needs that namespace to remove it. A failure costs only
	 * the removal, which the step's end then logs. */
	taskns_report();
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
 * slurmstepd's descriptors; in the mount namespace NSFD (slurmstepd's own
 * when -1). A directory that is not there is not an error: it is made in
 * only one of the namespaces (the tasks' under a job container). */
static void remove_as(int nsfd, uid_t uid, gid_t gid)
{
	int fd;

	/* Root, before the ids are dropped: setns needs CAP_SYS_ADMIN. */
	if (nsfd >= 0 && setns(nsfd, CLONE_NEWNS) != 0)
		_exit(2);
	child_close_from(3);
	if (getuid() == 0 && setgroups(0, NULL) != 0)
		_exit(1);
	if (setgid(gid) != 0 || setuid(uid) != 0 || (uid != 0 && setuid(0) == 0))
		_exit(1);
	fd = open(made, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		_exit(errno == ENOENT ? 0 : 1);
	empty_dir(fd, 0);
	_exit(rmdir(made) == 0 || errno == ENOENT ? 0 : 1);
}

/* One remover, in NSFD's namespace (or slurmstepd's), bounded in time. */
static void remove_in(int nsfd, uid_t uid, gid_t gid)
{
	const char *where = nsfd >= 0 ? " in the tasks' mount namespace" : "";
	int status = 0, rc = -1;
	pid_t pid = fork();

	if (pid == 0)
		remove_as(nsfd, uid, gid);
	if (pid > 0)
		rc = child_wait(pid, REMOVE_TIMEOUT_MS, &status);
	if (rc == 1)
		slurm_error("dist: gave up removing the step's directory %s%s after %d s (its file "
		            "system hangs?): killed the remover",
		            made, where, REMOVE_TIMEOUT_MS / 1000);
	else if (rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 2)
		slurm_error("dist: cannot enter the tasks' mount namespace (setns refused) to "
		            "remove the step's directory %s",
		            made);
	else if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		slurm_error("dist: could not remove the step's directory %s%s", made, where);
}

void nodedir_remove(spank_t sp)
{
	int ns[TASKNS_MAX];
	size_t n = taskns_collect(ns, TASKNS_MAX);
	uid_t uid;
	gid_t gid;

	if (made[0] && spank_get_item(sp, S_JOB_UID, &uid) == ESPANK_SUCCESS &&
	    spank_get_item(sp, S_JOB_GID, &gid) == ESPANK_SUCCESS) {
		remove_in(-1, uid, gid);
		for (size_t i = 0; i < n; i++)
			remove_in(ns[i], uid, gid);
	}
	for (size_t i = 0; i < n; i++)
		close(ns[i]);
	made[0] = '\0';
}
