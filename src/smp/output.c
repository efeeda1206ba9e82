/* What shiftbox smpcost prints and writes (smpcost.h): the fits, the
 * patterns' places between the Good and Bad predictions, the accuracy,
 * summary.json and smpcost.csv. */
#include "smpcost.h"
#include "../log.h"
#include "../report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where t lies between the good (0) and the bad (1) prediction. */
static double locality_score(double t, double good, double bad)
{
    return bad > good ? (t - good) / (bad - good) : NAN;
}

/* "L=... g_h=..." of one coefficient set, L in us and g in ns per access. */
static void format_terms(enum smp_function fn, const double *coef, char *text, size_t size)
{
    size_t len = 0;
    double row[SMP_MAX_TERMS];
    struct smp_features zero = {0};
    int m = smp_terms(fn, &zero, row);
    text[0] = '\0';
    for (int t = 0; t < m && len < size; t++)
        len += (size_t)snprintf(text + len, size - len, "%s=%.4g ", smp_term_name(fn, t),
                                coef[t] * (t == 0 ? 1e6 : 1e9));
}

void smp_print_fits(const struct smp_results *r, enum smp_fit_method method)
{
    log_info("\nsmp.fit = %s%s", smp_fit_names[method],
             method == FIT_PAPER ? ": plain least squares, the good family's R0 (h <= the cache "
                                   "share) and R1 fitted apart (seed 003 sec. 4.2)"
                                 : ": relative least squares, HrHwM-c's cache split searched in "
                                   "the data");
    for (int mode = 0; mode < NMODES; mode++) {
        log_info("%s family: fitted on suite %d, validated on the other two (seed 003 "
                 "Tables %s)",
                 smp_mode_names[mode], smp_fit_suite[mode],
                 mode == MODE_GOOD ? "1, 5, 6" : "3, 7, 8");
        log_info("  %-8s %9s %9s  coefficients (L in us, g in ns per access)", "function",
                 "avg err", "max err");
        for (int j = 0; j < FAMILY_FUNCTIONS; j++) {
            enum smp_function fn = smp_family_functions[mode][j];
            const struct smp_fitted *x = &r->fit[method][mode][fn];
            if (!x->ok) {
                log_info("  %-8s  (too few samples to fit)", smp_function_names[fn]);
                continue;
            }
            char terms[256], split[64] = "";
            format_terms(fn, x->coef, terms, sizeof terms);
            if (fn == FN_HRHWMC || x->sets) snprintf(split, sizeof split, "split=%ld ", x->split);
            log_info("  %-8s %8.1f%% %8.1f%%  %s%s%s%s", smp_function_names[fn], 100 * x->avg,
                     100 * x->max, x->sets ? "R0: " : "", terms, split,
                     fn == r->best[method][mode] ? " <- best" : "");
            if (!x->sets) continue;
            format_terms(fn, x->coef_r1, terms, sizeof terms);
            log_info("  %-8s %9s %9s  R1: %s", "", "", "", terms);
            for (int set = 0; set < 2; set++)
                log_info("  %-8s %8.1f%% %8.1f%%  R%d alone (%d supersteps)", "",
                         100 * x->set_avg[set], 100 * x->set_max[set], set, x->set_n[set]);
        }
    }
}

void smp_print_patterns(const struct smp_results *r)
{
    log_info("\nShiftBox's copy patterns inside the prediction interval (seed 003 sec. 5; "
             "score 0 = good prediction, 1 = bad):");
    log_info("  %-13s %10s %11s %11s %11s %7s", "pattern", "ints", "measured", "good", "bad",
             "score");
    for (int pat = 0; pat < NPATTERNS; pat++)
        log_info(
            "  %-13s %10ld %9.1fus %9.1fus %9.1fus %7.2f", smp_pattern_names[pat],
            r->pattern_count[pat], 1e6 * r->pattern_seconds[pat], 1e6 * r->pattern_good[pat],
            1e6 * r->pattern_bad[pat],
            locality_score(r->pattern_seconds[pat], r->pattern_good[pat], r->pattern_bad[pat]));
}

