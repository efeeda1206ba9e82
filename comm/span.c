#include "span.h"
#include "../src/error.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void span_make_room(struct span *s, size_t before, size_t after, unsigned char **keep_old)
{
    if (keep_old) *keep_old = NULL;
    size_t room_before = s->front, room_after = s->cap - s->back;
    if (room_before >= before && room_after >= after) return;
    size_t len = span_len(s);
    /* Grow geometrically, so that a buffer that keeps growing moves rarely. */
    if (room_before < before) room_before = before + before / 2 + len / 2;
    if (room_after < after) room_after = after + after / 2 + len / 2;
    size_t cap = room_before + len + room_after;
    unsigned char *base;
    if (keep_old) { /* sends may still read the old block: a new one beside it */
        base = sb_malloc(cap, "an exchange buffer");
        if (len) memcpy(base + room_before, s->base + s->front, len);
        *keep_old = s->base;
    } else { /* grown in place where the allocator can (a large block is remapped,
                not copied), so that old and new are not resident at once */
        base = sb_realloc(s->base, cap, "an exchange buffer");
        if (len) memmove(base + room_before, base + s->front, len);
    }
    s->base = base;
    s->cap = cap;
    s->front = room_before;
    s->back = room_before + len;
}

void span_restart(struct span *s, size_t before, size_t after)
{
    /* A block grown by span_make_room has its data moved about in it, and
     * pages once written stay resident: when it stays far larger than what
     * the span expects, a fresh block of the right size replaces it (its
     * pages resident only where the data goes).  Not at the first such
     * restart: where payloads of different sizes take turns (a sweep's
     * points), the large block would be freed and its pages faulted in
     * anew at every exchange -- on 2 ranks of the Zen 5 VM, 7.5 page faults
     * an exchange, and means of 28-46 us against medians of 0.7 at 10 B
     * (docs/results/span-shrink-ab.txt). */
    size_t need = before + after;
    bool too_large = s->base && s->cap > need + need / 2 + 4096;
    s->oversized = too_large ? s->oversized + 1 : 0;
    if (!s->base || s->cap < need || s->oversized > SPAN_SHRINK_AFTER) {
        size_t cap = need + need / 16 + 64; /* the slack: pages never written cost nothing */
        free(s->base);
        s->base = sb_malloc(cap, "an exchange buffer");
        s->cap = cap;
        s->oversized = 0;
    }
    /* the slack split between both ends: a little more than expected on
       either side fits without moving the data */
    s->front = s->back = before + (s->cap - need) / 2;
}

void span_free(struct span *s)
{
    free(s->base);
    s->base = NULL;
    s->cap = s->front = s->back = 0;
    s->oversized = 0;
}
