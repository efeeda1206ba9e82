// A host emulation of the part of the CUDA runtime that gpu/*.cu use, so
// that the real CUDA sources run (and are tested) on machines without a GPU:
// `make CUDA_EMU=1` compiles gpu/*.cu with g++ against this header instead
// of the toolkit's (gpu/cuda_compat.h maps kernel launches) and links
// tests/cuda_emu/cuda_emu.cpp, giving build/emu/shiftbox.
//
// What is emulated: device and page-locked memory (plain host memory,
// tracked so copies of the wrong kind fail as on a GPU), memcpy and memset,
// synchronous and asynchronous, streams (the legacy default stream, blocking
// and non-blocking streams, priorities), events, and kernel launches, run as
// loops over gridDim and blockDim with blockIdx and threadIdx set.  Kernels
// that use __shared__ memory and __syncthreads are launched through
// cuda_emu_kernel_sync (SB_LAUNCH_SYNC): each block's threads then run as
// fibers that every __syncthreads switches between, all of a block reaching
// the barrier before any goes on; the adversarial policy runs the blocks in
// a random order and a block's threads in a new random order after each
// barrier, so a missing barrier gives wrong data.  Each fiber's stack (64 KiB)
// has a guard page below it: an overflow faults instead of corrupting the
// next one.
//
// SHIFTBOX_CUDA_EMU picks how stream work runs:
//   eager        every call runs its work at once, in issue order;
//   adversarial  (the default) work is queued per stream and runs only when a
//                synchronisation forces it (a synchronous copy, an event or
//                stream synchronisation, cudaDeviceSynchronize, cudaFree),
//                independent streams in a random order (SHIFTBOX_CUDA_EMU_SEED),
//                with the ordering CUDA defines between the legacy default
//                stream and blocking streams, and none with non-blocking
//                ones.  A missing synchronisation then gives wrong data.
// Copies follow the CUDA runtime's documented synchronisation (API docs,
// "API synchronization behavior"): from pageable host memory the source is
// taken at the call and the copy into device memory may happen later; to
// pageable memory the call returns when the copy is done; with page-locked
// memory an asynchronous copy reads and writes when it runs.
// SHIFTBOX_CUDA_EMU_MEMORY sets the device memory in bytes (default 16 GiB).
#ifndef SB_CUDA_EMU_RUNTIME_H
#define SB_CUDA_EMU_RUNTIME_H

#include <cstddef>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#define SB_CUDA_EMULATION 1

#define __global__
#define __device__
#define __host__
// Shared by the fibers of one block: they run on one host thread.
#define __shared__ static thread_local

enum cudaError_t {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
};

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};

enum { cudaStreamDefault = 0, cudaStreamNonBlocking = 1 };

struct uint3 {
    unsigned x, y, z;
};

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    int major, minor;
    int l2CacheSize;
};

typedef struct cuda_emu_stream *cudaStream_t;
typedef struct cuda_emu_event *cudaEvent_t;

// What a kernel reads: set for each emulated thread before it runs.
extern thread_local uint3 threadIdx, blockIdx;
extern thread_local dim3 blockDim, gridDim;

const char *cudaGetErrorString(cudaError_t rc);
cudaError_t cudaGetLastError(void);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest);

cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaFree(void *p);
cudaError_t cudaMallocHost(void **p, size_t bytes);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemset(void *p, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t stream = 0);

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int priority);
cudaError_t cudaStreamGetPriority(cudaStream_t s, int *priority);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags = 0);
cudaError_t cudaStreamDestroy(cudaStream_t s);

cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t e);

// Inside a kernel launched with cuda_emu_kernel_sync: waits until every
// thread of the block has called it (anywhere else: abort with a message).
void __syncthreads(void);

// A kernel launch: checks the configuration (as cudaGetLastError then
// reports it) and queues `body`, which runs every thread of the grid.
void cuda_emu_launch(dim3 grid, dim3 block, cudaStream_t stream, std::function<void()> body);

// kernel<<<grid, block, 0, stream>>>(args...): the arguments are converted
// to the kernel's parameter types now, as a launch does, and the kernel
// runs once per thread when the stream gets to it.
template <typename... P, typename... A>
void cuda_emu_kernel(dim3 grid, dim3 block, cudaStream_t stream, void (*kernel)(P...), A &&...args)
{
    std::tuple<std::decay_t<P>...> params(std::forward<A>(args)...);
    cuda_emu_launch(grid, block, stream, [=] {
        for (unsigned bz = 0; bz < grid.z; bz++)
            for (unsigned by = 0; by < grid.y; by++)
                for (unsigned bx = 0; bx < grid.x; bx++)
                    for (unsigned tz = 0; tz < block.z; tz++)
                        for (unsigned ty = 0; ty < block.y; ty++)
                            for (unsigned tx = 0; tx < block.x; tx++) {
                                blockIdx = uint3{bx, by, bz};
                                threadIdx = uint3{tx, ty, tz};
                                blockDim = block;
                                gridDim = grid;
                                std::apply(kernel, params);
                            }
    });
}

// Runs `thread` once for each thread of the grid: one block at a time (in a
// random order under the adversarial policy), its threads as fibers.
void cuda_emu_grid_fibers(dim3 grid, dim3 block, const std::function<void()> &thread);

// kernel<<<...>>> of a kernel that uses __syncthreads.
template <typename... P, typename... A>
void cuda_emu_kernel_sync(dim3 grid, dim3 block, cudaStream_t stream, void (*kernel)(P...),
                          A &&...args)
{
    std::tuple<std::decay_t<P>...> params(std::forward<A>(args)...);
    cuda_emu_launch(grid, block, stream, [=] {
        cuda_emu_grid_fibers(grid, block, [&] { std::apply(kernel, params); });
    });
}

#endif
