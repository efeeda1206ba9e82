/* Trimming payloads in transit: what LAMMPS's multi-hop exchange does, for
 * any module (md.ghost_filter=slab).
 *
 * A trimmed payload is an array of items of `item` bytes, each starting with
 * three doubles: the item's position relative to the lower corner of the
 * box it belongs to.  A box whose slot for that box is o along an axis
 * (o boxes away) needs only the items within `reach` of itself along that
 * axis: for o > 0 those with pos <= reach - (o-1) edge, for o < 0 those with
 * pos >= |o| edge - reach, for o = 0 all.  A block on its way to several
 * boxes keeps what the nearest of them on each side needs; what finally
 * lands in slot d is the items needed along each of the three axes, in
 * their original order, whichever module carried them.
 *
 * Selections are made at rebuild steps (reselect) and replayed on the steps
 * in between, so that the same items travel and the receivers' indices stay
 * valid while the items move (LAMMPS's send lists). */
#ifndef SB_TRIM_H
#define SB_TRIM_H

#include "../src/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct exchange_trim {
    size_t item;    /* bytes per item, at least 3 doubles */
    double edge[3]; /* box edges */
    double reach;   /* cut-off + skin */
};

/* What the receivers still to come need along one axis: everything, or the
 * items near the face toward the nearest receiver on each side (0: none
 * on that side). */
struct trim_need {
    bool all;
    int below; /* nearest receiver with o < 0, as |o| */
    int above; /* nearest receiver with o > 0 */
};

/* The receivers at offsets first, first + step, ... <= last (step > 0). */
struct trim_need trim_need_of(int first, int step, int last);

static inline struct trim_need trim_need_one(int o)
{
    return trim_need_of(o, 1, o);
}

static inline struct trim_need trim_need_all(void)
{
    return (struct trim_need){.all = true, .below = 0, .above = 0};
}

/* Whether an item at pos (along the axis, box edge `edge`) is needed. */
bool trim_keeps(struct trim_need need, double pos, double edge, double reach);

/* The items chosen from one block at the last rebuild. */
struct trim_choice {
    uint32_t *kept; /* indices of kept items, record after record */
    size_t nkept, cap;
    uint32_t *items;  /* items per record when chosen */
    uint32_t *chosen; /* kept items per record */
    int nrecords, cap_records;
};

void trim_choice_free(struct trim_choice *c);

/* Copies the needed items of a block of `nrecords` slot records (slots.h)
 * to dst as records (dst may be the block itself: trimmed in place);
 * need[3] per axis.  With `reselect` the choice is made
 * anew, otherwise the last choice is replayed.  *written receives the bytes
 * written (never more than len).  SB_EVERIFY with a message when the block
 * does not match the last choice (a protocol error). */
int trim_records(const struct exchange_trim *t, struct trim_choice *c, bool reselect,
                 const unsigned char *block, size_t len, int nrecords,
                 const struct trim_need need[3], unsigned char *dst, size_t *written,
                 struct sb_msg *m);

/* The same for a bare item array of n items (one slot, no record header);
 * *kept receives the number of items written. */
int trim_items(const struct exchange_trim *t, struct trim_choice *c, bool reselect,
               const unsigned char *items, size_t n, const struct trim_need need[3],
               unsigned char *dst, size_t *kept, struct sb_msg *m);

#endif
