/*
 * gpu_invariance.c - invariance assertions: the same logical result must come out bitwise
 * identical when only the launch changes, and the all-ones exact-integer check over K tails.
 *
 * invariance/<kernel>: every deterministic GEMM that offers launch configurations (the
 * tensor-core family, kernels/cuda/tensorcore.cu: its header lists them) runs one input as is
 * (config 0, measured against the oracle), then on a stream of its own (1), without workspace
 * (2), with 16 more rows of A (3: M changes, the first M rows are compared), in a batch of two
 * (4: the second problem is compared) and with split-K 4 (5).  Each configuration must give the
 * bits of config 0 (what users assume when they batch requests, pad M, or let a library pick
 * its split: vllm#53257, TransformerEngine#2986); a violation names both configurations and the
 * first differing element (row, column, both values in hex).  A configuration the kernel or
 * GPU does not offer is noted, not failed.  Findings the library does not promise (cuBLASLt
 * picks another algorithm for another workspace or M) are results: declare them with
 * `--xfail FILE` lines naming the point and the reason, never by loosening the check.
 * Reductions: cub_reduce's launch configurations (alignment, another stream, another GPU) are
 * asserted in cases/gpu/gpu_determinism.c (cub_levels).
 *
 * batch/<kernel>: batch invariance (harness/invariance/invariance.h): every GPU GEMM,
 * row operation and attention kernel runs the same 3 rows in batches of 1, 3, 64 and 1000 (a
 * GEMM's M; rows; attention problems), causal attention as one prefill against chunks of 64
 * query rows and decode steps, and the tensor-core family with cuBLASLt's split-K forced (launch
 * configuration 5) against batch 1 without.  Points "batch|chunked|splitk <kernel> declared|
 * undeclared": a declared kernel (matmul_*, rmsnorm_block_cuda, ...) that differs fails, naming
 * the first differing row, both configurations and both values in hex; rmsnorm_split_cuda and
 * attn_splitkv_count_cuda are expected failures naming the cause (cases/invariance_known.h);
 * cuBLAS and cuBLASLt findings are results with the library's cause beside them (the report's
 * "Batch invariance" table).
 *
 * ones_ktail/<kernel>: A and B all ones, M = N = 16, K = 1 ... 33 and K = 128 j + r for
 * j in {1, 4, 31} and tails r around 16, 32, 64 and 128, and 4096: every element must be
 * exactly K (triton#2767: split-K on the H100 dropped the K tail, caught by exactly this).
 * Exact arithmetic says so while K <= 2^p of the accumulator (binary32 2^24, binary16 2^11,
 * the fp8 MMA's 13 bits 2^13: every partial sum is an integer of at most p bits); beyond that
 * K is not checked for that kernel (noted).  Every GPU GEMM, whether it has configurations or
 * not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/invariance_known.h"
#include "harness/invariance/invariance.h"
#include "harness/run/ug.h"
#include "ops/op.h"

enum { UG_INV_CONFIGS = 6, UG_INV_M = 64, UG_INV_N = 48, UG_INV_K = 1024 };

static const char *const ug_inv_config_name[UG_INV_CONFIGS] = {
    "as is", "own stream", "no workspace", "M + 16 rows", "batch of 2", "split-K 4"};

/* The differences measured on an H100 (CUDA 13.0, cuBLASLt of that
 * toolkit): cuBLASLt does not promise the same bits across these launches, and
 * does not give them.  Each is declared here, with what changed, so that the case still fails
 * on any new difference, and on an unexpected pass (the declaration cannot go stale).
 *   split-K 4       every cuBLASLt GEMM but lt_e4m3 / lt_e4m3_e5m2 (whose fp8 accumulation is
 *                   promoted to binary32 partials anyway): split-K sums K/4-slices in another
 *                   order, element (0, 0) already differs
 *   no workspace,   lt_f16_acc16 (binary16 accumulation): the heuristic picks another algorithm
 *   batch of 2      without workspace and for a batched problem, with another summation order */
static const struct {
    const char *kernel;
    int cfg;
} ug_inv_findings[] = {
    {"lt_bf16", 5},      {"lt_f16", 5},           {"lt_f16_acc16", 5}, {"lt_e4m3_fast", 5},
    {"lt_e4m3_e5m2_fast", 5}, {"lt_f16_acc16", 2}, {"lt_f16_acc16", 4},
    {"lt_bf16_out_bf16", 5}, {"lt_f16_out_f16", 5}, /* H100 2026-11-26: as lt_bf16, lt_f16 */
};

