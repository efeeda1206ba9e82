/* The plan of a shiftbox smpcost run (smpcost.h). */
#include "smpcost.h"
#include "../cpu_cache.h"
#include "../log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const smp_mode_names[NMODES] = {"good", "bad"};
const int smp_fit_suite[NMODES] = {1, 2};
const enum smp_function smp_family_functions[NMODES][FAMILY_FUNCTIONS] = {
    {FN_H, FN_HM, FN_HRHW, FN_HRHWM, FN_HRHWMC},
    {FN_H, FN_HM, FN_HRHW, FN_HRHWM, FN_HRHWMC},
};
const char *const smp_fit_names[NFITS] = {"paper", "searched"};

/* Whether ShiftBox's copy patterns find room for at least one copy each in
 * a worker's region of `tmax` integers (smp_measure_patterns). */
static bool patterns_fit(long tmax)
{
    for (int pat = 0; pat < NPATTERNS; pat++)
        if (smp_pattern_count((enum smp_pattern)pat, tmax, 1) < 1) return false;
    return true;
}

int smp_plan_read(struct smp_plan *p, const struct config *c, int nranks, struct sb_msg *m)
{
    memset(p, 0, sizeof *p);
    p->p = nranks;
    if (nranks > SMP_MAX_WORKERS)
        return sb_fail(m, SB_EUSAGE, "smpcost: %d ranks; accepted: at most %d workers", nranks,
                       SMP_MAX_WORKERS);
    p->fit = strcmp(cfg_text(c, "smp.fit"), "paper") ? FIT_SEARCHED : FIT_PAPER;
    char app[32];
    for (int i = 0; cfg_choice_item(c, "smp.apps", i, app, sizeof app); i++)
        for (int a = 0; a < NAPPS; a++)
            if (!strcmp(app, smp_app_names[a])) p->apps[a] = p->any_app = true;
    p->reps = (int)cfg_int(c, "smpcost.reps");
    p->long_seconds = cfg_real(c, "smpcost.long_seconds");
    p->per_set = (int)cfg_int(c, "smpcost.per_set");
    p->pattern_ints = (long)cfg_int(c, "smpcost.pattern_ints");
    p->max_seconds = cfg_real(c, "smpcost.max_seconds");
    p->seed = (uint64_t)cfg_int(c, "run.seed");
    struct cpu_caches caches;
    cpu_caches_read(&caches);
    long line = caches.line, llc = caches.llc;
    int level = caches.llc_level;
    if (cfg_int(c, "smpcost.line_bytes") > 0) line = (long)cfg_int(c, "smpcost.line_bytes");
    if (line <= 0)
        return sb_fail(m, SB_EUSAGE,
                       "smpcost.line_bytes: the cache-line size cannot be read from sysfs; "
                       "accepted: set it (e.g. 64)");
    snprintf(p->cache_source, sizeof p->cache_source, "L%d of %ld bytes (%s)", abs(level), llc,
             level < 0 ? "sysconf" : "sysfs");
    if (cfg_int(c, "smpcost.cache_bytes") > 0) {
        llc = (long)cfg_int(c, "smpcost.cache_bytes");
        snprintf(p->cache_source, sizeof p->cache_source, "%ld bytes (smpcost.cache_bytes)", llc);
    }
    if (llc <= 0)
        return sb_fail(
            m, SB_EUSAGE,
            "smpcost.cache_bytes: the last-level cache cannot be read from sysfs or sysconf; "
            "accepted: set it in bytes");
    p->line_ints = line / (long)sizeof(int);
    if (p->line_ints < 1) p->line_ints = 1;
    p->cache_ints = llc / (long)sizeof(int) / nranks;
    long hs[64];
    int nh = smp_h_values(p->cache_ints, p->per_set, hs);
    p->tmax = hs[nh - 1];
    if (!patterns_fit(p->tmax)) {
        long need = p->cache_ints; /* the smallest cache share whose largest h fits them */
        while (!patterns_fit(hs[smp_h_values(need, p->per_set, hs) - 1]))
            need++;
        return sb_fail(m, SB_EUSAGE,
                       "smpcost.cache_bytes: %s gives each of the %d workers %ld integers, too "
                       "few for ShiftBox's copy patterns; accepted: a cache of at least %ld bytes",
                       p->cache_source, nranks, p->cache_ints, need * (long)sizeof(int) * nranks);
    }
    p->bad_max = (long)cfg_int(c, "smpcost.bad_bytes") / line;
    if (p->bad_max > p->tmax) p->bad_max = p->tmax;
    return SB_OK;
}
