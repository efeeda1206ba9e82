/* Helpers of shiftbox pingpong (seed 002 sec. 3), pure for the tests: npp
 * and the one-way times' histogram. */
#ifndef SB_PINGPONG_NPP_HIST_H
#define SB_PINGPONG_NPP_HIST_H

#include "../stats.h"

#include <stddef.h>

/* Seed 002 sec. 3.3: npp = nint(max(1, res_npp * res_timing / median_ppt)),
 * so that a timed loop of npp ping-pongs spans res_npp timer resolutions. */
long pingpong_npp(double res_npp, double res_timing, double median_ppt);

/* Counts x[0..n) into `bins` equal bins over [lo, hi); values at or above
 * hi go to *above, below lo to the first bin. */
void pingpong_histogram(const double *x, size_t n, double lo, double hi, int bins, long *counts,
                        long *above);

#endif
