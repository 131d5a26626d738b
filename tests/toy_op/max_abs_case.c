/*
 * max_abs_case.c - the case of max_abs (tests/toy_op/toy_op.h): every CPU max_abs kernel on
 * normal and uniform inputs, n = 1 up to 10^4.  The exact result is representable, so a correct
 * kernel is off by 0 ulp on every output: that is the assertion.
 */
#include "harness/run/ug.h"
#include "tests/toy_op/toy_op.h"

static const size_t ug_toy_sizes[] = {1, 17, 1000, 10000};

static const ug_param ug_toy_dists[] = {
    {"normal", UG_NORMAL(0, 1)},
    {"uniform_pm1", UG_UNIFORM(-1, 1)},
};

UG_CASE_OVER(toy, ug_toy_dists, 0)
{
    const ug_param *p = ug_param_of(t);
    UG_FOR_SIZES(t, n, ug_toy_sizes) {
        ug_input *in = ug_input_make(t, ug_toy_max_abs(), &p->dist, n, 10);
        UG_FOR_KERNELS(t, k, ug_toy_max_abs(), UG_CPU, "*") {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_ULP_MAX(r, 0);
        }
        ug_input_free(t, in);
    }
}
