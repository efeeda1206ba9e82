/* Neighbour lists by cell binning (DESIGN.md "MD proxy").
 *
 * Positions are this box's particles [0, nown) followed by the ghosts, all
 * in this box's frame.  Bins cover the box and one reach around it; ghosts
 * farther out can neighbour no particle of the box and are not binned.
 * Particle i's list holds first its own partners j > i (each own pair once:
 * Newton's third law inside the box), then every ghost within reach; in bin
 * order, and within a bin in index order, so that a given set of slots
 * always gives the same lists.  A list names each partner once (the force
 * loop's AVX-512 scatter relies on it). */
#ifndef SB_MD_NEIGHBOR_H
#define SB_MD_NEIGHBOR_H

#include "../vectorize.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most own partners, and the most ghosts, one particle's list holds. */
#define NEIGHBOR_MAX_PARTNERS UINT16_MAX

struct neighbor {
    /* bins */
    int nbins[3];
    double lo[3], binsize[3];
    int *bin_start, *bin_atoms; /* CSR: atoms of bin b are bin_atoms[bin_start[b]..b+1) */
    int (*stencil)[3];          /* rows of bins within reach: sx, sy and the largest |sz| */
    int nstencil;
    int bins_cap, atoms_cap;
    /* lists for particles [i_lo, i_hi) */
    int i_lo, i_hi;
    int *start;             /* [i - i_lo]: where i's list begins */
    uint16_t *own, *ghosts; /* [i - i_lo]: how many own partners, then ghosts (at most
                               NEIGHBOR_MAX_PARTNERS each: 2 bytes where 4 would cost
                               4 more bytes per particle) */
    bool overflow;          /* the last build met a particle with more */
    int *list;
    size_t list_len, list_cap;
    int rows_cap;
    int *scratch; /* ghosts of one particle while its list is built */
    size_t scratch_cap;
    /* The positions in bin order at the build, x[], y[] and z[] each
     * sorted_cap long: the candidate scans, and the trigger's reference
     * between builds. */
    double *sorted;
    size_t sorted_cap;
    int *near; /* the candidate ranges around one home bin: first, end, highest index */
};

/* Builds the lists of particles [i_lo, i_hi) among x[0..nown+nghost).
 * edge: the box; reach: cut-off + skin.  False (and nb->overflow) when a
 * particle has more than NEIGHBOR_MAX_PARTNERS own partners or ghosts
 * within reach: its lists are then cut short and must not be used. */
bool neighbor_build(struct neighbor *nb, const double *x, int nown, int nghost, int i_lo, int i_hi,
                    const double edge[3], double reach);

/* Whether any of the box's particles [0, nown) is farther than
 * sqrt(limit2) from where the last build saw it (its place in `sorted`);
 * true also when the last build did not bin every one of them. */
bool neighbor_moved_far(const struct neighbor *nb, const double *x, int nown, double limit2);

/* Where the last build saw particles [0, nown): x0[3 nown].  False when it
 * did not bin every one of them. */
bool neighbor_positions_at_build(const struct neighbor *nb, int nown, double *x0);

void neighbor_free(struct neighbor *nb);

/* The widest candidate scan allowed: AVX-512 or AVX2 where the processor
 * has it (default SB_ISA_AVX512: the widest it has), or the portable loop;
 * all give the same lists (tests/test_neighbor.c). */
extern enum sb_isa neighbor_scan_isa;

#endif
