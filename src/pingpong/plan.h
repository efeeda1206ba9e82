/* What a shiftbox pingpong run measures, read from pingpong.* and stats.*
 * and checked before anything runs: the pair of ranks, the sizes, the
 * patterns (cmd_pingpong.c's opening comment) and how long; and the series
 * of times each size and pattern fills. */
#ifndef SB_PINGPONG_PLAN_H
#define SB_PINGPONG_PLAN_H

#include "../config.h"
#include "../error.h"
#include "../stats.h"

#include <stdbool.h>

/* Message tags of the pair, and of the others' background traffic. */
enum {
    PING_TAG_PING = 1,
    PING_TAG_PONG,
    PING_TAG_HAND,
    PING_TAG_STOP,
    PING_TAG_NOISE,
    PING_TAG_BURST
};

/* The message patterns timed at every size. */
enum ping_pattern {
    PING_ONEWAY,
    PING_SEND,
    PING_DUPLEX,
    PING_START,
    PING_ROUND,
    PING_BURST,
    PING_FAN1,
    PING_FAN,
    PING_NPATTERNS
};
extern const char *const ping_pattern_name[PING_NPATTERNS];

/* The patterns timed on both ranks as an exchange is (the others on the
 * source). */
static inline bool ping_both_ranks(enum ping_pattern pt)
{
    return pt == PING_START || pt == PING_ROUND;
}

struct ping_plan {
    int source, dest;
    long long *bytes, *copy_bytes;
    int nbytes, ncopy;
    bool ssend, background;
    int inject; /* pingpong.inject_fault: a pattern, or -1 */
    long npp_fixed, trials, warmup, burst;
    double res_npp, loop_seconds, max_seconds, cut_coef;
    int bins;
    const char *statistic;
};

/* One pattern's measurements at one size, on the source (ping_both_ranks: both
 * ranks' times, the destination's appended after the loops). */
struct ping_series {
    double *times; /* s per operation (one-way: half a round trip) */
    long n;
    struct stats all, filtered;
    double lowest20;
};

struct ping_size {
    long long bytes;
    long npp; /* ping-pongs per timed loop */
    struct ping_series s[PING_NPATTERNS];
    long *counts, above; /* the one-way histogram */
    double hist_lo, hist_hi;
};

struct ping_copy_size {
    long long bytes;
    long reps; /* copies per timed loop */
    struct ping_series s;
};

int ping_plan_read(struct ping_plan *p, const struct config *c, int nranks, struct sb_msg *m);
void ping_plan_free(struct ping_plan *p);
/* The patterns this run times: send only where the one-way mode is ssend. */
bool ping_timed_pattern(const struct ping_plan *p, enum ping_pattern pt);
/* Every size's and copy size's series, with room for their times. */
void ping_sizes_new(const struct ping_plan *p, struct ping_size **sizes,
                    struct ping_copy_size **copy);
void ping_sizes_free(const struct ping_plan *p, struct ping_size *sizes,
                     struct ping_copy_size *copy);

#endif
