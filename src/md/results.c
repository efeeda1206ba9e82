/* What an MD run reports (results.h). */
#include "results.h"
#include "../log.h"
#include "../node_memory.h"
#include "../report.h"
#include "../splitmix.h"
#include "../timer.h"
#include "../../comm/verify.h"

#include <math.h>
#include <stdio.h>

static const char *const md_segment_names[MD_NSEGMENTS] = {
    [T_EXCHANGE] = "exchange",   [T_FORCE] = "force",     [T_NEIGHBOR] = "neighbor",
    [T_INTEGRATE] = "integrate", [T_MIGRATE] = "migrate", [T_CHECKPOINT] = "checkpoint",
    [T_OTHER] = "other"};

/* Every particle's absolute position and its velocity, each hashed with
 * its id and summed over the particles (mod 2^64): the same bits give the
 * same digests, in any order and on any number of ranks, and nothing is
 * gathered (a run of 10^9 atoms needs no more memory on rank 0). */
static int state_digests(struct md_run *r, uint64_t digest[2])
{
    uint64_t mine[2] = {0, 0};
    int n = md_leads(r) ? r->p.n : 0;
    for (int i = 0; i < n; i++) {
        double x[3], v[3];
        for (int d = 0; d < 3; d++) {
            x[d] = r->geo.corner[d] + r->p.x[3 * i + d];
            v[d] = r->p.v[3 * i + d];
        }
        uint64_t key = splitmix64((uint64_t)r->p.id[i]);
        mine[0] += splitmix64(key ^ slot_hash((const unsigned char *)x, sizeof x));
        mine[1] += splitmix64(key ^ slot_hash((const unsigned char *)v, sizeof v));
    }
    CHECK_MPI(MPI_Allreduce(mine, digest, 2, MPI_UINT64_T, MPI_SUM, r->topo.comm));
    return SB_OK;
}

static int segment_spread(struct md_run *r, struct md_segment_stats out[MD_NSEGMENTS])
{
    double lo[MD_NSEGMENTS], mean[MD_NSEGMENTS], hi[MD_NSEGMENTS];
    CHECK_MPI(timer_spread(r->seg, MD_NSEGMENTS, r->topo.comm, lo, mean, hi));
    for (int s = 0; s < MD_NSEGMENTS; s++)
        out[s] = (struct md_segment_stats){lo[s], mean[s], hi[s]};
    return SB_OK;
}

static cJSON *thermo_json(const struct md_thermo *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "step", (double)t->step);
    cJSON_AddNumberToObject(o, "temperature", t->temperature);
    cJSON_AddNumberToObject(o, "potential", t->potential);
    cJSON_AddNumberToObject(o, "kinetic", t->kinetic);
    cJSON_AddNumberToObject(o, "total", t->total);
    cJSON_AddNumberToObject(o, "pressure", t->pressure);
    cJSON_AddNumberToObject(o, "conserved", t->conserved);
    return o;
}

static cJSON *restart_json(const struct md_run *r)
{
    const struct md_restart *s = &r->restart;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", r->ckpt_source);
    cJSON_AddNumberToObject(o, "step", (double)s->step);
    cJSON_AddBoolToObject(o, "exact", s->exact);
    cJSON_AddNumberToObject(o, "written_by_ranks", s->ranks);
    cJSON_AddItemToObject(o, "written_on_dims", cJSON_CreateIntArray(s->dims, 3));
    cJSON_AddNumberToObject(o, "written_with_team_size", s->team_size);
    cJSON_AddStringToObject(o, "written_with_module", s->module);
    cJSON_AddNumberToObject(o, "bytes", s->bytes);
    cJSON_AddNumberToObject(o, "read_seconds", s->seconds);
    return o;
}

