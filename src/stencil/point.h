/* One point of a stencil sweep (a depth, an exchange mode, an overlap):
 * the field set up and filled (or restored from checkpoint.restart), the
 * iterations run with the checkpoints that are due, the segments of seed
 * 004 sec. 3.5 spread over the ranks, the field hashed and, with
 * stencil.verify, compared bit for bit with a single-rank depth-1 run. */
#ifndef SB_STENCIL_POINT_H
#define SB_STENCIL_POINT_H

#include "check.h"
#include "plan.h"
#include "tune.h"

/* One point of the sweep, as reported. */
struct stencil_point {
    int depth;
    bool async, overlap;
    double seg_min[NSEGMENTS], seg_mean[NSEGMENTS], seg_max[NSEGMENTS];
    double gcells, bytes_per_iteration;
    uint64_t hash;
    int verified;           /* 1 yes, 0 failed, -1 not checked */
    struct field_diff diff; /* against the same backend */
    int cpu_agrees;     /* CUDA runs: 1 bit-identical to the CPU backend, 0 not, -1 not checked */
    const char *stores; /* what the sweeps' stores were: cached, streaming, or device (CUDA) */
    const char *tiles;  /* where temporal blocking's tiles were (ops->blocked_where), or NULL */
    struct tile_tuning tuning; /* stencil.tile = 0: the tiles timed and the one kept */
    int tile;                  /* temporal blocking: the tile it ran with (0: the backend's) */
    struct field_diff cpu;     /* against the CPU backend */
};

/* The single-rank references of verify, computed on rank 0 when first
 * needed and kept for the points after (free both after the last). */
struct stencil_references {
    void *same, *cpu;
};

/* Runs point pt (its depth, async and overlap set) and fills in the rest.
 * Collective over comm: every rank returns the same code, but SB_ERUNTIME,
 * which may be this rank's alone (the job then ends). */
int stencil_point_run(const struct stencil_plan *p, MPI_Comm comm, struct stencil_point *pt,
                      struct stencil_references *ref, struct sb_msg *m);

#endif
