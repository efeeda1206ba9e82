/* The periodic 3D grid of boxes and the ranks that hold them (DESIGN.md
 * "Decomposition").
 *
 * P ranks hold T = P / c boxes: each box belongs to a team of c consecutive
 * ranks (box = rank / c), whose member 0 leads.  With c = 1, the usual case,
 * every rank owns one box.  Boxes are numbered row-major with z fastest, as
 * MPI_Cart_create numbers ranks with reorder = 0 (no Cartesian communicator
 * is made: box_at names every neighbour).  For any offset
 * (dx,dy,dz), also one larger than the grid, a rank can name the box there
 * and which periodic image of it lies at that offset: the box at coords + d
 * is box (coords + d) mod dims, shifted by image * dims boxes. */
#ifndef SB_DECOMP_H
#define SB_DECOMP_H

#include "error.h"

#include <mpi.h>

struct box_ref {
    int rank;      /* the box's number (its owner's rank when c = 1) */
    int coords[3]; /* its coordinates in the grid, each in [0, dims) */
    int image[3];  /* periodic image: floor((coords + d) / dims) per dimension */
};

struct topology {
    int nranks, rank; /* all ranks, and this one */
    int team_size;    /* c: ranks per box */
    int nboxes;       /* T = nranks / c */
    int box, member;  /* this rank's box, and its place in the box's team (0 leads) */
    int dims[3];      /* the box grid */
    int coords[3];    /* this rank's box in it */
    MPI_Comm comm;    /* every rank: the communicator topology_init was given (with
                         MPI_ERRORS_RETURN set by its owner), not owned */
    MPI_Comm leaders; /* the team leaders, rank = box (member 0's layer); NULL elsewhere */
    MPI_Comm team;    /* the c ranks of this box, rank = member (MPI_COMM_SELF when c = 1) */
    MPI_Comm layer;   /* the T ranks with this member number, rank = box (comm when c = 1) */
};

/* Wraps coordinate c into [0, n) and returns it; *image receives floor(c / n). */
int wrap_coord(int c, int n, int *image);

int rank_of_coords(const int dims[3], const int coords[3]);
void coords_of_rank(const int dims[3], int rank, int coords[3]);

/* The box at offset d from the box at `coords` in a grid of `dims`. */
struct box_ref box_at(const int dims[3], const int coords[3], const int d[3]);

/* Chooses the grid of nboxes boxes: `requested` entries of 0 are filled by
 * MPI_Dims_create.  Returns SB_EUSAGE (message names decomp.dims) when the
 * product cannot be nboxes. */
int choose_dims(int nboxes, const int requested[3], int dims[3], struct sb_msg *m);

/* This rank's place among the ranks of comm on its node, and how many
 * there are (1 and 0 when MPI cannot tell). */
void node_place(MPI_Comm comm, int *local_rank, int *local_ranks);

/* Every ordered factorisation of n into three factors, in lexicographic
 * order; returns how many (at most max are stored). */
int factorisations(int n, int (*out)[3], int max);

/* Builds the grid of nranks / team_size boxes with the given dims (already
 * chosen, product = boxes) and its communicators.  Collective over world. */
int topology_init(struct topology *t, MPI_Comm world, int team_size, const int dims[3],
                  struct sb_msg *m);
void topology_free(struct topology *t);

#endif
