// The CUDA stencil backend (gpu/backend.h): the same operations as
// gpu/backend_cpu.c as kernels on three streams, timed with CUDA events
// (seed 004 sec. 3.2.4 and 3.5).
//
//   copy stream   pack and unpack kernels and the host <-> device copies
//   inner stream  the interior sweep that runs while MPI moves the halo
//   main stream   every other sweep
//
// Every operation but sweep_start waits for its own work before it returns,
// so the driver may hand a buffer to MPI or swap the fields right after it;
// the streams are non-blocking, so nothing else orders them (not the legacy
// default stream either: every copy names its stream).  The copy stream has
// the highest priority so that halo work is not queued behind the interior
// sweep (seed 004 sec. 3.6.3).  Built with --fmad=false so that products and
// sums round as on the CPU and the two backends agree bit for bit.
//
// Kernels are launched through SB_LAUNCH (gpu/cuda_compat.h), which lets
// `make CUDA_EMU=1` run this very file on a host emulation of the runtime.
extern "C" {
#include "backend.h"
#include "device.h"
}

#include "cuda_compat.h"

#include <algorithm>
#include <climits>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace
{

int cuda_error(const char *call, cudaError_t rc, const char *file, int line)
{
    fprintf(stderr, "shiftbox: %s failed: %s (%s:%d)\n", call, cudaGetErrorString(rc), file, line);
    return SB_ERUNTIME;
}

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t rc_ = (call);                                                                  \
        if (rc_ != cudaSuccess) return cuda_error(#call, rc_, __FILE__, __LINE__);                 \
    } while (0)

// After every launch: a bad configuration shows here, a fault at the next sync.
#define CHECK_LAUNCH(what)                                                                         \
    do {                                                                                           \
        cudaError_t rc_ = cudaGetLastError();                                                      \
        if (rc_ != cudaSuccess) return cuda_error("launch of " what, rc_, __FILE__, __LINE__);     \
    } while (0)

// One MPI buffer: what MPI sees (host or device) and where kernels pack.
struct staged {
    void *mpi;    // handed to MPI
    void *device; // packed into / unpacked from by the kernels
    size_t bytes;
    bool pinned; // mpi was allocated with cudaMallocHost
};

struct cuda_state {
    void *in, *out;
    void *spare;     // a third field: shared-memory temporal blocking writes into it
    size_t l2_bytes; // the device's L2 cache, read once (temporal blocking's tiles)
    // temporal blocking's batches since init, by where their tiles were
    long shared_batches, l2_batches;
    cudaStream_t copy, inner, main;
    cudaEvent_t t0[3], t1[3]; // per stream: start and end of the last timed work
    staged *buffers;
    int nbuffers, capacity;
};

enum { S_COPY, S_INNER, S_MAIN };

cuda_state *state(stencil_backend *b)
{
    return static_cast<cuda_state *>(b->impl);
}

template <typename T> struct weights {
    T z0, n, w, c, e, s, z1;
};

template <typename T> weights<T> make_weights(const stencil_layout *l)
{
    const double *w = l->weights;
    int o = l->dim == 3 ? 1 : 0;
    weights<T> k;
    k.z0 = (T)w[0];
    k.n = (T)w[o];
    k.w = (T)w[o + 1];
    k.c = (T)w[o + 2];
    k.e = (T)w[o + 3];
    k.s = (T)w[o + 4];
    k.z1 = (T)w[6];
    return k;
}

// One point of seed 004 Listing 2 (3D: z-1 first, z+1 last), the sum in
// the order the CPU backend adds it (nvcc runs with --fmad=false), so that
// every backend computes the same bits.
template <typename T>
__device__ __host__ inline T point(T zb, T n, T w_, T c, T e, T s, T zf, const weights<T> &w,
                                   bool three_d)
{
    T sum = 0;
    if (three_d) sum += zb * w.z0;
    sum += n * w.n;
    sum += w_ * w.w;
    sum += c * w.c;
    sum += e * w.e;
    sum += s * w.s;
    if (three_d) sum += zf * w.z1;
    return sum;
}

// seed 004 Listing 2, generalised to a box and to 3D, with R rows (y) per
// thread: all the loads of the R points are issued before the first sum, so
// that each thread has R times the bytes in flight that one point gives it
// (device memory's bandwidth needs many bytes in flight; R = 1 is the
// listing itself, stencil.cuda_rows).  Loops over y and z with the grid's
// stride so any box fits the launch limits.
template <typename T, int R>
__global__ void sweep_kernel(const T *__restrict__ in, T *__restrict__ out, sbox box, int sy,
                             long long sz, weights<T> w, bool three_d)
{
    int x = box.lo[0] + (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (x >= box.hi[0]) return;
    for (int z = box.lo[2] + (int)blockIdx.z; z < box.hi[2]; z += (int)gridDim.z)
        for (int y0 = box.lo[1] + R * (int)(blockIdx.y * blockDim.y + threadIdx.y);
             y0 < box.hi[1]; y0 += R * (int)(gridDim.y * blockDim.y)) {
            long long i = (long long)z * sz + (long long)y0 * sy + x;
            const T *p = in + i;
            T *q = out + i;
            if (y0 + R <= box.hi[1]) {
                T col[R + 2], west[R], east[R], below[R], above[R];
                SB_UNROLL
                for (int j = 0; j < R + 2; j++) col[j] = p[(j - 1) * (long long)sy];
                SB_UNROLL
                for (int j = 0; j < R; j++) {
                    west[j] = p[j * (long long)sy - 1];
                    east[j] = p[j * (long long)sy + 1];
                    below[j] = three_d ? p[j * (long long)sy - sz] : T(0);
                    above[j] = three_d ? p[j * (long long)sy + sz] : T(0);
                }
                SB_UNROLL
                for (int j = 0; j < R; j++)
                    q[j * (long long)sy] = point(below[j], col[j], west[j], col[j + 1], east[j],
                                                 col[j + 2], above[j], w, three_d);
            } else {
                for (int j = 0; j < box.hi[1] - y0; j++) {
                    const T *c = p + j * (long long)sy;
                    q[j * (long long)sy] =
                        point(three_d ? c[-sz] : T(0), c[-sy], c[-1], c[0], c[1], c[sy],
                              three_d ? c[sz] : T(0), w, three_d);
                }
            }
        }
}

// Box of the field <-> contiguous buffer, x fastest (Listings 5 and 6 of
// seed 004, for any box).  W is a word of the field's element size.
template <typename W>
__global__ void pack_kernel(W *__restrict__ field, W *__restrict__ buf, sbox box, int sy,
                            long long sz, bool to_buffer)
{
    int nx = box.hi[0] - box.lo[0], ny = box.hi[1] - box.lo[1];
    int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (x >= nx) return;
    for (int z = (int)blockIdx.z; z < box.hi[2] - box.lo[2]; z += (int)gridDim.z)
        for (int y = (int)(blockIdx.y * blockDim.y + threadIdx.y); y < ny;
             y += (int)(gridDim.y * blockDim.y)) {
            long long f =
                (long long)(z + box.lo[2]) * sz + (long long)(y + box.lo[1]) * sy + (x + box.lo[0]);
            long long k = ((long long)z * ny + y) * nx + x;
            if (to_buffer)
                buf[k] = field[f];
            else
                field[f] = buf[k];
        }
}

// The launch limit of the grid in y and z (CUDA's 65535; the emulation's
// is 1, so that make check runs the kernels' grid-stride loops).
constexpr unsigned kBlockX = 32, kBlockY = 8, kMaxGridYZ = SB_MAX_GRID_YZ;

// The launch grid of a box, each thread taking `rows` rows.
dim3 grid_for(const sbox &box, unsigned rows = 1)
{
    unsigned nx = (unsigned)(box.hi[0] - box.lo[0]), ny = (unsigned)(box.hi[1] - box.lo[1]);
    unsigned nz = (unsigned)(box.hi[2] - box.lo[2]);
    unsigned gy = (ny + kBlockY * rows - 1) / (kBlockY * rows);
    return dim3((nx + kBlockX - 1) / kBlockX, gy < kMaxGridYZ ? gy : kMaxGridYZ,
                nz < kMaxGridYZ ? nz : kMaxGridYZ);
}

long long plane_points(const stencil_layout *l)
{
    return (long long)l->ext[0] * l->ext[1];
}

size_t field_bytes(const stencil_backend *b)
{
    return layout_points(&b->layout) * (size_t)b->layout.real_bytes;
}

template <typename T, int R>
void launch_rows(const stencil_layout *l, const sbox &box, const void *in, void *out,
                 cudaStream_t stream)
{
    int sy = l->ext[0];             // one row
    long long sz = plane_points(l); // one plane
    dim3 block(kBlockX, kBlockY, 1);
    SB_LAUNCH((sweep_kernel<T, R>), grid_for(box, R), block, stream, (const T *)in, (T *)out,
              box, sy, sz, make_weights<T>(l), l->dim == 3);
}

template <typename T>
cudaError_t launch_typed(const stencil_layout *l, const sbox &box, const void *in, void *out,
                         cudaStream_t stream)
{
    switch (sweep_rows(l->cuda_rows, l->real_bytes)) {
    case 1: launch_rows<T, 1>(l, box, in, out, stream); break;
    case 2: launch_rows<T, 2>(l, box, in, out, stream); break;
    case 4: launch_rows<T, 4>(l, box, in, out, stream); break;
    case 8: launch_rows<T, 8>(l, box, in, out, stream); break;
    default: return cudaErrorInvalidValue; // stencil.cuda_rows admits no other
    }
    return cudaSuccess;
}

// out = stencil(in) on one box.
int launch_sweep(stencil_backend *b, const sbox &box, const void *in, void *out,
                 cudaStream_t stream)
{
    if (sbox_points(&box) == 0) return SB_OK;
    const stencil_layout *l = &b->layout;
    cudaError_t rc = l->real_bytes == 4 ? launch_typed<float>(l, box, in, out, stream)
                                        : launch_typed<double>(l, box, in, out, stream);
    if (rc != cudaSuccess)
        return cuda_error("sweep_kernel (rows per thread, stencil.cuda_rows)", rc, __FILE__,
                          __LINE__);
    CHECK_LAUNCH("sweep_kernel");
    return SB_OK;
}

int launch_pack(stencil_backend *b, const sbox &box, void *dev, bool to_buffer)
{
    if (sbox_points(&box) == 0) return SB_OK;
    const stencil_layout *l = &b->layout;
    cuda_state *s = state(b);
    int sy = l->ext[0];             // one row
    long long sz = plane_points(l); // one plane
    dim3 block(kBlockX, kBlockY, 1);
    if (l->real_bytes == 4)
        SB_LAUNCH(pack_kernel<uint32_t>, grid_for(box), block, s->copy, (uint32_t *)s->in,
                  (uint32_t *)dev, box, sy, sz, to_buffer);
    else
        SB_LAUNCH(pack_kernel<uint64_t>, grid_for(box), block, s->copy, (uint64_t *)s->in,
                  (uint64_t *)dev, box, sy, sz, to_buffer);
    CHECK_LAUNCH("pack_kernel");
    return SB_OK;
}

staged *find_buffer(cuda_state *s, const void *mpi)
{
    for (int i = 0; i < s->nbuffers; i++)
        if (s->buffers[i].mpi == mpi) return &s->buffers[i];
    return nullptr;
}

// Waits for the timed work of stream `which` and returns its seconds.
int timed_wait(cuda_state *s, int which, double *seconds)
{
    float ms = 0;
    CHECK_CUDA(cudaEventSynchronize(s->t1[which]));
    CHECK_CUDA(cudaEventElapsedTime(&ms, s->t0[which], s->t1[which]));
    *seconds = 1e-3 * (double)ms;
    return SB_OK;
}

size_t cuda_cache_bytes(void)
{
    int device = 0;
    cudaDeviceProp prop;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaGetDeviceProperties(&prop, device) != cudaSuccess || prop.l2CacheSize <= 0)
        return (size_t)64 << 20; // not reported: larger than any L2 so far
    return (size_t)prop.l2CacheSize;
}

bool shared_possible(const stencil_layout *l); // temporal blocking in shared memory, below

int cuda_init(stencil_backend *b, const stencil_layout *l, sb_msg *m)
{
    b->layout = *l;
    cuda_state *s = static_cast<cuda_state *>(calloc(1, sizeof(cuda_state)));
    if (!s) return sb_fail(m, SB_ERUNTIME, "stencil: out of host memory");
    b->impl = s;
    // Every rank that shares this device allocates as much at the same time.
    size_t bytes = field_bytes(b), free_bytes = 0, total_bytes = 0;
    size_t sharers = l->device_sharers > 1 ? (size_t)l->device_sharers : 1;
    CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    bool third = shared_possible(l);
    size_t fields = third ? 3 : 2;
    if (fields * bytes * sharers > free_bytes)
        return sb_fail(m, SB_EUSAGE,
                       "stencil: %s fields of %zu bytes each on %zu rank(s) sharing this GPU "
                       "need %zu bytes of device memory; %zu of %zu are free; reduce "
                       "stencil.size or use more GPUs%s",
                       third ? "three" : "two", bytes, sharers, fields * bytes * sharers,
                       free_bytes, total_bytes,
                       third ? " (temporal blocking in shared memory writes into a third field; "
                               "stencil.cuda_blocking=l2 needs none)"
                             : "");
    int least = 0, greatest = 0;
    CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK_CUDA(cudaStreamCreateWithPriority(&s->copy, cudaStreamNonBlocking, greatest));
    CHECK_CUDA(cudaStreamCreateWithPriority(&s->inner, cudaStreamNonBlocking, least));
    CHECK_CUDA(cudaStreamCreateWithPriority(&s->main, cudaStreamNonBlocking, least));
    for (int i = 0; i < 3; i++) {
        CHECK_CUDA(cudaEventCreate(&s->t0[i]));
        CHECK_CUDA(cudaEventCreate(&s->t1[i]));
    }
    s->l2_bytes = cuda_cache_bytes();
    CHECK_CUDA(cudaMalloc(&s->in, bytes));
    CHECK_CUDA(cudaMalloc(&s->out, bytes));
    if (third) CHECK_CUDA(cudaMalloc(&s->spare, bytes)); // fully written by each batch
    CHECK_CUDA(cudaMemsetAsync(s->in, 0, bytes, s->copy));
    CHECK_CUDA(cudaMemsetAsync(s->out, 0, bytes, s->copy));
    CHECK_CUDA(cudaStreamSynchronize(s->copy));
    return SB_OK;
}

void release(staged *x)
{
    if (x->mpi != x->device) {
        if (x->pinned)
            cudaFreeHost(x->mpi);
        else
            free(x->mpi);
    }
    cudaFree(x->device);
}

void cuda_destroy(stencil_backend *b)
{
    cuda_state *s = state(b);
    if (!s) return;
    cudaDeviceSynchronize();
    for (int i = 0; i < s->nbuffers; i++)
        release(&s->buffers[i]);
    free(s->buffers);
    for (int i = 0; i < 3; i++) {
        if (s->t0[i]) cudaEventDestroy(s->t0[i]);
        if (s->t1[i]) cudaEventDestroy(s->t1[i]);
    }
    if (s->copy) cudaStreamDestroy(s->copy);
    if (s->inner) cudaStreamDestroy(s->inner);
    if (s->main) cudaStreamDestroy(s->main);
    cudaFree(s->in);
    cudaFree(s->out);
    cudaFree(s->spare);
    free(s);
    b->impl = nullptr;
}

void *cuda_buffer_alloc(stencil_backend *b, size_t bytes)
{
    cuda_state *s = state(b);
    if (bytes == 0) bytes = 1;
    if (s->nbuffers == s->capacity) {
        s->capacity = s->capacity ? 2 * s->capacity : 64;
        s->buffers =
            static_cast<staged *>(sb_realloc(s->buffers, s->capacity * sizeof(staged), "buffers"));
    }
    staged x = {nullptr, nullptr, bytes, false};
    const char *call = "cudaMalloc of a halo buffer";
    cudaError_t rc = cudaMalloc(&x.device, bytes);
    bool have_device = rc == cudaSuccess;
    if (rc == cudaSuccess && b->layout.device_buffers) {
        x.mpi = x.device;
    } else if (rc == cudaSuccess && b->layout.pinned) {
        call = "cudaMallocHost of a halo buffer";
        rc = cudaMallocHost(&x.mpi, bytes);
        x.pinned = true;
    } else if (rc == cudaSuccess) {
        call = "malloc of a halo buffer";
        x.mpi = malloc(bytes);
        if (!x.mpi) rc = cudaErrorMemoryAllocation;
    }
    if (rc != cudaSuccess) {
        cuda_error(call, rc, __FILE__, __LINE__);
        if (have_device) cudaFree(x.device); // the device half of a failed pair
        return nullptr;
    }
    s->buffers[s->nbuffers++] = x;
    return x.mpi;
}

void cuda_buffer_free(stencil_backend *b, void *p)
{
    cuda_state *s = state(b);
    staged *x = find_buffer(s, p);
    if (!x) return;
    release(x);
    *x = s->buffers[--s->nbuffers];
}

// On the copy stream, waited for: a plain cudaMemcpy from pageable memory
// would go to the legacy default stream, which the non-blocking streams do
// not wait for, and may return before the data is on the device.
int cuda_upload(stencil_backend *b, const void *host)
{
    cuda_state *s = state(b);
    CHECK_CUDA(cudaMemcpyAsync(s->in, host, field_bytes(b), cudaMemcpyHostToDevice, s->copy));
    CHECK_CUDA(cudaStreamSynchronize(s->copy));
    return SB_OK;
}

int cuda_download(stencil_backend *b, void *host)
{
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(host, state(b)->in, field_bytes(b), cudaMemcpyDeviceToHost));
    return SB_OK;
}

