/* The points of a shiftbox exchange run and their reports (results.h). */
#include "results.h"
#include "../log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sweep_results_init(struct sweep_results *r, const struct sweep_plan *p,
                       const struct run_ctx *ctx)
{
    memset(r, 0, sizeof *r);
    if (!p->slot_hashes || !ctx->out_dir || ctx->rank != 0) return SB_OK;
    CHECK(report_text_open(&r->hashes));
    fprintf(r->hashes.f, "module,team_size,dims,k,bytes,payload,box,dx,dy,dz,hash\n");
    return SB_OK;
}

void sweep_results_free(struct sweep_results *r)
{
    report_text_commit(&r->hashes, NULL, NULL); /* frees it if the run stopped early */
    free(r->pts);
    r->pts = NULL;
    r->npoints = r->cap = 0;
}

struct sweep_point *sweep_results_add_point(struct sweep_results *r)
{
    if (r->npoints == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->pts = sb_realloc(r->pts, (size_t)r->cap * sizeof *r->pts, "sweep points");
    }
    struct sweep_point *pt = &r->pts[r->npoints++];
    memset(pt, 0, sizeof *pt);
    pt->modules_agree = true; /* until rank 0 finds otherwise */
    return pt;
}

/* The point has a prediction: model.hockney is set and its module a model
 * (the baselines have none). */
static bool has_prediction(const struct sweep_plan *p, const struct sweep_point *pt)
{
    return p->have_model && pt->predicted > 0;
}

/* With a model: the relative error of stats.statistic against the
 * prediction, and whether the prediction lies within one standard deviation
 * of the mean (seed 000 Table 2's columns). */
static double prediction_error(const struct sweep_point *pt)
{
    return pt->predicted > 0 ? (pt->statistic - pt->predicted) / pt->predicted : 0.0;
}

static bool within_one_sd(const struct sweep_point *pt)
{
    return fabs(pt->all.mean - pt->predicted) <= pt->all.stddev;
}

static void print_table_header(bool model)
{
    log_info("%-17s %3s %8s %-7s %6s %10s %10s %10s %10s %9s %6s %6s | %6s %10s %9s | %5s %10s "
             "%9s%s %s",
             "module", "k", "bytes", "payload", "n", "min_us", "median_us", "mean_us", "max_us",
             "sd_us", "cv%", "rse%", "kept", "f_mean_us", "f_sd_us", "msgs", "sent_B", "peak/min",
             model ? " |    pred_us   err% 1sd" : "", "verified");
}

static void print_point(const struct sweep_plan *p, const struct sweep_point *pt)
{
    bool model = has_prediction(p, pt);
    const struct stats *s = &pt->all, *f = &pt->filtered;
    double ratio = pt->slot_bytes_max > 0 ? pt->buffer_peak_max / pt->slot_bytes_max : 0.0;
    const char *verdict = !p->verify           ? "off"
                          : pt->wrong_total    ? "NO"
                          : !pt->modules_agree ? "NO (modules differ)"
                                               : "yes";
    char name[32], prediction[64] = "";
    snprintf(name, sizeof name, "%s%s", pt->automatic ? "auto:" : "", pt->module);
    if (model)
        snprintf(prediction, sizeof prediction, " | %10.3f %6.1f %3s", pt->predicted * 1e6,
                 prediction_error(pt) * 100, within_one_sd(pt) ? "yes" : "no");
    else if (p->have_model) /* a baseline: no model */
        snprintf(prediction, sizeof prediction, " | %10s %6s %3s", "-", "-", "-");
    log_info("%-17s %3d %8lld %-7s %6zu %10.3f %10.3f %10.3f %10.3f %9.3f %6.2f %6.3f | %6zu "
             "%10.3f %9.3f | %5.0f %10.0f %9.2f%s %s",
             name, pt->k, pt->bytes, pt->varied ? "varied" : "uniform", s->n, s->min * 1e6,
             s->median * 1e6, s->mean * 1e6, s->max * 1e6, s->stddev * 1e6, s->cv * 100,
             s->rse * 100, f->n, f->mean * 1e6, f->stddev * 1e6, pt->mean_messages,
             pt->mean_bytes_sent, ratio, prediction, verdict);
}

