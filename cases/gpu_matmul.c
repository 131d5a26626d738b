/*
 * gpu_matmul.c - every GPU matmul kernel (the Kahan-matmul post's naive and Kahan, the CUDA-optimisation post's tiles,
 * cuBLAS fp32 and TF32) on square problems, every output element checked against the oracle.
 *
 * What is asserted, and why:
 *  - every kernel, distribution and size: bound ratio <= 1 (the a-priori class of its registry
 *    line; a ratio above 1 is a bug in the kernel or in its declared class);
 *  - on uniform(0,1) (all products >= 0: condition number 1, so ULP and relative errors are
 *    meaningful): max ULP and max relative error below per-kernel limits measured on the GPU
 *    machine, with the headroom given in the table.  On normal(0,1) and GenDot the outputs
 *    near 0 make ULP/relative errors unbounded by design: there only the bound ratio holds.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ug.h"

static const size_t ug_mm_sizes[] = {1, 15, 16, 17, 255, 1000, 1024, 2048};
static const size_t ug_mm_sizes_slow[] = {4096};

/* Per-kernel limits on uniform(0,1) (and the rectangular shapes), measured on the GPU machine
 * (an H200, seed 0x5eed) over every size up to 2048, with 2x headroom; the slow case (4096)
 * uses the same limits: there the plain loops measured 74.2 ulp, 4.62e-6 (1.3x headroom).
 * A-priori the plain loops allow ~K ulp (gamma_K S with S = |s|), Kahan ~3 ulp. */
typedef struct {
    const char *kernel;
    double ulp_max, rel_max;
    const char *why;
} ug_mm_limit;

static const ug_mm_limit ug_mm_limits[] = {
    {"matmul_naive", 2 * 49.6, 2 * 3.05e-6, "measured 49.6 ulp, 3.05e-6 (K = 2048)"},
    {"matmul_tiled", 2 * 49.6, 2 * 3.05e-6, "the same k order as naive: the same bits"},
    {"matmul_kahan", 1.0, 0x1p-23, "faithful (<= 1 ulp, rel <= 2^-23): measured 0.87 ulp (K=15)"},
    {"matmul_tiled_kahan", 1.0, 0x1p-23, "the same k order as matmul_kahan: the same bits"},
    {"matmul_naive_nofma", 2 * 49.6, 2 * 3.05e-6, "one more rounding a term: measured 50.6 ulp"},
    {"matmul_kahan_nofma", 1.0, 0x1p-23, "faithful: measured 0.88 ulp, 7.8e-8"},
    {"cublas_sgemm", 2 * 49.6, 2 * 3.05e-6, "naive's errors exactly for K >= 1000 (a k-order FMA chain); split orders, smaller errors, below"},
    {"cublas_sgemm_tf32", 8192.0, 6e-4, "TF32 operands (2^-10 a product): measured 3954 ulp, 3.07e-4 (K=16)"},
};

static const ug_mm_limit *ug_mm_limit_of(ug_t *t, const ug_kernel *k)
{
    return UG_KERNEL_ROW(t, ug_mm_limits, k); /* NULL: a new kernel, only its a-priori bound */
}

/* Trials: a few for the small sizes, one from 1000 on (the oracle does K exact products per
 * element: 8.6e9 of them at 2048). */
static int ug_mm_trials(ug_t *t, size_t n) { return ug_trials(t, n <= 255 ? 3 : 1); }

static void ug_mm_all(ug_t *t)
{
    const ug_dist d = ug_param_of(t)->dist;
    bool one_signed = ug_dist_one_signed(&d);
    UG_FOR_SIZES(t, n, ug_mm_sizes) {
        ug_input *in = ug_input_make_gemm(t, &d, n, n, n, ug_mm_trials(t, n));
        char speed[16][80];
        int kernels = 0;
        UG_FOR_KERNELS(t, k, UG_OP_GEMM, UG_CUDA, "*") {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c */
            const ug_mm_limit *lim = ug_mm_limit_of(t, k);
            if (one_signed && lim) {
                UG_EXPECT_ULP_MAX(r, lim->ulp_max);
                UG_EXPECT_REL_MAX(r, lim->rel_max);
            }
            if (kernels < 16)
                snprintf(speed[kernels++], sizeof speed[0], "%-20s ulp_max %-9.3g %9.1f GFLOP/s",
                         k->name, r->ulp_max, r->gflops);
        }
        /* the speed table at the largest size (results.json has every size) */
        if (n >= 2048 && kernels > 0) {
            char label[96];
            ug_point(t, "speed n=%zu %s", n, ug_dist_describe(&d, label, sizeof label));
            for (int i = 0; i < kernels; i++) ug_note(t, "%s", speed[i]);
        }
        ug_input_free(t, in);
    }
}

static const ug_param ug_mm_dists[] = {
    {"uniform01", UG_UNIFORM(0, 1)},
    {"normal", UG_NORMAL(0, 1)},
    {"gendot_1e6", UG_GENDOT(1e6)},
    {"gendot_1e12", UG_GENDOT(1e12)},
};

static const ug_param ug_mm_dists_slow[] = {
    {"uniform01_4096", UG_UNIFORM(0, 1), UG_SIZES(ug_mm_sizes_slow)},
    {"normal_4096", UG_NORMAL(0, 1), UG_SIZES(ug_mm_sizes_slow)},
};

UG_CASE_OVER(gpu_matmul, ug_mm_dists, UG_CASE_GPU) { ug_mm_all(t); }
UG_CASE_OVER(gpu_matmul, ug_mm_dists_slow, UG_CASE_GPU | UG_CASE_SLOW) { ug_mm_all(t); }

/* Rectangular shapes: the launchers' M, N, K handling (the tiles' edges in every direction). */
UG_CASE_EX(gpu_matmul, rectangular, UG_CASE_GPU)
{
    static const size_t shapes[][3] = {{1, 33, 7}, {17, 1, 300}, {33, 65, 1}, {100, 31, 257}};
    ug_dist d = ug_uniform(0, 1);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        ug_input *in = ug_input_make_gemm(t, &d, shapes[i][0], shapes[i][1], shapes[i][2], ug_trials(t, 2));
        UG_FOR_KERNELS(t, k, UG_OP_GEMM, UG_CUDA, "*") {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
            const ug_mm_limit *lim = ug_mm_limit_of(t, k);
            if (lim) UG_EXPECT_ULP_MAX(r, lim->ulp_max);
        }
        ug_input_free(t, in);
    }
}
