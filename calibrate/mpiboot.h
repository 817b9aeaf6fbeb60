/* mpiboot: the MPI side of multi-node calibration (calibrate/mpiboot.c, built only when CMake found MPI).
 * One process per GPU: world rank r runs on its node's GPU local_rank. Groups are MPI sub-communicators; NCCL
 * is bootstrapped in each by broadcasting rank 0's ncclUniqueId. MPI types stay inside mpiboot.c. */
#ifndef MPIBOOT_H
#define MPIBOOT_H

#include <stdbool.h>
#include <stddef.h>

struct calmpi_info {
	int rank, size;               /* world */
	int local_rank, local_size;   /* on this node */
	int node, nodes;              /* this node's index (by first world rank), node count */
	int local_size_min;           /* smallest local_size over the nodes */
};

struct calmpi_group;

/* calmpi_start: MPI_Init when launched by mpirun/srun (environment says so); 1 then, 0 when not launched so
 * (single process, MPI untouched), negative on failure. */
int calmpi_start(struct calmpi_info *info);
void calmpi_stop(void);
/* calmpi_abort: end every rank (after a failure that would leave the others blocked) */
void calmpi_abort(int code);
int calmpi_barrier(void);
/* calmpi_agree: the smallest rc over the world (so every rank stops when one failed) */
int calmpi_agree(int rc);
/* calmpi_split: collective over the world; members get a group (ranks ordered by world rank), others NULL */
int calmpi_split(bool member, struct calmpi_group **g, int *rank, int *size);
int calmpi_bcast(struct calmpi_group *g, void *buf, size_t bytes);   /* from group rank 0 */
int calmpi_max(struct calmpi_group *g, double *v, int n);             /* in place */
void calmpi_free(struct calmpi_group *g);
/* calmpi_hostname: this process's host name */
void calmpi_hostname(char *buf, size_t len);

#endif
