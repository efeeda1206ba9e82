/* The CPU stencil backend: the reference every other backend is checked
 * against.  Plain loops in the order of seed 004 Listing 2, OpenMP over
 * rows where the compiler has it, a helper thread that computes the
 * interior while the main thread talks to MPI (stencil.overlap=1), and the
 * d sweeps between two exchanges in one pass over memory
 * (stencil.blocking=temporal, gpu/backend_cpu_temporal.c). */
#include "backend_cpu.h"

#include "../src/vectorize.h"

#include <errno.h>
#include <unistd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

struct cpu_state {
    unsigned char *in, *out; /* lines padded to whole cache lines (layout.pitch) */
    size_t lead;             /* bytes before each field, so that x = align_x starts a cache line */
    bool stream;             /* the plain sweeps store past the cache (backend_cpu_simd.c) */
    size_t l2;               /* bytes of the L2 cache: 3D sweeps go in tiles that fit it */
    pthread_t worker;
    bool worker_running;
    struct sbox worker_box;
    double worker_seconds;
    int worker_status;
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static size_t cpu_cache_bytes(void);
static size_t cpu_near_cache_bytes(void);
/* stencil.stores = auto streams where the fields exceed this share of the
 * last-level cache (measured: cpu_init) */
#define STREAM_CACHE_SHARE 8

static struct cpu_state *state(struct stencil_backend *b)
{
    return b->impl;
}

/* A field of `bytes`, zero, that starts `lead` bytes after a 64-byte
 * boundary; field_free frees it.  Zeroed here, page by page, so that no
 * timed sweep pays the first touch of its output's pages (with calloc the
 * first sweep of a run did).  (On a node of several sockets the pages then
 * lie with this thread's socket, not with the OpenMP threads that sweep
 * them.) */
static unsigned char *field_alloc(size_t bytes, size_t lead)
{
    size_t whole = (lead + bytes + 63) / 64 * 64;
    unsigned char *f = aligned_alloc(64, whole ? whole : 64);
    if (f) memset(f, 0, whole);
    return f ? f + lead : NULL;
}

static void field_free(unsigned char *field, size_t lead)
{
    if (field) free(field - lead);
}

static int cpu_init(struct stencil_backend *b, const struct stencil_layout *l, struct sb_msg *m)
{
    /* Lines padded to whole 64-byte cache lines, and the fields placed so
       that the point x = align_x of every line (the first own point) starts
       one: the vectors of the hand-written lines (gpu/backend_cpu_simd.c) are
       then aligned, and a sweep of the own points writes whole cache lines
       only (3D 512^3 float, 1 core, streaming: 1.83-1.89 GCells/s against
       1.05-1.10 with the lines starting one point before a cache line) */
    struct stencil_layout padded = *l;
    int lanes = 64 / l->real_bytes;
    padded.pitch = layout_cache_line_pitch(l->ext[0], l->real_bytes);
    size_t bytes = layout_stored_points(&padded) * (size_t)l->real_bytes;
    size_t lead = (size_t)((lanes - l->align_x % lanes) % lanes) * (size_t)l->real_bytes;
    struct cpu_state *s = calloc(1, sizeof *s);
    if (s) s->in = field_alloc(bytes, lead);
    if (s && s->in) s->out = field_alloc(bytes, lead);
    if (!s || !s->out) {
        if (s) field_free(s->in, lead);
        free(s);
        return sb_fail(m, SB_EUSAGE,
                       "stencil: two fields of %zu bytes each do not fit in host memory; "
                       "reduce stencil.size or use more ranks",
                       bytes);
    }
    b->layout = padded;
    b->impl = s;
    s->lead = lead;
    /* auto: streaming where the fields of this node's ranks are too large
       for the next sweep to find its input in the cache, so that a sweep's
       stores would only evict.  That happens long before they fill the
       last-level cache the system reports: on this project's VM (480 MiB
       reported) cached stores won with two fields of 34 MB (2D 2048^2:
       2.75-2.76 against 2.08-2.14 GCells/s) and 62.6 MB (3D 192^3:
       2.12-2.16 against 1.73-1.75 for the sweeps), streaming with 76 MB
       (2D 3072^2, 1.04-1.06x) and from 98 MB on (3D 224^3 1.06-1.18x, 2D
       4096^2 1.44-1.50x, 3D 512^3 1.3x); an eighth of the reported cache
       (62.9 MB there) lies between.  One VM's measurement: where the
       reported cache is what a process can use, this may stream fields
       that would fit (docs/commands/stencil.md). */
    double fields = 2.0 * (double)bytes * (l->node_ranks > 1 ? l->node_ranks : 1);
    s->stream =
        cpu_simd_isa() != SB_ISA_PORTABLE &&
        (l->stores == STORES_STREAMING ||
         (l->stores == STORES_AUTO && fields > (double)cpu_cache_bytes() / STREAM_CACHE_SHARE));
    b->layout.stores = s->stream ? STORES_STREAMING : STORES_CACHED;
    s->l2 = cpu_near_cache_bytes();
#ifdef _OPENMP
    if (l->threads > 0) omp_set_num_threads(l->threads);
#endif
    return SB_OK;
}

static void cpu_destroy(struct stencil_backend *b)
{
    struct cpu_state *s = state(b);
    if (!s) return;
    if (s->worker_running) pthread_join(s->worker, NULL);
    field_free(s->in, s->lead);
    field_free(s->out, s->lead);
    free(s);
    b->impl = NULL;
}

static void *cpu_buffer_alloc(struct stencil_backend *b, size_t bytes)
{
    (void)b;
    return sb_malloc(bytes ? bytes : 1, "a halo buffer");
}

static void cpu_buffer_free(struct stencil_backend *b, void *p)
{
    (void)b;
    free(p);
}

/* Every line of a field from `from` to `to`, lines `from_pitch` and
 * `to_pitch` bytes apart: the host's field (lines of ext[0] points) <->
 * the backend's (padded lines). */
static void copy_lines(const struct stencil_layout *l, unsigned char *to, size_t to_pitch,
                       const unsigned char *from, size_t from_pitch)
{
    size_t line = (size_t)l->ext[0] * (size_t)l->real_bytes;
    size_t lines = (size_t)l->ext[1] * (size_t)l->ext[2];
    for (size_t i = 0; i < lines; i++)
        memcpy(to + i * to_pitch, from + i * from_pitch, line);
}

static int cpu_upload(struct stencil_backend *b, const void *host)
{
    const struct stencil_layout *l = &b->layout;
    size_t rb = (size_t)l->real_bytes;
    copy_lines(l, state(b)->in, layout_pitch(l) * rb, host, (size_t)l->ext[0] * rb);
    return SB_OK;
}

static int cpu_download(struct stencil_backend *b, void *host)
{
    const struct stencil_layout *l = &b->layout;
    size_t rb = (size_t)l->real_bytes;
    copy_lines(l, host, (size_t)l->ext[0] * rb, state(b)->in, layout_pitch(l) * rb);
    return SB_OK;
}

/* `bytes` (a multiple of 4) from `from` to `to`, four at a time: a row of a
 * few points, where a call of memcpy costs more than the copy. */
SB_PLAIN_LOOPS static void copy_short(unsigned char *to, const unsigned char *from, size_t bytes)
{
    for (size_t i = 0; i < bytes; i += 4)
        memcpy(to + i, from + i, 4);
}

/* Copies rows of one box between the field and a contiguous buffer.  Rows
 * of up to 64 bytes (the x faces: a few points a row, each on a cache line
 * of its own) go four bytes at a time, the row 16 lines ahead asked for
 * meanwhile (lines 2 kB or more apart are beyond the processor's own
 * stride prefetch); the others by memcpy.  Measured (3D 512^3 float, 1
 * rank, depth 1, 16 exchanges): pack 0.257 s and unpack 0.155 s with one
 * memcpy a row, 0.218 and 0.153 four bytes at a time, 0.155 and 0.133 with
 * the prefetch (8 rows ahead 0.167 and 0.139, 32 rows 0.158 and 0.135). */
static void copy_box(const struct stencil_layout *l, unsigned char *field, const struct sbox *box,
                     unsigned char *buf, bool to_buffer)
{
    size_t rb = (size_t)l->real_bytes;
    size_t row = (size_t)(box->hi[0] - box->lo[0]) * rb;
    if (sbox_points(box) == 0) return;
    const bool narrow = row <= 64;
    const size_t pitch = layout_pitch(l) * rb;
    for (int z = box->lo[2]; z < box->hi[2]; z++)
        for (int y = box->lo[1]; y < box->hi[1]; y++) {
            unsigned char *f = field + layout_index(l, box->lo[0], y, z) * rb;
            unsigned char *to = to_buffer ? buf : f;
            const unsigned char *from = to_buffer ? f : buf;
            if (narrow) {
                if (y + 16 < box->hi[1]) { /* (the read/write hint must be a constant) */
                    if (to_buffer)
                        __builtin_prefetch(f + 16 * pitch, 0);
                    else
                        __builtin_prefetch(f + 16 * pitch, 1);
                }
                copy_short(to, from, row);
            } else {
                memcpy(to, from, row);
            }
            buf += row;
        }
}

/* Box i of `in` <-> buf[i], for every i. */
static int move_boxes(struct stencil_backend *b, int n, const struct sbox *box, void *const *buf,
                      bool to_buffer, double *seconds)
{
    double t0 = now();
    for (int i = 0; i < n; i++)
        copy_box(&b->layout, state(b)->in, &box[i], buf[i], to_buffer);
    *seconds = now() - t0;
    return SB_OK;
}

static int cpu_pack(struct stencil_backend *b, int n, const struct sbox *box, void *const *buf,
                    double *seconds)
{
    return move_boxes(b, n, box, buf, true, seconds);
}

static int cpu_unpack(struct stencil_backend *b, int n, const struct sbox *box, void *const *buf,
                      double *seconds)
{
    return move_boxes(b, n, box, buf, false, seconds);
}

/* One run of one update: n points from `c` (the input at the run's first
 * point), STEP apart (1: along x, a line; sy: along y, a column), into
 * dst[0], dst[STEP], ...: out = sum of weight * in over the stencil points,
 * added in the order of backend.h.  Lines are built for AVX-512, AVX2 and
 * any x86-64, the loader picking the one this CPU runs (src/vectorize.h);
 * no FMA in any, so all round alike, bit for bit.  Where the processor has
 * AVX-512 (and with AVX2 in 2D), cpu_line runs gpu/backend_cpu_simd.c's
 * lines instead (vectors aligned to the padded lines), the same bits. */
#define DEFINE_RUN(T, NAME, ATTRIBUTES, STEP)                                                      \
    ATTRIBUTES static void NAME(const struct stencil_layout *l, const T *restrict c,               \
                                T *restrict dst, int n)                                            \
    {                                                                                              \
        const ptrdiff_t sy = (ptrdiff_t)layout_pitch(l), sz = sy * l->ext[1];                      \
        const int o = l->dim == 3 ? 1 : 0; /* 3D: the 2D weights follow the z-1 one */             \
        const T wn = (T)l->weights[o], ww = (T)l->weights[o + 1], wc = (T)l->weights[o + 2];       \
        const T we = (T)l->weights[o + 3], ws = (T)l->weights[o + 4];                              \
        const T wz0 = (T)l->weights[0], wz1 = (T)l->weights[6];                                    \
        if (o) {                                                                                   \
            for (int i = 0; i < n; i++) {                                                          \
                const ptrdiff_t j = (ptrdiff_t)i * (STEP);                                         \
                T sum = 0;                                                                         \
                sum += c[j - sz] * wz0;                                                            \
                sum += c[j - sy] * wn;                                                             \
                sum += c[j - 1] * ww;                                                              \
                sum += c[j] * wc;                                                                  \
                sum += c[j + 1] * we;                                                              \
                sum += c[j + sy] * ws;                                                             \
                sum += c[j + sz] * wz1;                                                            \
                dst[j] = sum;                                                                      \
            }                                                                                      \
        } else {                                                                                   \
            for (int i = 0; i < n; i++) {                                                          \
                const ptrdiff_t j = (ptrdiff_t)i * (STEP);                                         \
                T sum = 0;                                                                         \
                sum += c[j - sy] * wn;                                                             \
                sum += c[j - 1] * ww;                                                              \
                sum += c[j] * wc;                                                                  \
                sum += c[j + 1] * we;                                                              \
                sum += c[j + sy] * ws;                                                             \
                dst[j] = sum;                                                                      \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_RUN(float, line_float, SB_WIDE_VECTORS, 1)
DEFINE_RUN(double, line_double, SB_WIDE_VECTORS, 1)
/* The x faces of overlap's outer frame are one point wide: a column along
 * y per plane, not one call per point (13 ms a 3D 384^3 sweep that way). */
DEFINE_RUN(float, column_float, , sy)
DEFINE_RUN(double, column_double, , sy)

/* n points from (x, y, z): along x (a line) or along y (a column). */
static void run_from(const struct stencil_layout *l, const void *in, void *out, int x, int y, int z,
                     int n, bool column)
{
    size_t at = layout_index(l, x, y, z) * (size_t)l->real_bytes;
    const unsigned char *c = (const unsigned char *)in + at;
    unsigned char *dst = (unsigned char *)out + at;
    if (l->real_bytes == 4)
        (column ? column_float : line_float)(l, (const float *)c, (float *)dst, n);
    else
        (column ? column_double : line_double)(l, (const double *)c, (double *)dst, n);
}

void cpu_line_portable(const struct stencil_layout *l, const void *in, void *out, int x0, int x1,
                       int y, int z)
{
    run_from(l, in, out, x0, y, z, x1 - x0, false);
}

bool cpu_threads_many(void)
{
#ifdef _OPENMP
    return omp_get_max_threads() > 1;
#else
    return false;
#endif
}

void cpu_line(const struct stencil_layout *l, const void *in, void *out, int x0, int x1, int y,
              int z, int planes)
{
    /* the hand-written lines where they are the faster in the cache: with
       AVX2 only in 2D (EPYC, 1 rank, temporal blocking of 16384^2 at depths
       4 and 8, three runs each: 3.29-3.64 and 4.02-4.26 GCells/s against
       the compiler's 3.09-3.42 and 3.72-3.81; of 512^3: 1.75-2.08 against
       2.10-2.30; docs/results/stencil-avx2-streaming-ab.txt) */
    enum sb_isa isa = cpu_simd_isa();
    if (isa == SB_ISA_AVX512 || (isa == SB_ISA_AVX2 && l->dim == 2))
        cpu_simd_lines(l, in, out, x0, x1, y, 1, z, planes, false);
    else
        for (int k = 0; k < planes; k++)
            cpu_line_portable(l, in, out, x0, x1, y, z + k);
}

/* How sweep_box cuts a box: groups of `per` lines of one plane (with
 * streaming stores computed side by side), `planes` planes a call, in
 * tiles of `tile` lines of y; `all` groups in all. */
struct line_groups {
    int per, planes, nz, tile, groups;
    long all;
};

/* The calling thread's share of a box's groups of lines: all of them
 * outside a parallel region (an orphaned `omp for`). */
static void sweep_groups(const struct stencil_layout *l, const struct cpu_state *s,
                         const struct sbox *box, const struct line_groups *g)
{
#pragma omp for schedule(static) nowait
    for (long i = 0; i < g->all; i++) {
        int k = (int)(i % g->groups), z = box->lo[2] + (int)(i / g->groups % g->nz) * g->planes;
        int y0 = box->lo[1] + (int)(i / g->groups / g->nz) * g->tile + k * g->per;
        int end = box->lo[1] + (int)(i / g->groups / g->nz) * g->tile + g->tile;
        end = end < box->hi[1] ? end : box->hi[1];
        if (y0 >= end) continue;
        const int np = box->hi[2] - z < g->planes ? box->hi[2] - z : g->planes;
        if (s->stream)
            cpu_simd_lines(l, s->in, s->out, box->lo[0], box->hi[0], y0,
                           end - y0 < g->per ? end - y0 : g->per, z, np, true);
        else
            cpu_line(l, s->in, s->out, box->lo[0], box->hi[0], y0, z, np);
    }
    /* each thread's streamed lines are visible before anyone reads them;
       once a sweep (a fence after every line measured 1.0 GCells/s against
       1.6 in 3D 512^3) */
    if (s->stream) cpu_simd_fence();
}

/* The columns of a face one point wide: the calling thread's share. */
static void sweep_columns(const struct stencil_layout *l, const struct cpu_state *s,
                          const struct sbox *box)
{
#pragma omp for schedule(static) nowait
    for (int z = box->lo[2]; z < box->hi[2]; z++)
        run_from(l, s->in, s->out, box->lo[0], box->lo[1], z, box->hi[1] - box->lo[1], true);
}

/* out = stencil(in) on one box, OpenMP over its lines where the rank runs
 * several threads (cpu_threads_many); with streaming stores over groups of
 * lines of one plane (gpu/backend_cpu_simd.c).  (Storing through an L1
 * buffer with non-temporal stores was tried first and measured slower
 * here: 10.7 against 13.3 GB/s.) */
static void sweep_box(struct stencil_backend *b, const struct sbox *box)
{
    struct cpu_state *s = state(b);
    const struct stencil_layout *l = &b->layout;
    if (sbox_points(box) == 0) return;
    const int ny = box->hi[1] - box->lo[1];
    if (box->hi[0] - box->lo[0] == 1 && ny > 1) { /* a face one point wide: columns */
        if (cpu_threads_many()) {
#pragma omp parallel
            sweep_columns(l, s, box);
        } else
            sweep_columns(l, s, box);
        return;
    }
    /* Groups of lines of one plane (with streaming stores computed side by
       side), with AVX-512 in 3D line y of two planes together
       (cpu_plane_group); in 3D the planes cut into tiles of y that keep the
       planes a line reads (z - 1 .. z + 1, or z + 2) in the L2 cache, tile
       after tile, so that only the planes ahead come from memory: three
       planes of the tile in half of the L2, at most 256 KiB (two planes
       side by side read four: 4/3 of that).  Measured (512^3, 1 rank,
       streaming), on the Xeon (2 MiB of L2) an eighth of it, 256 KiB, 0.61
       of the copy's bandwidth against 0.57 with half of it, 0.49 with whole
       planes (cached stores 1.09 GCells/s against 1.04 with whole planes);
       with planes in pairs (calibrate, two runs each) a cap of 128 KiB
       0.70-0.73, 256 KiB 0.72, 512 KiB 0.74-0.75, 768 KiB 0.64, 1 MiB
       0.58-0.60; on the EPYC (512 KiB of L2, calibrate, 1 and 2 ranks,
       three runs each) half of it, 256 KiB, 0.47-0.53 and 0.38-0.50
       against an eighth's 0.41-0.43 and 0.34-0.45
       (docs/results/stencil-avx2-streaming-ab.txt) */
    struct line_groups g = {
        .per = s->stream ? cpu_stream_group(l) : 1, .planes = cpu_plane_group(l), .tile = ny};
    g.nz = (box->hi[2] - box->lo[2] + g.planes - 1) / g.planes; /* groups of planes */
    if (l->dim == 3) {
        const size_t most = (size_t)256 << 10;
        size_t row = 3 * layout_pitch(l) * (size_t)l->real_bytes;
        size_t fit = (s->l2 / 2 < most ? s->l2 / 2 : most) / row;
        g.tile = fit < (size_t)g.per ? g.per : fit < (size_t)ny ? (int)(fit / g.per * g.per) : ny;
    }
    g.groups = (g.tile + g.per - 1) / g.per;
    g.all = (long)((ny + g.tile - 1) / g.tile) * g.nz * g.groups;
    if (cpu_threads_many()) {
#pragma omp parallel
        sweep_groups(l, s, box, &g);
    } else
        sweep_groups(l, s, box, &g);
}

static int cpu_sweep(struct stencil_backend *b, int n, const struct sbox *box, double *seconds)
{
    double t0 = now();
    for (int i = 0; i < n; i++)
        sweep_box(b, &box[i]);
    *seconds = now() - t0;
    return SB_OK;
}

static void *worker_main(void *arg)
{
    struct stencil_backend *b = arg;
    struct cpu_state *s = state(b);
#ifdef _OPENMP
    /* a new thread starts from OpenMP's default (OMP_NUM_THREADS, else the
       CPUs it may run on), not from cpu_init's omp_set_num_threads: the
       helper's sweep takes stencil.threads too, and with one thread enters
       no parallel region (cpu_threads_many) */
    if (b->layout.threads > 0) omp_set_num_threads(b->layout.threads);
#endif
    double t0 = now();
    sweep_box(b, &s->worker_box);
    s->worker_seconds = now() - t0;
    return NULL;
}

static int cpu_sweep_start(struct stencil_backend *b, const struct sbox *box)
{
    struct cpu_state *s = state(b);
    s->worker_box = *box;
    int rc = pthread_create(&s->worker, NULL, worker_main, b);
    if (rc != 0) {
        errno = rc;
        return sb_sys_error("pthread_create (the interior sweep)", __FILE__, __LINE__);
    }
    s->worker_running = true;
    return SB_OK;
}

static int cpu_sweep_wait(struct stencil_backend *b, double *seconds)
{
    struct cpu_state *s = state(b);
    if (s->worker_running) {
        pthread_join(s->worker, NULL);
        s->worker_running = false;
    }
    *seconds = s->worker_seconds;
    return SB_OK;
}

static void cpu_swap(struct stencil_backend *b)
{
    struct cpu_state *s = state(b);
    unsigned char *t = s->in;
    s->in = s->out;
    s->out = t;
}

static int cpu_sweeps_blocked(struct stencil_backend *b, int n, const struct sbox *box, int tile,
                              double *seconds)
{
    struct cpu_state *s = state(b);
    double t0 = now();
    void *field[2] = {s->in, s->out};
    cpu_temporal_sweeps(&b->layout, field, n, box, tile);
    if (n % 2) cpu_swap(b);
    *seconds = now() - t0;
    return SB_OK;
}

static int cpu_copy_time(struct stencil_backend *b, int reps, double *seconds)
{
    struct cpu_state *s = state(b);
    size_t bytes = layout_points(&b->layout) * (size_t)b->layout.real_bytes;
    double t0 = now();
    /* glibc's memcpy: calibrate's field is at least 4 x the cache share per
     * rank, beyond the size (3/4 of that share) above which memcpy stores
     * past the cache, so this is a non-temporal copy at every rank count;
     * a hand-written AVX2 one measured slower here (20.3 against 23.3 GB/s) */
    for (int r = 0; r < reps; r++)
        memcpy(r % 2 ? s->in : s->out, r % 2 ? s->out : s->in, bytes);
    *seconds = now() - t0;
    return SB_OK;
}

/* The L2 (1 MiB where the system does not say): where the 3D sweeps keep
 * their planes and temporal blocking's tiles are tuned to live. */
static size_t cpu_near_cache_bytes(void)
{
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? (size_t)l2 : (size_t)1 << 20;
}

static size_t cpu_cache_bytes(void)
{
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l3 > 0) return (size_t)l3;
    if (l2 > 0) return (size_t)l2;
    return (size_t)32 << 20; /* not reported: a generous last level */
}

const struct stencil_backend_ops stencil_backend_cpu = {
    .name = "cpu",
    .init = cpu_init,
    .destroy = cpu_destroy,
    .buffer_alloc = cpu_buffer_alloc,
    .buffer_free = cpu_buffer_free,
    .upload = cpu_upload,
    .download = cpu_download,
    .pack = cpu_pack,
    .unpack = cpu_unpack,
    .sweep = cpu_sweep,
    .sweep_start = cpu_sweep_start,
    .sweep_wait = cpu_sweep_wait,
    .swap = cpu_swap,
    .copy_time = cpu_copy_time,
    .cache_bytes = cpu_cache_bytes,
    .near_cache_bytes = cpu_near_cache_bytes,
    .sweeps_blocked = cpu_sweeps_blocked,
    .tile_cache_bytes = cpu_tile_cache_bytes,
    .tile_candidates = cpu_tile_candidates,
};
