/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An MPI program in C: allreduce of the ranks, checked. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, sum = 0, one;
	char host[64] = "?";

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	one = rank + 1;
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	gethostname(host, sizeof(host) - 1);
	if (sum == size * (size + 1) / 2)
		printf("C-MPI-OK rank=%d size=%d host=%s\n", rank, size, host);
	MPI_Finalize();
	return sum == size * (size + 1) / 2 ? 0 : 1;
}
