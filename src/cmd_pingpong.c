/* shiftbox pingpong: MPI latency and communication rates measured the way
 * seed 002 sec. 3 describes, and the message costs the models take from
 * them (seed 000 sec. 4.4, src/hockney.h, docs/MODEL.md).
 *
 * The timer's resolution and overhead are measured first (the driver does,
 * on every rank).  For each size: untimed ping-pongs, then npp estimated
 * from the median of a few short loops so that a timed loop spans res_npp
 * timer resolutions (seed 002) and lasts pingpong.loop_seconds.  Then timed loops, each after a barrier of the pair
 * and a hand-shake (the source waits for a byte from the destination),
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
 * pairs meanwhile (seed 000 sec. 6.2.2). */
#include "command.h"
#include "coll.h"
#include "hockney.h"
#include "log.h"
#include "pingpong.h"
#include "report.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_PING = 1, TAG_PONG, TAG_HAND, TAG_STOP, TAG_NOISE, TAG_BURST, BACKGROUND_BYTES = 1 << 20 };
enum { NPP_INIT = 4, NPP_TRIALS = 21 };
#define MAX_BURST_BUFFERS (1L << 30)

/* The message patterns timed at every size. */
enum pattern { P_ONEWAY, P_SEND, P_DUPLEX, P_START, P_ROUND, P_BURST, P_FAN1, P_FAN, NPATTERNS };
static const char *const pattern_name[NPATTERNS] = {"one_way", "send",  "duplex", "start",
                                                    "round",   "burst", "fan1",   "fan"};

/* The patterns timed on both ranks as an exchange is (the others on the
 * source). */
static bool both_ranks(enum pattern pt)
{
    return pt == P_START || pt == P_ROUND;
}

#define MAX_COPY_BYTES (256LL << 20)

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

/* One pattern's measurements at one size, on the source (both_ranks: both
 * ranks' times, the destination's appended after the loops). */
struct series {
    double *times; /* s per operation (one-way: half a round trip) */
    long n;
    struct stats all, filtered;
    double lowest20;
};

struct ping_size {
    long long bytes;
    long npp; /* ping-pongs per timed loop */
    struct series s[NPATTERNS];
    long *counts, above; /* the one-way histogram */
    double hist_lo, hist_hi;
};

struct copy_size {
    long long bytes;
    long reps; /* copies per timed loop */
    struct series s;
};

struct pair {
    MPI_Comm comm; /* source = 0, dest = 1; MPI_COMM_NULL elsewhere */
    int me;
    /* Messages: every pattern forwards what arrived (a ping-pong sends back
     * the buffer it received, an exchange sends the one received the step
     * before), as the Shift does, so that each message is read where it
     * was just written. */
    unsigned char *a, *b;             /* one message each way */
    unsigned char *burst_a, *burst_b; /* a burst's messages, one buffer each */
    unsigned char *copy_from, *copy_to;
    long checked, wrong;     /* messages compared, and those that differed */
    int inject;              /* pingpong.inject_fault: the pattern whose messages are hit */
};

static int read_plan(struct ping_plan *p, const struct config *c, int nranks, struct sb_msg *m)
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
    for (int pt = 0; pt < NPATTERNS; pt++)
        if (!strcmp(inject, pattern_name[pt])) p->inject = pt;
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
                       (double)p->burst * (double)p->bytes[p->nbytes - 1] / 1e9,
                       MAX_BURST_BUFFERS);
    if (p->background && nranks < 4)
        log_warning("pingpong.background = 1 needs 4 ranks or more for a pair of others; "
                    "there is no background traffic with %d",
                    nranks);
    return SB_OK;
}

/* ---- the timed patterns ------------------------------------------------------ */

static int send_to(bool ssend, const void *buf, int n, int to, int tag, MPI_Comm c)
{
    if (ssend)
        CHECK_MPI(MPI_Ssend(buf, n, MPI_BYTE, to, tag, c));
    else
        CHECK_MPI(MPI_Send(buf, n, MPI_BYTE, to, tag, c));
    return SB_OK;
}

/* What a rank sends at a size: bytes that depend on the size and the rank. */
static void fill_pattern(unsigned char *buf, long long n, int me)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(n + 1) + (uint64_t)me;
    for (long long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
}

/* After a timed loop of pattern pt: `got` must hold the bytes rank
 * `sender` of the pair sent first (pingpong.inject_fault flips one first). */
static void check_arrival(struct pair *pr, enum pattern pt, unsigned char *got, long long n,
                          int sender)
{
    static unsigned char *expect;
    static long long expect_n = -1;
    static int expect_sender = -1;
    if (n == 0) return;
    if (pr->inject == (int)pt) got[n / 2] ^= 0x10;
    if (expect_n != n || expect_sender != sender) {
        free(expect);
        expect = sb_malloc((size_t)n, "the expected message");
        fill_pattern(expect, n, sender);
        expect_n = n;
        expect_sender = sender;
    }
    pr->checked++;
    if (memcmp(expect, got, (size_t)n)) {
        pr->wrong++;
        log_rank_error("pingpong: a message of %lld bytes from rank %d of the pair arrived with "
                       "wrong bytes",
                       n, sender);
    }
}

