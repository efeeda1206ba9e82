/* direct: every one of the (2k+1)^3 - 1 partners at once, the reference the
 * other modules are checked against (DESIGN.md).  One
 * MPI_Neighbor_alltoallv on a distributed graph made by
 * MPI_Dist_graph_create_adjacent (reorder 0) moves every slot straight into
 * place; with varied payloads an MPI_Neighbor_alltoall of the sizes goes
 * first.  Slots are laid out in [dz][dy][dx] order without records. */
#include "direct.h"
#include "exchange.h"
#include "../src/log.h"
#include "../src/model.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct direct {
    MPI_Comm graph;
    int nedges;
    int (*edge_offset)[3];       /* the slot offset of each edge */
    struct trim_choice *choices; /* with trimming: what each edge carries */
    unsigned char *send;         /* with trimming: every edge's part */
    size_t send_cap;
    int *send_counts, *send_displs, *recv_counts, *recv_displs;
    unsigned char *buf; /* the slots */
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

static int direct_setup(struct exchange *x)
{
    const struct topology *t = x->topo;
    struct direct *s = sb_calloc(1, sizeof *s, "direct's state");
    x->state = s;
    struct slots shape;
    slots_init(&shape, x->kdim);
    int n = shape.count - 1;
    int *sources = sb_malloc((size_t)(n + 1) * sizeof *sources, "graph sources");
    int *destinations = sb_malloc((size_t)(n + 1) * sizeof *destinations, "graph destinations");
    s->nedges = direct_partners(t->dims, t->coords, x->kdim, sources, destinations);
    s->edge_offset = sb_malloc((size_t)(n + 1) * sizeof *s->edge_offset, "edge offsets");
    for (int i = 0, e = 0; i < shape.count; i++)
        if (i != slot_centre(&shape)) slot_offset(&shape, i, s->edge_offset[e++]);
    if (x->opts.trim) s->choices = sb_calloc((size_t)(n + 1), sizeof *s->choices, "trim choices");
    slots_free(&shape);
    /* Open MPI's MPI_UNWEIGHTED is the sentinel (int *) 2, which GCC takes
     * for a pointer to zero bytes that the call would read. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
    int rc =
        MPI_Dist_graph_create_adjacent(t->leaders, s->nedges, sources, MPI_UNWEIGHTED, s->nedges,
                                       destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &s->graph);
#pragma GCC diagnostic pop
    free(sources);
    free(destinations);
    CHECK_MPI(rc);
    CHECK_MPI(MPI_Comm_set_errhandler(s->graph, MPI_ERRORS_RETURN));
    size_t edges = (size_t)(s->nedges > 0 ? s->nedges : 1);
    s->send_counts = sb_calloc(edges, sizeof(int), "send counts");
    s->send_displs = sb_calloc(edges, sizeof(int), "send displacements");
    s->recv_counts = sb_calloc(edges, sizeof(int), "receive counts");
    s->recv_displs = sb_calloc(edges, sizeof(int), "receive displacements");
    return SB_OK;
}

/* Lays the slots out in slot order from their sizes; false when an offset
 * would not fit MPI's int displacements. */
static bool place_slots(struct direct *s, struct slots *out, size_t own_bytes)
{
    size_t at = 0;
    int centre = slot_centre(out);
    for (int i = 0, e = 0; i < out->count; i++) {
        out->size[i] = i == centre ? own_bytes : (size_t)s->recv_counts[e];
        out->offset[i] = at;
        if (i != centre) {
            if (at > INT_MAX) return false;
            s->recv_displs[e++] = (int)at;
        }
        at += out->size[i];
    }
    if (!s->buf || at > s->cap) {
        free(s->buf);
        s->cap = at + at / 4;
        s->buf = sb_malloc(s->cap, "direct's slots");
    }
    out->data = s->buf;
    return true;
}

/* With trimming, edge e carries the items its receiver needs along each
 * axis, seen from slot edge_offset[e]; the parts lie one after another in
 * s->send. */
static int trim_per_edge(struct exchange *x, struct direct *s, const struct payload *own)
{
    const struct exchange_trim *t = x->opts.trim;
    size_t items = own->bytes / t->item, at = 0;
    for (int e = 0; e < s->nedges; e++) {
        if (at + own->bytes > s->send_cap || !s->send) {
            s->send_cap = (at + own->bytes) * 3 / 2 + 64;
            s->send = sb_realloc(s->send, s->send_cap, "direct's trimmed payloads");
        }
        struct trim_need need[3];
        for (int a = 0; a < 3; a++)
            need[a] = trim_need_one(s->edge_offset[e][a]);
        size_t kept;
        struct sb_msg m;
        if (trim_items(t, &s->choices[e], x->reselect, own->data, items, need, s->send + at, &kept,
                       &m) != SB_OK) {
            log_rank_error("direct: %s", m.text);
            return SB_EVERIFY;
        }
        if (at > INT_MAX || kept * t->item > INT_MAX) {
            log_rank_error("direct: the trimmed payloads exceed MPI's int counts");
            return SB_ERUNTIME;
        }
        s->send_counts[e] = (int)(kept * t->item);
        s->send_displs[e] = (int)at;
        at += kept * t->item;
    }
    return SB_OK;
}

static int direct_run(struct exchange *x, const struct payload *own, struct slots *out)
{
    struct direct *s = x->state;
    if (own->bytes > INT_MAX) {
        log_rank_error("direct: a payload of %zu bytes exceeds MPI's int count", own->bytes);
        return SB_ERUNTIME;
    }
    int mine = (int)own->bytes;
    for (int e = 0; e < s->nedges; e++) {
        s->send_counts[e] = mine;
        s->send_displs[e] = 0; /* every partner gets the same payload */
    }
    if (x->opts.trim) CHECK(trim_per_edge(x, s, own));
    if (x->opts.uniform) {
        for (int e = 0; e < s->nedges; e++)
            s->recv_counts[e] = mine;
    } else {
        /* One element per neighbour: send_counts holds each one's size. */
        CHECK_MPI(MPI_Neighbor_alltoall(s->send_counts, 1, MPI_INT, s->recv_counts, 1, MPI_INT,
                                        s->graph));
        x->last.messages += s->nedges;
        x->last.bytes += (long long)s->nedges * (long long)sizeof(int);
    }
    if (!place_slots(s, out, own->bytes)) {
        log_rank_error("direct: the slots exceed MPI's int displacements");
        return SB_ERUNTIME;
    }
    static const unsigned char nothing;
    const void *send = x->opts.trim ? s->send : own->bytes ? own->data : &nothing;
    if (!send) send = &nothing;
    CHECK_MPI(MPI_Neighbor_alltoallv(send, s->send_counts, s->send_displs, MPI_BYTE, s->buf,
                                     s->recv_counts, s->recv_displs, MPI_BYTE, s->graph));
    int centre = slot_centre(out);
    if (own->bytes) memcpy(s->buf + out->offset[centre], own->data, own->bytes);
    x->last.messages += s->nedges;
    for (int e = 0; e < s->nedges; e++)
        x->last.bytes += s->send_counts[e];
    exchange_note_buffers(x, out->offset[out->count - 1] + out->size[out->count - 1]);
    return SB_OK;
}

static void direct_destroy(struct exchange *x)
{
    struct direct *s = x->state;
    if (!s) return;
    if (s->graph != MPI_COMM_NULL) MPI_Comm_free(&s->graph);
    free(s->edge_offset);
    for (int e = 0; s->choices && e < s->nedges; e++)
        trim_choice_free(&s->choices[e]);
    free(s->choices);
    free(s->send);
    free(s->send_counts);
    free(s->send_displs);
    free(s->recv_counts);
    free(s->recv_displs);
    free(s->buf);
    free(s);
}

/* Every partner directly, one message after another from the rank's point
 * of view (MPI's per-message overhead does not overlap); partners that are
 * the box itself (small grids) are copies. */
static void direct_model(const struct hockney *h, const struct model_case *c, struct model_terms *t)
{
    int k[3];
    for (int d = 0; d < 3; d++)
        k[d] = (c->phases & (1u << d)) ? c->k : 0;
    double remote = 0, self = -1; /* the centre is no partner */
    for (int dz = -k[2]; dz <= k[2]; dz++)
        for (int dy = -k[1]; dy <= k[1]; dy++)
            for (int dx = -k[0]; dx <= k[0]; dx++) {
                const int d[3] = {dx, dy, dz};
                bool mine = true;
                for (int a = 0; a < 3; a++)
                    mine &= d[a] % c->dims[a] == 0;
                remote += !mine;
                self += mine;
            }
    model_add(t, h, remote, c->bytes);
    model_copy(t, h, self, c->bytes);
}

const exchange_ops direct_ops = {
    .name = "direct",
    .summary = "every (2k+1)^3 - 1 partner at once: MPI_Neighbor_alltoallv on a distributed "
               "graph (the reference)",
    .teams = false,
    .setup = direct_setup,
    .run = direct_run,
    .destroy = direct_destroy,
    .model = direct_model,
};