// One box <-> one MPI buffer on the copy stream.  Packing: the kernel fills
// the device staging buffer, then (without CUDA-aware MPI) a copy takes it
// to the host buffer MPI sends from; unpacking runs the other way round.
int move_box(stencil_backend *b, const sbox &box, void *mpi, bool to_buffer)
{
    cuda_state *s = state(b);
    staged *x = find_buffer(s, mpi);
    if (!x)
        return cuda_error("a halo buffer not allocated here", cudaErrorInvalidValue, __FILE__,
                          __LINE__);
    size_t bytes = sbox_points(&box) * (size_t)b->layout.real_bytes;
    bool staging = x->mpi != x->device && bytes > 0;
    if (to_buffer && launch_pack(b, box, x->device, true) != SB_OK) return SB_ERUNTIME;
    if (staging)
        CHECK_CUDA(
            cudaMemcpyAsync(to_buffer ? x->mpi : x->device, to_buffer ? x->device : x->mpi, bytes,
                            to_buffer ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, s->copy));
    if (!to_buffer && launch_pack(b, box, x->device, false) != SB_OK) return SB_ERUNTIME;
    return SB_OK;
}

int move_boxes(stencil_backend *b, int n, const sbox *box, void *const *buf, bool to_buffer,
               double *seconds)
{
    cuda_state *s = state(b);
    CHECK_CUDA(cudaEventRecord(s->t0[S_COPY], s->copy));
    for (int i = 0; i < n; i++)
        if (move_box(b, box[i], buf[i], to_buffer) != SB_OK) return SB_ERUNTIME;
    CHECK_CUDA(cudaEventRecord(s->t1[S_COPY], s->copy));
    return timed_wait(s, S_COPY, seconds);
}

