/*
 * kahan_matmul.c - the Kahan-matmul post's experiment on the GPU (shared/seeds/000: "CUDA编程(十)
 * 使用Kahan's Summation Formula提高精度"): 1000 x 1000 matrices from its generator (MSVC rand,
 * srand(0), a then b), the naive kernel against the Kahan one.
 *
 * The post's own metric: d = the product accumulated in double from float products
 * (t += a*b with a*b rounded to float) and stored as float; per element err = |c - d| / |d| in
 * float for d != 0; it printed max err and (float sum of err) / (n*n):
 *     naive  2.07589e-6 / 3.3492e-7        Kahan  1.19206e-7 / 7.70641e-10
 * We print that metric, computed exactly as the post's code does, beside the exact errors
 * against the oracle (ULP and relative), and assert bounds on the exact errors.
 *
 * Finding (H200, reproduced bit for bit): the post's figures come from a build that rounds each
 * product before adding it (no fused multiply-add: -fmad=false, -G, or an old GPU).
 * matmul_naive@nofma and matmul_kahan@nofma (-fmad=false) print all four of the post's numbers exactly;
 * nvcc's default build (FMA) gives the same naive max 2.07589e-06 but mean 3.34824e-07, and
 * Kahan 1.19209e-07 / 9.76999e-10: with exact products Kahan lands farther from the post's
 * reference, which is itself built from rounded products, while its exact error is the same
 * (ulp_max 0.56 vs 0.60).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/ug.h"

enum { UG_POST_N = 1000 };

typedef struct {
    float max_err, mean_err;  /* the post's printout: float max, float sum / (n*n) */
    double mean_err_exact;    /* the same mean summed in double, to show the float sum's drift */
} ug_post_metric;

/* The post's reference d (row-major n x n): double accumulation, k in order, of float
 * products, stored as float.  Loop order i, k, j keeps each d[i][j]'s order k = 0..n-1. */
static float *ug_post_reference(const float *a, const float *b, size_t n)
{
    float *d = malloc(n * n * sizeof *d);
    double *row = malloc(n * sizeof *row);
    if (!d || !row) {
        free(d);
        free(row);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) row[j] = 0;
        for (size_t k = 0; k < n; k++) {
            float aik = a[i * n + k];
            for (size_t j = 0; j < n; j++) {
                float p = aik * b[k * n + j]; /* the post's a*b: a float product */
                row[j] += p;
            }
        }
        for (size_t j = 0; j < n; j++) d[i * n + j] = (float)row[j];
    }
    free(row);
    return d;
}

/* The post's error loop, as written: err in float, max and sum in float. */
static ug_post_metric ug_post_metric_of(const float *c, const float *d, size_t n)
{
    ug_post_metric m = {0, 0, 0};
    float max_err = 0, average_err = 0;
    for (size_t i = 0; i < n * n; i++) {
        if (d[i] != 0) {
            float err = fabsf((c[i] - d[i]) / d[i]);
            if (max_err < err) max_err = err;
            average_err += err;
            m.mean_err_exact += err;
        }
    }
    m.max_err = max_err;
    m.mean_err = average_err / (float)(n * n);
    m.mean_err_exact /= (double)(n * n);
    return m;
}

/* A value of the post's metric printed as the post printed it (%g) must give its digits. */
static void ug_expect_printed(ug_t *t, const char *what, float value, const char *published)
{
    char printed[32];
    snprintf(printed, sizeof printed, "%g", (double)value);
    UG_EXPECT_MSG(strcmp(printed, published) == 0, "the post's metric: %s prints as %s, the post printed %s",
                  what, printed, published);
}

/* The post's kernels: as built by default (nvcc contracts t += a*b into an FMA) and with every
 * product rounded on its own (-fmad=false, or a GPU without fp32 FMA).  Each keeps its a-priori
 * bound (kernels/bounds.c: gamma_{K+1} S for the plain loops, (3u + 4Ku^2) S for Kahan); the
 * post's own figures are reproduced to the digits it printed (below). */
static const char *const ug_post_kernels[] = {"matmul_naive@default", "matmul_kahan@default",
                                              "matmul_naive@nofma", "matmul_kahan@nofma"};
