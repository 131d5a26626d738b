/*
 * gemm_f64.cu - binary64 GEMM (DGEMM): cuBLAS native and CUDA 13's fixed-point (Ozaki-style)
 * emulation, graded against the exact binary64 product.  A number-format family
 * (kernels/meson.build: binary64 buffers, which the harness cannot generate yet): until the
 * harness grades binary64 GEMMs, tests/gemm_f64.c runs it on typed buffers of its own.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -c gemm_f64.cu.  Link: -lcublas.
 *
 * Rows (cublasGemmEx, CUDA_R_64F A, B, C; row-major by the transpose trick of vendor.cu):
 *   dgemm_pedantic   CUBLAS_COMPUTE_64F_PEDANTIC: binary64 FMA, order unknown: depth K-1
 *   dgemm            CUBLAS_COMPUTE_64F, the default emulation strategy (cuBLAS may emulate
 *                    where it judges it faster: "performant")
 *   dgemm_emulated   CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, emulation strategy eager, with
 *                    the mantissa controls of c->launch_config:
 *                      0  CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC (the default: bits chosen at
 *                         run time for "the same or better accuracy" than binary64)
 *                      1  DYNAMIC, mantissa bit offset +8 (more bits than the dynamic choice)
 *                      2  FIXED, at most 55 mantissa bits
 *                      3  FIXED, at most 39 mantissa bits (fewer than binary64's 53)
 *                    a setting this cuBLAS refuses is a skip that says so.
 * Bound class: f64_tree, depth K-1 (any order), for the three at their defaults (NVIDIA
 * documents the dynamic emulation as at least binary64's accuracy: the class checks that
 * claim); tests/gemm_f64.c asserts it for configs 0 and 1 and reports the fixed ones.
 */
#include "kernels/cuda/ug_cuda.cuh"

#include <cublas_v2.h>
#include <limits.h>

UG_CUDA_BEGIN

enum { DGEMM_PEDANTIC, DGEMM, DGEMM_EMULATED };

#if CUBLAS_VERSION >= 130000
#define UG_HAVE_FP64_EMU 1
#else
#define UG_HAVE_FP64_EMU 0
#endif

static cublasHandle_t g_dgemm[2]; /* [0] default strategy, [1] eager (settings per call) */

#define UG_DG_TRY(c, expr)                                                                    \
    do {                                                                                       \
        cublasStatus_t ug_s_ = (expr);                                                         \
        if (ug_s_ != CUBLAS_STATUS_SUCCESS) {                                                  \
            ug_cuda_failf((c), "gemm_f64.cu:%d: %s: %s", __LINE__, #expr,                      \
                          cublasGetStatusString(ug_s_));                                       \
            (c)->unsupported = ug_s_ == CUBLAS_STATUS_NOT_SUPPORTED ||                         \
                               ug_s_ == CUBLAS_STATUS_ARCH_MISMATCH ||                         \
                               ug_s_ == CUBLAS_STATUS_INVALID_VALUE;                           \
            goto cleanup;                                                                      \
        }                                                                                      \
    } while (0)

/* The emulation settings of launch_config cfg on handle h (eager strategy). */
static int ug_dgemm_settings(ug_call *c, cublasHandle_t h, int cfg)
{
#if UG_HAVE_FP64_EMU
    UG_DG_TRY(c, cublasSetEmulationStrategy(h, CUBLAS_EMULATION_STRATEGY_EAGER));
    UG_DG_TRY(c, cublasSetFixedPointEmulationMantissaControl(
                     h, cfg >= 2 ? CUDA_EMULATION_MANTISSA_CONTROL_FIXED
                                 : CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC));
    UG_DG_TRY(c, cublasSetFixedPointEmulationMantissaBitOffset(h, cfg == 1 ? 8 : 0));
    if (cfg >= 2) UG_DG_TRY(c, cublasSetFixedPointEmulationMaxMantissaBitCount(h, cfg == 2 ? 55 : 39));
    return 0;
cleanup:
    return 1;
#else
    (void)h, (void)cfg;
    ug_cuda_failf(c, "this cuBLAS (%d) has no binary64 emulation (CUDA 13)", CUBLAS_VERSION);
    c->unsupported = true;
    return 1;
#endif
}

