/*
 * error.c - the error of a computed value against an exact summary in the result's format, the
 * exact value rounded to any format (ug_exact_rn/rd), and the binary32 ULP.
 *
 * Accuracy of ug_error_of's abs = |got - s| (s the exact value, hi = RN64(s), lo = RN64(s - hi),
 * u = 2^-53, got a finite binary64 number):
 *  1. delta = s - hi - lo is lo's rounding error: |delta| <= u |s - hi| <= u^2 |hi| (1 + u), i.e.
 *     |delta| <= 2^-105.9 |s|.  (When s - hi lies in binary64's subnormal range it is a multiple
 *     of 2^-1074 for every sum this oracle forms, hence exact: delta = 0.)
 *  2. (d1, d2) = TwoSum(got, -hi), (t1, t2) = TwoSum(d2, -lo), (e1, e2) = TwoSum(d1, t1) are
 *     error-free (Knuth; no overflow for finite operands below 2^1023 in magnitude), so
 *     V := e1 + e2 + t2 = got - hi - lo = (got - s) + delta exactly.
 *  3. E = fl(e1 + fl(e2 + t2)), w = e2 + t2.  Then E = V (1 + eps2) + w eps1 (1 + eps2) with
 *     |eps_i| <= u.  If e2 == 0, fl(w) = t2 is exact (eps1 = 0).  Otherwise d1 + t1 was rounded,
 *     so d1 and t1 are not within a factor 2 of each other with opposite signs (Sterbenz), which
 *     gives |t1| <= 2 (1 + u) |e1|; with |e2| <= u |e1| and |t2| <= u |t1|, |w| <= 3.01 u |e1|
 *     and |w| <= 3.02 u |V|.  Either way |E - V| <= (u + 3.1 u^2) |V|.
 *  So abs = |got - s| (1 + theta) + eta with |theta| <= 2^-52.9 and |eta| <= 2^-105.9 |s|:
 *  the exact error to about 2^-106 relative to |s| before its one rounding to binary64; in ULPs
 *  (ulp32(RN32(s)) >= 2^-24 |s| for normal s) eta is below 2^-81 ULP.
 * rel = abs / |hi| (|hi| is |s| within a factor 1 + 2^-53); ulp = abs / ulp_F(RN_F(s)) (exact
 * division by a power of two; for binary32 ulp_F is ug_ulp32 and RN_F(s) the cached rn, so the
 * binary32 figures are those of before formats were typed, bit for bit).
 * If |s| overflows binary64 (hi = +-inf, binary64 sums only), a finite got has abs = rel = ulp =
 * +inf; likewise if got - hi overflows binary64.
 */
#include <math.h>

#include "base/bits.h"
#include "oracle/oracle.h"

static void two_sum(double a, double b, double *s, double *t)
{
    double x = a + b;
    double bv = x - a;
    *t = (a - (x - bv)) + (b - bv);
    *s = x;
}

static ug_error error_all(double v)
{
    ug_error r = {v, v, v};
    return r;
}

/* s of a special class in format f: NaN, or the infinity (NaN where f has none). */
static double ug_exact_special(const ug_exact *e, ug_fmt f)
{
    const ug_format *F = ug_format_of(f);
    if (e->cls == UG_X_NAN || !F || !F->inf) return NAN;
    return e->cls == UG_X_POSINF ? INFINITY : -INFINITY;
}

double ug_exact_rn(const ug_exact *e, ug_fmt f)
{
    if (e->cls != UG_X_FINITE) return ug_exact_special(e, f);
    if (f == UG_F32) return e->rn;
    return ug_fmt_round2(f, e->hi, e->lo, UG_RN);
}

double ug_exact_rd(const ug_exact *e, ug_fmt f)
{
    if (e->cls != UG_X_FINITE) return ug_exact_special(e, f);
    if (f == UG_F32) return e->rd;
    return ug_fmt_round2(f, e->hi, e->lo, UG_RD);
}

ug_error ug_error_of(const ug_exact *e, double got)
{
    return ug_error_fmt(e, UG_F32, got);
}

ug_error ug_error_fmt(const ug_exact *e, ug_fmt f, double got)
{
    switch ((ug_xclass)e->cls) {
    case UG_X_NAN:
        return error_all(isnan(got) ? 0.0 : INFINITY);
    case UG_X_POSINF:
        return error_all(got == INFINITY ? 0.0 : INFINITY);
    case UG_X_NEGINF:
        return error_all(got == -INFINITY ? 0.0 : INFINITY);
    case UG_X_FINITE:
        break;
    }
    double rn = ug_exact_rn(e, f);
    if (isnan(got)) /* right only as the correct overflow of RN_f(s) (e4m3: NaN) */
        return error_all(isnan(rn) ? 0.0 : INFINITY);
    if (isinf(got)) /* right only as the correct overflow of RN_f(s) */
        return error_all(got == rn ? 0.0 : INFINITY);
    if (!isfinite(e->hi))
        return error_all(INFINITY);
    double d1, d2, t1, t2, e1, e2;
    two_sum(got, -e->hi, &d1, &d2);
    if (!isfinite(d1))
        return error_all(INFINITY);
    two_sum(d2, -e->lo, &t1, &t2);
    two_sum(d1, t1, &e1, &e2);
    ug_error r;
    r.abs = fabs(e1 + (e2 + t2));
    r.rel = e->hi == 0 ? (r.abs == 0 ? 0.0 : INFINITY) : r.abs / fabs(e->hi);
    const ug_format *F = ug_format_of(f);
    r.ulp = r.abs / ug_fmt_ulp(f, isnan(rn) && F ? F->max : rn);
    return r;
}

double ug_ulp32(float r)
{
    if (isnan(r))
        return NAN;
    if (isinf(r))
        return 0x1p104; /* the last finite binade's quantum */
    float a = fabsf(r);
    if (a < 0x1p-126f)
        return 0x1p-149;
    return ldexp(1.0, ilogbf(a) - 23);
}

int ug_exact_equal(const ug_exact *a, const ug_exact *b)
{
    if (a->cls != b->cls || ug_f64_bits(a->hi) != ug_f64_bits(b->hi) ||
        ug_f64_bits(a->lo) != ug_f64_bits(b->lo) || ug_f32_bits(a->rn) != ug_f32_bits(b->rn) ||
        ug_f32_bits(a->rd) != ug_f32_bits(b->rd))
        return 0;
    if (a->sum_abs == b->sum_abs)
        return 1;
    if (!isfinite(a->sum_abs) || !isfinite(b->sum_abs))
        return 0;
    double m = fmax(fabs(a->sum_abs), fabs(b->sum_abs));
    return fabs(a->sum_abs - b->sum_abs) <= 1e-12 * m;
}
