#include "apps.h"
#include "pattern.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

const char *const smp_app_names[NAPPS] = {"radix", "sample", "column"};

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

static size_t radix_global_ints(long n, int p)
{
    return 2 * (size_t)n + 2 * (size_t)p * DIGITS + DIGITS;
}

static size_t radix_local_ints(long n, int p)
{
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
    a->seed = seed;
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

static size_t radix_reads(struct smp_app *a, const size_t **idx)
{
    int pass = a->step / RADIX_ROWS, lo, hi;
    size_t n = 0, src = pass_source(a, pass);
    *idx = a->idx;
    switch (a->step % RADIX_ROWS) {
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

static size_t radix_compute(struct smp_app *a, unsigned *local, const size_t **idx)
{
    int pass = a->step / RADIX_ROWS, row = a->step % RADIX_ROWS, lo, hi;
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
    return n;
}

static size_t radix_result(const struct smp_app *a)
{
    return pass_source(a, PASSES);
}

/* ---- sample sort ------------------------------------------------------------------ */

enum { SAMPLE = 100 }; /* keys each worker samples (seed 003: oversampling 100 p) */
enum { SS_SAMPLE, SS_COUNT, SS_PREFIX, SS_MOVE, SS_SORT, SAMPLE_ROWS };

static const char *const sample_names[SAMPLE_ROWS] = {"get sample", "count elts", "prefix sum",
                                                      "move elts", "sort bkts"};
static const char *const sample_counts[SAMPLE_ROWS] = {
    "100, 100, 200p", "n/p + p - 1, p, n + p^2 + p", "p, p + 1, 2p^2 + p",
    "n/p + 3p - 1, n/p, 2n + 3p^2", "n/p, n/p, 2n (ideal)"};

/* The shared array: keys A and B, each worker's sorted sample, the counts
 * C[w][b] of worker w's keys in bucket b, the prefixes P[w][b] (bucket b's
 * keys of the workers before w), the bucket totals T[b]. */
static size_t sample_at(const struct smp_app *a, int w, int j)
{
    return 2 * (size_t)a->n + (size_t)w * SAMPLE + (size_t)j;
}
static size_t bucket_counts_at(const struct smp_app *a, int w, int b)
{
    return sample_at(a, a->p, 0) + (size_t)w * (size_t)a->p + (size_t)b;
}
static size_t bucket_prefix_at(const struct smp_app *a, int w, int b)
{
    return bucket_counts_at(a, a->p, 0) + (size_t)w * (size_t)a->p + (size_t)b;
}
static size_t bucket_total_at(const struct smp_app *a, int b)
{
    return bucket_prefix_at(a, a->p, 0) + (size_t)b;
}

static size_t sample_global_ints(long n, int p)
{
    return 2 * (size_t)n + (size_t)p * SAMPLE + 2 * (size_t)p * (size_t)p + (size_t)p;
}

/* A bucket may outgrow n/p: room for twice that (a worker whose bucket
 * does not fit fails its run, which the sort check then reports). */
static size_t sample_local_ints(long n, int p)
{
    return 2 * (size_t)(n / p + 1) + 3 * (size_t)p + SAMPLE;
}

static int compare_unsigned(const void *x, const void *y)
{
    unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;
    return (a > b) - (a < b);
}

/* The bucket of a key: how many splitters are at most it. */
static int bucket_of(unsigned key, const unsigned *splitters, int ns)
{
    int lo = 0, hi = ns;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (splitters[mid] <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The splitters: splitter q (1 <= q < p) is the q/p quantile of worker
 * q's sorted sample, each sample drawn from the whole input. */
static size_t read_splitters(const struct smp_app *a, size_t n)
{
    for (int q = 1; q < a->p; q++)
        a->idx[n++] = sample_at(a, q, q * SAMPLE / a->p);
    return n;
}

static size_t sample_reads(struct smp_app *a, const size_t **idx)
{
    size_t n = 0;
    *idx = a->idx;
    switch (a->step) {
    case SS_SAMPLE: { /* SAMPLE keys at random places of the whole input */
        uint64_t rng = a->seed ^ (0x632be59bd9b4e019ULL * (uint64_t)(a->w + 1));
        for (int j = 0; j < SAMPLE; j++)
            a->idx[n++] = keys_a(a) + (size_t)smp_below(&rng, a->n);
        break;
    }
    case SS_COUNT:
        for (long i = 0; i < a->count; i++)
            a->idx[n++] = keys_a(a) + (size_t)(a->first + i);
        n = read_splitters(a, n);
        break;
    case SS_PREFIX: /* bucket w: every worker's count of it */
        for (int q = 0; q < a->p; q++)
            a->idx[n++] = bucket_counts_at(a, q, a->w);
        break;
    case SS_MOVE:
        for (long i = 0; i < a->count; i++)
            a->idx[n++] = keys_a(a) + (size_t)(a->first + i);
        for (int b = 0; b < a->p; b++)
            a->idx[n++] = bucket_prefix_at(a, a->w, b);
        for (int b = 0; b < a->p; b++)
            a->idx[n++] = bucket_total_at(a, b);
        n = read_splitters(a, n);
        break;
    default: { /* SS_SORT: this worker's bucket, where the last superstep put it */
        size_t room = a->cap - 2 * DIGITS, take = (size_t)a->bucket_count;
        if (take > room) { /* a bucket beyond the local memory: the run fails */
            a->failed = true;
            take = room;
        }
        for (size_t i = 0; i < take; i++)
            a->idx[n++] = keys_b(a) + (size_t)a->bucket_first + i;
        break;
    }
    }
    return n;
}

static size_t sample_compute(struct smp_app *a, unsigned *local, const size_t **idx)
{
    size_t n = 0, ns = (size_t)a->p - 1;
    *idx = a->idx;
    switch (a->step) {
    case SS_SAMPLE:
        qsort(local, SAMPLE, sizeof *local, compare_unsigned);
        for (int j = 0; j < SAMPLE; j++)
            a->idx[n++] = sample_at(a, a->w, j);
        break;
    case SS_COUNT: {
        unsigned *splitters = local + a->count;
        qsort(splitters, ns, sizeof *splitters, compare_unsigned);
        unsigned *counts = calloc((size_t)a->p, sizeof *counts);
        for (long i = 0; counts && i < a->count; i++)
            counts[bucket_of(local[i], splitters, (int)ns)]++;
        for (int b = 0; b < a->p; b++) {
            local[n] = counts ? counts[b] : 0;
            a->idx[n++] = bucket_counts_at(a, a->w, b);
        }
        a->failed = a->failed || !counts;
        free(counts);
        break;
    }
    case SS_PREFIX: { /* in place: the counts become prefixes, the total after them */
        unsigned before = 0;
        for (int q = 0; q < a->p; q++) {
            unsigned c = local[q];
            local[n] = before;
            a->idx[n++] = bucket_prefix_at(a, q, a->w);
            before += c;
        }
        local[n] = before;
        a->idx[n++] = bucket_total_at(a, a->w);
        break;
    }
    case SS_MOVE: {
        unsigned *prefix = local + a->count, *total = prefix + a->p, *splitters = total + a->p;
        qsort(splitters, ns, sizeof *splitters, compare_unsigned);
        unsigned start = 0;
        for (int b = 0; b < a->p; b++) {
            if (b == a->w) {
                a->bucket_first = start;
                a->bucket_count = total[b];
            }
            unsigned t = total[b];
            prefix[b] += start; /* now where this worker's keys of bucket b go */
            start += t;
        }
        for (long i = 0; i < a->count; i++)
            a->idx[n++] = keys_b(a) + prefix[bucket_of(local[i], splitters, (int)ns)]++;
        break;
    }
    default: { /* SS_SORT: the bucket sorted, back into A at the same place */
        size_t take = a->failed && (size_t)a->bucket_count > a->cap - 2 * DIGITS
                          ? a->cap - 2 * DIGITS
                          : (size_t)a->bucket_count;
        qsort(local, take, sizeof *local, compare_unsigned);
        for (size_t i = 0; i < take; i++)
            a->idx[n++] = keys_a(a) + (size_t)a->bucket_first + i;
        break;
    }
    }
    return n;
}

static size_t sample_result(const struct smp_app *a)
{
    return keys_a(a);
}

/* ---- column sort ------------------------------------------------------------------ */

/* Leighton's column sort with one column of r = n/p keys per worker (s = p
 * columns; it needs r >= 2 (s - 1)^2, r a multiple of s and even):
 * sort, transpose, sort, untranspose, sort, shift by r/2, sort, unshift,
 * in 5 supersteps as seed 003 combines them.  Arrays: A (input, then the
 * result), X and Y (n each), Z (n + r: the shifted matrix, s + 1 columns,
 * its first r/2 and last r/2 places sentinels). */
enum { CS_INIT, CS_TRANSPOSE, CS_UNTRANSPOSE, CS_SHIFT, CS_UNSHIFT, COLUMN_ROWS };

static const char *const column_names[COLUMN_ROWS] = {
    "init matrix", "sort/transp", "sort/rev-transp", "sort", "rshift/sort/lshift"};
static const char *const column_counts[COLUMN_ROWS] = {
    "n/p, n/p, 2n", "n/p, n/p, 2n", "n/p, n/p, 2n", "n/p, n/p, 2n", "n/p, n/p, 2n"};

static long column_fit_n(long n, int p)
{
    long unit = 2L * p * p, least = (long)p * 2L * (p - 1) * (p - 1);
    long fit = n - n % unit;
    while (fit < least || fit < unit)
        fit += unit;
    return fit;
}

static size_t column_x(const struct smp_app *a)
{
    return (size_t)a->n;
}
static size_t column_y(const struct smp_app *a)
{
    return 2 * (size_t)a->n;
}
static size_t column_z(const struct smp_app *a)
{
    return 3 * (size_t)a->n;
}

static size_t column_global_ints(long n, int p)
{
    return 4 * (size_t)n + (size_t)(n / p) + 1;
}

static size_t column_local_ints(long n, int p)
{
    return 2 * (size_t)(n / p) + 2;
}

static size_t column_reads(struct smp_app *a, const size_t **idx)
{
    size_t n = 0, r = (size_t)a->count, col = (size_t)a->w * r;
    size_t from = a->step == CS_INIT          ? keys_a(a)
                  : a->step == CS_TRANSPOSE   ? column_x(a)
                  : a->step == CS_UNTRANSPOSE ? column_y(a)
                  : a->step == CS_SHIFT       ? column_x(a)
                                              : column_z(a);
    *idx = a->idx;
    for (size_t j = 0; j < r; j++)
        a->idx[n++] = from + col + j;
    if (a->step == CS_UNSHIFT && a->w == a->p - 1) /* the last worker sorts Z's extra column */
        for (size_t j = 0; j < r; j++)
            a->idx[n++] = from + col + r + j;
    return n;
}

static size_t column_compute(struct smp_app *a, unsigned *local, const size_t **idx)
{
    size_t n = 0, r = (size_t)a->count, s = (size_t)a->p, col = (size_t)a->w * r;
    *idx = a->idx;
    qsort(local, r, sizeof *local, compare_unsigned);
    switch (a->step) {
    case CS_INIT: /* the sorted column into X */
        for (size_t j = 0; j < r; j++)
            a->idx[n++] = column_x(a) + col + j;
        break;
    case CS_TRANSPOSE: /* column-major place i to row-major: (i % s) r + i / s */
        for (size_t j = 0; j < r; j++) {
            size_t i = col + j;
            a->idx[n++] = column_y(a) + (i % s) * r + i / s;
        }
        break;
    case CS_UNTRANSPOSE: /* the inverse: row j of column w back to j s + w */
        for (size_t j = 0; j < r; j++)
            a->idx[n++] = column_x(a) + j * s + (size_t)a->w;
        break;
    case CS_SHIFT: /* down by r/2 into Z; the first and last workers write the sentinels */
        for (size_t j = 0; j < r; j++)
            a->idx[n++] = column_z(a) + col + j + r / 2;
        if (a->w == 0)
            for (size_t j = 0; j < r / 2; j++) {
                local[n] = 0;
                a->idx[n++] = column_z(a) + j;
            }
        if (a->w == a->p - 1)
            for (size_t j = 0; j < r / 2; j++) {
                local[n] = UINT_MAX;
                a->idx[n++] = column_z(a) + (size_t)a->n + r / 2 + j;
            }
        break;
    default: { /* CS_UNSHIFT: each Z column sorted, back by r/2 into A, sentinels dropped */
        size_t columns = a->w == a->p - 1 ? 2 : 1, kept = 0;
        if (columns == 2) qsort(local + r, r, sizeof *local, compare_unsigned);
        for (size_t c = 0; c < columns; c++)
            for (size_t j = 0; j < r; j++) {
                size_t t = col + c * r + j; /* place in Z */
                if (t < r / 2 || t >= (size_t)a->n + r / 2) continue;
                local[kept] = local[c * r + j];
                a->idx[kept++] = keys_a(a) + t - r / 2;
            }
        n = kept;
        break;
    }
    }
    return n;
}

static size_t column_result(const struct smp_app *a)
{
    return keys_a(a);
}

static long same_n(long n, int p)
{
    (void)p;
    return n;
}

/* ---- the applications' table ----------------------------------------------------- */

static const struct app_ops {
    int rows, steps;
    const char *const *names, *const *counts;
    size_t (*global_ints)(long n, int p);
    size_t (*local_ints)(long n, int p);
    size_t (*reads)(struct smp_app *a, const size_t **idx);
    size_t (*compute)(struct smp_app *a, unsigned *local, const size_t **idx);
    size_t (*result)(const struct smp_app *a);
    long (*fit_n)(long n, int p);
} app_ops[NAPPS] = {
    {RADIX_ROWS, PASSES *RADIX_ROWS, radix_names, radix_counts, radix_global_ints, radix_local_ints,
     radix_reads, radix_compute, radix_result, same_n},
    {SAMPLE_ROWS, SAMPLE_ROWS, sample_names, sample_counts, sample_global_ints, sample_local_ints,
     sample_reads, sample_compute, sample_result, same_n},
    {COLUMN_ROWS, COLUMN_ROWS, column_names, column_counts, column_global_ints, column_local_ints,
     column_reads, column_compute, column_result, column_fit_n},
};

long smp_app_fit_n(enum smp_app_kind kind, long n, int p)
{
    return app_ops[kind].fit_n(n, p);
}

int smp_app_kinds(enum smp_app_kind kind)
{
    return app_ops[kind].rows;
}

const char *smp_app_kind_name(enum smp_app_kind kind, int row)
{
    return app_ops[kind].names[row];
}

const char *smp_app_kind_counts(enum smp_app_kind kind, int row)
{
    return app_ops[kind].counts[row];
}

size_t smp_app_global_ints(enum smp_app_kind kind, long n, int p)
{
    return app_ops[kind].global_ints(n, p);
}

size_t smp_app_local_ints(enum smp_app_kind kind, long n, int p)
{
    return app_ops[kind].local_ints(n, p);
}

int smp_app_steps(const struct smp_app *a)
{
    return app_ops[a->kind].steps;
}

int smp_app_row(const struct smp_app *a)
{
    return a->step % app_ops[a->kind].rows;
}

size_t smp_app_reads(struct smp_app *a, const size_t **idx)
{
    return app_ops[a->kind].reads(a, idx);
}

size_t smp_app_compute(struct smp_app *a, unsigned *local, const size_t **idx)
{
    size_t n = app_ops[a->kind].compute(a, local, idx);
    a->step++;
    return n;
}

size_t smp_app_result(const struct smp_app *a)
{
    return app_ops[a->kind].result(a);
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
