/*
 * exact_dot64.c - the fast path of exact dot products of binary64 values (oracle.h:
 * ug_exact_dot_f64_fast), without MPFR.
 *
 * Why it is exact.  For finite nonzero x, y let ex = ilogb(x), ey = ilogb(y).  Their quanta are
 * at least 2^(ex - 52) and 2^(ey - 52) (or 2^-1074 for subnormals, which is larger), so the exact
 * product xy is an integer multiple of 2^(ex + ey - 104), and |xy| < 2^(ex + ey + 2).  When
 *     ex + ey >= -970  and  ex + ey <= 1021                                   (the fast range)
 * p = RN64(xy) is finite (|xy| < 2^1023 < DBL_MAX, so no overflow) and the error-free product
 * e = fma(x, y, -p) is exactly xy - p: xy - p is a multiple of 2^(ex + ey - 104) >= 2^-1074 with
 * |xy - p| <= ulp(p)/2, hence at most 53 significant bits, a binary64 number, so the fma (one
 * rounding of an exact binary64 number) returns it.  So xy = p + e with both finite binary64
 * numbers, and the exact accumulator (oracle/xacc.h: every binary64 quantum up to 2^1230) adds
 * them without error.  sum_abs: |xy| = |p| + sign(p) e (|e| <= ulp(p)/2 < |p|), added to a second
 * accumulator and read rounded up (ug_xacc_mag_up = RU64), exactly what the MPFR oracle stores.
 * A term outside the fast range (a product below ~2^-970 or above ~2^1021 in magnitude) makes
 * the function return -1 without touching out: the dispatcher (oracle.c) then asks MPFR.  Zeros,
 * infinities and NaNs follow special.h's rules (0 * inf is NaN; the sign of a zero product is
 * the xor of the signs).
 *
 * That careful path costs ~15 ns a term (two multiplications, one fma, four accumulator
 * additions); the main path (below) ~2-4 ns, against ~100 ns and more for MPFR at ~4200 bits
 * (the benchmark in tests/oracle_diff64.c prints both on the same data).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "base/sys.h"

#include "oracle/fast.h"
#include "oracle/oracle.h"
#include "oracle/special.h"
#include "oracle/xacc.h"

/* The careful path: one product at a time, specials counted, the range checked per term. */
static int dot64_careful(const double *x, size_t incx, const double *y, size_t incy, size_t n,
                         ug_exact *out)
{
    size_t nan_terms = 0, posinf = 0, neginf = 0;
    int all_negzero = n > 0;
    ug_xacc s, a;
    ug_xacc_init(&s);
    ug_xacc_init(&a);
    for (size_t i = 0; i < n; i++) {
        double u = x[i * incx], v = y[i * incy];
        int neg = (signbit(u) != 0) != (signbit(v) != 0);
        if (isnan(u) || isnan(v)) {
            nan_terms++, all_negzero = 0;
            continue;
        }
        if (isinf(u) || isinf(v)) {
            all_negzero = 0;
            if (u == 0 || v == 0)
                nan_terms++; /* 0 * inf */
            else if (neg)
                neginf++;
            else
                posinf++;
            continue;
        }
        if (u == 0 || v == 0) { /* an exact zero product, of sign neg */
            if (!neg)
                all_negzero = 0;
            continue;
        }
        all_negzero = 0;
        int es = ilogb(u) + ilogb(v);
        if (es < -970 || es > 1021)
            return -1; /* outside the fast range: the caller's MPFR path */
        double p = u * v, e = fma(u, v, -p);
        ug_xacc_add(&s, p);
        ug_xacc_add(&s, e);
        ug_xacc_add(&a, fabs(p));
        ug_xacc_add(&a, p > 0 ? e : -e);
    }
    ug_xclass cls = ug_special_class(nan_terms, posinf, neginf);
    if (cls != UG_X_FINITE) {
        ug_exact_set_special(out, cls);
        return 0;
    }
    out->sum_abs = ug_xacc_mag_up(&a);
    if (!ug_xacc_fill(&s, out))
        ug_exact_set_zero(out, all_negzero);
    out->cls = UG_X_FINITE;
    return 0;
}

