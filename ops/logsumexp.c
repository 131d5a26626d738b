/*
 * logsumexp.c - the log-sum-exp of a row of n binary32 logits: one input x, one output
 * log(sum_j exp(x_j)), correctly rounded (oracle/rows/transcend.h).
 */
#include "oracle/rows/transcend.h"
#include "ops/op.h"
#include "ops/rows.h"


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

static const ug_bound_class ug_logsumexp_classes[] = {UG_BOUND_LSE_NAIVE, UG_BOUND_LSE_SHIFTED,
    UG_BOUND_LSE_ONLINE, UG_BOUND_NONE};

const ug_op_desc ug_op_logsumexp_desc = {
    .shape = UG_OPSHAPE(UG_OP_LOGSUMEXP),
    .doc = "log(sum exp(x_j)) of a row of n binary32 logits",
    .specials = "any NaN logit: NaN; else any +inf: +inf; all -inf: -inf",
    .hunt_exp = 6,
    UG_ROWS_DESC_COMMON,
    .exact = ug_lse_exact,
    .exact_fast = ug_lse_exact_fast,
    .exact_one_fast = ug_lse_exact_one,
    .classes = ug_logsumexp_classes,
};
