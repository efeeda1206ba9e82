#include "npp_hist.h"
#include "../error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

long pingpong_npp(double res_npp, double res_timing, double median_ppt)
{
    if (!(median_ppt > 0)) return 1;
    double npp = res_npp * res_timing / median_ppt;
    return lround(npp > 1.0 ? npp : 1.0);
}

void pingpong_histogram(const double *x, size_t n, double lo, double hi, int bins, long *counts,
                        long *above)
{
    memset(counts, 0, (size_t)bins * sizeof *counts);
    *above = 0;
    double width = (hi - lo) / bins;
    for (size_t i = 0; i < n; i++) {
        if (x[i] >= hi || !(width > 0)) {
            (*above)++;
            continue;
        }
        long b = (long)((x[i] - lo) / width);
        counts[b < 0 ? 0 : b >= bins ? bins - 1 : b]++;
    }
}
