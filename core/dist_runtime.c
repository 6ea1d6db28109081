/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A container runtime's line, read up to its image: does the contract reach
 * the program it starts? (docs/containers.md) */
#include "dist_runtime.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "dist_launch.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

enum opt_kind {
	OPT_FLAG,         /* no bearing on the contract */
	OPT_VALUE,        /* takes a value; no bearing on the contract */
	OPT_DROPS,        /* removes every variable */
	OPT_DROPS_HIDES,  /* removes every variable and hides the node's /tmp */
	OPT_HIDES,        /* hides the node's /tmp */
	OPT_UNSET,        /* value: a pattern of variables to remove */
	OPT_ENV,          /* value: variables given to the program */
	OPT_ENV_OPTIONAL, /* as OPT_ENV, its value only after '=' */
	OPT_BIND,         /* value: SRC[:DST] (a comma list of them where bind_lists) */
};

struct opt {
	const char *shrt; /* "-t", or NULL */
	const char *lng;  /* "--private-tmp" */
	enum opt_kind kind;
};

/* Charliecloud's ch-run (0.31 in Debian 12 to 0.45 in forky). */
static const struct opt ch_run_opts[] = {
        {"-b", "--bind", OPT_BIND},          {"-c", "--cd", OPT_VALUE},
        {"-g", "--gid", OPT_VALUE},          {"-u", "--uid", OPT_VALUE},
        {"-m", "--mount", OPT_VALUE},        {"-s", "--storage", OPT_VALUE},
        {NULL, "--join-ct", OPT_VALUE},      {NULL, "--join-pid", OPT_VALUE},
        {NULL, "--join-tag", OPT_VALUE},     {NULL, "--set-env", OPT_ENV_OPTIONAL},
        {NULL, "--unset-env", OPT_UNSET},    {"-t", "--private-tmp", OPT_HIDES},
        {"-w", "--write", OPT_FLAG},         {"-W", "--write-fake", OPT_FLAG},
        {"-v", "--verbose", OPT_FLAG},       {"-q", "--quiet", OPT_FLAG},
        {"-j", "--join", OPT_FLAG},          {NULL, "--no-passwd", OPT_FLAG},
        {NULL, "--no-home", OPT_FLAG},       {NULL, "--home", OPT_FLAG},
        {NULL, "--env-no-expand", OPT_FLAG}, {NULL, "--ch-ssh", OPT_FLAG},
        {NULL, "--unsafe", OPT_FLAG},        {NULL, "--seccomp", OPT_FLAG},
};

/* Apptainer's and Singularity's exec, run and shell. */
static const struct opt apptainer_opts[] = {
        {"-e", "--cleanenv", OPT_DROPS},
        {"-C", "--containall", OPT_DROPS_HIDES},
        {"-c", "--contain", OPT_HIDES},
        {NULL, "--env", OPT_ENV},
        {NULL, "--env-file", OPT_ENV},
        {"-B", "--bind", OPT_BIND},
        {NULL, "--mount", OPT_VALUE},
        {"-H", "--home", OPT_VALUE},
        {"-W", "--workdir", OPT_VALUE},
        {NULL, "--pwd", OPT_VALUE},
        {"-o", "--overlay", OPT_VALUE},
        {"-S", "--scratch", OPT_VALUE},
        {NULL, "--app", OPT_VALUE},
        {NULL, "--network", OPT_VALUE},
        {NULL, "--network-args", OPT_VALUE},
        {NULL, "--hostname", OPT_VALUE},
        {NULL, "--security", OPT_VALUE},
        {NULL, "--no-mount", OPT_VALUE},
        {NULL, "--nv", OPT_FLAG},
        {NULL, "--rocm", OPT_FLAG},
        {"-w", "--writable", OPT_FLAG},
        {NULL, "--writable-tmpfs", OPT_FLAG},
        {"-f", "--fakeroot", OPT_FLAG},
        {"-u", "--userns", OPT_FLAG},
        {NULL, "--no-home", OPT_FLAG},
        {NULL, "--no-privs", OPT_FLAG},
        {"-s", "--silent", OPT_FLAG},
        {"-q", "--quiet", OPT_FLAG},
};

