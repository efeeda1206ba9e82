#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const smp_function_names[NFUNCTIONS] = {"H", "HM", "HrHw", "HrHwM", "HrHwM-c"};

static const char *const term_names[NFUNCTIONS][SMP_MAX_TERMS] = {
    {"L", "g_h"},
    {"L", "g_h", "g_M"},
    {"L", "g_hr", "g_hw"},
    {"L", "g_hr", "g_hw", "g_M"},
    {"L", "g_hrc", "g_hrm", "g_hwc", "g_hwm", "g_M"},
};

const char *smp_term_name(enum smp_function f, int term)
{
    return term_names[f][term];
}

int smp_terms(enum smp_function f, const struct smp_features *x, double *row)
{
    int n = 0;
    row[n++] = 1.0;
    switch (f) {
    case FN_H:
        row[n++] = x->h;
        break;
    case FN_HM:
        row[n++] = x->h;
        row[n++] = x->M;
        break;
    case FN_HRHW:
        row[n++] = x->hr;
        row[n++] = x->hw;
        break;
    case FN_HRHWM:
        row[n++] = x->hr;
        row[n++] = x->hw;
        row[n++] = x->M;
        break;
    default:
        row[n++] = x->hrc;
        row[n++] = x->hrm;
        row[n++] = x->hwc;
        row[n++] = x->hwm;
        row[n++] = x->M;
        break;
    }
    return n;
}

double smp_predict(enum smp_function f, const double *coef, const struct smp_features *x)
{
    double row[SMP_MAX_TERMS], t = 0;
    int m = smp_terms(f, x, row);
    for (int j = 0; j < m; j++)
        t += coef[j] * row[j];
    return t;
}

/* Solves min |A c - b| for A (n x m, column-major, overwritten) by
 * Householder QR.  Returns -1 when a column is (numerically) dependent. */
static int least_squares(double *a, double *b, int n, int m, double *c)
{
    for (int j = 0; j < m; j++) {
        double *col = a + (size_t)j * n, norm = 0;
        for (int i = j; i < n; i++)
            norm += col[i] * col[i];
        norm = sqrt(norm);
        if (norm == 0) return -1;
        double alpha = col[j] > 0 ? -norm : norm;
        col[j] -= alpha; /* v = x - alpha e_j, stored in place */
        double vv = 0;
        for (int i = j; i < n; i++)
            vv += col[i] * col[i];
        for (int k = j + 1; k < m; k++) { /* reflect the later columns and b */
            double *ck = a + (size_t)k * n, dot = 0;
            for (int i = j; i < n; i++)
                dot += col[i] * ck[i];
            for (int i = j; i < n; i++)
                ck[i] -= 2 * dot / vv * col[i];
        }
        double dot = 0;
        for (int i = j; i < n; i++)
            dot += col[i] * b[i];
        for (int i = j; i < n; i++)
            b[i] -= 2 * dot / vv * col[i];
        col[j] = alpha; /* R's diagonal */
    }
    double rmax = 0;
    for (int j = 0; j < m; j++)
        rmax = fmax(rmax, fabs(a[(size_t)j * n + j]));
    for (int j = m - 1; j >= 0; j--) {
        double r = a[(size_t)j * n + j];
        if (fabs(r) <= 1e-12 * rmax) return -1;
        double s = b[j];
        for (int k = j + 1; k < m; k++)
            s -= a[(size_t)k * n + j] * c[k];
        c[j] = s / r;
    }
    return 0;
}

/* v minus its projection on the unit vector u (n values). */
static void project_out(double *v, const double *u, int n)
{
    double dot = 0;
    for (int i = 0; i < n; i++)
        dot += u[i] * v[i];
    for (int i = 0; i < n; i++)
        v[i] -= dot * u[i];
}

/* Of the m columns of g (n rows, column-major), keeps in order those the
 * earlier kept ones do not span: what is left of a column after its
 * projections on them (Gram-Schmidt, twice) must keep more than
 * SPAN_TOLERANCE of its norm.  Kept columns move to the front, their
 * indices into keep[]; returns how many, -1 without memory. */
