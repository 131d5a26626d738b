/*
 * gpu.h - the exact oracle on the GPU: the same ug_exact records as the CPU oracle,
 * bit for bit (sum_abs: RU64 of sum |terms|, MPFR's value), for batches of binary32 sums and
 * dot products and for every element of a binary32 GEMM.
 *
 * How (oracle/gpu_arith.h and oracle/gpu_gemm_arith.h give the arguments):
 *   - sums and dots: every term split exactly into integer pieces binned by exponent window in
 *     per-thread int64 bins (no carries, no atomics), turned into fixed-point limbs, merged by
 *     integer additions across threads, blocks and chunks, rounded once;
 *   - GEMM: Ozaki-style error-free slicing into int8 digits, int8 tensor-core products with
 *     int32 accumulation (exact by a bound on K), exact reconstruction and one rounding per
 *     element; rows and columns the slices do not cover, specials and all-zero terms take the
 *     exact dot of the bins.
 *
 * Implementations (one table of functions each, so that nothing above the oracle needs to know
 * whether the build has CUDA):
 *   ug_gpu_oracle_cuda   the .cu files of oracle/cuda/ on the device; in a build without CUDA,
 *                        oracle/gpu_none.c's, which is never available;
 *   ug_gpu_oracle_model  oracle/gpu_model.c: the kernels' arithmetic and decomposition run on
 *                        the host (the same source, gpu_arith.h), the int8 products as integer
 *                        loops.  The self-test runs it against the CPU oracle; with
 *                        UG_GPU_ORACLE=model in the environment it answers instead of the
 *                        device (runs without a GPU exercise the GPU oracle's path in the
 *                        harness), and UG_GPU_ORACLE=model-faulty makes every result one ulp
 *                        off in hi, to prove that the cross-checks catch a wrong oracle.
 * All calls come from one thread (the harness's).
 */
#ifndef UG_ORACLE_GPU_H
#define UG_ORACLE_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "oracle/oracle.h"

/* What a GEMM call did (for notes and the bench). */
typedef struct ug_gpu_gemm_info {
    int S, T;           /* slices of A's rows and B's columns */
    int products;       /* int8 GEMMs (sum and |.| each) */
    size_t fallback;    /* elements computed by the exact dot instead */
    int dp4a;           /* 1 if cuBLAS refused int8 and the exact dp4a kernel ran instead */
} ug_gpu_gemm_info;

/* The bench (ulpgate bench oracle --gpu; device only). */
typedef struct ug_gpu_bench_sum {
    double oracle_ms, cub_ms; /* medians: the exact sum; cub::DeviceReduce::Sum on the same data */
    double peak_gbs;          /* the device's memory bandwidth (0 if unknown) */
    char device[256];
    ug_exact exact;           /* the GPU oracle's record of the sum */
    float cub_sum;
} ug_gpu_bench_sum;

typedef struct ug_gpu_bench_gemm {
    double oracle_ms;  /* exact records of every element + the error of every element of the
                        * cuBLAS result, on the device (inputs resident, median) */
    double copy_ms;    /* the records to the host */
    double sgemm_ms;   /* cuBLAS SGEMM (FP32, pedantic), or the bf16 GemmEx, on the same data */
    double ulp_max;    /* of the cuBLAS result (device-side verification) */
    ug_gpu_gemm_info info;
} ug_gpu_bench_gemm;

/* Every function returns 0, or nonzero with the reason in err (err may be NULL). */
typedef struct ug_gpu_oracle_ops {
    const char *name; /* "cuda", "model", "model-faulty", "none" */
    /* 1 if it can answer (the device: present and usable), else 0 with the reason in err. */
    int (*available)(char *err, size_t len);
    /* out[i] = the exact sum of x[i][0..n[i]), i < count. */
    int (*sums_f32)(const float *const *x, const size_t *n, size_t count, ug_exact *out,
                    char *err, size_t len);
    /* out[i] = the exact dot product of x[i] and y[i] (n[i] terms, unit stride). */
    int (*dots_f32)(const float *const *x, const float *const *y, const size_t *n, size_t count,
                    ug_exact *out, char *err, size_t len);
    /* C[i N + j], every element of A B (A M x K, B K x N, row-major); info may be NULL. */
    int (*gemm_f32)(const float *A, const float *B, size_t M, size_t N, size_t K, ug_exact *C,
                    ug_gpu_gemm_info *info, char *err, size_t len);
    /* The bench: n values made on the device (normal(0,1), copied into host_x); the exact sum
     * and cub_reduce timed on them.  NULL where there is no device. */
    int (*bench_sum)(size_t n, float *host_x, ug_gpu_bench_sum *r, char *err, size_t len);
    /* Every element of A B (n x n) exact and a cuBLAS result verified, on the device; the
     * records into C.  bf16: A and B hold bfloat16 values, and the product timed and verified
     * is cublasGemmEx on bfloat16 operands (binary32 accumulation and output: cuBLAS runs
     * its cuBLASLt tensor-core kernel) instead of SGEMM. */
    int (*bench_gemm)(const float *A, const float *B, size_t n, bool bf16, ug_exact *C,
                      ug_gpu_bench_gemm *r, char *err, size_t len);
} ug_gpu_oracle_ops;

extern const ug_gpu_oracle_ops ug_gpu_oracle_cuda;
extern const ug_gpu_oracle_ops ug_gpu_oracle_model;
extern const ug_gpu_oracle_ops ug_gpu_oracle_model_faulty;

/* The implementation in use: ug_gpu_oracle_use's choice, else UG_GPU_ORACLE's (model,
 * model-faulty), else the device's. */
const ug_gpu_oracle_ops *ug_gpu_oracle(void);
/* Choose one (NULL: back to the default).  For tests. */
void ug_gpu_oracle_use(const ug_gpu_oracle_ops *ops);
/* 1 if the implementation in use can answer, else 0 with the reason in why. */
int ug_gpu_oracle_available(char *why, size_t len);

/* The implementation in use, one call each (0, or nonzero with the reason in err). */
int ug_exact_sums_f32_gpu(const float *const *x, const size_t *n, size_t count, ug_exact *out,
                          char *err, size_t len);
int ug_exact_dots_f32_gpu(const float *const *x, const float *const *y, const size_t *n,
                          size_t count, ug_exact *out, char *err, size_t len);
int ug_exact_gemm_f32_gpu(const float *A, const float *B, size_t M, size_t N, size_t K,
                          ug_exact *C, ug_gpu_gemm_info *info, char *err, size_t len);

#ifdef __cplusplus
}
#endif
#endif
