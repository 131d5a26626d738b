/*
 * norm.c - every CPU norm kernel: nrm2 (naive, LAPACK's classic scaled, Blue's) and asum on
 * ordinary distributions, wide magnitudes, specials, and the ranges where the textbook nrm2
 * breaks: elements near sqrt(FLT_MAX) (1.8e19), whose squares overflow, and below sqrt of the
 * smallest subnormal (~3.7e-23), whose squares vanish.
 *
 * What is asserted, and why: bound ratio <= 1 (nrm2: the sum of squares' a-priori bound at the
 * row's depth carried through the root, ops/norm.c; asum: the sum's).  Expected failures, with
 * their reason: nrm2_naive on the two range inputs (x_i^2 overflows to +inf: an infinite error;
 * or underflows to 0: the norm comes out 0 or far too small).  The scaled and Blue kernels pass
 * them: that is what they are for.  nrm2_scaled on the specials at n = 1000, whose trials hold
 * two infinities: inf / inf = NaN in its ratio, where the norm is +inf.
 */
#include <string.h>

#include "harness/run/ug.h"

static const size_t ug_norm_sizes[] = {1, 2, 3, 17, 1000, 1025, 10000};
static const size_t ug_norm_sizes_gen[] = {64, 1000, 10000};
static const size_t ug_norm_sizes_specials[] = {1, 3, 1000};

enum { UG_NORM_TRIALS = 5 };

/* Which rows fail which input, and why (each naming a range the kernel does not handle). */
static const char *ug_norm_xfail(const ug_kernel *k, const char *dist, size_t n)
{
    if (strcmp(k->name, "nrm2_scaled") == 0 && strcmp(dist, "specials") == 0 && n >= 1000)
        return "a second infinity meets scale = inf: inf / inf = NaN where ||x|| = +inf "
               "(classic snrm2's bug, fixed by LAPACK 3.10's Blue version)";
    if (strcmp(k->name, "nrm2_naive") != 0) return NULL;
    if (strcmp(dist, "near_sqrt_fltmax") == 0)
        return n >= 2 ? "x_i^2 near FLT_MAX: the binary32 sum of squares overflows to +inf" : NULL;
    if (strcmp(dist, "expuniform_100") == 0 && n >= 2) /* n = 1: one square, nothing to add */
        return "|x_i| up to 2^100: x_i^2 overflows binary32 (beyond 2^64)";
    if (strcmp(dist, "below_sqrt_denorm") == 0)
        return "x_i^2 below 2^-149: the squares flush to 0, the norm comes out 0";
    return NULL;
}

static const ug_param ug_norm_dists[] = {
    {"uniform01", UG_UNIFORM(0, 1)},
    {"normal", UG_NORMAL(0, 1)},
    {"lognormal", UG_LOGNORMAL(0, 3)},
    {"expuniform_40", UG_EXPUNIFORM(-40, 40)},
    {"gensum_1e16", UG_GENSUM(1e16), UG_SIZES(ug_norm_sizes_gen)},
    /* 2^-100 .. 2^100: Blue's three accumulators all in use; naive squares overflow */
    {"expuniform_100", UG_EXPUNIFORM(-100, 100)},
    /* 1e19 .. 1.8e19: one square fits, two overflow (FLT_MAX = 3.4e38) */
    {"near_sqrt_fltmax", UG_UNIFORM(1e19, 1.8e19)},
    /* squares below 1.4e-45, binary32's smallest subnormal */
    {"below_sqrt_denorm", UG_UNIFORM(1e-24, 3e-23)},
    {"specials", UG_NORMAL(0, 1, .special_rate = 0.01, .specials = UG_SP_ALL),
     UG_SIZES(ug_norm_sizes_specials)},
};

UG_CASE_OVER(norm, ug_norm_dists, 0)
{
    const ug_param *p = ug_param_of(t);
    static const ug_op ops[] = {UG_OP_NRM2, UG_OP_ASUM};
    for (int o = 0; o < 2; o++) {
        UG_FOR_SIZES(t, n, ug_norm_sizes) {
            ug_input *in = ug_input_make(t, ops[o], &p->dist, n, UG_NORM_TRIALS);
            UG_FOR_KERNELS(t, k, ops[o], UG_CPU, "*") {
                ug_result *r = ug_measure(t, k, in);
                const char *why = ug_norm_xfail(k, p->name, n);
                if (why) ug_xfail(t, why);
                UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* ops/norm.c, kernels/cpu/norm.c */
            }
            ug_input_free(t, in);
        }
    }
}
