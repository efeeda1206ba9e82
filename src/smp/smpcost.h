/* shiftbox smpcost's run (src/cmd_smpcost.c is the driver): the plan read
 * from smpcost.* and smp.*, the timed supersteps and the fits of seed 003
 * (sec. 3-5), and what they report.
 *   plan.c      the keys, the cache share and the h values they give;
 *   suites.c    the shared array, the supersteps of the three suites in
 *               good and bad mode, ShiftBox's copy patterns and seed 003's
 *               applications on it;
 *   families.c  the cost functions fitted to each family and validated;
 *   output.c    the tables, summary.json, smpcost.csv and smpcost-apps.csv. */
#ifndef SB_SMP_SMPCOST_H
#define SB_SMP_SMPCOST_H

#include "apps_run.h"
#include "fit.h"
#include "locality.h"
#include "shared.h"
#include "../command.h"

#include <stdbool.h>
#include <stdint.h>

enum smp_mode { MODE_GOOD, MODE_BAD, NMODES };
extern const char *const smp_mode_names[NMODES];

/* The average validation error of HrHwM-c (good) and HrHwM (bad) aimed at
 * (issue 18; the paper reports 1.4-6.9 % for p = 2-12, Tables 5-8). */
#define SMP_ACCURACY_TARGET 0.10

/* Which suite each family is fitted on (sec. 4.2.1 and 4.2.2); the other
 * two validate. */
extern const int smp_fit_suite[NMODES];
enum { FAMILY_FUNCTIONS = 5 };
extern const enum smp_function smp_family_functions[NMODES][FAMILY_FUNCTIONS];

/* smp.fit: seed 003's own method, or the split searched in the data. */
enum smp_fit_method { FIT_PAPER, FIT_SEARCHED, NFITS };
extern const char *const smp_fit_names[NFITS];

struct smp_plan {
    enum smp_fit_method fit; /* the one whose best functions predict (patterns, model.smp) */
    int p;
    int reps, per_set;
    double long_seconds; /* a superstep longer than this: LONG_REPS (suites.c) repetitions */
    long line_ints;      /* t_line: integers in a cache line */
    long cache_ints;     /* a worker's share of the last-level cache, in integers */
    long tmax;           /* integers in each worker's good-mode run */
    long bad_max;        /* largest h the bad-mode array holds */
    long pattern_ints;
    double max_seconds;
    uint64_t seed;
    char cache_source[128];
    bool apps[NAPPS]; /* smp.apps */
    bool any_app;
};

/* One timed superstep. */
struct smp_sample {
    struct superstep s;
    enum smp_mode mode;
    struct smp_features f;
    double seconds; /* median over repetitions: copy-in + copy-out */
    int reps;       /* its repetitions (smp_reps_of) */
};

/* A function fitted to one family.  With smp.fit = paper the good family's
 * supersteps are two sets, R0 (h <= split) and R1 (h > split), each with
 * its own coefficients (seed 003 sec. 4.2.1). */
struct smp_fitted {
    double coef[SMP_MAX_TERMS];    /* all supersteps, or R0's */
    double coef_r1[SMP_MAX_TERMS]; /* R1's when `sets` */
    bool sets;
    long split; /* HrHwM-c: accesses counted as "in cache" (hrc, hwc); the R0/R1 boundary */
    bool ok;
    double avg, max;               /* relative errors on the validation suites */
    double set_avg[2], set_max[2]; /* the same per set (R0, R1) */
    int set_n[2];                  /* validation supersteps per set */
};

struct smp_results {
    struct smp_sample *samples;
    int nsamples, skipped;
    struct smp_fitted fit[NFITS][NMODES][NFUNCTIONS];
    enum smp_function best[NFITS][NMODES];
    enum smp_fit_method use; /* smp.fit */
    double pattern_seconds[NPATTERNS], pattern_good[NPATTERNS], pattern_bad[NPATTERNS];
    long pattern_count[NPATTERNS];
    struct smp_app_runs apps;
};

/* plan.c */
int smp_plan_read(struct smp_plan *p, const struct config *c, int nranks, struct sb_msg *m);

/* suites.c: the shared array (collective over world; SB_EUSAGE with a
 * message where the ranks span nodes or the arrays do not fit) */
int smp_memory_init(struct smp_memory *mem, const struct smp_plan *p, MPI_Comm world,
                    struct sb_msg *m);
void smp_memory_free(struct smp_memory *mem);
/* How often a superstep of `seconds` (copy-in plus copy-out) is repeated. */
int smp_reps_of(const struct smp_plan *p, double seconds);
/* The three suites' supersteps (sec. 4.1); *n of them. */
struct superstep *smp_suites_build(const struct smp_plan *p, int *n);
/* The suites' time, estimated from one superstep of each mode at the
 * largest h. */
int smp_estimate_suites(struct smp_memory *mem, const struct smp_plan *p,
                        const struct superstep *steps, int n, double *estimate);
int smp_measure_suites(struct smp_memory *mem, const struct smp_plan *p,
                       const struct superstep *steps, int n, struct smp_results *r);
/* ShiftBox's copy patterns, timed and predicted by both families. */
int smp_measure_patterns(struct smp_memory *mem, const struct smp_plan *p, struct smp_results *r);
/* smp.apps: seed 003's sorts (src/smp/apps_run.c). */
int smp_measure_apps(struct smp_memory *mem, const struct smp_plan *p, struct smp_results *r);

/* families.c */
void smp_fit_families(const struct smp_plan *p, struct smp_results *r);
double smp_fitted_predict(enum smp_function fn, const struct smp_fitted *x, long h, double hr,
                          double hw, double M);
/* The chosen fit's best function of a family at counts of n integers. */
double smp_family_predict(const struct smp_results *r, enum smp_mode mode, long n, double hr,
                          double hw, double M);
/* The applications' Good and Bad predictions (ctx: the results). */
void smp_predict_app(const void *ctx, double hr, double hw, double M, double *good, double *bad);

/* output.c */
void smp_print_fits(const struct smp_results *r, enum smp_fit_method method);
void smp_print_patterns(const struct smp_results *r);
void smp_print_accuracy(const struct smp_results *r);
int smp_write_outputs(const struct run_ctx *ctx, const struct smp_plan *p,
                      const struct smp_results *r);

#endif
