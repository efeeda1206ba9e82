/* md's peak memory per rank (footprint.h), from the geometry alone.
 *
 * Particles: a box holds natoms / boxes on average; the margin (three
 * standard deviations of a Poisson count, and 2 %) covers density
 * fluctuation and the growth of its arrays (particles_reserve
 * grows by half, but pages never written stay off the resident set);
 * sorting them by cell (particles_sort) moves them in place, its keys in
 * the forces' array.
 * Ghosts: with md.ghost_filter = slab, the particles within reach of the
 * box, i.e. the shell of thickness reach around it times the density;
 * with none, the whole (2k+1)^3 - 1 boxes around it, of which only
 * those within reach are binned.  Neighbour lists (neighbor.h): an own pair once, a pair with a ghost once; a particle
 * has rho * 4/3 pi reach^3 partners, and the pairs across the box's faces
 * number rho^2 pi reach^4 / 4 per unit area.  The exchange holds the
 * slots and the positions with the ghosts in the box's frame (each all
 * positions), the send and receive copies of the largest hop (half the
 * ghosts with the slab filter; a plane of whole boxes without; none for
 * direct, which receives into the slots), and in a team of several
 * ranks the forces of the box, summed there.  The positions the lists and
 * forces read are the particles' own followed by the ghosts (a team of
 * one) or a copy of all (a larger team).  A checkpoint stages the
 * positions twice (in the global box, and at the last build).  The process
 * itself (MPI, HDF5, code) is measured, not estimated.  tests/faults.sh checks the total against
 * the measured peak (VmHWM). */
#include "footprint.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define POSITION_BYTES (3.0 * sizeof(double))
/* positions, velocities, forces, id (the positions at the last build are
 * the lists' bin-ordered copy, counted with them) */
#define PARTICLE_BYTES (3.0 * POSITION_BYTES + 8.0)

void md_footprint_estimate(const struct md_params *p, const struct md_geometry *g,
                           const struct topology *t, const char *module, long long natoms,
                           double baseline, struct md_footprint *f)
{
    double volume = g->edge[0] * g->edge[1] * g->edge[2];
    double rho = (double)natoms / (g->length[0] * g->length[1] * g->length[2]);
    double r = g->reach;
    double mean = (double)natoms / t->nboxes;
    /* three standard deviations of a Poisson count, and 2 % */
    double margin = 1.02 + 3.0 / sqrt(mean > 1 ? mean : 1);
    f->atoms = margin * mean;
    double side = 2.0 * g->k + 1.0, hop;
    double shell = (g->edge[0] + 2 * r) * (g->edge[1] + 2 * r) * (g->edge[2] + 2 * r);
    double near = margin * rho * (shell - volume); /* the ghosts within reach */
    if (p->trim) {
        f->ghosts = near;
        hop = f->ghosts / 2.0;
    } else {
        f->ghosts = f->atoms * (side * side * side - 1.0);
        hop = f->atoms * side * side; /* the last phase carries planes of boxes */
    }
    double all = f->atoms + f->ghosts, binned = f->atoms + near;
    f->particles = f->atoms * PARTICLE_BYTES;
    if (!strcmp(module, "direct")) hop = 0; /* receives into the slots */
    /* the slots hold every position; the ghosts behind the particles, or
       a copy of all in a larger team; a hop's send and receive copies; a
       team's sum of the box's forces */
    double read = t->team_size > 1 ? all : f->ghosts, summed = t->team_size > 1 ? f->atoms : 0.0;
    f->exchange = (all + read + 2.0 * hop + summed) * POSITION_BYTES;
    double partners = rho * 4.0 / 3.0 * M_PI * r * r * r;
    double faces = 2.0 * (g->edge[0] * g->edge[1] + g->edge[1] * g->edge[2] +
                          g->edge[2] * g->edge[0]);
    double across = margin * rho * rho * M_PI * pow(r, 4) / 4.0 * faces;
    double entries = (f->atoms * partners + across) / 2.0;
    /* the list; the binned positions (at the build: the trigger compares
       with them) and their bin; a row's start and two counts */
    f->lists = entries * sizeof(int) + binned * (POSITION_BYTES + sizeof(int)) +
               f->atoms * (sizeof(int) + 2.0 * sizeof(uint16_t));
    f->staging = 2.0 * f->atoms * POSITION_BYTES; /* global positions; those at the build */
    f->baseline = baseline;
    f->total = f->particles + f->exchange + f->lists + f->staging + f->baseline;
}
