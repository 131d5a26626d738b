/*
 * bounds.c - the a-priori bound machinery itself: every declared depth function checked against
 * the depth of its tree as cases/order_sim.c simulates it (CPU and GPU kernels alike: the GPU
 * depth functions are host code), hand-computed values of every bound class and of the
 * probabilistic bound, and a kernel with a wrongly declared class caught by its bound ratio.
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cases/order_sim.h"
#include "harness/run/ug.h"

/* ---- depth by simulation ------------------------------------------------------------------------ */

/* Kernels whose declared depth is the tree's exact depth; the others (the grid-wide kernels:
 * serial slices of unequal length, a block tree over threads that may hold nothing) declare a
 * depth that must be at least the tree's. */
static bool ug_depth_exact(const ug_kernel *k)
{
    return k->backend == UG_CPU || k->depth == ug_depth_log2;
}

static void ug_check_depth(ug_t *t, const ug_kernel *k, size_t n)
{
    unsigned sim;
    ug_sim_sum(k->name, NULL, n, NULL, &sim);
    size_t declared = ug_kernel_depth(k, n);
    if (ug_depth_exact(k))
        UG_ASSERT_MSG(declared == sim, "%s, n=%zu: declared depth %zu, its tree has %u", k->id, n,
                      declared, sim);
    else
        UG_ASSERT_MSG(declared >= sim, "%s, n=%zu: declared depth %zu below its tree's %u", k->id,
                      n, declared, sim);
}

UG_CASE(bounds, depth_functions_match_trees)
{
    /* Every n up to 3000 and a few large ones, every kernel whose order is simulated. */
    static const size_t big[] = {4097, 65535, 65536, 65537, 262145, 1000000, 1000001,
                                 ((size_t)1 << 22) + 1};
    size_t checked = 0;
    for (size_t i = 0; i < ug_kernel_count(); i++) {
        const ug_kernel *k = ug_kernel_at(i);
        if (k->op != UG_OP_SUM || !ug_sim_known(k->name) || strcmp(k->variant, "default") != 0)
            continue;
        for (size_t n = 1; n <= 3000; n++) ug_check_depth(t, k, n);
        for (size_t b = 0; b < sizeof big / sizeof big[0]; b++)
            if (!k->max_n || big[b] <= k->max_n) ug_check_depth(t, k, big[b]);
        checked++;
    }
    ug_note(t, "%zu kernels' depth functions checked against their simulated trees", checked);
    UG_EXPECT_MSG(checked >= 8, "only %zu kernels with a simulated order", checked);
}

/* A bound computed by kernels/bounds.c against the same formula written out here (binary64,
 * so within a few ulps of binary64; bounds.c adds a factor 1 + 2^-40 on purpose). */
static void ug_expect_bound(ug_t *t, const char *what, double got, double want)
{
    UG_EXPECT_MSG(got >= want && got <= want * (1 + 0x1p-39), "%s: bound %.17g, by hand %.17g",
                  what, got, want);
}

/* A registry row of the given class and op, with its depth function replaced by a fixed depth
 * so that the hand formula sees a known D. */
static size_t ug_depth_fixed5(size_t n) { return n ? 5 : 0; }

static ug_kernel ug_row_of(ug_bound_class bound, ug_op op)
{
    ug_kernel k;
    memset(&k, 0, sizeof k);
    k.name = "hand";
    k.op = op;
    k.bound = bound;
    k.depth = ug_depth_fixed5;
    return k;
}

