/*
 * vendor.cu - the vendor references under the same assertions: cuBLAS SGEMM in every FP32
 * compute type the installed cuBLAS offers, and CUB's device-wide sum at every determinism
 * level the installed CCCL offers.  Built once (the default variant): the build flags do not
 * reach the libraries' own arithmetic.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -lineinfo -Xcompiler=-Wall,-Wextra -c vendor.cu
 * Link: -lcublas (CUB is header-only, shipped with nvcc).
 *
 * cuBLAS: cublasGemmEx, fp32 A, B, C, alpha and beta, with the row's compute type
 * (cublas_api.h: "_PEDANTIC types ensure standard arithmetic ...; _FAST types allow for some
 * loss of precision"):
 *   cublas_sgemm             CUBLAS_COMPUTE_32F_PEDANTIC   fp32 FFMA          tree, depth K-1
 *   cublas_sgemm_32f         CUBLAS_COMPUTE_32F            "at least fp32"    tree, depth K-1
 *   cublas_sgemm_tf32        CUBLAS_COMPUTE_32F_FAST_TF32  operands to TF32   tf32 (u = 2^-11)
 *   cublas_sgemm_fast_16f    CUBLAS_COMPUTE_32F_FAST_16F   to binary16/TF32   f16 (u = 2^-11, range 65504)
 *   cublas_sgemm_fast_16bf   CUBLAS_COMPUTE_32F_FAST_16BF  to bfloat16/TF32   bf16 (u = 2^-8)
 *   cublas_sgemm_bf16x9      CUBLAS_COMPUTE_32F_EMULATED_16BFX9 (emulation strategy eager: used
 *                            wherever the GPU can)    fp32 as 3 bfloat16 each  bf16x9
 * Summation order unknown: depth K-1, which covers every order (any tree over K terms has depth
 * <= K-1); the reduced-precision classes take either rounding of the operands (kernels/
 * bounds.c).  A compute type that this cuBLAS or GPU refuses (CUBLAS_STATUS_NOT_SUPPORTED, or
 * one the headers lack) skips its test points saying so.  Observed on an H200 (pedantic): for
 * K >= 1000 exactly matmul_naive's errors (a k-order FMA chain), below that other orders.
 * cases/gpu/tf32_canary.c tells from the errors which operand precision each type really used.
 *
 * CUB: cub::DeviceReduce::Sum, fp32 accumulator (the input type), order unknown: depth n-1.
 *   cub_reduce                  the two-phase call; CCCL documents run-to-run determinism on
 *                               one GPU (not GPU to GPU)
 *   cub_reduce_not_guaranteed   the environment overload with
 *   cub_reduce_run_to_run       cuda::execution::require(cuda::execution::determinism::X),
 *   cub_reduce_gpu_to_gpu       where the installed CCCL has it (a configure-time probe compiles
 *                               it: UG_CUB_DETERMINISM, kernels/meson.build); without it they skip
 *                               their test points saying so.  not_guaranteed is declared
 *                               nondeterministic (the harness counts its distinct results).
 *   launch_config (cases/gpu/gpu_determinism.c): 1 and 2 the input 4 and 12 bytes off its aligned
 *   address (2 also on a stream of its own, two-phase call only), 3 on another GPU of the host.
 *
 * Row-major via the transpose trick: cuBLAS is column-major, and a row-major M x N matrix is
 * the column-major N x M matrix of its transpose, so C^T = B^T A^T is one column-major SGEMM
 * with the operands swapped: m = N, n = M, k = K, A := B (ld N), B := A (ld K), C (ld N).
 * cuBLAS guarantees bitwise-identical results run to run on one GPU architecture and SM count
 * when one stream is used (its documentation, "Results reproducibility").
 * The handles are created on first use and kept for the process (creation costs ~100 ms).
 */
#include "kernels/cuda/ug_cuda.cuh"

#include <cublas_v2.h>
#include <cub/device/device_reduce.cuh>
#include <limits.h>

#include "kernels/cuda/cub_determinism.cuh"

UG_CUDA_BEGIN

// ----------------------------------------------------------------------------
// cuBLAS

/* The compute types of the rows, in the launcher's version order.  have: whether these
 * headers define it (the emulated type is cuBLAS >= 12.9). */
