/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test only, never installed: a SPANK plugin that does to a task what
 * pyxis does (issue 22), and nothing else. With --fake-container=IMAGE, its
 * task_init
 *   - imports an environment over the job's, overwriting, as pyxis imports
 *     the container's (MASTER_ADDR and MASTER_PORT as enroot's PyTorch hook
 *     sets them, job id mod 4536 + 61000; PYTORCH_VERSION, and so RANK and
 *     LOCAL_RANK copied from Slurm's ids as pyxis does for it);
 *   - moves the task into a mount namespace whose root is IMAGE: the node's
 *     /proc, /sys and /dev, a /tmp of the container's own (one per node and
 *     step, shared by the node's tasks as pyxis's one container is), the
 *     PMIx directories enroot's slurm-pmix hook binds, and the node's paths
 *     listed in IMAGE/.fake-binds; IMAGE becomes the namespace's root
 *     (pivot_root, as enroot does).
 * Slurm then execs the task's command line inside, as with pyxis. Runs as
 * root (the test cluster's jobs are root's): no user namespace. */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <sched.h>
#include <slurm/spank.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

SPANK_PLUGIN(fake_container, 1);

static char *image;

static int take_image(int val, const char *optarg, int remote)
{
	(void)val;
	(void)remote;
	free(image);
	image = optarg && optarg[0] == '/' ? strdup(optarg) : NULL;
	return image ? 0 : -1;
}

struct spank_option spank_options[] = {
        {"fake-container", "IMAGE", "Run each task in IMAGE, as pyxis does (slurm-dist's tests)", 1,
         0, take_image},
        SPANK_OPTIONS_TABLE_END};

static int fail(const char *what, const char *path)
{
	slurm_error("fake_container: %s %s: %s", what, path, strerror(errno));
	return -1;
}

static int set_env(spank_t sp, const char *name, const char *value)
{
	if (spank_setenv(sp, name, value, 1) != ESPANK_SUCCESS) {
		slurm_error("fake_container: cannot set %s", name);
		return -1;
	}
	return 0;
}

static int copy_env(spank_t sp, const char *from, const char *to)
{
	char value[64];

	if (spank_getenv(sp, from, value, sizeof(value)) != ESPANK_SUCCESS)
		return 0;
	return set_env(sp, to, value);
}

/* What pyxis's import and enroot's PyTorch hook would leave. */
static int import_env(spank_t sp)
{
	uint32_t job = 0;
	char port[16];

	spank_get_item(sp, S_JOB_ID, &job);
	snprintf(port, sizeof(port), "%u", job % 4536 + 61000);
	if (set_env(sp, "MASTER_ADDR", "fake-enroot-master") || set_env(sp, "MASTER_PORT", port) ||
	    set_env(sp, "PYTORCH_VERSION", "fake") || set_env(sp, "FAKE_CONTAINER", image))
		return -1;
	return copy_env(sp, "SLURM_PROCID", "RANK") || copy_env(sp, "SLURM_LOCALID", "LOCAL_RANK");
}

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

/* An empty file at PATH to bind one on. */
static int make_file(const char *path)
{
	FILE *f = fopen(path, "a");

	return f ? fclose(f) : -1;
}

/* The node's SRC at TARGET inside the image (made when missing). */
static int bind_in(const char *src, const char *target)
{
	char at[PATH_MAX];
	struct stat st;

	snprintf(at, sizeof(at), "%s%s", image, target);
	if (stat(src, &st))
		return fail("cannot find", src);
	if (S_ISDIR(st.st_mode) ? mkdirs(at) : make_file(at))
		return fail("cannot make", at);
	if (mount(src, at, NULL, MS_BIND | MS_REC, NULL))
		return fail("cannot bind", src);
	return 0;
}

/* The PMIx server's directories, as enroot's slurm-pmix hook binds them. */
static int bind_pmix(spank_t sp)
{
	char dir[PATH_MAX];
	glob_t g;
	int rc = 0;

	if (spank_getenv(sp, "PMIX_SERVER_TMPDIR", dir, sizeof(dir)) == ESPANK_SUCCESS &&
	    bind_in(dir, dir))
		return -1;
	if (glob("/tmp/spmix_appdir_*", 0, NULL, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc && !rc; i++)
			rc = bind_in(g.gl_pathv[i], g.gl_pathv[i]);
	globfree(&g);
	return rc;
}

static int bind_listed(void)
{
	char list[PATH_MAX], line[PATH_MAX];
	FILE *f;
	int rc = 0;

	snprintf(list, sizeof(list), "%s/.fake-binds", image);
	f = fopen(list, "r");
	if (!f)
		return 0;
	while (!rc && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '/')
			rc = bind_in(line, line);
	}
	fclose(f);
	return rc;
}

/* The container's own /tmp: one per node and step, beside the image. */
static int own_tmp(spank_t sp)
{
	uint32_t job = 0, step = 0;
	char host[64] = "", dir[PATH_MAX];

	spank_get_item(sp, S_JOB_ID, &job);
	spank_get_item(sp, S_JOB_STEPID, &step);
	gethostname(host, sizeof(host) - 1);
	snprintf(dir, sizeof(dir), "%s.tmp/%s.%u.%u", image, host, job, step);
	if (mkdirs(dir) || chmod(dir, 01777))
		return fail("cannot make", dir);
	return bind_in(dir, "/tmp");
}

static int enter(spank_t sp)
{
	char cwd[PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/");
	if (unshare(CLONE_NEWNS))
		return fail("cannot unshare the mount namespace of", "the task");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return fail("cannot make private", "/");
	if (mount(image, image, NULL, MS_BIND | MS_REC, NULL))
		return fail("cannot bind", image);
	if (bind_in("/proc", "/proc") || bind_in("/sys", "/sys") || bind_in("/dev", "/dev") ||
	    own_tmp(sp) || bind_pmix(sp) || bind_listed())
		return -1;
	/* The image becomes the namespace's root, as enroot's pivot_root makes
	 * it: what enters the namespace later (setns) finds the image too. */
	if (chdir(image) || syscall(SYS_pivot_root, ".", ".") || umount2(".", MNT_DETACH))
		return fail("cannot make the root", image);
	if (chdir(cwd) && chdir("/"))
		return fail("cannot chdir to", cwd);
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || !image)
		return 0;
	return import_env(sp) || enter(sp) ? -1 : 0;
}
