/*
 * bounds.c - a-priori error bounds per kernel class (Higham, Accuracy and Stability of Numerical
 * Algorithms, 2nd ed., ch. 3-4).  u = 2^-24 (binary32 unit roundoff), gamma_k = k u / (1 - k u).
 *
 * A tree in which each term passes through at most D rounded additions satisfies
 * |s^ - s| <= gamma_D * sum|x_i| (Higham (4.4)-(4.6): recursive D = n-1, pairwise D = ceil(log2 n)).
 * A dot product adds one rounding per term (the product): gamma_{D+1} sum|x_i y_i| (Higham (3.5)).
 * FMA-contracted updates round product and sum together, so they satisfy the same bound.
 * The bound is evaluated in binary64 from S, an upper bound of sum|terms| (oracle), and rounded
 * up by a factor (1 + 2^-40) so that its own rounding never makes a correct kernel fail.
 */
#include <math.h>
#include <stdio.h>

#include "kernels/kernel.h"

static const double ug_u32 = 0x1p-24, ug_u64 = 0x1p-53;

static double ug_gamma(double k, double u)
{
    double ku = k * u;
    return ku >= 1 ? INFINITY : ku / (1 - ku);
}

size_t ug_depth_serial(size_t n) { return n ? n - 1 : 0; }

size_t ug_depth_log2(size_t n)
{
    size_t d = 0;
    while (((size_t)1 << d) < n) d++;
    return d;
}

/* A kernel that flushes subnormals to zero (its row says .ftz, or its build flushes:
 * UG_VP_FTZ) changes each term and each sum by less than 2^-126 when it flushes it:
 * (2n - 1) 2^-126 more. */
static double ug_ftz_term(const ug_kernel *k, size_t n, double b)
{
    bool ftz = k->ftz || (ug_kernel_props(k) & UG_VP_FTZ);
    return ftz && n ? b + (2.0 * (double)n - 1) * 0x1p-126 : b;
}

size_t ug_kernel_depth(const ug_kernel *k, size_t n)
{
    /* built with reassociation allowed (-ffast-math), the compiler may evaluate the sum in any
     * order; every order of n terms has depth <= n - 1 */
    if (ug_kernel_props(k) & UG_VP_REASSOC) return ug_depth_serial(n);
    return k->depth ? k->depth(n) : ug_depth_serial(n);
}

/* Fraction bits of the operand format of a reduced-precision class: TF32 and binary16 10,
 * bfloat16 7. */
static int ug_lowp_fraction_bits(ug_bound_class b) { return b == UG_BOUND_BF16 ? 7 : 10; }

/* Operands rounded to a format of p fraction bits (nearest or truncated: relative error <= 2^-p
 * each, so a product's is <= 2^(1-p) + 2^-2p), their product exact in binary32 (at most
 * 2(p+1) <= 24 significant bits); binary32 accumulation of depth D allowed to truncate (error
 * < 1 ulp = 2u per addition: tensor-core adders are not documented to round to nearest). */
static double ug_lowp_bound(int p, double D, double S)
{
    double rel = ldexp(1, 1 - p) + ldexp(1, -2 * p);
    return (rel + ug_gamma(D, 2 * ug_u32) * (1 + rel)) * S;
}

double ug_kernel_operand_limit(const ug_kernel *k)
{
    /* the block classes' operands are rounded to op_fmt: beyond its largest value they overflow
     * (fp8: e4m3's 448, the smaller of the two fp8 formats a mixed row may use) */
    if (k->bound == UG_BOUND_BLOCK_FMA || k->bound == UG_BOUND_BLOCK_FMA_PROMOTED) {
        if (k->op_fmt == UG_E4M3 || k->op_fmt == UG_E5M2) return 448.0;
        if (k->op_fmt == UG_F16) return 65504.0;
    }
    return k->bound == UG_BOUND_F16 || k->bound == UG_BOUND_F16_ACC ? 65504.0 : INFINITY;
}

/* ---- the classes of the number-format kernels ---------------------------------------
 * Each is Higham's tree bound with the accumulator's unit roundoff, plus the output rounding
 * where the output format is narrower than the accumulator.  D is the depth (most rounded
 * additions any term passes through); a dot's products are one more rounding (D + 1) unless the
 * class says otherwise. */

/* Binary64 inputs, binary64 accumulator and output (Higham (4.4)-(4.6), (3.5) with u = 2^-53):
 * gamma_D(u64) S for a sum, gamma_{D+1}(u64) S for a dot.  Binary64's range: the bound assumes
 * no partial sum overflows and products do not underflow, as the binary32 tree class does. */
static double ug_bound_f64_tree(double D, bool dot, double S)
{
    return ug_gamma(dot ? D + 1 : D, ug_u64) * S;
}

/* Kahan's compensated summation in binary64: Higham (4.8) with u = 2^-53, the O(n u^2) term
 * taken as 4 n u^2 as UG_BOUND_KAHAN does; a dot's products are rounded before the compensated
 * sum sees them: one more u64. */
