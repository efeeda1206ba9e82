/* One deep-halo stencil run: a backend holding this rank's subdomain, the
 * halo plan, and the iteration loop of seed 004 Listing 10 (overlap) and
 * Appendix B (serial), with its segments timed as sec. 3.5 lists them. */
#ifndef SB_STENCIL_RUN_H
#define SB_STENCIL_RUN_H

#include "halo.h"

#include <stdint.h>

/* seed 004 Appendix C's columns, in its order. */
enum stencil_segment {
    SEG_EXECUTION, /* Ex.: the whole loop */
    SEG_PACK,      /* Pack */
    SEG_UNPACK,    /* Unpack */
    SEG_INNER,     /* I. Cal.: interior sweep of the overlapped first sweep */
    SEG_OUTER,     /* O. Cal.: its outer frame */
    SEG_PRIMARY,   /* P. Cal.: every other sweep */
    SEG_MESSAGE,   /* Mess.: the MPI calls */
    SEG_DESYNC,    /* Desyn.: the barrier timed before the message */
    NSEGMENTS
};

extern const char *const stencil_segment_names[NSEGMENTS];

struct stencil_params {
    int dim;
    int global[3];
    int depth;
    bool async;
    bool overlap;
    long iterations;
    int real_bytes;
    double weights[7];
    bool pinned, device_buffers;
    int device_sharers; /* ranks of this node on this rank's GPU (CUDA) */
    int threads;
    int node_ranks;    /* ranks of this node (the CPU's streaming stores decide by them) */
    int stores;        /* stencil.stores: STORES_* of gpu/backend.h */
    int cuda_rows;     /* stencil.cuda_rows: rows per thread of the CUDA sweep kernel */
    int cuda_blocking; /* stencil.cuda_blocking: CUDA_BLOCKING_* (gpu/backend.h) */
    bool full_sweeps;  /* stencil.sweep = full: every sweep on the whole extended subdomain */
    bool temporal;     /* stencil.blocking = temporal, where the backend has it */
    int tile;          /* stencil.tile: lines per tile of temporal blocking (0: auto) */
    long inject_fault; /* exchange number after which one halo value is corrupted; -1: none */
};

struct stencil_run {
    struct stencil_params p;
    MPI_Comm comm;
    int rank, nranks;
    int dims[3];
    struct stencil_grid grid;
    struct stencil_backend backend;
    struct halo_plan halo;
    bool have_backend, have_halo;
    struct sbox *regions; /* the sweep regions 0 .. depth-1 */
    long exchanges;       /* exchanges done since the field was filled */
    double seg[NSEGMENTS];
};

/* Allocates the subdomain and the halo buffers.  SB_EUSAGE when the
 * configuration cannot run (the message says why). */
int stencil_setup(struct stencil_run *r, const struct stencil_params *p, MPI_Comm comm,
                  const int dims[3], const struct stencil_backend_ops *ops, struct sb_msg *m);
void stencil_teardown(struct stencil_run *r);

/* The initial field: a pattern of global coordinates (never constant, so
 * that an indexing error shows), halos zero.  Resets the timers. */
int stencil_fill(struct stencil_run *r);

/* Runs `iterations` sweeps, exchanging every depth sweeps; adds to r->seg. */
int stencil_iterate(struct stencil_run *r, long iterations);

/* This rank's own points, contiguous (x fastest), into dst. */
int stencil_own_points(struct stencil_run *r, void *dst);
size_t stencil_own_count(const struct stencil_run *r);
/* The reverse: own points from src (a restart), halos zero until the next
 * exchange fills them.  Resets the timers, as stencil_fill does. */
int stencil_set_own_points(struct stencil_run *r, const void *src);

/* An order-independent 64-bit hash of own points and their global
 * coordinates: XOR over ranks gives the same value for any decomposition
 * exactly when the field is the same bit for bit. */
uint64_t stencil_hash(const struct stencil_run *r, const void *own);

/* The value of the initial pattern at global coordinates (x, y, z). */
double stencil_pattern(int x, int y, int z);

#endif
