/* The slot buffer an exchange delivers (DESIGN.md "The exchange interface").
 *
 * Slot (dx,dy,dz), |d| <= k per dimension, holds the payload of the box at
 * that offset; the box's own payload is the centre slot.  Slots are indexed
 * [dz+k][dy+k][dx+k], so the row of fixed (dy,dz) and the plane of fixed dz
 * are contiguous, which lets the Shift forward rows and planes unpacked.  A
 * dimension that is not exchanged has k = 0 there.
 *
 * When every box sends the same number of bytes m, slot i lies at i*m.  When
 * sizes differ, each slot is stored as a record: an 8-byte size, the
 * payload, and zero padding to a multiple of 8, so that a forwarded block of
 * records describes itself and payloads stay 8-byte aligned. */
#ifndef SB_SLOTS_H
#define SB_SLOTS_H

#include "../src/error.h"

#include <stddef.h>
#include <stdint.h>

#define SLOT_RECORD_HEADER 8

struct slots {
    int k[3];       /* reach per dimension */
    int ext[3];     /* 2k+1 per dimension */
    int count;      /* number of slots */
    size_t *size;   /* payload bytes of each slot */
    size_t *offset; /* where each payload starts in data */
    unsigned char *data;
};

void slots_init(struct slots *s, const int k[3]);
void slots_free(struct slots *s);

/* Index of slot (dx,dy,dz) in [dz+k][dy+k][dx+k] order. */
static inline int slot_index(const struct slots *s, int dx, int dy, int dz)
{
    return ((dz + s->k[2]) * s->ext[1] + (dy + s->k[1])) * s->ext[0] + (dx + s->k[0]);
}

/* The offset (dx,dy,dz) of slot `index`. */
void slot_offset(const struct slots *s, int index, int d[3]);

static inline int slot_centre(const struct slots *s)
{
    return slot_index(s, 0, 0, 0);
}

/* Bytes a record of an n-byte payload occupies. */
static inline size_t record_bytes(size_t n)
{
    return SLOT_RECORD_HEADER + ((n + 7) & ~(size_t)7);
}

/* Writes the record of payload[0..n) at dst (record_bytes(n) bytes). */
void record_write(unsigned char *dst, const unsigned char *payload, size_t n);

/* Points the slots at `count` payloads of m bytes each, packed from base. */
void slots_index_uniform(struct slots *s, unsigned char *base, size_t m);

/* Points the slots at the records in base[0..len).  Returns SB_EVERIFY with
 * a message when the records do not make exactly s->count slots. */
int slots_index_records(struct slots *s, unsigned char *base, size_t len, struct sb_msg *m);

#endif
