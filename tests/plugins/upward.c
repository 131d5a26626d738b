/* upward.c - a plugin whose kernel sets the rounding mode upward and does not restore it
 * (tests/plugin_test.sh): every result after it, the oracle's too, would round upward. */
#include <fenv.h>
#include <ulpgate/ulpgate.h>

static int up_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    fesetround(FE_UPWARD);
    const float *x = ug_in_f32(c, 0);
    float s = 0;
    for (size_t i = 0; i < ug_dim(c, 0); i++) s += x[i];
    ug_out_f32(c)[0] = s;
    return 0;
}

UG_PLUGIN({.name = "up_sum", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = up_sum},)
