/* The timed patterns of shiftbox pingpong (patterns.h).  Every loop runs
 * between two reads of MPI_Wtime after the pair started together; the last
 * message of a loop is compared with what was sent. */
#include "patterns.h"
#include "npp_hist.h"
#include "../log.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { NPP_INIT = 4, NPP_TRIALS = 21, BACKGROUND_BYTES = 1 << 20 };

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
static void check_arrival(struct ping_pair *pr, enum ping_pattern pt, unsigned char *got,
                          long long n, int sender)
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
static int start_together(struct ping_pair *pr)
{
    char hand = 0;
    CHECK_MPI(MPI_Barrier(pr->comm));
    if (pr->me == 0)
        CHECK_MPI(MPI_Recv(&hand, 1, MPI_CHAR, 1, PING_TAG_HAND, pr->comm, MPI_STATUS_IGNORE));
    else
        CHECK_MPI(MPI_Send(&hand, 1, MPI_CHAR, 0, PING_TAG_HAND, pr->comm));
    return SB_OK;
}

/* One round trip: the source sends `out` (pingpong.mode's send when
 * ssend) and receives into `in`; the destination receives into `in` and
 * then sends `out`.  Inlined: it sits in the timed loops. */
static inline __attribute__((always_inline)) int
round_trip(bool ssend, struct ping_pair *pr, const unsigned char *out, unsigned char *in, int n)
{
    int other = 1 - pr->me;
    if (pr->me == 0) {
        CHECK(send_to(ssend, out, n, other, PING_TAG_PING, pr->comm));
        CHECK_MPI(MPI_Recv(in, n, MPI_BYTE, other, PING_TAG_PONG, pr->comm, MPI_STATUS_IGNORE));
    } else {
        CHECK_MPI(MPI_Recv(in, n, MPI_BYTE, other, PING_TAG_PING, pr->comm, MPI_STATUS_IGNORE));
        CHECK(send_to(ssend, out, n, other, PING_TAG_PONG, pr->comm));
    }
    return SB_OK;
}

/* npp round trips of n bytes, the source's pattern bouncing between the
 * ranks in one buffer each; the source returns their time in *t. */
static int round_trips(bool ssend, struct ping_pair *pr, int n, long npp, bool timed, double *t)
{
    if (pr->me == 0) fill_pattern(pr->a, n, 0);
    if (timed) CHECK(start_together(pr));
    double t1 = MPI_Wtime();
    for (long i = 0; i < npp; i++)
        CHECK(round_trip(ssend, pr, pr->a, pr->a, n));
    *t = MPI_Wtime() - t1;
    if (timed && pr->me == 0) /* the source's bytes came back */
        check_arrival(pr, PING_ONEWAY, pr->a, n, 0);
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
static int exchanges(struct ping_pair *pr, int n, long reps, int count, double *t)
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
            CHECK_MPI(MPI_Irecv(*recv + (size_t)i * (size_t)n, n, MPI_BYTE, other,
                                PING_TAG_BURST + i, pr->comm, &req[i]));
        for (int i = 0; i < count; i++)
            CHECK_MPI(MPI_Isend(*send + (size_t)i * (size_t)n, n, MPI_BYTE, other,
                                PING_TAG_BURST + i, pr->comm, &req[count + i]));
        CHECK_MPI(MPI_Waitall(2 * count, req, MPI_STATUSES_IGNORE));
        swap_buffers(send, recv);
    }
    *t = MPI_Wtime() - t1;
    /* each step sends back what came: after an odd number the partner's bytes */
    if (count == 1) check_arrival(pr, PING_DUPLEX, pr->a, n, reps % 2 ? other : pr->me);
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
static int step_alone(bool ssend, struct ping_pair *pr, enum ping_pattern pt, int n, double *t)
{
    int other = 1 - pr->me;
    for (int step = 0; step < 2; step++) { /* the second is the one kept */
        fill_pattern(pr->a, n, pr->me);
        CHECK_MPI(MPI_Barrier(pr->comm));
        double t1 = MPI_Wtime();
        if (pt == PING_START) {
            MPI_Request req[2];
            CHECK_MPI(MPI_Irecv(pr->b, n, MPI_BYTE, other, PING_TAG_BURST, pr->comm, &req[0]));
            CHECK_MPI(MPI_Isend(pr->a, n, MPI_BYTE, other, PING_TAG_BURST, pr->comm, &req[1]));
            CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        } else {
            CHECK(round_trip(ssend, pr, pr->a, pr->b, n));
        }
        *t = MPI_Wtime() - t1;
    }
    check_arrival(pr, pt, pr->b, n, other);
    return SB_OK;
}

