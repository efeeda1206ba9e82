#include "verify.h"
#include "../src/decomp.h"

#include <string.h>

/* The stream key of one box in one repetition of one payload kind. */
static uint64_t box_key(const struct pattern *p, long box_id, long rep)
{
    uint64_t kind = splitmix64((uint64_t)p->bytes * 2 + (p->varied ? 1 : 0));
    return splitmix64(splitmix64(p->seed ^ (uint64_t)box_id * 0xD1B54A32D192ED03ull ^ kind) +
                      (uint64_t)rep);
}

size_t payload_size(const struct pattern *p, long box_id, long rep)
{
    if (!p->varied) return p->bytes;
    uint64_t h = splitmix64(box_key(p, box_id, rep) ^ 0x5A17E5ull);
    if (h % 4 == 0) return 0;
    return (size_t)((h >> 2) % (2 * (uint64_t)p->bytes + 1));
}

/* Word w of a box's pattern: bytes 8w..8w+7, little end first. */
static inline uint64_t pattern_word(uint64_t key, size_t w)
{
    return splitmix64(key + (uint64_t)w * SPLITMIX_GAMMA);
}

void pattern_fill(const struct pattern *p, long box_id, long rep, unsigned char *buf, size_t n)
{
    uint64_t key = box_key(p, box_id, rep);
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = pattern_word(key, i / 8);
        size_t len = n - i < 8 ? n - i : 8;
        for (size_t b = 0; b < len; b++)
            buf[i + b] = (unsigned char)(w >> (8 * b));
    }
}

/* Compares one slot with its pattern; returns the number of wrong bytes and
 * fills *f for the first one. */
static long check_slot(const unsigned char *data, size_t n, uint64_t key, struct verify_fault *f)
{
    long wrong = 0;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = pattern_word(key, i / 8);
        size_t len = n - i < 8 ? n - i : 8;
        for (size_t b = 0; b < len; b++) {
            unsigned expected = (unsigned char)(w >> (8 * b));
            if (data[i + b] == expected) continue;
            if (wrong++ == 0) {
                f->byte = i + b;
                f->expected = expected;
                f->found = data[i + b];
            }
        }
    }
    return wrong;
}

long verify_slots(const struct slots *s, const struct pattern *p, const int dims[3],
                  const int coords[3], long rep, struct verify_fault *first)
{
    long wrong = 0;
    for (int i = 0; i < s->count; i++) {
        struct verify_fault f = {0};
        slot_offset(s, i, f.d);
        struct box_ref box = box_at(dims, coords, f.d);
        memcpy(f.box, box.coords, sizeof f.box);
        long box_id = box.rank; /* the box's global number, independent of the algorithm */
        f.expected_size = payload_size(p, box_id, rep);
        f.found_size = s->size[i];
        long bad;
        if (f.found_size != f.expected_size) {
            f.size_wrong = true;
            bad = 1;
        } else {
            bad = check_slot(s->data + s->offset[i], s->size[i], box_key(p, box_id, rep), &f);
        }
        if (bad && wrong == 0 && first) *first = f;
        wrong += bad;
    }
    return wrong;
}

uint64_t slot_hash(const unsigned char *data, size_t n)
{
    uint64_t h = splitmix64(n);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, data + i, sizeof w);
        h = splitmix64(h ^ w);
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, data + i, n - i);
        h = splitmix64(h ^ w ^ 0xFF00000000000000ull);
    }
    return h;
}

int inject_fault(struct slots *s)
{
    for (int i = s->count - 1; i >= 0; i--) {
        if (s->size[i] == 0) continue;
        s->data[s->offset[i] + s->size[i] / 2] ^= 0xFF;
        return i;
    }
    s->size[s->count - 1] += 1;
    return s->count - 1;
}
