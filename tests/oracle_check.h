/*
 * oracle_check.h - what the oracle's hand-derived tests share (tests/oracle.c,
 * tests/oracle_parse.c): expected summaries and their bitwise comparison.
 */
#ifndef UG_TESTS_ORACLE_CHECK_H
#define UG_TESTS_ORACLE_CHECK_H

#include <math.h>

#include "base/bits.h"
#include "harness/run/ug.h"

#define NOF(a) (sizeof(a) / sizeof((a)[0]))
#define FMAX 0x1.fffffep127f /* FLT_MAX = 2^128 - 2^104 */

/* Bitwise equality (the sign of zero and NaN payloads count). */
static inline int same64(double a, double b)
{
    return ug_f64_bits(a) == ug_f64_bits(b);
}

static inline int same32(float a, float b)
{
    return ug_f32_bits(a) == ug_f32_bits(b);
}

/* A finite exact summary as hand-derived (sum_abs 0: not compared). */
static inline ug_exact want(double hi, double lo, float rn, float rd)
{
    ug_exact e = {hi, lo, 0, rn, rd, UG_X_FINITE};
    return e;
}

static inline ug_exact want_special(ug_xclass cls)
{
    double v = cls == UG_X_POSINF ? INFINITY : cls == UG_X_NEGINF ? -INFINITY : NAN;
    ug_exact e = {v, v, INFINITY, (float)v, (float)v, (uint8_t)cls};
    return e;
}

/* Compares one implementation's summary with the hand-computed one (bitwise; NaN == NaN). */
static inline void check_exact(ug_t *t, const char *what, const char *impl,
                               const ug_exact *got, const ug_exact *w, int line)
{
    int ok = got->cls == w->cls;
    if (w->cls == UG_X_NAN)
        ok = ok && isnan(got->hi) && isnan(got->lo) && isnan(got->rn) && isnan(got->rd);
    else
        ok = ok && same64(got->hi, w->hi) && same64(got->lo, w->lo) && same32(got->rn, w->rn) &&
             same32(got->rd, w->rd);
    if (w->cls != UG_X_FINITE)
        ok = ok && got->sum_abs == INFINITY;
    ug_check(t, ok, what, __FILE__, line,
             "[%s] got cls=%d hi=%a lo=%a rn=%a rd=%a sum_abs=%a; want cls=%d hi=%a lo=%a rn=%a "
             "rd=%a",
             impl, got->cls, got->hi, got->lo, (double)got->rn, (double)got->rd, got->sum_abs,
             w->cls, w->hi, w->lo, (double)w->rn, (double)w->rd);
}

#endif
