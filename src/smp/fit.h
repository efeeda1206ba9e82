/* The cost functions of seed 003 sec. 4.2, fitted by least squares:
 *   H       L + g_h h
 *   HM      L + g_h h + g_M M
 *   HrHw    L + g_hr hr + g_hw hw
 *   HrHwM   L + g_hr hr + g_hw hw + g_M M                       (bad family)
 *   HrHwM-c L + g_hrc hrc + g_hrm hrm + g_hwc hwc + g_hwm hwm + g_M M (good)
 * Times in seconds; coefficients in seconds and seconds per access. */
#ifndef SB_SMP_FIT_H
#define SB_SMP_FIT_H

#include "pattern.h"

enum smp_function { FN_H, FN_HM, FN_HRHW, FN_HRHWM, FN_HRHWMC, NFUNCTIONS };

#define SMP_MAX_TERMS 6

extern const char *const smp_function_names[NFUNCTIONS];

/* The terms of function f (the constant first); returns their count. */
int smp_terms(enum smp_function f, const struct smp_features *x, double *row);
/* Their names: "L", "g_h", ... */
const char *smp_term_name(enum smp_function f, int term);

/* Least squares over n points (Householder QR of the column-scaled design
 * matrix): of the residuals t_fit - t, as seed 003 fits (plain), or of the
 * relative residuals (t_fit - t) / t (relative: a 10 us superstep weighs
 * as much as a 100 ms one).  Access terms that the points cannot tell
 * apart (one worker: hr = hw, M = hr + hw) are fitted as one, the first of
 * them carrying it and the others 0.  Returns 0, or -1 when the points
 * cannot determine the coefficients: fewer points than the terms left, or
 * an access term the constant L spans (constant over the points). */
int smp_fit(enum smp_function f, const struct smp_features *x, const double *t, int n,
            bool relative, double *coef);

double smp_predict(enum smp_function f, const double *coef, const struct smp_features *x);

/* Average and maximum of |predicted - t| / t over the points. */
void smp_errors(enum smp_function f, const double *coef, const struct smp_features *x,
                const double *t, int n, double *avg, double *max);

#endif
