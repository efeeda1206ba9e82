/* Seed 003's application check (sec. 5): sorting programs written in the
 * BSP style of its sec. 3 — every superstep a copy-in from the shared
 * array, a local computation, a copy-out — whose measured supersteps must
 * fall inside the Good–Bad prediction interval.  No MPI here: the
 * algorithm says what a worker reads and writes in each superstep, and
 * shiftbox smpcost (src/smp/suites.c, src/smp/apps_run.c) moves the integers, times the
 * copies and places them in the interval.
 *
 * Built: radix sort (Table 9): 32-bit keys, r = 6 bits a pass, so 6 passes
 * of counting sort, 4 supersteps each:
 *   1 count elts   read its n/p keys; write its 64 digit counts
 *   2 prefix sum   read the counts of its 64/p digits from every worker;
 *                  write, per worker, the count before it, and the digit totals
 *   3 add offsets  read the 64 totals and its 64 prefixes; write its 64 offsets
 *   4 move elts    read its n/p keys and its 64 offsets; write each key to
 *                  its place in the other key array (scattered)
 * Sample sort (Table 10), 5 supersteps, p buckets:
 *   1 get sample   read 100 keys at random places; write them sorted
 *   2 count elts   read its n/p keys and the p - 1 splitters (splitter q the
 *                  q/p quantile of worker q's sample); write its p bucket counts
 *   3 prefix sum   read bucket w's p counts; write the p prefixes and its total
 *   4 move elts    read its keys, its p prefixes, the p totals and the
 *                  splitters; write each key into its bucket's place in B
 *   5 sort bkts    read bucket w from B, sort it, write it to the same place in A
 * (seed 003 draws p - 1 splitters from a 100p sample; here each worker
 * samples 100 from the whole input and splitter q is the q/p quantile of
 * worker q's.)
 * Column sort (Table 11; Leighton 1985), one column of n/p keys a worker:
 *   1 init matrix        read its keys, sort; write its column
 *   2 sort/transp        read its column, sort; write it transposed
 *   3 sort/rev-transp    read its column, sort; write it untransposed
 *   4 sort               read its column, sort; write it shifted down n/2p
 *   5 rshift/sort/lshift read its shifted column (the last worker the extra
 *                        one too), sort; write it shifted back: the result
 * n is rounded to a multiple of 2p^2 (smp_app_fit_n). */
#ifndef SB_SMP_APPS_H
#define SB_SMP_APPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum smp_app_kind { APP_RADIX, APP_SAMPLE, APP_COLUMN, NAPPS };

extern const char *const smp_app_names[NAPPS];

#define SMP_APP_MAX_KINDS 8 /* supersteps of one pass (table rows) */

struct smp_app {
    enum smp_app_kind kind;
    long n;            /* keys */
    int w, p;          /* this worker, of p */
    long first, count; /* this worker's keys */
    int step;          /* supersteps done */
    size_t *idx;       /* indices of the current copy-in or copy-out */
    size_t cap;
    uint64_t seed;
    long bucket_first, bucket_count; /* sample sort: this worker's bucket */
    bool failed;                     /* sample sort: a bucket beyond the local memory */
};

/* Table rows of an app: how many, and each one's name and (hr, hw, M) in
 * seed 003's notation. */
int smp_app_kinds(enum smp_app_kind kind);
const char *smp_app_kind_name(enum smp_app_kind kind, int row);
const char *smp_app_kind_counts(enum smp_app_kind kind, int row);

/* The shared integers an app of n keys on p workers needs, and the local
 * ones a worker needs. */
size_t smp_app_global_ints(enum smp_app_kind kind, long n, int p);
size_t smp_app_local_ints(enum smp_app_kind kind, long n, int p);

/* The n an application runs for a requested n (column sort: a multiple
 * of 2 p^2, at least 2 p (p - 1)^2). */
long smp_app_fit_n(enum smp_app_kind kind, long n, int p);

/* Worker w of p on n keys; its keys filled into global (every worker its
 * own block, from seed).  Returns false when out of memory. */
bool smp_app_init(struct smp_app *a, enum smp_app_kind kind, long n, int w, int p, uint64_t seed,
                  unsigned *global);
void smp_app_free(struct smp_app *a);

/* Supersteps in all (the same on every worker), and the table row of the
 * next one. */
int smp_app_steps(const struct smp_app *a);
int smp_app_row(const struct smp_app *a);

/* The next superstep's copy-in: the global indices to read into local[0..). */
size_t smp_app_reads(struct smp_app *a, const size_t **idx);
/* Its local computation on local[0..reads): the global indices of its
 * copy-out, whose values it leaves in local[0..writes); then the next
 * superstep. */
size_t smp_app_compute(struct smp_app *a, unsigned *local, const size_t **idx);

/* After the last superstep: the sorted keys' array is ascending and holds
 * the same keys (a sum and a xor of their hashes) as the input of `seed`;
 * where they lie in global. */
size_t smp_app_result(const struct smp_app *a);
bool smp_app_sorted(const unsigned *keys, long n, uint64_t seed, int p);

#endif
