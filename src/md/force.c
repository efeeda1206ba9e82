#include "force.h"
#include "../vectorize.h"

/* One particle's partners: own ones (the pair acts on both) or ghosts (on
 * the particle only, half the energy).  The cut-off is a mask rather than a
 * branch: about a third of the listed pairs lie between cut-off and skin,
 * and a mispredicted jump costs more than the arithmetic it would skip. */
static inline void partners(const int *restrict js, int n, bool both, const double *restrict x,
                            double *restrict f, double xi, double yi, double zi, double cut2,
                            bool energy, double fi[3], double sums[3])
{
    double fx = 0.0, fy = 0.0, fz = 0.0, potential = 0.0, virial = 0.0, pairs = 0.0;
    for (int k = 0; k < n; k++) {
        const int j = js[k];
        const double dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
        const double r2 = dx * dx + dy * dy + dz * dz;
        const double inside = r2 < cut2 ? 1.0 : 0.0;
        const double sr2 = inside / r2;
        const double sr6 = sr2 * sr2 * sr2;
        const double force = 48.0 * sr6 * (sr6 - 0.5) * sr2;
        fx += dx * force;
        fy += dy * force;
        fz += dz * force;
        if (both) {
            f[3 * j] -= dx * force;
            f[3 * j + 1] -= dy * force;
            f[3 * j + 2] -= dz * force;
        }
        if (energy) {
            potential += 4.0 * sr6 * (sr6 - 1.0);
            virial += r2 * force;
            pairs += inside;
        }
    }
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

/* Built for AVX-512, AVX2 and any x86-64 (src/vectorize.h): the same bits. */
SB_WIDE_VECTORS void lj_forces(const struct neighbor *nb, const double *restrict x, int nown,
                               double *restrict f, double cutoff, bool energy, struct md_energy *e)
{
    (void)nown;
    const double cut2 = cutoff * cutoff;
    double sums[3] = {0.0, 0.0, 0.0};
    for (int i = nb->i_lo; i < nb->i_hi; i++) {
        const int row = i - nb->i_lo;
        const int *js = nb->list + nb->start[row];
        const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
        double fi[3] = {0.0, 0.0, 0.0};
        if (energy) {
            partners(js, nb->own[row], true, x, f, xi, yi, zi, cut2, true, fi, sums);
            partners(js + nb->own[row], nb->ghosts[row], false, x, f, xi, yi, zi, cut2, true, fi,
                     sums);
        } else {
            partners(js, nb->own[row], true, x, f, xi, yi, zi, cut2, false, fi, sums);
            partners(js + nb->own[row], nb->ghosts[row], false, x, f, xi, yi, zi, cut2, false, fi,
                     sums);
        }
        f[3 * i] += fi[0];
        f[3 * i + 1] += fi[1];
        f[3 * i + 2] += fi[2];
    }
    if (energy) {
        e->potential += sums[0];
        e->virial += sums[1];
        e->pairs += sums[2];
    }
}