bool sweep_point_passed(const struct sweep_point *pt)
{
    return pt->wrong_total == 0 && pt->modules_agree;
}

static cJSON *point_json(const struct sweep_plan *p, const struct sweep_point *pt)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "module", pt->module);
    cJSON_AddBoolToObject(o, "automatic", pt->automatic);
    cJSON_AddNumberToObject(o, "team_size", pt->team_size);
    cJSON_AddItemToObject(o, "dims", cJSON_CreateIntArray(pt->dims, 3));
    cJSON_AddNumberToObject(o, "k", pt->k);
    cJSON_AddNumberToObject(o, "bytes", (double)pt->bytes);
    cJSON_AddStringToObject(o, "payload", pt->varied ? "varied" : "uniform");
    cJSON_AddStringToObject(o, "phases", p->phases_text);
    cJSON_AddNumberToObject(o, "repetitions", (double)p->repetitions);
    cJSON_AddNumberToObject(o, "batch", (double)p->batch);
    cJSON_AddNumberToObject(o, "warmup", (double)p->warmup);
    cJSON_AddItemToObject(o, "time_s", report_stats(&pt->all));
    cJSON_AddNumberToObject(o, "statistic_s", pt->statistic);
    cJSON *filtered = report_stats(&pt->filtered);
    cJSON_AddNumberToObject(filtered, "cut_coef", p->cut_coef);
    cJSON_AddNumberToObject(filtered, "removed", (double)(pt->all.n - pt->filtered.n));
    cJSON_AddItemToObject(o, "filtered_time_s", filtered);
    cJSON_AddNumberToObject(o, "messages_per_exchange", pt->mean_messages);
    cJSON_AddNumberToObject(o, "bytes_sent_per_exchange", pt->mean_bytes_sent);
    cJSON_AddNumberToObject(o, "buffer_bytes_peak", pt->buffer_peak_max);
    cJSON_AddNumberToObject(o, "buffer_bytes_min", pt->slot_bytes_max);
    char digest[20];
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)pt->digest);
    cJSON_AddStringToObject(o, "slot_digest", digest);
    cJSON_AddBoolToObject(o, "modules_agree", pt->modules_agree);
    cJSON_AddNumberToObject(o, "wrong_bytes", (double)pt->wrong_total);
    if (p->verify) cJSON_AddBoolToObject(o, "verified", sweep_point_passed(pt));
    if (has_prediction(p, pt)) {
        cJSON_AddNumberToObject(o, "predicted_s", pt->predicted);
        cJSON_AddNumberToObject(o, "prediction_error", prediction_error(pt));
        cJSON_AddStringToObject(o, "compared_statistic", p->statistic);
        cJSON_AddBoolToObject(o, "prediction_within_sd", within_one_sd(pt));
    }
    return o;
}

static void csv_header(FILE *f)
{
    fprintf(f, "module,team_size,dims,k,bytes,payload,phases,ranks");
    static const char *const parts[] = {"", "filt_"};
    for (int i = 0; i < 2; i++)
        fprintf(f,
                ",%ssamples,%smin_s,%smedian_s,%smean_s,%smax_s,%svariance_s2,%sstddev_s,%scv,"
                "%sstd_error_s,%srse",
                parts[i], parts[i], parts[i], parts[i], parts[i], parts[i], parts[i], parts[i],
                parts[i], parts[i]);
    fprintf(f, ",messages,bytes_sent,buffer_bytes_peak,buffer_bytes_min,slot_digest,wrong_bytes,"
               "verified,automatic,predicted_s,prediction_error,prediction_within_sd,statistic,"
               "statistic_s\n");
}

