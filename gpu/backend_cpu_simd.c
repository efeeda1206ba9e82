/* The CPU backend's hand-written lines, AVX-512 and AVX2, with ordinary or
 * non-temporal stores (stencil.stores = streaming).
 *
 * The vectors start where the output's 64-byte cache lines start, the
 * first and the last cache line of a line masked to [x0, x1).  The backend
 * pads its lines to whole cache lines (stencil_layout's pitch;
 * gpu/backend_cpu.c), so in every whole vector the centre, y +- 1 and
 * z +- 1 loads and the store are aligned (only the x +- 1 loads straddle
 * two cache lines), and places its fields so that the own points start a
 * cache line.  In 3D a call computes line y of one or two planes side by
 * side (SWEEP_PLANES), P planes from z, and asks the L2 cache for its part
 * of the planes z + P + 1 .. z + 2P, which the group of planes after this
 * one reads first (plain sweeps go through tiles of y that keep the planes
 * in the L2, so that comes a tile's lines later: gpu/backend_cpu.c).
 * Measured on this project's development VM (AVX-512; 3D 512^3 float, one
 * core, the best of 8 sweeps of the own points): before, on unpadded lines,
 * 1.26-1.29 GCells/s with ordinary stores and 1.00-1.05 streaming (four
 * lines side by side, a fence after each four); now, with streaming stores,
 * 1.05-1.10 with the lines starting one point before a cache line, 1.56
 * aligned, 1.83-1.89 aligned with the prefetch.  Where the lines stay in the
 * L2 cache they are about as fast as the compiler's loops (3D 512 x 64 x 4:
 * 4.05 against 3.7-4.0 GCells/s; 2D 2048 x 128: 6.1 against 5.8).
 *
 * Non-temporal stores: a sweep over a field larger than the cache reads it
 * once and writes the other field once.  Ordinary stores first read every
 * line they write (write-allocate), a third stream; non-temporal ones write
 * past the cache, so a sweep moves what a copy moves.  Several lines of one
 * plane are computed side by side (their north and south rows shared in the
 * cache), which keeps enough stores and loads in flight to reach the copy's
 * bandwidth: measured on the development VM (2D 16384^2 float, one core),
 * one line at a time with ordinary stores 12 GB/s, with streaming stores
 * 15, four lines 20-22, eight 21-22.5, memcpy 22-23.  Each line gets a
 * whole cache line of stores before the next line's (AVX2: two vectors):
 * on an AMD EPYC (AVX2), eight lines side by side storing half a cache
 * line each in turn streamed at 0.19-0.43 of the copy's bandwidth, whole
 * cache lines at 0.90-1.00 of it (a scratch loop, 2D 16384^2, 2026-11-27;
 * docs/results/stencil-avx2-streaming-ab.txt).
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

/* 3D planes one call computes side by side, cache line by cache line: a
 * line of plane z reads the lines of z - 1, z + 1 and its y + 1 neighbour
 * from the L2 cache (its y - 1 and itself are still in the L1 from the
 * line before), three lines fetched a line computed; lines of two planes
 * share two of them, four fetched for two.  Measured with AVX-512 on the
 * Xeon VM (2026-11-27, three rounds taking turns with the one-plane build,
 * docs/results/stencil-plane-pairs-ab.txt): with the fields in the cache
 * (512 x 32 x 16 float, 3000 sweeps) 258 ms against 339; calibrate's 3D
 * sweep over its copy on 1 rank 0.69-0.79 against 0.69-0.73, on 2 ranks
 * within the noise (0.60-0.74 against 0.64-0.68); plain 512^3 sweeps 1.42-
 * 1.54 against 1.33-1.46 GCells/s on 1 rank, 2.41-2.63 against 2.12-2.50
 * on 2.  In a scratch loop three planes gained no more than two, eight
 * lost.  AVX2 is not measured here and keeps one plane (cpu_planes_isa). */
#define SWEEP_PLANES 2

enum sb_isa cpu_lines_isa = SB_ISA_AVX512;
enum sb_isa cpu_planes_isa = SB_ISA_AVX512;

enum sb_isa cpu_simd_isa(void)
{
    return sb_isa_upto(cpu_lines_isa);
}

