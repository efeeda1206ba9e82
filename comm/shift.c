/* The Shift (Plimpton 1995; seed 000 sec. 2.2 and 4.2): the data flow of
 * shift_flow.h with blocking MPI_Ssend / MPI_Recv, the rendezvous seed 000
 * sec. 4.1 imposes.  In each phase the k right hops come first, then the k
 * left hops (seed 000 sec. 4.2's order).  Each hop is ordered by ring colour
 * (ring.h) so that a sender always meets a receiver; a ring of one copies
 * locally, since an Ssend to oneself would deadlock; on a ring of two,
 * where the left and right neighbour are the same rank, hop 1 to the right
 * is the one message and the other hops copy what it brought and what the
 * box holds (flow_pair_images; with trimming every hop is a message, tags
 * separating direction and hop). */
#include "ring.h"
#include "shift_flow.h"
#include "../src/log.h"
#include "../src/model.h"

#include <limits.h>
#include <stdlib.h>

struct hop {
    int d;      /* dimension 0, 1, 2 = x, y, z */
    int dir;    /* +1: data moves to the right neighbour, -1: to the left */
    int number; /* 1..k */
};

static int send_block(struct exchange *x, struct shift_flow *f, const struct hop *h,
                      size_t received, size_t len)
{
    const unsigned char *block;
    size_t n;
    CHECK(flow_trim(f, x, h->d, h->dir, h->number, 0,
                    flow_send_from(f, h->dir, h->number, received, len), len, &block, &n));
    if (n > INT_MAX) {
        log_rank_error("a Shift message of %zu bytes exceeds MPI's int count", n);
        return SB_ERUNTIME;
    }
    int to = h->dir > 0 ? f->right[h->d] : f->left[h->d];
    CHECK_MPI(MPI_Ssend(block, (int)n, MPI_BYTE, to,
                        exchange_tag(x, shift_tag(h->d, h->dir, h->number)), x->topo->leaders));
    x->last.messages++;
    x->last.bytes += (long long)n;
    return SB_OK;
}

static int receive_block(struct exchange *x, struct shift_flow *f, const struct hop *h,
                         size_t expected, size_t *got)
{
    int from = h->dir > 0 ? f->left[h->d] : f->right[h->d];
    int tag = exchange_tag(x, shift_tag(h->d, h->dir, h->number));
    MPI_Status status;
    int count = (int)expected;
    if (!x->opts.uniform) {
        CHECK_MPI(MPI_Probe(from, tag, x->topo->leaders, &status));
        CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
    }
    unsigned char *at = flow_receive_at(f, h->dir, (size_t)count, NULL);
    CHECK_MPI(MPI_Recv(at, count, MPI_BYTE, from, tag, x->topo->leaders, &status));
    int arrived;
    CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &arrived));
    if (arrived != count) {
        log_rank_error("Shift hop %d of dimension %c: %d bytes arrived from rank %d, %d expected",
                       h->number, "xyz"[h->d], arrived, from, count);
        return SB_ERUNTIME;
    }
    *got = (size_t)count;
    return SB_OK;
}

/* One hop: forward `send_len` bytes one step along h->dir and receive the
 * block coming the same way from the other side. */
static int shift_hop(struct exchange *x, struct shift_flow *f, const struct hop *h, size_t send_len,
                     size_t *recv_len)
{
    int d = h->d;
    if (f->ring[d] == 1) /* trimmed (shift_phase replicates an untrimmed one) */
        return flow_copy_block(f, x, d, h->dir, h->number, send_len, recv_len);
    if (ring_sends_first(f->coord[d], f->ring[d], h->dir)) {
        CHECK(send_block(x, f, h, 0, send_len));
        return receive_block(x, f, h, send_len, recv_len);
    }
    CHECK(receive_block(x, f, h, send_len, recv_len));
    return send_block(x, f, h, *recv_len, send_len);
}

