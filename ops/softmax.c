/*
 * softmax.c - the softmax of a row of n binary32 logits: one input x, n outputs
 * y_i = exp(x_i) / sum_j exp(x_j), each correctly rounded (oracle/rows/transcend.h: a 192-bit
 * fast path with a proven bound, else MPFR enclosures raised in precision until decided).
 * A trial is one row; a batch of rows is a batch of trials (the harness's trials), and
 * kernels loop over rows = count / n.
 */
#include "oracle/rows/transcend.h"
#include "ops/op.h"
#include "ops/rows.h"


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
    ug_rows_exact_one(ug_softmax_exact_fast, x, y, s, e, out);
}

static const ug_bound_class ug_softmax_classes[] = {UG_BOUND_SOFTMAX_NAIVE,
    UG_BOUND_SOFTMAX_SHIFTED, UG_BOUND_SOFTMAX_ONLINE, UG_BOUND_NONE};

const ug_op_desc ug_op_softmax_desc = {
    .shape = UG_OPSHAPE(UG_OP_SOFTMAX),
    .doc = "y_i = exp(x_i) / sum exp(x_j) over a row of n binary32 logits",
    .specials = "any NaN or +inf logit: every output NaN; a -inf logit: +0; all -inf: NaN",
    .hunt_exp = 6, /* |x| <= 64: no binary32 exp overflows; the hunt looks for rounding */
    UG_ROWS_DESC_COMMON,
    .exact = ug_softmax_exact,
    .exact_fast = ug_softmax_exact_fast,
    .exact_one_fast = ug_softmax_exact_one,
    .classes = ug_softmax_classes,
};
