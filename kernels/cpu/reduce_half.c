/*
 * reduce_half.c - CPU kernels on 16-bit data: bfloat16 and binary16 inputs summed
 * and dotted with a binary32 accumulator, and one sum that keeps its accumulator in binary16.
 *
 *   serial_bf16_f32acc      a += x[i], bf16 in, binary32 accumulator and output   tree D = n-1
 *   serial_f16_f32acc       the same with binary16 inputs                          tree D = n-1
 *   dot_serial_bf16_f32acc  a += x[i]*y[i], bf16 in, binary32 out                 tree D = n-1
 *   dot_serial_f16_f32acc   the same with binary16 inputs                          tree D = n-1
 *   serial_f16acc           a = fl16(a + x[i]): binary16 in, accumulator and out   f16_acc D = n-1
 *   dot_serial_bf16_bf16out a += x[i]*y[i] in binary32, rounded once to bfloat16    bf16_out
 *                           (an attention score, a normalisation layer's row)       D = n-1
 *
 * Every 16-bit value is exact in binary32, so the binary32-accumulating kernels are the tree
 * class of binary32 data (kernels/bounds.c).  A product of two bfloat16 (8-bit significands) or
 * two binary16 (11-bit) values is exact in binary32 too, unless it underflows: the dot kernels
 * are declared with the tree class's gamma_{D+1}, one rounding per product more than they make,
 * which covers a product rounded in binary32's normal range; underflow is outside the class as
 * for every binary32 dot.
 * serial_f16acc rounds after every addition as a binary16 FPU (or __hadd) does: the exact sum
 * of two binary16 values (a double holds it exactly) rounded to nearest-even by base/format.c.
 * It stagnates: once the partial sum reaches 2048, adding values below 1 changes nothing (the
 * class is vacuous from n = 2049 on, and the probabilistic bound breaks).
 */
#include <stdio.h>

#include "kernels/kernel.h"

/* Element i of input a, exact as a binary32 value (a 16-bit format embeds in binary32). */
static inline float ug_in16(const ug_call *c, int a, size_t i)
{
    return (float)ug_fmt_load(c->in[a].fmt, c->in[a].data, i);
}

static int ug_cpu_serial_16_f32acc(const ug_kernel *k, ug_call *c)
{
    (void)k;
    float a = 0.0f;
    for (size_t i = 0; i < c->shape.dim[0]; i++) a += ug_in16(c, 0, i);
    ug_out_f32(c)[0] = a;
    return 0;
}

static int ug_cpu_dot_serial_16_f32acc(const ug_kernel *k, ug_call *c)
{
    (void)k;
    float a = 0.0f;
    for (size_t i = 0; i < c->shape.dim[0]; i++) {
        float p = ug_in16(c, 0, i) * ug_in16(c, 1, i); /* exact unless it underflows */
        a += p;
    }
    ug_out_f32(c)[0] = a;
    return 0;
}

/* The binary32 dot of bfloat16 data, its result rounded once to bfloat16 (nearest-even). */
static int ug_cpu_dot_serial_bf16_bf16out(const ug_kernel *k, ug_call *c)
{
    (void)k;
    float a = 0.0f;
    for (size_t i = 0; i < c->shape.dim[0]; i++) {
        float p = ug_in16(c, 0, i) * ug_in16(c, 1, i); /* exact unless it underflows */
        a += p;
    }
    ug_fmt_store(UG_BF16, c->out[0].data, 0, a);
    return 0;
}

static int ug_cpu_serial_f16acc(const ug_kernel *k, ug_call *c)
{
    (void)k;
    double a = 0.0; /* always a binary16 value */
    for (size_t i = 0; i < c->shape.dim[0]; i++)
        a = ug_fmt_round(UG_F16, a + ug_fmt_load(UG_F16, c->in[0].data, i), UG_RN);
    ug_fmt_store(UG_F16, c->out[0].data, 0, a);
    return 0;
}

/* ---- the family: registry rows and the launcher ------------------------------------------------ */

enum { SERIAL_BF16_F32ACC, SERIAL_F16_F32ACC, DOT_SERIAL_BF16_F32ACC, DOT_SERIAL_F16_F32ACC,
       SERIAL_F16ACC, DOT_SERIAL_BF16_BF16OUT };

static const ug_kernel ug_cpu_reduce_half_kernels[] = {
    {.name = "serial_bf16_f32acc", .op = UG_OP_SUM, .in_store = {UG_BF16}, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = SERIAL_BF16_F32ACC,
     .doc = "a += x[i]: bfloat16 in, binary32 accumulator and out"},
    {.name = "serial_f16_f32acc", .op = UG_OP_SUM, .in_store = {UG_F16}, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = SERIAL_F16_F32ACC,
     .doc = "a += x[i]: binary16 in, binary32 accumulator and out"},
    {.name = "dot_serial_bf16_f32acc", .op = UG_OP_DOT, .in_store = {UG_BF16, UG_BF16},
     .bound = UG_BOUND_TREE, .depth = ug_depth_serial, .version = DOT_SERIAL_BF16_F32ACC,
     .doc = "a += x[i]*y[i]: bfloat16 in, exact binary32 products, binary32 accumulator and out"},
    {.name = "dot_serial_f16_f32acc", .op = UG_OP_DOT, .in_store = {UG_F16, UG_F16},
     .bound = UG_BOUND_TREE, .depth = ug_depth_serial, .version = DOT_SERIAL_F16_F32ACC,
     .doc = "a += x[i]*y[i]: binary16 in, exact binary32 products, binary32 accumulator and out"},
    {.name = "serial_f16acc", .op = UG_OP_SUM, .op_fmt = UG_F16, .acc_fmt = UG_F16,
     .out_fmt = UG_F16, .in_store = {UG_F16}, .bound = UG_BOUND_F16_ACC, .depth = ug_depth_serial,
     .version = SERIAL_F16ACC,
     .doc = "a = fl16(a + x[i]): binary16 in, accumulator and out (stagnates from 2048 on)"},
    {.name = "dot_serial_bf16_bf16out", .op = UG_OP_DOT, .in_store = {UG_BF16, UG_BF16},
     .out_fmt = UG_BF16, .bound = UG_BOUND_BF16_OUT, .depth = ug_depth_serial,
     .version = DOT_SERIAL_BF16_BF16OUT,
     .doc = "a += x[i]*y[i] in binary32 on bfloat16 data, rounded once to bfloat16 out"},
};

static int ug_cpu_reduce_half_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case SERIAL_BF16_F32ACC:
    case SERIAL_F16_F32ACC: return ug_cpu_serial_16_f32acc(k, c);
    case DOT_SERIAL_BF16_F32ACC:
    case DOT_SERIAL_F16_F32ACC: return ug_cpu_dot_serial_16_f32acc(k, c);
    case SERIAL_F16ACC: return ug_cpu_serial_f16acc(k, c);
    case DOT_SERIAL_BF16_BF16OUT: return ug_cpu_dot_serial_bf16_bf16out(k, c);
    }
    snprintf(c->err, sizeof c->err, "%s: unknown version %d", k->name, k->version);
    return 1;
}

UG_FAMILY(cpu_reduce_half, ug_cpu_reduce_half_kernels, ug_cpu_reduce_half_run)
