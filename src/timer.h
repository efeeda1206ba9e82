/* The wall-clock timer, measured before it is trusted (seed 002 sec. 3.1). */
#ifndef SB_TIMER_H
#define SB_TIMER_H

struct timer_calibration {
    long trials;       /* back-to-back MPI_Wtime pairs timed */
    double resolution; /* res_timing: smallest positive difference, s */
    double overhead;   /* min_ov: smallest non-negative difference, s; subtracted from timings */
};

/* Times `trials` pairs of MPI_Wtime calls with nothing between them. */
void timer_calibrate(struct timer_calibration *c, long trials);

#endif
