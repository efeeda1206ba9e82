/* direct: every box within k layers straight from its owner, the reference
 * the other modules are checked against (DESIGN.md).
 *
 * Slot d of a box holds the payload of the box at offset d.  On small grids
 * many slots come from the same rank (periodic images) or from the box
 * itself, so direct sends one message per distinct peer rank, as production
 * halo exchanges do (Comb, neighbourhood collectives): MPI_Isend of the
 * payload once to each peer, MPI_Irecv of each peer's payload straight into
 * the first slot it fills, then copies into that peer's other slots and of
 * the own payload into the slots the box fills itself (copy_to_slots: a
 * part at a time to every slot where they fit the L2).  With trimming
 * (trim.h) every slot holds a different part; a peer's parts then travel
 * together in one message, a count per part in front, and are placed on
 * arrival.  Sizes of varied payloads are learnt with MPI_Probe.  Slots are
 * laid out in [dz][dy][dx] order without records.
 *
 * Which slots come from which peer is direct_partners' edge list (slot
 * order at both ends, tests/test_schedules.c), grouped by rank. */
#include "direct.h"
#include "exchange.h"
#include "../src/log.h"
#include "../src/model.h"
#include "replicate.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { DIRECT_TAG = 1 }; /* within the module's range: exchange_tag */

/* One distinct partner rank and the slots it is part of. */
struct peer {
    int rank;
    int nrecv, *recv;    /* slots of this box filled by the peer, in slot order */
    int nsend, *send;    /* slots of the peer filled by this box, in slot order */
    size_t recv_bytes;   /* this exchange: bytes arriving from it */
    unsigned char *pack; /* trimming: the parts this box sends it */
    size_t pack_cap, pack_len;
    unsigned char *stage; /* trimming: the parts it sends, as they arrive */
    size_t stage_cap;
};

struct direct {
    int npeers;
    struct peer *peers;
    int nself, *self;            /* slots this box fills itself (its images), centre excluded */
    int (*slot_offsets)[3];      /* offset d of every slot */
    struct trim_choice *choices; /* trimming: per slot, what the box there keeps of ours */
    size_t *part;                /* trimming: items kept for each slot, this exchange */
    struct peer own;             /* trimming: the box's parts for its own images */
    unsigned char **places;      /* where one payload's copies go (copy_to_slots) */
    MPI_Request *requests;       /* 2 per peer */
    unsigned char *buf;          /* the slots */
    size_t cap;
};

int direct_partners(const int dims[3], const int coords[3], const int k[3], int *sources,
                    int *destinations)
{
    int e = 0;
    for (int dz = -k[2]; dz <= k[2]; dz++)
        for (int dy = -k[1]; dy <= k[1]; dy++)
            for (int dx = -k[0]; dx <= k[0]; dx++) {
                if (!dx && !dy && !dz) continue;
                const int ahead[3] = {dx, dy, dz}, behind[3] = {-dx, -dy, -dz};
                sources[e] = box_at(dims, coords, ahead).rank;
                destinations[e] = box_at(dims, coords, behind).rank;
                e++;
            }
    return e;
}

static struct peer *peer_of(struct direct *s, int rank, int most)
{
    for (int i = 0; i < s->npeers; i++)
        if (s->peers[i].rank == rank) return &s->peers[i];
    struct peer *p = &s->peers[s->npeers++];
    memset(p, 0, sizeof *p);
    p->rank = rank;
    p->recv = sb_malloc((size_t)most * sizeof *p->recv, "a peer's slots");
    p->send = sb_malloc((size_t)most * sizeof *p->send, "a peer's slots");
    return p;
}

