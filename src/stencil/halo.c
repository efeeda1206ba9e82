#include "halo.h"

#include "../decomp.h"

#include <string.h>

static int build_phase(struct halo_plan *h, struct halo_phase *p, const struct stencil_grid *g,
                       const int dims[3])
{
    int real_bytes = h->backend->layout.real_bytes;
    for (int i = 0; i < p->count; i++) {
        const struct halo_message *msg = &p->msg[i];
        p->peer[i] = box_at(dims, g->coords, msg->offset).rank;
        p->send_box[i] = msg->send;
        p->recv_box[i] = msg->recv;
        p->bytes[i] = sbox_points(&msg->send) * (size_t)real_bytes;
        p->send_buf[i] = h->backend->ops->buffer_alloc(h->backend, p->bytes[i]);
        p->recv_buf[i] = h->backend->ops->buffer_alloc(h->backend, p->bytes[i]);
        if (!p->send_buf[i] || !p->recv_buf[i]) return SB_ERUNTIME;
        h->bytes_sent += p->bytes[i];
    }
    return SB_OK;
}

int halo_plan_init(struct halo_plan *h, const struct stencil_grid *g, bool async, MPI_Comm comm,
                   const int dims[3], struct stencil_backend *backend)
{
    memset(h, 0, sizeof *h);
    h->comm = comm;
    h->backend = backend;
    if (async) {
        h->nphases = 1;
        h->phase[0].count = grid_async_messages(g, h->phase[0].msg);
    } else {
        h->nphases = g->dim;
        for (int a = 0; a < g->dim; a++)
            h->phase[a].count = grid_sync_messages(g, a, h->phase[a].msg);
    }
    for (int p = 0; p < h->nphases; p++)
        CHECK(build_phase(h, &h->phase[p], g, dims));
    return SB_OK;
}

void halo_plan_free(struct halo_plan *h)
{
    for (int p = 0; p < h->nphases; p++)
        for (int i = 0; i < h->phase[p].count; i++) {
            if (h->phase[p].send_buf[i])
                h->backend->ops->buffer_free(h->backend, h->phase[p].send_buf[i]);
            if (h->phase[p].recv_buf[i])
                h->backend->ops->buffer_free(h->backend, h->phase[p].recv_buf[i]);
        }
    memset(h, 0, sizeof *h);
}

int halo_pack(struct halo_plan *h, int phase, double *seconds)
{
    struct halo_phase *p = &h->phase[phase];
    return h->backend->ops->pack(h->backend, p->count, p->send_box, p->send_buf, seconds);
}

int halo_unpack(struct halo_plan *h, int phase, double *seconds)
{
    struct halo_phase *p = &h->phase[phase];
    return h->backend->ops->unpack(h->backend, p->count, p->recv_box, p->recv_buf, seconds);
}

/* Receives posted first, then sends, then wait for all (Listing 13). */
int halo_transfer(struct halo_plan *h, int phase, double *seconds)
{
    struct halo_phase *p = &h->phase[phase];
    MPI_Request req[2 * STENCIL_MAX_NEIGHBOURS];
    double t0 = MPI_Wtime();
    for (int i = 0; i < p->count; i++)
        CHECK_MPI(MPI_Irecv(p->recv_buf[i], (int)p->bytes[i], MPI_BYTE, p->peer[i],
                            p->msg[i].recv_tag, h->comm, &req[i]));
    for (int i = 0; i < p->count; i++)
        CHECK_MPI(MPI_Isend(p->send_buf[i], (int)p->bytes[i], MPI_BYTE, p->peer[i],
                            p->msg[i].send_tag, h->comm, &req[p->count + i]));
    CHECK_MPI(MPI_Waitall(2 * p->count, req, MPI_STATUSES_IGNORE));
    *seconds = MPI_Wtime() - t0;
    return SB_OK;
}
