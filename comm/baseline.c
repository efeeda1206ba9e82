/* Hand-written baselines, not exchange modules: the least MPI that moves
 * the same bytes between the same ranks as the modules do, so that the
 * modules can be measured against it on the same boxes, interleaved, in one
 * run (exchange.baseline; issue 16).  They are never chosen by auto, have
 * no model, and serve uniform payloads on one rank per box without trimming
 * (the cases a minimal halo exchange covers).  Their slots are checked byte
 * for byte like every module's.
 *
 *   baseline-p2p       MPI_Irecv of each distinct peer rank's payload straight
 *                      into the first slot it fills, one MPI_Isend of the own
 *                      payload to each peer, then copies into the other slots
 *                      (Comb's and most production halo exchanges' pattern)
 *   baseline-neighbor  the same messages as one MPI_Neighbor_alltoallv on a
 *                      distributed graph of the distinct peers (MPI-3)
 *   baseline-staged    LAMMPS's staged swaps (Comm::borders): dimension after
 *                      dimension, layer after layer, the slab gathered so far
 *                      with one MPI_Sendrecv to the right and one to the left;
 *                      on a ring of one a copy (LAMMPS's sendproc == me, as the
 *                      Shift does): the Shift's blocks, without its rendezvous
 *
 * and one reference, which is not counted as a best:
 *
 *   baseline-ssend     baseline-p2p's messages as blocking MPI_Ssend/MPI_Recv
 *                      pairs, the lower rank of a pair sending first, every
 *                      rank taking its peers in ascending rank (one global
 *                      order of the pairs: the smallest pair not yet done
 *                      always finds both its ranks ready, so it cannot
 *                      deadlock): the rendezvous of seed 000 sec. 4.1 on the
 *                      fewest messages.  On a grid of rings of two these are
 *                      the Shift's messages, met in the same turns (one each
 *                      way per phase, lower rank first), so the Shift over
 *                      baseline-ssend is what remains once the rendezvous is
 *                      paid; on longer rings its pairs take turns in rank
 *                      order, a chain, and it is no reference for the Shift
 *                      (tools/baseline_check.py compares only where the
 *                      messages agree on rings of at most two) */
#include "exchange.h"
#include "../src/log.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { BASELINE_TAG = 7 };

struct baseline {
    int npeers;
    int *peer;      /* distinct peer ranks in the leaders' communicator */
    int *recv_slot; /* per peer: the first slot its payload fills, received straight there */
    int *source;    /* per slot: the peer index that fills it; -1: this box (centre, images) */
    int *by_rank;   /* baseline-ssend: the peer indices, ascending in rank */
    int *counts, *send_at, *recv_at; /* MPI_Neighbor_alltoallv's, per peer */
    MPI_Comm graph;                  /* baseline-neighbor */
    MPI_Request *requests;
    unsigned char *buf; /* the slots */
    size_t cap;
};

static int peer_index(struct baseline *s, int rank, int slot)
{
    for (int i = 0; i < s->npeers; i++)
        if (s->peer[i] == rank) return i;
    s->peer[s->npeers] = rank;
    s->recv_slot[s->npeers] = slot;
    return s->npeers++;
}

static int baseline_setup(struct exchange *x)
{
    const struct topology *t = x->topo;
    struct baseline *s = sb_calloc(1, sizeof *s, "a baseline's state");
    x->state = s;
    s->graph = MPI_COMM_NULL;
    struct slots shape;
    slots_init(&shape, x->kdim);
    const int n = shape.count;
    s->peer = sb_malloc((size_t)n * sizeof *s->peer, "baseline peers");
    s->recv_slot = sb_malloc((size_t)n * sizeof *s->recv_slot, "baseline peers");
    s->source = sb_malloc((size_t)n * sizeof *s->source, "baseline slots");
    for (int i = 0; i < n; i++) {
        int d[3];
        slot_offset(&shape, i, d);
        int from = box_at(t->dims, t->coords, d).rank;
        /* the offsets are symmetric: the ranks this box receives from are
         * the ranks it sends to */
        s->source[i] = from == t->box ? -1 : peer_index(s, from, i);
    }
    slots_free(&shape);
    s->requests = sb_malloc((size_t)(2 * s->npeers + 1) * sizeof *s->requests, "requests");
    s->counts = sb_malloc((size_t)(3 * s->npeers + 1) * sizeof *s->counts, "baseline counts");
    s->send_at = s->counts + s->npeers;
    s->recv_at = s->counts + 2 * s->npeers;
    return SB_OK;
}

static int neighbor_setup(struct exchange *x)
{
    CHECK(baseline_setup(x));
    struct baseline *s = x->state;
    /* equal weights rather than MPI_UNWEIGHTED, which GCC takes for an empty array */
    for (int p = 0; p < s->npeers; p++)
        s->counts[p] = 1;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(x->topo->leaders, s->npeers, s->peer, s->counts,
                                             s->npeers, s->peer, s->counts, MPI_INFO_NULL, 0,
                                             &s->graph));
    return SB_OK;
}

