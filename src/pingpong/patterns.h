/* The timed patterns of shiftbox pingpong (seed 002 sec. 3; each one in
 * cmd_pingpong.c's opening comment) on the pair of ranks, and the other
 * ranks' background traffic (pingpong.background). */
#ifndef SB_PINGPONG_PATTERNS_H
#define SB_PINGPONG_PATTERNS_H

#include "plan.h"
#include "../command.h"

struct ping_pair {
    MPI_Comm comm; /* source = 0, dest = 1; MPI_COMM_NULL elsewhere */
    int me;
    /* Messages: every pattern forwards what arrived (a ping-pong sends back
     * the buffer it received, an exchange sends the one received the step
     * before), as the Shift does, so that each message is read where it
     * was just written. */
    unsigned char *a, *b;             /* one message each way */
    unsigned char *burst_a, *burst_b; /* a burst's messages, one buffer each */
    unsigned char *copy_from, *copy_to;
    long checked, wrong; /* messages compared, and those that differed */
    int inject;          /* pingpong.inject_fault: the pattern whose messages are hit */
};

/* Collective over ctx->world: the pair's communicator (source = 0, dest =
 * 1) and, on its two ranks, the buffers; *in_pair says whether this rank is
 * one of them. */
int ping_pair_open(struct ping_pair *pr, const struct ping_plan *p, const struct run_ctx *ctx,
                   bool *in_pair);
void ping_pair_close(struct ping_pair *pr);
/* The pair's part: warm-up and npp per size, then timed loops in turns,
 * then the copies; the destination's start and round times end at the
 * source. */
int ping_measure(const struct ping_plan *p, struct ping_pair *pr,
                 const struct timer_calibration *tc, struct ping_size *sizes,
                 struct ping_copy_size *copy);
/* The other ranks, in pairs, exchange large messages until the source says
 * stop (ping_stop_background). */
int ping_background(const struct ping_plan *p, int rank, int nranks, MPI_Comm world);
int ping_stop_background(const struct ping_plan *p, int nranks, MPI_Comm world);

#endif
