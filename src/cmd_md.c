/* shiftbox md: the proxy MD workload (DESIGN.md "MD proxy"), Lennard-Jones
 * particles whose ghosts travel through an exchange module.
 *
 * Every step: velocity Verlet's first half; at rebuild steps (every
 * md.reneighbor steps, or sooner when a particle moved half the skin)
 * migration to the owning box and a new choice of ghosts; the exchange of
 * the boxes' positions through the module; ghosts placed by slot offset;
 * neighbour lists at rebuilds; forces; the second half.  Ghost positions
 * enter the force sums in slot order, so every module gives the same bits
 * for one decomposition.
 *
 * Team Shift: a box belongs to a team of c ranks.  The leader holds the
 * particles and integrates; every member receives the slots
 * (team_deliver=all) and computes the forces of its share of the box's
 * particles, and the team sums them at the leader: the original algorithm,
 * whose point is to spread the work of a box over c ranks. */
#include "command.h"
#include "log.h"
#include "checkpoint/checkpoint.h"
#include "md/results.h"
#include "md/run.h"
#include "md/step.h"
#include "md/trajectory.h"

#include <string.h>

int cmd_md(struct run_ctx *ctx)
{
    struct md_run r;
    memset(&r, 0, sizeof r);
    struct sb_msg m = {""};
    int rc = md_run_setup(&r, ctx, &m);
    if (rc != SB_OK) {
        if (m.text[0]) (rc == SB_EUSAGE ? log_error : log_rank_error)("%s", m.text);
        md_run_free(&r);
        return rc;
    }
    log_info("\nmd: %lld atoms (%d x %d x %d FCC cells), grid %dx%dx%d%s, box edge %.4g x %.4g x "
             "%.4g, k = %d, module %s, ghosts %s",
             r.natoms, r.prm.cells[0], r.prm.cells[1], r.prm.cells[2], r.topo.dims[0],
             r.topo.dims[1], r.topo.dims[2], r.topo.team_size > 1 ? " of teams" : "", r.geo.edge[0],
             r.geo.edge[1], r.geo.edge[2], r.geo.k, r.module,
             r.prm.trim ? "trimmed per hop (slab)" : "whole");
    log_info("%8s %12s %14s %14s %14s %12s", "step", "temperature", "potential", "kinetic", "total",
             "pressure");
    rc = md_start(&r);
    if (rc == SB_OK && !r.restarted) r.conserved0 = r.history[0].conserved;
    /* a rank that failed leaves now (main aborts the job): the others may
       be waiting for it in the start's exchange */
    if (rc == SB_OK) CHECK_MPI(MPI_Barrier(r.topo.comm));
    double start = MPI_Wtime();
    r.t_mark = start;
    memset(r.seg, 0, sizeof r.seg);
    r.rebuilds = 0;
    r.dangerous = 0;
    r.bytes_sent = 0;
    if (rc == SB_OK && !r.restarted && r.prm.steps == 0 && r.ckpt.at_end)
        rc = md_write_checkpoint(&r, 0, &m); /* a run of no steps: its initial state */
    if (rc == SB_OK && md_trajectory_due(&r.traj, r.start, r.start))
        rc = md_trajectory_append(&r.traj, &r.info, &r.p, r.start, &m);
    for (long step = r.start + 1; step <= r.prm.steps && rc == SB_OK; step++) {
        rc = md_step(&r, step);
        if (rc == SB_OK && checkpoint_due(&r.ckpt, step, r.prm.steps))
            rc = md_write_checkpoint(&r, step, &m);
        if (rc == SB_OK && md_trajectory_due(&r.traj, step, r.start))
            rc = md_trajectory_append(&r.traj, &r.info, &r.p, step, &m);
        if (r.nhistory > 0) {
            const struct md_thermo *last = &r.history[r.nhistory - 1];
            double done = (double)(step - r.start), seconds = MPI_Wtime() - start;
            log_progress(done, (double)(r.prm.steps - r.start), "steps",
                         "md: %.3g M atom-steps/s, total energy %.6f per atom at step %ld",
                         seconds > 0 ? done * (double)r.natoms / seconds / 1e6 : 0.0, last->total,
                         last->step);
        }
    }
    log_progress_done();
    /* closed here only when every rank got here: after a failure the job ends */
    if (rc == SB_OK) rc = md_trajectory_close(&r.traj, &m);
    double loop = MPI_Wtime() - start;
    if (rc != SB_OK && m.text[0]) (rc == SB_EUSAGE ? log_error : log_rank_error)("%s", m.text);
    struct md_results res;
    memset(&res, 0, sizeof res);
    if (rc == SB_OK) rc = md_results_gather(&r, loop, &res);
    int exit_code = res.verified ? SB_OK : SB_EVERIFY;
    if (rc == SB_OK) {
        md_results_print(&r, &res);
        if (ctx->out_dir && ctx->rank == 0) rc = md_results_write(ctx, &r, &res, exit_code);
        if (rc == SB_OK && ctx->out_dir)
            log_info("results: %s/summary.json, %s/md-thermo.csv", ctx->out_dir, ctx->out_dir);
    }
    md_run_free(&r);
    return rc == SB_OK ? exit_code : rc;
}
