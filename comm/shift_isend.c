/* The Shift with both directions of each hop in flight (seed 000 sec.
 * 6.2.1): the data flow of shift_flow.h, but in hop n a rank posts
 * MPI_Isend of the block moving right and of the block moving left, then
 * receives both with MPI_Irecv.  No ordering by colour is needed, and a
 * phase takes k steps instead of 2k.  A ring of one copies locally; on a
 * ring of two (untrimmed) hop 1 is one message each way and the rest copies
 * (flow_pair_images). */
#include "shift_flow.h"
#include "../src/log.h"
#include "../src/model.h"

#include <limits.h>
#include <stdlib.h>

/* How many bytes arrive from `from` with `tag`: known for uniform payloads,
 * probed otherwise. */
static int incoming(struct exchange *x, int from, int tag, size_t known, size_t *n)
{
    if (x->opts.uniform) {
        *n = known;
        return SB_OK;
    }
    MPI_Status status;
    int count;
    CHECK_MPI(MPI_Probe(from, tag, x->topo->leaders, &status));
    CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
    *n = (size_t)count;
    return SB_OK;
}

/* Room for the blocks arriving from the left (and from the right, when that
 * one is a message too); *left_at and *right_at receive where they go. */
static void make_room(struct shift_flow *f, bool both, size_t from_left, size_t from_right,
                      unsigned char **left_at, unsigned char **right_at, unsigned char **old)
{
    if (both)
        flow_receive_both(f, from_left, from_right, left_at, right_at, old);
    else
        *left_at = flow_receive_at(f, +1, from_left, old);
}

/* Hop n of dimension d: the block that came from the left moves on to the
 * right (`to_right` bytes) while the one from the right moves on to the
 * left (`to_left`); returns the sizes of the blocks that replace them. */