int cuda_pack(stencil_backend *b, int n, const sbox *box, void *const *buf, double *seconds)
{
    return move_boxes(b, n, box, buf, true, seconds);
}

int cuda_unpack(stencil_backend *b, int n, const sbox *box, void *const *buf, double *seconds)
{
    return move_boxes(b, n, box, buf, false, seconds);
}

int cuda_sweep(stencil_backend *b, int n, const sbox *box, double *seconds)
{
    cuda_state *s = state(b);
    CHECK_CUDA(cudaEventRecord(s->t0[S_MAIN], s->main));
    for (int i = 0; i < n; i++)
        if (launch_sweep(b, box[i], s->in, s->out, s->main) != SB_OK) return SB_ERUNTIME;
    CHECK_CUDA(cudaEventRecord(s->t1[S_MAIN], s->main));
    return timed_wait(s, S_MAIN, seconds);
}

int cuda_sweep_start(stencil_backend *b, const sbox *box)
{
    cuda_state *s = state(b);
    CHECK_CUDA(cudaEventRecord(s->t0[S_INNER], s->inner));
    if (launch_sweep(b, *box, s->in, s->out, s->inner) != SB_OK) return SB_ERUNTIME;
    CHECK_CUDA(cudaEventRecord(s->t1[S_INNER], s->inner));
    return SB_OK;
}

