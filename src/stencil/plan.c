/* The stencil command's plan (plan.h): its keys read and checked, the
 * backend chosen, the node's memory and the test hook checked. */
#include "plan.h"
#include "../checkpoint/checkpoint.h"
#include "../coll.h"
#include "../decomp.h"
#include "../log.h"

#include "../../gpu/device.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

/* Verification of the global field needs it whole on rank 0, plus the two
 * fields of the reference run. */
static const double VERIFY_MAX_BYTES = 1024.0 * 1024.0 * 1024.0;

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
    int request[3];
    CHECK(cfg_one_grid(c, "the stencil runs on one grid", request, m));
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

int stencil_plan_read(struct stencil_plan *p, const struct config *c, int nranks, struct sb_msg *m)
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
    if (n > STENCIL_MAX_DEPTHS)
        return sb_fail(m, SB_EUSAGE, "stencil.depth: %d depths; accepted: at most %d", n,
                       STENCIL_MAX_DEPTHS);
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

static int mpi_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support();
#else
    return 0;
#endif
}

int stencil_plan_backend(struct stencil_plan *p, const struct config *c, MPI_Comm comm,
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
    /* the library's answer on each rank, one for all (installs may differ by node) */
    int mine = mpi_cuda_aware(), aware = mine;
    CHECK_MPI(MPI_Allreduce(&mine, &aware, 1, MPI_INT, MPI_MIN, comm));
    if (!strcmp(p->cuda_aware, "1") && !aware) {
        int rank, first, without;
        CHECK_MPI(MPI_Comm_rank(comm, &rank));
        without = mine ? INT_MAX : rank;
        CHECK_MPI(MPI_Allreduce(&without, &first, 1, MPI_INT, MPI_MIN, comm));
        return sb_fail(m, SB_EUSAGE,
                       "stencil.cuda_aware = 1: this MPI library cannot take device pointers "
                       "(rank %d); accepted: auto or 0",
                       first);
    }
    p->base.device_buffers = strcmp(p->cuda_aware, "0") && aware;
    return SB_OK;
}

int stencil_plan_check_memory(const struct stencil_plan *p, MPI_Comm comm, struct sb_msg *m)
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
    int local, here, rc = SB_OK;
    node_place(comm, &local, &here);
    if (most * here > 0.8 * node)
        rc = sb_fail(m, SB_EUSAGE,
                     "stencil.size: two fields of %.0f bytes per rank on %d ranks need %.3g GB; "
                     "this node has %.3g GB; reduce stencil.size or stencil.depth",
                     most / 2, here, most * here / 1e9, node / 1e9);
    return sb_agree(rc, m, comm); /* nodes may differ: every rank stops with the one that must */
}

long stencil_stretch(long it, long total, long every)
{
    long n = total - it;
    if (every > 0 && (it / every + 1) * every - it < n) n = (it / every + 1) * every - it;
    return n;
}

int stencil_plan_check_fault(const struct stencil_plan *p, long done, long every, struct sb_msg *m)
{
    const long fault = p->base.inject_fault, total = p->base.iterations;
    long shallowest = LONG_MAX, exchanges = 0;
    for (int i = 0; i < p->ndepths; i++)
        if (p->depth[i] < shallowest) shallowest = (long)p->depth[i];
    if (fault < 0 || p->ndepths == 0) return SB_OK;
    for (long it = done; it < total && exchanges <= fault;) {
        long n = stencil_stretch(it, total, every);
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

int stencil_plan_checkpoints(struct stencil_plan *p, struct checkpoint_plan *ckpt,
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
