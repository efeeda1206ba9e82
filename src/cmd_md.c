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
#include "coll.h"
#include "decomp.h"
#include "log.h"
#include "report.h"
#include "md/footprint.h"
#include "md/drift.h"
#include "md/force.h"
#include "md/md.h"
#include "md/migrate.h"
#include "md/neighbor.h"
#include "md/state.h"
#include "checkpoint/checkpoint.h"
#include "md/trajectory.h"
#include "model.h"
#include "node_memory.h"
#include "../comm/exchange.h"
#include "../comm/verify.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum segment {
    T_EXCHANGE,
    T_FORCE,
    T_NEIGHBOR,
    T_INTEGRATE,
    T_MIGRATE,
    T_CHECKPOINT,
    T_OTHER,
    NSEGMENTS
};
static const char *const segment_names[NSEGMENTS] = {
    "exchange", "force", "neighbor", "integrate", "migrate", "checkpoint", "other"};

struct thermo {
    long step;
    double temperature, potential, kinetic, total, pressure; /* energies per atom */
    /* The energy the dynamics conserve: the potential shifted to 0 at the
     * cut-off (the same forces), plus the kinetic energy, per atom.  The
     * unshifted total jumps whenever a pair crosses the cut-off. */
    double conserved;
};

struct md_run {
    struct md_params prm;
    const char *module;
    struct md_geometry geo;
    struct topology topo;
    struct exchange x;
    struct exchange_trim trim;
    struct slots slots;
    struct particles p; /* the leader's */
    long long natoms;   /* in the whole system */
    struct neighbor nb;
    double *xall; /* teams of several ranks: the box's particles (from the centre slot) */
    size_t xall_cap;
    /* What the lists and forces read: the box's particles, then the ghosts,
     * in this box's frame.  A team of one has its particles in p.x and puts
     * the ghosts behind them there; a larger team copies all into xall. */
    double *pos;
    int nown, nghost;
    double *share; /* forces of this member's share, all of the box's particles */
    size_t share_cap;
    double seg[NSEGMENTS];
    double t_mark;
    long rebuilds;
    long dangerous; /* scheduled builds after a particle had moved half the skin (unchecked) */
    long long bytes_sent; /* over all steps, this rank */
    struct thermo *history;
    int nhistory, cap_history;
    /* checkpoints */
    long start;        /* the first step: 0, or the checkpoint's */
    double conserved0; /* the conserved energy per atom at step 0 */
    struct checkpoint_plan ckpt;
    struct md_trajectory traj;
    struct md_state_info info;
    char *config_text;
    bool restarted;
    const char *ckpt_source; /* checkpoint.restart */
    struct md_restart restart;
    bool drift_derived;            /* md.drift_bound = 0: from dt, steps, atoms */
    struct md_footprint footprint; /* this rank's estimate */
    double footprint_most;         /* the largest rank's */
};

static bool leads(const struct md_run *r)
{
    return r->topo.member == 0;
}

/* Charges the time since the last mark to segment s. */
static void charge(struct md_run *r, enum segment s)
{
    double now = MPI_Wtime();
    r->seg[s] += now - r->t_mark;
    r->t_mark = now;
}

/* ---- configuration ----------------------------------------------------------- */

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
    if (cfg_all(c, "decomp.dims"))
        return sb_fail(m, SB_EUSAGE,
                       "decomp.dims = all: md runs one grid; accepted: auto or "
                       "nx,ny,nz");
    int request[3];
    cfg_dims(c, "decomp.dims", request);
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
    CHECK(model_load_hockney(c, &h, m));
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

/* ---- the step's parts ---------------------------------------------------------- */

static void ensure(double **a, size_t *cap, size_t n, const char *what)
{
    if (n <= *cap && *a) return;
    *cap = n + n / 4 + 64;
    *a = sb_realloc(*a, *cap * sizeof **a, what);
}

/* The exchange of positions, then this box's particles and its ghosts in
 * this box's frame, slot by slot. */
