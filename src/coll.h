/* The driver's own collectives: setup values and results, never timed.
 *
 * A broadcast here is MPI_Ibcast and MPI_Wait: on a real MPI the same as
 * MPI_Bcast; in a simulation (SimGrid's SMPI, tools/smpi-run.sh) the
 * blocking broadcast follows Open MPI's choice of algorithm, which Team
 * Shift's modelled broadcasts need and which SimGrid resolves slowly on a
 * thousand ranks: 24 s of host time for one 8-byte broadcast over 1024
 * simulated ranks, 0.25 s as MPI_Ibcast (measured, fat tree, SimGrid 3.32). */
#ifndef SB_COLL_H
#define SB_COLL_H

#include <mpi.h>

static inline int sb_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    MPI_Request request;
    int rc = MPI_Ibcast(buf, count, type, root, comm, &request);
    return rc == MPI_SUCCESS ? MPI_Wait(&request, MPI_STATUS_IGNORE) : rc;
}

#endif
