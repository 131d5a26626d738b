/*
 * gemm_bs.c - the block-scaled GEMM's parts by hand: the format's scale rule, its quantizer and
 * packing (base/bsfp8.h); the exact result against MPFR; the fp8 kernels' tensor-core block bit
 * for bit against the tensor-core model (oracle/tc/tcmodel.h, H100/H200 fp8 parameters); the
 * bs_fp8_promoted class term by term (kernels/bounds.c); the hunt's candidates quantized before
 * they are evaluated.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bsfp8.h"
#include "harness/run/ug.h"
#include "harness/search/hunt.h"
#include "oracle/tc/tcmodel.h"
#include "ops/op.h"

UG_CASE(gemm_bs_ref, scale_rule)
{
    /* the smallest e with amax <= 448 2^e */
    UG_EXPECT(ug_bs_scale_exp(448.0) == 0);
    UG_EXPECT(ug_bs_scale_exp(nextafter(448.0, 1e9)) == 1);
    UG_EXPECT(ug_bs_scale_exp(224.0) == -1);
    UG_EXPECT(ug_bs_scale_exp(224.5) == 0);
    UG_EXPECT(ug_bs_scale_exp(1.0) == -8); /* 448 2^-9 = 0.875 < 1 <= 1.75 */
    UG_EXPECT(ug_bs_scale_exp(0.0) == -127); /* the table's E8M0 code 0 for amax 0 */
    UG_EXPECT(ug_bs_scale_exp(0x1p-149) == -127); /* E8M0's smallest scale */
}

UG_CASE(gemm_bs_ref, quantize_and_pack)
{
    enum { M = 3, K = 300 };
    float A[M * K], Q[M * K];
    for (int i = 0; i < M * K; i++) A[i] = (float)(sin(i * 0.7) * ldexp(1.0, i % 37 - 18));
    memcpy(Q, A, sizeof Q);
    ug_bs_grid g = ug_bs_grid_a(M, K);
    UG_EXPECT(ug_bs_nblocks(&g) == 3 * 3 && ug_bs_block_of(&g, 2, 299) == 8);
    ug_bs_quantize(&g, Q);
    uint8_t e[M * K], s[9];
    char err[300] = "";
    UG_ASSERT_MSG(ug_bs_pack(&g, Q, e, s, err, sizeof err) == 0, "%s", err);
    int differ = 0;
    for (int r = 0; r < M; r++)
        for (int c = 0; c < K; c++) {
            double v = ug_bs_value(&g, e, s, (size_t)r, (size_t)c);
            UG_EXPECT_MSG(v == Q[r * K + c], "(%d, %d): packed %a, quantized %a", r, c, v,
                          (double)Q[r * K + c]);
            /* each element within half an e4m3 ulp of its scaled value, or half the smallest
             * subnormal step */
            int b = (int)s[ug_bs_block_of(&g, (size_t)r, (size_t)c)] - 127;
            double d = fabs(v - A[r * K + c]);
            UG_EXPECT_MSG(d <= ldexp(fabs(A[r * K + c]), -4) + ldexp(1, b - 10), "(%d, %d)", r, c);
            differ += v != A[r * K + c];
        }
    UG_EXPECT_MSG(differ > M * K / 2, "the quantizer rounded only %d of %d", differ, M * K);
    float R[M * K];
    memcpy(R, Q, sizeof R);
    ug_bs_quantize(&g, R);
    UG_EXPECT_MSG(memcmp(R, Q, sizeof R) == 0, "quantizing twice changed a value");
    /* a value that is not block-scaled: refused, the element named */
    Q[K + 5] = nextafterf(Q[K + 5], INFINITY);
    UG_EXPECT_MSG(ug_bs_pack(&g, Q, e, s, err, sizeof err) != 0 && strstr(err, "(1, 5)"),
                  "pack took a value off the format: %s", err);
}

