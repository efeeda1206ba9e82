#include "neighbor.h"
#include "../error.h"
#include "../vectorize.h"

#include <math.h>
#include <stdbool.h>
#ifdef SB_X86_AVX512
#include <immintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

/* Bins of a third of the reach.  The stencil is kept as rows: for each
 * offset (sx, sy) the range of z offsets whose bins have points within
 * reach.  Bins are numbered z fastest, so a row's bins hold one contiguous
 * run of the binned particles: one candidate range per row, whatever the
 * bins' occupancy. */
#define BINS_PER_REACH 2

static void setup_bins(struct neighbor *nb, const double edge[3], double reach)
{
    int range[3];
    for (int d = 0; d < 3; d++) {
        double extent = edge[d] + 2 * reach;
        nb->lo[d] = -reach;
        nb->nbins[d] = (int)floor(extent / (reach / BINS_PER_REACH));
        if (nb->nbins[d] < 1) nb->nbins[d] = 1;
        nb->binsize[d] = extent / nb->nbins[d];
        range[d] = (int)ceil(reach / nb->binsize[d]);
    }
    int most = (2 * range[0] + 1) * (2 * range[1] + 1);
    nb->stencil = sb_realloc(nb->stencil, (size_t)most * sizeof *nb->stencil, "bin stencil");
    nb->nstencil = 0;
    for (int i = -range[0]; i <= range[0]; i++)
        for (int j = -range[1]; j <= range[1]; j++) {
            int zmax = -1;
            for (int k = 0; k <= range[2]; k++) {
                const int s[3] = {i, j, k};
                double gap2 = 0.0;
                for (int d = 0; d < 3; d++) {
                    double gap = (abs(s[d]) - 1) * nb->binsize[d];
                    if (gap > 0) gap2 += gap * gap;
                }
                if (gap2 < reach * reach) zmax = k;
            }
            if (zmax >= 0) {
                nb->stencil[nb->nstencil][0] = i;
                nb->stencil[nb->nstencil][1] = j;
                nb->stencil[nb->nstencil][2] = zmax;
                nb->nstencil++;
            }
        }
}

/* The bin of a position, or -1 outside the binned region. */
static inline int bin_of(const struct neighbor *nb, const double *p)
{
    int b[3];
    for (int d = 0; d < 3; d++) {
        double c = (p[d] - nb->lo[d]) / nb->binsize[d];
        if (!(c >= 0.0) || c >= nb->nbins[d]) return -1;
        b[d] = (int)c;
    }
    return (b[0] * nb->nbins[1] + b[1]) * nb->nbins[2] + b[2];
}

/* Counting sort of the particles into bins, in index order. */
static void fill_bins(struct neighbor *nb, const double *x, int total)
{
    int nbins = nb->nbins[0] * nb->nbins[1] * nb->nbins[2];
    if (nbins + 1 > nb->bins_cap) {
        nb->bins_cap = nbins + 1;
        nb->bin_start = sb_realloc(nb->bin_start, (size_t)nb->bins_cap * sizeof(int), "bins");
    }
    if (total > nb->atoms_cap) {
        nb->atoms_cap = total + total / 2;
        nb->bin_atoms = sb_realloc(nb->bin_atoms, (size_t)nb->atoms_cap * sizeof(int), "bins");
    }
    memset(nb->bin_start, 0, (size_t)(nbins + 1) * sizeof(int));
    /* each particle's bin is computed twice rather than kept: the build's
       peak memory is md's */
    for (int i = 0; i < total; i++) {
        int b = bin_of(nb, x + 3 * (size_t)i);
        if (b >= 0) nb->bin_start[b + 1]++;
    }
    for (int b = 0; b < nbins; b++)
        nb->bin_start[b + 1] += nb->bin_start[b];
    int *fill = sb_malloc((size_t)nbins * sizeof *fill + 1, "bin fill");
    memcpy(fill, nb->bin_start, (size_t)nbins * sizeof *fill);
    for (int i = 0; i < total; i++) {
        int b = bin_of(nb, x + 3 * (size_t)i);
        if (b >= 0) nb->bin_atoms[fill[b]++] = i;
    }
    free(fill);
}

