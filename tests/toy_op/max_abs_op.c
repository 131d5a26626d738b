/*
 * max_abs_op.c - the descriptor of max_abs: m = max |x_i| of a binary32 vector (n >= 1; the
 * empty vector's is +0).  |x_i| is exact in binary32, so the exact result is one of the inputs
 * and a correct kernel is off by 0 ulp.  Special values: any NaN term gives NaN; otherwise an
 * infinite term gives +inf.
 */
#include <math.h>

#include "ops/op.h"
#include "tests/toy_op/toy_op.h"


/* The exact result as the oracle's record: the value itself (hi = rn = rd = m, lo = 0), its
 * magnitude as S (condition number 1). */
static void ug_ma_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    double m = 0;
    bool nan = false;
    for (size_t i = 0; i < s->dim[0]; i++) {
        if (isnan(x[i])) nan = true;
        else if (fabs((double)x[i]) > m) m = fabs((double)x[i]);
    }
    if (nan) m = NAN;
    out->hi = m;
    out->lo = 0;
    out->rn = out->rd = (float)m;
    out->sum_abs = isfinite(m) ? m : INFINITY;
    out->cls = nan ? UG_X_NAN : isinf(m) ? UG_X_POSINF : UG_X_FINITE;
}

static void ug_ma_exact_one(const float *x, const float *y, const ug_shape *s, size_t e,
                            ug_exact *out)
{
    (void)e;
    ug_ma_exact(x, y, s, out);
}

/* Its shape row: one input x of n values, one output, n terms: the defaults, so only the
 * name and the input (base/opshape.h). */
static ug_opshape ug_op_max_abs_shape = {.name = "max_abs", .arity = 1, .roles = {"x"}};

static ug_op_desc ug_op_max_abs_desc = {
    .doc = "m = max |x_i| of n binary32 values (test tree only)",
    .specials = "any NaN: NaN; else any infinity: +inf",
    .exact = ug_ma_exact,       /* no oracle needed: every oracle's answer is this one */
    .exact_fast = ug_ma_exact,
    .exact_one_fast = ug_ma_exact_one,
};

ug_op ug_toy_max_abs(void)
{
    static ug_op id = -1;
    if (id < 0) id = ug_op_register(&ug_op_max_abs_desc, &ug_op_max_abs_shape);
    return id;
}
