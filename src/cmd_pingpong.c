/* shiftbox pingpong: MPI latency and communication rates measured the way
 * seed 002 sec. 3 describes, and the Hockney parameters they give (seed 000
 * sec. 4.4).
 *
 * The timer's resolution and overhead are measured first (the driver does,
 * on every rank).  For each size: untimed ping-pongs, then npp estimated
 * from the median of a few short loops so that a timed loop spans res_npp
 * timer resolutions.  Then timed loops: a barrier of the pair, a hand-shake
 * (the source waits for a byte from the destination), npp ping-pongs
 * between two reads of MPI_Wtime, minus the timer overhead, halved.  The
 * sizes take turns, one timed loop each, so that a machine whose speed
 * drifts touches every size alike, until pingpong.trials loops or
 * pingpong.max_seconds.  With pingpong.background the other ranks exchange
 * large messages in pairs meanwhile (seed 000 sec. 6.2.2). */
#include "command.h"
#include "hockney.h"
#include "log.h"
#include "pingpong.h"
#include "report.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_PING = 1, TAG_PONG, TAG_HAND, TAG_STOP, TAG_NOISE, BACKGROUND_BYTES = 1 << 20 };
enum { NPP_INIT = 4, NPP_TRIALS = 21 };

struct ping_plan {
    int source, dest;
    long long *bytes;
    int nbytes;
    bool ssend, background;
    long npp_fixed, trials, warmup;
    double res_npp, max_seconds, cut_coef;
    int bins;
    const char *statistic;
};

/* One size's measurements, on the source. */
struct ping_size {
    long long bytes;
    long npp;
    double *times; /* one-way, s */
    long n;
    struct stats all, filtered;
    double lowest20;
    long *counts, above;
    double hist_lo, hist_hi;
};

struct pair {
    MPI_Comm comm; /* source = 0, dest = 1; MPI_COMM_NULL elsewhere */
    int me;
    unsigned char *buf;
};

static int read_plan(struct ping_plan *p, const struct config *c, int nranks, struct sb_msg *m)
{
    memset(p, 0, sizeof *p);
    p->source = (int)cfg_int(c, "pingpong.source");
    p->dest = (int)cfg_int(c, "pingpong.dest");
    p->bytes = sb_malloc(CONFIG_MAX_LIST * sizeof *p->bytes, "sizes");
    p->nbytes = cfg_int_list(c, "pingpong.bytes", p->bytes);
    p->ssend = !strcmp(cfg_text(c, "pingpong.mode"), "ssend");
    p->npp_fixed = (long)cfg_int(c, "pingpong.npp");
    p->res_npp = cfg_real(c, "pingpong.res_npp");
    p->trials = (long)cfg_int(c, "pingpong.trials");
    p->max_seconds = cfg_real(c, "pingpong.max_seconds");
    p->warmup = (long)cfg_int(c, "pingpong.warmup");
    p->statistic = cfg_text(c, "pingpong.statistic");
    p->background = cfg_bool(c, "pingpong.background");
    p->bins = (int)cfg_int(c, "pingpong.histogram_bins");
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
    if (p->background && nranks < 4)
        log_warning("pingpong.background = 1 needs 4 ranks or more for a pair of others; "
                    "there is no background traffic with %d",
                    nranks);
    return SB_OK;
}

/* ---- the ping-pong itself ---------------------------------------------------- */

static int send_to(const struct ping_plan *p, const void *buf, int n, int to, int tag, MPI_Comm c)
{
    if (p->ssend)
        CHECK_MPI(MPI_Ssend(buf, n, MPI_BYTE, to, tag, c));
    else
        CHECK_MPI(MPI_Send(buf, n, MPI_BYTE, to, tag, c));
    return SB_OK;
}

