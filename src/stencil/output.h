/* What a stencil run reports: the header and a line per point on stdout
 * (seed 004 Appendix C's segments), the calibration's lines, and with
 * --out DIR summary.json and stencil.csv. */
#ifndef SB_STENCIL_OUTPUT_H
#define SB_STENCIL_OUTPUT_H

#include "calibrate.h"
#include "point.h"

/* Rank 0 prints (log_info); no MPI calls. */
void stencil_print_calibration(const struct stencil_plan *p, const struct stencil_calibration *cal);
void stencil_print_header(const struct stencil_plan *p, int nranks);
void stencil_print_point(const struct stencil_plan *p, const struct stencil_point *pt);

/* summary.json and stencil.csv into ctx->out_dir (rank 0 only); verdict:
 * 1 every point verified, 0 one failed or the points' hashes differ, -1
 * nothing compared. */
int stencil_write_outputs(const struct run_ctx *ctx, const struct stencil_plan *p,
                          const struct stencil_point *pts, int npts,
                          const struct stencil_calibration *cal, int verdict);

#endif
