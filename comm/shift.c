/* The Shift (Plimpton 1995; seed 000 sec. 2.2 and 4.2, Fig. 2).
 *
 * Three phases, x then y then z.  In each, k hops move data to the right
 * neighbour, each hop forwarding what arrived in the hop before, then k hops
 * move data to the left.  What a phase starts from is the block gathered so
 * far: the own slot in x, the row in y, the plane in z.  Blocks arriving from
 * the left are prepended to the buffer and blocks from the right appended, so
 * the buffer grows at both ends and finishes in [dz][dy][dx] slot order with
 * nothing repacked: the row and the plane a phase sends are already
 * contiguous.
 *
 * Messages are blocking MPI_Ssend / MPI_Recv (the rendezvous seed 000 sec.
 * 4.1 imposes) ordered by ring colour (ring.h).  A ring of one copies
 * locally, since an Ssend to oneself would deadlock.  Tags separate phase,
 * direction and hop, which a ring of two needs: there the left and the right
 * neighbour are the same rank.  With uniform payloads every block of a hop
 * has the sender's size; otherwise the receiver learns it with MPI_Probe. */
#include "exchange.h"
#include "ring.h"
#include "../src/log.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A byte buffer with room at both ends; data lies in [front, back). */
struct span {
    unsigned char *base;
    size_t cap, front, back;
};

struct shift {
    struct span buf;
    int right[3], left[3];          /* neighbour ranks per dimension */
    int ring[3];                    /* ranks around the ring of each dimension */
    int coord[3];                   /* position in each ring */
    size_t prepended, appended;     /* bytes added at each end in this exchange */
    size_t hint_before, hint_after; /* most ever added at each end: room to keep */
};

struct hop {
    int d;      /* dimension 0, 1, 2 = x, y, z */
    int dir;    /* +1: data moves to the right neighbour, -1: to the left */
    int number; /* 1..k */
};

static int hop_tag(const struct hop *h)
{
    return 1 + (h->d * 2 + (h->dir > 0)) * (EXCHANGE_MAX_K + 1) + h->number;
}

/* Makes room for `before` bytes ahead of the data and `after` behind it. */
static void span_make_room(struct span *s, size_t before, size_t after)
{
    size_t room_before = s->front, room_after = s->cap - s->back;
    if (room_before >= before && room_after >= after) return;
    size_t len = s->back - s->front;
    /* Grow geometrically, so that a buffer that keeps growing moves rarely. */
    if (room_before < before) room_before = before + before / 2 + len / 2;
    if (room_after < after) room_after = after + after / 2 + len / 2;
    size_t cap = room_before + len + room_after;
    unsigned char *base = sb_malloc(cap, "the Shift's buffer");
    if (len) memcpy(base + room_before, s->base + s->front, len);
    free(s->base);
    s->base = base;
    s->cap = cap;
    s->front = room_before;
    s->back = room_before + len;
}

/* Empties the span, leaving `before` bytes of room ahead and `after` behind. */
static void span_restart(struct span *s, size_t before, size_t after)
{
    if (!s->base || s->cap < before + after) {
        size_t cap = before + after > 64 ? before + after : 64;
        free(s->base);
        s->base = sb_malloc(cap, "the Shift's buffer");
        s->cap = cap;
    }
    s->front = s->back = before;
}

/* Sends the block to forward: it lies at the end it arrived at, behind the
 * `received` bytes that came in this hop if the receive went first. */
static int send_block(struct exchange *x, struct shift *s, const struct hop *h, int to,
                      size_t received, size_t len)
{
    if (len > INT_MAX) {
        log_rank_error("a Shift message of %zu bytes exceeds MPI's int count", len);
        return SB_ERUNTIME;
    }
    size_t at = h->dir > 0 ? s->buf.front + received : s->buf.back - received - len;
    CHECK_MPI(MPI_Ssend(s->buf.base + at, (int)len, MPI_BYTE, to, hop_tag(h), x->topo->comm));
    x->last.messages++;
    x->last.bytes += (long long)len;
    return SB_OK;
}

/* Receives the block of hop h at its end of the buffer: from the left in
 * front, from the right behind. */
static int receive_block(struct exchange *x, struct shift *s, const struct hop *h, int from,
                         size_t expected, size_t *got)
{
    MPI_Status status;
    int count = (int)expected;
    if (!x->opts.uniform) {
        CHECK_MPI(MPI_Probe(from, hop_tag(h), x->topo->comm, &status));
        CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
    }
    size_t n = (size_t)count;
    unsigned char *at;
    if (h->dir > 0) {
        span_make_room(&s->buf, n, 0);
        s->buf.front -= n;
        s->prepended += n;
        at = s->buf.base + s->buf.front;
    } else {
        span_make_room(&s->buf, 0, n);
        at = s->buf.base + s->buf.back;
        s->buf.back += n;
        s->appended += n;
    }
    CHECK_MPI(MPI_Recv(at, count, MPI_BYTE, from, hop_tag(h), x->topo->comm, &status));
    int arrived;
    CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &arrived));
    if (arrived != count) {
        log_rank_error("Shift hop %d of dimension %c: %d bytes arrived from rank %d, %d expected",
                       h->number, "xyz"[h->d], arrived, from, count);
        return SB_ERUNTIME;
    }
    *got = n;
    return SB_OK;
}

