/* Supersteps of seed 003 (Amato, Pietracaprina, Pucci, Dale, Perdue: a
 * cost model for communication on an SMP): how many global reads and writes each of p workers does
 * in one copy-in / copy-out superstep, the three suites of its sec. 4.1, and the features its cost
 * functions are linear in.  Pure functions, no MPI: tested in tests/test_smp.c. */
#ifndef SB_SMP_PATTERN_H
#define SB_SMP_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMP_MAX_WORKERS 256

enum smp_kind { LIKE_GATHER, LIKE_SCATTER, VARY, NKINDS };
extern const char *const smp_kind_names[NKINDS];

struct superstep {
    int suite;          /* 1, 2 or 3 */
    enum smp_kind kind; /* the suite-1 superstep it derives from */
    int x;              /* workers that carry h */
    long h;
    int p;
    long hr[SMP_MAX_WORKERS], hw[SMP_MAX_WORKERS]; /* reads (copy-in), writes (copy-out) */
};

/* Suite 1 (sec. 4.1): like-gather(x, h): workers 0..x-1 read h, every worker
 * writes h x / p; like-scatter the reverse; vary(x, h): workers 0..x-1 read
 * and write h. */
void superstep_suite1(enum smp_kind kind, int p, int x, long h, struct superstep *s);

/* Suite 2: random counts, each worker's at most the suite-1 step's maxima,
 * at least one worker at each maximum.  Suite 3: random counts with the
 * suite-1 step's totals, none above cap.  `rng` is advanced. */
void superstep_suite2(const struct superstep *like, uint64_t *rng, struct superstep *s);
void superstep_suite3(const struct superstep *like, long cap, uint64_t *rng, struct superstep *s);

/* Every superstep of one suite for the h values given: for each h, each
 * x in 1..p-1 and each kind, then x = p once (the kinds coincide there).
 * Returns the count written (at most max). */
int suite_build(int suite, int p, const long *hs, int nh, long cap, uint64_t seed,
                struct superstep *out, int max);
/* How many supersteps suite_build makes. */
int suite_size(int p, int nh);

/* The h values of seed 003's H0, H1, H2 (5000..50000, 50000..500000,
 * 550000..1900000 integers, against an L2 of 2^19) rescaled to a cache of
 * `cache_ints` integers per worker, `per_set` values from each set. */
int smp_h_values(long cache_ints, int per_set, long *out);

/* The parameters of seed 003's cost functions for one superstep. */
struct smp_features {
    double hr, hw;   /* maxima over workers */
    double h;        /* max(hr, hw) */
    double M;        /* total reads + writes */
    double hrc, hrm; /* hr split at the cache: the first cache_ints, the rest */
    double hwc, hwm;
};
struct smp_features smp_features_of(const struct superstep *s, long cache_ints);
struct smp_features smp_features_counts(double hr, double hw, double M, long cache_ints);

/* splitmix64 as a generator: the next value, and one in [0, n). */
uint64_t smp_next(uint64_t *state);
long smp_below(uint64_t *state, long n);

#endif
