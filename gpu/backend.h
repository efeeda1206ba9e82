/* The stencil backends: one ops table, two implementations (DESIGN.md
 * "Deep-halo stencil").  gpu/backend_cpu.c is the reference; the CUDA
 * backend (gpu/backend_cuda.cu) is checked against it.
 *
 * A backend holds two copies of one rank's subdomain with its halo (the
 * field being read, `in`, and the one being written, `out`), the stencil
 * weights, and the buffers that MPI sends from and receives into.  The
 * driver (src/stencil/) describes everything as boxes in the coordinates of
 * the allocated array, so the backend never needs to know about ranks,
 * neighbours or exchange modes.
 *
 * Memory order: x fastest, then y, then z; a 2D field has ext[2] == 1.
 * The update of one point follows seed 004 Listing 2: the weighted values
 * are added one by one, starting from zero, in the order
 *   2D: (x, y-1), (x-1, y), (x, y), (x+1, y), (x, y+1)
 *   3D: (x, y, z-1), then the 2D order, then (x, y, z+1)
 * so that every backend rounds alike and results can be compared bit for
 * bit. */
#ifndef SB_GPU_BACKEND_H
#define SB_GPU_BACKEND_H

#include "../src/error.h"

#include <stdbool.h>
#include <stddef.h>

/* A half-open box [lo, hi) in array coordinates. */
struct sbox {
    int lo[3], hi[3];
};

static inline size_t sbox_points(const struct sbox *b)
{
    size_t n = 1;
    for (int a = 0; a < 3; a++)
        n *= b->hi[a] > b->lo[a] ? (size_t)(b->hi[a] - b->lo[a]) : 0;
    return n;
}

struct stencil_layout {
    int dim;             /* 2 or 3 */
    int ext[3];          /* allocated extents: own points + 2 * halo (1 in z for 2D) */
    int pitch;           /* points from one line to the next in the backend's fields;
                            0: ext[0], as in the host's copies (upload, download).
                            The CPU backend pads its lines to whole cache lines */
    int align_x;         /* CPU: the x at which the lines start a cache line, the first
                            own point (the halo's width) */
    int real_bytes;      /* 4 (float) or 8 (double) */
    double weights[7];   /* 5 used in 2D, 7 in 3D, in the order above */
    bool pinned;         /* CUDA: page-locked host staging buffers */
    bool device_buffers; /* CUDA: MPI reads and writes device memory (CUDA-aware MPI) */
    int device_sharers;  /* CUDA: ranks of this node that share this rank's GPU */
    int threads;         /* CPU: OpenMP threads per rank (0: OpenMP's default) */
    int node_ranks;      /* CPU: ranks of this node, which share its last-level cache */
    int stores;          /* CPU: STORES_*, stencil.stores; after init what the sweeps use */
    int cuda_rows;       /* CUDA: rows of points per thread of the sweep kernel, 1|2|4|8;
                            0: sweep_rows' choice */
    int cuda_blocking;   /* CUDA, temporal blocking: CUDA_BLOCKING_*, stencil.cuda_blocking */
    bool temporal;       /* stencil.blocking = temporal (CUDA: shared-memory tiles need a
                            third field) */
};

/* Where the CUDA backend's temporal blocking keeps a tile (stencil.cuda_blocking):
 * in shared memory, one kernel for all sweeps of a batch (2D, up to
 * cuda_shared_sweeps(real_bytes) sweeps a batch), or in the L2 cache, one
 * kernel per tile and sweep; auto: shared where it applies, else L2. */
enum { CUDA_BLOCKING_AUTO, CUDA_BLOCKING_SHARED, CUDA_BLOCKING_L2 };

/* Whether 2D temporal blocking on CUDA may keep its tiles in shared memory
 * (the backend then allocates a third field; the batch's length decides). */
static inline bool cuda_blocking_shared(int dim, int cuda_blocking)
{
    return dim == 2 && cuda_blocking != CUDA_BLOCKING_L2;
}

/* The most sweeps one batch of shared-memory tiles takes: a quarter of the
 * tile's shorter side (96 x 64 points in float, 64 x 48 in double), so
 * that at least half of each side is the tile's own. */
static inline int cuda_shared_sweeps(int real_bytes)
{
    return real_bytes == 4 ? 16 : 12;
}

/* Rows of points per thread of the CUDA sweep kernel (stencil.cuda_rows):
 * the requested count, or for 0 (auto) as many as make 32 bytes of one
 * column, 8 in float and 4 in double (measured best on an H200:
 * docs/results/gpu-h200.md). */
static inline int sweep_rows(int requested, int real_bytes)
{
    return requested > 0 ? requested : 32 / real_bytes;
}

/* How the CPU's plain sweeps store (stencil.stores): streaming past the
 * cache where the fields exceed an eighth of the reported last-level cache
 * (auto, gpu/backend_cpu.c), or always one way.  Streaming needs AVX-512 or
 * AVX2 and a GCC build (gpu/backend_cpu_simd.c); without them the sweeps
 * store as usual. */
enum { STORES_AUTO, STORES_CACHED, STORES_STREAMING };

/* Points of a field as the host holds it (upload, download): lines of
 * ext[0] points, one after the other. */
