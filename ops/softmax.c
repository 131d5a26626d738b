/*
 * softmax.c - the softmax of a row of n binary32 logits: one input x, n outputs
 * y_i = exp(x_i) / sum_j exp(x_j), each correctly rounded (oracle/rows/transcend.h: a 192-bit
 * fast path with a proven bound, else MPFR enclosures raised in precision until decided).
 * A trial is one row; a batch of rows is a batch of trials (the harness's trials), and
 * kernels loop over rows = count / n.
 */
#include <stdlib.h>

#include "base/sys.h"
#include "oracle/rows/transcend.h"
#include "ops/op.h"

static size_t ug_softmax_in_len(const ug_shape *s, int input) { return input == 0 ? s->dim[0] : 0; }
static size_t ug_softmax_outputs(const ug_shape *s) { return s->dim[0]; }
static size_t ug_softmax_terms(const ug_shape *s) { return s->dim[0]; }
static double ug_softmax_work(const ug_shape *s) { return (double)s->dim[0]; }
static double ug_softmax_bytes(const ug_shape *s) { return 8.0 * (double)s->dim[0]; }

/* The reference: the fast path (oracle/rows/transcend_fast.c, MPFR for a row it cannot
 * decide), or MPFR alone under --oracle mpfr. */
static void ug_softmax_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_exact_softmax_row(x, s->dim[0], out);
}

static void ug_softmax_exact_fast(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_exact_softmax_row_fast(x, s->dim[0], out);
}

/* One output costs the row (its sum). */
static void ug_softmax_exact_one(const float *x, const float *y, const ug_shape *s, size_t e,
                                 ug_exact *out)
{
    ug_exact *all = ug_xcalloc(s->dim[0], sizeof *all);
    ug_softmax_exact_fast(x, y, s, all);
    *out = all[e];
    free(all);
}

const ug_op_desc ug_op_softmax_desc = {
    .id = UG_OP_SOFTMAX,
    .name = "softmax",
    .doc = "y_i = exp(x_i) / sum exp(x_j) over a row of n binary32 logits",
    .arity = 1,
    .roles = {"x"},
    .term_noun = "logits",
    .nsizes = 1,
    .size_names = "n",
    .layout = UG_LAYOUT_VECTORS,
    .out_kind = UG_OUT_VECTOR,
    .summary = UG_SUMMARY_WORST_MEAN,
    .rate = UG_RATE_GBPS,
    .terms_kind = UG_TERMS_VALUES,
    .exact_is_sum = false,
    .term_attribution = false,
    .specials = "any NaN or +inf logit: every output NaN; a -inf logit: +0; all -inf: NaN",
    .hunt_exp = 6, /* |x| <= 64: no binary32 exp overflows; the hunt looks for rounding */
    .hunt_products = false,
    .hunt_max_size = (size_t)1 << 16,
    .in_len = ug_softmax_in_len,
    .outputs = ug_softmax_outputs,
    .terms = ug_softmax_terms,
    .work = ug_softmax_work,
    .bytes = ug_softmax_bytes,
    .exact = ug_softmax_exact,
    .exact_fast = ug_softmax_exact_fast,
    .exact_one_fast = ug_softmax_exact_one,
};
