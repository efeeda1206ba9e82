/* Statistics of seed 002 sec. 3.4 on data whose answers are known. */
#include "cmocka_prelude.h"
#include "../src/stats.h"

#include <math.h>

static void test_known_values(void **state)
{
    (void)state;
    const double x[] = {4, 100, 1, 3, 2};
    struct stats s;
    stats_compute(x, 5, &s);
    assert_int_equal(s.n, 5);
    assert_float_equal(s.min, 1, 0);
    assert_float_equal(s.max, 100, 0);
    assert_float_equal(s.median, 3, 0);
    assert_float_equal(s.mean, 22, 1e-12);
    assert_float_equal(s.variance, 1902.5, 1e-9); /* sum of squares 7610 over n - 1 */
    assert_float_equal(s.stddev, sqrt(1902.5), 1e-12);
    assert_float_equal(s.cv, sqrt(1902.5) / 22, 1e-12);
    assert_float_equal(s.std_error, sqrt(1902.5) / sqrt(5), 1e-12);
    assert_float_equal(s.rse, s.std_error / 22, 1e-12);
    assert_float_equal(x[1], 100, 0); /* the input is not reordered */
}

static void test_filter_drops_outliers(void **state)
{
    (void)state;
    const double x[] = {4, 100, 1, 3, 2, 6, 6.5};
    double kept[7];
    size_t n = stats_filter(x, 7, 2.0, 3.0, kept);
    assert_int_equal(n, 5); /* 100 and 6.5 exceed 2 x median */
    for (size_t i = 0; i < n; i++)
        assert_true(kept[i] <= 6.0);
}

static void test_even_count_and_small_samples(void **state)
{
    (void)state;
    struct stats s;
    stats_compute((const double[]){1, 2, 3, 10}, 4, &s);
    assert_float_equal(s.median, 2.5, 0);
    stats_compute((const double[]){7}, 1, &s);
    assert_float_equal(s.variance, 0, 0);
    assert_float_equal(s.median, 7, 0);
    stats_compute(NULL, 0, &s);
    assert_int_equal(s.n, 0);
    assert_float_equal(s.mean, 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_filter_drops_outliers),
        cmocka_unit_test(test_even_count_and_small_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