UG_CASE(bounds, class_values)
{
    /* Every class by hand, u = 2^-24, gamma_k(u) = k u / (1 - k u); n = 100 terms, D = 5,
     * S = 3, |s| = 2. */
    const double u = 0x1p-24, u64 = 0x1p-53, n = 100, S = 3, s = 2;
#define G(k, uu) ((k) * (uu) / (1 - (k) * (uu)))
    ug_kernel k = ug_row_of(UG_BOUND_TREE, UG_OP_SUM);
    ug_expect_bound(t, "tree sum: gamma_D S", ug_kernel_bound(&k, 100, S, s), G(5, u) * S);
    k = ug_row_of(UG_BOUND_TREE, UG_OP_DOT);
    ug_expect_bound(t, "tree dot: gamma_{D+1} S", ug_kernel_bound(&k, 100, S, s), G(6, u) * S);
    k = ug_row_of(UG_BOUND_KAHAN, UG_OP_SUM);
    ug_expect_bound(t, "kahan sum: (2u + 4 n u^2) S", ug_kernel_bound(&k, 100, S, s),
                    (2 * u + 4 * n * u * u) * S);
    k = ug_row_of(UG_BOUND_KAHAN, UG_OP_GEMM);
    ug_expect_bound(t, "kahan gemm: (3u + 4 n u^2) S", ug_kernel_bound(&k, 100, S, s),
                    (3 * u + 4 * n * u * u) * S);
    k = ug_row_of(UG_BOUND_NEUMAIER, UG_OP_SUM);
    ug_expect_bound(t, "neumaier sum: u|s| + gamma_D^2 S", ug_kernel_bound(&k, 100, S, s),
                    u * s + G(5, u) * G(5, u) * S);
    k = ug_row_of(UG_BOUND_NEUMAIER, UG_OP_DOT);
    ug_expect_bound(t, "neumaier dot: u|s| + (u + gamma_D^2) S", ug_kernel_bound(&k, 100, S, s),
                    u * s + (u + G(5, u) * G(5, u)) * S);
    k.depth = NULL; /* serial: D = n - 1, Ogita-Rump-Oishi's gamma_{n-1}^2 */
    ug_expect_bound(t, "neumaier serial dot: u|s| + (u + gamma_{n-1}^2) S", ug_kernel_bound(&k, 100, S, s),
                    u * s + (u + G(99, u) * G(99, u)) * S);
    k = ug_row_of(UG_BOUND_TREE, UG_OP_SUM);
    k.ftz = true;
    ug_expect_bound(t, "flush to zero: gamma_D S + (2n - 1) 2^-126", ug_kernel_bound(&k, 100, S, s),
                    G(5, u) * S + 199 * 0x1p-126);
    k = ug_row_of(UG_BOUND_WIDE_ACC, UG_OP_SUM);
    ug_expect_bound(t, "wide_acc sum: u|s| + (1+u) gamma64_D S", ug_kernel_bound(&k, 100, S, s),
                    u * s + (1 + u) * G(5, u64) * S);
    /* formats: a binary64 tree; bf16 in, binary32 accumulation, bf16 out (u_out = 2^-8); a
     * binary16 accumulator whose partial sums may pass 65504: no finite bound */
    k = ug_row_of(UG_BOUND_TREE, UG_OP_SUM);
    k.acc_fmt = k.out_fmt = UG_F64;
    ug_expect_bound(t, "f64 tree sum: gamma_D(2^-53) S", ug_kernel_bound(&k, 100, S, s),
                    G(5, u64) * S);
    k = ug_row_of(UG_BOUND_TREE, UG_OP_SUM);
    k.in_store[0] = k.out_fmt = UG_BF16;
    ug_expect_bound(t, "bf16>f32>bf16 sum: u_out|s| + (1 + u_out) gamma_D(u) S + eta_out/2",
                    ug_kernel_bound(&k, 100, S, s),
                    0x1p-8 * s + (1 + 0x1p-8) * G(5, u) * S + 0x1p-134);
    k = ug_row_of(UG_BOUND_WIDE_ACC, UG_OP_DOT);
    k.acc_fmt = UG_F32, k.out_fmt = UG_F16;
    ug_expect_bound(t, "f16 out, f32 accumulator (wide_acc): u16|s| + (1+u16) gamma_{D+1}(u) S + 2^-25",
                    ug_kernel_bound(&k, 100, S, s),
                    0x1p-11 * s + (1 + 0x1p-11) * G(6, u) * S + 0x1p-25);
    k = ug_row_of(UG_BOUND_TREE, UG_OP_SUM);
    k.acc_fmt = k.out_fmt = UG_F16;
    UG_EXPECT_MSG(isinf(ug_kernel_bound(&k, 100, 70000.0, 1.0)) &&
                  isfinite(ug_kernel_bound(&k, 100, 60000.0, 1.0)),
                  "f16 accumulator: partial sums up to S = 70000 may overflow: no finite bound");
    k = ug_row_of(UG_BOUND_TF32, UG_OP_GEMM);
    double p = 0x1p-9 + 0x1p-20;
    ug_expect_bound(t, "tf32: (p + gamma_D(2u) (1 + p)) S", ug_kernel_bound(&k, 100, S, s),
                    (p + G(5, 2 * u) * (1 + p)) * S);
    k = ug_row_of(UG_BOUND_F16, UG_OP_GEMM);
    ug_expect_bound(t, "f16: as tf32 (10 fraction bits)", ug_kernel_bound(&k, 100, S, s),
                    (p + G(5, 2 * u) * (1 + p)) * S);
    UG_EXPECT_MSG(ug_kernel_operand_limit(&k) == 65504.0, "f16: operands up to 65504");
    ug_expect_bound(t, "f16 underflow: K (2 eta M (1 + 2^-10) + eta^2 + 2^-148)(1 + gamma_D(2u))",
                    ug_kernel_bound_underflow(&k, 100, 2.0),
                    100 * (2 * 0x1p-24 * 2 * (1 + 0x1p-10) + 0x1p-48 + 0x1p-148) * (1 + G(5, 2 * u)));
    k = ug_row_of(UG_BOUND_BF16, UG_OP_GEMM);
    double p7 = 0x1p-6 + 0x1p-14;
    ug_expect_bound(t, "bf16: (p + gamma_D(2u) (1 + p)) S, p = 2^-6 + 2^-14", ug_kernel_bound(&k, 100, S, s),
                    (p7 + G(5, 2 * u) * (1 + p7)) * S);
    UG_EXPECT_MSG(isinf(ug_kernel_operand_limit(&k)), "bf16: binary32's range");
    k = ug_row_of(UG_BOUND_BF16X9, UG_OP_GEMM);
    ug_expect_bound(t, "bf16x9: gamma_{9(D+1)-1}(2u) (1 + 2^-6)^2 S", ug_kernel_bound(&k, 100, S, s),
                    G(53, 2 * u) * (1 + 0x1p-6) * (1 + 0x1p-6) * S);
    k = ug_row_of(UG_BOUND_TREE, UG_OP_GEMM);
    UG_EXPECT_MSG(ug_kernel_bound_underflow(&k, 100, 2.0) == 0, "tree: no operand rounding, no underflow term");
    k = ug_row_of(UG_BOUND_NONE, UG_OP_SUM);
    UG_EXPECT_MSG(ug_kernel_bound(&k, 100, S, s) == 0, "class none: bound 0 (no bound)");
    /* a build that may reassociate keeps only the order-free depth, n - 1 */
    const ug_kernel *strict = ug_kernel_find("pairwise_halves@default");
    const ug_kernel *fast = ug_kernel_find("pairwise_halves@fastmath");
    UG_ASSERT_MSG(strict && fast, "pairwise_halves@default and @fastmath are registered");
    UG_EXPECT_MSG(ug_kernel_depth(strict, 1000) == 10 && ug_kernel_depth(fast, 1000) == 999,
                  "depth at n = 1000: @default %zu (want 10), @fastmath %zu (want 999)",
                  ug_kernel_depth(strict, 1000), ug_kernel_depth(fast, 1000));
    /* vacuous worst case: D u >= 1 */
    k = ug_row_of(UG_BOUND_TREE, UG_OP_SUM);
    k.depth = ug_depth_serial;
    UG_EXPECT_MSG(isinf(ug_kernel_bound(&k, (size_t)1 << 25, S, s)), "gamma_{2^25 - 1}: vacuous, +inf");
    UG_EXPECT_MSG(isinf(ug_kernel_bound(&k, 100, INFINITY, s)), "non-finite S: infinite bound");
    UG_EXPECT_MSG(ug_kernel_bound(&k, 1, 5.0, 5.0) == 0, "one term: no rounding, bound 0");
    /* the probabilistic bound (Higham & Mary): expm1(lambda sqrt(D) u + D u^2 / (1 - u)) S */
    k = ug_row_of(UG_BOUND_TREE, UG_OP_SUM);
    ug_expect_bound(t, "probabilistic tree sum, lambda 9", ug_kernel_bound_prob(&k, 100, S, s, 9),
                    expm1(9 * sqrt(5.0) * u + 5 * u * u / (1 - u)) * S);
    k = ug_row_of(UG_BOUND_TREE, UG_OP_DOT);
    ug_expect_bound(t, "probabilistic tree dot, lambda 9", ug_kernel_bound_prob(&k, 100, S, s, 9),
                    expm1(9 * sqrt(6.0) * u + 6 * u * u / (1 - u)) * S);
    k.depth = ug_depth_serial;
    double big = ug_kernel_bound_prob(&k, (size_t)1 << 26, S, s, 9);
    UG_EXPECT_MSG(isfinite(big) && big < 0.01 * S, "2^26 terms: probabilistic bound %.3g S finite and small", big / S);
    double pf = ug_prob_failure(1000, 9);
    UG_EXPECT_MSG(fabs(pf / (2000 * exp(-81 * (1 - u) * (1 - u) / 2)) - 1) < 1e-12,
                  "failure probability 2n exp(-lambda^2 (1-u)^2/2): %.6g", pf);
#undef G
}

