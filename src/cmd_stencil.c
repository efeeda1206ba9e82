/* shiftbox stencil: the deep-halo stencil of seed 004, in 2D and 3D, on the
 * CUDA or the CPU backend (DESIGN.md "Deep-halo stencil").
 *
 * For each point of the sweep (depth x exchange x overlap) the field is set
 * to a pattern of global coordinates, `stencil.iterations` sweeps run with
 * one halo exchange every depth sweeps, and the segments of seed 004
 * sec. 3.5 are timed on every rank.  With stencil.verify=1 the final field
 * is compared bit for bit with a single-rank depth-1 run of the same
 * backend.  Results: a table like seed 004 Appendix C on stdout, and with
 * --out DIR summary.json and stencil.csv. */
#include "checkpoint/checkpoint.h"
#include "coll.h"
#include "command.h"
#include "decomp.h"
#include "log.h"
#include "report.h"
#include "stencil/check.h"
#include "stencil/state.h"
#include "stencil/tune.h"

#include "../gpu/device.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

enum { MAX_DEPTHS = 256 };

/* Verification of the global field needs it whole on rank 0, plus the two
 * fields of the reference run. */
static const double VERIFY_MAX_BYTES = 1024.0 * 1024.0 * 1024.0;

struct stencil_plan {
    struct stencil_params base; /* depth, async, overlap set per point */
    long long depth[MAX_DEPTHS];
    int ndepths;
    bool mode_async[2];
    int nmodes;
    long long overlap[2];
    int noverlaps;
    int dims[3];
    const struct stencil_backend_ops *ops;
    const char *cuda_aware;
    bool verify, calibrate;
    long warmup;
    char device[256];
    /* checkpoints (one point of the sweep only) */
    struct checkpoint_plan *ckpt; /* NULL: none written */
    const char *restart;          /* checkpoint.restart, or "" */
    char *config_text;            /* the resolved configuration, for the file */
};

/* One point of the sweep, as reported. */
struct stencil_point {
    int depth;
    bool async, overlap;
    double seg_min[NSEGMENTS], seg_mean[NSEGMENTS], seg_max[NSEGMENTS];
    double gcells, bytes_per_iteration;
    uint64_t hash;
    int verified;           /* 1 yes, 0 failed, -1 not checked */
    struct field_diff diff; /* against the same backend */
    int cpu_agrees;     /* CUDA runs: 1 bit-identical to the CPU backend, 0 not, -1 not checked */
    const char *stores; /* what the sweeps' stores were: cached, streaming, or device (CUDA) */
    const char *tiles;  /* where temporal blocking's tiles were (ops->blocked_where), or NULL */
    struct tile_tuning tuning; /* stencil.tile = 0: the tiles timed and the one kept */
    int tile;                  /* temporal blocking: the tile it ran with (0: the backend's) */
    struct field_diff cpu;     /* against the CPU backend */
};

/* ---- the plan ------------------------------------------------------------ */

static int read_size(struct stencil_plan *p, const struct config *c, struct sb_msg *m)
{
    long long size[CONFIG_MAX_LIST];
    int n = cfg_int_list(c, "stencil.size", size);
    int dim = p->base.dim;
    if (cfg_all(c, "stencil.size")) {
        for (int a = 0; a < 3; a++)
            p->base.global[a] = a >= dim ? 1 : dim == 2 ? 4096 : 256;
        return SB_OK;
    }
    if (n > dim)
        return sb_fail(m, SB_EUSAGE,
                       "stencil.size = '%s': %d values for stencil.dim = %d; accepted: %s or "
                       "auto",
                       cfg_raw(c, "stencil.size"), n, dim, dim == 2 ? "nx,ny" : "nx,ny,nz");
    /* Fewer values than dimensions: the last one repeats (512 is 512 x 512). */
    for (int a = 0; a < 3; a++)
        p->base.global[a] = a >= dim ? 1 : (int)size[a < n ? a : n - 1];
    return SB_OK;
}

static int read_weights(struct stencil_plan *p, const struct config *c, struct sb_msg *m)
{
    double w[64];
    int n = cfg_real_list(c, "stencil.weights", w, 64);
    int dim = p->base.dim, want = dim == 2 ? 5 : 7;
    double *out = p->base.weights;
    if (cfg_all(c, "stencil.weights")) {
        /* A diffusion step: weights sum to one, so values stay bounded. */
        double centre = dim == 2 ? 0.5 : 0.4, side = dim == 2 ? 0.125 : 0.1;
        for (int i = 0; i < want; i++)
            out[i] = i == want / 2 ? centre : side;
        return SB_OK;
    }
    if (n != want)
        return sb_fail(m, SB_EUSAGE,
                       "stencil.weights = '%s': %d values; accepted: %d for stencil.dim = %d "
                       "(%s), or auto",
                       cfg_raw(c, "stencil.weights"), n, want, dim,
                       dim == 2 ? "y-1, x-1, centre, x+1, y+1"
                                : "z-1, y-1, x-1, centre, x+1, y+1, z+1");
    memcpy(out, w, (size_t)n * sizeof *w);
    return SB_OK;
}

static int read_dims(struct stencil_plan *p, const struct config *c, int nranks, struct sb_msg *m)
{
    if (cfg_all(c, "decomp.dims"))
        return sb_fail(m, SB_EUSAGE,
                       "decomp.dims = all: the stencil runs on one grid; accepted: auto or "
                       "nx,ny,nz");
    int request[3];
    cfg_dims(c, "decomp.dims", request);
    if (p->base.dim == 2) {
        if (request[2] > 1)
            return sb_fail(m, SB_EUSAGE,
                           "decomp.dims = '%s': a 2D stencil needs 1 (or 0) ranks along z; "
                           "accepted: nx,ny,1",
                           cfg_raw(c, "decomp.dims"));
        request[2] = 1;
    }
    return choose_dims(nranks, request, p->dims, m);
}