#ifdef SB_X86_AVX512
/* `rows` lines y0, y0 + 1, ... of each of `planes` planes from z, points
 * x0 <= x < x1; `stream`: non-temporal stores where a cache line is whole
 * and aligned.  SUM adds the seven (3D) or five (2D) weighted points at p,
 * loaded with LOAD, masked or not; MAKE_MASK(lo, hi) is the mask of lanes
 * lo <= lane < hi. */
#define SUM(s, O, LOAD, p, ZERO, ADD, MUL)                                                         \
    do {                                                                                           \
        s = ZERO();                                                                                \
        if (O) s = ADD(s, MUL(LOAD((p)-sz), wv[0]));                                               \
        s = ADD(s, MUL(LOAD((p)-sy), wv[(O) + 0]));                                                \
        s = ADD(s, MUL(LOAD((p)-1), wv[(O) + 1]));                                                 \
        s = ADD(s, MUL(LOAD(p), wv[(O) + 2]));                                                     \
        s = ADD(s, MUL(LOAD((p) + 1), wv[(O) + 3]));                                               \
        s = ADD(s, MUL(LOAD((p) + sy), wv[(O) + 4]));                                              \
        if (O) s = ADD(s, MUL(LOAD((p) + sz), wv[6]));                                             \
    } while (0)

