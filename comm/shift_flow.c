#include "shift_flow.h"
#include "../src/log.h"

#include <stdlib.h>
#include <string.h>

void flow_setup(struct shift_flow *f, const struct exchange *x)
{
    const struct topology *t = x->topo;
    memset(f, 0, sizeof *f);
    for (int d = 0; d < 3; d++) {
        int step[3] = {0, 0, 0};
        step[d] = +1;
        f->right[d] = box_at(t->dims, t->coords, step).rank;
        step[d] = -1;
        f->left[d] = box_at(t->dims, t->coords, step).rank;
        f->ring[d] = t->dims[d];
        f->coord[d] = t->coords[d];
    }
    if (x->opts.trim)
        f->choices = sb_calloc(3 * 2 * (EXCHANGE_MAX_K + 1), sizeof *f->choices, "trim choices");
}

void flow_phase_begin(struct shift_flow *f, const struct exchange *x, int d)
{
    f->narrived[0] = f->narrived[1] = 0;
    f->phase_prepended = f->prepended;
    f->phase_appended = f->appended;
    f->block_records = 1;
    for (int a = 0; a < d; a++)
        f->block_records *= 2 * x->kdim[a] + 1;
}

int flow_trim(struct shift_flow *f, struct exchange *x, int d, int dir, int hop, int stage,
              const unsigned char *block, size_t len, const unsigned char **out, size_t *out_len)
{
    *out = block;
    *out_len = len;
    if (!x->opts.trim) return SB_OK;
    /* Moving right, the block reaches boxes that see its source at -hop,
     * -hop-1, ..., -k; moving left, at hop, ..., k. */
    struct trim_need need[3] = {trim_need_all(), trim_need_all(), trim_need_all()};
    need[d] = dir > 0 ? trim_need_of(-x->kdim[d], 1, -hop) : trim_need_of(hop, 1, x->kdim[d]);
    if (f->stage_cap[stage] < len || !f->stage[stage]) {
        free(f->stage[stage]);
        f->stage_cap[stage] = len + len / 4 + 64;
        f->stage[stage] = sb_malloc(f->stage_cap[stage], "a trimmed block");
    }
    struct trim_choice *choice = &f->choices[(d * 2 + (dir > 0)) * (EXCHANGE_MAX_K + 1) + hop];
    struct sb_msg m;
    int rc = trim_records(x->opts.trim, choice, x->reselect, block, len, f->block_records, need,
                          f->stage[stage], out_len, &m);
    if (rc != SB_OK) {
        log_rank_error("%s: %s", x->ops->name, m.text);
        return rc;
    }
    *out = f->stage[stage];
    return SB_OK;
}

void flow_begin(struct shift_flow *f, const struct exchange *x, const struct payload *own,
                const struct slots *out)
{
    size_t centre = (size_t)slot_centre(out);
    f->prepended = f->appended = 0;
    if (x->opts.uniform) {
        size_t m = own->bytes;
        span_restart(&f->buf, centre * m, ((size_t)out->count - centre) * m);
        if (m) memcpy(f->buf.base + f->buf.back, own->data, m);
        f->buf.back += m;
        return;
    }
    size_t rec = record_bytes(own->bytes);
    span_restart(&f->buf, f->hint_before, f->hint_after + rec);
    record_write(f->buf.base + f->buf.back, own->data, own->bytes);
    f->buf.back += rec;
}

static void note_arrival(struct shift_flow *f, int side, size_t n)
{
    if (f->narrived[side] < EXCHANGE_MAX_K) f->arrived[side][++f->narrived[side]] = n;
}

unsigned char *flow_receive_at(struct shift_flow *f, int dir, size_t n, unsigned char **keep_old)
{
    note_arrival(f, dir < 0, n);
    if (dir > 0) {
        span_make_room(&f->buf, n, 0, keep_old);
        f->buf.front -= n;
        f->prepended += n;
        return f->buf.base + f->buf.front;
    }
    span_make_room(&f->buf, 0, n, keep_old);
    f->buf.back += n;
    f->appended += n;
    return f->buf.base + f->buf.back - n;
}