/* serial_f32's code under a pairwise class: the bound ratio must expose the wrong declaration. */
static ug_kernel ug_misdeclared_row(const ug_kernel *serial)
{
    ug_kernel k = *serial;
    k.name = "serial_f32_declared_pairwise";
    k.depth = ug_depth_log2;
    k.doc = "serial summation wrongly declared with depth ceil(log2 n)";
    snprintf(k.id, sizeof k.id, "%s@%s", k.name, k.variant);
    return k;
}

UG_CASE(bounds, wrong_class_is_caught)
{
    /* 1 followed by 4095 copies of 2^-24: each small term is lost against 1 (ties to even), so
     * the serial error is 4095 * 2^-24, while the pairwise bound is only
     * gamma_12 * (1 + 4095 * 2^-24) ~ 12 * 2^-24: ratio ~ 340. */
    enum { N = 4096 };
    float *x = malloc(N * sizeof *x);
    UG_ASSERT(x != NULL);
    x[0] = 1.0f;
    for (int i = 1; i < N; i++) x[i] = 0x1p-24f;
    ug_input *in = ug_input_from_data(t, UG_OP_SUM, "one_then_half_ulps", x, NULL, N);
    free(x);
    const ug_kernel *serial = ug_kernel_find("serial_f32");
    UG_ASSERT(serial != NULL);
    static ug_kernel misdeclared;
    misdeclared = ug_misdeclared_row(serial);
    ug_result *wrong = ug_measure(t, &misdeclared, in);
    ug_xfail(t, "serial summation declared with a pairwise depth on purpose: its ratio must exceed 1");
    UG_EXPECT_BOUND_RATIO_MAX(wrong, 1.0);
    UG_EXPECT_MSG(wrong->bound_ratio_max > 100, "ratio %.3g: the wrong class went unnoticed",
                  wrong->bound_ratio_max);
    ug_result *right = ug_measure(t, ug_kernel_find("serial_f32"), in);
    UG_EXPECT_BOUND_RATIO_MAX(right, 1.0); /* the true class (D = n-1) holds */
}

