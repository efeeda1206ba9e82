/* The schedules of Team Shift and of the direct exchange, checked without
 * MPI: Team Shift's members hold every window offset exactly once after the
 * stated number of steps; direct's repeated edges (periodic images, the box
 * itself) meet slot to slot under MPI's rule that the j-th edge from p to q
 * matches the j-th edge into q from p.  And every module's tags lie in a
 * range of its own. */
#include "cmocka_prelude.h"
#include "../comm/direct.h"
#include "../comm/exchange.h"
#include "../comm/shift_flow.h"
#include "../comm/slots.h"
#include "../comm/teamshift.h"
#include "../src/decomp.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void test_teamshift_covers_window_once(void **state)
{
    (void)state;
    for (int k = 1; k <= 10; k++) {
        for (int c = 1; c <= 2 * k + 3; c++) {
            int seen[64] = {0};
            int most = 0;
            for (int i = 0; i < c; i++) {
                int n = teamshift_blocks(k, c, i);
                if (n > most) most = n;
                for (int s = 0; s < n; s++) {
                    int o = -k + i + s * c;
                    assert_true(o >= -k && o <= k);
                    seen[o + k]++;
                    assert_int_equal(teamshift_holder(k, c, o), i);
                    assert_int_equal(teamshift_block_index(k, c, o), s);
                }
            }
            for (int o = -k; o <= k; o++)
                assert_int_equal(seen[o + k], 1);
            /* the skew, then ceil((2k+1)/c) - 1 steps */
            assert_int_equal(most - 1, teamshift_steps(k, c));
        }
    }
    /* c = 1: one member walks the whole window, 2k steps. */
    assert_int_equal(teamshift_blocks(3, 1, 0), 7);
    assert_int_equal(teamshift_steps(3, 1), 6);
    /* more members than window offsets: the last ones rest */
    assert_int_equal(teamshift_blocks(1, 5, 3), 0);
}

/* The edges of every box of a grid, then MPI's matching.  `reversed`
 * lists each box's destinations backwards, a fault the check must catch.
 * Returns how many edges land in the wrong slot. */
static int mismatched_edges(const int dims[3], const int k[3], bool reversed)
{
    struct slots shape;
    slots_init(&shape, k);
    int nboxes = dims[0] * dims[1] * dims[2], n = shape.count - 1, wrong = 0;
    int *src = malloc((size_t)nboxes * (size_t)n * sizeof *src);
    int *dst = malloc((size_t)nboxes * (size_t)n * sizeof *dst);
    int *slot = malloc((size_t)nboxes * (size_t)n * sizeof *slot); /* slot of dst edge */
    int centre = slot_centre(&shape);
    for (int b = 0; b < nboxes; b++) {
        int c[3];
        coords_of_rank(dims, b, c);
        assert_int_equal(direct_partners(dims, c, k, src + b * n, dst + b * n), n);
        for (int e = 0; e < n; e++)
            slot[b * n + e] = e < centre ? e : e + 1;
        for (int e = 0; reversed && e < n / 2; e++) {
            int t = dst[b * n + e], u = slot[b * n + e];
            dst[b * n + e] = dst[b * n + n - 1 - e];
            slot[b * n + e] = slot[b * n + n - 1 - e];
            dst[b * n + n - 1 - e] = t;
            slot[b * n + n - 1 - e] = u;
        }
    }
    for (int p = 0; p < nboxes; p++) {
        for (int e = 0; e < n; e++) {
            int q = dst[p * n + e];
            int j = 0; /* which occurrence of q this is among p's destinations */
            for (int f = 0; f < e; f++)
                j += dst[p * n + f] == q;
            int g = -1; /* the j-th occurrence of p among q's sources */
            for (int f = 0, seen = 0; f < n && g < 0; f++)
                if (src[q * n + f] == p && seen++ == j) g = f;
            assert_true(g >= 0);
            wrong += slot[p * n + e] != (g < centre ? g : g + 1);
        }
    }
    free(src);
    free(dst);
    free(slot);
    slots_free(&shape);
    return wrong;
}

static void test_direct_repeated_edges_match_slots(void **state)
{
    (void)state;
    const int grids[][3] = {{1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {2, 2, 2}, {4, 2, 1}, {1, 3, 2}};
    const int reach[][3] = {{1, 1, 1}, {2, 2, 2}, {3, 0, 0}, {4, 1, 0}};
    for (size_t i = 0; i < sizeof grids / sizeof grids[0]; i++)
        for (size_t j = 0; j < sizeof reach / sizeof reach[0]; j++)
            assert_int_equal(mismatched_edges(grids[i], reach[j], false), 0);
    /* Out of slot order, repeated partners meet the wrong slots. */
    assert_true(mismatched_edges((const int[3]){1, 1, 1}, (const int[3]){1, 1, 1}, true) > 0);
    assert_true(mismatched_edges((const int[3]){2, 1, 1}, (const int[3]){2, 0, 0}, true) > 0);
}

/* The modules share communicators (src/decomp.h): each module and baseline
 * sends in [base, base + EXCHANGE_TAG_SPAN), the ranges apart and below
 * MPI's minimum tag bound, and the largest tag a module makes (the Shift's
 * last hop, Team Shift's last step in z, at the largest k) inside its span. */
static void test_tag_ranges_apart(void **state)
{
    (void)state;
    const exchange_ops *const *lists[] = {exchange_modules, exchange_baselines};
    int bases[32], n = 0;
    for (int l = 0; l < 2; l++)
        for (int i = 0; lists[l][i]; i++) {
            int base = exchange_tag_base(lists[l][i]);
            assert_true(base >= EXCHANGE_TAG_SPAN);
            assert_true(base + EXCHANGE_TAG_SPAN - 1 <= EXCHANGE_TAG_LIMIT);
            for (int j = 0; j < n; j++)
                assert_true(base >= bases[j] + EXCHANGE_TAG_SPAN ||
                            bases[j] >= base + EXCHANGE_TAG_SPAN);
            bases[n++] = base;
        }
    assert_true(n >= 7);
    assert_int_equal(exchange_tag_base(NULL), -1);
    int shift_most = 0;
    for (int d = 0; d < 3; d++)
        for (int dir = -1; dir <= 1; dir += 2)
            for (int hop = 1; hop <= EXCHANGE_MAX_K; hop++)
                if (shift_tag(d, dir, hop) > shift_most) shift_most = shift_tag(d, dir, hop);
    assert_true(shift_most < EXCHANGE_TAG_SPAN);
    int team_last = 1 + 2 * (2 * EXCHANGE_MAX_K + 2) + teamshift_steps(EXCHANGE_MAX_K, 1);
    assert_true(team_last < EXCHANGE_TAG_SPAN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_teamshift_covers_window_once),
        cmocka_unit_test(test_direct_repeated_edges_match_slots),
        cmocka_unit_test(test_tag_ranges_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
