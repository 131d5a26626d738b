/*
 * gpu_gemm_bs.c - the block-scaled GEMM's CUDA kernels (kernels/cuda/gemm_bs.cu) against the
 * exact product of their block-scaled inputs (ops/gemm_bs.c): dequantize-then-binary32,
 * DeepSeek-V3's recipe on mma.sync e4m3 with and without promotion, cuBLASLt's block-scaled fp8
 * (VEC128_32F x BLK128x128_32F; skipped with the library's own status where it refuses).
 *
 * What is asserted, and why:
 *  - random data, shapes around the 128-term chunk and the 16 x 8 mma tile: every kernel within
 *    its class (tree; bs_fp8_promoted with the detected GPU's fp8 row, kernels/bounds.c), the
 *    unpromoted one only at K <= 128, where it is the promoted one;
 *  - scales: positive data whose every 1 x 128 tile of A and 128 x 128 block of B has its own
 *    scale (2^-11 .. 2^11): a scale read from the wrong tile or block is an error of a factor 2
 *    or more in a term, far past any class, so a wrong scale layout (cuBLASLt's is not in its
 *    header) cannot pass; normal data, whose tiles nearly all share one scale, would hide it;
 *  - long K of uniform(0, 1) data (every block at one scale): the promoted rows within their
 *    class; mma unpromoted (a chunk's depth in its class) past it where its path is the fp8
 *    tensor core's narrow accumulator (a published row with neab < 0), within it where it is
 *    not.  cuBLASLt's per-tensor fast-accumulating fp8 claims depth K - 1 (its order is not
 *    known), a bound its 14-bit wgmma accumulator keeps at these K (H200: ulp_mean 571,991,
 *    bound ratio 0.026 at K = 32768): within its class, the loss shown by its figures and the
 *    gate, not by a failure.  On sm_90 mma.sync e4m3 is no fp8
 *    instruction: ptxas emits F2FP.F16.E4M3.UNPACK_B and two HMMA.16816.F32 (cuobjdump -sass,
 *    H200, 2026-12-05), the f16 path and its 24-bit accumulator, so the unpromoted kernel keeps
 *    the class there (measured: it passed at K = 32768 and 65536); the 14-bit accumulator
 *    DeepSeek-V3 promotes around is that of wgmma (cuBLASLt's fp8 kernels, the CPU rows of
 *    cases/gemm_bs.c);
 *  - model: each mma kernel bit for bit against the published tensor-core model of the path its
 *    instruction runs on (reports/tensorcore/params.tsv; on H100/H200 the f16 -> f32 row, as
 *    gpu_tcmodel's mma_e4m3), k32 as two k16 blocks in k order, chunks promoted (or rescaled)
 *    as the kernel does: a difference is the model failing on this GPU, the first one named.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bsfp8.h"
#include "base/format.h"
#include "harness/run/ug.h"
#include "kernels/device.h"
#include "oracle/tc/tcmodel.h"
#include "oracle/tc/tcprobe.h"
#include "ops/op.h"

static const size_t ug_gbs_shapes[][3] = {
    {1, 1, 32}, {16, 8, 128}, {17, 9, 300}, {32, 32, 1024}, {64, 48, 4096},
};

/* The rows that never promote: one accumulator for all of K (run at K <= 128 by the random
 * shapes, where they are the promoted recipe; past it by long_k). */
static bool ug_gbs_unpromoted(const ug_kernel *k)
{
    return strstr(k->name, "unpromoted") != NULL || strstr(k->name, "fast_accum") != NULL;
}

static const ug_param ug_gbs_dists[] = {
    {"uniform01", UG_UNIFORM(0, 1)},
    {"normal", UG_NORMAL(0, 1)},
};

UG_CASE_OVER(gpu_gemm_bs, ug_gbs_dists, UG_CASE_GPU)
{
    const ug_param *p = ug_param_of(t);
    for (size_t i = 0; i < sizeof ug_gbs_shapes / sizeof ug_gbs_shapes[0]; i++) {
        const size_t *s = ug_gbs_shapes[i];
        if (!ug_n_selected(t, s[0])) continue;
        ug_input *in = ug_input_make_shape(t, UG_OP_GEMM_BS, &p->dist,
                                           &(ug_shape){{s[0], s[1], s[2]}}, 1);
        UG_FOR_KERNELS(t, k, UG_OP_GEMM_BS, UG_CUDA, "*") {
            if (ug_gbs_unpromoted(k) && s[2] > 128) continue; /* gpu_gemm_bs/long_k's */
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c */
        }
        ug_input_free(t, in);
    }
}

/* The published model of the tensor-core path kernel k runs on here: mma.sync e4m3 on the
 * Hopper parts is the f16 -> f32 row (HMMA.16816.F32, see the header), elsewhere and for
 * cuBLASLt's fp8 (wgmma) the GPU's e4m3 -> f32 row; NULL (noted) where the table has none.
 * rows: UG_TC_TABLE_MAX of storage, loaded on the first call. */