static int shift_phase(struct exchange *x, struct shift_flow *f, int d)
{
    size_t gathered = span_len(&f->buf);
    flow_phase_begin(f, x, d);
    if (f->ring[d] == 1 && !x->opts.trim) {
        flow_replicate(f, x->kdim[d]);
        return SB_OK;
    }
    if (flow_pair(f, x, d)) { /* hop 1 to the right, the rest images */
        struct hop first = {d, +1, 1};
        size_t arrived;
        CHECK(shift_hop(x, f, &first, gathered, &arrived));
        flow_pair_images(f, x->kdim[d]);
        return SB_OK;
    }
    for (int dir = +1; dir >= -1; dir -= 2) {
        size_t block = gathered; /* hop 1 sends the box's own block */
        for (int n = 1; n <= x->kdim[d]; n++) {
            struct hop h = {d, dir, n};
            CHECK(shift_hop(x, f, &h, block, &block));
        }
    }
    return SB_OK;
}

static int shift_setup(struct exchange *x)
{
    struct shift_flow *f = sb_malloc(sizeof *f, "the Shift's state");
    flow_setup(f, x);
    x->state = f;
    return SB_OK;
}

static int shift_run(struct exchange *x, const struct payload *own, struct slots *out)
{
    struct shift_flow *f = x->state;
    flow_begin(f, x, own, out);
    for (int d = 0; d < 3; d++)
        if (x->kdim[d] > 0) CHECK(shift_phase(x, f, d));
    return flow_finish(f, x, own->bytes, out);
}

static void shift_destroy(struct exchange *x)
{
    flow_free(x->state);
    free(x->state);
}

/* Seed 000 Eq. 1-3: 2k hops per phase, each a message of the phase's block;
 * with rendezvous a hop takes as many message times as the ring has
 * colours (2, or 3 on an odd ring: ring.h), the exchange's first hop two of
 * them r(m) (hockney_round: the payloads just written, from a barrier).  A
 * ring of one copies, a ring of two sends one hop and copies the others;
 * the own payload is copied into the buffer once.  On a torus, each turn also
 * pays for the messages it puts on its busiest port or link (docs/MODEL.md). */
static void shift_model(const struct hockney *h, const struct model_case *c, struct model_terms *t)
{
    model_copy(t, h, 1.0, c->bytes);
    for (int d = 0; d < 3; d++) {
        if (!(c->phases & (1u << d))) continue;
        if (c->dims[d] == 1) {
            model_copy(t, h, 2.0 * c->k, model_block_bytes(c, d));
            continue;
        }
        int turns = c->rendezvous ? ring_colours(c->dims[d]) : 1;
        double m = model_block_bytes(c, d);
        /* messages right and left; on a ring of two hop 1 to the right, the
         * rest copies (flow_pair_images) */
        bool pair = c->dims[d] == 2;
        int hops[2] = {pair ? 1 : c->k, pair ? 0 : c->k};
        if (pair) model_copy(t, h, 2.0 * c->k - 1.0, m);
        model_message(t, h, (double)(hops[0] + hops[1]) * turns, m);
        /* the exchange's first hop sends the payloads just written, from a
           barrier: two of its messages are the round pingpong times */
        if (c->rendezvous && model_first_phase(c, d))
            t->time += hockney_round(h, m) - 2.0 * hockney_time(h, m);
        if (!model_torus(h) || !c->rendezvous) continue;
        /* on a torus (model.torus), the messages of a turn may share ports
         * and links (team leaders hops apart): each turn of each hop waits
         * for its busiest one */
        for (int dir = +1; dir >= -1; dir -= 2)
            for (int colour = 0; colour < turns; colour++)
                model_turn_contention(t, h, hops[dir < 0],
                                      model_net_turn_load(h, c, d, dir, colour), m);
    }
}

const exchange_ops shift_ops = {
    .name = "shift",
    .summary = "Plimpton's Shift: x, y, z phases of k hops each way, MPI_Ssend in ring-colour "
               "order (seed 000 sec. 2.2)",
    .teams = false,
    .setup = shift_setup,
    .run = shift_run,
    .destroy = shift_destroy,
    .model = shift_model,
};
