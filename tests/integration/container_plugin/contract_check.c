/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test only: a static program for an image that has nothing else (no
 * /usr, no libc): it shows what a task finds inside (issue 22). Prints
 * one line: where it runs (the image's marker file, whether the node's
 * shim path ARGV[1] exists here), the contract's variables, and the size
 * of the file each file variable names, read inside. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *var(const char *name)
{
	const char *v = getenv(name);

	return v ? v : "-";
}

/* The bytes of the file the variable NAME names, -1 if unreadable. */
static long file_size(const char *name)
{
	const char *path = getenv(name);
	FILE *f = path ? fopen(path, "r") : NULL;
	long n = 0;

	if (!f)
		return -1;
	while (fgetc(f) != EOF)
		n++;
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	char host[64] = "";

	gethostname(host, sizeof(host) - 1);
	printf("CHECK host=%s image=%s usr=%s shim=%s rank=%s world=%s local=%s master=%s:%s "
	       "ranktable=%ld hostfile=%ld\n",
	       host, access("/slurm-dist-test-image", F_OK) == 0 ? "yes" : "no",
	       access("/usr", F_OK) == 0 ? "yes" : "no",
	       argc > 1 && access(argv[1], F_OK) == 0 ? "yes" : "no", var("RANK"),
	       var("WORLD_SIZE"), var("LOCAL_RANK"), var("MASTER_ADDR"), var("MASTER_PORT"),
	       file_size("RANK_TABLE_FILE"), file_size("OMPI_MCA_orte_default_hostfile"));
	return 0;
}
