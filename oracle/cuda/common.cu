/*
 * common.cu - what the GPU oracle's .cu files share (gpu_oracle.cuh): error messages, the
 * grow-only device buffers, the availability probe, and the table oracle/gpu.c dispatches to
 * (ug_gpu_oracle_cuda; oracle/gpu_none.c is its stand-in in a build without CUDA).
 */
#include "oracle/cuda/gpu_oracle.cuh"

#include <cublas_v2.h>

#include <stdarg.h>
#include <string.h>

void ugg_fail(char *err, size_t len, const char *file, int line, const char *what, cudaError_t e)
{
    const char *base = strrchr(file, '/');
    if (err && len)
        snprintf(err, len, "GPU oracle: %s:%d: %s: %s: %s", base ? base + 1 : file, line, what,
                 cudaGetErrorName(e), cudaGetErrorString(e));
}

void ugg_failf(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && len)
        vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

cudaError_t ugg_reserve(ugg_dbuf *b, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (bytes <= b->cap)
        return cudaSuccess;
    if (b->p)
        cudaFree(b->p);
    b->p = NULL;
    b->cap = 0;
    cudaError_t e = cudaMalloc(&b->p, bytes);
    if (e == cudaSuccess)
        b->cap = bytes;
    else
        b->p = NULL;
    return e;
}

/* The current device (the harness's probe has selected it): present, and a context made. */
int ugg_available(char *err, size_t len)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        ugg_failf(err, len, "GPU oracle: no CUDA device (%s)",
                  e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        (void)cudaGetLastError();
        return 0;
    }
    if ((e = cudaFree(0)) != cudaSuccess) {
        ugg_failf(err, len, "GPU oracle: the CUDA device is unusable: %s: %s",
                  cudaGetErrorName(e), cudaGetErrorString(e));
        (void)cudaGetLastError();
        return 0;
    }
    return 1;
}

extern "C" const ug_gpu_oracle_ops ug_gpu_oracle_cuda = {
    "cuda", ugg_available, ugg_sums_host, ugg_dots_host, ugg_gemm_host, ugg_bench_sum,
    ugg_bench_gemm,
};