int cuda_sweep_wait(stencil_backend *b, double *seconds)
{
    return timed_wait(state(b), S_INNER, seconds);
}

void cuda_swap(stencil_backend *b)
{
    cuda_state *s = state(b);
    void *t = s->in;
    s->in = s->out;
    s->out = t;
}


// Temporal blocking (stencil.blocking=temporal): the n sweeps between two
// exchanges tile by tile along the slowest axis W (z in 3D, y in 2D), each
// tile's n sweeps one kernel after another while its planes are in the L2
// cache, instead of n passes over device memory.  The schedule is the CPU's
// (gpu/backend_cpu_temporal.c) with a whole tile as one wavefront step:
//
//   for each tile [w0, w1) of W, in increasing order
//     for each sweep t = 0 .. n-1:  planes [w0 - t, w1 - t) of box[t]
//
// sweep t reading field[t % 2] and writing field[(t + 1) % 2].  Why the
// order is right (every value read is the one the plain order reads, and
// nothing is overwritten before its last reader):
// - sweep t at plane w of this tile needs sweep t-1 at w-1 .. w+1: this
//   tile's sweep t-1 made [w0-t+1, w1-t+1), one kernel earlier; the earlier
//   tiles made everything below, and the last of them to write those planes
//   of field[t % 2] was sweep t-1 where box[t-1] holds them (its sweeps t+1,
//   t+3, ... stop one plane further down each; elsewhere t-3, ... as in the
//   plain order);
// - sweep t overwrites sweep t-2's values at planes below w1-t; their
//   readers in this tile (sweep t-1) ran before, and the next tile's sweep
//   t-1 reads from plane w1-t on.
// Kernels on one stream run in order, and every point is computed by the
// same kernel from the same inputs as in plain sweeps: the result is bit
// for bit theirs (tests/cuda_emu.sh checks it against the CPU backend, and
// that a schedule without the skew is caught).  On one H200 it does not
// pay: at depth 8 the blocked sweeps took 1.2x (2D, default tiles) to
// 1.7x (3D) the plain ones, and the widest tiles came closest
// (docs/results/gpu-h200.md) -- the plain kernel is already near the
// device's copy bandwidth and each tile is a chain of small launches.
// Hence, in 2D, the tiles in shared memory below (1.32-1.67x the plain
// sweeps at depths 4-12 in float on the same GPU); this schedule takes 3D
// and the batches too long for them.

