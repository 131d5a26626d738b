/*
 * bench.cu - `ulpgate bench oracle --gpu` on the device (harness/cli/cli_bench_gpu.c prints it):
 *   - the exact sum of n binary32 values made on the device (normal(0,1)), timed (median of 10,
 *     CUDA events, data resident, the chunk descriptors' upload included) beside
 *     cub::DeviceReduce::Sum on the same data; the device's memory bandwidth from its
 *     attributes (2 x memory clock x bus width);
 *   - every element of an n x n x n product: cuBLAS SGEMM (FP32, pedantic) timed, then the
 *     exact records of every element and the ULP error of every element of the cuBLAS result
 *     against them, all on the device (median of 5), then the records copied to the host
 *     (timed apart); the same with bfloat16 operands and cublasGemmEx (CUBLAS_COMPUTE_32F,
 *     default math: cuBLASLt's tensor-core kernel) in place of SGEMM.  A product of two
 *     bfloat16 values is exact in binary32, so the oracle is the SGEMM one on the same values.
 * Memory: 4 n bytes for the sum (4 GiB at 2^30); ~60 n^2 bytes for the product.
 */
#include "oracle/cuda/gpu_oracle.cuh"

#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <stdlib.h>
#include <string.h>

namespace {

enum { SUM_REPS = 10, GEMM_REPS = 5, VERIFY_TPB = 256 };

/* normal(0,1) by Box-Muller from a splitmix64 hash of (seed, i) */
__global__ void gen_normal(float *x, uint64_t n, uint64_t seed)
{
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        double u1 = ((double)(z >> 40) + 0.5) * 0x1p-24, u2 = (double)(z & 0xffffff) * 0x1p-24;
        x[i] = (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
}

/* binary32 values that are bfloat16 numbers, as bfloat16 (exact) */
__global__ void to_bf16(const float *x, __nv_bfloat16 *y, uint64_t n)
{
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        y[i] = __float2bfloat16_rn(x[i]);
}

/* max over i of the ULP error of got[i] against C[i] (ugg_error_ulp: error.c's, bit for bit),
 * as the bits of a nonnegative double (their order is the doubles' order). */
__global__ void verify(const ug_exact *__restrict__ C, const float *__restrict__ got, uint64_t n,
                       unsigned long long *maxbits)
{
    double m = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * VERIFY_TPB + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * VERIFY_TPB) {
        double u = ugg_error_ulp(&C[i], (double)got[i]);
        m = u > m ? u : m;
    }
    for (int o = 16; o > 0; o >>= 1) {
        double v = __shfl_xor_sync(0xffffffffu, m, o);
        m = v > m ? v : m;
    }
    if ((threadIdx.x & 31) == 0)
        atomicMax(maxbits, (unsigned long long)ugg_bits_of64(m));
}

int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

double median_ms(float *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    return n % 2 ? v[n / 2] : 0.5 * ((double)v[n / 2 - 1] + v[n / 2]);
}

} // namespace

