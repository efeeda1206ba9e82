/* Verification of exchanged slots (DESIGN.md "Verification").
 *
 * Each box fills its payload with a pattern that depends only on the box's
 * global coordinates, the byte index, the repetition and the seed (a
 * splitmix64 stream), so any rank can say what any slot must hold without
 * asking the exchange.  After an exchange every byte of every slot is
 * compared with the pattern of the box that belongs there, found from the
 * rank grid alone. */
#ifndef SB_VERIFY_H
#define SB_VERIFY_H

#include "slots.h"
#include "../src/splitmix.h"

#include <stdbool.h>
#include <stdint.h>

struct pattern {
    uint64_t seed;
    size_t bytes; /* uniform: every payload's size; varied: half the largest size */
    bool varied;  /* sizes differ per box and repetition, about one box in four is empty */
};

/* Bytes box `box_id` sends in repetition `rep`. */
size_t payload_size(const struct pattern *p, long box_id, long rep);

/* Fills buf[0..n) with the pattern of box `box_id` in repetition `rep`. */
void pattern_fill(const struct pattern *p, long box_id, long rep, unsigned char *buf, size_t n);

/* The first wrong thing found in a slot buffer. */
struct verify_fault {
    int d[3];   /* slot offset */
    int box[3]; /* coordinates of the box that belongs there */
    bool size_wrong;
    size_t expected_size, found_size;
    size_t byte; /* index of the first wrong byte */
    unsigned expected, found;
};

/* Checks every slot of s, which rank `coords` of a grid of `dims` received in
 * repetition `rep`.  Returns the number of wrong bytes (a wrong size counts
 * once); *first describes the first of them. */
long verify_slots(const struct slots *s, const struct pattern *p, const int dims[3],
                  const int coords[3], long rep, struct verify_fault *first);

/* A 64-bit hash of one slot: its size and every byte. */
uint64_t slot_hash(const unsigned char *data, size_t n);

/* Folds a hash into a running digest (order matters). */
static inline uint64_t hash_fold(uint64_t digest, uint64_t h)
{
    return splitmix64(digest ^ h);
}

/* Flips one byte of the last non-empty slot (or, when every slot is empty,
 * corrupts the size of the last one), so that a test can see it caught.
 * Returns the slot index it changed. */
int inject_fault(struct slots *s);

#endif
