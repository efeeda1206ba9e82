/* The payload pattern and the byte-for-byte check: a correct slot buffer
 * passes; a flipped byte, a wrong size, swapped slots, a stale repetition and
 * an injected fault are each caught and located. */
#include "cmocka_prelude.h"
#include "../comm/verify.h"
#include "../src/decomp.h"

#include <stdlib.h>
#include <string.h>

static const struct pattern uniform = {.seed = 7, .bytes = 37, .varied = false};
static const struct pattern varied = {.seed = 7, .bytes = 37, .varied = true};
static const int dims[3] = {3, 2, 1};
static const int me[3] = {1, 1, 0};

/* The rank of the box at offset d from `me`, worked out here by hand
 * (periodic wrap, z fastest as MPI_Cart_create numbers ranks), not with
 * decomp.c's box_at, which verify_slots itself uses. */
static long source_rank(const int d[3])
{
    int c[3];
    for (int i = 0; i < 3; i++)
        c[i] = ((me[i] + d[i]) % dims[i] + dims[i]) % dims[i];
    return ((long)c[0] * dims[1] + c[1]) * dims[2] + c[2];
}

/* Builds the slots that rank `me` must receive, as a correct exchange would. */
static unsigned char *build_slots(struct slots *s, const struct pattern *p, long rep)
{
    slots_init(s, (const int[3]){2, 1, 1});
    size_t total = 0;
    for (int i = 0; i < s->count; i++) {
        int d[3];
        slot_offset(s, i, d);
        total += payload_size(p, source_rank(d), rep);
    }
    unsigned char *buf = malloc(total + 1);
    size_t at = 0;
    s->data = buf;
    for (int i = 0; i < s->count; i++) {
        int d[3];
        slot_offset(s, i, d);
        long id = source_rank(d);
        s->size[i] = payload_size(p, id, rep);
        s->offset[i] = at;
        pattern_fill(p, id, rep, buf + at, s->size[i]);
        at += s->size[i];
    }
    return buf;
}

static void test_pattern_depends_on_box_rep_seed(void **state)
{
    (void)state;
    unsigned char a[64], b[64];
    pattern_fill(&uniform, 3, 0, a, sizeof a);
    pattern_fill(&uniform, 3, 0, b, sizeof b);
    assert_memory_equal(a, b, sizeof a);
    pattern_fill(&uniform, 4, 0, b, sizeof b);
    assert_memory_not_equal(a, b, sizeof a);
    pattern_fill(&uniform, 3, 1, b, sizeof b);
    assert_memory_not_equal(a, b, sizeof a);
    struct pattern other = uniform;
    other.seed = 8;
    pattern_fill(&other, 3, 0, b, sizeof b);
    assert_memory_not_equal(a, b, sizeof a);
    /* Not a constant: an all-equal payload would hide misplaced bytes. */
    int distinct = 0;
    for (int i = 1; i < 64; i++)
        distinct += a[i] != a[0];
    assert_true(distinct > 50);
    /* A prefix of a longer fill is the shorter fill. */
    unsigned char c[13];
    pattern_fill(&uniform, 3, 0, c, sizeof c);
    assert_memory_equal(a, c, sizeof c);
}

static void test_payload_sizes(void **state)
{
    (void)state;
    assert_int_equal(payload_size(&uniform, 5, 9), 37);
    int zeros = 0, distinct = 0;
    size_t first = payload_size(&varied, 0, 0);
    for (long id = 0; id < 400; id++) {
        size_t n = payload_size(&varied, id, id / 7);
        assert_true(n <= 2 * varied.bytes);
        zeros += n == 0;
        distinct += n != first;
    }
    assert_true(zeros > 40 && zeros < 200); /* about one in four */
    assert_true(distinct > 200);
    int changes = 0; /* one box's size changes from repetition to repetition */
    for (long rep = 1; rep < 20; rep++)
        changes += payload_size(&varied, 11, rep) != payload_size(&varied, 11, rep - 1);
    assert_true(changes > 10);
}

