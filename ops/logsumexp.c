/*
 * logsumexp.c - the log-sum-exp of a row of n binary32 logits: one input x, one output
 * log(sum_j exp(x_j)), correctly rounded (oracle/rows/transcend.h).
 */
#include "oracle/rows/transcend.h"
#include "ops/op.h"

static size_t ug_lse_in_len(const ug_shape *s, int input) { return input == 0 ? s->dim[0] : 0; }
static size_t ug_lse_outputs(const ug_shape *s) { (void)s; return 1; }
static size_t ug_lse_terms(const ug_shape *s) { return s->dim[0]; }
static double ug_lse_work(const ug_shape *s) { return (double)s->dim[0]; }
static double ug_lse_bytes(const ug_shape *s) { return 4.0 * (double)s->dim[0]; }

/* The reference: the fast path (oracle/rows/transcend_fast.c, MPFR for a row it cannot
 * decide), or MPFR alone under --oracle mpfr. */
static void ug_lse_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_exact_logsumexp_row(x, s->dim[0], out);
}

static void ug_lse_exact_fast(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_exact_logsumexp_row_fast(x, s->dim[0], out);
}

static void ug_lse_exact_one(const float *x, const float *y, const ug_shape *s, size_t e,
                             ug_exact *out)
{
    (void)e;
    ug_lse_exact_fast(x, y, s, out);
}

const ug_op_desc ug_op_logsumexp_desc = {
    .id = UG_OP_LOGSUMEXP,
    .name = "logsumexp",
    .doc = "log(sum exp(x_j)) of a row of n binary32 logits",
    .arity = 1,
    .roles = {"x"},
    .term_noun = "logits",
    .nsizes = 1,
    .size_names = "n",
    .layout = UG_LAYOUT_VECTORS,
    .out_kind = UG_OUT_SCALAR,
    .summary = UG_SUMMARY_WORST_MEAN,
    .rate = UG_RATE_GBPS,
    .terms_kind = UG_TERMS_VALUES,
    .exact_is_sum = false,
    .term_attribution = false,
    .specials = "any NaN logit: NaN; else any +inf: +inf; all -inf: -inf",
    .hunt_exp = 6,
    .hunt_products = false,
    .hunt_max_size = (size_t)1 << 16,
    .in_len = ug_lse_in_len,
    .outputs = ug_lse_outputs,
    .terms = ug_lse_terms,
    .work = ug_lse_work,
    .bytes = ug_lse_bytes,
    .exact = ug_lse_exact,
    .exact_fast = ug_lse_exact_fast,
    .exact_one_fast = ug_lse_exact_one,
};
