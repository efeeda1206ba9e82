/* stencil.tile = 0: the temporal-blocking tile a run uses, chosen by timing
 * the backend's candidates on batches of the run's own shape (its fields,
 * boxes, exchange and sweeps; the values are the zeros of a new field).  A
 * cache size read from the system can be far from what a rank gets: on a
 * 2-core VM of an Intel Xeon, sysfs reports 260 MiB of L3 shared by the 2
 * CPUs, and 3D tiles sized to it (132 MiB a rank: the 2 MiB L2 and half the
 * L3) ran at 0.67-0.75 x the plain sweeps at depths 4 and 8, the tuned ones
 * (24-80 lines) at 1.14-1.51 x (docs/results/stencil-tile-tuning.txt). */
#ifndef SB_STENCIL_TUNE_H
#define SB_STENCIL_TUNE_H

#include "run.h"

enum { TILE_TUNING_MAX = 16 };

struct tile_tuning {
    int count;                       /* candidates timed; 0: none (no tuning ran) */
    int batch;                       /* sweeps of each timed batch, after one exchange */
    int sweeps;                      /* of which in tiles (the n the tiles are sized for):
                                        the batch, less the first with overlap */
    int tile[TILE_TUNING_MAX];       /* the candidates, ascending */
    double seconds[TILE_TUNING_MAX]; /* one exchange and batch, the slowest rank's */
    int chosen;                      /* the fastest: r->p.tile is set to tile[chosen] */
};

/* Where temporal blocking runs with stencil.tile = 0 and the backend offers
 * more than one tile (ops->tile_candidates, rank 0's list): one untimed
 * batch, then each candidate timed on one exchange and batch, smallest
 * first, until one is a quarter slower than the best so far; sets r->p.tile
 * to the fastest.  The sweeps change the field: fill it afterwards.
 * Collective; t->count = 0 where nothing was tuned (r->p.tile stays 0: the
 * backend's own size). */
int stencil_tune_tile(struct stencil_run *r, struct tile_tuning *t);

#endif
