/* The checkpoint's row digests (src/checkpoint/row_digest.c): the
 * vectorised rows of 1 and 3 words give the word-by-word loop's sums at
 * every row count and first row, and the digest sees one flipped bit, two
 * rows that trade places, and a shifted first row. */
#include "cmocka_prelude.h"
#include "../src/checkpoint/row_digest.h"

#include <string.h>

enum { ROWS = 67, WORDS_MAX = 4 };

static uint64_t table[ROWS * WORDS_MAX];

static void fill(void)
{
    uint64_t s = 12345;
    for (int i = 0; i < ROWS * WORDS_MAX; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        table[i] = s ^ (s >> 29);
    }
}

static void test_vectorised_equals_word_by_word(void **state)
{
    (void)state;
    fill();
    for (size_t words = 1; words <= WORDS_MAX; words++)
        for (uint64_t count = 0; count <= 33; count++)
            for (uint64_t first = 0; first < 1000000007ULL; first = first * 7 + 1)
                assert_true(row_digest(table, first, count, words) ==
                            row_digest_any(table, first, count, words));
    /* the ranks' sums add up to one rank's digest of all rows */
    for (size_t words = 1; words <= 3; words += 2) {
        uint64_t parts = row_digest(table, 0, 20, words) +
                         row_digest(table + 20 * words, 20, ROWS - 20, words);
        assert_true(parts == row_digest(table, 0, ROWS, words));
    }
}

static void test_changes_are_seen(void **state)
{
    (void)state;
    fill();
    for (size_t words = 1; words <= 3; words += 2) {
        const uint64_t good = row_digest(table, 0, ROWS, words);
        table[5 * words + words - 1] ^= 1ULL << 40; /* one bit of row 5's last word */
        assert_true(row_digest(table, 0, ROWS, words) != good);
        fill();
        uint64_t row[3];
        memcpy(row, table + 2 * words, words * sizeof *row); /* rows 2 and 9 trade places */
        memcpy(table + 2 * words, table + 9 * words, words * sizeof *row);
        memcpy(table + 9 * words, row, words * sizeof *row);
        assert_true(row_digest(table, 0, ROWS, words) != good);
        fill();
        assert_true(row_digest(table, 1, ROWS, words) != good); /* rows numbered from 1 */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectorised_equals_word_by_word),
        cmocka_unit_test(test_changes_are_seen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
