/* Timing the backend's temporal-blocking tiles (src/stencil/tune.h). */
#include "tune.h"

#include <math.h>
#include <string.h>

/* A candidate this much slower than the best so far ends the search: the
 * time grows once the tiles outgrow the cache that is really there. */
static const double GIVE_UP = 1.25;

/* One exchange and its batch of sweeps, the slowest rank's seconds. */
static int time_batch(struct stencil_run *r, long batch, double *seconds)
{
    double t0 = MPI_Wtime();
    CHECK(stencil_iterate(r, batch));
    *seconds = MPI_Wtime() - t0;
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, seconds, 1, MPI_DOUBLE, MPI_MAX, r->comm));
    return SB_OK;
}

int stencil_tune_tile(struct stencil_run *r, struct tile_tuning *t)
{
    memset(t, 0, sizeof *t);
    const struct stencil_backend_ops *ops = r->backend.ops;
    const long batch = r->p.depth < r->p.iterations ? r->p.depth : r->p.iterations;
    t->batch = (int)batch;
    t->sweeps = t->batch - (r->p.overlap ? 1 : 0); /* overlap sweeps the first apart */
    if (!r->p.temporal || r->p.tile > 0 || !ops->sweeps_blocked || !ops->tile_candidates ||
        t->sweeps < 2)
        return SB_OK;
    int n = 0; /* rank 0's list: subdomains of uneven size would differ */
    if (r->rank == 0)
        n = ops->tile_candidates(&r->backend.layout, t->sweeps, t->tile, TILE_TUNING_MAX);
    CHECK_MPI(MPI_Bcast(&n, 1, MPI_INT, 0, r->comm));
    if (n < 2) return SB_OK; /* nothing to choose */
    CHECK_MPI(MPI_Bcast(t->tile, n, MPI_INT, 0, r->comm));
    const long fault = r->p.inject_fault;
    r->p.inject_fault = -1;
    r->p.tile = t->tile[0];
    double best = HUGE_VAL, warm;
    int rc = time_batch(r, batch, &warm); /* first touches, caches */
    for (int i = 0; rc == SB_OK && i < n; i++) {
        r->p.tile = t->tile[i];
        rc = time_batch(r, batch, &t->seconds[i]);
        if (rc != SB_OK) break;
        t->count = i + 1;
        if (t->seconds[i] < best) {
            best = t->seconds[i];
            t->chosen = i;
        } else if (t->seconds[i] > GIVE_UP * best) {
            break;
        }
    }
    r->p.inject_fault = fault;
    r->p.tile = t->tile[t->chosen];
    return rc;
}
