/* Seed 003's application check run on the workers' shared array
 * (smp.apps; sec. 5, Tables 9-11, Figure 3): each application of
 * src/smp/apps.h sorts n keys for each n of the paper's N0, N1, N2 scaled
 * like the suites' h; every superstep's copy-in and copy-out are timed
 * (the local computation is not: the model is for communication) and
 * placed between the Good prediction (the good family's HrHwM-c) and the
 * Bad one (the bad family's HrHwM) with Loc = 1 - (t - good) / (bad - good)
 * and M/G = t / good. */
#ifndef SB_SMP_APPS_RUN_H
#define SB_SMP_APPS_RUN_H

#include "apps.h"
#include "shared.h"

#include <cjson/cJSON.h>
#include <stdio.h>

struct smp_app_sample {
    enum smp_app_kind app;
    long n;
    int step, row;
    double hr, hw, M; /* maxima over workers, and the total */
    double seconds;   /* copy-in + copy-out, as worker 0 sees them */
    double good, bad; /* the predictions */
};

struct smp_app_runs {
    struct smp_app_sample *samples;
    int nsamples, cap;
    int runs[NAPPS], sorted[NAPPS], skipped[NAPPS];
    long first_n[NAPPS], last_n[NAPPS];
};

/* The n values: seed 003's N0 = {5000 p i}, N1 = {50000 p i} (i = 1..10)
 * and N2 = {550000 + 150000 p i} (i = 0..9), per_set of each, scaled by
 * scale (this machine's cache share per worker over the paper's 2^19
 * integers), each once.  Returns the count (at most 3 per_set). */
int smp_app_sizes(int p, int per_set, double scale, long *out);

/* Runs the applications chosen in `apps` for every n, on every worker
 * (collective over mem->comm); n that does not fit the shared array or a
 * worker's local memory, or comes after `deadline` (MPI_Wtime), is
 * skipped and counted.  A run whose keys end unsorted is reported in
 * runs->sorted (worker 0 checks; all agree). */
int smp_apps_measure(struct smp_memory *mem, int p, const bool apps[NAPPS], const long *ns, int nn,
                     uint64_t seed, double deadline, struct smp_app_runs *runs);

/* The Good and Bad predictions of a superstep of counts hr, hw, M. */
typedef void (*smp_predictor)(const void *ctx, double hr, double hw, double M, double *good,
                              double *bad);

/* Fills every sample's good and bad; prints Table 9 in form per
 * application (rows: supersteps inside the interval, Loc, M/G) and the
 * runs' totals. */
void smp_apps_report(struct smp_app_runs *runs, smp_predictor predict, const void *ctx);

/* summary.json's smpcost.apps, and smpcost-apps.csv's rows. */
cJSON *smp_apps_json(const struct smp_app_runs *runs);
void smp_apps_csv(const struct smp_app_runs *runs, FILE *f);

void smp_apps_free(struct smp_app_runs *runs);

#endif