int ugg_bench_sum(size_t n, float *host_x, ug_gpu_bench_sum *r, char *err, size_t len)
{
    float *d_x = NULL, *d_cub = NULL;
    ug_exact *d_out = NULL;
    void *d_temp = NULL;
    size_t temp_bytes = 0;
    cudaEvent_t t0 = NULL, t1 = NULL;
    float ms[SUM_REPS];
    int dev = 0, clk_khz = 0, bus_bits = 0, rc = 1;
    uint64_t off = 0, nn = n;
    cudaDeviceProp prop;
    memset(r, 0, sizeof *r);
    if (n > 0x7fffffffu) {
        ugg_failf(err, len, "GPU oracle bench: n = %zu beyond cub's int count", n);
        return 1;
    }
    UGG_TRY(cudaGetDevice(&dev));
    UGG_TRY(cudaGetDeviceProperties(&prop, dev));
    snprintf(r->device, sizeof r->device, "%s", prop.name);
    if (cudaDeviceGetAttribute(&clk_khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess)
        r->peak_gbs = 2.0 * clk_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    (void)cudaGetLastError();
    UGG_TRY(cudaMalloc((void **)&d_x, (n ? n : 1) * sizeof(float)));
    UGG_TRY(cudaMalloc((void **)&d_cub, sizeof(float)));
    UGG_TRY(cudaMalloc((void **)&d_out, sizeof(ug_exact)));
    UGG_TRY(cudaEventCreate(&t0));
    UGG_TRY(cudaEventCreate(&t1));
    gen_normal<<<4096, 256>>>(d_x, n, 12345);
    UGG_LAUNCHED();
    UGG_TRY(cudaMemcpy(host_x, d_x, n * sizeof(float), cudaMemcpyDeviceToHost));
    /* the exact sum: one warm-up (buffers, attributes), then timed */
    for (int i = 0; i <= SUM_REPS; i++) {
        UGG_TRY(cudaEventRecord(t0));
        if (ugg_segments_run(UGG_OP_SUM, d_x, NULL, &off, &nn, 1, d_out, err, len))
            goto fail;
        UGG_TRY(cudaEventRecord(t1));
        UGG_TRY(cudaEventSynchronize(t1));
        if (i)
            UGG_TRY(cudaEventElapsedTime(&ms[i - 1], t0, t1));
    }
    r->oracle_ms = median_ms(ms, SUM_REPS);
    UGG_TRY(cudaMemcpy(&r->exact, d_out, sizeof(ug_exact), cudaMemcpyDeviceToHost));
    /* cub_reduce on the same data */
    UGG_TRY(cub::DeviceReduce::Sum(NULL, temp_bytes, d_x, d_cub, (int)n));
    UGG_TRY(cudaMalloc(&d_temp, temp_bytes ? temp_bytes : 1));
    for (int i = 0; i <= SUM_REPS; i++) {
        UGG_TRY(cudaEventRecord(t0));
        UGG_TRY(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_x, d_cub, (int)n));
        UGG_TRY(cudaEventRecord(t1));
        UGG_TRY(cudaEventSynchronize(t1));
        if (i)
            UGG_TRY(cudaEventElapsedTime(&ms[i - 1], t0, t1));
    }
    r->cub_ms = median_ms(ms, SUM_REPS);
    UGG_TRY(cudaMemcpy(&r->cub_sum, d_cub, sizeof(float), cudaMemcpyDeviceToHost));
    rc = 0;
fail:
    cudaFree(d_x);
    cudaFree(d_cub);
    cudaFree(d_out);
    cudaFree(d_temp);
    if (t0)
        cudaEventDestroy(t0);
    if (t1)
        cudaEventDestroy(t1);
    return rc;
}

