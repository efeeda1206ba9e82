/* The periodic 3D Cartesian rank grid (DESIGN.md "Decomposition").
 *
 * Every rank owns one box.  Ranks are numbered row-major with z fastest, as
 * MPI_Cart_create numbers them with reorder = 0.  For any offset (dx,dy,dz),
 * also one larger than the grid, a rank can name the rank that owns the box
 * there and which periodic image of it lies at that offset: the box at
 * coords + d is box (coords + d) mod dims, shifted by image * dims boxes. */
#ifndef SB_DECOMP_H
#define SB_DECOMP_H

#include "error.h"

#include <mpi.h>

struct box_ref {
    int rank;      /* owner of the box */
    int coords[3]; /* its coordinates in the grid, each in [0, dims) */
    int image[3];  /* periodic image: floor((coords + d) / dims) per dimension */
};

struct topology {
    int nranks;
    int rank;
    int dims[3];
    int coords[3];
    MPI_Comm comm; /* periodic Cartesian communicator over all ranks, reorder = 0 */
};

/* Wraps coordinate c into [0, n) and returns it; *image receives floor(c / n). */
int wrap_coord(int c, int n, int *image);

int rank_of_coords(const int dims[3], const int coords[3]);
void coords_of_rank(const int dims[3], int rank, int coords[3]);

/* The box at offset d from the box at `coords` in a grid of `dims`. */
struct box_ref box_at(const int dims[3], const int coords[3], const int d[3]);

/* Chooses the grid: `requested` entries of 0 are filled by MPI_Dims_create.
 * Returns SB_EUSAGE (message names decomp.dims) when the product cannot be
 * nranks. */
int choose_dims(int nranks, const int requested[3], int dims[3], struct sb_msg *m);

/* Creates the Cartesian communicator.  Returns SB_OK, SB_EUSAGE or SB_ERUNTIME. */
int topology_init(struct topology *t, MPI_Comm world, const int requested[3], struct sb_msg *m);
void topology_free(struct topology *t);

#endif
