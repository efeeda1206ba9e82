/* shiftbox pingpong: MPI latency and communication rates measured the way
 * seed 002 sec. 3 describes, and the message costs the models take from
 * them (seed 000 sec. 4.4, src/hockney.h, docs/MODEL.md).
 *
 * The timer's resolution and overhead are measured first (the driver does,
 * on every rank).  For each size: untimed ping-pongs, then npp estimated
 * from the median of a few short loops so that a timed loop spans res_npp
 * timer resolutions (seed 002) and lasts pingpong.loop_seconds.  Then
 * timed loops, each after a barrier of the pair and a hand-shake (the
 * source waits for a byte from the destination),
 * between two reads of MPI_Wtime, minus the timer overhead, of one of the
 * patterns the exchange modules are made of:
 *   one-way  npp ping-pongs with pingpong.mode's send, halved: c(m);
 *   send     the same with MPI_Send (when the mode is ssend): collectives;
 *   duplex   npp times a message each way at once (MPI_Irecv, MPI_Isend,
 *            MPI_Waitall on both ranks), each step sending on what the
 *            one before received: x(m);
 *   start    one such step alone, as an exchange starts: each rank
 *            writes its payload anew, a barrier (no hand-shake), the
 *            step, timed on its own as shiftbox exchange times one
 *            exchange (not a loop spanning res_npp resolutions), after an
 *            untimed one; both ranks' times: x0(m), what direct's exchange
 *            is;
 *   round    the Shift's hop on a ring of two as an exchange starts: each
 *            rank writes its payload anew, a barrier, the source sends its
 *            payload (pingpong.mode) and receives the destination's, which
 *            receives first and sends its own; timed as start is, both
 *            ranks' times: r(m), two messages that forward nothing (the
 *            one-way loop forwards, and on shared memory a message read
 *            where it was just written costs more);
 *   burst    pingpong.burst messages each way at once, whence the gap
 *            g(m) = (burst - duplex) / (burst messages - 1);
 *   fan      pingpong.burst messages one way at once (MPI_Isend), answered
 *            by an empty message, and the same with one message (fan1):
 *            the one-way gap f(m) = (fan - fan1) / (burst - 1), what each
 *            further message a rank sends or receives alone costs (the
 *            trees of collectives);
 *   copy     memcpy on both ranks at once, at pingpong.copy_bytes (the
 *            message sizes and larger ones, whose copies stream from
 *            memory; the source's time is kept), after the messages and
 *            for a quarter of their time, so as not to cool their caches.
 * The sizes and patterns take turns, one timed loop each, so that a
 * machine whose speed drifts touches all alike, until pingpong.trials loops
 * or pingpong.max_seconds.  The chosen statistic (stats.statistic) of each
 * size and pattern makes the curves of hockney.json.  The last message of
 * every one-way and duplex loop, and every start and round step's, is
 * compared byte for byte with what was sent (pingpong.inject_fault: a test
 * flips one).
 * With pingpong.background the other ranks exchange large messages in
 * pairs meanwhile (seed 000 sec. 6.2.2).
 *
 * The driver: the plan (src/pingpong/plan.c), the pair's timed patterns
 * (patterns.c), then the statistics, fit and reports (results.c). */
#include "command.h"
#include "coll.h"
#include "log.h"
#include "pingpong/patterns.h"
#include "pingpong/plan.h"
#include "pingpong/results.h"

int cmd_pingpong(struct run_ctx *ctx)
{
    struct ping_plan p;
    struct sb_msg m = {""};
    int rc = ping_plan_read(&p, ctx->cfg, ctx->nranks, &m);
    if (rc != SB_OK) {
        log_error("%s", m.text);
        ping_plan_free(&p);
        return rc;
    }
    struct ping_size *sizes;
    struct ping_copy_size *copy;
    ping_sizes_new(&p, &sizes, &copy);
    log_info("\npingpong: ranks %d and %d, %s, %d sizes, %s of each size for the models; "
             "patterns: one-way, %sduplex, start, round, burst of %ld, copy%s",
             p.source, p.dest, p.ssend ? "MPI_Ssend" : "MPI_Send", p.nbytes, p.statistic,
             p.ssend ? "MPI_Send, " : "", p.burst,
             p.background && ctx->nranks >= 4 ? "; other ranks sending 1 MiB in pairs" : "");
    struct ping_pair pr;
    bool in_pair;
    CHECK(ping_pair_open(&pr, &p, ctx, &in_pair));
    if (in_pair) {
        rc = ping_measure(&p, &pr, &ctx->timer, sizes, copy);
        if (rc == SB_OK && pr.me == 0 && p.background)
            rc = ping_stop_background(&p, ctx->nranks, ctx->world);
    } else if (p.background) {
        rc = ping_background(&p, ctx->rank, ctx->nranks, ctx->world);
    }
    /* Both ends compared what arrived: rank 0 reports the pair's sums. */
    long checked[2] = {pr.checked, pr.wrong};
    if (rc == SB_OK) rc = ping_collect(&p, sizes, copy, ctx->rank, ctx->world);
    if (rc == SB_OK)
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, checked, 2, MPI_LONG, MPI_SUM, ctx->world));
    if (rc == SB_OK && ctx->rank == 0) rc = ping_report(ctx, &p, sizes, copy, checked);
    if (rc != SB_ERUNTIME) sb_bcast(&rc, 1, MPI_INT, 0, ctx->world);
    ping_sizes_free(&p, sizes, copy);
    ping_pair_close(&pr);
    ping_plan_free(&p);
    return rc;
}
