/* The CPU backend's hand-written lines (gpu/backend_cpu_simd.c), AVX2 and,
 * where the processor has it, AVX-512: with ordinary
 * and with non-temporal stores they leave the bits of the compiler's loops
 * (cpu_line_portable) on lines padded to cache lines and on unpadded ones,
 * from every start and of every length across a vector, and write nothing
 * outside the line; plain sweeps with stencil.stores = streaming leave the
 * field bit for bit as with cached stores, for 2D and 3D, float and double,
 * on boxes whose lines start at every alignment, are shorter than a vector,
 * and whose line count is no multiple of a group; 3D sweeps in several
 * tiles of y compute every line of the box once; and the comparisons catch
 * a single wrong point.  On a processor without AVX2 the lines are not
 * run (said on stdout), both sweeps store as usual, and the test compares
 * the cached path with itself. */
#include "cmocka_prelude.h"
#include "../gpu/backend_cpu.h"
#include "stencil_fields.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int EXT3[3] = {45, 23, 9}, EXT2[3] = {77, 29, 1};

static void setup_backend(struct stencil_backend *b, int dim, int real_bytes, int stores)
{
    struct stencil_layout l = {.dim = dim,
                               .real_bytes = real_bytes,
                               .threads = 1,
                               .stores = stores,
                               /* the streaming side's lines start a cache line
                                  at x = 3 (a lead before the field), the
                                  cached side's at x = 0 */
                               .align_x = stores == STORES_STREAMING ? 3 : 0,
                               .weights = {0.11, 0.23, 0.31, 0.43, 0.17, 0.29, 0.37}};
    memcpy(l.ext, dim == 3 ? EXT3 : EXT2, sizeof l.ext);
    struct sb_msg m;
    b->ops = &stencil_backend_cpu;
    assert_int_equal(b->ops->init(b, &l, &m), SB_OK);
}

/* Boxes inside the one-point frame: x from every start 1..17 (every
 * alignment of a 64-byte line for float and double) to widths 1..40, y
 * ranges of 1..9 lines, all z. */
static void each_box(int dim, void (*check)(int dim, int rb, const struct sbox *box))
{
    const int *ext = dim == 3 ? EXT3 : EXT2;
    for (int rb = 4; rb <= 8; rb += 4)
        for (int x0 = 1; x0 <= 17; x0 += 1)
            for (int w = 1; w <= 40 && x0 + w < ext[0]; w += 13)
                for (int ny = 1; ny <= 9 && 1 + ny < ext[1]; ny += 4) {
                    struct sbox box = {{x0, 1, dim == 3 ? 1 : 0},
                                       {x0 + w, 1 + ny, dim == 3 ? ext[2] - 1 : 1}};
                    check(dim, rb, &box);
                }
}

static void same_bits(int dim, int rb, const struct sbox *box)
{
    struct stencil_backend a, b;
    setup_backend(&a, dim, rb, STORES_CACHED);
    setup_backend(&b, dim, rb, STORES_STREAMING);
    fill(&a, 0);
    fill(&b, 0);
    double t;
    assert_int_equal(a.ops->sweep(&a, 1, box, &t), SB_OK);
    assert_int_equal(b.ops->sweep(&b, 1, box, &t), SB_OK);
    size_t off = differing(&a, &b);
    if (off != 0)
        fail_msg("%dD, %d-byte reals, box x %d..%d y %d..%d: %zu points differ", dim, rb,
                 box->lo[0], box->hi[0], box->lo[1], box->hi[1], off);
    a.ops->destroy(&a);
    b.ops->destroy(&b);
}