// Tile planes for tile = 0: (tile + n + 1) planes of both fields in half
// the L2 cache, but at least 2^20 points per launch, so that the launches
// (a few microseconds each) do not outweigh the kernels; never fewer than 2.
int l2_tile(const stencil_layout *l, size_t l2_bytes, int n)
{
    double points = (double)l->ext[0] * (l->dim == 3 ? l->ext[1] : 1); // one plane
    double planes = (double)l2_bytes / 2 / (2.0 * points * l->real_bytes) - (n + 1);
    double enough = (double)(1 << 20) / points;
    if (planes < enough) planes = enough;
    return planes < 2 ? 2 : planes > (double)(1 << 24) ? 1 << 24 : (int)planes;
}

// Temporal blocking in shared memory (2D, stencil.cuda_blocking): one kernel
// for all n sweeps of a batch.  Each block takes tiles of LX x LY points: it
// loads a tile of both fields, runs the n sweeps on its two copies in shared
// memory, each sweep t on box[t] within the points still exact after t + 1
// sweeps (one layer fewer on each side per sweep), and stores the tile's
// inner (LX - 2n) x (LY - 2n) points, its own.  The own points of all tiles
// cover the field once.  The two copies mirror the two fields point by
// point (sweep t reads copy t % 2 and writes copy (t + 1) % 2, and a point
// outside box[t] keeps what its field held), so every point is computed by
// point() from the values the plain sweeps give it: the same bits.
//
// Blocks run in no order, so no block may write what another still loads.
// With nested boxes (box[t + 1] within box[t]) every sweep writes inside
// box[0]:
// - field 1 (`b1`) is written only inside box[0] and loaded only outside it
//   (inside, sweep 0 writes the copy before anything reads it): stored in
//   place;
// - field 0 (`a`) is loaded everywhere, so its new values go to a third
//   field (`x0`), which takes field 0's place afterwards; every point of
//   it is some tile's own, so all of it is written.
constexpr int kMaxSharedSweeps = 16; // the most any type's tile takes (cuda_shared_sweeps)
struct sweep_boxes {
    sbox box[kMaxSharedSweeps];
};

