/* An MD run set up from the configuration (run.h). */
#include "drift.h"
#include "run.h"
#include "../coll.h"
#include "../decomp.h"
#include "../log.h"
#include "../model.h"
#include "../node_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_params(struct md_run *r, const struct config *c, int nranks, int dims[3],
                       int *team_size, struct sb_msg *m)
{
    struct md_params *p = &r->prm;
    cfg_int3(c, "md.cells", p->cells);
    p->density = cfg_real(c, "md.density");
    p->temperature = cfg_real(c, "md.temperature");
    p->cutoff = cfg_real(c, "md.cutoff");
    p->skin = cfg_real(c, "md.skin");
    p->dt = cfg_real(c, "md.dt");
    p->steps = (long)cfg_int(c, "md.steps");
    p->reneighbor = (int)cfg_int(c, "md.reneighbor");
    p->reneighbor_check = (int)cfg_int(c, "md.reneighbor_check");
    p->thermo = (int)cfg_int(c, "md.thermo");
    p->k_request = (int)cfg_int(c, "md.k");
    p->trim = !strcmp(cfg_text(c, "md.ghost_filter"), "slab");
    p->drift_bound = cfg_real(c, "md.drift_bound");
    p->force_scale = cfg_real(c, "md.inject_force_scale");
    p->jump_id = cfg_int(c, "md.inject_jump");
    const long long ids = 4LL * p->cells[0] * p->cells[1] * p->cells[2];
    if (p->jump_id >= ids) /* no particle would jump, and a test of the check pass untested */
        return sb_fail(m, SB_EUSAGE,
                       "md.inject_jump = %lld: no such particle (md.cells = %d,%d,%d has %lld); "
                       "accepted: -1 (none) or 0..%lld",
                       (long long)p->jump_id, p->cells[0], p->cells[1], p->cells[2], ids, ids - 1);
    if (p->jump_id >= 0 && (p->steps < 1 || cfg_text(c, "checkpoint.restart")[0]))
        return sb_fail(m, SB_EUSAGE, /* the jump is made to the initial state, caught at step 1 */
                       "md.inject_jump = %lld: the jump is made to the initial lattice and "
                       "caught in the first step; accepted: md.steps >= 1 without --restart",
                       (long long)p->jump_id);
    p->seed = (uint64_t)cfg_int(c, "run.seed");

    static char module[64];
    if (!cfg_choice_item(c, "exchange.module", 0, module, sizeof module) ||
        cfg_choice_item(c, "exchange.module", 1, (char[64]){0}, 64) ||
        cfg_all(c, "exchange.module"))
        return sb_fail(m, SB_EUSAGE,
                       "exchange.module = '%s': md runs one module; accepted: shift, "
                       "shift-isend, teamshift or direct",
                       cfg_raw(c, "exchange.module"));
    r->module = module;
    long long teams[CONFIG_MAX_LIST];
    int nteams = cfg_int_list(c, "exchange.team_size", teams);
    if (cfg_all(c, "exchange.team_size") || nteams != 1)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.team_size = '%s': md runs one team size; accepted: one divisor "
                       "of %d",
                       cfg_raw(c, "exchange.team_size"), nranks);
    int team = (int)teams[0];
    if (nranks % team)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.team_size = %d: %d ranks do not split into teams of %d", team,
                       nranks, team);
    if (team > 1 && strcmp(module, "teamshift") && strcmp(module, "auto"))
        return sb_fail(m, SB_EUSAGE,
                       "exchange.team_size = %d needs exchange.module = teamshift (the other "
                       "modules use one rank per box)",
                       team);
    int request[3];
    CHECK(cfg_one_grid(c, "md runs one grid", request, m));
    *team_size = team;
    return choose_dims(nranks / team, request, dims, m);
}

/* k from the geometry, or the one asked for if it is enough. */
static int choose_k(struct md_run *r, struct sb_msg *m)
{
    int needed = r->geo.k;
    if (r->prm.k_request && r->prm.k_request < needed)
        return sb_fail(m, SB_EUSAGE,
                       "md.k = %d is too small: boxes of edge %.4g x %.4g x %.4g need k >= %d "
                       "to reach cut-off + skin = %.4g; accepted: 0 (automatic) or %d..64",
                       r->prm.k_request, r->geo.edge[0], r->geo.edge[1], r->geo.edge[2], needed,
                       r->geo.reach, needed);
    if (r->prm.k_request) r->geo.k = r->prm.k_request;
    if (r->geo.k > EXCHANGE_MAX_K)
        return sb_fail(m, SB_EUSAGE,
                       "the boxes (edge %.4g) are so small that cut-off + skin = %.4g spans "
                       "k = %d > %d layers; accepted: fewer ranks or more md.cells",
                       r->geo.edge[0], r->geo.reach, r->geo.k, EXCHANGE_MAX_K);
    return SB_OK;
}