static int read_plan(struct stencil_plan *p, const struct config *c, int nranks, struct sb_msg *m)
{
    memset(p, 0, sizeof *p);
    struct stencil_params *b = &p->base;
    b->dim = (int)cfg_int(c, "stencil.dim");
    b->iterations = (long)cfg_int(c, "stencil.iterations");
    b->real_bytes = !strcmp(cfg_text(c, "stencil.precision"), "float") ? 4 : 8;
    b->pinned = cfg_bool(c, "stencil.pinned");
    b->threads = (int)cfg_int(c, "stencil.threads");
    const char *stores = cfg_text(c, "stencil.stores");
    b->stores = !strcmp(stores, "streaming") ? STORES_STREAMING
                : !strcmp(stores, "cached")  ? STORES_CACHED
                                             : STORES_AUTO;
    b->cuda_rows = atoi(cfg_text(c, "stencil.cuda_rows")); /* auto: 0 */
    const char *cuda_blocking = cfg_text(c, "stencil.cuda_blocking");
    b->cuda_blocking = !strcmp(cuda_blocking, "shared") ? CUDA_BLOCKING_SHARED
                       : !strcmp(cuda_blocking, "l2")   ? CUDA_BLOCKING_L2
                                                        : CUDA_BLOCKING_AUTO;
    b->full_sweeps = !strcmp(cfg_text(c, "stencil.sweep"), "full");
    b->temporal = !strcmp(cfg_text(c, "stencil.blocking"), "temporal");
    if (b->temporal && b->cuda_blocking == CUDA_BLOCKING_SHARED && b->dim != 2)
        return sb_fail(m, SB_EUSAGE,
                       "stencil.cuda_blocking = shared: tiles in shared memory are 2D only; "
                       "accepted for stencil.dim = 3: auto or l2");
    b->tile = (int)cfg_int(c, "stencil.tile");
    b->inject_fault = (long)cfg_int(c, "stencil.inject_fault");
    p->verify = cfg_bool(c, "stencil.verify");
    p->calibrate = cfg_bool(c, "stencil.calibrate");
    p->warmup = (long)cfg_int(c, "stencil.warmup");
    p->cuda_aware = cfg_text(c, "stencil.cuda_aware");
    CHECK(read_size(p, c, m));
    CHECK(read_weights(p, c, m));
    CHECK(read_dims(p, c, nranks, m));

    long long list[CONFIG_MAX_LIST];
    int n = cfg_int_list(c, "stencil.depth", list);
    if (n > MAX_DEPTHS)
        return sb_fail(m, SB_EUSAGE, "stencil.depth: %d depths; accepted: at most %d", n,
                       MAX_DEPTHS);
    for (int i = 0; i < n; i++) {
        p->depth[p->ndepths++] = list[i];
        CHECK(grid_check(b->dim, b->global, p->dims, (int)list[i], m));
    }
    char mode[16];
    for (int i = 0; p->nmodes < 2 && cfg_choice_item(c, "stencil.exchange", i, mode, sizeof mode);
         i++)
        p->mode_async[p->nmodes++] = !strcmp(mode, "async");
    p->noverlaps = cfg_int_list(c, "stencil.overlap", list);
    for (int i = 0; i < p->noverlaps && i < 2; i++)
        p->overlap[i] = list[i];
    if (p->noverlaps > 2) p->noverlaps = 2;

    double global_bytes = (double)b->global[0] * b->global[1] * b->global[2] * b->real_bytes;
    if (p->verify && global_bytes > VERIFY_MAX_BYTES)
        return sb_fail(m, SB_EUSAGE,
                       "stencil.verify = 1: the global field of %.0f bytes is gathered on rank 0 "
                       "and run again there; accepted: fields up to %.0f bytes (or verify = 0)",
                       global_bytes, VERIFY_MAX_BYTES);
    return SB_OK;
}

/* ---- the backend ------------------------------------------------------------ */

static int mpi_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support();
#else
    return 0;
#endif
}

/* auto: CUDA when every rank has a usable GPU, else the CPU with one line.
 * cuda: exit 2 when it cannot be. */
static int choose_backend(struct stencil_plan *p, const struct config *c, MPI_Comm comm,
                          struct sb_msg *m)
{
    const char *want = cfg_text(c, "stencil.backend");
    p->ops = &stencil_backend_cpu;
    snprintf(p->device, sizeof p->device, "cpu");
    int local;
    node_place(comm, &local, &p->base.node_ranks); /* they share the last-level cache */
    if (!strcmp(want, "cpu")) return SB_OK;
    char why[256] = "built without CUDA";
    int usable = 0;
    if (stencil_backend_cuda) {
        int local, count;
        node_place(comm, &local, &count);
        int devices = gpu_probe(why, sizeof why);
        usable = devices > 0 && gpu_select_device(local) >= 0;
        if (usable) snprintf(p->device, sizeof p->device, "%s", why);
        /* ranks take devices in turn: local rank r uses device r mod devices */
        if (usable) p->base.device_sharers = (count + devices - 1) / devices;
    }
    int all_usable = 0;
    CHECK_MPI(MPI_Allreduce(&usable, &all_usable, 1, MPI_INT, MPI_MIN, comm));
    if (!all_usable && !strcmp(want, "cuda"))
        return sb_fail(m, SB_EUSAGE,
                       "stencil.backend = cuda: no usable GPU on %s (%s); accepted: auto or cpu",
                       usable ? "another rank" : "this rank", why);
    if (!all_usable) {
        log_info("stencil: no usable GPU (%s): using the CPU backend", why);
        return SB_OK;
    }
    p->ops = stencil_backend_cuda;
    int aware = mpi_cuda_aware();
    if (!strcmp(p->cuda_aware, "1") && !aware)
        return sb_fail(m, SB_EUSAGE,
                       "stencil.cuda_aware = 1: this MPI library cannot take device pointers; "
                       "accepted: auto or 0");
    p->base.device_buffers = strcmp(p->cuda_aware, "0") && aware;
    return SB_OK;
}

