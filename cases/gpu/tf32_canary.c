/*
 * tf32_canary.c - did this FP32 GEMM run on reduced-precision operands (TF32, binary16,
 * bfloat16)?  Asked of every cuBLAS compute type (kernels/cuda/vendor.cu) and of the CPU's
 * known answers (gemm_naive_cpu: fp32; gemm_tf32_cpu: TF32 in software).
 *
 * The canary input: every entry is 1 + m 2^-7 + 7 * 2^-11 (m random, 0 <= m < 128): 12
 * significant bits, so every product of two entries (<= 24 bits) is exact in binary32, and
 * the sum of positive terms has condition 1.  The bits below the 7th fraction bit are 0111:
 *  - rounded to 10 fraction bits (TF32, binary16) an entry moves by 2^-11 (a tie; nearest-even
 *    goes up, truncation down): a relative error of about 0.7 * 2^-11 per operand;
 *  - rounded to 7 fraction bits (bfloat16) it moves down by 7 * 2^-11: about 0.7 * 7 * 2^-11;
 *  - in binary32 it does not move.
 * So the mean relative error of an output is the operands' error (independent of K) plus the
 * accumulation's (growing with K).  Fitted over a sweep of K = n (square GEMMs) by least squares,
 * e(K) = a + b K, the intercept a / 2 is the effective unit roundoff of the operands, u_eff:
 * below 2^-20 means binary32 operands (binary32 accumulation alone gives a mean relative error
 * of at most K u, ~2^-14 at K = 1024, and its fit intercept is ~0), in (2^-13, 2^-10] 10
 * fraction bits (TF32 or binary16), in (2^-10, 2^-7] 7 (bfloat16).
 *
 * Asserted per kernel: its bound class on every input (bound ratio <= 1), and the verdict its
 * compute type documents: PEDANTIC and 32F "standard arithmetic / at least fp32 precision": fp32;
 * FAST_TF32: TF32 (fp32 where NVIDIA_TF32_OVERRIDE=0 disables TF32); FAST_16F "half or TF32":
 * 10 bits; FAST_16BF "bfloat16 or TF32": 7 or 10 bits; EMULATED_16BFX9, an emulation of fp32:
 * fp32.  A compute type this cuBLAS or GPU does not offer is skipped, saying so.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/ug.h"

typedef enum { UG_V_FP32, UG_V_10BIT, UG_V_7_OR_10BIT } ug_verdict;

static const struct {
    const char *kernel;
    ug_verdict expect;
    bool tf32_override; /* NVIDIA_TF32_OVERRIDE=0 turns the expectation into fp32 */
} ug_canary_gpu[] = {
    {"matmul_naive@default", UG_V_FP32, false},
    {"cublas_sgemm@default", UG_V_FP32, false},
    {"cublas_sgemm_32f@default", UG_V_FP32, false},
    {"cublas_sgemm_tf32@default", UG_V_10BIT, true},
    {"cublas_sgemm_fast_16f@default", UG_V_10BIT, true},
    {"cublas_sgemm_fast_16bf@default", UG_V_7_OR_10BIT, true},
    {"cublas_sgemm_bf16x9@default", UG_V_FP32, false},
}, ug_canary_cpu[] = {
    {"gemm_naive_cpu@default", UG_V_FP32, false},
    {"gemm_tf32_cpu@default", UG_V_10BIT, false},
};

static const char *ug_verdict_name(double u_eff)
{
    if (u_eff < 0x1p-20) return "fp32 operands";
    if (u_eff > 0x1p-13 && u_eff <= 0x1p-10) return "10-bit operands (TF32 or binary16)";
    if (u_eff > 0x1p-10 && u_eff <= 0x1p-7) return "7-bit operands (bfloat16)";
    return "unexplained";
}

static bool ug_verdict_holds(ug_verdict v, double u_eff)
{
    switch (v) {
    case UG_V_FP32: return u_eff < 0x1p-20;
    case UG_V_10BIT: return u_eff > 0x1p-13 && u_eff <= 0x1p-10;
    case UG_V_7_OR_10BIT: return u_eff > 0x1p-13 && u_eff <= 0x1p-7;
    }
    return false;
}

/* The canary's n x n matrices for trial 0: a pure function of (seed, n). */
static ug_input *ug_canary_input(ug_t *t, size_t n)
{
    float *a = malloc(2 * n * n * sizeof *a);
    UG_ASSERT_MSG(a != NULL, "out of memory for the %zu x %zu canary", n, n);
    uint64_t s = ug_seed(t) ^ (0x9e3779b97f4a7c15ull * n);
    for (size_t i = 0; i < 2 * n * n; i++) {
        s += 0x9e3779b97f4a7c15ull; /* splitmix64 */
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        a[i] = (float)(1.0 + (double)(z & 127) * 0x1p-7 + 7 * 0x1p-11);
    }
    ug_input *in = ug_input_from_data(t, UG_OP_GEMM, "tf32_canary", a, a + n * n, n);
    free(a);
    return in;
}

