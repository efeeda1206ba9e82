// The CUDA side of gpu/device.h: counts the devices the runtime can use and
// says why there are none.  Linked with the static CUDA runtime, so the
// binary starts on machines without a driver and reports that instead.
extern "C" {
#include "device.h"
}

#include <cuda_runtime.h>
#include <stdio.h>

extern "C" const char *gpu_runtime_built(void)
{
#ifdef SB_CUDA_EMULATION
    return "the host emulation of tests/cuda_emu (make CUDA_EMU=1)";
#else
    static char text[64];
    snprintf(text, sizeof text, "CUDA runtime %d.%d", CUDART_VERSION / 1000,
             CUDART_VERSION % 1000 / 10);
    return text;
#endif
}

extern "C" int gpu_probe(char *describe, size_t size)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess || count == 0) {
        snprintf(describe, size, "none (%s)",
                 rc != cudaSuccess ? cudaGetErrorString(rc) : "no CUDA device");
        cudaGetLastError(); // clear the sticky error so later calls start clean
        return 0;
    }
    cudaDeviceProp prop;
    rc = cudaGetDeviceProperties(&prop, 0);
    if (rc != cudaSuccess) {
        snprintf(describe, size, "none (cudaGetDeviceProperties: %s)", cudaGetErrorString(rc));
        return 0;
    }
    snprintf(describe, size, "%d x %s (sm_%d%d, %.1f GiB)", count, prop.name, prop.major,
             prop.minor, (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    return count;
}
