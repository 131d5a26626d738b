/* fastmath.c - a plugin built with -ffast-math (tests/plugin_test.sh): gcc links crtfastmath.o
 * into it, whose constructor sets FTZ and DAZ when it is loaded.  Its kernel is a plain serial
 * sum: what it does is beside the point, its loading is the fault. */
#include <ulpgate/ulpgate.h>

static int fm_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    float s = 0;
    for (size_t i = 0; i < ug_dim(c, 0); i++) s += x[i];
    ug_out_f32(c)[0] = s;
    return 0;
}

UG_PLUGIN({.name = "fm_sum", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = fm_sum},)
