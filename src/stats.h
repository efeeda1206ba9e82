/* Descriptive statistics of timings, as seed 002 sec. 3.4 lists them, and
 * the same after filtering out times above cut_coef x median. */
#ifndef SB_STATS_H
#define SB_STATS_H

#include <stddef.h>

struct stats {
    size_t n;
    double min, median, mean, max;
    double variance; /* sample variance (n - 1) */
    double stddev;
    double cv;        /* coefficient of variation: stddev / mean */
    double std_error; /* stddev / sqrt(n) */
    double rse;       /* relative standard error: std_error / mean */
};

/* Statistics of x[0..n); x is not changed.  n == 0 gives all zeros. */
void stats_compute(const double *x, size_t n, struct stats *s);

/* Copies the values of x that are <= cut * median into out and returns how
 * many there are (seed 002's filtering; cut is its cut_coef). */
size_t stats_filter(const double *x, size_t n, double cut, double median, double *out);

/* The mean of the smallest `fraction` of x[0..n) (seed 000 sec. 6.2.3's
 * 20 %), at least one value; x is not changed. */
double mean_of_lowest(const double *x, size_t n, double fraction);

/* stats.statistic of x[0..n), whose statistics are s: "mean", "median",
 * "min" or "lowest20" (the mean of the smallest 20 %). */
double stats_choose(const char *statistic, const struct stats *s, const double *x, size_t n);

/* Median of x[0..n), sorting x in place. */
double median_sorted_inplace(double *x, size_t n);

#endif