static int isend_hop(struct exchange *x, struct shift_flow *f, int d, int n, size_t *to_right,
                     size_t *to_left)
{
    if (f->ring[d] == 1) { /* trimmed (isend_run replicates an untrimmed one) */
        size_t from_left = 0, from_right = 0;
        CHECK(flow_copy_block(f, x, d, +1, n, *to_right, &from_left));
        CHECK(flow_copy_block(f, x, d, -1, n, *to_left, &from_right));
        *to_right = from_left;
        *to_left = from_right;
        return SB_OK;
    }
    /* on a ring of two, hop 1's message from the left is also the one from the
       right (isend_run places it with the other images) */
    bool left_message = !flow_pair(f, x, d);
    const unsigned char *right_block, *left_block = NULL;
    size_t right_len, left_len = 0;
    CHECK(flow_trim(f, x, d, +1, n, 0, flow_send_from(f, +1, n, 0, *to_right), *to_right,
                    &right_block, &right_len));
    if (left_message)
        CHECK(flow_trim(f, x, d, -1, n, 1, flow_send_from(f, -1, n, 0, *to_left), *to_left,
                        &left_block, &left_len));
    if (right_len > INT_MAX || left_len > INT_MAX) {
        log_rank_error("a Shift message of %zu bytes exceeds MPI's int count",
                       right_len > left_len ? right_len : left_len);
        return SB_ERUNTIME;
    }
    MPI_Comm comm = x->topo->leaders;
    int right_tag = exchange_tag(x, shift_tag(d, +1, n));
    int left_tag = exchange_tag(x, shift_tag(d, -1, n));
    MPI_Request req[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    size_t from_left = 0, from_right = 0;
    unsigned char *left_at, *right_at = NULL, *old = NULL;
    if (x->opts.uniform) {
        /* Sizes are known: receives first, so that the messages find them
         * posted (MPI's expected path), then the sends, whose blocks now
         * lie right after the left one and right before the right one. */
        from_left = right_len;
        from_right = left_len;
        make_room(f, left_message, from_left, from_right, &left_at, &right_at, &old);
        right_block = flow_send_from(f, +1, n, from_left, right_len);
        if (left_message) left_block = flow_send_from(f, -1, n, from_right, left_len);
        CHECK_MPI(
            MPI_Irecv(left_at, (int)from_left, MPI_BYTE, f->left[d], right_tag, comm, &req[2]));
        if (left_message)
            CHECK_MPI(MPI_Irecv(right_at, (int)from_right, MPI_BYTE, f->right[d], left_tag, comm,
                                &req[3]));
    }
    CHECK_MPI(
        MPI_Isend(right_block, (int)right_len, MPI_BYTE, f->right[d], right_tag, comm, &req[0]));
    if (left_message)
        CHECK_MPI(
            MPI_Isend(left_block, (int)left_len, MPI_BYTE, f->left[d], left_tag, comm, &req[1]));
    x->last.messages += left_message ? 2 : 1;
    x->last.bytes += (long long)(right_len + left_len);
    if (!x->opts.uniform) { /* sizes travel with the messages: probe, then receive */
        CHECK(incoming(x, f->left[d], right_tag, right_len, &from_left));
        if (left_message) CHECK(incoming(x, f->right[d], left_tag, left_len, &from_right));
        /* The sends may still read the old buffer if the span must grow. */
        make_room(f, left_message, from_left, from_right, &left_at, &right_at, &old);
        CHECK_MPI(
            MPI_Irecv(left_at, (int)from_left, MPI_BYTE, f->left[d], right_tag, comm, &req[2]));
        if (left_message)
            CHECK_MPI(MPI_Irecv(right_at, (int)from_right, MPI_BYTE, f->right[d], left_tag, comm,
                                &req[3]));
    }
    MPI_Status status[4];
    int rc = MPI_Waitall(4, req, status);
    free(old);
    CHECK_MPI(rc);
    int got_left, got_right = (int)from_right;
    CHECK_MPI(MPI_Get_count(&status[2], MPI_BYTE, &got_left));
    if (left_message) CHECK_MPI(MPI_Get_count(&status[3], MPI_BYTE, &got_right));
    if ((size_t)got_left != from_left || (size_t)got_right != from_right) {
        log_rank_error("shift-isend hop %d of dimension %c: %d and %d bytes arrived, %zu and "
                       "%zu expected",
                       n, "xyz"[d], got_left, got_right, from_left, from_right);
        return SB_ERUNTIME;
    }
    *to_right = from_left;
    *to_left = from_right;
    return SB_OK;
}

static int isend_setup(struct exchange *x)
{
    struct shift_flow *f = sb_malloc(sizeof *f, "shift-isend's state");
    flow_setup(f, x);
    x->state = f;
    return SB_OK;
}

static int isend_run(struct exchange *x, const struct payload *own, struct slots *out)
{
    struct shift_flow *f = x->state;
    flow_begin(f, x, own, out);
    for (int d = 0; d < 3; d++) {
        if (x->kdim[d] == 0) continue; /* a dimension not exchanged */
        flow_phase_begin(f, x, d);
        if (f->ring[d] == 1 && !x->opts.trim) {
            flow_replicate(f, x->kdim[d]);
            continue;
        }
        size_t to_right = span_len(&f->buf), to_left = to_right; /* the gathered block */
        if (flow_pair(f, x, d)) { /* hop 1 from the left, the rest images */
            CHECK(isend_hop(x, f, d, 1, &to_right, &to_left));
            flow_pair_images(f, x->kdim[d]);
            continue;
        }
        for (int n = 1; n <= x->kdim[d]; n++)
            CHECK(isend_hop(x, f, d, n, &to_right, &to_left));
    }
    return flow_finish(f, x, own->bytes, out);
}

static void isend_destroy(struct exchange *x)
{
    flow_free(x->state);
    free(x->state);
}

/* Both directions of a hop in flight: k steps per phase, each a burst of
 * two messages each way (to and from the left and right neighbours) --
 * seed 000 Eq. 2 where the two overlap no more than two messages do
 * (docs/MODEL.md).  A ring of one copies both blocks, a ring of two sends
 * one message each way in hop 1 (a step both ranks start together, as
 * Team Shift's passes) and copies the other 2k - 1 blocks; the own payload
 * is copied into the buffer once.  On a torus (model.torus) neighbour boxes
 * may lie hops apart (teams), their messages sharing links and ports. */
static void isend_model(const struct hockney *h, const struct model_case *c, struct model_terms *t)
{
    model_copy(t, h, 1.0, c->bytes);
    for (int d = 0; d < 3; d++) {
        if (!(c->phases & (1u << d))) continue;
        double m = model_block_bytes(c, d);
        bool own = model_first_phase(c, d); /* hop 1 sends the own payload */
        if (c->dims[d] == 1) {
            model_copy(t, h, 2.0 * c->k, m);
            continue;
        }
        /* on a torus (model.torus), neighbour boxes a hop or more apart */
        int both[2][3] = {{0, 0, 0}, {0, 0, 0}};
        both[0][d] = 1;
        both[1][d] = -1;
        if (c->dims[d] == 2) {
            /* hop 1 one message each way, both ranks starting it together
             * (a lockstep step), the rest copies; in the first phase the
             * message is the own payload from the caller's buffer
             * (flow_send_from), direct's one step (x0, model_start) */
            double load = model_torus(h) ? model_net_load(h, c, 1, 1, (const int(*)[3])both) : 2.0;
            model_pass(t, h, m, own);
            model_contention(t, h, 1.0, load, m);
            model_copy(t, h, 2.0 * c->k - 1.0, m);
            continue;
        }
        double load = model_torus(h) ? model_net_load(h, c, 1, 2, (const int(*)[3])both) : 4.0;
        for (int hop = 0; hop < c->k; hop++) {
            model_burst(t, h, 2.0, m);
            model_contention(t, h, 2.0, load, m);
        }
    }
}

const exchange_ops shift_isend_ops = {
    .name = "shift-isend",
    .summary = "the Shift's data flow with both directions of each hop in flight "
               "(MPI_Isend/MPI_Irecv, seed 000 sec. 6.2.1)",
    .teams = false,
    .setup = isend_setup,
    .run = isend_run,
    .destroy = isend_destroy,
    .model = isend_model,
};
