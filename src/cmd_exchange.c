/* shiftbox exchange: sweeps k and the payload size through an exchange
 * module.  Every exchange is timed on every rank after a barrier and every
 * byte it delivered is verified; each sweep point reports the statistics of
 * seed 002 sec. 3.4 over all ranks x repetitions, unfiltered and filtered at
 * cut_coef x median.
 *
 * Points either run their repetitions one point after another, or take
 * turns (exchange.interleave = N exchanges a turn), so that a machine whose
 * speed drifts during the run slows every point alike instead of the ones
 * that happened to run late. */
#include "command.h"
#include "log.h"
#include "report.h"
#include "stats.h"
#include "../comm/exchange.h"
#include "../comm/verify.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct plan {
    const char *module;
    const char *phases_text;
    unsigned phases;
    const char *payload_text;
    bool varied;
    long long *k, *bytes;
    int nk, nbytes;
    long repetitions, warmup;
    long interleave; /* exchanges a point runs per turn; 0: all in one turn */
    long inject_rank;
    double cut_coef;
    uint64_t seed;
};

/* One sweep point: a k, a payload size, and what its exchanges measured. */
struct point {
    int k;
    long long bytes;
    struct exchange *x;   /* the sweep's exchange for this k */
    struct slots *slots;  /* and its slot buffer */
    double *times;        /* this rank's timed exchanges, s */
    long timed;           /* how many of them so far */
    long messages;        /* sent in the timed exchanges, this rank */
    long long bytes_sent; /* likewise */
    long wrong;           /* wrong bytes this rank found */
    bool reported;        /* this rank has printed its first wrong byte */
    /* Results, on every rank after finish_point (statistics on rank 0 only). */
    struct stats all, filtered;
    double mean_messages;   /* per exchange per rank, mean over ranks */
    double mean_bytes_sent; /* likewise */
    double buffer_max;      /* exchange buffer bytes, max over ranks */
    long wrong_total;       /* summed over ranks */
};

/* Every exchange of a run: one exchange and one slot buffer per k. */
struct sweep {
    struct exchange *x;
    struct slots *slots;
    int nx;
    struct point *pts;
    int npoints;
    unsigned char *own; /* this rank's payload, sized for the largest */
    long serial;        /* exchanges run so far; names each one's pattern */
    long total;         /* exchanges the run will do */
};

static int phase_count(unsigned phases)
{
    return !!(phases & PHASE_X) + !!(phases & PHASE_Y) + !!(phases & PHASE_Z);
}

/* Ranks sharing this node, so a memory check can divide the node's memory. */
static int ranks_on_node(MPI_Comm comm)
{
    MPI_Comm node;
    int n = 1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &n);
        MPI_Comm_free(&node);
    }
    return n;
}

static long long largest(const long long *v, int n)
{
    long long m = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > m) m = v[i];
    return m;
}

/* Rejects sweeps whose largest message overflows MPI's int count or whose
 * slot buffers (one per k, all held for the whole run) cannot fit this
 * rank's share of the node's memory. */
static int check_sizes(const struct plan *p, int local_ranks, struct sb_msg *m)
{
    double node_bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    double share = 0.8 * node_bytes / local_ranks;
    int np = phase_count(p->phases);
    long long bytes = largest(p->bytes, p->nbytes);
    double slot = p->varied ? (double)record_bytes(2 * (size_t)bytes) : (double)bytes;
    double buffers = 0.0;
    for (int i = 0; i < p->nk; i++) {
        double side = 2.0 * (double)p->k[i] + 1.0;
        double message = slot * pow(side, np - 1);
        if (message > INT_MAX)
            return sb_fail(m, SB_EUSAGE,
                           "exchange.k = %lld with exchange.bytes = %lld: the last phase sends "
                           "%.3g bytes in one message, more than MPI's int count (%d); "
                           "accepted: smaller k or bytes",
                           p->k[i], bytes, message, INT_MAX);
        /* varied: the buffer keeps room at both ends for the sizes to come */
        buffers += slot * pow(side, np) * (p->varied ? 2.0 : 1.0);
    }
    if (buffers > share)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.k = %s with exchange.bytes up to %lld needs %.3g GB of slots "
                       "per rank, but %d ranks share %.3g GB here; accepted: fewer or smaller "
                       "k or bytes",
                       "(the list)", bytes, buffers / 1e9, local_ranks, node_bytes / 1e9);
    return SB_OK;
}

