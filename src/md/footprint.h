/* What md will hold per rank at its peak, estimated before it allocates
 * (docs/RESULTS.md, "Too large for the node"), so that a run too large for its node is refused at
 * once instead of being killed by the kernel after minutes. */
#ifndef SB_MD_FOOTPRINT_H
#define SB_MD_FOOTPRINT_H

#include "md.h"

#include <stdbool.h>

struct md_footprint {
    double atoms;     /* this box's particles, with the margin */
    double ghosts;    /* the ghosts it receives */
    double particles; /* positions, velocities, forces, ids, sorted copy: bytes */
    double exchange;  /* slots, module buffers, positions with ghosts, forces */
    double lists;     /* bins and neighbour lists */
    double staging;   /* a checkpoint's copy of the positions */
    double baseline;  /* the process before md allocates (MPI, HDF5, code): measured */
    double total;
};

/* The peak of one rank running exchange module `module`: `baseline` is
 * the process's resident bytes now, `natoms` the system's. */
void md_footprint_estimate(const struct md_params *p, const struct md_geometry *g,
                           const struct topology *t, const char *module, long long natoms,
                           double baseline, struct md_footprint *f);

#endif
