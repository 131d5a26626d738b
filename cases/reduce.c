/*
 * reduce.c - every CPU summation kernel on every distribution, and the findings of the
 * seven-methods post and of the textbooks as assertions.
 *
 * What is asserted, and why:
 *  - every kernel, every distribution, every size: bound ratio <= 1 (the a-priori class of its
 *    registry row: a ratio above 1 is a bug in the kernel or in its declared class; kernels/
 *    bounds.c).  A special value where the exact sum is NaN or infinite counts as an infinite
 *    ratio unless it is that same special, so specials are checked by the same assertion.  No
 *    CPU sum here reaches a vacuous worst case (D u >= 1 needs 2^24 terms).
 *  - the findings below, each with its reason.
 * Measured figures (the ULP error each kernel reaches) are not bounds: they belong to the
 * per-device baselines of the merge gate (reports/baselines/).
 */
#include <math.h>

#include "harness/run/ug.h"

/* Sizes: tiny, around a power of two, and larger (10^6 in the slow case). */
static const size_t ug_sizes[] = {1, 2, 3, 1000, 1023, 1024, 1025, 10000};
/* GenSum needs room for its construction; the tiny sizes carry no cancellation to speak of. */
static const size_t ug_sizes_gensum[] = {1000, 1023, 1024, 1025, 10000};
static const size_t ug_sizes_big[] = {1000000};
static const size_t ug_sizes_specials[] = {1, 3, 1000, 10000};

enum { UG_TRIALS = 20 };

static const ug_param ug_reduce_dists[] = {
    {"uniform01", UG_UNIFORM(0, 1)},
    {"uniform_pm1", UG_UNIFORM(-1, 1)},
    {"normal", UG_NORMAL(0, 1)},
    {"lognormal", UG_LOGNORMAL(0, 1)},
    {"expuniform", UG_EXPUNIFORM(-60, 60)},
    {"constant", UG_CONSTANT(0.1), .trials = 1}, /* every trial the same */
    {"sorted_asc", UG_NORMAL(0, 1, .order = UG_ORDER_ASC)},
    {"sorted_desc", UG_NORMAL(0, 1, .order = UG_ORDER_DESC)},
    {"sorted_abs_desc_pos", UG_UNIFORM(0, 1, .order = UG_ORDER_ABS_DESC)},
    {"alternating", UG_UNIFORM(0, 1, .alternate = 1)},
    {"gensum_1e3", UG_GENSUM(1e3), UG_SIZES(ug_sizes_gensum)},
    {"gensum_1e8", UG_GENSUM(1e8), UG_SIZES(ug_sizes_gensum)},
    {"gensum_1e16", UG_GENSUM(1e16), UG_SIZES(ug_sizes_gensum)},
    /* Special values: only NaN is right where the exact sum is NaN, the right infinity where it
     * is infinite; finite sums among them are measured as usual. */
    {"specials", UG_NORMAL(0, 1, .special_rate = 0.001, .specials = UG_SP_ALL), UG_SIZES(ug_sizes_specials)},
};

static const ug_param ug_reduce_dists_slow[] = {
    {"normal_1e6", UG_NORMAL(0, 1), UG_SIZES(ug_sizes_big), 10},
    {"uniform01_1e6", UG_UNIFORM(0, 1), UG_SIZES(ug_sizes_big), 10},
};

/* Every CPU reduction on the row's distribution over its sizes. */
static void ug_reduce_all(ug_t *t)
{
    const ug_param *p = ug_param_of(t);
    UG_FOR_SIZES(t, n, ug_sizes) {
        ug_input *in = ug_input_make(t, UG_OP_SUM, &p->dist, n, p->trials ? p->trials : UG_TRIALS);
        UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CPU, "*") {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: Higham ch. 3-4, kernels/bounds.c */
        }
        ug_input_free(t, in);
    }
}

UG_CASE_OVER(reduce, ug_reduce_dists, 0) { ug_reduce_all(t); }
UG_CASE_OVER(reduce, ug_reduce_dists_slow, UG_CASE_SLOW) { ug_reduce_all(t); }

/* ---- findings ------------------------------------------------------------------------------------ */

static ug_result *ug_one(ug_t *t, const char *kernel, const ug_input *in)
{
    const ug_kernel *k = ug_builtin_kernel(t, kernel);
    UG_ASSERT_MSG(k != NULL, "kernel %s is not registered", kernel);
    ug_result *r = ug_measure(t, k, in);
    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* its a-priori class, whatever the finding */
    return r;
}