static void test_streaming_same_bits(void **state)
{
    (void)state;
    if (sb_isa() == SB_ISA_PORTABLE)
        printf("# no AVX2 here: streaming falls back to cached stores, compared with itself\n");
    /* every lines this processor runs: AVX2, then AVX-512 */
    for (enum sb_isa isa = sb_isa_upto(SB_ISA_AVX2); isa <= sb_isa(); isa++) {
        cpu_lines_isa = isa;
        struct stencil_backend b;
        setup_backend(&b, 2, 4, STORES_STREAMING);
        assert_int_equal(b.layout.stores,
                         isa != SB_ISA_PORTABLE ? STORES_STREAMING : STORES_CACHED);
        b.ops->destroy(&b);
        each_box(2, same_bits);
        each_box(3, same_bits);
        /* a whole sweep region, several lines of groups */
        for (int dim = 2; dim <= 3; dim++) {
            const int *ext = dim == 3 ? EXT3 : EXT2;
            struct sbox box = {{1, 1, dim == 3 ? 1 : 0},
                               {ext[0] - 1, ext[1] - 1, dim == 3 ? ext[2] - 1 : 1}};
            same_bits(dim, 4, &box);
            same_bits(dim, 8, &box);
        }
    }
}

/* The comparison sees one wrong point. */
static void test_wrong_point_caught(void **state)
{
    (void)state;
    struct stencil_backend a, b;
    setup_backend(&a, 3, 8, STORES_CACHED);
    setup_backend(&b, 3, 8, STORES_STREAMING);
    fill(&a, 0);
    fill(&b, 0);
    struct sbox box = {{1, 1, 1}, {EXT3[0] - 1, EXT3[1] - 1, EXT3[2] - 1}};
    double t;
    assert_int_equal(a.ops->sweep(&a, 1, &box, &t), SB_OK);
    assert_int_equal(b.ops->sweep(&b, 1, &box, &t), SB_OK);
    size_t n = layout_points(&b.layout);
    double *f = malloc(n * sizeof *f);
    b.ops->swap(&b);
    b.ops->download(&b, f);
    f[(size_t)EXT3[0] * EXT3[1] * 4 + (size_t)EXT3[0] * 7 + 20] += 1e-12;
    b.ops->upload(&b, f);
    b.ops->swap(&b);
    assert_int_equal(differing(&a, &b), 1);
    free(f);
    a.ops->destroy(&a);
    b.ops->destroy(&b);
}

/* A field of `points` reals: a pattern with negative zeros, subnormals and
 * infinities among it (the signs of zero sums and the rounding of tiny
 * products must come out alike). */
static void *pattern_field(size_t points, int rb, unsigned seed)
{
    double *d = aligned_alloc(64, (points * (size_t)rb + 63) / 64 * 64);
    float *f = (float *)d;
    for (size_t i = 0; i < points; i++) {
        unsigned h = (unsigned)((i + seed) * 2654435761u);
        double v = (double)(h % 2003) / 97.0 - 10.0;
        if (h % 17 == 0) v = -0.0;
        if (h % 23 == 0) v = 0.0;
        if (h % 29 == 0) v = (rb == 4 ? 1e-41 : 1e-310) * (h % 2 ? 1 : -1);
        if (h % 211 == 0) v = h % 2 ? INFINITY : -INFINITY;
        if (rb == 4)
            f[i] = (float)v;
        else
            d[i] = v;
    }
    return d;
}

/* Line y of the planes z .. z + planes - 1 from x0 to x1 by the compiler's
 * loops and by the hand-written lines (cpu_lines_isa) with both stores:
 * fields equal bit for bit, and so equal outside the lines (each starts as
 * a copy of the same pattern). */
static size_t simd_line_differs(const struct stencil_layout *l, const void *in, int x0, int x1,
                                int y, int z, int planes)
{
    size_t bytes = layout_stored_points(l) * (size_t)l->real_bytes, off = 0;
    unsigned char *want = pattern_field(layout_stored_points(l), l->real_bytes, 7);
    for (int k = 0; k < planes; k++)
        cpu_line_portable(l, in, want, x0, x1, y, z + k);
    for (int stream = 0; stream <= 1; stream++) {
        unsigned char *got = pattern_field(layout_stored_points(l), l->real_bytes, 7);
        cpu_simd_lines(l, in, got, x0, x1, y, 1, z, planes, stream);
        cpu_simd_fence();
        off += differing_points(want, got, bytes, l->real_bytes);
        free(got);
    }
    free(want);
    return off;
}

