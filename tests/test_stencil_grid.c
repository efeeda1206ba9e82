/* The stencil's geometry (src/stencil/grid.c): the uneven split of seed 004
 * sec. 3.1.2, the shrinking sweep regions, the overlap split, and halo
 * messages whose boxes match between neighbours. */
#include "cmocka_prelude.h"
#include "../src/stencil/grid.h"

#include <stdlib.h>
#include <string.h>

static void test_split_even(void **state)
{
    (void)state;
    /* 10 over 4: the first two parts get one more (seed 004 sec. 3.1.2) */
    int want_count[4] = {3, 3, 2, 2}, want_first[4] = {0, 3, 6, 8};
    for (int i = 0; i < 4; i++) {
        int count, first;
        split_even(10, 4, i, &count, &first);
        assert_int_equal(count, want_count[i]);
        assert_int_equal(first, want_first[i]);
    }
    int count, first;
    split_even(7, 1, 0, &count, &first);
    assert_int_equal(count, 7);
    assert_int_equal(first, 0);
}

static void test_check(void **state)
{
    (void)state;
    struct sb_msg m;
    const int global[3] = {64, 30, 1}, dims[3] = {2, 4, 1};
    assert_int_equal(grid_check(2, global, dims, 7, &m), SB_OK);
    assert_int_equal(grid_check(2, global, dims, 8, &m), SB_EUSAGE); /* 30 / 4 = 7 */
    assert_non_null(strstr(m.text, "stencil.depth = 8"));
    assert_non_null(strstr(m.text, "up to 7"));
    const int few[3] = {3, 30, 1};
    const int many[3] = {4, 1, 1};
    assert_int_equal(grid_check(2, few, many, 1, &m), SB_EUSAGE);
    assert_non_null(strstr(m.text, "stencil.size"));
}

static void test_sweep_regions(void **state)
{
    (void)state;
    struct stencil_grid g;
    const int global[3] = {20, 12, 9}, dims[3] = {2, 2, 3}, coords[3] = {1, 0, 2};
    grid_init(&g, 3, global, dims, coords, 3);
    assert_int_equal(g.n[0], 10);
    assert_int_equal(g.origin[0], 10);
    assert_int_equal(g.n[2], 3);
    assert_int_equal(g.ext[1], 6 + 6);
    /* sweep 0 reaches d - 1 = 2 layers into the halo, the last none */
    struct sbox r0 = grid_sweep_region(&g, 0), r2 = grid_sweep_region(&g, 2);
    for (int a = 0; a < 3; a++) {
        assert_int_equal(r0.lo[a], 1);
        assert_int_equal(r0.hi[a], g.ext[a] - 1);
        assert_int_equal(r2.lo[a], 3);
        assert_int_equal(r2.hi[a], 3 + g.n[a]);
    }
    /* stencil.sweep = full: every sweep as wide as the first */
    g.full_sweeps = true;
    for (int j = 0; j < 3; j++) {
        struct sbox f = grid_sweep_region(&g, j);
        for (int a = 0; a < 3; a++) {
            assert_int_equal(f.lo[a], 1);
            assert_int_equal(f.hi[a], g.ext[a] - 1);
        }
    }
    /* 2D: z is one plane, never grown */
    grid_init(&g, 2, global, dims, coords, 3);
    struct sbox r = grid_sweep_region(&g, 0);
    assert_int_equal(r.lo[2], 0);
    assert_int_equal(r.hi[2], 1);
}

/* Marks every point of the boxes in a count array of the grid's extent. */
static void mark(const struct stencil_grid *g, int *count, const struct sbox *b)
{
    for (int z = b->lo[2]; z < b->hi[2]; z++)
        for (int y = b->lo[1]; y < b->hi[1]; y++)
            for (int x = b->lo[0]; x < b->hi[0]; x++)
                count[(z * g->ext[1] + y) * g->ext[0] + x]++;
}

