/* The exchange command's test hooks (inject.h): reading them, refusing
 * those that could not fail the run, and telling after it whether they
 * were seen. */
#include "inject.h"
#include "plan.h"
#include "../log.h"

#include <string.h>

void sweep_inject_read(struct sweep_injection *in, const struct config *c)
{
    char name[64];
    int n = 0;
    for (int i = 0; cfg_choice_item(c, "exchange.inject_module", i, name, sizeof name); i++)
        if (n < SWEEP_MAX_MODULES) in->modules[n++] = exchange_lookup(name);
    in->modules[n] = NULL;
    in->rank = (long)cfg_int(c, "exchange.inject_fault");
    in->into_hashes = !strcmp(cfg_text(c, "exchange.inject_into"), "hashes");
    in->drop = (long)cfg_int(c, "exchange.inject_drop");
}

/* Whether the injection hits module ops. */
static bool hits(const struct sweep_injection *in, const exchange_ops *ops)
{
    for (int i = 0; in->modules[i]; i++)
        if (in->modules[i] == ops) return true;
    return false;
}

bool sweep_inject_corrupts(const struct sweep_injection *in, int rank, const exchange_ops *ops)
{
    return rank == in->rank && hits(in, ops);
}

/* Every rank skips the same exchange, so none waits for another. */
bool sweep_inject_drops(const struct sweep_injection *in, long runs, const exchange_ops *ops)
{
    return runs == in->drop && hits(in, ops);
}

/* exchange.inject_drop can be caught only where each exchange's slots
 * differ from those of the one before: uniform payloads of a byte or more
 * (empty slots are right whether or not the exchange ran, and a box's
 * varied payload may be empty at two repetitions in a row). */
static int check_drop(const struct sweep_plan *p, struct sb_msg *m)
{
    if (p->inject.drop < 0) return SB_OK;
    bool varied = false, empty = false;
    for (int i = 0; i < p->nkinds; i++)
        varied = varied || p->kinds[i];
    for (int i = 0; i < p->nbytes; i++)
        empty = empty || p->bytes[i] == 0;
    if (varied || empty)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_drop needs slots that differ from one exchange to the "
                       "next, but %s, so a skipped exchange may leave them right; accepted: "
                       "exchange.payload = uniform with every exchange.bytes above 0",
                       empty ? "exchange.bytes holds 0 (empty slots)"
                             : "exchange.payload holds varied (a box's payload may be empty at "
                               "two repetitions in a row)");
    const long runs = sweep_plan_point_runs(p);
    if (p->inject.drop >= runs)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_drop = %ld, but each point makes %ld verified exchanges "
                       "(exchange.warmup %ld, an untimed one for each of %ld turns of "
                       "exchange.interleave, exchange.repetitions %ld; a timed batch counts "
                       "once); accepted: -1 (off) or 0..%ld",
                       p->inject.drop, runs, p->warmup, sweep_plan_turns(p), p->repetitions,
                       runs - 1);
    return SB_OK;
}

/* exchange.inject_fault and inject_drop must be able to fail the run, and
 * where they cannot, that is known before the run starts: no module they
 * hit may run, or the exchange to drop never comes, or the rank receives
 * no slots, or with inject_into = hashes every module that may run is
 * corrupted alike (their hashes would agree).  auto counts as each module
 * it may choose; whether its choices then hit the injected modules is
 * counted during the run (exit 2 after it when none did). */
int sweep_inject_check(const struct sweep_plan *p, int nranks, struct sb_msg *m)
{
    if (p->inject.rank < 0 && p->inject.drop < 0) return SB_OK;
    if (p->inject.rank >= nranks)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_fault = %ld, but the run has %d ranks; accepted: -1 "
                       "(off) or a rank in 0..%d",
                       p->inject.rank, nranks, nranks - 1);
    const bool corrupts = p->inject.rank >= 0;
    const char *key = corrupts ? "exchange.inject_fault" : "exchange.inject_drop";
    const long value = corrupts ? p->inject.rank : p->inject.drop;
    int hit = 0, spared = 0;
    const bool automatic = sweep_plan_lists(p, NULL); /* may choose any module, never a baseline */
    const exchange_ops *const *lists[] = {exchange_modules, exchange_baselines};
    for (int l = 0; l < 2; l++)
        for (int i = 0; lists[l][i]; i++) {
            if (!sweep_plan_lists(p, lists[l][i]) && !(automatic && l == 0)) continue;
            if (hits(&p->inject, lists[l][i]))
                hit++;
            else
                spared++;
        }
    if (hit == 0)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_module names none of the modules this run exchanges with "
                       "(exchange.module, exchange.baseline), so %s = %ld would hit nothing; "
                       "accepted: a module that runs, or all",
                       key, value);
    CHECK(check_drop(p, m));
    if (!corrupts) return SB_OK;
    /* slots end at the team leaders (member 0: rank % c == 0), with
       team_deliver = all Team Shift's at every member */
    const exchange_ops *team = exchange_lookup("teamshift");
    bool receives =
        p->deliver_all && (sweep_plan_lists(p, team) || automatic) && hits(&p->inject, team);
    for (int i = 0; i < p->nteams; i++)
        receives = receives || p->inject.rank % p->teams[i] == 0;
    if (!receives)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_fault = %ld: that rank leads no team at any "
                       "exchange.team_size of the run, so it receives no slots to corrupt; "
                       "accepted: a team leader's rank (a multiple of the team size)",
                       p->inject.rank);
    if (p->inject.into_hashes && spared == 0)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_into = hashes: every module of the run is corrupted alike, "
                       "so their hashes still agree and nothing can catch it; accepted: "
                       "exchange.inject_module leaving out at least one module that runs (e.g. "
                       "exchange.module = shift,direct with exchange.inject_module = direct)");
    return SB_OK;
}

/* After the run: exit 2 where an injection asked for could not be seen:
 * inject_fault's rank received no slots of the modules it hits, auto chose
 * no module inject_drop hits, or (inject_into = hashes) auto chose an
 * injected module at every point; sweep_inject_check refused the cases known
 * before the run.  The first such case is named.  Every rank counts alike. */
bool sweep_inject_seen(const struct sweep_injection *in, long injected, long dropped, long failed)
{
    if (in->into_hashes && injected > 0 && failed == 0) {
        log_error("exchange.inject_into = hashes: the faults injected went unseen: at every "
                  "point each module compared was corrupted alike (auto chose an injected "
                  "module); accepted: exchange.inject_module leaving out a module that runs "
                  "beside them");
        return false;
    }
    if (in->rank >= 0 && injected == 0) {
        log_error("exchange.inject_fault = %ld: that rank received no slots of the modules in "
                  "exchange.inject_module in any point (it leads no team), so no fault was "
                  "injected; accepted: a team leader's rank",
                  in->rank);
        return false;
    }
    if (in->drop >= 0 && dropped == 0) {
        log_error("exchange.inject_drop = %ld: auto chose none of the modules in "
                  "exchange.inject_module at any point, so no exchange was skipped; accepted: "
                  "exchange.inject_module naming the modules auto chooses (all)",
                  in->drop);
        return false;
    }
    return true;
}