static double ug_bound_f64_kahan(double n, bool dot, double S)
{
    return ((dot ? 3 : 2) * ug_u64 + 4 * n * ug_u64 * ug_u64) * S;
}

/* Binary16 values added in a binary16 accumulator (the result is the accumulator, stored as
 * binary16: no further rounding).  Each addition of two binary16 numbers is exact or rounds
 * with relative error <= u16 = 2^-11 (Higham (2.4)); a result in the subnormal range is exact
 * (gradual underflow: a sum of two multiples of 2^-24 below 2^-14 is such a multiple), so no
 * absolute term.  The tree argument gives gamma_D(u16) S, vacuous from D = 2048 on (D u16 >= 1:
 * +inf).  It needs no overflow: every partial sum is at most (1 + gamma_D(u16)) S in magnitude,
 * so while that is <= 65504 none reaches the overflow threshold 65520; beyond, no bound (+inf:
 * the point is out of the format's range).  Sums only: a binary16 product may underflow, which
 * this class does not cover (+inf for products). */
static double ug_bound_f16_acc(double D, bool dot, double S)
{
    const double u16 = 0x1p-11;
    double g = ug_gamma(D, u16);
    if (dot || !(S * (1 + g) <= 65504.0)) return INFINITY;
    return g * S;
}

/* Binary32 accumulation of depth D, rounded once to bfloat16 (normalisation layers: bf16 in,
 * fp32 accumulation, bf16 out).  The accumulator s32 = s + e with |e| <= g S, g = gamma_D(u)
 * (gamma_{D+1}(u) for a dot).  Rounding to bfloat16: o = s32 (1 + d) + eta with |d| <= ubf =
 * 2^-8 and |eta| <= 2^-134 (half bfloat16's subnormal spacing 2^-133, only below 2^-126, where
 * d = 0), so |o - s| <= |e| + ubf |s32| + eta <= ubf |s| + (1 + ubf) g S + 2^-134: the
 * u_out + (1 + u_out) gamma_D(u_acc) S/|s| in absolute form.  Overflow: bfloat16's
 * largest finite value is 0x1.fep127; when |s| + g S reaches it the accumulator may round to
 * +-inf: no bound (+inf). */
static double ug_bound_bf16_out(double D, bool dot, double S, double s_abs)
{
    const double ubf = 0x1p-8;
    double g = ug_gamma(dot ? D + 1 : D, ug_u32);
    if (!(s_abs + g * S < 0x1.fep127)) return INFINITY;
    return ubf * s_abs + (1 + ubf) * g * S + 0x1p-134;
}

