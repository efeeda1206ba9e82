#include "hockney.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double hockney_line(const struct hockney_point *p, int first, int last, double *a, double *b)
{
    /* minimise sum ((t - a - b m) / t)^2: weighted least squares, w = 1 / t^2 */
    double sw = 0, sm = 0, st = 0, smm = 0, smt = 0;
    for (int i = first; i <= last; i++) {
        double w = 1.0 / (p[i].time * p[i].time);
        sw += w;
        sm += w * p[i].bytes;
        st += w * p[i].time;
        smm += w * p[i].bytes * p[i].bytes;
        smt += w * p[i].bytes * p[i].time;
    }
    double det = sw * smm - sm * sm;
    if (last == first || fabs(det) < 1e-300 * sw * smm) { /* one size: a line through it */
        *a = st / sw;
        *b = 0.0;
    } else {
        *b = (sw * smt - sm * st) / det;
        *a = (st - *b * sm) / sw;
    }
    double squares = 0;
    for (int i = first; i <= last; i++) {
        double r = (p[i].time - *a - *b * p[i].bytes) / p[i].time;
        squares += r * r;
    }
    return sqrt(squares / (last - first + 1));
}

static void set_segment(struct hockney_segment *s, const struct hockney_point *p, int first,
                        int last)
{
    s->rms = hockney_line(p, first, last, &s->alpha, &s->beta);
    s->from = p[first].bytes;
    s->to = p[last].bytes;
}

int hockney_fit(struct hockney *h, struct sb_msg *m)
{
    int n = h->npoints;
    if (n < 2)
        return sb_fail(m, SB_EUSAGE, "a Hockney fit needs times at 2 or more sizes, not %d", n);
    for (int i = 1; i < n; i++)
        if (!(h->point[i].bytes > h->point[i - 1].bytes))
            return sb_fail(m, SB_EUSAGE, "Hockney sizes must rise: %g after %g", h->point[i].bytes,
                           h->point[i - 1].bytes);
    for (int i = 0; i < n; i++)
        if (!(h->point[i].time > 0))
            return sb_fail(m, SB_EUSAGE, "the time at %g bytes is not positive", h->point[i].bytes);
    set_segment(&h->segment[0], h->point, 0, n - 1);
    h->nsegments = 1;
    /* Squared relative residuals summed over both sides of each split. */
    double whole = h->segment[0].rms * h->segment[0].rms * n, best = whole;
    int split = -1;
    for (int s = 1; s <= n - 3; s++) { /* points 0..s | s+1..n-1: 2 or more each side */
        double a, b;
        double left = hockney_line(h->point, 0, s, &a, &b);
        double right = hockney_line(h->point, s + 1, n - 1, &a, &b);
        double sum = left * left * (s + 1) + right * right * (n - s - 1);
        if (sum < best) {
            best = sum;
            split = s;
        }
    }
    /* A second line must be needed (one line misses by more than 1 % rms)
     * and must pay (a fourfold smaller residual). */
    if (split >= 1 && h->segment[0].rms > 0.01 && best * 4 < whole) {
        set_segment(&h->segment[0], h->point, 0, split);
        set_segment(&h->segment[1], h->point, split + 1, n - 1);
        h->nsegments = 2;
    }
    h->alpha = h->point[0].bytes == 0 ? h->point[0].time : h->segment[0].alpha;
    return SB_OK;
}

double hockney_time(const struct hockney *h, double m)
{
    for (int i = 0; i < h->npoints; i++)
        if (h->point[i].bytes == m) return h->point[i].time;
    const struct hockney_segment *s = &h->segment[0];
    /* Where between the two segments' sizes the protocol changes is not
     * measured: take the middle of the gap on a log scale (pingpong.bytes
     * can pin it down). */
    if (h->nsegments == 2 && m * m > h->segment[0].to * h->segment[1].from) s = &h->segment[1];
    return s->alpha + s->beta * m;
}

cJSON *hockney_to_json(const struct hockney *h)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "alpha_s", h->alpha);
    cJSON_AddStringToObject(o, "statistic", h->statistic);
    cJSON_AddStringToObject(o, "mode", h->mode);
    cJSON *points = cJSON_AddArrayToObject(o, "per_size");
    for (int i = 0; i < h->npoints; i++) {
        const struct hockney_point *p = &h->point[i];
        cJSON *q = cJSON_CreateObject();
        cJSON_AddNumberToObject(q, "bytes", p->bytes);
        cJSON_AddNumberToObject(q, "time_s", p->time);
        /* seed 000 Table 1: beta per load, (t - alpha) / m */
        if (p->bytes > 0 && h->point[0].bytes == 0)
            cJSON_AddNumberToObject(q, "beta_s_per_byte", (p->time - h->alpha) / p->bytes);
        cJSON_AddItemToArray(points, q);
    }
    cJSON *segs = cJSON_AddArrayToObject(o, "segments");
    for (int i = 0; i < h->nsegments; i++) {
        const struct hockney_segment *s = &h->segment[i];
        cJSON *q = cJSON_CreateObject();
        cJSON_AddNumberToObject(q, "from_bytes", s->from);
        cJSON_AddNumberToObject(q, "to_bytes", s->to);
        cJSON_AddNumberToObject(q, "alpha_s", s->alpha);
        cJSON_AddNumberToObject(q, "beta_s_per_byte", s->beta);
        cJSON_AddNumberToObject(q, "relative_rms", s->rms);
        cJSON_AddItemToArray(segs, q);
    }
    return o;
}

int hockney_load(struct hockney *h, const char *path, struct sb_msg *m)
{
    memset(h, 0, sizeof *h);
    snprintf(h->source, sizeof h->source, "%s", path);
    char label[sizeof h->source + 32];
    snprintf(label, sizeof label, "model.hockney = %s", path);
    size_t len;
    char *text =
        sb_read_text(path, label, "a hockney.json written by shiftbox pingpong --out DIR", &len, m);
    if (!text) return SB_EUSAGE;
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root) return sb_fail(m, SB_EUSAGE, "model.hockney = %s: not JSON", path);
    cJSON *o = cJSON_GetObjectItem(root, "hockney"); /* a summary.json holds it inside */
    if (!o) o = root;
    const cJSON *points = cJSON_GetObjectItem(o, "per_size");
    const cJSON *stat = cJSON_GetObjectItem(o, "statistic"), *mode = cJSON_GetObjectItem(o, "mode");
    snprintf(h->statistic, sizeof h->statistic, "%s",
             cJSON_IsString(stat) ? stat->valuestring : "?");
    snprintf(h->mode, sizeof h->mode, "%s", cJSON_IsString(mode) ? mode->valuestring : "?");
    const cJSON *p;
    cJSON_ArrayForEach(p, points)
    {
        const cJSON *b = cJSON_GetObjectItem(p, "bytes"), *t = cJSON_GetObjectItem(p, "time_s");
        if (!cJSON_IsNumber(b) || !cJSON_IsNumber(t) || h->npoints == HOCKNEY_MAX_POINTS) break;
        h->point[h->npoints++] = (struct hockney_point){b->valuedouble, t->valuedouble};
    }
    cJSON_Delete(root);
    if (h->npoints < 2)
        return sb_fail(m, SB_EUSAGE,
                       "model.hockney = %s: needs per_size [{bytes, time_s}, ...] at 2 or more "
                       "sizes (shiftbox pingpong --out DIR writes it)",
                       path);
    struct sb_msg why;
    if (hockney_fit(h, &why) != SB_OK)
        return sb_fail(m, SB_EUSAGE, "model.hockney = %s: %s", path, why.text);
    return SB_OK;
}