int md_results_write(struct run_ctx *ctx, struct md_run *r, const struct md_results *res,
                     int exit_code)
{
    cJSON *root = report_summary_begin("md", ctx->cfg, ctx->cmd->sections, ctx->nranks, &ctx->timer,
                                       &ctx->placement);
    cJSON_AddBoolToObject(root, "verified", res->verified);
    cJSON_AddNumberToObject(root, "exit_code", exit_code);
    cJSON *o = cJSON_AddObjectToObject(root, "md");
    cJSON_AddNumberToObject(o, "atoms", (double)r->natoms);
    cJSON_AddNumberToObject(o, "atoms_final", (double)res->count);
    cJSON_AddNumberToObject(o, "steps", (double)r->prm.steps);
    cJSON_AddStringToObject(o, "module", r->module);
    cJSON_AddNumberToObject(o, "team_size", r->topo.team_size);
    cJSON_AddItemToObject(o, "dims", cJSON_CreateIntArray(r->topo.dims, 3));
    cJSON_AddNumberToObject(o, "k", r->geo.k);
    cJSON_AddStringToObject(o, "ghost_filter", r->prm.trim ? "slab" : "none");
    cJSON_AddItemToObject(o, "box_edge", cJSON_CreateDoubleArray(r->geo.edge, 3));
    cJSON_AddNumberToObject(o, "rebuilds", (double)r->rebuilds);
    cJSON_AddNumberToObject(o, "reneighbor_check", r->prm.reneighbor_check);
    cJSON_AddNumberToObject(o, "dangerous_builds", (double)r->dangerous);
    cJSON_AddItemToObject(o, "initial", thermo_json(&r->history[0]));
    cJSON_AddItemToObject(o, "final", thermo_json(&r->history[r->nhistory - 1]));
    cJSON_AddNumberToObject(o, "energy_drift", res->drift);
    cJSON_AddNumberToObject(o, "drift_bound", r->prm.drift_bound);
    cJSON_AddStringToObject(o, "drift_bound_from",
                            r->drift_derived ? "md.dt, md.steps and atoms" : "md.drift_bound");
    cJSON_AddNumberToObject(o, "loop_seconds", res->loop);
    cJSON_AddNumberToObject(o, "atom_steps_per_second", res->rate);
    cJSON *sent = cJSON_AddObjectToObject(o, "bytes_sent_per_step");
    cJSON_AddNumberToObject(sent, "mean", res->bytes_mean);
    cJSON_AddNumberToObject(sent, "max", res->bytes_max);
    cJSON *times = cJSON_AddObjectToObject(o, "time_s");
    for (int s = 0; s < MD_NSEGMENTS; s++) {
        cJSON *t = cJSON_AddObjectToObject(times, md_segment_names[s]);
        cJSON_AddNumberToObject(t, "min", res->seg[s].min);
        cJSON_AddNumberToObject(t, "mean", res->seg[s].mean);
        cJSON_AddNumberToObject(t, "max", res->seg[s].max);
    }
    char digest[20];
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)res->digest[0]);
    cJSON_AddStringToObject(o, "position_digest", digest);
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)res->digest[1]);
    cJSON_AddStringToObject(o, "velocity_digest", digest);
    cJSON_AddNumberToObject(o, "start_step", (double)r->start);
    cJSON_AddNumberToObject(o, "conserved_energy_at_step_0", r->conserved0);
    if (r->restarted) cJSON_AddItemToObject(o, "restart", restart_json(r));
    cJSON *mem = cJSON_AddObjectToObject(o, "memory");
    cJSON_AddNumberToObject(mem, "estimate_bytes", r->footprint_most);
    cJSON_AddNumberToObject(mem, "peak_rss_bytes", res->peak_rss);
    const struct md_footprint *f = &r->footprint;
    cJSON *parts = cJSON_AddObjectToObject(mem, "rank0_estimate_bytes");
    cJSON_AddNumberToObject(parts, "particles", f->particles);
    cJSON_AddNumberToObject(parts, "exchange", f->exchange);
    cJSON_AddNumberToObject(parts, "neighbour_lists", f->lists);
    cJSON_AddNumberToObject(parts, "checkpoint_staging", f->staging);
    cJSON_AddNumberToObject(parts, "process_before_md", f->baseline);
    cJSON *ck = cJSON_AddObjectToObject(o, "checkpoints");
    cJSON_AddNumberToObject(ck, "written", r->ckpt.count);
    cJSON_AddNumberToObject(ck, "bytes", r->ckpt.bytes);
    cJSON_AddNumberToObject(ck, "seconds", r->ckpt.seconds);
    cJSON_AddStringToObject(ck, "dir", r->ckpt.dir);
    if (r->traj.every > 0) {
        cJSON *tr = cJSON_AddObjectToObject(o, "trajectory");
        cJSON_AddStringToObject(tr, "file", r->traj.path);
        cJSON_AddNumberToObject(tr, "every", (double)r->traj.every);
        cJSON_AddNumberToObject(tr, "frames", (double)r->traj.frames);
        cJSON_AddNumberToObject(tr, "seconds", r->traj.seconds);
    }
    CHECK(report_finish_json(ctx->out_dir, "summary.json", root));

    struct report_text csv;
    CHECK(report_text_open(&csv));
    fprintf(csv.f, "step,temperature,potential,kinetic,total,pressure,conserved\n");
    for (int i = 0; i < r->nhistory; i++) {
        const struct md_thermo *t = &r->history[i];
        fprintf(csv.f, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", t->step, t->temperature,
                t->potential, t->kinetic, t->total, t->pressure, t->conserved);
    }
    return report_text_commit(&csv, ctx->out_dir, "md-thermo.csv");
}