static int exchange_positions(struct md_run *r, bool rebuild)
{
    struct payload own = {NULL, 0};
    if (leads(r)) {
        own.data = (const unsigned char *)r->p.x;
        own.bytes = 3 * sizeof(double) * (size_t)r->p.n;
    }
    r->x.reselect = rebuild;
    CHECK(exchange_run(&r->x, &own, &r->slots));
    r->bytes_sent += r->x.last.bytes;
    const struct slots *s = &r->slots;
    size_t items = 0;
    for (int i = 0; i < s->count; i++)
        items += s->size[i] / (3 * sizeof(double));
    int centre = slot_centre(s);
    r->nown = (int)(s->size[centre] / (3 * sizeof(double)));
    if (r->topo.team_size == 1) { /* the centre slot is p.x[0 .. n) */
        if (r->nown != r->p.n) {
            log_rank_error("md: %s delivered %d positions in the centre slot for %d particles",
                           r->module, r->nown, r->p.n);
            return SB_ERUNTIME;
        }
        if (items > (size_t)INT_MAX / 2) {
            log_rank_error("md: %zu particles and ghosts in one box are too many", items);
            return SB_ERUNTIME;
        }
        particles_reserve_positions(&r->p, (int)items);
        r->pos = r->p.x;
    } else {
        ensure(&r->xall, &r->xall_cap, 3 * items, "particles and ghosts");
        memcpy(r->xall, s->data + s->offset[centre], s->size[centre]);
        r->pos = r->xall;
    }
    size_t at = 3 * (size_t)r->nown;
    for (int i = 0; i < s->count; i++) {
        if (i == centre) continue;
        int d[3];
        slot_offset(s, i, d);
        const double shift[3] = {d[0] * r->geo.edge[0], d[1] * r->geo.edge[1],
                                 d[2] * r->geo.edge[2]};
        size_t n = s->size[i] / (3 * sizeof(double));
        const unsigned char *src = s->data + s->offset[i];
        for (size_t j = 0; j < n; j++, at += 3) {
            double pos[3];
            memcpy(pos, src + 3 * sizeof(double) * j, sizeof pos);
            r->pos[at] = pos[0] + shift[0];
            r->pos[at + 1] = pos[1] + shift[1];
            r->pos[at + 2] = pos[2] + shift[2];
        }
    }
    r->nghost = (int)(at / 3) - r->nown;
    return SB_OK;
}

/* This member's share of the box's particles. */
static void share_of(const struct md_run *r, int *lo, int *hi)
{
    int c = r->topo.team_size, i = r->topo.member;
    *lo = (int)((long long)r->nown * i / c);
    *hi = (int)((long long)r->nown * (i + 1) / c);
}

/* Forces on the box's particles, summed at the leader. */
static int compute_forces(struct md_run *r, bool energy, struct md_energy *e)
{
    size_t n = 3 * (size_t)r->nown;
    double *f = r->p.f; /* a team of one sums into the particles' own forces */
    if (r->topo.team_size > 1) {
        ensure(&r->share, &r->share_cap, n, "forces");
        f = r->share;
    }
    if (n > 0) memset(f, 0, n * sizeof *f);
    lj_forces(&r->nb, r->pos, r->nown, f, r->prm.cutoff, energy, e);
    if (r->prm.force_scale != 1.0) /* md.inject_force_scale: a wrong force */
        for (size_t i = 0; i < n; i++)
            f[i] *= r->prm.force_scale;
    if (r->topo.team_size == 1) return SB_OK;
    if (n > (size_t)2147483647) {
        log_rank_error("md: %d particles in one box are too many for one MPI_Reduce", r->nown);
        return SB_ERUNTIME;
    }
    CHECK_MPI(MPI_Reduce(leads(r) ? MPI_IN_PLACE : r->share, r->share, (int)n, MPI_DOUBLE, MPI_SUM,
                         0, r->topo.team));
    if (leads(r) && n > 0) memcpy(r->p.f, r->share, n * sizeof *r->share);
    return SB_OK;
}

static int build_lists(struct md_run *r)
{
    int lo, hi;
    share_of(r, &lo, &hi);
    r->rebuilds++;
    if (neighbor_build(&r->nb, r->pos, r->nown, r->nghost, lo, hi, r->geo.edge, r->geo.reach))
        return SB_OK;
    log_rank_error("md: a particle has more than %d own partners or ghosts within reach "
                   "(md.cutoff + md.skin = %g at density %g); lower md.cutoff or md.skin",
                   NEIGHBOR_MAX_PARTNERS, r->geo.reach, r->prm.density);
    return SB_ERUNTIME;
}