/* The tensor-core classes (kernels/bounds.c, "blocked fused accumulation") by hand: c =
 * 2^(1-p) + (b + 1) 2^(2-p-t) (1 + 2^(1-p)) with t = 0; b = 16, p = acc_fmt's for 16-bit
 * operands, b = 32, p = 13 for fp8; r = 2 u_op + u_op^2. */
UG_CASE(bounds, block_fma_values)
{
    const double u = 0x1p-24, S = 3, s = 2;
#define G(k, uu) ((k) * (uu) / (1 - (k) * (uu)))
#define E(d, cc) expm1((d) * log1p(cc))
#define C(b, p) (ldexp(1, 1 - (p)) + ((b) + 1) * ldexp(1, 2 - (p)) * (1 + ldexp(1, 1 - (p))))
#define R(pop) (2 * ldexp(1, -(pop)) + ldexp(1, -(pop)) * ldexp(1, -(pop)))
    ug_kernel k = ug_row_of(UG_BOUND_BLOCK_FMA, UG_OP_GEMM);
    k.op_fmt = UG_BF16;
    double c = C(16, 24), r = R(8);
    ug_expect_bound(t, "block_fma bf16 -> f32: r S + (1 + r) ((1 + c)^D - 1) S",
                    ug_kernel_bound(&k, 100, S, s), r * S + (1 + r) * E(5, c) * S);
    k.op_fmt = UG_F16;
    k.acc_fmt = UG_F16;
    c = C(16, 11), r = R(11);
    ug_expect_bound(t, "block_fma f16 -> f16 accumulator (p = 11)", ug_kernel_bound(&k, 100, S, s),
                    r * S + (1 + r) * E(5, c) * S);
    UG_EXPECT_MSG(isinf(ug_kernel_bound(&k, 100, 70000, s)),
                  "block_fma, binary16 accumulator: S beyond 65504, no bound");
    UG_EXPECT_MSG(ug_kernel_operand_limit(&k) == 65504.0, "block_fma f16: operands up to 65504");
    k = ug_row_of(UG_BOUND_BLOCK_FMA, UG_OP_GEMM);
    k.op_fmt = UG_E4M3;
    c = C(32, 13), r = R(4);
    ug_expect_bound(t, "block_fma e4m3: b = 32, p = 13", ug_kernel_bound(&k, 100, S, s),
                    r * S + (1 + r) * E(5, c) * S);
    UG_EXPECT_MSG(ug_kernel_operand_limit(&k) == 448.0, "block_fma fp8: operands up to 448");
    k.depth = NULL; /* every order: D = K - 1: finite while (1 + c)^D fits binary64 */
    ug_expect_bound(t, "block_fma e4m3, D = 4095: (1 + c)^D - 1 beyond gamma's range",
                    ug_kernel_bound(&k, 4096, S, s), r * S + (1 + r) * E(4095, c) * S);
    UG_EXPECT_MSG(isinf(ug_kernel_bound(&k, 65536, S, s)), "block_fma e4m3, D = 65535: overflows");
    k = ug_row_of(UG_BOUND_BLOCK_FMA_PROMOTED, UG_OP_GEMM);
    k.op_fmt = UG_E4M3;
    /* n = 1000: chunks of 128 at depth 5 each, m = 8 chunks added in binary32 */
    double g_in = E(5, c), acc = g_in + G(8, u) * (1 + g_in);
    ug_expect_bound(t, "block_fma_promoted e4m3, n = 1000: g_in + gamma_m(u)(1 + g_in)",
                    ug_kernel_bound(&k, 1000, S, s), r * S + (1 + r) * acc * S);
    k = ug_row_of(UG_BOUND_BLOCK_FMA, UG_OP_GEMM);
    k.op_fmt = UG_BF16;
    ug_expect_bound(t, "block_fma bf16 underflow: K (2 eta M (1 + u_op) + eta^2 + 2^-149)(1 + acc)",
                    ug_kernel_bound_underflow(&k, 100, 2.0),
                    100 * (2 * 0x1p-133 * 2 * (1 + 0x1p-8) + 0x1p-266 + 0x1p-149) *
                        (1 + E(5, C(16, 24))));
    /* a bf16 / fp16 D under the binary32 accumulator (lt_bf16_out_bf16, lt_f16_out_f16): the
     * accumulator's bound b_acc, then one rounding to nearest: u_out |s| + (1 + u_out) b_acc +
     * eta_out / 2; the underflow term carries the (1 + u_out) too */
    k = ug_row_of(UG_BOUND_BLOCK_FMA, UG_OP_GEMM);
    k.op_fmt = UG_BF16, k.acc_fmt = UG_F32, k.out_fmt = UG_BF16;
    c = C(16, 24), r = R(8);
    double bacc = r * S + (1 + r) * E(5, c) * S;
    ug_expect_bound(t, "block_fma bf16 -> f32 -> bf16 out: u_out |s| + (1 + u_out) b_acc + 2^-134",
                    ug_kernel_bound(&k, 100, S, s), 0x1p-8 * s + (1 + 0x1p-8) * bacc + 0x1p-134);
    ug_expect_bound(t, "block_fma bf16 out: underflow term times (1 + u_out)",
                    ug_kernel_bound_underflow(&k, 100, 2.0),
                    100 * (2 * 0x1p-133 * 2 * (1 + 0x1p-8) + 0x1p-266 + 0x1p-149) *
                        (1 + E(5, C(16, 24))) * (1 + 0x1p-8));
    k.op_fmt = UG_F16, k.out_fmt = UG_F16;
    r = R(11), bacc = r * S + (1 + r) * E(5, c) * S;
    ug_expect_bound(t, "block_fma f16 -> f32 -> f16 out: u_out |s| + (1 + u_out) b_acc + 2^-25",
                    ug_kernel_bound(&k, 100, S, s), 0x1p-11 * s + (1 + 0x1p-11) * bacc + 0x1p-25);
    UG_EXPECT_MSG(isinf(ug_kernel_bound(&k, 100, 70000, s)),
                  "block_fma, binary16 output: S beyond 65504, no bound");
    k.out_fmt = UG_F32, k.acc_fmt = UG_F16; /* lt_f16_acc16: widened exactly, no output term */
    c = C(16, 11);
    ug_expect_bound(t, "block_fma f16 accumulator widened to f32: no output rounding",
                    ug_kernel_bound(&k, 100, S, s), r * S + (1 + r) * E(5, c) * S);
    /* a GPU's published model replaces the envelope for its formats (ug_block_models_set: the
     * H100's bf16 row, b = 16, t = neab = 2, p = 24; fp8 b = 32, t = 0, p = 24 - 10 = 14), and
     * only for those; n = 0 restores the envelope */
    static const ug_block_model h100[] = {{UG_BF16, UG_F32, 16, 2, 24}, {UG_E4M3, UG_F32, 32, 0, 14}};
    ug_block_models_set(h100, 2, "test: H100");
    k = ug_row_of(UG_BOUND_BLOCK_FMA, UG_OP_GEMM);
    k.op_fmt = UG_BF16;
    c = ldexp(1, -23) + 17 * ldexp(1, -24) * (1 + ldexp(1, -23)), r = R(8);
    ug_expect_bound(t, "block_fma bf16 on the H100's model: c = 2^-23 + 17 2^-24 (1 + 2^-23)",
                    ug_kernel_bound(&k, 100, S, s), r * S + (1 + r) * E(5, c) * S);
    k.op_fmt = UG_E4M3;
    c = C(32, 14), r = R(4);
    ug_expect_bound(t, "block_fma e4m3 on the H100's model: b = 32, p = 14",
                    ug_kernel_bound(&k, 100, S, s), r * S + (1 + r) * E(5, c) * S);
    k.op_fmt = UG_F16; /* no model for f16: the envelope */
    c = C(16, 24), r = R(11);
    ug_expect_bound(t, "block_fma f16 without a model: the envelope", ug_kernel_bound(&k, 100, S, s),
                    r * S + (1 + r) * E(5, c) * S);
    UG_EXPECT_MSG(strcmp(ug_block_models_source(), "test: H100") == 0, "source %s",
                  ug_block_models_source());
    ug_block_models_set(NULL, 0, NULL);
    k.op_fmt = UG_BF16;
    c = C(16, 24), r = R(8);
    ug_expect_bound(t, "block_fma bf16 after ug_block_models_set(NULL, 0): the envelope again",
                    ug_kernel_bound(&k, 100, S, s), r * S + (1 + r) * E(5, c) * S);
    UG_EXPECT_MSG(strcmp(ug_block_models_source(), "envelope") == 0, "source %s",
                  ug_block_models_source());
    UG_EXPECT_MSG(strcmp(ug_bound_class_name(UG_BOUND_BLOCK_FMA), "block_fma") == 0 &&
                      strcmp(ug_bound_class_name(UG_BOUND_BLOCK_FMA_PROMOTED), "block_fma_promoted") == 0,
                  "block class names");
#undef G
#undef C
#undef E
#undef R
}

