/* The exchange command's test hooks, which prove that its byte check can
 * fail (the standard: every verification has a test that injects a fault
 * and sees it caught):
 *   exchange.inject_fault = RANK  that rank flips a byte of its slots after
 *                                 each exchange (inject_into = slots), or of
 *                                 the last one past its byte check, so that
 *                                 only the modules' hashes can tell (hashes);
 *   exchange.inject_drop = N      every rank skips exchange N of each point,
 *                                 so the slots hold the exchange before's;
 * each for the modules in exchange.inject_module.  A run that injects must
 * be able to fail: where it cannot, the run is refused before it starts
 * (inject_check) or, where only auto's choices decide, after it
 * (inject_seen), with exit 2. */
#ifndef SB_SWEEP_INJECT_H
#define SB_SWEEP_INJECT_H

#include "../config.h"
#include "../error.h"
#include "../../comm/exchange.h"

#include <stdbool.h>

#define SWEEP_MAX_MODULES 16

struct plan;

struct injection {
    long rank;                                          /* inject_fault's rank; -1: none */
    const exchange_ops *modules[SWEEP_MAX_MODULES + 1]; /* the modules hit, NULL-ended */
    bool into_hashes;                                   /* after the byte check, before hashing */
    long drop; /* the exchange every rank skips at each point; -1: none */
};

void inject_read(struct injection *in, const struct config *c);
/* Before the run, on every rank alike: SB_EUSAGE with a message where the
 * injection asked for could not fail the run. */
int inject_check(const struct plan *p, int nranks, struct sb_msg *m);
/* Whether the injection hits module ops. */
bool inject_hits(const struct injection *in, const exchange_ops *ops);
/* Whether this rank corrupts the slots of module ops. */
bool inject_corrupts(const struct injection *in, int rank, const exchange_ops *ops);
/* Whether every rank skips a point's exchange that `runs` verified
 * exchanges of it came before. */
bool inject_drops(const struct injection *in, long runs, const exchange_ops *ops);
/* After the run, with the faults injected, exchanges dropped and points
 * failed (the same on every rank): false, with a message, where the
 * injection could not be seen. */
bool inject_seen(const struct injection *in, long injected, long dropped, long failed);

#endif
