/* The proxy MD workload (DESIGN.md "MD proxy"): Lennard-Jones particles in
 * reduced units (sigma = epsilon = mass = 1), the problem of the miniMD and
 * LAMMPS LJ benchmarks.  Each box keeps its particles' positions relative
 * to its own lower corner, so a ghost from slot (dx,dy,dz) lies at
 * pos + (dx,dy,dz) * edge and no periodic flags are needed anywhere. */
#ifndef SB_MD_H
#define SB_MD_H

#include "../decomp.h"

#include <stdbool.h>
#include <stdint.h>

struct md_params {
    int cells[3];
    double density, temperature, cutoff, skin, dt;
    long steps;
    int reneighbor, thermo, k_request;
    int reneighbor_check; /* check the half-skin trigger every N steps; 0: never */
    bool trim; /* md.ghost_filter = slab */
    double drift_bound;  /* 0: md_drift_bound() */
    double force_scale;  /* md.inject_force_scale: 1 = off */
    long long jump_id; /* -1: none */
    uint64_t seed;
};

/* The geometry of the global box and of this rank's box. */
struct md_geometry {
    double lattice;   /* FCC lattice constant: (4 / density)^(1/3) */
    double length[3]; /* the global box */
    double edge[3];   /* one box */
    double corner[3]; /* this box's lower corner */
    double reach;     /* cut-off + skin */
    int k;            /* layers of boxes the reach spans */
};

/* One box's particles. */
struct particles {
    int n, cap;
    int xcap;    /* positions x holds (>= cap): md puts the ghosts behind the particles */
    double *x;   /* positions relative to the box corner, [3n] */
    double *v;   /* velocities [3n] */
    double *f;   /* forces [3n] */
    double *x0;  /* positions at the last neighbour-list build [3n], only from a checkpoint's
                    read to the first build and while one is written; NULL otherwise (the
                    build's bin-ordered copy holds them: neighbor.h) */
    int64_t *id; /* global ids, from the lattice site */
};

void md_geometry_init(struct md_geometry *g, const struct md_params *p, const struct topology *t);

void particles_reserve(struct particles *p, int n);
/* Room in x for n positions: the particles' and, behind them, the ghosts'. */
void particles_reserve_positions(struct particles *p, int n);
void particles_free(struct particles *p);

/* The box (per dimension) a position in [0, n * edge) belongs to: every
 * rank computes the same floor for the same position, so exactly one box
 * claims it. */
int md_box_of(double pos, double edge, int n);

/* Fills p with the lattice sites that fall in this box; returns the
 * particle count of the whole system. */
long long md_lattice(struct particles *p, const struct md_params *prm, const struct md_geometry *g,
                     const struct topology *t);

/* Velocities from the particle id and the seed only, with zero total
 * momentum and the set temperature; collective over `comm` (the leaders). */
int md_velocities(struct particles *p, const struct md_params *prm, long long total, MPI_Comm comm);

/* Reorders the particles by their place in a grid of cells of edge about
 * `cell` over the box (a stable counting sort), so that neighbours lie
 * near each other in memory.  The forces are not moved: their array is
 * the sort's scratch, so they must be computed again before they are read
 * (every caller sorts between the drift and the force computation). */
void particles_sort(struct particles *p, const struct md_geometry *g, double cell);

/* The three raw velocity components of particle `id`, integers in
 * [-2^15, 2^15): their sums over all particles are exact in any order. */
void md_raw_velocity(uint64_t seed, int64_t id, int32_t raw[3]);

#endif