struct peer_order {
    int rank, index;
};

static int by_rank(const void *a, const void *b)
{
    const struct peer_order *p = a, *q = b;
    return (p->rank > q->rank) - (p->rank < q->rank);
}

/* baseline-ssend: the peers in ascending rank, the order every rank takes
 * its pairs in. */
static int ssend_setup(struct exchange *x)
{
    CHECK(baseline_setup(x));
    struct baseline *s = x->state;
    struct peer_order *order = sb_malloc((size_t)(s->npeers + 1) * sizeof *order, "peer order");
    for (int p = 0; p < s->npeers; p++)
        order[p] = (struct peer_order){s->peer[p], p};
    qsort(order, (size_t)s->npeers, sizeof *order, by_rank);
    s->by_rank = sb_malloc((size_t)(s->npeers + 1) * sizeof *s->by_rank, "baseline peers");
    for (int p = 0; p < s->npeers; p++)
        s->by_rank[p] = order[p].index;
    free(order);
    return SB_OK;
}

/* The slots for payloads of m bytes; the run's MPI counts fit an int. */
static int prepare(struct exchange *x, const struct payload *own, struct slots *out)
{
    struct baseline *s = x->state;
    if (!x->opts.uniform || x->opts.trim) {
        log_rank_error("%s serves uniform payloads without trimming only", x->ops->name);
        return SB_ERUNTIME;
    }
    size_t need = (size_t)out->count * own->bytes;
    if (need > INT_MAX) {
        log_rank_error("%s: %zu bytes of slots exceed MPI's int counts", x->ops->name, need);
        return SB_ERUNTIME;
    }
    if (need > s->cap) {
        free(s->buf);
        s->buf = sb_malloc(need, "a baseline's slots");
        s->cap = need;
    }
    slots_index_uniform(out, s->buf, own->bytes);
    exchange_note_buffers(x, need);
    return SB_OK;
}

/* The own payload into the slots this box fills (centre and images). */
static void fill_own(const struct baseline *s, const struct payload *own, struct slots *out)
{
    for (int i = 0; i < out->count && own->bytes; i++)
        if (s->source[i] < 0) memcpy(out->data + out->offset[i], own->data, own->bytes);
}

/* Each peer's payload from the slot it arrived in into its other slots. */
static void fill_copies(const struct baseline *s, size_t m, struct slots *out)
{
    for (int i = 0; i < out->count && m; i++) {
        int p = s->source[i];
        if (p >= 0 && i != s->recv_slot[p])
            memcpy(out->data + out->offset[i], out->data + out->offset[s->recv_slot[p]], m);
    }
}

/* The end of a run with one message per distinct peer: each peer's payload
 * copied into its other slots, and the messages counted. */
static int peers_done(struct exchange *x, size_t m, struct slots *out)
{
    struct baseline *s = x->state;
    fill_copies(s, m, out);
    x->last.messages += s->npeers;
    x->last.bytes += (long long)s->npeers * (long long)m;
    return SB_OK;
}

static int p2p_run(struct exchange *x, const struct payload *own, struct slots *out)
{
    struct baseline *s = x->state;
    CHECK(prepare(x, own, out));
    const int m = (int)own->bytes;
    MPI_Comm comm = x->topo->leaders;
    for (int p = 0; p < s->npeers; p++)
        CHECK_MPI(MPI_Irecv(out->data + out->offset[s->recv_slot[p]], m, MPI_BYTE, s->peer[p],
                            exchange_tag(x, BASELINE_TAG), comm, &s->requests[p]));
    for (int p = 0; p < s->npeers; p++)
        CHECK_MPI(MPI_Isend(own->data, m, MPI_BYTE, s->peer[p], exchange_tag(x, BASELINE_TAG), comm,
                            &s->requests[s->npeers + p]));
    fill_own(s, own, out);
    CHECK_MPI(MPI_Waitall(2 * s->npeers, s->requests, MPI_STATUSES_IGNORE));
    return peers_done(x, own->bytes, out);
}

static int neighbor_run(struct exchange *x, const struct payload *own, struct slots *out)
{
    struct baseline *s = x->state;
    CHECK(prepare(x, own, out));
    const int m = (int)own->bytes;
    for (int p = 0; p < s->npeers; p++) {
        s->counts[p] = m;
        s->send_at[p] = 0; /* every peer gets the same payload */
        s->recv_at[p] = (int)out->offset[s->recv_slot[p]];
    }
    CHECK_MPI(MPI_Neighbor_alltoallv(own->data, s->counts, s->send_at, MPI_BYTE, out->data,
                                     s->counts, s->recv_at, MPI_BYTE, s->graph));
    fill_own(s, own, out);
    return peers_done(x, own->bytes, out);
}