static int direct_setup(struct exchange *x)
{
    const struct topology *t = x->topo;
    struct direct *s = sb_calloc(1, sizeof *s, "direct's state");
    x->state = s;
    struct slots shape;
    slots_init(&shape, x->kdim);
    int n = shape.count - 1, centre = slot_centre(&shape);
    int *sources = sb_malloc((size_t)(n + 1) * sizeof *sources, "direct's sources");
    int *destinations = sb_malloc((size_t)(n + 1) * sizeof *destinations, "direct's destinations");
    direct_partners(t->dims, t->coords, x->kdim, sources, destinations);
    s->peers = sb_calloc((size_t)(n + 1), sizeof *s->peers, "direct's peers");
    s->self = sb_malloc((size_t)(n + 1) * sizeof *s->self, "direct's own slots");
    s->slot_offsets = sb_malloc((size_t)shape.count * sizeof *s->slot_offsets, "slot offsets");
    for (int i = 0; i < shape.count; i++)
        slot_offset(&shape, i, s->slot_offsets[i]);
    int me = t->box; /* the leaders' communicator numbers boxes */
    for (int i = 0, e = 0; i < shape.count; i++) {
        if (i == centre) continue;
        if (sources[e] == me) {
            s->self[s->nself++] = i;
        } else {
            struct peer *p = peer_of(s, sources[e], n);
            p->recv[p->nrecv++] = i;
        }
        if (destinations[e] != me) {
            struct peer *p = peer_of(s, destinations[e], n);
            p->send[p->nsend++] = i;
        }
        e++;
    }
    free(sources);
    free(destinations);
    slots_free(&shape);
    int most = s->nself; /* the most places one copy_to_slots fills */
    for (int i = 0; i < s->npeers; i++)
        if (s->peers[i].nrecv - 1 > most) most = s->peers[i].nrecv - 1;
    s->places = sb_malloc((size_t)(most + 1) * sizeof *s->places, "direct's copies");
    if (x->opts.trim) {
        s->choices = sb_calloc((size_t)(n + 1), sizeof *s->choices, "trim choices");
        s->part = sb_calloc((size_t)(n + 1), sizeof *s->part, "trimmed parts");
    }
    s->requests = sb_malloc((size_t)(2 * s->npeers + 1) * sizeof *s->requests, "requests");
    return SB_OK;
}

static int int_count(size_t n, const char *what, int *out)
{
    if (n > INT_MAX) {
        log_rank_error("direct: %s of %zu bytes exceeds MPI's int count", what, n);
        return SB_ERUNTIME;
    }
    *out = (int)n;
    return SB_OK;
}

/* Lays the slots out in slot order from out->size; false when they need
 * more than MPI's int displacements allow. */
static bool place_slots(struct direct *s, struct slots *out)
{
    size_t at = 0;
    for (int i = 0; i < out->count; i++) {
        out->offset[i] = at;
        at += out->size[i];
    }
    if (at > INT_MAX) return false;
    if (!s->buf || at > s->cap) {
        free(s->buf);
        s->cap = at + at / 4 + 8;
        s->buf = sb_malloc(s->cap, "direct's slots");
    }
    out->data = s->buf;
    return true;
}

/* Trimming: the items of our payload that the box holding it at slot i
 * needs, written to dst; their count in s->part[i]. */
static int trim_for_slot(struct exchange *x, struct direct *s, const struct payload *own, int i,
                         unsigned char *dst)
{
    const struct exchange_trim *t = x->opts.trim;
    struct trim_need need[3];
    for (int a = 0; a < 3; a++)
        need[a] = trim_need_one(s->slot_offsets[i][a]);
    struct sb_msg m;
    if (trim_items(t, &s->choices[i], x->reselect, own->data, own->bytes / t->item, need, dst,
                   &s->part[i], &m) != SB_OK) {
        log_rank_error("direct: %s", m.text);
        return SB_ERUNTIME; /* mid-exchange: see exchange.h */
    }
    return SB_OK;
}

/* Trimming: a peer's message is the item count of each slot it fills from
 * us (uint64, slot order), then those slots' items.  The box's own images
 * are packed the same way (s->own), without a message. */
static int pack_for_peer(struct exchange *x, struct direct *s, const struct payload *own,
                         struct peer *p)
{
    size_t head = (size_t)p->nsend * sizeof(uint64_t);
    size_t most = head + (size_t)p->nsend * own->bytes;
    if (!p->pack || p->pack_cap < most) {
        free(p->pack);
        p->pack_cap = most + most / 4 + 8;
        p->pack = sb_malloc(p->pack_cap, "direct's trimmed parts");
    }
    size_t at = head, item = x->opts.trim->item;
    for (int j = 0; j < p->nsend; j++) {
        int slot = p->send[j];
        CHECK(trim_for_slot(x, s, own, slot, p->pack + at));
        uint64_t count = s->part[slot];
        memcpy(p->pack + (size_t)j * sizeof count, &count, sizeof count);
        at += s->part[slot] * item;
    }
    p->pack_len = at;
    return SB_OK;
}

