/* What the CPU backend's files share: the line kernel (gpu/backend_cpu.c),
 * the temporal-blocking schedule that calls it (gpu/backend_cpu_temporal.c)
 * and the hand-written lines in AVX-512 and AVX2, with ordinary or
 * non-temporal stores (gpu/backend_cpu_simd.c). */
#ifndef SB_GPU_BACKEND_CPU_H
#define SB_GPU_BACKEND_CPU_H

#include "backend.h"
#include "../src/vectorize.h"

/* out = stencil(in) on the points x0 <= x < x1 of line y of the planes
 * z .. z + planes - 1 (1 .. cpu_plane_group(): two side by side read the
 * cache less), in the rounding order of backend.h. */
void cpu_line(const struct stencil_layout *l, const void *in, void *out, int x0, int x1, int y,
              int z, int planes);

/* Whether this rank runs several OpenMP threads: only then do the sweeps
 * enter a parallel region.  libgomp ends every region with a system call
 * (a futex wake), a team of one thread included, and on the VMs this
 * project is measured on a system call costs a sweep its cached lines:
 * 2D 2048 x 32 float in the L2 of an AMD EPYC (Zen 5), one core, 9.6
 * GCells/s, 4.1 with a region of one thread a sweep, 4.5 with a getppid()
 * a sweep (2026-12-07; docs/results/stencil-omp-region-ab.txt). */
bool cpu_threads_many(void);

/* The same with the compiler's loops (AVX-512, AVX2 or plain x86-64 clones):
 * what cpu_line runs where no hand-written lines are faster, and the reference
 * tests/test_stencil_stream.c checks the hand-written lines against. */
void cpu_line_portable(const struct stencil_layout *l, const void *in, void *out, int x0, int x1,
                       int y, int z);

/* The hand-written lines: the widest they may be (SB_ISA_AVX512; a test
 * lowers it to check the narrower ones), and the ones this processor runs
 * (SB_ISA_PORTABLE: none, cpu_simd_lines then runs the compiler's loops
 * and stores as usual). */
extern enum sb_isa cpu_lines_isa;
enum sb_isa cpu_simd_isa(void);

/* The narrowest lines that take 3D planes in pairs (SB_ISA_AVX512, where
 * it was measured; a test lowers it to SB_ISA_PORTABLE so that the pairs'
 * schedules run on every machine). */
extern enum sb_isa cpu_planes_isa;

/* How many lines of a plane one call computes at most with non-temporal
 * stores (stencil.stores = streaming); how many planes a sweep hands one
 * call (2 in 3D where the lines are cpu_planes_isa or wider, else 1); and
 * out = stencil(in) on `rows` lines y0, y0 + 1, ... of each of `planes`
 * planes z, z + 1, ..., points x0 <= x < x1, with non-temporal stores where
 * `stream` (then cpu_simd_fence before the lines are read), the same bits
 * as the compiler's lines. */
int cpu_stream_group(const struct stencil_layout *l);
int cpu_plane_group(const struct stencil_layout *l);
void cpu_simd_lines(const struct stencil_layout *l, const void *in, void *out, int x0, int x1,
                    int y0, int rows, int z, int planes, bool stream);
/* After a thread's last streamed line: its non-temporal stores reach memory
 * before anything it does next (sfence). */
void cpu_simd_fence(void);

/* n sweeps, sweep t on box[t] from field[t % 2] into field[(t + 1) % 2],
 * computed on tiles of `tile` lines (0: sized to the L2 cache) so that the
 * n sweeps make one pass over memory; the same bits as the n sweeps one
 * after the other. */
/* The cache a rank's temporal tiles fill half of (tile = 0): its L2 and
 * its share of the last level (src/cpu_cache.h), 1 MiB where none is
 * known; read once. */
size_t cpu_tile_cache_bytes(void);

/* The tiles worth timing for batches of n sweeps (stencil.tile = 0, tuned
 * by src/stencil/tune.c), ascending: sized to half the L2, the L2, twice
 * ... up to the cache above, stopping at the first that spans the box;
 * at most max; returns how many. */
int cpu_tile_candidates(const struct stencil_layout *l, int n, int *tiles, int max);

void cpu_temporal_sweeps(const struct stencil_layout *l, void *const field[2], int n,
                         const struct sbox *box, int tile);

#endif