void flow_receive_both(struct shift_flow *f, size_t before, size_t after, unsigned char **left_at,
                       unsigned char **right_at, unsigned char **keep_old)
{
    note_arrival(f, 0, before);
    note_arrival(f, 1, after);
    span_make_room(&f->buf, before, after, keep_old);
    f->buf.front -= before;
    f->prepended += before;
    *left_at = f->buf.base + f->buf.front;
    *right_at = f->buf.base + f->buf.back;
    f->buf.back += after;
    f->appended += after;
}

int flow_copy_block(struct shift_flow *f, struct exchange *x, int d, int dir, int hop, size_t len,
                    size_t *copied)
{
    const unsigned char *block;
    CHECK(flow_trim(f, x, d, dir, hop, 0, flow_send_from(f, dir, 0, len), len, &block, copied));
    if (block != f->stage[0] || !x->opts.trim) {
        /* untrimmed: the block to copy is next to where it goes, on the far side */
        unsigned char *to = flow_receive_at(f, dir, len, NULL);
        memcpy(to, dir > 0 ? to + len : to - len, len);
        return SB_OK;
    }
    memcpy(flow_receive_at(f, dir, *copied, NULL), block, *copied);
    return SB_OK;
}

/* Where the block of hop `hop` from `side` (0: the left, 1: the right; hop
 * 0: the gathered block) lies now, and its length. */
static const unsigned char *arrival(const struct shift_flow *f, int side, int hop, size_t *len)
{
    const unsigned char *start = f->buf.base + f->buf.front + (f->prepended - f->phase_prepended);
    const unsigned char *end = f->buf.base + f->buf.back - (f->appended - f->phase_appended);
    if (hop == 0) {
        *len = (size_t)(end - start);
        return start;
    }
    *len = f->arrived[side][hop];
    /* arrivals from the left lie before the gathered block, the latest
     * first; from the right after it, the earliest first */
    size_t nearer = 0;
    for (int j = 1; j < hop; j++)
        nearer += f->arrived[side][j];
    return side ? end + nearer : start - nearer - *len;
}

void flow_copy_image(struct shift_flow *f, int dir, int hop, size_t *copied)
{
    int side = dir < 0;
    /* hop 1 from the right: hop 1 from the left; hop 2: the gathered block */
    int from_side = hop == 1 ? 0 : side, from_hop = hop == 1 ? 1 : hop - 2;
    size_t len;
    arrival(f, from_side, from_hop, &len);
    unsigned char *to = flow_receive_at(f, dir, len, NULL); /* may move the buffer */
    const unsigned char *from = arrival(f, from_side, from_hop, &len);
    memcpy(to, from, len);
    *copied = len;
}

int flow_finish(struct shift_flow *f, struct exchange *x, size_t own_bytes, struct slots *out)
{
    if (f->prepended > f->hint_before) f->hint_before = f->prepended;
    if (f->appended > f->hint_after) f->hint_after = f->appended;
    exchange_note_buffers(x, span_len(&f->buf));
    unsigned char *data = f->buf.base + f->buf.front;
    size_t len = span_len(&f->buf);
    if (x->opts.uniform) {
        if (len != (size_t)out->count * own_bytes) {
            log_rank_error("%s gathered %zu bytes, %d slots of %zu expected", x->ops->name, len,
                           out->count, own_bytes);
            return SB_EVERIFY;
        }
        slots_index_uniform(out, data, own_bytes);
        return SB_OK;
    }
    struct sb_msg why;
    if (slots_index_records(out, data, len, &why) != SB_OK) {
        log_rank_error("%s: the slots are malformed: %s", x->ops->name, why.text);
        return SB_EVERIFY;
    }
    return SB_OK;
}

void flow_free(struct shift_flow *f)
{
    span_free(&f->buf);
    for (int i = 0; f->choices && i < 3 * 2 * (EXCHANGE_MAX_K + 1); i++)
        trim_choice_free(&f->choices[i]);
    free(f->choices);
    free(f->stage[0]);
    free(f->stage[1]);
}