static cJSON *coefficients_json(enum smp_function fn, const double *coef)
{
    cJSON *c = cJSON_CreateObject();
    double row[SMP_MAX_TERMS];
    struct smp_features zero = {0};
    int m = smp_terms(fn, &zero, row);
    for (int t = 0; t < m; t++)
        cJSON_AddNumberToObject(c, smp_term_name(fn, t), coef[t]);
    return c;
}

static cJSON *fitted_json(enum smp_function fn, const struct smp_fitted *x)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "function", smp_function_names[fn]);
    cJSON_AddBoolToObject(o, "fitted", x->ok);
    cJSON_AddItemToObject(o, "coefficients_s", coefficients_json(fn, x->coef));
    if (fn == FN_HRHWMC) cJSON_AddNumberToObject(o, "split_ints", (double)x->split);
    if (x->sets) { /* coefficients_s are R0's (h <= r0_max_h); R1's beside them */
        cJSON_AddNumberToObject(o, "r0_max_h", (double)x->split);
        cJSON_AddItemToObject(o, "r1_coefficients_s", coefficients_json(fn, x->coef_r1));
        cJSON *sets = cJSON_AddArrayToObject(o, "sets");
        for (int set = 0; set < 2; set++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "set", set ? "R1" : "R0");
            cJSON_AddNumberToObject(e, "validation_supersteps", x->set_n[set]);
            cJSON_AddNumberToObject(e, "average_relative_error", x->set_avg[set]);
            cJSON_AddNumberToObject(e, "maximum_relative_error", x->set_max[set]);
            cJSON_AddItemToArray(sets, e);
        }
    }
    cJSON_AddNumberToObject(o, "average_relative_error", x->avg);
    cJSON_AddNumberToObject(o, "maximum_relative_error", x->max);
    return o;
}

/* The families' fits of one method: {good: {fit_suite, best, functions}, bad: ...}. */
static void add_families(cJSON *to, const struct smp_results *r, enum smp_fit_method method)
{
    for (int mode = 0; mode < NMODES; mode++) {
        cJSON *fam = cJSON_AddObjectToObject(to, smp_mode_names[mode]);
        cJSON_AddNumberToObject(fam, "fit_suite", smp_fit_suite[mode]);
        cJSON_AddStringToObject(fam, "best", smp_function_names[r->best[method][mode]]);
        cJSON *list = cJSON_AddArrayToObject(fam, "functions");
        for (int j = 0; j < FAMILY_FUNCTIONS; j++) {
            enum smp_function fn = smp_family_functions[mode][j];
            cJSON_AddItemToArray(list, fitted_json(fn, &r->fit[method][mode][fn]));
        }
    }
}

