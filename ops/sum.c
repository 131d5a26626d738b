/*
 * sum.c - the sum of a binary32 vector: one input x of n values, one output s = sum x_i.
 */
#include <stdlib.h>

#include "base/sys.h"
#include "oracle/gpu.h"
#include "ops/op.h"

static size_t ug_sum_in_len(const ug_shape *s, int input) { return input == 0 ? s->dim[0] : 0; }
static size_t ug_sum_outputs(const ug_shape *s) { (void)s; return 1; }
static size_t ug_sum_terms(const ug_shape *s) { return s->dim[0]; }
static double ug_sum_work(const ug_shape *s) { return (double)s->dim[0]; }
static double ug_sum_bytes(const ug_shape *s) { return 4.0 * (double)s->dim[0]; }

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

const ug_op_desc ug_op_sum_desc = {
    .id = UG_OP_SUM,
    .name = "sum",
    .doc = "s = sum x_i of n binary32 values",
    .arity = 1,
    .roles = {"x"},
    .term_noun = "values",
    .nsizes = 1,
    .size_names = "n",
    .layout = UG_LAYOUT_VECTORS,
    .out_kind = UG_OUT_SCALAR,
    .summary = UG_SUMMARY_WORST_MEAN,
    .rate = UG_RATE_GBPS,
    .terms_kind = UG_TERMS_VALUES,
    .exact_is_sum = true,
    .term_attribution = true,
    .specials = "any NaN term or inf - inf: NaN; else any +inf: +inf, any -inf: -inf",
    .hunt_exp = 100,
    .hunt_products = false,
    .hunt_max_size = (size_t)1 << 24,
    .in_len = ug_sum_in_len,
    .outputs = ug_sum_outputs,
    .terms = ug_sum_terms,
    .work = ug_sum_work,
    .bytes = ug_sum_bytes,
    .exact = ug_sum_exact,
    .exact_fast = ug_sum_exact_fast,
    .exact_one_fast = ug_sum_exact_one_fast,
    .exact_gpu = ug_sum_exact_gpu,
    .exact64 = ug_sum_exact64,
    .gpu_oracle_pays = NULL, /* never: see ops/gemm.c */
};
