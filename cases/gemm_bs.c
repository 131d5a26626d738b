/*
 * gemm_bs.c - the block-scaled GEMM (ops/gemm_bs.c: e4m3 elements, UE8M0 scales per 1 x 128
 * tile of A and 128 x 128 block of B), its CPU kernels against the exact product of the
 * block-scaled inputs (kernels/cpu/gemm_bs.c).
 *
 * What is asserted, and why:
 *  - random data (normal, uniform01), shapes around the 128-term chunk and the 32-product
 *    block: the dequantize-then-binary32 kernel within tree (gamma_K S) and DeepSeek-V3's recipe
 *    within bs_fp8_promoted, bound ratio <= 1 (kernels/bounds.c);
 *  - long K (8192, 32768) of uniform01 data (every product positive: the 14-bit truncating
 *    accumulator loses most where the running sum dwarfs each new block): the promoted recipe
 *    passes its class, the same kernel without promotion fails it -- why DeepSeek-V3 promotes;
 *  - block maxima: blocks whose largest value decides the scale (exactly 448 2^e, just above
 *    it, a block of zeros, a block of e4m3 subnormals, neighbouring blocks 2^40 apart): every
 *    kernel within its class.
 * Printed (bf16_vs_bs): the error of the block-scaled product and of a bf16 product of the same
 * binary32 data against the binary32 data's exact product, each difference exact: the oracle's
 * record of the GEMM of [Q(A) | A] and [Q(B); -B] (2K terms) is sum Q(a)Q(b) - a b, rounded
 * once; bf16's asserted within (2^-7 + 2^-16) S.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bsfp8.h"
#include "harness/run/ug.h"
#include "ops/op.h"

static const size_t ug_bs_shapes[][3] = {
    {1, 1, 1}, {1, 1, 127}, {3, 5, 128}, {4, 4, 129}, {16, 16, 256}, {7, 130, 300}, {8, 8, 1000},
};

static bool ug_bs_unpromoted(const ug_kernel *k) { return strstr(k->name, "unpromoted") != NULL; }

static const ug_param ug_bs_dists[] = {
    {"uniform01", UG_UNIFORM(0, 1)},
    {"normal", UG_NORMAL(0, 1)},
};

UG_CASE_OVER(gemm_bs, ug_bs_dists, 0)
{
    const ug_param *p = ug_param_of(t);
    for (size_t i = 0; i < sizeof ug_bs_shapes / sizeof ug_bs_shapes[0]; i++) {
        const size_t *s = ug_bs_shapes[i];
        if (!ug_n_selected(t, s[0])) continue;
        ug_input *in = ug_input_make_shape(t, UG_OP_GEMM_BS, &p->dist,
                                           &(ug_shape){{s[0], s[1], s[2]}}, 2);
        UG_FOR_KERNELS(t, k, UG_OP_GEMM_BS, UG_CPU, "*") {
            if (ug_bs_unpromoted(k) && s[2] > UG_BS_TILE) continue; /* gemm_bs/long_k's */
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c */
        }
        ug_input_free(t, in);
    }
}

/* Long K: the promoted kernel within its class, the unpromoted one past it. */
static const size_t ug_bs_long_ks[] = {8192, 32768};

UG_CASE(gemm_bs, long_k)
{
    const ug_dist d = UG_UNIFORM(0, 1);
    UG_FOR_N(t, K, ug_bs_long_ks) {
        ug_input *in = ug_input_make_shape(t, UG_OP_GEMM_BS, &d, &(ug_shape){{4, 4, K}}, 1);
        UG_FOR_KERNELS(t, k, UG_OP_GEMM_BS, UG_CPU, "gemm_bs_fp8_*") {
            ug_result *r = ug_measure(t, k, in);
            if (ug_bs_unpromoted(k))
                ug_xfail(t, "no promotion: K products in the 14-bit truncating accumulator "
                            "exceed the class of the promoted recipe");
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
        }
        ug_input_free(t, in);
    }
}

/* Edge data, quantized with the format's rule: row i of A (K = 512: four tiles) and column j of
 * B, each tile or block one of the maxima below. */
static double ug_bs_edge_value(size_t r, size_t c, size_t which)
{
    double frac = (double)((r * 7 + c * 13) % 97) / 97.0 - 0.5; /* in [-0.5, 0.5) */
    switch (which % 6) {
    case 0: return c % 61 == 0 ? 448.0 : 448.0 * frac;            /* amax exactly 448: 2^0 */
    case 1: return c % 61 == 0 ? 0x1.01p8 * 1.75 : 300.0 * frac;  /* just above 448 */
    case 2: return 0.0;                                            /* an all-zero block */
    case 3: return c % 61 == 0 ? 0x1p-20 : 0x1p-35 * frac;         /* subnormal elements */
    case 4: return 0x1p40 * frac;                                  /* 2^40 above the next */
    default: return 0x1p-40 * (frac + 1.0);
    }
}

