/*
 * attention.c - every attention kernel (kernels/cpu/attention.c; CUDA and plugin kernels where
 * a device is) measured by the run loop like every other operation: inputs Q, K, V of a shape
 * with batch, heads and grouped kv_heads and the call's options (scale, causal) from
 * ug_input_make_heads, each kernel through ug_measure (its two outputs, O in its out_fmt and
 * lse in binary32, each graded against the correctly rounded reference: ops/attention.c,
 * oracle/attention/exact_attention.h), into results rows, the baselines, the gate and the hunt.
 *
 * The inputs, from (seed, case, trial) alone: normal and uniform Q K V; bfloat16 normal; outlier
 * channels (channel 0 of q and k large: every score near 100, >= 80); near-uniform rows (q, k
 * of size 1e-3); decode (L = 1, S = 4096); long rows (L = 2, S = 32768); causal prefill (L = S
 * = 256); batch 2 x 4 query heads on 2 key/value heads, causal with L < S; the call's scale 1,
 * 1/d (causal), 1/12 and 0.088388 / 0.7 (the others pass the default, 1/sqrt(d): a kernel that
 * ignores the scale it is given fails only these); V of width dv = 96 (the others dv = d).
 * d = 64 and 128 (the
 * long rows d = 64 alone: CI time).  The binary32 kernels read the binary32 values; the bfloat16
 * kernels an input of the same values rounded to bfloat16 (stored in bfloat16), graded against
 * those values' own reference (one input for both on bf16_normal and golden_*, whose values
 * are bfloat16).
 * Asserted: bound ratio <= 1 for every kernel and input, on every output (O and lse: the bound
 * of each from ug_attention_bound, ops/op.h's bound_at; an output of no finite bound is an
 * unchecked output, which fails the point; a special exact value only itself; a NaN or infinite
 * output of a finite exact value an infinite ratio); the expected failure, declared with its
 * reason: the unshifted softmax on the outlier channels (exp(s) overflows binary32 from s =
 * 88.7: inf / inf).  A kernel that does not offer a shape (a
 * FlashAttention-2 plugin outside d = 64, 128) declines it as unsupported: a skip that says so.
 * golden_S512, golden_S2048: bfloat16 Q K V, 8 query rows, Golden et al.'s "Is Flash Attention
 * stable?" shapes at CI's size; their bfloat16 rows carry O's exact deviation (extras o_ulp_max,
 * o_rel; dev_base on the naive baseline), the report's deviation table (summary.md); the large
 * shapes (S up to 16384) are tests/bench_attention.c --golden's (BENCHMARKS.md).
 * Measured figures go to the baselines.
 * gpu_attention/fa2_mma_declines_d96: the tensor-core kernel (kernels/cuda/attention.cu) has
 * d = 64 and 128 only and declines d = 96 as unsupported with its reason (a GPU case: skipped
 * cleanly without a device; the CUDA kernels themselves are measured above where one is).
 */
#include <math.h>
#include <string.h>

#include "harness/run/ug.h"
#include "ops/op.h"

/* outliers: channel 0 of q and k of size b, b^2 c = 100: every score near 100 (>= 80) */
static void attn_outlier(float *v, size_t n, int input, const ug_shape *s, const ug_opts *o)
{
    if (input > 1) return;
    double big = sqrt(100 / (double)ug_attention_scale(s, o));
    for (size_t i = 0; i < n; i += s->dim[2]) v[i] = (float)(big + 0.1 * v[i]);
}

/* near-uniform rows: q and k of size 1e-3, every score within 1e-4 of the others */
static void attn_near_uniform(float *v, size_t n, int input, const ug_shape *s, const ug_opts *o)
{
    (void)s, (void)o;
    if (input > 1) return;
    for (size_t i = 0; i < n; i++) v[i] = (float)(v[i] * 1e-3);
}

static const ug_input_tweak attn_tw_outlier = {"outlier_channels", attn_outlier, UG_F32};
static const ug_input_tweak attn_tw_near = {"near_uniform", attn_near_uniform, UG_F32};

/* A row's L and S (d the body's), one problem. */
#define ATTN_LS(l, s) .shape = {{(l), (s)}, 1, 1, 1}
#define ATTN_CAUSAL .opts = {0, UG_OPT_CAUSAL}
/* ATTN_GOLDEN: the row's O deviation figures go to its bfloat16 rows (the report's deviation
 * table).  ATTN_SCALE_INV_D: the call's scale is 1/d of the body's d (muP's attention scale),
 * not the table's. */
