/*
 * rows.c - the row operations on the CPU: every softmax, log-sum-exp, RMSNorm and
 * LayerNorm kernel on the distributions that matter and the inputs each textbook form fails
 * (softmax_16bit grades the CUDA 16-bit rows too, where a device is present).
 *
 * What is asserted, and why: bound ratio <= 1 for every kernel, distribution and size, the
 * a-priori class of its registry row (kernels/bounds_rows.c), against the correctly rounded
 * reference (oracle/rows/transcend.h).  The expected failures, declared with their reason:
 *   - the unshifted softmax and log-sum-exp on logits >= 89: exp overflows binary32 (inf/inf),
 *     and on logits <= -104: exp underflows (0/0, or a sum with no relative accuracy left);
 *   - the one-pass LayerNorm (E[x^2] - E[x]^2) on rows of mean/std = 1e4: its bound grows with
 *     (mean/std)^2 and is vacuous there (the computed variance is noise), so no effective check;
 *   - Welford's LayerNorm on rows of mean/std = 1e4 where its bound is vacuous (it grows with
 *     n log(n) u mean/std: kernels/bounds_rows.c), decided by the bound itself (an output with
 *     no finite bound); where it is finite, it is asserted like the others.
 * Measured figures go to the baselines, not here.
 */
#include "harness/run/ug.h"
#include "oracle/rows/transcend.h"

/* The precision the reference needed for an input (oracle/rows/transcend.h), as a note under
 * the input's first measurement (a note outside one would open a point of its own). */
static void ug_note_ziv(ug_t *t, const ug_ziv_stats *s, bool *noted)
{
    if (*noted) return;
    *noted = true;
    ug_note(t, "oracle: %zu outputs decided (%zu by the fast path, %zu rows by MPFR: %zu exact, "
            "%zu above %d bits, most %ld bits), %zu undecided", s->outputs, s->fast,
            s->fallback_rows, s->exact, s->raised, UG_ZIV_PREC0, s->prec_max, s->undecided);
}

static const size_t ug_rows_sizes[] = {1, 2, 3, 16, 100, 1000, 4096};
enum { UG_ROWS_TRIALS = 4 };

/* A row's flags: its logits overflow exp (x >= 88.73: inf) or underflow it (x <= -103.3: 0 or
 * subnormal), which the unshifted forms cannot survive; its mean is 1e4 std (the one-pass
 * variance cancels). */
enum { UG_ROWS_EXP_OVERFLOWS = 1u << 0, UG_ROWS_EXP_UNDERFLOWS = 1u << 1,
       UG_ROWS_LARGE_MEAN = 1u << 2 };

static const ug_param ug_softmax_dists[] = {
    {"normal", UG_NORMAL(0, 1)},
    {"uniform_pm20", UG_UNIFORM(-20, 20)},
    {"normal_sd12", UG_NORMAL(0, 12)}, /* terms spread over e^-100 .. 1 */
    {"logits_ge_89", UG_UNIFORM(89, 100), .flags = UG_ROWS_EXP_OVERFLOWS},
    /* sum exp(x) < 2^-149 n */
    {"logits_le_m104", UG_UNIFORM(-120, -104), .flags = UG_ROWS_EXP_UNDERFLOWS},
};

/* Why the unshifted forms fail on this row, or NULL. */
static const char *ug_unshifted_fails(const ug_param *p)
{
    if (p->flags & UG_ROWS_EXP_OVERFLOWS)
        return "unshifted exp overflows binary32 from x = 88.7 (Blanchard-Higham-Mary sec. 2)";
    if (p->flags & UG_ROWS_EXP_UNDERFLOWS)
        return "unshifted exp underflows below x = -103.3: the sum is 0 or subnormal, no bound";
    return NULL;
}

UG_CASE_OVER(softmax, ug_softmax_dists, 0)
{
    const ug_param *p = ug_param_of(t);
    static const ug_op ops[] = {UG_OP_SOFTMAX, UG_OP_LOGSUMEXP};
    UG_FOR_SIZES(t, n, ug_rows_sizes) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            ug_ziv_stats_reset();
            ug_input *in = ug_input_make(t, ops[o], &p->dist, n, UG_ROWS_TRIALS);
            ug_ziv_stats zs = ug_ziv_stats_get();
            bool noted = false;
            UG_FOR_IN_KERNELS(t, k, ops[o], UG_CPU, "*", UG_F32) {
                ug_result *r = ug_measure(t, k, in);
                ug_note_ziv(t, &zs, &noted);
                bool naive = k->bound == UG_BOUND_SOFTMAX_NAIVE || k->bound == UG_BOUND_LSE_NAIVE;
                if (naive && ug_unshifted_fails(p)) ug_xfail(t, ug_unshifted_fails(p));
                UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds_rows.c */
            }
            ug_input_free(t, in);
        }
    }
}

static const ug_param ug_layernorm_dists[] = {
    {"normal", UG_NORMAL(0, 1)},
    {"uniform_pm1", UG_UNIFORM(-1, 1)},
    {"normal_sd1e3", UG_NORMAL(0, 1000)},
    {"mean_1e4_std_1", UG_NORMAL(1e4, 1), .flags = UG_ROWS_LARGE_MEAN},
};

