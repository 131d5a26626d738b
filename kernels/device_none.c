/* device_none.c - kernels/device.h for a build without CUDA: there is never a device. */
#include "kernels/device.h"

#include <stdio.h>
#include <string.h>

int ug_device_probe(char *why, size_t len)
{
    if (why && len) snprintf(why, len, "built without CUDA");
    return 0;
}

int ug_device_info(ug_gpu_info *info)
{
    memset(info, 0, sizeof *info);
    return 1;
}

int ug_device_count(void) { return 0; }

int ug_device_select(int index, char *why, size_t len)
{
    if (why && len) snprintf(why, len, "device %d: built without CUDA", index);
    return 1;
}