/* Fields of every rank on a node must fit in 80 % of its memory. */
static int check_host_memory(const struct stencil_plan *p, MPI_Comm comm, struct sb_msg *m)
{
    if (p->ops != &stencil_backend_cpu) return SB_OK; /* CUDA checks the device's */
    int maxdepth = 0;
    for (int i = 0; i < p->ndepths; i++)
        if (p->depth[i] > maxdepth) maxdepth = (int)p->depth[i];
    struct stencil_grid g;
    int rank, coords[3];
    MPI_Comm_rank(comm, &rank);
    coords_of_rank(p->dims, rank, coords);
    grid_init(&g, p->base.dim, p->base.global, p->dims, coords, maxdepth);
    /* the backend's lines padded to whole cache lines, and a lead before each field */
    int rb = p->base.real_bytes;
    double line = (double)layout_cache_line_pitch(g.ext[0], rb) * rb;
    double need = 2.0 * (line * g.ext[1] * g.ext[2] + 64.0), most = 0;
    CHECK_MPI(MPI_Allreduce(&need, &most, 1, MPI_DOUBLE, MPI_MAX, comm));
    double node = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    int local, here;
    node_place(comm, &local, &here);
    if (most * here > 0.8 * node)
        return sb_fail(m, SB_EUSAGE,
                       "stencil.size: two fields of %.0f bytes per rank on %d ranks need %.3g GB; "
                       "this node has %.3g GB; reduce stencil.size or stencil.depth",
                       most / 2, here, most * here / 1e9, node / 1e9);
    return SB_OK;
}

/* ---- one point ------------------------------------------------------------ */

static int spread(struct stencil_run *r, struct stencil_point *pt)
{
    CHECK_MPI(timer_spread(r->seg, NSEGMENTS, r->comm, pt->seg_min, pt->seg_mean, pt->seg_max));
    const int *gl = r->p.global;
    double cells = (double)gl[0] * gl[1] * gl[2] * (double)r->p.iterations;
    pt->gcells = pt->seg_max[SEG_EXECUTION] > 0 ? cells / pt->seg_max[SEG_EXECUTION] / 1e9 : 0;
    double sent = (double)r->halo.bytes_sent, all = 0;
    CHECK_MPI(MPI_Allreduce(&sent, &all, 1, MPI_DOUBLE, MPI_SUM, r->comm));
    pt->bytes_per_iteration = all / r->p.depth;
    return SB_OK;
}

static int field_hash(struct stencil_run *r, const void *own, uint64_t *hash)
{
    uint64_t mine = stencil_hash(r, own);
    CHECK_MPI(MPI_Allreduce(&mine, hash, 1, MPI_UINT64_T, MPI_BXOR, r->comm));
    return SB_OK;
}

/* The references, computed on rank 0 when first needed. */
struct references {
    void *same, *cpu;
};

static int verify_point(const struct stencil_plan *p, struct stencil_run *r, const void *own,
                        struct references *ref, struct stencil_point *pt, struct sb_msg *m)
{
    void *global = NULL;
    CHECK(stencil_gather(r, own, &global));
    int verdict[2] = {-1, -1}, rc = SB_OK;
    if (r->rank == 0) {
        if (!ref->same) rc = stencil_reference(&p->base, p->ops, &ref->same, m);
        if (rc == SB_OK) {
            field_compare(global, ref->same, p->base.global, p->base.real_bytes, &pt->diff);
            verdict[0] = pt->diff.differing == 0;
        }
        if (rc == SB_OK && p->ops != &stencil_backend_cpu) {
            if (!ref->cpu) rc = stencil_reference(&p->base, &stencil_backend_cpu, &ref->cpu, m);
            if (rc == SB_OK) {
                field_compare(global, ref->cpu, p->base.global, p->base.real_bytes, &pt->cpu);
                /* fmad is off and both add in the same order: bit for bit */
                verdict[1] = pt->cpu.differing == 0;
            }
        }
        free(global);
    }
    CHECK(sb_agree(rc, m, r->comm)); /* a reference rank 0 could not compute: all return */
    CHECK_MPI(MPI_Bcast(verdict, 2, MPI_INT, 0, r->comm));
    pt->verified = verdict[0];
    pt->cpu_agrees = verdict[1];
    return SB_OK;
}

/* The field after `it` iterations into a checkpoint, and its sidecar. */
static int write_checkpoint(const struct stencil_plan *p, struct stencil_run *r, long it,
                            struct sb_msg *m)
{
    char path[PATH_MAX + 32];
    checkpoint_path(p->ckpt, "stencil", it, path, sizeof path);
    double started = MPI_Wtime();
    double bytes =
        (double)r->grid.global[0] * r->grid.global[1] * r->grid.global[2] * r->p.real_bytes;
    CHECK(checkpoint_room(p->ckpt, path, bytes + 65536, m));
    CHECK(stencil_state_save(path, r, it, p->config_text, m));
    CHECK(checkpoint_commit(p->ckpt, path, started, m));
    return stencil_state_sidecar(path, r, it, m);
}

/* The iterations from `it` on that run before the next checkpoint (every:
 * checkpoint.every, 0 none) or the end, `total`: one stencil_iterate. */
static long stretch(long it, long total, long every)
{
    long n = total - it;
    if (every > 0 && (it / every + 1) * every - it < n) n = (it / every + 1) * every - it;
    return n;
}

/* stencil.inject_fault counts the exchanges of one point's run: each
 * stretch starts with one and makes one per `depth` iterations.  A fault
 * beyond the exchanges of every point (the shallowest makes the most)
 * would let a test pass untested: bad input. */
static int check_fault_reached(const struct stencil_plan *p, long done, long every,
                               struct sb_msg *m)
{
    const long fault = p->base.inject_fault, total = p->base.iterations;
    long shallowest = LONG_MAX, exchanges = 0;
    for (int i = 0; i < p->ndepths; i++)
        if (p->depth[i] < shallowest) shallowest = (long)p->depth[i];
    if (fault < 0 || p->ndepths == 0) return SB_OK;
    for (long it = done; it < total && exchanges <= fault;) {
        long n = stretch(it, total, every);
        exchanges += (n + shallowest - 1) / shallowest;
        it += n;
    }
    if (fault < exchanges) return SB_OK;
    return sb_fail(m, SB_EUSAGE,
                   "stencil.inject_fault = %ld: the run's points make at most %ld exchange%s "
                   "(depth %ld, iterations %ld to %ld%s); accepted: -1 (none) or 0..%ld",
                   fault, exchanges, exchanges == 1 ? "" : "s", shallowest, done, total,
                   every > 0 ? ", a stretch between checkpoints starting with one" : "",
                   exchanges - 1);
}

/* Iterations `done` .. `total`, stopping for every checkpoint that is due
 * (the field does not depend on where the exchanges fall, so a checkpoint
 * between two exchanges changes nothing). */