struct runtime {
	const char *name;
	const char *subcommands; /* space-separated, one of them must follow; or NULL */
	const struct opt *opts;
	size_t nopts;
	bool bind_lists; /* a bind option's value is a comma list */
};

static const struct runtime runtimes[] = {
        {"ch-run", NULL, ch_run_opts, COUNT(ch_run_opts), false},
        {"apptainer", " exec run shell ", apptainer_opts, COUNT(apptainer_opts), true},
        {"singularity", " exec run shell ", apptainer_opts, COUNT(apptainer_opts), true},
};

static bool opt_takes_value(enum opt_kind kind)
{
	switch (kind) {
	case OPT_VALUE:
	case OPT_UNSET:
	case OPT_ENV:
	case OPT_ENV_OPTIONAL:
	case OPT_BIND:
		return true;
	case OPT_FLAG:
	case OPT_DROPS:
	case OPT_DROPS_HIDES:
	case OPT_HIDES:
		return false;
	}
	return false;
}

/* The option ARG is in OPTS, with its value in *VALUE (NULL when it takes
 * none, or it was missing); advances *I past the value when separate. */
static const struct opt *find_opt(const struct opt *opts, size_t n, char *const *argv, size_t *i,
                                  const char **value)
{
	const char *arg = argv[*i];

	*value = NULL;
	for (size_t k = 0; k < n; k++) {
		const struct opt *o = &opts[k];
		size_t len = strlen(o->lng);
		bool takes = opt_takes_value(o->kind);

		if (strncmp(arg, o->lng, len) == 0 && (arg[len] == '\0' || arg[len] == '=')) {
			if (arg[len] == '=')
				*value = arg + len + 1;
			else if (takes && o->kind != OPT_ENV_OPTIONAL && argv[*i + 1])
				*value = argv[++*i];
			return o;
		}
		if (o->shrt && strncmp(arg, o->shrt, 2) == 0) {
			if (arg[2] == '\0') {
				if (takes && argv[*i + 1])
					*value = argv[++*i];
				return o;
			}
			if (takes) {
				*value = arg + 2;
				return o;
			}
		}
	}
	return NULL;
}

/* SRC[:DST] holds the step's directory at its own path inside. */
static bool bind_holds(const char *entry, size_t len, const char *step_dir)
{
	const char *colon = memchr(entry, ':', len);
	size_t src_len = colon ? (size_t)(colon - entry) : len;

	if (!step_dir || src_len == 0)
		return false;
	if (colon) {
		const char *dst = colon + 1;
		const char *end = memchr(dst, ':', len - src_len - 1);
		size_t dst_len = end ? (size_t)(end - dst) : len - src_len - 1;

		if (dst_len != src_len || strncmp(dst, entry, src_len) != 0)
			return false;
	}
	while (src_len > 1 && entry[src_len - 1] == '/')
		src_len--;
	return strncmp(step_dir, entry, src_len) == 0 &&
	       (step_dir[src_len] == '\0' || step_dir[src_len] == '/' || src_len == 1);
}

/* One bind option's value: SRC[:DST] for ch-run, a comma list of them
 * (SRC[:DST[:OPTS]]) for Apptainer. */
static bool binds_step_dir(const char *value, bool list, const char *step_dir)
{
	while (value && *value) {
		const char *comma = list ? strchr(value, ',') : NULL;
		size_t len = comma ? (size_t)(comma - value) : strlen(value);

		if (bind_holds(value, len, step_dir))
			return true;
		value = comma ? comma + 1 : NULL;
	}
	return false;
}

static const char *first_matched(const char *pattern, const char *const *names, size_t count)
{
	for (size_t i = 0; pattern && i < count; i++)
		if (fnmatch(pattern, names[i], 0) == 0)
			return names[i];
	return NULL;
}

