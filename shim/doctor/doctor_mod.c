/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "doctor/doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <hwloc.h>
#include <infiniband/verbs.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "base/module.h"
#include "base/readall.h"
#include "bind/rdma.h"
#include "config.h"
#include "dist_carry.h"
#include "dist_npu.h"
#include "dist_port.h"
#include "dist_protocol.h"
#include "doctor/plugstack.h"
#include "node/netlocal.h"
#include "slurm_compat.h"

#define PORT_RANGE_SYSCTL "/proc/sys/net/ipv4/ip_local_port_range"
#define HCCN_CONF_DEFAULT "/etc/hccn.conf"
#define NPU_DEVICES       "/dev/davinci[0-9]*"

enum verdict { OK, WARN, FAIL };

struct doctor {
	char host[HOST_NAME_MAX + 1];
	slurm_conf_t *slurm; /* slurmctld's configuration (plugstack, PluginDir, version) */
	unsigned failed;
	struct dist_config cfg; /* the plugstack line's, or the shim's defaults */
	bool have_line;
};

static void print_verdict(struct doctor *d, enum verdict v, const char *what, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* One line a check, host first: run on every node, the broken one is named. */
static void print_verdict(struct doctor *d, enum verdict v, const char *what, const char *fmt, ...)
{
	static const char *const words[] = {"OK  ", "WARN", "FAIL"};
	va_list ap;

	printf("dist-shim: doctor: %s: %s %s: ", d->host, words[v], what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (v == FAIL)
		d->failed++;
}

/* The whole file, NUL-terminated (a plugin or hccn.conf: no fixed limit). */
static char *read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = fd >= 0 ? readall_fd(fd, 0, len) : NULL;

	if (fd >= 0)
		close(fd);
	return buf;
}

/* "slurm-dist X, built for Slurm A.B.C" as the plugin file carries it. */
static char *plugin_build(const char *path)
{
	size_t len = 0;
	char *file = read_all(path, &len), *line = NULL;
	const char *at =
	        file ? memmem(file, len, DIST_BUILD_MARKER, strlen(DIST_BUILD_MARKER)) : NULL;

	if (at)
		line = strdup(at + strlen(DIST_BUILD_MARKER));
	free(file);
	return line;
}

/* Whether VERSION ("22.05.8", or a build line naming "Slurm 22.05.8") is
 * of the release this shim was built for: Slurm loads only a plugin built
 * for its own major.minor. */
static bool same_release(const char *version)
{
	const char *at = version ? strstr(version, "Slurm ") : NULL;
	size_t n = strlen(DIST_SLURM_RELEASE);

	if (at)
		version = at + strlen("Slurm ");
	return version && strncmp(version, DIST_SLURM_RELEASE, n) == 0 && version[n] == '.';
}

static void check_line_args(struct doctor *d, struct plugstack_line *line)
{
	struct dist_err err = {{0}};

	if (dist_config_parse(line->nargs, line->args, DIST_SHIM_PATH, &d->cfg, &err))
		print_verdict(d, FAIL, "plugstack", "%s in %s: the plugin refuses to load", err.msg,
		              line->file);
	else
		d->have_line = true;
}

/* dist-shim-enter where the plugin looks for it (DIST_SHIM_ENTER_PLACES). */
static bool enter_installed(const char *shim)
{
	const char *const places[] = DIST_SHIM_ENTER_PLACES;
	char copy[PATH_MAX], path[PATH_MAX + 64];
	const char *dir;
	bool found = false;

	snprintf(copy, sizeof(copy), "%s", shim);
	dir = dirname(copy);
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]) && !found; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, places[i]);
		found = access(path, X_OK) == 0;
	}
	return found;
}

/* Containers a plugin moves tasks into (docs/containers.md): the shim is
 * carried in only when dist runs after that plugin, or always. */
static void check_containers(struct doctor *d, const struct plugstack_line *line)
{
	if (!enter_installed(d->cfg.shim))
		print_verdict(d, WARN, "containers",
		              "no %s beside %s: tasks a plugin moves into a container (pyxis) "
		              "cannot be given the shim; reinstall slurm-dist",
		              DIST_SHIM_ENTER_NAME, d->cfg.shim);
	else if (line->container_after && !d->cfg.carry_always)
		print_verdict(d, WARN, "containers",
		              "%s is listed after spank_dist.so in plugstack.conf: the tasks it "
		              "moves into a container fail at Slurm's exec (the shim is not in the "
		              "image); list spank_dist.so after it, or add carry_shim=always",
		              line->container_after);
	else if (d->cfg.carry_always)
		print_verdict(d, OK, "containers",
		              "the shim is carried into every step (carry_shim=always)");
	else if (line->container_before)
		print_verdict(d, OK, "containers",
		              "%s is listed before spank_dist.so: the shim is carried into its "
		              "containers",
		              line->container_before);
	else
		print_verdict(d, OK, "containers",
		              "no container plugin in plugstack.conf (one listed before "
		              "spank_dist.so would get the shim carried in)");
}

