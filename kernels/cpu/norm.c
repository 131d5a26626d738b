/*
 * norm.c - CPU vector norms, binary32: nrm2 (||x||_2) three ways, asum (sum |x_i|).
 *
 * The nrm2 rows' depth counts, in squared units, every rounding a term of the sum of squares
 * passes through, with the root's own rounding left to the operation's bound (ops/norm.c:
 * gamma_{D+1} S2 for the sum of squares, then through the root).  A rounding of a value that
 * is later squared counts twice ((1 + d)^2), an inverse factor (1 + d)^-1 as one (Higham
 * Lemma 3.1 takes rho_i = +-1).
 *
 *   nrm2_naive     s += x[i] * x[i], sqrtf(s): the square 1, the serial sum n - 1: D + 1 = n,
 *                  D = n - 1.  x_i^2 overflows from |x_i| ~ 1.8e19 (sqrt(FLT_MAX)) and
 *                  underflows below ~1e-19 (sqrt(2^-126)): range failures, no bound holds.
 *   nrm2_scaled    LAPACK's classic snrm2 (before 3.10): scale = max |x_i| so far, ssq =
 *                  sum (x_i / scale)^2, ssq = 1 + ssq (scale / |x_i|)^2 when the scale grows,
 *                  scale sqrt(ssq).  A term: its ratio (2: squared), its square (1), every later
 *                  addition (<= n - 1) and every later rescale (ratio 2, square 1, product 1:
 *                  4 each, <= n - 1 of them): 5n - 2; the final product scale * sqrt (2, the
 *                  sqrt's own rounding is the bound's); a ratio squared below binary32's normal
 *                  range loses < 2^-149 against ssq >= 1, n of them < u: 1 more.  D + 1 = 5n + 1.
 *   nrm2_blue      Blue's algorithm as LAPACK 3.10's snrm2 (Anderson 2017): three
 *                  accumulators (|x| > 2^52 scaled by 2^-76, |x| < 2^-63 by 2^75, the rest as
 *                  they are; powers of two: exact), combined at the end.  Worst path, a small
 *                  term next to medium ones: square 1, accumulation n - 1, sqrt(asml) 2,
 *                  ymin / ymax (ymax's sqrt 2, the division 2), the ratio's square 1, 1 + r^2
 *                  1, ymax^2 (3: sqrt twice, square) times it 1: n + 12; dropped or underflowing
 *                  small parts (asml beside abig; amed 2^-152 scaled) < u: 1 more.  D + 1 = n + 13.
 *   asum_serial    s += fabsf(x[i]) (fabs exact)                       D = n - 1 (a sum)
 *   asum_pairwise  recursive halves of |x_i|                           D = ceil(log2 n)
 */
#include <math.h>
#include <stdio.h>

#include "kernels/kernel.h"

static size_t ug_depth_scaled(size_t n) { return 5 * n; }
static size_t ug_depth_blue(size_t n) { return n + 12; }

static float ug_nrm2_naive(const float *x, size_t n)
{
    float s = 0.0f;
    for (size_t i = 0; i < n; i++) s += x[i] * x[i];
    return sqrtf(s);
}

static float ug_nrm2_scaled(const float *x, size_t n)
{
    float scale = 0.0f, ssq = 1.0f;
    for (size_t i = 0; i < n; i++) {
        if (x[i] == 0.0f) continue;
        float ax = fabsf(x[i]);
        if (scale < ax) {
            float r = scale / ax;
            ssq = 1.0f + ssq * (r * r);
            scale = ax;
        } else {
            float r = ax / scale;
            ssq += r * r;
        }
    }
    return scale * sqrtf(ssq);
}

