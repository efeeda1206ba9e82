/* The workers' shared array (MPI_Win_allocate_shared over one node) and a
 * worker's local memory: what shiftbox smpcost's supersteps copy between
 * (src/smp/suites.c sets it up; src/smp/apps_run.c runs the applications
 * on it). */
#ifndef SB_SMP_SHARED_H
#define SB_SMP_SHARED_H

#include "../error.h"

#include <mpi.h>
#include <stddef.h>

struct smp_memory {
    MPI_Comm comm;
    MPI_Win win;
    unsigned *global; /* unsigned: the local computation may wrap around */
    unsigned *local;
    size_t global_ints, local_ints;
    int me;
};

/* A barrier that also orders the shared array's loads and stores. */
static inline int smp_fence(struct smp_memory *mem)
{
    CHECK_MPI(MPI_Win_sync(mem->win));
    CHECK_MPI(MPI_Barrier(mem->comm));
    CHECK_MPI(MPI_Win_sync(mem->win));
    return SB_OK;
}

#endif
