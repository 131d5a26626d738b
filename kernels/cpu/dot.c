/*
 * dot.c - CPU dot-product and matrix-product kernels, binary32 in and out.
 *
 *   dot_serial_f32   a += x[i]*y[i]: product rounded, then sum rounded (no FMA: c11 mode
 *                    compiles with -ffp-contract=off)              gamma_n S
 *   dot_kahan_f32    the Kahan-matmul post's compensated update without FMA:
 *                    y -= a*b; r = t - y; y = (r - t) + y; t = r   (3u + O(nu^2)) S
 *   gemm_naive_cpu   C[i][j] = dot_serial of row i and column j   gamma_K S per element
 *   gemm_tf32_cpu    a TF32 tensor-core GEMM in software (operands rounded to TF32)  tf32 class
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernel.h"
#include "kernels/cpu/opaque.h"

static float ug_dot_serial(const float *x, size_t incx, const float *y, size_t incy, size_t n)
{
    float a = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float p = x[i * incx] * y[i * incy];
        a += p;
    }
    return a;
}

static int ug_cpu_dot_serial_f32(const ug_kernel *k, ug_call *c)
{
    (void)k;
    ug_out_f32(c)[0] = ug_dot_serial(ug_in_f32(c, 0), 1, ug_in_f32(c, 1), 1, c->shape.dim[0]);
    return 0;
}

/* The Kahan-matmul post's loop: the compensation y carries minus the lost low part of the running sum t. */
static int ug_cpu_dot_kahan_f32(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *a = ug_in_f32(c, 0), *b = ug_in_f32(c, 1);
    float t = 0.0f, y = 0.0f;
    for (size_t i = 0; i < c->shape.dim[0]; i++) {
        float p = a[i] * b[i];
        UG_OPAQUE(p); /* no contraction of y - p into an FMA, no regrouping (see reduce.c) */
        y -= p;
        UG_OPAQUE(y);
        float r = t - y;
        UG_OPAQUE(r);
        float d = r - t;
        UG_OPAQUE(d);
        y = ug_finite_f32(r) ? d + y : 0.0f; /* no compensation once the sum is inf or NaN */
        UG_OPAQUE(y);
        t = r;
    }
    ug_out_f32(c)[0] = t;
    return 0;
}

static int ug_cpu_gemm_naive(const ug_kernel *k, ug_call *c)
{
    (void)k;
    size_t M = c->shape.dim[0], N = c->shape.dim[1], K = c->shape.dim[2];
    const float *A = ug_in_f32(c, 0), *B = ug_in_f32(c, 1);
    float *C = ug_out_f32(c);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++)
            C[i * N + j] = ug_dot_serial(A + i * K, 1, B + j, N, K);
    return 0;
}

/* x rounded to TF32 (10 fraction bits, nearest-even, binary32's exponent range), as NVIDIA's
 * cvt.rna/rn.tf32.f32 does for finite values; NaN and infinities pass. */
static float ug_round_tf32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7f800000u) != 0x7f800000u) {
        u += 0xfffu + ((u >> 13) & 1u); /* carries into the exponent as rounding must */
        u &= ~0x1fffu;
    }
    memcpy(&x, &u, sizeof x);
    return x;
}

/* What a TF32 tensor-core GEMM computes, in software: operands rounded to TF32, products exact
 * in binary32 (11 x 11 bits), accumulated serially in binary32.  The known answer of the TF32
 * canary (cases/gpu/tf32_canary.c) on a machine without a GPU. */
static int ug_cpu_gemm_tf32(const ug_kernel *k, ug_call *c)
{
    (void)k;
    size_t M = c->shape.dim[0], N = c->shape.dim[1], K = c->shape.dim[2];
    const float *A = ug_in_f32(c, 0), *B = ug_in_f32(c, 1);
    float *C = ug_out_f32(c);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            float a = 0.0f;
            for (size_t q = 0; q < K; q++) {
                float p = ug_round_tf32(A[i * K + q]) * ug_round_tf32(B[q * N + j]);
                UG_OPAQUE(p); /* exact; kept a product under -ffast-math too */
                a += p;
            }
            C[i * N + j] = a;
        }
    return 0;
}

/* ---- the family: registry rows and the launcher ------------------------------------------------ */

enum { DOT_SERIAL_F32, DOT_KAHAN_F32, GEMM_NAIVE_CPU, GEMM_TF32_CPU };

/* The GEMMs are batch-invariant: C[i][j] is one serial dot of row i of A and column j of B,
 * the same loop whatever M is (no tiling, no split of K). */
static const ug_kernel ug_cpu_dot_kernels[] = {
    {.name = "dot_serial_f32", .op = UG_OP_DOT, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = DOT_SERIAL_F32, .doc = "a += x[i]*y[i] in binary32, product rounded then sum rounded"},
    {.name = "dot_kahan_f32", .op = UG_OP_DOT, .bound = UG_BOUND_KAHAN, .version = DOT_KAHAN_F32,
     .doc = "Kahan-compensated dot product in binary32 (the Kahan-matmul post's update, no FMA)"},
    {.name = "gemm_naive_cpu", .op = UG_OP_GEMM, .batch_invariant = true, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = GEMM_NAIVE_CPU, .doc = "C[i][j] = serial binary32 dot of row i and column j"},
    {.name = "gemm_tf32_cpu", .op = UG_OP_GEMM, .op_fmt = UG_TF32, .batch_invariant = true, .bound = UG_BOUND_TF32,
     .depth = ug_depth_serial, .version = GEMM_TF32_CPU,
     .doc = "a TF32 tensor-core GEMM in software: operands to TF32, exact products, serial fp32 sum"},
};

static int ug_cpu_dot_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case DOT_SERIAL_F32: return ug_cpu_dot_serial_f32(k, c);
    case DOT_KAHAN_F32: return ug_cpu_dot_kahan_f32(k, c);
    case GEMM_NAIVE_CPU: return ug_cpu_gemm_naive(k, c);
    case GEMM_TF32_CPU: return ug_cpu_gemm_tf32(k, c);
    }
    snprintf(c->err, sizeof c->err, "%s: unknown version %d", k->name, k->version);
    return 1;
}

UG_FAMILY(cpu_dot, ug_cpu_dot_kernels, ug_cpu_dot_run)
