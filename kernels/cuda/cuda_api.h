/*
 * cuda_api.h - what the C side (harness, registry) calls in the CUDA sources.  Everything here
 * is extern "C" and exists only when the build has CUDA (UG_HAVE_CUDA).
 */
#ifndef UG_CUDA_API_H
#define UG_CUDA_API_H

#include <stddef.h>
#include "../kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ug_gpu_info {
    char name[256];
    int cc_major, cc_minor;
    int driver_version, runtime_version; /* as cudaDriverGetVersion / cudaRuntimeGetVersion */
    int sm_count;
    double mem_gib;
} ug_gpu_info;

/* 1 when a CUDA device can be used (device 0, selected), else 0 with the reason in why
 * ("no CUDA device", or the CUDA error text).  Cheap after the first call. */
int ug_cuda_probe(char *why, size_t len);
/* Fill *info for the device in use; returns 0, or nonzero when no device. */
int ug_cuda_info(ug_gpu_info *info);

/* Kernel entry points (kernels/cuda/), one per registry line, signature of ug_kernel.run. */
#define UG_CUDA_KERNEL(fn) int fn(const ug_kernel *k, ug_call *c);
#include "cuda_kernels.inc"
#undef UG_CUDA_KERNEL

/* Depth functions of the grid kernels' own trees (kernels/cuda/reduce_grid.cu, derivations there). */
size_t ug_cuda_depth_grid_tree(size_t n);   /* (m-1) + log2(256) + ceil(log2 G), capped at n-1 */
size_t ug_cuda_depth_atomic_grid(size_t n); /* (m-1) + 255 + (G-1), capped at n-1 */
size_t ug_cuda_depth_kahan_grid(size_t n);  /* effective depth 5 of reduce_kahan's bound */

#ifdef __cplusplus
}
#endif
#endif
