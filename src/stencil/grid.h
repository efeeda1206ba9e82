/* The stencil's rank grid and the boxes every step works on (DESIGN.md
 * "Deep-halo stencil").  Pure functions, no MPI: unit-tested in
 * tests/test_stencil_grid.c.
 *
 * Coordinates of boxes are those of the allocated array: the own points of
 * a rank lie in [h, h + n) per axis, with h = d (the halo depth) in the
 * stencil's dimensions and h = 0, n = 1 in z for a 2D grid. */
#ifndef SB_STENCIL_GRID_H
#define SB_STENCIL_GRID_H

#include "../../gpu/backend.h"

#define STENCIL_MAX_NEIGHBOURS 26

struct stencil_grid {
    int dim;       /* 2 or 3 */
    int global[3]; /* global points per axis (1 in z for 2D) */
    int dims[3];   /* ranks per axis (1 in z for 2D) */
    int coords[3]; /* this rank's place */
    int n[3];      /* own points per axis */
    int origin[3]; /* global coordinate of the first own point */
    int halo[3];   /* d, d, d (or 0 in z for 2D) */
    int ext[3];    /* n + 2 * halo */
    bool full_sweeps; /* stencil.sweep = full (grid_init sets false: shrink) */
};

/* Splits `global` points over `parts` ranks as seed 004 sec. 3.1.2 does: the
 * first global % parts ranks get one point more.  Part `index` gets *count
 * points starting at *first. */
void split_even(int global, int parts, int index, int *count, int *first);

/* Fills a grid for this rank; depth must be checked by grid_check. */
void grid_init(struct stencil_grid *g, int dim, const int global[3], const int dims[3],
               const int coords[3], int depth);

/* SB_EUSAGE, naming stencil.depth and the numbers, when the depth is larger
 * than the smallest subdomain of any rank (a halo must come from the
 * immediate neighbour) or the grid has fewer points than ranks. */
int grid_check(int dim, const int global[3], const int dims[3], int depth, struct sb_msg *m);

/* The region sweep j (0-based) of d computes: own points plus d - 1 - j halo
 * layers, so that it reads nothing the last exchange did not refresh; with
 * full_sweeps, for every j, own points plus d - 1 layers (all the array but
 * its outermost layer, which the stencil reads): a point at layer l > d - 1
 * - j then holds a value from stale inputs, which no point of a later sweep
 * that matters reads (seed 004 sec. 3.2.1). */
struct sbox grid_sweep_region(const struct stencil_grid *g, int j);

/* The first sweep split for overlap: `inner` reads only own points (own
 * points less one layer), `frame` (up to 6 boxes, returned count) is the
 * rest of sweep 0's region. */
int grid_overlap_split(const struct stencil_grid *g, struct sbox *inner, struct sbox frame[6]);

/* One message of an exchange: the box sent to the neighbour at `offset`
 * and the box filled by what that neighbour sends back. */
struct halo_message {
    int offset[3];
    struct sbox send, recv;
    int send_tag, recv_tag;
};

/* sync: the messages of phase `axis` (two: towards -1 and +1), whose boxes
 * span the full extent of earlier axes so that edges and corners travel
 * with the later ones (seed 004 Fig. 2.7). */
int grid_sync_messages(const struct stencil_grid *g, int axis, struct halo_message out[2]);

/* async: one message per neighbour, 8 in 2D and 26 in 3D (Fig. 2.8). */
int grid_async_messages(const struct stencil_grid *g, struct halo_message out[26]);

#endif
