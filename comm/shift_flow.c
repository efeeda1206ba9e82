#include "shift_flow.h"
#include "../src/log.h"

#include <string.h>

void flow_setup(struct shift_flow *f, const struct topology *t)
{
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

void flow_copy_block(struct shift_flow *f, int dir, size_t len)
{
    unsigned char *to = flow_receive_at(f, dir, len, NULL);
    /* The block to copy is now the one next to it, on the far side. */
    const unsigned char *from = dir > 0 ? to + len : to - len;
    memcpy(to, from, len);
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
}