/* A barrier of the pair, then the source waits for a byte from the
 * destination (seed 002 sec. 3.2), so that both start together. */
static int start_together(struct pair *pr)
{
    char hand = 0;
    CHECK_MPI(MPI_Barrier(pr->comm));
    if (pr->me == 0)
        CHECK_MPI(MPI_Recv(&hand, 1, MPI_CHAR, 1, TAG_HAND, pr->comm, MPI_STATUS_IGNORE));
    else
        CHECK_MPI(MPI_Send(&hand, 1, MPI_CHAR, 0, TAG_HAND, pr->comm));
    return SB_OK;
}

/* npp round trips of n bytes, the source's pattern bouncing between the
 * ranks in one buffer each; the source returns their time in *t. */
static int round_trips(bool ssend, struct pair *pr, int n, long npp, bool timed, double *t)
{
    int other = 1 - pr->me;
    if (pr->me == 0) fill_pattern(pr->a, n, 0);
    if (timed) CHECK(start_together(pr));
    double t1 = MPI_Wtime();
    for (long i = 0; i < npp; i++) {
        if (pr->me == 0) {
            CHECK(send_to(ssend, pr->a, n, other, TAG_PING, pr->comm));
            CHECK_MPI(MPI_Recv(pr->a, n, MPI_BYTE, other, TAG_PONG, pr->comm, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Recv(pr->a, n, MPI_BYTE, other, TAG_PING, pr->comm, MPI_STATUS_IGNORE));
            CHECK(send_to(ssend, pr->a, n, other, TAG_PONG, pr->comm));
        }
    }
    *t = MPI_Wtime() - t1;
    if (timed && pr->me == 0) /* the source's bytes came back */
        check_arrival(pr, P_ONEWAY, pr->a, n, 0);
    return SB_OK;
}

static void swap_buffers(unsigned char **x, unsigned char **y)
{
    unsigned char *t = *x;
    *x = *y;
    *y = t;
}

/* `reps` steps of `count` messages each way at once, each step sending on
 * what the one before received; *t their time. */
static int exchanges(struct pair *pr, int n, long reps, int count, double *t)
{
    int other = 1 - pr->me;
    MPI_Request req[2 * count];
    unsigned char **send = count == 1 ? &pr->a : &pr->burst_a;
    unsigned char **recv = count == 1 ? &pr->b : &pr->burst_b;
    if (count == 1) fill_pattern(pr->a, n, pr->me);
    CHECK(start_together(pr));
    double t1 = MPI_Wtime();
    for (long r = 0; r < reps; r++) {
        for (int i = 0; i < count; i++)
            CHECK_MPI(MPI_Irecv(*recv + (size_t)i * (size_t)n, n, MPI_BYTE, other, TAG_BURST + i,
                                pr->comm, &req[i]));
        for (int i = 0; i < count; i++)
            CHECK_MPI(MPI_Isend(*send + (size_t)i * (size_t)n, n, MPI_BYTE, other, TAG_BURST + i,
                                pr->comm, &req[count + i]));
        CHECK_MPI(MPI_Waitall(2 * count, req, MPI_STATUSES_IGNORE));
        swap_buffers(send, recv);
    }
    *t = MPI_Wtime() - t1;
    /* each step sends back what came: after an odd number the partner's bytes */
    if (count == 1) check_arrival(pr, P_DUPLEX, pr->a, n, reps % 2 ? other : pr->me);
    return SB_OK;
}

/* One step alone as an exchange starts (what shiftbox exchange times): the
 * payload written anew, a barrier, then
 *   start  a message each way at once (MPI_Irecv, MPI_Isend, MPI_Waitall);
 *   round  the Shift's hop on a ring of two: the source sends (pingpong.mode)
 *          and then receives, the destination receives and then sends its
 *          own;
 * *t this rank's time.  Each timed step follows an untimed one, as an
 * exchange follows the one before (which left its buffers in the caches;
 * the patterns taking turns do not).  Every timed step's arrival is
 * compared. */
static int step_alone(bool ssend, struct pair *pr, enum pattern pt, int n, double *t)
{
    int other = 1 - pr->me;
    for (int step = 0; step < 2; step++) { /* the second is the one kept */
        fill_pattern(pr->a, n, pr->me);
        CHECK_MPI(MPI_Barrier(pr->comm));
        double t1 = MPI_Wtime();
        if (pt == P_START) {
            MPI_Request req[2];
            CHECK_MPI(MPI_Irecv(pr->b, n, MPI_BYTE, other, TAG_BURST, pr->comm, &req[0]));
            CHECK_MPI(MPI_Isend(pr->a, n, MPI_BYTE, other, TAG_BURST, pr->comm, &req[1]));
            CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        } else if (pr->me == 0) {
            CHECK(send_to(ssend, pr->a, n, other, TAG_PING, pr->comm));
            CHECK_MPI(MPI_Recv(pr->b, n, MPI_BYTE, other, TAG_PONG, pr->comm, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Recv(pr->b, n, MPI_BYTE, other, TAG_PING, pr->comm, MPI_STATUS_IGNORE));
            CHECK(send_to(ssend, pr->a, n, other, TAG_PONG, pr->comm));
        }
        *t = MPI_Wtime() - t1;
    }
    check_arrival(pr, pt, pr->b, n, other);
    return SB_OK;
}

/* `reps` fans: the source sends `count` messages of n bytes at once, the
 * destination receives them and answers with an empty message; *t their
 * time on the source. */
static int fans(struct pair *pr, int n, long reps, int count, double *t)
{
    int other = 1 - pr->me;
    MPI_Request req[count];
    CHECK(start_together(pr));
    double t1 = MPI_Wtime();
    for (long r = 0; r < reps; r++) {
        for (int i = 0; i < count; i++) {
            unsigned char *buf = (pr->me == 0 ? pr->burst_a : pr->burst_b) + (size_t)i * (size_t)n;
            if (pr->me == 0)
                CHECK_MPI(MPI_Isend(buf, n, MPI_BYTE, other, TAG_BURST + i, pr->comm, &req[i]));
            else
                CHECK_MPI(MPI_Irecv(buf, n, MPI_BYTE, other, TAG_BURST + i, pr->comm, &req[i]));
        }
        CHECK_MPI(MPI_Waitall(count, req, MPI_STATUSES_IGNORE));
        if (pr->me == 0)
            CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, other, TAG_PONG, pr->comm, MPI_STATUS_IGNORE));
        else
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, other, TAG_PONG, pr->comm));
    }
    *t = MPI_Wtime() - t1;
    return SB_OK;
}

