#include "force.h"
#include "../vectorize.h"

#ifdef SB_X86_AVX512
#include <immintrin.h>
#endif

enum sb_isa lj_forces_isa = SB_ISA_AVX512;
bool lj_forces_wide_on_amd = false;

/* Whether the AVX-512 loop, which gathers and scatters, pays on this
 * processor: not on AMD's, which run scatters slowly.  On the Zen 5 EPYC
 * VM (2026-12-07) the portable loop computed the forces of 32 000 atoms
 * in 0.45-0.47 s against 0.75-0.80, the same bits; whole runs 1.39-1.51x
 * faster at 32 000 and 256 000 atoms on 1 and 2 ranks
 * (docs/results/md-force-portable-zen5-ab.txt). */
static bool wide_pays(void)
{
#ifdef SB_X86_AVX512
    return lj_forces_wide_on_amd || !__builtin_cpu_is("amd");
#else
    return true;
#endif
}

/* One list's sums into the particle's force and the energies. */
static inline void add_sums(double fx, double fy, double fz, bool both, bool energy,
                            double potential, double virial, double pairs, double fi[3],
                            double sums[3])
{
    fi[0] += fx;
    fi[1] += fy;
    fi[2] += fz;
    if (energy) {
        const double share = both ? 1.0 : 0.5; /* a ghost pair is half ours */
        sums[0] += share * potential;
        sums[1] += share * virial;
        sums[2] += share * pairs;
    }
}

/* One particle's partners: own ones (the pair acts on both) or ghosts (on
 * the particle only, half the energy).  The cut-off is a mask rather than a
 * branch: about a third of the listed pairs lie between cut-off and skin,
 * and a mispredicted jump costs more than the arithmetic it would skip.
 * In chunks of STAGE partners, in three loops: the differences (a load per
 * coordinate, the partners scattered in memory), then each pair's force
 * factor and energies, where nothing is gathered or scattered and the
 * compiler's vectors compute STAGE pairs at a time (the quotient is the
 * costliest step), then the sums and the partners' forces, in list order.
 * Every value is the one a loop over the pairs would compute, and every sum
 * adds in the same order, so the bits do not change.  On the AMD EPYC VM
 * (AVX2) the forces took 0.70-0.90 of the time of a loop a pair at a time
 * at 256k atoms and a median 0.875 at 32k, both binaries at once on the two
 * cores (docs/results/md-force-staged-ab.txt). */
enum { STAGE = 32 };

static inline __attribute__((always_inline)) void
partners(const int *restrict js, int n, bool both, const double *restrict x, double *restrict f,
         double xi, double yi, double zi, double cut2, bool energy, double fi[3], double sums[3])
{
    double fx = 0.0, fy = 0.0, fz = 0.0, potential = 0.0, virial = 0.0, pairs = 0.0;
    double dx[STAGE], dy[STAGE], dz[STAGE], g[STAGE], u[STAGE], w[STAGE], in[STAGE];
    for (int k0 = 0; k0 < n; k0 += STAGE) {
        const int m = n - k0 < STAGE ? n - k0 : STAGE;
        const int *restrict jk = js + k0;
        for (int k = 0; k < m; k++) {
            const int j = jk[k];
            dx[k] = xi - x[3 * j];
            dy[k] = yi - x[3 * j + 1];
            dz[k] = zi - x[3 * j + 2];
        }
        for (int k = 0; k < m; k++) {
            const double r2 = dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k];
            const double inside = r2 < cut2 ? 1.0 : 0.0;
            const double sr2 = inside / r2;
            const double sr6 = sr2 * sr2 * sr2;
            const double force = 48.0 * sr6 * (sr6 - 0.5) * sr2;
            g[k] = force;
            if (energy) {
                u[k] = 4.0 * sr6 * (sr6 - 1.0);
                w[k] = r2 * force;
                in[k] = inside;
            }
        }
        for (int k = 0; k < m; k++) {
            const double gx = dx[k] * g[k], gy = dy[k] * g[k], gz = dz[k] * g[k];
            fx += gx;
            fy += gy;
            fz += gz;
            if (both) {
                const int j = jk[k];
                f[3 * j] -= gx;
                f[3 * j + 1] -= gy;
                f[3 * j + 2] -= gz;
            }
            if (energy) {
                potential += u[k];
                virial += w[k];
                pairs += in[k];
            }
        }
    }
    add_sums(fx, fy, fz, both, energy, potential, virial, pairs, fi, sums);
}

#ifdef SB_X86_AVX512
/* The same partners eight at a time: every pair's products, quotient and
 * differences as above, in the same order (no FMA); a partner's force
 * gathered, reduced and scattered back (a list names each partner once, so
 * no two lanes touch one force); and the particle's own sums added lane by
 * lane in list order, as the loop above adds them, so that the bits agree. */
