/* The exchange modules ShiftBox knows, by name, and the hand-written
 * baselines they are measured against (comm/baseline.c). */
#include "exchange.h"

#include <string.h>

extern const exchange_ops shift_ops, shift_isend_ops, teamshift_ops, direct_ops;
extern const exchange_ops baseline_p2p_ops, baseline_neighbor_ops, baseline_staged_ops,
    baseline_ssend_ops;

const exchange_ops *const exchange_modules[] = {
    &shift_ops, &shift_isend_ops, &teamshift_ops, &direct_ops, NULL,
};

const exchange_ops *const exchange_baselines[] = {
    &baseline_p2p_ops, &baseline_neighbor_ops, &baseline_staged_ops, &baseline_ssend_ops, NULL,
};

const exchange_ops *exchange_lookup(const char *name)
{
    for (int i = 0; exchange_modules[i]; i++)
        if (!strcmp(exchange_modules[i]->name, name)) return exchange_modules[i];
    for (int i = 0; exchange_baselines[i]; i++)
        if (!strcmp(exchange_baselines[i]->name, name)) return exchange_baselines[i];
    return NULL;
}
