/* Predicted time of one exchange from the Hockney model (seed 000 sec. 3).
 * Each module carries its own cost model in its ops table (comm/), the
 * derivations are in docs/MODEL.md. */
#ifndef SB_MODEL_H
#define SB_MODEL_H

#include "hockney.h"

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
};

struct config;

/* Loads model.hockney; SB_EUSAGE naming the key when it is not set or the
 * file is not usable. */
int model_load_hockney(const struct config *c, struct hockney *h, struct sb_msg *m);

/* SB_EUSAGE with a message for a module without a model. */
int model_predict(const struct hockney *h, const struct model_case *c, struct model_terms *out,
                  struct sb_msg *m);

/* Seed 000 Eq. 1-3 for one dimension of the Shift on its own: 2k hops of m
 * bytes, times 2 with rendezvous. */
double model_shift_1d(const struct hockney *h, int k, double m, bool rendezvous);

/* For the modules' models: the block phase d moves (the payload times the
 * slots gathered before it), and `count` messages of `bytes` each. */
double model_block_bytes(const struct model_case *c, int d);
void model_add(struct model_terms *t, const struct hockney *h, double count, double bytes);
/* `count` copies of `bytes` inside the rank (a ring of one, a partner that
 * is the box itself, Team Shift's repacking): bandwidth without latency,
 * beta m of the Hockney segment for that size; not messages.  With
 * model.smp, seed 003's good-family function from shiftbox smpcost
 * instead (src/smp/copymodel.h). */
void model_copy(struct model_terms *t, const struct hockney *h, double count, double bytes);

#endif
