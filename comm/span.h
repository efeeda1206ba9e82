/* A byte buffer with room at both ends, in which the Shift variants gather
 * slots: blocks from the left are prepended, blocks from the right appended,
 * so the slots end in [dz][dy][dx] order without repacking.  Data lies in
 * [front, back). */
#ifndef SB_SPAN_H
#define SB_SPAN_H

#include <stddef.h>

struct span {
    unsigned char *base;
    size_t cap, front, back;
    unsigned oversized; /* restarts in a row that found the block far too large */
};

static inline size_t span_len(const struct span *s)
{
    return s->back - s->front;
}

/* Makes room for `before` bytes ahead of the data and `after` behind it,
 * moving the data when it must.  When `keep_old` is not NULL the old block
 * is not freed but returned there (NULL when nothing moved), so that sends
 * still in flight from it can finish; the caller frees it afterwards. */
void span_make_room(struct span *s, size_t before, size_t after, unsigned char **keep_old);

/* Empties the span, leaving `before` bytes of room ahead and `after` behind.
 * A block far larger than that is replaced by one of the right size only
 * after SPAN_SHRINK_AFTER such restarts in a row (span.c). */
enum { SPAN_SHRINK_AFTER = 64 };
void span_restart(struct span *s, size_t before, size_t after);

void span_free(struct span *s);

#endif
