/* The CPU backend's lines in AVX-512, with ordinary or non-temporal stores
 * (stencil.stores = streaming).
 *
 * The vectors start where the output's 64-byte cache lines start, the
 * first and the last of a line masked to [x0, x1).  The backend pads its
 * lines to whole cache lines (stencil_layout's pitch; gpu/backend_cpu.c),
 * so in every whole vector the centre, y +- 1 and z +- 1 loads and the
 * store are aligned (only the x +- 1 loads straddle two cache lines), and
 * places its fields so that the own points start a cache line.  In 3D a
 * line also asks the L2 cache for its part of the plane z + 2, which the
 * sweep reads from memory at the next plane (plain sweeps go plane by
 * plane through tiles of y that keep three planes in the L2:
 * gpu/backend_cpu.c).  Measured on this project's development VM (3D
 * 512^3 float, one core, the best of 8 sweeps of the own points): before,
 * on unpadded lines, 1.26-1.29 GCells/s with ordinary stores and
 * 1.00-1.05 streaming (four lines side by side, a fence after each four);
 * now, with streaming stores, 1.05-1.10 with the lines starting one point
 * before a cache line, 1.56 aligned, 1.83-1.89 aligned with the prefetch.
 * Where the lines stay in the L2 cache they are about as fast as the
 * compiler's loops (3D 512 x 64 x 4: 4.05 against 3.7-4.0 GCells/s; 2D
 * 2048 x 128: 6.1 against 5.8).
 *
 * Non-temporal stores: a sweep over a field larger than the cache reads it
 * once and writes the other field once.  Ordinary stores first read every
 * line they write (write-allocate), a third stream; non-temporal ones write
 * past the cache, so a sweep moves what a copy moves.  Several lines of one
 * plane are computed side by side (their north and south rows shared in the
 * cache), which keeps enough stores and loads in flight to reach the copy's
 * bandwidth: measured on the development VM (2D 16384^2 float, one core),
 * one line at a time with ordinary stores 12 GB/s, with streaming stores
 * 15, four lines 20-22, eight 21-22.5, memcpy 22-23.
 *
 * Every lane adds its weighted values in backend.h's order, starting from
 * 0, no FMA, as the scalar lines of gpu/backend_cpu.c do: every path leaves
 * the same bits (tests/test_stencil_stream.c).  Masked-off lanes load
 * nothing and store nothing. */
#include "backend_cpu.h"
#include "../src/vectorize.h"

#include <stdint.h>

#ifdef SB_X86_AVX512
#include <immintrin.h>
#endif

/* Lines one call computes together with streaming stores: in 2D eight
 * (measured 0.97 of the copy's bandwidth against 0.85 with four, 0.77 with
 * two); in 3D one (with aligned lines, in a scratch program of the same
 * kernel, 512^3: one at a time 1.87 GCells/s, four 1.76; before the lines
 * were aligned, four 0.56-0.61 of the copy and eight 0.49). */
#define STREAM_LINES 8

bool cpu_avx512_supported(void)
{
    return sb_has_avx512();
}

#ifdef SB_X86_AVX512
/* `rows` lines (at most STREAM_LINES) y0, y0 + 1, ... of plane z, points
 * x0 <= x < x1; `stream`: non-temporal stores where a vector is whole and
 * aligned.  SUM adds the seven (3D) or five (2D) weighted points at p,
 * loaded with LOAD, masked or not. */
#define SUM(s, LOAD, p, ZERO, ADD, MUL)                                                            \
    do {                                                                                           \
        s = ZERO();                                                                                \
        if (o) s = ADD(s, MUL(LOAD((p)-sz), wv[0]));                                               \
        s = ADD(s, MUL(LOAD((p)-sy), wv[o + 0]));                                                  \
        s = ADD(s, MUL(LOAD((p)-1), wv[o + 1]));                                                   \
        s = ADD(s, MUL(LOAD(p), wv[o + 2]));                                                       \
        s = ADD(s, MUL(LOAD((p) + 1), wv[o + 3]));                                                 \
        s = ADD(s, MUL(LOAD((p) + sy), wv[o + 4]));                                                \
        if (o) s = ADD(s, MUL(LOAD((p) + sz), wv[6]));                                             \
    } while (0)

