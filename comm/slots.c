#include "slots.h"

#include <string.h>
#include <stdlib.h>

void slots_init(struct slots *s, const int k[3])
{
    s->count = 1;
    for (int d = 0; d < 3; d++) {
        s->k[d] = k[d];
        s->ext[d] = 2 * k[d] + 1;
        s->count *= s->ext[d];
    }
    s->size = sb_calloc((size_t)s->count, sizeof *s->size, "slot sizes");
    s->offset = sb_calloc((size_t)s->count, sizeof *s->offset, "slot offsets");
    s->data = NULL;
}

void slots_free(struct slots *s)
{
    free(s->size);
    free(s->offset);
    s->size = s->offset = NULL;
    s->data = NULL;
    s->count = 0;
}

void slot_offset(const struct slots *s, int index, int d[3])
{
    d[0] = index % s->ext[0] - s->k[0];
    d[1] = (index / s->ext[0]) % s->ext[1] - s->k[1];
    d[2] = index / (s->ext[0] * s->ext[1]) - s->k[2];
}

void record_write(unsigned char *dst, const unsigned char *payload, size_t n)
{
    uint64_t header = n;
    memcpy(dst, &header, sizeof header);
    if (n) memcpy(dst + SLOT_RECORD_HEADER, payload, n);
    size_t padded = record_bytes(n) - SLOT_RECORD_HEADER;
    memset(dst + SLOT_RECORD_HEADER + n, 0, padded - n);
}

void slots_index_uniform(struct slots *s, unsigned char *base, size_t m)
{
    s->data = base;
    for (int i = 0; i < s->count; i++) {
        s->size[i] = m;
        s->offset[i] = (size_t)i * m;
    }
}

int slots_index_records(struct slots *s, unsigned char *base, size_t len, struct sb_msg *m)
{
    s->data = base;
    size_t at = 0;
    for (int i = 0; i < s->count; i++) {
        uint64_t n;
        if (len - at < SLOT_RECORD_HEADER)
            return sb_fail(m, SB_EVERIFY, "slot records end after %d of %d slots", i, s->count);
        memcpy(&n, base + at, sizeof n);
        if (n > len - at - SLOT_RECORD_HEADER || record_bytes(n) > len - at)
            return sb_fail(m, SB_EVERIFY, "slot %d claims %llu bytes, past the buffer's end", i,
                           (unsigned long long)n);
        s->size[i] = n;
        s->offset[i] = at + SLOT_RECORD_HEADER;
        at += record_bytes(n);
    }
    if (at != len)
        return sb_fail(m, SB_EVERIFY, "%zu bytes follow the last of %d slot records", len - at,
                       s->count);
    return SB_OK;
}
