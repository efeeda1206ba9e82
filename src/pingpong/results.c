/* The results of shiftbox pingpong (results.h). */
#include "results.h"
#include "npp_hist.h"
#include "../hockney.h"
#include "../log.h"
#include "../report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void analyse(const struct ping_plan *p, struct ping_series *s)
{
    stats_compute(s->times, (size_t)s->n, &s->all);
    double *kept = sb_malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *kept, "filtered times");
    size_t nk = stats_filter(s->times, (size_t)s->n, p->cut_coef, s->all.median, kept);
    stats_compute(kept, nk, &s->filtered);
    free(kept);
    s->lowest20 = mean_of_lowest(s->times, (size_t)s->n, 0.2);
}

/* stats.statistic of a series. */
static double chosen(const struct ping_plan *p, const struct ping_series *s)
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

static cJSON *series_json(const struct ping_plan *p, const struct ping_series *s)
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
    const struct ping_series *one = &z->s[PING_ONEWAY];
    cJSON_AddNumberToObject(o, "bytes", (double)z->bytes);
    cJSON_AddNumberToObject(o, "npp", (double)z->npp);
    cJSON_AddItemToObject(o, "one_way_s", report_stats(&one->all));
    cJSON *f = report_stats(&one->filtered);
    cJSON_AddNumberToObject(f, "cut_coef", p->cut_coef);
    cJSON_AddNumberToObject(f, "removed", (double)(one->all.n - one->filtered.n));
    cJSON_AddItemToObject(o, "filtered_one_way_s", f);
    cJSON_AddNumberToObject(o, "lowest20_mean_s", one->lowest20);
    for (int pt = PING_SEND; pt < PING_NPATTERNS; pt++) {
        if (!ping_timed_pattern(p, pt)) continue;
        char key[32];
        snprintf(key, sizeof key, "%s_s", ping_pattern_name[pt]);
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
                         const struct ping_copy_size *copy)
{
    log_info("\none-way times (half a round trip, %s) over %ld+ timed loops per size, us:",
             p->ssend ? "MPI_Ssend" : "MPI_Send", sizes[0].s[PING_ONEWAY].n);
    log_info("%9s %5s %6s %9s %9s %9s %10s %9s %6s %7s | %6s %9s %9s | %9s %9s", "bytes", "npp",
             "n", "min", "median", "mean", "max", "sd", "cv%", "rse%", "kept", "f_mean", "f_sd",
             "MB/s_min", "MB/s_med");
    for (int s = 0; s < p->nbytes; s++) {
        const struct ping_size *z = &sizes[s];
        const struct stats *a = &z->s[PING_ONEWAY].all, *f = &z->s[PING_ONEWAY].filtered;
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
        double v[PING_NPATTERNS];
        for (int pt = 0; pt < PING_NPATTERNS; pt++)
            v[pt] =
                ping_timed_pattern(p, pt) ? chosen(p, &z->s[pt]) : chosen(p, &z->s[PING_ONEWAY]);
        double gap = (v[PING_BURST] - v[PING_DUPLEX]) / (double)(p->burst - 1);
        double fan = (v[PING_FAN] - v[PING_FAN1]) / (double)(p->burst - 1);
        log_info("%9lld %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f", z->bytes,
                 v[PING_ONEWAY] * 1e6, v[PING_SEND] * 1e6, v[PING_DUPLEX] * 1e6,
                 v[PING_START] * 1e6, v[PING_ROUND] * 1e6, v[PING_BURST] * 1e6, gap * 1e6,
                 fan * 1e6);
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
                         const struct ping_copy_size *copy, struct hockney *h)
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
        double m = (double)z->bytes, duplex = chosen(p, &z->s[PING_DUPLEX]);
        double gap = (chosen(p, &z->s[PING_BURST]) - duplex) / (double)(p->burst - 1);
        double fan =
            (chosen(p, &z->s[PING_FAN]) - chosen(p, &z->s[PING_FAN1])) / (double)(p->burst - 1);
        h->fan.point[s] = (struct hockney_point){m, fan > 0 ? fan : 0.0};
        h->oneway.point[s] = (struct hockney_point){m, chosen(p, &z->s[PING_ONEWAY])};
        h->send.point[s] =
            (struct hockney_point){m, chosen(p, &z->s[p->ssend ? PING_SEND : PING_ONEWAY])};
        h->duplex.point[s] = (struct hockney_point){m, duplex};
        h->start.point[s] = (struct hockney_point){m, chosen(p, &z->s[PING_START])};
        h->round.point[s] = (struct hockney_point){m, chosen(p, &z->s[PING_ROUND])};
        h->gap.point[s] = (struct hockney_point){m, gap > 0 ? gap : 0.0};
    }
    h->oneway.npoints = h->send.npoints = h->duplex.npoints = h->start.npoints = h->round.npoints =
        h->gap.npoints = h->fan.npoints = p->nbytes;
    for (int s = 0; s < p->ncopy; s++)
        h->copy.point[s] =
            (struct hockney_point){(double)copy[s].bytes, fmax(chosen(p, &copy[s].s), 0.0)};
    h->copy.npoints = p->ncopy;
}

int ping_report(struct run_ctx *ctx, const struct ping_plan *p, struct ping_size *sizes,
                struct ping_copy_size *copy, const long checked[2])
{
    for (int s = 0; s < p->ncopy; s++)
        analyse(p, &copy[s].s);
    for (int s = 0; s < p->nbytes; s++) {
        struct ping_size *z = &sizes[s];
        for (int pt = 0; pt < PING_NPATTERNS; pt++)
            if (ping_timed_pattern(p, pt)) analyse(p, &z->s[pt]);
        const struct ping_series *one = &z->s[PING_ONEWAY];
        z->counts = sb_calloc((size_t)p->bins, sizeof *z->counts, "histogram");
        z->hist_lo = one->all.min;
        z->hist_hi = p->cut_coef * one->all.median;
        pingpong_histogram(one->times, (size_t)one->n, z->hist_lo, z->hist_hi, p->bins, z->counts,
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
    log_info(
        "\nverified: %s (the last message of every one-way and duplex loop and every start "
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
static int collect_series(const struct ping_plan *p, struct ping_series *x, long *count, int rank,
                          MPI_Comm world)
{
    if (rank == p->source) {
        long head[2] = {x->n, *count};
        CHECK_MPI(MPI_Send(head, 2, MPI_LONG, 0, PING_TAG_PING, world));
        CHECK_MPI(MPI_Send(x->times, (int)x->n, MPI_DOUBLE, 0, PING_TAG_PONG, world));
    } else if (rank == 0) {
        long head[2];
        CHECK_MPI(MPI_Recv(head, 2, MPI_LONG, p->source, PING_TAG_PING, world, MPI_STATUS_IGNORE));
        x->n = head[0];
        *count = head[1];
        CHECK_MPI(MPI_Recv(x->times, (int)x->n, MPI_DOUBLE, p->source, PING_TAG_PONG, world,
                           MPI_STATUS_IGNORE));
    }
    return SB_OK;
}

int ping_collect(const struct ping_plan *p, struct ping_size *sizes, struct ping_copy_size *copy,
                 int rank, MPI_Comm world)
{
    if (p->source == 0) return SB_OK;
    for (int s = 0; s < p->nbytes; s++)
        for (int pt = 0; pt < PING_NPATTERNS; pt++)
            CHECK(collect_series(p, &sizes[s].s[pt], &sizes[s].npp, rank, world));
    for (int s = 0; s < p->ncopy; s++)
        CHECK(collect_series(p, &copy[s].s, &copy[s].reps, rank, world));
    return SB_OK;
}