/* Refuses a system whose estimated peak (md/footprint.h) does not fit the
 * node's available memory divided among its ranks, before anything large
 * is allocated. */
static int check_memory(struct md_run *r, struct sb_msg *m)
{
    const int *c = r->prm.cells;
    long long natoms = 4LL * c[0] * c[1] * c[2];
    struct node_memory nm;
    node_memory_room(r->topo.comm, &nm);
    struct md_footprint *f = &r->footprint;
    md_footprint_estimate(&r->prm, &r->geo, &r->topo, r->module, natoms, process_rss(), f);
    double mine[2] = {f->total, nm.share >= 0 ? f->total / nm.share : 0}, most[2];
    CHECK_MPI(MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, r->topo.comm));
    r->footprint_most = most[0];
    if (most[1] <= 1.0) return SB_OK;
    char cgroup[96] = "";
    if (nm.cgroup_room >= 0)
        snprintf(cgroup, sizeof cgroup, ", room in the cgroup %.3g GB", nm.cgroup_room / 1e9);
    return sb_fail(m, SB_EUSAGE,
                   "md.cells = %d,%d,%d: %lld atoms need an estimated %.3g GB on the largest "
                   "rank (this rank: particles %.3g, exchange %.3g, neighbour lists %.3g, "
                   "checkpoint staging %.3g, the process before md %.3g GB), "
                   "but %d ranks share %.3g GB on this node (MemAvailable %.3g GB%s); accepted: "
                   "smaller md.cells, or more nodes",
                   c[0], c[1], c[2], natoms, most[0] / 1e9, f->particles / 1e9, f->exchange / 1e9,
                   f->lists / 1e9, f->staging / 1e9, f->baseline / 1e9, nm.ranks_here,
                   nm.room / 1e9, nm.available / 1e9, cgroup);
}

/* exchange.module = auto: the module with the smallest prediction for this
 * run's grid, k and team size (model_choose), the payload taken as a whole
 * box's positions (what ghost_filter = none sends; the slab filter sends
 * less, to every module alike).  Teams of more than one rank leave Team
 * Shift alone. */
static int choose_module(struct md_run *r, const struct config *c, struct sb_msg *m)
{
    struct hockney h;
    CHECK(model_load_hockney(c, &h, r->topo.comm, m));
    struct model_case mc = {.k = r->geo.k,
                            .phases = PHASE_X | PHASE_Y | PHASE_Z,
                            .dims = {r->topo.dims[0], r->topo.dims[1], r->topo.dims[2]},
                            .team_size = r->topo.team_size,
                            .bytes = 3.0 * sizeof(double) * 4.0 * r->prm.cells[0] *
                                     r->prm.cells[1] * r->prm.cells[2] / r->topo.nboxes,
                            .rendezvous = cfg_bool(c, "model.rendezvous"),
                            .deliver_all = r->topo.team_size > 1};
    char line[512];
    const exchange_ops *ops;
    CHECK(model_choose(&h, &mc, cfg_real(c, "model.auto_margin"), r->topo.team_size > 1, &ops, line,
                       sizeof line, m));
    r->module = ops->name;
    log_info("md: auto, %.0f bytes per box, k = %d:%s chosen: %s", mc.bytes, mc.k, line, r->module);
    return SB_OK;
}

/* The lattice, and velocities from the seed: step 0. */
static int initial_state(struct md_run *r)
{
    if (md_leads(r)) {
        r->natoms = md_lattice(&r->p, &r->prm, &r->geo, &r->topo);
        CHECK(md_velocities(&r->p, &r->prm, r->natoms, r->topo.leaders));
        for (int i = 0; r->prm.jump_id >= 0 && i < r->p.n; i++)
            if (r->p.id[i] == r->prm.jump_id) /* carried 2.5 boxes in one step */
                r->p.v[3 * i] = 2.5 * r->geo.edge[0] / r->prm.dt;
    }
    CHECK_MPI(sb_bcast(&r->natoms, 1, MPI_LONG_LONG, 0, r->topo.comm));
    return SB_OK;
}

