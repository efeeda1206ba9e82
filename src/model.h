/* Predicted time of one exchange from the measured message costs of
 * hockney.json (seed 000 sec. 3, src/hockney.h).  Each module carries its
 * own cost model in its ops table (comm/), made of the building blocks
 * below; docs/MODEL.md derives every one from the same assumptions. */
#ifndef SB_MODEL_H
#define SB_MODEL_H

#include "hockney.h"

#include <mpi.h>
#include <stdbool.h>

struct model_case {
    const char *module;
    int k;
    unsigned phases;  /* PHASE_X | PHASE_Y | PHASE_Z */
    int dims[3];      /* the grid of boxes */
    int team_size;    /* c */
    double bytes;     /* m1, payload per box */
    bool rendezvous;  /* send and receive cannot overlap (MPI_Ssend): seed 000 Eq. 3 */
    bool deliver_all; /* Team Shift: the slots go to every member */
};

struct model_terms {
    double time;     /* s, along the slowest rank's path */
    double messages; /* that rank sends, or receives at a gather */
    double bytes;    /* in them */
    /* The exchange's copies (model_copy), costed together as it ends
     * (model_predict adds model_copies_time to time): each at its own size,
     * and how many bytes they make together. */
    double copies_each, copies_bytes;
};

struct config;
struct exchange_ops;

/* Loads model.hockney (and model.smp) on every rank of comm, each reading
 * its own copy, with one outcome for all (sb_agree): SB_EUSAGE naming the
 * key when it is not set or a rank's file is not usable, and also where a
 * rank read a file of other bytes than rank 0's (copies per node that
 * differ), which could have the ranks choose different modules and wait
 * for each other.  Collective. */
int model_load_hockney(const struct config *c, struct hockney *h, MPI_Comm comm, struct sb_msg *m);

/* SB_EUSAGE with a message for a module without a model. */
int model_predict(const struct hockney *h, const struct model_case *c, struct model_terms *out,
                  struct sb_msg *m);

/* exchange.module = auto: the module with the smallest prediction for case c
 * (c->module aside), a module that runs on every member of a team (Team
 * Shift) taken over the others only where theirs exceed its prediction by
 * more than the fraction `margin` (its prediction times 1 + margin is
 * compared; model.auto_margin); with teams_only, only such modules are
 * candidates.
 * Appends each candidate's prediction to line (len bytes). */
int model_choose(const struct hockney *h, const struct model_case *c, double margin,
                 bool teams_only, const struct exchange_ops **chosen, char *line, size_t len,
                 struct sb_msg *m);

/* Seed 000 Eq. 1-3 for one dimension of the Shift on its own: 2k hops of m
 * bytes, times 2 with rendezvous. */
double model_shift_1d(const struct hockney *h, int k, double m, bool rendezvous);

/* ---- building blocks of the modules' models (docs/MODEL.md) ---- */

/* The block phase d moves: the payload times the slots gathered before it. */
double model_block_bytes(const struct model_case *c, int d);
/* Whether phase d is the first exchanged, whose block is the own payload. */
static inline bool model_first_phase(const struct model_case *c, int d)
{
    return (c->phases & ((1u << d) - 1)) == 0;
}
/* `count` one-way messages of `bytes`, one after another: count c(m). */
void model_message(struct model_terms *t, const struct hockney *h, double count, double bytes);
/* `count` steps of a chain that every rank makes at once, a message each
 * way in each (send and receive overlap): each step sends on what the step
 * before received, as x(m) measures, and starts on both ranks together, as
 * x0(m) measures; count times the larger of the two. */
void model_lockstep(struct model_terms *t, const struct hockney *h, double count, double bytes);
/* n messages of `bytes` each way, all in flight at once: x(m) + (n - 1) g(m). */
void model_burst(struct model_terms *t, const struct hockney *h, double n, double bytes);
/* The same as an exchange's first and only step, sending the payload just
 * written: x0(m) + (n - 1) g(m). */