static void reserve(int **array, size_t *cap, size_t n)
{
    if (n <= *cap && *array) return;
    *cap = n + n / 2 + 1024;
    *array = sb_realloc(*array, *cap * sizeof **array, "neighbour list");
}

enum sb_isa neighbor_scan_isa = SB_ISA_AVX512;

/* The bin-ordered positions, one axis each. */
static inline const double *axis(const struct neighbor *nb, int d)
{
    return nb->sorted + (size_t)d * nb->sorted_cap;
}

/* Particle i's candidates [c0, c1) (positions xi): its own partners j > i
 * appended to mine, its ghosts to theirs, each in candidate order.
 * Without branches: a candidate is written in any case and kept by
 * advancing the count, which costs less than a mispredicted jump. */
static inline void scan(const struct neighbor *nb, int c0, int c1, int i, int nown,
                        const double xi[3], double reach2, int *restrict mine, size_t *own,
                        int *restrict theirs, size_t *ghosts)
{
    const double *sx = axis(nb, 0), *sy = axis(nb, 1), *sz = axis(nb, 2);
    size_t o = *own, g = *ghosts;
    for (int c = c0; c < c1; c++) {
        int j = nb->bin_atoms[c];
        double dx = xi[0] - sx[c], dy = xi[1] - sy[c], dz = xi[2] - sz[c];
        int near = dx * dx + dy * dy + dz * dz < reach2;
        int is_own = j < nown;
        mine[o] = j;
        o += near & is_own & (j > i);
        theirs[g] = j;
        g += near & !is_own;
    }
    *own = o;
    *ghosts = g;
}

#ifdef SB_X86_AVX512
/* The same scan eight candidates at a time: the same products and sums in
 * the same order (no FMA), the partners packed in order by a compress in a
 * register and all eight stored, the count advancing by the kept ones (the
 * lists have 8 spare).  A compressing store to memory does the same in one
 * instruction, but AMD's Zen 4 and 5 run it as a slow microcoded sequence. */
__attribute__((target("avx512f,avx512vl"))) static void
scan_avx512(const struct neighbor *nb, int c0, int c1, int i, int nown, const double xi[3],
            double reach2, int *restrict mine, size_t *own, int *restrict theirs, size_t *ghosts)
{
    const double *sx = axis(nb, 0), *sy = axis(nb, 1), *sz = axis(nb, 2);
    const __m512d px = _mm512_set1_pd(xi[0]), py = _mm512_set1_pd(xi[1]),
                  pz = _mm512_set1_pd(xi[2]), r2 = _mm512_set1_pd(reach2);
    const __m256i me = _mm256_set1_epi32(i), owned = _mm256_set1_epi32(nown);
    size_t o = *own, g = *ghosts;
    for (int c = c0; c < c1; c += 8) {
        __mmask8 k = c1 - c >= 8 ? 0xff : (__mmask8)((1u << (c1 - c)) - 1);
        __m512d dx = _mm512_sub_pd(px, _mm512_maskz_loadu_pd(k, sx + c));
        __m512d dy = _mm512_sub_pd(py, _mm512_maskz_loadu_pd(k, sy + c));
        __m512d dz = _mm512_sub_pd(pz, _mm512_maskz_loadu_pd(k, sz + c));
        __m512d d2 = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)),
                                   _mm512_mul_pd(dz, dz));
        __mmask8 near = _mm512_mask_cmp_pd_mask(k, d2, r2, _CMP_LT_OQ);
        __m256i j = _mm256_maskz_loadu_epi32(k, nb->bin_atoms + c);
        __mmask8 is_own = _mm256_cmplt_epi32_mask(j, owned);
        __mmask8 keep = near & is_own & _mm256_cmpgt_epi32_mask(j, me);
        __mmask8 ghost = near & (__mmask8)~is_own;
        _mm256_storeu_si256((__m256i *)(mine + o), _mm256_maskz_compress_epi32(keep, j));
        o += (size_t)__builtin_popcount(keep);
        _mm256_storeu_si256((__m256i *)(theirs + g), _mm256_maskz_compress_epi32(ghost, j));
        g += (size_t)__builtin_popcount(ghost);
    }
    *own = o;
    *ghosts = g;
}
#endif

