/*
 * e3m1_kernels.c - a CPU kernel family of FP5 E3M1 (tests/toy_fmt/toy_fmt.h).
 *
 *   sum_e3m1   E3M1 in, E3M1 out: the terms decoded, summed serially in binary64 (exact: every
 *              term is a multiple of 2^-3 below 2^5, so n < 2^45 terms sum without rounding),
 *              the sum converted once to E3M1 by the test's own converter (round to nearest
 *              even, saturating): correctly rounded, <= 0.5 ulp.  Built with -DUG_TOY_FP5_TRUNC
 *              (the ulpgate-toyfmt-mutant program) the conversion truncates instead (toward
 *              zero): up to 1 ulp, which the case and the gate must catch.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "kernels/registry_testing.h"
#include "tests/toy_fmt/toy_fmt.h"

enum { SUM_E3M1 };

/* The output conversion: the reference's, or the mutant's truncation (the largest code whose
 * magnitude does not exceed |v|). */
static unsigned ug_toy_store(double v)
{
#ifdef UG_TOY_FP5_TRUNC
    unsigned c = 0;
    while (c < 15 && ug_toy_e3m1_value(c + 1) <= fabs(v)) c++;
    return (signbit(v) ? 0x10u : 0) | c;
#else
    return ug_toy_e3m1_code(v);
#endif
}

static int ug_toy_e3m1_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case SUM_E3M1: {
        const uint8_t *x = ug_in_as(c, 0, ug_toy_e3m1());
        uint8_t *out = ug_out_as(c, ug_toy_e3m1());
        if (!x || !out) {
            snprintf(c->err, sizeof c->err, "%s: buffers not in e3m1", k->name);
            return 1;
        }
        double s = -0.0; /* the identity of IEEE addition: a sum of -0 terms is -0 */
        for (size_t i = 0; i < c->shape.dim[0]; i++) s += ug_toy_e3m1_value(x[i] & 0x1f);
        out[0] = (uint8_t)ug_toy_store(s);
        return 0;
    }
    }
    snprintf(c->err, sizeof c->err, "%s: unknown version", k->name);
    return 1;
}

/* The formats are the registered id, set when the family is added (below). */
static ug_kernel ug_toy_e3m1_kernels[] = {
    {.name = "sum_e3m1", .op = UG_OP_SUM, .op_fmt = UG_F64, .acc_fmt = UG_F64, .bound = UG_BOUND_NONE,
     .version = SUM_E3M1, .doc = "test only: e3m1 terms summed in binary64, one RN to e3m1"},
};

#undef UG_BUILD_VARIANT
#define UG_BUILD_VARIANT default
UG_FAMILY(toy_e3m1, ug_toy_e3m1_kernels, ug_toy_e3m1_run)

__attribute__((constructor)) static void ug_toy_e3m1_kernels_register(void)
{
    ug_fmt f = ug_toy_e3m1();
    for (size_t i = 0; i < sizeof ug_toy_e3m1_kernels / sizeof ug_toy_e3m1_kernels[0]; i++) {
        ug_toy_e3m1_kernels[i].out_fmt = f;
        ug_toy_e3m1_kernels[i].in_store[0] = f;
    }
    ug_registry_add_family(&ug_family_toy_e3m1_default);
}
