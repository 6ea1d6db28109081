/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmixmin: the least a PMIx client can do before exec'ing a program, as the
 * floor dist-shim's PMIx path is compared with (bench/pmix_floor.sh).
 *
 *   pmixmin init|fence|put PROGRAM [ARGS...]
 *
 * init:  PMIx_Init, PMIx_Finalize, exec
 * fence: PMIx_Init, an empty fence (no data), PMIx_Finalize, exec
 * put:   PMIx_Init, one PMIx_Put of a short string and PMIx_Commit, a
 *        collecting fence (PMIX_COLLECT_DATA), PMIx_Finalize, exec: the
 *        shape of the shim's exchange, without its reads or its logic
 * Exit: 1 PMIx failed, 2 usage, 127 exec failed. */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pmix_proc_t me;
	pmix_info_t info;
	pmix_value_t val;
	bool collect = true;

	if (argc < 3 || (strcmp(argv[1], "init") && strcmp(argv[1], "fence") && strcmp(argv[1], "put"))) {
		fprintf(stderr, "usage: pmixmin init|fence|put PROGRAM [ARGS...]\n");
		return 2;
	}
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	if (strcmp(argv[1], "put") == 0) {
		val.type = PMIX_STRING;
		val.data.string = "eth0=10.0.0.1/24";
		if (PMIx_Put(PMIX_GLOBAL, "bench.addr", &val) != PMIX_SUCCESS ||
		    PMIx_Commit() != PMIX_SUCCESS)
			return 1;
		PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
		if (PMIx_Fence(NULL, 0, &info, 1) != PMIX_SUCCESS)
			return 1;
	} else if (strcmp(argv[1], "fence") == 0) {
		if (PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS)
			return 1;
	}
	PMIx_Finalize(NULL, 0);
	execv(argv[2], argv + 2);
	perror("pmixmin: exec");
	return 127;
}