static int iterate_with_checkpoints(const struct stencil_plan *p, struct stencil_run *r, long done,
                                    long total, struct sb_msg *m)
{
    long every = p->ckpt ? p->ckpt->every : 0;
    for (long it = done; it < total;) {
        long n = stretch(it, total, every);
        CHECK(stencil_iterate(r, n)); /* the timers count this, not the checkpoints */
        it += n;
        if (p->ckpt && checkpoint_due(p->ckpt, it, total)) CHECK(write_checkpoint(p, r, it, m));
    }
    return SB_OK;
}

static int run_point(const struct stencil_plan *p, MPI_Comm comm, struct stencil_point *pt,
                     struct references *ref, struct sb_msg *m)
{
    struct stencil_params prm = p->base;
    prm.depth = pt->depth;
    prm.async = pt->async;
    prm.overlap = pt->overlap;
    struct stencil_run r;
    int rc = sb_agree(stencil_setup(&r, &prm, comm, p->dims, p->ops, m), m, comm);
    if (rc != SB_OK) {
        stencil_teardown(&r); /* what setup made here, if it failed elsewhere */
        return rc;
    }
    pt->stores = p->ops != &stencil_backend_cpu                ? "device"
                 : r.backend.layout.stores == STORES_STREAMING ? "streaming"
                                                               : "cached";
    if (rc == SB_OK) rc = stencil_tune_tile(&r, &pt->tuning);
    if (rc == SB_OK && p->warmup > 0) {
        r.p.inject_fault = -1;
        rc = stencil_fill(&r);
        if (rc == SB_OK) rc = stencil_iterate(&r, p->warmup);
        r.p.inject_fault = prm.inject_fault;
    }
    long done = 0; /* iterations the field has had: a restart's */
    if (rc == SB_OK && p->restart[0]) {
        rc = stencil_state_load(p->restart, &r, &done, m); /* its iteration checked before */
        if (rc == SB_OK)
            log_info("restart: %s, iteration %ld of %ld", p->restart, done, prm.iterations);
    } else if (rc == SB_OK) {
        rc = stencil_fill(&r);
    }
    if (rc == SB_OK) rc = MPI_Barrier(comm) == MPI_SUCCESS ? SB_OK : SB_ERUNTIME;
    if (rc == SB_OK) rc = iterate_with_checkpoints(p, &r, done, prm.iterations, m);
    if (rc == SB_OK) rc = spread(&r, pt);
    pt->tiles = rc == SB_OK && p->ops->blocked_where ? p->ops->blocked_where(&r.backend) : NULL;
    pt->tile = r.p.tile;
    /* The field leaves the backend once, for the hash and the check. */
    void *own = sb_malloc(stencil_own_count(&r) * (size_t)prm.real_bytes + 1, "own points");
    if (rc == SB_OK) rc = stencil_own_points(&r, own);
    if (rc == SB_OK) rc = field_hash(&r, own, &pt->hash);
    pt->verified = pt->cpu_agrees = -1;
    if (rc == SB_OK && p->verify) rc = verify_point(p, &r, own, ref, pt, m);
    free(own);
    stencil_teardown(&r);
    return rc;
}

/* ---- calibration ------------------------------------------------------------ */

struct calibration {
    double copy_gbs, sweep_gbs, ratio; /* the rank with the lowest ratio */
    double field_bytes, cache_bytes;   /* per rank: what was measured, and the cache it exceeds */
    /* sweeps of a field in the near cache (0: the backend has none): the
     * slowest rank's GCells/s, one field as stored and that cache, in bytes */
    double in_cache_gcells, in_cache_field_bytes, near_cache_bytes;
};

/* One rank's extents of calibrate_in_cache's field: lines of 2048 points
 * (2D) or planes of 256 x 32 (3D; fewer lines where three planes would not
 * fit), as many as fit `bytes` with the halo of depth 1 and the lines
 * padded to whole cache lines; at least 8 lines (2D) or 1 plane (3D). */
static void in_cache_shape(const struct stencil_params *prm, double bytes, int per[3])
{
    const int x = prm->dim == 3 ? 256 : 2048;
    const double line = (double)layout_cache_line_pitch(x + 2, prm->real_bytes) * prm->real_bytes;
    per[0] = x;
    per[2] = 1;
    if (prm->dim == 2) {
        int rows = (int)(bytes / line) - 2;
        per[1] = rows < 8 ? 8 : rows;
        return;
    }
    int rows = 32;
    while (rows > 4 && 3.0 * (rows + 2) * line > bytes)
        rows /= 2;
    int planes = (int)(bytes / ((rows + 2) * line)) - 2;
    per[1] = rows;
    per[2] = planes < 1 ? 1 : planes;
}

/* The sweeps of a field that fits the cache temporal blocking works in
 * (the two fields in half of it: in_cache_shape), with ordinary stores as
 * blocking's tiles use, the fastest of five windows of at least 0.05 s:
 * how fast the lines themselves go with no memory behind them, the most
 * that blocking's tiles in that cache (`cache` bytes) can reach with them.
 * Sets this rank's GCells/s and the bytes of one of its fields as stored. */
static int calibrate_in_cache(const struct stencil_plan *p, MPI_Comm comm, double cache,
                              double *gcells, double *field_bytes, struct sb_msg *m)
{
    struct stencil_params prm = p->base;
    prm.depth = 1;
    prm.stores = STORES_CACHED;
    int per[3];
    in_cache_shape(&prm, cache / 4, per);
    for (int i = 0; i < 3; i++)
        prm.global[i] = per[i] * p->dims[i];
    struct stencil_run r;
    int rc = sb_agree(stencil_setup(&r, &prm, comm, p->dims, p->ops, m), m, comm);
    enum { batch = 16 };
    struct sbox own[batch];
    for (int i = 0; i < batch; i++)
        own[i] = grid_sweep_region(&r.grid, 0);
    double seconds = 0, t, best = 0;
    if (rc == SB_OK) rc = r.backend.ops->sweep(&r.backend, batch, own, &t); /* warm */
    for (int window = 0; rc == SB_OK && window < 5; window++) {
        long sweeps = 0;
        double all = 0;
        while (rc == SB_OK && all < 0.05) {
            rc = r.backend.ops->sweep(&r.backend, batch, own, &seconds);
            all += seconds;
            sweeps += batch;
        }
        double rate = (double)sbox_points(&own[0]) * (double)sweeps / all / 1e9;
        best = rate > best ? rate : best;
    }
    *field_bytes =
        rc == SB_OK ? (double)layout_stored_points(&r.backend.layout) * prm.real_bytes : 0;
    *gcells = rc == SB_OK ? best : 0.0;
    stencil_teardown(&r);
    return sb_agree(rc, m, comm); /* no rank goes on to the reduction alone */
}

