/* An order-free digest of a table's rows, for the particle tables of a
 * checkpoint (issue 15 item 6).  HDF5's Fletcher32 filter checksums each
 * chunk on one core at about 0.8 GB/s and copies it once more; it took a
 * fifth of a 4 M-atom checkpoint write here (docs/results/README.md,
 * "checkpoint-2ranks").  Instead every rank digests the rows it writes,
 * the ranks add their sums (modulo 2^64) and the total is stored beside
 * the table; a reader digests the rows it reads, whichever rows those are,
 * and the ranks' sums must add up to the stored one.
 *
 * A row's digest: h = (row + 1) x K, then for each 64-bit word w of the row
 * h = mix(h ^ w), mix being SplitMix64's finaliser (a bijection, so that a
 * change to any bit of any word changes h); the table's digest is the sum
 * of its rows' h.  The row number is in h, so rows that trade places are
 * caught too.  tools/h5check.py computes the same with numpy. */
#ifndef SB_ROW_DIGEST_H
#define SB_ROW_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/* The sum of the digests of rows first .. first + count - 1 of a table of
 * `words` 64-bit words a row (doubles or int64), held in `rows`. */
uint64_t row_digest(const void *rows, uint64_t first, uint64_t count, size_t words);

/* The same, one word after the other for any row width: what row_digest's
 * vectorised rows of 1 and 3 words must equal (tests/test_row_digest.c). */
uint64_t row_digest_any(const void *rows, uint64_t first, uint64_t count, size_t words);

#endif
