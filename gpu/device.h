/* What GPUs this process can use.  Built from gpu/device_cuda.cu when nvcc
 * is found, from gpu/device_none.c otherwise. */
#ifndef SB_GPU_DEVICE_H
#define SB_GPU_DEVICE_H

#include <stddef.h>

/* Number of usable CUDA devices (0 when none or no driver); `describe`
 * receives a one-line description, or the reason there is none. */
int gpu_probe(char *describe, size_t size);

#endif
