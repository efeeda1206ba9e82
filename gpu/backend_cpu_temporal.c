/* Temporal blocking on the CPU (stencil.blocking=temporal): the d sweeps
 * that a halo of depth d allows between two exchanges (seed 004 sec. 2.3)
 * made in one pass over memory instead of d.
 *
 * The schedule is a wavefront along the slowest axis W (z in 3D, y in 2D)
 * on tiles of the next axis B (y in 3D, x in 2D), with the two fields the
 * plain sweeps use and no copy of either:
 *
 *   for each tile [b0, b1) of B, in increasing order
 *     for each wavefront step s, P apart
 *       for each sweep t = 0 .. n-1:  planes w = s - t .. s - t + P - 1 of W,
 *                                     B in [b0 - t, b1 - t), within box[t]
 *
 * P is the planes one call computes side by side (cpu_plane_group: 2 in 3D
 * with the AVX-512 lines, else 1; 2D has P = 1).  Sweep t reads
 * field[t % 2] and writes field[(t + 1) % 2], as the plain sweeps do.  Why
 * the order is right (every value read is the one the plain order reads,
 * and nothing is overwritten before its last reader):
 * - sweep t at plane w needs sweep t-1 at planes w-1 .. w+1: sweep t-1's
 *   planes in this step reach s - t + P >= w + 1, made just before, the
 *   lower ones in this step or earlier ones; along B it needs [b0-t-1,
 *   b1-t+1), made by this tile's sweep t-1 ([b0-t+1, b1-t+1)) and the
 *   earlier tiles (below b0-t+1);
 * - writing plane w of field[(t+1) % 2] overwrites sweep t-2's values there,
 *   whose readers are sweep t-1's points at w-1 .. w+1 and B +-1: the ones
 *   of this tile are done (up to w+1, as above), later steps read from
 *   w+1 on, and the next tile's sweep t-1 reads from B = b1-t on, which
 *   sweep t leaves alone (it stops below b1-t).
 * Put shortly: point (B, W) of sweep t runs at key (tile of B + t, the step
 * of W + t, t), and any two points whose order matters (one reads or
 * overwrites what the other wrote or read, a sweep apart) are ordered alike
 * by their keys and by their sweeps — for any boxes, empty ones and tiles
 * of any width included (the code keeps tiles of 2 or more lines).  Values
 * no sweep writes (the outermost layer that full regions read) are the
 * same in both orders.
 * Each point of each sweep is then computed from the same inputs by the
 * same line kernel: the result is bit-identical to the plain sweeps, and
 * tests/test_stencil_temporal.c checks that it is.
 *
 * The working set of one tile is about n + 2 planes of it in each field (n:
 * the sweeps of this batch; n + 3 with planes in pairs, which the tuning
 * below absorbs), so a tile is sized to keep 2 (n + 2) tile
 * planes in half of some cache: tile = 0 here takes the cache a rank may
 * count on, its L2 and its share of the last level (src/cpu_cache.h); the
 * driver times cpu_tile_candidates' tiles, sized to half the L2 and up to
 * that, and passes the fastest (src/stencil/tune.c), since the last level
 * sysfs reports may be the host's (260 MiB on a 2-core Xeon VM, where tiles
 * that fill it made 3D slower than plain sweeps).  The L2 alone can be too
 * little: a tile also reads the n + 1 lines below it that the tile before
 * wrote, so thin tiles move much of the field twice (3D 512^3, depth 8, on
 * an EPYC with 512 KiB of L2 and 16 MiB of L3 per core: the L2's 8 lines
 * made 0.92-1.14 GCells/s, 24-192 lines 1.32-1.70;
 * docs/results/stencil-temporal-tile-ab.txt).
 * 2D tiles run on one thread; 3D ones spread each plane's lines over the
 * rank's OpenMP threads. */
#include "backend_cpu.h"
#include "../src/cpu_cache.h"

#include <limits.h>

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

size_t cpu_tile_cache_bytes(void)
{
    long per_rank = cpu_cache_per_rank(cpu_caches());
    return per_rank > 0 ? (size_t)per_rank : (size_t)1 << 20; /* not reported: 1 MiB */
}