static void check_overlap_split(int dim, int depth)
{
    struct stencil_grid g;
    const int global[3] = {13, 11, 9}, dims[3] = {1, 1, 1}, coords[3] = {0, 0, 0};
    grid_init(&g, dim, global, dims, coords, depth);
    struct sbox inner, frame[6];
    int nframe = grid_overlap_split(&g, &inner, frame);
    assert_int_equal(nframe, 2 * dim);
    size_t points = (size_t)g.ext[0] * g.ext[1] * g.ext[2];
    int *count = calloc(points, sizeof *count);
    mark(&g, count, &inner);
    for (int i = 0; i < nframe; i++)
        mark(&g, count, &frame[i]);
    struct sbox region = grid_sweep_region(&g, 0);
    for (int z = 0; z < g.ext[2]; z++)
        for (int y = 0; y < g.ext[1]; y++)
            for (int x = 0; x < g.ext[0]; x++) {
                int p[3] = {x, y, z};
                bool in_region = true;
                for (int a = 0; a < 3; a++)
                    in_region = in_region && p[a] >= region.lo[a] && p[a] < region.hi[a];
                /* every point of sweep 0 exactly once, nothing else */
                assert_int_equal(count[(z * g.ext[1] + y) * g.ext[0] + x], in_region ? 1 : 0);
            }
    /* the interior reads only own points */
    for (int a = 0; a < dim; a++) {
        assert_true(inner.lo[a] - 1 >= g.halo[a]);
        assert_true(inner.hi[a] + 1 <= g.halo[a] + g.n[a]);
    }
    free(count);
}

static void test_overlap_split(void **state)
{
    (void)state;
    check_overlap_split(2, 1);
    check_overlap_split(2, 4);
    check_overlap_split(3, 1);
    check_overlap_split(3, 3);
}

static bool same_shape(const struct sbox *a, const struct sbox *b)
{
    for (int i = 0; i < 3; i++)
        if (a->hi[i] - a->lo[i] != b->hi[i] - b->lo[i]) return false;
    return true;
}

/* What the neighbour at offset o sends me must fit the box I receive it in:
 * same shape, and the tags must pair up. */
static void check_pairs(int dim, bool async)
{
    const int global[3] = {23, 17, 10}, dims[3] = {3, 2, dim == 3 ? 2 : 1};
    int depth = 2;
    for (int rank = 0; rank < dims[0] * dims[1] * dims[2]; rank++) {
        int c[3] = {rank % dims[0], rank / dims[0] % dims[1], rank / (dims[0] * dims[1])};
        struct stencil_grid me;
        grid_init(&me, dim, global, dims, c, depth);
        struct halo_message mine[26];
        int phases = async ? 1 : dim;
        for (int ph = 0; ph < phases; ph++) {
            int n = async ? grid_async_messages(&me, mine) : grid_sync_messages(&me, ph, mine);
            assert_int_equal(n, async ? (dim == 2 ? 8 : 26) : 2);
            for (int i = 0; i < n; i++) {
                int nc[3];
                for (int a = 0; a < 3; a++)
                    nc[a] = (c[a] + mine[i].offset[a] + dims[a]) % dims[a];
                struct stencil_grid them;
                grid_init(&them, dim, global, dims, nc, depth);
                struct halo_message theirs[26];
                int m = async ? grid_async_messages(&them, theirs)
                              : grid_sync_messages(&them, ph, theirs);
                int found = 0;
                for (int j = 0; j < m; j++) {
                    bool back = true;
                    for (int a = 0; a < 3; a++)
                        back = back && theirs[j].offset[a] == -mine[i].offset[a];
                    if (!back) continue;
                    found++;
                    assert_true(same_shape(&theirs[j].send, &mine[i].recv));
                    assert_int_equal(theirs[j].send_tag, mine[i].recv_tag);
                }
                assert_int_equal(found, 1);
            }
        }
    }
}

static void test_messages_pair(void **state)
{
    (void)state;
    check_pairs(2, false);
    check_pairs(2, true);
    check_pairs(3, false);
    check_pairs(3, true);
}

/* sync: a later axis carries the earlier axes' halos (corners travel). */
static void test_sync_corners(void **state)
{
    (void)state;
    struct stencil_grid g;
    const int global[3] = {16, 16, 1}, dims[3] = {2, 2, 1}, coords[3] = {0, 0, 0};
    grid_init(&g, 2, global, dims, coords, 3);
    struct halo_message x[2], y[2];
    grid_sync_messages(&g, 0, x);
    grid_sync_messages(&g, 1, y);
    assert_int_equal(x[0].send.lo[1], 3); /* x phase: own rows only */
    assert_int_equal(x[0].send.hi[1], 3 + 8);
    assert_int_equal(y[0].send.lo[0], 0); /* y phase: the whole width */
    assert_int_equal(y[0].send.hi[0], g.ext[0]);
    assert_int_equal(y[1].recv.lo[1], 3 + 8);
    assert_int_equal(y[1].recv.hi[1], 3 + 8 + 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_even),    cmocka_unit_test(test_check),
        cmocka_unit_test(test_sweep_regions), cmocka_unit_test(test_overlap_split),
        cmocka_unit_test(test_messages_pair), cmocka_unit_test(test_sync_corners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
