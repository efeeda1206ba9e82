/* What a shiftbox stencil run sweeps, read from stencil.*, decomp.dims and
 * checkpoint.* and checked before anything is set up: the field, the
 * weights, the rank grid, the depths, exchange modes and overlaps of the
 * sweep, the backend, whether the fields fit the node, and where the test
 * hook stencil.inject_fault falls.  cmd_stencil.c runs the plan's points
 * (point.h) and reports them (output.h). */
#ifndef SB_STENCIL_PLAN_H
#define SB_STENCIL_PLAN_H

#include "run.h"
#include "../command.h"

enum { STENCIL_MAX_DEPTHS = 256 };

struct checkpoint_plan;

struct stencil_plan {
    struct stencil_params base; /* depth, async, overlap set per point */
    long long depth[STENCIL_MAX_DEPTHS];
    int ndepths;
    bool mode_async[2];
    int nmodes;
    long long overlap[2];
    int noverlaps;
    int dims[3];
    const struct stencil_backend_ops *ops;
    const char *cuda_aware;
    bool verify, calibrate;
    long warmup;
    char device[256];
    /* checkpoints (one point of the sweep only) */
    struct checkpoint_plan *ckpt; /* NULL: none written */
    const char *restart;          /* checkpoint.restart, or "" */
    char *config_text;            /* the resolved configuration, for the file */
};

/* Every stencil.* key but the backend's, and decomp.dims: the plan, or
 * SB_EUSAGE with the key and the accepted values in m.  Local. */
int stencil_plan_read(struct stencil_plan *p, const struct config *c, int nranks, struct sb_msg *m);

/* stencil.backend and stencil.cuda_aware.  auto: CUDA when every rank has a
 * usable GPU, else the CPU with one line; cuda: SB_EUSAGE when it cannot
 * be.  Sets p->ops, p->device and p->base's node_ranks, device_sharers and
 * device_buffers: the plan is whole only after it.  Collective over comm. */
int stencil_plan_backend(struct stencil_plan *p, const struct config *c, MPI_Comm comm,
                         struct sb_msg *m);

/* The CPU backend's fields of every rank on a node must fit in 80 % of its
 * memory: SB_EUSAGE otherwise, decided per node and returned on every rank
 * (sb_agree).  Collective over comm. */
int stencil_plan_check_memory(const struct stencil_plan *p, MPI_Comm comm, struct sb_msg *m);

/* The iterations from `it` on that run before the next checkpoint (every:
 * checkpoint.every, 0 none) or the end, `total`: one stencil_iterate. */
long stencil_stretch(long it, long total, long every);

/* stencil.inject_fault counts the exchanges of one point's run: each
 * stretch starts with one and makes one per `depth` iterations.  A fault
 * beyond the exchanges of every point (the shallowest makes the most)
 * would let a test pass untested: SB_EUSAGE.  Local. */
int stencil_plan_check_fault(const struct stencil_plan *p, long done, long every, struct sb_msg *m);

/* checkpoint.every, at_end and restart: one point of the sweep at a time
 * (SB_EUSAGE for more).  Sets p->restart and p->config_text (the caller
 * frees it, also after a failure), and where checkpoints are written
 * p->ckpt to ckpt, initialised (checkpoint_plan_free).  Collective over
 * ctx->world where checkpoints are written. */
int stencil_plan_checkpoints(struct stencil_plan *p, struct checkpoint_plan *ckpt,
                             const struct run_ctx *ctx, int npts, struct sb_msg *m);

#endif
