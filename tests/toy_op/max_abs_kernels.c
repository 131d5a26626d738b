/*
 * max_abs_kernels.c - the CPU kernel family of max_abs (tests/toy_op/toy_op.h).
 *
 *   max_abs_f32   a serial scan, NaN propagated: exact.  Built with -DUG_TOY_SKIP_LAST (the
 *                 ulpgate-toyop-mutant program) it skips the last element: the gate must catch
 *                 that regression.
 */
#include <math.h>
#include <stdio.h>

#include "tests/toy_op/toy_op.h"
#include "kernels/registry_testing.h"

enum { MAX_ABS_F32 };

static int ug_max_abs_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case MAX_ABS_F32: {
        size_t n = c->shape.dim[0];
#ifdef UG_TOY_SKIP_LAST
        n = n ? n - 1 : 0;
#endif
        const float *x = ug_in_f32(c, 0);
        float m = 0.0f;
        for (size_t i = 0; i < n; i++) {
            float a = fabsf(x[i]);
            if (isnan(a) || a > m) m = a;
            if (isnan(m)) break;
        }
        ug_out_f32(c)[0] = m;
        return 0;
    }
    }
    snprintf(c->err, sizeof c->err, "%s: unknown version", k->name);
    return 1;
}

/* .op is the registered id, set when the family is added (below). */
static ug_kernel ug_max_abs_kernels[] = {
    {.name = "max_abs_f32", .bound = UG_BOUND_NONE, .version = MAX_ABS_F32,
     .doc = "test only: serial max |x_i|, NaN propagated"},
};

#undef UG_BUILD_VARIANT
#define UG_BUILD_VARIANT default
UG_FAMILY(max_abs, ug_max_abs_kernels, ug_max_abs_run)

__attribute__((constructor)) static void ug_max_abs_register(void)
{
    ug_op op = ug_toy_max_abs();
    for (size_t i = 0; i < sizeof ug_max_abs_kernels / sizeof ug_max_abs_kernels[0]; i++)
        ug_max_abs_kernels[i].op = op;
    ug_registry_add_family(&ug_family_max_abs_default);
}
