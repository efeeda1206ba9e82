#include "run.h"

#include "../decomp.h"
#include "../log.h"
#include "../splitmix.h"
#include "../vectorize.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

const char *const stencil_segment_names[NSEGMENTS] = {
    "execution", "pack", "unpack", "inner", "outer", "primary", "message", "desync",
};

double stencil_pattern(int x, int y, int z)
{
    /* A ramp in each axis, folded so neighbouring values differ and no two
     * axes look alike: an exchange that swaps axes or is off by one shows. */
    return (double)((x * 7 + y * 13 + z * 17) % 61) / 61.0 - 0.5 + 1e-3 * (double)(x % 5);
}

int stencil_setup(struct stencil_run *r, const struct stencil_params *p, MPI_Comm comm,
                  const int dims[3], const struct stencil_backend_ops *ops, struct sb_msg *m)
{
    memset(r, 0, sizeof *r);
    r->p = *p;
    r->comm = comm;
    MPI_Comm_rank(comm, &r->rank);
    MPI_Comm_size(comm, &r->nranks);
    memcpy(r->dims, dims, sizeof r->dims);
    CHECK(grid_check(p->dim, p->global, dims, p->depth, m));
    int coords[3];
    coords_of_rank(dims, r->rank, coords);
    grid_init(&r->grid, p->dim, p->global, dims, coords, p->depth);
    r->grid.full_sweeps = p->full_sweeps;

    struct stencil_layout l = {
        .dim = p->dim,
        .real_bytes = p->real_bytes,
        .pinned = p->pinned,
        .device_buffers = p->device_buffers,
        .device_sharers = p->device_sharers,
        .threads = p->threads,
        .node_ranks = p->node_ranks,
        .stores = p->stores,
        .cuda_rows = p->cuda_rows,
        .cuda_blocking = p->cuda_blocking,
        .temporal = p->temporal,
    };
    memcpy(l.ext, r->grid.ext, sizeof l.ext);
    l.align_x = r->grid.halo[0];
    memcpy(l.weights, p->weights, sizeof l.weights);
    r->backend.ops = ops;
    int rc = ops->init(&r->backend, &l, m);
    r->have_backend = true;
    if (rc != SB_OK) return rc;
    r->p.temporal = p->temporal && ops->sweeps_blocked;
    r->regions = sb_calloc((size_t)p->depth, sizeof *r->regions, "the sweep regions");
    for (int j = 0; j < p->depth; j++)
        r->regions[j] = grid_sweep_region(&r->grid, j);
    rc = halo_plan_init(&r->halo, &r->grid, p->async, comm, dims, &r->backend);
    r->have_halo = true;
    if (rc != SB_OK) return sb_fail(m, rc, "stencil: allocating the halo buffers failed");
    for (int ph = 0; ph < r->halo.nphases; ph++)
        for (int i = 0; i < r->halo.phase[ph].count; i++)
            if (r->halo.phase[ph].bytes[i] > INT_MAX)
                return sb_fail(m, SB_EUSAGE,
                               "stencil: one halo message of %zu bytes is more than MPI's int "
                               "count; reduce stencil.size or stencil.depth, or use more ranks",
                               r->halo.phase[ph].bytes[i]);
    return SB_OK;
}

void stencil_teardown(struct stencil_run *r)
{
    if (r->have_halo) halo_plan_free(&r->halo);
    if (r->have_backend) r->backend.ops->destroy(&r->backend);
    r->have_halo = r->have_backend = false;
    free(r->regions);
    r->regions = NULL;
}

/* Linear index of array point (x, y, z). */
static size_t at(const struct stencil_grid *g, int x, int y, int z)
{
    return ((size_t)z * (size_t)g->ext[1] + (size_t)y) * (size_t)g->ext[0] + (size_t)x;
}

static void put(void *field, size_t i, int real_bytes, double v)
{
    if (real_bytes == 4)
        ((float *)field)[i] = (float)v;
    else
        ((double *)field)[i] = v;
}

/* stencil_pattern repeats along x every PATTERN_PERIOD points (61 x 5:
 * x * 7 modulo 61 and x modulo 5 both come round): a row is its first
 * period, copied. */
enum { PATTERN_PERIOD = 305 };

