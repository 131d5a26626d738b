/*
 * layernorm.c - LayerNorm of a row of n binary32 values, as torch.nn.LayerNorm(n) defines it
 * (elementwise affine, with bias): y_i = (x_i - mean) / sqrt(var + eps) * w_i + b_i,
 * mean = sum x / n, var = sum (x - mean)^2 / n (biased), eps = UG_NORM_EPS.  Inputs: x (n)
 * and the layer's parameters [w (n) | b (n)], 2n values, from ug_norm_fill_params: input 1
 * holds two index-aligned vectors one after the other (ops/op.h: ug_op_in_width is 2), so a
 * corpus line is "x w b" and `ulpgate check --op layernorm` takes X, W and B files.  n outputs,
 * each correctly rounded with the bias added before the one rounding
 * (oracle/rows/transcend.h).
 */
#include "ops/norm_params.h"
#include "ops/op.h"
#include "ops/rows.h"
#include "oracle/rows/transcend.h"


static void ug_ln_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    ug_exact_layernorm_row(x, y, y + s->dim[0], s->dim[0], UG_NORM_EPS, out);
}

static void ug_ln_exact_one(const float *x, const float *y, const ug_shape *s, size_t e,
                            ug_exact *out)
{
    ug_rows_exact_one(ug_ln_exact, x, y, s, e, out);
}

static void ug_ln_fill(float *y, const ug_shape *s, uint64_t seed, uint32_t trial)
{
    ug_norm_fill_params(y, s->dim[0], true, seed, trial);
}

static const ug_bound_class ug_layernorm_classes[] = {UG_BOUND_LAYERNORM_TWOPASS,
    UG_BOUND_LAYERNORM_ONEPASS, UG_BOUND_LAYERNORM_WELFORD, UG_BOUND_NONE};

const ug_op_desc ug_op_layernorm_desc = {
    .shape = UG_OPSHAPE(UG_OP_LAYERNORM),
    .doc = "(x_i - mean) / sqrt(var + 1e-5) * w_i + b_i over a row of n binary32 values",
    .specials = "any non-finite x, weight or bias in the row: every output NaN",
    .hunt_exp = 20,
    UG_ROWS_DESC_COMMON,
    .exact = ug_ln_exact,
    .exact_fast = ug_ln_exact,
    .exact_one_fast = ug_ln_exact_one,
    .fill_params = ug_ln_fill,
    .classes = ug_layernorm_classes,
};
