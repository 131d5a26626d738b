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
#include <float.h>
#include <math.h>
#include <string.h>

#include "harness/run/ug.h"

static const size_t ug_norm_sizes[] = {1, 2, 3, 17, 1000, 1025, 10000};
static const size_t ug_norm_sizes_gen[] = {64, 1000, 10000};
static const size_t ug_norm_sizes_specials[] = {1, 3, 1000};

enum { UG_NORM_TRIALS = 5 };

/* Whether some trial of in has a sum of squares outside binary32's normal range, where the
 * naive norm's running sum overflows to +inf (+1) or is made of squares that flushed or lost
 * their bits below 2^-126 (-1); 0 if none.  Decided on the drawn values (in binary64, exact
 * enough: a binary32 value's square is exact there), so that the expected failure holds for
 * every seed, not for the default's draw alone.  A trial with an infinity or a NaN is left out:
 * its norm is +inf or NaN, and the naive form gives it. */
static int ug_norm_squares_leave_range(const ug_input *in)
{
    for (int tr = 0; tr < in->trials; tr++) {
        double s = 0;
        bool finite = true;
        for (size_t i = 0; i < in->shape.dim[0] && finite; i++) {
            finite = isfinite(in->x[tr][i]) != 0;
            s += (double)in->x[tr][i] * in->x[tr][i];
        }
        if (finite && s > FLT_MAX) return 1;
        if (finite && s > 0 && s < FLT_MIN) return -1;
    }
    return 0;
}

/* Whether some trial of in holds two infinities and no NaN: the norm is +inf, and classic
 * snrm2's scaling makes NaN of it (inf / inf); with a NaN among the values NaN is the answer
 * (ops/norm.c) and the kernel gives it. */
static bool ug_norm_two_infinities(const ug_input *in)
{
    for (int tr = 0; tr < in->trials; tr++) {
        size_t infs = 0;
        bool nan = false;
        for (size_t i = 0; i < in->shape.dim[0]; i++) /* isinf's value is signed in glibc: count, not add */
            infs += isinf(in->x[tr][i]) ? 1 : 0, nan |= isnan(in->x[tr][i]) != 0;
        if (infs >= 2 && !nan) return true;
    }
    return false;
}

/* Which rows fail which input, and why (each naming a range the kernel does not handle). */
static const char *ug_norm_xfail(const ug_kernel *k, const ug_param *p, const ug_input *in)
{
    if (strcmp(k->name, "nrm2_scaled") == 0 && p->dist.special_rate > 0 &&
        ug_norm_two_infinities(in))
        return "a second infinity meets scale = inf: inf / inf = NaN where ||x|| = +inf "
               "(classic snrm2's bug, fixed by LAPACK 3.10's Blue version)";
    if (strcmp(k->name, "nrm2_naive") != 0) return NULL;
    int leaves = ug_norm_squares_leave_range(in); /* any distribution: specials' subnormals too */
    if (leaves > 0)
        return "a trial's sum of squares passes FLT_MAX (x_i near or beyond 2^64): the binary32 "
               "sum of squares overflows to +inf";
    if (leaves < 0)
        return "a trial's sum of squares is below 2^-126 (x_i below 2^-63): the squares flush "
               "or lose their bits, the norm comes out 0 or inexact";
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
                const char *why = ug_norm_xfail(k, p, in);
                if (why) ug_xfail(t, why);
                UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* ops/norm.c, kernels/cpu/norm.c */
            }
            ug_input_free(t, in);
        }
    }
}
