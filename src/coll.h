/* The driver's own collectives: setup values and results, never timed.
 *
 * A broadcast here is MPI_Ibcast and MPI_Wait: on a real MPI the same as
 * MPI_Bcast.  In a simulation (SimGrid's SMPI, tools/smpi-run.sh), whose
 * blocking broadcast follows Open MPI's choice of algorithm (what Team
 * Shift's modelled broadcasts need), two broadcasts of the configuration
 * over 1024 simulated ranks took 48 s of host time as MPI_Bcast and 0.5 s
 * as MPI_Ibcast (fat tree, SimGrid 3.32, 2026-11-26). */
#ifndef SB_COLL_H
#define SB_COLL_H

#include "error.h"

#include <mpi.h>

static inline int sb_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    MPI_Request request;
    int rc = MPI_Ibcast(buf, count, type, root, comm, &request);
    return rc == MPI_SUCCESS ? MPI_Wait(&request, MPI_STATUS_IGNORE) : rc;
}

/* One outcome for every rank of a step that may fail on some of them only
 * (a file one rank cannot read, an allocation one rank cannot make), called
 * by all ranks with their own code: each returns the worst code.  Bad input
 * (2) and failed checks (1) are printed by rank 0: the message of the
 * lowest rank that failed with that code is copied into every rank's m
 * (NULL: none kept here), followed by " (rank R)" where R is not 0.
 * Runtime failures (3) are printed by the rank that had them: only the
 * lowest such rank keeps its message, so that it appears once.  A failing
 * MPI call returns SB_ERUNTIME, printed where it failed. */
int sb_agree(int rc, struct sb_msg *m, MPI_Comm comm);

#endif
