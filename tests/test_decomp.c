/* The rank grid: wrapping, numbering, and the box at any offset. */
#include "cmocka_prelude.h"
#include "../src/decomp.h"

#include <mpi.h>
#include <string.h>

static void test_wrap_coord(void **state)
{
    (void)state;
    int image;
    assert_int_equal(wrap_coord(0, 3, &image), 0);
    assert_int_equal(image, 0);
    assert_int_equal(wrap_coord(-1, 3, &image), 2);
    assert_int_equal(image, -1);
    assert_int_equal(wrap_coord(7, 3, &image), 1);
    assert_int_equal(image, 2);
    assert_int_equal(wrap_coord(-7, 3, &image), 2);
    assert_int_equal(image, -3);
    assert_int_equal(wrap_coord(-3, 3, &image), 0);
    assert_int_equal(image, -1);
    /* A ring of one: every offset is the box itself, image = offset. */
    for (int d = -5; d <= 5; d++) {
        assert_int_equal(wrap_coord(d, 1, &image), 0);
        assert_int_equal(image, d);
    }
}

static void test_numbering_round_trip(void **state)
{
    (void)state;
    const int dims[3] = {2, 3, 4};
    for (int r = 0; r < 24; r++) {
        int c[3];
        coords_of_rank(dims, r, c);
        assert_int_equal(rank_of_coords(dims, c), r);
    }
    /* Row-major with z fastest, as MPI_Cart_create numbers ranks. */
    int c[3] = {1, 0, 0};
    assert_int_equal(rank_of_coords(dims, c), 12);
    c[0] = 0;
    c[2] = 1;
    assert_int_equal(rank_of_coords(dims, c), 1);
}

static void test_box_at_far_offsets(void **state)
{
    (void)state;
    const int dims[3] = {2, 1, 3};
    const int me[3] = {1, 0, 2};
    struct box_ref b = box_at(dims, me, (const int[3]){3, -2, -4});
    assert_int_equal(b.coords[0], 0);
    assert_int_equal(b.image[0], 2);
    assert_int_equal(b.coords[1], 0);
    assert_int_equal(b.image[1], -2);
    assert_int_equal(b.coords[2], 1);
    assert_int_equal(b.image[2], -1);
    assert_int_equal(b.rank, rank_of_coords(dims, b.coords));
    b = box_at(dims, me, (const int[3]){0, 0, 0});
    assert_int_equal(b.rank, rank_of_coords(dims, me));
    assert_int_equal(b.image[0] | b.image[1] | b.image[2], 0);
}

/* Walking around any ring visits every box once per lap, and the image
 * counts the laps. */
static void test_offsets_cover_ring(void **state)
{
    (void)state;
    const int dims[3] = {5, 2, 1};
    const int me[3] = {3, 1, 0};
    for (int d = -12; d <= 12; d++) {
        struct box_ref b = box_at(dims, me, (const int[3]){d, d, d});
        assert_int_equal((b.coords[0] + b.image[0] * 5), me[0] + d);
        assert_int_equal((b.coords[1] + b.image[1] * 2), me[1] + d);
        assert_int_equal(b.coords[2], 0);
        assert_int_equal(b.image[2], d);
    }
}

static void test_choose_dims(void **state)
{
    (void)state;
    struct sb_msg m = {""};
    int dims[3];
    assert_int_equal(choose_dims(8, (const int[3]){0, 0, 0}, dims, &m), SB_OK);
    assert_int_equal(dims[0] * dims[1] * dims[2], 8);
    assert_int_equal(choose_dims(8, (const int[3]){0, 1, 1}, dims, &m), SB_OK);
    assert_int_equal(dims[0], 8);
    assert_int_equal(choose_dims(7, (const int[3]){7, 1, 1}, dims, &m), SB_OK);
    assert_int_equal(choose_dims(2, (const int[3]){3, 1, 1}, dims, &m), SB_EUSAGE);
    assert_non_null(strstr(m.text, "decomp.dims"));
    assert_non_null(strstr(m.text, "product is 2"));
    assert_int_equal(choose_dims(6, (const int[3]){4, 0, 0}, dims, &m), SB_EUSAGE);
    assert_int_equal(choose_dims(4, (const int[3]){2, 1, 1}, dims, &m), SB_EUSAGE);
}

static void test_factorisations(void **state)
{
    (void)state;
    int grids[64][3];
    assert_int_equal(factorisations(1, grids, 64), 1);
    assert_int_equal(factorisations(7, grids, 64), 3); /* 1x1x7, 1x7x1, 7x1x1 */
    int n = factorisations(8, grids, 64);
    assert_int_equal(n, 10);
    for (int i = 0; i < n; i++) {
        assert_int_equal(grids[i][0] * grids[i][1] * grids[i][2], 8);
        for (int j = 0; j < i; j++)
            assert_false(!memcmp(grids[i], grids[j], sizeof grids[i]));
    }
    assert_int_equal(factorisations(12, grids, 64), 18);
    assert_int_equal(factorisations(64, grids, 4), 28); /* counts past the array */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv); /* MPI_Dims_create needs it */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrap_coord),         cmocka_unit_test(test_numbering_round_trip),
        cmocka_unit_test(test_box_at_far_offsets), cmocka_unit_test(test_offsets_cover_ring),
        cmocka_unit_test(test_choose_dims),        cmocka_unit_test(test_factorisations),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return failed;
}