#if CUBLAS_VERSION >= 120900
#define UG_HAVE_BF16X9 1
#define UG_COMPUTE_BF16X9 CUBLAS_COMPUTE_32F_EMULATED_16BFX9
#else
#define UG_HAVE_BF16X9 0
#define UG_COMPUTE_BF16X9 CUBLAS_COMPUTE_32F
#endif
static const struct {
    cublasComputeType_t type;
    const char *name;
    bool have, eager_emulation;
} ug_compute[] = {
    {CUBLAS_COMPUTE_32F_PEDANTIC, "CUBLAS_COMPUTE_32F_PEDANTIC", true, false},
    {CUBLAS_COMPUTE_32F, "CUBLAS_COMPUTE_32F", true, false},
    {CUBLAS_COMPUTE_32F_FAST_TF32, "CUBLAS_COMPUTE_32F_FAST_TF32", true, false},
    {CUBLAS_COMPUTE_32F_FAST_16F, "CUBLAS_COMPUTE_32F_FAST_16F", true, false},
    {CUBLAS_COMPUTE_32F_FAST_16BF, "CUBLAS_COMPUTE_32F_FAST_16BF", true, false},
    {UG_COMPUTE_BF16X9, "CUBLAS_COMPUTE_32F_EMULATED_16BFX9", UG_HAVE_BF16X9, true},
};
enum { UG_N_COMPUTE = sizeof ug_compute / sizeof ug_compute[0] };

static cublasHandle_t g_cublas[2]; /* [0] default math, [1] emulation strategy eager */

#define UG_CUBLAS_TRY(c, expr)                                                                \
    do {                                                                                       \
        cublasStatus_t ug_s_ = (expr);                                                         \
        if (ug_s_ != CUBLAS_STATUS_SUCCESS) {                                                  \
            ug_cuda_failf((c), "vendor.cu:%d: %s: %s", __LINE__, #expr,                        \
                          cublasGetStatusString(ug_s_));                                       \
            goto cleanup;                                                                      \
        }                                                                                      \
    } while (0)

static int ug_cublas_handle(ug_call *c, int eager, cublasHandle_t *out)
{
    cublasHandle_t h = NULL;
    if (!g_cublas[eager]) {
        UG_CUBLAS_TRY(c, cublasCreate(&h));
#if UG_HAVE_BF16X9
        if (eager) UG_CUBLAS_TRY(c, cublasSetEmulationStrategy(h, CUBLAS_EMULATION_STRATEGY_EAGER));
#endif
        g_cublas[eager] = h;
        h = NULL;
    }
    *out = g_cublas[eager];
    return 0;
cleanup:
    if (h) cublasDestroy(h);
    return 1;
}

/* One row's SGEMM: cublasGemmEx with its compute type.  A compute type these headers lack, or
 * that cuBLAS refuses on this GPU (not supported, architecture mismatch), marks the call
 * unsupported: the harness skips the point with the reason. */
static int ug_run_sgemm(const ug_kernel *k, ug_call *c, int which)
{
    const float *d_a = NULL, *d_b = NULL;
    float *d_c = NULL;
    size_t M = c->shape.dim[0], N = c->shape.dim[1], K = c->shape.dim[2];
    cublasHandle_t h = NULL;
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    const cublasComputeType_t type = ug_compute[which].type;
    if (ug_cuda_enter(k, c)) return 1;
    if (!ug_compute[which].have) {
        ug_cuda_failf(c, "%s: this cuBLAS (%d) has no %s", k->name, CUBLAS_VERSION,
                      ug_compute[which].name);
        c->unsupported = true;
        return 1;
    }
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX) {
        ug_cuda_failf(c, "%s: M=%zu N=%zu K=%zu: cublasGemmEx takes int dimensions", k->name, M,
                      N, K);
        return 1;
    }
    if (ug_cublas_handle(c, ug_compute[which].eager_emulation, &h)) return 1;
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), M * K, &d_a));
    UG_CUDA_TRY(c, ug_cuda_input(c, 1, ug_in_f32(c, 1), K * N, &d_b));
    UG_CUDA_TRY(c, cudaMalloc(&d_c, M * N * sizeof(float)));
    if (ug_cuda_run(c, d_c, M * N, ug_no_prepare, [&] {
            const float one = 1.0f, zero = 0.0f;
            status = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, d_b,
                                  CUDA_R_32F, (int)N, d_a, CUDA_R_32F, (int)K, &zero, d_c,
                                  CUDA_R_32F, (int)N, type, CUBLAS_GEMM_DEFAULT);
            /* a cuBLAS failure is reported below with its own text; the launch check of the
             * timer then sees a clean CUDA state */
            return status == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
        }) &&
        status != CUBLAS_STATUS_SUCCESS) {
        ug_cuda_failf(c, "%s: cublasGemmEx(m=%zu, n=%zu, k=%zu, %s): %s", k->name, N, M, K,
                      ug_compute[which].name, cublasGetStatusString(status));
        c->unsupported = status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_ARCH_MISMATCH;
    }