static int ssend_run(struct exchange *x, const struct payload *own, struct slots *out)
{
    struct baseline *s = x->state;
    CHECK(prepare(x, own, out));
    const int m = (int)own->bytes;
    MPI_Comm comm = x->topo->leaders;
    const int me = x->topo->box;
    const int tag = exchange_tag(x, BASELINE_TAG);
    fill_own(s, own, out);
    for (int i = 0; i < s->npeers; i++) {
        int p = s->by_rank[i];
        unsigned char *into = out->data + out->offset[s->recv_slot[p]];
        if (me < s->peer[p]) CHECK_MPI(MPI_Ssend(own->data, m, MPI_BYTE, s->peer[p], tag, comm));
        CHECK_MPI(MPI_Recv(into, m, MPI_BYTE, s->peer[p], tag, comm, MPI_STATUS_IGNORE));
        if (me > s->peer[p]) CHECK_MPI(MPI_Ssend(own->data, m, MPI_BYTE, s->peer[p], tag, comm));
    }
    return peers_done(x, own->bytes, out);
}

/* The slab at offset j along dimension d once the dimensions before d are
 * gathered: one slot (x), a row of slots (y), a plane (z); contiguous in
 * the slots' [dz][dy][dx] order. */
static unsigned char *slab(struct slots *out, int d, int j)
{
    int at = d == 0   ? slot_index(out, j, 0, 0)
             : d == 1 ? slot_index(out, -out->k[0], j, 0)
                      : slot_index(out, -out->k[0], -out->k[1], j);
    return out->data + out->offset[at];
}

static int staged_run(struct exchange *x, const struct payload *own, struct slots *out)
{
    CHECK(prepare(x, own, out));
    MPI_Comm comm = x->topo->leaders;
    if (own->bytes) memcpy(out->data + out->offset[slot_centre(out)], own->data, own->bytes);
    int block = (int)own->bytes; /* the slab gathered so far */
    for (int d = 0; d < 3; d++) {
        if (out->k[d] == 0) continue;
        int back[3] = {0, 0, 0}, ahead[3] = {0, 0, 0};
        back[d] = -1;
        ahead[d] = 1;
        int left = box_at(x->topo->dims, x->topo->coords, back).rank;
        int right = box_at(x->topo->dims, x->topo->coords, ahead).rank;
        const int tag = exchange_tag(x, 2 * d);
        for (int j = 1; j <= out->k[d]; j++) {
            if (x->topo->dims[d] == 1) { /* its own images */
                memcpy(slab(out, d, -j), slab(out, d, -(j - 1)), (size_t)block);
                memcpy(slab(out, d, j), slab(out, d, j - 1), (size_t)block);
                continue;
            }
            CHECK_MPI(MPI_Sendrecv(slab(out, d, -(j - 1)), block, MPI_BYTE, right, tag,
                                   slab(out, d, -j), block, MPI_BYTE, left, tag, comm,
                                   MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Sendrecv(slab(out, d, j - 1), block, MPI_BYTE, left, tag + 1,
                                   slab(out, d, j), block, MPI_BYTE, right, tag + 1, comm,
                                   MPI_STATUS_IGNORE));
            x->last.messages += 2;
            x->last.bytes += 2LL * block;
        }
        block *= out->ext[d];
    }
    return SB_OK;
}

static void baseline_destroy(struct exchange *x)
{
    struct baseline *s = x->state;
    if (!s) return;
    if (s->graph != MPI_COMM_NULL) MPI_Comm_free(&s->graph);
    free(s->peer);
    free(s->recv_slot);
    free(s->source);
    free(s->by_rank);
    free(s->counts);
    free(s->requests);
    free(s->buf);
    free(s);
    x->state = NULL;
}

const exchange_ops baseline_p2p_ops = {
    .name = "baseline-p2p",
    .summary = "baseline, not a module: MPI_Isend/MPI_Irecv, one message per distinct peer",
    .setup = baseline_setup,
    .run = p2p_run,
    .destroy = baseline_destroy,
};

const exchange_ops baseline_neighbor_ops = {
    .name = "baseline-neighbor",
    .summary = "baseline, not a module: one MPI_Neighbor_alltoallv over the distinct peers",
    .setup = neighbor_setup,
    .run = neighbor_run,
    .destroy = baseline_destroy,
};

const exchange_ops baseline_staged_ops = {
    .name = "baseline-staged",
    .summary = "baseline, not a module: LAMMPS-style staged MPI_Sendrecv, x then y then z",
    .setup = baseline_setup,
    .run = staged_run,
    .destroy = baseline_destroy,
};

const exchange_ops baseline_ssend_ops = {
    .name = "baseline-ssend",
    .summary = "reference, not a best: baseline-p2p's messages as MPI_Ssend/MPI_Recv pairs, "
               "the rendezvous of seed 000 sec. 4.1",
    .setup = ssend_setup,
    .run = ssend_run,
    .destroy = baseline_destroy,
};