/* Least squares of e = a + b K; returns a. */
static double ug_fit_intercept(const double *K, const double *e, int m)
{
    double sk = 0, se = 0, skk = 0, ske = 0;
    for (int i = 0; i < m; i++) sk += K[i], se += e[i], skk += K[i] * K[i], ske += K[i] * e[i];
    double det = m * skk - sk * sk;
    return det != 0 ? (se * skk - sk * ske) / det : (m ? e[0] : 0);
}

static void ug_canary(ug_t *t, const size_t *ns, int count, const char *const *names,
                      const ug_verdict *expect, const bool *override_applies, int kernels)
{
    enum { UG_MAX_N = 8, UG_MAX_K = 16 };
    ug_result *r[UG_MAX_K][UG_MAX_N];
    memset(r, 0, sizeof r);
    for (int j = 0; j < count && j < UG_MAX_N; j++) {
        if (!ug_n_selected(t, ns[j])) continue;
        ug_input *in = ug_canary_input(t, ns[j]);
        for (int i = 0; i < kernels && i < UG_MAX_K; i++) {
            UG_ASSERT_MSG(ug_builtin_kernel(t, names[i]) != NULL, "kernel %s is not registered", names[i]);
            UG_FOR_KERNELS(t, k, UG_OP_GEMM, UG_ANY_BACKEND, names[i]) { /* honours --kernel */
                r[i][j] = ug_measure(t, k, in);
                UG_EXPECT_BOUND_RATIO_MAX(r[i][j], 1.0); /* its class: kernels/bounds.c */
            }
        }
    }
    const char *override = getenv("NVIDIA_TF32_OVERRIDE");
    bool tf32_off = override && strcmp(override, "0") == 0;
    ug_point(t, "verdicts");
    ug_note(t, "TF32 canary: mean relative error vs K, intercept / 2 = the operands' effective unit "
               "roundoff (NVIDIA_TF32_OVERRIDE=%s)", override ? override : "(unset)");
    for (int i = 0; i < kernels && i < UG_MAX_K; i++) {
        double K[UG_MAX_N], e[UG_MAX_N];
        int m = 0;
        char line[400];
        int used = snprintf(line, sizeof line, "%-32s", names[i]);
        const char *why = NULL;
        for (int j = 0; j < count && j < UG_MAX_N; j++) {
            const ug_result *x = r[i][j];
            if (!x) continue;
            if (x->failed_run || x->count == 0) {
                why = x->run_error[0] ? x->run_error : "not run";
                continue;
            }
            K[m] = (double)ns[j];
            e[m++] = x->rel_mean;
            used += snprintf(line + used, sizeof line - (size_t)used, " K=%zu: %.3g", ns[j], x->rel_mean);
        }
        if (m < 2) {
            ug_note(t, "%s: no verdict (%s)", names[i], why ? why : "fewer than 2 sizes measured");
            continue;
        }
        double u_eff = ug_fit_intercept(K, e, m) / 2;
        ug_note(t, "%s | u_eff %.3g (2^%.1f): %s", line, u_eff, u_eff > 0 ? log2(u_eff) : -INFINITY,
                ug_verdict_name(u_eff));
        ug_verdict want = override_applies[i] && tf32_off ? UG_V_FP32 : expect[i];
        UG_EXPECT_MSG(ug_verdict_holds(want, u_eff), "%s: u_eff %.3g (%s), its compute type "
                      "documents %s", names[i], u_eff, ug_verdict_name(u_eff),
                      want == UG_V_FP32 ? "fp32 operands" : want == UG_V_10BIT ? "10-bit operands"
                                                                                : "7- or 10-bit operands");
    }
}

#define UG_CANARY_RUN(t, table, ns)                                                           \
    do {                                                                                       \
        enum { n_ = sizeof(table) / sizeof((table)[0]) };                                      \
        const char *names_[n_];                                                                \
        ug_verdict expect_[n_];                                                                \
        bool override_[n_];                                                                    \
        for (int i_ = 0; i_ < n_; i_++)                                                        \
            names_[i_] = (table)[i_].kernel, expect_[i_] = (table)[i_].expect,                 \
            override_[i_] = (table)[i_].tf32_override;                                         \
        ug_canary((t), (ns), (int)(sizeof(ns) / sizeof((ns)[0])), names_, expect_, override_, n_); \
    } while (0)

/* The known answers, on the CPU: the canary must tell fp32 from TF32. */
UG_CASE(tf32_canary, cpu)
{
    static const size_t ns[] = {16, 64, 256};
    UG_CANARY_RUN(t, ug_canary_cpu, ns);
}

UG_CASE_EX(tf32_canary, gpu, UG_CASE_GPU)
{
    static const size_t ns[] = {16, 64, 256, 1024};
    UG_CANARY_RUN(t, ug_canary_gpu, ns);
}
