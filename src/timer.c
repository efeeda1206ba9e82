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
