// The one place where the CUDA sources meet a compiler that is not nvcc.
// Under nvcc this is the CUDA runtime and the <<<...>>> launch.  Otherwise
// (make CUDA_EMU=1) <cuda_runtime.h> is the host emulation in tests/cuda_emu/
// and a launch queues the same kernel, compiled as host code, on the
// emulated stream.  Launch kernels only through SB_LAUNCH (SB_LAUNCH_SYNC for
// those that call __syncthreads).
#ifndef SB_GPU_CUDA_COMPAT_H
#define SB_GPU_CUDA_COMPAT_H

#include <cuda_runtime.h>

#ifdef __CUDACC__
#define SB_LAUNCH(kernel, grid, block, stream, ...) kernel<<<grid, block, 0, stream>>>(__VA_ARGS__)
#define SB_LAUNCH_SYNC                              SB_LAUNCH
#else
#define SB_LAUNCH(kernel, grid, block, stream, ...)                                                \
    cuda_emu_kernel(grid, block, stream, &kernel, __VA_ARGS__)
// A kernel that uses __shared__ memory and __syncthreads: under the
// emulation each block's threads run as fibers that meet at the barriers.
#define SB_LAUNCH_SYNC(kernel, grid, block, stream, ...)                                           \
    cuda_emu_kernel_sync(grid, block, stream, &kernel, __VA_ARGS__)
#endif

// The grid's limit in y and z: CUDA's, or under the emulation one block,
// so that every test there runs the kernels' grid-stride loops.
#ifdef __CUDACC__
#define SB_MAX_GRID_YZ 65535u
#else
#define SB_MAX_GRID_YZ 1u
#endif

// The most blocks a kernel that strides over its work in x launches: plenty
// on a GPU; under the emulation 3, so that tests run the stride loop and
// several blocks, which the emulation runs in a random order.
#ifdef __CUDACC__
#define SB_MAX_STRIDE_BLOCKS 65535u
#else
#define SB_MAX_STRIDE_BLOCKS 3u
#endif

// Unroll the loop that follows (its trip count known at compile time).
#ifdef __CUDACC__
#define SB_UNROLL _Pragma("unroll")
#else
#define SB_UNROLL _Pragma("GCC unroll 16")
#endif

#endif
