/* What the MD unit tests share: random particles in a box and ghosts
 * around it, and the processor check of the AVX-512 loops. */
#ifndef SB_TESTS_MD_PARTICLES_H
#define SB_TESTS_MD_PARTICLES_H

#include "../src/vectorize.h"

#include <stdlib.h>

/* nown particles in [0, edge), then nghost ghosts in [-margin, edge +
 * margin) (some inside the box's reach, some beyond), from `seed`. */
static double *random_particles(int nown, int nghost, const double edge[3], double margin,
                                unsigned seed)
{
    double *x = malloc(3 * (size_t)(nown + nghost) * sizeof *x);
    srand(seed);
    for (int i = 0; i < nown + nghost; i++)
        for (int d = 0; d < 3; d++) {
            double u = (double)rand() / RAND_MAX;
            x[3 * i + d] = i < nown ? u * edge[d] : -margin + u * (edge[d] + 2 * margin);
        }
    return x;
}

#endif