static int plan_from_config(struct plan *p, const struct config *c, const struct topology *t,
                            struct sb_msg *m)
{
    p->module = cfg_text(c, "exchange.module");
    p->phases_text = cfg_text(c, "exchange.phases");
    p->phases = phases_parse(p->phases_text);
    p->payload_text = cfg_text(c, "exchange.payload");
    p->varied = !strcmp(p->payload_text, "varied");
    p->k = sb_malloc(CONFIG_MAX_LIST * sizeof *p->k, "the k list");
    p->bytes = sb_malloc(CONFIG_MAX_LIST * sizeof *p->bytes, "the bytes list");
    p->nk = cfg_int_list(c, "exchange.k", p->k);
    p->nbytes = cfg_int_list(c, "exchange.bytes", p->bytes);
    p->repetitions = (long)cfg_int(c, "exchange.repetitions");
    p->warmup = (long)cfg_int(c, "exchange.warmup");
    p->interleave = (long)cfg_int(c, "exchange.interleave");
    p->inject_rank = (long)cfg_int(c, "exchange.inject_fault");
    p->cut_coef = cfg_real(c, "stats.cut_coef");
    p->seed = (uint64_t)cfg_int(c, "run.seed");
    if (p->inject_rank >= t->nranks)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_fault = %ld, but the run has %d ranks; accepted: -1 "
                       "(off) or a rank in 0..%d",
                       p->inject_rank, t->nranks, t->nranks - 1);
    return check_sizes(p, ranks_on_node(t->comm), m);
}

static void plan_free(struct plan *p)
{
    free(p->k);
    free(p->bytes);
}

/* ---- the sweep -------------------------------------------------------------- */

static int sweep_init(struct sweep *w, const struct plan *p, const struct topology *t,
                      struct sb_msg *m)
{
    memset(w, 0, sizeof *w);
    w->nx = p->nk;
    w->x = sb_calloc((size_t)p->nk, sizeof *w->x, "exchanges");
    w->slots = sb_calloc((size_t)p->nk, sizeof *w->slots, "slot buffers");
    for (int i = 0; i < p->nk; i++) {
        struct exchange_opts o = {.k = (int)p->k[i], .phases = p->phases, .uniform = !p->varied};
        int rc = exchange_create(&w->x[i], p->module, t, &o, m);
        if (rc != SB_OK) {
            w->nx = i;
            return rc;
        }
        slots_init(&w->slots[i], w->x[i].kdim);
    }
    w->npoints = p->nk * p->nbytes;
    w->pts = sb_calloc((size_t)w->npoints, sizeof *w->pts, "sweep points");
    for (int i = 0; i < p->nk; i++) {
        for (int j = 0; j < p->nbytes; j++) {
            struct point *pt = &w->pts[i * p->nbytes + j];
            pt->k = (int)p->k[i];
            pt->bytes = p->bytes[j];
            pt->x = &w->x[i];
            pt->slots = &w->slots[i];
            pt->times = sb_malloc((size_t)p->repetitions * sizeof *pt->times, "timings");
        }
    }
    long long bytes = largest(p->bytes, p->nbytes);
    w->own = sb_malloc(p->varied ? 2 * (size_t)bytes : (size_t)bytes, "the own payload");
    w->total = (long)w->npoints * (p->warmup + p->repetitions);
    return SB_OK;
}

static void sweep_free(struct sweep *w)
{
    for (int i = 0; i < w->nx; i++) {
        exchange_destroy(&w->x[i]);
        slots_free(&w->slots[i]);
    }
    for (int i = 0; i < w->npoints; i++)
        free(w->pts[i].times);
    free(w->x);
    free(w->slots);
    free(w->pts);
    free(w->own);
}

