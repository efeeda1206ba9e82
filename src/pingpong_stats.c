#include "pingpong.h"
#include "error.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

long pingpong_npp(double res_npp, double res_timing, double median_ppt)
{
    if (!(median_ppt > 0)) return 1;
    double npp = res_npp * res_timing / median_ppt;
    return lround(npp > 1.0 ? npp : 1.0);
}

double mean_of_lowest(const double *x, size_t n, double fraction)
{
    if (n == 0) return 0.0;
    double *sorted = sb_malloc(n * sizeof *sorted, "a sort");
    memcpy(sorted, x, n * sizeof *sorted);
    median_sorted_inplace(sorted, n);
    size_t keep = (size_t)ceil(fraction * (double)n);
    if (keep < 1) keep = 1;
    double sum = 0.0;
    for (size_t i = 0; i < keep; i++)
        sum += sorted[i];
    free(sorted);
    return sum / (double)keep;
}

void histogram(const double *x, size_t n, double lo, double hi, int bins, long *counts, long *above)
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
