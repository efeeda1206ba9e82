/* One run of the proxy MD workload (cmd_md.c): its parameters, the boxes
 * and their exchange, the particles, the lists, the timers and the
 * energies measured so far; set up from the configuration (setup.c), moved
 * step by step (step.c), reported (results.c). */
#ifndef SB_MD_RUN_H
#define SB_MD_RUN_H

#include "footprint.h"
#include "md.h"
#include "neighbor.h"
#include "state.h"
#include "trajectory.h"
#include "../checkpoint/checkpoint.h"
#include "../command.h"
#include "../../comm/exchange.h"

/* Where a step's time goes (summary.json's time_s; the names, in this
 * order, are results.c's md_segment_names). */
enum md_segment {
    T_EXCHANGE,
    T_FORCE,
    T_NEIGHBOR,
    T_INTEGRATE,
    T_MIGRATE,
    T_CHECKPOINT,
    T_OTHER,
    MD_NSEGMENTS
};

struct md_thermo {
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
    double seg[MD_NSEGMENTS];
    double t_mark;
    long rebuilds;
    long dangerous; /* scheduled builds after a particle had moved half the skin (unchecked) */
    long long bytes_sent; /* over all steps, this rank */
    struct md_thermo *history;
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

static inline bool md_leads(const struct md_run *r)
{
    return r->topo.member == 0;
}

/* Charges the time since the last mark to segment s. */
static inline void md_charge(struct md_run *r, enum md_segment s)
{
    double now = MPI_Wtime();
    r->seg[s] += now - r->t_mark;
    r->t_mark = now;
}

/* Reads md.*, run.seed, exchange.module and team_size, decomp.dims, and
 * refuses what cannot run (SB_EUSAGE, with the key in m); builds the
 * topology; chooses the module for auto (model.*); checks the node's
 * memory; creates the exchange; sets up step 0 (the lattice) or the
 * checkpoint's (checkpoint.restart); opens the checkpoint plan (creating
 * checkpoint.dir) and the trajectory (trajectory.*).  r zeroed before.
 * Collective over ctx->world: every rank returns the same code, but
 * SB_ERUNTIME, which may be this rank's alone (the job then ends). */
int md_run_setup(struct md_run *r, struct run_ctx *ctx, struct sb_msg *m);

/* Frees what md_run_setup and the steps made, also after a failed set-up;
 * the trajectory is closed (md_trajectory_close) by the caller. */
void md_run_free(struct md_run *r);

#endif
