/*
 * vendor.cu - the vendor references under the same assertions: cuBLAS SGEMM (FP32 and TF32
 * tensor-op math) and CUB's device-wide sum.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -lineinfo -Xcompiler=-Wall,-Wextra -c vendor.cu
 * Link: -lcublas (CUB is header-only, shipped with nvcc).
 *
 * Versions:
 *   cublas_sgemm       cublasSgemm, CUBLAS_PEDANTIC_MATH (fp32 FFMA, no TF32).  Summation
 *                      order unknown: bound tree with depth K-1, which covers every order (any
 *                      tree over K products has depth <= K-1).  Observed on an H200: for
 *                      K >= 1000 exactly matmul_naive's errors (a k-order FMA chain), below
 *                      that other orders (smaller errors).
 *   cublas_sgemm_tf32  cublasSgemm, CUBLAS_TF32_TENSOR_OP_MATH: operands rounded to TF32 by
 *                      the tensor cores.  Bound: the TF32 class (kernels/bounds.c: rounded
 *                      operands, exact products, fp32 accumulation allowed to truncate) with
 *                      depth K-1, which again covers any order of the tensor-core sums.
 *   cub_reduce         cub::DeviceReduce::Sum, fp32 accumulator (the input type).  Order
 *                      unknown: depth n-1.  Run-to-run deterministic on one GPU (the two-pass
 *                      CUB default, documented), not GPU-to-GPU.
 *
 * Row-major via the transpose trick: cuBLAS is column-major, and a row-major M x N matrix is
 * the column-major N x M matrix of its transpose, so C^T = B^T A^T is one column-major SGEMM
 * with the operands swapped: m = N, n = M, k = K, A := B (ld N), B := A (ld K), C (ld N).
 * cuBLAS guarantees bitwise-identical results run to run on one GPU architecture and SM count
 * when one stream is used (its documentation, "Results reproducibility").
 * The handles are created on first use and kept for the process (creation costs ~100 ms).
 */
#include "ug_cuda.cuh"

#include <cublas_v2.h>
#include <cub/device/device_reduce.cuh>
#include <limits.h>

UG_CUDA_BEGIN

// ----------------------------------------------------------------------------
// cuBLAS

static cublasHandle_t g_cublas[2]; /* [0] pedantic fp32, [1] TF32 tensor ops */

#define UG_CUBLAS_TRY(c, expr)                                                                \
    do {                                                                                       \
        cublasStatus_t ug_s_ = (expr);                                                         \
        if (ug_s_ != CUBLAS_STATUS_SUCCESS) {                                                  \
            ug_cuda_failf((c), "vendor.cu:%d: %s: %s", __LINE__, #expr,                        \
                          cublasGetStatusString(ug_s_));                                       \
            goto cleanup;                                                                      \
        }                                                                                      \
    } while (0)

static int ug_cublas_handle(ug_call *c, int tf32, cublasHandle_t *out)
{
    cublasHandle_t h = NULL;
    if (!g_cublas[tf32]) {
        UG_CUBLAS_TRY(c, cublasCreate(&h));
        UG_CUBLAS_TRY(c, cublasSetMathMode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH));
        g_cublas[tf32] = h;
        h = NULL;
    }
    *out = g_cublas[tf32];
    return 0;
cleanup:
    if (h) cublasDestroy(h);
    return 1;
}

static int ug_run_sgemm(const ug_kernel *k, ug_call *c, int tf32)
{
    float *d_a = NULL, *d_b = NULL, *d_c = NULL;
    size_t M = c->n, N = c->gemm_n, K = c->gemm_k;
    cublasHandle_t h = NULL;
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    if (ug_cuda_enter(k, c)) return 1;
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX) {
        ug_cuda_failf(c, "%s: M=%zu N=%zu K=%zu: cublasSgemm takes int dimensions", k->name, M,
                      N, K);
        return 1;
    }
    if (ug_cublas_handle(c, tf32, &h)) return 1;
    UG_CUDA_TRY(c, ug_cuda_upload(&d_a, c->x, M * K));
    UG_CUDA_TRY(c, ug_cuda_upload(&d_b, c->y, K * N));
    UG_CUDA_TRY(c, cudaMalloc(&d_c, M * N * sizeof(float)));
    if (ug_cuda_run(c, d_c, M * N, ug_no_prepare, [&] {
            const float one = 1.0f, zero = 0.0f;
            status = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, d_b,
                                 (int)N, d_a, (int)K, &zero, d_c, (int)N);
            /* a cuBLAS failure is reported below with its own text; the launch check of the
             * timer then sees a clean CUDA state */
            return status == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
        }) &&
        status != CUBLAS_STATUS_SUCCESS)
        ug_cuda_failf(c, "%s: cublasSgemm(m=%zu, n=%zu, k=%zu): %s", k->name, N, M, K,
                      cublasGetStatusString(status));
cleanup:
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    return c->err[0] != 0;
}


// ----------------------------------------------------------------------------
// CUB

static int ug_run_cub_reduce(const ug_kernel *k, ug_call *c)
{
    float *d_x = NULL, *d_out = NULL;
    void *d_temp = NULL;
    size_t temp_bytes = 0;
    long long n = 0;
    if (ug_cuda_enter(k, c)) return 1;
    n = (long long)c->n;
    UG_CUDA_TRY(c, ug_cuda_upload(&d_x, c->x, c->n));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    UG_CUDA_TRY(c, cub::DeviceReduce::Sum(NULL, temp_bytes, d_x, d_out, n));
    UG_CUDA_TRY(c, cudaMalloc(&d_temp, temp_bytes ? temp_bytes : 1));
    ug_cuda_run(c, d_out, 1, ug_no_prepare,
                [&] { return cub::DeviceReduce::Sum(d_temp, temp_bytes, d_x, d_out, n); });
cleanup:
    cudaFree(d_x);
    cudaFree(d_out);
    cudaFree(d_temp);
    return c->err[0] != 0;
}

// ----------------------------------------------------------------------------
// the launcher and the registry rows

enum { CUBLAS_SGEMM, CUBLAS_SGEMM_TF32, CUB_REDUCE };

int ug_vendor_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case CUBLAS_SGEMM: return ug_run_sgemm(k, c, 0);
    case CUBLAS_SGEMM_TF32: return ug_run_sgemm(k, c, 1);
    case CUB_REDUCE: return ug_run_cub_reduce(k, c);
    }
    ug_cuda_failf(c, "%s: unknown version %d", k->name, k->version);
    return 1;
}

const ug_kernel ug_vendor_kernels[] = {
    {.name = "cublas_sgemm", .op = UG_OP_GEMM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = CUBLAS_SGEMM,
     .doc = "cuBLAS SGEMM, pedantic fp32 math; order unknown: depth K-1"},
    {.name = "cublas_sgemm_tf32", .op = UG_OP_GEMM, .backend = UG_CUDA, .acc_fmt = UG_TF32,
     .bound = UG_BOUND_TF32, .depth = ug_depth_serial, .version = CUBLAS_SGEMM_TF32,
     .doc = "cuBLAS SGEMM, TF32 tensor-op math; depth K-1"},
    {.name = "cub_reduce", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = CUB_REDUCE,
     .doc = "cub::DeviceReduce::Sum (fp32); order unknown: depth n-1"},
};

UG_CUDA_END

UG_FAMILY(vendor, ug_vendor_kernels, ug_vendor_run)
