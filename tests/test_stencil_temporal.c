/* Temporal blocking on the CPU (gpu/backend_cpu_temporal.c): n sweeps made
 * tile by tile leave both fields bit for bit as n plain sweeps do, for 2D
 * and 3D, float and double, shrinking and full regions, and tiles from the
 * smallest (2) to one covering everything, one plane a step and two (3D
 * planes in pairs: with the AVX-512 lines, and forced on any machine, also
 * through the compiler's lines); and
 * a schedule that leaves out the skew between sweeps is caught by the same
 * comparison. */
#include "cmocka_prelude.h"
#include "../gpu/backend_cpu.h"
#include "../src/cpu_cache.h"
#include "stencil_fields.h"

#include <stdlib.h>
#include <string.h>

static const int EXT3[3] = {23, 19, 17}, EXT2[3] = {61, 37, 1};

static void setup_backend(struct stencil_backend *b, int dim, int real_bytes)
{
    struct stencil_layout l = {.dim = dim,
                               .real_bytes = real_bytes,
                               .threads = 1,
                               .weights = {0.11, 0.23, 0.31, 0.43, 0.17, 0.29, 0.37}};
    memcpy(l.ext, dim == 3 ? EXT3 : EXT2, sizeof l.ext);
    struct sb_msg m;
    b->ops = &stencil_backend_cpu;
    assert_int_equal(b->ops->init(b, &l, &m), SB_OK);
}

/* Regions as src/stencil/grid.c makes them for a halo of depth n: sweep j
 * shrinks by j layers (shrink) or none (full). */
static void regions(const struct stencil_layout *l, int n, bool full, struct sbox *box)
{
    for (int j = 0; j < n; j++)
        for (int a = 0; a < 3; a++) {
            int in = a < l->dim ? 1 + (full ? 0 : j) : 0;
            box[j].lo[a] = in;
            box[j].hi[a] = l->ext[a] - in;
        }
}

static void plain(struct stencil_backend *b, int n, const struct sbox *box)
{
    double t;
    for (int j = 0; j < n; j++) {
        assert_int_equal(b->ops->sweep(b, 1, &box[j], &t), SB_OK);
        b->ops->swap(b);
    }
}

static void test_matches_plain_sweeps(void **state)
{
    (void)state;
    const int tiles[] = {2, 3, 5, 0, 1000};
    for (int forced = 0; forced <= 2; forced++) /* pairs: where measured, anywhere, portable */
        for (int dim = 2; dim <= 3; dim++)
            for (int rb = 4; rb <= 8; rb += 4)
                for (int full = 0; full <= 1; full++)
                    for (int n = 1; n <= 6; n++)
                        for (size_t k = 0; k < sizeof tiles / sizeof *tiles; k++) {
                            struct stencil_backend a, b;
                            cpu_planes_isa = forced ? SB_ISA_PORTABLE : SB_ISA_AVX512;
                            cpu_lines_isa = forced == 2 ? SB_ISA_PORTABLE : SB_ISA_AVX512;
                            setup_backend(&a, dim, rb);
                            setup_backend(&b, dim, rb);
                            fill(&a, (unsigned)n);
                            fill(&b, (unsigned)n);
                            struct sbox box[6];
                            regions(&a.layout, n, full, box);
                            plain(&a, n, box);
                            double t;
                            assert_int_equal(b.ops->sweeps_blocked(&b, n, box, tiles[k], &t),
                                             SB_OK);
                            size_t off = differing(&a, &b);
                            if (off != 0)
                                fail_msg(
                                    "dim %d, %d-byte reals, %s regions, %d sweeps, tile %d, %d "
                                    "plane(s) a step: %zu points differ from the plain sweeps",
                                    dim, rb, full ? "full" : "shrinking", n, tiles[k],
                                    cpu_plane_group(&b.layout), off);
                            a.ops->destroy(&a);
                            b.ops->destroy(&b);
                        }
}

/* The fault the order guards against: tiles without the skew (every sweep
 * on the same [b0, b1)) read values of the next tile that are one sweep
 * behind, and the comparison above sees it. */
