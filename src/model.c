#include "model.h"
#include "../comm/exchange.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double model_block_bytes(const struct model_case *c, int d)
{
    double m = c->bytes;
    for (int a = 0; a < d; a++)
        if (c->phases & (1u << a)) m *= 2 * c->k + 1;
    return m;
}

static void count_messages(struct model_terms *t, double n, double bytes)
{
    t->messages += n;
    t->bytes += n * bytes;
}

void model_message(struct model_terms *t, const struct hockney *h, double count, double bytes)
{
    t->time += count * hockney_time(h, bytes);
    count_messages(t, count, bytes);
}

void model_lockstep(struct model_terms *t, const struct hockney *h, double count, double bytes)
{
    /* Each pattern carries a cost the other misses: x(m)'s chain forwards
     * the buffer it received (this VM, 2 ranks: 4.26 against x0's 3.12 us
     * at 10 kB, the chain's buffers leaving the cache), x0(m)'s two
     * messages start together and share the ports from the first byte
     * (SimGrid's torus: 4.43 against x's 3.61 us at 100 B, where
     * pingpong's hand-shake staggers x's ranks; docs/MODEL.md). */
    double x = hockney_duplex(h, bytes), x0 = hockney_start(h, bytes);
    t->time += count * (x > x0 ? x : x0);
    count_messages(t, count, bytes);
}

/* n messages each way in flight at once, the first costing `first`. */
static void in_flight(struct model_terms *t, const struct hockney *h, double first, double n,
                      double bytes)
{
    if (n <= 0) return;
    t->time += first + (n - 1) * hockney_gap(h, bytes);
    count_messages(t, n, bytes);
}

void model_burst(struct model_terms *t, const struct hockney *h, double n, double bytes)
{
    in_flight(t, h, hockney_duplex(h, bytes), n, bytes);
}

void model_start(struct model_terms *t, const struct hockney *h, double n, double bytes)
{
    in_flight(t, h, hockney_start(h, bytes), n, bytes);
}

void model_pass(struct model_terms *t, const struct hockney *h, double bytes, bool payload)
{
    if (payload)
        model_start(t, h, 1.0, bytes);
    else
        model_lockstep(t, h, 1.0, bytes);
}

double model_copy_time(const struct hockney *h, double count, double bytes)
{
    if (count <= 0) return 0.0;
    /* model.smp: the copy as a superstep of seed 003's good family */
    if (h->smp.have) return count * smp_copy_time(&h->smp, bytes);
    double each = count * hockney_copy(h, bytes), all = hockney_copy(h, count * bytes);
    return each > all ? each : all;
}

void model_copy(struct model_terms *t, const struct hockney *h, double count, double bytes)
{
    if (count <= 0) return;
    t->copies_each += model_copy_time(h, count, bytes);
    t->copies_bytes += count * bytes;
}

double model_copies_time(const struct hockney *h, const struct model_terms *t)
{
    if (h->smp.have || t->copies_bytes <= 0) return t->copies_each;
    double all = hockney_copy(h, t->copies_bytes);
    return t->copies_each > all ? t->copies_each : all;
}

double model_shift_1d(const struct hockney *h, int k, double m, bool rendezvous)
{
    return (rendezvous ? 2.0 : 1.0) * 2.0 * k * hockney_time(h, m);
}

int model_predict(const struct hockney *h, const struct model_case *c, struct model_terms *out,
                  struct sb_msg *m)
{
    memset(out, 0, sizeof *out);
    const exchange_ops *ops = exchange_lookup(c->module);
    if (!ops || !ops->model)
        return sb_fail(m, SB_EUSAGE, "no cost model for module '%s'", c->module);
    CHECK(model_torus_fits(h, (long long)c->dims[0] * c->dims[1] * c->dims[2] * c->team_size, m));
    ops->model(h, c, out);
    out->time += model_copies_time(h, out);
    return SB_OK;
}

int model_choose(const struct hockney *h, const struct model_case *c, double margin,
                 bool teams_only, const struct exchange_ops **chosen, char *line, size_t len,
                 struct sb_msg *m)
{
    const exchange_ops *best = NULL;
    double best_score = INFINITY;
    size_t at = 0;
    for (int i = 0; exchange_modules[i]; i++) {
        const exchange_ops *ops = exchange_modules[i];
        if (teams_only && !ops->teams) continue;
        struct model_case mc = *c;
        mc.module = ops->name;
        struct model_terms t;
        CHECK(model_predict(h, &mc, &t, m));
        /* Team Shift's model is the least sure (its collectives, docs/MODEL.md) */
        double score = ops->teams ? t.time * (1.0 + margin) : t.time;
        if (at < len)
            at += (size_t)snprintf(line + at, len - at, " %s %.3f us,", ops->name, t.time * 1e6);
        /* Equal predictions (the same messages and copies, as direct's and
         * shift-isend's on a ring of two, summed in another order) go to
         * direct, whose messages are one step rather than a chain's. */
        bool tie = best && fabs(score - best_score) <= 1e-9 * best_score;
        if (tie ? !strcmp(ops->name, "direct") : score < best_score) {
            best_score = score;
            best = ops;
        }
    }
    if (!best) return sb_fail(m, SB_EUSAGE, "exchange.module = auto: no module to choose from");
    *chosen = best;
    return SB_OK;
}