/* `reps` copies of n bytes on this rank; their time. */
static double copies(struct pair *pr, long long n, long reps)
{
    static volatile unsigned char sink;
    double t1 = MPI_Wtime();
    for (long r = 0; r < reps; r++) {
        memcpy(pr->copy_to, pr->copy_from, (size_t)n);
        sink = pr->copy_to[r % (n > 0 ? n : 1)];
    }
    (void)sink;
    return MPI_Wtime() - t1;
}

/* Seed 002 sec. 3.3: npp from the median of NPP_TRIALS loops of NPP_INIT. */
static int choose_npp(const struct ping_plan *p, struct pair *pr, int n, double res,
                      double overhead, long *npp)
{
    double per[NPP_TRIALS];
    for (int i = 0; i < NPP_TRIALS; i++) {
        CHECK(round_trips(p->ssend, pr, n, NPP_INIT, true, &per[i]));
        per[i] = (per[i] - overhead) / NPP_INIT;
    }
    double each = median_sorted_inplace(per, NPP_TRIALS);
    *npp = p->npp_fixed > 0 ? p->npp_fixed : pingpong_npp(p->res_npp, res, each);
    if (p->npp_fixed <= 0 && each > 0 && *npp * each < p->loop_seconds)
        *npp = lround(ceil(p->loop_seconds / each));
    CHECK_MPI(MPI_Bcast(npp, 1, MPI_LONG, 0, pr->comm));
    return SB_OK;
}

/* The same for copies: enough per loop to span res_npp resolutions. */
static int choose_copies(const struct ping_plan *p, struct pair *pr, long long n, double res,
                         double overhead, long *reps)
{
    double per[NPP_TRIALS];
    for (int i = 0; i < NPP_TRIALS; i++)
        per[i] = (copies(pr, n, NPP_INIT) - overhead) / NPP_INIT;
    double each = median_sorted_inplace(per, NPP_TRIALS);
    *reps = pingpong_npp(p->res_npp, res, each);
    if (each > 0 && *reps * each < p->loop_seconds) *reps = lround(ceil(p->loop_seconds / each));
    CHECK_MPI(MPI_Bcast(reps, 1, MPI_LONG, 0, pr->comm));
    return SB_OK;
}

/* One timed loop of pattern `pt` at size z; the source records its time
 * (both_ranks: both do). */
static int timed_loop(const struct ping_plan *p, struct pair *pr, double overhead,
                      struct ping_size *z, enum pattern pt)
{
    int n = (int)z->bytes;
    double t = 0.0, per = 1.0;
    switch (pt) {
    case P_ONEWAY:
    case P_SEND:
        CHECK(round_trips(pt == P_ONEWAY && p->ssend, pr, n, z->npp, true, &t));
        per = 2.0 * (double)z->npp;
        break;
    case P_DUPLEX:
        CHECK(exchanges(pr, n, z->npp, 1, &t));
        per = (double)z->npp;
        break;
    case P_START:
    case P_ROUND:
        CHECK(step_alone(p->ssend, pr, pt, n, &t));
        break;
    case P_BURST: {
        long reps = (z->npp + p->burst - 1) / p->burst;
        CHECK(exchanges(pr, n, reps, (int)p->burst, &t));
        per = (double)reps;
        break;
    }
    case P_FAN1:
    case P_FAN: {
        int count = pt == P_FAN ? (int)p->burst : 1;
        long reps = (z->npp + count - 1) / count;
        CHECK(fans(pr, n, reps, count, &t));
        per = (double)reps;
        break;
    }
    default:
        break;
    }
    struct series *s = &z->s[pt];
    if (pr->me == 0 || both_ranks(pt)) s->times[s->n++] = (t - overhead) / per;
    return SB_OK;
}

/* The patterns this run times: send only where the one-way mode is ssend. */
static bool timed_pattern(const struct ping_plan *p, enum pattern pt)
{
    return pt != P_SEND || p->ssend;
}

