/* stencil.calibrate (calibrate.h). */
#include "calibrate.h"
#include "../coll.h"
#include "../decomp.h"

#include <math.h>

/* One rank's extents of calibrate_in_cache's field: lines of 2048 points
 * (2D) or planes of 256 x 32 (3D; fewer lines where three planes would not
 * fit), as many as fit `bytes` with the halo of depth 1 and the lines
 * padded to whole cache lines; at least 8 lines (2D) or 1 plane (3D). */
static void in_cache_shape(const struct stencil_params *prm, double bytes, int per[3])
{
    const int x = prm->dim == 3 ? 256 : 2048;
    const double line = (double)layout_cache_line_pitch(x + 2, prm->real_bytes) * prm->real_bytes;
    per[0] = x;
    per[2] = 1;
    if (prm->dim == 2) {
        int rows = (int)(bytes / line) - 2;
        per[1] = rows < 8 ? 8 : rows;
        return;
    }
    int rows = 32;
    while (rows > 4 && 3.0 * (rows + 2) * line > bytes)
        rows /= 2;
    int planes = (int)(bytes / ((rows + 2) * line)) - 2;
    per[1] = rows;
    per[2] = planes < 1 ? 1 : planes;
}

/* The sweeps of a field that fits the cache temporal blocking works in
 * (the two fields in half of it: in_cache_shape), with ordinary stores as
 * blocking's tiles use, the fastest of five windows of at least 0.05 s:
 * how fast the lines themselves go with no memory behind them, the most
 * that blocking's tiles in that cache (`cache` bytes) can reach with them.
 * Sets this rank's GCells/s and the bytes of one of its fields as stored. */
static int calibrate_in_cache(const struct stencil_plan *p, MPI_Comm comm, double cache,
                              double *gcells, double *field_bytes, struct sb_msg *m)
{
    struct stencil_params prm = p->base;
    prm.depth = 1;
    prm.stores = STORES_CACHED;
    int per[3];
    in_cache_shape(&prm, cache / 4, per);
    for (int i = 0; i < 3; i++)
        prm.global[i] = per[i] * p->dims[i];
    struct stencil_run r;
    int rc = sb_agree(stencil_setup(&r, &prm, comm, p->dims, p->ops, m), m, comm);
    enum { batch = 16 };
    struct sbox own[batch];
    for (int i = 0; i < batch; i++)
        own[i] = grid_sweep_region(&r.grid, 0);
    double seconds = 0, t, best = 0;
    if (rc == SB_OK) rc = r.backend.ops->sweep(&r.backend, batch, own, &t); /* warm */
    for (int window = 0; rc == SB_OK && window < 5; window++) {
        long sweeps = 0;
        double all = 0;
        while (rc == SB_OK && all < 0.05) {
            rc = r.backend.ops->sweep(&r.backend, batch, own, &seconds);
            all += seconds;
            sweeps += batch;
        }
        double rate = (double)sbox_points(&own[0]) * (double)sweeps / all / 1e9;
        best = rate > best ? rate : best;
    }
    *field_bytes =
        rc == SB_OK ? (double)layout_stored_points(&r.backend.layout) * prm.real_bytes : 0;
    *gcells = rc == SB_OK ? best : 0.0;
    stencil_teardown(&r);
    return sb_agree(rc, m, comm); /* no rank goes on to the reduction alone */
}

/* Copy bandwidth of the backend's memory against sweeps over the own
 * points, both counted as bytes read plus bytes written.  The field is made
 * at least 4 times the backend's largest cache per rank (else the cache is
 * measured, not the memory), and the sweeps are timed together as the
 * copies are (a timing per sweep would add each one's start-up). */
int stencil_calibrate(const struct stencil_plan *p, MPI_Comm comm, struct stencil_calibration *cal,
                      struct sb_msg *m)
{
    struct stencil_params prm = p->base;
    prm.depth = 1;
    /* the ranks that share one cache stream 4 times it together */
    int nranks, local, sharers;
    MPI_Comm_size(comm, &nranks);
    node_place(comm, &local, &sharers);
    if (p->ops != &stencil_backend_cpu) sharers = prm.device_sharers > 1 ? prm.device_sharers : 1;
    double cache = (double)p->ops->cache_bytes();
    double have = (double)prm.global[0] * prm.global[1] * prm.global[2] * prm.real_bytes;
    double grow = 4.0 * cache / sharers * nranks / have;
    if (grow > 1) { /* in x and y alike, keeping the shape */
        double per_axis = prm.dim == 2 || prm.global[1] > 1 ? sqrt(grow) : grow;
        prm.global[0] = (int)ceil(prm.global[0] * per_axis);
        if (per_axis < grow) prm.global[1] = (int)ceil(prm.global[1] * grow / per_axis);
    }
    struct stencil_run r;
    int rc = sb_agree(stencil_setup(&r, &prm, comm, p->dims, p->ops, m), m, comm);
    enum { reps = 20 };
    double copy = 0, sweep = 0, t;
    struct sbox own[reps];
    for (int i = 0; i < reps; i++)
        own[i] = grid_sweep_region(&r.grid, 0);
    if (rc == SB_OK) rc = r.backend.ops->copy_time(&r.backend, 2, &t); /* warm */
    if (rc == SB_OK) rc = r.backend.ops->copy_time(&r.backend, reps, &copy);
    if (rc == SB_OK) rc = r.backend.ops->sweep(&r.backend, 2, own, &t); /* warm */
    if (rc == SB_OK) rc = r.backend.ops->sweep(&r.backend, reps, own, &sweep);
    double field = (double)layout_points(&r.backend.layout) * prm.real_bytes;
    double swept = (double)sbox_points(&own[0]) * prm.real_bytes;
    stencil_teardown(&r);
    CHECK(sb_agree(rc, m, comm)); /* a copy or sweep failed on one rank: all return */
    double mine[5] = {2 * field * reps / copy / 1e9, 2 * swept * reps / sweep / 1e9, 0, field,
                      cache};
    mine[2] = mine[1] / mine[0];
    struct {
        double ratio;
        int rank;
    } in = {mine[2], 0}, out;
    MPI_Comm_rank(comm, &in.rank);
    CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm));
    CHECK_MPI(MPI_Bcast(mine, 5, MPI_DOUBLE, out.rank, comm));
    *cal = (struct stencil_calibration){mine[0], mine[1], mine[2], mine[3], mine[4], 0, 0, 0};
    if (!p->ops->near_cache_bytes) return SB_OK;
    double slowest = 0; /* every rank sweeps a field of the same shape */
    cal->near_cache_bytes = (double)p->ops->near_cache_bytes();
    CHECK(calibrate_in_cache(p, comm, cal->near_cache_bytes, &slowest, &cal->in_cache_field_bytes,
                             m));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &slowest, 1, MPI_DOUBLE, MPI_MIN, comm));
    cal->in_cache_gcells = slowest;
    return SB_OK;
}

double stencil_roofline_gcells(const struct stencil_plan *p, const struct stencil_calibration *cal)
{
    return cal->copy_gbs / (2.0 * p->base.real_bytes);
}