static void check_plugin(struct doctor *d)
{
	const char *conf = d->slurm->plugstack;
	struct plugstack_line line;
	struct dist_err err = {{0}};
	char *build;
	int rc;

	if (!same_release(d->slurm->version))
		print_verdict(d, FAIL, "slurm",
		              "this cluster runs Slurm %s, this build is for %s: install "
		              "the slurm-dist built for %s",
		              d->slurm->version, DIST_SLURM_RELEASE, d->slurm->version);
	else
		print_verdict(d, OK, "slurm",
		              "slurmctld runs Slurm %s, the release this build is for",
		              d->slurm->version);
	if (!conf) {
		print_verdict(d, FAIL, "plugin", "Slurm names no PlugStackConfig");
		return;
	}
	rc = plugstack_find(conf, d->slurm->plugindir, &line, &err);
	if (rc < 0) {
		print_verdict(d, FAIL, "plugin", "%s", err.msg);
		return;
	}
	if (rc == 0) {
		print_verdict(
		        d, FAIL, "plugin",
		        "no line in %s loads spank_dist.so: add 'include "
		        "<prefix>/share/slurm-dist/plugstack.conf.d/*.conf' and restart slurmd",
		        conf);
		return;
	}
	build = plugin_build(line.path);
	if (!build)
		print_verdict(d, FAIL, "plugin",
		              "%s (from %s) is missing or not a slurm-dist build", line.path,
		              line.file);
	else if (!same_release(build))
		print_verdict(d, FAIL, "plugin",
		              "%s is %s, this node's Slurm is %s: Slurm refuses it; "
		              "install the package built for %s",
		              line.path, build, DIST_SLURM_RELEASE, DIST_SLURM_RELEASE);
	else
		print_verdict(d, OK, "plugin", "%s, %s, from %s", line.path, build, line.file);
	/* Slurm ignores every error of an optional plugin: a wrong option or
	 * configuration would load nothing, silently (docs/admin.md). */
	if (line.optional)
		print_verdict(d, WARN, "plugstack",
		              "%s:%d: '%s': optional loses every refusal of the plugin silently (a "
		              "typo, a wrong configuration): write required",
		              line.file, line.lineno, line.text);
	if (build)
		check_line_args(d, &line);
	if (d->have_line)
		check_containers(d, &line);
	free(build);
	plugstack_line_free(&line);
}

static void check_shim(struct doctor *d)
{
	if (access(d->cfg.shim, X_OK) == 0)
		print_verdict(d, OK, "shim", "%s is executable", d->cfg.shim);
	else
		print_verdict(d, FAIL, "shim",
		              "%s: %s: install dist-shim there or fix shim= in "
		              "plugstack.conf",
		              d->cfg.shim, strerror(errno));
}

/* The running shim's modules (base/module.h): each one a path may load. */
static void check_modules(struct doctor *d)
{
	unsigned bad = 0;

	for (int id = 0; id < MODULE_COUNT; id++) {
		struct dist_err err = {{0}};

		if (module_load((enum module_id)id, &err)) {
			print_verdict(d, FAIL, "modules", "%s", err.msg);
			bad++;
		}
	}
	if (!bad)
		print_verdict(d, OK, "modules", "all %d load, each from this build", MODULE_COUNT);
}

static bool slurm_plugin_exists(struct doctor *d, const char *name)
{
	char *dirs = d->slurm->plugindir ? strdup(d->slurm->plugindir) : NULL;
	char *dir, *save = NULL, *path;
	bool found = false;

	for (dir = dirs ? strtok_r(dirs, ":", &save) : NULL; dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		if (asprintf(&path, "%s/%s", dir, name) < 0)
			break;
		found = access(path, R_OK) == 0;
		free(path);
	}
	free(dirs);
	return found;
}