/* ---- the block_fma class against a simulated truncating block FMA ------------------------------ */

/* x truncated toward zero to a multiple of q (a power of two): exact in binary64 while |x|/q
 * < 2^53. */
static double ug_trunc_to(double x, double q) { return trunc(x / q) * q; }

/* x truncated toward zero to p significant bits. */
static double ug_trunc_bits(double x, int p)
{
    if (x == 0) return 0;
    return ug_trunc_to(x, ldexp(1, ilogb(x) - p + 1));
}

/* The model of kernels/bounds.c at its worst: blocks of b products (exact binary64 numbers)
 * added to the accumulator s in one step, every addend truncated toward zero to the window's
 * last bit 2^(2-p-t) 2^e (e = ilogb of the largest addend, the window's top bit one binade above
 * it), the exact sum of the window truncated to p bits.  K products in order: ceil(K/b) steps. */
static double ug_block_sim(const double *prod, size_t K, int b, int p, int t)
{
    double s = 0;
    for (size_t k0 = 0; k0 < K; k0 += (size_t)b) {
        size_t kend = K - k0 < (size_t)b ? K : k0 + (size_t)b;
        double m = fabs(s);
        for (size_t k = k0; k < kend; k++) m = fabs(prod[k]) > m ? fabs(prod[k]) : m;
        if (m == 0) continue;
        double q = ldexp(1, ilogb(m) + 2 - p - t), sum = ug_trunc_to(s, q);
        for (size_t k = k0; k < kend; k++) sum += ug_trunc_to(prod[k], q); /* exact: < 2^53 q */
        s = ug_trunc_bits(sum, p);
    }
    return s;
}