/* ---- blocked fused accumulation: tensor-core GEMMs -----------------------------------
 * The model (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor cores",
 * PeerJ CS 7:e330, 2021; Khattak & Mikaitis, "Accurate models of NVIDIA tensor cores", arXiv
 * 2512.07004; Blanchard, Higham, Lopez, Mary, Pranesh, "Mixed precision block fused multiply-add",
 * SISC 42(3), 2020, for the blocked structure): an MMA computes s' = s + sum of b products in one
 * step.  The operands are in op_fmt (the launcher rounded the binary32 inputs to it, to nearest:
 * relative error <= u_op = 2^-p_op each, so a product is off by r = 2u_op + u_op^2 relative) and
 * their products are exact (8-, 11- or 16-bit significands: at most 22 bits).  The b + 1 addends
 * are aligned to the largest, M, in a window of p + t bits (p the accumulator's precision, t the
 * extra alignment bits), every bit below the window truncated, then the exact sum of the window
 * is normalised and rounded (or truncated) to p bits.  The window's last bit is at most
 * 2^(2-p-t) M (its top bit may sit one binade above M's when the hardware aligns unnormalised
 * products, significands in [1, 4)), so each addend loses less than that and the block
 *     s' = (s + sum p_i + delta)(1 + theta),  |delta| <= (b + 1) 2^(2-p-t) A,  |theta| < 2^(1-p),
 * A = |s| + sum |p_i| >= M.  Hence |s' - (s + sum p_i)| <= c A with
 *     c = 2^(1-p) + (b + 1) 2^(2-p-t) (1 + 2^(1-p)).
 * A step whose error is at most c times the magnitudes it adds behaves as one rounded addition
 * of unit roundoff c in Higham's tree argument (Higham (4.4)-(4.6): a term through D such steps;
 * by induction E_j <= (1 + c) E_(j-1) + c S_j, so E <= ((1 + c)^D - 1) S), so the products of
 * the rounded operands, S^ = sum |p_i| <= (1 + r) S, are accumulated within ((1 + c)^D - 1) S^,
 * and with the operand rounding
 *     |s^ - s| <= r S + (1 + r) ((1 + c)^D - 1) S                             (UG_BOUND_BLOCK_FMA)
 * D: the row's depth, the block steps (or plain roundings, c >= 2^(1-p) covers those) any term
 * passes through, at least one (ug_block_steps): K - 1 for a library whose order is unknown (every tree), ceil(K/4) for a
 * hand-written serial MMA loop (V100's 4-product blocks are the smallest published).
 * Parameters, an envelope of the published models rather than one GPU's (the probe,
 * measures them; a tighter class per GPU can follow from its table):
 *   b: at most the k of one MMA instruction, 16 for 16-bit operands and 32 for fp8 (the
 *      accumulator is written back to registers between instructions);
 *   t = 0 extra bits (the published models have 0 to 3: fewer bits only enlarge c);
 *   p: the accumulator's precision, acc_fmt's (binary32 24, binary16 11), except fp8 operands:
 *      13 (the fp8 MMA keeps "about 13-14 significant bits"; the smaller one).
 * UG_BOUND_BLOCK_FMA_PROMOTED: chunks of N = 128 terms each accumulated as above from zero
 * (depth D_in = depth(min(K, N))), each chunk's result (a p-bit number, exact in binary32) added
 * to a binary32 accumulator in order, m = ceil(K/N) rounded additions to nearest:
 *     |s^ - s| <= r S + (1 + r) (g_in + gamma_m(u) (1 + g_in)) S,  g_in = (1 + c)^D_in - 1.
 * Both assume no partial sum leaves the accumulator's range (fp16 accumulation: +inf beyond
 * 65504, ug_fmt_range_exceeded) and handle underflow in ug_kernel_bound_underflow.
 * Output (out_fmt): the accumulator itself (binary32; lt_f16_acc16's binary16 accumulator
 * widened exactly: no rounding), or a narrower format the binary32 result is rounded to once
 * more, to nearest (cuBLASLt's epilogue writing D in bf16 or fp16: lt_bf16_out_bf16,
 * lt_f16_out_f16).  That last rounding is the one of the other narrow-output classes
 * (ug_bound_terms' rounds_out): o = s^ (1 + d) + eta, |d| <= u_out = 2^-p_out (bf16 2^-8, fp16
 * 2^-11), |eta| <= eta_out / 2 (half the output's subnormal spacing: bf16 2^-134, fp16 2^-25,
 * only below its normal range, where d = 0), and |s^| <= |s| + b_acc, so
 *     |o - s| <= u_out |s| + (1 + u_out) b_acc + eta_out / 2,
 * b_acc the block_fma bound above plus its underflow term U (ug_block_underflow, which
 * ug_measure adds after this rounding: so that term carries the (1 + u_out) itself).  Range: an output whose |s| + b_acc reaches the output's overflow threshold may round
 * to +-inf (fp16: from 65520 on); ug_fmt_range_exceeded gives +inf (no bound) from S > 65504. */
enum { UG_BLOCK_PROMOTE_N = 128 };

/* UG_BOUND_BS_FP8_PROMOTED: DeepSeek-V3's recipe on block-scaled fp8 inputs (ops/gemm_bs.c:
 * e4m3 elements e, power-of-two scales s per 128 terms of K).  The tensor core multiplies the
 * elements and accumulates each chunk j of at most N = 128 terms from zero as the block model
 * above, with the fp8 parameters (b, t, p of e4m3 operands); the chunk's partial P_j then goes
 * to the CUDA cores, is multiplied by s_a s_b and added to a binary32 accumulator in order.
 *   - no operand rounding: the elements are the inputs (r = 0; the block_fma_promoted class
 *     carries r = 2u_op + u_op^2 for binary32 operands rounded to fp8, which does not apply);
 *   - chunk: |P_j - sum_j e_a e_b| <= g_in sum_j |e_a e_b|, g_in = (1 + c)^D_in - 1 (the
 *     induction above, D_in the block steps of a chunk);
 *   - scaling: s_a s_b is a power of two and P_j s_a s_b is exact (no overflow: |P_j| < 2^17
 *     and the scales are at most 2^119 each, no underflow: the underflow term below), so the
 *     scaled partial T_j carries the same g_in relative to S_j = sum_j |a s_a||b s_b|;
 *   - promotion: m = ceil(K/N) rounded binary32 additions of the T_j in order (Higham (4.4),
 *     recursive summation): within gamma_m(u) sum |T_j| <= gamma_m(u)(1 + g_in) S.
 * Hence |C^ - C| <= (g_in + gamma_m(u)(1 + g_in)) S, S = sum_k |a s_a||b s_b|: the promoted
 * class's accumulation term without the operand term. */

