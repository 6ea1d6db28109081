/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program that wires itself up through Slurm's PMI2, as an MPI library
 * would: each rank puts a key, fences, and reads its left neighbour's. */
#include <slurm/pmi2.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	int spawned, size, rank, appnum, len;
	char jobid[PMI2_MAX_VALLEN], key[PMI2_MAX_KEYLEN], value[PMI2_MAX_VALLEN];

	if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS ||
	    PMI2_Job_GetId(jobid, sizeof(jobid)) != PMI2_SUCCESS) {
		fprintf(stderr, "pmi2_hello: PMI2_Init failed\n");
		return 1;
	}
	snprintf(key, sizeof(key), "hello-%d", rank);
	snprintf(value, sizeof(value), "%d", rank);
	if (PMI2_KVS_Put(key, value) != PMI2_SUCCESS || PMI2_KVS_Fence() != PMI2_SUCCESS)
		return 1;
	snprintf(key, sizeof(key), "hello-%d", (rank + size - 1) % size);
	if (PMI2_KVS_Get(jobid, PMI2_ID_NULL, key, value, sizeof(value), &len) != PMI2_SUCCESS)
		return 1;
	printf("PMI2-OK rank=%d size=%d left=%s\n", rank, size, value);
	fflush(stdout);
	PMI2_Finalize();
	return 0;
}
