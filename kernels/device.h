/*
 * device.h - the GPU as the harness sees it, whatever the build: kernels/cuda/device.cu when
 * the build has CUDA, kernels/device_none.c when it has not (every probe says why not).
 */
#ifndef UG_DEVICE_H
#define UG_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ug_gpu_info {
    char name[256];
    int cc_major, cc_minor;
    int driver_version, runtime_version; /* as cudaDriverGetVersion / cudaRuntimeGetVersion */
    int sm_count;
    double mem_gib;
    int cublas_version;                  /* cublasGetProperty major*10000 + minor*100 + patch */
    int cccl_version;                    /* CCCL_VERSION of the headers built against */
} ug_gpu_info;

/* 1 when a CUDA device can be used (the selected one, device 0 by default), else 0 with the
 * reason in why ("built without CUDA", "cudaGetDeviceCount: ...").  Cheap after the first call.
 * The first call creates the device's context. */
int ug_device_probe(char *why, size_t len);
/* Fill *info for the device in use; 0, or nonzero when there is none. */
int ug_device_info(ug_gpu_info *info);
/* Devices visible (0 without CUDA or without a driver); does not create a context. */
int ug_device_count(void);
/* Use device `index` from now on (before the first probe); 0, or nonzero with why. */
int ug_device_select(int index, char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
