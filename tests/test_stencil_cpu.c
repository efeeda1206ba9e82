/* The CPU stencil backend (gpu/backend_cpu.c), the reference the CUDA
 * backend is held to: packing any box and back, one sweep against the
 * formula written out, the interior sweep on its helper thread. */
#include "cmocka_prelude.h"
#include "../gpu/backend.h"

#include <stdlib.h>
#include <string.h>

enum { NX = 9, NY = 7, NZ = 5 };

static void setup_backend(struct stencil_backend *b, int dim, int real_bytes)
{
    struct stencil_layout l = {.dim = dim,
                               .ext = {NX, NY, dim == 3 ? NZ : 1},
                               .real_bytes = real_bytes,
                               .threads = 1,
                               .weights = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}};
    struct sb_msg m;
    b->ops = &stencil_backend_cpu;
    assert_int_equal(b->ops->init(b, &l, &m), SB_OK);
}

static void fill_double(double *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        f[i] = (double)((i * 37) % 101) / 7.0;
}

static void test_pack_round_trip(void **state)
{
    (void)state;
    struct stencil_backend b;
    setup_backend(&b, 3, 8);
    size_t n = (size_t)NX * NY * NZ;
    double *field = malloc(n * sizeof *field), *back = calloc(n, sizeof *back);
    fill_double(field, n);
    assert_int_equal(b.ops->upload(&b, field), SB_OK);
    struct sbox box = {{2, 1, 3}, {6, 4, 5}};
    double buf[4 * 3 * 2];
    void *bufs[1] = {buf};
    double t;
    assert_int_equal(b.ops->pack(&b, 1, &box, bufs, &t), SB_OK);
    /* x fastest: the first row is field[z=3][y=1][x=2..5] */
    size_t at = ((size_t)3 * NY + 1) * NX + 2;
    assert_memory_equal(buf, field + at, 4 * sizeof(double));
    assert_true(buf[23] == field[((size_t)4 * NY + 3) * NX + 5]);
    /* unpack into a zero field: exactly the box comes back */
    double *zero = calloc(n, sizeof *zero);
    assert_int_equal(b.ops->upload(&b, zero), SB_OK);
    assert_int_equal(b.ops->unpack(&b, 1, &box, bufs, &t), SB_OK);
    assert_int_equal(b.ops->download(&b, back), SB_OK);
    for (int z = 0; z < NZ; z++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++) {
                size_t i = ((size_t)z * NY + y) * NX + x;
                bool inside = x >= 2 && x < 6 && y >= 1 && y < 4 && z >= 3 && z < 5;
                assert_true(back[i] == (inside ? field[i] : 0.0));
            }
    b.ops->destroy(&b);
    free(field);
    free(back);
    free(zero);
}

/* One sweep of the 3D float stencil against Listing 2's order written out. */
static void test_sweep_formula(void **state)
{
    (void)state;
    struct stencil_backend b;
    setup_backend(&b, 3, 4);
    size_t n = (size_t)NX * NY * NZ;
    float *field = malloc(n * sizeof *field), *out = malloc(n * sizeof *out);
    for (size_t i = 0; i < n; i++)
        field[i] = (float)((i * 53) % 97) / 13.0f;
    assert_int_equal(b.ops->upload(&b, field), SB_OK);
    struct sbox inner = {{1, 1, 1}, {NX - 1, NY - 1, NZ - 1}};
    double t;
    assert_int_equal(b.ops->sweep(&b, 1, &inner, &t), SB_OK);
    b.ops->swap(&b);
    assert_int_equal(b.ops->download(&b, out), SB_OK);
    const float w[7] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f};
    const long sy = NX, sz = NX * NY;
    for (int z = 1; z < NZ - 1; z++)
        for (int y = 1; y < NY - 1; y++)
            for (int x = 1; x < NX - 1; x++) {
                long i = z * sz + y * sy + x;
                float sum = 0;
                sum += field[i - sz] * w[0];
                sum += field[i - sy] * w[1];
                sum += field[i - 1] * w[2];
                sum += field[i] * w[3];
                sum += field[i + 1] * w[4];
                sum += field[i + sy] * w[5];
                sum += field[i + sz] * w[6];
                assert_memory_equal(&out[i], &sum, sizeof sum);
            }
    assert_true(out[0] == 0.0f); /* outside the box: untouched (zero) */
    b.ops->destroy(&b);
    free(field);
    free(out);
}

/* The helper-thread sweep computes what the plain sweep does. */
static void test_sweep_start_matches(void **state)
{
    (void)state;
    struct stencil_backend a, b;
    setup_backend(&a, 2, 8);
    setup_backend(&b, 2, 8);
    size_t n = (size_t)NX * NY;
    double *field = malloc(n * sizeof *field), *ra = malloc(n * 8), *rb = malloc(n * 8);
    fill_double(field, n);
    a.ops->upload(&a, field);
    b.ops->upload(&b, field);
    struct sbox box = {{1, 1, 0}, {NX - 1, NY - 1, 1}};
    double t;
    assert_int_equal(a.ops->sweep(&a, 1, &box, &t), SB_OK);
    assert_int_equal(b.ops->sweep_start(&b, &box), SB_OK);
    assert_int_equal(b.ops->sweep_wait(&b, &t), SB_OK);
    a.ops->swap(&a);
    b.ops->swap(&b);
    a.ops->download(&a, ra);
    b.ops->download(&b, rb);
    assert_memory_equal(ra, rb, n * 8);
    a.ops->destroy(&a);
    b.ops->destroy(&b);
    free(field);
    free(ra);
    free(rb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_round_trip),
        cmocka_unit_test(test_sweep_formula),
        cmocka_unit_test(test_sweep_start_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
