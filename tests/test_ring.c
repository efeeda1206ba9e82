/* Ring colouring: neighbours never share a colour, and the schedule the
 * Shift follows (ring_sends_first) finishes every hop of blocking rendezvous
 * sends in as many turns as the ring has colours: two on even rings, three
 * on odd ones.  The simulator is shown to find the deadlock of a ring where
 * every rank sends first, and of a ring of one (an Ssend to oneself). */
#include "cmocka_prelude.h"
#include "ring_sim.h"

#include <stdbool.h>

static void test_neighbours_differ(void **state)
{
    (void)state;
    for (int n = 2; n <= 64; n++) {
        for (int c = 0; c < n; c++) {
            int right = (c + 1) % n;
            assert_int_not_equal(ring_colour(c, n), ring_colour(right, n));
            assert_true(ring_colour(c, n) < ring_colours(n));
        }
    }
    assert_int_equal(ring_colours(1), 1);
    assert_int_equal(ring_colours(4), 2);
    assert_int_equal(ring_colours(5), 3);
    assert_int_equal(ring_colour(4, 5), 2);
}

/* The naive blocking ring: every rank sends, then receives. */
static bool everyone_sends_first(int coord, int n, int dir)
{
    (void)coord, (void)n, (void)dir;
    return true;
}

static void test_shift_schedule_takes_one_turn_per_colour(void **state)
{
    (void)state;
    for (int n = 2; n <= 64; n++) {
        assert_int_equal(hop_turns(n, +1, shift_rule), ring_colours(n));
        assert_int_equal(hop_turns(n, -1, shift_rule), ring_colours(n));
    }
}

static void test_simulator_finds_deadlocks(void **state)
{
    (void)state;
    for (int n = 2; n <= 9; n++)
        assert_int_equal(hop_turns(n, +1, everyone_sends_first), -1);
    /* Why the Shift copies locally on a ring of one. */
    assert_int_equal(hop_turns(1, +1, shift_rule), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_neighbours_differ),
        cmocka_unit_test(test_shift_schedule_takes_one_turn_per_colour),
        cmocka_unit_test(test_simulator_finds_deadlocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
