/*
 * gpu_determinism.c - run-to-run determinism of the GPU kernels.
 *
 * Every kernel whose registry line declares it deterministic must give bitwise-identical output
 * over >= 10 runs on the same input (asserted: a single distinct result).  The atomic
 * reductions are declared nondeterministic: the number of distinct results they gave is
 * reported, not asserted (it depends on scheduling, and 1 is possible).
 */
#include "ug.h"

enum { UG_REPEATS = 12 };

static void ug_det_all(ug_t *t, ug_op op, const ug_input *in)
{
    UG_FOR_KERNELS(t, k, op, UG_CUDA, "*") {
        ug_result *r = ug_measure_repeat(t, k, in, UG_REPEATS);
        UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c (the first run) */
        if (!k->nondeterministic) {
            UG_EXPECT_DISTINCT_MAX(r, 1); /* declared deterministic: one result, bitwise */
        } else {
            ug_note(t, "%s (nondeterministic): %d distinct results in %d runs", k->name,
                    r->distinct_results, r->repeats);
            ug_result_extra(r, "distinct_results", r->distinct_results);
        }
    }
}

/* Sums: a length that is no power of two and fills the grid-wide kernels' 1024 blocks, on
 * signed data (so that the order of additions changes the bits), and a short one. */
UG_CASE_EX(gpu_determinism, reduce, UG_CASE_GPU)
{
    static const size_t ns[] = {1025, 1000003};
    ug_dist d = ug_normal(0, 1);
    UG_FOR_N(t, n, ns) {
        ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, 1);
        ug_det_all(t, UG_OP_SUM, in);
        ug_input_free(t, in);
    }
}

/* Matmul: a size with partial tiles and one cuBLAS treats as large. */
UG_CASE_EX(gpu_determinism, matmul, UG_CASE_GPU)
{
    static const size_t ns[] = {255, 1000};
    ug_dist d = ug_normal(0, 1);
    UG_FOR_N(t, n, ns) {
        ug_input *in = ug_input_make_gemm(t, &d, n, n, n, 1);
        ug_det_all(t, UG_OP_GEMM, in);
        ug_input_free(t, in);
    }
}
