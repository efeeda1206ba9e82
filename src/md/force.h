/* Lennard-Jones forces from the neighbour lists (DESIGN.md "MD proxy").
 *
 * F = 48 (r^-14 - r^-8 / 2) r within the cut-off, summed for each particle
 * in list order, so that the same slots always give the same bits.  A pair
 * inside the box is computed once and acts on both particles; a pair with a
 * ghost acts on the box's particle only (the ghost's own box computes the
 * other half), and counts half its energy and virial here. */
#ifndef SB_MD_FORCE_H
#define SB_MD_FORCE_H

#include "../vectorize.h"
#include "neighbor.h"

#include <stdbool.h>

struct md_energy {
    double potential; /* sum of pair energies 4 (r^-12 - r^-6) */
    double virial;    /* sum of r . F over pairs */
    double pairs;     /* pairs within the cut-off (a ghost pair counts half) */
};

/* Forces of the pairs listed in nb (particles nb->i_lo..i_hi) added to
 * f[0..3 nown); with `energy`, potential and virial added to *e. */
void lj_forces(const struct neighbor *nb, const double *x, int nown, double *f, double cutoff,
               bool energy, struct md_energy *e);

/* The widest pairs' loop allowed: AVX-512 where the processor has it
 * (default SB_ISA_AVX512), else the portable one (built for AVX2 too:
 * src/vectorize.h); both give the same bits (tests/test_force.c).  On AMD
 * processors the portable loop runs unless lj_forces_wide_on_amd (a test's
 * switch): there it is the faster (src/md/force.c). */
extern enum sb_isa lj_forces_isa;
extern bool lj_forces_wide_on_amd;

#endif