/* Per GPU (ug_block_models_set): the published model of the detected GPU, read from
 * reports/tensorcore/params.tsv (block, neab, the output's precision) by the harness, replaces
 * the envelope for the rows of its formats.  A model's block computes the steps of
 * oracle/tc/tcmodel.h; in this derivation's terms:
 *   b = block;
 *   p = p_out + min(neab, 0): the bits of a block's result (a negative neab is a narrower
 *       accumulator: the H100's fp8 keeps 24 - 10 = 14);
 *   t = max(neab, 0): every addend is cut to a multiple of 2^(m - 23 - neab - carry), m the
 *       largest addend's exponent after renormalisation (M >= 2^m), i.e. of at most
 *       2^(1 - p - t) M <= 2^(2 - p - t) M (the carry bit only makes the grid finer);
 *   alignment and final rounding toward zero (every published model) or to nearest: each
 *       loses less than the grid, resp. less than 2^(1-p) relative: the c above holds for both.
 * So c = 2^(1-p) + (b + 1) 2^(2-p-t) (1 + 2^(1-p)) with the GPU's own b, t, p: for the H100's
 * bf16 (16, 2, 24) 9.5 2^-23 against the envelope's 35 2^-23 (t = 0); its fp8 (32, 0, 14) half
 * the envelope's (p = 13).  The bound holds for the GPU if the published model is its
 * arithmetic: gpu_tcmodel asserts that, bit for bit, on the same GPU.  Where no row names the
 * detected GPU, the harness takes for each format pair the published row of the largest c
 * (the most pessimistic of the GPUs measured), documented in docs/tensor-cores.md. */
enum { UG_BLOCK_MODELS_MAX = 32 };
static ug_block_model ug_block_models[UG_BLOCK_MODELS_MAX];
static int ug_block_models_n;
static char ug_block_models_src[256] = "envelope";

void ug_block_models_set(const ug_block_model *m, int n, const char *source)
{
    ug_block_models_n = n < 0 ? 0 : n > UG_BLOCK_MODELS_MAX ? UG_BLOCK_MODELS_MAX : n;
    for (int i = 0; i < ug_block_models_n; i++) ug_block_models[i] = m[i];
    snprintf(ug_block_models_src, sizeof ug_block_models_src, "%s",
             ug_block_models_n && source ? source : "envelope");
}

const char *ug_block_models_source(void) { return ug_block_models_src; }

typedef struct {
    int b, t, p_acc, p_op; /* p_op 0: binary32 operands used as they are (no rounding) */
} ug_block_params;

static bool ug_fmt_is_fp8(ug_fmt f) { return f == UG_E4M3 || f == UG_E5M2; }

static ug_block_params ug_block_params_of(const ug_kernel *k)
{
    /* bs_fp8_promoted's operands are e4m3 elements whatever the row's op_fmt says (`ulpgate
     * check --bound bs_fp8_promoted` of binary32 files) */
    ug_fmt opf = k->bound == UG_BOUND_BS_FP8_PROMOTED ? UG_E4M3 : k->op_fmt;
    const ug_format *O = ug_format_of(opf), *A = ug_format_of(k->acc_fmt);
    ug_block_params q = {16, 0, A ? A->p : 24, O && opf != UG_F32 ? O->p : 0};
    if (ug_fmt_is_fp8(opf)) q.b = 32, q.p_acc = 13;
    if (k->bound == UG_BOUND_BS_FP8_PROMOTED) q.p_op = 0; /* the elements are the operands */
    ug_fmt acc = k->acc_fmt == UG_F16 ? UG_F16 : UG_F32; /* the model's accumulator */
    for (int i = 0; i < ug_block_models_n; i++)
        if (ug_block_models[i].op_fmt == opf && ug_block_models[i].acc_fmt == acc) {
            q.b = ug_block_models[i].b, q.t = ug_block_models[i].t, q.p_acc = ug_block_models[i].p;
            break;
        }
    return q;
}

/* c of one block (derivation above). */
static double ug_block_c(ug_block_params q)
{
    double ur = ldexp(1, 1 - q.p_acc);
    return ur + (q.b + 1) * ldexp(1, 2 - q.p_acc - q.t) * (1 + ur);
}

double ug_block_model_c(const ug_block_model *m)
{
    return ug_block_c((ug_block_params){m->b, m->t, m->p, 0});
}

/* r: a product's relative error from rounding both operands to nearest in op_fmt. */
static double ug_block_r(ug_block_params q)
{
    double uo = q.p_op ? ldexp(1, -q.p_op) : 0;
    return 2 * uo + uo * uo;
}

/* (1 + c)^D - 1: the induction's own bound (gamma_D(c) is its linearisation, valid only while
 * D c < 1), finite for every D until it overflows binary64 (then +inf).  The fp8 envelope's c is
 * ~2^-6, so a library's depth K - 1 gives a finite but useless bound from K ~ 100 on: the
 * honest worst case of a 13-bit truncating accumulator in an unknown order. */
static double ug_block_growth(double D, double c) { return expm1(D * log1p(c)); }

/* The block steps a term passes through: the row's depth, and at least one: a block rounds (or
 * truncates) its result to p bits even when it holds a single product, so K = 1 (depth 0) is one
 * step, not an exact result (the H100's lt_f16_acc16 at K = 1: a binary16 product truncated to
 * the binary16 accumulator, 0x1.114p+0 for 0x1.10fb0a86p+0, beyond r S alone). */