#define DEFINE_LINES(T, NAME, V, MASK, LANES, SET1, LOADU, MLOAD, ADD, MUL, ZERO, STOREU,          \
                     MASK_STOREU, STREAM)                                                          \
    __attribute__((target("avx512f"))) static void NAME(const struct stencil_layout *l,            \
                                                        const void *in, void *out, int x0, int x1, \
                                                        int y0, int rows, int z, bool stream)      \
    {                                                                                              \
        const ptrdiff_t sy = (ptrdiff_t)layout_pitch(l), sz = sy * l->ext[1];                      \
        const int o = l->dim == 3 ? 1 : 0;                                                         \
        if (rows < 1 || x0 >= x1) return;                                                          \
        if (rows > STREAM_LINES) { /* in groups the arrays below hold */                           \
            NAME(l, in, out, x0, x1, y0, STREAM_LINES, z, stream);                                 \
            NAME(l, in, out, x0, x1, y0 + STREAM_LINES, rows - STREAM_LINES, z, stream);           \
            return;                                                                                \
        }                                                                                          \
        V wv[7];                                                                                   \
        for (int i = 0; i < 7; i++)                                                                \
            wv[i] = SET1((T)l->weights[i]);                                                        \
        const T *c[STREAM_LINES];                                                                  \
        T *dst[STREAM_LINES];                                                                      \
        for (int r = 0; r < rows; r++) {                                                           \
            size_t at = layout_index(l, 0, y0 + r, z);                                             \
            c[r] = (const T *)in + at;                                                             \
            dst[r] = (T *)out + at;                                                                \
        }                                                                                          \
        /* vectors on the cache lines of the first line's output: a masked                         \
           one before wb, whole ones in [wb, we), a masked one at we */                            \
        const int first = x0 - (int)(((uintptr_t)(dst[0] + x0) & 63) / sizeof(T));                 \
        const int wb = first < x0 ? first + (LANES) : first;                                       \
        const int we = x1 - wb >= (LANES) ? wb + (x1 - wb) / (LANES) * (LANES) : wb;               \
        for (int r = 0; r < rows; r++) /* else ordinary stores */                                  \
            stream = stream && ((uintptr_t)(dst[r] + wb) & 63) == 0;                               \
        for (int edge = 0; edge < 2; edge++) {                                                     \
            const int x = edge ? we : first;                                                       \
            if (edge ? we >= x1 : first == wb) continue;                                           \
            int lo = x0 > x ? x0 - x : 0, hi = x1 - x < (LANES) ? x1 - x : (LANES);                \
            const MASK m = (MASK)(((1u << hi) - 1u) & ~((1u << lo) - 1u));                         \
            for (int r = 0; r < rows; r++) {                                                       \
                V s;                                                                               \
                SUM(s, MLOAD, c[r] + x, ZERO, ADD, MUL);                                           \
                MASK_STOREU(dst[r] + x, m, s);                                                     \
            }                                                                                      \
        }                                                                                          \
        if (rows == 1) { /* the common case, its pointers in registers */                          \
            const T *c0 = c[0];                                                                    \
            T *d0 = dst[0];                                                                        \
            const bool ahead = o && z + 2 < l->ext[2];                                             \
            for (int x = wb; x < we; x += (LANES)) {                                               \
                V s;                                                                               \
                if (ahead) _mm_prefetch((const char *)(c0 + x + 2 * sz), _MM_HINT_T1);             \
                SUM(s, LOADU, c0 + x, ZERO, ADD, MUL);                                             \
                if (stream)                                                                        \
                    STREAM(d0 + x, s);                                                             \
                else                                                                               \
                    STOREU(d0 + x, s);                                                             \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int x = wb; x < we; x += (LANES))                                                     \
            for (int r = 0; r < rows; r++) {                                                       \
                V s;                                                                               \
                SUM(s, LOADU, c[r] + x, ZERO, ADD, MUL);                                           \
                if (stream)                                                                        \
                    STREAM(dst[r] + x, s);                                                         \
                else                                                                               \
                    STOREU(dst[r] + x, s);                                                         \
            }                                                                                      \
    }

/* a masked load of the vector at p: lanes outside `m` read nothing and are 0 */
#define MLOAD_PS(p) _mm512_maskz_loadu_ps(m, p)
#define MLOAD_PD(p) _mm512_maskz_loadu_pd(m, p)
DEFINE_LINES(float, lines_float, __m512, __mmask16, 16, _mm512_set1_ps, _mm512_loadu_ps, MLOAD_PS,
             _mm512_add_ps, _mm512_mul_ps, _mm512_setzero_ps, _mm512_storeu_ps,
             _mm512_mask_storeu_ps, _mm512_stream_ps)
DEFINE_LINES(double, lines_double, __m512d, __mmask8, 8, _mm512_set1_pd, _mm512_loadu_pd, MLOAD_PD,
             _mm512_add_pd, _mm512_mul_pd, _mm512_setzero_pd, _mm512_storeu_pd,
             _mm512_mask_storeu_pd, _mm512_stream_pd)
#endif

void cpu_avx512_lines(const struct stencil_layout *l, const void *in, void *out, int x0, int x1,
                      int y0, int rows, int z, bool stream)
{
#ifdef SB_X86_AVX512
    (l->real_bytes == 4 ? lines_float : lines_double)(l, in, out, x0, x1, y0, rows, z, stream);
#else
    (void)l, (void)in, (void)out, (void)x0, (void)x1, (void)y0, (void)rows, (void)z, (void)stream;
#endif
}

void cpu_avx512_fence(void)
{
#ifdef SB_X86_AVX512
    _mm_sfence();
#endif
}

int cpu_stream_group(const struct stencil_layout *l)
{
    return l->dim == 3 ? 1 : STREAM_LINES;
}
