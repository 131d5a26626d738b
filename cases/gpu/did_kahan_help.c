/*
 * did_kahan_help.c - "Kahan did not help on my GPU": under which build and which reference
 * does the Kahan-matmul post's compensated kernel appear no better than the naive one, and why.
 *
 * The experiment of the Kahan-matmul post (kahan_matmul.c): n = 1000, its generator (MSVC
 * rand(), srand(0)), naive vs Kahan matmul, error measured by the post's metric (per element
 * |c - d| / |d| in float, max and float mean) against a reference d.  Here it runs in every
 * build variant of the kernels (@default: nvcc contracts t += a*b into an FMA; @nofma:
 * -fmad=false; @fastmath: --use_fast_math) and against the references a post could have used:
 *   post    the post's own: float products accumulated in double, stored as float
 *   f32     a host float loop: t += a*b in k order, every product and sum rounded (no FMA)
 *   fma     the same loop contracted, t = fmaf(a, b, t) (a host compiler with FMA and
 *           -ffp-contract=fast, or -ffast-math on an FMA target)
 *   f64     exact products accumulated in double, stored as float
 * and, side by side, the exact errors against the oracle (ULP, relative).
 *
 * What is asserted, and why:
 *  - every kernel and variant: its a-priori class (bound ratio <= 1); Kahan's on this data of
 *    condition 1 (positive terms, S = |s|): (3u + 4Ku^2) S <= (3 + 4Ku) ulp;
 *  - the mechanisms, bit for bit (same operations in the same order give the same bits):
 *    matmul_naive@nofma equals the f32 loop, matmul_naive@default the fma loop (nvcc contracts
 *    t += a*b into fma(a, b, t)); every @fastmath kernel equals its @default build (nvcc never
 *    reassociates, and this data has no subnormals for --ftz to flush): on the GPU fast-math
 *    does not delete the compensation;
 *  - so against the f32 (fma) reference the naive kernel of that build shows error 0 and Kahan
 *    a positive one: the reference *is* the naive computation, and Kahan "looks worse".
 * The table is the one docs/variants.md's "Did Kahan help?" quotes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/ug.h"

enum { UG_DKH_N = 1000, UG_DKH_REFS = 4 };

static const char *const ug_dkh_ref_names[UG_DKH_REFS] = {"post", "f32", "fma", "f64"};

/* The four references (row-major n x n, k in order for every element), into d[r], allocated
 * here (n*n floats each, the caller's to free; -1: out of memory, nothing left allocated).  Loop
 * order i, k, j with a row of accumulators: each element still sums k = 0..n-1 in order. */
static int ug_dkh_references(const float *a, const float *b, size_t n, float *d[UG_DKH_REFS])
{
    double *post = malloc(n * sizeof *post), *f64 = malloc(n * sizeof *f64);
    float *f32 = malloc(n * sizeof *f32), *fma = malloc(n * sizeof *fma);
    int rc = -1;
    for (int r = 0; r < UG_DKH_REFS; r++) d[r] = malloc(n * n * sizeof *d[r]);
    for (int r = 0; r < UG_DKH_REFS; r++)
        if (!d[r]) goto err;
    if (!post || !f64 || !f32 || !fma) goto err;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) post[j] = f64[j] = 0, f32[j] = fma[j] = 0;
        for (size_t k = 0; k < n; k++) {
            float x = a[i * n + k];
            for (size_t j = 0; j < n; j++) {
                float y = b[k * n + j];
                float p = x * y; /* c11: no contraction, the product rounded */
                post[j] += p;
                f32[j] += p;
                fma[j] = fmaf(x, y, fma[j]);
                f64[j] += (double)x * (double)y; /* exact product */
            }
        }
        for (size_t j = 0; j < n; j++) {
            d[0][i * n + j] = (float)post[j];
            d[1][i * n + j] = f32[j];
            d[2][i * n + j] = fma[j];
            d[3][i * n + j] = (float)f64[j];
        }
    }
    rc = 0;
err:
    free(post);
    free(f64);
    free(f32);
    free(fma);
    for (int r = 0; r < UG_DKH_REFS && rc != 0; r++) {
        free(d[r]);
        d[r] = NULL;
    }
    return rc;
}

/* The post's error loop, as written: err in float, max and sum in float. */
static void ug_dkh_post_metric(const float *c, const float *d, size_t count, float *max_out,
                               float *mean_out)
{
    float max_err = 0, sum = 0;
    for (size_t i = 0; i < count; i++)
        if (d[i] != 0) {
            float err = fabsf((c[i] - d[i]) / d[i]);
            if (max_err < err) max_err = err;
            sum += err;
        }
    *max_out = max_err;
    *mean_out = sum / (float)count;
}