// 48 KiB of shared memory (a block's static limit): two copies of LX x LY.
template <typename T> struct shared_tile;
template <> struct shared_tile<float> {
    static constexpr int x = 96, y = 64;
};
template <> struct shared_tile<double> {
    static constexpr int x = 64, y = 48;
};

// The block the kernel is written for: a tile is whole blocks of threads.
constexpr int kTileBX = (int)kBlockX, kTileBY = (int)kBlockY;

__device__ __host__ inline int imax(int a, int b)
{
    return a > b ? a : b;
}

__device__ __host__ inline int imin(int a, int b)
{
    return a < b ? a : b;
}

__device__ __host__ inline bool in_box(const sbox &b, int x, int y)
{
    return x >= b.lo[0] && x < b.hi[0] && y >= b.lo[1] && y < b.hi[1];
}

// How a field of ext0 x ext1 points splits into tiles for n sweeps: each
// tile owns its inner own_x x own_y points, tiles_x of them a row.
struct tile_grid {
    int own_x, own_y, tiles_x, tiles;
};

template <typename T> __device__ __host__ inline tile_grid tiles_for(int n, int ext0, int ext1)
{
    tile_grid g;
    g.own_x = shared_tile<T>::x - 2 * n;
    g.own_y = shared_tile<T>::y - 2 * n;
    g.tiles_x = (ext0 + g.own_x - 1) / g.own_x;
    g.tiles = g.tiles_x * ((ext1 + g.own_y - 1) / g.own_y);
    return g;
}

// One tile's place: field point (gx, gy) is copy[.][0][0].
struct tile_origin {
    int gx, gy;
};

// Both copies from the fields: field 0 everywhere, field 1 outside box[0]
// (inside, sweep 0 writes the copy before anything reads it).  A fixed count
// of loads per thread, so that all of them are in flight at once.
template <typename T, int LX, int LY>
__device__ void load_tile(T (*copy)[LY][LX], const T *__restrict__ a, const T *__restrict__ b1,
                          const sbox &box0, tile_origin o, int ext0, int ext1)
{
    SB_UNROLL
    for (int j = 0; j < LY / kTileBY; j++)
        SB_UNROLL
        for (int i = 0; i < LX / kTileBX; i++) {
            int lx = (int)threadIdx.x + i * kTileBX, ly = (int)threadIdx.y + j * kTileBY;
            int x = o.gx + lx, y = o.gy + ly;
            if (x < 0 || x >= ext0 || y < 0 || y >= ext1) continue;
            long long p = (long long)y * ext0 + x;
            copy[0][ly][lx] = a[p];
            if (!in_box(box0, x, y)) copy[1][ly][lx] = b1[p];
        }
}

