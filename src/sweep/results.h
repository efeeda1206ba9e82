/* The points of a shiftbox exchange run and how they are reported: the
 * table of each grid, summary.json (docs/schema/exchange.schema.json),
 * exchange.csv and the pass/fail lines. */
#ifndef SB_SWEEP_RESULTS_H
#define SB_SWEEP_RESULTS_H

#include "plan.h"
#include "../report.h"
#include "../stats.h"

#include <stddef.h>
#include <stdint.h>

/* One sweep point: a module on one grid at one k, payload kind and size. */
struct sweep_point {
    const char *module;
    bool automatic; /* chosen by the model (exchange.module = auto) */
    int team_size, dims[3], k;
    long long bytes;
    bool varied;
    /* While its grid runs: */
    struct exchange *x;
    struct slots *slots;
    double *times;        /* this rank's timed exchanges, s */
    long timed;           /* how many of them */
    long messages;        /* sent in the timed exchanges, this rank */
    long long bytes_sent; /* likewise */
    size_t buffer_peak;   /* most exchange buffer bytes in use, this rank */
    size_t slot_bytes;    /* payload bytes in this rank's slots, last exchange */
    long wrong;           /* wrong bytes this rank found */
    long injected;        /* faults this rank injected */
    long runs;            /* verified exchanges so far (inject_drop counts them) */
    long exchanged;       /* timed exchanges this rank ran (a batch's each) */
    long dropped;         /* exchanges skipped for inject_drop (a batch's each) */
    bool reported;        /* this rank has printed its first wrong byte */
    uint64_t *slot_hash;  /* leaders: each slot's hash after the last exchange */
    /* Results, filled by sweep_grid_finish (statistics and digest on rank 0): */
    struct stats all, filtered;
    double statistic; /* stats.statistic of the times: what predictions are compared with */
    double mean_messages, mean_bytes_sent; /* per exchange per working rank */
    double buffer_peak_max, slot_bytes_max;
    long wrong_total;
    uint64_t digest; /* the slots of every box, hashed in box order */
    bool modules_agree;
    double predicted; /* s, from model.hockney; 0 without */
};

/* Every point of the run. */
struct sweep_results {
    struct sweep_point *pts;
    int npoints, cap;
    struct report_text hashes; /* rank 0: slot-hashes.csv, when exchange.slot_hashes is set */
};

/* No points yet; on rank 0 of a run with --out and exchange.slot_hashes,
 * slot-hashes.csv opened with its header (the grids write its rows). */
int sweep_results_init(struct sweep_results *r, const struct sweep_plan *p,
                       const struct run_ctx *ctx);
/* Frees the points, and slot-hashes.csv where it was not written. */
void sweep_results_free(struct sweep_results *r);
/* A new point at the end of the list, zeroed. */
struct sweep_point *sweep_results_add_point(struct sweep_results *r);
/* Verified byte for byte, and its slots hash as the other modules' do. */
bool sweep_point_passed(const struct sweep_point *pt);

/* Rank 0: one grid's table, a line per point. */
void sweep_results_print_grid(const struct sweep_plan *p, const struct sweep_point *pts,
                              int npoints);
/* One line per module, team size and grid: how many points passed. */
void sweep_results_print_pass_fail(const struct sweep_results *r);
/* Rank 0: summary.json, exchange.csv and, when asked for, slot-hashes.csv. */
int sweep_results_write(struct run_ctx *ctx, const struct sweep_plan *p, struct sweep_results *r,
                        bool verified, int exit_code);

#endif