__attribute__((target("avx512f,avx512vl"))) static void
partners_avx512(const int *restrict js, int n, bool both, const double *restrict x,
                double *restrict f, double xi, double yi, double zi, double cut2, bool energy,
                double fi[3], double sums[3])
{
    double fx = 0.0, fy = 0.0, fz = 0.0, potential = 0.0, virial = 0.0, pairs = 0.0;
    const __m512d px = _mm512_set1_pd(xi), py = _mm512_set1_pd(yi), pz = _mm512_set1_pd(zi),
                  c2 = _mm512_set1_pd(cut2), one = _mm512_set1_pd(1.0), c48 = _mm512_set1_pd(48.0),
                  half = _mm512_set1_pd(0.5), c4 = _mm512_set1_pd(4.0), zero = _mm512_setzero_pd();
    const __m256i three = _mm256_set1_epi32(3);
    for (int k = 0; k < n; k += 8) {
        const int lanes = n - k < 8 ? n - k : 8;
        const __mmask8 m = (__mmask8)((1u << lanes) - 1);
        const __m256i j3 = _mm256_mullo_epi32(_mm256_maskz_loadu_epi32(m, js + k), three);
        const __m512d dx = _mm512_sub_pd(px, _mm512_mask_i32gather_pd(zero, m, j3, x, 8));
        const __m512d dy = _mm512_sub_pd(py, _mm512_mask_i32gather_pd(zero, m, j3, x + 1, 8));
        const __m512d dz = _mm512_sub_pd(pz, _mm512_mask_i32gather_pd(zero, m, j3, x + 2, 8));
        const __m512d r2 = _mm512_add_pd(
            _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
        const __m512d inside =
            _mm512_maskz_mov_pd(_mm512_mask_cmp_pd_mask(m, r2, c2, _CMP_LT_OQ), one);
        const __m512d sr2 = _mm512_div_pd(inside, r2);
        const __m512d sr6 = _mm512_mul_pd(_mm512_mul_pd(sr2, sr2), sr2);
        const __m512d force =
            _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(c48, sr6), _mm512_sub_pd(sr6, half)), sr2);
        const __m512d gx = _mm512_mul_pd(dx, force), gy = _mm512_mul_pd(dy, force),
                      gz = _mm512_mul_pd(dz, force);
        double ax[8], ay[8], az[8];
        _mm512_storeu_pd(ax, gx);
        _mm512_storeu_pd(ay, gy);
        _mm512_storeu_pd(az, gz);
        for (int l = 0; l < lanes; l++) {
            fx += ax[l];
            fy += ay[l];
            fz += az[l];
        }
        if (both) {
            __m512d v = _mm512_mask_i32gather_pd(zero, m, j3, f, 8);
            _mm512_mask_i32scatter_pd(f, m, j3, _mm512_sub_pd(v, gx), 8);
            v = _mm512_mask_i32gather_pd(zero, m, j3, f + 1, 8);
            _mm512_mask_i32scatter_pd(f + 1, m, j3, _mm512_sub_pd(v, gy), 8);
            v = _mm512_mask_i32gather_pd(zero, m, j3, f + 2, 8);
            _mm512_mask_i32scatter_pd(f + 2, m, j3, _mm512_sub_pd(v, gz), 8);
        }
        if (energy) {
            double u[8], w[8], p[8];
            _mm512_storeu_pd(u, _mm512_mul_pd(_mm512_mul_pd(c4, sr6), _mm512_sub_pd(sr6, one)));
            _mm512_storeu_pd(w, _mm512_mul_pd(r2, force));
            _mm512_storeu_pd(p, inside);
            for (int l = 0; l < lanes; l++) {
                potential += u[l];
                virial += w[l];
                pairs += p[l];
            }
        }
    }
    add_sums(fx, fy, fz, both, energy, potential, virial, pairs, fi, sums);
}
#endif

typedef void partners_fn(const int *restrict, int, bool, const double *restrict, double *restrict,
                         double, double, double, double, bool, double[3], double[3]);

/* Every particle's forces, with the partners' loop given (inlined once per
 * loop, so that it is a direct call and the portable one inlined). */
static inline __attribute__((always_inline)) void
all_forces(const struct neighbor *nb, const double *restrict x, double *restrict f, double cut2,
           bool energy, double sums[3], partners_fn *pairs_of)
{
    for (int i = nb->i_lo; i < nb->i_hi; i++) {
        const int row = i - nb->i_lo;
        const int *js = nb->list + nb->start[row];
        const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
        double fi[3] = {0.0, 0.0, 0.0};
        pairs_of(js, nb->own[row], true, x, f, xi, yi, zi, cut2, energy, fi, sums);
        pairs_of(js + nb->own[row], nb->ghosts[row], false, x, f, xi, yi, zi, cut2, energy, fi,
                 sums);
        f[3 * i] += fi[0];
        f[3 * i + 1] += fi[1];
        f[3 * i + 2] += fi[2];
    }
}

/* The portable loop, built for AVX-512, AVX2 and any x86-64
 * (src/vectorize.h); the energy flag a constant in each copy. */
SB_WIDE_VECTORS static void forces_portable(const struct neighbor *nb, const double *restrict x,
                                            double *restrict f, double cut2, bool energy,
                                            double sums[3])
{
    if (energy)
        all_forces(nb, x, f, cut2, true, sums, partners);
    else
        all_forces(nb, x, f, cut2, false, sums, partners);
}

void lj_forces(const struct neighbor *nb, const double *restrict x, int nown, double *restrict f,
               double cutoff, bool energy, struct md_energy *e)
{
    (void)nown;
    const double cut2 = cutoff * cutoff;
    double sums[3] = {0.0, 0.0, 0.0};
#ifdef SB_X86_AVX512
    /* (An AVX2 version, four pairs at a time, was no faster than the
       portable loop on an AMD EPYC without AVX-512: forces of 32 000 atoms
       over 100 steps on 1 rank, best of 8 runs 0.755 against 0.791 s,
       medians 1.02 and 1.00; with AVX2's gathers a median of 1.66 s.) */
    if (sb_isa_upto(lj_forces_isa) == SB_ISA_AVX512 && wide_pays())
        all_forces(nb, x, f, cut2, energy, sums, partners_avx512);
    else
#endif
        forces_portable(nb, x, f, cut2, energy, sums);
    if (energy) {
        e->potential += sums[0];
        e->virial += sums[1];
        e->pairs += sums[2];
    }
}
