/*
 * formats_exhaustive.c - every bit pattern of binary16, bfloat16, fp8 e4m3 and e5m2, OCP MX's
 * FP6 e3m2 / e2m3 and FP4 e2m1 elements, and the E8M0 scale (blockfmt_e8m0.c), both
 * directions, against MPFR emulating the format (precision p, mpfr_set_emin/emax to the format's
 * exponent range, mpfr_check_range + mpfr_subnormalize: MPFR's documented idiom for IEEE
 * subnormals and overflow without double rounding).
 *
 * Decode (format -> binary64 and binary32): every pattern's value is a number of the format
 * (MPFR's emulation holds it exactly), exact in binary32 (every format here embeds in it), and
 * the finite patterns of each sign enumerate the format in increasing order without gaps:
 * consecutive positive patterns are consecutive numbers of MPFR's emulation (mpfr_nextabove).
 *
 * Encode (binary64 or binary32 -> format): around every pattern's value v and its successor w,
 * the points where rounding decides: v, the midpoint (v + w)/2 (a tie), and the binary64 and
 * binary32 neighbours of each; beyond max, the overflow threshold max + ulp/2 and its
 * neighbours.  ug_fmt_round (RN, RD) and ug_fmt_encode (RN, to bits) against MPFR's emulation
 * in that mode, then the format's overflow rule as format.h states it: e4m3 has no infinity
 * and MPFR's emulation of its exponent range has one more binade step (480) than the format
 * (448; S.1111.111 is NaN), so a result beyond 448 is NaN (non-saturating) -- and
 * ug_fmt_round_sat gives +-max there (the saturating mode).  The FP6/FP4 elements have no inf
 * and no NaN (UG_NAN_NONE): beyond max saturates in every mode, and a NaN encodes to the row's
 * qnan code with the NaN's sign (+-max).
 */
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <string.h>

#include "base/bits.h"
#include "base/format.h"
#include "harness/run/ug.h"

/* Bitwise the same double, or both NaN. */
static bool ex_same(double a, double b)
{
    return ug_f64_bits(a) == ug_f64_bits(b) || (isnan(a) && isnan(b));
}

/* v rounded to F by MPFR's emulation (mode rnd), before F's own overflow rule. */
static double ex_mpfr_round(const ug_format *F, double v, mpfr_rnd_t rnd, int *exact)
{
    mpfr_t x;
    mpfr_init2(x, F->p);
    int i = mpfr_set_d(x, v, rnd); /* the exponent range is set by the caller */
    i = mpfr_check_range(x, i, rnd);
    i = mpfr_subnormalize(x, i, rnd);
    double r = mpfr_get_d(x, MPFR_RNDN); /* exact: p <= 11 bits */
    if (exact)
        *exact = i == 0;
    mpfr_clear(x);
    return r;
}

/* The expected rounding of v: MPFR's, then F's overflow rule (sat: the saturating mode). */
static double ex_want(const ug_format *F, double v, ug_rmode m, bool sat)
{
    if (isnan(v))
        return NAN;
    double r = ex_mpfr_round(F, v, m == UG_RN ? MPFR_RNDN : MPFR_RNDD, NULL);
    if (fabs(r) <= F->max)
        return r;
    if (sat || F->nan == UG_NAN_NONE)
        return copysign(F->max, r);
    if (!F->inf) /* e4m3: beyond 448 is NaN, RD of a positive value is 448 */
        return m == UG_RD && r > 0 ? F->max : NAN;
    return r; /* MPFR's emulation already gives inf, or max for RD of a positive value */
}

typedef struct ex_tally {
    size_t tried, bad;
    double x, got, want;
    const char *what;
} ex_tally;

static void ex_check(ex_tally *ta, const char *what, double x, double got, double want)
{
    ta->tried++;
    if (!ex_same(got, want) && !ta->bad++)
        *ta = (ex_tally){ta->tried, 1, x, got, want, what};
}