int stencil_fill(struct stencil_run *r)
{
    const struct stencil_grid *g = &r->grid;
    size_t points = (size_t)g->ext[0] * (size_t)g->ext[1] * (size_t)g->ext[2];
    size_t rb = (size_t)r->p.real_bytes;
    unsigned char *host = sb_calloc(points, rb, "the initial field");
    int period = g->n[0] < PATTERN_PERIOD ? g->n[0] : PATTERN_PERIOD;
    for (int z = 0; z < g->n[2]; z++)
        for (int y = 0; y < g->n[1]; y++) {
            size_t row = at(g, g->halo[0], y + g->halo[1], z + g->halo[2]);
            for (int x = 0; x < period; x++)
                put(host, row + (size_t)x, r->p.real_bytes,
                    stencil_pattern(x + g->origin[0], y + g->origin[1], z + g->origin[2]));
            for (int x = period; x < g->n[0]; x += period) {
                int n = g->n[0] - x < period ? g->n[0] - x : period;
                memcpy(host + (row + (size_t)x) * rb, host + row * rb, (size_t)n * rb);
            }
        }
    int rc = r->backend.ops->upload(&r->backend, host);
    free(host);
    r->exchanges = 0;
    memset(r->seg, 0, sizeof r->seg);
    return rc;
}

/* Test hook (stencil.inject_fault): the last rank adds 1 to the first halo
 * point beyond its +x face, a value the next sweep reads. */
static int inject_fault(struct stencil_run *r)
{
    if (r->rank != r->nranks - 1) return SB_OK;
    const struct stencil_grid *g = &r->grid;
    size_t points = (size_t)g->ext[0] * (size_t)g->ext[1] * (size_t)g->ext[2];
    void *host = sb_malloc(points * (size_t)r->p.real_bytes, "a copy of the field");
    int rc = r->backend.ops->download(&r->backend, host);
    size_t i = at(g, g->halo[0] + g->n[0], g->halo[1] + g->n[1] / 2, g->halo[2] + g->n[2] / 2);
    if (r->p.real_bytes == 4)
        ((float *)host)[i] += 1.0f;
    else
        ((double *)host)[i] += 1.0;
    if (rc == SB_OK) rc = r->backend.ops->upload(&r->backend, host);
    free(host);
    log_rank_error("stencil: fault injected after exchange %ld: one halo value changed",
                   r->p.inject_fault);
    return rc;
}

/* The whole exchange; with `overlap` the interior of the first sweep runs
 * while it happens (borders fetched first, seed 004 sec. 3.6.3). */
static int exchange(struct stencil_run *r, const struct sbox *inner)
{
    const struct stencil_backend_ops *ops = r->backend.ops;
    double t;
    CHECK(halo_pack(&r->halo, 0, &t));
    r->seg[SEG_PACK] += t;
    if (inner) CHECK(ops->sweep_start(&r->backend, inner));
    double t0 = MPI_Wtime();
    CHECK_MPI(MPI_Barrier(r->comm));
    r->seg[SEG_DESYNC] += MPI_Wtime() - t0;
    for (int ph = 0; ph < r->halo.nphases; ph++) {
        if (ph > 0) {
            CHECK(halo_pack(&r->halo, ph, &t));
            r->seg[SEG_PACK] += t;
        }
        CHECK(halo_transfer(&r->halo, ph, &t));
        r->seg[SEG_MESSAGE] += t;
        CHECK(halo_unpack(&r->halo, ph, &t));
        r->seg[SEG_UNPACK] += t;
    }
    if (r->exchanges++ == r->p.inject_fault) CHECK(inject_fault(r));
    return SB_OK;
}

int stencil_iterate(struct stencil_run *r, long iterations)
{
    const struct stencil_backend_ops *ops = r->backend.ops;
    struct stencil_backend *b = &r->backend;
    struct sbox inner, frame[6];
    int nframe = grid_overlap_split(&r->grid, &inner, frame);
    bool overlap = r->p.overlap && sbox_points(&inner) > 0;
    double t, t0 = MPI_Wtime();
    for (long i = 0; i < iterations;) {
        int j = 0;
        if (overlap) {
            CHECK(exchange(r, &inner));
            CHECK(ops->sweep_wait(b, &t));
            r->seg[SEG_INNER] += t;
            CHECK(ops->sweep(b, nframe, frame, &t));
            r->seg[SEG_OUTER] += t;
            ops->swap(b);
            i++, j++;
        } else {
            CHECK(exchange(r, NULL));
        }
        long left = iterations - i < r->p.depth - j ? iterations - i : r->p.depth - j;
        if (r->p.temporal && left > 1) { /* the rest of this exchange's sweeps at once */
            CHECK(ops->sweeps_blocked(b, (int)left, &r->regions[j], r->p.tile, &t));
            r->seg[SEG_PRIMARY] += t;
            i += left;
            continue;
        }
        for (; j < r->p.depth && i < iterations; j++, i++) {
            CHECK(ops->sweep(b, 1, &r->regions[j], &t));
            r->seg[SEG_PRIMARY] += t;
            ops->swap(b);
        }
    }
    r->seg[SEG_EXECUTION] += MPI_Wtime() - t0;
    return SB_OK;
}

