#include "check.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_GATHER_BOX = 71, TAG_GATHER_DATA };

/* Copies one rank's own points (n at origin) into the global array. */
static void place(unsigned char *global, const int gsize[3], const int n[3], const int origin[3],
                  const unsigned char *own, size_t rb)
{
    for (int z = 0; z < n[2]; z++)
        for (int y = 0; y < n[1]; y++) {
            size_t row = ((size_t)(z + origin[2]) * (size_t)gsize[1] + (size_t)(y + origin[1])) *
                             (size_t)gsize[0] +
                         (size_t)origin[0];
            memcpy(global + row * rb, own, (size_t)n[0] * rb);
            own += (size_t)n[0] * rb;
        }
}

int stencil_gather(struct stencil_run *r, const void *own, void **global)
{
    const struct stencil_grid *g = &r->grid;
    size_t rb = (size_t)r->p.real_bytes;
    *global = NULL;
    if (r->rank != 0) {
        int box[6] = {g->n[0], g->n[1], g->n[2], g->origin[0], g->origin[1], g->origin[2]};
        CHECK_MPI(MPI_Send(box, 6, MPI_INT, 0, TAG_GATHER_BOX, r->comm));
        CHECK_MPI(
            MPI_Send(own, (int)(stencil_own_count(r) * rb), MPI_BYTE, 0, TAG_GATHER_DATA, r->comm));
        return SB_OK;
    }
    size_t total = (size_t)g->global[0] * (size_t)g->global[1] * (size_t)g->global[2];
    unsigned char *all = sb_malloc(total * rb, "the gathered field");
    place(all, g->global, g->n, g->origin, own, rb);
    for (int src = 1; src < r->nranks; src++) {
        int box[6];
        CHECK_MPI(MPI_Recv(box, 6, MPI_INT, src, TAG_GATHER_BOX, r->comm, MPI_STATUS_IGNORE));
        size_t count = (size_t)box[0] * (size_t)box[1] * (size_t)box[2];
        unsigned char *theirs = sb_malloc(count * rb + 1, "a rank's points");
        CHECK_MPI(MPI_Recv(theirs, (int)(count * rb), MPI_BYTE, src, TAG_GATHER_DATA, r->comm,
                           MPI_STATUS_IGNORE));
        place(all, g->global, box, box + 3, theirs, rb);
        free(theirs);
    }
    *global = all;
    return SB_OK;
}

int stencil_reference(const struct stencil_params *p, const struct stencil_backend_ops *ops,
                      void **field, struct sb_msg *m)
{
    struct stencil_params one = *p;
    one.depth = 1;
    one.async = false;
    one.overlap = false;
    one.inject_fault = -1;
    one.full_sweeps = false;    /* the reference shrinks (at depth 1 both are the own points) */
    one.temporal = false;       /* one sweep after each exchange: the plain sweeps */
    one.stores = STORES_CACHED; /* ordinary stores: streaming is checked against them */
    one.device_buffers = false;
    const int dims[3] = {1, 1, 1};
    struct stencil_run r;
    *field = NULL;
    int rc = stencil_setup(&r, &one, MPI_COMM_SELF, dims, ops, m);
    if (rc != SB_OK) {
        struct sb_msg why = *m;
        char *advice = strstr(why.text, "; "); /* a split run's advice: more ranks */
        if (advice) *advice = '\0';
        stencil_teardown(&r);
        return sb_fail(m, rc,
                       "stencil.verify = 1: rank 0 cannot set up the single-rank reference run "
                       "(the whole field, twice): %s; accepted: a field rank 0 can hold (a "
                       "smaller stencil.size) or stencil.verify = 0",
                       why.text);
    }
    rc = stencil_fill(&r);
    if (rc == SB_OK) rc = stencil_iterate(&r, one.iterations);
    if (rc == SB_OK) {
        void *own = sb_malloc(stencil_own_count(&r) * (size_t)one.real_bytes + 1, "own points");
        rc = stencil_own_points(&r, own);
        if (rc == SB_OK) rc = stencil_gather(&r, own, field);
        free(own);
    }
    stencil_teardown(&r);
    return rc;
}

static double value_at(const void *f, size_t i, int real_bytes)
{
    return real_bytes == 4 ? (double)((const float *)f)[i] : ((const double *)f)[i];
}

void field_compare(const void *got, const void *want, const int global[3], int real_bytes,
                   struct field_diff *d)
{
    memset(d, 0, sizeof *d);
    d->points = (size_t)global[0] * (size_t)global[1] * (size_t)global[2];
    const unsigned char *a = got, *b = want;
    size_t rb = (size_t)real_bytes;
    for (size_t i = 0; i < d->points; i++) {
        if (!memcmp(a + i * rb, b + i * rb, rb)) continue;
        double x = value_at(got, i, real_bytes), y = value_at(want, i, real_bytes);
        double rel = fabs(x - y) / fmax(fabs(y), DBL_MIN);
        if (!(rel <= d->max_rel)) d->max_rel = isnan(rel) ? INFINITY : rel;
        if (d->differing++ == 0) {
            d->first[0] = i % (size_t)global[0];
            d->first[1] = i / (size_t)global[0] % (size_t)global[1];
            d->first[2] = i / ((size_t)global[0] * (size_t)global[1]);
            d->got = x;
            d->want = y;
        }
    }
}
