/* Ring colouring: neighbours never share a colour, and the schedule the
 * Shift follows (ring_sends_first) finishes every hop of blocking rendezvous
 * sends in as many turns as the ring has colours: two on even rings, three
 * on odd ones.  The simulator is shown to find the deadlock of a ring where
 * every rank sends first, and of a ring of one (an Ssend to oneself). */
#include "cmocka_prelude.h"
#include "../comm/ring.h"

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

typedef bool (*first_fn)(int coord, int n, int dir);

static bool shift_rule(int coord, int n, int dir)
{
    return ring_sends_first(coord, n, dir);
}

/* The naive blocking ring: every rank sends, then receives. */
static bool everyone_sends_first(int coord, int n, int dir)
{
    (void)coord, (void)n, (void)dir;
    return true;
}

/* Simulates one hop of blocking Ssend/Recv: each rank sends to coord + dir
 * and receives from coord - dir, in the order `first` gives.  A send
 * completes only together with the matching receive; all pairs ready at
 * the start of a turn complete in that turn.  Returns the number of turns,
 * or -1 on deadlock. */
static int hop_turns(int n, int dir, first_fn first)
{
    enum { SEND, RECV };
    int ops[64][2], next[64];
    for (int c = 0; c < n; c++) {
        bool send_first = first(c, n, dir);
        ops[c][0] = send_first ? SEND : RECV;
        ops[c][1] = send_first ? RECV : SEND;
        next[c] = 0;
    }
    int turns = 0;
    for (int done = 0; done < 2 * n; turns++) {
        bool ready[64] = {false};
        for (int c = 0; c < n; c++) {
            int to = ((c + dir) % n + n) % n;
            ready[c] = next[c] < 2 && ops[c][next[c]] == SEND && next[to] < 2 &&
                       ops[to][next[to]] == RECV && (to != c || n > 1);
            if (n == 1) ready[c] = false; /* an Ssend to oneself never meets its receive */
        }
        int progress = 0;
        for (int c = 0; c < n; c++) {
            if (!ready[c]) continue;
            next[c]++;
            next[((c + dir) % n + n) % n]++;
            progress += 2;
        }
        if (progress == 0) return -1;
        done += progress;
    }
    return turns;
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