static void report_wrong(const struct point *pt, long serial, const struct verify_fault *f,
                         long wrong)
{
    if (f->size_wrong)
        log_rank_error("verify: k=%d bytes=%lld exchange %ld: slot (%+d,%+d,%+d) of box "
                       "(%d,%d,%d) holds %zu bytes, expected %zu (%ld wrong)",
                       pt->k, pt->bytes, serial, f->d[0], f->d[1], f->d[2], f->box[0], f->box[1],
                       f->box[2], f->found_size, f->expected_size, wrong);
    else
        log_rank_error("verify: k=%d bytes=%lld exchange %ld: slot (%+d,%+d,%+d) of box "
                       "(%d,%d,%d) byte %zu: expected 0x%02x, found 0x%02x (%ld wrong bytes)",
                       pt->k, pt->bytes, serial, f->d[0], f->d[1], f->d[2], f->box[0], f->box[1],
                       f->box[2], f->byte, f->expected, f->found, wrong);
}

/* One exchange of point pt: fill the payload, barrier, time the exchange,
 * verify every byte.  `timed` records the time and the counters. */
static int run_one(struct run_ctx *ctx, const struct plan *p, struct sweep *w, struct point *pt,
                   bool timed)
{
    const struct topology *t = &ctx->topo;
    struct pattern pat = {.seed = p->seed, .bytes = (size_t)pt->bytes, .varied = p->varied};
    long serial = w->serial++;
    size_t n = payload_size(&pat, t->rank, serial);
    pattern_fill(&pat, t->rank, serial, w->own, n);
    struct payload mine = {w->own, n};

    CHECK_MPI(MPI_Barrier(t->comm));
    double t0 = MPI_Wtime();
    int rc = exchange_run(pt->x, &mine, pt->slots);
    double t1 = MPI_Wtime();
    if (timed) {
        pt->times[pt->timed++] = t1 - t0 - ctx->timer.overhead;
        pt->messages += pt->x->last.messages;
        pt->bytes_sent += pt->x->last.bytes;
    }
    if (rc == SB_EVERIFY) { /* the module found its own slots malformed */
        pt->wrong++;
        return SB_OK;
    }
    CHECK(rc);
    if (t->rank == p->inject_rank) inject_fault(pt->slots);
    struct verify_fault f;
    long bad = verify_slots(pt->slots, &pat, t->dims, t->coords, serial, &f);
    if (bad && !pt->reported) {
        report_wrong(pt, serial, &f, bad);
        pt->reported = true;
    }
    pt->wrong += bad;
    if (w->serial % 16 == 0)
        log_progress("exchange %s: %ld of %ld exchanges (k=%d, bytes=%lld)", p->module, w->serial,
                     w->total, pt->k, pt->bytes);
    return SB_OK;
}

/* Warm-up for every point, then the timed repetitions in turns. */
static int run_sweep(struct run_ctx *ctx, const struct plan *p, struct sweep *w)
{
    for (int i = 0; i < w->npoints; i++)
        for (long r = 0; r < p->warmup; r++)
            CHECK(run_one(ctx, p, w, &w->pts[i], false));
    long turn = p->interleave > 0 ? p->interleave : p->repetitions;
    for (long done = 0; done < p->repetitions; done += turn)
        for (int i = 0; i < w->npoints; i++)
            for (long r = done; r < done + turn && r < p->repetitions; r++)
                CHECK(run_one(ctx, p, w, &w->pts[i], true));
    log_progress_done();
    return SB_OK;
}

/* Gathers every rank's times to rank 0 for the statistics, and sums the
 * counters over ranks. */
static int finish_point(const struct plan *p, const struct topology *t, struct point *pt)
{
    double *all = NULL;
    size_t nall = (size_t)p->repetitions * (size_t)t->nranks;
    if (t->rank == 0) all = sb_malloc(nall * sizeof *all, "all timings");
    int status = MPI_Gather(pt->times, (int)p->repetitions, MPI_DOUBLE, all, (int)p->repetitions,
                            MPI_DOUBLE, 0, t->comm);
    if (status != MPI_SUCCESS) {
        free(all);
        return sb_mpi_error("MPI_Gather", status, __FILE__, __LINE__);
    }
    if (t->rank == 0) {
        stats_compute(all, nall, &pt->all);
        double *kept = sb_malloc(nall * sizeof *kept, "filtered timings");
        size_t nkept = stats_filter(all, nall, p->cut_coef, pt->all.median, kept);
        stats_compute(kept, nkept, &pt->filtered);
        free(kept);
        free(all);
    }
    double local[2] = {(double)pt->messages / (double)p->repetitions,
                       (double)pt->bytes_sent / (double)p->repetitions};
    double sums[2];
    double buffer = (double)pt->x->last.buffer_bytes;
    CHECK_MPI(MPI_Allreduce(local, sums, 2, MPI_DOUBLE, MPI_SUM, t->comm));
    CHECK_MPI(MPI_Allreduce(&buffer, &pt->buffer_max, 1, MPI_DOUBLE, MPI_MAX, t->comm));
    CHECK_MPI(MPI_Allreduce(&pt->wrong, &pt->wrong_total, 1, MPI_LONG, MPI_SUM, t->comm));
    pt->mean_messages = sums[0] / t->nranks;
    pt->mean_bytes_sent = sums[1] / t->nranks;
    return SB_OK;
}

