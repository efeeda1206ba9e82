/* Neighbour lists (src/md/neighbor.c): for random particles and ghosts
 * around a box, every list holds exactly the partners within reach that a
 * brute-force search finds (own partners j > i, then ghosts), in the same
 * lists whether the candidate scan runs in AVX-512, in AVX2 or in the
 * portable loop (every one this processor runs), with the own particles in
 * random or in md's cell order, for whole boxes and a team member's slice;
 * and the comparison catches
 * a list that lost one partner; a particle with more ghosts within reach
 * than a list counts is refused, whichever scan runs. */
#include "cmocka_prelude.h"
#include "../src/md/neighbor.h"
#include "md_particles.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NOWN = 900, NGHOST = 700 };
static const double EDGE[3] = {7.1, 6.3, 5.7}, REACH = 1.9;

/* Own particles in the box, ghosts within reach around it (some beyond). */
static double *particles(unsigned seed)
{
    return random_particles(NOWN, NGHOST, EDGE, 1.2 * REACH, seed);
}

static bool within(const double *x, int i, int j)
{
    double dx = x[3 * i] - x[3 * j], dy = x[3 * i + 1] - x[3 * j + 1],
           dz = x[3 * i + 2] - x[3 * j + 2];
    return dx * dx + dy * dy + dz * dz < REACH * REACH;
}

