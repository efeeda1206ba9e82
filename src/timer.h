/* The wall-clock timer, measured before it is trusted (seed 002 sec. 3.1). */
#ifndef SB_TIMER_H
#define SB_TIMER_H

#include <mpi.h>

struct timer_calibration {
    long trials;       /* back-to-back MPI_Wtime pairs timed */
    double resolution; /* res_timing: smallest positive difference, s */
    double overhead;   /* min_ov: smallest non-negative difference, s; subtracted from timings */
};

/* Times `trials` pairs of MPI_Wtime calls with nothing between them. */
void timer_calibrate(struct timer_calibration *c, long trials);

/* Minimum, mean and maximum over the ranks of comm of n per-rank values
 * (segment timings); collective.  Returns 0 or the failing MPI code. */
int timer_spread(const double *mine, int n, MPI_Comm comm, double *min, double *mean, double *max);

#endif
