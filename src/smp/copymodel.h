/* The copy cost of an exchange from `shiftbox smpcost` (model.smp): the
 * good family's best function, charged for every copy a module makes
 * inside a rank (model_copy in src/model.c: a ring of one, a partner that
 * is the box itself, Team Shift's repacking).  The Shift receives each
 * block in place and sends from where it lies, so it makes no other copy
 * than the transport's, which the Hockney beta already holds. */
#ifndef SB_SMP_COPYMODEL_H
#define SB_SMP_COPYMODEL_H

#include "../error.h"
#include "fit.h"

#include <stdbool.h>
#include <stdint.h>

struct smp_copy {
    bool have;
    enum smp_function function;
    double coef[SMP_MAX_TERMS];
    double coef_r1[SMP_MAX_TERMS]; /* smp.fit = paper: R1's (h > r0_max), coef being R0's */
    bool sets;
    long r0_max; /* the R0/R1 boundary when sets */
    long split;  /* HrHwM-c's cache split */
    int workers;
    char source[256];
    uint64_t text_hash; /* of the file's bytes as read (model_load_hockney) */
};

/* Reads the summary.json of `shiftbox smpcost --out DIR`.  SB_EUSAGE naming
 * model.smp and the problem when it is not usable. */
int smp_copy_load(struct smp_copy *c, const char *path, struct sb_msg *m);

/* Seconds to copy `bytes` inside a rank: reads and writes of bytes / 4
 * integers, every worker alike, the superstep's constant (its barriers)
 * left out. */
double smp_copy_time(const struct smp_copy *c, double bytes);

#endif
