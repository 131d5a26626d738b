/*
 * oracle.c - unit tests of the oracle (oracle/): exact sums and dots on hand-computed cases,
 * through both implementations (fast and MPFR), the ULP and error functions, the selection.
 * (The `oracle` subcommand and its value parser: tests/oracle_parse.c; the exact accumulator on
 * its own: tests/oracle_xacc.c.)
 *
 * Every expected value is derived by hand in the comment beside it; none comes from the oracle.
 * Notation: u32 = 2^-24 (half an ulp of 1 in binary32), ulp32(x) = 2^(e-23) for x in [2^e,
 * 2^(e+1)); binary32's largest finite value is FLT_MAX = 2^128 - 2^104 and its overflow
 * threshold under round-to-nearest is FLT_MAX + 2^103 (half an ulp above).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "tests/oracle_check.h"
#include "harness/run/ug.h"

/* ---- helpers --------------------------------------------------------------------------------- */

static void check_sum32(ug_t *t, const char *what, const float *x, size_t n, ug_exact w,
                        int line)
{
    ug_exact a, b;
    ug_exact_sum_f32_fast(x, n, &a);
    ug_exact_sum_f32_mpfr(x, n, &b);
    check_exact(t, what, "fast", &a, &w, line);
    check_exact(t, what, "mpfr", &b, &w, line);
}

static void check_sum64(ug_t *t, const char *what, const double *x, size_t n, ug_exact w,
                        int line)
{
    ug_exact a, b;
    ug_exact_sum_f64_fast(x, n, &a);
    ug_exact_sum_f64_mpfr(x, n, &b);
    check_exact(t, what, "fast", &a, &w, line);
    check_exact(t, what, "mpfr", &b, &w, line);
}

static void check_dot32(ug_t *t, const char *what, const float *x, const float *y, size_t n,
                        ug_exact w, int line)
{
    ug_exact a, b, c;
    ug_exact_dot_f32_fast(x, 1, y, 1, n, &a);
    ug_exact_dot_f32_mpfr(x, 1, y, 1, n, &b);
    check_exact(t, what, "fast", &a, &w, line);
    check_exact(t, what, "mpfr", &b, &w, line);
    /* the same dot as a 1 x 1 GEMM with K = n */
    ug_exact_gemm_f32_fast(x, y, 1, 1, n, &c);
    check_exact(t, what, "gemm", &c, &w, line);
}