#define SPAN_TOLERANCE 1e-9
static int independent_columns(double *g, int n, int m, int *keep)
{
    double *q = malloc((size_t)n * (size_t)(m > 0 ? m : 1) * sizeof *q);
    if (!q) return -1;
    int nk = 0;
    for (int k = 0; k < m; k++) {
        double *v = q + (size_t)nk * n, norm0 = 0, norm = 0;
        memcpy(v, g + (size_t)k * n, (size_t)n * sizeof *v);
        for (int i = 0; i < n; i++)
            norm0 += v[i] * v[i];
        for (int pass = 0; pass < 2; pass++) /* twice: Gram-Schmidt loses orthogonality */
            for (int j = 0; j < nk; j++)
                project_out(v, q + (size_t)j * n, n);
        for (int i = 0; i < n; i++)
            norm += v[i] * v[i];
        if (norm0 == 0 || norm <= SPAN_TOLERANCE * SPAN_TOLERANCE * norm0) continue;
        for (int i = 0; i < n; i++)
            v[i] /= sqrt(norm);
        if (nk != k) memmove(g + (size_t)nk * n, g + (size_t)k * n, (size_t)n * sizeof *g);
        keep[nk++] = k;
    }
    free(q);
    return nk;
}

int smp_fit(enum smp_function f, const struct smp_features *x, const double *t, int n,
            bool relative, double *coef)
{
    double row[SMP_MAX_TERMS], scale[SMP_MAX_TERMS] = {0};
    int m = smp_terms(f, &x[0], row);
    if (n < 1) return -1;
    double *a = malloc((size_t)n * (size_t)m * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    /* Columns differ by orders of magnitude (1 against 10^7 accesses):
     * scale each to its largest value so that QR sees comparable norms. */
    for (int i = 0; i < n; i++) {
        smp_terms(f, &x[i], row);
        for (int j = 0; j < m; j++)
            scale[j] = fmax(scale[j], fabs(row[j]));
    }
    /* A term that is zero at every point (no access beyond the cache, say)
     * cannot be fitted: it gets coefficient 0 and the others are fitted. */
    int active[SMP_MAX_TERMS], na = 0;
    for (int j = 0; j < m; j++) {
        coef[j] = 0;
        if (scale[j] > 0) active[na++] = j;
    }
    /* Relative residuals: each row divided by its time (seed 003's plain
     * least squares lets the largest supersteps decide). */
    for (int i = 0; i < n; i++) {
        smp_terms(f, &x[i], row);
        double w = relative && t[i] > 0 ? 1.0 / t[i] : 1.0;
        for (int k = 0; k < na; k++)
            a[(size_t)k * n + i] = w * row[active[k]] / scale[active[k]];
        b[i] = w * t[i];
    }
    /* Access terms the supersteps cannot tell apart (on one worker every
     * superstep reads and writes h: hr = hw, M = 2 hr) keep coefficient 0
     * and the first of them carries their sum, which predicts every
     * superstep of that shape alike.  Only access terms merge: one that is
     * constant over the points (hrc when every h is beyond the split)
     * would merge into L and predict copies of another size wrongly, so
     * then the fit fails (least_squares finds the dependence). */
    int keep[SMP_MAX_TERMS], ng = independent_columns(a + n, n, na - 1, keep);
    int rc = ng < 0 || n < 1 + ng ? -1 : 0;
    double solved[SMP_MAX_TERMS];
    if (rc == 0) rc = least_squares(a, b, n, 1 + ng, solved);
    if (rc == 0) coef[0] = solved[0] / scale[0]; /* L: active[0] is the constant */
    for (int k = 0; rc == 0 && k < ng; k++)
        coef[active[1 + keep[k]]] = solved[1 + k] / scale[active[1 + keep[k]]];
    free(a);
    free(b);
    return rc;
}

void smp_errors(enum smp_function f, const double *coef, const struct smp_features *x,
                const double *t, int n, double *avg, double *max)
{
    double sum = 0, most = 0;
    for (int i = 0; i < n; i++) {
        double e = fabs(smp_predict(f, coef, &x[i]) - t[i]) / t[i];
        sum += e;
        most = fmax(most, e);
    }
    *avg = n > 0 ? sum / n : 0;
    *max = most;
}
