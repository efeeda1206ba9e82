#include "locality.h"

#include "pattern.h"

#include <stdlib.h>

const char *const smp_pattern_names[NPATTERNS] = {"shift-slots", "md-binning", "stencil-pack"};

enum { BIN_SLOTS = 8, FACE_DEPTH = 4, ROW_INTS = 1024 };

long smp_pattern_count(enum smp_pattern pat, long region, long want)
{
    long room = region / 2; /* reads from the first half, writes to the second */
    if (pat == PAT_STENCIL_PACK) room = room / ROW_INTS * FACE_DEPTH;
    if (pat == PAT_MD_BINNING) room = room / 2 - BIN_SLOTS; /* bins half full */
    return want < room ? want : room;
}

void smp_pattern_indices(enum smp_pattern pat, int i, int p, long region, long count, size_t *reads,
                         size_t *writes)
{
    size_t mine = (size_t)i * (size_t)region, out = mine + (size_t)(region / 2);
    size_t neighbour = (size_t)((i + 1) % p) * (size_t)region;
    uint64_t rng = 0x5EED0000ull + (uint64_t)i;
    long bins = count * 2 / BIN_SLOTS + 1;
    unsigned char *fill = pat == PAT_MD_BINNING ? calloc((size_t)bins, 1) : NULL;
    for (long k = 0; k < count; k++) {
        switch (pat) {
        case PAT_SHIFT_SLOTS:
            reads[k] = neighbour + (size_t)k;
            writes[k] = out + (size_t)k;
            break;
        case PAT_MD_BINNING: {
            reads[k] = mine + (size_t)k;
            long b = smp_below(&rng, bins);
            while (fill[b] == BIN_SLOTS) /* full: the next cell with room */
                b = (b + 1) % bins;
            writes[k] = out + (size_t)(b * BIN_SLOTS + fill[b]++);
            break;
        }
        default:
            reads[k] = mine + (size_t)(k / FACE_DEPTH) * ROW_INTS + (size_t)(k % FACE_DEPTH);
            writes[k] = out + (size_t)k;
            break;
        }
    }
    free(fill);
}
