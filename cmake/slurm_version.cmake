# SPDX-License-Identifier: GPL-2.0-or-later
# The Slurm release this build is for, from the headers it is built against
# (slurm/slurm_version.h has only SLURM_VERSION_NUMBER, 0xMMmmuu): a plugin
# built for one release is refused by another, so the version strings, the
# package's version and its dependency on libslurm all name it.
#   DIST_SLURM_VERSION        e.g. 22.05.8
#   DIST_SLURM_RELEASE        e.g. 22.05 (what must match at run time)
#   DIST_VERSION_LINE         e.g. "slurm-dist 0.1.0, built for Slurm 22.05.8"
file(STRINGS "${SLURM_INCLUDE_DIR}/slurm/slurm_version.h" _dist_slurm_number
     REGEX "^#define[ \t]+SLURM_VERSION_NUMBER[ \t]+0x[0-9a-fA-F]+")
if(NOT _dist_slurm_number MATCHES "0x([0-9a-fA-F]+)")
  message(FATAL_ERROR "no SLURM_VERSION_NUMBER in ${SLURM_INCLUDE_DIR}/slurm/slurm_version.h")
endif()
math(EXPR _dist_n "0x${CMAKE_MATCH_1}")
math(EXPR _dist_major "(${_dist_n} >> 16) & 255")
math(EXPR _dist_minor "(${_dist_n} >> 8) & 255")
math(EXPR _dist_micro "${_dist_n} & 255")
if(_dist_minor LESS 10)
  set(_dist_minor "0${_dist_minor}")
endif()
set(DIST_SLURM_RELEASE "${_dist_major}.${_dist_minor}")
set(DIST_SLURM_VERSION "${DIST_SLURM_RELEASE}.${_dist_micro}")
set(DIST_VERSION_LINE "slurm-dist ${PROJECT_VERSION}, built for Slurm ${DIST_SLURM_VERSION}")
message(STATUS "Building for Slurm ${DIST_SLURM_VERSION}")
