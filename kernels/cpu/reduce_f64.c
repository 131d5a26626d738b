/*
 * reduce_f64.c - CPU binary64 kernels: binary64 inputs, accumulator and output.
 * The reference points for the binary64 GPU reductions (kernels/cuda/reduce_f64.cu) and the
 * textbook algorithms scientific codes use.
 *
 *   serial_f64        a += x[i] in binary64                    f64_tree   D = n-1
 *   pairwise_f64      recursive halves down to one element     f64_tree   D = ceil(log2 n)
 *   kahan_f64         Kahan compensated summation in binary64  f64_kahan  (2u + 4n u^2) S
 *   dot_serial_f64    a += x[i]*y[i], product then sum rounded f64_tree   D = n-1 (+1: product)
 * (u = 2^-53; the classes are in kernels/bounds.c.)
 *
 * Built in the default variant only (kernels/meson.build's format families): C11, no
 * contraction, every operation rounded as written.  Kahan's update still keeps its rounded
 * values behind barriers, so that the family stays right if it is ever built with
 * -ffast-math as the binary32 families are.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernel.h"

/* UG_OPAQUE for a double (kernels/cpu/opaque.h's is for binary32 registers elsewhere). */
#if defined(__x86_64__) || defined(__i386__)
#define UG_OPAQUE64(v) __asm__("" : "+x"(v))
#elif defined(__aarch64__)
#define UG_OPAQUE64(v) __asm__("" : "+w"(v))
#else
#define UG_OPAQUE64(v)                                                                         \
    do {                                                                                       \
        volatile double ug_opaque_ = (v);                                                      \
        (v) = ug_opaque_;                                                                      \
    } while (0)
#endif

/* Finite by the exponent bits (an integer test -ffinite-math-only cannot fold away). */
static int ug_finite_f64(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return (u & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
}

static int ug_cpu_serial_f64(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const double *x = ug_in_f64(c, 0);
    double a = 0.0;
    for (size_t i = 0; i < c->shape.dim[0]; i++) a += x[i];
    ug_out_f64(c)[0] = a;
    return 0;
}

static double ug_halves64(const double *s, size_t l, size_t h)
{
    if (l + 1 == h) return s[l];
    size_t m = l + (h - l) / 2;
    return ug_halves64(s, l, m) + ug_halves64(s, m, h);
}

static int ug_cpu_pairwise_f64(const ug_kernel *k, ug_call *c)
{
    (void)k;
    ug_out_f64(c)[0] = c->shape.dim[0] ? ug_halves64(ug_in_f64(c, 0), 0, c->shape.dim[0]) : 0.0;
    return 0;
}

/* Kahan as kahan_f32 (kernels/cpu/reduce.c) writes it, in binary64: the compensation is
 * dropped once the sum is not finite, so an infinite exact sum comes out as that infinity. */
static int ug_cpu_kahan_f64(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const double *in = ug_in_f64(c, 0);
    double sum = 0.0, comp = 0.0;
    for (size_t i = 0; i < c->shape.dim[0]; i++) {
        double y = in[i] - comp;
        UG_OPAQUE64(y);
        double t = sum + y;
        UG_OPAQUE64(t);
        double hi = t - sum;
        UG_OPAQUE64(hi);
        comp = ug_finite_f64(t) ? hi - y : 0.0;
        UG_OPAQUE64(comp);
        sum = t;
    }
    ug_out_f64(c)[0] = sum;
    return 0;
}

static int ug_cpu_dot_serial_f64(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const double *x = ug_in_f64(c, 0), *y = ug_in_f64(c, 1);
    double a = 0.0;
    for (size_t i = 0; i < c->shape.dim[0]; i++) a += x[i] * y[i];
    ug_out_f64(c)[0] = a;
    return 0;
}

/* ---- the family: registry rows and the launcher ------------------------------------------------ */

enum { SERIAL_F64, PAIRWISE_F64, KAHAN_F64, DOT_SERIAL_F64 };

#define UG_F64_ROW .op_fmt = UG_F64, .acc_fmt = UG_F64, .out_fmt = UG_F64

static const ug_kernel ug_cpu_reduce_f64_kernels[] = {
    {.name = "serial_f64", .op = UG_OP_SUM, UG_F64_ROW, .in_store = {UG_F64},
     .bound = UG_BOUND_F64_TREE, .depth = ug_depth_serial, .version = SERIAL_F64,
     .doc = "a += x[i] in binary64 (binary64 in and out)"},
    {.name = "pairwise_f64", .op = UG_OP_SUM, UG_F64_ROW, .in_store = {UG_F64},
     .bound = UG_BOUND_F64_TREE, .depth = ug_depth_log2, .version = PAIRWISE_F64,
     .doc = "recursive halves in binary64 (binary64 in and out)"},
    {.name = "kahan_f64", .op = UG_OP_SUM, UG_F64_ROW, .in_store = {UG_F64},
     .bound = UG_BOUND_F64_KAHAN, .version = KAHAN_F64,
     .doc = "Kahan compensated summation in binary64 (binary64 in and out)"},
    {.name = "dot_serial_f64", .op = UG_OP_DOT, UG_F64_ROW, .in_store = {UG_F64, UG_F64},
     .bound = UG_BOUND_F64_TREE, .depth = ug_depth_serial, .version = DOT_SERIAL_F64,
     .doc = "a += x[i]*y[i] in binary64, product rounded then sum rounded"},
};

static int ug_cpu_reduce_f64_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case SERIAL_F64: return ug_cpu_serial_f64(k, c);
    case PAIRWISE_F64: return ug_cpu_pairwise_f64(k, c);
    case KAHAN_F64: return ug_cpu_kahan_f64(k, c);
    case DOT_SERIAL_F64: return ug_cpu_dot_serial_f64(k, c);
    }
    snprintf(c->err, sizeof c->err, "%s: unknown version %d", k->name, k->version);
    return 1;
}

UG_FAMILY(cpu_reduce_f64, ug_cpu_reduce_f64_kernels, ug_cpu_reduce_f64_run)