UG_CASE_OVER(layernorm, ug_layernorm_dists, 0)
{
    const ug_param *p = ug_param_of(t);
    static const ug_op ops[] = {UG_OP_RMSNORM, UG_OP_LAYERNORM};
    bool large_mean = p->flags & UG_ROWS_LARGE_MEAN;
    UG_FOR_SIZES(t, n, ug_rows_sizes) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            ug_ziv_stats_reset();
            ug_input *in = ug_input_make(t, ops[o], &p->dist, n, UG_ROWS_TRIALS);
            ug_ziv_stats zs = ug_ziv_stats_get();
            bool noted = false;
            UG_FOR_IN_KERNELS(t, k, ops[o], UG_CPU, "*", UG_F32) {
                ug_result *r = ug_measure(t, k, in);
                ug_note_ziv(t, &zs, &noted);
                if (k->bound == UG_BOUND_LAYERNORM_WELFORD && large_mean && r->bound_unchecked)
                    ug_xfail(t, "Welford at mean/std = 1e4: n H_n u mean/std too large, the "
                                "a-priori bound is vacuous (kernels/bounds_rows.c)");
                else if (k->bound == UG_BOUND_LAYERNORM_ONEPASS && large_mean)
                    ug_xfail(t, "one-pass E[x^2]-E[x]^2 cancels at mean/std = 1e4: bound vacuous");
                else if (k->bound == UG_BOUND_LAYERNORM_ONEPASS && n == 1 && p->dist.p2 >= 100)
                    ug_xfail(t, "one value: var = 0, so |x|/sqrt(eps) >= 3e4 is the row's "
                                "mean/std: the one-pass bound is vacuous");
                UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds_rows.c */
            }
            ug_input_free(t, in);
        }
    }
}

/* The bfloat16 layers: data x drawn in bfloat16, the weight and bias the operation's own
 * (exact in bfloat16: harness/inputs/fmt_dist.c), binary32 accumulation, bfloat16 output.
 * Asserted: bound ratio <= 1 for the binary32 class of the kernel's form on the bfloat16 values
 * (each widened exactly) plus the output's one rounding (kernels/bounds_rows.c).  A row of
 * mean/std = 100 is there for the two-pass forms (bfloat16 cannot hold a std of 1 at 1e4: its
 * ulp there is 64). */
static const ug_param ug_layernorm_bf16_dists[] = {
    {"normal", UG_NORMAL(0, 1, .fmt = UG_BF16)},
    {"uniform_pm1", UG_UNIFORM(-1, 1, .fmt = UG_BF16)},
    {"normal_sd1e3", UG_NORMAL(0, 1000, .fmt = UG_BF16)},
    {"mean_100_std_1", UG_NORMAL(100, 1, .fmt = UG_BF16)},
};

UG_CASE_OVER(layernorm_bf16, ug_layernorm_bf16_dists, 0)
{
    const ug_param *p = ug_param_of(t);
    static const ug_op ops[] = {UG_OP_RMSNORM, UG_OP_LAYERNORM};
    UG_FOR_SIZES(t, n, ug_rows_sizes) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            ug_input *in = ug_input_make(t, ops[o], &p->dist, n, UG_ROWS_TRIALS);
            UG_FOR_IN_KERNELS(t, k, ops[o], UG_CPU, "*", UG_BF16) {
                ug_result *r = ug_measure(t, k, in);
                UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds_rows.c */
            }
            ug_input_free(t, in);
        }
    }
}

/* Softmax and log-sum-exp in the formats attention feeds them: logits drawn in
 * bfloat16 or binary16, widened exactly, binary32 arithmetic, the output in the 16-bit format
 * or binary32.  Asserted: bound ratio <= 1 for the binary32 shifted class on the 16-bit values
 * plus the output's rounding (kernels/bounds_rows.c).  Normal(0, 12) spreads the terms over
 * e^-100 .. 1; uniform(-60, 60) in binary16 holds its logits to 2^-5.
 * The CPU rows (kernels/cpu/softmax.c) and, where a CUDA device is present, the CUDA rows
 * (kernels/cuda/softmax.cu) are graded here on the same inputs, against one reference; without
 * a device the CUDA rows are not walked (one note says so: gpu suite, `softmax_16bit` test). */
static const ug_param ug_softmax16_dists[] = {
    {"bf16_normal", UG_NORMAL(0, 1, .fmt = UG_BF16)},
    {"bf16_normal_sd12", UG_NORMAL(0, 12, .fmt = UG_BF16)},
    {"f16_normal", UG_NORMAL(0, 1, .fmt = UG_F16)},
    {"f16_uniform_pm60", UG_UNIFORM(-60, 60, .fmt = UG_F16)},
};

UG_CASE_OVER(softmax_16bit, ug_softmax16_dists, 0)
{
    const ug_param *p = ug_param_of(t);
    static const ug_op ops[] = {UG_OP_SOFTMAX, UG_OP_LOGSUMEXP};
    static const int backends[] = {UG_CPU, UG_CUDA};
    bool gpu = ug_gpu_available(), noted = false;
    UG_FOR_SIZES(t, n, ug_rows_sizes) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            ug_input *in = ug_input_make(t, ops[o], &p->dist, n, UG_ROWS_TRIALS);
            for (size_t b = 0; b < sizeof backends / sizeof backends[0]; b++) {
                if (backends[b] == UG_CUDA && !gpu) continue; /* GPU rows: where a device is */
                UG_FOR_IN_KERNELS(t, k, ops[o], backends[b], "*", p->dist.fmt) {
                    ug_result *r = ug_measure(t, k, in);
                    if (!gpu && !noted) {
                        noted = true;
                        ug_note(t, "the CUDA rows of this case are not measured here: no CUDA device");
                    }
                    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds_rows.c */
                }
            }
            ug_input_free(t, in);
        }
    }
}