#ifdef SB_X86_AVX512
/* For each set of kept lanes (a 4-bit mask), the lanes in order, first:
 * AVX2 has no compressing store, so a shuffle packs them and all four are
 * stored, the count advancing by the kept ones (the lists have 8 spare). */
static const int32_t packed_lanes[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0},
    {1, 2, 0, 0}, {0, 1, 2, 0}, {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
    {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3},
};

/* The same scan four candidates at a time in AVX2 (no AVX-512): the same
 * products and sums in the same order (no FMA), the kept candidates packed
 * in order. */
__attribute__((target("avx2"))) static void
scan_avx2(const struct neighbor *nb, int c0, int c1, int i, int nown, const double xi[3],
          double reach2, int *restrict mine, size_t *own, int *restrict theirs, size_t *ghosts)
{
    const double *sx = axis(nb, 0), *sy = axis(nb, 1), *sz = axis(nb, 2);
    const __m256d px = _mm256_set1_pd(xi[0]), py = _mm256_set1_pd(xi[1]),
                  pz = _mm256_set1_pd(xi[2]), r2 = _mm256_set1_pd(reach2);
    const __m128i me = _mm_set1_epi32(i), owned = _mm_set1_epi32(nown),
                  lane = _mm_set_epi32(3, 2, 1, 0);
    size_t o = *own, g = *ghosts;
    for (int c = c0; c < c1; c += 4) {
        const __m128i valid = _mm_cmpgt_epi32(_mm_set1_epi32(c1 - c), lane);
        const __m256i wide = _mm256_cvtepi32_epi64(valid);
        __m256d dx = _mm256_sub_pd(px, _mm256_maskload_pd(sx + c, wide));
        __m256d dy = _mm256_sub_pd(py, _mm256_maskload_pd(sy + c, wide));
        __m256d dz = _mm256_sub_pd(pz, _mm256_maskload_pd(sz + c, wide));
        __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)),
                                   _mm256_mul_pd(dz, dz));
        const __m128i j = _mm_maskload_epi32(nb->bin_atoms + c, valid);
        int near = _mm256_movemask_pd(_mm256_cmp_pd(d2, r2, _CMP_LT_OQ)) &
                   _mm_movemask_ps(_mm_castsi128_ps(valid));
        int is_own = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(owned, j)));
        int above = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(j, me)));
        int keep = near & is_own & above, ghost = near & ~is_own;
        __m128 jf = _mm_castsi128_ps(j);
        _mm_storeu_ps((float *)(mine + o),
                      _mm_permutevar_ps(jf, _mm_loadu_si128((const __m128i *)packed_lanes[keep])));
        o += (size_t)__builtin_popcount(keep);
        _mm_storeu_ps((float *)(theirs + g),
                      _mm_permutevar_ps(jf, _mm_loadu_si128((const __m128i *)packed_lanes[ghost])));
        g += (size_t)__builtin_popcount(ghost);
    }
    *own = o;
    *ghosts = g;
}
#endif

/* The highest particle index in bins b0..b1: each bin's last, as bins
 * fill in index order (fill_bins); -1 if they are empty.  A candidate
 * range whose highest index is at most i holds no own partner j > i and no
 * ghost (their indices are nown and above): particle i skips it, and its
 * list is the same.  (A third of the candidates of md's LJ benchmark,
 * 32 000 atoms on 1 rank, are skipped so.) */
static int highest_index(const struct neighbor *nb, int b0, int b1)
{
    int top = -1;
    for (int b = b0; b <= b1; b++)
        if (nb->bin_start[b + 1] > nb->bin_start[b] &&
            nb->bin_atoms[nb->bin_start[b + 1] - 1] > top)
            top = nb->bin_atoms[nb->bin_start[b + 1] - 1];
    return top;
}

typedef void scan_fn(const struct neighbor *, int, int, int, int, const double *, double, int *,
                     size_t *, int *, size_t *);