static double ug_block_steps(const ug_kernel *k, size_t n)
{
    size_t d = ug_kernel_depth(k, n);
    return (double)(d > 0 ? d : 1);
}

/* The accumulation's relative factor: (1 + c)^D - 1, or the promoted g_in + gamma_m(u)(1 + g_in)
 * (+inf past binary64's range). */
static double ug_block_acc(const ug_kernel *k, size_t n)
{
    double c = ug_block_c(ug_block_params_of(k));
    if (k->bound != UG_BOUND_BLOCK_FMA_PROMOTED && k->bound != UG_BOUND_BS_FP8_PROMOTED)
        return ug_block_growth(ug_block_steps(k, n), c);
    size_t in = n < UG_BLOCK_PROMOTE_N ? n : UG_BLOCK_PROMOTE_N;
    double g_in = ug_block_growth(ug_block_steps(k, in), c);
    double m = (double)((n + UG_BLOCK_PROMOTE_N - 1) / UG_BLOCK_PROMOTE_N);
    return g_in + ug_gamma(m, ug_u32) * (1 + g_in);
}

/* Unit roundoff 2^-p of a format (base/format.h), and half its subnormal spacing (below). */
static double ug_fmt_u(ug_fmt f)
{
    const ug_format *F = ug_format_of(f);
    return F ? ldexp(1, -F->p) : ug_u32;
}

/* Whether a block class's output format is narrower than its accumulator (the result rounded
 * once more: the derivation above). */
static bool ug_block_out_rounds(const ug_kernel *k)
{
    const ug_format *A = ug_format_of(k->acc_fmt), *O = ug_format_of(k->out_fmt);
    return A && O && O->p < A->p;
}

static double ug_bound_block_fma(const ug_kernel *k, size_t n, double S)
{
    double r = ug_block_r(ug_block_params_of(k)), acc = ug_block_acc(k, n);
    if (isinf(acc)) return INFINITY;
    return r * S + (1 + r) * acc * S;
}

/* The block classes' underflow term (the derivation of ug_kernel_bound_underflow below): an
 * operand rounded into op_fmt's subnormal range is off by at most its spacing eta (e4m3 2^-9,
 * the larger of the fp8 formats'; binary16 2^-24; bfloat16 2^-133), so a product of operands up
 * to M is off by at most 2 eta M (1 + u_op) + eta^2 beyond the relative r; the products of these
 * formats are exact binary32 normal numbers or zero (|p| >= 2^-18 for fp8, 2^-48 binary16,
 * 2^-266 bfloat16: products of bfloat16 subnormals may underflow binary32: 2^-149 each), carried
 * through the accumulation's (1 + acc). */
static double ug_block_underflow(const ug_kernel *k, size_t n, double operand_max)
{
    double eta;
    if (ug_fmt_is_fp8(k->op_fmt)) eta = 0x1p-9;
    else if (k->op_fmt == UG_F16) eta = 0x1p-24;
    else if (k->op_fmt == UG_BF16) eta = 0x1p-133;
    else return 0;
    if (!(operand_max <= 0x1p127)) return INFINITY;
    double uo = ldexp(1, -ug_block_params_of(k).p_op), acc = ug_block_acc(k, n);
    if (isinf(acc)) return INFINITY;
    double per = 2 * eta * operand_max * (1 + uo) + eta * eta + 0x1p-149;
    double out = ug_block_out_rounds(k) ? 1 + ug_fmt_u(k->out_fmt) : 1; /* the output's rounding */
    return (double)n * per * (1 + acc) * out * (1 + 0x1p-40);
}

/* Operand rounding with underflow (Higham (2.8)): |fl(a) - a| <= 2^-p |a| + eta, eta the
 * format's subnormal spacing (binary16 2^-24, bfloat16 2^-133, TF32 2^-136), so a product of
 * operands up to M in magnitude is off by at most (2^(1-p) + 2^-2p)|ab| (in the class) plus
 * eta (|a| + |b|)(1 + 2^-p) + eta^2 <= 2 eta M (1 + 2^-p) + eta^2; a product or a sum that
 * lands below binary32's normal range loses at most one subnormal spacing, 2^-149, each.  Per
 * output: K products (9K for bf16x9) carried through the accumulation's (1 + gamma_D(2u)). */
