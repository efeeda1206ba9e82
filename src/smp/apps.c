#include "apps.h"
#include "pattern.h"

#include <stdlib.h>
#include <string.h>

const char *const smp_app_names[NAPPS] = {"radix"};

/* ---- radix sort ------------------------------------------------------------------ */

enum { RADIX_BITS = 6, DIGITS = 1 << RADIX_BITS, PASSES = (32 + RADIX_BITS - 1) / RADIX_BITS };
enum { ROW_COUNT, ROW_PREFIX, ROW_OFFSETS, ROW_MOVE, RADIX_ROWS };

static const char *const radix_names[RADIX_ROWS] = {"count elts", "prefix sum", "add offsets",
                                                    "move elts"};
static const char *const radix_counts[RADIX_ROWS] = {"n/p, 64, n + 64p", "64, 64 + 64/p, 128p + 64",
                                                     "128, 64, 192p", "n/p + 64, n/p, 2n + 64p"};

/* Where things lie in the shared array: the two key arrays, every worker's
 * 64 counts, every worker's 64 prefixes (then offsets), the 64 totals. */
static size_t keys_a(const struct smp_app *a)
{
    (void)a;
    return 0;
}
static size_t keys_b(const struct smp_app *a)
{
    return (size_t)a->n;
}
static size_t counts_at(const struct smp_app *a, int q, int d)
{
    return 2 * (size_t)a->n + (size_t)q * DIGITS + (size_t)d;
}
static size_t prefix_at(const struct smp_app *a, int q, int d)
{
    return 2 * (size_t)a->n + (size_t)(a->p + q) * DIGITS + (size_t)d;
}
static size_t total_at(const struct smp_app *a, int d)
{
    return 2 * (size_t)a->n + 2 * (size_t)a->p * DIGITS + (size_t)d;
}

/* The keys a pass reads from, the digits this worker combines in the
 * prefix sum, a key's digit in pass `pass`. */
static size_t pass_source(const struct smp_app *a, int pass)
{
    return pass % 2 ? keys_b(a) : keys_a(a);
}
static void my_digits(const struct smp_app *a, int *lo, int *hi)
{
    *lo = a->w * DIGITS / a->p;
    *hi = (a->w + 1) * DIGITS / a->p;
}
static int digit(unsigned key, int pass)
{
    return (int)((key >> (RADIX_BITS * pass)) & (DIGITS - 1));
}

/* ---- the interface ---------------------------------------------------------------- */

int smp_app_kinds(enum smp_app_kind kind)
{
    (void)kind;
    return RADIX_ROWS;
}

const char *smp_app_kind_name(enum smp_app_kind kind, int row)
{
    (void)kind;
    return radix_names[row];
}

const char *smp_app_kind_counts(enum smp_app_kind kind, int row)
{
    (void)kind;
    return radix_counts[row];
}

size_t smp_app_global_ints(enum smp_app_kind kind, long n, int p)
{
    (void)kind;
    return 2 * (size_t)n + 2 * (size_t)p * DIGITS + DIGITS;
}

size_t smp_app_local_ints(enum smp_app_kind kind, long n, int p)
{
    (void)kind;
    size_t share = (size_t)(n / p + 1) + DIGITS, combine = (size_t)DIGITS * (size_t)(p + 1);
    return share > combine ? share : combine;
}

/* The key at global position i of the input: the same whatever p. */
static unsigned input_key(uint64_t seed, long i)
{
    uint64_t s = seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1));
    return (unsigned)(smp_next(&s) >> 32);
}

bool smp_app_init(struct smp_app *a, enum smp_app_kind kind, long n, int w, int p, uint64_t seed,
                  unsigned *global)
{
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->n = n;
    a->w = w;
    a->p = p;
    a->first = n * w / p;
    a->count = n * (w + 1) / p - a->first;
    a->cap = smp_app_local_ints(kind, n, p) + 2 * DIGITS;
    a->idx = malloc(a->cap * sizeof *a->idx);
    if (!a->idx) return false;
    for (long i = a->first; i < a->first + a->count; i++)
        global[keys_a(a) + (size_t)i] = input_key(seed, i);
    return true;
}

void smp_app_free(struct smp_app *a)
{
    free(a->idx);
    a->idx = NULL;
}