/* A ring of one is its own neighbour on both sides: the block arrives from
 * itself, as the next periodic image. */
static void copy_block(struct shift *s, const struct hop *h, size_t len)
{
    struct span *b = &s->buf;
    if (h->dir > 0) {
        span_make_room(b, len, 0);
        memcpy(b->base + b->front - len, b->base + b->front, len);
        b->front -= len;
        s->prepended += len;
    } else {
        span_make_room(b, 0, len);
        memcpy(b->base + b->back, b->base + b->back - len, len);
        b->back += len;
        s->appended += len;
    }
}

/* One hop: forward `send_len` bytes one step along h->dir and receive the
 * block coming the same way from the other side. */
static int shift_hop(struct exchange *x, struct shift *s, const struct hop *h, size_t send_len,
                     size_t *recv_len)
{
    int d = h->d;
    if (s->ring[d] == 1) {
        copy_block(s, h, send_len);
        *recv_len = send_len;
        return SB_OK;
    }
    int to = h->dir > 0 ? s->right[d] : s->left[d];
    int from = h->dir > 0 ? s->left[d] : s->right[d];
    if (ring_sends_first(s->coord[d], s->ring[d], h->dir)) {
        CHECK(send_block(x, s, h, to, 0, send_len));
        return receive_block(x, s, h, from, send_len, recv_len);
    }
    CHECK(receive_block(x, s, h, from, send_len, recv_len));
    return send_block(x, s, h, to, *recv_len, send_len);
}

static int shift_phase(struct exchange *x, struct shift *s, int d)
{
    size_t gathered = s->buf.back - s->buf.front;
    for (int dir = +1; dir >= -1; dir -= 2) {
        size_t block = gathered; /* hop 1 sends the box's own block */
        for (int n = 1; n <= x->kdim[d]; n++) {
            struct hop h = {d, dir, n};
            CHECK(shift_hop(x, s, &h, block, &block));
        }
    }
    return SB_OK;
}

static int shift_setup(struct exchange *x)
{
    const struct topology *t = x->topo;
    struct shift *s = sb_calloc(1, sizeof *s, "the Shift's state");
    for (int d = 0; d < 3; d++) {
        int step[3] = {0, 0, 0};
        step[d] = +1;
        s->right[d] = box_at(t->dims, t->coords, step).rank;
        step[d] = -1;
        s->left[d] = box_at(t->dims, t->coords, step).rank;
        s->ring[d] = t->dims[d];
        s->coord[d] = t->coords[d];
    }
    x->state = s;
    return SB_OK;
}

static int shift_run(struct exchange *x, const struct payload *own, struct slots *out)
{
    struct shift *s = x->state;
    size_t centre = (size_t)slot_centre(out);
    s->prepended = s->appended = 0;
    if (x->opts.uniform) {
        size_t m = own->bytes;
        span_restart(&s->buf, centre * m, ((size_t)out->count - centre) * m);
        if (m) memcpy(s->buf.base + s->buf.back, own->data, m);
        s->buf.back += m;
    } else {
        size_t rec = record_bytes(own->bytes);
        span_restart(&s->buf, s->hint_before, s->hint_after + rec);
        record_write(s->buf.base + s->buf.back, own->data, own->bytes);
        s->buf.back += rec;
    }
    for (int d = 0; d < 3; d++)
        if (x->kdim[d] > 0) CHECK(shift_phase(x, s, d));
    if (s->prepended > s->hint_before) s->hint_before = s->prepended;
    if (s->appended > s->hint_after) s->hint_after = s->appended;
    x->last.buffer_bytes = s->buf.cap;

    unsigned char *data = s->buf.base + s->buf.front;
    size_t len = s->buf.back - s->buf.front;
    if (x->opts.uniform) {
        if (len != (size_t)out->count * own->bytes) {
            log_rank_error("the Shift gathered %zu bytes, %d slots of %zu expected", len,
                           out->count, own->bytes);
            return SB_EVERIFY;
        }
        slots_index_uniform(out, data, own->bytes);
        return SB_OK;
    }
    struct sb_msg why;
    if (slots_index_records(out, data, len, &why) != SB_OK) {
        log_rank_error("the Shift's slots are malformed: %s", why.text);
        return SB_EVERIFY;
    }
    return SB_OK;
}

static void shift_destroy(struct exchange *x)
{
    struct shift *s = x->state;
    if (!s) return;
    free(s->buf.base);
    free(s);
}

const exchange_ops shift_ops = {
    .name = "shift",
    .summary = "Plimpton's Shift: x, y, z phases of k hops each way, MPI_Ssend with even/odd "
               "ordering (seed 000 sec. 2.2)",
    .setup = shift_setup,
    .run = shift_run,
    .destroy = shift_destroy,
};