static void test_unskewed_tiles_caught(void **state)
{
    (void)state;
    struct stencil_backend a, b;
    setup_backend(&a, 3, 8);
    setup_backend(&b, 3, 8);
    fill(&a, 1);
    fill(&b, 1);
    struct sbox box[4];
    regions(&a.layout, 4, false, box);
    plain(&a, 4, box);
    /* b: by hand, tiles of 4 y lines, wavefront along z, no skew */
    double *f[2];
    size_t n = layout_points(&b.layout);
    struct stencil_layout host = b.layout; /* the downloaded fields' lines: ext[0] apart */
    host.pitch = 0;
    for (int i = 0; i < 2; i++) {
        f[i] = malloc(n * sizeof(double));
        b.ops->download(&b, f[i]);
        b.ops->swap(&b);
    }
    for (int y0 = 0; y0 < EXT3[1]; y0 += 4)
        for (int s = 0; s < EXT3[2] + 4; s++)
            for (int t = 0; t < 4; t++) {
                int z = s - t;
                if (z < box[t].lo[2] || z >= box[t].hi[2]) continue;
                for (int y = y0 < box[t].lo[1] ? box[t].lo[1] : y0; y < y0 + 4 && y < box[t].hi[1];
                     y++)
                    cpu_line(&host, f[t % 2], f[(t + 1) % 2], box[t].lo[0], box[t].hi[0], y, z, 1);
            }
    b.ops->upload(&b, f[0]); /* 4 sweeps: the result is back in the first */
    b.ops->swap(&b);
    b.ops->upload(&b, f[1]);
    b.ops->swap(&b);
    assert_true(differing(&a, &b) > 0);
    free(f[0]);
    free(f[1]);
    a.ops->destroy(&a);
    b.ops->destroy(&b);
}

/* stencil.tile = 0's candidates (src/stencil/tune.c times them): distinct
 * and ascending, the first sized to half the L2, at most max (nothing
 * written beyond), the last the tile of the whole cache where the box is
 * wider than that, one where the first already spans the box. */
static int lines_for(double cache, int n, int line_bytes)
{
    double tile = cache / 2 / (2.0 * (n + 2) * line_bytes);
    return tile < 8 ? 8 : (int)tile;
}

static void test_tile_candidates(void **state)
{
    (void)state;
    struct stencil_layout l = {.dim = 3, .real_bytes = 4, .ext = {34, 1 << 28, 10}};
    struct cpu_caches caches;
    cpu_caches_read(&caches);
    int tiles[17];
    tiles[16] = -1;
    int n = cpu_tile_candidates(&l, 8, tiles, 16);
    assert_in_range(n, 1, 16);
    assert_int_equal(tiles[16], -1);
    for (int i = 1; i < n; i++)
        assert_true(tiles[i] > tiles[i - 1]);
    assert_int_equal(tiles[n - 1], lines_for((double)cpu_tile_cache_bytes(), 8, 34 * 4));
    if (caches.l2 > 0 && caches.l2 / 2 < (long)cpu_tile_cache_bytes()) {
        assert_true(n >= 2);
        assert_int_equal(tiles[0], lines_for(caches.l2 / 2.0, 8, 34 * 4));
    }
    int few[3] = {0, 0, -1};
    assert_int_equal(cpu_tile_candidates(&l, 8, few, 2), n < 2 ? n : 2);
    assert_int_equal(few[2], -1);
    l.ext[1] = 8; /* no tile is narrower than 8 lines: the first spans the box */
    assert_int_equal(cpu_tile_candidates(&l, 8, tiles, 16), 1);
}

/* The widest lines again, and planes in pairs only where measured, passed
 * or failed. */
static int default_planes(void **state)
{
    (void)state;
    cpu_lines_isa = SB_ISA_AVX512;
    cpu_planes_isa = SB_ISA_AVX512;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_matches_plain_sweeps, default_planes),
        cmocka_unit_test(test_unskewed_tiles_caught),
        cmocka_unit_test(test_tile_candidates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