static inline size_t layout_points(const struct stencil_layout *l)
{
    return (size_t)l->ext[0] * (size_t)l->ext[1] * (size_t)l->ext[2];
}

/* Points from one line to the next in the backend's fields. */
static inline size_t layout_pitch(const struct stencil_layout *l)
{
    return l->pitch > 0 ? (size_t)l->pitch : (size_t)l->ext[0];
}

/* The pitch the CPU backend gives its fields: lines of ext0 points padded
 * to whole 64-byte cache lines (gpu/backend_cpu.c). */
static inline int layout_cache_line_pitch(int ext0, int real_bytes)
{
    int lanes = 64 / real_bytes;
    return (ext0 + lanes - 1) / lanes * lanes;
}

/* Points of a field as the backend holds it, the padding of its lines
 * included. */
static inline size_t layout_stored_points(const struct stencil_layout *l)
{
    return layout_pitch(l) * (size_t)l->ext[1] * (size_t)l->ext[2];
}

/* The index of point (x, y, z) in one of the backend's fields (x fastest). */
static inline size_t layout_index(const struct stencil_layout *l, int x, int y, int z)
{
    return ((size_t)z * (size_t)l->ext[1] + (size_t)y) * layout_pitch(l) + (size_t)x;
}

struct stencil_backend;

struct stencil_backend_ops {
    const char *name;
    /* Allocates both fields (zeroed) and its streams.  SB_EUSAGE with the
     * numbers when the fields do not fit in the memory the backend uses. */
    int (*init)(struct stencil_backend *b, const struct stencil_layout *l, struct sb_msg *m);
    void (*destroy)(struct stencil_backend *b);
    /* A buffer MPI can send from and receive into (host or device memory). */
    void *(*buffer_alloc)(struct stencil_backend *b, size_t bytes);
    void (*buffer_free)(struct stencil_backend *b, void *p);
    /* Whole `in` field (ext points) from / to host memory. */
    int (*upload)(struct stencil_backend *b, const void *host);
    int (*download)(struct stencil_backend *b, void *host);
    /* Copies box i of `in` into buf[i], contiguous, x fastest; returns when
     * every buffer may be handed to MPI.  Seconds spent in *seconds. */
    int (*pack)(struct stencil_backend *b, int n, const struct sbox *box, void *const *buf,
                double *seconds);
    /* The reverse: buf[i] into box i of `in`. */
    int (*unpack)(struct stencil_backend *b, int n, const struct sbox *box, void *const *buf,
                  double *seconds);
    /* out = stencil(in) on each box; returns when done. */
    int (*sweep)(struct stencil_backend *b, int n, const struct sbox *box, double *seconds);
    /* Starts out = stencil(in) on one box concurrently with what follows
     * (pack, unpack and MPI calls); sweep_wait returns when it is done with
     * the time it took. */
    int (*sweep_start)(struct stencil_backend *b, const struct sbox *box);
    int (*sweep_wait)(struct stencil_backend *b, double *seconds);
    /* Exchanges the roles of `in` and `out`. */
    void (*swap)(struct stencil_backend *b);
    /* Copy bandwidth of this memory: copies `in` to `out` `reps` times;
     * seconds for all. */
    int (*copy_time)(struct stencil_backend *b, int reps, double *seconds);
    /* The largest cache in front of this memory (CPU: the last level; GPU:
     * L2), so that a calibration can measure the memory, not the cache. */
    size_t (*cache_bytes)(void);
    /* Optional (NULL: not measured): the cache that temporal blocking's
     * tiles work in (CPU: the L2), where calibrate times the sweeps of a
     * field that fits it: the most that blocking can reach with these
     * lines. */
    size_t (*near_cache_bytes)(void);
    /* Optional (NULL: the backend has none): n sweeps on box[0 .. n-1] in
     * one pass over memory (temporal blocking), leaving both fields as n
     * calls of sweep and swap would, bit for bit.  `tile`: lines per tile
     * of the blocked axis, 0 sized to the cache. */
    int (*sweeps_blocked)(struct stencil_backend *b, int n, const struct sbox *box, int tile,
                          double *seconds);
    /* Optional: the bytes of cache that tile = 0 sizes the tiles to (NULL:
     * the backend's own L2, described as such). */
    size_t (*tile_cache_bytes)(void);
    /* Optional (NULL: tile = 0 is the backend's own choice): the tiles
     * worth timing for batches of n sweeps, ascending, at most max; returns
     * how many.  With stencil.tile = 0 the driver times each on batches of
     * the run's shape and keeps the fastest (src/stencil/tune.c), as a
     * cache the system reports may be far larger than the one a rank gets. */
    int (*tile_candidates)(const struct stencil_layout *l, int n, int *tiles, int max);
    /* Optional: where the sweeps_blocked calls since init kept their tiles,
     * for the report: "shared", "l2" or "shared+l2" (CUDA); NULL when none
     * ran or the backend has one place only. */
    const char *(*blocked_where)(struct stencil_backend *b);
};

struct stencil_backend {
    const struct stencil_backend_ops *ops;
    struct stencil_layout layout;
    void *impl; /* the backend's own state */
};

extern const struct stencil_backend_ops stencil_backend_cpu;
/* NULL when the binary was built without CUDA (gpu/backend_none.c). */
extern const struct stencil_backend_ops *const stencil_backend_cuda;

#endif
