#include "pattern.h"

#include "../splitmix.h"

#include <string.h>

const char *const smp_kind_names[NKINDS] = {"like-gather", "like-scatter", "vary"};

uint64_t smp_next(uint64_t *state)
{
    return splitmix_mix(*state += SPLITMIX_GAMMA);
}

long smp_below(uint64_t *state, long n)
{
    return n > 0 ? (long)(smp_next(state) % (uint64_t)n) : 0;
}

static void clear(struct superstep *s, int suite, enum smp_kind kind, int p, int x, long h)
{
    memset(s, 0, sizeof *s);
    s->suite = suite;
    s->kind = kind;
    s->p = p;
    s->x = x;
    s->h = h;
}

void superstep_suite1(enum smp_kind kind, int p, int x, long h, struct superstep *s)
{
    clear(s, 1, kind, p, x, h);
    long share = h * x / p;
    for (int i = 0; i < p; i++) {
        bool carries = i < x;
        switch (kind) {
        case LIKE_GATHER:
            s->hr[i] = carries ? h : 0;
            s->hw[i] = share;
            break;
        case LIKE_SCATTER:
            s->hr[i] = share;
            s->hw[i] = carries ? h : 0;
            break;
        default:
            s->hr[i] = s->hw[i] = carries ? h : 0;
            break;
        }
    }
}

static long max_of(const long *v, int n)
{
    long m = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > m) m = v[i];
    return m;
}

static long sum_of(const long *v, int n)
{
    long t = 0;
    for (int i = 0; i < n; i++)
        t += v[i];
    return t;
}

void superstep_suite2(const struct superstep *like, uint64_t *rng, struct superstep *s)
{
    clear(s, 2, like->kind, like->p, like->x, like->h);
    long rmax = max_of(like->hr, like->p), wmax = max_of(like->hw, like->p);
    for (int i = 0; i < s->p; i++) {
        s->hr[i] = smp_below(rng, rmax + 1);
        s->hw[i] = smp_below(rng, wmax + 1);
    }
    s->hr[smp_below(rng, s->p)] = rmax; /* "at least one holds with equality" */
    s->hw[smp_below(rng, s->p)] = wmax;
}

/* Splits total into p random parts, none above cap (total <= p * cap). */
static void random_split(long total, int p, long cap, uint64_t *rng, long *out)
{
    double w[SMP_MAX_WORKERS], sum = 0;
    for (int i = 0; i < p; i++)
        sum += w[i] = 1.0 + (double)smp_below(rng, 1000);
    long given = 0;
    for (int i = 0; i < p; i++) {
        out[i] = (long)((double)total * w[i] / sum);
        if (out[i] > cap) out[i] = cap;
        given += out[i];
    }
    /* hand out what rounding and the cap left, one worker at a time */
    for (int i = 0; given < total; i = (i + 1) % p) {
        long room = cap - out[i], add = total - given < room ? total - given : room;
        out[i] += add;
        given += add;
    }
}

void superstep_suite3(const struct superstep *like, long cap, uint64_t *rng, struct superstep *s)
{
    clear(s, 3, like->kind, like->p, like->x, like->h);
    random_split(sum_of(like->hr, like->p), s->p, cap, rng, s->hr);
    random_split(sum_of(like->hw, like->p), s->p, cap, rng, s->hw);
}

int suite_size(int p, int nh)
{
    return nh * (NKINDS * (p - 1) + 1);
}

int suite_build(int suite, int p, const long *hs, int nh, long cap, uint64_t seed,
                struct superstep *out, int max)
{
    uint64_t rng = seed ^ (0xC0FFEEull * (uint64_t)suite);
    int n = 0;
    for (int j = 0; j < nh; j++)
        for (int x = 1; x <= p; x++)
            for (int k = 0; k < NKINDS && n < max; k++) {
                if (x == p && k > 0) break; /* at x = p the three coincide */
                struct superstep like;
                superstep_suite1((enum smp_kind)k, p, x, hs[j], &like);
                if (suite == 1)
                    out[n] = like;
                else if (suite == 2)
                    superstep_suite2(&like, &rng, &out[n]);
                else
                    superstep_suite3(&like, cap, &rng, &out[n]);
                n++;
            }
    return n;
}

int smp_h_values(long cache_ints, int per_set, long *out)
{
    /* Seed 003: L2 = 2^19 integers; H0 reaches 0.095 of it, H1 0.95, H2
     * runs from 1.05 to 3.6 times it. */
    const double c = (double)cache_ints, l2 = 524288.0;
    int n = 0;
    for (int i = 1; i <= per_set; i++)
        out[n++] = (long)(c * 50000.0 / l2 * i / per_set);
    for (int i = 1; i <= per_set; i++)
        out[n++] = (long)(c * 500000.0 / l2 * i / per_set);
    for (int i = 0; i < per_set; i++)
        out[n++] = (long)(c * (550000.0 + 1350000.0 * i / (per_set > 1 ? per_set - 1 : 1)) / l2);
    for (int i = 0; i < n; i++)
        if (out[i] < 1) out[i] = 1;
    return n;
}

struct smp_features smp_features_counts(double hr, double hw, double M, long cache_ints)
{
    struct smp_features f;
    double c = (double)cache_ints;
    f.hr = hr;
    f.hw = hw;
    f.h = hr > hw ? hr : hw;
    f.M = M;
    f.hrc = hr < c ? hr : c;
    f.hrm = hr - f.hrc;
    f.hwc = hw < c ? hw : c;
    f.hwm = hw - f.hwc;
    return f;
}

struct smp_features smp_features_of(const struct superstep *s, long cache_ints)
{
    return smp_features_counts((double)max_of(s->hr, s->p), (double)max_of(s->hw, s->p),
                               (double)(sum_of(s->hr, s->p) + sum_of(s->hw, s->p)), cache_ints);
}
