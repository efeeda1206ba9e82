/* What an MD run reports: the figures gathered over the ranks (the rate,
 * the energy drift and the verdict, the state's digests, the segments'
 * times, memory), the lines on stdout, summary.json and md-thermo.csv. */
#ifndef SB_MD_RESULTS_H
#define SB_MD_RESULTS_H

#include "run.h"

struct md_segment_stats {
    double min, mean, max;
};

struct md_results {
    double drift, loop, rate;
    long long count;
    bool verified;
    uint64_t digest[2];           /* positions, velocities */
    double peak_rss;              /* VmHWM of the largest rank */
    double bytes_mean, bytes_max; /* sent per step per working rank */
    struct md_segment_stats seg[MD_NSEGMENTS];
};

/* Gathers res over the run's ranks, after a loop of `loop` seconds on this
 * rank.  Collective. */
int md_results_gather(struct md_run *r, double loop, struct md_results *res);

/* Rank 0 prints (log_info); no MPI calls. */
void md_results_print(const struct md_run *r, const struct md_results *res);

/* summary.json and md-thermo.csv into ctx->out_dir (rank 0 only). */
int md_results_write(struct run_ctx *ctx, struct md_run *r, const struct md_results *res,
                     int exit_code);

#endif
