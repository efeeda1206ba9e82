/* The plan of a shiftbox pingpong run (plan.h). */
#include "plan.h"
#include "../log.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BURST_BUFFERS (1L << 30)
#define MAX_COPY_BYTES    (256LL << 20)

const char *const ping_pattern_name[PING_NPATTERNS] = {"one_way", "send",  "duplex", "start",
                                                       "round",   "burst", "fan1",   "fan"};

int ping_plan_read(struct ping_plan *p, const struct config *c, int nranks, struct sb_msg *m)
{
    memset(p, 0, sizeof *p);
    p->source = (int)cfg_int(c, "pingpong.source");
    p->dest = (int)cfg_int(c, "pingpong.dest");
    p->bytes = sb_malloc(CONFIG_MAX_LIST * sizeof *p->bytes, "sizes");
    p->nbytes = cfg_int_list(c, "pingpong.bytes", p->bytes);
    p->copy_bytes = sb_malloc(CONFIG_MAX_LIST * sizeof *p->copy_bytes, "copy sizes");
    if (cfg_all(c, "pingpong.copy_bytes")) {
        memcpy(p->copy_bytes, p->bytes, (size_t)p->nbytes * sizeof *p->bytes);
        p->ncopy = p->nbytes;
        for (long long b = 10 * p->bytes[p->nbytes - 1], i = 0; i < 3 && b <= MAX_COPY_BYTES;
             i++, b *= 10)
            p->copy_bytes[p->ncopy++] = b;
    } else {
        p->ncopy = cfg_int_list(c, "pingpong.copy_bytes", p->copy_bytes);
    }
    p->ssend = !strcmp(cfg_text(c, "pingpong.mode"), "ssend");
    p->npp_fixed = (long)cfg_int(c, "pingpong.npp");
    p->res_npp = cfg_real(c, "pingpong.res_npp");
    p->loop_seconds = cfg_real(c, "pingpong.loop_seconds");
    p->trials = (long)cfg_int(c, "pingpong.trials");
    p->max_seconds = cfg_real(c, "pingpong.max_seconds");
    p->warmup = (long)cfg_int(c, "pingpong.warmup");
    p->burst = (long)cfg_int(c, "pingpong.burst");
    p->statistic = cfg_text(c, "stats.statistic");
    p->background = cfg_bool(c, "pingpong.background");
    p->bins = (int)cfg_int(c, "pingpong.histogram_bins");
    const char *inject = cfg_text(c, "pingpong.inject_fault");
    p->inject = -1;
    for (int pt = 0; pt < PING_NPATTERNS; pt++)
        if (!strcmp(inject, ping_pattern_name[pt])) p->inject = pt;
    p->cut_coef = cfg_real(c, "stats.cut_coef");
    if (nranks < 2)
        return sb_fail(m, SB_EUSAGE, "pingpong needs 2 ranks or more (mpirun -np 2), not %d",
                       nranks);
    if (p->source >= nranks || p->dest >= nranks || p->source == p->dest)
        return sb_fail(m, SB_EUSAGE,
                       "pingpong.source = %d, pingpong.dest = %d: accepted: two different "
                       "ranks in 0..%d",
                       p->source, p->dest, nranks - 1);
    for (int i = 1; i < p->nbytes; i++)
        if (p->bytes[i] <= p->bytes[i - 1])
            return sb_fail(m, SB_EUSAGE, "pingpong.bytes = %s: accepted: rising sizes",
                           cfg_raw(c, "pingpong.bytes"));
    if (p->nbytes < 2) /* known before any measuring (and before copy_bytes = auto follows it) */
        return sb_fail(m, SB_EUSAGE,
                       "pingpong.bytes = %s: accepted: 2 or more rising sizes (the fit of alpha "
                       "and beta needs them)",
                       cfg_raw(c, "pingpong.bytes"));
    for (int i = 1; i < p->ncopy; i++)
        if (p->copy_bytes[i] <= p->copy_bytes[i - 1])
            return sb_fail(m, SB_EUSAGE, "pingpong.copy_bytes = %s: accepted: rising sizes",
                           cfg_raw(c, "pingpong.copy_bytes"));
    if (p->ncopy < 2)
        return sb_fail(m, SB_EUSAGE,
                       "pingpong.copy_bytes = %s: accepted: 2 or more sizes (or auto)",
                       cfg_raw(c, "pingpong.copy_bytes"));
    if ((double)p->burst * (double)p->bytes[p->nbytes - 1] > MAX_BURST_BUFFERS)
        return sb_fail(m, SB_EUSAGE,
                       "pingpong.burst = %ld with sizes up to %lld bytes needs %.3g GB of "
                       "receive buffers; accepted: a product up to %ld bytes",
                       p->burst, p->bytes[p->nbytes - 1],
                       (double)p->burst * (double)p->bytes[p->nbytes - 1] / 1e9, MAX_BURST_BUFFERS);
    if (p->background && nranks < 4)
        log_warning("pingpong.background = 1 needs 4 ranks or more for a pair of others; "
                    "there is no background traffic with %d",
                    nranks);
    return SB_OK;
}

void ping_plan_free(struct ping_plan *p)
{
    free(p->bytes);
    free(p->copy_bytes);
    p->bytes = p->copy_bytes = NULL;
}

bool ping_timed_pattern(const struct ping_plan *p, enum ping_pattern pt)
{
    return pt != PING_SEND || p->ssend;
}

void ping_sizes_new(const struct ping_plan *p, struct ping_size **sizes,
                    struct ping_copy_size **copy)
{
    *sizes = sb_calloc((size_t)p->nbytes, sizeof **sizes, "sizes");
    for (int s = 0; s < p->nbytes; s++) {
        (*sizes)[s].bytes = p->bytes[s];
        for (int pt = 0; pt < PING_NPATTERNS; pt++)
            (*sizes)[s].s[pt].times = sb_malloc(
                (size_t)p->trials * (ping_both_ranks(pt) ? 2 : 1) * sizeof(double), "timings");
    }
    *copy = sb_calloc((size_t)p->ncopy, sizeof **copy, "copy sizes");
    for (int s = 0; s < p->ncopy; s++) {
        (*copy)[s].bytes = p->copy_bytes[s];
        (*copy)[s].s.times = sb_malloc((size_t)p->trials * sizeof(double), "timings");
    }
}

void ping_sizes_free(const struct ping_plan *p, struct ping_size *sizes,
                     struct ping_copy_size *copy)
{
    for (int s = 0; s < p->nbytes; s++) {
        for (int pt = 0; pt < PING_NPATTERNS; pt++)
            free(sizes[s].s[pt].times);
        free(sizes[s].counts);
    }
    for (int s = 0; s < p->ncopy; s++)
        free(copy[s].s.times);
    free(sizes);
    free(copy);
}