int ugg_bench_gemm(const float *A, const float *B, size_t n, bool bf16, ug_exact *C,
                   ug_gpu_bench_gemm *r, char *err, size_t len)
{
    float *d_A = NULL, *d_B = NULL, *d_got = NULL;
    __nv_bfloat16 *d_A16 = NULL, *d_B16 = NULL;
    ug_exact *d_C = NULL;
    unsigned long long *d_max = NULL, maxbits = 0;
    cublasHandle_t h = NULL;
    cudaEvent_t t0 = NULL, t1 = NULL;
    float ms[GEMM_REPS], copy_ms = 0;
    const float one = 1.0f, zero = 0.0f;
    int rc = 1;
    memset(r, 0, sizeof *r);
    UGG_TRY(cudaMalloc((void **)&d_A, n * n * sizeof(float)));
    UGG_TRY(cudaMalloc((void **)&d_B, n * n * sizeof(float)));
    UGG_TRY(cudaMalloc((void **)&d_got, n * n * sizeof(float)));
    UGG_TRY(cudaMalloc((void **)&d_C, n * n * sizeof(ug_exact)));
    UGG_TRY(cudaMalloc((void **)&d_max, sizeof *d_max));
    UGG_TRY(cudaEventCreate(&t0));
    UGG_TRY(cudaEventCreate(&t1));
    UGG_TRY(cudaMemcpy(d_A, A, n * n * sizeof(float), cudaMemcpyHostToDevice));
    UGG_TRY(cudaMemcpy(d_B, B, n * n * sizeof(float), cudaMemcpyHostToDevice));
    if (bf16) {
        UGG_TRY(cudaMalloc((void **)&d_A16, n * n * sizeof *d_A16));
        UGG_TRY(cudaMalloc((void **)&d_B16, n * n * sizeof *d_B16));
        to_bf16<<<1024, 256>>>(d_A, d_A16, (uint64_t)n * n);
        UGG_LAUNCHED();
        to_bf16<<<1024, 256>>>(d_B, d_B16, (uint64_t)n * n);
        UGG_LAUNCHED();
    }
    /* pedantic SGEMM: no TF32; the bf16 product keeps cuBLAS's default math (tensor cores) */
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(h, bf16 ? CUBLAS_DEFAULT_MATH : CUBLAS_PEDANTIC_MATH) !=
            CUBLAS_STATUS_SUCCESS) {
        ugg_failf(err, len, "GPU oracle bench: cuBLAS handle");
        goto fail;
    }
    /* the cuBLAS product, row-major by the transpose trick (C^T = B^T A^T), warm-up then timed */
    for (int i = 0; i <= GEMM_REPS; i++) {
        UGG_TRY(cudaEventRecord(t0));
        cublasStatus_t st =
            bf16 ? cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)n, (int)n, &one, d_B16,
                                CUDA_R_16BF, (int)n, d_A16, CUDA_R_16BF, (int)n, &zero, d_got,
                                CUDA_R_32F, (int)n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)
                 : cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)n, (int)n, &one, d_B,
                               (int)n, d_A, (int)n, &zero, d_got, (int)n);
        if (st != CUBLAS_STATUS_SUCCESS) {
            ugg_failf(err, len, "GPU oracle bench: %s: %s", bf16 ? "cublasGemmEx bf16" : "cublasSgemm",
                      cublasGetStatusString(st));
            goto fail;
        }
        UGG_TRY(cudaEventRecord(t1));
        UGG_TRY(cudaEventSynchronize(t1));
        if (i)
            UGG_TRY(cudaEventElapsedTime(&ms[i - 1], t0, t1));
    }
    r->sgemm_ms = median_ms(ms, GEMM_REPS);
    /* every element exact and the cuBLAS result verified against it, warm-up then timed */
    for (int i = 0; i <= GEMM_REPS; i++) {
        UGG_TRY(cudaEventRecord(t0));
        if (ugg_gemm_resident(d_A, d_B, n, n, n, d_C, &r->info, err, len))
            goto fail;
        UGG_TRY(cudaMemset(d_max, 0, sizeof *d_max));
        verify<<<2048, VERIFY_TPB>>>(d_C, d_got, (uint64_t)n * n, d_max);
        UGG_LAUNCHED();
        UGG_TRY(cudaEventRecord(t1));
        UGG_TRY(cudaEventSynchronize(t1));
        if (i)
            UGG_TRY(cudaEventElapsedTime(&ms[i - 1], t0, t1));
    }
    r->oracle_ms = median_ms(ms, GEMM_REPS);
    UGG_TRY(cudaMemcpy(&maxbits, d_max, sizeof maxbits, cudaMemcpyDeviceToHost));
    r->ulp_max = ugg_f64_of(maxbits);
    UGG_TRY(cudaEventRecord(t0));
    UGG_TRY(cudaMemcpy(C, d_C, n * n * sizeof(ug_exact), cudaMemcpyDeviceToHost));
    UGG_TRY(cudaEventRecord(t1));
    UGG_TRY(cudaEventSynchronize(t1));
    UGG_TRY(cudaEventElapsedTime(&copy_ms, t0, t1));
    r->copy_ms = copy_ms;
    rc = 0;
fail:
    if (h)
        cublasDestroy(h);
    cudaFree(d_A);
    cudaFree(d_B);
    cudaFree(d_got);
    cudaFree(d_A16);
    cudaFree(d_B16);
    cudaFree(d_C);
    cudaFree(d_max);
    if (t0)
        cudaEventDestroy(t0);
    if (t1)
        cudaEventDestroy(t1);
    return rc;
}
