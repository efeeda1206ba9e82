/* The halo exchange of the stencil: the messages of grid.h, their buffers
 * and peers, and the MPI calls that move them.  `sync` has one phase per
 * axis (two messages each); `async` one phase with 8 or 26 messages
 * (seed 004 Listings 12 and 13). */
#ifndef SB_STENCIL_HALO_H
#define SB_STENCIL_HALO_H

#include "grid.h"

#include <mpi.h>
#include <stdbool.h>

struct halo_phase {
    int count;
    struct halo_message msg[STENCIL_MAX_NEIGHBOURS];
    int peer[STENCIL_MAX_NEIGHBOURS];
    struct sbox send_box[STENCIL_MAX_NEIGHBOURS], recv_box[STENCIL_MAX_NEIGHBOURS];
    void *send_buf[STENCIL_MAX_NEIGHBOURS], *recv_buf[STENCIL_MAX_NEIGHBOURS];
    size_t bytes[STENCIL_MAX_NEIGHBOURS];
};

struct halo_plan {
    MPI_Comm comm;
    struct stencil_backend *backend;
    int nphases;
    struct halo_phase phase[3];
    size_t bytes_sent; /* per exchange, by this rank */
};

/* Builds the plan and allocates its buffers from the backend.  `async`
 * chooses the mode; `dims` is the rank grid (1 in z for 2D) the peers are
 * found in. */
int halo_plan_init(struct halo_plan *h, const struct stencil_grid *g, bool async, MPI_Comm comm,
                   const int dims[3], struct stencil_backend *backend);
void halo_plan_free(struct halo_plan *h);

/* The three steps of one phase; seconds spent in each go to *seconds. */
int halo_pack(struct halo_plan *h, int phase, double *seconds);
int halo_transfer(struct halo_plan *h, int phase, double *seconds);
int halo_unpack(struct halo_plan *h, int phase, double *seconds);

#endif