/* Main path: ug_exact_dot64_stream (exact_fast.c) forms p and e of every product block by
 * block (the range test on p: |p| >= 2^-968 means ilogb(p) >= -968, so ex + ey >=
 * ilogb(p) - 1 >= -969, and e is exact as above; p finite and nonzero otherwise needs nothing
 * more: an overflowing product is inf and fails the test, a p = DBL_MAX below an exact product
 * beyond it still has e = xy - p exact, fma rounds once) and sums the 2n terms exactly, with
 * the extraction levels or, on data spread over many binades, the large accumulator (xacc.h).
 * sum_abs: dot64_sum_abs (above), a second pass over x and y.
 * Any product off the range (NaN, inf, too small or too large): the careful path above decides
 * (specials) or gives up (-1).  A zero sum: the sign rule needs the products' signs (e of a -0
 * product is +0): scanned once.  No n-sized buffer: the terms live in a block's buffer. */
/* sum_abs of the main path: a compensated (Neumaier, 4 lanes) sum of |p|, p = RN(xy), times
 * 1 + 2^-43.  sum |xy| <= (1 + 2^-53) sum |p|; the compensated sum's relative error is below
 * 2^-50 for nonnegative terms; so it is an upper bound within 1 + 2^-42 of the true value
 * (oracle.h asks 1 + 2^-40).  Kept bit for bit as it was when the products went through a
 * buffer: the baselines hold bound ratios, exact figures, that divide by it.  ~1 ns a term. */
static double dot64_sum_abs(const double *x, const double *y, size_t n)
{
    double sa[4] = {0, 0, 0, 0}, ca[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; l++) {
            double a = fabs(x[i + l] * y[i + l]);
            double s = sa[l] + a, b = s - sa[l]; /* TwoSum: the error exactly */
            ca[l] += (sa[l] - (s - b)) + (a - b);
            sa[l] = s;
        }
    for (; i < n; i++) {
        double a = fabs(x[i] * y[i]);
        double s = sa[0] + a, b = s - sa[0];
        ca[0] += (sa[0] - (s - b)) + (a - b);
        sa[0] = s;
    }
    double hs = 0, ls = 0;
    for (int l = 0; l < 4; l++) {
        double s = hs + sa[l];
        ls += (hs >= sa[l] ? (hs - s) + sa[l] : (sa[l] - s) + hs) + ca[l];
        hs = s;
    }
    return (hs + ls) * (1.0 + 0x1p-43);
}

int ug_exact_dot_f64_fast(const double *x, size_t incx, const double *y, size_t incy, size_t n,
                          ug_exact *out)
{
    if (n == 0 || incx != 1 || incy != 1)
        return dot64_careful(x, incx, y, incy, n, out);
    ug_exact r;
    if (ug_exact_dot64_stream(x, y, n, &r) != 0)
        return dot64_careful(x, incx, y, incy, n, out);
    *out = r;
    out->sum_abs = dot64_sum_abs(x, y, n);
    if (!isfinite(out->sum_abs)) { /* near or beyond DBL_MAX: exactly, RU64 (as above) */
        ug_xacc a;
        ug_xacc_init(&a);
        for (size_t k = 0; k < n; k++) {
            double p = x[k] * y[k], e = fma(x[k], y[k], -p);
            ug_xacc_add(&a, fabs(p));
            ug_xacc_add(&a, p > 0 ? e : -e);
        }
        out->sum_abs = ug_xacc_mag_up(&a);
    }
    if (out->cls == UG_X_FINITE && out->hi == 0) {
        int neg = 1;
        for (size_t k = 0; k < n && neg; k++)
            neg = (x[k] * y[k] == 0) && signbit(x[k] * y[k]);
        ug_exact_set_zero(out, neg);
    }
    return 0;
}
