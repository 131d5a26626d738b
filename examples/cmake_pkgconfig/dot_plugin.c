/*
 * dot_plugin.c - a binary32 dot product in index order, as a plugin built by CMake.
 * The bound it claims, UG_BOUND_TREE with the default depth n - 1: every product is rounded
 * once and passes through at most n - 1 additions, gamma_n sum |x_i y_i| (Higham (3.5)).
 */
#include <ulpgate/ulpgate.h>

static int my_dot(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0), *y = ug_in_f32(c, 1);
    float s = 0.0f;
    for (size_t i = 0; i < ug_dim(c, 0); i++) {
        float p = x[i] * y[i]; /* rounded on its own: no FMA contraction in C11 mode */
        s = i == 0 ? p : s + p;
    }
    ug_out_f32(c)[0] = s;
    return 0;
}

UG_PLUGIN(
    {.name = "my_dot", .op = UG_OP_DOT, .bound = UG_BOUND_TREE, .run = my_dot,
     .doc = "serial binary32 dot product"},
)
