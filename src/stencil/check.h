/* Checking a stencil run (stencil.verify=1): the distributed field is
 * gathered on rank 0 and compared with a single-rank, depth-1 run of the
 * same backend, bit for bit (DESIGN.md "Deep-halo stencil"), and, when the
 * run is on CUDA, with the CPU backend to a relative tolerance. */
#ifndef SB_STENCIL_CHECK_H
#define SB_STENCIL_CHECK_H

#include "run.h"

/* The whole field in global order (x fastest) on rank 0 of r->comm, from
 * every rank's own points (stencil_own_points); NULL elsewhere.  The
 * caller frees it. */
int stencil_gather(struct stencil_run *r, const void *own, void **global);

/* Rank 0: runs p (depth set to 1, sync, no overlap) on one rank with the
 * given backend and returns its final field in *field. */
int stencil_reference(const struct stencil_params *p, const struct stencil_backend_ops *ops,
                      void **field, struct sb_msg *m);

struct field_diff {
    size_t points, differing; /* compared, not bit-identical */
    size_t first[3];          /* global coordinates of the first difference */
    double got, want;         /* the values there */
    double max_rel;           /* largest |got - want| / max(|want|, tiny) */
};

void field_compare(const void *got, const void *want, const int global[3], int real_bytes,
                   struct field_diff *d);

#endif