static bool ug_dkh_same_bits(const float *x, const float *y, size_t count, size_t *first)
{
    for (size_t i = 0; i < count; i++)
        if (memcmp(&x[i], &y[i], sizeof x[i]) != 0) {
            *first = i;
            return false;
        }
    return true;
}

static const char *const ug_dkh_kernels[] = {"matmul_naive", "matmul_kahan"};
static const char *const ug_dkh_variants[] = {"default", "nofma", "fastmath"};
enum { UG_DKH_K = 2, UG_DKH_V = 3 };

UG_CASE_EX(did_kahan_help, n1000, UG_CASE_GPU)
{
    const size_t n = UG_DKH_N, count = n * n;
    ug_dist dist = ug_msvc_rand01();
    ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &dist, &(ug_shape){{n, n, n}}, 1);
    if (in->first_trial != 0) ug_skip(t, "did_kahan_help/n1000 is trial 0 (srand(0)) only");
    ug_result *r[UG_DKH_K][UG_DKH_V];
    memset(r, 0, sizeof r);
    const double kahan_ulp = 3 + 4 * (double)n * 0x1p-24; /* (3u + 4Ku^2) S, S = |s| */
    for (int k = 0; k < UG_DKH_K; k++)
        for (int v = 0; v < UG_DKH_V; v++) {
            char id[64];
            snprintf(id, sizeof id, "%s@%s", ug_dkh_kernels[k], ug_dkh_variants[v]);
            UG_ASSERT_MSG(ug_builtin_kernel(t, id) != NULL, "%s is not registered", id);
            UG_FOR_KERNELS(t, kk, UG_OP_GEMM, UG_CUDA, id) {
                r[k][v] = ug_measure(t, kk, in);
                UG_EXPECT_BOUND_RATIO_MAX(r[k][v], 1.0); /* a-priori class */
                if (k == 1) UG_EXPECT_ULP_MAX(r[k][v], kahan_ulp); /* condition 1 (header) */
            }
        }
    for (int k = 0; k < UG_DKH_K; k++)
        for (int v = 0; v < UG_DKH_V; v++)
            if (!r[k][v] || r[k][v]->failed_run) {
                ug_point(t, "table");
                ug_note(t, "not every kernel ran (--kernel, or a failure above): no table");
                ug_input_free(t, in);
                return;
            }

    float *d[UG_DKH_REFS];
    UG_ASSERT_MSG(ug_dkh_references(in->x[0], in->y[0], n, d) == 0, "out of memory for the references");

    /* the mechanisms, bit for bit */
    size_t first = 0;
    ug_point(t, "mechanism naive@nofma_is_the_f32_loop");
    UG_EXPECT_MSG(ug_dkh_same_bits(r[0][1]->out[0], d[1], count, &first),
                  "matmul_naive@nofma differs from the float loop at element %zu: %a vs %a", first,
                  (double)r[0][1]->out[0][first], (double)d[1][first]);
    ug_point(t, "mechanism naive@default_is_the_fma_loop");
    UG_EXPECT_MSG(ug_dkh_same_bits(r[0][0]->out[0], d[2], count, &first),
                  "matmul_naive@default differs from the fmaf loop at element %zu: %a vs %a", first,
                  (double)r[0][0]->out[0][first], (double)d[2][first]);
    for (int k = 0; k < UG_DKH_K; k++) {
        ug_point(t, "mechanism %s@fastmath_is_%s@default", ug_dkh_kernels[k], ug_dkh_kernels[k]);
        UG_EXPECT_BITWISE_EQ(r[k][2], r[k][0]);
    }

    /* the table: the post's metric against each reference, the exact errors */
    float pmax[UG_DKH_K][UG_DKH_V][UG_DKH_REFS], pmean[UG_DKH_K][UG_DKH_V][UG_DKH_REFS];
    for (int k = 0; k < UG_DKH_K; k++)
        for (int v = 0; v < UG_DKH_V; v++)
            for (int i = 0; i < UG_DKH_REFS; i++)
                ug_dkh_post_metric(r[k][v]->out[0], d[i], count, &pmax[k][v][i], &pmean[k][v][i]);
    for (int i = 0; i < UG_DKH_REFS; i++) free(d[i]);

    ug_point(t, "table");
    ug_note(t, "did_kahan_help/n1000: the Kahan-matmul post's experiment (n = 1000, srand(0)) per "
               "build and reference; post metric = max / mean of |c - d| / |d| in float");
    ug_note(t, "%-22s | %-21s | %-21s | %-21s | %-21s | exact: %-8s %-8s %-9s %-9s", "kernel",
            "ref post (max/mean)", "ref f32 (max/mean)", "ref fma (max/mean)", "ref f64 (max/mean)",
            "ulp_max", "ulp_mean", "rel_max", "rel_mean");
    for (int v = 0; v < UG_DKH_V; v++)
        for (int k = 0; k < UG_DKH_K; k++) {
            char cols[UG_DKH_REFS][32];
            for (int i = 0; i < UG_DKH_REFS; i++) {
                snprintf(cols[i], sizeof cols[i], "%.3g / %.3g", pmax[k][v][i], pmean[k][v][i]);
                char name[64];
                snprintf(name, sizeof name, "post_max_vs_%s", ug_dkh_ref_names[i]);
                ug_result_extra(r[k][v], name, pmax[k][v][i]);
                snprintf(name, sizeof name, "post_mean_vs_%s", ug_dkh_ref_names[i]);
                ug_result_extra(r[k][v], name, pmean[k][v][i]);
            }
            const ug_result *x = r[k][v];
            ug_note(t, "%-22s | %-21s | %-21s | %-21s | %-21s |        %-8.3g %-8.3g %-9.3g %-9.3g",
                    x->kernel->id, cols[0], cols[1], cols[2], cols[3], x->ulp_max, x->ulp_mean,
                    x->rel_max, x->rel_mean);
        }
    /* Kahan against the naive computation itself: the "no gain" setups */
    for (int v = 0; v < 2; v++) {
        int ref = v == 0 ? 2 : 1; /* @default is the fma loop, @nofma the f32 loop */
        ug_note(t, "against the %s loop (= matmul_naive@%s bit for bit): naive %.3g / %.3g, Kahan "
                   "%.3g / %.3g: Kahan looks worse, while its exact error is %.3g ulp mean vs "
                   "naive's %.3g", ug_dkh_ref_names[ref], ug_dkh_variants[v], pmax[0][v][ref],
                pmean[0][v][ref], pmax[1][v][ref], pmean[1][v][ref], r[1][v]->ulp_mean,
                r[0][v]->ulp_mean);
        UG_EXPECT_MSG(pmax[0][v][ref] == 0 && pmax[1][v][ref] > 0,
                      "against the %s loop: naive max %.3g (want 0: the same computation), Kahan "
                      "max %.3g (want > 0)", ug_dkh_ref_names[ref], pmax[0][v][ref], pmax[1][v][ref]);
    }
    ug_input_free(t, in);
}