enum { ATTN_GOLDEN = 1u << 0, ATTN_SCALE_INV_D = 1u << 1 };

static const ug_param ug_attn_inputs[] = {
    {"normal", UG_NORMAL(0, 1), ATTN_LS(32, 512)},
    {"uniform", UG_UNIFORM(-1, 1), ATTN_LS(32, 512)},
    {"bf16_normal", UG_NORMAL(0, 1, .fmt = UG_BF16), ATTN_LS(32, 512)},
    {"outlier_scores_ge_80", UG_NORMAL(0, 1), ATTN_LS(32, 512), .tweak = &attn_tw_outlier},
    {"near_uniform", UG_NORMAL(0, 1), ATTN_LS(32, 512), .tweak = &attn_tw_near},
    {"decode_S4096", UG_NORMAL(0, 1), ATTN_LS(1, 4096)},
    {"long_S32768", UG_NORMAL(0, 1), ATTN_LS(2, 32768)},
    {"causal_prefill", UG_NORMAL(0, 1), ATTN_LS(256, 256), ATTN_CAUSAL},
    {"gqa_batch_causal", UG_NORMAL(0, 1), .shape = {{16, 256}, 2, 4, 2}, ATTN_CAUSAL},
    /* scales other than the default 1/sqrt(d), which a kernel must take from the call: 1 (T5's
     * unscaled scores; uniform values: on normal ones at d = 128 the unshifted form's bound,
     * which must allow e^A for A = c sum |q k| ~ 100, bounds nothing), 1/d (muP) with the
     * causal mask, a model's
     * own non-power-of-two (Gemma 2 27B: query_pre_attn_scalar 144, c = 1/12, at d = 128 beside
     * 1/sqrt(128) = 0.0884), and a decimal scale divided by a temperature as a config file
     * writes it (0.088388 / 0.7), on bfloat16 values over 2 x 4 heads sharing 2 */
    {"scale_1", UG_UNIFORM(-1, 1), ATTN_LS(32, 512), .opts = {1.0, 0u}},
    {"scale_inv_d_causal", UG_NORMAL(0, 1), ATTN_LS(32, 512), ATTN_CAUSAL,
     .flags = ATTN_SCALE_INV_D},
    {"scale_1_12_gemma2", UG_NORMAL(0, 1), ATTN_LS(32, 512), .opts = {1.0 / 12, 0u}},
    {"scale_temperature", UG_NORMAL(0, 1, .fmt = UG_BF16), .shape = {{16, 256}, 2, 4, 2},
     .opts = {0.088388 / 0.7, 0u}},
    /* V's width dv apart from d (dv = 96 beside d = 64 and 128): a kernel that strides V or O
     * by d, or sizes its accumulator by d, reads or writes the wrong columns (the table's
     * dim[3]; 0 elsewhere: dv = d) */
    {"dv96", UG_NORMAL(0, 1), .shape = {{16, 256, 0, 96}, 1, 1, 1}},
    /* "Is Flash Attention stable?" (Golden et al., arXiv 2405.02803) at CI's size: bfloat16
     * Q K V, a few query rows on S = 512 and 2048 keys: the report's deviation table */
    {"golden_S512", UG_NORMAL(0, 1, .fmt = UG_BF16), ATTN_LS(8, 512), .flags = ATTN_GOLDEN},
    {"golden_S2048", UG_NORMAL(0, 1, .fmt = UG_BF16), ATTN_LS(8, 2048), .flags = ATTN_GOLDEN},
};

/* The deviation figures of a bfloat16 kernel's O on trial 0 (the report's deviation table,
 * harness/report/report_md.c): its largest error in bfloat16 ULPs (o_ulp_max) and normwise
 * relative (o_rel: max |O - O_exact| / max |O_exact|), exact, against the correctly rounded
 * reference; dev_base 1 on the naive baseline's row, the table's denominator.  O(L dv). */
static void attn_deviation(const ug_result *r, const ug_input *in)
{
    if (r->failed_run || !r->out || r->kernel->out_fmt != UG_BF16) return;
    ug_shape sh = ug_input_shape(in);
    size_t no = ug_opshape_out_len(ug_input_op(in)->shape, &sh, 0);
    double ulp = 0, err = 0, big = 0;
    for (size_t e = 0; e < no; e++) {
        const ug_exact *x = &in->exact[0][e];
        ug_error er = ug_error_fmt(x, UG_BF16, ug_result_output(r, 0, e));
        if (!(er.ulp <= ulp)) ulp = er.ulp;
        if (!(er.abs <= err)) err = er.abs;
        if (fabs(x->hi) > big) big = fabs(x->hi);
    }
    ug_result *w = (ug_result *)r;
    ug_result_extra(w, "o_ulp_max", ulp);
    ug_result_extra(w, "o_rel", big > 0 ? err / big : err == 0 ? 0 : INFINITY);
    if (strncmp(r->kernel->name, "attn_naive_bf16", 15) == 0 && r->kernel->backend == UG_CPU)
        ug_result_extra(w, "dev_base", 1);
}

