/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "userbind.h"

#include <stdbool.h>

#include "dist_bind.h"

static bool cpu_given;

void userbind_note(spank_t sp)
{
	char value[256];
	spank_err_t rc = spank_getenv(sp, "SLURM_CPU_BIND", value, sizeof(value));

	/* A value too long for the buffer is a list of masks or CPUs: a binding. */
	cpu_given = rc == ESPANK_NOSPACE || (rc == ESPANK_SUCCESS && dist_slurm_bind_given(value));
}

const char *userbind_value(void)
{
	return cpu_given ? "cpu" : NULL;
}
