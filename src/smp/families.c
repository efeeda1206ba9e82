/* The cost functions of shiftbox smpcost fitted to each family and
 * validated on the other suites (seed 003 sec. 4.2; smpcost.h). */
#include "smpcost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Which set a superstep of parameter h belongs to: 0 (R0) or 1 (R1). */
static int set_of(const struct smp_fitted *x, long h)
{
    return x->sets && h > x->split;
}

/* The fitted function's prediction for counts hr, hw, M of a superstep of
 * parameter h. */
double smp_fitted_predict(enum smp_function fn, const struct smp_fitted *x, long h, double hr,
                          double hw, double M)
{
    struct smp_features f = smp_features_counts(hr, hw, M, x->split);
    return smp_predict(fn, set_of(x, h) ? x->coef_r1 : x->coef, &f);
}

/* The samples of one family, fitting (suite == fit) or validating, with
 * the cache split at `split` accesses; set -1: all, 0: h <= split (R0),
 * 1: h > split (R1). */
static int select_samples(const struct smp_results *r, enum smp_mode mode, int suite, bool equal,
                          long split, int set, struct smp_features *f, double *t)
{
    int n = 0;
    for (int i = 0; i < r->nsamples; i++) {
        const struct smp_sample *x = &r->samples[i];
        if (x->mode != mode || (x->s.suite == suite) != equal) continue;
        if (set >= 0 && (x->s.h > split) != (set == 1)) continue;
        f[n] = smp_features_counts(x->f.hr, x->f.hw, x->f.M, split);
        t[n++] = x->seconds;
    }
    return n;
}

/* smp.fit = searched: fits fn on the family's fitting suite by relative
 * least squares, HrHwM-c's split between cache and memory accesses found
 * in the data as the eager limit of the Hockney fit is: each h of the
 * suite (and the cache share) is tried, and the one whose fit leaves the
 * least squared relative residual on the fitting suite is kept. */
static void fit_searched(const struct smp_plan *p, const struct smp_results *r, enum smp_mode mode,
                         enum smp_function fn, struct smp_features *f, double *t,
                         struct smp_fitted *out)
{
    long candidates[64 * 4 + 1];
    int nc = 0;
    candidates[nc++] = p->cache_ints;
    if (fn == FN_HRHWMC) {
        long hs[64];
        int nh = smp_h_values(p->cache_ints, p->per_set, hs);
        for (int i = 0; i < nh && nc < 64 * 4; i++)
            candidates[nc++] = hs[i];
    }
    double best = INFINITY;
    out->ok = false;
    for (int c = 0; c < nc; c++) {
        double coef[SMP_MAX_TERMS];
        int n = select_samples(r, mode, smp_fit_suite[mode], true, candidates[c], -1, f, t);
        if (smp_fit(fn, f, t, n, true, coef) != 0) continue;
        double sse = 0;
        for (int i = 0; i < n; i++) {
            double e = (smp_predict(fn, coef, &f[i]) - t[i]) / t[i];
            sse += e * e;
        }
        if (sse < best) {
            best = sse;
            out->ok = true;
            out->split = candidates[c];
            memcpy(out->coef, coef, sizeof coef);
        }
    }
}

/* smp.fit = paper (seed 003 sec. 4.2): plain least squares on the fitting
 * suite; the good family in two sets split at this machine's cache share
 * per worker (R0: h <= cache_ints, whose accesses all stay in cache, as
 * the paper's h <= 2^19 integers did in the SGI's 2 MB L2), each fitted
 * apart; HrHwM-c counts accesses beyond that share as memory accesses. */
static void fit_paper(const struct smp_plan *p, const struct smp_results *r, enum smp_mode mode,
                      enum smp_function fn, struct smp_features *f, double *t,
                      struct smp_fitted *out)
{
    out->split = p->cache_ints;
    out->sets = mode == MODE_GOOD;
    out->ok = true;
    for (int set = 0; set < (out->sets ? 2 : 1); set++) {
        int n = select_samples(r, mode, smp_fit_suite[mode], true, out->split, out->sets ? set : -1,
                               f, t);
        if (smp_fit(fn, f, t, n, false, set ? out->coef_r1 : out->coef) != 0) out->ok = false;
    }
}

/* Errors on the validation suites, in all and per set. */
static void validate(const struct smp_results *r, enum smp_mode mode, enum smp_function fn,
                     struct smp_fitted *x)
{
    double sum = 0, set_sum[2] = {0, 0};
    int n = 0;
    x->max = 0;
    for (int i = 0; i < r->nsamples; i++) {
        const struct smp_sample *y = &r->samples[i];
        if (y->mode != mode || y->s.suite == smp_fit_suite[mode]) continue;
        double e = fabs(smp_fitted_predict(fn, x, y->s.h, y->f.hr, y->f.hw, y->f.M) - y->seconds) /
                   y->seconds;
        int set = y->s.h > x->split;
        sum += e;
        n++;
        x->max = fmax(x->max, e);
        set_sum[set] += e;
        x->set_n[set]++;
        x->set_max[set] = fmax(x->set_max[set], e);
    }
    x->ok = x->ok && n > 0;
    x->avg = n ? sum / n : 0;
    for (int set = 0; set < 2; set++)
        x->set_avg[set] = x->set_n[set] ? set_sum[set] / x->set_n[set] : 0;
}

void smp_fit_families(const struct smp_plan *p, struct smp_results *r)
{
    struct smp_features *f = sb_malloc((size_t)(r->nsamples + 1) * sizeof *f, "features");
    double *t = sb_malloc((size_t)(r->nsamples + 1) * sizeof *t, "times");
    r->use = p->fit;
    for (int method = 0; method < NFITS; method++)
        for (int mode = 0; mode < NMODES; mode++) {
            double best = INFINITY;
            r->best[method][mode] = smp_family_functions[mode][0];
            for (int j = 0; j < FAMILY_FUNCTIONS; j++) {
                enum smp_function fn = smp_family_functions[mode][j];
                struct smp_fitted *out = &r->fit[method][mode][fn];
                if (method == FIT_PAPER)
                    fit_paper(p, r, (enum smp_mode)mode, fn, f, t, out);
                else
                    fit_searched(p, r, (enum smp_mode)mode, fn, f, t, out);
                validate(r, (enum smp_mode)mode, fn, out);
                if (out->ok && out->avg < best) {
                    best = out->avg;
                    r->best[method][mode] = fn;
                }
            }
        }
    free(f);
    free(t);
}

/* The chosen fit's best function of a family at counts of n integers. */
double smp_family_predict(const struct smp_results *r, enum smp_mode mode, long n, double hr,
                          double hw, double M)
{
    enum smp_function fn = r->best[r->use][mode];
    return smp_fitted_predict(fn, &r->fit[r->use][mode][fn], n, hr, hw, M);
}

/* Good: the good family's HrHwM-c; Bad: the bad family's HrHwM (seed 003
 * Tables 9-11), both of the predicting fit. */
void smp_predict_app(const void *ctx, double hr, double hw, double M, double *good, double *bad)
{
    const struct smp_results *r = ctx;
    long h = (long)(hr > hw ? hr : hw);
    *good = smp_fitted_predict(FN_HRHWMC, &r->fit[r->use][MODE_GOOD][FN_HRHWMC], h, hr, hw, M);
    *bad = smp_fitted_predict(FN_HRHWM, &r->fit[r->use][MODE_BAD][FN_HRHWM], h, hr, hw, M);
}
