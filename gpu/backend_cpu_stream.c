/* The CPU backend's plain sweeps with non-temporal stores
 * (stencil.stores = streaming).
 *
 * A sweep over a field larger than the cache reads it once and writes the
 * other field once.  Ordinary stores first read every line they write
 * (write-allocate), a third stream; non-temporal stores write past the
 * cache, so a sweep moves what a copy moves.  Several lines of one plane
 * are computed side by side (their north and south rows shared in the
 * cache), which keeps enough stores and loads in flight to reach the
 * copy's bandwidth: measured on this project's development VM (2D 16384^2
 * float, one core), one line at a time with ordinary stores 12 GB/s, with
 * streaming stores 15, four lines 20-22, eight 21-22.5, memcpy 22-23.
 *
 * The lines' vectors are added up in backend.h's order, starting from 0,
 * no FMA, as cpu_line does; the points before a line's first 64-byte
 * aligned one (_mm512_stream needs that alignment) and after its last
 * whole vector are cpu_line's own.  So both kinds of store leave the same
 * bits (tests/test_stencil_stream.c).  AVX-512 only. */
#include "backend_cpu.h"
#include "../src/vectorize.h"

#include <stdint.h>

#ifdef SB_X86_AVX512
#include <immintrin.h>
#endif

/* Lines one call computes together: in 2D eight (measured 0.97 of the
 * copy's bandwidth against 0.85 with four, 0.77 with two); in 3D four
 * (eight: 0.49 against 0.56-0.61). */
#define STREAM_LINES 8

bool cpu_stream_supported(void)
{
    return sb_has_avx512();
}

#ifdef SB_X86_AVX512
/* `rows` lines (at most STREAM_LINES) y0, y0 + 1, ... of plane z, points
 * x0 <= x < x1. */
#define DEFINE_STREAM(T, NAME, V, LANES, SET1, LOADU, ADD, MUL, ZERO, STREAM)                      \
    __attribute__((target("avx512f"))) static void NAME(const struct stencil_layout *l,           \
                                                        const void *in, void *out, int x0, int x1, \
                                                        int y0, int rows, int z)                   \
    {                                                                                              \
        const ptrdiff_t sy = l->ext[0], sz = (ptrdiff_t)l->ext[0] * l->ext[1];                     \
        const int o = l->dim == 3 ? 1 : 0, n = x1 - x0;                                            \
        V wv[7];                                                                                   \
        for (int i = 0; i < 7; i++)                                                                \
            wv[i] = SET1((T)l->weights[i]);                                                        \
        const T *c[STREAM_LINES];                                                                  \
        T *dst[STREAM_LINES];                                                                      \
        int head[STREAM_LINES], vectors = n / (LANES);                                             \
        for (int r = 0; r < rows; r++) {                                                           \
            size_t at = layout_index(l, x0, y0 + r, z);                                            \
            c[r] = (const T *)in + at;                                                             \
            dst[r] = (T *)out + at;                                                                \
            int h = (int)(((64 - ((uintptr_t)dst[r] & 63)) & 63) / sizeof(T));                    \
            head[r] = h < n ? h : n;                                                               \
            cpu_line(l, in, out, x0, x0 + head[r], y0 + r, z);                                     \
            int v = (n - head[r]) / (LANES);                                                       \
            vectors = v < vectors ? v : vectors;                                                   \
        }                                                                                          \
        for (int k = 0; k < vectors; k++)                                                          \
            for (int r = 0; r < rows; r++) {                                                       \
                const T *p = c[r] + head[r] + (ptrdiff_t)k * (LANES);                              \
                V s = ZERO();                                                                      \
                if (o) s = ADD(s, MUL(LOADU(p - sz), wv[0]));                                      \
                s = ADD(s, MUL(LOADU(p - sy), wv[o + 0]));                                         \
                s = ADD(s, MUL(LOADU(p - 1), wv[o + 1]));                                          \
                s = ADD(s, MUL(LOADU(p), wv[o + 2]));                                              \
                s = ADD(s, MUL(LOADU(p + 1), wv[o + 3]));                                          \
                s = ADD(s, MUL(LOADU(p + sy), wv[o + 4]));                                         \
                if (o) s = ADD(s, MUL(LOADU(p + sz), wv[6]));                                      \
                STREAM(dst[r] + head[r] + (ptrdiff_t)k * (LANES), s);                              \
            }                                                                                      \
        for (int r = 0; r < rows; r++)                                                             \
            cpu_line(l, in, out, x0 + head[r] + vectors * (LANES), x1, y0 + r, z);                 \
        _mm_sfence(); /* the streamed lines are visible before anyone reads them */               \
    }

DEFINE_STREAM(float, stream_float, __m512, 16, _mm512_set1_ps, _mm512_loadu_ps, _mm512_add_ps,
              _mm512_mul_ps, _mm512_setzero_ps, _mm512_stream_ps)
DEFINE_STREAM(double, stream_double, __m512d, 8, _mm512_set1_pd, _mm512_loadu_pd, _mm512_add_pd,
              _mm512_mul_pd, _mm512_setzero_pd, _mm512_stream_pd)
#endif

void cpu_stream_lines(const struct stencil_layout *l, const void *in, void *out, int x0, int x1,
                      int y0, int rows, int z)
{
#ifdef SB_X86_AVX512
    (l->real_bytes == 4 ? stream_float : stream_double)(l, in, out, x0, x1, y0, rows, z);
#else
    for (int r = 0; r < rows; r++)
        cpu_line(l, in, out, x0, x1, y0 + r, z);
#endif
}

int cpu_stream_group(const struct stencil_layout *l)
{
    return l->dim == 3 ? STREAM_LINES / 2 : STREAM_LINES;
}
