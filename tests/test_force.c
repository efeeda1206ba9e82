/* Lennard-Jones forces (src/md/force.c): for random particles and ghosts
 * around a box, the AVX-512 loop and the portable one give the same bits
 * (forces, potential, virial, pairs; with and without energies; skipped on
 * a processor without AVX-512), and each agrees with a brute-force sum over
 * every pair within the cut-off to 1e-9 of each component's scale; a force
 * off by 1e-6 is caught by that comparison. */
#include "cmocka_prelude.h"
#include "../src/md/force.h"
#include "md_particles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NOWN = 700, NGHOST = 500 };
static const double EDGE[3] = {6.1, 5.3, 5.7}, CUT = 1.6, REACH = 1.9;

static double *particles(unsigned seed)
{
    return random_particles(NOWN, NGHOST, EDGE, REACH, seed);
}

/* The box's forces from every pair within the cut-off, in long double, and
 * for each component the sum of its pairs' magnitudes (its scale: random
 * particles come very close, and one huge force must not hide the rest). */
static long double *reference(const double *x, long double **scale)
{
    long double *f = calloc(3 * NOWN, sizeof *f);
    *scale = calloc(3 * NOWN, sizeof **scale);
    for (int i = 0; i < NOWN; i++)
        for (int j = 0; j < NOWN + NGHOST; j++) {
            if (j == i) continue;
            long double d[3], r2 = 0;
            for (int a = 0; a < 3; a++) {
                d[a] = (long double)x[3 * i + a] - x[3 * j + a];
                r2 += d[a] * d[a];
            }
            if (r2 >= (long double)CUT * CUT) continue;
            long double sr6 = 1 / (r2 * r2 * r2);
            for (int a = 0; a < 3; a++) {
                long double term = 48 * sr6 * (sr6 - 0.5L) / r2 * d[a];
                f[3 * i + a] += term;
                (*scale)[3 * i + a] += fabsl(term);
            }
        }
    return f;
}

/* How many components differ from the reference by more than 1e-9 of
 * their scale. */
static int wrong(const double *f, const long double *ref, const long double *scale)
{
    int n = 0;
    for (int k = 0; k < 3 * NOWN; k++)
        n += fabsl(f[k] - ref[k]) > 1e-9L * scale[k];
    return n;
}

static void forces(const struct neighbor *nb, const double *x, enum sb_isa isa, bool energy,
                   double *f, struct md_energy *e)
{
    memset(f, 0, 3 * NOWN * sizeof *f);
    memset(e, 0, sizeof *e);
    lj_forces_isa = isa;
    lj_forces_wide_on_amd = true; /* the loop asked for, on every processor */
    lj_forces(nb, x, NOWN, f, CUT, energy, e);
    lj_forces_isa = SB_ISA_AVX512;
    lj_forces_wide_on_amd = false;
}

/* AVX-512 (where this processor has it) against the portable loop, bit
 * for bit; lists of every length modulo 8, so that every short last group
 * of eight is taken. */
static void test_wide_and_portable_alike(void **state)
{
    (void)state;
    if (sb_isa() != SB_ISA_AVX512) skip();
    double *x = particles(5), *a = malloc(3 * NOWN * sizeof *a), *b = malloc(3 * NOWN * sizeof *b);
    struct neighbor nb = {0};
    neighbor_build(&nb, x, NOWN, NGHOST, 0, NOWN, EDGE, REACH);
    int tails = 0;
    for (int i = 0; i < NOWN; i++)
        tails |= 1 << (nb.own[i] % 8) | 1 << (nb.ghosts[i] % 8);
    assert_int_equal(tails, 0xff);
    struct md_energy ea, eb;
    for (int energy = 0; energy <= 1; energy++) {
        forces(&nb, x, SB_ISA_AVX512, energy, a, &ea);
        forces(&nb, x, SB_ISA_PORTABLE, energy, b, &eb);
        assert_memory_equal(a, b, 3 * NOWN * sizeof *a);
        assert_memory_equal(&ea, &eb, sizeof ea);
    }
    assert_true(ea.pairs > NOWN); /* the test has pairs to compute */
    neighbor_free(&nb);
    free(x);
    free(a);
    free(b);
}

/* Each loop against the brute-force sum; a typical force off by 1e-6 is
 * caught. */
static void test_forces_right(void **state)
{
    (void)state;
    double *x = particles(9), *f = malloc(3 * NOWN * sizeof *f);
    struct neighbor nb = {0};
    neighbor_build(&nb, x, NOWN, NGHOST, 0, NOWN, EDGE, REACH);
    long double *scale, *ref = reference(x, &scale);
    struct md_energy e;
    const enum sb_isa loops[] = {SB_ISA_PORTABLE, SB_ISA_AVX512};
    for (int l = 0; l < 2 && loops[l] <= sb_isa(); l++) {
        forces(&nb, x, loops[l], false, f, &e);
        assert_int_equal(wrong(f, ref, scale), 0);
    }
    f[3 * (NOWN / 2)] += 1e-6 * (double)scale[3 * (NOWN / 2)];
    assert_int_equal(wrong(f, ref, scale), 1);
    free(ref);
    free(scale);
    neighbor_free(&nb);
    free(x);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wide_and_portable_alike),
        cmocka_unit_test(test_forces_right),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
