/*
 * gpu_rows.c - the row operations of issue 25 on the GPU: the CUDA softmax, log-sum-exp,
 * RMSNorm and LayerNorm kernels (kernels/cuda/softmax.cu, layernorm.cu) on the distributions of
 * cases/rows.c, bound ratio <= 1 against the correctly rounded reference (the a-priori classes
 * of kernels/bounds_rows.c; the bf16-out rows add the output's rounding).  The GPU forms are
 * all max-shifted or two-pass: no expected failures but the one-pass-free mean/std rows pass.
 * Skipped without a CUDA device.
 */
#include "harness/run/ug.h"

static const size_t ug_gpu_rows_sizes[] = {1, 2, 31, 32, 33, 1000, 4096};
enum { UG_GPU_ROWS_TRIALS = 4 };

static const ug_param ug_gpu_rows_dists[] = {
    {"normal", UG_NORMAL(0, 1)},
    {"uniform_pm20", UG_UNIFORM(-20, 20)},
    {"logits_ge_89", UG_UNIFORM(89, 100)},
    {"mean_1e4_std_1", UG_NORMAL(1e4, 1)},
};

UG_CASE_OVER(gpu_rows, ug_gpu_rows_dists, UG_CASE_GPU)
{
    const ug_param *p = ug_param_of(t);
    static const ug_op ops[] = {UG_OP_SOFTMAX, UG_OP_LOGSUMEXP, UG_OP_RMSNORM, UG_OP_LAYERNORM};
    UG_FOR_SIZES(t, n, ug_gpu_rows_sizes) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            ug_input *in = ug_input_make(t, ops[o], &p->dist, n, UG_GPU_ROWS_TRIALS);
            UG_FOR_IN_KERNELS(t, k, ops[o], UG_CUDA, "*", UG_F32) {
                ug_result *r = ug_measure(t, k, in);
                UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds_rows.c */
            }
            ug_input_free(t, in);
        }
    }
}

/* The bfloat16 layers on the GPU: x drawn in bfloat16, the weight and bias the operation's own
 * (exact in bfloat16), binary32 accumulation in a warp, bfloat16 out; the binary32 class of the
 * form plus the output's rounding (kernels/bounds_rows.c), as cases/rows.c's layernorm_bf16. */
static const ug_param ug_gpu_rows_bf16_dists[] = {
    {"normal", UG_NORMAL(0, 1, .fmt = UG_BF16)},
    {"uniform_pm1", UG_UNIFORM(-1, 1, .fmt = UG_BF16)},
    {"mean_100_std_1", UG_NORMAL(100, 1, .fmt = UG_BF16)},
};

UG_CASE_OVER(gpu_rows_bf16, ug_gpu_rows_bf16_dists, UG_CASE_GPU)
{
    const ug_param *p = ug_param_of(t);
    static const ug_op ops[] = {UG_OP_RMSNORM, UG_OP_LAYERNORM};
    UG_FOR_SIZES(t, n, ug_gpu_rows_sizes) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            ug_input *in = ug_input_make(t, ops[o], &p->dist, n, UG_GPU_ROWS_TRIALS);
            UG_FOR_IN_KERNELS(t, k, ops[o], UG_CUDA, "*", UG_BF16) {
                ug_result *r = ug_measure(t, k, in);
                UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds_rows.c */
            }
            ug_input_free(t, in);
        }
    }
}
