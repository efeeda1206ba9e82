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

int choose_dims(int nboxes, const int requested[3], int dims[3], struct sb_msg *m)
{
    long long fixed = 1; /* 65536,65536,1 overflows an int (to 0, then divides) */
    for (int i = 0; i < 3; i++) {
        dims[i] = requested[i];
        if (requested[i] > 0) fixed *= requested[i];
    }
    if (nboxes % fixed != 0 || (requested[0] && requested[1] && requested[2] && fixed != nboxes))
        return sb_fail(m, SB_EUSAGE,
                       "decomp.dims = %d,%d,%d makes %lld boxes, but the run has %d; accepted: "
                       "three integers whose product is %d (0 lets MPI choose that dimension), "
                       "auto, or all",
                       requested[0], requested[1], requested[2], fixed, nboxes, nboxes);
    if (MPI_Dims_create(nboxes, 3, dims) != MPI_SUCCESS)
        return sb_fail(m, SB_EUSAGE,
                       "decomp.dims: MPI_Dims_create cannot split %d boxes as %d,%d,%d", nboxes,
                       requested[0], requested[1], requested[2]);
    return SB_OK;
}

int factorisations(int n, int (*out)[3], int max)
{
    int count = 0;
    for (int a = 1; a <= n; a++) {
        if (n % a) continue;
        for (int b = 1; b <= n / a; b++) {
            if ((n / a) % b) continue;
            if (count < max) {
                out[count][0] = a;
                out[count][1] = b;
                out[count][2] = n / a / b;
            }
            count++;
        }
    }
    return count;
}

int topology_init(struct topology *t, MPI_Comm world, int team_size, const int dims[3],
                  struct sb_msg *m)
{
    t->comm = t->leaders = t->team = t->layer = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_size(world, &t->nranks));
    CHECK_MPI(MPI_Comm_rank(world, &t->rank));
    if (team_size < 1 || t->nranks % team_size != 0)
        return sb_fail(m, SB_EUSAGE, "a team of %d ranks does not divide %d ranks", team_size,
                       t->nranks);
    t->team_size = team_size;
    t->nboxes = t->nranks / team_size;
    t->box = t->rank / team_size;
    t->member = t->rank % team_size;
    for (int i = 0; i < 3; i++)
        t->dims[i] = dims[i];
    if (dims[0] * dims[1] * dims[2] != t->nboxes)
        return sb_fail(m, SB_EUSAGE, "decomp.dims %dx%dx%d is not a grid of %d boxes", dims[0],
                       dims[1], dims[2], t->nboxes);
    coords_of_rank(t->dims, t->box, t->coords);

    /* No communicator more than the grid needs: each new one costs a
     * collective over its ranks, which a simulation of thousands of ranks
     * (SMPI) pays dearly (1.4 s of host time for one of 256 ranks).  comm
     * is the one given (the caller's, with its error handler; not freed
     * here).  With one rank per box the team is MPI_COMM_SELF and the layer
     * of equal members, in box order, is comm itself: no new communicator
     * at all; with teams, the team and layer splits.  The leaders are
     * member 0's layer.  Sharing is safe: point-to-point messages and
     * collectives never match each other, no receive takes MPI_ANY_SOURCE
     * or MPI_ANY_TAG, and each module sends with tags of its own range
     * (EXCHANGE_TAG_SPAN), so what a run that found its slots malformed
     * (SB_EVERIFY) left behind reaches no other module. */
    t->comm = world;
    if (team_size == 1) {
        t->team = MPI_COMM_SELF;
        t->layer = t->comm;
    } else {
        CHECK_MPI(MPI_Comm_split(t->comm, t->box, t->member, &t->team));
        CHECK_MPI(MPI_Comm_split(t->comm, t->member, t->box, &t->layer));
        CHECK_MPI(MPI_Comm_set_errhandler(t->team, MPI_ERRORS_RETURN));
        CHECK_MPI(MPI_Comm_set_errhandler(t->layer, MPI_ERRORS_RETURN));
    }
    t->leaders = t->member == 0 ? t->layer : MPI_COMM_NULL;
    return SB_OK;
}

void topology_free(struct topology *t)
{
    /* comm is the caller's, leaders is layer; with one rank per box the
       team is MPI_COMM_SELF and the layer comm (topology_init) */
    if (t->team_size > 1) {
        if (t->layer != MPI_COMM_NULL) MPI_Comm_free(&t->layer);
        if (t->team != MPI_COMM_NULL) MPI_Comm_free(&t->team);
    }
    t->comm = t->team = t->layer = t->leaders = MPI_COMM_NULL;
}

void node_place(MPI_Comm comm, int *local_rank, int *local_ranks)
{
    MPI_Comm node;
    *local_rank = 0;
    *local_ranks = 1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, local_rank);
        MPI_Comm_size(node, local_ranks);
        MPI_Comm_free(&node);
    }
}
