/*
 * dot.c - every CPU dot-product kernel on the distributions the GPU matmul cases use, GenDot to
 * kappa = 1e16 and injected special values, at tiny sizes and around powers of two.
 *
 * What is asserted, and why: bound ratio <= 1 for every kernel, distribution and size (the
 * a-priori class of its registry row, kernels/bounds.c: gamma_{D+1} S for the serial loops,
 * (3u + 4nu^2) S for Kahan; a special value where the exact dot is NaN or infinite counts as
 * infinite unless it is that special).  Measured figures go to the baselines, not here.
 */
#include "harness/run/ug.h"

static const size_t ug_dot_sizes[] = {1, 2, 3, 15, 16, 17, 1000, 1023, 1024, 1025, 10000};
/* GenDot needs room for its construction. */
static const size_t ug_dot_sizes_gen[] = {64, 1000, 1024, 10000};
static const size_t ug_dot_sizes_specials[] = {1, 3, 1000};

enum { UG_DOT_TRIALS = 10 };

static const ug_param ug_dot_dists[] = {
    {"uniform01", UG_UNIFORM(0, 1)},
    {"normal", UG_NORMAL(0, 1)},
    {"alternating", UG_UNIFORM(0, 1, .alternate = 1)},
    {"gendot_1e3", UG_GENDOT(1e3), UG_SIZES(ug_dot_sizes_gen)},
    {"gendot_1e8", UG_GENDOT(1e8), UG_SIZES(ug_dot_sizes_gen)},
    {"gendot_1e16", UG_GENDOT(1e16), UG_SIZES(ug_dot_sizes_gen)},
    {"specials", UG_NORMAL(0, 1, .special_rate = 0.01, .specials = UG_SP_ALL), UG_SIZES(ug_dot_sizes_specials)},
};

UG_CASE_OVER(dot, ug_dot_dists, 0)
{
    const ug_param *p = ug_param_of(t);
    UG_FOR_SIZES(t, n, ug_dot_sizes) {
        ug_input *in = ug_input_make(t, UG_OP_DOT, &p->dist, n, UG_DOT_TRIALS);
        UG_FOR_KERNELS(t, k, UG_OP_DOT, UG_CPU, "*") {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c */
        }
        ug_input_free(t, in);
    }
}