static bool ug_inv_finding(const ug_kernel *k, int cfg)
{
    for (size_t i = 0; i < sizeof ug_inv_findings / sizeof ug_inv_findings[0]; i++)
        if (strcmp(k->name, ug_inv_findings[i].kernel) == 0 && ug_inv_findings[i].cfg == cfg)
            return true;
    return false;
}

static bool ug_inv_has_configs(const ug_kernel *k)
{
    return k->family && strcmp(k->family->name, "tensorcore") == 0;
}

/* Run k on trial 0 of in under launch configuration cfg and compare with ref (M x N, in k's
 * out_fmt, as the harness keeps it).  Returns after noting an unsupported configuration; fails
 * the point on a kernel error or on the first differing element. */
static void ug_inv_compare(ug_t *t, const ug_kernel *k, const ug_input *in, const void *ref, int cfg)
{
    size_t M = in->shape.dim[0], N = in->shape.dim[1], bytes = ug_fmt_bytes(k->out_fmt);
    unsigned char *out = malloc(M * N * bytes);
    UG_ASSERT(out != NULL);
    ug_call c;
    memset(&c, 0, sizeof c);
    c.op = UG_OP_GEMM;
    c.shape.dim[0] = M;
    c.shape.dim[1] = N;
    c.shape.dim[2] = in->shape.dim[2];
    ug_call_set_f32(&c, in->x[0], in->y[0], NULL);
    c.out[0] = (ug_arg_out){out, k->out_fmt, M * N}; /* the row's output format (bf16 D: 2 bytes) */
    c.launch_config = cfg;
    if (ug_kernel_run(k, &c) != 0) {
        if (c.unsupported)
            ug_note(t, "%s, %s: not offered here: %s", k->id, ug_inv_config_name[cfg], c.err);
        else
            UG_EXPECT_MSG(false, "%s, %s: kernel failed: %s", k->id, ug_inv_config_name[cfg], c.err);
        free(out);
        return;
    }
    size_t e = 0;
    while (e < M * N && memcmp(out + e * bytes, (const unsigned char *)ref + e * bytes, bytes) == 0) e++;
    if (e == M * N)
        ug_note(t, "%s, %s: the bits of '%s'", k->id, ug_inv_config_name[cfg], ug_inv_config_name[0]);
    UG_EXPECT_MSG(e == M * N,
                  "%s: '%s' and '%s' differ, first at element %zu (row %zu, column %zu): %a vs %a "
                  "(M=%zu N=%zu K=%zu)",
                  k->id, ug_inv_config_name[cfg], ug_inv_config_name[0], e, e / N, e % N,
                  e < M * N ? ug_fmt_load(k->out_fmt, out, e) : 0.0,
                  e < M * N ? ug_fmt_load(k->out_fmt, ref, e) : 0.0, M, N,
                  in->shape.dim[2]);
    free(out);
}

UG_CASE_EX(gpu_invariance, configs, UG_CASE_GPU)
{
    ug_dist d = ug_normal(0, 1);
    if (!ug_n_selected(t, UG_INV_M)) return;
    ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &d,
                                       &(ug_shape){{UG_INV_M, UG_INV_N, UG_INV_K}}, 1);
    UG_FOR_IN_KERNELS(t, k, UG_OP_GEMM, UG_CUDA, "*", UG_F32) { /* bf16/fp16 D too */
        if (!ug_inv_has_configs(k) || k->nondeterministic) continue;
        ug_result *r = ug_measure_repeat(t, k, in, 3);
        UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c */
        if (r->failed_run || !r->out || r->count == 0) continue; /* skipped or failed: said */
        UG_EXPECT_DISTINCT_MAX(r, 1); /* run to run first */
        for (int cfg = 1; cfg < UG_INV_CONFIGS; cfg++) {
            ug_point(t, "invariance %s %s", k->id, ug_inv_config_name[cfg]);
            if (ug_inv_finding(k, cfg))
                ug_xfail(t, "cuBLASLt changes the summation order for this launch (measured on "
                            "the H100: cases/gpu/gpu_invariance.c, ug_inv_findings)");
            ug_inv_compare(t, k, in, r->out[0], cfg);
        }
    }
    ug_input_free(t, in);
}

/* The largest K for which a sum of K ones is exact in k's accumulator and output: 2^p, p the
 * smaller precision (a bf16 D holds the integers up to 2^8 exactly). */