static void test_correct_slots_pass(void **state)
{
    (void)state;
    /* the hand-worked ranks, spot-checked: on the 3x2x1 grid, (1,1,0) + (1,0,0)
     * is box (2,1,0), rank 5; (1,1,0) + (-2,1,0) wraps to (2,0,0), rank 4 */
    assert_int_equal(source_rank((const int[3]){1, 0, 0}), 5);
    assert_int_equal(source_rank((const int[3]){-2, 1, 0}), 4);
    const struct pattern *ps[] = {&uniform, &varied};
    for (int i = 0; i < 2; i++) {
        struct slots s;
        unsigned char *buf = build_slots(&s, ps[i], 3);
        struct verify_fault f;
        assert_int_equal(verify_slots(&s, ps[i], dims, me, 3, &f), 0);
        free(buf);
        slots_free(&s);
    }
}

static void test_flipped_byte_is_located(void **state)
{
    (void)state;
    struct slots s;
    unsigned char *buf = build_slots(&s, &uniform, 0);
    int i = slot_index(&s, -2, 1, 0);
    s.data[s.offset[i] + 5] ^= 0x01;
    struct verify_fault f;
    assert_int_equal(verify_slots(&s, &uniform, dims, me, 0, &f), 1);
    assert_false(f.size_wrong);
    assert_int_equal(f.d[0], -2);
    assert_int_equal(f.d[1], 1);
    assert_int_equal(f.d[2], 0);
    assert_int_equal(f.box[0], 2); /* (1 - 2) mod 3 */
    assert_int_equal(f.box[1], 0); /* (1 + 1) mod 2 */
    assert_int_equal(f.byte, 5);
    assert_int_equal(f.found, f.expected ^ 0x01);
    free(buf);
    slots_free(&s);
}

static void test_wrong_size_swapped_and_stale_are_caught(void **state)
{
    (void)state;
    struct slots s;
    unsigned char *buf = build_slots(&s, &uniform, 0);
    struct verify_fault f;
    s.size[4] -= 1;
    assert_int_equal(verify_slots(&s, &uniform, dims, me, 0, &f), 1);
    assert_true(f.size_wrong);
    assert_int_equal(f.expected_size, 37);
    assert_int_equal(f.found_size, 36);
    s.size[4] += 1;
    size_t t = s.offset[0];
    s.offset[0] = s.offset[1];
    s.offset[1] = t;
    assert_true(verify_slots(&s, &uniform, dims, me, 0, &f) > 0);
    s.offset[1] = s.offset[0];
    s.offset[0] = t;
    assert_int_equal(verify_slots(&s, &uniform, dims, me, 0, &f), 0);
    /* Data of the previous repetition is wrong data. */
    assert_true(verify_slots(&s, &uniform, dims, me, 1, &f) > 0);
    free(buf);
    slots_free(&s);
}

static void test_injected_fault_is_caught(void **state)
{
    (void)state;
    struct slots s;
    unsigned char *buf = build_slots(&s, &varied, 2);
    int at = inject_fault(&s);
    struct verify_fault f;
    assert_int_equal(verify_slots(&s, &varied, dims, me, 2, &f), 1);
    int d[3];
    slot_offset(&s, at, d);
    assert_memory_equal(f.d, d, sizeof d);
    free(buf);
    slots_free(&s);

    /* With no payload bytes anywhere the fault corrupts a size instead. */
    struct pattern empty = {.seed = 1, .bytes = 0, .varied = false};
    buf = build_slots(&s, &empty, 0);
    inject_fault(&s);
    assert_int_equal(verify_slots(&s, &empty, dims, me, 0, &f), 1);
    assert_true(f.size_wrong);
    free(buf);
    slots_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pattern_depends_on_box_rep_seed),
        cmocka_unit_test(test_payload_sizes),
        cmocka_unit_test(test_correct_slots_pass),
        cmocka_unit_test(test_flipped_byte_is_located),
        cmocka_unit_test(test_wrong_size_swapped_and_stale_are_caught),
        cmocka_unit_test(test_injected_fault_is_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
