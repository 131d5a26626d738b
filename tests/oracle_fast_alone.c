/*
 * oracle_fast_alone.c - the fast oracle stands alone: this program links only the ugoracle_fast
 * library and base/, with threads and libm and no MPFR (tests/meson.build), so any MPFR call in
 * the fast oracle fails the build.  A few hand-derived results check that what links also works
 * (TAP on stdout; the thorough tests are the oracle and oracle_diff cases).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/bits.h"
#include "base/sys.h"
#include "oracle/oracle.h"

static int test_no;
static int failures;

static void ok(int cond, const char *what)
{
    printf("%s %d - oracle_fast_alone/%s\n", cond ? "ok" : "not ok", ++test_no, what);
    failures += !cond;
}

/* hi, lo, rn, rd bitwise, class finite */
static int is(const ug_exact *e, double hi, double lo, float rn, float rd)
{
    return e->cls == UG_X_FINITE && ug_f64_bits(e->hi) == ug_f64_bits(hi) &&
           ug_f64_bits(e->lo) == ug_f64_bits(lo) && ug_f32_bits(e->rn) == ug_f32_bits(rn) &&
           ug_f32_bits(e->rd) == ug_f32_bits(rd);
}

int main(void)
{
    ug_exact e;
    printf("1..8\n");

    static const float cancel[] = {0x1p24f, 1.0f, -0x1p24f}; /* 2^24 + 1 - 2^24 = 1 */
    ug_exact_sum_f32_fast(cancel, 3, &e);
    ok(is(&e, 1.0, 0.0, 1.0f, 1.0f), "sum_cancellation");

    static const float small[] = {1.0f, 0x1p-30f}; /* 1 + 2^-30: binary64 exact, RN32 = 1 */
    ug_exact_sum_f32_fast(small, 2, &e);
    ok(is(&e, 1.0 + 0x1p-30, 0.0, 1.0f, 1.0f), "sum_below_half_ulp");

    static const float xs[] = {1.0f, 0x1p-12f}; /* 1 + 2^-24: a binary32 tie, to even (1) */
    ug_exact_dot_f32_fast(xs, 1, xs, 1, 2, &e);
    ok(is(&e, 1.0 + 0x1p-24, 0.0, 1.0f, 1.0f), "dot_tie");

    static const float A[] = {1, 2, 3, 4}, B[] = {5, 6, 7, 8}; /* [[19, 22], [43, 50]] */
    ug_exact C[4];
    ug_exact_gemm_f32_fast(A, B, 2, 2, 2, C);
    ok(is(&C[0], 19, 0, 19, 19) && is(&C[1], 22, 0, 22, 22) && is(&C[2], 43, 0, 43, 43) &&
           is(&C[3], 50, 0, 50, 50),
       "gemm_2x2");

    size_t n = (size_t)1 << 19; /* long enough for the multithreaded split: 2^19 ones */
    float *ones = ug_xmalloc(n * sizeof *ones);
    for (size_t i = 0; i < n; i++)
        ones[i] = 1.0f;
    ug_exact_sum_f32_fast(ones, n, &e);
    free(ones);
    ok(is(&e, 0x1p19, 0.0, 0x1p19f, 0x1p19f) && e.sum_abs >= 0x1p19, "sum_long");

    static const float infs[] = {INFINITY, -INFINITY}; /* inf - inf: NaN */
    ug_exact_sum_f32_fast(infs, 2, &e);
    ok(e.cls == UG_X_NAN && isnan(e.hi) && e.sum_abs == INFINITY, "sum_specials");

    static const float negz[] = {-0.0f, -0.0f}; /* all -0: -0 */
    ug_exact_sum_f32_fast(negz, 2, &e);
    ok(is(&e, -0.0, 0.0, -0.0f, -0.0f), "sum_negative_zero");

    static const float one[] = {1.0f}; /* 1 + 2^-23 is 1 ulp32 from 1 */
    ug_exact_sum_f32_fast(one, 1, &e);
    ok(ug_error_of(&e, 1.0 + 0x1p-23).ulp == 1.0, "error_of");

    return failures ? 1 : 0;
}