/* The state of a checkpoint's step (checkpoint.restart). */
static int load_checkpoint(struct md_run *r, const char *path, struct sb_msg *m)
{
    struct md_restart *s = &r->restart;
    CHECK(md_state_load(path, &r->info, &r->p, s, m));
    if (s->step > r->prm.steps)
        return sb_fail(m, SB_EUSAGE,
                       "md.steps = %ld ends before the checkpoint's step %ld; accepted: md.steps "
                       ">= %ld (the run continues from the checkpoint to step md.steps)",
                       r->prm.steps, s->step, s->step);
    r->restarted = true;
    r->ckpt_source = path;
    r->start = s->step;
    r->natoms = s->natoms;
    r->conserved0 = s->conserved0;
    log_info("\nrestart: %s, step %ld, written by %d rank%s on grid %dx%dx%d (module %s); %s", path,
             s->step, s->ranks, s->ranks == 1 ? "" : "s", s->dims[0], s->dims[1], s->dims[2],
             s->module,
             s->exact ? "the same grid of boxes: the lists of the last build restored (bit for "
                        "bit with the same team size)"
                      : "particles redistributed to this grid, lists rebuilt (energies agree to "
                        "rounding)");
    log_info("restart: %.1f MB read in %.3f s (%.0f MB/s)", s->bytes / 1e6, s->seconds,
             s->seconds > 0 ? s->bytes / 1e6 / s->seconds : 0.0);
    return SB_OK;
}

int md_run_setup(struct md_run *r, struct run_ctx *ctx, struct sb_msg *m)
{
    int dims[3], team = 1;
    CHECK(read_params(r, ctx->cfg, ctx->nranks, dims, &team, m));
    CHECK(topology_init(&r->topo, ctx->world, team, dims, m));
    md_geometry_init(&r->geo, &r->prm, &r->topo);
    CHECK(choose_k(r, m));
    /* model.hockney (and model.smp) are read on every rank: one that cannot
     * read its copy stops all, with its message */
    if (!strcmp(r->module, "auto")) CHECK(sb_agree(choose_module(r, ctx->cfg, m), m, ctx->world));
    CHECK(check_memory(r, m));
    r->trim = (struct exchange_trim){.item = 3 * sizeof(double),
                                     .edge = {r->geo.edge[0], r->geo.edge[1], r->geo.edge[2]},
                                     .reach = r->geo.reach};
    struct exchange_opts o = {.k = r->geo.k,
                              .phases = PHASE_X | PHASE_Y | PHASE_Z,
                              .uniform = false,
                              .deliver_all = team > 1,
                              .trim = r->prm.trim ? &r->trim : NULL};
    CHECK(exchange_create(&r->x, r->module, &r->topo, &o, m));
    slots_init(&r->slots, r->x.kdim);
    r->config_text = config_ini_text(ctx->cfg, ctx->cmd->sections);
    r->info =
        (struct md_state_info){.prm = &r->prm,
                               .geo = &r->geo,
                               .topo = &r->topo,
                               .module = r->module,
                               .config_text = r->config_text,
                               .units = !strcmp(cfg_text(ctx->cfg, "checkpoint.units"), "reduced")};
    const char *restart = cfg_text(ctx->cfg, "checkpoint.restart");
    CHECK(restart[0] ? load_checkpoint(r, restart, m) : initial_state(r));
    r->drift_derived = r->prm.drift_bound == 0.0;
    if (r->drift_derived) r->prm.drift_bound = md_drift_bound(r->prm.dt, r->prm.steps, r->natoms);
    CHECK(checkpoint_plan_init(&r->ckpt, ctx->cfg, ctx->out_dir, r->topo.comm, m));
    int rc = md_trajectory_open(&r->traj, ctx->cfg, ctx->out_dir, &r->info, r->natoms, m);
    if (rc == SB_EUSAGE) checkpoint_plan_abandon(&r->ckpt); /* refused: nothing left behind */
    return rc;
}

void md_run_free(struct md_run *r)
{
    exchange_destroy(&r->x);
    slots_free(&r->slots);
    particles_free(&r->p);
    neighbor_free(&r->nb);
    free(r->xall);
    free(r->share);
    free(r->history);
    free(r->config_text);
    checkpoint_plan_free(&r->ckpt);
    topology_free(&r->topo);
}
