/* stencil.calibrate: the copy bandwidth of the backend's memory against
 * sweeps over the own points, and the sweeps of a field in the near cache
 * (what temporal blocking's tiles can reach), measured before the points. */
#ifndef SB_STENCIL_CALIBRATE_H
#define SB_STENCIL_CALIBRATE_H

#include "plan.h"

struct stencil_calibration {
    double copy_gbs, sweep_gbs, ratio; /* the rank with the lowest ratio */
    double field_bytes, cache_bytes;   /* per rank: what was measured, and the cache it exceeds */
    /* sweeps of a field in the near cache (0: the backend has none): the
     * slowest rank's GCells/s, one field as stored and that cache, in bytes */
    double in_cache_gcells, in_cache_field_bytes, near_cache_bytes;
};

/* Both measurements: every rank receives the copy and sweep figures of the
 * rank with the lowest ratio, the slowest rank's in_cache_gcells, and its
 * own in_cache_field_bytes and near_cache_bytes.  Collective over comm. */
int stencil_calibrate(const struct stencil_plan *p, MPI_Comm comm, struct stencil_calibration *cal,
                      struct sb_msg *m);

/* The single-sweep roofline of one rank in GCells/s: the copy's bandwidth
 * over the bytes a cell is read and written with. */
double stencil_roofline_gcells(const struct stencil_plan *p, const struct stencil_calibration *cal);

#endif
