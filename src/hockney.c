#include "hockney.h"
#include "../comm/verify.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether every time in [first, last] is positive: relative residuals then. */
static bool all_positive(const struct hockney_point *p, int first, int last)
{
    for (int i = first; i <= last; i++)
        if (!(p[i].time > 0)) return false;
    return true;
}

double hockney_line(const struct hockney_point *p, int first, int last, double *a, double *b)
{
    /* minimise sum ((t - a - b m) / t)^2: weighted least squares, w = 1 / t^2
     * (w = 1 where some time is 0: a curve that costs nothing somewhere) */
    bool relative = all_positive(p, first, last);
    double sw = 0, sm = 0, st = 0, smm = 0, smt = 0, top = 0;
    for (int i = first; i <= last; i++) {
        double w = relative ? 1.0 / (p[i].time * p[i].time) : 1.0;
        sw += w;
        sm += w * p[i].bytes;
        st += w * p[i].time;
        smm += w * p[i].bytes * p[i].bytes;
        smt += w * p[i].bytes * p[i].time;
        if (p[i].time > top) top = p[i].time;
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
        double scale = relative ? p[i].time : top > 0 ? top : 1.0;
        double r = (p[i].time - *a - *b * p[i].bytes) / scale;
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

int hockney_curve_fit(struct hockney_curve *c, const char *what, struct sb_msg *m)
{
    int n = c->npoints;
    if (n < 2)
        return sb_fail(m, SB_EUSAGE, "a fit of the %s times needs 2 or more sizes, not %d", what,
                       n);
    for (int i = 1; i < n; i++)
        if (!(c->point[i].bytes > c->point[i - 1].bytes))
            return sb_fail(m, SB_EUSAGE, "%s sizes must rise: %g after %g", what, c->point[i].bytes,
                           c->point[i - 1].bytes);
    for (int i = 0; i < n; i++)
        if (!(c->point[i].time >= 0) || !isfinite(c->point[i].time) || !isfinite(c->point[i].bytes))
            return sb_fail(m, SB_EUSAGE,
                           "the %s time at %g bytes is %g; accepted: finite, 0 or more", what,
                           c->point[i].bytes, c->point[i].time);
    set_segment(&c->segment[0], c->point, 0, n - 1);
    c->nsegments = 1;
    /* Squared residuals summed over both sides of each split. */
    double whole = c->segment[0].rms * c->segment[0].rms * n, best = whole;
    int split = -1;
    for (int s = 1; s <= n - 3; s++) { /* points 0..s | s+1..n-1: 2 or more each side */
        double a, b;
        double left = hockney_line(c->point, 0, s, &a, &b);
        double right = hockney_line(c->point, s + 1, n - 1, &a, &b);
        double sum = left * left * (s + 1) + right * right * (n - s - 1);
        if (sum < best) {
            best = sum;
            split = s;
        }
    }
    /* A second line must be needed (one line misses by more than 1 % rms)
     * and must pay (a fourfold smaller residual). */
    if (split >= 1 && c->segment[0].rms > 0.01 && best * 4 < whole) {
        set_segment(&c->segment[0], c->point, 0, split);
        set_segment(&c->segment[1], c->point, split + 1, n - 1);
        c->nsegments = 2;
    }
    return SB_OK;
}

double hockney_curve_time(const struct hockney_curve *c, double m)
{
    for (int i = 0; i < c->npoints; i++)
        if (c->point[i].bytes == m) return c->point[i].time;
    const struct hockney_segment *s = &c->segment[0];
    /* Where between the two segments' sizes the protocol changes is not
     * measured: take the middle of the gap on a log scale (pingpong.bytes
     * can pin it down). */
    if (c->nsegments == 2 && m * m > c->segment[0].to * c->segment[1].from) s = &c->segment[1];
    double t = s->alpha + s->beta * m;
    return t > 0 ? t : 0.0;
}

const char *const hockney_more_names[HOCKNEY_MORE] = {"send", "duplex", "start", "round",
                                                      "gap",  "fan",    "copy"};

struct hockney_curve *hockney_more(const struct hockney *h, int i)
{
    const struct hockney_curve *more[HOCKNEY_MORE] = {&h->send, &h->duplex, &h->start, &h->round,
                                                      &h->gap,  &h->fan,    &h->copy};
    return (struct hockney_curve *)more[i];
}

int hockney_fit(struct hockney *h, struct sb_msg *m)
{
    for (int i = 0; i < h->oneway.npoints; i++)
        if (!(h->oneway.point[i].time > 0))
            return sb_fail(m, SB_EUSAGE, "the one-way time at %g bytes is not positive",
                           h->oneway.point[i].bytes);
    CHECK(hockney_curve_fit(&h->oneway, "one-way", m));
    for (int i = 0; i < HOCKNEY_MORE; i++) {
        struct hockney_curve *more = hockney_more(h, i);
        if (more->npoints > 0) CHECK(hockney_curve_fit(more, hockney_more_names[i], m));
    }
    const struct hockney_curve *c = &h->oneway;
    h->alpha = c->point[0].bytes == 0 ? c->point[0].time : c->segment[0].alpha;
    return SB_OK;
}

double hockney_time(const struct hockney *h, double m)
{
    return hockney_curve_time(&h->oneway, m);
}

/* The one-way beta at m: the time of the size less the time of nothing. */
static double oneway_bytes(const struct hockney *h, double m)
{
    const struct hockney_curve *c = &h->oneway;
    const struct hockney_segment *s = &c->segment[0];
    if (c->nsegments == 2 && m * m > c->segment[0].to * c->segment[1].from) s = &c->segment[1];
    return (s->beta > 0 ? s->beta : 0.0) * m;
}

double hockney_send(const struct hockney *h, double m)
{
    return h->send.npoints ? hockney_curve_time(&h->send, m) : hockney_time(h, m);
}

double hockney_duplex(const struct hockney *h, double m)
{
    return h->duplex.npoints ? hockney_curve_time(&h->duplex, m) : hockney_time(h, m);
}

double hockney_start(const struct hockney *h, double m)
{
    return h->start.npoints ? hockney_curve_time(&h->start, m) : hockney_duplex(h, m);
}

double hockney_round(const struct hockney *h, double m)
{
    return h->round.npoints ? hockney_curve_time(&h->round, m) : 2.0 * hockney_time(h, m);
}

double hockney_gap(const struct hockney *h, double m)
{
    return h->gap.npoints ? hockney_curve_time(&h->gap, m) : oneway_bytes(h, m);
}

double hockney_fan(const struct hockney *h, double m)
{
    if (h->fan.npoints) return hockney_curve_time(&h->fan, m);
    return h->gap.npoints ? hockney_curve_time(&h->gap, m) / 2 : oneway_bytes(h, m);
}

/* Copies cross cache levels as they grow (L1, L2, L3, memory), each with
 * its own rate, so that no line or two fit them (a decade's points miss a
 * single line by 50 %): between two measured sizes the time follows the
 * power law through both (a straight line on log-log axes; a straight line
 * where one of them is size or time 0), below the smallest size that
 * size's time, above the largest at the largest one's rate. */
double hockney_copy(const struct hockney *h, double m)
{
    const struct hockney_curve *c = &h->copy;
    if (c->npoints == 0) return 0.0;
    const struct hockney_point *p = c->point, *last = &p[c->npoints - 1];
    if (m >= last->bytes) return last->bytes > 0 ? last->time * m / last->bytes : last->time;
    int i = 0; /* sizes rise (hockney_curve_fit checks), 2 or more */
    while (p[i + 1].bytes < m)
        i++;
    const struct hockney_point *a = &p[i], *b = &p[i + 1]; /* a->bytes < m <= b->bytes */
    if (m <= a->bytes) return a->time;
    if (a->bytes > 0 && a->time > 0 && b->time > 0)
        return a->time * pow(m / a->bytes, log(b->time / a->time) / log(b->bytes / a->bytes));
    return a->time + (b->time - a->time) * (m - a->bytes) / (b->bytes - a->bytes);
}

static cJSON *curve_json(const struct hockney_curve *c, cJSON *o)
{
    cJSON *points = cJSON_AddArrayToObject(o, "per_size");
    for (int i = 0; i < c->npoints; i++) {
        cJSON *q = cJSON_CreateObject();
        cJSON_AddNumberToObject(q, "bytes", c->point[i].bytes);
        cJSON_AddNumberToObject(q, "time_s", c->point[i].time);
        cJSON_AddItemToArray(points, q);
    }
    cJSON *segs = cJSON_AddArrayToObject(o, "segments");
    for (int i = 0; i < c->nsegments; i++) {
        const struct hockney_segment *s = &c->segment[i];
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

cJSON *hockney_to_json(const struct hockney *h)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "alpha_s", h->alpha);
    cJSON_AddStringToObject(o, "statistic", h->statistic);
    cJSON_AddStringToObject(o, "mode", h->mode);
    curve_json(&h->oneway, o);
    /* seed 000 Table 1: beta per load, (t - alpha) / m */
    const struct hockney_curve *c = &h->oneway;
    cJSON *q;
    int i = 0;
    cJSON_ArrayForEach(q, cJSON_GetObjectItem(o, "per_size"))
    {
        const struct hockney_point *p = &c->point[i++];
        if (p->bytes > 0 && c->point[0].bytes == 0)
            cJSON_AddNumberToObject(q, "beta_s_per_byte", (p->time - h->alpha) / p->bytes);
    }
    for (int i = 0; i < HOCKNEY_MORE; i++) {
        const struct hockney_curve *more = hockney_more(h, i);
        if (!more->npoints) continue;
        cJSON *curve = cJSON_AddObjectToObject(o, hockney_more_names[i]);
        if (more == &h->gap) cJSON_AddNumberToObject(curve, "burst", h->burst);
        curve_json(more, curve);
    }
    return o;
}

/* per_size [{bytes, time_s}, ...] of o into c; false when malformed. */
static bool curve_load(struct hockney_curve *c, const cJSON *o)
{
    c->npoints = 0;
    const cJSON *points = cJSON_GetObjectItem(o, "per_size"), *p;
    if (!cJSON_IsArray(points)) return false;
    cJSON_ArrayForEach(p, points)
    {
        const cJSON *b = cJSON_GetObjectItem(p, "bytes"), *t = cJSON_GetObjectItem(p, "time_s");
        if (!cJSON_IsNumber(b) || !cJSON_IsNumber(t) || c->npoints == HOCKNEY_MAX_POINTS)
            return false;
        c->point[c->npoints++] = (struct hockney_point){b->valuedouble, t->valuedouble};
    }
    return true;
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
    h->text_hash = slot_hash((const unsigned char *)text, len);
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root) return sb_fail(m, SB_EUSAGE, "model.hockney = %s: not JSON", path);
    cJSON *o = cJSON_GetObjectItem(root, "hockney"); /* a summary.json holds it inside */
    if (!o) o = root;
    const cJSON *stat = cJSON_GetObjectItem(o, "statistic"), *mode = cJSON_GetObjectItem(o, "mode");
    snprintf(h->statistic, sizeof h->statistic, "%s",
             cJSON_IsString(stat) ? stat->valuestring : "?");
    snprintf(h->mode, sizeof h->mode, "%s", cJSON_IsString(mode) ? mode->valuestring : "?");
    bool ok = curve_load(&h->oneway, o) && h->oneway.npoints >= 2;
    for (int i = 0; i < HOCKNEY_MORE && ok; i++) {
        const cJSON *c = cJSON_GetObjectItem(o, hockney_more_names[i]);
        if (c) ok = curve_load(hockney_more(h, i), c) && hockney_more(h, i)->npoints >= 2;
    }
    const cJSON *env = cJSON_GetObjectItem(o, "environment"); /* hockney.json */
    if (!env) env = cJSON_GetObjectItem(root, "environment"); /* a summary.json */
    const cJSON *library = env ? cJSON_GetObjectItem(env, "mpi_library") : NULL;
    h->smpi = cJSON_IsString(library) && !strncmp(library->valuestring, "SMPI", 4);
    const cJSON *gap = cJSON_GetObjectItem(o, "gap");
    const cJSON *burst = gap ? cJSON_GetObjectItem(gap, "burst") : NULL;
    h->burst = cJSON_IsNumber(burst) ? burst->valueint : 0;
    cJSON_Delete(root);
    if (!ok)
        return sb_fail(m, SB_EUSAGE,
                       "model.hockney = %s: needs per_size [{bytes, time_s}, ...] at 2 or more "
                       "sizes, and the same in send, duplex, start, round, gap, fan and copy where "
                       "present (shiftbox pingpong --out DIR writes it)",
                       path);
    struct sb_msg why;
    if (hockney_fit(h, &why) != SB_OK)
        return sb_fail(m, SB_EUSAGE, "model.hockney = %s: %s", path, why.text);
    return SB_OK;
}
