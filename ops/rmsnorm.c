/*
 * rmsnorm.c - RMSNorm of a row of n binary32 values, as torch.nn.RMSNorm defines it (weight,
 * no bias): y_i = x_i / sqrt(sum x^2 / n + eps) * w_i, eps = UG_NORM_EPS.  Inputs: x (n) and
 * w (n, from ug_norm_fill_params); n outputs, each correctly rounded (oracle/rows/transcend.h).
 */
#include "ops/norm_params.h"
#include "ops/op.h"
#include "ops/rows.h"
#include "oracle/rows/transcend.h"


static void ug_rms_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    ug_exact_rmsnorm_row(x, y, s->dim[0], UG_NORM_EPS, out);
}

static void ug_rms_exact_one(const float *x, const float *y, const ug_shape *s, size_t e,
                             ug_exact *out)
{
    ug_rows_exact_one(ug_rms_exact, x, y, s, e, out);
}

static void ug_rms_fill(float *y, const ug_shape *s, uint64_t seed, uint32_t trial)
{
    ug_norm_fill_params(y, s->dim[0], false, seed, trial);
}

static const ug_bound_class ug_rmsnorm_classes[] = {UG_BOUND_RMSNORM, UG_BOUND_NONE};

const ug_op_desc ug_op_rmsnorm_desc = {
    .shape = UG_OPSHAPE(UG_OP_RMSNORM),
    .doc = "x_i / sqrt(sum x^2 / n + 1e-5) * w_i over a row of n binary32 values",
    .specials = "any non-finite x or weight in the row: every output NaN",
    .hunt_exp = 20,
    UG_ROWS_DESC_COMMON,
    .exact = ug_rms_exact,
    .exact_fast = ug_rms_exact,
    .exact_one_fast = ug_rms_exact_one,
    .fill_params = ug_rms_fill,
    .classes = ug_rmsnorm_classes,
};