/* Trimming: a peer's message, received whole, gives the sizes of its slots. */
static int receive_parts(struct exchange *x, struct peer *p, struct slots *out)
{
    MPI_Comm comm = x->topo->leaders;
    MPI_Status status;
    int count;
    CHECK_MPI(MPI_Probe(p->rank, exchange_tag(x, DIRECT_TAG), comm, &status));
    CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
    if (!p->stage || p->stage_cap < (size_t)count) {
        free(p->stage);
        p->stage_cap = (size_t)count + (size_t)count / 4 + 8;
        p->stage = sb_malloc(p->stage_cap, "direct's received parts");
    }
    CHECK_MPI(MPI_Recv(p->stage, count, MPI_BYTE, p->rank, exchange_tag(x, DIRECT_TAG), comm,
                       MPI_STATUS_IGNORE));
    size_t head = (size_t)p->nrecv * sizeof(uint64_t), item = x->opts.trim->item;
    size_t total = head;
    for (int j = 0; j < p->nrecv && total <= (size_t)count; j++) {
        uint64_t n;
        memcpy(&n, p->stage + (size_t)j * sizeof n, sizeof n);
        out->size[p->recv[j]] = (size_t)n * item;
        total += (size_t)n * item;
    }
    if (total != (size_t)count) {
        log_rank_error("direct: rank %d sent %d bytes for %d slots, which do not add up", p->rank,
                       count, p->nrecv);
        return SB_ERUNTIME; /* mid-exchange: see exchange.h */
    }
    p->recv_bytes = (size_t)count;
    return SB_OK;
}

/* Places parts packed as pack_for_peer does (at `parts`, for `nslots` slots). */
static void unpack_parts(const unsigned char *parts, const int *slot, int nslots, struct slots *out)
{
    size_t at = (size_t)nslots * sizeof(uint64_t);
    for (int j = 0; j < nslots; j++) {
        size_t n = out->size[slot[j]];
        if (n) memcpy(out->data + out->offset[slot[j]], parts + at, n);
        at += n;
    }
}

/* The sizes of every slot: the own payload's, what each peer sends (probed
 * when payloads vary), or the parts it sends (trimming). */
static int learn_sizes(struct exchange *x, struct direct *s, const struct payload *own,
                       struct slots *out)
{
    MPI_Comm comm = x->topo->leaders;
    out->size[slot_centre(out)] = own->bytes;
    for (int j = 0; j < s->nself; j++)
        out->size[s->self[j]] = x->opts.trim ? 0 : own->bytes; /* trimmed: set when cut */
    for (int i = 0; i < s->npeers; i++) {
        struct peer *p = &s->peers[i];
        if (x->opts.trim) {
            CHECK(receive_parts(x, p, out));
            continue;
        }
        size_t n = own->bytes;
        if (!x->opts.uniform) {
            MPI_Status status;
            int count;
            CHECK_MPI(MPI_Probe(p->rank, exchange_tag(x, DIRECT_TAG), comm, &status));
            CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
            n = (size_t)count;
        }
        p->recv_bytes = n;
        for (int j = 0; j < p->nrecv; j++)
            out->size[p->recv[j]] = n;
    }
    if (!x->opts.trim) return SB_OK;
    /* our own images, cut as a peer would cut them */
    s->own.send = s->self;
    s->own.nsend = s->nself;
    CHECK(pack_for_peer(x, s, own, &s->own));
    for (int j = 0; j < s->nself; j++)
        out->size[s->self[j]] = s->part[s->self[j]] * x->opts.trim->item;
    return SB_OK;
}

/* Receives from every peer into the first slot it fills. */
static int post_receives(struct exchange *x, struct direct *s, struct slots *out, int *nreq)
{
    for (int i = 0; i < s->npeers; i++) {
        struct peer *p = &s->peers[i];
        if (p->nrecv == 0) continue;
        unsigned char *first = out->data + out->offset[p->recv[0]];
        CHECK_MPI(MPI_Irecv(first, (int)p->recv_bytes, MPI_BYTE, p->rank,
                            exchange_tag(x, DIRECT_TAG), x->topo->leaders,
                            &s->requests[(*nreq)++]));
    }
    return SB_OK;
}