void model_start(struct model_terms *t, const struct hockney *h, double n, double bytes);
/* One step that every rank makes at once, a message each way: sending the
 * caller's payload, the exchange's first step (model_start), otherwise a
 * step of a chain (model_lockstep). */
void model_pass(struct model_terms *t, const struct hockney *h, double bytes, bool payload);
/* `count` copies of `bytes` inside a rank, not messages: the measured
 * memcpy, or with model.smp seed 003's good family (src/smp/copymodel.h).
 * The time of such copies made together: each at its own size while they
 * all fit a cache, at the rate of one copy of them all once they stream
 * from memory (the larger of the two). */
double model_copy_time(const struct hockney *h, double count, double bytes);
/* The same copies among the exchange's others, all costed together as it
 * ends (model_copies_time): for the modules whose copies lie on one rank's
 * path, one after another. */
void model_copy(struct model_terms *t, const struct hockney *h, double count, double bytes);
/* The time of the copies model_copy gathered in t. */
double model_copies_time(const struct hockney *h, const struct model_terms *t);

/* ---- the network beyond the ports: model.torus (src/model_net.c) ---- */

/* model.torus is set: messages to boxes further than a hop share links and
 * the ports of the hosts they pass. */
bool model_torus(const struct hockney *h);
/* SB_EUSAGE naming model.torus when it has fewer hosts than `ranks`. */
int model_torus_fits(const struct hockney *h, long long ranks, struct sb_msg *m);
/* Messages on the busiest port or link of the torus when member i (< members)
 * of every box sends at once to the same member of the boxes at the n box
 * offsets offsets[i * n .. i * n + n - 1] of `c`'s grid (rank = box * c +
 * member, on host = rank).  Where the ports alone limit, 2 n. */
double model_net_load(const struct hockney *h, const struct model_case *c, int members, int n,
                      const int (*offsets)[3]);
/* The same for one turn of a blocking Shift hop (comm/ring.h): the leader
 * (member 0) of every box whose coordinate along d has ring colour `colour`
 * sends to the leader of the box at dir (+1 or -1) along d.  Where the
 * ports alone limit, 1. */
double model_net_turn_load(const struct hockney *h, const struct model_case *c, int d, int dir,
                           int colour);
/* What `count` one-way messages cost beyond model_message's c(m) each when
 * the busiest port or link carries `load` of them at once: the bandwidth
 * of each one more than one. */
void model_turn_contention(struct model_terms *t, const struct hockney *h, double count,
                           double load, double bytes);
/* What a step of n messages each way costs beyond model_burst's x(m) +
 * (n - 1) g(m) (model_start's x0(m) + (n - 1) g(m)) when the busiest port or link carries `load`
 * messages: the bandwidth of each one more than the port's own 2 n. */
void model_contention(struct model_terms *t, const struct hockney *h, double n, double load,
                      double bytes);

/* ---- collectives, as the MPI library of hockney.json runs them (src/model_coll.c) ---- */

/* MPI_Bcast of `bytes` from rank 0 to `ranks` ranks: until the last has it. */
void model_bcast(struct model_terms *t, const struct hockney *h, int ranks, double bytes);
/* The same rank by rank: done[r] when rank r holds the data (the root: when
 * its sends are done); returns the last, and the root's sends in *sends. */
double model_bcast_times(const struct hockney *h, int ranks, double bytes, double *done,
                         int *sends);
/* MPI_Gatherv at rank 0 of `ranks` ranks, rank j sending bytes[j] (bytes[0]
 * is the root's own, copied). */
void model_gatherv(struct model_terms *t, const struct hockney *h, int ranks, const double *bytes);
/* The same when rank j joins at ready[j]: when the root has every part. */
double model_gatherv_time(const struct hockney *h, int ranks, const double *ready,
                          const double *bytes);

#endif
