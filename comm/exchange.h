/* The exchange interface (DESIGN.md "The exchange interface", STYLE.md).
 *
 * An exchange delivers to each box the payloads of all boxes within k layers,
 * itself included, into a slot buffer (slots.h).  Modules are ops tables
 * registered by name in comm/registry.c; adding a module is one new file plus
 * one registry line, and the driver never names a module. */
#ifndef SB_EXCHANGE_H
#define SB_EXCHANGE_H

#include "slots.h"
#include "../src/decomp.h"

#include <stdbool.h>

#define EXCHANGE_MAX_K 64

enum phase_bits { PHASE_X = 1, PHASE_Y = 2, PHASE_Z = 4 };

struct exchange_opts {
    int k;           /* layers, 1..EXCHANGE_MAX_K */
    unsigned phases; /* PHASE_X | PHASE_Y | PHASE_Z: the dimensions exchanged */
    bool uniform;    /* every box sends as many bytes as this one (sizes need not travel) */
};

struct payload {
    const unsigned char *data;
    size_t bytes;
};

/* What one exchange cost this rank, counted by the module. */
struct exchange_counters {
    long messages;       /* point-to-point messages sent */
    long long bytes;     /* bytes in them */
    size_t buffer_bytes; /* exchange buffers currently held */
};

struct exchange;

typedef struct exchange_ops {
    const char *name;
    const char *summary;
    int (*setup)(struct exchange *x);
    int (*run)(struct exchange *x, const struct payload *own, struct slots *out);
    void (*destroy)(struct exchange *x);
} exchange_ops;

struct exchange {
    const exchange_ops *ops;
    const struct topology *topo;
    struct exchange_opts opts;
    int kdim[3]; /* k in the exchanged dimensions, 0 in the others */
    struct exchange_counters last;
    void *state; /* the module's own */
};

/* The registry: NULL-terminated. */
extern const exchange_ops *const exchange_modules[];

const exchange_ops *exchange_lookup(const char *name);

/* Sets up module `name` on topology t.  Returns SB_OK, SB_EUSAGE (unknown
 * module, with a message listing the known ones) or SB_ERUNTIME. */
int exchange_create(struct exchange *x, const char *name, const struct topology *t,
                    const struct exchange_opts *o, struct sb_msg *m);

/* Runs one exchange of `own` into `out` (initialised with slots_init(out, x->kdim)).
 * The slot data stays valid until the next run or destroy. */
int exchange_run(struct exchange *x, const struct payload *own, struct slots *out);

void exchange_destroy(struct exchange *x);

/* Parses "xyz", "x", "xy", ... into phase bits; 0 when malformed. */
unsigned phases_parse(const char *text);

#endif
