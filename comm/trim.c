#include "trim.h"
#include "slots.h"

#include <stdlib.h>
#include <string.h>

struct trim_need trim_need_of(int first, int step, int last)
{
    struct trim_need n = {.all = false, .below = 0, .above = 0};
    for (int o = first; o <= last; o += step) {
        if (o == 0)
            n.all = true;
        else if (o < 0 && (n.below == 0 || -o < n.below))
            n.below = -o;
        else if (o > 0 && (n.above == 0 || o < n.above))
            n.above = o;
    }
    return n;
}

bool trim_keeps(struct trim_need need, double pos, double edge, double reach)
{
    if (need.all) return true;
    if (need.below && pos >= need.below * edge - reach) return true;
    if (need.above && pos <= reach - (need.above - 1) * edge) return true;
    return false;
}

void trim_choice_free(struct trim_choice *c)
{
    free(c->kept);
    free(c->items);
    free(c->chosen);
    memset(c, 0, sizeof *c);
}

static bool keeps_all_axes(const struct exchange_trim *t, const unsigned char *item,
                           const struct trim_need need[3])
{
    double pos[3];
    memcpy(pos, item, sizeof pos);
    for (int a = 0; a < 3; a++)
        if (!trim_keeps(need[a], pos[a], t->edge[a], t->reach)) return false;
    return true;
}

static void grow_records(struct trim_choice *c, int n)
{
    if (n <= c->cap_records) return;
    c->cap_records = n + n / 2 + 4;
    c->items = sb_realloc(c->items, (size_t)c->cap_records * sizeof *c->items, "trim records");
    c->chosen = sb_realloc(c->chosen, (size_t)c->cap_records * sizeof *c->chosen, "trim records");
}

static void push_kept(struct trim_choice *c, uint32_t index)
{
    if (c->nkept == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->kept = sb_realloc(c->kept, c->cap * sizeof *c->kept, "trim choice");
    }
    c->kept[c->nkept++] = index;
}

/* Copies the items of src listed in idx[0..n) (increasing) to dst in that
 * order, each run of consecutive indices in one memmove: a slab's items lie
 * mostly side by side, and a whole record (the own block, o = 0) is one
 * run, where an item at a time was a call per 24 bytes.  dst may be src or
 * lie before it (a block trimmed in place): each run lands at or before
 * where it was read, never on items still to be read. */
static void copy_runs(const uint32_t *idx, size_t n, size_t item, const unsigned char *src,
                      unsigned char *dst)
{
    for (size_t out = 0, run; out < n; out += run) {
        for (run = 1; out + run < n && idx[out + run] == idx[out] + run; run++)
            ;
        memmove(dst + out * item, src + (size_t)idx[out] * item, run * item);
    }
}

/* Chooses or replays the kept items of record r (n items at src) and copies
 * them to dst; returns how many, or -1 when a replay does not fit. */
static long trim_one(const struct exchange_trim *t, struct trim_choice *c, bool reselect, int r,
                     size_t *cursor, const unsigned char *src, size_t n,
                     const struct trim_need need[3], unsigned char *dst)
{
    if (reselect) {
        c->items[r] = (uint32_t)n;
        size_t first = c->nkept;
        for (size_t i = 0; i < n; i++)
            if (keeps_all_axes(t, src + i * t->item, need)) push_kept(c, (uint32_t)i);
        c->chosen[r] = (uint32_t)(c->nkept - first);
    } else if (r >= c->nrecords || c->items[r] != n) {
        return -1;
    }
    size_t out = c->chosen[r];
    if (out) copy_runs(c->kept + *cursor, out, t->item, src, dst); /* kept may be NULL */
    *cursor += out;
    return (long)out;
}

int trim_items(const struct exchange_trim *t, struct trim_choice *c, bool reselect,
               const unsigned char *items, size_t n, const struct trim_need need[3],
               unsigned char *dst, size_t *kept, struct sb_msg *m)
{
    if (reselect) {
        c->nkept = 0;
        grow_records(c, 1);
        c->nrecords = 1;
    }
    size_t cursor = 0;
    long got = trim_one(t, c, reselect, 0, &cursor, items, n, need, dst);
    if (got < 0)
        return sb_fail(m, SB_EVERIFY, "trim: %zu items arrived where %u were chosen from", n,
                       c->nrecords ? c->items[0] : 0);
    *kept = (size_t)got;
    return SB_OK;
}

int trim_records(const struct exchange_trim *t, struct trim_choice *c, bool reselect,
                 const unsigned char *block, size_t len, int nrecords,
                 const struct trim_need need[3], unsigned char *dst, size_t *written,
                 struct sb_msg *m)
{
    if (reselect) {
        c->nkept = 0;
        grow_records(c, nrecords);
        c->nrecords = nrecords;
    } else if (nrecords != c->nrecords) {
        return sb_fail(m, SB_EVERIFY, "trim: a block of %d records where %d were chosen from",
                       nrecords, c->nrecords);
    }
    size_t at = 0, out = 0, cursor = 0;
    for (int r = 0; r < nrecords; r++) {
        uint64_t bytes;
        if (len - at < SLOT_RECORD_HEADER)
            return sb_fail(m, SB_EVERIFY, "trim: the block ends inside record %d", r);
        memcpy(&bytes, block + at, sizeof bytes);
        if (bytes % t->item || bytes > len - at - SLOT_RECORD_HEADER)
            return sb_fail(m, SB_EVERIFY, "trim: record %d of %llu bytes is not whole items", r,
                           (unsigned long long)bytes);
        long got = trim_one(t, c, reselect, r, &cursor, block + at + SLOT_RECORD_HEADER,
                            bytes / t->item, need, dst + out + SLOT_RECORD_HEADER);
        if (got < 0)
            return sb_fail(m, SB_EVERIFY, "trim: record %d has %llu items, %u when chosen", r,
                           (unsigned long long)(bytes / t->item), c->items[r]);
        uint64_t kept_bytes = (uint64_t)got * t->item;
        memcpy(dst + out, &kept_bytes, sizeof kept_bytes);
        /* records stay 8-byte aligned: items of whole doubles need no padding */
        out += SLOT_RECORD_HEADER + kept_bytes;
        at += record_bytes(bytes);
    }
    *written = out;
    return SB_OK;
}