/* The `len` bytes at src into the slots slot[0 .. n), by copy_to_places:
 * where the slots fit the L2, each part small enough for the L1 goes to
 * every slot before the next part is read, so a payload larger than the L1
 * is read once for all of them.  Copied a slot at a time, it was read again
 * for each: on 2 ranks at 100 kB and k = 8 direct took a median
 * 1.05x shift-isend's time in the same runs (whose images are replicated
 * so), 0.97x this way (docs/results/direct-replicate-ab.txt). */
static void copy_to_slots(struct direct *s, struct slots *out, const int *slot, int n,
                          const unsigned char *src, size_t len)
{
    for (int j = 0; j < n; j++)
        s->places[j] = out->data + out->offset[slot[j]];
    copy_to_places(s->places, n, src, len);
}

static int direct_run(struct exchange *x, const struct payload *own, struct slots *out)
{
    struct direct *s = x->state;
    MPI_Comm comm = x->topo->leaders;
    int nreq = 0, mine;
    CHECK(int_count(own->bytes, "a payload", &mine));
    static const unsigned char nothing;
    const unsigned char *data = own->bytes ? own->data : &nothing;
    /* Uniform sizes are known: the receives go first, so that messages find
     * them posted (MPI's expected path).  Otherwise sizes come with the
     * messages, learnt after the sends. */
    bool known = x->opts.uniform;
    if (known) {
        CHECK(learn_sizes(x, s, own, out));
        if (!place_slots(s, out)) {
            log_rank_error("direct: the slots exceed MPI's int displacements");
            return SB_ERUNTIME;
        }
        CHECK(post_receives(x, s, out, &nreq));
    }
    for (int i = 0; i < s->npeers; i++) {
        struct peer *p = &s->peers[i];
        if (p->nsend == 0) continue;
        const unsigned char *send = data;
        int n = mine;
        if (x->opts.trim) {
            CHECK(pack_for_peer(x, s, own, p));
            CHECK(int_count(p->pack_len, "a peer's parts", &n));
            send = p->pack;
        }
        CHECK_MPI(MPI_Isend(send, n, MPI_BYTE, p->rank, exchange_tag(x, DIRECT_TAG), comm,
                            &s->requests[nreq++]));
        x->last.messages++;
        x->last.bytes += n;
    }
    if (!known) {
        CHECK(learn_sizes(x, s, own, out));
        if (!place_slots(s, out)) {
            log_rank_error("direct: the slots exceed MPI's int displacements");
            return SB_ERUNTIME;
        }
        if (!x->opts.trim) CHECK(post_receives(x, s, out, &nreq));
    }
    /* the own payload into the centre and into the box's own images */
    unsigned char *centre = out->data + out->offset[slot_centre(out)];
    if (own->bytes) memcpy(centre, own->data, own->bytes);
    if (x->opts.trim) unpack_parts(s->own.pack, s->self, s->nself, out);
    if (!x->opts.trim) copy_to_slots(s, out, s->self, s->nself, own->data, own->bytes);
    CHECK_MPI(MPI_Waitall(nreq, s->requests, MPI_STATUSES_IGNORE));
    for (int i = 0; i < s->npeers; i++) {
        const struct peer *p = &s->peers[i];
        if (x->opts.trim) {
            unpack_parts(p->stage, p->recv, p->nrecv, out);
            continue;
        }
        if (p->nrecv == 0) continue;
        const unsigned char *first = out->data + out->offset[p->recv[0]];
        copy_to_slots(s, out, p->recv + 1, p->nrecv - 1, first, p->recv_bytes);
    }
    size_t staged = s->own.pack_len;
    for (int i = 0; i < s->npeers; i++)
        staged += s->peers[i].pack_len + s->peers[i].recv_bytes * (x->opts.trim != NULL);
    exchange_note_buffers(x, out->offset[out->count - 1] + out->size[out->count - 1] + staged);
    return SB_OK;
}

