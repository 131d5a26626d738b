/*
 * e3m2_format.c - FP6 E3M2's row in the format table, registered from outside the tree, and the
 * test's own reference conversions (tests/toy_fmt/toy_fmt.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/toy_fmt/toy_fmt.h"

/* bias 3: emin = 1 - 3, emax = 7 - 3 (the all-ones exponent holds numbers: no inf, no NaN) */
static const ug_format ug_toy_e3m2_row = {
    .name = "e3m2", .bits = 6, .p = 3, .emin = -2, .emax = 4, .subnormals = true, .inf = false,
    .nan = UG_NAN_NONE, .qnan = 0x1fu /* +28: a NaN has no code */, .max = 28.0};

ug_fmt ug_toy_e3m2(void)
{
    static ug_fmt id = UG_FMT_COUNT;
    if (id == UG_FMT_COUNT) {
        char err[200];
        id = ug_fmt_register(&ug_toy_e3m2_row, err, sizeof err);
        if (id == UG_FMT_COUNT) {
            fprintf(stderr, "%s\n", err);
            abort();
        }
    }
    return id;
}

__attribute__((constructor)) static void ug_toy_e3m2_register(void) { (void)ug_toy_e3m2(); }

/* ---- the reference: the spec's definition, nothing of base/format.c ---------------------------- */

double ug_toy_e3m2_value(unsigned c)
{
    unsigned E = c >> 2 & 7, M = c & 3;
    double mag = E == 0 ? M / 4.0 * 0.25 /* 0.M x 2^(1-3) */ : (1 + M / 4.0) * ldexp(1.0, (int)E - 3);
    return c & 0x20 ? -mag : mag;
}

unsigned ug_toy_e3m2_code(double v)
{
    unsigned sign = signbit(v) ? 0x20u : 0;
    if (isnan(v)) return sign | 0x1f;
    double a = fabs(v);
    unsigned best = 0;
    for (unsigned c = 1; c < 32; c++) { /* the magnitudes ascend with the code */
        double d = fabs(ug_toy_e3m2_value(c) - a), db = fabs(ug_toy_e3m2_value(best) - a);
        if (d < db || (d == db && (c & 1) == 0)) best = c;
    }
    return sign | best; /* beyond 28: 28 is the nearest, the saturation */
}