/* `reps` fans: the source sends `count` messages of n bytes at once, the
 * destination receives them and answers with an empty message; *t their
 * time on the source. */
static int fans(struct ping_pair *pr, int n, long reps, int count, double *t)
{
    int other = 1 - pr->me;
    MPI_Request req[count];
    CHECK(start_together(pr));
    double t1 = MPI_Wtime();
    for (long r = 0; r < reps; r++) {
        for (int i = 0; i < count; i++) {
            unsigned char *buf = (pr->me == 0 ? pr->burst_a : pr->burst_b) + (size_t)i * (size_t)n;
            if (pr->me == 0)
                CHECK_MPI(
                    MPI_Isend(buf, n, MPI_BYTE, other, PING_TAG_BURST + i, pr->comm, &req[i]));
            else
                CHECK_MPI(
                    MPI_Irecv(buf, n, MPI_BYTE, other, PING_TAG_BURST + i, pr->comm, &req[i]));
        }
        CHECK_MPI(MPI_Waitall(count, req, MPI_STATUSES_IGNORE));
        if (pr->me == 0)
            CHECK_MPI(
                MPI_Recv(NULL, 0, MPI_BYTE, other, PING_TAG_PONG, pr->comm, MPI_STATUS_IGNORE));
        else
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, other, PING_TAG_PONG, pr->comm));
    }
    *t = MPI_Wtime() - t1;
    return SB_OK;
}

/* `reps` copies of n bytes on this rank; their time. */
static double copies(struct ping_pair *pr, long long n, long reps)
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
static int choose_npp(const struct ping_plan *p, struct ping_pair *pr, int n, double res,
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
static int choose_copies(const struct ping_plan *p, struct ping_pair *pr, long long n, double res,
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
 * (ping_both_ranks: both do). */
static int timed_loop(const struct ping_plan *p, struct ping_pair *pr, double overhead,
                      struct ping_size *z, enum ping_pattern pt)
{
    int n = (int)z->bytes;
    double t = 0.0, per = 1.0;
    switch (pt) {
    case PING_ONEWAY:
    case PING_SEND:
        CHECK(round_trips(pt == PING_ONEWAY && p->ssend, pr, n, z->npp, true, &t));
        per = 2.0 * (double)z->npp;
        break;
    case PING_DUPLEX:
        CHECK(exchanges(pr, n, z->npp, 1, &t));
        per = (double)z->npp;
        break;
    case PING_START:
    case PING_ROUND:
        CHECK(step_alone(p->ssend, pr, pt, n, &t));
        break;
    case PING_BURST: {
        long reps = (z->npp + p->burst - 1) / p->burst;
        CHECK(exchanges(pr, n, reps, (int)p->burst, &t));
        per = (double)reps;
        break;
    }
    case PING_FAN1:
    case PING_FAN: {
        int count = pt == PING_FAN ? (int)p->burst : 1;
        long reps = (z->npp + count - 1) / count;
        CHECK(fans(pr, n, reps, count, &t));
        per = (double)reps;
        break;
    }
    default:
        break;
    }
    struct ping_series *s = &z->s[pt];
    if (pr->me == 0 || ping_both_ranks(pt)) s->times[s->n++] = (t - overhead) / per;
    return SB_OK;
}

/* Both ranks copy at once (as they do in an exchange); the source's time. */
static int timed_copies(struct ping_pair *pr, double overhead, struct ping_copy_size *z)
{
    CHECK(start_together(pr));
    double t = copies(pr, z->bytes, z->reps);
    if (pr->me == 0) z->s.times[z->s.n++] = (t - overhead) / (double)z->reps;
    return SB_OK;
}

/* The destination's start and round times to the source, after the
 * source's own: an exchange's time is every rank's. */
static int merge_both(const struct ping_plan *p, struct ping_pair *pr, struct ping_size *sizes)
{
    for (int s = 0; s < p->nbytes; s++)
        for (int pt = 0; pt < PING_NPATTERNS; pt++) {
            if (!ping_both_ranks(pt)) continue;
            struct ping_series *x = &sizes[s].s[pt];
            if (pr->me == 1) {
                CHECK_MPI(MPI_Send(&x->n, 1, MPI_LONG, 0, PING_TAG_PING, pr->comm));
                CHECK_MPI(MPI_Send(x->times, (int)x->n, MPI_DOUBLE, 0, PING_TAG_PONG, pr->comm));
                continue;
            }
            long n;
            CHECK_MPI(MPI_Recv(&n, 1, MPI_LONG, 1, PING_TAG_PING, pr->comm, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Recv(x->times + x->n, (int)n, MPI_DOUBLE, 1, PING_TAG_PONG, pr->comm,
                               MPI_STATUS_IGNORE));
            x->n += n;
        }
    return SB_OK;
}

int ping_measure(const struct ping_plan *p, struct ping_pair *pr,
                 const struct timer_calibration *tc, struct ping_size *sizes,
                 struct ping_copy_size *copy)
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
            for (int pt = 0; pt < PING_NPATTERNS; pt++)
                if (ping_timed_pattern(p, pt))
                    CHECK(timed_loop(p, pr, tc->overhead, &sizes[s], pt));
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

/* The lower rank of a pair of others watches for the source's word and
 * tells its partner inside the next message, so that both leave after the
 * same exchange. */
int ping_background(const struct ping_plan *p, int rank, int nranks, MPI_Comm world)
{
    int others[nranks], n = 0, me = -1;
    for (int r = 0; r < nranks; r++)
        if (r != p->source && r != p->dest) {
            if (r == rank) me = n;
            others[n++] = r;
        }
    if (me == n - 1 && n % 2 == 1) { /* no partner: just wait for the word */
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, p->source, PING_TAG_STOP, world, MPI_STATUS_IGNORE));
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
            CHECK_MPI(MPI_Iprobe(p->source, PING_TAG_STOP, world, &flag, MPI_STATUS_IGNORE));
            if (flag) {
                CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, p->source, PING_TAG_STOP, world,
                                   MPI_STATUS_IGNORE));
                told = true;
            }
            out[0] = told;
        }
        CHECK_MPI(MPI_Sendrecv(out, BACKGROUND_BYTES, MPI_BYTE, partner, PING_TAG_NOISE, in,
                               BACKGROUND_BYTES, MPI_BYTE, partner, PING_TAG_NOISE, world,
                               MPI_STATUS_IGNORE));
        stop = lower ? told : in[0];
    }
    if (!lower)
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, p->source, PING_TAG_STOP, world, MPI_STATUS_IGNORE));
    free(out);
    free(in);
    return SB_OK;
}

