/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "node/stepdir.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/readall.h"
#include "dist_launch.h"
#include "dist_protocol.h"

/* Opens NAME under PARENT (PATH for messages), a directory this user owns
 * that no one else can use; refuses anything else, naming why. */
static int open_checked(int parent, const char *name, const char *path, struct dist_err *err)
{
	struct stat before, st;
	int fd;

	if (fstatat(parent, name, &before, AT_SYMLINK_NOFOLLOW) != 0)
		return dist_err_set(err, "cannot use %s for the step's files: %s", path,
		                    strerror(errno));
	if (S_ISLNK(before.st_mode))
		return dist_err_set(err,
		                    "refusing %s for the step's files: it is a symlink, and the "
		                    "step's directory is never reached through one",
		                    path);
	if (!S_ISDIR(before.st_mode))
		return dist_err_set(err, "refusing %s for the step's files: it is not a directory",
		                    path);
	if (before.st_uid != geteuid())
		return dist_err_set(err,
		                    "refusing %s for the step's files: it belongs to uid %u, not "
		                    "to you (uid %u); another user made it",
		                    path, (unsigned)before.st_uid, (unsigned)geteuid());
	if ((before.st_mode & 077) != 0)
		return dist_err_set(err,
		                    "refusing %s for the step's files: group or others can use it "
		                    "(mode %04o, must be 0700)",
		                    path, (unsigned)(before.st_mode & 07777));
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return dist_err_set(err, "cannot open %s for the step's files: %s", path,
		                    strerror(errno));
	if (fstat(fd, &st) != 0 || st.st_dev != before.st_dev || st.st_ino != before.st_ino) {
		close(fd);
		return dist_err_set(err,
		                    "refusing %s for the step's files: it was replaced while "
		                    "being opened",
		                    path);
	}
	return fd;
}

static const char *base_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

/* The plugin's directory for this step on this node. slurmstepd made it in
 * its own mount namespace; under a job container (job_container/tmpfs,
 * namespace/tmpfs) this task has another /tmp, where it is missing: the
 * node's first task to get here makes it, under the same name (random,
 * from mkdtemp; the job's /tmp is the job's own), and the plugin removes
 * it from there at the step's end. */
static int open_handed(const char *path, struct stepdir *dir, struct dist_err *err)
{
	bool made_here;

	if (path[0] != '/' || strlen(path) >= sizeof(dir->path))
		return dist_err_set(err,
		                    "refusing %s for the step's files: not an absolute path "
		                    "of at most %zu bytes",
		                    path, sizeof(dir->path) - 1);
	made_here = mkdir(path, 0700) == 0;
	if (!made_here && errno != EEXIST)
		return dist_err_set(err, "cannot use %s for the step's files: %s", path,
		                    strerror(errno));
	dir->fd = open_checked(AT_FDCWD, path, path, err);
	if (dir->fd < 0)
		return -1;
	if (made_here)
		fchmod(dir->fd, 0700); /* whatever the umask took away */
	strcpy(dir->path, path);
	return 0;
}

/* The shim's own (started by hand): one name per user, job, step, node and
 * attempt, made here by the node's first task to get there. */
static int open_own(uint32_t jobid, uint32_t stepid, struct stepdir *dir, struct dist_err *err)
{
	const char *base = base_dir(), *restart = getenv("SLURM_RESTART_COUNT");
	char host[64] = "", name[256];
	int base_fd;

	gethostname(host, sizeof(host) - 1);
	if (!restart || strlen(restart) > 10 || strspn(restart, "0123456789") != strlen(restart))
		restart = "0";
	snprintf(name, sizeof(name), "slurm-dist.%u.job%u.step%u.%.63s.r%s", (unsigned)geteuid(),
	         jobid, stepid, host, restart);
	if (strchr(name, '/') || (size_t)snprintf(dir->path, sizeof(dir->path), "%s/%s", base,
	                                          name) >= sizeof(dir->path))
		return dist_err_set(err, "TMPDIR %s or the host name is too long, or odd", base);
	base_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (base_fd < 0)
		return dist_err_set(err, "cannot open %s for the step's files: %s", base,
		                    strerror(errno));
	if (mkdirat(base_fd, name, 0700) != 0 && errno != EEXIST) {
		dist_err_set(err, "cannot create %s: %s", dir->path, strerror(errno));
		close(base_fd);
		return -1;
	}
	dir->fd = open_checked(base_fd, name, dir->path, err);
	close(base_fd);
	return dir->fd < 0 ? -1 : 0;
}