cleanup:
    cudaFree(d_c);
    return c->err[0] != 0;
}


// ----------------------------------------------------------------------------
// CUB

/* The two-phase call with explicit temporary storage; launch_config 1 and 2 move the input 4
 * and 12 bytes (cub_determinism.cuh) and 2 also issues the call on a stream of its own. */
static int ug_run_cub_reduce(const ug_kernel *k, ug_call *c)
{
    float *d_buf = NULL, *d_out = NULL;
    void *d_temp = NULL;
    size_t temp_bytes = 0, off = ug_cub_offset(c->launch_config);
    cudaStream_t stream = NULL;
    long long n = 0;
    if (ug_cuda_enter(k, c)) return 1;
    n = (long long)c->shape.dim[0];
    if (c->launch_config == 2) UG_CUDA_TRY(c, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    UG_CUDA_TRY(c, cudaMalloc(&d_buf, (c->shape.dim[0] + off) * sizeof(float)));
    UG_CUDA_TRY(c, cudaMemcpy(d_buf + off, ug_in_f32(c, 0), c->shape.dim[0] * sizeof(float), cudaMemcpyHostToDevice));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    UG_CUDA_TRY(c, cub::DeviceReduce::Sum(NULL, temp_bytes, d_buf + off, d_out, n, stream));
    UG_CUDA_TRY(c, cudaMalloc(&d_temp, temp_bytes ? temp_bytes : 1));
    ug_cuda_run(c, d_out, 1, ug_no_prepare, [&] {
        /* the harness's poisoning of d_out ran on the legacy stream, which a non-blocking
         * stream does not wait for */
        cudaError_t e = stream ? cudaDeviceSynchronize() : cudaSuccess;
        if (e == cudaSuccess)
            e = cub::DeviceReduce::Sum(d_temp, temp_bytes, d_buf + off, d_out, n, stream);
        return e == cudaSuccess && stream ? cudaStreamSynchronize(stream) : e;
    });
cleanup:
    cudaFree(d_buf);
    cudaFree(d_out);
    cudaFree(d_temp);
    if (stream) cudaStreamDestroy(stream);
    return c->err[0] != 0;
}

/* launch_config 3: the same call on another GPU of the host (the first one that is not the
 * current device), for gpu_to_gpu determinism; unsupported with one GPU. */
static int ug_on_other_gpu(const ug_kernel *k, ug_call *c, int (*run)(const ug_kernel *, ug_call *))
{
    int count = 0, cur = 0, rc = 1;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
        (void)cudaGetLastError();
        ug_cuda_failf(c, "%s: a second GPU is not present (%d CUDA device(s)): not compared "
                      "across GPUs", k->name, count);
        c->unsupported = true;
        return 1;
    }
    if (cudaGetDevice(&cur) != cudaSuccess || cudaSetDevice(cur == 0 ? 1 : 0) != cudaSuccess) {
        ug_cuda_failf(c, "%s: cannot switch to a second GPU", k->name);
        return 1;
    }
    c->launch_config = 0;
    rc = run(k, c);
    c->launch_config = 3;
    if (cudaSetDevice(cur) != cudaSuccess && !rc) {
        ug_cuda_failf(c, "%s: cannot switch back to GPU %d", k->name, cur);
        rc = 1;
    }
    return rc;
}

static int ug_run_cub_not_guaranteed(const ug_kernel *k, ug_call *c)
{
    return ug_run_cub_reduce_det(k, c, UG_DET_NOT_GUARANTEED);
}
static int ug_run_cub_run_to_run(const ug_kernel *k, ug_call *c)
{
    return ug_run_cub_reduce_det(k, c, UG_DET_RUN_TO_RUN);
}
static int ug_run_cub_gpu_to_gpu(const ug_kernel *k, ug_call *c)
{
    return ug_run_cub_reduce_det(k, c, UG_DET_GPU_TO_GPU);
}

// ----------------------------------------------------------------------------
// the launcher and the registry rows

enum { CUBLAS_SGEMM, CUBLAS_SGEMM_32F, CUBLAS_SGEMM_TF32, CUBLAS_SGEMM_FAST_16F,
       CUBLAS_SGEMM_FAST_16BF, CUBLAS_SGEMM_BF16X9, CUB_REDUCE, CUB_REDUCE_NOT_GUARANTEED,
       CUB_REDUCE_RUN_TO_RUN, CUB_REDUCE_GPU_TO_GPU };