static size_t ug_inv_exact_k(const ug_kernel *k)
{
    const ug_format *A = ug_format_of(k->acc_fmt), *O = ug_format_of(k->out_fmt);
    int p = A ? A->p : 24;
    if (k->op_fmt == UG_E4M3 || k->op_fmt == UG_E5M2) p = p < 13 ? p : 13;
    if (k->op_fmt == UG_F16 && k->acc_fmt == UG_F16) p = 11;
    if (O && O->p < p) p = O->p;
    return (size_t)1 << p;
}

UG_CASE_EX(gpu_invariance, ones_ktail, UG_CASE_GPU)
{
    enum { MN = 16, KMAX = 4096 };
    static const size_t tails[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127};
    static const size_t js[] = {1, 4, 31};
    size_t ks[64], nk = 0;
    for (size_t k = 1; k <= 33; k++) ks[nk++] = k;
    for (size_t j = 0; j < sizeof js / sizeof js[0]; j++)
        for (size_t i = 0; i < sizeof tails / sizeof tails[0] && nk < 63; i++)
            if (128 * js[j] + tails[i] > 33) ks[nk++] = 128 * js[j] + tails[i];
    ks[nk++] = KMAX;
    float *a = malloc((size_t)MN * KMAX * sizeof *a);
    unsigned char *out = malloc((size_t)MN * MN * sizeof(double)); /* any output format */
    UG_ASSERT(a != NULL && out != NULL);
    for (size_t i = 0; i < (size_t)MN * KMAX; i++) a[i] = 1.0f;
    UG_FOR_IN_KERNELS(t, k, UG_OP_GEMM, UG_CUDA, "*", UG_F32) { /* bf16/fp16 D too */
        ug_point(t, "ones_ktail %s", k->id);
        if (!ug_gpu_available()) {
            ug_skip(t, "no CUDA device");
            break;
        }
        size_t exact_k = ug_inv_exact_k(k), checked = 0, unsupported = 0, beyond = 0;
        char why[160] = "";
        for (size_t i = 0; i < nk; i++) {
            size_t K = ks[i];
            if (K > exact_k) {
                beyond++;
                continue;
            }
            ug_call c;
            memset(&c, 0, sizeof c);
            c.op = UG_OP_GEMM;
            c.shape.dim[0] = MN;
            c.shape.dim[1] = MN;
            c.shape.dim[2] = K;
            ug_call_set_f32(&c, a, a, NULL); /* A MN x K and B K x MN: both all ones */
            c.out[0] = (ug_arg_out){out, k->out_fmt, (size_t)MN * MN};
            if (ug_kernel_run(k, &c) != 0) {
                if (!c.unsupported) {
                    UG_EXPECT_MSG(false, "%s, K=%zu: kernel failed: %s", k->id, K, c.err);
                    break;
                }
                if (!unsupported++) snprintf(why, sizeof why, "%.150s", c.err);
                continue;
            }
            checked++;
            size_t e = 0;
            while (e < (size_t)MN * MN && ug_fmt_load(k->out_fmt, out, e) == (double)K) e++;
            bool all = e == (size_t)MN * MN;
            UG_EXPECT_MSG(all, "%s: K=%zu (= 128*%zu + %zu): element %zu (row %zu, column %zu) is "
                               "%a, want %zu exactly", k->id, K, K / 128, K % 128, e, e / MN,
                          e % MN, all ? 0.0 : ug_fmt_load(k->out_fmt, out, e), K);
            if (!all) break;
        }
        ug_note(t, "%s: %zu K checked (1 ... %zu), %zu not offered%s%s, %zu beyond its exact "
                   "range (K > %zu)", k->id, checked, (size_t)KMAX, unsupported, unsupported ? ": " : "",
                why, beyond, exact_k);
    }
    free(a);
    free(out);
}

/* The tensor-core family's split-K configuration (5: cuBLASLt split-K 4; its hand-written mma
 * kernels decline it as unsupported, a skip that says so). */
static int ug_inv_splitk_config(const ug_kernel *k) { return ug_inv_has_configs(k) ? 5 : 0; }

UG_CASE_EX(gpu_invariance, batch, UG_CASE_GPU)
{
    ug_invariance_all(t, UG_CUDA, ug_inv_known_kernels,
                      sizeof ug_inv_known_kernels / sizeof ug_inv_known_kernels[0], ug_inv_splitk_config);
}
