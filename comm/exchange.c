#include "exchange.h"

#include <string.h>

unsigned phases_parse(const char *text)
{
    static const char axes[] = "xyz";
    unsigned bits = 0;
    int last = -1;
    for (const char *p = text; *p; p++) {
        const char *at = strchr(axes, *p);
        if (!at || *p == '\0') return 0;
        int d = (int)(at - axes);
        if (d <= last) /* phases run in the order x, y, z, each once */
            return 0;
        last = d;
        bits |= 1u << d;
    }
    return bits;
}

int exchange_tag_base(const exchange_ops *ops)
{
    int index = 0;
    const exchange_ops *const *lists[] = {exchange_modules, exchange_baselines};
    for (int l = 0; l < 2; l++)
        for (int i = 0; lists[l][i]; i++, index++)
            if (lists[l][i] == ops) return (index + 1) * EXCHANGE_TAG_SPAN;
    return -1;
}

int exchange_create(struct exchange *x, const char *name, const struct topology *t,
                    const struct exchange_opts *o, struct sb_msg *m)
{
    memset(x, 0, sizeof *x);
    x->ops = exchange_lookup(name);
    if (!x->ops) {
        char known[256] = "";
        for (int i = 0; exchange_modules[i]; i++) {
            strncat(known, i ? "|" : "", sizeof known - strlen(known) - 1);
            strncat(known, exchange_modules[i]->name, sizeof known - strlen(known) - 1);
        }
        return sb_fail(m, SB_EUSAGE, "exchange.module = '%s': accepted: %s", name, known);
    }
    if (o->k < 1 || o->k > EXCHANGE_MAX_K || o->phases == 0 || o->phases > 7)
        return sb_fail(m, SB_EUSAGE, "exchange: k = %d or phases %u out of range", o->k, o->phases);
    if (o->trim && (o->uniform || o->trim->item < 3 * sizeof(double) || o->trim->item % 8))
        return sb_fail(m, SB_EUSAGE,
                       "exchange: trimming needs varied payloads of items of whole doubles "
                       "starting with a position (item %zu bytes)",
                       o->trim->item);
    x->topo = t;
    x->opts = *o;
    x->tag_base = exchange_tag_base(x->ops);
    for (int d = 0; d < 3; d++)
        x->kdim[d] = (o->phases & (1u << d)) ? o->k : 0;
    x->reselect = true;
    x->idle = !x->ops->teams && t->leaders == MPI_COMM_NULL;
    x->delivers = !x->idle;
    if (x->idle) return SB_OK;
    return x->ops->setup(x);
}

int exchange_run(struct exchange *x, const struct payload *own, struct slots *out)
{
    x->last.messages = 0;
    x->last.bytes = 0;
    x->last.buffer_bytes = 0;
    if (x->idle) return SB_OK;
    return x->ops->run(x, own, out);
}

void exchange_destroy(struct exchange *x)
{
    if (x->ops && x->ops->destroy && !x->idle) x->ops->destroy(x);
    x->ops = NULL;
    x->state = NULL;
}
