/* gpu.c - the GPU as cases see it: whether one can be used (kernels/device.h probes it once). */
#include <stdio.h>

#include "kernels/device.h"
#include "harness/run/context.h"

static int ug_gpu_state = -1; /* -1 unknown, 0 no, 1 yes */
static char ug_gpu_reason[256];

bool ug_gpu_available(void)
{
    if (ug_gpu_state < 0)
        ug_gpu_state = ug_device_probe(ug_gpu_reason, sizeof ug_gpu_reason) ? 1 : 0;
    return ug_gpu_state == 1;
}

const char *ug_gpu_why(void)
{
    ug_gpu_available();
    return ug_gpu_reason;
}

bool ug_run_used_gpu(void) { return ug_gpu_state == 1; }