/* ---- reporting ---------------------------------------------------------------- */

static void print_table_header(void)
{
    log_info("%-8s %3s %9s %7s %10s %10s %10s %10s %9s %6s %6s | %7s %10s %9s | %5s %10s %s",
             "module", "k", "bytes", "n", "min_us", "median_us", "mean_us", "max_us", "sd_us",
             "cv%", "rse%", "kept", "f_mean_us", "f_sd_us", "msgs", "sent_B", "verified");
}

static void print_point(const struct plan *p, const struct point *pt)
{
    const struct stats *s = &pt->all, *f = &pt->filtered;
    log_info("%-8s %3d %9lld %7zu %10.3f %10.3f %10.3f %10.3f %9.3f %6.2f %6.3f | %7zu %10.3f "
             "%9.3f | %5.0f %10.0f %s",
             p->module, pt->k, pt->bytes, s->n, s->min * 1e6, s->median * 1e6, s->mean * 1e6,
             s->max * 1e6, s->stddev * 1e6, s->cv * 100, s->rse * 100, f->n, f->mean * 1e6,
             f->stddev * 1e6, pt->mean_messages, pt->mean_bytes_sent,
             pt->wrong_total ? "NO" : "yes");
}

static cJSON *point_json(const struct plan *p, const struct point *pt)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "module", p->module);
    cJSON_AddNumberToObject(o, "k", pt->k);
    cJSON_AddNumberToObject(o, "bytes", (double)pt->bytes);
    cJSON_AddStringToObject(o, "payload", p->payload_text);
    cJSON_AddStringToObject(o, "phases", p->phases_text);
    cJSON_AddNumberToObject(o, "repetitions", (double)p->repetitions);
    cJSON_AddNumberToObject(o, "warmup", (double)p->warmup);
    cJSON_AddItemToObject(o, "time_s", report_stats(&pt->all));
    cJSON *filtered = report_stats(&pt->filtered);
    cJSON_AddNumberToObject(filtered, "cut_coef", p->cut_coef);
    cJSON_AddNumberToObject(filtered, "removed", (double)(pt->all.n - pt->filtered.n));
    cJSON_AddItemToObject(o, "filtered_time_s", filtered);
    cJSON_AddNumberToObject(o, "messages_per_exchange", pt->mean_messages);
    cJSON_AddNumberToObject(o, "bytes_sent_per_exchange", pt->mean_bytes_sent);
    cJSON_AddNumberToObject(o, "buffer_bytes_max", pt->buffer_max);
    cJSON_AddNumberToObject(o, "wrong_bytes", (double)pt->wrong_total);
    cJSON_AddBoolToObject(o, "verified", pt->wrong_total == 0);
    return o;
}

static void csv_header(FILE *f)
{
    fprintf(f, "module,k,bytes,payload,phases,ranks,dims");
    static const char *const parts[] = {"", "filt_"};
    for (int i = 0; i < 2; i++)
        fprintf(f,
                ",%ssamples,%smin_s,%smedian_s,%smean_s,%smax_s,%svariance_s2,%sstddev_s,%scv,"
                "%sstd_error_s,%srse",
                parts[i], parts[i], parts[i], parts[i], parts[i], parts[i], parts[i], parts[i],
                parts[i], parts[i]);
    fprintf(f, ",messages,bytes_sent,buffer_bytes_max,wrong_bytes,verified\n");
}