/* Whether any particle moved half the skin since the last build (where
 * the build saw it: neighbor.h). */
static int moved_far(struct md_run *r, bool *far)
{
    double limit = 0.25 * r->prm.skin * r->prm.skin;
    int mine = leads(r) && neighbor_moved_far(&r->nb, r->p.x, r->p.n, limit);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_INT, MPI_MAX, r->topo.comm));
    *far = mine;
    return SB_OK;
}

static void half_kick(struct md_run *r)
{
    double h = 0.5 * r->prm.dt;
    for (size_t i = 0; leads(r) && i < 3 * (size_t)r->p.n; i++)
        r->p.v[i] += h * r->p.f[i];
}

static void drift(struct md_run *r)
{
    for (size_t i = 0; leads(r) && i < 3 * (size_t)r->p.n; i++)
        r->p.x[i] += r->prm.dt * r->p.v[i];
}

/* Temperature, energies per atom and pressure (miniMD's definitions). */
static int measure(struct md_run *r, long step, const struct md_energy *e)
{
    double sums[4] = {e->potential, e->virial, 0.0, e->pairs}; /* potential, virial, 2 KE */
    for (size_t i = 0; leads(r) && i < 3 * (size_t)r->p.n; i++)
        sums[2] += r->p.v[i] * r->p.v[i];
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_DOUBLE, MPI_SUM, r->topo.comm));
    double rc6 = pow(r->prm.cutoff, -6.0), at_cutoff = 4.0 * rc6 * (rc6 - 1.0);
    double n = (double)r->natoms;
    double volume = r->geo.length[0] * r->geo.length[1] * r->geo.length[2];
    struct thermo t = {.step = step,
                       .temperature = sums[2] / (3.0 * n - 3.0),
                       .potential = sums[0] / n,
                       .kinetic = 0.5 * sums[2] / n,
                       .pressure = (sums[2] + sums[1]) / (3.0 * volume)};
    t.total = t.potential + t.kinetic;
    t.conserved = (sums[0] - at_cutoff * sums[3]) / n + t.kinetic;
    if (r->nhistory == r->cap_history) {
        r->cap_history = r->cap_history ? 2 * r->cap_history : 64;
        r->history =
            sb_realloc(r->history, (size_t)r->cap_history * sizeof *r->history, "thermo history");
    }
    r->history[r->nhistory++] = t;
    log_info("%8ld %12.6f %14.8f %14.8f %14.8f %12.6f", t.step, t.temperature, t.potential,
             t.kinetic, t.total, t.pressure);
    return SB_OK;
}

static bool thermo_step(const struct md_run *r, long step)
{
    return step == 0 || step == r->prm.steps || (r->prm.thermo > 0 && step % r->prm.thermo == 0);
}

/* The ghosts, lists, forces and energies of the first step.  After a
 * restart on the same decomposition, the lists are those of the last build
 * before the checkpoint, built again from the positions of then, and
 * today's positions travel along the ghosts chosen then: the very sums of
 * the uninterrupted run.  Elsewhere they are built from the positions. */
static int start_run(struct md_run *r)
{
    int rc = SB_OK;
    if (r->restarted && r->restart.exact) {
        size_t bytes = 3 * sizeof(double) * (size_t)(leads(r) ? r->p.n : 0);
        double *now = sb_malloc(bytes + 1, "positions");
        if (bytes > 0) {
            memcpy(now, r->p.x, bytes);
            memcpy(r->p.x, r->p.x0, bytes);
        }
        rc = exchange_positions(r, true);
        if (rc == SB_OK) rc = build_lists(r);
        if (bytes > 0) memcpy(r->p.x, now, bytes);
        free(now);
        if (rc == SB_OK) rc = exchange_positions(r, false);
    } else {
        if (r->restarted && leads(r)) particles_sort(&r->p, &r->geo, r->geo.reach / 2);
        rc = exchange_positions(r, true);
        if (rc == SB_OK) rc = build_lists(r);
    }
    free(r->p.x0); /* from here on the lists' build holds them */
    r->p.x0 = NULL;
    struct md_energy e = {0, 0, 0};
    if (rc == SB_OK) rc = compute_forces(r, true, &e);
    if (rc == SB_OK) rc = measure(r, r->start, &e);
    return rc;
}