int stepdir_open(uint32_t jobid, uint32_t stepid, struct stepdir *dir, struct dist_err *err)
{
	const char *handed = dist_handover_decode(getenv(DIST_SHIM_ENV_STEPDIR), (long)getpid());

	dir->fd = -1;
	if (handed)
		return open_handed(handed, dir, err);
	return open_own(jobid, stepid, dir, err);
}

static int write_all(int fd, const char *content)
{
	size_t left = strlen(content);

	while (left > 0) {
		ssize_t n = write(fd, content, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		content += n;
		left -= (size_t)n;
	}
	return 0;
}

int stepdir_write(const struct stepdir *dir, const char *name, const char *content,
                  struct dist_err *err)
{
	char tmp[128];
	int fd, bad;

	snprintf(tmp, sizeof(tmp), ".%s.%ld", name, (long)getpid());
	fd = openat(dir->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return dist_err_set(err, "cannot write %s/%s: %s", dir->path, tmp, strerror(errno));
	bad = write_all(fd, content);
	bad = close(fd) != 0 || bad;
	if (bad || renameat(dir->fd, tmp, dir->fd, name) != 0) {
		dist_err_set(err, "cannot write %s/%s: %s", dir->path, name, strerror(errno));
		unlinkat(dir->fd, tmp, 0);
		return -1;
	}
	return 0;
}

int stepdir_remove(const struct stepdir *dir, const char *name)
{
	return unlinkat(dir->fd, name, 0) == 0 || errno == ENOENT ? 0 : -1;
}

static bool present(const struct stepdir *dir, const char *name)
{
	return faccessat(dir->fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* A watch for names appearing in DIR (the writer renames into it), or -1:
 * the wait then naps instead. Watched before looking, so that nothing is
 * missed between the look and the sleep. */
static int watch_dir(const struct stepdir *dir)
{
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);

	if (fd >= 0 && inotify_add_watch(fd, dir->path, IN_CREATE | IN_MOVED_TO) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Sleeps until WATCH reports a change or MS milliseconds pass; without a
 * watch, a short nap. */
static void sleep_for_change(int watch, long ms)
{
	struct pollfd p = {.fd = watch, .events = POLLIN};
	struct timespec nap = {0, 5 * 1000 * 1000};
	char events[4096];

	if (watch < 0) {
		nanosleep(&nap, NULL);
		return;
	}
	if (poll(&p, 1, (int)(ms > 1000 ? 1000 : ms)) > 0)
		while (read(watch, events, sizeof(events)) > 0)
			continue;
}

int stepdir_wait(const struct stepdir *dir, const char *name, unsigned timeout_s,
                 struct dist_err *err)
{
	time_t deadline;
	int watch, rc = 0;

	if (present(dir, name))
		return 0;
	deadline = time(NULL) + timeout_s;
	watch = watch_dir(dir);
	while (rc == 0 && !present(dir, name)) {
		time_t now = time(NULL);

		if (now > deadline)
			rc = dist_err_set(err,
			                  "%s/%s did not appear in %u s; the node's first task "
			                  "should have written it (see its errors)",
			                  dir->path, name, timeout_s);
		else
			sleep_for_change(watch, (long)(deadline - now + 1) * 1000);
	}
	if (watch >= 0)
		close(watch);
	return rc;
}

int stepdir_read(const struct stepdir *dir, const char *name, char **content, struct dist_err *err)
{
	int fd = openat(dir->fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	*content = fd >= 0 ? readall_fd(fd, 0, NULL) : NULL;
	if (!*content) {
		int saved = errno;

		if (fd >= 0)
			close(fd);
		return dist_err_set(err, "cannot read %s/%s: %s", dir->path, name, strerror(saved));
	}
	close(fd);
	return 0;
}