static const ug_tc_params *ug_gbs_row(ug_t *t, ug_tc_published *rows, int *n, bool mma)
{
    char err[512];
    if (*n <= 0) *n = ug_tc_table_load(NULL, rows, UG_TC_TABLE_MAX, err, sizeof err);
    UG_EXPECT_MSG(*n > 0, "the published table: %s", err);
    ug_gpu_info gi;
    if (*n <= 0 || ug_device_info(&gi) != 0) return NULL;
    const char *gpu = ug_tc_table_gpu_of(rows, *n, gi.name);
    bool hopper = gpu && (strcmp(gpu, "H100") == 0 || strcmp(gpu, "H200") == 0);
    const ug_tc_published *pub =
        gpu ? ug_tc_table_find(rows, *n, gpu, mma && hopper ? UG_F16 : UG_E4M3, UG_F32) : NULL;
    if (!pub) ug_note(t, "no published tensor-core row for %s on %s", mma ? "mma.sync e4m3" : "fp8", gi.name);
    return pub ? &pub->p : NULL;
}

static const size_t ug_gbs_long_ks[] = {32768, 65536};

UG_CASE_EX(gpu_gemm_bs, long_k, UG_CASE_GPU)
{
    static ug_tc_published rows[UG_TC_TABLE_MAX];
    int nrows = 0;
    const ug_dist d = UG_UNIFORM(0, 1);
    UG_FOR_N(t, K, ug_gbs_long_ks) {
        ug_input *in = ug_input_make_shape(t, UG_OP_GEMM_BS, &d, &(ug_shape){{16, 8, K}}, 1);
        UG_FOR_KERNELS(t, k, UG_OP_GEMM_BS, UG_CUDA, "*") {
            const ug_tc_params *row = NULL;
            bool mma = strstr(k->name, "_mma_") != NULL;
            if (ug_gbs_unpromoted(k)) {
                row = ug_gbs_row(t, rows, &nrows, mma);
                if (!row) {
                    ug_skip(t, "no published model of this GPU's accumulator: whether one "
                               "accumulator for all of K keeps the class is unknown");
                    continue;
                }
            }
            ug_result *r = ug_measure(t, k, in);
            if (row && row->neab < 0 && mma)
                ug_xfail(t, "no promotion: K products in the tensor core's narrow fp8 "
                            "accumulator exceed the class of the promoted recipe");
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
        }
        ug_input_free(t, in);
    }
}

/* Positive data, every tile of A and block of B at its own scale (the header's "scales"). */
static float ug_gbs_scaled(size_t r, size_t c, int e)
{
    double frac = (double)((r * 7 + c * 13) % 97) / 194.0; /* in [0, 0.5) */
    return (float)ldexp(1.0 + frac, e);
}

UG_CASE_EX(gpu_gemm_bs, scales, UG_CASE_GPU)
{
    const size_t M = 160, N = 272, K = 640; /* 2 x 5 tiles of A rows, 5 x 3 blocks of B */
    float *A = malloc(M * K * sizeof *A), *B = malloc(K * N * sizeof *B);
    UG_ASSERT(A && B);
    for (size_t i = 0; i < M; i++)
        for (size_t k = 0; k < K; k++)
            A[i * K + k] = ug_gbs_scaled(i, k, (int)((i * 5 + (k / 128) * 3) % 23) - 11);
    for (size_t k = 0; k < K; k++)
        for (size_t j = 0; j < N; j++)
            B[k * N + j] = ug_gbs_scaled(j, k, (int)(((k / 128) * 7 + (j / 128) * 5) % 19) - 9);
    ug_bs_grid ga = ug_bs_grid_a(M, K), gb = ug_bs_grid_b(K, N);
    ug_bs_quantize(&ga, A);
    ug_bs_quantize(&gb, B);
    ug_input *in = ug_input_from_shape(t, UG_OP_GEMM_BS, "per-block scales 2^-11..2^11", A, B,
                                       &(ug_shape){{M, N, K}});
    free(A), free(B);
    UG_FOR_KERNELS(t, k, UG_OP_GEMM_BS, UG_CUDA, "*") {
        if (ug_gbs_unpromoted(k)) continue; /* K > 128: gpu_gemm_bs/long_k's */
        ug_result *r = ug_measure(t, k, in);
        UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c */
    }
    ug_input_free(t, in);
}

/* Kernel k on the input's trial 0 into out (M x N); 0, or nonzero (recorded). */
static int ug_gbs_call(ug_t *t, const ug_kernel *k, const ug_input *in, float *out)
{
    ug_call c;
    memset(&c, 0, sizeof c);
    c.op = UG_OP_GEMM_BS;
    c.shape = in->shape;
    ug_call_set_f32(&c, in->x[0], in->y[0], out);
    return ug_run_kernel(t, k, &c, __FILE__, __LINE__);
}

