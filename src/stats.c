#include "stats.h"
#include "error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_sorted_inplace(double *x, size_t n)
{
    if (n == 0) return 0.0;
    qsort(x, n, sizeof *x, compare_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

void stats_compute(const double *x, size_t n, struct stats *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    if (n == 0) return;
    double *sorted = sb_malloc(n * sizeof *sorted, "statistics");
    memcpy(sorted, x, n * sizeof *sorted);
    s->median = median_sorted_inplace(sorted, n);
    s->min = sorted[0];
    s->max = sorted[n - 1];
    /* Sum in ascending order, then the two-pass variance: both keep rounding small. */
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += sorted[i];
    s->mean = sum / (double)n;
    double squares = 0.0;
    for (size_t i = 0; i < n; i++)
        squares += (sorted[i] - s->mean) * (sorted[i] - s->mean);
    free(sorted);
    s->variance = n > 1 ? squares / (double)(n - 1) : 0.0;
    s->stddev = sqrt(s->variance);
    s->cv = s->mean != 0.0 ? s->stddev / s->mean : 0.0;
    s->std_error = s->stddev / sqrt((double)n);
    s->rse = s->mean != 0.0 ? s->std_error / s->mean : 0.0;
}

size_t stats_filter(const double *x, size_t n, double cut, double median, double *out)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] <= cut * median) out[kept++] = x[i];
    return kept;
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

double stats_choose(const char *statistic, const struct stats *s, const double *x, size_t n)
{
    if (!strcmp(statistic, "mean")) return s->mean;
    if (!strcmp(statistic, "min")) return s->min;
    if (!strcmp(statistic, "lowest20")) return mean_of_lowest(x, n, 0.2);
    return s->median;
}