static size_t ug_depth_blocks16(size_t n) { return (n + 15) / 16; }

/* Operands used as they are (op_fmt binary32: r = 0, so the accumulation term alone is
 * tested), bf16-valued data, binary32 accumulator, b = 16, t = 0, depth ceil(K/16): the simulated model's error must stay within the class on random data and
 * on the adversarial set where every small product falls just below the window (each block
 * loses almost b window quanta: what the (b + 1) 2^(2-p-t) term of c pays for). */
UG_CASE(bounds, block_fma_model)
{
    enum { K = 4096 };
    static double a[K], bv[K], prod[K];
    ug_kernel k = ug_row_of(UG_BOUND_BLOCK_FMA, UG_OP_GEMM);
    k.depth = ug_depth_blocks16;
    uint64_t s = ug_seed(t) | 1;
    double worst = 0;
    for (int set = 0; set < 2; set++) {
        for (size_t i = 0; i < K; i++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            double u = (double)(s >> 11) * 0x1p-53;
            if (set == 0) { /* random bf16 values in (-1, 1) */
                a[i] = ldexp(trunc(ldexp(u * 2 - 1, 8)), -8);
                bv[i] = ldexp(trunc(ldexp((double)((s >> 3) & 0xffff) * 0x1p-16, 8)), -8);
            } else { /* one large first product, then products just below the window */
                a[i] = i == 0 ? 1.0 : 0x1.fep-23; /* bf16: 8 significant bits */
                bv[i] = 1.0;
            }
            prod[i] = a[i] * bv[i];
        }
        ug_exact x;
        ug_exact_dot_f64(a, 1, bv, 1, K, &x);
        double got = ug_block_sim(prod, K, 16, 24, 0);
        double err = fabs((got - x.hi) - x.lo);
        double bound = ug_kernel_bound(&k, K, x.sum_abs, fabs(x.hi));
        double ratio = err / bound;
        worst = ratio > worst ? ratio : worst;
        UG_EXPECT_MSG(ratio <= 1, "%s set: model %a, exact %a, error %.3g > bound %.3g",
                      set ? "adversarial" : "random", got, x.hi, err, bound);
        if (set == 1) /* the adversarial set must come near the bound, or the test shows nothing */
            UG_EXPECT_MSG(ratio > 0.5, "adversarial set: ratio %.3g, the model lost too little",
                          ratio);
    }
    ug_note(t, "block_fma (b = 16, t = 0, p = 24) against the simulated model: worst ratio %.3g",
            worst);
}