int smp_app_steps(const struct smp_app *a)
{
    (void)a;
    return PASSES * RADIX_ROWS;
}

int smp_app_row(const struct smp_app *a)
{
    return a->step % RADIX_ROWS;
}

size_t smp_app_reads(struct smp_app *a, const size_t **idx)
{
    int pass = a->step / RADIX_ROWS, lo, hi;
    size_t n = 0, src = pass_source(a, pass);
    *idx = a->idx;
    switch (smp_app_row(a)) {
    case ROW_COUNT:
        for (long i = 0; i < a->count; i++)
            a->idx[n++] = src + (size_t)(a->first + i);
        break;
    case ROW_PREFIX: /* digit by digit, every worker's count of it */
        my_digits(a, &lo, &hi);
        for (int d = lo; d < hi; d++)
            for (int q = 0; q < a->p; q++)
                a->idx[n++] = counts_at(a, q, d);
        break;
    case ROW_OFFSETS:
        for (int d = 0; d < DIGITS; d++)
            a->idx[n++] = total_at(a, d);
        for (int d = 0; d < DIGITS; d++)
            a->idx[n++] = prefix_at(a, a->w, d);
        break;
    default: /* ROW_MOVE: the keys, then the offsets */
        for (long i = 0; i < a->count; i++)
            a->idx[n++] = src + (size_t)(a->first + i);
        for (int d = 0; d < DIGITS; d++)
            a->idx[n++] = prefix_at(a, a->w, d);
        break;
    }
    return n;
}

size_t smp_app_compute(struct smp_app *a, unsigned *local, const size_t **idx)
{
    int pass = a->step / RADIX_ROWS, row = smp_app_row(a), lo, hi;
    size_t n = 0, dst = pass_source(a, pass + 1);
    unsigned counts[DIGITS] = {0}, base = 0;
    *idx = a->idx;
    switch (row) {
    case ROW_COUNT:
        for (long i = 0; i < a->count; i++)
            counts[digit(local[i], pass)]++;
        for (int d = 0; d < DIGITS; d++) {
            local[n] = counts[d];
            a->idx[n++] = counts_at(a, a->w, d);
        }
        break;
    case ROW_PREFIX: { /* in place: each digit's p counts become its p prefixes, totals after */
        my_digits(a, &lo, &hi);
        size_t ndig = (size_t)(hi - lo);
        for (size_t j = 0; j < ndig; j++) {
            unsigned before = 0;
            for (int q = 0; q < a->p; q++) {
                unsigned c = local[j * (size_t)a->p + (size_t)q];
                local[j * (size_t)a->p + (size_t)q] = before;
                a->idx[j * (size_t)a->p + (size_t)q] = prefix_at(a, q, lo + (int)j);
                before += c;
            }
            counts[j] = before;
        }
        n = ndig * (size_t)a->p;
        for (size_t j = 0; j < ndig; j++) {
            local[n] = counts[j];
            a->idx[n++] = total_at(a, lo + (int)j);
        }
        break;
    }
    case ROW_OFFSETS: /* totals in local[0, 64), this worker's prefixes after them */
        for (int d = 0; d < DIGITS; d++) {
            unsigned total = local[d];
            local[d] = base + local[DIGITS + d];
            a->idx[n++] = prefix_at(a, a->w, d);
            base += total;
        }
        break;
    default: { /* ROW_MOVE: each key to its offset, in order (stable) */
        unsigned *offset = local + a->count;
        for (long i = 0; i < a->count; i++) {
            int d = digit(local[i], pass);
            a->idx[n++] = dst + offset[d]++;
        }
        break;
    }
    }
    a->step++;
    return n;
}

size_t smp_app_result(const struct smp_app *a)
{
    return pass_source(a, PASSES);
}

bool smp_app_sorted(const unsigned *keys, long n, uint64_t seed, int p)
{
    (void)p;
    uint64_t sum = 0, hashes = 0, want_sum = 0, want_hashes = 0;
    for (long i = 0; i < n; i++) {
        if (i > 0 && keys[i] < keys[i - 1]) return false;
        uint64_t k = keys[i], w = input_key(seed, i);
        sum += k;
        hashes += smp_next(&k);
        want_sum += w;
        want_hashes += smp_next(&w);
    }
    return sum == want_sum && hashes == want_hashes;
}