/* The lines of one ISA against the compiler's, 2D and 3D, float and double,
 * padded and unpadded, every start and length across a cache line; in 3D
 * one plane and two side by side, with and without planes beyond them to
 * ask the cache for. */
static void lines_match_portable(enum sb_isa isa)
{
    cpu_lines_isa = isa;
    for (int dim = 2; dim <= 3; dim++)
        for (int rb = 4; rb <= 8; rb += 4)
            for (int padded = 0; padded <= 1; padded++) {
                struct stencil_layout l = {.dim = dim,
                                           .ext = {53, 7, dim == 3 ? 5 : 1},
                                           .real_bytes = rb,
                                           .weights = {0.11, -0.23, 0.31, 0.43, -0.17, 0.29, 0.37}};
                l.pitch = padded ? layout_cache_line_pitch(l.ext[0], rb) : 0;
                void *in = pattern_field(layout_stored_points(&l), rb, 1);
                /* (z, planes): 2D's one; 3D 2 alone, 1 and 2, 2 and 3 */
                const int zp[3][2] = {{2, 1}, {1, 2}, {2, 2}};
                for (int c = 0; c < (dim == 3 ? 3 : 1); c++)
                    for (int x0 = 1; x0 <= 18; x0++)
                        for (int x1 = x0; x1 < l.ext[0]; x1 += x1 - x0 < 18 ? 1 : 7)
                            for (int y = 1; y <= 3; y += 2) {
                                int z = dim == 3 ? zp[c][0] : 0, planes = zp[c][1];
                                size_t off = simd_line_differs(&l, in, x0, x1, y, z, planes);
                                if (off != 0)
                                    fail_msg("%s lines, %dD, %d-byte reals, %s lines, x %d..%d "
                                             "of line %d, %d plane(s) from %d: %zu points "
                                             "differ",
                                             isa == SB_ISA_AVX512 ? "AVX-512" : "AVX2", dim, rb,
                                             padded ? "padded" : "unpadded", x0, x1, y, planes, z,
                                             off);
                            }
                free(in);
            }
}

static void test_avx2_lines_match_portable(void **state)
{
    (void)state;
    if (sb_isa() < SB_ISA_AVX2) {
        printf("# no AVX2 here: the AVX2 lines are not run\n");
        skip();
    }
    lines_match_portable(SB_ISA_AVX2);
}

static void test_avx512_lines_match_portable(void **state)
{
    (void)state;
    if (sb_isa() < SB_ISA_AVX512) {
        printf("# no AVX-512 here: the AVX-512 lines are not run\n");
        skip();
    }
    lines_match_portable(SB_ISA_AVX512);
}

/* The lines' comparison sees one wrong point. */
static void test_simd_wrong_point_caught(void **state)
{
    (void)state;
    if (sb_isa() == SB_ISA_PORTABLE) skip(); /* no hand-written lines to compare here */
    struct stencil_layout l = {.dim = 3,
                               .ext = {40, 6, 5},
                               .pitch = 48,
                               .real_bytes = 4,
                               .weights = {0.11, 0.23, 0.31, 0.43, 0.17, 0.29, 0.37}};
    size_t points = layout_stored_points(&l), bytes = points * 4;
    float *in = pattern_field(points, 4, 1), *want = pattern_field(points, 4, 7);
    float *got = pattern_field(points, 4, 7);
    cpu_line_portable(&l, in, want, 3, 37, 2, 2);
    cpu_simd_lines(&l, in, got, 3, 37, 2, 1, 2, 1, false);
    assert_int_equal(differing_points(want, got, bytes, 4), 0);
    got[layout_index(&l, 20, 2, 2)] = nextafterf(got[layout_index(&l, 20, 2, 2)], INFINITY);
    assert_int_equal(differing_points(want, got, bytes, 4), 1);
    free(in);
    free(want);
    free(got);
}