int md_results_gather(struct md_run *r, double loop, struct md_results *res)
{
    long long count = md_leads(r) ? r->p.n : 0;
    CHECK_MPI(MPI_Allreduce(&count, &res->count, 1, MPI_LONG_LONG, MPI_SUM, r->topo.comm));
    CHECK_MPI(MPI_Allreduce(&loop, &res->loop, 1, MPI_DOUBLE, MPI_MAX, r->topo.comm));
    const long run = r->prm.steps - r->start; /* the steps this run took */
    double steps = run > 0 ? (double)run : 1.0;
    double sent[2] = {(double)r->bytes_sent / steps, r->x.idle ? 0.0 : 1.0}, sums[2], most;
    CHECK_MPI(MPI_Allreduce(sent, sums, 2, MPI_DOUBLE, MPI_SUM, r->topo.comm));
    CHECK_MPI(MPI_Allreduce(sent, &most, 1, MPI_DOUBLE, MPI_MAX, r->topo.comm));
    res->bytes_mean = sums[0] / sums[1];
    res->bytes_max = most;
    CHECK(segment_spread(r, res->seg));
    CHECK(state_digests(r, res->digest));
    double peak = process_peak_rss();
    CHECK_MPI(MPI_Allreduce(&peak, &res->peak_rss, 1, MPI_DOUBLE, MPI_MAX, r->topo.comm));
    const struct md_thermo *last = &r->history[r->nhistory - 1];
    res->drift = (last->conserved - r->conserved0) / fabs(r->conserved0);
    res->rate = res->loop > 0 ? (double)r->natoms * (double)run / res->loop : 0.0;
    res->verified = fabs(res->drift) <= r->prm.drift_bound && res->count == r->natoms;
    return SB_OK;
}

void md_results_print(const struct md_run *r, const struct md_results *res)
{
    log_info("\ntime per segment, s (min / mean / max over ranks):");
    for (int s = 0; s < MD_NSEGMENTS; s++)
        log_info("  %-10s %10.4f %10.4f %10.4f   %5.1f%%", md_segment_names[s], res->seg[s].min,
                 res->seg[s].mean, res->seg[s].max,
                 res->loop > 0 ? 100.0 * res->seg[s].mean / res->loop : 0.0);
    log_info("bytes sent per step per rank: mean %.0f, max %.0f; %ld neighbour-list builds "
             "(%s; %ld dangerous)",
             res->bytes_mean, res->bytes_max, r->rebuilds,
             r->prm.reneighbor_check == 1 ? "half-skin trigger checked every step"
             : r->prm.reneighbor_check == 0
                 ? "every md.reneighbor steps, trigger unchecked"
                 : "half-skin trigger checked every md.reneighbor_check steps",
             r->dangerous);
    log_info("memory of the largest rank: estimated %.1f MB before the run, peak %.1f MB "
             "(VmHWM)",
             r->footprint_most / 1e6, res->peak_rss / 1e6);
    const struct md_thermo *last = &r->history[r->nhistory - 1];
    log_info("final: temperature %.17g, potential %.17g, total %.17g per atom", last->temperature,
             last->potential, last->total);
    log_info("energy drift %.3e: the change of the conserved energy (the potential shifted to 0 "
             "at the cut-off, plus kinetic)",
             res->drift);
    log_info("\nverified: %s (energy drift %.3e, bound %.2e%s; particles %lld of %lld; %.4g "
             "atom-steps/s over %.3f s)",
             res->verified ? "true" : "false", res->drift, r->prm.drift_bound,
             r->drift_derived ? " from dt, steps and atoms" : "", res->count, r->natoms, res->rate,
             res->loop);
}
