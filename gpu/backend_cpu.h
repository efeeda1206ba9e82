/* What the CPU backend's files share: the line kernel (gpu/backend_cpu.c),
 * the temporal-blocking schedule that calls it (gpu/backend_cpu_temporal.c)
 * and the lines with non-temporal stores (gpu/backend_cpu_stream.c). */
#ifndef SB_GPU_BACKEND_CPU_H
#define SB_GPU_BACKEND_CPU_H

#include "backend.h"

/* out = stencil(in) on the points x0 <= x < x1 of line (y, z), in the
 * rounding order of backend.h. */
void cpu_line(const struct stencil_layout *l, const void *in, void *out, int x0, int x1, int y,
              int z);

/* Non-temporal stores (stencil.stores = streaming): whether this processor
 * has them (AVX-512); how many lines one call computes at most; and
 * out = stencil(in) on `rows` (1 .. cpu_stream_group()) lines y0, y0 + 1,
 * ... of plane z, points x0 <= x < x1, the same bits as cpu_line. */
bool cpu_stream_supported(void);
int cpu_stream_group(const struct stencil_layout *l);
void cpu_stream_lines(const struct stencil_layout *l, const void *in, void *out, int x0, int x1,
                      int y0, int rows, int z);

/* n sweeps, sweep t on box[t] from field[t % 2] into field[(t + 1) % 2],
 * computed on tiles of `tile` lines (0: sized to the L2 cache) so that the
 * n sweeps make one pass over memory; the same bits as the n sweeps one
 * after the other. */
void cpu_temporal_sweeps(const struct stencil_layout *l, void *const field[2], int n,
                         const struct sbox *box, int tile);

#endif