// Sweep t on box r, within the points still exact after t + 1 sweeps: copy
// t % 2 into copy (t + 1) % 2.  Each thread walks down a column strip with
// the rows above and below in registers: 3 reads of shared memory a point.
template <typename T, int LX, int LY>
__device__ void sweep_tile(T (*copy)[LY][LX], int t, const sbox &r, tile_origin o,
                           const weights<T> &w)
{
    const int xlo = imax(t + 1, r.lo[0] - o.gx), xhi = imin(LX - t - 1, r.hi[0] - o.gx);
    const int ylo = imax(t + 1, r.lo[1] - o.gy), yhi = imin(LY - t - 1, r.hi[1] - o.gy);
    const T(*src)[LX] = copy[t & 1];
    T(*dst)[LX] = copy[(t + 1) & 1];
    const int chunk = (yhi - ylo + kTileBY - 1) / kTileBY, y0 = ylo + (int)threadIdx.y * chunk;
    const int y1 = imin(y0 + chunk, yhi);
    for (int lx = xlo + (int)threadIdx.x; y0 < y1 && lx < xhi; lx += kTileBX) {
        T up = src[y0 - 1][lx], mid = src[y0][lx];
        for (int ly = y0; ly < y1; ly++) {
            T down = src[ly + 1][lx];
            dst[ly][lx] = point(T(0), up, src[ly][lx - 1], mid, src[ly][lx + 1], down, T(0), w,
                                false);
            up = mid;
            mid = down;
        }
    }
}

// The tile's own points (n in from each side) to the third field and,
// inside box[0], to field 1.
template <typename T, int LX, int LY>
__device__ void store_tile(T (*copy)[LY][LX], T *__restrict__ b1, T *__restrict__ x0,
                           const sbox &box0, tile_origin o, int n, int ext0, int ext1)
{
    for (int ly = n + (int)threadIdx.y; ly < LY - n; ly += kTileBY)
        for (int lx = n + (int)threadIdx.x; lx < LX - n; lx += kTileBX) {
            int x = o.gx + lx, y = o.gy + ly;
            if (x >= ext0 || y >= ext1) continue;
            long long p = (long long)y * ext0 + x;
            x0[p] = copy[0][ly][lx];
            if (in_box(box0, x, y)) b1[p] = copy[1][ly][lx];
        }
}

// Launched with blocks of kTileBX x kTileBY threads.
template <typename T>
__global__ void shared_blocked_kernel(const T *__restrict__ a, T *__restrict__ b1,
                                      T *__restrict__ x0, sweep_boxes boxes, int n, int ext0,
                                      int ext1, weights<T> w)
{
    constexpr int LX = shared_tile<T>::x, LY = shared_tile<T>::y;
    static_assert(LX % kTileBX == 0 && LY % kTileBY == 0, "a tile is whole blocks of threads");
    __shared__ T copy[2][LY][LX];
    const tile_grid g = tiles_for<T>(n, ext0, ext1);
    for (int k = (int)blockIdx.x; k < g.tiles; k += (int)gridDim.x) {
        const tile_origin o = {k % g.tiles_x * g.own_x - n, k / g.tiles_x * g.own_y - n};
        load_tile(copy, a, b1, boxes.box[0], o, ext0, ext1);
        __syncthreads();
        for (int t = 0; t < n; t++) {
            sweep_tile(copy, t, boxes.box[t], o, w);
            __syncthreads();
        }
        store_tile(copy, b1, x0, boxes.box[0], o, n, ext0, ext1);
        __syncthreads(); // before the next tile's loads overwrite the copies
    }
}

bool box_within(const sbox &inner, const sbox &outer)
{
    if (sbox_points(&inner) == 0) return true;
    for (int a = 0; a < 3; a++)
        if (inner.lo[a] < outer.lo[a] || inner.hi[a] > outer.hi[a]) return false;
    return true;
}

// Whether the third field exists: 2D temporal blocking, not stencil.cuda_blocking=l2.
bool shared_possible(const stencil_layout *l)
{
    return l->temporal && cuda_blocking_shared(l->dim, l->cuda_blocking);
}

// Whether a batch runs in shared memory: shared_possible, not more sweeps
// than the tile allows, and nested boxes.
bool shared_applies(const stencil_layout *l, int n, const sbox *box)
{
    if (!shared_possible(l) || n > cuda_shared_sweeps(l->real_bytes) || n > kMaxSharedSweeps)
        return false;
    for (int t = 1; t < n; t++)
        if (!box_within(box[t], box[t - 1])) return false;
    return true;
}

template <typename T>
void launch_shared_typed(const stencil_layout *l, const sweep_boxes &boxes, int n, const void *a,
                         void *b1, void *x0, cudaStream_t stream)
{
    unsigned tiles = (unsigned)tiles_for<T>(n, l->ext[0], l->ext[1]).tiles;
    dim3 block(kTileBX, kTileBY, 1);
    SB_LAUNCH_SYNC(shared_blocked_kernel<T>, dim3(std::min(tiles, SB_MAX_STRIDE_BLOCKS)), block,
                   stream, (const T *)a, (T *)b1, (T *)x0, boxes, n, l->ext[0], l->ext[1],
                   make_weights<T>(l));
}