/* The lists of the particles of one home bin: the candidate ranges (one
 * per stencil row) are found once, and candidates read in bin order.
 * Inlined into every_list once per scan, so that the scan is a direct call
 * (and the portable one inlined). */
static inline __attribute__((always_inline)) void
lists_of_bin(struct neighbor *nb, scan_fn *scan_range, const int home[3], int nown, double reach2)
{
    int hb = (home[0] * nb->nbins[1] + home[1]) * nb->nbins[2] + home[2];
    bool owners = false; /* most halo bins hold ghosts only: nothing to list */
    for (int a = nb->bin_start[hb]; a < nb->bin_start[hb + 1] && !owners; a++)
        owners = nb->bin_atoms[a] >= nb->i_lo && nb->bin_atoms[a] < nb->i_hi;
    if (!owners) return;
    int nranges = 0;
    size_t candidates = 0;
    for (int s = 0; s < nb->nstencil; s++) {
        int bx = home[0] + nb->stencil[s][0], by = home[1] + nb->stencil[s][1];
        if (bx < 0 || bx >= nb->nbins[0] || by < 0 || by >= nb->nbins[1]) continue;
        int zlo = home[2] - nb->stencil[s][2], zhi = home[2] + nb->stencil[s][2];
        if (zlo < 0) zlo = 0;
        if (zhi >= nb->nbins[2]) zhi = nb->nbins[2] - 1;
        int row = (bx * nb->nbins[1] + by) * nb->nbins[2];
        int first = nb->bin_start[row + zlo], last = nb->bin_start[row + zhi + 1];
        if (first == last) continue;
        nb->near[3 * nranges] = first;
        nb->near[3 * nranges + 1] = last;
        nb->near[3 * nranges + 2] = highest_index(nb, row + zlo, row + zhi);
        nranges++;
        candidates += (size_t)(last - first);
    }
    for (int a = nb->bin_start[hb]; a < nb->bin_start[hb + 1]; a++) {
        int i = nb->bin_atoms[a];
        if (i >= nown || i < nb->i_lo || i >= nb->i_hi)
            continue; /* ghosts and other members' particles have no list here */
        const double xi[3] = {axis(nb, 0)[a], axis(nb, 1)[a], axis(nb, 2)[a]};
        int row = i - nb->i_lo;
        /* room for every candidate, so the scan can write blindly (8 more
           for the wide scans' stores of eight and four) */
        reserve(&nb->list, &nb->list_cap, nb->list_len + 2 * candidates + 8);
        reserve(&nb->scratch, &nb->scratch_cap, candidates + 8);
        int *restrict mine = nb->list + nb->list_len, *restrict theirs = nb->scratch;
        size_t own = 0, ghosts = 0;
        for (int r = 0; r < nranges; r++)
            if (nb->near[3 * r + 2] > i) /* else no partner j > i, and no ghost (j >= nown) */
                scan_range(nb, nb->near[3 * r], nb->near[3 * r + 1], i, nown, xi, reach2, mine,
                           &own, theirs, &ghosts);
        memcpy(mine + own, theirs, ghosts * sizeof *theirs);
        if (own > NEIGHBOR_MAX_PARTNERS || ghosts > NEIGHBOR_MAX_PARTNERS) {
            nb->overflow = true;
            own = own > NEIGHBOR_MAX_PARTNERS ? NEIGHBOR_MAX_PARTNERS : own;
            ghosts = ghosts > NEIGHBOR_MAX_PARTNERS ? NEIGHBOR_MAX_PARTNERS : ghosts;
        }
        nb->start[row] = (int)nb->list_len;
        nb->list_len += own + ghosts;
        nb->own[row] = (uint16_t)own;
        nb->ghosts[row] = (uint16_t)ghosts;
    }
}

/* The lists of every home bin, with the scan given. */
static inline __attribute__((always_inline)) void
every_list(struct neighbor *nb, scan_fn *scan_range, int nown, double reach2)
{
    int home[3];
    for (home[0] = 0; home[0] < nb->nbins[0]; home[0]++)
        for (home[1] = 0; home[1] < nb->nbins[1]; home[1]++)
            for (home[2] = 0; home[2] < nb->nbins[2]; home[2]++)
                lists_of_bin(nb, scan_range, home, nown, reach2);
}

