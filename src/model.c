#include "model.h"
#include "../comm/exchange.h"

#include <string.h>

double model_block_bytes(const struct model_case *c, int d)
{
    double m = c->bytes;
    for (int a = 0; a < d; a++)
        if (c->phases & (1u << a)) m *= 2 * c->k + 1;
    return m;
}

void model_add(struct model_terms *t, const struct hockney *h, double count, double bytes)
{
    t->time += count * hockney_time(h, bytes);
    t->messages += count;
    t->bytes += count * bytes;
}

void model_copy(struct model_terms *t, const struct hockney *h, double count, double bytes)
{
    /* model.smp: the copy as a superstep of seed 003's good family */
    if (h->copy.have) {
        t->time += count * smp_copy_time(&h->copy, bytes);
        return;
    }
    /* the segment's beta: the time of the size less the time of nothing */
    const struct hockney_segment *s = &h->segment[0];
    if (h->nsegments == 2 && bytes * bytes > h->segment[0].to * h->segment[1].from)
        s = &h->segment[1];
    t->time += count * (s->beta > 0 ? s->beta : 0.0) * bytes;
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
    ops->model(h, c, out);
    return SB_OK;
}
