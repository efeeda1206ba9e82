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
 * Every point is computed as cpu_line computes it (backend.h's order of
 * additions, starting from 0, no FMA), so both kinds of store leave the
 * same bits (tests/test_stencil_stream.c).  AVX-512 only: _mm512_stream
 * needs a 64-byte aligned address, so each line starts with the points up
 * to its first aligned one and ends with the rest, one at a time. */
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
/* One point, as DEFINE_RUN in gpu/backend_cpu.c adds it up. */
#define POINT(T, c, j, sy, sz, w, o)                                                               \
    ({                                                                                             \
        T s_ = 0;                                                                                  \
        if (o) s_ += (c)[(j) - (sz)] * (T)(w)[0];                                                  \
        s_ += (c)[(j) - (sy)] * (T)(w)[(o) + 0];                                                   \
        s_ += (c)[(j)-1] * (T)(w)[(o) + 1];                                                        \
        s_ += (c)[(j)] * (T)(w)[(o) + 2];                                                          \
        s_ += (c)[(j) + 1] * (T)(w)[(o) + 3];                                                      \
        s_ += (c)[(j) + (sy)] * (T)(w)[(o) + 4];                                                   \
        if (o) s_ += (c)[(j) + (sz)] * (T)(w)[6];                                                  \
        s_;                                                                                        \
    })

/* `rows` lines (at most STREAM_LINES) of n points each: the line r starts
 * at c[r] in `in` and dst[r] in `out`. */
#define DEFINE_STREAM(T, NAME, V, LANES, SET1, LOADU, ADD, MUL, ZERO, STREAM)                      \
    __attribute__((target("avx512f"))) static void NAME(const struct stencil_layout *l,           \
                                                        const T *const *c, T *const *dst,          \
                                                        int rows, int n)                           \
    {                                                                                              \
        const ptrdiff_t sy = l->ext[0], sz = (ptrdiff_t)l->ext[0] * l->ext[1];                     \
        const int o = l->dim == 3 ? 1 : 0;                                                         \
        const double *w = l->weights;                                                              \
        V wv[7];                                                                                   \
        for (int i = 0; i < 7; i++)                                                                \
            wv[i] = SET1((T)w[i]);                                                                 \
        int head[STREAM_LINES], vectors = n / (LANES);                                             \
        for (int r = 0; r < rows; r++) {                                                           \
            int h = (int)(((64 - ((uintptr_t)dst[r] & 63)) & 63) / sizeof(T));                    \
            head[r] = h < n ? h : n;                                                               \
            for (int j = 0; j < head[r]; j++)                                                      \
                dst[r][j] = POINT(T, c[r], j, sy, sz, w, o);                                       \
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
            for (int j = head[r] + vectors * (LANES); j < n; j++)                                  \
                dst[r][j] = POINT(T, c[r], j, sy, sz, w, o);                                       \
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
    size_t at[STREAM_LINES];
    for (int r = 0; r < rows; r++)
        at[r] = ((size_t)z * (size_t)l->ext[1] + (size_t)(y0 + r)) * (size_t)l->ext[0] + (size_t)x0;
    if (l->real_bytes == 4) {
        const float *from[STREAM_LINES];
        float *to[STREAM_LINES];
        for (int r = 0; r < rows; r++) {
            from[r] = (const float *)in + at[r];
            to[r] = (float *)out + at[r];
        }
        stream_float(l, from, to, rows, x1 - x0);
    } else {
        const double *from[STREAM_LINES];
        double *to[STREAM_LINES];
        for (int r = 0; r < rows; r++) {
            from[r] = (const double *)in + at[r];
            to[r] = (double *)out + at[r];
        }
        stream_double(l, from, to, rows, x1 - x0);
    }
#else
    for (int r = 0; r < rows; r++)
        cpu_line(l, in, out, x0, x1, y0 + r, z);
#endif
}

int cpu_stream_group(const struct stencil_layout *l)
{
    return l->dim == 3 ? STREAM_LINES / 2 : STREAM_LINES;
}