/* The positions at the last build into p.x0, from the lists' build (an
 * exact restart needs them); every rank learns whether all could. */
static int stage_positions_at_build(struct md_run *r)
{
    size_t n = leads(r) ? (size_t)r->p.n : 0;
    r->p.x0 = sb_malloc(3 * n * sizeof *r->p.x0 + 1, "positions at the last build");
    int lost = n > 0 && !neighbor_positions_at_build(&r->nb, r->p.n, r->p.x0), any = lost;
    if (lost)
        log_rank_error("checkpoint: the last neighbour-list build did not bin every particle (a "
                       "position outside the box's reach, or NaN)");
    CHECK_MPI(MPI_Allreduce(&lost, &any, 1, MPI_INT, MPI_MAX, r->topo.comm));
    return any ? SB_ERUNTIME : SB_OK;
}

/* The state after `step` into a checkpoint file (DESIGN.md "Checkpoint"). */
static int write_checkpoint(struct md_run *r, long step, struct sb_msg *m)
{
    char path[PATH_MAX];
    checkpoint_path(&r->ckpt, "md", step, path, sizeof path);
    double started = MPI_Wtime();
    CHECK(checkpoint_room(&r->ckpt, path, md_state_file_estimate(&r->info), m));
    int rc = stage_positions_at_build(r);
    if (rc == SB_OK)
        rc = md_state_save(path, &r->info, &r->p, step, r->conserved0,
                           checkpoint_fault_now(&r->ckpt), m);
    free(r->p.x0);
    r->p.x0 = NULL;
    CHECK(rc);
    CHECK(checkpoint_commit(&r->ckpt, path, started, m));
    charge(r, T_CHECKPOINT);
    return SB_OK;
}

/* One step of velocity Verlet. */
static int step_once(struct md_run *r, long step)
{
    half_kick(r);
    drift(r);
    charge(r, T_INTEGRATE);
    bool rebuild = step % r->prm.reneighbor == 0;
    int every = r->prm.reneighbor_check;
    bool checked = !rebuild && every > 0 && step % every == 0;
    if (checked) CHECK(moved_far(r, &rebuild));
    if (rebuild && every != 1) { /* was it already too late? (LAMMPS' "dangerous builds") */
        bool far = checked;      /* a check that triggered the build found a particle too far */
        if (!checked) CHECK(moved_far(r, &far));
        r->dangerous += far;
    }
    charge(r, T_OTHER);
    if (rebuild && leads(r)) {
        CHECK(migrate(&r->p, &r->geo, &r->topo));
        r->pos = NULL; /* p.x may have moved: the exchange below sets it again */
        particles_sort(&r->p, &r->geo, r->geo.reach / 2);
    }
    charge(r, T_MIGRATE);
    CHECK(exchange_positions(r, rebuild));
    charge(r, T_EXCHANGE);
    if (rebuild) CHECK(build_lists(r));
    charge(r, T_NEIGHBOR);
    struct md_energy e = {0, 0, 0};
    bool energy = thermo_step(r, step);
    CHECK(compute_forces(r, energy, &e));
    charge(r, T_FORCE);
    half_kick(r);
    charge(r, T_INTEGRATE);
    if (energy) CHECK(measure(r, step, &e));
    charge(r, T_OTHER);
    return SB_OK;
}

/* ---- set-up and results ---------------------------------------------------------- */