/* 3D sweeps go in tiles of y sized to the L2 (a few lines each on a field
 * this wide), two planes at a time where the AVX-512 lines run, and with
 * pairs forced on any machine (cpu_planes_isa), also through the
 * compiler's lines (cpu_lines_isa): with either stores, on an
 * odd and an even number of planes, every line of the box is computed
 * once, as cpu_line computes it line by line, and nothing outside the box
 * is written. */
static void test_tiles_cover_the_box(void **state)
{
    (void)state;
    for (int forced = 0; forced <= 2; forced++) /* 2: the compiler's lines */
        for (int nz = 4; nz <= 5; nz++)
            for (int stores = STORES_CACHED; stores <= STORES_STREAMING; stores++)
                for (int rb = 4; rb <= 8; rb += 4) {
                    const int ext[3] = {4001, 13, nz};
                    struct stencil_layout l = {
                        .dim = 3,
                        .real_bytes = rb,
                        .threads = 1,
                        .stores = stores,
                        .weights = {0.11, 0.23, 0.31, 0.43, 0.17, 0.29, 0.37}};
                    memcpy(l.ext, ext, sizeof l.ext);
                    cpu_planes_isa = forced ? SB_ISA_PORTABLE : SB_ISA_AVX512;
                    cpu_lines_isa = forced == 2 ? SB_ISA_PORTABLE : SB_ISA_AVX512;
                    struct stencil_backend b = {.ops = &stencil_backend_cpu};
                    struct sb_msg m;
                    assert_int_equal(b.ops->init(&b, &l, &m), SB_OK);
                    fill(&b, 3);
                    size_t bytes = layout_points(&l) * (size_t)rb;
                    unsigned char *in = malloc(bytes), *want = calloc(1, bytes),
                                  *got = malloc(bytes);
                    b.ops->download(&b, in);
                    struct sbox box = {{1, 1, 1}, {ext[0] - 1, ext[1] - 1, ext[2] - 1}};
                    for (int z = box.lo[2]; z < box.hi[2]; z++)
                        for (int y = box.lo[1]; y < box.hi[1]; y++)
                            cpu_line(&l, in, want, box.lo[0], box.hi[0], y, z, 1);
                    double t;
                    assert_int_equal(b.ops->sweep(&b, 1, &box, &t), SB_OK);
                    b.ops->swap(&b);
                    b.ops->download(&b, got);
                    size_t off = differing_points(want, got, bytes, rb);
                    if (off != 0)
                        fail_msg(
                            "3D %d x %d x %d, %d-byte reals, %s stores, %d plane(s) a call: %zu "
                            "points differ from line-by-line sweeps",
                            ext[0], ext[1], ext[2], rb,
                            stores == STORES_STREAMING ? "streaming" : "cached",
                            cpu_plane_group(&l), off);
                    free(in);
                    free(want);
                    free(got);
                    b.ops->destroy(&b);
                }
}

/* Every test ends with the widest lines allowed again, and planes in pairs
 * only where measured, passed or failed. */
static int widest_lines(void **state)
{
    (void)state;
    cpu_lines_isa = SB_ISA_AVX512;
    cpu_planes_isa = SB_ISA_AVX512;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_avx2_lines_match_portable, widest_lines),
        cmocka_unit_test_teardown(test_avx512_lines_match_portable, widest_lines),
        cmocka_unit_test_teardown(test_simd_wrong_point_caught, widest_lines),
        cmocka_unit_test_teardown(test_streaming_same_bits, widest_lines),
        cmocka_unit_test_teardown(test_wrong_point_caught, widest_lines),
        cmocka_unit_test_teardown(test_tiles_cover_the_box, widest_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
