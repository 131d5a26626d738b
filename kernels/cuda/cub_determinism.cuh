/*
 * cub_determinism.cuh - cub::DeviceReduce::Sum at a requested determinism level, where the
 * installed CCCL offers one (its environment overload with cuda::execution::require(
 * cuda::execution::determinism::not_guaranteed | run_to_run | gpu_to_gpu), CCCL >= 3.1).
 *
 * UG_CUB_DETERMINISM is set by kernels/meson.build when a probe (cub_determinism_probe.cu, this
 * header with the macro set) compiles with the nvcc of the build; otherwise the rows that need it
 * report themselves unsupported (their points are skipped, saying why), and nothing here needs
 * the API.  Included by vendor.cu only, inside its anonymous namespace's file.
 *
 * Launch configurations (ug_call.launch_config) for the determinism cases: 0 the input as
 * uploaded (256-byte aligned), 1 and 2 the same values at an address 4 and 12 bytes further
 * (CUB then cannot use its vectorised loads: another tiling of the same sum).
 */
#ifndef UG_CUB_DETERMINISM_CUH
#define UG_CUB_DETERMINISM_CUH

#include <cub/device/device_reduce.cuh>

#if UG_CUB_DETERMINISM
#include <cuda/__execution/determinism.h>
#include <cuda/__execution/require.h>
#endif

#include "kernels/cuda/ug_cuda.cuh"

enum ug_det_level { UG_DET_NOT_GUARANTEED, UG_DET_RUN_TO_RUN, UG_DET_GPU_TO_GPU };

/* Floats of offset for a launch configuration (see the header). */
static inline size_t ug_cub_offset(int launch_config)
{
    return launch_config == 1 ? 1 : launch_config == 2 ? 3 : 0;
}

#if UG_CUB_DETERMINISM
/* One sum at the level, on the default stream; temporary storage from CCCL's default resource. */
static inline cudaError_t ug_cub_sum_at(const float *d_x, float *d_out, long long n,
                                        ug_det_level level)
{
    namespace det = cuda::execution::determinism;
    switch (level) {
    case UG_DET_NOT_GUARANTEED:
        return cub::DeviceReduce::Sum(d_x, d_out, n, cuda::execution::require(det::not_guaranteed));
    case UG_DET_RUN_TO_RUN:
        return cub::DeviceReduce::Sum(d_x, d_out, n, cuda::execution::require(det::run_to_run));
    case UG_DET_GPU_TO_GPU:
        return cub::DeviceReduce::Sum(d_x, d_out, n, cuda::execution::require(det::gpu_to_gpu));
    }
    return cudaErrorInvalidValue;
}
#endif

/* The launcher of the cub_reduce_<level> rows. */
static inline int ug_run_cub_reduce_det(const ug_kernel *k, ug_call *c, ug_det_level level)
{
#if UG_CUB_DETERMINISM
    float *d_buf = NULL, *d_out = NULL;
    size_t off = ug_cub_offset(c->launch_config);
    long long n = 0;
    if (ug_cuda_enter(k, c)) return 1;
    n = (long long)c->shape.dim[0];
    UG_CUDA_TRY(c, cudaMalloc(&d_buf, (c->shape.dim[0] + off) * sizeof(float)));
    UG_CUDA_TRY(c, cudaMemcpy(d_buf + off, ug_in_f32(c, 0), c->shape.dim[0] * sizeof(float), cudaMemcpyHostToDevice));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    ug_cuda_run(c, d_out, 1, ug_no_prepare, [&] { return ug_cub_sum_at(d_buf + off, d_out, n, level); });
cleanup:
    cudaFree(d_buf);
    cudaFree(d_out);
    return c->err[0] != 0;
#else
    (void)level;
    if (ug_cuda_enter(k, c)) return 1;
    ug_cuda_failf(c, "%s: the installed CCCL (CCCL_VERSION %d) has no determinism requirement for "
                  "cub::DeviceReduce (cuda::execution::determinism, CCCL >= 3.1): not built",
                  k->name, (int)CCCL_VERSION);
    c->unsupported = true;
    return 1;
#endif
}

#endif
