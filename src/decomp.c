#include "decomp.h"

int wrap_coord(int c, int n, int *image)
{
    int q = c / n;
    int r = c - q * n;
    if (r < 0) { /* C division truncates toward zero; we want the floor */
        r += n;
        q -= 1;
    }
    if (image) *image = q;
    return r;
}

int rank_of_coords(const int dims[3], const int coords[3])
{
    return (coords[0] * dims[1] + coords[1]) * dims[2] + coords[2];
}

void coords_of_rank(const int dims[3], int rank, int coords[3])
{
    coords[2] = rank % dims[2];
    coords[1] = (rank / dims[2]) % dims[1];
    coords[0] = rank / (dims[2] * dims[1]);
}

struct box_ref box_at(const int dims[3], const int coords[3], const int d[3])
{
    struct box_ref b;
    for (int i = 0; i < 3; i++)
        b.coords[i] = wrap_coord(coords[i] + d[i], dims[i], &b.image[i]);
    b.rank = rank_of_coords(dims, b.coords);
    return b;
}

int choose_dims(int nranks, const int requested[3], int dims[3], struct sb_msg *m)
{
    int fixed = 1;
    for (int i = 0; i < 3; i++) {
        dims[i] = requested[i];
        if (requested[i] > 0) fixed *= requested[i];
    }
    if (nranks % fixed != 0 || (requested[0] && requested[1] && requested[2] && fixed != nranks))
        return sb_fail(m, SB_EUSAGE,
                       "decomp.dims = %d,%d,%d makes %d boxes, but the run has %d rank(s); "
                       "accepted: three integers whose product is %d (0 lets MPI choose "
                       "that dimension), or auto",
                       requested[0], requested[1], requested[2], fixed, nranks, nranks);
    if (MPI_Dims_create(nranks, 3, dims) != MPI_SUCCESS)
        return sb_fail(m, SB_EUSAGE,
                       "decomp.dims: MPI_Dims_create cannot split %d ranks as %d,%d,%d", nranks,
                       requested[0], requested[1], requested[2]);
    return SB_OK;
}

int topology_init(struct topology *t, MPI_Comm world, const int requested[3], struct sb_msg *m)
{
    CHECK_MPI(MPI_Comm_size(world, &t->nranks));
    CHECK(choose_dims(t->nranks, requested, t->dims, m));
    int periods[3] = {1, 1, 1};
    CHECK_MPI(MPI_Cart_create(world, 3, t->dims, periods, 0, &t->comm));
    CHECK_MPI(MPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_rank(t->comm, &t->rank));
    CHECK_MPI(MPI_Cart_coords(t->comm, t->rank, 3, t->coords));
    /* Our numbering must be MPI's, or every neighbour would be wrong. */
    int mine[3];
    coords_of_rank(t->dims, t->rank, mine);
    if (mine[0] != t->coords[0] || mine[1] != t->coords[1] || mine[2] != t->coords[2])
        return sb_fail(m, SB_ERUNTIME,
                       "MPI_Cart_coords(%d) = %d,%d,%d differs from the row-major numbering",
                       t->rank, t->coords[0], t->coords[1], t->coords[2]);
    return SB_OK;
}

void topology_free(struct topology *t)
{
    if (t->comm != MPI_COMM_NULL) MPI_Comm_free(&t->comm);
    t->comm = MPI_COMM_NULL;
}