#define DEFINE_LINES(T, NAME, TARGET, V, MASK, MAKE_MASK, LANES, SET1, LOADU, MLOAD, ADD, MUL,     \
                     ZERO, STOREU, MASK_STOREU, STREAM)                                            \
    /* The whole cache lines [wb, we) of the rows, with the dimension (O: 1                        \
       in 3D) and the stores constants where it is inlined */                                      \
    __attribute__((target(TARGET), always_inline)) static inline void NAME##_whole(                \
        const T *c0, T *d0, int rows, int planes, int wb, int we, ptrdiff_t sy, ptrdiff_t sz,      \
        const V *wv, int ahead, const int O, const bool stream)                                    \
    {                                                                                              \
        enum { CL = 64 / sizeof(T) }; /* points per cache line: 1 or 2 vectors */                  \
        const ptrdiff_t all = (ptrdiff_t)planes * sz;                                              \
        /* the common case; in 3D the planes side by side.  Folded into the                        \
           general loop below (ed00513), 2D temporal blocking (rows of one line                    \
           in the cache) ran 1.6-1.8x slower: 16384^2 at depth 4 and 8, 1.77                       \
           and 2.14 against 2.80-3.10 and 3.53-3.75 GCells/s                                       \
           (docs/results/stencil-2d-temporal-ab.txt) */                                            \
        if (rows == 1) {                                                                           \
            for (int x = wb; x < we; x += CL) {                                                    \
                for (int k = 0; O && k < ahead; k++) /* the next call's new planes */              \
                    _mm_prefetch((const char *)(c0 + x + all + (k + 1) * sz), _MM_HINT_T1);        \
                for (ptrdiff_t p = 0; p < all; p += sz)                                            \
                    for (int v = x; v < x + CL; v += (LANES)) {                                    \
                        V s;                                                                       \
                        SUM(s, O, LOADU, c0 + p + v, ZERO, ADD, MUL);                              \
                        if (stream)                                                                \
                            STREAM(d0 + p + v, s);                                                 \
                        else                                                                       \
                            STOREU(d0 + p + v, s);                                                 \
                    }                                                                              \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        /* the lines one after the other, sy apart (with a pointer to each line                    \
           from an array: 2D 16384^2 on the EPYC streamed 16.3-17.8 GB/s, against                  \
           19.8-20.3) */                                                                           \
        for (int x = wb; x < we; x += CL)                                                          \
            for (ptrdiff_t p = 0; p < all; p += sz)                                                \
                for (ptrdiff_t r = p; r < p + rows * sy; r += sy) /* a whole cache line a line */  \
                    for (int v = x; v < x + CL; v += (LANES)) {                                    \
                        V s;                                                                       \
                        SUM(s, O, LOADU, c0 + r + v, ZERO, ADD, MUL);                              \
                        if (stream)                                                                \
                            STREAM(d0 + r + v, s);                                                 \
                        else                                                                       \
                            STOREU(d0 + r + v, s);                                                 \
                    }                                                                              \
    }                                                                                              \
                                                                                                   \
    __attribute__((target(TARGET))) static void NAME(                                              \
        const struct stencil_layout *l, const void *in, void *out, int x0, int x1, int y0,         \
        int rows, int z, int planes, bool stream)                                                  \
    {                                                                                              \
        const ptrdiff_t sy = (ptrdiff_t)layout_pitch(l), sz = sy * l->ext[1];                      \
        const int o = l->dim == 3 ? 1 : 0;                                                         \
        enum { CL = 64 / sizeof(T) };                                                              \
        if (rows < 1 || planes < 1 || x0 >= x1) return;                                            \
        V wv[7];                                                                                   \
        for (int i = 0; i < 7; i++)                                                                \
            wv[i] = SET1((T)l->weights[i]);                                                        \
        const size_t at = layout_index(l, 0, y0, z); /* line y0 + r lies r * sy further */         \
        const T *c = (const T *)in + at;                                                           \
        T *dst = (T *)out + at;                                                                    \
        /* the cache lines of the first line's output: a masked one before                         \
           wb, whole ones in [wb, we), a masked one at we */                                       \
        const int first = x0 - (int)(((uintptr_t)(dst + x0) & 63) / sizeof(T));                    \
        const int wb = first < x0 ? first + CL : first;                                            \
        const int we = x1 - wb >= CL ? wb + (x1 - wb) / CL * CL : wb;                              \
        for (int k = 0; k < planes; k++) /* else ordinary stores */                                \
            for (int r = 0; r < rows; r++)                                                         \
                stream = stream && ((uintptr_t)(dst + k * sz + r * sy + wb) & 63) == 0;            \
        /* the partial cache lines at the ends, asked for now and stored after                     \
           the whole ones: an ordinary store to a line not in the cache waits                      \
           for it, and the streamed stores behind it with it (3D 731 x 731 x                       \
           512 on 2 ranks, 8 sweeps: stored first or last without the prefetch                     \
           774 and 795 ms, last with it 556; docs/results/stencil-ragged-lines-ab.txt) */          \
        for (int k = 0; k < planes; k++)                                                           \
            for (int r = 0; r < rows; r++) {                                                       \
                if (first < wb)                                                                    \
                    _mm_prefetch((const char *)(dst + k * sz + r * sy + first), _MM_HINT_T0);      \
                if (we < x1)                                                                       \
                    _mm_prefetch((const char *)(dst + k * sz + r * sy + we), _MM_HINT_T0);         \
            }                                                                                      \
        /* the planes z + planes + 1 ... that exist, at most `planes` of them */                   \
        int ahead = l->ext[2] - (z + planes + 1);                                                  \
        ahead = ahead < 0 ? 0 : ahead < planes ? ahead : planes;                                   \
        if (o && stream)                                                                           \
            NAME##_whole(c, dst, rows, planes, wb, we, sy, sz, wv, ahead, 1, true);                \
        else if (o)                                                                                \
            NAME##_whole(c, dst, rows, planes, wb, we, sy, sz, wv, ahead, 1, false);               \
        else if (stream)                                                                           \
            NAME##_whole(c, dst, rows, planes, wb, we, sy, sz, wv, ahead, 0, true);                \
        else                                                                                       \
            NAME##_whole(c, dst, rows, planes, wb, we, sy, sz, wv, ahead, 0, false);               \
        for (int edge = 0; edge < 2; edge++) {                                                     \
            const int at = edge ? we : first;                                                      \
            if (edge ? we >= x1 : first == wb) continue;                                           \
            for (int x = at; x < at + CL; x += (LANES)) {                                          \
                int lo = x0 > x ? x0 - x : 0, hi = x1 - x < (LANES) ? x1 - x : (LANES);            \
                if (hi <= lo) continue;                                                            \
                const MASK m = MAKE_MASK(lo, hi);                                                  \
                for (int k = 0; k < planes; k++)                                                   \
                    for (int r = 0; r < rows; r++) {                                               \
                        V s;                                                                       \
                        SUM(s, o, MLOAD, c + k * sz + r * sy + x, ZERO, ADD, MUL);                 \
                        MASK_STOREU(dst + k * sz + r * sy + x, m, s);                              \
                    }                                                                              \
            }                                                                                      \
        }                                                                                          \
    }

/* AVX-512: a masked load of the vector at p, lanes outside `m` read nothing
 * and are 0; the mask a bit per lane */
#define MLOAD512_PS(p)  _mm512_maskz_loadu_ps(m, p)
#define MLOAD512_PD(p)  _mm512_maskz_loadu_pd(m, p)
#define MASK512(lo, hi) (((1u << (hi)) - 1u) & ~((1u << (lo)) - 1u))
DEFINE_LINES(float, avx512_float, "avx512f", __m512, __mmask16, MASK512, 16, _mm512_set1_ps,
             _mm512_loadu_ps, MLOAD512_PS, _mm512_add_ps, _mm512_mul_ps, _mm512_setzero_ps,
             _mm512_storeu_ps, _mm512_mask_storeu_ps, _mm512_stream_ps)
DEFINE_LINES(double, avx512_double, "avx512f", __m512d, __mmask8, MASK512, 8, _mm512_set1_pd,
             _mm512_loadu_pd, MLOAD512_PD, _mm512_add_pd, _mm512_mul_pd, _mm512_setzero_pd,
             _mm512_storeu_pd, _mm512_mask_storeu_pd, _mm512_stream_pd)

/* AVX2: the same with a mask vector, all ones in the lanes lo .. hi - 1 */
__attribute__((target("avx2"))) static inline __m256i mask_epi32(int lo, int hi)
{
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(hi), lane),
                            _mm256_cmpgt_epi32(lane, _mm256_set1_epi32(lo - 1)));
}