/* One input x through every conversion under test. */
static void ex_point(const ug_format *F, ug_fmt f, double x, ex_tally *ta)
{
    double rn = ex_want(F, x, UG_RN, false);
    ex_check(ta, "round RN", x, ug_fmt_round(f, x, UG_RN), rn);
    /* RD of an infinite x: format.h reads hi = +-inf as an exact value beyond binary64 (so RD
     * of +inf is max); a true infinity converts by RN (encode), checked here */
    if (!isinf(x))
        ex_check(ta, "round RD", x, ug_fmt_round(f, x, UG_RD), ex_want(F, x, UG_RD, false));
    /* a format with no NaN code writes its qnan code, with the NaN's sign */
    double nan_code = F->nan == UG_NAN_NONE && isnan(x)
                          ? ug_fmt_decode(f, F->qnan | (uint64_t)(signbit(x) != 0) << (F->bits - 1))
                          : rn;
    ex_check(ta, "encode", x, ug_fmt_decode(f, ug_fmt_encode(f, x)), nan_code);
    ex_check(ta, "round_sat", x, ug_fmt_round_sat(f, x), ex_want(F, x, UG_RN, true));
    ex_check(ta, "encode_sat", x, ug_fmt_decode(f, ug_fmt_encode_sat(f, x)),
             isnan(x) ? nan_code : ex_want(F, x, UG_RN, true));
    float xf = (float)x; /* the same from the binary32 nearest x (a binary32 input) */
    ex_check(ta, "round RN (binary32 in)", xf, ug_fmt_round(f, xf, UG_RN),
             ex_want(F, xf, UG_RN, false));
}

/* The points around a and b (a < b, a finite), both signs. */
static void ex_around(const ug_format *F, ug_fmt f, double a, double b, ex_tally *ta)
{
    double mid = isinf(b) ? F->max + ug_fmt_ulp(f, F->max) / 2 : a + (b - a) / 2;
    double pts[] = {a,
                    nextafter(a, INFINITY),
                    nextafter(a, -INFINITY),
                    mid,
                    nextafter(mid, INFINITY),
                    nextafter(mid, -INFINITY),
                    nextafterf((float)mid, INFINITY),
                    nextafterf((float)mid, -INFINITY)};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        ex_point(F, f, pts[i], ta);
        ex_point(F, f, -pts[i], ta);
    }
}

static void ex_format(ug_t *t, ug_fmt f)
{
    const ug_format *F = ug_format_of(f);
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    /* MPFR's significands are in [1/2, 1): the least subnormal 2^(emin-p+1) has exponent
     * emin - p + 2, the largest binade [2^emax, 2^(emax+1)) exponent emax + 1 */
    mpfr_set_emin(F->emin - F->p + 2);
    mpfr_set_emax(F->emax + 1);
    uint32_t all = 1u << F->bits, sign = all >> 1;

    ug_point(t, "decode %s: all %u patterns against MPFR", F->name, all);
    size_t bad = 0, gaps = 0;
    uint32_t first = 0;
    double prev = NAN;
    for (uint32_t b = 0; b < all; b++) {
        double v = ug_fmt_decode(f, b);
        if (isnan(v))
            continue;
        int exact = 0;
        uint32_t inf_bits = (sign - 1) & ~((1u << (F->p - 1)) - 1); /* exponent all ones */
        bool ok = isinf(v) ? F->inf && (b & (sign - 1)) == inf_bits
                           : (ex_mpfr_round(F, v, MPFR_RNDN, &exact) == v && exact &&
                              (double)(float)v == v && fabs(v) <= F->max);
        if (!ok && !bad++)
            first = b;
        if (b < sign && isfinite(v)) { /* consecutive numbers of the format, from +0 up */
            /* the least number of the format above prev: MPFR's RU of prev's binary64 successor */
            if (b > 0 && ex_mpfr_round(F, nextafter(prev, INFINITY), MPFR_RNDU, NULL) != v)
                gaps++;
            prev = v;
        }
    }
    UG_EXPECT_MSG(bad == 0, "%s: %zu patterns are not numbers of the format (first %#x = %a)",
                  F->name, bad, first, ug_fmt_decode(f, first));
    UG_EXPECT_MSG(gaps == 0, "%s: %zu positive patterns skip or repeat a number", F->name, gaps);
    UG_EXPECT_MSG(prev == F->max, "%s: the last finite pattern is %a, max %a", F->name, prev,
                  F->max);

    ug_point(t, "encode %s: around every pattern against MPFR", F->name);
    ex_tally ta = {0};
    for (uint32_t b = 0; b < sign; b++) {
        double a = ug_fmt_decode(f, b);
        if (!isfinite(a))
            continue;
        double w = a == F->max ? INFINITY : ug_fmt_decode(f, b + 1);
        ex_around(F, f, a, w, &ta);
    }
    static const double specials[] = {INFINITY, NAN, 0x1p-1074, 0x1.fffffffffffffp1023, 1e300};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        ex_point(F, f, specials[i], &ta);
        ex_point(F, f, -specials[i], &ta);
    }
    UG_EXPECT_MSG(ta.bad == 0, "%s: %zu of %zu conversions differ from MPFR; first: %s(%a) = %a, "
                  "MPFR %a", F->name, ta.bad, ta.tried, ta.what, ta.x, ta.got, ta.want);
    ug_note(t, "%s: %zu conversions compared", F->name, ta.tried);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
}