/* The tile whose 2 (n + 2) tile planes fill half of `cache` bytes. */
static int tile_for_cache(const struct stencil_layout *l, int n, double cache)
{
    /* one tile line: a whole x line in 3D, one point in 2D */
    double line = (double)l->real_bytes * (l->dim == 3 ? (double)layout_pitch(l) : 1.0);
    double tile = cache / 2 / (2.0 * (n + 2) * line);
    return tile < 8 ? 8 : tile > INT_MAX / 4 ? INT_MAX / 4 : (int)tile;
}

/* The tile for tile = 0 without tuning: sized to the whole per-rank cache. */
static int auto_tile(const struct stencil_layout *l, int n)
{
    return tile_for_cache(l, n, (double)cpu_tile_cache_bytes());
}

int cpu_tile_candidates(const struct stencil_layout *l, int n, int *tiles, int max)
{
    const double all = (double)cpu_tile_cache_bytes();
    const int extent = l->ext[l->dim - 2]; /* a tile this wide is the whole box */
    double cache = cpu_caches()->l2 > 0 ? cpu_caches()->l2 / 2.0 : all;
    int count = 0;
    for (; count < max; cache *= 2) {
        const int tile = tile_for_cache(l, n, cache < all ? cache : all);
        if (count == 0 || tile > tiles[count - 1]) tiles[count++] = tile;
        if (cache >= all || tile >= extent) break;
    }
    return count;
}

/* Lines lo .. hi - 1 of the planes w .. w + planes - 1 within box: the
 * calling thread's share (all of them outside a parallel region). */
static void plane_lines(const struct stencil_layout *l, const void *in, void *out,
                        const struct sbox *box, int lo, int hi, int w, int planes)
{
#pragma omp for schedule(static) nowait
    for (int y = lo; y < hi; y++)
        cpu_line(l, in, out, box->lo[0], box->hi[0], y, w, planes);
}

/* Sweep t's part of one tile on the planes w .. w + planes - 1 of W: lines
 * (3D) or one line piece (2D, planes 1). */
static void tile_planes(const struct stencil_layout *l, void *const field[2], int t,
                        const struct sbox *box, int b0, int b1, int w, int planes, bool parallel)
{
    const int wa = l->dim - 1, ba = l->dim - 2;
    const int w0 = max_int(w, box->lo[wa]), w1 = min_int(w + planes, box->hi[wa]);
    const int lo = max_int(box->lo[ba], b0 - t), hi = min_int(box->hi[ba], b1 - t);
    if (w0 >= w1 || lo >= hi) return;
    const void *in = field[t % 2];
    void *out = field[(t + 1) % 2];
    if (l->dim == 2) {
        cpu_line(l, in, out, lo, hi, w0, box->lo[2], 1);
        return;
    }
    if (parallel) {
#pragma omp parallel
        plane_lines(l, in, out, box, lo, hi, w0, w1 - w0);
    } else
        plane_lines(l, in, out, box, lo, hi, w0, w1 - w0);
}

void cpu_temporal_sweeps(const struct stencil_layout *l, void *const field[2], int n,
                         const struct sbox *box, int tile)
{
    const int wa = l->dim - 1, ba = l->dim - 2;
    int first = INT_MAX, last = INT_MIN, bfirst = INT_MAX, blast = INT_MIN;
    for (int t = 0; t < n; t++) {
        if (sbox_points(&box[t]) == 0) continue;
        first = min_int(first, box[t].lo[wa] + t);
        last = max_int(last, box[t].hi[wa] - 1 + t);
        bfirst = min_int(bfirst, box[t].lo[ba]);
        blast = max_int(blast, box[t].hi[ba] + t);
    }
    if (first > last) return; /* every box empty */
    if (tile <= 0) tile = auto_tile(l, n);
    if (tile < 2) tile = 2;                   /* tiles of 1 are right too, and slow */
    const bool parallel = cpu_threads_many(); /* a parallel region a call only then */
    const int planes = cpu_plane_group(l);    /* per step: 1 in 2D */
    for (int b0 = bfirst; b0 < blast; b0 += tile) {
        const int b1 = b0 + tile;
        for (int s = first; s <= last; s += planes)
            for (int t = 0; t < n; t++)
                tile_planes(l, field, t, &box[t], b0, b1, s - t, planes, parallel);
    }
}
