#include "stepdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Opens PARENT/NAME, creating it 0700; refuses a symlink, another owner, or
 * access for group or others. */
static int open_private_dir(int parent, const char *parent_path, const char *name,
                            struct dist_err *err)
{
	struct stat st;
	int fd;

	if (mkdirat(parent, name, 0700) != 0 && errno != EEXIST)
		return dist_err_set(err, "cannot create %s/%s: %s", parent_path, name,
		                    strerror(errno));
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return dist_err_set(err, "cannot open %s/%s: %s (a symlink is refused)",
		                    parent_path, name, strerror(errno));
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
		close(fd);
		return dist_err_set(err,
		                    "refusing %s/%s: it must belong to uid %u with mode 0700; "
		                    "remove it or set TMPDIR elsewhere",
		                    parent_path, name, (unsigned)geteuid());
	}
	return fd;
}

static const char *base_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

int stepdir_open(uint32_t jobid, uint32_t stepid, struct stepdir *dir, struct dist_err *err)
{
	const char *base = base_dir();
	char user[64], step[64], user_path[PATH_MAX];
	int base_fd, user_fd;

	snprintf(user, sizeof(user), "slurm-dist.%u", (unsigned)geteuid());
	snprintf(step, sizeof(step), "job%u.step%u", jobid, stepid);
	base_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (base_fd < 0)
		return dist_err_set(err, "cannot open %s for the step's files: %s", base,
		                    strerror(errno));
	user_fd = open_private_dir(base_fd, base, user, err);
	close(base_fd);
	if (user_fd < 0)
		return -1;
	if ((size_t)snprintf(user_path, sizeof(user_path), "%s/%s", base, user) >=
	    sizeof(user_path) - sizeof(step)) {
		close(user_fd);
		return dist_err_set(err, "TMPDIR %s is too long", base);
	}
	dir->fd = open_private_dir(user_fd, user_path, step, err);
	close(user_fd);
	if (dir->fd < 0)
		return -1;
	strcpy(dir->path, user_path);
	strcat(dir->path, "/");
	strcat(dir->path, step);
	return 0;
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

int stepdir_wait(const struct stepdir *dir, const char *name, unsigned timeout_s,
                 struct dist_err *err)
{
	struct timespec nap = {0, 5 * 1000 * 1000};
	time_t deadline = time(NULL) + timeout_s;

	while (faccessat(dir->fd, name, F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
		if (time(NULL) > deadline)
			return dist_err_set(err,
			                    "%s/%s did not appear in %u s; the node's first task "
			                    "should have written it (see its errors)",
			                    dir->path, name, timeout_s);
		nanosleep(&nap, NULL);
	}
	return 0;
}