int ug_vendor_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case CUBLAS_SGEMM:
    case CUBLAS_SGEMM_32F:
    case CUBLAS_SGEMM_TF32:
    case CUBLAS_SGEMM_FAST_16F:
    case CUBLAS_SGEMM_FAST_16BF:
    case CUBLAS_SGEMM_BF16X9: return ug_run_sgemm(k, c, k->version - CUBLAS_SGEMM);
    }
    int (*cub)(const ug_kernel *, ug_call *) = NULL;
    switch (k->version) {
    case CUB_REDUCE: cub = ug_run_cub_reduce; break;
    case CUB_REDUCE_NOT_GUARANTEED: cub = ug_run_cub_not_guaranteed; break;
    case CUB_REDUCE_RUN_TO_RUN: cub = ug_run_cub_run_to_run; break;
    case CUB_REDUCE_GPU_TO_GPU: cub = ug_run_cub_gpu_to_gpu; break;
    }
    if (cub) return c->launch_config == 3 ? ug_on_other_gpu(k, c, cub) : cub(k, c);
    ug_cuda_failf(c, "%s: unknown version %d", k->name, k->version);
    return 1;
}

const ug_kernel ug_vendor_kernels[] = {
    {.name = "cublas_sgemm", .op = UG_OP_GEMM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = CUBLAS_SGEMM,
     .doc = "cuBLAS SGEMM, CUBLAS_COMPUTE_32F_PEDANTIC (fp32 FFMA); order unknown: depth K-1"},
    {.name = "cublas_sgemm_32f", .op = UG_OP_GEMM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = CUBLAS_SGEMM_32F,
     .doc = "cuBLAS SGEMM, CUBLAS_COMPUTE_32F (the default type); depth K-1"},
    {.name = "cublas_sgemm_tf32", .op = UG_OP_GEMM, .backend = UG_CUDA, .op_fmt = UG_TF32,
     .bound = UG_BOUND_TF32, .depth = ug_depth_serial, .version = CUBLAS_SGEMM_TF32,
     .doc = "cuBLAS SGEMM, CUBLAS_COMPUTE_32F_FAST_TF32 (TF32 tensor cores); depth K-1"},
    {.name = "cublas_sgemm_fast_16f", .op = UG_OP_GEMM, .backend = UG_CUDA, .op_fmt = UG_F16,
     .bound = UG_BOUND_F16, .depth = ug_depth_serial, .version = CUBLAS_SGEMM_FAST_16F,
     .doc = "cuBLAS SGEMM, CUBLAS_COMPUTE_32F_FAST_16F (operands to binary16 or TF32); depth K-1"},
    {.name = "cublas_sgemm_fast_16bf", .op = UG_OP_GEMM, .backend = UG_CUDA, .op_fmt = UG_BF16,
     .bound = UG_BOUND_BF16, .depth = ug_depth_serial, .version = CUBLAS_SGEMM_FAST_16BF,
     .doc = "cuBLAS SGEMM, CUBLAS_COMPUTE_32F_FAST_16BF (operands to bfloat16 or TF32); depth K-1"},
    {.name = "cublas_sgemm_bf16x9", .op = UG_OP_GEMM, .backend = UG_CUDA, .op_fmt = UG_BF16,
     .bound = UG_BOUND_BF16X9, .depth = ug_depth_serial, .version = CUBLAS_SGEMM_BF16X9,
     .doc = "cuBLAS SGEMM, CUBLAS_COMPUTE_32F_EMULATED_16BFX9, emulation eager; depth K-1"},
    {.name = "cub_reduce", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = CUB_REDUCE,
     .doc = "cub::DeviceReduce::Sum (fp32), two-phase; run-to-run deterministic; depth n-1"},
    {.name = "cub_reduce_not_guaranteed", .op = UG_OP_SUM, .backend = UG_CUDA,
     .nondeterministic = true, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = CUB_REDUCE_NOT_GUARANTEED,
     .doc = "cub::DeviceReduce::Sum, require(determinism::not_guaranteed); depth n-1"},
    {.name = "cub_reduce_run_to_run", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = CUB_REDUCE_RUN_TO_RUN,
     .doc = "cub::DeviceReduce::Sum, require(determinism::run_to_run); depth n-1"},
    {.name = "cub_reduce_gpu_to_gpu", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = CUB_REDUCE_GPU_TO_GPU,
     .doc = "cub::DeviceReduce::Sum, require(determinism::gpu_to_gpu); depth n-1"},
};

UG_CUDA_END

UG_FAMILY(vendor, ug_vendor_kernels, ug_vendor_run)
