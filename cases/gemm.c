/*
 * gemm.c - every CPU matrix-product kernel on square and edge shapes (each dimension 1, around a
 * tile of 16, odd sizes), every output element checked against the oracle: bound ratio <= 1,
 * the a-priori class of its registry row (gamma_{K} S per element for the serial loop,
 * kernels/bounds.c).  Measured figures go to the baselines, not here.
 */
#include "harness/run/ug.h"

/* GEMM shapes (M, N, K): square, a dimension of 1, around 16 (a tile of the GPU kernels, a
 * vector width of the CPU) and odd sizes. */
static const size_t ug_gemm_shapes[][3] = {
    {1, 1, 1}, {1, 1, 1000}, {1, 33, 7}, {17, 1, 300}, {33, 65, 1}, {15, 16, 17}, {16, 16, 16},
    {17, 17, 17}, {100, 31, 257}, {128, 128, 128},
};

static const ug_param ug_gemm_dists[] = {
    {"uniform01", UG_UNIFORM(0, 1)},
    {"normal", UG_NORMAL(0, 1)},
    {"gendot_1e6", UG_GENDOT(1e6)},
};

UG_CASE_OVER(gemm, ug_gemm_dists, 0)
{
    const ug_param *p = ug_param_of(t);
    for (size_t i = 0; i < sizeof ug_gemm_shapes / sizeof ug_gemm_shapes[0]; i++) {
        const size_t *s = ug_gemm_shapes[i];
        if (!ug_n_selected(t, s[0])) continue;
        ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &p->dist,
                                           &(ug_shape){{s[0], s[1], s[2]}}, 2);
        UG_FOR_KERNELS(t, k, UG_OP_GEMM, UG_CPU, "*") {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: gamma_{K} S per element */
        }
        ug_input_free(t, in);
    }
}
