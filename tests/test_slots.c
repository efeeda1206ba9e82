/* Slot indexing [dz+k][dy+k][dx+k] and the record format of varied sizes. */
#include "cmocka_prelude.h"
#include "../comm/slots.h"

#include <stdlib.h>
#include <string.h>

static void test_index_order(void **state)
{
    (void)state;
    struct slots s;
    slots_init(&s, (const int[3]){2, 1, 3});
    assert_int_equal(s.count, 5 * 3 * 7);
    assert_int_equal(slot_index(&s, -2, -1, -3), 0);
    assert_int_equal(slot_index(&s, 2, 1, 3), s.count - 1);
    assert_int_equal(slot_centre(&s), s.count / 2);
    /* dx fastest, then dy, then dz: rows and planes are contiguous. */
    assert_int_equal(slot_index(&s, -1, -1, -3) - slot_index(&s, -2, -1, -3), 1);
    assert_int_equal(slot_index(&s, -2, 0, -3) - slot_index(&s, -2, -1, -3), 5);
    assert_int_equal(slot_index(&s, -2, -1, -2) - slot_index(&s, -2, -1, -3), 15);
    for (int i = 0; i < s.count; i++) {
        int d[3];
        slot_offset(&s, i, d);
        assert_int_equal(slot_index(&s, d[0], d[1], d[2]), i);
    }
    slots_free(&s);
}

static void test_one_dimension(void **state)
{
    (void)state;
    struct slots s;
    slots_init(&s, (const int[3]){3, 0, 0});
    assert_int_equal(s.count, 7);
    assert_int_equal(slot_centre(&s), 3);
    assert_int_equal(slot_index(&s, -3, 0, 0), 0);
    slots_free(&s);
}

static void test_record_sizes(void **state)
{
    (void)state;
    assert_int_equal(record_bytes(0), 8);
    assert_int_equal(record_bytes(1), 16);
    assert_int_equal(record_bytes(8), 16);
    assert_int_equal(record_bytes(9), 24);
    unsigned char buf[24];
    memset(buf, 0xEE, sizeof buf);
    record_write(buf, (const unsigned char *)"abcdefghi", 9);
    assert_memory_equal(buf + 8, "abcdefghi", 9);
    for (int i = 17; i < 24; i++)
        assert_int_equal(buf[i], 0); /* padding is zero, never stale memory */
}

/* Records of sizes 0..count-1 index back to the same sizes and payloads. */
static void test_records_index(void **state)
{
    (void)state;
    struct slots s;
    slots_init(&s, (const int[3]){1, 1, 0});
    size_t len = 0;
    for (int i = 0; i < s.count; i++)
        len += record_bytes((size_t)i);
    unsigned char *buf = malloc(len);
    unsigned char payload[16];
    size_t at = 0;
    for (int i = 0; i < s.count; i++) {
        memset(payload, 'a' + i, sizeof payload);
        record_write(buf + at, payload, (size_t)i);
        at += record_bytes((size_t)i);
    }
    struct sb_msg m;
    assert_int_equal(slots_index_records(&s, buf, len, &m), SB_OK);
    for (int i = 0; i < s.count; i++) {
        assert_int_equal(s.size[i], i);
        if (i) assert_int_equal(s.data[s.offset[i]], 'a' + i);
        assert_int_equal(s.offset[i] % 8, 0);
    }
    /* A buffer cut short or with bytes left over is reported. */
    assert_int_equal(slots_index_records(&s, buf, len - 8, &m), SB_EVERIFY);
    assert_int_equal(slots_index_records(&s, buf, len + 0 - record_bytes(8), &m), SB_EVERIFY);
    unsigned char *longer = calloc(1, len + 8);
    memcpy(longer, buf, len);
    assert_int_equal(slots_index_records(&s, longer, len + 8, &m), SB_EVERIFY);
    assert_non_null(strstr(m.text, "follow"));
    free(longer);
    free(buf);
    slots_free(&s);
}

static void test_uniform_index(void **state)
{
    (void)state;
    struct slots s;
    slots_init(&s, (const int[3]){1, 1, 1});
    unsigned char buf[27 * 3];
    slots_index_uniform(&s, buf, 3);
    assert_int_equal(s.offset[26], 78);
    assert_int_equal(s.size[13], 3);
    slots_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_order),   cmocka_unit_test(test_one_dimension),
        cmocka_unit_test(test_record_sizes),  cmocka_unit_test(test_records_index),
        cmocka_unit_test(test_uniform_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