static void check_pmix(struct doctor *d)
{
	if (slurm_plugin_exists(d, "mpi_pmix.so"))
		print_verdict(d, OK, "pmix", "srun --mpi=pmix is available");
	else if (slurm_plugin_exists(d, "mpi_pmi2.so"))
		print_verdict(d, WARN, "pmix",
		              "no mpi_pmix.so in PluginDir %s: users launch with "
		              "--mpi=pmi2 (ps, ascend and port fallback need one of the two)",
		              d->slurm->plugindir);
	else
		print_verdict(d, FAIL, "pmix",
		              "neither mpi_pmix.so nor mpi_pmi2.so in PluginDir %s: "
		              "install Slurm's PMIx plugin",
		              d->slurm->plugindir ? d->slurm->plugindir : "?");
}

/* MASTER_PORT comes from port_range; a port the kernel may hand out as an
 * ephemeral source port at the same moment would make binds fail at random. */
static void check_ports(struct doctor *d)
{
	struct dist_port_range range;
	struct dist_err err = {{0}};
	unsigned lo = 0, hi = 0;
	FILE *f = fopen(PORT_RANGE_SYSCTL, "r");
	int n = f ? fscanf(f, "%u %u", &lo, &hi) : 0;

	if (f)
		fclose(f);
	if (dist_port_range_parse(d->cfg.port_range, &range, &err))
		print_verdict(d, FAIL, "ports", "%s", err.msg);
	else if (n != 2)
		print_verdict(d, WARN, "ports", "cannot read %s", PORT_RANGE_SYSCTL);
	else if (range.lo <= hi && lo <= range.hi)
		print_verdict(d, FAIL, "ports",
		              "port_range %u-%u overlaps net.ipv4.ip_local_port_range "
		              "%u-%u: move port_range= in plugstack.conf or the sysctl",
		              range.lo, range.hi, lo, hi);
	else
		print_verdict(d, OK, "ports",
		              "port_range %u-%u is outside net.ipv4.ip_local_port_range "
		              "%u-%u",
		              range.lo, range.hi, lo, hi);
}

/* The interface this node reaches slurmctld through: the other nodes are
 * reached the same way on a flat cluster network, never through lo. */
static void check_interface(struct doctor *d)
{
	const char *ctl = d->slurm->control_cnt ? d->slurm->control_addr[0] : NULL;
	struct dist_addr_list local = {0};
	struct dist_err err = {{0}};
	char src_text[DIST_ADDR_MAX];
	const char *ifname;
	uint32_t ctl_addr, src;

	if (!ctl || netlocal_resolve(ctl, &ctl_addr) != 0) {
		print_verdict(d, FAIL, "interface", "cannot resolve slurmctld's address '%s'",
		              ctl ? ctl : "(none in slurm.conf)");
		return;
	}
	src = netlocal_route_src(ctl_addr);
	if (!src || netlocal_addrs(&local, &err) != 0) {
		print_verdict(d, FAIL, "interface",
		              "no route to slurmctld %s: check the node's network", ctl);
		return;
	}
	dist_ipv4_format(src, src_text);
	ifname = dist_local_ifname_for(ctl_addr, &local, src);
	if (!ifname || strcmp(ifname, "lo") == 0 || (src >> 24) == 127)
		print_verdict(d, FAIL, "interface",
		              "slurmctld %s is reached from %s through %s, not a "
		              "network interface: check SlurmctldHost and routes",
		              ctl, src_text, ifname ? ifname : "?");
	else
		print_verdict(d, OK, "interface", "%s (%s) reaches slurmctld %s", ifname, src_text,
		              ctl);
}

/* GPUs as hwloc sees them: PCI 3D controllers (datacenter GPUs) and
 * NVIDIA/AMD display controllers. */
static unsigned count_gpus(void)
{
	hwloc_topology_t topo;
	hwloc_obj_t o = NULL;
	unsigned n = 0;

	if (hwloc_topology_init(&topo) != 0)
		return 0;
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	if (hwloc_topology_load(topo) == 0)
		while ((o = hwloc_get_next_pcidev(topo, o)))
			if (o->attr->pcidev.class_id == 0x0302 ||
			    (o->attr->pcidev.class_id == 0x0300 &&
			     (o->attr->pcidev.vendor_id == 0x10de ||
			      o->attr->pcidev.vendor_id == 0x1002)))
				n++;
	hwloc_topology_destroy(topo);
	return n;
}

