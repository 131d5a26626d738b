/*
 * wrong_kernels.c - kernels wrong in the ways real kernels are (issue 33), against the public
 * header alone; each must fail a run, its point naming it and why (tests/plugins_test.sh).
 */
#include <math.h>

#include <ulpgate/ulpgate.h>

static int serial(const float *x, size_t n, float *out)
{
    float s = -0.0f;
    for (size_t i = 0; i < n; i++) s += x[i];
    *out = s;
    return 0;
}

static int bad_placeholder(const ug_kernel *k, ug_call *c)
{
    (void)k;
    return serial(ug_in_f32(c, 0), c->n, ug_out_f32(c));
}

UG_PLUGIN(
    {.name = "bad_placeholder", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = bad_placeholder,
     .doc = "placeholder"},
)