double ug_kernel_bound_underflow(const ug_kernel *k, size_t n, double operand_max)
{
    double eta, p, terms = (double)n;
    if (k->bound == UG_BOUND_BLOCK_FMA || k->bound == UG_BOUND_BLOCK_FMA_PROMOTED)
        return ug_block_underflow(k, n, operand_max);
    if (k->bound == UG_BOUND_BS_FP8_PROMOTED) {
        /* the elements' products are exact; a scaled partial P_j s_a s_b or a promotion's sum
         * below binary32's normal range loses at most half a subnormal spacing, 2^-150 each:
         * 2 m of them, m the chunks */
        double m = (double)((n + UG_BLOCK_PROMOTE_N - 1) / UG_BLOCK_PROMOTE_N);
        return 2 * m * 0x1p-150 * (1 + 0x1p-40);
    }
    switch (k->bound) {
    case UG_BOUND_TF32: eta = 0x1p-136, p = 10; break;
    case UG_BOUND_F16: eta = 0x1p-24, p = 10; break;
    case UG_BOUND_BF16: eta = 0x1p-133, p = 7; break;
    case UG_BOUND_BF16X9: eta = 0x1p-133, p = 6, terms *= 9; break;
    default: return 0;
    }
    if (!(operand_max <= 0x1p127)) return INFINITY;
    double D = (double)ug_kernel_depth(k, n) * (k->bound == UG_BOUND_BF16X9 ? 9 : 1);
    double per = 2 * eta * operand_max * (1 + ldexp(1, -(int)p)) + eta * eta + 2 * 0x1p-149;
    return terms * per * (1 + ug_gamma(D, 2 * ug_u32)) * (1 + 0x1p-40);
}

/* Half a format's subnormal spacing (ug_fmt_u: its unit roundoff, above). */

static double ug_fmt_half_eta(ug_fmt f)
{
    const ug_format *F = ug_format_of(f);
    return F ? ldexp(1, F->emin - F->p) : 0x1p-150;
}

/* The range limit of a 8/16-bit accumulator or output (binary32's and binary64's: the range
 * corpus cases): every partial sum of a tree is at most S in magnitude, the result at most
 * |s| + bound; beyond the format's max one of them may overflow (to inf, or e4m3's NaN), where
 * no rounding-error bound holds.  INFINITY then: the point is reported unchecked (measure.c's
 * bound_unchecked), never as a pass against a finite bound. */
static bool ug_fmt_range_exceeded(const ug_kernel *k, double S)
{
    const ug_format *A = ug_format_of(k->acc_fmt), *O = ug_format_of(k->out_fmt);
    return (A && A->bits > 0 && A->bits < 32 && S > A->max) ||
           (O && O->bits > 0 && O->bits < 32 && S > O->max);
}

double ug_bound_rows(const ug_kernel *k, size_t n, double S, double s_abs); /* bounds_rows.c */

