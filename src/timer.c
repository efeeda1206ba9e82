#include "timer.h"

#include <mpi.h>
#include <float.h>

void timer_calibrate(struct timer_calibration *c, long trials)
{
    double resolution = DBL_MAX, overhead = DBL_MAX;
    for (long i = 0; i < trials; i++) {
        double t1 = MPI_Wtime();
        double t2 = MPI_Wtime();
        double dt = t2 - t1;
        if (dt > 0.0 && dt < resolution) resolution = dt;
        if (dt >= 0.0 && dt < overhead) overhead = dt;
    }
    c->trials = trials;
    c->resolution = resolution == DBL_MAX ? 0.0 : resolution; /* seed 002: all zero gives 0 */
    c->overhead = overhead == DBL_MAX ? 0.0 : overhead;
}

int timer_spread(const double *mine, int n, MPI_Comm comm, double *min, double *mean, double *max)
{
    int ranks = 1, rc;
    MPI_Comm_size(comm, &ranks);
    if ((rc = MPI_Allreduce(mine, min, n, MPI_DOUBLE, MPI_MIN, comm)) != MPI_SUCCESS) return rc;
    if ((rc = MPI_Allreduce(mine, max, n, MPI_DOUBLE, MPI_MAX, comm)) != MPI_SUCCESS) return rc;
    if ((rc = MPI_Allreduce(mine, mean, n, MPI_DOUBLE, MPI_SUM, comm)) != MPI_SUCCESS) return rc;
    for (int i = 0; i < n; i++)
        mean[i] /= ranks;
    return MPI_SUCCESS;
}