/* Both ranks copy at once (as they do in an exchange); the source's time. */
static int timed_copies(struct pair *pr, double overhead, struct copy_size *z)
{
    CHECK(start_together(pr));
    double t = copies(pr, z->bytes, z->reps);
    if (pr->me == 0) z->s.times[z->s.n++] = (t - overhead) / (double)z->reps;
    return SB_OK;
}

/* The destination's start and round times to the source, after the
 * source's own: an exchange's time is every rank's. */
static int merge_both(const struct ping_plan *p, struct pair *pr, struct ping_size *sizes)
{
    for (int s = 0; s < p->nbytes; s++)
        for (int pt = 0; pt < NPATTERNS; pt++) {
            if (!both_ranks(pt)) continue;
            struct series *x = &sizes[s].s[pt];
            if (pr->me == 1) {
                CHECK_MPI(MPI_Send(&x->n, 1, MPI_LONG, 0, TAG_PING, pr->comm));
                CHECK_MPI(MPI_Send(x->times, (int)x->n, MPI_DOUBLE, 0, TAG_PONG, pr->comm));
                continue;
            }
            long n;
            CHECK_MPI(MPI_Recv(&n, 1, MPI_LONG, 1, TAG_PING, pr->comm, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Recv(x->times + x->n, (int)n, MPI_DOUBLE, 1, TAG_PONG, pr->comm,
                               MPI_STATUS_IGNORE));
            x->n += n;
        }
    return SB_OK;
}

/* The pair's part: warm-up and npp per size, then timed loops in turns. */
static int measure(const struct ping_plan *p, struct pair *pr, const struct timer_calibration *tc,
                   struct ping_size *sizes, struct copy_size *copy)
{
    for (int s = 0; s < p->nbytes; s++) {
        double unused;
        CHECK(round_trips(p->ssend, pr, (int)sizes[s].bytes, p->warmup, false, &unused));
        CHECK(choose_npp(p, pr, (int)sizes[s].bytes, tc->resolution, tc->overhead, &sizes[s].npp));
    }
    for (int s = 0; s < p->ncopy; s++)
        CHECK(choose_copies(p, pr, copy[s].bytes, tc->resolution, tc->overhead, &copy[s].reps));
    double start = MPI_Wtime();
    for (long trial = 0;; trial++) {
        int go = trial < p->trials && MPI_Wtime() - start < p->max_seconds;
        CHECK_MPI(MPI_Bcast(&go, 1, MPI_INT, 0, pr->comm)); /* the source decides */
        if (!go) break;
        for (int s = 0; s < p->nbytes; s++) {
            for (int pt = 0; pt < NPATTERNS; pt++)
                if (timed_pattern(p, pt)) CHECK(timed_loop(p, pr, tc->overhead, &sizes[s], pt));
        }
        if (pr->me == 0)
            log_progress((double)(trial + 1), (double)p->trials, "trials",
                         "pingpong: a timed loop per size and pattern each, %.0f s of at most "
                         "%.0f",
                         MPI_Wtime() - start, p->max_seconds);
    }
    /* Copies after the messages, so that copies streaming through memory do
     * not cool the caches of the message loops: a quarter of the time. */
    start = MPI_Wtime();
    for (long trial = 0;; trial++) {
        int go = trial < p->trials && MPI_Wtime() - start < p->max_seconds / 4;
        CHECK_MPI(MPI_Bcast(&go, 1, MPI_INT, 0, pr->comm));
        if (!go) break;
        for (int s = 0; s < p->ncopy; s++)
            CHECK(timed_copies(pr, tc->overhead, &copy[s]));
    }
    log_progress_done();
    return merge_both(p, pr, sizes);
}

/* The others, in pairs, exchange large messages until the source says stop;
 * the lower rank of a pair watches for it and tells its partner inside the
 * next message, so that both leave after the same exchange. */
static int background(const struct ping_plan *p, int rank, int nranks, MPI_Comm world)
{
    int others[nranks], n = 0, me = -1;
    for (int r = 0; r < nranks; r++)
        if (r != p->source && r != p->dest) {
            if (r == rank) me = n;
            others[n++] = r;
        }
    if (me == n - 1 && n % 2 == 1) { /* no partner: just wait for the word */
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, p->source, TAG_STOP, world, MPI_STATUS_IGNORE));
        return SB_OK;
    }
    int partner = others[me ^ 1];
    bool lower = me % 2 == 0;
    unsigned char *out = sb_calloc(1, BACKGROUND_BYTES, "background traffic");
    unsigned char *in = sb_malloc(BACKGROUND_BYTES, "background traffic");
    bool stop = false, told = false;
    while (!stop) {
        if (lower && !told) {
            int flag;
            CHECK_MPI(MPI_Iprobe(p->source, TAG_STOP, world, &flag, MPI_STATUS_IGNORE));
            if (flag) {
                CHECK_MPI(
                    MPI_Recv(NULL, 0, MPI_BYTE, p->source, TAG_STOP, world, MPI_STATUS_IGNORE));
                told = true;
            }
            out[0] = told;
        }
        CHECK_MPI(MPI_Sendrecv(out, BACKGROUND_BYTES, MPI_BYTE, partner, TAG_NOISE, in,
                               BACKGROUND_BYTES, MPI_BYTE, partner, TAG_NOISE, world,
                               MPI_STATUS_IGNORE));
        stop = lower ? told : in[0];
    }
    if (!lower)
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, p->source, TAG_STOP, world, MPI_STATUS_IGNORE));
    free(out);
    free(in);
    return SB_OK;
}