int ug_gemm_f64_run(const ug_kernel *k, ug_call *c)
{
    double *d_a = NULL, *d_b = NULL, *d_c = NULL;
    size_t M = c->shape.dim[0], N = c->shape.dim[1], K = c->shape.dim[2];
    const int eager = k->version == DGEMM_EMULATED;
    cublasHandle_t h = NULL;
    cublasComputeType_t type = CUBLAS_COMPUTE_64F;
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    if (ug_cuda_enter(k, c)) return 1;
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX) {
        ug_cuda_failf(c, "%s: M=%zu N=%zu K=%zu: cublasGemmEx takes int dimensions", k->name, M, N, K);
        return 1;
    }
    if (c->launch_config < 0 || c->launch_config > (eager ? 3 : 0)) {
        ug_cuda_failf(c, "%s: launch_config %d not offered", k->name, c->launch_config);
        c->unsupported = true;
        return 1;
    }
    if (k->version == DGEMM_PEDANTIC) type = CUBLAS_COMPUTE_64F_PEDANTIC;
#if UG_HAVE_FP64_EMU
    if (eager) type = CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT;
#endif
    if (!g_dgemm[eager]) UG_DG_TRY(c, cublasCreate(&g_dgemm[eager]));
    h = g_dgemm[eager];
    if (eager && ug_dgemm_settings(c, h, c->launch_config)) goto cleanup;
    UG_CUDA_TRY(c, cudaMalloc(&d_a, M * K * sizeof(double)));
    UG_CUDA_TRY(c, cudaMalloc(&d_b, K * N * sizeof(double)));
    UG_CUDA_TRY(c, cudaMalloc(&d_c, M * N * sizeof(double)));
    UG_CUDA_TRY(c, cudaMemcpy(d_a, ug_in_f64(c, 0), M * K * sizeof(double), cudaMemcpyHostToDevice));
    UG_CUDA_TRY(c, cudaMemcpy(d_b, ug_in_f64(c, 1), K * N * sizeof(double), cudaMemcpyHostToDevice));
    if (ug_cuda_run_bytes(c, d_c, M * N * sizeof(double), ug_no_prepare, [&] {
            const double one = 1.0, zero = 0.0;
            /* row-major C = A B as column-major C^T = B^T A^T (vendor.cu) */
            status = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, d_b,
                                  CUDA_R_64F, (int)N, d_a, CUDA_R_64F, (int)K, &zero, d_c,
                                  CUDA_R_64F, (int)N, type, CUBLAS_GEMM_DEFAULT);
            return status == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
        }) &&
        status != CUBLAS_STATUS_SUCCESS) {
        ug_cuda_failf(c, "%s: cublasGemmEx(64F, M=%zu N=%zu K=%zu, config %d): %s", k->name, M, N,
                      K, c->launch_config, cublasGetStatusString(status));
        c->unsupported = status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_ARCH_MISMATCH;
    }
cleanup:
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    return c->err[0] != 0;
}

#define UG_DG_ROW .op = UG_OP_GEMM, .backend = UG_CUDA, .op_fmt = UG_F64, .acc_fmt = UG_F64, \
                  .out_fmt = UG_F64, .in_store = {UG_F64, UG_F64}, .bound = UG_BOUND_F64_TREE, \
                  .depth = ug_depth_serial

const ug_kernel ug_gemm_f64_kernels[] = {
    {.name = "dgemm_pedantic", UG_DG_ROW, .version = DGEMM_PEDANTIC,
     .doc = "cuBLAS DGEMM, CUBLAS_COMPUTE_64F_PEDANTIC; order unknown: depth K-1"},
    {.name = "dgemm", UG_DG_ROW, .version = DGEMM,
     .doc = "cuBLAS DGEMM, CUBLAS_COMPUTE_64F, default emulation strategy; depth K-1"},
    {.name = "dgemm_emulated", UG_DG_ROW, .version = DGEMM_EMULATED,
     .doc = "cuBLAS CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, eager (Ozaki-style); depth K-1"},
};

UG_CUDA_END

UG_FAMILY(gemm_f64, ug_gemm_f64_kernels, ug_gemm_f64_run)