size_t stencil_own_count(const struct stencil_run *r)
{
    return (size_t)r->grid.n[0] * (size_t)r->grid.n[1] * (size_t)r->grid.n[2];
}

int stencil_own_points(struct stencil_run *r, void *dst)
{
    const struct stencil_grid *g = &r->grid;
    size_t rb = (size_t)r->p.real_bytes;
    size_t points = (size_t)g->ext[0] * (size_t)g->ext[1] * (size_t)g->ext[2];
    unsigned char *host = sb_malloc(points * rb, "a copy of the field");
    int rc = r->backend.ops->download(&r->backend, host);
    unsigned char *out = dst;
    for (int z = 0; z < g->n[2]; z++)
        for (int y = 0; y < g->n[1]; y++) {
            memcpy(out, host + at(g, g->halo[0], y + g->halo[1], z + g->halo[2]) * rb,
                   (size_t)g->n[0] * rb);
            out += (size_t)g->n[0] * rb;
        }
    free(host);
    return rc;
}

int stencil_set_own_points(struct stencil_run *r, const void *src)
{
    const struct stencil_grid *g = &r->grid;
    size_t rb = (size_t)r->p.real_bytes;
    size_t points = (size_t)g->ext[0] * (size_t)g->ext[1] * (size_t)g->ext[2];
    unsigned char *host = sb_calloc(points, rb, "the restored field");
    const unsigned char *in = src;
    for (int z = 0; z < g->n[2]; z++)
        for (int y = 0; y < g->n[1]; y++) {
            memcpy(host + at(g, g->halo[0], y + g->halo[1], z + g->halo[2]) * rb, in,
                   (size_t)g->n[0] * rb);
            in += (size_t)g->n[0] * rb;
        }
    int rc = r->backend.ops->upload(&r->backend, host);
    free(host);
    r->exchanges = 0;
    memset(r->seg, 0, sizeof r->seg);
    return rc;
}

/* The XOR over a row of n values of rb bytes of mix(mix(where) ^ bits),
 * `where` the global index of each; inlined below with rb a constant, so
 * that the compiler hashes several points side by side in wide vectors. */
static inline __attribute__((always_inline)) uint64_t row_hash(const unsigned char *p, int n,
                                                               uint64_t where, size_t rb)
{
    uint64_t h = 0;
    for (int x = 0; x < n; x++) {
        uint64_t bits = 0;
        memcpy(&bits, p + (size_t)x * rb, rb);
        h ^= splitmix64(splitmix64(where + (uint64_t)x) ^ bits);
    }
    return h;
}

SB_WIDE_VECTORS static uint64_t row_hash_float(const unsigned char *p, int n, uint64_t where)
{
    return row_hash(p, n, where, 4);
}

SB_WIDE_VECTORS static uint64_t row_hash_double(const unsigned char *p, int n, uint64_t where)
{
    return row_hash(p, n, where, 8);
}

uint64_t stencil_hash(const struct stencil_run *r, const void *own)
{
    const struct stencil_grid *g = &r->grid;
    const unsigned char *p = own;
    size_t rb = (size_t)r->p.real_bytes;
    uint64_t h = 0;
    for (int z = 0; z < g->n[2]; z++)
        for (int y = 0; y < g->n[1]; y++, p += (size_t)g->n[0] * rb) {
            uint64_t where = ((uint64_t)(z + g->origin[2]) * (uint64_t)g->global[1] +
                              (uint64_t)(y + g->origin[1])) *
                                 (uint64_t)g->global[0] +
                             (uint64_t)g->origin[0];
            h ^= rb == 4 ? row_hash_float(p, g->n[0], where) : row_hash_double(p, g->n[0], where);
        }
    return h;
}
