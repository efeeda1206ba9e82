/* The caches a rank may count on (src/cpu_cache.c): sysfs's CPU lists
 * counted, and the share of a last level split among the CPUs that share
 * it. */
#include "cmocka_prelude.h"
#include "../src/cpu_cache.h"

static void test_cpu_lists(void **state)
{
    (void)state;
    assert_int_equal(cpu_list_count("0"), 1);
    assert_int_equal(cpu_list_count("0-1\n"), 2);
    assert_int_equal(cpu_list_count("0-3,8,10-11\n"), 7);
    assert_int_equal(cpu_list_count("4,6"), 2);
    /* unreadable or empty: counted as one CPU, never zero */
    assert_int_equal(cpu_list_count(""), 1);
    assert_int_equal(cpu_list_count("x"), 1);
    assert_int_equal(cpu_list_count("3-1"), 1);
}

static void test_per_rank(void **state)
{
    (void)state;
    /* the EPYC VM: 512 KiB of L2, 32 MiB of L3 shared by 2 CPUs */
    struct cpu_caches c = {
        .line = 64, .l2 = 512 << 10, .llc = 32 << 20, .llc_level = 3, .llc_sharing = 2};
    assert_int_equal(cpu_cache_per_rank(&c), (512 << 10) + (16 << 20));
    /* the same L3 from sysconf (level -3, CPUID: maybe the host's): the L2 only */
    c.llc_level = -3;
    c.llc_sharing = 1;
    c.llc = 256 << 20;
    assert_int_equal(cpu_cache_per_rank(&c), 512 << 10);
    /* the L2 is the last level: not counted twice, and a shared one split */
    struct cpu_caches two = {
        .line = 64, .l2 = 4 << 20, .llc = 4 << 20, .llc_level = 2, .llc_sharing = 1};
    assert_int_equal(cpu_cache_per_rank(&two), 4 << 20);
    two.llc_sharing = 4;
    assert_int_equal(cpu_cache_per_rank(&two), 1 << 20);
    /* nothing known */
    struct cpu_caches none = {.llc_sharing = 1};
    assert_int_equal(cpu_cache_per_rank(&none), 0);
}

/* What this machine reports is sane: a last level at least as large as
 * its L2, shared by one CPU or more, and a rank's cache no larger than the
 * L2 and the whole last level. */
static void test_this_machine(void **state)
{
    (void)state;
    struct cpu_caches c;
    cpu_caches_read(&c);
    assert_true(c.llc_sharing >= 1);
    assert_true(c.llc >= c.l2 || c.llc == 0);
    assert_true(cpu_cache_per_rank(&c) <= c.l2 + c.llc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_lists),
        cmocka_unit_test(test_per_rank),
        cmocka_unit_test(test_this_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
