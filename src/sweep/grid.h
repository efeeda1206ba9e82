/* One grid of a shiftbox exchange run: its points (every k, payload kind,
 * size and module on one team size and grid of boxes) set up at once, run
 * in turns with every byte verified, then gathered into statistics. */
#ifndef SB_SWEEP_GRID_H
#define SB_SWEEP_GRID_H

#include "results.h"
#include "../decomp.h"

/* The points of one grid, set up together. */
struct sweep_grid {
    struct topology topo;
    struct exchange *x; /* [k][payload kind][registry module], set up when first used */
    struct slots *slots;
    int nx, nregistry;
    struct sweep_point *pts; /* within the run's list */
    int npoints;
    unsigned char *own; /* this rank's payload, sized for the largest */
};

/* g->topo set up: lists the grid's points at the end of r and sets up the
 * exchanges they use (collective over the topology's ranks). */
int sweep_grid_init(struct sweep_grid *g, const struct sweep_plan *p, struct sweep_results *r,
                    struct sb_msg *m);
/* Every exchange of every point; *done counts them for the progress line
 * out of total. */
int sweep_grid_run(struct run_ctx *ctx, const struct sweep_plan *p, struct sweep_grid *g,
                   long *done, long total);
/* Each point's statistics, counters and slot digest to rank 0, which then
 * compares the modules' digests. */
int sweep_grid_finish(const struct sweep_plan *p, struct sweep_grid *g, struct sweep_results *r);
void sweep_grid_free(struct sweep_grid *g);

#endif