/* Copy bandwidth of the backend's memory against sweeps over the own
 * points, both counted as bytes read plus bytes written.  The field is made
 * at least 4 times the backend's largest cache per rank (else the cache is
 * measured, not the memory), and the sweeps are timed together as the
 * copies are (a timing per sweep would add each one's start-up). */
static int calibrate(const struct stencil_plan *p, MPI_Comm comm, struct calibration *cal,
                     struct sb_msg *m)
{
    struct stencil_params prm = p->base;
    prm.depth = 1;
    /* the ranks that share one cache stream 4 times it together */
    int nranks, local, sharers;
    MPI_Comm_size(comm, &nranks);
    node_place(comm, &local, &sharers);
    if (p->ops != &stencil_backend_cpu) sharers = prm.device_sharers > 1 ? prm.device_sharers : 1;
    double cache = (double)p->ops->cache_bytes();
    double have = (double)prm.global[0] * prm.global[1] * prm.global[2] * prm.real_bytes;
    double grow = 4.0 * cache / sharers * nranks / have;
    if (grow > 1) { /* in x and y alike, keeping the shape */
        double per_axis = prm.dim == 2 || prm.global[1] > 1 ? sqrt(grow) : grow;
        prm.global[0] = (int)ceil(prm.global[0] * per_axis);
        if (per_axis < grow) prm.global[1] = (int)ceil(prm.global[1] * grow / per_axis);
    }
    struct stencil_run r;
    int rc = sb_agree(stencil_setup(&r, &prm, comm, p->dims, p->ops, m), m, comm);
    enum { reps = 20 };
    double copy = 0, sweep = 0, t;
    struct sbox own[reps];
    for (int i = 0; i < reps; i++)
        own[i] = grid_sweep_region(&r.grid, 0);
    if (rc == SB_OK) rc = r.backend.ops->copy_time(&r.backend, 2, &t); /* warm */
    if (rc == SB_OK) rc = r.backend.ops->copy_time(&r.backend, reps, &copy);
    if (rc == SB_OK) rc = r.backend.ops->sweep(&r.backend, 2, own, &t); /* warm */
    if (rc == SB_OK) rc = r.backend.ops->sweep(&r.backend, reps, own, &sweep);
    double field = (double)layout_points(&r.backend.layout) * prm.real_bytes;
    double swept = (double)sbox_points(&own[0]) * prm.real_bytes;
    stencil_teardown(&r);
    CHECK(sb_agree(rc, m, comm)); /* a copy or sweep failed on one rank: all return */
    double mine[5] = {2 * field * reps / copy / 1e9, 2 * swept * reps / sweep / 1e9, 0, field,
                      cache};
    mine[2] = mine[1] / mine[0];
    struct {
        double ratio;
        int rank;
    } in = {mine[2], 0}, out;
    MPI_Comm_rank(comm, &in.rank);
    CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm));
    CHECK_MPI(MPI_Bcast(mine, 5, MPI_DOUBLE, out.rank, comm));
    *cal = (struct calibration){mine[0], mine[1], mine[2], mine[3], mine[4], 0, 0, 0};
    if (!p->ops->near_cache_bytes) return SB_OK;
    double slowest = 0; /* every rank sweeps a field of the same shape */
    cal->near_cache_bytes = (double)p->ops->near_cache_bytes();
    CHECK(calibrate_in_cache(p, comm, cal->near_cache_bytes, &slowest, &cal->in_cache_field_bytes,
                             m));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &slowest, 1, MPI_DOUBLE, MPI_MIN, comm));
    cal->in_cache_gcells = slowest;
    return SB_OK;
}

/* The single-sweep roofline of one rank in GCells/s: the copy's bandwidth
 * over the bytes a cell is read and written with. */
static double roofline_gcells(const struct stencil_plan *p, const struct calibration *cal)
{
    return cal->copy_gbs / (2.0 * p->base.real_bytes);
}

/* ---- output ------------------------------------------------------------ */

static const char *const csv_header =
    "dim,nx,ny,nz,ranks,backend,precision,depth,exchange,overlap,iterations,execution,pack,"
    "unpack,inner,outer,primary,message,desync,execution_max,gcells_per_s,bytes_per_iteration,"
    "verified,blocking,stores\n";

static const char *verdict_word(int v)
{
    return v < 0 ? "unchecked" : v ? "true" : "false";
}

/* What stencil.tile counts: the CPU tiles the second slowest axis, the
 * CUDA backend the slowest (gpu/backend_cpu_temporal.c, gpu/backend_cuda.cu). */
static const char *tile_unit(const struct stencil_plan *p)
{
    bool cuda = !strcmp(p->ops->name, "cuda");
    if (p->base.dim == 3) return cuda ? "z planes" : "y lines";
    return cuda ? "y rows" : "x points";
}

/* What ran, not what was asked: a backend without temporal blocking runs plain sweeps. */
static const char *blocking_word(const struct stencil_plan *p)
{
    return p->base.temporal && p->ops->sweeps_blocked ? "temporal" : "none";
}

/* Where the CUDA backend's temporal blocking means to keep its tiles, for
 * the header (NULL: not CUDA or no temporal blocking); what each point ran
 * comes from the backend (blocked_where). */
static const char *cuda_tiles_word(const struct stencil_plan *p)
{
    if (strcmp(p->ops->name, "cuda") || strcmp(blocking_word(p), "temporal")) return NULL;
    return cuda_blocking_shared(p->base.dim, p->base.cuda_blocking) ? "shared" : "l2";
}

