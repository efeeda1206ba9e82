/* What GPUs this process can use.  Built from gpu/device_cuda.cu when nvcc
 * is found, from gpu/device_none.c otherwise. */
#ifndef SB_GPU_DEVICE_H
#define SB_GPU_DEVICE_H

#include <stddef.h>

/* Number of usable CUDA devices (0 when none or no driver); `describe`
 * receives a one-line description, or the reason there is none. */
int gpu_probe(char *describe, size_t size);

/* The CUDA runtime this binary was built with, in words ("none" without). */
const char *gpu_runtime_built(void);

/* Makes the device local_rank mod (device count) this process's device;
 * returns its number, or -1 when there is no usable device. */
int gpu_select_device(int local_rank);

#endif
