/*
 * gemm_f64.c - binary64 GEMM (kernels/cuda/gemm_f64.cu: cuBLAS DGEMM pedantic and default, and
 * CUDA 13's fixed-point emulation with its mantissa controls) against the exact binary64
 * product, on typed buffers of its own, for what the harness's walk does not select: the
 * emulation's mantissa controls (launch configs) and K up to 16384 (cases/gpu/gpu_matmul.c
 * grades every DGEMM kernel at its default on the harness's binary64 inputs).  This program
 * adds the family as a fixture when the build does not register it, as
 * tests/kernels_formats.c does for the other number-format families, and grades each element
 * with the exact binary64 dot product (oracle/exact_dot64.c's fast path, MPFR beyond its range).
 *
 *   gemm_f64_gpu/emulation   M = N = 64, K = 256 ... 16384, A's entries scaled by 2^r with r
 *                            uniform in [-e, e] for e = 0, 10, 30 (growing dynamic range), B
 *                            uniform in (-1, 1), every entry with 53 random significand bits.
 * Per point: max and mean binary64 ULP error, bound ratio (f64_tree, depth K-1: gamma_K(2^-53)
 * sum |a b|), time, and the share of elements whose bits differ from dgemm_pedantic's.
 * Asserted: bound ratio <= 1 for dgemm_pedantic, dgemm and dgemm_emulated with the dynamic
 * mantissa control (configs 0 and 1: NVIDIA documents them as at least binary64's accuracy);
 * the FIXED mantissa counts (configs 2: 55 bits, 3: 39 bits) are reported, not asserted.
 * Without a device the case skips.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/ug.h"
#include "kernels/registry_testing.h"
#include "oracle/oracle.h"

#if UG_GF_CUDA && !UG_FORMAT_FAMILIES_REGISTERED
extern const ug_family UG_FAMILY_SYMBOL(gemm_f64, default);
__attribute__((constructor)) static void ug_gf_register(void)
{
    ug_registry_add_family(&UG_FAMILY_SYMBOL(gemm_f64, default));
}
#endif

enum { UG_GF_MN = 64 };

static uint64_t ug_gf_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in (-1, 1) with 53 random significand bits, times 2^r, r uniform in [-e, e]. */
static double ug_gf_value(uint64_t *s, int e)
{
    double v = (double)(ug_gf_next(s) >> 11) * 0x1p-53 * 2 - 1;
    int r = e ? (int)(ug_gf_next(s) % (uint64_t)(2 * e + 1)) - e : 0;
    return ldexp(v, r);
}

typedef struct {
    double ulp_max, ulp_mean, ratio_max, ms, differ;
    size_t worst;
    double worst_got, worst_exact;
} ug_gf_stats;

/* Run k (launch config cfg) on A, B into C; 0, or nonzero with c->err (unsupported: skip). */
static int ug_gf_run(const ug_kernel *k, int cfg, const double *A, const double *B, double *C,
                     size_t K, ug_call *c)
{
    memset(c, 0, sizeof *c);
    c->op = UG_OP_GEMM;
    c->shape.dim[0] = UG_GF_MN;
    c->shape.dim[1] = UG_GF_MN;
    c->shape.dim[2] = K;
    c->in[0] = (ug_arg){A, UG_F64, UG_GF_MN * K};
    c->in[1] = (ug_arg){B, UG_F64, K * UG_GF_MN};
    c->out[0] = (ug_arg_out){C, UG_F64, UG_GF_MN * UG_GF_MN};
    c->launch_config = cfg;
    c->reps = 5;
    return ug_kernel_run(k, c);
}

static ug_gf_stats ug_gf_grade(const ug_kernel *k, size_t K, const double *C, const ug_exact *x,
                               const double *ref)
{
    ug_gf_stats st = {0};
    size_t count = UG_GF_MN * UG_GF_MN, differ = 0;
    for (size_t e = 0; e < count; e++) {
        ug_error err = ug_error_fmt(&x[e], UG_F64, C[e]);
        double bound = ug_bound_terms(k, UG_TERMS_PRODUCTS, K, x[e].sum_abs, fabs(x[e].hi));
        double ratio = err.abs == 0 ? 0 : bound > 0 ? err.abs / bound : INFINITY;
        st.ulp_mean += err.ulp / (double)count;
        if (!(err.ulp <= st.ulp_max)) st.ulp_max = err.ulp;
        if (!(ratio <= st.ratio_max)) st.ratio_max = ratio, st.worst = e;
        if (ref && memcmp(&C[e], &ref[e], sizeof(double)) != 0) differ++;
    }
    st.worst_got = C[st.worst];
    st.worst_exact = x[st.worst].hi;
    st.differ = 100.0 * (double)differ / (double)count;
    return st;
}

