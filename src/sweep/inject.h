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
 * (sweep_inject_check) or, where only auto's choices decide, after it
 * (sweep_inject_seen), with exit 2.  The struct sits in struct sweep_plan
 * (plan.h), and the check before the run reads the rest of the plan: its
 * modules, team sizes, payloads and exchanges per point. */
#ifndef SB_SWEEP_INJECT_H
#define SB_SWEEP_INJECT_H

#include "../config.h"
#include "../error.h"
#include "../../comm/exchange.h"

#include <stdbool.h>

/* The most modules and baselines a run lists (struct sweep_plan's limit too). */
#define SWEEP_MAX_MODULES 16

struct sweep_plan;

struct sweep_injection {
    long rank;                                          /* inject_fault's rank; -1: none */
    const exchange_ops *modules[SWEEP_MAX_MODULES + 1]; /* the modules hit, NULL-ended */
    bool into_hashes;                                   /* after the byte check, before hashing */
    long drop; /* the exchange every rank skips at each point; -1: none */
};

void sweep_inject_read(struct sweep_injection *in, const struct config *c);
/* Before the run, on every rank alike: SB_EUSAGE with a message where the
 * injection asked for could not fail the run. */
int sweep_inject_check(const struct sweep_plan *p, int nranks, struct sb_msg *m);
/* Whether this rank corrupts the slots of module ops. */
bool sweep_inject_corrupts(const struct sweep_injection *in, int rank, const exchange_ops *ops);
/* Whether every rank skips a point's exchange that `runs` verified
 * exchanges of it came before. */
bool sweep_inject_drops(const struct sweep_injection *in, long runs, const exchange_ops *ops);
/* After the run, with the faults injected, exchanges dropped and points
 * failed (the same on every rank): false, with a message, where the
 * injection could not be seen. */
bool sweep_inject_seen(const struct sweep_injection *in, long injected, long dropped, long failed);

#endif