/* The lattice, and velocities from the seed: step 0. */
static int initial_state(struct md_run *r)
{
    if (leads(r)) {
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

static int setup(struct md_run *r, struct run_ctx *ctx, struct sb_msg *m)
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

static void run_free(struct md_run *r)
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

/* Every particle's absolute position and its velocity, each hashed with
 * its id and summed over the particles (mod 2^64): the same bits give the
 * same digests, in any order and on any number of ranks, and nothing is
 * gathered (a run of 10^9 atoms needs no more memory on rank 0). */
static int state_digests(struct md_run *r, uint64_t digest[2])
{
    uint64_t mine[2] = {0, 0};
    int n = leads(r) ? r->p.n : 0;
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

struct segment_stats {
    double min, mean, max;
};

static int segment_spread(struct md_run *r, struct segment_stats out[NSEGMENTS])
{
    double lo[NSEGMENTS], mean[NSEGMENTS], hi[NSEGMENTS];
    CHECK_MPI(timer_spread(r->seg, NSEGMENTS, r->topo.comm, lo, mean, hi));
    for (int s = 0; s < NSEGMENTS; s++)
        out[s] = (struct segment_stats){lo[s], mean[s], hi[s]};
    return SB_OK;
}

static cJSON *thermo_json(const struct thermo *t)
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

struct md_results {
    double drift, loop, rate;
    long long count;
    bool verified;
    uint64_t digest[2];           /* positions, velocities */
    double peak_rss;              /* VmHWM of the largest rank */
    double bytes_mean, bytes_max; /* sent per step per working rank */
    struct segment_stats seg[NSEGMENTS];
};

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

static int write_outputs(struct run_ctx *ctx, struct md_run *r, const struct md_results *res,
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
    for (int s = 0; s < NSEGMENTS; s++) {
        cJSON *t = cJSON_AddObjectToObject(times, segment_names[s]);
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
        const struct thermo *t = &r->history[i];
        fprintf(csv.f, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", t->step, t->temperature,
                t->potential, t->kinetic, t->total, t->pressure, t->conserved);
    }
    return report_text_commit(&csv, ctx->out_dir, "md-thermo.csv");
}

static int results(struct md_run *r, double loop, struct md_results *res)
{
    long long count = leads(r) ? r->p.n : 0;
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
    const struct thermo *last = &r->history[r->nhistory - 1];
    res->drift = (last->conserved - r->conserved0) / fabs(r->conserved0);
    res->rate = res->loop > 0 ? (double)r->natoms * (double)run / res->loop : 0.0;
    res->verified = fabs(res->drift) <= r->prm.drift_bound && res->count == r->natoms;
    return SB_OK;
}

static void print_results(const struct md_run *r, const struct md_results *res)
{
    log_info("\ntime per segment, s (min / mean / max over ranks):");
    for (int s = 0; s < NSEGMENTS; s++)
        log_info("  %-10s %10.4f %10.4f %10.4f   %5.1f%%", segment_names[s], res->seg[s].min,
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
    const struct thermo *last = &r->history[r->nhistory - 1];
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

int cmd_md(struct run_ctx *ctx)
{
    struct md_run r;
    memset(&r, 0, sizeof r);
    struct sb_msg m = {""};
    int rc = setup(&r, ctx, &m);
    if (rc != SB_OK) {
        if (m.text[0]) (rc == SB_EUSAGE ? log_error : log_rank_error)("%s", m.text);
        run_free(&r);
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
    rc = start_run(&r);
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
        rc = write_checkpoint(&r, 0, &m); /* a run of no steps: its initial state */
    if (rc == SB_OK && md_trajectory_due(&r.traj, r.start, r.start))
        rc = md_trajectory_append(&r.traj, &r.info, &r.p, r.start, &m);
    for (long step = r.start + 1; step <= r.prm.steps && rc == SB_OK; step++) {
        rc = step_once(&r, step);
        if (rc == SB_OK && checkpoint_due(&r.ckpt, step, r.prm.steps))
            rc = write_checkpoint(&r, step, &m);
        if (rc == SB_OK && md_trajectory_due(&r.traj, step, r.start))
            rc = md_trajectory_append(&r.traj, &r.info, &r.p, step, &m);
        if (r.nhistory > 0) {
            const struct thermo *last = &r.history[r.nhistory - 1];
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
    if (rc == SB_OK) rc = results(&r, loop, &res);
    int exit_code = res.verified ? SB_OK : SB_EVERIFY;
    if (rc == SB_OK) {
        print_results(&r, &res);
        if (ctx->out_dir && ctx->rank == 0) rc = write_outputs(ctx, &r, &res, exit_code);
        if (rc == SB_OK && ctx->out_dir)
            log_info("results: %s/summary.json, %s/md-thermo.csv", ctx->out_dir, ctx->out_dir);
    }
    run_free(&r);
    return rc == SB_OK ? exit_code : rc;
}