enum { UG_POST_KERNELS = sizeof ug_post_kernels / sizeof ug_post_kernels[0] };

UG_CASE_EX(kahan_matmul, published_n1000, UG_CASE_GPU)
{
    const size_t n = UG_POST_N;
    ug_dist d = ug_msvc_rand01();
    ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &d, &(ug_shape){{n, n, n}}, 1);
    if (in->first_trial != 0) {
        ug_skip(t, "kahan_matmul/published_n1000 is trial 0 (srand(0)) only");
        return;
    }
    ug_result *r[UG_POST_KERNELS];
    for (int i = 0; i < UG_POST_KERNELS; i++) {
        const ug_kernel *k = ug_builtin_kernel(t, ug_post_kernels[i]);
        UG_ASSERT_MSG(k != NULL, "%s not registered", ug_post_kernels[i]);
        r[i] = ug_measure(t, k, in);
        UG_EXPECT_BOUND_RATIO_MAX(r[i], 1.0); /* a-priori class: kernels/bounds.c */
    }

    ug_point(t, "table");
    for (int i = 0; i < UG_POST_KERNELS; i++)
        UG_ASSERT_MSG(!r[i]->failed_run, "%s failed: no table", r[i]->kernel->id);
    float *ref = ug_post_reference(in->x[0], in->y[0], n);
    UG_ASSERT_MSG(ref != NULL, "out of memory for the %zu x %zu reference", n, n);
    ug_post_metric m[UG_POST_KERNELS];
    for (int i = 0; i < UG_POST_KERNELS; i++) m[i] = ug_post_metric_of(r[i]->out[0], ref, n);
    free(ref);
    ug_note(t, "kahan_matmul/published_n1000: n = %zu, the post's generator (srand(0)), GPU", n);
    ug_note(t, "%-21s | post metric: max     mean        (mean summed in double) | exact: ulp_max  "
               "ulp_mean  rel_max    rel_mean", "kernel");
    for (int i = 0; i < UG_POST_KERNELS; i++) {
        ug_note(t, "%-21s |              %-11.6g %-11.6g (%-11.6g)            |        %-8.3g "
                   "%-9.3g %-10.3g %-10.3g", r[i]->kernel->id, m[i].max_err, m[i].mean_err,
                m[i].mean_err_exact, r[i]->ulp_max, r[i]->ulp_mean, r[i]->rel_max, r[i]->rel_mean);
        ug_result_extra(r[i], "post_max_err", m[i].max_err);
        ug_result_extra(r[i], "post_mean_err", m[i].mean_err);
    }
    ug_note(t, "%-21s |              %-11.6g %-11.6g", "post printed: naive", 2.07589e-6, 3.3492e-7);
    ug_note(t, "%-21s |              %-11.6g %-11.6g", "post printed: Kahan", 1.19206e-7, 7.70641e-10);
    /* The post's finding on the exact metric: Kahan is the more accurate by far. */
    UG_EXPECT_MSG(r[1]->ulp_mean * 10 < r[0]->ulp_mean,
                  "Kahan's mean ulp error %.3g is not 10x below naive's %.3g", r[1]->ulp_mean,
                  r[0]->ulp_mean);
    /* And on the post's metric (its reference is itself off by the float products' rounding,
     * so Kahan's distance to it is about one float ulp, not 0). */
    UG_EXPECT_MSG(m[1].max_err < m[0].max_err, "the post's metric: Kahan max %.3g not below naive %.3g",
                  m[1].max_err, m[0].max_err);
    /* The post's printed figures, reproduced to the digits it printed (generator, summation
     * order and rounding all as the post's build): a regression in any of them shows here. */
    ug_expect_printed(t, "matmul_naive max", m[0].max_err, "2.07589e-06");
    /* Without FMA, all four of the post's figures (see the header). */
    ug_expect_printed(t, "matmul_naive@nofma max", m[2].max_err, "2.07589e-06");
    ug_expect_printed(t, "matmul_naive@nofma mean", m[2].mean_err, "3.3492e-07");
    ug_expect_printed(t, "matmul_kahan@nofma max", m[3].max_err, "1.19206e-07");
    ug_expect_printed(t, "matmul_kahan@nofma mean", m[3].mean_err, "7.70641e-10");
    ug_input_free(t, in);
}
