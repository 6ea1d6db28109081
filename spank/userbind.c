/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "userbind.h"

#include <stdbool.h>

#include "dist_bind.h"

static bool cpu_given, gpu_given;

/* A value too long for the buffer is a list of masks or CPUs: a binding. */
static bool given(spank_t sp, const char *name)
{
	char value[256];
	spank_err_t rc = spank_getenv(sp, name, value, sizeof(value));

	if (rc == ESPANK_NOSPACE)
		return true;
	return rc == ESPANK_SUCCESS && dist_slurm_bind_given(value);
}

void userbind_note(spank_t sp)
{
	cpu_given = given(sp, "SLURM_CPU_BIND");
	gpu_given = given(sp, "SLURM_GPU_BIND");
}

const char *userbind_value(void)
{
	if (cpu_given && gpu_given)
		return "cpu,gpu";
	if (cpu_given)
		return "cpu";
	return gpu_given ? "gpu" : NULL;
}
