# SPDX-License-Identifier: GPL-2.0-or-later
# Which libslurm API this release has (see slurm_compat.h).
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_INCLUDES ${SLURM_INCLUDE_DIR})
set(CMAKE_REQUIRED_FLAGS "-Werror")
# Only the header matters: compile, do not link against libslurm.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
check_c_source_compiles("
#include <stdint.h>
#include <slurm/slurm.h>
int main(void) { hostlist_t *hl = slurm_hostlist_create(\"a\"); return hl == 0; }"
  DIST_HOSTLIST_IS_STRUCT)
check_c_source_compiles("
#include <stdint.h>
#include <slurm/slurm.h>
int main(void) { slurm_free_conf(0); return 0; }"
  DIST_HAVE_SLURM_FREE_CONF)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_TRY_COMPILE_TARGET_TYPE)
unset(CMAKE_REQUIRED_INCLUDES)
