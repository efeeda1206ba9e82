/* The Shifts' gathering buffer (comm/span.c): room at both ends, and a
 * block that stays far too large replaced only after SPAN_SHRINK_AFTER
 * restarts in a row, so that payloads of different sizes taking turns do
 * not free and fault in the large block at every exchange. */
#include "cmocka_prelude.h"
#include "../comm/span.h"

enum { LARGE = 1 << 20, SMALL = 100 };

static void test_room_at_both_ends(void **state)
{
    (void)state;
    struct span s = {0};
    span_restart(&s, 300, 500);
    assert_true(s.front >= 300);
    assert_true(s.cap - s.back >= 500);
    assert_int_equal(span_len(&s), 0);
    s.back += 10; /* data, then more room than there is on either side */
    span_make_room(&s, 4000, 6000, NULL);
    assert_int_equal(span_len(&s), 10);
    assert_true(s.front >= 4000 && s.cap - s.back >= 6000);
    span_free(&s);
}

static void test_large_block_kept_while_sizes_take_turns(void **state)
{
    (void)state;
    struct span s = {0};
    span_restart(&s, LARGE, LARGE);
    unsigned char *large = s.base;
    size_t cap = s.cap;
    for (int turn = 0; turn < 4 * SPAN_SHRINK_AFTER; turn++) {
        span_restart(&s, SMALL, SMALL);
        assert_ptr_equal(s.base, large);
        span_restart(&s, LARGE, LARGE);
        assert_ptr_equal(s.base, large);
        assert_int_equal(s.cap, cap);
    }
    span_free(&s);
}

static void test_large_block_replaced_when_it_stays_too_large(void **state)
{
    (void)state;
    struct span s = {0};
    span_restart(&s, LARGE, LARGE);
    size_t cap = s.cap;
    for (int r = 0; r < SPAN_SHRINK_AFTER; r++) {
        span_restart(&s, SMALL, SMALL);
        assert_int_equal(s.cap, cap);
    }
    span_restart(&s, SMALL, SMALL);
    assert_true(s.cap < 4 * SMALL);
    assert_true(s.front >= SMALL && s.cap - s.back >= SMALL);
    span_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_room_at_both_ends),
        cmocka_unit_test(test_large_block_kept_while_sizes_take_turns),
        cmocka_unit_test(test_large_block_replaced_when_it_stays_too_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