static void check_devices(struct doctor *d)
{
	int count = 0;
	struct ibv_device **list = ibv_get_device_list(&count);
	unsigned down = 0, gpus = count_gpus();
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");

	for (int i = 0; list && i < count; i++) {
		struct dist_err err = {{0}};
		bool active = false;
		int gid = -1;

		if (rdma_inspect(ibv_get_device_name(list[i]), &active, &gid, &err) != 0 || !active)
			down++;
	}
	if (list)
		ibv_free_device_list(list);
	if (visible && visible[0] && gpus == 0)
		print_verdict(d, WARN, "devices", "Slurm gave GPUs %s but hwloc sees none",
		              visible);
	else if (down)
		print_verdict(d, WARN, "devices",
		              "hwloc sees %u GPUs; ibverbs %d HCAs, %u with port 1 "
		              "not active",
		              gpus, count, down);
	else
		print_verdict(d, OK, "devices", "hwloc sees %u GPUs; ibverbs %d HCAs%s", gpus,
		              count, count ? ", port 1 active on each" : "");
}

/* Mode ascend needs every NPU's address in hccn.conf (docs/ascend.md). */
static void check_npus(struct doctor *d)
{
	const char *path = getenv("DIST_HCCN_CONF") ? getenv("DIST_HCCN_CONF") : HCCN_CONF_DEFAULT;
	struct dist_npu npus[DIST_NPUS_MAX];
	uint32_t ids[DIST_NPUS_MAX];
	struct dist_err err = {{0}};
	glob_t g = {0};
	uint32_t n = 0;
	size_t len;
	char *text;

	if (glob(NPU_DEVICES, 0, NULL, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc && n < DIST_NPUS_MAX; i++)
			ids[n++] =
			        (uint32_t)strtoul(g.gl_pathv[i] + strlen("/dev/davinci"), NULL, 10);
	globfree(&g);
	if (n == 0) {
		print_verdict(d, OK, "npus", "none on this node");
		return;
	}
	text = read_all(path, &len);
	if (!text)
		print_verdict(d, FAIL, "npus",
		              "%u NPUs but %s: %s (hccn_tool writes it; DIST_HCCN_CONF "
		              "names another path)",
		              n, path, strerror(errno));
	else if (dist_hccn_lookup(text, ids, n, npus, &err) != 0)
		print_verdict(d, FAIL, "npus", "%s: %s", path, err.msg);
	else
		print_verdict(d, OK, "npus", "%u NPUs, each with its address in %s", n, path);
	free(text);
}

int doctor_run(const char *port_range)
{
	struct doctor d = {.failed = 0};
	struct dist_err err = {{0}};
	char *args[1];

	if (gethostname(d.host, sizeof(d.host) - 1) != 0)
		strcpy(d.host, "?");
	printf("dist-shim: doctor: %s: %s\n", d.host, DIST_VERSION_LINE);
	/* Without a plugstack line: the shim's own defaults (the module route). */
	args[0] = NULL;
	if (asprintf(&args[0], "port_range=%s", port_range) < 0 ||
	    dist_config_parse(1, args, DIST_SHIM_PATH, &d.cfg, &err))
		dist_config_parse(0, args, DIST_SHIM_PATH, &d.cfg, &err);
	free(args[0]);
	slurm_init(NULL);
	if (slurm_load_ctl_conf((time_t)0, &d.slurm) != SLURM_SUCCESS) {
		print_verdict(&d, FAIL, "slurmctld", "cannot read its configuration: %s",
		              slurm_strerror(errno));
		return 1;
	}
	check_plugin(&d);
	if (!d.have_line) {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		/* No plugin to hand tasks to a shim: check this one. */
		if (n > 0 && (size_t)n < sizeof(d.cfg.shim)) {
			self[n] = '\0';
			memcpy(d.cfg.shim, self, (size_t)n + 1);
		}
	}
	check_shim(&d);
	check_modules(&d);
	check_pmix(&d);
	check_ports(&d);
	check_interface(&d);
	check_devices(&d);
	check_npus(&d);
	dist_free_ctl_conf(d.slurm);
	if (d.failed)
		printf("dist-shim: doctor: %s: %u problem%s\n", d.host, d.failed,
		       d.failed == 1 ? "" : "s");
	else
		printf("dist-shim: doctor: %s: all OK\n", d.host);
	return d.failed ? 1 : 0;
}

MODULE_EXPORT const struct doctor_module dist_shim_module_doctor = {MODULE_ABI, doctor_run};