/* The exact result of a quantized input, fast oracle and MPFR alike. */
UG_CASE(gemm_bs_ref, exact_vs_mpfr)
{
    const ug_dist d = UG_NORMAL(0, 1);
    ug_input *in = ug_input_make_shape(t, UG_OP_GEMM_BS, &d, &(ug_shape){{3, 4, 300}}, 1);
    ug_exact mp[12];
    ug_oracle_kind before = ug_oracle_selected();
    ug_oracle_select(UG_ORACLE_MPFR);
    ug_op_get(UG_OP_GEMM_BS)->exact(in->x[0], in->y[0], &in->shape, mp);
    ug_oracle_select(before);
    for (int e = 0; e < 12; e++)
        UG_EXPECT_MSG(ug_exact_equal(&mp[e], &in->exact[0][e]), "element %d: %a vs MPFR %a", e,
                      in->exact[0][e].hi, mp[e].hi);
    /* the harness quantized what it drew: every value packs */
    ug_bs_grid g = ug_bs_grid_a(3, 300);
    uint8_t el[900], sc[9];
    char err[300] = "";
    UG_EXPECT_MSG(ug_bs_pack(&g, in->x[0], el, sc, err, sizeof err) == 0, "%s", err);
    ug_input_free(t, in);
}

/* One output of kernel name on A (1 x K) and B (K x 1). */
static float ug_bs_run(ug_t *t, const char *name, const float *A, const float *B, size_t K)
{
    const ug_kernel *k = ug_kernel_find(name);
    UG_ASSERT_MSG(k != NULL, "no kernel %s", name);
    float out = NAN;
    ug_call c;
    memset(&c, 0, sizeof c);
    c.op = UG_OP_GEMM_BS;
    c.shape = (ug_shape){{1, 1, K}};
    ug_call_set_f32(&c, A, B, &out);
    UG_ASSERT_MSG(ug_kernel_run(k, &c) == 0, "%s: %s", name, c.err);
    return out;
}

/* The kernels' fp8 block against ug_tc_dot with the H100/H200 e4m3 row of
 * reports/tensorcore/params.tsv: every block scale 1 (amax 448 in every tile), so the elements
 * are the values and the model's dot over K is the unpromoted kernel, its dot over 128 terms
 * the promoted one at K = 128. */
UG_CASE(gemm_bs_ref, fp8_block_is_the_model)
{
    enum { K = 2048 };
    static float A[K], B[K];
    static double a[K], b[K];
    const ug_tc_params p = {.in_fmt = UG_E4M3, .out_fmt = UG_F32, .block = 32, .neab = -10,
                            .carry_bit = true, .align = UG_TC_RZ, .final = UG_TC_RZ,
                            .in_subnormals = true, .out_subnormals = true};
    for (int trial = 0; trial < 4; trial++) {
        for (int i = 0; i < K; i++) {
            double v = i % 128 == 0 ? 448.0 : 448.0 * sin(i * 1.3 + trial) * (trial & 1 ? 1 : 0.01);
            a[i] = ug_fmt_round(UG_E4M3, v, UG_RN);
            b[i] = ug_fmt_round(UG_E4M3, trial & 2 ? fabs(v) : 448.0 * cos(i * 0.7), UG_RN);
            if (i % 128 == 0) b[i] = 448.0;
            A[i] = (float)a[i], B[i] = (float)b[i];
        }
        float unpromoted = ug_bs_run(t, "gemm_bs_fp8_unpromoted_cpu", A, B, K);
        float promoted = ug_bs_run(t, "gemm_bs_fp8_promoted_cpu", A, B, 128);
        double m_all = ug_tc_dot(&p, a, 1, b, 1, K, 0.0), m_128 = ug_tc_dot(&p, a, 1, b, 1, 128, 0.0);
        UG_EXPECT_MSG((double)unpromoted == m_all, "trial %d: unpromoted %a, model %a", trial,
                      (double)unpromoted, m_all);
        UG_EXPECT_MSG((double)promoted == m_128, "trial %d: promoted %a, model %a", trial,
                      (double)promoted, m_128);
    }
}

