/* What the driver hands a command, and the table of commands. */
#ifndef SB_COMMAND_H
#define SB_COMMAND_H

#include "config.h"
#include "placement.h"
#include "timer.h"

#include <mpi.h>

struct run_ctx {
    const struct config *cfg;
    const struct command *cmd;
    MPI_Comm world;
    int nranks, rank;
    struct timer_calibration timer;
    struct placement placement; /* the nodes the ranks run on (rank 0 holds the table) */
    const char *out_dir; /* --out DIR, or NULL */
};

struct command {
    const char *name;
    const char *summary;
    const char *const *sections; /* configuration sections it reads */
    /* Runs on every rank; returns SB_OK, SB_EVERIFY or SB_EUSAGE agreed by
     * all ranks, or SB_ERUNTIME (the driver then aborts the job). */
    int (*run)(struct run_ctx *ctx);
};

int cmd_exchange(struct run_ctx *ctx);
int cmd_md(struct run_ctx *ctx);
int cmd_pingpong(struct run_ctx *ctx);
int cmd_model(struct run_ctx *ctx);
int cmd_stencil(struct run_ctx *ctx);
int cmd_smpcost(struct run_ctx *ctx);

#endif
