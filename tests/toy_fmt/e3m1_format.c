/*
 * e3m1_format.c - FP5 E3M1's row in the format table, registered from outside the tree, and the
 * test's own reference conversions (tests/toy_fmt/toy_fmt.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/toy_fmt/toy_fmt.h"

/* bias 3: emin = 1 - 3, emax = 7 - 3 (the all-ones exponent holds numbers: no inf, no NaN) */
static const ug_format ug_toy_e3m1_row = {
    .name = "e3m1", .bits = 5, .p = 2, .emin = -2, .emax = 4, .subnormals = true, .inf = false,
    .nan = UG_NAN_NONE, .qnan = 0xfu /* +24: a NaN has no code */, .max = 24.0};

ug_fmt ug_toy_e3m1(void)
{
    static ug_fmt id = UG_FMT_COUNT;
    if (id == UG_FMT_COUNT) {
        char err[200];
        id = ug_fmt_register(&ug_toy_e3m1_row, err, sizeof err);
        if (id == UG_FMT_COUNT) {
            fprintf(stderr, "%s\n", err);
            abort();
        }
    }
    return id;
}

__attribute__((constructor)) static void ug_toy_e3m1_register(void) { (void)ug_toy_e3m1(); }

/* ---- the reference: the spec's definition, nothing of base/format.c ---------------------------- */

double ug_toy_e3m1_value(unsigned c)
{
    unsigned E = c >> 1 & 7, M = c & 1;
    double mag = E == 0 ? M / 2.0 * 0.25 /* 0.M x 2^(1-3) */ : (1 + M / 2.0) * ldexp(1.0, (int)E - 3);
    return c & 0x10 ? -mag : mag;
}

unsigned ug_toy_e3m1_code(double v)
{
    unsigned sign = signbit(v) ? 0x10u : 0;
    if (isnan(v)) return sign | 0xf;
    double a = fabs(v);
    unsigned best = 0;
    for (unsigned c = 1; c < 16; c++) { /* the magnitudes ascend with the code */
        double d = fabs(ug_toy_e3m1_value(c) - a), db = fabs(ug_toy_e3m1_value(best) - a);
        if (d < db || (d == db && (c & 1) == 0)) best = c;
    }
    return sign | best; /* beyond 24: 24 is the nearest, the saturation */
}