/* Every kernel of the backend whose input is stored in fmt, measured on in, each asserted. */
static void attn_measure_all(ug_t *t, const ug_input *in, ug_fmt fmt, bool outliers)
{
    bool golden = ug_param_of(t)->flags & ATTN_GOLDEN;
    static const int backends[] = {UG_CPU, UG_CUDA};
    for (size_t b = 0; b < sizeof backends / sizeof backends[0]; b++)
        UG_FOR_IN_KERNELS(t, k, UG_OP_ATTENTION, backends[b], "*", fmt) {
            ug_result *r = ug_measure(t, k, in);
            if (golden) attn_deviation(r, in);
            if (k->bound == UG_BOUND_ATTN_UNSHIFTED && outliers)
                ug_xfail(t, "unshifted exp(s) overflows binary32 from s = 88.7: inf / inf "
                            "(Blanchard-Higham-Mary sec. 2)");
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori, per output: kernels/bounds_attn.c */
        }
}

UG_CASE_OVER(attention, ug_attn_inputs, 0)
{
    const ug_param *p = ug_param_of(t);
    const ug_input_tweak *tw = p->tweak;
    if (!ug_n_selected(t, p->shape.dim[0])) return;
    bool bf16_values = p->dist.fmt == UG_BF16;
    static const size_t ds[] = {64, 128};
    for (size_t di = 0; di < 2; di++) {
        size_t d = ds[di];
        if (p->shape.dim[1] > 4096 && d > 64) continue; /* the long rows once: CI time */
        ug_shape sh = p->shape;
        sh.dim[2] = d;
        sh.dim[3] = p->shape.dim[3] ? p->shape.dim[3] : d;
        ug_opts opts = p->opts;
        if (p->flags & ATTN_SCALE_INV_D) opts.scale = 1.0 / (double)d;
        ug_input *in = ug_input_make_heads(t, UG_OP_ATTENTION, &p->dist, &sh, &opts, 1, tw);
        attn_measure_all(t, in, UG_F32, tw == &attn_tw_outlier);
        if (!bf16_values) { /* the same values rounded to bfloat16 */
            ug_input_tweak tb = {tw ? tw->name : NULL, tw ? tw->fn : NULL, UG_BF16};
            ug_input_free(t, in);
            in = ug_input_make_heads(t, UG_OP_ATTENTION, &p->dist, &sh, &opts, 1, &tb);
        }
        attn_measure_all(t, in, UG_BF16, tw == &attn_tw_outlier);
        ug_input_free(t, in);
    }
}

/* The tensor-core kernel has d = dv = 64 and 128 only: d = 96 is declined as unsupported, with
 * its reason, not computed. */
UG_CASE_EX(gpu_attention, fa2_mma_declines_d96, UG_CASE_GPU)
{
    enum { L = 4, S = 64, D = 96 };
    static unsigned short q[L * D], kv[S * D], o[L * D];
    float lse[L];
    UG_FOR_IN_KERNELS(t, k, UG_OP_ATTENTION, UG_CUDA, "attn_fa2_bf16_mma", UG_BF16) {
        ug_call c;
        memset(&c, 0, sizeof c);
        c.op = UG_OP_ATTENTION;
        c.shape = (ug_shape){{L, S, D, D}, 1, 1, 1};
        c.in[0] = (ug_arg){q, UG_BF16, L * D};
        c.in[1] = c.in[2] = (ug_arg){kv, UG_BF16, S * D};
        c.out[0] = (ug_arg_out){o, UG_BF16, L * D};
        c.out[1] = (ug_arg_out){lse, UG_F32, L};
        ug_point(t, "%s at d = %d", k->name, D);
        int rc = ug_kernel_run(k, &c);
        UG_EXPECT_MSG(rc != 0 && c.unsupported && strstr(c.err, "64 or 128"),
                      "%s at d = %d: rc %d, unsupported %d, '%s'", k->name, D, rc, c.unsupported,
                      c.err);
    }
}
