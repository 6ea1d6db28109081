# SPDX-License-Identifier: GPL-2.0-or-later
# Whether this Slurm lets a SPANK plugin choose how its init failure is
# handled (slurm_spank_init_failure_mode, Slurm 25.05 and later).
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_INCLUDES ${SLURM_INCLUDE_DIR})
set(CMAKE_REQUIRED_FLAGS "-Werror")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
check_c_source_compiles("
#include <slurm/spank.h>
int mode = ESPANK_JOB_FAILURE;
int main(void) { return mode == 0; }"
  DIST_HAVE_SPANK_FAILURE_MODE)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_TRY_COMPILE_TARGET_TYPE)
unset(CMAKE_REQUIRED_INCLUDES)