__attribute__((target("avx2"))) static inline __m256i mask_epi64(int lo, int hi)
{
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    return _mm256_and_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(hi), lane),
                            _mm256_cmpgt_epi64(lane, _mm256_set1_epi64x(lo - 1)));
}

#define MLOAD256_PS(p) _mm256_maskload_ps(p, m)
#define MLOAD256_PD(p) _mm256_maskload_pd(p, m)
DEFINE_LINES(float, avx2_float, "avx2", __m256, __m256i, mask_epi32, 8, _mm256_set1_ps,
             _mm256_loadu_ps, MLOAD256_PS, _mm256_add_ps, _mm256_mul_ps, _mm256_setzero_ps,
             _mm256_storeu_ps, _mm256_maskstore_ps, _mm256_stream_ps)
DEFINE_LINES(double, avx2_double, "avx2", __m256d, __m256i, mask_epi64, 4, _mm256_set1_pd,
             _mm256_loadu_pd, MLOAD256_PD, _mm256_add_pd, _mm256_mul_pd, _mm256_setzero_pd,
             _mm256_storeu_pd, _mm256_maskstore_pd, _mm256_stream_pd)
#endif

void cpu_simd_lines(const struct stencil_layout *l, const void *in, void *out, int x0, int x1,
                    int y0, int rows, int z, int planes, bool stream)
{
#ifdef SB_X86_AVX512
    bool f = l->real_bytes == 4;
    if (cpu_simd_isa() == SB_ISA_AVX512)
        (f ? avx512_float : avx512_double)(l, in, out, x0, x1, y0, rows, z, planes, stream);
    else if (cpu_simd_isa() == SB_ISA_AVX2)
        (f ? avx2_float : avx2_double)(l, in, out, x0, x1, y0, rows, z, planes, stream);
    else
#endif
        for (int k = 0; k < planes; k++) /* no hand-written lines here */
            for (int r = 0; r < rows; r++)
                cpu_line_portable(l, in, out, x0, x1, y0 + r, z + k);
    (void)stream;
}

void cpu_simd_fence(void)
{
#ifdef SB_X86_AVX512
    if (cpu_simd_isa() != SB_ISA_PORTABLE) _mm_sfence();
#endif
}

int cpu_stream_group(const struct stencil_layout *l)
{
    return l->dim == 3 ? 1 : STREAM_LINES;
}

int cpu_plane_group(const struct stencil_layout *l)
{
    return l->dim == 3 && cpu_simd_isa() >= cpu_planes_isa ? SWEEP_PLANES : 1;
}