UG_CASE(gemm_bs, block_maxima)
{
    const size_t M = 6, N = 6, K = 512;
    float *A = malloc(M * K * sizeof *A), *B = malloc(K * N * sizeof *B);
    if (!A || !B) {
        free(A), free(B);
        ug_skip(t, "out of memory");
        return;
    }
    for (size_t i = 0; i < M; i++)
        for (size_t k = 0; k < K; k++) A[i * K + k] = (float)ug_bs_edge_value(i, k, i + k / 128);
    for (size_t k = 0; k < K; k++)
        for (size_t j = 0; j < N; j++) B[k * N + j] = (float)ug_bs_edge_value(j, k, j + 2 * (k / 128));
    ug_bs_grid ga = ug_bs_grid_a(M, K), gb = ug_bs_grid_b(K, N);
    ug_bs_quantize(&ga, A);
    ug_bs_quantize(&gb, B);
    ug_input *in = ug_input_from_shape(t, UG_OP_GEMM_BS, "block maxima", A, B,
                                       &(ug_shape){{M, N, K}});
    free(A), free(B);
    UG_FOR_KERNELS(t, k, UG_OP_GEMM_BS, UG_CPU, "*") {
        ug_result *r = ug_measure(t, k, in);
        UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
    }
    ug_input_free(t, in);
}

/* The exact difference sum_k p(a_ik) p(b_kj) - a_ik b_kj for every output, p each value's
 * stand-in (the block-scaled or the bf16 one): the oracle's records of the GEMM of [P(A) | A]
 * and [P(B); -B], 2K terms, each exact and correctly rounded once. */
static ug_input *ug_bs_diff(ug_t *t, const char *label, const float *A, const float *PA,
                            const float *B, const float *PB, size_t M, size_t N, size_t K)
{
    float *A2 = malloc(2 * M * K * sizeof *A2), *B2 = malloc(2 * K * N * sizeof *B2);
    ug_input *in = NULL;
    if (!A2 || !B2) goto err;
    for (size_t i = 0; i < M; i++)
        for (size_t k = 0; k < K; k++)
            A2[i * 2 * K + k] = PA[i * K + k], A2[i * 2 * K + K + k] = A[i * K + k];
    for (size_t k = 0; k < K; k++)
        for (size_t j = 0; j < N; j++)
            B2[k * N + j] = PB[k * N + j], B2[(K + k) * N + j] = -B[k * N + j];
    in = ug_input_from_shape(t, UG_OP_GEMM, label, A2, B2, &(ug_shape){{M, N, 2 * K}});
err:
    free(A2), free(B2);
    return in;
}

/* The error of the block-scaled product and of a bf16 product of the same binary32 data,
 * against that data's exact product, exactly (ug_bs_diff), over S = sum |a b| per output.
 * Asserted: bf16's within (2^-7 + 2^-16) S (each operand RN to bf16: 2^-8 relative, normal
 * data); the block-scaled figure is the finding. */
static const size_t ug_bs_cmp_ks[] = {1024, 8192};

UG_CASE(gemm_bs, bf16_vs_bs)
{
    const ug_dist d = UG_NORMAL(0, 1);
    const size_t M = 8, N = 8;
    UG_FOR_N(t, K, ug_bs_cmp_ks) {
        ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &d, &(ug_shape){{M, N, K}}, 1);
        const float *A = in->x[0], *B = in->y[0];
        float *QA = malloc(M * K * sizeof *QA), *QB = malloc(K * N * sizeof *QB);
        float *HA = malloc(M * K * sizeof *HA), *HB = malloc(K * N * sizeof *HB);
        UG_ASSERT(QA && QB && HA && HB);
        memcpy(QA, A, M * K * sizeof *QA), memcpy(QB, B, K * N * sizeof *QB);
        ug_bs_grid ga = ug_bs_grid_a(M, K), gb = ug_bs_grid_b(K, N);
        ug_bs_quantize(&ga, QA);
        ug_bs_quantize(&gb, QB);
        for (size_t i = 0; i < M * K; i++) HA[i] = (float)ug_fmt_round(UG_BF16, A[i], UG_RN);
        for (size_t i = 0; i < K * N; i++) HB[i] = (float)ug_fmt_round(UG_BF16, B[i], UG_RN);
        ug_input *dq = ug_bs_diff(t, "block-scaled minus exact", A, QA, B, QB, M, N, K);
        ug_input *dh = ug_bs_diff(t, "bf16 minus exact", A, HA, B, HB, M, N, K);
        free(QA), free(QB), free(HA), free(HB);
        UG_ASSERT(dq && dh);
        ug_point(t, "bf16 vs block-scaled fp8, %zux%zux%zu normal(0,1)", M, N, K);
        double q_max = 0, h_max = 0, q_sum = 0, h_sum = 0;
        for (size_t e = 0; e < M * N; e++) {
            double S = in->exact[0][e].sum_abs;
            double q = fabs(dq->exact[0][e].hi) / S, h = fabs(dh->exact[0][e].hi) / S;
            UG_EXPECT_MSG(h <= 0x1p-7 + 0x1p-16, "output %zu: bf16 error %.3g S", e, h);
            q_max = fmax(q_max, q), h_max = fmax(h_max, h), q_sum += q, h_sum += h;
        }
        ug_note(t, "exact error over S = sum |a b| (max, mean over %zu outputs):", M * N);
        ug_note(t, "  block-scaled fp8 (e4m3, UE8M0 1x128/128x128): %.3g  %.3g", q_max,
                q_sum / (double)(M * N));
        ug_note(t, "  bf16 operands:                                %.3g  %.3g", h_max,
                h_sum / (double)(M * N));
        ug_input_free(t, dq);
        ug_input_free(t, dh);
        ug_input_free(t, in);
    }
}