static int stop_background(const struct ping_plan *p, int nranks, MPI_Comm world)
{
    for (int r = 0; r < nranks; r++)
        if (r != p->source && r != p->dest)
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, r, TAG_STOP, world));
    return SB_OK;
}

/* ---- results ----------------------------------------------------------------------- */

static void analyse(const struct ping_plan *p, struct series *s)
{
    stats_compute(s->times, (size_t)s->n, &s->all);
    double *kept = sb_malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *kept, "filtered times");
    size_t nk = stats_filter(s->times, (size_t)s->n, p->cut_coef, s->all.median, kept);
    stats_compute(kept, nk, &s->filtered);
    free(kept);
    s->lowest20 = mean_of_lowest(s->times, (size_t)s->n, 0.2);
}

/* stats.statistic of a series. */
static double chosen(const struct ping_plan *p, const struct series *s)
{
    if (!strcmp(p->statistic, "mean")) return s->all.mean;
    if (!strcmp(p->statistic, "min")) return s->all.min;
    if (!strcmp(p->statistic, "lowest20")) return s->lowest20;
    return s->all.median;
}

/* MB/s of one message of `bytes` taking t (seed 002 App. C). */
static double rate(long long bytes, double t)
{
    return t > 0 ? (double)bytes / t / 1e6 : 0.0;
}

static cJSON *series_json(const struct ping_plan *p, const struct series *s)
{
    cJSON *o = report_stats(&s->all);
    cJSON *f = report_stats(&s->filtered);
    cJSON_AddNumberToObject(f, "cut_coef", p->cut_coef);
    cJSON_AddNumberToObject(f, "removed", (double)(s->all.n - s->filtered.n));
    cJSON_AddItemToObject(o, "filtered", f);
    cJSON_AddNumberToObject(o, "lowest20_mean", s->lowest20);
    /* the statistic the curves use (stats.statistic), under one name: under
       its own it repeated a key the statistics already hold */
    cJSON_AddNumberToObject(o, "statistic_s", chosen(p, s));
    return o;
}

static cJSON *size_json(const struct ping_plan *p, const struct ping_size *z)
{
    cJSON *o = cJSON_CreateObject();
    const struct series *one = &z->s[P_ONEWAY];
    cJSON_AddNumberToObject(o, "bytes", (double)z->bytes);
    cJSON_AddNumberToObject(o, "npp", (double)z->npp);
    cJSON_AddItemToObject(o, "one_way_s", report_stats(&one->all));
    cJSON *f = report_stats(&one->filtered);
    cJSON_AddNumberToObject(f, "cut_coef", p->cut_coef);
    cJSON_AddNumberToObject(f, "removed", (double)(one->all.n - one->filtered.n));
    cJSON_AddItemToObject(o, "filtered_one_way_s", f);
    cJSON_AddNumberToObject(o, "lowest20_mean_s", one->lowest20);
    for (int pt = P_SEND; pt < NPATTERNS; pt++) {
        if (!timed_pattern(p, pt)) continue;
        char key[32];
        snprintf(key, sizeof key, "%s_s", pattern_name[pt]);
        cJSON_AddItemToObject(o, key, series_json(p, &z->s[pt]));
    }
    cJSON *r = cJSON_AddObjectToObject(o, "rate_mb_per_s");
    cJSON_AddNumberToObject(r, "from_min", rate(z->bytes, one->all.min));
    cJSON_AddNumberToObject(r, "from_median", rate(z->bytes, one->all.median));
    cJSON_AddNumberToObject(r, "from_mean", rate(z->bytes, one->all.mean));
    cJSON *h = cJSON_AddObjectToObject(o, "histogram");
    cJSON_AddNumberToObject(h, "lo_s", z->hist_lo);
    cJSON_AddNumberToObject(h, "hi_s", z->hist_hi);
    cJSON *counts = cJSON_AddArrayToObject(h, "counts");
    for (int b = 0; b < p->bins; b++)
        cJSON_AddItemToArray(counts, cJSON_CreateNumber((double)z->counts[b]));
    cJSON_AddNumberToObject(h, "above", (double)z->above);
    return o;
}