bool neighbor_build(struct neighbor *nb, const double *x, int nown, int nghost, int i_lo, int i_hi,
                    const double edge[3], double reach)
{
    setup_bins(nb, edge, reach);
    int total = nown + nghost;
    fill_bins(nb, x, total);
    int nbins = nb->nbins[0] * nb->nbins[1] * nb->nbins[2], binned = nb->bin_start[nbins];
    if ((size_t)binned > nb->sorted_cap || !nb->sorted) { /* rewritten below: no copy */
        free(nb->sorted);
        nb->sorted_cap = (size_t)binned + (size_t)binned / 2 + 1;
        nb->sorted = sb_malloc(3 * nb->sorted_cap * sizeof *nb->sorted, "binned positions");
    }
    for (int d = 0; d < 3; d++) {
        double *to = nb->sorted + (size_t)d * nb->sorted_cap;
        for (int a = 0; a < binned; a++)
            to[a] = x[3 * (size_t)nb->bin_atoms[a] + d];
    }
    nb->near = sb_realloc(nb->near, 3 * (size_t)nb->nstencil * sizeof *nb->near, "near bins");
    int rows = i_hi - i_lo;
    if (rows > nb->rows_cap) {
        nb->rows_cap = rows + rows / 2 + 1;
        nb->start = sb_realloc(nb->start, (size_t)nb->rows_cap * sizeof *nb->start, "list starts");
        nb->own = sb_realloc(nb->own, (size_t)nb->rows_cap * sizeof *nb->own, "list counts");
        nb->ghosts =
            sb_realloc(nb->ghosts, (size_t)nb->rows_cap * sizeof *nb->ghosts, "list counts");
    }
    nb->i_lo = i_lo;
    nb->i_hi = i_hi;
    nb->list_len = 0;
    nb->overflow = false;
    for (int r = 0; r < rows; r++) /* a particle outside every bin has no partners */
        nb->start[r] = nb->own[r] = nb->ghosts[r] = 0;
#ifdef SB_X86_AVX512
    enum sb_isa isa = sb_isa_upto(neighbor_scan_isa);
    if (isa == SB_ISA_AVX512) {
        every_list(nb, scan_avx512, nown, reach * reach);
        return !nb->overflow;
    }
    if (isa == SB_ISA_AVX2) {
        every_list(nb, scan_avx2, nown, reach * reach);
        return !nb->overflow;
    }
#endif
    every_list(nb, scan, nown, reach * reach);
    return !nb->overflow;
}

static int binned_count(const struct neighbor *nb)
{
    return nb->bin_start ? nb->bin_start[nb->nbins[0] * nb->nbins[1] * nb->nbins[2]] : 0;
}

bool neighbor_moved_far(const struct neighbor *nb, const double *x, int nown, double limit2)
{
    int seen = 0, binned = binned_count(nb);
    for (int a = 0; a < binned; a++) {
        int i = nb->bin_atoms[a];
        if (i >= nown) continue;
        seen++;
        double d2 = 0.0;
        for (int d = 0; d < 3; d++) {
            double dd = x[3 * (size_t)i + d] - axis(nb, d)[a];
            d2 += dd * dd;
        }
        if (d2 > limit2) return true;
    }
    return seen != nown;
}

bool neighbor_positions_at_build(const struct neighbor *nb, int nown, double *x0)
{
    int seen = 0, binned = binned_count(nb);
    for (int a = 0; a < binned; a++) {
        int i = nb->bin_atoms[a];
        if (i >= nown) continue;
        seen++;
        for (int d = 0; d < 3; d++)
            x0[3 * (size_t)i + d] = axis(nb, d)[a];
    }
    return seen == nown;
}

void neighbor_free(struct neighbor *nb)
{
    free(nb->bin_start);
    free(nb->bin_atoms);
    free(nb->stencil);
    free(nb->start);
    free(nb->own);
    free(nb->ghosts);
    free(nb->list);
    free(nb->scratch);
    free(nb->sorted);
    free(nb->near);
    memset(nb, 0, sizeof *nb);
}