static int compare_ints(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* How many lists of particles [lo, hi) differ from the brute-force search. */
static int wrong_slice(const struct neighbor *nb, const double *x, int lo, int hi)
{
    int wrong = 0, *want = malloc((NOWN + NGHOST) * sizeof *want);
    for (int i = lo; i < hi; i++) {
        const int r = i - lo; /* the list's row */
        int n = 0, own = 0;
        for (int j = i + 1; j < NOWN; j++)
            if (within(x, i, j)) want[n++] = j, own++;
        for (int j = NOWN; j < NOWN + NGHOST; j++)
            if (within(x, i, j)) want[n++] = j;
        int got[NOWN + NGHOST], len = nb->own[r] + nb->ghosts[r];
        memcpy(got, nb->list + nb->start[r], (size_t)len * sizeof *got);
        qsort(got, (size_t)nb->own[r], sizeof *got, compare_ints);
        qsort(got + nb->own[r], (size_t)nb->ghosts[r], sizeof *got, compare_ints);
        wrong += len != n || nb->own[r] != own || memcmp(got, want, (size_t)n * sizeof *got);
    }
    free(want);
    return wrong;
}

static int wrong_lists(const struct neighbor *nb, const double *x)
{
    return wrong_slice(nb, x, 0, NOWN);
}

/* Own particles in the order of cells of about half the reach, as md
 * sorts them: most candidate ranges then hold only partners j < i, which
 * the build skips (neighbor.c, highest_index). */
static int by_cell(const void *a, const void *b)
{
    const double *p = a, *q = b;
    for (int d = 0; d < 3; d++) {
        int cp = (int)floor(p[d] / (REACH / 2)), cq = (int)floor(q[d] / (REACH / 2));
        if (cp != cq) return cp < cq ? -1 : 1;
    }
    return 0;
}

/* With the own particles in cell order, whole lists and a team member's
 * slice (rows [lo, hi), as teams split a box's particles) hold exactly the
 * brute-force partners, and every scan builds the same slice. */
static void test_sorted_particles_and_slices(void **state)
{
    (void)state;
    double *x = particles(5);
    qsort(x, NOWN, 3 * sizeof *x, by_cell);
    const int lo = NOWN / 3, hi = 2 * NOWN / 3;
    struct neighbor whole = {0}, ref = {0};
    neighbor_scan_isa = SB_ISA_PORTABLE;
    neighbor_build(&whole, x, NOWN, NGHOST, 0, NOWN, EDGE, REACH);
    neighbor_build(&ref, x, NOWN, NGHOST, lo, hi, EDGE, REACH);
    assert_int_equal(wrong_lists(&whole, x), 0);
    assert_int_equal(wrong_slice(&ref, x, lo, hi), 0);
    for (enum sb_isa isa = SB_ISA_AVX2; isa <= sb_isa(); isa++) {
        struct neighbor slice = {0};
        neighbor_scan_isa = isa;
        neighbor_build(&slice, x, NOWN, NGHOST, lo, hi, EDGE, REACH);
        assert_int_equal(slice.list_len, ref.list_len);
        assert_memory_equal(slice.list, ref.list, ref.list_len * sizeof *ref.list);
        neighbor_free(&slice);
    }
    neighbor_scan_isa = SB_ISA_AVX512;
    neighbor_free(&whole);
    neighbor_free(&ref);
    free(x);
}

static void test_lists_right_and_scans_alike(void **state)
{
    (void)state;
    double *x = particles(7);
    struct neighbor narrow = {0};
    neighbor_scan_isa = SB_ISA_PORTABLE;
    neighbor_build(&narrow, x, NOWN, NGHOST, 0, NOWN, EDGE, REACH);
    neighbor_scan_isa = SB_ISA_AVX512;
    assert_int_equal(wrong_lists(&narrow, x), 0);
    if (sb_isa() == SB_ISA_PORTABLE) printf("# no AVX2 here: only the portable scan ran\n");
    for (enum sb_isa isa = SB_ISA_AVX2; isa <= sb_isa(); isa++) { /* AVX2, AVX-512 */
        struct neighbor wide = {0};
        neighbor_scan_isa = isa;
        neighbor_build(&wide, x, NOWN, NGHOST, 0, NOWN, EDGE, REACH);
        neighbor_scan_isa = SB_ISA_AVX512;
        assert_int_equal(wrong_lists(&wide, x), 0);
        assert_int_equal(wide.list_len, narrow.list_len);
        assert_memory_equal(wide.list, narrow.list, wide.list_len * sizeof *wide.list);
        assert_memory_equal(wide.start, narrow.start, NOWN * sizeof *wide.start);
        assert_memory_equal(wide.own, narrow.own, NOWN * sizeof *wide.own);
        assert_memory_equal(wide.ghosts, narrow.ghosts, NOWN * sizeof *wide.ghosts);
        neighbor_free(&wide);
    }
    neighbor_free(&narrow);
    free(x);
}

/* The comparison can fail: a list that lost a partner is counted. */
static void test_lost_partner_caught(void **state)
{
    (void)state;
    double *x = particles(11);
    struct neighbor nb = {0};
    neighbor_build(&nb, x, NOWN, NGHOST, 0, NOWN, EDGE, REACH);
    int i = 0;
    while (nb.own[i] + nb.ghosts[i] == 0)
        i++;
    if (nb.ghosts[i] > 0)
        nb.ghosts[i]--;
    else
        nb.own[i]--;
    assert_int_equal(wrong_lists(&nb, x), 1);
    neighbor_free(&nb);
    free(x);
}

/* A list counts at most NEIGHBOR_MAX_PARTNERS ghosts: one particle with
 * that many ghosts within reach builds, one more is refused (overflow),
 * whichever scan runs. */
static void test_partner_count_limit(void **state)
{
    (void)state;
    for (enum sb_isa isa = SB_ISA_PORTABLE; isa <= sb_isa(); isa++) {
        neighbor_scan_isa = isa;
        for (int extra = 0; extra < 2; extra++) {
            int nghost = NEIGHBOR_MAX_PARTNERS + extra;
            double *x = malloc(3 * (1 + (size_t)nghost) * sizeof *x);
            x[0] = 0.3; /* near the box's lower x face */
            x[1] = EDGE[1] / 2;
            x[2] = EDGE[2] / 2;
            for (int g = 1; g <= nghost; g++) { /* just outside that face, within reach */
                x[3 * g] = -0.2 - 0.5 * (g % 1000) / 1000.0;
                x[3 * g + 1] = EDGE[1] / 2 + 0.4 * (g / 1000) / 70.0;
                x[3 * g + 2] = EDGE[2] / 2;
            }
            struct neighbor nb = {0};
            bool ok = neighbor_build(&nb, x, 1, nghost, 0, 1, EDGE, REACH);
            assert_int_equal(ok, !extra);
            assert_int_equal(nb.overflow, extra);
            if (!extra) assert_int_equal(nb.ghosts[0], NEIGHBOR_MAX_PARTNERS);
            neighbor_free(&nb);
            free(x);
        }
    }
    neighbor_scan_isa = SB_ISA_AVX512;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists_right_and_scans_alike),
        cmocka_unit_test(test_sorted_particles_and_slices),
        cmocka_unit_test(test_lost_partner_caught),
        cmocka_unit_test(test_partner_count_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
