/* Seed 003's supersteps and cost functions (src/smp/): the suites' counts
 * and bounds, the fit recovering known coefficients from synthetic data,
 * ShiftBox's copy patterns staying inside their regions, the copy model. */
#include "cmocka_prelude.h"
#include "../src/smp/apps.h"
#include "../src/smp/copymodel.h"
#include "../src/smp/fit.h"
#include "../src/smp/locality.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long max_of(const long *v, int n)
{
    long m = 0;
    for (int i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

static long sum_of(const long *v, int n)
{
    long t = 0;
    for (int i = 0; i < n; i++)
        t += v[i];
    return t;
}

static void test_suite1(void **state)
{
    (void)state;
    struct superstep s;
    superstep_suite1(LIKE_GATHER, 4, 2, 1000, &s);
    long hr[4] = {1000, 1000, 0, 0}, hw[4] = {500, 500, 500, 500};
    assert_memory_equal(s.hr, hr, sizeof hr);
    assert_memory_equal(s.hw, hw, sizeof hw);
    superstep_suite1(LIKE_SCATTER, 4, 2, 1000, &s);
    assert_memory_equal(s.hr, hw, sizeof hw);
    assert_memory_equal(s.hw, hr, sizeof hr);
    superstep_suite1(VARY, 4, 3, 10, &s);
    assert_int_equal(s.hr[2], 10);
    assert_int_equal(s.hw[3], 0);
    struct smp_features f = smp_features_of(&s, 4);
    assert_true(f.hr == 10 && f.hw == 10 && f.h == 10 && f.M == 60);
    assert_true(f.hrc == 4 && f.hrm == 6); /* split at the cache */
    /* x = 1..p-1 times three kinds, then x = p once, per h */
    assert_int_equal(suite_size(4, 5), 5 * (3 * 3 + 1));
    assert_int_equal(suite_size(1, 2), 2);
}

static void test_suites_2_and_3_bounds(void **state)
{
    (void)state;
    long hs[3] = {100, 1000, 5000};
    int p = 5, n = suite_size(p, 3);
    struct superstep *one = malloc((size_t)n * sizeof *one);
    struct superstep *two = malloc((size_t)n * sizeof *two);
    struct superstep *three = malloc((size_t)n * sizeof *three);
    assert_int_equal(suite_build(1, p, hs, 3, 5000, 7, one, n), n);
    assert_int_equal(suite_build(2, p, hs, 3, 5000, 7, two, n), n);
    assert_int_equal(suite_build(3, p, hs, 3, 5000, 7, three, n), n);
    bool some_differ = false;
    for (int i = 0; i < n; i++) {
        /* suite 2: same maxima as suite 1, reached by some worker */
        assert_int_equal(max_of(two[i].hr, p), max_of(one[i].hr, p));
        assert_int_equal(max_of(two[i].hw, p), max_of(one[i].hw, p));
        /* suite 3: same totals, none above the cap */
        assert_int_equal(sum_of(three[i].hr, p), sum_of(one[i].hr, p));
        assert_int_equal(sum_of(three[i].hw, p), sum_of(one[i].hw, p));
        assert_true(max_of(three[i].hr, p) <= 5000 && max_of(three[i].hw, p) <= 5000);
        some_differ = some_differ || memcmp(two[i].hr, one[i].hr, sizeof one[i].hr);
    }
    assert_true(some_differ); /* random, not a copy of suite 1 */
    free(one);
    free(two);
    free(three);
}

static void test_h_values(void **state)
{
    (void)state;
    long hs[30];
    /* at seed 003's L2 of 2^19 integers and 10 per set: its own H */
    assert_int_equal(smp_h_values(524288, 10, hs), 30);
    assert_int_equal(hs[0], 5000);
    assert_int_equal(hs[9], 50000);
    assert_int_equal(hs[19], 500000);
    assert_int_equal(hs[20], 550000);
    assert_int_equal(hs[29], 1900000);
    assert_int_equal(smp_h_values(1048576, 2, hs), 6); /* twice the cache, twice the h */
    assert_int_equal(hs[1], 100000);
}

/* Synthetic times from known coefficients: every function recovers them. */
static void test_fit_recovers_coefficients(void **state)
{
    (void)state;
    enum { N = 60 };
    struct smp_features f[N];
    double t[N];
    uint64_t rng = 42;
    for (int fn = 0; fn < NFUNCTIONS; fn++) {
        double truth[SMP_MAX_TERMS] = {2e-6, 3e-10, 5e-10, 1e-10, 7e-10, 2e-11}, row[6], got[6];
        for (int i = 0; i < N; i++) {
            double hr = 1000 + (double)smp_below(&rng, 5000000);
            double hw = 1000 + (double)smp_below(&rng, 5000000);
            f[i] = smp_features_counts(hr, hw, hr + hw + (double)smp_below(&rng, 9000000), 2000000);
            int m = smp_terms((enum smp_function)fn, &f[i], row);
            t[i] = 0;
            for (int j = 0; j < m; j++)
                t[i] += truth[j] * row[j];
        }
        for (int relative = 0; relative <= 1; relative++) { /* both recover exact data */
            assert_int_equal(smp_fit((enum smp_function)fn, f, t, N, relative, got), 0);
            int m = smp_terms((enum smp_function)fn, &f[0], row);
            for (int j = 0; j < m; j++)
                assert_true(fabs(got[j] - truth[j]) <= 1e-6 * fabs(truth[j]));
            double avg, max;
            smp_errors((enum smp_function)fn, got, f, t, N, &avg, &max);
            assert_true(max < 1e-9);
        }
    }
    /* too few points for the terms */
    double coef[6];
    assert_int_equal(smp_fit(FN_HRHWMC, f, t, 3, false, coef), -1);
    /* a term that is zero everywhere (nothing beyond the cache): fitted as 0 */
    for (int i = 0; i < N; i++) {
        f[i] = smp_features_counts(f[i].hr, f[i].hw, f[i].M, 1L << 40);
        t[i] = 1e-6 + 4e-10 * f[i].hrc + 2e-10 * f[i].hwc;
    }
    assert_int_equal(smp_fit(FN_HRHWMC, f, t, N, false, coef), 0);
    assert_true(coef[2] == 0 && coef[4] == 0);
    assert_true(fabs(coef[1] - 4e-10) < 1e-15);
    /* one worker: hr = hw = h and M = 2h, so reads, writes and M cannot be
     * told apart: every function is fitted, the first access term of each
     * group carrying the group's sum, and predicts such supersteps exactly */
    const double L = 3e-6, g_hrc = 4e-10, g_hwc = 3e-10, g_M = 1e-10;
    for (int i = 0; i < N; i++) {
        double h = 1000.0 + 997.0 * i * i; /* both sides of the split */
        f[i] = smp_features_counts(h, h, 2 * h, 2000000);
        t[i] = L + g_hrc * f[i].hrc + g_hwc * f[i].hwc + g_M * f[i].M;
    }
    for (int fn = 0; fn < NFUNCTIONS; fn++) {
        assert_int_equal(smp_fit((enum smp_function)fn, f, t, N, true, coef), 0);
        double avg, max;
        smp_errors((enum smp_function)fn, coef, f, t, N, &avg, &max);
        assert_true(avg < 0.2);
    }
    assert_int_equal(smp_fit(FN_HRHWMC, f, t, N, true, coef), 0);
    assert_true(fabs(coef[0] - L) < 1e-15);
    assert_true(fabs(coef[1] - (g_hrc + g_hwc + 2 * g_M)) < 1e-18); /* M = 2 (hrc + hrm) */
    assert_true(fabs(coef[2] - 2 * g_M) < 1e-18);
    assert_true(coef[3] == 0 && coef[4] == 0 && coef[5] == 0);
    double predicted_avg, predicted_max;
    smp_errors(FN_HRHWMC, coef, f, t, N, &predicted_avg, &predicted_max);
    assert_true(predicted_max < 1e-9);
    /* every h beyond the split: hrc is the split at every point, which
     * only the constant could carry; the fit refuses instead of folding a
     * copy's cost into L */
    for (int i = 0; i < N; i++) {
        double h = 3e6 + 997.0 * i * i;
        f[i] = smp_features_counts(h, h, 2 * h, 2000000);
        t[i] = L + g_hrc * f[i].hrc + g_hwc * f[i].hwc + g_M * f[i].M;
    }
    assert_int_equal(smp_fit(FN_HRHWMC, f, t, N, true, coef), -1);
    assert_int_equal(smp_fit(FN_HRHWM, f, t, N, true, coef), 0); /* no split: fitted */
}

static void test_patterns_stay_inside(void **state)
{
    (void)state;
    const long region = 1 << 16;
    const int p = 3;
    for (int pat = 0; pat < NPATTERNS; pat++) {
        long n = smp_pattern_count((enum smp_pattern)pat, region, 1 << 20);
        assert_true(n > 0 && n <= region / 2);
        size_t *r = malloc((size_t)n * sizeof *r), *w = malloc((size_t)n * sizeof *w);
        char *seen = calloc((size_t)(p * region), 1);
        for (int i = 0; i < p; i++) {
            smp_pattern_indices((enum smp_pattern)pat, i, p, region, n, r, w);
            for (long k = 0; k < n; k++) {
                assert_true(r[k] < (size_t)(p * region));
                /* writes land in the worker's own second half, never twice */
                assert_true(w[k] >= (size_t)(i * region + region / 2));
                assert_true(w[k] < (size_t)((i + 1) * region));
                assert_int_equal(seen[w[k]]++, 0);
            }
            if (pat == PAT_SHIFT_SLOTS) assert_true(r[0] == (size_t)(((i + 1) % p) * region));
            if (pat == PAT_STENCIL_PACK) assert_true(r[4] - r[0] == 1024);
        }
        free(r);
        free(w);
        free(seen);
    }
}

static void test_copy_model(void **state)
{
    (void)state;
    char path[64]; /* one file per test process */
    snprintf(path, sizeof path, "/tmp/shiftbox-smp-%ld.json", (long)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"smpcost\": {\"workers\": 2, \"good\": {\"best\": \"HrHw\", \"functions\": ["
               "{\"function\": \"H\", \"coefficients_s\": {\"L\": 1, \"g_h\": 1}},"
               "{\"function\": \"HrHw\", \"coefficients_s\": {\"L\": 1e-6, \"g_hr\": 1e-9, "
               "\"g_hw\": 2e-9}}]}}}");
    fclose(f);
    struct smp_copy c;
    struct sb_msg m;
    assert_int_equal(smp_copy_load(&c, path, &m), SB_OK);
    assert_int_equal(c.function, FN_HRHW);
    /* 800 bytes: 200 integers read and written, L left out: 600 ns */
    assert_true(fabs(smp_copy_time(&c, 800) - 600e-9) < 1e-15);
    assert_true(smp_copy_time(&c, 0) == 0);
    /* smp.fit = paper: R0's coefficients up to r0_max_h integers, R1's beyond */
    f = fopen(path, "w");
    fprintf(f, "{\"smpcost\": {\"workers\": 2, \"good\": {\"best\": \"HrHw\", \"functions\": ["
               "{\"function\": \"HrHw\", \"coefficients_s\": {\"L\": 1e-6, \"g_hr\": 1e-9, "
               "\"g_hw\": 2e-9}, \"r0_max_h\": 1000, \"r1_coefficients_s\": {\"L\": 5e-6, "
               "\"g_hr\": 4e-9, \"g_hw\": 4e-9}}]}}}");
    fclose(f);
    assert_int_equal(smp_copy_load(&c, path, &m), SB_OK);
    assert_true(fabs(smp_copy_time(&c, 4000) - 3000e-9) < 1e-15); /* 1000 integers: R0 */
    assert_true(fabs(smp_copy_time(&c, 4004) - 8008e-9) < 1e-15); /* 1001: R1 */
    f = fopen(path, "w"); /* R1 without its boundary: refused */
    fprintf(f, "{\"smpcost\": {\"workers\": 2, \"good\": {\"best\": \"HrHw\", \"functions\": ["
               "{\"function\": \"HrHw\", \"coefficients_s\": {\"L\": 1e-6, \"g_hr\": 1e-9, "
               "\"g_hw\": 2e-9}, \"r1_coefficients_s\": {\"L\": 5e-6, \"g_hr\": 4e-9, "
               "\"g_hw\": 4e-9}}]}}}");
    fclose(f);
    assert_int_equal(smp_copy_load(&c, path, &m), SB_EUSAGE);
    assert_non_null(strstr(m.text, "r0_max_h"));
    f = fopen(path, "w");
    fprintf(f, "{\"smpcost\": {\"workers\": 2}}");
    fclose(f);
    assert_int_equal(smp_copy_load(&c, path, &m), SB_EUSAGE);
    assert_non_null(strstr(m.text, "model.smp"));
    remove(path);
    assert_int_equal(smp_copy_load(&c, path, &m), SB_EUSAGE);
}

/* An application's supersteps run in BSP order without MPI: every worker's
 * copy-in, then every worker's computation and copy-out. */
static void run_app(enum smp_app_kind kind, long n, int p, uint64_t seed, unsigned *global)
{
    struct smp_app a[8];
    unsigned *local[8];
    size_t nread[8];
    for (int w = 0; w < p; w++) {
        assert_true(smp_app_init(&a[w], kind, n, w, p, seed, global));
        local[w] = calloc(smp_app_local_ints(kind, n, p), sizeof(unsigned));
    }
    for (int step = 0; step < smp_app_steps(&a[0]); step++) {
        for (int w = 0; w < p; w++) {
            const size_t *idx;
            nread[w] = smp_app_reads(&a[w], &idx);
            assert_true(nread[w] <= smp_app_local_ints(kind, n, p));
            for (size_t k = 0; k < nread[w]; k++)
                local[w][k] = global[idx[k]];
        }
        for (int w = 0; w < p; w++) {
            const size_t *idx;
            size_t nw = smp_app_compute(&a[w], local[w], &idx);
            for (size_t k = 0; k < nw; k++) {
                assert_true(idx[k] < smp_app_global_ints(kind, n, p));
                global[idx[k]] = local[w][k];
            }
        }
    }
    for (int w = 0; w < p; w++) {
        smp_app_free(&a[w]);
        free(local[w]);
    }
}

static void test_sorts(void **state)
{
    (void)state;
    const long ns[] = {1, 7, 64, 1000, 4097};
    for (int kind = 0; kind < NAPPS; kind++)
        for (int p = 1; p <= 5; p++)
            for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
                long n = smp_app_fit_n((enum smp_app_kind)kind, ns[i] < p ? p : ns[i], p);
                unsigned *global = calloc(smp_app_global_ints(kind, n, p), sizeof(unsigned));
                run_app((enum smp_app_kind)kind, n, p, 42 + (uint64_t)i, global);
                struct smp_app any = {.kind = (enum smp_app_kind)kind, .n = n, .p = p};
                unsigned *keys = global + smp_app_result(&any);
                assert_true(smp_app_sorted(keys, n, 42 + (uint64_t)i, p));
                if (n > 2) { /* the check can fail: two keys swapped, one key changed */
                    unsigned t = keys[0];
                    keys[0] = keys[n - 1];
                    keys[n - 1] = t;
                    assert_false(smp_app_sorted(keys, n, 42 + (uint64_t)i, p));
                    keys[n - 1] = keys[0];
                    keys[0] = t;
                    keys[n / 2] ^= 1u;
                    assert_false(smp_app_sorted(keys, n, 42 + (uint64_t)i, p));
                }
                free(global);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suite1),
        cmocka_unit_test(test_suites_2_and_3_bounds),
        cmocka_unit_test(test_h_values),
        cmocka_unit_test(test_fit_recovers_coefficients),
        cmocka_unit_test(test_patterns_stay_inside),
        cmocka_unit_test(test_copy_model),
        cmocka_unit_test(test_sorts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