static void csv_row(FILE *f, const struct sweep_plan *p, int nranks, const struct sweep_point *pt)
{
    fprintf(f, "%s,%d,%dx%dx%d,%d,%lld,%s,%s,%d", pt->module, pt->team_size, pt->dims[0],
            pt->dims[1], pt->dims[2], pt->k, pt->bytes, pt->varied ? "varied" : "uniform",
            p->phases_text, nranks);
    const struct stats *both[2] = {&pt->all, &pt->filtered};
    for (int i = 0; i < 2; i++) {
        const struct stats *s = both[i];
        fprintf(f, ",%zu,%.9e,%.9e,%.9e,%.9e,%.9e,%.9e,%.6e,%.9e,%.6e", s->n, s->min, s->median,
                s->mean, s->max, s->variance, s->stddev, s->cv, s->std_error, s->rse);
    }
    fprintf(f, ",%.1f,%.1f,%.0f,%.0f,%016llx,%ld,%d,%d", pt->mean_messages, pt->mean_bytes_sent,
            pt->buffer_peak_max, pt->slot_bytes_max, (unsigned long long)pt->digest,
            pt->wrong_total, p->verify && sweep_point_passed(pt), pt->automatic);
    if (has_prediction(p, pt)) /* empty without one, so that every file has the same columns */
        fprintf(f, ",%.9e,%.6e,%d", pt->predicted, prediction_error(pt), within_one_sd(pt));
    else
        fprintf(f, ",,,");
    fprintf(f, ",%s,%.9e\n", p->statistic, pt->statistic);
}

int sweep_results_write(struct run_ctx *ctx, const struct sweep_plan *p, struct sweep_results *r,
                        bool verified, int exit_code)
{
    cJSON *root = report_summary_begin("exchange", ctx->cfg, ctx->cmd->sections, ctx->nranks,
                                       &ctx->timer, &ctx->placement);
    cJSON_AddStringToObject(root, "verification", p->verify ? "every byte" : "off");
    if (p->verify) cJSON_AddBoolToObject(root, "verified", verified);
    cJSON_AddNumberToObject(root, "exit_code", exit_code);
    cJSON *list = cJSON_AddArrayToObject(root, "points");
    for (int i = 0; i < r->npoints; i++)
        cJSON_AddItemToArray(list, point_json(p, &r->pts[i]));
    CHECK(report_finish_json(ctx->out_dir, "summary.json", root));

    struct report_text csv;
    CHECK(report_text_open(&csv));
    csv_header(csv.f);
    for (int i = 0; i < r->npoints; i++)
        csv_row(csv.f, p, ctx->nranks, &r->pts[i]);
    CHECK(report_text_commit(&csv, ctx->out_dir, "exchange.csv"));
    if (!r->hashes.f) return SB_OK;
    return report_text_commit(&r->hashes, ctx->out_dir, "slot-hashes.csv");
}

void sweep_results_print_pass_fail(const struct sweep_results *r)
{
    log_info("\n%-17s %4s %-10s %7s %7s %7s", "module", "c", "grid", "points", "passed", "failed");
    for (int i = 0; i < r->npoints; i++) {
        const struct sweep_point *a = &r->pts[i];
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) {
            const struct sweep_point *b = &r->pts[j];
            seen = b->module == a->module && b->team_size == a->team_size &&
                   !memcmp(b->dims, a->dims, sizeof a->dims);
        }
        if (seen) continue;
        int points = 0, passed = 0;
        for (int j = i; j < r->npoints; j++) {
            const struct sweep_point *b = &r->pts[j];
            if (b->module != a->module || b->team_size != a->team_size ||
                memcmp(b->dims, a->dims, sizeof a->dims))
                continue;
            points++;
            passed += sweep_point_passed(b);
        }
        char grid[32];
        snprintf(grid, sizeof grid, "%dx%dx%d", a->dims[0], a->dims[1], a->dims[2]);
        log_info("%-17s %4d %-10s %7d %7d %7d", a->module, a->team_size, grid, points, passed,
                 points - passed);
    }
}

void sweep_results_print_grid(const struct sweep_plan *p, const struct sweep_point *pts,
                              int npoints)
{
    print_table_header(p->have_model);
    for (int i = 0; i < npoints; i++)
        print_point(p, &pts[i]);
}
