/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An MPI program that prints, with its own MPI rank, what the distributed
 * contract told it: one line per rank, "-" for a variable not set. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *var(const char *name)
{
	const char *value = getenv(name);

	return value ? value : "-";
}

int main(int argc, char **argv)
{
	int rank, size;
	char host[64] = "?";

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	gethostname(host, sizeof(host) - 1);
	printf("MPI-ENV mpi=%d/%d host=%s RANK=%s WORLD_SIZE=%s LOCAL_RANK=%s NODE_RANK=%s "
	       "MASTER_ADDR=%s PMI_RANK=%s GLOO_SOCKET_IFNAME=%s HOSTFILE=%s\n",
	       rank, size, host, var("RANK"), var("WORLD_SIZE"), var("LOCAL_RANK"),
	       var("NODE_RANK"), var("MASTER_ADDR"), var("PMI_RANK"), var("GLOO_SOCKET_IFNAME"),
	       var("OMPI_MCA_orte_default_hostfile"));
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
