/* The exchange interface (DESIGN.md "The exchange interface", STYLE.md).
 *
 * An exchange delivers to each box the payloads of all boxes within k layers,
 * itself included, into a slot buffer (slots.h).  Modules are ops tables
 * registered by name in comm/registry.c; adding a module is one new file plus
 * one registry line, and the driver never names a module.
 *
 * A box may be held by a team of ranks (decomp.h).  A module that knows
 * teams (ops->teams) runs on every rank; any other runs on the team leaders
 * only, one rank per box, and is idle elsewhere.  Either way, after run()
 * the ranks with x->delivers set hold the box's slots. */
#ifndef SB_EXCHANGE_H
#define SB_EXCHANGE_H

#include "slots.h"
#include "trim.h"
#include "../src/decomp.h"

#include <stdbool.h>

#define EXCHANGE_MAX_K 64

enum phase_bits { PHASE_X = 1, PHASE_Y = 2, PHASE_Z = 4 };

struct exchange_opts {
    int k;            /* layers, 1..EXCHANGE_MAX_K */
    unsigned phases;  /* PHASE_X | PHASE_Y | PHASE_Z: the dimensions exchanged */
    bool uniform;     /* every box sends as many bytes as this one (sizes need not travel) */
    bool deliver_all; /* teams: every member receives the slots, not only the leader */
    /* Trim payloads in transit (trim.h); NULL: whole payloads.  Needs uniform = false. */
    const struct exchange_trim *trim;
};

struct payload {
    const unsigned char *data;
    size_t bytes;
};

/* What one exchange cost this rank, counted by the module. */
struct exchange_counters {
    long messages;       /* messages sent: point-to-point, and for a collective the ones a
                            linear algorithm sends from this rank */
    long long bytes;     /* bytes in them */
    size_t buffer_bytes; /* most bytes of exchange buffers in use at once, slots included */
};

struct exchange;
struct hockney;
struct model_case;
struct model_terms;

typedef struct exchange_ops {
    const char *name;
    const char *summary;
    bool teams; /* runs on every member of a team, not only on its leader */
    int (*setup)(struct exchange *x);
    /* One exchange.  own->data stays valid and unchanged until it returns and
     * must not overlap the slots of the run before (the modules send from it
     * and read it after writing their buffers).  SB_EVERIFY: the slots, once
     * every message of the exchange is done, are malformed (the caller counts
     * them wrong and goes on); malformed data found mid-exchange, where
     * partners may still wait for this rank's messages, is SB_ERUNTIME (the
     * job ends), so that no rank waits for one that has given up. */
    int (*run)(struct exchange *x, const struct payload *own, struct slots *out);
    void (*destroy)(struct exchange *x);
    /* The Hockney-model time of one exchange (src/model.h, docs/MODEL.md). */
    void (*model)(const struct hockney *h, const struct model_case *c, struct model_terms *t);
} exchange_ops;

struct exchange {
    const exchange_ops *ops;
    const struct topology *topo;
    struct exchange_opts opts;
    int kdim[3];   /* k in the exchanged dimensions, 0 in the others */
    bool idle;     /* a leaders-only module on a rank that leads no team */
    bool reselect; /* trimming: choose the items anew in the next run (the caller sets it at
                      rebuild steps); otherwise the last choice is replayed */
    bool delivers; /* this rank holds slots after run() */
    int tag_base;  /* added to every tag the module sends with (exchange_tag) */
    struct exchange_counters last; /* of the latest run */
    void *state;                   /* the module's own */
};

/* Modules report the buffer bytes in use at their high points of a run. */
static inline void exchange_note_buffers(struct exchange *x, size_t bytes)
{
    if (bytes > x->last.buffer_bytes) x->last.buffer_bytes = bytes;
}

/* The registry: NULL-terminated.  The baselines (comm/baseline.c) are
 * minimal hand-written exchanges to measure the modules against: never
 * chosen by auto, no model, uniform payloads only. */
extern const exchange_ops *const exchange_modules[];
extern const exchange_ops *const exchange_baselines[];

/* A module or a baseline by name; NULL when neither. */
const exchange_ops *exchange_lookup(const char *name);

/* Sets up module `name` on topology t (collective over t->comm).  Returns
 * SB_OK, SB_EUSAGE (unknown module, with a message listing the known ones)
 * or SB_ERUNTIME. */
int exchange_create(struct exchange *x, const char *name, const struct topology *t,
                    const struct exchange_opts *o, struct sb_msg *m);

/* Runs one exchange of `own` into `out` (initialised with slots_init(out,
 * x->kdim)); a no-op on idle ranks.  Team members pass their box's payload
 * too; the module uses the leader's.  The slot data stays valid until the
 * next run or destroy. */
int exchange_run(struct exchange *x, const struct payload *own, struct slots *out);

void exchange_destroy(struct exchange *x);

/* Parses "xyz", "x", "xy", ... into phase bits; 0 when malformed. */
unsigned phases_parse(const char *text);

/* Message tags: every module's fit below this, far under MPI's minimum tag bound. */
#define EXCHANGE_TAG_LIMIT 32767
/* Each module and baseline sends with tags of a range of its own,
 * [tag_base, tag_base + EXCHANGE_TAG_SPAN): the modules share communicators
 * (src/decomp.h), and a run that found its slots malformed (SB_EVERIFY)
 * must leave nothing that another module's receive could take.  Every
 * module's own tags are below the span (the Shift's and Team Shift's reach
 * 390 at k = 64); below the first range, tags are free for others (md's
 * migration). */
#define EXCHANGE_TAG_SPAN 512

/* The first tag of the range of module or baseline `ops`; -1 when it is in
 * neither list. */
int exchange_tag_base(const exchange_ops *ops);

static inline int exchange_tag(const struct exchange *x, int tag)
{
    return x->tag_base + tag;
}

#endif
