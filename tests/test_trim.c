/* Trimming payloads in transit (comm/trim.c): which items a receiver at
 * offset o needs, the nearest receiver on each side deciding for a block on
 * its way to several, and choices replayed between rebuilds. */
#include "cmocka_prelude.h"
#include "../comm/slots.h"
#include "../comm/trim.h"

#include <string.h>

/* Edge 1, reach 2.5: items are points (x, y, z) relative to their box. */
static const struct exchange_trim trim = {.item = 24, .edge = {1.0, 1.0, 1.0}, .reach = 2.5};

static void test_needs(void **state)
{
    (void)state;
    struct trim_need n = trim_need_of(-3, 1, -1);
    assert_false(n.all);
    assert_int_equal(n.below, 1);
    assert_int_equal(n.above, 0);
    n = trim_need_of(-2, 3, 4); /* -2, 1, 4 */
    assert_int_equal(n.below, 2);
    assert_int_equal(n.above, 1);
    assert_true(trim_need_of(-1, 1, 1).all);
    /* o = +1: the neighbour above needs what lies within 2.5 of its face */
    assert_true(trim_keeps(trim_need_one(1), 0.9, 1.0, 2.5));
    /* o = +3 (two whole boxes between): within 0.5 of the lower face */
    assert_true(trim_keeps(trim_need_one(3), 0.5, 1.0, 2.5));
    assert_false(trim_keeps(trim_need_one(3), 0.51, 1.0, 2.5));
    /* o = -3: within 0.5 of the upper face, pos >= 3 - 2.5 */
    assert_true(trim_keeps(trim_need_one(-3), 0.5, 1.0, 2.5));
    assert_false(trim_keeps(trim_need_one(-3), 0.49, 1.0, 2.5));
    /* out of reach altogether */
    assert_false(trim_keeps(trim_need_one(4), 0.0, 1.0, 2.5));
}

/* A block of two records: items at x = 0.1, 0.5, 0.9 (and y, z = 0). */
static size_t make_block(unsigned char *block, double shift)
{
    double items[3][3] = {{0.1 + shift, 0, 0}, {0.5 + shift, 0, 0}, {0.9 + shift, 0, 0}};
    record_write(block, (const unsigned char *)items, sizeof items);
    record_write(block + record_bytes(sizeof items), (const unsigned char *)items, 24);
    return record_bytes(sizeof items) + record_bytes(24);
}

static void test_records_choose_then_replay(void **state)
{
    (void)state;
    unsigned char block[256], out[256];
    size_t len = make_block(block, 0.0), written;
    struct trim_choice choice = {0};
    struct sb_msg m;
    struct trim_need need[3] = {trim_need_one(-3), trim_need_all(), trim_need_all()};
    assert_int_equal(trim_records(&trim, &choice, true, block, len, 2, need, out, &written, &m),
                     SB_OK);
    /* record 0 keeps x = 0.5 and 0.9; record 1 (x = 0.1) keeps nothing */
    assert_int_equal(written, 8 + 48 + 8);
    double x;
    memcpy(&x, out + 8, sizeof x);
    assert_true(x == 0.5);
    /* The items move; the replay keeps the same ones, wherever they are. */
    len = make_block(block, -0.3);
    assert_int_equal(trim_records(&trim, &choice, false, block, len, 2, need, out, &written, &m),
                     SB_OK);
    assert_int_equal(written, 8 + 48 + 8);
    memcpy(&x, out + 8, sizeof x);
    assert_true(x == 0.2);
    /* A block that no longer matches the choice is an error, not a guess. */
    double more[4][3] = {{0}};
    record_write(block, (const unsigned char *)more, sizeof more);
    record_write(block + record_bytes(sizeof more), (const unsigned char *)more, 24);
    len = record_bytes(sizeof more) + record_bytes(24);
    assert_int_equal(trim_records(&trim, &choice, false, block, len, 2, need, out, &written, &m),
                     SB_EVERIFY);
    assert_non_null(strstr(m.text, "record 0"));
    assert_int_equal(trim_records(&trim, &choice, false, block, len, 3, need, out, &written, &m),
                     SB_EVERIFY);
    trim_choice_free(&choice);
}

static void test_items_all_axes(void **state)
{
    (void)state;
    double items[4][3] = {{0.1, 0.1, 0.1}, {0.9, 0.1, 0.1}, {0.9, 0.9, 0.1}, {0.9, 0.9, 0.9}};
    unsigned char out[sizeof items];
    struct trim_choice choice = {0};
    struct sb_msg m;
    size_t kept;
    /* the slot (-3, -3, 0): near the upper faces in x and y, anything in z */
    struct trim_need need[3] = {trim_need_one(-3), trim_need_one(-3), trim_need_one(0)};
    assert_int_equal(
        trim_items(&trim, &choice, true, (const unsigned char *)items, 4, need, out, &kept, &m),
        SB_OK);
    assert_int_equal(kept, 2);
    assert_memory_equal(out, items[2], 48);
    assert_int_equal(
        trim_items(&trim, &choice, false, (const unsigned char *)items, 3, need, out, &kept, &m),
        SB_EVERIFY);
    trim_choice_free(&choice);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_needs),
        cmocka_unit_test(test_records_choose_then_replay),
        cmocka_unit_test(test_items_all_axes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