int ping_stop_background(const struct ping_plan *p, int nranks, MPI_Comm world)
{
    for (int r = 0; r < nranks; r++)
        if (r != p->source && r != p->dest)
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, r, PING_TAG_STOP, world));
    return SB_OK;
}

int ping_pair_open(struct ping_pair *pr, const struct ping_plan *p, const struct run_ctx *ctx,
                   bool *in_pair)
{
    *pr = (struct ping_pair){.comm = MPI_COMM_NULL, .me = -1, .inject = p->inject};
    *in_pair = ctx->rank == p->source || ctx->rank == p->dest;
    CHECK_MPI(MPI_Comm_split(ctx->world, *in_pair ? 0 : MPI_UNDEFINED,
                             ctx->rank == p->source ? 0 : 1, &pr->comm));
    if (!*in_pair) return SB_OK;
    CHECK_MPI(MPI_Comm_rank(pr->comm, &pr->me));
    size_t most = (size_t)p->bytes[p->nbytes - 1] + 1;
    pr->a = sb_calloc(1, most, "the message");
    pr->b = sb_calloc(1, most, "the message");
    pr->burst_a = sb_calloc((size_t)p->burst, most, "the burst's messages");
    pr->burst_b = sb_calloc((size_t)p->burst, most, "the burst's messages");
    size_t copy_most = (size_t)p->copy_bytes[p->ncopy - 1] + 1;
    pr->copy_from = sb_calloc(1, copy_most, "the copies' source");
    pr->copy_to = sb_calloc(1, copy_most, "the copies' destination");
    return SB_OK;
}

void ping_pair_close(struct ping_pair *pr)
{
    free(pr->a);
    free(pr->b);
    free(pr->burst_a);
    free(pr->burst_b);
    free(pr->copy_from);
    free(pr->copy_to);
    if (pr->comm != MPI_COMM_NULL) MPI_Comm_free(&pr->comm);
    *pr = (struct ping_pair){.comm = MPI_COMM_NULL, .me = -1};
}