static void print_tables(const struct ping_plan *p, const struct ping_size *sizes,
                         const struct copy_size *copy)
{
    log_info("\none-way times (half a round trip, %s) over %ld+ timed loops per size, us:",
             p->ssend ? "MPI_Ssend" : "MPI_Send", sizes[0].s[P_ONEWAY].n);
    log_info("%9s %5s %6s %9s %9s %9s %10s %9s %6s %7s | %6s %9s %9s | %9s %9s", "bytes", "npp",
             "n", "min", "median", "mean", "max", "sd", "cv%", "rse%", "kept", "f_mean", "f_sd",
             "MB/s_min", "MB/s_med");
    for (int s = 0; s < p->nbytes; s++) {
        const struct ping_size *z = &sizes[s];
        const struct stats *a = &z->s[P_ONEWAY].all, *f = &z->s[P_ONEWAY].filtered;
        log_info("%9lld %5ld %6zu %9.3f %9.3f %9.3f %10.3f %9.3f %6.2f %7.3f | %6zu %9.3f %9.3f "
                 "| %9.1f %9.1f",
                 z->bytes, z->npp, a->n, a->min * 1e6, a->median * 1e6, a->mean * 1e6, a->max * 1e6,
                 a->stddev * 1e6, a->cv * 100, a->rse * 100, f->n, f->mean * 1e6, f->stddev * 1e6,
                 rate(z->bytes, a->min), rate(z->bytes, a->median));
    }
    log_info("\nthe patterns the models use (%s of each, us; start: a step alone as an exchange "
             "starts, both ranks; round: the Shift's hop on a ring of two as an exchange starts, "
             "two messages, both ranks; burst: %ld messages each way at once; gap = (burst - "
             "duplex) / %ld):",
             p->statistic, p->burst, p->burst - 1);
    log_info("%9s %10s %10s %10s %10s %10s %10s %10s %10s", "bytes", "one-way", "send", "duplex",
             "start", "round", "burst", "gap", "fan gap");
    for (int s = 0; s < p->nbytes; s++) {
        const struct ping_size *z = &sizes[s];
        double v[NPATTERNS];
        for (int pt = 0; pt < NPATTERNS; pt++)
            v[pt] = timed_pattern(p, pt) ? chosen(p, &z->s[pt]) : chosen(p, &z->s[P_ONEWAY]);
        double gap = (v[P_BURST] - v[P_DUPLEX]) / (double)(p->burst - 1);
        double fan = (v[P_FAN] - v[P_FAN1]) / (double)(p->burst - 1);
        log_info("%9lld %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f", z->bytes,
                 v[P_ONEWAY] * 1e6, v[P_SEND] * 1e6, v[P_DUPLEX] * 1e6, v[P_START] * 1e6,
                 v[P_ROUND] * 1e6, v[P_BURST] * 1e6, gap * 1e6, fan * 1e6);
    }
    log_info("\nmemcpy on both ranks at once (%s, us):", p->statistic);
    for (int s = 0; s < p->ncopy; s++)
        log_info("%12lld bytes %12.3f us %9.2f GB/s", copy[s].bytes, chosen(p, &copy[s].s) * 1e6,
                 chosen(p, &copy[s].s) > 0 ? (double)copy[s].bytes / chosen(p, &copy[s].s) / 1e9
                                           : 0.0);
}

static void print_hockney(const struct hockney *h)
{
    const struct hockney_curve *c = &h->oneway;
    log_info("\nHockney (%s of each size): alpha = %.3f us (0-byte one-way time)", h->statistic,
             h->alpha * 1e6);
    for (int i = 0; i < c->npoints; i++)
        if (c->point[i].bytes > 0 && c->point[0].bytes == 0)
            log_info("  %9.0f bytes: %10.3f us, beta per load %.4g ns/byte", c->point[i].bytes,
                     c->point[i].time * 1e6,
                     (c->point[i].time - h->alpha) / c->point[i].bytes * 1e9);
    for (int i = 0; i < c->nsegments; i++) {
        const struct hockney_segment *s = &c->segment[i];
        log_info("  fit %s %.0f..%.0f bytes: alpha %.3f us, beta %.4g ns/byte (%.3g GB/s), "
                 "relative rms %.1f%%",
                 c->nsegments == 2 ? (i ? "above the break," : "below the break,") : "over",
                 s->from, s->to, s->alpha * 1e6, s->beta * 1e9, s->beta > 0 ? 1e-9 / s->beta : 0.0,
                 s->rms * 100);
    }
    if (c->nsegments == 2)
        log_info("  the protocol changes between %.0f and %.0f bytes (the eager limit, found in "
                 "the data)",
                 c->segment[0].to, c->segment[1].from);
    for (int i = 0; i < HOCKNEY_MORE; i++) {
        const struct hockney_curve *more = hockney_more(h, i);
        for (int j = 0; j < more->nsegments; j++) {
            const struct hockney_segment *s = &more->segment[j];
            log_info("  %-6s %.0f..%.0f bytes: %.3f us + %.4g ns/byte", hockney_more_names[i],
                     s->from, s->to, s->alpha * 1e6, s->beta * 1e9);
        }
    }
}