int sweeps_shared(stencil_backend *b, int n, const sbox *box, double *seconds)
{
    cuda_state *s = state(b);
    const stencil_layout *l = &b->layout;
    sweep_boxes boxes;
    for (int t = 0; t < n; t++)
        boxes.box[t] = box[t];
    CHECK_CUDA(cudaEventRecord(s->t0[S_MAIN], s->main));
    if (l->real_bytes == 4)
        launch_shared_typed<float>(l, boxes, n, s->in, s->out, s->spare, s->main);
    else
        launch_shared_typed<double>(l, boxes, n, s->in, s->out, s->spare, s->main);
    CHECK_LAUNCH("shared_blocked_kernel");
    CHECK_CUDA(cudaEventRecord(s->t1[S_MAIN], s->main));
    std::swap(s->in, s->spare); // field 0 is now the third field
    if (n % 2) cuda_swap(b);    // as n sweeps and swaps leave the fields
    s->shared_batches++;
    return timed_wait(s, S_MAIN, seconds);
}

const char *cuda_blocked_where(stencil_backend *b)
{
    const cuda_state *s = state(b);
    if (s->shared_batches && s->l2_batches) return "shared+l2";
    return s->shared_batches ? "shared" : s->l2_batches ? "l2" : nullptr;
}

int cuda_sweeps_blocked(stencil_backend *b, int n, const sbox *box, int tile, double *seconds)
{
    cuda_state *s = state(b);
    const stencil_layout *l = &b->layout;
    if (shared_applies(l, n, box)) return sweeps_shared(b, n, box, seconds);
    s->l2_batches++;
    const int wa = l->dim - 1;
    int first = INT_MAX, last = INT_MIN; // the planes the tiles must cover
    for (int t = 0; t < n; t++) {
        if (sbox_points(&box[t]) == 0) continue;
        first = std::min(first, box[t].lo[wa]);
        last = std::max(last, box[t].hi[wa] + t);
    }
    if (tile <= 0) tile = l2_tile(l, s->l2_bytes, n);
    if (tile < 2) tile = 2;
    void *const field[2] = {s->in, s->out};
    CHECK_CUDA(cudaEventRecord(s->t0[S_MAIN], s->main));
    for (int w0 = first; w0 < last; w0 += tile)
        for (int t = 0; t < n; t++) {
            sbox part = box[t];
            part.lo[wa] = std::max(part.lo[wa], w0 - t);
            part.hi[wa] = std::min(part.hi[wa], w0 + tile - t);
            if (part.lo[wa] >= part.hi[wa]) continue;
            if (launch_sweep(b, part, field[t % 2], field[(t + 1) % 2], s->main) != SB_OK)
                return SB_ERUNTIME;
        }
    CHECK_CUDA(cudaEventRecord(s->t1[S_MAIN], s->main));
    if (n % 2) cuda_swap(b); // as n sweeps and swaps leave the fields
    return timed_wait(s, S_MAIN, seconds);
}

int cuda_copy_time(stencil_backend *b, int reps, double *seconds)
{
    cuda_state *s = state(b);
    CHECK_CUDA(cudaEventRecord(s->t0[S_MAIN], s->main));
    for (int r = 0; r < reps; r++)
        CHECK_CUDA(cudaMemcpyAsync(r % 2 ? s->in : s->out, r % 2 ? s->out : s->in, field_bytes(b),
                                   cudaMemcpyDeviceToDevice, s->main));
    CHECK_CUDA(cudaEventRecord(s->t1[S_MAIN], s->main));
    return timed_wait(s, S_MAIN, seconds);
}


const stencil_backend_ops cuda_ops = {
    "cuda",           cuda_init,       cuda_destroy, cuda_buffer_alloc, cuda_buffer_free,
    cuda_upload,      cuda_download,   cuda_pack,    cuda_unpack,       cuda_sweep,
    cuda_sweep_start, cuda_sweep_wait, cuda_swap,    cuda_copy_time,    cuda_cache_bytes,
    nullptr,                      /* no in-cache calibration */
    cuda_sweeps_blocked, nullptr, /* tiles sized to its own L2 */
    nullptr,                      /* untuned: the device reports its L2 as it is */
    cuda_blocked_where,
};

} // namespace

extern "C" const stencil_backend_ops *const stencil_backend_cuda = &cuda_ops;

// Selects the device of this rank (ranks on one node take turns).
extern "C" int gpu_select_device(int local_rank)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return -1;
    int device = local_rank % count;
    return cudaSetDevice(device) == cudaSuccess ? device : -1;
}