UG_CASE(formats, exhaustive_mpfr)
{
    ex_format(t, UG_F16);
    ex_format(t, UG_BF16);
    ex_format(t, UG_E4M3);
    ex_format(t, UG_E5M2);
    ex_format(t, UG_E3M2);
    ex_format(t, UG_E2M3);
    ex_format(t, UG_E2M1);
    /* the saturating mode by hand (OCP): e4m3 500 -> 448, inf -> 448, NaN stays */
    ug_point(t, "saturating e4m3, e5m2 by hand");
    UG_EXPECT(ug_fmt_round_sat(UG_E4M3, 500.0) == 448.0 && isnan(ug_fmt_round(UG_E4M3, 500.0, UG_RN)));
    UG_EXPECT(ug_fmt_encode_sat(UG_E4M3, -INFINITY) == 0xfe && ug_fmt_encode(UG_E4M3, 500.0) == 0x7f);
    UG_EXPECT(ug_fmt_encode_sat(UG_E5M2, 1e6) == 0x7b && ug_fmt_encode(UG_E5M2, 1e6) == 0x7c);
    UG_EXPECT(isnan(ug_fmt_round_sat(UG_E4M3, NAN)) && ug_fmt_round_sat(UG_E4M3, 464.0) == 448.0);
    /* the OCP MX element tables by hand: max, least subnormal, the codes of +-max */
    ug_point(t, "e3m2, e2m3, e2m1: max, least subnormal, codes of +-max, by hand");
    UG_EXPECT(ug_fmt_decode(UG_E3M2, 0x1f) == 28.0 && ug_fmt_decode(UG_E3M2, 0x01) == 0x1p-4);
    UG_EXPECT(ug_fmt_decode(UG_E2M3, 0x1f) == 7.5 && ug_fmt_decode(UG_E2M3, 0x01) == 0.125);
    UG_EXPECT(ug_fmt_decode(UG_E2M1, 0x7) == 6.0 && ug_fmt_decode(UG_E2M1, 0x1) == 0.5);
    UG_EXPECT(ug_fmt_decode(UG_E2M1, 0xf) == -6.0 && ug_fmt_encode(UG_E2M1, -1e9) == 0xf);
    UG_EXPECT(ug_fmt_encode(UG_E2M1, 5.0) == 0x6 && ug_fmt_encode(UG_E2M1, 0.25) == 0x0);
    UG_EXPECT(ug_fmt_encode(UG_E2M1, 0.75) == 0x2 && ug_fmt_encode(UG_E2M1, 2.5) == 0x4);
}