/* The references as built above, on the CPU: the f32 loop is gemm_naive_cpu@default bit for
 * bit, and the f64 one (exact products, double sum, stored as float) is within half an ulp
 * plus the double sum's error (K u64 relative: 0.5 + 2^-15 ulp at K = 1000 covers it). */
UG_CASE(did_kahan_help, references)
{
    const size_t n = 200, count = n * n;
    ug_dist dist = ug_msvc_rand01();
    ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &dist, &(ug_shape){{n, n, n}}, 1);
    const ug_kernel *naive = ug_builtin_kernel(t, "gemm_naive_cpu@default");
    UG_ASSERT_MSG(naive != NULL, "gemm_naive_cpu@default is not registered");
    ug_result *r = ug_measure(t, naive, in);
    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
    float *d[UG_DKH_REFS];
    UG_ASSERT_MSG(ug_dkh_references(in->x[0], in->y[0], n, d) == 0, "out of memory for the references");
    size_t first = 0;
    ug_point(t, "f32_loop_is_gemm_naive_cpu");
    UG_EXPECT_MSG(!r->failed_run && ug_dkh_same_bits(r->out[0], d[1], count, &first),
                  "the f32 reference differs from gemm_naive_cpu@default at element %zu", first);
    ug_point(t, "f64_reference_within_half_an_ulp");
    double worst = 0;
    for (size_t e = 0; e < count; e++) {
        ug_error err = ug_error_of(&in->exact[0][e], d[3][e]);
        if (err.ulp > worst) worst = err.ulp;
    }
    ug_note(t, "f64 reference: max %.6g ulp from the exact product", worst);
    UG_EXPECT_MSG(worst <= 0.5 + 0x1p-15, "the f64 reference is %.6g ulp off", worst);
    for (int i = 0; i < UG_DKH_REFS; i++) free(d[i]);
    ug_input_free(t, in);
}
