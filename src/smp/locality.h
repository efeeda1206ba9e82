/* ShiftBox's own copy patterns as supersteps of seed 003 (its sec. 5:
 * where an application falls between the good and the bad prediction).
 * Each worker reads `count` integers of the shared array into local memory
 * and writes `count` back, at the places the real code touches:
 *
 *   shift-slots    the Shift placing a received block into its slot buffer:
 *                  contiguous reads from the neighbour's region (where the
 *                  shared-memory transport left the message), contiguous
 *                  writes into its own;
 *   md-binning     the MD proxy binning particles into cells: contiguous
 *                  reads, writes scattered over cells of 8 slots;
 *   stencil-pack   the stencil packing an x face of depth 4: 16-byte reads
 *                  one row (4 KiB) apart, contiguous writes.
 *
 * Pure index generation, tested in tests/test_smp.c. */
#ifndef SB_SMP_LOCALITY_H
#define SB_SMP_LOCALITY_H

#include <stddef.h>

enum smp_pattern { PAT_SHIFT_SLOTS, PAT_MD_BINNING, PAT_STENCIL_PACK, NPATTERNS };
extern const char *const smp_pattern_names[NPATTERNS];

/* Integers each worker moves in pattern `pat` when each worker owns a region
 * of `region` integers and `want` are asked for (fewer where the layout
 * does not fit). */
long smp_pattern_count(enum smp_pattern pat, long region, long want);

/* Fills reads[count] and writes[count] with indices into the shared array
 * for worker `i` of p. */
void smp_pattern_indices(enum smp_pattern pat, int i, int p, long region, long count, size_t *reads,
                         size_t *writes);

#endif