static void csv_row(FILE *f, const struct stencil_plan *p, int nranks,
                    const struct stencil_point *pt)
{
    const struct stencil_params *b = &p->base;
    fprintf(f, "%d,%d,%d,%d,%d,%s,%s,%d,%s,%d,%ld", b->dim, b->global[0], b->global[1],
            b->global[2], nranks, p->ops->name, b->real_bytes == 4 ? "float" : "double", pt->depth,
            pt->async ? "async" : "sync", pt->overlap, b->iterations);
    /* seed 004 Appendix C reports one time per segment: the mean over ranks. */
    for (int s = 0; s < NSEGMENTS; s++)
        fprintf(f, ",%.6g", pt->seg_mean[s]);
    fprintf(f, ",%.6g,%.6g,%.0f,%s,%s,%s\n", pt->seg_max[SEG_EXECUTION], pt->gcells,
            pt->bytes_per_iteration, verdict_word(pt->verified), blocking_word(p), pt->stores);
}

static cJSON *point_json(const struct stencil_plan *p, const struct stencil_point *pt)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "depth", pt->depth);
    cJSON_AddStringToObject(o, "exchange", pt->async ? "async" : "sync");
    cJSON_AddBoolToObject(o, "overlap", pt->overlap);
    cJSON *seg = cJSON_AddObjectToObject(o, "seconds");
    for (int s = 0; s < NSEGMENTS; s++) {
        cJSON *one = cJSON_AddObjectToObject(seg, stencil_segment_names[s]);
        cJSON_AddNumberToObject(one, "min", pt->seg_min[s]);
        cJSON_AddNumberToObject(one, "mean", pt->seg_mean[s]);
        cJSON_AddNumberToObject(one, "max", pt->seg_max[s]);
    }
    cJSON_AddNumberToObject(o, "gcells_per_s", pt->gcells);
    cJSON_AddNumberToObject(o, "bytes_per_iteration", pt->bytes_per_iteration);
    char hash[32];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)pt->hash);
    cJSON_AddStringToObject(o, "field_hash", hash);
    cJSON_AddStringToObject(o, "verified", verdict_word(pt->verified));
    cJSON_AddStringToObject(o, "stores", pt->stores);
    if (pt->tiles) cJSON_AddStringToObject(o, "cuda_blocking", pt->tiles);
    if (!strcmp(blocking_word(p), "temporal")) cJSON_AddNumberToObject(o, "tile", pt->tile);
    const struct tile_tuning *tt = &pt->tuning;
    if (tt->count > 0) {
        cJSON *tun = cJSON_AddObjectToObject(o, "tile_tuning");
        cJSON_AddNumberToObject(tun, "batch", tt->batch);
        cJSON_AddNumberToObject(tun, "sweeps", tt->sweeps);
        cJSON_AddNumberToObject(tun, "chosen", tt->tile[tt->chosen]);
        cJSON *timed = cJSON_AddArrayToObject(tun, "timed");
        for (int i = 0; i < tt->count; i++) {
            cJSON *one = cJSON_CreateObject();
            cJSON_AddNumberToObject(one, "tile", tt->tile[i]);
            cJSON_AddNumberToObject(one, "seconds", tt->seconds[i]);
            cJSON_AddItemToArray(timed, one);
        }
    }
    if (pt->verified >= 0)
        cJSON_AddNumberToObject(o, "differing_points", (double)pt->diff.differing);
    if (pt->cpu_agrees >= 0) {
        cJSON_AddBoolToObject(o, "cpu_agrees", pt->cpu_agrees);
        cJSON_AddNumberToObject(o, "cpu_max_relative_difference", pt->cpu.max_rel);
        cJSON_AddNumberToObject(o, "cpu_differing_points", (double)pt->cpu.differing);
    }
    return o;
}

static int write_outputs(const struct run_ctx *ctx, const struct stencil_plan *p,
                         const struct stencil_point *pts, int npts, const struct calibration *cal,
                         int verdict)
{
    cJSON *root = report_summary_begin("stencil", ctx->cfg, ctx->cmd->sections, ctx->nranks,
                                       &ctx->timer, &ctx->placement);
    cJSON *res = cJSON_AddObjectToObject(root, "results");
    cJSON_AddStringToObject(res, "backend", p->ops->name);
    cJSON_AddStringToObject(res, "device", p->device);
    cJSON_AddBoolToObject(res, "cuda_aware_mpi", p->base.device_buffers);
    cJSON_AddStringToObject(res, "blocking", blocking_word(p));
    if (!strcmp(p->ops->name, "cuda"))
        cJSON_AddNumberToObject(res, "cuda_rows",
                                sweep_rows(p->base.cuda_rows, p->base.real_bytes));
    cJSON_AddItemToObject(res, "rank_grid", cJSON_CreateIntArray(p->dims, 3));
    cJSON_AddItemToObject(res, "weights",
                          cJSON_CreateDoubleArray(p->base.weights, p->base.dim == 2 ? 5 : 7));
    if (p->calibrate) {
        cJSON *c = cJSON_AddObjectToObject(res, "calibration");
        cJSON_AddNumberToObject(c, "copy_gb_per_s", cal->copy_gbs);
        cJSON_AddNumberToObject(c, "sweep_gb_per_s", cal->sweep_gbs);
        cJSON_AddNumberToObject(c, "ratio", cal->ratio);
        cJSON_AddNumberToObject(c, "field_bytes_per_rank", cal->field_bytes);
        cJSON_AddNumberToObject(c, "cache_bytes", cal->cache_bytes);
        if (cal->in_cache_gcells > 0) {
            cJSON_AddNumberToObject(c, "in_cache_gcells_per_s", cal->in_cache_gcells);
            cJSON_AddNumberToObject(c, "in_cache_field_bytes_per_rank", cal->in_cache_field_bytes);
            cJSON_AddNumberToObject(c, "near_cache_bytes", cal->near_cache_bytes);
            cJSON_AddNumberToObject(c, "roofline_gcells_per_s", roofline_gcells(p, cal));
            cJSON_AddNumberToObject(c, "in_cache_over_roofline",
                                    cal->in_cache_gcells / roofline_gcells(p, cal));
        }
    }
    cJSON *list = cJSON_AddArrayToObject(res, "points");
    for (int i = 0; i < npts; i++)
        cJSON_AddItemToArray(list, point_json(p, &pts[i]));
    cJSON_AddStringToObject(res, "verified", verdict_word(verdict));
    CHECK(report_finish_json(ctx->out_dir, "summary.json", root));
    struct report_text csv;
    CHECK(report_text_open(&csv));
    fputs(csv_header, csv.f);
    for (int i = 0; i < npts; i++)
        csv_row(csv.f, p, ctx->nranks, &pts[i]);
    return report_text_commit(&csv, ctx->out_dir, "stencil.csv");
}