/* npp round trips of n bytes; on the source returns their time in *t. */
static int round_trips(const struct ping_plan *p, struct pair *pr, int n, long npp, bool timed,
                       double overhead, double *t)
{
    int other = 1 - pr->me;
    char hand = 0;
    if (timed) { /* seed 002 sec. 3.2: a barrier, then a hand-shake */
        CHECK_MPI(MPI_Barrier(pr->comm));
        if (pr->me == 0)
            CHECK_MPI(MPI_Recv(&hand, 1, MPI_CHAR, other, TAG_HAND, pr->comm, MPI_STATUS_IGNORE));
        else
            CHECK_MPI(MPI_Send(&hand, 1, MPI_CHAR, other, TAG_HAND, pr->comm));
    }
    double t1 = MPI_Wtime();
    for (long i = 0; i < npp; i++) {
        if (pr->me == 0) {
            CHECK(send_to(p, pr->buf, n, other, TAG_PING, pr->comm));
            CHECK_MPI(MPI_Recv(pr->buf, n, MPI_BYTE, other, TAG_PONG, pr->comm, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Recv(pr->buf, n, MPI_BYTE, other, TAG_PING, pr->comm, MPI_STATUS_IGNORE));
            CHECK(send_to(p, pr->buf, n, other, TAG_PONG, pr->comm));
        }
    }
    double t2 = MPI_Wtime();
    *t = t2 - t1 - overhead;
    return SB_OK;
}

/* Seed 002 sec. 3.3: npp from the median of NPP_TRIALS loops of NPP_INIT. */
static int choose_npp(const struct ping_plan *p, struct pair *pr, int n, double res,
                      double overhead, long *npp)
{
    if (p->npp_fixed > 0) {
        *npp = p->npp_fixed;
        return SB_OK;
    }
    double per[NPP_TRIALS];
    for (int i = 0; i < NPP_TRIALS; i++) {
        CHECK(round_trips(p, pr, n, NPP_INIT, true, overhead, &per[i]));
        per[i] /= NPP_INIT;
    }
    *npp = pingpong_npp(p->res_npp, res, median_sorted_inplace(per, NPP_TRIALS));
    CHECK_MPI(MPI_Bcast(npp, 1, MPI_LONG, 0, pr->comm));
    return SB_OK;
}

/* The pair's part: warm-up and npp per size, then timed loops in turns. */
static int measure(const struct ping_plan *p, struct pair *pr, const struct timer_calibration *tc,
                   struct ping_size *sizes)
{
    for (int s = 0; s < p->nbytes; s++) {
        double unused;
        CHECK(round_trips(p, pr, (int)p->bytes[s], p->warmup, false, 0.0, &unused));
        CHECK(choose_npp(p, pr, (int)p->bytes[s], tc->resolution, tc->overhead, &sizes[s].npp));
    }
    double start = MPI_Wtime();
    for (long trial = 0;; trial++) {
        int go = trial < p->trials && MPI_Wtime() - start < p->max_seconds;
        CHECK_MPI(MPI_Bcast(&go, 1, MPI_INT, 0, pr->comm)); /* the source decides */
        if (!go) break;
        for (int s = 0; s < p->nbytes; s++) {
            double t;
            CHECK(round_trips(p, pr, (int)p->bytes[s], sizes[s].npp, true, tc->overhead, &t));
            if (pr->me == 0) sizes[s].times[sizes[s].n++] = t / (double)sizes[s].npp / 2.0;
        }
        if (pr->me == 0 && trial % 64 == 0)
            log_progress("pingpong: %ld timed loops per size, %.0f s", trial + 1,
                         MPI_Wtime() - start);
    }
    log_progress_done();
    return SB_OK;
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

static void analyse(const struct ping_plan *p, struct ping_size *z)
{
    stats_compute(z->times, (size_t)z->n, &z->all);
    double *kept = sb_malloc((size_t)(z->n > 0 ? z->n : 1) * sizeof *kept, "filtered times");
    size_t nk = stats_filter(z->times, (size_t)z->n, p->cut_coef, z->all.median, kept);
    stats_compute(kept, nk, &z->filtered);
    free(kept);
    z->lowest20 = mean_of_lowest(z->times, (size_t)z->n, 0.2);
    z->counts = sb_calloc((size_t)p->bins, sizeof *z->counts, "histogram");
    z->hist_lo = z->all.min;
    z->hist_hi = p->cut_coef * z->all.median;
    histogram(z->times, (size_t)z->n, z->hist_lo, z->hist_hi, p->bins, z->counts, &z->above);
}

static double chosen(const struct ping_plan *p, const struct ping_size *z)
{
    if (!strcmp(p->statistic, "mean")) return z->all.mean;
    if (!strcmp(p->statistic, "min")) return z->all.min;
    if (!strcmp(p->statistic, "lowest20")) return z->lowest20;
    return z->all.median;
}

/* MB/s of one message of `bytes` taking t (seed 002 App. C). */
static double rate(long long bytes, double t)
{
    return t > 0 ? (double)bytes / t / 1e6 : 0.0;
}

static cJSON *size_json(const struct ping_plan *p, const struct ping_size *z)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "bytes", (double)z->bytes);
    cJSON_AddNumberToObject(o, "npp", (double)z->npp);
    cJSON_AddItemToObject(o, "one_way_s", report_stats(&z->all));
    cJSON *f = report_stats(&z->filtered);
    cJSON_AddNumberToObject(f, "cut_coef", p->cut_coef);
    cJSON_AddNumberToObject(f, "removed", (double)(z->all.n - z->filtered.n));
    cJSON_AddItemToObject(o, "filtered_one_way_s", f);
    cJSON_AddNumberToObject(o, "lowest20_mean_s", z->lowest20);
    cJSON *r = cJSON_AddObjectToObject(o, "rate_mb_per_s");
    cJSON_AddNumberToObject(r, "from_min", rate(z->bytes, z->all.min));
    cJSON_AddNumberToObject(r, "from_median", rate(z->bytes, z->all.median));
    cJSON_AddNumberToObject(r, "from_mean", rate(z->bytes, z->all.mean));
    cJSON *h = cJSON_AddObjectToObject(o, "histogram");
    cJSON_AddNumberToObject(h, "lo_s", z->hist_lo);
    cJSON_AddNumberToObject(h, "hi_s", z->hist_hi);
    cJSON *counts = cJSON_AddArrayToObject(h, "counts");
    for (int b = 0; b < p->bins; b++)
        cJSON_AddItemToArray(counts, cJSON_CreateNumber((double)z->counts[b]));
    cJSON_AddNumberToObject(h, "above", (double)z->above);
    return o;
}

