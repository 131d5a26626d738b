/*
 * quantize.cu - the CUDA quantizer (kernels/quantize.h): OCP MX v1.0 on an MX format of 1x32
 * blocks, one thread a block.
 *
 *   mxfp8_e4m3_ocp_cuda   E8M0 scale 2^(floor(log2 amax) - 8) from the binary32's exponent
 *                         field; elements __nv_cvt_float_to_fp8(x / X, __NV_SATFINITE, E4M3)
 *   mxfp4_ocp_cuda        the same with emax 2; elements __nv_cvt_float_to_fp4(x / X, E2M1, RN)
 * x / X is a product by a power of two: exact wherever the element can be nonzero.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -std=c++20 -c quantize.cu
 */
/* cuda_fp4.hpp leaves a parameter unused: its warning is not ours */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <cuda_fp4.h>
#pragma GCC diagnostic pop
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdio.h>

#include "kernels/quantize.h"

/* 2^k as a binary32, k in -149 .. 127, from its bits. */
__device__ static float q_pow2f(int k)
{
    return k >= -126 ? __uint_as_float((unsigned)(k + 127) << 23)
                     : __uint_as_float(1u << (k + 149));
}

/* floor(log2 a) of a finite a > 0, from its exponent field (subnormals: the leading bit). */
__device__ static int q_floor_log2(float a)
{
    unsigned u = __float_as_uint(a) & 0x7fffffffu, E = u >> 23;
    return E ? (int)E - 127 : (31 - __clz((int)u)) - 149;
}

/* One thread per 1x32 block of a row-major rows x cols array (cols a multiple of 32 or not). */
__global__ static void q_mx_kernel(const float *x, size_t rows, size_t cols, int emax, bool fp4,
                                   unsigned char *elems, unsigned char *scales)
{
    size_t gc = (cols + 31) / 32, b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= rows * gc) return;
    size_t r = b / gc, c0 = b % gc * 32, c1 = c0 + 32 < cols ? c0 + 32 : cols;
    const float *row = x + r * cols;
    float amax = 0;
    bool nan = false;
    for (size_t j = c0; j < c1; j++) {
        float a = fabsf(row[j]);
        nan |= a != a;
        amax = a > amax ? a : amax;
    }
    unsigned char code;
    if (nan || isinf(amax)) {
        code = 0xff;
    } else if (amax == 0) {
        code = 0;
    } else {
        int e = q_floor_log2(amax) - emax;
        code = (unsigned char)(e < -127 ? 0 : e + 127); /* e <= 127 - emax: binary32 input */
    }
    scales[b] = code;
    float inv = code == 0xff ? __uint_as_float(0x7fc00000u) : q_pow2f(127 - (int)code);
    for (size_t j = c0; j < c1; j++) {
        float q = row[j] * inv;
        elems[r * cols + j] =
            fp4 ? (unsigned char)__nv_cvt_float_to_fp4(q, __NV_E2M1, cudaRoundNearest)
                : (unsigned char)__nv_cvt_float_to_fp8(q, __NV_SATFINITE, __NV_E4M3);
    }
}

int ug_quantize_cuda(const ug_quantizer *q, const ug_blockfmt *B, ug_quantize_call *c)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        snprintf(c->err, sizeof c->err, "%s: no CUDA device", q->name);
        return -2;
    }
    if (B->scale != UG_SCALE_E8M0 || B->block_rows != 1 || B->block_cols != 32 ||
        (B->elem != UG_E4M3 && B->elem != UG_E2M1)) {
        snprintf(c->err, sizeof c->err, "%s: %s is not an MX e4m3 or e2m1 format", q->name,
                 B->name);
        return 1;
    }
    size_t n = c->rows * c->cols, nb = ug_quantize_blocks(B, c->rows, c->cols);
    float *dx = NULL;
    unsigned char *de = NULL, *ds = NULL;
    cudaError_t e = cudaMalloc(&dx, n * sizeof(float) + 1);
    if (e == cudaSuccess) e = cudaMalloc(&de, n + 1);
    if (e == cudaSuccess) e = cudaMalloc(&ds, nb + 1);
    if (e == cudaSuccess) e = cudaMemcpy(dx, c->x, n * sizeof(float), cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        unsigned threads = 256, blocks = (unsigned)((nb + threads - 1) / threads);
        q_mx_kernel<<<blocks ? blocks : 1, threads>>>(dx, c->rows, c->cols,
                                                     ug_format_of(B->elem)->emax,
                                                     B->elem == UG_E2M1, de, ds);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpy(c->elems, de, n, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemcpy(c->scales, ds, nb, cudaMemcpyDeviceToHost);
    c->tensor = 1.0f;
    cudaFree(dx);
    cudaFree(de);
    cudaFree(ds);
    if (e != cudaSuccess) {
        snprintf(c->err, sizeof c->err, "%s: %s", q->name, cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