static void print_point(const struct stencil_plan *p, const struct stencil_point *pt)
{
    double ms[NSEGMENTS];
    for (int i = 0; i < NSEGMENTS; i++)
        ms[i] = 1e3 * pt->seg_mean[i];
    log_info("%4d %-5s %3d %9.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %9.4f  %s", pt->depth,
             pt->async ? "async" : "sync", pt->overlap, ms[SEG_EXECUTION], ms[SEG_PACK],
             ms[SEG_UNPACK], ms[SEG_INNER], ms[SEG_OUTER], ms[SEG_PRIMARY], ms[SEG_MESSAGE],
             ms[SEG_DESYNC], pt->gcells, verdict_word(pt->verified));
    if (pt->verified == 0)
        log_error("stencil: depth %d %s overlap %d: %zu of %zu points differ from the "
                  "single-rank depth-1 run; first at (%zu,%zu,%zu): %.17g, expected %.17g",
                  pt->depth, pt->async ? "async" : "sync", pt->overlap, pt->diff.differing,
                  pt->diff.points, pt->diff.first[0], pt->diff.first[1], pt->diff.first[2],
                  pt->diff.got, pt->diff.want);
    if (pt->cpu_agrees >= 0)
        log_info("     against the CPU backend: %zu of %zu points differ, largest relative "
                 "difference %.3g (%s)",
                 pt->cpu.differing, pt->cpu.points, pt->cpu.max_rel,
                 pt->cpu_agrees ? "identical" : "DIFFERENT");
    const struct tile_tuning *tt = &pt->tuning;
    if (tt->count > 0) {
        char list[512] = "";
        for (int i = 0, at = 0; i < tt->count && at < (int)sizeof list; i++)
            at += snprintf(list + at, sizeof list - (size_t)at, "%s%d: %.3g", i ? ", " : "",
                           tt->tile[i], 1e3 * tt->seconds[i]);
        log_info("     tile: %d %s, the fastest of %s ms (each an exchange and %d sweeps, %d "
                 "in tiles)",
                 tt->tile[tt->chosen], tile_unit(p), list, tt->batch, tt->sweeps);
    }
}

static void print_header(const struct stencil_plan *p, int nranks)
{
    const struct stencil_params *b = &p->base;
    log_info("\nstencil: %dD %d-point, %d x %d%s%.0d grid on %d rank%s (%d x %d%s%.0d), %s %s, "
             "%ld iterations",
             b->dim, b->dim == 2 ? 5 : 7, b->global[0], b->global[1], b->dim == 3 ? " x " : "",
             b->dim == 3 ? b->global[2] : 0, nranks, nranks == 1 ? "" : "s", p->dims[0], p->dims[1],
             b->dim == 3 ? " x " : "", b->dim == 3 ? p->dims[2] : 0, p->ops->name,
             b->real_bytes == 4 ? "float" : "double", b->iterations);
    const char *regions = b->full_sweeps ? "full" : "shrinking";
    char tiles[256] = "sized to the L2 cache";
    if (p->ops->tile_cache_bytes && !strcmp(blocking_word(p), "temporal"))
        snprintf(tiles, sizeof tiles,
                 "%s%.1f MiB of cache (the rank's L2 and share of the last level)",
                 p->ops->tile_candidates ? "tuned before each point where more than one fits "
                                           "the box, the fastest of tiles sized to half the "
                                           "L2 .. "
                                         : "sized to ",
                 (double)p->ops->tile_cache_bytes() / (1 << 20));
    if (b->tile > 0) snprintf(tiles, sizeof tiles, "of %d %s", b->tile, tile_unit(p));
    const char *cuda_tiles = cuda_tiles_word(p);
    if (cuda_tiles && !strcmp(cuda_tiles, "shared"))
        snprintf(tiles, sizeof tiles,
                 "in shared memory, all sweeps of a batch in one kernel (batches of more than %d: "
                 "in the L2)",
                 cuda_shared_sweeps(b->real_bytes));
    if (b->temporal && !p->ops->sweeps_blocked)
        log_info("stencil.blocking = temporal: the %s backend has no temporal blocking; its "
                 "sweeps run one after the other",
                 p->ops->name);
    if (!strcmp(blocking_word(p), "temporal"))
        log_info("sweeps: %s regions; temporal blocking: the sweeps between two exchanges in one "
                 "pass (from depth 2), tiles %s",
                 regions, tiles);
    else
        log_info("sweeps: %s regions, one pass over the field each", regions);
    if (!strcmp(p->ops->name, "cuda"))
        log_info("CUDA sweep kernel: %d rows per thread (stencil.cuda_rows)",
                 sweep_rows(b->cuda_rows, b->real_bytes));
    log_info("milliseconds, mean over ranks (the segments of seed 004 Appendix C):");
    log_info("%4s %-5s %3s %9s %8s %8s %8s %8s %8s %8s %8s %9s  %s", "Dp", "exch", "ovl", "Ex",
             "Pack", "Unpack", "I.Cal", "O.Cal", "P.Cal", "Mess", "Desyn", "GCells/s", "verified");
}

/* ---- the command ------------------------------------------------------------ */

/* checkpoint.every / at_end / restart: one point of the sweep at a time. */
static int plan_checkpoints(struct stencil_plan *p, struct checkpoint_plan *ckpt,
                            const struct run_ctx *ctx, int npts, struct sb_msg *m)
{
    const struct config *c = ctx->cfg;
    p->ckpt = NULL;
    p->restart = cfg_text(c, "checkpoint.restart");
    p->config_text = config_ini_text(c, ctx->cmd->sections);
    bool writes = cfg_int(c, "checkpoint.every") > 0 || cfg_bool(c, "checkpoint.at_end");
    if (!writes && !p->restart[0]) return SB_OK;
    if (npts != 1)
        return sb_fail(m, SB_EUSAGE,
                       "checkpoint.every, checkpoint.at_end and --restart in stencil: %d points "
                       "in the sweep; accepted: one (single values of stencil.depth, "
                       "stencil.exchange and stencil.overlap)",
                       npts);
    if (!writes) return SB_OK;
    CHECK(checkpoint_plan_init(ckpt, c, ctx->out_dir, ctx->world, m));
    p->ckpt = ckpt;
    return SB_OK;
}