static void print_table(const struct ping_plan *p, const struct ping_size *sizes)
{
    log_info("\none-way times (half a round trip) over %ld+ timed loops per size, us:", sizes[0].n);
    log_info("%9s %5s %6s %9s %9s %9s %10s %9s %6s %7s | %6s %9s %9s | %9s %9s", "bytes", "npp",
             "n", "min", "median", "mean", "max", "sd", "cv%", "rse%", "kept", "f_mean", "f_sd",
             "MB/s_min", "MB/s_med");
    for (int s = 0; s < p->nbytes; s++) {
        const struct ping_size *z = &sizes[s];
        log_info("%9lld %5ld %6ld %9.3f %9.3f %9.3f %10.3f %9.3f %6.2f %7.3f | %6zu %9.3f %9.3f "
                 "| %9.1f %9.1f",
                 z->bytes, z->npp, z->n, z->all.min * 1e6, z->all.median * 1e6, z->all.mean * 1e6,
                 z->all.max * 1e6, z->all.stddev * 1e6, z->all.cv * 100, z->all.rse * 100,
                 z->filtered.n, z->filtered.mean * 1e6, z->filtered.stddev * 1e6,
                 rate(z->bytes, z->all.min), rate(z->bytes, z->all.median));
    }
}

static void print_hockney(const struct hockney *h)
{
    log_info("\nHockney (%s of each size): alpha = %.3f us (0-byte one-way time)", h->statistic,
             h->alpha * 1e6);
    for (int i = 0; i < h->npoints; i++)
        if (h->point[i].bytes > 0 && h->point[0].bytes == 0)
            log_info("  %9.0f bytes: %10.3f us, beta per load %.4g ns/byte", h->point[i].bytes,
                     h->point[i].time * 1e6,
                     (h->point[i].time - h->alpha) / h->point[i].bytes * 1e9);
    for (int i = 0; i < h->nsegments; i++)
        log_info("  fit %s %.0f..%.0f bytes: alpha %.3f us, beta %.4g ns/byte (%.3g GB/s), "
                 "relative rms %.1f%%",
                 h->nsegments == 2 ? (i ? "above the break," : "below the break,") : "over",
                 h->segment[i].from, h->segment[i].to, h->segment[i].alpha * 1e6,
                 h->segment[i].beta * 1e9, h->segment[i].beta > 0 ? 1e-9 / h->segment[i].beta : 0.0,
                 h->segment[i].rms * 100);
    if (h->nsegments == 2)
        log_info("  the protocol changes between %.0f and %.0f bytes (the eager limit, found in "
                 "the data)",
                 h->segment[0].to, h->segment[1].from);
}

static int report(struct run_ctx *ctx, const struct ping_plan *p, struct ping_size *sizes)
{
    struct hockney h;
    memset(&h, 0, sizeof h);
    snprintf(h.statistic, sizeof h.statistic, "%s", p->statistic);
    snprintf(h.mode, sizeof h.mode, "%s", p->ssend ? "ssend" : "send");
    for (int s = 0; s < p->nbytes; s++) {
        analyse(p, &sizes[s]);
        h.point[h.npoints++] = (struct hockney_point){(double)sizes[s].bytes, chosen(p, &sizes[s])};
    }
    print_table(p, sizes);
    struct sb_msg m;
    int rc = hockney_fit(&h, &m);
    if (rc != SB_OK) {
        log_error("%s", m.text);
        return rc;
    }
    print_hockney(&h);
    bool ok = h.alpha > 0 && h.segment[h.nsegments - 1].beta > 0;
    log_info("\nverified: %s (alpha %s 0, beta %s 0)", ok ? "true" : "false",
             h.alpha > 0 ? ">" : "<=", h.segment[h.nsegments - 1].beta > 0 ? ">" : "<=");
    if (!ctx->out_dir) return ok ? SB_OK : SB_EVERIFY;
    cJSON *hj = hockney_to_json(&h);
    cJSON_AddItemToObject(hj, "environment", report_environment(ctx->nranks, &ctx->timer));
    CHECK(report_finish_json(ctx->out_dir, "hockney.json", hj));
    cJSON *root =
        report_summary_begin("pingpong", ctx->cfg, ctx->cmd->sections, ctx->nranks, &ctx->timer);
    cJSON_AddBoolToObject(root, "verified", ok);
    cJSON *list = cJSON_AddArrayToObject(root, "sizes");
    for (int s = 0; s < p->nbytes; s++)
        cJSON_AddItemToArray(list, size_json(p, &sizes[s]));
    cJSON_AddItemToObject(root, "hockney", hockney_to_json(&h));
    CHECK(report_finish_json(ctx->out_dir, "summary.json", root));
    log_info("results: %s/hockney.json (model.hockney), %s/summary.json", ctx->out_dir,
             ctx->out_dir);
    return ok ? SB_OK : SB_EVERIFY;
}