/* bs_fp8_promoted by hand: b = 32, p = 13, t = 0 (the envelope), D_in = the depth of a chunk,
 * no operand term, m = ceil(n / 128) binary32 promotions. */
static size_t ug_depth_fixed4(size_t n) { return n ? 4 : 0; }

UG_CASE(gemm_bs_ref, class_terms)
{
    ug_kernel k;
    memset(&k, 0, sizeof k);
    k.name = "hand", k.op = UG_OP_GEMM_BS, k.op_fmt = UG_E4M3;
    k.bound = UG_BOUND_BS_FP8_PROMOTED, k.depth = ug_depth_fixed4;
    const double u = 0x1p-24, S = 3, s = 2;
    double ur = 0x1p-12, c = ur + 33 * 0x1p-11 * (1 + ur), g_in = expm1(4 * log1p(c));
    double m = 8, gm = m * u / (1 - m * u); /* n = 1000: 8 chunks */
    double want = (g_in + gm * (1 + g_in)) * S, got = ug_kernel_bound(&k, 1000, S, s);
    UG_EXPECT_MSG(got >= want && got <= want * (1 + 0x1p-39), "bound %.17g, by hand %.17g", got,
                  want);
    /* one chunk: m = 1 */
    want = (g_in + u / (1 - u) * (1 + g_in)) * S, got = ug_kernel_bound(&k, 128, S, s);
    UG_EXPECT_MSG(got >= want && got <= want * (1 + 0x1p-39), "n = 128: %.17g, by hand %.17g",
                  got, want);
    k.op_fmt = UG_F32; /* a row (or `check --bound`) that names no fp8 operand: the same class */
    got = ug_kernel_bound(&k, 128, S, s);
    UG_EXPECT_MSG(got >= want && got <= want * (1 + 0x1p-39), "op_fmt f32: %.17g, by hand %.17g",
                  got, want);
    got = ug_kernel_bound_underflow(&k, 1000, 448.0);
    UG_EXPECT_MSG(got >= 16 * 0x1p-150 && got <= 16 * 0x1p-150 * (1 + 0x1p-39),
                  "underflow: %.17g, want 2 m 2^-150", got);
    UG_EXPECT(strcmp(ug_bound_class_name(UG_BOUND_BS_FP8_PROMOTED), "bs_fp8_promoted") == 0);
}

/* The hunt mutates values freely; each candidate is quantized with the format's rule before it
 * is evaluated (harness/search/hunt_eval.c), so the kernels take it and the population holds
 * block-scaled inputs. */
UG_CASE(gemm_bs_ref, hunt_quantizes_candidates)
{
    enum { M = 2, N = 3, K = 200 };
    static float x[M * K], y[K * N];
    for (int i = 0; i < M * K; i++) x[i] = (float)(sin(i * 0.37) * 3.1);
    for (int i = 0; i < K * N; i++) y[i] = (float)(cos(i * 0.21) * 0.7);
    ug_hunt_problem p;
    memset(&p, 0, sizeof p);
    p.k = ug_kernel_find("gemm_bs_fp8_promoted_cpu");
    UG_ASSERT(p.k != NULL);
    p.op = UG_OP_GEMM_BS;
    ug_hunt_set_shape(&p, &(ug_shape){{M, N, K}});
    float *xs[1] = {x}, *ys[1] = {y};
    ug_hunt_score sc;
    ug_hunt_eval_batch(&p, xs, ys, 1, &sc, 0);
    UG_EXPECT_MSG(sc.valid && sc.ratio <= 1, "a mutated candidate: valid %d, ratio %g", sc.valid,
                  sc.ratio);
    ug_bs_grid g = ug_bs_grid_a(M, K);
    uint8_t el[M * K], scl[M * 2];
    char err[300] = "";
    UG_EXPECT_MSG(ug_bs_pack(&g, x, el, scl, err, sizeof err) == 0, "not quantized: %s", err);
}
