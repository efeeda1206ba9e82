/* shiftbox exchange: sweeps exchange modules over grids, team sizes, k and
 * payloads.  Every exchange is timed on every rank after a barrier and every
 * byte it delivered is verified; each sweep point reports the statistics of
 * seed 002 sec. 3.4 over the delivering ranks x repetitions, unfiltered and
 * filtered at cut_coef x median.
 *
 * The driver: the plan (src/sweep/plan.c, its test hooks in inject.c), then
 * grid by grid -- each team size c, each grid of the P/c boxes -- the
 * points of src/sweep/grid.c, then the verdict and the reports
 * (src/sweep/results.c). */
#include "coll.h"
#include "command.h"
#include "decomp.h"
#include "log.h"
#include "sweep/grid.h"
#include "sweep/inject.h"
#include "sweep/plan.h"
#include "sweep/results.h"

#include <stdlib.h>
#include <string.h>

#define MAX_GRIDS 512

/* The grids of nboxes boxes to run: every factorisation, or the one asked
 * for.  Returns how many, or 0 with a message. */
static int list_grids(const struct sweep_plan *p, int nboxes, int (*grids)[3], struct sb_msg *m)
{
    if (!p->all_grids) return choose_dims(nboxes, p->dims_request, grids[0], m) == SB_OK ? 1 : 0;
    int n = factorisations(nboxes, grids, MAX_GRIDS);
    if (n > MAX_GRIDS)
        return sb_fail(m, 0, "decomp.dims = all: %d boxes make more than %d grids", nboxes,
                       MAX_GRIDS);
    return n;
}

static int run_all(struct run_ctx *ctx, const struct sweep_plan *p, struct sweep_results *r,
                   long total)
{
    struct sb_msg m = {""};
    int(*grids)[3] = sb_malloc(MAX_GRIDS * sizeof *grids, "grids");
    long done = 0;
    int rc = SB_OK;
    for (int ic = 0; ic < p->nteams && rc == SB_OK; ic++) {
        int c = (int)p->teams[ic];
        int ngrids = list_grids(p, ctx->nranks / c, grids, &m);
        if (ngrids == 0) {
            rc = SB_EUSAGE;
            log_error("%s", m.text);
            break;
        }
        for (int ig = 0; ig < ngrids && rc == SB_OK; ig++) {
            struct sweep_grid g;
            memset(&g, 0, sizeof g);
            rc = topology_init(&g.topo, ctx->world, c, grids[ig], &m);
            if (rc == SB_OK) rc = sweep_grid_init(&g, p, r, &m);
            if (rc == SB_OK) rc = sweep_grid_run(ctx, p, &g, &done, total);
            log_progress_done();
            if (rc == SB_OK) rc = sweep_grid_finish(p, &g, r);
            if (rc == SB_OK && ctx->rank == 0) {
                log_info("\ngrid %dx%dx%d of %d boxes, %d rank%s per box:", g.topo.dims[0],
                         g.topo.dims[1], g.topo.dims[2], g.topo.nboxes, c, c == 1 ? "" : "s");
                sweep_results_print_grid(p, g.pts, g.npoints);
            }
            if (rc != SB_OK && m.text[0]) log_error("%s", m.text);
            sweep_grid_free(&g);
            topology_free(&g.topo);
        }
    }
    free(grids);
    return rc;
}

static long count_exchanges(const struct sweep_plan *p, int nranks)
{
    long grids = 0;
    int(*tmp)[3] = sb_malloc(MAX_GRIDS * sizeof *tmp, "grids");
    for (int i = 0; i < p->nteams; i++)
        grids += p->all_grids ? factorisations(nranks / (int)p->teams[i], tmp, MAX_GRIDS) : 1;
    free(tmp);
    return grids * p->nk * p->nkinds * p->nbytes * p->nmodules *
           (sweep_plan_point_runs(p) + p->repetitions * (p->batch - 1));
}

int cmd_exchange(struct run_ctx *ctx)
{
    struct sweep_plan p;
    struct sb_msg m = {""};
    int rc = sweep_plan_from_config(&p, ctx->cfg, ctx, &m);
    if (rc != SB_OK) {
        log_error("%s", m.text);
        sweep_plan_free(&p);
        return rc;
    }
    struct sweep_results r;
    rc = sweep_results_init(&r, &p, ctx);
    if (rc != SB_OK) {
        sweep_plan_free(&p);
        return rc;
    }
    long total = count_exchanges(&p, ctx->nranks);
    log_info("\nexchange: %d module(s), phases %s, %ld repetitions after %ld warm-up%s, %ld "
             "exchanges in all; times per exchange over the ranks that receive slots:",
             p.nmodules, p.phases_text, p.repetitions, p.warmup,
             p.interleave ? ", points of a grid taking turns" : "", total);
    rc = run_all(ctx, &p, &r, total);

    long counts[2] = {0, 0}; /* points failed; of them, failed only by disagreeing */
    long injected = 0, dropped = 0;
    for (int i = 0; i < r.npoints; i++) {
        counts[0] += !sweep_point_passed(&r.pts[i]);
        counts[1] += r.pts[i].wrong_total == 0 && !r.pts[i].modules_agree;
        injected += r.pts[i].injected;
        dropped += r.pts[i].dropped;
    }
    /* Rank 0 compared the digests; all ranks must agree on the verdict. */
    if (rc == SB_OK) {
        int brc = sb_bcast(counts, 2, MPI_LONG, 0, ctx->world);
        if (brc != MPI_SUCCESS)
            rc = sb_mpi_error("MPI_Ibcast or MPI_Wait", brc, __FILE__, __LINE__);
    }
    long failed = counts[0];
    bool verified = failed == 0;
    int exit_code = verified ? SB_OK : SB_EVERIFY;
    if (rc == SB_OK && !sweep_inject_seen(&p.inject, injected, dropped, failed))
        exit_code = SB_EUSAGE;
    if (rc == SB_OK) {
        sweep_results_print_pass_fail(&r);
        if (ctx->out_dir && ctx->rank == 0)
            rc = sweep_results_write(ctx, &p, &r, verified, exit_code);
    }
    if (rc == SB_OK && !p.verify)
        log_info("\nverification: off (exchange.verify = 0): timings of %d points, %ld exchanges "
                 "on %d ranks; no byte was checked",
                 r.npoints, total, ctx->nranks);
    if (rc == SB_OK && p.verify) {
        char skipped[80] = ""; /* every rank skips alike: rank 0's count is the run's */
        if (dropped > 0)
            snprintf(skipped, sizeof skipped, ", %ld of them skipped by exchange.inject_drop",
                     dropped);
        log_info("\nverified: %s (%d points, %ld failed, %ld exchanges on %d ranks%s)",
                 verified ? "true" : "false", r.npoints, failed, total, ctx->nranks, skipped);
        if (failed > counts[1])
            log_info("wrong bytes: the ranks above name the first of each point");
        if (counts[1])
            log_info("%ld point(s) verified byte for byte but their slots differ between modules "
                     "(slot_digest in summary.json; exchange.slot_hashes=1 writes every slot's "
                     "hash)",
                     counts[1]);
        if (ctx->out_dir)
            log_info("results: %s/summary.json, %s/exchange.csv%s", ctx->out_dir, ctx->out_dir,
                     p.slot_hashes ? ", slot-hashes.csv" : "");
    }
    sweep_results_free(&r);
    sweep_plan_free(&p);
    return rc == SB_OK ? exit_code : rc;
}