/* What option ARG (with VALUE) does to the contract. */
static void note_opt(const struct opt *o, const char *arg, const char *value,
                     const struct runtime *rt, const char *const *names, size_t count,
                     const char *step_dir, struct dist_runtime_line *line)
{
	const char *name;

	switch (o->kind) {
	case OPT_DROPS_HIDES:
		line->hides = arg;
		/* fall through */
	case OPT_DROPS:
		if (count && !line->drops) {
			line->drops = arg;
			line->dropped = names[0];
		}
		break;
	case OPT_HIDES:
		line->hides = arg;
		break;
	case OPT_UNSET:
		name = first_matched(value, names, count);
		if (name && !line->drops) {
			line->drops = arg;
			line->dropped = name;
		}
		break;
	case OPT_ENV:
	case OPT_ENV_OPTIONAL:
		if (value)
			line->env_given = true;
		break;
	case OPT_BIND:
		if (binds_step_dir(value, rt->bind_lists, step_dir))
			line->step_dir_bound = true;
		break;
	case OPT_FLAG:
	case OPT_VALUE:
		break;
	}
}

void dist_runtime_read(char *const *argv, const char *const *names, size_t count,
                       const char *step_dir, struct dist_runtime_line *line)
{
	const struct runtime *rt = NULL;
	size_t i = 1;

	memset(line, 0, sizeof(*line));
	if (!argv || !argv[0])
		return;
	for (size_t k = 0; k < COUNT(runtimes) && !rt; k++)
		if (strcmp(dist_program_name(argv[0]), runtimes[k].name) == 0)
			rt = &runtimes[k];
	if (!rt)
		return;
	if (rt->subcommands) {
		char word[16];

		if (!argv[1] || strlen(argv[1]) + 3 > sizeof(word))
			return;
		snprintf(word, sizeof(word), " %s ", argv[1]);
		if (!strstr(rt->subcommands, word))
			return;
		i = 2;
	}
	line->runtime = rt->name;
	for (; argv[i] && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
		const char *arg = argv[i], *value;
		const struct opt *o = find_opt(rt->opts, rt->nopts, argv, &i, &value);

		if (!o)
			return;
		note_opt(o, arg, value, rt, names, count, step_dir, line);
	}
}

void dist_runtime_describe(const struct dist_runtime_line *line, bool needs_files, char *buf,
                           size_t len)
{
	const char *env, *tmp;

	if (!line->runtime) {
		snprintf(buf, len,
		         "none: the program runs on the node (a container it starts "
		         "itself is not seen)");
		return;
	}
	env = line->drops ? "the variables its options give back"
	                  : "the contract in its environment";
	if (!line->hides)
		tmp = "the node's /tmp, with the step's directory";
	else if (line->step_dir_bound)
		tmp = "a /tmp of its own, the step's directory bound inside";
	else if (!needs_files)
		tmp = "a /tmp of its own (this mode writes no files for the program)";
	else
		tmp = "a /tmp of its own, without the step's directory";
	snprintf(buf, len, "%s started by the step: %s; %s", line->runtime, env, tmp);
}

int dist_runtime_check(const struct dist_runtime_line *line, const char *step_dir, bool needs_files,
                       struct dist_err *err)
{
	if (!line->runtime)
		return 0;
	if (line->drops && !line->env_given)
		return dist_err_set(err,
		                    "%s %s would start the program without the contract (%s and "
		                    "the rest): each task would run alone; leave %s out, or give "
		                    "the variables back (docs/containers.md)",
		                    line->runtime, line->drops, line->dropped, line->drops);
	if (line->hides && needs_files && !line->step_dir_bound)
		return dist_err_set(err,
		                    "%s %s gives the program a /tmp of its own, without the step's "
		                    "directory %s and the mode's files in it; leave %s out, or "
		                    "bind that directory at its own path (docs/containers.md)",
		                    line->runtime, line->hides, step_dir ? step_dir : "(none)",
		                    line->hides);
	return 0;
}