/* The curves of hockney.json from the chosen statistic of each series. */
static void build_curves(const struct ping_plan *p, const struct ping_size *sizes,
                         const struct copy_size *copy, struct hockney *h)
{
    memset(h, 0, sizeof *h);
    snprintf(h->statistic, sizeof h->statistic, "%s", p->statistic);
    snprintf(h->mode, sizeof h->mode, "%s", p->ssend ? "ssend" : "send");
    h->burst = (int)p->burst;
    char library[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len;
    MPI_Get_library_version(library, &len);
    h->smpi = !strncmp(library, "SMPI", 4);
    for (int s = 0; s < p->nbytes; s++) {
        const struct ping_size *z = &sizes[s];
        double m = (double)z->bytes, duplex = chosen(p, &z->s[P_DUPLEX]);
        double gap = (chosen(p, &z->s[P_BURST]) - duplex) / (double)(p->burst - 1);
        double fan = (chosen(p, &z->s[P_FAN]) - chosen(p, &z->s[P_FAN1])) / (double)(p->burst - 1);
        h->fan.point[s] = (struct hockney_point){m, fan > 0 ? fan : 0.0};
        h->oneway.point[s] = (struct hockney_point){m, chosen(p, &z->s[P_ONEWAY])};
        h->send.point[s] =
            (struct hockney_point){m, chosen(p, &z->s[p->ssend ? P_SEND : P_ONEWAY])};
        h->duplex.point[s] = (struct hockney_point){m, duplex};
        h->start.point[s] = (struct hockney_point){m, chosen(p, &z->s[P_START])};
        h->round.point[s] = (struct hockney_point){m, chosen(p, &z->s[P_ROUND])};
        h->gap.point[s] = (struct hockney_point){m, gap > 0 ? gap : 0.0};
    }
    h->oneway.npoints = h->send.npoints = h->duplex.npoints = h->start.npoints = h->round.npoints =
        h->gap.npoints = h->fan.npoints = p->nbytes;
    for (int s = 0; s < p->ncopy; s++)
        h->copy.point[s] =
            (struct hockney_point){(double)copy[s].bytes, fmax(chosen(p, &copy[s].s), 0.0)};
    h->copy.npoints = p->ncopy;
}

static int report(struct run_ctx *ctx, const struct ping_plan *p, struct ping_size *sizes,
                  struct copy_size *copy, const long checked[2])
{
    for (int s = 0; s < p->ncopy; s++)
        analyse(p, &copy[s].s);
    for (int s = 0; s < p->nbytes; s++) {
        struct ping_size *z = &sizes[s];
        for (int pt = 0; pt < NPATTERNS; pt++)
            if (timed_pattern(p, pt)) analyse(p, &z->s[pt]);
        const struct series *one = &z->s[P_ONEWAY];
        z->counts = sb_calloc((size_t)p->bins, sizeof *z->counts, "histogram");
        z->hist_lo = one->all.min;
        z->hist_hi = p->cut_coef * one->all.median;
        histogram(one->times, (size_t)one->n, z->hist_lo, z->hist_hi, p->bins, z->counts,
                  &z->above);
    }
    struct hockney h;
    build_curves(p, sizes, copy, &h);
    print_tables(p, sizes, copy);
    struct sb_msg m;
    int rc = hockney_fit(&h, &m);
    if (rc != SB_OK) {
        log_error("%s", m.text);
        return rc;
    }
    print_hockney(&h);
    bool ok = checked[1] == 0;
    log_info("\nverified: %s (the last message of every one-way and duplex loop and every start "
             "and round step, %ld messages, compared byte for byte with what was sent; %ld differed)",
             ok ? "true" : "false", checked[0], checked[1]);
    if (!ctx->out_dir) return ok ? SB_OK : SB_EVERIFY;
    cJSON *hj = hockney_to_json(&h);
    cJSON_AddItemToObject(hj, "environment",
                          report_environment(ctx->nranks, &ctx->timer, &ctx->placement));
    CHECK(report_finish_json(ctx->out_dir, "hockney.json", hj));
    cJSON *root = report_summary_begin("pingpong", ctx->cfg, ctx->cmd->sections, ctx->nranks,
                                       &ctx->timer, &ctx->placement);
    cJSON_AddBoolToObject(root, "verified", ok);
    cJSON_AddNumberToObject(root, "messages_compared", (double)checked[0]);
    cJSON_AddNumberToObject(root, "messages_wrong", (double)checked[1]);
    cJSON *list = cJSON_AddArrayToObject(root, "sizes");
    for (int s = 0; s < p->nbytes; s++)
        cJSON_AddItemToArray(list, size_json(p, &sizes[s]));
    cJSON *copies_json = cJSON_AddArrayToObject(root, "copies");
    for (int s = 0; s < p->ncopy; s++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "bytes", (double)copy[s].bytes);
        cJSON_AddNumberToObject(o, "reps", (double)copy[s].reps);
        cJSON_AddItemToObject(o, "copy_s", series_json(p, &copy[s].s));
        cJSON_AddItemToArray(copies_json, o);
    }
    cJSON_AddItemToObject(root, "hockney", hockney_to_json(&h));
    CHECK(report_finish_json(ctx->out_dir, "summary.json", root));
    log_info("results: %s/hockney.json (model.hockney), %s/summary.json", ctx->out_dir,
             ctx->out_dir);
    return ok ? SB_OK : SB_EVERIFY;
}

/* One series of the source's times to rank 0, with the loop's count. */
static int collect_series(const struct ping_plan *p, struct series *x, long *count, int rank,
                          MPI_Comm world)
{
    if (rank == p->source) {
        long head[2] = {x->n, *count};
        CHECK_MPI(MPI_Send(head, 2, MPI_LONG, 0, TAG_PING, world));
        CHECK_MPI(MPI_Send(x->times, (int)x->n, MPI_DOUBLE, 0, TAG_PONG, world));
    } else if (rank == 0) {
        long head[2];
        CHECK_MPI(MPI_Recv(head, 2, MPI_LONG, p->source, TAG_PING, world, MPI_STATUS_IGNORE));
        x->n = head[0];
        *count = head[1];
        CHECK_MPI(MPI_Recv(x->times, (int)x->n, MPI_DOUBLE, p->source, TAG_PONG, world,
                           MPI_STATUS_IGNORE));
    }
    return SB_OK;
}