double ug_bound_terms(const ug_kernel *k, ug_terms terms, size_t n, double S, double s_abs)
{
    if (k->bound >= UG_BOUND_SOFTMAX_NAIVE && k->bound != UG_BOUND_BS_FP8_PROMOTED)
        return ug_bound_rows(k, n, S, s_abs);
    if (!isfinite(S)) return INFINITY;
    if (ug_fmt_range_exceeded(k, S)) return INFINITY;
    double D = (double)ug_kernel_depth(k, n), nn = (double)n, b = 0;
    bool dot = terms == UG_TERMS_PRODUCTS;
    /* Formats (kernel.h: acc_fmt, out_fmt): the tree, Kahan and Neumaier classes accumulate in
     * acc_fmt with unit roundoff u_acc = 2^-p (binary32 for every row that names none: their
     * bounds are those of Higham's binary32 analysis, unchanged).  Where the output format
     * differs from the accumulator's, the accumulated s^ is rounded once more, to out_fmt:
     *   |fl_out(s^) - s| <= |fl_out(s^) - s^| + |s^ - s| <= u_out |s^| + eta_out/2 + b_acc
     *                    <= u_out |s| + (1 + u_out) b_acc + eta_out/2
     * (|s^| <= |s| + b_acc; eta_out/2: half the output's subnormal spacing, the absolute error
     * of a rounding in its subnormal range).  E.g. bfloat16 inputs, binary32 serial accumulation,
     * bfloat16 output: 2^-8 |s| + (1 + 2^-8) gamma_{n-1}(2^-24) S + 2^-134.  The inputs are
     * stored in their format and used as they are (no operand rounding: a bf16 value is a
     * binary32 one, a product of two 16-bit values is exact in binary32). */
    double ua = ug_fmt_u(k->acc_fmt), uo = ug_fmt_u(k->out_fmt);
    switch (k->bound) {
    case UG_BOUND_NONE: return 0;
    case UG_BOUND_TREE:
        b = ug_gamma(dot ? D + 1 : D, ua) * S;
        break;
    case UG_BOUND_KAHAN:
        /* Higham (4.8): (2u + O(n u^2)) S; the O(n u^2) term taken as 4 n u^2 (Goldberg's
         * Theorem 8 proof gives a smaller constant).  Dot: the products are rounded before the
         * compensated sum sees them, one more u. */
        b = ((dot ? 3 : 2) * ua + 4 * nn * ua * ua) * S;
        break;
    case UG_BOUND_NEUMAIER: {
        /* Ogita-Rump-Oishi (SISC 2005) Prop. 4.5 for Sum2 (= Neumaier's algorithm):
         * u|s| + gamma_{n-1}^2 S for the serial order.  In any order of depth D the main sums'
         * errors total at most u (sum of |partial sums|) <= u D S <= gamma_D S (each term is in
         * at most D partial sums), and summing them through depth D costs gamma_D of that: D
         * replaces n - 1 (the serial depth, the default).  Dot: the rounded products add u S. */
        double g = ug_gamma(D, ua);
        b = ua * s_abs + (dot ? ua + g * g : g * g) * S;
        break;
    }
    case UG_BOUND_WIDE_ACC: {
        /* a tree of depth D in a wider accumulator (acc_fmt when the row names one wider than
         * the output, else binary64: the class's definition), then one rounding to the output:
         * u_out |s^|, and |s^| <= |s| + gamma_D(u_acc) S (the derivation above; binary32
         * output: its subnormal half-spacing left out, as before). */
        double uw = ua < uo ? ua : ug_u64;
        b = uo * s_abs + (1 + uo) * ug_gamma(dot ? D + 1 : D, uw) * S;
        if (k->out_fmt != UG_F32) b += ug_fmt_half_eta(k->out_fmt);
        break;
    }
    case UG_BOUND_TF32:
    case UG_BOUND_F16:
    case UG_BOUND_BF16:
        b = ug_lowp_bound(ug_lowp_fraction_bits(k->bound), D, S);
        break;
    case UG_BOUND_BF16X9: {
        /* x = b1 + b2 + b3 exactly (8 significant bits each, 24 in all) for binary32-normal x,
         * sum |b_i| <= (1 + 2^-7 + 2^-14) |x| <= (1 + 2^-6) |x| whichever rounding splits it; the
         * 9 products b_i b'_j are exact in binary32 (16 bits) and sum to x y exactly; their 9K
         * terms accumulated in any order (depth <= 9K - 1), each addition allowed to truncate. */
        double terms = 9 * (D + 1), w = 1 + 0x1p-6;
        b = ug_gamma(terms - 1, 2 * ug_u32) * w * w * S;
        break;
    }
    case UG_BOUND_F64_TREE: b = ug_bound_f64_tree(D, dot, S); break;
    case UG_BOUND_F64_KAHAN: b = ug_bound_f64_kahan(nn, dot, S); break;
    case UG_BOUND_F16_ACC: b = ug_bound_f16_acc(D, dot, S); break;
    case UG_BOUND_BF16_OUT: b = ug_bound_bf16_out(D, dot, S, s_abs); break;
    case UG_BOUND_BLOCK_FMA:
    case UG_BOUND_BLOCK_FMA_PROMOTED:
    case UG_BOUND_BS_FP8_PROMOTED: b = ug_bound_block_fma(k, n, S); break;
    default: return INFINITY; /* the row classes: ug_bound_rows above */
    }
    /* (the block classes' output is the accumulator, a binary16 one widened exactly, or
     * narrower than it: then rounded once more, the derivation at ug_block_params) */
    bool rounds_out = k->out_fmt != k->acc_fmt && k->bound != UG_BOUND_WIDE_ACC &&
                      k->bound != UG_BOUND_TF32 && k->bound != UG_BOUND_F16 &&
                      k->bound != UG_BOUND_BF16 && k->bound != UG_BOUND_BF16X9 &&
                      ((k->bound != UG_BOUND_BLOCK_FMA && k->bound != UG_BOUND_BLOCK_FMA_PROMOTED &&
                        k->bound != UG_BOUND_BS_FP8_PROMOTED) ||
                       ug_block_out_rounds(k));
    if (rounds_out) /* the accumulator's s^ rounded to the output format (derivation above) */
        b = uo * s_abs + (1 + uo) * b + ug_fmt_half_eta(k->out_fmt);
    return ug_ftz_term(k, n, b) * (1 + 0x1p-40);
}

/* Higham & Mary, "A new approach to probabilistic rounding error analysis", SIAM J. Sci.
 * Comput. 41(5), 2019, Thm 3.1 and its corollaries for sums and dot products: with rounding
 * errors modelled as independent random variables of mean zero, a sum or dot of n terms through
 * depth D satisfies |error| <= gamma~_D(lambda) S with probability at least
 * 1 - 2n exp(-lambda^2 (1-u)^2 / 2), where gamma~_D(lambda) = exp(lambda sqrt(D) u + D u^2/(1-u)) - 1.
 * Only rounding to nearest is modelled (TF32's accumulation may truncate: no probabilistic
 * bound there), and only the classes whose worst case can be vacuous need it (tree; wide_acc
 * for completeness). */
static double ug_gamma_prob(double D, double u, double lambda)
{
    return expm1(lambda * sqrt(D) * u + D * u * u / (1 - u));
}

