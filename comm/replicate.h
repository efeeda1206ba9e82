/* Copies of one block laid back to back, as a ring of one makes them: the
 * box is its own neighbour, so every block a phase brings is the block it
 * starts from.  A copy per hop reads that block from memory 2k times once
 * it outgrows the caches (the plane of a 3D exchange: 8 MB at 100 kB a box
 * and k = 4); here each part of it, small enough to stay in the L1, goes to
 * every place before the next part is read, so the block is read once.
 * Measured on 2 ranks (a 2x1x1 grid, rings of one in y and z), the Shifts
 * went from 1.27-1.46x to 1.00-1.11x MPI_Neighbor_alltoallv at 100 kB,
 * k = 3, 4 (docs/results/README.md, baselines-2ranks).  copy_to_places
 * does the same for places anywhere that fit the L2 together: direct's
 * slots, Team Shift's blocks on a ring of two
 * (docs/results/direct-replicate-ab.txt). */
#ifndef SB_REPLICATE_H
#define SB_REPLICATE_H

#include <stddef.h>

/* Fills each of the `nregions` regions at region[r] with `copies` copies of
 * the `len` bytes at src, back to back.  No region may overlap src. */
void replicate(unsigned char *const region[], int nregions, size_t copies, const unsigned char *src,
               size_t len);

/* The `len` bytes at src to each of place[0 .. n), through replicate where
 * src is larger than its 16 KiB part and the places fit in the L2 cache
 * together: there a copy writes into the cache and rereading src for each
 * is what costs.  Otherwise place by place: at or below a part src fits in
 * the L1 anyway, without replicate's loops (callgrind, Team Shift at 10 B
 * and k = 8 on 2 ranks: its 16 copies 372 instructions an exchange this
 * way, 534 through replicate); places beyond the L2 go to memory, and
 * written a whole place at a time rather than 16 KiB to each in turn
 * (direct on 2 ranks in 3D at 100 kB, k = 3 and 4: 146-364 images of 100
 * kB, direct / baseline-p2p 0.92-1.06 place by place, 1.05-1.15 through
 * replicate, docs/results/direct-replicate-ab.txt).  No place may overlap
 * src or another place. */
void copy_to_places(unsigned char *const place[], int n, const unsigned char *src, size_t len);

#endif
