/* What the CPU stencil backend's unit tests share: a field to start from,
 * and a bit-for-bit comparison of two backends' fields. */
#ifndef SB_TESTS_STENCIL_FIELDS_H
#define SB_TESTS_STENCIL_FIELDS_H

#include "cmocka_prelude.h"
#include "../gpu/backend.h"

#include <stdlib.h>
#include <string.h>

/* `in` filled with a pattern of the point index and `seed`. */
static void fill(struct stencil_backend *b, unsigned seed)
{
    size_t n = layout_points(&b->layout), bytes = n * (size_t)b->layout.real_bytes;
    unsigned char *f = malloc(bytes);
    for (size_t i = 0; i < n; i++) {
        double v = (double)(((i + seed) * 2654435761u) % 1009) / 97.0 - 5.0;
        if (b->layout.real_bytes == 4)
            ((float *)f)[i] = (float)v;
        else
            ((double *)f)[i] = v;
    }
    assert_int_equal(b->ops->upload(b, f), SB_OK);
    free(f);
}

/* Points of `rb` bytes where `bytes` at a and at b differ, bit for bit. */
static size_t differing_points(const void *a, const void *b, size_t bytes, int rb)
{
    const unsigned char *pa = a, *pb = b;
    size_t count = 0;
    for (size_t i = 0; i < bytes; i += (size_t)rb)
        count += memcmp(pa + i, pb + i, (size_t)rb) != 0;
    return count;
}

/* Points where the two backends' fields differ, `in` and `out` both. */
static size_t differing(struct stencil_backend *a, struct stencil_backend *b)
{
    size_t bytes = layout_points(&a->layout) * (size_t)a->layout.real_bytes, count = 0;
    unsigned char *fa = malloc(bytes), *fb = malloc(bytes);
    for (int side = 0; side < 2; side++) {
        a->ops->download(a, fa);
        b->ops->download(b, fb);
        count += differing_points(fa, fb, bytes, a->layout.real_bytes);
        a->ops->swap(a);
        b->ops->swap(b);
    }
    free(fa);
    free(fb);
    return count;
}

#endif