static void direct_destroy(struct exchange *x)
{
    struct direct *s = x->state;
    if (!s) return;
    for (int i = 0; i < s->npeers; i++) {
        free(s->peers[i].recv);
        free(s->peers[i].send);
        free(s->peers[i].pack);
        free(s->peers[i].stage);
    }
    int slots = 1;
    for (int d = 0; d < 3; d++)
        slots *= 2 * x->kdim[d] + 1;
    for (int e = 0; s->choices && e < slots; e++)
        trim_choice_free(&s->choices[e]);
    free(s->choices);
    free(s->part);
    free(s->own.pack);
    free(s->peers);
    free(s->self);
    free(s->places);
    free(s->slot_offsets);
    free(s->requests);
    free(s->buf);
    free(s);
}

/* The partners of a box at `c`'s grid, counted by rank: how many distinct
 * other ranks, and how many slots come from other ranks and from the box
 * itself.  With `offsets` (room for every slot), the distinct peers' box
 * offsets too. */
static int compare_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void count_partners(const struct model_case *c, int *peers, int *remote_slots,
                           int *self_slots, int (*offsets)[3])
{
    int k[3], dims[3], origin[3] = {0, 0, 0};
    for (int d = 0; d < 3; d++) {
        k[d] = (c->phases & (1u << d)) ? c->k : 0;
        dims[d] = c->dims[d];
    }
    int n = (2 * k[0] + 1) * (2 * k[1] + 1) * (2 * k[2] + 1) - 1;
    int *src = sb_malloc((size_t)(n + 1) * sizeof *src, "the model's partner list");
    int *dst = sb_malloc((size_t)(n + 1) * sizeof *dst, "the model's partner list");
    direct_partners(dims, origin, k, src, dst);
    /* the distinct sources, sorted, each with a flag once counted (by slot
       count, not by grid size: the grid may have 2^31 boxes) */
    int *distinct = sb_malloc((size_t)(n + 1) * sizeof *distinct, "the model's partner list");
    memcpy(distinct, src, (size_t)n * sizeof *distinct);
    qsort(distinct, (size_t)n, sizeof *distinct, compare_int);
    bool *counted = sb_calloc((size_t)n + 1, sizeof *counted, "the model's partner list");
    *peers = *remote_slots = *self_slots = 0;
    for (int e = 0; e < n; e++) {
        if (src[e] == 0) {
            ++*self_slots;
            continue;
        }
        ++*remote_slots;
        const int *at = bsearch(&src[e], distinct, (size_t)n, sizeof *distinct, compare_int);
        size_t i = (size_t)(at - distinct);
        while (i > 0 && distinct[i - 1] == src[e])
            i--; /* the first of equal ones */
        if (counted[i]) continue;
        counted[i] = true;
        if (offsets) coords_of_rank(dims, src[e], offsets[*peers]);
        ++*peers;
    }
    free(src);
    free(dst);
    free(distinct);
    free(counted);
}

/* One message to each distinct peer, all in flight at once as the exchange
 * starts, each carrying the payload just written (model_start), and two
 * groups of copies (model_copy), as direct_run makes them: the own payload
 * into the centre and the box's own images while the messages fly, then
 * each peer's payload into its further slots (docs/MODEL.md).  On a torus
 * (model.torus) the messages to peers further than a hop share links and
 * the ports they pass. */
static void direct_model(const struct hockney *h, const struct model_case *c, struct model_terms *t)
{
    int peers, remote, self, slots = (2 * c->k + 1) * (2 * c->k + 1) * (2 * c->k + 1);
    int(*offsets)[3] =
        model_torus(h) ? sb_malloc((size_t)slots * sizeof *offsets, "peer offsets") : NULL;
    count_partners(c, &peers, &remote, &self, offsets);
    model_start(t, h, peers, c->bytes);
    if (offsets)
        model_contention(t, h, peers, model_net_load(h, c, 1, peers, (const int(*)[3])offsets),
                         c->bytes);
    model_copy(t, h, self + 1, c->bytes);
    model_copy(t, h, remote - peers, c->bytes);
    free(offsets);
}

const exchange_ops direct_ops = {
    .name = "direct",
    .summary = "every box within k layers straight from its owner: one message per distinct "
               "peer rank, all in flight at once (the reference)",
    .teams = false,
    .setup = direct_setup,
    .run = direct_run,
    .destroy = direct_destroy,
    .model = direct_model,
};