UG_CASE_EX(gemm_f64_gpu, emulation, UG_CASE_GPU)
{
    static const size_t ks[] = {256, 1024, 4096, 16384};
    static const int ranges[] = {0, 10, 30};
    static const struct {
        const char *kernel;
        int config;
        bool asserted;
        const char *what;
    } runs[] = {
        {"dgemm_pedantic", 0, true, "native, pedantic"},
        {"dgemm", 0, true, "native, default strategy"},
        {"dgemm_emulated", 0, true, "emulated, dynamic mantissa"},
        {"dgemm_emulated", 1, true, "emulated, dynamic, offset +8"},
        {"dgemm_emulated", 2, false, "emulated, fixed 55 bits"},
        {"dgemm_emulated", 3, false, "emulated, fixed 39 bits"},
    };
    if (!ug_gpu_available()) {
        ug_skip(t, "no CUDA device");
        return;
    }
    size_t kmax = ks[sizeof ks / sizeof ks[0] - 1];
    double *A = malloc(UG_GF_MN * kmax * sizeof *A), *B = malloc(kmax * UG_GF_MN * sizeof *B);
    double *C = malloc(UG_GF_MN * UG_GF_MN * sizeof *C), *ref = malloc(UG_GF_MN * UG_GF_MN * sizeof *ref);
    ug_exact *x = malloc(UG_GF_MN * UG_GF_MN * sizeof *x);
    UG_ASSERT(A && B && C && ref && x);
    for (size_t ri = 0; ri < sizeof ranges / sizeof ranges[0]; ri++)
        UG_FOR_N(t, K, ks) {
            uint64_t s = ug_seed(t) ^ (0x9e37u * (uint64_t)K + (uint64_t)ranges[ri]);
            for (size_t i = 0; i < UG_GF_MN * K; i++) A[i] = ug_gf_value(&s, ranges[ri]);
            for (size_t i = 0; i < K * UG_GF_MN; i++) B[i] = ug_gf_value(&s, 0);
            for (size_t e = 0; e < UG_GF_MN * UG_GF_MN; e++)
                ug_exact_dot_f64(A + (e / UG_GF_MN) * K, 1, B + e % UG_GF_MN, UG_GF_MN, K, &x[e]);
            bool have_ref = false;
            char lines[sizeof runs / sizeof runs[0]][200];
            memset(lines, 0, sizeof lines);
            for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
                const ug_kernel *k = ug_kernel_find(runs[i].kernel);
                ug_point(t, "%s config %d K=%zu range 2^+-%d", runs[i].kernel, runs[i].config, K,
                         ranges[ri]);
                UG_EXPECT_MSG(k != NULL, "kernel %s is not registered", runs[i].kernel);
                if (!k) continue;
                ug_call c;
                if (ug_gf_run(k, runs[i].config, A, B, C, K, &c) != 0) {
                    if (c.unsupported)
                        snprintf(lines[i], sizeof lines[i], "%-34s not offered here: %.120s",
                                 runs[i].what, c.err);
                    else
                        UG_EXPECT_MSG(false, "%s (%s): %s", k->name, runs[i].what, c.err);
                    continue;
                }
                ug_gf_stats st = ug_gf_grade(k, K, C, x, have_ref ? ref : NULL);
                if (i == 0) memcpy(ref, C, UG_GF_MN * UG_GF_MN * sizeof *C), have_ref = true;
                snprintf(lines[i], sizeof lines[i], "%-34s %10.3g %10.3g %10.3g %8.4g %11.1f%%",
                         runs[i].what, st.ulp_max, st.ulp_mean, st.ratio_max, c.time_ms,
                         have_ref && i ? st.differ : 0.0);
                if (runs[i].asserted)
                    UG_EXPECT_MSG(st.ratio_max <= 1.0,
                                  "%s (%s), K=%zu, A scaled 2^+-%d: bound ratio %.3g at element %zu "
                                  "(row %zu, column %zu): got %a, exact %a (f64_tree, depth K-1)",
                                  k->name, runs[i].what, K, ranges[ri], st.ratio_max, st.worst,
                                  st.worst / UG_GF_MN, st.worst % UG_GF_MN, st.worst_got,
                                  st.worst_exact);
            }
            ug_point(t, "table K=%zu range 2^+-%d", K, ranges[ri]);
            ug_note(t, "%-34s %10s %10s %10s %8s %12s", "M=N=64", "ulp_max", "ulp_mean", "ratio",
                    "ms", "!=pedantic");
            for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
                if (lines[i][0]) ug_note(t, "%s", lines[i]);
        }
    free(A);
    free(B);
    free(C);
    free(ref);
    free(x);
}
