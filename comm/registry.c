/* The exchange modules ShiftBox knows, by name. */
#include "exchange.h"

#include <string.h>

extern const exchange_ops shift_ops, shift_isend_ops, teamshift_ops, direct_ops;

const exchange_ops *const exchange_modules[] = {
    &shift_ops, &shift_isend_ops, &teamshift_ops, &direct_ops, NULL,
};

const exchange_ops *exchange_lookup(const char *name)
{
    for (int i = 0; exchange_modules[i]; i++)
        if (!strcmp(exchange_modules[i]->name, name)) return exchange_modules[i];
    return NULL;
}