/* The source's times travel to rank 0, which reports. */
static int collect(const struct ping_plan *p, struct ping_size *sizes, int rank, MPI_Comm world)
{
    if (p->source == 0) return SB_OK;
    for (int s = 0; s < p->nbytes; s++) {
        struct ping_size *z = &sizes[s];
        if (rank == p->source) {
            long head[2] = {z->n, z->npp};
            CHECK_MPI(MPI_Send(head, 2, MPI_LONG, 0, TAG_PING, world));
            CHECK_MPI(MPI_Send(z->times, (int)z->n, MPI_DOUBLE, 0, TAG_PONG, world));
        } else if (rank == 0) {
            long head[2];
            CHECK_MPI(MPI_Recv(head, 2, MPI_LONG, p->source, TAG_PING, world, MPI_STATUS_IGNORE));
            z->n = head[0];
            z->npp = head[1];
            CHECK_MPI(MPI_Recv(z->times, (int)z->n, MPI_DOUBLE, p->source, TAG_PONG, world,
                               MPI_STATUS_IGNORE));
        }
    }
    return SB_OK;
}

int cmd_pingpong(struct run_ctx *ctx)
{
    struct ping_plan p;
    struct sb_msg m = {""};
    int rc = read_plan(&p, ctx->cfg, ctx->nranks, &m);
    if (rc != SB_OK) {
        log_error("%s", m.text);
        free(p.bytes);
        return rc;
    }
    struct ping_size *sizes = sb_calloc((size_t)p.nbytes, sizeof *sizes, "sizes");
    for (int s = 0; s < p.nbytes; s++) {
        sizes[s].bytes = p.bytes[s];
        sizes[s].times = sb_malloc((size_t)p.trials * sizeof(double), "timings");
    }
    struct pair pr = {.comm = MPI_COMM_NULL, .me = -1, .buf = NULL};
    bool in_pair = ctx->rank == p.source || ctx->rank == p.dest;
    CHECK_MPI(MPI_Comm_split(ctx->world, in_pair ? 0 : MPI_UNDEFINED, ctx->rank == p.source ? 0 : 1,
                             &pr.comm));
    log_info("\npingpong: ranks %d and %d, %s, %d sizes, %s of each size for Hockney%s", p.source,
             p.dest, p.ssend ? "MPI_Ssend" : "MPI_Send", p.nbytes, p.statistic,
             p.background && ctx->nranks >= 4 ? ", other ranks sending 1 MiB in pairs" : "");
    if (in_pair) {
        MPI_Comm_rank(pr.comm, &pr.me);
        pr.buf = sb_calloc(1, (size_t)p.bytes[p.nbytes - 1] + 1, "the message");
        rc = measure(&p, &pr, &ctx->timer, sizes);
        if (rc == SB_OK && pr.me == 0 && p.background)
            rc = stop_background(&p, ctx->nranks, ctx->world);
    } else if (p.background) {
        rc = background(&p, ctx->rank, ctx->nranks, ctx->world);
    }
    if (rc == SB_OK) rc = collect(&p, sizes, ctx->rank, ctx->world);
    if (rc == SB_OK && ctx->rank == 0) rc = report(ctx, &p, sizes);
    if (rc != SB_ERUNTIME) MPI_Bcast(&rc, 1, MPI_INT, 0, ctx->world);
    for (int s = 0; s < p.nbytes; s++) {
        free(sizes[s].times);
        free(sizes[s].counts);
    }
    free(sizes);
    free(pr.buf);
    if (pr.comm != MPI_COMM_NULL) MPI_Comm_free(&pr.comm);
    free(p.bytes);
    return rc;
}
