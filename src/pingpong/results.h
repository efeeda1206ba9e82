/* The results of shiftbox pingpong: the source's times to rank 0, the
 * statistics of every series, the tables, the Hockney fit (hockney.json,
 * the models' costs) and summary.json. */
#ifndef SB_PINGPONG_RESULTS_H
#define SB_PINGPONG_RESULTS_H

#include "plan.h"
#include "../command.h"

/* The source's times travel to rank 0 (point to point; the other ranks
 * return at once). */
int ping_collect(const struct ping_plan *p, struct ping_size *sizes, struct ping_copy_size *copy,
                 int rank, MPI_Comm world);
/* Rank 0: checked[0] messages compared, checked[1] of them wrong. */
int ping_report(struct run_ctx *ctx, const struct ping_plan *p, struct ping_size *sizes,
                struct ping_copy_size *copy, const long checked[2]);

#endif
