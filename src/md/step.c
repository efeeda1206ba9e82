/* The steps of an MD run (step.h). */
#include "force.h"
#include "migrate.h"
#include "step.h"
#include "../log.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    if (md_leads(r)) {
        own.data = (const unsigned char *)r->p.x;
        own.bytes = 3 * sizeof(double) * (size_t)r->p.n;
    }
    r->x.reselect = rebuild;
    int rc = exchange_run(&r->x, &own, &r->slots);
    /* The module found its slots malformed (and said so) on this rank
     * alone, perhaps while others wait in its messages: the job ends (3). */
    CHECK(rc == SB_EVERIFY ? SB_ERUNTIME : rc);
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
    CHECK_MPI(MPI_Reduce(md_leads(r) ? MPI_IN_PLACE : r->share, r->share, (int)n, MPI_DOUBLE,
                         MPI_SUM, 0, r->topo.team));
    if (md_leads(r) && n > 0) memcpy(r->p.f, r->share, n * sizeof *r->share);
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
    int mine = md_leads(r) && neighbor_moved_far(&r->nb, r->p.x, r->p.n, limit);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_INT, MPI_MAX, r->topo.comm));
    *far = mine;
    return SB_OK;
}

static void half_kick(struct md_run *r)
{
    double h = 0.5 * r->prm.dt;
    for (size_t i = 0; md_leads(r) && i < 3 * (size_t)r->p.n; i++)
        r->p.v[i] += h * r->p.f[i];
}

static void drift(struct md_run *r)
{
    for (size_t i = 0; md_leads(r) && i < 3 * (size_t)r->p.n; i++)
        r->p.x[i] += r->prm.dt * r->p.v[i];
}

/* Temperature, energies per atom and pressure (miniMD's definitions). */
static int measure(struct md_run *r, long step, const struct md_energy *e)
{
    double sums[4] = {e->potential, e->virial, 0.0, e->pairs}; /* potential, virial, 2 KE */
    for (size_t i = 0; md_leads(r) && i < 3 * (size_t)r->p.n; i++)
        sums[2] += r->p.v[i] * r->p.v[i];
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_DOUBLE, MPI_SUM, r->topo.comm));
    double rc6 = pow(r->prm.cutoff, -6.0), at_cutoff = 4.0 * rc6 * (rc6 - 1.0);
    double n = (double)r->natoms;
    double volume = r->geo.length[0] * r->geo.length[1] * r->geo.length[2];
    struct md_thermo t = {.step = step,
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
int md_start(struct md_run *r)
{
    int rc = SB_OK;
    if (r->restarted && r->restart.exact) {
        size_t bytes = 3 * sizeof(double) * (size_t)(md_leads(r) ? r->p.n : 0);
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
        if (r->restarted && md_leads(r)) particles_sort(&r->p, &r->geo, r->geo.reach / 2);
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
    size_t n = md_leads(r) ? (size_t)r->p.n : 0;
    r->p.x0 = sb_malloc(3 * n * sizeof *r->p.x0 + 1, "positions at the last build");
    int lost = n > 0 && !neighbor_positions_at_build(&r->nb, r->p.n, r->p.x0), any = lost;
    if (lost)
        log_rank_error("checkpoint: the last neighbour-list build did not bin every particle (a "
                       "position outside the box's reach, or NaN)");
    CHECK_MPI(MPI_Allreduce(&lost, &any, 1, MPI_INT, MPI_MAX, r->topo.comm));
    return any ? SB_ERUNTIME : SB_OK;
}

/* The state after `step` into a checkpoint file (DESIGN.md "Checkpoint"). */
int md_write_checkpoint(struct md_run *r, long step, struct sb_msg *m)
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
    md_charge(r, T_CHECKPOINT);
    return SB_OK;
}

/* One step of velocity Verlet. */
int md_step(struct md_run *r, long step)
{
    half_kick(r);
    drift(r);
    md_charge(r, T_INTEGRATE);
    bool rebuild = step % r->prm.reneighbor == 0;
    int every = r->prm.reneighbor_check;
    bool checked = !rebuild && every > 0 && step % every == 0;
    if (checked) CHECK(moved_far(r, &rebuild));
    if (rebuild && every != 1) { /* was it already too late? (LAMMPS' "dangerous builds") */
        bool far = checked;      /* a check that triggered the build found a particle too far */
        if (!checked) CHECK(moved_far(r, &far));
        r->dangerous += far;
    }
    md_charge(r, T_OTHER);
    if (rebuild && md_leads(r)) {
        CHECK(migrate(&r->p, &r->geo, &r->topo));
        r->pos = NULL; /* p.x may have moved: the exchange below sets it again */
        particles_sort(&r->p, &r->geo, r->geo.reach / 2);
    }
    md_charge(r, T_MIGRATE);
    CHECK(exchange_positions(r, rebuild));
    md_charge(r, T_EXCHANGE);
    if (rebuild) CHECK(build_lists(r));
    md_charge(r, T_NEIGHBOR);
    struct md_energy e = {0, 0, 0};
    bool energy = thermo_step(r, step);
    CHECK(compute_forces(r, energy, &e));
    md_charge(r, T_FORCE);
    half_kick(r);
    md_charge(r, T_INTEGRATE);
    if (energy) CHECK(measure(r, step, &e));
    md_charge(r, T_OTHER);
    return SB_OK;
}
