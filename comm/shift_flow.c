#include "shift_flow.h"
#include "replicate.h"
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
        return SB_ERUNTIME; /* mid-exchange: see exchange.h */
    }
    *out = f->stage[stage];
    return SB_OK;
}

void flow_begin(struct shift_flow *f, const struct exchange *x, const struct payload *own,
                const struct slots *out)
{
    size_t centre = (size_t)slot_centre(out);
    f->prepended = f->appended = 0;
    f->own = x->opts.uniform && own->bytes ? own->data : NULL;
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

unsigned char *flow_receive_at(struct shift_flow *f, int dir, size_t n, unsigned char **keep_old)
{
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
    const unsigned char *block; /* in stage[0], apart from the buffer, which may move */
    CHECK(
        flow_trim(f, x, d, dir, hop, 0, flow_send_from(f, dir, hop, 0, len), len, &block, copied));
    memcpy(flow_receive_at(f, dir, *copied, NULL), block, *copied);
    return SB_OK;
}

void flow_replicate(struct shift_flow *f, int k)
{
    size_t len = span_len(&f->buf), total = (size_t)k * len;
    span_make_room(&f->buf, total, total, NULL);
    unsigned char *block = f->buf.base + f->buf.front;
    unsigned char *const sides[2] = {block - total, block + len};
    replicate(sides, 2, (size_t)k, block, len);
    f->buf.front -= total;
    f->buf.back += total;
    f->prepended += total;
    f->appended += total;
}

void flow_pair_images(struct shift_flow *f, int k)
{
    /* the buffer holds [neighbour][gathered], nothing appended this phase yet */
    size_t theirs = f->prepended - f->phase_prepended, pair = span_len(&f->buf);
    size_t ours = pair - theirs;
    size_t pairs_before = (size_t)(k - 1) / 2, pairs_after = (size_t)k / 2;
    /* offsets -k..-2 before: an own block first where k is even, then pairs;
       offsets 1..k after: pairs, then the neighbour's block where k is odd */
    size_t lead = k % 2 == 0 ? ours : 0, tail = k % 2 ? theirs : 0;
    size_t before = lead + pairs_before * pair, after = pairs_after * pair + tail;
    span_make_room(&f->buf, before, after, NULL);
    const unsigned char *at = f->buf.base + f->buf.front; /* the pair */
    unsigned char *start = f->buf.base + f->buf.front - before;
    unsigned char *end = f->buf.base + f->buf.back;
    if (lead) memcpy(start, at + theirs, ours);
    unsigned char *left = start + lead;
    replicate(&left, 1, pairs_before, at, pair);
    replicate(&end, 1, pairs_after, at, pair);
    if (tail) memcpy(end + pairs_after * pair, at, theirs);
    f->buf.front -= before;
    f->buf.back += after;
    f->prepended += before;
    f->appended += after;
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
