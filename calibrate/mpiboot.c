/* mpiboot: MPI bootstrap for multi-node calibration (see mpiboot.h). The node of a rank is found by comparing
 * host names (MPI_Comm_split_type SHARED gives the local ranks; its lowest world rank names the node). */
#define _POSIX_C_SOURCE 200809L  /* setenv, gethostname */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "calibrate/mpiboot.h"
#include "util/gserr.h"
#include "util/diag.h"

struct calmpi_group {
	MPI_Comm comm;
};

static bool launched(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE",
					   "MPI_LOCALNRANKS", NULL};
	for (int i = 0; vars[i]; i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

int calmpi_start(struct calmpi_info *info)
{
	MPI_Comm local;
	int first, is_first, nodes = 0, node = 0, lmin;
	memset(info, 0, sizeof *info);
	if (!launched())
		return 0;
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		diag_errorf("MPI_Init failed");
		return GS_EENV;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &info->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &info->size);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, info->rank, MPI_INFO_NULL, &local);
	MPI_Comm_rank(local, &info->local_rank);
	MPI_Comm_size(local, &info->local_size);
	first = info->rank;
	MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, local);
	MPI_Comm_free(&local);
	/* node index: how many node leaders have a lower world rank than ours */
	is_first = info->local_rank == 0;
	MPI_Allreduce(&is_first, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	{
		int *leaders = calloc((size_t)info->size, sizeof *leaders);
		if (!leaders)
			return GS_ENOMEM;
		MPI_Allgather(&is_first, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
		for (int r = 0; r < first; r++)
			node += leaders[r];
		free(leaders);
	}
	lmin = info->local_size;
	MPI_Allreduce(MPI_IN_PLACE, &lmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	info->node = node;
	info->nodes = nodes;
	info->local_size_min = lmin;
	return 1;
}

void calmpi_stop(void)
{
	int up = 0, down = 0;
	MPI_Initialized(&up);
	MPI_Finalized(&down);
	if (up && !down)
		MPI_Finalize();
}

void calmpi_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}

int calmpi_barrier(void)
{
	return MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : GS_EENV;
}

int calmpi_agree(int rc)
{
	MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	return rc;
}

int calmpi_split(bool member, struct calmpi_group **g, int *rank, int *size)
{
	MPI_Comm c;
	int wr;
	*g = NULL;
	MPI_Comm_rank(MPI_COMM_WORLD, &wr);
	if (MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, wr, &c) != MPI_SUCCESS) {
		diag_errorf("MPI_Comm_split failed");
		return GS_EENV;
	}
	if (!member)
		return 0;
	*g = malloc(sizeof **g);
	if (!*g) {
		MPI_Comm_free(&c);
		return GS_ENOMEM;
	}
	(*g)->comm = c;
	MPI_Comm_rank(c, rank);
	MPI_Comm_size(c, size);
	return 0;
}

int calmpi_bcast(struct calmpi_group *g, void *buf, size_t bytes)
{
	return MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, g->comm) == MPI_SUCCESS ? 0 : GS_EENV;
}

int calmpi_max(struct calmpi_group *g, double *v, int n)
{
	return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, g->comm) == MPI_SUCCESS ? 0 : GS_EENV;
}

void calmpi_free(struct calmpi_group *g)
{
	if (!g)
		return;
	MPI_Comm_free(&g->comm);
	free(g);
}

void calmpi_hostname(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0)
		snprintf(buf, len, "unknown");
	buf[len - 1] = 0;
}