#define SUM32(w, ...)                                                                          \
    do {                                                                                       \
        static const float xs_[] = {__VA_ARGS__};                                              \
        check_sum32(t, "sum32 {" #__VA_ARGS__ "}", xs_, NOF(xs_), (w), __LINE__);             \
    } while (0)
#define SUM64(w, ...)                                                                          \
    do {                                                                                       \
        static const double xs_[] = {__VA_ARGS__};                                             \
        check_sum64(t, "sum64 {" #__VA_ARGS__ "}", xs_, NOF(xs_), (w), __LINE__);             \
    } while (0)
/* DOT32(w, {x...}, {y...}) */
#define DOT32(w, xs, ys)                                                                       \
    do {                                                                                       \
        static const float x_[] = UG_UNPAREN xs, y_[] = UG_UNPAREN ys;                         \
        _Static_assert(NOF(x_) == NOF(y_), "dot operands differ in length");                   \
        check_dot32(t, "dot32 " #xs " . " #ys, x_, y_, NOF(x_), (w), __LINE__);                 \
    } while (0)
#define UG_UNPAREN(...) __VA_ARGS__

/* ---- exact sums and dots --------------------------------------------------------------------- */

UG_CASE(oracle, cancellation)
{
    /* 1 - 1 = 0 exactly: an exact zero from nonzero terms is +0 (IEEE's round-to-nearest rule;
     * rd uses the same sign, as documented in exact_mpfr.c). */
    SUM32(want(0.0, 0.0, 0.0f, 0.0f), 1.0f, -1.0f);
    SUM32(want(0.0, 0.0, 0.0f, 0.0f), -1.0f, 1.0f);
    /* 2^100 + 1 - 2^100 = 1: the 1 survives only in an exact sum. */
    SUM32(want(1.0, 0.0, 1.0f, 1.0f), 0x1p100f, 1.0f, -0x1p100f);
    /* 1e8 is a binary32 value (1e8 = 390625 * 2^8, 390625 < 2^24); 1e8 + 1 - 1e8 = 1, while
     * binary32 arithmetic gives 0 (ulp32(1e8) = 8). */
    SUM32(want(1.0, 0.0, 1.0f, 1.0f), 1e8f, 1.0f, -1e8f);
    /* cancellation to a tiny residual: 1 + 2^-149 - 1 = 2^-149 (a binary64 normal, the smallest
     * binary32 subnormal) */
    SUM32(want(0x1p-149, 0.0, 0x1p-149f, 0x1p-149f), 1.0f, 0x1p-149f, -1.0f);
    SUM32(want(-0x1p-100, 0.0, -0x1p-100f, -0x1p-100f), 0x1p100f, -0x1p-100f, -0x1p100f);
    /* 2^24 + 1 + 1 = 2^24 + 2, a binary32 value (ulp32(2^24) = 2), though each binary32 addition
     * of 1 to 2^24 is a tie that rounds back to 2^24. */
    SUM32(want(16777218.0, 0.0, 16777218.0f, 16777218.0f), 16777216.0f, 1.0f, 1.0f);
    /* dot: 3*5 + 1*(-15) = 0 -> +0 */
    DOT32(want(0.0, 0.0, 0.0f, 0.0f), ({3.0f, 1.0f}), ({5.0f, -15.0f}));
    /* dot: 2^60 * 2^60 - 2^120 * 1 + 3 * 2^-100 = 3 * 2^-100 = 1.5 * 2^-99 */
    DOT32(want(0x1.8p-99, 0.0, 0x1.8p-99f, 0x1.8p-99f), ({0x1p60f, 0x1p120f, 3.0f}),
          ({0x1p60f, -1.0f, 0x1p-100f}));
    /* binary64 sum: 2^1000 + 2^-1074 - 2^1000 = 2^-1074 (a binary64 subnormal), which is below
     * 2^-150, half binary32's smallest subnormal: rn = +0, rd = +0. */
    SUM64(want(0x1p-1074, 0.0, 0.0f, 0.0f), 0x1p1000, 0x1p-1074, -0x1p1000);
}

UG_CASE(oracle, ties)
{
    /* 1 + 2^-24: halfway between 1 (even significand) and 1 + 2^-23 -> RN32 = 1; exact in
     * binary64 (lo = 0). */
    SUM32(want(0x1.000001p0, 0.0, 1.0f, 1.0f), 1.0f, 0x1p-24f);
    /* 1 + 3*2^-24: halfway between 1 + 2^-23 (odd) and 1 + 2^-22 (even) -> 1 + 2^-22 */
    SUM32(want(0x1.000003p0, 0.0, 0x1.000004p0f, 0x1.000002p0f), 1.0f, 0x1.8p-23f);
    /* negative tie: -(1 + 2^-24) -> RN32 = -1 (even), RD32 = -(1 + 2^-23) (toward -inf) */
    SUM32(want(-0x1.000001p0, 0.0, -1.0f, -0x1.000002p0f), -1.0f, -0x1p-24f);
    /* a tie broken by a term 125 binades lower: 1 + 2^-24 + 2^-149 is above the midpoint ->
     * 1 + 2^-23.  Binary64 cannot hold it: hi = RN64 = 1 + 2^-24, lo = 2^-149. */
    SUM32(want(0x1.000001p0, 0x1p-149, 0x1.000002p0f, 1.0f), 1.0f, 0x1p-24f, 0x1p-149f);
    /* ... and just below the midpoint: 1 + 2^-24 - 2^-149 -> 1; lo = -2^-149 */
    SUM32(want(0x1.000001p0, -0x1p-149, 1.0f, 1.0f), 1.0f, 0x1p-24f, -0x1p-149f);
    /* binary64 ties for hi: 1 + 2^-53 is halfway between 1 (even) and 1 + 2^-52 -> hi = 1,
     * lo = 2^-53 */
    SUM32(want(1.0, 0x1p-53, 1.0f, 1.0f), 1.0f, 0x1p-53f);
    /* 1 + 3*2^-53: halfway between 1 + 2^-52 (odd) and 1 + 2^-51 (even) -> hi = 1 + 2^-51,
     * lo = s - hi = -2^-53 */
    SUM32(want(0x1.0000000000002p0, -0x1p-53, 1.0f, 1.0f), 1.0f, 0x1.8p-52f);
    /* a dot whose product sits on a binary32 midpoint: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24;
     * RN32: 1 + 2^-11 + 2^-24 is halfway between 1 + 2^-11 (significand ...1000 0000 0000, even)
     * and 1 + 2^-11 + 2^-23 -> 1 + 2^-11 */
    DOT32(want(0x1.002001p0, 0.0, 0x1.002p0f, 0x1.002p0f), ({0x1.001p0f}), ({0x1.001p0f}));
}

UG_CASE(oracle, subnormal)
{
    /* 2^-149 + 2^-149 = 2^-148 */
    SUM32(want(0x1p-148, 0.0, 0x1p-148f, 0x1p-148f), 0x1p-149f, 0x1p-149f);
    /* 2^-126 - 2^-149 = the largest subnormal, 0x1.fffffcp-127 */
    SUM32(want(0x1.fffffcp-127, 0.0, 0x1.fffffcp-127f, 0x1.fffffcp-127f), 0x1p-126f,
          -0x1p-149f);
    /* 3 * 2^-149 + 2^-151 = 3.25 * 2^-149: RN32 and RD32 = 3 * 2^-149 (0x1.8p-148); needs a dot
     * (2^-151 is no binary32 value): 0x1.8p-148 * 1 + 2^-75 * 2^-76 */
    DOT32(want(0x1.ap-148, 0.0, 0x1.8p-148f, 0x1.8p-148f), ({0x1.8p-148f, 0x1p-75f}),
          ({1.0f, 0x1p-76f}));
    /* 2^-75 * 2^-75 = 2^-150, halfway between 0 (even) and 2^-149 -> RN32 = +0, RD32 = +0 */
    DOT32(want(0x1p-150, 0.0, 0.0f, 0.0f), ({0x1p-75f}), ({0x1p-75f}));
    /* 2^-150 + 2^-200 = 2^-150 (1 + 2^-50): just above the midpoint -> RN32 = 2^-149,
     * RD32 = +0; 51 significant bits, so exact in binary64 (lo = 0) */
    DOT32(want(0x1.0000000000004p-150, 0.0, 0x1p-149f, 0.0f), ({0x1p-75f, 0x1p-100f}),
          ({0x1p-75f, 0x1p-100f}));
    /* 2^-150 + 2^-250: 101 bits -> hi = 2^-150, lo = 2^-250 */
    DOT32(want(0x1p-150, 0x1p-250, 0x1p-149f, 0.0f), ({0x1p-75f, 0x1p-125f}),
          ({0x1p-75f, 0x1p-125f}));
    /* 1.5 * 2^-75 * 2^-75 = 1.5 * 2^-150 = 0.75 * 2^-149: nearer 2^-149 than 0 -> RN32 = 2^-149,
     * RD32 = +0 */
    DOT32(want(0x1.8p-150, 0.0, 0x1p-149f, 0.0f), ({0x1.8p-75f}), ({0x1p-75f}));
    /* 1.5 * 2^-75 * 2^-76 = 1.5 * 2^-151 = 0.375 * 2^-149: below the midpoint -> RN32 = +0 */
    DOT32(want(0x1.8p-151, 0.0, 0.0f, 0.0f), ({0x1.8p-75f}), ({0x1p-76f}));
    /* negative: -2^-150 -> RN32 = -0 (a negative value rounded to zero keeps its sign),
     * RD32 = -2^-149 */
    DOT32(want(-0x1p-150, 0.0, -0.0f, -0x1p-149f), ({-0x1p-75f}), ({0x1p-75f}));
}

UG_CASE(oracle, overflow)
{
    /* FLT_MAX + FLT_MAX = 2^129 - 2^105: beyond the threshold -> RN32 = +inf, RD32 = FLT_MAX;
     * exact in binary64.  The class stays finite: the terms are finite. */
    SUM32(want(0x1.fffffep128, 0.0, INFINITY, FMAX), FMAX, FMAX);
    /* FLT_MAX + 2^103 = the threshold itself, a tie between FLT_MAX (odd significand) and 2^128
     * (even) -> +inf */
    SUM32(want(0x1.ffffffp127, 0.0, INFINITY, FMAX), FMAX, 0x1p103f);
    /* just below the threshold: FLT_MAX + 2^103 - 2^-149 -> FLT_MAX; hi = RN64 = FLT_MAX + 2^103,
     * lo = -2^-149 */
    SUM32(want(0x1.ffffffp127, -0x1p-149, FMAX, FMAX), FMAX, 0x1p103f, -0x1p-149f);
    /* negative, at the threshold: -inf both ways */
    SUM32(want(-0x1.ffffffp127, 0.0, -INFINITY, -INFINITY), -FMAX, -0x1p103f);
    /* -(FLT_MAX + 2^102): within half an ulp -> RN32 = -FLT_MAX; RD32 = -inf (below -FLT_MAX) */
    SUM32(want(-0x1.fffffe8p127, 0.0, -FMAX, -INFINITY), -FMAX, -0x1p102f);
    /* dot: 2^100 * 2^100 = 2^200 -> RN32 = +inf, RD32 = FLT_MAX */
    DOT32(want(0x1p200, 0.0, INFINITY, FMAX), ({0x1p100f}), ({0x1p100f}));
    /* binary64: DBL_MAX + 2^969 is below binary64's threshold DBL_MAX + 2^970 -> hi = DBL_MAX,
     * lo = 2^969 */
    SUM64(want(DBL_MAX, 0x1p969, INFINITY, FMAX), DBL_MAX, 0x1p969);
    /* DBL_MAX + DBL_MAX overflows binary64: hi = +inf, lo = 0 (defined so), still class finite */
    SUM64(want(INFINITY, 0.0, INFINITY, FMAX), DBL_MAX, DBL_MAX);
    /* sum_abs of that: 2 DBL_MAX overflows -> +inf (an upper bound) */
    {
        static const double x[] = {DBL_MAX, DBL_MAX};
        ug_exact a, b;
        ug_exact_sum_f64_fast(x, 2, &a);
        ug_exact_sum_f64_mpfr(x, 2, &b);
        UG_EXPECT_MSG(a.sum_abs == INFINITY && b.sum_abs == INFINITY, "sum_abs %a %a", a.sum_abs,
                      b.sum_abs);
    }
}

UG_CASE(oracle, zeros)
{
    /* the empty sum is +0 */
    {
        ug_exact a, b;
        ug_exact_sum_f32_fast(NULL, 0, &a);
        ug_exact_sum_f32_mpfr(NULL, 0, &b);
        ug_exact w = want(0.0, 0.0, 0.0f, 0.0f);
        check_exact(t, "empty sum", "fast", &a, &w, __LINE__);
        check_exact(t, "empty sum", "mpfr", &b, &w, __LINE__);
        UG_EXPECT_MSG(a.sum_abs == 0 && b.sum_abs == 0, "sum_abs %a %a", a.sum_abs, b.sum_abs);
    }
    /* only -0 terms -> -0; any +0 or nonzero term -> +0 (IEEE round-to-nearest) */
    SUM32(want(-0.0, 0.0, -0.0f, -0.0f), -0.0f);
    SUM32(want(-0.0, 0.0, -0.0f, -0.0f), -0.0f, -0.0f, -0.0f);
    SUM32(want(0.0, 0.0, 0.0f, 0.0f), -0.0f, 0.0f);
    SUM32(want(0.0, 0.0, 0.0f, 0.0f), 0.0f, -0.0f);
    SUM32(want(0.0, 0.0, 0.0f, 0.0f), -0.0f, 2.0f, -2.0f, -0.0f);
    SUM64(want(-0.0, 0.0, -0.0f, -0.0f), -0.0, -0.0);
    /* products: (-0)*1 = -0, 0*(-1) = -0 -> all -0 -> -0; (-0)*(-1) = +0 -> +0 */
    DOT32(want(-0.0, 0.0, -0.0f, -0.0f), ({-0.0f, 0.0f}), ({1.0f, -1.0f}));
    DOT32(want(0.0, 0.0, 0.0f, 0.0f), ({-0.0f, 0.0f}), ({-1.0f, -1.0f}));
    /* a nonzero result is unaffected by signed zeros: -0 + 5 = 5 */
    SUM32(want(5.0, 0.0, 5.0f, 5.0f), -0.0f, 5.0f, -0.0f);
}

UG_CASE(oracle, mixed_magnitude)
{
    /* 2^127 + 1 + 2^-149: hi = RN64 = 2^127 (1 is 2^-127 of it), lo = RN64(1 + 2^-149) = 1;
     * RN32 = RD32 = 2^127 */
    SUM32(want(0x1p127, 1.0, 0x1p127f, 0x1p127f), 0x1p127f, 1.0f, 0x1p-149f);
    /* the extremes of the binary32 range cancelling around the smallest term */
    SUM32(want(0x1p-149, 0.0, 0x1p-149f, 0x1p-149f), FMAX, 0x1p-149f, -FMAX);
    /* dot: 2^127 * 2^127 + 2^-149 * 2^-149 = 2^254 + 2^-298: the extremes of the product range */
    DOT32(want(0x1p254, 0x1p-298, INFINITY, FMAX), ({0x1p127f, 0x1p-149f}),
          ({0x1p127f, 0x1p-149f}));
    /* sum_abs of {1e8, 1, -1e8} is 200000001 (binary64-exact): within [S, S (1 + 2^-40)] */
    {
        static const float x[] = {1e8f, 1.0f, -1e8f};
        ug_exact a, b;
        ug_exact_sum_f32_fast(x, 3, &a);
        ug_exact_sum_f32_mpfr(x, 3, &b);
        double S = 200000001.0;
        UG_EXPECT_MSG(a.sum_abs >= S && a.sum_abs <= S * (1 + 0x1p-40), "fast sum_abs %.17g",
                      a.sum_abs);
        UG_EXPECT_MSG(b.sum_abs >= S && b.sum_abs <= S * (1 + 0x1p-40), "mpfr sum_abs %.17g",
                      b.sum_abs);
    }
    /* long: 4096 copies of 2^-24 then 1 (a sorted-ascending sum): 4096 * 2^-24 + 1 = 1 + 2^-12,
     * a binary32 value */
    {
        static float x[4097];
        for (int i = 0; i < 4096; i++)
            x[i] = 0x1p-24f;
        x[4096] = 1.0f;
        check_sum32(t, "4096 x 2^-24 + 1", x, 4097, want(0x1.001p0, 0.0, 0x1.001p0f, 0x1.001p0f),
                    __LINE__);
    }
}

UG_CASE(oracle, specials)
{
    SUM32(want_special(UG_X_NAN), NAN, 1.0f);
    SUM32(want_special(UG_X_POSINF), INFINITY, 1.0f, -FMAX);
    SUM32(want_special(UG_X_POSINF), INFINITY, INFINITY);
    SUM32(want_special(UG_X_NEGINF), -INFINITY, FMAX);
    SUM32(want_special(UG_X_NAN), INFINITY, -INFINITY);
    SUM32(want_special(UG_X_NAN), INFINITY, NAN);
    SUM64(want_special(UG_X_NAN), -INFINITY, 1.0, INFINITY);
    SUM64(want_special(UG_X_NEGINF), -INFINITY, DBL_MAX, DBL_MAX);
    /* 0 * inf is NaN; inf * (-2) = -inf; a NaN factor makes a NaN term */
    DOT32(want_special(UG_X_NAN), ({0.0f, 1.0f}), ({INFINITY, 1.0f}));
    DOT32(want_special(UG_X_NEGINF), ({INFINITY, 1.0f}), ({-2.0f, 1.0f}));
    DOT32(want_special(UG_X_NAN), ({INFINITY, 1.0f}), ({1.0f, NAN}));
    DOT32(want_special(UG_X_NAN), ({INFINITY, -INFINITY}), ({1.0f, 1.0f}));
    /* specials deep inside a long vector (past the first block of the fast path) */
    {
        static float x[10000];
        for (int i = 0; i < 10000; i++)
            x[i] = (float)(i % 7) - 3.0f;
        x[9000] = -INFINITY;
        check_sum32(t, "long with -inf", x, 10000, want_special(UG_X_NEGINF), __LINE__);
        x[5000] = NAN;
        check_sum32(t, "long with NaN", x, 10000, want_special(UG_X_NAN), __LINE__);
    }
}

/* ---- ULP, error, equality -------------------------------------------------------------------- */

UG_CASE(oracle, ulp32)
{
    static const struct {
        float r;
        double ulp;
    } c[] = {
        {1.0f, 0x1p-23},         {0x1.fffffep0f, 0x1p-23}, {2.0f, 0x1p-22},
        {-3.0f, 0x1p-22},        {0x1p-126f, 0x1p-149},   /* smallest normal */
        {0x1.fffffcp-127f, 0x1p-149},                      /* largest subnormal */
        {0x1p-149f, 0x1p-149},   {0.0f, 0x1p-149},        {-0.0f, 0x1p-149},
        {FMAX, 0x1p104},         {INFINITY, 0x1p104},     {-INFINITY, 0x1p104},
        {16777216.0f, 2.0},      {0x1p127f, 0x1p104},
    };
    for (size_t i = 0; i < NOF(c); i++)
        UG_EXPECT_MSG(ug_ulp32(c[i].r) == c[i].ulp, "ulp32(%a) = %a, want %a", (double)c[i].r,
                      ug_ulp32(c[i].r), c[i].ulp);
    UG_EXPECT_MSG(isnan(ug_ulp32(NAN)), "ulp32(nan) = %a", ug_ulp32(NAN));
}

/* The exact summary of an explicit sum (fast oracle; the exact-sum cases above cover it). */
static ug_exact of_sum(const float *x, size_t n)
{
    ug_exact e;
    ug_exact_sum_f32_fast(x, n, &e);
    return e;
}

static void check_error(ug_t *t, const char *what, const ug_exact *e, double got, double abs,
                        double rel, double ulp, int line)
{
    ug_error r = ug_error_of(e, got);
    int ok = r.abs == abs && r.rel == rel && r.ulp == ulp;
    ug_check(t, ok, what, __FILE__, line,
             "got=%a: abs=%a rel=%a ulp=%a; want abs=%a rel=%a ulp=%a", got, r.abs, r.rel, r.ulp,
             abs, rel, ulp);
}

UG_CASE(oracle, error_of)
{
    static const float one[] = {1.0f};
    ug_exact e1 = of_sum(one, 1);
    /* adjacent floats around 1: ulp32(1) = 2^-23 */
    check_error(t, "1+2^-23 vs 1", &e1, 0x1.000002p0, 0x1p-23, 0x1p-23, 1.0, __LINE__);
    check_error(t, "1-2^-24 vs 1", &e1, 0x1.fffffep-1, 0x1p-24, 0x1p-24, 0.5, __LINE__);
    check_error(t, "1 vs 1", &e1, 1.0, 0.0, 0.0, 0.0, __LINE__);

    /* binade edge: s = (2 - 2^-23) + 2^-23 - 2^-30 = 2 - 2^-30 rounds to 2 in binary32, so the
     * error is measured in ulp32(2) = 2^-22: got = 2 - 2^-23 is 2^-23 - 2^-30 away,
     * (2^-23 - 2^-30) / 2^-22 = 0.5 - 2^-8 ULP; rel = (2^-23 - 2^-30) / (2 - 2^-30), computed as
     * abs / |hi| with hi = 2 - 2^-30 exact in binary64. */
    static const float edge[] = {0x1.fffffep0f, 0x1p-23f, -0x1p-30f};
    ug_exact ee = of_sum(edge, 3);
    UG_EXPECT_MSG(ee.rn == 2.0f, "RN32(2 - 2^-30) = %a", (double)ee.rn);
    check_error(t, "binade edge", &ee, 0x1.fffffep0, 0x1p-23 - 0x1p-30,
                (0x1p-23 - 0x1p-30) / (2.0 - 0x1p-30), 0.5 - 0x1p-8, __LINE__);

    /* subnormal: s = 3 * 2^-149, got = 2^-149 -> abs = 2^-148, 2 ULP (ulp32 = 2^-149), rel 2/3 */
    static const float sub[] = {0x1p-149f, 0x1p-149f, 0x1p-149f};
    ug_exact es = of_sum(sub, 3);
    check_error(t, "subnormal", &es, 0x1p-149, 0x1p-148, 0x1p-148 / 0x1.8p-148, 2.0, __LINE__);

    /* zero: s = +0: any nonzero got has infinite relative error; -0 is exact */
    static const float zero[] = {1.0f, -1.0f};
    ug_exact ez = of_sum(zero, 2);
    check_error(t, "2^-149 vs 0", &ez, 0x1p-149, 0x1p-149, INFINITY, 1.0, __LINE__);
    check_error(t, "-0 vs 0", &ez, -0.0, 0.0, 0.0, 0.0, __LINE__);

    /* the low part matters: s = 1 + 2^-60 (hi = 1, lo = 2^-60), got = 1 -> abs = 2^-60;
     * got = 1 + 2^-23 -> abs = 2^-23 - 2^-60 (exact in binary64: 38 bits) */
    static const float lo[] = {1.0f, 0x1p-60f};
    ug_exact el = of_sum(lo, 2);
    check_error(t, "hi+lo, got 1", &el, 1.0, 0x1p-60, 0x1p-60, 0x1p-37, __LINE__);
    check_error(t, "hi+lo, got 1+2^-23", &el, 0x1.000002p0, 0x1p-23 - 0x1p-60,
                (0x1p-23 - 0x1p-60) / 1.0, (0x1p-23 - 0x1p-60) / 0x1p-23, __LINE__);
    /* a binary64 got is measured as exactly: got = 1 + 2^-52, s = 1 + 2^-60 */
    check_error(t, "binary64 got", &el, 0x1.0000000000001p0, 0x1p-52 - 0x1p-60,
                0x1p-52 - 0x1p-60, (0x1p-52 - 0x1p-60) / 0x1p-23, __LINE__);

    /* the tie 1 + 2^-24: got = 1 (RN32) is half an ulp off */
    static const float tie[] = {1.0f, 0x1p-24f};
    ug_exact et = of_sum(tie, 2);
    check_error(t, "tie", &et, 1.0, 0x1p-24, 0x1p-24 / 0x1.000001p0, 0.5, __LINE__);

    /* specials */
    static const float nanv[] = {NAN}, pinf[] = {INFINITY}, ninf[] = {-INFINITY};
    ug_exact en = of_sum(nanv, 1), ep = of_sum(pinf, 1), em = of_sum(ninf, 1);
    check_error(t, "nan vs nan", &en, NAN, 0, 0, 0, __LINE__);
    check_error(t, "1 vs nan", &en, 1.0, INFINITY, INFINITY, INFINITY, __LINE__);
    check_error(t, "inf vs inf", &ep, INFINITY, 0, 0, 0, __LINE__);
    check_error(t, "-inf vs inf", &ep, -INFINITY, INFINITY, INFINITY, INFINITY, __LINE__);
    check_error(t, "max vs inf", &ep, FMAX, INFINITY, INFINITY, INFINITY, __LINE__);
    check_error(t, "nan vs inf", &ep, NAN, INFINITY, INFINITY, INFINITY, __LINE__);
    check_error(t, "-inf vs -inf", &em, -INFINITY, 0, 0, 0, __LINE__);
    check_error(t, "nan vs 1", &e1, NAN, INFINITY, INFINITY, INFINITY, __LINE__);
    check_error(t, "inf vs 1", &e1, INFINITY, INFINITY, INFINITY, INFINITY, __LINE__);

    /* finite s that overflows binary32: s = 2 FLT_MAX = 2^129 - 2^105, RN32 = +inf.  got = +inf
     * is the correctly rounded answer (0); -inf and NaN are infinitely wrong; got = FLT_MAX is
     * FLT_MAX = 2^128 - 2^104 away, in ULPs of ulp32(inf) = 2^104: 2^24 - 1; rel = 1/2 */
    static const float ov[] = {FMAX, FMAX};
    ug_exact eo = of_sum(ov, 2);
    check_error(t, "inf vs overflow", &eo, INFINITY, 0, 0, 0, __LINE__);
    check_error(t, "-inf vs overflow", &eo, -INFINITY, INFINITY, INFINITY, INFINITY, __LINE__);
    check_error(t, "max vs overflow", &eo, FMAX, (double)FMAX, 0.5, 16777215.0, __LINE__);

    /* binary64 sum beyond binary64: hi = +inf; a finite got cannot be measured (+inf), +inf
     * equals RN32 (0) */
    static const double dd[] = {DBL_MAX, DBL_MAX};
    ug_exact ed;
    ug_exact_sum_f64_fast(dd, 2, &ed);
    check_error(t, "finite vs beyond binary64", &ed, DBL_MAX, INFINITY, INFINITY, INFINITY,
                __LINE__);
    check_error(t, "inf vs beyond binary64", &ed, INFINITY, 0, 0, 0, __LINE__);
}

UG_CASE(oracle, exact_equal)
{
    ug_exact a = want(1.0, 0x1p-60, 1.0f, 1.0f), b = a;
    a.sum_abs = 1.0;
    b.sum_abs = 1.0 + 1e-13; /* within 1e-12 relative */
    UG_EXPECT(ug_exact_equal(&a, &b));
    b.sum_abs = 1.0 + 1e-11;
    UG_EXPECT(!ug_exact_equal(&a, &b));
    b = a;
    b.lo = -0x1p-60;
    UG_EXPECT(!ug_exact_equal(&a, &b));
    b = want(0.0, 0.0, 0.0f, 0.0f);
    ug_exact c = want(-0.0, 0.0, -0.0f, -0.0f);
    b.sum_abs = c.sum_abs = 0;
    UG_EXPECT(!ug_exact_equal(&b, &c)); /* bitwise: the sign of zero counts */
    ug_exact n1 = want_special(UG_X_NAN), n2 = want_special(UG_X_NAN);
    UG_EXPECT(ug_exact_equal(&n1, &n2));
    UG_EXPECT(!ug_exact_equal(&n1, &a));
}

UG_CASE(oracle, selection)
{
    static const float x[] = {1.0f, 0x1p-30f};
    ug_exact a, b;
    ug_oracle_kind before = ug_oracle_selected();
    ug_oracle_select(UG_ORACLE_MPFR);
    UG_EXPECT(ug_oracle_selected() == UG_ORACLE_MPFR);
    ug_exact_sum_f32(x, 2, &a);
    ug_oracle_select(UG_ORACLE_FAST);
    ug_exact_sum_f32(x, 2, &b);
    ug_oracle_select(before);
    UG_EXPECT(ug_exact_equal(&a, &b));
    UG_EXPECT(strcmp(ug_oracle_name(UG_ORACLE_FAST), "fast") == 0);
    UG_EXPECT(strcmp(ug_oracle_name(UG_ORACLE_MPFR), "mpfr") == 0);
    UG_EXPECT(ug_par_threads() >= 1);
}