/* The source's times travel to rank 0, which reports. */
static int collect(const struct ping_plan *p, struct ping_size *sizes, struct copy_size *copy,
                   int rank, MPI_Comm world)
{
    if (p->source == 0) return SB_OK;
    for (int s = 0; s < p->nbytes; s++)
        for (int pt = 0; pt < NPATTERNS; pt++)
            CHECK(collect_series(p, &sizes[s].s[pt], &sizes[s].npp, rank, world));
    for (int s = 0; s < p->ncopy; s++)
        CHECK(collect_series(p, &copy[s].s, &copy[s].reps, rank, world));
    return SB_OK;
}

static void sizes_free(const struct ping_plan *p, struct ping_size *sizes, struct copy_size *copy)
{
    for (int s = 0; s < p->nbytes; s++) {
        for (int pt = 0; pt < NPATTERNS; pt++)
            free(sizes[s].s[pt].times);
        free(sizes[s].counts);
    }
    for (int s = 0; s < p->ncopy; s++)
        free(copy[s].s.times);
    free(sizes);
    free(copy);
}

int cmd_pingpong(struct run_ctx *ctx)
{
    struct ping_plan p;
    struct sb_msg m = {""};
    int rc = read_plan(&p, ctx->cfg, ctx->nranks, &m);
    if (rc != SB_OK) {
        log_error("%s", m.text);
        free(p.bytes);
        free(p.copy_bytes);
        return rc;
    }
    struct ping_size *sizes = sb_calloc((size_t)p.nbytes, sizeof *sizes, "sizes");
    for (int s = 0; s < p.nbytes; s++) {
        sizes[s].bytes = p.bytes[s];
        for (int pt = 0; pt < NPATTERNS; pt++)
            sizes[s].s[pt].times =
                sb_malloc((size_t)p.trials * (both_ranks(pt) ? 2 : 1) * sizeof(double), "timings");
    }
    struct copy_size *copy = sb_calloc((size_t)p.ncopy, sizeof *copy, "copy sizes");
    for (int s = 0; s < p.ncopy; s++) {
        copy[s].bytes = p.copy_bytes[s];
        copy[s].s.times = sb_malloc((size_t)p.trials * sizeof(double), "timings");
    }
    struct pair pr = {.comm = MPI_COMM_NULL, .me = -1, .inject = p.inject};
    bool in_pair = ctx->rank == p.source || ctx->rank == p.dest;
    CHECK_MPI(MPI_Comm_split(ctx->world, in_pair ? 0 : MPI_UNDEFINED, ctx->rank == p.source ? 0 : 1,
                             &pr.comm));
    log_info("\npingpong: ranks %d and %d, %s, %d sizes, %s of each size for the models; "
             "patterns: one-way, %sduplex, start, round, burst of %ld, copy%s",
             p.source, p.dest, p.ssend ? "MPI_Ssend" : "MPI_Send", p.nbytes, p.statistic,
             p.ssend ? "MPI_Send, " : "", p.burst,
             p.background && ctx->nranks >= 4 ? "; other ranks sending 1 MiB in pairs" : "");
    if (in_pair) {
        MPI_Comm_rank(pr.comm, &pr.me);
        size_t most = (size_t)p.bytes[p.nbytes - 1] + 1;
        pr.a = sb_calloc(1, most, "the message");
        pr.b = sb_calloc(1, most, "the message");
        pr.burst_a = sb_calloc((size_t)p.burst, most, "the burst's messages");
        pr.burst_b = sb_calloc((size_t)p.burst, most, "the burst's messages");
        size_t copy_most = (size_t)p.copy_bytes[p.ncopy - 1] + 1;
        pr.copy_from = sb_calloc(1, copy_most, "the copies' source");
        pr.copy_to = sb_calloc(1, copy_most, "the copies' destination");
        rc = measure(&p, &pr, &ctx->timer, sizes, copy);
        if (rc == SB_OK && pr.me == 0 && p.background)
            rc = stop_background(&p, ctx->nranks, ctx->world);
    } else if (p.background) {
        rc = background(&p, ctx->rank, ctx->nranks, ctx->world);
    }
    /* Both ends compared what arrived: rank 0 reports the pair's sums. */
    long checked[2] = {pr.checked, pr.wrong};
    if (rc == SB_OK) rc = collect(&p, sizes, copy, ctx->rank, ctx->world);
    if (rc == SB_OK)
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, checked, 2, MPI_LONG, MPI_SUM, ctx->world));
    if (rc == SB_OK && ctx->rank == 0) rc = report(ctx, &p, sizes, copy, checked);
    if (rc != SB_ERUNTIME) sb_bcast(&rc, 1, MPI_INT, 0, ctx->world);
    sizes_free(&p, sizes, copy);
    free(pr.a);
    free(pr.b);
    free(pr.burst_a);
    free(pr.burst_b);
    free(pr.copy_from);
    free(pr.copy_to);
    if (pr.comm != MPI_COMM_NULL) MPI_Comm_free(&pr.comm);
    free(p.bytes);
    free(p.copy_bytes);
    return rc;
}