int smp_write_outputs(const struct run_ctx *ctx, const struct smp_plan *p,
                      const struct smp_results *r)
{
    cJSON *root = report_summary_begin("smpcost", ctx->cfg, ctx->cmd->sections, ctx->nranks,
                                       &ctx->timer, &ctx->placement);
    cJSON *res = cJSON_AddObjectToObject(root, "smpcost");
    cJSON_AddNumberToObject(res, "workers", p->p);
    cJSON_AddNumberToObject(res, "line_ints", (double)p->line_ints);
    cJSON_AddNumberToObject(res, "cache_ints", (double)p->cache_ints);
    cJSON_AddStringToObject(res, "cache", p->cache_source);
    cJSON_AddNumberToObject(res, "samples", r->nsamples);
    cJSON_AddNumberToObject(res, "skipped", r->skipped);
    cJSON_AddStringToObject(res, "fit", smp_fit_names[r->use]);
    add_families(res, r, r->use); /* the fit that predicts; the other beside it */
    cJSON *other = cJSON_AddObjectToObject(res, "other_fit");
    cJSON_AddStringToObject(other, "fit", smp_fit_names[!r->use]);
    add_families(other, r, (enum smp_fit_method) !r->use);
    cJSON *acc = cJSON_AddObjectToObject(res, "accuracy");
    cJSON_AddNumberToObject(acc, "target", SMP_ACCURACY_TARGET);
    cJSON_AddNumberToObject(acc, "good_HrHwM-c_average", r->fit[r->use][MODE_GOOD][FN_HRHWMC].avg);
    cJSON_AddNumberToObject(acc, "bad_HrHwM_average", r->fit[r->use][MODE_BAD][FN_HRHWM].avg);
    if (p->any_app) cJSON_AddItemToObject(res, "apps", smp_apps_json(&r->apps));
    cJSON *pats = cJSON_AddArrayToObject(res, "patterns");
    for (int pat = 0; pat < NPATTERNS; pat++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "pattern", smp_pattern_names[pat]);
        cJSON_AddNumberToObject(o, "ints", (double)r->pattern_count[pat]);
        cJSON_AddNumberToObject(o, "measured_s", r->pattern_seconds[pat]);
        cJSON_AddNumberToObject(o, "good_s", r->pattern_good[pat]);
        cJSON_AddNumberToObject(o, "bad_s", r->pattern_bad[pat]);
        cJSON_AddNumberToObject(
            o, "score",
            locality_score(r->pattern_seconds[pat], r->pattern_good[pat], r->pattern_bad[pat]));
        cJSON_AddItemToArray(pats, o);
    }
    CHECK(report_finish_json(ctx->out_dir, "summary.json", root));

    struct report_text csv;
    CHECK(report_text_open(&csv));
    fprintf(csv.f, "suite,mode,kind,x,h,hr,hw,M,hrc,hrm,hwc,hwm,measured_s,reps");
    for (int fn = 0; fn < NFUNCTIONS; fn++)
        fprintf(csv.f, ",%s", smp_function_names[fn]);
    fprintf(csv.f, "\n");
    for (int i = 0; i < r->nsamples; i++) {
        const struct smp_sample *x = &r->samples[i];
        const struct smp_features *f = &x->f;
        fprintf(csv.f, "%d,%s,%s,%d,%ld,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.6g,%d", x->s.suite,
                smp_mode_names[x->mode], smp_kind_names[x->s.kind], x->s.x, x->s.h, f->hr, f->hw,
                f->M, f->hrc, f->hrm, f->hwc, f->hwm, x->seconds, x->reps);
        for (int fn = 0; fn < NFUNCTIONS; fn++) {
            const struct smp_fitted *y = &r->fit[r->use][x->mode][fn];
            if (y->ok)
                fprintf(csv.f, ",%.6g",
                        smp_fitted_predict((enum smp_function)fn, y, x->s.h, f->hr, f->hw, f->M));
            else
                fprintf(csv.f, ",");
        }
        fprintf(csv.f, "\n");
    }
    CHECK(report_text_commit(&csv, ctx->out_dir, "smpcost.csv"));
    if (!p->any_app) return SB_OK;
    struct report_text apps;
    CHECK(report_text_open(&apps));
    smp_apps_csv(&r->apps, apps.f);
    return report_text_commit(&apps, ctx->out_dir, "smpcost-apps.csv");
}

/* Seed 003's accuracy (Tables 5-8: HrHwM-c and HrHwM within 5-7 % on
 * average) against this machine's, for both fits. */
void smp_print_accuracy(const struct smp_results *r)
{
    for (int method = 0; method < NFITS; method++) {
        if (!r->fit[method][MODE_GOOD][FN_HRHWMC].ok || !r->fit[method][MODE_BAD][FN_HRHWM].ok) {
            log_info("accuracy (smp.fit = %s): HrHwM-c or HrHwM not fitted (too few supersteps, "
                     "or a term the supersteps cannot determine)",
                     smp_fit_names[method]);
            continue;
        }
        double good = r->fit[method][MODE_GOOD][FN_HRHWMC].avg,
               bad = r->fit[method][MODE_BAD][FN_HRHWM].avg;
        log_info("accuracy (smp.fit = %s): HrHwM-c (good) average %.1f%%, HrHwM (bad) average "
                 "%.1f%% on the validation suites; target %.0f%%: %s%s",
                 smp_fit_names[method], 100 * good, 100 * bad, 100 * SMP_ACCURACY_TARGET,
                 good <= SMP_ACCURACY_TARGET && bad <= SMP_ACCURACY_TARGET ? "met" : "missed",
                 method == (int)r->use ? "" : " (reported beside)");
    }
}
