#include "device.h"

#include <stdio.h>

int gpu_probe(char *describe, size_t size)
{
    snprintf(describe, size, "none (built without CUDA)");
    return 0;
}

const char *gpu_runtime_built(void)
{
    return "none (built without CUDA)";
}

int gpu_select_device(int local_rank)
{
    (void)local_rank;
    return -1;
}
