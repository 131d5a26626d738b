/*
 * dot.c - the dot product of two binary32 vectors: inputs x and y of n values, one output
 * s = sum x_i y_i (each product exact in binary64).
 */
#include <stdlib.h>

#include "base/sys.h"
#include "oracle/gpu.h"
#include "ops/op.h"


static void ug_dot_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    ug_exact_dot_f32(x, 1, y, 1, s->dim[0], out);
}

static void ug_dot_exact_fast(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    ug_exact_dot_f32_fast(x, 1, y, 1, s->dim[0], out);
}

static void ug_dot_exact64(const double *x, const double *y, const ug_shape *s, ug_exact *out)
{
    ug_exact_dot_f64(x, 1, y, 1, s->dim[0], out);
}

static void ug_dot_exact_one_fast(const float *x, const float *y, const ug_shape *s, size_t e,
                                  ug_exact *out)
{
    (void)e;
    ug_dot_exact_fast(x, y, s, out);
}

/* Every trial in one batched call of the GPU oracle. */
static int ug_dot_exact_gpu(float *const *x, float *const *y, size_t count, const ug_shape *s,
                            ug_exact *const *out, char *err, size_t errlen)
{
    size_t *ns = ug_xmalloc((count ? count : 1) * sizeof *ns);
    ug_exact *r = ug_xmalloc((count ? count : 1) * sizeof *r);
    for (size_t i = 0; i < count; i++) ns[i] = s->dim[0];
    int rc = ug_exact_dots_f32_gpu((const float *const *)x, (const float *const *)y, ns, count, r,
                                   err, errlen);
    for (size_t i = 0; i < count && rc == 0; i++) out[i][0] = r[i];
    free(ns);
    free(r);
    return rc;
}

static const ug_bound_class ug_dot_classes[] = {UG_BOUND_TREE, UG_BOUND_KAHAN, UG_BOUND_NEUMAIER,
    UG_BOUND_WIDE_ACC, UG_BOUND_TF32, UG_BOUND_F16, UG_BOUND_BF16, UG_BOUND_BF16X9,
    UG_BOUND_F64_TREE, UG_BOUND_F64_KAHAN, UG_BOUND_BF16_OUT, UG_BOUND_BLOCK_FMA,
    UG_BOUND_BLOCK_FMA_PROMOTED, UG_BOUND_NONE};

const ug_op_desc ug_op_dot_desc = {
    .shape = UG_OPSHAPE(UG_OP_DOT),
    .doc = "s = sum x_i y_i of n binary32 pairs",
    .terms_kind = UG_TERMS_PRODUCTS,
    .exact_is_sum = true,
    .term_attribution = true,
    .specials = "any NaN term, inf - inf or 0 * inf: NaN; else any +inf product: +inf, -inf: -inf",
    .hunt_exp = 50,
    .hunt_products = true,
    .exact = ug_dot_exact,
    .exact_fast = ug_dot_exact_fast,
    .exact_one_fast = ug_dot_exact_one_fast,
    .exact_gpu = ug_dot_exact_gpu,
    .exact64 = ug_dot_exact64,
    .classes = ug_dot_classes,
};
