/*
 * check_f64.c - binary64 dot products exactly, with MPFR: the exact results of check's binary64
 * dots and GEMMs (check.c), which the operation table computes in binary32 only.
 */
#include <math.h>
#include <mpfr.h>
#include <string.h>

#include "harness/check/check.h"

/* sum x[i*incx] y[i*incy] of binary64 values into e.  Every product is a multiple of 2^-2148
 * below 2^2048 in magnitude, so an accumulator of 2048 + 2148 + bits(n) + 1 bits adds them
 * exactly (the argument of oracle/exact_mpfr.c); a product of two 53-bit values is exact at 106
 * bits.  hi = RN64(s), lo = RN64(s - hi) (s - hi exact at the accumulator's precision), rn/rd
 * through format.c's exact rounding from hi and lo's sign; sum_abs = RU64(sum |products|).
 * Specials as oracle.h: a NaN term (NaN operand, 0 * inf), or +inf with -inf: NaN; else the
 * infinity.  Cost: ~0.3 us a term. */
void ug_check_dot_f64(const double *x, size_t incx, const double *y, size_t incy, size_t n,
                      ug_exact *e)
{
    int bits = 0;
    while (n >> bits) bits++;
    mpfr_prec_t prec = 2048 + 2148 + bits + 1;
    mpfr_t s, sa, p;
    mpfr_inits2(prec, s, sa, (mpfr_ptr)0);
    mpfr_init2(p, 106);
    mpfr_set_zero(s, 1);
    mpfr_set_zero(sa, 1);
    int nan = 0, pinf = 0, ninf = 0, allneg0 = n > 0;
    for (size_t i = 0; i < n; i++) {
        double a = x[i * incx], b = y[i * incy];
        if (isnan(a) || isnan(b) || (isinf(a) && b == 0) || (isinf(b) && a == 0)) {
            nan = 1;
            continue;
        }
        if (isinf(a) || isinf(b)) {
            if (signbit(a) != signbit(b)) ninf = 1; else pinf = 1;
            continue;
        }
        double q = a * b; /* the sign of a zero product; a finite one may round: MPFR below */
        if (!(q == 0 && signbit(q) && (a == 0 || b == 0))) allneg0 = 0;
        mpfr_set_d(p, a, MPFR_RNDN);
        mpfr_mul_d(p, p, b, MPFR_RNDN); /* exact: 106 bits */
        mpfr_add(s, s, p, MPFR_RNDN);
        mpfr_abs(p, p, MPFR_RNDN);
        mpfr_add(sa, sa, p, MPFR_RNDN);
    }
    memset(e, 0, sizeof *e);
    if (nan || (pinf && ninf)) {
        e->cls = UG_X_NAN;
        e->hi = e->lo = e->rn = e->rd = NAN;
        e->sum_abs = INFINITY;
    } else if (pinf || ninf) {
        e->cls = pinf ? UG_X_POSINF : UG_X_NEGINF;
        e->hi = e->lo = e->rn = e->rd = pinf ? INFINITY : -INFINITY;
        e->sum_abs = INFINITY;
    } else {
        e->cls = UG_X_FINITE;
        e->hi = mpfr_get_d(s, MPFR_RNDN);
        if (mpfr_zero_p(s)) e->hi = allneg0 ? -0.0 : 0.0;
        if (isfinite(e->hi)) {
            mpfr_sub_d(s, s, e->hi, MPFR_RNDN); /* exact: prec holds both */
            e->lo = mpfr_get_d(s, MPFR_RNDN);
        }
        e->rn = (float)ug_fmt_round2(UG_F32, e->hi, e->lo, UG_RN);
        e->rd = (float)ug_fmt_round2(UG_F32, e->hi, e->lo, UG_RD);
        e->sum_abs = mpfr_get_d(sa, MPFR_RNDU);
    }
    mpfr_clears(s, sa, p, (mpfr_ptr)0);
}