/* LAPACK 3.10 snrm2.f90 (la_constants: tsml 2^-63, tbig 2^52, ssml 2^75, sbig 2^-76). */
static float ug_nrm2_blue(const float *x, size_t n)
{
    const float tsml = 0x1p-63f, tbig = 0x1p52f, ssml = 0x1p75f, sbig = 0x1p-76f;
    float asml = 0, amed = 0, abig = 0, scl, sumsq;
    int notbig = 1;
    for (size_t i = 0; i < n; i++) {
        float ax = fabsf(x[i]);
        if (ax > tbig) {
            float v = ax * sbig;
            abig += v * v;
            notbig = 0;
        } else if (ax < tsml) {
            if (notbig) {
                float v = ax * ssml;
                asml += v * v;
            }
        } else {
            amed += ax * ax;
        }
    }
    if (abig > 0) {
        if (amed > 0 || isnan(amed)) abig += (amed * sbig) * sbig;
        scl = 1.0f / sbig;
        sumsq = abig;
    } else if (asml > 0) {
        if (amed > 0 || isnan(amed)) {
            float ym = sqrtf(amed), ys = sqrtf(asml) / ssml;
            float ymin = ys > ym ? ym : ys, ymax = ys > ym ? ys : ym;
            float r = ymin / ymax;
            scl = 1.0f;
            sumsq = (ymax * ymax) * (1.0f + r * r);
        } else {
            scl = 1.0f / ssml;
            sumsq = asml;
        }
    } else {
        scl = 1.0f;
        sumsq = amed;
    }
    return scl * sqrtf(sumsq);
}

static float ug_asum_pairwise(const float *x, size_t n)
{
    if (n == 0) return 0.0f;
    if (n == 1) return fabsf(x[0]);
    return ug_asum_pairwise(x, n / 2) + ug_asum_pairwise(x + n / 2, n - n / 2);
}

enum { NRM2_NAIVE, NRM2_SCALED, NRM2_BLUE, ASUM_SERIAL, ASUM_PAIRWISE };

static const ug_kernel ug_cpu_norm_kernels[] = {
    {.name = "nrm2_naive", .op = UG_OP_NRM2, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = NRM2_NAIVE, .doc = "sqrtf(sum x[i]*x[i]) in binary32: overflows near sqrt(FLT_MAX)"},
    {.name = "nrm2_scaled", .op = UG_OP_NRM2, .bound = UG_BOUND_TREE, .depth = ug_depth_scaled,
     .version = NRM2_SCALED, .doc = "LAPACK's classic snrm2: running scale and scaled sum of squares"},
    {.name = "nrm2_blue", .op = UG_OP_NRM2, .bound = UG_BOUND_TREE, .depth = ug_depth_blue,
     .version = NRM2_BLUE, .doc = "Blue's algorithm, LAPACK 3.10 snrm2 (Anderson 2017)"},
    {.name = "asum_serial", .op = UG_OP_ASUM, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = ASUM_SERIAL, .doc = "s += fabsf(x[i]) in binary32 (BLAS sasum's loop)"},
    {.name = "asum_pairwise", .op = UG_OP_ASUM, .bound = UG_BOUND_TREE, .depth = ug_depth_log2,
     .version = ASUM_PAIRWISE, .doc = "recursive halves of |x_i|"},
};

static int ug_cpu_norm_run(const ug_kernel *k, ug_call *c)
{
    const float *x = ug_in_f32(c, 0);
    float *out = ug_out_f32(c), s = 0.0f;
    switch (k->version) {
    case NRM2_NAIVE: out[0] = ug_nrm2_naive(x, c->shape.dim[0]); return 0;
    case NRM2_SCALED: out[0] = ug_nrm2_scaled(x, c->shape.dim[0]); return 0;
    case NRM2_BLUE: out[0] = ug_nrm2_blue(x, c->shape.dim[0]); return 0;
    case ASUM_SERIAL:
        for (size_t i = 0; i < c->shape.dim[0]; i++) s += fabsf(x[i]);
        out[0] = s;
        return 0;
    case ASUM_PAIRWISE: out[0] = ug_asum_pairwise(x, c->shape.dim[0]); return 0;
    }
    snprintf(c->err, sizeof c->err, "%s: unknown version %d", k->name, k->version);
    return 1;
}

UG_FAMILY(cpu_norm, ug_cpu_norm_kernels, ug_cpu_norm_run)
