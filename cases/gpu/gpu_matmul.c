/*
 * gpu_matmul.c - every GPU matmul kernel (the Kahan-matmul post's naive and Kahan, the CUDA-optimisation post's tiles,
 * cuBLAS fp32 and TF32) on square problems, every output element checked against the oracle.
 *
 * What is asserted, and why:
 *  - every kernel, distribution and size: bound ratio <= 1 (the a-priori class of its registry
 *    line; a ratio above 1 is a bug in the kernel or in its declared class);
 *  - kernels that keep another's order of operations give the same bits (tiled vs untiled);
 *  - the binary64 GEMMs (the DGEMM family, kernels/cuda/gemm_f64.cu: cuBLAS DGEMM pedantic and
 *    default, CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT at its default dynamic mantissa control)
 *    on binary64 inputs, against the exact binary64 product: bound ratio <= 1 (f64_tree, depth
 *    K-1; NVIDIA documents the dynamic emulation as at least binary64's accuracy, and the class
 *    checks that claim).  Modest sizes: the binary64 oracle costs ~100 ns a product on one core.
 *    The emulation's other mantissa settings (fixed 55 and 39 bits) are tests/gemm_f64.c's.
 * Measured figures (ULP errors, GFLOP/s) are gated by the per-device baselines, not here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/run/ug.h"

static const size_t ug_mm_sizes[] = {1, 15, 16, 17, 255, 1000, 1024, 2048};
static const size_t ug_mm_sizes_slow[] = {4096};

enum { UG_MM_SPEED_ROWS = 48 }; /* kernels in the speed table */

/* Kernels that keep another's order of operations exactly (the tiles change where operands
 * come from, not the k order of the FMA chain, and skip the zero padding: kernels/cuda/matmul.cu),
 * so their outputs must be the same bits. */
static const struct {
    const char *kernel, *same_as;
} ug_mm_same_order[] = {
    {"matmul_tiled", "matmul_naive"},
    {"matmul_tiled_kahan", "matmul_kahan"},
};

/* The result measured in this input's loop for the kernel called name in that build variant,
 * or NULL. */
static ug_result *ug_mm_find(ug_result **done, int count, const char *name, const char *variant)
{
    for (int i = 0; i < count; i++)
        if (strcmp(done[i]->kernel->name, name) == 0 && strcmp(done[i]->kernel->variant, variant) == 0)
            return done[i];
    return NULL;
}

/* Trials: a few for the small sizes, one from 1000 on (the oracle does K exact products per
 * element: 8.6e9 of them at 2048). */
static int ug_mm_trials(ug_t *t, size_t n) { return ug_trials(t, n <= 255 ? 3 : 1); }

/* Every kernel on one input: its bound ratio, and the same-order pairs bitwise. */
static void ug_mm_input(ug_t *t, const ug_input *in, char (*speed)[128], int *kernels)
{
    ug_result *done[64];
    int count = 0;
    UG_FOR_KERNELS(t, k, UG_OP_GEMM, UG_CUDA, "*") {
        ug_result *r = ug_measure(t, k, in);
        UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c */
        if (count < 64) done[count++] = r;
        if (speed && *kernels < UG_MM_SPEED_ROWS)
            snprintf(speed[(*kernels)++], sizeof speed[0], "%-28.64s ulp_max %-9.3g %9.1f GFLOP/s",
                     k->id, r->ulp_max, r->gflops);
    }
    /* in every build variant: the flags change both kernels' arithmetic alike */
    for (size_t i = 0; i < sizeof ug_mm_same_order / sizeof ug_mm_same_order[0]; i++)
        for (int j = 0; j < count; j++) {
            if (strcmp(done[j]->kernel->name, ug_mm_same_order[i].kernel) != 0) continue;
            ug_result *a = done[j];
            ug_result *b = ug_mm_find(done, count, ug_mm_same_order[i].same_as, a->kernel->variant);
            if (!b || a->failed_run || b->failed_run || !a->out || !b->out) continue;
            ug_point(t, "same_order %s %s n=%zu", a->kernel->id, b->kernel->id, in->shape.dim[2]);
            UG_EXPECT_BITWISE_EQ(a, b);
        }
}

static void ug_mm_all(ug_t *t)
{
    const ug_dist d = ug_param_of(t)->dist;
    UG_FOR_SIZES(t, n, ug_mm_sizes) {
        ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &d,
                                           &(ug_shape){{n, n, n}}, ug_mm_trials(t, n));
        char speed[UG_MM_SPEED_ROWS][128];
        int kernels = 0;
        ug_mm_input(t, in, speed, &kernels);
        /* the speed table at the largest size (results.json has every size) */
        if (n >= 2048 && kernels > 0) {
            char label[160];
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
        ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &d,
                                           &(ug_shape){{shapes[i][0], shapes[i][1], shapes[i][2]}}, ug_trials(t, 2));
        ug_mm_input(t, in, NULL, NULL);
        ug_input_free(t, in);
    }
}

/* Binary64 GEMM: every CUDA kernel of binary64 input (UG_FOR_IN_KERNELS), square and
 * rectangular shapes up to 128^3 (2.1e6 exact binary64 products: ~0.2 s of oracle on one core). */
static const size_t ug_mm_f64_shapes[][3] = {{1, 1, 1},   {17, 17, 17},   {64, 64, 64},
                                             {128, 128, 128}, {33, 65, 300}, {100, 7, 1000}};

static const ug_param ug_mm_f64_dists[] = {
    {"f64_uniform01", UG_UNIFORM(0, 1, .fmt = UG_F64)},
    {"f64_normal", UG_NORMAL(0, 1, .fmt = UG_F64)},
};

UG_CASE_OVER(gpu_matmul, ug_mm_f64_dists, UG_CASE_GPU)
{
    const ug_dist d = ug_param_of(t)->dist;
    for (size_t i = 0; i < sizeof ug_mm_f64_shapes / sizeof ug_mm_f64_shapes[0]; i++) {
        const size_t *sh = ug_mm_f64_shapes[i];
        if (!ug_n_selected(t, sh[0])) continue;
        ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &d,
                                           &(ug_shape){{sh[0], sh[1], sh[2]}}, ug_trials(t, sh[2] <= 64 ? 2 : 1));
        UG_FOR_IN_KERNELS(t, k, UG_OP_GEMM, UG_CUDA, "*", UG_F64) {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* f64_tree, depth K-1: kernels/bounds.c */
        }
        ug_input_free(t, in);
    }
}