static void csv_row(FILE *f, const struct plan *p, const struct topology *t, const struct point *pt)
{
    fprintf(f, "%s,%d,%lld,%s,%s,%d,%dx%dx%d", p->module, pt->k, pt->bytes, p->payload_text,
            p->phases_text, t->nranks, t->dims[0], t->dims[1], t->dims[2]);
    const struct stats *both[2] = {&pt->all, &pt->filtered};
    for (int i = 0; i < 2; i++) {
        const struct stats *s = both[i];
        fprintf(f, ",%zu,%.9e,%.9e,%.9e,%.9e,%.9e,%.9e,%.6e,%.9e,%.6e", s->n, s->min, s->median,
                s->mean, s->max, s->variance, s->stddev, s->cv, s->std_error, s->rse);
    }
    fprintf(f, ",%.1f,%.1f,%.0f,%ld,%d\n", pt->mean_messages, pt->mean_bytes_sent, pt->buffer_max,
            pt->wrong_total, pt->wrong_total == 0);
}

static int write_outputs(struct run_ctx *ctx, const struct plan *p, const struct sweep *w,
                         bool verified, int exit_code)
{
    cJSON *root =
        report_summary_begin("exchange", ctx->cfg, ctx->cmd->sections, &ctx->topo, &ctx->timer);
    cJSON_AddBoolToObject(root, "verified", verified);
    cJSON_AddNumberToObject(root, "exit_code", exit_code);
    cJSON *list = cJSON_AddArrayToObject(root, "points");
    for (int i = 0; i < w->npoints; i++)
        cJSON_AddItemToArray(list, point_json(p, &w->pts[i]));
    int rc = report_write_json(ctx->out_dir, "summary.json", root);
    cJSON_Delete(root);
    CHECK(rc);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return sb_sys_error("open_memstream", __FILE__, __LINE__);
    csv_header(f);
    for (int i = 0; i < w->npoints; i++)
        csv_row(f, p, &ctx->topo, &w->pts[i]);
    fclose(f);
    rc = report_write_text(ctx->out_dir, "exchange.csv", text, len);
    free(text);
    return rc;
}

static int report_sweep(struct run_ctx *ctx, const struct plan *p, const struct sweep *w)
{
    print_table_header();
    long wrong = 0;
    for (int i = 0; i < w->npoints; i++) {
        print_point(p, &w->pts[i]);
        wrong += w->pts[i].wrong_total;
    }
    bool verified = wrong == 0;
    int exit_code = verified ? SB_OK : SB_EVERIFY;
    if (ctx->out_dir && ctx->topo.rank == 0) CHECK(write_outputs(ctx, p, w, verified, exit_code));
    log_info("\nverified: %s (%s, %d points, %ld exchanges on %d ranks%s)",
             verified ? "true" : "false", p->module, w->npoints, w->serial, ctx->topo.nranks,
             verified ? "" : "; the ranks above name the wrong bytes");
    if (ctx->out_dir)
        log_info("results: %s/summary.json, %s/exchange.csv", ctx->out_dir, ctx->out_dir);
    return exit_code;
}

int cmd_exchange(struct run_ctx *ctx)
{
    struct plan p;
    struct sweep w;
    struct sb_msg m = {""};
    int rc = plan_from_config(&p, ctx->cfg, &ctx->topo, &m);
    if (rc == SB_OK) rc = sweep_init(&w, &p, &ctx->topo, &m);
    if (rc != SB_OK) {
        log_error("%s", m.text);
        plan_free(&p);
        return rc;
    }
    log_info("\n%s exchange, phases %s, %s payload, %ld repetitions after %ld warm-up%s; "
             "times per exchange over %d ranks x repetitions:",
             p.module, p.phases_text, p.payload_text, p.repetitions, p.warmup,
             p.interleave ? ", points taking turns" : "", ctx->topo.nranks);
    rc = run_sweep(ctx, &p, &w);
    for (int i = 0; i < w.npoints && rc == SB_OK; i++)
        rc = finish_point(&p, &ctx->topo, &w.pts[i]);
    if (rc == SB_OK) rc = report_sweep(ctx, &p, &w);
    sweep_free(&w);
    plan_free(&p);
    return rc;
}
