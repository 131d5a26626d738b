/*
 * reduce.c - every CPU summation kernel on every distribution, and the findings of the seven-methods post and
 * of the textbooks as assertions.
 *
 * What is asserted, and why:
 *  - every kernel, every distribution, every size: bound ratio <= 1 (a-priori class: a ratio
 *    above 1 is a bug in the kernel or in its declared class);
 *  - where ULP is meaningful (all inputs of one sign, condition number 1): max ULP error below a
 *    per-kernel limit measured on these cases, with the headroom stated in the table;
 *  - where cancellation makes ULP meaningless: relative error through the bound ratio only.
 */
#include <math.h>

#include "ug.h"

/* Sizes: tiny, around a power of two, and larger (10^6 in the slow case). */
static const size_t ug_sizes[] = {1, 2, 3, 1000, 1023, 1024, 1025, 10000};
/* GenSum needs room for its construction; the tiny sizes carry no cancellation to speak of. */
static const size_t ug_sizes_gensum[] = {1000, 1023, 1024, 1025, 10000};

enum { UG_TRIALS = 20 };

/* Max ULP error on one-signed, condition-1 data (uniform(0,1), lognormal, constant, sorted of
 * these), by bound class.  A-priori: S = |s| and |s| < 2^24 ulp(s), so the class bound
 * gamma_D S is about D ulp.  What we measured over these cases (seed 0x5eed, 20 trials, every n up
 * to 10^4), as (ulp_max - 0.5) / D: at most 0.25 for every tree kernel (n = 3: 1 ulp at D = 2;
 * serial on constant 0.1f: 1591 ulp at D = 9999, 0.16).  The limit 0.5 + 0.5 D keeps 2x headroom
 * over that and is still twice as tight as the a-priori bound.
 *   kahan, neumaier: 1 ulp (the textbook finding on condition-1 data; measured max 0.81);
 *   wide_acc: correctly rounded but for the binary64 accumulation error, 0.5 + gamma64_D 2^24. */
static double ug_ulp_limit_of(const ug_kernel *k, size_t n)
{
    double D = (double)ug_kernel_depth(k, n);
    switch (k->bound) {
    case UG_BOUND_TREE: return 0.5 + 0.5 * D;
    case UG_BOUND_KAHAN:
    case UG_BOUND_NEUMAIER: return 1.0;
    case UG_BOUND_WIDE_ACC: return 0.5 + 0x1p24 * (D * 0x1p-53) / (1 - D * 0x1p-53) * (1 + 0x1p-24);
    default: return INFINITY; /* no class limit: the bound ratio alone */
    }
}

/* Every CPU reduction on the row's distribution over its sizes; on one-signed data (the
 * distribution says so: ug_dist_one_signed) the ULP table is asserted too. */
static const size_t ug_sizes_big[] = {1000000};
static const size_t ug_sizes_specials[] = {1, 3, 1000, 10000};

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

static void ug_reduce_all(ug_t *t)
{
    const ug_param *p = ug_param_of(t);
    bool one_signed = ug_dist_one_signed(&p->dist);
    UG_FOR_SIZES(t, n, ug_sizes) {
        ug_input *in = ug_input_make(t, UG_OP_SUM, &p->dist, n, p->trials ? p->trials : UG_TRIALS);
        UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CPU, "*") {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: Higham ch. 3-4, kernels/bounds.c */
            if (!one_signed) continue;
            UG_EXPECT_ULP_MAX(r, ug_ulp_limit_of(k, n)); /* class limit, above */
            /* Compensated and binary64-accumulating kernels are correctly rounded on most
             * outputs: their mean error stays within correct rounding's 0.5 ulp (measured at most
             * 0.32 over these cases; a correctly rounded result averages ~0.25). */
            if (k->bound == UG_BOUND_KAHAN || k->bound == UG_BOUND_NEUMAIER ||
                k->bound == UG_BOUND_WIDE_ACC)
                UG_EXPECT_ULP_MEAN(r, 0.5);
        }
        ug_input_free(t, in);
    }
}

UG_CASE_OVER(reduce, ug_reduce_dists, 0) { ug_reduce_all(t); }
UG_CASE_OVER(reduce, ug_reduce_dists_slow, UG_CASE_SLOW) { ug_reduce_all(t); }

/* ---- findings ------------------------------------------------------------------------------------ */

static ug_result *ug_one(ug_t *t, const char *kernel, const ug_input *in)
{
    const ug_kernel *k = ug_kernel_find(kernel);
    UG_ASSERT_MSG(k != NULL, "kernel %s is not registered", kernel);
    return ug_measure(t, k, in);
}

UG_CASE(reduce, finding_compensated_within_one_ulp)
{
    /* Kahan and Neumaier stay within 1 ulp on condition-1 data at every size we test. */
    static const size_t ns[] = {1000, 10000, 100000};
    ug_dist d = ug_uniform(0, 1);
    UG_FOR_N(t, n, ns) {
        ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, UG_TRIALS);
        UG_EXPECT_ULP_MAX(ug_one(t, "kahan_f32", in), 1.0);
        UG_EXPECT_ULP_MAX(ug_one(t, "neumaier_f32", in), 1.0);
        ug_input_free(t, in);
    }
}

UG_CASE(reduce, finding_serial_grows_like_nu)
{
    /* Serial binary32 on constant 0.1f: every addition rounds the same way within a binade, so the
     * errors do not cancel and the relative error grows like n u (measured 0.16 n u at n = 10^4 and
     * at 10^6; it dips between, e.g. 0.02 n u at 10^5, where the binades' errors partly cancel).
     * Asserted: > 0.05 n u at both sizes, and 100x the length gives > 30x the relative error
     * (linear growth gives 100x, a random walk 10x); pairwise stays within 2 ulp at 10^6. */
    ug_dist d = ug_constant(0.1);
    ug_input *a = ug_input_make(t, UG_OP_SUM, &d, 10000, 1);
    ug_input *b = ug_input_make(t, UG_OP_SUM, &d, 1000000, 1);
    ug_result *s1 = ug_one(t, "serial_f32", a), *s2 = ug_one(t, "serial_f32", b);
    ug_result *p2 = ug_one(t, "pairwise_halves", b);
    UG_EXPECT_ULP_MAX(p2, 2.0);
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
    /* The seven-methods post's result: sorting by magnitude (method 3) gains far less than pairwise (5). */
    ug_dist d = ug_normal(0, 1);
    ug_input *in = ug_input_make(t, UG_OP_SUM, &d, 10000, 200);
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
