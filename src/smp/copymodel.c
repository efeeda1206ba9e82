#include "copymodel.h"
#include "../../comm/verify.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const accepted = "the summary.json that shiftbox smpcost --out DIR wrote";

static int bad_file(struct sb_msg *m, const char *path, const char *why)
{
    return sb_fail(m, SB_EUSAGE, "model.smp = '%s': %s; accepted: %s", path, why, accepted);
}

/* The entry of the good family's best function, or NULL. */
static const cJSON *best_good(const cJSON *smp)
{
    const cJSON *good = cJSON_GetObjectItemCaseSensitive(smp, "good");
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(good, "best");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(good, "functions"), *f;
    if (!cJSON_IsString(best)) return NULL;
    cJSON_ArrayForEach(f, list)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(f, "function");
        if (cJSON_IsString(name) && !strcmp(name->valuestring, best->valuestring)) return f;
    }
    return NULL;
}

/* The coefficients of c->function from a coefficients_s object. */
static int read_coefficients(struct smp_copy *c, const cJSON *coef, double *out, const char *path,
                             struct sb_msg *m)
{
    double row[SMP_MAX_TERMS];
    struct smp_features zero = {0};
    int n = smp_terms(c->function, &zero, row);
    for (int t = 0; t < n; t++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(coef, smp_term_name(c->function, t));
        if (!cJSON_IsNumber(v)) return bad_file(m, path, "a coefficient is missing");
        if (!isfinite(v->valuedouble)) return bad_file(m, path, "a coefficient is not finite");
        out[t] = v->valuedouble;
    }
    return SB_OK;
}

static int read_function(struct smp_copy *c, const cJSON *f, const char *path, struct sb_msg *m)
{
    const char *name = cJSON_GetObjectItemCaseSensitive(f, "function")->valuestring;
    int fn = -1;
    for (int i = 0; i < NFUNCTIONS; i++)
        if (!strcmp(smp_function_names[i], name)) fn = i;
    const cJSON *coef = cJSON_GetObjectItemCaseSensitive(f, "coefficients_s");
    if (fn < 0 || !cJSON_IsObject(coef)) return bad_file(m, path, "no usable best function");
    c->function = (enum smp_function)fn;
    CHECK(read_coefficients(c, coef, c->coef, path, m));
    const cJSON *split = cJSON_GetObjectItemCaseSensitive(f, "split_ints");
    c->split = cJSON_IsNumber(split) ? (long)split->valuedouble : 0;
    const cJSON *r1 = cJSON_GetObjectItemCaseSensitive(f, "r1_coefficients_s");
    c->sets = cJSON_IsObject(r1);
    if (!c->sets) return SB_OK;
    const cJSON *r0_max = cJSON_GetObjectItemCaseSensitive(f, "r0_max_h");
    if (!cJSON_IsNumber(r0_max)) return bad_file(m, path, "R1 coefficients without r0_max_h");
    c->r0_max = (long)r0_max->valuedouble;
    return read_coefficients(c, r1, c->coef_r1, path, m);
}

int smp_copy_load(struct smp_copy *c, const char *path, struct sb_msg *m)
{
    memset(c, 0, sizeof *c);
    size_t len;
    char *text = sb_read_text(path, "model.smp", accepted, &len, m);
    if (!text) return SB_EUSAGE;
    c->text_hash = slot_hash((const unsigned char *)text, len);
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root) return bad_file(m, path, "not JSON");
    const cJSON *smp = cJSON_GetObjectItemCaseSensitive(root, "smpcost");
    const cJSON *workers = cJSON_GetObjectItemCaseSensitive(smp, "workers");
    const cJSON *f = best_good(smp);
    int rc = f && cJSON_IsNumber(workers) ? read_function(c, f, path, m)
                                          : bad_file(m, path, "no smpcost results in it");
    if (rc == SB_OK) {
        c->workers = workers->valueint > 0 ? workers->valueint : 1;
        snprintf(c->source, sizeof c->source, "%s", path);
        c->have = true;
    }
    cJSON_Delete(root);
    return rc;
}

double smp_copy_time(const struct smp_copy *c, double bytes)
{
    if (!c->have || bytes <= 0) return 0;
    double ints = bytes / (double)sizeof(int);
    struct smp_features f = smp_features_counts(ints, ints, 2.0 * ints * c->workers, c->split);
    const double *coef = c->sets && ints > (double)c->r0_max ? c->coef_r1 : c->coef;
    double t = smp_predict(c->function, coef, &f) - coef[0];
    return t > 0 ? t : 0;
}