static int run_all(struct run_ctx *ctx, struct stencil_plan *p, struct stencil_point *pts, int npts,
                   struct calibration *cal, int *verdict, struct sb_msg *m)
{
    struct references ref = {NULL, NULL};
    int rc = SB_OK;
    if (p->calibrate) {
        rc = calibrate(p, ctx->world, cal, m);
        if (rc == SB_OK)
            log_info("\ncalibrate: copy %.2f GB/s, sweep %.2f GB/s: ratio %.3f (bytes read + "
                     "written; the rank with the lowest ratio; a field of %.0f MB per rank, 4 x "
                     "the %.0f MB cache shared by the ranks on it, or more)",
                     cal->copy_gbs, cal->sweep_gbs, cal->ratio, cal->field_bytes / 1e6,
                     cal->cache_bytes / 1e6);
        if (rc == SB_OK && cal->in_cache_gcells > 0)
            log_info("calibrate: in the cache %.3f GCells/s: %.2f x the single-sweep roofline "
                     "of %.3f GCells/s (the copy's above; sweeps of a field of %.0f KiB per rank, "
                     "the two fields in about half of the %.0f KiB L2, ordinary stores; the "
                     "slowest rank): what temporal blocking's tiles in the L2 can reach with "
                     "these lines",
                     cal->in_cache_gcells, cal->in_cache_gcells / roofline_gcells(p, cal),
                     roofline_gcells(p, cal), cal->in_cache_field_bytes / 1024,
                     cal->near_cache_bytes / 1024);
    }
    if (rc == SB_OK) print_header(p, ctx->nranks);
    *verdict = p->verify ? 1 : -1; /* -1: nothing compared yet */
    for (int i = 0; rc == SB_OK && i < npts; i++) {
        log_progress(i, npts, "points", "stencil: next depth %d", pts[i].depth);
        rc = run_point(p, ctx->world, &pts[i], &ref, m);
        log_progress_done();
        if (rc != SB_OK) break;
        print_point(p, &pts[i]);
        if (pts[i].verified == 0 || pts[i].cpu_agrees == 0) *verdict = 0;
        /* Every point computes the same field: depth, exchange and overlap
         * change only how, so the hashes must agree even without verify. */
        if (pts[i].hash != pts[0].hash) {
            log_error("stencil: depth %d %s overlap %d ends with field hash %016llx, the first "
                      "point with %016llx: the variants disagree",
                      pts[i].depth, pts[i].async ? "async" : "sync", pts[i].overlap,
                      (unsigned long long)pts[i].hash, (unsigned long long)pts[0].hash);
            *verdict = 0; /* a comparison, made with or without stencil.verify */
        }
    }
    free(ref.same);
    free(ref.cpu);
    return rc;
}

int cmd_stencil(struct run_ctx *ctx)
{
    struct stencil_plan p;
    struct sb_msg m = {""};
    int rc = read_plan(&p, ctx->cfg, ctx->nranks, &m);
    if (rc == SB_OK) rc = choose_backend(&p, ctx->cfg, ctx->world, &m);
    if (rc == SB_OK) rc = check_host_memory(&p, ctx->world, &m);
    long done = 0; /* a restart file is checked before anything is set up or made */
    const char *restart = cfg_text(ctx->cfg, "checkpoint.restart");
    if (rc == SB_OK && restart[0])
        rc = stencil_state_check(restart, &p.base, ctx->world, &done, &m);
    if (rc == SB_OK && done > p.base.iterations)
        rc = sb_fail(&m, SB_EUSAGE,
                     "stencil.iterations = %ld ends before the checkpoint's iteration %ld; "
                     "accepted: stencil.iterations >= %ld (the run continues to it)",
                     p.base.iterations, done, done);
    if (rc == SB_OK)
        rc = check_fault_reached(&p, done, (long)cfg_int(ctx->cfg, "checkpoint.every"), &m);
    if (rc != SB_OK) {
        if (rc == SB_ERUNTIME && m.text[0])
            log_rank_error("%s", m.text);
        else
            log_error("%s", m.text);
        return rc;
    }
    int npts = p.ndepths * p.nmodes * p.noverlaps;
    struct checkpoint_plan ckpt;
    memset(&ckpt, 0, sizeof ckpt);
    rc = plan_checkpoints(&p, &ckpt, ctx, npts, &m);
    if (rc != SB_OK) {
        log_error("%s", m.text);
        free(p.config_text);
        return rc;
    }
    struct stencil_point *pts = sb_calloc((size_t)npts, sizeof *pts, "the sweep");
    int k = 0;
    for (int d = 0; d < p.ndepths; d++)
        for (int e = 0; e < p.nmodes; e++)
            for (int o = 0; o < p.noverlaps; o++)
                pts[k++] = (struct stencil_point){
                    .depth = (int)p.depth[d], .async = p.mode_async[e], .overlap = p.overlap[o]};
    struct calibration cal = {0};
    int verdict = -1;
    rc = run_all(ctx, &p, pts, npts, &cal, &verdict, &m);
    if (rc == SB_EUSAGE) log_error("%s", m.text);
    if (rc == SB_ERUNTIME && m.text[0]) log_rank_error("%s", m.text);
    if (rc == SB_OK) {
        log_info("\nfield hash %016llx (the last point; equal for every decomposition of the same "
                 "run)",
                 (unsigned long long)pts[npts - 1].hash);
        log_info("verified: %s",
                 verdict > 0   ? "true (every point bit for bit against a single-rank depth-1 run)"
                 : verdict < 0 ? "unchecked (stencil.verify = 0)"
                 : p.verify    ? "false"
                               : "false (the points' field hashes disagree; stencil.verify = 0)");
        if (ctx->out_dir && ctx->rank == 0) rc = write_outputs(ctx, &p, pts, npts, &cal, verdict);
        if (rc == SB_OK && ctx->out_dir)
            log_info("results: %s/summary.json, %s/stencil.csv", ctx->out_dir, ctx->out_dir);
        if (rc == SB_OK && verdict == 0) rc = SB_EVERIFY;
    }
    if (rc != SB_ERUNTIME) MPI_Bcast(&rc, 1, MPI_INT, 0, ctx->world);
    if (p.ckpt) checkpoint_plan_free(p.ckpt);
    free(p.config_text);
    free(pts);
    return rc;
}
