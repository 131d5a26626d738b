/*
 * dot.c - CPU dot-product and matrix-product kernels, binary32 in and out.
 *
 *   dot_serial_f32   a += x[i]*y[i]: product rounded, then sum rounded (no FMA: c11 mode
 *                    compiles with -ffp-contract=off)              gamma_n S
 *   dot_kahan_f32    seed 000's compensated update without FMA:
 *                    y -= a*b; r = t - y; y = (r - t) + y; t = r   (3u + O(nu^2)) S
 *   gemm_naive_cpu   C[i][j] = dot_serial of row i and column j   gamma_K S per element
 */
#include "cpu_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#define UG_OPAQUE(v) __asm__("" : "+x"(v))
#elif defined(__aarch64__)
#define UG_OPAQUE(v) __asm__("" : "+w"(v))
#else
#define UG_OPAQUE(v) do { volatile float ug_opaque_ = (v); (v) = ug_opaque_; } while (0)
#endif

static float ug_dot_serial(const float *x, size_t incx, const float *y, size_t incy, size_t n)
{
    float a = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float p = x[i * incx] * y[i * incy];
        a += p;
    }
    return a;
}

int ug_cpu_dot_serial_f32(const ug_kernel *k, ug_call *c)
{
    (void)k;
    c->out[0] = ug_dot_serial(c->x, 1, c->y, 1, c->n);
    return 0;
}

/* Seed 000's loop: the compensation y carries minus the lost low part of the running sum t. */
int ug_cpu_dot_kahan_f32(const ug_kernel *k, ug_call *c)
{
    (void)k;
    float t = 0.0f, y = 0.0f;
    for (size_t i = 0; i < c->n; i++) {
        float p = c->x[i] * c->y[i];
        y -= p;
        float r = t - y;
        UG_OPAQUE(r);
        float d = r - t;
        UG_OPAQUE(d);
        y = d + y;
        t = r;
    }
    c->out[0] = t;
    return 0;
}

int ug_cpu_gemm_naive(const ug_kernel *k, ug_call *c)
{
    (void)k;
    size_t M = c->n, N = c->gemm_n, K = c->gemm_k;
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++)
            c->out[i * N + j] = ug_dot_serial(c->x + i * K, 1, c->y + j, N, K);
    return 0;
}
