/* What a shiftbox exchange run sweeps, read from exchange.*, model.*,
 * stats.*, decomp.dims and run.seed and checked before anything runs: the
 * modules (and baselines), team sizes, grids, k, payload kinds and sizes,
 * the repetitions and how the points take turns.  The test hooks
 * (exchange.inject_*) are read and checked by inject.c. */
#ifndef SB_SWEEP_PLAN_H
#define SB_SWEEP_PLAN_H

#include "inject.h"
#include "../command.h"
#include "../hockney.h"

#include <stdint.h>

struct sweep_plan {
    const exchange_ops *modules[SWEEP_MAX_MODULES]; /* NULL: auto, the model's choice per point */
    int nmodules;
    bool have_model; /* model.hockney is set: predictions beside measurements */
    struct hockney hockney;
    bool rendezvous;
    double auto_margin; /* model.auto_margin */
    const char *phases_text;
    unsigned phases;
    bool kinds[2]; /* payload kinds: varied = true */
    int nkinds;
    long long *k, *bytes, *teams;
    int nk, nbytes, nteams;
    int dims_request[3]; /* 0 where MPI chooses */
    bool all_grids;
    bool deliver_all;
    long repetitions, warmup, interleave;
    long batch; /* exchanges per timed sample */
    struct sweep_injection inject;
    double cut_coef;
    const char *statistic; /* stats.statistic */
    uint64_t seed;
    bool slot_hashes;
    /* exchange.verify: check every byte (0: timings only, e.g. SMPI's shared malloc) */
    bool verify;
};

/* Collective over ctx->world (the memory check counts the ranks on this
 * node; model.hockney is read on every rank); SB_EUSAGE with a message
 * where the keys cannot run together. */
int sweep_plan_from_config(struct sweep_plan *p, const struct config *c, const struct run_ctx *ctx,
                           struct sb_msg *m);
void sweep_plan_free(struct sweep_plan *p);

/* Whether the run lists ops (NULL: auto) in exchange.module or
 * exchange.baseline. */
bool sweep_plan_lists(const struct sweep_plan *p, const exchange_ops *ops);
long long sweep_plan_largest_bytes(const struct sweep_plan *p);
/* The repetitions of a point in one turn (all of them without interleave). */
long sweep_plan_turn_length(const struct sweep_plan *p);
/* The turns of a point: each starts with one untimed exchange. */
long sweep_plan_turns(const struct sweep_plan *p);
/* The verified exchanges of one point: warm-ups, turns' warm-ups, timed
 * ones (a timed batch counted once). */
long sweep_plan_point_runs(const struct sweep_plan *p);

#endif