UG_CASE(reduce, finding_compensated_within_one_ulp)
{
    /* On condition-1 data (uniform(0,1): S = |s|) the compensated classes are nearly correctly
     * rounded, a-priori: Neumaier's u|s| + gamma_{n-1}^2 S is (1 + gamma^2 2^24) ulp at most
     * (|s| < 2^24 ulp(s)); Kahan's (2u + 4nu^2) S is 2 + 4 n u ulp.  Asserted in ULP, the
     * textbook way of stating it. */
    static const size_t ns[] = {1000, 10000, 100000};
    ug_dist d = ug_uniform(0, 1);
    UG_FOR_N(t, n, ns) {
        double g = (double)n * 0x1p-24 / (1 - (double)n * 0x1p-24);
        ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, UG_TRIALS);
        UG_EXPECT_ULP_MAX(ug_one(t, "kahan_f32", in), 2 + 4 * (double)n * 0x1p-24);
        UG_EXPECT_ULP_MAX(ug_one(t, "neumaier_f32", in), 1 + g * g * 0x1p24);
        ug_input_free(t, in);
    }
}

UG_CASE(reduce, finding_serial_grows_like_nu)
{
    /* Serial binary32 on constant 0.1f: every addition rounds the same way within a binade, so the
     * errors do not cancel and the relative error grows like n u (0.16 n u at n = 10^4 and at
     * 10^6 with this input; a random walk would give sqrt(n) u).  Asserted: > 0.05 n u at both
     * sizes, and 100x the length gives > 30x the relative error (linear growth gives 100x, a
     * random walk 10x); pairwise (depth ceil(log2 n) = 20) stays within its class. */
    ug_dist d = ug_constant(0.1);
    ug_input *a = ug_input_make(t, UG_OP_SUM, &d, 10000, 1);
    ug_input *b = ug_input_make(t, UG_OP_SUM, &d, 1000000, 1);
    ug_result *s1 = ug_one(t, "serial_f32", a), *s2 = ug_one(t, "serial_f32", b);
    ug_result *p2 = ug_one(t, "pairwise_halves", b);
    ug_point(t, "serial_vs_n");
    ug_note(t, "serial_f32 on 0.1f: rel %.3g (%.3f n u) at n=1e4, %.3g (%.3f n u) at n=1e6; pairwise %.3g ulp at 1e6",
            s1->rel_max, s1->rel_max / (1e4 * 0x1p-24), s2->rel_max, s2->rel_max / (1e6 * 0x1p-24), p2->ulp_max);
    UG_EXPECT_MSG(s1->rel_max > 0.05 * 1e4 * 0x1p-24, "n=1e4: rel %.3g below 0.05 n u", s1->rel_max);
    UG_EXPECT_MSG(s2->rel_max > 0.05 * 1e6 * 0x1p-24, "n=1e6: rel %.3g below 0.05 n u", s2->rel_max);
    UG_EXPECT_MSG(s2->rel_max > 30 * s1->rel_max, "serial error did not grow like n: %.3g -> %.3g",
                  s1->rel_max, s2->rel_max);
}

UG_CASE(reduce, finding_sorting_helps_less_than_pairwise)
{
    /* The seven-methods post's result: sorting by magnitude (method 3) gains far less than
     * pairwise (method 5). */
    ug_dist d = ug_normal(0, 1);
    ug_input *in = ug_input_make(t, UG_OP_SUM, &d, 10000, 200);
    if (in->trials < 200) ug_skip(t, "a finding over 200 trials: --trial/--trials narrow it");
    ug_result *serial = ug_one(t, "serial_f32", in), *sorted = ug_one(t, "sorted_abs_serial", in);
    ug_result *pairwise = ug_one(t, "pairwise_halves", in);
    ug_point(t, "sorting_vs_pairwise");
    ug_note(t, "cumulative abs error, 200 trials, n=1e4: serial %.3g, sorted by |x| %.3g, pairwise %.3g",
            serial->abs_err_sum, sorted->abs_err_sum, pairwise->abs_err_sum);
    UG_EXPECT_MSG(sorted->abs_err_sum < serial->abs_err_sum, "sorting did not help at all");
    UG_EXPECT_MSG(pairwise->abs_err_sum < 0.5 * sorted->abs_err_sum,
                  "pairwise (%.3g) not clearly better than sorting (%.3g)", pairwise->abs_err_sum,
                  sorted->abs_err_sum);
}

UG_CASE(reduce, finding_specials_propagate)
{
    /* The special-value rules (oracle.h) on hand-made inputs, every CPU kernel: NaN anywhere is
     * NaN; +inf with finite terms is +inf; +inf and -inf together are NaN; an all -0 sum is -0.
     * A kernel that returns 0, a finite value or the wrong special fails its bound ratio. */
    static const struct {
        const char *name;
        float x[4];
    } rows[] = {
        {"nan", {1.0f, NAN, 2.0f, 3.0f}},
        {"posinf", {1.0f, INFINITY, -2.0f, 3.0f}},
        {"neginf", {-INFINITY, 1.0f, 2.0f, 3.0f}},
        {"inf_minus_inf", {INFINITY, 1.0f, -INFINITY, 3.0f}},
        {"negzeros", {-0.0f, -0.0f, -0.0f, -0.0f}},
        {"cancel_to_zero", {1.0f, -1.0f, 2.0f, -2.0f}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ug_input *in = ug_input_from_data(t, UG_OP_SUM, rows[i].name, rows[i].x, NULL, 4);
        UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CPU, "*") {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
        }
        ug_input_free(t, in);
    }
}
