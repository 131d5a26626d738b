/*
 * sum.c - the sum of a binary32 vector: one input x of n values, one output s = sum x_i.
 */
#include <stdlib.h>

#include "base/sys.h"
#include "oracle/gpu.h"
#include "ops/op.h"


static void ug_sum_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_exact_sum_f32(x, s->dim[0], out);
}

static void ug_sum_exact_fast(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_exact_sum_f32_fast(x, s->dim[0], out);
}

static void ug_sum_exact_one_fast(const float *x, const float *y, const ug_shape *s, size_t e,
                                  ug_exact *out)
{
    (void)e;
    ug_sum_exact_fast(x, y, s, out);
}

static void ug_sum_exact64(const double *x, const double *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_exact_sum_f64(x, s->dim[0], out);
}

/* Every trial in one batched call of the GPU oracle. */
static int ug_sum_exact_gpu(float *const *x, float *const *y, size_t count, const ug_shape *s,
                            ug_exact *const *out, char *err, size_t errlen)
{
    (void)y;
    size_t *ns = ug_xmalloc((count ? count : 1) * sizeof *ns);
    ug_exact *r = ug_xmalloc((count ? count : 1) * sizeof *r);
    for (size_t i = 0; i < count; i++) ns[i] = s->dim[0];
    int rc = ug_exact_sums_f32_gpu((const float *const *)x, ns, count, r, err, errlen);
    for (size_t i = 0; i < count && rc == 0; i++) out[i][0] = r[i];
    free(ns);
    free(r);
    return rc;
}

static const ug_bound_class ug_sum_classes[] = {UG_BOUND_TREE, UG_BOUND_KAHAN, UG_BOUND_NEUMAIER,
    UG_BOUND_WIDE_ACC, UG_BOUND_F64_TREE, UG_BOUND_F64_KAHAN, UG_BOUND_F16_ACC, UG_BOUND_BF16_OUT,
    UG_BOUND_NONE};

const ug_op_desc ug_op_sum_desc = {
    .shape = UG_OPSHAPE(UG_OP_SUM),
    .doc = "s = sum x_i of n binary32 values",
    .exact_is_sum = true,
    .term_attribution = true,
    .specials = "any NaN term or inf - inf: NaN; else any +inf: +inf, any -inf: -inf",
    .exact = ug_sum_exact,
    .exact_fast = ug_sum_exact_fast,
    .exact_one_fast = ug_sum_exact_one_fast,
    .exact_gpu = ug_sum_exact_gpu,
    .exact64 = ug_sum_exact64,
    .classes = ug_sum_classes,
};
