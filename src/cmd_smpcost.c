/* shiftbox smpcost: what copies through shared memory cost on this node,
 * measured and modelled the way of seed 003 (sec. 3-5).
 *
 * The ranks are the workers: they share one array from
 * MPI_Win_allocate_shared and run supersteps of copy-in, local computation
 * and copy-out separated by barriers.  Good mode: worker i touches its own
 * contiguous run, caches primed; bad mode: worker i touches integer i of
 * consecutive cache lines, so every line is shared by all workers.  Three
 * suites (sec. 4.1) are timed in both modes; the cost functions of sec. 4.2
 * are fitted on one suite and validated on the other two; the good and bad
 * predictions bound any superstep (sec. 5), and ShiftBox's own copy
 * patterns are placed inside that interval.
 *
 * The driver: the plan (src/smp/plan.c), the suites, patterns and
 * applications (suites.c), the fits (families.c), the reports (output.c). */
#include "coll.h"
#include "command.h"
#include "log.h"
#include "smp/smpcost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cmd_smpcost(struct run_ctx *ctx)
{
    struct smp_plan p;
    struct sb_msg m = {""};
    struct smp_memory mem = {.comm = MPI_COMM_NULL, .win = MPI_WIN_NULL};
    struct smp_results r;
    memset(&r, 0, sizeof r);
    /* the plan reads each node's caches: before the check that all ranks
       share one node, every rank stops with the one that must */
    int rc = sb_agree(smp_plan_read(&p, ctx->cfg, ctx->nranks, &m), &m, ctx->world);
    if (rc == SB_OK) rc = smp_memory_init(&mem, &p, ctx->world, &m);
    if (rc != SB_OK) {
        if (rc == SB_EUSAGE) log_error("%s", m.text);
        if (rc != SB_ERUNTIME) smp_memory_free(&mem); /* collective: see the end */
        return rc;
    }
    log_info("\nsmpcost: %d workers sharing one array; cache line %ld integers; %s, %ld "
             "integers per worker; h up to %ld (bad mode up to %ld); %d repetitions each, "
             "%d of a superstep over smpcost.long_seconds = %g s%s",
             p.p, p.line_ints, p.cache_source, p.cache_ints, p.tmax, p.bad_max, p.reps,
             smp_reps_of(&p, HUGE_VAL), p.long_seconds, p.long_seconds > 0 ? "" : " (off)");
    double estimate = 0.0;
    int nsteps = 0;
    struct superstep *steps = smp_suites_build(&p, &nsteps);
    rc = smp_estimate_suites(&mem, &p, steps, nsteps, &estimate);
    if (rc == SB_OK && estimate > p.max_seconds) {
        /* long before the limit would stop it: say so now, with what helps */
        log_error("smpcost.max_seconds = %g: the suites would take about %.3g s on this node "
                  "(h up to %ld integers, scaled to the %s; estimated from one superstep of "
                  "each mode at the largest h); accepted: raise smpcost.max_seconds above "
                  "that, or lower smpcost.cache_bytes (the h values and the time scale with "
                  "it), smpcost.reps or smpcost.per_set",
                  p.max_seconds, estimate, p.tmax, p.cache_source);
        rc = SB_EUSAGE;
    } else if (rc == SB_OK) {
        log_info("the suites: about %.3g s here (estimated from one superstep of each mode at "
                 "the largest h; limit smpcost.max_seconds = %g)",
                 estimate, p.max_seconds);
        rc = smp_measure_suites(&mem, &p, steps, nsteps, &r);
    }
    if (rc == SB_OK) {
        smp_fit_families(&p, &r);
        rc = smp_measure_patterns(&mem, &p, &r);
        if (rc == SB_OK && p.any_app) rc = smp_measure_apps(&mem, &p, &r);
    }
    if (rc == SB_OK) {
        log_info("%d supersteps timed, %d skipped (beyond the bad-mode array or the time limit)",
                 r.nsamples, r.skipped);
        smp_print_fits(&r, r.use);
        smp_print_fits(&r, (enum smp_fit_method) !r.use);
        smp_print_patterns(&r);
        if (p.any_app) smp_apps_report(&r.apps, smp_predict_app, &r);
        const enum smp_function *best = r.best[r.use];
        const struct smp_fitted *good = &r.fit[r.use][MODE_GOOD][best[MODE_GOOD]],
                                *bad = &r.fit[r.use][MODE_BAD][best[MODE_BAD]];
        bool fitted = good->ok && bad->ok;
        if (fitted)
            log_info("\nbest: good family %s (average %.1f%%, maximum %.1f%%), bad family %s "
                     "(average %.1f%%, maximum %.1f%%) on the validation suites (smp.fit = %s)",
                     smp_function_names[best[MODE_GOOD]], 100 * good->avg, 100 * good->max,
                     smp_function_names[best[MODE_BAD]], 100 * bad->avg, 100 * bad->max,
                     smp_fit_names[r.use]);
        smp_print_accuracy(&r);
        if (!fitted) {
            log_error("smpcost: too few supersteps to fit both families (%d timed, %d skipped: "
                      "beyond the bad-mode array of smpcost.bad_bytes, or past "
                      "smpcost.max_seconds = %g); the h values scale with the cache (%s); "
                      "accepted: raise smpcost.bad_bytes or smpcost.max_seconds, or lower "
                      "smpcost.cache_bytes",
                      r.nsamples, r.skipped, p.max_seconds, p.cache_source);
            rc = SB_EVERIFY;
        }
        for (int app = 0; app < NAPPS; app++)
            if (r.apps.sorted[app] != r.apps.runs[app]) {
                log_error("smpcost: the %s sort left keys out of order or lost some in %d of %d "
                          "runs (smp.apps)",
                          smp_app_names[app], r.apps.runs[app] - r.apps.sorted[app],
                          r.apps.runs[app]);
                rc = SB_EVERIFY;
            }
        if (ctx->out_dir && ctx->rank == 0 && smp_write_outputs(ctx, &p, &r) != SB_OK)
            rc = SB_ERUNTIME;
        if (ctx->out_dir && rc != SB_ERUNTIME)
            log_info("results: %s/summary.json, %s/smpcost.csv%s%s", ctx->out_dir, ctx->out_dir,
                     p.any_app ? ", " : "", p.any_app ? "smpcost-apps.csv" : "");
    }
    if (rc != SB_ERUNTIME) MPI_Bcast(&rc, 1, MPI_INT, 0, ctx->world);
    free(r.samples);
    free(steps);
    smp_apps_free(&r.apps);
    /* collective (MPI_Win_free): after a failure that may be this rank's
       alone, main ends the job instead */
    if (rc != SB_ERUNTIME) smp_memory_free(&mem);
    return rc;
}