/* Output (i, j) of the mma kernel as the model p computes it: per chunk of 128 the elements'
 * products in blocks of p->block (a k32 mma.sync is k / p->block instructions, k in order),
 * then promoted (times the chunk's scales, added to a binary32 sum) or rescaled in place to the
 * next chunk's scales, as kernels/cuda/gemm_bs.cu does.  a, b: K values of scratch. */
static float ug_gbs_model(const ug_tc_params *p, bool promote, const uint8_t *ea,
                          const uint8_t *sa, const uint8_t *eb, const uint8_t *sb, size_t i,
                          size_t j, size_t N, size_t K, double *a, double *b)
{
    size_t KB = (K + 127) / 128, NB = (N + 127) / 128;
    for (size_t k = 0; k < K; k++) {
        a[k] = ug_fmt_decode(UG_E4M3, ea[i * K + k]);
        b[k] = ug_fmt_decode(UG_E4M3, eb[k * N + j]);
    }
    float acc = 0.f, d = 0.f;
    for (size_t q = 0; q < KB; q++) {
        int s = (int)sa[i * KB + q] - 127 + (int)sb[q * NB + j / 128] - 127;
        size_t n = q + 1 < KB ? 128 : K - q * 128;
        if (promote) {
            acc += ldexpf((float)ug_tc_dot(p, a + q * 128, 1, b + q * 128, 1, n, 0.0), s);
        } else {
            d = (float)ug_tc_dot(p, a + q * 128, 1, b + q * 128, 1, n, d);
            int next = q + 1 < KB ? (int)sa[i * KB + q + 1] - 127 + (int)sb[(q + 1) * NB + j / 128] - 127 : 0;
            d = ldexpf(d, s - next);
        }
    }
    return promote ? acc : d;
}

UG_CASE_EX(gpu_gemm_bs, model, UG_CASE_GPU)
{
    static ug_tc_published rows[UG_TC_TABLE_MAX];
    int nrows = 0;
    const ug_tc_params *row = ug_gbs_row(t, rows, &nrows, true);
    if (!row) {
        ug_skip(t, "no published model of this GPU's mma.sync e4m3");
        return;
    }
    const ug_dist d = UG_NORMAL(0, 1);
    const size_t M = 32, N = 16, K = 1000;
    ug_input *in = ug_input_make_shape(t, UG_OP_GEMM_BS, &d, &(ug_shape){{M, N, K}}, 1);
    ug_bs_grid ga = ug_bs_grid_a(M, K), gb = ug_bs_grid_b(K, N);
    float *g = malloc(M * N * sizeof *g);
    double *a = malloc(K * sizeof *a), *b = malloc(K * sizeof *b);
    uint8_t *ea = malloc(M * K), *eb = malloc(K * N);
    uint8_t *sa = malloc(ug_bs_nblocks(&ga)), *sb = malloc(ug_bs_nblocks(&gb));
    UG_ASSERT(g && a && b && ea && eb && sa && sb);
    char why[300];
    UG_ASSERT_MSG(ug_bs_pack(&ga, in->x[0], ea, sa, why, sizeof why) == 0, "A: %s", why);
    UG_ASSERT_MSG(ug_bs_pack(&gb, in->y[0], eb, sb, why, sizeof why) == 0, "B: %s", why);
    static const char *const names[] = {"gemm_bs_mma_promoted", "gemm_bs_mma_unpromoted"};
    for (int v = 0; v < 2; v++) {
        const ug_kernel *gk = ug_builtin_kernel(t, names[v]);
        ug_point(t, "%s bit for bit against the %s model (block %d, neab %d)", names[v],
                 ug_fmt_name(row->in_fmt), row->block, row->neab);
        UG_EXPECT_MSG(gk != NULL, "no kernel %s", names[v]);
        if (!gk || ug_gbs_call(t, gk, in, g)) continue;
        size_t e = 0;
        float want = 0.f;
        for (; e < M * N; e++) {
            want = ug_gbs_model(row, v == 0, ea, sa, eb, sb, e / N, e % N, N, K, a, b);
            if (memcmp(&g[e], &want, sizeof want) != 0) break;
        }
        /* H200, 2026-12-05: the first output differs in its last bit (promoted: GPU
         * -0x1.4d7fb8p+5, model -0x1.4d7fb6p+5; unpromoted -0x1.2d9858p+4 vs -0x1.2d9854p+4):
         * the two k16 HMMAs of one k32 instruction do not take the products in k order, or
         * not 16 at a time, as this model does.  Declared until the grouping is measured; a
         * pass is reported (XPASS) and asks for the declaration to go. */
        if (row->in_fmt == UG_F16)
            ug_xfail(t, "the k32 e4m3 mma.sync's split into two f16 k16 HMMAs is not yet "
                        "modelled bit for bit (1 ulp apart on the H200)");
        UG_EXPECT_MSG(e == M * N, "output (%zu, %zu): GPU %a, model %a", e / N, e % N,
                      e < M * N ? (double)g[e] : 0.0, (double)want);
    }
    free(g), free(a), free(b), free(ea), free(eb), free(sa), free(sb);
    ug_input_free(t, in);
}