double ug_bound_prob_terms(const ug_kernel *k, ug_terms terms, size_t n, double S, double s_abs,
                           double lambda)
{
    if (!isfinite(S) || !(lambda > 0) || ug_fmt_range_exceeded(k, S)) return INFINITY;
    double D = (double)ug_kernel_depth(k, n);
    bool dot = terms == UG_TERMS_PRODUCTS;
    double b, ua = ug_fmt_u(k->acc_fmt), uo = ug_fmt_u(k->out_fmt); /* formats: as above */
    switch (k->bound) {
    case UG_BOUND_TREE:
        b = ug_gamma_prob(dot ? D + 1 : D, ua, lambda) * S;
        break;
    case UG_BOUND_WIDE_ACC:
        b = uo * s_abs + (1 + uo) * ug_gamma_prob(dot ? D + 1 : D, ua < uo ? ua : ug_u64, lambda) * S;
        if (k->out_fmt != UG_F32) b += ug_fmt_half_eta(k->out_fmt);
        break;
    case UG_BOUND_F16_ACC:
        /* binary16 accumulation under the same model (u16 = 2^-11), sums only.  A serial
         * binary16 sum of same-signed terms stagnates (every rounding of a large partial sum
         * goes the same way): the model's mean-zero independence fails, and this bound with
         * it, at large n, while the worst-case class (vacuous from D = 2048) cannot fail. */
        if (dot) return INFINITY;
        b = ug_gamma_prob(D, 0x1p-11, lambda) * S;
        break;
    default:
        return ug_bound_terms(k, terms, n, S, s_abs);
    }
    bool rounds_out = k->out_fmt != k->acc_fmt && k->bound != UG_BOUND_WIDE_ACC &&
                      k->bound != UG_BOUND_TF32 && k->bound != UG_BOUND_F16 &&
                      k->bound != UG_BOUND_BF16 && k->bound != UG_BOUND_BF16X9;
    if (rounds_out) /* the accumulator's s^ rounded to the output format (derivation above) */
        b = uo * s_abs + (1 + uo) * b + ug_fmt_half_eta(k->out_fmt);
    return ug_ftz_term(k, n, b) * (1 + 0x1p-40);
}

double ug_prob_failure(size_t n, double lambda)
{
    double p = 2.0 * (double)n * exp(-lambda * lambda * (1 - ug_u32) * (1 - ug_u32) / 2);
    return p < 1 ? p : 1;
}

const char *ug_bound_class_name(ug_bound_class b)
{
    switch (b) {
    case UG_BOUND_NONE: return "none";
    case UG_BOUND_TREE: return "tree";
    case UG_BOUND_KAHAN: return "kahan";
    case UG_BOUND_NEUMAIER: return "neumaier";
    case UG_BOUND_WIDE_ACC: return "wide_acc";
    case UG_BOUND_TF32: return "tf32";
    case UG_BOUND_F16: return "f16";
    case UG_BOUND_BF16: return "bf16";
    case UG_BOUND_BF16X9: return "bf16x9";
    case UG_BOUND_F64_TREE: return "f64_tree";
    case UG_BOUND_F64_KAHAN: return "f64_kahan";
    case UG_BOUND_F16_ACC: return "f16_acc";
    case UG_BOUND_BF16_OUT: return "bf16_out";
    case UG_BOUND_BLOCK_FMA: return "block_fma";
    case UG_BOUND_BLOCK_FMA_PROMOTED: return "block_fma_promoted";
    case UG_BOUND_SOFTMAX_NAIVE: return "softmax_naive";
    case UG_BOUND_SOFTMAX_SHIFTED: return "softmax_shifted";
    case UG_BOUND_SOFTMAX_ONLINE: return "softmax_online";
    case UG_BOUND_LSE_NAIVE: return "lse_naive";
    case UG_BOUND_LSE_SHIFTED: return "lse_shifted";
    case UG_BOUND_RMSNORM: return "rmsnorm";
    case UG_BOUND_LAYERNORM_TWOPASS: return "layernorm_twopass";
    case UG_BOUND_LAYERNORM_ONEPASS: return "layernorm_onepass";
    case UG_BOUND_LAYERNORM_WELFORD: return "layernorm_welford";
    case UG_BOUND_LSE_ONLINE: return "lse_online";
    case UG_BOUND_ATTN_NAIVE: return "attn_naive";
    case UG_BOUND_ATTN_NAIVE_BF16: return "attn_naive_bf16";
    case UG_BOUND_ATTN_UNSHIFTED: return "attn_unshifted";
    case UG_BOUND_ATTN_ONLINE: return "attn_online";
    case UG_BOUND_ATTN_FA2_BF16: return "attn_fa2_bf16";
    case UG_BOUND_ATTN_SPLIT_SIZE: return "attn_split_size";
    case UG_BOUND_ATTN_SPLIT_COUNT: return "attn_split_count";
    case UG_BOUND_ATTN_FA2_MMA: return "attn_fa2_mma";
    case UG_BOUND_BS_FP8_PROMOTED: return "bs_fp8_promoted";
    }
    return "?";
}

const char *ug_backend_name(ug_backend b) { return b == UG_CUDA ? "cuda" : "cpu"; }
