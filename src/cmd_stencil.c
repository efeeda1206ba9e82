/* shiftbox stencil: the deep-halo stencil of seed 004, in 2D and 3D, on the
 * CUDA or the CPU backend (DESIGN.md "Deep-halo stencil").
 *
 * For each point of the sweep (depth x exchange x overlap) the field is set
 * to a pattern of global coordinates, `stencil.iterations` sweeps run with
 * one halo exchange every depth sweeps, and the segments of seed 004
 * sec. 3.5 are timed on every rank.  With stencil.verify=1 the final field
 * is compared bit for bit with a single-rank depth-1 run of the same
 * backend.  Results: a table like seed 004 Appendix C on stdout, and with
 * --out DIR summary.json and stencil.csv. */
#include "command.h"
#include "log.h"
#include "checkpoint/checkpoint.h"
#include "stencil/calibrate.h"
#include "stencil/output.h"
#include "stencil/plan.h"
#include "stencil/point.h"
#include "stencil/state.h"

#include <stdlib.h>
#include <string.h>

/* The calibration, then every point in turn, each printed as it ends; the
 * points' field hashes must agree (verdict: 1 every point verified, 0 one
 * failed or the hashes differ, -1 nothing compared). */
static int run_all(struct run_ctx *ctx, struct stencil_plan *p, struct stencil_point *pts, int npts,
                   struct stencil_calibration *cal, int *verdict, struct sb_msg *m)
{
    struct stencil_references ref = {NULL, NULL};
    int rc = SB_OK;
    if (p->calibrate) {
        rc = stencil_calibrate(p, ctx->world, cal, m);
        if (rc == SB_OK) stencil_print_calibration(p, cal);
    }
    if (rc == SB_OK) stencil_print_header(p, ctx->nranks);
    *verdict = p->verify ? 1 : -1; /* -1: nothing compared yet */
    for (int i = 0; rc == SB_OK && i < npts; i++) {
        log_progress(i, npts, "points", "stencil: next depth %d", pts[i].depth);
        rc = stencil_point_run(p, ctx->world, &pts[i], &ref, m);
        log_progress_done();
        if (rc != SB_OK) break;
        stencil_print_point(p, &pts[i]);
        if (pts[i].verified == 0 || pts[i].cpu_agrees == 0) *verdict = 0;
        /* Every point computes the same field: depth, exchange and overlap
         * change only how, so the hashes must agree even without verify. */
        if (pts[i].hash != pts[0].hash) {
            log_error("stencil: depth %d %s overlap %d ends with field hash %016llx, the first "
                      "point with %016llx: the variants disagree",
                      pts[i].depth, pts[i].async ? "async" : "sync", pts[i].overlap,
                      (unsigned long long)pts[i].hash, (unsigned long long)pts[0].hash);
            *verdict = 0; /* a comparison, made with or without stencil.verify */
        }
    }
    free(ref.same);
    free(ref.cpu);
    return rc;
}

int cmd_stencil(struct run_ctx *ctx)
{
    struct stencil_plan p;
    struct sb_msg m = {""};
    int rc = stencil_plan_read(&p, ctx->cfg, ctx->nranks, &m);
    if (rc == SB_OK) rc = stencil_plan_backend(&p, ctx->cfg, ctx->world, &m);
    if (rc == SB_OK) rc = stencil_plan_check_memory(&p, ctx->world, &m);
    long done = 0; /* a restart file is checked before anything is set up or made */
    const char *restart = cfg_text(ctx->cfg, "checkpoint.restart");
    if (rc == SB_OK && restart[0])
        rc = stencil_state_check(restart, &p.base, ctx->world, &done, &m);
    if (rc == SB_OK && done > p.base.iterations)
        rc = sb_fail(&m, SB_EUSAGE,
                     "stencil.iterations = %ld ends before the checkpoint's iteration %ld; "
                     "accepted: stencil.iterations >= %ld (the run continues to it)",
                     p.base.iterations, done, done);
    if (rc == SB_OK)
        rc = stencil_plan_check_fault(&p, done, (long)cfg_int(ctx->cfg, "checkpoint.every"), &m);
    if (rc != SB_OK) {
        if (rc == SB_ERUNTIME && m.text[0])
            log_rank_error("%s", m.text);
        else
            log_error("%s", m.text);
        return rc;
    }
    int npts = p.ndepths * p.nmodes * p.noverlaps;
    struct checkpoint_plan ckpt;
    memset(&ckpt, 0, sizeof ckpt);
    rc = stencil_plan_checkpoints(&p, &ckpt, ctx, npts, &m);
    if (rc != SB_OK) {
        log_error("%s", m.text);
        free(p.config_text);
        return rc;
    }
    struct stencil_point *pts = sb_calloc((size_t)npts, sizeof *pts, "the sweep");
    int k = 0;
    for (int d = 0; d < p.ndepths; d++)
        for (int e = 0; e < p.nmodes; e++)
            for (int o = 0; o < p.noverlaps; o++)
                pts[k++] = (struct stencil_point){
                    .depth = (int)p.depth[d], .async = p.mode_async[e], .overlap = p.overlap[o]};
    struct stencil_calibration cal = {0};
    int verdict = -1;
    rc = run_all(ctx, &p, pts, npts, &cal, &verdict, &m);
    if (rc == SB_EUSAGE) log_error("%s", m.text);
    if (rc == SB_ERUNTIME && m.text[0]) log_rank_error("%s", m.text);
    if (rc == SB_OK) {
        log_info("\nfield hash %016llx (the last point; equal for every decomposition of the same "
                 "run)",
                 (unsigned long long)pts[npts - 1].hash);
        log_info("verified: %s",
                 verdict > 0   ? "true (every point bit for bit against a single-rank depth-1 run)"
                 : verdict < 0 ? "unchecked (stencil.verify = 0)"
                 : p.verify    ? "false"
                               : "false (the points' field hashes disagree; stencil.verify = 0)");
        if (ctx->out_dir && ctx->rank == 0)
            rc = stencil_write_outputs(ctx, &p, pts, npts, &cal, verdict);
        if (rc == SB_OK && ctx->out_dir)
            log_info("results: %s/summary.json, %s/stencil.csv", ctx->out_dir, ctx->out_dir);
        if (rc == SB_OK && verdict == 0) rc = SB_EVERIFY;
    }
    if (rc != SB_ERUNTIME) MPI_Bcast(&rc, 1, MPI_INT, 0, ctx->world);
    if (p.ckpt) checkpoint_plan_free(p.ckpt);
    free(p.config_text);
    free(pts);
    return rc;
}
